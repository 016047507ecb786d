//! [`RagdollFault`]: a ragdoll that blew up, and how ([`FaultKind`]). Its own module so that the
//! simulation and the controller both use it without importing each other.

use std::fmt;

use super::BodyId;

/// A body farther than this from where it started (metres) means the simulation blew up.
pub const MAX_DISTANCE_M: f32 = 1000.0;

/// A body faster than this (metres per second) means the simulation blew up.
pub const MAX_SPEED_MPS: f32 = 200.0;

/// How a ragdoll body went wrong.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FaultKind {
    /// Its position, rotation or velocity became NaN or infinite.
    NonFinite,
    /// It went farther from where it started than the limit.
    TooFar {
        /// Distance from its joint origin at the handoff, metres.
        distance_m: f32,
        /// The limit, [`MAX_DISTANCE_M`].
        limit_m: f32,
    },
    /// Its linear speed exceeded the limit.
    TooFast {
        /// Speed of its centre of mass, metres per second.
        speed_mps: f32,
        /// The limit, [`MAX_SPEED_MPS`].
        limit_mps: f32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NonFinite => f.write_str("has a NaN or infinite position, rotation or velocity"),
            Self::TooFar { distance_m, limit_m } => {
                write!(f, "is {} m from where it started (limit {limit_m} m)", Amount(distance_m))
            }
            Self::TooFast { speed_mps, limit_mps } => {
                write!(f, "moves at {} m/s (limit {limit_mps} m/s)", Amount(speed_mps))
            }
        }
    }
}

/// A measured amount: one decimal up to 100 000, then scientific notation.
struct Amount(f32);

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.abs() < 1e5 { write!(f, "{:.1}", self.0) } else { write!(f, "{:.3e}", self.0) }
    }
}

/// A ragdoll that blew up: the controller dropped it and showed the animation pose instead that
/// very frame. Read (and clear) it with
/// [`RagdollController::take_fault`](super::RagdollController::take_fault).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "ragdoll {body} (bone \"{bone}\", node {node}) {kind} after {steps} physics steps; the ragdoll was \
     dropped and the animation shown"
)]
pub struct RagdollFault {
    /// The body at fault.
    pub body: BodyId,
    /// Its bone's name.
    pub bone: String,
    /// Its bone's node.
    pub node: anim::NodeId,
    /// What went wrong.
    pub kind: FaultKind,
    /// Physics steps the dropped ragdoll had taken.
    pub steps: u64,
}
