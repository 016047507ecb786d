//! Pure helpers for the animation ↔ ragdoll handoff: the blend-weight ramp ([`RagdollRamp`],
//! also used for the motor-strength ramp of a powered ragdoll), the conversion of world (model)
//! transforms back into a local pose ([`model_to_local`]) and where a clip is played after a
//! get-up ([`Placement`]). A partial ragdoll blends with [`crate::blend_poses_per_node`].
//!
//! No physics here: the physics engine lives in the application crate and only hands world
//! transforms back.

use glam::{Affine3A, Quat, Vec3};

use crate::hierarchy::Hierarchy;
use crate::ids::NodeId;
use crate::interp::Easing;
use crate::pose::{SoaPose, Transform};

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
pub fn model_to_local(hierarchy: &Hierarchy, model_from_node: &[Affine3A], pose: &mut SoaPose) {
    let n = hierarchy.len().min(model_from_node.len()).min(pose.len());
    for (node, model_from_node_here) in model_from_node.iter().enumerate().take(n) {
        let id = NodeId::from_index(node);
        let parent_from_node = match hierarchy.parent(id) {
            None => *model_from_node_here,
            Some(parent) => match model_from_node.get(parent.index()) {
                Some(model_from_parent) if model_from_parent.matrix3.determinant().abs() > 1e-30 => {
                    model_from_parent.inverse() * *model_from_node_here
                }
                _ => continue,
            },
        };
        let (scale, rotation, translation) = parent_from_node.to_scale_rotation_translation();
        let local = Transform { translation, rotation: rotation.normalize(), scale };
        if local.is_finite() {
            pose.set(id, local);
        }
    }
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
    pub fn apply(&self, hierarchy: &Hierarchy, pose: &mut SoaPose) {
        if self.is_identity() || !(self.yaw_rad.is_finite() && self.offset.is_finite()) {
            return;
        }
        hierarchy.place_roots(pose, Quat::from_rotation_y(self.yaw_rad), self.offset);
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
        let id = NodeId::from_index;
        let hierarchy = Hierarchy::from_parents(&[None, Some(id(0)), Some(id(1))]).expect("valid tree");
        let transforms = [
            Transform {
                translation: Vec3::new(1.0, 2.0, 3.0),
                rotation: Quat::from_rotation_x(-1.2),
                scale: Vec3::splat(2.0),
            },
            Transform { translation: Vec3::Y, rotation: Quat::from_rotation_z(0.4), scale: Vec3::ONE },
            Transform { translation: Vec3::new(0.0, 0.5, 0.2), rotation: Quat::from_rotation_y(2.0), scale: Vec3::ONE },
        ];
        let pose = SoaPose::from_transforms(&transforms, Vec::new());
        let mut world = vec![Affine3A::IDENTITY; 3];
        hierarchy.local_to_model(&pose, &mut crate::hierarchy::LocalMatrices::new(3), &mut world);
        let mut back = SoaPose::from_transforms(&[Transform::IDENTITY; 3], Vec::new());
        model_to_local(&hierarchy, &world, &mut back);
        for (i, expected) in transforms.iter().enumerate() {
            let got = back.transform(id(i));
            assert!(got.translation.abs_diff_eq(expected.translation, 1e-5));
            assert!(got.rotation.dot(expected.rotation).abs() > 1.0 - 1e-6);
            assert!(got.scale.abs_diff_eq(expected.scale, 1e-5));
        }
    }

    #[test]
    fn placement_turns_and_moves_the_roots_only() {
        let id = NodeId::from_index;
        let hierarchy = Hierarchy::from_parents(&[None, Some(id(0))]).expect("valid tree");
        let transforms = [
            Transform { translation: Vec3::new(1.0, 2.0, 0.0), ..Transform::IDENTITY },
            Transform { translation: Vec3::X, ..Transform::IDENTITY },
        ];
        let mut pose = SoaPose::from_transforms(&transforms, Vec::new());
        let placement = Placement { yaw_rad: std::f32::consts::FRAC_PI_2, offset: Vec3::new(0.0, 0.0, 5.0) };
        placement.apply(&hierarchy, &mut pose);
        assert!(pose.translation(id(0)).abs_diff_eq(Vec3::new(0.0, 2.0, 4.0), 1e-5));
        assert_eq!(pose.translation(id(1)), Vec3::X, "children keep their local transform");
        let mut world = vec![Affine3A::IDENTITY; 2];
        hierarchy.local_to_model(&pose, &mut crate::hierarchy::LocalMatrices::new(2), &mut world);
        assert!(Vec3::from(world[1].translation).abs_diff_eq(placement.apply_point(Vec3::new(2.0, 2.0, 0.0)), 1e-5));
        let twice = placement.after(&placement);
        assert!(twice.apply_point(Vec3::X).abs_diff_eq(placement.apply_point(placement.apply_point(Vec3::X)), 1e-5));
    }
}
