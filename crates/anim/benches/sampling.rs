//! Criterion benchmarks of the per-frame jobs on W64 (see `anim::workload`) and on the shared
//! sample models. Throughput is reported per joint (translation + rotation + scale).

use std::hint::black_box;
use std::time::Instant;

use anim::workload::{W64_DURATION_SECS, random_times, w64_model};
use anim::{
    AdditiveReference, ClipCursor, ClipId, CrossFader, Easing, FrameFacts, FrameFactsOut, LayerBlend, LayerDesc,
    LayerStack, LocalMatrices, Model, NodeId, NodeMask, PreparedSkin, RewindBuffer, RewindLayout, SampleSettings,
    ScaleSpace, blend_poses,
};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Affine3A, Mat4};

const PLAYBACK_FRAMES: usize = 600;

/// The six operations of `animtune bench`, plus LINEAR playback under an interpolation override
/// (the per-track path the viewer runs while an override is on).
fn bench_model(c: &mut Criterion, label: &str, model: &Model, linear: usize, cubic: Option<usize>, second: usize) {
    let joints = model.skins().first().map_or(model.nodes().len(), |s| s.joints.len()).max(1);
    let authored = SampleSettings::AUTHORED;
    let overridden = SampleSettings::with_mode(anim::InterpolationOverride::Cubic);
    let rest = model.rest_pose();
    let mut group = c.benchmark_group(label);
    let clip = &model.clips()[linear];
    let clip_b = &model.clips()[second];

    for (name, clip, settings) in [
        ("sample_linear_playback", Some(linear), &authored),
        ("sample_cubic_playback", cubic, &authored),
        ("sample_cubic_override_playback", Some(linear), &overridden),
    ] {
        let Some(clip) = clip else { continue };
        let clip = &model.clips()[clip];
        let duration = clip.end_secs().max(1e-3);
        group.throughput(Throughput::Elements((PLAYBACK_FRAMES * joints) as u64));
        let (mut pose, mut cursor) = (rest.clone(), ClipCursor::new(clip));
        group.bench_function(name, |b| {
            b.iter(|| {
                for n in 0..PLAYBACK_FRAMES {
                    clip.sample((n as f32 / 60.0) % duration, &mut cursor, settings, &mut pose);
                }
                black_box(&pose);
            });
        });
    }

    let times = random_times(clip.end_secs().max(1e-3), 4096);
    let mut cursor = ClipCursor::new(clip);
    group.throughput(Throughput::Elements((times.len() * joints) as u64));
    let mut pose = rest.clone();
    group.bench_function("sample_random", |b| {
        b.iter(|| {
            for &t in &times {
                clip.sample(t, &mut cursor, &authored, &mut pose);
            }
            black_box(&pose);
        });
    });

    let (mut a, mut other, mut out) = (rest.clone(), rest.clone(), rest.clone());
    clip.sample(1.0, &mut ClipCursor::new(clip), &authored, &mut a);
    clip_b.sample(1.0, &mut ClipCursor::new(clip_b), &authored, &mut other);
    group.throughput(Throughput::Elements(model.nodes().len() as u64));
    group.bench_function("blend", |b| {
        b.iter(|| blend_poses(black_box(&a), black_box(&other), 0.37, ScaleSpace::Linear, &mut out));
    });

    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut palettes: Vec<Vec<Mat4>> = model.skins().iter().map(|s| vec![Mat4::IDENTITY; s.joints.len()]).collect();
    let mut locals = LocalMatrices::new(model.nodes().len());
    let prepared: Vec<PreparedSkin> = model.skins().iter().map(PreparedSkin::new).collect();
    group.throughput(Throughput::Elements(joints as u64));
    group.bench_function("local_to_model_skinning", |b| {
        b.iter(|| {
            model.hierarchy.local_to_model(black_box(&a), &mut locals, &mut world);
            for (skin, palette) in prepared.iter().zip(&mut palettes) {
                skin.skinning_matrices(&world, palette);
            }
        });
    });

    let (mut cursor_a, mut cursor_b) = (ClipCursor::new(clip), ClipCursor::new(clip_b));
    group.throughput(Throughput::Elements((PLAYBACK_FRAMES * joints) as u64));
    group.bench_function("full_frame", |b| {
        b.iter(|| {
            for n in 0..PLAYBACK_FRAMES {
                let t = n as f32 / 60.0;
                clip.sample(t % clip.end_secs().max(1e-3), &mut cursor_a, &authored, &mut a);
                clip_b.sample(t % clip_b.end_secs().max(1e-3), &mut cursor_b, &authored, &mut other);
                blend_poses(&a, &other, 0.5, ScaleSpace::Linear, &mut out);
                model.hierarchy.local_to_model(&out, &mut locals, &mut world);
                for (skin, palette) in prepared.iter().zip(&mut palettes) {
                    skin.skinning_matrices(&world, palette);
                }
            }
            black_box(&palettes);
        });
    });
    group.finish();
}

/// `single_clip_frame` and `layered_frame` as `animtune bench` runs them (src/cli/bench.rs): one
/// clip sampled, local→model and palettes; against a cross-fade always under way (a trigger
/// every half second), a masked override layer on the first skin joint's first child's subtree
/// and a whole-body additive at half weight (reference at a quarter of the clip), then
/// local→model and palettes. Throughput per joint, so the two medians divide into the goal's
/// ratio. Then the ratio once more from runs of the two taken in turn (medians of 101 each), so
/// that a machine busy with other work slows both alike.
fn bench_layered(c: &mut Criterion, label: &str, model: &Model) {
    let joints = model.skins().first().map_or(model.nodes().len(), |s| s.joints.len()).max(1);
    let authored = SampleSettings::AUTHORED;
    let clip = model.clips()[0].clone();
    let duration = clip.end_secs().max(1e-3);
    let prepared: Vec<PreparedSkin> = model.skins().iter().map(PreparedSkin::new).collect();
    let outputs = || {
        let world = vec![Affine3A::IDENTITY; model.nodes().len()];
        let palettes: Vec<Vec<Mat4>> = model.skins().iter().map(|s| vec![Mat4::IDENTITY; s.joints.len()]).collect();
        (LocalMatrices::new(model.nodes().len()), world, palettes)
    };

    let (mut locals, mut world, mut palettes) = outputs();
    let (mut pose, mut cursor) = (model.rest_pose(), ClipCursor::new(&clip));
    let mut single = || {
        for n in 0..PLAYBACK_FRAMES {
            clip.sample((n as f32 / 60.0) % duration, &mut cursor, &authored, &mut pose);
            model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
            for (skin, palette) in prepared.iter().zip(&mut palettes) {
                skin.skinning_matrices(&world, palette);
            }
        }
        black_box(&palettes);
    };

    let mut owned = model.clone();
    owned.replace_clips([clip.clone(), clip.clone()]);
    let owned = owned;
    let (base, other) = (ClipId::from_index(0), ClipId::from_index(1));
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
    let mut stack = LayerStack::new(&owned, &authored, layers).expect("the layers name the model's clips");
    let mut fader = CrossFader::new(&owned, base);
    let mut frame = 0usize;
    let (mut layered_locals, mut layered_world, mut layered_palettes) = outputs();
    let mut layered_pose = owned.rest_pose();
    let mut layered = || {
        for _ in 0..PLAYBACK_FRAMES {
            if frame.is_multiple_of(30) {
                fader.trigger(if frame.is_multiple_of(60) { other } else { base }, 0.4, Easing::Smoothstep);
            }
            frame += 1;
            fader.advance(1.0 / 60.0);
            layered_pose.copy_from(fader.evaluate(&owned, &authored));
            stack.apply(&owned, &authored, fader.current_time_secs(), &mut layered_pose);
            owned.hierarchy.local_to_model(&layered_pose, &mut layered_locals, &mut layered_world);
            for (skin, palette) in prepared.iter().zip(&mut layered_palettes) {
                skin.skinning_matrices(&layered_world, palette);
            }
        }
        black_box(&layered_palettes);
    };

    // The same frame without the layers: what the transition alone costs over a single clip.
    let mut transition_fader = CrossFader::new(&owned, base);
    let mut transition_frame = 0usize;
    let (mut transition_locals, mut transition_world, mut transition_palettes) = outputs();
    let mut transition_pose = owned.rest_pose();
    let mut transition = || {
        for _ in 0..PLAYBACK_FRAMES {
            if transition_frame.is_multiple_of(30) {
                let to = if transition_frame.is_multiple_of(60) { other } else { base };
                transition_fader.trigger(to, 0.4, Easing::Smoothstep);
            }
            transition_frame += 1;
            transition_fader.advance(1.0 / 60.0);
            transition_pose.copy_from(transition_fader.evaluate(&owned, &authored));
            owned.hierarchy.local_to_model(&transition_pose, &mut transition_locals, &mut transition_world);
            for (skin, palette) in prepared.iter().zip(&mut transition_palettes) {
                skin.skinning_matrices(&transition_world, palette);
            }
        }
        black_box(&transition_palettes);
    };

    let mut group = c.benchmark_group(label);
    group.throughput(Throughput::Elements((PLAYBACK_FRAMES * joints) as u64));
    group.bench_function("single_clip_frame", |b| b.iter(&mut single));
    group.bench_function("transition_frame", |b| b.iter(&mut transition));
    group.bench_function("layered_frame", |b| b.iter(&mut layered));

    // The two layer jobs alone, per joint: the additive at half weight and at 1, the override
    // on the masked subtree.
    let mut base_pose = owned.rest_pose();
    clip.sample(0.3 * duration, &mut ClipCursor::new(&clip), &authored, &mut base_pose);
    let (mut layer_pose, mut reference, mut out) = (owned.rest_pose(), owned.rest_pose(), owned.rest_pose());
    clip.sample(0.7 * duration, &mut ClipCursor::new(&clip), &authored, &mut layer_pose);
    clip.sample(0.25 * duration, &mut ClipCursor::new(&clip), &authored, &mut reference);
    let mask = NodeMask::from_subtrees(&model.hierarchy, &[branch]);
    group.throughput(Throughput::Elements(joints as u64));
    for (name, weight) in [("layer_additive_half", 0.5), ("layer_additive_full", 1.0)] {
        let weights = vec![weight; model.nodes().len()];
        group.bench_function(name, |b| {
            b.iter(|| {
                out.copy_from(&base_pose);
                anim::apply_additive(&mut out, black_box(&layer_pose), &reference, &weights);
            });
        });
    }
    group.bench_function("layer_override_masked", |b| {
        b.iter(|| {
            out.copy_from(&base_pose);
            anim::apply_override(&mut out, black_box(&layer_pose), mask.weights());
        });
    });
    group.finish();

    let per_joint = |start: Instant| start.elapsed().as_nanos() as f64 / (PLAYBACK_FRAMES * joints) as f64;
    let (mut single_ns, mut layered_ns) = (Vec::new(), Vec::new());
    for _ in 0..101 {
        let start = Instant::now();
        single();
        single_ns.push(per_joint(start));
        let start = Instant::now();
        layered();
        layered_ns.push(per_joint(start));
    }
    single_ns.sort_by(f64::total_cmp);
    layered_ns.sort_by(f64::total_cmp);
    let (s, l) = (single_ns[50], layered_ns[50]);
    println!(
        "{label} taken in turn: single_clip_frame {s:.2} ns/joint, layered_frame {l:.2} ns/joint, ratio {:.2}",
        l / s
    );
}

/// The rewind ring on W64: `rewind_record` (a frame every 1/60 s: each one stored, the ring
/// wrapped) and `rewind_scrub` (`frame_at` between two stored frames), per joint.
fn bench_rewind(c: &mut Criterion, model: &Model) {
    let mut group = c.benchmark_group("W64");
    let clip = &model.clips()[0];
    let mut pose = model.rest_pose();
    clip.sample(1.0, &mut ClipCursor::new(clip), &SampleSettings::AUTHORED, &mut pose);
    let layout = RewindLayout::new(model.nodes().len(), 30.0, 2, 4);
    let mut rewind = RewindBuffer::with_layout(layout).unwrap_or_else(|e| panic!("{e}"));
    let params = [anim::state_machine::ParamValue::Float(0.5); 4];
    let facts = FrameFacts {
        clip: Some(ClipId::from_index(0)),
        layer_weights: &[1.0, 0.5],
        params: &params,
        ..FrameFacts::EMPTY
    };
    let mut frame = 0u64;
    group.throughput(Throughput::Elements((PLAYBACK_FRAMES * model.nodes().len()) as u64));
    group.bench_function("rewind_record", |b| {
        b.iter(|| {
            for _ in 0..PLAYBACK_FRAMES {
                frame += 1;
                let recorded = rewind.record(frame as f64 / 60.0, black_box(&pose), &facts);
                black_box(recorded).unwrap_or_else(|e| panic!("{e}"));
            }
        });
    });
    let mut out = model.rest_pose();
    let mut facts_out = FrameFactsOut::for_layout(&layout);
    group.throughput(Throughput::Elements(model.nodes().len() as u64));
    group.bench_function("rewind_scrub", |b| {
        b.iter(|| rewind.frame_at(black_box(10.005), &mut out, &mut facts_out).unwrap_or_else(|e| panic!("{e}")));
    });
    println!("W64 rewind at 30 s: {:.1} KiB, {} frames held", rewind.memory_kib(), rewind.len());
    group.finish();
}

fn w64(c: &mut Criterion) {
    let model = w64_model();
    assert_eq!(model.clips()[0].end_secs(), W64_DURATION_SECS);
    bench_model(c, "W64", &model, 0, Some(1), 2);
    bench_layered(c, "W64", &model);
    bench_rewind(c, &model);
}

fn shared_models(c: &mut Criterion) {
    for (label, file) in [
        ("Fox", "Fox/Fox.glb"),
        ("CesiumMan", "CesiumMan/CesiumMan.glb"),
        ("RobotExpressive", "RobotExpressive/RobotExpressive.glb"),
    ] {
        let Some(path) = devtools::ci::shared_model_path(file) else { continue };
        let model = anim::import::load_path(&path).unwrap_or_else(|e| panic!("{label}: {e}"));
        let second = if model.clips().len() > 1 { 1 } else { 0 };
        bench_model(c, label, &model, 0, None, second);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = w64, shared_models
}
criterion_main!(benches);
