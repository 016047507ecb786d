//! One animated property of one node: the authored data of a glTF channel and its sampler.

use glam::{Quat, Vec3};

use crate::ids::NodeId;

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
        /// Offset of the node's weights in [`crate::SoaPose::weights`].
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
    /// Target node.
    pub node: NodeId,
    /// Index into the clip's timelines.
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
