//! Motion measures shared by the reports: per-frame joint displacement and `pop` (how much a
//! handoff or a transition moves joints faster than the motions do on their own) — one
//! definition for the ragdoll report and the transition report.

use glam::{Affine3A, Vec3};

/// Frames either side of the trigger compared by `pop`.
pub const POP_FRAMES: usize = 3;

/// Largest distance between matching joints of two sets of world transforms (a frame's
/// displacement when they are consecutive frames).
pub fn largest_distance(joints: &[usize], a: &[Affine3A], b: &[Affine3A]) -> f32 {
    joints.iter().map(|&j| Vec3::from(a[j].translation).distance(b[j].translation.into())).fold(0.0, f32::max)
}

/// `pop` around a trigger: how much faster joints move just after it than the motion moves on
/// its own — the largest per-frame displacement in the [`POP_FRAMES`] frames after the trigger
/// over the larger of the largest in the [`POP_FRAMES`] frames up to it and `reference`, the
/// largest per-frame displacement of the motions played alone (a transition: plain playback of
/// either clip; a ragdoll handoff: the clip up to the handoff). Above 1 the trigger moves a joint
/// faster than anything before it and than either motion ever does; a still source (an idle,
/// 0.25 mm per frame) cannot blow it up, since the yardstick is never less than what the target
/// itself does per frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pop {
    /// `after / max(before, reference)`; `None` when both are under the floor (nothing moves).
    pub pop: Option<f32>,
    /// Largest per-frame displacement in the frames up to the trigger.
    pub before: f32,
    /// Largest per-frame displacement in the frames after it.
    pub after: f32,
}

impl Pop {
    /// Measure `pop` on `displacement` (per frame; entry `k` is the motion from frame `k − 1` to
    /// `k`) for a trigger after frame `trigger_frame`, against `reference` (the motions' own
    /// largest per-frame displacement); `floor` is the least motion that counts as moving.
    pub fn measure(displacement: &[f32], trigger_frame: usize, reference: f32, floor: f32) -> Self {
        let window = |range: std::ops::RangeInclusive<usize>| {
            range.filter_map(|k| displacement.get(k).copied()).fold(0.0f32, f32::max)
        };
        let before = window(trigger_frame.saturating_sub(POP_FRAMES - 1)..=trigger_frame);
        let after = window(trigger_frame + 1..=trigger_frame + POP_FRAMES);
        let yardstick = if reference.is_finite() { before.max(reference) } else { before };
        Self { pop: (yardstick > floor).then(|| after / yardstick), before, after }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pop_compares_the_frames_after_the_trigger_with_those_before() {
        let d = [0.0, 1.0, 1.0, 2.0, 1.0, 6.0, 1.0, 1.0, 9.0];
        let pop = Pop::measure(&d, 4, 0.0, 1e-6);
        assert_eq!((pop.before, pop.after, pop.pop), (2.0, 6.0, Some(3.0)));
        assert_eq!(Pop::measure(&[0.0; 8], 4, 0.0, 1e-6).pop, None);
        // Against the motions' own largest step when that is larger than the frames before.
        assert_eq!(Pop::measure(&d, 4, 4.0, 1e-6).pop, Some(1.5));
    }

    #[test]
    fn a_still_source_cannot_blow_pop_up() {
        // An idle moving 0.25 mm per frame, then a run's 4 cm steps: against the run's own
        // largest step (5 cm) pop stays under 1; against the idle alone it would be 160.
        let d = [0.0, 0.00025, 0.00025, 0.00025, 0.04, 0.04, 0.04];
        let alone = Pop::measure(&d, 3, 0.0, 1e-6).pop.unwrap_or(0.0);
        assert!((alone - 160.0).abs() < 1e-3, "{alone}");
        let pop = Pop::measure(&d, 3, 0.05, 1e-6).pop.unwrap_or(f32::MAX);
        assert!((pop - 0.8).abs() < 1e-6, "{pop}");
        assert_eq!(Pop::measure(&[0.0; 8], 4, 0.0, 1e-6).pop, None);
    }
}
