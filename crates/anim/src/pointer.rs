//! `KHR_animation_pointer` property tracks: animated values that are not node transforms —
//! material factors, texture transforms, node visibility — sampled with the same glTF rules as
//! node channels (STEP, LINEAR, CUBICSPLINE with in-tangent/value/out-tangent triplets and
//! tangents scaled by the key interval; clamped outside the keys).
//!
//! Pointers at node transforms and morph weights (`/nodes/3/rotation`, `/nodes/3/weights`) are
//! not here: the importer turns them into ordinary clip tracks.

use crate::track::Interpolation;

/// What an animation pointer drives (the pointers animtune reads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PointerTarget {
    /// `/materials/{m}/pbrMetallicRoughness/baseColorFactor` (4 values, linear RGBA).
    BaseColorFactor { material: usize },
    /// `/materials/{m}/pbrMetallicRoughness/metallicFactor`.
    MetallicFactor { material: usize },
    /// `/materials/{m}/pbrMetallicRoughness/roughnessFactor`.
    RoughnessFactor { material: usize },
    /// `/materials/{m}/emissiveFactor` (3 values).
    EmissiveFactor { material: usize },
    /// `/materials/{m}/alphaCutoff`.
    AlphaCutoff { material: usize },
    /// `/materials/{m}/extensions/KHR_materials_emissive_strength/emissiveStrength`.
    EmissiveStrength { material: usize },
    /// `/materials/{m}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset` (2).
    BaseColorUvOffset { material: usize },
    /// `…/KHR_texture_transform/rotation` (radians).
    BaseColorUvRotation { material: usize },
    /// `…/KHR_texture_transform/scale` (2).
    BaseColorUvScale { material: usize },
    /// `/nodes/{n}/extensions/KHR_node_visibility/visible` (1 = visible; always stepped).
    NodeVisible { node: usize },
}

impl PointerTarget {
    /// Values per key.
    pub fn components(self) -> usize {
        match self {
            Self::BaseColorFactor { .. } => 4,
            Self::EmissiveFactor { .. } => 3,
            Self::BaseColorUvOffset { .. } | Self::BaseColorUvScale { .. } => 2,
            _ => 1,
        }
    }

    /// Parse a JSON pointer; `None` for pointers animtune does not read (node transforms are
    /// handled by the importer before this).
    pub fn parse(pointer: &str) -> Option<Self> {
        let parts: Vec<&str> = pointer.strip_prefix('/')?.split('/').collect();
        let index =
            |s: &str| s.parse::<usize>().ok().filter(|_| !s.starts_with('+') && (s == "0" || !s.starts_with('0')));
        match parts.as_slice() {
            ["materials", m, rest @ ..] => {
                let material = index(m)?;
                Some(match rest {
                    ["pbrMetallicRoughness", "baseColorFactor"] => Self::BaseColorFactor { material },
                    ["pbrMetallicRoughness", "metallicFactor"] => Self::MetallicFactor { material },
                    ["pbrMetallicRoughness", "roughnessFactor"] => Self::RoughnessFactor { material },
                    ["emissiveFactor"] => Self::EmissiveFactor { material },
                    ["alphaCutoff"] => Self::AlphaCutoff { material },
                    ["extensions", "KHR_materials_emissive_strength", "emissiveStrength"] => {
                        Self::EmissiveStrength { material }
                    }
                    ["pbrMetallicRoughness", "baseColorTexture", "extensions", "KHR_texture_transform", what] => {
                        match *what {
                            "offset" => Self::BaseColorUvOffset { material },
                            "rotation" => Self::BaseColorUvRotation { material },
                            "scale" => Self::BaseColorUvScale { material },
                            _ => return None,
                        }
                    }
                    _ => return None,
                })
            }
            ["nodes", n, "extensions", "KHR_node_visibility", "visible"] => Some(Self::NodeVisible { node: index(n)? }),
            _ => None,
        }
    }
}

/// One animated property of a clip.
#[derive(Debug, Clone, PartialEq)]
pub struct PointerTrack {
    /// The JSON pointer as written in the file.
    pub pointer: String,
    /// What it drives.
    pub target: PointerTarget,
    /// How values between keys are found (node visibility is always STEP).
    pub interpolation: Interpolation,
    /// Key times in seconds, strictly increasing.
    pub times_secs: Vec<f32>,
    /// `components` values per key (three such groups per key for CUBICSPLINE: in-tangent,
    /// value, out-tangent).
    pub values: Vec<f32>,
    /// The animation channel it came from.
    pub channel: usize,
}

impl PointerTrack {
    /// Values per key.
    pub fn components(&self) -> usize {
        self.target.components()
    }

    /// The value at `time_secs` into `out` (`components()` values; clamped to the first and
    /// last key outside them). Allocates nothing.
    pub fn sample(&self, time_secs: f32, out: &mut [f32]) {
        let n = self.components();
        let out = &mut out[..n];
        let cubic = self.interpolation == Interpolation::CubicSpline;
        let stride = if cubic { 3 * n } else { n };
        let value = |k: usize| {
            let start = k * stride + if cubic { n } else { 0 };
            &self.values[start..start + n]
        };
        let times = &self.times_secs;
        let Some(&first) = times.first() else { return };
        let last = times.len() - 1;
        if time_secs <= first || last == 0 {
            out.copy_from_slice(value(0));
            return;
        }
        if time_secs >= times[last] {
            out.copy_from_slice(value(last));
            return;
        }
        // The key at or before the time (partition_point: first key after it).
        let k = times.partition_point(|&t| t <= time_secs) - 1;
        let dt = times[k + 1] - times[k];
        let s = (time_secs - times[k]) / dt;
        match self.interpolation {
            Interpolation::Step => out.copy_from_slice(value(k)),
            Interpolation::Linear => {
                for ((o, a), b) in out.iter_mut().zip(value(k)).zip(value(k + 1)) {
                    *o = a + (b - a) * s;
                }
            }
            Interpolation::CubicSpline => {
                let (s2, s3) = (s * s, s * s * s);
                let (h00, h10, h01, h11) =
                    (2.0 * s3 - 3.0 * s2 + 1.0, s3 - 2.0 * s2 + s, -2.0 * s3 + 3.0 * s2, s3 - s2);
                let out_tangent = &self.values[k * stride + 2 * n..k * stride + 3 * n];
                let in_tangent = &self.values[(k + 1) * stride..(k + 1) * stride + n];
                for c in 0..n {
                    out[c] = h00 * value(k)[c]
                        + h10 * dt * out_tangent[c]
                        + h01 * value(k + 1)[c]
                        + h11 * dt * in_tangent[c];
                }
            }
        }
        if matches!(self.target, PointerTarget::NodeVisible { .. }) {
            out[0] = if value(k)[0] != 0.0 { 1.0 } else { 0.0 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(interpolation: Interpolation, values: Vec<f32>) -> PointerTrack {
        PointerTrack {
            pointer: "/materials/0/alphaCutoff".to_owned(),
            target: PointerTarget::AlphaCutoff { material: 0 },
            interpolation,
            times_secs: vec![1.0, 3.0],
            values,
            channel: 0,
        }
    }

    #[test]
    fn pointers_parse_to_targets() {
        assert_eq!(
            PointerTarget::parse("/materials/2/pbrMetallicRoughness/baseColorFactor"),
            Some(PointerTarget::BaseColorFactor { material: 2 })
        );
        assert_eq!(
            PointerTarget::parse(
                "/materials/0/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform/offset"
            ),
            Some(PointerTarget::BaseColorUvOffset { material: 0 })
        );
        assert_eq!(
            PointerTarget::parse("/nodes/7/extensions/KHR_node_visibility/visible"),
            Some(PointerTarget::NodeVisible { node: 7 })
        );
        assert_eq!(PointerTarget::parse("/materials/01/emissiveFactor"), None);
        assert_eq!(PointerTarget::parse("/cameras/0/perspective/yfov"), None);
        assert_eq!(PointerTarget::parse("materials/0/alphaCutoff"), None);
    }

    #[test]
    fn step_linear_and_cubic_follow_the_spec() {
        let mut out = [0.0];
        let step = track(Interpolation::Step, vec![0.2, 0.8]);
        step.sample(2.9, &mut out);
        assert_eq!(out[0], 0.2);
        step.sample(3.0, &mut out);
        assert_eq!(out[0], 0.8);
        let linear = track(Interpolation::Linear, vec![0.2, 0.8]);
        linear.sample(2.5, &mut out);
        assert!((out[0] - 0.65).abs() < 1e-6);
        linear.sample(-4.0, &mut out);
        assert_eq!(out[0], 0.2);
        // Cubic: in, value, out per key; zero tangents give smoothstep, and a tangent of 1 per
        // second over a 2-second interval adds h10 · 2 · 1.
        let cubic = track(Interpolation::CubicSpline, vec![0.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
        cubic.sample(2.0, &mut out);
        let s: f32 = 0.5;
        let expected = (s * s * s - 2.0 * s * s + s) * 2.0 + (-2.0 * s * s * s + 3.0 * s * s);
        assert!((out[0] - expected).abs() < 1e-6, "{} vs {expected}", out[0]);
    }
}
