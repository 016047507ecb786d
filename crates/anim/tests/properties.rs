//! Property tests: sampling, blending and cross-fading stay finite for any finite input, and
//! LINEAR stays inside the hull of its keys.

#![allow(clippy::unwrap_used)]

use anim::{
    Clip, ClipCursor, Easing, Interpolation, InterpolationOverride, NodeId, RawClip, RotationSpace, SampleSettings,
    ScaleSpace, SoaPose, Timeline, Track, TrackValues, Transform, blend_poses,
};
use glam::{Quat, Vec3, Vec4};
use proptest::prelude::*;

fn one_node_pose() -> SoaPose {
    SoaPose::from_transforms(&[Transform::IDENTITY], Vec::new())
}

const NODE: NodeId = NodeId::new(0);

/// Key times: strictly increasing, with near-coincident neighbours allowed.
fn times_strategy() -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(prop_oneof![1e-6f32..1e-4, 1e-3f32..2.0], 0..12).prop_map(|gaps| {
        let mut t = 0.0f32;
        let mut times = vec![0.0];
        for g in gaps {
            let next = t + g;
            if next > t {
                times.push(next);
                t = next;
            }
        }
        times
    })
}

fn vec3(range: f32) -> impl Strategy<Value = Vec3> {
    (-range..range, -range..range, -range..range).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// Any finite 4-vector, including (near-)degenerate ones, as a rotation key or tangent.
fn quat_any() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(|(x, y, z, w)| {
        let v = Vec4::new(x, y, z, w);
        if v.length() > 1e-3 { Quat::from_vec4(v.normalize()) } else { Quat::IDENTITY }
    })
}

fn interpolation() -> impl Strategy<Value = Interpolation> {
    prop_oneof![Just(Interpolation::Step), Just(Interpolation::Linear), Just(Interpolation::CubicSpline)]
}

fn clip_strategy() -> impl Strategy<Value = Clip> {
    (times_strategy(), interpolation(), interpolation(), interpolation()).prop_flat_map(|(times, it, ir, is)| {
        let n = times.len();
        let elems = |i: Interpolation| if i == Interpolation::CubicSpline { 3 * n } else { n };
        (
            Just(times),
            Just((it, ir, is)),
            prop::collection::vec(vec3(1e3), elems(it)),
            prop::collection::vec(quat_any(), elems(ir)),
            prop::collection::vec(
                prop_oneof![vec3(1e4), vec3(1.0).prop_map(|v| v.abs() + Vec3::splat(1e-3))],
                elems(is),
            ),
            prop::collection::vec(vec3(1e4), n * 3),
        )
            .prop_map(move |(times, (it, ir, is), translations, mut rotations, scales, huge_tangents)| {
                // Cubic rotation tangents may be huge too.
                if ir == Interpolation::CubicSpline {
                    for (k, tangent) in huge_tangents.iter().enumerate().take(n) {
                        rotations[3 * k] = Quat::from_xyzw(tangent.x, tangent.y, tangent.z, 0.0);
                    }
                }
                let track = |values, interpolation| Track {
                    node: NODE,
                    timeline: 0,
                    interpolation,
                    values,
                    channel: 0,
                    sampler: 0,
                };
                RawClip {
                    name: None,
                    timelines: vec![Timeline { times_secs: times }],
                    tracks: vec![
                        track(TrackValues::Translation(translations), it),
                        track(TrackValues::Rotation(rotations), ir),
                        track(TrackValues::Scale(scales), is),
                    ],
                    min_end_secs: 0.0,
                }
                .build()
                .unwrap()
            })
    })
}

fn settings_strategy() -> impl Strategy<Value = SampleSettings> {
    (
        prop::sample::select(InterpolationOverride::ALL.to_vec()),
        prop::sample::select(RotationSpace::ALL.to_vec()),
        prop::sample::select(ScaleSpace::ALL.to_vec()),
        prop::sample::select(Easing::ALL.to_vec()),
    )
        .prop_map(|(mode, rotation_space, scale_space, easing)| SampleSettings {
            mode,
            track_modes: Vec::new(),
            rotation_space,
            scale_space,
            easing,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn sampling_is_always_finite(clip in clip_strategy(), settings in settings_strategy(), times in prop::collection::vec(-10.0f32..40.0, 1..16)) {
        let mut pose = one_node_pose();
        let mut cursor = ClipCursor::new(&clip);
        for t in times {
            clip.sample(t, &mut cursor, &settings, &mut pose);
            prop_assert!(pose.is_finite(), "t = {}: {:?}", t, pose);
            prop_assert!((pose.rotation(NODE).length() - 1.0).abs() < 1e-3, "|q| = {}", pose.rotation(NODE).length());
        }
    }

    #[test]
    fn linear_stays_inside_the_key_hull(clip in clip_strategy(), times in prop::collection::vec(-10.0f32..40.0, 1..16)) {
        let settings = SampleSettings::with_mode(InterpolationOverride::Linear);
        let TrackValues::Translation(values) = &clip.tracks()[0].values else { unreachable!() };
        let keys: Vec<Vec3> = (0..clip.timelines()[0].times_secs.len()).map(|k| values[clip.tracks()[0].value_index(k)]).collect();
        let lo = keys.iter().copied().fold(Vec3::splat(f32::INFINITY), Vec3::min);
        let hi = keys.iter().copied().fold(Vec3::splat(f32::NEG_INFINITY), Vec3::max);
        let mut pose = one_node_pose();
        let mut cursor = ClipCursor::new(&clip);
        for t in times {
            clip.sample(t, &mut cursor, &settings, &mut pose);
            let v = pose.translation(NODE);
            let slack = Vec3::splat(1e-3);
            prop_assert!(v.cmpge(lo - slack).all() && v.cmple(hi + slack).all(), "{} outside [{}, {}]", v, lo, hi);
        }
    }

    #[test]
    fn blending_is_always_finite(a in (vec3(1e4), quat_any(), vec3(1e3)), b in (vec3(1e4), quat_any(), vec3(1e3)), w in -1.0f32..2.0, log in any::<bool>()) {
        let pose = |(translation, rotation, scale): (Vec3, Quat, Vec3), weight: f32| {
            SoaPose::from_transforms(&[Transform { translation, rotation, scale }], vec![weight])
        };
        let (pa, pb) = (pose(a, a.0.x), pose(b, b.0.y));
        let mut out = pa.clone();
        let space = if log { ScaleSpace::Log } else { ScaleSpace::Linear };
        blend_poses(&pa, &pb, w, space, &mut out);
        prop_assert!(out.is_finite());
        prop_assert!((out.rotation(NODE).length() - 1.0).abs() < 1e-3);
    }

    #[test]
    fn the_ragdoll_blend_is_always_finite(
        worlds in prop::collection::vec((vec3(1e4), quat_any(), prop::sample::select(vec![0.0f32, 1e-20, 0.5, 1.0, 3.0, 1e6])), 3),
        w in -1.0f32..2.0,
    ) {
        // A three-node chain: physics world transforms (any rotation, zero or huge scales) back to
        // local, then blended over the animation pose, as the ragdoll controller does.
        let id = NodeId::from_index;
        let hierarchy = anim::Hierarchy::from_parents(&[None, Some(id(0)), Some(id(1))]).expect("tree");
        let model_from_node: Vec<glam::Affine3A> = worlds
            .iter()
            .map(|&(t, r, s)| glam::Affine3A::from_scale_rotation_translation(Vec3::splat(s), r.normalize(), t))
            .collect();
        let animated = SoaPose::from_transforms(
            &[Transform { translation: Vec3::Y, rotation: Quat::from_rotation_x(0.3), scale: Vec3::ONE }; 3],
            Vec::new(),
        );
        let mut physics = animated.clone();
        anim::ragdoll::model_to_local(&hierarchy, &model_from_node, &mut physics);
        prop_assert!(physics.is_finite(), "{:?}", physics);
        let mut out = animated.clone();
        blend_poses(&animated, &physics, w, ScaleSpace::Linear, &mut out);
        prop_assert!(out.is_finite());
    }
}
