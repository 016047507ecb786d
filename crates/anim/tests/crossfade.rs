//! Cross-fade weights over time, interruption, same-clip restarts and rapid re-triggering.

#![allow(clippy::unwrap_used, clippy::type_complexity)]

use anim::crossfade::MAX_LAYERS;
use anim::{ClipId, CrossFader, Easing, Model, SampleSettings};
use devtools::fader::max_pose_change;
use devtools::gltf::Doc;
use serde_json::json;

/// A three-joint chain with three looping clips that move every joint differently.
fn chain_model() -> Model {
    let mut doc = Doc::new();
    doc.add_node(json!({"name": "root", "children": [1]}));
    doc.add_node(json!({"name": "mid", "translation": [0.0, 1.0, 0.0], "children": [2]}));
    doc.add_node(json!({"name": "tip", "translation": [0.0, 1.0, 0.0]}));
    let times: Vec<f32> = (0..=30).map(|i| i as f32 / 30.0).collect();
    for (name, freq, axis) in [("A", 1.0f32, 0usize), ("B", 2.0, 1), ("C", 3.0, 2)] {
        let mut channels_data = Vec::new();
        for node in 0..3 {
            let rot: Vec<f32> = times
                .iter()
                .flat_map(|&t| {
                    let angle = (t * freq * std::f32::consts::TAU + node as f32).sin() * 0.8;
                    let mut axis_v = glam::Vec3::ZERO;
                    axis_v[axis] = 1.0;
                    glam::Quat::from_axis_angle(axis_v, angle).to_array()
                })
                .collect();
            channels_data.push((node, rot));
        }
        let trans: Vec<f32> =
            times.iter().flat_map(|&t| [(t * freq * std::f32::consts::TAU).sin() * 0.3, 0.0, 0.0]).collect();
        let mut channels: Vec<(usize, &str, &[f32], &[f32], &str)> =
            channels_data.iter().map(|(n, r)| (*n, "rotation", &times[..], &r[..], "LINEAR")).collect();
        channels.push((0, "translation", &times[..], &trans[..], "LINEAR"));
        doc.add_animation(Some(name), &channels);
    }
    doc.load().unwrap()
}

/// Clip `index`.
fn clip(index: usize) -> ClipId {
    ClipId::from_index(index)
}

const DT: f32 = 1.0 / 60.0;

/// [`devtools::fader::play_frames`] at [`DT`].
fn play(m: &Model, f: &mut CrossFader, frames: usize, each: impl FnMut(usize, &mut CrossFader)) -> (f32, f32) {
    devtools::fader::play_frames(m, f, frames, DT, each)
}

#[test]
fn weights_follow_the_fade_over_time() {
    let m = chain_model();
    let mut f = CrossFader::new(&m, clip(0));
    let mut w = [0.0; MAX_LAYERS];
    assert_eq!(f.weights(&mut w), 0.0);
    assert_eq!(w[0], 1.0);
    f.trigger(clip(1), 1.0, Easing::Linear);
    f.advance(0.25);
    f.weights(&mut w);
    assert!((w[0] - 0.75).abs() < 1e-6 && (w[1] - 0.25).abs() < 1e-6, "{w:?}");
    assert!(f.is_fading());
    assert_eq!(f.current_clip(), clip(1));
    f.advance(0.75);
    assert!(!f.is_fading());
    assert_eq!(f.layers().len(), 1);
    assert_eq!(f.current_clip(), clip(1));
    // Both clips advanced during the fade: the target is 1 s into its clip.
    assert!((f.current_time_secs() - 1.0).abs() < 1e-6);

    let mut f = CrossFader::new(&m, clip(0));
    f.trigger(clip(1), 2.0, Easing::Smoothstep);
    f.advance(0.5);
    f.weights(&mut w);
    assert!((w[1] - 0.15625).abs() < 1e-6, "smoothstep at a quarter: {w:?}");
}

#[test]
fn the_blended_pose_moves_from_one_clip_to_the_other() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let mut f = CrossFader::new(&m, clip(0));
    f.advance(0.3);
    let a = f.evaluate(&m, &settings).clone();
    f.trigger(clip(1), 0.5, Easing::Linear);
    assert!(max_pose_change(f.evaluate(&m, &settings), &a) < 1e-6, "a trigger changes nothing at its instant");
    f.advance(0.5);
    let only_b = {
        let mut g = CrossFader::new(&m, clip(1));
        g.advance(0.5);
        g.evaluate(&m, &settings).clone()
    };
    assert!(max_pose_change(f.evaluate(&m, &settings), &only_b) < 1e-6, "after the fade only B plays");
}

#[test]
fn no_snap_when_a_fade_is_interrupted_or_retriggered() {
    let m = chain_model();
    // Reference: the largest per-frame change of plain playback of the fastest clip.
    let mut plain = CrossFader::new(&m, clip(2));
    let (plain_step, _) = play(&m, &mut plain, 120, |_, _| {});

    // Interrupt mid-fade: A→B, then C half way.
    let mut f = CrossFader::new(&m, clip(0));
    let (step, _) = play(&m, &mut f, 120, |frame, f| match frame {
        10 => f.trigger(clip(1), 0.4, Easing::Smoothstep),
        22 => f.trigger(clip(2), 0.4, Easing::Smoothstep),
        _ => {}
    });
    assert!(step < 1.5 * plain_step, "interrupted fade jumped {step} rad (playback {plain_step})");
    assert_eq!(f.current_clip(), clip(2));
    assert!(!f.is_fading());
}

#[test]
fn fading_to_the_playing_clip_restarts_it_cleanly() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let mut f = CrossFader::new(&m, clip(0));
    f.advance(0.4);
    let before = f.evaluate(&m, &settings).clone();
    f.trigger(clip(0), 0.3, Easing::Linear);
    assert!(max_pose_change(f.evaluate(&m, &settings), &before) < 1e-6);
    assert_eq!(f.layers().len(), 2);
    f.advance(0.3);
    assert_eq!(f.layers().len(), 1);
    assert!((f.current_time_secs() - 0.3).abs() < 1e-6, "restarted from 0");
}

#[test]
fn a_to_b_to_a_inside_one_frame_keeps_the_pose_and_ends_on_a() {
    let m = chain_model();
    let settings = SampleSettings::default();
    let mut f = CrossFader::new(&m, clip(0));
    f.advance(0.2);
    let before = f.evaluate(&m, &settings).clone();
    f.trigger(clip(1), 0.25, Easing::Linear);
    f.trigger(clip(0), 0.25, Easing::Linear);
    assert!(max_pose_change(f.evaluate(&m, &settings), &before) < 1e-6, "no snap at the instant");
    let (step, from_rest) = play(&m, &mut f, 40, |_, _| {});
    assert!(from_rest > 0.05, "never a T-pose");
    assert!(step < 0.5, "no snap: {step}");
    assert_eq!(f.current_clip(), clip(0));
    assert!(!f.is_fading());
}

#[test]
fn retriggering_every_frame_never_freezes_t_poses_or_snaps() {
    let m = chain_model();
    let mut plain = CrossFader::new(&m, clip(2));
    let (plain_step, _) = play(&m, &mut plain, 120, |_, _| {});
    let mut f = CrossFader::new(&m, clip(0));
    let settings = SampleSettings::default();
    let mut moved = 0;
    let mut prev = f.evaluate(&m, &settings).clone();
    let (step, from_rest) = play(&m, &mut f, 300, |frame, f| {
        f.trigger(clip(frame % 3), 0.3, Easing::Linear);
        assert!(f.layers().len() <= MAX_LAYERS);
    });
    assert!(step < 1.5 * plain_step, "re-triggering jumped {step} (playback {plain_step})");
    assert!(from_rest > 0.05, "never a T-pose");
    // Not frozen: the pose keeps changing frame after frame.
    for frame in 0..60 {
        f.trigger(clip(frame % 2), 0.3, Easing::Linear);
        f.advance(DT);
        let pose = f.evaluate(&m, &settings);
        if max_pose_change(pose, &prev) > 1e-4 {
            moved += 1;
        }
        prev.copy_from(pose);
    }
    assert!(moved >= 55, "the pose froze: it moved on only {moved} of 60 frames");
    let mut w = [0.0; MAX_LAYERS];
    let snapshot = f.weights(&mut w);
    assert!((w.iter().sum::<f32>() + snapshot - 1.0).abs() < 1e-5);
}

#[test]
fn zero_duration_switches_at_once_and_bad_durations_are_safe() {
    let m = chain_model();
    let mut f = CrossFader::new(&m, clip(0));
    f.trigger(clip(1), 0.0, Easing::Linear);
    f.advance(DT);
    assert!(!f.is_fading());
    f.trigger(clip(2), f32::NAN, Easing::Linear);
    f.advance(f32::INFINITY);
    let pose = f.evaluate(&m, &SampleSettings::default());
    assert!(pose.is_finite());
    assert_eq!(f.current_clip(), clip(2));
}
