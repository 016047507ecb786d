//! Interpolation override for the clip, rotation and scale spaces, easing, and a live readout of
//! what a "wrong" space does to the current pose.

use anim::{Easing, InterpolationOverride, RotationSpace, ScaleSpace};

use super::{ViewerState, enum_combo};

/// Interpolation settings.
#[derive(Debug, Default)]
pub struct InterpolationPanel;

impl InterpolationPanel {
    /// The selectors and the readout; changes apply to the next frame's pose.
    pub fn interpolation_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        let settings = &mut state.settings;
        let mut changed =
            enum_combo(ui, "override", &mut settings.mode, &InterpolationOverride::ALL, |m| m.name().to_owned());
        changed |= enum_combo(ui, "rotation space", &mut settings.rotation_space, &RotationSpace::ALL, |m| {
            m.name().to_owned()
        });
        changed |= enum_combo(ui, "scale space", &mut settings.scale_space, &ScaleSpace::ALL, |m| m.name().to_owned());
        changed |= enum_combo(ui, "easing", &mut settings.easing, &Easing::ALL, |m| m.name().to_owned());
        if changed {
            state.update_pose();
        }
        channel_override_ui(ui, state);
        colour_space_strip_ui(ui);
        ui.label("Spaces and easing apply where the mode is LINEAR.");
        let Some(effect) = state.wrong_space_effect() else {
            ui.label("No clip: nothing to interpolate.");
            return;
        };
        if effect.min_shrink < 0.999 {
            let node = effect.shrink_node.map(|n| state.node_name(n)).unwrap_or_default();
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("limbs shrink to {:.0}% ({node})", effect.min_shrink * 100.0),
            );
        }
        if effect.max_rotation_error_rad > 1e-4 {
            let node = effect.rotation_node.map(|n| state.node_name(n)).unwrap_or_default();
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("rotations off slerp by up to {:.2}° ({node})", effect.max_rotation_error_rad.to_degrees()),
            );
        }
        if effect.max_scale_error > 1e-4 {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("scales off linear by up to {:.1}%", effect.max_scale_error * 100.0),
            );
        }
        if effect.min_shrink >= 0.999 && effect.max_rotation_error_rad <= 1e-4 && effect.max_scale_error <= 1e-4 {
            ui.label("Current pose matches slerp / linear scale.");
        }
    }
}

/// Override for the selected channel alone (the joint and channel picked in the curves panel).
fn channel_override_ui(ui: &mut egui::Ui, state: &mut ViewerState) {
    let Some(track) = state.selected_track() else {
        ui.weak("Select an animated joint and channel (Curves) to override it alone.");
        return;
    };
    let node = state.selected_joint.map(|n| state.node_name(n)).unwrap_or_default();
    let label = format!("{node} {}", state.selected_property.gltf_name());
    let current = state.channel_mode(track);
    let mut choice = current;
    egui::ComboBox::from_label(format!("channel override ({label})"))
        .selected_text(choice.map_or("same as clip", InterpolationOverride::name))
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut choice, None, "same as clip");
            for mode in InterpolationOverride::ALL {
                ui.selectable_value(&mut choice, Some(mode), mode.name());
            }
        });
    if choice != current {
        state.set_channel_mode(track, choice);
    }
    let overridden: usize = state.channel_modes.values().map(std::collections::BTreeMap::len).sum();
    if overridden > 0 {
        ui.horizontal(|ui| {
            ui.weak(format!("{overridden} channel override(s) in this model"));
            if ui.small_button("Clear all").clicked() {
                state.channel_modes.clear();
                state.update_pose();
            }
        });
    }
}

/// The same fade (saturated red to saturated green-blue) lerped on sRGB-encoded bytes (top) and
/// in linear light (bottom): the sRGB lerp sags into a dark, muddy middle.
fn colour_space_strip_ui(ui: &mut egui::Ui) {
    const STEPS: usize = 48;
    let from = [0.95f32, 0.1, 0.1];
    let to = [0.1f32, 0.8, 0.95];
    ui.label("Colour fade: top lerped in sRGB, bottom in linear light");
    let (rect, _) = ui.allocate_exact_size(egui::vec2(ui.available_width().min(320.0), 28.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    for i in 0..STEPS {
        let u = i as f32 / (STEPS - 1) as f32;
        let x0 = rect.left() + rect.width() * i as f32 / STEPS as f32;
        let x1 = rect.left() + rect.width() * (i + 1) as f32 / STEPS as f32;
        let [top, bottom] = fade_colours(from, to, u);
        let half = rect.center().y;
        painter.rect_filled(egui::Rect::from_x_y_ranges(x0..=x1, rect.top()..=half), 0.0, top);
        painter.rect_filled(egui::Rect::from_x_y_ranges(x0..=x1, half..=rect.bottom()), 0.0, bottom);
    }
}

/// `[sRGB-space lerp, linear-light lerp]` of two sRGB-encoded colours (components in 0..1) at
/// `u`, as displayable colours.
pub fn fade_colours(from: [f32; 3], to: [f32; 3], u: f32) -> [egui::Color32; 2] {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let srgb = [0, 1, 2].map(|c| from[c] + (to[c] - from[c]) * u);
    let linear = [0, 1, 2].map(|c| {
        let (a, b) = (srgb_to_linear(from[c]), srgb_to_linear(to[c]));
        linear_to_srgb(a + (b - a) * u)
    });
    [
        egui::Color32::from_rgb(byte(srgb[0]), byte(srgb[1]), byte(srgb[2])),
        egui::Color32::from_rgb(byte(linear[0]), byte(linear[1]), byte(linear[2])),
    ]
}

/// The sRGB transfer function, decoded (IEC 61966-2-1).
pub fn srgb_to_linear(v: f32) -> f32 {
    if v <= 0.04045 { v / 12.92 } else { ((v + 0.055) / 1.055).powf(2.4) }
}

/// The sRGB transfer function, encoded.
pub fn linear_to_srgb(v: f32) -> f32 {
    if v <= 0.003_130_8 { v * 12.92 } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 }
}
