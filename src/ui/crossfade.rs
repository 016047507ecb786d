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
        clip_combo(ui, "from", &mut state.fade.from_clip);
        clip_combo(ui, "to", &mut state.fade.to_clip);
        ui.add(egui::Slider::new(&mut state.fade.duration_secs, 0.05..=2.0).text("duration").suffix(" s"));
        enum_combo(ui, "easing ", &mut state.fade.easing, &Easing::ALL, |e| e.name().to_owned());
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
        let now = state.clock_secs;
        let points: Vec<[f64; 2]> = state.fade_history.iter().map(|&[t, w]| [t - now, w]).collect();
        Plot::new("fade weights")
            .height(90.0)
            .include_x(-FADE_HISTORY_SECS)
            .include_x(0.0)
            .include_y(0.0)
            .include_y(1.0)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .show(ui, |plot_ui| {
                plot_ui.line(Line::new("weight of the clip faded to", PlotPoints::from(points)));
            });
    }
}
