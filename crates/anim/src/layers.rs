//! Animation layers over a base pose: a per-node weight mask ([`NodeMask`], built from joints
//! and their subtrees and editable per joint), the override job ([`apply_override`]: the
//! per-node blend with the mask as its weights), the additive job ([`apply_additive`]: the
//! layer's difference from a reference pose, composed onto the base in each quantity's own
//! space), and [`LayerStack`], which samples each layer's clip at the base's time, ramps its
//! weight in over time and applies the layers in order. Every per-frame call writes into
//! caller-owned buffers and allocates nothing.

use thiserror::Error;

use crate::clip::Clip;
use crate::crossfade::clip_covers_pose;
use crate::hierarchy::Hierarchy;
use crate::ids::{ClipId, NodeId};
use crate::interp::Easing;
use crate::model::Model;
use crate::pose::{SoaPose, SoaTransforms, blend_into_per_node};
use crate::ragdoll::RagdollRamp;
use crate::sample::{ClipCursor, SampleSettings};
use crate::simd8::{F8, Isa, Kernel, V, acos_factor, block_weights, dispatch, sinc_of_square};

/// A weight in `[0, 1]` per node: how much of a layer each node takes. Nodes past its length
/// take 0. Built once (it allocates), read every frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NodeMask {
    weights: Vec<f32>,
}

impl NodeMask {
    /// Every one of `node_count` nodes at weight 1 (a layer over the whole body).
    pub fn all(node_count: usize) -> Self {
        Self { weights: vec![1.0; node_count] }
    }

    /// Every one of `node_count` nodes at weight 0 (paint joints in with [`Self::set`]).
    pub fn none(node_count: usize) -> Self {
        Self { weights: vec![0.0; node_count] }
    }

    /// `roots` and every node below them at weight 1, the rest at 0.
    pub fn from_subtrees(hierarchy: &Hierarchy, roots: &[NodeId]) -> Self {
        let mut mask = Self::none(hierarchy.len());
        for &root in roots {
            mask.set_subtree(hierarchy, root, 1.0);
        }
        mask
    }

    /// Set `root` and every node below it to `weight` (clamped to `[0, 1]`; NaN counts as 0). A
    /// node outside the mask is ignored.
    pub fn set_subtree(&mut self, hierarchy: &Hierarchy, root: NodeId, weight: f32) {
        // Parents come first in `order`, so one pass finds every descendant.
        let mut inside = vec![false; self.weights.len()];
        for &node in hierarchy.order() {
            let i = node.index();
            let below = node == root || hierarchy.parent(node).is_some_and(|p| inside.get(p.index()) == Some(&true));
            if below && i < inside.len() {
                inside[i] = true;
                self.weights[i] = clamp_weight(weight);
            }
        }
    }

    /// Set one node's weight (clamped to `[0, 1]`; NaN counts as 0); a node outside the mask is
    /// ignored.
    pub fn set(&mut self, node: NodeId, weight: f32) {
        if let Some(w) = self.weights.get_mut(node.index()) {
            *w = clamp_weight(weight);
        }
    }

    /// The weight of `node` (0 outside the mask).
    pub fn get(&self, node: NodeId) -> f32 {
        self.weights.get(node.index()).copied().unwrap_or(0.0)
    }

    /// The weights, in node order.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    /// True for a mask of no nodes.
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }

    /// Nodes with a weight above 0.
    pub fn count_on(&self) -> usize {
        self.weights.iter().filter(|&&w| w > 0.0).count()
    }
}

/// `w` clamped to `[0, 1]`, NaN as 0.
fn clamp_weight(w: f32) -> f32 {
    if w > 0.0 { w.min(1.0) } else { 0.0 }
}

/// `pose = blend(pose, layer, wᵢ)` node by node, in place (the override layer): node `i` takes
/// the layer with weight `node_weights[i]` — at 1 exactly the layer's transform, at 0 exactly
/// the base's — rotations slerped, translations and scales lerped ([`blend_into_per_node`]).
/// Allocates nothing.
pub fn apply_override(pose: &mut SoaPose, layer: &SoaPose, node_weights: &[f32]) {
    blend_into_per_node(pose, layer, node_weights);
}

/// Add the layer's difference from `reference` onto `pose` (the additive layer), node `i` at
/// weight `node_weights[i]` (clamped to `[0, 1]`; nodes past the slice take 0):
///
/// * rotation: `delta = reference⁻¹ · layer`, applied as `base · slerp(identity, delta, w)`;
/// * scale: multiplied, in log space: `base · exp(w · (ln layer − ln reference))` (component
///   by component; a component that is not positive in either pose is left as the base's);
/// * translation: added, `base + w · (layer − reference)`.
///
/// Where the layer equals its reference the base is unchanged (to rounding). Morph weights
/// are the base's. All three poses must have the same node count. Allocates nothing.
pub fn apply_additive(pose: &mut SoaPose, layer: &SoaPose, reference: &SoaPose, node_weights: &[f32]) {
    dispatch(Additive { pose, layer, reference, node_weights });
}

/// The [`apply_additive`] kernel: eight nodes per step, every quantity in lanes.
struct Additive<'a> {
    pose: &'a mut SoaPose,
    layer: &'a SoaPose,
    reference: &'a SoaPose,
    node_weights: &'a [f32],
}

/// Blocks of [`apply_additive`] worked on together, one step at a time: each step's blocks are
/// independent of one another, so the CPU overlaps their chains of dependent operations (a
/// block's turn, worked out alone, is one long chain that leaves most execution units idle).
const ADDITIVE_GROUP: usize = 4;

impl Kernel for Additive<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { pose, layer, reference, node_weights } = self;
        let n = pose.len().min(layer.len()).min(reference.len()).min(node_weights.len());
        let node_weights = &node_weights[..n];
        let (layer, reference) = (layer.blocks(), reference.blocks());
        let out = pose.blocks_mut();
        let groups =
            out.chunks_mut(ADDITIVE_GROUP).zip(layer.chunks(ADDITIVE_GROUP)).zip(reference.chunks(ADDITIVE_GROUP));
        for (g, ((out, layer), reference)) in groups.enumerate() {
            // Per block: (weights, lanes at 0, lanes at 1); blocks past the group's end at 0.
            let mut weights = [(F8::ZERO, 0xff_u8, 0_u8); ADDITIVE_GROUP];
            let mut turns = [[F8::ZERO; 4]; ADDITIVE_GROUP];
            for (i, ((w, turn), (layer, reference))) in
                weights.iter_mut().zip(&mut turns).zip(layer.iter().zip(reference)).enumerate()
            {
                *w = block_weights(isa, node_weights, g * ADDITIVE_GROUP + i);
                if w.1 != 0xff {
                    *turn = delta_block(isa, &layer.rotation, &reference.rotation);
                }
            }
            for (&(w, none, all), turn) in weights.iter().zip(&mut turns) {
                if all == 0xff {
                    *turn = hemisphere_block(isa, turn);
                } else if none != 0xff {
                    *turn = turn_block(isa, turn, &w, all);
                }
            }
            // In place: each plane of the base is read before it is written (no copy of the
            // block); lanes at weight 0 keep the base's exactly.
            for (o, (&(_, none, _), turn)) in out.iter_mut().zip(weights.iter().zip(&turns)) {
                if none == 0xff {
                    continue;
                }
                let mut rotation = compose_block(isa, &o.rotation, turn);
                if none != 0 {
                    for (plane, kept) in rotation.iter_mut().zip(&o.rotation) {
                        *plane = kept.select_bits(*plane, none);
                    }
                }
                o.rotation = rotation;
            }
            for (o, (&(w, none, all), (layer, reference))) in
                out.iter_mut().zip(weights.iter().zip(layer.iter().zip(reference)))
            {
                if none != 0xff {
                    translate_and_scale_block(isa, layer, reference, &w, all, none, o);
                }
            }
        }
    }
}

/// `delta = reference⁻¹ · layer` on one block. Not normalized: the product of two unit
/// quaternions is one to rounding, and [`compose_block`] normalizes what it is composed into.
#[inline(always)]
fn delta_block<I: Isa>(isa: I, layer: &[F8; 4], reference: &[F8; 4]) -> [F8; 4] {
    let load = |x: &F8| V::load(isa, x);
    // (No `array::map` here: its closures are not inlined into the AVX2 function.)
    let [lx, ly, lz, lw] = layer;
    let (lx, ly, lz, lw) = (load(lx), load(ly), load(lz), load(lw));
    let [rx, ry, rz, rw] = reference;
    let (rx, ry, rz, rw) = (load(rx), load(ry), load(rz), load(rw));
    let dw = rw.madd(lw, rz.madd(lz, ry.madd(ly, rx * lx)));
    let dx = rw.madd(lx, rz.madd(ly, -(lw * rx) - ry * lz));
    let dy = rw.madd(ly, rx.madd(lz, -(lw * ry) - rz * lx));
    let dz = rw.madd(lz, ry.madd(lx, -(lw * rz) - rx * ly));
    [dx.store(), dy.store(), dz.store(), dw.store()]
}

/// `delta` on its `w ≥ 0` hemisphere (the whole delta, what the lanes at weight 1 take).
#[inline(always)]
fn hemisphere_block<I: Isa>(isa: I, delta: &[F8; 4]) -> [F8; 4] {
    let load = |x: &F8| V::load(isa, x);
    let dw = load(&delta[3]);
    [
        load(&delta[0]).flip_sign_by(dw).store(),
        load(&delta[1]).flip_sign_by(dw).store(),
        load(&delta[2]).flip_sign_by(dw).store(),
        dw.abs().store(),
    ]
}

/// The turn of one block of [`apply_additive`] from its `delta` ([`delta_block`]):
/// `slerp(1, delta, w)` per lane, up to a positive factor per lane (what [`compose_block`]
/// normalizes away; `all`: the lanes at weight 1, which take the whole delta as the scalar
/// definition does).
#[inline(always)]
fn turn_block<I: Isa>(isa: I, delta: &[F8; 4], w: &F8, all: u8) -> [F8; 4] {
    let load = |x: &F8| V::load(isa, x);
    let one = V::splat(isa, 1.0);
    let [dx, dy, dz, dw] = delta;
    let (dx, dy, dz, dw) = (load(dx), load(dy), load(dz), load(dw));
    // `slerp(1, delta, w) = k·((1−w)·sinc((1−w)Ω) + delta·w·sinc(wΩ))` with Ω = acos(delta.w)
    // ≤ π/2 and k = Ω / sin Ω ≥ 1, as `blend_poses` computes it, less its factor k: the turn
    // is only ever composed by `compose_block`, which normalizes the product. The sincs take
    // only Ω², which is `(1 − d)·P(d)²` (`acos_factor`): no square root.
    let take = load(w);
    let keep = one - take;
    // On the delta's `w ≥ 0` hemisphere: Ω from `|delta.w|`, the delta's part of the turn
    // negated where `delta.w` is negative.
    let d = dw.abs().min(one);
    let p = acos_factor(d);
    let omega_squared = (one - d) * p * p;
    let wa = keep * sinc_of_square((keep * keep) * omega_squared);
    let wb = (take * sinc_of_square((take * take) * omega_squared)).flip_sign_by(dw);
    let turn = [(dx * wb).store(), (dy * wb).store(), (dz * wb).store(), dw.madd(wb, wa).store()];
    if all == 0 {
        return turn;
    }
    let whole = hemisphere_block(isa, delta);
    [0, 1, 2, 3].map(|c| whole[c].select_bits(turn[c], all))
}

/// `base · turn`, normalized, on one block.
#[inline(always)]
fn compose_block<I: Isa>(isa: I, base: &[F8; 4], turn: &[F8; 4]) -> [F8; 4] {
    let load = |x: &F8| V::load(isa, x);
    let [bx, by, bz, bw] = base;
    let (bx, by, bz, bw) = (load(bx), load(by), load(bz), load(bw));
    let [tx, ty, tz, tw] = turn;
    let (tx, ty, tz, tw) = (load(tx), load(ty), load(tz), load(tw));
    let qw = bw.madd(tw, -(bx * tx) - by * ty - bz * tz);
    let qx = bw.madd(tx, bx.madd(tw, by * tz - bz * ty));
    let qy = bw.madd(ty, by.madd(tw, bz * tx - bx * tz));
    let qz = bw.madd(tz, bz.madd(tw, bx * ty - by * tx));
    let norm = qw.madd(qw, qz.madd(qz, qy.madd(qy, qx * qx))).max(V::splat(isa, 1e-30)).rsqrt();
    [(qx * norm).store(), (qy * norm).store(), (qz * norm).store(), (qw * norm).store()]
}

/// Translations and scales of one block of [`apply_additive`], in place on `out` (`all`: the
/// lanes at weight 1, which take the whole scale ratio as the scalar definition does; `none`:
/// the lanes at weight 0, left as they are).
#[inline(always)]
fn translate_and_scale_block<I: Isa>(
    isa: I,
    layer: &SoaTransforms,
    reference: &SoaTransforms,
    w: &F8,
    all: u8,
    none: u8,
    out: &mut SoaTransforms,
) {
    let load = |x: &F8| V::load(isa, x);
    let take = load(w);
    let (zero, one) = (V::splat(isa, 0.0), V::splat(isa, 1.0));
    for c in 0..3 {
        let difference = load(&layer.translation[c]) - load(&reference.translation[c]);
        let moved = difference.madd(take, load(&out.translation[c])).store();
        out.translation[c] = if none == 0 { moved } else { out.translation[c].select_bits(moved, none) };
    }

    // Scale: base · exp(w · ln(layer / reference)), the whole ratio at weight 1; 1 where either
    // scale is not a positive finite number. Nothing to do where the layer's scales are the
    // reference's (most rigs do not animate scale).
    let mut apart = (load(&layer.scale[0]) - load(&reference.scale[0])).abs();
    for c in 1..3 {
        apart = apart + (load(&layer.scale[c]) - load(&reference.scale[c])).abs();
    }
    if apart.eq_bits(zero) == 0xff {
        return;
    }
    let infinity = V::splat(isa, f32::INFINITY);
    // `ln(l / r) = 2·atanh(s)` with `s = (l − r) / (l + r)`: where every lane's `|s|` is within
    // NEAR_ONE (ratios from 0.75 to 1.33: scale keys a few percent apart, what animated scales
    // are), a short series for atanh and one for exp in place of the general `ln` and `exp`.
    // (No closures or `array::map` here: they are not inlined into the AVX2 function.)
    let mut halves = [zero; 3];
    for (c, half) in halves.iter_mut().enumerate() {
        let (l, r) = (load(&layer.scale[c]), load(&reference.scale[c]));
        *half = (l - r).div(l + r);
    }
    let limit = V::splat(isa, NEAR_ONE);
    let off = halves[0].abs().max(halves[1].abs()).max(halves[2].abs());
    if all == 0 {
        // The usual block: no lane at weight 1, every `|s|` within the limit (a NaN `s` is not:
        // `max` gives its second operand for NaN) and the layer's scales not negative. Then both
        // scales are positive and finite in every lane (a zero or infinite one gives `|s| = 1`
        // or NaN), so no lane needs the check for them below.
        let smallest = load(&layer.scale[0]).min(load(&layer.scale[1])).min(load(&layer.scale[2]));
        if limit.max(off).eq_bits(limit) == 0xff && smallest.max(zero).eq_bits(smallest) == 0xff {
            let twice = take + take;
            for (c, &half) in halves.iter().enumerate() {
                let factor = exp_near_zero(isa, twice_atanh_near_zero(isa, twice, half));
                let scaled = (load(&out.scale[c]) * factor).store();
                out.scale[c] = if none == 0 { scaled } else { out.scale[c].select_bits(scaled, none) };
            }
            return;
        }
    }
    // Every lane at or below the limit (a NaN lane counts as inside: it is set to 1 below).
    let near_one = all != 0xff && off.max(limit).eq_bits(limit) == 0xff;
    for (c, &half) in halves.iter().enumerate() {
        let (l, r) = (load(&layer.scale[c]), load(&reference.scale[c]));
        let factor = if all == 0xff {
            l.div(r)
        } else {
            let power = if near_one {
                exp_near_zero(isa, twice_atanh_near_zero(isa, take + take, half))
            } else {
                crate::simd8::exp(take * crate::simd8::ln(l.div(r)))
            };
            if all == 0 { power } else { load(&l.div(r).store().select_bits(power.store(), all)) }
        };
        let factor = factor.where_inside(l, zero, infinity, one).where_inside(r, zero, infinity, one);
        let scaled = (load(&out.scale[c]) * factor).store();
        out.scale[c] = if none == 0 { scaled } else { out.scale[c].select_bits(scaled, none) };
    }
}

/// How far from 0 `s = (l − r) / (l + r)` may be in every lane of a block for
/// [`twice_atanh_near_zero`] (scale ratios `l / r` from 0.75 to 1.33).
const NEAR_ONE: f32 = 1.0 / 7.0;

/// `atanh(s) = s·(1 + s²·R(s²))` for `|s| ≤` [`NEAR_ONE`]: `R` the minimax line for
/// `(atanh(s)/s − 1)/s²` over `s² ≤ 1/49` (the sum is within 2.3e-8 of atanh; its Taylor series
/// needs `s⁷` for as much).
const ATANH_NEAR_ZERO: [f32; 2] = [0.333_325_7, 0.202_962_52];

/// `eʸ = 1 + y·Q(y)` for `|y| ≤ 2·atanh(NEAR_ONE) = ln(4/3)`: `Q` the minimax quartic for
/// `(eʸ − 1)/y` over that range, highest power first (relative error of the sum below 7e-8; the
/// Taylor series needs `y⁷` for as much).
const EXP_NEAR_ZERO: [f32; 5] = [0.008_362_113_5, 0.041_810_572, 0.166_665_55, 0.499_997_02, 1.0];

/// `twice · atanh(s)` for `|s| ≤` [`NEAR_ONE`] ([`ATANH_NEAR_ZERO`]; `s = 0` gives exactly 0).
#[inline(always)]
fn twice_atanh_near_zero<I: Isa>(isa: I, twice: V<I>, s: V<I>) -> V<I> {
    let s2 = s * s;
    let r = V::splat(isa, ATANH_NEAR_ZERO[1]).madd(s2, V::splat(isa, ATANH_NEAR_ZERO[0]));
    (twice * s) * r.madd(s2, V::splat(isa, 1.0))
}

/// `eʸ` for `|y| ≤ ln(4/3)` (below 0.288) ([`EXP_NEAR_ZERO`]; `y = 0` gives exactly 1).
#[inline(always)]
fn exp_near_zero<I: Isa>(isa: I, y: V<I>) -> V<I> {
    let mut p = V::splat(isa, EXP_NEAR_ZERO[0]);
    for coefficient in &EXP_NEAR_ZERO[1..] {
        p = p.madd(y, V::splat(isa, *coefficient));
    }
    p.madd(y, V::splat(isa, 1.0))
}

/// The pose an additive layer is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AdditiveReference {
    /// The layer clip's first frame (its start time).
    #[default]
    FirstFrame,
    /// The layer clip at this time (seconds, clamped to the clip).
    AtSecs(f32),
    /// Another clip's first frame (a pose clip, an idle).
    ClipFirstFrame(ClipId),
}

/// How a layer combines with what is under it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum LayerBlend {
    /// The layer's transforms replace the base's, by the mask's weights.
    #[default]
    Override,
    /// The layer's difference from a reference pose is added to the base.
    Additive(AdditiveReference),
}

/// What one layer is: its clip, how it blends, its mask, weight and weight ramp.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerDesc {
    /// The layer's clip; it plays at the base's time, looped to its own length.
    pub clip: ClipId,
    /// Override or additive.
    pub blend: LayerBlend,
    /// Per-node weights; an empty mask is the whole body.
    pub mask: NodeMask,
    /// The layer's weight in `[0, 1]` (multiplies the mask).
    pub weight: f32,
    /// Seconds the weight takes to ramp in from 0 (0: at once).
    pub ramp_secs: f32,
    /// Easing of the ramp.
    pub ramp_easing: Easing,
}

impl LayerDesc {
    /// A whole-body override layer of `clip` at weight 1, no ramp.
    pub fn new(clip: ClipId) -> Self {
        Self {
            clip,
            blend: LayerBlend::Override,
            mask: NodeMask::default(),
            weight: 1.0,
            ramp_secs: 0.0,
            ramp_easing: Easing::Linear,
        }
    }
}

/// A layer stack that cannot be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum LayerError {
    /// A layer names a clip the model does not have.
    #[error("layer {layer}: the model has no clip {clip}")]
    UnknownClip {
        /// Layer index.
        layer: usize,
        /// The clip asked for.
        clip: ClipId,
    },
    /// A mask of another node count than the model's.
    #[error("layer {layer}: its mask has {mask} nodes, the model {nodes}")]
    MaskSize {
        /// Layer index.
        layer: usize,
        /// Nodes in the mask.
        mask: usize,
        /// Nodes in the model.
        nodes: usize,
    },
    /// A weight, ramp or reference time that is not a finite number.
    #[error("layer {layer}: {what} is not a finite number")]
    NotFinite {
        /// Layer index.
        layer: usize,
        /// Which value.
        what: &'static str,
    },
}

/// One layer's state: its description and buffers.
#[derive(Debug, Clone)]
struct LayerState {
    desc: LayerDesc,
    ramp: RagdollRamp,
    cursor: ClipCursor,
    pose: SoaPose,
    /// The additive layer's reference pose: sampled at construction, again only when the
    /// settings [`LayerStack::apply`] is given change.
    reference: Option<Reference>,
    /// Sampling the clip overwrites every node's translation, rotation and scale, so the layer
    /// pose needs no reset (to the base or the rest pose) before it is sampled.
    covers_pose: bool,
    /// The clip time `pose` was sampled at in this [`LayerStack::apply`] (NaN: not sampled).
    sampled_secs: f32,
    /// `mask × weight × ramp`, per node, this frame.
    node_weights: Vec<f32>,
    /// The weight `node_weights` holds the mask times (NaN: none yet): the mask does not change
    /// after the stack is built, so a frame at the same weight leaves them as they are.
    node_weights_for: f32,
}

/// An additive layer's reference pose and what it was sampled from.
#[derive(Debug, Clone)]
struct Reference {
    pose: SoaPose,
    clip: ClipId,
    time_secs: f32,
    settings: SampleSettings,
}

impl Reference {
    /// `clip` at `time_secs` over `rest` with `settings`.
    fn sample(model: &Model, clip: ClipId, time_secs: f32, settings: &SampleSettings, rest: &SoaPose) -> Self {
        let mut reference = Self { pose: rest.clone(), clip, time_secs, settings: settings.clone() };
        reference.resample(model, rest);
        reference
    }

    /// Sample it again (after a change of settings) into its own pose.
    fn resample(&mut self, model: &Model, rest: &SoaPose) {
        self.pose.copy_from(rest);
        if let Some(clip) = model.clip(self.clip) {
            clip.sample(self.time_secs, &mut ClipCursor::new(clip), &self.settings, &mut self.pose);
        }
    }
}

/// Layers applied in order over a base pose: each layer's clip sampled at the base's time
/// (looped to its length), its weight ramped in over time, then blended (override) or added
/// (additive) with its mask. Built once (it allocates its buffers and samples the additive
/// references); [`Self::advance`] and [`Self::apply`] allocate nothing.
#[derive(Debug, Clone)]
pub struct LayerStack {
    layers: Vec<LayerState>,
    rest: SoaPose,
}

impl LayerStack {
    /// Build the stack of `layers` over `model`, references sampled with `settings`.
    ///
    /// # Errors
    /// An unknown clip (layer or reference), a mask of the wrong size, a non-finite weight,
    /// ramp or reference time.
    pub fn new(model: &Model, settings: &SampleSettings, layers: Vec<LayerDesc>) -> Result<Self, LayerError> {
        let rest = model.rest_pose();
        let nodes = model.nodes.len();
        let mut states = Vec::with_capacity(layers.len());
        for (layer, desc) in layers.into_iter().enumerate() {
            let clip = model.clip(desc.clip).ok_or(LayerError::UnknownClip { layer, clip: desc.clip })?;
            if !desc.mask.is_empty() && desc.mask.len() != nodes {
                return Err(LayerError::MaskSize { layer, mask: desc.mask.len(), nodes });
            }
            if !desc.weight.is_finite() {
                return Err(LayerError::NotFinite { layer, what: "the weight" });
            }
            if !desc.ramp_secs.is_finite() {
                return Err(LayerError::NotFinite { layer, what: "the ramp" });
            }
            let reference = match desc.blend {
                LayerBlend::Override => None,
                LayerBlend::Additive(reference) => {
                    let (source, time_secs) = match reference {
                        AdditiveReference::FirstFrame => (desc.clip, clip.start_secs()),
                        AdditiveReference::AtSecs(t) if !t.is_finite() => {
                            return Err(LayerError::NotFinite { layer, what: "the reference time" });
                        }
                        AdditiveReference::AtSecs(t) => (desc.clip, t.clamp(0.0, clip.end_secs())),
                        AdditiveReference::ClipFirstFrame(other) => {
                            let c = model.clip(other).ok_or(LayerError::UnknownClip { layer, clip: other })?;
                            (other, c.start_secs())
                        }
                    };
                    Some(Reference::sample(model, source, time_secs, settings, &rest))
                }
            };
            let rate = if desc.ramp_secs > 0.0 { 1.0 / desc.ramp_secs } else { 0.0 };
            states.push(LayerState {
                ramp: RagdollRamp::new(rate, desc.ramp_easing),
                cursor: ClipCursor::new(clip),
                pose: rest.clone(),
                reference,
                covers_pose: clip_covers_pose(model, clip),
                sampled_secs: f32::NAN,
                node_weights: vec![0.0; nodes],
                node_weights_for: f32::NAN,
                desc,
            });
        }
        Ok(Self { layers: states, rest })
    }

    /// The layers' descriptions, in order.
    pub fn descs(&self) -> impl ExactSizeIterator<Item = &LayerDesc> {
        self.layers.iter().map(|l| &l.desc)
    }

    /// Number of layers.
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// True without layers.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// Advance every layer's weight ramp by `dt_secs`.
    pub fn advance(&mut self, dt_secs: f32) {
        for layer in &mut self.layers {
            layer.ramp.advance(dt_secs);
        }
    }

    /// Restart every ramp from 0.
    pub fn restart_ramps(&mut self) {
        for layer in &mut self.layers {
            layer.ramp.reset();
        }
    }

    /// Set layer `index`'s weight (clamped to `[0, 1]`; NaN as 0); an unknown index is ignored.
    pub fn set_weight(&mut self, index: usize, weight: f32) {
        if let Some(layer) = self.layers.get_mut(index) {
            layer.desc.weight = clamp_weight(weight);
        }
    }

    /// Layer `index`'s weight now: its weight times its eased ramp (0 for an unknown index).
    pub fn effective_weight(&self, index: usize) -> f32 {
        self.layers.get(index).map_or(0.0, |l| clamp_weight(l.desc.weight) * l.ramp.weight())
    }

    /// Apply the layers in order onto `pose` (the base, sampled at `base_time_secs`), each
    /// layer's clip sampled at the base's time looped to its own length with `settings`.
    /// Allocates nothing while `settings` stay what the stack was built (or last applied) with;
    /// a change of settings samples the additive references again.
    pub fn apply(&mut self, model: &Model, settings: &SampleSettings, base_time_secs: f32, pose: &mut SoaPose) {
        let Self { layers, rest } = self;
        for layer in layers.iter_mut() {
            layer.sampled_secs = f32::NAN;
        }
        for index in 0..layers.len() {
            let (earlier, later) = layers.split_at_mut(index);
            let Some(layer) = later.first_mut() else { break };
            let weight = clamp_weight(layer.desc.weight) * layer.ramp.weight();
            let Some(clip) = model.clip(layer.desc.clip) else { continue };
            if weight == 0.0 {
                continue;
            }
            // The mask times the weight (no mask: the whole body); nodes past the mask take 0.
            // Whole slices, so the loop runs eight lanes at a time.
            let mask = layer.desc.mask.weights();
            if layer.node_weights_for == weight {
                // Filled for this weight already.
            } else if mask.is_empty() {
                layer.node_weights.fill(weight);
            } else {
                let masked = mask.len().min(layer.node_weights.len());
                let (inside, past) = layer.node_weights.split_at_mut(masked);
                for (w, &m) in inside.iter_mut().zip(&mask[..masked]) {
                    *w = weight * m;
                }
                past.fill(0.0);
            }
            layer.node_weights_for = weight;
            let time_secs = layer_time(clip, base_time_secs);
            if let Some(reference) = &mut layer.reference
                && reference.settings != *settings
            {
                reference.settings.clone_from(settings);
                reference.resample(model, rest);
            }
            // A clip that overwrites the whole pose, already sampled at this time this frame by
            // an earlier layer: the same pose, not sampled again.
            let shared = earlier
                .iter()
                .find(|e| layer.covers_pose && e.desc.clip == layer.desc.clip && e.sampled_secs == time_secs);
            let sampled = match shared {
                Some(earlier) => &earlier.pose,
                None => {
                    if !layer.covers_pose {
                        // An override over the base (the nodes the layer does not animate keep
                        // the base's), an additive over the rest pose as its reference was
                        // (unanimated nodes add nothing).
                        layer.pose.copy_from(if layer.reference.is_none() { pose } else { rest });
                    }
                    clip.sample(time_secs, &mut layer.cursor, settings, &mut layer.pose);
                    layer.sampled_secs = time_secs;
                    &layer.pose
                }
            };
            match &layer.reference {
                None => apply_override(pose, sampled, &layer.node_weights),
                Some(reference) => apply_additive(pose, sampled, &reference.pose, &layer.node_weights),
            }
        }
    }

    /// Layer `index`'s mask times its weight this frame (what [`Self::apply`] last used), for a
    /// heat display; `None` for an unknown index.
    pub fn node_weights(&self, index: usize) -> Option<&[f32]> {
        self.layers.get(index).map(|l| l.node_weights.as_slice())
    }
}

/// The layer clip's time for the base's `base_time_secs`: looped to the clip's length.
pub fn layer_time(clip: &Clip, base_time_secs: f32) -> f32 {
    clip.wrap_time(base_time_secs)
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

    use super::*;
    use crate::interp::slerp;
    use crate::pose::Transform;
    use crate::simd8::each_isa;

    /// One node of [`apply_additive`] in scalar code: the definition the kernel is tested against.
    fn additive(base: Transform, layer: Transform, reference: Transform, w: f32) -> Transform {
        let mut delta = (reference.rotation.conjugate() * layer.rotation).normalize();
        if delta.w < 0.0 {
            delta = -delta;
        }
        let turn = if w == 1.0 { delta } else { slerp(Quat::IDENTITY, delta, w) };
        let rotation = (base.rotation * turn).normalize();
        // `exp(w · ln(l / r))`: exactly `l / r` at full weight, nothing where the scales agree.
        let ratio = |b: f32, l: f32, r: f32| {
            if l == r || !(l > 0.0 && r > 0.0 && l.is_finite() && r.is_finite()) {
                b
            } else if w == 1.0 {
                b * (l / r)
            } else {
                b * (w * (l / r).ln()).exp()
            }
        };
        let scale = Vec3::new(
            ratio(base.scale.x, layer.scale.x, reference.scale.x),
            ratio(base.scale.y, layer.scale.y, reference.scale.y),
            ratio(base.scale.z, layer.scale.z, reference.scale.z),
        );
        let translation = base.translation + w * (layer.translation - reference.translation);
        Transform { translation, rotation, scale }
    }

    fn id(i: usize) -> NodeId {
        NodeId::from_index(i)
    }

    #[test]
    fn subtree_masks_follow_the_hierarchy() {
        // 0 → 1 → 2, 0 → 3 → 4
        let h = Hierarchy::from_children(&[vec![1, 3], vec![2], vec![], vec![4], vec![]]).unwrap();
        let mask = NodeMask::from_subtrees(&h, &[id(3)]);
        assert_eq!(mask.weights(), &[0.0, 0.0, 0.0, 1.0, 1.0]);
        let mut mask = NodeMask::from_subtrees(&h, &[id(1), id(4)]);
        assert_eq!(mask.weights(), &[0.0, 1.0, 1.0, 0.0, 1.0]);
        mask.set(id(2), 0.25);
        mask.set(id(0), f32::NAN);
        mask.set(id(9), 1.0);
        assert_eq!(mask.weights(), &[0.0, 1.0, 0.25, 0.0, 1.0]);
        assert_eq!(mask.count_on(), 3);
    }

    #[test]
    fn additive_composes_each_quantity_in_its_own_space() {
        let base = Transform {
            translation: Vec3::new(1.0, 2.0, 3.0),
            rotation: Quat::from_rotation_y(0.4),
            scale: Vec3::splat(2.0),
        };
        let reference = Transform {
            translation: Vec3::new(0.5, 0.0, 0.0),
            rotation: Quat::from_rotation_x(0.3),
            scale: Vec3::new(1.0, 2.0, 1.0),
        };
        let layer = Transform {
            translation: Vec3::new(0.5, 1.0, 0.0),
            rotation: Quat::from_rotation_x(0.3) * Quat::from_rotation_z(0.6),
            scale: Vec3::new(4.0, 2.0, 1.0),
        };
        let full = additive(base, layer, reference, 1.0);
        assert!(full.translation.abs_diff_eq(Vec3::new(1.0, 3.0, 3.0), 1e-6));
        assert!(full.rotation.angle_between(Quat::from_rotation_y(0.4) * Quat::from_rotation_z(0.6)) < 1e-5);
        assert!(full.scale.abs_diff_eq(Vec3::new(8.0, 2.0, 2.0), 1e-5));
        let half = additive(base, layer, reference, 0.5);
        assert!(half.translation.abs_diff_eq(Vec3::new(1.0, 2.5, 3.0), 1e-6));
        assert!(half.rotation.angle_between(Quat::from_rotation_y(0.4) * Quat::from_rotation_z(0.3)) < 1e-5);
        // Scale ×4 at half weight is ×2 (log space), not ×2.5 (linear).
        assert!(half.scale.abs_diff_eq(Vec3::new(4.0, 2.0, 2.0), 1e-5));
        // The layer at its reference changes nothing.
        let same = additive(base, reference, reference, 1.0);
        assert!(same.translation.abs_diff_eq(base.translation, 1e-6));
        assert!(same.rotation.angle_between(base.rotation) < 1e-6);
        assert!(same.scale.abs_diff_eq(base.scale, 1e-6));
    }

    /// The angle between two rotations in radians, in f64 (`Quat::angle_between`'s f32 arc
    /// cosine cannot tell apart rotations closer than about 1e-3 rad).
    fn angle_between(a: Quat, b: Quat) -> f32 {
        let relative = a.as_dquat().conjugate() * b.as_dquat();
        (2.0 * relative.xyz().length().atan2(relative.w.abs())) as f32
    }

    /// [`apply_additive`]'s kernel on owned poses, for each instruction set.
    #[derive(Clone)]
    struct AdditiveOn(SoaPose, SoaPose, SoaPose, Vec<f32>);

    impl Kernel for AdditiveOn {
        type Output = SoaPose;
        #[inline(always)]
        fn run<I: Isa>(self, isa: I) -> SoaPose {
            let Self(mut pose, layer, reference, node_weights) = self;
            Additive { pose: &mut pose, layer: &layer, reference: &reference, node_weights: &node_weights }.run(isa);
            pose
        }
    }

    /// Scales in `[lo, hi)`.
    fn random_pose(rng: &mut crate::rng::Rng, nodes: usize, (lo, hi): (f32, f32)) -> SoaPose {
        let transforms: Vec<Transform> = (0..nodes)
            .map(|_| Transform {
                translation: rng.vec3(-2.0, 2.0),
                rotation: rng.quat(),
                scale: Vec3::new(rng.range(lo, hi), rng.range(lo, hi), rng.range(lo, hi)),
            })
            .collect();
        SoaPose::from_transforms(&transforms, Vec::new())
    }

    #[test]
    fn the_additive_kernel_matches_the_scalar_definition_on_every_isa() {
        let mut rng = crate::rng::Rng::new(24);
        let nodes = 21;
        let (mut angle, mut translation, mut scale) = (0.0f32, 0.0f32, 0.0f32);
        let mut runs = 0;
        for round in 0..300 {
            // Scales far apart (the general ln and exp), within 10% of 1 (the short series), and
            // up to the short series' edge (ratios from 0.76 to 1.32 against 0.75 to 1.33).
            let scales = match round % 3 {
                0 => (0.2, 3.0),
                1 => (0.9, 1.1),
                _ => (0.87, 1.15),
            };
            let (base, layer, reference) = (
                random_pose(&mut rng, nodes, scales),
                random_pose(&mut rng, nodes, scales),
                random_pose(&mut rng, nodes, scales),
            );
            // Weights 0 and 1 exactly, fractions, out of range, NaN, mixed in every block; then
            // whole blocks of fractions only, of one weight and at weight 1 (the kernel's paths
            // for blocks without lanes at 0 or 1, and for blocks all at 1); one node short.
            let weights: Vec<f32> = (0..nodes - 1)
                .map(|i| match round % 4 {
                    0 | 1 => match (i + round) % 7 {
                        0 => 0.0,
                        1 => 1.0,
                        2 => 1.7,
                        3 => f32::NAN,
                        _ => rng.unit(),
                    },
                    2 => rng.range(0.01, 0.99),
                    _ if round % 8 == 3 => 0.37,
                    _ => 1.0,
                })
                .collect();
            for (name, got) in each_isa(&AdditiveOn(base.clone(), layer.clone(), reference.clone(), weights.clone())) {
                runs += 1;
                for (node, out) in got.nodes() {
                    let i = node.index();
                    let w = clamp_weight(weights.get(i).copied().unwrap_or(0.0));
                    let b = base.transform(node);
                    if w == 0.0 {
                        assert_eq!(out, b, "{name}: node {i} at weight 0 must keep the base exactly");
                        continue;
                    }
                    let expected = additive(b, layer.transform(node), reference.transform(node), w);
                    angle = angle.max(angle_between(out.rotation, expected.rotation));
                    translation = translation.max((out.translation - expected.translation).abs().max_element());
                    let relative = (out.scale - expected.scale).abs() / expected.scale.abs();
                    scale = scale.max(relative.max_element());
                }
            }
        }
        eprintln!("kernel vs scalar: angle {angle:e} rad, translation {translation:e}, scale {scale:e}");
        assert!(runs >= 300);
        assert!(angle < 1e-6, "rotation differs from the scalar definition by {angle:e} rad");
        assert!(translation < 2e-6, "translation differs by {translation:e}");
        assert!(scale < 1e-6, "scale differs by a relative {scale:e}");
    }

    #[test]
    fn lane_ln_and_exp_are_accurate_and_exact_at_the_identity() {
        #[derive(Clone)]
        struct LnExp(F8, F8);
        impl Kernel for LnExp {
            type Output = (F8, F8);
            #[inline(always)]
            fn run<I: Isa>(self, isa: I) -> (F8, F8) {
                (crate::simd8::ln(V::load(isa, &self.0)).store(), crate::simd8::exp(V::load(isa, &self.1)).store())
            }
        }
        let (mut ln_error, mut exp_error) = (0.0f64, 0.0f64);
        for step in 0..4000 {
            let xs = F8(std::array::from_fn(|l| 1e-3 * 1.0037f32.powi((step * 8 + l) as i32)));
            let ys = F8(std::array::from_fn(|l| -20.0 + (step * 8 + l) as f32 * 40.0 / 32000.0));
            for (name, (ln, exp)) in each_isa(&LnExp(xs, ys)) {
                for l in 0..8 {
                    let x = f64::from(xs.0[l]);
                    ln_error = ln_error.max((f64::from(ln.0[l]) - x.ln()).abs() / x.ln().abs().max(1.0));
                    let exact = f64::from(ys.0[l]).exp();
                    exp_error = exp_error.max(((f64::from(exp.0[l]) - exact) / exact).abs());
                }
                assert!(ln_error < 3e-7, "{name}: ln error {ln_error:e}");
                assert!(exp_error < 5e-7, "{name}: exp relative error {exp_error:e}");
            }
        }
        for (name, (ln, exp)) in each_isa(&LnExp(F8::ONE, F8::ZERO)) {
            assert_eq!((ln, exp), (F8::ZERO, F8::ONE), "{name}");
        }
    }
}
