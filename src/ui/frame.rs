//! [`FrameOutput`]: what one frame shows, computed once per frame from the playback, tuning,
//! compare and ragdoll parts — the animation pose, the pose on screen (ragdoll blended in), the
//! compare pose, their model-space matrices, the deviation heat and collider lines — and read by
//! the renderer, the skeleton overlay, picking, the compare readout and the stats.
//!
//! Every sampling, blending and local→model of the viewer happens in this file (the ragdoll's
//! own physics aside), so a change of the core's pose type touches one place.

use anim::ragdoll::Placement;
use anim::{ClipCursor, Model, Pose, Property, RotationSpace, SampleSettings, ScaleSpace, TrackSample};
use glam::{Affine3A, Quat, Vec2, Vec3};

use crate::render::animated::AnimatedProperties;
use crate::render::framing::{CpuPoser, animated_bounds, drawn_nodes};
use crate::render::overlay::{OverlayLine, push_capsule_wireframe};
use crate::render::{Aabb, OrbitCamera};

use super::compare::Compare;
use super::playback::Playback;
use super::ragdoll::RagdollView;
use super::tuning::Tuning;

/// Largest difference between two poses in model space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseDeviation {
    /// Largest joint position difference, in model units (metres in glTF).
    pub max_distance: f32,
    /// Node where it happens.
    pub distance_node: usize,
    /// Largest joint orientation difference, in radians.
    pub max_angle_rad: f32,
    /// Node where it happens.
    pub angle_node: usize,
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
    pub shrink_node: Option<usize>,
    /// Largest rotation difference from slerp over the rotation tracks, in radians.
    pub max_rotation_error_rad: f32,
    /// Node with the largest rotation difference.
    pub rotation_node: Option<usize>,
    /// Largest relative scale difference from linear scale interpolation.
    pub max_scale_error: f32,
}

/// One frame's poses and everything derived from them.
#[derive(Debug, Clone)]
pub struct FrameOutput {
    rest: Pose,
    /// The animation alone (placed), before the ragdoll blend.
    animated: Pose,
    /// The pose on screen.
    shown: Pose,
    /// The compare view's right-hand pose (placed), when compare is on.
    compare: Option<Pose>,
    model_from_node: Vec<Affine3A>,
    compare_model_from_node: Vec<Affine3A>,
    joint_heat: Vec<f32>,
    collider_lines: Vec<OverlayLine>,
    deviation: Option<PoseDeviation>,
    /// Animated material values and node visibility (`KHR_animation_pointer`), for clips that
    /// animate them.
    properties: Option<AnimatedProperties>,
    cursor: ClipCursorSlot,
    compare_cursor: ClipCursorSlot,
}

/// A key cursor and the clip it belongs to (replaced when another clip is sampled).
type ClipCursorSlot = Option<(usize, ClipCursor)>;

impl FrameOutput {
    /// The rest pose of `model`, nothing computed yet.
    pub fn new(model: &Model) -> Self {
        let rest = Pose::rest(model);
        let nodes = model.nodes.len();
        Self {
            animated: rest.clone(),
            shown: rest.clone(),
            compare: None,
            rest,
            model_from_node: vec![Affine3A::IDENTITY; nodes],
            compare_model_from_node: Vec::new(),
            joint_heat: Vec::new(),
            collider_lines: Vec::new(),
            deviation: None,
            properties: None,
            cursor: None,
            compare_cursor: None,
        }
    }

    /// Compute this frame: sample (or fade) the playing clip under the tuning, the compare pose,
    /// place both, blend the ragdoll in (advanced by the clip time played since the last frame),
    /// then local→model once per pose, the deviation heat and the collider lines.
    pub fn compute(
        &mut self,
        model: &Model,
        playback: &mut Playback,
        tuning: &Tuning,
        compare: &Compare,
        ragdoll: &mut RagdollView,
    ) {
        let clip = playback.clip();
        let time_secs = playback.time_secs();
        if let Some(modes) = compare.active() {
            let left = SampleSettings { mode: modes.left, ..tuning.interpolation().to_settings() };
            let right = SampleSettings { mode: modes.right, ..left.clone() };
            sample_into(model, &self.rest, clip, time_secs, &left, &mut self.cursor, &mut self.animated);
            let pose = self.compare.get_or_insert_with(|| self.rest.clone());
            sample_into(model, &self.rest, clip, time_secs, &right, &mut self.compare_cursor, pose);
        } else {
            self.compare = None;
            if playback.is_fading() {
                // A fade mixes clips; per-channel overrides belong to one clip and are off.
                let pose = playback.fader_mut().evaluate(model, &tuning.interpolation().to_settings());
                self.animated.copy_from(pose);
            } else {
                let settings = clip.map_or_else(|| tuning.sampling(usize::MAX), |c| tuning.sampling(c));
                sample_into(model, &self.rest, clip, time_secs, settings, &mut self.cursor, &mut self.animated);
            }
        }
        ragdoll.placement.apply(&model.hierarchy, &mut self.animated);
        if let Some(pose) = &mut self.compare {
            ragdoll.placement.apply(&model.hierarchy, pose);
        }
        self.properties = clip
            .filter(|&c| !model.clip_pointer_tracks(c).is_empty())
            .map(|c| AnimatedProperties::sample(model, Some(c), time_secs));
        let dt_secs = playback.take_pending_dt();
        ragdoll.apply(model, dt_secs, &self.animated, &mut self.shown, &tuning.ragdoll);

        self.model_from_node.resize(model.nodes.len(), Affine3A::IDENTITY);
        model.hierarchy.local_to_model(&self.shown, &mut self.model_from_node);
        self.deviation = None;
        self.joint_heat.clear();
        if let Some(pose) = &self.compare {
            self.compare_model_from_node.resize(model.nodes.len(), Affine3A::IDENTITY);
            model.hierarchy.local_to_model(pose, &mut self.compare_model_from_node);
            self.deviation = Some(deviation(&self.model_from_node, &self.compare_model_from_node));
            if let Some(modes) = compare.active().filter(|m| m.heatmap) {
                let scale = modes.heat_full_scale.max(1e-6);
                self.joint_heat.extend(self.model_from_node.iter().zip(&self.compare_model_from_node).map(|(a, b)| {
                    let distance = Vec3::from(a.translation).distance(Vec3::from(b.translation));
                    if distance.is_finite() { (distance / scale).min(1.0) } else { 1.0 }
                }));
            }
        }
        self.collider_lines.clear();
        if ragdoll.show_colliders {
            let color = if ragdoll.is_active() { [1.0, 0.55, 0.1, 1.0] } else { [0.2, 0.9, 0.9, 1.0] };
            let lines = &mut self.collider_lines;
            ragdoll.for_each_collider(model, &self.model_from_node, &tuning.ragdoll, |capsule| {
                push_capsule_wireframe(capsule.a, capsule.b, capsule.radius, color, lines);
            });
        }
    }

    /// The pose on screen.
    pub fn shown(&self) -> &Pose {
        &self.shown
    }

    /// The animation pose alone (placed), before the ragdoll blend.
    pub fn animated(&self) -> &Pose {
        &self.animated
    }

    /// The compare view's right-hand pose, when compare is on.
    pub fn compare_pose(&self) -> Option<&Pose> {
        self.compare.as_ref()
    }

    /// Model-space transform of every node in the pose on screen.
    pub fn model_from_node(&self) -> &[Affine3A] {
        &self.model_from_node
    }

    /// Model-space transform of every node in the compare pose (empty without compare).
    pub fn compare_model_from_node(&self) -> &[Affine3A] {
        if self.compare.is_some() { &self.compare_model_from_node } else { &[] }
    }

    /// Deviation heat per node in `[0, 1]`, when the heatmap is on (else empty).
    pub fn joint_heat(&self) -> &[f32] {
        &self.joint_heat
    }

    /// Animated material values and node visibility of this frame, when the clip animates them.
    pub fn properties(&self) -> Option<&AnimatedProperties> {
        self.properties.as_ref()
    }

    /// Collider wireframes in model space, when shown.
    pub fn collider_lines(&self) -> &[OverlayLine] {
        &self.collider_lines
    }

    /// The largest difference between the two compare poses this frame.
    pub fn deviation(&self) -> Option<PoseDeviation> {
        self.deviation
    }

    /// Model-space position of `node` on screen.
    pub fn node_position(&self, node: usize) -> Option<Vec3> {
        self.model_from_node.get(node).map(|m| Vec3::from(m.translation))
    }

    /// The animation pose `dt_before_secs` before the current time, placed at `placement` (for
    /// the ragdoll's initial velocity): the clip sampled earlier, or — during a fade — the pose
    /// of this frame.
    pub fn animation_before(
        &self,
        model: &Model,
        playback: &Playback,
        tuning: &Tuning,
        dt_before_secs: f32,
        placement: &Placement,
    ) -> Pose {
        let mut before = self.rest.clone();
        if playback.is_fading() {
            before.copy_from(&self.animated);
            return before;
        }
        let duration = playback.duration_secs();
        let mut time = playback.time_secs() - dt_before_secs;
        if time < 0.0 {
            time = if playback.looping && duration > 0.0 { time.rem_euclid(duration) } else { 0.0 };
        }
        let clip = playback.clip();
        let settings = clip.map_or_else(|| tuning.sampling(usize::MAX), |c| tuning.sampling(c));
        sample_into(model, &self.rest, clip, time, settings, &mut None, &mut before);
        placement.apply(&model.hierarchy, &mut before);
        before
    }

    /// The first pose of `clip` under the tuning, unplaced (the rest pose for `None`).
    pub fn clip_start_pose(&self, model: &Model, clip: Option<usize>, tuning: &Tuning) -> Pose {
        let mut start = self.rest.clone();
        let settings = clip.map_or_else(|| tuning.sampling(usize::MAX), |c| tuning.sampling(c));
        sample_into(model, &self.rest, clip, 0.0, settings, &mut None, &mut start);
        start
    }

    /// The joint nearest to a click at `position_px` in a view of `view_size_px` (origin top
    /// left), if one lies within `radius_px` on screen; `right_view`: the compare view's
    /// right-hand half. Joints are the skins' joints (every node for a model without skins), as
    /// drawn this frame.
    pub fn pick_joint(
        &self,
        model: &Model,
        camera: &OrbitCamera,
        position_px: Vec2,
        view_size_px: Vec2,
        radius_px: f32,
        right_view: bool,
    ) -> Option<usize> {
        if view_size_px.x <= 0.0 || view_size_px.y <= 0.0 {
            return None;
        }
        let matrices =
            if right_view && self.compare.is_some() { &self.compare_model_from_node } else { &self.model_from_node };
        let mut candidates = crate::render::overlay::joint_nodes(model);
        if candidates.is_empty() {
            candidates = (0..model.nodes.len()).collect();
        }
        let clip_from_world = camera.clip_from_world(view_size_px.x / view_size_px.y);
        let mut best: Option<(f32, usize)> = None;
        for node in candidates {
            let Some(m) = matrices.get(node) else { continue };
            let clip = clip_from_world * Vec3::from(m.translation).extend(1.0);
            if clip.w <= 1e-6 {
                continue;
            }
            let ndc = Vec2::new(clip.x, clip.y) / clip.w;
            let screen = Vec2::new((ndc.x + 1.0) * 0.5 * view_size_px.x, (1.0 - ndc.y) * 0.5 * view_size_px.y);
            let distance = screen.distance(position_px);
            // Ties (a joint hidden behind another on screen): the one nearer the camera wins.
            let key = distance + clip.w * 1e-4;
            if distance <= radius_px && best.is_none_or(|(d, _)| key < d) {
                best = Some((key, node));
            }
        }
        best.map(|(_, node)| node)
    }

    /// Bounds of what is drawn now: the pose on screen (and the compare pose), plus — while the
    /// animation alone drives it — the playing clip's bounds over its whole length, so that a
    /// walking character stays in view. A ragdoll is framed where it lies.
    /// `clip_placement`: where the animation is placed while it alone drives the pose (`None`
    /// while a ragdoll does).
    pub fn drawn_bounds(
        &self,
        model: &Model,
        playback: &Playback,
        tuning: &Tuning,
        clip_placement: Option<&Placement>,
    ) -> Aabb {
        let nodes = drawn_nodes(model);
        let mut poser = CpuPoser::default();
        let mut bounds = poser.pose_bounds(model, &self.shown, &nodes);
        if let Some(pose) = &self.compare {
            bounds.union(&poser.pose_bounds(model, pose, &nodes));
        }
        if let Some(placement) = clip_placement {
            let clip = playback.clip();
            let settings = clip.map_or_else(|| tuning.sampling(usize::MAX), |c| tuning.sampling(c));
            let clip_bounds = animated_bounds(model, clip, settings, 16);
            if !clip_bounds.is_empty() {
                // The clip's bounds are unplaced; the pose on screen is placed: place the corners.
                for corner in 0..8 {
                    let pick = |bit: usize, lo: f32, hi: f32| if corner & bit == 0 { lo } else { hi };
                    let (lo, hi) = (clip_bounds.min, clip_bounds.max);
                    let p = Vec3::new(pick(1, lo.x, hi.x), pick(2, lo.y, hi.y), pick(4, lo.z, hi.z));
                    bounds.extend(placement.apply_point(p));
                }
            }
        }
        if bounds.is_empty() {
            // Nothing drawable (no meshes): the joints.
            for m in &self.model_from_node {
                let p = Vec3::from(m.translation);
                if p.is_finite() {
                    bounds.extend(p);
                }
            }
        }
        bounds
    }
}

/// Largest position and angle difference between two sets of model-space matrices.
fn deviation(a: &[Affine3A], b: &[Affine3A]) -> PoseDeviation {
    let mut deviation = PoseDeviation { max_distance: 0.0, distance_node: 0, max_angle_rad: 0.0, angle_node: 0 };
    for (node, (a, b)) in a.iter().zip(b).enumerate() {
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
    clip: usize,
    left: &SampleSettings,
    right: &SampleSettings,
    samples: usize,
) -> Option<ClipDeviation> {
    let data = model.clips.get(clip)?;
    let rest = Pose::rest(model);
    let (mut a, mut b) = (rest.clone(), rest.clone());
    let (mut cursor_a, mut cursor_b) = (None, None);
    let nodes = model.nodes.len();
    let (mut ma, mut mb) = (vec![Affine3A::IDENTITY; nodes], vec![Affine3A::IDENTITY; nodes]);
    let end = data.duration_secs();
    let samples = samples.max(2);
    let mut times: Vec<f32> = (0..samples).map(|i| end * i as f32 / (samples - 1) as f32).collect();
    // Just before and after every key too (STEP jumps there; LINEAR and CUBIC part most between).
    for timeline in &data.timelines {
        for &t in &timeline.times_secs {
            times.extend([t, (t - 1e-3).max(0.0), (t + 1e-3).min(end)]);
        }
    }
    times.sort_by(f32::total_cmp);
    times.dedup();
    let mut best = ClipDeviation {
        deviation: PoseDeviation { max_distance: 0.0, distance_node: 0, max_angle_rad: 0.0, angle_node: 0 },
        distance_time_secs: 0.0,
        angle_time_secs: 0.0,
        samples: times.len(),
    };
    for &t in &times {
        sample_into(model, &rest, Some(clip), t, left, &mut cursor_a, &mut a);
        sample_into(model, &rest, Some(clip), t, right, &mut cursor_b, &mut b);
        model.hierarchy.local_to_model(&a, &mut ma);
        model.hierarchy.local_to_model(&b, &mut mb);
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
    clip: usize,
    time_secs: f32,
    settings: &SampleSettings,
) -> Option<WrongSpaceEffect> {
    let clip = model.clips.get(clip)?;
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
    for (index, track) in clip.tracks.iter().enumerate() {
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
fn sample_into(
    model: &Model,
    rest: &Pose,
    clip: Option<usize>,
    time_secs: f32,
    settings: &SampleSettings,
    cursor: &mut ClipCursorSlot,
    pose: &mut Pose,
) {
    pose.copy_from(rest);
    let Some((index, clip)) = clip.and_then(|c| Some((c, model.clips.get(c)?))) else { return };
    if cursor.as_ref().is_none_or(|(c, _)| *c != index) {
        *cursor = Some((index, ClipCursor::new(clip)));
    }
    if let Some((_, cursor)) = cursor {
        clip.sample(time_secs, cursor, settings, pose);
    }
}
