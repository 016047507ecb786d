//! [`ViewerState`]: everything the viewer shows and edits, as plain data (no window, no GPU), so
//! that panels can be tested headless.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use anim::ragdoll::Placement;
use anim::{
    ClipCursor, ClipId, CrossFader, Easing, InterpolationOverride, LocalMatrices, Model, Property, RotationSpace,
    SampleSettings, ScaleSpace, SoaPose, TrackSample,
};
use glam::{Affine3A, Quat, Vec2, Vec3};

use crate::crowd::Crowd;
use crate::profile::{
    ChannelMode, InterpolationTuning, PROFILE_FORMAT, RagdollProfile, RecentFiles, Transition, TuningProfile,
    profile_path, recent_files_path,
};
use crate::render::framing::animated_bounds;
use crate::render::overlay::{OverlayLine, push_capsule_wireframe};
use crate::render::{Aabb, OrbitCamera};

use super::loading::LoadJob;
use super::ragdoll::RagdollView;

/// Seed of the viewer's crowds (the same crowd every time).
const CROWD_SEED: u64 = 0x5eed;

/// Seconds of cross-fade weight history kept for the plot.
pub const FADE_HISTORY_SECS: f64 = 4.0;

/// How the two compared poses are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompareLayout {
    /// Two viewports side by side, same camera.
    #[default]
    Split,
    /// One viewport: the left mode solid, the right mode as a translucent ghost over it.
    Ghost,
}

/// Two interpolation modes compared at the same time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareModes {
    /// Left view (the solid model in the ghost layout).
    pub left: InterpolationOverride,
    /// Right view (the ghost in the ghost layout).
    pub right: InterpolationOverride,
    /// Side by side or ghost overlay.
    pub layout: CompareLayout,
    /// Paint the per-joint deviation on the (left) mesh.
    pub heatmap: bool,
    /// Deviation painted fully red, in model units (metres in glTF).
    pub heat_full_scale: f32,
}

impl Default for CompareModes {
    fn default() -> Self {
        Self {
            left: InterpolationOverride::Linear,
            right: InterpolationOverride::Cubic,
            layout: CompareLayout::Split,
            heatmap: false,
            heat_full_scale: 0.02,
        }
    }
}

/// Largest difference between two poses in model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseDeviation {
    /// Largest joint position difference, in model units (metres in glTF).
    pub max_distance: f32,
    /// Node where it happens.
    pub distance_node: usize,
    /// Largest joint orientation difference, in radians.
    pub max_angle_rad: f32,
    /// Node where it happens.
    pub angle_node: usize,
}

/// What a non-default rotation or scale space does to the current pose, against the reference
/// (slerp, linear scale) at the same time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrongSpaceEffect {
    /// Smallest matrix-lerp column length over the clip's rotation tracks (1 = no shrink).
    pub min_shrink: f32,
    /// Node with the smallest column length.
    pub shrink_node: Option<usize>,
    /// Largest rotation difference from slerp over the rotation tracks, in radians.
    pub max_rotation_error_rad: f32,
    /// Node with the largest rotation difference.
    pub rotation_node: Option<usize>,
    /// Largest relative scale difference from linear scale interpolation.
    pub max_scale_error: f32,
}

/// The cross-fade the user sets up in the cross-fade panel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FadeRequest {
    /// Clip faded from (restarted at its current time if it is playing, else at 0).
    pub from_clip: usize,
    /// Clip faded to.
    pub to_clip: usize,
    /// Fade length in seconds.
    pub duration_secs: f32,
    /// Easing of the fade weight.
    pub easing: Easing,
}

/// Everything the viewer shows and edits.
#[derive(Debug)]
pub struct ViewerState {
    /// The model on screen.
    pub model: Model,
    /// Where it came from (a path or "built-in character").
    pub model_label: String,
    /// Bumped whenever `model` is replaced (the GPU side re-uploads).
    pub model_generation: u64,
    /// Playing clip (`None`: the model has no clips; the rest pose shows).
    pub clip: Option<usize>,
    /// Playback time in the clip, seconds, within `[0, duration]`.
    pub time_secs: f32,
    /// Whether time advances.
    pub playing: bool,
    /// Playback speed factor (0.1–4).
    pub speed: f32,
    /// Wrap at the end (true) or stop on the last frame.
    pub looping: bool,
    /// Sampling settings (override, rotation and scale spaces, easing).
    pub settings: SampleSettings,
    /// Cross-fades between clips.
    pub fader: CrossFader,
    /// The next cross-fade to trigger.
    pub fade: FadeRequest,
    /// Recent fade weights: `[viewer seconds, weight faded from, weight of the clip faded to]`.
    pub fade_history: VecDeque<[f64; 3]>,
    /// Viewer clock, seconds since start (for the weight plot).
    pub clock_secs: f64,
    /// The orbit camera.
    pub camera: OrbitCamera,
    /// Draw bones and joints over the mesh.
    pub skeleton: bool,
    /// Selected joint (node index) for curves and the skeleton highlight.
    pub selected_joint: Option<usize>,
    /// Channel plotted for the selected joint.
    pub selected_property: Property,
    /// Split view with two interpolation modes, when set.
    pub compare: Option<CompareModes>,
    /// Last load error, shown until dismissed or the next successful load.
    pub error: Option<String>,
    /// A model loading in the background (the current one stays until it is ready).
    pub loading: Option<LoadJob>,
    /// File ▸ Recent (persisted beside the profiles when [`Self::profile_dir`] is set).
    pub recent: RecentFiles,
    /// The current pose (updated by [`Self::update_pose`]).
    pub pose: SoaPose,
    /// The right-hand pose of the compare view.
    pub compare_pose: SoaPose,
    /// The ragdoll: tuning, live controller and weight history.
    pub ragdoll: RagdollView,
    /// Per-channel interpolation overrides: clip → track → mode (applied over the clip's mode).
    pub channel_modes: BTreeMap<usize, BTreeMap<usize, InterpolationOverride>>,
    /// Per node: the compare deviation heat in `[0, 1]` (distance / full scale), when the
    /// heatmap is on.
    pub compare_heat: Vec<f32>,
    /// Collider wireframes in model space, when shown.
    pub collider_lines: Vec<OverlayLine>,
    /// Where the character plays its clips: a turn and an offset of every root node, set by
    /// getting up from a ragdoll so that the clip starts where, and turned how, the body lies.
    pub placement: Placement,
    /// Crowd mode: many copies of the model, each with its own clips and fades (the 3D view
    /// then shows the crowd instead of the single character).
    pub crowd: Option<Crowd>,
    /// CPU milliseconds of the last crowd update (smoothed).
    pub crowd_update_ms: f32,
    /// Remembered fade settings per (from, to) clip pair: the transition table.
    pub transitions: BTreeMap<(usize, usize), (f32, Easing)>,
    /// Folder of tuning profiles (`None`: nothing is loaded or saved).
    pub profile_dir: Option<PathBuf>,
    /// What happened to the profile last (loaded, saved, or why not).
    pub profile_status: Option<String>,
    saved_profile: Option<TuningProfile>,
    last_save_clock_secs: f64,
    rest: SoaPose,
    /// The animation alone (before the ragdoll blend).
    animated: SoaPose,
    /// Scratch of the local→model job.
    locals: LocalMatrices,
    /// Clip seconds the ragdoll has not yet been advanced by.
    pending_ragdoll_dt_secs: f32,
    cursor: Option<ClipCursor>,
    model_from_node_a: Vec<Affine3A>,
    model_from_node_b: Vec<Affine3A>,
}

impl ViewerState {
    /// A viewer on `model`, playing its first clip from time 0.
    pub fn new(model: Model, model_label: String) -> Self {
        let clip = (!model.clips.is_empty()).then_some(0);
        let fader = CrossFader::new(&model, ClipId::from_index(0));
        let pose = model.rest_pose();
        let mut state = Self {
            model_label,
            model_generation: 0,
            clip,
            time_secs: 0.0,
            playing: true,
            speed: 1.0,
            looping: true,
            settings: SampleSettings::default(),
            fader,
            fade: FadeRequest { from_clip: 0, to_clip: 0, duration_secs: 0.3, easing: Easing::Smoothstep },
            fade_history: VecDeque::new(),
            clock_secs: 0.0,
            camera: OrbitCamera::default(),
            skeleton: false,
            selected_joint: None,
            selected_property: Property::Rotation,
            compare: None,
            error: None,
            loading: None,
            recent: RecentFiles::default(),
            compare_pose: pose.clone(),
            ragdoll: RagdollView::default(),
            channel_modes: BTreeMap::new(),
            compare_heat: Vec::new(),
            collider_lines: Vec::new(),
            crowd: None,
            crowd_update_ms: 0.0,
            placement: Placement::IDENTITY,
            transitions: BTreeMap::new(),
            profile_dir: None,
            profile_status: None,
            saved_profile: None,
            last_save_clock_secs: 0.0,
            rest: pose.clone(),
            animated: pose.clone(),
            pending_ragdoll_dt_secs: 0.0,
            locals: LocalMatrices::new(model.nodes.len()),
            pose,
            cursor: None,
            model_from_node_a: Vec::new(),
            model_from_node_b: Vec::new(),
            model,
        };
        state.reset_for_model();
        state
    }

    /// Keep tuning profiles in `dir` (loading this model's profile now).
    #[must_use]
    pub fn with_profile_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.profile_dir = dir;
        if let Some(dir) = &self.profile_dir {
            self.recent = RecentFiles::load(&recent_files_path(dir));
        }
        self.load_profile();
        self
    }

    /// Replace the model (keeps the playback settings that still apply) and load its profile.
    pub fn set_model(&mut self, model: Model, label: String) {
        self.save_profile_if_changed(true);
        self.model = model;
        self.model_label = label;
        self.model_generation += 1;
        self.error = None;
        self.transitions.clear();
        self.saved_profile = None;
        self.reset_for_model();
        self.load_profile();
    }

    /// The current tunables as a profile.
    pub fn tuning_profile(&self) -> TuningProfile {
        let name = |clip: usize| self.model.clips.get(clip).map(|c| c.display_name(clip)).unwrap_or_default();
        TuningProfile {
            format: PROFILE_FORMAT,
            model: self.model_label.clone(),
            interpolation: InterpolationTuning {
                mode: self.settings.mode.name().to_owned(),
                channel_modes: self
                    .channel_modes
                    .iter()
                    .flat_map(|(&clip, modes)| modes.iter().map(move |(&track, &mode)| (clip, track, mode)))
                    .filter_map(|(clip, track, mode)| {
                        let t = self.model.clips.get(clip)?.tracks().get(track)?;
                        Some(ChannelMode {
                            clip: name(clip),
                            node: self.node_name(t.node.index()),
                            channel: t.property().gltf_name().to_owned(),
                            mode: mode.name().to_owned(),
                        })
                    })
                    .collect(),
                rotation_space: self.settings.rotation_space.name().to_owned(),
                scale_space: self.settings.scale_space.name().to_owned(),
                easing: self.settings.easing.name().to_owned(),
            },
            transitions: self
                .transitions
                .iter()
                .map(|(&(from, to), &(duration_secs, easing))| Transition {
                    from: name(from),
                    to: name(to),
                    duration_secs,
                    easing: easing.name().to_owned(),
                })
                .collect(),
            ragdoll: Some({
                let t = &self.ragdoll.tuning;
                RagdollProfile {
                    ramp_rate_per_sec: t.ramp_rate_per_sec,
                    easing: t.easing.name().to_owned(),
                    get_up_clip: name(t.get_up_clip),
                    get_up_secs: t.get_up_secs,
                    push_newton_secs: t.push_newton_secs,
                }
            }),
        }
    }

    /// Apply a profile: names that do not parse and clips this model lacks are skipped.
    pub fn apply_profile(&mut self, profile: &TuningProfile) {
        let i = &profile.interpolation;
        self.settings.mode = i.mode.parse().unwrap_or(self.settings.mode);
        self.settings.rotation_space = i.rotation_space.parse().unwrap_or(self.settings.rotation_space);
        self.settings.scale_space = i.scale_space.parse().unwrap_or(self.settings.scale_space);
        self.settings.easing = i.easing.parse().unwrap_or(self.settings.easing);
        let index = |name: &str| self.model.clips.iter().enumerate().position(|(i, c)| c.display_name(i) == name);
        self.channel_modes.clear();
        for channel in &i.channel_modes {
            let (Some(clip), Ok(mode)) = (index(&channel.clip), channel.mode.parse::<InterpolationOverride>()) else {
                continue;
            };
            let track = self.model.clips[clip].tracks().iter().position(|t| {
                t.property().gltf_name() == channel.channel && self.node_name(t.node.index()) == channel.node
            });
            if let Some(track) = track {
                self.channel_modes.entry(clip).or_default().insert(track, mode);
            }
        }
        for t in &profile.transitions {
            if let (Some(from), Some(to), Ok(easing)) = (index(&t.from), index(&t.to), t.easing.parse::<Easing>()) {
                let duration = if t.duration_secs.is_finite() { t.duration_secs.clamp(0.0, 10.0) } else { 0.3 };
                self.transitions.insert((from, to), (duration, easing));
            }
        }
        if let Some(r) = &profile.ragdoll {
            let t = &mut self.ragdoll.tuning;
            let finite_in =
                |v: f32, lo: f32, hi: f32, fallback: f32| if v.is_finite() { v.clamp(lo, hi) } else { fallback };
            t.ramp_rate_per_sec = finite_in(r.ramp_rate_per_sec, 0.01, 10_000.0, t.ramp_rate_per_sec);
            t.easing = r.easing.parse().unwrap_or(t.easing);
            t.get_up_clip = index(&r.get_up_clip).unwrap_or(t.get_up_clip);
            t.get_up_secs = finite_in(r.get_up_secs, 0.0, 10.0, t.get_up_secs);
            t.push_newton_secs = finite_in(r.push_newton_secs, 0.0, 10_000.0, t.push_newton_secs);
        }
        self.recall_transition();
        self.update_pose();
    }

    fn load_profile(&mut self) {
        let Some(dir) = &self.profile_dir else { return };
        let path = profile_path(dir, &self.model_label);
        if !path.exists() {
            self.saved_profile = Some(self.tuning_profile());
            return;
        }
        match TuningProfile::load(&path) {
            Ok(profile) => {
                self.apply_profile(&profile);
                self.profile_status = Some(format!("profile loaded from {}", path.display()));
            }
            Err(error) => self.profile_status = Some(format!("profile not loaded: {error:#}")),
        }
        self.saved_profile = Some(self.tuning_profile());
    }

    /// Save the profile when it changed since the last save (at most twice a second unless
    /// `now`). Failures are reported in [`Self::profile_status`], never fatal.
    pub fn save_profile_if_changed(&mut self, now: bool) {
        let Some(dir) = self.profile_dir.clone() else { return };
        if !now && self.clock_secs - self.last_save_clock_secs < 0.5 {
            return;
        }
        let profile = self.tuning_profile();
        if self.saved_profile.as_ref() == Some(&profile) {
            return;
        }
        self.last_save_clock_secs = self.clock_secs;
        let path = profile_path(&dir, &self.model_label);
        match profile.save_atomic(&path) {
            Ok(()) => self.profile_status = Some(format!("profile saved to {}", path.display())),
            Err(error) => self.profile_status = Some(format!("profile not saved: {error:#}")),
        }
        self.saved_profile = Some(profile);
    }

    /// Write the profile to `path` (export).
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn export_profile(&self, path: &Path) -> anyhow::Result<()> {
        self.tuning_profile().save_atomic(path)
    }

    /// Set the fade duration and easing from the transition table for the chosen pair.
    pub fn recall_transition(&mut self) {
        if let Some(&(duration_secs, easing)) = self.transitions.get(&(self.fade.from_clip, self.fade.to_clip)) {
            self.fade.duration_secs = duration_secs;
            self.fade.easing = easing;
        }
    }

    /// Remember the fade duration and easing for the chosen pair.
    pub fn remember_transition(&mut self) {
        self.transitions.insert((self.fade.from_clip, self.fade.to_clip), (self.fade.duration_secs, self.fade.easing));
    }

    /// Start loading `path` in the background (replacing a load in progress); the current model
    /// stays until [`Self::poll_loading`] finds the new one ready. On failure the current model
    /// stays and the error is recorded.
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
                self.set_model(model, job.path.display().to_string());
                self.recent.add(&job.path);
                if let Some(dir) = &self.profile_dir
                    && let Err(error) = self.recent.save(&recent_files_path(dir))
                {
                    self.profile_status = Some(format!("recent files not saved: {error:#}"));
                }
                true
            }
            Err(error) => {
                self.error = Some(error);
                false
            }
        }
    }

    fn reset_for_model(&mut self) {
        let clips = self.model.clips.len();
        self.clip = (clips > 0).then_some(0);
        self.time_secs = 0.0;
        self.fader = CrossFader::new(&self.model, ClipId::from_index(0));
        self.fader.looping = self.looping;
        self.fade.from_clip = 0;
        self.fade.to_clip = if clips > 1 { 1 } else { 0 };
        self.fade_history.clear();
        self.settings.track_modes.clear();
        self.channel_modes.clear();
        self.rest = self.model.rest_pose();
        self.pose = self.rest.clone();
        self.animated = self.rest.clone();
        self.compare_pose = self.rest.clone();
        self.ragdoll.reset_for_model(&self.model);
        self.placement = Placement::IDENTITY;
        if let Some(count) = self.crowd.as_ref().map(Crowd::len) {
            self.crowd = Some(Crowd::new(&self.model, count, CROWD_SEED));
        }
        self.pending_ragdoll_dt_secs = 0.0;
        self.cursor = self.clip.and_then(|c| self.model.clips.get(c)).map(ClipCursor::new);
        self.model_from_node_a = vec![Affine3A::IDENTITY; self.model.nodes.len()];
        self.model_from_node_b = vec![Affine3A::IDENTITY; self.model.nodes.len()];
        self.selected_joint = self.clip.and_then(|c| self.first_rotation_node(c));
        self.update_pose();
        self.frame_camera(16.0 / 9.0);
    }

    fn first_rotation_node(&self, clip: usize) -> Option<usize> {
        let clip = self.model.clips.get(clip)?;
        let tracks = clip.tracks();
        tracks.iter().find(|t| t.property() == Property::Rotation).or(tracks.first()).map(|t| t.node.index())
    }

    /// Duration of the playing clip (0 without one).
    pub fn duration_secs(&self) -> f32 {
        self.clip.and_then(|c| self.model.clips.get(c)).map_or(0.0, anim::Clip::duration_secs)
    }

    /// Switch to `clip` at time 0 (no fade).
    pub fn select_clip(&mut self, clip: usize) {
        if clip >= self.model.clips.len() {
            return;
        }
        self.clip = Some(clip);
        self.time_secs = 0.0;
        self.fader.play(ClipId::from_index(clip), 0.0);
        self.cursor = self.model.clips.get(clip).map(ClipCursor::new);
        self.update_pose();
    }

    /// Jump to `time_secs` in the playing clip (scrubbing; playback continues from there).
    pub fn seek(&mut self, time_secs: f32) {
        self.time_secs = time_secs.clamp(0.0, self.duration_secs());
        if let Some(clip) = self.clip {
            self.fader.play(ClipId::from_index(clip), self.time_secs);
        }
        self.update_pose();
    }

    /// Step by `frames` frames of 1/30 s (pauses playback).
    pub fn step_frames(&mut self, frames: i32) {
        self.playing = false;
        let duration = self.duration_secs();
        let mut time = self.time_secs + frames as f32 / 30.0;
        if self.looping && duration > 0.0 {
            time = time.rem_euclid(duration);
        }
        self.seek(time);
    }

    /// Start the cross-fade described by [`Self::fade`].
    pub fn trigger_fade(&mut self) {
        let clips = self.model.clips.len();
        let FadeRequest { from_clip, to_clip, duration_secs, easing } = self.fade;
        if from_clip >= clips || to_clip >= clips {
            return;
        }
        self.remember_transition();
        if !self.fader.is_fading() {
            let from_time = if self.clip == Some(from_clip) { self.time_secs } else { 0.0 };
            self.fader.play(ClipId::from_index(from_clip), from_time);
        }
        self.fader.trigger(ClipId::from_index(to_clip), duration_secs, easing);
        self.clip = Some(to_clip);
        self.time_secs = 0.0;
        self.cursor = self.model.clips.get(to_clip).map(ClipCursor::new);
        self.update_pose();
    }

    /// Advance the viewer clock by `dt_secs` of wall time (playback runs at `speed`).
    pub fn advance(&mut self, dt_secs: f32) {
        let dt_secs = if dt_secs.is_finite() { dt_secs.clamp(0.0, 0.25) } else { 0.0 };
        self.clock_secs += f64::from(dt_secs);
        let clip_dt = if self.playing { dt_secs * self.speed } else { 0.0 };
        self.fader.looping = self.looping;
        if self.fader.is_fading() {
            self.fader.advance(clip_dt);
            self.clip = Some(self.fader.current_clip().index());
            let duration = self.duration_secs();
            let time = self.fader.current_time_secs();
            self.time_secs =
                if self.looping && duration > 0.0 { time.rem_euclid(duration) } else { time.min(duration) };
        } else {
            let duration = self.duration_secs();
            let mut time = self.time_secs + clip_dt;
            if time > duration {
                if self.looping && duration > 0.0 {
                    time = time.rem_euclid(duration);
                } else {
                    time = duration;
                }
            }
            self.time_secs = time;
            if let Some(clip) = self.clip {
                self.fader.play(ClipId::from_index(clip), time);
            }
        }
        self.pending_ragdoll_dt_secs += clip_dt;
        if let Some(crowd) = &mut self.crowd {
            crowd.settings.mode = self.settings.mode;
            let start = std::time::Instant::now();
            crowd.update(&self.model, clip_dt);
            let ms = start.elapsed().as_secs_f32() * 1e3;
            self.crowd_update_ms = if self.crowd_update_ms > 0.0 { self.crowd_update_ms * 0.9 + ms * 0.1 } else { ms };
        }
        let mut weights = [0.0; anim::crossfade::MAX_LAYERS];
        self.fader.weights(&mut weights);
        let to_weight = self.fader.layers().len().checked_sub(1).map_or(1.0, |top| weights[top]);
        // Everything under the clip faded to (the clip faded from, earlier interrupted layers and
        // a frozen snapshot) is "from": the two weights sum to 1.
        self.fade_history.push_back([self.clock_secs, f64::from(1.0 - to_weight), f64::from(to_weight)]);
        while self.fade_history.front().is_some_and(|[t, _, _]| *t < self.clock_secs - FADE_HISTORY_SECS) {
            self.fade_history.pop_front();
        }
        self.update_pose();
        self.ragdoll.record(self.clock_secs);
    }

    /// Recompute [`Self::pose`] (and the compare pose) from the clip, time and settings, with
    /// the ragdoll blended over the animation while it is active (advanced by the clip time
    /// played since the last call).
    pub fn update_pose(&mut self) {
        self.sync_track_modes();
        if self.fader.is_fading() {
            // Per-channel overrides belong to one clip: a fade mixes clips, so they are off.
            let track_modes = std::mem::take(&mut self.settings.track_modes);
            let pose = self.fader.evaluate(&self.model, &self.settings);
            self.animated.copy_from(pose);
            self.settings.track_modes = track_modes;
        } else {
            sample_into(
                &self.model,
                &self.rest,
                self.clip,
                self.time_secs,
                &self.settings,
                &mut self.cursor,
                &mut self.animated,
            );
        }
        if let Some(compare) = self.compare {
            let left = SampleSettings { mode: compare.left, track_modes: Vec::new(), ..self.settings.clone() };
            let right = SampleSettings { mode: compare.right, track_modes: Vec::new(), ..self.settings.clone() };
            sample_into(
                &self.model,
                &self.rest,
                self.clip,
                self.time_secs,
                &left,
                &mut self.cursor,
                &mut self.animated,
            );
            sample_into(
                &self.model,
                &self.rest,
                self.clip,
                self.time_secs,
                &right,
                &mut self.cursor,
                &mut self.compare_pose,
            );
        }
        if !self.placement.is_identity() {
            self.placement.apply(&self.model.hierarchy, &mut self.animated);
            if self.compare.is_some() {
                self.placement.apply(&self.model.hierarchy, &mut self.compare_pose);
            }
        }
        let dt_secs = std::mem::take(&mut self.pending_ragdoll_dt_secs);
        self.ragdoll.apply(&self.model, dt_secs, &self.animated, &mut self.pose);
        self.update_overlays();
    }

    /// Recompute the deviation heat and collider wireframes for the current poses.
    fn update_overlays(&mut self) {
        self.compare_heat.clear();
        if let Some(compare) = self.compare.filter(|c| c.heatmap) {
            let hierarchy = &self.model.hierarchy;
            hierarchy.local_to_model(&self.pose, &mut self.locals, &mut self.model_from_node_a);
            hierarchy.local_to_model(&self.compare_pose, &mut self.locals, &mut self.model_from_node_b);
            let scale = compare.heat_full_scale.max(1e-6);
            self.compare_heat.extend(self.model_from_node_a.iter().zip(&self.model_from_node_b).map(|(a, b)| {
                let distance = Vec3::from(a.translation).distance(Vec3::from(b.translation));
                if distance.is_finite() { (distance / scale).min(1.0) } else { 1.0 }
            }));
        }
        self.collider_lines.clear();
        if self.ragdoll.show_colliders {
            self.model.hierarchy.local_to_model(&self.pose, &mut self.locals, &mut self.model_from_node_a);
            let color = if self.ragdoll.is_active() { [1.0, 0.55, 0.1, 1.0] } else { [0.2, 0.9, 0.9, 1.0] };
            let lines = &mut self.collider_lines;
            self.ragdoll.for_each_collider(&self.model, &self.model_from_node_a, |capsule| {
                push_capsule_wireframe(capsule.a, capsule.b, capsule.radius, color, lines);
            });
        }
    }

    /// Point [`SampleSettings::track_modes`] at the playing clip's per-channel overrides.
    fn sync_track_modes(&mut self) {
        let modes = &mut self.settings.track_modes;
        modes.clear();
        let Some(clip_modes) = self.clip.and_then(|c| self.channel_modes.get(&c)) else { return };
        let Some(tracks) = self.clip.and_then(|c| self.model.clips.get(c)).map(|c| c.tracks().len()) else { return };
        modes.resize(tracks, None);
        for (&track, &mode) in clip_modes {
            if let Some(slot) = modes.get_mut(track) {
                *slot = Some(mode);
            }
        }
    }

    /// Set (or with `None` clear) the override of `track` in the playing clip.
    pub fn set_channel_mode(&mut self, track: usize, mode: Option<InterpolationOverride>) {
        let Some(clip) = self.clip else { return };
        match mode {
            Some(mode) => {
                self.channel_modes.entry(clip).or_default().insert(track, mode);
            }
            None => {
                if let Some(modes) = self.channel_modes.get_mut(&clip) {
                    modes.remove(&track);
                    if modes.is_empty() {
                        self.channel_modes.remove(&clip);
                    }
                }
            }
        }
        self.update_pose();
    }

    /// The override of `track` in the playing clip, if any.
    pub fn channel_mode(&self, track: usize) -> Option<InterpolationOverride> {
        self.channel_modes.get(&self.clip?)?.get(&track).copied()
    }

    /// Track index of the selected joint's selected channel in the playing clip.
    pub fn selected_track(&self) -> Option<usize> {
        let clip = self.model.clips.get(self.clip?)?;
        let node = self.selected_joint?;
        clip.tracks().iter().position(|t| t.node.index() == node && t.property() == self.selected_property)
    }

    /// The animation pose alone, before the ragdoll blend.
    pub fn animated_pose(&self) -> &SoaPose {
        &self.animated
    }

    /// Hand the character to the ragdoll now: bodies start at the pose on screen with the
    /// animation's velocity (from the clip 1/60 s earlier), the selected bone pushed away from
    /// the camera when a push strength is set. Returns false (with a status) when no ragdoll fits.
    pub fn trigger_ragdoll(&mut self) -> bool {
        const BEFORE_SECS: f32 = 1.0 / 60.0;
        let mut before = self.rest.clone();
        if self.fader.is_fading() {
            before.copy_from(&self.animated);
        } else {
            let duration = self.duration_secs();
            let mut time = self.time_secs - BEFORE_SECS;
            if time < 0.0 {
                time = if self.looping && duration > 0.0 { time.rem_euclid(duration) } else { 0.0 };
            }
            sample_into(&self.model, &self.rest, self.clip, time, &self.settings, &mut self.cursor, &mut before);
            self.placement.apply(&self.model.hierarchy, &mut before);
        }
        let push = self.ragdoll.tuning.push_newton_secs;
        let push = (push > 0.0).then(|| {
            let away = -self.camera.eye_direction();
            let horizontal = Vec3::new(away.x, 0.0, away.z).try_normalize().unwrap_or(Vec3::X);
            (self.selected_joint.unwrap_or(0), (horizontal + Vec3::Y * 0.3).normalize() * push)
        });
        let shown = self.pose.clone();
        let started = self.ragdoll.trigger(&self.model, &shown, &before, BEFORE_SECS, push);
        self.pending_ragdoll_dt_secs = 0.0;
        started
    }

    /// Get up from the ragdoll: the clip for how the body lies (face up or face down), placed
    /// where it lies and turned the way the character will stand, restarted at 0 and blended into
    /// through the get-up's key poses ([`RagdollView::get_up`]). False when not ragdolling.
    pub fn ragdoll_get_up(&mut self) -> bool {
        let Some((clip, placement)) = self.ragdoll.get_up(&self.model, &self.settings) else { return false };
        self.placement = placement;
        if let Some(clip) = clip {
            self.select_clip(clip);
        }
        self.playing = true;
        true
    }

    /// Move the character back to where its clips put it (undo get-up relocations).
    pub fn reset_placement(&mut self) {
        self.placement = Placement::IDENTITY;
        self.update_pose();
    }

    /// Turn crowd mode on with `count` instances (capped at [`crate::crowd::MAX_CROWD`]), or
    /// off with `None`; the camera frames the result.
    pub fn set_crowd(&mut self, count: Option<usize>, aspect: f32) {
        self.crowd = count.filter(|&n| n > 0).map(|n| {
            let mut crowd = Crowd::new(&self.model, n, CROWD_SEED);
            crowd.settings.mode = self.settings.mode;
            crowd.update(&self.model, 0.0);
            crowd
        });
        self.frame_camera(aspect);
    }

    /// Frame the camera on the animated bounds of the playing clip (or the crowd) for a view of
    /// `aspect`.
    pub fn frame_camera(&mut self, aspect: f32) {
        let mut bounds = match &self.crowd {
            Some(crowd) => crowd.bounds(),
            None => {
                let b = animated_bounds(&self.model, self.clip.map(ClipId::from_index), &self.settings, 16);
                let mut placed = Aabb::EMPTY;
                if !b.is_empty() {
                    for corner in 0..8 {
                        let pick = |bit: usize, lo: f32, hi: f32| if corner & bit == 0 { lo } else { hi };
                        let p =
                            Vec3::new(pick(1, b.min.x, b.max.x), pick(2, b.min.y, b.max.y), pick(4, b.min.z, b.max.z));
                        placed.extend(self.placement.apply_point(p));
                    }
                }
                placed
            }
        };
        if bounds.is_empty() {
            bounds = Aabb { min: Vec3::splat(-1.0), max: Vec3::splat(1.0) };
        }
        let mut camera = OrbitCamera { yaw_rad: 0.6, pitch_rad: 0.22, ..OrbitCamera::default() };
        camera.frame(&bounds, aspect, 1.15);
        self.camera = camera;
    }

    /// Largest model-space difference between the two compare poses (`None` without compare).
    pub fn compare_deviation(&mut self) -> Option<PoseDeviation> {
        self.compare?;
        let hierarchy = &self.model.hierarchy;
        hierarchy.local_to_model(&self.pose, &mut self.locals, &mut self.model_from_node_a);
        hierarchy.local_to_model(&self.compare_pose, &mut self.locals, &mut self.model_from_node_b);
        let mut deviation = PoseDeviation { max_distance: 0.0, distance_node: 0, max_angle_rad: 0.0, angle_node: 0 };
        for (node, (a, b)) in self.model_from_node_a.iter().zip(&self.model_from_node_b).enumerate() {
            let distance = Vec3::from(a.translation).distance(Vec3::from(b.translation));
            if distance > deviation.max_distance {
                deviation.max_distance = distance;
                deviation.distance_node = node;
            }
            let (_, ra, _) = a.to_scale_rotation_translation();
            let (_, rb, _) = b.to_scale_rotation_translation();
            let angle = angle_between(ra, rb);
            if angle > deviation.max_angle_rad {
                deviation.max_angle_rad = angle;
                deviation.angle_node = node;
            }
        }
        Some(deviation)
    }

    /// What the chosen rotation and scale spaces do at the current time, against slerp and
    /// linear scale (`None` without a clip).
    pub fn wrong_space_effect(&self) -> Option<WrongSpaceEffect> {
        let clip = self.model.clips.get(self.clip?)?;
        let reference = SampleSettings {
            rotation_space: RotationSpace::Slerp,
            scale_space: ScaleSpace::Linear,
            ..self.settings.clone()
        };
        let mut effect = WrongSpaceEffect {
            min_shrink: 1.0,
            shrink_node: None,
            max_rotation_error_rad: 0.0,
            rotation_node: None,
            max_scale_error: 0.0,
        };
        let mut weights = vec![0.0; self.model.weight_count];
        for (index, track) in clip.track_ids() {
            let actual = clip.evaluate_track(index, self.time_secs, &self.settings, &mut weights);
            let wanted = clip.evaluate_track(index, self.time_secs, &reference, &mut weights);
            match (actual, wanted) {
                (
                    Some(TrackSample::Rotation { rotation, shrink }),
                    Some(TrackSample::Rotation { rotation: wanted, .. }),
                ) => {
                    let min_column = shrink.min_element();
                    if min_column < effect.min_shrink {
                        effect.min_shrink = min_column;
                        effect.shrink_node = Some(track.node.index());
                    }
                    let error = angle_between(rotation, wanted);
                    if error > effect.max_rotation_error_rad {
                        effect.max_rotation_error_rad = error;
                        effect.rotation_node = Some(track.node.index());
                    }
                }
                (Some(TrackSample::Vec3(a)), Some(TrackSample::Vec3(b))) if track.property() == Property::Scale => {
                    let relative = ((a - b).abs() / b.abs().max(Vec3::splat(1e-6))).max_element();
                    effect.max_scale_error = effect.max_scale_error.max(relative);
                }
                _ => {}
            }
        }
        Some(effect)
    }

    /// The joint nearest to a click at `position_px` in a view of `view_size_px` (origin top
    /// left), if one lies within `radius_px` on screen. Joints are the skins' joints (every node
    /// for a model without skins), at the pose on screen.
    pub fn pick_joint(&mut self, position_px: Vec2, view_size_px: Vec2, radius_px: f32) -> Option<usize> {
        if view_size_px.x <= 0.0 || view_size_px.y <= 0.0 {
            return None;
        }
        let mut candidates = crate::render::overlay::joint_nodes(&self.model);
        if candidates.is_empty() {
            candidates = (0..self.model.nodes.len()).collect();
        }
        self.model.hierarchy.local_to_model(&self.pose, &mut self.locals, &mut self.model_from_node_a);
        let clip_from_world = self.camera.clip_from_world(view_size_px.x / view_size_px.y);
        let mut best: Option<(f32, usize)> = None;
        for node in candidates {
            let Some(m) = self.model_from_node_a.get(node) else { continue };
            let clip = clip_from_world * Vec3::from(m.translation).extend(1.0);
            if clip.w <= 1e-6 {
                continue;
            }
            let ndc = Vec2::new(clip.x, clip.y) / clip.w;
            let screen = Vec2::new((ndc.x + 1.0) * 0.5 * view_size_px.x, (1.0 - ndc.y) * 0.5 * view_size_px.y);
            let distance = screen.distance(position_px);
            // Ties (a joint hidden behind another on screen): the one nearer the camera wins.
            let key = distance + clip.w * 1e-4;
            if distance <= radius_px && best.is_none_or(|(d, _)| key < d) {
                best = Some((key, node));
            }
        }
        best.map(|(_, node)| node)
    }

    /// Display name of node `node`.
    pub fn node_name(&self, node: usize) -> String {
        self.model.nodes.get(node).and_then(|n| n.name.clone()).unwrap_or_else(|| format!("node {node}"))
    }
}

/// Angle between two rotations (sign-agnostic), radians. Uses `atan2` of the relative
/// rotation, which stays exact near zero where `acos` of the dot product reads ~0.06° of noise.
fn angle_between(a: Quat, b: Quat) -> f32 {
    let relative = a.conjugate() * b;
    2.0 * relative.xyz().length().atan2(relative.w.abs())
}

/// Move every root node of `pose` by `offset` (model space).
/// Sample `clip` of `model` at `time_secs` into `pose`, starting from `rest` (which is all
/// there is without a clip). Allocates nothing once the cursor exists.
fn sample_into(
    model: &Model,
    rest: &SoaPose,
    clip: Option<usize>,
    time_secs: f32,
    settings: &SampleSettings,
    cursor: &mut Option<ClipCursor>,
    pose: &mut SoaPose,
) {
    pose.copy_from(rest);
    let Some(clip) = clip.and_then(|c| model.clips.get(c)) else { return };
    let cursor = cursor.get_or_insert_with(|| ClipCursor::new(clip));
    if cursor.len() != clip.timelines().len() {
        *cursor = ClipCursor::new(clip);
    }
    clip.sample(time_secs, cursor, settings, pose);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> ViewerState {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        ViewerState::new(model, "built-in".to_owned())
    }

    #[test]
    fn playback_advances_and_wraps() {
        let mut state = state();
        let duration = state.duration_secs();
        assert!(duration > 0.0);
        state.advance(0.1);
        assert!((state.time_secs - 0.1).abs() < 1e-5);
        state.seek(duration - 0.01);
        state.advance(0.1);
        assert!(state.time_secs < 0.2, "wrapped: {}", state.time_secs);
        state.playing = false;
        let before = state.time_secs;
        state.advance(0.1);
        assert_eq!(state.time_secs, before);
    }

    #[test]
    fn fade_starts_and_finishes() {
        let mut state = state();
        assert!(state.model.clips.len() > 1);
        state.fade = FadeRequest { from_clip: 0, to_clip: 1, duration_secs: 0.2, easing: Easing::Linear };
        state.trigger_fade();
        assert!(state.fader.is_fading());
        for _ in 0..10 {
            state.advance(0.05);
        }
        assert!(!state.fader.is_fading());
        assert_eq!(state.clip, Some(1));
    }

    #[test]
    fn the_fade_plot_records_both_weights() {
        let mut state = state();
        state.fade = FadeRequest { from_clip: 0, to_clip: 1, duration_secs: 0.5, easing: Easing::Linear };
        state.trigger_fade();
        for _ in 0..40 {
            state.advance(1.0 / 60.0);
        }
        let rows: Vec<[f64; 3]> = state.fade_history.iter().copied().collect();
        assert!(rows.iter().all(|[_, from, to]| (from + to - 1.0).abs() < 1e-6 && (0.0..=1.0).contains(to)));
        // Half-way through the 0.5 s fade (15 frames) the two cross.
        let [_, from, to] = rows[14];
        assert!((from - 0.5).abs() < 0.05 && (to - 0.5).abs() < 0.05, "{from} {to}");
        assert_eq!(rows.last().map(|r| r[2]), Some(1.0));
    }

    #[test]
    fn compare_reports_a_deviation() {
        let mut state = state();
        state.compare = Some(CompareModes::default());
        state.seek(state.duration_secs() * 0.37);
        let deviation = state.compare_deviation().expect("compare on");
        assert!(deviation.max_distance.is_finite());
    }

    #[test]
    fn default_spaces_report_no_error() {
        let mut state = state();
        state.select_clip(1);
        state.seek(0.37);
        let effect = state.wrong_space_effect().expect("clip");
        assert!(effect.max_rotation_error_rad < 1e-5, "{}", effect.max_rotation_error_rad);
        assert_eq!(effect.min_shrink, 1.0);
        assert!(angle_between(Quat::from_rotation_y(0.3), Quat::from_rotation_y(0.3)).abs() < 1e-6);
        assert!((angle_between(Quat::IDENTITY, -Quat::from_rotation_x(0.5)) - 0.5).abs() < 1e-5);
    }

    #[test]
    fn matrix_lerp_shrinks() {
        let mut state = state();
        state.settings.mode = InterpolationOverride::Linear;
        state.settings.rotation_space = RotationSpace::MatrixLerp;
        let mut smallest = 1.0f32;
        for clip in 0..state.model.clips.len() {
            state.select_clip(clip);
            for i in 0..20 {
                state.seek(state.duration_secs() * (i as f32 + 0.5) / 20.0);
                smallest = smallest.min(state.wrong_space_effect().expect("clip").min_shrink);
            }
        }
        assert!(smallest < 0.95, "matrix lerp should shrink somewhere: {smallest}");
    }
}
