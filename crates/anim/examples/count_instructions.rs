//! Runs each W64 per-frame job of the block pipeline (what `animtune bench` measures) a fixed
//! number of times, for instruction counting under `valgrind --tool=callgrind` (repeatable on a
//! noisy machine, unlike wall time):
//! `cargo build --release -p animtune-anim --example count_instructions` then
//! `valgrind --tool=callgrind --toggle-collect='count_instructions::run_*' target/release/examples/count_instructions`
//! and `callgrind_annotate callgrind.out.*`. Each job covers 64 joints × `RUNS` frames.

use std::hint::black_box;

use anim::workload::{random_times, w64_model};
use anim::{ClipCursor, LocalMatrices, Model, PreparedSkin, SampleSettings, ScaleSpace, SoaPose, blend_poses};
use glam::{Affine3A, Mat4};

/// Frames per job: instructions per joint = count / (`RUNS` × 64).
const RUNS: usize = 1000;

#[inline(never)]
fn run_linear_playback(model: &Model, pose: &mut SoaPose) {
    let clip = &model.clips()[0];
    let mut cursor = ClipCursor::new(clip);
    for n in 0..RUNS {
        clip.sample((n as f32 / 60.0) % 10.0, &mut cursor, &SampleSettings::AUTHORED, pose);
    }
}

#[inline(never)]
fn run_cubic_playback(model: &Model, pose: &mut SoaPose) {
    let clip = &model.clips()[1];
    let mut cursor = ClipCursor::new(clip);
    for n in 0..RUNS {
        clip.sample((n as f32 / 60.0) % 10.0, &mut cursor, &SampleSettings::AUTHORED, pose);
    }
}

#[inline(never)]
fn run_random(model: &Model, times: &[f32], pose: &mut SoaPose) {
    let clip = &model.clips()[0];
    let mut cursor = ClipCursor::new(clip);
    for &t in times {
        clip.sample(t, &mut cursor, &SampleSettings::AUTHORED, pose);
    }
}

#[inline(never)]
fn run_blend(a: &SoaPose, b: &SoaPose, out: &mut SoaPose) {
    for i in 0..RUNS {
        blend_poses(a, b, (i as f32 * 0.001).fract(), ScaleSpace::Linear, out);
    }
}

#[inline(never)]
fn run_local_to_model_skinning(
    model: &Model,
    pose: &SoaPose,
    locals: &mut LocalMatrices,
    skin: &PreparedSkin,
    world: &mut [Affine3A],
    palette: &mut [Mat4],
) {
    for _ in 0..RUNS {
        model.hierarchy.local_to_model(pose, locals, world);
        skin.skinning_matrices(world, palette);
    }
}

#[inline(never)]
fn run_full_frame(model: &Model, buffers: &mut FrameBuffers, skin: &PreparedSkin) {
    let clip = &model.clips()[0];
    let (mut cursor_a, mut cursor_b) = (ClipCursor::new(clip), ClipCursor::new(clip));
    for n in 0..RUNS {
        let t = n as f32 / 60.0;
        clip.sample(t % 10.0, &mut cursor_a, &SampleSettings::AUTHORED, &mut buffers.a);
        clip.sample((t + 2.5) % 10.0, &mut cursor_b, &SampleSettings::AUTHORED, &mut buffers.b);
        blend_poses(&buffers.a, &buffers.b, 0.5, ScaleSpace::Linear, &mut buffers.out);
        model.hierarchy.local_to_model(&buffers.out, &mut buffers.locals, &mut buffers.world);
        skin.skinning_matrices(&buffers.world, &mut buffers.palette);
    }
}

/// Every buffer of a frame, owned by the caller.
struct FrameBuffers {
    a: SoaPose,
    b: SoaPose,
    out: SoaPose,
    locals: LocalMatrices,
    world: Vec<Affine3A>,
    palette: Vec<Mat4>,
}

fn main() {
    let model = w64_model();
    let mut pose = model.rest_pose();
    run_linear_playback(&model, &mut pose);
    run_cubic_playback(&model, &mut pose);
    run_random(&model, &random_times(10.0, RUNS), &mut pose);
    let mut other = model.rest_pose();
    model.clips()[2].sample(3.3, &mut ClipCursor::new(&model.clips()[2]), &SampleSettings::AUTHORED, &mut other);
    let mut out = pose.clone();
    run_blend(&pose, &other, &mut out);
    let mut locals = LocalMatrices::new(model.nodes().len());
    let skin = PreparedSkin::new(&model.skins()[0]);
    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut palette = vec![Mat4::IDENTITY; skin.len()];
    run_local_to_model_skinning(&model, &out, &mut locals, &skin, &mut world, &mut palette);
    black_box((&pose, &out, &palette));
    let mut buffers = FrameBuffers { a: pose.clone(), b: other, out, locals, world, palette };
    run_full_frame(&model, &mut buffers, &skin);
    black_box(&buffers.palette);
}
