//! The cross-fade panel: the clip to fade to, the fade of the pair (what is on screen → that
//! clip) from the transition table, a Trigger button, the weight plot and the table itself.
//!
//! There is no "from" setting: a fade starts from what is on screen (the playing clip, the
//! blend in progress, or the ragdoll), and the pair tuned is (current clip → target).

use anim::Easing;
use egui_plot::{Line, Plot, PlotPoints};

use super::playback::{EARLIER_BLEND, FADE_HISTORY_SECS, Playback};
use super::tuning::{FadeTuning, Tuning};
use super::{SERIES_COLORS, enum_combo};

/// What the cross-fade panel asks the viewer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrossFadeAction {
    /// Fade from what is on screen to the target clip (T).
    Trigger,
    /// Play `from` and aim at `to`: a row of the table, ready to trigger.
    SetUp {
        /// Clip to play now.
        from: usize,
        /// Clip to fade to next.
        to: usize,
    },
}

/// The cross-fade panel.
#[derive(Debug, Default)]
pub struct CrossFadePanel {
    /// The clip the next fade goes to.
    pub to_clip: usize,
}

impl CrossFadePanel {
    /// A panel aiming at the second clip of a model with `clips` clips (the first otherwise).
    pub fn for_clips(clips: usize) -> Self {
        Self { to_clip: usize::from(clips > 1) }
    }

    /// From (what is on screen), to, the pair's duration and easing, Trigger (also T), the
    /// weight plot and the transition table.
    pub fn crossfade_ui(
        &mut self,
        ui: &mut egui::Ui,
        playback: &Playback,
        tuning: &mut Tuning,
        ragdoll_active: bool,
        clip_names: &[String],
    ) -> Option<CrossFadeAction> {
        let Some(current) = playback.clip() else {
            ui.label("No clips to fade between.");
            return None;
        };
        let mut action = None;
        if self.to_clip >= clip_names.len() {
            self.to_clip = 0;
        }
        let from = if ragdoll_active { "the ragdoll (blends into the clip)".to_owned() } else { playback.on_screen() };
        ui.horizontal(|ui| {
            ui.label("from:");
            ui.strong(from).on_hover_text(
                "A fade always starts from what is on screen: the playing clip, a blend in progress, or the ragdoll",
            );
        });
        super::clip_combo(ui, "to", &mut self.to_clip, clip_names, "Clip the next fade goes to (T triggers)");
        let to = self.to_clip;
        let pair = format!("{} -> {}", playback.clip_name(current), playback.clip_name(to));
        let tuned = tuning.transition(current, to);
        let mut fade = tuned.unwrap_or_default();
        ui.horizontal(|ui| {
            ui.label(format!("fade {pair}:"));
            ui.weak(if tuned.is_some() { "tuned" } else { "untuned: defaults" })
                .on_hover_text("Changing the duration or easing tunes this pair in the transition table");
            if to == current {
                ui.weak("(restarts it with a blend)");
            }
        });
        // The slider's value box doubles as the number field.
        let mut changed = ui
            .add(egui::Slider::new(&mut fade.duration_secs, 0.0..=2.0).text("duration").suffix(" s"))
            .on_hover_text("Fade length for this pair (0: switch at once)")
            .changed();
        changed |= enum_combo(
            ui,
            "easing",
            &mut fade.easing,
            &Easing::ALL,
            |e| e.name().to_owned(),
            "How the weight of the clip faded to rises over the fade",
        );
        easing_preview_ui(ui, fade.easing);
        if changed {
            tuning.set_transition(current, to, fade);
        }
        ui.horizontal(|ui| {
            if ui.button("Trigger").on_hover_text("Fade now (T)").clicked() {
                action = Some(CrossFadeAction::Trigger);
            }
            ui.label(if playback.is_fading() {
                format!("fading: {} layers", playback.fader().layers().len())
            } else {
                "idle (T triggers)".to_owned()
            });
        });
        super::weight_history_ui(ui, "fade weights", &fade_series(playback), FADE_HISTORY_SECS);
        transition_table_ui(ui, tuning, clip_names, &mut action);
        action
    }
}

/// One weight series per clip seen in the fade history (the clip's own colour, its name), so
/// the plot shows each clip's weight continuously through fades and re-triggers.
fn fade_series(playback: &Playback) -> Vec<(String, egui::Color32, Vec<[f64; 2]>)> {
    let history = playback.fade_history();
    let mut clips: Vec<usize> = Vec::new();
    for sample in history {
        for &(clip, _) in sample.weights() {
            if !clips.contains(&clip) {
                clips.push(clip);
            }
        }
    }
    let now = playback.clock_secs();
    clips
        .into_iter()
        .map(|clip| {
            let (label, color) = if clip == EARLIER_BLEND {
                ("earlier blend".to_owned(), egui::Color32::GRAY)
            } else {
                (playback.clip_name(clip).to_owned(), SERIES_COLORS[clip % SERIES_COLORS.len()])
            };
            let points = history.iter().map(|s| [s.clock_secs - now, f64::from(s.weight_of(clip))]).collect();
            (label, color, points)
        })
        .collect()
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
    let rows: Vec<((usize, usize), FadeTuning)> = tuning.transitions().collect();
    if rows.is_empty() {
        ui.weak("no pairs tuned yet: change a pair's duration or easing above");
    }
    let mut delete = None;
    egui::Grid::new("transition table").striped(true).show(ui, |ui| {
        for ((from, to), fade) in rows {
            let name = |clip: usize| names.get(clip).map_or("?", String::as_str);
            let label = format!("{} -> {}", name(from), name(to));
            if ui
                .button(label)
                .on_hover_text(format!("Play {} and aim the next fade at {}", name(from), name(to)))
                .clicked()
            {
                *action = Some(CrossFadeAction::SetUp { from, to });
            }
            ui.label(format!("{:.2} s", fade.duration_secs));
            ui.label(fade.easing.name());
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
