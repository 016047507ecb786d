//! [`RagdollSpec`]: which bones become rigid bodies, what each one is anatomically, their
//! capsules and the anatomical joints between them, built from any skin.

use anim::{LocalMatrices, Model, NodeId};
use glam::{Affine3A, Mat3, Quat, Vec3};

use super::BodyId;
use super::anatomy::{BoneKind, FlexionHint, JointLimits, Limb, NameHint, Neutral, Side, recognise};

/// Why a ragdoll cannot be built for a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RagdollError {
    /// The model has no skin.
    #[error("the model has no skin to build a ragdoll from")]
    NoSkin,
    /// No bone of the skin is large enough to carry a body.
    #[error("no bone of skin {skin} is large enough for a rigid body")]
    NoBodies {
        /// The skin used.
        skin: usize,
    },
}

/// Bones shorter than this fraction of the character's size are merged into their parent.
const MIN_BONE_FRACTION: f32 = 0.05;

/// Every character is simulated as if its size (largest extent of its skinned rest mesh) were
/// this many metres: the unit is taken from the file's size, continuously, so a rig authored in
/// centimetres, metres or anything else falls the same way (override with
/// [`super::RagdollSettings::metres_per_unit`]).
pub const REFERENCE_SIZE_M: f32 = 1.7;

/// A bone offset from the midline by less than this fraction of the size counts as central.
const MIDLINE_FRACTION: f32 = 0.03;

/// A sideways bone starting within this fraction of the size from the midline is a clavicle.
const CLAVICLE_FRACTION: f32 = 0.08;

/// How the kind of a body was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindSource {
    /// From the bone's name.
    Name,
    /// From a name that gives the limb, and the bone's place in its chain.
    Chain,
    /// From the skeleton's geometry (bone direction and chain).
    Geometry,
}

/// One rigid body of the ragdoll: a capsule along a bone, and the joint to its parent body.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySpec {
    /// The node (skin joint) the body drives.
    pub node: NodeId,
    /// The node's name (or `node_<index>`).
    pub name: String,
    /// What the body is.
    pub kind: BoneKind,
    /// Which side of the body it is on.
    pub side: Side,
    /// How `kind` was found.
    pub kind_source: KindSource,
    /// Parent body (the nearest ancestor with a body), `None` for a root body.
    pub parent: Option<BodyId>,
    /// Capsule segment start in the body frame (the joint's rigid world frame), model units.
    pub capsule_a: Vec3,
    /// Capsule segment end in the body frame, model units.
    pub capsule_b: Vec3,
    /// Capsule radius, model units.
    pub radius: f32,
    /// World rotation of the body frame in the rest pose.
    pub rest_rotation: Quat,
    /// World scale of the body's node in the rest pose (the capsule follows the node's scale
    /// at the handoff: an animation that scales a bone scales its collider).
    pub rest_scale: Vec3,
    /// World position of the body's joint in the rest pose.
    pub rest_origin: Vec3,
    /// `body_from_joint_frame` rotation of the joint to the parent: X along this bone, Y the
    /// flexion axis, Z the abduction axis.
    pub joint_frame_child: Quat,
    /// `parent_body_from_joint_frame` rotation: the same axes at the joint's neutral position
    /// (identity for a root body).
    pub joint_frame_parent: Quat,
    /// Angular limits of the joint to the parent ([`JointLimits`]), widened to contain the rest
    /// pose.
    pub limits: JointLimits,
    /// The joint is a one-way hinge (knee, elbow).
    pub hinge: bool,
}

impl BodySpec {
    /// How much larger than at rest the body's node is in `world` (its world transform): the
    /// largest axis ratio, clamped to `[0.1, 10]`.
    pub fn scale_in(&self, world: &Affine3A) -> f32 {
        let (now, _, _) = world.to_scale_rotation_translation();
        let ratio = (now.abs() / self.rest_scale.abs().max(Vec3::splat(f32::MIN_POSITIVE))).max_element();
        if ratio.is_finite() && ratio > 0.0 { ratio.clamp(0.1, 10.0) } else { 1.0 }
    }

    /// The capsule `(a, b, radius)` in world space for the body's node at `world`.
    pub fn capsule_in(&self, world: &Affine3A) -> (Vec3, Vec3, f32) {
        let s = self.scale_in(world);
        let (_, r, t) = world.to_scale_rotation_translation();
        (t + r * (self.capsule_a * s), t + r * (self.capsule_b * s), self.radius * s)
    }

    /// Capsule volume in cubic model units.
    pub fn volume(&self) -> f32 {
        let r = self.radius;
        std::f32::consts::PI * r * r * (self.capsule_a.distance(self.capsule_b) + 4.0 / 3.0 * r)
    }
}

/// The ragdoll layout of a model: bodies, joints and which nodes follow which body.
#[derive(Debug, Clone, PartialEq)]
pub struct RagdollSpec {
    /// The skin used.
    pub skin: usize,
    /// Bodies, parents before children along the node tree (a body attached to another tree by
    /// proximity, see [`RagdollSpec::root`], may come before its parent).
    pub bodies: Vec<BodySpec>,
    /// For each node: the body it moves with rigidly — its own, the body it was merged into
    /// (fingers, toes, twist bones), its nearest simulated ancestor's, or for skin joints above
    /// or beside the ragdoll the root body; `None` for nodes outside the skeleton.
    pub node_body: Vec<Option<BodyId>>,
    /// Size of the character: the largest extent of its skinned rest mesh (model units).
    pub size: f32,
    /// Metres per model unit as simulated: [`REFERENCE_SIZE_M`] / `size`.
    pub metres_per_unit: f32,
    /// The root body of the main tree (the one holding the most bodies).
    pub root: BodyId,
    /// The character's up direction in the rest pose (world +Y).
    pub up: Vec3,
    /// The direction the character faces in the rest pose: its feet's direction when it has
    /// recognised feet, else glTF's +Z.
    pub forward: Vec3,
}

/// A body candidate before kinds and merges are settled.
#[derive(Debug, Clone)]
struct Draft {
    node: usize,
    name: String,
    hint: NameHint,
    parent: Option<usize>,
    origin: Vec3,
    end: Vec3,
    kind: BoneKind,
    side: Side,
    source: KindSource,
    /// Set when merged: the draft it joined.
    merged_into: Option<usize>,
    /// Placeholder while classifying: a midline bone whose spine/neck/head role is settled by
    /// where the arms branch.
    axial: bool,
}

impl Draft {
    fn direction(&self) -> Vec3 {
        (self.end - self.origin).normalize_or(Vec3::Y)
    }
}

impl RagdollSpec {
    /// Build the ragdoll layout from the skin with the most joints, in the model's rest pose
    /// (world space: the scene's root transforms are included, so Z-up files work).
    ///
    /// One body per significant bone: a capsule from the joint to the child joint that best
    /// continues the bone (or, for a leaf, along its skinned vertices), radius from the vertices
    /// whose dominant influence is that bone (rigid meshes hanging under a joint count too), and
    /// never reaching below the skin's lowest point. Each body gets a kind: from its name where
    /// a naming scheme recognises it ([`recognise`]), from its place in a limb where the name
    /// only says "arm" or "leg", else from the geometry (bone direction, side, and where in the
    /// tree it hangs). Merged into another body instead: bones shorter than 5% of the character's
    /// size, leaves whose vertices do not reach that far, bones that carry no vertices
    /// (helpers), fingers and toes (into the hand or foot), repeats of a limb segment (twist
    /// bones) and everything below a hand or foot. Extra root bodies (IK-parented feet) are
    /// jointed to the nearest body.
    ///
    /// # Errors
    /// [`RagdollError::NoSkin`] without a skin, [`RagdollError::NoBodies`] when no bone is large
    /// enough.
    pub fn from_model(model: &Model) -> Result<Self, RagdollError> {
        let skin_index =
            (0..model.skins().len()).max_by_key(|&s| model.skins()[s].joints.len()).ok_or(RagdollError::NoSkin)?;
        let skin = &model.skins()[skin_index];
        let node_count = model.nodes().len();
        let rest = model.rest_pose();
        let mut world = vec![Affine3A::IDENTITY; node_count];
        model.hierarchy.local_to_model(&rest, &mut LocalMatrices::new(node_count), &mut world);

        let mut is_joint = vec![false; node_count];
        for j in skin.joints.iter().map(|j| j.index()) {
            if let Some(flag) = is_joint.get_mut(j) {
                *flag = true;
            }
        }
        let vertices = dominant_vertices(model, &world, &is_joint);
        let size = character_size(&vertices, skin, &world);
        let min_len = MIN_BONE_FRACTION * size;
        let up = Vec3::Y;

        // Subtree sizes (joint descendants), children before parents.
        let mut subtree = vec![1usize; node_count];
        for node in order(model).rev() {
            if let Some(p) = parent_of(model, node) {
                subtree[p] += subtree[node];
            }
        }

        // 1. Candidates: joints with vertices and a bone long enough.
        let has_vertices = vertices.iter().any(|v| !v.is_empty());
        let mut drafts: Vec<Draft> = Vec::new();
        let mut node_draft: Vec<Option<usize>> = vec![None; node_count];
        for node in order(model) {
            let parent = parent_of(model, node);
            let parent_draft = parent.and_then(|p| node_draft[p]);
            // A joint that no vertex follows most still carries a body when it links two skinned
            // bones of one chain — its parent's bone ends at it and a child joint has vertices
            // (a tail's middle bone between two weighted ones): merged, its bend would happen
            // between two bodies jointed at the child, whose joint the clip moves against the
            // parent body (Fox's Run started its tail tip 0.31 sizes/s off the clip).
            let continues_parent = parent_draft.is_some_and(|d| {
                Some(drafts[d].node) == parent && drafts[d].end == Vec3::from(world[node].translation)
            });
            let link = continues_parent
                && model
                    .hierarchy
                    .children(NodeId::from_index(node))
                    .iter()
                    .any(|c| is_joint.get(c.index()) == Some(&true) && !vertices[c.index()].is_empty());
            if !is_joint[node] || (has_vertices && vertices[node].is_empty() && !link) {
                node_draft[node] = parent_draft;
                continue;
            }
            let Some(end) = bone_segment(model, node, &is_joint, &world, &subtree, &vertices[node], min_len) else {
                node_draft[node] = parent_draft;
                continue;
            };
            let name = model.nodes()[node].name.clone().unwrap_or_else(|| format!("node_{node}"));
            node_draft[node] = Some(drafts.len());
            drafts.push(Draft {
                node,
                hint: recognise(&name),
                name,
                parent: parent_draft,
                origin: world[node].translation.into(),
                end,
                kind: BoneKind::Other,
                side: Side::Centre,
                source: KindSource::Geometry,
                merged_into: None,
                axial: false,
            });
        }
        if drafts.is_empty() {
            return Err(RagdollError::NoBodies { skin: skin_index });
        }
        // Extra roots (IK-parented feet) join the main tree by proximity before classifying,
        // so that they classify as part of their limb.
        attach_extra_draft_roots(&mut drafts, size);

        // 2. Kinds and sides.
        let forward = facing(&drafts, up);
        let left = up.cross(forward).normalize_or(Vec3::X);
        classify(&mut drafts, up, forward, left, size);

        // 3. Merges: digits into the hand or foot, repeats of a limb segment, anything below a
        // hand or foot, a second hand or foot of the same side.
        for i in 0..drafts.len() {
            let Some(p) = drafts[i].parent else { continue };
            let target = live(&drafts, p);
            let (kind, side) = (drafts[i].kind, drafts[i].side);
            let parent_kind = drafts[target].kind;
            let below_extremity = matches!(parent_kind, BoneKind::Hand | BoneKind::Foot);
            let same = kind.merges_repeats() && parent_kind == kind && drafts[target].side == side;
            if kind.is_digit() || below_extremity || same {
                let extremity = if kind.is_digit() {
                    let wanted = if kind == BoneKind::Toes { BoneKind::Foot } else { BoneKind::Hand };
                    (0..i).find(|&j| {
                        drafts[j].merged_into.is_none() && drafts[j].kind == wanted && drafts[j].side == side
                    })
                } else {
                    None
                };
                merge(&mut drafts, i, extremity.unwrap_or(target));
            } else if matches!(kind, BoneKind::Hand | BoneKind::Foot)
                && let Some(first) = (0..i)
                    .find(|&j| drafts[j].merged_into.is_none() && drafts[j].kind == kind && drafts[j].side == side)
            {
                merge(&mut drafts, i, first);
            }
        }

        // 3b. The body tree from the anatomy: each limb segment jointed to its anatomical parent
        // (a foot to its shin, a hand to its forearm), whatever the node tree says — rigs hang
        // feet and hands under IK control bones.
        joint_by_anatomy(&mut drafts);

        // 4. Bodies, parents before children.
        let floor_y = vertices.iter().flatten().map(|v| v.y).fold(f32::MAX, f32::min);
        let mut draft_body: Vec<Option<BodyId>> = vec![None; drafts.len()];
        let mut bodies: Vec<BodySpec> = Vec::new();
        for i in parents_first(&drafts) {
            let draft = &drafts[i];
            let node = draft.node;
            let (rest_scale, rotation, _) = world[node].to_scale_rotation_translation();
            let rotation = rotation.normalize();
            let origin = draft.origin;
            let end = draft.end;
            // Vertices of the body and of everything merged into it.
            let mut points: Vec<Vec3> = vertices[node].clone();
            for other in &drafts {
                if other.merged_into.map(|m| live(&drafts, m)) == Some(i) {
                    points.extend_from_slice(&vertices[other.node]);
                }
            }
            // The capsule along the bone, or for the torso and head fitted to the vertices when the
            // bone misses most of them (a torso merged into a hip bone that points at a leg, a
            // wide helmet on a short head bone).
            let torso = matches!(draft.kind, BoneKind::Hips | BoneKind::Spine | BoneKind::Head);
            let fitted = if torso { fitted_segment(&points, origin, end, size) } else { None };
            let (start, end) = fitted.unwrap_or((origin, end));
            let above_floor = if has_vertices { start.y.min(end.y) - floor_y } else { f32::MAX };
            // Torsos and heads are blobs (a helmet, a belly): their capsule reaches further.
            let radius = if torso {
                distance_percentile(&points, start, end, 0.7).clamp(0.01 * size, 0.25 * size)
            } else {
                capsule_radius(&points, start, end, size)
            };
            let radius = radius.min(above_floor.max(0.01 * size));
            let body_from_world = rotation.inverse();
            let parent = draft.parent.map(|p| live(&drafts, p)).and_then(|p| draft_body[p]);
            draft_body[i] = Some(BodyId::from_index(bodies.len()));
            bodies.push(BodySpec {
                node: NodeId::from_index(node),
                name: draft.name.clone(),
                kind: draft.kind,
                side: draft.side,
                kind_source: draft.source,
                parent,
                capsule_a: body_from_world * (start - origin),
                capsule_b: body_from_world * (end - origin),
                radius,
                rest_rotation: rotation,
                rest_scale,
                rest_origin: origin,
                joint_frame_child: Quat::IDENTITY,
                joint_frame_parent: Quat::IDENTITY,
                limits: JointLimits::symmetric(0.0, 0.0),
                hinge: false,
            });
        }
        for b in 0..bodies.len() {
            let Some(p) = bodies[b].parent else { continue };
            set_joint(&mut bodies, b, p.index(), up, forward, left);
        }

        // 5. Which body each node follows.
        let mut node_body: Vec<Option<BodyId>> = vec![None; node_count];
        for node in order(model) {
            let own = node_draft[node].map(|d| live(&drafts, d)).and_then(|d| draft_body[d]);
            node_body[node] = own;
        }
        let root = main_root(&bodies);
        for j in skin.joints.iter().map(|j| j.index()) {
            if let Some(slot) = node_body.get_mut(j)
                && slot.is_none()
            {
                *slot = Some(root);
            }
        }
        // Nodes hanging under a skin joint above the ragdoll follow it too.
        for node in order(model) {
            if node_body[node].is_none()
                && let Some(p) = parent_of(model, node)
                && is_joint[p]
            {
                node_body[node] = node_body[p];
            }
        }
        let metres_per_unit = REFERENCE_SIZE_M / size;
        Ok(Self { skin: skin_index, bodies, node_body, size, metres_per_unit, root, up, forward })
    }

    /// Number of joints (bodies with a parent body).
    pub fn joint_count(&self) -> usize {
        self.bodies.iter().filter(|b| b.parent.is_some()).count()
    }

    /// Bodies without a parent body other than [`Self::root`]: parts that would fall on their
    /// own (0 when every recognised bone is jointed to the body tree).
    pub fn unjointed_bodies(&self) -> usize {
        self.bodies.iter().enumerate().filter(|&(b, body)| body.parent.is_none() && b != self.root.index()).count()
    }

    /// For each node: true when a body simulates it — the body's own node, or a node below it in
    /// the node tree riding on it (a merged twist bone, a finger). Nodes that merely follow a
    /// body without being part of its bone (IK targets and controls, the armature root, which
    /// ride on the root body) are false.
    pub fn simulated_nodes(&self, model: &Model) -> Vec<bool> {
        let mut simulated = vec![false; self.node_body.len()];
        for node in order(model) {
            let Some(body) = self.body_for_node(NodeId::from_index(node)).and_then(|b| self.body(b)) else { continue };
            let mut at = Some(node);
            while let Some(n) = at {
                if n == body.node.index() {
                    simulated[node] = true;
                    break;
                }
                at = parent_of(model, n);
            }
        }
        simulated
    }

    /// A body by id.
    pub fn body(&self, id: BodyId) -> Option<&BodySpec> {
        self.bodies.get(id.index())
    }

    /// Every body id, in order.
    pub fn body_ids(&self) -> impl Iterator<Item = BodyId> + use<> {
        (0..self.bodies.len()).map(BodyId::from_index)
    }

    /// The body a node moves with — its own, the one it was merged into, or its nearest
    /// simulated ancestor's — the one rule the viewer (a picked joint) and the command line (a
    /// bone name) share. `None` for nodes outside the skeleton.
    pub fn body_for_node(&self, node: NodeId) -> Option<BodyId> {
        self.node_body.get(node.index()).copied().flatten()
    }

    /// [`Self::body_for_node`] of the node with this exact name.
    pub fn body_for_node_named(&self, model: &Model, name: &str) -> Option<BodyId> {
        let node = model.nodes().iter().position(|n| n.name.as_deref() == Some(name))?;
        self.body_for_node(NodeId::from_index(node))
    }

    /// The bodies of the subtree rooted at `region_root` (it and every body below it): a
    /// partial ragdoll's region.
    pub fn region_bodies(&self, region_root: BodyId) -> Vec<bool> {
        let mut inside = vec![false; self.bodies.len()];
        for (b, flag) in inside.iter_mut().enumerate() {
            let mut at = Some(BodyId::from_index(b));
            while let Some(id) = at {
                if id == region_root {
                    *flag = true;
                    break;
                }
                at = self.body(id).and_then(|body| body.parent);
            }
        }
        inside
    }

    /// Number of body-tree edges between two bodies (`None` when in different trees).
    pub fn hops(&self, a: BodyId, b: BodyId) -> Option<usize> {
        let chain = |mut x: BodyId| {
            let mut v = vec![x];
            while let Some(p) = self.body(x).and_then(|body| body.parent) {
                v.push(p);
                x = p;
            }
            v
        };
        let (ca, cb) = (chain(a), chain(b));
        for (i, x) in ca.iter().enumerate() {
            if let Some(j) = cb.iter().position(|y| y == x) {
                return Some(i + j);
            }
        }
        None
    }

    /// The character's left in the rest pose.
    pub fn left(&self) -> Vec3 {
        self.up.cross(self.forward).normalize_or(Vec3::X)
    }
}

/// The draft a merged draft ended up in.
fn live(drafts: &[Draft], mut i: usize) -> usize {
    while let Some(m) = drafts[i].merged_into {
        i = m;
    }
    i
}

/// Merge draft `i` into `target`: the target's capsule reaches as far as the merged bone when
/// it continues it (twist bones, split segments).
fn merge(drafts: &mut [Draft], i: usize, target: usize) {
    let target = live(drafts, target);
    drafts[i].merged_into = Some(target);
    let (origin, end) = (drafts[target].origin, drafts[target].end);
    let candidate = drafts[i].end;
    let along = (end - origin).normalize_or_zero();
    if drafts[i].kind == drafts[target].kind
        && (candidate - origin).dot(along) > (end - origin).length()
        && (candidate - origin).normalize_or_zero().dot(along) > 0.9
    {
        drafts[target].end = candidate;
    }
}

/// The root body holding the most bodies.
fn main_root(bodies: &[BodySpec]) -> BodyId {
    let root_of = |mut b: usize| {
        while let Some(p) = bodies[b].parent {
            b = p.index();
        }
        b
    };
    let mut count = vec![0usize; bodies.len()];
    for b in 0..bodies.len() {
        count[root_of(b)] += 1;
    }
    let best = (0..bodies.len()).max_by(|&a, &b| count[a].cmp(&count[b]).then(b.cmp(&a))).unwrap_or(0);
    BodyId::from_index(best)
}

/// Attach every draft root other than the main one (feet parented to the armature for IK,
/// loose props) to the nearest draft of the main tree, when it lies within a tenth of the
/// character's size.
fn attach_extra_draft_roots(drafts: &mut [Draft], size: f32) {
    let root_of = |drafts: &[Draft], mut b: usize| {
        while let Some(p) = drafts[b].parent {
            b = p;
        }
        b
    };
    let roots: Vec<usize> = (0..drafts.len()).filter(|&b| drafts[b].parent.is_none()).collect();
    let tree_size = |drafts: &[Draft], r: usize| (0..drafts.len()).filter(|&b| root_of(drafts, b) == r).count();
    let Some(main) =
        roots.iter().copied().max_by(|&a, &b| tree_size(drafts, a).cmp(&tree_size(drafts, b)).then(b.cmp(&a)))
    else {
        return;
    };
    for &extra in roots.iter().filter(|&&r| r != main) {
        let origin = drafts[extra].origin;
        let nearest = (0..drafts.len())
            .filter(|&b| root_of(drafts, b) == main)
            .map(|b| (b, point_segment_distance(origin, drafts[b].origin, drafts[b].end)))
            .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
        if let Some((parent, distance)) = nearest
            && distance < 0.1 * size
        {
            drafts[extra].parent = Some(parent);
        }
    }
}

/// The anatomical parents of a limb segment, in order of preference (`None`: not a limb segment
/// whose parent the anatomy fixes).
fn anatomical_parents(kind: BoneKind) -> Option<&'static [BoneKind]> {
    match kind {
        BoneKind::Foot => Some(&[BoneKind::LowerLeg, BoneKind::UpperLeg]),
        BoneKind::LowerLeg => Some(&[BoneKind::UpperLeg]),
        BoneKind::Hand => Some(&[BoneKind::LowerArm, BoneKind::UpperArm]),
        BoneKind::LowerArm => Some(&[BoneKind::UpperArm]),
        _ => None,
    }
}

/// Re-joint every live limb segment whose parent is not its anatomical parent (a foot under an
/// IK control bone, attached by proximity or not at all) to the nearest live draft of the
/// anatomical parent's kind on the same side, when there is one and it is not below it.
fn joint_by_anatomy(drafts: &mut [Draft]) {
    for i in 0..drafts.len() {
        if drafts[i].merged_into.is_some() {
            continue;
        }
        let Some(wanted) = anatomical_parents(drafts[i].kind) else { continue };
        let side = drafts[i].side;
        let current = drafts[i].parent.map(|p| live(drafts, p));
        if current.is_some_and(|p| drafts[p].side == side && wanted.contains(&drafts[p].kind)) {
            continue;
        }
        let below = |drafts: &[Draft], mut c: usize| {
            let mut hops = 0;
            while let Some(p) = drafts[c].parent.map(|p| live(drafts, p)) {
                if p == i {
                    return true;
                }
                c = p;
                hops += 1;
                if hops > drafts.len() {
                    return true;
                }
            }
            false
        };
        let origin = drafts[i].origin;
        let found = wanted.iter().find_map(|&kind| {
            (0..drafts.len())
                .filter(|&c| c != i && drafts[c].merged_into.is_none())
                .filter(|&c| drafts[c].kind == kind && drafts[c].side == side && !below(drafts, c))
                .min_by(|&a, &b| {
                    let d = |c: usize| origin.distance(drafts[c].end);
                    d(a).total_cmp(&d(b)).then(a.cmp(&b))
                })
        });
        if let Some(parent) = found {
            drafts[i].parent = Some(parent);
        }
    }
}

/// The live drafts (not merged), every one after its live parent; otherwise in draft order.
fn parents_first(drafts: &[Draft]) -> Vec<usize> {
    let mut placed = vec![false; drafts.len()];
    let mut out = Vec::with_capacity(drafts.len());
    let live_drafts: Vec<usize> = (0..drafts.len()).filter(|&i| drafts[i].merged_into.is_none()).collect();
    for _ in 0..=drafts.len() {
        let before = out.len();
        for &i in &live_drafts {
            let parent = drafts[i].parent.map(|p| live(drafts, p));
            if !placed[i] && parent.is_none_or(|p| placed[p] || p == i) {
                placed[i] = true;
                out.push(i);
            }
        }
        if out.len() == live_drafts.len() || out.len() == before {
            break;
        }
    }
    // A cycle (never made here) would leave drafts out: they become roots rather than vanish.
    out.extend(live_drafts.iter().copied().filter(|&i| !placed[i]));
    out
}

/// The direction the character faces: the mean horizontal direction of bones named as feet,
/// else glTF's +Z ("the front of an asset faces +Z").
fn facing(drafts: &[Draft], up: Vec3) -> Vec3 {
    let sum: Vec3 = drafts
        .iter()
        .filter(|d| d.hint.kind == Some(BoneKind::Foot))
        .map(|d| {
            let dir = d.direction();
            (dir - up * dir.dot(up)).normalize_or_zero()
        })
        .sum();
    sum.try_normalize().filter(|f| f.is_finite()).unwrap_or(Vec3::Z)
}

/// Settle every draft's kind and side, parents first: the name's kind where it gives one; the
/// next segment of the limb where the name only says "arm" or "leg"; else the geometry.
fn classify(drafts: &mut [Draft], up: Vec3, forward: Vec3, left: Vec3, size: f32) {
    let root = (0..drafts.len()).find(|&i| drafts[i].parent.is_none()).unwrap_or(0);
    let root_origin = drafts[root].origin;
    let lateral = |p: Vec3| (p - root_origin).dot(left);
    let geometric_side = |p: Vec3| {
        let x = lateral(p);
        if x > MIDLINE_FRACTION * size {
            Side::Left
        } else if x < -MIDLINE_FRACTION * size {
            Side::Right
        } else {
            Side::Centre
        }
    };
    for i in 0..drafts.len() {
        let hint = drafts[i].hint;
        let parent = drafts[i].parent;
        let origin = drafts[i].origin;
        let dir = drafts[i].direction();
        let parent_kind = parent.map(|p| drafts[p].kind);
        let parent_side = parent.map_or(Side::Centre, |p| drafts[p].side);
        // A limb ancestor of the same limb and side (for "arm"/"leg" names).
        let limb_ancestor = |drafts: &[Draft], limb: Limb, side: Side| {
            let mut at = parent;
            while let Some(a) = at {
                if drafts[a].kind.limb() == Some(limb) && drafts[a].side == side {
                    return Some(drafts[a].kind);
                }
                at = drafts[a].parent;
            }
            None
        };
        let sideways = dir.dot(left).abs();
        let is_clavicle = sideways > 0.5 && lateral(origin).abs() < CLAVICLE_FRACTION * size;
        let (kind, source, axial) = if let Some(kind) = hint.kind {
            let kind = if parent.is_none() && matches!(kind, BoneKind::Spine) { BoneKind::Hips } else { kind };
            (kind, KindSource::Name, false)
        } else if let Some(limb) = hint.limb {
            let side = hint.side.unwrap_or_else(|| geometric_side(origin));
            let kind = match limb_ancestor(drafts, limb, side).and_then(BoneKind::successor) {
                Some(next) => next,
                None if limb == Limb::Arm && is_clavicle => BoneKind::Shoulder,
                None => limb.first(),
            };
            (kind, KindSource::Chain, false)
        } else {
            match parent_kind {
                None => (BoneKind::Hips, KindSource::Geometry, false),
                Some(pk) if pk.limb().is_some() || pk == BoneKind::Tail => {
                    (pk.successor().unwrap_or(BoneKind::Other), KindSource::Geometry, false)
                }
                Some(pk) => {
                    let central = lateral(origin).abs() < MIDLINE_FRACTION * size && sideways < 0.5;
                    let backward = -dir.dot(forward);
                    if central {
                        if pk == BoneKind::Hips && backward > 0.5 {
                            (BoneKind::Tail, KindSource::Geometry, false)
                        } else if dir.dot(up) > 0.3 || dir.dot(forward) > 0.5 {
                            (BoneKind::Spine, KindSource::Geometry, true)
                        } else {
                            (BoneKind::Other, KindSource::Geometry, false)
                        }
                    } else if dir.dot(forward).abs() > 0.7 {
                        // Off the midline and pointing forward or back (a breast or belt bone,
                        // a pouch): no limb.
                        (BoneKind::Other, KindSource::Geometry, false)
                    } else if pk == BoneKind::Hips {
                        let kind = if dir.dot(up) < 0.0 { BoneKind::UpperLeg } else { BoneKind::Other };
                        (kind, KindSource::Geometry, false)
                    } else if is_clavicle {
                        (BoneKind::Shoulder, KindSource::Geometry, false)
                    } else {
                        (BoneKind::UpperArm, KindSource::Geometry, false)
                    }
                }
            }
        };
        let side = hint.side.unwrap_or_else(|| match geometric_side(origin) {
            Side::Centre if kind.limb().is_some() => parent_side,
            side => side,
        });
        let side = if matches!(kind, BoneKind::Hips | BoneKind::Spine | BoneKind::Neck | BoneKind::Head)
            && hint.side.is_none()
        {
            Side::Centre
        } else {
            side
        };
        drafts[i].kind = kind;
        drafts[i].side = side;
        drafts[i].source = source;
        drafts[i].axial = axial;
    }
    // Midline chains classified by geometry: spine up to where the arms branch (the chest),
    // neck above it, the top leaf the head.
    let children = |drafts: &[Draft], i: usize| -> Vec<usize> {
        (0..drafts.len()).filter(|&c| drafts[c].parent == Some(i)).collect::<Vec<_>>()
    };
    let is_chest = |drafts: &[Draft], i: usize| {
        children(drafts, i).iter().any(|&c| matches!(drafts[c].kind, BoneKind::Shoulder | BoneKind::UpperArm))
    };
    for i in 0..drafts.len() {
        if !drafts[i].axial {
            continue;
        }
        let mut above_chest = false;
        let mut at = drafts[i].parent;
        while let Some(a) = at {
            if is_chest(drafts, a) && matches!(drafts[a].kind, BoneKind::Spine | BoneKind::Hips | BoneKind::Neck) {
                above_chest = true;
                break;
            }
            at = drafts[a].parent;
        }
        if above_chest {
            let leaf = !children(drafts, i).iter().any(|&c| drafts[c].axial);
            drafts[i].kind = if leaf { BoneKind::Head } else { BoneKind::Neck };
        }
    }
    // A neck chain named without a head (CesiumMan's neck_joint_2 carries the head): its top
    // leaf is the head.
    if !drafts.iter().any(|d| d.kind == BoneKind::Head) {
        for i in 0..drafts.len() {
            let leaf = !children(drafts, i).iter().any(|&c| drafts[c].kind == BoneKind::Neck);
            if drafts[i].kind == BoneKind::Neck
                && leaf
                && drafts[i].parent.is_some_and(|p| drafts[p].kind == BoneKind::Neck)
            {
                drafts[i].kind = BoneKind::Head;
            }
        }
    }
}

/// Set the joint of body `b` to its parent `p`: frames from the kind's [`JointModel`]
/// (neutral direction, flexion axis, which way is outward) and limits widened to contain the
/// rest pose.
///
/// [`JointModel`]: super::anatomy::JointModel
fn set_joint(bodies: &mut [BodySpec], b: usize, p: usize, up: Vec3, forward: Vec3, left: Vec3) {
    let model = bodies[b].kind.joint_model();
    let direction = |body: &BodySpec| (body.rest_rotation * (body.capsule_b - body.capsule_a)).normalize_or(Vec3::Y);
    let d = direction(&bodies[b]);
    let dp = direction(&bodies[p]);
    let n = match model.neutral {
        Neutral::Bind => d,
        Neutral::Down => -up,
        Neutral::Parent => dp,
    };
    let hint = match model.flexion_hint {
        FlexionHint::Forward => forward,
        FlexionHint::Backward => -forward,
        FlexionHint::Up => up,
        FlexionHint::Down => -up,
    };
    let perp = |f: Vec3| f - n * n.dot(f);
    let mut flexion = hint;
    if model.hinge {
        // A hinge bent in the rest pose bends in that plane.
        let bend = perp(d);
        if bend.length() > 0.14 && bend.normalize().dot(hint) > -0.3 {
            flexion = bend.normalize();
        }
    }
    let candidates = [flexion, forward, up, left];
    let f = candidates.iter().map(|&f| perp(f)).find(|f| f.length() > 0.3).unwrap_or(Vec3::Y).normalize();
    let y = n.cross(f).normalize_or(Vec3::Y);
    let z = n.cross(y);
    let neutral = Quat::from_mat3(&Mat3::from_cols(n, y, z)).normalize();
    let frame2 = (Quat::from_rotation_arc(n, d) * neutral).normalize();
    // +Z rotation moves the bone toward +Y: abduction is positive outward.
    let outward = match bodies[b].side {
        Side::Left => left,
        Side::Right => -left,
        Side::Centre => y,
    };
    let abduction = if y.dot(outward) >= 0.0 { model.abduction } else { [-model.abduction[1], -model.abduction[0]] };
    // The parent's frame sits at the middle of the ranges, so that the limits are symmetric and
    // the angles Rapier measures stay far from the half-turn where they wrap and couple.
    let centre_y = 0.5 * (model.flexion[0] + model.flexion[1]);
    let centre_z = 0.5 * (abduction[0] + abduction[1]);
    let frame1 = (neutral * Quat::from_rotation_y(centre_y) * Quat::from_rotation_z(centre_z)).normalize();
    let half = |[lo, hi]: [f32; 2]| 0.5 * (hi - lo);
    let (half_y, half_z) = (half(model.flexion), half(abduction));
    let limits =
        JointLimits { twist: [-model.twist, model.twist], swing_y: [-half_y, half_y], swing_z: [-half_z, half_z] };
    let rest_angles = axis_angles(frame1.inverse() * frame2);
    let parent_rotation = bodies[p].rest_rotation;
    let body = &mut bodies[b];
    body.joint_frame_parent = (parent_rotation.inverse() * frame1).normalize();
    body.joint_frame_child = (body.rest_rotation.inverse() * frame2).normalize();
    body.limits = limits.widened_to(rest_angles, 2.0_f32.to_radians());
    body.hinge = model.hinge;
}

/// The three angles Rapier's joint limits measure on a relative joint-frame rotation:
/// `2·atan2(q_axis, q_w)` with `q_w ≥ 0`, for X (twist), Y (flexion), Z (abduction).
pub fn axis_angles(relative: Quat) -> [f32; 3] {
    let q = if relative.w < 0.0 { -relative } else { relative };
    [2.0 * q.x.atan2(q.w), 2.0 * q.y.atan2(q.w), 2.0 * q.z.atan2(q.w)]
}

/// The angles Rapier's joint motors measure (`2·asin(q_axis)`, `q_w ≥ 0`): a motor target.
pub fn motor_angles(relative: Quat) -> [f32; 3] {
    let q = if relative.w < 0.0 { -relative } else { relative };
    let a = |v: f32| 2.0 * v.clamp(-1.0, 1.0).asin();
    [a(q.x), a(q.y), a(q.z)]
}

/// The parent of node `node` (the spec keeps node indices as `usize`).
fn parent_of(model: &Model, node: usize) -> Option<usize> {
    model.hierarchy.parent(NodeId::from_index(node)).map(NodeId::index)
}

/// Every node index, parents before children.
fn order(model: &Model) -> impl DoubleEndedIterator<Item = usize> + '_ {
    model.hierarchy.order().iter().map(|node| node.index())
}

/// World-space rest positions of the skinned vertices of every skinned mesh, grouped by their
/// dominant joint node (exporters often give each mesh its own skin over the same joints). Rigid
/// meshes hanging under a joint (robot parts) count for their nearest joint ancestor.
fn dominant_vertices(model: &Model, world: &[Affine3A], is_joint: &[bool]) -> Vec<Vec<Vec3>> {
    let mut out = vec![Vec::new(); model.nodes().len()];
    for (index, node) in model.nodes().iter().enumerate() {
        if node.skin.is_none()
            && let Some(mesh) = node.mesh.and_then(|m| model.meshes().get(m))
        {
            let mut joint = Some(index);
            while let Some(j) = joint.filter(|&j| !is_joint[j]) {
                joint = parent_of(model, j);
            }
            if let Some(joint) = joint {
                let world_from_mesh = world[index];
                let points =
                    mesh.primitives.iter().flat_map(|p| &p.positions).map(|&p| world_from_mesh.transform_point3(p));
                out[joint].extend(points.filter(|p| p.is_finite()));
            }
            continue;
        }
        let (Some(skin), Some(mesh)) =
            (node.skin.and_then(|s| model.skins().get(s)), node.mesh.and_then(|m| model.meshes().get(m)))
        else {
            continue;
        };
        let palette: Vec<Affine3A> = skin
            .joints
            .iter()
            .zip(&skin.inverse_bind_matrices)
            .map(|(&j, ibm)| world.get(j.index()).copied().unwrap_or_default() * Affine3A::from_mat4(*ibm))
            .collect();
        for primitive in &mesh.primitives {
            let (Some(joints), Some(weights)) = (primitive.joints.first(), primitive.weights.first()) else {
                continue;
            };
            for ((&p, j4), w4) in primitive.positions.iter().zip(joints).zip(weights) {
                let w = w4.to_array();
                let mut skinned = Vec3::ZERO;
                let mut best = (0usize, f32::MIN);
                for k in 0..4 {
                    let Some(m) = palette.get(usize::from(j4[k])) else { continue };
                    skinned += w[k] * m.transform_point3(p);
                    if w[k] > best.1 {
                        best = (k, w[k]);
                    }
                }
                let Some(joint_node) = skin.joints.get(usize::from(j4[best.0])).map(|j| j.index()) else { continue };
                if skinned.is_finite()
                    && let Some(list) = out.get_mut(joint_node)
                {
                    list.push(skinned);
                }
            }
        }
    }
    out
}

/// Largest extent of the skinned vertices (of the joints when there are none); never zero.
fn character_size(vertices: &[Vec<Vec3>], skin: &anim::Skin, world: &[Affine3A]) -> f32 {
    let mut lo = Vec3::splat(f32::MAX);
    let mut hi = Vec3::splat(f32::MIN);
    let mut any = false;
    for v in vertices.iter().flatten() {
        lo = lo.min(*v);
        hi = hi.max(*v);
        any = true;
    }
    if !any {
        for j in skin.joints.iter().map(|j| j.index()) {
            if let Some(w) = world.get(j) {
                lo = lo.min(w.translation.into());
                hi = hi.max(w.translation.into());
                any = true;
            }
        }
    }
    let extent = if any { (hi - lo).max_element() } else { 1.0 };
    if extent.is_finite() && extent > f32::MIN_POSITIVE * 1e6 { extent } else { 1.0 }
}

/// The far end of a bone's capsule segment (world), or `None` for a bone too small for a body.
fn bone_segment(
    model: &Model,
    node: usize,
    is_joint: &[bool],
    world: &[Affine3A],
    subtree: &[usize],
    vertices: &[Vec3],
    min_len: f32,
) -> Option<Vec3> {
    let origin: Vec3 = world[node].translation.into();
    // The bone's incoming direction, from the parent joint.
    let incoming = parent_of(model, node)
        .filter(|&p| is_joint[p])
        .and_then(|p| (origin - Vec3::from(world[p].translation)).try_normalize());
    let children = model
        .hierarchy
        .children(NodeId::from_index(node))
        .iter()
        .map(|c| c.index())
        .filter(|&c| is_joint.get(c) == Some(&true));
    let best_child = match incoming {
        Some(dir) => children.max_by(|&a, &b| {
            let score = |c: usize| (Vec3::from(world[c].translation) - origin).normalize_or_zero().dot(dir);
            score(a).total_cmp(&score(b)).then(b.cmp(&a))
        }),
        None => children.max_by(|&a, &b| subtree[a].cmp(&subtree[b]).then(b.cmp(&a))),
    };
    if let Some(child) = best_child {
        let end: Vec3 = world[child].translation.into();
        if end.distance(origin) >= min_len {
            return Some(end);
        }
    }
    // A leaf (or a bone with only tiny children): along its own skinned vertices.
    if vertices.is_empty() {
        return None;
    }
    let centroid = vertices.iter().copied().sum::<Vec3>() / vertices.len() as f32;
    let direction = (centroid - origin).try_normalize().or(incoming)?;
    let extent = vertices.iter().map(|v| (*v - origin).dot(direction)).fold(0.0f32, f32::max);
    (extent >= min_len).then(|| origin + direction * (0.75 * extent))
}

/// A segment along the principal axis of `vertices` (from the 5th to the 95th percentile of
/// their spread), when it covers them clearly better than the bone's segment `origin`–`end`:
/// its 90th-percentile vertex distance is under two thirds of the bone's.
fn fitted_segment(vertices: &[Vec3], origin: Vec3, end: Vec3, size: f32) -> Option<(Vec3, Vec3)> {
    if vertices.len() < 16 {
        return None;
    }
    let percentile = |mut d: Vec<f32>, q: f32| {
        d.sort_by(f32::total_cmp);
        d[((d.len() - 1) as f32 * q) as usize]
    };
    let spread =
        |a: Vec3, b: Vec3| percentile(vertices.iter().map(|&v| point_segment_distance(v, a, b)).collect(), 0.9);
    let mean = vertices.iter().copied().sum::<Vec3>() / vertices.len() as f32;
    let mut covariance = Mat3::ZERO;
    for &v in vertices {
        let d = v - mean;
        covariance += Mat3::from_cols(d * d.x, d * d.y, d * d.z);
    }
    // Power iteration for the principal axis.
    let mut axis = (end - origin).normalize_or(Vec3::Y);
    for _ in 0..32 {
        axis = (covariance * axis).normalize_or(axis);
    }
    let along: Vec<f32> = vertices.iter().map(|&v| (v - mean).dot(axis)).collect();
    let (lo, hi) = (percentile(along.clone(), 0.05), percentile(along, 0.95));
    let radius_guess = percentile(
        vertices.iter().map(|&v| point_segment_distance(v, mean + axis * lo, mean + axis * hi)).collect(),
        0.5,
    );
    let shrink = radius_guess.min(0.4 * (hi - lo));
    let (a, b) = (mean + axis * (lo + shrink), mean + axis * (hi - shrink));
    let bone_spread = spread(origin, end);
    let better = bone_spread > 0.15 * size && spread(a, b) < 0.8 * bone_spread;
    (better && a.is_finite() && b.is_finite()).then_some((a, b))
}

/// The `q` quantile of the distances of `vertices` from the segment `[a, b]` (0 without
/// vertices).
fn distance_percentile(vertices: &[Vec3], a: Vec3, b: Vec3, q: f32) -> f32 {
    let mut distances: Vec<f32> = vertices.iter().map(|&v| point_segment_distance(v, a, b)).collect();
    distances.sort_by(f32::total_cmp);
    let i = ((distances.len().saturating_sub(1)) as f32 * q) as usize;
    distances.get(i).copied().unwrap_or(0.0)
}

/// Capsule radius: the median distance of the bone's dominant vertices from its segment, clamped
/// to sensible fractions of the bone and the character.
fn capsule_radius(vertices: &[Vec3], a: Vec3, b: Vec3, size: f32) -> f32 {
    let length = a.distance(b);
    let lower = 0.01 * size;
    let upper = (0.12 * size).min(0.6 * length).max(lower);
    if vertices.is_empty() {
        return (0.15 * length).clamp(lower, upper);
    }
    let mut distances: Vec<f32> = vertices.iter().map(|&v| point_segment_distance(v, a, b)).collect();
    distances.sort_by(f32::total_cmp);
    distances[distances.len() / 2].clamp(lower, upper)
}

/// Distance from `p` to the segment `[a, b]`.
pub(crate) fn point_segment_distance(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    p.distance(a + ab * t)
}

/// Approximate distance between two segments (sampled; exact enough to find overlaps).
pub(crate) fn segment_segment_distance(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> f32 {
    const SAMPLES: usize = 8;
    let mut best = f32::MAX;
    for i in 0..=SAMPLES {
        let t = i as f32 / SAMPLES as f32;
        best = best.min(point_segment_distance(a0.lerp(a1, t), b0, b1));
        best = best.min(point_segment_distance(b0.lerp(b1, t), a0, a1));
    }
    best
}
