//! Per-frame calls allocate nothing: counted by a global allocator on the test's own thread.

#![allow(clippy::unwrap_used)]

use anim::{
    ClipCursor, ClipId, CrossFader, Easing, LocalMatrices, PreparedSkin, SampleSettings, blend_into, blend_poses,
};
use devtools::alloc::{CountingAllocator, allocations_on_this_thread};
use devtools::gltf::Doc;
use glam::{Affine3A, Mat4};
use serde_json::json;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

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
    let rest = model.rest_pose();
    let (mut a, mut b, mut out) = (rest.clone(), rest.clone(), rest.clone());
    let mut cursors: Vec<ClipCursor> = model.clips().iter().map(ClipCursor::new).collect();
    let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut locals = LocalMatrices::new(model.nodes().len());
    let prepared = PreparedSkin::new(&model.skins()[0]);
    let mut palette = vec![Mat4::IDENTITY; prepared.len()];
    let mut fader = CrossFader::new(&model, ClipId::from_index(0));
    let mut teaching_fader = CrossFader::new(&model, ClipId::from_index(1));
    // Every transition kind, root motion in place, triggered often enough to fill the offset
    // stack and the layer stack.
    let mut kinds_fader = CrossFader::new(&model, ClipId::from_index(0));
    kinds_fader.set_root_motion(&model, Some(anim::RootMotion::InPlace));
    let teaching = SampleSettings {
        rotation_space: anim::RotationSpace::MatrixLerp,
        mode: anim::InterpolationOverride::Cubic,
        track_modes: vec![Some(anim::InterpolationOverride::Step)],
        ..SampleSettings::default()
    };

    // Layers whose clips leave nodes unanimated (each layer pose reset to the base or the rest
    // pose every frame), two of one clip (sampled once), an additive on another clip's pose.
    let b_clip = ClipId::from_index(1);
    let mut mask = anim::NodeMask::none(model.nodes().len());
    mask.set(anim::NodeId::from_index(1), 0.7);
    let layers = vec![
        anim::LayerDesc { mask, ..anim::LayerDesc::new(b_clip) },
        anim::LayerDesc {
            blend: anim::LayerBlend::Additive(anim::AdditiveReference::ClipFirstFrame(ClipId::from_index(0))),
            weight: 0.5,
            ..anim::LayerDesc::new(b_clip)
        },
        anim::LayerDesc {
            blend: anim::LayerBlend::Additive(anim::AdditiveReference::AtSecs(0.5)),
            ..anim::LayerDesc::new(ClipId::from_index(0))
        },
    ];
    let mut stack = anim::LayerStack::new(&model, &settings, layers).unwrap();

    let allocations = allocations_on_this_thread(|| {
        for frame in 0..600 {
            let t = frame as f32 / 60.0;
            a.copy_from(&rest);
            b.copy_from(&rest);
            model.clips()[0].sample(t % 1.0, &mut cursors[0], &settings, &mut a);
            model.clips()[1].sample((t * 1.3) % 1.0, &mut cursors[1], &teaching, &mut b);
            blend_poses(&a, &b, 0.4, anim::ScaleSpace::Log, &mut out);
            blend_into(&mut out, &a, 0.6, anim::ScaleSpace::Linear);
            stack.advance(1.0 / 60.0);
            stack.apply(&model, &settings, t, &mut out);
            model.hierarchy.local_to_model(&out, &mut locals, &mut world);
            prepared.skinning_matrices(&world, &mut palette);
            if frame % 7 == 0 {
                fader.trigger(ClipId::from_index(frame % 2), 0.2, Easing::Smoothstep);
            }
            fader.advance(1.0 / 60.0);
            let _ = fader.evaluate(&model, &settings);
            if frame % 5 == 0 {
                teaching_fader.trigger(ClipId::from_index((frame / 5) % 2), 0.3, Easing::Linear);
            }
            teaching_fader.advance(1.0 / 60.0);
            let _ = teaching_fader.evaluate(&model, &teaching);
            if frame % 3 == 0 {
                let kind = anim::TransitionKind::ALL[(frame / 3) % 3];
                let transition = anim::Transition { match_cycle_secs: 0.8, ..anim::Transition::new(kind, 0.25) };
                kinds_fader.transition(&model, &settings, ClipId::from_index((frame / 3) % 2), &transition);
            }
            kinds_fader.advance(1.0 / 60.0);
            let _ = kinds_fader.evaluate(&model, &settings);
        }
    });
    assert_eq!(allocations, 0, "per-frame calls allocated {allocations} times");
    assert!(palette.iter().all(Mat4::is_finite));
    assert!(out.is_finite() && fader.output().is_finite() && teaching_fader.output().is_finite());
    assert!(kinds_fader.output().is_finite());
}

#[test]
fn per_frame_layers_and_blend_spaces_allocate_nothing() {
    let model = anim::workload::w64_model();
    let settings = SampleSettings::default();
    let (a, b) = (ClipId::from_index(0), ClipId::from_index(1));
    let mask = anim::NodeMask::from_subtrees(&model.hierarchy, &[anim::NodeId::from_index(3)]);
    let layers = vec![
        anim::LayerDesc { mask, ramp_secs: 0.3, ramp_easing: Easing::Smoothstep, ..anim::LayerDesc::new(b) },
        anim::LayerDesc {
            blend: anim::LayerBlend::Additive(anim::AdditiveReference::AtSecs(0.2)),
            weight: 0.5,
            ..anim::LayerDesc::new(a)
        },
    ];
    let mut stack = anim::LayerStack::new(&model, &settings, layers).unwrap();
    let space = anim::BlendSpace::new_2d(&[
        (a, glam::Vec2::new(0.0, 0.0)),
        (b, glam::Vec2::new(1.0, 0.0)),
        (a, glam::Vec2::new(0.5, 1.0)),
    ])
    .unwrap();
    let contacts = [
        vec![anim::FootContact { foot: 0, time_secs: 0.1 }, anim::FootContact { foot: 1, time_secs: 0.6 }],
        vec![anim::FootContact { foot: 1, time_secs: 0.3 }, anim::FootContact { foot: 0, time_secs: 0.9 }],
        vec![anim::FootContact { foot: 0, time_secs: 0.2 }, anim::FootContact { foot: 1, time_secs: 0.5 }],
    ];
    let mut player = anim::BlendSpacePlayer::new(&model, space, anim::PhaseSync::Phase, &contacts).unwrap();
    assert!(player.syncs_by_markers());
    let mut fader = CrossFader::new(&model, a);
    let mut pose = model.rest_pose();
    let allocations = allocations_on_this_thread(|| {
        for frame in 0..600 {
            let dt = 1.0 / 60.0;
            if frame % 50 == 0 {
                fader.trigger(if frame % 100 == 0 { b } else { a }, 0.3, Easing::Linear);
            }
            fader.advance(dt);
            pose.copy_from(fader.evaluate(&model, &settings));
            stack.advance(dt);
            stack.apply(&model, &settings, fader.current_time_secs(), &mut pose);
            player.set_parameter(glam::Vec2::new((frame as f32 * 0.01).sin().abs(), 0.3));
            player.advance(dt);
            player.evaluate(&model, &settings, &mut pose);
            stack.apply(&model, &settings, frame as f32 * dt, &mut pose);
        }
    });
    assert_eq!(allocations, 0, "per-frame layer and blend-space calls allocated {allocations} times");
    assert!(pose.is_finite());
}

#[test]
fn rewind_record_and_scrub_allocate_nothing() {
    use anim::state_machine::{EventId, FiredEvent, ParamValue, StateId, TransitionId};
    let model = anim::workload::w64_model();
    let settings = SampleSettings::default();
    let mut cursor = ClipCursor::new(&model.clips()[0]);
    let mut pose = model.rest_pose();
    let mut scrubbed = model.rest_pose();
    let layout = anim::RewindLayout::new(model.nodes().len(), 2.0, 2, 2);
    // 2 s at 60 Hz: 123 slots, so 600 frames at 100 Hz wrap the ring and merge frames.
    let mut rewind = anim::RewindBuffer::with_layout(layout).unwrap();
    let mut facts_out = anim::FrameFactsOut::for_layout(&layout);
    let events: Vec<FiredEvent> =
        (0..12).map(|i| FiredEvent { event: EventId::new(i), state: StateId::new(1) }).collect();
    let allocations = allocations_on_this_thread(|| {
        for frame in 0..600u32 {
            let time_secs = f64::from(frame) / 100.0;
            model.clips()[0].sample(time_secs as f32 % 10.0, &mut cursor, &settings, &mut pose);
            let params = [ParamValue::Float(time_secs as f32), ParamValue::Trigger(frame % 2 == 0)];
            let facts = anim::FrameFacts {
                clip: Some(ClipId::from_index(0)),
                state: Some(StateId::new(frame % 3)),
                clip_secs: time_secs as f32,
                state_secs: time_secs as f32,
                transition: Some(anim::RewindTransition {
                    transition: Some(TransitionId::new(0)),
                    from: StateId::new(0),
                    to: StateId::new(1),
                    weight: 0.5,
                    kind: anim::TransitionKind::Inertialize,
                    elapsed_secs: 0.1,
                    duration_secs: 0.2,
                }),
                layer_weights: &[0.25, 1.0],
                params: &params,
                events: &events[..(frame as usize % 13)],
            };
            rewind.record(time_secs, &pose, &facts).unwrap();
            let back = f64::from(frame % 7) * 0.1;
            if back <= rewind.held_secs() {
                rewind.frame_at(back, &mut scrubbed, &mut facts_out).unwrap();
            }
        }
    });
    assert_eq!(allocations, 0, "rewind record and scrub allocated {allocations} times");
    assert!(rewind.len() > 100 && rewind.events_dropped() > 0 && scrubbed.is_finite());
    assert_eq!(rewind.memory_bytes(), layout.ceiling_bytes());
}
