//! Motion measures shared by the reports: per-frame joint displacement and `pop` (how much a
//! handoff or a transition changes the per-frame motion), as the ragdoll report defines it.

use glam::{Affine3A, Vec3};

/// Frames either side of the trigger compared by `pop`.
pub const POP_FRAMES: usize = 3;

/// Largest distance between matching joints of two sets of world transforms (a frame's
/// displacement when they are consecutive frames).
pub fn largest_distance(joints: &[usize], a: &[Affine3A], b: &[Affine3A]) -> f32 {
    joints.iter().map(|&j| Vec3::from(a[j].translation).distance(b[j].translation.into())).fold(0.0, f32::max)
}

/// `pop` around a trigger: the largest per-frame displacement in the [`POP_FRAMES`] frames after
/// it over the largest in the [`POP_FRAMES`] frames up to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pop {
    /// `after / before`; `None` when nothing moved before (`before` under the floor).
    pub pop: Option<f32>,
    /// Largest per-frame displacement in the frames up to the trigger.
    pub before: f32,
    /// Largest per-frame displacement in the frames after it.
    pub after: f32,
}

impl Pop {
    /// Measure `pop` on `displacement` (per frame; entry `k` is the motion from frame `k − 1` to
    /// `k`) for a trigger after frame `trigger_frame`; `floor` is the least motion before that
    /// counts as moving.
    pub fn measure(displacement: &[f32], trigger_frame: usize, floor: f32) -> Self {
        let window = |range: std::ops::RangeInclusive<usize>| {
            range.filter_map(|k| displacement.get(k).copied()).fold(0.0f32, f32::max)
        };
        let before = window(trigger_frame.saturating_sub(POP_FRAMES - 1)..=trigger_frame);
        let after = window(trigger_frame + 1..=trigger_frame + POP_FRAMES);
        Self { pop: (before > floor).then(|| after / before), before, after }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pop_compares_the_frames_after_the_trigger_with_those_before() {
        let d = [0.0, 1.0, 1.0, 2.0, 1.0, 6.0, 1.0, 1.0, 9.0];
        let pop = Pop::measure(&d, 4, 1e-6);
        assert_eq!((pop.before, pop.after, pop.pop), (2.0, 6.0, Some(3.0)));
        assert_eq!(Pop::measure(&[0.0; 8], 4, 1e-6).pop, None);
    }
}
