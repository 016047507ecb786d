//! The layer stack: the clips playing, each with its eased fade-in over the ones beneath, their
//! playback rates (speed matching) and weights.

use crate::ids::ClipId;
use crate::interp::Easing;

use super::{MAX_LAYERS, Transition};

/// What a layer of the fader samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LayerSource {
    /// Its clip at its time.
    #[default]
    Clip,
    /// The fader's blend space ([`super::CrossFader::set_blend_space`]) at its parameter and
    /// phase, evaluated into the caller's pose; the layer's `clip` is then the space's heaviest
    /// clip at the trigger (what readouts name and root motion follows).
    BlendSpace,
}

/// One playing clip (or the blend space) and its fade-in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layer {
    /// The clip (for a blend-space layer: its heaviest clip at the trigger).
    pub clip: ClipId,
    /// What the layer samples: the clip, or the fader's blend space.
    pub source: LayerSource,
    /// Playback time in the clip (unwrapped; looping wraps it when sampling).
    pub time_secs: f32,
    /// Time since this layer's fade started.
    pub elapsed_secs: f32,
    /// Length of its fade-in (0: instant).
    pub duration_secs: f32,
    /// Easing of its fade-in weight.
    pub easing: Easing,
    /// Playback time up to which its root motion has been accumulated.
    pub root_time_secs: f32,
    /// Speed matching: the source's cycle length it starts matched to (0: plays at its speed).
    pub match_cycle_secs: f32,
    /// Length of the speed matching (the transition's duration).
    pub match_duration_secs: f32,
}

impl Layer {
    /// A layer playing `clip` from `time_secs`, fading in over `duration_secs`.
    pub(crate) fn new(clip: ClipId, time_secs: f32, duration_secs: f32, easing: Easing) -> Self {
        Self {
            clip,
            source: LayerSource::Clip,
            time_secs,
            elapsed_secs: 0.0,
            duration_secs,
            easing,
            root_time_secs: time_secs,
            match_cycle_secs: 0.0,
            match_duration_secs: 0.0,
        }
    }

    /// The first layer of `transition` to `clip`: from its start time (0 when not finite),
    /// fading in over `duration_secs`, speed-matched when it asks.
    pub(crate) fn of_transition(clip: ClipId, transition: &Transition, duration_secs: f32) -> Self {
        let start = if transition.start_secs.is_finite() { transition.start_secs } else { 0.0 };
        let mut layer = Self::new(clip, start, duration_secs, transition.easing);
        if transition.match_cycle_secs > 0.0 && transition.match_cycle_secs.is_finite() {
            layer.match_cycle_secs = transition.match_cycle_secs;
            layer.match_duration_secs = duration_secs;
        }
        layer
    }

    /// Eased fade-in progress in `[0, 1]`.
    pub fn progress(&self) -> f32 {
        if self.duration_secs > 0.0 { self.easing.apply(self.elapsed_secs / self.duration_secs) } else { 1.0 }
    }

    /// This layer `shift_secs` from now at playback `rate`: its clip time moved by
    /// `shift_secs · rate`, its fade by `shift_secs`.
    pub(crate) fn shifted(&self, shift_secs: f32, rate: f32) -> Self {
        Self { time_secs: self.time_secs + shift_secs * rate, elapsed_secs: self.elapsed_secs + shift_secs, ..*self }
    }
}

/// The clips playing, oldest first, each fading in over the ones beneath (at most
/// [`MAX_LAYERS`]; the coordinator freezes the output before pushing more).
#[derive(Debug, Clone)]
pub(crate) struct LayerStack {
    layers: Vec<Layer>,
}

impl LayerStack {
    /// A stack playing `clip` from time 0 at full weight.
    pub fn new(clip: ClipId) -> Self {
        let mut layers = Vec::with_capacity(MAX_LAYERS + 1);
        layers.push(Layer::new(clip, 0.0, 0.0, Easing::Linear));
        Self { layers }
    }

    /// The live layers, oldest first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// True when no more layers fit.
    pub fn is_full(&self) -> bool {
        self.layers.len() >= MAX_LAYERS
    }

    /// Drop every layer.
    pub fn clear(&mut self) {
        self.layers.clear();
    }

    /// Push `layer` on top.
    pub fn push(&mut self, layer: Layer) {
        self.layers.push(layer);
    }

    /// Every layer, for root motion's bookkeeping.
    pub fn layers_mut(&mut self) -> &mut [Layer] {
        &mut self.layers
    }

    /// Advance every layer's clip (at its playback rate) and fade by `dt_secs`.
    pub fn advance(&mut self, dt_secs: f32, clip_secs: &[f32]) {
        let rates = playback_rates(&self.layers, clip_secs);
        for (layer, rate) in self.layers.iter_mut().zip(rates) {
            layer.time_secs += dt_secs * rate;
            layer.elapsed_secs += dt_secs;
        }
    }

    /// Drop the layers a completed fade covers; true when any was dropped or `under_active`
    /// (what lies under the stack is covered too).
    pub fn drop_covered(&mut self, under_active: bool) -> bool {
        if let Some(top_full) = self.layers.iter().rposition(|l| l.progress() >= 1.0)
            && (top_full > 0 || under_active)
        {
            self.layers.drain(..top_full);
            return true;
        }
        false
    }

    /// Effective weight of each live layer (oldest first) and, returned, of what lies under the
    /// stack when `under_active` (a frozen snapshot); they sum to 1.
    pub fn weights(&self, under_active: bool, out: &mut [f32; MAX_LAYERS]) -> f32 {
        let mut above = 1.0;
        for (i, layer) in self.layers.iter().enumerate().rev() {
            let e = if i == 0 && !under_active { 1.0 } else { layer.progress() };
            out[i] = e * above;
            above *= 1.0 - e;
        }
        out[self.layers.len()..].fill(0.0);
        if under_active { above } else { 0.0 }
    }
}

/// Playback rate of each layer now (clip seconds per second, oldest first): 1, except a
/// speed-matched top layer (and the source beneath it), which play at the cycle rate blended from
/// the source's to the target's by the top layer's progress.
pub(crate) fn playback_rates(layers: &[Layer], clip_secs: &[f32]) -> [f32; MAX_LAYERS + 1] {
    let secs = |clip: ClipId| clip_secs.get(clip.index()).copied().unwrap_or(0.0);
    let n = layers.len();
    let mut rates = [1.0f32; MAX_LAYERS + 1];
    if let Some(top) = layers.last()
        && top.match_cycle_secs > 0.0
        && top.elapsed_secs < top.match_duration_secs
    {
        let own = secs(top.clip);
        let u = if top.match_duration_secs > 0.0 { top.elapsed_secs / top.match_duration_secs } else { 1.0 };
        let w = if top.duration_secs > 0.0 { top.progress() } else { u };
        let below = n.checked_sub(2).and_then(|i| layers.get(i)).map(|l| secs(l.clip));
        let source = below.filter(|&s| s > 0.0).unwrap_or(top.match_cycle_secs);
        if own > 0.0 {
            // Cycles per second, blended from the source's to the target's.
            let frequency = (1.0 - w) / source + w / own;
            if let Some(rate) = rates.get_mut(n - 1) {
                *rate = frequency * own;
            }
            if let (Some(s), Some(rate)) = (below.filter(|&s| s > 0.0), rates.get_mut(n.wrapping_sub(2))) {
                *rate = frequency * s;
            }
        }
    }
    rates
}
