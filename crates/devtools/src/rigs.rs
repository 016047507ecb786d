//! The rig corpus of the transition figures, made at test time from the shared models and the
//! built-in character (CI uses no fetched file): each rig as it is, at ×0.01 and ×100 (a new
//! scaled top node), Mixamo-style (the skeleton under an `Armature` node scaled 0.01 and turned
//! 90° about X as Blender writes it, every translation below it ×100, the inverse binds to match,
//! joints named `mixamorig:…`), and with IK controls (each foot re-parented under a control bone
//! at the armature root that carries the shin's motion, as Blender rigs with IK controls
//! export). Every variant poses every joint where the original does (in model space; the
//! Mixamo-style and scaled ones up to their scale), so figures that are in metres and model
//! space must come out the same. [`with_hover_clip`] adds a clip whose feet never touch the
//! ground (the walk lifted by half the character's height).

use std::path::PathBuf;

use anim::{ClipCursor, ClipId, LocalMatrices, Model, NodeId, SampleSettings};
use glam::{Affine3A, Mat4, Quat, Vec3};
use serde_json::{Value, json};

use crate::gltf::Doc;

/// One rig of the corpus: a file and the clips its figures are measured on.
#[derive(Debug, Clone, Copy)]
pub struct RigSource {
    /// Short name (file names of written variants, messages).
    pub name: &'static str,
    /// Path under `../shared/models`, or under the repository for `assets/…`.
    pub path: &'static str,
    /// A clip in which the character stands (none: the rig has no idle).
    pub idle: Option<&'static str>,
    /// Cyclic clips whose feet step: each foot touches down at least once per cycle.
    pub cycles: &'static [&'static str],
    /// Clips whose feet never touch the ground (besides [`HOVER_CLIP`]).
    pub air: &'static [&'static str],
    /// Feet (node names) the IK-control variant re-parents under control bones.
    pub feet: &'static [&'static str],
    /// Joint names are humanoid (the Mixamo-style variant prefixes them `mixamorig:`).
    pub humanoid: bool,
}

/// The rigs made from shared files.
pub const RIGS: &[RigSource] = &[
    RigSource {
        name: "mannequin",
        path: "assets/mannequin.glb",
        idle: Some("Idle"),
        cycles: &["Walk", "Run"],
        air: &[],
        feet: &["Foot.L", "Foot.R"],
        humanoid: true,
    },
    RigSource {
        name: "robot-expressive",
        path: "RobotExpressive/RobotExpressive.glb",
        idle: Some("Idle"),
        cycles: &["Walking", "Running"],
        air: &[],
        feet: &["Foot.L", "Foot.R"],
        humanoid: true,
    },
    RigSource {
        name: "fox",
        path: "Fox/Fox.glb",
        idle: Some("Survey"),
        cycles: &["Walk", "Run"],
        air: &[],
        feet: &["b_LeftFoot01_017", "b_RightFoot01_021"],
        humanoid: false,
    },
    RigSource {
        name: "cesium-man",
        path: "CesiumMan/CesiumMan.glb",
        idle: None,
        cycles: &["animation_0"],
        air: &[],
        feet: &["leg_joint_L_3", "leg_joint_R_3"],
        humanoid: true,
    },
];

/// How a rig is changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RigVariant {
    /// The file as it is.
    Original,
    /// Every scene under a new top node scaled by this factor.
    Scaled(f32),
    /// Mixamo-style: the skeleton under an `Armature` node scaled 0.01 (turned +90° about X),
    /// translations below it ×100, inverse binds ×100, joints `mixamorig:`-prefixed (humanoids).
    Mixamo,
    /// Each of the rig's [`RigSource::feet`] re-parented under a control bone at the armature
    /// root that carries its old parent's motion.
    IkControls,
}

impl RigVariant {
    /// Every variant the corpus tests.
    pub const ALL: [Self; 5] =
        [Self::Original, Self::Scaled(0.01), Self::Scaled(100.0), Self::Mixamo, Self::IkControls];

    /// Short name.
    pub fn name(self) -> String {
        match self {
            Self::Original => "original".to_owned(),
            Self::Scaled(s) => format!("x{s}"),
            Self::Mixamo => "mixamo".to_owned(),
            Self::IkControls => "ik-controls".to_owned(),
        }
    }
}

/// The source file of `rig`, when present (`../shared/models` may be missing outside CI).
pub fn source_path(rig: &RigSource) -> Option<PathBuf> {
    crate::variants::source(rig.path)
}

/// `rig`'s file with a [`HOVER_CLIP`] made from its first cycle ([`with_hover_clip`]), then
/// made into `variant`, as GLB bytes.
///
/// # Errors
/// When the file cannot be read or is not a GLB whose animation data are plain floats.
pub fn make(rig: &RigSource, variant: RigVariant) -> Result<Vec<u8>, String> {
    let path = source_path(rig).ok_or_else(|| format!("{}: source {} not found", rig.name, rig.path))?;
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    make_rig(&bytes, rig, variant)
}

/// `bytes` (a GLB of `rig`, e.g. a fetched one) with a [`HOVER_CLIP`] made from its first cycle,
/// then made into `variant`.
///
/// # Errors
/// As [`make`].
pub fn make_rig(bytes: &[u8], rig: &RigSource, variant: RigVariant) -> Result<Vec<u8>, String> {
    let hovering = match rig.cycles.first() {
        Some(walk) => Some(with_hover_clip(bytes, walk).map_err(|e| format!("{}: {e}", rig.name))?),
        None => None,
    };
    make_from(hovering.as_deref().unwrap_or(bytes), rig.feet, rig.humanoid, variant)
}

/// A GLB made into `variant` (`feet` for [`RigVariant::IkControls`], `humanoid` for the names of
/// [`RigVariant::Mixamo`]).
///
/// # Errors
/// When `bytes` is not a GLB whose animation data are plain floats, or a foot is missing.
pub fn make_from(bytes: &[u8], feet: &[&str], humanoid: bool, variant: RigVariant) -> Result<Vec<u8>, String> {
    let mut doc = Doc::from_glb(bytes)?;
    match variant {
        RigVariant::Original => {}
        RigVariant::Scaled(scale) => {
            doc.wrap_in_scaled_root(scale);
        }
        RigVariant::Mixamo => mixamo(&mut doc, humanoid)?,
        RigVariant::IkControls => {
            let model = anim::import::load_slice(bytes, None).map_err(|e| e.to_string())?;
            ik_controls(&mut doc, &model, feet)?;
        }
    }
    Ok(finish(&mut doc))
}

/// A clip by name, or an unnamed one by the name it is shown with (`animation_<index>`).
pub fn find_clip(model: &Model, name: &str) -> Option<ClipId> {
    model.find_clip(name).or_else(|| {
        let index: usize = name.strip_prefix("animation_")?.parse().ok()?;
        (index < model.clips().len() && model.clips()[index].name().is_none()).then(|| ClipId::from_index(index))
    })
}

/// The GLB of `doc`, its buffer's length following the data appended.
fn finish(doc: &mut Doc) -> Vec<u8> {
    if doc.json.get("buffers").is_some() {
        doc.json["buffers"][0]["byteLength"] = json!(doc.bin.len());
    }
    doc.to_glb()
}

/// `rig` as `variant`, imported.
///
/// # Errors
/// As [`make`], or when the result does not import.
pub fn load(rig: &RigSource, variant: RigVariant) -> Result<Model, String> {
    let glb = make(rig, variant)?;
    anim::import::load_slice(&glb, None).map_err(|e| format!("{} {}: {e}", rig.name, variant.name()))
}

/// The floats of accessor `index` (plain `FLOAT`, not sparse), element after element.
fn read_floats(doc: &Doc, index: usize) -> Result<Vec<f32>, String> {
    let accessor = &doc.json["accessors"][index];
    if accessor["componentType"].as_u64() != Some(u64::from(crate::gltf::FLOAT)) || accessor.get("sparse").is_some() {
        return Err(format!("accessor {index} is not plain FLOAT data"));
    }
    let count = accessor["count"].as_u64().unwrap_or(0) as usize;
    let width = crate::gltf::components(accessor["type"].as_str().unwrap_or("SCALAR"));
    let view = accessor["bufferView"].as_u64().ok_or_else(|| format!("accessor {index} has no buffer view"))? as usize;
    let view = &doc.json["bufferViews"][view];
    if view.get("extensions").is_some() || view["buffer"].as_u64().unwrap_or(0) != 0 {
        return Err(format!("accessor {index}: compressed or external data"));
    }
    let base =
        view["byteOffset"].as_u64().unwrap_or(0) as usize + accessor["byteOffset"].as_u64().unwrap_or(0) as usize;
    let stride = view["byteStride"].as_u64().map_or(width * 4, |s| s as usize);
    let mut out = Vec::with_capacity(count * width);
    for e in 0..count {
        for c in 0..width {
            let at = base + e * stride + c * 4;
            let b = doc.bin.get(at..at + 4).ok_or_else(|| format!("accessor {index} runs past the buffer"))?;
            out.push(f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        }
    }
    Ok(out)
}

fn nodes_len(doc: &Doc) -> usize {
    doc.json["nodes"].as_array().map_or(0, Vec::len)
}

fn children(doc: &Doc, node: usize) -> Vec<usize> {
    doc.json["nodes"][node]["children"]
        .as_array()
        .map(|c| c.iter().filter_map(|v| v.as_u64().map(|v| v as usize)).collect())
        .unwrap_or_default()
}

fn vec3(value: &Value, default: Vec3) -> Vec3 {
    match value.as_array() {
        Some(a) if a.len() == 3 => Vec3::new(
            a[0].as_f64().unwrap_or(0.0) as f32,
            a[1].as_f64().unwrap_or(0.0) as f32,
            a[2].as_f64().unwrap_or(0.0) as f32,
        ),
        _ => default,
    }
}

fn quat(value: &Value) -> Quat {
    match value.as_array() {
        Some(a) if a.len() == 4 => Quat::from_xyzw(
            a[0].as_f64().unwrap_or(0.0) as f32,
            a[1].as_f64().unwrap_or(0.0) as f32,
            a[2].as_f64().unwrap_or(0.0) as f32,
            a[3].as_f64().unwrap_or(1.0) as f32,
        ),
        _ => Quat::IDENTITY,
    }
}

/// Every animation channel: (animation, channel, target node, path, sampler).
fn channels(doc: &Doc) -> Vec<(usize, usize, usize, String, usize)> {
    let mut out = Vec::new();
    for (a, animation) in doc.json["animations"].as_array().cloned().unwrap_or_default().iter().enumerate() {
        for (c, channel) in animation["channels"].as_array().cloned().unwrap_or_default().iter().enumerate() {
            let (Some(node), Some(path), Some(sampler)) =
                (channel["target"]["node"].as_u64(), channel["target"]["path"].as_str(), channel["sampler"].as_u64())
            else {
                continue;
            };
            out.push((a, c, node as usize, path.to_owned(), sampler as usize));
        }
    }
    out
}

/// Give channel `c` of animation `a` a new sampler over the same input whose output is `values`.
fn replace_output(doc: &mut Doc, a: usize, c: usize, sampler: usize, values: &[f32], ty: &str) {
    let old = doc.json["animations"][a]["samplers"][sampler].clone();
    let output = doc.add_f32(values, ty);
    let new = json!({"input": old["input"], "output": output, "interpolation": old["interpolation"].clone()});
    let samplers = &mut doc.json["animations"][a]["samplers"];
    let index = samplers.as_array().map_or(0, Vec::len);
    if let Some(list) = samplers.as_array_mut() {
        list.push(new);
    }
    doc.json["animations"][a]["channels"][c]["sampler"] = json!(index);
}

/// The Mixamo-style variant (see [`RigVariant::Mixamo`]).
fn mixamo(doc: &mut Doc, humanoid: bool) -> Result<(), String> {
    const SCALE: f32 = 0.01;
    let turn = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let n = nodes_len(doc);
    let joints: Vec<usize> = doc.json["skins"]
        .as_array()
        .map(|skins| {
            skins.iter().flat_map(|s| s["joints"].as_array().cloned().unwrap_or_default()).filter_map(|j| j.as_u64())
        })
        .into_iter()
        .flatten()
        .map(|j| j as usize)
        .collect();
    let is_joint = |i: usize| joints.contains(&i);
    // Nodes whose subtree holds a joint keep the ×0.01 frame; others get ×100 back in their scale.
    fn holds_joint(doc: &Doc, node: usize, is_joint: &dyn Fn(usize) -> bool, depth: usize) -> bool {
        depth < 4096
            && (is_joint(node) || children(doc, node).iter().any(|&c| holds_joint(doc, c, is_joint, depth + 1)))
    }
    let scenes = doc.json["scenes"].as_array().cloned().unwrap_or_default();
    let roots: Vec<usize> = scenes
        .iter()
        .flat_map(|s| s["nodes"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_u64().map(|v| v as usize))
        .collect();
    // (node, is a scene root, restores the scale)
    let mut changed: Vec<(usize, bool, bool)> = Vec::new();
    let mut stack: Vec<(usize, bool)> = roots.iter().map(|&r| (r, true)).collect();
    while let Some((node, root)) = stack.pop() {
        if node >= n || changed.iter().any(|c| c.0 == node) {
            continue;
        }
        let restores = !holds_joint(doc, node, &is_joint, 0);
        changed.push((node, root, restores));
        if !restores {
            stack.extend(children(doc, node).into_iter().map(|c| (c, false)));
        }
    }
    let unturn = turn.inverse();
    for &(node, root, restores) in &changed {
        let json = &mut doc.json["nodes"][node];
        if json.get("matrix").is_some() {
            let m = json["matrix"]
                .as_array()
                .map(|a| a.iter().map(|v| v.as_f64().unwrap_or(0.0) as f32).collect::<Vec<_>>());
            let m = m.filter(|m| m.len() == 16).ok_or_else(|| format!("node {node}: bad matrix"))?;
            let (s, r, t) = Mat4::from_cols_slice(&m).to_scale_rotation_translation();
            json["translation"] = json!([t.x, t.y, t.z]);
            json["rotation"] = json!([r.x, r.y, r.z, r.w]);
            json["scale"] = json!([s.x, s.y, s.z]);
            if let Some(o) = json.as_object_mut() {
                o.remove("matrix");
            }
        }
        let mut t = vec3(&json["translation"], Vec3::ZERO) / SCALE;
        let mut r = quat(&json["rotation"]);
        if root {
            t = unturn * t;
            r = unturn * r;
        }
        json["translation"] = json!([t.x, t.y, t.z]);
        json["rotation"] = json!([r.x, r.y, r.z, r.w]);
        if restores {
            let s = vec3(&json["scale"], Vec3::ONE) / SCALE;
            json["scale"] = json!([s.x, s.y, s.z]);
        }
        if humanoid
            && is_joint(node)
            && let Some(name) = json["name"].as_str().map(str::to_owned)
        {
            json["name"] = json!(format!("mixamorig:{name}"));
        }
    }
    for (a, c, node, path, sampler) in channels(doc) {
        let Some(&(_, root, restores)) = changed.iter().find(|x| x.0 == node) else { continue };
        let output = doc.json["animations"][a]["samplers"][sampler]["output"].as_u64().unwrap_or(0) as usize;
        let values = read_floats(doc, output)?;
        match path.as_str() {
            "translation" => {
                let out: Vec<f32> = values
                    .chunks_exact(3)
                    .flat_map(|v| {
                        let t = Vec3::from_slice(v) / SCALE;
                        let t = if root { unturn * t } else { t };
                        t.to_array()
                    })
                    .collect();
                replace_output(doc, a, c, sampler, &out, "VEC3");
            }
            "rotation" if root => {
                // CUBICSPLINE tangents are linear in the quaternion too: the same product.
                let out: Vec<f32> =
                    values.chunks_exact(4).flat_map(|q| (unturn * Quat::from_slice(q)).to_array()).collect();
                replace_output(doc, a, c, sampler, &out, "VEC4");
            }
            "scale" if restores => {
                let out: Vec<f32> = values.iter().map(|s| s / SCALE).collect();
                replace_output(doc, a, c, sampler, &out, "VEC3");
            }
            _ => {}
        }
    }
    // Joints are now drawn ×0.01 in their own frames: inverse binds ×100 (rows of the 3×4).
    for s in 0..doc.json["skins"].as_array().map_or(0, Vec::len) {
        let Some(ibm) = doc.json["skins"][s]["inverseBindMatrices"].as_u64() else { continue };
        let mut m = read_floats(doc, ibm as usize)?;
        for (i, v) in m.iter_mut().enumerate() {
            if i % 4 != 3 {
                *v /= SCALE;
            }
        }
        let accessor = doc.add_f32(&m, "MAT4");
        doc.json["skins"][s]["inverseBindMatrices"] = json!(accessor);
    }
    let armature = doc.add_node(json!({
        "name": "Armature",
        "rotation": [turn.x, turn.y, turn.z, turn.w],
        "scale": [SCALE, SCALE, SCALE],
        "children": roots,
    }));
    if let Some(scenes) = doc.json["scenes"].as_array_mut() {
        for scene in scenes {
            scene["nodes"] = json!([armature]);
        }
    }
    Ok(())
}

/// World transforms of every node of `model` at `time_secs` of `clip` (rest pose without one).
fn world_at(model: &Model, clip: Option<ClipId>, time_secs: f32) -> Vec<Affine3A> {
    let mut pose = model.rest_pose();
    if let Some(c) = clip.and_then(|c| model.clip(c)) {
        c.sample(time_secs, &mut ClipCursor::new(c), &SampleSettings::default(), &mut pose);
    }
    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    model.hierarchy.local_to_model(&pose, &mut LocalMatrices::new(model.nodes().len()), &mut world);
    world
}

/// A clip time and every node's world transform then.
type TimedWorld = (f32, Vec<Affine3A>);

/// Frames per second the control bones' motion is baked at.
const BAKE_HZ: f32 = 60.0;

/// The IK-control variant (see [`RigVariant::IkControls`]).
fn ik_controls(doc: &mut Doc, model: &Model, feet: &[&str]) -> Result<(), String> {
    let skin = model.skins().first().ok_or("no skin")?;
    let depth = |node: NodeId| std::iter::successors(Some(node), |&n| model.hierarchy.parent(n)).count();
    let top = skin.joints.iter().copied().min_by_key(|&j| (depth(j), j.index())).ok_or("the skin has no joints")?;
    let holder = model.hierarchy.parent(top);
    let rest = world_at(model, None, 0.0);
    let holder_world = |world: &[Affine3A]| holder.map_or(Affine3A::IDENTITY, |h| world[h.index()]);
    // Per clip: STEP when its tracks step, and the worlds at its key times (kinks and steps
    // exactly) and at BAKE_HZ between them.
    let clip_worlds: Vec<(bool, Vec<TimedWorld>)> = (0..model.clips().len())
        .map(|c| {
            let clip = &model.clips()[c];
            let step = clip.tracks().iter().all(|t| t.interpolation == anim::track::Interpolation::Step);
            let (start, end) = (clip.start_secs(), clip.end_secs());
            let frames = (((end - start) * BAKE_HZ).ceil() as usize).max(1);
            let mut times: Vec<f32> = clip.timelines().iter().flat_map(|t| t.times_secs.iter().copied()).collect();
            if !step {
                times.extend((0..=frames).map(|k| start + (end - start) * k as f32 / frames as f32));
            }
            times.sort_by(f32::total_cmp);
            times.dedup_by(|a, b| (*a - *b).abs() < 1e-5);
            (step, times.into_iter().map(|t| (t, world_at(model, Some(ClipId::from_index(c)), t))).collect())
        })
        .collect();
    for (i, foot_name) in feet.iter().enumerate() {
        let foot = model
            .nodes()
            .iter()
            .position(|n| n.name.as_deref() == Some(*foot_name))
            .ok_or_else(|| format!("no node named {foot_name}"))?;
        let shin =
            model.hierarchy.parent(NodeId::from_index(foot)).ok_or_else(|| format!("{foot_name} has no parent"))?;
        // The control: the shin's frame, held at the armature root.
        let local = |world: &[Affine3A]| holder_world(world).inverse() * world[shin.index()];
        let (s, r, t) = local(&rest).to_scale_rotation_translation();
        let control = doc.add_node(json!({
            "name": format!("ik_control_{i}"),
            "translation": [t.x, t.y, t.z], "rotation": [r.x, r.y, r.z, r.w], "scale": [s.x, s.y, s.z],
            "children": [foot],
        }));
        // The foot leaves the shin.
        let kept: Vec<usize> = children(doc, shin.index()).into_iter().filter(|&c| c != foot).collect();
        doc.json["nodes"][shin.index()]["children"] = json!(kept);
        match holder {
            Some(h) => {
                let mut list = children(doc, h.index());
                list.push(control);
                doc.json["nodes"][h.index()]["children"] = json!(list);
            }
            None => {
                if let Some(scenes) = doc.json["scenes"].as_array_mut() {
                    for scene in scenes {
                        if let Some(nodes) = scene["nodes"].as_array_mut() {
                            nodes.push(json!(control));
                        }
                    }
                }
            }
        }
        // A joint of the skin (inverse bind: its rest frame).
        let ibm = Mat4::from(rest[shin.index()].inverse()).to_cols_array();
        let old = doc.json["skins"][0]["inverseBindMatrices"].as_u64();
        let mut all = match old {
            Some(a) => read_floats(doc, a as usize)?,
            None => skin.joints.iter().flat_map(|_| Mat4::IDENTITY.to_cols_array()).collect(),
        };
        all.extend_from_slice(&ibm);
        let accessor = doc.add_f32(&all, "MAT4");
        doc.json["skins"][0]["inverseBindMatrices"] = json!(accessor);
        if let Some(joints) = doc.json["skins"][0]["joints"].as_array_mut() {
            joints.push(json!(control));
        }
        // Its motion in every clip, baked.
        for (c, (step, frames)) in clip_worlds.iter().enumerate() {
            let times: Vec<f32> = frames.iter().map(|(t, _)| *t).collect();
            let (mut ts, mut rs, mut ss) = (Vec::new(), Vec::new(), Vec::new());
            let mut previous = Quat::IDENTITY;
            for (_, world) in frames {
                let (s, r, t) = local(world).to_scale_rotation_translation();
                let r = if r.dot(previous) < 0.0 { -r } else { r };
                previous = r;
                ts.extend(t.to_array());
                rs.extend(r.to_array());
                ss.extend(s.to_array());
            }
            for (path, values, ty) in [("translation", &ts, "VEC3"), ("rotation", &rs, "VEC4"), ("scale", &ss, "VEC3")]
            {
                let sampler = doc.sampler(&times, values, ty, if *step { "STEP" } else { "LINEAR" });
                let samplers = &mut doc.json["animations"][c]["samplers"];
                let index = samplers.as_array().map_or(0, Vec::len);
                if let Some(list) = samplers.as_array_mut() {
                    list.push(sampler);
                }
                if let Some(list) = doc.json["animations"][c]["channels"].as_array_mut() {
                    list.push(json!({"sampler": index, "target": {"node": control, "path": path}}));
                }
            }
        }
    }
    Ok(())
}

/// The name of the clip [`with_hover_clip`] adds.
pub const HOVER_CLIP: &str = "Hover";

/// Add a clip [`HOVER_CLIP`] to a GLB: `walk` with the skeleton's top joint lifted by half the
/// character's height (model space), so its feet step but never reach the ground.
///
/// # Errors
/// When the GLB does not import, has no clip `walk` or no skin.
pub fn with_hover_clip(bytes: &[u8], walk: &str) -> Result<Vec<u8>, String> {
    let model = anim::import::load_slice(bytes, None).map_err(|e| e.to_string())?;
    let clip = find_clip(&model, walk).ok_or_else(|| format!("no clip {walk}"))?;
    // The skeleton's top joint: everything the skin moves hangs below it (feet under IK
    // controls too, which the hips do not carry).
    let skin = model.skins().first().ok_or("no skin")?;
    let depth = |node: NodeId| std::iter::successors(Some(node), |&n| model.hierarchy.parent(n)).count();
    let root = skin.joints.iter().copied().min_by_key(|&j| (depth(j), j.index())).ok_or("the skin has no joints")?;
    let rest = world_at(&model, None, 0.0);
    let joints: Vec<usize> = model
        .skins()
        .first()
        .map_or_else(|| (0..model.nodes().len()).collect(), |s| s.joints.iter().map(|j| j.index()).collect());
    let (lo, hi) = joints.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &j| {
        let y = rest[j].translation.y;
        (lo.min(y), hi.max(y))
    });
    let parent = model.hierarchy.parent(root).map_or(Affine3A::IDENTITY, |p| rest[p.index()]);
    let lift = parent.inverse().transform_vector3(Vec3::Y * 0.5 * (hi - lo));
    let mut doc = Doc::from_glb(bytes)?;
    let source = doc.json["animations"][clip.index()].clone();
    let mut hover = source.clone();
    hover["name"] = json!(HOVER_CLIP);
    let mut lifted = false;
    let channels = source["channels"].as_array().cloned().unwrap_or_default();
    for (c, channel) in channels.iter().enumerate() {
        if channel["target"]["node"].as_u64() != Some(root.index() as u64) || channel["target"]["path"] != "translation"
        {
            continue;
        }
        let sampler = channel["sampler"].as_u64().unwrap_or(0) as usize;
        let output = source["samplers"][sampler]["output"].as_u64().unwrap_or(0) as usize;
        let cubic = source["samplers"][sampler]["interpolation"] == "CUBICSPLINE";
        let values = read_floats(&doc, output)?;
        let out: Vec<f32> = values
            .chunks_exact(3)
            .enumerate()
            .flat_map(|(k, v)| {
                let value = !cubic || k % 3 == 1;
                (Vec3::from_slice(v) + if value { lift } else { Vec3::ZERO }).to_array()
            })
            .collect();
        let accessor = doc.add_f32(&out, "VEC3");
        let index = hover["samplers"].as_array().map_or(0, Vec::len);
        let mut new = source["samplers"][sampler].clone();
        new["output"] = json!(accessor);
        if let Some(list) = hover["samplers"].as_array_mut() {
            list.push(new);
        }
        hover["channels"][c]["sampler"] = json!(index);
        lifted = true;
    }
    if !lifted {
        let at = model.rest_pose().get(root).map_or(Vec3::ZERO, |t| t.translation) + lift;
        let (start, end) = (model[clip].start_secs(), model[clip].end_secs());
        let sampler = doc.sampler(&[start, end], &[at.to_array(), at.to_array()].concat(), "VEC3", "LINEAR");
        let index = hover["samplers"].as_array().map_or(0, Vec::len);
        if let Some(list) = hover["samplers"].as_array_mut() {
            list.push(sampler);
        }
        if let Some(list) = hover["channels"].as_array_mut() {
            list.push(json!({"sampler": index, "target": {"node": root.index(), "path": "translation"}}));
        }
    }
    doc.push("animations", hover);
    Ok(finish(&mut doc))
}
