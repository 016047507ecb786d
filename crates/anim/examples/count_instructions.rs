//! Runs each W64 per-frame job of the block pipeline (what `animtune bench` measures) a fixed
//! number of times, for instruction counting under `valgrind --tool=callgrind` (repeatable on a
//! noisy machine, unlike wall time):
//! `cargo build --release -p animtune-anim --example count_instructions` then
//! `valgrind --tool=callgrind --toggle-collect='count_instructions::run_*' target/release/examples/count_instructions`
//! and `callgrind_annotate callgrind.out.*`. Each job covers 64 joints × `RUNS` frames.
//! `run_single_clip_frame`, `run_transition_frame` and `run_layered_frame` are the bench's
//! frames of those names (a cross-fade triggered every half second, two layers over it: a masked
//! override and a whole-body additive at half weight), whose counts divide into the layer goal's
//! ratio; `run_layer_*` the layer jobs alone.

use std::hint::black_box;

use anim::workload::{random_times, w64_model};
use anim::{
    AdditiveReference, ClipCursor, ClipId, CrossFader, Easing, LayerBlend, LayerDesc, LayerStack, LocalMatrices, Model,
    NodeMask, PreparedSkin, SampleSettings, ScaleSpace, SoaPose, blend_poses,
};
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

#[inline(never)]
fn run_single_clip_frame(model: &Model, buffers: &mut FrameBuffers, skin: &PreparedSkin) {
    let clip = &model.clips()[0];
    let mut cursor = ClipCursor::new(clip);
    for n in 0..RUNS {
        clip.sample((n as f32 / 60.0) % 10.0, &mut cursor, &SampleSettings::AUTHORED, &mut buffers.a);
        model.hierarchy.local_to_model(&buffers.a, &mut buffers.locals, &mut buffers.world);
        skin.skinning_matrices(&buffers.world, &mut buffers.palette);
    }
}

/// The bench's layered model: W64 with its first clip twice (the fader's two clips, the layers').
fn layered_model(model: &Model) -> Model {
    let mut owned = model.clone();
    owned.replace_clips([model.clips()[0].clone(), model.clips()[0].clone()]);
    owned
}

/// The bench's two layers: an override on the first skin joint's first child's subtree, a
/// whole-body additive at half weight measured from a quarter of the clip.
fn bench_layers(model: &Model) -> LayerStack {
    let root = model.skins()[0].joints[0];
    let branch = model.hierarchy.children(root).first().copied().unwrap_or(root);
    let other = ClipId::from_index(1);
    let layers = vec![
        LayerDesc { mask: NodeMask::from_subtrees(&model.hierarchy, &[branch]), ..LayerDesc::new(other) },
        LayerDesc {
            blend: LayerBlend::Additive(AdditiveReference::AtSecs(0.25 * model.clips()[0].end_secs())),
            weight: 0.5,
            ..LayerDesc::new(other)
        },
    ];
    LayerStack::new(model, &SampleSettings::AUTHORED, layers).expect("the layers name the model's clips")
}

/// A cross-fade between the two clips triggered every 30 frames on `fader` (built outside: its
/// construction measures the clips), then the layers (if any), local→model and the palette,
/// `RUNS` frames.
fn fading_frames(
    model: &Model,
    fader: &mut CrossFader,
    mut layers: Option<&mut LayerStack>,
    buffers: &mut FrameBuffers,
    skin: &PreparedSkin,
) {
    let (base, other) = (ClipId::from_index(0), ClipId::from_index(1));
    for frame in 0..RUNS {
        if frame.is_multiple_of(30) {
            fader.trigger(if frame.is_multiple_of(60) { other } else { base }, 0.4, Easing::Smoothstep);
        }
        fader.advance(1.0 / 60.0);
        buffers.out.copy_from(fader.evaluate(model, &SampleSettings::AUTHORED));
        if let Some(stack) = layers.as_deref_mut() {
            stack.apply(model, &SampleSettings::AUTHORED, fader.current_time_secs(), &mut buffers.out);
        }
        model.hierarchy.local_to_model(&buffers.out, &mut buffers.locals, &mut buffers.world);
        skin.skinning_matrices(&buffers.world, &mut buffers.palette);
    }
}

#[inline(never)]
fn run_transition_frame(model: &Model, fader: &mut CrossFader, buffers: &mut FrameBuffers, skin: &PreparedSkin) {
    fading_frames(model, fader, None, buffers, skin);
}

#[inline(never)]
fn run_layered_frame(
    model: &Model,
    fader: &mut CrossFader,
    stack: &mut LayerStack,
    buffers: &mut FrameBuffers,
    skin: &PreparedSkin,
) {
    fading_frames(model, fader, Some(stack), buffers, skin);
}

#[inline(never)]
fn run_layer_additive_half(base: &SoaPose, layer: &SoaPose, reference: &SoaPose, out: &mut SoaPose) {
    let weights = vec![0.5; base.len()];
    for _ in 0..RUNS {
        out.copy_from(base);
        anim::apply_additive(out, black_box(layer), reference, &weights);
    }
}

#[inline(never)]
fn run_layer_override_masked(base: &SoaPose, layer: &SoaPose, mask: &NodeMask, out: &mut SoaPose) {
    for _ in 0..RUNS {
        out.copy_from(base);
        anim::apply_override(out, black_box(layer), mask.weights());
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

    run_single_clip_frame(&model, &mut buffers, &skin);
    let layered = layered_model(&model);
    let mut fader = CrossFader::new(&layered, ClipId::from_index(0));
    run_transition_frame(&layered, &mut fader, &mut buffers, &skin);
    let mut fader = CrossFader::new(&layered, ClipId::from_index(0));
    let mut stack = bench_layers(&layered);
    run_layered_frame(&layered, &mut fader, &mut stack, &mut buffers, &skin);
    black_box(&buffers.palette);

    let clip = &model.clips()[0];
    let sample = |t: f32| {
        let mut pose = model.rest_pose();
        clip.sample(t * clip.end_secs(), &mut ClipCursor::new(clip), &SampleSettings::AUTHORED, &mut pose);
        pose
    };
    let (base, layer, reference) = (sample(0.3), sample(0.7), sample(0.25));
    run_layer_additive_half(&base, &layer, &reference, &mut buffers.out);
    let root = model.skins()[0].joints[0];
    let branch = model.hierarchy.children(root).first().copied().unwrap_or(root);
    let mask = NodeMask::from_subtrees(&model.hierarchy, &[branch]);
    run_layer_override_masked(&base, &layer, &mask, &mut buffers.out);
    black_box(&buffers.out);
}
