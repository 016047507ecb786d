//! The Ragdoll panel: hand the character to a Rapier ragdoll — whole body or a region picked in
//! the joint tree, limp or powered (motor strength, "active → limp" ramp, per-region gains,
//! pinned pelvis) — with a tunable ramp, push a bone, show the colliders, get back up into a clip
//! chosen by how the body lies. It draws the stage's [`RagdollView`] and returns what the user
//! asked for; the tunables live in [`RagdollTuning`].

use anim::Easing;

use crate::physics::{MotorGains, Phase, Region};
use crate::stage::ragdoll::{RAGDOLL_HISTORY_SECS, RagdollView};
use crate::stage::tuning::RagdollTuning;

use super::enum_combo;

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

/// The panel: Go limp / Get up; the ramp; what goes limp (whole body or the region below
/// the selected joint); powered controls (motor strength, active → limp rate, pinned
/// pelvis, per-region gains); get-up clips from the back and from the front and the blend
/// time; push; colliders; placement; and the plot of `ragdoll_weight` and the motor
/// strength. `clip_names`: the model's clips; `node_name` names a node; `selected`: the
/// selected joint (the push target and the region candidate); `clock_secs`: the viewer clock.
pub fn ragdoll_ui(
    ragdoll: &mut RagdollView,
    ui: &mut egui::Ui,
    tuning: &mut RagdollTuning,
    clip_names: &[String],
    node_name: impl Fn(anim::NodeId) -> String,
    selected: Option<anim::NodeId>,
    clock_secs: f64,
) -> Option<RagdollAction> {
    let mut action = None;
    ui.horizontal(|ui| {
        if ui.button("Go limp").on_hover_text("Hand the character to the ragdoll now (R)").clicked() {
            action = Some(RagdollAction::GoLimp);
        }
        let can_get_up = ragdoll.phase() == Phase::Ragdoll;
        if ui
            .add_enabled(can_get_up, egui::Button::new("Get up"))
            .on_hover_text(
                "Blend back into the get-up clip, face up or face down as the body lies, placed where it lies (G)",
            )
            .on_disabled_hover_text("Only while ragdolling (R)")
            .clicked()
        {
            action = Some(RagdollAction::GetUp);
        }
        ui.label(match ragdoll.phase() {
            Phase::Animated => "animated".to_owned(),
            Phase::Ragdoll => {
                format!("ragdoll, weight {:.2}, strength {:.2}", ragdoll.weight(), ragdoll.motor_strength())
            }
            Phase::GettingUp => format!("getting up, weight {:.2}", ragdoll.weight()),
        });
    });
    ui.add(
        egui::Slider::new(&mut tuning.ramp_rate_per_sec, 0.5..=1000.0)
            .update_while_editing(false)
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

    ui.separator();
    ui.horizontal(|ui| {
        ui.label("goes limp:");
        ui.label(tuning.region.map_or_else(|| "whole body".to_owned(), |n| format!("{} and below", node_name(n))));
    });
    ui.horizontal(|ui| {
        let pick = ui
            .add_enabled(selected.is_some(), egui::Button::new("Region: selected joint"))
            .on_hover_text("Ragdoll only the joint picked in the joint tree (or the 3D view) and everything below it");
        if pick.clicked() {
            tuning.region = selected;
        }
        if ui
            .add_enabled(tuning.region.is_some(), egui::Button::new("Whole body"))
            .on_hover_text("The whole character goes limp")
            .clicked()
        {
            tuning.region = None;
        }
    });
    super::status_line(
        ui,
        selected.map_or_else(|| "no joint selected".to_owned(), |n| format!("selected joint: {}", node_name(n))),
    );

    ui.separator();
    ui.add(egui::Slider::new(&mut tuning.motor_strength, 0.0..=1.0).update_while_editing(false).text("motor strength"))
        .on_hover_text("0: limp; 1: the joints drive toward the animated pose at full strength");
    ui.add(
        egui::Slider::new(&mut tuning.limp_rate_per_sec, 0.0..=10.0)
            .update_while_editing(false)
            .text("active to limp")
            .suffix(" /s"),
    )
    .on_hover_text("The motor strength falls to 0 at this rate (0 keeps it)");
    ui.checkbox(&mut tuning.pin_pelvis, "pin the pelvis to the animation")
        .on_hover_text("The pelvis keeps following the animation; the rest hangs from it");
    egui::CollapsingHeader::new("motor gains per region").show(ui, |ui| {
        for region in Region::ALL {
            let i = region.index();
            ui.horizontal(|ui| {
                ui.label(region.name());
                ui.add(
                    egui::DragValue::new(&mut tuning.gains.stiffness[i])
                        .update_while_editing(false)
                        .range(0.0..=20_000.0)
                        .prefix("stiffness "),
                )
                .on_hover_text("How hard the motors pull toward the animated pose, 1/s²");
                ui.add(
                    egui::DragValue::new(&mut tuning.gains.damping[i])
                        .update_while_editing(false)
                        .range(0.0..=2_000.0)
                        .prefix("damping "),
                )
                .on_hover_text("How strongly the motors resist motion, 1/s");
            });
        }
        if ui.small_button("Defaults").on_hover_text("The default gains for every region").clicked() {
            tuning.gains = MotorGains::default();
        }
    });

    ui.separator();
    if !clip_names.is_empty() {
        let hover = "Clip played when the character gets up from its back (G)";
        super::clip_combo(ui, "get up from the back into", &mut tuning.get_up_clip, clip_names, hover);
        let same = "(the same)".to_owned();
        egui::ComboBox::from_label("get up from the front into")
            .selected_text(
                tuning.get_up_clip_face_down.and_then(|c| clip_names.get(c.index()).cloned()).unwrap_or(same),
            )
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut tuning.get_up_clip_face_down, None, "(the same)");
                for (i, name) in clip_names.iter().enumerate() {
                    ui.selectable_value(&mut tuning.get_up_clip_face_down, Some(anim::ClipId::from_index(i)), name);
                }
            })
            .response
            .on_hover_text("Clip played when the character gets up from its front");
    }
    ui.add(
        egui::Slider::new(&mut tuning.get_up_secs, 0.0..=3.0)
            .update_while_editing(false)
            .text("get-up blend")
            .suffix(" s"),
    )
    .on_hover_text("Length of the blend from the body, through key poses, into the clip");
    ui.add(
        egui::Slider::new(&mut tuning.push_newton_secs, 0.0..=200.0)
            .update_while_editing(false)
            .text("push")
            .suffix(" N s"),
    )
    .on_hover_text("Impulse on the selected bone at the handoff, away from the camera (0: none)");
    super::status_line(
        ui,
        format!("pushes {} away from the camera", selected.map_or_else(|| "the root".to_owned(), &node_name)),
    );
    ui.checkbox(&mut ragdoll.show_colliders, "show colliders")
        .on_hover_text("Capsules of the ragdoll's bodies: cyan while animated, orange while simulated");
    // Always shown (disabled at the origin), so nothing moves under the pointer.
    ui.horizontal(|ui| {
        let p = ragdoll.placement;
        let metres = ragdoll.controller().map_or(1.0, |c| c.spec().metres_per_unit);
        let text = if p.is_identity() {
            "playing where the clip puts it".to_owned()
        } else {
            format!(
                "playing {:.2} m from the clip's origin, turned {:.0}°",
                p.offset.length() * metres,
                p.yaw_rad.to_degrees()
            )
        };
        // The button first: the text after it is what gets shortened on a narrow panel.
        if ui
            .add_enabled(!p.is_identity(), egui::Button::new("Reset position").small())
            .on_hover_text("Move the character back to where its clips place it")
            .clicked()
        {
            action = Some(RagdollAction::ResetPlacement);
        }
        ui.add(egui::Label::new(egui::RichText::new(text.as_str()).weak()).truncate()).on_hover_text(text);
    });
    super::status_line(ui, ragdoll.status.as_deref().unwrap_or("ragdoll built on the first handoff"));
    let weight = ragdoll.history.iter().map(|[t, w, _]| [t - clock_secs, *w]).collect();
    let strength = ragdoll.history.iter().map(|[t, _, s]| [t - clock_secs, *s]).collect();
    let series = [
        ("ragdoll_weight".to_owned(), super::SERIES_COLORS[0], weight),
        ("motor strength".to_owned(), super::SERIES_COLORS[1], strength),
    ];
    super::weight_history_ui(ui, "ragdoll weight", &series, RAGDOLL_HISTORY_SECS);
    action
}
