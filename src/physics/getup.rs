//! Getting up: how a fallen body lies ([`GetUpPlan`]: face up or face down, where, and which way
//! it will stand), where the get-up clip is played so that it starts there
//! ([`GetUpPlan::placement`]), and the key poses a get-up passes through (sitting up or getting
//! onto all fours, then a crouch) built from the rig's own anatomy.

use anim::ragdoll::{Placement, model_to_local};
use anim::{LocalMatrices, Model, SoaPose};
use glam::{Affine3A, Quat, Vec3};

use super::BodyId;
use super::anatomy::BoneKind;
use super::spec::{RagdollSpec, axis_angles};

/// Which way up a fallen body lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Facing {
    /// On its back (belly up).
    Up,
    /// On its front (belly down).
    Down,
}

impl Facing {
    /// `face-up` / `face-down`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Up => "face-up",
            Self::Down => "face-down",
        }
    }
}

/// How and where a fallen body lies, and how it will stand up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GetUpPlan {
    /// Face up or face down, from the torso's orientation.
    pub facing: Facing,
    /// World position of the root body's joint (the pelvis) as it lies.
    pub lying_root: Vec3,
    /// The horizontal direction the character faces once up: toward its feet when getting up
    /// from its back (it sits up facing them), toward its head from its front (it pushes up and
    /// kneels facing forward); a quadruped stands facing where its head lies.
    pub heading: Vec3,
    /// The rig stands upright (spine up in the rest pose); quadrupeds and unknown shapes get a
    /// simpler get-up.
    pub biped: bool,
}

/// The top of the midline chain (head, else the highest neck or spine body).
fn head_body(spec: &RagdollSpec) -> Option<BodyId> {
    let rank = |k: BoneKind| match k {
        BoneKind::Head => 3,
        BoneKind::Neck => 2,
        BoneKind::Spine => 1,
        _ => 0,
    };
    spec.body_ids().filter(|&b| spec.body(b).is_some_and(|body| rank(body.kind) > 0)).max_by(|&a, &b| {
        let key = |id: BodyId| spec.body(id).map_or((0, 0.0), |body| (rank(body.kind), body.rest_origin.y));
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    })
}

/// True when the rig stands upright: its head (or top spine) is well above its root at rest.
pub fn is_biped(spec: &RagdollSpec) -> bool {
    let (Some(head), Some(root)) = (head_body(spec).and_then(|h| spec.body(h)), spec.body(spec.root)) else {
        return false;
    };
    (head.rest_origin - root.rest_origin).normalize_or_zero().dot(spec.up) > 0.7
}

/// The rigid part of a world transform.
fn rigid(world: &Affine3A) -> (Quat, Vec3) {
    let (_, rotation, translation) = world.to_scale_rotation_translation();
    (rotation.normalize(), translation)
}

fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// The character's facing (horizontal, unit) in a posed world: the rest-pose forward carried by
/// the root body's rotation.
pub fn facing_direction(spec: &RagdollSpec, world: &[Affine3A]) -> Vec3 {
    let Some(root) = spec.body(spec.root) else { return Vec3::Z };
    let (rotation, _) = rigid(&world.get(root.node.index()).copied().unwrap_or_default());
    let forward = rotation * (root.rest_rotation.inverse() * spec.forward);
    horizontal(forward).try_normalize().unwrap_or(Vec3::Z)
}

impl GetUpPlan {
    /// How the body posed by `world` (one world transform per node) lies.
    pub fn from_world(spec: &RagdollSpec, world: &[Affine3A]) -> Self {
        let biped = is_biped(spec);
        let body_world = |b: BodyId| spec.body(b).and_then(|body| world.get(body.node.index())).map(rigid);
        let (root_rotation, root_position) = body_world(spec.root).unwrap_or((Quat::IDENTITY, Vec3::ZERO));
        let root_rest = spec.body(spec.root).map_or(Quat::IDENTITY, |b| b.rest_rotation);
        // The belly: the front of a biped, the underside of a quadruped.
        let ventral_rest = if biped { spec.forward } else { -spec.up };
        let ventral = root_rotation * (root_rest.inverse() * ventral_rest);
        let facing = if ventral.y < 0.0 { Facing::Down } else { Facing::Up };
        let head_position = head_body(spec).and_then(body_world).map(|(_, p)| p);
        let toward_head = head_position
            .and_then(|h| horizontal(h - root_position).try_normalize())
            .unwrap_or_else(|| facing_direction(spec, world));
        let heading = match (biped, facing) {
            (true, Facing::Up) => -toward_head,
            _ => toward_head,
        };
        Self { facing, lying_root: root_position, heading, biped }
    }

    /// The placement that makes a clip start where and how the body lies: `clip_start` (the
    /// clip's first pose, as authored) turned about the vertical so that the character faces
    /// [`Self::heading`], and moved so that its root stands over [`Self::lying_root`].
    pub fn placement(&self, spec: &RagdollSpec, model: &Model, clip_start: &SoaPose) -> Placement {
        let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
        model.hierarchy.local_to_model(clip_start, &mut LocalMatrices::new(world.len()), &mut world);
        let facing = facing_direction(spec, &world);
        let yaw = facing.cross(self.heading).y.atan2(facing.dot(self.heading));
        let root =
            spec.body(spec.root).and_then(|b| world.get(b.node.index())).map_or(Vec3::ZERO, |w| w.translation.into());
        let turned = Quat::from_rotation_y(yaw) * root;
        let offset = horizontal(self.lying_root - turned);
        if yaw.is_finite() && offset.is_finite() { Placement { yaw_rad: yaw, offset } } else { Placement::IDENTITY }
    }

    /// How well a placed clip start matches the plan: the horizontal distance between its root
    /// and the lying root (world units), and the angle between its facing and
    /// [`Self::heading`] (radians).
    pub fn alignment_error(&self, spec: &RagdollSpec, placed_world: &[Affine3A]) -> (f32, f32) {
        let root = spec
            .body(spec.root)
            .and_then(|b| placed_world.get(b.node.index()))
            .map_or(Vec3::ZERO, |w| w.translation.into());
        let distance = horizontal(root - self.lying_root).length();
        let facing = facing_direction(spec, placed_world);
        (distance, facing.dot(self.heading).clamp(-1.0, 1.0).acos())
    }
}

/// An intermediate pose of a get-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPose {
    /// Sitting up on the ground, legs forward (from face up).
    Sit,
    /// On hands and knees (from face down).
    AllFours,
    /// A deep crouch, feet under the body, about to stand.
    Crouch,
    /// Limbs folded under the body (quadrupeds and unknown shapes).
    Fold,
}

impl KeyPose {
    /// Forward pitch of the root body (radians) and extra flexion per bone kind (radians,
    /// clamped to each joint's range).
    fn recipe(self) -> (f32, fn(BoneKind) -> f32) {
        let deg = |d: f32| d.to_radians();
        match self {
            Self::Sit => (deg(-10.0), |k| match k {
                BoneKind::UpperLeg => 85f32.to_radians(),
                BoneKind::LowerLeg | BoneKind::Spine => 10f32.to_radians(),
                BoneKind::UpperArm | BoneKind::LowerArm => 25f32.to_radians(),
                _ => 0.0,
            }),
            Self::AllFours => (deg(80.0), |k| match k {
                BoneKind::UpperLeg => 85f32.to_radians(),
                BoneKind::LowerLeg => 95f32.to_radians(),
                BoneKind::Foot => -30f32.to_radians(),
                BoneKind::UpperArm => 80f32.to_radians(),
                BoneKind::Neck => -25f32.to_radians(),
                _ => 0.0,
            }),
            Self::Crouch => (deg(30.0), |k| match k {
                BoneKind::UpperLeg => 75f32.to_radians(),
                BoneKind::LowerLeg => 115f32.to_radians(),
                BoneKind::Foot => 20f32.to_radians(),
                BoneKind::Spine => 10f32.to_radians(),
                BoneKind::UpperArm => 35f32.to_radians(),
                BoneKind::LowerArm => 30f32.to_radians(),
                _ => 0.0,
            }),
            Self::Fold => (0.0, |k| match k {
                BoneKind::UpperLeg => 45f32.to_radians(),
                BoneKind::LowerLeg => 80f32.to_radians(),
                BoneKind::Foot => -40f32.to_radians(),
                BoneKind::UpperArm => -35f32.to_radians(),
                BoneKind::LowerArm => 70f32.to_radians(),
                _ => 0.0,
            }),
        }
    }

    /// The key poses between lying and standing for a plan.
    pub fn sequence(plan: &GetUpPlan) -> &'static [KeyPose] {
        match (plan.biped, plan.facing) {
            (true, Facing::Up) => &[Self::Sit, Self::Crouch],
            (true, Facing::Down) => &[Self::AllFours, Self::Crouch],
            (false, _) => &[Self::Fold],
        }
    }
}

/// Bodies ordered parents first.
pub(crate) fn parents_first(spec: &RagdollSpec) -> Vec<BodyId> {
    let depth = |mut b: BodyId| {
        let mut d = 0usize;
        while let Some(p) = spec.body(b).and_then(|body| body.parent) {
            b = p;
            d += 1;
            if d > spec.bodies.len() {
                break;
            }
        }
        d
    };
    let mut order: Vec<BodyId> = spec.body_ids().collect();
    order.sort_by_key(|&b| (depth(b), b));
    order
}

/// The lowest point of any body capsule of the pose `world` (world y).
pub fn lowest_capsule_point(spec: &RagdollSpec, world: &[Affine3A]) -> f32 {
    let mut lowest = f32::MAX;
    for body in &spec.bodies {
        let Some(w) = world.get(body.node.index()) else { continue };
        let (a, b, radius) = body.capsule_in(w);
        lowest = lowest.min(a.y.min(b.y) - radius);
    }
    lowest
}

/// Build `key` from the standing pose `target_world` (one world transform per node): the root
/// pitched forward about the character's left, each joint flexed further by the recipe (within
/// its range), every other node riding on its body as in the target, then lowered or raised so
/// that the lowest capsule touches `ground_y`. Writes the local pose into `out` (seeded from
/// `target_local`).
pub fn key_pose(
    spec: &RagdollSpec,
    model: &Model,
    key: KeyPose,
    target_local: &SoaPose,
    target_world: &[Affine3A],
    ground_y: f32,
    out: &mut SoaPose,
) {
    let (pitch, flexion) = key.recipe();
    let count = spec.bodies.len();
    let base: Vec<(Quat, Vec3)> = spec
        .bodies
        .iter()
        .map(|b| target_world.get(b.node.index()).map_or((Quat::IDENTITY, Vec3::ZERO), rigid))
        .collect();
    let mut posed = base.clone();
    let left = spec.up.cross(facing_direction(spec, target_world)).normalize_or(Vec3::X);
    for b in parents_first(spec) {
        let i = b.index();
        let Some(body) = spec.body(b) else { continue };
        let Some(p) = body.parent.map(BodyId::index).filter(|&p| p < count) else {
            posed[i].0 = (Quat::from_axis_angle(left, pitch) * base[i].0).normalize();
            continue;
        };
        let relative = (base[p].0 * body.joint_frame_parent).inverse() * (base[i].0 * body.joint_frame_child);
        let now = axis_angles(relative)[1];
        let [lo, hi] = body.limits.swing_y;
        let extra = (now + flexion(body.kind)).clamp(lo.min(now), hi.max(now)) - now;
        let flexed = Quat::from_rotation_y(extra) * relative;
        posed[i].0 = (posed[p].0 * body.joint_frame_parent * flexed * body.joint_frame_child.inverse()).normalize();
        posed[i].1 = posed[p].1 + posed[p].0 * (base[p].0.inverse() * (base[i].1 - base[p].1));
    }
    let mut world: Vec<Affine3A> = target_world.to_vec();
    for (node, slot) in world.iter_mut().enumerate() {
        let Some(b) = spec.body_for_node(anim::NodeId::from_index(node)) else { continue };
        let i = b.index();
        let body_from_node = Affine3A::from_rotation_translation(base[i].0, base[i].1).inverse() * target_world[node];
        *slot = Affine3A::from_rotation_translation(posed[i].0, posed[i].1) * body_from_node;
    }
    let lift = ground_y - lowest_capsule_point(spec, &world);
    if lift.is_finite() {
        for w in &mut world {
            w.translation.y += lift;
        }
    }
    out.copy_from(target_local);
    model_to_local(&model.hierarchy, &world, out);
}
