//! Godot 4 export: an `AnimationNodeStateMachine` text resource (`.tres`, `format=3`) as
//! Godot's editor writes it — one `AnimationNodeAnimation` per clip state (named as the
//! glTF importer names the file's animations: the caller passes the names), blend spaces as
//! `AnimationNodeBlendSpace1D/2D`, layered states as an `AnimationNodeBlendTree` (the base clip,
//! then each layer through an `AnimationNodeBlend2` or `AnimationNodeAdd2` filtered to the bones
//! its mask covers: [`export_godot_with_bones`]), transitions as `AnimationNodeStateMachineTransition` with
//! `xfade_time`, `xfade_curve` (the easing sampled into a `Curve`), `switch_mode`,
//! `advance_mode`, `advance_condition` / `advance_expression` and `priority`, and the
//! `transitions = [from, to, SubResource(…), …]` list.
//!
//! What Godot cannot express is written as the nearest equivalent with a `;` comment line
//! (Godot's resource parser skips them), followed by a `; animtune …` line that
//! [`super::import_godot`] (`godot_import.rs`) reads to restore the machine exactly.

use std::fmt::Write as _;

use thiserror::Error;

use super::{
    Condition, Interruption, LayerMotion, ParamKind, StateId, StateMachine, StateMachineError, StateMotion,
    StateTransition, TransitionFrom,
};
use crate::crossfade::TransitionKind;
use crate::interp::Easing;

/// Points the easing is sampled at in a `Curve` (free tangents from the easing's slope).
pub(super) const CURVE_POINTS: usize = 9;

/// A Godot export or import that failed, naming what is wrong.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum GodotError {
    /// The machine does not validate.
    #[error(transparent)]
    Invalid(#[from] StateMachineError),
    /// A state plays a clip with no name in `clip_names`.
    #[error("state \"{state}\" plays clip {clip}, which has no name (clip_names has {count})")]
    MissingClipName {
        /// The state.
        state: String,
        /// The clip's index.
        clip: usize,
        /// Number of names given.
        count: usize,
    },
    /// A name Godot cannot hold as a state, parameter or event name.
    #[error("{what} name \"{name}\" cannot be written to Godot ({reason})")]
    BadName {
        /// `state`, `parameter` or `event`.
        what: &'static str,
        /// The name.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// The text is not what this importer reads.
    #[error("line {line}: {message}")]
    Parse {
        /// 1-based line number (0: the file as a whole).
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Write `machine` as a Godot 4 `AnimationNodeStateMachine` resource; `clip_names[clip]` is
/// the name Godot gives each clip (the glTF animation's name).
///
/// # Errors
/// When the machine does not validate, a clip has no name, or a name holds characters a
/// resource path cannot (`/`, `:`, quotes, `=`, brackets, newlines) or is `Start`/`End`.
pub fn export_godot(machine: &StateMachine, clip_names: &[&str]) -> Result<String, GodotError> {
    export_godot_with_bones(machine, clip_names, &|_, _| None)
}

/// One bone a layer of a layered state covers, as a Godot filter names it.
#[derive(Debug, Clone, PartialEq)]
pub struct GodotBone {
    /// The bone's track path from the `AnimationTree`'s root node, as Godot's glTF importer
    /// makes it ([`godot_bone_paths`]): `Skeleton3D:UpperArm.L`.
    pub path: String,
    /// The layer's mask weight on the bone, 0–1 (its mask and painted weights resolved; the
    /// layer's own weight not included).
    pub weight: f32,
}

/// [`export_godot`] with each layer's mask resolved to bones: `layer_bones(state, layer)` is
/// every skeleton bone with its mask weight for a masked or painted layer, `None` for a layer
/// over the whole body (or when the mask cannot be resolved: the layer is then written
/// unfiltered, with a comment). An override layer is an `AnimationNodeBlend2`, an additive one
/// an `AnimationNodeAdd2`, filtered to the bones whose weight is 0.5 or more (Godot's filters
/// are on or off per track).
///
/// # Errors
/// As [`export_godot`].
pub fn export_godot_with_bones(
    machine: &StateMachine,
    clip_names: &[&str],
    layer_bones: &dyn Fn(StateId, usize) -> Option<Vec<GodotBone>>,
) -> Result<String, GodotError> {
    machine.validate()?;
    check_names(machine)?;
    let clip_name = |state: &str, clip: crate::ClipId| {
        clip_names.get(clip.index()).copied().ok_or_else(|| GodotError::MissingClipName {
            state: state.to_owned(),
            clip: clip.index(),
            count: clip_names.len(),
        })
    };
    let mut body = String::new();
    let mut sub_resources = 0usize;
    let mut notes = String::new();
    // Parameters and events: Godot has neither as such (conditions are the tree's
    // parameters; there are no clip events in a state machine).
    for param in machine.params() {
        let value = match param.kind {
            ParamKind::Float(v) => fnum(v),
            ParamKind::Bool(v) => v.to_string(),
            ParamKind::Trigger => "false".to_owned(),
        };
        let _ =
            writeln!(notes, "; animtune param name={} kind={} value={value}", quote(&param.name), param.kind.name());
    }
    for event in machine.events() {
        let clip = clip_names.get(event.clip.index()).copied().unwrap_or("");
        let _ = writeln!(
            notes,
            "; animtune event clip={} name={} time={}",
            quote(clip),
            quote(&event.name),
            fnum(event.time_secs)
        );
    }
    if !notes.is_empty() {
        body.push_str("; Parameters are the AnimationTree's conditions and expression inputs; clip events are\n");
        body.push_str("; method-track calls in Godot. Both listed for animtune's importer:\n");
        body.push_str(&notes);
        body.push('\n');
    }
    let mut state_nodes = Vec::with_capacity(machine.states().len());
    for (s, state) in machine.states().iter().enumerate() {
        match &state.motion {
            StateMotion::Clip(clip) => {
                let id = format!("AnimationNodeAnimation_s{s}");
                animation_node(&mut body, &id, clip_name(&state.name, *clip)?);
                sub_resources += 1;
                state_nodes.push(id);
            }
            StateMotion::Layered(layered) => {
                let mut names = Vec::with_capacity(layered.layers.len());
                for layer in &layered.layers {
                    names.push(clip_name(&state.name, layer.clip)?);
                }
                let base = clip_name(&state.name, layered.base)?;
                let bones = |layer: usize| layer_bones(StateId::from_len(s), layer);
                sub_resources += blend_tree(&mut body, s, &state.name, base, &layered.layers, &names, &bones);
                state_nodes.push(format!("AnimationNodeBlendTree_s{s}"));
            }
            StateMotion::BlendSpace(space) => {
                let mut points = Vec::with_capacity(space.points.len());
                for (p, point) in space.points.iter().enumerate() {
                    let id = format!("AnimationNodeAnimation_s{s}_{p}");
                    animation_node(&mut body, &id, clip_name(&state.name, point.clip)?);
                    sub_resources += 1;
                    points.push(id);
                }
                let param_name = |p: Option<super::ParamId>| {
                    p.and_then(|p| machine.param(p)).map_or_else(String::new, |p| p.name.clone())
                };
                if space.phase_sync {
                    body.push_str("; Phase sync: Godot plays the clips on one clock, each looped to its length.\n");
                }
                let _ = writeln!(
                    body,
                    "; animtune blend_space state={} name={} x={} y={} phase_sync={}",
                    quote(&state.name),
                    quote(&space.name),
                    quote(&param_name(space.x_param)),
                    quote(&param_name(space.y_param)),
                    space.phase_sync
                );
                let kind = if space.two_d { "AnimationNodeBlendSpace2D" } else { "AnimationNodeBlendSpace1D" };
                let id = format!("{kind}_s{s}");
                let _ = writeln!(body, "[sub_resource type=\"{kind}\" id=\"{id}\"]");
                // animtune plays every clip of a blend space all the time (in phase, or on the clock
                // with phase sync off); Godot's default (`sync = false`) stops a clip while its
                // weight is 0, so it comes back out of step.
                body.push_str("sync = true\n");
                let (mut lo, mut hi) = (space.points[0].position, space.points[0].position);
                for (p, (point, node)) in space.points.iter().zip(&points).enumerate() {
                    lo = lo.min(point.position);
                    hi = hi.max(point.position);
                    let _ = writeln!(body, "blend_point_{p}/node = SubResource(\"{node}\")");
                    if space.two_d {
                        let _ = writeln!(body, "blend_point_{p}/pos = {}", vector2(point.position.x, point.position.y));
                    } else {
                        let _ = writeln!(body, "blend_point_{p}/pos = {}", fnum(point.position.x));
                    }
                }
                // Godot's default space is −1…1; widen it to hold every point.
                let (lo, hi) = (lo.min(glam::Vec2::splat(-1.0)), hi.max(glam::Vec2::splat(1.0)));
                if space.two_d {
                    let _ =
                        writeln!(body, "min_space = {}\nmax_space = {}\n", vector2(lo.x, lo.y), vector2(hi.x, hi.y));
                } else {
                    let _ = writeln!(body, "min_space = {}\nmax_space = {}\n", fnum(lo.x), fnum(hi.x));
                }
                sub_resources += 1;
                state_nodes.push(id);
            }
        }
    }
    let mut list = Vec::new();
    let entry = machine.state(machine.entry()).map_or("", |s| s.name.as_str());
    body.push_str("[sub_resource type=\"AnimationNodeStateMachineTransition\" id=\"AnimationNodeStateMachineTransition_start\"]\nadvance_mode = 2\n\n");
    sub_resources += 1;
    list.push(format!("\"Start\", {}, SubResource(\"AnimationNodeStateMachineTransition_start\")", quote(entry)));
    let entries = pair_entries(machine);
    for (t, transition) in machine.transitions().iter().enumerate() {
        sub_resources += transition_resource(&mut body, machine, t, transition, &entries);
    }
    for entry in entries.iter().filter(|e| e.kept) {
        let reference = format!("SubResource(\"AnimationNodeStateMachineTransition_t{}\")", entry.transition);
        list.push(format!("{}, {}, {reference}", quote(entry.from), quote(entry.to)));
    }
    let mut out = String::new();
    let _ =
        writeln!(out, "[gd_resource type=\"AnimationNodeStateMachine\" load_steps={} format=3]\n", sub_resources + 1);
    out.push_str(&body);
    out.push_str("[resource]\n");
    for (state, node) in machine.states().iter().zip(&state_nodes) {
        let _ = writeln!(out, "states/{}/node = SubResource(\"{node}\")", state.name);
        let _ = writeln!(out, "states/{}/position = {}", state.name, vector2(state.position.x, state.position.y));
    }
    let _ = writeln!(out, "transitions = [{}]", list.join(", "));
    Ok(out)
}

/// One `from, to` pair a transition puts in Godot's `transitions` list (an any-state transition
/// one per other state).
struct PairEntry<'a> {
    from: &'a str,
    to: &'a str,
    transition: usize,
    /// False when another transition has the same pair and wins it: Godot holds one transition
    /// per pair (a second is refused with an error), so the pair goes to the one animtune's
    /// runtime prefers — the lower priority, then the earlier in the list.
    kept: bool,
}

/// Every transition's pairs, in the machine's order, each marked kept or not.
fn pair_entries(machine: &StateMachine) -> Vec<PairEntry<'_>> {
    let name = |id| machine.state(id).map_or("", |s: &super::State| s.name.as_str());
    let mut entries = Vec::new();
    for (t, transition) in machine.transitions().iter().enumerate() {
        let to = name(transition.to);
        match transition.from {
            TransitionFrom::State(from) => entries.push(PairEntry { from: name(from), to, transition: t, kept: true }),
            TransitionFrom::Any => {
                for state in machine.states().iter().filter(|s| s.name != to) {
                    entries.push(PairEntry { from: &state.name, to, transition: t, kept: true });
                }
            }
        }
    }
    let rank = |t: usize| (machine.transitions()[t].priority, t);
    for i in 0..entries.len() {
        let rival = entries.iter().any(|e| {
            e.from == entries[i].from && e.to == entries[i].to && rank(e.transition) < rank(entries[i].transition)
        });
        entries[i].kept = !rival;
    }
    entries
}

/// Weight at or above which a bone is in a layer's Godot filter: the nearest of on and off to a
/// painted weight between 0 and 1.
pub const FILTER_THRESHOLD: f32 = 0.5;

/// Write layered state `s` as an `AnimationNodeBlendTree` (its nodes first): `base` plays the
/// base clip; layer `n` (1-based) is `layerN` playing its clip into `mixN`, a `Blend2` (override)
/// or `Add2` (additive) whose input 0 is the previous mix (or `base`) and input 1 `layerN`,
/// filtered to the layer's bones; the last mix goes to `output`. Returns the sub-resources written.
fn blend_tree(
    out: &mut String,
    s: usize,
    state: &str,
    base: &str,
    layers: &[LayerMotion],
    clip_names: &[&str],
    layer_bones: &dyn Fn(usize) -> Option<Vec<GodotBone>>,
) -> usize {
    out.push_str("; Layered state: a BlendTree. `base` plays the base clip; each layer's clip goes over it in\n");
    out.push_str("; order through a Blend2 (override) or an Add2 (additive), filtered to the bones its mask covers.\n");
    out.push_str("; A layer's weight is its mix node's blend_amount, a parameter of the AnimationTree (0 until\n");
    out.push_str("; set): set parameters/STATE/mixN/blend_amount to the node's metadata/blend_amount.\n");
    let mut layer_text = String::new();
    for (layer, name) in layers.iter().zip(clip_names) {
        let _ = write!(
            layer_text,
            "{}{name}:{}:{}",
            if layer_text.is_empty() { "" } else { "|" },
            fnum(layer.weight),
            if layer.additive { "add" } else { "override" }
        );
    }
    let _ = writeln!(out, "; animtune layered state={} layers={}", quote(state), quote(&layer_text));
    for (l, layer) in layers.iter().enumerate() {
        for joint in &layer.mask {
            let _ = writeln!(out, "; animtune layer_mask state={} layer={l} joint={}", quote(state), quote(joint));
        }
        for painted in &layer.joint_weights {
            let _ = writeln!(
                out,
                "; animtune layer_paint state={} layer={l} joint={} weight={} subtree={}",
                quote(state),
                quote(&painted.joint),
                fnum(painted.weight),
                painted.subtree
            );
        }
    }
    let mut count = 0;
    animation_node(out, &format!("AnimationNodeAnimation_s{s}"), base);
    count += 1;
    for (l, (layer, name)) in layers.iter().zip(clip_names).enumerate() {
        let n = l + 1;
        animation_node(out, &format!("AnimationNodeAnimation_s{s}_{n}"), name);
        let masked = !layer.mask.is_empty() || !layer.joint_weights.is_empty();
        let bones = if masked { layer_bones(l) } else { None };
        if masked && bones.is_none() {
            let _ = writeln!(out, "; Layer {n}: its mask was not resolved to bones; over the whole body here.");
        }
        if layer.additive {
            let _ = writeln!(
                out,
                "; Layer {n}: Godot's Add2 adds the clip's difference from the bones' rest pose; animtune adds its\n\
                 ; difference from the clip's first frame (the same when the clip starts at the rest pose)."
            );
        }
        if let Some(bones) = &bones {
            let partial: Vec<String> = bones
                .iter()
                .filter(|b| b.weight > 0.0 && b.weight < 1.0)
                .map(|b| {
                    let side = if b.weight >= FILTER_THRESHOLD { "in" } else { "out" };
                    format!("{} {} ({side})", b.path, fnum(b.weight))
                })
                .collect();
            if !partial.is_empty() {
                let _ = writeln!(
                    out,
                    "; Layer {n}: Godot's filters are on or off per bone: a weight of 0.5 or more is in the filter,\n\
                     ; under 0.5 out. Weights between 0 and 1: {}.",
                    partial.join(", ")
                );
            }
        }
        let kind = if layer.additive { "AnimationNodeAdd2" } else { "AnimationNodeBlend2" };
        let _ = writeln!(out, "[sub_resource type=\"{kind}\" id=\"{kind}_s{s}_{n}\"]");
        if let Some(bones) = &bones {
            let filters: Vec<String> = bones
                .iter()
                .filter(|b| b.weight >= FILTER_THRESHOLD)
                .map(|b| format!("NodePath({})", quote(&b.path)))
                .collect();
            let _ = writeln!(out, "filter_enabled = true\nfilters = [{}]", filters.join(", "));
        }
        let _ = writeln!(out, "metadata/blend_amount = {}\n", fnum(layer.weight));
        count += 2;
    }
    let _ = writeln!(out, "[sub_resource type=\"AnimationNodeBlendTree\" id=\"AnimationNodeBlendTree_s{s}\"]");
    let _ = writeln!(out, "nodes/base/node = SubResource(\"AnimationNodeAnimation_s{s}\")");
    let _ = writeln!(out, "nodes/base/position = {}", vector2(0.0, 0.0));
    let mut connections = Vec::with_capacity(layers.len() + 1);
    let mut previous = "base".to_owned();
    for (l, layer) in layers.iter().enumerate() {
        let n = l + 1;
        let kind = if layer.additive { "AnimationNodeAdd2" } else { "AnimationNodeBlend2" };
        let x = 200.0 * n as f32;
        let _ = writeln!(out, "nodes/layer{n}/node = SubResource(\"AnimationNodeAnimation_s{s}_{n}\")");
        let _ = writeln!(out, "nodes/layer{n}/position = {}", vector2(x, 160.0));
        let _ = writeln!(out, "nodes/mix{n}/node = SubResource(\"{kind}_s{s}_{n}\")");
        let _ = writeln!(out, "nodes/mix{n}/position = {}", vector2(x + 100.0, 0.0));
        connections.push(format!("&\"mix{n}\", 0, &\"{previous}\", &\"mix{n}\", 1, &\"layer{n}\""));
        previous = format!("mix{n}");
    }
    let _ = writeln!(out, "nodes/output/position = {}", vector2(200.0 * layers.len() as f32 + 300.0, 0.0));
    connections.push(format!("&\"output\", 0, &\"{previous}\""));
    let _ = writeln!(out, "node_connections = [{}]\n", connections.join(", "));
    count + 1
}

/// Each node's track path as Godot's glTF importer names it from the `AnimationTree`'s root
/// node, by node index: `Some("Skeleton3D:Bone")` for a skin's joint (the non-joint nodes above
/// the skeleton's root joint, then the `Skeleton3D` node Godot makes there, then the bone, with
/// `:` and `/` in a bone name made `_` as Godot does), `None` for other nodes. Every skin's
/// joints are taken as one skeleton named `Skeleton3D` (Godot numbers a second one
/// `Skeleton3D2`).
pub fn godot_bone_paths(model: &crate::Model) -> Vec<Option<String>> {
    let count = model.nodes().len();
    let mut joint = vec![false; count];
    for skin in model.skins() {
        for j in &skin.joints {
            if let Some(flag) = joint.get_mut(j.index()) {
                *flag = true;
            }
        }
    }
    let is_joint = |n: crate::NodeId| joint.get(n.index()).copied().unwrap_or(false);
    let sanitize = |name: String, bad: &[char]| -> String {
        name.chars().map(|c| if bad.contains(&c) { '_' } else { c }).collect()
    };
    let mut paths = vec![None; count];
    for node in model.node_ids().filter(|n| is_joint(*n)) {
        // Up to the skeleton's root joint, then the non-joint nodes above it.
        let mut root = node;
        while let Some(parent) = model.hierarchy.parent(root).filter(|p| is_joint(*p)) {
            root = parent;
        }
        let mut above = Vec::new();
        let mut up = model.hierarchy.parent(root);
        while let Some(parent) = up {
            above.push(sanitize(model.node_name(parent), &['.', ':', '@', '/', '"', '%']));
            up = model.hierarchy.parent(parent);
        }
        above.reverse();
        above.push("Skeleton3D".to_owned());
        let bone = sanitize(model.node_name(node), &[':', '/']);
        paths[node.index()] = Some(format!("{}:{bone}", above.join("/")));
    }
    paths
}

fn animation_node(out: &mut String, id: &str, clip: &str) {
    let _ = writeln!(out, "[sub_resource type=\"AnimationNodeAnimation\" id=\"{id}\"]\nanimation = &{}\n", quote(clip));
}

/// Write transition `t`'s `Curve` (when not linear) and its transition sub-resource, noting the
/// pairs (of `entries`) another transition wins; returns the number of sub-resources written.
fn transition_resource(
    out: &mut String,
    machine: &StateMachine,
    t: usize,
    transition: &StateTransition,
    entries: &[PairEntry<'_>],
) -> usize {
    let mut count = 1;
    if transition.easing != Easing::Linear {
        let _ = writeln!(out, "[sub_resource type=\"Curve\" id=\"Curve_t{t}\"]");
        let _ = writeln!(out, "_data = [{}]\npoint_count = {CURVE_POINTS}\n", curve_data(transition.easing));
        count += 1;
    }
    let name = machine.transition_name(transition);
    match transition.kind {
        TransitionKind::CrossFade => {}
        TransitionKind::Inertialize => {
            let _ = writeln!(out, "; {name}: Godot has no inertialization; a cross-fade of the same length.");
        }
        TransitionKind::DeadBlend => {
            let _ = writeln!(out, "; {name}: Godot has no dead blending; a cross-fade of the same length.");
        }
    }
    if transition.interruption != Interruption::None {
        let _ = writeln!(out, "; {name}: Godot lets the new state's transitions cut a fade (not the source's).");
    }
    if transition.sync && transition.at_end {
        let _ = writeln!(out, "; {name}: at end wins over sync in Godot's switch mode.");
    }
    if matches!(transition.from, TransitionFrom::Any) {
        let _ = writeln!(out, "; {name}: Godot has no any-state; one entry per state in `transitions`.");
    }
    for lost in entries.iter().filter(|e| e.transition == t && !e.kept) {
        let winner = entries.iter().find(|e| e.kept && e.from == lost.from && e.to == lost.to);
        let winner = winner.map_or_else(String::new, |w| machine.transition_name(&machine.transitions()[w.transition]));
        let _ = writeln!(
            out,
            "; {name}: Godot holds one transition per pair of states; {} -> {} is {winner}'s there.",
            lost.from, lost.to
        );
    }
    // `from` and `to` let the importer restore a transition that lost every pair it had.
    let from = match transition.from {
        TransitionFrom::State(s) => machine.state(s).map_or("", |s| s.name.as_str()),
        TransitionFrom::Any => "",
    };
    let to = machine.state(transition.to).map_or("", |s| s.name.as_str());
    let _ = writeln!(
        out,
        "; animtune transition index={t} from={} to={} from_any={} kind={} decay={} half_life={} sync={} interruption={}",
        quote(from),
        quote(to),
        matches!(transition.from, TransitionFrom::Any),
        transition.kind.name(),
        transition.decay.name(),
        fnum(transition.half_life_secs),
        transition.sync,
        transition.interruption.name()
    );
    let _ = writeln!(
        out,
        "[sub_resource type=\"AnimationNodeStateMachineTransition\" id=\"AnimationNodeStateMachineTransition_t{t}\"]"
    );
    let _ = writeln!(out, "xfade_time = {}", fnum(transition.duration_secs));
    if transition.easing != Easing::Linear {
        let _ = writeln!(out, "xfade_curve = SubResource(\"Curve_t{t}\")");
    }
    let switch_mode = if transition.at_end {
        2
    } else if transition.sync {
        1
    } else {
        0
    };
    let _ = writeln!(out, "switch_mode = {switch_mode}");
    let _ = writeln!(out, "advance_mode = {}", if transition.is_automatic() { 2 } else { 1 });
    match single_condition(machine, &transition.conditions) {
        Some(name) => {
            let _ = writeln!(out, "advance_condition = &{}", quote(name));
        }
        None if !transition.conditions.is_empty() => {
            let _ = writeln!(out, "advance_expression = {}", quote(&expression(machine, &transition.conditions)));
        }
        None => {}
    }
    let _ = writeln!(out, "priority = {}\n", transition.priority);
    count
}

/// The parameter name when the conditions are one bool-is-true or one trigger (Godot's
/// `advance_condition`).
fn single_condition<'a>(machine: &'a StateMachine, conditions: &[Condition]) -> Option<&'a str> {
    match conditions {
        [Condition::Bool { param, value: true } | Condition::Trigger(param)] => {
            machine.param(*param).map(|p| p.name.as_str())
        }
        _ => None,
    }
}

/// The conditions as a Godot expression: `speed > 0.1 and grounded and not crouched and
/// event_plant` (an event is `event_NAME`, a property the game sets when the marker fires).
pub(super) fn expression(machine: &StateMachine, conditions: &[Condition]) -> String {
    let param = |p: super::ParamId| machine.param(p).map_or("", |p| p.name.as_str());
    let terms: Vec<String> = conditions
        .iter()
        .map(|c| match *c {
            Condition::Float { param: p, compare, value } => {
                format!("{} {} {}", param(p), compare.symbol(), fnum(value))
            }
            Condition::Bool { param: p, value: true } | Condition::Trigger(p) => param(p).to_owned(),
            Condition::Bool { param: p, value: false } => format!("not {}", param(p)),
            Condition::Event(e) => format!("event_{}", machine.event(e).map_or("", |e| e.name.as_str())),
        })
        .collect();
    terms.join(" and ")
}

/// The easing sampled at `CURVE_POINTS` evenly spaced points, each with its slope as both
/// tangents (free mode): `Vector2(x, y), left, right, 0, 0, …`.
fn curve_data(easing: Easing) -> String {
    let mut parts = Vec::with_capacity(CURVE_POINTS);
    for i in 0..CURVE_POINTS {
        let x = i as f32 / (CURVE_POINTS - 1) as f32;
        // `+ 0.0` turns −0 into 0.
        let slope = (slope(easing, x) * 1000.0).round() / 1000.0 + 0.0;
        parts.push(format!("{}, {}, {}, 0, 0", vector2(x, easing.apply(x)), fnum(slope), fnum(slope)));
    }
    parts.join(", ")
}

/// The easing's slope at `x`: central differences inside, second-order one-sided ones at the
/// ends (so a curve that starts or ends flat gets 0, not the secant's small slope).
fn slope(easing: Easing, x: f32) -> f32 {
    let h = 1.0 / 256.0;
    let e = |u: f32| easing.apply(u);
    if x <= 0.0 {
        (-3.0 * e(0.0) + 4.0 * e(h) - e(2.0 * h)) / (2.0 * h)
    } else if x >= 1.0 {
        (3.0 * e(1.0) - 4.0 * e(1.0 - h) + e(1.0 - 2.0 * h)) / (2.0 * h)
    } else {
        (e(x + h) - e(x - h)) / (2.0 * h)
    }
}

/// Names Godot's paths and quoted strings can hold.
fn check_names(machine: &StateMachine) -> Result<(), GodotError> {
    let check = |what: &'static str, name: &str| {
        let bad = |reason| Err(GodotError::BadName { what, name: name.to_owned(), reason });
        if name.chars().any(|c| matches!(c, '/' | ':' | '"' | '\\' | '=' | '[' | ']' | ',' | '\n' | '\r')) {
            return bad("no / : \" \\ = [ ] , or line breaks");
        }
        if what == "state" && (name == "Start" || name == "End") {
            return bad("Start and End are Godot's own states");
        }
        let identifier = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && !matches!(name, "and" | "or" | "not" | "true" | "false" | "Start" | "End");
        if what != "state" && !identifier {
            return bad("an expression identifier: ASCII letters, digits and _, not a keyword");
        }
        Ok(())
    };
    for state in machine.states() {
        check("state", &state.name)?;
    }
    for param in machine.params() {
        check("parameter", &param.name)?;
    }
    for event in machine.events() {
        check("event", &event.name)?;
    }
    Ok(())
}

/// A float as Godot writes it: shortest round-trip digits, `.0` on whole numbers.
pub(super) fn fnum(x: f32) -> String {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e9 { format!("{x:.1}") } else { format!("{x}") }
}

fn vector2(x: f32, y: f32) -> String {
    format!("Vector2({}, {})", fnum(x), fnum(y))
}

/// A quoted string with `"` and `\` escaped.
pub(super) fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}
