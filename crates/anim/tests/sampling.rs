//! Sampling against values computed by hand from the glTF 2.0 spec (Appendix C), overrides and
//! teaching modes, on small generated documents and on the shared sample models.

#![allow(clippy::unwrap_used)]

use anim::{
    ClipCursor, Easing, InterpolationOverride, Model, NodePose, RotationSpace, SampleSettings, ScaleSpace, TrackId,
    TrackSample,
};
use devtools::gltf::Doc;
use glam::{Quat, Vec3};
use serde_json::json;

const EPS: f32 = 1e-5;

/// Sample through the runtime pose and read it back through the node-indexed view.
fn sample(model: &Model, clip: usize, t: f32, settings: &SampleSettings) -> NodePose {
    let mut pose = model.rest_pose();
    let mut cursor = ClipCursor::new(&model.clips()[clip]);
    model.clips()[clip].sample(t, &mut cursor, settings, &mut pose);
    NodePose::from(&pose)
}

fn authored(model: &Model, clip: usize, t: f32) -> NodePose {
    sample(model, clip, t, &SampleSettings::default())
}

fn assert_vec3(actual: Vec3, expected: Vec3, what: &str) {
    assert!((actual - expected).abs().max_element() < 1e-4, "{what}: {actual} != {expected}");
}

fn assert_quat(actual: Quat, expected: Quat, what: &str) {
    let d = (glam::Vec4::from(actual) - glam::Vec4::from(expected)).abs().max_element();
    assert!(d < 1e-4, "{what}: {actual} != {expected}");
}

/// One node, one channel.
fn single(path: &str, times: &[f32], values: &[f32], interpolation: &str) -> Model {
    let mut doc = Doc::new();
    doc.add_node(json!({"name": "n", "translation": [1.0, 2.0, 3.0], "scale": [2.0, 2.0, 2.0]}));
    doc.add_animation(Some("clip"), &[(0, path, times, values, interpolation)]);
    doc.load().expect("valid document")
}

#[test]
fn step_holds_the_key_at_or_before_t() {
    let m = single("translation", &[0.0, 1.0, 2.0], &[0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 20.0, 0.0, 0.0], "STEP");
    for (t, x) in [(-1.0, 0.0), (0.0, 0.0), (0.999, 0.0), (1.0, 10.0), (1.5, 10.0), (2.0, 20.0), (9.0, 20.0)] {
        assert_eq!(authored(&m, 0, t).translations[0].x, x, "t = {t}");
    }
}

#[test]
fn linear_lerps_and_clamps_outside_the_keys() {
    let m = single("translation", &[1.0, 3.0], &[0.0, 0.0, 0.0, 4.0, 8.0, -4.0], "LINEAR");
    assert_vec3(authored(&m, 0, 0.0).translations[0], Vec3::ZERO, "before first key");
    assert_vec3(authored(&m, 0, 1.5).translations[0], Vec3::new(1.0, 2.0, -1.0), "quarter");
    assert_vec3(authored(&m, 0, 2.0).translations[0], Vec3::new(2.0, 4.0, -2.0), "half");
    assert_vec3(authored(&m, 0, 5.0).translations[0], Vec3::new(4.0, 8.0, -4.0), "after last key");
    // Scale and rotation are not animated: they keep the node's own values.
    let p = authored(&m, 0, 2.0);
    assert_eq!(p.scales[0], Vec3::splat(2.0));
    assert_eq!(p.rotations[0], Quat::IDENTITY);
}

#[test]
fn linear_rotation_takes_the_shortest_path_across_a_sign_flip() {
    let q90 = Quat::from_rotation_y(90f32.to_radians());
    let neg = -q90; // the same orientation, opposite hemisphere
    let m = single("rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, neg.x, neg.y, neg.z, neg.w], "LINEAR");
    let mid = authored(&m, 0, 0.5).rotations[0];
    let expected = Quat::from_rotation_y(45f32.to_radians());
    // Shortest path: 45° about Y (up to sign), not the 135° the long way round would give.
    assert!(mid.dot(expected).abs() > 1.0 - 1e-5, "{mid} is not 45° about Y");
    assert!((mid.length() - 1.0).abs() < EPS);
}

#[test]
fn slerp_has_constant_angular_speed() {
    let q = Quat::from_rotation_z(120f32.to_radians());
    let m = single("rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, q.x, q.y, q.z, q.w], "LINEAR");
    for i in 1..10 {
        let u = i as f32 / 10.0;
        let r = authored(&m, 0, u).rotations[0];
        assert!((r.angle_between(Quat::IDENTITY) - 120f32.to_radians() * u).abs() < 1e-4, "u = {u}");
    }
}

#[test]
fn cubic_spline_scales_tangents_by_the_key_interval() {
    // Keys at 0 and 2 s with values 0 and 1; out-tangent of key 0 = 1 unit/s, in-tangent of key 1 = 0.
    // p(s) = h10·dt·1 + h01·1; at s = 0.5: 0.125·2 + 0.5 = 0.75.
    let values = [
        99.0, 0.0, 0.0, /* ignored in-tangent of the first key */
        0.0, 0.0, 0.0, 1.0, 0.0, 0.0, /* out-tangent */
        0.0, 0.0, 0.0, /* in-tangent */
        1.0, 0.0, 0.0, -99.0, 0.0, 0.0, /* ignored out-tangent of the last key */
    ];
    let m = single("translation", &[0.0, 2.0], &values, "CUBICSPLINE");
    assert!((authored(&m, 0, 1.0).translations[0].x - 0.75).abs() < EPS);
    // s = 0.25: h10 = 0.140625, h01 = 0.15625 → 0.140625·2 + 0.15625 = 0.4375.
    assert!((authored(&m, 0, 0.5).translations[0].x - 0.4375).abs() < EPS);
    assert_eq!(authored(&m, 0, 0.0).translations[0].x, 0.0);
    assert_eq!(authored(&m, 0, 2.0).translations[0].x, 1.0);
    assert_eq!(authored(&m, 0, 7.0).translations[0].x, 1.0);
}

#[test]
fn cubic_rotations_are_normalized_after_the_hermite_blend() {
    let q = Quat::from_rotation_x(100f32.to_radians());
    let t = [0.3, -0.2, 0.5, 0.1];
    let mut values = Vec::new();
    for key in [Quat::IDENTITY, q] {
        values.extend_from_slice(&t); // in-tangent
        values.extend_from_slice(&key.to_array());
        values.extend_from_slice(&t); // out-tangent
    }
    let m = single("rotation", &[0.0, 1.0], &values, "CUBICSPLINE");
    for i in 0..=20 {
        let r = authored(&m, 0, i as f32 / 20.0).rotations[0];
        assert!((r.length() - 1.0).abs() < 1e-5, "|q| = {} at {}", r.length(), i);
    }
}

/// Velocity of translation.x by central difference.
fn velocity(m: &Model, settings: &SampleSettings, t: f32) -> f32 {
    let h = 1e-3;
    (sample(m, 0, t + h, settings).translations[0].x - sample(m, 0, t - h, settings).translations[0].x) / (2.0 * h)
}

#[test]
fn cubic_segments_meet_with_continuous_velocity_where_tangents_match_and_linear_jumps() {
    // Keys 0, 1, 3 s (non-uniform) with matching in/out tangents at the middle key.
    let values = [
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, /* key 0 */
        1.5, 0.0, 0.0, 1.0, 0.0, 0.0, 1.5, 0.0, 0.0, /* key 1: in = out */
        0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, /* key 2 */
    ];
    let m = single("translation", &[0.0, 1.0, 3.0], &values, "CUBICSPLINE");
    let cubic = SampleSettings::default();
    let before = velocity(&m, &cubic, 1.0 - 0.01);
    let after = velocity(&m, &cubic, 1.0 + 0.01);
    assert!((before - 1.5).abs() < 0.05 && (after - 1.5).abs() < 0.05, "cubic {before} vs {after}");
    // The same keys under LINEAR: 1 unit/s before, −0.5 unit/s after: a jump.
    let linear = SampleSettings::with_mode(InterpolationOverride::Linear);
    let before = velocity(&m, &linear, 0.99);
    let after = velocity(&m, &linear, 1.01);
    assert!((before - 1.0).abs() < 1e-2 && (after + 0.5).abs() < 1e-2, "linear {before} vs {after}");
}

#[test]
fn overrides_step_linear_cubic() {
    // LINEAR data on the line v = t with non-uniform keys: Catmull-Rom tangents that respect the
    // key spacing reproduce the line exactly.
    let m = single(
        "translation",
        &[0.0, 1.0, 3.0, 3.5],
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 3.0, 0.0, 0.0, 3.5, 0.0, 0.0],
        "LINEAR",
    );
    let cubic = SampleSettings::with_mode(InterpolationOverride::Cubic);
    for t in [0.25, 0.5, 1.7, 2.9, 3.2] {
        assert!((sample(&m, 0, t, &cubic).translations[0].x - t).abs() < 1e-5, "t = {t}");
    }
    let step = SampleSettings::with_mode(InterpolationOverride::Step);
    assert_eq!(sample(&m, 0, 2.9, &step).translations[0].x, 1.0);

    // Linear on CUBICSPLINE data uses the key values, ignoring tangents.
    let values = [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 5.0, 0.0, 0.0, 5.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let m = single("translation", &[0.0, 1.0], &values, "CUBICSPLINE");
    let linear = SampleSettings::with_mode(InterpolationOverride::Linear);
    assert!((sample(&m, 0, 0.5, &linear).translations[0].x - 3.0).abs() < EPS);
    assert_eq!(sample(&m, 0, 0.5, &step).translations[0].x, 2.0);
    // Per-track override wins over the clip mode.
    let per_track =
        SampleSettings { track_modes: vec![Some(InterpolationOverride::Linear)], ..SampleSettings::default() };
    assert!((sample(&m, 0, 0.5, &per_track).translations[0].x - 3.0).abs() < EPS);
}

#[test]
fn cubic_override_on_rotations_stays_unit_and_hits_the_keys() {
    let keys = [Quat::IDENTITY, -Quat::from_rotation_y(1.0), Quat::from_rotation_y(2.0), Quat::from_rotation_x(0.5)];
    let values: Vec<f32> = keys.iter().flat_map(Quat::to_array).collect();
    let m = single("rotation", &[0.0, 0.4, 1.0, 2.5], &values, "LINEAR");
    let cubic = SampleSettings::with_mode(InterpolationOverride::Cubic);
    for (k, &t) in [0.0f32, 0.4, 1.0, 2.5].iter().enumerate() {
        let r = sample(&m, 0, t, &cubic).rotations[0];
        assert!(r.dot(keys[k]).abs() > 1.0 - 1e-5, "key {k}");
    }
    for i in 0..=50 {
        let r = sample(&m, 0, i as f32 * 0.05, &cubic).rotations[0];
        assert!((r.length() - 1.0).abs() < 1e-5);
    }
}

#[test]
fn single_key_sampler_gives_its_value_everywhere() {
    for mode in ["STEP", "LINEAR"] {
        let m = single("translation", &[0.5], &[-0.1, 0.0, 0.0], mode);
        for t in [-1.0, 0.0, 0.5, 3.0] {
            for o in InterpolationOverride::ALL {
                assert_vec3(
                    sample(&m, 0, t, &SampleSettings::with_mode(o)).translations[0],
                    Vec3::new(-0.1, 0.0, 0.0),
                    mode,
                );
            }
        }
    }
}

#[test]
fn channels_sharing_an_input_share_one_timeline_and_cursor_lookups_match_binary_search() {
    let mut doc = Doc::new();
    doc.add_node(json!({}));
    doc.add_node(json!({}));
    let times: Vec<f32> = (0..50).map(|i| i as f32 * 0.1 + (i as f32 * 0.37).sin() * 0.01).collect();
    let input = doc.add_f32(&times, "SCALAR");
    let a: Vec<f32> = (0..150).map(|i| (i as f32 * 0.1).sin()).collect();
    let b: Vec<f32> = (0..150).map(|i| (i as f32 * 0.2).cos()).collect();
    let oa = doc.add_f32(&a, "VEC3");
    let ob = doc.add_f32(&b, "VEC3");
    // A second accessor with identical times is folded into the same timeline too.
    let input2 = doc.add_f32(&times, "SCALAR");
    doc.json["animations"] = json!([{
        "samplers": [{"input": input, "output": oa}, {"input": input, "output": ob}, {"input": input2, "output": oa}],
        "channels": [
            {"sampler": 0, "target": {"node": 0, "path": "translation"}},
            {"sampler": 1, "target": {"node": 1, "path": "translation"}},
            {"sampler": 2, "target": {"node": 1, "path": "scale"}}
        ]
    }]);
    let m = doc.load().unwrap();
    assert_eq!(m.clips()[0].timelines().len(), 1);
    let clip = &m.clips()[0];
    let settings = SampleSettings::default();
    let mut playback = m.rest_pose();
    let mut cursor = ClipCursor::new(clip);
    let mut t = -0.2;
    while t < 5.5 {
        clip.sample(t, &mut cursor, &settings, &mut playback);
        let fresh = authored(&m, 0, t);
        assert_eq!(NodePose::from(&playback), fresh, "t = {t}");
        t += 1.0 / 60.0;
    }
}

#[test]
fn weights_are_sampled_per_target() {
    let mut doc = Doc::new();
    let mesh = doc.add_morph_triangle(2);
    doc.add_node(json!({"mesh": mesh}));
    doc.add_animation(None, &[(0, "weights", &[0.0, 1.0], &[0.0, 1.0, 1.0, 0.5], "LINEAR")]);
    let m = doc.load().unwrap();
    let p = authored(&m, 0, 0.25);
    assert!((p.weights[0] - 0.25).abs() < EPS && (p.weights[1] - 0.875).abs() < EPS, "{:?}", p.weights);
    assert_eq!(m.clips()[0].display_name(0), "animation_0");
}

#[test]
fn teaching_modes_show_the_wrong_space() {
    // Matrix-lerp from 0° to 90° about one axis: columns shrink to ≈ 0.707 half way.
    let q = Quat::from_rotation_z(90f32.to_radians());
    let m = single("rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, q.x, q.y, q.z, q.w], "LINEAR");
    let settings = SampleSettings { rotation_space: RotationSpace::MatrixLerp, ..SampleSettings::default() };
    let p = sample(&m, 0, 0.5, &settings);
    // Node scale is 2: the shrink multiplies it.
    assert!((p.scales[0].x - 2.0 * 0.5f32.sqrt()).abs() < 1e-4, "{}", p.scales[0]);
    assert!((p.scales[0].z - 2.0).abs() < 1e-5, "the rotation axis keeps its length");
    assert!(p.rotations[0].dot(Quat::from_rotation_z(45f32.to_radians())).abs() > 1.0 - 1e-5);
    match m.clips()[0].evaluate_track(TrackId::from_index(0), 0.5, &settings, &mut []) {
        Some(TrackSample::Rotation { shrink, .. }) => assert!((shrink.x - 0.70710677).abs() < 1e-5),
        other => panic!("{other:?}"),
    }

    // Log scale from 1 to 4 passes 2 half way; linear passes 2.5.
    let m = single("scale", &[0.0, 1.0], &[1.0, 1.0, 1.0, 4.0, 4.0, 4.0], "LINEAR");
    let log = SampleSettings { scale_space: ScaleSpace::Log, ..SampleSettings::default() };
    assert!((sample(&m, 0, 0.5, &log).scales[0].x - 2.0).abs() < 1e-5);
    assert!((authored(&m, 0, 0.5).scales[0].x - 2.5).abs() < 1e-5);

    // nlerp takes the same path as slerp but not at constant speed.
    let q = Quat::from_rotation_y(150f32.to_radians());
    let m = single("rotation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, q.x, q.y, q.z, q.w], "LINEAR");
    let nlerp = SampleSettings { rotation_space: RotationSpace::Nlerp, ..SampleSettings::default() };
    let a = sample(&m, 0, 0.25, &nlerp).rotations[0].angle_between(Quat::IDENTITY).to_degrees();
    assert!((a - 37.5).abs() > 1.0, "nlerp at a quarter should not be 37.5°: {a}");
    assert!((sample(&m, 0, 0.5, &nlerp).rotations[0].angle_between(Quat::IDENTITY).to_degrees() - 75.0).abs() < 1e-2);

    // Euler-lerp hits both keys.
    let euler = SampleSettings { rotation_space: RotationSpace::EulerLerp, ..SampleSettings::default() };
    assert!(sample(&m, 0, 1.0, &euler).rotations[0].dot(q).abs() > 1.0 - 1e-5);
}

#[test]
fn squad_passes_through_keys_with_continuous_angular_velocity() {
    let keys = [
        Quat::IDENTITY,
        Quat::from_rotation_y(0.8),
        Quat::from_rotation_x(0.7) * Quat::from_rotation_y(1.2),
        Quat::from_rotation_z(0.4),
    ];
    let values: Vec<f32> = keys.iter().flat_map(Quat::to_array).collect();
    let m = single("rotation", &[0.0, 1.0, 2.0, 3.0], &values, "LINEAR");
    let squad = SampleSettings { rotation_space: RotationSpace::Squad, ..SampleSettings::default() };
    for (k, key) in keys.iter().enumerate() {
        assert!(sample(&m, 0, k as f32, &squad).rotations[0].dot(*key).abs() > 1.0 - 1e-5, "key {k}");
    }
    // Angular velocity just before and after key 1 and 2: squad's nearly match, slerp's jump.
    let omega = |s: &SampleSettings, t: f32| {
        let a = sample(&m, 0, t - 0.005, s).rotations[0];
        let b = sample(&m, 0, t + 0.005, s).rotations[0];
        (b * a.inverse()).to_scaled_axis() / 0.01
    };
    for key in [1.0, 2.0] {
        let jump_squad = (omega(&squad, key - 0.01) - omega(&squad, key + 0.01)).length();
        let jump_slerp =
            (omega(&SampleSettings::default(), key - 0.01) - omega(&SampleSettings::default(), key + 0.01)).length();
        assert!(jump_squad < 0.25 * jump_slerp, "key {key}: squad {jump_squad} vs slerp {jump_slerp}");
    }
}

#[test]
fn easing_reshapes_the_segment_parameter() {
    let m = single("translation", &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0], "LINEAR");
    let eased = SampleSettings { easing: Easing::Smoothstep, ..SampleSettings::default() };
    assert!((sample(&m, 0, 0.25, &eased).translations[0].x - 0.15625).abs() < EPS);
    for e in Easing::ALL {
        assert_eq!(e.apply(0.0), 0.0, "{e}");
        assert!((e.apply(1.0) - 1.0).abs() < 1e-6, "{e}");
        assert!(e.apply(f32::NAN).is_finite());
        let mut prev = 0.0;
        for i in 1..=100 {
            let v = e.apply(i as f32 / 100.0);
            assert!(v >= prev - 1e-6, "{e} is monotonic");
            prev = v;
        }
    }
}

// ---- The shared sample models -------------------------------------------------------------

fn load_shared(relative: &str) -> Option<Model> {
    let dir = devtools::ci::shared_models("the shared-model cases")?;
    Some(anim::import::load_path(&dir.join(relative)).unwrap_or_else(|e| panic!("{relative}: {e}")))
}

fn node_translation(m: &Model, clip: usize, t: f32) -> Vec3 {
    authored(m, clip, t).translations[0]
}

#[test]
fn asset_generator_animation_node_sets_match_hand_values() {
    let Some(m) = load_shared("glTF-Asset-Generator/Animation_Node/Animation_Node_00.gltf") else { return };
    // Translation keys −0.1, 0.1, −0.1 at 0, 1, 2 s.
    assert_vec3(node_translation(&m, 0, 0.25), Vec3::new(-0.05, 0.0, 0.0), "Node_00 t=0.25");
    assert_vec3(node_translation(&m, 0, 1.5), Vec3::new(0.0, 0.0, 0.0), "Node_00 t=1.5");

    let half45 = Quat::from_xyzw(0.0, 22.5f32.to_radians().sin(), 0.0, 22.5f32.to_radians().cos());
    for file in [
        "Animation_Node/Animation_Node_01.gltf",
        "Animation_SamplerType/Animation_SamplerType_00.gltf",
        "Animation_SamplerType/Animation_SamplerType_01.gltf",
        "Animation_SamplerType/Animation_SamplerType_02.gltf",
    ] {
        // Rotation keys +90°, 0°, −90°, 0°, +90° about Y at 0..4 s (float, normalized byte, normalized short).
        let m = load_shared(&format!("glTF-Asset-Generator/{file}")).unwrap();
        assert_quat(authored(&m, 0, 0.5).rotations[0], half45, file);
        assert_quat(authored(&m, 0, 2.5).rotations[0], half45.inverse(), file);
        assert_quat(authored(&m, 0, 1.0).rotations[0], Quat::IDENTITY, file);
    }

    let m = load_shared("glTF-Asset-Generator/Animation_Node/Animation_Node_03.gltf").unwrap();
    let step_at = |t| node_translation(&m, 0, t);
    assert_eq!(step_at(0.99), step_at(0.0), "STEP holds");

    // CUBICSPLINE translation: key values −0.1, 0.1, −0.1 (x) at 0, 1, 2 s; every tangent is zero
    // except key 1's out-tangent (0, −0.3, 0). Segment 1→2 at s = ½:
    // p = ½·0.1 + ⅛·1·(0, −0.3, 0) + ½·(−0.1) = (0, −0.0375, 0).
    let m = load_shared("glTF-Asset-Generator/Animation_Node/Animation_Node_04.gltf").unwrap();
    assert_vec3(node_translation(&m, 0, 1.5), Vec3::new(0.0, -0.0375, 0.0), "Node_04 t=1.5");
    // Segment 0→1 at s = ¼ with zero tangents: h00 = 0.84375, h01 = 0.15625 → x = −0.06875.
    assert_vec3(node_translation(&m, 0, 0.25), Vec3::new(-0.06875, 0.0, 0.0), "Node_04 t=0.25");

    // Channels with different start and end times (translation 2..6 s, rotation 1..5 s).
    let m = load_shared("glTF-Asset-Generator/Animation_NodeMisc/Animation_NodeMisc_02.gltf").unwrap();
    assert_eq!(m.clips()[0].start_secs(), 1.0);
    assert_eq!(m.clips()[0].end_secs(), 6.0);
    let p = authored(&m, 0, 1.5);
    assert_vec3(p.translations[0], Vec3::new(0.0, -0.1, 0.0), "translation holds its first key before 2 s");
    assert_quat(p.rotations[0], half45, "rotation 1.5 s");
    let p = authored(&m, 0, 5.5);
    assert_quat(p.rotations[0], Quat::from_rotation_y(90f32.to_radians()), "rotation holds its last key after 5 s");
    // Translation keys −0.1, 0.1, −0.1 (y) at 2, 4, 6 s: ¾ of the way from 0.1 to −0.1.
    assert_vec3(p.translations[0], Vec3::new(0.0, -0.05, 0.0), "translation 5.5 s");

    // A channel without a target node is ignored; the other one still plays.
    let m = load_shared("glTF-Asset-Generator/Animation_NodeMisc/Animation_NodeMisc_08.gltf").unwrap();
    assert_eq!(m.clips()[0].tracks().len(), 1);
}

#[test]
fn interpolation_test_model_matches_hand_values() {
    let Some(m) = load_shared("InterpolationTest/InterpolationTest.glb") else { return };
    assert_eq!(m.clips().len(), 9);
    for clip in m.clips() {
        let track = &clip.tracks()[0];
        let times = &clip.timelines()[track.timeline].times_secs;
        assert_eq!(times.len(), 5);
        let k = track.value_index(1);
        let k2 = track.value_index(2);
        let node = track.node.index();
        let mid = 0.5 * (times[1] + times[2]);
        let at_key = sample(
            &m,
            m.clips().iter().position(|c| std::ptr::eq(c, clip)).unwrap(),
            times[1],
            &SampleSettings::default(),
        );
        let at_mid =
            sample(&m, m.clips().iter().position(|c| std::ptr::eq(c, clip)).unwrap(), mid, &SampleSettings::default());
        match &track.values {
            anim::TrackValues::Translation(v) => {
                assert_vec3(at_key.translations[node], v[k], "key");
                let expected = match track.interpolation {
                    anim::Interpolation::Step => v[k],
                    anim::Interpolation::Linear => (v[k] + v[k2]) * 0.5,
                    // Hermite at s = ½: (p0 + p1)/2 + dt/8 · (m0 − m1).
                    anim::Interpolation::CubicSpline => {
                        (v[k] + v[k2]) * 0.5 + (v[k + 1] - v[k2 - 1]) * ((times[2] - times[1]) / 8.0)
                    }
                };
                assert_vec3(at_mid.translations[node], expected, clip.name().unwrap_or(""));
            }
            anim::TrackValues::Scale(v) => {
                assert_vec3(at_key.scales[node], v[k], "key");
                let expected = match track.interpolation {
                    anim::Interpolation::Step => v[k],
                    anim::Interpolation::Linear => (v[k] + v[k2]) * 0.5,
                    anim::Interpolation::CubicSpline => {
                        (v[k] + v[k2]) * 0.5 + (v[k + 1] - v[k2 - 1]) * ((times[2] - times[1]) / 8.0)
                    }
                };
                assert_vec3(at_mid.scales[node], expected, clip.name().unwrap_or(""));
            }
            anim::TrackValues::Rotation(v) => {
                assert_quat(at_key.rotations[node], v[k], "key");
                let expected = match track.interpolation {
                    anim::Interpolation::Step => v[k],
                    anim::Interpolation::Linear => {
                        let b = if v[k].dot(v[k2]) < 0.0 { -v[k2] } else { v[k2] };
                        let half = v[k].angle_between(b) * 0.5;
                        // Slerp midpoint = normalized sum.
                        let s = (glam::Vec4::from(v[k]) + glam::Vec4::from(b)).normalize();
                        assert!((Quat::from_vec4(s).angle_between(v[k]) - half).abs() < 1e-4);
                        Quat::from_vec4(s)
                    }
                    anim::Interpolation::CubicSpline => {
                        let dt = times[2] - times[1];
                        let raw = (glam::Vec4::from(v[k]) + glam::Vec4::from(v[k2])) * 0.5
                            + (glam::Vec4::from(v[k + 1]) - glam::Vec4::from(v[k2 - 1])) * (dt / 8.0);
                        Quat::from_vec4(raw.normalize())
                    }
                };
                assert_quat(at_mid.rotations[node], expected, clip.name().unwrap_or(""));
            }
            anim::TrackValues::Weights { .. } => unreachable!(),
        }
    }
}

#[test]
fn every_shared_model_imports_and_samples_finite_values() {
    let Some(dir) = devtools::ci::shared_models("the shared-model cases") else { return };
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "glb" || e == "gltf") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 50, "only {} model files found", files.len());
    for file in &files {
        let m = anim::import::load_path(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (c, clip) in m.clips().iter().enumerate() {
            for o in InterpolationOverride::ALL {
                let settings = SampleSettings::with_mode(o);
                for i in 0..=20 {
                    let p = sample(&m, c, clip.end_secs() * i as f32 / 20.0, &settings);
                    assert!(p.translations.iter().all(|v| v.is_finite()), "{}", file.display());
                    assert!(
                        p.rotations.iter().all(|q| q.is_finite() && (q.length() - 1.0).abs() < 1e-3),
                        "{} clip {c} {o}",
                        file.display()
                    );
                    assert!(p.scales.iter().all(|v| v.is_finite()) && p.weights.iter().all(|w| w.is_finite()));
                }
            }
        }
    }
    let recursive = load_shared("RecursiveSkeletons/RecursiveSkeletons.glb").unwrap();
    assert_eq!(recursive.skins().len(), 84);
    assert_eq!(recursive.skins().iter().map(|s| s.joints.len()).sum::<usize>(), 840);
    assert_eq!(recursive.clips()[0].tracks().len(), 840);
    let fox = load_shared("Fox/Fox.glb").unwrap();
    assert_eq!(fox.clips().len(), 3);
    assert_eq!(fox.skins()[0].joints.len(), 24);
    let robot = load_shared("RobotExpressive/RobotExpressive.glb").unwrap();
    assert_eq!(robot.clips().len(), 14);
    let morph = load_shared("AnimatedMorphCube/AnimatedMorphCube.glb").unwrap();
    assert_eq!(morph.meshes()[0].target_count(), 2);
    // The embedded (data: URI) copy of SimpleSkin imports the same model as the .bin one.
    let a = load_shared("SimpleSkin/SimpleSkin.gltf").unwrap();
    let b = load_shared("SimpleSkin/embedded/SimpleSkin.gltf").unwrap();
    assert_eq!(a.meshes(), b.meshes());
    assert_eq!(a.clips(), b.clips());
}

#[test]
fn converted_clips_match_the_override_they_bake() {
    let keys = [Quat::IDENTITY, Quat::from_rotation_y(0.7), Quat::from_rotation_y(1.9), Quat::from_rotation_x(0.4)];
    let rotations: Vec<f32> = keys.iter().flat_map(Quat::to_array).collect();
    let mut doc = Doc::new();
    doc.add_node(json!({}));
    let times = [0.0, 0.3, 1.0, 1.2];
    let translations = [0.0, 1.0, 0.0, 2.0, 0.0, 1.0, 3.0, 3.0, 0.0, 0.0, 0.5, 0.0];
    doc.add_animation(
        None,
        &[(0, "rotation", &times, &rotations, "LINEAR"), (0, "translation", &times, &translations, "STEP")],
    );
    let m = doc.load().unwrap();
    for (mode, o) in [
        (anim::Interpolation::Step, InterpolationOverride::Step),
        (anim::Interpolation::Linear, InterpolationOverride::Linear),
        (anim::Interpolation::CubicSpline, InterpolationOverride::Cubic),
    ] {
        let mut baked_model = m.clone();
        let first = anim::ClipId::from_index(0);
        baked_model.replace_clip(first, m[first].with_interpolation(mode)).expect("clip 0");
        for i in 0..=60 {
            let t = i as f32 * 0.02;
            let a = authored(&baked_model, 0, t);
            let b = sample(&m, 0, t, &SampleSettings::with_mode(o));
            assert_vec3(a.translations[0], b.translations[0], "translation");
            assert!(a.rotations[0].dot(b.rotations[0]).abs() > 1.0 - 1e-5, "{mode:?} at {t}");
        }
    }
}

#[test]
fn asset_generator_skin_scale_and_misc_sets_match_hand_values() {
    let Some(m) = load_shared("glTF-Asset-Generator/Animation_Node/Animation_Node_02.gltf") else { return };
    // Scale 0.8 → 1.2 over the first second: 0.9 at 0.25 s.
    assert_vec3(authored(&m, 0, 0.25).scales[0], Vec3::splat(0.9), "Node_02");

    // Cubic rotation with zero tangents between +90° about Y and identity: at s = ½ the Hermite
    // blend is the plain average of the keys, then normalized: 45° about Y.
    let m = load_shared("glTF-Asset-Generator/Animation_Node/Animation_Node_05.gltf").unwrap();
    let half45 = Quat::from_rotation_y(45f32.to_radians());
    assert_quat(authored(&m, 0, 0.5).rotations[0], half45, "Node_05");

    // joint1 (node 2) bends −45° about X at 1 s: −22.5° half way.
    for file in ["Animation_Skin/Animation_Skin_01.gltf", "Animation_Skin/Animation_Skin_09.gltf"] {
        let m = load_shared(&format!("glTF-Asset-Generator/{file}")).unwrap();
        assert_quat(authored(&m, 0, 0.5).rotations[2], Quat::from_rotation_x(-22.5f32.to_radians()), file);
    }
    // +90° about X at 1 s, with joints in byte/short/float types: 45° at 0.5 s and 1.5 s.
    for i in 0..4 {
        let m = load_shared(&format!("glTF-Asset-Generator/Animation_SkinType/Animation_SkinType_0{i}.gltf")).unwrap();
        for t in [0.5, 1.5] {
            assert_quat(authored(&m, 0, t).rotations[2], Quat::from_rotation_x(45f32.to_radians()), "SkinType");
        }
        // Joints and weights decode from every legal component type into the same skin.
        let prim = &m.meshes()[0].primitives[0];
        assert!(prim.weights[0].iter().all(|w| (w.element_sum() - 1.0).abs() < 1e-2));
    }
    // A constant channel overrides the node's own rotation; a translation channel leaves it.
    let m = load_shared("glTF-Asset-Generator/Animation_NodeMisc/Animation_NodeMisc_05.gltf").unwrap();
    assert_quat(authored(&m, 0, 3.0).rotations[0], Quat::from_xyzw(0.0, -0.5, 0.0, 0.866_025_4).normalize(), "Misc_05");
    let m = load_shared("glTF-Asset-Generator/Animation_NodeMisc/Animation_NodeMisc_06.gltf").unwrap();
    let p = authored(&m, 0, 1.0);
    assert_quat(p.rotations[0], Quat::from_xyzw(0.0, 0.5, 0.0, 0.866_025_4).normalize(), "Misc_06 keeps its rotation");
    assert_vec3(p.translations[0], Vec3::ZERO, "Misc_06 t=1");
}
