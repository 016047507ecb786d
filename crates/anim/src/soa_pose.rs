//! Poses as structure-of-arrays blocks of eight nodes: what the fast per-frame pipeline
//! ([`crate::Clip::sample_soa`], [`blend_soa_poses`], [`crate::Hierarchy::local_to_model_soa`])
//! reads and writes without transposing.

use glam::{Quat, Vec3};

use crate::interp::ScaleSpace;
use crate::model::Model;
use crate::pose::Pose;
use crate::simd8::{F8, Isa, Plain, V, acos_factor, sinc_quarter_turn};

/// Local translation, rotation and scale of eight nodes, one [`F8`] per component: node
/// `8·b + lane` of a [`SoaPose`] is lane `lane` of block `b`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct SoaTransforms {
    /// `x`, `y`, `z` of the translations.
    pub translation: [F8; 3],
    /// `x`, `y`, `z`, `w` of the rotations (unit quaternions).
    pub rotation: [F8; 4],
    /// `x`, `y`, `z` of the scales.
    pub scale: [F8; 3],
}

const _: () = assert!(size_of::<SoaTransforms>() == size_of::<[F8; 10]>());

impl SoaTransforms {
    /// The ten planes in order: translation `x y z`, rotation `x y z w`, scale `x y z`.
    #[inline(always)]
    pub(crate) fn planes_mut(&mut self) -> &mut [F8; 10] {
        // SAFETY: `SoaTransforms` is `#[repr(C)]` of three arrays of `F8` (3 + 4 + 3) with no
        // padding (the size is checked above) and the same alignment as `F8`; every bit pattern
        // is a valid `F8`.
        unsafe { &mut *std::ptr::from_mut(self).cast::<[F8; 10]>() }
    }

    /// Eight identity transforms (also what padding lanes past the last node hold).
    pub const IDENTITY: Self =
        Self { translation: [F8::ZERO; 3], rotation: [F8::ZERO, F8::ZERO, F8::ZERO, F8::ONE], scale: [F8::ONE; 3] };
}

/// A pose (local transforms of every node, plus morph weights) in blocks of eight nodes.
///
/// Same content as [`Pose`], laid out for SIMD: sampling, blending and the local→model pass
/// work on eight nodes per instruction with no transposes. Lanes past the last node hold the
/// identity.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SoaPose {
    blocks: Vec<SoaTransforms>,
    len: usize,
    /// Morph weights of all nodes, each node's at its `weights_offset` (as in [`Pose`]).
    pub weights: Vec<f32>,
}

impl SoaPose {
    /// The model's rest pose.
    pub fn rest(model: &Model) -> Self {
        Self::from_pose(&Pose::rest(model))
    }

    /// The same pose, in blocks.
    pub fn from_pose(pose: &Pose) -> Self {
        let len = pose.len();
        let mut soa =
            Self { blocks: vec![SoaTransforms::IDENTITY; len.div_ceil(8)], len, weights: pose.weights.clone() };
        soa.set_from_pose(pose);
        soa
    }

    /// Overwrite with `pose` (same node and weight counts), allocating nothing.
    pub fn set_from_pose(&mut self, pose: &Pose) {
        for node in 0..self.len.min(pose.len()) {
            self.set_translation(node, pose.translations[node]);
            self.set_rotation(node, pose.rotations[node]);
            self.set_scale(node, pose.scales[node]);
        }
        let n = self.weights.len().min(pose.weights.len());
        self.weights[..n].copy_from_slice(&pose.weights[..n]);
    }

    /// Write this pose into `pose` (same node and weight counts), allocating nothing.
    pub fn write_pose(&self, pose: &mut Pose) {
        for node in 0..self.len.min(pose.len()) {
            pose.translations[node] = self.translation(node);
            pose.rotations[node] = self.rotation(node);
            pose.scales[node] = self.scale(node);
        }
        let n = self.weights.len().min(pose.weights.len());
        pose.weights[..n].copy_from_slice(&self.weights[..n]);
    }

    /// Overwrite with another pose of the same shape, allocating nothing.
    pub fn copy_from(&mut self, other: &Self) {
        self.blocks.copy_from_slice(&other.blocks);
        self.weights.copy_from_slice(&other.weights);
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a pose of no nodes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The blocks of eight nodes (the last one padded with identities).
    pub fn blocks(&self) -> &[SoaTransforms] {
        &self.blocks
    }

    /// The blocks, mutable. Keep padding lanes finite (the identity is what they start with).
    pub fn blocks_mut(&mut self) -> &mut [SoaTransforms] {
        &mut self.blocks
    }

    /// Translation of `node` (panics when out of range, like slice indexing).
    pub fn translation(&self, node: usize) -> Vec3 {
        let (b, l) = self.slot(node);
        let t = &self.blocks[b].translation;
        Vec3::new(t[0].0[l], t[1].0[l], t[2].0[l])
    }

    /// Rotation of `node`.
    pub fn rotation(&self, node: usize) -> Quat {
        let (b, l) = self.slot(node);
        let r = &self.blocks[b].rotation;
        Quat::from_xyzw(r[0].0[l], r[1].0[l], r[2].0[l], r[3].0[l])
    }

    /// Scale of `node`.
    pub fn scale(&self, node: usize) -> Vec3 {
        let (b, l) = self.slot(node);
        let s = &self.blocks[b].scale;
        Vec3::new(s[0].0[l], s[1].0[l], s[2].0[l])
    }

    /// Set the translation of `node`.
    pub fn set_translation(&mut self, node: usize, value: Vec3) {
        let (b, l) = self.slot(node);
        for (plane, v) in self.blocks[b].translation.iter_mut().zip(value.to_array()) {
            plane.0[l] = v;
        }
    }

    /// Set the rotation of `node`.
    pub fn set_rotation(&mut self, node: usize, value: Quat) {
        let (b, l) = self.slot(node);
        for (plane, v) in self.blocks[b].rotation.iter_mut().zip(value.to_array()) {
            plane.0[l] = v;
        }
    }

    /// Set the scale of `node`.
    pub fn set_scale(&mut self, node: usize, value: Vec3) {
        let (b, l) = self.slot(node);
        for (plane, v) in self.blocks[b].scale.iter_mut().zip(value.to_array()) {
            plane.0[l] = v;
        }
    }

    #[inline]
    fn slot(&self, node: usize) -> (usize, usize) {
        assert!(node < self.len, "node {node} out of range for a pose of {} nodes", self.len);
        (node / 8, node % 8)
    }
}

/// `out = blend(a, b, weight)` on block poses, as [`crate::blend_poses`] does: translations and
/// morph weights lerped, rotations slerped along the shortest path, scales in `scale_space`.
/// `weight = 0` gives `a`, `1` gives `b`. All three poses must have the same shape. Eight nodes
/// per step; allocates nothing.
///
/// The slerp is `a·(1−w)·k·sinc((1−w)Ω) ± b·w·k·sinc(wΩ)` with `k = Ω / sin Ω` computed as
/// `P(d)/√(1+d)` from the arc-cosine polynomial `Ω = √(1−d)·P(d)`, `d = |a·b|`: no division,
/// no special case for nearly equal rotations, and within 1e-6 of the exact slerp (tested).
pub fn blend_soa_poses(a: &SoaPose, b: &SoaPose, weight: f32, scale_space: ScaleSpace, out: &mut SoaPose) {
    let w = if weight > 0.0 { weight.min(1.0) } else { 0.0 };
    // The ends exactly (the polynomials are within 1e-7 there, not bit-exact).
    if w == 0.0 || w == 1.0 {
        out.copy_from(if w == 0.0 { a } else { b });
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::simd8::fma_available() {
        // SAFETY: the CPU runs AVX2 and FMA (checked just above).
        unsafe { blend_avx2_fma(a, b, w, scale_space, out) };
        return;
    }
    blend_with::<Plain>(a, b, w, scale_space, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn blend_avx2_fma(a: &SoaPose, b: &SoaPose, w: f32, scale_space: ScaleSpace, out: &mut SoaPose) {
    blend_with::<crate::simd8::Avx2Fma>(a, b, w, scale_space, out);
}

/// `acc = blend(acc, b, weight)` in place on block poses (the accumulation step of a layer
/// stack), as [`blend_soa_poses`] computes it.
pub fn blend_soa_into(acc: &mut SoaPose, b: &SoaPose, weight: f32, scale_space: ScaleSpace) {
    let w = if weight > 0.0 { weight.min(1.0) } else { 0.0 };
    if w == 0.0 {
        return;
    }
    if w == 1.0 {
        acc.copy_from(b);
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::simd8::fma_available() {
        // SAFETY: the CPU runs AVX2 and FMA (checked just above).
        unsafe { blend_into_avx2_fma(acc, b, w, scale_space) };
        return;
    }
    blend_into_with::<Plain>(acc, b, w, scale_space);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn blend_into_avx2_fma(acc: &mut SoaPose, b: &SoaPose, w: f32, scale_space: ScaleSpace) {
    blend_into_with::<crate::simd8::Avx2Fma>(acc, b, w, scale_space);
}

#[inline(always)]
pub(crate) fn blend_with<I: Isa>(a: &SoaPose, b: &SoaPose, w: f32, scale_space: ScaleSpace, out: &mut SoaPose) {
    for ((o, x), y) in out.blocks.iter_mut().zip(&a.blocks).zip(&b.blocks) {
        blend_block::<I>(x, y, w, scale_space, o);
    }
    let keep = 1.0 - w;
    for ((o, &x), &y) in out.weights.iter_mut().zip(&a.weights).zip(&b.weights) {
        *o = x * keep + y * w;
    }
}

#[inline(always)]
fn blend_into_with<I: Isa>(acc: &mut SoaPose, b: &SoaPose, w: f32, scale_space: ScaleSpace) {
    for (o, y) in acc.blocks.iter_mut().zip(&b.blocks) {
        let x = *o;
        blend_block::<I>(&x, y, w, scale_space, o);
    }
    let keep = 1.0 - w;
    for (o, &y) in acc.weights.iter_mut().zip(&b.weights) {
        *o = *o * keep + y * w;
    }
}

/// One block of [`blend_soa_poses`].
#[inline(always)]
fn blend_block<I: Isa>(x: &SoaTransforms, y: &SoaTransforms, w: f32, scale_space: ScaleSpace, o: &mut SoaTransforms) {
    let (keep, take) = (V::<I>::splat(1.0 - w), V::<I>::splat(w));
    for c in 0..3 {
        o.translation[c] = lerp_plane(&x.translation[c], &y.translation[c], keep, take);
    }
    o.rotation = slerp_block::<I>(&x.rotation, &y.rotation, keep, take);
    match scale_space {
        ScaleSpace::Linear => {
            for c in 0..3 {
                o.scale[c] = lerp_plane(&x.scale[c], &y.scale[c], keep, take);
            }
        }
        ScaleSpace::Log => {
            for c in 0..3 {
                for lane in 0..8 {
                    let (p, q) = (x.scale[c].0[lane], y.scale[c].0[lane]);
                    o.scale[c].0[lane] = crate::interp::log_lerp_vec3(Vec3::splat(p), Vec3::splat(q), w).x;
                }
            }
        }
    }
}

/// `x·keep + y·take` on one plane.
#[inline(always)]
fn lerp_plane<I: Isa>(x: &F8, y: &F8, keep: V<I>, take: V<I>) -> F8 {
    V::<I>::load(y).madd(take, V::load(x) * keep).store()
}

/// Shortest-path slerp of eight rotation pairs at weights `keep = 1 − w`, `take = w`.
#[inline(always)]
pub(crate) fn slerp_block<I: Isa>(a: &[F8; 4], b: &[F8; 4], keep: V<I>, take: V<I>) -> [F8; 4] {
    let (a, b) = (
        [V::<I>::load(&a[0]), V::load(&a[1]), V::load(&a[2]), V::load(&a[3])],
        [V::<I>::load(&b[0]), V::load(&b[1]), V::load(&b[2]), V::load(&b[3])],
    );
    let signed = a[3].madd(b[3], a[2].madd(b[2], a[1].madd(b[1], a[0] * b[0])));
    let one = V::splat(1.0);
    let d = signed.abs().min(one);
    let p = acos_factor(d);
    let one_minus_d = (one - d).max(V::splat(1e-30));
    // Ω = √(1−d)·P(d), k = Ω / sin Ω = P(d) / √(1+d).
    let omega = one_minus_d * one_minus_d.rsqrt() * p;
    let k = p * (one + d).rsqrt();
    let wa = keep * k * sinc_quarter_turn(keep * omega);
    let wb = (take * k * sinc_quarter_turn(take * omega)).flip_sign_by(signed);
    let mut out = [F8::ZERO; 4];
    for c in 0..4 {
        out[c] = b[c].madd(wb, a[c] * wa).store();
    }
    out
}

/// Shortest-path slerp in f64 with the library sine and arc cosine: the reference the
/// polynomial slerps are tested against.
#[cfg(test)]
pub(crate) fn exact_slerp(a: [f32; 4], b: [f32; 4], w: f64) -> [f64; 4] {
    let (a, mut b) = (a.map(f64::from), b.map(f64::from));
    let mut d: f64 = (0..4).map(|c| a[c] * b[c]).sum();
    if d < 0.0 {
        b = b.map(|x| -x);
        d = -d;
    }
    let omega = d.min(1.0).acos();
    let (wa, wb) = if omega < 1e-9 {
        (1.0 - w, w)
    } else {
        (((1.0 - w) * omega).sin() / omega.sin(), (w * omega).sin() / omega.sin())
    };
    [0, 1, 2, 3].map(|c| a[c] * wa + b[c] * wb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::slerp;

    fn quat(seed: u32) -> Quat {
        let f = seed as f32;
        Quat::from_xyzw((f * 0.71).sin(), (f * 1.37).cos(), (f * 0.23).sin() * 0.5, (f * 2.9).cos()).normalize()
    }

    #[test]
    fn block_slerp_matches_the_scalar_slerp_for_every_isa() {
        let mut worst = 0.0f32;
        let mut worst_exact = 0.0f64;
        let mut check = |blend: &BlockSlerp| {
            for round in 0..400u32 {
                let a: Vec<Quat> = (0..8).map(|l| quat(round * 16 + l)).collect();
                // Mix far, near, identical and opposite-hemisphere partners.
                let b: Vec<Quat> = (0..8)
                    .map(|l| match l % 4 {
                        0 => quat(round * 16 + 8 + l),
                        1 => (a[l as usize] * Quat::from_rotation_y(1e-4 * round as f32)).normalize(),
                        2 => a[l as usize],
                        _ => -quat(round * 16 + 8 + l),
                    })
                    .collect();
                let planes =
                    |q: &[Quat]| -> [F8; 4] { [0, 1, 2, 3].map(|c| F8(std::array::from_fn(|l| q[l].to_array()[c]))) };
                let w = (round % 21) as f32 / 20.0;
                let got = blend(&planes(&a), &planes(&b), w);
                for l in 0..8 {
                    let expected = slerp(a[l], b[l], w);
                    let q = Quat::from_xyzw(got[0].0[l], got[1].0[l], got[2].0[l], got[3].0[l]);
                    worst = worst.max((glam::Vec4::from(q) - glam::Vec4::from(expected)).abs().max_element());
                    // And against slerp evaluated in f64 with the library sine and arc cosine.
                    let exact = super::exact_slerp(a[l].to_array(), b[l].to_array(), f64::from(w));
                    let error = (0..4).map(|c| (f64::from(q.to_array()[c]) - exact[c]).abs()).fold(0.0, f64::max);
                    worst_exact = worst_exact.max(error);
                }
            }
        };
        check(&|a, b, w| slerp_block::<Plain>(a, b, V::splat(1.0 - w), V::splat(w)));
        #[cfg(target_arch = "x86_64")]
        if crate::simd8::fma_available() {
            check(&|a, b, w| {
                // SAFETY: AVX2 and FMA are present (checked above).
                unsafe { slerp_block_avx2(a, b, w) }
            });
        }
        assert!(worst < 1e-6, "block slerp deviates from slerp by {worst:e}");
        assert!(worst_exact < 1e-6, "block slerp deviates from exact (f64) slerp by {worst_exact:e}");
    }

    /// A block slerp under test: `(a, b, weight)`.
    type BlockSlerp = dyn Fn(&[F8; 4], &[F8; 4], f32) -> [F8; 4];

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn slerp_block_avx2(a: &[F8; 4], b: &[F8; 4], w: f32) -> [F8; 4] {
        slerp_block::<crate::simd8::Avx2Fma>(a, b, V::splat(1.0 - w), V::splat(w))
    }

    #[test]
    fn round_trip_through_pose_is_exact_and_padding_is_identity() {
        let mut pose = Pose::default();
        for i in 0..11 {
            let f = i as f32;
            pose.translations.push(Vec3::new(f, -f, 2.0 * f));
            pose.rotations.push(quat(i));
            pose.scales.push(Vec3::splat(1.0 + f));
        }
        pose.weights = vec![0.25, 0.5];
        let soa = SoaPose::from_pose(&pose);
        assert_eq!(soa.len(), 11);
        assert_eq!(soa.blocks().len(), 2);
        let mut back = pose.clone();
        back.translations.fill(Vec3::ZERO);
        back.weights.fill(0.0);
        soa.write_pose(&mut back);
        assert_eq!(back, pose);
        assert_eq!(soa.blocks()[1].rotation[3].0[7], 1.0);
        assert_eq!(soa.blocks()[1].scale[0].0[5], 1.0);
    }
}
