//! Loops one W64 job of the block pipeline for wall-time profiling with `perf`:
//! `soa_loop linear|cubic|cubic1s|random|blend|frame|l2m` prints ns per joint.

use std::hint::black_box;

use anim::workload::{random_times, w64_model};
use anim::{ClipCursor, LocalMatrices, PreparedSkin, SampleSettings, ScaleSpace, blend_poses};

fn main() {
    let op = std::env::args().nth(1).unwrap_or_else(|| "linear".into());
    let model = w64_model();
    let mut pose = model.rest_pose();
    let mut other = model.rest_pose();
    let mut out = model.rest_pose();
    let mut locals = LocalMatrices::new(model.nodes().len());
    let skin = PreparedSkin::new(&model.skins()[0]);
    let mut world = vec![glam::Affine3A::IDENTITY; model.nodes().len()];
    let mut palette = vec![glam::Mat4::IDENTITY; skin.len()];
    let start = std::time::Instant::now();
    let mut frames = 0u64;
    let times = random_times(10.0, 4096);
    for _ in 0..200 {
        match op.as_str() {
            "linear" | "cubic" | "cubic1s" => {
                let clip = &model.clips()[usize::from(op != "linear")];
                let wrap = if op == "cubic1s" { 1.0 } else { 10.0 };
                let mut cursor = ClipCursor::new(clip);
                for n in 0..600 {
                    clip.sample((n as f32 / 60.0) % wrap, &mut cursor, &SampleSettings::AUTHORED, &mut pose);
                }
                frames += 600;
            }
            "random" => {
                let clip = &model.clips()[0];
                let mut cursor = ClipCursor::new(clip);
                for &t in &times {
                    clip.sample(t, &mut cursor, &SampleSettings::AUTHORED, &mut pose);
                }
                frames += 4096;
            }
            "frame" => {
                let clip = &model.clips()[0];
                let (mut cursor_a, mut cursor_b) = (ClipCursor::new(clip), ClipCursor::new(clip));
                for n in 0..600 {
                    let t = n as f32 / 60.0;
                    clip.sample(t % 10.0, &mut cursor_a, &SampleSettings::AUTHORED, &mut pose);
                    clip.sample((t + 2.5) % 10.0, &mut cursor_b, &SampleSettings::AUTHORED, &mut other);
                    blend_poses(&pose, &other, 0.5, ScaleSpace::Linear, &mut out);
                    model.hierarchy.local_to_model(&out, &mut locals, &mut world);
                    skin.skinning_matrices(&world, &mut palette);
                }
                frames += 600;
            }
            "l2m" => {
                for _ in 0..1000 {
                    model.hierarchy.local_to_model(&out, &mut locals, &mut world);
                    skin.skinning_matrices(&world, &mut palette);
                }
                frames += 1000;
            }
            _ => {
                model.clips()[0].sample(
                    3.3,
                    &mut ClipCursor::new(&model.clips()[0]),
                    &SampleSettings::AUTHORED,
                    &mut other,
                );
                for i in 0..1000 {
                    blend_poses(&pose, &other, (i as f32 * 0.001).fract(), ScaleSpace::Linear, &mut out);
                }
                frames += 1000;
            }
        }
        black_box((&pose, &out, &palette));
    }
    let ns = start.elapsed().as_nanos() as f64 / frames as f64 / 64.0;
    println!("{op}: {ns:.2} ns/joint");
}
