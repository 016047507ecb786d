//! [`ProfileStore`]: the tuning profile of the model on screen — which file it is (by model
//! identity), whether it was loaded, saving it when the tuning changes, export and import — and
//! the Profile section that names it.

use std::path::{Path, PathBuf};

use anim::Model;

use crate::profile::{ModelIdentity, ProfileFit, TuningProfile, legacy_profile_path};

use crate::stage::tuning::Tuning;

/// Seconds between automatic saves while the tuning keeps changing.
const SAVE_EVERY_SECS: f64 = 0.5;

/// What the Profile section asks the viewer to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileAction {
    /// Export the profile (save dialog, or the path field).
    Export,
    /// Import a profile into this model (open dialog, or the path field).
    Import,
    /// Undo the last tuning change.
    Undo,
    /// Redo it.
    Redo,
}

/// The tuning profile of the model on screen.
#[derive(Debug, Clone)]
pub struct ProfileStore {
    dir: Option<PathBuf>,
    identity: ModelIdentity,
    label: String,
    /// What happened to this model's profile last (loaded, saved, exported, why not).
    pub status: String,
    /// The tuning as last read or written (nothing is written while it is unchanged; `None`:
    /// write on the next save).
    saved: Option<Tuning>,
    /// A file that did not parse: kept aside (renamed) before the first save over it.
    unreadable: bool,
    last_save_clock_secs: f64,
}

impl ProfileStore {
    /// The profile of `model` (identity `identity`, shown as `label`) in `dir`, and the tuning
    /// it describes: the saved one, one migrated from an older animtune's per-path file, or
    /// authored settings when there is none (nothing is written until something changes).
    pub fn open(dir: Option<PathBuf>, model: &Model, identity: ModelIdentity, label: &str) -> (Self, Tuning) {
        let mut store = Self {
            dir,
            identity,
            label: label.to_owned(),
            status: String::new(),
            saved: None,
            unreadable: false,
            last_save_clock_secs: f64::NEG_INFINITY,
        };
        let authored = Tuning::authored(model);
        let Some(path) = store.path() else {
            store.status = "profiles off (no configuration folder): authored settings".to_owned();
            store.saved = Some(authored.clone());
            return (store, authored);
        };
        let legacy = store.dir.as_deref().map(|dir| legacy_profile_path(dir, label)).filter(|p| p.exists());
        let (source, from) = match (path.exists(), legacy) {
            (true, _) => (path.clone(), "loaded"),
            (false, Some(legacy)) => (legacy, "migrated from"),
            (false, None) => {
                store.status = "no profile yet: authored settings (saved on the first change)".to_owned();
                store.saved = Some(authored.clone());
                return (store, authored);
            }
        };
        match TuningProfile::load(&source) {
            Ok(profile) => {
                let (tuning, fit) = profile.to_tuning(model);
                store.status = format!("{from} {} ({})", file_name(&source), fit.summary());
                // A migrated profile is written under the new name on the first save.
                store.saved = (from == "loaded").then(|| tuning.clone());
                (store, tuning)
            }
            Err(error) => {
                store.unreadable = source == path;
                store.status = format!("profile not loaded: {error:#}; authored settings");
                store.saved = Some(authored.clone());
                (store, authored)
            }
        }
    }

    /// This model's identity.
    pub fn identity(&self) -> &ModelIdentity {
        &self.identity
    }

    /// The profile file of this model (`None` without a profiles folder).
    pub fn path(&self) -> Option<PathBuf> {
        self.dir.as_deref().map(|dir| self.identity.profile_path(dir))
    }

    /// The profile of `tuning` on `model`.
    pub fn profile_of(&self, tuning: &Tuning, model: &Model) -> TuningProfile {
        TuningProfile::from_tuning(tuning, model, &self.identity, &self.label)
    }

    /// Save when the tuning changed since the last save — at most twice a second by the viewer
    /// clock `clock_secs`, unless `now`. Failures are reported in [`Self::status`], never fatal.
    pub fn save_if_changed(&mut self, tuning: &Tuning, model: &Model, clock_secs: f64, now: bool) {
        let Some(path) = self.path() else { return };
        // Compared as values (no allocation): this runs every frame.
        if self.saved.as_ref() == Some(tuning) || (!now && clock_secs - self.last_save_clock_secs < SAVE_EVERY_SECS) {
            return;
        }
        let profile = self.profile_of(tuning, model);
        self.last_save_clock_secs = clock_secs;
        if std::mem::take(&mut self.unreadable) {
            let mut aside = path.as_os_str().to_owned();
            aside.push(".unreadable");
            let _ = std::fs::rename(&path, PathBuf::from(aside));
        }
        self.status = match profile.save_atomic(&path) {
            Ok(()) => format!("saved to {}", file_name(&path)),
            Err(error) => format!("profile not saved: {error:#}"),
        };
        self.saved = Some(tuning.clone());
    }

    /// Write this model's profile to `path` (export).
    pub fn export(&mut self, tuning: &Tuning, model: &Model, path: &Path) {
        self.status = match self.profile_of(tuning, model).save_atomic(path) {
            Ok(()) => format!("exported to {}", path.display()),
            Err(error) => format!("export failed: {error:#}"),
        };
    }

    /// Read the profile at `path` as a tuning for `model` (import). The caller applies it (an
    /// undoable change); the status says what fitted.
    pub fn import(&mut self, model: &Model, path: &Path) -> Option<(Tuning, ProfileFit)> {
        match TuningProfile::load(path) {
            Ok(profile) => {
                let (tuning, fit) = profile.to_tuning(model);
                self.status = format!("imported {} ({})", path.display(), fit.summary());
                Some((tuning, fit))
            }
            Err(error) => {
                self.status = format!("import failed: {error:#}");
                None
            }
        }
    }

    /// The Profile section: which file this model's tuning lives in and what happened to it,
    /// Export / Import, Undo / Redo.
    pub fn profile_ui(&mut self, ui: &mut egui::Ui, undo_steps: usize, redo_steps: usize) -> Option<ProfileAction> {
        let mut action = None;
        let file = self.path().map_or_else(|| "none".to_owned(), |p| file_name(&p));
        ui.horizontal_wrapped(|ui| {
            ui.label("Profile:");
            ui.strong(file).on_hover_text(format!(
                "One profile per model identity (its rig: joint names and hierarchy), loaded however the model is \
                 opened.\n{}",
                self.path().map_or_else(
                    || "No configuration folder: nothing is saved.".to_owned(),
                    |p| p.display().to_string()
                )
            ));
        });
        super::status_line(ui, self.status.as_str());
        ui.horizontal(|ui| {
            if ui.button("Export…").on_hover_text("Save a copy of this model's tuning profile").clicked() {
                action = Some(ProfileAction::Export);
            }
            if ui.button("Import…").on_hover_text("Apply a tuning profile to this model (undo with Ctrl+Z)").clicked()
            {
                action = Some(ProfileAction::Import);
            }
            ui.separator();
            if ui
                .add_enabled(undo_steps > 0, egui::Button::new("Undo"))
                .on_hover_text(format!("Undo the last tuning change (Ctrl+Z); {undo_steps} step(s)"))
                .clicked()
            {
                action = Some(ProfileAction::Undo);
            }
            if ui
                .add_enabled(redo_steps > 0, egui::Button::new("Redo"))
                .on_hover_text(format!("Redo (Ctrl+Shift+Z); {redo_steps} step(s)"))
                .clicked()
            {
                action = Some(ProfileAction::Redo);
            }
        });
        action
    }
}

/// The file name of `path`, for short messages.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}
