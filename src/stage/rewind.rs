//! The stage's rewind: the last [`REWIND_SECS`] of frames in an [`anim::rewind::RewindBuffer`]
//! sized for the model (nodes, morph weights, layers, machine parameters), fed once per computed
//! frame on the stage's wall clock, and a scrub mode that shows a stored frame instead of the
//! live one (the stage swaps the pose source; everything downstream reads the frame as always).
//!
//! Recording and scrubbing allocate nothing; the buffer is made again only when the model or
//! the number of layers or parameters changes.

use anim::rewind::{FrameFacts, FrameFactsOut, RewindBuffer, RewindError, RewindLayout, RewindTransition};
use anim::state_machine::{ActiveTransition, FiredEvent, MachineRuntime, ParamId, ParamValue, StateId};
use anim::{ClipId, SoaPose};

use super::layer_play::LayerPlay;
use super::machine::StageMachine;
use super::transport::Transport;

/// Seconds of frames the stage keeps.
pub const REWIND_SECS: f32 = 30.0;

/// The rewind ring of the stage and where the rewind bar stands.
#[derive(Debug, Clone, Default)]
pub struct StageRewind {
    buffer: Option<RewindBuffer>,
    /// The stored frame's facts while scrubbing (caller-owned buffers of `frame_at`).
    facts: FrameFactsOut,
    layer_weights: Vec<f32>,
    params: Vec<ParamValue>,
    /// Seconds before live shown, while scrubbing.
    scrub_secs_before_live: Option<f64>,
    /// Why the ring could not be made or fed, if so.
    problem: Option<String>,
}

impl StageRewind {
    /// Drop every stored frame and leave scrub mode (a model switch or replace: the sizes and
    /// the clock start over).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// Seconds one can scrub back.
    pub fn held_secs(&self) -> f64 {
        self.buffer.as_ref().map_or(0.0, RewindBuffer::held_secs)
    }

    /// Memory the ring owns, KiB.
    pub fn memory_kib(&self) -> f64 {
        self.buffer.as_ref().map_or(0.0, RewindBuffer::memory_kib)
    }

    /// Seconds before live shown while scrubbing; `None` when live.
    pub fn scrub_secs_before_live(&self) -> Option<f64> {
        self.scrub_secs_before_live
    }

    /// The stored frame's facts while scrubbing (state, clip and its time, transition, layer
    /// weights, parameters, events).
    pub fn scrubbed_facts(&self) -> Option<&FrameFactsOut> {
        self.scrub_secs_before_live.map(|_| &self.facts)
    }

    /// The events stored, as `(secs_before_live, event)`, oldest first (the bar's ticks).
    pub fn events(&self) -> impl Iterator<Item = (f64, FiredEvent)> + '_ {
        self.buffer.iter().flat_map(RewindBuffer::events)
    }

    /// Why the ring could not be made or fed, if so.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// Enter (or move within) scrub mode at `secs_before_live`, clamped to what is held.
    pub(crate) fn set_scrub(&mut self, secs_before_live: f64) {
        let secs = if secs_before_live.is_finite() { secs_before_live.clamp(0.0, self.held_secs()) } else { 0.0 };
        self.scrub_secs_before_live = Some(secs);
    }

    /// Leave scrub mode.
    pub(crate) fn leave_scrub(&mut self) {
        self.scrub_secs_before_live = None;
    }

    /// Seconds before live of the stored frame `frames` frames from the scrub position
    /// (negative: back, older; positive: forward, towards live), moving from stored frame to
    /// stored frame (from between two, the first step lands on the next one that way); clamped
    /// to the oldest and the newest frame. From live, the start is the newest frame. `None`
    /// when nothing is stored. Allocates nothing.
    pub(crate) fn stepped_secs(&self, frames: i32) -> Option<f64> {
        let buffer = self.buffer.as_ref().filter(|b| !b.is_empty())?;
        // Closer than this is the same stored frame (the clock's float noise; stored frames are
        // at least a millisecond apart: at most 1000 per second).
        const SAME_SECS: f64 = 1e-6;
        let mut at = self.scrub_secs_before_live.unwrap_or(0.0);
        for _ in 0..frames.unsigned_abs() {
            // Times before live, oldest first: decreasing.
            let next = if frames < 0 {
                buffer.frame_secs_before_live().filter(|&s| s > at + SAME_SECS).last()
            } else {
                buffer.frame_secs_before_live().find(|&s| s < at - SAME_SECS)
            };
            match next {
                Some(next) => at = next,
                None => break,
            }
        }
        Some(at.clamp(0.0, buffer.held_secs()))
    }

    /// Write the scrubbed frame's pose into `pose` (and its facts into [`Self::scrubbed_facts`]).
    /// False when not scrubbing or nothing is stored.
    pub(crate) fn write_scrubbed(&mut self, pose: &mut SoaPose) -> bool {
        let (Some(secs), Some(buffer)) = (self.scrub_secs_before_live, &self.buffer) else { return false };
        match buffer.frame_at(secs.min(buffer.held_secs()), pose, &mut self.facts) {
            Ok(()) => true,
            Err(error) => {
                self.problem = Some(error.to_string());
                false
            }
        }
    }

    /// Record the frame `pose` shown at the transport's wall clock with its facts; `with_events`: the machine's
    /// events of the last step belong to this frame (once per step). Allocates only when the
    /// shape changed (a new model, a layer or parameter added).
    pub(crate) fn record(
        &mut self,
        pose: &SoaPose,
        transport: &Transport,
        machine: &StageMachine,
        layer_weights: impl Iterator<Item = f32>,
        layer_count: usize,
        with_events: bool,
    ) {
        let clock_secs = transport.clock_secs();
        let param_count = machine.machine().params().len();
        let layout = RewindLayout {
            morph_weight_count: pose.weights().len(),
            ..RewindLayout::new(pose.len(), REWIND_SECS, layer_count, param_count)
        };
        if self.buffer.as_ref().is_none_or(|b| *b.layout() != layout) {
            self.scrub_secs_before_live = None;
            match RewindBuffer::with_layout(layout) {
                Ok(buffer) => {
                    self.facts = FrameFactsOut::for_layout(&layout);
                    self.layer_weights = Vec::with_capacity(layer_count);
                    self.params = Vec::with_capacity(param_count);
                    self.buffer = Some(buffer);
                    self.problem = None;
                }
                Err(error) => {
                    self.buffer = None;
                    self.problem = Some(error.to_string());
                    return;
                }
            }
        }
        let Some(buffer) = &mut self.buffer else { return };
        self.layer_weights.clear();
        self.layer_weights.extend(layer_weights.take(layer_count));
        self.layer_weights.resize(layer_count, 0.0);
        self.params.clear();
        let runtime = machine.runtime();
        self.params.extend((0..param_count).map(|i| {
            u32::try_from(i).ok().and_then(|i| runtime.value(ParamId::new(i))).unwrap_or(ParamValue::Float(0.0))
        }));
        let output = machine.output();
        let facts = FrameFacts {
            clip: transport.clip(),
            state: Some(output.state),
            clip_secs: transport.time_secs(),
            state_secs: output.state_secs,
            transition: machine.running_transition().map(recorded_transition),
            layer_weights: &self.layer_weights,
            params: &self.params,
            events: if with_events { machine.events() } else { &[] },
        };
        let result = match buffer.record(clock_secs, pose, &facts) {
            Err(RewindError::TimeWentBack { .. }) => {
                buffer.clear();
                buffer.record(clock_secs, pose, &facts)
            }
            other => other,
        };
        if let Err(error) = result {
            self.problem = Some(error.to_string());
        }
    }
}

/// A machine transition as the ring keeps it (and as [`ShownFacts`] shows it).
fn recorded_transition(t: ActiveTransition) -> RewindTransition {
    RewindTransition {
        transition: t.transition,
        from: t.from,
        to: t.to,
        weight: t.weight,
        kind: t.kind,
        elapsed_secs: t.elapsed_secs,
        duration_secs: t.duration_secs,
    }
}

/// What the frame on screen shows: the live state's facts, or — while rewound — the stored
/// frame's (`Stage::shown`). The one place the panels read the clip and its time, the active
/// state and its time, the running transition, the layer weights and the parameters from, so
/// that the timeline, the curves, the State machine, Layers and Cross-fade sections follow a
/// rewind together. Cheap to make (copies and borrows; no allocation).
#[derive(Debug, Clone, Copy)]
pub struct ShownFacts<'a> {
    /// Seconds before live of the frame shown; `None` when live.
    pub rewound_secs: Option<f64>,
    /// The clip playing.
    pub clip: Option<ClipId>,
    /// The clip's time, seconds.
    pub clip_secs: f32,
    /// The machine's active state (`None` without a machine).
    pub state: Option<StateId>,
    /// Seconds the active state has played.
    pub state_secs: f32,
    /// The machine's running transition, or a fade started without it (T) as one.
    pub transition: Option<RewindTransition>,
    layers: ShownLayers<'a>,
    params: ShownParams<'a>,
}

/// Where the layer weights shown come from.
#[derive(Debug, Clone, Copy)]
enum ShownLayers<'a> {
    Live(&'a LayerPlay),
    Recorded(&'a [f32]),
}

/// Where the parameter values shown come from.
#[derive(Debug, Clone, Copy)]
enum ShownParams<'a> {
    Live(&'a MachineRuntime),
    Recorded(&'a [ParamValue]),
}

impl<'a> ShownFacts<'a> {
    /// The facts of what is on screen: the stored frame's while `rewind` scrubs, else the live
    /// transport's, machine's and layers'.
    pub(crate) fn of(
        rewind: &'a StageRewind,
        transport: &Transport,
        machine: &'a StageMachine,
        layers: &'a LayerPlay,
    ) -> Self {
        match (rewind.scrub_secs_before_live, rewind.scrubbed_facts()) {
            (Some(secs), Some(facts)) => Self {
                rewound_secs: Some(secs),
                clip: facts.clip,
                clip_secs: facts.clip_secs,
                state: facts.state,
                state_secs: facts.state_secs,
                transition: facts.transition,
                layers: ShownLayers::Recorded(&facts.layer_weights),
                params: ShownParams::Recorded(&facts.params),
            },
            _ => {
                let output = machine.output();
                let running = machine.problem().is_none();
                Self {
                    rewound_secs: None,
                    clip: transport.clip(),
                    clip_secs: transport.time_secs(),
                    state: running.then_some(output.state),
                    state_secs: output.state_secs,
                    transition: machine.running_transition().filter(|_| running).map(recorded_transition),
                    layers: ShownLayers::Live(layers),
                    params: ShownParams::Live(machine.runtime()),
                }
            }
        }
    }

    /// True while a stored frame is shown.
    pub fn is_rewound(&self) -> bool {
        self.rewound_secs.is_some()
    }

    /// Layer `index`'s weight in the frame shown (0 for a layer the frame did not have).
    pub fn layer_weight(&self, index: usize) -> f32 {
        match self.layers {
            ShownLayers::Live(play) => play.layer_weight(index),
            ShownLayers::Recorded(weights) => weights.get(index).copied().unwrap_or(0.0),
        }
    }

    /// Parameter `id`'s value in the frame shown.
    pub fn param(&self, id: ParamId) -> Option<ParamValue> {
        match self.params {
            ShownParams::Live(runtime) => runtime.value(id),
            ShownParams::Recorded(values) => values.get(id.index()).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use anim::rewind::ROTATION_ERROR_BOUND_RAD;

    use crate::stage::tuning::Tuning;
    use crate::stage::{ModelSource, Stage};

    fn stage() -> Stage {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let tuning = Tuning::authored(&model);
        Stage::new(model, ModelSource::built_in(), tuning)
    }

    /// The largest rotation angle (radians) and translation difference between two poses.
    fn difference(a: &anim::SoaPose, b: &anim::SoaPose) -> (f32, f32) {
        let (a, b) = (anim::NodePose::from(a), anim::NodePose::from(b));
        let angle = a
            .rotations
            .iter()
            .zip(&b.rotations)
            .map(|(x, y)| {
                // 2·asin of the relative rotation's vector part (acos of the dot loses digits near 0).
                let r = x.conjugate() * *y;
                2.0 * glam::Vec3::new(r.x, r.y, r.z).length().min(1.0).asin()
            })
            .fold(0.0, f32::max);
        let t = a.translations.iter().zip(&b.translations).map(|(x, y)| x.distance(*y)).fold(0.0, f32::max);
        (angle, t)
    }

    #[test]
    fn five_seconds_at_60_hz_are_held_and_two_seconds_back_shows_that_frame() {
        let mut stage = stage();
        let dt = 1.0 / 60.0;
        let mut shown = Vec::new();
        for _ in 0..300 {
            stage.step(dt);
            shown.push(stage.frame().shown().clone());
        }
        // Stage::new recorded the frame at clock 0; 300 steps later the clock is at 5 s.
        let held = stage.rewind().held_secs();
        assert!((held - 5.0).abs() < 1e-3, "held {held}");
        let kib = stage.rewind().memory_kib();
        eprintln!("rewind: {held:.3} s held, {kib:.1} KiB, {} nodes", stage.model().nodes().len());
        // 30 s at 60 Hz of 22 nodes, its layers and parameters: 1380.7 KiB measured.
        assert!(kib > 1000.0 && kib < 2000.0, "memory {kib} KiB");

        let live = stage.frame().shown().clone();
        let clock = stage.transport.clock_secs();
        let clip_secs = stage.transport.time_secs();
        assert!(stage.rewind_to(2.0));
        let then = &shown[299 - 120];
        let (angle, dist) = difference(stage.frame().shown(), then);
        assert!(angle <= ROTATION_ERROR_BOUND_RAD, "rotation off by {angle} rad");
        assert!(dist < 1e-5, "translation off by {dist}");
        let (live_angle, _) = difference(stage.frame().shown(), &live);
        assert!(live_angle > 1e-2, "the rewound pose is not the live one: {live_angle}");
        let facts = stage.rewind().scrubbed_facts().expect("facts while scrubbing");
        assert!((facts.secs_before_live - 2.0).abs() < 1.0 / 60.0, "{}", facts.secs_before_live);

        // Scrubbing holds the live clock.
        stage.step(0.5);
        assert_eq!(stage.transport.clock_secs(), clock);
        assert_eq!(stage.transport.time_secs(), clip_secs);

        stage.resume_live();
        assert!(!stage.is_rewound());
        assert_eq!(stage.transport.clock_secs(), clock, "the clock resumes where it held");
        assert_eq!(difference(stage.frame().shown(), &live), (0.0, 0.0), "the live pose exactly");
        stage.step(dt);
        assert!((stage.transport.clock_secs() - clock - f64::from(dt)).abs() < 1e-9);
        assert!((stage.rewind().held_secs() - 301.0 / 60.0).abs() < 1e-3, "recording goes on");
    }

    /// A transition's (from, to) state names.
    fn names(stage: &Stage, t: anim::rewind::RewindTransition) -> (String, String) {
        (stage.machine().state_name(t.from), stage.machine().state_name(t.to))
    }

    #[test]
    fn a_t_fade_rewound_to_its_middle_shows_as_a_transition_with_its_progress() {
        let mut stage = stage();
        let clip = |name: &str| stage.model().find_clip(name).expect("clip");
        let (idle, walk) = (clip("Idle"), clip("Walk"));
        let fade = crate::stage::tuning::FadeTuning::cross_fade(0.5, anim::Easing::Linear);
        stage.tuning.set_transition(idle, walk, fade);
        stage.transport.select_clip(idle);
        let dt = 1.0 / 60.0;
        for _ in 0..30 {
            stage.step(dt);
        }
        stage.trigger_fade(walk, &|_| Vec::new());
        // Live, the fade shows as a transition Idle -> Walk while it runs.
        stage.step(dt);
        let live = stage.shown().transition.expect("the T fade shows live as a transition");
        assert_eq!(names(&stage, live), ("Idle".to_owned(), "Walk".to_owned()));
        // 0.25 s into the fade, then 0.75 s more: it ended 0.5 s before live.
        for _ in 0..59 {
            stage.step(dt);
        }
        assert!(stage.shown().transition.is_none(), "over after 0.5 s");
        assert!(stage.machine().output().transition.is_none(), "the machine itself started none");
        // Its middle (0.25 s in) is 0.75 s before live.
        assert!(stage.rewind_to(0.75));
        let shown = stage.shown();
        let t = shown.transition.expect("the rewound frame has the T fade as a transition");
        assert_eq!(names(&stage, t), ("Idle".to_owned(), "Walk".to_owned()));
        assert!((t.duration_secs - 0.5).abs() < 1e-6, "{}", t.duration_secs);
        assert!((t.progress() - 0.5).abs() < 0.05, "progress {} at its middle", t.progress());
        assert!((t.weight - t.progress()).abs() < 1e-6, "linear: weight {} = progress", t.weight);
        assert_eq!(shown.state, stage.machine().machine().find_state("Walk"));
    }

    #[test]
    fn a_model_switch_clears_the_ring_and_leaves_scrubbing() {
        let mut stage = stage();
        for _ in 0..120 {
            stage.step(1.0 / 60.0);
        }
        assert!(stage.rewind().held_secs() > 1.9);
        assert!(stage.rewind_to(1.0));
        let model = stage.model().clone();
        let tuning = Tuning::authored(&model);
        stage.switch_model(model, ModelSource::built_in(), tuning);
        assert!(!stage.is_rewound());
        assert_eq!(stage.rewind().held_secs(), 0.0);
        // Only the new model's first frame is held: a rewind clamps to it.
        stage.rewind_to(1.0);
        assert_eq!(stage.rewind().scrub_secs_before_live(), Some(0.0));
    }

    #[test]
    fn a_rewind_past_what_is_held_clamps_to_the_oldest_frame() {
        let mut stage = stage();
        // One frame stored: nothing before it, the scrub clamps to 0 (the live frame itself).
        assert_eq!(stage.rewind().held_secs(), 0.0);
        let live = stage.frame().shown().clone();
        assert!(stage.rewind_to(3.0));
        assert_eq!(stage.rewind().scrub_secs_before_live(), Some(0.0));
        assert_eq!(difference(stage.frame().shown(), &live).1, 0.0);
    }
}
