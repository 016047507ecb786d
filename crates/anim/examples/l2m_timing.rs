//! Median timing of local→model + skinning on W64: the `Pose` path against the `SoaPose` path,
//! interleaved in one run (`cargo run --release -p animtune-anim --example l2m_timing`).

use std::hint::black_box;
use std::time::Instant;

use anim::workload::w64_model;
use anim::{ClipCursor, LocalMatrices, Pose, PreparedSkin, SampleSettings, SoaPose, skinning_matrices};
use glam::{Affine3A, Mat4};

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let model = w64_model();
    let mut pose = Pose::rest(&model);
    model.clips[0].sample(1.3, &mut ClipCursor::new(&model.clips[0]), &SampleSettings::default(), &mut pose);
    let soa = SoaPose::from_pose(&pose);
    let skin = &model.skins[0];
    let prepared = PreparedSkin::new(skin);
    let mut locals = LocalMatrices::new(model.nodes.len());
    let mut world = vec![Affine3A::IDENTITY; model.nodes.len()];
    let mut palette = vec![Mat4::IDENTITY; skin.joints.len()];
    let joints = skin.joints.len() as f64;
    const REPEATS: u32 = 64;
    let names = [
        "old local_to_model + skinning_matrices",
        "new local_to_model_soa + PreparedSkin::skinning_matrices",
        "old local_to_model alone",
        "new local_to_model_soa alone",
        "old skinning_matrices alone",
        "new PreparedSkin::skinning_matrices alone",
    ];
    let mut run = |op: usize| match op {
        0 => {
            model.hierarchy.local_to_model(black_box(&pose), &mut world);
            skinning_matrices(skin, &world, &mut palette);
        }
        1 => {
            model.hierarchy.local_to_model_soa(black_box(&soa), &mut locals, &mut world);
            prepared.skinning_matrices(&world, &mut palette);
        }
        2 => model.hierarchy.local_to_model(black_box(&pose), &mut world),
        3 => model.hierarchy.local_to_model_soa(black_box(&soa), &mut locals, &mut world),
        4 => skinning_matrices(skin, black_box(&world), &mut palette),
        _ => prepared.skinning_matrices(black_box(&world), &mut palette),
    };
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..4000 {
        for (op, s) in samples.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..REPEATS {
                run(op);
            }
            s.push(start.elapsed().as_nanos() as f64 / f64::from(REPEATS) / joints);
        }
    }
    println!("simd path: {}", anim::simd_path());
    for (name, s) in names.iter().zip(&mut samples) {
        println!("{name:60} median {:6.2} ns/joint", median(s));
    }
}
