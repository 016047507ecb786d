//! The viewer's panels (egui), over a plain [`ViewerState`] that tests drive without a window.
//!
//! | module | owns | may import |
//! |---|---|---|
//! | [`state`] | [`ViewerState`]: model, clip, time, settings, fader, camera, selection | anim, render (camera maths only) |
//! | [`viewport`] | the 3D view widget: shows a texture, orbit/pan/zoom input | egui, [`state`] |
//! | [`playback`] | clip list, transport, timeline | egui, [`state`] |
//! | [`interpolation`] | override and rotation/scale space, wrong-space readout | egui, [`state`] |
//! | [`curves`] | channel curves, key markers, velocity (`egui_plot`) | egui, `egui_plot`, [`state`] |
//! | [`crossfade`] | fade set-up, trigger, weight plot | egui, `egui_plot`, [`state`] |
//! | [`compare`] | split view modes and pose deviation readout | egui, [`state`] |
//! | [`gpu_bridge`] | the only egui ↔ renderer bridge: renders [`ViewerState`] into a texture egui shows | `egui_wgpu`, render |
//!
//! The window shell is `crate::app` (winit).

pub mod compare;
pub mod crossfade;
pub mod curves;
pub mod gpu_bridge;
pub mod interpolation;
pub mod playback;
pub mod state;
pub mod viewport;

pub use state::ViewerState;

/// Every panel of the viewer, laid out around the 3D view.
#[derive(Debug, Default)]
pub struct ViewerUi {
    /// The 3D view.
    pub viewport: viewport::ViewportPanel,
    /// Clips and transport.
    pub playback: playback::PlaybackPanel,
    /// Interpolation override and spaces.
    pub interpolation: interpolation::InterpolationPanel,
    /// Channel curves.
    pub curves: curves::CurvesPanel,
    /// Cross-fades.
    pub crossfade: crossfade::CrossFadePanel,
    /// Split view.
    pub compare: compare::ComparePanel,
    /// The path typed into the "Open" field.
    pub open_path: String,
}

impl ViewerUi {
    /// Draw the whole viewer into `ui` (the window's root) and apply keyboard shortcuts.
    pub fn viewer_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        self.shortcuts_ui(ui, state);
        egui::Panel::top("top bar").show(ui, |ui| self.top_bar_ui(ui, state));
        egui::Panel::bottom("transport").show(ui, |ui| self.playback.transport_ui(ui, state));
        egui::Panel::right("side panel").default_size(380.0).resizable(true).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| {
                egui::CollapsingHeader::new("Clips")
                    .default_open(true)
                    .show(ui, |ui| self.playback.clips_ui(ui, state));
                egui::CollapsingHeader::new("Interpolation")
                    .default_open(true)
                    .show(ui, |ui| self.interpolation.interpolation_ui(ui, state));
                egui::CollapsingHeader::new("Curves")
                    .default_open(true)
                    .show(ui, |ui| self.curves.curves_ui(ui, state));
                egui::CollapsingHeader::new("Cross-fade")
                    .default_open(true)
                    .show(ui, |ui| self.crossfade.crossfade_ui(ui, state));
                egui::CollapsingHeader::new("Compare")
                    .default_open(true)
                    .show(ui, |ui| self.compare.compare_ui(ui, state));
            });
        });
        egui::CentralPanel::no_frame().show(ui, |ui| self.viewport.viewport_ui(ui, state));
    }

    /// Model label, the "Open" field and the last error.
    fn top_bar_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        ui.horizontal(|ui| {
            ui.strong("animtune");
            ui.label(format!("model: {}", state.model_label));
            ui.separator();
            ui.label("Open:");
            let field = ui.add(
                egui::TextEdit::singleline(&mut self.open_path).hint_text("path/to/model.glb").desired_width(260.0),
            );
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.button("Load").clicked() || entered) && !self.open_path.trim().is_empty() {
                state.load(std::path::Path::new(self.open_path.trim()));
            }
            if ui.button("Built-in character").clicked() {
                match anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None) {
                    Ok(model) => state.set_model(model, "built-in character".to_owned()),
                    Err(error) => state.error = Some(error.to_string()),
                }
            }
        });
        if let Some(error) = state.error.clone() {
            ui.horizontal(|ui| {
                ui.colored_label(ui.visuals().error_fg_color, format!("Load failed: {error}"));
                if ui.small_button("Dismiss").clicked() {
                    state.error = None;
                }
            });
        }
    }

    /// Space, ←/→, F, T and K, unless a text field has the keyboard.
    fn shortcuts_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        if ui.ctx().text_edit_focused() {
            return;
        }
        let none = egui::Modifiers::NONE;
        let pressed = |ui: &mut egui::Ui, key: egui::Key| ui.input_mut(|i| i.consume_key(none, key));
        if pressed(ui, egui::Key::Space) {
            state.playing = !state.playing;
        }
        if pressed(ui, egui::Key::ArrowLeft) {
            state.step_frames(-1);
        }
        if pressed(ui, egui::Key::ArrowRight) {
            state.step_frames(1);
        }
        if pressed(ui, egui::Key::F) {
            // The split view halves the width of each view.
            let views = if state.compare.is_some() { 2.0 } else { 1.0 };
            state.frame_camera(self.viewport.aspect() / views);
        }
        if pressed(ui, egui::Key::T) {
            state.trigger_fade();
        }
        if pressed(ui, egui::Key::K) {
            state.skeleton = !state.skeleton;
        }
    }
}

/// A combo box over `options`, showing each with `name`. Returns true when the value changed.
pub(crate) fn enum_combo<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut T,
    options: &[T],
    name: impl Fn(T) -> String,
) -> bool {
    let before = *value;
    egui::ComboBox::from_label(label).selected_text(name(*value)).show_ui(ui, |ui| {
        for &option in options {
            ui.selectable_value(value, option, name(option));
        }
    });
    *value != before
}

#[cfg(test)]
mod tests;
