//! The viewer's panels (egui), over a plain [`ViewerState`] that tests drive without a window.
//!
//! | module | owns | may import |
//! |---|---|---|
//! | [`state`] | [`ViewerState`]: model, clip, time, settings, fader, camera, selection | anim, render (camera maths only) |
//! | [`viewport`] | the 3D view widget: shows a texture, orbit/pan/zoom input | egui, [`state`] |
//! | [`playback`] | clip list, transport, timeline | egui, [`state`] |
//! | [`interpolation`] | override and rotation/scale space, wrong-space readout | egui, [`state`] |
//! | [`joints`] | the node hierarchy as a tree; selects a joint | egui, [`state`] |
//! | [`curves`] | channel curves, key markers, velocity (`egui_plot`) | egui, `egui_plot`, [`state`] |
//! | [`crossfade`] | fade set-up, trigger, weight plot | egui, `egui_plot`, [`state`] |
//! | [`compare`] | split view modes and pose deviation readout | egui, [`state`] |
//! | [`crowd`] | crowd mode toggle, instance count, CPU cost | egui, [`state`] |
//! | [`ragdoll`] | ragdoll trigger, ramp, get-up, push, colliders, weight plot | egui, `egui_plot`, physics, [`state`] |
//! | [`loading`] | background model loading with progress (std threads; no egui) | anim |
//! | [`gpu_bridge`] | the only egui ↔ renderer bridge: renders [`ViewerState`] into a texture egui shows | `egui_wgpu`, render |
//!
//! The window shell is `crate::app` (winit).

pub mod compare;
pub mod crossfade;
pub mod crowd;
pub mod curves;
pub mod gpu_bridge;
pub mod interpolation;
pub mod joints;
pub mod loading;
pub mod playback;
pub mod ragdoll;
pub mod state;
pub mod stats;
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
    /// Joint tree.
    pub joints: joints::JointsPanel,
    /// Channel curves.
    pub curves: curves::CurvesPanel,
    /// Cross-fades.
    pub crossfade: crossfade::CrossFadePanel,
    /// Split view.
    pub compare: compare::ComparePanel,
    /// Ragdoll handoff.
    pub ragdoll: ragdoll::RagdollPanel,
    /// Crowd mode.
    pub crowd: crowd::CrowdPanel,
    /// The path typed into the "Open" field.
    pub open_path: String,
    /// A native file dialog running on its own thread.
    file_dialog: Option<std::sync::mpsc::Receiver<Option<std::path::PathBuf>>>,
}

impl ViewerUi {
    /// Draw the whole viewer into `ui` (the window's root) and apply keyboard shortcuts.
    pub fn viewer_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        state.poll_loading();
        if state.loading.is_some() {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(50));
        }
        self.poll_file_dialog(ui, state);
        self.dropped_files_ui(ui, state);
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
                egui::CollapsingHeader::new("Joints")
                    .default_open(false)
                    .show(ui, |ui| self.joints.joints_ui(ui, state));
                egui::CollapsingHeader::new("Curves")
                    .default_open(true)
                    .show(ui, |ui| self.curves.curves_ui(ui, state));
                egui::CollapsingHeader::new("Cross-fade")
                    .default_open(true)
                    .show(ui, |ui| self.crossfade.crossfade_ui(ui, state));
                egui::CollapsingHeader::new("Compare")
                    .default_open(true)
                    .show(ui, |ui| self.compare.compare_ui(ui, state));
                egui::CollapsingHeader::new("Ragdoll")
                    .default_open(true)
                    .show(ui, |ui| self.ragdoll.ragdoll_ui(ui, state));
                let aspect = self.viewport.aspect();
                egui::CollapsingHeader::new("Crowd")
                    .default_open(state.crowd.is_some())
                    .show(ui, |ui| self.crowd.crowd_ui(ui, state, aspect));
            });
        });
        egui::CentralPanel::no_frame().show(ui, |ui| self.viewport.viewport_ui(ui, state));
    }

    /// The File menu, model label, the "Open" field, load progress and the last error.
    fn top_bar_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| self.file_menu_ui(ui, state));
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
        });
        if let Some(job) = &state.loading {
            let mut cancel = false;
            ui.horizontal(|ui| {
                let name = job
                    .path
                    .file_name()
                    .map_or_else(|| job.path.display().to_string(), |n| n.to_string_lossy().into_owned());
                let elapsed = job.started.elapsed().as_secs_f32();
                match job.stage() {
                    loading::LoadStage::Reading(fraction) => {
                        ui.add(egui::ProgressBar::new(fraction).desired_width(200.0).text(format!(
                            "reading {name}: {:.0}% of {:.1} MiB",
                            fraction * 100.0,
                            job.total_bytes() as f64 / 1048576.0
                        )));
                    }
                    loading::LoadStage::Importing => {
                        ui.spinner();
                        ui.label(format!("importing {name} ({elapsed:.1} s)"));
                    }
                }
                cancel = ui.small_button("Cancel").clicked();
            });
            if cancel && let Some(job) = state.loading.take() {
                job.cancel();
            }
        }
        if let Some(error) = state.error.clone() {
            ui.horizontal(|ui| {
                ui.colored_label(ui.visuals().error_fg_color, format!("Load failed: {error}"));
                if ui.small_button("Dismiss").clicked() {
                    state.error = None;
                }
            });
        }
    }

    /// File ▸ Open…, Recent, the built-in character, profile export.
    fn file_menu_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        if ui.button("Open...").clicked() {
            self.open_file_dialog();
            ui.close();
        }
        ui.menu_button("Recent", |ui| {
            if state.recent.paths.is_empty() {
                ui.weak("nothing opened yet");
            }
            let mut chosen = None;
            for path in &state.recent.paths {
                let exists = path.exists();
                let button = ui.add_enabled(exists, egui::Button::new(path.display().to_string()));
                if button.clicked() {
                    chosen = Some(path.clone());
                }
            }
            if let Some(path) = chosen {
                state.load(&path);
                ui.close();
            }
        });
        if ui.button("Built-in character").clicked() {
            match anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None) {
                Ok(model) => state.set_model(model, "built-in character".to_owned()),
                Err(error) => state.error = Some(error.to_string()),
            }
            ui.close();
        }
        ui.separator();
        ui.weak("or drop a .glb / .gltf on the window");
    }

    /// Start the native open dialog (rfd) on its own thread so the window keeps drawing.
    fn open_file_dialog(&mut self) {
        let (sender, receiver) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new().name("file dialog".to_owned()).spawn(move || {
            let picked = rfd::FileDialog::new()
                .set_title("Open a glTF model")
                .add_filter("glTF", &["glb", "gltf"])
                .add_filter("all files", &["*"])
                .pick_file();
            let _ = sender.send(picked);
        });
        if spawned.is_ok() {
            self.file_dialog = Some(receiver);
        }
    }

    fn poll_file_dialog(&mut self, ui: &egui::Ui, state: &mut ViewerState) {
        let Some(receiver) = &self.file_dialog else { return };
        match receiver.try_recv() {
            Ok(picked) => {
                self.file_dialog = None;
                if let Some(path) = picked {
                    state.load(&path);
                }
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                ui.ctx().request_repaint_after(std::time::Duration::from_millis(100));
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => self.file_dialog = None,
        }
    }

    /// Open a file dropped on the window; say "drop to open" while one hovers.
    fn dropped_files_ui(&mut self, ui: &mut egui::Ui, state: &mut ViewerState) {
        let (hovered, dropped) = ui
            .input(|i| (!i.raw.hovered_files.is_empty(), i.raw.dropped_files.first().map(|f| f.path().to_path_buf())));
        if let Some(path) = dropped {
            state.load(&path);
        }
        if hovered {
            let painter =
                ui.ctx().layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::unique("drop overlay")));
            let screen = ui.ctx().content_rect();
            painter.rect_filled(screen, 0.0, egui::Color32::from_black_alpha(160));
            painter.text(
                screen.center(),
                egui::Align2::CENTER_CENTER,
                "Drop a .glb or .gltf to open it",
                egui::FontId::proportional(24.0),
                egui::Color32::WHITE,
            );
        }
    }

    /// Space, ←/→, F, T, K, R and G, unless a text field has the keyboard.
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
            let split = state.compare.is_some_and(|c| c.layout == state::CompareLayout::Split);
            let views = if split { 2.0 } else { 1.0 };
            state.frame_camera(self.viewport.aspect() / views);
        }
        if pressed(ui, egui::Key::T) {
            state.trigger_fade();
        }
        if pressed(ui, egui::Key::K) {
            state.skeleton = !state.skeleton;
        }
        if pressed(ui, egui::Key::R) {
            state.trigger_ragdoll();
        }
        if pressed(ui, egui::Key::G) {
            state.ragdoll_get_up();
        }
    }
}

/// A fixed plot of weights in `[0, 1]` over the last `span_secs` of the viewer clock, ending at
/// `now_secs`: `history` holds `[clock seconds, weight of series 0, weight of series 1, ...]`,
/// one series per label.
pub(crate) fn weight_history_ui<const N: usize>(
    ui: &mut egui::Ui,
    id: &str,
    labels: [&str; N],
    history: &std::collections::VecDeque<[f64; N]>,
    now_secs: f64,
    span_secs: f64,
) {
    egui_plot::Plot::new(id)
        .height(85.0)
        .include_x(-span_secs)
        .include_x(0.0)
        .include_y(0.0)
        .include_y(1.0)
        .allow_drag(false)
        .allow_zoom(false)
        .allow_scroll(false)
        .legend(egui_plot::Legend::default().position(egui_plot::Corner::LeftTop))
        .show(ui, |plot_ui| {
            for (series, label) in labels.iter().enumerate().skip(1) {
                let points: Vec<[f64; 2]> = history.iter().map(|row| [row[0] - now_secs, row[series]]).collect();
                plot_ui.line(egui_plot::Line::new(*label, egui_plot::PlotPoints::from(points)));
            }
            plot_ui.vline(egui_plot::VLine::new("now", 0.0).color(egui::Color32::GRAY));
        });
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
