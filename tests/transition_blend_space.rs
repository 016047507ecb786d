//! `animtune transition` with a blend space at either end (issue #24): the built-in character's
//! Walk=1.4,Run=3.4 space at 2.4 to Idle and back, measured from the command's JSON per kind,
//! and the fader it drives checked pose by pose: the start of the transition is the blend
//! space's pose, its end the target's.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

use anim::{
    BlendSpace, BlendSpacePlayer, CrossFader, Model, PhaseSync, SampleSettings, SoaPose, Transition, TransitionKind,
};
use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

/// Run `animtune transition ARGS --format json` (built-in character) and parse the report.
#[track_caller]
fn transition(args: &[&str]) -> Value {
    let out = Command::new(ANIMTUNE).arg("transition").args(args).args(["--format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "animtune transition {args:?} failed: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `animtune transition ARGS`, expected to fail: its stderr.
#[track_caller]
fn refused(args: &[&str]) -> String {
    let out = Command::new(ANIMTUNE).arg("transition").args(args).output().unwrap();
    assert!(!out.status.success(), "animtune transition {args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const SPACE: &str = "Walk=1.4,Run=3.4";

#[test]
fn a_transition_from_the_blend_space_is_measured_per_kind() {
    // The velocity jump of each of the five default triggers over the blended cycle.
    let jumps = |kind: &str| -> Vec<f64> {
        let report = transition(&[
            "--from-blend-space",
            SPACE,
            "--at-param",
            "2.4",
            "--to",
            "Idle",
            "--duration",
            "0.4",
            "--kind",
            kind,
        ]);
        assert_eq!(report["from"], "blend space Walk=1.4 Run=3.4 at 2.4");
        assert_eq!(report["to"], "Idle");
        let runs = report["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 5);
        runs.iter()
            .map(|run| {
                assert_eq!(run["finite"], true);
                run["velocity_jump_mps"].as_f64().unwrap()
            })
            .collect()
    };
    let (fade, inertial, dead) = (jumps("crossfade"), jumps("inertialize"), jumps("dead-blend"));
    eprintln!(
        "blend space 2.4 -> Idle, 0.4 s: crossfade {fade:.4?}, inertialize {inertial:.4?}, dead-blend {dead:.4?} m/s"
    );
    // Measured 2026-12-07 on the built-in character: cross-fade 0.091-0.217 m/s, dead blend
    // 0.089-0.218, inertialization 0.017-0.062 (it carries the blended motion's velocity on).
    for i in 0..5 {
        assert!((0.05..0.4).contains(&fade[i]), "cross-fade velocity jump {} m/s", fade[i]);
        assert!((0.05..0.4).contains(&dead[i]), "dead blending {} m/s", dead[i]);
        assert!(inertial[i] < 0.6 * fade[i], "inertialization {} vs cross-fade {}", inertial[i], fade[i]);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(mean(&inertial) < 0.4 * mean(&fade), "mean inertialization {inertial:?} vs cross-fade {fade:?}");
}

#[test]
fn a_transition_to_the_blend_space_is_measured_and_defaults_spread_the_triggers() {
    let report = transition(&[
        "--from",
        "Idle",
        "--to-blend-space",
        SPACE,
        "--at-param",
        "2.4",
        "--duration",
        "0.4",
        "--kind",
        "inertialize",
    ]);
    assert_eq!(report["to"], "blend space Walk=1.4 Run=3.4 at 2.4");
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5, "five trigger times over Idle");
    for run in runs {
        assert_eq!(run["finite"], true);
        assert!(run["velocity_jump_mps"].as_f64().unwrap() < 0.5, "{run}");
    }
    // From the blend space without --at: five times over its blended cycle.
    let report = transition(&["--from-blend-space", SPACE, "--at-param", "2.4", "--to", "Idle"]);
    let at: Vec<f64> = report["runs"].as_array().unwrap().iter().map(|r| r["at_secs"].as_f64().unwrap()).collect();
    assert_eq!(at.len(), 5);
    assert!(at.windows(2).all(|w| w[1] > w[0]), "{at:?}");
}

#[test]
fn bad_blend_space_requests_say_what_is_wrong() {
    let both = refused(&["--from-blend-space", SPACE, "--to-blend-space", SPACE]);
    assert!(both.contains("cannot be used with"), "{both}");
    let clip_and_space = refused(&["--from", "Walk", "--from-blend-space", SPACE, "--to", "Idle"]);
    assert!(clip_and_space.contains("cannot be used with"), "{clip_and_space}");
    let unknown = refused(&["--from-blend-space", "Walk=1.4,Sprint=5", "--to", "Idle"]);
    assert!(unknown.contains("--from-blend-space") && unknown.contains("Sprint"), "{unknown}");
    let two_d = refused(&["--from-blend-space", SPACE, "--at-param", "2,1", "--to", "Idle"]);
    assert!(two_d.contains("--at-param takes 1 coordinate"), "{two_d}");
    let lonely = refused(&["--from", "Walk", "--to", "Idle", "--at-param", "2"]);
    assert!(lonely.contains("--at-param"), "{lonely}");
}

fn built_in() -> Model {
    anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap()
}

/// The Walk/Run space at 2.4, phase-synced by normalized time (the fader's job does not care
/// how the phase is kept), from phase 0.
fn walk_run(model: &Model) -> BlendSpacePlayer {
    let (walk, run) = (model.find_clip("Walk").unwrap(), model.find_clip("Run").unwrap());
    let space = BlendSpace::new_1d(&[(walk, 1.4), (run, 3.4)]).unwrap();
    let mut player = BlendSpacePlayer::new(model, space, PhaseSync::Phase, &[Vec::new(), Vec::new()]).unwrap();
    player.set_parameter(glam::Vec2::new(2.4, 0.0));
    player
}

/// Largest difference of any translation, rotation or scale component.
fn max_difference(a: &SoaPose, b: &SoaPose) -> f32 {
    a.nodes()
        .map(|(node, x)| {
            let y = b.transform(node);
            let rotation = if x.rotation.dot(y.rotation) < 0.0 { -y.rotation } else { y.rotation };
            (x.translation - y.translation)
                .abs()
                .max_element()
                .max((glam::Vec4::from(x.rotation) - glam::Vec4::from(rotation)).abs().max_element())
                .max((x.scale - y.scale).abs().max_element())
        })
        .fold(0.0, f32::max)
}

#[test]
fn the_transition_starts_at_the_blend_spaces_pose_and_ends_at_the_targets() {
    let model = built_in();
    let settings = SampleSettings::default();
    let idle = model.find_clip("Idle").unwrap();
    let dt = 1.0 / 60.0;
    for kind in TransitionKind::ALL {
        // From the blend space, 0.5 s into its playback, to Idle over 0.4 s.
        let mut fader = CrossFader::new(&model, idle);
        fader.set_blend_space(Some(walk_run(&model)));
        fader.play_blend_space();
        let mut alone = walk_run(&model);
        let mut expected = model.rest_pose();
        for _ in 0..30 {
            fader.advance(dt);
            alone.advance(dt);
            fader.evaluate(&model, &settings);
        }
        fader.transition(&model, &settings, idle, &Transition::new(kind, 0.4));
        let start = fader.evaluate(&model, &settings).clone();
        alone.evaluate(&model, &settings, &mut expected);
        let at_start = max_difference(&start, &expected);
        assert!(at_start <= 1e-5, "{kind:?}: the start is off the blend space's pose by {at_start:e}");
        for _ in 0..30 {
            fader.advance(dt);
            fader.evaluate(&model, &settings);
        }
        let mut idle_pose = model.rest_pose();
        model[idle].sample(
            fader.current_time_secs(),
            &mut anim::ClipCursor::new(&model[idle]),
            &settings,
            &mut idle_pose,
        );
        let at_end = max_difference(fader.output(), &idle_pose);
        assert!(at_end <= 1e-5, "{kind:?}: the end is off Idle by {at_end:e}");

        // From Idle to the blend space: the end is the blend space's pose at its own time.
        let mut fader = CrossFader::new(&model, idle);
        fader.play(idle, 0.2);
        fader.set_blend_space(Some(walk_run(&model)));
        fader.evaluate(&model, &settings);
        fader.transition_to_blend_space(&model, &settings, &Transition::new(kind, 0.4));
        let mut alone = walk_run(&model);
        for _ in 0..30 {
            fader.advance(dt);
            alone.advance(dt);
            fader.evaluate(&model, &settings);
        }
        alone.evaluate(&model, &settings, &mut expected);
        let at_end = max_difference(fader.output(), &expected);
        assert!(at_end <= 1e-5, "{kind:?}: the end is off the blend space's pose by {at_end:e}");
    }
}
