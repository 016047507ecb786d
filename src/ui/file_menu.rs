//! [`FileMenu`]: File ▸ Open… / Recent / Built-in character / Export profile… / Import
//! profile… / Quit, and the path field. Native dialogs (rfd) run on their own thread; where
//! none can be shown (no XDG desktop portal and no zenity, as under Xvfb) the viewer says so
//! and the path field takes over: type a path and press Enter.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::profile::RecentFiles;

/// A dialog that returns nothing faster than this did not open (nobody cancels that fast).
const DIALOG_DID_NOT_OPEN: Duration = Duration::from_millis(300);

/// What the path field (or a dialog) is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PathPurpose {
    /// Open a .glb / .gltf.
    #[default]
    OpenModel,
    /// Write this model's tuning profile.
    ExportProfile,
    /// Apply a tuning profile to this model.
    ImportProfile,
    /// Write the clip baked as it is sampled now (Interpolation ▸ Bake to file…).
    BakeClip,
    /// Where a recording goes (Record ▸ Record clip…).
    RecordClip,
    /// A second model to compare with the one on screen (A/B).
    OpenSecond,
    /// Where the state machine's Godot 4 export goes (a `.tres`).
    ExportGodot,
    /// Where the state machine's Bevy export goes (a `.animgraph.ron`; its transitions sidecar
    /// beside it).
    ExportBevy,
}

impl PathPurpose {
    fn button(self) -> &'static str {
        match self {
            Self::OpenModel => "Load",
            Self::ExportProfile | Self::ExportGodot | Self::ExportBevy => "Export",
            Self::ImportProfile => "Import",
            Self::BakeClip => "Bake",
            Self::RecordClip => "Record",
            Self::OpenSecond => "Open B",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Self::OpenModel => "the built-in character is on screen: type a model's path",
            Self::ExportProfile => "path/to/profile.animtune.json",
            Self::ImportProfile => "path/to/profile.json",
            Self::BakeClip => "path/to/baked.glb",
            Self::RecordClip => "path/to/clip.gif, .mp4 or folder/",
            Self::OpenSecond => "path/to/previous-export.glb",
            Self::ExportGodot => "path/to/state_machine.tres",
            Self::ExportBevy => "path/to/state_machine.animgraph.ron",
        }
    }
}

/// What the File menu asks the viewer to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAction {
    /// Open a model file in the background.
    Open(PathBuf),
    /// Open the built-in character.
    OpenBuiltIn,
    /// Export the profile to this file.
    Export(PathBuf),
    /// Import the profile in this file.
    Import(PathBuf),
    /// Bake the playing clip as it is sampled now into this `.glb`.
    Bake(PathBuf),
    /// Record the playing clip into this GIF, MP4 or folder.
    Record(PathBuf),
    /// Open this model as B beside the one on screen.
    OpenSecond(PathBuf),
    /// Write the state machine for Godot 4 into this `.tres`.
    ExportGodot(PathBuf),
    /// Write the state machine for Bevy into this `.animgraph.ron` (and its sidecar).
    ExportBevy(PathBuf),
    /// Save and close the window.
    Quit,
}

/// Whether native file dialogs are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialogs {
    /// Try the platform's dialog (rfd), falling back to the path field when none shows.
    Native,
    /// Never try (tests; or known to be missing): always the path field.
    Unavailable,
}

/// A native dialog running on its own thread.
#[derive(Debug)]
struct PendingDialog {
    purpose: PathPurpose,
    started: Instant,
    result: mpsc::Receiver<Option<PathBuf>>,
}

/// The File menu, the path field and File ▸ Recent.
#[derive(Debug)]
pub struct FileMenu {
    /// The path in the field: the model on screen's file (empty for the built-in character)
    /// until the user types or a command suggests a file to write.
    pub path: String,
    /// The model on screen's file, as the field shows it.
    model_path: String,
    /// What Enter (or the field's button) does with it.
    pub purpose: PathPurpose,
    /// What happened last (a dialog that could not open, a file that does not exist).
    pub message: Option<String>,
    /// File ▸ Recent (persisted in `recent.json` beside the profiles folder).
    pub recent: RecentFiles,
    /// Native dialogs or not.
    pub dialogs: Dialogs,
    /// Suggested name for exports (the model's identity name).
    pub export_name: String,
    /// Suggested file name for Bake to file (set by the viewer before it asks).
    pub bake_name: String,
    /// Suggested output of Record clip (a name ending in `/` is a folder).
    pub record_name: String,
    pending: Option<PendingDialog>,
    focus_field: bool,
}

impl Default for FileMenu {
    fn default() -> Self {
        Self {
            path: String::new(),
            model_path: String::new(),
            purpose: PathPurpose::OpenModel,
            message: None,
            recent: RecentFiles::default(),
            dialogs: Dialogs::Native,
            export_name: "model".to_owned(),
            bake_name: "baked.glb".to_owned(),
            record_name: "clip.gif".to_owned(),
            pending: None,
            focus_field: false,
        }
    }
}

impl FileMenu {
    /// The File menu's items.
    pub fn menu_ui(&mut self, ui: &mut egui::Ui) -> Option<FileAction> {
        let mut action = None;
        if ui.add(egui::Button::new("Open…").shortcut_text("Ctrl+O")).clicked() {
            self.request(PathPurpose::OpenModel);
            ui.close();
        }
        ui.menu_button("Recent", |ui| {
            if self.recent.paths.is_empty() {
                ui.weak("nothing opened yet");
            }
            for path in &self.recent.paths {
                let button = ui.add_enabled(path.exists(), egui::Button::new(path.display().to_string()));
                if button.on_disabled_hover_text("the file is gone").clicked() {
                    action = Some(FileAction::Open(path.clone()));
                    ui.close();
                }
            }
        });
        if ui.button("Built-in character").clicked() {
            action = Some(FileAction::OpenBuiltIn);
            ui.close();
        }
        ui.separator();
        if ui.button("Export profile…").on_hover_text("Save a copy of this model's tuning profile").clicked() {
            self.request(PathPurpose::ExportProfile);
            ui.close();
        }
        if ui.button("Import profile…").on_hover_text("Apply a tuning profile to this model").clicked() {
            self.request(PathPurpose::ImportProfile);
            ui.close();
        }
        ui.separator();
        if ui.add(egui::Button::new("Quit").shortcut_text("Ctrl+Q")).clicked() {
            action = Some(FileAction::Quit);
            ui.close();
        }
        ui.weak("or drop a .glb / .gltf on the window");
        action
    }

    /// Ask for a path for `purpose`: a native dialog where one can be shown, else the path
    /// field with a message saying so.
    pub fn request(&mut self, purpose: PathPurpose) {
        match purpose {
            PathPurpose::ExportProfile => self.path = default_export_path(&self.export_name),
            // A file to read that is not the model: the field starts empty (its hint says what).
            PathPurpose::ImportProfile | PathPurpose::OpenSecond => self.path.clear(),
            PathPurpose::OpenModel
            | PathPurpose::BakeClip
            | PathPurpose::RecordClip
            | PathPurpose::ExportGodot
            | PathPurpose::ExportBevy => {}
        }
        let godot_name = format!("{}.tres", self.export_name);
        let bevy_name = format!("{}.animgraph.ron", self.export_name);
        let suggested = match purpose {
            PathPurpose::BakeClip => Some(&self.bake_name),
            PathPurpose::RecordClip => Some(&self.record_name),
            PathPurpose::ExportGodot => Some(&godot_name),
            PathPurpose::ExportBevy => Some(&bevy_name),
            _ => None,
        };
        if let Some(name) = suggested {
            let mut path = std::path::absolute(name).map_or_else(|_| name.clone(), |p| p.display().to_string());
            if name.ends_with('/') && !path.ends_with('/') {
                path.push('/');
            }
            self.path = path;
        }
        if let Some(why) = self.dialog_unavailable() {
            self.fall_back(purpose, &why);
            return;
        }
        let (sender, result) = mpsc::channel();
        let export_name = format!("{}.animtune.json", self.export_name);
        let bake_name = self.bake_name.clone();
        let record_name = self.record_name.clone();
        let (godot_name, bevy_name) = (godot_name.clone(), bevy_name.clone());
        let spawned = std::thread::Builder::new().name("file dialog".to_owned()).spawn(move || {
            let picked = match purpose {
                PathPurpose::OpenModel => rfd::FileDialog::new()
                    .set_title("Open a glTF model")
                    .add_filter("glTF", &["glb", "gltf"])
                    .add_filter("all files", &["*"])
                    .pick_file(),
                PathPurpose::ExportProfile => {
                    save_file("Export the tuning profile", export_name, "tuning profile", &["json"])
                }
                PathPurpose::ImportProfile => rfd::FileDialog::new()
                    .set_title("Import a tuning profile")
                    .add_filter("tuning profile", &["json"])
                    .add_filter("all files", &["*"])
                    .pick_file(),
                PathPurpose::BakeClip => {
                    save_file("Bake the clip as shown into a copy of the model", bake_name, "glTF binary", &["glb"])
                }
                PathPurpose::OpenSecond => rfd::FileDialog::new()
                    .set_title("Open a second glTF model to compare (B)")
                    .add_filter("glTF", &["glb", "gltf"])
                    .add_filter("all files", &["*"])
                    .pick_file(),
                PathPurpose::RecordClip if record_name.ends_with('/') => {
                    rfd::FileDialog::new().set_title("Record the clip's frames into a folder").pick_folder()
                }
                PathPurpose::RecordClip => save_file("Record the clip", record_name, "GIF or MP4", &["gif", "mp4"]),
                PathPurpose::ExportGodot => save_file(
                    "Export the state machine to Godot 4 (AnimationNodeStateMachine)",
                    godot_name,
                    "Godot resource",
                    &["tres"],
                ),
                PathPurpose::ExportBevy => save_file(
                    "Export the state machine to Bevy (animation graph; transitions beside it)",
                    bevy_name,
                    "Bevy animation graph",
                    &["ron"],
                ),
            };
            let _ = sender.send(picked);
        });
        match spawned {
            Ok(_) => self.pending = Some(PendingDialog { purpose, started: Instant::now(), result }),
            Err(error) => self.fall_back(purpose, &format!("cannot start a dialog thread ({error})")),
        }
    }

    /// Why no native dialog can be shown here, if that is known before trying.
    fn dialog_unavailable(&self) -> Option<String> {
        if self.dialogs == Dialogs::Unavailable {
            return Some("no file dialog available".to_owned());
        }
        if cfg!(target_os = "linux") {
            let portal = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
            let zenity = std::env::var_os("PATH")
                .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("zenity").is_file()));
            if !portal && !zenity {
                return Some("no desktop file dialog here (no XDG portal: no D-Bus session, and no zenity)".to_owned());
            }
        }
        None
    }

    /// Point the path field at `purpose` and say why no dialog showed.
    fn fall_back(&mut self, purpose: PathPurpose, why: &str) {
        self.purpose = purpose;
        self.focus_field = true;
        let what = match purpose {
            PathPurpose::OpenModel => "type the model's path and press Enter",
            PathPurpose::ExportProfile => "edit the path and press Enter to export",
            PathPurpose::ImportProfile => "type the profile's path and press Enter to import",
            PathPurpose::BakeClip => "edit the path and press Enter to bake",
            PathPurpose::RecordClip => "edit the path (.gif, .mp4 or a folder/) and press Enter to record",
            PathPurpose::OpenSecond => "type the path of the model to compare (B) and press Enter",
            PathPurpose::ExportGodot => "edit the path (.tres) and press Enter to export the state machine to Godot",
            PathPurpose::ExportBevy => {
                "edit the path (.animgraph.ron) and press Enter to export the state machine to Bevy"
            }
        };
        self.message = Some(format!("{why}: {what}"));
    }

    /// A finished dialog's choice (`None` while it runs or after a cancel).
    pub fn poll(&mut self, ctx: &egui::Context) -> Option<FileAction> {
        let pending = self.pending.as_ref()?;
        match pending.result.try_recv() {
            Ok(picked) => {
                let (purpose, started) = (pending.purpose, pending.started);
                self.pending = None;
                match picked {
                    Some(path) => Some(self.action_for(purpose, path)),
                    None if started.elapsed() < DIALOG_DID_NOT_OPEN => {
                        self.fall_back(purpose, "the desktop's file dialog did not open (no XDG portal?)");
                        None
                    }
                    None => {
                        self.show_model_again();
                        None
                    }
                }
            }
            Err(mpsc::TryRecvError::Empty) => {
                ctx.request_repaint_after(Duration::from_millis(100));
                None
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                let purpose = pending.purpose;
                self.pending = None;
                self.fall_back(purpose, "the file dialog stopped");
                None
            }
        }
    }

    /// The model on screen is `path` (`None`: the built-in character): the field shows it
    /// unless it is being used for something else.
    pub fn show_model(&mut self, path: Option<&Path>) {
        self.model_path = path.map(|p| p.display().to_string()).unwrap_or_default();
        if self.purpose == PathPurpose::OpenModel && !self.focus_field {
            self.path.clone_from(&self.model_path);
        }
    }

    /// Back to showing the model on screen (after an action took the path, or a cancel).
    fn show_model_again(&mut self) {
        self.purpose = PathPurpose::OpenModel;
        self.path.clone_from(&self.model_path);
    }

    fn action_for(&mut self, purpose: PathPurpose, path: PathBuf) -> FileAction {
        self.message = None;
        self.show_model_again();
        match purpose {
            PathPurpose::OpenModel => FileAction::Open(path),
            PathPurpose::ExportProfile => FileAction::Export(path),
            PathPurpose::ImportProfile => FileAction::Import(path),
            PathPurpose::BakeClip => FileAction::Bake(path),
            PathPurpose::RecordClip => FileAction::Record(path),
            PathPurpose::OpenSecond => FileAction::OpenSecond(path),
            PathPurpose::ExportGodot => FileAction::ExportGodot(path),
            PathPurpose::ExportBevy => FileAction::ExportBevy(path),
        }
    }

    /// The path field, its button (Load / Export / Import) and the last message. It fits any
    /// width: the field takes what the button leaves.
    pub fn path_field_ui(&mut self, ui: &mut egui::Ui) -> Option<FileAction> {
        let mut action = None;
        let button_width = 64.0;
        let field_width = (ui.available_width() - button_width - ui.spacing().item_spacing.x * 2.0).clamp(60.0, 420.0);
        let field = ui
            .add(egui::TextEdit::singleline(&mut self.path).hint_text(self.purpose.hint()).desired_width(field_width));
        if std::mem::take(&mut self.focus_field) {
            field.request_focus();
        }
        let field = field.on_hover_text("A path to open (or, after Export/Import, the profile's path); Enter applies");
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let button = ui.add_sized([button_width, 20.0], egui::Button::new(self.purpose.button()));
        if (button.clicked() || entered) && !self.path.trim().is_empty() {
            let path = PathBuf::from(self.path.trim());
            let purpose = self.purpose;
            action = Some(self.action_for(purpose, path));
        }
        action
    }
}

/// Where an export goes when the user has to type it: `NAME.animtune.json` in the working
/// folder, as an absolute path.
/// The platform's save dialog titled `title`, suggesting `file_name`, filtered to `extensions`.
fn save_file(title: &str, file_name: String, filter: &str, extensions: &[&str]) -> Option<PathBuf> {
    rfd::FileDialog::new().set_title(title).set_file_name(file_name).add_filter(filter, extensions).save_file()
}

fn default_export_path(name: &str) -> String {
    let file = format!("{name}.animtune.json");
    std::path::absolute(&file).map_or(file, |p| p.display().to_string())
}
