//! Godot 4 checks of the Godot export: [`check`] runs `tools/godot-check/check.gd` in Godot
//! (`.tools/godot/godot`, Debian's Godot unpacked by `scripts/install-godot.sh`) on a `.tres` and
//! returns what Godot read as JSON; [`assert_reads`] holds that to the machine the file was
//! exported from. Without Godot, [`check`] skips (the project's CI rule, [`crate::ci::skip`]).

use std::path::Path;
use std::process::Command;

use anim::state_machine::{Condition, LayeredMotion, StateMachine, StateMotion, StateTransition, TransitionFrom};
use serde_json::Value;

use crate::ci::{repo_root, skip};

/// One frame of the check's `AnimationTree` (it advances at 60 Hz).
pub const FRAME_SECS: f64 = 1.0 / 60.0;

/// Godot's reading of `tres` (`check.gd -- TRES ARGS`), or `None` after [`skip`]ping when Godot is
/// not installed. `home` holds Godot's user folders for the run.
///
/// # Panics
/// When Godot fails, logs an error (parse errors included), runs longer than two minutes or prints
/// no JSON, and when it is not Godot 4.
pub fn check(tres: &Path, args: &[&str], home: &Path) -> Option<Value> {
    let launcher = repo_root().join(".tools/godot/godot");
    if !launcher.exists() {
        skip("Godot 4 is not installed in .tools/godot/ (scripts/install-test-deps.sh installs it)");
        return None;
    }
    let out = Command::new("timeout")
        .arg("120")
        .arg(&launcher)
        .args(["--headless", "--script", "tools/godot-check/check.gd", "--"])
        .arg(tres)
        .args(args)
        .current_dir(repo_root())
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", launcher.display()));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "Godot's check failed ({}):\n{stdout}\n{stderr}", out.status);
    assert!(!stderr.contains("ERROR"), "Godot logged an error:\n{stderr}");
    // Godot prints its banner line before the JSON.
    let json = stdout.find('{').map_or("", |start| &stdout[start..]);
    let report: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(report["errors"], serde_json::json!([]), "errors Godot logged");
    assert!(report["godot"].as_str().is_some_and(|v| v.starts_with("4.")), "{}", report["godot"]);
    Some(report)
}

/// Godot's states without its own Start and End, by name.
pub fn states(report: &Value) -> Vec<&Value> {
    let mut states: Vec<&Value> = report["states"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|s| !matches!(s["class"].as_str(), Some("AnimationNodeStartState" | "AnimationNodeEndState")))
        .collect();
    states.sort_by_key(|s| s["name"].as_str().unwrap_or("").to_owned());
    states
}

/// Godot's transition `from → to` in the report.
///
/// # Panics
/// When Godot has no such transition.
pub fn transition<'a>(report: &'a Value, from: &str, to: &str) -> &'a Value {
    report["transitions"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["from"] == from && t["to"] == to))
        .unwrap_or_else(|| panic!("Godot has no transition {from} -> {to}"))
}

/// Every (from, to, transition) Godot should hold, in the file's order: the entry's edge from
/// Start, then each transition, an any-state one once from every other state — one transition
/// per pair of states (Godot's rule): of two with the same pair, the lower priority, then the
/// earlier (animtune's runtime's choice).
fn expected_transitions(machine: &StateMachine) -> Vec<(String, String, Option<&StateTransition>)> {
    let name = |id| machine.state(id).map_or_else(String::new, |s| s.name.clone());
    let mut all = Vec::new();
    for (i, t) in machine.transitions().iter().enumerate() {
        let to = name(t.to);
        match t.from {
            TransitionFrom::State(from) => all.push((name(from), to, (t.priority, i))),
            TransitionFrom::Any => {
                for s in machine.states().iter().filter(|s| s.name != to) {
                    all.push((s.name.clone(), to.clone(), (t.priority, i)));
                }
            }
        }
    }
    let mut out = vec![("Start".to_owned(), name(machine.entry()), None)];
    for (from, to, rank) in &all {
        if !all.iter().any(|(f, t, r)| f == from && t == to && r < rank) {
            out.push((from.clone(), to.clone(), machine.transitions().get(rank.1)));
        }
    }
    out
}

/// Godot read `machine` (exported with `clip_names`): its states by name with their clips, blend
/// points and sync, layered states' blend trees ([`tree_node`]: nodes, connections, filters); its transitions in order with their fade times, curves, switch and advance
/// modes, conditions (expressions that Godot's `Expression` parses) and priorities.
///
/// # Panics
/// On the first difference, naming the state or edge.
pub fn assert_reads(report: &Value, machine: &StateMachine, clip_names: &[&str]) {
    assert_eq!(report["class"], "AnimationNodeStateMachine");
    let states = states(report);
    let mut names: Vec<&str> = machine.states().iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(states.iter().map(|s| s["name"].as_str().unwrap_or("")).collect::<Vec<_>>(), names);
    let clip = |c: anim::ClipId| clip_names.get(c.index()).copied();
    for godot in states {
        let Some(state) = machine.states().iter().find(|s| s.name == godot["name"]) else { continue };
        match &state.motion {
            StateMotion::Clip(c) => {
                assert_eq!(godot["class"], "AnimationNodeAnimation", "{}", state.name);
                assert_eq!(godot["animation"].as_str(), clip(*c), "{}", state.name);
            }
            StateMotion::Layered(layered) => assert_layered(godot, layered, clip_names, &state.name),
            StateMotion::BlendSpace(space) => {
                let class = if space.two_d { "AnimationNodeBlendSpace2D" } else { "AnimationNodeBlendSpace1D" };
                assert_eq!(godot["class"], class, "{}", state.name);
                assert_eq!(godot["sync"], true, "{}: animtune plays a blend space's clips together", state.name);
                let points = godot["points"].as_array().map_or(&[][..], Vec::as_slice);
                assert_eq!(points.len(), space.points.len(), "{}", state.name);
                for (point, godot_point) in space.points.iter().zip(points) {
                    assert_eq!(godot_point["animation"].as_str(), clip(point.clip), "{}", state.name);
                    let pos: Vec<f64> = godot_point["pos"]
                        .as_array()
                        .map(|p| p.iter().filter_map(Value::as_f64).collect())
                        .unwrap_or_default();
                    let want =
                        if space.two_d { vec![point.position.x, point.position.y] } else { vec![point.position.x] };
                    assert_eq!(pos.len(), want.len(), "{}: {pos:?}", state.name);
                    for (axis, (got, want)) in pos.iter().zip(&want).enumerate() {
                        assert!(
                            (got - f64::from(*want)).abs() < 1e-6,
                            "{}: point at {pos:?}, written {want}",
                            state.name
                        );
                        let (lo, hi) = (godot["min_space"][axis].as_f64(), godot["max_space"][axis].as_f64());
                        assert!(lo.is_some_and(|lo| lo <= *got) && hi.is_some_and(|hi| *got <= hi), "{pos:?} in space");
                    }
                }
            }
        }
    }
    let godot = report["transitions"].as_array().map_or(&[][..], Vec::as_slice);
    let expected = expected_transitions(machine);
    let pairs: Vec<(&str, &str)> =
        godot.iter().map(|t| (t["from"].as_str().unwrap_or(""), t["to"].as_str().unwrap_or(""))).collect();
    let want: Vec<(&str, &str)> = expected.iter().map(|(f, t, _)| (f.as_str(), t.as_str())).collect();
    assert_eq!(pairs, want, "Godot's transitions, in the file's order");
    for (g, (from, to, transition)) in godot.iter().zip(&expected) {
        let Some(t) = transition else {
            assert_eq!((g["advance_mode"].as_i64(), g["xfade_time"].as_f64()), (Some(2), Some(0.0)), "Start -> {to}");
            continue;
        };
        assert_transition(g, machine, t, &format!("{from} -> {to}"));
    }
}

/// Godot's node named `name` in a blend-tree state of the report.
///
/// # Panics
/// When the state has no such node.
pub fn tree_node<'a>(godot: &'a Value, name: &str) -> &'a Value {
    godot["nodes"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("{}: Godot has no node {name}", godot["name"]))
}

/// A layered state is an `AnimationNodeBlendTree` as `godot.rs` writes it: `base` plays the base
/// clip, `layerN` each layer's clip into `mixN` (a `Blend2`, or `Add2` when additive, with the
/// layer's weight as its `blend_amount` metadata), each mix on the one before and the last on
/// `output`; every filter path names a bone of Godot's skeleton.
fn assert_layered(godot: &Value, layered: &LayeredMotion, clip_names: &[&str], state: &str) {
    assert_eq!(godot["class"], "AnimationNodeBlendTree", "{state}");
    let clip = |c: anim::ClipId| clip_names.get(c.index()).copied();
    let base = tree_node(godot, "base");
    assert_eq!(
        (base["class"].as_str(), base["animation"].as_str()),
        (Some("AnimationNodeAnimation"), clip(layered.base))
    );
    let mut connections = Vec::new();
    let mut previous = "base".to_owned();
    for (l, layer) in layered.layers.iter().enumerate() {
        let n = l + 1;
        let node = tree_node(godot, &format!("layer{n}"));
        assert_eq!(node["animation"].as_str(), clip(layer.clip), "{state}: layer{n}");
        let mix = tree_node(godot, &format!("mix{n}"));
        let class = if layer.additive { "AnimationNodeAdd2" } else { "AnimationNodeBlend2" };
        assert_eq!(mix["class"], class, "{state}: mix{n}");
        let amount = mix["blend_amount"].as_f64().unwrap_or(f64::NAN);
        assert!((amount - f64::from(layer.weight)).abs() < 1e-6, "{state}: mix{n} blend_amount {amount}");
        let masked = !layer.mask.is_empty() || !layer.joint_weights.is_empty();
        assert_eq!(mix["filter_enabled"], masked, "{state}: mix{n} filters a masked layer only");
        for filter in mix["filters"].as_array().map_or(&[][..], Vec::as_slice) {
            assert_eq!(filter["bone"].as_i64().map(|b| b >= 0), Some(true), "{state}: mix{n}: {filter} is no bone");
        }
        connections.push(format!("mix{n}:0:{previous}"));
        connections.push(format!("mix{n}:1:layer{n}"));
        previous = format!("mix{n}");
    }
    connections.push(format!("output:0:{previous}"));
    let mut got: Vec<&str> =
        godot["connections"].as_array().map_or(&[][..], Vec::as_slice).iter().filter_map(Value::as_str).collect();
    got.sort_unstable();
    connections.sort_unstable();
    assert_eq!(got, connections, "{state}: Godot's connections");
}

/// One of Godot's transitions is `t`.
fn assert_transition(g: &Value, machine: &StateMachine, t: &StateTransition, edge: &str) {
    let xfade = g["xfade_time"].as_f64().unwrap_or(f64::NAN);
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
    let condition = g["advance_condition"].as_str().unwrap_or("?");
    let expression = g["advance_expression"].as_str().unwrap_or("?");
    let param = |c: &Condition| c.param().and_then(|p| machine.param(p)).map(|p| p.name.as_str());
    match t.conditions.as_slice() {
        [] => assert_eq!((condition, expression), ("", ""), "{edge}"),
        [c @ (Condition::Trigger(_) | Condition::Bool { value: true, .. })] => {
            assert_eq!((Some(condition), expression), (param(c), ""), "{edge}");
        }
        conditions => {
            assert_eq!(condition, "", "{edge}");
            assert_eq!(g["expression_parses"], true, "{edge}: Godot's Expression cannot parse `{expression}`");
            for c in conditions {
                let name = param(c).map_or_else(|| "event_".to_owned(), str::to_owned);
                assert!(expression.contains(&name), "{edge}: `{expression}` lacks {name}");
            }
        }
    }
    // The easing as Godot samples the curve (no curve: Godot's linear fade).
    match g["curve"].as_array() {
        None => assert_eq!(t.easing, anim::Easing::Linear, "{edge}: no curve"),
        Some(points) => {
            for p in points {
                let (x, y) = (p[0].as_f64().unwrap_or(f64::NAN) as f32, p[1].as_f64().unwrap_or(f64::NAN) as f32);
                assert!((y - t.easing.apply(x)).abs() < 1e-4, "{edge}: curve point ({x}, {y})");
            }
            let half = g["curve_at_half"].as_f64().unwrap_or(f64::NAN) as f32;
            assert!((half - t.easing.apply(0.5)).abs() < 1e-3, "{edge}: Curve.sample(0.5) = {half}");
        }
    }
}
