//! Layers and blend spaces on the W64 workload: a masked layer at weight 1 is the layer clip on
//! the masked joints and the base elsewhere, exactly; an additive layer at its reference time
//! changes nothing; blend-space weights reproduce their corner clips exactly and keep a
//! phase-synced cycle.

#![allow(clippy::unwrap_used)]

use anim::workload::w64_model;
use anim::{
    AdditiveReference, BlendSpace, BlendSpacePlayer, ClipCursor, ClipId, FootContact, LayerBlend, LayerDesc,
    LayerStack, Model, NodeId, NodeMask, PhaseSync, SampleSettings, SoaPose,
};
use glam::Vec2;

fn sampled(model: &Model, clip: ClipId, time_secs: f32) -> SoaPose {
    let mut pose = model.rest_pose();
    let c = model.clip(clip).unwrap();
    c.sample(time_secs, &mut ClipCursor::new(c), &SampleSettings::default(), &mut pose);
    pose
}

/// Largest difference of any component between two poses' transforms.
fn max_difference(a: &SoaPose, b: &SoaPose) -> f32 {
    a.nodes()
        .zip(b.nodes())
        .map(|((_, x), (_, y))| {
            let r = if x.rotation.dot(y.rotation) < 0.0 { -y.rotation } else { y.rotation };
            (x.translation - y.translation)
                .abs()
                .max_element()
                .max((glam::Vec4::from(x.rotation) - glam::Vec4::from(r)).abs().max_element())
                .max((x.scale - y.scale).abs().max_element())
        })
        .fold(0.0, f32::max)
}

#[test]
fn a_masked_layer_at_weight_one_is_the_layer_on_the_mask_and_the_base_elsewhere_exactly() {
    let model = w64_model();
    let (base_clip, layer_clip) = (ClipId::from_index(0), ClipId::from_index(2));
    let root = NodeId::from_index(5);
    let mask = NodeMask::from_subtrees(&model.hierarchy, &[root]);
    let masked = mask.count_on();
    assert!(masked > 1 && masked < model.nodes.len(), "{masked} of {}", model.nodes.len());
    let settings = SampleSettings::default();
    let mut stack =
        LayerStack::new(&model, &settings, vec![LayerDesc { mask: mask.clone(), ..LayerDesc::new(layer_clip) }])
            .unwrap();
    let duration = model.clip(layer_clip).unwrap().end_secs();
    let mut checked = 0;
    for k in 0..7 {
        // Past the layer's end: it loops to its own length.
        let t = 0.11 + k as f32 * 0.37;
        let base = sampled(&model, base_clip, t);
        let layer = sampled(&model, layer_clip, t.rem_euclid(duration));
        let mut pose = base.clone();
        stack.apply(&model, &settings, t, &mut pose);
        let mut moved = 0;
        for (node, got) in pose.nodes() {
            let expected = if mask.get(node) == 1.0 { layer.transform(node) } else { base.transform(node) };
            assert_eq!(got, expected, "node {node} at {t} s");
            moved += usize::from(layer.transform(node) != base.transform(node) && mask.get(node) == 1.0);
            checked += 1;
        }
        assert!(moved > 0, "the layer changes nothing at {t} s: the test would not see a wrong mask");
    }
    assert_eq!(checked, 7 * model.nodes.len());
    // Half weight lies between the two.
    stack.set_weight(0, 0.5);
    let base = sampled(&model, base_clip, 0.4);
    let mut half = base.clone();
    stack.apply(&model, &settings, 0.4, &mut half);
    let layer = sampled(&model, layer_clip, 0.4);
    let (to_base, to_layer) = (max_difference(&half, &base), max_difference(&half, &layer));
    assert!(to_base > 1e-3 && to_base < max_difference(&base, &layer), "{to_base} {to_layer}");
}

#[test]
fn an_additive_layer_at_its_reference_time_changes_nothing_and_elsewhere_adds_its_motion() {
    let model = w64_model();
    let (base_clip, layer_clip) = (ClipId::from_index(0), ClipId::from_index(2));
    let settings = SampleSettings::default();
    let duration = model.clip(layer_clip).unwrap().end_secs();
    for reference_secs in [0.0, 0.25 * duration, 0.8 * duration] {
        let reference = if reference_secs == 0.0 {
            AdditiveReference::FirstFrame
        } else {
            AdditiveReference::AtSecs(reference_secs)
        };
        let desc = LayerDesc { blend: LayerBlend::Additive(reference), ..LayerDesc::new(layer_clip) };
        let mut stack = LayerStack::new(&model, &settings, vec![desc]).unwrap();
        let base = sampled(&model, base_clip, reference_secs);
        let mut pose = base.clone();
        stack.apply(&model, &settings, reference_secs, &mut pose);
        let unchanged = max_difference(&pose, &base);
        assert!(unchanged <= 1e-6, "additive at its reference {reference_secs} s moved the base by {unchanged:e}");
        // Away from the reference it adds the layer's motion.
        let t = reference_secs + 0.3 * duration;
        let base = sampled(&model, base_clip, t);
        let mut pose = base.clone();
        stack.apply(&model, &settings, t, &mut pose);
        assert!(max_difference(&pose, &base) > 1e-2);
    }
    // Another clip's first frame as the reference: the layer clip over its own first frame at
    // time 0 of a base of that same clip adds the difference between the two first frames.
    let desc = LayerDesc {
        blend: LayerBlend::Additive(AdditiveReference::ClipFirstFrame(layer_clip)),
        ..LayerDesc::new(layer_clip)
    };
    let mut stack = LayerStack::new(&model, &settings, vec![desc]).unwrap();
    let base = sampled(&model, base_clip, 0.0);
    let mut pose = base.clone();
    stack.apply(&model, &settings, 0.0, &mut pose);
    assert!(max_difference(&pose, &base) <= 1e-6);
    // Bad input is refused.
    let bad = LayerDesc { weight: f32::NAN, ..LayerDesc::new(layer_clip) };
    assert!(LayerStack::new(&model, &settings, vec![bad]).is_err());
    assert!(LayerStack::new(&model, &settings, vec![LayerDesc::new(ClipId::from_index(99))]).is_err());
}

#[test]
fn a_layer_ramps_in_over_time() {
    let model = w64_model();
    let settings = SampleSettings::default();
    let desc = LayerDesc { ramp_secs: 0.5, ..LayerDesc::new(ClipId::from_index(1)) };
    let mut stack = LayerStack::new(&model, &settings, vec![desc]).unwrap();
    assert_eq!(stack.effective_weight(0), 0.0);
    let base = sampled(&model, ClipId::from_index(0), 0.2);
    let mut pose = base.clone();
    stack.apply(&model, &settings, 0.2, &mut pose);
    assert_eq!(pose, base);
    for _ in 0..15 {
        stack.advance(1.0 / 60.0);
    }
    assert!((stack.effective_weight(0) - 0.5).abs() < 1e-4, "{}", stack.effective_weight(0));
    for _ in 0..20 {
        stack.advance(1.0 / 60.0);
    }
    assert_eq!(stack.effective_weight(0), 1.0);
}

#[test]
fn blend_space_corners_reproduce_their_clips_and_the_phase_follows_the_markers() {
    let model = w64_model();
    let (a, b) = (ClipId::from_index(0), ClipId::from_index(1));
    let space = BlendSpace::new_1d(&[(a, 0.0), (b, 1.0)]).unwrap();
    let (da, db) = (model.clip(a).unwrap().end_secs(), model.clip(b).unwrap().end_secs());
    let contacts = [
        vec![FootContact { foot: 0, time_secs: 0.1 * da }, FootContact { foot: 1, time_secs: 0.6 * da }],
        vec![FootContact { foot: 1, time_secs: 0.2 * db }, FootContact { foot: 0, time_secs: 0.9 * db }],
    ];
    let mut player = BlendSpacePlayer::new(&model, space, PhaseSync::Phase, &contacts).unwrap();
    assert!(player.syncs_by_markers());
    let settings = SampleSettings::default();
    let mut pose = model.rest_pose();
    // At the first corner: clip A exactly, at its own rate.
    player.set_parameter(Vec2::new(0.0, 0.0));
    assert_eq!(player.weights(), &[1.0, 0.0]);
    assert_eq!(player.playback_rate(), 1.0);
    for _ in 0..10 {
        player.advance(1.0 / 60.0);
    }
    player.evaluate(&model, &settings, &mut pose);
    let t = player.clip_time_secs(0);
    assert!(((t - 0.1 * da).rem_euclid(da) - 10.0 / 60.0).abs() < 1e-4, "{t}");
    assert_eq!(pose, sampled(&model, a, t));
    // At the second: clip B exactly, and both clips at the same foot's marker at phase 0.
    player.set_parameter(Vec2::new(1.0, 0.0));
    player.set_phase(0.0);
    assert!((player.clip_time_secs(0) - 0.1 * da).abs() < 1e-5);
    assert!((player.clip_time_secs(1) - 0.9 * db).abs() < 1e-5);
    player.evaluate(&model, &settings, &mut pose);
    assert_eq!(pose, sampled(&model, b, player.clip_time_secs(1)));
    // Half way: the cycle is the mean of the two, and a full cycle returns to phase 0.
    player.set_parameter(Vec2::new(0.5, 0.0));
    assert!((player.cycle_secs() - 0.5 * (da + db)).abs() < 1e-5);
    let frames = (player.cycle_secs() * 600.0).round() as usize;
    for _ in 0..frames {
        player.advance(1.0 / 600.0);
    }
    let phase = player.phase();
    assert!(phase.min(1.0 - phase) < 2e-3, "phase after one cycle: {phase}");
    // Half a cycle later each clip is at its other foot's marker.
    player.set_phase(0.5);
    assert!((player.clip_time_secs(0) - 0.6 * da).abs() < 1e-5);
    assert!((player.clip_time_secs(1) - 0.2 * db).abs() < 1e-5);
}
