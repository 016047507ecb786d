//! The Ragdoll panel: hand the character from its animation to a Rapier ragdoll — whole body or
//! a region picked in the joint tree, limp or powered (motor strength, "active → limp" ramp,
//! per-region gains, pinned pelvis) — with a tunable ramp, push a bone, show the colliders, get
//! back up into a clip chosen by how the body lies (face up or face down), and plot
//! `ragdoll_weight` and the motor strength.
//!
//! [`RagdollView`] is the plain state (tuning, the live controller, the history) kept in
//! [`ViewerState::ragdoll`]; [`RagdollPanel`] draws it.

use std::collections::VecDeque;

use anim::ragdoll::{Placement, RagdollRamp};
use anim::{ClipCursor, Easing, Model, SampleSettings, SoaPose};
use glam::Vec3;

use crate::physics::controller::GetUpReport;
use crate::physics::{Handoff, MotorGains, Phase, RagdollController, RagdollSettings, Region};

use super::{ViewerState, enum_combo};

/// Seconds of `ragdoll_weight` history kept for the plot.
pub const RAGDOLL_HISTORY_SECS: f64 = 4.0;

/// Everything the user tunes about the ragdoll (the first five are saved in the tuning profile).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RagdollTuning {
    /// How fast `ragdoll_weight` ramps from 0 to 1, per second (5 = 0.2 s).
    pub ramp_rate_per_sec: f32,
    /// Easing of the ramp.
    pub easing: Easing,
    /// Clip the character gets up into from its back (and from its front unless
    /// [`Self::get_up_clip_face_down`] is set).
    pub get_up_clip: usize,
    /// Length of the blend from the ragdoll back into the clip, seconds.
    pub get_up_secs: f32,
    /// Impulse on the selected bone at the trigger, newton-seconds (0: no push).
    pub push_newton_secs: f32,
    /// Clip the character gets up into from its front; `None`: the same as from its back.
    pub get_up_clip_face_down: Option<usize>,
    /// Joint-motor strength at the trigger: 0 limp, 1 full (a powered ragdoll).
    pub motor_strength: f32,
    /// "Active → limp": the strength falls to 0 at this rate per second; 0 keeps it.
    pub limp_rate_per_sec: f32,
    /// The pelvis follows the animation.
    pub pin_pelvis: bool,
    /// Partial ragdoll: only this node's body and everything below it (picked in the joint
    /// tree); `None`: the whole body.
    pub region: Option<usize>,
    /// Joint-motor gains per body region.
    pub gains: MotorGains,
}

impl Default for RagdollTuning {
    fn default() -> Self {
        Self {
            ramp_rate_per_sec: RagdollRamp::DEFAULT_RATE_PER_SEC,
            easing: Easing::Linear,
            get_up_clip: 0,
            get_up_secs: 1.5,
            push_newton_secs: 0.0,
            get_up_clip_face_down: None,
            motor_strength: 0.0,
            limp_rate_per_sec: 0.0,
            pin_pelvis: false,
            region: None,
            gains: MotorGains::default(),
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

/// The ragdoll side of the viewer: tuning, the live controller and the history.
#[derive(Debug, Default)]
pub struct RagdollView {
    /// The tunables.
    pub tuning: RagdollTuning,
    /// Draw the colliders over the model.
    pub show_colliders: bool,
    /// What happened last (built, why not, a recovered physics fault, how it got up).
    pub status: Option<String>,
    /// `[viewer seconds, ragdoll_weight, motor strength]` over the last
    /// [`RAGDOLL_HISTORY_SECS`].
    pub history: VecDeque<[f64; 3]>,
    /// Physics faults (explosions) recovered from since the model was opened.
    pub faults: usize,
    controller: Option<RagdollController>,
    /// Set when no ragdoll can be built for the current model (not retried until it changes).
    unavailable: bool,
    /// Where the ground is drawn for the current model (found at the first handoff).
    ground_y: Option<f32>,
}

impl RagdollView {
    /// Forget the controller (the model changed); the tuning stays.
    pub fn reset_for_model(&mut self, model: &Model) {
        self.controller = None;
        self.unavailable = false;
        self.ground_y = None;
        self.status = None;
        self.history.clear();
        self.faults = 0;
        if self.tuning.get_up_clip >= model.clips.len() {
            self.tuning.get_up_clip = 0;
        }
        if self.tuning.get_up_clip_face_down.is_some_and(|c| c >= model.clips.len()) {
            self.tuning.get_up_clip_face_down = None;
        }
        if self.tuning.region.is_some_and(|n| n >= model.nodes.len()) {
            self.tuning.region = None;
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

    /// Joint-motor strength now (0 when limp or not ragdolling).
    pub fn motor_strength(&self) -> f32 {
        self.controller.as_ref().map_or(0.0, RagdollController::motor_strength)
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
    /// bodies' velocities) as tuned — whole body or the region, limp or powered, pinned or free
    /// — pushing the body of `push_node` (by the one rule the command line uses too: its own
    /// body or the one it rides on; the root for nodes outside the skeleton).
    pub fn trigger(
        &mut self,
        model: &Model,
        pose_now: &SoaPose,
        pose_before: &SoaPose,
        dt_before_secs: f32,
        push: Option<(usize, Vec3)>,
    ) -> bool {
        if !self.ensure_controller(model) {
            return false;
        }
        // The body lands on the ground the 3D view draws.
        let ground_y = *self.ground_y.get_or_insert_with(|| crate::render::framing::ground_height(model));
        let Some(controller) = self.controller.as_mut() else { return false };
        let tuning = self.tuning;
        controller.ramp = RagdollRamp::new(tuning.ramp_rate_per_sec, tuning.easing);
        controller.settings.gains = tuning.gains;
        let spec = controller.spec();
        let push = push.map(|(node, impulse)| (spec.body_for_node(node).unwrap_or(spec.root), impulse));
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
    /// the tuned time through the key poses into it. Returns the clip to play (from its start)
    /// and the placement to play it at (replacing the current one); `None` when not ragdolling.
    /// A model without clips gets up into its rest pose, where it stands.
    pub fn get_up(&mut self, model: &Model, settings: &SampleSettings) -> Option<(Option<usize>, Placement)> {
        let (duration, easing) = (self.tuning.get_up_secs, self.tuning.easing);
        let controller = self.controller.as_mut()?;
        let plan = controller.get_up_plan(model)?;
        let face_down = plan.facing == crate::physics::Facing::Down;
        let clip = match self.tuning.get_up_clip_face_down {
            Some(down) if face_down => Some(down),
            _ => Some(self.tuning.get_up_clip),
        }
        .filter(|&c| c < model.clips.len());
        let mut start = model.rest_pose();
        if let Some(c) = clip {
            let clip = &model.clips[c];
            let mut cursor = ClipCursor::new(clip);
            clip.sample(0.0, &mut cursor, settings, &mut start);
        }
        let placement = plan.placement(controller.spec(), model, &start);
        placement.apply(&model.hierarchy, &mut start);
        controller.get_up(model, Some(&start), duration, easing);
        let metres = controller.spec().metres_per_unit;
        self.status = controller.get_up_report().map(|r: &GetUpReport| {
            format!(
                "got up {} into {}: alignment {:.3} m, heading {:.1}°",
                r.facing.name(),
                clip.map_or_else(|| "the rest pose".to_owned(), |c| model.clips[c].display_name(c)),
                r.alignment_error * metres,
                r.heading_error_rad.to_degrees()
            )
        });
        Some((clip, placement))
    }

    /// Advance the controller by `dt_secs` with this frame's animation pose and write what the
    /// user sees into `out` (the animation itself when no ragdoll is active).
    pub fn apply(&mut self, model: &Model, dt_secs: f32, animated: &SoaPose, out: &mut SoaPose) {
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
    /// Trigger / get-up buttons; the ramp; what goes limp (whole body or the region below the
    /// joint picked in the joint tree); powered controls (motor strength, active → limp rate,
    /// pinned pelvis, per-region gains); get-up clips from the back and from the front and the
    /// blend time; push; colliders; and the plot of `ragdoll_weight` and the motor strength.
    pub fn ragdoll_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        let names: Vec<String> = state.model.clips.iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
        ui.horizontal(|ui| {
            if ui.button("Go limp").on_hover_text("hand off to the ragdoll now (R)").clicked() {
                state.trigger_ragdoll();
            }
            let can_get_up = state.ragdoll.phase() == Phase::Ragdoll;
            if ui
                .add_enabled(can_get_up, egui::Button::new("Get up"))
                .on_hover_text("blend back into the clip, face up or face down as the body lies (G)")
                .clicked()
            {
                state.ragdoll_get_up();
            }
            ui.label(match state.ragdoll.phase() {
                Phase::Animated => "animated".to_owned(),
                Phase::Ragdoll => format!(
                    "ragdoll, weight {:.2}, strength {:.2}",
                    state.ragdoll.weight(),
                    state.ragdoll.motor_strength()
                ),
                Phase::GettingUp => format!("getting up, weight {:.2}", state.ragdoll.weight()),
            });
        });
        let selected = state.selected_joint;
        let selected_name = selected.map(|n| state.node_name(n));
        let region_name = state.ragdoll.tuning.region.map(|n| state.node_name(n));
        let tuning = &mut state.ragdoll.tuning;
        ui.add(
            egui::Slider::new(&mut tuning.ramp_rate_per_sec, 0.5..=1000.0)
                .logarithmic(true)
                .text("ramp rate")
                .suffix(" /s"),
        );
        ui.weak(format!("full ragdoll after {:.3} s", 1.0 / tuning.ramp_rate_per_sec.max(1e-3)));
        enum_combo(ui, "ramp easing", &mut tuning.easing, &Easing::ALL, |e| e.name().to_owned());

        ui.separator();
        ui.horizontal(|ui| {
            ui.label("goes limp:");
            ui.label(region_name.as_ref().map_or_else(|| "whole body".to_owned(), |n| format!("{n} and below")));
        });
        ui.horizontal(|ui| {
            let pick = ui
                .add_enabled(selected.is_some(), egui::Button::new("Region: selected joint"))
                .on_hover_text("ragdoll only the joint picked in the joint tree and everything below it");
            if pick.clicked() {
                tuning.region = selected;
            }
            if ui.add_enabled(tuning.region.is_some(), egui::Button::new("Whole body")).clicked() {
                tuning.region = None;
            }
        });
        if let Some(name) = &selected_name {
            ui.weak(format!("selected joint: {name}"));
        }

        ui.separator();
        ui.add(egui::Slider::new(&mut tuning.motor_strength, 0.0..=1.0).text("motor strength"))
            .on_hover_text("0: limp; 1: the joints drive toward the animated pose at full strength");
        ui.add(egui::Slider::new(&mut tuning.limp_rate_per_sec, 0.0..=10.0).text("active to limp").suffix(" /s"))
            .on_hover_text("the strength falls to 0 at this rate (0 keeps it)");
        ui.checkbox(&mut tuning.pin_pelvis, "pin the pelvis to the animation");
        egui::CollapsingHeader::new("motor gains per region").show(ui, |ui| {
            for region in Region::ALL {
                let i = region.index();
                ui.horizontal(|ui| {
                    ui.label(region.name());
                    ui.add(
                        egui::DragValue::new(&mut tuning.gains.stiffness[i]).range(0.0..=20_000.0).prefix("stiffness "),
                    );
                    ui.add(egui::DragValue::new(&mut tuning.gains.damping[i]).range(0.0..=2_000.0).prefix("damping "));
                });
            }
            if ui.small_button("Defaults").clicked() {
                tuning.gains = MotorGains::default();
            }
        });

        ui.separator();
        if !names.is_empty() {
            egui::ComboBox::from_label("get up from the back into")
                .selected_text(names.get(tuning.get_up_clip).cloned().unwrap_or_default())
                .show_ui(ui, |ui| {
                    for (i, name) in names.iter().enumerate() {
                        ui.selectable_value(&mut tuning.get_up_clip, i, name);
                    }
                });
            let same = "(the same)".to_owned();
            egui::ComboBox::from_label("get up from the front into")
                .selected_text(tuning.get_up_clip_face_down.and_then(|c| names.get(c).cloned()).unwrap_or(same))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut tuning.get_up_clip_face_down, None, "(the same)");
                    for (i, name) in names.iter().enumerate() {
                        ui.selectable_value(&mut tuning.get_up_clip_face_down, Some(i), name);
                    }
                });
        }
        ui.add(egui::Slider::new(&mut tuning.get_up_secs, 0.0..=3.0).text("get-up blend").suffix(" s"));
        ui.add(egui::Slider::new(&mut tuning.push_newton_secs, 0.0..=200.0).text("push").suffix(" N s"));
        let push_target = selected_name.unwrap_or_else(|| "the root".to_owned());
        ui.weak(format!("pushes {push_target} away from the camera"));
        ui.checkbox(&mut state.ragdoll.show_colliders, "show colliders");
        if !state.placement.is_identity() {
            ui.horizontal(|ui| {
                let p = state.placement;
                let metres = state.ragdoll.controller().map_or(1.0, |c| c.spec().metres_per_unit);
                ui.weak(format!(
                    "playing {:.2} m from the clip's origin, turned {:.0}°",
                    p.offset.length() * metres,
                    p.yaw_rad.to_degrees()
                ));
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
            ["", "ragdoll_weight", "motor strength"],
            &state.ragdoll.history,
            state.clock_secs,
            RAGDOLL_HISTORY_SECS,
        );
    }
}

#[cfg(test)]
mod tests {
    use egui_kittest::Harness;
    use egui_kittest::kittest::Queryable as _;

    use super::*;
    use crate::ui::ViewerUi;

    struct Viewer {
        state: ViewerState,
        ui: ViewerUi,
    }

    fn viewer() -> Viewer {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        Viewer { state: ViewerState::new(model, "built-in character".to_owned()), ui: ViewerUi::default() }
    }

    fn harness(viewer: Viewer) -> Harness<'static, Viewer> {
        Harness::builder()
            .with_size([460.0, 1000.0])
            .build_ui_state(|ui, v: &mut Viewer| v.ui.ragdoll.ragdoll_ui(ui, &mut v.state), viewer)
    }

    fn node(state: &ViewerState, name: &str) -> usize {
        state.model.nodes.iter().position(|n| n.name.as_deref() == Some(name)).expect("node")
    }

    fn world(state: &ViewerState, pose: &SoaPose) -> Vec<glam::Affine3A> {
        let mut m = vec![glam::Affine3A::IDENTITY; pose.len()];
        state.model.hierarchy.local_to_model(pose, &mut anim::LocalMatrices::default(), &mut m);
        m
    }

    /// A region picked in the joint tree goes limp while the rest keeps walking; a powered
    /// handoff plots its strength falling next to `ragdoll_weight`.
    #[test]
    fn the_region_comes_from_the_joint_tree_and_the_strength_is_plotted() {
        let mut v = viewer();
        v.state.select_clip(1);
        let arm = node(&v.state, "UpperArm.L");
        v.state.selected_joint = Some(arm);
        let mut harness = harness(v);
        harness.run();
        harness.get_by_label("Region: selected joint").click();
        harness.run();
        assert_eq!(harness.state().state.ragdoll.tuning.region, Some(arm));
        harness.get_by_label("Go limp").click();
        harness.run();
        let state = &mut harness.state_mut().state;
        for _ in 0..60 {
            state.advance(1.0 / 60.0);
        }
        let (shown, animated) = (world(state, &state.pose), world(state, state.animated_pose()));
        for name in ["Foot.L", "Head", "Hand.R"] {
            let n = node(state, name);
            let d = Vec3::from(shown[n].translation).distance(animated[n].translation.into());
            assert!(d < 1e-4, "{name} left the walk by {d} m");
        }
        let hand = node(state, "Hand.L");
        assert!(Vec3::from(shown[hand].translation).distance(animated[hand].translation.into()) > 0.05);

        // Whole body again, powered, going limp at 2/s: the plot's third series falls 1 → 0.
        harness.get_by_label("Whole body").click();
        harness.run();
        let state = &mut harness.state_mut().state;
        assert_eq!(state.ragdoll.tuning.region, None);
        state.ragdoll.tuning.motor_strength = 1.0;
        state.ragdoll.tuning.limp_rate_per_sec = 2.0;
        state.ragdoll.tuning.pin_pelvis = true;
        state.ragdoll.history.clear();
        assert!(state.trigger_ragdoll());
        for _ in 0..45 {
            state.advance(1.0 / 60.0);
        }
        let strengths: Vec<f64> = state.ragdoll.history.iter().map(|r| r[2]).collect();
        assert!(strengths.iter().any(|&s| s > 0.9) && strengths.last() == Some(&0.0), "{strengths:?}");
        assert!(strengths.windows(2).all(|w| w[1] <= w[0] + 1e-9), "the strength only falls");
        harness.run();
        // The slider and the plot's legend entry.
        assert!(harness.query_all_by_label("motor strength").count() >= 2);
    }

    /// Pushed forward the character falls on its face and gets up with the face-down clip,
    /// placed where it lies and turned the way it will stand; pushed back, the face-up one.
    #[test]
    fn get_up_picks_the_clip_for_how_the_body_lies() {
        for (forward, expected_clip, facing) in [(true, 2, "face-down"), (false, 0, "face-up")] {
            let mut v = viewer();
            v.state.select_clip(0);
            v.state.playing = true;
            v.state.ragdoll.tuning.get_up_clip = 0;
            v.state.ragdoll.tuning.get_up_clip_face_down = Some(2);
            v.state.ragdoll.tuning.push_newton_secs = 60.0;
            v.state.selected_joint = Some(node(&v.state, "Chest"));
            // Push along the character's front (+Z) or its back.
            let yaw = if forward { std::f32::consts::PI } else { 0.0 };
            v.state.camera.yaw_rad = yaw;
            let mut harness = harness(v);
            harness.run();
            harness.get_by_label("Go limp").click();
            harness.run();
            let state = &mut harness.state_mut().state;
            for _ in 0..150 {
                state.advance(1.0 / 60.0);
            }
            let lying = world(state, &state.pose)[0].translation;
            harness.run();
            harness.get_by_label("Get up").click();
            harness.run();
            let state = &mut harness.state_mut().state;
            let status = state.ragdoll.status.clone().unwrap_or_default();
            assert!(status.contains(facing), "pushed forward {forward}: {status}");
            assert_eq!(state.clip, Some(expected_clip), "{status}");
            let standing = world(state, state.animated_pose())[0].translation;
            let apart = Vec3::new(standing.x - lying.x, 0.0, standing.z - lying.z).length();
            assert!(apart < 0.02, "the clip starts {apart} m from where the pelvis lies");
            for _ in 0..120 {
                state.advance(1.0 / 60.0);
            }
            assert_eq!(state.ragdoll.phase(), Phase::Animated);
            assert!(state.pose.is_finite());
        }
    }
}
