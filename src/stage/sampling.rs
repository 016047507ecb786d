//! The viewer's pose jobs on the core, shared by the frame output and the compare view:
//! sampling a clip into a pose, the deviation between two poses and over a whole clip, and what
//! a rotation or scale space does against the reference.

use anim::{
    ClipCursor, ClipId, LocalMatrices, Model, NodeId, Property, RotationSpace, SampleSettings, ScaleSpace, SoaPose,
    TrackSample,
};
use glam::{Affine3A, Quat, Vec3};

/// Largest difference between two poses in model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseDeviation {
    /// Largest joint position difference, in model units (metres in glTF).
    pub max_distance: f32,
    /// Node where it happens.
    pub distance_node: NodeId,
    /// Largest joint orientation difference, in radians.
    pub max_angle_rad: f32,
    /// Node where it happens.
    pub angle_node: NodeId,
}

impl PoseDeviation {
    /// No difference (both nodes the first).
    pub const NONE: Self =
        Self { max_distance: 0.0, distance_node: NodeId::new(0), max_angle_rad: 0.0, angle_node: NodeId::new(0) };
}

/// The largest deviation over a whole clip, and when it happens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipDeviation {
    /// Largest position and angle difference.
    pub deviation: PoseDeviation,
    /// Clip time of the largest position difference.
    pub distance_time_secs: f32,
    /// Clip time of the largest angle difference.
    pub angle_time_secs: f32,
    /// Times sampled.
    pub samples: usize,
}

/// What a non-default rotation or scale space does to the current pose, against the reference
/// (slerp, linear scale) at the same time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WrongSpaceEffect {
    /// Smallest matrix-lerp column length over the clip's rotation tracks (1 = no shrink).
    pub min_shrink: f32,
    /// Node with the smallest column length.
    pub shrink_node: Option<NodeId>,
    /// Largest rotation difference from slerp over the rotation tracks, in radians.
    pub max_rotation_error_rad: f32,
    /// Node with the largest rotation difference.
    pub rotation_node: Option<NodeId>,
    /// Largest relative scale difference from linear scale interpolation.
    pub max_scale_error: f32,
}

/// A key cursor and the clip it belongs to (replaced when another clip is sampled).
pub type ClipCursorSlot = Option<(ClipId, ClipCursor)>;

/// Largest position and angle difference between two sets of model-space matrices.
pub fn deviation(a: &[Affine3A], b: &[Affine3A]) -> PoseDeviation {
    let mut deviation = PoseDeviation::NONE;
    for (node, (a, b)) in a.iter().zip(b).enumerate() {
        let node = NodeId::from_index(node);
        let distance = Vec3::from(a.translation).distance(Vec3::from(b.translation));
        if distance > deviation.max_distance {
            deviation.max_distance = distance;
            deviation.distance_node = node;
        }
        let (_, ra, _) = a.to_scale_rotation_translation();
        let (_, rb, _) = b.to_scale_rotation_translation();
        let angle = angle_between(ra, rb);
        if angle > deviation.max_angle_rad {
            deviation.max_angle_rad = angle;
            deviation.angle_node = node;
        }
    }
    deviation
}

/// The largest deviation between `clip` sampled under `left` and under `right`, over `samples`
/// evenly spaced times and every key time of the clip (where STEP and LINEAR differ most).
pub fn clip_deviation(
    model: &Model,
    clip: ClipId,
    left: &SampleSettings,
    right: &SampleSettings,
    samples: usize,
) -> Option<ClipDeviation> {
    let data = model.clip(clip)?;
    let rest = model.rest_pose();
    let (mut a, mut b) = (rest.clone(), rest.clone());
    let (mut cursor_a, mut cursor_b) = (None, None);
    let nodes = model.nodes().len();
    let (mut ma, mut mb) = (vec![Affine3A::IDENTITY; nodes], vec![Affine3A::IDENTITY; nodes]);
    let mut locals = LocalMatrices::new(nodes);
    let end = data.duration_secs();
    let samples = samples.max(2);
    let mut times: Vec<f32> = (0..samples).map(|i| end * i as f32 / (samples - 1) as f32).collect();
    // Just before and after every key too (STEP jumps there; LINEAR and CUBIC part most between).
    for timeline in data.timelines() {
        for &t in &timeline.times_secs {
            times.extend([t, (t - 1e-3).max(0.0), (t + 1e-3).min(end)]);
        }
    }
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mut best = ClipDeviation {
        deviation: PoseDeviation::NONE,
        distance_time_secs: 0.0,
        angle_time_secs: 0.0,
        samples: times.len(),
    };
    for &t in &times {
        sample_into(model, &rest, Some(clip), t, left, &mut cursor_a, &mut a);
        sample_into(model, &rest, Some(clip), t, right, &mut cursor_b, &mut b);
        model.hierarchy.local_to_model(&a, &mut locals, &mut ma);
        model.hierarchy.local_to_model(&b, &mut locals, &mut mb);
        let d = deviation(&ma, &mb);
        if d.max_distance > best.deviation.max_distance {
            best.deviation.max_distance = d.max_distance;
            best.deviation.distance_node = d.distance_node;
            best.distance_time_secs = t;
        }
        if d.max_angle_rad > best.deviation.max_angle_rad {
            best.deviation.max_angle_rad = d.max_angle_rad;
            best.deviation.angle_node = d.angle_node;
            best.angle_time_secs = t;
        }
    }
    Some(best)
}

/// What the rotation and scale spaces of `settings` do to `clip` at `time_secs`, against slerp
/// and linear scale (`None` without such a clip).
pub fn wrong_space_effect(
    model: &Model,
    clip: ClipId,
    time_secs: f32,
    settings: &SampleSettings,
) -> Option<WrongSpaceEffect> {
    let clip = model.clip(clip)?;
    let reference =
        SampleSettings { rotation_space: RotationSpace::Slerp, scale_space: ScaleSpace::Linear, ..settings.clone() };
    let mut effect = WrongSpaceEffect {
        min_shrink: 1.0,
        shrink_node: None,
        max_rotation_error_rad: 0.0,
        rotation_node: None,
        max_scale_error: 0.0,
    };
    if reference == *settings {
        return Some(effect);
    }
    let mut weights = vec![0.0; model.weight_count];
    for (index, track) in clip.track_ids() {
        let actual = clip.evaluate_track(index, time_secs, settings, &mut weights);
        let wanted = clip.evaluate_track(index, time_secs, &reference, &mut weights);
        match (actual, wanted) {
            (
                Some(TrackSample::Rotation { rotation, shrink }),
                Some(TrackSample::Rotation { rotation: wanted, .. }),
            ) => {
                let min_column = shrink.min_element();
                if min_column < effect.min_shrink {
                    effect.min_shrink = min_column;
                    effect.shrink_node = Some(track.node);
                }
                let error = angle_between(rotation, wanted);
                if error > effect.max_rotation_error_rad {
                    effect.max_rotation_error_rad = error;
                    effect.rotation_node = Some(track.node);
                }
            }
            (Some(TrackSample::Vec3(a)), Some(TrackSample::Vec3(b))) if track.property() == Property::Scale => {
                let relative = ((a - b).abs() / b.abs().max(Vec3::splat(1e-6))).max_element();
                effect.max_scale_error = effect.max_scale_error.max(relative);
            }
            _ => {}
        }
    }
    Some(effect)
}

/// Angle between two rotations (sign-agnostic), radians. Uses `atan2` of the relative
/// rotation, which stays exact near zero where `acos` of the dot product reads ~0.06° of noise.
pub fn angle_between(a: Quat, b: Quat) -> f32 {
    let relative = a.conjugate() * b;
    2.0 * relative.xyz().length().atan2(relative.w.abs())
}

/// Sample `clip` of `model` at `time_secs` into `pose`, starting from `rest` (which is all
/// there is without a clip). Allocates nothing once the cursor exists.
pub fn sample_into(
    model: &Model,
    rest: &SoaPose,
    clip: Option<ClipId>,
    time_secs: f32,
    settings: &SampleSettings,
    cursor: &mut ClipCursorSlot,
    pose: &mut SoaPose,
) {
    pose.copy_from(rest);
    let Some((index, clip)) = clip.and_then(|c| Some((c, model.clip(c)?))) else { return };
    if cursor.as_ref().is_none_or(|(c, _)| *c != index) {
        *cursor = Some((index, ClipCursor::new(clip)));
    }
    if let Some((_, cursor)) = cursor {
        clip.sample(time_secs, cursor, settings, pose);
    }
}
