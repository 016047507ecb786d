//! [`MachineEdit`]: one edit of the character's state machine, as the State machine section's
//! forms make it (add or remove a state — a clip, a blend space or a layered state —, a
//! transition, a parameter or a clip event; replace a transition's settings, a state's motion
//! or an event; rename a state or a parameter; set the entry). [`crate::stage::Stage::apply_machine_edit`] applies it to a copy
//! of the machine, refuses it when the copy does not validate (the old machine stays) and
//! otherwise stores the copy in the tuning — so it is saved in the profile and is one undo step.
//! The drive keys' picks and the parameters' key bindings ([`MachineKeys`]) are tuning too.

use anim::ClipId;
use anim::state_machine::{
    ClipEvent, EventId, ParamId, ParamKind, State, StateId, StateMachine, StateMotion, StateTransition, TransitionFrom,
    TransitionId,
};
use glam::Vec2;

use super::tuning::FadeTuning;

/// One edit of the machine.
#[derive(Debug, Clone, PartialEq)]
pub enum MachineEdit {
    /// A state playing `clip` (named as the clip, made unique with ` 2`, ` 3`…).
    AddState {
        /// The clip it plays.
        clip: ClipId,
    },
    /// Remove a state and its transitions.
    RemoveState(StateId),
    /// The state the machine starts in.
    SetEntry(StateId),
    /// A request-only transition (no condition) with the default fade.
    AddTransition {
        /// From a state or any state.
        from: TransitionFrom,
        /// Into this state.
        to: StateId,
    },
    /// Remove a transition.
    RemoveTransition(TransitionId),
    /// Replace a transition's settings (kind, duration, easing, priority, interruption, at end,
    /// conditions, ends).
    SetTransition(TransitionId, Box<StateTransition>),
    /// A parameter (a name already taken is refused by validation).
    AddParam {
        /// Its unique name.
        name: String,
        /// Kind and starting value.
        kind: ParamKind,
    },
    /// Remove a parameter and the conditions on it.
    RemoveParam(ParamId),
    /// A state playing a blend space or a layered clip (a clip state: [`Self::AddState`]).
    AddMotionState {
        /// Its unique name.
        name: String,
        /// What it plays.
        motion: StateMotion,
    },
    /// Replace what a state plays (a blend space's points and parameter, a layered state's
    /// base and layers).
    SetMotion(StateId, StateMotion),
    /// Rename a state (transitions refer to it by id; the drive keys that picked it follow).
    RenameState(StateId, String),
    /// Rename a parameter (conditions refer to it by id; its key bindings follow).
    RenameParam(ParamId, String),
    /// A clip event: `name` on `clip` at `time_secs`.
    AddEvent(ClipEvent),
    /// Replace an event's clip, name or time (the conditions on it follow).
    SetEvent(EventId, ClipEvent),
    /// Remove an event and the conditions on it.
    RemoveEvent(EventId),
    /// Move states in the graph (one drag: every node it moved), positions in graph pixels.
    PlaceStates(Vec<(StateId, Vec2)>),
}

impl MachineEdit {
    /// Apply the edit to `machine`; `clip_names` are the model's state names per clip
    /// ([`super::machine::state_names`]). False when the edit names something that does not
    /// exist.
    pub fn apply(&self, machine: &mut StateMachine, clip_names: &[String]) -> bool {
        match self {
            Self::AddState { clip } => {
                let Some(base) = clip_names.get(clip.index()) else { return false };
                let taken = |n: &str| machine.states().iter().any(|s| s.name == n);
                let name = (1..)
                    .map(|i| if i == 1 { base.clone() } else { format!("{base} {i}") })
                    .find(|n| !taken(n))
                    .unwrap_or_else(|| base.clone());
                let position = free_position(machine);
                machine.add_state(State { name, motion: StateMotion::Clip(*clip), position });
                true
            }
            Self::RemoveState(id) => machine.remove_state(*id),
            Self::SetEntry(id) => {
                let exists = machine.state(*id).is_some();
                if exists {
                    machine.set_entry(*id);
                }
                exists
            }
            Self::AddTransition { from, to } => {
                machine.add_transition(FadeTuning::default().to_transition(*from, *to));
                true
            }
            Self::RemoveTransition(id) => machine.remove_transition(*id),
            Self::SetTransition(id, edited) => match machine.transition_mut(*id) {
                Some(t) => {
                    edited.as_ref().clone_into(t);
                    true
                }
                None => false,
            },
            Self::AddParam { name, kind } => {
                machine.add_param(name, *kind);
                true
            }
            Self::RemoveParam(id) => machine.remove_param(*id),
            Self::AddMotionState { name, motion } => {
                let position = free_position(machine);
                machine.add_state(State { name: name.clone(), motion: motion.clone(), position });
                true
            }
            Self::SetMotion(id, motion) => machine.set_motion(*id, motion.clone()),
            Self::RenameState(id, name) => machine.rename_state(*id, name),
            Self::RenameParam(id, name) => machine.rename_param(*id, name),
            Self::AddEvent(event) => {
                machine.add_event(event.clip, &event.name, event.time_secs);
                true
            }
            Self::SetEvent(id, event) => machine.set_event(*id, event.clone()),
            Self::RemoveEvent(id) => machine.remove_event(*id),
            Self::PlaceStates(moves) => {
                let exist = moves.iter().all(|(id, _)| machine.state(*id).is_some());
                for &(id, position) in moves.iter().filter(|_| exist) {
                    machine.set_position(id, position);
                }
                exist
            }
        }
    }
}

/// Where a new state goes in the graph: right of the rightmost state, level with the highest
/// (the origin in an empty machine).
fn free_position(machine: &StateMachine) -> Vec2 {
    let states = machine.states();
    let right = states.iter().map(|s| s.position.x).fold(f32::NEG_INFINITY, f32::max);
    let top = states.iter().map(|s| s.position.y).fold(f32::INFINITY, f32::min);
    if states.is_empty() { Vec2::ZERO } else { Vec2::new(right + NEW_STATE_GAP_PX, top) }
}

/// How far right of the rightmost state a new state is placed, graph pixels.
const NEW_STATE_GAP_PX: f32 = 220.0;

/// Why a [`MachineEdit`] was not applied.
#[derive(Debug, thiserror::Error)]
pub enum MachineEditError {
    /// The edit names a state, transition or parameter the machine does not have.
    #[error("{0} does not exist")]
    Missing(String),
    /// The edited machine does not validate (the old one stays).
    #[error("the machine would not be valid: {0}")]
    Invalid(#[from] anim::state_machine::StateMachineError),
}

impl MachineEdit {
    /// What the edit names, for messages (`state 3`, `transition 2`, `parameter 1`, `clip 7`).
    pub fn target(&self) -> String {
        match self {
            Self::AddState { clip } => format!("clip {clip}"),
            Self::RemoveState(id)
            | Self::SetEntry(id)
            | Self::AddTransition { to: id, .. }
            | Self::SetMotion(id, _)
            | Self::RenameState(id, _) => format!("state {id}"),
            Self::RemoveTransition(id) | Self::SetTransition(id, _) => format!("transition {id}"),
            Self::AddParam { name, .. } | Self::AddMotionState { name, .. } => name.clone(),
            Self::RemoveParam(id) | Self::RenameParam(id, _) => format!("parameter {id}"),
            Self::PlaceStates(moves) => moves.first().map_or_else(String::new, |(id, _)| format!("state {id}")),
            Self::AddEvent(event) => format!("event {}", event.name),
            Self::SetEvent(id, _) | Self::RemoveEvent(id) => format!("event {id}"),
        }
    }
}

pub use super::machine_keys::{BindingEffect, DriveSlot, DriveTargets, MachineKeys, ParamBinding};
