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
//!
//! [`CrossFader`] is a coordinator over jobs, each in its own file with plain inputs and
//! outputs: `layers` (the layer stack: clips, fades, playback rates, weights), `fade` (the eased
//! cross-fade that blends the stack), `dead_blend` (the frozen pose's bounded extrapolation),
//! `inertial` (inertialization's decaying offsets), `root` (root motion) and `clips` (what the
//! clips do, measured once, and the one job that samples a layer).

mod clips;
mod dead_blend;
mod fade;
mod inertial;
mod layers;
mod root;

use glam::Vec3;

use crate::blend_space::BlendSpacePlayer;
use crate::ids::ClipId;
use crate::interp::{Easing, OffsetDecay, decayed_travel, impl_from_name};
use crate::model::Model;
use crate::pose::{PoseDelta, SoaPose};
use crate::sample::SampleSettings;

pub use clips::clip_covers_pose;
use clips::{ClipSampler, wrap_time};
use dead_blend::DeadBlend;
use fade::{CrossFade, FadeInput};
use inertial::{Inertialization, OffsetInput};
pub use layers::{Layer, LayerSource};
use layers::{LayerStack, playback_rates};
use root::{RootBlend, RootState};
pub use root::{RootMotion, root_motion_node};

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

impl_from_name!(TransitionKind);

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

/// The poses the fader has shown: the last output and the two before it, with the time between
/// them (what a velocity is measured from when nothing can be sampled).
#[derive(Debug, Clone)]
struct ShownFrames {
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
}

impl ShownFrames {
    fn new(rest: &SoaPose) -> Self {
        Self {
            output: rest.clone(),
            previous: rest.clone(),
            previous_dt_secs: 0.0,
            previous2: rest.clone(),
            previous2_dt_secs: 0.0,
            pending_dt_secs: 0.0,
            evaluated: false,
        }
    }

    /// Before a new evaluation: the output becomes the previous frame (when time passed since
    /// it); returns the time passed. The three poses rotate (no copy): the output is left
    /// holding the oldest frame, which the evaluation that follows overwrites whole.
    fn roll(&mut self) -> f32 {
        let dt = self.pending_dt_secs;
        if dt > 0.0 && self.evaluated {
            std::mem::swap(&mut self.previous2, &mut self.previous);
            self.previous2_dt_secs = self.previous_dt_secs;
            std::mem::swap(&mut self.previous, &mut self.output);
            self.previous_dt_secs = dt;
        }
        self.pending_dt_secs = 0.0;
        dt
    }

    /// Nothing shown of the playback now starting.
    fn restart(&mut self) {
        self.evaluated = false;
        self.previous_dt_secs = 0.0;
        self.previous2_dt_secs = 0.0;
    }

    /// Time step of the rates measured at a trigger: the last frame's time (what the next frame
    /// is likely to advance), within 1/480–1/15 s; 1/60 s before any frame was shown.
    fn frame_secs(&self) -> f32 {
        let dt = self.previous_dt_secs;
        if self.evaluated && dt.is_finite() && dt > 0.0 {
            dt.clamp(MIN_FRAME_SECS, MAX_FRAME_SECS)
        } else {
            DEFAULT_FRAME_SECS
        }
    }

    /// The output's velocity and acceleration now into `m`: second-order backward differences of
    /// the last three evaluated frames (velocity alone from two; zero from one).
    fn measure_velocity(&self, m: &mut TriggerMotion) {
        m.velocity.clear();
        m.acceleration.clear();
        let dt1 = self.previous_dt_secs;
        if !self.evaluated || dt1 < MIN_VELOCITY_DT_SECS {
            return;
        }
        m.step_a.set_difference(&self.output, &self.previous, 1.0 / dt1);
        m.velocity.copy_from(&m.step_a);
        let dt0 = self.previous2_dt_secs;
        if dt0 >= MIN_VELOCITY_DT_SECS {
            // a = (v₁ − v₀) / ((dt₀ + dt₁) / 2); the velocity now is v₁ + a · dt₁ / 2.
            m.step_b.set_difference(&self.previous, &self.previous2, 1.0 / dt0);
            let mid = 0.5 * (dt0 + dt1);
            m.acceleration.set_combination(&m.step_a, 1.0 / mid, &m.step_b, -1.0 / mid);
            m.velocity.add_scaled(&m.acceleration, 0.5 * dt1);
        }
    }
}

/// The motion measured at a trigger: the output without its offsets (`base`) and its velocity
/// and acceleration, with the poses sampled ahead and the frame-to-frame steps as scratch.
#[derive(Debug, Clone)]
struct TriggerMotion {
    base: SoaPose,
    /// Scratch: the stack or the target sampled now, one and two steps on.
    poses: [SoaPose; 3],
    velocity: PoseDelta,
    acceleration: PoseDelta,
    /// The first step's mean velocity, and scratch.
    step_a: PoseDelta,
    step_b: PoseDelta,
}

/// The cross-fade's input: `stack`'s layers at `rates` over `dead_blend`'s extrapolation — the
/// one place a layer evaluation is set up.
fn fade_input<'a>(
    stack: &'a LayerStack,
    dead_blend: &'a DeadBlend,
    looping: bool,
    model: &'a Model,
    settings: &'a SampleSettings,
    rates: &'a [f32],
) -> FadeInput<'a> {
    FadeInput { model, settings, looping, layers: stack.layers(), rates, under: dead_blend.extrapolation() }
}

/// Plays one clip at a time and transitions to another on request (cross-fade, inertialization,
/// dead blending). Time-based (weights change per second, never per frame); per-frame calls
/// ([`Self::advance`], [`Self::evaluate`], [`Self::trigger`], [`Self::transition`]) allocate
/// nothing. A coordinator over jobs: the layer stack, the eased cross-fade that blends it, dead
/// blending's extrapolation under it, inertialization's offsets over it, and root motion.
#[derive(Debug, Clone)]
pub struct CrossFader {
    /// The clips playing with their fades.
    stack: LayerStack,
    /// The clips' facts and cursors: the one sampling job.
    sampler: ClipSampler,
    /// The eased cross-fade job (the stack blended).
    fade: CrossFade,
    /// The frozen, extrapolated pose under the stack (dead blending, or a stack overflow).
    dead_blend: DeadBlend,
    /// The decaying offsets over the stack (inertialization).
    inertial: Inertialization,
    /// Root motion, when on.
    root: Option<RootState>,
    /// What has been shown.
    shown: ShownFrames,
    /// Scratch: the motion at a trigger.
    motion: TriggerMotion,
    /// Wrap clip times (true) or hold the last frame (false).
    pub looping: bool,
}

impl CrossFader {
    /// A fader playing `clip` of `model` from time 0, at full weight.
    pub fn new(model: &Model, clip: ClipId) -> Self {
        let (sampler, limits) = ClipSampler::new(model);
        let rest = &sampler.rest;
        let zeros = PoseDelta::zeros_like(rest);
        Self {
            stack: LayerStack::new(clip),
            fade: CrossFade::new(rest),
            dead_blend: DeadBlend::new(rest, limits, DEFAULT_HALF_LIFE_SECS),
            inertial: Inertialization::new(&zeros),
            root: None,
            shown: ShownFrames::new(rest),
            motion: TriggerMotion {
                base: rest.clone(),
                poses: [rest.clone(), rest.clone(), rest.clone()],
                velocity: zeros.clone(),
                acceleration: zeros.clone(),
                step_a: zeros.clone(),
                step_b: zeros,
            },
            sampler,
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
        let top = self.stack.layers().last().map(|l| (l.clip, self.wrap(l.clip, l.time_secs)));
        self.root = RootState::new(model, &self.sampler.rest, mode, top);
    }

    /// Root motion, when on: mode, root node, anchor and character offset.
    pub fn root_motion(&self) -> Option<(RootMotion, crate::NodeId)> {
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
        self.push_fade(None, (to_clip, LayerSource::Clip), &Transition::cross_fade(duration_secs, easing));
    }

    /// Start `transition` to `to_clip` (from its `start_secs`). Works at any moment, including
    /// mid-transition of any kind and several times per frame: dead blending and
    /// inertialization start from the pose last evaluated (call it after [`Self::evaluate`]),
    /// with the motion it is about to make: the playing clips (and any extrapolation and decaying
    /// offsets) sampled one and two frame times ahead ([`Self::frame_secs`]; behind instead where
    /// a clip would cross a loop seam that jumps). `model` and `settings` sample them and the
    /// target's first poses.
    pub fn transition(&mut self, model: &Model, settings: &SampleSettings, to_clip: ClipId, transition: &Transition) {
        self.transition_to(model, settings, (to_clip, LayerSource::Clip), transition);
    }

    /// Start `transition` to the blend space ([`Self::set_blend_space`]) at its parameter and
    /// its own phase, as [`Self::transition`] starts one to a clip (the transition's
    /// `start_secs` and speed matching do not apply). Without a blend space, nothing happens.
    pub fn transition_to_blend_space(&mut self, model: &Model, settings: &SampleSettings, transition: &Transition) {
        let Some(clip) = self.sampler.blend_space.as_ref().map(BlendSpacePlayer::heaviest_clip) else { return };
        let transition = Transition { start_secs: 0.0, match_cycle_secs: 0.0, ..*transition };
        self.transition_to(model, settings, (clip, LayerSource::BlendSpace), &transition);
    }

    /// The blend space a [`LayerSource::BlendSpace`] layer plays (`None`: none). Its parameter
    /// and phase are the caller's to set; [`Self::advance`] advances it while a layer plays
    /// it. Allocates nothing (the player was built by the caller).
    pub fn set_blend_space(&mut self, player: Option<BlendSpacePlayer>) {
        self.sampler.blend_space = player;
    }

    /// The blend space set, if any.
    pub fn blend_space(&self) -> Option<&BlendSpacePlayer> {
        self.sampler.blend_space.as_ref()
    }

    /// The blend space set, to move its parameter.
    pub fn blend_space_mut(&mut self) -> Option<&mut BlendSpacePlayer> {
        self.sampler.blend_space.as_mut()
    }

    /// True when the top layer (what the fader fades to, or plays) is the blend space.
    pub fn plays_blend_space(&self) -> bool {
        self.stack.layers().last().is_some_and(|l| l.source == LayerSource::BlendSpace)
    }

    /// Play the blend space alone with no fade (as [`Self::play`] plays a clip): the source of
    /// a transition from it. Without a blend space, nothing happens.
    pub fn play_blend_space(&mut self) {
        let Some(clip) = self.sampler.blend_space.as_ref().map(BlendSpacePlayer::heaviest_clip) else { return };
        self.play(clip, 0.0);
        if let Some(layer) = self.stack.layers_mut().last_mut() {
            layer.source = LayerSource::BlendSpace;
        }
    }

    /// [`Self::transition`] to a clip or the blend space (`to`: the layer's clip and source).
    fn transition_to(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        to: (ClipId, LayerSource),
        transition: &Transition,
    ) {
        let duration = sanitize(transition.duration_secs);
        match transition.kind {
            TransitionKind::CrossFade => self.push_fade(Some((model, settings)), to, transition),
            _ if !self.shown.evaluated || duration == 0.0 => {
                // Nothing shown yet (or a cut): a plain fade (a switch at 0 s).
                self.push_fade(Some((model, settings)), to, transition);
            }
            TransitionKind::DeadBlend => {
                self.shown_velocity(model, settings);
                // The velocity whose decayed extrapolation covers the next frame as the source
                // would have (the mean velocity over it, raised for the decay within it).
                let h = self.frame_secs();
                let travel = decayed_travel(h, transition.half_life_secs);
                if travel > 0.0 {
                    self.motion.velocity.scale(h / travel);
                }
                let root_velocity = self.root_velocity_ahead(model, settings, self.frame_secs());
                self.freeze_output(transition.half_life_secs, root_velocity);
                self.stack.clear();
                self.stack.push(target_layer(to, transition, duration));
            }
            TransitionKind::Inertialize => self.inertialize(model, settings, to, transition, duration),
        }
    }

    /// Cross-fade: a layer over the stack (freezing the output first when the stack is full, its
    /// velocity sampled with `sampling` when given, else from the last evaluated frames).
    fn push_fade(
        &mut self,
        sampling: Option<(&Model, &SampleSettings)>,
        to: (ClipId, LayerSource),
        transition: &Transition,
    ) {
        let duration = sanitize(transition.duration_secs);
        if self.stack.is_full() {
            // Freeze what is on screen now and let it coast out under the new layer.
            let root_velocity = match sampling {
                Some((model, settings)) if self.shown.evaluated => {
                    self.shown_velocity(model, settings);
                    self.root_velocity_ahead(model, settings, self.frame_secs())
                }
                _ => {
                    self.shown.measure_velocity(&mut self.motion);
                    None
                }
            };
            self.freeze_output(DEFAULT_HALF_LIFE_SECS, root_velocity);
            self.stack.clear();
        }
        self.stack.push(target_layer(to, transition, duration));
    }

    /// Freeze the shown pose with its velocity (the trigger motion's, see
    /// [`Self::shown_velocity`]) into the dead blend's snapshot, extrapolated with the velocity
    /// decaying by `half_life_secs`. The inertialization offsets are part of the shown pose, so
    /// they end here. `root_velocity` is the root's horizontal velocity ahead (`None`: the last
    /// frame's).
    fn freeze_output(&mut self, half_life_secs: f32, root_velocity: Option<Vec3>) {
        self.dead_blend.freeze(&self.shown.output, &mut self.motion.velocity, half_life_secs);
        self.inertial.clear();
        if let Some(root) = &mut self.root {
            root.snapshot_velocity = root_velocity.unwrap_or(root.velocity);
            root.inertial_velocity = Vec3::ZERO;
        }
    }

    /// Time step of the rates measured at a trigger: the last frame's time (what the next frame
    /// is likely to advance), within 1/480–1/15 s; 1/60 s before any frame was shown.
    pub fn frame_secs(&self) -> f32 {
        self.shown.frame_secs()
    }

    /// The output without its offsets (the layers over the extrapolated snapshot) into the
    /// trigger motion's `base`, and its motion over the next two steps of `h` seconds (every clip
    /// at its playback rate): its `velocity` and `acceleration` as [`rates_at_start`] gives them
    /// (a second-order pair that reproduces the first step exactly), `step_a` the first step's
    /// mean velocity. Exact motion, never the output's finite differences, so re-triggering
    /// cannot feed back into itself. A clip that loops within the two steps continues past its
    /// seam without the seam's jump ([`ClipSampler::sample`]).
    fn stack_rates(&mut self, model: &Model, settings: &SampleSettings, h: f32) {
        let rates = playback_rates(self.stack.layers(), self.sampler.clip_secs());
        let input = fade_input(&self.stack, &self.dead_blend, self.looping, model, settings, &rates);
        let TriggerMotion { base, poses: [_, ahead, ahead2], velocity, acceleration, step_a, step_b } =
            &mut self.motion;
        self.fade.blend(&mut self.sampler, &input, 0.0, base);
        self.fade.blend(&mut self.sampler, &input, h, ahead);
        self.fade.blend(&mut self.sampler, &input, 2.0 * h, ahead2);
        rates_at_start(1.0, h, [base, ahead, ahead2], [step_a, step_b], velocity, acceleration);
    }

    /// The shown pose's velocity into the trigger motion's `velocity`: the mean velocity of the
    /// stack's next frame ([`Self::stack_rates`] over [`Self::frame_secs`]) with the live offsets'
    /// velocity on top ([`Inertialization::shown_velocity`]).
    fn shown_velocity(&mut self, model: &Model, settings: &SampleSettings) {
        self.stack_rates(model, settings, self.frame_secs());
        self.motion.velocity.copy_from(&self.motion.step_a);
        self.inertial.shown_velocity(&mut self.motion.velocity);
    }

    /// The shown root's horizontal velocity over the next `h` seconds, as [`Self::evaluate`]
    /// would accumulate it ([`RootState::velocity_ahead`]); `None` without root motion or for a
    /// non-positive `h`.
    fn root_velocity_ahead(&self, model: &Model, settings: &SampleSettings, h: f32) -> Option<Vec3> {
        let root = self.root.as_ref()?;
        let mut weights = [0.0; MAX_LAYERS];
        let snapshot_weight = self.weights(&mut weights);
        let rates = playback_rates(self.stack.layers(), self.sampler.clip_secs());
        let blend = RootBlend {
            model,
            settings,
            looping: self.looping,
            clip_secs: self.sampler.clip_secs(),
            weights: &weights,
            snapshot_weight,
            inertial_weight: self.inertial_weight(),
        };
        root.velocity_ahead(&blend, self.stack.layers(), &rates, h)
    }

    /// Switch to `to_clip` at once and add an offset for the change of target, decaying to zero.
    fn inertialize(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        to: (ClipId, LayerSource),
        transition: &Transition,
        duration: f32,
    ) {
        self.inertial.make_room();
        // The output without the offsets (the layers and snapshot: what the new target
        // replaces) and its motion over the next two frames; the root's likewise.
        let h = self.frame_secs();
        self.stack_rates(model, settings, h);
        let root_velocity = self.root_velocity_ahead(model, settings, h);

        // The target's layer, and its motion over its first two frames likewise (at its starting
        // playback rate, which speed matching lowers or raises; past its seam without the seam's
        // jump).
        let target = Layer {
            match_duration_secs: duration,
            ..target_layer(to, &Transition { easing: Easing::Linear, ..*transition }, 0.0)
        };
        let rate = playback_rates(std::slice::from_ref(&target), self.sampler.clip_secs())[0];
        let start = target.time_secs;
        let TriggerMotion { base, poses, velocity, acceleration, step_a, step_b } = &mut self.motion;
        for (k, pose) in poses.iter_mut().enumerate() {
            let at = Layer { time_secs: start + k as f32 * h * rate, ..target };
            self.sampler.sample(model, settings, self.looping, &at, start, pose);
        }
        let [p0, p1, p2] = &*poses;
        let input = OffsetInput {
            base,
            base_rates: [velocity, acceleration],
            target: [p0, p1, p2],
            h,
            duration_secs: duration,
            decay: transition.decay,
            root: self.root.as_ref(),
        };
        self.inertial.start(&input, [step_a, step_b]);
        if let Some(root) = &mut self.root {
            root.inertial_velocity = root_velocity.unwrap_or(root.velocity);
        }
        self.dead_blend.stop();
        self.stack.clear();
        self.stack.push(target);
    }

    /// Jump to `clip` at `time_secs` with no fade (the character offset stays).
    pub fn play(&mut self, clip: ClipId, time_secs: f32) {
        self.stack.clear();
        self.dead_blend.stop();
        self.inertial.clear();
        self.shown.restart();
        self.stack.push(Layer::new(clip, time_secs, 0.0, Easing::Linear));
        if let Some(root) = &mut self.root {
            root.velocity = Vec3::ZERO;
        }
    }

    /// `time_secs` wrapped (looping) or clamped into `clip`.
    fn wrap(&self, clip: ClipId, time_secs: f32) -> f32 {
        wrap_time(self.sampler.secs(clip), self.looping, time_secs)
    }

    /// Advance every layer's clip and fade by `dt_secs`, then drop layers that a completed fade
    /// covers. A speed-matched layer plays at the source's cycle rate at first and at its own
    /// by the end of its transition (a cross-fade's source beneath it too, so both stay in
    /// phase).
    pub fn advance(&mut self, dt_secs: f32) {
        let dt = if dt_secs.is_finite() { dt_secs.max(0.0) } else { 0.0 };
        self.stack.advance(dt, self.sampler.clip_secs());
        if let Some(player) = &mut self.sampler.blend_space
            && self.stack.layers().iter().any(|l| l.source == LayerSource::BlendSpace)
        {
            player.advance(dt);
        }
        self.dead_blend.advance(dt);
        self.inertial.advance(dt);
        self.shown.pending_dt_secs += dt;
        if self.stack.drop_covered(self.dead_blend.is_active()) {
            self.dead_blend.stop();
        }
    }

    /// The clip being faded to (or playing alone).
    pub fn current_clip(&self) -> ClipId {
        self.stack.layers().last().map_or(ClipId::from_index(0), |l| l.clip)
    }

    /// Playback time of the current clip.
    pub fn current_time_secs(&self) -> f32 {
        self.stack.layers().last().map_or(0.0, |l| l.time_secs)
    }

    /// True while more than one source contributes (or an inertialization offset decays).
    pub fn is_fading(&self) -> bool {
        self.stack.layers().len() > 1 || self.dead_blend.is_active() || self.inertial.is_active()
    }

    /// Live layers, oldest first.
    pub fn layers(&self) -> &[Layer] {
        self.stack.layers()
    }

    /// Effective weight of each live layer (oldest first) and of the frozen snapshot; they sum
    /// to 1. (An inertialization's offset is on top of these: [`Self::inertial_weight`].)
    pub fn weights(&self, out: &mut [f32; MAX_LAYERS]) -> f32 {
        self.stack.weights(self.dead_blend.is_active(), out)
    }

    /// How much of the pose before the last inertialization is still in the output, in `[0, 1]`:
    /// the decay curve's value basis (1 at the trigger, 0 at the end; 0 when none runs).
    pub fn inertial_weight(&self) -> f32 {
        self.inertial.weight()
    }

    /// Weight of the current (top) layer's clip in the output, in `[0, 1]`: its fade weight, less
    /// what an inertialization offset still carries of the pose before it.
    pub fn target_weight(&self) -> f32 {
        let mut w = [0.0; MAX_LAYERS];
        self.weights(&mut w);
        let top = self.stack.layers().len().checked_sub(1).map_or(1.0, |i| w[i]);
        top * (1.0 - self.inertial_weight())
    }

    /// Evaluate the pose at the current time: the snapshot extrapolated, every layer sampled with
    /// `settings` ([`crate::Clip::sample`]) and blended over the ones beneath ([`crate::blend_into`],
    /// in `settings.scale_space`), an inertialization offset added, root motion applied.
    /// Allocates nothing.
    pub fn evaluate(&mut self, model: &Model, settings: &SampleSettings) -> &SoaPose {
        let dt = self.shown.roll();
        self.update_root_offset(model, settings, dt);
        let input = fade_input(&self.stack, &self.dead_blend, self.looping, model, settings, &[]);
        self.fade.blend(&mut self.sampler, &input, 0.0, &mut self.shown.output);
        self.inertial.apply(&mut self.shown.output);
        if let Some(root) = &self.root {
            root.place(&mut self.shown.output);
        }
        self.shown.evaluated = true;
        &self.shown.output
    }

    /// Accumulate the sources' root velocities over the last `dt_secs` into the character offset.
    fn update_root_offset(&mut self, model: &Model, settings: &SampleSettings, dt_secs: f32) {
        if self.root.is_none() {
            return;
        }
        let mut weights = [0.0; MAX_LAYERS];
        let snapshot_weight = self.weights(&mut weights);
        let inertial_weight = self.inertial_weight();
        let Some(root) = &mut self.root else { return };
        let blend = RootBlend {
            model,
            settings,
            looping: self.looping,
            clip_secs: self.sampler.clip_secs(),
            weights: &weights,
            snapshot_weight,
            inertial_weight,
        };
        root.accumulate(&blend, self.stack.layers_mut(), dt_secs, MIN_VELOCITY_DT_SECS);
    }

    /// The pose computed by the last [`Self::evaluate`] (the rest pose before the first).
    pub fn output(&self) -> &SoaPose {
        &self.shown.output
    }
}

/// Velocity and acceleration at the first of three poses `h` apart (`sign` +1: later, −1:
/// earlier), second order: `v = (3e₁ − e₂)/2`, `a = ±(e₂ − e₁)/h` with `e₁`, `e₂` the two steps
/// (later ⊖ earlier) as rates.
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

/// The first layer of `transition` to `to` (a clip, or the blend space with its heaviest clip).
fn target_layer((clip, source): (ClipId, LayerSource), transition: &Transition, duration_secs: f32) -> Layer {
    Layer { source, ..Layer::of_transition(clip, transition, duration_secs) }
}

/// A duration made safe: finite and not negative (else 0).
fn sanitize(duration_secs: f32) -> f32 {
    if duration_secs.is_finite() { duration_secs.max(0.0) } else { 0.0 }
}
