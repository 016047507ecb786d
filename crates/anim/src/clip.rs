//! Animation clips as structure-of-arrays tracks over shared timelines.

use glam::{Quat, Vec3};

/// Interpolation mode authored in a glTF sampler.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interpolation {
    /// Hold the value of the key at or before the time.
    Step,
    /// Lerp (slerp for rotations).
    Linear,
    /// Cubic Hermite with authored in/out tangents (outputs stored as triplets).
    CubicSpline,
}

impl Interpolation {
    /// The glTF spelling (`STEP`, `LINEAR`, `CUBICSPLINE`).
    pub fn gltf_name(self) -> &'static str {
        match self {
            Self::Step => "STEP",
            Self::Linear => "LINEAR",
            Self::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// The animated property of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Property {
    /// Local translation.
    Translation,
    /// Local rotation.
    Rotation,
    /// Local scale.
    Scale,
    /// Morph target weights.
    Weights,
}

impl Property {
    /// The glTF spelling (`translation`, `rotation`, `scale`, `weights`).
    pub fn gltf_name(self) -> &'static str {
        match self {
            Self::Translation => "translation",
            Self::Rotation => "rotation",
            Self::Scale => "scale",
            Self::Weights => "weights",
        }
    }
}

/// Key times shared by any number of tracks (glTF samplers often share an input accessor).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    /// Key times in seconds: finite, non-negative, strictly increasing, at least one.
    pub times_secs: Vec<f32>,
}

/// Key values of one track. CUBICSPLINE tracks store `(in_tangent, value, out_tangent)` triplets
/// per key, exactly as glTF lays them out; other tracks store one value per key.
#[derive(Debug, Clone, PartialEq)]
pub enum TrackValues {
    /// Translation keys.
    Translation(Vec<Vec3>),
    /// Rotation keys (values unit length; cubic tangents as raw quaternion 4-vectors).
    Rotation(Vec<Quat>),
    /// Scale keys.
    Scale(Vec<Vec3>),
    /// Morph weight keys: `count` weights per element, written at `offset` in the pose's weights.
    Weights {
        /// Offset of the node's weights in [`crate::Pose::weights`].
        offset: usize,
        /// Number of morph targets.
        count: usize,
        /// `count` values per element, elements in key (or triplet) order.
        values: Vec<f32>,
    },
}

impl TrackValues {
    /// The property these values animate.
    pub fn property(&self) -> Property {
        match self {
            Self::Translation(_) => Property::Translation,
            Self::Rotation(_) => Property::Rotation,
            Self::Scale(_) => Property::Scale,
            Self::Weights { .. } => Property::Weights,
        }
    }
}

/// One animated property of one node (a glTF channel with its sampler).
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Target node (glTF node index).
    pub node: usize,
    /// Index into [`Clip::timelines`].
    pub timeline: usize,
    /// Authored interpolation.
    pub interpolation: Interpolation,
    /// Key values.
    pub values: TrackValues,
    /// The glTF channel this track came from.
    pub channel: usize,
    /// The glTF sampler this track came from.
    pub sampler: usize,
}

impl Track {
    /// The animated property.
    pub fn property(&self) -> Property {
        self.values.property()
    }

    /// Index of key `k`'s value in the stored elements.
    #[inline]
    pub fn value_index(&self, key: usize) -> usize {
        if self.interpolation == Interpolation::CubicSpline { 3 * key + 1 } else { key }
    }
}

/// An animation clip: tracks grouped by shared timelines.
///
/// Built by [`Clip::new`], which checks the invariants sampling relies on and lays the keys out
/// a second time, key-major per (timeline, property, interpolation) group, for the authored
/// fast path.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    /// The glTF animation's name, when it has one.
    pub name: Option<String>,
    /// Distinct key timelines (deduplicated by content).
    pub timelines: Vec<Timeline>,
    /// One track per glTF channel that targets a node, in channel order.
    pub tracks: Vec<Track>,
    /// Earliest key time over all tracks.
    pub start_secs: f32,
    /// Latest key time over all tracks: the clip's duration measured from time 0.
    pub end_secs: f32,
    pub(crate) groups: Vec<crate::soa::SoaGroup>,
    /// Indices of the morph-weight tracks (sampled outside the groups).
    pub(crate) weight_tracks: Vec<usize>,
}

/// Why a clip cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClipError {
    /// A timeline has no keys.
    #[error("timeline {0} has no keys")]
    EmptyTimeline(usize),
    /// Key times are not finite or not strictly increasing.
    #[error("timeline {timeline}: key {key} is not finite or not after the key before it")]
    BadKeyTime {
        /// The timeline.
        timeline: usize,
        /// The key.
        key: usize,
    },
    /// A track refers to a missing timeline.
    #[error("track {track} refers to timeline {timeline}, which does not exist")]
    MissingTimeline {
        /// The track.
        track: usize,
        /// The timeline index it gives.
        timeline: usize,
    },
    /// A track's value count does not fit its timeline and interpolation.
    #[error("track {track} has {found} values where {expected} are required")]
    ValueCount {
        /// The track.
        track: usize,
        /// Required element count.
        expected: usize,
        /// Element count found.
        found: usize,
    },
}

impl Clip {
    /// Build a clip, checking that every timeline has strictly increasing finite times and that
    /// every track's values fit its timeline (`keys × 3` elements for CUBICSPLINE, × target
    /// count for weights). Start and end come from the timelines the tracks use.
    pub fn new(name: Option<String>, timelines: Vec<Timeline>, tracks: Vec<Track>) -> Result<Self, ClipError> {
        for (t, timeline) in timelines.iter().enumerate() {
            let times = &timeline.times_secs;
            if times.is_empty() {
                return Err(ClipError::EmptyTimeline(t));
            }
            if let Some(key) = (0..times.len()).find(|&k| !times[k].is_finite() || (k > 0 && times[k] <= times[k - 1]))
            {
                return Err(ClipError::BadKeyTime { timeline: t, key });
            }
        }
        for (i, track) in tracks.iter().enumerate() {
            let timeline = timelines
                .get(track.timeline)
                .ok_or(ClipError::MissingTimeline { track: i, timeline: track.timeline })?;
            let per_key = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
            let (found, width) = match &track.values {
                TrackValues::Translation(v) | TrackValues::Scale(v) => (v.len(), 1),
                TrackValues::Rotation(v) => (v.len(), 1),
                TrackValues::Weights { count, values, .. } => (values.len(), (*count).max(1)),
            };
            let expected = timeline.times_secs.len() * per_key * width;
            if found != expected {
                return Err(ClipError::ValueCount { track: i, expected, found });
            }
        }
        let used: Vec<&[f32]> = tracks.iter().map(|t| &timelines[t.timeline].times_secs[..]).collect();
        let start_secs = used.iter().map(|t| t[0]).reduce(f32::min).unwrap_or(0.0);
        let end_secs = used.iter().map(|t| t[t.len() - 1]).reduce(f32::max).unwrap_or(0.0);
        let groups = crate::soa::SoaGroup::build_all(&timelines, &tracks);
        let weight_tracks =
            tracks.iter().enumerate().filter(|(_, t)| t.property() == Property::Weights).map(|(i, _)| i).collect();
        Ok(Self { name, timelines, tracks, start_secs, end_secs, groups, weight_tracks })
    }

    /// A copy of the clip with every track converted to `mode`: key values kept, CUBICSPLINE
    /// tangents dropped for STEP/LINEAR, and automatic (Catmull-Rom, spacing-aware) tangents
    /// baked for CUBICSPLINE — the same curves as sampling with the matching
    /// [`crate::InterpolationOverride`], but on the authored fast path. Rotation keys are put on one
    /// hemisphere along each track first, so baked cubic segments never need a sign flip.
    #[must_use]
    pub fn with_interpolation(&self, mode: Interpolation) -> Self {
        let tracks = self
            .tracks
            .iter()
            .map(|track| {
                let times = &self.timelines[track.timeline].times_secs;
                let n = times.len();
                let stride = if track.interpolation == Interpolation::CubicSpline { 3 } else { 1 };
                let offset = usize::from(stride == 3);
                let tangent = |k: usize| crate::sample::auto_tangent_keys(times, k);
                fn bake<T: Copy + std::ops::Sub<Output = T> + std::ops::Mul<f32, Output = T>>(
                    keys: &[T],
                    mode: Interpolation,
                    tangent: &dyn Fn(usize) -> (usize, usize, f32),
                ) -> Vec<T> {
                    if mode != Interpolation::CubicSpline {
                        return keys.to_vec();
                    }
                    (0..keys.len())
                        .flat_map(|k| {
                            let (a, b, inv_dt) = tangent(k);
                            let m = (keys[b] - keys[a]) * inv_dt;
                            [m, keys[k], m]
                        })
                        .collect()
                }
                let values = match &track.values {
                    TrackValues::Translation(v) | TrackValues::Scale(v) => {
                        let keys: Vec<Vec3> = (0..n).map(|k| v[k * stride + offset]).collect();
                        let baked = bake(&keys, mode, &tangent);
                        if track.property() == Property::Translation {
                            TrackValues::Translation(baked)
                        } else {
                            TrackValues::Scale(baked)
                        }
                    }
                    TrackValues::Rotation(v) => {
                        let mut keys: Vec<glam::Vec4> = Vec::with_capacity(n);
                        for k in 0..n {
                            let q = glam::Vec4::from(v[k * stride + offset]);
                            let aligned = match keys.last() {
                                Some(previous) if previous.dot(q) < 0.0 => -q,
                                _ => q,
                            };
                            keys.push(aligned);
                        }
                        TrackValues::Rotation(bake(&keys, mode, &tangent).into_iter().map(Quat::from_vec4).collect())
                    }
                    TrackValues::Weights { offset: weight_offset, count, values } => {
                        let count = *count;
                        let mut baked = vec![0.0; n * count * if mode == Interpolation::CubicSpline { 3 } else { 1 }];
                        for c in 0..count {
                            let keys: Vec<f32> = (0..n).map(|k| values[(k * stride + offset) * count + c]).collect();
                            for (e, x) in bake(&keys, mode, &tangent).into_iter().enumerate() {
                                baked[e * count + c] = x;
                            }
                        }
                        TrackValues::Weights { offset: *weight_offset, count, values: baked }
                    }
                };
                Track { interpolation: mode, values, ..track.clone() }
            })
            .collect();
        let mut clip = Self::new(self.name.clone(), self.timelines.clone(), tracks)
            .unwrap_or_else(|e| unreachable!("converting a valid clip keeps it valid: {e}"));
        clip.start_secs = self.start_secs;
        clip.end_secs = self.end_secs;
        clip
    }

    /// The clip's display name: its name, or `animation_<index>` when unnamed.
    pub fn display_name(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("animation_{index}"))
    }

    /// Clip length in seconds (from time 0 to the last key).
    pub fn duration_secs(&self) -> f32 {
        self.end_secs
    }

    /// Wrap a playback time into `[0, end]` for looping (a zero-length clip always gives 0).
    pub fn wrap_time(&self, time_secs: f32) -> f32 {
        if self.end_secs > 0.0 && time_secs.is_finite() { time_secs.rem_euclid(self.end_secs) } else { 0.0 }
    }

    /// Distinct authored interpolation modes, in STEP, LINEAR, CUBICSPLINE order.
    pub fn interpolations(&self) -> Vec<Interpolation> {
        [Interpolation::Step, Interpolation::Linear, Interpolation::CubicSpline]
            .into_iter()
            .filter(|m| self.tracks.iter().any(|t| t.interpolation == *m))
            .collect()
    }

    /// Number of tracks animating `property`.
    pub fn track_count(&self, property: Property) -> usize {
        self.tracks.iter().filter(|t| t.property() == property).count()
    }

    /// Every node the clip animates, ascending, without repeats.
    pub fn animated_nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = self.tracks.iter().map(|t| t.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }
}
