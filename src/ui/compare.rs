//! The Compare panel: the toggle, the two interpolation modes, layout, heatmap and the
//! deviation readouts of the stage's [`Compare`].

use anim::{InterpolationOverride, Model};

use super::enum_combo;
use crate::stage::compare::{Compare, CompareLayout};
use crate::stage::sampling::PoseDeviation;
use crate::stage::tuning::Tuning;

/// The toggle, the two modes, layout, heatmap and the deviation readouts (`deviation`: this
/// frame's, from the frame output).
pub fn compare_ui(
    compare: &mut Compare,
    ui: &mut egui::Ui,
    model: &Model,
    model_generation: u64,
    clip: Option<anim::ClipId>,
    tuning: &Tuning,
    deviation: Option<PoseDeviation>,
) {
    ui.checkbox(&mut compare.enabled, "compare two modes")
        .on_hover_text("Show the same time sampled with two interpolation modes (per-channel overrides off)");
    let names = |m: InterpolationOverride| m.name().to_owned();
    enum_combo(
        ui,
        "left",
        &mut compare.modes.left,
        &InterpolationOverride::ALL,
        names,
        "Mode of the left view (the solid model in the ghost layout)",
    );
    enum_combo(
        ui,
        "right",
        &mut compare.modes.right,
        &InterpolationOverride::ALL,
        names,
        "Mode of the right view (the ghost in the ghost layout)",
    );
    ui.horizontal(|ui| {
        ui.radio_value(&mut compare.modes.layout, CompareLayout::Split, "side by side")
            .on_hover_text("Two views, same camera: left mode | right mode");
        ui.radio_value(&mut compare.modes.layout, CompareLayout::Ghost, "ghost overlay")
            .on_hover_text("Left mode solid, right mode as a translucent blue ghost over it");
    });
    ui.horizontal(|ui| {
        ui.checkbox(&mut compare.modes.heatmap, "deviation heatmap").on_hover_text(
            "Paint each joint's distance between the two modes on the skin: blue at 0, red at the scale",
        );
        ui.add(
            egui::Slider::new(&mut compare.modes.heat_full_scale, 0.001..=0.2)
                .update_while_editing(false)
                .logarithmic(true)
                .text("red at")
                .custom_formatter(|v, _| format!("{:.1} cm", v * 100.0)),
        )
        .on_hover_text("Deviation painted fully red");
    });
    heat_legend_ui(ui, compare.modes.heat_full_scale, compare.modes.heatmap);
    let name = |node: anim::NodeId| crate::profile::node_display_name(model, node);
    let now = match deviation.filter(|_| compare.enabled) {
        Some(d) => format!(
            "now: {:.2} cm ({}), {:.2}° ({})",
            d.max_distance * 100.0,
            name(d.distance_node),
            d.max_angle_rad.to_degrees(),
            name(d.angle_node)
        ),
        None => "Turn on \"compare two modes\" to see both at the same time.".to_owned(),
    };
    super::status_line(ui, now).on_hover_text("Largest joint position and orientation difference in this frame");
    let whole = match clip.and_then(|c| compare.clip_deviation(model, model_generation, c, tuning)) {
        Some(c) => format!(
            "whole clip: {:.2} cm ({} at {:.3} s), {:.2}° ({} at {:.3} s)",
            c.deviation.max_distance * 100.0,
            name(c.deviation.distance_node),
            c.distance_time_secs,
            c.deviation.max_angle_rad.to_degrees(),
            name(c.deviation.angle_node),
            c.angle_time_secs
        ),
        None => String::new(),
    };
    super::status_line(ui, whole)
        .on_hover_text("Largest difference over the whole clip (sampled at 60 Hz and around every key)");
}

/// The heatmap's colour ramp with its scale (matches `heat_color` in `shaders/mesh.wgsl`);
/// dimmed while the heatmap is off, so the panel keeps its layout.
fn heat_legend_ui(ui: &mut egui::Ui, full_scale: f32, on: bool) {
    ui.horizontal(|ui| {
        ui.label("0");
        let (rect, _) = ui.allocate_exact_size(egui::vec2(140.0, 12.0), egui::Sense::hover());
        let steps = 28;
        for i in 0..steps {
            let t = i as f32 / (steps - 1) as f32;
            let x0 = rect.left() + rect.width() * i as f32 / steps as f32;
            let x1 = rect.left() + rect.width() * (i + 1) as f32 / steps as f32;
            let r = egui::Rect::from_min_max(egui::pos2(x0, rect.top()), egui::pos2(x1, rect.bottom()));
            let color = heat_color32(t);
            ui.painter().rect_filled(r, 0.0, if on { color } else { color.gamma_multiply(0.3) });
        }
        ui.label(format!("{:.1} cm and more", full_scale * 100.0));
    });
}

/// The heat ramp (blue, green, red in linear light) as an sRGB egui colour.
pub fn heat_color32(t: f32) -> egui::Color32 {
    let t = t.clamp(0.0, 1.0);
    let (cold, mid, hot) = ([0.05, 0.2, 0.9], [0.1, 0.8, 0.15], [0.95, 0.08, 0.03]);
    let mix = |a: [f32; 3], b: [f32; 3], u: f32| [0, 1, 2].map(|i| a[i] + (b[i] - a[i]) * u);
    let linear = if t < 0.5 { mix(cold, mid, t * 2.0) } else { mix(mid, hot, t * 2.0 - 1.0) };
    let [r, g, b] = linear;
    egui::Color32::from(egui::Rgba::from_rgb(r, g, b))
}
