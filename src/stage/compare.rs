//! [`Compare`]: the same time under two interpolation modes, side by side or as a ghost, with
//! the largest difference in the current frame and over the whole clip (the heatmap's values);
//! or, with [`KindCompare`], two transition kinds side by side. The panel is `ui::compare`.

use anim::{InterpolationOverride, Model, SampleSettings};

use super::kind_compare::KindCompare;
use crate::stage::sampling::{ClipDeviation, clip_deviation};
use crate::stage::tuning::Tuning;

/// How the two compared poses are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompareLayout {
    /// Two viewports side by side, same camera.
    #[default]
    Split,
    /// One viewport: the left mode solid, the right mode as a translucent ghost over it.
    Ghost,
}

/// Two interpolation modes compared at the same time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareModes {
    /// Left view (the solid model in the ghost layout).
    pub left: InterpolationOverride,
    /// Right view (the ghost in the ghost layout).
    pub right: InterpolationOverride,
    /// Side by side or ghost overlay.
    pub layout: CompareLayout,
    /// Paint the per-joint deviation on the (left) mesh.
    pub heatmap: bool,
    /// Deviation painted fully red, in model units (metres in glTF).
    pub heat_full_scale: f32,
}

impl Default for CompareModes {
    fn default() -> Self {
        Self {
            left: InterpolationOverride::Linear,
            right: InterpolationOverride::Cubic,
            layout: CompareLayout::Split,
            heatmap: false,
            heat_full_scale: 0.02,
        }
    }
}

/// What the clip-wide deviation was computed for.
#[derive(Debug, Clone, PartialEq)]
struct ClipDeviationKey {
    model_generation: u64,
    clip: anim::ClipId,
    left: SampleSettings,
    right: SampleSettings,
}

/// The compare view: on or off, its modes, and the clip-wide deviation (recomputed when the
/// model, clip, modes or spaces change).
#[derive(Debug, Clone, Default)]
pub struct Compare {
    /// Compare is on.
    pub enabled: bool,
    /// Modes, layout and heatmap (kept while compare is off).
    pub modes: CompareModes,
    /// The second layout: two transition kinds side by side (when on, it replaces the modes).
    pub kinds: KindCompare,
    clip_wide: Option<(ClipDeviationKey, Option<ClipDeviation>)>,
}

impl Compare {
    /// The modes when compare is on.
    pub fn active(&self) -> Option<CompareModes> {
        (self.enabled && !self.kinds.enabled).then_some(self.modes)
    }

    /// The layout on screen: the modes' when comparing modes, side by side when comparing
    /// transition kinds.
    pub fn layout(&self) -> Option<CompareLayout> {
        self.active().map(|m| m.layout).or_else(|| self.kinds.poses().map(|_| CompareLayout::Split))
    }

    /// Turn compare on with `modes`.
    pub fn show(&mut self, modes: CompareModes) {
        self.enabled = true;
        self.modes = modes;
    }

    /// True when the two views sit side by side.
    pub fn is_split(&self) -> bool {
        self.active().is_some_and(|m| m.layout == CompareLayout::Split)
    }

    /// The largest deviation between the two modes over the whole of `clip` (cached).
    pub fn clip_deviation(
        &mut self,
        model: &Model,
        model_generation: u64,
        clip: anim::ClipId,
        tuning: &Tuning,
    ) -> Option<ClipDeviation> {
        let modes = self.active()?;
        let left = SampleSettings { mode: modes.left, ..tuning.interpolation().to_settings() };
        let right = SampleSettings { mode: modes.right, ..left.clone() };
        let key = ClipDeviationKey { model_generation, clip, left, right };
        if let Some((cached, result)) = &self.clip_wide
            && *cached == key
        {
            return *result;
        }
        let samples = ((model.clip(clip)?.duration_secs() * 60.0) as usize).clamp(30, 600);
        let result = clip_deviation(model, clip, &key.left, &key.right, samples);
        self.clip_wide = Some((key, result));
        result
    }
}
