//! [`Viewer`]: the whole interactive viewer — the [`Stage`] (the character, its clock, tuning,
//! selection, pose producers, ragdoll and frame output) and the panels that draw it — with the
//! one `ui` that lays them out, the keyboard shortcuts, and what only the window has (the
//! profile store, files, camera, A/B file, recorder, messages).
//!
//! A frame: [`Viewer::advance`] (the stage's clock), [`Viewer::ui`] (input, panels, actions; ends
//! by computing the stage's frame output once), then the renderer reads the frame output.

mod files;
mod layout;
mod models;
mod sections;

use std::path::{Path, PathBuf};

use anim::Model;
use glam::Vec3;

use crate::profile::{ModelIdentity, RecentFiles, ViewerSettings, recent_files_path, viewer_settings_path};
use crate::render::Aabb;

use super::ab_view::AbView;
use super::crossfade::{CrossFadeAction, CrossFadePanel};
use super::curves::CurvesPanel;
use super::file_menu::{FileAction, FileMenu, PathPurpose};
use super::hot_reload::HotReload;
use super::joints::JointsPanel;
use super::overlays::Overlays;
use super::profiles::{ProfileAction, ProfileStore};
use super::ragdoll::RagdollAction;
use super::recorder::{RecordPanel, ViewState};
use super::shortcuts::{SHORTCUTS, ShortcutAction};
use super::viewport::ViewportPanel;
use crate::stage::frame::ViewClick;
use crate::stage::loading::{LoadJob, LoadStage};
use crate::stage::{ModelSource, Stage};
pub use sections::Panel;
use sections::{panel_in_view, section};

/// Side panel width limits, in points.
const SIDE_PANEL_WIDTH: std::ops::RangeInclusive<f32> = 300.0..=900.0;

/// Height of the status bar (one line, always there: messages appear without moving anything).
const STATUS_BAR_HEIGHT: f32 = 24.0;

/// The whole viewer.
#[derive(Debug)]
pub struct Viewer {
    /// The character on stage: model, clock, tuning, selection, pose producers, ragdoll and
    /// the frame output (the panels read it and change it through its methods).
    pub stage: Stage,
    /// The model's tuning profile.
    pub profile: ProfileStore,
    /// A second file beside the model on screen (A/B).
    pub ab: AbView,
    /// The Blend space section's readout.
    pub blend_space: super::blend_space::BlendSpacePanel,
    /// Compare ▸ Retarget from file.
    pub retarget: super::retarget::RetargetPanel,
    /// Skeleton and Stats overlays.
    pub overlays: Overlays,
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
    /// The State machine section: drive keys and their states, parameter key bindings, the
    /// edit forms' drafts.
    pub machine_panel: super::machine::MachinePanel,
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
        let width = ViewerSettings::default().side_panel_width;
        let mut viewer = Self {
            stage: Stage::new(model, source, tuning),
            profile,
            ab: AbView::default(),
            retarget: super::retarget::RetargetPanel::default(),
            blend_space: super::blend_space::BlendSpacePanel::default(),
            overlays: Overlays::default(),
            loading: None,
            hot_reload: HotReload::default(),
            recorder: RecordPanel::default(),
            error: None,
            viewport: ViewportPanel::default(),
            file: FileMenu::default(),
            crossfade: CrossFadePanel::default(),
            joints: JointsPanel::default(),
            machine_panel: super::machine::MachinePanel::default(),
            curves: CurvesPanel::default(),
            side_panel_width: width,
            focus_panel: None,
            panel_in_view: None,
            saved_side_panel_width: width,
            config_dir: None,
            quit_requested: false,
        };
        viewer.file.export_name = viewer.profile.identity().name.clone();
        viewer.file.show_model(viewer.stage.source().path.as_deref());
        viewer.viewport.set_facing(crate::physics::anatomy::facing_direction(viewer.stage.model()));
        viewer.frame_camera();
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
        let (profile, tuning) =
            ProfileStore::open(self.config_dir.clone(), self.stage.model(), identity, &self.stage.source().label);
        self.profile = profile;
        self.stage.set_tuning(tuning);
        self
    }

    /// The profiles folder, if any.
    pub fn config_dir(&self) -> Option<&Path> {
        self.config_dir.as_deref()
    }

    /// Display names of the model's clips.
    pub fn clip_names(&self) -> Vec<String> {
        self.stage.clip_names()
    }

    /// True once File ▸ Quit or Ctrl+Q asked to close (the shell saves and exits).
    pub fn quit_requested(&self) -> bool {
        self.quit_requested
    }

    /// The joint a click in the 3D view selects: in B's half of a side-by-side A/B view, B's
    /// joint there as B is posed (A's node of the same name); elsewhere the joint drawn there
    /// (A, or the compare pose in its half).
    pub fn pick_joint_at(&self, click: ViewClick) -> Option<anim::NodeId> {
        /// How near a click must be to a joint, in pixels.
        const PICK_RADIUS_PX: f32 = 14.0;
        if click.right_view && self.ab.is_split() {
            return self.ab.pick_joint_in_b(&self.viewport.camera, click, PICK_RADIUS_PX);
        }
        let camera = &self.viewport.camera;
        self.stage.frame().pick_joint(
            self.stage.model(),
            camera,
            click.position_px,
            click.view_size_px,
            PICK_RADIUS_PX,
            click.right_view,
        )
    }

    // ---- Frames ----

    /// Advance the stage's clock by `dt_secs` of wall time ([`Stage::advance`]).
    pub fn advance(&mut self, dt_secs: f32) {
        self.stage.advance(dt_secs);
    }

    /// Compute this frame's output ([`Stage::compute_frame`]) and the A/B file's pose at the
    /// same time (once per frame; [`Self::ui`] calls it).
    pub fn compute_frame(&mut self) {
        self.stage.trajectory = self.overlays.trajectory;
        self.stage.compute_frame();
        self.compute_ab();
    }

    /// The A/B file's pose at the clip and time on screen (while rewound, the stored frame's).
    fn compute_ab(&mut self) {
        let shown = self.stage.shown();
        let (clip, time_secs) = (shown.clip, shown.clip_secs);
        let settings = self.stage.tuning.sampling_or_authored(clip);
        self.ab.compute(self.stage.model(), clip, time_secs, settings);
    }

    /// The cross-fade panel's measured quality of `from → to` as tuned (this transition, and a
    /// cross-fade of the same duration).
    pub fn crossfade_measured(
        &mut self,
        from: anim::ClipId,
        to: anim::ClipId,
    ) -> Option<(crate::transitions::TransitionReport, crate::transitions::TransitionReport)> {
        self.crossfade.measured_pair(self.stage.model(), &self.stage.tuning, from, to)
    }

    /// Foot contacts of `clip` as phase sync uses them (edited markers, else found).
    pub fn crossfade_contacts(&mut self, clip: anim::ClipId) -> Vec<anim::FootContact> {
        self.crossfade.contacts(self.stage.model(), &self.stage.tuning.clip_extras, clip)
    }

    /// One frame without UI (tests, scripts): [`Stage::step`], then the A/B pose.
    pub fn step(&mut self, dt_secs: f32) {
        self.stage.trajectory = self.overlays.trajectory;
        self.stage.step(dt_secs);
        self.compute_ab();
    }

    // ---- Operations that span parts ----

    /// Transition to the stage's fade target from what is on screen ([`Stage::trigger_fade`]),
    /// with the clips' foot contacts as phase sync uses them.
    pub fn trigger_fade(&mut self) {
        let to = self.stage.fade_target;
        let Some(source) = self.stage.transport.clip().map(|_| self.stage.transport.fader().current_clip()) else {
            return;
        };
        let extras = &self.stage.tuning.clip_extras;
        let from_contacts = self.crossfade.contacts(self.stage.model(), extras, source);
        let to_contacts = self.crossfade.contacts(self.stage.model(), extras, to);
        let contacts = |clip: anim::ClipId| if clip == to { to_contacts.clone() } else { from_contacts.clone() };
        self.stage.trigger_fade(to, &contacts);
    }

    /// Hand the character to the ragdoll now ([`Stage::go_limp`]), the selected bone pushed
    /// away from the camera when a push strength is set. False (with a status) when no ragdoll
    /// fits.
    pub fn go_limp(&mut self) -> bool {
        let push = self.stage.tuning.ragdoll.push_newton_secs;
        let push = (push > 0.0).then(|| {
            let away = -self.viewport.camera.eye_direction();
            let horizontal = Vec3::new(away.x, 0.0, away.z).try_normalize().unwrap_or(Vec3::X);
            crate::stage::ragdoll::Push {
                node: self.stage.selection.joint,
                impulse_newton_secs: (horizontal + Vec3::Y * 0.3).normalize() * push,
            }
        });
        self.stage.go_limp(push)
    }

    /// Get up from the ragdoll ([`Stage::get_up`]); the camera, which framed the body on the
    /// floor, frames the clip the character gets up into when it would cut it off.
    pub fn get_up(&mut self) -> bool {
        if !self.stage.get_up() {
            return false;
        }
        let standing = self.stage.standing_bounds();
        if !self.viewport.camera.sees(&standing, self.viewport.view_aspect(self.split_view())) {
            self.viewport.frame_bounds(standing, self.viewport.view_aspect(self.split_view()));
        }
        true
    }

    /// Play the clips where they were authored again (undo get-up relocations).
    pub fn reset_placement(&mut self) {
        self.stage.reset_placement();
    }

    /// Frame the camera on what is drawn now (F): the crowd, else the pose on screen (and the
    /// compare pose) plus — while the animation drives it — the playing clip's whole motion;
    /// a fallen ragdoll is framed where it lies.
    pub fn frame_camera(&mut self) {
        let bounds = self.bounds_on_screen();
        let aspect = self.viewport.view_aspect(self.split_view());
        self.viewport.frame_bounds(bounds, aspect);
    }

    fn bounds_on_screen(&self) -> Aabb {
        self.stage.bounds_on_screen()
    }

    /// True when the 3D view shows two views side by side: A | B while the A/B view is on,
    /// else the two compared modes.
    pub fn split_view(&self) -> bool {
        if self.ab.active() { self.ab.is_split() } else { self.stage.compare.is_split() }
    }

    /// The 3D view's labels: A | B, or the two compared modes.
    pub fn view_labels(&self) -> super::viewport::ViewLabels {
        use super::viewport::ViewLabels;
        use crate::stage::compare::CompareLayout;
        if let Some(file) = self.ab.file.as_ref().filter(|_| self.ab.active()) {
            let b = file
                .path
                .file_name()
                .map_or_else(|| file.path.display().to_string(), |n| n.to_string_lossy().into_owned());
            let a = self.stage.source().short_name();
            return match self.ab.layout {
                CompareLayout::Split => ViewLabels::Split([format!("A: {a}"), format!("B: {b}")]),
                CompareLayout::Ghost => ViewLabels::Overlay(format!("A: {a} (solid) / B: {b} (ghost)")),
            };
        }
        if let Some([left, right]) = self.stage.compare.kinds.labels() {
            return ViewLabels::Split([left.to_owned(), right.to_owned()]);
        }
        match self.stage.compare.active() {
            Some(modes) if modes.layout == CompareLayout::Split => {
                ViewLabels::Split([modes.left.name().to_owned(), modes.right.name().to_owned()])
            }
            Some(modes) => ViewLabels::Overlay(format!("solid: {} / ghost: {}", modes.left.name(), modes.right.name())),
            None => ViewLabels::One,
        }
    }

    /// Go to `state` through the state machine's own transition ([`Stage::request_state`]); a
    /// refusal (no such state, no transition there) goes to the status bar.
    pub fn request_state(&mut self, state: anim::state_machine::StateId) {
        if let Err(e) = self.stage.request_state(state) {
            let name = self.stage.machine().state_name(state);
            self.error = Some(format!("State machine: cannot go to {name}: {e}"));
        }
    }

    /// Apply what the State machine section returned: a state request, a parameter set
    /// (evaluated on the next step) or an edit of the machine (one undo step); a refusal goes
    /// to the status bar.
    pub fn apply_machine_action(&mut self, action: super::machine::MachineAction) {
        use super::machine::MachineAction;
        let result = match action {
            MachineAction::Request(state) => {
                self.request_state(state);
                return;
            }
            MachineAction::Edit(edit) => {
                if let Err(e) = self.stage.apply_machine_edit(&edit) {
                    self.error = Some(format!("State machine: edit not applied: {e}"));
                }
                return;
            }
            MachineAction::ExportGodot => {
                self.file.request(super::file_menu::PathPurpose::ExportGodot);
                return;
            }
            MachineAction::ExportBevy => {
                self.file.request(super::file_menu::PathPurpose::ExportBevy);
                return;
            }
            MachineAction::SetFloat(param, value) => {
                let (machine, runtime) = self.stage.machine_mut().parts_mut();
                runtime.set_float(machine, param, value)
            }
            MachineAction::SetBool(param, value) => {
                let (machine, runtime) = self.stage.machine_mut().parts_mut();
                runtime.set_bool(machine, param, value)
            }
            MachineAction::Fire(param) => {
                let (machine, runtime) = self.stage.machine_mut().parts_mut();
                runtime.fire(machine, param)
            }
        };
        if let Err(e) = result {
            self.error = Some(format!("State machine: {e}"));
        }
    }

    /// Undo the last tuning change.
    pub fn undo(&mut self) -> bool {
        self.stage.undo()
    }

    /// Redo the last undone tuning change.
    pub fn redo(&mut self) -> bool {
        self.stage.redo()
    }

    /// Crowd mode on with `count` instances, or off; the camera frames the result.
    pub fn set_crowd(&mut self, count: Option<usize>) {
        self.stage.set_crowd(count);
        self.frame_camera();
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
