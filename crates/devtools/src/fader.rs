//! What the cross-fader and layer tests measure: how far a pose moved, how far two poses differ,
//! and a fader played frame by frame.

use anim::{CrossFader, Model, SampleSettings, SoaPose};

/// The largest change of any node between two poses: its translation distance or the chordal
/// distance of its rotations on the unit sphere (about half the angle, sign-agnostic; exact where
/// an angle from `acos` is noisy).
pub fn max_pose_change(a: &SoaPose, b: &SoaPose) -> f32 {
    a.nodes()
        .zip(b.nodes())
        .map(|((_, x), (_, y))| {
            let (p, q) = (glam::Vec4::from(x.rotation), glam::Vec4::from(y.rotation));
            (x.translation - y.translation).length().max((p - q).length().min((p + q).length()))
        })
        .fold(0.0, f32::max)
}

/// The largest difference of any translation, rotation or scale component between two poses
/// (rotations compared on the same hemisphere): 0 for poses that are equal to the bit, where
/// [`max_pose_change`] measures motion.
pub fn max_component_difference(a: &SoaPose, b: &SoaPose) -> f32 {
    a.nodes()
        .zip(b.nodes())
        .map(|((_, x), (_, y))| {
            let r = if x.rotation.dot(y.rotation) < 0.0 { -y.rotation } else { y.rotation };
            (x.translation - y.translation)
                .abs()
                .max_element()
                .max((glam::Vec4::from(x.rotation) - glam::Vec4::from(r)).abs().max_element())
                .max((x.scale - y.scale).abs().max_element())
        })
        .fold(0.0, f32::max)
}

/// Play `fader` for `frames` frames of `dt_secs` (default sampling), calling `each` before every
/// frame; asserts every output is finite with unit rotations. Returns the largest per-frame
/// change of the output and its smallest distance from the rest pose (0 when a frame was the
/// rest pose: a frozen or dropped fade).
///
/// # Panics
/// On a non-finite value or a rotation off unit length by more than 1e-4.
pub fn play_frames(
    model: &Model,
    fader: &mut CrossFader,
    frames: usize,
    dt_secs: f32,
    mut each: impl FnMut(usize, &mut CrossFader),
) -> (f32, f32) {
    let settings = SampleSettings::default();
    let rest = model.rest_pose();
    let mut previous = fader.evaluate(model, &settings).clone();
    let (mut largest, mut from_rest) = (0.0f32, f32::INFINITY);
    for frame in 0..frames {
        each(frame, fader);
        fader.advance(dt_secs);
        let pose = fader.evaluate(model, &settings);
        assert!(pose.nodes().all(|(_, t)| t.is_finite() && (t.rotation.length() - 1.0).abs() < 1e-4));
        largest = largest.max(max_pose_change(pose, &previous));
        from_rest = from_rest.min(max_pose_change(pose, &rest));
        previous.copy_from(pose);
    }
    (largest, from_rest)
}
