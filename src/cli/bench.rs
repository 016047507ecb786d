//! `animtune bench`: medians of the per-frame jobs in nanoseconds per joint, on W64 (built in
//! memory) or on a model's clip.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use anim::workload::{random_times, w64_model};
use anim::{
    AdditiveReference, Clip, ClipCursor, ClipId, CrossFader, Interpolation, LayerBlend, LayerDesc, LayerStack,
    LocalMatrices, Model, NodeId, NodeMask, PreparedSkin, SampleSettings, ScaleSpace, SoaPose, blend_poses,
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
    /// `local_to_model_skinning`, `full_frame` (two samples blended, local→model, palettes),
    /// `single_clip_frame` (one sample, local→model, palettes) or `layered_frame` (a transition
    /// under way and two layers — a masked override and an additive — then local→model and
    /// palettes).
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
                (&w64, w64.clips()[0].clone(), w64.clips()[1].clone())
            }
            Some((model, clip)) => {
                let clip = &model[clip];
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
        let mut locals = LocalMatrices::new(model.nodes().len());
        let skins: Vec<PreparedSkin> = model.skins().iter().map(PreparedSkin::new).collect();
        let mut cursor_a = ClipCursor::new(&linear);
        let mut cursor_b = ClipCursor::new(&linear);
        let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
        let mut palettes: Vec<Vec<Mat4>> = model.skins().iter().map(|s| vec![Mat4::IDENTITY; s.joints.len()]).collect();

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
        let single = linear.clone();
        results.push(measure("single_clip_frame", PLAYBACK_FRAMES * joints, || {
            for n in 0..PLAYBACK_FRAMES {
                single.sample((n as f32 / 60.0) % duration, &mut cursor_a, &authored, &mut a);
                model.hierarchy.local_to_model(&a, &mut locals, &mut world);
                for (skin, palette) in skins.iter().zip(&mut palettes) {
                    skin.skinning_matrices(&world, palette);
                }
            }
            black_box(&palettes);
        }));
        results.push(layered_frame(model, &linear, joints, &mut locals, &mut world, &skins, &mut palettes));
        Self { joints, results }
    }

    /// The figure the layer goal compares: `layered_frame` over `single_clip_frame` (medians).
    pub fn layered_ratio(&self) -> Option<f64> {
        let median = |name: &str| self.results.iter().find(|r| r.operation == name).map(|r| r.median_ns_per_joint);
        Some(median("layered_frame")? / median("single_clip_frame")?.max(1e-9))
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

/// `layered_frame`: a base clip, a transition to a copy of it always under way (a cross-fade
/// every half second), and two layers over it — an override on the first skin joint's first
/// child's subtree (or the second node's) and a whole-body additive at half weight — then
/// local→model and the palettes: what a layered character costs per frame.
fn layered_frame(
    model: &Model,
    clip: &Clip,
    joints: usize,
    locals: &mut LocalMatrices,
    world: &mut [Affine3A],
    skins: &[PreparedSkin],
    palettes: &mut [Vec<Mat4>],
) -> BenchResult {
    // A model of its own with the clip twice (the fader and the layers name clips by id).
    let mut owned = model.clone();
    owned.replace_clips([clip.clone(), clip.clone()]);
    let (base, other) = (ClipId::from_index(0), ClipId::from_index(1));
    let authored = SampleSettings::AUTHORED;
    let duration = clip.end_secs().max(1e-3);
    let root = model.skins().first().and_then(|s| s.joints.first().copied()).unwrap_or(NodeId::from_index(0));
    let branch = model.hierarchy.children(root).first().copied().unwrap_or(root);
    let layers = vec![
        LayerDesc { mask: NodeMask::from_subtrees(&model.hierarchy, &[branch]), ..LayerDesc::new(other) },
        LayerDesc {
            blend: LayerBlend::Additive(AdditiveReference::AtSecs(0.25 * duration)),
            weight: 0.5,
            ..LayerDesc::new(other)
        },
    ];
    let Ok(mut stack) = LayerStack::new(&owned, &authored, layers) else {
        return BenchResult {
            operation: "layered_frame",
            median_ns_per_joint: 0.0,
            min_ns_per_joint: 0.0,
            max_ns_per_joint: 0.0,
        };
    };
    let mut fader = CrossFader::new(&owned, base);
    let mut pose = owned.rest_pose();
    let mut frame = 0usize;
    measure("layered_frame", PLAYBACK_FRAMES * joints, || {
        for _ in 0..PLAYBACK_FRAMES {
            if frame.is_multiple_of(30) {
                fader.trigger(if frame.is_multiple_of(60) { other } else { base }, 0.4, anim::Easing::Smoothstep);
            }
            frame += 1;
            fader.advance(1.0 / 60.0);
            pose.copy_from(fader.evaluate(&owned, &authored));
            stack.apply(&owned, &authored, fader.current_time_secs(), &mut pose);
            owned.hierarchy.local_to_model(&pose, locals, world);
            for (skin, palette) in skins.iter().zip(palettes.iter_mut()) {
                skin.skinning_matrices(world, palette);
            }
        }
        black_box(&*palettes);
    })
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
    /// CPU nanoseconds per instance joint: the CPU time of every thread of the process over the
    /// timed frames (the process CPU clock) over frames × instances × joints — what one joint
    /// costs a core, without the time other work on a busy machine held the cores (where the OS
    /// does not say: `wall_ns_per_joint_per_core`).
    pub ns_per_joint_per_core: f64,
    /// The median frame times the worker threads, over instances × joints: the same cost with
    /// every thread counted busy for the whole frame (above `ns_per_joint_per_core` when other
    /// work shares the cores).
    pub wall_ns_per_joint_per_core: f64,
    /// A lone character's `full_frame` (two samples, a blend, local→model and palettes; one
    /// thread) on the same model's first clip, nanoseconds per joint, measured in this run.
    pub full_frame_ns_per_joint: Option<f64>,
    /// `ns_per_joint_per_core` over `full_frame_ns_per_joint`: what a crowd instance costs a
    /// core against a lone character's full frame (absent for a model without clips).
    pub vs_full_frame: Option<f64>,
    /// Bytes of output written per instance per frame: its palette (4×4 `f32` per joint), the
    /// transforms of the nodes that carry a mesh (an `Affine3A` each) and its morph weights.
    pub output_bytes_per_instance: usize,
    /// Those bytes for every instance over the median frame: the write bandwidth the crowd
    /// needs, GB/s.
    pub output_gb_per_s: f64,
}

impl CrowdBenchReport {
    /// Time `count`-instance crowds of each `(label, model)`.
    pub fn run(count: usize, workloads: &[(String, &Model)]) -> Self {
        let threads = rayon::current_num_threads();
        let results = workloads
            .iter()
            .map(|(label, model)| {
                // The lone character first, in this run, on this model.
                let full_frame = (!model.clips().is_empty()).then(|| {
                    let report = BenchReport::run(Some((model, ClipId::from_index(0))));
                    report.results.iter().find(|r| r.operation == "full_frame").map_or(0.0, |r| r.median_ns_per_joint)
                });
                let mut crowd = crate::crowd::Crowd::new(model, count, 1);
                for _ in 0..10 {
                    crowd.update(model, 1.0 / 60.0);
                }
                let cpu_before = crate::process::cpu_time();
                let mut ms: Vec<f64> = (0..CROWD_FRAMES)
                    .map(|_| {
                        let start = Instant::now();
                        crowd.update(model, 1.0 / 60.0);
                        black_box(crowd.palettes());
                        start.elapsed().as_secs_f64() * 1e3
                    })
                    .collect();
                let cpu = cpu_before.zip(crate::process::cpu_time()).map(|(a, b)| b.saturating_sub(a));
                ms.sort_by(f64::total_cmp);
                let joints = crowd.palette_stride().max(1);
                let round = |x: f64| (x * 1000.0).round() / 1000.0;
                let median = ms[CROWD_FRAMES / 2];
                let wall_per_core = median * 1e6 * threads as f64 / (count.max(1) * joints) as f64;
                let per_core = cpu
                    .map_or(wall_per_core, |cpu| cpu.as_nanos() as f64 / (CROWD_FRAMES * count.max(1) * joints) as f64);
                let output_bytes = std::mem::size_of_val(crowd.palettes())
                    + std::mem::size_of_val(crowd.node_worlds())
                    + std::mem::size_of_val(crowd.weights());
                let output_bytes_per_instance = output_bytes / count.max(1);
                let full_frame = full_frame.filter(|&ns| ns > 0.0);
                CrowdBenchResult {
                    ns_per_joint_per_core: round(per_core),
                    wall_ns_per_joint_per_core: round(wall_per_core),
                    full_frame_ns_per_joint: full_frame,
                    vs_full_frame: full_frame.map(|ns| (per_core / ns * 100.0).round() / 100.0),
                    output_bytes_per_instance,
                    output_gb_per_s: round(output_bytes as f64 / (median * 1e-3) / 1e9),
                    workload: label.clone(),
                    joints_per_instance: joints,
                    median_ms_per_frame: round(median),
                    min_ms_per_frame: round(ms[0]),
                    max_ms_per_frame: round(ms[CROWD_FRAMES - 1]),
                    median_ns_per_joint: round(median * 1e6 / (count.max(1) * joints) as f64),
                }
            })
            .collect();
        Self { crowd: count, threads, results }
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
            "{:<28} {:>7} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>10} {:>8} {:>9}",
            "workload",
            "joints",
            "median",
            "min",
            "max",
            "ns/joint",
            "ns/j/core",
            "wall×thr",
            "lone ns/j",
            "ratio",
            "out GB/s"
        );
        let or_dash = |x: Option<f64>| x.map_or_else(|| "-".to_owned(), |x| format!("{x:.2}"));
        for r in &self.results {
            let _ = writeln!(
                s,
                "{:<28} {:>7} {:>9.3} {:>9.3} {:>9.3} {:>9.2} {:>10.2} {:>9.2} {:>10} {:>8} {:>9.2}",
                r.workload,
                r.joints_per_instance,
                r.median_ms_per_frame,
                r.min_ms_per_frame,
                r.max_ms_per_frame,
                r.median_ns_per_joint,
                r.ns_per_joint_per_core,
                r.wall_ns_per_joint_per_core,
                or_dash(r.full_frame_ns_per_joint),
                or_dash(r.vs_full_frame),
                r.output_gb_per_s
            );
        }
        let _ = writeln!(
            s,
            "ns/j/core: every thread's CPU time per instance joint; wall×thr: the median frame × threads per instance joint (more when other work shares the cores); ratio: ns/j/core over a lone character's full frame (lone ns/j, one thread, this run)"
        );
        if cfg!(debug_assertions) {
            let _ = writeln!(s, "note: this is a debug build; measure with `cargo run --release -- bench --crowd N`");
        }
        s
    }
}

/// Number of distinct nodes that are a joint of some skin.
pub fn distinct_joint_count(model: &Model) -> usize {
    let mut joints: Vec<usize> = model.skins().iter().flat_map(|s| s.joints.iter().map(|j| j.index())).collect();
    joints.sort_unstable();
    joints.dedup();
    joints.len()
}
