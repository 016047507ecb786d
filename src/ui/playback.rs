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
        key_ticks_ui(ui, state, response.rect.left(), ui.spacing().slider_width);
    }
}

/// Key ticks under the timeline: every key time of the clip (grey) and the selected channel's
/// keys (highlighted), aligned with the slider's rail that starts at `left` and is
/// `slider_width` wide.
fn key_ticks_ui(ui: &mut egui::Ui, state: &ViewerState, left: f32, slider_width: f32) {
    let Some(clip) = state.clip.and_then(|c| state.model.clips.get(c)) else { return };
    let duration = clip.duration_secs();
    let (rect, _) = ui.allocate_exact_size(egui::vec2(slider_width, 7.0), egui::Sense::hover());
    if duration <= 0.0 {
        return;
    }
    // egui's slider keeps its handle inside the rail: the time range spans the rail minus a
    // handle radius at each end.
    let handle_radius = ui.spacing().interact_size.y / 2.5;
    let rail = (left + handle_radius)..=(left + slider_width - handle_radius);
    let x_of = |t: f32| rail.start() + (rail.end() - rail.start()) * (t / duration).clamp(0.0, 1.0);
    let painter = ui.painter_at(rect.expand2(egui::vec2(handle_radius, 0.0)));
    let mut last_x = f32::NEG_INFINITY;
    let mut times: Vec<f32> = clip.timelines().iter().flat_map(|t| t.times_secs.iter().copied()).collect();
    times.sort_by(f32::total_cmp);
    for t in times {
        let x = x_of(t);
        // One tick per pixel column at most (dense clips).
        if x - last_x >= 1.0 {
            painter.vline(x, rect.top()..=rect.bottom() - 2.0, egui::Stroke::new(1.0, egui::Color32::from_gray(110)));
            last_x = x;
        }
    }
    if let Some(track) = state.selected_track().and_then(|i| clip.tracks().get(i))
        && let Some(timeline) = clip.timelines().get(track.timeline)
    {
        let color = ui.visuals().selection.bg_fill;
        for &t in &timeline.times_secs {
            painter.vline(x_of(t), rect.top()..=rect.bottom(), egui::Stroke::new(1.5, color));
        }
    }
}
