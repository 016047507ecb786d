//! Layers and blend spaces on the W64 workload: a masked layer at weight 1 is the layer clip on
//! the masked joints and the base elsewhere, exactly; an additive layer at its reference time
//! changes nothing; blend-space weights reproduce their corner clips exactly and keep a
//! phase-synced cycle; the eight-lane additive kernel matches its definition in f64.

#![allow(clippy::unwrap_used)]

use anim::rng::Rng;
use anim::workload::w64_model;
use anim::{
    AdditiveReference, BlendSpace, BlendSpacePlayer, ClipCursor, ClipId, FootContact, LayerBlend, LayerDesc,
    LayerStack, Model, NodeId, NodeMask, PhaseSync, SampleSettings, SoaPose, Transform, apply_additive,
};
use glam::{DQuat, DVec3, Quat, Vec2, Vec3};
use proptest::prelude::*;

fn sampled(model: &Model, clip: ClipId, time_secs: f32) -> SoaPose {
    let mut pose = model.rest_pose();
    let c = model.clip(clip).unwrap();
    c.sample(time_secs, &mut ClipCursor::new(c), &SampleSettings::default(), &mut pose);
    pose
}

use devtools::fader::max_component_difference as max_difference;

#[test]
fn a_masked_layer_at_weight_one_is_the_layer_on_the_mask_and_the_base_elsewhere_exactly() {
    let model = w64_model();
    let (base_clip, layer_clip) = (ClipId::from_index(0), ClipId::from_index(2));
    let root = NodeId::from_index(5);
    let mask = NodeMask::from_subtrees(&model.hierarchy, &[root]);
    let masked = mask.count_on();
    assert!(masked > 1 && masked < model.nodes().len(), "{masked} of {}", model.nodes().len());
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
    assert_eq!(checked, 7 * model.nodes().len());
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

/// The additive definition in f64 with the library's trigonometry: `base · slerp(1, delta, w)`
/// with `delta = reference⁻¹ · layer` on its `w ≥ 0` hemisphere, `base · exp(w · ln(l / r))`
/// per scale component (the base's where either is not positive and finite), `base + w·(l − r)`.
fn additive_f64(base: &Transform, layer: &Transform, reference: &Transform, w: f64) -> (DVec3, DQuat, DVec3) {
    let mut delta = (reference.rotation.as_dquat().conjugate() * layer.rotation.as_dquat()).normalize();
    if delta.w < 0.0 {
        delta = -delta;
    }
    let omega = delta.w.min(1.0).acos();
    let turn = if omega < 1e-12 {
        delta
    } else {
        let (a, b) = (((1.0 - w) * omega).sin() / omega.sin(), (w * omega).sin() / omega.sin());
        DQuat::from_xyzw(delta.x * b, delta.y * b, delta.z * b, a + delta.w * b)
    };
    let rotation = (base.rotation.as_dquat() * turn).normalize();
    let factor = |l: f32, r: f32| {
        let (l, r) = (f64::from(l), f64::from(r));
        if l > 0.0 && r > 0.0 && l.is_finite() && r.is_finite() { (w * (l / r).ln()).exp() } else { 1.0 }
    };
    let (l, r) = (layer.scale, reference.scale);
    let scale = base.scale.as_dvec3() * DVec3::new(factor(l.x, r.x), factor(l.y, r.y), factor(l.z, r.z));
    let translation = base.translation.as_dvec3() + w * (layer.translation - reference.translation).as_dvec3();
    (translation, rotation, scale)
}

fn random_pose(rng: &mut Rng, nodes: usize, max_turn_rad: f32) -> SoaPose {
    let transforms: Vec<Transform> = (0..nodes)
        .map(|_| Transform {
            translation: rng.vec3(-3.0, 3.0),
            // Rotations up to `max_turn_rad` from the identity, so that deltas span 0 to 180°.
            rotation: Quat::from_axis_angle(
                rng.vec3(-1.0, 1.0).try_normalize().unwrap_or(Vec3::Y),
                rng.range(0.0, max_turn_rad),
            ),
            scale: Vec3::new(rng.range(0.1, 4.0), rng.range(0.1, 4.0), rng.range(0.1, 4.0)),
        })
        .collect();
    SoaPose::from_transforms(&transforms, Vec::new())
}

#[test]
fn an_additive_reference_follows_a_change_of_sampling_settings() {
    // Between two keys of W64 (1/30 s apart), STEP and LINEAR sample different poses: a
    // reference kept from the settings the stack was built with would move the base.
    let model = w64_model();
    let (base_clip, layer_clip) = (ClipId::from_index(0), ClipId::from_index(2));
    let reference_secs = 0.37;
    let desc = LayerDesc {
        blend: LayerBlend::Additive(AdditiveReference::AtSecs(reference_secs)),
        ..LayerDesc::new(layer_clip)
    };
    let mut stack = LayerStack::new(&model, &SampleSettings::default(), vec![desc]).unwrap();
    let step = SampleSettings::with_mode(anim::InterpolationOverride::Step);
    let (linear_pose, step_pose) = {
        let c = model.clip(layer_clip).unwrap();
        let (mut a, mut b) = (model.rest_pose(), model.rest_pose());
        c.sample(reference_secs, &mut ClipCursor::new(c), &SampleSettings::default(), &mut a);
        c.sample(reference_secs, &mut ClipCursor::new(c), &step, &mut b);
        (a, b)
    };
    assert!(max_difference(&linear_pose, &step_pose) > 1e-3, "the settings must matter at this time");
    for settings in [step, SampleSettings::default()] {
        let base = sampled(&model, base_clip, reference_secs);
        let mut pose = base.clone();
        stack.apply(&model, &settings, reference_secs, &mut pose);
        let moved = max_difference(&pose, &base);
        assert!(moved <= 1e-6, "{:?}: additive at its reference moved the base by {moved:e}", settings.mode);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The eight-lane additive kernel against the definition in f64, over random poses (deltas
    /// from 0 to 180°, scales 0.1 to 4), weights 0 to 1 and node counts that leave partial
    /// blocks: rotation within 1e-6 rad, translation within 2e-6 m, scale within 1e-6 relative;
    /// nodes at weight 0 keep the base exactly.
    #[test]
    fn the_additive_kernel_matches_its_definition(seed in any::<u64>(), nodes in 1usize..40, spread in 0.1f32..1.0) {
        let mut rng = Rng::new(seed);
        let max_turn = spread * std::f32::consts::PI;
        let base = random_pose(&mut rng, nodes, std::f32::consts::PI);
        let layer = random_pose(&mut rng, nodes, max_turn);
        let reference = random_pose(&mut rng, nodes, max_turn);
        let weights: Vec<f32> =
            (0..nodes).map(|i| if i % 9 == 0 { 0.0 } else if i % 9 == 1 { 1.0 } else { rng.unit() }).collect();
        let mut pose = base.clone();
        apply_additive(&mut pose, &layer, &reference, &weights);
        let (mut angle, mut translation, mut scale) = (0.0f64, 0.0f64, 0.0f64);
        for (node, got) in pose.nodes() {
            let (b, w) = (base.transform(node), weights[node.index()]);
            if w == 0.0 {
                prop_assert_eq!(got, b);
                continue;
            }
            let (t, r, s) = additive_f64(&b, &layer.transform(node), &reference.transform(node), f64::from(w));
            let relative = got.rotation.as_dquat().conjugate() * r;
            angle = angle.max(2.0 * relative.xyz().length().atan2(relative.w.abs()));
            translation = translation.max((got.translation.as_dvec3() - t).abs().max_element());
            scale = scale.max(((got.scale.as_dvec3() - s) / s).abs().max_element());
        }
        prop_assert!(angle < 1e-6, "rotation {angle:e} rad from the definition");
        prop_assert!(translation < 2e-6, "translation {translation:e} m from the definition");
        prop_assert!(scale < 1e-6, "scale {scale:e} (relative) from the definition");
    }
}
