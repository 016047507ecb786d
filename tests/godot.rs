//! animtune's Godot 4 export opened by Godot 4 itself: `animtune graph --export-godot` writes the
//! `.tres`, `tools/godot-check/check.gd` loads it with Godot's `ResourceLoader` (and the character
//! with Godot's runtime `GLTFDocument`, the code its glTF importer runs), plays it in an
//! `AnimationTree` and prints what Godot read as JSON; the test holds that to the machine animtune
//! wrote. Godot is Debian's `godot` package unpacked into `.tools/godot/` by
//! `scripts/install-godot.sh`; without it the test is skipped locally and fails under `CI=true`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use anim::state_machine::{Condition, StateMachine, StateMotion, StateTransition, TransitionFrom, import_godot};
use devtools::TempDir;
use devtools::ci::{repo_root, skip};
use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");
/// One frame of the check's `AnimationTree` (it advances at 60 Hz).
const FRAME_SECS: f64 = 1.0 / 60.0;

/// The Godot launcher in `.tools/`, or `None` after skipping.
fn godot() -> Option<PathBuf> {
    let launcher = repo_root().join(".tools/godot/godot");
    if launcher.exists() {
        return Some(launcher);
    }
    skip("Godot 4 is not installed in .tools/godot/ (scripts/install-test-deps.sh installs it)");
    None
}

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

/// Run `check.gd` on `dir/NAME.tres` with `args` after it; Godot's JSON. Fails on any error Godot
/// logged (parse errors included) and on a run longer than two minutes.
fn check(godot: &Path, dir: &TempDir, name: &str, args: &[&str]) -> Value {
    let tres = dir.path().join(format!("{name}.tres"));
    let home = dir.path().join("godot-home");
    let out = Command::new("timeout")
        .arg("120")
        .arg(godot)
        .args(["--headless", "--script", "tools/godot-check/check.gd", "--", tres.to_str().unwrap()])
        .args(args)
        .current_dir(repo_root())
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "Godot's check failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(!stderr.contains("ERROR"), "Godot logged an error:\n{stderr}");
    // Godot prints its banner line before the JSON.
    let json = stdout.find('{').map_or("", |start| &stdout[start..]);
    let report: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(report["errors"], serde_json::json!([]), "errors Godot logged");
    assert!(report["godot"].as_str().unwrap().starts_with("4."), "{}", report["godot"]);
    report
}

/// The character's clip names by glTF index, as `animtune graph` passes them to the exporter.
fn clip_names() -> Vec<String> {
    let model = devtools::load(&repo_root().join("assets/mannequin.glb"));
    model.clips().iter().enumerate().map(|(i, c)| c.display_name(i)).collect()
}

/// The machine in `text`, read back by animtune's importer (the machine the export wrote: the
/// round trip is exact, `crates/anim/tests/state_machine.rs`).
fn machine(text: &str) -> StateMachine {
    let names = clip_names();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    import_godot(text, &names).unwrap()
}

/// Godot's states without its own Start and End, by name.
fn godot_states(report: &Value) -> Vec<&Value> {
    let mut states: Vec<&Value> = report["states"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| !matches!(s["class"].as_str(), Some("AnimationNodeStartState" | "AnimationNodeEndState")))
        .collect();
    states.sort_by_key(|s| s["name"].as_str().unwrap().to_owned());
    states
}

/// Every (from, to, transition) Godot should hold, in the file's order: the entry's edge from
/// Start, then each transition, an any-state one once from every other state.
fn expected_transitions(machine: &StateMachine) -> Vec<(String, String, Option<&StateTransition>)> {
    let name = |id| machine.state(id).unwrap().name.clone();
    let mut out = vec![("Start".to_owned(), name(machine.entry()), None)];
    for t in machine.transitions() {
        let to = name(t.to);
        match t.from {
            TransitionFrom::State(from) => out.push((name(from), to, Some(t))),
            TransitionFrom::Any => {
                for s in machine.states().iter().filter(|s| s.name != to) {
                    out.push((s.name.clone(), to.clone(), Some(t)));
                }
            }
        }
    }
    out
}

/// Godot's states and transitions are the machine's: names, clips, fade times and curves,
/// switch and advance modes, conditions and priorities.
fn assert_godot_read(report: &Value, machine: &StateMachine, clips: &[String]) {
    assert_eq!(report["class"], "AnimationNodeStateMachine");
    let states = godot_states(report);
    let mut names: Vec<&str> = machine.states().iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(states.iter().map(|s| s["name"].as_str().unwrap()).collect::<Vec<_>>(), names);
    for godot in states {
        let state = machine.states().iter().find(|s| s.name == godot["name"]).unwrap();
        let clip = |c: anim::ClipId| clips[c.index()].as_str();
        match &state.motion {
            StateMotion::Clip(c) => {
                assert_eq!(
                    (godot["class"].as_str(), godot["animation"].as_str()),
                    (Some("AnimationNodeAnimation"), Some(clip(*c)))
                );
            }
            StateMotion::Layered(layered) => {
                assert_eq!(godot["animation"].as_str(), Some(clip(layered.base)), "{}: the base clip", state.name);
            }
            StateMotion::BlendSpace(space) => {
                let class = if space.two_d { "AnimationNodeBlendSpace2D" } else { "AnimationNodeBlendSpace1D" };
                assert_eq!(godot["class"], class, "{}", state.name);
                assert_eq!(godot["sync"], true, "{}: animtune plays a blend space's clips together", state.name);
                let points = godot["points"].as_array().unwrap();
                assert_eq!(points.len(), space.points.len(), "{}", state.name);
                for (point, godot_point) in space.points.iter().zip(points) {
                    assert_eq!(godot_point["animation"].as_str(), Some(clip(point.clip)));
                    let pos: Vec<f64> =
                        godot_point["pos"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
                    let want =
                        if space.two_d { vec![point.position.x, point.position.y] } else { vec![point.position.x] };
                    for (got, want) in pos.iter().zip(&want) {
                        assert!(
                            (got - f64::from(*want)).abs() < 1e-6,
                            "{}: point at {pos:?}, written {want}",
                            state.name
                        );
                    }
                    let (lo, hi) = (&godot["min_space"][0], &godot["max_space"][0]);
                    assert!(lo.as_f64().unwrap() <= pos[0] && pos[0] <= hi.as_f64().unwrap(), "{pos:?} in {lo}..{hi}");
                }
            }
        }
    }
    let godot = report["transitions"].as_array().unwrap();
    let expected = expected_transitions(machine);
    let pairs: Vec<(&str, &str)> =
        godot.iter().map(|t| (t["from"].as_str().unwrap(), t["to"].as_str().unwrap())).collect();
    let want: Vec<(&str, &str)> = expected.iter().map(|(f, t, _)| (f.as_str(), t.as_str())).collect();
    assert_eq!(pairs, want, "Godot's transitions, in the file's order");
    for (g, (from, to, transition)) in godot.iter().zip(&expected) {
        let Some(t) = transition else {
            assert_eq!((g["advance_mode"].as_i64(), g["xfade_time"].as_f64()), (Some(2), Some(0.0)), "Start -> {to}");
            continue;
        };
        let edge = format!("{from} -> {to}");
        let xfade = g["xfade_time"].as_f64().unwrap();
        assert!(
            (xfade - f64::from(t.duration_secs)).abs() < 1e-6,
            "{edge}: xfade_time {xfade}, {} s written",
            t.duration_secs
        );
        let switch_mode = if t.at_end {
            2
        } else if t.sync {
            1
        } else {
            0
        };
        assert_eq!(g["switch_mode"].as_i64(), Some(switch_mode), "{edge}");
        assert_eq!(g["advance_mode"].as_i64(), Some(if t.is_automatic() { 2 } else { 1 }), "{edge}");
        assert_eq!(g["priority"].as_u64(), Some(u64::from(t.priority)), "{edge}");
        let (condition, expression) =
            (g["advance_condition"].as_str().unwrap(), g["advance_expression"].as_str().unwrap());
        let param = |c: &Condition| c.param().and_then(|p| machine.param(p)).map(|p| p.name.as_str());
        match t.conditions.as_slice() {
            [] => assert_eq!((condition, expression), ("", ""), "{edge}"),
            [c @ (Condition::Trigger(_) | Condition::Bool { value: true, .. })] => {
                assert_eq!((Some(condition), expression), (param(c), ""), "{edge}");
            }
            conditions => {
                assert_eq!(condition, "", "{edge}");
                for c in conditions {
                    let name = param(c).map_or_else(|| "event_".to_owned(), str::to_owned);
                    assert!(expression.contains(&name), "{edge}: `{expression}` lacks {name}");
                }
            }
        }
        // The easing as Godot samples the curve (no curve: Godot's linear fade).
        match g["curve"].as_array() {
            None => assert_eq!(t.easing, anim::interp::Easing::Linear, "{edge}: no curve"),
            Some(points) => {
                for p in points {
                    let (x, y) = (p[0].as_f64().unwrap() as f32, p[1].as_f64().unwrap() as f32);
                    assert!((y - t.easing.apply(x)).abs() < 1e-4, "{edge}: curve ({x}, {y})");
                }
                let half = g["curve_at_half"].as_f64().unwrap() as f32;
                assert!((half - t.easing.apply(0.5)).abs() < 1e-3, "{edge}: Curve.sample(0.5) = {half}");
            }
        }
    }
}

#[test]
fn godot_reads_the_built_in_characters_machine_and_plays_it_on_the_character() {
    let Some(godot) = godot() else { return };
    let dir = TempDir::new("godot-built-in");
    let text = export(&dir, "mannequin", &[]);
    let machine = machine(&text);
    let glb = repo_root().join("assets/mannequin.glb");
    let report = check(&godot, &dir, "mannequin", &["--glb", glb.to_str().unwrap(), "--travel", "Idle,Walk"]);
    let clips = clip_names();
    assert_godot_read(&report, &machine, &clips);
    assert_eq!(machine.states().len(), 8);
    assert_eq!(report["transitions"].as_array().unwrap().len(), 1 + 8 * 7, "Start and 8 any-state edges from 7 states");
    // Godot's glTF code names the file's animations as the export does.
    let mut animations: Vec<&str> =
        report["glb"]["animations"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    animations.sort_unstable();
    let mut want: Vec<&str> = clips.iter().map(String::as_str).collect();
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
fn godot_reads_a_blend_space_a_layered_state_conditions_and_an_at_end_transition() {
    let Some(godot) = godot() else { return };
    let dir = TempDir::new("godot-locomotion");
    let profile = repo_root().join("docs/examples/locomotion.json");
    let text = export(&dir, "locomotion", &["--profile", profile.to_str().unwrap()]);
    let machine = machine(&text);
    let glb = repo_root().join("assets/mannequin.glb");
    let args = ["--glb", glb.to_str().unwrap(), "--travel", "Idle,Locomotion", "--condition", "jump"];
    let report = check(&godot, &dir, "locomotion", &args);
    assert_godot_read(&report, &machine, &clip_names());
    // What this machine holds, so the checks above cover each kind.
    let states = godot_states(&report);
    let class = |name: &str| states.iter().find(|s| s["name"] == name).map(|s| s["class"].as_str().unwrap());
    assert_eq!(class("Locomotion"), Some("AnimationNodeBlendSpace1D"));
    assert_eq!(class("Waving"), Some("AnimationNodeAnimation"));
    let transitions = report["transitions"].as_array().unwrap();
    let find = |from: &str, to: &str| transitions.iter().find(|t| t["from"] == from && t["to"] == to).unwrap();
    assert_eq!(find("Idle", "Locomotion")["advance_expression"], "speed > 0.5");
    assert_eq!(find("Locomotion", "Waving")["advance_condition"], "wave");
    assert_eq!(find("Waving", "Jump")["advance_condition"], "jump");
    assert_eq!(find("Jump", "Idle")["switch_mode"], 2);
    assert_eq!(report["glb"]["missing"], serde_json::json!([]));
    // Played: Idle -> Locomotion over its 0.3 s fade, the `jump` condition to Jump, and Jump's
    // at-end edge back to Idle — which Godot takes `xfade_time` (0.3 s) before Jump's clip ends.
    let travel = &report["glb"]["travel"];
    assert_eq!(travel["after_fade"], "Locomotion", "{travel}");
    let fade = travel["fade_secs"].as_f64().unwrap();
    assert!((fade - 0.3).abs() <= FRAME_SECS + 1e-9, "Godot faded for {fade} s");
    assert_eq!((travel["after_condition"].as_str(), travel["after_that_state"].as_str()), (Some("Jump"), Some("Idle")));
    let jump_secs = report["glb"]["lengths_secs"]["Jump"].as_f64().unwrap();
    let xfade = find("Jump", "Idle")["xfade_time"].as_f64().unwrap();
    let in_jump = travel["that_state_secs"].as_f64().unwrap();
    assert!((in_jump - (jump_secs - xfade)).abs() <= 2.0 * FRAME_SECS, "Jump left after {in_jump} s of {jump_secs} s");
}
