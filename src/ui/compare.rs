//! Split view: the same time under two interpolation modes, and the largest difference
//! between the two poses.

use anim::InterpolationOverride;

use super::state::CompareModes;
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
        let mut enabled = state.compare.is_some();
        let mut changed = ui.checkbox(&mut enabled, "split view").changed();
        let names = |m: InterpolationOverride| m.name().to_owned();
        changed |= enum_combo(ui, "left", &mut self.modes.left, &InterpolationOverride::ALL, names);
        changed |= enum_combo(ui, "right", &mut self.modes.right, &InterpolationOverride::ALL, names);
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
                ui.label("Turn on the split view to compare two modes at the same time.");
            }
        }
    }
}
