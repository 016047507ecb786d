//! [`RagdollController`]: animation → ragdoll handoff with a ramped blend, and back ("get up"),
//! with explosion recovery ([`RagdollFault`]).

use std::fmt;

use anim::ragdoll::{RagdollRamp, model_to_local};
use anim::{Easing, LocalMatrices, Model, ScaleSpace, SoaPose, blend_poses};
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

/// A body farther than this from where it started (metres) means the simulation blew up.
pub const MAX_DISTANCE_M: f32 = 1000.0;

/// A body faster than this (metres per second) means the simulation blew up.
pub const MAX_SPEED_MPS: f32 = 200.0;

/// How a ragdoll body went wrong.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FaultKind {
    /// Its position, rotation or velocity became NaN or infinite.
    NonFinite,
    /// It went farther from where it started than the limit.
    TooFar {
        /// Distance from its joint origin at the handoff, metres.
        distance_m: f32,
        /// The limit, [`MAX_DISTANCE_M`].
        limit_m: f32,
    },
    /// Its linear speed exceeded the limit.
    TooFast {
        /// Speed of its centre of mass, metres per second.
        speed_mps: f32,
        /// The limit, [`MAX_SPEED_MPS`].
        limit_mps: f32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NonFinite => f.write_str("has a NaN or infinite position, rotation or velocity"),
            Self::TooFar { distance_m, limit_m } => {
                write!(f, "is {} m from where it started (limit {limit_m} m)", Amount(distance_m))
            }
            Self::TooFast { speed_mps, limit_mps } => {
                write!(f, "moves at {} m/s (limit {limit_mps} m/s)", Amount(speed_mps))
            }
        }
    }
}

/// A measured amount: one decimal up to 100 000, then scientific notation.
struct Amount(f32);

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.abs() < 1e5 { write!(f, "{:.1}", self.0) } else { write!(f, "{:.3e}", self.0) }
    }
}

/// A ragdoll that blew up: [`RagdollController::update`] dropped it and showed the animation
/// pose instead that very frame. Read (and clear) it with [`RagdollController::take_fault`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "ragdoll body {body} (bone \"{bone}\", node {node}) {kind} after {steps} physics steps; the ragdoll was \
     dropped and the animation shown"
)]
pub struct RagdollFault {
    /// The body at fault (index into [`RagdollSpec::bodies`]).
    pub body: usize,
    /// Its bone's name.
    pub bone: String,
    /// Its bone's node index.
    pub node: usize,
    /// What went wrong.
    pub kind: FaultKind,
    /// Physics steps the dropped ragdoll had taken.
    pub steps: u64,
}

/// A blend from a frozen pose into the animation.
#[derive(Debug, Clone)]
struct GetUp {
    from: SoaPose,
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
    frozen_local: SoaPose,
    physics_pose: SoaPose,
    output: SoaPose,
    locals: LocalMatrices,
    animated_world: Vec<Affine3A>,
    physics_world: Vec<Affine3A>,
    before_world: Vec<Affine3A>,
    fault: Option<RagdollFault>,
}

impl RagdollController {
    /// A controller for `model` in the [`Phase::Animated`] phase.
    ///
    /// # Errors
    /// When no ragdoll can be built for the model ([`RagdollSpec::from_model`]).
    pub fn new(model: &Model, settings: RagdollSettings, ramp: RagdollRamp) -> Result<Self, RagdollError> {
        let spec = RagdollSpec::from_model(model)?;
        let rest = model.rest_pose();
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
            locals: LocalMatrices::new(n),
            animated_world: vec![Affine3A::IDENTITY; n],
            physics_world: vec![Affine3A::IDENTITY; n],
            before_world: vec![Affine3A::IDENTITY; n],
            fault: None,
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

    /// The live physics world, mutable (to push bodies or, in tests, to corrupt their state).
    pub fn ragdoll_mut(&mut self) -> Option<&mut Ragdoll> {
        self.ragdoll.as_mut()
    }

    /// The last ragdoll explosion [`update`](Self::update) recovered from, if not taken yet;
    /// taking it clears it (a newer fault replaces one that was not taken).
    pub fn take_fault(&mut self) -> Option<RagdollFault> {
        self.fault.take()
    }

    /// The pose of the last [`update`](Self::update) (or trigger): what the user sees.
    pub fn output(&self) -> &SoaPose {
        &self.output
    }

    /// Hand off to a new ragdoll now, from any phase (a running ragdoll or get-up is dropped).
    /// `pose_now` is the pose on screen (normally the animation's), `pose_before` the same
    /// motion `dt_before_secs` earlier (for the bodies' initial velocities). `push` optionally
    /// applies an impulse to one body. The output stays `pose_now` until the next update.
    pub fn trigger(
        &mut self,
        model: &Model,
        pose_now: &SoaPose,
        pose_before: &SoaPose,
        dt_before_secs: f32,
        push: Option<(usize, Vec3)>,
    ) {
        model.hierarchy.local_to_model(pose_now, &mut self.locals, &mut self.animated_world);
        model.hierarchy.local_to_model(pose_before, &mut self.locals, &mut self.before_world);
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
    ///
    /// While ragdolling, the bodies are checked before and after stepping: when one is
    /// non-finite, faster than [`MAX_SPEED_MPS`] or farther than [`MAX_DISTANCE_M`] from where
    /// it started, the ragdoll is dropped, the output is `animated` (phase
    /// [`Phase::Animated`]) and a [`RagdollFault`] is kept for [`take_fault`](Self::take_fault).
    pub fn update(&mut self, model: &Model, dt_secs: f32, animated: &SoaPose) -> &SoaPose {
        let dt_secs = if dt_secs.is_finite() { dt_secs.max(0.0) } else { 0.0 };
        if let Some(ragdoll) = &mut self.ragdoll {
            // A push or an outside change may have broken it before this step.
            let mut fault = explosion(&self.spec, ragdoll);
            if fault.is_none() {
                ragdoll.advance(dt_secs);
                fault = explosion(&self.spec, ragdoll);
            }
            if let Some(fault) = fault {
                self.ragdoll = None;
                self.ramp.reset();
                self.fault = Some(fault);
                self.output.copy_from(animated);
                return &self.output;
            }
            self.ramp.advance(dt_secs);
            model.hierarchy.local_to_model(animated, &mut self.locals, &mut self.animated_world);
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

/// The fault of a ragdoll that blew up, if it did.
fn explosion(spec: &RagdollSpec, ragdoll: &Ragdoll) -> Option<RagdollFault> {
    let (body, kind) = ragdoll.find_fault(spec, MAX_DISTANCE_M, MAX_SPEED_MPS)?;
    let (bone, node) = spec.bodies.get(body).map_or_else(|| (String::new(), 0), |b| (b.name.clone(), b.node));
    Some(RagdollFault { body, bone, node, kind, steps: ragdoll.steps() })
}
