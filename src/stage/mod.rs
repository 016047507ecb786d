//! The character on stage, without egui, winit or wgpu: the state the viewer's panels read and
//! change — every tunable and its undo history ([`tuning`]), the selected joint and channel
//! ([`selection`]), the pose jobs the frame and the compare view share ([`sampling`]), models
//! loaded in the background ([`loading`]), frame statistics ([`stats`]) and the character's
//! state machine ([`machine`], stepped by the clock, its transitions played by the one fader).
//! It sits above the renderer and the physics and below the UI and the command line:
//! `crate::profile` and `crate::cli` take their types from here, never from `crate::ui`.

pub mod bevy_export;
pub mod compare;
pub mod crowd;
pub mod engine_export;
pub mod frame;
pub mod kind_compare;
pub mod layer_play;
pub mod layers;
pub mod loading;
pub mod machine;
pub mod machine_edit;
pub mod machine_keys;
pub mod machine_play;
pub mod ragdoll;
pub mod rewind;
pub mod sampling;
pub mod selection;
pub mod stats;
pub mod transport;
pub mod tuning;

use std::path::{Path, PathBuf};

use anim::ragdoll::Placement;
use anim::{ClipId, Model};

use anim::state_machine::{RuntimeError, StateId, StateMachine, StateMachineError, TransitionId};

use crate::physics::Phase;

use compare::Compare;
use crowd::CrowdPanel;
use frame::FrameOutput;
use machine::StageMachine;
use ragdoll::RagdollView;
use rewind::{ShownFacts, StageRewind};
use selection::Selection;
use transport::Transport;
use tuning::{FadeTuning, Tuning, TuningHistory};

/// Seconds after the handoff at which the animation is sampled for the bodies' velocities.
pub const HANDOFF_VELOCITY_SECS: f32 = 1.0 / 60.0;

/// Where the model on screen came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSource {
    /// Shown in the window: the file's path, or "built-in character".
    pub label: String,
    /// The file, when there is one.
    pub path: Option<PathBuf>,
}

impl ModelSource {
    /// The built-in character.
    pub fn built_in() -> Self {
        Self { label: "built-in character".to_owned(), path: None }
    }

    /// A file.
    pub fn file(path: &Path) -> Self {
        Self { label: path.display().to_string(), path: Some(path.to_path_buf()) }
    }

    /// The file name without extension (identity of unnamed rigs), if there is a file.
    pub fn stem(&self) -> Option<String> {
        self.path.as_ref().and_then(|p| p.file_stem()).map(|s| s.to_string_lossy().into_owned())
    }

    /// The short name for titles: the file name, or the label.
    pub fn short_name(&self) -> String {
        self.path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or_else(|| self.label.clone(), |n| n.to_string_lossy().into_owned())
    }
}

/// The character on stage and everything about it: the model and where it came from, the one
/// clock ([`Transport`], which plays transitions through its cross-fader), the tuning and its
/// history, the selection, the extra pose producers (compare, kind compare, crowd) and the
/// ragdoll — and this frame's [`FrameOutput`], made by [`Stage::step`] in one fixed order and
/// read-only after it.
#[derive(Debug)]
pub struct Stage {
    model: Model,
    source: ModelSource,
    generation: u64,
    /// The one clock: clip, time, play/pause, speed, loop, frame steps, transitions.
    pub transport: Transport,
    /// Every tunable of the model.
    pub tuning: Tuning,
    /// Undo/redo of the tuning.
    pub history: TuningHistory,
    /// The selected joint and channel.
    pub selection: Selection,
    /// Interpolation-mode and transition-kind compare.
    pub compare: Compare,
    /// The ragdoll: controller, placement, colliders, weight history.
    pub ragdoll: RagdollView,
    /// Crowd mode.
    pub crowd: CrowdPanel,
    /// Draw the root's trajectory (the frame computes its path only when on).
    pub trajectory: bool,
    /// The clip the next transition goes to (T triggers it).
    pub fade_target: ClipId,
    /// The state machine (built from the tuning's transition table), stepped by the clock.
    machine: StageMachine,
    frame: FrameOutput,
    /// The last seconds of frames, and the scrub position while rewinding.
    rewind: StageRewind,
    /// The machine stepped since the last recorded frame (its events belong to the next one).
    events_pending: bool,
}

/// The stage's parts borrowed apart: a panel reads the model (and the frame) while it changes
/// a part.
#[derive(Debug)]
pub struct StageParts<'a> {
    /// The model on stage.
    pub model: &'a Model,
    /// Counts model changes.
    pub generation: u64,
    /// The clock.
    pub transport: &'a mut Transport,
    /// The tunables.
    pub tuning: &'a mut Tuning,
    /// The selected joint and channel.
    pub selection: &'a mut Selection,
    /// Compare state.
    pub compare: &'a mut Compare,
    /// The ragdoll.
    pub ragdoll: &'a mut RagdollView,
    /// Crowd mode.
    pub crowd: &'a mut CrowdPanel,
    /// The clip the next transition goes to.
    pub fade_target: &'a mut ClipId,
    /// This frame's output.
    pub frame: &'a FrameOutput,
    /// What the frame shows, live or rewound ([`Stage::shown`]).
    pub shown: ShownFacts<'a>,
}

impl Stage {
    /// The model, the tuning and the layer player (the Layers and Blend space sections edit
    /// the tuning's layers and read or restart the player).
    pub fn layer_parts(&mut self) -> (&Model, &mut Tuning, &mut layer_play::LayerPlay) {
        (&self.model, &mut self.tuning, &mut self.frame.layers)
    }

    /// The parts borrowed apart (see [`StageParts`]).
    pub fn parts(&mut self) -> StageParts<'_> {
        let shown = ShownFacts::of(&self.rewind, &self.transport, &self.machine, &self.frame.layers);
        StageParts {
            shown,
            model: &self.model,
            generation: self.generation,
            transport: &mut self.transport,
            tuning: &mut self.tuning,
            selection: &mut self.selection,
            compare: &mut self.compare,
            ragdoll: &mut self.ragdoll,
            crowd: &mut self.crowd,
            fade_target: &mut self.fade_target,
            frame: &self.frame,
        }
    }

    /// `model` from `source` on stage with `tuning`, playing its first clip from 0.
    pub fn new(model: Model, source: ModelSource, tuning: Tuning) -> Self {
        let transport = Transport::new(&model);
        let selection = Selection::first_animated(&model, transport.clip());
        let machine = StageMachine::from_tuning(&model, &tuning);
        let mut stage = Self {
            machine,
            rewind: StageRewind::default(),
            events_pending: false,
            history: TuningHistory::new(&tuning),
            frame: FrameOutput::new(&model),
            crowd: CrowdPanel::default(),
            transport,
            tuning,
            selection,
            compare: Compare::default(),
            ragdoll: RagdollView::default(),
            trajectory: false,
            fade_target: default_fade_target(&model),
            generation: 0,
            source,
            model,
        };
        stage.compute_frame();
        stage
    }

    /// The model on stage.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// Where the model came from.
    pub fn source(&self) -> &ModelSource {
        &self.source
    }

    /// Counts model changes (caches keyed by the model compare it).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// This frame's output (poses, matrices, heat, lines), as [`Self::step`] left it.
    pub fn frame(&self) -> &FrameOutput {
        &self.frame
    }

    /// The height of the ground under the model (the lowest point it reaches; found once).
    pub fn ground_height(&mut self) -> f32 {
        self.frame.ground_height(&self.model)
    }

    /// Display names of the model's clips.
    pub fn clip_names(&self) -> Vec<String> {
        self.model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect()
    }

    /// Another model on stage with its own `tuning`: everything model-specific starts over
    /// (clip, selection, ragdoll, crowd at the same size, history), compare settings stay.
    pub fn switch_model(&mut self, model: Model, source: ModelSource, tuning: Tuning) {
        self.transport = Transport::new(&model);
        self.selection = Selection::first_animated(&model, self.transport.clip());
        self.ragdoll = self.ragdoll.for_new_model();
        self.crowd = self.crowd.for_new_model(&model, tuning.interpolation().mode);
        self.frame = FrameOutput::new(&model);
        self.rewind.reset();
        self.fade_target = default_fade_target(&model);
        self.model = model;
        self.source = source;
        self.generation += 1;
        self.set_tuning(tuning);
    }

    /// The same rig again (a reload or re-export) with `tuning` carried over by names: the
    /// clip, time and transport settings and the selected joint are kept by name; the undo
    /// history starts here (its steps refer to the old model's clips and tracks).
    pub fn replace_model(&mut self, model: Model, source: ModelSource, tuning: Tuning) {
        let clip_name = self.transport.clip().map(|c| self.transport.clip_name(c).to_owned());
        let old = &self.transport;
        let (time, playing, speed, looping) = (old.time_secs(), old.playing, old.speed, old.looping);
        let joint_name = self.selection.joint.map(|n| selection::node_display_name(&self.model, n));
        let mut transport = Transport::new(&model);
        if let Some(clip) = clip_name
            .and_then(|name| model.clip_ids().find(|&(id, c)| c.display_name(id.index()) == name).map(|(id, _)| id))
        {
            transport.select_clip(clip);
            transport.seek(time);
        }
        (transport.playing, transport.speed, transport.looping) = (playing, speed, looping);
        let joint =
            joint_name.and_then(|name| model.node_ids().find(|&n| selection::node_display_name(&model, n) == name));
        self.selection = match joint {
            Some(joint) => Selection { joint: Some(joint), ..self.selection },
            None => Selection::first_animated(&model, transport.clip()),
        };
        self.transport = transport;
        if model.clip(self.fade_target).is_none() {
            self.fade_target = default_fade_target(&model);
        }
        self.ragdoll = self.ragdoll.for_new_model();
        self.crowd = self.crowd.for_new_model(&model, tuning.interpolation().mode);
        self.frame = FrameOutput::new(&model);
        self.rewind.reset();
        self.model = model;
        self.source = source;
        self.generation += 1;
        self.set_tuning(tuning);
    }

    /// Replace the tuning (a profile opened or imported) with a fresh undo history.
    pub fn set_tuning(&mut self, tuning: Tuning) {
        self.tuning = tuning;
        self.machine = StageMachine::from_tuning(&self.model, &self.tuning);
        self.history = TuningHistory::new(&self.tuning);
        self.compute_frame();
    }

    /// Undo the last tuning change.
    pub fn undo(&mut self) -> bool {
        let undone = self.history.undo(&mut self.tuning);
        self.sync_machine();
        undone
    }

    /// Redo the last undone tuning change.
    pub fn redo(&mut self) -> bool {
        let redone = self.history.redo(&mut self.tuning);
        self.sync_machine();
        redone
    }

    /// One frame, in one fixed order: the clock (`dt_secs` of wall time, once, for every pose
    /// producer: the transport and its transition, the crowd, the kind compare, the ragdoll's
    /// weight history), then the frame output (poses, ragdoll step, local→model, heat,
    /// colliders, trajectory). Read-only until the next step.
    pub fn step(&mut self, dt_secs: f32) -> &FrameOutput {
        self.advance(dt_secs);
        self.compute_frame();
        &self.frame
    }

    /// The clock part of [`Self::step`]: time enters here and only here (and not while
    /// rewound: the live clock holds).
    pub fn advance(&mut self, dt_secs: f32) {
        if self.is_rewound() {
            // Scrubbing: the live clock holds where it was until `resume_live`.
            return;
        }
        let clip_dt = self.transport.advance(dt_secs);
        self.step_machine(clip_dt);
        self.events_pending = true;
        self.crowd.advance(&self.model, clip_dt, self.tuning.interpolation().mode);
        if let Some(from) = self.transport.clip() {
            let to = self.fade_target;
            let fade = self.tuning.fade_for(from, to);
            let settings = self.tuning.interpolation().to_settings();
            self.compare.kinds.advance(&self.model, &settings, from, to, fade, clip_dt);
        }
        self.ragdoll.record(self.transport.clock_secs());
    }

    /// The frame part of [`Self::step`] (also after a change made between frames: an edit, a
    /// seek, a trigger), so that what is drawn is what the state says.
    pub fn compute_frame(&mut self) {
        profiling::scope!("compute_frame");
        if self.rewind.scrub_secs_before_live().is_some() {
            let rewind = &mut self.rewind;
            if self.frame.show_pose(&self.model, |pose| rewind.write_scrubbed(pose)) {
                return;
            }
            // Nothing stored to show: back to live.
            self.rewind.leave_scrub();
        }
        self.frame.trajectory = self.trajectory;
        self.frame.compute(
            &self.model,
            &mut self.transport,
            &self.tuning,
            &self.compare,
            &mut self.ragdoll,
            &mut self.machine,
        );
        self.compare.kinds.record(self.frame.model_from_node(), self.frame.compare_model_from_node());
        let layers = &self.frame.layers;
        let layer_count = self.tuning.clip_extras.layers.len();
        self.rewind.record(
            self.frame.shown(),
            &self.transport,
            &self.machine,
            (0..layer_count).map(|i| layers.layer_weight(i)),
            layer_count,
            std::mem::take(&mut self.events_pending),
        );
    }

    /// The rewind ring: what it holds, its memory, the scrub position and the stored facts.
    pub fn rewind(&self) -> &StageRewind {
        &self.rewind
    }

    /// What the frame on screen shows — clip and time, state, transition, layer weights,
    /// parameters — the stored frame's while rewound, else the live ones: what every panel
    /// reads so that they all follow a rewind.
    pub fn shown(&self) -> ShownFacts<'_> {
        ShownFacts::of(&self.rewind, &self.transport, &self.machine, &self.frame.layers)
    }

    /// Move the rewind `frames` stored frames (negative: back, older; positive: towards live),
    /// entering the rewind at the newest stored frame when live; clamped to the oldest and the
    /// newest frame (forward past the newest stays rewound there: [`Self::resume_live`] leaves).
    /// False when nothing is stored.
    pub fn step_rewind(&mut self, frames: i32) -> bool {
        let Some(secs) = self.rewind.stepped_secs(frames) else { return false };
        self.rewind_to(secs)
    }

    /// True while a stored frame is shown instead of the live one.
    pub fn is_rewound(&self) -> bool {
        self.rewind.scrub_secs_before_live().is_some()
    }

    /// Show the frame shown `secs_before_live` seconds before the live one (clamped to what is
    /// held): the frame output's pose comes from the ring, the live clock holds until
    /// [`Self::resume_live`]. False (staying live) when nothing is stored.
    pub fn rewind_to(&mut self, secs_before_live: f64) -> bool {
        self.rewind.set_scrub(secs_before_live);
        self.compute_frame();
        self.is_rewound()
    }

    /// Back to the live state exactly as it was when the scrub began: the clock resumes where
    /// it held and the ring records on from there.
    pub fn resume_live(&mut self) {
        if self.is_rewound() {
            self.rewind.leave_scrub();
            self.compute_frame();
        }
    }

    /// Transition to clip `to` from what is on screen, with the pair's tuned fade: the clip
    /// (or the blend in progress) through the fader, or — while ragdolling — from the body,
    /// blended into `to` started from 0.
    pub fn trigger_fade(&mut self, to: ClipId, contacts: &dyn Fn(ClipId) -> Vec<anim::FootContact>) {
        if self.blend_space_on_screen() {
            self.fade_from_blend_space(to);
            return;
        }
        let Some(current) = self.transport.clip() else { return };
        let fade: FadeTuning = self.tuning.fade_for(current, to);
        // The machine follows the clip without a transition of its own: it shows (and the
        // rewind records) this fade as one.
        self.machine.note_outside_fade(current, to, &fade);
        self.fade_with(to, fade, contacts);
    }

    /// Select `joint` (the curves, the channel override, the skeleton highlight and the ragdoll
    /// push follow it; `None`: no joint). False (nothing changes) for a node the model lacks.
    pub fn select_joint(&mut self, joint: Option<anim::NodeId>) -> bool {
        let known = joint.is_none_or(|n| self.model.node(n).is_some());
        if known {
            self.selection.joint = joint;
        }
        known
    }

    /// Edit the tuning as a panel does (a layer, the blend space, a key binding): `edit` changes
    /// it in place and the change becomes one undo step, as the viewer commits a panel's edit at
    /// the end of its frame.
    pub fn edit_tuning(&mut self, edit: impl FnOnce(&mut Tuning)) {
        edit(&mut self.tuning);
        self.history.commit(&self.tuning, true);
    }

    /// Tune the ragdoll handoff (one change of the tuning, undone as one step).
    pub fn set_ragdoll_tuning(&mut self, ragdoll: tuning::RagdollTuning) {
        self.tuning.ragdoll = ragdoll;
    }

    /// Pick the clip the next transition goes to (T triggers it); false (nothing changes) for a
    /// clip the model lacks.
    pub fn set_fade_target(&mut self, to: ClipId) -> bool {
        let known = self.model.clip(to).is_some();
        if known {
            self.fade_target = to;
        }
        known
    }

    /// True when the blend space plays on screen (on, built, no transition running, no
    /// ragdoll): a transition then starts from it.
    pub fn blend_space_on_screen(&self) -> bool {
        self.tuning.clip_extras.blend_space.as_ref().is_some_and(|b| b.active)
            && self.frame.layers.player().is_some()
            && !self.transport.is_fading()
            && !self.ragdoll.is_active()
    }

    /// Transition from the blend space on screen to clip `to` with the tuned fade from the
    /// space's heaviest clip to `to` (its kind: cross-fade, inertialization, dead blending; with
    /// phase sync, `to` starts at the heaviest clip's phase by their foot contacts):
    /// the fader starts from the blended pose and its motion, and the clip plays after it
    /// (the blend space is turned off in the tuning). False when the blend space is not on
    /// screen or `to` is not a clip.
    pub fn fade_from_blend_space(&mut self, to: ClipId) -> bool {
        if !self.blend_space_on_screen() || self.model.clip(to).is_none() {
            return false;
        }
        let Some(player) = self.frame.layers.player() else { return false };
        let from = heaviest_point_clip(player);
        let fade = self.tuning.fade_for(from, to);
        let from_time = heaviest_clip_time(player);
        let start_secs = self.synced_start_secs(from, from_time, to, &fade);
        let Some(player) = self.frame.layers.player() else { return false };
        let settings = self.tuning.interpolation().to_settings();
        self.transport.fade_from_blend_space(&self.model, &settings, player, (to, start_secs), fade);
        if let Some(space) = &mut self.tuning.clip_extras.blend_space {
            space.active = false;
        }
        self.compute_frame();
        true
    }

    /// Transition from what is on screen (the clip, or the blend in progress) to the blend space
    /// at its parameter, with the tuned fade from the clip on screen to the space's heaviest
    /// clip; the blend space plays after it (turned on in the tuning). False when there is no
    /// built blend space, it already plays, or the ragdoll has the body.
    pub fn fade_to_blend_space(&mut self) -> bool {
        let on = self.tuning.clip_extras.blend_space.as_ref().is_some_and(|b| b.active);
        let Some(player) = self.frame.layers.player() else { return false };
        if self.blend_space_on_screen() || (on && !self.transport.is_fading()) || self.ragdoll.is_active() {
            return false;
        }
        let Some(from) = self.transport.clip() else { return false };
        let fade = self.tuning.fade_for(from, heaviest_point_clip(player));
        let settings = self.tuning.interpolation().to_settings();
        self.transport.fade_to_blend_space(&self.model, &settings, player, fade);
        if let Some(space) = &mut self.tuning.clip_extras.blend_space {
            space.active = true;
        }
        self.compute_frame();
        true
    }

    /// Where a transition from a blend space whose heaviest clip `from` is at `from_time` starts
    /// clip `to`: with phase sync, at that clip's phase by foot contacts; else at 0.
    fn synced_start_secs(&mut self, from: ClipId, from_time: Option<f32>, to: ClipId, fade: &FadeTuning) -> f32 {
        match from_time {
            Some(time) if fade.phase_sync => {
                let [from_contacts, to_contacts] = self.foot_contacts([from, to]);
                let secs = |c: ClipId| self.model.clip(c).map_or(0.0, anim::Clip::end_secs);
                anim::synced_start_secs(secs(from), time, &from_contacts, secs(to), &to_contacts, fade.duration_secs)
            }
            _ => 0.0,
        }
    }

    /// The one path every transition takes (T, the state machine): to clip `to` with `fade`,
    /// through the fader or, while ragdolling, the ragdoll's blend out.
    fn fade_with(&mut self, to: ClipId, fade: FadeTuning, contacts: &dyn Fn(ClipId) -> Vec<anim::FootContact>) {
        if self.transport.clip().is_none() || self.model.clip(to).is_none() {
            return;
        }
        if self.ragdoll.phase() == Phase::Ragdoll {
            self.transport.play_from_start(to);
            self.ragdoll.blend_out(&self.model, fade.duration_secs, fade.easing);
        } else {
            let settings = self.tuning.interpolation().to_settings();
            self.transport.fade_to(&self.model, &settings, to, fade, contacts);
        }
    }

    /// The state machine (read: its states, parameters, active state and running transition).
    pub fn machine(&self) -> &StageMachine {
        &self.machine
    }

    /// The state machine, to set parameters or edit it; the next [`Self::advance`] evaluates
    /// the change and plays the transition it starts.
    pub fn machine_mut(&mut self) -> &mut StageMachine {
        &mut self.machine
    }

    /// Edit the state machine: `edit` changes a copy of the machine running now; when the copy
    /// validates and plays only clips the model has, it becomes the tuning's machine
    /// ([`Tuning::machine`]: saved in the profile, one undo step once the history commits) and
    /// runs from now on. Otherwise nothing changes.
    ///
    /// # Errors
    /// The copy's validation error (naming the state, parameter or transition at fault).
    pub fn edit_machine(&mut self, edit: impl FnOnce(&mut StateMachine)) -> Result<(), StateMachineError> {
        self.sync_machine();
        let mut machine = self.tuning.machine.clone().unwrap_or_else(|| self.machine.machine().clone());
        edit(&mut machine);
        machine::check(&self.model, &machine)?;
        self.tuning.machine = Some(machine);
        self.sync_machine();
        Ok(())
    }

    /// Apply one [`machine_edit::MachineEdit`] through [`Self::edit_machine`].
    ///
    /// # Errors
    /// When the edit names a state, transition or parameter that does not exist, or the
    /// machine would not validate with it.
    pub fn apply_machine_edit(
        &mut self,
        edit: &machine_edit::MachineEdit,
    ) -> Result<(), machine_edit::MachineEditError> {
        let names = machine::state_names(&self.model);
        self.sync_machine();
        let mut edited = self.tuning.machine.clone().unwrap_or_else(|| self.machine.machine().clone());
        // A rename: the old name, for the drive keys and key bindings that name it.
        let renamed = match edit {
            machine_edit::MachineEdit::RenameState(id, name) => {
                edited.state(*id).map(|s| (true, s.name.clone(), name.clone()))
            }
            machine_edit::MachineEdit::RenameParam(id, name) => {
                edited.param(*id).map(|p| (false, p.name.clone(), name.clone()))
            }
            _ => None,
        };
        if !edit.apply(&mut edited, &names) {
            return Err(machine_edit::MachineEditError::Missing(edit.target()));
        }
        self.edit_machine(|m| *m = edited)?;
        match renamed {
            Some((true, old, new)) => self.tuning.machine_keys.rename_state(&old, &new),
            Some((false, old, new)) => self.tuning.machine_keys.rename_param(&old, &new),
            None => {}
        }
        Ok(())
    }

    /// Go to state `to` through the machine's own edge, played by the fader with that edge's
    /// settings. `Ok(None)` when `to` is already the active state.
    ///
    /// # Errors
    /// When `to` does not exist or no edge leads there from the active state.
    pub fn request_state(&mut self, to: StateId) -> Result<Option<TransitionId>, RuntimeError> {
        self.sync_machine();
        let from = self.machine.output().state;
        let started = self.machine.request(to)?;
        if let Some(id) = started {
            self.play_machine_transition(id, from);
        }
        Ok(started)
    }

    /// Foot contacts of two clips (the tuning's edited markers, else found on the model; the
    /// rig found once), as phase sync and the transition figures use them.
    pub fn foot_contacts(&mut self, clips: [ClipId; 2]) -> [Vec<anim::FootContact>; 2] {
        self.machine.contacts(&self.model, &self.tuning, clips)
    }

    /// The machine part of [`Self::advance`]: it follows the tuning's table and the clip on
    /// screen, steps by the clip seconds the clock played, and a transition it starts is
    /// played by the fader.
    fn step_machine(&mut self, clip_dt_secs: f32) {
        self.sync_machine();
        let from = self.machine.output().state;
        if let Some(id) = self.machine.step(clip_dt_secs).started {
            self.play_machine_transition(id, from);
        }
    }

    /// The machine agrees with the tuning's table and with the clip on screen.
    fn sync_machine(&mut self) {
        self.machine.refresh(&self.model, &self.tuning);
        self.machine.sync_play(&self.model, &self.tuning.interpolation().to_settings());
        if let Some(clip) = self.transport.clip() {
            self.machine.follow_clip(clip);
        }
    }

    /// Play the machine's transition `id` from state `from_state` on the fader, from what is on
    /// screen: into a blend-space state, to its blend at the machine's parameter; out of one,
    /// from its blend (with phase sync, the target at its heaviest clip's phase); else to the
    /// target's clip (a layered state's layers fade with the transition's weight in
    /// [`StageMachine::show`]).
    fn play_machine_transition(&mut self, id: TransitionId, from_state: StateId) {
        let Some(from) = self.transport.clip() else { return };
        let Some((to, fade)) = self.machine.fade_of(id, from, &self.tuning) else { return };
        let to_state = self.machine.machine().transition(id).map(|t| t.to);
        if !self.ragdoll.is_active() {
            let settings = self.tuning.interpolation().to_settings();
            if let Some(player) = to_state.and_then(|state| self.machine.blend_space(state)) {
                self.transport.fade_to_blend_space(&self.model, &settings, player, fade);
                return;
            }
            if let Some(player) = self.machine.blend_space(from_state).filter(|_| !self.transport.is_fading()) {
                let (heaviest, from_time) = (heaviest_point_clip(player), heaviest_clip_time(player));
                let start_secs = self.synced_start_secs(heaviest, from_time, to, &fade);
                if let Some(player) = self.machine.blend_space(from_state) {
                    self.transport.fade_from_blend_space(&self.model, &settings, player, (to, start_secs), fade);
                }
                return;
            }
        }
        let contacts = if fade.phase_sync {
            let source = self.transport.fader().current_clip();
            self.foot_contacts([source, to])
        } else {
            [Vec::new(), Vec::new()]
        };
        let [from_contacts, to_contacts] = contacts;
        let contacts = |clip: ClipId| if clip == to { to_contacts.clone() } else { from_contacts.clone() };
        self.fade_with(to, fade, &contacts);
    }

    /// Hand the character to the ragdoll now: bodies start at the pose on screen with the
    /// animation's velocity (from the clip [`HANDOFF_VELOCITY_SECS`] later); `push`: an impulse
    /// for one bone. False (with a status) when no ragdoll fits.
    pub fn go_limp(&mut self, push: Option<ragdoll::Push>) -> bool {
        let placement = self.ragdoll.placement;
        // The pose a moment later: the bodies move on as the clip would (negative: after).
        let before =
            self.frame.animation_before(&self.model, &self.transport, &self.tuning, -HANDOFF_VELOCITY_SECS, &placement);
        let shown = self.frame.shown().clone();
        let clip = self.transport.clip();
        let started = self.ragdoll.trigger(
            &self.model,
            &shown,
            &before,
            -HANDOFF_VELOCITY_SECS,
            push,
            &self.tuning.ragdoll,
            clip,
        );
        // The controller steps from the next frame's clip time on.
        self.transport.take_pending_dt();
        started
    }

    /// Get up from the ragdoll: the clip for how the body lies (face up or face down), placed
    /// where it lies and turned the way the character will stand, restarted at 0 and blended
    /// into through the get-up's key poses. False when not ragdolling.
    pub fn get_up(&mut self) -> bool {
        let (model, frame, tuning) = (&self.model, &self.frame, &self.tuning);
        let got_up = self.ragdoll.get_up(model, &tuning.ragdoll, |clip| frame.clip_start_pose(model, clip, tuning));
        let Some((clip, placement)) = got_up else { return false };
        self.ragdoll.placement = placement;
        match clip {
            Some(clip) => self.transport.play_from_start(clip),
            None => self.transport.playing = true,
        }
        true
    }

    /// Play the clips where they were authored again (undo get-up relocations).
    pub fn reset_placement(&mut self) {
        self.ragdoll.placement = Placement::IDENTITY;
    }

    /// Crowd mode on with `count` instances, or off.
    pub fn set_crowd(&mut self, count: Option<usize>) -> bool {
        self.crowd.set(&self.model, count, self.tuning.interpolation().mode)
    }

    /// What the camera frames: the crowd, else the pose on screen (and the compare pose) plus —
    /// while the animation drives it — the playing clip's whole motion (`placement`: where the
    /// clip plays; `None` frames the body where it lies).
    pub fn bounds_on_screen(&self) -> crate::render::Aabb {
        match &self.crowd.crowd {
            Some(crowd) => crowd.bounds(),
            None => {
                let clip_placement = (!self.ragdoll.is_active()).then_some(&self.ragdoll.placement);
                self.frame.drawn_bounds(&self.model, &self.transport, &self.tuning, clip_placement)
            }
        }
    }

    /// The bounds of the clip being played where it plays (after a get-up: where the
    /// character will stand).
    pub fn standing_bounds(&self) -> crate::render::Aabb {
        self.frame.drawn_bounds(&self.model, &self.transport, &self.tuning, Some(&self.ragdoll.placement))
    }
}

/// The clip of `player`'s heaviest point (whose tuned fades a transition from or to the
/// blend space takes).
fn heaviest_point_clip(player: &anim::BlendSpacePlayer) -> ClipId {
    let weights = player.weights();
    let heaviest = (0..weights.len()).max_by(|&a, &b| weights[a].total_cmp(&weights[b])).unwrap_or(0);
    player.space().points().get(heaviest).map_or(ClipId::new(0), |p| p.clip)
}

/// The time of `player`'s heaviest clip, seconds into it.
fn heaviest_clip_time(player: &anim::BlendSpacePlayer) -> Option<f32> {
    let from = heaviest_point_clip(player);
    player.space().points().iter().position(|p| p.clip == from).map(|i| player.clip_time_secs(i))
}

/// The clip the next transition goes to on a fresh `model`: its second clip, else its first.
fn default_fade_target(model: &Model) -> ClipId {
    ClipId::from_index(usize::from(model.clips().len() > 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage() -> Stage {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let tuning = Tuning::authored(&model);
        Stage::new(model, ModelSource::built_in(), tuning)
    }

    fn clip(stage: &Stage, name: &str) -> ClipId {
        stage.clip_names().iter().position(|n| n == name).map(ClipId::from_index).expect("clip")
    }

    /// The pose `stage` shows, sampled straight from the clip at `time_secs`.
    fn sampled(stage: &Stage, clip: ClipId, time_secs: f32) -> anim::NodePose {
        let model = stage.model();
        let mut pose = model.rest_pose();
        let settings = stage.tuning.sampling(clip).clone();
        let clip = model.clip(clip).expect("clip");
        clip.sample(time_secs, &mut anim::ClipCursor::new(clip), &settings, &mut pose);
        anim::NodePose::from(&pose)
    }

    /// The largest difference of translations and rotation components between two poses.
    fn difference(a: &anim::NodePose, b: &anim::NodePose) -> f32 {
        let t = a.translations.iter().zip(&b.translations).map(|(x, y)| (*x - *y).abs().max_element());
        let r = a
            .rotations
            .iter()
            .zip(&b.rotations)
            .map(|(x, y)| (glam::Vec4::from(*x) - glam::Vec4::from(*y)).abs().max_element());
        t.chain(r).fold(0.0, f32::max)
    }

    #[test]
    fn one_step_advances_the_one_clock_and_the_frame_follows_it() {
        let mut stage = stage();
        let walk = clip(&stage, "Walk");
        stage.transport.select_clip(walk);
        stage.transport.speed = 2.0;
        let frame = stage.step(0.1);
        let shown = anim::NodePose::from(frame.animated());
        assert!((stage.transport.time_secs() - 0.2).abs() < 1e-6, "{}", stage.transport.time_secs());
        let expected = sampled(&stage, walk, 0.2);
        let error = difference(&shown, &expected);
        assert!(error < 1e-5, "the frame shows the clip at the clock's time: {error}");
        // Paused, a step moves nothing; the clock's wall time still runs (the plots' x axis).
        stage.transport.playing = false;
        let clock = stage.transport.clock_secs();
        stage.step(0.1);
        assert!((stage.transport.time_secs() - 0.2).abs() < 1e-6);
        assert!((stage.transport.clock_secs() - clock - 0.1).abs() < 1e-6);
    }

    #[test]
    fn the_crowd_advances_by_the_transports_clip_seconds() {
        let mut stage = stage();
        assert!(stage.set_crowd(Some(3)));
        let poses = |stage: &Stage| -> Vec<anim::NodePose> {
            let crowd = stage.crowd.crowd.as_ref().expect("crowd");
            (0..crowd.len()).map(|i| anim::NodePose::from(&crowd.pose(stage.model(), i).expect("instance"))).collect()
        };
        let before = poses(&stage);
        stage.step(0.2);
        let after = poses(&stage);
        assert!(before.iter().zip(&after).all(|(b, a)| difference(b, a) > 1e-4), "playing: every instance moves");
        // Paused: the transport plays no clip seconds, so no instance moves.
        stage.transport.playing = false;
        stage.step(0.2);
        let paused = poses(&stage);
        assert!(after.iter().zip(&paused).all(|(a, p)| difference(a, p) == 0.0), "paused: the crowd holds");
    }

    /// Walk at 1.4 and Run at 3.4 (m/s), played at `at`, phase-synced, on.
    fn walk_run_space(at: f32, active: bool) -> layers::BlendSpaceTuning {
        let point = |clip: &str, x: f32| layers::BlendPointSpec { clip: clip.to_owned(), x, y: None };
        layers::BlendSpaceTuning {
            space: layers::BlendSpaceSpec { points: vec![point("Walk", 1.4), point("Run", 3.4)] },
            at: [at, 0.0],
            phase_sync: true,
            active,
        }
    }

    #[test]
    fn a_transition_from_the_blend_space_starts_at_its_pose_and_ends_at_the_clip() {
        for kind in anim::TransitionKind::ALL {
            let mut stage = stage();
            let (walk, run, idle) = (clip(&stage, "Walk"), clip(&stage, "Run"), clip(&stage, "Idle"));
            stage.tuning.clip_extras.blend_space = Some(walk_run_space(2.4, true));
            let fade = FadeTuning { kind, duration_secs: 0.4, ..FadeTuning::default() };
            stage.tuning.set_transition(walk, idle, fade);
            stage.tuning.set_transition(run, idle, fade);
            for _ in 0..20 {
                stage.step(1.0 / 60.0);
            }
            assert!(stage.blend_space_on_screen(), "{kind:?}: the blend space plays");
            let before = anim::NodePose::from(stage.frame().animated());
            stage.trigger_fade(idle, &|_| Vec::new());
            assert!(stage.transport.is_fading(), "{kind:?}: T from the blend space starts a transition");
            let at_start = anim::NodePose::from(stage.frame().animated());
            let start_error = difference(&before, &at_start);
            assert!(start_error <= 1e-5, "{kind:?}: the fade starts at the blended pose: {start_error}");
            let off = stage.tuning.clip_extras.blend_space.as_ref().is_some_and(|b| !b.active);
            assert!(off, "{kind:?}: the clip plays after it");
            // Halfway the pose is neither the blend space's nor Idle's.
            for _ in 0..12 {
                stage.step(1.0 / 60.0);
            }
            let mid = anim::NodePose::from(stage.frame().animated());
            let idle_mid = difference(&mid, &sampled(&stage, idle, stage.transport.time_secs()));
            assert!(idle_mid > 1e-3, "{kind:?}: mid-fade the blend space still shows: {idle_mid}");
            for _ in 0..18 {
                stage.step(1.0 / 60.0);
            }
            assert!(!stage.transport.is_fading(), "{kind:?}: 0.5 s later the 0.4 s fade is over");
            let end = anim::NodePose::from(stage.frame().animated());
            let end_error = difference(&end, &sampled(&stage, idle, stage.transport.time_secs()));
            assert!(end_error <= 1e-5, "{kind:?}: it ends at Idle: {end_error}");
        }
    }

    #[test]
    fn a_phase_synced_transition_from_the_blend_space_starts_the_target_at_the_heaviest_clips_phase() {
        let mut stage = stage();
        let (walk, run) = (clip(&stage, "Walk"), clip(&stage, "Run"));
        // At 3.0 the Run weighs 0.8: the heaviest clip, whose phase the Walk takes.
        stage.tuning.clip_extras.blend_space = Some(walk_run_space(3.0, true));
        let fade = FadeTuning { duration_secs: 0.3, phase_sync: true, ..FadeTuning::default() };
        stage.tuning.set_transition(run, walk, fade);
        for _ in 0..25 {
            stage.step(1.0 / 60.0);
        }
        let run_time = stage.frame().layers.player().map(|p| p.clip_time_secs(1)).expect("built");
        let [run_contacts, walk_contacts] = stage.foot_contacts([run, walk]);
        let secs = |c: ClipId| stage.model().clip(c).map_or(0.0, anim::Clip::end_secs);
        let expected = anim::synced_start_secs(secs(run), run_time, &run_contacts, secs(walk), &walk_contacts, 0.3);
        assert!(expected > 0.0, "the Walk starts past its first frame: {expected}");
        assert!(stage.fade_from_blend_space(walk));
        let started = stage.transport.fader().layers().last().map(|l| l.time_secs).expect("a layer");
        assert!((started - expected).abs() < 1e-5, "the Walk starts at {started}, the synced {expected}");
    }

    #[test]
    fn a_transition_to_the_blend_space_starts_at_the_clip_and_hands_over_in_step() {
        for kind in anim::TransitionKind::ALL {
            let mut stage = stage();
            let (walk, run, idle) = (clip(&stage, "Walk"), clip(&stage, "Run"), clip(&stage, "Idle"));
            stage.transport.select_clip(idle);
            stage.tuning.clip_extras.blend_space = Some(walk_run_space(2.0, false));
            let fade = FadeTuning { kind, duration_secs: 0.3, ..FadeTuning::default() };
            stage.tuning.set_transition(idle, walk, fade);
            stage.tuning.set_transition(idle, run, fade);
            for _ in 0..10 {
                stage.step(1.0 / 60.0);
            }
            let before = anim::NodePose::from(stage.frame().animated());
            assert!(stage.fade_to_blend_space(), "{kind:?}: the fade starts");
            let at_start = anim::NodePose::from(stage.frame().animated());
            let start_error = difference(&before, &at_start);
            assert!(start_error <= 1e-5, "{kind:?}: the fade starts at Idle's pose: {start_error}");
            assert!(stage.tuning.clip_extras.blend_space.as_ref().is_some_and(|b| b.active));
            let mut last_fading = at_start;
            let mut frames = 0;
            while stage.transport.is_fading() && frames < 60 {
                last_fading = anim::NodePose::from(stage.step(1.0 / 60.0).animated());
                frames += 1;
            }
            assert!((17..=20).contains(&frames), "{kind:?}: the 0.3 s fade ends after {frames} frames");
            // The frame the fade ended: the viewer's player continues from the fader's time.
            let (mine, faders) = (stage.frame().layers.player(), stage.transport.fader().blend_space());
            let phases = (mine.map(anim::BlendSpacePlayer::phase), faders.map(anim::BlendSpacePlayer::phase));
            assert_eq!(phases.0, phases.1, "{kind:?}: one phase at the hand-over");
            // The fade's last frames land on the blend space: the step into it is no larger than
            // the blend space's own frame steps.
            let after: Vec<anim::NodePose> =
                (0..4).map(|_| anim::NodePose::from(stage.step(1.0 / 60.0).animated())).collect();
            let own_step = after.windows(2).map(|w| difference(&w[0], &w[1])).fold(0.0, f32::max);
            let handover = difference(&after[0], &last_fading);
            assert!(own_step > 1e-3, "{kind:?}: the blend space moves: {own_step}");
            assert!(handover <= 1.5 * own_step, "{kind:?}: hand-over step {handover} vs its own {own_step}");
            assert!(stage.blend_space_on_screen(), "{kind:?}: the blend space plays after it");
        }
    }

    #[test]
    fn a_transition_triggered_while_paused_waits_and_steps_frame_by_frame() {
        let mut stage = stage();
        let (walk, run) = (clip(&stage, "Walk"), clip(&stage, "Run"));
        stage.transport.select_clip(walk);
        stage.transport.playing = false;
        stage.set_fade_target(run);
        stage.trigger_fade(run, &|_| Vec::new());
        assert!(!stage.transport.playing, "T while paused does not resume");
        assert!(stage.transport.is_fading());
        let start = stage.transport.time_secs();
        stage.step(0.5);
        assert_eq!(stage.transport.time_secs(), start, "paused: the transition waits");
        stage.transport.step_frames(1);
        stage.compute_frame();
        assert!(stage.transport.time_secs() > start, "a frame step advances the transition");
    }
}
