//! The Ragdoll panel: hand the character from its animation to a Rapier ragdoll with a tunable
//! ramp, push a bone, show the colliders, get back up into a clip, and plot `ragdoll_weight`.
//!
//! [`RagdollView`] is the plain state (tuning, the live controller, the weight history) kept in
//! [`ViewerState::ragdoll`]; [`RagdollPanel`] draws it.

use std::collections::VecDeque;

use anim::ragdoll::RagdollRamp;
use anim::{Easing, Model, Pose};
use glam::Vec3;

use crate::physics::{Phase, RagdollController, RagdollSettings};

use super::{ViewerState, enum_combo};

/// Seconds of `ragdoll_weight` history kept for the plot.
pub const RAGDOLL_HISTORY_SECS: f64 = 4.0;

/// Everything the user tunes about the ragdoll (saved in the tuning profile).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RagdollTuning {
    /// How fast `ragdoll_weight` ramps from 0 to 1, per second (5 = 0.2 s).
    pub ramp_rate_per_sec: f32,
    /// Easing of the ramp.
    pub easing: Easing,
    /// Clip the character gets up into.
    pub get_up_clip: usize,
    /// Length of the blend from the ragdoll back into the clip, seconds.
    pub get_up_secs: f32,
    /// Impulse on the selected bone at the trigger, newton-seconds (0: no push).
    pub push_newton_secs: f32,
}

impl Default for RagdollTuning {
    fn default() -> Self {
        Self {
            ramp_rate_per_sec: RagdollRamp::DEFAULT_RATE_PER_SEC,
            easing: Easing::Linear,
            get_up_clip: 0,
            get_up_secs: 0.6,
            push_newton_secs: 0.0,
        }
    }
}

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

/// The ragdoll side of the viewer: tuning, the live controller and the weight history.
#[derive(Debug, Default)]
pub struct RagdollView {
    /// The tunables.
    pub tuning: RagdollTuning,
    /// Draw the colliders over the model.
    pub show_colliders: bool,
    /// What happened last (built, why not, a recovered physics fault).
    pub status: Option<String>,
    /// `[viewer seconds, ragdoll_weight]` over the last [`RAGDOLL_HISTORY_SECS`].
    pub history: VecDeque<[f64; 2]>,
    /// Physics faults (explosions) recovered from since the model was opened.
    pub faults: usize,
    controller: Option<RagdollController>,
    /// Set when no ragdoll can be built for the current model (not retried until it changes).
    unavailable: bool,
}

impl RagdollView {
    /// Forget the controller (the model changed); the tuning stays.
    pub fn reset_for_model(&mut self, model: &Model) {
        self.controller = None;
        self.unavailable = false;
        self.status = None;
        self.history.clear();
        self.faults = 0;
        if self.tuning.get_up_clip >= model.clips.len() {
            self.tuning.get_up_clip = 0;
        }
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

    /// Build the controller for `model` if needed. Returns false (with a status) when the model
    /// has no skin a ragdoll fits.
    fn ensure_controller(&mut self, model: &Model) -> bool {
        if self.controller.is_some() {
            return true;
        }
        if self.unavailable {
            return false;
        }
        let ramp = RagdollRamp::new(self.tuning.ramp_rate_per_sec, self.tuning.easing);
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
    ) -> bool {
        if !self.ensure_controller(model) {
            return false;
        }
        let Some(controller) = self.controller.as_mut() else { return false };
        controller.ramp = RagdollRamp::new(self.tuning.ramp_rate_per_sec, self.tuning.easing);
        let push = push.map(|(node, impulse)| {
            let spec = controller.spec();
            (spec.body_for_node(node).unwrap_or(spec.root), impulse)
        });
        controller.trigger(model, pose_now, pose_before, dt_before_secs, push);
        true
    }

    /// Blend back into the animation over the tuned duration. False when not ragdolling.
    pub fn get_up(&mut self, model: &Model) -> bool {
        let (duration, easing) = (self.tuning.get_up_secs, self.tuning.easing);
        self.controller.as_mut().is_some_and(|c| c.get_up(model, None, duration, easing))
    }

    /// Advance the controller by `dt_secs` with this frame's animation pose and write what the
    /// user sees into `out` (the animation itself when no ragdoll is active).
    pub fn apply(&mut self, model: &Model, dt_secs: f32, animated: &Pose, out: &mut Pose) {
        match self.controller.as_mut() {
            Some(controller) if controller.phase() != Phase::Animated => {
                controller.ramp.rate_per_sec = self.tuning.ramp_rate_per_sec;
                controller.ramp.easing = self.tuning.easing;
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
        mut visit: impl FnMut(ColliderShape),
    ) {
        if !self.ensure_controller(model) {
            return;
        }
        let Some(controller) = &self.controller else { return };
        for (b, body) in controller.spec().body_ids().zip(&controller.spec().bodies) {
            let (a, b, radius) = match controller.ragdoll() {
                Some(ragdoll) => ragdoll.capsule(b),
                None => {
                    let Some(m) = model_from_node.get(body.node) else { continue };
                    body.capsule_in(m)
                }
            };
            visit(ColliderShape { a, b, radius });
        }
    }
}

/// The Ragdoll panel.
#[derive(Debug, Default)]
pub struct RagdollPanel;

impl RagdollPanel {
    /// Trigger / get-up buttons, ramp rate, easing, get-up clip and duration, push strength,
    /// collider toggle, and the weight plot.
    pub fn ragdoll_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        let names: Vec<String> = state.model.clips.iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
        ui.horizontal(|ui| {
            if ui.button("Go limp").on_hover_text("hand off to the ragdoll now (R)").clicked() {
                state.trigger_ragdoll();
            }
            let can_get_up = state.ragdoll.phase() == Phase::Ragdoll;
            if ui
                .add_enabled(can_get_up, egui::Button::new("Get up"))
                .on_hover_text("blend back into the clip (G)")
                .clicked()
            {
                state.ragdoll_get_up();
            }
            ui.label(match state.ragdoll.phase() {
                Phase::Animated => "animated".to_owned(),
                Phase::Ragdoll => format!("ragdoll, weight {:.2}", state.ragdoll.weight()),
                Phase::GettingUp => format!("getting up, weight {:.2}", state.ragdoll.weight()),
            });
        });
        let tuning = &mut state.ragdoll.tuning;
        ui.add(
            egui::Slider::new(&mut tuning.ramp_rate_per_sec, 0.5..=1000.0)
                .logarithmic(true)
                .text("ramp rate")
                .suffix(" /s"),
        );
        ui.weak(format!("full ragdoll after {:.3} s", 1.0 / tuning.ramp_rate_per_sec.max(1e-3)));
        enum_combo(ui, "ramp easing", &mut tuning.easing, &Easing::ALL, |e| e.name().to_owned());
        if !names.is_empty() {
            egui::ComboBox::from_label("get-up clip")
                .selected_text(names.get(tuning.get_up_clip).cloned().unwrap_or_default())
                .show_ui(ui, |ui| {
                    for (i, name) in names.iter().enumerate() {
                        ui.selectable_value(&mut tuning.get_up_clip, i, name);
                    }
                });
        }
        ui.add(egui::Slider::new(&mut tuning.get_up_secs, 0.0..=3.0).text("get-up blend").suffix(" s"));
        ui.add(egui::Slider::new(&mut tuning.push_newton_secs, 0.0..=200.0).text("push").suffix(" N s"));
        let push_target = state.selected_joint.map_or_else(|| "the root".to_owned(), |n| state.node_name(n));
        ui.weak(format!("pushes {push_target} away from the camera"));
        ui.checkbox(&mut state.ragdoll.show_colliders, "show colliders");
        if state.placement != glam::Vec3::ZERO {
            ui.horizontal(|ui| {
                let p = state.placement;
                ui.weak(format!("got up {:.2} m from the clip's origin ({:.2}, {:.2})", p.length(), p.x, p.z));
                if ui.small_button("Reset position").clicked() {
                    state.reset_placement();
                }
            });
        }
        if let Some(status) = &state.ragdoll.status {
            ui.weak(status);
        }
        super::weight_history_ui(
            ui,
            "ragdoll weight",
            ["", "ragdoll_weight"],
            &state.ragdoll.history,
            state.clock_secs,
            RAGDOLL_HISTORY_SECS,
        );
    }
}
