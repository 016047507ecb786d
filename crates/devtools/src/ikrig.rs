//! IK-control-style variants of a humanoid rig, made at test time: the feet and hands are
//! re-parented under new control bones at the armature root — how Blender rigs with IK
//! controllers arrive (the foot hangs under `foot.ik`, not under the shin) — keeping every
//! rest world transform and baking each clip's animated world transforms of the moved bones
//! into keys on the control bones, so that the character looks and moves exactly as before
//! (up to the 60 Hz resampling of the moved bones).
//!
//! ```no_run
//! let bytes = std::fs::read("assets/mannequin.glb").unwrap();
//! let variant = devtools::ikrig::detach_extremities(&bytes).unwrap();
//! let model = anim::import::load_slice(&variant, None).unwrap();
//! assert!(model.nodes().iter().any(|n| n.name.as_deref() == Some("Foot.L.ik")));
//! ```

use anim::{ClipCursor, LocalMatrices, Model, NodeId, SampleSettings};
use glam::{Affine3A, Mat4, Quat};
use serde_json::{Value, json};

use crate::gltf::Doc;

/// Keys per second of the baked control-bone channels.
pub const BAKE_HZ: f32 = 60.0;

/// The skin joints a rig's IK controllers would carry: the topmost joints named as feet or hands
/// (`foot`, `hand`, `palm`, `wrist`, `ankle` in the name, case-insensitive) whose parent is a
/// joint not so named.
pub fn extremities(model: &Model) -> Vec<usize> {
    let named = |node: usize| {
        let name = model.nodes()[node].name.as_deref().unwrap_or("").to_lowercase();
        ["foot", "hand", "palm", "wrist", "ankle"].iter().any(|w| name.contains(w))
    };
    let joints: Vec<usize> = model.skins().iter().flat_map(|s| s.joints.iter().map(|j| j.index())).collect();
    let mut out: Vec<usize> = joints
        .iter()
        .copied()
        .filter(|&j| named(j))
        .filter(|&j| model.hierarchy.parent(NodeId::from_index(j)).is_some_and(|p| !named(p.index())))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The `.glb` of `glb` with [`extremities`] hung under control bones (`<name>.ik`, skin joints
/// carrying no vertices) at the armature root: the parent of the skeleton's top joint, or a new
/// scene root when the top joint is one.
///
/// # Errors
/// When the file does not load, has no skin, or no foot or hand joint.
pub fn detach_extremities(glb: &[u8]) -> Result<Vec<u8>, String> {
    let model = anim::import::load_slice(glb, None).map_err(|e| e.to_string())?;
    let mut doc = Doc::from_glb(glb)?;
    let moved = extremities(&model);
    if moved.is_empty() {
        return Err("no foot or hand joint to detach".to_owned());
    }
    let skin_index = (0..model.skins().len()).max_by_key(|&s| model.skins()[s].joints.len()).ok_or("no skin")?;
    let skin = &model.skins()[skin_index];
    // The armature root: the parent of the topmost joint (none: the control bones become scene
    // roots).
    let depth = |mut n: NodeId| {
        let mut d = 0;
        while let Some(p) = model.hierarchy.parent(n) {
            n = p;
            d += 1;
        }
        d
    };
    let top = skin.joints.iter().copied().min_by_key(|&j| (depth(j), j.index())).ok_or("empty skin")?;
    let armature = model.hierarchy.parent(top).map(NodeId::index);

    let n = model.nodes().len();
    let rest = model.rest_pose();
    let mut locals = LocalMatrices::new(n);
    let mut world = vec![Affine3A::IDENTITY; n];
    model.hierarchy.local_to_model(&rest, &mut locals, &mut world);
    let parent_world = |world: &[Affine3A]| armature.map_or(Affine3A::IDENTITY, |a| world[a]);

    // Unhook the extremities from their old parents (the controls below take them).
    for node in doc.json["nodes"].as_array_mut().into_iter().flatten() {
        if let Some(children) = node.get_mut("children").and_then(Value::as_array_mut) {
            children.retain(|c| c.as_u64().is_none_or(|c| !moved.contains(&(c as usize))));
        }
        // glTF forbids an empty `children` array.
        if node.get("children").and_then(Value::as_array).is_some_and(Vec::is_empty)
            && let Some(obj) = node.as_object_mut()
        {
            obj.remove("children");
        }
    }
    // Control bones at the extremities' rest world transforms (relative to the armature root);
    // the extremity itself keeps only its scale.
    let mut controls = Vec::new();
    for &node in &moved {
        let name = model.nodes()[node].name.clone().unwrap_or_else(|| format!("node_{node}"));
        let (s, r, t) = (parent_world(&world).inverse() * world[node]).to_scale_rotation_translation();
        let control = doc.add_node(json!({
            "name": format!("{name}.ik"),
            "translation": t.to_array(),
            "rotation": r.normalize().to_array(),
            "children": [node],
        }));
        let extremity = &mut doc.json["nodes"][node];
        if let Some(obj) = extremity.as_object_mut() {
            obj.remove("matrix");
            obj.remove("translation");
            obj.remove("rotation");
            obj.insert("scale".to_owned(), json!(s.to_array()));
        }
        controls.push(control);
    }
    // Hook the controls in at the armature root.
    for &control in &controls {
        match armature {
            Some(a) => {
                let children = &mut doc.json["nodes"][a]["children"];
                if !children.is_array() {
                    *children = json!([]);
                }
                if let Some(c) = children.as_array_mut() {
                    c.push(json!(control));
                }
            }
            None => {
                for scene in doc.json["scenes"].as_array_mut().into_iter().flatten() {
                    if let Some(nodes) = scene["nodes"].as_array_mut() {
                        nodes.push(json!(control));
                    }
                }
            }
        }
    }
    // The control bones join the skin (identity inverse binds: no vertex is weighted to them).
    let mut joints: Vec<Value> = skin.joints.iter().map(|j| json!(j.index())).collect();
    joints.extend(controls.iter().map(|&c| json!(c)));
    let mut binds: Vec<f32> = skin.inverse_bind_matrices.iter().flat_map(Mat4::to_cols_array).collect();
    for _ in &controls {
        binds.extend(Mat4::IDENTITY.to_cols_array());
    }
    let binds = doc.add_f32(&binds, "MAT4");
    doc.json["skins"][skin_index]["joints"] = Value::Array(joints);
    doc.json["skins"][skin_index]["inverseBindMatrices"] = json!(binds);
    // The skeleton root must stay a common root of the joints: the armature root holds the
    // controls too (without one, the skin names none).
    if doc.json["skins"][skin_index].get("skeleton").is_some() {
        match armature {
            Some(a) => doc.json["skins"][skin_index]["skeleton"] = json!(a),
            None => {
                if let Some(obj) = doc.json["skins"][skin_index].as_object_mut() {
                    obj.remove("skeleton");
                }
            }
        }
    }

    // Each clip: the extremities' channels go; their animated world transforms are baked into
    // the control bones' keys.
    let animations = doc.json["animations"].as_array().map_or(0, Vec::len);
    for a in 0..animations.min(model.clips().len()) {
        let clip = &model.clips()[a];
        if let Some(channels) = doc.json["animations"][a]["channels"].as_array_mut() {
            channels.retain(|c| c["target"]["node"].as_u64().is_none_or(|t| !moved.contains(&(t as usize))));
        }
        let duration = clip.duration_secs();
        let frames = ((duration * BAKE_HZ).ceil() as usize).max(1);
        let times: Vec<f32> = (0..=frames).map(|k| (k as f32 / BAKE_HZ).min(duration)).collect();
        let mut cursor = ClipCursor::new(clip);
        let settings = SampleSettings::default();
        let mut pose = rest.clone();
        let mut tracks = vec![(Vec::new(), Vec::new()); moved.len()];
        let mut previous: Vec<Option<Quat>> = vec![None; moved.len()];
        for &t in &times {
            pose.copy_from(&rest);
            clip.sample(t, &mut cursor, &settings, &mut pose);
            model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
            for (i, &node) in moved.iter().enumerate() {
                let (_, r, p) = (parent_world(&world).inverse() * world[node]).to_scale_rotation_translation();
                // Keep neighbouring keys in one hemisphere (linear interpolation of quaternions).
                let r = r.normalize();
                let r = match previous[i] {
                    Some(q) if q.dot(r) < 0.0 => -r,
                    _ => r,
                };
                previous[i] = Some(r);
                tracks[i].0.extend(p.to_array());
                tracks[i].1.extend(r.to_array());
            }
        }
        for (i, &control) in controls.iter().enumerate() {
            let translation = doc.sampler(&times, &tracks[i].0, "VEC3", "LINEAR");
            let rotation = doc.sampler(&times, &tracks[i].1, "VEC4", "LINEAR");
            for (sampler, path) in [(translation, "translation"), (rotation, "rotation")] {
                let samplers = &mut doc.json["animations"][a]["samplers"];
                let index = samplers.as_array().map_or(0, Vec::len);
                if let Some(s) = samplers.as_array_mut() {
                    s.push(sampler);
                }
                if let Some(c) = doc.json["animations"][a]["channels"].as_array_mut() {
                    c.push(json!({"sampler": index, "target": {"node": control, "path": path}}));
                }
            }
        }
    }
    if doc.json.get("buffers").is_some() {
        doc.json["buffers"][0]["byteLength"] = json!(doc.bin.len());
    }
    Ok(doc.to_glb())
}
