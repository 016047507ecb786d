//! [`RagdollController`]: animation → ragdoll handoff with a ramped blend (and, for powered
//! ragdolls, a ramped motor strength: "active → limp"), whole-body or partial, and back (a
//! get-up), with explosion recovery ([`RagdollFault`]).

use anim::ragdoll::{RagdollRamp, model_to_local};
use anim::{Easing, LocalMatrices, Model, ScaleSpace, SoaPose, blend_poses, blend_poses_per_node};
use glam::{Affine3A, Vec3};

use super::BodyId;
use super::fault::{MAX_DISTANCE_M, MAX_SPEED_MPS, RagdollFault};
use super::getup::{Facing, GetUpPlan, KeyPose, key_pose, lowest_capsule_point};
use super::sim::{Drive, Ragdoll, RagdollSettings, RagdollStart};
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

/// How a handoff is made: whole body or a region, limp or powered, pinned or free.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Handoff {
    /// An impulse (newton-seconds) on one body at the trigger.
    pub push: Option<(BodyId, Vec3)>,
    /// Partial ragdoll: only this body and everything below it simulate (an arm, the upper
    /// body); the rest keeps animating (its bodies move kinematically on the animation, so the
    /// region still collides with them) and only the region blends in. `None`: the whole body.
    pub region: Option<BodyId>,
    /// The root body (pelvis) follows the animation kinematically.
    pub pin_root: bool,
    /// Joint-motor strength at the trigger, `[0, 1]`: 0 is a limp ragdoll, 1 full strength
    /// toward the animated pose ([`RagdollSettings::gains`]).
    pub motor_strength: f32,
    /// "Active → limp": the motor strength falls from `motor_strength` to 0 along this ramp
    /// (its weight is the fraction lost); `None` keeps the strength.
    pub limp: Option<RagdollRamp>,
    /// Ground height (world; `None`: y = 0), lowered under a body that starts below it. Pass
    /// where the ground is drawn (`render::framing::ground_height`) so the body lands on it.
    pub ground_y: Option<f32>,
}

impl Default for Handoff {
    fn default() -> Self {
        Self { push: None, region: None, pin_root: false, motor_strength: 0.0, limp: None, ground_y: None }
    }
}

impl Handoff {
    /// A limp whole-body handoff, optionally with a push.
    pub fn limp(push: Option<(BodyId, Vec3)>) -> Self {
        Self { push, ..Self::default() }
    }
}

/// What a get-up found and did, for reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetUpReport {
    /// How the body lay.
    pub facing: Facing,
    /// Horizontal distance between the lying pelvis and the pelvis of the placed clip's first
    /// frame (world units).
    pub alignment_error: f32,
    /// Angle between the placed clip's facing and the planned heading (radians).
    pub heading_error_rad: f32,
    /// Key poses passed through between lying and the clip.
    pub key_poses: usize,
}

/// A get-up: from the lying pose through key poses into the animation.
#[derive(Debug, Clone)]
struct GetUp {
    /// Lying pose first, then the key poses; the last segment ends in the live animation.
    keys: Vec<SoaPose>,
    elapsed_secs: f32,
    duration_secs: f32,
    easing: Easing,
    /// Keep the lowest capsule on this ground while between key poses; `None`: no ground
    /// contact kept (a plain blend).
    ground_y: Option<f32>,
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
///
/// While the blend weight is below 1 the ragdoll is held toward the animation (joint motors and a
/// pelvis hold that give way as the weight rises, [`RagdollSettings::hold_during_blend`]): the
/// physics being blended in then agrees with the animation where the weight is low, so a slow
/// ramp neither floats (a standing pose averaged with a lying one) nor slides (the average
/// drifting from one to the other); the body gives way over the ramp instead.
#[derive(Debug)]
pub struct RagdollController {
    spec: RagdollSpec,
    /// Physics settings used at the next trigger.
    pub settings: RagdollSettings,
    /// The blend ramp (rate and easing are tunable at any time).
    pub ramp: RagdollRamp,
    ragdoll: Option<Ragdoll>,
    handoff: Handoff,
    limp: Option<RagdollRamp>,
    /// Per node: 1 when it rides on a simulated (region) body, 0 when it follows the animation.
    node_in_region: Vec<f32>,
    node_weights: Vec<f32>,
    get_up: Option<GetUp>,
    get_up_report: Option<GetUpReport>,
    physics_pose: SoaPose,
    output: SoaPose,
    /// [`Self::blend_other`]'s scratch pose.
    other_output: SoaPose,
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
        let n = model.nodes().len();
        Ok(Self {
            spec,
            settings,
            ramp,
            ragdoll: None,
            handoff: Handoff::default(),
            limp: None,
            node_in_region: vec![1.0; n],
            node_weights: vec![0.0; n],
            get_up: None,
            get_up_report: None,
            physics_pose: rest.clone(),
            other_output: rest.clone(),
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

    /// Joint-motor strength of a powered ragdoll now (`[0, 1]`; 0 when limp or not ragdolling):
    /// the handoff's strength, falling along its limp ramp.
    pub fn motor_strength(&self) -> f32 {
        if self.ragdoll.is_none() {
            return 0.0;
        }
        let lost = self.limp.as_ref().map_or(0.0, RagdollRamp::weight);
        self.handoff.motor_strength.clamp(0.0, 1.0) * (1.0 - lost)
    }

    /// The handoff in force (or the last one).
    pub fn handoff(&self) -> &Handoff {
        &self.handoff
    }

    /// The live physics world, while ragdolling.
    pub fn ragdoll(&self) -> Option<&Ragdoll> {
        self.ragdoll.as_ref()
    }

    /// The live physics world, mutable (to push bodies or, in tests, to corrupt their state).
    pub fn ragdoll_mut(&mut self) -> Option<&mut Ragdoll> {
        self.ragdoll.as_mut()
    }

    /// Apply an impulse (newton-seconds) to a body of the live ragdoll.
    pub fn push(&mut self, body: BodyId, impulse: Vec3) -> bool {
        self.ragdoll.as_mut().map(|r| r.apply_impulse(body, impulse)).is_some()
    }

    /// The last ragdoll explosion [`update`](Self::update) recovered from, if not taken yet;
    /// taking it clears it (a newer fault replaces one that was not taken).
    pub fn take_fault(&mut self) -> Option<RagdollFault> {
        self.fault.take()
    }

    /// What the last get-up found (facing, alignment).
    pub fn get_up_report(&self) -> Option<&GetUpReport> {
        self.get_up_report.as_ref()
    }

    /// The pose of the last [`update`](Self::update) (or trigger): what the user sees.
    pub fn output(&self) -> &SoaPose {
        &self.output
    }

    /// Hand off to a new limp whole-body ragdoll now ([`Self::trigger_with`] with
    /// [`Handoff::limp`]).
    pub fn trigger(
        &mut self,
        model: &Model,
        pose_now: &SoaPose,
        pose_before: &SoaPose,
        dt_before_secs: f32,
        push: Option<(BodyId, Vec3)>,
    ) {
        self.trigger_with(model, pose_now, pose_before, dt_before_secs, &Handoff::limp(push));
    }

    /// Hand off to a new ragdoll now, from any phase (a running ragdoll or get-up is dropped).
    /// `pose_now` is the pose on screen (normally the animation's), `pose_before` the same
    /// motion `dt_before_secs` earlier (for the bodies' initial velocities; a negative
    /// `dt_before_secs` gives the pose that far later, the better choice where the clip is
    /// known: the bodies then move on as the clip would). The output stays
    /// `pose_now` until the next update.
    pub fn trigger_with(
        &mut self,
        model: &Model,
        pose_now: &SoaPose,
        pose_before: &SoaPose,
        dt_before_secs: f32,
        handoff: &Handoff,
    ) {
        model.hierarchy.local_to_model(pose_now, &mut self.locals, &mut self.animated_world);
        model.hierarchy.local_to_model(pose_before, &mut self.locals, &mut self.before_world);
        let count = self.spec.bodies.len();
        let region = handoff.region.filter(|r| r.index() < count).map(|r| self.spec.region_bodies(r));
        let mut kinematic: Vec<bool> =
            region.as_ref().map_or_else(|| vec![false; count], |r| r.iter().map(|&i| !i).collect());
        if handoff.pin_root
            && let Some(k) = kinematic.get_mut(self.spec.root.index())
        {
            *k = true;
        }
        for (node, weight) in self.node_in_region.iter_mut().enumerate() {
            let simulated =
                self.spec.body_for_node(anim::NodeId::from_index(node)).is_some_and(|b| !kinematic[b.index()]);
            *weight = if region.is_none() || simulated { 1.0 } else { 0.0 };
        }
        let start = RagdollStart {
            world_now: &self.animated_world,
            world_before: &self.before_world,
            dt_before_secs,
            kinematic: &kinematic,
            ground_y: handoff.ground_y,
        };
        let mut ragdoll = Ragdoll::new(&self.spec, &self.settings, &start);
        if let Some((body, impulse)) = handoff.push {
            ragdoll.apply_impulse(body, impulse);
        }
        self.ragdoll = Some(ragdoll);
        self.handoff = *handoff;
        self.limp = handoff.limp;
        if let Some(limp) = &mut self.limp {
            limp.reset();
        }
        self.get_up = None;
        self.ramp.reset();
        self.output.copy_from(pose_now);
    }

    /// How the ragdoll's body lies now (from the output pose), for choosing and placing a
    /// get-up clip; `None` when not ragdolling.
    pub fn get_up_plan(&mut self, model: &Model) -> Option<GetUpPlan> {
        self.ragdoll.as_ref()?;
        model.hierarchy.local_to_model(&self.output, &mut self.locals, &mut self.physics_world);
        Some(GetUpPlan::from_world(&self.spec, &self.physics_world))
    }

    /// Start getting up: the ragdoll is dropped at once (so a new trigger can follow
    /// immediately) and the output blends over `duration_secs` with `easing` from the lying pose
    /// into the animation the caller passes to [`update`](Self::update).
    ///
    /// With `target_start` (the get-up clip's first pose, already placed where the body lies,
    /// see [`GetUpPlan::placement`]) the blend goes through key poses built from the rig's
    /// anatomy — sitting up (from face up) or onto all fours (from face down), then a crouch;
    /// limbs folded under for quadrupeds — keeping the body on the ground, unless that pose
    /// already lies down (an authored get-up clip), which is then blended into directly.
    /// Without it the output blends straight into the animation.
    ///
    /// Returns false (and does nothing) when no ragdoll is active.
    pub fn get_up(
        &mut self,
        model: &Model,
        target_start: Option<&SoaPose>,
        duration_secs: f32,
        easing: Easing,
    ) -> bool {
        let Some(ragdoll) = self.ragdoll.take() else { return false };
        let duration_secs = if duration_secs.is_finite() { duration_secs.max(0.0) } else { 0.0 };
        let mut keys = vec![self.output.clone()];
        let mut ground_y = None;
        self.get_up_report = None;
        if let Some(target) = target_start {
            model.hierarchy.local_to_model(&self.output, &mut self.locals, &mut self.physics_world);
            let plan = GetUpPlan::from_world(&self.spec, &self.physics_world);
            model.hierarchy.local_to_model(target, &mut self.locals, &mut self.animated_world);
            let (alignment_error, heading_error_rad) = plan.alignment_error(&self.spec, &self.animated_world);
            let ground = ragdoll.ground_y();
            let target_lies = {
                let standing = GetUpPlan::from_world(&self.spec, &self.animated_world);
                let height = lowest_capsule_point(&self.spec, &self.animated_world);
                let root_height =
                    self.spec.body(self.spec.root).map_or(0.0, |b| self.animated_world[b.node.index()].translation.y);
                standing.biped && root_height - height < 0.2 * self.spec.size
            };
            if !target_lies {
                for &key in KeyPose::sequence(&plan) {
                    let mut pose = target.clone();
                    key_pose(&self.spec, model, key, target, &self.animated_world, ground, &mut pose);
                    keys.push(pose);
                }
            }
            ground_y = Some(ground);
            self.get_up_report = Some(GetUpReport {
                facing: plan.facing,
                alignment_error,
                heading_error_rad,
                key_poses: keys.len() - 1,
            });
        }
        self.get_up = Some(GetUp { keys, elapsed_secs: 0.0, duration_secs, easing, ground_y });
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
        if self.ragdoll.is_some() {
            self.update_ragdoll(model, dt_secs, animated);
        } else if let Some(get_up) = &mut self.get_up {
            get_up.elapsed_secs += dt_secs;
            let progress = get_up.progress();
            let done = progress >= 1.0;
            blend_get_up(
                &self.spec,
                model,
                get_up,
                animated,
                &mut self.locals,
                &mut self.physics_world,
                &mut self.output,
            );
            if done {
                self.get_up = None;
            }
        } else {
            self.output.copy_from(animated);
        }
        &self.output
    }

    /// What this frame's ragdoll blend makes of `other`, another animation pose of the same
    /// frame (the compare view's second mode or transition kind), in place: while ragdolling,
    /// `other` blended towards the simulated body with this frame's weights; while getting up,
    /// the body getting up (there is one body); animated, `other` as it is. Call after
    /// [`Self::update`]; allocates nothing.
    pub fn blend_other(&mut self, other: &mut SoaPose) {
        match (&self.ragdoll, &self.get_up) {
            (Some(_), _) if self.handoff.region.is_some() => {
                blend_poses_per_node(other, &self.physics_pose, &self.node_weights, &mut self.other_output);
                other.copy_from(&self.other_output);
            }
            (Some(_), _) => {
                blend_poses(other, &self.physics_pose, self.ramp.weight(), ScaleSpace::Linear, &mut self.other_output);
                other.copy_from(&self.other_output);
            }
            (None, Some(_)) => other.copy_from(&self.output),
            (None, None) => {}
        }
    }

    fn update_ragdoll(&mut self, model: &Model, dt_secs: f32, animated: &SoaPose) {
        let Some(ragdoll) = &mut self.ragdoll else { return };
        model.hierarchy.local_to_model(animated, &mut self.locals, &mut self.animated_world);
        // A push or an outside change may have broken it before this step.
        let mut fault = explosion(&self.spec, ragdoll);
        if fault.is_none() {
            // A push is a hit the body must react to at once: no hold then.
            let held = self.settings.hold_during_blend && self.handoff.push.is_none();
            let (posture, support) =
                if held { blend_hold(&self.settings, &self.spec, self.ramp.weight()) } else { (0.0, 0.0) };
            // The joint motors of the hold engage over its first moments rather than at the
            // handoff: at full strength at once they lock each joint's turn to the clip's and
            // spread the clip's non-rigid motion (bones moved by translation keys, which the
            // joints take out) over whole limbs — Fox's tail and legs started 0.3–0.5 sizes/s
            // off. The pelvis support holds from the start (it keeps the body's own motion).
            // A ramp done within this frame (an instant handoff) keeps the hold for the one
            // frame it has, as it is: delayed, it would never act.
            let rate = self.ramp.rate_per_sec;
            let ramp_secs = if rate.is_finite() && rate > 0.0 { 1.0 / rate } else { 0.0 };
            let since_handoff = ragdoll.steps() as f32 * ragdoll.step_secs();
            let posture = if ramp_secs <= dt_secs {
                posture
            } else {
                posture * (since_handoff / HOLD_ENGAGE_SECS).clamp(0.0, 1.0)
            };
            let lost = self.limp.as_ref().map_or(0.0, RagdollRamp::weight);
            let powered = self.handoff.motor_strength.clamp(0.0, 1.0) * (1.0 - lost);
            let drive = Drive {
                world: &self.animated_world,
                motor_strength: powered.max(posture),
                root_hold: if self.handoff.pin_root { 0.0 } else { support },
            };
            ragdoll.set_drive(&self.spec, &drive);
            ragdoll.advance(&self.spec, dt_secs);
            fault = explosion(&self.spec, ragdoll);
        }
        if let Some(fault) = fault {
            self.ragdoll = None;
            self.ramp.reset();
            self.fault = Some(fault);
            self.output.copy_from(animated);
            return;
        }
        self.ramp.advance(dt_secs);
        if let Some(limp) = &mut self.limp {
            limp.advance(dt_secs);
        }
        ragdoll.write_world(&self.animated_world, &mut self.physics_world);
        self.physics_pose.copy_from(animated);
        model_to_local(&model.hierarchy, &self.physics_world, &mut self.physics_pose);
        let weight = self.ramp.weight();
        if self.handoff.region.is_some() {
            for (w, &inside) in self.node_weights.iter_mut().zip(&self.node_in_region) {
                *w = weight * inside;
            }
            blend_poses_per_node(animated, &self.physics_pose, &self.node_weights, &mut self.output);
        } else {
            blend_poses(animated, &self.physics_pose, weight, ScaleSpace::Linear, &mut self.output);
        }
    }
}

/// Time over which the joint motors of the hold during the blend engage after a handoff (from
/// nothing to the strength [`blend_hold`] gives), seconds.
const HOLD_ENGAGE_SECS: f32 = 0.1;

/// The hold during a blend at weight `w`, as (joint-motor strength, pelvis-hold strength): a
/// pelvis hold whose sag under gravity grows with the weight — at full strength it holds the
/// pelvis within millimetres; it weakens so that the body would sink by about `w` of its pelvis
/// height (`g / (stiffness · sag)`) — and joint motors weakening alike, so that the knees and
/// hips buckle as the support goes instead of the body toppling like a plank; both let go at
/// `w = 1`. A slow ramp then reads as the body giving way over the ramp, not as a standing pose
/// averaged with a lying one.
fn blend_hold(settings: &RagdollSettings, spec: &RagdollSpec, w: f32) -> (f32, f32) {
    if w.is_nan() || w >= 1.0 {
        return (0.0, 0.0);
    }
    let metres = settings.metres_per_unit.unwrap_or(spec.metres_per_unit);
    let pelvis_height_m = 0.5 * spec.size * metres;
    let stiffness = settings.root_hold_stiffness.max(f32::MIN_POSITIVE);
    let sag_limited = settings.gravity / (stiffness * w.max(1e-3) * pelvis_height_m);
    let strength = sag_limited.min(1.0) * (1.0 - w);
    (strength, strength)
}

/// One frame of a get-up: the segment between two key poses (smoothstep within it, so each key
/// pose is held for an instant and reads), the last segment into the live animation; between
/// key poses the body is kept on the ground (its lowest capsule on `ground_y`), a lift that
/// fades out over the last segment.
fn blend_get_up(
    spec: &RagdollSpec,
    model: &Model,
    get_up: &GetUp,
    animated: &SoaPose,
    locals: &mut LocalMatrices,
    world: &mut [Affine3A],
    out: &mut SoaPose,
) {
    let u = get_up.easing.apply(get_up.progress()).clamp(0.0, 1.0);
    let segments = get_up.keys.len();
    let position = u * segments as f32;
    let segment = (position.floor() as usize).min(segments - 1);
    let local = position - segment as f32;
    let s = if segments > 1 { local * local * (3.0 - 2.0 * local) } else { local };
    let from = &get_up.keys[segment];
    let to = get_up.keys.get(segment + 1).unwrap_or(animated);
    blend_poses(from, to, s, ScaleSpace::Linear, out);
    let Some(ground) = get_up.ground_y else { return };
    model.hierarchy.local_to_model(out, locals, world);
    // Between key poses the body stays on the ground; into the clip it is only kept above it.
    let lift = ground - lowest_capsule_point(spec, world);
    let lift = if segment + 1 < segments { lift } else { lift.max(0.0) };
    if lift.is_finite() && lift != 0.0 {
        model.hierarchy.place_roots(out, glam::Quat::IDENTITY, glam::Vec3::Y * lift);
    }
}

/// The fault of a ragdoll that blew up, if it did.
fn explosion(spec: &RagdollSpec, ragdoll: &Ragdoll) -> Option<RagdollFault> {
    let (body, kind) = ragdoll.find_fault(MAX_DISTANCE_M, MAX_SPEED_MPS)?;
    let (bone, node) =
        spec.body(body).map_or_else(|| (String::new(), anim::NodeId::new(0)), |b| (b.name.clone(), b.node));
    Some(RagdollFault { body, bone, node, kind, steps: ragdoll.steps() })
}
