//! The character's state machine: states that play a clip, a blend space or a layered clip;
//! parameters (floats, bools, triggers); transitions between states with the core's transition
//! kinds, conditions, "at end" exits, priorities and interruption rules (Unity's interruption
//! source, Godot's switch modes); clip events (named markers on a clip's timeline that fire when
//! crossed and can be conditions).
//!
//! This file is the data model and its validation; [`MachineRuntime`] (`runtime.rs`) is the
//! per-frame job that runs a machine; `godot.rs` and `bevy.rs` write (and, for Godot, read back)
//! the engines' files.

mod bevy;
mod godot;
mod godot_import;
mod runtime;
mod validate;

use glam::Vec2;

use crate::crossfade::{DEFAULT_HALF_LIFE_SECS, TransitionKind};
use crate::ids::ClipId;
use crate::interp::{Easing, OffsetDecay};

pub use bevy::{
    BEVY_MASK_GROUPS, BEVY_MASK_ON_WEIGHT, BevyExport, BevyLayerMask, BevyMasks, Engine, engine_limitations,
    export_bevy,
};
pub use godot::{FILTER_THRESHOLD, GodotBone, GodotError, export_godot, export_godot_with_bones, godot_bone_paths};
pub use godot_import::import_godot;
pub use runtime::{ActiveTransition, FiredEvent, MachineRuntime, ParamValue, RuntimeError, StepOutput};
pub use validate::StateMachineError;

macro_rules! machine_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(u32);

        impl $name {
            /// The id at `index` in its collection.
            pub const fn new(index: u32) -> Self {
                Self(index)
            }

            /// The position in its collection.
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            fn from_len(len: usize) -> Self {
                Self(u32::try_from(len).unwrap_or(u32::MAX))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}", self.0)
            }
        }
    };
}

machine_id!(
    /// A state of a [`StateMachine`] (`StateMachine::state`).
    StateId
);
machine_id!(
    /// A parameter of a [`StateMachine`] (`StateMachine::param`).
    ParamId
);
machine_id!(
    /// A transition of a [`StateMachine`] (`StateMachine::transition`).
    TransitionId
);
machine_id!(
    /// A clip event of a [`StateMachine`] (`StateMachine::event`).
    EventId
);

/// What a state plays.
#[derive(Debug, Clone, PartialEq)]
pub enum StateMotion {
    /// One clip, looped.
    Clip(ClipId),
    /// A blend space (the stage's `BlendSpaceTuning`, by name) with its clips at their positions.
    BlendSpace(BlendSpaceMotion),
    /// A base clip with layers over it (the stage's layer stack).
    Layered(LayeredMotion),
}

impl StateMotion {
    /// The clip whose timeline the state's time, end and events follow: the clip itself, a
    /// blend space's first point, a layered state's base (`None` for an empty blend space).
    pub fn primary_clip(&self) -> Option<ClipId> {
        match self {
            Self::Clip(clip) => Some(*clip),
            Self::BlendSpace(space) => space.points.first().map(|p| p.clip),
            Self::Layered(layered) => Some(layered.base),
        }
    }
}

/// A blend space played as a state.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendSpaceMotion {
    /// The blend space's name (as the stage's tuning names it).
    pub name: String,
    /// Two axes (x, y) or one (x; `y` of every point unused).
    pub two_d: bool,
    /// The clips at their parameter values.
    pub points: Vec<BlendSpacePoint>,
    /// The float parameter driving x, if any.
    pub x_param: Option<ParamId>,
    /// The float parameter driving y (2D), if any.
    pub y_param: Option<ParamId>,
    /// One shared phase (by the feet's contact markers, else normalized time), as the stage's
    /// Blend space section plays with phase sync on; false: every clip on the same clock,
    /// looped to its length (the section's phase sync off).
    pub phase_sync: bool,
}

/// One clip of a blend space at its position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlendSpacePoint {
    /// The clip.
    pub clip: ClipId,
    /// Its parameter values (`y` unused in 1D).
    pub position: Vec2,
}

/// A base clip with layers over it.
#[derive(Debug, Clone, PartialEq)]
pub struct LayeredMotion {
    /// The clip underneath.
    pub base: ClipId,
    /// The layers, applied in order.
    pub layers: Vec<LayerMotion>,
}

/// One layer of a [`LayeredMotion`].
#[derive(Debug, Clone, PartialEq)]
pub struct LayerMotion {
    /// The layer's clip.
    pub clip: ClipId,
    /// Its weight, 0–1.
    pub weight: f32,
    /// Added to the base (else it overrides the base where its mask weighs).
    pub additive: bool,
    /// Joints (by name) whose subtrees the layer covers, or anatomy regions (`upper-body`…), as
    /// the stage's layers name them; empty: the whole body.
    pub mask: Vec<String>,
    /// Weights painted per joint over the mask, applied in order after it (an empty mask
    /// starts from the whole body at 1): the stage's `LayerSpec::joint_weights`.
    pub joint_weights: Vec<PaintedJoint>,
}

impl LayerMotion {
    /// A whole-body override layer of `clip` at `weight`, nothing painted.
    pub fn new(clip: ClipId, weight: f32) -> Self {
        Self { clip, weight, additive: false, mask: Vec::new(), joint_weights: Vec::new() }
    }
}

/// One joint's weight painted into a layer's mask.
#[derive(Debug, Clone, PartialEq)]
pub struct PaintedJoint {
    /// The joint, by node name (its index when unnamed).
    pub joint: String,
    /// Its weight, 0–1.
    pub weight: f32,
    /// The joint and every node below it (else the joint alone).
    pub subtree: bool,
}

/// A state: a name, what it plays and where an editor draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// Unique name (Godot's state name; the clip's name for a state made from a clip).
    pub name: String,
    /// What it plays.
    pub motion: StateMotion,
    /// Position in a graph editor, pixels.
    pub position: Vec2,
}

/// The kind and starting value of a parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A number (a speed, a direction).
    Float(f32),
    /// On or off.
    Bool(bool),
    /// Set once, consumed by the transition that uses it.
    Trigger,
}

impl ParamKind {
    /// `float`, `bool` or `trigger`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Float(_) => "float",
            Self::Bool(_) => "bool",
            Self::Trigger => "trigger",
        }
    }
}

/// A parameter the game (or the artist's keyboard) sets.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Unique name.
    pub name: String,
    /// Kind and starting value.
    pub kind: ParamKind,
}

/// A named marker on a clip's timeline that fires when the clip's time crosses it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipEvent {
    /// The clip.
    pub clip: ClipId,
    /// Name, unique per clip.
    pub name: String,
    /// Time on the clip's timeline, seconds from the clip's start.
    pub time_secs: f32,
}

/// A float comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    /// `>`.
    Greater,
    /// `<`.
    Less,
    /// `>=`.
    GreaterOrEqual,
    /// `<=`.
    LessOrEqual,
}

impl Compare {
    /// Every variant.
    pub const ALL: [Self; 4] = [Self::Greater, Self::Less, Self::GreaterOrEqual, Self::LessOrEqual];

    /// The operator as written (`>`, `<`, `>=`, `<=`).
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Greater => ">",
            Self::Less => "<",
            Self::GreaterOrEqual => ">=",
            Self::LessOrEqual => "<=",
        }
    }

    /// `value OP threshold` (false when either is NaN).
    pub fn holds(self, value: f32, threshold: f32) -> bool {
        match self {
            Self::Greater => value > threshold,
            Self::Less => value < threshold,
            Self::GreaterOrEqual => value >= threshold,
            Self::LessOrEqual => value <= threshold,
        }
    }
}

/// One condition of a transition (a transition's conditions must all hold).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Condition {
    /// A float parameter compared with a threshold.
    Float {
        /// The parameter.
        param: ParamId,
        /// The comparison.
        compare: Compare,
        /// The threshold.
        value: f32,
    },
    /// A bool parameter is `value`.
    Bool {
        /// The parameter.
        param: ParamId,
        /// The value it must have.
        value: bool,
    },
    /// A trigger is set (taking the transition consumes it).
    Trigger(ParamId),
    /// A clip event of the transition's source state fired during this step.
    Event(EventId),
}

impl Condition {
    /// The parameter it reads (`None` for an event).
    pub fn param(self) -> Option<ParamId> {
        match self {
            Self::Float { param, .. } | Self::Bool { param, .. } | Self::Trigger(param) => Some(param),
            Self::Event(_) => None,
        }
    }
}

/// Where a transition may leave from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransitionFrom {
    /// One state.
    State(StateId),
    /// Any state other than the target (Unity's "Any State").
    Any,
}

/// Which transitions may cut a running transition (Unity's interruption source).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interruption {
    /// None: the transition runs to its end.
    #[default]
    None,
    /// The source state's transitions (and any-state ones).
    Source,
    /// The target state's transitions (and any-state ones).
    Target,
    /// The source's, then the target's (and any-state ones).
    Both,
}

impl Interruption {
    /// Every variant.
    pub const ALL: [Self; 4] = [Self::None, Self::Source, Self::Target, Self::Both];

    /// `none`, `source`, `target`, `both`.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Source => "source",
            Self::Target => "target",
            Self::Both => "both",
        }
    }
}

/// A transition between two states.
#[derive(Debug, Clone, PartialEq)]
pub struct StateTransition {
    /// The state it leaves (or any state).
    pub from: TransitionFrom,
    /// The state it enters.
    pub to: StateId,
    /// Cross-fade, inertialization or dead blending.
    pub kind: TransitionKind,
    /// Length of the fade or of the offset's decay, seconds (0: a cut).
    pub duration_secs: f32,
    /// Easing of the fade weight.
    pub easing: Easing,
    /// Decay of the inertialization offset.
    pub decay: OffsetDecay,
    /// Velocity half-life of dead blending, seconds.
    pub half_life_secs: f32,
    /// The target starts at the source's phase (normalized time) instead of its start.
    pub sync: bool,
    /// Lower values are tried first; ties keep the order of the list.
    pub priority: u32,
    /// All must hold. No conditions and not `at_end`: taken only by [`MachineRuntime::request`].
    pub conditions: Vec<Condition>,
    /// Taken only when the source's clip reaches its end (each loop's end), conditions holding.
    pub at_end: bool,
    /// Which transitions may cut this one while it runs.
    pub interruption: Interruption,
}

impl StateTransition {
    /// A cross-fade `from → to` over `duration_secs`, linear, priority 1, no conditions.
    pub fn new(from: TransitionFrom, to: StateId, duration_secs: f32) -> Self {
        Self {
            from,
            to,
            kind: TransitionKind::CrossFade,
            duration_secs,
            easing: Easing::Linear,
            decay: OffsetDecay::Quintic,
            half_life_secs: DEFAULT_HALF_LIFE_SECS,
            sync: false,
            priority: 1,
            conditions: Vec::new(),
            at_end: false,
            interruption: Interruption::None,
        }
    }

    /// Taken by the runtime on its own (conditions or an "at end" exit), not only on request.
    pub fn is_automatic(&self) -> bool {
        !self.conditions.is_empty() || self.at_end
    }
}

/// One tuned pair of the transition table (the stage's `FadeTuning` in core types).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableEdge {
    /// The clip left.
    pub from: ClipId,
    /// The clip entered.
    pub to: ClipId,
    /// Fade length, seconds.
    pub duration_secs: f32,
    /// Kind.
    pub kind: TransitionKind,
    /// Easing.
    pub easing: Easing,
    /// Inertialization's decay.
    pub decay: OffsetDecay,
    /// Dead blending's half-life, seconds.
    pub half_life_secs: f32,
    /// Phase sync.
    pub sync: bool,
}

impl From<(ClipId, ClipId, f32, TransitionKind, Easing)> for TableEdge {
    fn from((from, to, duration_secs, kind, easing): (ClipId, ClipId, f32, TransitionKind, Easing)) -> Self {
        Self {
            from,
            to,
            duration_secs,
            kind,
            easing,
            decay: OffsetDecay::Quintic,
            half_life_secs: DEFAULT_HALF_LIFE_SECS,
            sync: false,
        }
    }
}

/// A state machine: states, parameters, clip events and transitions, and the state it starts
/// in. Built with the `add_*` methods (each returns the new item's id) or
/// [`StateMachine::from_transition_table`]; [`StateMachine::validate`] before running it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StateMachine {
    states: Vec<State>,
    params: Vec<Param>,
    events: Vec<ClipEvent>,
    transitions: Vec<StateTransition>,
    entry: StateId,
}

impl StateMachine {
    /// An empty machine (entry: the first state added).
    pub fn new() -> Self {
        Self::default()
    }

    /// One state per clip (named by `clips`, in order; the first is the entry) and one
    /// request-only edge per tuned pair, what a character without a machine gets.
    ///
    /// # Errors
    /// When a pair names a clip not in `clips`, or the machine does not validate.
    pub fn from_transition_table<'a, E: Into<TableEdge>>(
        clips: impl IntoIterator<Item = (ClipId, &'a str)>,
        pairs: impl IntoIterator<Item = E>,
    ) -> Result<Self, StateMachineError> {
        let mut machine = Self::new();
        let mut by_clip = Vec::new();
        for (i, (clip, name)) in clips.into_iter().enumerate() {
            let column = (i % 4) as f32;
            let row = (i / 4) as f32;
            let id = machine.add_state(State {
                name: name.to_owned(),
                motion: StateMotion::Clip(clip),
                position: Vec2::new(200.0 * column, 120.0 * row),
            });
            by_clip.push((clip, id));
        }
        let state_of = |clip: ClipId| by_clip.iter().find(|(c, _)| *c == clip).map(|(_, s)| *s);
        for edge in pairs {
            let edge: TableEdge = edge.into();
            let missing = |clip: ClipId| StateMachineError::UnknownState {
                transition: format!("clip {} -> clip {}", edge.from, edge.to),
                state: StateId::new(u32::try_from(clip.index()).unwrap_or(u32::MAX)),
            };
            let from = state_of(edge.from).ok_or_else(|| missing(edge.from))?;
            let to = state_of(edge.to).ok_or_else(|| missing(edge.to))?;
            machine.add_transition(StateTransition {
                kind: edge.kind,
                easing: edge.easing,
                decay: edge.decay,
                half_life_secs: edge.half_life_secs,
                sync: edge.sync,
                ..StateTransition::new(TransitionFrom::State(from), to, edge.duration_secs)
            });
        }
        machine.validate()?;
        Ok(machine)
    }

    /// Add a state; returns its id.
    pub fn add_state(&mut self, state: State) -> StateId {
        self.states.push(state);
        StateId::from_len(self.states.len() - 1)
    }

    /// Add a parameter; returns its id.
    pub fn add_param(&mut self, name: &str, kind: ParamKind) -> ParamId {
        self.params.push(Param { name: name.to_owned(), kind });
        ParamId::from_len(self.params.len() - 1)
    }

    /// Add a clip event; returns its id.
    pub fn add_event(&mut self, clip: ClipId, name: &str, time_secs: f32) -> EventId {
        self.events.push(ClipEvent { clip, name: name.to_owned(), time_secs });
        EventId::from_len(self.events.len() - 1)
    }

    /// Add a transition; returns its id.
    pub fn add_transition(&mut self, transition: StateTransition) -> TransitionId {
        self.transitions.push(transition);
        TransitionId::from_len(self.transitions.len() - 1)
    }

    /// Remove state `id`: the transitions from or to it go with it, later states' ids move
    /// down by one (transitions and the entry follow); a removed entry becomes the first state.
    /// False when it does not exist.
    pub fn remove_state(&mut self, id: StateId) -> bool {
        if id.index() >= self.states.len() {
            return false;
        }
        self.states.remove(id.index());
        self.transitions.retain(|t| t.to != id && t.from != TransitionFrom::State(id));
        let shift = |s: StateId| if s > id { StateId(s.0 - 1) } else { s };
        for t in &mut self.transitions {
            t.to = shift(t.to);
            if let TransitionFrom::State(from) = t.from {
                t.from = TransitionFrom::State(shift(from));
            }
        }
        self.entry = if self.entry == id { StateId(0) } else { shift(self.entry) };
        true
    }

    /// Remove parameter `id`: the conditions on it go with it (and a blend space's axis on it
    /// is cleared), later parameters' ids move down by one. False when it does not exist.
    pub fn remove_param(&mut self, id: ParamId) -> bool {
        if id.index() >= self.params.len() {
            return false;
        }
        self.params.remove(id.index());
        let shift = |p: ParamId| if p > id { ParamId(p.0 - 1) } else { p };
        for t in &mut self.transitions {
            t.conditions.retain(|c| c.param() != Some(id));
            for c in &mut t.conditions {
                match c {
                    Condition::Float { param, .. } | Condition::Bool { param, .. } | Condition::Trigger(param) => {
                        *param = shift(*param);
                    }
                    Condition::Event(_) => {}
                }
            }
        }
        for state in &mut self.states {
            if let StateMotion::BlendSpace(space) = &mut state.motion {
                for axis in [&mut space.x_param, &mut space.y_param] {
                    *axis = axis.filter(|p| *p != id).map(shift);
                }
            }
        }
        true
    }

    /// Remove transition `id` (later transitions' ids move down by one). False when it does
    /// not exist.
    pub fn remove_transition(&mut self, id: TransitionId) -> bool {
        if id.index() >= self.transitions.len() {
            return false;
        }
        self.transitions.remove(id.index());
        true
    }

    /// Rename state `id` (validation refuses a repeated name). False when it does not exist.
    pub fn rename_state(&mut self, id: StateId, name: &str) -> bool {
        let Some(state) = self.states.get_mut(id.index()) else { return false };
        name.clone_into(&mut state.name);
        true
    }

    /// Rename parameter `id` (validation refuses a repeated name); conditions and blend spaces
    /// refer to it by id and follow. False when it does not exist.
    pub fn rename_param(&mut self, id: ParamId, name: &str) -> bool {
        let Some(param) = self.params.get_mut(id.index()) else { return false };
        name.clone_into(&mut param.name);
        true
    }

    /// Replace what state `id` plays. False when it does not exist.
    pub fn set_motion(&mut self, id: StateId, motion: StateMotion) -> bool {
        let Some(state) = self.states.get_mut(id.index()) else { return false };
        state.motion = motion;
        true
    }

    /// Move state `id` to `position` in a graph editor (pixels). False when it does not exist.
    pub fn set_position(&mut self, id: StateId, position: Vec2) -> bool {
        let Some(state) = self.states.get_mut(id.index()) else { return false };
        state.position = position;
        true
    }

    /// Replace clip event `id` (its clip, name and time; conditions on it follow). False when it
    /// does not exist.
    pub fn set_event(&mut self, id: EventId, event: ClipEvent) -> bool {
        let Some(slot) = self.events.get_mut(id.index()) else { return false };
        *slot = event;
        true
    }

    /// Remove clip event `id`: the conditions on it go with it, later events' ids move down by
    /// one. False when it does not exist.
    pub fn remove_event(&mut self, id: EventId) -> bool {
        if id.index() >= self.events.len() {
            return false;
        }
        self.events.remove(id.index());
        for t in &mut self.transitions {
            t.conditions.retain(|c| *c != Condition::Event(id));
            for c in &mut t.conditions {
                if let Condition::Event(event) = c
                    && *event > id
                {
                    *event = EventId(event.0 - 1);
                }
            }
        }
        true
    }

    /// Set the state the machine starts in.
    pub fn set_entry(&mut self, entry: StateId) {
        self.entry = entry;
    }

    /// The state the machine starts in.
    pub fn entry(&self) -> StateId {
        self.entry
    }

    /// The states, in id order.
    pub fn states(&self) -> &[State] {
        &self.states
    }

    /// The parameters, in id order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The clip events, in id order.
    pub fn events(&self) -> &[ClipEvent] {
        &self.events
    }

    /// The transitions, in id order.
    pub fn transitions(&self) -> &[StateTransition] {
        &self.transitions
    }

    /// A state, if it exists.
    pub fn state(&self, id: StateId) -> Option<&State> {
        self.states.get(id.index())
    }

    /// A parameter, if it exists.
    pub fn param(&self, id: ParamId) -> Option<&Param> {
        self.params.get(id.index())
    }

    /// A clip event, if it exists.
    pub fn event(&self, id: EventId) -> Option<&ClipEvent> {
        self.events.get(id.index())
    }

    /// A transition, if it exists.
    pub fn transition(&self, id: TransitionId) -> Option<&StateTransition> {
        self.transitions.get(id.index())
    }

    /// A transition to edit, if it exists.
    pub fn transition_mut(&mut self, id: TransitionId) -> Option<&mut StateTransition> {
        self.transitions.get_mut(id.index())
    }

    /// The state named `name`.
    pub fn find_state(&self, name: &str) -> Option<StateId> {
        self.states.iter().position(|s| s.name == name).map(StateId::from_len)
    }

    /// The parameter named `name`.
    pub fn find_param(&self, name: &str) -> Option<ParamId> {
        self.params.iter().position(|p| p.name == name).map(ParamId::from_len)
    }

    /// The event of `clip` named `name`.
    pub fn find_event(&self, clip: ClipId, name: &str) -> Option<EventId> {
        self.events.iter().position(|e| e.clip == clip && e.name == name).map(EventId::from_len)
    }

    /// A transition's name for messages: `"From -> To"` (`*` for any state, the id for a
    /// missing state).
    pub fn transition_name(&self, transition: &StateTransition) -> String {
        let name = |id: StateId| self.state(id).map_or_else(|| format!("#{id}"), |s| s.name.clone());
        let from = match transition.from {
            TransitionFrom::State(id) => name(id),
            TransitionFrom::Any => "*".to_owned(),
        };
        format!("{from} -> {}", name(transition.to))
    }
}
