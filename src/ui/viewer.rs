//! [`Viewer`]: the whole interactive viewer — the model on screen and the parts that own the
//! rest (playback, tuning and its history, profile, selection, compare, ragdoll, crowd,
//! overlays, the frame output) and the panels — with the one `ui` that lays them out, the
//! keyboard shortcuts, and the operations that span parts (fades, handoffs, opening models).
//!
//! A frame: [`Viewer::advance`] (time), [`Viewer::ui`] (input, panels, actions; ends by
//! computing the [`FrameOutput`] once), then the renderer reads the frame output.

use std::path::{Path, PathBuf};

use anim::Model;
use anim::ragdoll::Placement;
use glam::Vec3;

use crate::physics::Phase;
use crate::profile::{ModelIdentity, RecentFiles, ViewerSettings, recent_files_path, viewer_settings_path};
use crate::render::Aabb;

use super::ab_view::AbView;
use super::compare::Compare;
use super::crossfade::{CrossFadeAction, CrossFadePanel};
use super::crowd::CrowdPanel;
use super::curves::CurvesPanel;
use super::file_menu::{FileAction, FileMenu, PathPurpose};
use super::frame::{FrameOutput, ViewClick};
use super::hot_reload::HotReload;
use super::joints::JointsPanel;
use super::overlays::Overlays;
use super::playback::Playback;
use super::profiles::{ProfileAction, ProfileStore};
use super::ragdoll::{RagdollAction, RagdollView};
use super::recorder::{RecordPanel, ViewState};
use super::shortcuts::{SHORTCUTS, ShortcutAction};
use super::viewport::ViewportPanel;
use crate::stage::loading::{LoadJob, LoadStage};
use crate::stage::selection::Selection;
use crate::stage::tuning::{Tuning, TuningHistory};

/// Seconds before the ragdoll handoff at which the animation is sampled for body velocities.
const HANDOFF_VELOCITY_SECS: f32 = 1.0 / 60.0;
/// Side panel width limits, in points.
const SIDE_PANEL_WIDTH: std::ops::RangeInclusive<f32> = 300.0..=900.0;

/// Height of the status bar (one line, always there: messages appear without moving anything).
const STATUS_BAR_HEIGHT: f32 = 24.0;

/// A section of the side panel, for opening the viewer on it (`--panel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Panel {
    /// Profile (model, tuning profile, undo/redo).
    Profile,
    /// Clips.
    Clips,
    /// Interpolation (overrides, spaces, easing, Bake to file).
    Interpolation,
    /// The joint tree.
    Joints,
    /// Curves.
    Curves,
    /// Cross-fade.
    CrossFade,
    /// Compare (two modes, or two files).
    Compare,
    /// Ragdoll.
    Ragdoll,
    /// Crowd.
    Crowd,
    /// Record clip.
    Record,
}

impl Panel {
    /// Every section, in the side panel's order.
    pub const ALL: [Self; 10] = [
        Self::Profile,
        Self::Clips,
        Self::Interpolation,
        Self::Joints,
        Self::Curves,
        Self::CrossFade,
        Self::Compare,
        Self::Ragdoll,
        Self::Crowd,
        Self::Record,
    ];

    /// Its name on the command line (`curves`, `cross-fade`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::Profile => "profile",
            Self::Clips => "clips",
            Self::Interpolation => "interpolation",
            Self::Joints => "joints",
            Self::Curves => "curves",
            Self::CrossFade => "cross-fade",
            Self::Compare => "compare",
            Self::Ragdoll => "ragdoll",
            Self::Crowd => "crowd",
            Self::Record => "record",
        }
    }

    /// The section called `name`.
    ///
    /// # Errors
    /// An unknown name, with the known ones listed.
    pub fn from_name(name: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|p| p.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
            format!("unknown panel \"{name}\" (expected one of: {})", names.join(", "))
        })
    }
}

/// A section of the side panel as it was drawn: open or not, and where its header starts.
#[derive(Debug, Clone, Copy)]
struct SectionShown {
    panel: Panel,
    open: bool,
    default_open: bool,
    header_top: f32,
}

/// A collapsible section of the side panel: open (and scrolled to) when it is `focus`; what was
/// drawn is added to `shown`.
fn section(
    ui: &mut egui::Ui,
    (focus, shown): (Option<Panel>, &mut Vec<SectionShown>),
    panel: Panel,
    title: &str,
    default_open: bool,
    add_contents: impl FnOnce(&mut egui::Ui),
) {
    let mut header = egui::CollapsingHeader::new(title).default_open(default_open);
    if focus == Some(panel) {
        header = header.open(Some(true));
    }
    let response = header.show(ui, add_contents);
    if focus == Some(panel) {
        response.header_response.scroll_to_me(Some(egui::Align::TOP));
    }
    shown.push(SectionShown {
        panel,
        open: response.body_response.is_some(),
        default_open,
        header_top: response.header_response.rect.top(),
    });
}

/// The section the user is at, for `--panel`: when the side panel is scrolled, the open section
/// at the top of its view (the last header at or above the view's top; scrolled to the end, where
/// `--panel` cannot bring a header to the top, the first header in view); else a section closed
/// by default that the user opened; else none (nothing specific: the panel as it opens).
fn panel_in_view(shown: &[SectionShown], scroll: &egui::scroll_area::ScrollAreaOutput<()>) -> Option<Panel> {
    /// A header this close to the view's top counts as at the top (item spacing).
    const SLACK_PX: f32 = 8.0;
    let offset = scroll.state.clamped_offset().y;
    let view_top = scroll.inner_rect.top();
    let at_end = offset >= scroll.content_size.y - scroll.inner_rect.height() - 1.0;
    let top = if at_end {
        shown.iter().find(|s| s.header_top >= view_top - SLACK_PX)
    } else {
        shown.iter().rev().find(|s| s.header_top <= view_top + SLACK_PX)
    };
    if offset > 0.5
        && let Some(top) = top
        && top.open
    {
        return Some(top.panel);
    }
    shown.iter().find(|s| s.open && !s.default_open).map(|s| s.panel)
}

/// Where the model on screen came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSource {
    /// Shown in the window: the file's path, or "built-in character".
    pub label: String,
    /// The file, when there is one.
    pub path: Option<PathBuf>,
}

impl ModelSource {
    /// The built-in character.
    pub fn built_in() -> Self {
        Self { label: "built-in character".to_owned(), path: None }
    }

    /// A file.
    pub fn file(path: &Path) -> Self {
        Self { label: path.display().to_string(), path: Some(path.to_path_buf()) }
    }

    /// The file name without extension (identity of unnamed rigs), if there is a file.
    fn stem(&self) -> Option<String> {
        self.path.as_ref().and_then(|p| p.file_stem()).map(|s| s.to_string_lossy().into_owned())
    }

    /// The short name for titles: the file name, or the label.
    pub fn short_name(&self) -> String {
        self.path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or_else(|| self.label.clone(), |n| n.to_string_lossy().into_owned())
    }
}

/// The whole viewer.
#[derive(Debug)]
pub struct Viewer {
    /// The model on screen.
    pub model: Model,
    /// Where it came from.
    pub source: ModelSource,
    /// Bumped whenever `model` is replaced (the GPU side re-uploads, caches refresh).
    pub model_generation: u64,
    /// Clip, time, transport and fades.
    pub playback: Playback,
    /// The model's tunables (saved in its profile).
    pub tuning: Tuning,
    /// Undo and redo over the tuning.
    pub history: TuningHistory,
    /// The model's tuning profile.
    pub profile: ProfileStore,
    /// Selected joint and channel.
    pub selection: Selection,
    /// The compare view.
    pub compare: Compare,
    /// A second file beside the model on screen (A/B).
    pub ab: AbView,
    /// The ragdoll.
    pub ragdoll: RagdollView,
    /// Crowd mode.
    pub crowd: CrowdPanel,
    /// Skeleton and Stats overlays.
    pub overlays: Overlays,
    /// This frame's poses and matrices.
    pub frame: FrameOutput,
    /// A model loading in the background (the current one stays until it is ready).
    pub loading: Option<LoadJob>,
    /// The open file watched and reloaded when it changes.
    pub hot_reload: HotReload,
    /// Record clip.
    pub recorder: RecordPanel,
    /// Last error (a failed load, a GPU problem), shown until dismissed: a full sentence.
    pub error: Option<String>,
    /// The 3D view and its camera.
    pub viewport: ViewportPanel,
    /// File menu and path field.
    pub file: FileMenu,
    /// Cross-fade panel.
    pub crossfade: CrossFadePanel,
    /// Joint tree.
    pub joints: JointsPanel,
    /// Curves.
    pub curves: CurvesPanel,
    /// Width of the side panel (remembered between runs in `viewer.json`).
    pub side_panel_width: f32,
    /// The side panel section to open and scroll to on the next frame (`--panel`).
    pub focus_panel: Option<Panel>,
    /// The side panel section the user is at (scrolled to, or opened), as of the last frame:
    /// the `--panel` of View ▸ Copy command line.
    pub panel_in_view: Option<Panel>,
    saved_side_panel_width: f32,
    config_dir: Option<PathBuf>,
    quit_requested: bool,
}

impl Viewer {
    /// A viewer on `model` playing its first clip, with no profiles folder (nothing is saved).
    pub fn new(model: Model, source: ModelSource) -> Self {
        let identity = ModelIdentity::of(&model, source.stem().as_deref());
        let (profile, tuning) = ProfileStore::open(None, &model, identity, &source.label);
        let playback = Playback::new(&model);
        let selection = Selection::first_animated(&model, playback.clip());
        let width = ViewerSettings::default().side_panel_width;
        let mut viewer = Self {
            history: TuningHistory::new(&tuning),
            frame: FrameOutput::new(&model),
            crossfade: CrossFadePanel::for_clips(model.clips.len()),
            playback,
            tuning,
            profile,
            selection,
            compare: Compare::default(),
            ab: AbView::default(),
            ragdoll: RagdollView::default(),
            crowd: CrowdPanel::default(),
            overlays: Overlays::default(),
            loading: None,
            hot_reload: HotReload::default(),
            recorder: RecordPanel::default(),
            error: None,
            viewport: ViewportPanel::default(),
            file: FileMenu::default(),
            joints: JointsPanel::default(),
            curves: CurvesPanel::default(),
            side_panel_width: width,
            focus_panel: None,
            panel_in_view: None,
            saved_side_panel_width: width,
            config_dir: None,
            quit_requested: false,
            model_generation: 0,
            source,
            model,
        };
        viewer.file.export_name = viewer.profile.identity().name.clone();
        viewer.file.show_model(viewer.source.path.as_deref());
        viewer.viewport.set_facing(crate::physics::anatomy::facing_direction(&viewer.model));
        viewer.frame_camera();
        viewer.compute_frame();
        viewer
    }

    /// Keep profiles in `dir` (`~/.config/animtune/profiles`), File ▸ Recent and the viewer
    /// settings beside it; loads this model's profile now.
    #[must_use]
    pub fn with_config_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.config_dir = dir;
        if let Some(dir) = &self.config_dir {
            self.file.recent = RecentFiles::load(&recent_files_path(dir));
            let settings = ViewerSettings::load(&viewer_settings_path(dir));
            self.side_panel_width = settings.side_panel_width.clamp(*SIDE_PANEL_WIDTH.start(), *SIDE_PANEL_WIDTH.end());
            self.saved_side_panel_width = self.side_panel_width;
        }
        let identity = self.profile.identity().clone();
        let (profile, tuning) = ProfileStore::open(self.config_dir.clone(), &self.model, identity, &self.source.label);
        self.profile = profile;
        self.set_tuning_after_open(tuning);
        self
    }

    /// The profiles folder, if any.
    pub fn config_dir(&self) -> Option<&Path> {
        self.config_dir.as_deref()
    }

    /// Display names of the model's clips.
    pub fn clip_names(&self) -> Vec<String> {
        self.model.clips.iter().enumerate().map(|(i, c)| c.display_name(i)).collect()
    }

    /// True once File ▸ Quit or Ctrl+Q asked to close (the shell saves and exits).
    pub fn quit_requested(&self) -> bool {
        self.quit_requested
    }

    // ---- Models ----

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
        self.file.show_model(self.source.path.as_deref());
    }

    /// Another model: save this one's profile, then everything model-specific starts over
    /// from the new model's profile (nothing leaks from the previous model).
    fn switch_model(&mut self, model: Model, source: ModelSource, identity: ModelIdentity) {
        self.save_profile(true);
        let (profile, tuning) = ProfileStore::open(self.config_dir.clone(), &model, identity, &source.label);
        self.profile = profile;
        self.playback = Playback::new(&model);
        self.selection = Selection::first_animated(&model, self.playback.clip());
        self.ragdoll = self.ragdoll.for_new_model();
        self.crowd = self.crowd.for_new_model(&model, tuning.interpolation().mode);
        self.frame = FrameOutput::new(&model);
        self.crossfade = CrossFadePanel::for_clips(model.clips.len());
        self.ab.a_changed(&model);
        self.model = model;
        self.source = source;
        self.model_generation += 1;
        self.error = None;
        self.file.export_name = self.profile.identity().name.clone();
        self.set_tuning_after_open(tuning);
        self.viewport.set_facing(crate::physics::anatomy::facing_direction(&self.model));
        self.frame_camera();
    }

    /// Put `model` (the same identity as the one on screen: a reload or re-export of the same
    /// rig) on screen and carry the state over: the tuning (through the profile's names, so
    /// clips and channels are matched by name), the clip and time, the selection, the camera,
    /// compare, overlays and crowd size. This is the operation hot reload builds on.
    pub fn replace_model_keeping_state(&mut self, model: Model, source: ModelSource) {
        let bounds_before = self.bounds_on_screen();
        let profile = self.profile.profile_of(&self.tuning, &self.model);
        let (tuning, _) = profile.to_tuning(&model);
        let clip_name = self.playback.clip().map(|c| self.playback.clip_name(c).to_owned());
        let (time, playing, speed, looping) =
            (self.playback.time_secs(), self.playback.playing, self.playback.speed, self.playback.looping);
        let joint_name = self.selection.joint.map(|n| crate::profile::node_display_name(&self.model, n));
        let mut playback = Playback::new(&model);
        if let Some(clip) =
            clip_name.and_then(|name| model.clips.iter().enumerate().position(|(i, c)| c.display_name(i) == name))
        {
            playback.select_clip(clip);
            playback.seek(time);
        }
        (playback.playing, playback.speed, playback.looping) = (playing, speed, looping);
        let joint = joint_name
            .and_then(|name| (0..model.nodes.len()).find(|&n| crate::profile::node_display_name(&model, n) == name));
        self.selection = match joint {
            Some(joint) => Selection { joint: Some(joint), ..self.selection },
            None => Selection::first_animated(&model, playback.clip()),
        };
        self.playback = playback;
        self.ragdoll = self.ragdoll.for_new_model();
        self.crowd = self.crowd.for_new_model(&model, tuning.interpolation().mode);
        self.frame = FrameOutput::new(&model);
        if self.crossfade.to_clip >= model.clips.len() {
            self.crossfade = CrossFadePanel::for_clips(model.clips.len());
        }
        self.ab.a_changed(&model);
        self.model = model;
        self.source = source;
        self.model_generation += 1;
        self.error = None;
        // The undo steps refer to the old model's clips and tracks: the history starts here.
        self.tuning = tuning;
        self.history = TuningHistory::new(&self.tuning);
        self.compute_frame();
        // The camera stays for the same character; one that moved or changed size is re-framed.
        if bounds_differ(&bounds_before, &self.bounds_on_screen()) {
            self.frame_camera();
        }
    }

    fn set_tuning_after_open(&mut self, tuning: Tuning) {
        self.tuning = tuning;
        self.history = TuningHistory::new(&self.tuning);
        self.compute_frame();
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

    fn finish_loading(&mut self, outcome: Result<Model, String>) -> bool {
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
        self.hot_reload.sync(self.source.path.as_deref());
        let mut pending = false;
        match self.hot_reload.poll(std::time::Instant::now(), &mut pending) {
            Some(Ok(model)) => {
                // The same switch as an open: another rig written over the file gets its own
                // profile (nothing of this one's is applied to it or written for it).
                let source = self.source.clone();
                self.open_model(model, source);
                self.hot_reload.rewatch();
            }
            Some(Err(error)) => {
                self.error = Some(format!(
                    "Reload of {} failed; the model on screen is kept (the next complete save loads): {error}",
                    self.source.short_name()
                ));
            }
            None => {}
        }
        pending
    }

    /// The joint a click in the 3D view selects: in B's half of a side-by-side A/B view, B's
    /// joint there as B is posed (A's node of the same name); elsewhere the joint drawn there
    /// (A, or the compare pose in its half).
    pub fn pick_joint_at(&self, click: ViewClick) -> Option<usize> {
        /// How near a click must be to a joint, in pixels.
        const PICK_RADIUS_PX: f32 = 14.0;
        if click.right_view && self.ab.is_split() {
            return self.ab.pick_joint_in_b(&self.viewport.camera, click, PICK_RADIUS_PX);
        }
        let camera = &self.viewport.camera;
        self.frame.pick_joint(
            &self.model,
            camera,
            click.position_px,
            click.view_size_px,
            PICK_RADIUS_PX,
            click.right_view,
        )
    }

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
        if let Some(path) = &self.source.path {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.clone());
            words.push(quote(&absolute.display().to_string()));
        }
        if let Some(clip) = self.playback.clip() {
            words.extend(["--clip".to_owned(), quote(self.playback.clip_name(clip))]);
            words.extend(["--time".to_owned(), format!("{:.3}", self.playback.time_secs())]);
        }
        if let Some(joint) = self.selection.joint {
            words.extend(["--joint".to_owned(), quote(&crate::profile::node_display_name(&self.model, joint))]);
            words.extend(["--channel".to_owned(), self.selection.property.gltf_name().to_owned()]);
        }
        let mode = self.tuning.interpolation().mode;
        if mode != anim::InterpolationOverride::Authored {
            words.extend(["--interpolation".to_owned(), mode.name().to_owned()]);
        }
        if let Some(modes) = self.compare.active() {
            words.extend(["--compare".to_owned(), format!("{},{}", modes.left.name(), modes.right.name())]);
            if modes.layout == super::compare::CompareLayout::Ghost {
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
            let ghost = self.ab.layout == super::compare::CompareLayout::Ghost;
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
    fn bake_file_name(&self) -> String {
        let stem = self.source.stem().unwrap_or_else(|| "character".to_owned());
        let clip = self.playback.clip().map_or_else(String::new, |c| self.playback.clip_name(c).to_owned());
        let mode = self.tuning.interpolation().mode.name();
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
        let clip = self.playback.clip().context("no clip is playing")?;
        let settings = self.tuning.sampling(clip).clone();
        let source = match &self.source.path {
            Some(file) => std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?,
            None => crate::mannequin::DEFAULT_MODEL_GLB.to_vec(),
        };
        let base_dir = self.source.path.as_deref().and_then(Path::parent);
        let clip_id = anim::ClipId::from_index(clip);
        let exact = anim::bake::bake_clip(&self.model.clips[clip], &settings).is_ok();
        let resample = (!exact).then_some(60.0);
        let limits = anim::import::Limits::default();
        let baked = crate::bake::bake(&self.model, (&source, base_dir), clip_id, &settings, resample, &limits)?;
        std::fs::write(path, &baked.glb).with_context(|| format!("cannot write {}", path.display()))?;
        let how =
            if exact { "keys converted exactly" } else { "resampled at 60 fps (spaces or easing glTF cannot hold)" };
        Ok(format!(
            "Baked \"{}\" into {} ({how}); read back, largest difference {:.1e}",
            self.playback.clip_name(clip),
            path.display(),
            baked.deviation.max()
        ))
    }

    /// Start recording the playing clip as the view shows it into `path` (a GIF, an MP4 or a
    /// folder of PNGs); progress in the Record section, the outcome in the status.
    pub fn record_to(&mut self, path: &Path) {
        let Some(clip) = self.playback.clip() else {
            self.error = Some("Record: no clip is playing".to_owned());
            return;
        };
        let view = ViewState {
            clip,
            settings: self.tuning.sampling(clip),
            compare: self.compare.active(),
            skeleton: self.overlays.skeleton.then_some(self.selection.joint),
        };
        if let Err(error) = self.recorder.start(&self.model, view, path) {
            self.error = Some(format!("Record: {error:#}"));
        }
    }

    /// Apply a finished recording; true while one runs.
    fn poll_recording(&mut self) -> bool {
        match self.recorder.poll() {
            Some(Ok(message)) => self.file.message = Some(message),
            Some(Err(error)) => self.error = Some(format!("Recording failed: {error}")),
            None => {}
        }
        self.recorder.job.is_some()
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
        self.profile.save_if_changed(&self.tuning, &self.model, self.playback.clock_secs(), now);
    }

    /// Save the side panel width when it changed.
    fn save_settings(&mut self) {
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

    // ---- Frames ----

    /// Advance the viewer clock by `dt_secs` of wall time: playback, fades, crowd, and the
    /// ragdoll weight history.
    pub fn advance(&mut self, dt_secs: f32) {
        self.playback.advance(dt_secs);
        let clip_dt = if self.playback.playing { dt_secs.clamp(0.0, 0.25) * self.playback.speed } else { 0.0 };
        self.crowd.advance(&self.model, clip_dt, self.tuning.interpolation().mode);
        if let Some(from) = self.playback.clip() {
            let to = self.crossfade.to_clip;
            let fade = self.tuning.fade_for(from, to);
            let settings = self.tuning.interpolation().to_settings();
            self.compare.kinds.advance(&self.model, &settings, from, to, fade, clip_dt);
        }
        self.ragdoll.record(self.playback.clock_secs());
    }

    /// Compute this frame's output from the parts (once per frame; [`Self::ui`] calls it).
    pub fn compute_frame(&mut self) {
        self.frame.trajectory = self.overlays.trajectory;
        self.frame.compute(&self.model, &mut self.playback, &self.tuning, &self.compare, &mut self.ragdoll);
        self.compare.kinds.record(self.frame.model_from_node(), self.frame.compare_model_from_node());
        let clip = self.playback.clip();
        let settings = clip.map_or_else(|| self.tuning.sampling(usize::MAX), |c| self.tuning.sampling(c));
        self.ab.compute(&self.model, clip, self.playback.time_secs(), settings);
    }

    /// The cross-fade panel's measured quality of `from → to` as tuned (this transition, and a
    /// cross-fade of the same duration).
    pub fn crossfade_measured(
        &mut self,
        from: usize,
        to: usize,
    ) -> Option<(crate::transitions::TransitionReport, crate::transitions::TransitionReport)> {
        self.crossfade.measured_pair(&self.model, &self.tuning, from, to)
    }

    /// Foot contacts of `clip` as phase sync uses them (edited markers, else found).
    pub fn crossfade_contacts(&mut self, clip: usize) -> Vec<anim::FootContact> {
        self.crossfade.contacts(&self.model, &self.tuning.clip_extras, clip)
    }

    /// [`Self::advance`] then [`Self::compute_frame`]: a frame without UI (tests, scripts).
    pub fn step(&mut self, dt_secs: f32) {
        self.advance(dt_secs);
        self.compute_frame();
    }

    // ---- Operations that span parts ----

    /// Cross-fade to the crossfade panel's target from what is on screen: the clip (or the
    /// blend in progress) through the fader, or — while ragdolling — from the body, blending
    /// it into the target clip started from 0. The pair's tuned fade (else the defaults).
    pub fn trigger_fade(&mut self) {
        let Some(current) = self.playback.clip() else { return };
        let to = self.crossfade.to_clip;
        if to >= self.model.clips.len() {
            return;
        }
        let fade = self.tuning.fade_for(current, to);
        if self.ragdoll.phase() == Phase::Ragdoll {
            self.playback.play_from_start(to);
            self.ragdoll.blend_out(&self.model, fade.duration_secs, fade.easing);
        } else {
            let settings = self.tuning.interpolation().to_settings();
            let source = self.playback.fader().current_clip().index();
            let from_contacts = self.crossfade.contacts(&self.model, &self.tuning.clip_extras, source);
            let to_contacts = self.crossfade.contacts(&self.model, &self.tuning.clip_extras, to);
            let contacts = |clip: usize| if clip == to { to_contacts.clone() } else { from_contacts.clone() };
            self.playback.fade_to(&self.model, &settings, to, fade, &contacts);
        }
    }

    /// Hand the character to the ragdoll now: bodies start at the pose on screen with the
    /// animation's velocity (from the clip 1/60 s later), the selected bone pushed away from
    /// the camera when a push strength is set. False (with a status) when no ragdoll fits.
    pub fn go_limp(&mut self) -> bool {
        let placement = self.ragdoll.placement;
        // The pose a moment later: the bodies move on as the clip would (negative: after).
        let before =
            self.frame.animation_before(&self.model, &self.playback, &self.tuning, -HANDOFF_VELOCITY_SECS, &placement);
        let push = self.tuning.ragdoll.push_newton_secs;
        let push = (push > 0.0).then(|| {
            let away = -self.viewport.camera.eye_direction();
            let horizontal = Vec3::new(away.x, 0.0, away.z).try_normalize().unwrap_or(Vec3::X);
            (self.selection.joint.unwrap_or(0), (horizontal + Vec3::Y * 0.3).normalize() * push)
        });
        let shown = self.frame.shown().clone();
        let started =
            self.ragdoll.trigger(&self.model, &shown, &before, -HANDOFF_VELOCITY_SECS, push, &self.tuning.ragdoll);
        // The controller steps from the next frame's clip time on.
        self.playback.take_pending_dt();
        started
    }

    /// Get up from the ragdoll: the clip for how the body lies (face up or face down), placed
    /// where it lies and turned the way the character will stand, restarted at 0 and blended
    /// into through the get-up's key poses. False when not ragdolling.
    pub fn get_up(&mut self) -> bool {
        let (model, frame, tuning) = (&self.model, &self.frame, &self.tuning);
        let got_up = self.ragdoll.get_up(model, &tuning.ragdoll, |clip| frame.clip_start_pose(model, clip, tuning));
        let Some((clip, placement)) = got_up else { return false };
        self.ragdoll.placement = placement;
        match clip {
            Some(clip) => self.playback.play_from_start(clip),
            None => self.playback.playing = true,
        }
        // The camera framed the body on the floor; the character is about to stand: frame the
        // clip it gets up into, where it plays, when the camera would cut it off.
        let standing =
            self.frame.drawn_bounds(&self.model, &self.playback, &self.tuning, Some(&self.ragdoll.placement));
        if !self.viewport.camera.sees(&standing, self.viewport.view_aspect(self.split_view())) {
            self.viewport.frame_bounds(standing, self.viewport.view_aspect(self.split_view()));
        }
        true
    }

    /// Play the clips where they were authored again (undo get-up relocations).
    pub fn reset_placement(&mut self) {
        self.ragdoll.placement = Placement::IDENTITY;
    }

    /// Frame the camera on what is drawn now (F): the crowd, else the pose on screen (and the
    /// compare pose) plus — while the animation drives it — the playing clip's whole motion;
    /// a fallen ragdoll is framed where it lies.
    pub fn frame_camera(&mut self) {
        let bounds = self.bounds_on_screen();
        let aspect = self.viewport.view_aspect(self.split_view());
        self.viewport.frame_bounds(bounds, aspect);
    }

    /// What the camera frames: the crowd, else the pose on screen (and the compare pose) plus —
    /// while the animation drives it — the playing clip's whole motion.
    fn bounds_on_screen(&self) -> Aabb {
        match &self.crowd.crowd {
            Some(crowd) => crowd.bounds(),
            None => {
                let clip_placement = (!self.ragdoll.is_active()).then_some(&self.ragdoll.placement);
                self.frame.drawn_bounds(&self.model, &self.playback, &self.tuning, clip_placement)
            }
        }
    }

    /// True when the 3D view shows two views side by side: A | B while the A/B view is on,
    /// else the two compared modes.
    pub fn split_view(&self) -> bool {
        if self.ab.active() { self.ab.is_split() } else { self.compare.is_split() }
    }

    /// The 3D view's labels: A | B, or the two compared modes.
    pub fn view_labels(&self) -> super::viewport::ViewLabels {
        use super::compare::CompareLayout;
        use super::viewport::ViewLabels;
        if let Some(file) = self.ab.file.as_ref().filter(|_| self.ab.active()) {
            let b = file
                .path
                .file_name()
                .map_or_else(|| file.path.display().to_string(), |n| n.to_string_lossy().into_owned());
            let a = self.source.short_name();
            return match self.ab.layout {
                CompareLayout::Split => ViewLabels::Split([format!("A: {a}"), format!("B: {b}")]),
                CompareLayout::Ghost => ViewLabels::Overlay(format!("A: {a} (solid) / B: {b} (ghost)")),
            };
        }
        if let Some([left, right]) = self.compare.kinds.labels() {
            return ViewLabels::Split([left.to_owned(), right.to_owned()]);
        }
        match self.compare.active() {
            Some(modes) if modes.layout == CompareLayout::Split => {
                ViewLabels::Split([modes.left.name().to_owned(), modes.right.name().to_owned()])
            }
            Some(modes) => ViewLabels::Overlay(format!("solid: {} / ghost: {}", modes.left.name(), modes.right.name())),
            None => ViewLabels::One,
        }
    }

    /// Undo the last tuning change.
    pub fn undo(&mut self) -> bool {
        self.history.undo(&mut self.tuning)
    }

    /// Redo the last undone tuning change.
    pub fn redo(&mut self) -> bool {
        self.history.redo(&mut self.tuning)
    }

    /// Crowd mode on with `count` instances, or off; the camera frames the result.
    pub fn set_crowd(&mut self, count: Option<usize>) {
        self.crowd.set(&self.model, count, self.tuning.interpolation().mode);
        self.frame_camera();
    }

    fn apply_file_action(&mut self, action: FileAction) {
        match action {
            FileAction::Open(path) => self.load(&path),
            FileAction::OpenBuiltIn => self.open_built_in(),
            FileAction::Export(path) => {
                self.profile.export(&self.tuning, &self.model, &path);
                self.file.message = None;
            }
            FileAction::Import(path) => {
                if let Some((tuning, _)) = self.profile.import(&self.model, &path) {
                    // An ordinary change: one undo step takes it back.
                    self.tuning = tuning;
                }
                self.file.message = None;
            }
            FileAction::Bake(path) => match self.bake_to(&path) {
                Ok(message) => self.file.message = Some(message),
                Err(error) => self.error = Some(format!("Bake to {} failed: {error:#}", path.display())),
            },
            FileAction::Record(path) => self.record_to(&path),
            FileAction::OpenSecond(path) => self.ab.load(&path),
            FileAction::Quit => self.quit_requested = true,
        }
    }

    // ---- UI ----

    /// Draw the whole viewer into `ui` (the window's root), apply shortcuts and actions,
    /// record tuning changes for undo, save the profile when it changed, and compute the frame.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        self.poll_loading();
        let reload_pending = self.poll_hot_reload();
        let recording = self.poll_recording();
        if self.ab.poll_loading(&self.model) {
            self.frame_camera();
        }
        let recording = recording || self.ab.loading.is_some();
        if self.loading.is_some() || reload_pending || recording {
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(50));
        }
        if let Some(action) = self.file.poll(ui.ctx()) {
            self.apply_file_action(action);
        }
        self.dropped_files_ui(ui);
        self.shortcuts_ui(ui);
        egui::Panel::top("top bar").show(ui, |ui| self.top_bar_ui(ui));
        egui::Panel::bottom("status").exact_size(STATUS_BAR_HEIGHT).show(ui, |ui| self.status_bar_ui(ui));
        egui::Panel::bottom("transport").show(ui, |ui| {
            let clip = self.playback.clip().and_then(|c| self.model.clips.get(c));
            let mut keys: Vec<f32> = clip
                .map(|c| c.timelines().iter().flat_map(|t| t.times_secs.iter().copied()).collect())
                .unwrap_or_default();
            keys.sort_by(f32::total_cmp);
            let selected = self
                .selection
                .track(&self.model, self.playback.clip())
                .and_then(|t| clip?.timelines().get(clip?.tracks().get(t)?.timeline))
                .map(|t| t.times_secs.clone())
                .unwrap_or_default();
            // The clip's foot-contact markers (edited ones from the profile, else found),
            // draggable on the timeline; an edit is stored in the tuning (and so the profile).
            let mut markers = match self.playback.clip() {
                Some(c) => self.crossfade.named_contacts(&self.model, &self.tuning.clip_extras, c),
                None => Vec::new(),
            };
            if self.playback.transport_ui(ui, &keys, &selected, &mut markers)
                && let Some(c) = self.playback.clip()
            {
                let name = self.model.clips[c].display_name(c);
                let contacts = markers
                    .into_iter()
                    .map(|(foot, time_secs)| crate::profile::ContactMarker { foot, time_secs })
                    .collect();
                let extras = &mut self.tuning.clip_extras.markers;
                extras.retain(|m| m.clip != name);
                extras.push(crate::profile::ClipMarkers { clip: name, contacts });
            }
        });
        let panel = egui::Panel::right("side panel")
            .resizable(true)
            .default_size(self.side_panel_width)
            .size_range(SIDE_PANEL_WIDTH)
            .show(ui, |ui| self.side_panel_ui(ui));
        if !ui.input(|i| i.pointer.any_down()) {
            self.side_panel_width = panel.response.rect.width().round();
            self.save_settings();
        }
        egui::CentralPanel::no_frame().show(ui, |ui| {
            let labels = self.view_labels();
            self.viewport.floor_y = self.frame.ground_height(&self.model);
            let (click, rect) = self.viewport.viewport_ui(ui, &labels);
            if let Some(joint) = click.and_then(|click| self.pick_joint_at(click)) {
                self.selection.joint = Some(joint);
            }
            if self.overlays.stats_visible {
                let profile = self.profile.path().map_or_else(|| "none".to_owned(), |p| p.display().to_string());
                let labels = self.viewport.label_rects;
                self.overlays.stats_ui(&ui.painter_at(rect), rect, &self.source.short_name(), &profile, &labels);
            }
        });
        // A drag or a typed number becomes one step when it ends (Enter or focus loss).
        let settled = !ui.input(|i| i.pointer.any_down()) && !ui.ctx().text_edit_focused();
        self.history.commit(&self.tuning, settled);
        self.save_profile(false);
        self.compute_frame();
    }

    /// The side panel: profile, clips, interpolation, joints, curves, cross-fade, compare,
    /// ragdoll, crowd. Wide content scrolls instead of widening the panel.
    fn side_panel_ui(&mut self, ui: &mut egui::Ui) {
        let focus = self.focus_panel.take();
        let mut shown = Vec::with_capacity(Panel::ALL.len());
        let scroll = egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
            ui.set_max_width(ui.available_width());
            section(ui, (focus, &mut shown), Panel::Profile, "Profile", true, |ui| {
                ui.horizontal_wrapped(|ui| {
                    ui.label("Model:");
                    ui.strong(self.source.short_name()).on_hover_text(&self.source.label);
                });
                let action = self.profile.profile_ui(ui, self.history.undo_steps(), self.history.redo_steps());
                match action {
                    Some(ProfileAction::Export) => self.file.request(PathPurpose::ExportProfile),
                    Some(ProfileAction::Import) => self.file.request(PathPurpose::ImportProfile),
                    Some(ProfileAction::Undo) => _ = self.undo(),
                    Some(ProfileAction::Redo) => _ = self.redo(),
                    None => {}
                }
            });
            section(ui, (focus, &mut shown), Panel::Clips, "Clips", true, |ui| self.playback.clips_ui(ui, &self.model));
            section(ui, (focus, &mut shown), Panel::Interpolation, "Interpolation", true, |ui| {
                if self.tuning.interpolation_ui(ui, &self.model, &self.playback, &self.selection) {
                    self.file.bake_name = self.bake_file_name();
                    self.file.request(PathPurpose::BakeClip);
                }
            });
            section(ui, (focus, &mut shown), Panel::Joints, "Joints", false, |ui| {
                self.joints.joints_ui(ui, &self.model, self.playback.clip(), &mut self.selection);
            });
            section(ui, (focus, &mut shown), Panel::Curves, "Curves", true, |ui| {
                self.curves.curves_ui(
                    ui,
                    &self.model,
                    self.model_generation,
                    &self.tuning,
                    &mut self.playback,
                    &mut self.selection,
                );
            });
            section(ui, (focus, &mut shown), Panel::CrossFade, "Cross-fade", true, |ui| {
                let names = self.clip_names();
                let ragdolling = self.ragdoll.phase() == Phase::Ragdoll;
                match self.crossfade.crossfade_ui(ui, &self.playback, &self.model, &mut self.tuning, ragdolling, &names)
                {
                    Some(CrossFadeAction::Trigger) => self.trigger_fade(),
                    Some(CrossFadeAction::SetUp { from, to }) => {
                        self.playback.play_from_start(from);
                        self.crossfade.to_clip = to;
                    }
                    None => {}
                }
            });
            section(ui, (focus, &mut shown), Panel::Compare, "Compare", true, |ui| {
                let deviation = self.frame.deviation();
                self.compare.compare_ui(
                    ui,
                    &self.model,
                    self.model_generation,
                    self.playback.clip(),
                    &self.tuning,
                    deviation,
                );
                ui.separator();
                ui.strong("A/B: two files");
                let clip = self.playback.clip();
                let settings = clip.map_or_else(|| self.tuning.sampling(usize::MAX), |c| self.tuning.sampling(c));
                if self.ab.ab_ui(ui, &self.model, self.model_generation, clip, settings) {
                    self.file.request(PathPurpose::OpenSecond);
                }
                if self.ab.active() && self.compare.enabled {
                    ui.weak("A | B is shown instead of the two modes while both are on.");
                }
            });
            egui::CollapsingHeader::new("Compare transition kinds").default_open(false).show(ui, |ui| {
                let from = self.playback.clip().unwrap_or(0);
                let names = self.clip_names();
                let name = |c: usize| names.get(c).map_or("?", String::as_str);
                let pair = format!("{} -> {}", name(from), name(self.crossfade.to_clip));
                let source_secs = self.model.clips.get(from).map_or(0.0, anim::Clip::end_secs);
                self.compare.kinds.kinds_ui(ui, &pair, source_secs);
            });
            section(ui, (focus, &mut shown), Panel::Ragdoll, "Ragdoll", true, |ui| {
                let names = self.clip_names();
                let model = &self.model;
                let node_name = |n: usize| crate::profile::node_display_name(model, n);
                let (selected, clock) = (self.selection.joint, self.playback.clock_secs());
                match self.ragdoll.ragdoll_ui(ui, &mut self.tuning.ragdoll, &names, node_name, selected, clock) {
                    Some(RagdollAction::GoLimp) => _ = self.go_limp(),
                    Some(RagdollAction::GetUp) => _ = self.get_up(),
                    Some(RagdollAction::ResetPlacement) => self.reset_placement(),
                    None => {}
                }
            });
            section(ui, (focus, &mut shown), Panel::Record, "Record clip", false, |ui| {
                let clip = self.playback.clip().map(|c| (self.playback.clip_name(c), self.model.clips[c].end_secs()));
                if self.recorder.record_ui(ui, clip) {
                    let name = format!(
                        "{}-{}",
                        self.source.stem().unwrap_or_else(|| "character".to_owned()),
                        clip.map_or("rest", |(n, _)| n)
                    );
                    self.file.record_name = self.recorder.suggested_name(&name);
                    self.file.request(PathPurpose::RecordClip);
                }
            });
            let crowd_open = self.crowd.crowd.is_some();
            section(ui, (focus, &mut shown), Panel::Crowd, "Crowd", crowd_open, |ui| {
                if self.crowd.crowd_ui(ui, &self.model, self.tuning.interpolation().mode) {
                    self.frame_camera();
                }
            });
        });
        self.panel_in_view = panel_in_view(&shown, &scroll);
    }

    /// Menus, the path field, load progress, messages and the last error.
    fn top_bar_ui(&mut self, ui: &mut egui::Ui) {
        let mut file_action = None;
        // A plain row, not a menu bar: its buttons keep their frames (the field's Load button).
        ui.horizontal(|ui| {
            ui.menu_button("File", |ui| file_action = self.file.menu_ui(ui));
            ui.menu_button("Edit", |ui| {
                let undo = egui::Button::new("Undo").shortcut_text("Ctrl+Z");
                if ui.add_enabled(self.history.undo_steps() > 0, undo).clicked() {
                    self.undo();
                    ui.close();
                }
                let redo = egui::Button::new("Redo").shortcut_text("Ctrl+Shift+Z");
                if ui.add_enabled(self.history.redo_steps() > 0, redo).clicked() {
                    self.redo();
                    ui.close();
                }
            });
            ui.menu_button("View", |ui| {
                ui.checkbox(&mut self.overlays.skeleton, "Skeleton (K)");
                ui.checkbox(&mut self.overlays.trajectory, "Trajectory")
                    .on_hover_text("The root's path over the clip (cyan) and its trail through fades and loops (orange), on the ground");
                ui.checkbox(&mut self.ragdoll.show_colliders, "Ragdoll colliders");
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
    fn status_bar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal_centered(|ui| {
            if let Some(job) = &self.loading {
                let name = job
                    .path
                    .file_name()
                    .map_or_else(|| job.path.display().to_string(), |n| n.to_string_lossy().into_owned());
                let elapsed = job.started.elapsed().as_secs_f32();
                let cancel =
                    ui.small_button("Cancel").on_hover_text("Stop loading; the model on screen stays").clicked();
                match job.stage() {
                    LoadStage::Reading(fraction) => {
                        ui.add(egui::ProgressBar::new(fraction).desired_width(200.0).text(format!(
                            "reading {name}: {:.0}% of {:.1} MiB",
                            fraction * 100.0,
                            job.total_bytes() as f64 / 1048576.0
                        )));
                    }
                    LoadStage::Importing => {
                        ui.spinner();
                        ui.label(format!("importing {name} ({elapsed:.1} s)"));
                    }
                }
                if cancel && let Some(job) = self.loading.take() {
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
    fn dropped_files_ui(&mut self, ui: &mut egui::Ui) {
        let (hovered, dropped) = ui
            .input(|i| (!i.raw.hovered_files.is_empty(), i.raw.dropped_files.first().map(|f| f.path().to_path_buf())));
        if let Some(path) = dropped {
            self.load(&path);
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

    /// The keyboard shortcuts of [`SHORTCUTS`] (the one table, also printed into the docs): each
    /// tried in order; those not marked `in_text_fields` only while no text field has the keyboard.
    fn shortcuts_ui(&mut self, ui: &mut egui::Ui) {
        for shortcut in SHORTCUTS {
            if !shortcut.in_text_fields && ui.ctx().text_edit_focused() {
                continue;
            }
            let pressed = shortcut.keys.iter().any(|&(modifiers, key)| ui.input_mut(|i| i.consume_key(modifiers, key)));
            if pressed {
                self.run_shortcut(shortcut.action);
            }
        }
    }

    /// Do what a keyboard shortcut says.
    fn run_shortcut(&mut self, action: ShortcutAction) {
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
            ShortcutAction::PlayPause => self.playback.toggle_play(),
            ShortcutAction::StepBack => self.playback.step_frames(-1),
            ShortcutAction::StepForward => self.playback.step_frames(1),
            ShortcutAction::FirstFrame => self.playback.go_to_start(),
            ShortcutAction::LastFrame => self.playback.go_to_end(),
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
        }
    }
}

/// True when a reloaded model's bounds differ from the old ones enough that the old camera no
/// longer frames it: its centre moved by over half its radius, or its size changed by over
/// half.
fn bounds_differ(before: &Aabb, after: &Aabb) -> bool {
    if before.is_empty() || after.is_empty() {
        return before.is_empty() != after.is_empty();
    }
    let (size_before, size_after) = (before.radius().max(1e-6), after.radius().max(1e-6));
    let ratio = size_after / size_before;
    after.center().distance(before.center()) > 0.5 * size_before || !(0.67..=1.5).contains(&ratio)
}
