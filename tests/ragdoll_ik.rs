//! Ragdolls on rigs whose feet and hands hang under IK control bones (issue 23 items 7 and 8,
//! issue 22 item 6.12): the body tree comes from the anatomy, every joint holds, the handoff
//! keeps the clip's velocity, the figures are the same at every scale, and the skeleton overlay
//! draws no line to a bone no body simulates.
//!
//! Rigs: IK-control variants made at test time by `devtools::ikrig` from the built-in character
//! and from `../shared/models/RobotExpressive` (skipped with a note without the folder, except
//! under `CI=true`), each at ×0.01, ×1 and ×100 (a scaled top node). With `ANIMTUNE_RIGS`
//! pointing at a folder of fetched rigs, `platformer_player_player.glb` (a Blender export with
//! IK control bones) is checked too.

use anim::Model;
use animtune::cli::ragdoll::{RagdollArgs, RagdollReport, simulate};
use animtune::physics::{BoneKind, RagdollSpec};
use animtune::render::overlay::SkeletonLink;

/// Handoff times, as fractions of the clip.
const HANDOFF_FRACTIONS: [f32; 5] = [0.1, 0.3, 0.5, 0.7, 0.9];

/// Largest handoff velocity error, per size per second.
const MAX_VELOCITY_ERROR_PER_SIZE: f32 = 0.3;

/// Largest distance between a joint's two anchors over a run, per size.
const MAX_JOINT_SEPARATION_PER_SIZE: f32 = 0.02;

/// A rig to check: its `.glb` bytes (already an IK-control rig) and a walk or run clip.
struct Rig {
    name: String,
    glb: Vec<u8>,
    clip: &'static str,
}

fn rigs() -> Vec<Rig> {
    let ik = |bytes: &[u8]| devtools::ikrig::detach_extremities(bytes).expect("an IK-control variant");
    let mut rigs =
        vec![Rig { name: "built-in (IK)".to_owned(), glb: ik(animtune::mannequin::DEFAULT_MODEL_GLB), clip: "Run" }];
    if let Some(path) = devtools::ci::shared_model_path("RobotExpressive/RobotExpressive.glb") {
        let bytes = std::fs::read(&path).expect("read RobotExpressive");
        rigs.push(Rig { name: "RobotExpressive (IK)".to_owned(), glb: ik(&bytes), clip: "Walking" });
    }
    match std::env::var_os("ANIMTUNE_RIGS") {
        Some(dir) => {
            let path = std::path::Path::new(&dir).join("platformer_player_player.glb");
            let glb = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            rigs.push(Rig { name: "platformer player".to_owned(), glb, clip: "walk" });
        }
        None => println!("ANIMTUNE_RIGS not set: the fetched rigs are skipped"),
    }
    rigs
}

fn scaled(glb: &[u8], scale: f32) -> Model {
    let mut doc = devtools::gltf::Doc::from_glb(glb).expect("a glb");
    if (scale - 1.0).abs() > f32::EPSILON {
        doc.wrap_in_scaled_root(scale);
    }
    anim::import::load_slice(&doc.to_glb(), None).expect("the variant loads")
}

fn run(model: &Model, clip: &str, handoff_at: f32) -> RagdollReport {
    let clip = model.find_clip(clip).unwrap_or_else(|| panic!("clip {clip} not found"));
    let args = RagdollArgs { seconds: 1.5, ..RagdollArgs::at(handoff_at) };
    simulate(model, Some(clip), &args).expect("the ragdoll simulates")
}

/// The variant really hangs the feet and hands under control bones, and the ragdoll still
/// joints each of them to its shin or forearm.
#[test]
fn feet_and_hands_under_ik_controls_are_jointed_to_their_limbs() {
    let model =
        scaled(&devtools::ikrig::detach_extremities(animtune::mannequin::DEFAULT_MODEL_GLB).expect("variant"), 1.0);
    let spec = RagdollSpec::from_model(&model).expect("a ragdoll");
    let name = |node: anim::NodeId| model.node(node).and_then(|n| n.name.clone()).unwrap_or_default();
    let parent_node = |node: anim::NodeId| model.hierarchy.parent(node);
    for (kind, wanted) in [(BoneKind::Foot, BoneKind::LowerLeg), (BoneKind::Hand, BoneKind::LowerArm)] {
        let extremities: Vec<_> = spec.bodies.iter().filter(|b| b.kind == kind).collect();
        assert_eq!(extremities.len(), 2, "two {kind}s");
        for body in extremities {
            let tree_parent = parent_node(body.node).map(name).unwrap_or_default();
            assert!(tree_parent.ends_with(".ik"), "{} hangs under {tree_parent}, not an IK control", body.name);
            let parent = body.parent.and_then(|p| spec.body(p)).unwrap_or_else(|| panic!("{} has no joint", body.name));
            assert_eq!((parent.kind, parent.side), (wanted, body.side), "{} jointed to {}", body.name, parent.name);
        }
    }
    assert_eq!(spec.unjointed_bodies(), 0);
    // Bodies come parents first, whatever the node order.
    for (b, body) in spec.bodies.iter().enumerate() {
        assert!(body.parent.is_none_or(|p| p.index() < b), "{} before its parent", body.name);
    }

    // The overlay: IK controls are not simulated and draw nothing; a foot's bone starts at its
    // shin.
    let links = animtune::stage::ragdoll::ragdoll_skeleton_links(&model, &spec);
    let simulated = spec.simulated_nodes(&model);
    for (node, n) in model.nodes().iter().enumerate() {
        let ik = n.name.as_deref().is_some_and(|s| s.ends_with(".ik"));
        if ik {
            assert!(!simulated[node] && links[node] == SkeletonLink::Hidden, "{:?} drawn", n.name);
        }
    }
    for body in spec.bodies.iter().filter(|b| b.kind == BoneKind::Foot) {
        let shin = body.parent.and_then(|p| spec.body(p)).expect("jointed").node;
        assert_eq!(links[body.node.index()], SkeletonLink::From(shin), "{}'s bone", body.name);
    }
}

/// Every rig at ×0.01, ×1 and ×100, handed off at five times of a walk or run: no unjointed
/// body beyond the pelvis, joints holding within 2% of the size, the handoff velocity within
/// 0.3 sizes per second of the clip's, the mesh within its colliders, and the handoff figures the
/// same at every scale.
#[test]
fn ik_control_rigs_hold_together_and_keep_the_clips_velocity_at_every_scale() {
    for rig in rigs() {
        let models: Vec<(f32, Model)> = [1.0f32, 0.01, 100.0].into_iter().map(|s| (s, scaled(&rig.glb, s))).collect();
        let duration = models[0].1[models[0].1.find_clip(rig.clip).expect("clip")].duration_secs();
        for fraction in HANDOFF_FRACTIONS {
            let at = fraction * duration;
            let reports: Vec<(f32, RagdollReport)> = models.iter().map(|(s, m)| (*s, run(m, rig.clip, at))).collect();
            for (scale, r) in &reports {
                let label = format!("{} ×{scale} {} at {at:.3} s", rig.name, rig.clip);
                println!(
                    "{label}: unjointed {}, separation {:.4}, velocity error {:.3} /s, mesh outside {:.3}",
                    r.unjointed_bodies,
                    r.max_joint_separation_per_size,
                    r.velocity_error_per_size,
                    r.mesh_outside_colliders_per_size
                );
                assert!(r.finite, "{label}: not finite");
                assert_eq!(r.unjointed_bodies, 0, "{label}: unjointed bodies");
                assert!(
                    r.max_joint_separation_per_size <= MAX_JOINT_SEPARATION_PER_SIZE,
                    "{label}: a joint came {} of the size apart",
                    r.max_joint_separation_per_size
                );
                assert!(
                    r.velocity_error_per_size <= MAX_VELOCITY_ERROR_PER_SIZE,
                    "{label}: handoff velocity error {} sizes/s",
                    r.velocity_error_per_size
                );
                assert!(
                    r.mesh_outside_colliders_per_size <= 0.2,
                    "{label}: mesh {} of the size outside its bodies",
                    r.mesh_outside_colliders_per_size
                );
            }
            let (_, reference) = &reports[0];
            for (scale, r) in &reports[1..] {
                let same = |a: f32, b: f32, floor: f32| (a - b).abs() <= 1e-2 * a.abs().max(b.abs()).max(floor);
                assert!(
                    same(r.velocity_error_per_size, reference.velocity_error_per_size, 1e-2)
                        && same(r.position_error_per_size, reference.position_error_per_size, 1e-3)
                        && r.body_count == reference.body_count
                        && r.joint_count == reference.joint_count,
                    "{} ×{scale} at {at:.3} s: figures differ from ×1 ({} vs {} sizes/s, {} vs {} of size)",
                    rig.name,
                    r.velocity_error_per_size,
                    reference.velocity_error_per_size,
                    r.position_error_per_size,
                    reference.position_error_per_size
                );
            }
        }
    }
}
