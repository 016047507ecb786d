//! [`Transport`]: the stage's one clock — the playing clip and time, play/pause, speed, loop,
//! frame steps — and the cross-fader that plays transitions on it. The transport bar and clip
//! list that drive it are drawn by `ui::playback`.
//!
//! A fade always starts from what is on screen: [`Transport::fade_to`] fades from the fader's
//! current state (the playing clip at its time, or the blend in progress); there is no "from"
//! setting that could disagree with the picture.

use std::collections::VecDeque;

use anim::crossfade::MAX_LAYERS;
use anim::{
    BlendSpacePlayer, Clip, ClipId, CrossFader, FootContact, Model, RootMotion, SampleSettings, TransitionKind,
};

use crate::stage::tuning::FadeTuning;

/// Seconds of cross-fade weight history kept for the plot.
pub const FADE_HISTORY_SECS: f64 = 4.0;
/// Frame rate used to step through clips whose keys sit on no common rate.
pub const DEFAULT_FRAME_RATE: f32 = 30.0;

/// Frame rates a clip's keys are tested against, lowest first.
const FRAME_RATES: [f32; 7] = [24.0, 25.0, 30.0, 48.0, 50.0, 60.0, 120.0];

/// The frame rate `clip`'s keys were authored at: the lowest common rate on whose frames every
/// key time lies (within 1/1000 of a frame), else [`DEFAULT_FRAME_RATE`].
pub fn frame_rate(clip: &Clip) -> f32 {
    let times = || clip.timelines().iter().flat_map(|t| t.times_secs.iter().copied());
    if times().count() < 2 {
        return DEFAULT_FRAME_RATE;
    }
    FRAME_RATES
        .into_iter()
        .find(|&fps| times().all(|t| ((t * fps) - (t * fps).round()).abs() < 1e-3))
        .unwrap_or(DEFAULT_FRAME_RATE)
}

/// What a weight in the fade plot belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FadeSource {
    /// A clip on screen.
    Clip(ClipId),
    /// The frozen blend under a fade (after many rapid triggers).
    EarlierBlend,
}

/// The weight of every clip on screen at one moment of the viewer clock (for the fade plot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FadeSample {
    /// Viewer clock, seconds.
    pub clock_secs: f64,
    /// `(source, weight)` per clip on screen (a clip in several layers counted once), weights
    /// summing to 1; [`FadeSource::EarlierBlend`] for a frozen blend.
    weights: [(FadeSource, f32); MAX_LAYERS + 1],
    len: usize,
}

impl FadeSample {
    /// The clips and their weights.
    pub fn weights(&self) -> &[(FadeSource, f32)] {
        &self.weights[..self.len]
    }

    /// The weight of `clip` (0 when it is not on screen).
    pub fn weight_of(&self, clip: ClipId) -> f32 {
        self.weight_of_source(FadeSource::Clip(clip))
    }

    /// The weight of `source` (0 when it is not on screen).
    pub fn weight_of_source(&self, source: FadeSource) -> f32 {
        self.weights().iter().find(|(c, _)| *c == source).map_or(0.0, |(_, w)| *w)
    }
}

/// What plays: clip, time, transport and fades.
#[derive(Debug, Clone)]
pub struct Transport {
    clip: Option<ClipId>,
    time_secs: f32,
    /// Whether time advances.
    pub playing: bool,
    /// Transport speed factor (0.1–4).
    pub speed: f32,
    /// Wrap at the end (true) or stop on the last frame.
    pub looping: bool,
    fader: CrossFader,
    durations: Vec<f32>,
    frame_rates: Vec<f32>,
    names: Vec<String>,
    /// The weight of each clip on screen over the last [`FADE_HISTORY_SECS`].
    fade_history: VecDeque<FadeSample>,
    clock_secs: f64,
    /// Clip seconds played since the last frame output (the ragdoll steps by them).
    pending_dt_secs: f32,
}

impl Transport {
    /// Playing `model`'s first clip from 0 (the rest pose without clips).
    pub fn new(model: &Model) -> Self {
        let clip = (!model.clips().is_empty()).then_some(ClipId::new(0));
        Self {
            clip,
            time_secs: 0.0,
            playing: true,
            speed: 1.0,
            looping: true,
            fader: CrossFader::new(model, ClipId::from_index(0)),
            durations: model.clips().iter().map(Clip::duration_secs).collect(),
            frame_rates: model.clips().iter().map(frame_rate).collect(),
            names: model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect(),
            fade_history: VecDeque::new(),
            clock_secs: 0.0,
            pending_dt_secs: 0.0,
        }
    }

    /// The clip on screen (the one faded to during a fade).
    pub fn clip(&self) -> Option<ClipId> {
        self.clip
    }

    /// Display name of clip `clip`.
    pub fn clip_name(&self, clip: ClipId) -> &str {
        self.names.get(clip.index()).map_or("?", String::as_str)
    }

    /// Transport time in the current clip, seconds, within `[0, duration]`.
    pub fn time_secs(&self) -> f32 {
        self.time_secs
    }

    /// Length of the current clip (0 without one).
    pub fn duration_secs(&self) -> f32 {
        self.clip.and_then(|c| self.durations.get(c.index())).copied().unwrap_or(0.0)
    }

    /// Frame rate of the current clip's keys (stepping and the frame readout use it).
    pub fn frame_rate(&self) -> f32 {
        self.clip.and_then(|c| self.frame_rates.get(c.index())).copied().unwrap_or(DEFAULT_FRAME_RATE)
    }

    /// Frame rate of `clip`'s keys ([`DEFAULT_FRAME_RATE`] for a clip the model does not have).
    pub fn frame_rate_of(&self, clip: ClipId) -> f32 {
        self.frame_rates.get(clip.index()).copied().unwrap_or(DEFAULT_FRAME_RATE)
    }

    /// The frame the time is on (nearest).
    pub fn frame_index(&self) -> i64 {
        (f64::from(self.time_secs) * f64::from(self.frame_rate())).round() as i64
    }

    /// Frames in the current clip (the last one is at its end).
    pub fn frame_count(&self) -> i64 {
        (f64::from(self.duration_secs()) * f64::from(self.frame_rate())).round() as i64
    }

    /// Viewer clock, seconds since start (the weight plots' x axis).
    pub fn clock_secs(&self) -> f64 {
        self.clock_secs
    }

    /// The cross-fader (read).
    pub fn fader(&self) -> &CrossFader {
        &self.fader
    }

    /// The cross-fader, for evaluating the frame's pose.
    pub fn fader_mut(&mut self) -> &mut CrossFader {
        &mut self.fader
    }

    /// True while a cross-fade mixes clips.
    pub fn is_fading(&self) -> bool {
        self.fader.is_fading()
    }

    /// The weight of each clip on screen over the last seconds, for the plot.
    pub fn fade_history(&self) -> &VecDeque<FadeSample> {
        &self.fade_history
    }

    /// Clip seconds played since the last call (for the ragdoll step).
    pub fn take_pending_dt(&mut self) -> f32 {
        std::mem::take(&mut self.pending_dt_secs)
    }

    /// What is on screen, in words: `Walk`, or `blend: Idle 40% + Walk 60%`.
    pub fn on_screen(&self) -> String {
        let Some(clip) = self.clip else { return "rest pose".to_owned() };
        if !self.fader.is_fading() {
            return self.clip_name(clip).to_owned();
        }
        let mut weights = [0.0; MAX_LAYERS];
        let snapshot = self.fader.weights(&mut weights);
        let mut parts: Vec<String> = self
            .fader
            .layers()
            .iter()
            .zip(weights)
            .filter(|(_, w)| *w > 0.005)
            .map(|(layer, w)| format!("{} {:.0}%", self.clip_name(layer.clip), w * 100.0))
            .collect();
        if snapshot > 0.005 {
            parts.insert(0, format!("earlier blend {:.0}%", snapshot * 100.0));
        }
        format!("blend: {}", parts.join(" + "))
    }

    /// Hold the root in place (the fader's root motion on, in place) while the clip on screen is
    /// `in_place`; as authored, root motion off (the clip as the file moves it). A fade that
    /// started in place stays so until it ends. The anchor is taken when root motion turns on
    /// and serves the fades and the clip played alone alike ([`CrossFader::place_root`]), so
    /// neither a fade's start nor its end moves the root. Allocates only when it turns on.
    pub fn sync_root_motion(&mut self, model: &Model, in_place: bool) {
        let on = self.fader.root_motion().is_some();
        if in_place && !on {
            self.fader.set_root_motion(model, Some(RootMotion::InPlace));
        } else if !in_place && on && !self.fader.is_fading() {
            self.fader.set_root_motion(model, None);
        }
    }

    /// Switch to `clip` at time 0 (no fade).
    pub fn select_clip(&mut self, clip: ClipId) {
        if clip.index() >= self.durations.len() {
            return;
        }
        self.clip = Some(clip);
        self.time_secs = 0.0;
        self.fader.play(clip, 0.0);
    }

    /// Jump to `time_secs` in the current clip (scrubbing; a fade in progress ends there).
    pub fn seek(&mut self, time_secs: f32) {
        let time_secs = if time_secs.is_finite() { time_secs } else { 0.0 };
        self.time_secs = time_secs.clamp(0.0, self.duration_secs());
        if let Some(clip) = self.clip {
            self.fader.play(clip, self.time_secs);
        }
    }

    /// Step by `frames` whole frames of the clip's frame rate (pauses playback): the time lands
    /// exactly on a frame. During a transition a step forward advances the transition by that
    /// many frames (so a fade can be watched frame by frame while paused); a step back ends it
    /// there, as scrubbing does.
    pub fn step_frames(&mut self, frames: i64) {
        self.playing = false;
        if frames > 0 && self.fader.is_fading() {
            self.advance_fade(frames as f32 / self.frame_rate());
            self.record_weights();
            return;
        }
        let count = self.frame_count();
        let mut frame = self.frame_index() + frames;
        if self.looping && count > 0 {
            frame = frame.rem_euclid(count);
        } else {
            frame = frame.clamp(0, count);
        }
        self.seek((frame as f64 / f64::from(self.frame_rate())) as f32);
    }

    /// Jump to the first frame (Home).
    pub fn go_to_start(&mut self) {
        self.seek(0.0);
    }

    /// Jump to the last frame (End); pauses, so that the last pose stays.
    pub fn go_to_end(&mut self) {
        self.playing = false;
        self.seek(self.duration_secs());
    }

    /// Play or pause. Playing a clip that stopped at its end (loop off) restarts it.
    pub fn toggle_play(&mut self) {
        if self.playing {
            self.playing = false;
            return;
        }
        if !self.looping && self.duration_secs() > 0.0 && self.time_secs >= self.duration_secs() - 1e-4 {
            self.seek(0.0);
        }
        self.playing = true;
    }

    /// Stop the clock where it is (a transition in progress waits for Play or a frame step).
    pub fn pause(&mut self) {
        self.playing = false;
    }

    /// Start the clock ([`Self::toggle_play`] when paused: a clip stopped at its end restarts).
    pub fn play(&mut self) {
        if !self.playing {
            self.toggle_play();
        }
    }

    /// Transition from what is on screen (the clip at its time, or the blend in progress) to
    /// `to` with `fade`'s kind: from its start, or at the source's phase (`contacts`: each
    /// clip's foot contacts, for phase sync). Dead blending and inertialization start from the
    /// pose on screen and its motion; `settings` are what the fader samples with.
    pub fn fade_to(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        to: ClipId,
        fade: FadeTuning,
        contacts: &dyn Fn(ClipId) -> Vec<FootContact>,
    ) {
        if to.index() >= self.durations.len() {
            return;
        }
        self.prime_fader(model, settings, fade.kind);
        let source = self.fader.current_clip();
        let source_secs = self.durations.get(source.index()).copied().unwrap_or(0.0);
        let start = if fade.phase_sync {
            anim::synced_start_secs(
                source_secs,
                self.fader.current_time_secs(),
                &contacts(source),
                self.durations[to.index()],
                &contacts(to),
                fade.duration_secs,
            )
        } else {
            0.0
        };
        self.fader.transition(model, settings, to, &fade.transition(start, source_secs));
        self.clip = Some(to);
        self.time_secs = start;
        // Paused stays paused: the transition waits for Play or a frame step.
    }

    /// The fader at what is on screen when no transition runs: it already plays the clip on
    /// screen; make sure it is at the time shown (and, for the kinds that continue its motion,
    /// has seen it move).
    fn prime_fader(&mut self, model: &Model, settings: &SampleSettings, kind: TransitionKind) {
        if self.fader.is_fading() {
            return;
        }
        let Some(clip) = self.clip else { return };
        match kind {
            TransitionKind::CrossFade => self.fader.play(clip, self.time_secs),
            TransitionKind::Inertialize => {
                self.fader.play(clip, self.time_secs);
                self.fader.evaluate(model, settings);
            }
            TransitionKind::DeadBlend => {
                let step = 1.0 / 60.0;
                self.fader.play(clip, self.time_secs - 2.0 * step);
                for _ in 0..2 {
                    self.fader.advance(step);
                    self.fader.evaluate(model, settings);
                }
            }
        }
    }

    /// Transition from the blend space on screen (`player`, as the viewer plays it: its
    /// parameter and phase) to clip `to` from `start_secs` of it (`(to, start_secs)`), with
    /// `fade`'s kind: the fader plays a copy of the blend space (its motion ahead measured from
    /// it, exactly as a clip's) and fades from it. Allocates (the copy), once per trigger.
    pub fn fade_from_blend_space(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        player: &BlendSpacePlayer,
        (to, start_secs): (ClipId, f32),
        fade: FadeTuning,
    ) {
        if to.index() >= self.durations.len() {
            return;
        }
        let start_secs = if start_secs.is_finite() { start_secs.max(0.0) } else { 0.0 };
        self.fader.set_blend_space(Some(player.clone()));
        self.fader.play_blend_space();
        self.fader.evaluate(model, settings);
        let transition = fade.transition(start_secs, player.cycle_secs());
        self.fader.transition(model, settings, to, &transition);
        self.clip = Some(to);
        self.time_secs = start_secs;
    }

    /// Transition from what is on screen (the clip, or the blend in progress) to the blend
    /// space (`player`: its parameter and phase) with `fade`'s kind; the fader plays a copy of
    /// it until the transition ends (then [`CrossFader::blend_space`] holds the time the
    /// viewer's own player continues from). Allocates (the copy), once per trigger.
    pub fn fade_to_blend_space(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        player: &BlendSpacePlayer,
        fade: FadeTuning,
    ) {
        self.prime_fader(model, settings, fade.kind);
        self.fader.set_blend_space(Some(player.clone()));
        self.fader.transition_to_blend_space(model, settings, &fade.transition(0.0, 0.0));
        self.clip = Some(self.fader.current_clip());
        self.time_secs = 0.0;
    }

    /// Switch to `to` from its start with no fade (the ragdoll blend hides the switch).
    pub fn play_from_start(&mut self, to: ClipId) {
        self.select_clip(to);
        self.playing = true;
    }

    /// Advance the clock by `dt_secs` of wall time (playback runs at `speed`); returns the
    /// clip seconds played (0 while paused), which every other pose producer advances by.
    pub fn advance(&mut self, dt_secs: f32) -> f32 {
        let dt_secs = if dt_secs.is_finite() { dt_secs.clamp(0.0, 0.25) } else { 0.0 };
        self.clock_secs += f64::from(dt_secs);
        let clip_dt = if self.playing { dt_secs * self.speed } else { 0.0 };
        self.fader.looping = self.looping;
        if self.fader.is_fading() {
            self.advance_fade(clip_dt);
        } else {
            let duration = self.duration_secs();
            let mut time = self.time_secs + clip_dt;
            if time > duration {
                if self.looping && duration > 0.0 {
                    time = time.rem_euclid(duration);
                } else {
                    time = duration;
                    // Stopped on the last frame: the button says Play, which restarts.
                    self.playing = false;
                }
            }
            self.time_secs = time;
            if let Some(clip) = self.clip {
                self.fader.play(clip, time);
            }
        }
        self.pending_dt_secs += clip_dt;
        self.record_weights();
        clip_dt
    }

    /// Advance the transition in progress by `clip_dt_secs` of clip time.
    fn advance_fade(&mut self, clip_dt_secs: f32) {
        self.fader.advance(clip_dt_secs);
        self.clip = Some(self.fader.current_clip());
        let duration = self.duration_secs();
        let time = self.fader.current_time_secs();
        self.time_secs = if self.looping && duration > 0.0 { time.rem_euclid(duration) } else { time.min(duration) };
    }

    /// Add the weight of each clip on screen now to the history (dropping what is older than
    /// [`FADE_HISTORY_SECS`]).
    fn record_weights(&mut self) {
        let mut layer_weights = [0.0; MAX_LAYERS];
        let snapshot = self.fader.weights(&mut layer_weights);
        let mut sample = FadeSample {
            clock_secs: self.clock_secs,
            weights: [(FadeSource::EarlierBlend, 0.0); MAX_LAYERS + 1],
            len: 0,
        };
        let mut add = |clip: FadeSource, weight: f32| {
            if let Some(slot) = sample.weights[..sample.len].iter_mut().find(|(c, _)| *c == clip) {
                slot.1 += weight;
            } else if sample.len < sample.weights.len() {
                sample.weights[sample.len] = (clip, weight);
                sample.len += 1;
            }
        };
        if snapshot > 0.0 {
            add(FadeSource::EarlierBlend, snapshot);
        }
        for (layer, weight) in self.fader.layers().iter().zip(layer_weights) {
            add(FadeSource::Clip(layer.clip), weight);
        }
        self.fade_history.push_back(sample);
        while self.fade_history.front().is_some_and(|s| s.clock_secs < self.clock_secs - FADE_HISTORY_SECS) {
            self.fade_history.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model")
    }

    #[test]
    fn playback_advances_wraps_and_stops_at_the_end_without_loop() {
        let mut transport = Transport::new(&model());
        let duration = transport.duration_secs();
        assert!(duration > 0.0);
        transport.advance(0.1);
        assert!((transport.time_secs() - 0.1).abs() < 1e-5);
        transport.seek(duration - 0.01);
        transport.advance(0.1);
        assert!(transport.time_secs() < 0.2, "wrapped: {}", transport.time_secs());
        // Loop off: stops on the last frame, and Play restarts from the start.
        transport.looping = false;
        transport.seek(duration - 0.01);
        transport.advance(0.1);
        assert_eq!(transport.time_secs(), duration);
        assert!(!transport.playing);
        transport.toggle_play();
        assert!(transport.playing);
        assert_eq!(transport.time_secs(), 0.0, "Play at the end restarts");
        transport.toggle_play();
        let before = transport.time_secs();
        transport.advance(0.1);
        assert_eq!(transport.time_secs(), before, "paused");
    }

    #[test]
    fn stepping_lands_on_whole_frames_and_home_end_jump() {
        let mut transport = Transport::new(&model());
        let fps = transport.frame_rate();
        transport.seek(0.955);
        transport.step_frames(1);
        let frame = transport.frame_index();
        assert!(((transport.time_secs() * fps) - frame as f32).abs() < 1e-3, "{} at {fps} fps", transport.time_secs());
        assert_eq!(frame, (0.955 * fps).round() as i64 + 1);
        transport.step_frames(-3);
        assert_eq!(transport.frame_index(), frame - 3);
        transport.go_to_end();
        assert_eq!(transport.time_secs(), transport.duration_secs());
        assert_eq!(transport.frame_index(), transport.frame_count());
        transport.go_to_start();
        assert_eq!(transport.time_secs(), 0.0);
        // Looping wraps a step back from frame 0 to the last frame before the end.
        transport.step_frames(-1);
        assert_eq!(transport.frame_index(), transport.frame_count() - 1);
    }

    #[test]
    fn frame_rates_follow_the_keys() {
        let model = model();
        for clip in model.clips() {
            let fps = frame_rate(clip);
            assert!(FRAME_RATES.contains(&fps) || fps == DEFAULT_FRAME_RATE);
        }
    }

    #[test]
    fn a_fade_starts_from_the_clip_on_screen_and_records_both_weights() {
        let mut transport = Transport::new(&model());
        transport.select_clip(ClipId::new(3));
        transport.seek(1.0);
        let m = model();
        transport.fade_to(
            &m,
            &SampleSettings::default(),
            ClipId::new(1),
            FadeTuning::cross_fade(0.5, anim::Easing::Linear),
            &|_| Vec::new(),
        );
        let layers = transport.fader().layers();
        assert_eq!(layers.len(), 2);
        assert_eq!(
            (layers[0].clip.index(), layers[0].time_secs),
            (3, 1.0),
            "faded from the clip on screen at its time"
        );
        assert_eq!(transport.clip(), Some(ClipId::new(1)));
        for _ in 0..40 {
            transport.advance(1.0 / 60.0);
        }
        let rows: Vec<FadeSample> = transport.fade_history().iter().copied().collect();
        assert!(rows.iter().all(|r| (r.weights().iter().map(|(_, w)| w).sum::<f32>() - 1.0).abs() < 1e-5));
        // Half-way through the 0.5 s fade (15 frames) the two cross.
        let (from, to) = (rows[14].weight_of(ClipId::new(3)), rows[14].weight_of(ClipId::new(1)));
        assert!((from - 0.5).abs() < 0.05 && (to - 0.5).abs() < 0.05, "{from} {to}");
        // Each clip's weight moves continuously (no jump of more than one frame's share).
        for pair in rows.windows(2) {
            for clip in [ClipId::new(1), ClipId::new(3)] {
                let step = (pair[1].weight_of(clip) - pair[0].weight_of(clip)).abs();
                assert!(step < 0.06, "clip {clip} jumps by {step}");
            }
        }
        assert_eq!(rows.last().map(|r| r.weight_of(ClipId::new(1))), Some(1.0));
        assert!(!transport.is_fading());
    }
}
