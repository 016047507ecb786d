//! Cross-fade set-up: from/to clips, duration, easing, a Trigger button, and the weight of the
//! clip faded to over the last seconds.

use anim::Easing;
use egui_plot::{Line, Plot, PlotPoints};

use super::state::FADE_HISTORY_SECS;
use super::{ViewerState, enum_combo};

/// The cross-fade panel.
#[derive(Debug, Default)]
pub struct CrossFadePanel;

impl CrossFadePanel {
    /// Pickers, Trigger (also the T key) and the weight plot.
    pub fn crossfade_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        let clips = state.model.clips.len();
        if clips == 0 {
            ui.label("No clips to fade between.");
            return;
        }
        let names: Vec<String> = state.model.clips.iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
        let clip_combo = |ui: &mut egui::Ui, label: &str, value: &mut usize| {
            egui::ComboBox::from_label(label).selected_text(names.get(*value).cloned().unwrap_or_default()).show_ui(
                ui,
                |ui| {
                    for (i, name) in names.iter().enumerate() {
                        ui.selectable_value(value, i, name);
                    }
                },
            );
        };
        let pair = (state.fade.from_clip, state.fade.to_clip);
        clip_combo(ui, "from", &mut state.fade.from_clip);
        clip_combo(ui, "to", &mut state.fade.to_clip);
        if pair != (state.fade.from_clip, state.fade.to_clip) {
            state.recall_transition();
        }
        let tuning = (state.fade.duration_secs, state.fade.easing);
        // The slider's value box doubles as the number field.
        ui.add(egui::Slider::new(&mut state.fade.duration_secs, 0.05..=2.0).text("duration").suffix(" s"));
        enum_combo(ui, "easing ", &mut state.fade.easing, &Easing::ALL, |e| e.name().to_owned());
        easing_preview_ui(ui, state.fade.easing);
        if tuning != (state.fade.duration_secs, state.fade.easing) {
            state.remember_transition();
        }
        ui.horizontal(|ui| {
            if ui.button("Trigger").clicked() {
                state.trigger_fade();
            }
            ui.label(if state.fader.is_fading() {
                format!("fading: {} layers", state.fader.layers().len())
            } else {
                "idle (T triggers)".to_owned()
            });
        });
        super::weight_history_ui(
            ui,
            "fade weights",
            ["", "from (and earlier layers)", "to"],
            &state.fade_history,
            state.clock_secs,
            FADE_HISTORY_SECS,
        );
        transition_table_ui(ui, state, &names);
    }
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
        .show(ui, |plot_ui| plot_ui.line(Line::new(easing.name(), PlotPoints::from(points))));
}

/// The remembered settings per clip pair, and the profile's state.
fn transition_table_ui(ui: &mut egui::Ui, state: &mut ViewerState, names: &[String]) {
    ui.label("Transition table (saved in the model's tuning profile):");
    if state.transitions.is_empty() {
        ui.weak("no pairs tuned yet");
    }
    let mut recall = None;
    egui::Grid::new("transition table").striped(true).show(ui, |ui| {
        for (&(from, to), &(duration, easing)) in &state.transitions {
            let label = format!(
                "{} -> {}",
                names.get(from).map_or("?", String::as_str),
                names.get(to).map_or("?", String::as_str)
            );
            if ui.button(label).clicked() {
                recall = Some((from, to));
            }
            ui.label(format!("{duration:.2} s"));
            ui.label(easing.name());
            ui.end_row();
        }
    });
    if let Some((from, to)) = recall {
        state.fade.from_clip = from;
        state.fade.to_clip = to;
        state.recall_transition();
    }
    ui.horizontal(|ui| {
        if ui.button("Export profile").clicked() {
            let stem = std::path::Path::new(&state.model_label)
                .file_stem()
                .and_then(|s| s.to_str())
                .filter(|s| !s.is_empty())
                .unwrap_or("model")
                .to_owned();
            let path = std::path::PathBuf::from(format!("{stem}.animtune.json"));
            state.profile_status = Some(match state.export_profile(&path) {
                Ok(()) => format!("exported to {}", path.display()),
                Err(error) => format!("export failed: {error:#}"),
            });
        }
        if let Some(status) = &state.profile_status {
            ui.weak(status);
        }
    });
}
