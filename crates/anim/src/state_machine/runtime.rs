//! The per-frame job that runs a [`StateMachine`]: the active state and its time, the running
//! transition (its source keeps playing with its own time), the parameters' values and the
//! triggers not yet consumed. `step` advances the times, fires the clip events crossed,
//! evaluates the transitions in priority order (as the running transition's interruption rule
//! allows) and reports what the stage feeds its `CrossFader`; `request` goes to a state through
//! the machine's own edges. Nothing here allocates after [`MachineRuntime::new`] (events go into
//! a caller-owned buffer).

use thiserror::Error;

use super::{
    Condition, EventId, Interruption, ParamId, ParamKind, StateId, StateMachine, TransitionFrom, TransitionId,
};
use crate::crossfade::TransitionKind;

/// A parameter's current value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// A float parameter.
    Float(f32),
    /// A bool parameter.
    Bool(bool),
    /// A trigger: set and not yet consumed.
    Trigger(bool),
}

impl ParamValue {
    fn initial(kind: ParamKind) -> Self {
        match kind {
            ParamKind::Float(value) => Self::Float(value),
            ParamKind::Bool(value) => Self::Bool(value),
            ParamKind::Trigger => Self::Trigger(false),
        }
    }
}

/// A clip event that fired during a step, with the state whose clip crossed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FiredEvent {
    /// The event.
    pub event: EventId,
    /// The state that played it (the active state, or a running transition's source).
    pub state: StateId,
}

/// The running transition, as the stage feeds it to its `CrossFader`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActiveTransition {
    /// Which transition of the machine; `None` for a fade the stage started without one (a T
    /// fade between two states the machine has no edge for).
    pub transition: Option<TransitionId>,
    /// The state left (still playing underneath).
    pub from: StateId,
    /// The state entered (the active state).
    pub to: StateId,
    /// The target's weight: the transition's easing of `elapsed / duration`, 0–1.
    pub weight: f32,
    /// Cross-fade, inertialization or dead blending.
    pub kind: TransitionKind,
    /// Seconds since it started.
    pub elapsed_secs: f32,
    /// Its length, seconds.
    pub duration_secs: f32,
    /// The target's clip time when it started (0, or the source's phase when synced).
    pub start_secs: f32,
}

/// What a step (or [`MachineRuntime::output`]) reports.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepOutput {
    /// The active state (a running transition's target).
    pub state: StateId,
    /// Seconds the active state has played (its clip time before wrapping; starts at the
    /// transition's `start_secs`).
    pub state_secs: f32,
    /// The running transition, if any.
    pub transition: Option<ActiveTransition>,
    /// A transition that started during this step or request (a cut when its duration is 0:
    /// then `transition` is `None`), so the stage triggers its fader once.
    pub started: Option<TransitionId>,
}

/// What is wrong with a request or a parameter change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuntimeError {
    /// The state does not exist.
    #[error("state {0} does not exist")]
    UnknownState(StateId),
    /// No transition leaves the active state (or any state) for the requested one.
    #[error("no transition from \"{from}\" (or any state) to \"{to}\"")]
    NoPath {
        /// The active state's name.
        from: String,
        /// The requested state's name.
        to: String,
    },
    /// The parameter does not exist.
    #[error("parameter {0} does not exist")]
    UnknownParam(ParamId),
    /// The parameter is of another kind.
    #[error("parameter \"{name}\" is a {actual}, not a {expected}")]
    WrongKind {
        /// Its name.
        name: String,
        /// Its kind.
        actual: &'static str,
        /// The kind the call sets.
        expected: &'static str,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Running {
    id: TransitionId,
    from: StateId,
    from_secs: f32,
    elapsed_secs: f32,
    start_secs: f32,
}

/// The state of one character's machine between frames (ozz's shape: the machine is the
/// read-only input, this is the caller-owned state, `step` is the job).
#[derive(Debug, Clone, PartialEq)]
pub struct MachineRuntime {
    current: StateId,
    current_secs: f32,
    running: Option<Running>,
    values: Vec<ParamValue>,
    started: Option<TransitionId>,
}

impl MachineRuntime {
    /// At the machine's entry state, time 0, every parameter at its starting value.
    pub fn new(machine: &StateMachine) -> Self {
        Self {
            current: machine.entry(),
            current_secs: 0.0,
            running: None,
            values: machine.params().iter().map(|p| ParamValue::initial(p.kind)).collect(),
            started: None,
        }
    }

    /// The capacity `events_out` needs so that `step` never grows it (each event fires at most
    /// once per state per step; two states play during a transition).
    pub fn event_capacity(machine: &StateMachine) -> usize {
        2 * machine.events().len()
    }

    /// A parameter's value.
    pub fn value(&self, param: ParamId) -> Option<ParamValue> {
        self.values.get(param.index()).copied()
    }

    /// Set a float parameter.
    ///
    /// # Errors
    /// When it does not exist or is not a float.
    pub fn set_float(&mut self, machine: &StateMachine, param: ParamId, value: f32) -> Result<(), RuntimeError> {
        *self.slot(machine, param, "float")? = ParamValue::Float(value);
        Ok(())
    }

    /// Set a bool parameter.
    ///
    /// # Errors
    /// When it does not exist or is not a bool.
    pub fn set_bool(&mut self, machine: &StateMachine, param: ParamId, value: bool) -> Result<(), RuntimeError> {
        *self.slot(machine, param, "bool")? = ParamValue::Bool(value);
        Ok(())
    }

    /// Set a trigger (it stays set until a transition that tests it is taken, or
    /// [`Self::reset_trigger`]).
    ///
    /// # Errors
    /// When it does not exist or is not a trigger.
    pub fn fire(&mut self, machine: &StateMachine, param: ParamId) -> Result<(), RuntimeError> {
        *self.slot(machine, param, "trigger")? = ParamValue::Trigger(true);
        Ok(())
    }

    /// Clear a trigger without taking a transition.
    ///
    /// # Errors
    /// When it does not exist or is not a trigger.
    pub fn reset_trigger(&mut self, machine: &StateMachine, param: ParamId) -> Result<(), RuntimeError> {
        *self.slot(machine, param, "trigger")? = ParamValue::Trigger(false);
        Ok(())
    }

    fn slot(
        &mut self,
        machine: &StateMachine,
        param: ParamId,
        expected: &'static str,
    ) -> Result<&mut ParamValue, RuntimeError> {
        let Some(p) = machine.param(param) else { return Err(RuntimeError::UnknownParam(param)) };
        if p.kind.name() != expected {
            return Err(RuntimeError::WrongKind { name: p.name.clone(), actual: p.kind.name(), expected });
        }
        if self.values.len() != machine.params().len() {
            self.values = machine.params().iter().map(|p| ParamValue::initial(p.kind)).collect();
        }
        self.values.get_mut(param.index()).ok_or(RuntimeError::UnknownParam(param))
    }

    /// What the machine shows now (without stepping).
    pub fn output(&self, machine: &StateMachine) -> StepOutput {
        let transition = self.running.and_then(|run| {
            let t = machine.transition(run.id)?;
            let progress = if t.duration_secs > 0.0 { run.elapsed_secs / t.duration_secs } else { 1.0 };
            Some(ActiveTransition {
                transition: Some(run.id),
                from: run.from,
                to: self.current,
                weight: t.easing.apply(progress),
                kind: t.kind,
                elapsed_secs: run.elapsed_secs,
                duration_secs: t.duration_secs,
                start_secs: run.start_secs,
            })
        });
        StepOutput { state: self.current, state_secs: self.current_secs, transition, started: self.started }
    }

    /// Advance by `dt_secs` (NaN, infinite or negative: 0): the active state's time and a
    /// running transition's source time and progress; push the clip events crossed (clip time
    /// in `[before, after)`, loop seams included, each event at most once per state per step)
    /// into `events_out` (appended: the caller clears it; give it
    /// [`Self::event_capacity`] to keep the step allocation-free); finish a transition that
    /// reached its duration; then take at most one transition: the lowest `priority` (ties:
    /// list order) among the automatic transitions whose conditions hold (an `at_end` one only
    /// in the step its source's clip reaches an end), from the active state when nothing
    /// runs, else as the running transition's [`Interruption`] allows. Triggers a taken
    /// transition tests are consumed.
    ///
    /// `clip_durations[clip]` is each clip's length in seconds; a clip missing from it, or with
    /// a length that is not positive and finite, never loops nor ends.
    pub fn step(
        &mut self,
        machine: &StateMachine,
        dt_secs: f32,
        clip_durations: &[f32],
        events_out: &mut Vec<FiredEvent>,
    ) -> StepOutput {
        let dt = if dt_secs.is_finite() && dt_secs > 0.0 { dt_secs } else { 0.0 };
        self.started = None;
        let first_event = events_out.len();
        let before = self.current_secs;
        self.current_secs += dt;
        let current_ended = advance(machine, self.current, before, self.current_secs, clip_durations, events_out);
        let mut source_ended = false;
        if let Some(run) = &mut self.running {
            let before = run.from_secs;
            run.from_secs += dt;
            run.elapsed_secs += dt;
            source_ended = advance(machine, run.from, before, run.from_secs, clip_durations, events_out);
            let duration = machine.transition(run.id).map_or(0.0, |t| t.duration_secs);
            if run.elapsed_secs >= duration {
                self.running = None;
            }
        }
        let fired = events_out.get(first_event..).unwrap_or(&[]);
        let groups: [Option<(StateId, bool)>; 2] = match self.running {
            None => [Some((self.current, current_ended)), None],
            Some(run) => match machine.transition(run.id).map_or(Interruption::None, |t| t.interruption) {
                Interruption::None => [None, None],
                Interruption::Source => [Some((run.from, source_ended)), None],
                Interruption::Target => [Some((self.current, current_ended)), None],
                Interruption::Both => [Some((run.from, source_ended)), Some((self.current, current_ended))],
            },
        };
        for (leave, ended) in groups.into_iter().flatten() {
            if let Some(id) = self.pick(machine, leave, ended, fired) {
                self.consume_triggers(machine, id);
                self.start(machine, id, leave, clip_durations);
                break;
            }
        }
        self.output(machine)
    }

    /// The automatic transition leaving `leave` to take now, if any.
    fn pick(&self, machine: &StateMachine, leave: StateId, ended: bool, fired: &[FiredEvent]) -> Option<TransitionId> {
        let mut best: Option<(u32, usize)> = None;
        for (i, t) in machine.transitions().iter().enumerate() {
            let leaves = match t.from {
                TransitionFrom::State(s) => s == leave,
                TransitionFrom::Any => t.to != leave,
            };
            let restarts = self.running.is_some() && t.to == self.current;
            if !leaves || restarts || !t.is_automatic() || (t.at_end && !ended) {
                continue;
            }
            if best.is_some_and(|(priority, _)| priority <= t.priority) {
                continue;
            }
            if t.conditions.iter().all(|c| self.holds(*c, leave, fired)) {
                best = Some((t.priority, i));
            }
        }
        best.map(|(_, i)| TransitionId::from_len(i))
    }

    fn holds(&self, condition: Condition, leave: StateId, fired: &[FiredEvent]) -> bool {
        match condition {
            Condition::Float { param, compare, value } => {
                matches!(self.value(param), Some(ParamValue::Float(v)) if compare.holds(v, value))
            }
            Condition::Bool { param, value } => self.value(param) == Some(ParamValue::Bool(value)),
            Condition::Trigger(param) => self.value(param) == Some(ParamValue::Trigger(true)),
            Condition::Event(event) => fired.iter().any(|f| f.event == event && f.state == leave),
        }
    }

    fn consume_triggers(&mut self, machine: &StateMachine, id: TransitionId) {
        let Some(t) = machine.transition(id) else { return };
        for condition in &t.conditions {
            if let Condition::Trigger(param) = condition
                && let Some(slot) = self.values.get_mut(param.index())
            {
                *slot = ParamValue::Trigger(false);
            }
        }
    }

    /// Start transition `id`, leaving `leave` (the active state, or a running transition's
    /// source).
    fn start(&mut self, machine: &StateMachine, id: TransitionId, leave: StateId, clip_durations: &[f32]) {
        let Some(t) = machine.transition(id) else { return };
        let leave_secs = match self.running {
            Some(run) if run.from == leave && leave != self.current => run.from_secs,
            _ => self.current_secs,
        };
        let start_secs = if t.sync {
            match (state_length(machine, leave, clip_durations), state_length(machine, t.to, clip_durations)) {
                (Some(from_len), Some(to_len)) => (leave_secs.rem_euclid(from_len) / from_len) * to_len,
                _ => 0.0,
            }
        } else {
            0.0
        };
        self.running = (t.duration_secs > 0.0).then_some(Running {
            id,
            from: leave,
            from_secs: leave_secs,
            elapsed_secs: 0.0,
            start_secs,
        });
        self.current = t.to;
        self.current_secs = start_secs;
        self.started = Some(id);
    }

    /// Go to `to` through the machine: the lowest-priority transition from the active state to
    /// it, else an any-state one; conditions are not tested and a running transition is cut
    /// (the fader stacks the new fade over what is shown). `Ok(None)` when `to` is already
    /// the active state (or the running transition's target).
    ///
    /// # Errors
    /// When `to` does not exist or no transition leads there.
    pub fn request(
        &mut self,
        machine: &StateMachine,
        to: StateId,
        clip_durations: &[f32],
    ) -> Result<Option<TransitionId>, RuntimeError> {
        let Some(target) = machine.state(to) else { return Err(RuntimeError::UnknownState(to)) };
        self.started = None;
        if to == self.current {
            return Ok(None);
        }
        let best = |any: bool| {
            machine
                .transitions()
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    t.to == to
                        && match t.from {
                            TransitionFrom::State(s) => !any && s == self.current,
                            TransitionFrom::Any => any,
                        }
                })
                .min_by_key(|(i, t)| (t.priority, *i))
                .map(|(i, _)| TransitionId::from_len(i))
        };
        let Some(id) = best(false).or_else(|| best(true)) else {
            let from = machine.state(self.current).map_or_else(|| format!("#{}", self.current), |s| s.name.clone());
            return Err(RuntimeError::NoPath { from, to: target.name.clone() });
        };
        let leave = self.current;
        self.start(machine, id, leave, clip_durations);
        Ok(Some(id))
    }
}

/// A state's length: its primary clip's, when positive and finite.
fn state_length(machine: &StateMachine, state: StateId, clip_durations: &[f32]) -> Option<f32> {
    let clip = machine.state(state)?.motion.primary_clip()?;
    clip_durations.get(clip.index()).copied().filter(|l| l.is_finite() && *l > 0.0)
}

/// Fire `state`'s events crossed between `before` and `after` (seconds in the state); true
/// when an end of its clip lies in `(before, after]`.
fn advance(
    machine: &StateMachine,
    state: StateId,
    before: f32,
    after: f32,
    clip_durations: &[f32],
    events_out: &mut Vec<FiredEvent>,
) -> bool {
    if after <= before {
        return false;
    }
    let Some(clip) = machine.state(state).and_then(|s| s.motion.primary_clip()) else { return false };
    let length = state_length(machine, state, clip_durations);
    for (i, event) in machine.events().iter().enumerate() {
        if event.clip != clip {
            continue;
        }
        let crossed = match length {
            Some(length) => {
                // The first occurrence at or after `before`.
                let k = ((before - event.time_secs) / length).ceil();
                let at = event.time_secs + k * length;
                at < after
            }
            None => (before..after).contains(&event.time_secs),
        };
        if crossed {
            events_out.push(FiredEvent { event: EventId::from_len(i), state });
        }
    }
    match length {
        Some(length) => {
            let ends = (after / length).floor();
            ends >= 1.0 && ends * length > before
        }
        None => false,
    }
}
