//! animtune's Bevy export checked with Bevy's own code (bevy_animation 0.18):
//! `cargo run --manifest-path tools/bevy-check/Cargo.toml -- ASSET_DIR NAME` loads `NAME.animgraph.ron` with Bevy's `AnimationGraphAssetLoader`
//! through an `AssetServer`, reads `NAME.transitions.ron` as the docs' sample system does, and
//! plays every transition of the sidecar with Bevy's `AnimationTransitions::play` on an
//! `AnimationPlayer`: the target node must be the main animation and playing, the source fading
//! at 1 / duration_secs per second. Prints what it checked; exits non-zero on the first failure.
use std::time::{Duration, Instant};

use bevy_animation::graph::{AnimationGraph, AnimationGraphAssetLoader, AnimationNodeIndex, AnimationNodeType};
use bevy_animation::transition::AnimationTransitions;
use bevy_animation::{AnimationClip, AnimationPlayer};
use bevy_app::{App, TaskPoolPlugin};
use bevy_asset::{AssetApp, AssetPlugin, AssetServer, Assets, LoadState};
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (dir, name) = (args[1].clone(), args[2].clone());
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
