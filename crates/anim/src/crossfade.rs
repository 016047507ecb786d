//! Time-based cross-fades between clips, robust to interruption and rapid re-triggering.
//!
//! The fader is a small stack of layers. Each trigger pushes a layer that fades in over
//! everything beneath it: the output is `lerp(lerp(lerp(L0, L1, e1), L2, e2), …)` with `eᵢ` the
//! eased progress of layer i's fade. So a fade triggered mid-fade starts from the current blended
//! pose (the layers beneath keep playing and keep their own fades going), A→B→A in one frame is
//! three layers of which the last two still weigh nothing, and a fade that completes covers the
//! layers beneath, which are dropped. Every layer's clip advances with time. When more layers
//! pile up than the stack holds, the current output is frozen into a snapshot that fades out
//! under the newest layers, so nothing snaps.

use crate::ids::ClipId;
use crate::interp::Easing;
use crate::model::Model;
use crate::pose::{SoaPose, blend_into};
use crate::sample::{ClipCursor, SampleSettings};
use crate::track::Property;

/// Most layers kept live before older ones are frozen into a snapshot.
pub const MAX_LAYERS: usize = 8;

/// One playing clip and its fade-in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layer {
    /// The clip.
    pub clip: ClipId,
    /// Playback time in the clip (unwrapped; looping wraps it when sampling).
    pub time_secs: f32,
    /// Time since this layer's fade started.
    pub elapsed_secs: f32,
    /// Length of its fade-in (0: instant).
    pub duration_secs: f32,
    /// Easing of its fade-in weight.
    pub easing: Easing,
}

impl Layer {
    /// Eased fade-in progress in `[0, 1]`.
    pub fn progress(&self) -> f32 {
        if self.duration_secs > 0.0 { self.easing.apply(self.elapsed_secs / self.duration_secs) } else { 1.0 }
    }
}

/// Plays one clip at a time and cross-fades to another on request. Time-based (weights change
/// per second, never per frame); per-frame calls allocate nothing.
#[derive(Debug, Clone)]
pub struct CrossFader {
    layers: Vec<Layer>,
    /// A frozen pose under the layers (after a stack overflow), with its own fade-out.
    snapshot: SoaPose,
    snapshot_active: bool,
    rest: SoaPose,
    scratch: SoaPose,
    output: SoaPose,
    cursors: Vec<ClipCursor>,
    /// Per clip: it animates every translation, rotation and scale of the model (and there are
    /// no morph weights), so sampling it overwrites all of the rest pose it starts from.
    covers_pose: Vec<bool>,
    /// Wrap clip times (true) or hold the last frame (false).
    pub looping: bool,
}

impl CrossFader {
    /// A fader playing `clip` of `model` from time 0, at full weight.
    pub fn new(model: &Model, clip: ClipId) -> Self {
        let rest = model.rest_pose();
        let covers_pose = model
            .clips
            .iter()
            .map(|clip| {
                let animated = |property: Property| {
                    let mut seen = vec![false; model.nodes.len()];
                    for track in clip.tracks().iter().filter(|t| t.property() == property) {
                        if let Some(slot) = seen.get_mut(track.node.index()) {
                            *slot = true;
                        }
                    }
                    seen.iter().all(|&s| s)
                };
                model.weight_count == 0
                    && animated(Property::Translation)
                    && animated(Property::Rotation)
                    && animated(Property::Scale)
            })
            .collect();
        let mut layers = Vec::with_capacity(MAX_LAYERS + 1);
        layers.push(Layer { clip, time_secs: 0.0, elapsed_secs: 0.0, duration_secs: 0.0, easing: Easing::Linear });
        Self {
            layers,
            snapshot: rest.clone(),
            snapshot_active: false,
            scratch: rest.clone(),
            output: rest.clone(),
            rest,
            cursors: model.clips.iter().map(ClipCursor::new).collect(),
            covers_pose,
            looping: true,
        }
    }

    /// Start fading to `to_clip` from time 0 over `duration_secs` (0 switches at once) with
    /// `easing`. Works at any moment, including mid-fade and several times per frame; fading to
    /// the clip already playing restarts it with a fade from its current pose.
    pub fn trigger(&mut self, to_clip: ClipId, duration_secs: f32, easing: Easing) {
        let duration_secs = if duration_secs.is_finite() { duration_secs.max(0.0) } else { 0.0 };
        if self.layers.len() >= MAX_LAYERS {
            // Freeze what is on screen now and fade it out under the new layer.
            self.snapshot.copy_from(&self.output);
            self.snapshot_active = true;
            self.layers.clear();
        }
        self.layers.push(Layer { clip: to_clip, time_secs: 0.0, elapsed_secs: 0.0, duration_secs, easing });
    }

    /// Jump to `clip` at `time_secs` with no fade.
    pub fn play(&mut self, clip: ClipId, time_secs: f32) {
        self.layers.clear();
        self.snapshot_active = false;
        self.layers.push(Layer { clip, time_secs, elapsed_secs: 0.0, duration_secs: 0.0, easing: Easing::Linear });
    }

    /// Advance every layer's clip and fade by `dt_secs`, then drop layers that a completed fade
    /// covers.
    pub fn advance(&mut self, dt_secs: f32) {
        let dt = if dt_secs.is_finite() { dt_secs.max(0.0) } else { 0.0 };
        for layer in &mut self.layers {
            layer.time_secs += dt;
            layer.elapsed_secs += dt;
        }
        if let Some(top_full) = self.layers.iter().rposition(|l| l.progress() >= 1.0) {
            self.layers.drain(..top_full);
            self.snapshot_active = false;
        }
    }

    /// The clip being faded to (or playing alone).
    pub fn current_clip(&self) -> ClipId {
        self.layers.last().map_or(ClipId::from_index(0), |l| l.clip)
    }

    /// Playback time of the current clip.
    pub fn current_time_secs(&self) -> f32 {
        self.layers.last().map_or(0.0, |l| l.time_secs)
    }

    /// True while more than one source contributes.
    pub fn is_fading(&self) -> bool {
        self.layers.len() > 1 || self.snapshot_active
    }

    /// Live layers, oldest first.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Effective weight of each live layer (oldest first) and of the frozen snapshot; they sum
    /// to 1.
    pub fn weights(&self, out: &mut [f32; MAX_LAYERS]) -> f32 {
        let mut above = 1.0;
        for (i, layer) in self.layers.iter().enumerate().rev() {
            let e = if i == 0 && !self.snapshot_active { 1.0 } else { layer.progress() };
            out[i] = e * above;
            above *= 1.0 - e;
        }
        out[self.layers.len()..].fill(0.0);
        if self.snapshot_active { above } else { 0.0 }
    }

    /// Evaluate the blended pose at the current time: every layer sampled with `settings`
    /// ([`crate::Clip::sample`]) and blended over the ones beneath ([`blend_into`], in
    /// `settings.scale_space`), in blocks of eight nodes. Allocates nothing.
    pub fn evaluate(&mut self, model: &Model, settings: &SampleSettings) -> &SoaPose {
        let mut layers = self.layers.iter();
        let mut job = LayerJob {
            model,
            looping: self.looping,
            settings,
            rest: &self.rest,
            covers_pose: &self.covers_pose,
            cursors: &mut self.cursors,
        };
        if self.snapshot_active {
            self.output.copy_from(&self.snapshot);
        } else if let Some(bottom) = layers.next() {
            job.sample(bottom, &mut self.output);
        } else {
            self.output.copy_from(&self.rest);
        }
        for layer in layers {
            job.sample(layer, &mut self.scratch);
            blend_into(&mut self.output, &self.scratch, layer.progress(), settings.scale_space);
        }
        &self.output
    }

    /// The pose computed by the last [`Self::evaluate`] (the rest pose before the first).
    pub fn output(&self) -> &SoaPose {
        &self.output
    }
}

/// What sampling one layer needs.
struct LayerJob<'a> {
    model: &'a Model,
    looping: bool,
    settings: &'a SampleSettings,
    rest: &'a SoaPose,
    covers_pose: &'a [bool],
    cursors: &'a mut [ClipCursor],
}

impl LayerJob<'_> {
    /// Sample `layer`'s clip at its time into `out`, over the rest pose unless the clip
    /// overwrites all of it.
    fn sample(&mut self, layer: &Layer, out: &mut SoaPose) {
        let index = layer.clip.index();
        let (Some(clip), Some(cursor)) = (self.model.clips.get(index), self.cursors.get_mut(index)) else {
            out.copy_from(self.rest);
            return;
        };
        if !self.covers_pose.get(index).copied().unwrap_or(false) {
            out.copy_from(self.rest);
        }
        let time = if self.looping { clip.wrap_time(layer.time_secs) } else { layer.time_secs.min(clip.end_secs()) };
        clip.sample(time, cursor, self.settings, out);
    }
}
