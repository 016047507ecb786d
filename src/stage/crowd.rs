//! Crowd mode on the stage: N copies of the model on a grid, each with its own clip, phase,
//! speed and cross-fades (skinned with GPU instancing), advanced by the stage's clock; the
//! panel that sizes it is `ui::crowd`.

use anim::{InterpolationOverride, Model};

use crate::crowd::{Crowd, MAX_CROWD};

/// Seed of the viewer's crowds (the same crowd every time).
const CROWD_SEED: u64 = 0x5eed;

/// Crowd mode: the crowd (when on) and its panel state.
#[derive(Debug)]
pub struct CrowdPanel {
    /// Instances used when crowd mode is turned on or resized.
    pub count: usize,
    /// The crowd, when crowd mode is on (the 3D view then shows it instead of the character).
    pub crowd: Option<Crowd>,
    /// CPU milliseconds of the last crowd update (smoothed).
    pub update_ms: f32,
}

impl Default for CrowdPanel {
    fn default() -> Self {
        Self { count: 100, crowd: None, update_ms: 0.0 }
    }
}

impl CrowdPanel {
    /// Turn crowd mode on with `count` instances of `model` (capped at [`MAX_CROWD`]), or off
    /// with `None`. Returns true when it changed (the camera should frame the result).
    pub fn set(&mut self, model: &Model, count: Option<usize>, mode: InterpolationOverride) -> bool {
        let was = self.crowd.as_ref().map(Crowd::len);
        self.crowd = count.filter(|&n| n > 0).map(|n| {
            self.count = n.min(MAX_CROWD);
            let mut crowd = Crowd::new(model, self.count, CROWD_SEED);
            crowd.settings.mode = mode;
            crowd.update(model, 0.0);
            crowd
        });
        was != self.crowd.as_ref().map(Crowd::len)
    }

    /// The same crowd size for a newly opened model.
    pub fn for_new_model(&self, model: &Model, mode: InterpolationOverride) -> Self {
        let mut panel = Self { count: self.count, crowd: None, update_ms: 0.0 };
        if let Some(count) = self.crowd.as_ref().map(Crowd::len) {
            panel.set(model, Some(count), mode);
        }
        panel
    }

    /// Advance every instance by `clip_dt_secs` under the override `mode`.
    pub fn advance(&mut self, model: &Model, clip_dt_secs: f32, mode: InterpolationOverride) {
        profiling::scope!("crowd_advance");
        let Some(crowd) = &mut self.crowd else { return };
        crowd.settings.mode = mode;
        let start = std::time::Instant::now();
        crowd.update(model, clip_dt_secs);
        let ms = start.elapsed().as_secs_f32() * 1e3;
        self.update_ms = if self.update_ms > 0.0 { self.update_ms * 0.9 + ms * 0.1 } else { ms };
    }
}
