//! `animtune bench`: medians of the per-frame jobs in nanoseconds per joint, on W64 (built in
//! memory) or on a model's clip.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use anim::workload::{random_times, w64_model};
use anim::{
    Clip, ClipCursor, ClipId, Interpolation, LocalMatrices, Model, PreparedSkin, SampleSettings, ScaleSpace, SoaPose,
    blend_poses,
};
use glam::{Affine3A, Mat4};
use serde::Serialize;

/// Timed runs per operation (the median, min and max are over these).
const RUNS: usize = 31;
/// Frames of 60 Hz playback per run (10 s).
const PLAYBACK_FRAMES: usize = 600;
/// Random sampling times per run.
const RANDOM_TIMES: usize = 4096;

/// The measured table, in the exact JSON shape scripts rely on.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenchReport {
    /// Skeleton joints the per-joint figures divide by: the skins' joints, or the animated
    /// nodes of a model without skins (translation + rotation + scale each).
    pub joints: usize,
    /// One entry per operation.
    pub results: Vec<BenchResult>,
}

/// One operation's timing.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BenchResult {
    /// `sample_linear_playback`, `sample_cubic_playback`, `sample_random`, `blend`,
    /// `local_to_model_skinning` or `full_frame`.
    pub operation: &'static str,
    /// Median over the runs.
    pub median_ns_per_joint: f64,
    /// Fastest run.
    pub min_ns_per_joint: f64,
    /// Slowest run.
    pub max_ns_per_joint: f64,
}

/// Time `RUNS` runs of `run` (after one warm-up), each doing `work_per_run` joint-operations.
fn measure(operation: &'static str, work_per_run: usize, mut run: impl FnMut()) -> BenchResult {
    run();
    let mut ns: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_nanos() as f64 / work_per_run as f64
        })
        .collect();
    ns.sort_by(f64::total_cmp);
    let round = |x: f64| (x * 100.0).round() / 100.0;
    BenchResult {
        operation,
        median_ns_per_joint: round(ns[RUNS / 2]),
        min_ns_per_joint: round(ns[0]),
        max_ns_per_joint: round(ns[RUNS - 1]),
    }
}

impl BenchReport {
    /// Benchmark W64 (no model) or `clip` of `model`: the clip converted to LINEAR and to
    /// CUBICSPLINE keeps its real key layout; blends pair it with itself a quarter period later.
    pub fn run(model: Option<(&Model, ClipId)>) -> Self {
        let w64;
        let (model, linear, cubic) = match model {
            None => {
                w64 = w64_model();
                (&w64, w64.clips[0].clone(), w64.clips[1].clone())
            }
            Some((model, clip)) => {
                let clip = &model.clips[clip.index()];
                (
                    model,
                    clip.with_interpolation(Interpolation::Linear),
                    clip.with_interpolation(Interpolation::CubicSpline),
                )
            }
        };
        // Per skeleton joint: the skins' joints (what a character has), or for a model without
        // skins the nodes the clip animates.
        // Distinct joint nodes: skins that share joints (one skeleton, many skinned meshes)
        // count each joint once.
        let skinned = distinct_joint_count(model);
        let joints = if skinned > 0 { skinned } else { linear.animated_nodes().len().max(1) };
        let duration = linear.end_secs().max(1e-3);
        let authored = SampleSettings::AUTHORED;
        let rest = model.rest_pose();
        let (mut a, mut b, mut out) = (rest.clone(), rest.clone(), rest.clone());
        let mut locals = LocalMatrices::new(model.nodes.len());
        let skins: Vec<PreparedSkin> = model.skins.iter().map(PreparedSkin::new).collect();
        let mut cursor_a = ClipCursor::new(&linear);
        let mut cursor_b = ClipCursor::new(&linear);
        let mut world = vec![Affine3A::IDENTITY; model.nodes.len()];
        let mut palettes: Vec<Vec<Mat4>> = model.skins.iter().map(|s| vec![Mat4::IDENTITY; s.joints.len()]).collect();

        let playback = |clip: &Clip, cursor: &mut ClipCursor, pose: &mut SoaPose| {
            for n in 0..PLAYBACK_FRAMES {
                clip.sample((n as f32 / 60.0) % duration, cursor, &authored, pose);
            }
            black_box(&*pose);
        };
        let mut results = Vec::new();
        results.push(measure("sample_linear_playback", PLAYBACK_FRAMES * joints, || {
            playback(&linear, &mut cursor_a, &mut a);
        }));
        let mut cursor_c = ClipCursor::new(&cubic);
        results.push(measure("sample_cubic_playback", PLAYBACK_FRAMES * joints, || {
            playback(&cubic, &mut cursor_c, &mut a);
        }));
        let times = random_times(duration, RANDOM_TIMES);
        results.push(measure("sample_random", RANDOM_TIMES * joints, || {
            for &t in &times {
                linear.sample(t, &mut cursor_a, &authored, &mut a);
            }
            black_box(&a);
        }));
        linear.sample(duration * 0.3, &mut cursor_a, &authored, &mut a);
        linear.sample(duration * 0.55, &mut cursor_b, &authored, &mut b);
        const REPEATS: usize = 1000;
        results.push(measure("blend", REPEATS * joints, || {
            for i in 0..REPEATS {
                blend_poses(black_box(&a), black_box(&b), (i as f32 * 0.001).fract(), ScaleSpace::Linear, &mut out);
            }
            black_box(&out);
        }));
        results.push(measure("local_to_model_skinning", REPEATS * joints, || {
            for _ in 0..REPEATS {
                model.hierarchy.local_to_model(black_box(&out), &mut locals, &mut world);
                for (skin, palette) in skins.iter().zip(&mut palettes) {
                    skin.skinning_matrices(&world, palette);
                }
            }
            black_box(&palettes);
        }));
        results.push(measure("full_frame", PLAYBACK_FRAMES * joints, || {
            for n in 0..PLAYBACK_FRAMES {
                let t = n as f32 / 60.0;
                linear.sample(t % duration, &mut cursor_a, &authored, &mut a);
                linear.sample((t + duration * 0.25) % duration, &mut cursor_b, &authored, &mut b);
                blend_poses(&a, &b, 0.5, ScaleSpace::Linear, &mut out);
                model.hierarchy.local_to_model(&out, &mut locals, &mut world);
                for (skin, palette) in skins.iter().zip(&mut palettes) {
                    skin.skinning_matrices(&world, palette);
                }
            }
            black_box(&palettes);
        }));
        Self { joints, results }
    }

    /// Human-readable table.
    pub fn to_text(&self, workload: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{workload}: {} joints, {RUNS} runs per operation, ns per joint (T+R+S)", self.joints);
        let _ = writeln!(s, "{} kernels, one thread", anim::simd_path());
        let _ = writeln!(s, "{:<26} {:>9} {:>9} {:>9}", "operation", "median", "min", "max");
        for r in &self.results {
            let _ = writeln!(
                s,
                "{:<26} {:>9.2} {:>9.2} {:>9.2}",
                r.operation, r.median_ns_per_joint, r.min_ns_per_joint, r.max_ns_per_joint
            );
        }
        if cfg!(debug_assertions) {
            let _ = writeln!(s, "note: this is a debug build; measure with `cargo run --release -- bench`");
        }
        s
    }
}

/// Frames timed per crowd workload (after warm-up).
const CROWD_FRAMES: usize = 60;

/// `bench --crowd N`: CPU time of one crowd frame (every instance: cross-fade bookkeeping,
/// sampling, blending, local→model, skinning palettes), in parallel on all cores.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CrowdBenchReport {
    /// Instances per crowd.
    pub crowd: usize,
    /// Worker threads (rayon).
    pub threads: usize,
    /// One entry per workload.
    pub results: Vec<CrowdBenchResult>,
}

/// One crowd workload's timing.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CrowdBenchResult {
    /// `W64`, `built-in character` or the model's path.
    pub workload: String,
    /// Skin joints per instance.
    pub joints_per_instance: usize,
    /// Median CPU milliseconds per frame.
    pub median_ms_per_frame: f64,
    /// Fastest frame.
    pub min_ms_per_frame: f64,
    /// Slowest frame.
    pub max_ms_per_frame: f64,
    /// Median nanoseconds per instance joint (the frame over instances × joints).
    pub median_ns_per_joint: f64,
}

impl CrowdBenchReport {
    /// Time `count`-instance crowds of each `(label, model)`.
    pub fn run(count: usize, workloads: &[(String, &Model)]) -> Self {
        let results = workloads
            .iter()
            .map(|(label, model)| {
                let mut crowd = crate::crowd::Crowd::new(model, count, 1);
                for _ in 0..10 {
                    crowd.update(model, 1.0 / 60.0);
                }
                let mut ms: Vec<f64> = (0..CROWD_FRAMES)
                    .map(|_| {
                        let start = Instant::now();
                        crowd.update(model, 1.0 / 60.0);
                        black_box(crowd.palettes());
                        start.elapsed().as_secs_f64() * 1e3
                    })
                    .collect();
                ms.sort_by(f64::total_cmp);
                let joints = crowd.palette_stride().max(1);
                let round = |x: f64| (x * 1000.0).round() / 1000.0;
                let median = ms[CROWD_FRAMES / 2];
                CrowdBenchResult {
                    workload: label.clone(),
                    joints_per_instance: joints,
                    median_ms_per_frame: round(median),
                    min_ms_per_frame: round(ms[0]),
                    max_ms_per_frame: round(ms[CROWD_FRAMES - 1]),
                    median_ns_per_joint: round(median * 1e6 / (count.max(1) * joints) as f64),
                }
            })
            .collect();
        Self { crowd: count, threads: rayon::current_num_threads(), results }
    }

    /// Human-readable table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "crowd of {}: CPU ms per frame on {} threads ({CROWD_FRAMES} frames)",
            self.crowd, self.threads
        );
        let _ = writeln!(
            s,
            "{:<28} {:>7} {:>9} {:>9} {:>9} {:>12}",
            "workload", "joints", "median", "min", "max", "ns/joint"
        );
        for r in &self.results {
            let _ = writeln!(
                s,
                "{:<28} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>12.2}",
                r.workload,
                r.joints_per_instance,
                r.median_ms_per_frame,
                r.min_ms_per_frame,
                r.max_ms_per_frame,
                r.median_ns_per_joint
            );
        }
        if cfg!(debug_assertions) {
            let _ = writeln!(s, "note: this is a debug build; measure with `cargo run --release -- bench --crowd N`");
        }
        s
    }
}

/// Number of distinct nodes that are a joint of some skin.
pub fn distinct_joint_count(model: &Model) -> usize {
    let mut joints: Vec<usize> = model.skins.iter().flat_map(|s| s.joints.iter().map(|j| j.index())).collect();
    joints.sort_unstable();
    joints.dedup();
    joints.len()
}
