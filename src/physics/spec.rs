//! [`RagdollSpec`]: which bones become rigid bodies, their capsules and joint limits, built from
//! any skin.

use anim::{Model, NodeId};
use glam::{Affine3A, Quat, Vec3};

use super::limits::{BoneKind, JointLimits};

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

/// One rigid body of the ragdoll: a capsule along a bone.
#[derive(Debug, Clone, PartialEq)]
pub struct BodySpec {
    /// The node (skin joint) the body drives.
    pub node: usize,
    /// The node's name (or `node_<index>`).
    pub name: String,
    /// Parent body (the nearest ancestor with a body), `None` for a root body.
    pub parent: Option<usize>,
    /// Capsule segment start in the body frame (the joint's rigid world frame).
    pub capsule_a: Vec3,
    /// Capsule segment end in the body frame.
    pub capsule_b: Vec3,
    /// Capsule radius in world units.
    pub radius: f32,
    /// World scale of the node at rest (bodies are rigid; this is reapplied to the pose).
    pub world_scale: Vec3,
    /// `body_from_joint_frame` rotation of the joint to the parent at rest: X along this bone.
    pub joint_frame_child: Quat,
    /// `parent_body_from_joint_frame` rotation at rest (identity for a root body).
    pub joint_frame_parent: Quat,
    /// Angular limits of the joint to the parent, around the bind pose.
    pub limits: JointLimits,
}

/// The ragdoll layout of a model: bodies, joints and which nodes follow which body.
#[derive(Debug, Clone, PartialEq)]
pub struct RagdollSpec {
    /// The skin used.
    pub skin: usize,
    /// Bodies, parents before children along the node tree (a body attached to another tree by
    /// proximity, see [`RagdollSpec::root`], may come before its parent).
    pub bodies: Vec<BodySpec>,
    /// For each node: the body it moves with (its own, or its nearest simulated ancestor's);
    /// `None` for nodes outside the ragdoll.
    pub node_body: Vec<Option<usize>>,
    /// Size of the character: the largest extent of its skinned rest mesh (world units).
    pub size: f32,
    /// World units per metre: 1 (glTF's metres), or 100 / 1000 for characters authored in
    /// centimetres / millimetres (larger than 20 / 2000 units). Gravity and density are scaled
    /// by it.
    pub units_per_metre: f32,
    /// The root body of the main tree (the one holding the most bodies).
    pub root: usize,
}

impl RagdollSpec {
    /// Build the ragdoll layout from the skin with the most joints, in the model's rest pose
    /// (world space: the scene's root transforms are included, so Z-up files work).
    ///
    /// One body per significant bone: a capsule from the joint to the child joint that best
    /// continues the bone (or, for a leaf, along its skinned vertices), radius from the vertices
    /// whose dominant influence is that bone (rigid meshes hanging under a joint count too), and
    /// never reaching below the skin's lowest point. Merged into their parent instead: bones
    /// shorter than 5% of the character's size, leaves whose vertices do not reach that far,
    /// bones that carry no vertices (helpers) and everything below a recognised hand or foot
    /// (fingers, toes). Extra root bodies (IK-parented feet) are jointed to the nearest body.
    ///
    /// # Errors
    /// [`RagdollError::NoSkin`] without a skin, [`RagdollError::NoBodies`] when no bone is large
    /// enough.
    pub fn from_model(model: &Model) -> Result<Self, RagdollError> {
        let skin_index =
            (0..model.skins.len()).max_by_key(|&s| model.skins[s].joints.len()).ok_or(RagdollError::NoSkin)?;
        let skin = &model.skins[skin_index];
        let node_count = model.nodes.len();
        let rest = model.rest_pose();
        let mut world = vec![Affine3A::IDENTITY; node_count];
        model.hierarchy.local_to_model(&rest, &mut anim::LocalMatrices::default(), &mut world);

        let mut is_joint = vec![false; node_count];
        for j in skin.joints.iter().map(|j| j.index()) {
            if let Some(flag) = is_joint.get_mut(j) {
                *flag = true;
            }
        }
        let vertices = dominant_vertices(model, &world, &is_joint);
        let size = character_size(&vertices, skin, &world);
        let min_len = MIN_BONE_FRACTION * size;

        // Subtree sizes (joint descendants), children before parents.
        let mut subtree = vec![1usize; node_count];
        for &node in model.hierarchy.order().iter().rev() {
            if let Some(p) = parent_of(model, node.index()) {
                subtree[p] += subtree[node.index()];
            }
        }

        let has_vertices = vertices.iter().any(|v| !v.is_empty());
        let floor_y = vertices.iter().flatten().map(|v| v.y).fold(f32::MAX, f32::min);
        let mut bodies: Vec<BodySpec> = Vec::new();
        let mut node_body: Vec<Option<usize>> = vec![None; node_count];
        // Nodes below a hand or foot (fingers, toes): merged into it.
        let mut in_extremity = vec![false; node_count];
        for &node in model.hierarchy.order() {
            let node = node.index();
            let parent = parent_of(model, node);
            let parent_body = parent.and_then(|p| node_body[p]);
            in_extremity[node] = parent.is_some_and(|p| {
                in_extremity[p]
                    || (is_joint[p]
                        && matches!(
                            model.nodes[p].name.as_deref().and_then(BoneKind::recognise),
                            Some(BoneKind::Hand | BoneKind::Foot)
                        ))
            });
            // Bones that carry no skin (helpers) or sit in a hand or foot get no body.
            if !is_joint[node] || in_extremity[node] || (has_vertices && vertices[node].is_empty()) {
                node_body[node] = parent_body;
                continue;
            }
            let origin: Vec3 = world[node].translation.into();
            let segment = bone_segment(model, node, &is_joint, &world, &subtree, &vertices[node], min_len);
            let Some(end) = segment else {
                node_body[node] = parent_body;
                continue;
            };
            // A capsule never reaches below the skin's lowest point at rest (feet on the floor).
            let above_floor = if has_vertices { origin.y.min(end.y) - floor_y } else { f32::MAX };
            let radius = capsule_radius(&vertices[node], origin, end, size).min(above_floor.max(0.01 * size));
            let (world_scale, rotation, _) = world[node].to_scale_rotation_translation();
            let body_from_world = rotation.inverse();
            let direction = (end - origin).normalize_or(Vec3::Y);
            let world_from_joint_frame = Quat::from_rotation_arc(Vec3::X, direction);
            let joint_frame_parent = parent_body.map_or(Quat::IDENTITY, |p| {
                let (_, parent_rotation, _) = world[bodies[p].node].to_scale_rotation_translation();
                (parent_rotation.inverse() * world_from_joint_frame).normalize()
            });
            let name = model.nodes[node].name.clone().unwrap_or_else(|| format!("node_{node}"));
            let limits = BoneKind::recognise(&name).map_or(JointLimits::GENERIC, BoneKind::limits);
            node_body[node] = Some(bodies.len());
            bodies.push(BodySpec {
                node,
                name,
                parent: parent_body,
                capsule_a: Vec3::ZERO,
                capsule_b: body_from_world * (end - origin),
                radius,
                world_scale,
                joint_frame_child: (body_from_world * world_from_joint_frame).normalize(),
                joint_frame_parent,
                limits,
            });
        }
        if bodies.is_empty() {
            return Err(RagdollError::NoBodies { skin: skin_index });
        }
        let units_per_metre = if size > 2000.0 {
            1000.0
        } else if size > 20.0 {
            100.0
        } else {
            1.0
        };
        let root = attach_extra_roots(&mut bodies, &world, size);
        Ok(Self { skin: skin_index, bodies, node_body, size, units_per_metre, root })
    }

    /// Number of joints (bodies with a parent body).
    pub fn joint_count(&self) -> usize {
        self.bodies.iter().filter(|b| b.parent.is_some()).count()
    }

    /// The body a node moves with, by node name.
    pub fn body_of_node_named(&self, model: &Model, name: &str) -> Option<usize> {
        let node = model.nodes.iter().position(|n| n.name.as_deref() == Some(name))?;
        self.node_body.get(node).copied().flatten()
    }

    /// Number of body-tree edges between two bodies (`usize::MAX` when in different trees).
    pub fn hops(&self, a: usize, b: usize) -> usize {
        let chain = |mut x: usize| {
            let mut v = vec![x];
            while let Some(p) = self.bodies.get(x).and_then(|body| body.parent) {
                v.push(p);
                x = p;
            }
            v
        };
        let (ca, cb) = (chain(a), chain(b));
        for (i, x) in ca.iter().enumerate() {
            if let Some(j) = cb.iter().position(|y| y == x) {
                return i + j;
            }
        }
        usize::MAX
    }
}

/// Find the main tree (the root holding the most bodies) and attach every other root body (feet
/// parented to the armature for IK, loose props) to the nearest body already attached, when it
/// lies within a tenth of the character's size. Returns the main root.
fn attach_extra_roots(bodies: &mut [BodySpec], world: &[Affine3A], size: f32) -> usize {
    let root_of = |bodies: &[BodySpec], mut b: usize| {
        while let Some(p) = bodies[b].parent {
            b = p;
        }
        b
    };
    let roots: Vec<usize> = (0..bodies.len()).filter(|&b| bodies[b].parent.is_none()).collect();
    let tree_size = |bodies: &[BodySpec], r: usize| (0..bodies.len()).filter(|&b| root_of(bodies, b) == r).count();
    let main = roots.iter().copied().max_by(|&a, &b| tree_size(bodies, a).cmp(&tree_size(bodies, b)).then(b.cmp(&a)));
    let Some(main) = main else { return 0 };
    for &extra in roots.iter().filter(|&&r| r != main) {
        let origin: Vec3 = world[bodies[extra].node].translation.into();
        let nearest = (0..bodies.len())
            .filter(|&b| root_of(bodies, b) == main)
            .map(|b| {
                let (_, rotation, translation) = world[bodies[b].node].to_scale_rotation_translation();
                let a = translation + rotation * bodies[b].capsule_a;
                let e = translation + rotation * bodies[b].capsule_b;
                (b, point_segment_distance(origin, a, e) - bodies[b].radius)
            })
            .min_by(|x, y| x.1.total_cmp(&y.1).then(x.0.cmp(&y.0)));
        if let Some((parent, distance)) = nearest
            && distance < 0.1 * size
        {
            let (_, parent_rotation, _) = world[bodies[parent].node].to_scale_rotation_translation();
            let (_, rotation, _) = world[bodies[extra].node].to_scale_rotation_translation();
            let world_from_joint_frame = rotation * bodies[extra].joint_frame_child;
            bodies[extra].joint_frame_parent = (parent_rotation.inverse() * world_from_joint_frame).normalize();
            bodies[extra].parent = Some(parent);
        }
    }
    main
}

/// World-space rest positions of the skinned vertices of every skinned mesh, grouped by their
/// dominant joint node (exporters often give each mesh its own skin over the same joints). Rigid
/// meshes hanging under a joint (robot parts) count for their nearest joint ancestor.
fn dominant_vertices(model: &Model, world: &[Affine3A], is_joint: &[bool]) -> Vec<Vec<Vec3>> {
    let mut out = vec![Vec::new(); model.nodes.len()];
    for (index, node) in model.nodes.iter().enumerate() {
        if node.skin.is_none()
            && let Some(mesh) = node.mesh.and_then(|m| model.meshes.get(m))
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
            (node.skin.and_then(|s| model.skins.get(s)), node.mesh.and_then(|m| model.meshes.get(m)))
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

/// Largest extent of the skinned vertices (of the joints when there are none); at least 0.01.
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
    if any { (hi - lo).max_element().max(0.01) } else { 1.0 }
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
    let incoming = model
        .hierarchy
        .parent(NodeId::from_index(node))
        .map(NodeId::index)
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

/// Parent node index of node `node` (physics keeps node-indexed tables).
fn parent_of(model: &Model, node: usize) -> Option<usize> {
    model.hierarchy.parent(NodeId::from_index(node)).map(NodeId::index)
}
