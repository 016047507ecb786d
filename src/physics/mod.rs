//! Ragdoll physics on Rapier (no GPU, UI or window crate here).
//!
//! * [`RagdollSpec`]: a ragdoll from any skin — one capsule body per significant bone, radius
//!   from the skinned vertices, spherical joints with per-axis limits ([`JointLimits`]).
//! * [`Ragdoll`]: the Rapier world of one handoff, initialised from the animated pose and
//!   velocity, stepped at a fixed 120 Hz with an accumulator; deterministic.
//! * [`RagdollController`]: animation → physics (a ramped blend, [`anim::ragdoll::RagdollRamp`])
//!   and back ("get up"); a ragdoll that blows up (NaN, absurd speed or distance) is dropped for
//!   the animation and reported as a [`RagdollFault`].

pub mod controller;
pub mod limits;
pub mod sim;
pub mod spec;

pub use controller::{FaultKind, Phase, RagdollController, RagdollFault};
pub use limits::{BoneKind, JointLimits};
pub use sim::{FirstStep, Ragdoll, RagdollSettings};
pub use spec::{BodySpec, RagdollError, RagdollSpec};
