//! Bevy export: the states as a `bevy_animation` `SerializedAnimationGraph` (`.animgraph.ron`:
//! a root blend node, one clip node per clip state referencing the glTF's animation as an asset
//! path `model.glb#AnimationN`, a blend node per blend space and per layered state with its
//! clips under it) and a sidecar RON with the transitions (from, to, `duration_secs`, the graph
//! node to play) for `AnimationTransitions::play`. Bevy has no state machine: conditions,
//! priorities and "at end" exits are listed in the sidecar for the game's own system; what
//! Bevy's transitions cannot do is written as the nearest equivalent with a `//` comment.
//! A layer's mask becomes Bevy mask groups ([`BevyMasks`]: the caller gives each node's
//! `AnimationTargetId` and each layer's weight per node): the nodes a layer leaves out form a
//! group its clip node masks, layers leaving out the same nodes share one group, at most 64.
//! [`engine_limitations`] lists both engines' gaps for the docs.

use std::fmt::Write as _;

use super::godot::{expression, fnum, quote};
use super::{StateId, StateMachine, StateMachineError, StateMotion, TransitionFrom};
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

/// Bevy's mask groups: a node's `mask` has 64 bits.
pub const BEVY_MASK_GROUPS: usize = 64;

/// A painted weight at or above this is written as animated in Bevy, below it as masked out: the
/// nearer of Bevy's two values (a mask switches a target on or off, nothing between).
pub const BEVY_MASK_ON_WEIGHT: f32 = 0.5;

/// What the Bevy export needs of the model to write the layers' masks as mask groups.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BevyMasks {
    /// Each node's `AnimationTargetId` as Bevy's glTF loader gives it (UUID text), by node
    /// index; `None` for a node Bevy gives no id.
    pub target_ids: Vec<Option<String>>,
    /// The layers' masks resolved to a weight per node; a layer with none plays over the whole
    /// body (its mask and painted weights in a comment).
    pub layers: Vec<BevyLayerMask>,
}

/// One layer's mask as a weight per node, for [`BevyMasks`].
#[derive(Debug, Clone, PartialEq)]
pub struct BevyLayerMask {
    /// The layered state.
    pub state: StateId,
    /// The layer's index in the state's layers.
    pub layer: usize,
    /// Its weight per node (by node index; nodes past the end at 0), as the stage plays it.
    pub node_weights: Vec<f32>,
}

/// The mask groups of one export: each group the set of nodes (sorted) a layer leaves out.
#[derive(Default)]
struct MaskGroups {
    groups: Vec<Vec<usize>>,
}

impl MaskGroups {
    /// The group of exactly `nodes` (made if new); `None` when all 64 are taken.
    fn group_of(&mut self, nodes: Vec<usize>) -> Option<usize> {
        if let Some(g) = self.groups.iter().position(|g| *g == nodes) {
            return Some(g);
        }
        if self.groups.len() == BEVY_MASK_GROUPS {
            return None;
        }
        self.groups.push(nodes);
        Some(self.groups.len() - 1)
    }

    /// Each node's group bits, by node index (0: in no group).
    fn node_bits(&self, node_count: usize) -> Vec<u64> {
        let mut bits = vec![0_u64; node_count];
        for (g, nodes) in self.groups.iter().enumerate() {
            for &n in nodes {
                bits[n] |= 1 << g;
            }
        }
        bits
    }
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
        "layer masks",
        "mask groups: the nodes a layer leaves out form a group its clip node masks (layers leaving out the same nodes share one; at most 64, a layer past them over the whole body with a comment)",
    ),
    (
        "painted joint weights between 0 and 1",
        "on or off per joint, the nearer one: animated at 0.5 and above, masked out below (a comment counts them)",
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
/// a clip's index is its glTF animation index). The layers that `masks` resolves are masked
/// by mask groups of the targets `masks` names.
///
/// # Errors
/// When the machine does not validate.
pub fn export_bevy(
    machine: &StateMachine,
    gltf_path: &str,
    masks: &BevyMasks,
) -> Result<BevyExport, StateMachineError> {
    machine.validate()?;
    // (node type, weight, mask bits) per node; edges parent → child. Node 0 is the root blend.
    let mut nodes: Vec<(String, f32, u64)> = vec![("Blend".to_owned(), 1.0, 0)];
    let mut groups = MaskGroups::default();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    let clip_node = |clip: crate::ClipId| format!("Clip({})", quote(&format!("{gltf_path}#Animation{}", clip.index())));
    let mut state_nodes = Vec::with_capacity(machine.states().len());
    let mut notes = String::new();
    for state in machine.states() {
        let node = nodes.len();
        match &state.motion {
            StateMotion::Clip(clip) => nodes.push((clip_node(*clip), 1.0, 0)),
            StateMotion::BlendSpace(space) => {
                nodes.push(("Blend".to_owned(), 1.0, 0));
                for point in &space.points {
                    edges.push((node, nodes.len()));
                    nodes.push((clip_node(point.clip), 1.0, 0));
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
                nodes.push((if additive { "Add" } else { "Blend" }.to_owned(), 1.0, 0));
                edges.push((node, nodes.len()));
                nodes.push((clip_node(layered.base), 1.0, 0));
                let _ =
                    writeln!(notes, "// Node {node} is layered state \"{}\": its base, then its layers.", state.name);
                let state_id = machine.find_state(&state.name);
                for (i, layer) in layered.layers.iter().enumerate() {
                    let resolved = masks.layers.iter().find(|m| Some(m.state) == state_id && m.layer == i);
                    let mask = match resolved {
                        Some(resolved) => layer_mask_bits(&mut groups, masks, resolved, node + 2 + i, &mut notes),
                        None => {
                            whole_body_note(layer, node + 2 + i, &mut notes);
                            0
                        }
                    };
                    edges.push((node, nodes.len()));
                    nodes.push((clip_node(layer.clip), layer.weight, mask));
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
    for (node_type, weight, mask) in &nodes {
        let _ = writeln!(
            graph,
            "            (\n                node_type: {node_type},\n                mask: {mask},\n                weight: {},\n            ),",
            fnum(*weight)
        );
    }
    graph.push_str("        ],\n        node_holes: [],\n        edge_property: directed,\n        edges: [\n");
    for (parent, child) in &edges {
        let _ = writeln!(graph, "            Some(({parent}, {child}, ())),");
    }
    graph.push_str("        ],\n    ),\n    root: 0,\n");
    let bits = groups.node_bits(masks.target_ids.len());
    if bits.iter().all(|&b| b == 0) {
        graph.push_str("    mask_groups: {},\n)\n");
    } else {
        graph.push_str("    mask_groups: {\n");
        for (id, bits) in masks.target_ids.iter().zip(&bits) {
            if let (Some(id), 1..) = (id, *bits) {
                let _ = writeln!(graph, "        AnimationTargetId({}): {bits},", quote(id));
            }
        }
        graph.push_str("    },\n)\n");
    }

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

/// The mask bits of a layer's clip node `node`: the group of the targets its weights leave out
/// (below [`BEVY_MASK_ON_WEIGHT`]); 0 when it leaves none out, or over the whole body with a
/// comment when the 64 groups are taken. Painted weights between 0 and 1 are counted in a comment.
fn layer_mask_bits(
    groups: &mut MaskGroups,
    masks: &BevyMasks,
    layer: &BevyLayerMask,
    node: usize,
    notes: &mut String,
) -> u64 {
    let weight = |n: usize| layer.node_weights.get(n).copied().unwrap_or(0.0);
    let targets = || masks.target_ids.iter().enumerate().filter(|(_, id)| id.is_some()).map(|(n, _)| n);
    let off: Vec<usize> = targets().filter(|&n| weight(n) < BEVY_MASK_ON_WEIGHT).collect();
    let between = targets().filter(|&n| weight(n) > 0.0 && weight(n) < 1.0).count();
    if between > 0 {
        let _ = writeln!(
            notes,
            "// Node {node}: {between} targets painted between 0 and 1, written on at {} and above, off below \
             (a Bevy mask has no weight between).",
            fnum(BEVY_MASK_ON_WEIGHT)
        );
    }
    if off.is_empty() {
        return 0;
    }
    let count = off.len();
    match groups.group_of(off) {
        Some(g) => {
            let _ = writeln!(notes, "// Node {node}: mask group {g}, the {count} targets its layer leaves out.");
            1 << g
        }
        None => {
            let _ = writeln!(
                notes,
                "// Node {node}: no mask group left (Bevy has {BEVY_MASK_GROUPS}); played over the whole body."
            );
            0
        }
    }
}

/// The comment of a layer written over the whole body (no resolved mask): its mask and painted weights.
fn whole_body_note(layer: &super::LayerMotion, node: usize, notes: &mut String) {
    if layer.mask.is_empty() && layer.joint_weights.is_empty() {
        return;
    }
    let mask = if layer.mask.is_empty() { "whole body".to_owned() } else { layer.mask.join("+") };
    let painted: Vec<String> = layer
        .joint_weights
        .iter()
        .map(|p| format!("{}{} {}", p.joint, if p.subtree { " and below" } else { "" }, fnum(p.weight)))
        .collect();
    let painted = if painted.is_empty() { String::new() } else { format!(", painted {}", painted.join(", ")) };
    let _ = writeln!(
        notes,
        "// Node {node}: mask {mask}{painted}; played over the whole body at the layer's weight (not resolved to \
         the model's targets)."
    );
}
