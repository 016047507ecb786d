//! The built-in mannequin (`assets/mannequin.glb`): reproducible, valid glTF, and shaped, skinned
//! and animated as issue 3 asks. The GLB is parsed here independently of the generator.

use std::path::PathBuf;
use std::sync::OnceLock;

use devtools::mannequin::build_mannequin_glb;
use serde_json::Value;

const ASSET: &str = "assets/mannequin.glb";
const REGENERATE: &str = "regenerate it with `UPDATE_ASSETS=1 cargo test -p animtune-devtools --test mannequin` \
     (or `cargo xtask generate mannequin`) and commit the result";

fn repo_root() -> PathBuf {
    devtools::ci::repo_root()
}

/// The generator's output, built once per test binary.
fn glb() -> &'static [u8] {
    static GLB: OnceLock<Vec<u8>> = OnceLock::new();
    GLB.get_or_init(build_mannequin_glb)
}

/// The parsed document of [`glb`].
fn doc() -> &'static Gltf {
    static DOC: OnceLock<Gltf> = OnceLock::new();
    DOC.get_or_init(|| Gltf::parse(glb()))
}

struct Gltf {
    json: Value,
    bin: Vec<u8>,
}

fn u32_at(bytes: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes"))
}

fn as_usize(v: &Value) -> usize {
    usize::try_from(v.as_u64().unwrap_or_else(|| panic!("{v} is not an index"))).expect("fits usize")
}

impl Gltf {
    fn parse(bytes: &[u8]) -> Self {
        assert_eq!(&bytes[0..4], b"glTF", "GLB magic");
        assert_eq!(u32_at(bytes, 4), 2, "GLB version");
        assert_eq!(u32_at(bytes, 8) as usize, bytes.len(), "GLB length");
        let json_len = u32_at(bytes, 12) as usize;
        assert_eq!(&bytes[16..20], b"JSON");
        assert_eq!(json_len % 4, 0, "JSON chunk padded to 4 bytes");
        let json: Value = serde_json::from_slice(&bytes[20..20 + json_len]).expect("JSON chunk parses");
        let bin_header = 20 + json_len;
        let bin_len = u32_at(bytes, bin_header) as usize;
        assert_eq!(&bytes[bin_header + 4..bin_header + 8], b"BIN\0");
        assert_eq!(bin_len % 4, 0, "BIN chunk padded to 4 bytes");
        let bin = bytes[bin_header + 8..bin_header + 8 + bin_len].to_vec();
        Self { json, bin }
    }

    fn accessor(&self, index: usize) -> &Value {
        &self.json["accessors"][index]
    }

    /// All components of a dense accessor, as f64 (normalized integers are not used here).
    fn read(&self, index: usize) -> Vec<f64> {
        let a = self.accessor(index);
        let view = &self.json["bufferViews"][as_usize(&a["bufferView"])];
        assert!(view.get("byteStride").is_none(), "tightly packed views");
        let start = as_usize(&view["byteOffset"]) + a.get("byteOffset").map_or(0, as_usize);
        let width = match a["type"].as_str().expect("type") {
            "SCALAR" => 1,
            "VEC2" => 2,
            "VEC3" => 3,
            "VEC4" => 4,
            "MAT4" => 16,
            other => panic!("unexpected accessor type {other}"),
        };
        let n = as_usize(&a["count"]) * width;
        let data = &self.bin[start..];
        match a["componentType"].as_u64().expect("componentType") {
            5126 => (0..n)
                .map(|i| f64::from(f32::from_le_bytes(data[i * 4..i * 4 + 4].try_into().expect("4 bytes"))))
                .collect(),
            5121 => data[..n].iter().map(|&b| f64::from(b)).collect(),
            5123 => (0..n).map(|i| f64::from(u16::from_le_bytes([data[i * 2], data[i * 2 + 1]]))).collect(),
            5125 => (0..n).map(|i| f64::from(u32_at(data, i * 4))).collect(),
            other => panic!("unexpected component type {other}"),
        }
    }

    fn primitive(&self) -> &Value {
        &self.json["meshes"][0]["primitives"][0]
    }

    fn attribute(&self, name: &str) -> Vec<f64> {
        self.read(as_usize(&self.primitive()["attributes"][name]))
    }

    fn node_index(&self, name: &str) -> usize {
        self.json["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .position(|n| n["name"] == name)
            .unwrap_or_else(|| panic!("no node named {name}"))
    }

    fn parent_of(&self, node: usize) -> Option<usize> {
        self.json["nodes"].as_array().expect("nodes").iter().position(|n| {
            n.get("children").is_some_and(|c| c.as_array().expect("children").iter().any(|c| as_usize(c) == node))
        })
    }

    /// World bind position of a joint (sum of local translations; the bind rotations are identity).
    fn world_position(&self, node: usize) -> [f64; 3] {
        let mut p = [0.0; 3];
        let mut current = Some(node);
        while let Some(n) = current {
            let nd = &self.json["nodes"][n];
            if let Some(r) = nd.get("rotation") {
                let r: Vec<f64> = r.as_array().expect("rotation").iter().map(|v| v.as_f64().expect("f64")).collect();
                assert_eq!(r, [0.0, 0.0, 0.0, 1.0], "bind rotations are identity");
            }
            if let Some(t) = nd.get("translation") {
                for (c, v) in t.as_array().expect("translation").iter().enumerate() {
                    p[c] += v.as_f64().expect("f64");
                }
            }
            current = self.parent_of(n);
        }
        p
    }
}

fn distance(a: [f64; 3], b: &[f64]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

#[test]
fn checked_in_asset_is_current() {
    let path = repo_root().join(ASSET);
    let built = glb();
    if std::env::var_os("UPDATE_ASSETS").is_some_and(|v| v == "1") {
        devtools::mannequin::write_mannequin(&path).expect("write the asset");
        eprintln!("wrote {}", path.display());
    }
    let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}; {REGENERATE}", path.display()));
    assert!(
        on_disk == built,
        "{ASSET} differs from build_mannequin_glb() ({} vs {} bytes); {REGENERATE}",
        on_disk.len(),
        built.len()
    );
}

#[test]
fn khronos_validator_reports_no_errors_or_warnings() {
    let Some(report) = devtools::ci::validate_gltf(&repo_root().join(ASSET)) else { return };
    assert_eq!(report["errors"], 0, "validator errors:\n{report:#}");
    assert_eq!(report["warnings"], 0, "validator warnings:\n{report:#}");
}

const JOINTS: [&str; 21] = [
    "Hips",
    "Spine",
    "Chest",
    "Neck",
    "Head",
    "Shoulder.L",
    "Shoulder.R",
    "UpperArm.L",
    "UpperArm.R",
    "LowerArm.L",
    "LowerArm.R",
    "Hand.L",
    "Hand.R",
    "UpperLeg.L",
    "UpperLeg.R",
    "LowerLeg.L",
    "LowerLeg.R",
    "Foot.L",
    "Foot.R",
    "Toes.L",
    "Toes.R",
];

#[test]
fn skeleton_is_a_named_humanoid_with_a_proper_bind_pose() {
    let g = doc();
    let skin = &g.json["skins"][0];
    let joints: Vec<usize> = skin["joints"].as_array().expect("joints").iter().map(as_usize).collect();
    assert!(joints.len() >= 20, "{} joints", joints.len());
    let names: Vec<&str> = joints.iter().map(|&j| g.json["nodes"][j]["name"].as_str().expect("joint name")).collect();
    for name in JOINTS {
        assert!(names.contains(&name), "missing joint {name}");
    }
    let hips = g.node_index("Hips");
    assert_eq!(as_usize(&skin["skeleton"]), hips, "skin.skeleton is Hips");
    assert_eq!(g.parent_of(hips), None, "Hips is a root");
    // The skinned mesh node is a root next to the skeleton root.
    let mesh_node =
        g.json["nodes"].as_array().expect("nodes").iter().position(|n| n.get("mesh").is_some()).expect("mesh node");
    assert_eq!(g.parent_of(mesh_node), None, "mesh node is a root");
    let roots: Vec<usize> =
        g.json["scenes"][0]["nodes"].as_array().expect("scene nodes").iter().map(as_usize).collect();
    assert!(roots.contains(&hips) && roots.contains(&mesh_node), "scene roots {roots:?}");
    // Inverse bind matrices undo each joint's world bind transform (a translation here).
    let ibm = g.read(as_usize(&skin["inverseBindMatrices"]));
    for (k, &joint) in joints.iter().enumerate() {
        let p = g.world_position(joint);
        let m = &ibm[k * 16..k * 16 + 16];
        for c in 0..3 {
            assert!((m[12 + c] + p[c]).abs() < 1e-5, "IBM of {} does not invert its bind position", names[k]);
        }
    }
    // Y up, facing +Z: head above hips above feet; the left hand on +X; toes in front of ankles.
    let y = |n: &str| g.world_position(g.node_index(n))[1];
    assert!(
        y("Head") > y("Chest")
            && y("Chest") > y("Hips")
            && y("Hips") > y("LowerLeg.L")
            && y("LowerLeg.L") > y("Foot.L")
    );
    assert!(g.world_position(g.node_index("Hand.L"))[0] > 0.3 && g.world_position(g.node_index("Hand.R"))[0] < -0.3);
    assert!(g.world_position(g.node_index("Toes.L"))[2] > g.world_position(g.node_index("Foot.L"))[2] + 0.08);
}

#[test]
fn mesh_is_one_closed_smoothly_skinned_surface_of_the_right_size() {
    let g = doc();
    let positions = g.attribute("POSITION");
    let vertex_count = positions.len() / 3;
    assert!(vertex_count >= 3000, "{vertex_count} vertices");
    assert_eq!(g.json["meshes"].as_array().expect("meshes").len(), 1);
    assert_eq!(g.json["meshes"][0]["primitives"].as_array().expect("primitives").len(), 1, "one primitive");

    let (mut min, mut max) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in positions.chunks_exact(3) {
        for c in 0..3 {
            min[c] = min[c].min(p[c]);
            max[c] = max[c].max(p[c]);
        }
    }
    let height = max[1] - min[1];
    assert!((1.70..=1.80).contains(&height), "height {height}");
    assert!(min[1].abs() < 0.005, "feet on y = 0 (min y {})", min[1]);

    // Closed and edge-manifold: every directed edge appears once and its reverse once, so there
    // are no cracks, holes or internal faces.
    let indices = g.read(as_usize(&g.primitive()["indices"]));
    let mut edges = std::collections::BTreeMap::new();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    for tri in indices.chunks_exact(3) {
        let t = [tri[0] as u32, tri[1] as u32, tri[2] as u32];
        assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2], "degenerate triangle {t:?}");
        for e in 0..3 {
            *edges.entry((t[e], t[(e + 1) % 3])).or_insert(0_u32) += 1;
        }
    }
    for (&(a, b), &n) in &edges {
        assert_eq!(n, 1, "edge {a}-{b} used {n} times");
        assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} has no twin: the surface is open");
    }
    // Euler characteristic 2: a single closed surface of genus 0.
    let euler = vertex_count as i64 - (edges.len() / 2) as i64 + (indices.len() / 3) as i64;
    assert_eq!(euler, 2, "Euler characteristic");

    // Unit normals.
    for n in g.attribute("NORMAL").chunks_exact(3) {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-4, "normal length {len}");
    }

    // Skin: weights sum to one; two or more influences near elbows and knees.
    let joints = g.attribute("JOINTS_0");
    let weights = g.attribute("WEIGHTS_0");
    for w in weights.chunks_exact(4) {
        let sum: f64 = w.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6, "weights sum to {sum}");
    }
    let skin_joints: Vec<usize> =
        g.json["skins"][0]["joints"].as_array().expect("joints").iter().map(as_usize).collect();
    for name in ["LowerArm.L", "LowerArm.R", "LowerLeg.L", "LowerLeg.R"] {
        let centre = g.world_position(g.node_index(name));
        let mut near = 0;
        for (v, p) in positions.chunks_exact(3).enumerate() {
            if distance(centre, p) <= 0.08 {
                near += 1;
                let w = &weights[v * 4..v * 4 + 4];
                let influences = w.iter().filter(|&&x| x > 0.0).count();
                assert!(influences >= 2, "vertex {v} near {name} has {influences} influence(s): {w:?}");
                // The joint itself and its parent share the vertex.
                let used: Vec<&str> = (0..4)
                    .filter(|&s| w[s] > 0.0)
                    .map(|s| {
                        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                        let j = joints[v * 4 + s] as usize;
                        g.json["nodes"][skin_joints[j]]["name"].as_str().expect("name")
                    })
                    .collect();
                assert!(used.contains(&name), "vertex {v} near {name} is not bound to it: {used:?}");
            }
        }
        assert!(near > 50, "only {near} vertices near {name}");
    }
}

#[test]
fn colours_material_and_blink_target() {
    let g = doc();
    let material = &g.json["materials"][0]["pbrMetallicRoughness"];
    assert_eq!(material["baseColorFactor"], serde_json::json!([1.0, 1.0, 1.0, 1.0]));
    assert_eq!(material["metallicFactor"], 0.0);
    assert!((material["roughnessFactor"].as_f64().expect("roughness") - 0.7).abs() < 1e-6);

    // Several distinct colour regions, dark eyes on the front of the head.
    let positions = g.attribute("POSITION");
    let colors = g.attribute("COLOR_0");
    let mut distinct: Vec<[i64; 3]> = Vec::new();
    #[allow(clippy::cast_possible_truncation)]
    for c in colors.chunks_exact(3) {
        let key = [(c[0] * 20.0).round() as i64, (c[1] * 20.0).round() as i64, (c[2] * 20.0).round() as i64];
        if !distinct.contains(&key) {
            distinct.push(key);
        }
    }
    assert!(distinct.len() >= 5, "only {} colour regions", distinct.len());
    let dark_eye_vertices = positions
        .chunks_exact(3)
        .zip(colors.chunks_exact(3))
        .filter(|(p, c)| p[1] > 1.6 && p[2] > 0.05 && c.iter().all(|&x| x < 0.03))
        .count();
    assert!(dark_eye_vertices >= 8, "{dark_eye_vertices} dark eye vertices");

    let mesh = &g.json["meshes"][0];
    assert_eq!(mesh["extras"]["targetNames"], serde_json::json!(["Blink"]));
    assert_eq!(mesh["weights"], serde_json::json!([0.0]));
    let target = &g.primitive()["targets"][0];
    assert!(target.get("NORMAL").is_some(), "blink has normal offsets");
    let blink = g.accessor(as_usize(&target["POSITION"]));
    let moved = blink["sparse"]["count"].as_u64().expect("sparse blink offsets");
    assert!(moved >= 20, "blink moves {moved} vertices");
    // Only the face moves: the offsets' bounding box is small.
    for c in 0..3 {
        let extent = blink["max"][c].as_f64().expect("max") - blink["min"][c].as_f64().expect("min");
        assert!(extent > 0.0 && extent < 0.03, "blink offset extent {extent} on axis {c}");
    }
}

#[test]
fn clips_are_hand_keyed_with_every_interpolation_mode() {
    let g = doc();
    let animations = g.json["animations"].as_array().expect("animations");
    assert!(animations.len() >= 8, "{} clips", animations.len());
    let names: Vec<&str> = animations.iter().map(|a| a["name"].as_str().expect("clip name")).collect();
    for name in ["Idle", "Walk", "Run", "Wave", "Jump", "Stumble"] {
        assert!(names.contains(&name), "missing clip {name}");
    }
    let skin_joints: Vec<usize> =
        g.json["skins"][0]["joints"].as_array().expect("joints").iter().map(as_usize).collect();
    let mesh_node =
        g.json["nodes"].as_array().expect("nodes").iter().position(|n| n.get("mesh").is_some()).expect("mesh node");
    let mut modes = Vec::new();
    let mut weights_channel = false;
    for anim in animations {
        let name = anim["name"].as_str().expect("name");
        let looping = anim["extras"]["loop"].as_bool().expect("extras.loop");
        let mut duration: f64 = 0.0;
        for channel in anim["channels"].as_array().expect("channels") {
            let node = as_usize(&channel["target"]["node"]);
            let path = channel["target"]["path"].as_str().expect("path");
            if path == "weights" {
                assert_eq!(node, mesh_node, "{name}: weights target the mesh node");
                weights_channel = true;
            } else {
                assert!(skin_joints.contains(&node), "{name}: channel targets non-joint node {node}");
            }
            let sampler = &anim["samplers"][as_usize(&channel["sampler"])];
            let mode = sampler["interpolation"].as_str().expect("interpolation");
            if !modes.contains(&mode) {
                modes.push(mode);
            }
            let input = g.accessor(as_usize(&sampler["input"]));
            assert!(input.get("min").is_some() && input.get("max").is_some(), "{name}: input min/max");
            let times = g.read(as_usize(&sampler["input"]));
            assert!(times.windows(2).all(|w| w[1] > w[0]), "{name}: increasing key times");
            assert!(times.len() <= 16, "{name}: keyed sparsely ({} keys)", times.len());
            duration = duration.max(times[times.len() - 1]);
            let width = match path {
                "rotation" => 4,
                "translation" => 3,
                _ => 1,
            };
            let out = g.read(as_usize(&sampler["output"]));
            let per_key = if mode == "CUBICSPLINE" { 3 * width } else { width };
            assert_eq!(out.len(), per_key * times.len(), "{name}: output size");
            let key = |k: usize| &out[k * per_key..(k + 1) * per_key];
            let value = |k: usize| if mode == "CUBICSPLINE" { &key(k)[width..2 * width] } else { key(k) };
            if path == "rotation" {
                for k in 0..times.len() {
                    let q = value(k);
                    let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                    assert!((len - 1.0).abs() < 1e-5, "{name}: non-unit quaternion {q:?}");
                    if k > 0 {
                        let dot: f64 = q.iter().zip(value(k - 1)).map(|(a, b)| a * b).sum();
                        assert!(dot > 0.0, "{name}: keys {k} and {} in opposite hemispheres", k - 1);
                    }
                }
            }
            if looping {
                let last = times.len() - 1;
                // Same value, and (for cubic) the same in- and out-tangents: the curve is periodic.
                assert_eq!(key(0), key(last), "{name}: loop does not close on node {node} {path}");
            }
        }
        match name {
            "Walk" | "Walk_Linear" => assert!((1.0..=1.2).contains(&duration), "{name} cycle {duration}"),
            "Run" => assert!((0.6..=0.8).contains(&duration), "Run cycle {duration}"),
            _ => {}
        }
        if ["Idle", "Walk", "Run", "Walk_Linear"].contains(&name) {
            assert!(looping, "{name} loops");
        }
    }
    for mode in ["CUBICSPLINE", "LINEAR", "STEP"] {
        assert!(modes.contains(&mode), "no {mode} sampler (have {modes:?})");
    }
    assert!(weights_channel, "a clip animates the blink weight");
}

#[test]
fn cubic_tangents_are_authored_not_implied() {
    // The cubic clips mix eased holds (zero tangents) with moving passing poses (non-zero), so
    // sampling them as LINEAR looks visibly different.
    let g = doc();
    let mut zero = 0;
    let mut moving = 0;
    for anim in g.json["animations"].as_array().expect("animations") {
        for sampler in anim["samplers"].as_array().expect("samplers") {
            if sampler["interpolation"] != "CUBICSPLINE" || anim["name"] == "Idle" {
                continue;
            }
            let out = g.read(as_usize(&sampler["output"]));
            let keys = g.read(as_usize(&sampler["input"])).len();
            let width = out.len() / keys / 3;
            for k in 0..keys {
                let tangent = &out[k * 3 * width..k * 3 * width + width];
                if tangent.iter().all(|&t| t == 0.0) {
                    zero += 1;
                } else if tangent.iter().any(|t| t.abs() > 0.05) {
                    moving += 1;
                }
            }
        }
    }
    assert!(zero > 50 && moving > 200, "{zero} flat and {moving} moving cubic keys");
}

#[test]
fn anim_core_imports_and_samples_every_clip() {
    use anim::{ClipCursor, InterpolationOverride, LocalMatrices, PreparedSkin, SampleSettings};
    use glam::{Affine3A, Mat4};

    let model = anim::import::load_slice(glb(), None).expect("the anim core imports the mannequin");
    assert!(model.clips().len() >= 8);
    let mesh_index = model.nodes().iter().position(|n| n.mesh.is_some()).expect("mesh node");
    let skin = PreparedSkin::new(&model.skins()[model.nodes()[mesh_index].skin.expect("skinned")]);
    let primitive = &model.meshes()[0].primitives[0];
    assert_eq!(model.meshes()[0].target_names, ["Blink"]);
    assert_eq!(primitive.targets.len(), 1);
    assert!(primitive.targets[0].positions.iter().any(|d| d.length() > 0.002), "blink moves vertices");

    let mut model_from_node = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut locals = LocalMatrices::new(model.nodes().len());
    let mut palette = vec![Mat4::IDENTITY; skin.len()];
    // The rest pose's skinning palette is the identity: bind pose and IBMs agree.
    let rest = model.rest_pose();
    model.hierarchy.local_to_model(&rest, &mut locals, &mut model_from_node);
    skin.skinning_matrices(&model_from_node, &mut palette);
    for m in &palette {
        assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-5), "rest palette {m:?}");
    }

    let mut pose = rest.clone();
    for (index, clip) in model.clips().iter().enumerate() {
        let name = clip.display_name(index);
        let mut cursor = ClipCursor::new(clip);
        for mode in InterpolationOverride::ALL {
            let settings = SampleSettings::with_mode(mode);
            for step in 0..=16_u8 {
                let t = clip.duration_secs() * f32::from(step) / 16.0;
                pose.copy_from(&rest);
                clip.sample(t, &mut cursor, &settings, &mut pose);
                let finite = pose.is_finite() && pose.nodes().all(|(_, l)| (l.rotation.length() - 1.0).abs() < 1e-3);
                assert!(finite, "{name} at {t} s ({}) is not finite", mode.name());
                model.hierarchy.local_to_model(&pose, &mut locals, &mut model_from_node);
                skin.skinning_matrices(&model_from_node, &mut palette);
                assert!(palette.iter().all(Mat4::is_finite), "{name} at {t} s: skinning palette");
            }
        }
    }

    // Walking keeps the feet on the floor: skin the mesh through the cycle and check the lowest
    // point stays near y = 0.
    let walk = model.find_clip("Walk").expect("Walk");
    let clip = &model[walk];
    let mut cursor = ClipCursor::new(clip);
    for step in 0..11_u8 {
        let t = clip.duration_secs() * f32::from(step) / 11.0;
        pose.copy_from(&rest);
        clip.sample(t, &mut cursor, &SampleSettings::default(), &mut pose);
        model.hierarchy.local_to_model(&pose, &mut locals, &mut model_from_node);
        skin.skinning_matrices(&model_from_node, &mut palette);
        let mut lowest = f32::MAX;
        for (v, p) in primitive.positions.iter().enumerate() {
            let j = primitive.joints[0][v];
            let w = primitive.weights[0][v];
            let m = palette[usize::from(j[0])] * w.x
                + palette[usize::from(j[1])] * w.y
                + palette[usize::from(j[2])] * w.z
                + palette[usize::from(j[3])] * w.w;
            lowest = lowest.min(m.transform_point3(*p).y);
        }
        assert!((-0.03..=0.03).contains(&lowest), "Walk at {t} s: lowest point at y = {lowest}");
    }
}
