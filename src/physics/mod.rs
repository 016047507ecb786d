//! Ragdoll physics on Rapier (no GPU, UI or window crate here).
//!
//! * [`RagdollSpec`]: a ragdoll from any skin — one capsule body per significant bone, radius
//!   from the skinned vertices, each body classified anatomically ([`anatomy`]: by the naming
//!   schemes people ship, else by the skeleton's geometry) and jointed to its parent by an
//!   anatomical joint: one-way hinges for knees and elbows, swing-twist joints elsewhere, with
//!   limits set from the rest pose ([`JointLimits`]).
//! * [`Ragdoll`]: the Rapier world of one handoff, simulated in metres whatever the file's units
//!   (the unit comes from the character's size, continuously), initialised from the animated
//!   pose and velocity, stepped at a fixed 120 Hz with an accumulator; optionally powered (joint
//!   motors toward the animation, per-region stiffness and damping), pinned at the pelvis, or
//!   partial (only a region simulated, the rest kinematic on the animation); deterministic.
//! * [`RagdollController`]: animation → physics (a ramped blend, [`anim::ragdoll::RagdollRamp`],
//!   and a motor-strength ramp, "active → limp") and back: a get-up chosen face-up or face-down
//!   from how the body lies, blended through anatomical key poses into the clip aligned to where
//!   and how the body lies ([`getup`]); a ragdoll that blows up (NaN, absurd speed or distance)
//!   is dropped for the animation and reported as a [`RagdollFault`].

pub mod anatomy;
pub mod controller;
pub mod fault;
pub mod getup;
pub mod sim;
pub mod spec;

pub use anatomy::{BoneKind, JointLimits, Region, Side};
pub use controller::{Handoff, Phase, RagdollController};
pub use fault::{FaultKind, MAX_DISTANCE_M, MAX_SPEED_MPS, RagdollFault};
pub use getup::{Facing, GetUpPlan};
pub use sim::{FirstStep, MotorGains, Ragdoll, RagdollSettings};
pub use spec::{BodySpec, KindSource, RagdollError, RagdollSpec};

/// A ragdoll body: an index into [`RagdollSpec::bodies`], typed so that it cannot be confused
/// with a node index (rapier's handle style).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BodyId(u32);

impl BodyId {
    /// The body at `index` of [`RagdollSpec::bodies`].
    ///
    /// # Panics
    /// Never for a spec's bodies (there are far fewer than 2³² of them); an index that does not
    /// fit saturates to an id that names no body.
    pub fn from_index(index: usize) -> Self {
        Self(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The index into [`RagdollSpec::bodies`].
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for BodyId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "body {}", self.0)
    }
}
