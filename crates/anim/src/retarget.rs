//! Pose transfer between two skeletons, in model space: each mapped target bone takes its
//! source bone's rotation relative to the source's rest pose, after a per-bone rest offset that
//! turns the target's rest direction onto the source's (so a T-pose clip plays on an A-pose
//! rig as a T-pose would), with the characters' facings aligned about +Y. Unmapped target bones
//! keep their rest rotation relative to their parent (twist bones follow their chain); the
//! hips' translation is carried over scaled (the leg-length ratio), and a mapped bone hung
//! elsewhere than under its chain (an IK-control foot) is carried rigidly by its chain
//! predecessor. [`Retargeter::transfer`] is the per-frame job: the caller owns every buffer, it
//! allocates nothing.

use glam::{Affine3A, Quat, Vec3};

use crate::hierarchy::Hierarchy;
use crate::ids::NodeId;
use crate::model::Model;
use crate::pose::{SoaPose, Transform};

/// How a mapped bone's rest offset is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestAlign {
    /// No offset: the rest poses are taken as matching (hips).
    None,
    /// The target bone's rest direction (to `target_child`) turned onto the source's (to
    /// `source_child`): the next mapped joints down the chain.
    Aim {
        /// The source joint the source bone points at.
        source_child: NodeId,
        /// The target joint the target bone points at.
        target_child: NodeId,
    },
    /// The same offset as the pair at this index of the list (an earlier one: a hand takes its
    /// forearm's, a head its neck's).
    Like(usize),
}

/// One mapped joint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BonePair {
    /// The source joint.
    pub source: NodeId,
    /// The target joint.
    pub target: NodeId,
    /// How its rest offset is found.
    pub align: RestAlign,
    /// The target joint before it in its chain (the shin of a foot). When that joint is not an
    /// ancestor (the foot hangs under an IK control), the target joint is carried rigidly by it.
    pub chain_parent: Option<NodeId>,
}

/// Why a retarget cannot be set up.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetargetError {
    /// A pair names a node the model does not have.
    #[error("{side} node {node} does not exist")]
    MissingNode {
        /// `source` or `target`.
        side: &'static str,
        /// The node index.
        node: usize,
    },
    /// A `RestAlign::Like` refers to itself or a later pair.
    #[error("pair {0}'s rest offset refers to a pair that is not before it")]
    BadLike(usize),
    /// Two pairs map onto the same target joint.
    #[error("target node {0} is mapped twice")]
    TargetTwice(usize),
    /// The scale ratio is not a positive finite number.
    #[error("the hips scale ratio {0} is not a positive finite number")]
    BadRatio(f32),
}

/// The rotation part of a model-space transform (scale taken out), unit length.
pub fn model_rotation(model_from_node: &Affine3A) -> Quat {
    let (_, rotation, _) = model_from_node.to_scale_rotation_translation();
    rotation.normalize()
}

/// A set-up retarget from one model onto another: everything the per-frame job needs.
#[derive(Debug, Clone)]
pub struct Retargeter {
    /// Per target node: its source node and the right factor `K` (target model rotation =
    /// `frame · source model rotation · K`).
    mapped: Vec<Option<(NodeId, Quat)>>,
    /// Per target node: the chain predecessor that carries it and its rest position in that
    /// predecessor's frame.
    carried: Vec<Option<(NodeId, Vec3)>>,
    /// Per target node: computed in the second pass (carried, or below a carried node).
    late: Vec<bool>,
    /// The target's rest pose, node by node.
    rest: Vec<Transform>,
    /// Source facing → target facing, about +Y.
    frame: Quat,
    /// The hips: source node, target node, their rest model positions.
    hips: Option<(NodeId, NodeId, Vec3, Vec3)>,
    /// Hips translation scale (target leg length / source leg length, in each model's units).
    ratio: f32,
}

/// Rest model-space transforms of every node.
fn rest_model(model: &Model) -> Vec<Affine3A> {
    let mut out = vec![Affine3A::IDENTITY; model.nodes.len()];
    model.hierarchy.local_to_model(&model.rest_pose(), &mut crate::LocalMatrices::new(model.nodes.len()), &mut out);
    out
}

/// The rotation about +Y that turns horizontal `from` onto horizontal `to` (identity when
/// either has no horizontal part).
pub fn facing_alignment(from: Vec3, to: Vec3) -> Quat {
    let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z).try_normalize();
    match (flat(from), flat(to)) {
        (Some(a), Some(b)) => {
            let angle = a.z.atan2(a.x) - b.z.atan2(b.x);
            Quat::from_rotation_y(angle)
        }
        _ => Quat::IDENTITY,
    }
}

impl Retargeter {
    /// Set up a retarget of `source` onto `target` by `pairs`; `hips` (a pair's source and
    /// target) gets its translation carried over as `target rest + ratio · frame · (source −
    /// source rest)`; `source_forward`/`target_forward` are the characters' rest facings (model
    /// space). Allocates (once per retarget).
    ///
    /// # Errors
    /// A node out of range, a target joint mapped twice, a bad `Like`, a bad ratio.
    pub fn new(
        source: &Model,
        target: &Model,
        pairs: &[BonePair],
        hips: Option<(NodeId, NodeId)>,
        ratio: f32,
        (source_forward, target_forward): (Vec3, Vec3),
    ) -> Result<Self, RetargetError> {
        if !(ratio.is_finite() && ratio > 0.0) {
            return Err(RetargetError::BadRatio(ratio));
        }
        let (ns, nt) = (source.nodes.len(), target.nodes.len());
        let check = |side: &'static str, node: NodeId, n: usize| {
            if node.index() < n { Ok(()) } else { Err(RetargetError::MissingNode { side, node: node.index() }) }
        };
        for pair in pairs {
            check("source", pair.source, ns)?;
            check("target", pair.target, nt)?;
            if let RestAlign::Aim { source_child, target_child } = pair.align {
                check("source", source_child, ns)?;
                check("target", target_child, nt)?;
            }
            if let Some(p) = pair.chain_parent {
                check("target", p, nt)?;
            }
        }
        if let Some((s, t)) = hips {
            check("source", s, ns)?;
            check("target", t, nt)?;
        }
        let source_rest = rest_model(source);
        let target_rest = rest_model(target);
        let frame = facing_alignment(source_forward, target_forward);
        let mut offsets: Vec<Quat> = Vec::with_capacity(pairs.len());
        let mut mapped = vec![None; nt];
        let mut carried = vec![None; nt];
        for (i, pair) in pairs.iter().enumerate() {
            let offset = match pair.align {
                RestAlign::None => Quat::IDENTITY,
                RestAlign::Like(j) => *offsets.get(j).filter(|_| j < i).ok_or(RetargetError::BadLike(i))?,
                RestAlign::Aim { source_child, target_child } => {
                    let from = Vec3::from(
                        target_rest[target_child.index()].translation - target_rest[pair.target.index()].translation,
                    );
                    let to = frame
                        * Vec3::from(
                            source_rest[source_child.index()].translation
                                - source_rest[pair.source.index()].translation,
                        );
                    match (from.try_normalize(), to.try_normalize()) {
                        (Some(a), Some(b)) => Quat::from_rotation_arc(a, b),
                        _ => Quat::IDENTITY,
                    }
                }
            };
            offsets.push(offset);
            let slot = &mut mapped[pair.target.index()];
            if slot.is_some() {
                return Err(RetargetError::TargetTwice(pair.target.index()));
            }
            let k = model_rotation(&source_rest[pair.source.index()]).inverse()
                * frame.inverse()
                * offset
                * model_rotation(&target_rest[pair.target.index()]);
            *slot = Some((pair.source, k.normalize()));
            if let Some(by) = pair.chain_parent {
                let ancestor =
                    std::iter::successors(target.hierarchy.parent(pair.target), |&p| target.hierarchy.parent(p))
                        .any(|p| p == by);
                if !ancestor {
                    let at = target_rest[by.index()]
                        .inverse()
                        .transform_point3(target_rest[pair.target.index()].translation.into());
                    carried[pair.target.index()] = Some((by, at));
                }
            }
        }
        let mut late = vec![false; nt];
        for &node in target.hierarchy.order() {
            let parent_late = target.hierarchy.parent(node).is_some_and(|p| late[p.index()]);
            late[node.index()] = parent_late || carried[node.index()].is_some();
        }
        let rest_pose = target.rest_pose();
        let rest = (0..nt).map(|i| rest_pose.transform(NodeId::from_index(i))).collect();
        let hips = hips.map(|(s, t)| {
            (s, t, Vec3::from(source_rest[s.index()].translation), Vec3::from(target_rest[t.index()].translation))
        });
        Ok(Self { mapped, carried, late, rest, frame, hips, ratio })
    }

    /// The alignment of the source's facing onto the target's (about +Y).
    pub fn frame(&self) -> Quat {
        self.frame
    }

    /// The hips translation scale.
    pub fn ratio(&self) -> f32 {
        self.ratio
    }

    /// The source joint mapped onto target joint `target`, if any.
    pub fn source_of(&self, target: NodeId) -> Option<NodeId> {
        self.mapped.get(target.index()).copied().flatten().map(|(s, _)| s)
    }

    /// The per-frame job: the target's pose for a source pose given as model-space transforms
    /// (`source_model`, one per source node). `overrides` replace mapped joints' model
    /// rotations (an IK pass's results). Writes every target node's local transform into `pose`
    /// and its model-space transform into `target_model` (one per target node; `target` is the
    /// target's hierarchy). Nodes beyond the buffers' lengths are skipped.
    pub fn transfer(
        &self,
        target: &Hierarchy,
        source_model: &[Affine3A],
        overrides: &[(NodeId, Quat)],
        target_model: &mut [Affine3A],
        pose: &mut SoaPose,
    ) {
        for late_pass in [false, true] {
            for &node in target.order() {
                if self.late.get(node.index()).copied() != Some(late_pass) {
                    continue;
                }
                self.place(target, node, source_model, overrides, target_model, pose);
            }
        }
    }

    /// One node of [`Self::transfer`].
    fn place(
        &self,
        target: &Hierarchy,
        node: NodeId,
        source_model: &[Affine3A],
        overrides: &[(NodeId, Quat)],
        target_model: &mut [Affine3A],
        pose: &mut SoaPose,
    ) {
        let i = node.index();
        let (Some(rest), Some(_)) = (self.rest.get(i), target_model.get(i)) else { return };
        let parent =
            target.parent(node).and_then(|p| target_model.get(p.index()).copied()).unwrap_or(Affine3A::IDENTITY);
        let (parent_scale, parent_rotation, _) = parent.to_scale_rotation_translation();
        let parent_rotation = parent_rotation.normalize();
        let rotation = match self.mapped[i] {
            Some((source, k)) => {
                let overridden = overrides.iter().find(|(n, _)| *n == node).map(|(_, q)| *q);
                overridden.unwrap_or_else(|| {
                    source_model
                        .get(source.index())
                        .map_or(parent_rotation * rest.rotation, |m| (self.frame * model_rotation(m) * k).normalize())
                })
            }
            None => parent_rotation * rest.rotation,
        };
        let hips = self.hips.filter(|h| h.1 == node);
        let position = if let Some((source, _, source_rest, target_rest)) = hips {
            let at = source_model.get(source.index()).map_or(source_rest, |m| Vec3::from(m.translation));
            Some(target_rest + self.ratio * (self.frame * (at - source_rest)))
        } else if let Some((by, at)) = self.carried[i] {
            target_model.get(by.index()).map(|m| m.transform_point3(at))
        } else {
            None
        };
        let translation = match position {
            Some(p) => parent.inverse().transform_point3(p),
            None => rest.translation,
        };
        let position = position.unwrap_or_else(|| parent.transform_point3(rest.translation));
        let local_rotation = (parent_rotation.inverse() * rotation).normalize();
        target_model[i] = Affine3A::from_scale_rotation_translation(parent_scale * rest.scale, rotation, position);
        pose.set(node, Transform { translation, rotation: local_rotation, scale: rest.scale });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facing_alignment_turns_one_facing_onto_the_other() {
        let q = facing_alignment(Vec3::Z, Vec3::X);
        assert!((q * Vec3::Z).distance(Vec3::X) < 1e-6);
        let q = facing_alignment(Vec3::new(1.0, 0.3, 1.0), Vec3::NEG_Z);
        assert!((q * Vec3::new(1.0, 0.0, 1.0).normalize()).distance(Vec3::NEG_Z) < 1e-6);
        assert_eq!(facing_alignment(Vec3::Y, Vec3::X), Quat::IDENTITY);
    }
}
