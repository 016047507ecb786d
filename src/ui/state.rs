//! [`ViewerState`]: everything the viewer shows and edits, as plain data (no window, no GPU), so
//! that panels can be tested headless.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};

use anim::{
    ClipCursor, CrossFader, Easing, InterpolationOverride, Model, Pose, Property, RotationSpace, SampleSettings,
    ScaleSpace, TrackSample,
};
use glam::{Affine3A, Quat, Vec3};

use crate::profile::{InterpolationTuning, PROFILE_FORMAT, Transition, TuningProfile, profile_path};
use crate::render::framing::animated_bounds;
use crate::render::{Aabb, OrbitCamera};

/// Seconds of cross-fade weight history kept for the plot.
pub const FADE_HISTORY_SECS: f64 = 4.0;

/// Two interpolation modes shown side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompareModes {
    /// Left view.
    pub left: InterpolationOverride,
    /// Right view.
    pub right: InterpolationOverride,
}

impl Default for CompareModes {
    fn default() -> Self {
        Self { left: InterpolationOverride::Linear, right: InterpolationOverride::Cubic }
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
    /// Recent weight of the clip being faded to: `[wall seconds, weight]`.
    pub fade_history: VecDeque<[f64; 2]>,
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
    /// The current pose (updated by [`Self::update_pose`]).
    pub pose: Pose,
    /// The right-hand pose of the compare view.
    pub compare_pose: Pose,
    /// Remembered fade settings per (from, to) clip pair: the transition table.
    pub transitions: BTreeMap<(usize, usize), (f32, Easing)>,
    /// Folder of tuning profiles (`None`: nothing is loaded or saved).
    pub profile_dir: Option<PathBuf>,
    /// What happened to the profile last (loaded, saved, or why not).
    pub profile_status: Option<String>,
    saved_profile: Option<TuningProfile>,
    last_save_clock_secs: f64,
    rest: Pose,
    cursor: Option<ClipCursor>,
    model_from_node_a: Vec<Affine3A>,
    model_from_node_b: Vec<Affine3A>,
}

impl ViewerState {
    /// A viewer on `model`, playing its first clip from time 0.
    pub fn new(model: Model, model_label: String) -> Self {
        let clip = (!model.clips.is_empty()).then_some(0);
        let fader = CrossFader::new(&model, 0);
        let pose = Pose::rest(&model);
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
            compare_pose: pose.clone(),
            transitions: BTreeMap::new(),
            profile_dir: None,
            profile_status: None,
            saved_profile: None,
            last_save_clock_secs: 0.0,
            rest: pose.clone(),
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
                track_modes: self
                    .settings
                    .track_modes
                    .iter()
                    .enumerate()
                    .filter_map(|(i, m)| m.map(|m| (i, m.name().to_owned())))
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
            ragdoll_ramp_rate: None,
        }
    }

    /// Apply a profile: names that do not parse and clips this model lacks are skipped.
    pub fn apply_profile(&mut self, profile: &TuningProfile) {
        let i = &profile.interpolation;
        self.settings.mode = i.mode.parse().unwrap_or(self.settings.mode);
        self.settings.rotation_space = i.rotation_space.parse().unwrap_or(self.settings.rotation_space);
        self.settings.scale_space = i.scale_space.parse().unwrap_or(self.settings.scale_space);
        self.settings.easing = i.easing.parse().unwrap_or(self.settings.easing);
        self.settings.track_modes.clear();
        for (&track, mode) in &i.track_modes {
            if let (Ok(mode), true) = (mode.parse::<InterpolationOverride>(), track < 100_000) {
                if self.settings.track_modes.len() <= track {
                    self.settings.track_modes.resize(track + 1, None);
                }
                self.settings.track_modes[track] = Some(mode);
            }
        }
        let index = |name: &str| self.model.clips.iter().enumerate().position(|(i, c)| c.display_name(i) == name);
        for t in &profile.transitions {
            if let (Some(from), Some(to), Ok(easing)) = (index(&t.from), index(&t.to), t.easing.parse::<Easing>()) {
                let duration = if t.duration_secs.is_finite() { t.duration_secs.clamp(0.0, 10.0) } else { 0.3 };
                self.transitions.insert((from, to), (duration, easing));
            }
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

    /// Load `path`; on failure keep the current model and record the error.
    pub fn load(&mut self, path: &Path) {
        match crate::cli::load_model(path) {
            Ok(model) => self.set_model(model, path.display().to_string()),
            Err(error) => self.error = Some(format!("{error:#}")),
        }
    }

    fn reset_for_model(&mut self) {
        let clips = self.model.clips.len();
        self.clip = (clips > 0).then_some(0);
        self.time_secs = 0.0;
        self.fader = CrossFader::new(&self.model, 0);
        self.fader.looping = self.looping;
        self.fade.from_clip = 0;
        self.fade.to_clip = if clips > 1 { 1 } else { 0 };
        self.fade_history.clear();
        self.settings.track_modes.clear();
        self.rest = Pose::rest(&self.model);
        self.pose = self.rest.clone();
        self.compare_pose = self.rest.clone();
        self.cursor = self.clip.and_then(|c| self.model.clips.get(c)).map(ClipCursor::new);
        self.model_from_node_a = vec![Affine3A::IDENTITY; self.model.nodes.len()];
        self.model_from_node_b = vec![Affine3A::IDENTITY; self.model.nodes.len()];
        self.selected_joint = self.clip.and_then(|c| self.first_rotation_node(c));
        self.update_pose();
        self.frame_camera(16.0 / 9.0);
    }

    fn first_rotation_node(&self, clip: usize) -> Option<usize> {
        let clip = self.model.clips.get(clip)?;
        clip.tracks.iter().find(|t| t.property() == Property::Rotation).or(clip.tracks.first()).map(|t| t.node)
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
        self.fader.play(clip, 0.0);
        self.cursor = self.model.clips.get(clip).map(ClipCursor::new);
        self.update_pose();
    }

    /// Jump to `time_secs` in the playing clip (scrubbing; playback continues from there).
    pub fn seek(&mut self, time_secs: f32) {
        self.time_secs = time_secs.clamp(0.0, self.duration_secs());
        if let Some(clip) = self.clip {
            self.fader.play(clip, self.time_secs);
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
            self.fader.play(from_clip, from_time);
        }
        self.fader.trigger(to_clip, duration_secs, easing);
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
            self.clip = Some(self.fader.current_clip());
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
                self.fader.play(clip, time);
            }
        }
        let mut weights = [0.0; anim::crossfade::MAX_LAYERS];
        self.fader.weights(&mut weights);
        let to_weight = self.fader.layers().len().checked_sub(1).map_or(1.0, |top| weights[top]);
        self.fade_history.push_back([self.clock_secs, f64::from(to_weight)]);
        while self.fade_history.front().is_some_and(|[t, _]| *t < self.clock_secs - FADE_HISTORY_SECS) {
            self.fade_history.pop_front();
        }
        self.update_pose();
    }

    /// Recompute [`Self::pose`] (and the compare pose) from the clip, time and settings.
    pub fn update_pose(&mut self) {
        if self.fader.is_fading() {
            let pose = self.fader.evaluate(&self.model, &self.settings);
            self.pose.copy_from(pose);
        } else {
            sample_into(
                &self.model,
                &self.rest,
                self.clip,
                self.time_secs,
                &self.settings,
                &mut self.cursor,
                &mut self.pose,
            );
        }
        if let Some(compare) = self.compare {
            let left = SampleSettings { mode: compare.left, track_modes: Vec::new(), ..self.settings.clone() };
            let right = SampleSettings { mode: compare.right, track_modes: Vec::new(), ..self.settings.clone() };
            sample_into(&self.model, &self.rest, self.clip, self.time_secs, &left, &mut self.cursor, &mut self.pose);
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
    }

    /// Frame the camera on the animated bounds of the playing clip for a view of `aspect`.
    pub fn frame_camera(&mut self, aspect: f32) {
        let mut bounds = animated_bounds(&self.model, self.clip, &self.settings, 16);
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
        hierarchy.local_to_model(&self.pose, &mut self.model_from_node_a);
        hierarchy.local_to_model(&self.compare_pose, &mut self.model_from_node_b);
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
        for (index, track) in clip.tracks.iter().enumerate() {
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
                        effect.shrink_node = Some(track.node);
                    }
                    let error = angle_between(rotation, wanted);
                    if error > effect.max_rotation_error_rad {
                        effect.max_rotation_error_rad = error;
                        effect.rotation_node = Some(track.node);
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

/// Sample `clip` of `model` at `time_secs` into `pose`, starting from `rest` (which is all
/// there is without a clip). Allocates nothing once the cursor exists.
fn sample_into(
    model: &Model,
    rest: &Pose,
    clip: Option<usize>,
    time_secs: f32,
    settings: &SampleSettings,
    cursor: &mut Option<ClipCursor>,
    pose: &mut Pose,
) {
    pose.copy_from(rest);
    let Some(clip) = clip.and_then(|c| model.clips.get(c)) else { return };
    let cursor = cursor.get_or_insert_with(|| ClipCursor::new(clip));
    if cursor.len() != clip.timelines.len() {
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
