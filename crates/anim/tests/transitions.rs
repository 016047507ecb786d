//! Transition kinds (cross-fade, inertialization, dead blending): interruption safety, velocity
//! continuity, the decay curves, speed matching and root motion (as authored, in place).

#![allow(clippy::unwrap_used, clippy::type_complexity)]

use anim::crossfade::MAX_LAYERS;
use anim::{
    ClipId, CrossFader, Easing, Model, OffsetDecay, PoseDelta, RootMotion, SampleSettings, Transition, TransitionKind,
};
use devtools::fader::max_pose_change;
use devtools::gltf::Doc;
use glam::{Quat, Vec3};
use serde_json::json;

const DT: f32 = 1.0 / 60.0;

/// [`devtools::fader::play_frames`] at [`DT`].
fn play(m: &Model, f: &mut CrossFader, frames: usize, each: impl FnMut(usize, &mut CrossFader)) -> (f32, f32) {
    devtools::fader::play_frames(m, f, frames, DT, each)
}

/// A three-joint chain with three looping clips that move every joint differently; the root
/// also walks forward along +Z (clip i at 0.5·(i+1) units per second).
fn chain_model() -> Model {
    let mut doc = Doc::new();
    doc.add_node(json!({"name": "root", "children": [1]}));
    doc.add_node(json!({"name": "mid", "translation": [0.0, 1.0, 0.0], "children": [2]}));
    doc.add_node(json!({"name": "tip", "translation": [0.0, 1.0, 0.0]}));
    let times: Vec<f32> = (0..=30).map(|i| i as f32 / 30.0).collect();
    let mut data = Vec::new();
    for (freq, axis) in [(1.0f32, 0usize), (2.0, 1), (3.0, 2)] {
        let rotations: Vec<Vec<f32>> = (0..3)
            .map(|node| {
                times
                    .iter()
                    .flat_map(|&t| {
                        let mut a = Vec3::ZERO;
                        a[axis] = 1.0;
                        Quat::from_axis_angle(a, (t * freq * std::f32::consts::TAU + node as f32).sin() * 0.8)
                            .to_array()
                    })
                    .collect()
            })
            .collect();
        let speed = 0.5 * freq;
        let trans: Vec<f32> =
            times.iter().flat_map(|&t| [(t * freq * std::f32::consts::TAU).sin() * 0.3, 0.1 * t, speed * t]).collect();
        data.push((rotations, trans));
    }
    for (name, (rotations, trans)) in ["A", "B", "C"].into_iter().zip(&data) {
        let mut channels: Vec<(usize, &str, &[f32], &[f32], &str)> =
            rotations.iter().enumerate().map(|(n, r)| (n, "rotation", &times[..], &r[..], "LINEAR")).collect();
        channels.push((0, "translation", &times[..], &trans[..], "LINEAR"));
        doc.add_animation(Some(name), &channels);
    }
    doc.load().unwrap()
}

fn clip(index: usize) -> ClipId {
    ClipId::from_index(index)
}

/// A fader on `m` with root motion in place (so the forward walk does not count as motion).
fn fader(m: &Model, start: usize) -> CrossFader {
    let mut f = CrossFader::new(m, clip(start));
    f.set_root_motion(m, Some(RootMotion::InPlace));
    f
}

/// The largest per-frame change of plain playback of the fastest clip.
fn plain_step(m: &Model) -> f32 {
    play(m, &mut fader(m, 2), 120, |_, _| {}).0
}

fn kind_transition(kind: TransitionKind, duration_secs: f32) -> Transition {
    Transition { easing: Easing::Smoothstep, ..Transition::new(kind, duration_secs) }
}

#[test]
fn every_kind_survives_a_to_b_to_a_within_one_frame() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let plain = plain_step(&m);
    for kind in TransitionKind::ALL {
        let mut f = fader(&m, 0);
        play(&m, &mut f, 12, |_, _| {});
        let before = f.output().clone();
        f.transition(&m, &settings, clip(1), &kind_transition(kind, 0.3));
        f.transition(&m, &settings, clip(0), &kind_transition(kind, 0.3));
        let (step, from_rest) = play(&m, &mut f, 60, |_, _| {});
        assert!(step < 1.5 * plain, "{kind:?}: A→B→A jumped {step} (plain playback {plain})");
        assert!(from_rest > 0.05, "{kind:?}: a T-pose");
        assert_eq!(f.current_clip(), clip(0), "{kind:?}");
        assert!(!f.is_fading(), "{kind:?}: still fading after 1 s");
        assert!(max_pose_change(f.output(), &before) > 1e-3, "{kind:?}: frozen");
    }
}

#[test]
fn every_kind_survives_retriggering_every_frame_without_freezing() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let plain = plain_step(&m);
    for kind in TransitionKind::ALL {
        let mut f = fader(&m, 0);
        play(&m, &mut f, 10, |_, _| {});
        let (step, from_rest) = play(&m, &mut f, 240, |frame, f| {
            f.transition(&m, &settings, clip(frame % 3), &kind_transition(kind, 0.3));
            assert!(f.layers().len() <= MAX_LAYERS);
        });
        assert!(step < 1.5 * plain, "{kind:?}: re-triggering jumped {step} (plain playback {plain})");
        assert!(from_rest > 0.05, "{kind:?}: a T-pose");
        // Not frozen: the pose keeps changing frame after frame.
        let mut prev = f.output().clone();
        let mut moved = 0;
        for frame in 0..60 {
            f.transition(&m, &settings, clip(frame % 2), &kind_transition(kind, 0.3));
            f.advance(DT);
            let pose = f.evaluate(&m, &settings);
            if max_pose_change(pose, &prev) > 1e-4 {
                moved += 1;
            }
            prev.copy_from(pose);
        }
        assert!(moved >= 55, "{kind:?}: the pose froze: it moved on only {moved} of 60 frames");
        assert!(f.output().is_finite());
    }
}

/// The change of per-frame motion (a discrete second difference) across frame 20 of playing
/// A, with `transition` to B triggered there (or none).
fn motion_change(m: &Model, transition: Option<&Transition>) -> PoseDelta {
    let settings = SampleSettings::default();
    let mut f = fader(m, 0);
    let mut poses = Vec::new();
    for frame in 0..21 {
        if frame == 20
            && let Some(t) = transition
        {
            f.transition(m, &settings, clip(1), t);
        }
        f.advance(DT);
        poses.push(f.evaluate(m, &settings).clone());
    }
    let mut before = PoseDelta::zeros_like(&poses[0]);
    let mut after = before.clone();
    before.set_difference(&poses[19], &poses[18], 1.0);
    after.set_difference(&poses[20], &poses[19], 1.0);
    let mut change = before.clone();
    change.set_combination(&after, 1.0, &before, -1.0);
    change
}

/// How much more the per-frame motion changes at the trigger than A's own playback changes it.
fn motion_change_at_trigger(m: &Model, transition: &Transition) -> f32 {
    let mut change = motion_change(m, Some(transition));
    change.add_scaled(&motion_change(m, None), -1.0);
    let (t, r, _) = change.max_norms();
    t.max(r)
}

#[test]
fn inertialization_and_dead_blending_keep_the_motion_at_the_trigger_better_than_a_cross_fade() {
    let m = chain_model();
    let fade = motion_change_at_trigger(&m, &Transition::cross_fade(0.4, Easing::Linear));
    let cut = motion_change_at_trigger(&m, &Transition::cross_fade(0.0, Easing::Linear));
    // The quintic matches value, velocity and acceleration (what is left are the kinks of these
    // LINEAR clips' own velocity at their keys).
    let quintic = motion_change_at_trigger(&m, &Transition::new(TransitionKind::Inertialize, 0.4));
    assert!(quintic < 0.5 * fade, "quintic {quintic} vs cross-fade {fade}");
    // The spring matches value and velocity (its start acceleration is its own).
    let spring =
        Transition { decay: OffsetDecay::CriticallyDamped, ..Transition::new(TransitionKind::Inertialize, 0.4) };
    let spring = motion_change_at_trigger(&m, &spring);
    assert!(spring < 0.25 * cut, "spring {spring} vs a cut {cut}");
    // Dead blending fades the target in as the cross-fade does, over an extrapolation that
    // moves the first frame as the source would have (its velocity over that frame, raised for
    // the decay within it; the per-joint saturation takes off a little).
    let dead = motion_change_at_trigger(&m, &Transition::new(TransitionKind::DeadBlend, 0.4));
    assert!(dead <= 1.01 * fade, "dead blending {dead} vs cross-fade {fade}");
    eprintln!(
        "motion change at the trigger: quintic {quintic}, spring {spring}, dead blend {dead}, cross-fade {fade}, cut {cut}"
    );
}

#[test]
fn decay_curves_match_value_and_velocity_at_the_start_and_end_at_zero() {
    for decay in OffsetDecay::ALL {
        let (p0, q0, r0) = decay.basis(0.0, 0.5);
        assert_eq!(r0, 0.0);
        assert!((p0 - 1.0).abs() < 1e-6 && q0.abs() < 1e-6, "{decay:?}");
        let h = 1e-4;
        let (p1, q1, _) = decay.basis(h, 0.5);
        assert!(((p1 - p0) / h).abs() < 0.05, "{decay:?}: p'(0) = {}", (p1 - p0) / h);
        assert!(((q1 - q0) / h - 1.0).abs() < 0.02, "{decay:?}: q'(0) = {}", (q1 - q0) / h);
        let (pe, qe, re) = decay.basis(0.5 - 1e-4, 0.5);
        assert!(pe.abs() < 1e-3 && qe.abs() < 1e-3 && re.abs() < 1e-6, "{decay:?}: not at zero by the end");
        assert_eq!(decay.basis(0.6, 0.5), (0.0, 0.0, 0.0));
        assert_eq!(decay.basis(0.1, f32::NAN), (0.0, 0.0, 0.0));
    }
    // The quintic's acceleration basis: r''(0) = 1.
    let h = 1e-3;
    let r = |t| OffsetDecay::Quintic.basis(t, 0.5).2;
    assert!(((r(2.0 * h) - 2.0 * r(h) + r(0.0)) / (h * h) - 1.0).abs() < 0.05);
    {}
    assert!((anim::interp::decayed_travel(0.1, 0.1) - 0.5 * 0.1 / std::f32::consts::LN_2).abs() < 1e-6);
    assert_eq!(anim::interp::decayed_travel(1.0, 0.0), 0.0);
}

#[test]
fn in_place_root_stays_at_its_anchor_and_the_offset_carries_over_loops_and_transitions() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let mut f = fader(&m, 0);
    let root = anim::NodeId::from_index(0);
    let anchor = f.root_anchor();
    let mut worst = 0.0f32;
    let mut last_offset = f.character_offset();
    let mut slowest = f32::INFINITY;
    for frame in 0..(60 * 10) {
        match frame {
            150 => f.transition(&m, &settings, clip(1), &Transition::cross_fade(0.5, Easing::Smoothstep)),
            300 => f.transition(&m, &settings, clip(2), &Transition::new(TransitionKind::Inertialize, 0.4)),
            450 => f.transition(&m, &settings, clip(0), &Transition::new(TransitionKind::DeadBlend, 0.4)),
            _ => {}
        }
        f.advance(DT);
        let shown = f.evaluate(&m, &settings).translation(root);
        worst = worst.max(f.horizontal(shown - anchor).length());
        let offset = f.character_offset();
        slowest = slowest.min((offset.z - last_offset.z) / DT);
        last_offset = offset;
    }
    assert!(worst < 1e-5, "the root left its anchor by {worst}");
    // Forward all the way (velocity blended, never position): never backwards over a loop or a
    // transition, and at least the slowest clip's speed.
    assert!(slowest > 0.45, "the character offset slowed to {slowest} units/s");
    let expected = 0.5 * 2.5 + 1.0 * 2.5 + 1.5 * 2.5 + 0.5 * 2.5;
    assert!((last_offset.z - expected).abs() < 0.25, "travelled {} (about {expected} expected)", last_offset.z);
    assert!(last_offset.y.abs() < 1e-6, "vertical motion stays in the pose");
}

#[test]
fn authored_root_motion_continues_across_loops_instead_of_snapping_back() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let mut f = CrossFader::new(&m, clip(0));
    f.set_root_motion(&m, Some(RootMotion::Authored));
    let root = anim::NodeId::from_index(0);
    let mut prev_z = f.evaluate(&m, &settings).translation(root).z;
    for frame in 0..240 {
        if frame == 100 {
            f.transition(&m, &settings, clip(1), &Transition::cross_fade(0.5, Easing::Linear));
        }
        f.advance(DT);
        let z = f.evaluate(&m, &settings).translation(root).z;
        assert!(z - prev_z > 0.0 && z - prev_z < 1.1 * DT, "frame {frame}: the root moved {} along z", z - prev_z);
        prev_z = z;
    }
    assert!(prev_z > 2.5, "the root walked {prev_z}");
}

#[test]
fn speed_matching_starts_the_target_at_the_source_cycle_rate() {
    let m = chain_model();
    let settings = SampleSettings::default();
    for kind in [TransitionKind::DeadBlend, TransitionKind::Inertialize] {
        let mut f = fader(&m, 0);
        f.advance(0.25);
        f.evaluate(&m, &settings);
        // From a 2 s cycle into C (1 s): C starts at half speed and reaches its own.
        let t = Transition { match_cycle_secs: 2.0, start_secs: 0.25, ..Transition::new(kind, 1.0) };
        f.transition(&m, &settings, clip(2), &t);
        f.advance(0.01);
        let early = f.current_time_secs() - 0.25;
        assert!((early - 0.005).abs() < 2e-4, "{kind:?}: target advanced {early} s in 0.01 s");
        f.advance(1.2);
        let before = f.current_time_secs();
        f.advance(0.1);
        assert!((f.current_time_secs() - before - 0.1).abs() < 1e-5, "{kind:?}: own speed after the fade");
    }
}
