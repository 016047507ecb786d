//! Retargeting: a humanoid clip played on another humanoid rig. [`Skeleton`] is what the
//! ragdoll's anatomy recognises in a model (bone kinds and sides from naming schemes or the
//! skeleton's geometry, `physics::RagdollSpec`); [`Mapping`] pairs source and target joints
//! chain by chain (spine, neck and head, each arm with its hand, each leg with foot and toes),
//! editable by joint name; [`clip`] transfers a clip through the core's
//! `anim::retarget::Retargeter` with planted feet (`anim::ik`), writes the result into a copy of
//! the target and measures it — what `animtune retarget` prints and the viewer shows.

pub mod clip;

use anim::retarget::{BonePair, RestAlign};
use anim::{LocalMatrices, Model, NodeId};
use glam::{Affine3A, Vec3};

use crate::physics::RagdollSpec;
use crate::physics::anatomy::{BoneKind, Side, is_rigify_deform, recognise};

/// A chain of the mapping table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Chain {
    /// Hips and spine.
    Spine,
    /// Neck and head.
    Head,
    /// Left shoulder, arm and hand.
    LeftArm,
    /// Right shoulder, arm and hand.
    RightArm,
    /// Left thigh, shin, foot and toes.
    LeftLeg,
    /// Right thigh, shin, foot and toes.
    RightLeg,
}

impl Chain {
    /// Every chain, in table order.
    pub const ALL: [Self; 6] = [Self::Spine, Self::Head, Self::LeftArm, Self::RightArm, Self::LeftLeg, Self::RightLeg];

    /// Lower-case name (reports, the viewer).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Spine => "spine",
            Self::Head => "neck/head",
            Self::LeftArm => "left arm",
            Self::RightArm => "right arm",
            Self::LeftLeg => "left leg",
            Self::RightLeg => "right leg",
        }
    }

    /// The chain of a bone kind on a side (`None`: fingers, tails, unclassified bones).
    pub const fn of(kind: BoneKind, side: Side) -> Option<Self> {
        let left = matches!(side, Side::Left);
        match kind {
            BoneKind::Hips | BoneKind::Spine => Some(Self::Spine),
            BoneKind::Neck | BoneKind::Head => Some(Self::Head),
            BoneKind::Shoulder | BoneKind::UpperArm | BoneKind::LowerArm | BoneKind::Hand => {
                Some(if left { Self::LeftArm } else { Self::RightArm })
            }
            BoneKind::UpperLeg | BoneKind::LowerLeg | BoneKind::Foot | BoneKind::Toes => {
                Some(if left { Self::LeftLeg } else { Self::RightLeg })
            }
            _ => None,
        }
    }
}

/// Place of a kind along its chain (the spine chain runs on into the neck and head).
const fn kind_rank(kind: BoneKind) -> u8 {
    match kind {
        BoneKind::Hips => 0,
        BoneKind::Spine => 1,
        BoneKind::Neck => 2,
        BoneKind::Head => 3,
        BoneKind::Shoulder => 4,
        BoneKind::UpperArm => 5,
        BoneKind::LowerArm => 6,
        BoneKind::Hand => 7,
        BoneKind::UpperLeg => 8,
        BoneKind::LowerLeg => 9,
        BoneKind::Foot => 10,
        BoneKind::Toes => 11,
        _ => 12,
    }
}

/// A joint the anatomy recognised.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// The node.
    pub node: NodeId,
    /// Its name (`node_<index>` when it has none).
    pub name: String,
    /// What it is.
    pub kind: BoneKind,
    /// Which side.
    pub side: Side,
    /// Its place among the joints of the same kind and side, from the root.
    pub ordinal: usize,
}

/// What the anatomy recognises in a model: its joints by kind and side, the facing, the units.
#[derive(Debug, Clone)]
pub struct Skeleton {
    /// Recognised joints, parents first (the ragdoll's bodies, plus toes by name).
    pub joints: Vec<Joint>,
    /// Every skin joint's node and name.
    pub skin_joints: Vec<(NodeId, String)>,
    /// The rest-pose facing (model space).
    pub forward: Vec3,
    /// Metres per model unit (the character taken as 1.7 m, as the ragdoll simulates it).
    pub metres_per_unit: f32,
    /// Rest model-space transform of every node.
    pub rest_model: Vec<Affine3A>,
}

/// A node's name, or `node_<index>`.
pub fn node_name(model: &Model, node: NodeId) -> String {
    model.node(node).and_then(|n| n.name.clone()).unwrap_or_else(|| format!("node_{}", node.index()))
}

impl Skeleton {
    /// Recognise `model`'s skeleton (allocates; once per model).
    ///
    /// # Errors
    /// When the model has no skin the ragdoll can lay out.
    pub fn new(model: &Model) -> anyhow::Result<Self> {
        let spec = RagdollSpec::from_model(model).map_err(|e| anyhow::anyhow!("no skeleton to retarget: {e}"))?;
        let n = model.nodes().len();
        let mut rest_model = vec![Affine3A::IDENTITY; n];
        model.hierarchy.local_to_model(&model.rest_pose(), &mut LocalMatrices::new(n), &mut rest_model);
        let mut joints: Vec<Joint> = Vec::new();
        let push = |node: NodeId, kind: BoneKind, side: Side, joints: &mut Vec<Joint>| {
            let ordinal = joints.iter().filter(|j| j.kind == kind && j.side == side).count();
            joints.push(Joint { node, name: node_name(model, node), kind, side, ordinal });
        };
        // A Rigify armature exported with all its bones: only its deform bones are joints.
        let skin_nodes: &[NodeId] = model.skins().get(spec.skin).map_or(&[][..], |s| s.joints.as_slice());
        let rigify = skin_nodes.iter().any(|&j| is_rigify_deform(&node_name(model, j)));
        let candidate = |node: NodeId| !rigify || is_rigify_deform(&node_name(model, node));
        for body in &spec.bodies {
            if Chain::of(body.kind, body.side).is_none() || body.kind == BoneKind::Toes {
                continue;
            }
            // A limb's side is never the centre.
            if body.kind.limb().is_some() && body.side == Side::Centre {
                continue;
            }
            push(body.node, body.kind, body.side, &mut joints);
            if body.kind == BoneKind::Foot {
                let foot = body.node;
                let toes = model
                    .hierarchy
                    .children(foot)
                    .iter()
                    .copied()
                    .find(|&c| candidate(c) && recognise(&node_name(model, c)).kind == Some(BoneKind::Toes));
                if let Some(toes) = toes {
                    push(toes, BoneKind::Toes, body.side, &mut joints);
                }
            }
        }
        // Joints the ragdoll merged or left without a body (no vertices of their own: a robot's
        // abdomen, a clavicle) but whose names say what they are: spine and neck segments, and a
        // missing shoulder, hip, head or hand.
        for &node in skin_nodes {
            if !candidate(node) || joints.iter().any(|j| j.node == node) {
                continue;
            }
            let hint = recognise(&node_name(model, node));
            let (Some(kind), side) = (hint.kind, hint.side.unwrap_or(Side::Centre)) else { continue };
            let fits = match kind {
                BoneKind::Spine | BoneKind::Neck => side == Side::Centre,
                BoneKind::Head | BoneKind::Hips => side == Side::Centre && !joints.iter().any(|j| j.kind == kind),
                BoneKind::Shoulder => side != Side::Centre && !joints.iter().any(|j| j.kind == kind && j.side == side),
                // A hand the ragdoll left without a body (its vertices weighted to the
                // fingers or the forearm, as Godot's mannequin has it), below its forearm.
                BoneKind::Hand => {
                    side != Side::Centre
                        && !joints.iter().any(|j| j.kind == kind && j.side == side)
                        && std::iter::successors(model.hierarchy.parent(node), |&p| model.hierarchy.parent(p)).any(
                            |p| joints.iter().any(|j| j.node == p && j.kind == BoneKind::LowerArm && j.side == side),
                        )
                }
                _ => false,
            };
            if fits {
                push(node, kind, side, &mut joints);
            }
        }
        // Parents first, then the ordinals along each run of a kind.
        let rank: Vec<Option<usize>> = {
            let mut rank = vec![None; n];
            for (i, node) in model.hierarchy.order().iter().enumerate() {
                rank[node.index()] = Some(i);
            }
            rank
        };
        // Every node is in the order; one that were not would come first.
        joints.sort_by_key(|j| rank.get(j.node.index()).copied().flatten());
        for i in 0..joints.len() {
            let (kind, side) = (joints[i].kind, joints[i].side);
            joints[i].ordinal = joints[..i].iter().filter(|j| j.kind == kind && j.side == side).count();
        }
        let skin_joints = model
            .skins()
            .get(spec.skin)
            .map(|s| s.joints.iter().map(|&j| (j, node_name(model, j))).collect())
            .unwrap_or_default();
        Ok(Self { joints, skin_joints, forward: spec.forward, metres_per_unit: spec.metres_per_unit, rest_model })
    }

    /// The first joint of `kind` on `side`.
    pub fn find(&self, kind: BoneKind, side: Side) -> Option<NodeId> {
        self.joints.iter().find(|j| j.kind == kind && j.side == side).map(|j| j.node)
    }

    /// Hips, both thighs, shins and feet, and a head or neck: a humanoid's legs and trunk.
    pub fn is_humanoid(&self) -> bool {
        let legs = [BoneKind::UpperLeg, BoneKind::LowerLeg, BoneKind::Foot];
        self.find(BoneKind::Hips, Side::Centre).is_some()
            && [Side::Left, Side::Right].iter().all(|&s| legs.iter().all(|&k| self.find(k, s).is_some()))
    }

    /// Rest model-space position of `node`.
    pub fn rest_position(&self, node: NodeId) -> Vec3 {
        self.rest_model.get(node.index()).map_or(Vec3::ZERO, |m| m.translation.into())
    }

    /// Mean rest length of the legs (thigh to shin to foot), model units; 0 without legs.
    pub fn leg_length(&self) -> f32 {
        let mut sum = 0.0;
        let mut count = 0;
        for side in [Side::Left, Side::Right] {
            let (Some(a), Some(b), Some(c)) = (
                self.find(BoneKind::UpperLeg, side),
                self.find(BoneKind::LowerLeg, side),
                self.find(BoneKind::Foot, side),
            ) else {
                continue;
            };
            let (a, b, c) = (self.rest_position(a), self.rest_position(b), self.rest_position(c));
            sum += a.distance(b) + b.distance(c);
            count += 1;
        }
        if count == 0 { 0.0 } else { sum / count as f32 }
    }
}

/// One mapped joint of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct JointPair {
    /// Source node.
    pub source: NodeId,
    /// Target node.
    pub target: NodeId,
    /// Source joint name.
    pub source_name: String,
    /// Target joint name.
    pub target_name: String,
    /// The chain it belongs to.
    pub chain: Chain,
    /// The target joint's kind.
    pub kind: BoneKind,
}

/// The source → target joint table.
#[derive(Debug, Clone, PartialEq)]
pub struct Mapping {
    /// Mapped joints, chain by chain, root first.
    pub pairs: Vec<JointPair>,
    /// Source skin joints left out.
    pub unmapped_source: Vec<String>,
    /// Target skin joints left out (they keep their rest pose relative to their parent).
    pub unmapped_target: Vec<String>,
}

/// Index in a list of `n` matching index `i` of a list of `m ≤ n` (first to first, last to
/// last; a list of one takes the last: the top of a spine).
fn spread(i: usize, m: usize, n: usize) -> usize {
    if m <= 1 { n.saturating_sub(1) } else { (i * (n - 1) + (m - 1) / 2) / (m - 1) }
}

impl Mapping {
    /// The automatic table: joints of the same kind and side paired; where a chain has more
    /// joints of a kind on one side (three spine bones against one), the shorter list's joints
    /// are spread along the longer one, first to first and last to last, the rest unmapped (so
    /// the table is the same read either way).
    pub fn automatic(source: &Skeleton, target: &Skeleton) -> Self {
        let mut pairs = Vec::new();
        let mut groups: Vec<(BoneKind, Side)> = source.joints.iter().map(|j| (j.kind, j.side)).collect();
        groups.dedup();
        groups.sort_by_key(|&(k, s)| (kind_rank(k), s as u8));
        groups.dedup();
        for (kind, side) in groups {
            let s: Vec<&Joint> = source.joints.iter().filter(|j| j.kind == kind && j.side == side).collect();
            let t: Vec<&Joint> = target.joints.iter().filter(|j| j.kind == kind && j.side == side).collect();
            let (n, m) = (s.len(), t.len());
            if n == 0 || m == 0 {
                continue;
            }
            let matched: Vec<(usize, usize)> = if n >= m {
                (0..m).map(|i| (spread(i, m, n), i)).collect()
            } else {
                (0..n).map(|j| (j, spread(j, n, m))).collect()
            };
            for (si, ti) in matched {
                let Some(chain) = Chain::of(kind, side) else { continue };
                pairs.push(JointPair {
                    source: s[si].node,
                    target: t[ti].node,
                    source_name: s[si].name.clone(),
                    target_name: t[ti].name.clone(),
                    chain,
                    kind,
                });
            }
        }
        let mut mapping = Self { pairs, unmapped_source: Vec::new(), unmapped_target: Vec::new() };
        mapping.finish(source, target);
        mapping
    }

    /// Sort the pairs chain by chain and list what is left out.
    fn finish(&mut self, source: &Skeleton, target: &Skeleton) {
        let rank = |p: &JointPair| {
            let ordinal = target.joints.iter().find(|j| j.node == p.target).map_or(0, |j| j.ordinal);
            (p.chain, kind_rank(p.kind), ordinal)
        };
        self.pairs.sort_by_key(rank);
        self.unmapped_source = source
            .skin_joints
            .iter()
            .filter(|(n, _)| !self.pairs.iter().any(|p| p.source == *n))
            .map(|(_, name)| name.clone())
            .collect();
        self.unmapped_target = target
            .skin_joints
            .iter()
            .filter(|(n, _)| !self.pairs.iter().any(|p| p.target == *n))
            .map(|(_, name)| name.clone())
            .collect();
    }

    /// The table with edits applied, by joint name: each `(target joint, Some(source joint))`
    /// maps that target joint onto that source joint (its chain and kind from the anatomy, or
    /// the old pair's), `(target joint, None)` unmaps it. Returns the names that matched no
    /// joint (left out).
    pub fn edit(
        &mut self,
        source: (&Model, &Skeleton),
        target: (&Model, &Skeleton),
        edits: &[(String, Option<String>)],
    ) -> Vec<String> {
        let find = |model: &Model, name: &str| {
            (0..model.nodes().len()).map(NodeId::from_index).find(|&n| node_name(model, n) == name)
        };
        let mut unknown = Vec::new();
        for (target_name, source_name) in edits {
            let Some(t) = find(target.0, target_name) else {
                unknown.push(target_name.clone());
                continue;
            };
            let old = self.pairs.iter().position(|p| p.target == t).map(|i| self.pairs.remove(i));
            let Some(source_name) = source_name else { continue };
            let Some(s) = find(source.0, source_name) else {
                unknown.push(source_name.clone());
                if let Some(old) = old {
                    self.pairs.push(old);
                }
                continue;
            };
            let joint =
                target.1.joints.iter().find(|j| j.node == t).or_else(|| source.1.joints.iter().find(|j| j.node == s));
            let (kind, chain) = match (joint, &old) {
                (Some(j), _) => (j.kind, Chain::of(j.kind, j.side).unwrap_or(Chain::Spine)),
                (None, Some(o)) => (o.kind, o.chain),
                (None, None) => (BoneKind::Other, Chain::Spine),
            };
            // One source joint may drive one target joint: an edit takes it from another.
            self.pairs.retain(|p| p.source != s);
            self.pairs.push(JointPair {
                source: s,
                target: t,
                source_name: source_name.clone(),
                target_name: target_name.clone(),
                chain,
                kind,
            });
        }
        self.finish(source.1, target.1);
        unknown
    }

    /// The pair whose target joint is of `kind` on `side` (by the target's anatomy).
    pub fn pair_of(&self, target: &Skeleton, kind: BoneKind, side: Side) -> Option<&JointPair> {
        let node = target.find(kind, side)?;
        self.pairs.iter().find(|p| p.target == node)
    }

    /// The hips pair.
    pub fn hips(&self) -> Option<&JointPair> {
        self.pairs.iter().find(|p| p.kind == BoneKind::Hips)
    }

    /// The core's pairs: each joint's rest offset aimed at the next mapped joint down its chain
    /// (the spine runs on into the neck), hands, heads and toes taking the offset of the joint
    /// before them, the hips none; each joint's chain predecessor (a foot's shin) given, so a
    /// foot hung under an IK control is carried by its shin.
    pub fn bone_pairs(&self) -> Vec<BonePair> {
        let sequence = |c: Chain| if c == Chain::Head { Chain::Spine } else { c };
        let mut out: Vec<BonePair> = Vec::with_capacity(self.pairs.len());
        for (i, pair) in self.pairs.iter().enumerate() {
            let previous = i.checked_sub(1).filter(|&p| sequence(self.pairs[p].chain) == sequence(pair.chain));
            let next = self.pairs.get(i + 1).filter(|n| sequence(n.chain) == sequence(pair.chain));
            let inherit = || match previous {
                Some(p) if self.pairs[p].kind != BoneKind::Hips => RestAlign::Like(p),
                _ => RestAlign::None,
            };
            // Ends (hands, heads, toes, a foot without toes) take the offset of the joint before.
            let end = matches!(pair.kind, BoneKind::Hand | BoneKind::Head | BoneKind::Toes);
            let align = match next {
                _ if pair.kind == BoneKind::Hips => RestAlign::None,
                Some(n) if !end && (pair.kind != BoneKind::Foot || n.kind == BoneKind::Toes) => {
                    RestAlign::Aim { source_child: n.source, target_child: n.target }
                }
                _ => inherit(),
            };
            out.push(BonePair {
                source: pair.source,
                target: pair.target,
                align,
                chain_parent: previous.map(|p| self.pairs[p].target),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::spread;

    #[test]
    fn spreading_maps_ends_to_ends() {
        assert_eq!((0..3).map(|i| spread(i, 3, 3)).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!((0..2).map(|i| spread(i, 2, 4)).collect::<Vec<_>>(), [0, 3]);
        assert_eq!(spread(0, 1, 3), 2);
        assert_eq!((0..3).map(|i| spread(i, 3, 5)).collect::<Vec<_>>(), [0, 2, 4]);
    }
}
