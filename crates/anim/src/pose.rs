//! Poses (local transforms per node, structure of arrays) and pose blending.

use glam::{Quat, Vec3};

use crate::interp::{ScaleSpace, lerp_f32, lerp_vec3, log_lerp_vec3, slerp, slerp4};
use crate::model::Model;

/// Local translation, rotation, scale and morph weights for every node of a model, indexed by
/// glTF node index (structure of arrays).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pose {
    /// Local translation per node.
    pub translations: Vec<Vec3>,
    /// Local rotation per node (unit quaternions).
    pub rotations: Vec<Quat>,
    /// Local scale per node.
    pub scales: Vec<Vec3>,
    /// Morph weights of all nodes, each node's at its `weights_offset`.
    pub weights: Vec<f32>,
}

impl Pose {
    /// The model's rest pose (every node's own transform and weights).
    pub fn rest(model: &Model) -> Self {
        let mut weights = vec![0.0; model.weight_count];
        for node in &model.nodes {
            weights[node.weights_offset..node.weights_offset + node.rest_weights.len()]
                .copy_from_slice(&node.rest_weights);
        }
        Self {
            translations: model.nodes.iter().map(|n| n.rest.translation).collect(),
            rotations: model.nodes.iter().map(|n| n.rest.rotation).collect(),
            scales: model.nodes.iter().map(|n| n.rest.scale).collect(),
            weights,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.translations.len()
    }

    /// True for a pose of no nodes.
    pub fn is_empty(&self) -> bool {
        self.translations.is_empty()
    }

    /// Overwrite with another pose of the same shape, allocating nothing.
    pub fn copy_from(&mut self, other: &Self) {
        self.translations.copy_from_slice(&other.translations);
        self.rotations.copy_from_slice(&other.rotations);
        self.scales.copy_from_slice(&other.scales);
        self.weights.copy_from_slice(&other.weights);
    }
}

/// `out = blend(a, b, weight)`: translations and morph weights lerped, rotations slerped along
/// the shortest path, scales in `scale_space`. `weight = 0` gives `a`, `1` gives `b`. All three
/// poses must have the same shape. Allocates nothing; `out` may not alias the inputs.
pub fn blend_poses(a: &Pose, b: &Pose, weight: f32, scale_space: ScaleSpace, out: &mut Pose) {
    let w = if weight > 0.0 { weight.min(1.0) } else { 0.0 };
    lerp_floats(vec3_floats(&a.translations), vec3_floats(&b.translations), w, vec3_floats_mut(&mut out.translations));
    blend_rotations(&a.rotations, &b.rotations, w, &mut out.rotations);
    match scale_space {
        ScaleSpace::Linear => {
            lerp_floats(vec3_floats(&a.scales), vec3_floats(&b.scales), w, vec3_floats_mut(&mut out.scales));
        }
        ScaleSpace::Log => {
            for ((o, &x), &y) in out.scales.iter_mut().zip(&a.scales).zip(&b.scales) {
                *o = log_lerp_vec3(x, y, w);
            }
        }
    }
    lerp_floats(&a.weights, &b.weights, w, &mut out.weights);
}

/// `out = a·(1 − w) + b·w` over flat floats (exact at both ends; vectorized by the compiler).
#[inline]
fn lerp_floats(a: &[f32], b: &[f32], w: f32, out: &mut [f32]) {
    let n = out.len().min(a.len()).min(b.len());
    let (out4, out_rest) = out[..n].as_chunks_mut::<4>();
    let (a4, a_rest) = a[..n].as_chunks::<4>();
    let (b4, b_rest) = b[..n].as_chunks::<4>();
    let (keep4, w4) = (glam::Vec4::splat(1.0 - w), glam::Vec4::splat(w));
    for ((o, x), y) in out4.iter_mut().zip(a4).zip(b4) {
        *o = (glam::Vec4::from_array(*x) * keep4 + glam::Vec4::from_array(*y) * w4).to_array();
    }
    let keep = 1.0 - w;
    for ((o, &x), &y) in out_rest.iter_mut().zip(a_rest).zip(b_rest) {
        *o = x * keep + y * w;
    }
}

/// The components of `Vec3`s as one float slice.
#[inline]
fn vec3_floats(v: &[Vec3]) -> &[f32] {
    const _: () = assert!(std::mem::size_of::<Vec3>() == 12 && std::mem::align_of::<Vec3>() == 4);
    // SAFETY: `Vec3` is `#[repr(C)]` of three `f32` with no padding (checked above): `v` is
    // `3 × len` consecutive, initialized floats, borrowed for the same lifetime.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<f32>(), v.len() * 3) }
}

/// [`vec3_floats`], mutable.
#[inline]
fn vec3_floats_mut(v: &mut [Vec3]) -> &mut [f32] {
    // SAFETY: as in `vec3_floats`; the mutable borrow of `v` is moved into the result, and
    // every bit pattern is a valid `f32`.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<f32>(), v.len() * 3) }
}

/// Shortest-path slerp of two rotation arrays, four at a time.
fn blend_rotations(a: &[Quat], b: &[Quat], w: f32, out: &mut [Quat]) {
    let n = out.len().min(a.len()).min(b.len());
    let split = n - n % 4;
    for ((o, x), y) in out[..split].chunks_exact_mut(4).zip(a[..split].chunks_exact(4)).zip(b[..split].chunks_exact(4))
    {
        slerp4(x, y, w, o);
    }
    for ((o, &x), &y) in out[split..n].iter_mut().zip(&a[split..n]).zip(&b[split..n]) {
        *o = slerp(x, y, w);
    }
}

/// `acc = blend(acc, b, weight)` in place (the accumulation step of a layer stack).
pub fn blend_into(acc: &mut Pose, b: &Pose, weight: f32, scale_space: ScaleSpace) {
    let w = if weight > 0.0 { weight.min(1.0) } else { 0.0 };
    for (o, &y) in acc.translations.iter_mut().zip(&b.translations) {
        *o = lerp_vec3(*o, y, w);
    }
    let n = acc.rotations.len().min(b.rotations.len());
    let split = n - n % 4;
    for (o, y) in acc.rotations[..split].chunks_exact_mut(4).zip(b.rotations[..split].chunks_exact(4)) {
        let x = [o[0], o[1], o[2], o[3]];
        slerp4(&x, y, w, o);
    }
    for (o, &y) in acc.rotations[split..n].iter_mut().zip(&b.rotations[split..n]) {
        *o = slerp(*o, y, w);
    }
    for (o, &y) in acc.scales.iter_mut().zip(&b.scales) {
        *o = scale_space.lerp(*o, y, w);
    }
    for (o, &y) in acc.weights.iter_mut().zip(&b.weights) {
        *o = lerp_f32(*o, y, w);
    }
}
