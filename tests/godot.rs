//! animtune's Godot 4 export opened by Godot 4 itself: `animtune graph --export-godot` writes the
//! `.tres`, `tools/godot-check/check.gd` loads it with Godot's `ResourceLoader` (and the character
//! with Godot's runtime `GLTFDocument`, the code its glTF importer runs), plays it in an
//! `AnimationTree` and prints what Godot read as JSON; `devtools::godot::assert_reads` holds that
//! to the machine animtune wrote. Godot is Debian's `godot` package unpacked into `.tools/godot/`
//! by `scripts/install-godot.sh`; without it the tests are skipped locally and fail under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use anim::state_machine::{StateMachine, import_godot};
use devtools::TempDir;
use devtools::ci::repo_root;
use devtools::godot::{FRAME_SECS, assert_reads, check, states, transition, tree_node};
use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

/// Export the built-in character's machine (`extra` adds e.g. a profile) to `dir/NAME.tres`;
/// the file's text.
fn export(dir: &TempDir, name: &str, extra: &[&str]) -> String {
    let tres = dir.path().join(format!("{name}.tres"));
    let out = Command::new(ANIMTUNE)
        .args(["graph", "--export-godot", tres.to_str().unwrap(), "--format", "json"])
        .args(extra)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .output()
        .unwrap();
    assert!(out.status.success(), "animtune graph failed: {}", String::from_utf8_lossy(&out.stderr));
    std::fs::read_to_string(tres).unwrap()
}

/// Godot's check of `dir/NAME.tres` with the character loaded, and `args`; `None` when skipped.
fn godot(dir: &TempDir, name: &str, args: &[&str]) -> Option<Value> {
    let glb = repo_root().join("assets/mannequin.glb");
    let args = [&["--glb", glb.to_str().unwrap()][..], args].concat();
    check(&dir.path().join(format!("{name}.tres")), &args, &dir.path().join("godot-home"))
}

/// The character's clip names by glTF index, as `animtune graph` passes them to the exporter.
fn clip_names() -> Vec<String> {
    let model = devtools::load(&repo_root().join("assets/mannequin.glb"));
    model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect()
}

/// The machine in `text`, read back by animtune's importer (the machine the export wrote: the
/// round trip is exact, `crates/anim/tests/state_machine.rs`), and the clip names.
fn machine(text: &str) -> (StateMachine, Vec<String>) {
    let names = clip_names();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    (import_godot(text, &refs).unwrap(), names)
}

#[test]
fn godot_reads_the_built_in_characters_machine_and_plays_it_on_the_character() {
    let dir = TempDir::new("godot-built-in");
    let text = export(&dir, "mannequin", &[]);
    let Some(report) = godot(&dir, "mannequin", &["--travel", "Idle,Walk"]) else { return };
    let (machine, clips) = machine(&text);
    let refs: Vec<&str> = clips.iter().map(String::as_str).collect();
    assert_reads(&report, &machine, &refs);
    assert_eq!(machine.states().len(), 8);
    assert_eq!(report["transitions"].as_array().unwrap().len(), 1 + 8 * 7, "Start and 8 any-state edges from 7 states");
    // Godot's glTF code names the file's animations as the export does.
    let mut animations: Vec<&str> =
        report["glb"]["animations"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    animations.sort_unstable();
    let mut want = refs.clone();
    want.sort_unstable();
    assert_eq!(animations, want);
    assert_eq!(report["glb"]["missing"], serde_json::json!([]));
    // Travel Idle -> Walk: Godot fades over the exported 0.3 s (to the frame).
    let travel = &report["glb"]["travel"];
    assert_eq!((travel["start"].as_str(), travel["after_one_step"].as_str()), (Some("Idle"), Some("Walk")), "{travel}");
    assert_eq!(travel["fading_from"], "Idle");
    let fade = travel["fade_secs"].as_f64().unwrap();
    assert!((fade - 0.3).abs() <= FRAME_SECS + 1e-9, "Godot faded for {fade} s");
    assert_eq!(travel["after_fade"], "Walk");
}

#[test]
fn godot_plays_a_blend_space_conditions_expressions_and_an_at_end_transition() {
    let dir = TempDir::new("godot-locomotion");
    let profile = repo_root().join("docs/examples/locomotion.json");
    let text = export(&dir, "locomotion", &["--profile", profile.to_str().unwrap()]);
    let autos = [
        "Idle,Locomotion,speed=1.0",
        "Idle,Locomotion,speed=0.2",
        "Locomotion,Idle,speed=0.0",
        "Locomotion,Waving,wave=true",
        "Waving,Locomotion,wave=false",
    ];
    let mut args = vec!["--travel", "Idle,Locomotion", "--condition", "jump", "--layered", "Waving"];
    for auto in &autos {
        args.extend(["--auto", auto]);
    }
    let Some(report) = godot(&dir, "locomotion", &args) else { return };
    let (machine, clips) = machine(&text);
    let refs: Vec<&str> = clips.iter().map(String::as_str).collect();
    assert_reads(&report, &machine, &refs);
    // What this machine holds, so the checks above cover each kind.
    let class = |name: &str| states(&report).iter().find(|s| s["name"] == name).map(|s| s["class"].to_string());
    assert_eq!(class("Locomotion").as_deref(), Some("\"AnimationNodeBlendSpace1D\""));
    assert_eq!(transition(&report, "Idle", "Locomotion")["advance_expression"], "speed > 0.5");
    assert_eq!(transition(&report, "Locomotion", "Waving")["advance_condition"], "wave");
    assert_eq!(transition(&report, "Waving", "Jump")["advance_condition"], "jump");
    assert_eq!(transition(&report, "Jump", "Idle")["switch_mode"], 2);
    assert_eq!(report["glb"]["missing"], serde_json::json!([]));
    // Godot evaluates the conditions as animtune means them: speed 1 leaves Idle, 0.2 does not
    // (`speed > 0.5`), 0 leaves Locomotion (`speed < 0.5`), `wave` true enters Waving and false
    // (`not wave`) leaves it.
    let ran: Vec<(&str, &str)> = report["glb"]["auto"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["from"].as_str().unwrap(), a["current"].as_str().unwrap()))
        .collect();
    let want = [
        ("Idle", "Locomotion"),
        ("Idle", "Idle"),
        ("Locomotion", "Idle"),
        ("Locomotion", "Waving"),
        ("Waving", "Locomotion"),
    ];
    assert_eq!(ran, want, "{}", report["glb"]["auto"]);
    // Played: Idle -> Locomotion over its 0.3 s fade, the `jump` condition to Jump, and Jump's
    // at-end edge back to Idle — which Godot takes `xfade_time` (0.3 s) before Jump's clip ends.
    let travel = &report["glb"]["travel"];
    assert_eq!(travel["after_fade"], "Locomotion", "{travel}");
    let fade = travel["fade_secs"].as_f64().unwrap();
    assert!((fade - 0.3).abs() <= FRAME_SECS + 1e-9, "Godot faded for {fade} s");
    assert_eq!((travel["after_condition"].as_str(), travel["after_that_state"].as_str()), (Some("Jump"), Some("Idle")));
    let jump_secs = report["glb"]["lengths_secs"]["Jump"].as_f64().unwrap();
    let xfade = transition(&report, "Jump", "Idle")["xfade_time"].as_f64().unwrap();
    let in_jump = travel["that_state_secs"].as_f64().unwrap();
    assert!((in_jump - (jump_secs - xfade)).abs() <= 2.0 * FRAME_SECS, "Jump left after {in_jump} s of {jump_secs} s");
}

#[test]
fn godot_plays_a_layered_state_as_a_blend_tree_filtered_to_the_layers_bones() {
    let dir = TempDir::new("godot-layered");
    let profile = repo_root().join("docs/examples/locomotion.json");
    let text = export(&dir, "layered", &["--profile", profile.to_str().unwrap()]);
    let Some(report) = godot(&dir, "layered", &["--layered", "Waving"]) else { return };
    let (machine, clips) = machine(&text);
    let refs: Vec<&str> = clips.iter().map(String::as_str).collect();
    // Node classes, clips, connections, blend_amount, and every filter path a bone of Godot's skeleton.
    assert_reads(&report, &machine, &refs);
    let waving = states(&report).into_iter().find(|s| s["name"] == "Waving").unwrap();
    let mix = tree_node(waving, "mix1");
    assert_eq!((mix["class"].as_str(), mix["blend_amount"].as_f64()), (Some("AnimationNodeBlend2"), Some(1.0)));
    let filters: Vec<&str> = mix["filters"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    // Wave over Walk on the upper body: the arms, spine and head, not the legs or hips.
    for bone in
        ["Skeleton3D:Spine", "Skeleton3D:Chest", "Skeleton3D:UpperArm.L", "Skeleton3D:Hand.R", "Skeleton3D:Head"]
    {
        assert!(filters.contains(&bone), "{bone} not in {filters:?}");
    }
    for bone in ["Skeleton3D:Hips", "Skeleton3D:UpperLeg.L", "Skeleton3D:Foot.R"] {
        assert!(!filters.contains(&bone), "{bone} in {filters:?}");
    }
    // Played 20 frames in an AnimationTree: a covered bone has the layer's (Wave's) rotation, a
    // masked-out one the base's (Walk's), each differing from the other clip.
    // The weight a game sets, where the docs say: the tree's parameter of the state's mix node.
    let parameters = &report["glb"]["layered"]["Waving"]["machine_parameters"];
    assert_eq!(parameters, &serde_json::json!({"parameters/Waving/mix1/blend_amount": true}));
    let bones = &report["glb"]["layered"]["Waving"]["bones"];
    let angles = |bone: &str| (bones[bone]["to_base"].as_f64().unwrap(), bones[bone]["to_layer"].as_f64().unwrap());
    // (Godot's own blending leaves up to 0.7 mrad on a bone one clip alone sets; the clips differ
    // by 0.03 to 0.8 rad on these bones.)
    for bone in ["UpperArm.R", "LowerArm.R", "Chest"] {
        let (to_base, to_layer) = angles(bone);
        assert!(to_layer < 2e-3 && to_base > 0.02, "{bone}: {to_base} rad from Walk, {to_layer} rad from Wave");
    }
    for bone in ["UpperLeg.R", "LowerLeg.R", "Foot.L"] {
        let (to_base, to_layer) = angles(bone);
        assert!(to_base < 2e-3 && to_layer > 0.02, "{bone}: {to_base} rad from Walk, {to_layer} rad from Wave");
    }
}

#[test]
fn godot_filters_name_the_bones_of_a_skeleton_under_an_armature_with_mixamo_names() {
    // The character as Blender writes a Mixamo rig: its skeleton under an `Armature` node, joints
    // named `mixamorig:…` (Godot makes the `:` of a bone name `_`).
    let dir = TempDir::new("godot-mixamo");
    let bytes = std::fs::read(repo_root().join("assets/mannequin.glb")).unwrap();
    let rig = devtools::rigs::make_from(&bytes, &["Foot.L", "Foot.R"], true, devtools::rigs::RigVariant::Mixamo);
    let glb = dir.write("mixamo.glb", &rig.unwrap());
    let profile = repo_root().join("docs/examples/locomotion.json");
    let text = export(&dir, "mixamo", &[glb.to_str().unwrap(), "--profile", profile.to_str().unwrap()]);
    let args = ["--glb", glb.to_str().unwrap(), "--layered", "Waving"];
    let Some(report) = check(&dir.path().join("mixamo.tres"), &args, &dir.path().join("godot-home")) else { return };
    let model = devtools::load(&glb);
    let names: Vec<String> = model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let machine = import_godot(&text, &refs).unwrap();
    // Every filter path a bone of Godot's skeleton (in assert_reads), here under the armature.
    assert_reads(&report, &machine, &refs);
    let waving = states(&report).into_iter().find(|s| s["name"] == "Waving").unwrap();
    let filters: Vec<&str> =
        tree_node(waving, "mix1")["filters"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(filters.contains(&"Armature/Skeleton3D:mixamorig_UpperArm.L"), "{filters:?}");
    assert_eq!(filters.len(), 12, "{filters:?}");
    let bones = &report["glb"]["layered"]["Waving"]["bones"];
    assert!(bones["mixamorig_UpperArm.R"]["to_layer"].as_f64().unwrap() < 2e-3, "{bones}");
    assert!(bones["mixamorig_LowerLeg.R"]["to_base"].as_f64().unwrap() < 2e-3, "{bones}");
}
