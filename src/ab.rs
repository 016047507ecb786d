//! Two files side by side (A/B): "did my new export change the Run clip, and where?". The
//! skeletons are matched by joint name (the joints only one file has are listed), the clip of
//! the same name is sampled in both at the same time with the same settings, and each matched
//! joint gets its local change (what the export changed: rotation angle, translation, scale)
//! and its model-space distance (where it shows, including everything below a changed joint).

use anim::{ClipCursor, ClipId, LocalMatrices, Model, NodeId, SampleSettings, SoaPose};
use glam::{Affine3A, Vec3};

/// A joint's local change below which it counts as unchanged: rotation (radians).
pub const CHANGED_ANGLE_RAD: f32 = 1e-3;
/// Translation and scale change below which a joint counts as unchanged, relative to the
/// model's size (translation) or absolute (scale).
pub const CHANGED_RELATIVE: f32 = 1e-4;

/// The joints of two models matched by name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JointPairs {
    /// `(node in A, node in B, name)`, in A's order.
    pub pairs: Vec<(NodeId, NodeId, String)>,
    /// Joint names only A has.
    pub only_in_a: Vec<String>,
    /// Joint names only B has.
    pub only_in_b: Vec<String>,
}

/// The named joints of `model`: its skins' joints (every node for a model without skins), each
/// name once (the first node of a repeated name).
pub fn named_joints(model: &Model) -> Vec<(NodeId, String)> {
    let mut nodes: Vec<NodeId> = model.skins().iter().flat_map(|s| s.joints.iter().copied()).collect();
    if nodes.is_empty() {
        nodes = (0..model.nodes().len()).map(NodeId::from_index).collect();
    }
    let mut out: Vec<(NodeId, String)> = Vec::new();
    for node in nodes {
        let Some(name) = model.node(node).and_then(|n| n.name.clone()) else { continue };
        if !out.iter().any(|(n, existing)| *n == node || *existing == name) {
            out.push((node, name));
        }
    }
    out
}

/// Match the joints of `a` and `b` by name.
pub fn match_joints(a: &Model, b: &Model) -> JointPairs {
    let (ja, jb) = (named_joints(a), named_joints(b));
    let mut pairs = JointPairs::default();
    for (node_a, name) in &ja {
        match jb.iter().find(|(_, n)| n == name) {
            Some((node_b, _)) => pairs.pairs.push((*node_a, *node_b, name.clone())),
            None => pairs.only_in_a.push(name.clone()),
        }
    }
    pairs.only_in_b = jb.into_iter().filter(|(_, n)| !ja.iter().any(|(_, m)| m == n)).map(|(_, n)| n).collect();
    pairs
}

/// The clip of `b` with the name of clip `clip_a` of `a` (or, for an unnamed clip, the same
/// index when `b` has it).
pub fn same_clip(a: &Model, clip_a: ClipId, b: &Model) -> Option<ClipId> {
    let clip = a.clip(clip_a)?;
    match clip.name() {
        Some(name) => b.clips().iter().position(|c| c.name() == Some(name)).map(ClipId::from_index),
        None => b.clip(clip_a).filter(|c| c.name().is_none()).map(|_| clip_a),
    }
}

/// One matched joint at one time.
#[derive(Debug, Clone, PartialEq)]
pub struct JointDeviation {
    /// The joint's name.
    pub name: String,
    /// Its node in A.
    pub node_a: NodeId,
    /// Its node in B.
    pub node_b: NodeId,
    /// Angle between the two local rotations, radians.
    pub local_angle_rad: f32,
    /// Distance between the two local translations.
    pub local_translation: f32,
    /// Largest difference of the local scales.
    pub local_scale: f32,
    /// Distance between the joint's model-space positions.
    pub model_distance: f32,
}

impl JointDeviation {
    /// The pair `node_a`, `node_b` (unnamed) with every figure 0.
    pub fn unmeasured(node_a: NodeId, node_b: NodeId) -> Self {
        Self {
            name: String::new(),
            node_a,
            node_b,
            local_angle_rad: 0.0,
            local_translation: 0.0,
            local_scale: 0.0,
            model_distance: 0.0,
        }
    }

    /// True when the joint's own transform differs (beyond rounding; `size` is the model's size
    /// for the translation threshold).
    pub fn changed(&self, size: f32) -> bool {
        self.local_angle_rad > CHANGED_ANGLE_RAD
            || self.local_translation > CHANGED_RELATIVE * size.max(1e-6)
            || self.local_scale > CHANGED_RELATIVE
    }

    /// Keep the larger of each figure (the worst over a clip).
    fn max_with(&mut self, other: &Self) {
        self.local_angle_rad = self.local_angle_rad.max(other.local_angle_rad);
        self.local_translation = self.local_translation.max(other.local_translation);
        self.local_scale = self.local_scale.max(other.local_scale);
        self.model_distance = self.model_distance.max(other.model_distance);
    }
}

/// The A/B comparison of two models: matched joints and the buffers to pose both (made once;
/// [`Self::evaluate`] allocates nothing).
#[derive(Debug)]
pub struct AbCompare {
    /// The joints matched by name.
    pub joints: JointPairs,
    rest_a: SoaPose,
    rest_b: SoaPose,
    pose_a: SoaPose,
    pose_b: SoaPose,
    cursor_a: Option<(ClipId, ClipCursor)>,
    cursor_b: Option<(ClipId, ClipCursor)>,
    locals: LocalMatrices,
    model_a: Vec<Affine3A>,
    model_b: Vec<Affine3A>,
    /// Each matched joint at the last evaluated time, in [`JointPairs::pairs`] order.
    pub deviations: Vec<JointDeviation>,
}

impl AbCompare {
    /// Match the joints of `a` and `b` and make the buffers.
    pub fn new(a: &Model, b: &Model) -> Self {
        let joints = match_joints(a, b);
        let deviations = joints
            .pairs
            .iter()
            .map(|(na, nb, name)| JointDeviation { name: name.clone(), ..JointDeviation::unmeasured(*na, *nb) })
            .collect();
        Self {
            joints,
            rest_a: a.rest_pose(),
            rest_b: b.rest_pose(),
            pose_a: a.rest_pose(),
            pose_b: b.rest_pose(),
            cursor_a: None,
            cursor_b: None,
            locals: LocalMatrices::default(),
            model_a: vec![Affine3A::IDENTITY; a.nodes().len()],
            model_b: vec![Affine3A::IDENTITY; b.nodes().len()],
            deviations,
        }
    }

    /// B's pose at the last evaluated time (to draw B beside or over A).
    pub fn pose_b(&self) -> &SoaPose {
        &self.pose_b
    }

    /// B's model-space matrices at the last evaluated time (where B's joints are drawn).
    pub fn model_from_node_b(&self) -> &[Affine3A] {
        &self.model_b
    }

    /// A's node matched by name with B's node `node_b`, if any.
    pub fn node_a_of(&self, node_b: NodeId) -> Option<NodeId> {
        self.joints.pairs.iter().find(|(_, b, _)| *b == node_b).map(|(a, _, _)| *a)
    }

    /// Sample A's clip `clip_a` and B's `clip_b` at `time_secs` with `settings` (from each
    /// model's rest pose; no clip: the rest pose) and measure every matched joint. The models
    /// must be those given to [`Self::new`].
    pub fn evaluate(
        &mut self,
        (a, clip_a): (&Model, Option<ClipId>),
        (b, clip_b): (&Model, Option<ClipId>),
        time_secs: f32,
        settings: &SampleSettings,
    ) -> &[JointDeviation] {
        pose(a, clip_a, time_secs, settings, &self.rest_a, &mut self.cursor_a, &mut self.pose_a);
        pose(b, clip_b, time_secs, settings, &self.rest_b, &mut self.cursor_b, &mut self.pose_b);
        a.hierarchy.local_to_model(&self.pose_a, &mut self.locals, &mut self.model_a);
        b.hierarchy.local_to_model(&self.pose_b, &mut self.locals, &mut self.model_b);
        for d in &mut self.deviations {
            let (na, nb) = (d.node_a, d.node_b);
            let (ta, tb) = (self.pose_a.transform(na), self.pose_b.transform(nb));
            d.local_angle_rad = angle_between(ta.rotation, tb.rotation);
            d.local_translation = ta.translation.distance(tb.translation);
            d.local_scale = (ta.scale - tb.scale).abs().max_element();
            d.model_distance = Vec3::from(self.model_a[na.index()].translation)
                .distance(Vec3::from(self.model_b[nb.index()].translation));
        }
        &self.deviations
    }

    /// The worst of each figure per matched joint over `samples` evenly spaced times of the
    /// longer of the two clips (both ends included).
    pub fn worst_over_clip(
        &mut self,
        a: (&Model, Option<ClipId>),
        b: (&Model, Option<ClipId>),
        settings: &SampleSettings,
        samples: usize,
    ) -> Vec<JointDeviation> {
        let end = |(m, c): (&Model, Option<ClipId>)| c.and_then(|c| m.clip(c)).map_or(0.0, anim::Clip::end_secs);
        let end_secs = end(a).max(end(b));
        let samples = samples.max(2);
        let mut worst: Vec<JointDeviation> = self.deviations.clone();
        for d in &mut worst {
            *d = JointDeviation { name: std::mem::take(&mut d.name), ..JointDeviation::unmeasured(d.node_a, d.node_b) };
        }
        for i in 0..samples {
            let t = end_secs * i as f32 / (samples - 1) as f32;
            for (w, d) in worst.iter_mut().zip(self.evaluate(a, b, t, settings)) {
                w.max_with(d);
            }
        }
        worst
    }
}

/// Sample `clip` of `model` at `time_secs` into `out` (the rest pose without a clip), making the
/// cursor on first use.
fn pose(
    model: &Model,
    clip: Option<ClipId>,
    time_secs: f32,
    settings: &SampleSettings,
    rest: &SoaPose,
    cursor: &mut Option<(ClipId, ClipCursor)>,
    out: &mut SoaPose,
) {
    out.copy_from(rest);
    let Some((id, clip)) = clip.and_then(|c| Some((c, model.clip(c)?))) else { return };
    if cursor.as_ref().is_none_or(|(c, _)| *c != id) {
        *cursor = Some((id, ClipCursor::new(clip)));
    }
    if let Some((_, cursor)) = cursor.as_mut() {
        clip.sample(time_secs.clamp(0.0, clip.end_secs()), cursor, settings, out);
    }
}

/// The angle between two rotations, radians, accurate near zero (no `acos` of a dot product
/// rounded to 1).
pub fn angle_between(a: glam::Quat, b: glam::Quat) -> f32 {
    let d = a.conjugate() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// The size of a model for relative thresholds: the diagonal of its rest pose's joint positions
/// (1 for a model without nodes).
pub fn model_size(model: &Model) -> f32 {
    let mut locals = LocalMatrices::default();
    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    model.hierarchy.local_to_model(&model.rest_pose(), &mut locals, &mut world);
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for m in &world {
        lo = lo.min(m.translation.into());
        hi = hi.max(m.translation.into());
    }
    let size = (hi - lo).length();
    if size.is_finite() && size > 0.0 { size } else { 1.0 }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use devtools::gltf::Doc;
    use serde_json::json;

    /// The built-in character's bytes.
    fn character() -> Vec<u8> {
        crate::mannequin::DEFAULT_MODEL_GLB.to_vec()
    }

    /// A copy of the character whose clip `clip` holds `joints` still at 30° about X (their
    /// rotation channels get new samplers); everything else as it was.
    fn with_changed_joints(clip: &str, joints: &[&str]) -> Model {
        let mut doc = Doc::from_glb(&character()).unwrap();
        let q = glam::Quat::from_rotation_x(30f32.to_radians()).to_array();
        for joint in joints {
            doc.replace_channel_keys(clip, joint, "rotation", (&[0.0, 0.5], &[q, q].concat(), "LINEAR"));
        }
        anim::import::load_slice(&doc.to_glb(), None).unwrap()
    }

    fn changed(a: &Model, b: &Model, clip: &str) -> Vec<String> {
        let mut ab = AbCompare::new(a, b);
        let clip_a = a.find_clip(clip).unwrap();
        let clip_b = same_clip(a, clip_a, b).unwrap();
        let size = model_size(a);
        let worst = ab.worst_over_clip((a, Some(clip_a)), (b, Some(clip_b)), &SampleSettings::default(), 61);
        worst.into_iter().filter(|d| d.changed(size)).map(|d| d.name).collect()
    }

    #[test]
    fn a_copy_with_one_clip_changed_shows_exactly_the_changed_joints() {
        let a = anim::import::load_slice(&character(), None).unwrap();
        let names: Vec<String> = named_joints(&a).into_iter().map(|(_, n)| n).collect();
        assert_eq!(names.len(), 21);
        let changed_names = [names[7].as_str(), names[15].as_str()];
        let b = with_changed_joints("Run", &changed_names);
        let ab = AbCompare::new(&a, &b);
        assert_eq!(ab.joints.pairs.len(), 21);
        assert!(ab.joints.only_in_a.is_empty() && ab.joints.only_in_b.is_empty());
        let mut found = changed(&a, &b, "Run");
        found.sort();
        let mut expected: Vec<String> = changed_names.iter().map(|s| (*s).to_owned()).collect();
        expected.sort();
        assert_eq!(found, expected);
        // The other clips did not change.
        for clip in ["Walk", "Idle", "Wave"] {
            assert!(changed(&a, &b, clip).is_empty(), "{clip}");
        }
        // Where it shows: in model space, exactly the joints below the changed ones move.
        let mut ab = AbCompare::new(&a, &b);
        let run = a.find_clip("Run").unwrap();
        let worst = ab.worst_over_clip((&a, Some(run)), (&b, Some(run)), &SampleSettings::default(), 31);
        let mut moved: Vec<&str> = worst.iter().filter(|d| d.model_distance > 1e-3).map(|d| d.name.as_str()).collect();
        let mut below: Vec<&str> = Vec::new();
        let mut stack: Vec<NodeId> = changed_names
            .iter()
            .map(|n| a.nodes().iter().position(|m| m.name.as_deref() == Some(*n)).unwrap())
            .map(NodeId::from_index)
            .collect();
        while let Some(node) = stack.pop() {
            for &child in a.hierarchy.children(node) {
                below.extend(a.node(child).and_then(|n| n.name.as_deref()));
                stack.push(child);
            }
        }
        moved.sort_unstable();
        below.sort_unstable();
        assert!(!moved.is_empty());
        assert_eq!(moved, below);
    }

    #[test]
    fn joints_only_one_file_has_are_listed() {
        let a = anim::import::load_slice(&character(), None).unwrap();
        let mut doc = Doc::from_glb(&character()).unwrap();
        let skin_joint = doc.json["skins"][0]["joints"][3].as_u64().unwrap() as usize;
        let old = doc.json["nodes"][skin_joint]["name"].as_str().unwrap().to_owned();
        doc.json["nodes"][skin_joint]["name"] = json!("Renamed");
        let b = anim::import::load_slice(&doc.to_glb(), None).unwrap();
        let pairs = match_joints(&a, &b);
        assert_eq!(pairs.pairs.len(), 20);
        assert_eq!(pairs.only_in_a, [old]);
        assert_eq!(pairs.only_in_b, ["Renamed"]);
    }
}
