//! [`StageMachine`]: the character's state machine on stage — the core's [`StateMachine`] and
//! its [`MachineRuntime`], stepped by the stage's clock ([`crate::stage::Stage::advance`]) and
//! requested by [`crate::stage::Stage::request_state`]. A transition it starts is played by the
//! stage's one fader (`Stage::fade_with`, the path the T key takes) with that edge's kind,
//! duration, easing, decay, half-life and sync: there is no second fader.
//!
//! A blend-space state plays its blend at the machine's parameters and a layered state its base
//! with its layers ([`super::machine_play::MachinePlay`], the Blend space and Layers sections'
//! core jobs; [`StageMachine::show`]); a transition into or out of a blend-space state fades
//! to or from the blend (the fader's blend-space transitions), a layered state's layers weigh
//! in and out with the transition.
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
    StepOutput, TableEdge, TransitionFrom, TransitionId,
};
use anim::{BlendSpacePlayer, ClipId, FootContact, Model, SampleSettings, SoaPose};

use super::machine_play::{MachinePlay, layer_spec};
use super::transport::Transport;
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
    /// What the blend-space and layered states play.
    play: MachinePlay,
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
            play: MachinePlay::new(),
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
            play: MachinePlay::new(),
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
            machine.add_transition(default.to_transition(TransitionFrom::Any, to));
        }
        lay_out_on_circle(&mut machine);
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
                if same_clips && self.installed.as_ref().is_some_and(|installed| only_moved(installed, edited)) {
                    // Nodes dragged in the graph: the runtime goes on undisturbed.
                    for (i, state) in edited.states().iter().enumerate() {
                        let id = StateId::new(u32::try_from(i).unwrap_or(u32::MAX));
                        self.machine.set_position(id, state.position);
                    }
                    self.installed = Some(edited.clone());
                } else if !same_clips || self.installed.as_ref() != Some(edited) {
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
        let blends_clip = self.machine.state(active).is_some_and(|s| match &s.motion {
            anim::state_machine::StateMotion::BlendSpace(space) => space.points.iter().any(|p| p.clip == clip),
            _ => false,
        });
        if self.clip_of(active) == Some(clip) || blends_clip {
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
        // A blend-space state plays on its own clock while no transition runs (the fader's copy
        // plays it during one).
        let before = self.runtime.output(&self.machine);
        if before.transition.is_none() {
            self.play.advance(before.state, clip_dt_secs);
        }
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
    /// machine's edge between them if it has one (else no id), `weight` eased by `fade`.
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
        let transition = edge.and_then(|i| u32::try_from(i).ok()).map(TransitionId::new);
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
        let fade =
            FadeTuning { match_speed: tuning.fade_for(from_clip, to).match_speed, ..FadeTuning::of_transition(t) };
        Some((to, fade))
    }

    /// Build the blend-space and layered states' players again when the machine's states
    /// changed (`settings`: the layers' additive references); nothing otherwise.
    pub fn sync_play(&mut self, model: &Model, settings: &SampleSettings) {
        self.play.sync(model, settings, &self.machine, &mut self.rig);
    }

    /// Why a blend-space or layered state plays only its primary clip.
    pub fn play_problem(&self) -> Option<&str> {
        self.play.error()
    }

    /// `state`'s blend space at the machine's parameter (`None` when it plays none).
    pub fn blend_space(&mut self, state: StateId) -> Option<&BlendSpacePlayer> {
        self.play.blend_space(state, &self.runtime)
    }

    /// Put into `pose` (the transport's clip or fade, already sampled) what the machine shows
    /// beyond it: the active blend-space state's blend, the active layered state's layers over
    /// its base; during a transition the layers of the states it fades from and to, weighed
    /// out and in, and the fader's copy of a blend space driven by its state's parameters.
    /// Allocates nothing once [`Self::sync_play`] built the players.
    pub fn show(&mut self, model: &Model, settings: &SampleSettings, transport: &mut Transport, pose: &mut SoaPose) {
        let output = self.runtime.output(&self.machine);
        let time_secs = transport.time_secs();
        match output.transition {
            Some(t) if transport.is_fading() => {
                if let Some(player) = transport.fader_mut().blend_space_mut() {
                    let state = if self.play.is_blend_space(t.to) { t.to } else { t.from };
                    self.play.drive(state, &self.runtime, player);
                }
                self.play.apply_layers(model, settings, t.from, 1.0 - t.weight, time_secs, pose);
                self.play.apply_layers(model, settings, t.to, t.weight, time_secs, pose);
            }
            // A fade the machine did not start (T) shows the fader alone.
            _ if transport.is_fading() => {}
            _ => {
                let state = output.state;
                if self.play.is_blend_space(state) {
                    if transport.fader().plays_blend_space()
                        && let Some(player) = transport.fader().blend_space()
                    {
                        // Entered through a transition: on from the time of the fader's copy.
                        self.play.take_time_from(state, player);
                    }
                    self.play.evaluate_blend_space(model, settings, state, &self.runtime, pose);
                }
                self.play.apply_layers(model, settings, state, 1.0, time_secs, pose);
            }
        }
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

/// Distance between two neighbouring states on a table-built machine's circle, graph pixels.
const NODE_SPACING_PX: f32 = 190.0;
/// The smallest radius of that circle, graph pixels.
const MIN_RADIUS_PX: f32 = 180.0;

/// Place `machine`'s states on a circle (the first at the top, clockwise) wide enough for
/// their nodes: where the graph draws a machine built from the table.
pub fn lay_out_on_circle(machine: &mut StateMachine) {
    let count = machine.states().len().max(1) as f32;
    let radius = MIN_RADIUS_PX.max(NODE_SPACING_PX * count / std::f32::consts::TAU);
    let centre = glam::Vec2::splat(radius + 40.0);
    for i in 0..machine.states().len() {
        let Ok(index) = u32::try_from(i) else { break };
        let angle = std::f32::consts::TAU * i as f32 / count - std::f32::consts::FRAC_PI_2;
        machine.set_position(StateId::new(index), centre + radius * glam::Vec2::new(angle.cos(), angle.sin()));
    }
}

/// True when `edited` is `installed` with states moved in the graph and nothing else changed.
fn only_moved(installed: &StateMachine, edited: &StateMachine) -> bool {
    if installed == edited || installed.states().len() != edited.states().len() {
        return false;
    }
    let mut moved = installed.clone();
    for (i, state) in edited.states().iter().enumerate() {
        moved.set_position(StateId::new(u32::try_from(i).unwrap_or(u32::MAX)), state.position);
    }
    moved == *edited
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
        for layer in layered.layers.iter().filter(|l| !l.mask.is_empty() || !l.joint_weights.is_empty()) {
            if let Err(e) = layer_spec(layer).resolve(model) {
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

    fn clip(stage: &Stage, name: &str) -> ClipId {
        stage.clip_names().iter().position(|n| n == name).map(ClipId::from_index).expect("clip")
    }

    /// The largest difference of translations, rotation components and scales between the
    /// animation poses two stages show.
    fn pose_difference(a: &Stage, b: &Stage) -> f32 {
        let (a, b) = (anim::NodePose::from(a.frame().animated()), anim::NodePose::from(b.frame().animated()));
        let t = a.translations.iter().zip(&b.translations).map(|(x, y)| (*x - *y).abs().max_element());
        let s = a.scales.iter().zip(&b.scales).map(|(x, y)| (*x - *y).abs().max_element());
        let r = a
            .rotations
            .iter()
            .zip(&b.rotations)
            .map(|(x, y)| (glam::Vec4::from(*x) - glam::Vec4::from(*y)).abs().max_element());
        t.chain(s).chain(r).fold(0.0, f32::max)
    }

    /// Step `machine`, which stays in `state`, and `same` and `other` together for `frames`
    /// frames at 60 Hz: the machine's largest pose difference from `same`, and from `other`.
    fn play_in_state(
        machine: &mut Stage,
        state: StateId,
        same: &mut Stage,
        other: &mut Stage,
        frames: usize,
    ) -> (f32, f32) {
        let (mut largest, mut off) = (0.0_f32, 0.0_f32);
        for _ in 0..frames {
            machine.step(1.0 / 60.0);
            same.step(1.0 / 60.0);
            other.step(1.0 / 60.0);
            assert_eq!(machine.machine().output().state, state);
            largest = largest.max(pose_difference(machine, same));
            off = off.max(pose_difference(machine, other));
        }
        (largest, off)
    }

    /// The points of the blend spaces below: (clip, x, y).
    const POINTS_1D: [(&str, f32, f32); 2] = [("Walk", 1.4, 0.0), ("Run", 3.4, 0.0)];
    const POINTS_2D: [(&str, f32, f32); 3] = [("Idle", 0.0, 0.0), ("Walk", 1.4, 0.0), ("Run", 1.4, 1.0)];

    /// A blend-space state "Locomotion" of `points` driven by floats `x` and `y` (starting at
    /// `at`), a 0.3 s linear cross-fade into it from Idle and a cut into it from any state.
    fn add_locomotion(stage: &mut Stage, points: &[(&str, f32, f32)], at: glam::Vec2) -> StateId {
        use anim::state_machine::{BlendSpaceMotion, BlendSpacePoint, State, StateMotion};
        let idle = state(stage, "Idle");
        let points: Vec<BlendSpacePoint> = points
            .iter()
            .map(|&(name, x, y)| BlendSpacePoint { clip: clip(stage, name), position: glam::Vec2::new(x, y) })
            .collect();
        let two_d = points.len() > 2;
        stage
            .edit_machine(|m| {
                let x = m.add_param("x", ParamKind::Float(at.x));
                let y = m.add_param("y", ParamKind::Float(at.y));
                let motion = StateMotion::BlendSpace(BlendSpaceMotion {
                    name: "locomotion".to_owned(),
                    two_d,
                    points,
                    x_param: Some(x),
                    y_param: two_d.then_some(y),
                    phase_sync: true,
                });
                let to = m.add_state(State { name: "Locomotion".to_owned(), motion, position: glam::Vec2::ZERO });
                m.add_transition(StateTransition {
                    kind: TransitionKind::CrossFade,
                    easing: Easing::Linear,
                    ..StateTransition::new(TransitionFrom::State(idle), to, 0.3)
                });
                m.add_transition(StateTransition::new(TransitionFrom::Any, to, 0.0));
            })
            .expect("a valid machine");
        state(stage, "Locomotion")
    }

    /// The Blend space section playing `points` at `at`, phase synced, on or off.
    fn section_space(
        points: &[(&str, f32, f32)],
        at: glam::Vec2,
        active: bool,
    ) -> crate::stage::layers::BlendSpaceTuning {
        use crate::stage::layers::{BlendPointSpec, BlendSpaceSpec, BlendSpaceTuning};
        let two_d = points.len() > 2;
        let points = points
            .iter()
            .map(|&(name, x, y)| BlendPointSpec { clip: name.to_owned(), x, y: two_d.then_some(y) })
            .collect();
        BlendSpaceTuning { space: BlendSpaceSpec { points }, at: at.to_array(), phase_sync: true, active }
    }

    #[test]
    fn a_blend_space_state_plays_what_the_blend_space_section_plays_at_its_parameter() {
        /// Clip name, x, y of each point.
        type Points<'a> = &'a [(&'a str, f32, f32)];
        let cases: [(Points, glam::Vec2); 4] = [
            (&POINTS_1D, glam::Vec2::new(2.4, 0.0)),
            (&POINTS_1D, glam::Vec2::new(3.0, 0.0)),
            (&POINTS_2D, glam::Vec2::new(0.9, 0.3)),
            (&POINTS_2D, glam::Vec2::new(1.2, 0.7)),
        ];
        for (points, at) in cases {
            let mut machine = stage();
            let locomotion = add_locomotion(&mut machine, points, at);
            // From Walk (not Idle, whose own edge fades): the cut from any state.
            machine.transport.select_clip(clip(&machine, "Walk"));
            machine.request_state(locomotion).expect("the cut from any state");
            assert_eq!(machine.machine().output().state, locomotion);
            let mut section = stage();
            section.tuning.clip_extras.blend_space = Some(section_space(points, at, true));
            // The section's clock starts on its first frame on: one frame ahead of the request.
            section.step(1.0 / 60.0);
            let mut largest = 0.0_f32;
            for frame in 0..90 {
                machine.step(1.0 / 60.0);
                section.step(1.0 / 60.0);
                assert_eq!(machine.machine().output().state, locomotion, "{at}: frame {frame} stays");
                largest = largest.max(pose_difference(&machine, &section));
            }
            assert!(largest <= 1e-5, "{at}: the machine's blend space is the section's: {largest}");
            // Not the first point's clip alone: the blend moves the pose off Walk's.
            let mut walk = stage();
            walk.transport.select_clip(clip(&walk, points[0].0));
            for _ in 0..91 {
                walk.step(1.0 / 60.0);
            }
            let off = pose_difference(&machine, &walk);
            assert!(off > 1e-2, "{at}: the blend is not its first clip: {off}");
        }
    }

    #[test]
    fn a_blend_space_state_with_phase_sync_off_plays_the_sections_unsynced_blend() {
        use crate::stage::machine_edit::MachineEdit;
        use anim::state_machine::StateMotion;
        for x in [2.4, 3.0] {
            let at = glam::Vec2::new(x, 0.0);
            let mut synced = stage();
            let locomotion = add_locomotion(&mut synced, &POINTS_1D, at);
            let mut machine = stage();
            add_locomotion(&mut machine, &POINTS_1D, at);
            // Sync off through the forms' edit.
            let mut motion = machine.machine().machine().state(locomotion).expect("state").motion.clone();
            let StateMotion::BlendSpace(space) = &mut motion else { panic!("a blend space") };
            assert!(space.phase_sync, "on by default");
            space.phase_sync = false;
            machine.apply_machine_edit(&MachineEdit::SetMotion(locomotion, motion)).expect("a valid edit");
            for stage in [&mut machine, &mut synced] {
                stage.transport.select_clip(clip(stage, "Walk"));
                stage.request_state(locomotion).expect("the cut from any state");
            }
            let mut section = stage();
            let mut tuning = section_space(&POINTS_1D, at, true);
            tuning.phase_sync = false;
            section.tuning.clip_extras.blend_space = Some(tuning);
            section.step(1.0 / 60.0);
            let (mut largest, mut apart) = (0.0_f32, 0.0_f32);
            for frame in 0..90 {
                machine.step(1.0 / 60.0);
                synced.step(1.0 / 60.0);
                section.step(1.0 / 60.0);
                assert_eq!(machine.machine().output().state, locomotion, "{x}: frame {frame} stays");
                largest = largest.max(pose_difference(&machine, &section));
                apart = apart.max(pose_difference(&machine, &synced));
            }
            assert!(largest <= 1e-6, "{x}: sync off is the section's unsynced blend: {largest}");
            assert!(apart > 1e-2, "{x}: and not the synced one: {apart}");
        }
    }

    #[test]
    fn a_blend_space_states_parameter_moves_its_blend() {
        let mut stage = stage();
        let locomotion = add_locomotion(&mut stage, &POINTS_1D, glam::Vec2::new(1.4, 0.0));
        stage.request_state(locomotion).expect("cut");
        stage.step(1.0 / 60.0);
        let weights =
            |stage: &mut Stage| stage.machine_mut().blend_space(locomotion).expect("built").weights().to_vec();
        assert_eq!(weights(&mut stage), vec![1.0, 0.0], "at 1.4: all Walk");
        let x = stage.machine().machine().find_param("x").expect("x");
        let (machine, runtime) = stage.machine_mut().parts_mut();
        runtime.set_float(machine, x, 2.9).expect("a float");
        stage.step(1.0 / 60.0);
        let w = weights(&mut stage);
        assert!((w[0] - 0.25).abs() < 1e-5 && (w[1] - 0.75).abs() < 1e-5, "at 2.9: a quarter Walk: {w:?}");
    }

    #[test]
    fn a_transition_from_idle_into_a_blend_space_state_is_the_sections_and_ends_on_the_blend() {
        let at = glam::Vec2::new(2.4, 0.0);
        let mut machine = stage();
        let locomotion = add_locomotion(&mut machine, &POINTS_1D, at);
        let mut section = stage();
        section.tuning.clip_extras.blend_space = Some(section_space(&POINTS_1D, at, false));
        let (idle, walk, run) = (clip(&section, "Idle"), clip(&section, "Walk"), clip(&section, "Run"));
        for to in [walk, run] {
            section.tuning.set_transition(idle, to, FadeTuning::cross_fade(0.3, Easing::Linear));
        }
        for _ in 0..10 {
            machine.step(1.0 / 60.0);
            section.step(1.0 / 60.0);
        }
        let before = anim::NodePose::from(machine.frame().animated());
        machine.request_state(locomotion).expect("Idle -> Locomotion");
        assert!(section.fade_to_blend_space());
        machine.compute_frame();
        assert!(machine.transport.is_fading(), "the fader runs the edge's 0.3 s");
        let at_start = pose_difference(&machine, &section);
        assert!(at_start <= 1e-5, "it starts where the section's starts: {at_start}");
        let (mut largest, mut frames) = (0.0_f32, 0);
        while machine.transport.is_fading() && frames < 60 {
            machine.step(1.0 / 60.0);
            section.step(1.0 / 60.0);
            largest = largest.max(pose_difference(&machine, &section));
            frames += 1;
        }
        assert!((17..=20).contains(&frames), "the 0.3 s fade ends after {frames} frames");
        assert!(largest <= 1e-5, "every frame of the fade is the section's: {largest}");
        for _ in 0..30 {
            machine.step(1.0 / 60.0);
            section.step(1.0 / 60.0);
        }
        assert!(section.blend_space_on_screen());
        assert_eq!(machine.machine().output().state, locomotion, "the machine stays in the blend space");
        let end = pose_difference(&machine, &section);
        assert!(end <= 1e-5, "it ends on the blended pose: {end}");
        let idle_moved = anim::NodePose::from(machine.frame().animated());
        let moved = before
            .rotations
            .iter()
            .zip(&idle_moved.rotations)
            .map(|(a, b)| (glam::Vec4::from(*a) - glam::Vec4::from(*b)).abs().max_element())
            .fold(0.0, f32::max);
        assert!(moved > 1e-2, "and left Idle's pose: {moved}");
        // And out again: Locomotion -> Idle fades from the blend to Idle's clip.
        machine.request_state(state(&machine, "Idle")).expect("the any-state edge into Idle");
        assert!(machine.transport.is_fading() && !machine.transport.fader().plays_blend_space());
        for _ in 0..40 {
            machine.step(1.0 / 60.0);
        }
        assert!(!machine.transport.is_fading());
        assert_eq!(machine.transport.clip(), Some(idle));
    }

    #[test]
    fn a_layered_state_plays_what_the_layers_section_plays() {
        use crate::stage::layers::LayerSpec;
        use anim::state_machine::{LayerMotion, LayeredMotion, State, StateMotion};
        let mut machine = stage();
        let (idle, wave, walk) = (clip(&machine, "Idle"), clip(&machine, "Wave"), clip(&machine, "Walk"));
        machine
            .edit_machine(|m| {
                let layers = vec![
                    LayerMotion {
                        clip: wave,
                        weight: 0.7,
                        additive: false,
                        mask: vec!["upper-body".to_owned()],
                        joint_weights: Vec::new(),
                    },
                    LayerMotion {
                        clip: walk,
                        weight: 0.5,
                        additive: true,
                        mask: Vec::new(),
                        joint_weights: Vec::new(),
                    },
                ];
                let motion = StateMotion::Layered(LayeredMotion { base: idle, layers });
                let to = m.add_state(State { name: "Waving".to_owned(), motion, position: glam::Vec2::ZERO });
                m.add_transition(StateTransition::new(TransitionFrom::Any, to, 0.0));
            })
            .expect("a valid machine");
        let waving = state(&machine, "Waving");
        machine.request_state(waving).expect("the cut into Waving");
        let mut section = stage();
        section.tuning.clip_extras.layers = vec![
            LayerSpec::parse("Wave:mask=upper-body:weight=0.7").expect("spec"),
            LayerSpec::parse("Walk:additive:weight=0.5").expect("spec"),
        ];
        let mut idle_only = stage();
        let (largest, off) = play_in_state(&mut machine, waving, &mut section, &mut idle_only, 60);
        assert!(largest <= 1e-5, "the layered state is the Layers section's frame: {largest}");
        assert!(off > 1e-2, "and not its base alone: {off}");
    }

    #[test]
    fn a_layered_state_with_painted_joint_weights_plays_what_the_layers_section_plays() {
        use crate::stage::layers::LayerSpec;
        use crate::stage::machine_play::paint_layer;
        use anim::state_machine::{LayerMotion, LayeredMotion, State, StateMotion};
        let mut machine = stage();
        let (idle, wave, walk) = (clip(&machine, "Idle"), clip(&machine, "Wave"), clip(&machine, "Walk"));
        // Wave on the upper body and the left leg, its left arm at 0.3 and its left hand off;
        // Walk additive over the whole body with the right leg at 0.5.
        let mut wave_layer =
            LayerMotion { mask: vec!["upper-body".to_owned(), "UpperLeg.L".to_owned()], ..LayerMotion::new(wave, 0.8) };
        paint_layer(&mut wave_layer, "UpperArm.L".to_owned(), 0.3, true);
        paint_layer(&mut wave_layer, "Hand.L".to_owned(), 0.0, false);
        let mut walk_layer = LayerMotion { additive: true, ..LayerMotion::new(walk, 0.5) };
        paint_layer(&mut walk_layer, "UpperLeg.R".to_owned(), 0.5, true);
        machine
            .edit_machine(|m| {
                let motion = StateMotion::Layered(LayeredMotion { base: idle, layers: vec![wave_layer, walk_layer] });
                let to = m.add_state(State { name: "Waving".to_owned(), motion, position: glam::Vec2::ZERO });
                m.add_transition(StateTransition::new(TransitionFrom::Any, to, 0.0));
            })
            .expect("a valid machine");
        let waving = state(&machine, "Waving");
        machine.request_state(waving).expect("the cut into Waving");
        let specs = |painted: bool| {
            let mut wave = LayerSpec::parse("Wave:mask=upper-body+UpperLeg.L:weight=0.8").expect("spec");
            let mut walk = LayerSpec::parse("Walk:additive:weight=0.5").expect("spec");
            if painted {
                wave.paint("UpperArm.L".to_owned(), 0.3, true);
                wave.paint("Hand.L".to_owned(), 0.0, false);
                walk.paint("UpperLeg.R".to_owned(), 0.5, true);
            }
            vec![wave, walk]
        };
        let mut section = stage();
        section.tuning.clip_extras.layers = specs(true);
        let mut unpainted = stage();
        unpainted.tuning.clip_extras.layers = specs(false);
        let (largest, off) = play_in_state(&mut machine, waving, &mut section, &mut unpainted, 90);
        assert!(largest <= 1e-6, "the painted layered state is the Layers section's frame: {largest}");
        assert!(off > 1e-2, "and the painted weights change it: {off}");
    }

    #[test]
    fn a_transition_into_a_layered_state_weighs_its_layers_in_and_ends_on_the_layers_sections_frame() {
        use crate::stage::layers::LayerSpec;
        use anim::state_machine::{LayerMotion, LayeredMotion, State, StateMotion};
        let mut machine = stage();
        let (idle_clip, wave) = (clip(&machine, "Idle"), clip(&machine, "Wave"));
        let idle = state(&machine, "Idle");
        machine
            .edit_machine(|m| {
                let layer = LayerMotion {
                    clip: wave,
                    weight: 0.7,
                    additive: false,
                    mask: vec!["upper-body".to_owned()],
                    joint_weights: Vec::new(),
                };
                let motion = StateMotion::Layered(LayeredMotion { base: idle_clip, layers: vec![layer] });
                let to = m.add_state(State { name: "Waving".to_owned(), motion, position: glam::Vec2::ZERO });
                m.add_transition(StateTransition {
                    kind: TransitionKind::CrossFade,
                    easing: Easing::Linear,
                    ..StateTransition::new(TransitionFrom::State(idle), to, 0.4)
                });
            })
            .expect("a valid machine");
        let mut section = stage();
        section.tuning.clip_extras.layers = vec![LayerSpec::parse("Wave:mask=upper-body:weight=0.7").expect("spec")];
        for _ in 0..10 {
            machine.step(1.0 / 60.0);
        }
        let before = anim::NodePose::from(machine.frame().animated());
        machine.request_state(state(&machine, "Waving")).expect("Idle -> Waving");
        machine.compute_frame();
        let start = anim::NodePose::from(machine.frame().animated());
        let (a, b) = (&before, &start);
        let start_error = a
            .rotations
            .iter()
            .zip(&b.rotations)
            .map(|(x, y)| (glam::Vec4::from(*x) - glam::Vec4::from(*y)).abs().max_element())
            .fold(0.0, f32::max);
        assert!(start_error <= 1e-5, "the layers start at weight 0: {start_error}");
        // The section's frame at the machine's clip time.
        let section_at = |section: &mut Stage, machine: &Stage| {
            section.transport.seek(machine.transport.time_secs());
            section.compute_frame();
            pose_difference(machine, section)
        };
        for _ in 0..12 {
            machine.step(1.0 / 60.0);
        }
        let mid = section_at(&mut section, &machine);
        assert!(mid > 1e-3, "halfway the layer is not fully in: {mid}");
        for _ in 0..20 {
            machine.step(1.0 / 60.0);
        }
        assert!(!machine.transport.is_fading(), "the 0.4 s fade is over");
        let end = section_at(&mut section, &machine);
        assert!(end <= 1e-5, "it ends on the Layers section's frame: {end}");
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
