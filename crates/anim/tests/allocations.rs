//! Per-frame calls allocate nothing: counted by a global allocator on the test's own thread.

#![allow(clippy::unwrap_used)]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use anim::{
    ClipCursor, CrossFader, Easing, LocalMatrices, Pose, PreparedSkin, SampleSettings, SoaPose, blend_poses,
    blend_soa_into, blend_soa_poses, skinning_matrices,
};
use common::Doc;
use glam::{Affine3A, Mat4};
use serde_json::json;

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            COUNT.with(|c| c.set(c.get() + 1));
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            COUNT.with(|c| c.set(c.get() + 1));
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn count_allocations(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    COUNT.with(Cell::get)
}

#[test]
fn per_frame_sampling_blending_skinning_and_fading_allocate_nothing() {
    let mut doc = Doc::new();
    let positions = doc.add_f32(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3");
    let joints = doc.add_raw(&[0, 1, 0, 0, 1, 2, 0, 0, 2, 0, 0, 0], 5121, "VEC4", 3, false);
    let weights = doc.add_f32(&[0.5, 0.5, 0.0, 0.0, 0.7, 0.3, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], "VEC4");
    let mesh = doc.add_mesh(
        json!({"primitives": [{"attributes": {"POSITION": positions, "JOINTS_0": joints, "WEIGHTS_0": weights}}]}),
    );
    doc.add_node(json!({"children": [1]}));
    doc.add_node(json!({"translation": [0.0, 1.0, 0.0], "children": [2]}));
    doc.add_node(json!({"translation": [0.0, 1.0, 0.0]}));
    doc.add_node(json!({"mesh": mesh, "skin": 0}));
    doc.json["skins"] = json!([{"joints": [0, 1, 2]}]);
    let times = [0.0, 0.5, 1.0];
    let rot: Vec<f32> = [0.0f32, 0.6, 0.0].iter().flat_map(|&a| glam::Quat::from_rotation_z(a).to_array()).collect();
    let cubic: Vec<f32> =
        [0.0f32, 0.6, 0.2].iter().flat_map(|&a| [0.0, 0.0, 0.0, 0.0, 0.0, a, 0.0, 0.0, 0.0].into_iter()).collect();
    doc.add_animation(
        Some("A"),
        &[(0, "rotation", &times, &rot, "LINEAR"), (1, "translation", &times, &cubic, "CUBICSPLINE")],
    );
    doc.add_animation(Some("B"), &[(1, "rotation", &times, &rot, "STEP"), (2, "rotation", &times, &rot, "LINEAR")]);
    let model = doc.load().unwrap();

    let settings = SampleSettings::default();
    let rest = Pose::rest(&model);
    let (mut a, mut b, mut out) = (rest.clone(), rest.clone(), rest.clone());
    let mut cursors: Vec<ClipCursor> = model.clips.iter().map(ClipCursor::new).collect();
    let mut world = vec![Affine3A::IDENTITY; model.nodes.len()];
    let mut palette = vec![Mat4::IDENTITY; model.skins[0].joints.len()];
    let mut fader = CrossFader::new(&model, 0);
    let mut block_fader = CrossFader::new(&model, 1);
    let rest_blocks = SoaPose::rest(&model);
    let (mut block_a, mut block_b, mut block_out) = (rest_blocks.clone(), rest_blocks.clone(), rest_blocks.clone());
    let mut soa = SoaPose::from_pose(&rest);
    let mut locals = LocalMatrices::new(model.nodes.len());
    let prepared = PreparedSkin::new(&model.skins[0]);
    let mut soa_palette = palette.clone();
    let teaching = SampleSettings {
        rotation_space: anim::RotationSpace::MatrixLerp,
        mode: anim::InterpolationOverride::Cubic,
        ..SampleSettings::default()
    };

    let allocations = count_allocations(|| {
        for frame in 0..600 {
            let t = frame as f32 / 60.0;
            a.copy_from(&rest);
            b.copy_from(&rest);
            model.clips[0].sample(t % 1.0, &mut cursors[0], &settings, &mut a);
            model.clips[1].sample((t * 1.3) % 1.0, &mut cursors[1], &teaching, &mut b);
            blend_poses(&a, &b, 0.4, anim::ScaleSpace::Log, &mut out);
            model.hierarchy.local_to_model(&out, &mut world);
            skinning_matrices(&model.skins[0], &world, &mut palette);
            soa.set_from_pose(&out);
            model.hierarchy.local_to_model_soa(&soa, &mut locals, &mut world);
            prepared.skinning_matrices(&world, &mut soa_palette);
            if frame % 7 == 0 {
                fader.trigger(frame % 2, 0.2, Easing::Smoothstep);
            }
            fader.advance(1.0 / 60.0);
            let _ = fader.evaluate(&model, &settings);
            // The block pipeline.
            block_a.copy_from(&rest_blocks);
            model.clips[0].sample_soa(t % 1.0, &mut cursors[0], &mut block_a);
            model.clips[1].sample_soa((t * 0.7) % 1.0, &mut cursors[1], &mut block_b);
            blend_soa_poses(&block_a, &block_b, 0.3, anim::ScaleSpace::Linear, &mut block_out);
            blend_soa_into(&mut block_out, &block_a, 0.6, anim::ScaleSpace::Log);
            if frame % 5 == 0 {
                block_fader.trigger((frame / 5) % 2, 0.3, Easing::Linear);
            }
            block_fader.advance(1.0 / 60.0);
            let _ = block_fader.evaluate_soa(&model);
        }
    });
    assert_eq!(allocations, 0, "per-frame calls allocated {allocations} times");
    assert!(palette.iter().all(Mat4::is_finite));
    for (soa_matrix, matrix) in soa_palette.iter().zip(&palette) {
        assert!(soa_matrix.abs_diff_eq(*matrix, 1e-5), "{soa_matrix} != {matrix}");
    }
}
