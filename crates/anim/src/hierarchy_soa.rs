//! The fast local→model pass over a [`SoaPose`] and the fast skinning palette.
//!
//! [`Hierarchy::local_to_model_soa`] works in two steps: the local 3×4 matrices
//! (`parent_from_node`: rotation × scale, and translation) of eight nodes at a time are computed
//! as twelve [`F8`] planes into caller-owned [`LocalMatrices`], then the nodes are walked in
//! hierarchy order doing `model_from_node = model_from_parent × parent_from_node` with the
//! parent's columns in registers and each local element broadcast from its plane.
//!
//! [`PreparedSkin`] keeps a skin's inverse binds as 3×4 affine matrices when their last row is
//! `(0, 0, 0, 1)`, so a palette entry is three broadcast-multiply-adds per column instead of a
//! full 4×4 product.
//!
//! Both dispatch to an AVX2+FMA instantiation at run time (see [`crate::simd8`]).

use glam::{Affine3A, Mat4, Vec3A, Vec4};

use crate::hierarchy::{Hierarchy, NO_PARENT, affine_columns};
use crate::model::Skin;
use crate::simd8::{F8, Isa, Plain};
use crate::soa_pose::{SoaPose, SoaTransforms};

/// Twelve planes of eight nodes: `parent_from_node` columns `x`, `y`, `z` (three rows each),
/// then the translation, each element of the eight nodes in one [`F8`].
type LocalBlock = [F8; 12];

/// Scratch for [`Hierarchy::local_to_model_soa`]: the local matrices of every node, eight per
/// block. Owned by the caller and reused every frame; it grows (allocates) only when a pose has
/// more blocks than it has seen before.
#[derive(Debug, Clone, Default)]
pub struct LocalMatrices {
    blocks: Vec<LocalBlock>,
}

impl LocalMatrices {
    /// Scratch for poses of up to `node_count` nodes (no further allocation for those).
    pub fn new(node_count: usize) -> Self {
        Self { blocks: vec![[F8::ZERO; 12]; node_count.div_ceil(8)] }
    }
}

impl Hierarchy {
    /// [`Hierarchy::local_to_model`] for a [`SoaPose`]: `model_from_node` for every node from the
    /// pose's local transforms (same results within float rounding).
    ///
    /// `locals` is scratch (see [`LocalMatrices`]); `model_from_node` must hold one matrix per
    /// node and the pose one transform per node (panics otherwise). Allocates nothing once
    /// `locals` is large enough (`LocalMatrices::new(node_count)` is).
    ///
    /// The `w` lanes of the output columns are `0` (axes) and `1` (translation); glam ignores
    /// them.
    pub fn local_to_model_soa(&self, pose: &SoaPose, locals: &mut LocalMatrices, model_from_node: &mut [Affine3A]) {
        self.local_to_model_soa_placed(pose, locals, &Affine3A::IDENTITY, model_from_node);
    }

    /// [`Self::local_to_model_soa`] with every root placed by `world_from_model` (each root's
    /// parent is that transform instead of the identity): how a crowd stands each instance in
    /// its own spot without touching the pose. `world_from_model` must be affine with `w` lanes
    /// (0, 0, 0, 1) as `Affine3A` keeps them.
    pub fn local_to_model_soa_placed(
        &self,
        pose: &SoaPose,
        locals: &mut LocalMatrices,
        world_from_model: &Affine3A,
        model_from_node: &mut [Affine3A],
    ) {
        assert_eq!(model_from_node.len(), self.parents.len(), "one model_from_node per node");
        assert_eq!(pose.len(), self.parents.len(), "one pose transform per node");
        if locals.blocks.len() < pose.blocks().len() {
            locals.blocks.resize(pose.blocks().len(), [F8::ZERO; 12]);
        }
        let locals = &mut locals.blocks[..pose.blocks().len()];
        let root = affine_columns(world_from_model);
        #[cfg(target_arch = "x86_64")]
        if crate::simd8::fma_available() {
            // SAFETY: the CPU runs AVX2 and FMA (checked just above).
            unsafe { local_to_model_avx2_fma(self, pose.blocks(), locals, &root, model_from_node) };
            return;
        }
        local_to_model_with::<Plain>(self, pose.blocks(), locals, &root, model_from_node);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn local_to_model_avx2_fma(
    hierarchy: &Hierarchy,
    pose: &[SoaTransforms],
    locals: &mut [LocalBlock],
    root: &[Vec4; 4],
    model_from_node: &mut [Affine3A],
) {
    local_to_model_with::<crate::simd8::Avx2Fma>(hierarchy, pose, locals, root, model_from_node);
}

/// What the local→model and palette kernels need beyond [`Isa`].
pub(crate) trait Isa4: Isa {
    /// `a · b + c` on four lanes, fused where the instruction set has it.
    fn madd4(a: Vec4, b: Vec4, c: Vec4) -> Vec4;
    /// `parent_from_node` of eight nodes as planes ([`local_block`]).
    fn local_block(t: &SoaTransforms, out: &mut LocalBlock);
}

impl Isa4 for Plain {
    #[inline(always)]
    fn madd4(a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        a * b + c
    }

    #[inline(always)]
    fn local_block(t: &SoaTransforms, out: &mut LocalBlock) {
        local_block(t, out);
    }
}

#[cfg(target_arch = "x86_64")]
impl Isa4 for crate::simd8::Avx2Fma {
    #[inline(always)]
    fn madd4(a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        use std::arch::x86_64::{__m128, _mm_fmadd_ps};
        // SAFETY: `Avx2Fma` is only instantiated in functions compiled with AVX2 and FMA
        // enabled, which run only after `fma_available()` confirmed the CPU has both.
        unsafe { _mm_fmadd_ps(__m128::from(a), __m128::from(b), __m128::from(c)).into() }
    }

    /// [`local_block`] in 256-bit intrinsics: written with [`F8`]'s lane loops, LLVM's
    /// straight-line vectorizer regroups the lanes across planes and emits shuffles.
    #[inline(always)]
    fn local_block(t: &SoaTransforms, out: &mut LocalBlock) {
        use std::arch::x86_64::{__m256, _mm256_add_ps, _mm256_mul_ps, _mm256_set1_ps, _mm256_sub_ps};
        // SAFETY: `F8` and `__m256` are both 32 bytes of 8 `f32` (see `simd8`); AVX is
        // enabled wherever `Avx2Fma` is instantiated, and the CPU has it (`fma_available()`).
        unsafe {
            let v = |p: F8| std::mem::transmute::<F8, __m256>(p);
            let f = |m: __m256| std::mem::transmute::<__m256, F8>(m);
            let [x, y, z, w] = t.rotation.map(v);
            let [sx, sy, sz] = t.scale.map(v);
            let (x2, y2, z2) = (_mm256_add_ps(x, x), _mm256_add_ps(y, y), _mm256_add_ps(z, z));
            let (xx, xy, xz) = (_mm256_mul_ps(x, x2), _mm256_mul_ps(x, y2), _mm256_mul_ps(x, z2));
            let (yy, yz, zz) = (_mm256_mul_ps(y, y2), _mm256_mul_ps(y, z2), _mm256_mul_ps(z, z2));
            let (wx, wy, wz) = (_mm256_mul_ps(w, x2), _mm256_mul_ps(w, y2), _mm256_mul_ps(w, z2));
            let one = _mm256_set1_ps(1.0);
            out[0] = f(_mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(yy, zz)), sx));
            out[1] = f(_mm256_mul_ps(_mm256_add_ps(xy, wz), sx));
            out[2] = f(_mm256_mul_ps(_mm256_sub_ps(xz, wy), sx));
            out[3] = f(_mm256_mul_ps(_mm256_sub_ps(xy, wz), sy));
            out[4] = f(_mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, zz)), sy));
            out[5] = f(_mm256_mul_ps(_mm256_add_ps(yz, wx), sy));
            out[6] = f(_mm256_mul_ps(_mm256_add_ps(xz, wy), sz));
            out[7] = f(_mm256_mul_ps(_mm256_sub_ps(yz, wx), sz));
            out[8] = f(_mm256_mul_ps(_mm256_sub_ps(one, _mm256_add_ps(xx, yy)), sz));
        }
        out[9..].copy_from_slice(&t.translation);
    }
}

/// A `Vec3A` column as four lanes, the `w` lane as it is in the register.
#[inline(always)]
fn lanes(v: Vec3A) -> Vec4 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        std::arch::x86_64::__m128::from(v).into()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        v.extend(0.0)
    }
}

/// Four lanes as a `Vec3A` (the `w` lane kept in the register where `Vec3A` is one).
#[inline(always)]
fn vec3a(v: Vec4) -> Vec3A {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        std::arch::x86_64::__m128::from(v).into()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        Vec3A::from_vec4(v)
    }
}

/// `parent_from_node` of eight nodes as planes: glam's `Mat3A::from_quat` times the scale, and
/// the translation.
#[inline(always)]
fn local_block(t: &SoaTransforms, out: &mut LocalBlock) {
    let [x, y, z, w] = t.rotation;
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let [sx, sy, sz] = t.scale;
    let one = F8::ONE;
    out[0] = (one - (yy + zz)) * sx;
    out[1] = (xy + wz) * sx;
    out[2] = (xz - wy) * sx;
    out[3] = (xy - wz) * sy;
    out[4] = (one - (xx + zz)) * sy;
    out[5] = (yz + wx) * sy;
    out[6] = (xz + wy) * sz;
    out[7] = (yz - wx) * sz;
    out[8] = (one - (xx + yy)) * sz;
    out[9..].copy_from_slice(&t.translation);
}

/// The columns a root's parent contributes by default: the identity, translation `w` = 1.
#[cfg(test)]
const ROOT_COLUMNS: [Vec4; 4] = [Vec4::X, Vec4::Y, Vec4::Z, Vec4::W];

/// `model_from_parent × parent_from_node` for `node` (lane `node % 8` of block `node / 8`),
/// as four columns. With `w` lanes (0, 0, 0, 1) in `parent` the result has them too.
#[inline(always)]
fn compose<I: Isa4>(parent: &[Vec4; 4], locals: &[LocalBlock], node: usize) -> [Vec4; 4] {
    let block = &locals[node / 8];
    let lane = node % 8;
    let e = |k: usize| Vec4::splat(block[k].0[lane]);
    let [px, py, pz, pt] = *parent;
    let column = |k: usize, acc: Vec4| I::madd4(pz, e(k + 2), I::madd4(py, e(k + 1), I::madd4(px, e(k), acc)));
    [column(0, Vec4::ZERO), column(3, Vec4::ZERO), column(6, Vec4::ZERO), column(9, pt)]
}

#[inline(always)]
pub(crate) fn local_to_model_with<I: Isa4>(
    hierarchy: &Hierarchy,
    pose: &[SoaTransforms],
    locals: &mut [LocalBlock],
    root: &[Vec4; 4],
    model_from_node: &mut [Affine3A],
) {
    for (local, transforms) in locals.iter_mut().zip(pose) {
        I::local_block(transforms, local);
    }
    let locals = &*locals;
    for &node in &hierarchy.order {
        let node = node as usize;
        let parent = hierarchy.parents[node];
        let model_from_parent = if parent == NO_PARENT {
            *root
        } else {
            let m = &model_from_node[parent as usize];
            [lanes(m.matrix3.x_axis), lanes(m.matrix3.y_axis), lanes(m.matrix3.z_axis), lanes(m.translation)]
        };
        let [x, y, z, t] = compose::<I>(&model_from_parent, locals, node);
        model_from_node[node] = Affine3A::from_cols(vec3a(x), vec3a(y), vec3a(z), vec3a(t));
    }
}

/// A skin prepared for fast palettes: its joints, and its inverse bind matrices as 3×4 affine
/// matrices when every one has the last row `(0, 0, 0, 1)` (as glTF skins do), else as given.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedSkin {
    joints: Vec<usize>,
    inverse_binds: InverseBinds,
}

#[derive(Debug, Clone, PartialEq)]
enum InverseBinds {
    /// `joint_from_bind` of every joint, affine.
    Affine(Vec<Affine3A>),
    /// Some matrix is not affine: the general 4×4 product for all.
    General(Vec<Mat4>),
}

impl PreparedSkin {
    /// Prepare `skin` (call once, when the model is loaded). Joints past the skin's inverse bind
    /// matrices are dropped, as [`crate::skinning_matrices`] drops them.
    pub fn new(skin: &Skin) -> Self {
        let n = skin.joints.len().min(skin.inverse_bind_matrices.len());
        let joints = skin.joints[..n].to_vec();
        let matrices = &skin.inverse_bind_matrices[..n];
        let inverse_binds = if matrices.iter().all(|m| m.row(3) == Vec4::W) {
            InverseBinds::Affine(matrices.iter().map(|m| Affine3A::from_mat4(*m)).collect())
        } else {
            InverseBinds::General(matrices.to_vec())
        };
        Self { joints, inverse_binds }
    }

    /// Number of joints (palette entries).
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// True for a skin without joints.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// True when the inverse binds are all affine (the fast path).
    pub fn is_affine(&self) -> bool {
        matches!(self.inverse_binds, InverseBinds::Affine(_))
    }

    /// [`crate::skinning_matrices`] for the prepared skin: `joint_palette[i] =
    /// model_from_joint[i] × inverse_bind[i]` (same results within float rounding).
    /// `joint_palette.len()` must equal [`PreparedSkin::len`] (panics otherwise). Allocates
    /// nothing.
    pub fn skinning_matrices(&self, model_from_node: &[Affine3A], joint_palette: &mut [Mat4]) {
        assert_eq!(joint_palette.len(), self.joints.len(), "one palette entry per joint");
        #[cfg(target_arch = "x86_64")]
        if crate::simd8::fma_available() {
            // SAFETY: the CPU runs AVX2 and FMA (checked just above).
            unsafe { skinning_avx2_fma(self, model_from_node, joint_palette) };
            return;
        }
        skinning_with::<Plain>(self, model_from_node, joint_palette);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn skinning_avx2_fma(skin: &PreparedSkin, model_from_node: &[Affine3A], joint_palette: &mut [Mat4]) {
    skinning_with::<crate::simd8::Avx2Fma>(skin, model_from_node, joint_palette);
}

/// `model_from_joint × joint_from_bind` with `model_from_joint` as columns (`w` lanes 0, 0, 0,
/// 1) and an affine `joint_from_bind`.
#[inline(always)]
fn palette_entry<I: Isa4>(model_from_joint: &[Vec4; 4], joint_from_bind: &Affine3A) -> Mat4 {
    let [x, y, z, t] = *model_from_joint;
    let column = |c: Vec3A, acc: Vec4| {
        I::madd4(z, Vec4::splat(c.z), I::madd4(y, Vec4::splat(c.y), I::madd4(x, Vec4::splat(c.x), acc)))
    };
    let m = &joint_from_bind.matrix3;
    Mat4::from_cols(
        column(m.x_axis, Vec4::ZERO),
        column(m.y_axis, Vec4::ZERO),
        column(m.z_axis, Vec4::ZERO),
        column(joint_from_bind.translation, t),
    )
}

#[inline(always)]
pub(crate) fn skinning_with<I: Isa4>(skin: &PreparedSkin, model_from_node: &[Affine3A], joint_palette: &mut [Mat4]) {
    match &skin.inverse_binds {
        InverseBinds::Affine(binds) => {
            for ((out, &joint), joint_from_bind) in joint_palette.iter_mut().zip(&skin.joints).zip(binds) {
                *out = palette_entry::<I>(&affine_columns(&model_from_node[joint]), joint_from_bind);
            }
        }
        InverseBinds::General(binds) => {
            for ((out, &joint), joint_from_bind) in joint_palette.iter_mut().zip(&skin.joints).zip(binds) {
                let [x, y, z, w] = affine_columns(&model_from_node[joint]);
                *out = Mat4::from_cols(x, y, z, w) * *joint_from_bind;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::pose::Pose;
    use crate::skinning_matrices;
    use crate::workload::w64_model;
    use crate::{ClipCursor, SampleSettings};

    /// Fixed-seed xorshift floats in `[0, 1)`.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.next()
        }

        fn index(&mut self, n: usize) -> usize {
            ((self.next() * n as f32) as usize).min(n - 1)
        }

        fn quat(&mut self) -> Quat {
            Quat::from_xyzw(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0))
                .normalize()
        }

        fn vec3(&mut self, lo: f32, hi: f32) -> Vec3 {
            Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
        }
    }

    /// Largest element difference relative to the larger of 1 and the expected matrix's largest
    /// element.
    fn relative_error(got: &[f32], expected: &[f32]) -> f32 {
        let scale = expected.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        got.iter().zip(expected).fold(0.0f32, |m, (a, b)| m.max((a - b).abs())) / scale
    }

    fn affine_error(got: &Affine3A, expected: &Affine3A) -> f32 {
        relative_error(&got.to_cols_array(), &expected.to_cols_array())
    }

    fn mat4_error(got: &Mat4, expected: &Mat4) -> f32 {
        relative_error(&got.to_cols_array(), &expected.to_cols_array())
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn local_to_model_avx2(h: &Hierarchy, pose: &SoaPose, locals: &mut LocalMatrices, out: &mut [Affine3A]) {
        locals.blocks.resize(pose.blocks().len(), [F8::ZERO; 12]);
        local_to_model_with::<crate::simd8::Avx2Fma>(h, pose.blocks(), &mut locals.blocks, &ROOT_COLUMNS, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn skinning_avx2(skin: &PreparedSkin, model_from_node: &[Affine3A], palette: &mut [Mat4]) {
        skinning_with::<crate::simd8::Avx2Fma>(skin, model_from_node, palette);
    }

    /// Every way to run the block local→model pass: the public entry, `Plain` and (where the CPU
    /// has it) `AVX2+FMA` directly.
    fn each_local_to_model(h: &Hierarchy, pose: &SoaPose, check: &mut dyn FnMut(&str, &[Affine3A])) {
        let mut out = vec![Affine3A::ZERO; h.len()];
        let mut locals = LocalMatrices::default();
        h.local_to_model_soa(pose, &mut locals, &mut out);
        check("dispatched", &out);
        out.fill(Affine3A::ZERO);
        locals.blocks.resize(pose.blocks().len(), [F8::ZERO; 12]);
        local_to_model_with::<Plain>(h, pose.blocks(), &mut locals.blocks, &ROOT_COLUMNS, &mut out);
        check("plain", &out);
        #[cfg(target_arch = "x86_64")]
        if crate::simd8::fma_available() {
            out.fill(Affine3A::ZERO);
            // SAFETY: the CPU runs AVX2 and FMA (checked above).
            unsafe { local_to_model_avx2(h, pose, &mut locals, &mut out) };
            check("avx2+fma", &out);
        }
    }

    /// Every way to fill a palette from a prepared skin (as [`each_local_to_model`]).
    fn each_palette(skin: &PreparedSkin, model_from_node: &[Affine3A], check: &mut dyn FnMut(&str, &[Mat4])) {
        let mut palette = vec![Mat4::ZERO; skin.len()];
        skin.skinning_matrices(model_from_node, &mut palette);
        check("dispatched", &palette);
        palette.fill(Mat4::ZERO);
        skinning_with::<Plain>(skin, model_from_node, &mut palette);
        check("plain", &palette);
        #[cfg(target_arch = "x86_64")]
        if crate::simd8::fma_available() {
            palette.fill(Mat4::ZERO);
            // SAFETY: the CPU runs AVX2 and FMA (checked above).
            unsafe { skinning_avx2(skin, model_from_node, &mut palette) };
            check("avx2+fma", &palette);
        }
    }

    #[test]
    fn soa_local_to_model_and_prepared_palette_match_the_pose_path_on_w64() {
        let model = w64_model();
        let skin = &model.skins[0];
        let prepared = PreparedSkin::new(skin);
        assert!(prepared.is_affine());
        let mut pose = Pose::rest(&model);
        let mut expected_model = vec![Affine3A::IDENTITY; model.nodes.len()];
        let mut expected_palette = vec![Mat4::IDENTITY; skin.joints.len()];
        for clip in &model.clips {
            for t in [0.0, 0.7, 3.3, 6.01, 9.99] {
                clip.sample(t, &mut ClipCursor::new(clip), &SampleSettings::default(), &mut pose);
                model.hierarchy.local_to_model(&pose, &mut expected_model);
                skinning_matrices(skin, &expected_model, &mut expected_palette);
                let soa = SoaPose::from_pose(&pose);
                each_local_to_model(&model.hierarchy, &soa, &mut |name, got| {
                    for (node, (g, e)) in got.iter().zip(&expected_model).enumerate() {
                        let error = affine_error(g, e);
                        assert!(error < 1e-5, "{name}: node {node} at {t}s off by {error:e}");
                    }
                });
                each_palette(&prepared, &expected_model, &mut |name, got| {
                    for (joint, (g, e)) in got.iter().zip(&expected_palette).enumerate() {
                        let error = mat4_error(g, e);
                        assert!(error < 1e-5, "{name}: joint {joint} at {t}s off by {error:e}");
                    }
                });
            }
        }
    }

    /// A random forest of `n` nodes whose parents are not ordered by index, with a pose of
    /// random rotations, translations and non-uniform (sometimes negative) scales.
    fn random_case(rng: &mut Rng, n: usize) -> (Hierarchy, Pose) {
        let mut permutation: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            permutation.swap(i, rng.index(i + 1));
        }
        let mut parents = vec![NO_PARENT; n];
        for k in 1..n {
            if rng.next() > 0.1 {
                parents[permutation[k]] = permutation[rng.index(k)] as u32;
            }
        }
        let Some(hierarchy) = Hierarchy::from_parents(parents) else { panic!("a forest by construction") };
        let mut pose = Pose::default();
        for _ in 0..n {
            pose.translations.push(rng.vec3(-2.0, 2.0));
            pose.rotations.push(rng.quat());
            let mut scale = rng.vec3(0.4, 1.6);
            if rng.next() < 0.1 {
                scale.y = -scale.y;
            }
            pose.scales.push(scale);
        }
        (hierarchy, pose)
    }

    #[test]
    fn soa_local_to_model_matches_local_to_model_on_random_hierarchies() {
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        for n in (1..=41).chain([64, 100, 257]) {
            let (hierarchy, pose) = random_case(&mut rng, n);
            let mut expected = vec![Affine3A::IDENTITY; n];
            hierarchy.local_to_model(&pose, &mut expected);
            each_local_to_model(&hierarchy, &SoaPose::from_pose(&pose), &mut |name, got| {
                for (node, (g, e)) in got.iter().zip(&expected).enumerate() {
                    let error = affine_error(g, e);
                    assert!(error < 1e-5, "{name}: {n} nodes, node {node} off by {error:e}");
                }
            });
        }
    }

    #[test]
    fn prepared_palette_matches_skinning_matrices_for_affine_and_general_binds() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for round in 0..40 {
            let n = 1 + rng.index(70);
            let (hierarchy, pose) = random_case(&mut rng, n);
            let mut model_from_node = vec![Affine3A::IDENTITY; n];
            hierarchy.local_to_model(&pose, &mut model_from_node);
            let joint_count = 1 + rng.index(2 * n);
            let joints: Vec<usize> = (0..joint_count).map(|_| rng.index(n)).collect();
            let mut inverse_bind_matrices: Vec<Mat4> = (0..joint_count)
                .map(|_| Mat4::from_scale_rotation_translation(rng.vec3(0.5, 2.0), rng.quat(), rng.vec3(-3.0, 3.0)))
                .collect();
            let general = round % 4 == 3;
            if general {
                let k = rng.index(joint_count);
                inverse_bind_matrices[k].x_axis.w = 0.25;
            }
            let skin = Skin { name: None, joints, inverse_bind_matrices, skeleton: None };
            let prepared = PreparedSkin::new(&skin);
            assert_eq!(prepared.is_affine(), !general);
            assert_eq!(prepared.len(), joint_count);
            let mut expected = vec![Mat4::IDENTITY; joint_count];
            skinning_matrices(&skin, &model_from_node, &mut expected);
            each_palette(&prepared, &model_from_node, &mut |name, got| {
                for (joint, (g, e)) in got.iter().zip(&expected).enumerate() {
                    let error = mat4_error(g, e);
                    assert!(error < 1e-5, "{name}: round {round}, joint {joint} off by {error:e}");
                }
            });
        }
    }

    #[test]
    fn soa_output_feeds_the_prepared_palette_with_clean_w_lanes() {
        let mut rng = Rng(7);
        let (hierarchy, pose) = random_case(&mut rng, 19);
        let mut model_from_node = vec![Affine3A::ZERO; 19];
        hierarchy.local_to_model_soa(&SoaPose::from_pose(&pose), &mut LocalMatrices::new(19), &mut model_from_node);
        let skin = Skin {
            name: None,
            joints: (0..19).collect(),
            inverse_bind_matrices: vec![Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0)); 19],
            skeleton: None,
        };
        let mut palette = vec![Mat4::ZERO; 19];
        PreparedSkin::new(&skin).skinning_matrices(&model_from_node, &mut palette);
        for m in &palette {
            assert_eq!(m.row(3), Vec4::W);
        }
    }
}
