//! [`RagdollView`]: the viewer's side of the ragdoll — the live controller, where the character
//! stands after getting up (placement), collider display, status and the `ragdoll_weight`
//! history — and its panel: go limp, ramp, get-up clip and blend, push, colliders, weight plot.
//! The ragdoll's tunables live in [`super::tuning::RagdollTuning`] (saved in the profile).

use std::collections::VecDeque;

use anim::ragdoll::RagdollRamp;
use anim::{Easing, Model, Pose};
use glam::Vec3;

use crate::physics::{Phase, RagdollController, RagdollSettings};

use super::enum_combo;
use super::tuning::RagdollTuning;

/// Seconds of `ragdoll_weight` history kept for the plot.
pub const RAGDOLL_HISTORY_SECS: f64 = 4.0;

/// One capsule collider in model space, for drawing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColliderShape {
    /// One end of the capsule's segment.
    pub a: Vec3,
    /// The other end.
    pub b: Vec3,
    /// Capsule radius.
    pub radius: f32,
}

/// What the Ragdoll panel asks the viewer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RagdollAction {
    /// Hand off to the ragdoll now (R).
    GoLimp,
    /// Blend back into the get-up clip (G).
    GetUp,
    /// Put the character back where its clips place it.
    ResetPlacement,
}

/// The ragdoll side of the viewer: the live controller, placement, colliders and history.
#[derive(Debug, Default)]
pub struct RagdollView {
    /// Draw the colliders over the model.
    pub show_colliders: bool,
    /// What happened last (built, why not, a recovered physics fault).
    pub status: Option<String>,
    /// `[viewer seconds, ragdoll_weight]` over the last [`RAGDOLL_HISTORY_SECS`].
    pub history: VecDeque<[f64; 2]>,
    /// Physics faults (explosions) recovered from since the model was opened.
    pub faults: usize,
    /// Where the character stands: a horizontal offset of every root node (model units), moved
    /// by getting up from a ragdoll so that the clip starts where the body lies.
    pub placement: Vec3,
    controller: Option<RagdollController>,
    /// Set when no ragdoll can be built for the current model (not retried until it changes).
    unavailable: bool,
}

impl RagdollView {
    /// A view for a newly opened model: no controller yet, at the origin; colliders stay shown
    /// or hidden as they were.
    pub fn for_new_model(&self) -> Self {
        Self { show_colliders: self.show_colliders, ..Self::default() }
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

    /// True while the output is not plain animation.
    pub fn is_active(&self) -> bool {
        self.phase() != Phase::Animated
    }

    /// The node of the ragdoll's root body, once a controller exists.
    pub fn root_node(&self) -> Option<usize> {
        self.controller.as_ref().map(|c| c.spec().bodies[c.spec().root].node)
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
    /// bodies' velocities), pushing the body of `push_node` (or its nearest ancestor with one).
    pub fn trigger(
        &mut self,
        model: &Model,
        pose_now: &Pose,
        pose_before: &Pose,
        dt_before_secs: f32,
        push: Option<(usize, Vec3)>,
        tuning: &RagdollTuning,
    ) -> bool {
        if !self.ensure_controller(model, tuning) {
            return false;
        }
        let Some(controller) = self.controller.as_mut() else { return false };
        controller.ramp = RagdollRamp::new(tuning.ramp_rate_per_sec, tuning.easing);
        let push = push.map(|(node, impulse)| {
            let spec = controller.spec();
            let mut at = Some(node);
            while let Some(n) = at {
                if let Some(body) = spec.node_body.get(n).copied().flatten() {
                    return (body, impulse);
                }
                at = model.hierarchy.parent(n);
            }
            (spec.root, impulse)
        });
        controller.trigger(model, pose_now, pose_before, dt_before_secs, push);
        true
    }

    /// Blend from what is on screen back into the animation over `duration_secs`. False when
    /// not ragdolling.
    pub fn blend_out(&mut self, duration_secs: f32, easing: Easing) -> bool {
        self.controller.as_mut().is_some_and(|c| c.get_up(duration_secs, easing))
    }

    /// Advance the controller by `dt_secs` with this frame's animation pose and write what the
    /// user sees into `out` (the animation itself when no ragdoll is active).
    pub fn apply(&mut self, model: &Model, dt_secs: f32, animated: &Pose, out: &mut Pose, tuning: &RagdollTuning) {
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

    /// Record the weight at viewer time `clock_secs` for the plot.
    pub fn record(&mut self, clock_secs: f64) {
        self.history.push_back([clock_secs, f64::from(self.weight())]);
        while self.history.front().is_some_and(|[t, _]| *t < clock_secs - RAGDOLL_HISTORY_SECS) {
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
        for (b, body) in controller.spec().bodies.iter().enumerate() {
            let (rotation, origin) = match controller.ragdoll() {
                Some(ragdoll) => ragdoll.body_pose(b),
                None => {
                    let Some(m) = model_from_node.get(body.node) else { continue };
                    let (_, rotation, translation) = m.to_scale_rotation_translation();
                    (rotation, translation)
                }
            };
            visit(ColliderShape {
                a: origin + rotation * body.capsule_a,
                b: origin + rotation * body.capsule_b,
                radius: body.radius,
            });
        }
    }

    /// The panel: Go limp / Get up, ramp rate and easing, get-up clip and blend, push strength,
    /// colliders, placement and the weight plot. `clip_names`: the model's clips; `push_target`:
    /// the bone a push hits; `clock_secs`: the viewer clock.
    pub fn ragdoll_ui(
        &mut self,
        ui: &mut egui::Ui,
        tuning: &mut RagdollTuning,
        clip_names: &[String],
        push_target: &str,
        clock_secs: f64,
    ) -> Option<RagdollAction> {
        let mut action = None;
        ui.horizontal(|ui| {
            if ui.button("Go limp").on_hover_text("Hand the character to the ragdoll now (R)").clicked() {
                action = Some(RagdollAction::GoLimp);
            }
            let can_get_up = self.phase() == Phase::Ragdoll;
            if ui
                .add_enabled(can_get_up, egui::Button::new("Get up"))
                .on_hover_text("Blend from the body back into the get-up clip, started where the body lies (G)")
                .on_disabled_hover_text("Only while ragdolling (R)")
                .clicked()
            {
                action = Some(RagdollAction::GetUp);
            }
            ui.label(match self.phase() {
                Phase::Animated => "animated".to_owned(),
                Phase::Ragdoll => format!("ragdoll, weight {:.2}", self.weight()),
                Phase::GettingUp => format!("getting up, weight {:.2}", self.weight()),
            });
        });
        ui.add(
            egui::Slider::new(&mut tuning.ramp_rate_per_sec, 0.5..=1000.0)
                .logarithmic(true)
                .text("ramp rate")
                .suffix(" /s"),
        )
        .on_hover_text("How fast ragdoll_weight rises from 0 to 1 after the handoff (1000/s: an instant switch)");
        ui.weak(format!("full ragdoll after {:.3} s", 1.0 / tuning.ramp_rate_per_sec.max(1e-3)));
        enum_combo(
            ui,
            "ramp easing",
            &mut tuning.easing,
            &Easing::ALL,
            |e| e.name().to_owned(),
            "Shape of the ramp (and of the get-up blend)",
        );
        if !clip_names.is_empty() {
            let hover = "Clip played when the character gets up (G)";
            super::clip_combo(ui, "get-up clip", &mut tuning.get_up_clip, clip_names, hover);
        }
        ui.add(egui::Slider::new(&mut tuning.get_up_secs, 0.0..=3.0).text("get-up blend").suffix(" s"))
            .on_hover_text("Length of the blend from the body back into the clip");
        ui.add(egui::Slider::new(&mut tuning.push_newton_secs, 0.0..=200.0).text("push").suffix(" N s"))
            .on_hover_text("Impulse on the selected bone at the handoff, away from the camera (0: none)");
        ui.weak(format!("pushes {push_target} away from the camera"));
        ui.checkbox(&mut self.show_colliders, "show colliders")
            .on_hover_text("Capsules of the ragdoll's bodies: cyan while animated, orange while simulated");
        // Always shown (disabled at the origin), so nothing moves under the pointer.
        ui.horizontal(|ui| {
            let p = self.placement;
            let at_origin = p == Vec3::ZERO;
            let text = if at_origin {
                "standing where the clip puts it".to_owned()
            } else {
                format!("got up {:.2} m from the clip's origin ({:.2}, {:.2})", p.length(), p.x, p.z)
            };
            ui.weak(text);
            if ui
                .add_enabled(!at_origin, egui::Button::new("Reset position").small())
                .on_hover_text("Move the character back to where its clips place it")
                .clicked()
            {
                action = Some(RagdollAction::ResetPlacement);
            }
        });
        super::status_line(ui, self.status.as_deref().unwrap_or("ragdoll built on the first handoff"));
        let points = self.history.iter().map(|[t, w]| [t - clock_secs, *w]).collect();
        let series = [("ragdoll_weight".to_owned(), super::SERIES_COLORS[0], points)];
        super::weight_history_ui(ui, "ragdoll weight", &series, RAGDOLL_HISTORY_SECS);
        action
    }
}
