//! [`KindCompare`]: two transition kinds side by side on the same pair and trigger time — the
//! pair's transition replayed in a loop (the source from half a second before the trigger, the
//! transition, a second of the target) once with each kind, the two poses in the split view and
//! their largest joint speed over time. Advanced by the stage's clock; drawn by `ui::kind_compare`.

use anim::{ClipId, CrossFader, Model, SampleSettings, SoaPose, TransitionKind};
use glam::{Affine3A, Vec3};

use crate::stage::tuning::FadeTuning;

/// Seconds of the source played before the trigger in each replay.
const LEAD_SECS: f32 = 0.5;

/// Seconds of the target played after the transition in each replay.
const TAIL_SECS: f32 = 1.0;

/// Two transition kinds on one pair and trigger time, replayed in a loop.
#[derive(Clone)]
pub struct KindCompare {
    /// Shown (in the split view, instead of the interpolation compare).
    pub enabled: bool,
    /// Kind of the left view.
    pub left: TransitionKind,
    /// Kind of the right view.
    pub right: TransitionKind,
    /// Source clip time of the trigger.
    pub at_secs: f32,
    /// The pair and its tuning the replay runs, and its two faders.
    replay: Option<Replay>,
    /// Per frame of the current replay: time from the trigger, the largest joint speed on the
    /// left and on the right (model units per second).
    speeds: Vec<[f32; 3]>,
    previous: [Vec<Vec3>; 2],
    last_dt_secs: f32,
}

/// One replay: the pair, the fade it uses, the clock and the two faders.
#[derive(Clone)]
struct Replay {
    from: ClipId,
    to: ClipId,
    fade: FadeTuning,
    left: TransitionKind,
    right: TransitionKind,
    at_secs: f32,
    clock_secs: f32,
    faders: [CrossFader; 2],
}

impl Default for KindCompare {
    fn default() -> Self {
        Self {
            enabled: false,
            left: TransitionKind::CrossFade,
            right: TransitionKind::Inertialize,
            at_secs: 0.3,
            replay: None,
            speeds: Vec::new(),
            previous: [Vec::new(), Vec::new()],
            last_dt_secs: 0.0,
        }
    }
}

impl std::fmt::Debug for KindCompare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KindCompare")
            .field("enabled", &self.enabled)
            .field("left", &self.left)
            .field("right", &self.right)
            .field("at_secs", &self.at_secs)
            .finish_non_exhaustive()
    }
}

impl KindCompare {
    /// The two poses now, when shown.
    pub fn poses(&self) -> Option<(&SoaPose, &SoaPose)> {
        let replay = self.replay.as_ref().filter(|_| self.enabled)?;
        Some((replay.faders[0].output(), replay.faders[1].output()))
    }

    /// The kinds' names for the two views' labels, when shown.
    pub fn labels(&self) -> Option<[&'static str; 2]> {
        self.poses().map(|_| [self.left.name(), self.right.name()])
    }

    /// Advance the replay of `from → to` (tuned as `fade`, each view with its kind) by
    /// `dt_secs`, restarting it when the pair, its tuning or the kinds change or when it ends.
    pub fn advance(
        &mut self,
        model: &Model,
        settings: &SampleSettings,
        from: ClipId,
        to: ClipId,
        fade: FadeTuning,
        dt_secs: f32,
    ) {
        if !self.enabled || model.clip(from).is_none() || model.clip(to).is_none() {
            self.replay = None;
            return;
        }
        let end = LEAD_SECS + fade.duration_secs.max(0.0) + TAIL_SECS;
        let stale = self.replay.as_ref().is_none_or(|r| {
            (r.from, r.to, r.fade, r.left, r.right, r.at_secs) != (from, to, fade, self.left, self.right, self.at_secs)
                || r.clock_secs >= end
        });
        if stale {
            let start = |_| {
                let mut fader = CrossFader::new(model, from);
                fader.play(from, self.at_secs - LEAD_SECS);
                fader.evaluate(model, settings);
                fader
            };
            self.replay = Some(Replay {
                from,
                to,
                fade,
                left: self.left,
                right: self.right,
                at_secs: self.at_secs,
                clock_secs: 0.0,
                faders: [0, 1].map(start),
            });
            self.speeds.clear();
            self.previous = [Vec::new(), Vec::new()];
        }
        let Some(replay) = &mut self.replay else { return };
        let dt = if dt_secs.is_finite() { dt_secs.clamp(0.0, 0.1) } else { 0.0 };
        let before = replay.clock_secs;
        replay.clock_secs += dt;
        let kinds = [replay.left, replay.right];
        for (fader, kind) in replay.faders.iter_mut().zip(kinds) {
            if before < LEAD_SECS && replay.clock_secs >= LEAD_SECS {
                // The trigger: the same pair, time and tuning, each with its kind.
                let tuned = FadeTuning { kind, ..fade };
                fader.transition(model, settings, to, &tuned.transition(0.0, 0.0));
            }
            fader.advance(dt);
            fader.evaluate(model, settings);
        }
        self.last_dt_secs = dt;
    }

    /// Record this frame's largest joint speed of each view from the frame output's
    /// model-space matrices (left: the shown pose; right: the compare pose).
    pub fn record(&mut self, left: &[Affine3A], right: &[Affine3A]) {
        let Some(replay) = self.replay.as_ref().filter(|_| self.enabled) else { return };
        if self.last_dt_secs <= 0.0 {
            return;
        }
        let mut speed = [0.0f32; 2];
        for (i, world) in [left, right].into_iter().enumerate() {
            let now: Vec<Vec3> = world.iter().map(|w| Vec3::from(w.translation)).collect();
            if self.previous[i].len() == now.len() {
                speed[i] = now.iter().zip(&self.previous[i]).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max)
                    / self.last_dt_secs;
            }
            self.previous[i] = now;
        }
        self.speeds.push([replay.clock_secs - LEAD_SECS, speed[0], speed[1]]);
    }

    /// Recorded speeds of the current replay: (time from the trigger, left, right).
    pub fn speeds(&self) -> &[[f32; 3]] {
        &self.speeds
    }
}
