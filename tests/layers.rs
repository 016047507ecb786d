//! Layers and blend spaces on the command line: `sample --layer` on the built-in character
//! (a masked Wave at weight 1 is the Wave on the masked joints and the Walk elsewhere; an
//! additive layer at its reference time changes nothing), bad specs refused with clear
//! errors, and `blend-space` sweeps between Walk and Run (and the `RobotExpressive` Walking and
//! Running) whose foot slide stays within 10 % of the clips' own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::process::Command;

use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

/// Run `animtune ARGS` and parse its JSON.
#[track_caller]
fn json(args: &[&str]) -> Value {
    let out = Command::new(ANIMTUNE).args(args).args(["--format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "animtune {args:?} failed: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Run `animtune ARGS`, expect it to fail, return its error.
#[track_caller]
fn failure(args: &[&str]) -> String {
    let out = Command::new(ANIMTUNE).args(args).output().unwrap();
    assert!(!out.status.success(), "animtune {args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Node → (translation, rotation, scale) of the first sample.
fn nodes(report: &Value) -> HashMap<u64, Vec<f64>> {
    report["samples"][0]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let mut v = Vec::new();
            for key in ["translation", "rotation", "scale"] {
                v.extend(n[key].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()));
            }
            (n["node"].as_u64().unwrap(), v)
        })
        .collect()
}

/// Node indices by name, and each node's parent, of the built-in character.
fn skeleton() -> (HashMap<String, u64>, HashMap<u64, u64>) {
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let mut names = HashMap::new();
    let mut parents = HashMap::new();
    for (i, node) in model.nodes().iter().enumerate() {
        if let Some(name) = &node.name {
            names.insert(name.clone(), i as u64);
        }
        if let Some(p) = model.hierarchy.parent(anim::NodeId::from_index(i)) {
            parents.insert(i as u64, p.index() as u64);
        }
    }
    (names, parents)
}

fn is_below(node: u64, root: u64, parents: &HashMap<u64, u64>) -> bool {
    let mut at = Some(node);
    while let Some(n) = at {
        if n == root {
            return true;
        }
        at = parents.get(&n).copied();
    }
    false
}

#[test]
fn a_masked_layer_at_weight_one_is_the_layer_clip_on_the_mask_and_the_base_elsewhere() {
    let (names, parents) = skeleton();
    let chest = ["Chest", "Spine", "Spine1", "UpperChest"].iter().find_map(|n| names.get(*n).map(|&i| (*n, i)));
    let (joint, root) = chest.expect("the built-in character has a chest or spine joint");
    for time in ["0.3", "0.71"] {
        let base = nodes(&json(&["sample", "--clip", "Walk", "--times", time]));
        let wave = nodes(&json(&["sample", "--clip", "Wave", "--times", time]));
        let spec = format!("Wave:mask={joint}");
        let layered = nodes(&json(&["sample", "--clip", "Walk", "--times", time, "--layer", &spec]));
        let (mut masked, mut unmasked, mut differs) = (0, 0, 0);
        for (node, got) in &layered {
            let expected = if is_below(*node, root, &parents) {
                masked += 1;
                wave.get(node).or_else(|| base.get(node)).unwrap()
            } else {
                unmasked += 1;
                base.get(node).or_else(|| wave.get(node)).unwrap()
            };
            assert_eq!(got, expected, "node {node} at {time} s");
            differs += usize::from(is_below(*node, root, &parents) && wave.get(node) != base.get(node));
        }
        assert!(masked >= 5 && unmasked >= 5, "{masked} masked, {unmasked} not");
        assert!(differs >= 3, "the Wave and the Walk differ on only {differs} masked joints");
    }
}

#[test]
fn an_additive_layer_at_its_reference_time_changes_nothing() {
    for (layer, time) in [("Wave:additive", "0"), ("Wave:additive=0.4", "0.4"), ("Run:additive=Run", "0")] {
        let base = nodes(&json(&["sample", "--clip", "Walk", "--times", time]));
        let layered = nodes(&json(&["sample", "--clip", "Walk", "--times", time, "--layer", layer]));
        let mut worst = 0.0f64;
        for (node, got) in &layered {
            let Some(expected) = base.get(node) else { continue };
            for (a, b) in got.iter().zip(expected) {
                worst = worst.max((a - b).abs());
            }
        }
        assert!(worst <= 1e-6, "{layer} at {time} s moved the Walk by {worst:e}");
        // Elsewhere it does move it.
        let later = nodes(&json(&["sample", "--clip", "Walk", "--times", "0.9", "--layer", layer]));
        let plain = nodes(&json(&["sample", "--clip", "Walk", "--times", "0.9"]));
        assert!(later != plain, "{layer} adds nothing at 0.9 s");
    }
}

#[test]
fn bad_layer_specs_say_what_is_wrong() {
    let sample = |layer: &str| failure(&["sample", "--clip", "Walk", "--times", "0.1", "--layer", layer]);
    assert!(sample("Dance").contains("clip \"Dance\" not found"), "{}", sample("Dance"));
    assert!(sample("Wave:mask=Tentacle").contains("joint \"Tentacle\" not found"));
    assert!(sample("Wave:weight=1.5").contains("weight \"1.5\" is not a number from 0 to 1"));
    assert!(sample("Wave:weight=lots").contains("is not a number"));
    assert!(sample("Wave:additive=Nope").contains("clip \"Nope\" not found"));
    assert!(sample("Wave:loud").contains("unknown option"));
    let space = failure(&["blend-space", "--clip", "Walk=0", "--clip", "Run=0"]);
    assert!(space.contains("same position"), "{space}");
    let space = failure(&["blend-space", "--clip", "Walk=0", "--clip", "Run=1,1"]);
    assert!(space.contains("every clip"), "{space}");
    let space = failure(&["blend-space", "--clip", "Walk=0", "--clip", "Sprint=1"]);
    assert!(space.contains("clip \"Sprint\" not found"), "{space}");
}

/// The foot-slide goal over a sweep: within 10 % of the worse clip's own everywhere, and at
/// most 21 mm wherever the clips' own is. Returns the rows' slides.
#[track_caller]
fn assert_sweep_keeps_the_feet(report: &Value) -> Vec<f64> {
    let rows = report["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 21);
    let own: Vec<f64> = [0, 20].iter().map(|&i| rows[i]["foot_slide_m"].as_f64().unwrap()).collect();
    let worse = own[0].max(own[1]);
    let mut slides = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let weights: f64 = row["weights"].as_array().unwrap().iter().map(|w| w["weight"].as_f64().unwrap()).sum();
        assert!((weights - 1.0).abs() < 1e-6, "row {i}: weights sum to {weights}");
        assert!(row["finite"].as_bool().unwrap());
        let slide = row["foot_slide_m"].as_f64().unwrap();
        assert!(slide <= 1.1 * worse + 1e-9, "row {i}: foot slide {slide} m > 1.1 × the clips' own {worse} m");
        if worse <= 0.021 {
            assert!(slide <= 0.021, "row {i}: foot slide {slide} m > 21 mm");
        }
        slides.push(slide);
    }
    slides
}

#[test]
fn a_walk_run_blend_space_keeps_the_feet_as_planted_as_its_clips() {
    let report = json(&["blend-space", "--clip", "Walk=0", "--clip", "Run=1", "--sweep", "21"]);
    assert_eq!(report["sync"], "phase");
    assert_eq!(report["synced_by_markers"], true);
    let rows = report["rows"].as_array().unwrap();
    // The ends are the clips at their own rate; the middle plays both at the mean cycle.
    assert_eq!(rows[0]["weights"][0]["weight"], 1.0);
    assert_eq!(rows[0]["playback_rate"], 1.0);
    assert_eq!(rows[20]["weights"][1]["weight"], 1.0);
    let (walk, run) = (rows[0]["cycle_secs"].as_f64().unwrap(), rows[20]["cycle_secs"].as_f64().unwrap());
    let middle = rows[10]["cycle_secs"].as_f64().unwrap();
    assert!((middle - 0.5 * (walk + run)).abs() < 1e-4, "{walk} {run} {middle}");
    let synced = assert_sweep_keeps_the_feet(&report);
    // Without sync the clips drift out of step and the feet slide more in the middle.
    let unsynced = json(&["blend-space", "--clip", "Walk=0", "--clip", "Run=1", "--sweep", "21", "--sync", "none"]);
    let rows = unsynced["rows"].as_array().unwrap();
    let worst_unsynced = rows.iter().map(|r| r["foot_slide_m"].as_f64().unwrap()).fold(0.0, f64::max);
    let worst_synced = synced.iter().copied().fold(0.0, f64::max);
    assert!(worst_unsynced > worst_synced, "unsynced {worst_unsynced} m vs synced {worst_synced} m");
    // One parameter: the JSON fields of the issue.
    let one = json(&["blend-space", "--clip", "Walk=0", "--clip", "Run=1", "--at", "0.25", "--seconds", "2"]);
    let row = &one["rows"][0];
    for field in ["weights", "playback_rate", "cycle_secs", "foot_slide_m", "max_joint_accel_mps2", "finite"] {
        assert!(!row[field].is_null(), "{field} missing");
    }
    assert_eq!(row["weights"][0]["clip"], "Walk");
    assert!((row["weights"][0]["weight"].as_f64().unwrap() - 0.75).abs() < 1e-6);
}

#[test]
fn a_walk_run_blend_space_on_a_rig_we_did_not_make_keeps_the_feet() {
    let Some(robot) = devtools::ci::shared_model_path("RobotExpressive/RobotExpressive.glb") else { return };
    let robot = robot.to_str().unwrap();
    let report = json(&["blend-space", robot, "--clip", "Walking=0", "--clip", "Running=1", "--sweep", "21"]);
    assert_sweep_keeps_the_feet(&report);
}

/// Pixels clearly red (the heat's colour) in a PNG.
fn red_pixels(path: &std::path::Path) -> usize {
    let image = image::open(path).unwrap().to_rgba8();
    image.pixels().filter(|p| i32::from(p[0]) > i32::from(p[1]) + 80 && i32::from(p[0]) > i32::from(p[2]) + 80).count()
}

#[test]
fn render_draws_the_layer_and_its_mask_heat() {
    let dir = devtools::TempDir::new("layers-render");
    let render = |name: &str, extra: &[&str]| -> Option<std::path::PathBuf> {
        let out = dir.path().join(name);
        let args = ["render", "--clip", "Walk", "--time", "0.4", "--size", "320x180", "--out", out.to_str().unwrap()];
        let run = Command::new(ANIMTUNE).args(args).args(extra).output().unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        if stderr.contains("no GPU adapter") {
            devtools::ci::skip("no GPU adapter");
            return None;
        }
        assert!(run.status.success(), "render {extra:?} failed: {stderr}");
        Some(out)
    };
    let Some(plain) = render("plain.png", &[]) else { return };
    let layered = render("layered.png", &["--layer", "Wave:mask=Chest"]).unwrap();
    let heat = render("heat.png", &["--layer", "Wave:mask=Chest", "--mask-heat"]).unwrap();
    let pixels = |p: &std::path::Path| image::open(p).unwrap().to_rgba8().into_raw();
    let changed = pixels(&plain).iter().zip(pixels(&layered)).filter(|(a, b)| **a != *b).count();
    assert!(changed > 500, "the Wave layer changed only {changed} bytes of the image");
    let (without, with) = (red_pixels(&layered), red_pixels(&heat));
    assert!(with > without + 500, "mask heat painted {with} red pixels against {without} without");
    assert!(failure(&["render", "--layer", "Wave:mask=Nowhere"]).contains("joint \"Nowhere\" not found"));
}
