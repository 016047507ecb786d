//! The Crowd panel: crowd mode on or off, its instance count and what a frame costs (the
//! state is the stage's [`CrowdPanel`]).

use anim::{InterpolationOverride, Model};

use crate::crowd::MAX_CROWD;
use crate::stage::crowd::CrowdPanel;

/// Toggle, instance count and the CPU cost readout. Returns true when crowd mode was
/// switched or resized (the viewer then frames the camera).
pub fn crowd_ui(panel: &mut CrowdPanel, ui: &mut egui::Ui, model: &Model, mode: InterpolationOverride) -> bool {
    if let Some(crowd) = &panel.crowd {
        panel.count = crowd.len();
    }
    let mut enabled = panel.crowd.is_some();
    let toggled = ui
        .checkbox(&mut enabled, "crowd mode")
        .on_hover_text("Show many copies of the model, each playing and cross-fading its own clips")
        .changed();
    let slider = ui
        .add(
            egui::Slider::new(&mut panel.count, 1..=MAX_CROWD)
                .update_while_editing(false)
                .logarithmic(true)
                .text("instances"),
        )
        .on_hover_text("Number of characters (applied when the slider is released)");
    let resized = enabled && (slider.drag_stopped() || (slider.changed() && !slider.dragged()));
    let changed = (toggled || resized) && panel.set(model, enabled.then_some(panel.count), mode);
    match &panel.crowd {
        Some(crowd) => {
            ui.label(format!(
                "{} instances × {} joints, {} cross-fading; CPU {:.2} ms per frame on {} threads",
                crowd.len(),
                crowd.palette_stride(),
                crowd.fading(),
                panel.update_ms,
                rayon::current_num_threads()
            ));
            ui.weak("Each instance picks another clip every 2-6 s; the override applies to all.");
        }
        None => {
            ui.weak("Shows many copies of the model, each playing and cross-fading its own clips.");
        }
    }
    changed
}
