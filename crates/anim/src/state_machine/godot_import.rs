//! Godot 4 import: reads an `AnimationNodeStateMachine` `.tres` back into a [`StateMachine`] —
//! what [`super::export_godot`] writes exactly (its `; animtune …` lines restore what Godot
//! cannot hold), and a file Godot re-saved (comments gone) up to what Godot expresses:
//! clip and blend-space states, cross-fades with their curve's nearest easing, switch and
//! advance modes, conditions and expressions (parameters inferred from them), priorities.

use glam::Vec2;

use super::godot::{CURVE_POINTS, GodotError};
use super::{
    BlendSpaceMotion, BlendSpacePoint, Compare, Condition, Interruption, LayerMotion, LayeredMotion, PaintedJoint,
    ParamId, ParamKind, State, StateId, StateMachine, StateMotion, StateTransition, TransitionFrom,
};
use crate::crossfade::TransitionKind;
use crate::ids::ClipId;
use crate::interp::{Easing, OffsetDecay};

/// A `; animtune KIND key=value …` line.
#[derive(Debug, Default)]
struct Meta {
    kind: String,
    values: Vec<(String, String)>,
}

impl Meta {
    fn get(&self, key: &str) -> Option<&str> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// A `[…]` section: its type (`resource` for `[resource]`), id, properties and the metadata
/// lines just before it.
#[derive(Debug, Default)]
struct Section {
    kind: String,
    id: String,
    props: Vec<(String, String)>,
    metas: Vec<Meta>,
}

impl Section {
    fn get(&self, key: &str) -> Option<&str> {
        self.props.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

fn parse_error(line: usize, message: impl Into<String>) -> GodotError {
    GodotError::Parse { line, message: message.into() }
}

/// Read a Godot 4 `AnimationNodeStateMachine` resource; `clip_names[clip]` names each clip as
/// the file's `animation = &"…"` lines do.
///
/// # Errors
/// When the text is not such a resource, names a clip not in `clip_names`, a sub-resource or
/// state that is not there, or the machine read does not validate.
pub fn import_godot(text: &str, clip_names: &[&str]) -> Result<StateMachine, GodotError> {
    let (header, sections, file_metas) = parse_sections(text)?;
    if attribute(&header, "type").as_deref() != Some("AnimationNodeStateMachine") {
        return Err(parse_error(1, "not an AnimationNodeStateMachine resource"));
    }
    let find = |id: &str| sections.iter().find(|s| s.id == id);
    let clip = |name: &str| {
        clip_names
            .iter()
            .position(|n| *n == name)
            .map(ClipId::from_index)
            .ok_or_else(|| parse_error(0, format!("animation \"{name}\" is not one of the model's clips")))
    };
    let node_clip = |id: &str| -> Result<ClipId, GodotError> {
        let section = find(id).ok_or_else(|| parse_error(0, format!("no sub-resource \"{id}\"")))?;
        let name = section
            .get("animation")
            .and_then(string)
            .ok_or_else(|| parse_error(0, format!("\"{id}\" has no animation")))?;
        clip(&name)
    };
    let mut machine = StateMachine::new();
    let metas = file_metas.iter().chain(sections.iter().flat_map(|s| &s.metas));
    for meta in metas.clone().filter(|m| m.kind == "param") {
        let name = meta.get("name").unwrap_or_default();
        let value = meta.get("value").unwrap_or_default();
        let kind = match meta.get("kind") {
            Some("float") => ParamKind::Float(value.parse().unwrap_or(0.0)),
            Some("bool") => ParamKind::Bool(value == "true"),
            _ => ParamKind::Trigger,
        };
        machine.add_param(name, kind);
    }
    for meta in metas.clone().filter(|m| m.kind == "event") {
        let time = meta.get("time").and_then(|t| t.parse().ok()).unwrap_or(f32::NAN);
        machine.add_event(clip(meta.get("clip").unwrap_or_default())?, meta.get("name").unwrap_or_default(), time);
    }
    let Some(resource) = sections.iter().find(|s| s.kind == "resource") else {
        return Err(parse_error(0, "no [resource] section"));
    };
    // States, in the order of their `states/NAME/node` lines.
    for (key, value) in &resource.props {
        let Some(name) = key.strip_prefix("states/").and_then(|k| k.strip_suffix("/node")) else { continue };
        let id = sub_resource(value).ok_or_else(|| parse_error(0, format!("{key} is not a SubResource")))?;
        let section = find(&id).ok_or_else(|| parse_error(0, format!("no sub-resource \"{id}\"")))?;
        let position = resource.get(&format!("states/{name}/position")).and_then(vector2).unwrap_or(Vec2::ZERO);
        let motion = match section.kind.as_str() {
            "AnimationNodeAnimation" => StateMotion::Clip(node_clip(&id)?),
            "AnimationNodeBlendTree" => {
                let node =
                    |key: &str| section.get(&format!("nodes/{key}/node")).and_then(sub_resource).and_then(|n| find(&n));
                let base = node("base").ok_or_else(|| parse_error(0, format!("state \"{name}\": no base node")))?;
                let base = node_clip(&base.id)?;
                let layers = match metas.clone().find(|m| m.kind == "layered" && m.get("state") == Some(name)) {
                    Some(meta) => {
                        let mut layers = layers(meta, &clip)?;
                        layer_masks(&mut layers, metas.clone().filter(|m| m.get("state") == Some(name)));
                        layers
                    }
                    // A file Godot re-saved: the chain of mix nodes.
                    None => {
                        let mut layers = Vec::new();
                        while let (Some(mix), Some(layer)) =
                            (node(&format!("mix{}", layers.len() + 1)), node(&format!("layer{}", layers.len() + 1)))
                        {
                            layers.push(godot_layer(mix, node_clip(&layer.id)?));
                        }
                        layers
                    }
                };
                StateMotion::Layered(LayeredMotion { base, layers })
            }
            kind @ ("AnimationNodeBlendSpace1D" | "AnimationNodeBlendSpace2D") => {
                let two_d = kind.ends_with("2D");
                let mut points = Vec::new();
                while let Some(node) = section.get(&format!("blend_point_{}/node", points.len())) {
                    let pos = section.get(&format!("blend_point_{}/pos", points.len())).unwrap_or("0");
                    let position = if two_d { vector2(pos) } else { pos.parse().ok().map(|x| Vec2::new(x, 0.0)) };
                    let position = position.ok_or_else(|| parse_error(0, format!("\"{id}\": bad position {pos}")))?;
                    let node =
                        sub_resource(node).ok_or_else(|| parse_error(0, format!("\"{id}\": bad node {node}")))?;
                    points.push(BlendSpacePoint { clip: node_clip(&node)?, position });
                }
                let meta = section.metas.iter().find(|m| m.kind == "blend_space");
                let param = |axis: &str| meta.and_then(|m| m.get(axis)).and_then(|n| machine.find_param(n));
                StateMotion::BlendSpace(BlendSpaceMotion {
                    name: meta.and_then(|m| m.get("name")).unwrap_or(name).to_owned(),
                    two_d,
                    points,
                    x_param: param("x"),
                    y_param: param("y"),
                    // Phase sync unless animtune's comment says otherwise (Godot has none).
                    phase_sync: meta.and_then(|m| m.get("phase_sync")) != Some("false"),
                })
            }
            other => return Err(parse_error(0, format!("state \"{name}\" is a {other}, which is not read"))),
        };
        machine.add_state(State { name: name.to_owned(), motion, position });
    }
    let list = resource.get("transitions").ok_or_else(|| parse_error(0, "no transitions list"))?;
    let items = split_list(list).ok_or_else(|| parse_error(0, "the transitions list is not an array"))?;
    let mut collapsed: Vec<String> = Vec::new();
    // (order, transition): animtune's index where its comment gives one (a pair a transition lost
    // to another moves its first entry in the list), else after those, in list order.
    let mut read: Vec<(usize, StateTransition)> = Vec::new();
    let mut listed: Vec<String> = Vec::new();
    for triple in items.chunks(3) {
        let [from, to, reference] = triple else { return Err(parse_error(0, "transitions: not a multiple of 3")) };
        let (Some(from), Some(to), Some(id)) = (string(from), string(to), sub_resource(reference)) else {
            return Err(parse_error(0, format!("transitions: bad entry {from}, {to}, {reference}")));
        };
        let to_state =
            machine.find_state(&to).ok_or_else(|| parse_error(0, format!("transition to unknown state \"{to}\"")))?;
        if from == "Start" {
            machine.set_entry(to_state);
            continue;
        }
        if to == "End" || collapsed.contains(&id) {
            continue;
        }
        listed.push(id.clone());
        let section = find(&id).ok_or_else(|| parse_error(0, format!("no sub-resource \"{id}\"")))?;
        let meta = section.metas.iter().find(|m| m.kind == "transition");
        let from = if meta.and_then(|m| m.get("from_any")) == Some("true") {
            collapsed.push(id.clone());
            TransitionFrom::Any
        } else {
            let state = machine
                .find_state(&from)
                .ok_or_else(|| parse_error(0, format!("transition from unknown state \"{from}\"")))?;
            TransitionFrom::State(state)
        };
        let transition = read_transition(&mut machine, section, meta, from, to_state, &find)?;
        read.push((order(meta, read.len()), transition));
    }
    // Transitions in no entry of the list (each of their pairs went to another transition): from
    // and to are in animtune's comment.
    for section in
        sections.iter().filter(|s| s.kind == "AnimationNodeStateMachineTransition" && !listed.contains(&s.id))
    {
        let Some(meta) = section.metas.iter().find(|m| m.kind == "transition") else { continue };
        let state = |key: &str| meta.get(key).and_then(|n| machine.find_state(n));
        let Some(to) = state("to") else { continue };
        let from = match (meta.get("from_any"), state("from")) {
            (Some("true"), _) => TransitionFrom::Any,
            (_, Some(from)) => TransitionFrom::State(from),
            _ => continue,
        };
        let transition = read_transition(&mut machine, section, Some(meta), from, to, &find)?;
        read.push((order(Some(meta), read.len()), transition));
    }
    read.sort_by_key(|(order, _)| *order);
    for (_, transition) in read {
        machine.add_transition(transition);
    }
    machine.validate()?;
    Ok(machine)
}

/// Where a transition goes in the machine: animtune's `index`, else after every indexed one.
fn order(meta: Option<&Meta>, position: usize) -> usize {
    meta.and_then(|m| m.get("index")).and_then(|i| i.parse().ok()).unwrap_or(usize::MAX / 2 + position)
}

fn read_transition<'a>(
    machine: &mut StateMachine,
    section: &Section,
    meta: Option<&Meta>,
    from: TransitionFrom,
    to: StateId,
    find: &impl Fn(&str) -> Option<&'a Section>,
) -> Result<StateTransition, GodotError> {
    let number = |key: &str, default: f32| section.get(key).and_then(|v| v.parse::<f32>().ok()).unwrap_or(default);
    let mut t = StateTransition::new(from, to, number("xfade_time", 0.0));
    t.priority = section.get("priority").and_then(|v| v.parse().ok()).unwrap_or(1);
    let switch_mode = section.get("switch_mode").unwrap_or("0");
    t.at_end = switch_mode == "2";
    t.sync = switch_mode == "1";
    if let Some(curve) = section.get("xfade_curve").and_then(sub_resource).and_then(|id| find(&id)) {
        t.easing = nearest_easing(curve.get("_data").unwrap_or("[]"));
    }
    if let Some(name) = section.get("advance_condition").and_then(string).filter(|n| !n.is_empty()) {
        t.conditions.push(name_condition(machine, &name, from));
    }
    if let Some(expression) = section.get("advance_expression").and_then(string) {
        for term in expression.split(" and ").map(str::trim).filter(|t| !t.is_empty()) {
            t.conditions.push(term_condition(machine, term, from)?);
        }
    }
    if let Some(meta) = meta {
        t.kind = meta.get("kind").and_then(|k| k.parse().ok()).unwrap_or(TransitionKind::CrossFade);
        t.decay = meta.get("decay").and_then(|k| k.parse().ok()).unwrap_or(OffsetDecay::Quintic);
        t.half_life_secs = meta.get("half_life").and_then(|k| k.parse().ok()).unwrap_or(t.half_life_secs);
        t.sync = meta.get("sync") == Some("true");
        let rule = meta.get("interruption").unwrap_or("none");
        t.interruption = Interruption::ALL.into_iter().find(|r| r.name() == rule).unwrap_or_default();
    }
    Ok(t)
}

/// A bare name: a trigger or bool parameter (a new bool when unknown), or `event_NAME`.
fn name_condition(machine: &mut StateMachine, name: &str, from: TransitionFrom) -> Condition {
    if let Some(event) = name.strip_prefix("event_").and_then(|e| find_event(machine, e, from)) {
        return Condition::Event(event);
    }
    let param = param_or_new(machine, name, ParamKind::Bool(false));
    match machine.param(param).map(|p| p.kind) {
        Some(ParamKind::Trigger) => Condition::Trigger(param),
        _ => Condition::Bool { param, value: true },
    }
}

fn term_condition(machine: &mut StateMachine, term: &str, from: TransitionFrom) -> Result<Condition, GodotError> {
    let words: Vec<&str> = term.split_whitespace().collect();
    match words.as_slice() {
        ["not", name] => {
            Ok(Condition::Bool { param: param_or_new(machine, name, ParamKind::Bool(true)), value: false })
        }
        [name, op, value] => {
            let compare = Compare::ALL.into_iter().find(|c| c.symbol() == *op);
            let (Some(compare), Ok(value)) = (compare, value.parse::<f32>()) else {
                return Err(parse_error(0, format!("advance_expression term \"{term}\" is not read")));
            };
            Ok(Condition::Float { param: param_or_new(machine, name, ParamKind::Float(0.0)), compare, value })
        }
        [name] => Ok(name_condition(machine, name, from)),
        _ => Err(parse_error(0, format!("advance_expression term \"{term}\" is not read"))),
    }
}

fn find_event(machine: &StateMachine, name: &str, from: TransitionFrom) -> Option<super::EventId> {
    let clip = match from {
        TransitionFrom::State(s) => machine.state(s).and_then(|s| s.motion.primary_clip()),
        TransitionFrom::Any => None,
    };
    match clip {
        Some(clip) => machine.find_event(clip, name),
        None => machine.events().iter().position(|e| e.name == name).map(super::EventId::from_len),
    }
}

fn param_or_new(machine: &mut StateMachine, name: &str, kind: ParamKind) -> ParamId {
    machine.find_param(name).unwrap_or_else(|| machine.add_param(name, kind))
}

fn layers(meta: &Meta, clip: &impl Fn(&str) -> Result<ClipId, GodotError>) -> Result<Vec<LayerMotion>, GodotError> {
    let mut out = Vec::new();
    for layer in meta.get("layers").unwrap_or_default().split('|').filter(|l| !l.is_empty()) {
        let mut parts = layer.rsplitn(3, ':');
        let (Some(mode), Some(weight), Some(name)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(parse_error(0, format!("bad layer \"{layer}\"")));
        };
        let weight = weight.parse().map_err(|_| parse_error(0, format!("bad layer weight \"{weight}\"")))?;
        out.push(LayerMotion { additive: mode == "add", ..LayerMotion::new(clip(name)?, weight) });
    }
    Ok(out)
}

/// A layer's mask joints and painted weights from its `; animtune layer_mask` and `layer_paint`
/// lines (`metas`: the state's lines).
fn layer_masks<'a>(layers: &mut [LayerMotion], metas: impl Iterator<Item = &'a Meta>) {
    for meta in metas {
        let index = meta.get("layer").and_then(|l| l.parse::<usize>().ok());
        let Some(layer) = index.and_then(|l| layers.get_mut(l)) else { continue };
        let joint = meta.get("joint").unwrap_or_default().to_owned();
        match meta.kind.as_str() {
            "layer_mask" => layer.mask.push(joint),
            "layer_paint" => layer.joint_weights.push(PaintedJoint {
                joint,
                weight: meta.get("weight").and_then(|w| w.parse().ok()).unwrap_or(1.0),
                subtree: meta.get("subtree") == Some("true"),
            }),
            _ => {}
        }
    }
}

/// A layer as Godot holds it (no animtune comments): additive for an `Add2`, its weight the
/// node's `metadata/blend_amount` (1 without), its mask the filtered bones' names (each with its
/// subtree, as animtune's masks name joints).
fn godot_layer(mix: &Section, clip: ClipId) -> LayerMotion {
    let weight = mix.get("metadata/blend_amount").and_then(|w| w.parse().ok()).unwrap_or(1.0);
    let mut layer = LayerMotion { additive: mix.kind == "AnimationNodeAdd2", ..LayerMotion::new(clip, weight) };
    if mix.get("filter_enabled") == Some("true") {
        let filters = mix.get("filters").and_then(split_list).unwrap_or_default();
        layer.mask = filters
            .iter()
            .filter_map(|f| string(f.strip_prefix("NodePath(")?.strip_suffix(')')?))
            .filter_map(|path| path.rsplit_once(':').map(|(_, bone)| bone.to_owned()))
            .collect();
    }
    layer
}

/// The easing whose curve is nearest the `Curve`'s points (largest difference).
fn nearest_easing(data: &str) -> Easing {
    let items = split_list(data).unwrap_or_default();
    let points: Vec<Vec2> = items.chunks(5).filter_map(|p| vector2(p.first()?)).collect();
    if points.len() < 2 || points.len() > 4 * CURVE_POINTS {
        return Easing::Linear;
    }
    let error = |e: Easing| points.iter().map(|p| (e.apply(p.x) - p.y).abs()).fold(0.0f32, f32::max);
    Easing::ALL.into_iter().min_by(|a, b| error(*a).total_cmp(&error(*b))).unwrap_or_default()
}

/// Split the text into the header's attributes, the sections, and the metadata lines before
/// the first section.
fn parse_sections(text: &str) -> Result<(String, Vec<Section>, Vec<Meta>), GodotError> {
    let mut header = None;
    let mut sections: Vec<Section> = Vec::new();
    let mut pending = Vec::new();
    let mut file_metas = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(meta) = line.strip_prefix("; animtune ") {
            pending.push(parse_meta(meta));
        } else if line.is_empty() || line.starts_with(';') {
            continue;
        } else if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if header.is_none() {
                if !inner.starts_with("gd_resource") {
                    return Err(parse_error(n + 1, "the file does not start with [gd_resource …]"));
                }
                header = Some(inner.to_owned());
                continue;
            }
            if sections.is_empty() {
                file_metas.append(&mut pending);
            }
            let kind =
                if inner == "resource" { "resource".to_owned() } else { attribute(inner, "type").unwrap_or_default() };
            sections.push(Section {
                kind,
                id: attribute(inner, "id").unwrap_or_default(),
                props: Vec::new(),
                metas: std::mem::take(&mut pending),
            });
        } else if let Some((key, value)) = line.split_once(" = ") {
            let Some(section) = sections.last_mut() else {
                return Err(parse_error(n + 1, "a property before any section"));
            };
            section.props.push((key.trim().to_owned(), value.trim().to_owned()));
        } else {
            return Err(parse_error(n + 1, format!("cannot read \"{line}\"")));
        }
    }
    let header = header.ok_or_else(|| parse_error(1, "empty file"))?;
    Ok((header, sections, file_metas))
}

fn parse_meta(text: &str) -> Meta {
    let mut meta = Meta::default();
    let mut rest = text.trim();
    let (kind, tail) = rest.split_once(' ').unwrap_or((rest, ""));
    meta.kind = kind.to_owned();
    rest = tail.trim_start();
    while let Some((key, tail)) = rest.split_once('=') {
        let (value, tail) = if tail.starts_with('"') {
            let end = quoted_end(tail).unwrap_or(tail.len());
            (string(&tail[..end]).unwrap_or_default(), &tail[end..])
        } else {
            let end = tail.find(' ').unwrap_or(tail.len());
            (tail[..end].to_owned(), &tail[end..])
        };
        meta.values.push((key.trim().to_owned(), value));
        rest = tail.trim_start();
    }
    meta
}

/// The byte just past the quoted string `text` starts with.
fn quoted_end(text: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// `key="value"` of a section header.
fn attribute(header: &str, key: &str) -> Option<String> {
    let pattern = format!("{key}=");
    let start = header.split(' ').find_map(|part| part.strip_prefix(&pattern))?;
    string(start).or_else(|| Some(start.to_owned()))
}

/// A quoted string, or a `&"…"` string name, unescaped.
fn string(text: &str) -> Option<String> {
    let text = text.trim();
    let text = text.strip_prefix('&').unwrap_or(text);
    let end = quoted_end(text)?;
    let inner = text.get(1..end - 1)?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next()? } else { c });
    }
    Some(out)
}

/// `SubResource("id")`'s id.
fn sub_resource(text: &str) -> Option<String> {
    string(text.trim().strip_prefix("SubResource(")?.strip_suffix(')')?)
}

/// `Vector2(x, y)`.
fn vector2(text: &str) -> Option<Vec2> {
    let inner = text.trim().strip_prefix("Vector2(")?.strip_suffix(')')?;
    let (x, y) = inner.split_once(',')?;
    Some(Vec2::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// The items of a `[a, b, …]` array, split at commas outside quotes and parentheses.
fn split_list(text: &str) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut current) = (0i32, false, false, String::new());
    for c in inner.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '(' if !quoted => depth += 1,
            ')' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                items.push(std::mem::take(&mut current).trim().to_owned());
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        items.push(current.trim().to_owned());
    }
    Some(items)
}
