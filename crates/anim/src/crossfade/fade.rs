//! The eased cross-fade: the layer stack's clips sampled and each blended over the ones
//! beneath by its eased progress, `lerp(lerp(lerp(L0, L1, e1), L2, e2), …)`, over a dead
//! blend's extrapolation when one runs.

use crate::interp::ScaleSpace;
use crate::model::Model;
use crate::pose::{SoaPose, blend_into};
use crate::sample::SampleSettings;

use super::clips::ClipSampler;
use super::dead_blend::Extrapolation;
use super::layers::Layer;

/// What one cross-fade evaluation reads: the model and settings the clips are sampled with,
/// the layers and their playback rates, and what lies under them.
#[derive(Clone, Copy)]
pub(crate) struct FadeInput<'a> {
    /// The model whose clips play.
    pub model: &'a Model,
    /// How they are sampled.
    pub settings: &'a SampleSettings,
    /// Clip times wrap (true) or hold the last frame.
    pub looping: bool,
    /// The layers, oldest first.
    pub layers: &'a [Layer],
    /// Each layer's playback rate (1 where this has none).
    pub rates: &'a [f32],
    /// The extrapolated snapshot under the layers, if any.
    pub under: Option<Extrapolation<'a>>,
}

/// The eased cross-fade job and its scratch pose.
#[derive(Debug, Clone)]
pub(crate) struct CrossFade {
    tmp: SoaPose,
}

impl CrossFade {
    /// The job, its scratch shaped like `rest`.
    pub fn new(rest: &SoaPose) -> Self {
        Self { tmp: rest.clone() }
    }

    /// The stack evaluated `shift_secs` from now (every fade and the extrapolation shifted,
    /// every clip time by `shift_secs` times its layer's playback rate; a clip that loops
    /// meanwhile continues past its seam without the seam's jump) into `out`.
    pub fn blend(&mut self, sampler: &mut ClipSampler, input: &FadeInput, shift_secs: f32, out: &mut SoaPose) {
        let space: ScaleSpace = input.settings.scale_space;
        if input.under.is_none() && input.layers.is_empty() {
            out.copy_from(&sampler.rest);
            return;
        }
        let mut sample = |i: usize, layer: &Layer, out: &mut SoaPose| {
            let rate = input.rates.get(i).copied().unwrap_or(1.0);
            let shifted = layer.shifted(shift_secs, rate);
            sampler.sample(input.model, input.settings, input.looping, &shifted, layer.time_secs, out);
            shifted
        };
        let mut layers = input.layers.iter().enumerate();
        if let Some(under) = input.under {
            under.write(shift_secs, out);
        } else if let Some((i, bottom)) = layers.next() {
            sample(i, bottom, out);
        }
        for (i, layer) in layers {
            let shifted = sample(i, layer, &mut self.tmp);
            blend_into(out, &self.tmp, shifted.progress(), space);
        }
    }
}
