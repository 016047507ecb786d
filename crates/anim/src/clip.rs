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
}

impl Clip {
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
