//! [`Playback`]: the playing clip and time, transport state and the cross-fader, with the clip
//! list and the transport bar (play/pause, frame steps, Home/End, speed, loop, timeline with
//! time labels and key ticks).
//!
//! A fade always starts from what is on screen: [`Playback::fade_to`] fades from the fader's
//! current state (the playing clip at its time, or the blend in progress); there is no "from"
//! setting that could disagree with the picture.

use std::collections::VecDeque;

use anim::crossfade::MAX_LAYERS;
use anim::{Clip, ClipId, CrossFader, FootContact, Model, Property, RootMotion, SampleSettings, TransitionKind};

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

/// Clip id the fade plot uses for the frozen blend under a fade (after many rapid triggers).
pub const EARLIER_BLEND: usize = usize::MAX;

/// The weight of every clip on screen at one moment of the viewer clock (for the fade plot).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FadeSample {
    /// Viewer clock, seconds.
    pub clock_secs: f64,
    /// `(clip, weight)` per clip on screen (a clip in several layers counted once), weights
    /// summing to 1; [`EARLIER_BLEND`] for a frozen blend.
    weights: [(usize, f32); MAX_LAYERS + 1],
    len: usize,
}

impl FadeSample {
    /// The clips and their weights.
    pub fn weights(&self) -> &[(usize, f32)] {
        &self.weights[..self.len]
    }

    /// The weight of `clip` (0 when it is not on screen).
    pub fn weight_of(&self, clip: usize) -> f32 {
        self.weights().iter().find(|(c, _)| *c == clip).map_or(0.0, |(_, w)| *w)
    }
}

/// What plays: clip, time, transport and fades.
#[derive(Debug, Clone)]
pub struct Playback {
    clip: Option<usize>,
    time_secs: f32,
    /// Whether time advances.
    pub playing: bool,
    /// Playback speed factor (0.1–4).
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

impl Playback {
    /// Playing `model`'s first clip from 0 (the rest pose without clips).
    pub fn new(model: &Model) -> Self {
        let clip = (!model.clips.is_empty()).then_some(0);
        Self {
            clip,
            time_secs: 0.0,
            playing: true,
            speed: 1.0,
            looping: true,
            fader: CrossFader::new(model, ClipId::from_index(0)),
            durations: model.clips.iter().map(Clip::duration_secs).collect(),
            frame_rates: model.clips.iter().map(frame_rate).collect(),
            names: model.clips.iter().enumerate().map(|(i, c)| c.display_name(i)).collect(),
            fade_history: VecDeque::new(),
            clock_secs: 0.0,
            pending_dt_secs: 0.0,
        }
    }

    /// The clip on screen (the one faded to during a fade).
    pub fn clip(&self) -> Option<usize> {
        self.clip
    }

    /// Display name of clip `clip`.
    pub fn clip_name(&self, clip: usize) -> &str {
        self.names.get(clip).map_or("?", String::as_str)
    }

    /// Playback time in the current clip, seconds, within `[0, duration]`.
    pub fn time_secs(&self) -> f32 {
        self.time_secs
    }

    /// Length of the current clip (0 without one).
    pub fn duration_secs(&self) -> f32 {
        self.clip.and_then(|c| self.durations.get(c)).copied().unwrap_or(0.0)
    }

    /// Frame rate of the current clip's keys (stepping and the frame readout use it).
    pub fn frame_rate(&self) -> f32 {
        self.clip.and_then(|c| self.frame_rates.get(c)).copied().unwrap_or(DEFAULT_FRAME_RATE)
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
            .map(|(layer, w)| format!("{} {:.0}%", self.clip_name(layer.clip.index()), w * 100.0))
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
    pub fn select_clip(&mut self, clip: usize) {
        if clip >= self.durations.len() {
            return;
        }
        self.clip = Some(clip);
        self.time_secs = 0.0;
        self.fader.play(ClipId::from_index(clip), 0.0);
    }

    /// Jump to `time_secs` in the current clip (scrubbing; a fade in progress ends there).
    pub fn seek(&mut self, time_secs: f32) {
        let time_secs = if time_secs.is_finite() { time_secs } else { 0.0 };
        self.time_secs = time_secs.clamp(0.0, self.duration_secs());
        if let Some(clip) = self.clip {
            self.fader.play(ClipId::from_index(clip), self.time_secs);
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

    /// Transition from what is on screen (the clip at its time, or the blend in progress) to
    /// `to` with `fade`'s kind: from its start, or at the source's phase (`contacts`: each
    /// clip's foot contacts, for phase sync). Dead blending and inertialization start from the
    /// pose on screen and its motion; `settings` are what the fader samples with.
    pub fn fade_to(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        to: usize,
        fade: FadeTuning,
        contacts: &dyn Fn(usize) -> Vec<FootContact>,
    ) {
        if to >= self.durations.len() {
            return;
        }
        if !self.fader.is_fading()
            && let Some(clip) = self.clip
        {
            // The fader already plays the clip on screen; make sure it is at the time shown
            // (and, for the kinds that continue its motion, has seen it move).
            let clip = ClipId::from_index(clip);
            match fade.kind {
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
        let source = self.fader.current_clip().index();
        let source_secs = self.durations.get(source).copied().unwrap_or(0.0);
        let start = if fade.phase_sync {
            anim::synced_start_secs(
                source_secs,
                self.fader.current_time_secs(),
                &contacts(source),
                self.durations[to],
                &contacts(to),
                fade.duration_secs,
            )
        } else {
            0.0
        };
        self.fader.transition(model, settings, ClipId::from_index(to), &fade.transition(start, source_secs));
        self.clip = Some(to);
        self.time_secs = start;
        // Paused stays paused: the transition waits for Play or a frame step.
    }

    /// Switch to `to` from its start with no fade (the ragdoll blend hides the switch).
    pub fn play_from_start(&mut self, to: usize) {
        self.select_clip(to);
        self.playing = true;
    }

    /// Advance the viewer clock by `dt_secs` of wall time (playback runs at `speed`).
    pub fn advance(&mut self, dt_secs: f32) {
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
                self.fader.play(ClipId::from_index(clip), time);
            }
        }
        self.pending_dt_secs += clip_dt;
        self.record_weights();
    }

    /// Advance the transition in progress by `clip_dt_secs` of clip time.
    fn advance_fade(&mut self, clip_dt_secs: f32) {
        self.fader.advance(clip_dt_secs);
        self.clip = Some(self.fader.current_clip().index());
        let duration = self.duration_secs();
        let time = self.fader.current_time_secs();
        self.time_secs = if self.looping && duration > 0.0 { time.rem_euclid(duration) } else { time.min(duration) };
    }

    /// Add the weight of each clip on screen now to the history (dropping what is older than
    /// [`FADE_HISTORY_SECS`]).
    fn record_weights(&mut self) {
        let mut layer_weights = [0.0; MAX_LAYERS];
        let snapshot = self.fader.weights(&mut layer_weights);
        let mut sample = FadeSample { clock_secs: self.clock_secs, weights: [(0, 0.0); MAX_LAYERS + 1], len: 0 };
        let mut add = |clip: usize, weight: f32| {
            if let Some(slot) = sample.weights[..sample.len].iter_mut().find(|(c, _)| *c == clip) {
                slot.1 += weight;
            } else if sample.len < sample.weights.len() {
                sample.weights[sample.len] = (clip, weight);
                sample.len += 1;
            }
        };
        if snapshot > 0.0 {
            add(EARLIER_BLEND, snapshot);
        }
        for (layer, weight) in self.fader.layers().iter().zip(layer_weights) {
            add(layer.clip.index(), weight);
        }
        self.fade_history.push_back(sample);
        while self.fade_history.front().is_some_and(|s| s.clock_secs < self.clock_secs - FADE_HISTORY_SECS) {
            self.fade_history.pop_front();
        }
    }

    /// The clip list: name, duration, frame rate, channel count and authored interpolation
    /// modes; clicking a name plays that clip.
    pub fn clips_ui(&mut self, ui: &mut egui::Ui, model: &Model) {
        if model.clips.is_empty() {
            ui.label("This model has no animations: showing the rest pose.");
            return;
        }
        let mut clicked = None;
        egui::Grid::new("clip list").striped(true).num_columns(4).show(ui, |ui| {
            ui.strong("clip");
            ui.strong("length");
            ui.strong("channels");
            ui.strong("modes").on_hover_text("Interpolation modes the file uses in this clip");
            ui.end_row();
            for (index, clip) in model.clips.iter().enumerate() {
                let selected = self.clip == Some(index);
                let name = ui.selectable_label(selected, clip.display_name(index));
                if name.on_hover_text("Play this clip from its start (no fade; T fades)").clicked() {
                    clicked = Some(index);
                }
                let fps = self.frame_rates.get(index).copied().unwrap_or(DEFAULT_FRAME_RATE);
                ui.label(format!("{:.2} s", clip.duration_secs()))
                    .on_hover_text(format!("{:.0} frames at {fps} fps", clip.duration_secs() * fps));
                let channels: usize = [Property::Translation, Property::Rotation, Property::Scale, Property::Weights]
                    .iter()
                    .map(|&p| clip.track_count(p))
                    .sum();
                ui.label(channels.to_string());
                let modes: Vec<&str> = clip.interpolations().iter().map(|m| m.gltf_name()).collect();
                ui.label(modes.join(", "));
                ui.end_row();
            }
        });
        if let Some(index) = clicked {
            self.select_clip(index);
        }
    }

    /// Play/pause, frame steps, Home/End, speed, loop, the time readout and the timeline with
    /// its time labels and key ticks (`selected_keys`: the selected channel's key times) and the
    /// clip's foot-contact markers (foot name, time), which can be dragged along it. True when a
    /// marker was moved.
    pub fn transport_ui(
        &mut self,
        ui: &mut egui::Ui,
        key_times: &[f32],
        selected_keys: &[f32],
        markers: &mut [(String, f32)],
    ) -> bool {
        ui.horizontal(|ui| {
            let label = if self.playing { "Pause" } else { "Play" };
            if ui.add_sized([56.0, 20.0], egui::Button::new(label)).on_hover_text("Play or pause (Space)").clicked() {
                self.toggle_play();
            }
            if ui.button("|<").on_hover_text("First frame (Home)").clicked() {
                self.go_to_start();
            }
            if ui.button("< Frame").on_hover_text("One frame back (Left arrow); pauses").clicked() {
                self.step_frames(-1);
            }
            if ui
                .button("Frame >")
                .on_hover_text(
                    "One frame on (Right arrow); pauses. During a transition it advances the transition by a frame",
                )
                .clicked()
            {
                self.step_frames(1);
            }
            if ui.button(">|").on_hover_text("Last frame (End); pauses").clicked() {
                self.go_to_end();
            }
            ui.add(
                egui::Slider::new(&mut self.speed, 0.1..=4.0)
                    .update_while_editing(false)
                    .logarithmic(true)
                    .text("speed")
                    .suffix("×"),
            )
            .on_hover_text("Playback speed (fades and the ragdoll run at it too)");
            ui.checkbox(&mut self.looping, "loop")
                .on_hover_text("Wrap at the end; off: stop on the last frame (Play then restarts)");
            ui.monospace(format!(
                "{:6.3} s / {:.3} s  frame {} / {} @ {} fps",
                self.time_secs,
                self.duration_secs(),
                self.frame_index(),
                self.frame_count(),
                self.frame_rate()
            ))
            .on_hover_text(
                "Clip time and length; frame and frame count at the clip's own frame rate (from its key spacing)",
            );
        });
        let duration = self.duration_secs();
        let mut time = self.time_secs;
        // Room for the labels under the rail at both ends.
        let margin = 18.0;
        let rail = ui.horizontal(|ui| {
            ui.add_space(margin);
            ui.spacing_mut().slider_width = (ui.available_width() - 2.0 * margin).max(50.0);
            let response = ui.add_enabled(
                duration > 0.0,
                egui::Slider::new(&mut time, 0.0..=duration.max(1e-3))
                    .update_while_editing(false)
                    .show_value(false)
                    .clamping(egui::SliderClamping::Always),
            );
            response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, duration > 0.0, "timeline"));
            let response = response.on_hover_text(
                "Drag or click to scrub (a transition in progress ends there); ticks are keys, the markers foot contacts",
            );
            if response.changed() {
                self.seek(time);
            }
            response.rect
        });
        timeline_marks_ui(ui, rail.inner, duration, key_times, selected_keys, markers)
    }
}

/// Where times fall under the timeline slider: egui keeps the slider's handle inside its rect,
/// so time 0 and the end sit a handle radius in from its edges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimelineScale {
    /// x of time 0.
    pub x0: f32,
    /// x of the clip's end.
    pub x1: f32,
    /// The clip's length, seconds.
    pub duration_secs: f32,
}

impl TimelineScale {
    /// The scale under a slider of rect `slider` for a clip of `duration_secs`.
    pub fn under(slider: egui::Rect, duration_secs: f32) -> Self {
        let handle_radius = slider.height() / 2.5;
        Self { x0: slider.left() + handle_radius, x1: slider.right() - handle_radius, duration_secs }
    }

    /// x of time `t` (clamped to the clip).
    pub fn x_of(&self, t: f32) -> f32 {
        if self.duration_secs <= 0.0 {
            return self.x0;
        }
        self.x0 + (self.x1 - self.x0) * (t / self.duration_secs).clamp(0.0, 1.0)
    }

    /// Labelled times: a "nice" step (1, 2 or 5 × 10ⁿ s) leaving about 70 px between labels,
    /// from 0 to the end.
    pub fn labels(&self) -> Vec<(f32, String)> {
        if self.duration_secs <= 0.0 {
            return Vec::new();
        }
        let step = nice_step(self.duration_secs / (self.x1 - self.x0).max(1.0) * 70.0);
        let count = (self.duration_secs / step + 1e-3).floor() as usize;
        (0..=count).map(|i| i as f32 * step).map(|t| (t, format_secs(t, step))).collect()
    }
}

/// Key ticks (every key of the clip grey, the selected channel's keys highlighted), time labels
/// under the timeline slider whose rect is `slider`, drawn whole at both ends, and the
/// foot-contact markers below them, draggable. True when a marker moved.
fn timeline_marks_ui(
    ui: &mut egui::Ui,
    slider: egui::Rect,
    duration: f32,
    key_times: &[f32],
    selected_keys: &[f32],
    markers: &mut [(String, f32)],
) -> bool {
    // One height with or without markers: the layout does not jump when a clip has contacts.
    let height = 40.0;
    let (strip, _) = ui.allocate_exact_size(egui::vec2(ui.available_width(), height), egui::Sense::hover());
    if duration <= 0.0 {
        return false;
    }
    let scale = TimelineScale::under(slider, duration);
    let mut moved = false;
    for (i, (foot, t)) in markers.iter_mut().enumerate() {
        let center = egui::pos2(scale.x_of(*t), strip.top() + 32.0);
        let handle = egui::Rect::from_center_size(center, egui::vec2(14.0, 14.0));
        let response = ui
            .interact(handle, ui.make_persistent_id(("contact marker", i)), egui::Sense::drag())
            .on_hover_text(format!("{foot} touches down at {t:.3} s: drag to move (saved in the profile)"));
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, format!("contact {foot}")));
        if response.dragged()
            && let Some(pointer) = response.interact_pointer_pos()
            && scale.x1 > scale.x0
        {
            *t = ((pointer.x - scale.x0) / (scale.x1 - scale.x0)).clamp(0.0, 1.0) * duration;
            moved = true;
        }
        let letter = side_letter(foot);
        let color =
            if letter == 'L' { egui::Color32::from_rgb(90, 200, 255) } else { egui::Color32::from_rgb(255, 170, 60) };
        let color = if response.hovered() || response.dragged() { color.gamma_multiply(1.4) } else { color };
        let tip = egui::pos2(center.x, center.y - 7.0);
        ui.painter().add(egui::Shape::convex_polygon(
            vec![tip, egui::pos2(center.x - 6.0, center.y + 5.0), egui::pos2(center.x + 6.0, center.y + 5.0)],
            color,
            egui::Stroke::NONE,
        ));
        ui.painter().text(
            egui::pos2(center.x + 8.0, center.y),
            egui::Align2::LEFT_CENTER,
            letter,
            egui::FontId::proportional(10.0),
            color,
        );
    }
    let painter = ui.painter().with_clip_rect(strip.expand(2.0));
    let ticks = strip.top()..=strip.top() + 7.0;
    let mut last_x = f32::NEG_INFINITY;
    for &t in key_times {
        let x = scale.x_of(t);
        // One tick per pixel column at most (dense clips); key_times are sorted.
        if x - last_x >= 1.0 {
            painter.vline(x, ticks.clone(), egui::Stroke::new(1.0, egui::Color32::from_gray(120)));
            last_x = x;
        }
    }
    let color = ui.visuals().selection.bg_fill;
    for &t in selected_keys {
        painter.vline(scale.x_of(t), strip.top()..=strip.top() + 9.0, egui::Stroke::new(2.0, color));
    }
    let font = egui::FontId::proportional(11.0);
    let text_color = ui.visuals().weak_text_color();
    for (t, label) in scale.labels() {
        let x = scale.x_of(t);
        painter.vline(x, strip.top() + 8.0..=strip.top() + 11.0, egui::Stroke::new(1.0, text_color));
        painter.text(egui::pos2(x, strip.top() + 11.0), egui::Align2::CENTER_TOP, label, font.clone(), text_color);
    }
    moved
}

/// "L" or "R" for a foot named like `Foot.L`, `LeftFoot`, `foot_r`; else the name's first letter.
fn side_letter(foot: &str) -> char {
    let lower = foot.to_lowercase();
    let ends = |s: &str| lower.ends_with(s) || lower.starts_with(s);
    if lower.contains("left") || ends(".l") || ends("_l") || ends("l_") || ends("l.") {
        'L'
    } else if lower.contains("right") || ends(".r") || ends("_r") || ends("r_") || ends("r.") {
        'R'
    } else {
        foot.chars().next().unwrap_or('?').to_ascii_uppercase()
    }
}

/// The smallest of 1, 2, 5 × 10ⁿ seconds not below `at_least`.
fn nice_step(at_least: f32) -> f32 {
    let at_least = at_least.max(1e-4);
    let magnitude = 10f32.powf(at_least.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * magnitude).find(|&s| s >= at_least).unwrap_or(10.0 * magnitude)
}

/// `t` with as many decimals as `step` needs, and "s".
fn format_secs(t: f32, step: f32) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10().floor()) as usize };
    format!("{t:.decimals$} s")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model")
    }

    #[test]
    fn playback_advances_wraps_and_stops_at_the_end_without_loop() {
        let mut playback = Playback::new(&model());
        let duration = playback.duration_secs();
        assert!(duration > 0.0);
        playback.advance(0.1);
        assert!((playback.time_secs() - 0.1).abs() < 1e-5);
        playback.seek(duration - 0.01);
        playback.advance(0.1);
        assert!(playback.time_secs() < 0.2, "wrapped: {}", playback.time_secs());
        // Loop off: stops on the last frame, and Play restarts from the start.
        playback.looping = false;
        playback.seek(duration - 0.01);
        playback.advance(0.1);
        assert_eq!(playback.time_secs(), duration);
        assert!(!playback.playing);
        playback.toggle_play();
        assert!(playback.playing);
        assert_eq!(playback.time_secs(), 0.0, "Play at the end restarts");
        playback.toggle_play();
        let before = playback.time_secs();
        playback.advance(0.1);
        assert_eq!(playback.time_secs(), before, "paused");
    }

    #[test]
    fn stepping_lands_on_whole_frames_and_home_end_jump() {
        let mut playback = Playback::new(&model());
        let fps = playback.frame_rate();
        playback.seek(0.955);
        playback.step_frames(1);
        let frame = playback.frame_index();
        assert!(((playback.time_secs() * fps) - frame as f32).abs() < 1e-3, "{} at {fps} fps", playback.time_secs());
        assert_eq!(frame, (0.955 * fps).round() as i64 + 1);
        playback.step_frames(-3);
        assert_eq!(playback.frame_index(), frame - 3);
        playback.go_to_end();
        assert_eq!(playback.time_secs(), playback.duration_secs());
        assert_eq!(playback.frame_index(), playback.frame_count());
        playback.go_to_start();
        assert_eq!(playback.time_secs(), 0.0);
        // Looping wraps a step back from frame 0 to the last frame before the end.
        playback.step_frames(-1);
        assert_eq!(playback.frame_index(), playback.frame_count() - 1);
    }

    #[test]
    fn frame_rates_follow_the_keys() {
        let model = model();
        for clip in &model.clips {
            let fps = frame_rate(clip);
            assert!(FRAME_RATES.contains(&fps) || fps == DEFAULT_FRAME_RATE);
        }
        let nice = nice_step(0.13);
        assert_eq!(nice, 0.2);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(format_secs(0.5, 0.5), "0.5 s");
        assert_eq!(format_secs(2.0, 1.0), "2 s");
    }

    #[test]
    fn a_fade_starts_from_the_clip_on_screen_and_records_both_weights() {
        let mut playback = Playback::new(&model());
        playback.select_clip(3);
        playback.seek(1.0);
        let m = model();
        playback.fade_to(&m, &SampleSettings::default(), 1, FadeTuning::cross_fade(0.5, anim::Easing::Linear), &|_| {
            Vec::new()
        });
        let layers = playback.fader().layers();
        assert_eq!(layers.len(), 2);
        assert_eq!(
            (layers[0].clip.index(), layers[0].time_secs),
            (3, 1.0),
            "faded from the clip on screen at its time"
        );
        assert_eq!(playback.clip(), Some(1));
        for _ in 0..40 {
            playback.advance(1.0 / 60.0);
        }
        let rows: Vec<FadeSample> = playback.fade_history().iter().copied().collect();
        assert!(rows.iter().all(|r| (r.weights().iter().map(|(_, w)| w).sum::<f32>() - 1.0).abs() < 1e-5));
        // Half-way through the 0.5 s fade (15 frames) the two cross.
        let (from, to) = (rows[14].weight_of(3), rows[14].weight_of(1));
        assert!((from - 0.5).abs() < 0.05 && (to - 0.5).abs() < 0.05, "{from} {to}");
        // Each clip's weight moves continuously (no jump of more than one frame's share).
        for pair in rows.windows(2) {
            for clip in [1, 3] {
                let step = (pair[1].weight_of(clip) - pair[0].weight_of(clip)).abs();
                assert!(step < 0.06, "clip {clip} jumps by {step}");
            }
        }
        assert_eq!(rows.last().map(|r| r.weight_of(1)), Some(1.0));
        assert!(!playback.is_fading());
    }
}
