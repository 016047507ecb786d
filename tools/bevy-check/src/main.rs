//! animtune's Bevy export checked with Bevy's own code (bevy_animation 0.18):
//! `cargo run --manifest-path tools/bevy-check/Cargo.toml -- ASSET_DIR NAME` loads `NAME.animgraph.ron` with Bevy's `AnimationGraphAssetLoader`
//! through an `AssetServer`, reads `NAME.transitions.ron` as the docs' sample system does, and
//! plays every transition of the sidecar with Bevy's `AnimationTransitions::play` on an
//! `AnimationPlayer`: the target node must be the main animation and playing, the source fading
//! at 1 / duration_secs per second. With `--glb FILE` it also checks the layer masks: every
//! mask group target must be `AnimationTargetId::from_names` of a node's name path as
//! bevy_gltf's loader builds it (from the node a scene lists, an unnamed node `GltfNodeN`), and
//! `--masked NODE=JOINT,…` / `--animated NODE=JOINT,…` name joints graph node NODE must not /
//! must animate. Prints what it checked; exits non-zero on the first failure.
use std::collections::HashMap;
use std::time::{Duration, Instant};

use bevy_animation::graph::{AnimationGraph, AnimationGraphAssetLoader, AnimationNodeIndex, AnimationNodeType};
use bevy_animation::transition::AnimationTransitions;
use bevy_animation::{AnimationClip, AnimationPlayer, AnimationTargetId};
use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Assets, LoadState};
use bevy_ecs::name::Name;
use bevy_reflect::{PartialReflect, ReflectRef};

#[derive(serde::Deserialize)]
struct Sidecar {
    entry: String,
    states: Vec<SidecarState>,
    transitions: Vec<SidecarTransition>,
}

#[derive(serde::Deserialize)]
struct SidecarState {
    name: String,
    node: usize,
}

#[derive(serde::Deserialize)]
struct SidecarTransition {
    from: String,
    to: String,
    node: usize,
    duration_secs: f32,
}

fn fail(message: String) -> ! {
    eprintln!("FAIL: {message}");
    std::process::exit(1);
}

/// The fade rates `AnimationTransitions` holds (its fields are private; read through Reflect).
fn fade_rates(transitions: &AnimationTransitions) -> Vec<(usize, f32)> {
    let ReflectRef::Struct(s) = transitions.reflect_ref() else { fail("AnimationTransitions is not a struct".into()) };
    let Some(list) = s.field("transitions") else { fail("no transitions field".into()) };
    let ReflectRef::List(list) = list.reflect_ref() else { fail("transitions is not a list".into()) };
    list.iter()
        .map(|item| {
            let ReflectRef::Struct(t) = item.reflect_ref() else { fail("a transition is not a struct".into()) };
            let rate = t.field("weight_decline_per_sec").and_then(|f| f.try_downcast_ref::<f32>()).copied();
            let node = t.field("animation").and_then(|f| f.try_downcast_ref::<AnimationNodeIndex>()).copied();
            (node.map(|n| n.index()).unwrap_or(usize::MAX), rate.unwrap_or(f32::NAN))
        })
        .collect()
}

/// Each glTF node's name path as bevy_gltf 0.18's loader builds it (`collect_path`): from the
/// node a scene lists, down through `children`, an unnamed node named `GltfNode{index}`.
fn gltf_name_paths(glb: &str) -> Vec<(usize, Vec<Name>)> {
    let bytes = std::fs::read(glb).unwrap_or_else(|e| fail(format!("{glb}: {e}")));
    if bytes.len() < 20 || &bytes[0..4] != b"glTF" {
        fail(format!("{glb} is not a .glb"));
    }
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len])
        .unwrap_or_else(|e| fail(format!("{glb}: its JSON chunk: {e}")));
    let nodes = json["nodes"].as_array().cloned().unwrap_or_default();
    let name_of = |i: usize| Name::new(nodes[i]["name"].as_str().map_or_else(|| format!("GltfNode{i}"), str::to_owned));
    let mut paths: HashMap<usize, Vec<Name>> = HashMap::new();
    for scene in json["scenes"].as_array().cloned().unwrap_or_default() {
        for root in scene["nodes"].as_array().cloned().unwrap_or_default() {
            let mut stack = vec![(root.as_u64().unwrap_or(0) as usize, Vec::<Name>::new())];
            while let Some((node, mut path)) = stack.pop() {
                path.push(name_of(node));
                for child in nodes[node]["children"].as_array().cloned().unwrap_or_default() {
                    let child = child.as_u64().unwrap_or(0) as usize;
                    if !paths.contains_key(&child) {
                        stack.push((child, path.clone()));
                    }
                }
                paths.insert(node, path);
            }
        }
    }
    let mut paths: Vec<_> = paths.into_iter().collect();
    paths.sort_by_key(|(i, _)| *i);
    paths
}

/// `NODE=JOINT,JOINT` of `--masked` / `--animated`.
fn node_joints(arg: &str) -> (usize, Vec<String>) {
    let (node, joints) = arg.split_once('=').unwrap_or_else(|| fail(format!("{arg}: give NODE=JOINT,…")));
    let node = node.parse().unwrap_or_else(|_| fail(format!("{arg}: NODE is a graph node index")));
    (node, joints.split(',').map(str::to_owned).collect())
}

/// The layer masks: every mask group target is a glTF node's Bevy id; each node's mask read
/// against the groups; the `--masked` / `--animated` expectations held.
fn check_masks(graph: &AnimationGraph, glb: &str, masked: &[(usize, Vec<String>)], animated: &[(usize, Vec<String>)]) {
    let paths = gltf_name_paths(glb);
    let ids: Vec<(AnimationTargetId, String)> = paths
        .iter()
        .map(|(_, path)| {
            (AnimationTargetId::from_names(path.iter()), path.last().map(|n| n.to_string()).unwrap_or_default())
        })
        .collect();
    let joint_of = |id: &AnimationTargetId| ids.iter().find(|(i, _)| i == id).map(|(_, joint)| joint.clone());
    for id in graph.mask_groups.keys() {
        if joint_of(id).is_none() {
            fail(format!("mask group target {} is no node of {glb} (by AnimationTargetId::from_names)", id.0));
        }
    }
    println!(
        "  mask groups: {} targets, each AnimationTargetId::from_names of a node's path in {glb} ({} nodes)",
        graph.mask_groups.len(),
        paths.len()
    );
    for (index, path) in &paths {
        let shown: Vec<&str> = path.iter().map(|n| n.as_str()).collect();
        println!("  glTF node {index} {}: {}", shown.join("/"), AnimationTargetId::from_names(path.iter()).0);
    }
    let masked_joints = |node: usize| -> Vec<String> {
        // Bevy's computed mask (`ThreadedAnimationGraph::computed_masks`): the node's and its
        // ancestors' masks together.
        let (mut mask, mut at) = (0, Some(AnimationNodeIndex::new(node)));
        while let Some(index) = at {
            mask |= graph.get(index).map_or(0, |n| n.mask);
            at = graph.graph.neighbors_directed(index, petgraph::Direction::Incoming).next();
        }
        let mut out: Vec<String> = ids
            .iter()
            .filter(|(id, _)| graph.mask_groups.get(id).is_some_and(|g| g & mask != 0))
            .map(|(_, joint)| joint.clone())
            .collect();
        out.sort();
        out
    };
    for index in graph.nodes() {
        let node = graph.get(index).expect("a node of the graph");
        if node.mask != 0 {
            let off = masked_joints(index.index());
            println!(
                "  node {} mask {:#b}: does not animate {} nodes: {}",
                index.index(),
                node.mask,
                off.len(),
                off.join(", ")
            );
        }
    }
    for (node, joints) in masked {
        let off = masked_joints(*node);
        for joint in joints {
            if !off.contains(joint) {
                fail(format!("node {node} animates {joint}, which its layer's mask leaves out"));
            }
        }
        println!("  node {node}: masks out {} as expected", joints.join(", "));
    }
    for (node, joints) in animated {
        let off = masked_joints(*node);
        for joint in joints {
            if off.contains(joint) {
                fail(format!("node {node} does not animate {joint}, which its layer covers"));
            }
        }
        println!("  node {node}: animates {} as expected", joints.join(", "));
    }
}

fn main() {
    let all: Vec<String> = std::env::args().collect();
    let mut args = Vec::new();
    let (mut glb, mut masked, mut animated) = (None, Vec::new(), Vec::new());
    let mut rest = all.iter().skip(1);
    while let Some(arg) = rest.next() {
        let mut value = || rest.next().cloned().unwrap_or_else(|| fail(format!("{arg} takes a value")));
        match arg.as_str() {
            "--glb" => glb = Some(value()),
            "--masked" => masked.push(node_joints(&value())),
            "--animated" => animated.push(node_joints(&value())),
            _ => args.push(arg.clone()),
        }
    }
    let [dir, name] = args.as_slice() else {
        fail("give ASSET_DIR NAME [--glb FILE] [--masked NODE=JOINT,…] [--animated NODE=JOINT,…]".into())
    };
    let (dir, name) = (dir.clone(), name.clone());
    let graph_file = format!("{name}.animgraph.ron");
    let mut app = App::new();
    app.add_plugins((TaskPoolPlugin::default(), AssetPlugin { file_path: dir.clone(), ..Default::default() }))
        .init_asset::<AnimationClip>()
        .init_asset::<AnimationGraph>()
        .register_asset_loader(AnimationGraphAssetLoader);
    let handle = app.world().resource::<AssetServer>().load::<AnimationGraph>(graph_file.clone());
    let started = Instant::now();
    loop {
        app.update();
        match app.world().resource::<AssetServer>().load_state(&handle) {
            LoadState::Loaded => break,
            LoadState::Failed(error) => fail(format!("Bevy's loader refused {graph_file}: {error}")),
            state if started.elapsed() > Duration::from_secs(20) => fail(format!("{graph_file}: {state:?}")),
            _ => std::thread::sleep(Duration::from_millis(10)),
        }
    }
    let graph = app.world().resource::<Assets<AnimationGraph>>().get(&handle).expect("a loaded graph").clone();
    println!("Bevy loaded {graph_file}: {} nodes, root {}", graph.graph.node_count(), graph.root.index());
    // The nodes a state may name: a clip, or a blend whose children are all clips (a blend
    // space's points, a layered state's base and layers).
    let mut playable = Vec::new();
    for index in graph.nodes() {
        let node = graph.get(index).expect("a node of the graph");
        let children: Vec<_> = graph.graph.neighbors(index).collect();
        match &node.node_type {
            AnimationNodeType::Clip(clip) => {
                let path = clip.path().map(|p| p.to_string()).unwrap_or_default();
                println!("  node {}: clip {path}", index.index());
                playable.push(index.index());
            }
            AnimationNodeType::Blend | AnimationNodeType::Add => {
                let clips_only = children
                    .iter()
                    .all(|c| matches!(graph.get(*c).map(|n| &n.node_type), Some(AnimationNodeType::Clip(_))));
                let mut ids: Vec<_> = children.iter().map(|c| c.index()).collect();
                ids.sort();
                println!(
                    "  node {}: {:?} of {ids:?}",
                    index.index(),
                    if matches!(node.node_type, AnimationNodeType::Add) { "add" } else { "blend" }
                );
                if clips_only && index != graph.root {
                    playable.push(index.index());
                }
            }
        }
    }

    match &glb {
        Some(glb) => check_masks(&graph, glb, &masked, &animated),
        None if !graph.mask_groups.is_empty() => {
            println!("  {} mask group targets (give --glb to check them)", graph.mask_groups.len())
        }
        None => {}
    }

    let text = std::fs::read_to_string(format!("{dir}/{name}.transitions.ron")).expect("the sidecar");
    let sidecar: Sidecar = ron::from_str(&text).unwrap_or_else(|e| fail(format!("the sidecar: {e}")));
    for state in &sidecar.states {
        if !playable.contains(&state.node) {
            fail(format!("state {} names node {}, neither a clip nor a blend of clips", state.name, state.node));
        }
    }
    let node_of = |name: &str| sidecar.states.iter().find(|s| s.name == name).map(|s| s.node);
    let entry = node_of(&sidecar.entry).unwrap_or_else(|| fail(format!("no entry state {}", sidecar.entry)));
    let mut checked = 0;
    for t in &sidecar.transitions {
        let from = if t.from == "*" {
            entry
        } else {
            node_of(&t.from).unwrap_or_else(|| fail(format!("no state {}", t.from)))
        };
        if node_of(&t.to) != Some(t.node) {
            fail(format!("{} -> {}: node {} is not {}'s", t.from, t.to, t.node, t.to));
        }
        let mut player = AnimationPlayer::default();
        let mut transitions = AnimationTransitions::new();
        transitions.play(&mut player, AnimationNodeIndex::new(from), Duration::ZERO).repeat();
        transitions
            .play(&mut player, AnimationNodeIndex::new(t.node), Duration::from_secs_f32(t.duration_secs))
            .repeat();
        let main = transitions.get_main_animation().map(|n| n.index());
        if main != Some(t.node) || !player.is_playing_animation(AnimationNodeIndex::new(t.node)) {
            fail(format!("{} -> {}: main animation {main:?}", t.from, t.to));
        }
        let rates = fade_rates(&transitions);
        if from != t.node {
            let expected = 1.0 / t.duration_secs;
            match rates.as_slice() {
                [(node, rate)] if *node == from && (rate - expected).abs() <= 1e-4 * expected => {}
                other => {
                    fail(format!("{} -> {}: fading {other:?}, expected node {from} at {expected}/s", t.from, t.to))
                }
            }
        }
        match rates.first() {
            Some((_, rate)) => println!(
                "  {} -> {}: node {from} fades out at {rate:.3}/s, node {} plays ({} s)",
                t.from, t.to, t.node, t.duration_secs
            ),
            None => println!("  {} -> {}: node {} already plays (entry state)", t.from, t.to, t.node),
        }
        checked += 1;
    }
    println!("OK: {} states, {checked} transitions played by AnimationTransitions", sidecar.states.len());
}
