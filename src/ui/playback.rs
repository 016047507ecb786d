//! The transport bar (play/pause, frame steps, Home/End, speed, loop, the timeline with time
//! labels, key ticks and draggable foot-contact markers) and the clip list: they draw the
//! stage's [`Transport`] and change it.

use anim::{Model, Property};

use crate::stage::transport::Transport;

/// The clip list: name, duration, frame rate, channel count and authored interpolation
/// modes; clicking a name plays that clip.
pub fn clips_ui(ui: &mut egui::Ui, transport: &mut Transport, model: &Model) {
    if model.clips().is_empty() {
        ui.label("This model has no animations: showing the rest pose.");
        return;
    }
    let mut clicked = None;
    egui::Grid::new("clip list").striped(true).num_columns(4).show(ui, |ui| {
        ui.strong("clip");
        ui.strong("length");
        ui.strong("channels");
        ui.strong("modes").on_hover_text("Interpolation modes the file uses in this clip");
        ui.end_row();
        for (index, clip) in model.clip_ids() {
            let selected = transport.clip() == Some(index);
            let name = ui.selectable_label(selected, clip.display_name(index.index()));
            if name.on_hover_text("Play this clip from its start (no fade; T fades)").clicked() {
                clicked = Some(index);
            }
            let fps = transport.frame_rate_of(index);
            ui.label(format!("{:.2} s", clip.duration_secs()))
                .on_hover_text(format!("{:.0} frames at {fps} fps", clip.duration_secs() * fps));
            let channels: usize = [Property::Translation, Property::Rotation, Property::Scale, Property::Weights]
                .iter()
                .map(|&p| clip.track_count(p))
                .sum();
            ui.label(channels.to_string());
            let modes: Vec<&str> = clip.interpolations().iter().map(|m| m.gltf_name()).collect();
            ui.label(modes.join(", "));
            ui.end_row();
        }
    });
    if let Some(index) = clicked {
        transport.select_clip(index);
    }
}

/// The timeline's playhead while rewound: the stored frame's clip time (`Stage::shown`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RewoundPlayhead {
    /// How long before live the frame shown was, seconds.
    pub secs_before_live: f64,
    /// Its clip's time, seconds.
    pub clip_secs: f32,
    /// Its clip's length, seconds (the live clip may be another).
    pub duration_secs: f32,
}

/// Play/pause, frame steps, Home/End, speed, loop, the time readout and the timeline with
/// its time labels and key ticks (`selected_keys`: the selected channel's key times) and the
/// clip's foot-contact markers (foot name, time), which can be dragged along it. True when a
/// marker was moved. While `rewound`, the readout and the playhead show the stored frame's clip
/// time, marked, and the timeline does not seek or move markers (the live clock holds).
pub fn transport_ui(
    ui: &mut egui::Ui,
    transport: &mut Transport,
    rewound: Option<RewoundPlayhead>,
    key_times: &[f32],
    selected_keys: &[f32],
    markers: &mut [(String, f32)],
) -> bool {
    ui.horizontal(|ui| {
        let label = if transport.playing { "Pause" } else { "Play" };
        if ui.add_sized([56.0, 20.0], egui::Button::new(label)).on_hover_text("Play or pause (Space)").clicked() {
            transport.toggle_play();
        }
        if ui.button("|<").on_hover_text("First frame (Home)").clicked() {
            transport.go_to_start();
        }
        if ui.button("< Frame").on_hover_text("One frame back (Left arrow); pauses").clicked() {
            transport.step_frames(-1);
        }
        if ui
            .button("Frame >")
            .on_hover_text(
                "One frame on (Right arrow); pauses. During a transition it advances the transition by a frame",
            )
            .clicked()
        {
            transport.step_frames(1);
        }
        if ui.button(">|").on_hover_text("Last frame (End); pauses").clicked() {
            transport.go_to_end();
        }
        ui.add(
            egui::Slider::new(&mut transport.speed, 0.1..=4.0)
                .update_while_editing(false)
                .logarithmic(true)
                .text("speed")
                .suffix("×"),
        )
        .on_hover_text("Playback speed (fades and the ragdoll run at it too)");
        ui.checkbox(&mut transport.looping, "loop")
            .on_hover_text("Wrap at the end; off: stop on the last frame (Play then restarts)");
        match rewound {
            Some(r) => ui
                .colored_label(
                    ui.visuals().warn_fg_color,
                    egui::RichText::new(format!(
                        "{}: {:6.3} s / {:.3} s",
                        super::rewind::rewound_label(r.secs_before_live),
                        r.clip_secs,
                        r.duration_secs
                    ))
                    .monospace(),
                )
                .on_hover_text("The recorded frame's clip time; the live clock holds (Esc or Live returns)"),
            None => ui
                .monospace(format!(
                    "{:6.3} s / {:.3} s  frame {} / {} @ {} fps",
                    transport.time_secs(),
                    transport.duration_secs(),
                    transport.frame_index(),
                    transport.frame_count(),
                    transport.frame_rate()
                ))
                .on_hover_text(
                    "Clip time and length; frame and frame count at the clip's own frame rate (from its key spacing)",
                ),
        };
    });
    let (duration, mut time) = match rewound {
        Some(r) => (r.duration_secs, r.clip_secs),
        None => (transport.duration_secs(), transport.time_secs()),
    };
    // Room for the labels under the rail at both ends.
    let margin = 18.0;
    let rail = ui.horizontal(|ui| {
        ui.add_space(margin);
        ui.spacing_mut().slider_width = (ui.available_width() - 2.0 * margin).max(50.0);
        let response = ui.add_enabled(
            duration > 0.0 && rewound.is_none(),
            egui::Slider::new(&mut time, 0.0..=duration.max(1e-3))
                .update_while_editing(false)
                .show_value(false)
                .clamping(egui::SliderClamping::Always),
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Slider, duration > 0.0, "timeline"));
        let response = response.on_hover_text(
            "Drag or click to scrub (a transition in progress ends there); ticks are keys, the markers foot contacts",
        );
        if response.changed() && rewound.is_none() {
            transport.seek(time);
        }
        response.rect
    });
    let moved = timeline_marks_ui(ui, rail.inner, duration, key_times, selected_keys, markers);
    moved && rewound.is_none()
}

/// Where times fall under the timeline slider: egui keeps the slider's handle inside its rect,
/// so time 0 and the end sit a handle radius in from its edges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimelineScale {
    /// x of time 0.
    pub x0: f32,
    /// x of the clip's end.
    pub x1: f32,
    /// The clip's length, seconds.
    pub duration_secs: f32,
}

impl TimelineScale {
    /// The scale under a slider of rect `slider` for a clip of `duration_secs`.
    pub fn under(slider: egui::Rect, duration_secs: f32) -> Self {
        let handle_radius = slider.height() / 2.5;
        Self { x0: slider.left() + handle_radius, x1: slider.right() - handle_radius, duration_secs }
    }

    /// x of time `t` (clamped to the clip).
    pub fn x_of(&self, t: f32) -> f32 {
        if self.duration_secs <= 0.0 {
            return self.x0;
        }
        self.x0 + (self.x1 - self.x0) * (t / self.duration_secs).clamp(0.0, 1.0)
    }

    /// Labelled times: a "nice" step (1, 2 or 5 × 10ⁿ s) leaving about 70 px between labels,
    /// from 0 to the end.
    pub fn labels(&self) -> Vec<(f32, String)> {
        if self.duration_secs <= 0.0 {
            return Vec::new();
        }
        let step = nice_step(self.duration_secs / (self.x1 - self.x0).max(1.0) * 70.0);
        let count = (self.duration_secs / step + 1e-3).floor() as usize;
        (0..=count).map(|i| i as f32 * step).map(|t| (t, format_secs(t, step))).collect()
    }
}

/// Key ticks (every key of the clip grey, the selected channel's keys highlighted), time labels
/// under the timeline slider whose rect is `slider`, drawn whole at both ends, and the
/// foot-contact markers below them, draggable. True when a marker moved.
fn timeline_marks_ui(
    ui: &mut egui::Ui,
    slider: egui::Rect,
    duration: f32,
    key_times: &[f32],
    selected_keys: &[f32],
    markers: &mut [(String, f32)],
) -> bool {
    // One height with or without markers: the layout does not jump when a clip has contacts.
    let height = 40.0;
    let (strip, _) = ui.allocate_exact_size(egui::vec2(ui.available_width(), height), egui::Sense::hover());
    if duration <= 0.0 {
        return false;
    }
    let scale = TimelineScale::under(slider, duration);
    let mut moved = false;
    for (i, (foot, t)) in markers.iter_mut().enumerate() {
        let center = egui::pos2(scale.x_of(*t), strip.top() + 32.0);
        let handle = egui::Rect::from_center_size(center, egui::vec2(14.0, 14.0));
        let response = ui
            .interact(handle, ui.make_persistent_id(("contact marker", i)), egui::Sense::drag())
            .on_hover_text(format!("{foot} touches down at {t:.3} s: drag to move (saved in the profile)"));
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Slider, true, format!("contact {foot}")));
        if response.dragged()
            && let Some(pointer) = response.interact_pointer_pos()
            && scale.x1 > scale.x0
        {
            *t = ((pointer.x - scale.x0) / (scale.x1 - scale.x0)).clamp(0.0, 1.0) * duration;
            moved = true;
        }
        let letter = side_letter(foot);
        let color =
            if letter == 'L' { egui::Color32::from_rgb(90, 200, 255) } else { egui::Color32::from_rgb(255, 170, 60) };
        let color = if response.hovered() || response.dragged() { color.gamma_multiply(1.4) } else { color };
        let tip = egui::pos2(center.x, center.y - 7.0);
        ui.painter().add(egui::Shape::convex_polygon(
            vec![tip, egui::pos2(center.x - 6.0, center.y + 5.0), egui::pos2(center.x + 6.0, center.y + 5.0)],
            color,
            egui::Stroke::NONE,
        ));
        ui.painter().text(
            egui::pos2(center.x + 8.0, center.y),
            egui::Align2::LEFT_CENTER,
            letter,
            egui::FontId::proportional(10.0),
            color,
        );
    }
    let painter = ui.painter().with_clip_rect(strip.expand(2.0));
    let ticks = strip.top()..=strip.top() + 7.0;
    let mut last_x = f32::NEG_INFINITY;
    for &t in key_times {
        let x = scale.x_of(t);
        // One tick per pixel column at most (dense clips); key_times are sorted.
        if x - last_x >= 1.0 {
            painter.vline(x, ticks.clone(), egui::Stroke::new(1.0, egui::Color32::from_gray(120)));
            last_x = x;
        }
    }
    let color = ui.visuals().selection.bg_fill;
    for &t in selected_keys {
        painter.vline(scale.x_of(t), strip.top()..=strip.top() + 9.0, egui::Stroke::new(2.0, color));
    }
    let font = egui::FontId::proportional(11.0);
    let text_color = ui.visuals().weak_text_color();
    for (t, label) in scale.labels() {
        let x = scale.x_of(t);
        painter.vline(x, strip.top() + 8.0..=strip.top() + 11.0, egui::Stroke::new(1.0, text_color));
        painter.text(egui::pos2(x, strip.top() + 11.0), egui::Align2::CENTER_TOP, label, font.clone(), text_color);
    }
    moved
}

/// "L" or "R" for a foot named like `Foot.L`, `LeftFoot`, `foot_r`; else the name's first letter.
fn side_letter(foot: &str) -> char {
    let lower = foot.to_lowercase();
    let ends = |s: &str| lower.ends_with(s) || lower.starts_with(s);
    if lower.contains("left") || ends(".l") || ends("_l") || ends("l_") || ends("l.") {
        'L'
    } else if lower.contains("right") || ends(".r") || ends("_r") || ends("r_") || ends("r.") {
        'R'
    } else {
        foot.chars().next().unwrap_or('?').to_ascii_uppercase()
    }
}

/// The smallest of 1, 2, 5 × 10ⁿ seconds not below `at_least`.
fn nice_step(at_least: f32) -> f32 {
    let at_least = at_least.max(1e-4);
    let magnitude = 10f32.powf(at_least.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|&s| s >= at_least).unwrap_or(10.0 * magnitude)
}

/// `t` with as many decimals as `step` needs, and "s".
fn format_secs(t: f32, step: f32) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    format!("{t:.decimals$} s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_labels_fall_on_round_steps() {
        let nice = nice_step(0.13);
        assert_eq!(nice, 0.2);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(format_secs(0.5, 0.5), "0.5 s");
        assert_eq!(format_secs(2.0, 1.0), "2 s");
    }
}
