//! Bevy export: the states as a `bevy_animation` `SerializedAnimationGraph` (`.animgraph.ron`:
//! a root blend node, one clip node per clip state referencing the glTF's animation as an asset
//! path `model.glb#AnimationN`, a blend node per blend space and per layered state with its
//! clips under it) and a sidecar RON with the transitions (from, to, `duration_secs`, the graph
//! node to play) for `AnimationTransitions::play`. Bevy has no state machine: conditions,
//! priorities and "at end" exits are listed in the sidecar for the game's own system; what
//! Bevy's transitions cannot do is written as the nearest equivalent with a `//` comment.
//! [`engine_limitations`] lists both engines' gaps for the docs.

use std::fmt::Write as _;

use super::godot::{expression, fnum, quote};
use super::{StateMachine, StateMachineError, StateMotion, TransitionFrom};
use crate::crossfade::TransitionKind;
use crate::interp::Easing;

/// The two files of a Bevy export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BevyExport {
    /// The `SerializedAnimationGraph` (`NAME.animgraph.ron`).
    pub graph_ron: String,
    /// The states' graph nodes and the transitions (`NAME.transitions.ron`).
    pub transitions_ron: String,
}

/// A game engine the machine is exported to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Godot 4 (`AnimationNodeStateMachine`).
    Godot,
    /// Bevy (`SerializedAnimationGraph` and `AnimationTransitions`).
    Bevy,
}

const GODOT_LIMITS: &[(&str, &str)] = &[
    ("inertialization", "a cross-fade of the same length"),
    ("dead blending", "a cross-fade of the same length"),
    ("interruption by the source's transitions", "the new state's transitions may cut a fade (Godot's rule)"),
    ("any-state transitions", "one entry per state in `transitions`, sharing one transition sub-resource"),
    ("triggers", "an `advance_condition` the game sets and clears"),
    ("clip events as conditions", "`event_NAME` in `advance_expression`: a property the game sets from a method track"),
    (
        "layered states",
        "an `AnimationNodeBlendTree`: per layer a `Blend2` (override) or `Add2` (additive) filtered to its mask's bones; \
         the weight as each mix node's `metadata/blend_amount`, for the game to set as its `blend_amount` parameter \
         (Godot starts it at 0)",
    ),
    (
        "painted joint weights between 0 and 1",
        "on or off per bone in the layer's `filters`: 0.5 or more in, under 0.5 out (the bones between listed in a comment)",
    ),
    (
        "additive layers",
        "`Add2` adds the clip's difference from the bones' rest pose, animtune its difference from the clip's first frame",
    ),
    ("at end and sync together", "at end (`switch_mode = 2`)"),
    ("at end", "`switch_mode = 2`: Godot starts the fade `xfade_time` before the clip ends, animtune when it ends"),
    (
        "two transitions between one pair of states",
        "the one animtune prefers (lower priority, then the earlier); the other in a comment",
    ),
    (
        "blend-space phase sync",
        "`sync = true`: the clips on one clock, each looped to its length (animtune's phase sync off)",
    ),
];

const BEVY_LIMITS: &[(&str, &str)] = &[
    ("inertialization", "a cross-fade of the same length"),
    ("dead blending", "a cross-fade of the same length"),
    ("phase sync", "the target starts at its beginning"),
    ("easing", "linear: `AnimationTransitions` fades weights linearly"),
    ("conditions, priorities, interruption, at end", "listed in the sidecar for the game's own system"),
    (
        "layer masks and painted joint weights",
        "layers are plain children of the state's node, over the whole body (masks and painted weights in a comment)",
    ),
];

/// What `engine` cannot express and what the export writes instead: (feature, written as).
pub fn engine_limitations(engine: Engine) -> &'static [(&'static str, &'static str)] {
    match engine {
        Engine::Godot => GODOT_LIMITS,
        Engine::Bevy => BEVY_LIMITS,
    }
}

/// Write `machine` for Bevy; clips are `"{gltf_path}#Animation{index}"` (Bevy's glTF labels:
/// a clip's index is its glTF animation index).
///
/// # Errors
/// When the machine does not validate.
pub fn export_bevy(machine: &StateMachine, gltf_path: &str) -> Result<BevyExport, StateMachineError> {
    machine.validate()?;
    // (node type, weight) per node; edges parent → child. Node 0 is the root blend.
    let mut nodes: Vec<(String, f32)> = vec![("Blend".to_owned(), 1.0)];
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let clip_node = |clip: crate::ClipId| format!("Clip({})", quote(&format!("{gltf_path}#Animation{}", clip.index())));
    let mut state_nodes = Vec::with_capacity(machine.states().len());
    let mut notes = String::new();
    for state in machine.states() {
        let node = nodes.len();
        match &state.motion {
            StateMotion::Clip(clip) => nodes.push((clip_node(*clip), 1.0)),
            StateMotion::BlendSpace(space) => {
                nodes.push(("Blend".to_owned(), 1.0));
                for point in &space.points {
                    edges.push((node, nodes.len()));
                    nodes.push((clip_node(point.clip), 1.0));
                }
                let _ = writeln!(
                    notes,
                    "// Node {node} is blend space \"{}\": the game sets its children's weights from the parameters.",
                    space.name
                );
                if space.phase_sync {
                    let _ = writeln!(
                        notes,
                        "// Node {node}: Bevy has no phase sync; its clips play on the clock (animtune's phase sync off)."
                    );
                }
            }
            StateMotion::Layered(layered) => {
                let additive = layered.layers.iter().any(|l| l.additive);
                nodes.push((if additive { "Add" } else { "Blend" }.to_owned(), 1.0));
                edges.push((node, nodes.len()));
                nodes.push((clip_node(layered.base), 1.0));
                for layer in &layered.layers {
                    edges.push((node, nodes.len()));
                    nodes.push((clip_node(layer.clip), layer.weight));
                }
                let _ = writeln!(
                    notes,
                    "// Node {node} is layered state \"{}\": its base, then its layers (no masks).",
                    state.name
                );
                for (i, layer) in layered.layers.iter().enumerate() {
                    if layer.mask.is_empty() && layer.joint_weights.is_empty() {
                        continue;
                    }
                    let mask = if layer.mask.is_empty() { "whole body".to_owned() } else { layer.mask.join("+") };
                    let painted: Vec<String> = layer
                        .joint_weights
                        .iter()
                        .map(|p| format!("{}{} {}", p.joint, if p.subtree { " and below" } else { "" }, fnum(p.weight)))
                        .collect();
                    let painted =
                        if painted.is_empty() { String::new() } else { format!(", painted {}", painted.join(", ")) };
                    let _ = writeln!(
                        notes,
                        "// Node {}: mask {mask}{painted}; played over the whole body at the layer's weight (Bevy's \
                         mask groups switch targets off, with no weight between 0 and 1).",
                        node + 2 + i
                    );
                }
            }
        }
        edges.push((0, node));
        state_nodes.push(node);
    }
    edges.sort_unstable();
    let mut graph = String::new();
    graph.push_str("// A bevy_animation SerializedAnimationGraph written by animtune: one node per state under\n");
    graph.push_str("// the root blend. Bevy 0.16 and older read a clip as Clip(AssetPath(\"…\")).\n");
    graph.push_str(&notes);
    graph.push_str("(\n    graph: (\n        nodes: [\n");
    for (node_type, weight) in &nodes {
        let _ = writeln!(
            graph,
            "            (\n                node_type: {node_type},\n                mask: 0,\n                weight: {},\n            ),",
            fnum(*weight)
        );
    }
    graph.push_str("        ],\n        node_holes: [],\n        edge_property: directed,\n        edges: [\n");
    for (parent, child) in &edges {
        let _ = writeln!(graph, "            Some(({parent}, {child}, ())),");
    }
    graph.push_str("        ],\n    ),\n    root: 0,\n    mask_groups: {},\n)\n");

    let mut sidecar = String::new();
    sidecar.push_str("// The state machine's transitions for AnimationTransitions::play(&mut player, node,\n");
    sidecar.push_str("// Duration::from_secs_f32(duration_secs)); `node` indexes the .animgraph.ron's nodes.\n");
    sidecar.push_str("// from \"*\" is any state. Conditions are written as in Godot's advance_expression.\n");
    let entry = machine.state(machine.entry()).map_or("", |s| s.name.as_str());
    let _ = writeln!(sidecar, "(\n    entry: {},\n    states: [", quote(entry));
    for (state, node) in machine.states().iter().zip(&state_nodes) {
        let _ = writeln!(sidecar, "        (name: {}, node: {node}),", quote(&state.name));
    }
    sidecar.push_str("    ],\n    transitions: [\n");
    for t in machine.transitions() {
        let name = machine.transition_name(t);
        match t.kind {
            TransitionKind::CrossFade => {}
            TransitionKind::Inertialize => {
                let _ = writeln!(
                    sidecar,
                    "        // {name}: Bevy has no inertialization; a cross-fade of the same length."
                );
            }
            TransitionKind::DeadBlend => {
                let _ =
                    writeln!(sidecar, "        // {name}: Bevy has no dead blending; a cross-fade of the same length.");
            }
        }
        if t.sync {
            let _ = writeln!(sidecar, "        // {name}: Bevy has no phase sync; the target starts at its beginning.");
        }
        if t.easing != Easing::Linear {
            let _ = writeln!(sidecar, "        // {name}: {} easing; Bevy fades linearly.", t.easing.name());
        }
        let from = match t.from {
            TransitionFrom::State(s) => machine.state(s).map_or("", |s| s.name.as_str()),
            TransitionFrom::Any => "*",
        };
        let to = machine.state(t.to).map_or("", |s| s.name.as_str());
        let node = state_nodes.get(t.to.index()).copied().unwrap_or(0);
        let _ = writeln!(
            sidecar,
            "        (from: {}, to: {}, node: {node}, duration_secs: {}, priority: {}, at_end: {}, conditions: {}),",
            quote(from),
            quote(to),
            fnum(t.duration_secs),
            t.priority,
            t.at_end,
            quote(&expression(machine, &t.conditions))
        );
    }
    sidecar.push_str("    ],\n)\n");
    Ok(BevyExport { graph_ron: graph, transitions_ron: sidecar })
}
