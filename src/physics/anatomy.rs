//! Anatomy: what each ragdoll body is ([`BoneKind`], [`Side`]) — from the bone naming schemes
//! people ship (the built-in character, Mixamo, Blender Rigify `DEF-`, Unreal's mannequin, VRM
//! humanoid, CesiumMan/RiggedFigure, the Khronos Fox) or, for names nobody recognises, from the
//! skeleton's geometry — and the anatomical joint that goes with it ([`JointModel`]): hinges for
//! knees and elbows, swing-twist joints (a cone of swing split into flexion and abduction
//! ranges, plus twist about the bone) for hips, shoulders, spine and neck.

use std::fmt;

/// Which side of the body a bone is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// On the midline (spine, head, tail).
    Centre,
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

/// What a ragdoll body is, anatomically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoneKind {
    /// Pelvis or hips (the usual root).
    Hips,
    /// Spine, chest or torso segment.
    Spine,
    /// Neck segment.
    Neck,
    /// Head.
    Head,
    /// Clavicle (shoulder girdle).
    Shoulder,
    /// Upper arm (humerus; a quadruped's front thigh).
    UpperArm,
    /// Forearm.
    LowerArm,
    /// Hand, palm or front paw.
    Hand,
    /// A finger or thumb (merged into the hand).
    Finger,
    /// Thigh.
    UpperLeg,
    /// Shin (calf).
    LowerLeg,
    /// Foot (a quadruped's hock to paw).
    Foot,
    /// Toes (merged into the foot).
    Toes,
    /// A tail segment.
    Tail,
    /// Not classified: a loose cone around the bind pose.
    Other,
}

impl BoneKind {
    /// Every kind, for tests and listings.
    pub const ALL: [Self; 15] = [
        Self::Hips,
        Self::Spine,
        Self::Neck,
        Self::Head,
        Self::Shoulder,
        Self::UpperArm,
        Self::LowerArm,
        Self::Hand,
        Self::Finger,
        Self::UpperLeg,
        Self::LowerLeg,
        Self::Foot,
        Self::Toes,
        Self::Tail,
        Self::Other,
    ];

    /// Lower-case name used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Hips => "hips",
            Self::Spine => "spine",
            Self::Neck => "neck",
            Self::Head => "head",
            Self::Shoulder => "shoulder",
            Self::UpperArm => "upper arm",
            Self::LowerArm => "forearm",
            Self::Hand => "hand",
            Self::Finger => "finger",
            Self::UpperLeg => "thigh",
            Self::LowerLeg => "shin",
            Self::Foot => "foot",
            Self::Toes => "toes",
            Self::Tail => "tail",
            Self::Other => "other",
        }
    }

    /// The limb a kind belongs to, if any.
    pub const fn limb(self) -> Option<Limb> {
        match self {
            Self::Shoulder | Self::UpperArm | Self::LowerArm | Self::Hand | Self::Finger => Some(Limb::Arm),
            Self::UpperLeg | Self::LowerLeg | Self::Foot | Self::Toes => Some(Limb::Leg),
            _ => None,
        }
    }

    /// The next segment down a limb or tail (`Hand` → `Finger`, `Tail` → `Tail`); `None` for
    /// the torso.
    pub const fn successor(self) -> Option<Self> {
        match self {
            Self::Shoulder => Some(Self::UpperArm),
            Self::UpperArm => Some(Self::LowerArm),
            Self::LowerArm => Some(Self::Hand),
            Self::Hand | Self::Finger => Some(Self::Finger),
            Self::UpperLeg => Some(Self::LowerLeg),
            Self::LowerLeg => Some(Self::Foot),
            Self::Foot | Self::Toes => Some(Self::Toes),
            Self::Tail => Some(Self::Tail),
            _ => None,
        }
    }

    /// Kinds whose consecutive bones (twist bones, split segments) form one rigid body.
    pub const fn merges_repeats(self) -> bool {
        matches!(
            self,
            Self::Hips
                | Self::Shoulder
                | Self::UpperArm
                | Self::LowerArm
                | Self::Hand
                | Self::UpperLeg
                | Self::LowerLeg
                | Self::Foot
        )
    }

    /// Kinds that never get a body of their own (they ride on the hand or foot).
    pub const fn is_digit(self) -> bool {
        matches!(self, Self::Finger | Self::Toes)
    }

    /// The motor region of a kind (stiffness and damping are tuned per region).
    pub const fn region(self) -> Region {
        match self {
            Self::Hips | Self::Spine | Self::Other => Region::Torso,
            Self::Neck | Self::Head => Region::Head,
            Self::Shoulder | Self::UpperArm | Self::LowerArm | Self::Hand | Self::Finger => Region::Arms,
            Self::UpperLeg | Self::LowerLeg | Self::Foot | Self::Toes => Region::Legs,
            Self::Tail => Region::Tail,
        }
    }

    /// Share of a human body's mass in one segment of this kind (one side), after Dempster and
    /// Winter's tables; `None` for kinds shared by volume (spine segments, tails, unclassified
    /// bodies: see [`BoneKind::group_fraction`]).
    pub const fn mass_fraction(self) -> Option<f32> {
        match self {
            Self::Hips => Some(0.14),
            Self::Neck | Self::Shoulder => Some(0.015),
            Self::Head => Some(0.065),
            Self::UpperArm => Some(0.028),
            Self::LowerArm => Some(0.016),
            Self::Hand | Self::Finger => Some(0.006),
            Self::UpperLeg => Some(0.10),
            Self::LowerLeg => Some(0.0465),
            Self::Foot | Self::Toes => Some(0.0145),
            Self::Spine | Self::Tail | Self::Other => None,
        }
    }

    /// For kinds shared by volume: the share of the body's mass all such segments take
    /// together (the spine's segments 30%, a tail's 3%); `None` for the rest.
    pub const fn group_fraction(self) -> Option<f32> {
        match self {
            Self::Spine => Some(0.30),
            Self::Tail => Some(0.03),
            _ => None,
        }
    }

    /// The anatomical joint between a body of this kind and its parent body.
    pub const fn joint_model(self) -> JointModel {
        match self {
            Self::Hips | Self::Spine => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Forward,
                [deg(-25.0), deg(35.0)],
                [deg(-20.0), deg(20.0)],
                deg(20.0),
            ),
            Self::Neck => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Forward,
                [deg(-35.0), deg(45.0)],
                [deg(-30.0), deg(30.0)],
                deg(40.0),
            ),
            Self::Head => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Forward,
                [deg(-30.0), deg(35.0)],
                [deg(-25.0), deg(25.0)],
                deg(40.0),
            ),
            Self::Shoulder => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Forward,
                [deg(-15.0), deg(20.0)],
                [deg(-10.0), deg(25.0)],
                deg(10.0),
            ),
            // From the arm hanging down: forward to above the head, back to 45°; out to above the
            // head, across the body by 30°.
            Self::UpperArm => JointModel::swing_twist(
                Neutral::Down,
                FlexionHint::Forward,
                [deg(-45.0), deg(150.0)],
                [deg(-30.0), deg(150.0)],
                deg(70.0),
            ),
            Self::LowerArm => JointModel::hinge(FlexionHint::Forward, [0.0, deg(145.0)], deg(70.0)),
            // Wrists (and paws) from their bind pose: rigs disagree on where a hand bone points.
            Self::Hand => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Down,
                [deg(-60.0), deg(60.0)],
                [deg(-25.0), deg(30.0)],
                deg(15.0),
            ),
            // From the leg hanging down: forward 95° (a limp leg's hamstrings stop it short of
            // the knee-to-chest 120°), back 15°; out 40°, across 20°: no splits.
            Self::UpperLeg => JointModel::swing_twist(
                Neutral::Down,
                FlexionHint::Forward,
                [deg(-15.0), deg(95.0)],
                [deg(-20.0), deg(40.0)],
                deg(35.0),
            ),
            Self::LowerLeg => JointModel::hinge(FlexionHint::Backward, [0.0, deg(150.0)], deg(15.0)),
            // Ankle: toes up 20° (dorsiflexion), down 45°; inversion and eversion 20°.
            Self::Foot => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Up,
                [deg(-45.0), deg(20.0)],
                [deg(-20.0), deg(20.0)],
                deg(15.0),
            ),
            Self::Tail => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Up,
                [deg(-35.0), deg(35.0)],
                [deg(-35.0), deg(35.0)],
                deg(15.0),
            ),
            Self::Finger | Self::Toes | Self::Other => JointModel::swing_twist(
                Neutral::Bind,
                FlexionHint::Forward,
                [deg(-35.0), deg(35.0)],
                [deg(-35.0), deg(35.0)],
                deg(25.0),
            ),
        }
    }
}

/// Degrees to radians, usable in `const` tables.
const fn deg(d: f32) -> f32 {
    d * std::f32::consts::PI / 180.0
}

impl fmt::Display for BoneKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A limb, for names that say "arm" or "leg" but not which segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Limb {
    /// Shoulder to fingers (a quadruped's front leg).
    Arm,
    /// Thigh to toes.
    Leg,
}

impl Limb {
    /// The first segment of the limb when nothing above it is known.
    pub const fn first(self) -> BoneKind {
        match self {
            Self::Arm => BoneKind::UpperArm,
            Self::Leg => BoneKind::UpperLeg,
        }
    }
}

/// Body regions whose motors are tuned together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Region {
    /// Hips and spine (and unclassified bodies).
    Torso,
    /// Neck and head.
    Head,
    /// Shoulders to hands.
    Arms,
    /// Thighs to feet.
    Legs,
    /// Tails.
    Tail,
}

impl Region {
    /// Every region.
    pub const ALL: [Self; 5] = [Self::Torso, Self::Head, Self::Arms, Self::Legs, Self::Tail];

    /// Lower-case name (as the command line takes it).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Torso => "torso",
            Self::Head => "head",
            Self::Arms => "arms",
            Self::Legs => "legs",
            Self::Tail => "tail",
        }
    }

    /// Index into per-region tables.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Parse a region name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Where a joint's swing is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neutral {
    /// The bone's direction in the bind pose (ranges are around the bind pose).
    Bind,
    /// Straight down (hips and shoulders: ranges are anatomical, whatever the bind pose — a
    /// T-pose arm starts at 90° of abduction).
    Down,
    /// The parent bone's direction (knees, elbows, wrists: ranges from the straight limb).
    Parent,
}

/// Which way a joint flexes (positive rotation about its flexion axis), in the character's
/// frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlexionHint {
    /// Toward the character's front (hips, shoulders, elbows, spine).
    Forward,
    /// Toward its back (knees).
    Backward,
    /// Upward (ankles: toes up).
    Up,
    /// Downward (wrists).
    Down,
}

/// An anatomical joint: its shape and ranges (radians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointModel {
    /// A one-way hinge (knee, elbow): the abduction axis is held at zero.
    pub hinge: bool,
    /// What the ranges are measured from.
    pub neutral: Neutral,
    /// Which way is flexion.
    pub flexion_hint: FlexionHint,
    /// Flexion range `[min, max]` (positive = flexion).
    pub flexion: [f32; 2],
    /// Abduction range `[min, max]` (positive = away from the midline; for midline bones, bending
    /// to the side).
    pub abduction: [f32; 2],
    /// Twist about the bone, `±twist`.
    pub twist: f32,
}

/// Half-width of a hinge's abduction range: it is held near zero, not locked, so that an
/// animation slightly off the hinge plane does not snap at the handoff.
pub const HINGE_SLACK_RAD: f32 = 2.0 * std::f32::consts::PI / 180.0;

impl JointModel {
    const fn swing_twist(
        neutral: Neutral,
        flexion_hint: FlexionHint,
        flexion: [f32; 2],
        abduction: [f32; 2],
        twist: f32,
    ) -> Self {
        Self { hinge: false, neutral, flexion_hint, flexion, abduction, twist }
    }

    const fn hinge(flexion_hint: FlexionHint, flexion: [f32; 2], twist: f32) -> Self {
        Self {
            hinge: true,
            neutral: Neutral::Parent,
            flexion_hint,
            flexion,
            abduction: [-HINGE_SLACK_RAD, HINGE_SLACK_RAD],
            twist,
        }
    }
}

/// Angular limits of one joint as Rapier measures them, in radians, on the joint frame: X runs
/// along the child bone (twist), Y is the flexion axis, Z the abduction axis. Each angle is
/// `2·atan2(q_axis, q_w)` of the relative rotation `q` of the two joint frames (with `q_w ≥ 0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimits {
    /// Twist about the bone, `[min, max]`.
    pub twist: [f32; 2],
    /// Rotation about the flexion axis (Y), `[min, max]`.
    pub swing_y: [f32; 2],
    /// Rotation about the abduction axis (Z), `[min, max]`.
    pub swing_z: [f32; 2],
}

impl JointLimits {
    /// Symmetric limits: `±twist` about the bone, `±swing` about both swing axes.
    pub const fn symmetric(twist: f32, swing: f32) -> Self {
        Self { twist: [-twist, twist], swing_y: [-swing, swing], swing_z: [-swing, swing] }
    }

    /// The ranges as an array, X (twist), Y, Z.
    pub const fn axes(&self) -> [[f32; 2]; 3] {
        [self.twist, self.swing_y, self.swing_z]
    }

    /// How far (radians) `angles` (X, Y, Z as Rapier measures them) lie outside the limits;
    /// 0 inside.
    pub fn violation(&self, angles: [f32; 3]) -> f32 {
        self.axes().iter().zip(angles).map(|(&[lo, hi], a)| (lo - a).max(a - hi).max(0.0)).fold(0.0, f32::max)
    }

    /// These limits widened, axis by axis, to contain `angles` with `margin` to spare (a handoff
    /// from an animation that already lies outside them must not snap).
    pub fn widened_to(&self, angles: [f32; 3], margin: f32) -> Self {
        let widen = |[lo, hi]: [f32; 2], a: f32| [lo.min(a - margin), hi.max(a + margin)];
        Self {
            twist: widen(self.twist, angles[0]),
            swing_y: widen(self.swing_y, angles[1]),
            swing_z: widen(self.swing_z, angles[2]),
        }
    }
}

/// The horizontal direction the character faces in its rest pose, in model space: from the
/// joints named as the character's right towards those named as its left, turned a quarter
/// about +Y (a character facing +Z, as glTF asks, has its left at +X). `None` when the names
/// give no sides, or the two sides do not lie apart horizontally. Allocates (once per model).
pub fn facing_direction(model: &anim::Model) -> Option<glam::Vec3> {
    let rest = model.rest_pose();
    let mut locals = anim::LocalMatrices::new(model.nodes().len());
    let mut model_from_node = vec![glam::Affine3A::IDENTITY; model.nodes().len()];
    model.hierarchy.local_to_model(&rest, &mut locals, &mut model_from_node);
    let (mut left, mut right) = ((glam::Vec3::ZERO, 0u32), (glam::Vec3::ZERO, 0u32));
    for (node, world) in model.nodes().iter().zip(&model_from_node) {
        let Some(name) = node.name.as_deref() else { continue };
        let position = glam::Vec3::from(world.translation);
        match recognise(name).side {
            Some(Side::Left) => left = (left.0 + position, left.1 + 1),
            Some(Side::Right) => right = (right.0 + position, right.1 + 1),
            _ => {}
        }
    }
    if left.1 == 0 || right.1 == 0 {
        return None;
    }
    let lateral = left.0 / left.1 as f32 - right.0 / right.1 as f32;
    let facing = lateral.cross(glam::Vec3::Y);
    let horizontal = glam::Vec3::new(facing.x, 0.0, facing.z);
    (horizontal.length() > 1e-6 * lateral.length().max(1e-12)).then(|| horizontal.normalize())
}

/// What a bone's name says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameHint {
    /// The exact kind, when the name gives it.
    pub kind: Option<BoneKind>,
    /// The limb, when the name says "arm" or "leg" but not which segment.
    pub limb: Option<Limb>,
    /// The side, when the name gives it.
    pub side: Option<Side>,
}

/// Words that carry no anatomy (scheme prefixes and filler).
const NOISE: [&str; 13] =
    ["mixamorig", "def", "org", "mch", "j", "bip", "b", "c", "skeleton", "joint", "jnt", "bone", "bn"];

/// Split a bone name into lower-case words: at separators, lower→upper case changes and
/// letter↔digit changes (`mixamorig:LeftForeArm` → `mixamorig left fore arm`,
/// `b_LeftLeg01_015` → `b left leg 01 015`, `thigh_l` → `thigh l`).
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous = None;
            continue;
        }
        let boundary = previous.is_some_and(|p| {
            (p.is_ascii_lowercase() && c.is_ascii_uppercase()) || (p.is_ascii_digit() != c.is_ascii_digit())
        });
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Recognise a bone name: kind (or limb) and side, for the naming schemes of the built-in
/// character (`UpperArm.L`), Mixamo (`mixamorig:LeftForeArm`), Rigify (`DEF-forearm.L`,
/// `DEF-spine.003`), Unreal's mannequin (`thigh_l`, `calf_twist_01_l`, `ball_l`), VRM humanoid
/// (`leftUpperArm`, `VRoid`'s `J_Bip_L_UpperArm`), `CesiumMan` and `RiggedFigure`
/// (`leg_joint_L_2`: a leg, the segment from its place in the chain) and the Fox
/// (`b_LeftLeg01_015`).
pub fn recognise(name: &str) -> NameHint {
    let all = words(name);
    let mut side = None;
    let mut number = None;
    let mut kept: Vec<&str> = Vec::new();
    for word in &all {
        match word.as_str() {
            "l" | "left" | "lf" => side = Some(Side::Left),
            "r" | "right" | "rt" => side = Some(Side::Right),
            w if w.bytes().all(|b| b.is_ascii_digit()) => {
                number = number.or_else(|| w.parse::<u32>().ok());
            }
            w if NOISE.contains(&w) => {}
            w => kept.push(w),
        }
    }
    let joined: String = kept.concat();
    if joined.contains("armature") || joined == "root" || joined.is_empty() {
        return NameHint { kind: None, limb: None, side };
    }
    let has = |s: &str| joined.contains(s);
    let rigify = all.first().is_some_and(|w| w == "def" || w == "org");
    let kind = if ["thumb", "index", "middle", "ring", "pinky", "little", "finger", "digit"].iter().any(|s| has(s)) {
        Some(BoneKind::Finger)
    } else if has("toe") || joined == "ball" {
        Some(BoneKind::Toes)
    } else if has("forearm") || has("lowerarm") || has("elbow") {
        Some(BoneKind::LowerArm)
    } else if has("upperarm") || has("uparm") {
        Some(BoneKind::UpperArm)
    } else if has("clavicle") || has("shoulder") || has("collar") {
        Some(BoneKind::Shoulder)
    } else if has("hand") || has("wrist") || has("palm") {
        Some(BoneKind::Hand)
    } else if has("thigh") || has("upperleg") || has("upleg") {
        Some(BoneKind::UpperLeg)
    } else if has("calf") || has("shin") || has("lowerleg") || has("knee") {
        Some(BoneKind::LowerLeg)
    } else if has("foot") || has("ankle") || has("heel") {
        Some(BoneKind::Foot)
    } else if rigify && side.is_some() && has("pelvis") {
        // Rigify's `DEF-pelvis.L`/`.R`: flaps of the hip skin hung on the pelvis, not the hips.
        None
    } else if has("pelvis") || has("hip") {
        Some(BoneKind::Hips)
    } else if has("neck") {
        Some(BoneKind::Neck)
    } else if has("head") {
        Some(BoneKind::Head)
    } else if has("tail") {
        Some(BoneKind::Tail)
    } else if rigify && joined == "spine" {
        // Rigify's spine chain: spine (the pelvis), .001–.003 spine and chest, .004–.005 neck,
        // .006 head.
        Some(match number.unwrap_or(0) {
            0 => BoneKind::Hips,
            1..=3 => BoneKind::Spine,
            4 | 5 => BoneKind::Neck,
            _ => BoneKind::Head,
        })
    } else if has("spine") || has("chest") || has("torso") || has("abdomen") || has("waist") || has("back") {
        Some(BoneKind::Spine)
    } else {
        None
    };
    let limb = if kind.is_some() {
        None
    } else if has("arm") {
        Some(Limb::Arm)
    } else if has("leg") {
        Some(Limb::Leg)
    } else {
        None
    };
    NameHint { kind, limb, side }
}

/// Whether `name` is a Rigify deform bone (`DEF-forearm.L`, `DEF-spine.003`). A Rigify armature
/// exported with all its bones also holds originals (`ORG-`), mechanism (`MCH-`) and controls
/// (`torso`, `chest`, `thigh_fk.L`, `foot_ik.R`) named after the same anatomy; only the deform
/// bones move the mesh, so where a skin has them they are the joints to recognise.
pub fn is_rigify_deform(name: &str) -> bool {
    words(name).first().is_some_and(|w| w == "def")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(name: &str) -> Option<BoneKind> {
        recognise(name).kind
    }

    #[test]
    fn splits_names_into_words() {
        assert_eq!(words("mixamorig:LeftForeArm"), ["mixamorig", "left", "fore", "arm"]);
        assert_eq!(words("b_LeftLeg01_015"), ["b", "left", "leg", "01", "015"]);
        assert_eq!(words("DEF-upper_arm.L.001"), ["def", "upper", "arm", "l", "001"]);
        assert_eq!(words("J_Bip_L_UpperArm"), ["j", "bip", "l", "upper", "arm"]);
    }

    #[test]
    fn recognises_every_listed_naming_scheme() {
        use BoneKind::*;
        let cases: &[(&str, BoneKind, Side)] = &[
            // The built-in character.
            ("Hips", Hips, Side::Centre),
            ("UpperArm.L", UpperArm, Side::Left),
            ("LowerLeg.R", LowerLeg, Side::Right),
            ("Toes.L", Toes, Side::Left),
            // Mixamo.
            ("mixamorig:Hips", Hips, Side::Centre),
            ("mixamorig:Spine2", Spine, Side::Centre),
            ("mixamorig:LeftShoulder", Shoulder, Side::Left),
            ("mixamorig:LeftForeArm", LowerArm, Side::Left),
            ("mixamorig:RightUpLeg", UpperLeg, Side::Right),
            ("mixamorig:LeftToeBase", Toes, Side::Left),
            ("mixamorig:RightHandIndex1", Finger, Side::Right),
            // Rigify.
            ("DEF-spine", Hips, Side::Centre),
            ("DEF-spine.002", Spine, Side::Centre),
            ("DEF-spine.004", Neck, Side::Centre),
            ("DEF-spine.006", Head, Side::Centre),
            ("DEF-upper_arm.L.001", UpperArm, Side::Left),
            ("DEF-forearm.R", LowerArm, Side::Right),
            ("DEF-thigh.L", UpperLeg, Side::Left),
            ("DEF-shin.R.001", LowerLeg, Side::Right),
            ("DEF-toe.L", Toes, Side::Left),
            // Unreal mannequin.
            ("pelvis", Hips, Side::Centre),
            ("spine_03", Spine, Side::Centre),
            ("neck_01", Neck, Side::Centre),
            ("clavicle_l", Shoulder, Side::Left),
            ("upperarm_twist_01_r", UpperArm, Side::Right),
            ("lowerarm_l", LowerArm, Side::Left),
            ("thigh_l", UpperLeg, Side::Left),
            ("calf_r", LowerLeg, Side::Right),
            ("ball_l", Toes, Side::Left),
            // VRM humanoid and VRoid.
            ("leftUpperArm", UpperArm, Side::Left),
            ("rightLowerLeg", LowerLeg, Side::Right),
            ("upperChest", Spine, Side::Centre),
            ("J_Bip_L_UpperLeg", UpperLeg, Side::Left),
            ("J_Bip_C_Head", Head, Side::Centre),
            // The Fox.
            ("b_Hip_01", Hips, Side::Centre),
            ("b_LeftFoot01_017", Foot, Side::Left),
            ("b_RightForeArm_07", LowerArm, Side::Right),
            ("b_Tail02_013", Tail, Side::Centre),
        ];
        for &(name, expected, side) in cases {
            let hint = recognise(name);
            assert_eq!(hint.kind, Some(expected), "{name}");
            assert_eq!(hint.side.unwrap_or(Side::Centre), side, "{name}");
        }
    }

    #[test]
    fn rigify_deform_bones_are_told_from_its_other_layers() {
        for name in ["DEF-spine", "DEF-spine.001", "DEF-thigh.L", "DEF-upper_arm.R.001", "def_hand.L"] {
            assert!(is_rigify_deform(name), "{name}");
        }
        for name in ["ORG-thigh.L", "MCH-spine.002", "torso", "chest", "thigh_fk.L", "foot_ik.R", "Hips", "DEFAULT"] {
            assert!(!is_rigify_deform(name), "{name}");
        }
        // Originals name the same anatomy as their deform twins: the skin's layer decides.
        assert_eq!(kind("ORG-thigh.L"), kind("DEF-thigh.L"));
        // The spine chain in its order, and the hip flaps that are no hips.
        let spine: Vec<_> = [
            "DEF-spine",
            "DEF-spine.001",
            "DEF-spine.002",
            "DEF-spine.003",
            "DEF-spine.004",
            "DEF-spine.005",
            "DEF-spine.006",
        ]
        .into_iter()
        .map(kind)
        .collect();
        use BoneKind::*;
        assert_eq!(spine, [Some(Hips), Some(Spine), Some(Spine), Some(Spine), Some(Neck), Some(Neck), Some(Head)]);
        assert_eq!(kind("DEF-pelvis.L"), None);
        assert_eq!(kind("DEF-pelvis.R"), None);
        assert_eq!(kind("pelvis"), Some(Hips));
        assert_eq!(kind("DEF-hips"), Some(Hips));
    }

    #[test]
    fn generic_limb_names_leave_the_segment_to_the_chain() {
        // CesiumMan / RiggedFigure number their limb joints (and CesiumMan's left arm counts
        // down); Mixamo's "LeftLeg" is the shin and the Fox's "LeftLeg01" the thigh.
        for name in ["leg_joint_L_2", "Skeleton_arm_joint_L__4_", "mixamorig:LeftLeg", "b_LeftLeg01_015", "LeftArm"] {
            let hint = recognise(name);
            assert_eq!(hint.kind, None, "{name}");
            assert!(hint.limb.is_some(), "{name}");
        }
        assert_eq!(recognise("leg_joint_L_2").side, Some(Side::Left));
        assert_eq!(kind("b_Root_00"), None);
        assert_eq!(kind("Cylinder"), None);
    }

    #[test]
    fn limits_measure_violations_and_widen() {
        let limits = JointLimits::symmetric(0.2, 0.5);
        assert!(limits.violation([0.1, -0.4, 0.5]).abs() < 1e-6);
        assert!((limits.violation([0.0, 0.7, 0.0]) - 0.2).abs() < 1e-6);
        let wide = limits.widened_to([0.0, 0.7, 0.0], 0.01);
        assert!((wide.swing_y[1] - 0.71).abs() < 1e-6 && wide.swing_y[0] == -0.5);
        assert!(wide.violation([0.0, 0.7, 0.0]) == 0.0);
    }
}
