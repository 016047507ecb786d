//! CPU-side posing of a whole model (the core's morph + skin job over every drawn primitive),
//! animated bounds for automatic framing, and the draw order shared with the GPU path.

use anim::{
    ClipCursor, ClipId, LocalMatrices, Model, NodeId, PreparedSkin, Primitive, PrimitiveMode, SampleSettings, SoaPose,
};
use glam::{Affine3A, Mat4, Vec3};

use crate::render::camera::Aabb;

/// Nodes with a mesh that belong to the shown scene ([`Model::scene_roots`] and their
/// descendants), in depth-first order.
pub fn drawn_nodes(model: &Model) -> Vec<NodeId> {
    let mut stack: Vec<NodeId> = model.scene_roots();
    stack.reverse();
    let mut out = Vec::new();
    let mut seen = vec![false; model.nodes().len()];
    while let Some(node) = stack.pop() {
        let Some(seen_node) = seen.get_mut(node.index()) else { continue };
        if std::mem::replace(seen_node, true) {
            continue;
        }
        let Some(data) = model.node(node) else { continue };
        if data.mesh.is_some() {
            out.push(node);
        }
        stack.extend(model.hierarchy.children(node).iter().rev());
    }
    out
}

/// True for the primitive modes the renderer draws (triangle lists, strips and fans).
pub fn is_triangle_mode(mode: PrimitiveMode) -> bool {
    matches!(mode, PrimitiveMode::Triangles | PrimitiveMode::TriangleStrip | PrimitiveMode::TriangleFan)
}

/// Reusable buffers for posing a model on the CPU.
#[derive(Debug, Default)]
pub struct CpuPoser {
    locals: LocalMatrices,
    model_from_node: Vec<Affine3A>,
    palette: Vec<Mat4>,
    positions: Vec<Vec3>,
}

impl CpuPoser {
    /// Pose every drawn triangle primitive on the CPU and hand its world-frame positions to `visit`
    /// (skinned primitives through their palette, others through their node's world matrix).
    pub fn for_each_posed_primitive(
        &mut self,
        model: &Model,
        pose: &SoaPose,
        nodes: &[NodeId],
        mut visit: impl FnMut(&Primitive, &[Vec3]),
    ) {
        self.model_from_node.resize(model.nodes().len(), Affine3A::IDENTITY);
        model.hierarchy.local_to_model(pose, &mut self.locals, &mut self.model_from_node);
        for &node_id in nodes {
            let Some(node) = model.node(node_id) else { continue };
            let Some(mesh) = node.mesh.and_then(|m| model.meshes().get(m)) else { continue };
            let skin = node.skin.and_then(|s| model.skins().get(s)).map(PreparedSkin::new);
            if let Some(skin) = &skin {
                self.palette.resize(skin.len(), Mat4::IDENTITY);
                skin.skinning_matrices(&self.model_from_node, &mut self.palette);
            }
            let weights = model.node_weights(node_id, pose);
            for primitive in &mesh.primitives {
                if !is_triangle_mode(primitive.mode) {
                    continue;
                }
                self.positions.resize(primitive.positions.len(), Vec3::ZERO);
                let palette = skin.as_ref().map(|_| self.palette.as_slice());
                if anim::morph_and_skin(primitive, weights, palette, &mut self.positions, &mut []).is_err() {
                    continue;
                }
                if skin.is_none() {
                    let world_from_mesh = self.model_from_node[node_id.index()];
                    for p in &mut self.positions {
                        *p = world_from_mesh.transform_point3(*p);
                    }
                }
                visit(primitive, &self.positions);
            }
        }
    }

    /// Bounds of the model in `pose`.
    pub fn pose_bounds(&mut self, model: &Model, pose: &SoaPose, nodes: &[NodeId]) -> Aabb {
        let mut bounds = Aabb::EMPTY;
        self.for_each_posed_primitive(model, pose, nodes, |_, positions| {
            for &p in positions {
                if p.is_finite() {
                    bounds.extend(p);
                }
            }
        });
        bounds
    }
}

/// Bounds of the model over a clip, sampled at `sample_count` evenly spaced times (both ends
/// included); without a clip, the rest pose's bounds.
pub fn animated_bounds(model: &Model, clip: Option<ClipId>, settings: &SampleSettings, sample_count: usize) -> Aabb {
    let nodes = drawn_nodes(model);
    let mut poser = CpuPoser::default();
    let rest = model.rest_pose();
    let mut pose = rest.clone();
    let mut bounds = poser.pose_bounds(model, &pose, &nodes);
    let Some(clip) = clip.and_then(|c| model.clip(c)) else { return bounds };
    let mut cursor = ClipCursor::new(clip);
    let samples = sample_count.max(2);
    for i in 0..samples {
        let time_secs = clip.end_secs() * i as f32 / (samples - 1) as f32;
        pose.copy_from(&rest);
        clip.sample(time_secs, &mut cursor, settings, &mut pose);
        bounds.union(&poser.pose_bounds(model, &pose, &nodes));
    }
    bounds
}

/// Height of the ground plane for `model`: 0 when the model stands on y = 0 (the usual
/// authoring), else where it stands in most of its clips: the lower median over the clips of
/// each clip's lowest point (each sampled at up to 16 times, 256 poses in all), or the rest
/// pose's lowest point for a model without clips. So creatures authored around the origin get
/// their ground below it, and one clip that dips far below (a landing squash, a fall through
/// the floor) does not leave the character floating above the ground in all the others — the
/// same rule as the feet's ground in the transition report (`anim::foot_ground_heights`).
pub fn ground_height(model: &Model) -> f32 {
    let samples = (256 / model.clips().len().max(1)).clamp(2, 16);
    let mut lows: Vec<f32> = (0..model.clips().len())
        .map(|clip| animated_bounds(model, Some(ClipId::from_index(clip)), &SampleSettings::default(), samples).min.y)
        .filter(|low| low.is_finite())
        .collect();
    if lows.is_empty() {
        lows.push(animated_bounds(model, None, &SampleSettings::default(), 2).min.y);
    }
    lows.sort_by(f32::total_cmp);
    let standing = lows.get(lows.len().saturating_sub(1) / 2).copied().unwrap_or(0.0);
    if standing.is_finite() { standing.min(0.0) } else { 0.0 }
}

/// The floor a ragdoll handed off from `clip` lands on: the drawn ground ([`ground_height`]),
/// lowered to the lowest point `clip` itself reaches when its feet go below it (a clip whose
/// steps dip under the ground most clips stand on), so that the body does not meet the floor
/// in its first steps where the clip's own motion goes on downwards. `None`: the drawn ground.
pub fn ragdoll_ground_height(model: &Model, clip: Option<ClipId>) -> f32 {
    let drawn = ground_height(model);
    let Some(clip) = clip.filter(|c| c.index() < model.clips().len()) else { return drawn };
    let samples = 32;
    let low = animated_bounds(model, Some(clip), &SampleSettings::default(), samples).min.y;
    if low.is_finite() { drawn.min(low) } else { drawn }
}

/// Triangle-list indices of a primitive: its indices (or `0..n`), strips and fans unrolled.
pub fn triangle_list_indices(primitive: &Primitive) -> Vec<u32> {
    let count = primitive.positions.len() as u32;
    let raw: Vec<u32> = primitive.indices.clone().unwrap_or_else(|| (0..count).collect());
    let raw: Vec<u32> = raw.into_iter().filter(|&i| i < count).collect();
    match primitive.mode {
        PrimitiveMode::Triangles => {
            let whole = raw.len() / 3 * 3;
            raw[..whole].to_vec()
        }
        PrimitiveMode::TriangleStrip => (2..raw.len())
            .flat_map(|i| if i % 2 == 0 { [raw[i - 2], raw[i - 1], raw[i]] } else { [raw[i - 1], raw[i - 2], raw[i]] })
            .collect(),
        PrimitiveMode::TriangleFan => (2..raw.len()).flat_map(|i| [raw[0], raw[i - 1], raw[i]]).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn primitive(mode: PrimitiveMode, n: usize) -> Primitive {
        Primitive {
            mode,
            positions: vec![Vec3::ZERO; n],
            normals: vec![],
            texcoords: vec![],
            colors: vec![],
            joints: vec![],
            weights: vec![],
            indices: None,
            material: None,
            targets: vec![],
        }
    }

    /// `raw` with its top-most translated node (the hips) moved `dy_m` along +Y.
    fn lift_root(model: &Model, raw: &mut anim::RawClip, dy_m: f32) {
        let depth = |node: anim::NodeId| std::iter::successors(Some(node), |&n| model.hierarchy.parent(n)).count();
        let top = raw
            .tracks
            .iter()
            .filter(|t| matches!(t.values, anim::TrackValues::Translation(_)))
            .map(|t| t.node)
            .min_by_key(|&n| depth(n))
            .expect("a translation track");
        for track in raw.tracks.iter_mut().filter(|t| t.node == top) {
            if let anim::TrackValues::Translation(keys) = &mut track.values {
                keys.iter_mut().for_each(|k| k.y += dy_m);
            }
        }
    }

    /// The built-in character with one more clip: its Jump with the hips `drop_m` lower.
    fn with_dropped_jump(mut model: Model, drop_m: f32) -> Model {
        let jump = model.find_clip("Jump").expect("Jump");
        let mut raw = model[jump].raw().clone();
        lift_root(&model, &mut raw, -drop_m);
        raw.name = Some("Fall through".into());
        model.push_clip(raw.build().expect("a valid clip"));
        model
    }

    #[test]
    fn one_clip_far_below_the_floor_does_not_lower_the_ground_of_the_others() {
        let (model, _) = crate::cli::load_model_or_default(None).expect("built-in");
        let standing = ground_height(&model);
        // Its soles dip a centimetre under y = 0 at the heel strikes.
        assert!((-0.02..=0.0).contains(&standing), "the built-in character stands on y = 0: {standing}");
        let dropped = with_dropped_jump(model.clone(), 1.0);
        let lowest = animated_bounds(
            &dropped,
            Some(ClipId::from_index(dropped.clips().len() - 1)),
            &SampleSettings::default(),
            16,
        )
        .min
        .y;
        assert!(lowest < -0.9, "the added clip goes a metre below: {lowest}");
        // The old rule (the lowest point of every clip) put the ground there, and every other
        // clip floated a metre above it.
        let ground = ground_height(&dropped);
        assert!((ground - standing).abs() < 0.01, "{ground} against {standing}");
        // A ragdoll handed off from that clip lands where the clip's feet go; from Walk, on the
        // drawn ground.
        let fall = ClipId::from_index(dropped.clips().len() - 1);
        assert!((ragdoll_ground_height(&dropped, Some(fall)) - lowest).abs() < 0.02);
        let walk = dropped.find_clip("Walk");
        assert!((ragdoll_ground_height(&dropped, walk) - ground).abs() < 0.01);
        // A model authored around the origin (every clip below y = 0) gets its ground below.
        let mut sunk = model;
        let roots: Vec<anim::NodeId> = sunk.scenes().iter().flat_map(|s| s.roots.iter().copied()).collect();
        for root in roots {
            let mut rest = sunk[root].rest;
            rest.translation.y -= 0.5;
            sunk.set_node_rest(root, rest);
        }
        let ground = ground_height(&sunk);
        assert!((ground + 0.5).abs() < 0.02, "{ground}");
    }

    #[test]
    fn strips_and_fans_unroll() {
        assert_eq!(triangle_list_indices(&primitive(PrimitiveMode::TriangleStrip, 5)), [0, 1, 2, 2, 1, 3, 2, 3, 4]);
        assert_eq!(triangle_list_indices(&primitive(PrimitiveMode::TriangleFan, 4)), [0, 1, 2, 0, 2, 3]);
        assert_eq!(triangle_list_indices(&primitive(PrimitiveMode::Triangles, 7)), [0, 1, 2, 3, 4, 5]);
        assert!(triangle_list_indices(&primitive(PrimitiveMode::Lines, 4)).is_empty());
    }
}
