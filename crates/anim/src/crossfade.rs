//! Transitions between clips — cross-fades, inertialization and dead blending — robust to
//! interruption and rapid re-triggering, with optional root motion (as authored or in place).
//!
//! The fader is a small stack of layers. Each cross-fade pushes a layer that fades in over
//! everything beneath it: the output is `lerp(lerp(lerp(L0, L1, e1), L2, e2), …)` with `eᵢ` the
//! eased progress of layer i's fade. So a fade triggered mid-fade starts from the current blended
//! pose (the layers beneath keep playing and keep their own fades going), A→B→A in one frame is
//! three layers of which the last two still weigh nothing, and a fade that completes covers the
//! layers beneath, which are dropped.
//!
//! The other two kinds start from what is on screen, whatever produced it, which is what makes
//! them interruption-safe:
//! * *dead blending* freezes the shown pose with its velocity (from the last two evaluated
//!   frames) into the snapshot under the stack, extrapolates it with that velocity decaying by a
//!   half-life, and fades the target in over the extrapolation;
//! * *inertialization* switches to the target at once and adds the offset between the shown pose
//!   and the target's first pose (and between their velocities), decayed to zero over the
//!   duration by an [`OffsetDecay`] curve that matches the offset's value and velocity at the
//!   start; a new trigger recomputes the offset from the shown pose, old offset included.
//!
//! When more layers pile up than the stack holds, the current output is frozen into the snapshot
//! (extrapolated, not held) that fades out under the newest layers, so nothing snaps.
//!
//! Root motion ([`RootMotion`]): the root's horizontal motion is taken from each source's
//! velocity (its root track between the last two evaluated times, loops included), blended with
//! the sources' weights and accumulated into a character offset, so a transition blends root
//! velocity, never root position. In place, the root stays at its anchor and only the offset
//! moves; as authored, the root is drawn at anchor + offset.

use glam::{Quat, Vec3};

use crate::clip::Clip;
use crate::hierarchy::LocalMatrices;
use crate::ids::{ClipId, NodeId, TrackId};
use crate::interp::{Easing, OffsetDecay, ScaleSpace, decayed_travel, impl_from_name};
use crate::model::Model;
use crate::pose::{PoseDelta, SoaPose, blend_into, rotation_vector};
use crate::sample::{ClipCursor, SampleSettings, TrackSample};
use crate::track::Property;

/// Most layers kept live before older ones are frozen into a snapshot.
pub const MAX_LAYERS: usize = 8;

/// Dead blending's default velocity half-life.
pub const DEFAULT_HALF_LIFE_SECS: f32 = 0.1;

/// Most inertialization offsets decaying at once (when more come, the two oldest are merged
/// into one that ends when the younger would have).
pub const MAX_OFFSETS: usize = 4;

/// Shortest frame time a velocity is measured over (shorter steps keep the last velocity).
const MIN_VELOCITY_DT_SECS: f32 = 1e-4;

/// Frame time the rates at a trigger are measured over before any frame was shown; afterwards
/// the last frame's time, kept within `[MIN_FRAME_SECS, MAX_FRAME_SECS]`.
const DEFAULT_FRAME_SECS: f32 = 1.0 / 60.0;

/// Shortest frame time the rates at a trigger are measured over.
const MIN_FRAME_SECS: f32 = 1.0 / 480.0;

/// Longest frame time the rates at a trigger are measured over.
const MAX_FRAME_SECS: f32 = 1.0 / 15.0;

/// Rate at which each clip is sampled once, at construction, for its joints' fastest motion and
/// its loop seam.
const FACT_HZ: f32 = 60.0;

/// Most samples per clip for those facts (a longer clip is sampled more sparsely).
const MAX_FACT_SAMPLES: usize = 1 << 14;

/// Most a dead blend extrapolates a joint's rotation (radians): far enough to carry a swing
/// through, well short of turning it half-way round, where a blend's shortest path flips.
const MAX_EXTRAPOLATED_TURN: f32 = std::f32::consts::FRAC_PI_4;

/// How one clip hands over to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TransitionKind {
    /// Blend the source into the target over the duration (any easing).
    #[default]
    CrossFade,
    /// Switch to the target at once and decay the offset from the source to zero.
    Inertialize,
    /// Extrapolate the source from its velocities (decaying) and cross-fade to the target.
    DeadBlend,
}

impl TransitionKind {
    /// Every variant, for menus.
    pub const ALL: [Self; 3] = [Self::CrossFade, Self::Inertialize, Self::DeadBlend];

    /// Stable name (`crossfade`, `inertialize`, `dead-blend`).
    pub fn name(self) -> &'static str {
        match self {
            Self::CrossFade => "crossfade",
            Self::Inertialize => "inertialize",
            Self::DeadBlend => "dead-blend",
        }
    }
}

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

impl_from_name!(TransitionKind);
impl_from_name!(RootMotion);

/// One transition request: its kind, length and the kind's parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    /// Cross-fade, inertialization or dead blending.
    pub kind: TransitionKind,
    /// Length of the fade or of the offset's decay (0: a cut).
    pub duration_secs: f32,
    /// Easing of the fade-in weight (cross-fade, dead blending).
    pub easing: Easing,
    /// Decay curve of the offset (inertialization).
    pub decay: OffsetDecay,
    /// Half-life of the source's velocity while it is extrapolated (dead blending).
    pub half_life_secs: f32,
    /// Target clip time at which the target starts (0, or a phase-synced time).
    pub start_secs: f32,
    /// Cycle length of the source, when the target's playback speed should start matched to
    /// it and reach its own over the duration (0: no speed matching).
    pub match_cycle_secs: f32,
}

impl Transition {
    /// A transition of `kind` over `duration_secs`, linear easing, quintic decay, the default
    /// half-life, the target from time 0, no speed matching.
    pub fn new(kind: TransitionKind, duration_secs: f32) -> Self {
        Self {
            kind,
            duration_secs,
            easing: Easing::Linear,
            decay: OffsetDecay::Quintic,
            half_life_secs: DEFAULT_HALF_LIFE_SECS,
            start_secs: 0.0,
            match_cycle_secs: 0.0,
        }
    }

    /// A cross-fade over `duration_secs` with `easing`.
    pub fn cross_fade(duration_secs: f32, easing: Easing) -> Self {
        Self { easing, ..Self::new(TransitionKind::CrossFade, duration_secs) }
    }
}

/// One playing clip and its fade-in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layer {
    /// The clip.
    pub clip: ClipId,
    /// Playback time in the clip (unwrapped; looping wraps it when sampling).
    pub time_secs: f32,
    /// Time since this layer's fade started.
    pub elapsed_secs: f32,
    /// Length of its fade-in (0: instant).
    pub duration_secs: f32,
    /// Easing of its fade-in weight.
    pub easing: Easing,
    /// Playback time up to which its root motion has been accumulated.
    pub root_time_secs: f32,
    /// Speed matching: the source's cycle length it starts matched to (0: plays at its speed).
    pub match_cycle_secs: f32,
    /// Length of the speed matching (the transition's duration).
    pub match_duration_secs: f32,
}

impl Layer {
    /// A layer playing `clip` from `time_secs`, fading in over `duration_secs`.
    fn new(clip: ClipId, time_secs: f32, duration_secs: f32, easing: Easing) -> Self {
        Self {
            clip,
            time_secs,
            elapsed_secs: 0.0,
            duration_secs,
            easing,
            root_time_secs: time_secs,
            match_cycle_secs: 0.0,
            match_duration_secs: 0.0,
        }
    }

    /// Eased fade-in progress in `[0, 1]`.
    pub fn progress(&self) -> f32 {
        if self.duration_secs > 0.0 { self.easing.apply(self.elapsed_secs / self.duration_secs) } else { 1.0 }
    }
}

/// One inertialization offset: its value, velocity and acceleration when it started, and its
/// decay. Each trigger adds one for the change of target, so the offsets of earlier triggers
/// keep decaying on their own clocks: under any rate of re-triggering every offset is gone by
/// its end, and the output never drifts.
#[derive(Debug, Clone)]
struct Offset {
    x: PoseDelta,
    v: PoseDelta,
    a: PoseDelta,
    elapsed_secs: f32,
    duration_secs: f32,
    decay: OffsetDecay,
}

impl Offset {
    /// `out += factor ·` this offset's `order`-th time derivative now (0: value).
    fn add_into(&self, out: &mut PoseDelta, order: usize, factor: f32) {
        let [p, q, r] = self.decay.basis_derivatives(self.elapsed_secs, self.duration_secs)[order.min(2)];
        out.add_scaled(&self.x, p * factor);
        out.add_scaled(&self.v, q * factor);
        out.add_scaled(&self.a, r * factor);
    }
}

/// The root-motion state of a fader: which node, its frame, and the character offset.
#[derive(Debug, Clone)]
struct RootState {
    mode: RootMotion,
    node: NodeId,
    /// Unit up axis in the root's parent frame.
    up: Vec3,
    /// The root's parent frame to model space (the parents' rest transform, linear part): what
    /// turns the offset, kept in the parent's units, into model units.
    to_model: glam::Mat3,
    /// Horizontal root position the root is held at (in place) or moves from (as authored).
    anchor: Vec3,
    /// Per clip: its translation track of the root.
    tracks: Vec<Option<TrackId>>,
    /// Per clip: horizontal root travel over one loop.
    loop_travel: Vec<Vec3>,
    /// Accumulated horizontal root motion (the character offset), in the parent frame.
    offset: Vec3,
    /// Horizontal root velocity of the last evaluated frame.
    velocity: Vec3,
    /// Root velocity frozen with the snapshot (dead blending).
    snapshot_velocity: Vec3,
    /// Root velocity when the last inertialization started (fades out with its offset).
    inertial_velocity: Vec3,
}

impl RootState {
    /// `v` without its component along the up axis.
    fn horizontal(&self, v: Vec3) -> Vec3 {
        v - self.up * v.dot(self.up)
    }

    /// The root of `pose` moved horizontally to where the mode shows it.
    fn place(&self, pose: &mut SoaPose) {
        if let Some(local) = pose.get(self.node) {
            let shown = match self.mode {
                RootMotion::InPlace => self.anchor,
                RootMotion::Authored => self.anchor + self.offset,
            };
            pose.set_translation(self.node, local.translation - self.horizontal(local.translation) + shown);
        }
    }
}

/// Plays one clip at a time and transitions to another on request (cross-fade, inertialization,
/// dead blending). Time-based (weights change per second, never per frame); per-frame calls
/// ([`Self::advance`], [`Self::evaluate`], [`Self::trigger`], [`Self::transition`]) allocate
/// nothing.
#[derive(Debug, Clone)]
pub struct CrossFader {
    layers: Vec<Layer>,
    /// A frozen pose under the layers (dead blending, or a stack overflow), extrapolated with
    /// its velocity, fading out under the layers.
    snapshot: SoaPose,
    snapshot_active: bool,
    snapshot_velocity: PoseDelta,
    snapshot_elapsed_secs: f32,
    snapshot_half_life_secs: f32,
    /// Inertialization offsets, oldest first; the first `offset_count` are live.
    offsets: Vec<Offset>,
    offset_count: usize,
    /// Scratch: the offsets' sum now, and its velocity and acceleration.
    offset_now: PoseDelta,
    offset_rate: PoseDelta,
    offset_rate2: PoseDelta,
    rest: SoaPose,
    scratch: SoaPose,
    scratch_b: SoaPose,
    scratch_c: SoaPose,
    /// Scratch: the output without its inertialization offsets.
    base: SoaPose,
    output: SoaPose,
    /// The output evaluated before `output`, `previous_dt_secs` earlier (0: none).
    previous: SoaPose,
    previous_dt_secs: f32,
    /// The output evaluated before `previous`, `previous2_dt_secs` before it (0: none).
    previous2: SoaPose,
    previous2_dt_secs: f32,
    /// Time advanced since the last evaluation.
    pending_dt_secs: f32,
    /// `output` holds an evaluated pose of the current playback.
    evaluated: bool,
    /// Scratch: the output's velocity and acceleration at a trigger.
    velocity: PoseDelta,
    acceleration: PoseDelta,
    /// Scratch: frame-to-frame differences.
    step_a: PoseDelta,
    step_b: PoseDelta,
    cursors: Vec<ClipCursor>,
    /// Per clip: its length (the loop period).
    clip_secs: Vec<f32>,
    /// Per clip: it animates every translation, rotation and scale of the model (and there are
    /// no morph weights), so sampling it overwrites all of the rest pose it starts from.
    covers_pose: Vec<bool>,
    /// Per clip: the jump at its loop seam (last pose ⊖ first), only the components that move
    /// faster there than the clip's fastest step (zero where the seam continues the motion).
    seam_jumps: Vec<PoseDelta>,
    /// Per node: the fastest translation, rotation, scale and weight rates any clip shows (the
    /// vectors' lengths), which bound a dead blend's extrapolation velocity.
    rate_limits: PoseDelta,
    /// Per node: how far a dead blend extrapolates it at most (the vectors' lengths): the
    /// furthest any clip moves it from the clip's first pose, the rotation at most
    /// [`MAX_EXTRAPOLATED_TURN`].
    extrapolation_bounds: PoseDelta,
    root: Option<RootState>,
    /// Wrap clip times (true) or hold the last frame (false).
    pub looping: bool,
}

impl CrossFader {
    /// A fader playing `clip` of `model` from time 0, at full weight.
    pub fn new(model: &Model, clip: ClipId) -> Self {
        let rest = model.rest_pose();
        let covers_pose: Vec<bool> = model
            .clips
            .iter()
            .map(|clip| {
                let animated = |property: Property| {
                    let mut seen = vec![false; model.nodes.len()];
                    for track in clip.tracks().iter().filter(|t| t.property() == property) {
                        if let Some(slot) = seen.get_mut(track.node.index()) {
                            *slot = true;
                        }
                    }
                    seen.iter().all(|&s| s)
                };
                model.weight_count == 0
                    && animated(Property::Translation)
                    && animated(Property::Rotation)
                    && animated(Property::Scale)
            })
            .collect();
        let (rate_limits, mut extrapolation_bounds, seam_jumps) = clip_motion_facts(model, &rest, &covers_pose);
        for r in &mut extrapolation_bounds.rotation {
            *r = r.clamp_length_max(MAX_EXTRAPOLATED_TURN);
        }
        let mut layers = Vec::with_capacity(MAX_LAYERS + 1);
        layers.push(Layer::new(clip, 0.0, 0.0, Easing::Linear));
        let zeros = PoseDelta::zeros_like(&rest);
        Self {
            layers,
            snapshot: rest.clone(),
            snapshot_active: false,
            snapshot_velocity: zeros.clone(),
            snapshot_elapsed_secs: 0.0,
            snapshot_half_life_secs: DEFAULT_HALF_LIFE_SECS,
            offsets: vec![
                Offset {
                    x: zeros.clone(),
                    v: zeros.clone(),
                    a: zeros.clone(),
                    elapsed_secs: 0.0,
                    duration_secs: 0.0,
                    decay: OffsetDecay::Quintic,
                };
                MAX_OFFSETS
            ],
            offset_count: 0,
            offset_now: zeros.clone(),
            offset_rate: zeros.clone(),
            offset_rate2: zeros.clone(),
            scratch: rest.clone(),
            scratch_b: rest.clone(),
            scratch_c: rest.clone(),
            base: rest.clone(),
            output: rest.clone(),
            previous: rest.clone(),
            previous_dt_secs: 0.0,
            previous2: rest.clone(),
            previous2_dt_secs: 0.0,
            pending_dt_secs: 0.0,
            evaluated: false,
            velocity: zeros.clone(),
            acceleration: zeros.clone(),
            step_a: zeros.clone(),
            step_b: zeros,
            rest,
            cursors: model.clips.iter().map(ClipCursor::new).collect(),
            clip_secs: model.clips.iter().map(Clip::end_secs).collect(),
            covers_pose,
            seam_jumps,
            rate_limits,
            extrapolation_bounds,
            root: None,
            looping: true,
        }
    }

    /// Turn root motion on (`Some`) or off (`None`: the root is a joint like any other, its
    /// translation blended by position). The root is the highest node that a clip translates
    /// (the first in node order among equals); "up" is the model's +Y seen from the root's parent
    /// in the rest pose. The anchor is the current clip's horizontal root position now; the
    /// character offset starts at zero. Allocates (once).
    pub fn set_root_motion(&mut self, model: &Model, mode: Option<RootMotion>) {
        let Some(mode) = mode else {
            self.root = None;
            return;
        };
        if let Some(root) = &mut self.root {
            root.mode = mode;
            return;
        }
        let Some(node) = root_motion_node(model) else {
            self.root = None;
            return;
        };
        let mut world = vec![glam::Affine3A::IDENTITY; model.nodes.len()];
        let mut locals = LocalMatrices::new(model.nodes.len());
        model.hierarchy.local_to_model(&self.rest, &mut locals, &mut world);
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
        let mut root = RootState {
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
            let at = |t: f32| root_position(model, &root.tracks, ClipId::from_index(index), t, &settings);
            let travel = root.horizontal(at(clip.end_secs()).unwrap_or(Vec3::ZERO) - at(0.0).unwrap_or(Vec3::ZERO));
            root.loop_travel[index] = travel;
        }
        let top = self.layers.last().copied();
        let start = top
            .and_then(|l| root_position(model, &root.tracks, l.clip, self.wrap(l.clip, l.time_secs), &settings))
            .or_else(|| self.rest.get(node).map(|t| t.translation))
            .unwrap_or(Vec3::ZERO);
        root.anchor = root.horizontal(start);
        self.root = Some(root);
    }

    /// Root motion, when on: mode, root node, anchor and character offset.
    pub fn root_motion(&self) -> Option<(RootMotion, NodeId)> {
        self.root.as_ref().map(|r| (r.mode, r.node))
    }

    /// The character offset: horizontal root motion accumulated since root motion was turned
    /// on, in the root's parent frame (zero without root motion).
    pub fn character_offset(&self) -> Vec3 {
        self.root.as_ref().map_or(Vec3::ZERO, |r| r.offset)
    }

    /// The character offset in model space (model units): [`Self::character_offset`] through the
    /// root's parents (an `Armature` node scaled 0.01 turns its centimetres into metres).
    pub fn character_offset_in_model(&self) -> Vec3 {
        self.root.as_ref().map_or(Vec3::ZERO, |r| r.to_model * r.offset)
    }

    /// A vector of the root's parent frame (an offset, a root translation) in model space: through
    /// the parents' rest transform; `v` itself without root motion or parents.
    pub fn root_frame_to_model(&self, v: Vec3) -> Vec3 {
        self.root.as_ref().map_or(v, |r| r.to_model * v)
    }

    /// The horizontal position the root is anchored to (zero without root motion).
    pub fn root_anchor(&self) -> Vec3 {
        self.root.as_ref().map_or(Vec3::ZERO, |r| r.anchor)
    }

    /// Put the root of `pose` where root motion shows it: horizontally at the anchor (in place)
    /// or at anchor + character offset (as authored), its vertical motion kept — what
    /// [`Self::evaluate`] does to its own output, for a pose sampled elsewhere (a viewer playing
    /// one clip without fading). Nothing without root motion. Allocates nothing.
    pub fn place_root(&self, pose: &mut SoaPose) {
        if let Some(root) = &self.root {
            root.place(pose);
        }
    }

    /// The horizontal part of `v` (in the root's parent frame; `v` itself without root motion).
    pub fn horizontal(&self, v: Vec3) -> Vec3 {
        self.root.as_ref().map_or(v, |r| r.horizontal(v))
    }

    /// Set the character offset (e.g. back to zero to re-centre a long walk).
    pub fn set_character_offset(&mut self, offset: Vec3) {
        if let Some(root) = &mut self.root {
            root.offset = root.horizontal(offset);
        }
    }

    /// Start fading to `to_clip` from time 0 over `duration_secs` (0 switches at once) with
    /// `easing`. Works at any moment, including mid-fade and several times per frame; fading to
    /// the clip already playing restarts it with a fade from its current pose.
    pub fn trigger(&mut self, to_clip: ClipId, duration_secs: f32, easing: Easing) {
        self.push_fade(None, to_clip, &Transition::cross_fade(duration_secs, easing));
    }

    /// Start `transition` to `to_clip` (from its `start_secs`). Works at any moment, including
    /// mid-transition of any kind and several times per frame: dead blending and
    /// inertialization start from the pose last evaluated (call it after [`Self::evaluate`]),
    /// with the motion it is about to make: the playing clips (and any extrapolation and decaying
    /// offsets) sampled one and two frame times ahead ([`Self::frame_secs`]; behind instead where
    /// a clip would cross a loop seam that jumps). `model` and `settings` sample them and the
    /// target's first poses.
    pub fn transition(&mut self, model: &Model, settings: &SampleSettings, to_clip: ClipId, transition: &Transition) {
        let duration = sanitize(transition.duration_secs);
        match transition.kind {
            TransitionKind::CrossFade => self.push_fade(Some((model, settings)), to_clip, transition),
            _ if !self.evaluated || duration == 0.0 => {
                // Nothing shown yet (or a cut): a plain fade (a switch at 0 s).
                self.push_fade(Some((model, settings)), to_clip, transition);
            }
            TransitionKind::DeadBlend => {
                self.shown_velocity(model, settings);
                // The velocity whose decayed extrapolation covers the next frame as the source
                // would have (the mean velocity over it, raised for the decay within it).
                let h = self.frame_secs();
                let travel = decayed_travel(h, transition.half_life_secs);
                if travel > 0.0 {
                    self.velocity.scale(h / travel);
                }
                let root_velocity = self.root_velocity_ahead(model, settings, self.frame_secs());
                self.freeze_output(transition.half_life_secs, root_velocity);
                self.layers.clear();
                self.push_layer(to_clip, transition, duration);
            }
            TransitionKind::Inertialize => self.inertialize(model, settings, to_clip, transition, duration),
        }
    }

    /// Cross-fade: a layer over the stack (freezing the output first when the stack is full, its
    /// velocity sampled with `sampling` when given, else from the last evaluated frames).
    fn push_fade(&mut self, sampling: Option<(&Model, &SampleSettings)>, to_clip: ClipId, transition: &Transition) {
        let duration = sanitize(transition.duration_secs);
        if self.layers.len() >= MAX_LAYERS {
            // Freeze what is on screen now and let it coast out under the new layer.
            let root_velocity = match sampling {
                Some((model, settings)) if self.evaluated => {
                    self.shown_velocity(model, settings);
                    self.root_velocity_ahead(model, settings, self.frame_secs())
                }
                _ => {
                    self.measure_velocity();
                    None
                }
            };
            self.freeze_output(DEFAULT_HALF_LIFE_SECS, root_velocity);
            self.layers.clear();
        }
        self.push_layer(to_clip, transition, duration);
    }

    fn push_layer(&mut self, to_clip: ClipId, transition: &Transition, duration: f32) {
        let start = if transition.start_secs.is_finite() { transition.start_secs } else { 0.0 };
        let mut layer = Layer::new(to_clip, start, duration, transition.easing);
        if transition.match_cycle_secs > 0.0 && transition.match_cycle_secs.is_finite() {
            layer.match_cycle_secs = transition.match_cycle_secs;
            layer.match_duration_secs = duration;
        }
        self.layers.push(layer);
    }

    /// The output's velocity and acceleration now into `self.velocity`, `self.acceleration`:
    /// second-order backward differences of the last three evaluated frames (velocity alone from
    /// two; zero from one).
    fn measure_velocity(&mut self) {
        self.velocity.clear();
        self.acceleration.clear();
        let dt1 = self.previous_dt_secs;
        if !self.evaluated || dt1 < MIN_VELOCITY_DT_SECS {
            return;
        }
        self.step_a.set_difference(&self.output, &self.previous, 1.0 / dt1);
        self.velocity.copy_from(&self.step_a);
        let dt0 = self.previous2_dt_secs;
        if dt0 >= MIN_VELOCITY_DT_SECS {
            // a = (v₁ − v₀) / ((dt₀ + dt₁) / 2); the velocity now is v₁ + a · dt₁ / 2.
            self.step_b.set_difference(&self.previous, &self.previous2, 1.0 / dt0);
            let mid = 0.5 * (dt0 + dt1);
            self.acceleration.set_combination(&self.step_a, 1.0 / mid, &self.step_b, -1.0 / mid);
            self.velocity.add_scaled(&self.acceleration, 0.5 * dt1);
        }
    }

    /// Freeze the shown pose and `self.velocity` (its velocity, see [`Self::shown_velocity`])
    /// into the snapshot, extrapolated with the velocity decaying by `half_life_secs` (Holden's
    /// dead blending): each joint's velocity first clamped to the fastest that joint moves in any
    /// clip, so no joint travels further than that speed × half-life / ln 2. The
    /// inertialization offsets are part of the shown pose, so they end here.
    /// `root_velocity` is the root's horizontal velocity ahead (`None`: the last frame's).
    fn freeze_output(&mut self, half_life_secs: f32, root_velocity: Option<Vec3>) {
        self.velocity.clamp_lengths(&self.rate_limits);
        self.snapshot.copy_from(&self.output);
        self.snapshot_velocity.copy_from(&self.velocity);
        self.snapshot_elapsed_secs = 0.0;
        self.snapshot_half_life_secs = if half_life_secs.is_finite() { half_life_secs.max(0.0) } else { 0.0 };
        self.snapshot_active = true;
        self.offset_count = 0;
        if let Some(root) = &mut self.root {
            root.snapshot_velocity = root_velocity.unwrap_or(root.velocity);
            root.inertial_velocity = Vec3::ZERO;
        }
    }

    /// Time step of the rates measured at a trigger: the last frame's time (what the next frame
    /// is likely to advance), within 1/480–1/15 s; 1/60 s before any frame was shown.
    pub fn frame_secs(&self) -> f32 {
        let dt = self.previous_dt_secs;
        if self.evaluated && dt.is_finite() && dt > 0.0 {
            dt.clamp(MIN_FRAME_SECS, MAX_FRAME_SECS)
        } else {
            DEFAULT_FRAME_SECS
        }
    }

    /// The live offsets' sum now into `offset_now`, and its velocity and acceleration into
    /// `offset_rate`, `offset_rate2`.
    fn sum_offsets(&mut self) {
        for (order, out) in
            [&mut self.offset_now, &mut self.offset_rate, &mut self.offset_rate2].into_iter().enumerate()
        {
            out.clear();
            for offset in &self.offsets[..self.offset_count] {
                offset.add_into(out, order, 1.0);
            }
        }
    }

    /// The output without its offsets (the layers over the extrapolated snapshot) into
    /// `self.base`, and its motion over the next two steps of `h` seconds (every clip at its
    /// playback rate): `self.velocity` and `self.acceleration` as [`rates_at_start`] gives them
    /// (a second-order pair that reproduces the first step exactly), `self.step_a` the first
    /// step's mean velocity. Exact motion, never the output's finite differences, so
    /// re-triggering cannot feed back into itself. A clip that loops within the two steps
    /// continues past its seam without the seam's jump ([`LayerJob::sample`]).
    fn stack_rates(&mut self, model: &Model, settings: &SampleSettings, h: f32) {
        let rates = playback_rates(&self.layers, &self.clip_secs);
        let mut job = LayerJob {
            model,
            looping: self.looping,
            settings,
            rest: &self.rest,
            covers_pose: &self.covers_pose,
            seam_jumps: &self.seam_jumps,
            cursors: &mut self.cursors,
        };
        let snapshot = self.snapshot_active.then_some(Extrapolation {
            pose: &self.snapshot,
            velocity: &self.snapshot_velocity,
            bound: &self.extrapolation_bounds,
            elapsed_secs: self.snapshot_elapsed_secs,
            half_life_secs: self.snapshot_half_life_secs,
        });
        let space = settings.scale_space;
        let layers = &self.layers;
        let mut stack = |shift: f32, out: &mut SoaPose, tmp: &mut SoaPose| {
            evaluate_stack(&mut job, layers, &rates, snapshot, shift, space, out, tmp);
        };
        stack(0.0, &mut self.base, &mut self.scratch);
        stack(h, &mut self.scratch_b, &mut self.scratch);
        stack(2.0 * h, &mut self.scratch_c, &mut self.scratch);
        rates_at_start(
            1.0,
            h,
            [&self.base, &self.scratch_b, &self.scratch_c],
            [&mut self.step_a, &mut self.step_b],
            &mut self.velocity,
            &mut self.acceleration,
        );
    }

    /// The shown pose's velocity into `self.velocity`: the mean velocity of the stack's next
    /// frame ([`Self::stack_rates`] over [`Self::frame_secs`]) with the live offsets' velocity
    /// on top — added for translations, scales and weights, composed for rotations (the output
    /// is `exp(X)·base`, so its angular velocity is `J(X)·Ẋ + exp(X)·ω`).
    fn shown_velocity(&mut self, model: &Model, settings: &SampleSettings) {
        self.stack_rates(model, settings, self.frame_secs());
        self.velocity.copy_from(&self.step_a);
        if self.offset_count == 0 {
            return;
        }
        self.sum_offsets();
        let v = &mut self.velocity;
        for (o, &d) in v.translation.iter_mut().zip(&self.offset_rate.translation) {
            *o += d;
        }
        for (o, &d) in v.scale.iter_mut().zip(&self.offset_rate.scale) {
            *o += d;
        }
        for (o, &d) in v.weights.iter_mut().zip(&self.offset_rate.weights) {
            *o += d;
        }
        for ((o, &x), &d) in v.rotation.iter_mut().zip(&self.offset_now.rotation).zip(&self.offset_rate.rotation) {
            *o = jacobian(x, d) + Quat::from_scaled_axis(x) * *o;
        }
    }

    /// The shown root's horizontal velocity over the next `h` seconds, as [`Self::evaluate`]
    /// would accumulate it (each layer's root track at its playback rate, loops included, by the
    /// layers' weights; the snapshot's coasting velocity; the last inertialization's root
    /// velocity by its weight); `None` without root motion or for a non-positive `h`.
    fn root_velocity_ahead(&self, model: &Model, settings: &SampleSettings, h: f32) -> Option<Vec3> {
        let root = self.root.as_ref()?;
        if h.is_nan() || h <= 0.0 {
            return None;
        }
        let mut w = [0.0; MAX_LAYERS];
        let snapshot_weight = self.weights(&mut w);
        let rates = playback_rates(&self.layers, &self.clip_secs);
        let mut delta = Vec3::ZERO;
        for ((layer, &weight), rate) in self.layers.iter().zip(&w).zip(rates) {
            if weight > 0.0 {
                let secs = self.clip_secs(layer.clip);
                let (from, to) = (layer.time_secs, layer.time_secs + h * rate);
                let at = |t: f32| root_position(model, &root.tracks, layer.clip, self.wrap(layer.clip, t), settings);
                if let (Some(a), Some(b)) = (at(from), at(to)) {
                    let loops =
                        if self.looping && secs > 0.0 { (to / secs).floor() - (from / secs).floor() } else { 0.0 };
                    let travel = root.loop_travel.get(layer.clip.index()).copied().unwrap_or(Vec3::ZERO);
                    delta += weight * (root.horizontal(b - a) + travel * loops);
                }
            }
        }
        let velocity = delta / h + snapshot_weight * root.snapshot_velocity;
        let inertial = self.inertial_weight();
        let velocity = (1.0 - inertial) * velocity + inertial * root.inertial_velocity;
        velocity.is_finite().then_some(velocity)
    }

    /// Switch to `to_clip` at once and add an offset for the change of target, decaying to zero.
    fn inertialize(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        to_clip: ClipId,
        transition: &Transition,
        duration: f32,
    ) {
        if self.offset_count == MAX_OFFSETS {
            self.merge_oldest_offsets();
        }
        self.sum_offsets();
        // The output without the offsets (the layers and snapshot: what the new target
        // replaces) and its motion over the next two frames; the root's likewise.
        let h = self.frame_secs();
        self.stack_rates(model, settings, h);
        let root_velocity = self.root_velocity_ahead(model, settings, h);

        // The target's motion over its first two frames likewise (at its starting playback
        // rate, which speed matching lowers or raises; past its seam without the seam's jump).
        let start = if transition.start_secs.is_finite() { transition.start_secs } else { 0.0 };
        let mut first = Layer::new(to_clip, start, 0.0, Easing::Linear);
        if transition.match_cycle_secs > 0.0 && transition.match_cycle_secs.is_finite() {
            first.match_cycle_secs = transition.match_cycle_secs;
            first.match_duration_secs = duration;
        }
        let rate = playback_rates(std::slice::from_ref(&first), &self.clip_secs)[0];
        let at = |time_secs| Layer::new(to_clip, time_secs, 0.0, Easing::Linear);
        let mut job = LayerJob {
            model,
            looping: self.looping,
            settings,
            rest: &self.rest,
            covers_pose: &self.covers_pose,
            seam_jumps: &self.seam_jumps,
            cursors: &mut self.cursors,
        };
        job.sample(&at(start), start, &mut self.scratch);
        job.sample(&at(start + h * rate), start, &mut self.scratch_b);
        job.sample(&at(start + 2.0 * h * rate), start, &mut self.scratch_c);
        let slot = &mut self.offsets[self.offset_count];
        rates_at_start(
            1.0,
            h,
            [&self.scratch, &self.scratch_b, &self.scratch_c],
            [&mut self.step_a, &mut self.step_b],
            &mut slot.v,
            &mut slot.a,
        );
        // Translations, scales and weights add: x₀ = base − target; v₀, a₀ = base's − target's.
        slot.x.set_difference(&self.base, &self.scratch, 1.0);
        for (rate, base) in [(&mut slot.v, &self.velocity), (&mut slot.a, &self.acceleration)] {
            for (o, &b) in rate.translation.iter_mut().zip(&base.translation) {
                *o = b - *o;
            }
            for (o, &b) in rate.scale.iter_mut().zip(&base.scale) {
                *o = b - *o;
            }
            for (o, &b) in rate.weights.iter_mut().zip(&base.weights) {
                *o = b - *o;
            }
        }
        // Rotations compose: the output is exp(X)·target with X the offsets' sum, so the new
        // offset makes X = log(shown · target⁻¹) and matches the shown angular velocity and
        // acceleration through the rotation's Jacobian.
        for node in 0..self.base.len() {
            let id = NodeId::from_index(node);
            let (Some(base), Some(target)) = (self.base.get(id), self.scratch.get(id)) else { break };
            let at = |d: &PoseDelta| d.rotation.get(node).copied().unwrap_or(Vec3::ZERO);
            let old = [at(&self.offset_now), at(&self.offset_rate), at(&self.offset_rate2)];
            let base_rates = [at(&self.velocity), at(&self.acceleration)];
            let target_rates = [at(&slot.v), at(&slot.a)];
            let [x, v, a] = rotation_offset(old, base.rotation, base_rates, target.rotation, target_rates);
            for (delta, value) in [(&mut slot.x, x), (&mut slot.v, v), (&mut slot.a, a)] {
                if let Some(r) = delta.rotation.get_mut(node) {
                    *r = value;
                }
            }
        }
        slot.elapsed_secs = 0.0;
        slot.duration_secs = duration;
        slot.decay = transition.decay;
        if let Some(root) = &mut self.root {
            // The root's horizontal motion is blended by velocity, not offset.
            let i = root.node.index();
            for delta in [&mut slot.x, &mut slot.v, &mut slot.a] {
                if let Some(t) = delta.translation.get_mut(i) {
                    *t -= root.horizontal(*t);
                }
            }
            root.inertial_velocity = root_velocity.unwrap_or(root.velocity);
        }
        self.offset_count += 1;
        self.snapshot_active = false;
        self.layers.clear();
        self.push_layer(to_clip, &Transition { easing: Easing::Linear, ..*transition }, 0.0);
        if let Some(top) = self.layers.last_mut() {
            top.match_duration_secs = duration;
        }
    }

    /// Merge the two oldest offsets into one that starts now with their summed value, velocity
    /// and acceleration and ends when the later of them would have.
    fn merge_oldest_offsets(&mut self) {
        let [old, young, ..] = &self.offsets[..] else { return };
        let end = (old.duration_secs - old.elapsed_secs).max(young.duration_secs - young.elapsed_secs);
        let decay = young.decay;
        for (order, out) in [&mut self.offset_now, &mut self.step_a, &mut self.step_b].into_iter().enumerate() {
            out.clear();
            old.add_into(out, order, 1.0);
            young.add_into(out, order, 1.0);
        }
        let merged = &mut self.offsets[0];
        merged.x.copy_from(&self.offset_now);
        merged.v.copy_from(&self.step_a);
        merged.a.copy_from(&self.step_b);
        merged.elapsed_secs = 0.0;
        merged.duration_secs = end.max(0.0);
        merged.decay = decay;
        self.offsets[1..self.offset_count].rotate_left(1);
        self.offset_count -= 1;
    }

    /// Jump to `clip` at `time_secs` with no fade (the character offset stays).
    pub fn play(&mut self, clip: ClipId, time_secs: f32) {
        self.layers.clear();
        self.snapshot_active = false;
        self.offset_count = 0;
        self.evaluated = false;
        self.previous_dt_secs = 0.0;
        self.previous2_dt_secs = 0.0;
        self.layers.push(Layer::new(clip, time_secs, 0.0, Easing::Linear));
        if let Some(root) = &mut self.root {
            root.velocity = Vec3::ZERO;
        }
    }

    /// Loop length of `clip` (0 when unknown).
    fn clip_secs(&self, clip: ClipId) -> f32 {
        self.clip_secs.get(clip.index()).copied().unwrap_or(0.0)
    }

    /// `time_secs` wrapped (looping) or clamped into `clip`.
    fn wrap(&self, clip: ClipId, time_secs: f32) -> f32 {
        wrap_time(self.clip_secs(clip), self.looping, time_secs)
    }

    /// Advance every layer's clip and fade by `dt_secs`, then drop layers that a completed fade
    /// covers. A speed-matched layer plays at the source's cycle rate at first and at its own
    /// by the end of its transition (a cross-fade's source beneath it too, so both stay in
    /// phase).
    pub fn advance(&mut self, dt_secs: f32) {
        let dt = if dt_secs.is_finite() { dt_secs.max(0.0) } else { 0.0 };
        let rates = playback_rates(&self.layers, &self.clip_secs);
        for (layer, rate) in self.layers.iter_mut().zip(rates) {
            layer.time_secs += dt * rate;
            layer.elapsed_secs += dt;
        }
        self.snapshot_elapsed_secs += dt;
        let mut i = 0;
        while i < self.offset_count {
            let offset = &mut self.offsets[i];
            offset.elapsed_secs += dt;
            if offset.elapsed_secs >= offset.duration_secs {
                self.offsets[i..self.offset_count].rotate_left(1);
                self.offset_count -= 1;
            } else {
                i += 1;
            }
        }
        self.pending_dt_secs += dt;
        if let Some(top_full) = self.layers.iter().rposition(|l| l.progress() >= 1.0)
            && (top_full > 0 || self.snapshot_active)
        {
            self.drop_layers_below(top_full);
        }
    }

    /// Drop the layers (and the snapshot) under layer `top_full`, their root motion included.
    fn drop_layers_below(&mut self, top_full: usize) {
        self.layers.drain(..top_full);
        self.snapshot_active = false;
    }

    /// The clip being faded to (or playing alone).
    pub fn current_clip(&self) -> ClipId {
        self.layers.last().map_or(ClipId::from_index(0), |l| l.clip)
    }

    /// Playback time of the current clip.
    pub fn current_time_secs(&self) -> f32 {
        self.layers.last().map_or(0.0, |l| l.time_secs)
    }

    /// True while more than one source contributes (or an inertialization offset decays).
    pub fn is_fading(&self) -> bool {
        self.layers.len() > 1 || self.snapshot_active || self.offset_count > 0
    }

    /// Live layers, oldest first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Effective weight of each live layer (oldest first) and of the frozen snapshot; they sum
    /// to 1. (An inertialization's offset is on top of these: [`Self::inertial_weight`].)
    pub fn weights(&self, out: &mut [f32; MAX_LAYERS]) -> f32 {
        let mut above = 1.0;
        for (i, layer) in self.layers.iter().enumerate().rev() {
            let e = if i == 0 && !self.snapshot_active { 1.0 } else { layer.progress() };
            out[i] = e * above;
            above *= 1.0 - e;
        }
        out[self.layers.len()..].fill(0.0);
        if self.snapshot_active { above } else { 0.0 }
    }

    /// How much of the pose before the last inertialization is still in the output, in `[0, 1]`:
    /// the decay curve's value basis (1 at the trigger, 0 at the end; 0 when none runs).
    pub fn inertial_weight(&self) -> f32 {
        let Some(newest) = self.offset_count.checked_sub(1).and_then(|i| self.offsets.get(i)) else { return 0.0 };
        newest.decay.basis(newest.elapsed_secs, newest.duration_secs).0.clamp(0.0, 1.0)
    }

    /// Weight of the current (top) layer's clip in the output, in `[0, 1]`: its fade weight, less
    /// what an inertialization offset still carries of the pose before it.
    pub fn target_weight(&self) -> f32 {
        let mut w = [0.0; MAX_LAYERS];
        self.weights(&mut w);
        let top = self.layers.len().checked_sub(1).map_or(1.0, |i| w[i]);
        top * (1.0 - self.inertial_weight())
    }

    /// Evaluate the pose at the current time: the snapshot extrapolated, every layer sampled with
    /// `settings` ([`crate::Clip::sample`]) and blended over the ones beneath ([`blend_into`], in
    /// `settings.scale_space`), an inertialization offset added, root motion applied. Allocates
    /// nothing.
    pub fn evaluate(&mut self, model: &Model, settings: &SampleSettings) -> &SoaPose {
        let dt = self.pending_dt_secs;
        if dt > 0.0 && self.evaluated {
            std::mem::swap(&mut self.previous2, &mut self.previous);
            self.previous2_dt_secs = self.previous_dt_secs;
            self.previous.copy_from(&self.output);
            self.previous_dt_secs = dt;
        }
        self.pending_dt_secs = 0.0;
        self.update_root_offset(model, settings, dt);
        let mut job = LayerJob {
            model,
            looping: self.looping,
            settings,
            rest: &self.rest,
            covers_pose: &self.covers_pose,
            seam_jumps: &self.seam_jumps,
            cursors: &mut self.cursors,
        };
        let snapshot = self.snapshot_active.then_some(Extrapolation {
            pose: &self.snapshot,
            velocity: &self.snapshot_velocity,
            bound: &self.extrapolation_bounds,
            elapsed_secs: self.snapshot_elapsed_secs,
            half_life_secs: self.snapshot_half_life_secs,
        });
        evaluate_stack(
            &mut job,
            &self.layers,
            &[],
            snapshot,
            0.0,
            settings.scale_space,
            &mut self.output,
            &mut self.scratch,
        );
        if self.offset_count > 0 {
            self.offset_now.clear();
            for offset in &self.offsets[..self.offset_count] {
                offset.add_into(&mut self.offset_now, 0, 1.0);
            }
            self.offset_now.apply_to(&mut self.output, 1.0);
        }
        if let Some(root) = &self.root {
            root.place(&mut self.output);
        }
        self.evaluated = true;
        &self.output
    }

    /// Accumulate the sources' root velocities over the last `dt_secs` into the character offset.
    fn update_root_offset(&mut self, model: &Model, settings: &SampleSettings, dt_secs: f32) {
        let mut w = [0.0; MAX_LAYERS];
        let snapshot_weight = self.weights(&mut w);
        let inertial = self.inertial_weight();
        let looping = self.looping;
        let clip_secs = &self.clip_secs;
        let Some(root) = &mut self.root else { return };
        let mut delta = Vec3::ZERO;
        for (layer, &weight) in self.layers.iter_mut().zip(&w) {
            if weight > 0.0 {
                let secs = clip_secs.get(layer.clip.index()).copied().unwrap_or(0.0);
                let (from, to) = (layer.root_time_secs, layer.time_secs);
                let at = |t: f32| root_position(model, &root.tracks, layer.clip, wrap_time(secs, looping, t), settings);
                if let (Some(a), Some(b)) = (at(from), at(to)) {
                    let loops = if looping && secs > 0.0 { (to / secs).floor() - (from / secs).floor() } else { 0.0 };
                    let travel = root.loop_travel.get(layer.clip.index()).copied().unwrap_or(Vec3::ZERO);
                    delta += weight * (root.horizontal(b - a) + travel * loops);
                }
            }
            layer.root_time_secs = layer.time_secs;
        }
        if snapshot_weight > 0.0 && dt_secs > 0.0 {
            // The root coasts at its velocity (not decayed: a dead blend must not stop the
            // character) while its weight fades out.
            delta += snapshot_weight * root.snapshot_velocity * dt_secs;
        }
        delta = (1.0 - inertial) * delta + inertial * root.inertial_velocity * dt_secs;
        if delta.is_finite() {
            root.offset += delta;
            if dt_secs >= MIN_VELOCITY_DT_SECS {
                root.velocity = delta / dt_secs;
            }
        }
    }

    /// The pose computed by the last [`Self::evaluate`] (the rest pose before the first).
    pub fn output(&self) -> &SoaPose {
        &self.output
    }
}

/// Playback rate of each layer now (clip seconds per second, oldest first): 1, except a
/// speed-matched top layer (and the source beneath it), which play at the cycle rate blended from
/// the source's to the target's by the top layer's progress.
fn playback_rates(layers: &[Layer], clip_secs: &[f32]) -> [f32; MAX_LAYERS + 1] {
    let secs = |clip: ClipId| clip_secs.get(clip.index()).copied().unwrap_or(0.0);
    let n = layers.len();
    let mut rates = [1.0f32; MAX_LAYERS + 1];
    if let Some(top) = layers.last()
        && top.match_cycle_secs > 0.0
        && top.elapsed_secs < top.match_duration_secs
    {
        let own = secs(top.clip);
        let u = if top.match_duration_secs > 0.0 { top.elapsed_secs / top.match_duration_secs } else { 1.0 };
        let w = if top.duration_secs > 0.0 { top.progress() } else { u };
        let below = n.checked_sub(2).and_then(|i| layers.get(i)).map(|l| secs(l.clip));
        let source = below.filter(|&s| s > 0.0).unwrap_or(top.match_cycle_secs);
        if own > 0.0 {
            // Cycles per second, blended from the source's to the target's.
            let frequency = (1.0 - w) / source + w / own;
            if let Some(rate) = rates.get_mut(n - 1) {
                *rate = frequency * own;
            }
            if let (Some(s), Some(rate)) = (below.filter(|&s| s > 0.0), rates.get_mut(n.wrapping_sub(2))) {
                *rate = frequency * s;
            }
        }
    }
    rates
}

/// `J(x)·v` with `J` the left Jacobian of the rotation exponential at rotation vector `x`: the
/// angular velocity of `exp(x(t))` when `ẋ = v`.
fn jacobian(x: Vec3, v: Vec3) -> Vec3 {
    let theta = x.length();
    let (a, b) = if theta < 1e-3 {
        (0.5 - theta * theta / 24.0, 1.0 / 6.0 - theta * theta / 120.0)
    } else {
        ((1.0 - theta.cos()) / (theta * theta), (theta - theta.sin()) / (theta * theta * theta))
    };
    let xv = x.cross(v);
    v + a * xv + b * x.cross(xv)
}

/// `J(x)⁻¹·w`: the rate of the rotation vector `x` that turns `exp(x)` at angular velocity `w`.
fn jacobian_inverse(x: Vec3, w: Vec3) -> Vec3 {
    let theta = x.length();
    let c = if theta < 1e-3 {
        1.0 / 12.0 + theta * theta / 720.0
    } else {
        1.0 / (theta * theta) - (1.0 + theta.cos()) / (2.0 * theta * theta.sin())
    };
    let xw = x.cross(w);
    let out = w - 0.5 * xw + c * x.cross(xw);
    if out.is_finite() { out } else { w }
}

/// The new rotation offset of one node at an inertialization trigger: value, velocity and
/// acceleration such that `exp(X_old + x)·target` equals the shown rotation `exp(X_old)·base` and
/// moves with its angular velocity and acceleration. `old` is the live offsets' sum
/// `[X, Ẋ, Ẍ]`; `*_rates` are `[ω, α]` (angular velocity and acceleration in the parent's frame).
fn rotation_offset(
    old: [Vec3; 3],
    base: Quat,
    base_rates: [Vec3; 2],
    target: Quat,
    target_rates: [Vec3; 2],
) -> [Vec3; 3] {
    let [old_x, old_v, old_a] = old;
    let old_turn = Quat::from_scaled_axis(old_x);
    let carried = old_turn * base_rates[0];
    let old_spin = jacobian(old_x, old_v);
    let shown_velocity = old_spin + carried;
    let shown_acceleration = jacobian(old_x, old_a) + old_spin.cross(carried) + old_turn * base_rates[1];
    let mut diff = (old_turn * base).normalize() * target.inverse();
    if diff.w < 0.0 {
        diff = -diff;
    }
    let x = rotation_vector(diff);
    let turn = Quat::from_scaled_axis(x);
    let target_velocity = turn * target_rates[0];
    let spin = shown_velocity - target_velocity;
    let v = jacobian_inverse(x, spin);
    let a = jacobian_inverse(x, shown_acceleration - turn * target_rates[1] - spin.cross(target_velocity));
    [x - old_x, v - old_v, a - old_a]
}

/// The snapshot under the layers, extrapolated from its velocity.
#[derive(Clone, Copy)]
struct Extrapolation<'a> {
    pose: &'a SoaPose,
    velocity: &'a PoseDelta,
    /// Per node, the furthest it is extrapolated (softly saturated).
    bound: &'a PoseDelta,
    elapsed_secs: f32,
    half_life_secs: f32,
}

/// The layer stack (over the extrapolated snapshot, if any) evaluated `shift_secs` from now
/// (every fade and the extrapolation shifted, every clip time by `shift_secs` times its layer's
/// playback rate in `rates`, 1 where it has none; a clip that loops meanwhile continues past its
/// seam without the seam's jump) into `out`; `tmp` is scratch.
#[allow(clippy::too_many_arguments)]
fn evaluate_stack(
    job: &mut LayerJob,
    layers: &[Layer],
    rates: &[f32],
    snapshot: Option<Extrapolation>,
    shift_secs: f32,
    scale_space: ScaleSpace,
    out: &mut SoaPose,
    tmp: &mut SoaPose,
) {
    let shifted = |(i, l): (usize, &Layer)| {
        let rate = rates.get(i).copied().unwrap_or(1.0);
        (
            Layer { time_secs: l.time_secs + shift_secs * rate, elapsed_secs: l.elapsed_secs + shift_secs, ..*l },
            l.time_secs,
        )
    };
    let mut layers = layers.iter().enumerate();
    if let Some(snapshot) = snapshot {
        out.copy_from(snapshot.pose);
        let travel = decayed_travel(snapshot.elapsed_secs + shift_secs, snapshot.half_life_secs);
        snapshot.velocity.apply_saturated(out, travel, snapshot.bound);
    } else if let Some(bottom) = layers.next() {
        let (bottom, from) = shifted(bottom);
        job.sample(&bottom, from, out);
    } else {
        out.copy_from(job.rest);
    }
    for layer in layers {
        let (layer, from) = shifted(layer);
        job.sample(&layer, from, tmp);
        blend_into(out, tmp, layer.progress(), scale_space);
    }
}

/// Velocity and acceleration at the first of three poses `h` apart (`sign` +1: later, −1:
/// earlier), second order: `v = (3e₁ − e₂)/2`, `a = ±(e₂ − e₁)/h` with `e₁`, `e₂` the two steps
/// (later ⊖ earlier) as rates. `steps` is scratch.
fn rates_at_start(
    sign: f32,
    h: f32,
    [p0, p1, p2]: [&SoaPose; 3],
    [e1, e2]: [&mut PoseDelta; 2],
    velocity: &mut PoseDelta,
    acceleration: &mut PoseDelta,
) {
    if sign > 0.0 {
        e1.set_difference(p1, p0, 1.0 / h);
        e2.set_difference(p2, p1, 1.0 / h);
    } else {
        e1.set_difference(p0, p1, 1.0 / h);
        e2.set_difference(p1, p2, 1.0 / h);
    }
    velocity.set_combination(e1, 1.5, e2, -0.5);
    acceleration.set_combination(e2, sign / h, e1, -sign / h);
}

/// A duration made safe: finite and not negative (else 0).
fn sanitize(duration_secs: f32) -> f32 {
    if duration_secs.is_finite() { duration_secs.max(0.0) } else { 0.0 }
}

/// `time_secs` wrapped into `[0, clip_secs)` (looping) or clamped to `[0, clip_secs]`.
fn wrap_time(clip_secs: f32, looping: bool, time_secs: f32) -> f32 {
    if !time_secs.is_finite() || clip_secs <= 0.0 {
        0.0
    } else if looping {
        time_secs.rem_euclid(clip_secs)
    } else {
        time_secs.clamp(0.0, clip_secs)
    }
}

/// The root's authored translation in `clip` at `time_secs` (`None` when the clip does not
/// translate it).
fn root_position(
    model: &Model,
    tracks: &[Option<TrackId>],
    clip: ClipId,
    time_secs: f32,
    settings: &SampleSettings,
) -> Option<Vec3> {
    let track = (*tracks.get(clip.index())?)?;
    match model.clips.get(clip.index())?.evaluate_track(track, time_secs, settings, &mut [])? {
        TrackSample::Vec3(v) if v.is_finite() => Some(v),
        _ => None,
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

/// What sampling one layer needs.
struct LayerJob<'a> {
    model: &'a Model,
    looping: bool,
    settings: &'a SampleSettings,
    rest: &'a SoaPose,
    covers_pose: &'a [bool],
    /// Per clip: the jump at its loop seam (zero where the seam continues the motion).
    seam_jumps: &'a [PoseDelta],
    cursors: &'a mut [ClipCursor],
}

impl LayerJob<'_> {
    /// Sample `layer`'s clip at its time into `out`, over the rest pose unless the clip
    /// overwrites all of it. Looping, a time in a later (earlier) loop than `from_secs` has the
    /// seam's jump added (taken away) once per loop between them, so the motion from
    /// `from_secs` on continues past the seam as the clip moves elsewhere (a travelling root
    /// carries on, a last key that misses the first does not pop); at `from_secs ==
    /// layer.time_secs` it is the clip as played.
    fn sample(&mut self, layer: &Layer, from_secs: f32, out: &mut SoaPose) {
        let index = layer.clip.index();
        let (Some(clip), Some(cursor)) = (self.model.clips.get(index), self.cursors.get_mut(index)) else {
            out.copy_from(self.rest);
            return;
        };
        if !self.covers_pose.get(index).copied().unwrap_or(false) {
            out.copy_from(self.rest);
        }
        let secs = clip.end_secs();
        let time = wrap_time(secs, self.looping, layer.time_secs);
        clip.sample(time, cursor, self.settings, out);
        if self.looping && secs > 0.0 {
            let loops = (layer.time_secs / secs).floor() - (from_secs / secs).floor();
            if let Some(jump) = self.seam_jumps.get(index)
                && loops.is_finite()
                && loops != 0.0
            {
                jump.apply_to(out, loops);
            }
        }
    }
}

/// Each clip sampled once at [`FACT_HZ`]: per node the fastest rates any clip shows (over its
/// steps, the loop seam excluded) and the furthest any clip moves it from its first pose, and per clip the jump at its loop seam — the seam's step from
/// the last pose back to the first, kept only for the components (a node's translation,
/// rotation or scale, a weight) that move faster there than in any step of the clip (with a
/// little slack for rounding): a travelling root, or a clip whose last key does not meet its
/// first.
fn clip_motion_facts(model: &Model, rest: &SoaPose, covers_pose: &[bool]) -> (PoseDelta, PoseDelta, Vec<PoseDelta>) {
    let settings = SampleSettings::default();
    let mut limits = PoseDelta::zeros_like(rest);
    let mut reach = limits.clone();
    let mut first = rest.clone();
    let mut clip_limits = limits.clone();
    let mut step = limits.clone();
    let (mut a, mut b) = (rest.clone(), rest.clone());
    let mut jumps = Vec::with_capacity(model.clips.len());
    for (index, clip) in model.clips.iter().enumerate() {
        let mut jump = PoseDelta::zeros_like(rest);
        let secs = clip.end_secs();
        let samples = (secs * FACT_HZ).ceil();
        if !(secs.is_finite() && samples >= 1.0) {
            // A pose, or nothing: no motion, and no seam to jump.
            jumps.push(jump);
            continue;
        }
        let samples = (samples as usize).min(MAX_FACT_SAMPLES);
        let dt = secs / samples as f32;
        let mut cursor = ClipCursor::new(clip);
        let covers = covers_pose.get(index).copied().unwrap_or(false);
        let mut sample = |time_secs: f32, out: &mut SoaPose| {
            if !covers {
                out.copy_from(rest);
            }
            clip.sample(time_secs, &mut cursor, &settings, out);
        };
        clip_limits.clear();
        sample(0.0, &mut a);
        first.copy_from(&a);
        for k in 1..=samples {
            sample(k as f32 * dt, &mut b);
            step.set_difference(&b, &first, 1.0);
            reach.keep_longest(&step);
            step.set_difference(&b, &a, 1.0 / dt);
            clip_limits.keep_longest(&step);
            std::mem::swap(&mut a, &mut b);
        }
        // `a` is the last pose; the seam as one more step, back to the first.
        sample(0.0, &mut b);
        step.set_difference(&b, &a, 1.0 / dt);
        let jumps_here = |x: f32, bound: f32| x > bound * 1.01 + 1e-4;
        let keep = |out: &mut [Vec3], step: &[Vec3], bound: &[Vec3]| {
            for ((o, &x), &b) in out.iter_mut().zip(step).zip(bound) {
                if jumps_here(x.length(), b.length()) {
                    // last ⊖ first = −(first ⊖ last), per second → per seam.
                    *o = -x * dt;
                }
            }
        };
        keep(&mut jump.translation, &step.translation, &clip_limits.translation);
        keep(&mut jump.rotation, &step.rotation, &clip_limits.rotation);
        keep(&mut jump.scale, &step.scale, &clip_limits.scale);
        for ((o, &x), &b) in jump.weights.iter_mut().zip(&step.weights).zip(&clip_limits.weights) {
            if jumps_here(x.abs(), b.abs()) {
                *o = -x * dt;
            }
        }
        jumps.push(jump);
        limits.keep_longest(&clip_limits);
    }
    (limits, reach, jumps)
}
