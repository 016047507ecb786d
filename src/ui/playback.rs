//! Clip list and transport: play/pause, frame step, speed, loop, timeline.

use anim::Property;

use super::ViewerState;

/// Clips and transport.
#[derive(Debug, Default)]
pub struct PlaybackPanel;

impl PlaybackPanel {
    /// The clip list: name, duration, channel count and authored interpolation modes.
    pub fn clips_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        if state.model.clips.is_empty() {
            ui.label("This model has no animations: showing the rest pose.");
            return;
        }
        let mut clicked = None;
        egui::Grid::new("clip list").striped(true).num_columns(4).show(ui, |ui| {
            ui.strong("clip");
            ui.strong("length");
            ui.strong("channels");
            ui.strong("modes");
            ui.end_row();
            for (index, clip) in state.model.clips.iter().enumerate() {
                let selected = state.clip == Some(index);
                if ui.selectable_label(selected, clip.display_name(index)).clicked() {
                    clicked = Some(index);
                }
                ui.label(format!("{:.2} s", clip.duration_secs()));
                let channels = [Property::Translation, Property::Rotation, Property::Scale, Property::Weights]
                    .iter()
                    .map(|&p| clip.track_count(p))
                    .sum::<usize>();
                ui.label(channels.to_string());
                let modes: Vec<&str> = clip.interpolations().iter().map(|m| m.gltf_name()).collect();
                ui.label(modes.join(", "));
                ui.end_row();
            }
        });
        if let Some(index) = clicked {
            state.select_clip(index);
        }
    }

    /// Play/pause, frame step, speed, loop and the timeline with its readout.
    pub fn transport_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        ui.horizontal(|ui| {
            if ui.button(if state.playing { "Pause" } else { "Play" }).clicked() {
                state.playing = !state.playing;
            }
            if ui.button("< Frame").clicked() {
                state.step_frames(-1);
            }
            if ui.button("Frame >").clicked() {
                state.step_frames(1);
            }
            ui.add(egui::Slider::new(&mut state.speed, 0.1..=4.0).logarithmic(true).text("speed").suffix("×"));
            ui.checkbox(&mut state.looping, "loop");
            let duration = state.duration_secs();
            ui.label(format!(
                "{:6.3} s / {:.3} s  (frame {})",
                state.time_secs,
                duration,
                (state.time_secs * 30.0).round() as i64
            ));
        });
        let duration = state.duration_secs();
        let mut time = state.time_secs;
        let width = ui.available_width();
        ui.spacing_mut().slider_width = (width - 70.0).max(50.0);
        let response = ui.add_enabled(
            duration > 0.0,
            egui::Slider::new(&mut time, 0.0..=duration.max(1e-3))
                .show_value(false)
                .text("time")
                .clamping(egui::SliderClamping::Always),
        );
        if response.changed() {
            state.seek(time);
        }
    }
}
