//! `animtune graph` on the built-in character, through the real binary: the state machine built
//! from the transition table played by `--play`, each transition's figures the ones
//! `animtune transition` prints for the same pair and trigger, the Godot export read back by the
//! core's importer, the Bevy export and its sidecar, and errors that name the bad entry.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

use devtools::TempDir;
use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

/// Run `animtune ARGS` with an empty profiles folder (no profile of the developer's leaks in).
fn animtune(args: &[&str], config: &TempDir) -> Output {
    Command::new(ANIMTUNE).args(args).env("XDG_CONFIG_HOME", config.path()).output().unwrap()
}

#[track_caller]
fn json(args: &[&str], config: &TempDir) -> Value {
    let out = animtune(args, config);
    assert!(out.status.success(), "animtune {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn play_takes_each_requested_transition_at_its_time_with_the_transition_commands_figures() {
    let config = TempDir::new("graph-play");
    let report = json(&["graph", "--play", "Idle,Walk@0.5,Run@2,Idle@3.5", "--format", "json"], &config);
    let taken = report["transitions"].as_array().unwrap();
    let pairs: Vec<(&str, &str)> =
        taken.iter().map(|t| (t["from"].as_str().unwrap(), t["to"].as_str().unwrap())).collect();
    assert_eq!(pairs, [("Idle", "Walk"), ("Walk", "Run"), ("Run", "Idle")], "exactly three transitions");
    for (t, at) in taken.iter().zip([0.5, 2.0, 3.5]) {
        let at_secs = t["at_secs"].as_f64().unwrap();
        assert!((at_secs - at).abs() < 1.0 / 60.0, "{} -> {} at {at_secs} s, asked at {at} s", t["from"], t["to"]);
        assert_eq!(t["requested"], true);
        let run = &t["figures"]["runs"][0];
        for field in ["velocity_jump_mps", "max_joint_accel_mps2", "foot_slide_m"] {
            let v = run[field].as_f64().unwrap_or(f64::NAN);
            assert!(v.is_finite() && v >= 0.0, "{} -> {}: {field} = {v}", t["from"], t["to"]);
        }
        assert!((t["figures"]["duration_secs"].as_f64().unwrap() - 0.3).abs() < 1e-6, "the default fade");
    }
    // Walk played from 0.5 s to 2 s: 1.5 s of a 1.1 s loop, so Walk -> Run triggers at 0.4 s
    // of Walk; `animtune transition` measures the same pair at that time to the same figures.
    let walk_run = &taken[1]["figures"];
    assert!((walk_run["runs"][0]["at_secs"].as_f64().unwrap() - 0.4).abs() < 1e-3, "{}", walk_run["runs"][0]);
    let pair = json(&["transition", "--from", "Walk", "--to", "Run", "--at", "0.4", "--format", "json"], &config);
    for field in ["velocity_jump_mps", "max_joint_accel_mps2", "foot_slide_m"] {
        let (graph, transition) =
            (walk_run["runs"][0][field].as_f64().unwrap(), pair["runs"][0][field].as_f64().unwrap());
        assert!(
            (graph - transition).abs() <= 1e-4 * transition.abs().max(1.0),
            "{field}: graph {graph}, transition {transition}"
        );
    }
    // 4.5 s played (1 s after the last entry): Idle 0.5 + 1, Walk 1.5, Run 1.5.
    assert!((report["played_secs"].as_f64().unwrap() - 4.5).abs() < 1e-4);
    let times: Vec<(String, f64)> = report["state_times"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["state"].as_str().unwrap().to_owned(), s["secs"].as_f64().unwrap()))
        .collect();
    for ((state, secs), (want_state, want)) in times.iter().zip([("Idle", 1.5), ("Walk", 1.5), ("Run", 1.5)]) {
        assert_eq!(state, want_state);
        assert!((secs - want).abs() < 0.02, "{state}: {secs} s");
    }
    // The feet touch down while walking and running; never while standing in Idle.
    let events = report["events"].as_array().unwrap();
    assert!(events.len() >= 4, "{events:?}");
    assert!(events.iter().all(|e| e["state"] != "Idle" && e["event"].as_str().unwrap().ends_with("_down")));
}

#[test]
fn the_godot_export_reads_back_and_the_bevy_export_writes_its_sidecar() {
    let config = TempDir::new("graph-export");
    let out = TempDir::new("graph-export-out");
    let tres = out.path().join("mannequin.tres");
    let ron = out.path().join("mannequin.animgraph.ron");
    let report = json(
        &[
            "graph",
            "--export-godot",
            tres.to_str().unwrap(),
            "--export-bevy",
            ron.to_str().unwrap(),
            "--format",
            "json",
        ],
        &config,
    );
    let states = report["states"].as_array().unwrap().len();
    let transitions = report["machine_transitions"].as_u64().unwrap() as usize;
    assert_eq!(states, 8);
    assert_eq!(transitions, 8, "one any-state edge into each clip (no tuned pair)");
    let text = std::fs::read_to_string(&tres).unwrap();
    assert!(text.starts_with("[gd_resource type=\"AnimationNodeStateMachine\""));
    let names: Vec<String> =
        report["states"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let machine = anim::state_machine::import_godot(&text, &names).unwrap();
    assert_eq!(machine.states().len(), states);
    assert_eq!(machine.transitions().len(), transitions);
    let graph = std::fs::read_to_string(&ron).unwrap();
    assert!(graph.contains("mannequin.glb#Animation1"), "Walk's clip node");
    let sidecar = std::fs::read_to_string(out.path().join("mannequin.transitions.ron")).unwrap();
    assert!(sidecar.contains("to: \"Run\""), "{sidecar}");
}

/// Bevy's `AnimationTargetId` of nodes of `assets/mannequin.glb`: Bevy 0.18.1's own
/// `AnimationTargetId::from_names` of each node's name path from the scene's root, as printed by
/// `tools/bevy-check --glb assets/mannequin.glb` on 7 December 2026 (docs/state-machine.md).
const BEVY_IDS: [(&str, &str); 10] = [
    ("Hips", "81325d78-8f92-57d5-9ac5-1acf037005f3"),
    ("UpperLeg.L", "3ef2fc63-9f38-5bb7-a582-622576678687"),
    ("LowerLeg.L", "e2fdedbf-88f5-5f90-9067-15466638a7ba"),
    ("Foot.R", "0442b1d7-40a3-5984-bf73-d3088d5e973d"),
    ("Mannequin", "6bd8af9d-75ed-5edc-9e44-eabc6c40bbdb"),
    ("Spine", "a2ab7dea-fa51-5f8f-8154-05b5de2559f0"),
    ("Chest", "ef82f597-ad6f-5926-9ac2-73f53fcc7ee3"),
    ("Head", "5f40a39d-9707-5509-a25e-0c6f4bbdc8fc"),
    ("UpperArm.L", "7ed70d34-9716-5503-b2fa-a6ff21de906c"),
    ("Hand.R", "9f434f4b-f043-57a8-9821-dfed357381bc"),
];

#[test]
fn the_bevy_export_masks_a_layer_out_of_the_joints_it_does_not_cover() {
    // docs/examples/locomotion.json: the Waving state is Wave over Walk on `upper-body`; node 7
    // is Wave's clip node (root, Idle, the blend space and its 2 clips, the layered blend, Walk).
    let config = TempDir::new("graph-bevy-mask");
    let out = TempDir::new("graph-bevy-mask-out");
    let ron = out.path().join("loco.animgraph.ron");
    let profile = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/examples/locomotion.json");
    json(&["graph", "--profile", profile, "--export-bevy", ron.to_str().unwrap(), "--format", "json"], &config);
    let graph = std::fs::read_to_string(&ron).unwrap();
    let masks: Vec<u64> =
        graph.lines().filter_map(|l| l.trim().strip_prefix("mask: ")?.strip_suffix(',')?.parse().ok()).collect();
    assert_eq!(masks, [0, 0, 0, 0, 0, 0, 0, 1, 0], "only Wave's node masks group 0:\n{graph}");
    let groups: Vec<(&str, u64)> = graph
        .lines()
        .filter_map(|l| {
            let (id, bits) = l.trim().strip_prefix("AnimationTargetId(\"")?.split_once("\"): ")?;
            Some((id, bits.strip_suffix(',')?.parse().ok()?))
        })
        .collect();
    // Hips, both legs down to the toes (10 nodes with the mesh node) are in group 0.
    assert_eq!(groups.len(), 10, "{graph}");
    for (joint, id) in &BEVY_IDS[..5] {
        assert!(groups.contains(&(*id, 1)), "{joint} ({id}) is left out by Wave:\n{graph}");
    }
    for (joint, id) in &BEVY_IDS[5..] {
        assert!(!groups.iter().any(|(g, _)| g == id), "{joint} ({id}) is Wave's:\n{graph}");
    }
    assert!(graph.contains("// Node 7: mask group 0, the 10 targets its layer leaves out."), "{graph}");
}

#[test]
fn bad_play_entries_and_unwritable_files_fail_naming_them() {
    let config = TempDir::new("graph-errors");
    let cases: [(&[&str], &str); 5] = [
        (&["--play", "Idle,Wlk@0.5"], "entry 2 \"Wlk@0.5\": no state \"Wlk\""),
        (&["--play", "Idle,Walk@soon"], "entry 2 \"Walk@soon\""),
        (&["--play", "Idle,Walk@2,Run@1"], "entry 3 \"Run@1\""),
        (&["--play", "Idle,,Run@1"], "entry 2"),
        (&["--export-godot", "/nonexistent-folder/m.tres"], "/nonexistent-folder/m.tres"),
    ];
    for (args, mention) in cases {
        let out = animtune(&[&["graph"], args].concat(), &config);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(mention), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn the_docs_engine_table_is_the_cores_engine_limitations() {
    use anim::state_machine::{Engine, engine_limitations};
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/state-machine.md")).unwrap();
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| Godot 4 |") || l.starts_with("| Bevy |")).collect();
    let mut expected = Vec::new();
    for (engine, name) in [(Engine::Godot, "Godot 4"), (Engine::Bevy, "Bevy")] {
        for (feature, written) in engine_limitations(engine) {
            expected.push(format!("| {name} | {feature} | {written} |"));
        }
    }
    assert_eq!(rows, expected, "docs/state-machine.md's table, as engine_limitations gives it");
}

#[test]
fn a_profiles_tuned_pairs_are_the_machines_own_edges() {
    let config = TempDir::new("graph-profile");
    let profile = serde_json::json!({
        "format": 2,
        "model": "built-in",
        "interpolation": {"mode": "authored", "rotation_space": "slerp", "scale_space": "linear", "easing": "linear"},
        "transitions": [
            {"from": "Walk", "to": "Run", "duration_secs": 0.4, "easing": "smoothstep", "kind": "inertialize"},
            {"from": "Idle", "to": "Walk", "duration_secs": 0.5, "easing": "linear"}
        ]
    });
    let path = config.write("profile.json", serde_json::to_string(&profile).unwrap().as_bytes());
    let report = json(
        &["graph", "--profile", path.to_str().unwrap(), "--play", "Idle,Walk@0.5,Run@2,Idle@3.5", "--format", "json"],
        &config,
    );
    assert_eq!(report["machine_transitions"], 2 + 8, "two tuned pairs and one any-state edge per clip");
    let taken = report["transitions"].as_array().unwrap();
    let seen: Vec<(&str, &str, f64)> = taken
        .iter()
        .map(|t| {
            let figures = &t["figures"];
            (t["edge"].as_str().unwrap(), figures["kind"].as_str().unwrap(), figures["duration_secs"].as_f64().unwrap())
        })
        .collect();
    let expected =
        [("Idle -> Walk", "crossfade", 0.5), ("Walk -> Run", "inertialize", 0.4), ("* -> Idle", "crossfade", 0.3)];
    for ((edge, kind, secs), (want_edge, want_kind, want_secs)) in seen.iter().zip(expected) {
        assert_eq!((*edge, *kind), (want_edge, want_kind));
        assert!((secs - want_secs).abs() < 1e-6, "{edge}: {secs} s");
    }
    assert_eq!(seen.len(), 3);
}
