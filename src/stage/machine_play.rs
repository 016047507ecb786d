//! [`MachinePlay`]: what the state machine's blend-space and layered states play, through the
//! same core jobs as the Blend space and Layers sections ([`anim::BlendSpacePlayer`] phase
//! synced by the feet's markers or, with the state's sync off, on the clock;
//! [`anim::LayerStack`] with the layers' weights, additive references, masks and painted joint
//! weights resolved as [`LayerSpec`] resolves them). One player per state, built
//! when the machine's states change (allocates then); choosing, advancing and evaluating them
//! allocates nothing.

use anim::state_machine::{
    BlendSpaceMotion, LayerMotion, MachineRuntime, PaintedJoint, ParamId, ParamValue, StateId, StateMachine,
    StateMotion,
};
use anim::{BlendSpace, BlendSpacePlayer, ClipId, LayerStack, Model, PhaseSync, SampleSettings, SoaPose};
use glam::Vec2;

use super::layers::{JointWeight, LayerSpec};
use crate::transitions::Rig;

/// What one state plays beyond its primary clip.
#[derive(Debug, Clone)]
enum StatePlayer {
    /// A clip state: the transport's clip is all it shows.
    Clip,
    /// A blend space and the float parameters driving its axes.
    BlendSpace { player: Box<BlendSpacePlayer>, x_param: Option<ParamId>, y_param: Option<ParamId> },
    /// A base clip's layers (the base is the transport's clip) and their weights as the state
    /// gives them.
    Layered { stack: LayerStack, weights: Vec<f32> },
    /// A state whose motion could not be built (it plays its primary clip).
    Broken,
}

/// The players of a machine's states (see the module's documentation).
#[derive(Debug, Clone, Default)]
pub struct MachinePlay {
    /// The motions the players were built from, by state.
    built: Vec<StateMotion>,
    players: Vec<StatePlayer>,
    /// Why a state's motion could not be built (the first such state).
    error: Option<String>,
}

/// The layer spec of a layered state's layer: how the Layers section names the same layer
/// (mask and painted joint weights included, so [`LayerSpec::resolve`] weighs it).
pub fn layer_spec(layer: &LayerMotion) -> LayerSpec {
    LayerSpec {
        mask: layer.mask.clone(),
        additive: layer.additive.then_some(None),
        weight: layer.weight,
        joint_weights: layer.joint_weights.iter().map(JointWeight::from).collect(),
        ..LayerSpec::new(layer.clip.index().to_string())
    }
}

/// Paint `weight` on `joint` (alone or with its subtree) in a layered state's layer, as the
/// Layers section paints a [`LayerSpec`] ([`LayerSpec::paint`]: clamped, the newest paint of a
/// joint and reach replaces the older one).
pub fn paint_layer(layer: &mut LayerMotion, joint: String, weight: f32, subtree: bool) {
    let mut spec = layer_spec(layer);
    spec.paint(joint, weight, subtree);
    layer.joint_weights = spec.joint_weights.iter().map(PaintedJoint::from).collect();
}

/// The core's blend space of a blend-space state (1-D on x, or 2-D).
///
/// # Errors
/// Too few points, points at the same position.
pub fn blend_space_of(motion: &BlendSpaceMotion) -> Result<BlendSpace, anim::BlendSpaceError> {
    if motion.two_d {
        let points: Vec<(ClipId, Vec2)> = motion.points.iter().map(|p| (p.clip, p.position)).collect();
        BlendSpace::new_2d(&points)
    } else {
        let points: Vec<(ClipId, f32)> = motion.points.iter().map(|p| (p.clip, p.position.x)).collect();
        BlendSpace::new_1d(&points)
    }
}

impl MachinePlay {
    /// Nothing built.
    pub fn new() -> Self {
        Self::default()
    }

    /// Build the players again when `machine`'s states play something else than they were
    /// built for (no allocation otherwise). `rig` gives the blend spaces' phase markers.
    pub fn sync(&mut self, model: &Model, settings: &SampleSettings, machine: &StateMachine, rig: &mut Option<Rig>) {
        let states = machine.states();
        let same = self.built.len() == states.len() && self.built.iter().zip(states).all(|(b, s)| *b == s.motion);
        if same {
            return;
        }
        self.built = states.iter().map(|s| s.motion.clone()).collect();
        self.error = None;
        self.players = Vec::with_capacity(states.len());
        for state in states {
            let built = match &state.motion {
                StateMotion::Clip(_) => Ok(StatePlayer::Clip),
                StateMotion::BlendSpace(motion) => {
                    let rig = rig.get_or_insert_with(|| Rig::new(model));
                    build_blend_space(model, motion, rig)
                }
                StateMotion::Layered(layered) => build_layers(model, settings, &layered.layers),
            };
            let player = built.unwrap_or_else(|e| {
                self.error.get_or_insert_with(|| format!("state \"{}\": {e}", state.name));
                StatePlayer::Broken
            });
            self.players.push(player);
        }
    }

    /// Why a state plays only its primary clip (its blend space or layers could not be built).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// True when `state` plays a blend space that is built.
    pub fn is_blend_space(&self, state: StateId) -> bool {
        matches!(self.players.get(state.index()), Some(StatePlayer::BlendSpace { .. }))
    }

    /// `state`'s blend space, its parameter set from `runtime`'s floats.
    pub fn blend_space(&mut self, state: StateId, runtime: &MachineRuntime) -> Option<&BlendSpacePlayer> {
        let Some(StatePlayer::BlendSpace { player, x_param, y_param }) = self.players.get_mut(state.index()) else {
            return None;
        };
        player.set_parameter(parameter(runtime, *x_param, *y_param, player.parameter()));
        Some(player)
    }

    /// Set `player` (the fader's copy of `state`'s blend space) to the parameter `runtime`
    /// gives `state`'s axes. Nothing when `state` is not a blend space.
    pub fn drive(&self, state: StateId, runtime: &MachineRuntime, player: &mut BlendSpacePlayer) {
        if let Some(StatePlayer::BlendSpace { x_param, y_param, .. }) = self.players.get(state.index()) {
            player.set_parameter(parameter(runtime, *x_param, *y_param, player.parameter()));
        }
    }

    /// Advance `state`'s blend space by `dt_secs` of clip time (nothing for other states).
    pub fn advance(&mut self, state: StateId, dt_secs: f32) {
        if let Some(StatePlayer::BlendSpace { player, .. }) = self.players.get_mut(state.index())
            && dt_secs > 0.0
        {
            player.advance(dt_secs);
        }
    }

    /// Continue `state`'s blend space from `from`'s time (the fader's copy that played the
    /// transition into it).
    pub fn take_time_from(&mut self, state: StateId, from: &BlendSpacePlayer) {
        if let Some(StatePlayer::BlendSpace { player, .. }) = self.players.get_mut(state.index()) {
            player.copy_time_from(from);
        }
    }

    /// Write `state`'s blend space at `runtime`'s parameter into `pose`; false (`pose`
    /// untouched) when `state` plays no blend space. Allocates nothing.
    pub fn evaluate_blend_space(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        state: StateId,
        runtime: &MachineRuntime,
        pose: &mut SoaPose,
    ) -> bool {
        let Some(StatePlayer::BlendSpace { player, x_param, y_param }) = self.players.get_mut(state.index()) else {
            return false;
        };
        player.set_parameter(parameter(runtime, *x_param, *y_param, player.parameter()));
        player.evaluate(model, settings, pose);
        true
    }

    /// Apply `state`'s layers over `pose` (its base at `base_time_secs`), each at its weight
    /// times `factor` (a transition fading the state in or out). Nothing for other states.
    /// Allocates nothing.
    pub fn apply_layers(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        state: StateId,
        factor: f32,
        base_time_secs: f32,
        pose: &mut SoaPose,
    ) {
        let Some(StatePlayer::Layered { stack, weights }) = self.players.get_mut(state.index()) else { return };
        for (i, &weight) in weights.iter().enumerate() {
            stack.set_weight(i, weight * factor);
        }
        stack.apply(model, settings, base_time_secs, pose);
    }
}

/// The parameter a blend space's axes read from `runtime` (`keep`'s value for an axis without
/// a float parameter).
fn parameter(runtime: &MachineRuntime, x: Option<ParamId>, y: Option<ParamId>, keep: Vec2) -> Vec2 {
    let value = |param: Option<ParamId>, keep: f32| match param.and_then(|p| runtime.value(p)) {
        Some(ParamValue::Float(v)) if v.is_finite() => v,
        _ => keep,
    };
    Vec2::new(value(x, keep.x), value(y, keep.y))
}

/// A blend-space state's player as the Blend space section plays one: phase synced by the
/// feet's markers, or (sync off) every clip on the clock.
fn build_blend_space(model: &Model, motion: &BlendSpaceMotion, rig: &Rig) -> Result<StatePlayer, String> {
    let space = blend_space_of(motion).map_err(|e| e.to_string())?;
    let contacts: Vec<_> = space.points().iter().map(|p| rig.phase_markers(model, p.clip)).collect();
    let sync = if motion.phase_sync { PhaseSync::Phase } else { PhaseSync::None };
    let player = BlendSpacePlayer::new(model, space, sync, &contacts).map_err(|e| e.to_string())?;
    Ok(StatePlayer::BlendSpace { player: Box::new(player), x_param: motion.x_param, y_param: motion.y_param })
}

/// A layered state's layer stack, its layers resolved as the Layers section resolves them.
fn build_layers(model: &Model, settings: &SampleSettings, layers: &[LayerMotion]) -> Result<StatePlayer, String> {
    let descs =
        layers.iter().map(|l| layer_spec(l).resolve(model).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    let stack = LayerStack::new(model, settings, descs).map_err(|e| e.to_string())?;
    Ok(StatePlayer::Layered { stack, weights: layers.iter().map(|l| l.weight).collect() })
}
