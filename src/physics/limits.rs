//! Per-axis joint limits: generic defaults around the bind pose, and human-like limits for
//! recognised humanoid bone names.

/// Angular limits of one spherical joint, in radians, around the bind pose. The joint frame's
/// X axis runs along the child bone (twist); Y and Z are the two swing axes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimits {
    /// Twist about the bone, `[min, max]`.
    pub twist: [f32; 2],
    /// Swing about the joint frame's Y axis, `[min, max]`.
    pub swing_y: [f32; 2],
    /// Swing about the joint frame's Z axis, `[min, max]`.
    pub swing_z: [f32; 2],
}

impl JointLimits {
    /// Symmetric limits: `±twist` about the bone, `±swing` about both swing axes.
    pub const fn symmetric(twist: f32, swing: f32) -> Self {
        Self { twist: [-twist, twist], swing_y: [-swing, swing], swing_z: [-swing, swing] }
    }

    /// The default for bones with no recognised name: a loose joint around the bind pose.
    pub const GENERIC: Self = Self::symmetric(0.5, 0.8);
}

/// Humanoid bone kinds, recognised from common naming schemes (Blender `UpperArm.L`, Mixamo
/// `mixamorig:LeftForeArm`, `thigh_l`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoneKind {
    /// Pelvis or hips.
    Hips,
    /// Spine, chest, torso or abdomen.
    Spine,
    /// Neck.
    Neck,
    /// Head.
    Head,
    /// Shoulder or clavicle.
    Shoulder,
    /// Upper arm.
    UpperArm,
    /// Forearm.
    LowerArm,
    /// Hand, palm or wrist.
    Hand,
    /// Thigh.
    UpperLeg,
    /// Shin.
    LowerLeg,
    /// Foot or ankle.
    Foot,
}

impl BoneKind {
    /// Recognise a bone name; `None` for names that are not humanoid bones.
    pub fn recognise(name: &str) -> Option<Self> {
        let n: String = name.to_ascii_lowercase().chars().filter(char::is_ascii_alphabetic).collect();
        let has = |s: &str| n.contains(s);
        let kind = if has("forearm") || has("lowerarm") || has("elbow") {
            Self::LowerArm
        } else if has("upperarm")
            || has("uparm")
            || n.ends_with("arml")
            || n.ends_with("armr")
            || has("leftarm")
            || has("rightarm")
        {
            Self::UpperArm
        } else if has("shoulder") || has("clavicle") {
            Self::Shoulder
        } else if has("hand") || has("palm") || has("wrist") {
            Self::Hand
        } else if has("upperleg") || has("upleg") || has("thigh") {
            Self::UpperLeg
        } else if has("lowerleg")
            || has("shin")
            || has("calf")
            || has("knee")
            || n.ends_with("legl")
            || n.ends_with("legr")
            || has("leftleg")
            || has("rightleg")
        {
            Self::LowerLeg
        } else if has("foot") || has("ankle") {
            Self::Foot
        } else if has("hips") || has("pelvis") {
            Self::Hips
        } else if has("neck") {
            Self::Neck
        } else if has("head") {
            Self::Head
        } else if has("spine") || has("chest") || has("torso") || has("abdomen") {
            Self::Spine
        } else {
            return None;
        };
        Some(kind)
    }

    /// Human-like limits for this kind of bone (around the bind pose).
    pub const fn limits(self) -> JointLimits {
        match self {
            Self::Hips | Self::Spine => JointLimits::symmetric(0.35, 0.5),
            Self::Neck => JointLimits::symmetric(0.5, 0.6),
            Self::Head => JointLimits::symmetric(0.6, 0.6),
            Self::Shoulder => JointLimits::symmetric(0.2, 0.4),
            Self::UpperArm => JointLimits::symmetric(1.0, 1.5),
            Self::LowerArm => JointLimits::symmetric(0.8, 1.4),
            Self::Hand => JointLimits::symmetric(0.3, 0.9),
            Self::UpperLeg => JointLimits::symmetric(0.5, 1.3),
            Self::LowerLeg => JointLimits::symmetric(0.15, 1.4),
            Self::Foot => JointLimits::symmetric(0.2, 0.6),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_common_naming_schemes() {
        assert_eq!(BoneKind::recognise("UpperArm.L"), Some(BoneKind::UpperArm));
        assert_eq!(BoneKind::recognise("mixamorig:LeftForeArm"), Some(BoneKind::LowerArm));
        assert_eq!(BoneKind::recognise("LowerLeg.R"), Some(BoneKind::LowerLeg));
        assert_eq!(BoneKind::recognise("thigh_l"), Some(BoneKind::UpperLeg));
        assert_eq!(BoneKind::recognise("Head"), Some(BoneKind::Head));
        assert_eq!(BoneKind::recognise("b_Tail01_012"), None);
    }
}
