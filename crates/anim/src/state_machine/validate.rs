//! Validation of a [`StateMachine`]: what is checked and the errors that name what is wrong.

use thiserror::Error;

use super::{Condition, Param, ParamKind, State, StateId, StateMachine, StateMotion, StateTransition, TransitionFrom};

/// What is wrong with a machine; every variant names the state, parameter, event or
/// transition at fault (a transition as `"From -> To"`, `*` for any state).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StateMachineError {
    /// A machine needs at least one state.
    #[error("the state machine has no states")]
    NoStates,
    /// The entry state is not a state.
    #[error("entry state {entry} is not a state (there are {count})")]
    UnknownEntry {
        /// The entry.
        entry: StateId,
        /// Number of states.
        count: usize,
    },
    /// A state, parameter or event has no name.
    #[error("{what} {index} has an empty name")]
    EmptyName {
        /// `state`, `parameter` or `event`.
        what: &'static str,
        /// Its index.
        index: usize,
    },
    /// Two states, two parameters or two events of one clip share a name.
    #[error("two {what}s are named \"{name}\"")]
    DuplicateName {
        /// `state`, `parameter` or `event`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A transition names a state that does not exist.
    #[error("transition {transition}: state {state} does not exist")]
    UnknownState {
        /// The transition.
        transition: String,
        /// The missing state.
        state: StateId,
    },
    /// A duration or half-life is NaN, infinite or negative.
    #[error("transition {transition}: {field} is {value} (must be finite and >= 0)")]
    BadSeconds {
        /// The transition.
        transition: String,
        /// `duration_secs` or `half_life_secs`.
        field: &'static str,
        /// The value.
        value: f32,
    },
    /// A condition names a parameter or event that does not exist.
    #[error("transition {transition}: condition on unknown {what} {index}")]
    UnknownConditionTarget {
        /// The transition.
        transition: String,
        /// `parameter` or `event`.
        what: &'static str,
        /// The missing index.
        index: usize,
    },
    /// A condition tests a parameter of another kind.
    #[error("transition {transition}: parameter \"{param}\" is a {actual}, the condition needs a {expected}")]
    WrongParamKind {
        /// The transition.
        transition: String,
        /// The parameter's name.
        param: String,
        /// Its kind.
        actual: &'static str,
        /// The kind the condition needs.
        expected: &'static str,
    },
    /// A float condition's threshold is NaN or infinite.
    #[error("transition {transition}: condition threshold {value} on \"{param}\" is not finite")]
    BadThreshold {
        /// The transition.
        transition: String,
        /// The parameter's name.
        param: String,
        /// The threshold.
        value: f32,
    },
    /// An event's time is NaN, infinite or negative.
    #[error("event \"{name}\": time {time_secs} s is not finite and >= 0")]
    BadEventTime {
        /// The event.
        name: String,
        /// Its time.
        time_secs: f32,
    },
    /// A state's blend space has no points, or names a parameter that is missing or not a float.
    #[error("state \"{state}\": {problem}")]
    BadState {
        /// The state.
        state: String,
        /// What is wrong.
        problem: String,
    },
}

impl StateMachine {
    /// Check the machine: at least one state, the entry a state, names non-empty and unique,
    /// every transition's states, parameters and events existing with the right kinds,
    /// durations, half-lives, thresholds and event times finite and not negative.
    ///
    /// # Errors
    /// The first problem found, naming where it is.
    pub fn validate(&self) -> Result<(), StateMachineError> {
        if self.states.is_empty() {
            return Err(StateMachineError::NoStates);
        }
        if self.state(self.entry).is_none() {
            return Err(StateMachineError::UnknownEntry { entry: self.entry, count: self.states.len() });
        }
        unique_names("state", self.states.iter().map(|s| s.name.as_str()))?;
        unique_names("parameter", self.params.iter().map(|p| p.name.as_str()))?;
        for (i, event) in self.events.iter().enumerate() {
            if event.name.is_empty() {
                return Err(StateMachineError::EmptyName { what: "event", index: i });
            }
            if !(event.time_secs.is_finite() && event.time_secs >= 0.0) {
                return Err(StateMachineError::BadEventTime { name: event.name.clone(), time_secs: event.time_secs });
            }
            if self.events[..i].iter().any(|e| e.clip == event.clip && e.name == event.name) {
                return Err(StateMachineError::DuplicateName { what: "event", name: event.name.clone() });
            }
        }
        for state in &self.states {
            self.validate_state(state)?;
        }
        for transition in &self.transitions {
            self.validate_transition(transition)?;
        }
        Ok(())
    }

    fn validate_state(&self, state: &State) -> Result<(), StateMachineError> {
        let bad = |problem: String| StateMachineError::BadState { state: state.name.clone(), problem };
        let space = match &state.motion {
            StateMotion::Clip(_) => return Ok(()),
            StateMotion::Layered(layered) => {
                if let Some(layer) = layered.layers.iter().find(|l| !(0.0..=1.0).contains(&l.weight)) {
                    return Err(bad(format!("layer of clip {} weighs {} (must be 0-1)", layer.clip, layer.weight)));
                }
                let painted = layered.layers.iter().flat_map(|l| &l.joint_weights);
                if let Some(p) = painted.clone().find(|p| !(0.0..=1.0).contains(&p.weight)) {
                    return Err(bad(format!("joint {} is painted at {} (must be 0-1)", p.joint, p.weight)));
                }
                return Ok(());
            }
            StateMotion::BlendSpace(space) => space,
        };
        if let Some(point) = space.points.iter().find(|p| !p.position.is_finite()) {
            return Err(bad(format!(
                "blend space \"{}\": clip {} at {} is not finite",
                space.name, point.clip, point.position
            )));
        }
        if space.points.is_empty() {
            return Err(bad(format!("blend space \"{}\" has no points", space.name)));
        }
        for param in [space.x_param, space.y_param].into_iter().flatten() {
            match self.param(param) {
                Some(Param { kind: ParamKind::Float(_), .. }) => {}
                Some(p) => return Err(bad(format!("blend space parameter \"{}\" is a {}", p.name, p.kind.name()))),
                None => return Err(bad(format!("blend space parameter {param} does not exist"))),
            }
        }
        Ok(())
    }

    fn validate_transition(&self, transition: &StateTransition) -> Result<(), StateMachineError> {
        let name = || self.transition_name(transition);
        let from = match transition.from {
            TransitionFrom::State(id) => Some(id),
            TransitionFrom::Any => None,
        };
        for state in from.into_iter().chain([transition.to]) {
            if self.state(state).is_none() {
                return Err(StateMachineError::UnknownState { transition: name(), state });
            }
        }
        for (field, value) in
            [("duration_secs", transition.duration_secs), ("half_life_secs", transition.half_life_secs)]
        {
            if !(value.is_finite() && value >= 0.0) {
                return Err(StateMachineError::BadSeconds { transition: name(), field, value });
            }
        }
        for condition in &transition.conditions {
            let (param, expected) = match *condition {
                Condition::Float { param, value, .. } => {
                    if !value.is_finite() {
                        let param = self.param(param).map_or_else(|| format!("#{param}"), |p| p.name.clone());
                        return Err(StateMachineError::BadThreshold { transition: name(), param, value });
                    }
                    (param, "float")
                }
                Condition::Bool { param, .. } => (param, "bool"),
                Condition::Trigger(param) => (param, "trigger"),
                Condition::Event(event) => {
                    if self.event(event).is_none() {
                        return Err(StateMachineError::UnknownConditionTarget {
                            transition: name(),
                            what: "event",
                            index: event.index(),
                        });
                    }
                    continue;
                }
            };
            let Some(p) = self.param(param) else {
                return Err(StateMachineError::UnknownConditionTarget {
                    transition: name(),
                    what: "parameter",
                    index: param.index(),
                });
            };
            if p.kind.name() != expected {
                return Err(StateMachineError::WrongParamKind {
                    transition: name(),
                    param: p.name.clone(),
                    actual: p.kind.name(),
                    expected,
                });
            }
        }
        Ok(())
    }
}

fn unique_names<'a>(what: &'static str, names: impl Iterator<Item = &'a str>) -> Result<(), StateMachineError> {
    let names: Vec<&str> = names.collect();
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(StateMachineError::EmptyName { what, index: i });
        }
        if names[..i].contains(name) {
            return Err(StateMachineError::DuplicateName { what, name: (*name).to_owned() });
        }
    }
    Ok(())
}
