//! [`RagdollView`]: the stage's ragdoll — the live controller, where the character plays its
//! clips after getting up ([`Placement`]), collider display, status and the `ragdoll_weight` /
//! motor-strength history. The panel that drives it is `ui::ragdoll`; the tunables live in
//! [`RagdollTuning`] (part of the model's tuning).

use std::collections::VecDeque;

use anim::ragdoll::{Placement, RagdollRamp};
use anim::{Easing, Model, SoaPose};
use glam::Vec3;

use crate::physics::controller::GetUpReport;
use crate::physics::{Handoff, Phase, RagdollController, RagdollSettings};
use crate::render::overlay::SkeletonLink;

use crate::stage::tuning::RagdollTuning;

/// Seconds of `ragdoll_weight` history kept for the plot.
pub const RAGDOLL_HISTORY_SECS: f64 = 4.0;

/// One capsule collider in model space, for drawing.
/// An impulse on one bone at the handoff.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Push {
    /// The node whose body is pushed (its own body or the one it rides on); `None`, or a node
    /// outside the skeleton: the root body.
    pub node: Option<anim::NodeId>,
    /// The impulse, newton-seconds (world frame).
    pub impulse_newton_secs: Vec3,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColliderShape {
    /// One end of the capsule's segment.
    pub a: Vec3,
    /// The other end.
    pub b: Vec3,
    /// Capsule radius.
    pub radius: f32,
}

/// The ragdoll side of the viewer: the live controller, placement, colliders and history.
#[derive(Debug, Default)]
pub struct RagdollView {
    /// Draw the colliders over the model.
    pub show_colliders: bool,
    /// What happened last (built, why not, a recovered physics fault, how it got up).
    pub status: Option<String>,
    /// `[viewer seconds, ragdoll_weight, motor strength]` over the last
    /// [`RAGDOLL_HISTORY_SECS`].
    pub history: VecDeque<[f64; 3]>,
    /// Physics faults (explosions) recovered from since the model was opened.
    pub faults: usize,
    /// Where the character plays its clips: a turn and an offset of every root node, set by
    /// getting up so that the clip starts where, and turned how, the body lies.
    pub placement: Placement,
    controller: Option<RagdollController>,
    /// Set when no ragdoll can be built for the current model (not retried until it changes).
    unavailable: bool,
    /// Where the ground is drawn for the current model (found at the first handoff).
    ground_y: Option<f32>,
    /// The skeleton overlay while ragdolling: the body tree, nodes no body simulates hidden.
    skeleton_links: Vec<SkeletonLink>,
}

impl RagdollView {
    /// A view for a newly opened model: no controller yet, at the origin; colliders stay shown
    /// or hidden as they were.
    pub fn for_new_model(&self) -> Self {
        Self { show_colliders: self.show_colliders, ..Self::default() }
    }

    /// How the skeleton overlay links the joints now: the ragdoll's body tree while the bodies
    /// are simulated (no lines to bones no body simulates: IK targets, the armature root), empty
    /// (the node tree) otherwise.
    pub fn skeleton_links(&self) -> &[SkeletonLink] {
        if self.phase() == Phase::Ragdoll { &self.skeleton_links } else { &[] }
    }

    /// The live controller, when one was built.
    pub fn controller(&self) -> Option<&RagdollController> {
        self.controller.as_ref()
    }

    /// Current phase ([`Phase::Animated`] before the first trigger).
    pub fn phase(&self) -> Phase {
        self.controller.as_ref().map_or(Phase::Animated, RagdollController::phase)
    }

    /// How much of the shown pose is ragdoll.
    pub fn weight(&self) -> f32 {
        self.controller.as_ref().map_or(0.0, RagdollController::ragdoll_weight)
    }

    /// Joint-motor strength now (0 when limp or not ragdolling).
    pub fn motor_strength(&self) -> f32 {
        self.controller.as_ref().map_or(0.0, RagdollController::motor_strength)
    }

    /// True while the output is not plain animation.
    pub fn is_active(&self) -> bool {
        self.phase() != Phase::Animated
    }

    /// The node of the ragdoll's root body, once a controller exists.
    pub fn root_node(&self) -> Option<anim::NodeId> {
        self.controller.as_ref().and_then(|c| c.spec().body(c.spec().root)).map(|b| b.node)
    }

    /// Build the controller for `model` if needed. Returns false (with a status) when the model
    /// has no skin a ragdoll fits.
    fn ensure_controller(&mut self, model: &Model, tuning: &RagdollTuning) -> bool {
        if self.controller.is_some() {
            return true;
        }
        if self.unavailable {
            return false;
        }
        let ramp = RagdollRamp::new(tuning.ramp_rate_per_sec, tuning.easing);
        match RagdollController::new(model, RagdollSettings::default(), ramp) {
            Ok(controller) => {
                self.status = Some(format!("ragdoll: {} bodies", controller.spec().bodies.len()));
                self.skeleton_links = ragdoll_skeleton_links(model, controller.spec());
                self.controller = Some(controller);
                true
            }
            Err(error) => {
                self.unavailable = true;
                self.status = Some(format!("no ragdoll for this model: {error}"));
                false
            }
        }
    }

    /// Hand off now from `pose_now` (with `pose_before`, `dt_before_secs` earlier, for the
    /// bodies' velocities) as tuned — whole body or the region, limp or powered, pinned or free
    /// — pushing the body of `push_node` (by the one rule the command line uses too: its own
    /// body or the one it rides on; the root for nodes outside the skeleton).
    #[allow(clippy::too_many_arguments, reason = "the handoff's inputs, each one the stage owns apart")]
    pub fn trigger(
        &mut self,
        model: &Model,
        pose_now: &SoaPose,
        pose_before: &SoaPose,
        dt_before_secs: f32,
        push: Option<Push>,
        tuning: &RagdollTuning,
        clip: Option<anim::ClipId>,
    ) -> bool {
        if !self.ensure_controller(model, tuning) {
            return false;
        }
        // The body lands on the ground the 3D view draws, lowered to where `clip`'s own feet go
        // (the same floor as `animtune ragdoll`).
        let drawn = *self.ground_y.get_or_insert_with(|| crate::render::framing::ground_height(model));
        let ground_y = drawn.min(crate::render::framing::ragdoll_ground_height(model, clip));
        let Some(controller) = self.controller.as_mut() else { return false };
        controller.ramp = RagdollRamp::new(tuning.ramp_rate_per_sec, tuning.easing);
        controller.settings.gains = tuning.gains;
        let spec = controller.spec();
        let push = push
            .map(|p| (p.node.and_then(|node| spec.body_for_node(node)).unwrap_or(spec.root), p.impulse_newton_secs));
        let region = tuning.region.and_then(|node| spec.body_for_node(node));
        let handoff = Handoff {
            push,
            region,
            pin_root: tuning.pin_pelvis,
            motor_strength: tuning.motor_strength.clamp(0.0, 1.0),
            limp: (tuning.limp_rate_per_sec > 0.0).then(|| RagdollRamp::new(tuning.limp_rate_per_sec, Easing::Linear)),
            ground_y: Some(ground_y),
        };
        controller.trigger_with(model, pose_now, pose_before, dt_before_secs, &handoff);
        if tuning.region.is_some() && region.is_none() {
            self.status = Some("the picked joint is not part of the ragdoll: the whole body goes limp".to_owned());
        }
        true
    }

    /// Get up: read how the body lies (face up or face down), pick the tuned clip for it, place
    /// that clip where the body lies and turned the way the character will stand, and blend over
    /// the tuned time through the key poses into it. `clip_start` gives a clip's first pose
    /// (the rest pose for `None`), unplaced. Returns the clip to play (from its start) and the
    /// placement to play it at (replacing the current one); `None` when not ragdolling. A model
    /// without clips gets up into its rest pose, where it stands.
    pub fn get_up(
        &mut self,
        model: &Model,
        tuning: &RagdollTuning,
        clip_start: impl FnOnce(Option<anim::ClipId>) -> SoaPose,
    ) -> Option<(Option<anim::ClipId>, Placement)> {
        let controller = self.controller.as_mut()?;
        let plan = controller.get_up_plan(model)?;
        let face_down = plan.facing == crate::physics::Facing::Down;
        let clip = match tuning.get_up_clip_face_down {
            Some(down) if face_down => Some(down),
            _ => Some(tuning.get_up_clip),
        }
        .filter(|&c| model.clip(c).is_some());
        let mut start = clip_start(clip);
        let placement = plan.placement(controller.spec(), model, &start);
        placement.apply(&model.hierarchy, &mut start);
        controller.get_up(model, Some(&start), tuning.get_up_secs, tuning.easing);
        let metres = controller.spec().metres_per_unit;
        self.status = controller.get_up_report().map(|r: &GetUpReport| {
            format!(
                "got up {} into {}: alignment {:.3} m, heading {:.1}°",
                r.facing.name(),
                clip.map_or_else(
                    || "the rest pose".to_owned(),
                    |c| model.clip(c).map_or_else(String::new, |clip| clip.display_name(c.index()))
                ),
                r.alignment_error * metres,
                r.heading_error_rad.to_degrees()
            )
        });
        Some((clip, placement))
    }

    /// Blend from what is on screen straight into the animation over `duration_secs` (a fade
    /// triggered while ragdolling). False when not ragdolling.
    pub fn blend_out(&mut self, model: &Model, duration_secs: f32, easing: Easing) -> bool {
        self.controller.as_mut().is_some_and(|c| c.get_up(model, None, duration_secs, easing))
    }

    /// Advance the controller by `dt_secs` with this frame's animation pose and write what the
    /// user sees into `out` (the animation itself when no ragdoll is active).
    pub fn apply(
        &mut self,
        model: &Model,
        dt_secs: f32,
        animated: &SoaPose,
        out: &mut SoaPose,
        tuning: &RagdollTuning,
    ) {
        match self.controller.as_mut() {
            Some(controller) if controller.phase() != Phase::Animated => {
                controller.ramp.rate_per_sec = tuning.ramp_rate_per_sec;
                controller.ramp.easing = tuning.easing;
                out.copy_from(controller.update(model, dt_secs, animated));
                // An exploded ragdoll is already dropped for the animation: say what happened.
                if let Some(fault) = controller.take_fault() {
                    self.faults += 1;
                    self.status = Some(format!("physics fault, back to the animation: {fault}"));
                }
            }
            _ => out.copy_from(animated),
        }
    }

    /// The same ragdoll blend on another animation pose of this frame (the compare view's), in
    /// place, so the body falls in both views. Call after [`Self::apply`].
    pub fn apply_to_other(&mut self, other: &mut SoaPose) {
        if let Some(controller) = self.controller.as_mut().filter(|c| c.phase() != Phase::Animated) {
            controller.blend_other(other);
        }
    }

    /// Record the weight and the motor strength at viewer time `clock_secs` for the plot.
    pub fn record(&mut self, clock_secs: f64) {
        self.history.push_back([clock_secs, f64::from(self.weight()), f64::from(self.motor_strength())]);
        while self.history.front().is_some_and(|[t, _, _]| *t < clock_secs - RAGDOLL_HISTORY_SECS) {
            self.history.pop_front();
        }
    }

    /// Call `visit` with each collider in model space: at the simulated bodies while
    /// ragdolling, else at the bones of `model_from_node` (the pose on screen). Nothing when no
    /// ragdoll fits the model. Allocates nothing.
    pub fn for_each_collider(
        &mut self,
        model: &Model,
        model_from_node: &[glam::Affine3A],
        tuning: &RagdollTuning,
        mut visit: impl FnMut(ColliderShape),
    ) {
        if !self.ensure_controller(model, tuning) {
            return;
        }
        let Some(controller) = &self.controller else { return };
        for (b, body) in controller.spec().body_ids().zip(&controller.spec().bodies) {
            let (a, b, radius) = match controller.ragdoll() {
                Some(ragdoll) => ragdoll.capsule(b),
                None => {
                    let Some(m) = model_from_node.get(body.node.index()) else { continue };
                    body.capsule_in(m)
                }
            };
            visit(ColliderShape { a, b, radius });
        }
    }
}

/// The ragdoll's skeleton overlay: nodes no body simulates hidden; a body whose node-tree parent
/// is hidden (a foot under an IK control) drawn from its parent body's node.
pub fn ragdoll_skeleton_links(model: &Model, spec: &crate::physics::RagdollSpec) -> Vec<SkeletonLink> {
    let simulated = spec.simulated_nodes(model);
    let mut links: Vec<SkeletonLink> =
        simulated.iter().map(|&s| if s { SkeletonLink::Tree } else { SkeletonLink::Hidden }).collect();
    for body in &spec.bodies {
        let Some(parent) = body.parent.and_then(|p| spec.body(p)) else { continue };
        let tree_parent = model.hierarchy.parent(body.node).map(anim::NodeId::index);
        if tree_parent.is_none_or(|p| !simulated.get(p).copied().unwrap_or(false))
            && let Some(link) = links.get_mut(body.node.index())
        {
            *link = SkeletonLink::From(parent.node);
        }
    }
    links
}
