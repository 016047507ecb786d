//! The tuning's layers and blend space, played: [`LayerPlay`] keeps the core's
//! [`anim::LayerStack`] and [`anim::BlendSpacePlayer`] built from the specs the tuning stores
//! (rebuilt only when they change), puts the blend space's pose in place of the clip's when it
//! is active, applies the layers over whatever the base shows, and gives the masks as per-joint
//! heat. The viewer's frame calls it; nothing here knows egui.

use anim::{BlendSpacePlayer, LayerStack, Model, PhaseSync, SampleSettings, SoaPose};

use crate::stage::layers::{BlendSpaceTuning, LayerSpec};
use crate::stage::tuning::ClipExtras;
use crate::transitions::Rig;

/// Longest step (seconds) the blend space advances per frame: a pause or a jump of the clock
/// does not spin it.
const MAX_STEP_SECS: f32 = 0.1;

/// Layers and a blend space built from the tuning, with what the viewer reads back.
#[derive(Debug, Clone, Default)]
pub struct LayerPlay {
    /// The specs the stack was built from.
    layer_specs: Vec<LayerSpec>,
    stack: Option<LayerStack>,
    /// The blend space the player was built from (parameter and activity aside).
    space_spec: Option<BlendSpaceTuning>,
    player: Option<BlendSpacePlayer>,
    /// Why a layer or the blend space could not be built.
    error: Option<String>,
    last_time_secs: Option<f32>,
    /// Paint the masks (times their weights) on the mesh as heat.
    pub show_mask_heat: bool,
    /// The layer (index into the tuning's layers) whose mask the joint tree shows and edits.
    pub mask_in_tree: Option<usize>,
}

impl LayerPlay {
    /// Nothing built.
    pub fn new() -> Self {
        Self::default()
    }

    /// Rebuild what changed in `extras` (layers, blend space clips or sync); the parameter is
    /// set every call. Allocates only when something was rebuilt.
    pub fn sync(&mut self, model: &Model, settings: &SampleSettings, extras: &ClipExtras) {
        if extras.layers != self.layer_specs {
            self.layer_specs.clone_from(&extras.layers);
            self.error = None;
            self.stack = None;
            if !self.layer_specs.is_empty() {
                let descs: Result<Vec<_>, String> = self
                    .layer_specs
                    .iter()
                    .map(|s| s.resolve(model).map_err(|e| format!("layer {}: {e}", s.to_arg())))
                    .collect();
                match descs.and_then(|d| LayerStack::new(model, settings, d).map_err(|e| e.to_string())) {
                    Ok(stack) => self.stack = Some(stack),
                    Err(e) => self.error = Some(e),
                }
            }
        }
        let same_space = match (&self.space_spec, &extras.blend_space) {
            (Some(a), Some(b)) => a.space == b.space && a.phase_sync == b.phase_sync,
            (None, None) => true,
            _ => false,
        };
        if !same_space {
            self.space_spec.clone_from(&extras.blend_space);
            self.player = None;
            if let Some(tuning) = &extras.blend_space {
                match tuning.space.resolve(model) {
                    Ok(space) => {
                        let rig = Rig::new(model);
                        let contacts: Vec<_> =
                            space.points().iter().map(|p| rig.phase_markers(model, p.clip)).collect();
                        let sync = if tuning.phase_sync { PhaseSync::Phase } else { PhaseSync::None };
                        self.player = BlendSpacePlayer::new(model, space, sync, &contacts).ok();
                    }
                    Err(e) => self.error = Some(format!("blend space: {e}")),
                }
            }
        }
        if let (Some(player), Some(tuning)) = (&mut self.player, &extras.blend_space) {
            player.set_parameter(glam::Vec2::from(tuning.at));
        }
    }

    /// When the blend space is active: advance it by the clock's step since the last call
    /// (`time_secs` is the playback clock) and write its pose into `pose`. False (and `pose`
    /// untouched) otherwise. Allocates nothing.
    pub fn base(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        extras: &ClipExtras,
        time_secs: f32,
        pose: &mut SoaPose,
    ) -> bool {
        let active = extras.blend_space.as_ref().is_some_and(|b| b.active);
        let Some(player) = self.player.as_mut().filter(|_| active) else {
            self.last_time_secs = None;
            return false;
        };
        let step = self.last_time_secs.map_or(0.0, |last| time_secs - last);
        self.last_time_secs = Some(time_secs);
        if step > 0.0 {
            player.advance(step.min(MAX_STEP_SECS));
        }
        player.evaluate(model, settings, pose);
        true
    }

    /// A transition shows instead (the fader plays its own copy of the blend space, from or to
    /// it): the blend space's clock here holds until [`Self::base`] is called again.
    pub fn suspend_base(&mut self) {
        self.last_time_secs = None;
    }

    /// A transition to the blend space just ended: continue from the time of the fader's copy
    /// (`from`), so the hand-over shows no jump. Allocates nothing.
    pub fn take_time_from(&mut self, from: &BlendSpacePlayer) {
        if let Some(player) = &mut self.player {
            player.copy_time_from(from);
        }
    }

    /// Apply the layers over `pose` (the base at `time_secs`). Allocates nothing.
    pub fn apply_layers(&mut self, model: &Model, settings: &SampleSettings, time_secs: f32, pose: &mut SoaPose) {
        if let Some(stack) = &mut self.stack {
            stack.apply(model, settings, time_secs, pose);
        }
    }

    /// Advance the layers' weight ramps by `dt_secs`.
    pub fn advance(&mut self, dt_secs: f32) {
        if let Some(stack) = &mut self.stack {
            stack.advance(dt_secs);
        }
    }

    /// Restart the layers' ramps (a layer just added or changed ramps in again).
    pub fn restart_ramps(&mut self) {
        if let Some(stack) = &mut self.stack {
            stack.restart_ramps();
        }
    }

    /// The masks times their weights this frame, the largest over the layers, per node, into
    /// `heat` (cleared first; left empty without layers).
    pub fn mask_heat(&self, heat: &mut Vec<f32>) {
        heat.clear();
        let Some(stack) = &self.stack else { return };
        for layer in 0..stack.len() {
            let weights = stack.node_weights(layer).unwrap_or(&[]);
            if heat.len() < weights.len() {
                heat.resize(weights.len(), 0.0);
            }
            for (h, &w) in heat.iter_mut().zip(weights) {
                *h = h.max(w);
            }
        }
    }

    /// Layer `index`'s weight now (its weight times its ramp).
    pub fn layer_weight(&self, index: usize) -> f32 {
        self.stack.as_ref().map_or(0.0, |s| s.effective_weight(index))
    }

    /// The blend space's player, when one is built.
    pub fn player(&self) -> Option<&BlendSpacePlayer> {
        self.player.as_ref()
    }

    /// Why a layer or the blend space could not be built.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}
