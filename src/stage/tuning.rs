//! [`Tuning`]: every tunable of the model on screen — interpolation override and teaching
//! spaces, per-channel overrides, the transition table, the ragdoll handoff — as one value that
//! the tuning profile stores ([`crate::profile`] converts it), that undo/redo snapshots
//! ([`TuningHistory`]) and that is replaced as a whole when another model opens.
//!
//! Each setting is stored once. Per-channel overrides live in their clip's [`SampleSettings`]
//! (what sampling reads); the model-wide fields are set through [`Tuning::set_interpolation`],
//! which keeps every clip's copy equal.

use std::collections::BTreeMap;

use anim::ragdoll::RagdollRamp;
use anim::state_machine::{StateId, StateTransition, TransitionFrom};
use anim::{
    ClipId, Easing, InterpolationOverride, Model, NodeId, OffsetDecay, RootMotion, RotationSpace, SampleSettings,
    ScaleSpace, TrackId, Transition, TransitionKind,
};

use crate::physics::MotorGains;

/// Fade length used for a clip pair nobody tuned yet, seconds.
pub const DEFAULT_FADE_SECS: f32 = 0.3;
/// Easing used for a clip pair nobody tuned yet.
pub const DEFAULT_FADE_EASING: Easing = Easing::Smoothstep;
/// Most undo steps kept.
pub const MAX_UNDO: usize = 256;

/// The model-wide interpolation settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Interpolation {
    /// Override for every clip (authored: as the file says).
    pub mode: InterpolationOverride,
    /// How rotations are interpolated where the mode is LINEAR.
    pub rotation_space: RotationSpace,
    /// How scales are interpolated where the mode is LINEAR.
    pub scale_space: ScaleSpace,
    /// Easing of the segment parameter.
    pub easing: Easing,
}

impl Interpolation {
    /// The glTF specification exactly.
    pub const AUTHORED: Self = Self {
        mode: InterpolationOverride::Authored,
        rotation_space: RotationSpace::Slerp,
        scale_space: ScaleSpace::Linear,
        easing: Easing::Linear,
    };

    /// Sampling settings with these fields and no per-channel override.
    pub fn to_settings(self) -> SampleSettings {
        SampleSettings {
            mode: self.mode,
            track_modes: Vec::new(),
            rotation_space: self.rotation_space,
            scale_space: self.scale_space,
            easing: self.easing,
        }
    }
}

/// The transition of one clip pair in the transition table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FadeTuning {
    /// Fade (or offset decay) length, seconds.
    pub duration_secs: f32,
    /// Easing of the fade weight (cross-fade, dead blending).
    pub easing: Easing,
    /// Cross-fade, inertialization or dead blending.
    pub kind: TransitionKind,
    /// Decay of the inertialization offset.
    pub decay: OffsetDecay,
    /// Velocity half-life of dead blending's extrapolation, seconds.
    pub half_life_secs: f32,
    /// Start the target at the source's phase (foot-contact markers; none in the target: its start).
    pub phase_sync: bool,
    /// Start the target at the source's cycle rate.
    pub match_speed: bool,
}

impl Default for FadeTuning {
    fn default() -> Self {
        Self {
            duration_secs: DEFAULT_FADE_SECS,
            easing: DEFAULT_FADE_EASING,
            kind: TransitionKind::CrossFade,
            decay: OffsetDecay::Quintic,
            half_life_secs: anim::crossfade::DEFAULT_HALF_LIFE_SECS,
            phase_sync: false,
            match_speed: false,
        }
    }
}

impl FadeTuning {
    /// A cross-fade of `duration_secs` with `easing`.
    pub fn cross_fade(duration_secs: f32, easing: Easing) -> Self {
        Self { duration_secs, easing, ..Self::default() }
    }

    /// The core's transition (target from `start_secs`; speed matched to a `source_cycle_secs`
    /// cycle when asked).
    pub fn transition(&self, start_secs: f32, source_cycle_secs: f32) -> Transition {
        Transition {
            kind: self.kind,
            duration_secs: self.duration_secs,
            easing: self.easing,
            decay: self.decay,
            half_life_secs: self.half_life_secs,
            start_secs,
            match_cycle_secs: if self.match_speed { source_cycle_secs } else { 0.0 },
        }
    }

    /// The fade a state machine's transition plays: its kind, duration, easing, decay,
    /// half-life and sync (speed matching off: the machine's edges do not hold it).
    pub fn of_transition(transition: &StateTransition) -> Self {
        Self {
            duration_secs: transition.duration_secs,
            easing: transition.easing,
            kind: transition.kind,
            decay: transition.decay,
            half_life_secs: transition.half_life_secs,
            phase_sync: transition.sync,
            match_speed: false,
        }
    }

    /// A state machine transition from `from` to `to` playing this fade (the inverse of
    /// [`Self::of_transition`]; priority, conditions, "at end" and interruption at their
    /// defaults).
    pub fn to_transition(&self, from: TransitionFrom, to: StateId) -> StateTransition {
        StateTransition {
            kind: self.kind,
            easing: self.easing,
            decay: self.decay,
            half_life_secs: self.half_life_secs,
            sync: self.phase_sync,
            ..StateTransition::new(from, to, self.duration_secs)
        }
    }
}

/// Everything the user tunes about the ragdoll handoff.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RagdollTuning {
    /// How fast `ragdoll_weight` ramps from 0 to 1, per second (5 = 0.2 s).
    pub ramp_rate_per_sec: f32,
    /// Easing of the ramp (and of the get-up blend).
    pub easing: Easing,
    /// Clip the character gets up into from its back (and from its front unless
    /// [`Self::get_up_clip_face_down`] is set).
    pub get_up_clip: ClipId,
    /// Length of the blend from the ragdoll back into the clip, seconds.
    pub get_up_secs: f32,
    /// Impulse on the selected bone at the trigger, newton-seconds (0: no push).
    pub push_newton_secs: f32,
    /// Clip the character gets up into from its front; `None`: the same as from its back.
    pub get_up_clip_face_down: Option<ClipId>,
    /// Joint-motor strength at the trigger: 0 limp, 1 full (a powered ragdoll).
    pub motor_strength: f32,
    /// "Active → limp": the strength falls to 0 at this rate per second; 0 keeps it.
    pub limp_rate_per_sec: f32,
    /// The pelvis follows the animation.
    pub pin_pelvis: bool,
    /// Partial ragdoll: only this node's body and everything below it (picked in the joint
    /// tree); `None`: the whole body.
    pub region: Option<NodeId>,
    /// Joint-motor gains per body region.
    pub gains: MotorGains,
}

impl Default for RagdollTuning {
    fn default() -> Self {
        Self {
            ramp_rate_per_sec: RagdollRamp::DEFAULT_RATE_PER_SEC,
            easing: Easing::Linear,
            get_up_clip: ClipId::new(0),
            get_up_secs: 1.5,
            push_newton_secs: 0.0,
            get_up_clip_face_down: None,
            motor_strength: 0.0,
            limp_rate_per_sec: 0.0,
            pin_pelvis: false,
            region: None,
            gains: MotorGains::default(),
        }
    }
}

/// The tunables of one model.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    /// The model-wide fields (the truth; copied into every clip's settings).
    interpolation: Interpolation,
    /// Per clip: what sampling reads — the model-wide fields plus that clip's per-channel
    /// overrides (stored only here).
    clips: Vec<SampleSettings>,
    /// The transition table: fade settings per (from clip, to clip).
    transitions: BTreeMap<(ClipId, ClipId), FadeTuning>,
    /// The ragdoll handoff.
    pub ragdoll: RagdollTuning,
    /// Foot-contact markers and root motion per clip as the profile stores them (kept through
    /// the viewer so a save never drops them).
    pub clip_extras: ClipExtras,
    /// Edits to the retarget joint table onto this model (Compare ▸ Retarget from file), kept
    /// in its profile.
    pub retarget_edits: Vec<RetargetEdit>,
    /// The state machine as the user edited it (the profile stores it; undo covers it). `None`:
    /// the character's machine is built from the transition table ([`crate::stage::machine`]).
    pub machine: Option<anim::state_machine::StateMachine>,
    /// The keys that drive the machine (drive states picked, parameters bound to keys), by name.
    pub machine_keys: super::machine_keys::MachineKeys,
}

/// One edit of the retarget joint table, by joint name: target joint `target` driven by source
/// joint `source` (`None`: not mapped).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RetargetEdit {
    /// The joint of this model.
    pub target: String,
    /// The source file's joint that drives it, or none.
    pub source: Option<String>,
}

/// Per-clip transition data the profile stores by clip name: edited foot-contact markers
/// (clips without are found automatically) and root motion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipExtras {
    /// Edited markers per clip.
    pub markers: Vec<ClipMarkers>,
    /// Root motion per clip.
    pub root_motion: Vec<ClipRootMotion>,
    /// Layers over what plays, in order (`crate::stage::layers`).
    pub layers: Vec<crate::stage::layers::LayerSpec>,
    /// The blend space, when one is set up.
    pub blend_space: Option<crate::stage::layers::BlendSpaceTuning>,
}

/// The foot-contact markers of one clip.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClipMarkers {
    /// Clip (display name).
    pub clip: String,
    /// Touch-downs, by time.
    pub contacts: Vec<ContactMarker>,
}

/// One foot touching down.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContactMarker {
    /// The foot's node (display name).
    pub foot: String,
    /// Clip time, seconds.
    pub time_secs: f32,
}

/// The root motion of one clip.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClipRootMotion {
    /// Clip (display name).
    pub clip: String,
    /// `authored` or `in-place`.
    pub mode: String,
}

impl Tuning {
    /// Authored settings for `model`: no override, no tuned pair, the default ramp.
    pub fn authored(model: &Model) -> Self {
        Self::authored_for_clips(model.clips().len())
    }

    /// Authored settings for a model with `clips` clips.
    pub fn authored_for_clips(clips: usize) -> Self {
        Self {
            interpolation: Interpolation::AUTHORED,
            clips: vec![SampleSettings::default(); clips],
            transitions: BTreeMap::new(),
            ragdoll: RagdollTuning::default(),
            clip_extras: ClipExtras::default(),
            retarget_edits: Vec::new(),
            machine: None,
            machine_keys: super::machine_keys::MachineKeys::default(),
        }
    }

    /// The model-wide interpolation settings.
    pub fn interpolation(&self) -> Interpolation {
        self.interpolation
    }

    /// Set the model-wide interpolation settings (every clip keeps its channel overrides).
    pub fn set_interpolation(&mut self, interpolation: Interpolation) {
        self.interpolation = interpolation;
        for settings in &mut self.clips {
            settings.mode = interpolation.mode;
            settings.rotation_space = interpolation.rotation_space;
            settings.scale_space = interpolation.scale_space;
            settings.easing = interpolation.easing;
        }
    }

    /// What sampling `clip` reads (authored settings for a clip the model lacks).
    pub fn sampling(&self, clip: ClipId) -> &SampleSettings {
        self.sampling_or_authored(Some(clip))
    }

    /// What sampling `clip` reads; authored settings without a clip (the rest pose) or for a
    /// clip the model lacks.
    pub fn sampling_or_authored(&self, clip: Option<ClipId>) -> &SampleSettings {
        static AUTHORED: std::sync::OnceLock<SampleSettings> = std::sync::OnceLock::new();
        clip.and_then(|c| self.clips.get(c.index())).unwrap_or_else(|| AUTHORED.get_or_init(SampleSettings::default))
    }

    /// The per-channel override of `track` in `clip`, if any.
    pub fn channel_mode(&self, clip: ClipId, track: TrackId) -> Option<InterpolationOverride> {
        self.clips.get(clip.index())?.track_modes.get(track.index()).copied().flatten()
    }

    /// Set (or with `None` clear) the override of `track` in `clip`.
    pub fn set_channel_mode(&mut self, clip: ClipId, track: TrackId, mode: Option<InterpolationOverride>) {
        let Some(settings) = self.clips.get_mut(clip.index()) else { return };
        let track = track.index();
        if settings.track_modes.len() <= track {
            if mode.is_none() {
                return;
            }
            settings.track_modes.resize(track + 1, None);
        }
        settings.track_modes[track] = mode;
        while settings.track_modes.last() == Some(&None) {
            settings.track_modes.pop();
        }
    }

    /// Every per-channel override: `(clip, track, mode)`, in clip then track order.
    pub fn channel_modes(&self) -> impl Iterator<Item = (ClipId, TrackId, InterpolationOverride)> + '_ {
        self.clips.iter().enumerate().flat_map(|(clip, settings)| {
            let clip = ClipId::from_index(clip);
            settings
                .track_modes
                .iter()
                .enumerate()
                .filter_map(move |(track, mode)| mode.map(|m| (clip, TrackId::from_index(track), m)))
        })
    }

    /// Number of per-channel overrides in the model.
    pub fn channel_override_count(&self) -> usize {
        self.channel_modes().count()
    }

    /// Remove every per-channel override.
    pub fn clear_channel_modes(&mut self) {
        for settings in &mut self.clips {
            settings.track_modes.clear();
        }
    }

    /// Back to the file's own interpolation: no override, slerp, linear scale, linear easing,
    /// no per-channel override (the transition table and the ragdoll stay).
    pub fn reset_interpolation_to_authored(&mut self) {
        self.set_interpolation(Interpolation::AUTHORED);
        self.clear_channel_modes();
    }

    /// True when nothing about sampling differs from the file.
    pub fn samples_as_authored(&self) -> bool {
        self.interpolation == Interpolation::AUTHORED && self.channel_override_count() == 0
    }

    /// The root motion of the clip named `clip` (display name): as the profile stores it, as
    /// authored when absent or unreadable. Allocates nothing.
    pub fn root_motion(&self, clip: &str) -> RootMotion {
        self.clip_extras
            .root_motion
            .iter()
            .find(|r| r.clip == clip)
            .and_then(|r| r.mode.parse().ok())
            .unwrap_or_default()
    }

    /// Set the root motion of the clip named `clip` (as authored is stored as no entry).
    pub fn set_root_motion(&mut self, clip: &str, mode: RootMotion) {
        let entries = &mut self.clip_extras.root_motion;
        entries.retain(|r| r.clip != clip);
        if mode != RootMotion::Authored {
            entries.push(ClipRootMotion { clip: clip.to_owned(), mode: mode.name().to_owned() });
        }
    }

    /// The tuned fade of `from → to`, if that pair was tuned.
    pub fn transition(&self, from: ClipId, to: ClipId) -> Option<FadeTuning> {
        self.transitions.get(&(from, to)).copied()
    }

    /// The fade `from → to` uses: the tuned one, else the defaults.
    pub fn fade_for(&self, from: ClipId, to: ClipId) -> FadeTuning {
        self.transition(from, to).unwrap_or_default()
    }

    /// Tune the pair `from → to` (a duration that is not finite becomes the default; it is
    /// kept within 0–10 s).
    pub fn set_transition(&mut self, from: ClipId, to: ClipId, fade: FadeTuning) {
        if from.index() >= self.clips.len() || to.index() >= self.clips.len() {
            return;
        }
        let duration_secs =
            if fade.duration_secs.is_finite() { fade.duration_secs.clamp(0.0, 10.0) } else { DEFAULT_FADE_SECS };
        let half_life_secs = if fade.half_life_secs.is_finite() {
            fade.half_life_secs.clamp(0.0, 2.0)
        } else {
            anim::crossfade::DEFAULT_HALF_LIFE_SECS
        };
        self.transitions.insert((from, to), FadeTuning { duration_secs, half_life_secs, ..fade });
    }

    /// Forget the pair `from → to` (it fades with the defaults again).
    pub fn remove_transition(&mut self, from: ClipId, to: ClipId) {
        self.transitions.remove(&(from, to));
    }

    /// The transition table, by (from, to).
    pub fn transitions(&self) -> impl Iterator<Item = ((ClipId, ClipId), FadeTuning)> + '_ {
        self.transitions.iter().map(|(&pair, &fade)| (pair, fade))
    }

    /// Number of clips these settings are for.
    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }
}

/// Undo and redo over whole [`Tuning`] values. Every change of the tuning becomes one step once
/// it settles (a slider drag is one step, not one per frame), whichever panel made it.
#[derive(Debug, Clone)]
pub struct TuningHistory {
    undo: Vec<Tuning>,
    redo: Vec<Tuning>,
    /// The tuning as of the last step.
    committed: Tuning,
}

impl TuningHistory {
    /// A history starting at `tuning`, with nothing to undo.
    pub fn new(tuning: &Tuning) -> Self {
        Self { undo: Vec::new(), redo: Vec::new(), committed: tuning.clone() }
    }

    /// Record `current` as a step if it differs from the last one and `settled` (no drag in
    /// progress). Call once per frame.
    pub fn commit(&mut self, current: &Tuning, settled: bool) {
        if settled && *current != self.committed {
            let previous = std::mem::replace(&mut self.committed, current.clone());
            self.undo.push(previous);
            if self.undo.len() > MAX_UNDO {
                self.undo.remove(0);
            }
            self.redo.clear();
        }
    }

    /// Step back: `current` becomes the tuning before the last change. False when there is
    /// nothing to undo.
    pub fn undo(&mut self, current: &mut Tuning) -> bool {
        self.commit(current, true);
        let Some(previous) = self.undo.pop() else { return false };
        self.redo.push(std::mem::replace(current, previous.clone()));
        self.committed = previous;
        true
    }

    /// Step forward again after an undo. False when there is nothing to redo.
    pub fn redo(&mut self, current: &mut Tuning) -> bool {
        if *current != self.committed {
            // A new change after the undo: it is the newest step, nothing to redo.
            self.commit(current, true);
            return false;
        }
        let Some(next) = self.redo.pop() else { return false };
        self.undo.push(std::mem::replace(current, next.clone()));
        self.committed = next;
        true
    }

    /// Steps that can be undone.
    pub fn undo_steps(&self) -> usize {
        self.undo.len()
    }

    /// Steps that can be redone.
    pub fn redo_steps(&self) -> usize {
        self.redo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn c(i: u32) -> ClipId {
        ClipId::new(i)
    }

    const fn t(i: u32) -> TrackId {
        TrackId::new(i)
    }

    #[test]
    fn channel_overrides_live_in_their_clip_and_survive_model_wide_changes() {
        let mut tuning = Tuning::authored_for_clips(3);
        tuning.set_channel_mode(c(1), t(4), Some(InterpolationOverride::Step));
        tuning.set_interpolation(Interpolation { mode: InterpolationOverride::Linear, ..Interpolation::AUTHORED });
        assert_eq!(tuning.sampling(c(1)).mode, InterpolationOverride::Linear);
        assert_eq!(tuning.sampling(c(1)).track_modes, vec![None, None, None, None, Some(InterpolationOverride::Step)]);
        assert!(tuning.sampling(c(0)).track_modes.is_empty());
        assert_eq!(tuning.channel_modes().collect::<Vec<_>>(), vec![(c(1), t(4), InterpolationOverride::Step)]);
        tuning.set_channel_mode(c(1), t(4), None);
        assert!(tuning.sampling(c(1)).track_modes.is_empty(), "trailing empty entries are trimmed");
        assert_eq!(tuning.sampling(c(7)), &SampleSettings::default(), "unknown clips sample as authored");
    }

    #[test]
    fn untuned_pairs_fade_with_the_defaults() {
        let mut tuning = Tuning::authored_for_clips(3);
        assert_eq!(tuning.fade_for(c(0), c(1)), FadeTuning::cross_fade(0.3, Easing::Smoothstep));
        tuning.set_transition(c(0), c(1), FadeTuning::cross_fade(f32::NAN, Easing::Linear));
        assert_eq!(tuning.fade_for(c(0), c(1)).duration_secs, DEFAULT_FADE_SECS);
        tuning.set_transition(c(0), c(9), FadeTuning::default());
        assert_eq!(tuning.transitions().count(), 1, "pairs of clips the model lacks are refused");
        tuning.remove_transition(c(0), c(1));
        assert_eq!(tuning.transition(c(0), c(1)), None);
    }

    #[test]
    fn undo_and_redo_step_through_settled_changes() {
        let mut tuning = Tuning::authored_for_clips(2);
        let mut history = TuningHistory::new(&tuning);
        let original = tuning.clone();
        // A drag: many frames, one step.
        for rate in [6.0, 7.0, 8.0] {
            tuning.ragdoll.ramp_rate_per_sec = rate;
            history.commit(&tuning, false);
        }
        history.commit(&tuning, true);
        let dragged = tuning.clone();
        tuning.set_channel_mode(c(0), t(2), Some(InterpolationOverride::Cubic));
        history.commit(&tuning, true);
        assert_eq!(history.undo_steps(), 2);
        assert!(history.undo(&mut tuning));
        assert_eq!(tuning, dragged);
        assert!(history.undo(&mut tuning));
        assert_eq!(tuning, original);
        assert!(!history.undo(&mut tuning), "nothing left to undo");
        assert!(history.redo(&mut tuning));
        assert_eq!(tuning, dragged);
        // A new change drops what could be redone.
        tuning.ragdoll.push_newton_secs = 3.0;
        assert!(!history.redo(&mut tuning));
        assert_eq!(history.redo_steps(), 0);
        assert!(history.undo(&mut tuning));
        assert_eq!(tuning, dragged);
    }
}
