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
