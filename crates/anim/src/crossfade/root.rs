//! Root motion: the root's horizontal motion taken from each source's velocity (its root track
//! between two times, loops included), blended with the sources' weights and accumulated into a
//! character offset, so a transition blends root velocity, never root position. In place, the
//! root stays at its anchor and only the offset moves; as authored, the root is drawn at anchor +
//! offset.

use glam::Vec3;

use crate::hierarchy::LocalMatrices;
use crate::ids::{ClipId, NodeId, TrackId};
use crate::interp::impl_from_name;
use crate::model::Model;
use crate::pose::SoaPose;
use crate::sample::{SampleSettings, TrackSample};
use crate::track::Property;

use super::clips::wrap_time;
use super::layers::Layer;

/// What happens to the root's horizontal motion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RootMotion {
    /// The root moves as the clips move it, accumulated from their velocities so it carries on
    /// across loops and transitions (drawn at anchor + character offset).
    #[default]
    Authored,
    /// The root stays at its anchor horizontally; its motion goes into the character offset.
    InPlace,
}

impl RootMotion {
    /// Every variant, for menus.
    pub const ALL: [Self; 2] = [Self::Authored, Self::InPlace];

    /// Stable name (`authored`, `in-place`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Authored => "authored",
            Self::InPlace => "in-place",
        }
    }
}

impl_from_name!(RootMotion);

/// The root-motion state of a fader: which node, its frame, and the character offset.
#[derive(Debug, Clone)]
pub(crate) struct RootState {
    pub mode: RootMotion,
    pub node: NodeId,
    /// Unit up axis in the root's parent frame.
    up: Vec3,
    /// The root's parent frame to model space (the parents' rest transform, linear part): what
    /// turns the offset, kept in the parent's units, into model units.
    pub to_model: glam::Mat3,
    /// Horizontal root position the root is held at (in place) or moves from (as authored).
    pub anchor: Vec3,
    /// Per clip: its translation track of the root.
    tracks: Vec<Option<TrackId>>,
    /// Per clip: horizontal root travel over one loop.
    loop_travel: Vec<Vec3>,
    /// Accumulated horizontal root motion (the character offset), in the parent frame.
    pub offset: Vec3,
    /// Horizontal root velocity of the last evaluated frame.
    pub velocity: Vec3,
    /// Root velocity frozen with the snapshot (dead blending).
    pub snapshot_velocity: Vec3,
    /// Root velocity when the last inertialization started (fades out with its offset).
    pub inertial_velocity: Vec3,
}

/// What the root's motion over a time step is blended from: the layers with their weights and
/// playback rates, the snapshot's weight and the newest inertialization's.
pub(crate) struct RootBlend<'a> {
    /// The model and how its clips are sampled.
    pub model: &'a Model,
    pub settings: &'a SampleSettings,
    /// Clip times wrap (true) or hold the last frame.
    pub looping: bool,
    /// Every clip's length.
    pub clip_secs: &'a [f32],
    /// Each layer's weight (oldest first).
    pub weights: &'a [f32],
    /// The frozen snapshot's weight.
    pub snapshot_weight: f32,
    /// The newest inertialization's weight.
    pub inertial_weight: f32,
}

impl RootState {
    /// Root motion in `mode` for `model` (`None` when no clip translates a node): the root is
    /// [`root_motion_node`], "up" the model's +Y seen from the root's parent in `rest`, the
    /// anchor the horizontal root position at `top` (a clip and a time within it; else the rest
    /// pose's). Allocates (once).
    pub fn new(model: &Model, rest: &SoaPose, mode: RootMotion, top: Option<(ClipId, f32)>) -> Option<Self> {
        let node = root_motion_node(model)?;
        let mut world = vec![glam::Affine3A::IDENTITY; model.nodes.len()];
        let mut locals = LocalMatrices::new(model.nodes.len());
        model.hierarchy.local_to_model(rest, &mut locals, &mut world);
        let parent = model.hierarchy.parent(node).and_then(|p| world.get(p.index()));
        let to_model = parent.map(|w| glam::Mat3::from(w.matrix3)).filter(|m| m.determinant().abs() > 0.0);
        let to_model = to_model.filter(glam::Mat3::is_finite).unwrap_or(glam::Mat3::IDENTITY);
        let up = to_model.inverse().mul_vec3(Vec3::Y).try_normalize().unwrap_or(Vec3::Y);
        let tracks: Vec<Option<TrackId>> = model
            .clips
            .iter()
            .map(|clip| {
                clip.tracks()
                    .iter()
                    .position(|t| t.node == node && t.property() == Property::Translation)
                    .map(TrackId::from_index)
            })
            .collect();
        let mut root = Self {
            mode,
            node,
            up,
            to_model,
            anchor: Vec3::ZERO,
            loop_travel: vec![Vec3::ZERO; tracks.len()],
            tracks,
            offset: Vec3::ZERO,
            velocity: Vec3::ZERO,
            snapshot_velocity: Vec3::ZERO,
            inertial_velocity: Vec3::ZERO,
        };
        let settings = SampleSettings::default();
        for (index, clip) in model.clips.iter().enumerate() {
            let at = |t: f32| root.position(model, ClipId::from_index(index), t, &settings);
            let travel = root.horizontal(at(clip.end_secs()).unwrap_or(Vec3::ZERO) - at(0.0).unwrap_or(Vec3::ZERO));
            root.loop_travel[index] = travel;
        }
        let start = top
            .and_then(|(clip, time_secs)| root.position(model, clip, time_secs, &settings))
            .or_else(|| rest.get(node).map(|t| t.translation))
            .unwrap_or(Vec3::ZERO);
        root.anchor = root.horizontal(start);
        Some(root)
    }

    /// `v` without its component along the up axis.
    pub fn horizontal(&self, v: Vec3) -> Vec3 {
        v - self.up * v.dot(self.up)
    }

    /// The root of `pose` moved horizontally to where the mode shows it.
    pub fn place(&self, pose: &mut SoaPose) {
        if let Some(local) = pose.get(self.node) {
            let shown = match self.mode {
                RootMotion::InPlace => self.anchor,
                RootMotion::Authored => self.anchor + self.offset,
            };
            pose.set_translation(self.node, local.translation - self.horizontal(local.translation) + shown);
        }
    }

    /// The root's authored translation in `clip` at `time_secs` (`None` when the clip does not
    /// translate it).
    fn position(&self, model: &Model, clip: ClipId, time_secs: f32, settings: &SampleSettings) -> Option<Vec3> {
        let track = (*self.tracks.get(clip.index())?)?;
        match model.clips.get(clip.index())?.evaluate_track(track, time_secs, settings, &mut [])? {
            TrackSample::Vec3(v) if v.is_finite() => Some(v),
            _ => None,
        }
    }

    /// The layers' horizontal root travel, each from its time in `from` to its time in `to`
    /// (loops included) by its weight in `blend`: `spans` gives each layer's two times.
    fn layers_travel(&self, blend: &RootBlend, spans: impl Iterator<Item = (ClipId, f32, f32)>) -> Vec3 {
        let mut delta = Vec3::ZERO;
        for ((clip, from, to), &weight) in spans.zip(blend.weights) {
            if weight > 0.0 {
                let secs = blend.clip_secs.get(clip.index()).copied().unwrap_or(0.0);
                let at = |t: f32| self.position(blend.model, clip, wrap_time(secs, blend.looping, t), blend.settings);
                if let (Some(a), Some(b)) = (at(from), at(to)) {
                    let loops =
                        if blend.looping && secs > 0.0 { (to / secs).floor() - (from / secs).floor() } else { 0.0 };
                    let travel = self.loop_travel.get(clip.index()).copied().unwrap_or(Vec3::ZERO);
                    delta += weight * (self.horizontal(b - a) + travel * loops);
                }
            }
        }
        delta
    }

    /// The shown root's horizontal velocity over the next `h` seconds, as [`Self::accumulate`]
    /// would take it (each layer's root track at its playback rate in `rates`, loops included,
    /// by the layers' weights; the snapshot's coasting velocity; the last inertialization's root
    /// velocity by its weight); `None` for a non-positive `h`.
    pub fn velocity_ahead(&self, blend: &RootBlend, layers: &[Layer], rates: &[f32], h: f32) -> Option<Vec3> {
        if h.is_nan() || h <= 0.0 {
            return None;
        }
        let spans = layers.iter().zip(rates).map(|(l, rate)| (l.clip, l.time_secs, l.time_secs + h * rate));
        let delta = self.layers_travel(blend, spans);
        let velocity = delta / h + blend.snapshot_weight * self.snapshot_velocity;
        let inertial = blend.inertial_weight;
        let velocity = (1.0 - inertial) * velocity + inertial * self.inertial_velocity;
        velocity.is_finite().then_some(velocity)
    }

    /// Accumulate the sources' root motion over the last `dt_secs` (each layer from the time its
    /// root motion was last taken to its time now) into the character offset.
    pub fn accumulate(&mut self, blend: &RootBlend, layers: &mut [Layer], dt_secs: f32, min_dt_secs: f32) {
        let spans = layers.iter().map(|l| (l.clip, l.root_time_secs, l.time_secs));
        let mut delta = self.layers_travel(blend, spans);
        for (layer, _) in layers.iter_mut().zip(blend.weights) {
            layer.root_time_secs = layer.time_secs;
        }
        if blend.snapshot_weight > 0.0 && dt_secs > 0.0 {
            // The root coasts at its velocity (not decayed: a dead blend must not stop the
            // character) while its weight fades out.
            delta += blend.snapshot_weight * self.snapshot_velocity * dt_secs;
        }
        let inertial = blend.inertial_weight;
        delta = (1.0 - inertial) * delta + inertial * self.inertial_velocity * dt_secs;
        if delta.is_finite() {
            self.offset += delta;
            if dt_secs >= min_dt_secs {
                self.velocity = delta / dt_secs;
            }
        }
    }
}

/// The root-motion node of `model`: of the nodes any clip translates, the one carrying the most
/// of the skeleton (most descendants: the hips or a root bone, never an IK control beside them
/// that carries only a foot), then the highest (fewest ancestors), then the first in node order.
pub fn root_motion_node(model: &Model) -> Option<NodeId> {
    let n = model.nodes.len();
    let mut depth = vec![0usize; n];
    let mut descendants = vec![0usize; n];
    for (node, node_depth) in depth.iter_mut().enumerate() {
        let mut at = NodeId::from_index(node);
        let mut steps = 0usize;
        while let Some(p) = model.hierarchy.parent(at) {
            steps += 1;
            if steps > n {
                break;
            }
            if let Some(d) = descendants.get_mut(p.index()) {
                *d += 1;
            }
            at = p;
        }
        *node_depth = steps;
    }
    model
        .clips
        .iter()
        .flat_map(|c| c.tracks().iter().filter(|t| t.property() == Property::Translation).map(|t| t.node))
        .filter(|node| node.index() < n)
        .min_by_key(|&node| (std::cmp::Reverse(descendants[node.index()]), depth[node.index()], node.index()))
}
