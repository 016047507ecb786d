//! The `animtune` binary end to end: `sample` and `info` on small glTF files written here, their
//! exact JSON output, and their errors (non-zero exit, message on stderr, nothing on stdout).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use devtools::TempDir;
use devtools::gltf::Doc;
use serde_json::{Value, json};

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

/// `fields` added to the document, as .gltf bytes.
fn finish(mut doc: Doc, fields: Value) -> Vec<u8> {
    doc.merge(fields);
    doc.to_gltf()
}

const HALF: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// The test model, as .gltf JSON:
///
/// * nodes: 0 "root" (children 1, 2, 3), 1 "arm", 2 "face" (morph mesh), 3 "prop" (morph mesh),
///   4 "body" (skinned mesh, skin "rig" of joints 0 and 1);
/// * mesh 0 `"face_mesh"`: 2 morph targets; mesh 1 `"body_mesh"`: skinned, no targets;
/// * animation 0 "walk" (LINEAR): weights of node 2 (keys 0, 2 s), then translation of node 1
///   (keys 0, 1, 2 s), channels deliberately not in node order;
/// * animation 1, unnamed (STEP): rotation of node 0, keys at 0.5 and 1.5 s;
/// * animation 2 "cubic" (CUBICSPLINE): translation of node 3 from (0,0,0) to (2,0,0) over 1 s,
///   out-tangent (0,6,0) and in-tangent (0,-6,0), so the curve leaves the straight line.
fn model_json() -> Vec<u8> {
    let mut b = Doc::with_generator("animtune tests/cli.rs");
    let triangle = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let face_positions = b.add_f32(&triangle, "VEC3");
    let target_0 = b.add_f32(&[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
    let target_1 = b.add_f32(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], "VEC3");
    let body_positions = b.add_f32(&triangle, "VEC3");
    let joints = b.add_raw(&[0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0], 5121, "VEC4", 3, false);
    let weights = b.add_f32(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0], "VEC4");

    let walk_weights = b.sampler(&[0.0, 2.0], &[0.0, 0.0, 1.0, 0.5], "SCALAR", "LINEAR");
    let walk_translation =
        b.sampler(&[0.0, 1.0, 2.0], &[0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 4.0, 4.0, 0.0], "VEC3", "LINEAR");
    let turn = b.sampler(&[0.5, 1.5], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, HALF, HALF], "VEC4", "STEP");
    #[rustfmt::skip]
    let cubic_values = [
        0.0, 0.0, 0.0,   0.0, 0.0, 0.0,   0.0, 6.0, 0.0, // key 0: in-tangent, value, out-tangent
        0.0, -6.0, 0.0,  2.0, 0.0, 0.0,   0.0, 0.0, 0.0, // key 1
    ];
    let cubic = b.sampler(&[0.0, 1.0], &cubic_values, "VEC3", "CUBICSPLINE");

    finish(
        b,
        json!({
            "scene": 0,
            "scenes": [{"name": "main", "nodes": [0, 4]}],
            "nodes": [
                {"name": "root", "children": [1, 2, 3], "translation": [1.0, 2.0, 3.0]},
                {"name": "arm", "translation": [9.0, 9.0, 9.0], "rotation": [0.0, 0.0, 0.6, 0.8], "scale": [2.0, 2.0, 2.0]},
                {"name": "face", "mesh": 0, "translation": [0.0, 0.0, -1.0]},
                {"name": "prop", "mesh": 0, "rotation": [0.0, 0.6, 0.0, 0.8], "scale": [3.0, 3.0, 3.0]},
                {"name": "body", "mesh": 1, "skin": 0}
            ],
            "meshes": [
                {
                    "name": "face_mesh",
                    "primitives": [{"attributes": {"POSITION": face_positions},
                                    "targets": [{"POSITION": target_0}, {"POSITION": target_1}]}],
                    "weights": [0.1, 0.2]
                },
                {
                    "name": "body_mesh",
                    "primitives": [{"attributes": {"POSITION": body_positions, "JOINTS_0": joints, "WEIGHTS_0": weights}}]
                }
            ],
            "skins": [{"name": "rig", "joints": [0, 1]}],
            "animations": [
                {
                    "name": "walk",
                    "samplers": [walk_weights, walk_translation],
                    "channels": [
                        {"sampler": 0, "target": {"node": 2, "path": "weights"}},
                        {"sampler": 1, "target": {"node": 1, "path": "translation"}}
                    ]
                },
                {
                    "samplers": [turn],
                    "channels": [{"sampler": 0, "target": {"node": 0, "path": "rotation"}}]
                },
                {
                    "name": "cubic",
                    "samplers": [cubic],
                    "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}}]
                }
            ]
        }),
    )
}

/// The test model written to a fresh folder.
fn model_file(tag: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new(tag);
    let path = dir.write("model.gltf", &model_json());
    (dir, path)
}

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

fn animtune(args: &[&str]) -> Output {
    Command::new(ANIMTUNE).args(args).output().unwrap()
}

/// Run a command that must succeed with an empty stderr; returns stdout.
#[track_caller]
fn success(args: &[&str]) -> String {
    let out = animtune(args);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "animtune {args:?} failed ({}): {stderr}", out.status);
    assert!(stderr.is_empty(), "animtune {args:?} wrote to stderr: {stderr}");
    stdout
}

/// Run a command that must fail: non-zero exit, nothing on stdout, and a message on stderr that
/// contains every one of `mentions`. Returns stderr.
#[track_caller]
fn failure(args: &[&str], mentions: &[&str]) -> String {
    let out = animtune(args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "animtune {args:?} should fail; stdout: {stdout}");
    assert!(stdout.is_empty(), "animtune {args:?} failed but wrote to stdout: {stdout}");
    for m in mentions {
        assert!(stderr.contains(m), "stderr of animtune {args:?} should mention `{m}`: {stderr}");
    }
    stderr
}

/// `animtune sample MODEL --clip CLIP --times TIMES [extra...] --format json`: the raw output.
#[track_caller]
fn sample_raw(model: &Path, clip: &str, times: &str, extra: &[&str]) -> String {
    let model = model.to_str().unwrap();
    let mut args = vec!["sample", model, "--clip", clip, "--times", times];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "json"]);
    success(&args)
}

/// Like [`sample_raw`], parsed, with the shape and key order checked.
#[track_caller]
fn sample(model: &Path, clip: &str, times: &str, extra: &[&str]) -> Value {
    let raw = sample_raw(model, clip, times, extra);
    let value: Value = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("not JSON ({e}): {raw}"));
    check_sample_shape(&value, &raw);
    value
}

// ---------------------------------------------------------------------------------------------
// JSON inspection
// ---------------------------------------------------------------------------------------------

/// Every object key of a JSON text, in the order it appears.
fn keys_in_order(raw: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut text = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => text.extend(chars.next()),
                '"' => break,
                _ => text.push(c),
            }
        }
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek() == Some(&':') {
            keys.push(text);
        }
    }
    keys
}

/// The documented shape: `{"clip", "samples": [{"time", "nodes": [{"node", "translation",
/// "rotation", "scale", ["weights"]}]}]}`, with exactly these keys in exactly this order.
#[track_caller]
fn check_sample_shape(value: &Value, raw: &str) {
    let object_keys = |v: &Value| -> Vec<String> {
        let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(object_keys(value), ["clip", "samples"], "{raw}");
    assert!(value["clip"].is_string(), "{raw}");
    let mut expected_order = vec!["clip", "samples"];
    for sample in value["samples"].as_array().unwrap() {
        assert_eq!(object_keys(sample), ["nodes", "time"], "{raw}");
        assert!(sample["time"].is_number(), "{raw}");
        expected_order.extend(["time", "nodes"]);
        for node in sample["nodes"].as_array().unwrap() {
            let has_weights = node.get("weights").is_some();
            let mut keys = vec!["node", "rotation", "scale", "translation"];
            if has_weights {
                keys.push("weights");
            }
            keys.sort_unstable();
            assert_eq!(object_keys(node), keys, "{raw}");
            assert!(node["node"].is_u64(), "{raw}");
            for (key, len) in [("translation", 3), ("rotation", 4), ("scale", 3)] {
                let array = node[key].as_array().unwrap();
                assert_eq!(array.len(), len, "{key} in {raw}");
                assert!(array.iter().all(Value::is_number), "{key} in {raw}");
            }
            if has_weights {
                assert!(node["weights"].as_array().unwrap().iter().all(Value::is_number), "{raw}");
            }
            expected_order.extend(["node", "translation", "rotation", "scale"]);
            if has_weights {
                expected_order.push("weights");
            }
        }
    }
    assert_eq!(keys_in_order(raw), expected_order, "key order in {raw}");
}

#[test]
fn keys_in_order_reads_keys_not_values() {
    let raw = r#"{"a": "x:", "b" : {"c\"d": [1, "e"], "f":2}}"#;
    assert_eq!(keys_in_order(raw), ["a", "b", "c\"d", "f"]);
}

fn floats(value: &Value) -> Vec<f64> {
    value.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[track_caller]
fn assert_close(value: &Value, expected: &[f64]) {
    let actual = floats(value);
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!((a - e).abs() < 1e-5, "{actual:?} vs {expected:?}");
    }
}

/// The entry of node `index` in sample `s`.
#[track_caller]
fn node_at(value: &Value, s: usize, index: u64) -> &Value {
    value["samples"][s]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["node"] == index)
        .unwrap_or_else(|| panic!("node {index} missing in sample {s}: {value}"))
}

fn node_indices(value: &Value, s: usize) -> Vec<u64> {
    value["samples"][s]["nodes"].as_array().unwrap().iter().map(|n| n["node"].as_u64().unwrap()).collect()
}

// ---------------------------------------------------------------------------------------------
// sample
// ---------------------------------------------------------------------------------------------

#[test]
fn sample_json_has_the_documented_shape_and_key_order() {
    let (_dir, model) = model_file("shape");
    let raw = sample_raw(&model, "walk", "0.5,1.5", &[]);
    assert!(raw.ends_with('\n'), "{raw:?}");
    assert_eq!(raw.lines().count(), 1, "one line of JSON: {raw}");
    let clip = raw.find("\"clip\"").unwrap();
    let samples = raw.find("\"samples\"").unwrap();
    assert!(clip < samples, "{raw}");
    // Within a node: node, translation, rotation, scale, then weights.
    let first_node = &raw[raw.find("{\"node\"").unwrap()..];
    let at = |key: &str| first_node.find(&format!("\"{key}\"")).unwrap();
    assert!(at("node") < at("translation") && at("translation") < at("rotation") && at("rotation") < at("scale"));
    let value: Value = serde_json::from_str(&raw).unwrap();
    check_sample_shape(&value, &raw);
    assert_eq!(value["clip"], "walk");
}

#[test]
fn sample_gives_one_entry_per_time_in_the_order_given() {
    let (_dir, model) = model_file("order");
    let value = sample(&model, "walk", "1.5,0.5,-1,0.5,10,0", &[]);
    let samples = value["samples"].as_array().unwrap();
    let times: Vec<f64> = samples.iter().map(|s| s["time"].as_f64().unwrap()).collect();
    // Times are echoed as given (negative and past-the-end ones too), repeats kept.
    assert_eq!(times, [1.5, 0.5, -1.0, 0.5, 10.0, 0.0]);
    // "arm" (node 1): translation keys (0,0,0) @0, (2,0,0) @1, (4,4,0) @2.
    let arm = [[3.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [4.0, 4.0, 0.0], [0.0, 0.0, 0.0]];
    // "face" (node 2): weights keys (0, 0) @0, (1, 0.5) @2.
    let face = [[0.75, 0.375], [0.25, 0.125], [0.0, 0.0], [0.25, 0.125], [1.0, 0.5], [0.0, 0.0]];
    for s in 0..samples.len() {
        assert_close(&node_at(&value, s, 1)["translation"], &arm[s]);
        assert_close(&node_at(&value, s, 2)["weights"], &face[s]);
    }
    // Repeated times give identical samples.
    assert_eq!(samples[1], samples[3]);
    // Negative times clamp to 0 (the first key), like time 0 itself.
    assert_eq!(samples[2]["nodes"], samples[5]["nodes"]);
}

#[test]
fn sample_lists_every_animated_node_ascending_with_weights_only_where_animated() {
    let (_dir, model) = model_file("nodes");
    // "walk" animates node 2's weights (channel 0) and node 1's translation (channel 1).
    let value = sample(&model, "walk", "0,1", &[]);
    for s in 0..2 {
        assert_eq!(node_indices(&value, s), [1, 2]);
        assert!(node_at(&value, s, 1).get("weights").is_none(), "node 1 has no morph targets");
        assert!(node_at(&value, s, 2).get("weights").is_some());
    }
    // "cubic" animates node 3's translation only: node 3 has morph targets, but its weights are
    // not animated by this clip, so no "weights" key.
    let value = sample(&model, "cubic", "0.5", &[]);
    assert_eq!(node_indices(&value, 0), [3]);
    assert!(node_at(&value, 0, 3).get("weights").is_none(), "{value}");
}

#[test]
fn sample_keeps_the_nodes_own_values_for_what_the_clip_does_not_animate() {
    let (_dir, model) = model_file("rest");
    let value = sample(&model, "walk", "1.5", &[]);
    let arm = node_at(&value, 0, 1);
    assert_close(&arm["translation"], &[3.0, 2.0, 0.0]); // animated
    assert_close(&arm["rotation"], &[0.0, 0.0, 0.6, 0.8]); // the node's own
    assert_close(&arm["scale"], &[2.0, 2.0, 2.0]);
    let face = node_at(&value, 0, 2);
    assert_close(&face["translation"], &[0.0, 0.0, -1.0]);
    assert_close(&face["rotation"], &[0.0, 0.0, 0.0, 1.0]);
    assert_close(&face["scale"], &[1.0, 1.0, 1.0]);

    let value = sample(&model, "cubic", "0.5", &[]);
    let prop = node_at(&value, 0, 3);
    assert_close(&prop["rotation"], &[0.0, 0.6, 0.0, 0.8]);
    assert_close(&prop["scale"], &[3.0, 3.0, 3.0]);
}

#[test]
fn sample_clamps_before_the_first_key_and_after_the_last() {
    let (_dir, model) = model_file("clamp");
    // The unnamed STEP clip rotates node 0 with keys at 0.5 s (identity) and 1.5 s (90° about z).
    let value = sample(&model, "1", "-3,0,1,1.5,2,100", &[]);
    let identity = [0.0, 0.0, 0.0, 1.0];
    let turned = [0.0, 0.0, f64::from(HALF), f64::from(HALF)];
    for (s, expected) in [identity, identity, identity, turned, turned, turned].iter().enumerate() {
        assert_eq!(node_indices(&value, s), [0]);
        let root = node_at(&value, s, 0);
        assert_close(&root["rotation"], expected);
        assert_close(&root["translation"], &[1.0, 2.0, 3.0]);
    }
}

#[test]
fn unnamed_clip_is_called_animation_index() {
    let (_dir, model) = model_file("unnamed");
    let by_index = sample_raw(&model, "1", "0.25,1.75", &[]);
    let value: Value = serde_json::from_str(&by_index).unwrap();
    assert_eq!(value["clip"], "animation_1");
    // The name shown is accepted as --clip too.
    assert_eq!(sample_raw(&model, "animation_1", "0.25,1.75", &[]), by_index);
}

#[test]
fn clip_by_name_and_by_index_agree() {
    let (_dir, model) = model_file("byname");
    let by_name = sample_raw(&model, "walk", "0,0.7,2", &[]);
    let by_index = sample_raw(&model, "0", "0,0.7,2", &[]);
    assert_eq!(by_name, by_index);
    let cubic_by_name = sample_raw(&model, "cubic", "0.5", &[]);
    assert_eq!(sample_raw(&model, "2", "0.5", &[]), cubic_by_name);
    assert_ne!(cubic_by_name, by_name);
}

#[test]
fn interpolation_overrides_on_cubic_data() {
    let (_dir, model) = model_file("modes");
    let at = |mode: &str, times: &str| {
        let value = sample(&model, "cubic", times, &["--interpolation", mode]);
        value["samples"].as_array().unwrap().iter().map(|s| floats(&s["nodes"][0]["translation"])).collect::<Vec<_>>()
    };
    let close = |a: &[Vec<f64>], e: &[[f64; 3]]| {
        a.len() == e.len() && a.iter().zip(e).all(|(a, e)| a.iter().zip(e).all(|(x, y)| (x - y).abs() < 1e-5))
    };
    let times = "0,0.25,0.5,1";
    // Authored = Hermite with the authored tangents: at u = 0.5, p = (p0 + p1)/2 + (m0 - m1)/8.
    let authored = at("authored", times);
    let expected_cubic = [[0.0, 0.0, 0.0], [0.3125, 1.125, 0.0], [1.0, 1.5, 0.0], [2.0, 0.0, 0.0]];
    assert!(close(&authored, &expected_cubic), "{authored:?}");
    // The default is authored.
    let value = sample(&model, "cubic", times, &[]);
    let default: Vec<Vec<f64>> =
        value["samples"].as_array().unwrap().iter().map(|s| floats(&s["nodes"][0]["translation"])).collect();
    assert_eq!(default, authored);
    // cubic on cubic data is the authored curve.
    assert!(close(&at("cubic", times), &expected_cubic));
    // linear uses the key values only: the midpoint is their average.
    let linear = at("linear", times);
    assert!(close(&linear, &[[0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]), "{linear:?}");
    // step holds the key at or before the time.
    let step = at("step", times);
    assert!(close(&step, &[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]), "{step:?}");
}

#[test]
fn interpolation_override_step_on_linear_data() {
    let (_dir, model) = model_file("step");
    let value = sample(&model, "walk", "1.5", &["--interpolation", "step"]);
    assert_close(&node_at(&value, 0, 1)["translation"], &[2.0, 0.0, 0.0]);
    assert_close(&node_at(&value, 0, 2)["weights"], &[0.0, 0.0]);
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn missing_model_file() {
    let dir = TempDir::new("missing");
    let path = dir.path().join("nowhere.gltf");
    let path = path.to_str().unwrap();
    failure(&["sample", path, "--clip", "0", "--times", "0", "--format", "json"], &["nowhere.gltf"]);
    failure(&["info", path, "--format", "json"], &["nowhere.gltf"]);
}

#[test]
fn unknown_clip() {
    let (_dir, model) = model_file("noclip");
    let model = model.to_str().unwrap();
    // The message names the clip asked for and lists those available.
    failure(
        &["sample", model, "--clip", "run", "--times", "0", "--format", "json"],
        &["\"run\"", "walk", "animation_1", "cubic"],
    );
    failure(&["sample", model, "--clip", "3", "--times", "0", "--format", "json"], &["\"3\"", "walk"]);
}

/// `render` checks its arguments before it initialises the GPU: a wrong clip or joint is the
/// only thing on stderr (no adapter search, no driver warnings), on machines with or without a
/// GPU alike.
#[test]
fn render_validates_arguments_before_the_gpu() {
    let dir = TempDir::new("render-args");
    let out = dir.path().join("never.png");
    let out = out.to_str().unwrap();
    for (flag, value) in [("--clip", "NoSuchClip"), ("--joint", "NoSuchJoint")] {
        let stderr = failure(&["render", flag, value, "--out", out], &[&format!("\"{value}\" not found")]);
        assert_eq!(stderr.trim().lines().count(), 1, "render {flag} {value}: more than the argument error: {stderr}");
    }
    assert!(!dir.path().join("never.png").exists());
}

#[test]
fn malformed_gltf() {
    let dir = TempDir::new("malformed");
    let path = dir.write("broken.gltf", b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [");
    let path = path.to_str().unwrap();
    failure(&["sample", path, "--clip", "0", "--times", "0", "--format", "json"], &["broken.gltf", "JSON"]);
    failure(&["info", path, "--format", "json"], &["broken.gltf", "JSON"]);
}

#[test]
fn invalid_gltf_names_the_object_at_fault() {
    let mut json: Value = serde_json::from_slice(&model_json()).unwrap();
    json["animations"][0]["samplers"][1]["output"] = json!(999);
    let dir = TempDir::new("invalid");
    let path = dir.write("invalid.gltf", &serde_json::to_vec(&json).unwrap());
    let path = path.to_str().unwrap();
    failure(
        &["sample", path, "--clip", "walk", "--times", "0", "--format", "json"],
        &["invalid.gltf", "animation 0 \"walk\", sampler 1", "output", "999"],
    );
}

#[test]
fn bad_times() {
    let (_dir, model) = model_file("times");
    let model = model.to_str().unwrap();
    for (times, mention) in [("1,abc", "abc"), ("0.5,,1", "--times"), ("1,nan", "nan"), ("inf", "inf")] {
        failure(&["sample", model, "--clip", "walk", "--times", times, "--format", "json"], &[mention]);
    }
}

#[test]
fn unknown_interpolation_override() {
    let (_dir, model) = model_file("badmode");
    let model = model.to_str().unwrap();
    failure(
        &["sample", model, "--clip", "walk", "--times", "0", "--interpolation", "smooth", "--format", "json"],
        &["smooth"],
    );
}

// ---------------------------------------------------------------------------------------------
// info
// ---------------------------------------------------------------------------------------------

#[test]
fn info_json_reports_the_model() {
    let (_dir, model) = model_file("info");
    let raw = success(&["info", model.to_str().unwrap(), "--format", "json"]);
    let info: Value = serde_json::from_str(&raw).unwrap_or_else(|e| panic!("not JSON ({e}): {raw}"));
    assert_eq!(info["node_count"], 5);
    assert_eq!(info["default_scene"], 0);
    assert_eq!(info["scenes"][0]["roots"], json!([0, 4]));

    let skins = info["skins"].as_array().unwrap();
    assert_eq!(skins.len(), 1);
    assert_eq!(skins[0]["name"], "rig");
    assert_eq!(skins[0]["joint_count"], 2);

    let meshes = info["meshes"].as_array().unwrap();
    assert_eq!(meshes.len(), 2);
    assert_eq!(meshes[0]["name"], "face_mesh");
    assert_eq!(meshes[0]["morph_target_count"], 2);
    assert_eq!(meshes[1]["name"], "body_mesh");
    assert_eq!(meshes[1]["morph_target_count"], 0);

    let animations = info["animations"].as_array().unwrap();
    assert_eq!(animations.len(), 3);
    let expected = [
        ("walk", 2.0, json!({"translation": 1, "rotation": 0, "scale": 0, "weights": 1}), json!(["LINEAR"])),
        ("animation_1", 1.5, json!({"translation": 0, "rotation": 1, "scale": 0, "weights": 0}), json!(["STEP"])),
        ("cubic", 1.0, json!({"translation": 1, "rotation": 0, "scale": 0, "weights": 0}), json!(["CUBICSPLINE"])),
    ];
    for (i, (a, (name, duration, channels, interpolations))) in animations.iter().zip(expected).enumerate() {
        assert_eq!(a["index"], i);
        assert_eq!(a["name"], name);
        assert!((a["duration_secs"].as_f64().unwrap() - duration).abs() < 1e-6, "{a}");
        assert_eq!(a["channels"], channels, "{a}");
        assert_eq!(a["interpolations"], interpolations, "{a}");
    }
    assert!((animations[1]["start_secs"].as_f64().unwrap() - 0.5).abs() < 1e-6);
}

#[test]
fn info_json_lists_every_interpolation_mode_of_a_clip() {
    // One clip mixing all three modes.
    let mut b = Doc::new();
    let s0 = b.sampler(&[0.0, 1.0], &[0.0; 6], "VEC3", "STEP");
    let s1 = b.sampler(&[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], "VEC4", "LINEAR");
    let s2 = b.sampler(&[0.0, 3.0], &[1.0; 18], "VEC3", "CUBICSPLINE");
    let gltf = finish(
        b,
        json!({
            "nodes": [{"name": "a"}, {"name": "b"}],
            "animations": [{
                "name": "mixed",
                "samplers": [s0, s1, s2],
                "channels": [
                    {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                    {"sampler": 1, "target": {"node": 0, "path": "rotation"}},
                    {"sampler": 2, "target": {"node": 1, "path": "scale"}}
                ]
            }]
        }),
    );
    let dir = TempDir::new("mixed");
    let path = dir.write("mixed.gltf", &gltf);
    let info: Value = serde_json::from_str(&success(&["info", path.to_str().unwrap(), "--format", "json"])).unwrap();
    let clip = &info["animations"][0];
    assert_eq!(clip["name"], "mixed");
    assert_eq!(clip["duration_secs"], 3.0);
    assert_eq!(clip["channels"], json!({"translation": 1, "rotation": 1, "scale": 1, "weights": 0}));
    assert_eq!(clip["interpolations"], json!(["STEP", "LINEAR", "CUBICSPLINE"]));
    assert_eq!(info["skins"], json!([]));
}

#[test]
fn info_text_mentions_every_clip() {
    let (_dir, model) = model_file("infotext");
    let text = success(&["info", model.to_str().unwrap()]);
    for name in ["walk", "animation_1", "cubic"] {
        assert!(text.contains(&format!("\"{name}\"")), "info should mention clip {name}: {text}");
    }
    assert!(text.contains("rig"), "{text}");
}

#[test]
fn without_a_model_the_built_in_character_is_used_from_any_directory() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(["info", "--format", "json"])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = info["animations"].as_array().unwrap().iter().map(|a| a["name"].as_str().unwrap()).collect();
    for clip in ["Idle", "Walk", "Run", "Wave", "Jump", "Stumble"] {
        assert!(names.contains(&clip), "{clip} missing from {names:?}");
    }
    assert!(info["skins"][0]["joint_count"].as_u64().unwrap() >= 20);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_animtune"))
        .args(["sample", "--clip", "Walk", "--times", "0,0.55", "--format", "json"])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(out.status.success());
    let sample: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(sample["clip"], "Walk");
    assert_eq!(sample["samples"].as_array().unwrap().len(), 2);
}

#[test]
fn bench_json_has_the_exact_shape() {
    let report: serde_json::Value = serde_json::from_str(&success(&["bench", "--format", "json"])).unwrap();
    let object = report.as_object().unwrap();
    assert_eq!(object.keys().collect::<Vec<_>>(), ["joints", "results"]);
    assert_eq!(report["joints"], 64);
    let names: Vec<&str> =
        report["results"].as_array().unwrap().iter().map(|r| r["operation"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "sample_linear_playback",
            "sample_cubic_playback",
            "sample_random",
            "blend",
            "local_to_model_skinning",
            "full_frame",
            "single_clip_frame",
            "layered_frame"
        ]
    );
    for result in report["results"].as_array().unwrap() {
        assert_eq!(result.as_object().unwrap().len(), 4, "{result}");
        let [min, median, max] =
            ["min_ns_per_joint", "median_ns_per_joint", "max_ns_per_joint"].map(|k| result[k].as_f64().unwrap());
        assert!(min > 0.0 && min <= median && median <= max, "{result}");
    }
}

/// W64 written as a file (`cargo xtask generate w64`) benches like the built-in workload: 64
/// joints, the eight operations.
#[test]
fn generated_w64_file_benches_like_the_built_in_workload() {
    let dir = TempDir::new("w64");
    let path = dir.write("w64.glb", &devtools::w64::build_w64_glb());
    let path_str = path.to_string_lossy().into_owned();
    let info = success(&["info", &path_str]);
    assert!(info.contains("W64 LINEAR") && info.contains("W64 CUBICSPLINE"), "{info}");
    let report: serde_json::Value =
        serde_json::from_str(&success(&["bench", &path_str, "--clip", "W64 LINEAR", "--format", "json"])).unwrap();
    assert_eq!(report["joints"], 64);
    assert_eq!(report["results"].as_array().unwrap().len(), 8);
    for result in report["results"].as_array().unwrap() {
        assert!(result["median_ns_per_joint"].as_f64().unwrap() > 0.0, "{result}");
    }
    // A valid glTF file: the Khronos validator (installed by the test command) finds nothing wrong.
    let Some(validation) = devtools::ci::validate_gltf(&path) else { return };
    assert_eq!(validation["errors"], 0, "{validation}");
    assert_eq!(validation["warnings"], 0, "{validation}");
}

#[test]
fn bench_crowd_reports_milliseconds_per_frame_for_w64_and_the_character() {
    let report: serde_json::Value =
        serde_json::from_str(&success(&["bench", "--crowd", "20", "--format", "json"])).unwrap();
    assert_eq!(report["crowd"], 20);
    assert!(report["threads"].as_u64().unwrap() >= 2);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["workload"], "W64");
    assert_eq!(results[0]["joints_per_instance"], 64);
    assert_eq!(results[1]["joints_per_instance"], 21, "the built-in character's skin");
    for result in results {
        let [min, median, max] =
            ["min_ms_per_frame", "median_ms_per_frame", "max_ms_per_frame"].map(|k| result[k].as_f64().unwrap());
        assert!(min > 0.0 && min <= median && median <= max, "{result}");
    }
    let error = animtune(&["bench", "--crowd", "0"]);
    assert!(!error.status.success());
    assert!(String::from_utf8_lossy(&error.stderr).contains("--crowd takes 1 to"));
}
