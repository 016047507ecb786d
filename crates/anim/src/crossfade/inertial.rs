//! Inertialization's offsets: at each trigger, the offset between the shown pose and the new
//! target's first pose (and between their velocities and accelerations), decayed to zero over
//! the duration by an [`OffsetDecay`] curve; rotations composed through the exponential map's
//! Jacobian. Each trigger adds one offset, so those of earlier triggers keep decaying on their
//! own clocks: under any rate of re-triggering every offset is gone by its end, and the output
//! never drifts.

use glam::{Quat, Vec3};

use crate::ids::NodeId;
use crate::interp::OffsetDecay;
use crate::pose::{PoseDelta, SoaPose, rotation_vector};

use super::root::RootState;
use super::{MAX_OFFSETS, rates_at_start};

/// One offset: its value, velocity and acceleration when it started, and its decay.
#[derive(Debug, Clone)]
struct Offset {
    x: PoseDelta,
    v: PoseDelta,
    a: PoseDelta,
    elapsed_secs: f32,
    duration_secs: f32,
    decay: OffsetDecay,
}

impl Offset {
    /// `out += factor ·` this offset's `order`-th time derivative now (0: value).
    fn add_into(&self, out: &mut PoseDelta, order: usize, factor: f32) {
        let [p, q, r] = self.decay.basis_derivatives(self.elapsed_secs, self.duration_secs)[order.min(2)];
        out.add_scaled(&self.x, p * factor);
        out.add_scaled(&self.v, q * factor);
        out.add_scaled(&self.a, r * factor);
    }
}

/// What a new offset is made from: the pose it replaces (the shown pose without the offsets)
/// with its motion, and the target's first three poses `h` apart.
pub(crate) struct OffsetInput<'a> {
    /// The pose without the offsets now.
    pub base: &'a SoaPose,
    /// Its velocity and acceleration now.
    pub base_rates: [&'a PoseDelta; 2],
    /// The target now, `h` and `2h` on.
    pub target: [&'a SoaPose; 3],
    /// The time step of those poses.
    pub h: f32,
    /// How long the offset decays.
    pub duration_secs: f32,
    /// Its decay curve.
    pub decay: OffsetDecay,
    /// Root motion, whose root's horizontal motion is blended by velocity (no offset).
    pub root: Option<&'a RootState>,
}

/// The live offsets (oldest first) and the scratch of their sums.
#[derive(Debug, Clone)]
pub(crate) struct Inertialization {
    offsets: Vec<Offset>,
    count: usize,
    /// The offsets' sum now, its velocity and its acceleration.
    now: PoseDelta,
    rate: PoseDelta,
    rate2: PoseDelta,
}

impl Inertialization {
    /// No offsets, room for [`MAX_OFFSETS`] shaped like `zeros`.
    pub fn new(zeros: &PoseDelta) -> Self {
        let offset = Offset {
            x: zeros.clone(),
            v: zeros.clone(),
            a: zeros.clone(),
            elapsed_secs: 0.0,
            duration_secs: 0.0,
            decay: OffsetDecay::Quintic,
        };
        Self {
            offsets: vec![offset; MAX_OFFSETS],
            count: 0,
            now: zeros.clone(),
            rate: zeros.clone(),
            rate2: zeros.clone(),
        }
    }

    /// True while an offset decays.
    pub fn is_active(&self) -> bool {
        self.count > 0
    }

    /// Drop every offset.
    pub fn clear(&mut self) {
        self.count = 0;
    }

    /// Advance every offset by `dt_secs`, dropping those that have ended.
    pub fn advance(&mut self, dt_secs: f32) {
        let mut i = 0;
        while i < self.count {
            let offset = &mut self.offsets[i];
            offset.elapsed_secs += dt_secs;
            if offset.elapsed_secs >= offset.duration_secs {
                self.offsets[i..self.count].rotate_left(1);
                self.count -= 1;
            } else {
                i += 1;
            }
        }
    }

    /// How much of the pose before the newest trigger is still in the output, in `[0, 1]`: the
    /// decay curve's value basis (1 at the trigger, 0 at the end; 0 when none runs).
    pub fn weight(&self) -> f32 {
        let Some(newest) = self.count.checked_sub(1).and_then(|i| self.offsets.get(i)) else { return 0.0 };
        newest.decay.basis(newest.elapsed_secs, newest.duration_secs).0.clamp(0.0, 1.0)
    }

    /// Add the offsets' sum to `out`. Allocates nothing.
    pub fn apply(&mut self, out: &mut SoaPose) {
        if self.count == 0 {
            return;
        }
        self.now.clear();
        for offset in &self.offsets[..self.count] {
            offset.add_into(&mut self.now, 0, 1.0);
        }
        self.now.apply_to(out, 1.0);
    }

    /// The offsets' sum now, and its velocity and acceleration, into the scratch.
    fn sum(&mut self) {
        for (order, out) in [&mut self.now, &mut self.rate, &mut self.rate2].into_iter().enumerate() {
            out.clear();
            for offset in &self.offsets[..self.count] {
                offset.add_into(out, order, 1.0);
            }
        }
    }

    /// `velocity` (of the pose without the offsets) turned into the shown pose's: the offsets'
    /// velocity added for translations, scales and weights, composed for rotations (the output
    /// is `exp(X)·base`, so its angular velocity is `J(X)·Ẋ + exp(X)·ω`).
    pub fn shown_velocity(&mut self, velocity: &mut PoseDelta) {
        if self.count == 0 {
            return;
        }
        self.sum();
        for (o, &d) in velocity.translation.iter_mut().zip(&self.rate.translation) {
            *o += d;
        }
        for (o, &d) in velocity.scale.iter_mut().zip(&self.rate.scale) {
            *o += d;
        }
        for (o, &d) in velocity.weights.iter_mut().zip(&self.rate.weights) {
            *o += d;
        }
        for ((o, &x), &d) in velocity.rotation.iter_mut().zip(&self.now.rotation).zip(&self.rate.rotation) {
            *o = jacobian(x, d) + Quat::from_scaled_axis(x) * *o;
        }
    }

    /// Make room for one more offset (merging the two oldest when full) and sum the live ones.
    pub fn make_room(&mut self) {
        if self.count == MAX_OFFSETS {
            self.merge_oldest();
        }
        self.sum();
    }

    /// Merge the two oldest offsets into one that starts now with their summed value, velocity
    /// and acceleration and ends when the later of them would have.
    fn merge_oldest(&mut self) {
        let [old, young, ..] = &self.offsets[..] else { return };
        let end = (old.duration_secs - old.elapsed_secs).max(young.duration_secs - young.elapsed_secs);
        let decay = young.decay;
        for (order, out) in [&mut self.now, &mut self.rate, &mut self.rate2].into_iter().enumerate() {
            out.clear();
            old.add_into(out, order, 1.0);
            young.add_into(out, order, 1.0);
        }
        let merged = &mut self.offsets[0];
        merged.x.copy_from(&self.now);
        merged.v.copy_from(&self.rate);
        merged.a.copy_from(&self.rate2);
        merged.elapsed_secs = 0.0;
        merged.duration_secs = end.max(0.0);
        merged.decay = decay;
        self.offsets[1..self.count].rotate_left(1);
        self.count -= 1;
    }

    /// Start a new offset for the change of target in `input` (after [`Self::make_room`]), such
    /// that the output (the target plus every offset) goes on from the shown pose with its
    /// velocity and acceleration. `steps` is scratch.
    pub fn start(&mut self, input: &OffsetInput, [e1, e2]: [&mut PoseDelta; 2]) {
        let slot = &mut self.offsets[self.count];
        rates_at_start(1.0, input.h, input.target, [e1, e2], &mut slot.v, &mut slot.a);
        let [velocity, acceleration] = input.base_rates;
        let [target, ..] = input.target;
        // Translations, scales and weights add: x₀ = base − target; v₀, a₀ = base's − target's.
        slot.x.set_difference(input.base, target, 1.0);
        for (rate, base) in [(&mut slot.v, velocity), (&mut slot.a, acceleration)] {
            for (o, &b) in rate.translation.iter_mut().zip(&base.translation) {
                *o = b - *o;
            }
            for (o, &b) in rate.scale.iter_mut().zip(&base.scale) {
                *o = b - *o;
            }
            for (o, &b) in rate.weights.iter_mut().zip(&base.weights) {
                *o = b - *o;
            }
        }
        // Rotations compose: the output is exp(X)·target with X the offsets' sum, so the new
        // offset makes X = log(shown · target⁻¹) and matches the shown angular velocity and
        // acceleration through the rotation's Jacobian.
        for node in 0..input.base.len() {
            let id = NodeId::from_index(node);
            let (Some(base), Some(target)) = (input.base.get(id), target.get(id)) else { break };
            let at = |d: &PoseDelta| d.rotation.get(node).copied().unwrap_or(Vec3::ZERO);
            let old = [at(&self.now), at(&self.rate), at(&self.rate2)];
            let base_rates = [at(velocity), at(acceleration)];
            let target_rates = [at(&slot.v), at(&slot.a)];
            let [x, v, a] = rotation_offset(old, base.rotation, base_rates, target.rotation, target_rates);
            for (delta, value) in [(&mut slot.x, x), (&mut slot.v, v), (&mut slot.a, a)] {
                if let Some(r) = delta.rotation.get_mut(node) {
                    *r = value;
                }
            }
        }
        slot.elapsed_secs = 0.0;
        slot.duration_secs = input.duration_secs;
        slot.decay = input.decay;
        if let Some(root) = input.root {
            // The root's horizontal motion is blended by velocity, not offset.
            let i = root.node.index();
            for delta in [&mut slot.x, &mut slot.v, &mut slot.a] {
                if let Some(t) = delta.translation.get_mut(i) {
                    *t -= root.horizontal(*t);
                }
            }
        }
        self.count += 1;
    }
}

/// `J(x)·v` with `J` the left Jacobian of the rotation exponential at rotation vector `x`: the
/// angular velocity of `exp(x(t))` when `ẋ = v`.
fn jacobian(x: Vec3, v: Vec3) -> Vec3 {
    let theta = x.length();
    let (a, b) = if theta < 1e-3 {
        (0.5 - theta * theta / 24.0, 1.0 / 6.0 - theta * theta / 120.0)
    } else {
        ((1.0 - theta.cos()) / (theta * theta), (theta - theta.sin()) / (theta * theta * theta))
    };
    let xv = x.cross(v);
    v + a * xv + b * x.cross(xv)
}

/// `J(x)⁻¹·w`: the rate of the rotation vector `x` that turns `exp(x)` at angular velocity `w`.
fn jacobian_inverse(x: Vec3, w: Vec3) -> Vec3 {
    let theta = x.length();
    let c = if theta < 1e-3 {
        1.0 / 12.0 + theta * theta / 720.0
    } else {
        1.0 / (theta * theta) - (1.0 + theta.cos()) / (2.0 * theta * theta.sin())
    };
    let xw = x.cross(w);
    let out = w - 0.5 * xw + c * x.cross(xw);
    if out.is_finite() { out } else { w }
}

/// The new rotation offset of one node at a trigger: value, velocity and acceleration such that
/// `exp(X_old + x)·target` equals the shown rotation `exp(X_old)·base` and moves with its angular
/// velocity and acceleration. `old` is the live offsets' sum `[X, Ẋ, Ẍ]`; `*_rates` are `[ω, α]`
/// (angular velocity and acceleration in the parent's frame).
fn rotation_offset(
    old: [Vec3; 3],
    base: Quat,
    base_rates: [Vec3; 2],
    target: Quat,
    target_rates: [Vec3; 2],
) -> [Vec3; 3] {
    let [old_x, old_v, old_a] = old;
    let old_turn = Quat::from_scaled_axis(old_x);
    let carried = old_turn * base_rates[0];
    let old_spin = jacobian(old_x, old_v);
    let shown_velocity = old_spin + carried;
    let shown_acceleration = jacobian(old_x, old_a) + old_spin.cross(carried) + old_turn * base_rates[1];
    let mut diff = (old_turn * base).normalize() * target.inverse();
    if diff.w < 0.0 {
        diff = -diff;
    }
    let x = rotation_vector(diff);
    let turn = Quat::from_scaled_axis(x);
    let target_velocity = turn * target_rates[0];
    let spin = shown_velocity - target_velocity;
    let v = jacobian_inverse(x, spin);
    let a = jacobian_inverse(x, shown_acceleration - turn * target_rates[1] - spin.cross(target_velocity));
    [x - old_x, v - old_v, a - old_a]
}
