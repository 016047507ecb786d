//! Split view: the same time under two interpolation modes, and the largest difference
//! between the two poses.

use anim::InterpolationOverride;

use super::state::{CompareLayout, CompareModes};
use super::{ViewerState, enum_combo};

/// The compare panel.
#[derive(Debug, Default)]
pub struct ComparePanel {
    /// Modes used when the split view is turned on.
    pub modes: CompareModes,
}

impl ComparePanel {
    /// The split-view toggle, the two modes and the deviation readout.
    pub fn compare_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        if let Some(modes) = state.compare {
            self.modes = modes;
        }
        let mut enabled = state.compare.is_some();
        let mut changed = ui.checkbox(&mut enabled, "compare two modes").changed();
        let names = |m: InterpolationOverride| m.name().to_owned();
        changed |= enum_combo(ui, "left", &mut self.modes.left, &InterpolationOverride::ALL, names);
        changed |= enum_combo(ui, "right", &mut self.modes.right, &InterpolationOverride::ALL, names);
        ui.horizontal(|ui| {
            changed |= ui.radio_value(&mut self.modes.layout, CompareLayout::Split, "side by side").changed();
            changed |= ui.radio_value(&mut self.modes.layout, CompareLayout::Ghost, "ghost overlay").changed();
        });
        ui.horizontal(|ui| {
            changed |= ui.checkbox(&mut self.modes.heatmap, "deviation heatmap").changed();
            changed |= ui
                .add(
                    egui::Slider::new(&mut self.modes.heat_full_scale, 0.001..=0.2)
                        .logarithmic(true)
                        .text("red at")
                        .custom_formatter(|v, _| format!("{:.1} cm", v * 100.0)),
                )
                .changed();
        });
        if self.modes.heatmap {
            heat_legend_ui(ui, self.modes.heat_full_scale);
        }
        if changed {
            state.compare = enabled.then_some(self.modes);
            state.update_pose();
        }
        match state.compare_deviation() {
            Some(deviation) => {
                let distance_node = state.node_name(deviation.distance_node);
                let angle_node = state.node_name(deviation.angle_node);
                ui.label(format!(
                    "largest deviation: {:.2} cm ({distance_node}), {:.2}° ({angle_node})",
                    deviation.max_distance * 100.0,
                    deviation.max_angle_rad.to_degrees()
                ));
            }
            None => {
                ui.label("Turn on \"compare two modes\" to see both at the same time.");
            }
        }
    }
}

/// The heatmap's colour ramp with its scale (matches `heat_color` in `shaders/mesh.wgsl`).
fn heat_legend_ui(ui: &mut egui::Ui, full_scale: f32) {
    ui.horizontal(|ui| {
        ui.label("0");
        let (rect, _) = ui.allocate_exact_size(egui::vec2(140.0, 12.0), egui::Sense::hover());
        let steps = 28;
        for i in 0..steps {
            let t = i as f32 / (steps - 1) as f32;
            let x0 = rect.left() + rect.width() * i as f32 / steps as f32;
            let x1 = rect.left() + rect.width() * (i + 1) as f32 / steps as f32;
            let r = egui::Rect::from_min_max(egui::pos2(x0, rect.top()), egui::pos2(x1, rect.bottom()));
            ui.painter().rect_filled(r, 0.0, heat_color32(t));
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
