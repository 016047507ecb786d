//! Opening models: an open, a background load, a hot reload (all through the same profile
//! switch), the built-in character, and saving the profile and viewer settings.

use super::*;

impl Viewer {
    /// Open `model` from `source`. A model of the same identity as the one on screen (the same
    /// rig, e.g. the built-in character and `assets/mannequin.glb`, or a re-export) keeps the
    /// viewer's state ([`Self::replace_model_keeping_state`]); another model starts fresh with
    /// its own profile, or with authored settings when it has none.
    pub fn open_model(&mut self, model: Model, source: ModelSource) {
        let identity = ModelIdentity::of(&model, source.stem().as_deref());
        if identity == *self.profile.identity() {
            self.replace_model_keeping_state(model, source);
        } else {
            self.switch_model(model, source, identity);
        }
        self.file.show_model(self.stage.source().path.as_deref());
    }

    /// Another model: save this one's profile, then everything model-specific starts over
    /// from the new model's profile (nothing leaks from the previous model).
    pub(super) fn switch_model(&mut self, model: Model, source: ModelSource, identity: ModelIdentity) {
        self.save_profile(true);
        let (profile, tuning) = ProfileStore::open(self.config_dir.clone(), &model, identity, &source.label);
        self.profile = profile;
        self.crossfade = CrossFadePanel::default();
        self.ab.a_changed(&model);
        self.stage.switch_model(model, source, tuning);
        self.error = None;
        self.file.export_name = self.profile.identity().name.clone();
        self.viewport.set_facing(crate::physics::anatomy::facing_direction(self.stage.model()));
        self.frame_camera();
    }

    /// Put `model` (the same identity as the one on screen: a reload or re-export of the same
    /// rig) on screen and carry the state over: the tuning (through the profile's names, so
    /// clips and channels are matched by name), the clip and time, the selection, the camera,
    /// compare, overlays and crowd size. This is the operation hot reload builds on.
    pub fn replace_model_keeping_state(&mut self, model: Model, source: ModelSource) {
        let bounds_before = self.stage.bounds_on_screen();
        let profile = self.profile.profile_of(&self.stage.tuning, self.stage.model());
        let (tuning, _) = profile.to_tuning(&model);
        self.crossfade = CrossFadePanel::default();
        self.ab.a_changed(&model);
        self.stage.replace_model(model, source, tuning);
        self.error = None;
        // The camera stays for the same character; one that moved or changed size is re-framed.
        if bounds_differ(&bounds_before, &self.stage.bounds_on_screen()) {
            self.frame_camera();
        }
    }

    /// Start loading `path` in the background (replacing a load in progress); the current
    /// model stays until [`Self::poll_loading`] finds the new one ready. On failure the current
    /// model stays and the error is shown.
    pub fn load(&mut self, path: &Path) {
        if let Some(job) = self.loading.take() {
            job.cancel();
        }
        self.loading = Some(LoadJob::start(path, anim::import::Limits::default()));
    }

    /// Apply a finished background load. Returns true when the model changed.
    pub fn poll_loading(&mut self) -> bool {
        let Some(outcome) = self.loading.as_ref().and_then(LoadJob::poll) else { return false };
        self.finish_loading(outcome)
    }

    /// Wait for the background load (if any) and apply it. Returns true when the model changed.
    pub fn wait_for_loading(&mut self) -> bool {
        let Some(outcome) = self.loading.as_ref().map(LoadJob::wait) else { return false };
        self.finish_loading(outcome)
    }

    pub(super) fn finish_loading(&mut self, outcome: Result<Model, String>) -> bool {
        let Some(job) = self.loading.take() else { return false };
        match outcome {
            Ok(model) => {
                self.open_model(model, ModelSource::file(&job.path));
                self.file.recent.add(&job.path);
                if let Some(dir) = &self.config_dir
                    && let Err(error) = self.file.recent.save(&recent_files_path(dir))
                {
                    self.error = Some(format!("recent files not saved: {error:#}"));
                }
                true
            }
            Err(error) => {
                self.error = Some(format!("Load failed: {error}"));
                false
            }
        }
    }

    /// Watch the file on screen (when hot reload is on) and apply a finished reload: a model
    /// that loaded replaces the one on screen keeping the state; one that did not leaves the
    /// model on screen with the error shown. Returns true when a reload is pending (the UI
    /// should come back soon).
    pub fn poll_hot_reload(&mut self) -> bool {
        self.hot_reload.sync(self.stage.source().path.as_deref());
        let mut pending = false;
        match self.hot_reload.poll(std::time::Instant::now(), &mut pending) {
            Some(Ok(model)) => {
                // The same switch as an open: another rig written over the file gets its own
                // profile (nothing of this one's is applied to it or written for it).
                let source = self.stage.source().clone();
                self.open_model(model, source);
                self.hot_reload.rewatch();
            }
            Some(Err(error)) => {
                self.error = Some(format!(
                    "Reload of {} failed; the model on screen is kept (the next complete save loads): {error}",
                    self.stage.source().short_name()
                ));
            }
            None => {}
        }
        pending
    }

    /// Open the built-in character.
    pub fn open_built_in(&mut self) {
        match anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None) {
            Ok(model) => self.open_model(model, ModelSource::built_in()),
            Err(error) => self.error = Some(format!("The built-in character did not load: {error}")),
        }
    }

    /// Save the profile when the tuning changed (`now`: even within the half-second throttle).
    pub fn save_profile(&mut self, now: bool) {
        self.profile.save_if_changed(&self.stage.tuning, self.stage.model(), self.stage.transport.clock_secs(), now);
    }

    /// Save the side panel width when it changed.
    pub(super) fn save_settings(&mut self) {
        if self.side_panel_width == self.saved_side_panel_width {
            return;
        }
        self.saved_side_panel_width = self.side_panel_width;
        if let Some(dir) = &self.config_dir {
            let settings = ViewerSettings { side_panel_width: self.side_panel_width };
            if let Err(error) = settings.save(&viewer_settings_path(dir)) {
                self.error = Some(format!("viewer settings not saved: {error:#}"));
            }
        }
    }

    /// Before the window closes: save the profile and the viewer settings.
    pub fn save_on_exit(&mut self) {
        self.save_profile(true);
        self.save_settings();
    }
}
