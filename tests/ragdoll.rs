//! Ragdoll handoff (issue 6): pop-free handoff with discriminating metrics, the ramp's timing,
//! 10 s falls on every listed model, determinism, get-up and re-trigger, push.
//!
//! Models: `assets/mannequin.glb` (skipped with a note when absent) and `../shared/models`
//! (skipped with a note when the folder is missing, except under `CI=true`, where it fails).
//! The simulation runs in-process through `cli::ragdoll::simulate` (the same code path as
//! `animtune ragdoll`), so concurrent rebuilds of the binary cannot disturb it.

use std::path::PathBuf;

use anim::ragdoll::RagdollRamp;
use anim::{ClipCursor, ClipId, Easing, LocalMatrices, Model, SampleSettings, SoaPose};
use animtune::cli::Format;
use animtune::cli::ragdoll::{RagdollArgs, RagdollReport, simulate};
use animtune::physics::{FaultKind, Phase, RagdollController, RagdollSettings};
use devtools::ci::repo_root;
use devtools::load;
use glam::{Affine3A, Vec3};

const MANNEQUIN: &str = "assets/mannequin.glb";

/// The mannequin, or `None` (with a note) when it has not been generated yet.
fn mannequin() -> Option<Model> {
    let path = repo_root().join(MANNEQUIN);
    if path.exists() {
        Some(load(&path))
    } else {
        println!("note: {MANNEQUIN} not found; skipping its ragdoll checks");
        None
    }
}

fn shared_models() -> Option<PathBuf> {
    devtools::ci::shared_models("the shared-model ragdoll checks")
}

fn args(model: &str, handoff_at: f32, ramp_rate: f32, seconds: f32) -> RagdollArgs {
    RagdollArgs {
        model: PathBuf::from(model),
        clip: None,
        handoff_at,
        ramp_rate,
        easing: Easing::Linear,
        seconds,
        no_initial_velocity: false,
        push: None,
        format: Format::Json,
        limits: animtune::cli::LimitArgs::default(),
    }
}

fn run(model: &Model, clip: Option<&str>, args: &RagdollArgs) -> RagdollReport {
    let clip = clip.map(|name| model.find_clip(name).unwrap_or_else(|| panic!("clip {name} not found")));
    let clip = clip.or((!model.clips.is_empty()).then(|| ClipId::from_index(0)));
    simulate(model, clip, args).expect("the ragdoll simulates")
}

#[test]
fn walk_handoff_is_pop_free_and_the_velocity_metric_discriminates() {
    let Some(model) = mannequin() else { return };
    let with_velocity = args(MANNEQUIN, 0.3, 1000.0, 0.5);
    let at_rest = RagdollArgs { no_initial_velocity: true, ..with_velocity.clone() };
    let moving = run(&model, Some("Walk"), &with_velocity);
    let still = run(&model, Some("Walk"), &at_rest);
    println!(
        "pop {:?} / {:?} (no initial velocity); velocity error {} / {} m/s; position error {} / {} m",
        moving.pop,
        still.pop,
        moving.handoff_velocity_error_mps,
        still.handoff_velocity_error_mps,
        moving.handoff_position_error_m,
        still.handoff_position_error_m
    );
    assert!(moving.finite && still.finite);
    let pop = moving.pop.expect("the walk moves before the handoff");
    assert!(pop <= 1.5, "pop {pop} > 1.5");
    assert!(
        still.handoff_velocity_error_mps >= 5.0 * moving.handoff_velocity_error_mps,
        "velocity error without initial velocity {} is not 5× the error with it {}",
        still.handoff_velocity_error_mps,
        moving.handoff_velocity_error_mps
    );
    // Bodies start exactly on the animated joints: after one 1/120 s step only gravity's
    // 0.5·g·dt² (0.3 mm) and the animation's own acceleration separate them.
    assert!(moving.handoff_position_error_m < 0.005, "position error {}", moving.handoff_position_error_m);
    assert_eq!(moving.body_count, moving.joint_count + 1, "one connected ragdoll");
}

#[test]
fn ramp_rate_5_reaches_full_weight_at_a_fifth_of_a_second() {
    let Some(model) = mannequin() else { return };
    let report = run(&model, Some("Walk"), &args(MANNEQUIN, 0.5, 5.0, 0.5));
    let full = report.weight_full_at_secs.expect("the weight reaches 1");
    assert!((full - 0.2).abs() <= 1.0 / 60.0 + 1e-4, "full weight at {full} s");

    // The controller's weight just before: still ramping.
    let mut ramp = RagdollRamp::new(5.0, Easing::Linear);
    for _ in 0..11 {
        ramp.advance(1.0 / 60.0);
    }
    assert!(ramp.weight() < 1.0 && ramp.weight() > 0.9);
    ramp.advance(1.0 / 60.0);
    assert!(ramp.is_full());
}

/// The characters the ragdoll must handle: the built-in one and four shared models (those
/// present).
fn test_characters() -> Vec<(String, Model)> {
    let mut models: Vec<(String, Model)> = Vec::new();
    if let Some(model) = mannequin() {
        models.push(("mannequin".to_owned(), model));
    }
    if let Some(dir) = shared_models() {
        for name in ["RobotExpressive", "CesiumMan", "RiggedFigure", "Fox"] {
            models.push((name.to_owned(), load(&dir.join(name).join(format!("{name}.glb")))));
        }
    }
    models
}

/// Handoffs at many moments of several clips all come to rest within 10 s: no limb keeps
/// twitching (a ragdoll calm for a second is put to sleep) and nothing explodes.
#[test]
fn handoffs_across_clips_and_times_all_come_to_rest() {
    let models = test_characters();
    let mut runs = 0;
    for (name, model) in &models {
        for clip in 0..model.clips.len().min(3) {
            for handoff in [0.2f32, 0.45, 0.7, 0.95, 1.3] {
                let report = simulate(model, Some(ClipId::from_index(clip)), &args(name, handoff, 5.0, 10.0))
                    .expect("simulates");
                let settle = report.settle_secs.filter(|&s| s < 10.0);
                assert!(report.finite, "{name} clip {clip} at {handoff} s: not finite");
                assert!(settle.is_some(), "{name} clip {clip} handed off at {handoff} s: still moving after 10 s");
                assert!(
                    report.final_root_height_m < 0.35 * report.size_m,
                    "{name} clip {clip} at {handoff} s: root up"
                );
                runs += 1;
            }
        }
    }
    println!("{runs} handoffs came to rest");
}

#[test]
fn ten_seconds_on_every_model_stay_finite_and_come_to_rest_on_the_ground() {
    let models = test_characters();
    for (name, model) in &models {
        let report = run(model, None, &args(name, 0.5, 5.0, 10.0));
        println!(
            "{name}: {} bodies, {} joints, settle {:?} s, final root height {} m, lowest {} m, ground {} m, pop {:?}",
            report.body_count,
            report.joint_count,
            report.settle_secs,
            report.final_root_height_m,
            report.lowest_point_m,
            report.ground_height_m,
            report.pop
        );
        assert!(report.finite, "{name}: NaN or infinity");
        assert!(report.body_count >= 5, "{name}: only {} bodies", report.body_count);
        let size = report.size_m;
        let settle = report.settle_secs.unwrap_or_else(|| panic!("{name}: still moving after 10 s"));
        assert!(settle < 10.0, "{name}: settled at {settle}");
        assert!(report.final_root_height_m < 0.25 * size, "{name}: root {} m up", report.final_root_height_m);
        assert!(report.final_root_height_m > -0.01, "{name}: root {} m under the ground", report.final_root_height_m);
        assert!(report.root_height_change_last_second_m.abs() < 0.01 * size, "{name}: root still moving");
        assert!(report.ground_height_m > -0.05 * size, "{name}: ground lowered to {}", report.ground_height_m);
        assert!(report.lowest_point_m > report.ground_height_m - 0.02 * size, "{name}: body through the ground");
    }
}

#[test]
fn same_inputs_give_bit_identical_outputs() {
    let (model, clip, path) = if let Some(model) = mannequin() {
        (model, Some("Walk"), MANNEQUIN.to_owned())
    } else if let Some(dir) = shared_models() {
        let path = dir.join("CesiumMan/CesiumMan.glb");
        (load(&path), None, path.display().to_string())
    } else {
        return;
    };
    let mut a = args(&path, 0.4, 5.0, 2.0);
    a.push = Some((model.node_name(model.skins[0].joints[0]), Vec3::new(5.0, 0.0, 0.0)));
    if a.push.as_ref().is_some_and(|(bone, _)| bone.is_empty()) {
        a.push = None;
    }
    let first = serde_json::to_string(&run(&model, clip, &a)).expect("serialises");
    let second = serde_json::to_string(&run(&model, clip, &a)).expect("serialises");
    assert_eq!(first, second);
}

/// Plays one clip (looping) into a pose.
struct Player {
    clip: ClipId,
    cursor: ClipCursor,
    rest: SoaPose,
}

impl Player {
    fn new(model: &Model, clip: &str) -> Self {
        let clip = model.find_clip(clip).expect("clip");
        Self { clip, cursor: ClipCursor::new(&model.clips[clip.index()]), rest: model.rest_pose() }
    }

    fn sample(&mut self, model: &Model, time: f32, pose: &mut SoaPose) {
        pose.copy_from(&self.rest);
        let clip = &model.clips[self.clip.index()];
        clip.sample(clip.wrap_time(time), &mut self.cursor, &SampleSettings::default(), pose);
    }
}

fn joint_positions(model: &Model, pose: &SoaPose) -> Vec<Vec3> {
    let mut world = vec![Affine3A::IDENTITY; model.nodes.len()];
    model.hierarchy.local_to_model(pose, &mut LocalMatrices::default(), &mut world);
    model.skins[0].joints.iter().map(|&j| Vec3::from(world[j.index()].translation)).collect()
}

fn largest_move(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x.distance(*y)).fold(0.0, f32::max)
}

#[test]
fn get_up_blends_into_the_clip_and_the_ragdoll_can_be_triggered_again_at_once() {
    let Some(model) = mannequin() else { return };
    let dt = 1.0 / 60.0;
    let mut controller =
        RagdollController::new(&model, RagdollSettings::default(), RagdollRamp::default()).expect("ragdoll");
    let mut walk = Player::new(&model, "Walk");
    let mut idle = Player::new(&model, "Idle");
    let mut pose = model.rest_pose();
    let mut before = model.rest_pose();
    assert!(!controller.get_up(0.3, Easing::Linear), "no get-up without a ragdoll");

    walk.sample(&model, 0.5, &mut pose);
    walk.sample(&model, 0.5 - 1.0 / 120.0, &mut before);
    controller.trigger(&model, &pose, &before, 1.0 / 120.0, None);
    assert_eq!(controller.phase(), Phase::Ragdoll);
    assert_eq!(controller.output(), &pose, "the trigger frame shows the animation");
    for frame in 1..=90 {
        walk.sample(&model, 0.5 + frame as f32 * dt, &mut pose);
        controller.update(&model, dt, &pose);
    }
    assert!((controller.ragdoll_weight() - 1.0).abs() < f32::EPSILON);
    let fallen = joint_positions(&model, controller.output());

    // Get up into Idle over 0.3 s (18 frames): continuous at the start, exactly Idle at the end.
    assert!(controller.get_up(0.3, Easing::Smoothstep));
    assert_eq!(controller.phase(), Phase::GettingUp);
    assert!(controller.ragdoll().is_none(), "the ragdoll resets at once");
    idle.sample(&model, 0.0, &mut pose);
    controller.update(&model, dt, &pose);
    let first = joint_positions(&model, controller.output());
    assert!(largest_move(&fallen, &first) < 0.05, "get-up pops by {} m", largest_move(&fallen, &first));
    let mut last = first;
    for frame in 2..=19 {
        idle.sample(&model, frame as f32 * dt, &mut pose);
        controller.update(&model, dt, &pose);
        let now = joint_positions(&model, controller.output());
        assert!(largest_move(&last, &now) < 0.25, "frame {frame} jumps {} m", largest_move(&last, &now));
        last = now;
    }
    assert_eq!(controller.phase(), Phase::Animated);
    idle.sample(&model, 20.0 * dt, &mut pose);
    assert_eq!(controller.update(&model, dt, &pose), &pose, "back to the clip exactly");

    // Trigger again at once: a fresh ragdoll from the current pose.
    idle.sample(&model, 20.0 * dt - 1.0 / 120.0, &mut before);
    controller.trigger(&model, &pose, &before, 1.0 / 120.0, None);
    assert_eq!(controller.phase(), Phase::Ragdoll);
    assert_eq!(controller.ragdoll().map(animtune::physics::Ragdoll::steps), Some(0));
    assert!(controller.ragdoll_weight() < f32::EPSILON, "the ramp restarts");
    for frame in 21..=80 {
        idle.sample(&model, frame as f32 * dt, &mut pose);
        controller.update(&model, dt, &pose);
    }
    assert!(controller.ragdoll().is_some_and(animtune::physics::Ragdoll::is_finite));
    assert!(controller.output().is_finite());
}

#[test]
fn push_moves_the_pushed_bone_and_unknown_bones_are_rejected() {
    let Some(model) = mannequin() else { return };
    let plain = args(MANNEQUIN, 0.5, 5.0, 0.5);
    let pushed = RagdollArgs { push: Some(("Head".to_owned(), Vec3::new(0.0, 0.0, 40.0))), ..plain.clone() };
    let a = run(&model, Some("Walk"), &plain);
    let b = run(&model, Some("Walk"), &pushed);
    assert!(
        b.handoff_velocity_error_mps > a.handoff_velocity_error_mps + 0.5,
        "push changes the head's velocity: {} vs {}",
        b.handoff_velocity_error_mps,
        a.handoff_velocity_error_mps
    );
    let absurd = RagdollArgs { push: Some(("Head".to_owned(), Vec3::new(0.0, 0.0, 1e12))), ..plain.clone() };
    let error = simulate(&model, model.find_clip("Walk"), &absurd).expect_err("the ragdoll blows up");
    let message = format!("{error:#}");
    assert!(message.contains("blew up") && message.contains("\"Head\"") && message.contains("m/s"), "{message}");
    let unknown = RagdollArgs { push: Some(("NoSuchBone".to_owned(), Vec3::X)), ..plain };
    let clip = model.find_clip("Walk");
    let error = simulate(&model, clip, &unknown).expect_err("unknown bone");
    assert!(format!("{error:#}").contains("NoSuchBone"));
}

#[test]
fn ragdoll_layout_covers_the_humanoid_bones() {
    let Some(model) = mannequin() else { return };
    let spec = animtune::physics::RagdollSpec::from_model(&model).expect("ragdoll");
    let names: Vec<&str> = spec.bodies.iter().map(|b| b.name.as_str()).collect();
    for bone in ["Hips", "Spine", "Chest", "Head", "UpperArm.L", "LowerArm.R", "UpperLeg.L", "LowerLeg.R", "Foot.L"] {
        assert!(names.contains(&bone), "{bone} has no body: {names:?}");
    }
    assert!(!names.iter().any(|n| n.starts_with("Toes")), "toes merge into the feet: {names:?}");
    assert_eq!(spec.bodies[0].parent, None, "parents come first");
    for body in &spec.bodies {
        assert!(body.radius > 0.0 && body.radius < 0.3, "{}: radius {}", body.name, body.radius);
    }
}

#[test]
fn an_exploding_ragdoll_falls_back_to_the_animation_reports_a_fault_and_can_be_triggered_again() {
    let Some(model) = mannequin() else { return };
    let dt = 1.0 / 60.0;
    let mut controller =
        RagdollController::new(&model, RagdollSettings::default(), RagdollRamp::default()).expect("ragdoll");
    let head = controller.spec().body_of_node_named(&model, "Head").expect("a head body");
    let mut walk = Player::new(&model, "Walk");
    let mut pose = model.rest_pose();
    let mut before = model.rest_pose();
    let is_finite = |pose: &SoaPose| pose.nodes().all(|(_, local)| local.is_finite());

    // A 1e12 N·s push on a few-kilogram head: billions of metres per second.
    walk.sample(&model, 0.5, &mut pose);
    walk.sample(&model, 0.5 - 1.0 / 120.0, &mut before);
    controller.trigger(&model, &pose, &before, 1.0 / 120.0, Some((head, Vec3::new(1e12, 0.0, 0.0))));
    assert!(controller.take_fault().is_none(), "nothing is checked before the first update");
    walk.sample(&model, 0.5 + dt, &mut pose);
    let output = controller.update(&model, dt, &pose);
    assert_eq!(output, &pose, "the frame of the explosion shows the animation");
    assert!(is_finite(output));
    assert_eq!(controller.phase(), Phase::Animated);
    assert!(controller.ragdoll().is_none(), "the exploded ragdoll is dropped");
    assert!(controller.ragdoll_weight() < f32::EPSILON);
    let fault = controller.take_fault().expect("the explosion is reported");
    println!("{fault}");
    assert_eq!((fault.body, fault.bone.as_str()), (head, "Head"));
    let FaultKind::TooFast { speed_mps, limit_mps } = fault.kind else { panic!("{fault:?}") };
    assert!(speed_mps > 1e9 && (limit_mps - 200.0).abs() < f32::EPSILON, "{fault}");
    let message = fault.to_string();
    assert!(message.contains("\"Head\"") && message.contains("m/s") && message.contains("limit 200"), "{message}");
    assert!(controller.take_fault().is_none(), "taking the fault clears it");

    // The following frames play the animation.
    walk.sample(&model, 0.5 + 2.0 * dt, &mut pose);
    assert_eq!(controller.update(&model, dt, &pose), &pose);
    assert!(controller.take_fault().is_none());

    // A ragdoll whose state turns NaN mid-fall is caught before the solver sees it.
    walk.sample(&model, 0.5 + 2.0 * dt - 1.0 / 120.0, &mut before);
    controller.trigger(&model, &pose, &before, 1.0 / 120.0, None);
    for frame in 3..=20 {
        walk.sample(&model, 0.5 + frame as f32 * dt, &mut pose);
        controller.update(&model, dt, &pose);
    }
    let ragdoll = controller.ragdoll_mut().expect("ragdolling");
    let steps = ragdoll.steps();
    ragdoll.set_body_velocity(0, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO);
    walk.sample(&model, 0.5 + 21.0 * dt, &mut pose);
    assert_eq!(controller.update(&model, dt, &pose), &pose);
    let fault = controller.take_fault().expect("the NaN is reported");
    assert_eq!((fault.body, fault.kind, fault.steps), (0, FaultKind::NonFinite, steps));
    assert!(fault.to_string().contains("NaN"), "{fault}");

    // A new trigger afterwards ragdolls normally: full weight, finite, no fault, and the
    // output leaves the animation (the head falls away from the walk's head).
    walk.sample(&model, 0.5 + 22.0 * dt, &mut pose);
    walk.sample(&model, 0.5 + 22.0 * dt - 1.0 / 120.0, &mut before);
    controller.trigger(&model, &pose, &before, 1.0 / 120.0, None);
    for frame in 23..=100 {
        walk.sample(&model, 0.5 + frame as f32 * dt, &mut pose);
        let output = controller.update(&model, dt, &pose);
        assert!(is_finite(output), "frame {frame}");
    }
    assert!(controller.take_fault().is_none(), "a normal fall is no fault");
    assert_eq!(controller.phase(), Phase::Ragdoll);
    assert!((controller.ragdoll_weight() - 1.0).abs() < f32::EPSILON);
    assert!(controller.ragdoll().is_some_and(animtune::physics::Ragdoll::is_finite));
    let head_node = controller.spec().bodies[head].node;
    let mut animated_world = vec![Affine3A::IDENTITY; model.nodes.len()];
    let mut output_world = vec![Affine3A::IDENTITY; model.nodes.len()];
    model.hierarchy.local_to_model(&pose, &mut LocalMatrices::default(), &mut animated_world);
    model.hierarchy.local_to_model(controller.output(), &mut LocalMatrices::default(), &mut output_world);
    let apart = Vec3::from(animated_world[head_node].translation).distance(output_world[head_node].translation.into());
    assert!(apart > 0.3, "the head is only {apart} m from the animation's after a 1.3 s fall");
}
