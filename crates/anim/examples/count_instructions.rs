//! Runs each W64 per-frame job a fixed number of times, for instruction counting under
//! `valgrind --tool=callgrind` (repeatable on a noisy machine, unlike wall time):
//! `cargo build --release -p animtune-anim --example count_instructions` then
//! `valgrind --tool=callgrind --toggle-collect='count_instructions::run_*' target/release/examples/count_instructions`.

use std::hint::black_box;

use anim::workload::w64_model;
use anim::{ClipCursor, Model, Pose, SampleSettings};

#[inline(never)]
fn run_linear_playback(model: &Model, pose: &mut Pose) {
    let clip = &model.clips[0];
    let mut cursor = ClipCursor::new(clip);
    for n in 0..600 {
        clip.sample(n as f32 / 60.0, &mut cursor, &SampleSettings::default(), pose);
    }
}

#[inline(never)]
fn run_cubic_playback(model: &Model, pose: &mut Pose) {
    let clip = &model.clips[1];
    let mut cursor = ClipCursor::new(clip);
    for n in 0..600 {
        clip.sample(n as f32 / 60.0, &mut cursor, &SampleSettings::default(), pose);
    }
}

#[inline(never)]
fn run_blend(a: &Pose, b: &Pose, out: &mut Pose) {
    for i in 0..1000 {
        anim::blend_poses(a, b, (i as f32 * 0.001).fract(), anim::ScaleSpace::Linear, out);
    }
}

#[inline(never)]
fn run_local_to_model_skinning(model: &Model, pose: &Pose, world: &mut [glam::Affine3A], palette: &mut [glam::Mat4]) {
    for _ in 0..1000 {
        model.hierarchy.local_to_model(pose, world);
        anim::skinning_matrices(&model.skins[0], world, palette);
    }
}

fn main() {
    let model = w64_model();
    let mut pose = Pose::rest(&model);
    run_linear_playback(&model, &mut pose);
    run_cubic_playback(&model, &mut pose);
    let mut other = Pose::rest(&model);
    model.clips[0].sample(3.3, &mut ClipCursor::new(&model.clips[0]), &SampleSettings::default(), &mut other);
    let mut out = pose.clone();
    run_blend(&pose, &other, &mut out);
    let mut world = vec![glam::Affine3A::IDENTITY; model.nodes.len()];
    let mut palette = vec![glam::Mat4::IDENTITY; model.skins[0].joints.len()];
    run_local_to_model_skinning(&model, &out, &mut world, &mut palette);
    black_box((&pose, &out, &palette));
}
