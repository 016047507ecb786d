//! The runtime pose: local transforms in structure-of-arrays blocks of eight nodes
//! ([`SoaPose`]), what every per-frame job reads and writes (sampling, [`blend_poses`],
//! [`crate::Hierarchy::local_to_model`], cross-fades), and its node-indexed view for the edges
//! that think in nodes ([`SoaPose::get`], [`SoaPose::nodes`]).

use glam::{Mat4, Quat, Vec3};

use crate::ids::NodeId;
use crate::interp::ScaleSpace;
use crate::simd8::{F8, Isa, Kernel, V, acos_factor, block_weights, dispatch, sinc_quarter_turn};

/// A local transform as translation, rotation, scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Translation in the parent's frame.
    pub translation: Vec3,
    /// Unit rotation quaternion.
    pub rotation: Quat,
    /// Non-uniform scale.
    pub scale: Vec3,
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Self = Self { translation: Vec3::ZERO, rotation: Quat::IDENTITY, scale: Vec3::ONE };

    /// `parent_from_local` as a matrix.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && self.rotation.is_finite() && self.scale.is_finite()
    }
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// Local translation, rotation and scale of eight nodes, one [`F8`] per component: node
/// `8·b + lane` of a [`SoaPose`] is lane `lane` of block `b`.
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(32))]
pub struct SoaTransforms {
    /// `x`, `y`, `z` of the translations.
    pub translation: [F8; 3],
    /// `x`, `y`, `z`, `w` of the rotations (unit quaternions).
    pub rotation: [F8; 4],
    /// `x`, `y`, `z` of the scales.
    pub scale: [F8; 3],
}

impl SoaTransforms {
    /// The ten planes in order: translation `x y z`, rotation `x y z w`, scale `x y z`.
    #[inline(always)]
    pub(crate) fn planes(&self) -> &[F8; 10] {
        bytemuck::must_cast_ref(self)
    }

    /// [`Self::planes`], writable.
    #[inline(always)]
    pub(crate) fn planes_mut(&mut self) -> &mut [F8; 10] {
        bytemuck::must_cast_mut(self)
    }

    /// Eight identity transforms (also what padding lanes past the last node hold).
    pub const IDENTITY: Self =
        Self { translation: [F8::ZERO; 3], rotation: [F8::ZERO, F8::ZERO, F8::ZERO, F8::ONE], scale: [F8::ONE; 3] };

    /// The transform in `lane`.
    #[inline]
    fn lane(&self, lane: usize) -> Transform {
        let [tx, ty, tz] = &self.translation;
        let [rx, ry, rz, rw] = &self.rotation;
        let [sx, sy, sz] = &self.scale;
        Transform {
            translation: Vec3::new(tx.0[lane], ty.0[lane], tz.0[lane]),
            rotation: Quat::from_xyzw(rx.0[lane], ry.0[lane], rz.0[lane], rw.0[lane]),
            scale: Vec3::new(sx.0[lane], sy.0[lane], sz.0[lane]),
        }
    }
}

/// Write the components of `value` into `lane` of `planes`.
#[inline]
fn set_lane<const C: usize>(planes: &mut [F8; C], lane: usize, value: [f32; C]) {
    for (plane, v) in planes.iter_mut().zip(value) {
        plane.0[lane] = v;
    }
}

/// A pose: the local transform of every node of a model, plus morph weights, in blocks of eight
/// nodes (one [`F8`] per component), so that sampling, blending and the local→model pass work
/// on eight nodes per instruction with no transposes. Lanes past the last node hold the identity.
///
/// The caller owns it and reuses it every frame; jobs write into it and allocate nothing. Its
/// shape (node and weight counts) is fixed at creation ([`crate::Model::rest_pose`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SoaPose {
    blocks: Vec<SoaTransforms>,
    len: usize,
    weights: Vec<f32>,
}

impl SoaPose {
    /// A pose of `transforms` (one per node, in node order) and morph `weights`.
    pub fn from_transforms(transforms: &[Transform], weights: Vec<f32>) -> Self {
        let len = transforms.len();
        let mut pose = Self { blocks: vec![SoaTransforms::IDENTITY; len.div_ceil(8)], len, weights };
        for (node, transform) in transforms.iter().enumerate() {
            pose.set(NodeId::from_index(node), *transform);
        }
        pose
    }

    /// Overwrite with another pose of the same shape, allocating nothing.
    ///
    /// # Panics
    /// When the shapes differ.
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

    /// Morph weights of all nodes, each node's at its [`crate::Node::weights_offset`].
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Morph weights, mutable.
    pub fn weights_mut(&mut self) -> &mut [f32] {
        &mut self.weights
    }

    /// Block and lane of `node`, if the pose has it.
    #[inline]
    fn slot(&self, node: NodeId) -> Option<(usize, usize)> {
        let node = node.index();
        (node < self.len).then_some((node / 8, node % 8))
    }

    /// The local transform of `node`, if the pose has it: the node-indexed view of the blocks.
    pub fn get(&self, node: NodeId) -> Option<Transform> {
        let (block, lane) = self.slot(node)?;
        Some(self.blocks[block].lane(lane))
    }

    /// Every node's local transform, in node order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = (NodeId, Transform)> + '_ {
        (0..self.len).map(|node| (NodeId::from_index(node), self.blocks[node / 8].lane(node % 8)))
    }

    /// Set the local transform of `node`; a node the pose does not have is ignored.
    pub fn set(&mut self, node: NodeId, transform: Transform) {
        self.set_translation(node, transform.translation);
        self.set_rotation(node, transform.rotation);
        self.set_scale(node, transform.scale);
    }

    /// Translation of `node` (panics when out of range, like slice indexing).
    pub fn translation(&self, node: NodeId) -> Vec3 {
        self.transform(node).translation
    }

    /// Rotation of `node` (panics when out of range).
    pub fn rotation(&self, node: NodeId) -> Quat {
        self.transform(node).rotation
    }

    /// Scale of `node` (panics when out of range).
    pub fn scale(&self, node: NodeId) -> Vec3 {
        self.transform(node).scale
    }

    /// Local transform of `node` (panics when out of range).
    pub fn transform(&self, node: NodeId) -> Transform {
        let Some(transform) = self.get(node) else {
            panic!("node {node} out of range for a pose of {} nodes", self.len)
        };
        transform
    }

    /// Set the translation of `node` (a node the pose does not have is ignored).
    pub fn set_translation(&mut self, node: NodeId, value: Vec3) {
        if let Some((b, l)) = self.slot(node) {
            set_lane(&mut self.blocks[b].translation, l, value.to_array());
        }
    }

    /// Set the rotation of `node` (a node the pose does not have is ignored).
    pub fn set_rotation(&mut self, node: NodeId, value: Quat) {
        if let Some((b, l)) = self.slot(node) {
            set_lane(&mut self.blocks[b].rotation, l, value.to_array());
        }
    }

    /// Set the scale of `node` (a node the pose does not have is ignored).
    pub fn set_scale(&mut self, node: NodeId, value: Vec3) {
        if let Some((b, l)) = self.slot(node) {
            set_lane(&mut self.blocks[b].scale, l, value.to_array());
        }
    }

    /// True when every transform and weight is finite.
    pub fn is_finite(&self) -> bool {
        self.weights.iter().all(|w| w.is_finite())
            && self.blocks.iter().all(|b| bytemuck::must_cast_ref::<_, [f32; 80]>(b).iter().all(|x| x.is_finite()))
    }

    /// Write `values` (component planes; `C` = 3 or 4) into pose block `block` from plane `plane`
    /// on, where `mask` is set (what the sampling kernels store).
    #[inline(always)]
    pub(crate) fn write_planes<const C: usize>(&mut self, plane: usize, block: usize, mask: u8, values: &[F8; C]) {
        let Some(out) = self.blocks.get_mut(block) else { return };
        let Some(planes) = out.planes_mut().get_mut(plane..plane + C) else { return };
        if mask == 0xff {
            planes.copy_from_slice(values);
        } else {
            for (plane, &value) in planes.iter_mut().zip(values) {
                *plane = value.select_bits(*plane, mask);
            }
        }
    }
}

/// A node-indexed copy of a [`SoaPose`] (structure of arrays, one entry per node): the adapter for
/// the edges that want plain per-node vectors (readouts, exports, tests). It has no operations —
/// sampling, blending and local→model run on the [`SoaPose`] — and is built from the blocks.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodePose {
    /// Local translation per node.
    pub translations: Vec<Vec3>,
    /// Local rotation per node.
    pub rotations: Vec<Quat>,
    /// Local scale per node.
    pub scales: Vec<Vec3>,
    /// Morph weights of all nodes, each node's at its [`crate::Node::weights_offset`].
    pub weights: Vec<f32>,
}

impl NodePose {
    /// Overwrite with `pose` (resizing to its shape; no allocation once the shapes match).
    pub fn copy_from(&mut self, pose: &SoaPose) {
        let n = pose.len();
        self.translations.resize(n, Vec3::ZERO);
        self.rotations.resize(n, Quat::IDENTITY);
        self.scales.resize(n, Vec3::ONE);
        for (node, transform) in pose.nodes() {
            let i = node.index();
            self.translations[i] = transform.translation;
            self.rotations[i] = transform.rotation;
            self.scales[i] = transform.scale;
        }
        self.weights.clear();
        self.weights.extend_from_slice(pose.weights());
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.translations.len()
    }

    /// True for a pose of no nodes.
    pub fn is_empty(&self) -> bool {
        self.translations.is_empty()
    }

    /// The local transform of `node`, if the pose has it.
    pub fn get(&self, node: NodeId) -> Option<Transform> {
        let i = node.index();
        Some(Transform {
            translation: *self.translations.get(i)?,
            rotation: *self.rotations.get(i)?,
            scale: *self.scales.get(i)?,
        })
    }
}

impl From<&SoaPose> for NodePose {
    fn from(pose: &SoaPose) -> Self {
        let mut nodes = Self::default();
        nodes.copy_from(pose);
        nodes
    }
}

/// Per-node differences or rates of change of a pose, node-indexed: translation, rotation as a
/// rotation vector (axis × angle, radians, in the parent's frame: `Δ = log(a · b⁻¹)` along the
/// shortest path), scale, and morph weights. What the transition jobs need: an inertialization
/// offset and its velocity, a pose's velocity from two frames, a dead-blending extrapolation.
/// The caller owns it (shape fixed at creation); every operation allocates nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoseDelta {
    /// Translation difference (or rate) per node.
    pub translation: Vec<Vec3>,
    /// Rotation vector per node (radians, or radians per second for a rate).
    pub rotation: Vec<Vec3>,
    /// Scale difference (or rate) per node.
    pub scale: Vec<Vec3>,
    /// Morph weight difference (or rate), as laid out in the pose.
    pub weights: Vec<f32>,
}

impl PoseDelta {
    /// A zero delta shaped like `pose`.
    pub fn zeros_like(pose: &SoaPose) -> Self {
        let n = pose.len();
        Self {
            translation: vec![Vec3::ZERO; n],
            rotation: vec![Vec3::ZERO; n],
            scale: vec![Vec3::ZERO; n],
            weights: vec![0.0; pose.weights().len()],
        }
    }

    /// Overwrite with `other` (allocating nothing once the shapes match).
    pub fn copy_from(&mut self, other: &Self) {
        self.translation.clone_from(&other.translation);
        self.rotation.clone_from(&other.rotation);
        self.scale.clone_from(&other.scale);
        self.weights.clone_from(&other.weights);
    }

    /// Set every component to zero.
    pub fn clear(&mut self) {
        self.translation.fill(Vec3::ZERO);
        self.rotation.fill(Vec3::ZERO);
        self.scale.fill(Vec3::ZERO);
        self.weights.fill(0.0);
    }

    /// `self = (a ⊖ b) · factor`: what takes `b` to `a`, scaled (`factor = 1/dt` gives the rate
    /// of change from a pose `b` to the pose `a` one `dt` later). Nodes past the shorter shape are
    /// left as they are.
    pub fn set_difference(&mut self, a: &SoaPose, b: &SoaPose, factor: f32) {
        for ((node, x), (_, y)) in a.nodes().zip(b.nodes()) {
            let i = node.index();
            let (Some(t), Some(r), Some(s)) =
                (self.translation.get_mut(i), self.rotation.get_mut(i), self.scale.get_mut(i))
            else {
                break;
            };
            *t = (x.translation - y.translation) * factor;
            let mut q = x.rotation * y.rotation.inverse();
            if q.w < 0.0 {
                q = -q;
            }
            *r = rotation_vector(q) * factor;
            *s = (x.scale - y.scale) * factor;
        }
        for ((d, &x), &y) in self.weights.iter_mut().zip(a.weights()).zip(b.weights()) {
            *d = (x - y) * factor;
        }
    }

    /// `self = x · p + v · q`, component by component (the value of a decaying offset from its
    /// start value `x` and start velocity `v` with the curve's two basis functions `p`, `q`).
    pub fn set_combination(&mut self, x: &Self, p: f32, v: &Self, q: f32) {
        let mix = |out: &mut [Vec3], a: &[Vec3], b: &[Vec3]| {
            for ((o, &a), &b) in out.iter_mut().zip(a).zip(b) {
                *o = a * p + b * q;
            }
        };
        mix(&mut self.translation, &x.translation, &v.translation);
        mix(&mut self.rotation, &x.rotation, &v.rotation);
        mix(&mut self.scale, &x.scale, &v.scale);
        for ((o, &a), &b) in self.weights.iter_mut().zip(&x.weights).zip(&v.weights) {
            *o = a * p + b * q;
        }
    }

    /// `self *= factor`, component by component.
    pub fn scale(&mut self, factor: f32) {
        for v in self.translation.iter_mut().chain(&mut self.rotation).chain(&mut self.scale) {
            *v *= factor;
        }
        for w in &mut self.weights {
            *w *= factor;
        }
    }

    /// `self += x · factor`, component by component.
    pub fn add_scaled(&mut self, x: &Self, factor: f32) {
        let add = |out: &mut [Vec3], a: &[Vec3]| {
            for (o, &a) in out.iter_mut().zip(a) {
                *o += a * factor;
            }
        };
        add(&mut self.translation, &x.translation);
        add(&mut self.rotation, &x.rotation);
        add(&mut self.scale, &x.scale);
        for (o, &a) in self.weights.iter_mut().zip(&x.weights) {
            *o += a * factor;
        }
    }

    /// `pose = (self · factor) ⊕ pose`: translations, scales and weights added, rotations turned
    /// by `exp(factor · rotation vector)` in the parent's frame (so `set_difference(a, b, 1)`
    /// then `apply_to(b, 1)` gives `a`).
    pub fn apply_to(&self, pose: &mut SoaPose, factor: f32) {
        if factor == 0.0 {
            return;
        }
        for node in 0..pose.len() {
            let id = NodeId::from_index(node);
            let (Some(t), Some(r), Some(s), Some(mut local)) =
                (self.translation.get(node), self.rotation.get(node), self.scale.get(node), pose.get(id))
            else {
                break;
            };
            local.translation += *t * factor;
            local.rotation = (Quat::from_scaled_axis(*r * factor) * local.rotation).normalize();
            local.scale += *s * factor;
            pose.set(id, local);
        }
        for (w, &d) in pose.weights_mut().iter_mut().zip(&self.weights) {
            *w += d * factor;
        }
    }

    /// Per node and component, keep the longer of `self`'s vector and `other`'s (per weight, the
    /// larger magnitude): folded over a clip's rates it gives each joint's fastest motion.
    pub fn keep_longest(&mut self, other: &Self) {
        let keep = |out: &mut [Vec3], a: &[Vec3]| {
            for (o, &a) in out.iter_mut().zip(a) {
                if a.length_squared() > o.length_squared() {
                    *o = a;
                }
            }
        };
        keep(&mut self.translation, &other.translation);
        keep(&mut self.rotation, &other.rotation);
        keep(&mut self.scale, &other.scale);
        for (o, &a) in self.weights.iter_mut().zip(&other.weights) {
            if a.abs() > o.abs() {
                *o = a.abs();
            }
        }
    }

    /// Shorten each node's translation, rotation and scale vector to at most the length of
    /// `bound`'s (its direction kept), and each weight to at most `bound`'s magnitude. Non-finite
    /// values become zero.
    pub fn clamp_lengths(&mut self, bound: &Self) {
        let clamp = |out: &mut [Vec3], b: &[Vec3]| {
            for (o, &b) in out.iter_mut().zip(b) {
                *o = if o.is_finite() { o.clamp_length_max(b.length()) } else { Vec3::ZERO };
            }
        };
        clamp(&mut self.translation, &bound.translation);
        clamp(&mut self.rotation, &bound.rotation);
        clamp(&mut self.scale, &bound.scale);
        for (o, &b) in self.weights.iter_mut().zip(&bound.weights) {
            *o = if o.is_finite() { o.clamp(-b.abs(), b.abs()) } else { 0.0 };
        }
    }

    /// [`Self::apply_to`] with each node's displacement `d = |self · factor|` (translation,
    /// rotation angle, scale; each weight's magnitude) softly saturated at the length `b` of
    /// `bound`'s: `b·tanh(d/b)`, direction kept — the same to second order for small `d`, never
    /// beyond `b`, never moving faster than `d` does (nothing where `b = 0`).
    pub fn apply_saturated(&self, pose: &mut SoaPose, factor: f32, bound: &Self) {
        if factor == 0.0 {
            return;
        }
        let saturate = |x: Vec3, b: f32| {
            let d = x.length();
            if d > 0.0 && b > 0.0 && d.is_finite() { x * (b * (d / b).tanh() / d) } else { Vec3::ZERO }
        };
        for node in 0..pose.len() {
            let id = NodeId::from_index(node);
            let (Some(t), Some(r), Some(s), Some(mut local)) =
                (self.translation.get(node), self.rotation.get(node), self.scale.get(node), pose.get(id))
            else {
                break;
            };
            let b = |v: &[Vec3]| v.get(node).map_or(0.0, |b| b.length());
            local.translation += saturate(*t * factor, b(&bound.translation));
            let turn = saturate(*r * factor, b(&bound.rotation));
            local.rotation = (Quat::from_scaled_axis(turn) * local.rotation).normalize();
            local.scale += saturate(*s * factor, b(&bound.scale));
            pose.set(id, local);
        }
        for ((w, &d), &b) in pose.weights_mut().iter_mut().zip(&self.weights).zip(&bound.weights) {
            *w += saturate(Vec3::X * d * factor, b.abs()).x;
        }
    }

    /// Largest translation, rotation (radians) and scale component over the nodes, for tests and
    /// readouts.
    pub fn max_norms(&self) -> (f32, f32, f32) {
        let largest = |v: &[Vec3]| v.iter().map(|x| x.length()).fold(0.0f32, f32::max);
        (largest(&self.translation), largest(&self.rotation), largest(&self.scale))
    }
}

/// Rotation vector (axis × angle) of a unit quaternion with `w ≥ 0`; exact near the identity.
#[inline]
pub(crate) fn rotation_vector(q: Quat) -> Vec3 {
    let v = Vec3::new(q.x, q.y, q.z);
    let sin_half = v.length();
    if sin_half < 1e-6 {
        return v * 2.0;
    }
    let angle = 2.0 * sin_half.atan2(q.w);
    v * (angle / sin_half)
}

/// `out = blend(a, b, weight)`: translations and morph weights lerped, rotations slerped along
/// the shortest path, scales in `scale_space`. `weight = 0` gives `a`, `1` gives `b` (exactly).
/// All three poses must have the same shape. Eight nodes per step; allocates nothing.
///
/// The slerp is `a·(1−w)·k·sinc((1−w)Ω) ± b·w·k·sinc(wΩ)` with `k = Ω / sin Ω` computed as
/// `P(d)/√(1+d)` from the arc-cosine polynomial `Ω = √(1−d)·P(d)`, `d = |a·b|`: no division,
/// no special case for nearly equal rotations, and within 1e-6 of the exact slerp (tested).
pub fn blend_poses(a: &SoaPose, b: &SoaPose, weight: f32, scale_space: ScaleSpace, out: &mut SoaPose) {
    let w = if weight > 0.0 { weight.min(1.0) } else { 0.0 };
    // The ends exactly (the polynomials are within 1e-7 there, not bit-exact).
    if w == 0.0 || w == 1.0 {
        out.copy_from(if w == 0.0 { a } else { b });
        return;
    }
    dispatch(Blend { a, b, w, scale_space, out });
}

/// `acc = blend(acc, b, weight)` in place (the accumulation step of a layer stack), as
/// [`blend_poses`] computes it.
pub fn blend_into(acc: &mut SoaPose, b: &SoaPose, weight: f32, scale_space: ScaleSpace) {
    let w = if weight > 0.0 { weight.min(1.0) } else { 0.0 };
    if w == 0.0 {
        return;
    }
    if w == 1.0 {
        acc.copy_from(b);
        return;
    }
    dispatch(BlendInto { acc, b, w, scale_space });
}

/// The [`blend_poses`] kernel.
struct Blend<'a> {
    a: &'a SoaPose,
    b: &'a SoaPose,
    w: f32,
    scale_space: ScaleSpace,
    out: &'a mut SoaPose,
}

impl Kernel for Blend<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { a, b, w, scale_space, out } = self;
        let lanes = F8::splat(w);
        for ((o, x), y) in out.blocks.iter_mut().zip(&a.blocks).zip(&b.blocks) {
            blend_block(isa, Some(x), y, &lanes, scale_space, o);
        }
        let keep = 1.0 - w;
        for ((o, &x), &y) in out.weights.iter_mut().zip(&a.weights).zip(&b.weights) {
            *o = x * keep + y * w;
        }
    }
}

/// The [`blend_into`] kernel.
struct BlendInto<'a> {
    acc: &'a mut SoaPose,
    b: &'a SoaPose,
    w: f32,
    scale_space: ScaleSpace,
}

impl Kernel for BlendInto<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { acc, b, w, scale_space } = self;
        let lanes = F8::splat(w);
        for (o, y) in acc.blocks.iter_mut().zip(&b.blocks) {
            blend_block(isa, None, y, &lanes, scale_space, o);
        }
        let keep = 1.0 - w;
        for (o, &y) in acc.weights.iter_mut().zip(&b.weights) {
            *o = *o * keep + y * w;
        }
    }
}

/// `out = blend(a, b, wᵢ)` node by node: node `i` takes `b` with weight `node_weights[i]` (and
/// `a` with `1 − wᵢ`), as [`blend_poses`] computes it (scales linear); weights are clamped to
/// `[0, 1]`, NaN and nodes past `node_weights` count as 0. Nodes at weight 0 are exactly `a`'s,
/// at 1 exactly `b`'s. Morph weights come from `a`. A partial ragdoll blends only its region
/// this way. All three poses must have the same shape. Allocates nothing.
pub fn blend_poses_per_node(a: &SoaPose, b: &SoaPose, node_weights: &[f32], out: &mut SoaPose) {
    assert!(a.len == b.len && a.len == out.len, "blend_poses_per_node: poses of different shapes");
    dispatch(BlendPerNode { a, b, node_weights, out });
}

/// The [`blend_poses_per_node`] kernel.
struct BlendPerNode<'a> {
    a: &'a SoaPose,
    b: &'a SoaPose,
    node_weights: &'a [f32],
    out: &'a mut SoaPose,
}

impl Kernel for BlendPerNode<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { a, b, node_weights, out } = self;
        for (block, ((o, x), y)) in out.blocks.iter_mut().zip(&a.blocks).zip(&b.blocks).enumerate() {
            blend_block_per_node(isa, Some(x), y, node_weights, block, o);
        }
        let m = out.weights.len().min(a.weights.len());
        out.weights[..m].copy_from_slice(&a.weights[..m]);
    }
}

/// `acc = blend(acc, b, wᵢ)` node by node in place, as [`blend_poses_per_node`] computes it
/// (nodes at weight 0 keep `acc`'s exactly, at 1 take `b`'s exactly; morph weights stay
/// `acc`'s). Both poses must have the same shape. Allocates nothing.
pub fn blend_into_per_node(acc: &mut SoaPose, b: &SoaPose, node_weights: &[f32]) {
    assert!(acc.len == b.len, "blend_into_per_node: poses of different shapes");
    dispatch(BlendIntoPerNode { acc, b, node_weights });
}

/// The [`blend_into_per_node`] kernel.
struct BlendIntoPerNode<'a> {
    acc: &'a mut SoaPose,
    b: &'a SoaPose,
    node_weights: &'a [f32],
}

impl Kernel for BlendIntoPerNode<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { acc, b, node_weights } = self;
        // Blocks the mask leaves out (most of them, for a mask of a limb) are not touched.
        for (block, (o, y)) in acc.blocks.iter_mut().zip(&b.blocks).enumerate() {
            blend_block_per_node(isa, None, y, node_weights, block, o);
        }
    }
}

/// Block `block` of the per-node blends: `o = blend(x, y, wᵢ)`, the ends exact lane by lane
/// (`x`: `None` blends `o` in place, leaving the lanes at weight 0 untouched).
#[inline(always)]
fn blend_block_per_node<I: Isa>(
    isa: I,
    x: Option<&SoaTransforms>,
    y: &SoaTransforms,
    node_weights: &[f32],
    block: usize,
    o: &mut SoaTransforms,
) {
    let (w, none, all) = block_weights(isa, node_weights, block);
    if none == 0xff {
        if let Some(x) = x {
            *o = *x;
        }
        return;
    }
    if all == 0xff {
        *o = *y;
        return;
    }
    if none | all == 0xff {
        // Only the ends (a mask of whole joints): each lane exactly one pose's, nothing to blend.
        match x {
            Some(x) => {
                for ((plane, from_a), from_b) in o.planes_mut().iter_mut().zip(x.planes()).zip(y.planes()) {
                    *plane = from_b.select_bits(*from_a, all);
                }
            }
            None => {
                for (plane, from_b) in o.planes_mut().iter_mut().zip(y.planes()) {
                    *plane = from_b.select_bits(*plane, all);
                }
            }
        }
        return;
    }
    // (Weights strictly between the ends: the lanes at 0 need the block as it was.)
    let from_a = x.map_or(*o.planes(), |x| *x.planes());
    blend_block(isa, x, y, &w, ScaleSpace::Linear, o);
    // The ends exactly, lane by lane.
    for ((plane, from_a), from_b) in o.planes_mut().iter_mut().zip(from_a).zip(y.planes()) {
        *plane = from_b.select_bits(from_a.select_bits(*plane, none), all);
    }
}

/// One block of [`blend_poses`]: `o = blend(x, y, w)` with `keep = 1 − w` and `take = w` per
/// lane (`w` also as [`F8`] for the log-scale path); `x`: `None` blends `o` in place (each
/// plane is read before it is written, so nothing is copied).
#[inline(always)]
fn blend_block<I: Isa>(
    isa: I,
    x: Option<&SoaTransforms>,
    y: &SoaTransforms,
    w: &F8,
    scale_space: ScaleSpace,
    o: &mut SoaTransforms,
) {
    let take = V::load(isa, w);
    let keep = V::splat(isa, 1.0) - take;
    for c in 0..3 {
        let from = x.map_or(o.translation[c], |x| x.translation[c]);
        o.translation[c] = lerp_plane(isa, &from, &y.translation[c], keep, take);
    }
    let from = x.map_or(o.rotation, |x| x.rotation);
    o.rotation = slerp_block(isa, &from, &y.rotation, keep, take);
    match scale_space {
        ScaleSpace::Linear => {
            for c in 0..3 {
                let from = x.map_or(o.scale[c], |x| x.scale[c]);
                o.scale[c] = lerp_plane(isa, &from, &y.scale[c], keep, take);
            }
        }
        ScaleSpace::Log => {
            for c in 0..3 {
                for lane in 0..8 {
                    let p = x.map_or(o.scale[c].0[lane], |x| x.scale[c].0[lane]);
                    let q = y.scale[c].0[lane];
                    o.scale[c].0[lane] = crate::interp::log_lerp_vec3(Vec3::splat(p), Vec3::splat(q), w.0[lane]).x;
                }
            }
        }
    }
}

/// `x·keep + y·take` on one plane.
#[inline(always)]
fn lerp_plane<I: Isa>(isa: I, x: &F8, y: &F8, keep: V<I>, take: V<I>) -> F8 {
    V::load(isa, y).madd(take, V::load(isa, x) * keep).store()
}

/// Shortest-path slerp of eight rotation pairs at weights `keep = 1 − w`, `take = w`.
#[inline(always)]
fn slerp_block<I: Isa>(isa: I, a: &[F8; 4], b: &[F8; 4], keep: V<I>, take: V<I>) -> [F8; 4] {
    let load = |x: &F8| V::load(isa, x);
    let (a, b) =
        ([load(&a[0]), load(&a[1]), load(&a[2]), load(&a[3])], [load(&b[0]), load(&b[1]), load(&b[2]), load(&b[3])]);
    let signed = a[3].madd(b[3], a[2].madd(b[2], a[1].madd(b[1], a[0] * b[0])));
    let one = V::splat(isa, 1.0);
    let d = signed.abs().min(one);
    let p = acos_factor(d);
    let one_minus_d = (one - d).max(V::splat(isa, 1e-30));
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
    use crate::simd8::each_isa;

    fn quat(seed: u32) -> Quat {
        let f = seed as f32;
        Quat::from_xyzw((f * 0.71).sin(), (f * 1.37).cos(), (f * 0.23).sin() * 0.5, (f * 2.9).cos()).normalize()
    }

    /// [`slerp_block`] of two rotation blocks at one weight.
    #[derive(Clone, Copy)]
    struct SlerpBlock([F8; 4], [F8; 4], f32);

    impl Kernel for SlerpBlock {
        type Output = [F8; 4];
        #[inline(always)]
        fn run<I: Isa>(self, isa: I) -> [F8; 4] {
            slerp_block(isa, &self.0, &self.1, V::splat(isa, 1.0 - self.2), V::splat(isa, self.2))
        }
    }

    #[test]
    fn block_slerp_matches_the_scalar_slerp_for_every_isa() {
        let mut worst = 0.0f32;
        let mut worst_exact = 0.0f64;
        let mut runs = 0;
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
            for (_, got) in each_isa(&SlerpBlock(planes(&a), planes(&b), w)) {
                runs += 1;
                for l in 0..8 {
                    let expected = slerp(a[l], b[l], w);
                    let q = Quat::from_xyzw(got[0].0[l], got[1].0[l], got[2].0[l], got[3].0[l]);
                    worst = worst.max((glam::Vec4::from(q) - glam::Vec4::from(expected)).abs().max_element());
                    // And against slerp evaluated in f64 with the library sine and arc cosine.
                    let exact = exact_slerp(a[l].to_array(), b[l].to_array(), f64::from(w));
                    let error = (0..4).map(|c| (f64::from(q.to_array()[c]) - exact[c]).abs()).fold(0.0, f64::max);
                    worst_exact = worst_exact.max(error);
                }
            }
        }
        assert!(runs >= 400);
        assert!(worst < 1e-6, "block slerp deviates from slerp by {worst:e}");
        assert!(worst_exact < 1e-6, "block slerp deviates from exact (f64) slerp by {worst_exact:e}");
    }

    #[test]
    fn node_view_round_trips_exactly_and_padding_is_identity() {
        let transforms: Vec<Transform> = (0..11)
            .map(|i| {
                let f = i as f32;
                Transform { translation: Vec3::new(f, -f, 2.0 * f), rotation: quat(i), scale: Vec3::splat(1.0 + f) }
            })
            .collect();
        let pose = SoaPose::from_transforms(&transforms, vec![0.25, 0.5]);
        assert_eq!(pose.len(), 11);
        assert_eq!(pose.blocks().len(), 2);
        let back: Vec<Transform> = pose.nodes().map(|(_, t)| t).collect();
        assert_eq!(back, transforms);
        assert_eq!(pose.get(NodeId::from_index(11)), None);
        assert_eq!(pose.weights(), &[0.25, 0.5]);
        assert_eq!(pose.blocks()[1].rotation[3].0[7], 1.0);
        assert_eq!(pose.blocks()[1].scale[0].0[5], 1.0);
        assert!(pose.is_finite());
    }

    #[test]
    fn blends_are_exact_at_the_ends_and_in_place_matches_out_of_place() {
        let transforms = |seed: u32| -> Vec<Transform> {
            (0..13)
                .map(|i| Transform {
                    translation: Vec3::splat((seed + i) as f32),
                    rotation: quat(seed * 31 + i),
                    scale: Vec3::new(1.0, 2.0, 0.5 + i as f32),
                })
                .collect()
        };
        let a = SoaPose::from_transforms(&transforms(1), vec![0.0, 1.0]);
        let b = SoaPose::from_transforms(&transforms(2), vec![1.0, 0.0]);
        let mut out = a.clone();
        for space in ScaleSpace::ALL {
            blend_poses(&a, &b, 0.0, space, &mut out);
            assert_eq!(out, a);
            blend_poses(&a, &b, 1.0, space, &mut out);
            assert_eq!(out, b);
            blend_poses(&a, &b, 0.3, space, &mut out);
            let mut acc = a.clone();
            blend_into(&mut acc, &b, 0.3, space);
            assert_eq!(acc, out);
            assert!((out.weights()[0] - 0.3).abs() < 1e-6);
        }
    }

    #[test]
    fn per_node_blend_takes_each_nodes_weight_and_the_ends_exactly() {
        let id = NodeId::from_index;
        let a = SoaPose::from_transforms(&[Transform::IDENTITY; 10], vec![0.25]);
        let turned = Transform { translation: Vec3::Y, rotation: Quat::from_rotation_z(1.0), scale: Vec3::splat(2.0) };
        let b = SoaPose::from_transforms(&[turned; 10], vec![1.0]);
        let mut out = a.clone();
        // Node 9 is past the weights: it takes `a`.
        let weights = [0.0, 0.5, 1.0, f32::NAN, 2.0, -1.0, 0.5, 0.5, 0.25];
        blend_poses_per_node(&a, &b, &weights, &mut out);
        for node in [0, 3, 5, 9] {
            assert_eq!(out.transform(id(node)), Transform::IDENTITY, "node {node}");
        }
        for node in [2, 4] {
            assert_eq!(out.transform(id(node)), turned, "node {node}");
        }
        let half = out.transform(id(1));
        assert!(half.translation.abs_diff_eq(Vec3::new(0.0, 0.5, 0.0), 1e-6));
        assert!(half.rotation.angle_between(Quat::from_rotation_z(0.5)) < 1e-5);
        assert!(half.scale.abs_diff_eq(Vec3::splat(1.5), 1e-6));
        assert_eq!(out.weights(), &[0.25]);
        // A uniform weight is the uniform blend.
        let mut uniform = a.clone();
        blend_poses(&a, &b, 0.25, ScaleSpace::Linear, &mut uniform);
        blend_poses_per_node(&a, &b, &[0.25; 10], &mut out);
        assert!(out.nodes().eq(uniform.nodes()));
    }
}
