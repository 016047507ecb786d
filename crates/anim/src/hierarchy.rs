//! The node tree (the one owner of parentage: parents, children, parents-first order) and the
//! local→model job over a [`SoaPose`].
//!
//! [`Hierarchy::local_to_model`] works in two steps: the local 3×4 matrices (`parent_from_node`:
//! rotation × scale, and translation) of eight nodes at a time are computed as twelve [`F8`]
//! planes into caller-owned [`LocalMatrices`], then the nodes are walked in parents-first order
//! doing `model_from_node = model_from_parent × parent_from_node` with the parent's columns in
//! registers and each local element broadcast from its plane. AVX2+FMA where the CPU has it (see
//! [`crate::simd8`]).

use glam::{Affine3A, Quat, Vec3, Vec4};

use crate::ids::NodeId;
use crate::pose::{SoaPose, SoaTransforms, Transform};
use crate::simd8::{F8, Isa, Kernel, V, affine_columns, dispatch, lanes, vec3a};

/// Why a node tree cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HierarchyError {
    /// A node refers to a node index that does not exist.
    #[error("node {node} refers to node {referenced}, which does not exist")]
    NodeOutOfRange {
        /// The referring node.
        node: NodeId,
        /// The index it gives.
        referenced: usize,
    },
    /// A node is the child of two nodes.
    #[error("node {child} is a child of both node {first} and node {second}")]
    TwoParents {
        /// The child.
        child: NodeId,
        /// Its first parent (in node order).
        first: NodeId,
        /// Its second parent.
        second: NodeId,
    },
    /// The nodes form a cycle (a node that is its own ancestor).
    #[error("node {node} is its own ancestor")]
    Cycle {
        /// A node on the cycle.
        node: NodeId,
    },
}

/// The node tree of a model, flattened for one linear local→model pass: each node's parent, its
/// children (in authored order) and every node once, parents before children.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hierarchy {
    /// Parent of each node, `None` for roots.
    parents: Vec<Option<NodeId>>,
    /// Node `n`'s children are `children[children_start[n]..children_start[n + 1]]`.
    children_start: Vec<u32>,
    children: Vec<NodeId>,
    /// Every node exactly once, each parent before its children.
    order: Vec<NodeId>,
}

impl Hierarchy {
    /// The tree from each node's child list (`children[n]` lists node `n`'s children, in the
    /// order the file gives them).
    ///
    /// # Errors
    /// A child index out of range, a node with two parents, or a cycle.
    pub fn from_children<C: AsRef<[usize]>>(children: &[C]) -> Result<Self, HierarchyError> {
        let n = children.len();
        let mut parents: Vec<Option<NodeId>> = vec![None; n];
        let mut children_start = Vec::with_capacity(n + 1);
        let mut flat = Vec::new();
        for (p, list) in children.iter().enumerate() {
            children_start.push(flat.len() as u32);
            let parent = NodeId::from_index(p);
            for &c in list.as_ref() {
                if c >= n {
                    return Err(HierarchyError::NodeOutOfRange { node: parent, referenced: c });
                }
                if c == p {
                    return Err(HierarchyError::Cycle { node: parent });
                }
                if let Some(first) = parents[c] {
                    return Err(HierarchyError::TwoParents { child: NodeId::from_index(c), first, second: parent });
                }
                parents[c] = Some(parent);
                flat.push(NodeId::from_index(c));
            }
        }
        children_start.push(flat.len() as u32);
        let mut order: Vec<NodeId> = (0..n).filter(|&i| parents[i].is_none()).map(NodeId::from_index).collect();
        let mut head = 0;
        while head < order.len() {
            let node = order[head].index();
            head += 1;
            order.extend_from_slice(&flat[children_start[node] as usize..children_start[node + 1] as usize]);
        }
        if order.len() < n {
            // Some node is unreachable from every root: it sits on a cycle (or below one). Walk up
            // from each node until a walk is longer than the tree: it is then on the cycle.
            for start in 0..n {
                let (mut at, mut steps) = (start, 0);
                while let Some(up) = parents[at]
                    && steps <= n
                {
                    at = up.index();
                    steps += 1;
                }
                if steps > n {
                    return Err(HierarchyError::Cycle { node: NodeId::from_index(at) });
                }
            }
        }
        Ok(Self { parents, children_start, children: flat, order })
    }

    /// The tree from each node's parent (`None` for roots); children are listed in node order.
    ///
    /// # Errors
    /// A parent index out of range, or a cycle.
    pub fn from_parents(parents: &[Option<NodeId>]) -> Result<Self, HierarchyError> {
        let mut children = vec![Vec::new(); parents.len()];
        for (node, parent) in parents.iter().enumerate() {
            let Some(parent) = parent else { continue };
            let Some(list) = children.get_mut(parent.index()) else {
                return Err(HierarchyError::NodeOutOfRange {
                    node: NodeId::from_index(node),
                    referenced: parent.index(),
                });
            };
            list.push(node);
        }
        Self::from_children(&children)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// True when there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Parent of `node`, if it has one (and exists).
    pub fn parent(&self, node: NodeId) -> Option<NodeId> {
        self.parents.get(node.index()).copied().flatten()
    }

    /// Children of `node` in authored order (empty for a leaf or a node that does not exist).
    pub fn children(&self, node: NodeId) -> &[NodeId] {
        let n = node.index();
        match (self.children_start.get(n), self.children_start.get(n + 1)) {
            (Some(&start), Some(&end)) => &self.children[start as usize..end as usize],
            _ => &[],
        }
    }

    /// True for a node without a parent.
    pub fn is_root(&self, node: NodeId) -> bool {
        self.parents.get(node.index()).is_some_and(Option::is_none)
    }

    /// The root nodes, ascending.
    pub fn roots(&self) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.parents.len()).filter(|&n| self.parents[n].is_none()).map(NodeId::from_index)
    }

    /// Every node once, each parent before its children.
    pub fn order(&self) -> &[NodeId] {
        &self.order
    }

    /// Place a pose in the world: every root's local transform turned by `rotation` and moved by
    /// `translation` (the roots' parent becomes that rigid transform). The pose-side twin of
    /// [`Self::local_to_model_placed`], for poses handed to code that draws or compares them.
    pub fn place_roots(&self, pose: &mut SoaPose, rotation: Quat, translation: Vec3) {
        for root in self.roots() {
            if let Some(local) = pose.get(root) {
                let placed = Transform {
                    translation: translation + rotation * local.translation,
                    rotation: (rotation * local.rotation).normalize(),
                    scale: local.scale,
                };
                pose.set(root, placed);
            }
        }
    }

    /// Compute `model_from_node` for every node from the pose's local transforms, in one pass.
    ///
    /// `locals` is scratch (see [`LocalMatrices`]); `model_from_node` must hold one matrix per
    /// node and the pose one transform per node (panics otherwise). Allocates nothing once
    /// `locals` is large enough (`LocalMatrices::new(node_count)` is).
    ///
    /// The `w` lanes of the output columns are `0` (axes) and `1` (translation); glam ignores
    /// them.
    pub fn local_to_model(&self, pose: &SoaPose, locals: &mut LocalMatrices, model_from_node: &mut [Affine3A]) {
        self.local_to_model_placed(pose, locals, &Affine3A::IDENTITY, model_from_node);
    }

    /// [`Self::local_to_model`] with every root placed by `world_from_model` (each root's parent
    /// is that transform instead of the identity): how a crowd stands each instance in its own
    /// spot without touching the pose.
    pub fn local_to_model_placed(
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
        dispatch(LocalToModel { hierarchy: self, pose: pose.blocks(), locals, root, model_from_node });
    }
}

/// Twelve planes of eight nodes: `parent_from_node` columns `x`, `y`, `z` (three rows each),
/// then the translation, each element of the eight nodes in one [`F8`].
type LocalBlock = [F8; 12];

/// Scratch for [`Hierarchy::local_to_model`]: the local matrices of every node, eight per block.
/// Owned by the caller and reused every frame; it grows (allocates) only when a pose has more
/// blocks than it has seen before.
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

/// The local→model kernel.
pub(crate) struct LocalToModel<'a> {
    pub hierarchy: &'a Hierarchy,
    pub pose: &'a [SoaTransforms],
    pub locals: &'a mut [LocalBlock],
    /// Columns of the roots' parent (`w` lanes 0, 0, 0, 1).
    pub root: [Vec4; 4],
    pub model_from_node: &'a mut [Affine3A],
}

impl Kernel for LocalToModel<'_> {
    type Output = ();

    #[inline(always)]
    fn run<I: Isa>(self, isa: I) {
        let Self { hierarchy, pose, locals, root, model_from_node } = self;
        for (local, transforms) in locals.iter_mut().zip(pose) {
            local_block(isa, transforms, local);
        }
        let locals = &*locals;
        for &node in &hierarchy.order {
            let node = node.index();
            let model_from_parent = match hierarchy.parents[node] {
                None => root,
                Some(parent) => {
                    let m = &model_from_node[parent.index()];
                    [lanes(m.matrix3.x_axis), lanes(m.matrix3.y_axis), lanes(m.matrix3.z_axis), lanes(m.translation)]
                }
            };
            let [x, y, z, t] = compose(isa, &model_from_parent, locals, node);
            model_from_node[node] = Affine3A::from_cols(vec3a(x), vec3a(y), vec3a(z), vec3a(t));
        }
    }
}

/// `parent_from_node` of eight nodes as planes: glam's `Mat3A::from_quat` times the scale, and
/// the translation.
#[inline(always)]
fn local_block<I: Isa>(isa: I, t: &SoaTransforms, out: &mut LocalBlock) {
    let load = |x: &F8| V::load(isa, x);
    let [x, y, z, w] = [load(&t.rotation[0]), load(&t.rotation[1]), load(&t.rotation[2]), load(&t.rotation[3])];
    let [sx, sy, sz] = [load(&t.scale[0]), load(&t.scale[1]), load(&t.scale[2])];
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    let one = V::splat(isa, 1.0);
    out[0] = ((one - (yy + zz)) * sx).store();
    out[1] = ((xy + wz) * sx).store();
    out[2] = ((xz - wy) * sx).store();
    out[3] = ((xy - wz) * sy).store();
    out[4] = ((one - (xx + zz)) * sy).store();
    out[5] = ((yz + wx) * sy).store();
    out[6] = ((xz + wy) * sz).store();
    out[7] = ((yz - wx) * sz).store();
    out[8] = ((one - (xx + yy)) * sz).store();
    out[9..].copy_from_slice(&t.translation);
}

/// `model_from_parent × parent_from_node` for `node` (lane `node % 8` of block `node / 8`),
/// as four columns. With `w` lanes (0, 0, 0, 1) in `parent` the result has them too.
#[inline(always)]
fn compose<I: Isa>(isa: I, parent: &[Vec4; 4], locals: &[LocalBlock], node: usize) -> [Vec4; 4] {
    let block = &locals[node / 8];
    let lane = node % 8;
    let e = |k: usize| Vec4::splat(block[k].0[lane]);
    let [px, py, pz, pt] = *parent;
    let column = |k: usize, acc: Vec4| isa.madd4(pz, e(k + 2), isa.madd4(py, e(k + 1), isa.madd4(px, e(k), acc)));
    [column(0, Vec4::ZERO), column(3, Vec4::ZERO), column(6, Vec4::ZERO), column(9, pt)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn node(i: usize) -> NodeId {
        NodeId::from_index(i)
    }

    /// `model_from_node` of a node pose the plain way: glam products, parents first.
    fn reference_local_to_model(hierarchy: &Hierarchy, pose: &SoaPose) -> Vec<Affine3A> {
        let mut out = vec![Affine3A::IDENTITY; hierarchy.len()];
        for &n in hierarchy.order() {
            let t = pose.transform(n);
            let local = Affine3A::from_scale_rotation_translation(t.scale, t.rotation, t.translation);
            out[n.index()] = hierarchy.parent(n).map_or(local, |p| out[p.index()] * local);
        }
        out
    }

    /// Largest element difference relative to the larger of 1 and the expected matrix's largest
    /// element.
    fn affine_error(got: &Affine3A, expected: &Affine3A) -> f32 {
        let (got, expected) = (got.to_cols_array(), expected.to_cols_array());
        let scale = expected.iter().fold(1.0f32, |m, x| m.max(x.abs()));
        got.iter().zip(&expected).fold(0.0f32, |m, (a, b)| m.max((a - b).abs())) / scale
    }

    /// A random forest of `n` nodes whose parents are not ordered by index, with a pose of
    /// random rotations, translations and non-uniform (sometimes negative) scales.
    pub(crate) fn random_case(rng: &mut Rng, n: usize) -> (Hierarchy, SoaPose) {
        let mut permutation: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            permutation.swap(i, rng.below(i + 1));
        }
        let mut parents = vec![None; n];
        for k in 1..n {
            if rng.range(0.0, 1.0) > 0.1 {
                parents[permutation[k]] = Some(node(permutation[rng.below(k)]));
            }
        }
        let Ok(hierarchy) = Hierarchy::from_parents(&parents) else { panic!("a forest by construction") };
        let transforms: Vec<Transform> = (0..n)
            .map(|_| {
                let mut scale = rng.vec3(0.4, 1.6);
                if rng.chance(10) {
                    scale.y = -scale.y;
                }
                Transform { translation: rng.vec3(-2.0, 2.0), rotation: rng.quat(), scale }
            })
            .collect();
        (hierarchy, SoaPose::from_transforms(&transforms, Vec::new()))
    }

    /// [`LocalToModel`] with the identity as the roots' parent, returning the result.
    #[derive(Clone)]
    struct Run<'a>(&'a Hierarchy, &'a SoaPose);

    impl Kernel for Run<'_> {
        type Output = Vec<Affine3A>;
        #[inline(always)]
        fn run<I: Isa>(self, isa: I) -> Vec<Affine3A> {
            let mut locals = vec![[F8::ZERO; 12]; self.1.blocks().len()];
            let mut out = vec![Affine3A::ZERO; self.0.len()];
            let root = [Vec4::X, Vec4::Y, Vec4::Z, Vec4::W];
            let job = LocalToModel {
                hierarchy: self.0,
                pose: self.1.blocks(),
                locals: &mut locals,
                root,
                model_from_node: &mut out,
            };
            job.run(isa);
            out
        }
    }

    #[test]
    fn local_to_model_matches_glam_on_random_hierarchies_for_every_isa() {
        let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
        for n in (1..=41).chain([64, 100, 257]) {
            let (hierarchy, pose) = random_case(&mut rng, n);
            let expected = reference_local_to_model(&hierarchy, &pose);
            let mut dispatched = vec![Affine3A::ZERO; n];
            hierarchy.local_to_model(&pose, &mut LocalMatrices::default(), &mut dispatched);
            let mut runs = crate::simd8::each_isa(&Run(&hierarchy, &pose));
            runs.push(("dispatched", dispatched));
            for (name, got) in runs {
                for (node, (g, e)) in got.iter().zip(&expected).enumerate() {
                    let error = affine_error(g, e);
                    assert!(error < 1e-5, "{name}: {n} nodes, node {node} off by {error:e}");
                }
            }
        }
    }

    #[test]
    fn placement_is_the_roots_parent_in_the_job_and_in_the_pose() {
        let mut rng = Rng::new(11);
        let (hierarchy, pose) = random_case(&mut rng, 19);
        let (rotation, translation) = (Quat::from_rotation_y(0.7), Vec3::new(3.0, 0.0, -2.0));
        let placement = Affine3A::from_rotation_translation(rotation, translation);
        let mut placed = vec![Affine3A::ZERO; 19];
        hierarchy.local_to_model_placed(&pose, &mut LocalMatrices::new(19), &placement, &mut placed);
        let mut placed_pose = pose.clone();
        hierarchy.place_roots(&mut placed_pose, rotation, translation);
        let from_pose = reference_local_to_model(&hierarchy, &placed_pose);
        for ((got, expected), posed) in placed.iter().zip(reference_local_to_model(&hierarchy, &pose)).zip(&from_pose) {
            assert!(affine_error(got, &(placement * expected)) < 1e-5);
            assert!(affine_error(got, posed) < 1e-5);
        }
    }

    #[test]
    fn the_tree_is_built_once_from_children_with_every_bad_case_rejected() {
        let h = Hierarchy::from_children(&[vec![2, 1], vec![3], vec![], vec![]]).expect("a tree");
        assert_eq!(h.children(node(0)), &[node(2), node(1)]);
        assert_eq!(h.parent(node(3)), Some(node(1)));
        assert_eq!(h.parent(node(0)), None);
        assert_eq!(h.order(), &[node(0), node(2), node(1), node(3)]);
        assert_eq!(h.roots().collect::<Vec<_>>(), vec![node(0)]);
        assert_eq!(h.children(node(9)), &[] as &[NodeId]);
        assert_eq!(
            Hierarchy::from_children(&[vec![1], vec![5]]),
            Err(HierarchyError::NodeOutOfRange { node: node(1), referenced: 5 })
        );
        assert_eq!(
            Hierarchy::from_children(&[vec![2], vec![2], vec![]]),
            Err(HierarchyError::TwoParents { child: node(2), first: node(0), second: node(1) })
        );
        assert_eq!(Hierarchy::from_children(&[vec![0]]), Err(HierarchyError::Cycle { node: node(0) }));
        let cycle = Hierarchy::from_children(&[vec![], vec![2], vec![1]]);
        assert!(matches!(cycle, Err(HierarchyError::Cycle { node }) if node == self::node(1) || node == self::node(2)));
        assert_eq!(
            Hierarchy::from_parents(&[None, Some(node(4))]),
            Err(HierarchyError::NodeOutOfRange { node: node(1), referenced: 4 })
        );
    }
}
