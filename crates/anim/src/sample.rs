//! Sampling clips into poses, exactly as glTF 2.0 Appendix C specifies, with interpolation
//! overrides and the teaching modes.
//!
//! Key lookup goes through a caller-owned [`ClipCursor`]: one cursor per shared timeline, so
//! monotonic playback finds its key in O(1) and channels sharing an input accessor share one
//! lookup; random times fall back to binary search.

use std::ops::{Add, Mul, Sub};

use glam::{Quat, Vec3, Vec4};

use crate::clip::{Clip, Interpolation, Timeline, Track, TrackValues};
use crate::interp::{
    Easing, RotationSpace, ScaleSpace, align, euler_lerp, hermite, lerp_f32, lerp_vec3, matrix_lerp, nlerp,
    normalize_or_identity, slerp, squad,
};
use crate::pose::Pose;
use crate::simd8::{Isa, Plain};
use crate::soa::Sink;
use crate::soa_pose::SoaPose;

/// Where a time falls on a timeline.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Segment {
    /// Key at the start of the segment.
    pub key: u32,
    /// Key at its end (equal to `key` for single-key timelines).
    pub next: u32,
    /// The key at or before the time (what STEP holds).
    pub held: u32,
    /// Segment parameter in `[0, 1]` (0 outside the keys, where `key == next`).
    pub u: f32,
    /// Key interval in seconds (0 for single-key timelines).
    pub dt_secs: f32,
}

impl Timeline {
    /// Locate `time_secs`, using and updating `cursor` (the last segment found). O(1) when the
    /// time is in the cursor's segment or the next one; binary search otherwise. A NaN time
    /// behaves like a time before the first key.
    #[inline]
    pub fn segment(&self, time_secs: f32, cursor: &mut u32) -> Segment {
        let times = &self.times_secs;
        let n = times.len();
        // `is_nan` keeps NaN times on the first key.
        if n < 2 || time_secs <= times[0] || time_secs.is_nan() {
            *cursor = 0;
            let next = u32::from(n >= 2);
            return Segment { key: 0, next, held: 0, u: 0.0, dt_secs: if n >= 2 { times[1] - times[0] } else { 0.0 } };
        }
        let last = n - 1;
        if time_secs >= times[last] {
            // Hold the last key exactly as stored (a u = 1 slerp could return its negation).
            *cursor = (last - 1) as u32;
            let last = last as u32;
            return Segment { key: last, next: last, held: last, u: 0.0, dt_secs: 0.0 };
        }
        // Here times[0] < t < times[last], so the segment k with times[k] <= t < times[k+1] exists.
        let mut k = (*cursor as usize).min(last - 1);
        if !(times[k] <= time_secs && time_secs < times[k + 1]) {
            if k + 2 <= last && times[k + 1] <= time_secs && time_secs < times[k + 2] {
                k += 1;
            } else {
                k = times.partition_point(|&x| x <= time_secs).saturating_sub(1).min(last - 1);
            }
        }
        *cursor = k as u32;
        let dt_secs = times[k + 1] - times[k];
        let u = if dt_secs > 0.0 { ((time_secs - times[k]) / dt_secs).clamp(0.0, 1.0) } else { 0.0 };
        Segment { key: k as u32, next: k as u32 + 1, held: k as u32, u, dt_secs }
    }
}

/// An interpolation override: keep what the file says, or force one mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum InterpolationOverride {
    /// What the file authored.
    #[default]
    Authored,
    /// Hold keys.
    Step,
    /// Lerp/slerp of key values (CUBICSPLINE data: its key values, tangents ignored).
    Linear,
    /// Cubic Hermite (STEP/LINEAR data: automatic Catmull-Rom tangents for non-uniform keys).
    Cubic,
}

impl InterpolationOverride {
    /// Every variant, for menus.
    pub const ALL: [Self; 4] = [Self::Authored, Self::Step, Self::Linear, Self::Cubic];

    /// The mode used for data authored as `authored`.
    #[inline]
    pub fn resolve(self, authored: Interpolation) -> Interpolation {
        match self {
            Self::Authored => authored,
            Self::Step => Interpolation::Step,
            Self::Linear => Interpolation::Linear,
            Self::Cubic => Interpolation::CubicSpline,
        }
    }

    /// Stable name (`authored`, `step`, `linear`, `cubic`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Authored => "authored",
            Self::Step => "step",
            Self::Linear => "linear",
            Self::Cubic => "cubic",
        }
    }
}

crate::interp::impl_from_name!(InterpolationOverride);

/// How a clip is sampled. The default is the glTF specification exactly.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampleSettings {
    /// Override for the whole clip.
    pub mode: InterpolationOverride,
    /// Per-track overrides (index = track index) that win over `mode`; may be shorter than the
    /// track list (missing entries mean "use `mode`").
    pub track_modes: Vec<Option<InterpolationOverride>>,
    /// How rotations are interpolated where the mode is LINEAR.
    pub rotation_space: RotationSpace,
    /// How scales are interpolated where the mode is LINEAR.
    pub scale_space: ScaleSpace,
    /// Easing applied to the segment parameter (LINEAR and cubic modes).
    pub easing: Easing,
}

impl SampleSettings {
    /// Settings that force one mode on the whole clip.
    pub fn with_mode(mode: InterpolationOverride) -> Self {
        Self { mode, ..Self::default() }
    }

    /// The effective mode of track `track` authored as `authored`.
    #[inline]
    pub fn mode_for(&self, track: usize, authored: Interpolation) -> Interpolation {
        self.track_modes.get(track).copied().flatten().unwrap_or(self.mode).resolve(authored)
    }

    /// True when sampling follows the file exactly (no override or teaching mode).
    pub fn is_authored(&self) -> bool {
        self.mode == InterpolationOverride::Authored
            && self.track_modes.iter().all(|m| m.is_none_or(|m| m == InterpolationOverride::Authored))
            && self.rotation_space == RotationSpace::Slerp
            && self.scale_space == ScaleSpace::Linear
            && self.easing == Easing::Linear
    }
}

/// Caller-owned key cursors for one clip: create once, reuse every frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipCursor {
    cursors: Vec<u32>,
    segments: Vec<Segment>,
    /// Cubic Hermite weights `[h00, h10·dt, h01, h11·dt]` of each timeline's segment, shared by
    /// every CUBICSPLINE track on it.
    cubic_weights: Vec<Vec4>,
}

impl ClipCursor {
    /// Cursors for `clip`, all at its first key.
    pub fn new(clip: &Clip) -> Self {
        let n = clip.timelines.len();
        Self { cursors: vec![0; n], segments: vec![Segment::default(); n], cubic_weights: vec![Vec4::ZERO; n] }
    }

    /// Forget the cached positions (the next lookup binary-searches).
    pub fn invalidate(&mut self) {
        self.cursors.fill(0);
    }

    /// Number of timelines this cursor tracks.
    pub fn len(&self) -> usize {
        self.cursors.len()
    }

    /// True for a clip without timelines.
    pub fn is_empty(&self) -> bool {
        self.cursors.is_empty()
    }

    /// The segments found by the last [`Clip::sample`], one per timeline.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }
}

/// The value of one track at one time (for plots and readouts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrackSample {
    /// Translation or scale.
    Vec3(Vec3),
    /// Rotation, with the column lengths of the matrix-lerp demo (1 otherwise).
    Rotation {
        /// The rotation.
        rotation: Quat,
        /// Column lengths of the blended matrix (the shrink matrix-lerp applies).
        shrink: Vec3,
    },
    /// Morph weights were written to the output slice.
    Weights,
}

impl Clip {
    /// Sample the clip at `time_secs` into `pose`, following `settings`. Only animated
    /// properties are written: start from the rest pose (see [`Pose::copy_from`]) so that what
    /// the clip does not animate keeps the node's own values. Times outside the keys clamp to the
    /// first/last key, per track. Allocates nothing.
    ///
    /// `cursor` must come from [`ClipCursor::new`] for this clip and `pose` must be shaped for the
    /// model the clip belongs to.
    pub fn sample(&self, time_secs: f32, cursor: &mut ClipCursor, settings: &SampleSettings, pose: &mut Pose) {
        self.locate(time_secs, cursor);
        if settings.is_authored() {
            self.sample_authored(cursor, pose);
            return;
        }
        for (index, track) in self.tracks.iter().enumerate() {
            let segment = cursor.segments[track.timeline];
            let mode = settings.mode_for(index, track.interpolation);
            let times = &self.timelines[track.timeline].times_secs;
            match &track.values {
                TrackValues::Translation(values) => {
                    pose.translations[track.node] = eval_vec3(track, values, times, segment, mode, settings, false);
                }
                TrackValues::Scale(values) => {
                    pose.scales[track.node] = eval_vec3(track, values, times, segment, mode, settings, true);
                }
                TrackValues::Rotation(values) => {
                    let (rotation, _) = eval_rotation(track, values, times, segment, mode, settings);
                    pose.rotations[track.node] = rotation;
                }
                TrackValues::Weights { offset, count, values } => {
                    let out = &mut pose.weights[*offset..*offset + *count];
                    eval_weights(track, values, *count, times, segment, mode, settings, out);
                }
            }
        }
        if settings.rotation_space == RotationSpace::MatrixLerp {
            // The demo shows the blended matrix's shrink as scale, after every scale track wrote.
            for (index, track) in self.tracks.iter().enumerate() {
                if let TrackValues::Rotation(values) = &track.values {
                    let segment = cursor.segments[track.timeline];
                    let mode = settings.mode_for(index, track.interpolation);
                    let times = &self.timelines[track.timeline].times_secs;
                    let (_, shrink) = eval_rotation(track, values, times, segment, mode, settings);
                    pose.scales[track.node] *= shrink;
                }
            }
        }
    }

    /// The spec path without overrides: each group of tracks in its authored mode, with the
    /// segment and the cubic weights computed once per shared timeline by [`Self::locate`], and
    /// each group's segment read from structure-of-arrays planes, eight tracks per SIMD step.
    fn sample_authored(&self, cursor: &ClipCursor, pose: &mut Pose) {
        self.sample_groups(cursor, pose);
    }

    /// Sample the clip as authored (no overrides) at `time_secs` into a block pose: the fast
    /// per-frame path ([`Self::sample`] with default settings gives the same bits). Only
    /// animated properties are written, as in [`Self::sample`]; start from the rest pose.
    /// Allocates nothing.
    ///
    /// `cursor` must come from [`ClipCursor::new`] for this clip and `pose` must be shaped for the
    /// model the clip belongs to.
    pub fn sample_soa(&self, time_secs: f32, cursor: &mut ClipCursor, pose: &mut SoaPose) {
        self.locate(time_secs, cursor);
        self.sample_groups(cursor, pose);
    }

    /// Every group at the located segments (AVX2+FMA kernels where the CPU has them), then the
    /// morph weights, into a block or node pose.
    fn sample_groups<S: Sink>(&self, cursor: &ClipCursor, out: &mut S) {
        #[cfg(target_arch = "x86_64")]
        if crate::simd8::fma_available() {
            // SAFETY: the CPU runs AVX2 and FMA (checked just above).
            unsafe { self.sample_groups_avx2_fma(cursor, out) };
        } else {
            self.sample_groups_with::<Plain, S>(cursor, out);
        }
        #[cfg(not(target_arch = "x86_64"))]
        self.sample_groups_with::<Plain, S>(cursor, out);
        self.sample_weights(cursor, out.weights_mut());
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn sample_groups_avx2_fma<S: Sink>(&self, cursor: &ClipCursor, out: &mut S) {
        self.sample_groups_with::<crate::simd8::Avx2Fma, S>(cursor, out);
    }

    #[inline(always)]
    pub(crate) fn sample_groups_with<I: Isa, S: Sink>(&self, cursor: &ClipCursor, out: &mut S) {
        for group in &self.groups {
            group.sample_into::<I, S>(&cursor.segments[group.timeline], cursor.cubic_weights[group.timeline], out);
        }
    }

    /// The morph-weight tracks (outside the groups), as authored.
    fn sample_weights(&self, cursor: &ClipCursor, weights: &mut [f32]) {
        if self.weight_tracks.is_empty() {
            return;
        }
        let settings = SampleSettings::default();
        for track in self.weight_tracks.iter().filter_map(|&i| self.tracks.get(i)) {
            if let TrackValues::Weights { offset, count, values } = &track.values {
                let times = &self.timelines[track.timeline].times_secs;
                let segment = cursor.segments[track.timeline];
                if let Some(out) = weights.get_mut(*offset..*offset + *count) {
                    eval_weights(track, values, *count, times, segment, track.interpolation, &settings, out);
                }
            }
        }
    }

    /// Update the cursor's segments for `time_secs` (one lookup per shared timeline).
    #[inline]
    pub fn locate(&self, time_secs: f32, cursor: &mut ClipCursor) {
        let per_timeline =
            self.timelines.iter().zip(&mut cursor.cursors).zip(&mut cursor.segments).zip(&mut cursor.cubic_weights);
        for (((timeline, key), segment), weights) in per_timeline {
            *segment = timeline.segment(time_secs, key);
            let [h00, h10, h01, h11] = crate::interp::hermite_basis(segment.u);
            *weights = Vec4::new(h00, h10 * segment.dt_secs, h01, h11 * segment.dt_secs);
        }
    }

    /// Evaluate one track at `time_secs` (binary search, no cursor): for plots and readouts.
    /// Weights go to `weights_out` (which must hold the track's target count); other
    /// properties are returned.
    pub fn evaluate_track(
        &self,
        track_index: usize,
        time_secs: f32,
        settings: &SampleSettings,
        weights_out: &mut [f32],
    ) -> Option<TrackSample> {
        let track = self.tracks.get(track_index)?;
        let timeline = self.timelines.get(track.timeline)?;
        let segment = timeline.segment(time_secs, &mut 0);
        let mode = settings.mode_for(track_index, track.interpolation);
        let times = &timeline.times_secs;
        Some(match &track.values {
            TrackValues::Translation(v) => {
                TrackSample::Vec3(eval_vec3(track, v, times, segment, mode, settings, false))
            }
            TrackValues::Scale(v) => TrackSample::Vec3(eval_vec3(track, v, times, segment, mode, settings, true)),
            TrackValues::Rotation(v) => {
                let (rotation, shrink) = eval_rotation(track, v, times, segment, mode, settings);
                TrackSample::Rotation { rotation, shrink }
            }
            TrackValues::Weights { count, values, .. } => {
                let out = weights_out.get_mut(..*count)?;
                eval_weights(track, values, *count, times, segment, mode, settings, out);
                TrackSample::Weights
            }
        })
    }
}

/// The keys an automatic (Catmull-Rom style) tangent at key `k` differences, and `1 / Δt`
/// between them: the neighbours for inner keys, one side at the ends, `(k, k, 0)` for a single key
/// or a zero-length interval. Correct for non-uniform spacing.
#[inline]
pub fn auto_tangent_keys(times: &[f32], k: usize) -> (usize, usize, f32) {
    let n = times.len();
    let (a, b) = if n < 2 {
        return (k, k, 0.0);
    } else if k == 0 {
        (0, 1)
    } else if k >= n - 1 {
        (n - 2, n - 1)
    } else {
        (k - 1, k + 1)
    };
    let dt = times[b] - times[a];
    (a, b, if dt > 0.0 { 1.0 / dt } else { 0.0 })
}

/// Automatic tangent at key `k` in units per second (see [`auto_tangent_keys`]).
#[inline]
fn auto_tangent<T>(value: impl Fn(usize) -> T, times: &[f32], k: usize) -> T
where
    T: Copy + Sub<Output = T> + Mul<f32, Output = T>,
{
    let (a, b, inv_dt) = auto_tangent_keys(times, k);
    (value(b) - value(a)) * inv_dt
}

/// The shared STEP / LINEAR / cubic logic for vector-like values.
#[inline]
#[allow(clippy::too_many_arguments)]
fn eval_generic<T>(
    value: impl Fn(usize) -> T,
    in_tangent: impl Fn(usize) -> T,
    out_tangent: impl Fn(usize) -> T,
    cubic_data: bool,
    times: &[f32],
    segment: Segment,
    mode: Interpolation,
    easing: Easing,
    lerp: impl Fn(T, T, f32) -> T,
) -> T
where
    T: Copy + Sub<Output = T> + Add<Output = T> + Mul<f32, Output = T>,
{
    let (k, next) = (segment.key as usize, segment.next as usize);
    match mode {
        Interpolation::Step => value(segment.held as usize),
        Interpolation::Linear => lerp(value(k), value(next), easing.apply(segment.u)),
        Interpolation::CubicSpline => {
            let (m0, m1) = if cubic_data {
                (out_tangent(k), in_tangent(next))
            } else {
                (auto_tangent(&value, times, k), auto_tangent(&value, times, next))
            };
            hermite(value(k), m0, value(next), m1, segment.dt_secs, easing.apply(segment.u))
        }
    }
}

fn eval_vec3(
    track: &Track,
    values: &[Vec3],
    times: &[f32],
    segment: Segment,
    mode: Interpolation,
    settings: &SampleSettings,
    is_scale: bool,
) -> Vec3 {
    let cubic_data = track.interpolation == Interpolation::CubicSpline;
    let stride = if cubic_data { 3 } else { 1 };
    let value = |k: usize| values[k * stride + usize::from(cubic_data)];
    let in_tangent = |k: usize| values[3 * k];
    let out_tangent = |k: usize| values[3 * k + 2];
    let space = if is_scale { settings.scale_space } else { ScaleSpace::Linear };
    let lerp = |a: Vec3, b: Vec3, u: f32| if is_scale { space.lerp(a, b, u) } else { lerp_vec3(a, b, u) };
    eval_generic(value, in_tangent, out_tangent, cubic_data, times, segment, mode, settings.easing, lerp)
}

fn eval_rotation(
    track: &Track,
    values: &[Quat],
    times: &[f32],
    segment: Segment,
    mode: Interpolation,
    settings: &SampleSettings,
) -> (Quat, Vec3) {
    let cubic_data = track.interpolation == Interpolation::CubicSpline;
    let stride = if cubic_data { 3 } else { 1 };
    let value = |k: usize| values[k * stride + usize::from(cubic_data)];
    let (k, next) = (segment.key as usize, segment.next as usize);
    match mode {
        Interpolation::Step => (value(segment.held as usize), Vec3::ONE),
        Interpolation::Linear => {
            let u = settings.easing.apply(segment.u);
            let (a, b) = (value(k), value(next));
            match settings.rotation_space {
                RotationSpace::Slerp => (slerp(a, b, u), Vec3::ONE),
                RotationSpace::Nlerp => (nlerp(a, b, u), Vec3::ONE),
                RotationSpace::Squad => {
                    let last = times.len().saturating_sub(1);
                    (squad(value(k.saturating_sub(1)), a, b, value((next + 1).min(last)), u), Vec3::ONE)
                }
                RotationSpace::MatrixLerp => matrix_lerp(a, b, u),
                RotationSpace::EulerLerp => (euler_lerp(a, b, u), Vec3::ONE),
            }
        }
        Interpolation::CubicSpline => {
            let u = settings.easing.apply(segment.u);
            let q = if cubic_data {
                // Spec: Hermite on the raw 4-vectors, then normalize; no sign flipping.
                let v = |i: usize| Vec4::from(values[i]);
                hermite(v(3 * k + 1), v(3 * k + 2), v(3 * next + 1), v(3 * next), segment.dt_secs, u)
            } else {
                // Automatic tangents on sign-aligned neighbours, segment end on the start's side.
                let q0 = value(k);
                let flip = if q0.dot(value(next)) < 0.0 { -1.0 } else { 1.0 };
                let tangent = |key: usize| {
                    let center = value(key);
                    auto_tangent(|j| Vec4::from(align(center, value(j))), times, key)
                };
                hermite(
                    Vec4::from(q0),
                    tangent(k),
                    Vec4::from(value(next)) * flip,
                    tangent(next) * flip,
                    segment.dt_secs,
                    u,
                )
            };
            (normalize_or_identity(q), Vec3::ONE)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn eval_weights(
    track: &Track,
    values: &[f32],
    count: usize,
    times: &[f32],
    segment: Segment,
    mode: Interpolation,
    settings: &SampleSettings,
    out: &mut [f32],
) {
    let cubic_data = track.interpolation == Interpolation::CubicSpline;
    let stride = if cubic_data { 3 } else { 1 };
    for (c, o) in out.iter_mut().enumerate() {
        let element = |e: usize| values[e * count + c];
        let value = |k: usize| element(k * stride + usize::from(cubic_data));
        let in_tangent = |k: usize| element(3 * k);
        let out_tangent = |k: usize| element(3 * k + 2);
        *o = eval_generic(value, in_tangent, out_tangent, cubic_data, times, segment, mode, settings.easing, lerp_f32);
    }
}
