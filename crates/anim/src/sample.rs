//! Sampling clips into poses, exactly as glTF 2.0 Appendix C specifies, with interpolation
//! overrides and the teaching modes.
//!
//! Key lookup goes through a caller-owned [`ClipCursor`]: one cursor per shared timeline, so
//! monotonic playback finds its key in O(1) and channels sharing an input accessor share one
//! lookup; random times fall back to binary search.

use std::ops::{Add, Mul, Sub};

use glam::{Quat, Vec3, Vec4};

use crate::clip::Clip;
use crate::ids::TrackId;
use crate::interp::{
    Easing, RotationSpace, ScaleSpace, align, euler_lerp, hermite, lerp_f32, lerp_vec3, matrix_lerp, nlerp,
    normalize_or_identity, slerp, squad,
};
use crate::pose::SoaPose;
use crate::simd8::{Isa, Kernel, dispatch};
use crate::timeline::{Segment, Timeline};
use crate::track::{Interpolation, Track, TrackValues};

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
    /// Per-track overrides (index = [`TrackId::index`]) that win over `mode`; may be shorter
    /// than the track list (missing entries mean "use `mode`").
    pub track_modes: Vec<Option<InterpolationOverride>>,
    /// How rotations are interpolated where the mode is LINEAR.
    pub rotation_space: RotationSpace,
    /// How scales are interpolated where the mode is LINEAR.
    pub scale_space: ScaleSpace,
    /// Easing applied to the segment parameter (LINEAR and cubic modes).
    pub easing: Easing,
}

impl SampleSettings {
    /// The glTF specification exactly (the default).
    pub const AUTHORED: Self = Self {
        mode: InterpolationOverride::Authored,
        track_modes: Vec::new(),
        rotation_space: RotationSpace::Slerp,
        scale_space: ScaleSpace::Linear,
        easing: Easing::Linear,
    };

    /// Settings that force one mode on the whole clip.
    pub fn with_mode(mode: InterpolationOverride) -> Self {
        Self { mode, ..Self::default() }
    }

    /// The effective mode of track `track` authored as `authored`.
    #[inline]
    pub fn mode_for(&self, track: TrackId, authored: Interpolation) -> Interpolation {
        self.track_modes.get(track.index()).copied().flatten().unwrap_or(self.mode).resolve(authored)
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
        let n = clip.timelines().len();
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

    /// The segments found by the last [`Clip::sample`] or [`Clip::locate`], one per timeline.
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
    /// Sample the clip at `time_secs` into `pose`, following `settings`: the one sampling job of
    /// the runtime. Only animated properties are written: start from the rest pose
    /// ([`crate::Model::rest_pose`], [`SoaPose::copy_from`]) so that what the clip does not
    /// animate keeps the node's own values. Times outside the keys clamp to the first/last key,
    /// per track. Allocates nothing.
    ///
    /// As authored (the default settings) the key groups are sampled in blocks of eight nodes
    /// (AVX2+FMA where the CPU has it); under an override or a teaching mode each track is
    /// evaluated as [`Self::evaluate_track`] does and written into its node's lane.
    ///
    /// `cursor` must come from [`ClipCursor::new`] for this clip and `pose` must be shaped for the
    /// model the clip belongs to.
    pub fn sample(&self, time_secs: f32, cursor: &mut ClipCursor, settings: &SampleSettings, pose: &mut SoaPose) {
        self.locate(time_secs, cursor);
        if settings.is_authored() {
            dispatch(SampleGroups { clip: self, cursor, pose });
            self.sample_weights(cursor, pose.weights_mut());
            return;
        }
        for (id, track) in self.track_ids() {
            let segment = cursor.segments[track.timeline];
            let mode = settings.mode_for(id, track.interpolation);
            let timeline = &self.timelines()[track.timeline];
            match &track.values {
                TrackValues::Translation(values) => {
                    pose.set_translation(
                        track.node,
                        eval_vec3(track, values, timeline, segment, mode, settings, false),
                    );
                }
                TrackValues::Scale(values) => {
                    pose.set_scale(track.node, eval_vec3(track, values, timeline, segment, mode, settings, true));
                }
                TrackValues::Rotation(values) => {
                    let (rotation, _) = eval_rotation(track, values, timeline, segment, mode, settings);
                    pose.set_rotation(track.node, rotation);
                }
                TrackValues::Weights { offset, count, values } => {
                    if let Some(out) = pose.weights_mut().get_mut(*offset..*offset + *count) {
                        eval_weights(track, values, *count, timeline, segment, mode, settings, out);
                    }
                }
            }
        }
        if settings.rotation_space == RotationSpace::MatrixLerp {
            // The demo shows the blended matrix's shrink as scale, after every scale track wrote.
            for (id, track) in self.track_ids() {
                if let TrackValues::Rotation(values) = &track.values {
                    let segment = cursor.segments[track.timeline];
                    let mode = settings.mode_for(id, track.interpolation);
                    let timeline = &self.timelines()[track.timeline];
                    let (_, shrink) = eval_rotation(track, values, timeline, segment, mode, settings);
                    if let Some(scale) = pose.get(track.node).map(|t| t.scale) {
                        pose.set_scale(track.node, scale * shrink);
                    }
                }
            }
        }
    }

    /// The morph-weight tracks (outside the groups), as authored.
    fn sample_weights(&self, cursor: &ClipCursor, weights: &mut [f32]) {
        if self.weight_tracks.is_empty() {
            return;
        }
        let settings = SampleSettings::default();
        for track in self.weight_tracks.iter().filter_map(|&id| self.track(id)) {
            if let TrackValues::Weights { offset, count, values } = &track.values {
                let timeline = &self.timelines()[track.timeline];
                let segment = cursor.segments[track.timeline];
                if let Some(out) = weights.get_mut(*offset..*offset + *count) {
                    eval_weights(track, values, *count, timeline, segment, track.interpolation, &settings, out);
                }
            }
        }
    }

    /// Update the cursor's segments for `time_secs` (one lookup per shared timeline).
    #[inline]
    pub fn locate(&self, time_secs: f32, cursor: &mut ClipCursor) {
        let per_timeline =
            self.timelines().iter().zip(&mut cursor.cursors).zip(&mut cursor.segments).zip(&mut cursor.cubic_weights);
        for (((timeline, key), segment), weights) in per_timeline {
            *segment = timeline.segment(time_secs, key);
            let [h00, h10, h01, h11] = crate::interp::hermite_basis(segment.u);
            *weights = Vec4::new(h00, h10 * segment.dt_secs, h01, h11 * segment.dt_secs);
        }
    }

    /// Evaluate one track at `time_secs` (binary search, no cursor): the curve path, for plots
    /// and readouts. It computes what [`Self::sample`] writes into the pose for this track (the
    /// same functions under overrides and teaching modes; as authored, the scalar form of the
    /// block kernels, equal to rounding — tested on every track of every shared model). Weights
    /// go to `weights_out` (which must hold the track's target count); other properties are
    /// returned.
    pub fn evaluate_track(
        &self,
        id: TrackId,
        time_secs: f32,
        settings: &SampleSettings,
        weights_out: &mut [f32],
    ) -> Option<TrackSample> {
        let track = self.track(id)?;
        let timeline = self.timelines().get(track.timeline)?;
        let segment = timeline.segment(time_secs, &mut 0);
        let mode = settings.mode_for(id, track.interpolation);
        Some(match &track.values {
            TrackValues::Translation(v) => {
                TrackSample::Vec3(eval_vec3(track, v, timeline, segment, mode, settings, false))
            }
            TrackValues::Scale(v) => TrackSample::Vec3(eval_vec3(track, v, timeline, segment, mode, settings, true)),
            TrackValues::Rotation(v) => {
                let (rotation, shrink) = eval_rotation(track, v, timeline, segment, mode, settings);
                TrackSample::Rotation { rotation, shrink }
            }
            TrackValues::Weights { count, values, .. } => {
                let out = weights_out.get_mut(..*count)?;
                eval_weights(track, values, *count, timeline, segment, mode, settings, out);
                TrackSample::Weights
            }
        })
    }
}

/// The authored sampling kernel: every key group of a clip at the cursor's segments, into the
/// pose's blocks.
pub(crate) struct SampleGroups<'a> {
    pub clip: &'a Clip,
    pub cursor: &'a ClipCursor,
    pub pose: &'a mut SoaPose,
}

impl Kernel for SampleGroups<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { clip, cursor, pose } = self;
        for group in &clip.groups {
            group.sample_into(isa, &cursor.segments[group.timeline], cursor.cubic_weights[group.timeline], pose);
        }
    }
}

/// Automatic tangent at key `k` in units per second (see [`Timeline::auto_tangent_keys`]).
#[inline]
fn auto_tangent<T>(value: impl Fn(usize) -> T, timeline: &Timeline, k: usize) -> T
where
    T: Copy + Sub<Output = T> + Mul<f32, Output = T>,
{
    let (a, b, inv_dt) = timeline.auto_tangent_keys(k);
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
    timeline: &Timeline,
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
                (auto_tangent(&value, timeline, k), auto_tangent(&value, timeline, next))
            };
            hermite(value(k), m0, value(next), m1, segment.dt_secs, easing.apply(segment.u))
        }
    }
}

fn eval_vec3(
    track: &Track,
    values: &[Vec3],
    timeline: &Timeline,
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
    eval_generic(value, in_tangent, out_tangent, cubic_data, timeline, segment, mode, settings.easing, lerp)
}

fn eval_rotation(
    track: &Track,
    values: &[Quat],
    timeline: &Timeline,
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
                    let last = timeline.times_secs.len().saturating_sub(1);
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
                    auto_tangent(|j| Vec4::from(align(center, value(j))), timeline, key)
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
    timeline: &Timeline,
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
        *o = eval_generic(
            value,
            in_tangent,
            out_tangent,
            cubic_data,
            timeline,
            segment,
            mode,
            settings.easing,
            lerp_f32,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd8::Plain;
    use crate::workload::{random_times, w64_model};

    /// The AVX2+FMA kernels (where the CPU has them) and the baseline ones agree to rounding.
    #[test]
    fn baseline_and_avx2_sampling_kernels_agree() {
        let model = w64_model();
        let mut worst = 0.0f32;
        for clip in &model.clips {
            let mut cursor = ClipCursor::new(clip);
            let (mut fast, mut baseline) = (model.rest_pose(), model.rest_pose());
            for t in random_times(clip.end_secs(), 300).into_iter().chain([0.0, 1.0 / 30.0, 10.0, 11.0]) {
                clip.locate(t, &mut cursor);
                if crate::simd8::run_avx2(SampleGroups { clip, cursor: &cursor, pose: &mut fast }).is_none() {
                    return; // No AVX2+FMA on this CPU: nothing to compare.
                }
                SampleGroups { clip, cursor: &cursor, pose: &mut baseline }.run(Plain);
                for (x, y) in fast.blocks().iter().zip(baseline.blocks()) {
                    let (x, y): (&[f32; 80], &[f32; 80]) = (bytemuck::must_cast_ref(x), bytemuck::must_cast_ref(y));
                    for (a, b) in x.iter().zip(y) {
                        worst = worst.max((a - b).abs());
                    }
                }
            }
        }
        assert!(worst < 2e-6, "kernels differ by {worst:e}");
    }

    /// LINEAR rotations: the `sinc` slerp on precomputed arcs against slerp in f64.
    #[test]
    fn linear_rotations_are_within_1e_6_of_exact_slerp() {
        let model = w64_model();
        let clip = &model.clips[0];
        let times = &clip.timelines()[0].times_secs;
        let mut cursor = ClipCursor::new(clip);
        let mut pose = model.rest_pose();
        let mut worst = 0.0f64;
        for t in random_times(clip.end_secs(), 500) {
            clip.sample(t, &mut cursor, &SampleSettings::default(), &mut pose);
            let k = times.partition_point(|&x| x <= t).saturating_sub(1).min(times.len() - 2);
            let u = f64::from((t - times[k]) / (times[k + 1] - times[k]));
            for track in clip.tracks() {
                let TrackValues::Rotation(keys) = &track.values else { continue };
                let exact = crate::pose::exact_slerp(keys[k].to_array(), keys[k + 1].to_array(), u);
                let got = pose.rotation(track.node).to_array();
                for c in 0..4 {
                    worst = worst.max((f64::from(got[c]) - exact[c]).abs());
                }
            }
        }
        assert!(worst < 1e-6, "LINEAR slerp deviates from exact slerp by {worst:e}");
    }
}
