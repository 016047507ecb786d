//! What the fader knows of a model's clips, measured once, and the one job that samples a
//! layer's clip: [`ClipSampler`].

use crate::blend_space::BlendSpacePlayer;
use crate::clip::{Clip, loop_secs};
use crate::ids::ClipId;
use crate::model::Model;
use crate::pose::{PoseDelta, SoaPose};
use crate::sample::{ClipCursor, SampleSettings};
use crate::track::Property;

use super::layers::{Layer, LayerSource};

/// Rate at which each clip is sampled once, at construction, for its joints' fastest motion and
/// its loop seam.
const FACT_HZ: f32 = 60.0;

/// Most samples per clip for those facts (a longer clip is sampled more sparsely).
const MAX_FACT_SAMPLES: usize = 1 << 14;

/// Per node, what the model's clips do at most: the bounds of a dead blend's extrapolation.
#[derive(Debug, Clone)]
pub(crate) struct MotionLimits {
    /// The fastest translation, rotation, scale and weight rates any clip shows (the vectors'
    /// lengths).
    pub rates: PoseDelta,
    /// The furthest any clip moves each node from the clip's first pose (the vectors' lengths).
    pub reach: PoseDelta,
}

/// The model's clips as the fader samples them: the rest pose under them, a cursor per clip,
/// each clip's length, whether it covers the whole pose, and the jump at its loop seam.
#[derive(Debug, Clone)]
pub(crate) struct ClipSampler {
    /// The model's rest pose.
    pub rest: SoaPose,
    cursors: Vec<ClipCursor>,
    /// Per clip: its length (the loop period).
    clip_secs: Vec<f32>,
    /// Per clip: it animates every translation, rotation and scale of the model (and there are
    /// no morph weights), so sampling it overwrites all of the rest pose it starts from.
    covers_pose: Vec<bool>,
    /// Per clip: the jump at its loop seam (last pose ⊖ first), only the components that move
    /// faster there than the clip's fastest step (zero where the seam continues the motion).
    seam_jumps: Vec<PoseDelta>,
    /// The blend space a [`LayerSource::BlendSpace`] layer samples, when one is set.
    pub blend_space: Option<BlendSpacePlayer>,
}

impl ClipSampler {
    /// The sampler of `model`'s clips and what they do at most. Allocates (once).
    pub fn new(model: &Model) -> (Self, MotionLimits) {
        let rest = model.rest_pose();
        let covers_pose: Vec<bool> = model.clips.iter().map(|clip| clip_covers_pose(model, clip)).collect();
        let (limits, seam_jumps) = clip_motion_facts(model, &rest, &covers_pose);
        let sampler = Self {
            cursors: model.clips.iter().map(ClipCursor::new).collect(),
            clip_secs: model.clips.iter().map(Clip::end_secs).collect(),
            covers_pose,
            seam_jumps,
            rest,
            blend_space: None,
        };
        (sampler, limits)
    }

    /// Every clip's length (the loop period), by clip index.
    pub fn clip_secs(&self) -> &[f32] {
        &self.clip_secs
    }

    /// Loop length of `clip` (0 when unknown).
    pub fn secs(&self, clip: ClipId) -> f32 {
        self.clip_secs.get(clip.index()).copied().unwrap_or(0.0)
    }

    /// Sample `layer`'s clip at its time into `out` (a blend-space layer: the blend space,
    /// `layer.time_secs − from_secs` ahead of its own time; the rest pose without one), over the
    /// rest pose unless the clip overwrites all of it. Looping, a time in a later (earlier) loop than `from_secs` has the
    /// seam's jump added (taken away) once per loop between them, so the motion from
    /// `from_secs` on continues past the seam as the clip moves elsewhere (a travelling root
    /// carries on, a last key that misses the first does not pop); at `from_secs ==
    /// layer.time_secs` it is the clip as played.
    pub fn sample(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        looping: bool,
        layer: &Layer,
        from_secs: f32,
        out: &mut SoaPose,
    ) {
        if layer.source == LayerSource::BlendSpace {
            // The blend space at its phase, `time − from` ahead (its own clock keeps its time).
            match &mut self.blend_space {
                Some(player) => player.evaluate_ahead(model, settings, layer.time_secs - from_secs, out),
                None => out.copy_from(&self.rest),
            }
            return;
        }
        let index = layer.clip.index();
        let (Some(clip), Some(cursor)) = (model.clips.get(index), self.cursors.get_mut(index)) else {
            out.copy_from(&self.rest);
            return;
        };
        if !self.covers_pose.get(index).copied().unwrap_or(false) {
            out.copy_from(&self.rest);
        }
        let secs = clip.end_secs();
        let time = wrap_time(secs, looping, layer.time_secs);
        clip.sample(time, cursor, settings, out);
        // At `from_secs` itself (every shown frame) no seam lies between: nothing to count.
        if looping && secs > 0.0 && layer.time_secs != from_secs {
            let loops = (layer.time_secs / secs).floor() - (from_secs / secs).floor();
            if let Some(jump) = self.seam_jumps.get(index)
                && loops.is_finite()
                && loops != 0.0
            {
                jump.apply_to(out, loops);
            }
        }
    }
}

/// `time_secs` wrapped into `[0, clip_secs)` (looping) or clamped to `[0, clip_secs]`.
pub(crate) fn wrap_time(clip_secs: f32, looping: bool, time_secs: f32) -> f32 {
    if !time_secs.is_finite() || clip_secs <= 0.0 {
        0.0
    } else if looping {
        loop_secs(time_secs, clip_secs)
    } else {
        time_secs.clamp(0.0, clip_secs)
    }
}

/// Each clip sampled once at [`FACT_HZ`]: per node the fastest rates any clip shows (over its
/// steps, the loop seam excluded) and the furthest any clip moves it from its first pose, and
/// per clip the jump at its loop seam — the seam's step from the last pose back to the first,
/// kept only for the components (a node's translation, rotation or scale, a weight) that move
/// faster there than in any step of the clip (with a little slack for rounding): a travelling
/// root, or a clip whose last key does not meet its first.
fn clip_motion_facts(model: &Model, rest: &SoaPose, covers_pose: &[bool]) -> (MotionLimits, Vec<PoseDelta>) {
    let settings = SampleSettings::default();
    let mut limits = PoseDelta::zeros_like(rest);
    let mut reach = limits.clone();
    let mut first = rest.clone();
    let mut clip_limits = limits.clone();
    let mut step = limits.clone();
    let (mut a, mut b) = (rest.clone(), rest.clone());
    let mut jumps = Vec::with_capacity(model.clips.len());
    for (index, clip) in model.clips.iter().enumerate() {
        let mut jump = PoseDelta::zeros_like(rest);
        let secs = clip.end_secs();
        let samples = (secs * FACT_HZ).ceil();
        if !(secs.is_finite() && samples >= 1.0) {
            // A pose, or nothing: no motion, and no seam to jump.
            jumps.push(jump);
            continue;
        }
        let samples = (samples as usize).min(MAX_FACT_SAMPLES);
        let dt = secs / samples as f32;
        let mut cursor = ClipCursor::new(clip);
        let covers = covers_pose.get(index).copied().unwrap_or(false);
        let mut sample = |time_secs: f32, out: &mut SoaPose| {
            if !covers {
                out.copy_from(rest);
            }
            clip.sample(time_secs, &mut cursor, &settings, out);
        };
        clip_limits.clear();
        sample(0.0, &mut a);
        first.copy_from(&a);
        for k in 1..=samples {
            sample(k as f32 * dt, &mut b);
            step.set_difference(&b, &first, 1.0);
            reach.keep_longest(&step);
            step.set_difference(&b, &a, 1.0 / dt);
            clip_limits.keep_longest(&step);
            std::mem::swap(&mut a, &mut b);
        }
        // `a` is the last pose; the seam as one more step, back to the first.
        sample(0.0, &mut b);
        step.set_difference(&b, &a, 1.0 / dt);
        let jumps_here = |x: f32, bound: f32| x > bound * 1.01 + 1e-4;
        let keep = |out: &mut [glam::Vec3], step: &[glam::Vec3], bound: &[glam::Vec3]| {
            for ((o, &x), &b) in out.iter_mut().zip(step).zip(bound) {
                if jumps_here(x.length(), b.length()) {
                    // last ⊖ first = −(first ⊖ last), per second → per seam.
                    *o = -x * dt;
                }
            }
        };
        keep(&mut jump.translation, &step.translation, &clip_limits.translation);
        keep(&mut jump.rotation, &step.rotation, &clip_limits.rotation);
        keep(&mut jump.scale, &step.scale, &clip_limits.scale);
        for ((o, &x), &b) in jump.weights.iter_mut().zip(&step.weights).zip(&clip_limits.weights) {
            if jumps_here(x.abs(), b.abs()) {
                *o = -x * dt;
            }
        }
        jumps.push(jump);
        limits.keep_longest(&clip_limits);
    }
    (MotionLimits { rates: limits, reach }, jumps)
}

/// True when sampling `clip` overwrites the whole rest pose: it animates every node's
/// translation, rotation and scale, and the model has no morph weights (so a sampler may skip
/// resetting the pose to rest first).
pub fn clip_covers_pose(model: &Model, clip: &Clip) -> bool {
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
}
