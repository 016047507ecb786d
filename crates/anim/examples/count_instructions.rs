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

fn main() {
    let model = w64_model();
    let mut pose = Pose::rest(&model);
    run_linear_playback(&model, &mut pose);
    run_cubic_playback(&model, &mut pose);
    black_box(&pose);
}
