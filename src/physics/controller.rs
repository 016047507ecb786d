//! [`RagdollController`]: animation → ragdoll handoff with a ramped blend, and back ("get up").

use anim::ragdoll::{RagdollRamp, model_to_local};
use anim::{Easing, Model, Pose, ScaleSpace, blend_poses};
use glam::{Affine3A, Vec3};

use super::sim::{Ragdoll, RagdollSettings};
use super::spec::{RagdollError, RagdollSpec};

/// What drives the skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The animation alone.
    Animated,
    /// The ragdoll, blended over the animation by the ramped weight.
    Ragdoll,
    /// Blending from the last ragdoll pose back into the animation.
    GettingUp,
}

/// A blend from a frozen pose into the animation.
#[derive(Debug, Clone)]
struct GetUp {
    from: Pose,
    elapsed_secs: f32,
    duration_secs: f32,
    easing: Easing,
}

impl GetUp {
    fn progress(&self) -> f32 {
        if self.duration_secs > 0.0 { (self.elapsed_secs / self.duration_secs).min(1.0) } else { 1.0 }
    }
}

/// Drives one character: plays the caller's animation pose, hands off to a ragdoll on
/// [`trigger`](Self::trigger) (bodies start at the animated transforms and velocities, the blend
/// weight ramps 0 → 1), and blends back into the animation on [`get_up`](Self::get_up). The
/// caller samples the animation and passes the pose in each frame (ozz-style: the caller owns the
/// clip and its cursor); the controller owns its output pose.
#[derive(Debug)]
pub struct RagdollController {
    spec: RagdollSpec,
    /// Physics settings used at the next trigger.
    pub settings: RagdollSettings,
    /// The blend ramp (rate and easing are tunable at any time).
    pub ramp: RagdollRamp,
    ragdoll: Option<Ragdoll>,
    get_up: Option<GetUp>,
    frozen_local: Pose,
    physics_pose: Pose,
    output: Pose,
    animated_world: Vec<Affine3A>,
    physics_world: Vec<Affine3A>,
    before_world: Vec<Affine3A>,
}

impl RagdollController {
    /// A controller for `model` in the [`Phase::Animated`] phase.
    ///
    /// # Errors
    /// When no ragdoll can be built for the model ([`RagdollSpec::from_model`]).
    pub fn new(model: &Model, settings: RagdollSettings, ramp: RagdollRamp) -> Result<Self, RagdollError> {
        let spec = RagdollSpec::from_model(model)?;
        let rest = Pose::rest(model);
        let n = model.nodes.len();
        Ok(Self {
            spec,
            settings,
            ramp,
            ragdoll: None,
            get_up: None,
            frozen_local: rest.clone(),
            physics_pose: rest.clone(),
            output: rest,
            animated_world: vec![Affine3A::IDENTITY; n],
            physics_world: vec![Affine3A::IDENTITY; n],
            before_world: vec![Affine3A::IDENTITY; n],
        })
    }

    /// The ragdoll layout.
    pub fn spec(&self) -> &RagdollSpec {
        &self.spec
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        match (&self.ragdoll, &self.get_up) {
            (Some(_), _) => Phase::Ragdoll,
            (None, Some(_)) => Phase::GettingUp,
            (None, None) => Phase::Animated,
        }
    }

    /// How much of the output is ragdoll: the ramp's weight while ragdolling, falling to 0 while
    /// getting up, 0 when animated.
    pub fn ragdoll_weight(&self) -> f32 {
        match (&self.ragdoll, &self.get_up) {
            (Some(_), _) => self.ramp.weight(),
            (None, Some(g)) => 1.0 - g.easing.apply(g.progress()),
            (None, None) => 0.0,
        }
    }

    /// The live physics world, while ragdolling.
    pub fn ragdoll(&self) -> Option<&Ragdoll> {
        self.ragdoll.as_ref()
    }

    /// The pose of the last [`update`](Self::update) (or trigger): what the user sees.
    pub fn output(&self) -> &Pose {
        &self.output
    }

    /// Hand off to a new ragdoll now, from any phase (a running ragdoll or get-up is dropped).
    /// `pose_now` is the pose on screen (normally the animation's), `pose_before` the same
    /// motion `dt_before_secs` earlier (for the bodies' initial velocities). `push` optionally
    /// applies an impulse to one body. The output stays `pose_now` until the next update.
    pub fn trigger(
        &mut self,
        model: &Model,
        pose_now: &Pose,
        pose_before: &Pose,
        dt_before_secs: f32,
        push: Option<(usize, Vec3)>,
    ) {
        model.hierarchy.local_to_model(pose_now, &mut self.animated_world);
        model.hierarchy.local_to_model(pose_before, &mut self.before_world);
        let mut ragdoll =
            Ragdoll::new(&self.spec, &self.settings, &self.animated_world, &self.before_world, dt_before_secs);
        if let Some((body, impulse)) = push {
            ragdoll.apply_impulse(body, impulse);
        }
        self.ragdoll = Some(ragdoll);
        self.get_up = None;
        self.ramp.reset();
        self.frozen_local.copy_from(pose_now);
        self.output.copy_from(pose_now);
    }

    /// Start blending from the current output into the animation over `duration_secs` with
    /// `easing`; the ragdoll is dropped at once, so a new trigger can follow immediately.
    /// Returns false (and does nothing) when no ragdoll is active.
    pub fn get_up(&mut self, duration_secs: f32, easing: Easing) -> bool {
        if self.ragdoll.take().is_none() {
            return false;
        }
        let duration_secs = if duration_secs.is_finite() { duration_secs.max(0.0) } else { 0.0 };
        self.get_up = Some(GetUp { from: self.output.clone(), elapsed_secs: 0.0, duration_secs, easing });
        self.ramp.reset();
        true
    }

    /// Advance by `dt_secs` with this frame's animation pose and return the output pose.
    pub fn update(&mut self, model: &Model, dt_secs: f32, animated: &Pose) -> &Pose {
        let dt_secs = if dt_secs.is_finite() { dt_secs.max(0.0) } else { 0.0 };
        if let Some(ragdoll) = &mut self.ragdoll {
            ragdoll.advance(dt_secs);
            self.ramp.advance(dt_secs);
            model.hierarchy.local_to_model(animated, &mut self.animated_world);
            ragdoll.write_world(
                &self.spec,
                &model.hierarchy,
                &self.frozen_local,
                &self.animated_world,
                &mut self.physics_world,
            );
            self.physics_pose.copy_from(animated);
            model_to_local(&model.hierarchy, &self.physics_world, &mut self.physics_pose);
            blend_poses(animated, &self.physics_pose, self.ramp.weight(), ScaleSpace::Linear, &mut self.output);
        } else if let Some(get_up) = &mut self.get_up {
            get_up.elapsed_secs += dt_secs;
            let progress = get_up.progress();
            blend_poses(&get_up.from, animated, get_up.easing.apply(progress), ScaleSpace::Linear, &mut self.output);
            if progress >= 1.0 {
                self.get_up = None;
            }
        } else {
            self.output.copy_from(animated);
        }
        &self.output
    }
}
