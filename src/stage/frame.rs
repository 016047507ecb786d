//! [`FrameOutput`]: what one frame shows, computed once per frame from the transport, tuning,
//! compare and ragdoll parts — the animation pose, the pose on screen (ragdoll blended in), the
//! compare pose, their model-space matrices, the deviation heat and collider lines — and read by
//! the renderer, the skeleton overlay, picking, the compare readout and the stats.
//!
//! Every sampling, blending and local→model of the viewer happens here and in [`crate::stage::sampling`]
//! (the ragdoll's own physics aside), so a change of the core's pose type touches two files.

use anim::ragdoll::Placement;
use anim::{ClipId, LocalMatrices, Model, RootMotion, SampleSettings, SoaPose};
use glam::{Affine3A, Vec2, Vec3};

use crate::render::animated::AnimatedProperties;
use crate::render::framing::{CpuPoser, animated_bounds, drawn_nodes};
use crate::render::overlay::{OverlayLine, push_capsule_wireframe};
use crate::render::{Aabb, OrbitCamera};

use super::compare::Compare;
use super::ragdoll::RagdollView;
use super::transport::Transport;
use crate::stage::sampling::{ClipCursorSlot, PoseDeviation, deviation, sample_into};
use crate::stage::tuning::Tuning;

/// One frame's poses and everything derived from them.
#[derive(Debug, Clone)]
pub struct FrameOutput {
    rest: SoaPose,
    /// The animation alone (placed), before the ragdoll blend.
    animated: SoaPose,
    /// The pose on screen.
    shown: SoaPose,
    /// The compare view's right-hand pose (placed), when compare is on.
    compare: Option<SoaPose>,
    /// Scratch of the local→model job.
    locals: LocalMatrices,
    model_from_node: Vec<Affine3A>,
    compare_model_from_node: Vec<Affine3A>,
    joint_heat: Vec<f32>,
    /// World-space lines over the model: collider wireframes and the root's trajectory.
    collider_lines: Vec<OverlayLine>,
    /// Draw the root's trajectory on the ground: its path over the clip and its trail.
    pub trajectory: bool,
    /// The root's trail over the last [`TRAIL_FRAMES`] frames (model space), newest last.
    trail: std::collections::VecDeque<Vec3>,
    /// The root's path over the playing clip (model space), for which clip; and the ground
    /// height it is drawn at (found on first use).
    clip_path: Option<(ClipId, Vec<Vec3>)>,
    ground_y: Option<f32>,
    /// The model's root-motion node (found once per model: finding it allocates).
    root_node: Option<Option<anim::NodeId>>,
    deviation: Option<PoseDeviation>,
    /// Animated material values and node visibility (`KHR_animation_pointer`), for clips that
    /// animate them.
    properties: Option<AnimatedProperties>,
    cursor: ClipCursorSlot,
    compare_cursor: ClipCursorSlot,
    /// The tuning's layers and blend space, played over (or in place of) the clip.
    pub layers: crate::stage::layer_play::LayerPlay,
}

/// Frames of the root's trail (3 s at 60 Hz).
const TRAIL_FRAMES: usize = 180;

/// Samples of the root's path over a clip.
const PATH_SAMPLES: usize = 64;

/// Where `root` goes (model space) over `clip`, sampled [`PATH_SAMPLES`] + 1 times with the
/// clip's settings. Allocates (once per clip shown).
fn clip_root_path(model: &Model, clip: ClipId, root: anim::NodeId, tuning: &Tuning) -> Vec<Vec3> {
    let Some(c) = model.clip(clip) else { return Vec::new() };
    let rest = model.rest_pose();
    let mut pose = rest.clone();
    let mut cursor = anim::ClipCursor::new(c);
    let mut locals = LocalMatrices::new(model.nodes().len());
    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    (0..=PATH_SAMPLES)
        .filter_map(|i| {
            pose.copy_from(&rest);
            c.sample(c.end_secs() * i as f32 / PATH_SAMPLES as f32, &mut cursor, tuning.sampling(clip), &mut pose);
            model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
            world.get(root.index()).map(|w| Vec3::from(w.translation))
        })
        .collect()
}

impl FrameOutput {
    /// The rest pose of `model`, nothing computed yet.
    pub fn new(model: &Model) -> Self {
        let rest = model.rest_pose();
        let nodes = model.nodes().len();
        Self {
            animated: rest.clone(),
            shown: rest.clone(),
            compare: None,
            rest,
            locals: LocalMatrices::new(nodes),
            model_from_node: vec![Affine3A::IDENTITY; nodes],
            compare_model_from_node: Vec::new(),
            joint_heat: Vec::new(),
            collider_lines: Vec::new(),
            trajectory: false,
            trail: std::collections::VecDeque::with_capacity(TRAIL_FRAMES + 1),
            clip_path: None,
            ground_y: None,
            root_node: None,
            deviation: None,
            properties: None,
            cursor: None,
            compare_cursor: None,
            layers: crate::stage::layer_play::LayerPlay::new(),
        }
    }

    /// Compute this frame: sample (or fade) the playing clip under the tuning, the compare pose,
    /// place both, blend the ragdoll in (advanced by the clip time played since the last frame),
    /// then local→model once per pose, the deviation heat and the collider lines.
    pub fn compute(
        &mut self,
        model: &Model,
        transport: &mut Transport,
        tuning: &Tuning,
        compare: &Compare,
        ragdoll: &mut RagdollView,
        machine: &mut crate::stage::machine::StageMachine,
    ) {
        let clip = transport.clip();
        let time_secs = transport.time_secs();
        let in_place = clip.is_some_and(|c| tuning.root_motion(transport.clip_name(c)) == RootMotion::InPlace);
        transport.sync_root_motion(model, in_place);
        if let Some((left, right)) = compare.kinds.poses() {
            // Two transition kinds side by side: each view its own replay.
            self.animated.copy_from(left);
            self.compare.get_or_insert_with(|| self.rest.clone()).copy_from(right);
        } else if let Some(modes) = compare.active() {
            let left = SampleSettings { mode: modes.left, ..tuning.interpolation().to_settings() };
            let right = SampleSettings { mode: modes.right, ..left.clone() };
            sample_into(model, &self.rest, clip, time_secs, &left, &mut self.cursor, &mut self.animated);
            let pose = self.compare.get_or_insert_with(|| self.rest.clone());
            sample_into(model, &self.rest, clip, time_secs, &right, &mut self.compare_cursor, pose);
            transport.fader().place_root(&mut self.animated);
            transport.fader().place_root(pose);
        } else {
            self.compare = None;
            if transport.is_fading() {
                // A fade mixes clips; per-channel overrides belong to one clip and are off.
                let pose = transport.fader_mut().evaluate(model, &tuning.interpolation().to_settings());
                self.animated.copy_from(pose);
            } else {
                let settings = tuning.sampling_or_authored(clip);
                sample_into(model, &self.rest, clip, time_secs, settings, &mut self.cursor, &mut self.animated);
                // In place: the root held at the fader's anchor, as a fade holds it.
                transport.fader().place_root(&mut self.animated);
            }
        }
        let layered = tuning.interpolation().to_settings();
        self.layers.sync(model, &layered, &tuning.clip_extras);
        // A transition from or to the blend space plays the fader's copy of it (its parameter
        // follows the tuning's); at a transition's end the viewer's own player takes over.
        if let (Some(player), Some(space)) = (transport.fader_mut().blend_space_mut(), &tuning.clip_extras.blend_space)
        {
            player.set_parameter(Vec2::from(space.at));
        }
        if transport.is_fading() {
            self.layers.suspend_base();
        } else {
            if transport.fader().plays_blend_space()
                && let Some(player) = transport.fader().blend_space()
            {
                self.layers.take_time_from(player);
            }
            self.layers.base(model, &layered, &tuning.clip_extras, transport.clock_secs() as f32, &mut self.animated);
        }
        // The machine's blend-space or layered state (two modes or kinds compared: their poses).
        if compare.kinds.poses().is_none() && compare.active().is_none() {
            machine.show(model, &layered, transport, &mut self.animated);
        }
        self.layers.apply_layers(model, &layered, time_secs, &mut self.animated);
        ragdoll.placement.apply(&model.hierarchy, &mut self.animated);
        if let Some(pose) = &mut self.compare {
            ragdoll.placement.apply(&model.hierarchy, pose);
        }
        self.properties = clip
            .filter(|&c| !model.clip_pointer_tracks(c).is_empty())
            .map(|c| AnimatedProperties::sample(model, Some(c), time_secs));
        let dt_secs = transport.take_pending_dt();
        self.layers.advance(dt_secs);
        ragdoll.apply(model, dt_secs, &self.animated, &mut self.shown, &tuning.ragdoll);
        if let Some(pose) = &mut self.compare {
            ragdoll.apply_to_other(pose);
        }

        self.model_from_node.resize(model.nodes().len(), Affine3A::IDENTITY);
        model.hierarchy.local_to_model(&self.shown, &mut self.locals, &mut self.model_from_node);
        self.deviation = None;
        self.joint_heat.clear();
        if let Some(pose) = &self.compare {
            self.compare_model_from_node.resize(model.nodes().len(), Affine3A::IDENTITY);
            model.hierarchy.local_to_model(pose, &mut self.locals, &mut self.compare_model_from_node);
            self.deviation = Some(deviation(&self.model_from_node, &self.compare_model_from_node));
            if let Some(modes) = compare.active().filter(|m| m.heatmap) {
                self.joint_heat.extend(self.model_from_node.iter().zip(&self.compare_model_from_node).map(|(a, b)| {
                    let distance = Vec3::from(a.translation).distance(Vec3::from(b.translation));
                    crate::render::shot::heat_of(distance, modes.heat_full_scale)
                }));
            }
        }
        if self.joint_heat.is_empty() && self.layers.show_mask_heat {
            self.layers.mask_heat(&mut self.joint_heat);
        }
        self.collider_lines.clear();
        if ragdoll.show_colliders {
            let color = if ragdoll.is_active() { [1.0, 0.55, 0.1, 1.0] } else { [0.2, 0.9, 0.9, 1.0] };
            let lines = &mut self.collider_lines;
            ragdoll.for_each_collider(model, &self.model_from_node, &tuning.ragdoll, |capsule| {
                push_capsule_wireframe(capsule.a, capsule.b, capsule.radius, color, lines);
            });
        }
        self.push_trajectory(model, clip, tuning);
    }

    /// The root's trajectory on the ground: its path over the playing clip (cyan) and the trail
    /// of where it went over the last seconds, through fades and loops (orange, fading out).
    /// Show a pose written by `write` (a rewound frame) instead of the computed one: it becomes
    /// the pose on screen and the animation pose, and the model-space matrices follow; the
    /// compare pose, heat and deviation are off. Allocates nothing.
    pub(crate) fn show_pose(&mut self, model: &Model, write: impl FnOnce(&mut SoaPose) -> bool) -> bool {
        if !write(&mut self.shown) {
            return false;
        }
        self.animated.copy_from(&self.shown);
        self.compare = None;
        self.deviation = None;
        self.joint_heat.clear();
        self.model_from_node.resize(model.nodes().len(), Affine3A::IDENTITY);
        model.hierarchy.local_to_model(&self.shown, &mut self.locals, &mut self.model_from_node);
        true
    }

    fn push_trajectory(&mut self, model: &Model, clip: Option<ClipId>, tuning: &Tuning) {
        let root = *self.root_node.get_or_insert_with(|| anim::crossfade::root_motion_node(model));
        let Some(root) = root.filter(|_| self.trajectory) else {
            self.trail.clear();
            return;
        };
        let ground = self.ground_height(model);
        let on_ground = |p: Vec3| Vec3::new(p.x, ground + 0.002, p.z);
        if let Some(now) = self.model_from_node.get(root.index()) {
            if self.trail.len() >= TRAIL_FRAMES {
                self.trail.pop_front();
            }
            self.trail.push_back(now.translation.into());
        }
        if let Some(c) = clip
            && self.clip_path.as_ref().is_none_or(|(k, _)| *k != c)
        {
            self.clip_path = Some((c, clip_root_path(model, c, root, tuning)));
        }
        let lines = &mut self.collider_lines;
        if let Some((_, path)) = &self.clip_path {
            for w in path.windows(2) {
                lines.push(OverlayLine { from: on_ground(w[0]), to: on_ground(w[1]), color: [0.2, 0.85, 1.0, 1.0] });
            }
        }
        let n = self.trail.len().max(1) as f32;
        for (i, (a, b)) in self.trail.iter().zip(self.trail.iter().skip(1)).enumerate() {
            let alpha = 0.25 + 0.75 * (i as f32 / n);
            lines.push(OverlayLine { from: on_ground(*a), to: on_ground(*b), color: [1.0, 0.6, 0.15, alpha] });
        }
    }

    /// The pose on screen.
    pub fn shown(&self) -> &SoaPose {
        &self.shown
    }

    /// The animation pose alone (placed), before the ragdoll blend.
    pub fn animated(&self) -> &SoaPose {
        &self.animated
    }

    /// The compare view's right-hand pose, when compare is on.
    pub fn compare_pose(&self) -> Option<&SoaPose> {
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
    pub fn node_position(&self, node: anim::NodeId) -> Option<Vec3> {
        self.model_from_node.get(node.index()).map(|m| Vec3::from(m.translation))
    }

    /// The animation pose `dt_before_secs` before the current time (a negative value: after it),
    /// placed at `placement` (for the ragdoll's initial velocity): the clip sampled then, or —
    /// during a fade — the pose of this frame.
    pub fn animation_before(
        &self,
        model: &Model,
        transport: &Transport,
        tuning: &Tuning,
        dt_before_secs: f32,
        placement: &Placement,
    ) -> SoaPose {
        let mut before = self.rest.clone();
        if transport.is_fading() {
            before.copy_from(&self.animated);
            return before;
        }
        let duration = transport.duration_secs();
        let mut time = transport.time_secs() - dt_before_secs;
        if time < 0.0 || time > duration {
            time =
                if transport.looping && duration > 0.0 { time.rem_euclid(duration) } else { time.clamp(0.0, duration) };
        }
        let clip = transport.clip();
        let settings = tuning.sampling_or_authored(clip);
        sample_into(model, &self.rest, clip, time, settings, &mut None, &mut before);
        transport.fader().place_root(&mut before);
        placement.apply(&model.hierarchy, &mut before);
        before
    }

    /// The first pose of `clip` under the tuning, unplaced (the rest pose for `None`).
    pub fn clip_start_pose(&self, model: &Model, clip: Option<ClipId>, tuning: &Tuning) -> SoaPose {
        let mut start = self.rest.clone();
        let settings = tuning.sampling_or_authored(clip);
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
    ) -> Option<anim::NodeId> {
        let matrices =
            if right_view && self.compare.is_some() { &self.compare_model_from_node } else { &self.model_from_node };
        let view = ViewClick { position_px, view_size_px, right_view };
        pick_nearest_joint(model, matrices, camera, view, radius_px, |_| true)
    }

    /// Height of the ground under the model: the lowest point any clip reaches, when below 0
    /// (found once per model).
    pub fn ground_height(&mut self, model: &Model) -> f32 {
        *self.ground_y.get_or_insert_with(|| crate::render::framing::ground_height(model))
    }

    /// Bounds of what is drawn now: the pose on screen (and the compare pose), plus — while the
    /// animation alone drives it — the playing clip's bounds over its whole length, so that a
    /// walking character stays in view. A ragdoll is framed where it lies.
    /// `clip_placement`: where the animation is placed while it alone drives the pose (`None`
    /// while a ragdoll does).
    pub fn drawn_bounds(
        &self,
        model: &Model,
        transport: &Transport,
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
            let clip = transport.clip();
            let settings = tuning.sampling_or_authored(clip);
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

/// A click in the 3D view: where (in the view it fell in, origin top left), that view's size,
/// and whether it is the right-hand half of a split view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewClick {
    /// The click in its view, in pixels from the top left.
    pub position_px: Vec2,
    /// The size of the view it fell in, in pixels.
    pub view_size_px: Vec2,
    /// The right-hand half of a split view (the compare pose, or B of A/B).
    pub right_view: bool,
}

/// Where the point `world` shows in a view of `view_size_px` (origin top left), with the
/// camera's depth of it; `None` behind the camera or for an empty view.
pub fn screen_position(camera: &OrbitCamera, view_size_px: Vec2, world: Vec3) -> Option<(Vec2, f32)> {
    if view_size_px.x <= 0.0 || view_size_px.y <= 0.0 {
        return None;
    }
    let clip = camera.clip_from_world(view_size_px.x / view_size_px.y) * world.extend(1.0);
    if clip.w <= 1e-6 {
        return None;
    }
    let ndc = Vec2::new(clip.x, clip.y) / clip.w;
    Some((Vec2::new((ndc.x + 1.0) * 0.5 * view_size_px.x, (1.0 - ndc.y) * 0.5 * view_size_px.y), clip.w))
}

/// The joint of `model` posed by `model_from_node` nearest to `click` on screen, if one lies
/// within `radius_px`; only joints `accept` takes count. Joints are the skins' joints (every
/// node for a model without skins). The one picking rule of the viewer (A, the compare pose
/// and A/B's B).
pub fn pick_nearest_joint(
    model: &Model,
    model_from_node: &[Affine3A],
    camera: &OrbitCamera,
    click: ViewClick,
    radius_px: f32,
    accept: impl Fn(anim::NodeId) -> bool,
) -> Option<anim::NodeId> {
    let mut candidates = crate::render::overlay::joint_nodes(model);
    if candidates.is_empty() {
        candidates = model.node_ids().collect();
    }
    let mut best: Option<(f32, anim::NodeId)> = None;
    for node in candidates.into_iter().filter(|&n| accept(n)) {
        let Some(m) = model_from_node.get(node.index()) else { continue };
        let Some((screen, depth)) = screen_position(camera, click.view_size_px, Vec3::from(m.translation)) else {
            continue;
        };
        let distance = screen.distance(click.position_px);
        // Ties (a joint hidden behind another on screen): the one nearer the camera wins.
        let key = distance + depth * 1e-4;
        if distance <= radius_px && best.is_none_or(|(d, _)| key < d) {
            best = Some((key, node));
        }
    }
    best.map(|(_, node)| node)
}
