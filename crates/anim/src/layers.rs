//! Animation layers over a base pose: a per-node weight mask ([`NodeMask`], built from joints
//! and their subtrees and editable per joint), the override job ([`apply_override`]: the
//! per-node blend with the mask as its weights), the additive job ([`apply_additive`]: the
//! layer's difference from a reference pose, composed onto the base in each quantity's own
//! space), and [`LayerStack`], which samples each layer's clip at the base's time, ramps its
//! weight in over time and applies the layers in order. Every per-frame call writes into
//! caller-owned buffers and allocates nothing.

use glam::{Quat, Vec3};
use thiserror::Error;

use crate::clip::Clip;
use crate::hierarchy::Hierarchy;
use crate::ids::{ClipId, NodeId};
use crate::interp::{Easing, slerp};
use crate::model::Model;
use crate::pose::{SoaPose, SoaTransforms, Transform, blend_poses_per_node};
use crate::ragdoll::RagdollRamp;
use crate::sample::{ClipCursor, SampleSettings};

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

/// `pose = blend(pose, layer, wᵢ)` node by node (the override layer): node `i` takes the layer
/// with weight `node_weights[i]` — at 1 exactly the layer's transform, at 0 exactly the
/// base's — rotations slerped, translations and scales lerped ([`blend_poses_per_node`]).
/// `scratch` is a caller-owned pose of the same shape. Allocates nothing.
pub fn apply_override(pose: &mut SoaPose, layer: &SoaPose, node_weights: &[f32], scratch: &mut SoaPose) {
    blend_poses_per_node(pose, layer, node_weights, scratch);
    pose.copy_from(scratch);
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
    let n = pose.len().min(layer.len()).min(reference.len()).min(node_weights.len());
    let inputs = layer.blocks().iter().zip(reference.blocks());
    for (b, (out, (add, from))) in pose.blocks_mut().iter_mut().zip(inputs).enumerate() {
        for lane in 0..8 {
            let i = 8 * b + lane;
            if i >= n {
                return;
            }
            let w = clamp_weight(node_weights[i]);
            if w == 0.0 {
                continue;
            }
            let result = additive(lane_of(out, lane), lane_of(add, lane), lane_of(from, lane), w);
            let t = result.translation.to_array();
            let q = result.rotation.to_array();
            let s = result.scale.to_array();
            for c in 0..3 {
                out.translation[c].0[lane] = t[c];
                out.scale[c].0[lane] = s[c];
            }
            for (plane, value) in out.rotation.iter_mut().zip(q) {
                plane.0[lane] = value;
            }
        }
    }
}

/// The transform in `lane` of a block.
#[inline(always)]
fn lane_of(block: &SoaTransforms, lane: usize) -> Transform {
    let v3 = |p: &[crate::simd8::F8; 3]| Vec3::new(p[0].0[lane], p[1].0[lane], p[2].0[lane]);
    let r = &block.rotation;
    Transform {
        translation: v3(&block.translation),
        rotation: Quat::from_xyzw(r[0].0[lane], r[1].0[lane], r[2].0[lane], r[3].0[lane]),
        scale: v3(&block.scale),
    }
}

/// One node of [`apply_additive`].
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
    /// The additive layer's reference pose (sampled once).
    reference: Option<SoaPose>,
    /// `mask × weight × ramp`, per node, this frame.
    node_weights: Vec<f32>,
}

/// Layers applied in order over a base pose: each layer's clip sampled at the base's time
/// (looped to its length), its weight ramped in over time, then blended (override) or added
/// (additive) with its mask. Built once (it allocates its buffers and samples the additive
/// references); [`Self::advance`] and [`Self::apply`] allocate nothing.
#[derive(Debug, Clone)]
pub struct LayerStack {
    layers: Vec<LayerState>,
    rest: SoaPose,
    scratch: SoaPose,
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
                        AdditiveReference::FirstFrame => (clip, clip.start_secs()),
                        AdditiveReference::AtSecs(t) if !t.is_finite() => {
                            return Err(LayerError::NotFinite { layer, what: "the reference time" });
                        }
                        AdditiveReference::AtSecs(t) => (clip, t.clamp(0.0, clip.end_secs())),
                        AdditiveReference::ClipFirstFrame(other) => {
                            let c = model.clip(other).ok_or(LayerError::UnknownClip { layer, clip: other })?;
                            (c, c.start_secs())
                        }
                    };
                    let mut pose = rest.clone();
                    source.sample(time_secs, &mut ClipCursor::new(source), settings, &mut pose);
                    Some(pose)
                }
            };
            let rate = if desc.ramp_secs > 0.0 { 1.0 / desc.ramp_secs } else { 0.0 };
            states.push(LayerState {
                ramp: RagdollRamp::new(rate, desc.ramp_easing),
                cursor: ClipCursor::new(clip),
                pose: rest.clone(),
                reference,
                node_weights: vec![0.0; nodes],
                desc,
            });
        }
        Ok(Self { layers: states, scratch: rest.clone(), rest })
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
    /// Allocates nothing.
    pub fn apply(&mut self, model: &Model, settings: &SampleSettings, base_time_secs: f32, pose: &mut SoaPose) {
        for index in 0..self.layers.len() {
            let weight = self.effective_weight(index);
            let layer = &mut self.layers[index];
            let Some(clip) = model.clip(layer.desc.clip) else { continue };
            if weight == 0.0 {
                continue;
            }
            let mask = layer.desc.mask.weights();
            for (i, w) in layer.node_weights.iter_mut().enumerate() {
                *w = weight * if mask.is_empty() { 1.0 } else { mask.get(i).copied().unwrap_or(0.0) };
            }
            let time_secs = layer_time(clip, base_time_secs);
            match &layer.reference {
                None => {
                    // Over the base: the nodes the layer does not animate keep the base's.
                    layer.pose.copy_from(pose);
                    clip.sample(time_secs, &mut layer.cursor, settings, &mut layer.pose);
                    apply_override(pose, &layer.pose, &layer.node_weights, &mut self.scratch);
                }
                Some(reference) => {
                    // Over the rest pose, as the reference was: unanimated nodes add nothing.
                    layer.pose.copy_from(&self.rest);
                    clip.sample(time_secs, &mut layer.cursor, settings, &mut layer.pose);
                    apply_additive(pose, &layer.pose, reference, &layer.node_weights);
                }
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
    use super::*;

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
}
