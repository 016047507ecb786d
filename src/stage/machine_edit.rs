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
                let slot = machine.states().len();
                let position = Vec2::new(200.0 * (slot % 4) as f32, 120.0 * (slot / 4) as f32);
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
                let fade = FadeTuning::default();
                machine.add_transition(StateTransition {
                    easing: fade.easing,
                    kind: fade.kind,
                    decay: fade.decay,
                    half_life_secs: fade.half_life_secs,
                    ..StateTransition::new(*from, *to, fade.duration_secs)
                });
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
                let slot = machine.states().len();
                let position = Vec2::new(200.0 * (slot % 4) as f32, 120.0 * (slot / 4) as f32);
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
        }
    }
}

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
            Self::AddEvent(event) => format!("event {}", event.name),
            Self::SetEvent(id, _) | Self::RemoveEvent(id) => format!("event {id}"),
        }
    }
}

/// One of the three states the drive keys request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriveSlot {
    /// Where releasing the keys goes (Idle).
    Rest,
    /// W held (Walk).
    Walk,
    /// Shift+W held (Run).
    Run,
}

impl DriveSlot {
    /// Every slot, in the order the section lists them.
    pub const ALL: [Self; 3] = [Self::Walk, Self::Run, Self::Rest];

    /// The words a state's name must contain one of (whole words, any case), most plain first.
    pub fn words(self) -> &'static [&'static str] {
        match self {
            Self::Rest => &["idle", "stand", "standing", "rest"],
            Self::Walk => &["walk", "walking"],
            Self::Run => &["run", "running", "jog", "jogging", "sprint", "sprinting"],
        }
    }

    /// `walk`, `run` or `rest`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Rest => "rest",
            Self::Walk => "walk",
            Self::Run => "run",
        }
    }
}

/// The user's choice of state per drive slot, by state name (`None`: found by name).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DriveTargets {
    /// Release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest: Option<String>,
    /// W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<String>,
    /// Shift+W.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

impl DriveTargets {
    /// The chosen state's name for `slot`.
    pub fn get(&self, slot: DriveSlot) -> Option<&str> {
        match slot {
            DriveSlot::Rest => self.rest.as_deref(),
            DriveSlot::Walk => self.walk.as_deref(),
            DriveSlot::Run => self.run.as_deref(),
        }
    }

    /// Choose `state` (by name) for `slot`, or `None` to find it by name again.
    pub fn set(&mut self, slot: DriveSlot, state: Option<String>) {
        match slot {
            DriveSlot::Rest => self.rest = state,
            DriveSlot::Walk => self.walk = state,
            DriveSlot::Run => self.run = state,
        }
    }

    /// No slot chosen.
    pub fn is_empty(&self) -> bool {
        DriveSlot::ALL.iter().all(|&slot| self.get(slot).is_none())
    }
}

/// How a parameter's key acts.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "effect", rename_all = "kebab-case")]
pub enum BindingEffect {
    /// A bool: true while held, false on release.
    Hold,
    /// A trigger: fired on each press.
    Fire,
    /// A float: `value` while held, its starting value on release.
    SetFloat {
        /// The value held.
        value: f32,
    },
}

impl BindingEffect {
    /// The effect that fits a parameter of `kind` (a float: held at 1, or its start + 1).
    pub fn for_kind(kind: ParamKind) -> Self {
        match kind {
            ParamKind::Float(start) => Self::SetFloat { value: if start == 1.0 { start + 1.0 } else { 1.0 } },
            ParamKind::Bool(_) => Self::Hold,
            ParamKind::Trigger => Self::Fire,
        }
    }
}

/// A parameter bound to a key, both by name (the parameter's name survives edits that
/// renumber; the key is egui's name of it, `E`, `2`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ParamBinding {
    /// The parameter.
    pub param: String,
    /// The key (no modifier), as `egui::Key::name` writes it.
    pub key: String,
    /// What the key does.
    #[serde(flatten)]
    pub effect: BindingEffect,
}

impl ParamBinding {
    /// `param` bound to the key named `key` with `effect`.
    pub fn new(param: &str, key: &str, effect: BindingEffect) -> Self {
        Self { param: param.to_owned(), key: key.to_owned(), effect }
    }
}

/// The keys that drive the machine — the states the drive keys request and the parameters'
/// key bindings — by state and parameter name: part of the tuning (saved in the profile, undone
/// with Ctrl+Z) and following renames ([`MachineEdit::RenameState`], [`MachineEdit::RenameParam`]).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MachineKeys {
    /// The states the drive keys request, when picked.
    #[serde(default, skip_serializing_if = "DriveTargets::is_empty")]
    pub drive: DriveTargets,
    /// The parameters bound to keys (one binding per key).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<ParamBinding>,
}

impl MachineKeys {
    /// Nothing picked, nothing bound.
    pub fn is_empty(&self) -> bool {
        self.drive.is_empty() && self.bindings.is_empty()
    }

    /// A state renamed `old` → `new`: the drive keys that picked it follow.
    pub fn rename_state(&mut self, old: &str, new: &str) {
        for slot in DriveSlot::ALL {
            if self.drive.get(slot) == Some(old) {
                self.drive.set(slot, Some(new.to_owned()));
            }
        }
    }

    /// A parameter renamed `old` → `new`: its bindings follow.
    pub fn rename_param(&mut self, old: &str, new: &str) {
        for binding in self.bindings.iter_mut().filter(|b| b.param == old) {
            new.clone_into(&mut binding.param);
        }
    }
}
