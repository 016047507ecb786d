//! The Crowd panel: turn crowd mode on (N copies of the model on a grid, each with its own clip,
//! phase, speed and cross-fades, skinned with GPU instancing) and read what a frame costs.

use super::ViewerState;

/// The Crowd panel.
#[derive(Debug)]
pub struct CrowdPanel {
    /// Instances used when crowd mode is turned on or resized.
    pub count: usize,
}

impl Default for CrowdPanel {
    fn default() -> Self {
        Self { count: 100 }
    }
}

impl CrowdPanel {
    /// Toggle, instance count and the CPU cost readout. `aspect` is the 3D view's, for framing.
    pub fn crowd_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState, aspect: f32) {
        if let Some(crowd) = &state.crowd {
            self.count = crowd.len();
        }
        let mut enabled = state.crowd.is_some();
        let toggled = ui.checkbox(&mut enabled, "crowd mode").changed();
        let slider =
            ui.add(egui::Slider::new(&mut self.count, 1..=crate::crowd::MAX_CROWD).logarithmic(true).text("instances"));
        let resized = enabled && (slider.drag_stopped() || (slider.changed() && !slider.dragged()));
        if toggled || resized {
            state.set_crowd(enabled.then_some(self.count), aspect);
        }
        match &state.crowd {
            Some(crowd) => {
                ui.label(format!(
                    "{} instances × {} joints, {} cross-fading; CPU {:.2} ms per frame on {} threads",
                    crowd.len(),
                    crowd.palette_stride(),
                    crowd.fading(),
                    state.crowd_update_ms,
                    rayon::current_num_threads()
                ));
                ui.weak("Each instance picks another clip every 2-6 s; the override applies to all.");
            }
            None => {
                ui.weak("Shows many copies of the model, each playing and cross-fading its own clips.");
            }
        }
    }
}
