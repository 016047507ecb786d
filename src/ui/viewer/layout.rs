//! The window's layout: top bar (menus, path field, messages), status bar, transport bar,
//! side panel sections, the 3D view, dropped files and the keyboard shortcuts.

use super::*;

/// A background load's progress on the status bar (`what` before the file name); true when
/// its Cancel was clicked.
fn load_progress_ui(ui: &mut egui::Ui, job: &LoadJob, what: &str) -> bool {
    let name =
        job.path.file_name().map_or_else(|| job.path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let elapsed = job.started.elapsed().as_secs_f32();
    let cancel = ui.small_button("Cancel").on_hover_text("Stop loading; what is on screen stays").clicked();
    match job.stage() {
        LoadStage::Reading(fraction) => {
            ui.add(egui::ProgressBar::new(fraction).desired_width(200.0).text(format!(
                "reading {what}{name}: {:.0}% of {:.1} MiB",
                fraction * 100.0,
                job.total_bytes() as f64 / 1048576.0
            )));
        }
        LoadStage::Importing => {
            ui.spinner();
            ui.label(format!("importing {what}{name} ({elapsed:.1} s)"));
        }
    }
    cancel
}

impl Viewer {
    /// Apply a finished background load of the retarget source file (its failure, naming the
    /// file, goes to the status bar; the model on screen and the source before it stay).
    pub fn poll_retarget_source(&mut self) {
        let stage = self.stage.parts();
        if let Some(Err(error)) = self.retarget.poll_loading(stage.model, &stage.tuning.retarget_edits) {
            self.error = Some(format!("Retarget from file: {error}"));
        }
    }

    /// Block until the retarget source file loaded, then apply it as
    /// [`Self::poll_retarget_source`] does; false when nothing was loading.
    pub fn wait_for_retarget_source(&mut self) -> bool {
        let stage = self.stage.parts();
        match self.retarget.wait_for_loading(stage.model, &stage.tuning.retarget_edits) {
            None => false,
            Some(Ok(())) => true,
            Some(Err(error)) => {
                self.error = Some(format!("Retarget from file: {error}"));
                true
            }
        }
    }

    /// Draw the whole viewer into `ui` (the window's root), apply shortcuts and actions,
    /// record tuning changes for undo, save the profile when it changed, and compute the frame.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.poll_loading();
        let reload_pending = self.poll_hot_reload();
        let recording = self.poll_recording();
        if self.ab.poll_loading(self.stage.model()) {
            self.frame_camera();
        }
        self.poll_retarget_source();
        let recording = recording || self.ab.loading.is_some() || self.retarget.loading.is_some();
        if self.loading.is_some() || reload_pending || recording {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(50));
        }
        if let Some(action) = self.file.poll(ui.ctx()) {
            self.apply_file_action(action);
        }
        self.dropped_files_ui(ui);
        self.shortcuts_ui(ui);
        self.drive_ui(ui);
        egui::Panel::top("top bar").show(ui, |ui| self.top_bar_ui(ui));
        egui::Panel::bottom("status").exact_size(STATUS_BAR_HEIGHT).show(ui, |ui| self.status_bar_ui(ui));
        egui::Panel::bottom("transport").show(ui, |ui| {
            // The clip on screen: the live one, or the rewound frame's (its keys, markers, time).
            let shown = self.stage.shown();
            let shown_clip = shown.clip;
            let rewound = shown.rewound_secs.map(|secs_before_live| crate::ui::playback::RewoundPlayhead {
                secs_before_live,
                clip_secs: shown.clip_secs,
                duration_secs: shown_clip
                    .and_then(|c| self.stage.model().clip(c))
                    .map_or(0.0, anim::Clip::duration_secs),
            });
            let clip = shown_clip.and_then(|c| self.stage.model().clip(c));
            let mut keys: Vec<f32> = clip
                .map(|c| c.timelines().iter().flat_map(|t| t.times_secs.iter().copied()).collect())
                .unwrap_or_default();
            keys.sort_by(f32::total_cmp);
            let selected = self
                .stage
                .selection
                .track(self.stage.model(), shown_clip)
                .and_then(|t| clip?.timelines().get(clip?.track(t)?.timeline))
                .map(|t| t.times_secs.clone())
                .unwrap_or_default();
            // The clip's foot-contact markers (edited ones from the profile, else found),
            // draggable on the timeline; an edit is stored in the tuning (and so the profile).
            let mut markers = match shown_clip {
                Some(c) => self.crossfade.named_contacts(self.stage.model(), &self.stage.tuning.clip_extras, c),
                None => Vec::new(),
            };
            let transport = &mut self.stage.transport;
            if crate::ui::playback::transport_ui(ui, transport, rewound, &keys, &selected, &mut markers)
                && let Some(c) = self.stage.transport.clip()
            {
                let name = self.stage.model().clip(c).map_or_else(String::new, |k| k.display_name(c.index()));
                let contacts = markers
                    .into_iter()
                    .map(|(foot, time_secs)| crate::profile::ContactMarker { foot, time_secs })
                    .collect();
                let extras = &mut self.stage.tuning.clip_extras.markers;
                extras.retain(|m| m.clip != name);
                extras.push(crate::profile::ClipMarkers { clip: name, contacts });
            }
            crate::ui::rewind::rewind_bar_ui(ui, &mut self.stage);
        });
        let panel = egui::Panel::right("side panel")
            .resizable(true)
            .default_size(self.side_panel_width)
            .size_range(SIDE_PANEL_WIDTH)
            .show(ui, |ui| self.side_panel_ui(ui));
        self.machine_graph_ui(ui.ctx());
        if !ui.input(|i| i.pointer.any_down()) {
            self.side_panel_width = panel.response.rect.width().round();
            self.save_settings();
        }
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let labels = self.view_labels();
            self.viewport.floor_y = self.stage.ground_height();
            let (click, rect) = self.viewport.viewport_ui(ui, &labels);
            if let Some(joint) = click.and_then(|click| self.pick_joint_at(click)) {
                self.stage.selection.joint = Some(joint);
            }
            if self.overlays.stats_visible {
                let profile = self.profile.path().map_or_else(|| "none".to_owned(), |p| p.display().to_string());
                let labels = self.viewport.label_rects;
                self.overlays.stats_ui(
                    &ui.painter_at(rect),
                    rect,
                    &self.stage.source().short_name(),
                    &profile,
                    &labels,
                );
            }
        });
        // A drag or a typed number becomes one step when it ends (Enter or focus loss).
        let settled = !ui.input(|i| i.pointer.any_down()) && !ui.ctx().text_edit_focused();
        self.stage.history.commit(&self.stage.tuning, settled);
        self.save_profile(false);
        let step_started = crate::stage::stats::PhaseClock::start();
        self.compute_frame();
        let (step, ui) = (crate::stage::stats::Phase::StageStep, crate::stage::stats::Phase::UiBuild);
        self.overlays.stats.add_nested_phase(step, ui, step_started.elapsed());
    }

    /// The state machine's graph window, when open; what the user did there is applied as the
    /// section's actions are.
    fn machine_graph_ui(&mut self, ctx: &egui::Context) {
        if !self.machine_panel.graph.open {
            return;
        }
        let names = crate::stage::machine::state_names(self.stage.model());
        let shown = self.stage.shown();
        let panel = &mut self.machine_panel;
        let action = crate::ui::machine_graph::graph_window(
            ctx,
            self.stage.machine(),
            &shown,
            &mut panel.graph,
            &mut panel.forms,
            &names,
        );
        if let Some(action) = action {
            self.apply_machine_action(action);
        }
    }

    /// The side panel: profile, clips, interpolation, joints, curves, cross-fade, compare,
    /// ragdoll, crowd. Wide content scrolls instead of widening the panel.
    pub(super) fn side_panel_ui(&mut self, ui: &mut egui::Ui) {
        let focus = self.focus_panel.take();
        let mut shown = Vec::with_capacity(Panel::ALL.len());
        let scroll = egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
            ui.set_max_width(ui.available_width());
            section(ui, (focus, &mut shown), Panel::Profile, "Profile", true, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.label("Model:");
                    ui.strong(self.stage.source().short_name()).on_hover_text(&self.stage.source().label);
                });
                let action =
                    self.profile.profile_ui(ui, self.stage.history.undo_steps(), self.stage.history.redo_steps());
                match action {
                    Some(ProfileAction::Export) => self.file.request(PathPurpose::ExportProfile),
                    Some(ProfileAction::Import) => self.file.request(PathPurpose::ImportProfile),
                    Some(ProfileAction::Undo) => _ = self.undo(),
                    Some(ProfileAction::Redo) => _ = self.redo(),
                    None => {}
                }
            });
            section(ui, (focus, &mut shown), Panel::Clips, "Clips", true, |ui| {
                let stage = self.stage.parts();
                crate::ui::playback::clips_ui(ui, stage.transport, stage.model);
            });
            section(ui, (focus, &mut shown), Panel::Interpolation, "Interpolation", true, |ui| {
                let stage = self.stage.parts();
                if stage.tuning.interpolation_ui(ui, stage.model, stage.transport, stage.selection) {
                    self.file.bake_name = self.bake_file_name();
                    self.file.request(PathPurpose::BakeClip);
                }
            });
            section(ui, (focus, &mut shown), Panel::Joints, "Joints", false, |ui| {
                let stage = self.stage.parts();
                let shown = stage.frame.layers.mask_in_tree;
                let spec = shown.and_then(|i| stage.tuning.clip_extras.layers.get(i));
                let edit = self.joints.joints_ui(ui, stage.model, stage.transport.clip(), stage.selection, spec);
                // A weight set in the tree goes into the layer's mask, by joint name.
                if let (Some(edit), Some(layer)) =
                    (edit, shown.and_then(|i| stage.tuning.clip_extras.layers.get_mut(i)))
                {
                    let node = stage.model.node(edit.node);
                    let joint = node.and_then(|n| n.name.clone()).unwrap_or_else(|| edit.node.to_string());
                    layer.paint(joint, edit.weight, edit.subtree);
                }
            });
            section(ui, (focus, &mut shown), Panel::Curves, "Curves", true, |ui| {
                self.curves.curves_ui(ui, self.stage.parts());
            });
            section(ui, (focus, &mut shown), Panel::CrossFade, "Cross-fade", true, |ui| {
                let names = self.clip_names();
                let stage = self.stage.parts();
                match self.crossfade.crossfade_ui(ui, stage, &names) {
                    Some(CrossFadeAction::Trigger) => self.trigger_fade(),
                    Some(CrossFadeAction::SetUp { from, to }) => {
                        self.stage.transport.play_from_start(from);
                        self.stage.set_fade_target(to);
                    }
                    None => {}
                }
            });
            section(ui, (focus, &mut shown), Panel::StateMachine, "State machine", false, |ui| {
                let names = crate::stage::machine::state_names(self.stage.model());
                // The keys are the tuning's; taken out while the section edits them (no allocation).
                let mut keys = std::mem::take(&mut self.stage.tuning.machine_keys);
                let shown = self.stage.shown();
                let panel = &mut self.machine_panel;
                panel.forms.set_joints(self.stage.model(), self.stage.generation());
                let action =
                    super::super::machine::machine_ui(ui, self.stage.machine(), &shown, panel, &mut keys, &names);
                self.stage.tuning.machine_keys = keys;
                if let Some(action) = action {
                    self.apply_machine_action(action);
                }
            });
            section(ui, (focus, &mut shown), Panel::Compare, "Compare", true, |ui| {
                let stage = self.stage.parts();
                let deviation = stage.frame.deviation();
                crate::ui::compare::compare_ui(
                    stage.compare,
                    ui,
                    stage.model,
                    stage.generation,
                    stage.transport.clip(),
                    stage.tuning,
                    deviation,
                );
                ui.separator();
                ui.strong("A/B: two files");
                let clip = self.stage.transport.clip();
                let settings = self.stage.tuning.sampling_or_authored(clip);
                if self.ab.ab_ui(ui, self.stage.model(), self.stage.generation(), clip, settings) {
                    self.file.request(PathPurpose::OpenSecond);
                }
                if self.ab.active() && self.stage.compare.enabled {
                    ui.weak("A | B is shown instead of the two modes while both are on.");
                }
                egui::CollapsingHeader::new("Retarget from file…").default_open(false).show(ui, |ui| {
                    let stage = self.stage.parts();
                    let (show, save) = self.retarget.retarget_ui(ui, stage.model, &mut stage.tuning.retarget_edits);
                    if let Some(show) = show {
                        let source = self.stage.source().clone();
                        self.replace_model_keeping_state(show.target, source);
                        self.stage.transport.select_clip(show.clip);
                        self.ab.set_second(self.stage.model(), &show.source_path, show.source);
                    }
                    if let Some(out) = save {
                        match self.retarget.save_file(self.stage.source().path.as_deref(), &out) {
                            Ok(message) => self.file.message = Some(message),
                            Err(e) => self.error = Some(format!("Save retargeted clips: {e:#}")),
                        }
                    }
                });
            });
            egui::CollapsingHeader::new("Compare transition kinds").default_open(false).show(ui, |ui| {
                let from = self.stage.transport.clip();
                let names = self.clip_names();
                let name = |c: Option<anim::ClipId>| c.and_then(|c| names.get(c.index())).map_or("?", String::as_str);
                let pair = format!("{} -> {}", name(from), name(Some(self.stage.fade_target)));
                let source_secs = from.and_then(|c| self.stage.model().clip(c)).map_or(0.0, anim::Clip::end_secs);
                crate::ui::kind_compare::kinds_ui(&mut self.stage.compare.kinds, ui, &pair, source_secs);
            });
            egui::CollapsingHeader::new("Layers").default_open(false).show(ui, |ui| {
                let selected = self.stage.selection.joint;
                let shown = self.stage.shown();
                let weights: Vec<f32> =
                    (0..self.stage.tuning.clip_extras.layers.len()).map(|i| shown.layer_weight(i)).collect();
                let rewound = shown.rewound_secs;
                let (model, tuning, layers) = self.stage.layer_parts();
                crate::ui::layers::layers_ui(ui, model, tuning, layers, selected, (&weights, rewound));
            });
            egui::CollapsingHeader::new("Blend space").default_open(false).show(ui, |ui| {
                let (model, tuning, layers) = self.stage.layer_parts();
                if self.blend_space.blend_space_ui(ui, model, tuning, layers) {
                    self.stage.fade_to_blend_space();
                }
            });
            section(ui, (focus, &mut shown), Panel::Ragdoll, "Ragdoll", true, |ui| {
                let names = self.clip_names();
                let stage = self.stage.parts();
                let model = stage.model;
                let node_name = |n: anim::NodeId| crate::profile::node_display_name(model, n);
                let (selected, clock) = (stage.selection.joint, stage.transport.clock_secs());
                let action = crate::ui::ragdoll::ragdoll_ui(
                    stage.ragdoll,
                    ui,
                    &mut stage.tuning.ragdoll,
                    &names,
                    node_name,
                    selected,
                    clock,
                );
                match action {
                    Some(RagdollAction::GoLimp) => _ = self.go_limp(),
                    Some(RagdollAction::GetUp) => _ = self.get_up(),
                    Some(RagdollAction::ResetPlacement) => self.reset_placement(),
                    None => {}
                }
            });
            section(ui, (focus, &mut shown), Panel::Record, "Record clip", false, |ui| {
                let clip = self.stage.transport.clip().map(|c| {
                    let end_secs = self.stage.model().clip(c).map_or(0.0, anim::Clip::end_secs);
                    (self.stage.transport.clip_name(c), end_secs)
                });
                if self.recorder.record_ui(ui, clip) {
                    let name = format!(
                        "{}-{}",
                        self.stage.source().stem().unwrap_or_else(|| "character".to_owned()),
                        clip.map_or("rest", |(n, _)| n)
                    );
                    self.file.record_name = self.recorder.suggested_name(&name);
                    self.file.request(PathPurpose::RecordClip);
                }
            });
            let crowd_open = self.stage.crowd.crowd.is_some();
            section(ui, (focus, &mut shown), Panel::Crowd, "Crowd", crowd_open, |ui| {
                let stage = self.stage.parts();
                if crate::ui::crowd::crowd_ui(stage.crowd, ui, stage.model, stage.tuning.interpolation().mode) {
                    self.frame_camera();
                }
            });
        });
        self.panel_in_view = panel_in_view(&shown, &scroll);
    }

    /// Menus, the path field, load progress, messages and the last error.
    pub(super) fn top_bar_ui(&mut self, ui: &mut egui::Ui) {
        let mut file_action = None;
        // A plain row, not a menu bar: its buttons keep their frames (the field's Load button).
        ui.horizontal(|ui| {
            ui.menu_button("File", |ui| file_action = self.file.menu_ui(ui));
            ui.menu_button("Edit", |ui| {
                let undo = egui::Button::new("Undo").shortcut_text("Ctrl+Z");
                if ui.add_enabled(self.stage.history.undo_steps() > 0, undo).clicked() {
                    self.undo();
                    ui.close();
                }
                let redo = egui::Button::new("Redo").shortcut_text("Ctrl+Shift+Z");
                if ui.add_enabled(self.stage.history.redo_steps() > 0, redo).clicked() {
                    self.redo();
                    ui.close();
                }
            });
            ui.menu_button("View", |ui| {
                ui.checkbox(&mut self.overlays.skeleton, "Skeleton (K)");
                ui.checkbox(&mut self.overlays.trajectory, "Trajectory")
                    .on_hover_text("The root's path over the clip (cyan) and its trail through fades and loops (orange), on the ground");
                ui.checkbox(&mut self.stage.ragdoll.show_colliders, "Ragdoll colliders");
                ui.checkbox(&mut self.overlays.stats_visible, "Stats overlay (F3)");
                if ui.button("Frame what is drawn (F)").clicked() {
                    self.frame_camera();
                    ui.close();
                }
                ui.separator();
                if ui
                    .button("Copy command line")
                    .on_hover_text(
                        "A command line that opens animtune on this file, clip, time, joint and view: send it to \
                         a colleague to show them what you see",
                    )
                    .clicked()
                {
                    let line = self.command_line();
                    ui.ctx().copy_text(line.clone());
                    self.file.message = Some(format!("Copied: {line}"));
                    ui.close();
                }
            });
            ui.separator();
            if let Some(action) = self.file.path_field_ui(ui) {
                file_action = Some(action);
            }
            ui.separator();
            self.hot_reload.hot_reload_ui(ui);
        });
        if let Some(action) = file_action {
            self.apply_file_action(action);
        }
    }

    /// The status bar: a background load's progress, else the last error, else the last
    /// message, on one line of fixed height (long text truncated, whole on hover), so that
    /// nothing above or beside it moves when one appears.
    pub(super) fn status_bar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_centered(|ui| {
            if let Some(job) = &self.loading {
                if load_progress_ui(ui, job, "")
                    && let Some(job) = self.loading.take()
                {
                    job.cancel();
                }
                return;
            }
            if let Some(job) = &self.retarget.loading {
                if load_progress_ui(ui, job, "retarget source ")
                    && let Some(job) = self.retarget.loading.take()
                {
                    job.cancel();
                }
                return;
            }
            let (text, color, is_error) = match (&self.error, &self.file.message) {
                (Some(error), _) => (error.clone(), ui.visuals().error_fg_color, true),
                (None, Some(message)) => (message.clone(), ui.visuals().warn_fg_color, false),
                (None, None) => return,
            };
            if ui.small_button("Dismiss").clicked() {
                if is_error {
                    self.error = None;
                } else {
                    self.file.message = None;
                }
            }
            ui.add(egui::Label::new(egui::RichText::new(text.as_str()).color(color)).truncate()).on_hover_text(text);
        });
    }

    /// Open a file dropped on the window; say "drop to open" while one hovers.
    pub(super) fn dropped_files_ui(&mut self, ui: &mut egui::Ui) {
        let (hovered, dropped) = ui
            .input(|i| (!i.raw.hovered_files.is_empty(), i.raw.dropped_files.first().map(|f| f.path().to_path_buf())));
        if let Some(path) = dropped {
            self.load(&path);
        }
        if hovered {
            let painter =
                ui.ctx().layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new("drop overlay")));
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

    /// The keyboard shortcuts of [`SHORTCUTS`] (the one table, also printed into the docs): each
    /// tried in order; those not marked `in_text_fields` only while no text field has the keyboard.
    pub(super) fn shortcuts_ui(&mut self, ui: &mut egui::Ui) {
        for shortcut in SHORTCUTS {
            if (!shortcut.in_text_fields && ui.ctx().text_edit_focused()) || shortcut.action.is_held() {
                continue;
            }
            // Esc is the rewind's only while rewound (menus and popups close with it otherwise).
            if shortcut.action == ShortcutAction::ResumeLive && !self.stage.is_rewound() {
                continue;
            }
            let pressed = shortcut.keys.iter().any(|&(modifiers, key)| ui.input_mut(|i| i.consume_key(modifiers, key)));
            if pressed {
                self.run_shortcut(shortcut.action);
            }
        }
    }

    /// The state machine's drive keys ([`ShortcutAction::is_held`]): W held requests the walk
    /// state, Shift with it the run state, the release the rest state — once per change, not
    /// every frame — and the parameters' key bindings; not while a text field has the
    /// keyboard. The drive keys do nothing when the machine has no rest and walk states.
    /// Allocates nothing.
    pub(super) fn drive_ui(&mut self, ui: &mut egui::Ui) {
        if ui.ctx().text_edit_focused() {
            return;
        }
        let (walk_down, shift_down) = ui.input(|i| (i.key_down(super::super::shortcuts::DRIVE_KEY), i.modifiers.shift));
        let states = super::super::machine::DriveStates::of(
            self.stage.machine().machine(),
            &self.stage.tuning.machine_keys.drive,
        );
        if let Some(state) = self.machine_panel.drive.update(walk_down, shift_down, states) {
            self.request_state(state);
        }
        for i in 0..self.stage.tuning.machine_keys.bindings.len() {
            let binding = &self.stage.tuning.machine_keys.bindings[i];
            let Some(key) = egui::Key::from_name(&binding.key) else { continue };
            let Some(bit) = super::super::machine_keys::key_bit(key) else { continue };
            let down = ui.input(|input| input.key_down(key) && !input.modifiers.command);
            let was_down = self.machine_panel.held_keys & bit != 0;
            let change =
                super::super::machine_keys::binding_change(binding, was_down, down, self.stage.machine().machine());
            let held = &mut self.machine_panel.held_keys;
            *held = if down { *held | bit } else { *held & !bit };
            if let Some(change) = change {
                self.apply_machine_action(change.into());
            }
        }
    }

    /// Do what a keyboard shortcut says.
    pub(super) fn run_shortcut(&mut self, action: ShortcutAction) {
        match action {
            ShortcutAction::Quit => self.quit_requested = true,
            ShortcutAction::Open => {
                self.file.request(PathPurpose::OpenModel);
            }
            ShortcutAction::Redo => {
                self.redo();
            }
            ShortcutAction::Undo => {
                self.undo();
            }
            ShortcutAction::PlayPause => self.stage.transport.toggle_play(),
            // While rewound the arrows step through the stored frames, not the live clip.
            ShortcutAction::StepBack if self.stage.is_rewound() => _ = self.stage.step_rewind(-1),
            ShortcutAction::StepForward if self.stage.is_rewound() => _ = self.stage.step_rewind(1),
            ShortcutAction::StepBack => self.stage.transport.step_frames(-1),
            ShortcutAction::StepForward => self.stage.transport.step_frames(1),
            ShortcutAction::ResumeLive => self.stage.resume_live(),
            ShortcutAction::FirstFrame => self.stage.transport.go_to_start(),
            ShortcutAction::LastFrame => self.stage.transport.go_to_end(),
            ShortcutAction::FrameCamera => self.frame_camera(),
            ShortcutAction::Transition => self.trigger_fade(),
            ShortcutAction::Skeleton => self.overlays.skeleton = !self.overlays.skeleton,
            ShortcutAction::GoLimp => {
                self.go_limp();
            }
            ShortcutAction::GetUp => {
                self.get_up();
            }
            ShortcutAction::Stats => self.overlays.stats_visible = !self.overlays.stats_visible,
            ShortcutAction::View(angle) => self.viewport.look_from(angle),
            // Held keys: `drive_ui`.
            ShortcutAction::Drive(_) => {}
        }
    }
}
