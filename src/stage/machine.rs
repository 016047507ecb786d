//! [`StageMachine`]: the character's state machine on stage — the core's [`StateMachine`] and
//! its [`MachineRuntime`], stepped by the stage's clock ([`crate::stage::Stage::advance`]) and
//! requested by [`crate::stage::Stage::request_state`]. A transition it starts is played by the
//! stage's one fader (`Stage::fade_with`, the path the T key takes) with that edge's kind,
//! duration, easing, decay, half-life and sync: there is no second fader.
//!
//! A character whose profile has no machine gets one built from its tuning's transition table
//! ([`StageMachine::from_tuning`]): one state per clip (named as the clip is shown, the first
//! clip the entry), one edge per tuned pair ([`StateMachine::from_transition_table`]) and one
//! any-state edge into every clip with the default fade (`request` prefers a state's own edge), so that — as with T — a pair nobody
//! tuned still plays [`FadeTuning::default`]. Such a machine follows the tuning: a changed table
//! (an edit, an undo) rebuilds it on the next step.
//!
//! Once the user edits the machine ([`crate::stage::Stage::edit_machine`]) the edited machine is
//! part of the tuning ([`Tuning::machine`]): the profile saves it, undo and redo snapshot it, and
//! this runtime follows it (installed again on the next step whenever it changes).

use anim::state_machine::{
    ActiveTransition, FiredEvent, MachineRuntime, ParamValue, RuntimeError, StateId, StateMachine, StateMachineError,
    StateTransition, StepOutput, TableEdge, TransitionFrom, TransitionId,
};
use anim::{ClipId, FootContact, Model};

use super::tuning::{FadeTuning, Tuning};
use crate::transitions::Rig;

/// A clip event added on top of a machine built from the table (kept through rebuilds).
#[derive(Debug, Clone, PartialEq)]
struct ExtraEvent {
    clip: ClipId,
    name: String,
    time_secs: f32,
}

/// The stage's state machine and its runtime (see the module's documentation).
pub struct StageMachine {
    machine: StateMachine,
    runtime: MachineRuntime,
    /// Built from the tuning's table: the table it was built from (rebuilt when it changes).
    table: Option<Vec<((ClipId, ClipId), FadeTuning)>>,
    /// Installed from the tuning's edited machine: that machine as it was (compared each step).
    installed: Option<StateMachine>,
    /// Clip events added to a table-built machine.
    extra_events: Vec<ExtraEvent>,
    /// Each clip's length, seconds (what the runtime loops and ends by).
    clip_secs: Vec<f32>,
    /// The events fired during the last step.
    events: Vec<FiredEvent>,
    /// Why the machine is empty, when it could not be built.
    problem: Option<String>,
    /// Feet and foot contacts for phase-synced edges (found on the first one).
    rig: Option<Rig>,
    /// A fade the machine did not start (T), while it runs: shown and recorded as a transition.
    outside: Option<ActiveTransition>,
    /// The easing of [`Self::outside`]'s weight.
    outside_easing: anim::Easing,
}

impl std::fmt::Debug for StageMachine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StageMachine")
            .field("states", &self.machine.states().len())
            .field("transitions", &self.machine.transitions().len())
            .field("output", &self.runtime.output(&self.machine))
            .field("problem", &self.problem)
            .finish_non_exhaustive()
    }
}

/// The state names of `model`'s clips: the clip's shown name, made unique with `_INDEX`.
pub fn state_names(model: &Model) -> Vec<String> {
    let shown: Vec<String> = model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
    shown
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let repeated = shown.iter().take(i).any(|n| n == name);
            if repeated || name.is_empty() { format!("{name}_{i}") } else { name.clone() }
        })
        .collect()
}

impl StageMachine {
    /// The machine of a character without one: built from `tuning`'s transition table (see the
    /// module's documentation). A model without clips gets an empty machine that does nothing
    /// ([`Self::problem`] says why).
    pub fn from_tuning(model: &Model, tuning: &Tuning) -> Self {
        let mut machine = Self {
            machine: StateMachine::new(),
            runtime: MachineRuntime::new(&StateMachine::new()),
            table: None,
            installed: None,
            extra_events: Vec::new(),
            clip_secs: model.clips().iter().map(anim::Clip::end_secs).collect(),
            events: Vec::new(),
            problem: None,
            rig: None,
            outside: None,
            outside_easing: anim::Easing::Linear,
        };
        machine.refresh(model, tuning);
        machine
    }

    /// `machine` on stage (validated), starting at its entry.
    ///
    /// # Errors
    /// When it does not validate, or a state plays a clip `model` does not have.
    pub fn with_machine(model: &Model, machine: StateMachine) -> Result<Self, StateMachineError> {
        check(model, &machine)?;
        let events = Vec::with_capacity(MachineRuntime::event_capacity(&machine));
        Ok(Self {
            runtime: MachineRuntime::new(&machine),
            machine,
            table: None,
            installed: None,
            extra_events: Vec::new(),
            clip_secs: model.clips().iter().map(anim::Clip::end_secs).collect(),
            events,
            problem: None,
            rig: None,
            outside: None,
            outside_easing: anim::Easing::Linear,
        })
    }

    fn rebuild(&mut self, model: &Model, tuning: &Tuning) {
        let names = state_names(model);
        let clips = names.iter().enumerate().map(|(i, n)| (ClipId::from_index(i), n.as_str()));
        let table: Vec<((ClipId, ClipId), FadeTuning)> = tuning.transitions().collect();
        let edges = table.iter().map(|&((from, to), fade)| TableEdge {
            from,
            to,
            duration_secs: fade.duration_secs,
            kind: fade.kind,
            easing: fade.easing,
            decay: fade.decay,
            half_life_secs: fade.half_life_secs,
            sync: fade.phase_sync,
        });
        let built = if model.clips().is_empty() {
            Err("the model has no clips".to_owned())
        } else {
            StateMachine::from_transition_table(clips, edges).map_err(|e| e.to_string())
        };
        let mut machine = match built {
            Ok(machine) => machine,
            Err(problem) => {
                self.problem = Some(problem);
                self.machine = StateMachine::new();
                self.runtime = MachineRuntime::new(&self.machine);
                self.table = Some(table);
                self.installed = None;
                return;
            }
        };
        let default = FadeTuning::default();
        for (i, _) in names.iter().enumerate() {
            let to = StateId::new(u32::try_from(i).unwrap_or(u32::MAX));
            machine.add_transition(StateTransition {
                easing: default.easing,
                kind: default.kind,
                decay: default.decay,
                half_life_secs: default.half_life_secs,
                sync: default.phase_sync,
                ..StateTransition::new(TransitionFrom::Any, to, default.duration_secs)
            });
        }
        for event in &self.extra_events {
            machine.add_event(event.clip, &event.name, event.time_secs);
        }
        let values = self.values();
        let current = self.runtime.output(&self.machine).state;
        self.machine = machine;
        self.problem = None;
        self.table = Some(table);
        self.installed = None;
        self.events = Vec::with_capacity(MachineRuntime::event_capacity(&self.machine));
        self.runtime = MachineRuntime::new(&self.machine);
        if self.machine.state(current).is_some() {
            self.jump_to(current);
        }
        self.restore(values);
    }

    /// The machine.
    pub fn machine(&self) -> &StateMachine {
        &self.machine
    }

    /// Its runtime (parameters, active state, running transition).
    pub fn runtime(&self) -> &MachineRuntime {
        &self.runtime
    }

    /// The machine and its runtime, to set parameters (`runtime.set_float(machine, …)`); the
    /// next step evaluates them.
    pub fn parts_mut(&mut self) -> (&StateMachine, &mut MachineRuntime) {
        (&self.machine, &mut self.runtime)
    }

    /// What the machine shows now.
    pub fn output(&self) -> StepOutput {
        self.runtime.output(&self.machine)
    }

    /// The events fired during the last step.
    pub fn events(&self) -> &[FiredEvent] {
        &self.events
    }

    /// Why the machine is empty (a model without clips, a table that does not validate).
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// True when built from the tuning's transition table (and following it).
    pub fn is_from_table(&self) -> bool {
        self.table.is_some()
    }

    /// A state's name (`#ID` for one that does not exist).
    pub fn state_name(&self, state: StateId) -> String {
        self.machine.state(state).map_or_else(|| format!("#{state}"), |s| s.name.clone())
    }

    /// The state whose primary clip is `clip`, if any.
    pub fn state_of_clip(&self, clip: ClipId) -> Option<StateId> {
        let index = self.machine.states().iter().position(|s| s.motion.primary_clip() == Some(clip))?;
        Some(StateId::new(u32::try_from(index).ok()?))
    }

    /// The clip a state plays on the stage's transport (its primary clip).
    pub fn clip_of(&self, state: StateId) -> Option<ClipId> {
        self.machine.state(state).and_then(|s| s.motion.primary_clip())
    }

    /// Add a clip event (kept when a table-built machine is rebuilt); returns false when the
    /// machine would not validate with it (a repeated name on that clip, a bad time).
    pub fn add_event(&mut self, clip: ClipId, name: &str, time_secs: f32) -> bool {
        let mut machine = self.machine.clone();
        machine.add_event(clip, name, time_secs);
        if machine.validate().is_err() {
            return false;
        }
        self.machine = machine;
        self.extra_events.push(ExtraEvent { clip, name: name.to_owned(), time_secs });
        // Kept when an edited machine is installed again.
        self.events = Vec::with_capacity(MachineRuntime::event_capacity(&self.machine));
        true
    }

    /// Keep the machine equal to what `tuning` says: its edited machine ([`Tuning::machine`])
    /// installed, else built from its table — again only when that changed (no allocation
    /// otherwise).
    pub fn refresh(&mut self, model: &Model, tuning: &Tuning) {
        let same_clips = self.clip_secs.len() == model.clips().len();
        match &tuning.machine {
            Some(edited) => {
                if !same_clips || self.installed.as_ref() != Some(edited) {
                    self.clip_secs = model.clips().iter().map(anim::Clip::end_secs).collect();
                    self.install(model, tuning, edited);
                }
            }
            None => {
                let same = self.table.as_ref().is_some_and(|table| {
                    table.len() == tuning.transitions().count()
                        && table.iter().zip(tuning.transitions()).all(|(a, b)| *a == b)
                });
                if !same || !same_clips {
                    self.clip_secs = model.clips().iter().map(anim::Clip::end_secs).collect();
                    self.rebuild(model, tuning);
                }
            }
        }
    }

    /// Run `edited` (the tuning's machine): the runtime goes on in the state of the same name
    /// (else the one playing the same clip), parameters kept by id where their kind still
    /// fits. A machine that does not fit the model (an undo across a model change, a hand-edited
    /// profile) is not run: the table's machine is, and [`Self::problem`] says why.
    fn install(&mut self, model: &Model, tuning: &Tuning, edited: &StateMachine) {
        let mut machine = edited.clone();
        for event in self.extra_events.iter().filter(|e| edited.find_event(e.clip, &e.name).is_none()) {
            machine.add_event(event.clip, &event.name, event.time_secs);
        }
        if let Err(e) = check(model, &machine) {
            self.rebuild(model, tuning);
            self.problem = Some(format!("the edited machine is not used: {e}"));
            self.installed = Some(edited.clone());
            return;
        }
        let current = self.runtime.output(&self.machine).state;
        let name = self.machine.state(current).map(|s| s.name.clone());
        let clip = self.clip_of(current);
        let values = self.values();
        self.machine = machine;
        self.problem = None;
        self.table = None;
        self.installed = Some(edited.clone());
        self.events = Vec::with_capacity(MachineRuntime::event_capacity(&self.machine));
        self.runtime = MachineRuntime::new(&self.machine);
        let same_name = name.and_then(|n| self.machine.find_state(&n));
        if let Some(state) = same_name.or_else(|| clip.and_then(|c| self.state_of_clip(c))) {
            self.jump_to(state);
        }
        self.restore(values);
    }

    /// Put the runtime in the state that plays `clip` when the stage plays another clip than
    /// the machine's (the user picked a clip or pressed T): the machine follows what is on
    /// screen, its parameters kept, its time from 0. Nothing when it already agrees or no state
    /// plays `clip`.
    pub fn follow_clip(&mut self, clip: ClipId) {
        let active = self.runtime.output(&self.machine).state;
        if self.clip_of(active) == Some(clip) {
            return;
        }
        if let Some(state) = self.state_of_clip(clip) {
            let values = self.values();
            self.jump_to(state);
            self.restore(values);
        }
    }

    fn values(&self) -> Vec<(usize, ParamValue)> {
        (0..self.machine.params().len())
            .filter_map(|i| {
                self.runtime.value(anim::state_machine::ParamId::new(u32::try_from(i).ok()?)).map(|v| (i, v))
            })
            .collect()
    }

    fn restore(&mut self, values: Vec<(usize, ParamValue)>) {
        for (i, value) in values {
            let Some(param) = u32::try_from(i).ok().map(anim::state_machine::ParamId::new) else { continue };
            // A parameter of another kind (the machine changed) keeps its starting value.
            let _ = match value {
                ParamValue::Float(v) => self.runtime.set_float(&self.machine, param, v),
                ParamValue::Bool(v) => self.runtime.set_bool(&self.machine, param, v),
                ParamValue::Trigger(true) => self.runtime.fire(&self.machine, param),
                ParamValue::Trigger(false) => Ok(()),
            };
        }
    }

    /// A fresh runtime in `state` (the machine's entry for a moment).
    fn jump_to(&mut self, state: StateId) {
        let entry = self.machine.entry();
        self.machine.set_entry(state);
        self.runtime = MachineRuntime::new(&self.machine);
        self.machine.set_entry(entry);
    }

    /// Step the runtime by `clip_dt_secs` (the clip seconds the stage's clock played); the
    /// events fired are in [`Self::events`] until the next step.
    pub fn step(&mut self, clip_dt_secs: f32) -> StepOutput {
        self.events.clear();
        let output = self.runtime.step(&self.machine, clip_dt_secs, &self.clip_secs, &mut self.events);
        self.outside =
            self.outside.filter(|_| output.transition.is_none() && output.started.is_none()).and_then(|mut t| {
                t.elapsed_secs += clip_dt_secs.max(0.0);
                let progress = if t.duration_secs > 0.0 { t.elapsed_secs / t.duration_secs } else { 1.0 };
                (progress < 1.0).then_some(t)
            });
        output
    }

    /// A fade the stage started without the machine (T: clip `from_clip` to clip `to_clip`
    /// with `fade`): until it ends or the machine starts a transition of its own,
    /// [`Self::running_transition`] reports it as a transition between the clips' states — the
    /// machine's edge between them if it has one (else id `u32::MAX`), `weight` eased by `fade`.
    /// Nothing when either clip has no state or the fade is a cut.
    pub fn note_outside_fade(&mut self, from_clip: ClipId, to_clip: ClipId, fade: &FadeTuning) {
        let (Some(from), Some(to)) = (self.state_of_clip(from_clip), self.state_of_clip(to_clip)) else {
            self.outside = None;
            return;
        };
        let edge = self
            .machine
            .transitions()
            .iter()
            .position(|t| t.to == to && t.from == TransitionFrom::State(from))
            .or_else(|| self.machine.transitions().iter().position(|t| t.to == to && t.from == TransitionFrom::Any));
        let transition = TransitionId::new(edge.and_then(|i| u32::try_from(i).ok()).unwrap_or(u32::MAX));
        self.outside = (fade.duration_secs > 0.0 && from != to).then_some(ActiveTransition {
            transition,
            from,
            to,
            weight: 0.0,
            kind: fade.kind,
            elapsed_secs: 0.0,
            duration_secs: fade.duration_secs,
            start_secs: 0.0,
        });
        self.outside_easing = fade.easing;
    }

    /// The transition running now: the machine's, else a fade started without it (T) while it
    /// runs ([`Self::note_outside_fade`]).
    pub fn running_transition(&self) -> Option<ActiveTransition> {
        self.output().transition.or_else(|| {
            self.outside.map(|t| {
                let progress = if t.duration_secs > 0.0 { t.elapsed_secs / t.duration_secs } else { 1.0 };
                ActiveTransition { weight: self.outside_easing.apply(progress.clamp(0.0, 1.0)), ..t }
            })
        })
    }

    /// Go to `to` through the machine's own edge (see [`MachineRuntime::request`]).
    ///
    /// # Errors
    /// When `to` does not exist or no edge leads there.
    pub fn request(&mut self, to: StateId) -> Result<Option<TransitionId>, RuntimeError> {
        self.runtime.request(&self.machine, to, &self.clip_secs)
    }

    /// Transition `id` as the stage's fader plays it: the target clip and the edge's settings
    /// (speed matching from the tuning's pair, which the machine does not hold). `None` for a
    /// transition that does not exist or a target without a clip.
    pub fn fade_of(&self, id: TransitionId, from_clip: ClipId, tuning: &Tuning) -> Option<(ClipId, FadeTuning)> {
        let t = self.machine.transition(id)?;
        let to = self.clip_of(t.to)?;
        let fade = FadeTuning {
            duration_secs: t.duration_secs,
            easing: t.easing,
            kind: t.kind,
            decay: t.decay,
            half_life_secs: t.half_life_secs,
            phase_sync: t.sync,
            match_speed: tuning.fade_for(from_clip, to).match_speed,
        };
        Some((to, fade))
    }

    /// Foot contacts of `clips` for a phase-synced fade: the tuning's edited markers, else
    /// found on the model (the rig found once).
    pub fn contacts(&mut self, model: &Model, tuning: &Tuning, clips: [ClipId; 2]) -> [Vec<FootContact>; 2] {
        let rig = self.rig.get_or_insert_with(|| Rig::new(model));
        clips.map(|clip| {
            let name = model.clip(clip).map(|c| c.display_name(clip.index())).unwrap_or_default();
            match tuning.clip_extras.markers.iter().find(|m| m.clip == name) {
                Some(stored) => rig.stored_contacts(stored.contacts.iter().map(|c| (c.foot.as_str(), c.time_secs))),
                None => rig.contacts(model, clip),
            }
        })
    }
}

/// `machine` validates and plays only clips `model` has.
///
/// # Errors
/// The validation's error, or a state naming a clip the model lacks.
pub fn check(model: &Model, machine: &StateMachine) -> Result<(), StateMachineError> {
    machine.validate()?;
    let missing = machine.states().iter().find_map(|s| {
        let clips = match &s.motion {
            anim::state_machine::StateMotion::Clip(c) => vec![*c],
            anim::state_machine::StateMotion::BlendSpace(b) => b.points.iter().map(|p| p.clip).collect(),
            anim::state_machine::StateMotion::Layered(l) => {
                std::iter::once(l.base).chain(l.layers.iter().map(|l| l.clip)).collect()
            }
        };
        clips.into_iter().find(|c| c.index() >= model.clips().len()).map(|c| (s.name.clone(), c))
    });
    if let Some((state, clip)) = missing {
        return Err(StateMachineError::BadState {
            state,
            problem: format!("plays clip {}, which the model does not have", clip.index()),
        });
    }
    // Layer masks name joints or regions as the Layers section's do: resolved the same way.
    for state in machine.states() {
        let anim::state_machine::StateMotion::Layered(layered) = &state.motion else { continue };
        for layer in layered.layers.iter().filter(|l| !l.mask.is_empty()) {
            let spec = super::layers::LayerSpec {
                mask: layer.mask.clone(),
                ..super::layers::LayerSpec::new(layer.clip.index().to_string())
            };
            if let Err(e) = spec.resolve(model) {
                return Err(StateMachineError::BadState { state: state.name.clone(), problem: format!("mask: {e}") });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use anim::state_machine::{Compare, Condition, ParamKind, StateTransition, TransitionFrom};
    use anim::{Easing, TransitionKind};

    use super::super::{ModelSource, Stage};
    use super::*;

    fn stage() -> Stage {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let tuning = Tuning::authored(&model);
        Stage::new(model, ModelSource::built_in(), tuning)
    }

    fn state(stage: &Stage, name: &str) -> StateId {
        stage.machine().machine().find_state(name).expect("state")
    }

    /// The fade the fader runs now: (target clip, its fade-in length).
    fn fading(stage: &Stage) -> Option<(ClipId, f32)> {
        let fader = stage.transport.fader();
        fader.is_fading().then(|| fader.layers().last().map(|l| (l.clip, l.duration_secs))).flatten()
    }

    #[test]
    fn the_table_becomes_one_state_per_clip_and_its_pairs_plus_a_default_edge_into_each() {
        let mut stage = stage();
        let walk = stage.clip_names().iter().position(|n| n == "Walk").map(ClipId::from_index).expect("Walk");
        let run = ClipId::new(2);
        stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.5, Easing::Linear));
        stage.step(1.0 / 60.0);
        let machine = stage.machine().machine();
        assert_eq!(machine.states().len(), 8, "the built-in character's 8 clips");
        assert_eq!(machine.transitions().len(), 1 + 8, "one tuned pair and one any-state edge per clip");
        assert_eq!(stage.machine().state_name(machine.entry()), "Idle");
        assert!(stage.machine().is_from_table());
    }

    #[test]
    fn a_request_plays_the_edges_fade_on_the_stages_fader() {
        let mut stage = stage();
        let (idle, walk, run) = (state(&stage, "Idle"), state(&stage, "Walk"), state(&stage, "Run"));
        let walk_clip = stage.machine().clip_of(walk).expect("clip");
        stage.tuning.set_transition(ClipId::new(0), walk_clip, FadeTuning::cross_fade(0.8, Easing::Linear));
        assert_eq!(stage.machine().output().state, idle);
        let started = stage.request_state(walk).expect("Idle -> Walk");
        let edge = stage.machine().machine().transition(started.expect("a transition")).expect("edge");
        assert_eq!(edge.from, TransitionFrom::State(idle), "the tuned pair's own edge, not the any-state one");
        assert_eq!(fading(&stage), Some((walk_clip, 0.8)), "the fader fades into Walk over the tuned 0.8 s");
        assert_eq!(stage.transport.clip(), Some(walk_clip));
        // Walk -> Run was never tuned: the any-state edge with the default fade, as T plays it.
        stage.step(1.0);
        stage.request_state(run).expect("Walk -> Run");
        let run_clip = stage.machine().clip_of(run).expect("clip");
        assert_eq!(fading(&stage), Some((run_clip, crate::stage::tuning::DEFAULT_FADE_SECS)));
        assert!(matches!(stage.request_state(StateId::new(99)), Err(RuntimeError::UnknownState(_))));
    }

    #[test]
    fn a_parameter_change_makes_the_fader_start_idle_to_walk_with_the_edges_duration() {
        let mut stage = stage();
        let (idle, walk) = (state(&stage, "Idle"), state(&stage, "Walk"));
        let walk_clip = stage.machine().clip_of(walk).expect("clip");
        let mut speed = None;
        stage
            .edit_machine(|m| {
                let param = m.add_param("speed", ParamKind::Float(0.0));
                m.add_transition(StateTransition {
                    conditions: vec![Condition::Float { param, compare: Compare::Greater, value: 0.5 }],
                    kind: TransitionKind::CrossFade,
                    easing: Easing::Linear,
                    ..StateTransition::new(TransitionFrom::State(idle), walk, 0.4)
                });
                speed = Some(param);
            })
            .expect("a valid machine");
        let speed = speed.expect("param");
        stage.step(0.1);
        assert_eq!(fading(&stage), None, "speed 0: Idle stays");
        assert_eq!(stage.machine().output().state, idle);
        let (machine, runtime) = stage.machine_mut().parts_mut();
        runtime.set_float(machine, speed, 1.0).expect("a float");
        stage.step(1.0 / 60.0);
        assert_eq!(stage.machine().output().state, walk);
        assert_eq!(fading(&stage), Some((walk_clip, 0.4)), "the stage's one fader runs the edge's 0.4 s");
        let running = stage.machine().output().transition.expect("running");
        assert!((running.duration_secs - 0.4).abs() < 1e-6);
        // The fade ends when the edge's duration has played on the clock.
        for _ in 0..30 {
            stage.step(1.0 / 60.0);
        }
        assert_eq!(fading(&stage), None, "0.5 s later the 0.4 s fade is over");
        assert_eq!(stage.machine().output().transition, None);
    }

    #[test]
    fn the_machine_follows_a_clip_picked_outside_it_keeping_its_parameters() {
        let mut stage = stage();
        let run = state(&stage, "Run");
        stage
            .edit_machine(|m| {
                m.add_param("speed", ParamKind::Float(0.0));
            })
            .expect("valid");
        let param = stage.machine().machine().find_param("speed").expect("param");
        let (machine, runtime) = stage.machine_mut().parts_mut();
        runtime.set_float(machine, param, 2.5).expect("a float");
        stage.transport.select_clip(stage.machine().clip_of(run).expect("clip"));
        stage.step(1.0 / 60.0);
        assert_eq!(stage.machine().output().state, run);
        assert_eq!(stage.machine().runtime().value(param), Some(ParamValue::Float(2.5)));
    }

    #[test]
    fn an_edit_is_stored_in_the_tuning_refused_when_invalid_and_undone_as_one_step() {
        use crate::stage::machine_edit::{MachineEdit, MachineEditError};
        let mut stage = stage();
        let jump = state(&stage, "Jump");
        assert_eq!(stage.machine().machine().states().len(), 8);
        stage.apply_machine_edit(&MachineEdit::RemoveState(jump)).expect("a valid edit");
        assert_eq!(stage.machine().machine().states().len(), 7, "Jump removed");
        assert!(!stage.machine().is_from_table(), "edited: no longer rebuilt from the table");
        assert_eq!(stage.tuning.machine.as_ref().map(|m| m.states().len()), Some(7), "the tuning holds it");
        stage.history.commit(&stage.tuning, true);
        let add = MachineEdit::AddParam { name: "speed".to_owned(), kind: ParamKind::Float(0.0) };
        stage.apply_machine_edit(&add).expect("a new parameter");
        stage.history.commit(&stage.tuning, true);
        let again = stage.apply_machine_edit(&add);
        assert!(matches!(again, Err(MachineEditError::Invalid(_))), "a repeated name is refused: {again:?}");
        assert_eq!(stage.machine().machine().params().len(), 1, "the old machine stays");
        let missing = stage.apply_machine_edit(&MachineEdit::RemoveState(StateId::new(40)));
        assert_eq!(missing.map_err(|e| e.to_string()), Err("state 40 does not exist".to_owned()));
        assert_eq!(stage.history.undo_steps(), 2, "two edits, two steps");
        assert!(stage.undo());
        assert_eq!(stage.machine().machine().params().len(), 0, "undo took the parameter back");
        assert!(stage.undo());
        assert_eq!(stage.machine().machine().states().len(), 8, "and Jump");
        assert!(stage.machine().is_from_table(), "the table's machine again");
        assert!(stage.redo());
        assert_eq!(stage.machine().machine().states().len(), 7);
    }
}
