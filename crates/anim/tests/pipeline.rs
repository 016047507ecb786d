//! The curve path and the pose path cannot disagree: every track of every clip of W64, of a
//! model built to stress the block layout and of every shared model, evaluated one track at a
//! time (`Clip::evaluate_track`, what the curve plot draws) and sampled into the runtime pose
//! (`Clip::sample`, what the 3D view, crowds, `sample`, `bench` and `soak` show), under every
//! interpolation override and teaching mode. As authored the pose path runs the block kernels,
//! which must match the scalar curve to rounding; under an override both run the same scalar
//! code and must give the same bits.

use anim::workload::{random_times, w64_model};
use anim::{
    ClipCursor, Easing, InterpolationOverride, Model, Property, RotationSpace, SampleSettings, ScaleSpace, SoaPose,
    TrackSample, TrackValues, Transform, blend_poses,
};
use devtools::gltf::Doc;
use glam::{Quat, Vec3, Vec4};
use serde_json::json;

/// Times worth checking in a clip: every key, just before and after it, midpoints, outside the
/// range, and pseudo-random times (`dense`), or a sparser set.
fn probe_times(model: &Model, clip: usize, dense: bool) -> Vec<f32> {
    let clip = &model.clips()[clip];
    let mut times = vec![clip.start_secs() - 1.0, clip.end_secs() + 1.0, f32::NAN];
    for timeline in clip.timelines() {
        let step = if dense { 1 } else { timeline.times_secs.len().div_ceil(6).max(1) };
        for pair in timeline.times_secs.windows(2).step_by(step) {
            times.extend([pair[0], pair[0].next_up(), (pair[0] + pair[1]) * 0.5, pair[1].next_down()]);
        }
        times.extend(timeline.times_secs.last().copied());
    }
    times.extend(random_times(clip.end_secs().max(1e-3), if dense { 64 } else { 8 }));
    times
}

/// The settings compared: the file as authored, each override, and the teaching modes.
fn settings_list() -> Vec<SampleSettings> {
    let mut list = vec![SampleSettings::AUTHORED];
    for mode in [InterpolationOverride::Step, InterpolationOverride::Linear, InterpolationOverride::Cubic] {
        list.push(SampleSettings::with_mode(mode));
    }
    for rotation_space in
        [RotationSpace::Nlerp, RotationSpace::Squad, RotationSpace::MatrixLerp, RotationSpace::EulerLerp]
    {
        list.push(SampleSettings { rotation_space, ..SampleSettings::AUTHORED });
    }
    list.push(SampleSettings { scale_space: ScaleSpace::Log, easing: Easing::Smoothstep, ..SampleSettings::AUTHORED });
    // Per-track overrides: every other track forced to STEP.
    list.push(SampleSettings {
        track_modes: (0..4096).map(|i| (i % 2 == 0).then_some(InterpolationOverride::Step)).collect(),
        ..SampleSettings::AUTHORED
    });
    list
}

/// Largest difference relative to the larger of 1 and the value's magnitude.
fn relative(a: &[f32], b: &[f32]) -> f32 {
    let scale = b.iter().fold(1.0f32, |m, x| m.max(x.abs()));
    a.iter().zip(b).fold(0.0f32, |m, (x, y)| m.max((x - y).abs())) / scale
}

/// Compare both paths on every clip of `model`; returns (values compared, worst relative
/// difference as authored). Under an override or teaching mode the bits must be equal.
fn compare_paths(name: &str, model: &Model, dense: bool) -> (usize, f32) {
    let mut compared = 0;
    let mut worst = 0.0f32;
    let rest = model.rest_pose();
    let mut pose = rest.clone();
    let mut weights = vec![0.0; model.weight_count];
    for (c, clip) in model.clips().iter().enumerate() {
        let mut cursor = ClipCursor::new(clip);
        // Only the channel that wins for its target (the last one) shows in the pose.
        let shown: Vec<_> =
            clip.track_ids().filter(|(id, t)| clip.find_track(t.node, t.property()) == Some(*id)).collect();
        for settings in settings_list() {
            let authored = settings.is_authored();
            for t in probe_times(model, c, dense && authored) {
                pose.copy_from(&rest);
                clip.sample(t, &mut cursor, &settings, &mut pose);
                for &(id, track) in &shown {
                    let node = pose.transform(track.node);
                    let what = || {
                        format!(
                            "{name}: clip {c} track {id} ({:?} of node {}) at t = {t}",
                            track.property(),
                            track.node
                        )
                    };
                    let (got, expected): (Vec<f32>, Vec<f32>) =
                        match clip.evaluate_track(id, t, &settings, &mut weights) {
                            Some(TrackSample::Vec3(v)) if track.property() == Property::Translation => {
                                (node.translation.to_array().into(), v.to_array().into())
                            }
                            Some(TrackSample::Vec3(v)) => {
                                // Matrix-lerp shows the rotation's shrink as scale.
                                let shrink = clip
                                    .find_track(track.node, Property::Rotation)
                                    .filter(|_| settings.rotation_space == RotationSpace::MatrixLerp)
                                    .and_then(|r| match clip.evaluate_track(r, t, &settings, &mut []) {
                                        Some(TrackSample::Rotation { shrink, .. }) => Some(shrink),
                                        _ => None,
                                    })
                                    .unwrap_or(Vec3::ONE);
                                (node.scale.to_array().into(), (v * shrink).to_array().into())
                            }
                            Some(TrackSample::Rotation { rotation, .. }) => {
                                (node.rotation.to_array().into(), rotation.to_array().into())
                            }
                            Some(TrackSample::Weights) => {
                                let TrackValues::Weights { offset, count, .. } = &track.values else { unreachable!() };
                                let span = *offset..*offset + *count;
                                let curve = clip.evaluate_track(id, t, &settings, &mut weights[span.clone()]);
                                assert!(curve.is_some(), "{}", what());
                                (pose.weights()[span.clone()].to_vec(), weights[span].to_vec())
                            }
                            other => panic!("{}: {other:?}", what()),
                        };
                    compared += 1;
                    if authored {
                        let error = relative(&got, &expected);
                        worst = worst.max(error);
                        assert!(error < 1e-6, "{}: pose {got:?}, curve {expected:?} ({error:e})", what());
                    } else {
                        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(&got), bits(&expected), "{}: pose {got:?}, curve {expected:?}", what());
                    }
                }
            }
        }
    }
    (compared, worst)
}

#[test]
fn curve_path_and_pose_path_agree_on_every_track_of_every_shared_model_and_w64() {
    let (mut compared, mut worst) = compare_paths("W64", &w64_model(), true);
    if let Some(dir) = devtools::ci::shared_models("the shared models") {
        let files = devtools::ci::gltf_files(&dir);
        assert!(files.len() > 20, "expected the shared models in {}", dir.display());
        for path in files {
            // Files the importer rejects are covered by the import tests.
            let Ok(model) = anim::import::load_path(&path) else { continue };
            let (n, w) = compare_paths(&path.display().to_string(), &model, true);
            compared += n;
            worst = worst.max(w);
        }
    }
    eprintln!("{compared} track values compared; as authored, the block kernels are within {worst:e} of the curves");
    assert!(compared > 100_000, "only {compared} values compared");
}

/// Sparse targets across block boundaries, two timelines, every interpolation, CUBICSPLINE with
/// different in- and out-tangents, a rotation key pair on opposite hemispheres and a duplicate
/// channel: the cases the block layout has to mask, split and order correctly.
#[test]
fn both_paths_agree_on_sparse_targets_mixed_modes_and_duplicate_channels() {
    let mut doc = Doc::new();
    for i in 0..19 {
        doc.add_node(json!({"translation": [i as f32 * 0.1, 1.0, 0.0], "scale": [1.0, 2.0, 3.0]}));
    }
    let times_a = [0.0f32, 0.5, 1.25];
    let times_b = [0.1f32, 0.3, 0.6, 0.9];
    let q = |x: f32, s: f32| {
        let q = Quat::from_rotation_x(x) * Quat::from_rotation_z(x * 0.5);
        (q * s).to_array()
    };
    let rotations: Vec<f32> = [q(0.0, 1.0), q(1.0, -1.0), q(2.5, 1.0)].concat();
    let step_scales: Vec<f32> = [[1.0, 1.0, 1.0], [2.0, 0.5, 1.0], [0.5, 0.5, 3.0], [1.0, 2.0, 2.0]].concat();
    // in, value, out per key: in- and out-tangents differ.
    let cubic_translations: Vec<f32> = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.5, 2.0, 0.0],
        [1.0, 1.0, 1.0],
        [-1.0, 0.5, 0.0],
        [0.0, 3.0, 0.0],
        [2.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
    ]
    .concat();
    let cubic_rotations: Vec<f32> = [
        [0.0; 4],
        q(0.0, 1.0),
        [0.1, 0.0, 0.2, 0.0],
        [0.3, 0.1, 0.0, 0.0],
        q(1.2, 1.0),
        [0.0, 0.2, 0.1, 0.0],
        [0.1, 0.1, 0.1, 0.0],
        q(2.0, -1.0),
        [0.0; 4],
    ]
    .concat();
    let linear_translations: Vec<f32> = [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0], [-1.0, 0.0, 4.0]].concat();
    let doubled: Vec<f32> = linear_translations.iter().map(|v| v * 2.0).collect();
    doc.add_animation(
        Some("mixed"),
        &[
            (2, "rotation", &times_a, &rotations, "LINEAR"),
            (9, "rotation", &times_a, &rotations, "LINEAR"),
            (17, "translation", &times_a, &cubic_translations, "CUBICSPLINE"),
            (3, "rotation", &times_a, &cubic_rotations, "CUBICSPLINE"),
            (8, "scale", &times_b, &step_scales, "STEP"),
            (16, "scale", &times_b, &step_scales, "STEP"),
            (5, "translation", &times_a, &linear_translations, "LINEAR"),
            // The same target again: the later channel wins in both paths.
            (5, "translation", &times_a, &doubled, "LINEAR"),
        ],
    );
    let model = doc.load().expect("the mixed test model loads");
    let (compared, _) = compare_paths("mixed", &model, true);
    assert!(compared > 1000);

    // Untouched nodes keep the rest pose; animated ones move; the later duplicate wins.
    let clip = &model.clips()[0];
    let mut pose = model.rest_pose();
    clip.sample(0.7, &mut ClipCursor::new(clip), &SampleSettings::AUTHORED, &mut pose);
    let node = anim::NodeId::from_index;
    assert_eq!(pose.translation(node(4)), Vec3::new(0.4, 1.0, 0.0));
    assert_eq!(pose.scale(node(15)), Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(pose.scale(node(16)), Vec3::new(0.5, 0.5, 3.0));
    // At 0.7 s, 0.2 / 0.75 of the way from (1, 2, 3) to (−1, 0, 4), doubled.
    let u = 0.2 / 0.75;
    let expected = (Vec3::new(1.0, 2.0, 3.0) * (1.0 - u) + Vec3::new(-1.0, 0.0, 4.0) * u) * 2.0;
    assert!(pose.translation(node(5)).abs_diff_eq(expected, 1e-5), "{}", pose.translation(node(5)));
}

/// Shortest-path slerp in f64 with the library sine and arc cosine.
fn exact_slerp(a: Quat, b: Quat, w: f64) -> Vec4 {
    let (a, mut b) = (Vec4::from(a).as_dvec4(), Vec4::from(b).as_dvec4());
    if a.dot(b) < 0.0 {
        b = -b;
    }
    let omega = a.dot(b).min(1.0).acos();
    let (wa, wb) = if omega < 1e-9 {
        (1.0 - w, w)
    } else {
        (((1.0 - w) * omega).sin() / omega.sin(), (w * omega).sin() / omega.sin())
    };
    (a * wa + b * wb).as_vec4()
}

#[test]
fn pose_blends_match_the_per_node_reference() {
    let model = w64_model();
    let (mut a, mut b) = (model.rest_pose(), model.rest_pose());
    model.clips()[0].sample(0.3, &mut ClipCursor::new(&model.clips()[0]), &SampleSettings::AUTHORED, &mut a);
    model.clips()[2].sample(4.7, &mut ClipCursor::new(&model.clips()[2]), &SampleSettings::AUTHORED, &mut b);
    // Opposite hemispheres on some nodes: the shortest path must still be taken.
    for (node, t) in b.clone().nodes().step_by(3) {
        b.set_rotation(node, -t.rotation);
    }
    let mut out = model.rest_pose();
    for space in [ScaleSpace::Linear, ScaleSpace::Log] {
        for w in [1e-4, 0.25, 0.5, 0.8, 1.0 - 1e-4] {
            blend_poses(&a, &b, w, space, &mut out);
            let mut worst = 0.0f32;
            for (((node, got), (_, x)), (_, y)) in out.nodes().zip(a.nodes()).zip(b.nodes()) {
                let expected = Transform {
                    translation: x.translation * (1.0 - w) + y.translation * w,
                    rotation: Quat::from_vec4(exact_slerp(x.rotation, y.rotation, f64::from(w))),
                    scale: space.lerp(x.scale, y.scale, w),
                };
                worst = worst
                    .max((got.translation - expected.translation).abs().max_element())
                    .max((Vec4::from(got.rotation) - Vec4::from(expected.rotation)).abs().max_element())
                    .max(
                        (got.scale - expected.scale).abs().max_element() / expected.scale.abs().max_element().max(1.0),
                    );
                assert!(worst < 2e-6, "node {node} at w = {w} ({space:?}): {worst:e}");
            }
        }
        for (w, end) in [(0.0, &a), (-3.0, &a), (1.0, &b), (7.0, &b)] {
            blend_poses(&a, &b, w, space, &mut out);
            assert_eq!(&out, end, "the ends are the poses themselves");
        }
    }
    let _: &SoaPose = &out;
}
