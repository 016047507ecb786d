//! Two-bone inverse kinematics (a leg: hip, knee, ankle; an arm: shoulder, elbow, wrist), in
//! model space: the rotations that bring the chain's end to a goal with the bend kept in the
//! plane and on the side it had, the bone lengths unchanged. Allocates nothing.

use glam::{Quat, Vec3};

/// The result of [`two_bone_ik`]: world-space rotations to apply on the left of the two bones'
/// model rotations (`upper' = upper_delta · upper`, `lower' = lower_delta · lower`), and where
/// the middle joint and the end went.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBoneSolution {
    /// Rotation of the upper bone (about its root, the hip).
    pub upper_delta: Quat,
    /// Rotation of the lower bone (about the middle joint), the upper bone's included.
    pub lower_delta: Quat,
    /// The middle joint's new position (the knee).
    pub middle: Vec3,
    /// The end's new position (the ankle): the goal, or the nearest reachable point to it.
    pub end: Vec3,
}

/// Solve a two-bone chain `root → middle → end` (model-space joint positions) for `goal`.
///
/// The bend keeps its plane's side: the middle joint goes to the side of the root→goal line on
/// which it was (a knee that pointed forward still points forward); a straight chain bends
/// towards `pole_hint`. A goal out of reach (farther than the two bones' length, or nearer than
/// their difference) is replaced by the nearest reachable point on the root→goal line, kept
/// 0.01 % short of full extension so the knee stays defined. Degenerate chains (a bone of zero
/// length, a goal on the root, non-finite input) give identity rotations.
pub fn two_bone_ik(root: Vec3, middle: Vec3, end: Vec3, goal: Vec3, pole_hint: Vec3) -> TwoBoneSolution {
    let unchanged = TwoBoneSolution { upper_delta: Quat::IDENTITY, lower_delta: Quat::IDENTITY, middle, end };
    let upper = middle - root;
    let lower = end - middle;
    let (l1, l2) = (upper.length(), lower.length());
    let to_goal = goal - root;
    let distance = to_goal.length();
    let finite = [root, middle, end, goal].iter().all(|v| v.is_finite());
    if !finite || l1 <= 1e-9 || l2 <= 1e-9 || distance <= 1e-9 * (l1 + l2) {
        return unchanged;
    }
    let axis = to_goal / distance;
    let reach = (distance.clamp((l1 - l2).abs() * 1.0001, (l1 + l2) * 0.9999)).max(1e-9);
    // The bend direction: the middle joint's offset from the root→goal line, else the hint's.
    let side = |v: Vec3| v - axis * v.dot(axis);
    let bend = side(upper)
        .try_normalize()
        .or_else(|| side(pole_hint).try_normalize())
        .or_else(|| axis.any_orthonormal_vector().try_normalize());
    let Some(bend) = bend else { return unchanged };
    // Law of cosines: the angle at the root between the root→goal line and the upper bone.
    let cos_root = ((l1 * l1 + reach * reach - l2 * l2) / (2.0 * l1 * reach)).clamp(-1.0, 1.0);
    let sin_root = (1.0 - cos_root * cos_root).max(0.0).sqrt();
    let new_middle = root + l1 * (cos_root * axis + sin_root * bend);
    let new_end = root + axis * reach;
    let upper_delta = Quat::from_rotation_arc(upper / l1, (new_middle - root) / l1);
    let rotated_lower = upper_delta * lower;
    let lower_arc = Quat::from_rotation_arc(rotated_lower / l2, ((new_end - new_middle) / l2).normalize());
    TwoBoneSolution {
        upper_delta: upper_delta.normalize(),
        lower_delta: (lower_arc * upper_delta).normalize(),
        middle: new_middle,
        end: new_end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(s: &TwoBoneSolution, root: Vec3, middle: Vec3, end: Vec3) -> (Vec3, Vec3) {
        let m = root + s.upper_delta * (middle - root);
        (m, m + s.lower_delta * (end - middle))
    }

    #[test]
    fn reaches_a_goal_within_reach_keeping_the_lengths_and_the_knee_side() {
        // A leg bent forward (+Z knee).
        let (hip, knee, ankle) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 0.55, 0.1), Vec3::new(0.0, 0.1, 0.0));
        for goal in [Vec3::new(0.1, 0.2, 0.2), Vec3::new(-0.1, 0.3, -0.2), Vec3::new(0.0, 0.4, 0.0)] {
            let s = two_bone_ik(hip, knee, ankle, goal, Vec3::Z);
            let (m, e) = apply(&s, hip, knee, ankle);
            assert!(e.distance(goal) < 1e-4, "{e} vs {goal}");
            assert!(m.distance(s.middle) < 1e-4 && e.distance(s.end) < 1e-4);
            assert!(((m - hip).length() - (knee - hip).length()).abs() < 1e-5);
            assert!(((e - m).length() - (ankle - knee).length()).abs() < 1e-5);
            // The knee stays on its side of the hip→goal line: the side it was on.
            let axis = (goal - hip).normalize();
            let side = |v: Vec3| v - axis * v.dot(axis);
            assert!(side(m - hip).dot(side(knee - hip)) > 0.0, "knee went to the other side: {m}");
        }
    }

    #[test]
    fn out_of_reach_goals_stretch_towards_them_and_degenerate_chains_do_nothing() {
        let (hip, knee, ankle) = (Vec3::Y, Vec3::new(0.0, 0.5, 0.05), Vec3::ZERO);
        let goal = Vec3::new(0.0, -2.0, 0.0);
        let s = two_bone_ik(hip, knee, ankle, goal, Vec3::Z);
        let (_, e) = apply(&s, hip, knee, ankle);
        let total = (knee - hip).length() + (ankle - knee).length();
        assert!((e.distance(hip) - total * 0.9999).abs() < 1e-4);
        assert!((e - hip).normalize().dot(Vec3::NEG_Y) > 0.9999);
        let none = two_bone_ik(hip, hip, ankle, goal, Vec3::Z);
        assert_eq!(none.upper_delta, Quat::IDENTITY);
        let nan = two_bone_ik(hip, knee, ankle, Vec3::NAN, Vec3::Z);
        assert_eq!(nan.lower_delta, Quat::IDENTITY);
    }

    #[test]
    fn a_straight_leg_bends_towards_the_pole() {
        let (hip, knee, ankle) = (Vec3::Y, Vec3::new(0.0, 0.5, 0.0), Vec3::ZERO);
        let s = two_bone_ik(hip, knee, ankle, Vec3::new(0.0, 0.3, 0.0), Vec3::Z);
        assert!(s.middle.z > 0.1, "{}", s.middle);
    }
}
