//! The mannequin's skeleton: joint names, hierarchy and bind pose.
//!
//! Y up, metres, facing +Z, so the character's left is +X. Every joint's bind rotation is the
//! identity: the bind pose is carried entirely by the joints' local translations, which keeps the
//! animation authoring axes intuitive (X pitches, Y yaws, Z rolls in every joint's frame).

use glam::{DQuat, DVec3};

/// Number of joints.
pub const JOINT_COUNT: usize = 21;

/// Joint names in skin order (which is also their node order). Parents come before children.
pub const JOINT_NAMES: [&str; JOINT_COUNT] = [
    "Hips",
    "Spine",
    "Chest",
    "Neck",
    "Head",
    "Shoulder.L",
    "UpperArm.L",
    "LowerArm.L",
    "Hand.L",
    "Shoulder.R",
    "UpperArm.R",
    "LowerArm.R",
    "Hand.R",
    "UpperLeg.L",
    "LowerLeg.L",
    "Foot.L",
    "Toes.L",
    "UpperLeg.R",
    "LowerLeg.R",
    "Foot.R",
    "Toes.R",
];

/// Parent index of each joint (`None` for the root, Hips).
pub const PARENTS: [Option<usize>; JOINT_COUNT] = [
    None,
    Some(HIPS),
    Some(SPINE),
    Some(CHEST),
    Some(NECK),
    Some(CHEST),
    Some(5),
    Some(6),
    Some(7),
    Some(CHEST),
    Some(9),
    Some(10),
    Some(11),
    Some(HIPS),
    Some(13),
    Some(14),
    Some(15),
    Some(HIPS),
    Some(17),
    Some(18),
    Some(19),
];

pub const HIPS: usize = 0;
pub const SPINE: usize = 1;
pub const CHEST: usize = 2;
pub const NECK: usize = 3;
pub const HEAD: usize = 4;

/// Which side of the body a limb joint is on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    /// +1 for the character's left (+X), -1 for the right.
    pub fn sign(self) -> f64 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }
}

/// Joint indices of one arm.
#[derive(Clone, Copy, Debug)]
pub struct Arm {
    pub shoulder: usize,
    pub upper: usize,
    pub lower: usize,
    pub hand: usize,
}

/// Joint indices of one leg.
#[derive(Clone, Copy, Debug)]
pub struct Leg {
    pub upper: usize,
    pub lower: usize,
    pub foot: usize,
    pub toes: usize,
}

pub fn arm(side: Side) -> Arm {
    let base = match side {
        Side::Left => 5,
        Side::Right => 9,
    };
    Arm { shoulder: base, upper: base + 1, lower: base + 2, hand: base + 3 }
}

pub fn leg(side: Side) -> Leg {
    let base = match side {
        Side::Left => 13,
        Side::Right => 17,
    };
    Leg { upper: base, lower: base + 1, foot: base + 2, toes: base + 3 }
}

/// The joint's side, or `None` for the spine joints.
pub fn side_of(joint: usize) -> Option<Side> {
    match joint {
        5..=8 | 13..=16 => Some(Side::Left),
        9..=12 | 17..=20 => Some(Side::Right),
        _ => None,
    }
}

/// The same joint on the other side of the body (spine joints map to themselves).
pub fn mirror_joint(joint: usize) -> usize {
    match joint {
        5..=8 | 13..=16 => joint + 4,
        9..=12 | 17..=20 => joint - 4,
        _ => joint,
    }
}

/// Index of the joint called `name`.
pub fn joint_index(name: &str) -> Option<usize> {
    JOINT_NAMES.iter().position(|n| *n == name)
}

/// Angle of the arms below the horizontal in the bind A-pose, in degrees.
pub const ARM_DROP_DEG: f64 = 45.0;
const UPPER_ARM_LEN: f64 = 0.28;
const LOWER_ARM_LEN: f64 = 0.25;
/// Wrist to fingertip.
pub const HAND_LEN: f64 = 0.18;

/// Unit direction of the left arm in the bind pose (down and out at `ARM_DROP_DEG`).
pub fn arm_dir(side: Side) -> DVec3 {
    let (s, c) = crate::mannequin::math::sin_cos(ARM_DROP_DEG.to_radians());
    DVec3::new(c * side.sign(), -s, 0.0)
}

/// World-space bind positions of all joints.
pub fn bind_world_positions() -> [DVec3; JOINT_COUNT] {
    let mut p = [DVec3::ZERO; JOINT_COUNT];
    p[HIPS] = DVec3::new(0.0, 0.95, 0.0);
    p[SPINE] = DVec3::new(0.0, 1.06, 0.005);
    p[CHEST] = DVec3::new(0.0, 1.25, 0.01);
    p[NECK] = DVec3::new(0.0, 1.45, -0.012);
    p[HEAD] = DVec3::new(0.0, 1.56, -0.004);
    for side in [Side::Left, Side::Right] {
        let sx = side.sign();
        let a = arm(side);
        let d = arm_dir(side);
        p[a.shoulder] = DVec3::new(0.025 * sx, 1.43, -0.012);
        p[a.upper] = DVec3::new(0.175 * sx, 1.415, -0.016);
        p[a.lower] = p[a.upper] + d * UPPER_ARM_LEN;
        p[a.hand] = p[a.lower] + d * LOWER_ARM_LEN;
        let l = leg(side);
        p[l.upper] = DVec3::new(0.09 * sx, 0.92, 0.0);
        p[l.lower] = DVec3::new(0.09 * sx, 0.50, 0.012);
        p[l.foot] = DVec3::new(0.09 * sx, 0.085, -0.012);
        p[l.toes] = DVec3::new(0.09 * sx, 0.025, 0.125);
    }
    p
}

/// Local bind translations (joint position relative to its parent).
pub fn bind_local_translations() -> [DVec3; JOINT_COUNT] {
    let world = bind_world_positions();
    let mut local = [DVec3::ZERO; JOINT_COUNT];
    for j in 0..JOINT_COUNT {
        local[j] = match PARENTS[j] {
            Some(parent) => world[j] - world[parent],
            None => world[j],
        };
    }
    local
}

/// A pose: local rotation of every joint plus the Hips (root) translation.
#[derive(Clone, Debug)]
pub struct Pose {
    pub rotations: [DQuat; JOINT_COUNT],
    pub hips_translation: DVec3,
}

impl Pose {
    pub fn bind() -> Self {
        Self { rotations: [DQuat::IDENTITY; JOINT_COUNT], hips_translation: bind_world_positions()[HIPS] }
    }

    /// World rotation and position of every joint.
    pub fn world(&self) -> ([DQuat; JOINT_COUNT], [DVec3; JOINT_COUNT]) {
        let local = bind_local_translations();
        let mut rot = [DQuat::IDENTITY; JOINT_COUNT];
        let mut pos = [DVec3::ZERO; JOINT_COUNT];
        for j in 0..JOINT_COUNT {
            match PARENTS[j] {
                Some(parent) => {
                    rot[j] = rot[parent] * self.rotations[j];
                    pos[j] = pos[parent] + rot[parent] * local[j];
                }
                None => {
                    rot[j] = self.rotations[j];
                    pos[j] = self.hips_translation;
                }
            }
        }
        (rot, pos)
    }
}
