//! Pure helpers for the animation ↔ ragdoll handoff: the blend-weight ramp ([`RagdollRamp`],
//! also used for the motor-strength ramp of a powered ragdoll), the conversion of world (model)
//! transforms back into a local pose ([`model_to_local`]), a per-node blend for partial ragdolls
//! ([`blend_poses_per_node`]) and where a clip is played after a get-up ([`Placement`]).
//!
//! No physics here: the physics engine lives in the application crate and only hands world
//! transforms back.

use glam::{Affine3A, Quat, Vec3};

use crate::hierarchy::{Hierarchy, NO_PARENT};
use crate::interp::{Easing, lerp_vec3, slerp};
use crate::pose::Pose;

/// Progress this close to 1 counts as 1, so that `n` steps of `1 / (n · rate)` seconds reach full
/// weight despite float rounding.
const FULL_TOLERANCE: f32 = 1e-5;

/// The ragdoll blend weight over time: `weight = easing(min(elapsed · rate, 1))`.
///
/// Time-based (the weight changes per second, never per frame): with the default rate of
/// 5.0 per second the handoff takes 0.2 s whatever the frame rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RagdollRamp {
    /// Linear progress per second (`1 / rate` is the ramp duration). Zero, negative or NaN
    /// rates jump to full weight at once.
    pub rate_per_sec: f32,
    /// Easing of the weight.
    pub easing: Easing,
    elapsed_secs: f64,
}

impl Default for RagdollRamp {
    fn default() -> Self {
        Self::new(Self::DEFAULT_RATE_PER_SEC, Easing::Linear)
    }
}

impl RagdollRamp {
    /// The recipe's ramp rate: full weight after 0.2 s.
    pub const DEFAULT_RATE_PER_SEC: f32 = 5.0;

    /// A ramp at weight 0.
    pub fn new(rate_per_sec: f32, easing: Easing) -> Self {
        Self { rate_per_sec, easing, elapsed_secs: 0.0 }
    }

    /// Back to weight 0.
    pub fn reset(&mut self) {
        self.elapsed_secs = 0.0;
    }

    /// Advance by `dt_secs` (negative or non-finite steps are ignored).
    pub fn advance(&mut self, dt_secs: f32) {
        if dt_secs.is_finite() && dt_secs > 0.0 {
            self.elapsed_secs += f64::from(dt_secs);
        }
    }

    /// Time since the ramp started.
    pub fn elapsed_secs(&self) -> f32 {
        self.elapsed_secs as f32
    }

    /// Linear progress in `[0, 1]`.
    pub fn progress(&self) -> f32 {
        if !(self.rate_per_sec.is_finite() && self.rate_per_sec > 0.0) {
            return 1.0;
        }
        let u = (self.elapsed_secs * f64::from(self.rate_per_sec)) as f32;
        if u >= 1.0 - FULL_TOLERANCE { 1.0 } else { u.max(0.0) }
    }

    /// The eased weight in `[0, 1]`: 0 = animation, 1 = physics.
    pub fn weight(&self) -> f32 {
        self.easing.apply(self.progress())
    }

    /// True once the weight has reached 1.
    pub fn is_full(&self) -> bool {
        self.progress() >= 1.0
    }
}

/// Convert world transforms (`model_from_node`, one per node) into local transforms: each node
/// relative to its parent's world transform. Writes translations, rotations and scales of `pose`
/// (morph weights are left alone). Shear that a TRS cannot hold is dropped.
///
/// `model_from_node` and `pose` must have one entry per node of `hierarchy` (extra entries are
/// ignored, missing ones left untouched). A node whose parent transform cannot be inverted (a
/// zero scale, say) or whose result is not finite keeps the local transform `pose` already had,
/// so the output is finite whenever `pose` was. Allocates nothing.
pub fn model_to_local(hierarchy: &Hierarchy, model_from_node: &[Affine3A], pose: &mut Pose) {
    let n = hierarchy.len().min(model_from_node.len()).min(pose.len());
    for node in 0..n {
        let parent = hierarchy.parents[node];
        let parent_from_node = if parent == NO_PARENT {
            model_from_node[node]
        } else {
            match model_from_node.get(parent as usize) {
                Some(model_from_parent) if model_from_parent.matrix3.determinant().abs() > 1e-30 => {
                    model_from_parent.inverse() * model_from_node[node]
                }
                _ => continue,
            }
        };
        let (scale, rotation, translation) = parent_from_node.to_scale_rotation_translation();
        let rotation = rotation.normalize();
        if scale.is_finite() && rotation.is_finite() && translation.is_finite() {
            pose.translations[node] = translation;
            pose.rotations[node] = rotation;
            pose.scales[node] = scale;
        }
    }
}

/// Blend two poses node by node: node `i` gets `b`'s local transform with weight
/// `node_weights[i]` (`a`'s with `1 − w`), shortest-path slerp for rotations; morph weights come
/// from `a`. A partial ragdoll blends only its region this way. Nodes beyond `node_weights` take
/// `a`. Allocates nothing.
pub fn blend_poses_per_node(a: &Pose, b: &Pose, node_weights: &[f32], out: &mut Pose) {
    let n = out.len().min(a.len()).min(b.len());
    for node in 0..n {
        let w = node_weights.get(node).copied().filter(|w| w.is_finite()).unwrap_or(0.0).clamp(0.0, 1.0);
        if w <= 0.0 {
            out.translations[node] = a.translations[node];
            out.rotations[node] = a.rotations[node];
            out.scales[node] = a.scales[node];
        } else {
            out.translations[node] = lerp_vec3(a.translations[node], b.translations[node], w);
            out.rotations[node] = slerp(a.rotations[node], b.rotations[node], w);
            out.scales[node] = lerp_vec3(a.scales[node], b.scales[node], w);
        }
    }
    let m = out.weights.len().min(a.weights.len());
    out.weights[..m].copy_from_slice(&a.weights[..m]);
}

/// Where a clip is played: a turn about the vertical (+Y) axis through the world origin, then
/// an offset, applied to the scene's root nodes. A get-up moves the clip to where, and turns it
/// to how, the body lies; the clip then keeps playing there.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Placement {
    /// Turn about +Y, radians.
    pub yaw_rad: f32,
    /// Offset after the turn, world units.
    pub offset: Vec3,
}

impl Placement {
    /// The identity placement (the clip where it was authored).
    pub const IDENTITY: Self = Self { yaw_rad: 0.0, offset: Vec3::ZERO };

    /// True for the identity.
    pub fn is_identity(&self) -> bool {
        self.yaw_rad == 0.0 && self.offset == Vec3::ZERO
    }

    /// The transform `world_placed_from_world`.
    pub fn transform(&self) -> Affine3A {
        Affine3A::from_rotation_translation(Quat::from_rotation_y(self.yaw_rad), self.offset)
    }

    /// Where a world point goes.
    pub fn apply_point(&self, p: Vec3) -> Vec3 {
        Quat::from_rotation_y(self.yaw_rad) * p + self.offset
    }

    /// This placement after `first` (`self ∘ first`).
    pub fn after(&self, first: &Self) -> Self {
        Self { yaw_rad: self.yaw_rad + first.yaw_rad, offset: self.apply_point(first.offset) }
    }

    /// Apply to `pose`: every root node of `hierarchy` is turned and moved (so everything below
    /// follows). Non-finite placements are ignored. Allocates nothing.
    pub fn apply(&self, hierarchy: &Hierarchy, pose: &mut Pose) {
        if self.is_identity() || !(self.yaw_rad.is_finite() && self.offset.is_finite()) {
            return;
        }
        let turn = Quat::from_rotation_y(self.yaw_rad);
        let n = hierarchy.len().min(pose.len());
        for node in 0..n {
            if hierarchy.parents[node] == NO_PARENT {
                pose.translations[node] = turn * pose.translations[node] + self.offset;
                pose.rotations[node] = (turn * pose.rotations[node]).normalize();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_ramp_reaches_full_weight_after_a_fifth_of_a_second_at_60_hz() {
        let mut ramp = RagdollRamp::default();
        let mut frames = 0;
        while !ramp.is_full() {
            ramp.advance(1.0 / 60.0);
            frames += 1;
            assert!(frames < 100);
        }
        assert_eq!(frames, 12);
        assert!((ramp.weight() - 1.0).abs() < f32::EPSILON);
    }

    #[test]
    fn eased_ramp_is_half_way_at_half_time() {
        let mut ramp = RagdollRamp::new(2.0, Easing::Smoothstep);
        ramp.advance(0.25);
        assert!((ramp.weight() - 0.5).abs() < 1e-6);
        ramp.reset();
        assert!(ramp.weight().abs() < f32::EPSILON);
    }

    #[test]
    fn non_positive_rate_is_instant() {
        assert!(RagdollRamp::new(0.0, Easing::Linear).is_full());
        assert!(RagdollRamp::new(f32::NAN, Easing::Linear).is_full());
    }

    #[test]
    fn model_to_local_inverts_local_to_model() {
        let hierarchy = Hierarchy::from_parents(vec![NO_PARENT, 0, 1]).expect("valid tree");
        let pose = Pose {
            translations: vec![Vec3::new(1.0, 2.0, 3.0), Vec3::Y, Vec3::new(0.0, 0.5, 0.2)],
            rotations: vec![Quat::from_rotation_x(-1.2), Quat::from_rotation_z(0.4), Quat::from_rotation_y(2.0)],
            scales: vec![Vec3::splat(2.0), Vec3::ONE, Vec3::ONE],
            weights: vec![],
        };
        let mut world = vec![Affine3A::IDENTITY; 3];
        hierarchy.local_to_model(&pose, &mut world);
        let mut back = Pose {
            translations: vec![Vec3::ZERO; 3],
            rotations: vec![Quat::IDENTITY; 3],
            scales: vec![Vec3::ONE; 3],
            weights: vec![],
        };
        model_to_local(&hierarchy, &world, &mut back);
        for i in 0..3 {
            assert!(back.translations[i].abs_diff_eq(pose.translations[i], 1e-5));
            assert!(back.rotations[i].dot(pose.rotations[i]).abs() > 1.0 - 1e-6);
            assert!(back.scales[i].abs_diff_eq(pose.scales[i], 1e-5));
        }
    }

    #[test]
    fn per_node_blend_takes_each_nodes_weight() {
        let a = Pose {
            translations: vec![Vec3::ZERO, Vec3::ZERO],
            rotations: vec![Quat::IDENTITY; 2],
            scales: vec![Vec3::ONE; 2],
            weights: vec![0.25],
        };
        let b = Pose {
            translations: vec![Vec3::X, Vec3::Y],
            rotations: vec![Quat::from_rotation_z(1.0); 2],
            scales: vec![Vec3::splat(2.0); 2],
            weights: vec![1.0],
        };
        let mut out = a.clone();
        blend_poses_per_node(&a, &b, &[0.0, 0.5], &mut out);
        assert_eq!(out.translations[0], Vec3::ZERO);
        assert!(out.translations[1].abs_diff_eq(Vec3::new(0.0, 0.5, 0.0), 1e-6));
        assert!(out.rotations[1].angle_between(Quat::from_rotation_z(0.5)) < 1e-5);
        assert!(out.scales[1].abs_diff_eq(Vec3::splat(1.5), 1e-6));
        assert_eq!(out.weights, vec![0.25]);
    }

    #[test]
    fn placement_turns_and_moves_the_roots_only() {
        let hierarchy = Hierarchy::from_parents(vec![NO_PARENT, 0]).expect("valid tree");
        let mut pose = Pose {
            translations: vec![Vec3::new(1.0, 2.0, 0.0), Vec3::X],
            rotations: vec![Quat::IDENTITY; 2],
            scales: vec![Vec3::ONE; 2],
            weights: vec![],
        };
        let placement = Placement { yaw_rad: std::f32::consts::FRAC_PI_2, offset: Vec3::new(0.0, 0.0, 5.0) };
        placement.apply(&hierarchy, &mut pose);
        assert!(pose.translations[0].abs_diff_eq(Vec3::new(0.0, 2.0, 4.0), 1e-5));
        assert_eq!(pose.translations[1], Vec3::X, "children keep their local transform");
        let mut world = vec![Affine3A::IDENTITY; 2];
        hierarchy.local_to_model(&pose, &mut world);
        assert!(Vec3::from(world[1].translation).abs_diff_eq(placement.apply_point(Vec3::new(2.0, 2.0, 0.0)), 1e-5));
        let twice = placement.after(&placement);
        assert!(twice.apply_point(Vec3::X).abs_diff_eq(placement.apply_point(placement.apply_point(Vec3::X)), 1e-5));
    }
}
