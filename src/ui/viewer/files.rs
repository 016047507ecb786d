//! What the viewer writes and copies: View ▸ Copy command line, Bake to file, Record clip,
//! and the File menu's actions.

use super::*;

impl Viewer {
    /// The command line that opens the viewer on what is on screen now: the file, clip, time,
    /// joint and channel, the interpolation override, compare, skeleton, A/B, and the side panel
    /// section the user is at when there is one ([`Self::panel_in_view`]; "Copy command line"
    /// sends it to a colleague).
    pub fn command_line(&self) -> String {
        let quote = |text: &str| {
            if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:=,+".contains(c)) {
                text.to_owned()
            } else {
                format!("'{}'", text.replace('\'', "'\\''"))
            }
        };
        let mut words = vec!["animtune".to_owned()];
        if let Some(path) = &self.stage.source().path {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            words.push(quote(&absolute.display().to_string()));
        }
        if let Some(clip) = self.stage.transport.clip() {
            words.extend(["--clip".to_owned(), quote(self.stage.transport.clip_name(clip))]);
            words.extend(["--time".to_owned(), format!("{:.3}", self.stage.transport.time_secs())]);
        }
        if let Some(joint) = self.stage.selection.joint {
            words.extend(["--joint".to_owned(), quote(&crate::profile::node_display_name(self.stage.model(), joint))]);
            words.extend(["--channel".to_owned(), self.stage.selection.property.gltf_name().to_owned()]);
        }
        let mode = self.stage.tuning.interpolation().mode;
        if mode != anim::InterpolationOverride::Authored {
            words.extend(["--interpolation".to_owned(), mode.name().to_owned()]);
        }
        if let Some(modes) = self.stage.compare.active() {
            words.extend(["--compare".to_owned(), format!("{},{}", modes.left.name(), modes.right.name())]);
            if modes.layout == crate::stage::compare::CompareLayout::Ghost {
                words.push("--ghost".to_owned());
            }
            if modes.heatmap {
                words.push("--heatmap".to_owned());
            }
        }
        if self.overlays.skeleton {
            words.push("--skeleton".to_owned());
        }
        if self.overlays.trajectory {
            words.push("--trajectory".to_owned());
        }
        if let Some(file) = self.ab.file.as_ref().filter(|_| self.ab.active()) {
            let absolute = std::path::absolute(&file.path).unwrap_or_else(|_| file.path.clone());
            words.extend(["--ab".to_owned(), quote(&absolute.display().to_string())]);
            let ghost = self.ab.layout == crate::stage::compare::CompareLayout::Ghost;
            if ghost && !words.iter().any(|w| w == "--ghost") {
                words.push("--ghost".to_owned());
            }
        }
        if let Some(panel) = self.focus_panel.or(self.panel_in_view) {
            words.extend(["--panel".to_owned(), panel.name().to_owned()]);
        }
        words.join(" ")
    }

    /// `MODEL-CLIP-MODE.glb`: the suggested name of a baked copy.
    pub(super) fn bake_file_name(&self) -> String {
        let stem = self.stage.source().stem().unwrap_or_else(|| "character".to_owned());
        let clip =
            self.stage.transport.clip().map_or_else(String::new, |c| self.stage.transport.clip_name(c).to_owned());
        let mode = self.stage.tuning.interpolation().mode.name();
        let clean =
            |t: &str| t.chars().map(|c| if c.is_alphanumeric() || c == '-' { c } else { '_' }).collect::<String>();
        format!("{}-{}-{}.glb", clean(&stem), clean(&clip), mode)
    }

    /// Bake the playing clip as it is sampled now (the override, channel overrides, spaces and
    /// easing: [`crate::bake`]) into a copy of the model's file at `path`: exactly where glTF's
    /// modes can say it, else resampled at 60 fps. Returns what was done, for the status.
    ///
    /// # Errors
    /// No clip, a source file that cannot be read or rewritten, or `path` not writable.
    pub fn bake_to(&self, path: &Path) -> anyhow::Result<String> {
        use anyhow::Context as _;
        let clip = self.stage.transport.clip().context("no clip is playing")?;
        let settings = self.stage.tuning.sampling(clip).clone();
        let source = match &self.stage.source().path {
            Some(file) => std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?,
            None => crate::mannequin::DEFAULT_MODEL_GLB.to_vec(),
        };
        let base_dir = self.stage.source().path.as_deref().and_then(Path::parent);
        let clip_id = clip;
        let clip_data = self.stage.model().clip(clip).context("the playing clip is not in the model")?;
        let exact = anim::bake::bake_clip(clip_data, &settings).is_ok();
        let resample = (!exact).then_some(60.0);
        let limits = anim::import::Limits::default();
        let baked = crate::bake::bake(self.stage.model(), (&source, base_dir), clip_id, &settings, resample, &limits)?;
        std::fs::write(path, &baked.glb).with_context(|| format!("cannot write {}", path.display()))?;
        let how =
            if exact { "keys converted exactly" } else { "resampled at 60 fps (spaces or easing glTF cannot hold)" };
        Ok(format!(
            "Baked \"{}\" into {} ({how}); read back, largest difference {:.1e}",
            self.stage.transport.clip_name(clip),
            path.display(),
            baked.deviation.max()
        ))
    }

    /// Start recording the playing clip as the view shows it into `path` (a GIF, an MP4 or a
    /// folder of PNGs); progress in the Record section, the outcome in the status.
    pub fn record_to(&mut self, path: &Path) {
        let Some(clip) = self.stage.transport.clip() else {
            self.error = Some("Record: no clip is playing".to_owned());
            return;
        };
        let view = ViewState {
            clip,
            settings: self.stage.tuning.sampling(clip),
            compare: self.stage.compare.active(),
            skeleton: self.overlays.skeleton.then_some(self.stage.selection.joint),
            camera: self.viewport.camera,
        };
        if let Err(error) = self.recorder.start(self.stage.model(), view, path) {
            self.error = Some(format!("Record: {error:#}"));
        }
    }

    /// Apply a finished recording; true while one runs.
    pub(super) fn poll_recording(&mut self) -> bool {
        match self.recorder.poll() {
            Some(Ok(message)) => self.file.message = Some(message),
            Some(Err(error)) => self.error = Some(format!("Recording failed: {error}")),
            None => {}
        }
        self.recorder.job.is_some()
    }

    pub(super) fn apply_file_action(&mut self, action: FileAction) {
        match action {
            FileAction::Open(path) => self.load(&path),
            FileAction::OpenBuiltIn => self.open_built_in(),
            FileAction::Export(path) => {
                self.profile.export(&self.stage.tuning, self.stage.model(), &path);
                self.file.message = None;
            }
            FileAction::Import(path) => {
                if let Some((tuning, _)) = self.profile.import(self.stage.model(), &path) {
                    // An ordinary change: one undo step takes it back.
                    self.stage.tuning = tuning;
                }
                self.file.message = None;
            }
            FileAction::Bake(path) => match self.bake_to(&path) {
                Ok(message) => self.file.message = Some(message),
                Err(error) => self.error = Some(format!("Bake to {} failed: {error:#}", path.display())),
            },
            FileAction::Record(path) => self.record_to(&path),
            FileAction::OpenSecond(path) => self.ab.load(&path),
            FileAction::ExportGodot(path) => match self.stage.export_godot(&path) {
                Ok(()) => self.file.message = Some(format!("State machine exported to Godot: {}", path.display())),
                Err(error) => self.error = Some(format!("Export to Godot failed: {error}")),
            },
            FileAction::ExportBevy(path) => match self.stage.export_bevy(&path) {
                Ok(sidecar) => {
                    self.file.message =
                        Some(format!("State machine exported to Bevy: {} and {}", path.display(), sidecar.display()));
                }
                Err(error) => self.error = Some(format!("Export to Bevy failed: {error}")),
            },
            FileAction::Quit => self.quit_requested = true,
        }
    }
}
