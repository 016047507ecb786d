//! The cross-fade panel: the clip to fade to, the transition of the pair (what is on screen →
//! that clip) from the transition table — kind (cross-fade, inertialization, dead blending),
//! duration, easing, decay or half-life, phase sync, speed matching — with its measured quality
//! (velocity jump, foot slide, acceleration, pop against a cross-fade of the same duration), a
//! Trigger button, the weight plot and the table itself.
//!
//! There is no "from" setting: a fade starts from what is on screen (the playing clip, the
//! blend in progress, or the ragdoll), and the pair tuned is (current clip → target).

use std::collections::BTreeMap;

use anim::{ClipId, Easing, FootContact, Model, OffsetDecay, RootMotion, TransitionKind};
use egui_plot::{Line, Plot, PlotPoints};

use crate::transitions::{PairSettings, Rig, Sync, TransitionReport, measure};

use super::{SERIES_COLORS, enum_combo};
use crate::stage::transport::{FADE_HISTORY_SECS, FadeSource, Transport};
use crate::stage::tuning::{ClipExtras, FadeTuning, Tuning};

/// What the cross-fade panel asks the viewer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossFadeAction {
    /// Fade from what is on screen to the target clip (T).
    Trigger,
    /// Play `from` and aim at `to`: a row of the table, ready to trigger.
    SetUp {
        /// Clip to play now.
        from: ClipId,
        /// Clip to fade to next.
        to: ClipId,
    },
}

/// The cross-fade panel.
#[derive(Default)]
pub struct CrossFadePanel {
    /// The model's feet and scale, found on first use.
    rig: Option<Rig>,
    /// Foot contacts found per clip, on first use.
    found_contacts: BTreeMap<ClipId, Vec<FootContact>>,
    /// The measured quality of the pair on show: for which pair and tuning, and the reports of
    /// its transition and of a cross-fade of the same duration.
    measured: Option<(MeasuredKey, TransitionReport, TransitionReport)>,
}

impl std::fmt::Debug for CrossFadePanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossFadePanel").finish_non_exhaustive()
    }
}

/// What a measurement depends on: the pair, its tuning and the edited markers.
type MeasuredKey = (ClipId, ClipId, FadeTuning, ClipExtras);

/// Trigger times the panel measures a pair at.
const MEASURED_TRIGGERS: usize = 3;

impl CrossFadePanel {
    /// Foot contacts of `clip` with their feet's names, by time.
    pub fn named_contacts(&mut self, model: &Model, extras: &ClipExtras, clip: ClipId) -> Vec<(String, f32)> {
        let contacts = self.contacts(model, extras, clip);
        self.rig(model).named(&contacts).into_iter().map(|c| (c.foot, c.time_secs)).collect()
    }

    /// The measured quality of `from → to` as tuned now (this transition, a cross-fade of the
    /// same duration), measuring it if the panel has not yet.
    pub fn measured_pair(
        &mut self,
        model: &Model,
        tuning: &Tuning,
        from: ClipId,
        to: ClipId,
    ) -> Option<(TransitionReport, TransitionReport)> {
        let fade = tuning.fade_for(from, to);
        self.measured(model, &tuning.clip_extras, from, to, fade).map(|(a, b)| (a.clone(), b.clone()))
    }

    /// The model's rig (found once).
    fn rig(&mut self, model: &Model) -> &Rig {
        self.rig.get_or_insert_with(|| Rig::new(model))
    }

    /// Foot contacts of `clip`: the profile's edited markers, else found (once per clip).
    pub fn contacts(&mut self, model: &Model, extras: &ClipExtras, clip: ClipId) -> Vec<FootContact> {
        let name = model.clip(clip).map(|c| c.display_name(clip.index())).unwrap_or_default();
        let rig = self.rig.get_or_insert_with(|| Rig::new(model));
        if let Some(stored) = extras.markers.iter().find(|m| m.clip == name) {
            return rig.stored_contacts(stored.contacts.iter().map(|c| (c.foot.as_str(), c.time_secs)));
        }
        self.found_contacts.entry(clip).or_insert_with(|| rig.contacts(model, clip)).clone()
    }

    /// The measured quality of `from → to` with `fade` (cached until the pair or its tuning
    /// changes): this transition and a cross-fade of the same duration, each at
    /// [`MEASURED_TRIGGERS`] trigger times over the source clip.
    fn measured(
        &mut self,
        model: &Model,
        extras: &ClipExtras,
        from: ClipId,
        to: ClipId,
        fade: FadeTuning,
    ) -> Option<(&TransitionReport, &TransitionReport)> {
        if self
            .measured
            .as_ref()
            .is_none_or(|((f, t, tuned, seen), _, _)| (*f, *t, *tuned) != (from, to, fade) || seen != extras)
        {
            let key = (from, to, fade, extras.clone());
            let source = model.clip(from)?;
            model.clip(to)?;
            let secs = source.end_secs();
            let times: Vec<f32> =
                (0..MEASURED_TRIGGERS).map(|i| secs * (i as f32 + 0.5) / MEASURED_TRIGGERS as f32).collect();
            let contacts = [self.contacts(model, extras, from), self.contacts(model, extras, to)];
            let settings = |fade: FadeTuning| PairSettings {
                transition: fade.transition(0.0, 0.0),
                sync: if fade.phase_sync { Sync::Phase } else { Sync::None },
                match_speed: fade.match_speed,
                root_motion: RootMotion::Authored,
                loops: 0,
                start_secs: None,
            };
            let baseline = FadeTuning { kind: TransitionKind::CrossFade, ..fade };
            let rig = self.rig(model);
            let (a, b) = (from, to);
            let this = measure(model, rig, a, b, &times, &settings(fade), Some(contacts.clone()));
            let cross = measure(model, rig, a, b, &times, &settings(baseline), Some(contacts));
            self.measured = Some((key, this, cross));
        }
        self.measured.as_ref().map(|(_, this, cross)| (this, cross))
    }

    /// From (what is on screen), to, the pair's duration and easing, Trigger (also T), the
    /// weight plot and the transition table.
    pub fn crossfade_ui(
        &mut self,
        ui: &mut egui::Ui,
        stage: crate::stage::StageParts<'_>,
        clip_names: &[String],
    ) -> Option<CrossFadeAction> {
        let crate::stage::StageParts { transport, fade_target, model, tuning, ragdoll, shown, .. } = stage;
        let transport: &Transport = transport;
        let ragdoll_active = ragdoll.phase() == crate::physics::Phase::Ragdoll;
        let Some(current) = transport.clip() else {
            ui.label("No clips to fade between.");
            return None;
        };
        let mut action = None;
        if fade_target.index() >= clip_names.len() {
            *fade_target = ClipId::new(0);
        }
        let from = if ragdoll_active { "the ragdoll (blends into the clip)".to_owned() } else { transport.on_screen() };
        ui.horizontal(|ui| {
            ui.label("from:");
            ui.strong(from).on_hover_text(
                "A fade always starts from what is on screen: the playing clip, a blend in progress, or the ragdoll",
            );
        });
        let clip_name = transport.clip_name(current);
        let mut root_motion = tuning.root_motion(clip_name);
        if enum_combo(
            ui,
            &format!("root motion of {clip_name}"),
            &mut root_motion,
            &RootMotion::ALL,
            |m| root_motion_label(m).to_owned(),
            "As authored: the root moves as the file moves it. In place: the root stays at its anchor \
             horizontally (through loops and fades; its motion is what a game applies to the character)",
        ) {
            tuning.set_root_motion(clip_name, root_motion);
        }
        super::clip_combo(ui, "to", fade_target, clip_names, "Clip the next fade goes to (T triggers)");
        let to = *fade_target;
        let pair = format!("{} -> {}", transport.clip_name(current), transport.clip_name(to));
        let tuned = tuning.transition(current, to);
        let mut fade = tuned.unwrap_or_default();
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("fade {pair}:"));
            ui.weak(if tuned.is_some() { "tuned" } else { "untuned: defaults" })
                .on_hover_text("Changing the duration or easing tunes this pair in the transition table");
        });
        if to == current {
            // On its own line: it fits the narrowest panel.
            ui.weak("(restarts it with a blend)");
        }
        let mut changed = enum_combo(
            ui,
            "kind",
            &mut fade.kind,
            &TransitionKind::ALL,
            |k| kind_label(k).to_owned(),
            "Cross-fade: blend the clips. Inertialize: switch at once and let the difference decay \
             (keeps velocity). Dead blend: let the pose on screen coast on its velocity and fade the \
             target in over it",
        );
        // The slider's value box doubles as the number field.
        changed |= ui
            .add(
                egui::Slider::new(&mut fade.duration_secs, 0.0..=2.0)
                    .update_while_editing(false)
                    .text("duration")
                    .suffix(" s"),
            )
            .on_hover_text("Fade (or offset decay) length for this pair (0: switch at once)")
            .changed();
        match fade.kind {
            TransitionKind::Inertialize => {
                changed |= enum_combo(
                    ui,
                    "decay",
                    &mut fade.decay,
                    &OffsetDecay::ALL,
                    |d| d.name().to_owned(),
                    "Quintic: value, velocity and acceleration matched at the start. Critically damped: a spring",
                );
                // In the easing plot's place (the layout does not jump between kinds).
                decay_preview_ui(ui, fade.decay);
            }
            TransitionKind::CrossFade | TransitionKind::DeadBlend => {
                changed |= enum_combo(
                    ui,
                    "easing",
                    &mut fade.easing,
                    &Easing::ALL,
                    |e| e.name().to_owned(),
                    "How the weight of the clip faded to rises over the fade",
                );
                easing_preview_ui(ui, fade.easing);
            }
        }
        if fade.kind == TransitionKind::DeadBlend {
            changed |= ui
                .add(
                    egui::Slider::new(&mut fade.half_life_secs, 0.0..=0.5)
                        .update_while_editing(false)
                        .text("half-life")
                        .suffix(" s"),
                )
                .on_hover_text("How fast the coasting pose's velocity dies away (it halves every half-life)")
                .changed();
        } else {
            // The half-life row's room, kept empty: the controls below stay where they are.
            ui.add_space(ui.spacing().interact_size.y + ui.spacing().item_spacing.y);
        }
        ui.horizontal(|ui| {
            changed |= ui
                .checkbox(&mut fade.phase_sync, "sync by phase")
                .on_hover_text(
                    "Start the target at the source's phase: the same foot at the same point of its step \
                     (foot-contact markers), else the same fraction of the cycle",
                )
                .changed();
            changed |= ui
                .checkbox(&mut fade.match_speed, "match speed")
                .on_hover_text("Start the target at the source's cycle rate; it reaches its own by the end")
                .changed();
        });
        if changed {
            tuning.set_transition(current, to, fade);
        }
        self.quality_ui(ui, model, &tuning.clip_extras, current, to, fade);
        ui.horizontal(|ui| {
            if ui.button("Trigger").on_hover_text("Fade now (T)").clicked() {
                action = Some(CrossFadeAction::Trigger);
            }
            ui.label(match shown.rewound_secs {
                // The stored frame's transition (the fader's layers are not recorded).
                Some(secs) => rewound_transition_label(secs, &shown, clip_names),
                None if transport.is_fading() => format!("fading: {} layers", transport.fader().layers().len()),
                None => "idle (T triggers)".to_owned(),
            });
        });
        super::weight_history_ui(ui, "fade weights", &fade_series(transport), FADE_HISTORY_SECS);
        transition_table_ui(ui, tuning, clip_names, &mut action);
        action
    }
}

/// The running transition of the rewound frame `secs` before live, as the Trigger row says it:
/// `rewound −1.25 s: Run at 0.42 s, cross-fade 0.30 / 0.80 s (weight 0.38)`.
fn rewound_transition_label(secs: f64, shown: &crate::stage::rewind::ShownFacts<'_>, clip_names: &[String]) -> String {
    let name = |clip: Option<ClipId>| clip.and_then(|c| clip_names.get(c.index())).map_or("no clip", String::as_str);
    let clip = format!("{}: {} at {:.2} s", super::rewind::rewound_label(secs), name(shown.clip), shown.clip_secs);
    match shown.transition {
        Some(t) => format!(
            "{clip}, {} {:.2} / {:.2} s (weight {:.2})",
            kind_label(t.kind),
            t.elapsed_secs,
            t.duration_secs,
            t.weight
        ),
        None => format!("{clip}, no transition running"),
    }
}

/// A root-motion mode's name in the panel.
fn root_motion_label(mode: RootMotion) -> &'static str {
    match mode {
        RootMotion::Authored => "as authored",
        RootMotion::InPlace => "in place",
    }
}

/// The kind's name in the panel.
fn kind_label(kind: TransitionKind) -> &'static str {
    match kind {
        TransitionKind::CrossFade => "cross-fade",
        TransitionKind::Inertialize => "inertialize",
        TransitionKind::DeadBlend => "dead blend",
    }
}

impl CrossFadePanel {
    /// The pair's measured quality beside a cross-fade of the same duration (worst of
    /// [`MEASURED_TRIGGERS`] trigger times), recomputed whenever the pair or its tuning changes.
    fn quality_ui(
        &mut self,
        ui: &mut egui::Ui,
        model: &Model,
        extras: &ClipExtras,
        from: ClipId,
        to: ClipId,
        fade: FadeTuning,
    ) {
        let Some((this, cross)) = self.measured(model, extras, from, to, fade) else { return };
        ui.label(format!("measured ({MEASURED_TRIGGERS} triggers, worst; same as `animtune transition`):"))
            .on_hover_text(
                "Each figure is the worst over the trigger times; hover a figure's name for what it measures",
            );
        let ratio = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}×"));
        egui::Grid::new("transition quality").striped(true).show(ui, |ui| {
            ui.label("");
            ui.strong(kind_label(fade.kind));
            ui.label("cross-fade");
            ui.end_row();
            let (a, b) = (&this.worst, &cross.worst);
            for (name, meaning, x, y) in [
                (
                    "velocity jump",
                    "m/s: the largest change of any joint's velocity that the trigger causes (its velocity over the frame after the trigger against what it would have been had the source played on); 0 = no jolt",
                    format!("{:.3} m/s", a.velocity_jump_mps),
                    format!("{:.3} m/s", b.velocity_jump_mps),
                ),
                (
                    "foot slide",
                    "m: how far planted feet move horizontally over the ground during the transition (relative to the ground under them, which moves with an in-place clip's stance speed)",
                    format!("{:.3} m", a.foot_slide_m),
                    format!("{:.3} m", b.foot_slide_m),
                ),
                (
                    "max accel",
                    "m/s²: the largest joint acceleration during the transition",
                    format!("{:.0} m/s²", a.max_joint_accel_mps2),
                    format!("{:.0} m/s²", b.max_joint_accel_mps2),
                ),
                (
                    "pop",
                    "A ratio (no unit): the largest per-frame joint step in the 3 frames after the trigger over the larger of the largest in the 3 frames up to it and the clips' own largest transport step (so a still source cannot blow it up); 1× or less means no pop, \"-\" that nothing moved",
                    ratio(a.pop),
                    ratio(b.pop),
                ),
            ] {
                ui.label(name).on_hover_text(meaning);
                ui.label(x);
                ui.label(y);
                ui.end_row();
            }
        });
    }
}

/// One weight series per clip seen in the fade history (the clip's own colour, its name), so
/// the plot shows each clip's weight continuously through fades and re-triggers.
fn fade_series(transport: &Transport) -> Vec<(String, egui::Color32, Vec<[f64; 2]>)> {
    let history = transport.fade_history();
    let mut clips: Vec<FadeSource> = Vec::new();
    for sample in history {
        for &(clip, _) in sample.weights() {
            if !clips.contains(&clip) {
                clips.push(clip);
            }
        }
    }
    let now = transport.clock_secs();
    clips
        .into_iter()
        .map(|clip| {
            let (label, color) = match clip {
                FadeSource::EarlierBlend => ("earlier blend".to_owned(), egui::Color32::GRAY),
                FadeSource::Clip(id) => {
                    (transport.clip_name(id).to_owned(), SERIES_COLORS[id.index() % SERIES_COLORS.len()])
                }
            };
            let points = history.iter().map(|s| [s.clock_secs - now, f64::from(s.weight_of_source(clip))]).collect();
            (label, color, points)
        })
        .collect()
}

/// A small plot of how much of an inertialization offset has decayed over the transition (0 to
/// 1), the same size as the easing plot it replaces.
fn decay_preview_ui(ui: &mut egui::Ui, decay: OffsetDecay) {
    let points: Vec<[f64; 2]> =
        (0..=32).map(|i| f64::from(i) / 32.0).map(|u| [u, f64::from(1.0 - decay.basis(u as f32, 1.0).0)]).collect();
    Plot::new("decay preview")
        .height(50.0)
        .width(90.0)
        .show_axes(false)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |plot_ui| plot_ui.line(Line::new(decay.name(), PlotPoints::from(points)).color(SERIES_COLORS[0])));
}

/// A small plot of the easing curve from 0 to 1.
fn easing_preview_ui(ui: &mut egui::Ui, easing: Easing) {
    let points: Vec<[f64; 2]> =
        (0..=32).map(|i| f64::from(i) / 32.0).map(|u| [u, f64::from(easing.apply(u as f32))]).collect();
    Plot::new("easing preview")
        .height(50.0)
        .width(90.0)
        .show_axes(false)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .show(ui, |plot_ui| plot_ui.line(Line::new(easing.name(), PlotPoints::from(points)).color(SERIES_COLORS[0])));
}

/// The tuned pairs: set one up, or delete it (it then fades with the defaults).
fn transition_table_ui(ui: &mut egui::Ui, tuning: &mut Tuning, names: &[String], action: &mut Option<CrossFadeAction>) {
    ui.label("Transition table (saved in the model's tuning profile):");
    let rows: Vec<((ClipId, ClipId), FadeTuning)> = tuning.transitions().collect();
    if rows.is_empty() {
        ui.weak("no pairs tuned yet: change a pair's duration or easing above");
    }
    let mut delete = None;
    egui::Grid::new("transition table").striped(true).show(ui, |ui| {
        for ((from, to), fade) in rows {
            let name = |clip: ClipId| names.get(clip.index()).map_or("?", String::as_str);
            let label = format!("{} -> {}", name(from), name(to));
            if ui
                .button(label)
                .on_hover_text(format!("Play {} and aim the next fade at {}", name(from), name(to)))
                .clicked()
            {
                *action = Some(CrossFadeAction::SetUp { from, to });
            }
            ui.label(format!("{:.2} s", fade.duration_secs));
            let detail = if fade.kind == TransitionKind::Inertialize { fade.decay.name() } else { fade.easing.name() };
            let sync = if fade.phase_sync { ", phase" } else { "" };
            ui.label(format!("{} ({detail}{sync})", kind_label(fade.kind)));
            if ui.small_button("Delete").on_hover_text("Forget this pair (it fades with the defaults)").clicked() {
                delete = Some((from, to));
            }
            ui.end_row();
        }
    });
    if let Some((from, to)) = delete {
        tuning.remove_transition(from, to);
    }
}
