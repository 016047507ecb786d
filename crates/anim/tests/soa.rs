//! The block (structure-of-arrays) pipeline against the node pipeline: `Clip::sample_soa` must
//! give the same bits as `Clip::sample` (whose authored path `tests/conformance.rs` checks
//! against the independent reference), and the block blend and cross-fade the same poses as the
//! node ones to within the slerp polynomial's error.

mod common;

use std::path::{Path, PathBuf};

use anim::workload::{random_times, w64_model};
use anim::{
    ClipCursor, CrossFader, Easing, Model, Pose, SampleSettings, ScaleSpace, SoaPose, blend_poses, blend_soa_poses,
};
use common::Doc;
use glam::{Quat, Vec3};
use serde_json::json;

fn gltf_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for path in entries.filter_map(|e| Some(e.ok()?.path())) {
        if path.is_dir() {
            gltf_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "glb" || e == "gltf") {
            out.push(path);
        }
    }
}

/// Times worth checking in a clip: every key, just before and after it, midpoints, outside the
/// range, and pseudo-random times.
fn probe_times(model: &Model, clip: usize) -> Vec<f32> {
    let clip = &model.clips[clip];
    let mut times = vec![clip.start_secs - 1.0, clip.end_secs + 1.0, f32::NAN];
    for timeline in &clip.timelines {
        for pair in timeline.times_secs.windows(2) {
            times.extend([pair[0], pair[0].next_up(), (pair[0] + pair[1]) * 0.5, pair[1].next_down()]);
        }
        times.extend(timeline.times_secs.last().copied());
    }
    times.extend(random_times(clip.end_secs.max(1e-3), 64));
    times
}

/// Sample every clip of `model` at its probe times both ways (with and without a cursor history)
/// and demand identical poses.
fn assert_block_sampling_is_node_sampling(name: &str, model: &Model) -> usize {
    let rest = Pose::rest(model);
    let rest_blocks = SoaPose::from_pose(&rest);
    let settings = SampleSettings::default();
    let mut checked = 0;
    for (index, clip) in model.clips.iter().enumerate() {
        let (mut cursor_nodes, mut cursor_blocks) = (ClipCursor::new(clip), ClipCursor::new(clip));
        for t in probe_times(model, index) {
            let mut nodes = rest.clone();
            clip.sample(t, &mut cursor_nodes, &settings, &mut nodes);
            let mut blocks = rest_blocks.clone();
            clip.sample_soa(t, &mut cursor_blocks, &mut blocks);
            let mut from_blocks = rest.clone();
            blocks.write_pose(&mut from_blocks);
            for node in 0..nodes.len() {
                let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(
                    same(&nodes.translations[node].to_array(), &from_blocks.translations[node].to_array())
                        && same(&nodes.rotations[node].to_array(), &from_blocks.rotations[node].to_array())
                        && same(&nodes.scales[node].to_array(), &from_blocks.scales[node].to_array()),
                    "{name} clip {index} node {node} at t = {t}: blocks {:?} {:?} {:?}, nodes {:?} {:?} {:?}",
                    from_blocks.translations[node],
                    from_blocks.rotations[node],
                    from_blocks.scales[node],
                    nodes.translations[node],
                    nodes.rotations[node],
                    nodes.scales[node],
                );
            }
            assert_eq!(nodes.weights, from_blocks.weights, "{name} clip {index} morph weights at t = {t}");
            checked += 1;
        }
    }
    checked
}

#[test]
fn block_sampling_gives_the_node_samplers_bits_on_every_shared_model_and_w64() {
    let mut checked = assert_block_sampling_is_node_sampling("W64", &w64_model());
    if let Some(dir) = common::shared_models() {
        let mut files = Vec::new();
        gltf_files(&dir, &mut files);
        files.sort();
        assert!(files.len() > 20, "expected the shared models in {}", dir.display());
        for path in files {
            // Files the importer rejects are covered by the import tests.
            let Ok(model) = anim::import::load_path(&path) else { continue };
            checked += assert_block_sampling_is_node_sampling(&path.display().to_string(), &model);
        }
    }
    assert!(checked > 1000, "only {checked} poses compared");
}

/// Sparse targets across block boundaries, two timelines, every interpolation, CUBICSPLINE with
/// different in- and out-tangents, a rotation key pair on opposite hemispheres and a duplicate
/// channel: the cases the block layout has to mask, split and order correctly.
#[test]
fn block_sampling_handles_sparse_targets_mixed_modes_and_duplicate_channels() {
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
            // The same target again: the later channel wins in both pipelines.
            (5, "translation", &times_a, &linear_translations.iter().map(|v| v * 2.0).collect::<Vec<_>>(), "LINEAR"),
        ],
    );
    let model = doc.load().expect("the mixed test model loads");
    let checked = assert_block_sampling_is_node_sampling("mixed", &model);
    assert!(checked > 50);

    // Untouched nodes keep the rest pose; animated ones move.
    let clip = &model.clips[0];
    let mut blocks = SoaPose::rest(&model);
    clip.sample_soa(0.7, &mut ClipCursor::new(clip), &mut blocks);
    assert_eq!(blocks.translation(4), Vec3::new(0.4, 1.0, 0.0));
    assert_eq!(blocks.scale(15), Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(blocks.scale(16), Vec3::new(0.5, 0.5, 3.0));
    assert_ne!(blocks.translation(5), Vec3::new(0.5, 1.0, 0.0));
}

fn w64_pair(t_a: f32, t_b: f32) -> (Model, Pose, Pose) {
    let model = w64_model();
    let settings = SampleSettings::default();
    let (mut a, mut b) = (Pose::rest(&model), Pose::rest(&model));
    model.clips[0].sample(t_a, &mut ClipCursor::new(&model.clips[0]), &settings, &mut a);
    model.clips[2].sample(t_b, &mut ClipCursor::new(&model.clips[2]), &settings, &mut b);
    // Opposite hemispheres on some nodes: the shortest path must still be taken.
    for node in (0..a.len()).step_by(3) {
        b.rotations[node] = -b.rotations[node];
    }
    (model, a, b)
}

fn max_difference(x: &Pose, y: &Pose) -> f32 {
    let mut worst = 0.0f32;
    for node in 0..x.len() {
        worst = worst.max((x.translations[node] - y.translations[node]).abs().max_element());
        worst = worst.max((x.scales[node] - y.scales[node]).abs().max_element());
        // q and −q are the same rotation (the node slerp at w = 1 returns the flipped end).
        let (p, q) = (glam::Vec4::from(x.rotations[node]), glam::Vec4::from(y.rotations[node]));
        worst = worst.max((p - q).abs().max_element().min((p + q).abs().max_element()));
    }
    worst
}

#[test]
fn block_blend_matches_the_node_blend() {
    for (t_a, t_b) in [(0.3, 4.7), (2.0, 2.0), (9.9, 0.0)] {
        let (model, a, b) = w64_pair(t_a, t_b);
        let (sa, sb) = (SoaPose::from_pose(&a), SoaPose::from_pose(&b));
        let mut out_blocks = SoaPose::rest(&model);
        for space in [ScaleSpace::Linear, ScaleSpace::Log] {
            for w in [0.0, 1e-4, 0.25, 0.5, 0.8, 1.0 - 1e-4, 1.0, -3.0, 7.0] {
                let mut nodes = Pose::rest(&model);
                blend_poses(&a, &b, w, space, &mut nodes);
                blend_soa_poses(&sa, &sb, w, space, &mut out_blocks);
                let mut blocks = Pose::rest(&model);
                out_blocks.write_pose(&mut blocks);
                let worst = max_difference(&nodes, &blocks);
                assert!(worst < 2e-6, "blend at w = {w} ({space:?}) differs by {worst:e}");
                if w <= 0.0 || w >= 1.0 {
                    assert_eq!(blocks, if w <= 0.0 { a.clone() } else { b.clone() }, "ends are the poses themselves");
                }
            }
        }
    }
}

#[test]
fn block_cross_fades_follow_the_node_cross_fades() {
    let model = w64_model();
    let settings = SampleSettings::default();
    let (mut nodes, mut blocks) = (CrossFader::new(&model, 0), CrossFader::new(&model, 0));
    let mut converted = Pose::rest(&model);
    let mut worst = 0.0f32;
    for frame in 0..400 {
        if frame % 37 == 5 || (120..130).contains(&frame) {
            let to = (frame / 7) % model.clips.len();
            nodes.trigger(to, 0.4, Easing::Smoothstep);
            blocks.trigger(to, 0.4, Easing::Smoothstep);
        }
        nodes.advance(1.0 / 60.0);
        blocks.advance(1.0 / 60.0);
        let expected = nodes.evaluate(&model, &settings).clone();
        blocks.evaluate_soa(&model).write_pose(&mut converted);
        worst = worst.max(max_difference(&expected, &converted));
    }
    assert!(worst < 1e-5, "block cross-fade drifts from the node cross-fade by {worst:e}");
}
