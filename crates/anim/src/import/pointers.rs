//! `KHR_animation_pointer` channels that drive properties other than node transforms:
//! read into [`PointerTrack`]s with the same checks as node channels (increasing finite key
//! times, finite values, magnitudes, counts, the key limit).

use serde_json::Value;

use super::accessor::{Component, ElementType};
use super::document::{Builder, bad_value};
use super::json::{opt_str, req_index};
use crate::error::{ImportError, ObjectKind, ObjectRef, Problem, invalid};
use crate::pointer::{PointerTarget, PointerTrack};
use crate::track::Interpolation;

impl Builder<'_> {
    /// The property track of channel `c` of animation `animation` whose pointer is `pointer`,
    /// or `None` for a pointer animtune does not read.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pointer_track(
        &self,
        _animation_json: &Value,
        animation: &ObjectRef,
        c: usize,
        channel: &Value,
        pointer: &str,
        samplers: &[Value],
        total_keys: &mut u64,
    ) -> Result<Option<PointerTrack>, ImportError> {
        let Some(target) = PointerTarget::parse(pointer) else { return Ok(None) };
        let channel_ref = animation.with_part("channel", c);
        let s = req_index(channel, &channel_ref, "sampler", "sampler", samplers.len())?;
        let sampler_ref = animation.with_part("sampler", s);
        let sampler = &samplers[s];
        let interpolation = match opt_str(sampler, &sampler_ref, "interpolation")?.unwrap_or("LINEAR") {
            "LINEAR" => Interpolation::Linear,
            "STEP" => Interpolation::Step,
            "CUBICSPLINE" => Interpolation::CubicSpline,
            other => return Err(bad_value(&sampler_ref, "interpolation", format!("unknown mode \"{other}\""))),
        };
        // Booleans are stepped whatever the sampler says.
        let interpolation =
            if matches!(target, PointerTarget::NodeVisible { .. }) { Interpolation::Step } else { interpolation };
        let input = req_index(sampler, &sampler_ref, "input", "accessor", self.accessors.len())?;
        let output = req_index(sampler, &sampler_ref, "output", "accessor", self.accessors.len())?;
        let times_secs = self.key_times(&sampler_ref, input)?;
        *total_keys += times_secs.len() as u64;
        if *total_keys > self.limits.max_total_keys {
            return Err(invalid(
                &sampler_ref,
                Problem::Limit { what: "total key count", value: *total_keys, limit: self.limits.max_total_keys },
            ));
        }
        let components = target.components();
        let element = match components {
            1 => ElementType::Scalar,
            2 => ElementType::Vec2,
            3 => ElementType::Vec3,
            _ => ElementType::Vec4,
        };
        let boolean = matches!(target, PointerTarget::NodeVisible { .. });
        let a = &self.accessors[output];
        let allowed = a.element == element
            && (a.component == Component::F32
                || (a.normalized && a.component != Component::U32)
                || (boolean && a.component == Component::U8));
        if !allowed {
            return Err(invalid(
                &sampler_ref,
                Problem::AccessorType {
                    field: "output",
                    accessor: output,
                    expected: if boolean {
                        "SCALAR of UNSIGNED_BYTE"
                    } else {
                        "FLOAT (or normalized) of the pointer's size"
                    },
                    found: a.describe(),
                },
            ));
        }
        let per_key = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        // A STEP-forced boolean may still carry triplets from a CUBICSPLINE sampler.
        let declared_cubic = opt_str(sampler, &sampler_ref, "interpolation")? == Some("CUBICSPLINE");
        let per_key = if declared_cubic { 3 } else { per_key };
        let expected = times_secs.len() * per_key;
        if a.count != expected as u64 {
            return Err(invalid(
                &sampler_ref,
                Problem::AccessorCount { field: "output", accessor: output, expected, found: a.count as usize },
            ));
        }
        let mut values = self.data().read_f32(a)?;
        if let Some(bad) = values.iter().position(|x| !x.is_finite()) {
            return Err(invalid(&sampler_ref, Problem::NonFinite { field: "output", element: bad / components }));
        }
        self.check_magnitude(&sampler_ref, "output", Some(output), &values, components)?;
        if declared_cubic && interpolation == Interpolation::Step {
            // Keep only the values of the triplets.
            values = values.chunks_exact(3 * components).flat_map(|k| k[components..2 * components].to_vec()).collect();
        }
        Ok(Some(PointerTrack { pointer: pointer.to_owned(), target, interpolation, times_secs, values, channel: c }))
    }

    /// Every pointer's material or node index must exist.
    pub(super) fn check_pointer_targets(
        &self,
        clips: &[Vec<PointerTrack>],
        node_count: usize,
        material_count: usize,
    ) -> Result<(), ImportError> {
        for (a, tracks) in clips.iter().enumerate() {
            for track in tracks {
                let (index, kind, count) = match track.target {
                    PointerTarget::NodeVisible { node } => (node, "node", node_count),
                    PointerTarget::BaseColorFactor { material }
                    | PointerTarget::MetallicFactor { material }
                    | PointerTarget::RoughnessFactor { material }
                    | PointerTarget::EmissiveFactor { material }
                    | PointerTarget::AlphaCutoff { material }
                    | PointerTarget::EmissiveStrength { material }
                    | PointerTarget::BaseColorUvOffset { material }
                    | PointerTarget::BaseColorUvRotation { material }
                    | PointerTarget::BaseColorUvScale { material } => (material, "material", material_count),
                };
                if index >= count {
                    let object = ObjectRef { kind: ObjectKind::Animation, index: a, name: None, part: None }
                        .with_part("channel", track.channel);
                    return Err(invalid(
                        &object,
                        Problem::IndexOutOfRange { field: "pointer", index: index as u64, kind, count },
                    ));
                }
            }
        }
        Ok(())
    }
}
