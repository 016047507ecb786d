//! Dead blending's extrapolation: the shown pose frozen with its velocity, extrapolated with the
//! velocity decaying by a half-life (Holden's dead blending), each joint's velocity clamped to
//! the fastest that joint moves in any clip and its travel softly saturated at the furthest any
//! clip moves it.

use crate::interp::decayed_travel;
use crate::pose::{PoseDelta, SoaPose};

use super::clips::MotionLimits;

/// Most a dead blend extrapolates a joint's rotation (radians): far enough to carry a swing
/// through, well short of turning it half-way round, where a blend's shortest path flips.
const MAX_EXTRAPOLATED_TURN: f32 = std::f32::consts::FRAC_PI_4;

/// The frozen pose under the layer stack and how it moves on.
#[derive(Debug, Clone)]
pub(crate) struct DeadBlend {
    pose: SoaPose,
    velocity: PoseDelta,
    elapsed_secs: f32,
    half_life_secs: f32,
    active: bool,
    /// Per node: the fastest rates any clip shows (the vectors' lengths).
    rate_limits: PoseDelta,
    /// Per node: how far it is extrapolated at most (the vectors' lengths): the furthest any clip
    /// moves it from the clip's first pose, the rotation at most [`MAX_EXTRAPOLATED_TURN`].
    bounds: PoseDelta,
}

/// The snapshot, extrapolated from its velocity: what [`DeadBlend::extrapolation`] hands the
/// cross-fade to blend the layers over.
#[derive(Clone, Copy)]
pub(crate) struct Extrapolation<'a> {
    pose: &'a SoaPose,
    velocity: &'a PoseDelta,
    /// Per node, the furthest it is extrapolated (softly saturated).
    bound: &'a PoseDelta,
    elapsed_secs: f32,
    half_life_secs: f32,
}

impl Extrapolation<'_> {
    /// The extrapolated pose `shift_secs` from now into `out`.
    pub fn write(&self, shift_secs: f32, out: &mut SoaPose) {
        out.copy_from(self.pose);
        let travel = decayed_travel(self.elapsed_secs + shift_secs, self.half_life_secs);
        self.velocity.apply_saturated(out, travel, self.bound);
    }
}

impl DeadBlend {
    /// None running, bounded by what the clips do (`limits`), shaped like `rest`.
    pub fn new(rest: &SoaPose, limits: MotionLimits, default_half_life_secs: f32) -> Self {
        let MotionLimits { rates, mut reach } = limits;
        for r in &mut reach.rotation {
            *r = r.clamp_length_max(MAX_EXTRAPOLATED_TURN);
        }
        Self {
            pose: rest.clone(),
            velocity: PoseDelta::zeros_like(rest),
            elapsed_secs: 0.0,
            half_life_secs: default_half_life_secs,
            active: false,
            rate_limits: rates,
            bounds: reach,
        }
    }

    /// True while a frozen pose lies under the layers.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Let the frozen pose go.
    pub fn stop(&mut self) {
        self.active = false;
    }

    /// Advance the extrapolation by `dt_secs`.
    pub fn advance(&mut self, dt_secs: f32) {
        self.elapsed_secs += dt_secs;
    }

    /// Freeze `shown` moving at `velocity`, which is first clamped per joint to the fastest that
    /// joint moves in any clip (so no joint travels further than that speed × half-life / ln 2),
    /// extrapolated with the velocity decaying by `half_life_secs`.
    pub fn freeze(&mut self, shown: &SoaPose, velocity: &mut PoseDelta, half_life_secs: f32) {
        velocity.clamp_lengths(&self.rate_limits);
        self.pose.copy_from(shown);
        self.velocity.copy_from(velocity);
        self.elapsed_secs = 0.0;
        self.half_life_secs = if half_life_secs.is_finite() { half_life_secs.max(0.0) } else { 0.0 };
        self.active = true;
    }

    /// The running extrapolation, if any.
    pub fn extrapolation(&self) -> Option<Extrapolation<'_>> {
        self.active.then_some(Extrapolation {
            pose: &self.pose,
            velocity: &self.velocity,
            bound: &self.bounds,
            elapsed_secs: self.elapsed_secs,
            half_life_secs: self.half_life_secs,
        })
    }
}
