//! The rewind ring (`anim::rewind`): bounded memory at a varying frame rate, the rotations'
//! round trip, scrubbing against the clip it recorded, events, the ring's wrap and every bad
//! input rejected with its error.

#![allow(clippy::unwrap_used)]

use anim::rewind::{ROTATION_ERROR_BOUND_RAD, decode_rotation, encode_rotation};
use anim::rng::Rng;
use anim::state_machine::{EventId, FiredEvent, ParamValue, StateId, TransitionId};
use anim::workload::{W64_DURATION_SECS, W64_JOINTS, w64_model};
use anim::{
    ClipCursor, ClipId, FrameFacts, FrameFactsOut, Model, RewindBuffer, RewindError, RewindLayout, RewindTransition,
    SampleSettings, SoaPose,
};
use glam::Quat;

/// W64 at 30 s: 64 joints, one layer weight, one parameter, eight events per frame.
const W64_CEILING_KIB: f64 = 3700.0;

fn angle_between(a: Quat, b: Quat) -> f32 {
    // atan2 of the relative rotation's parts: exact near zero, where f32's acos of a dot
    // product is not (its resolution there is about 5e-4 rad).
    let d = a.inverse() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

#[test]
fn rotations_round_trip_within_the_bound() {
    let mut rng = Rng::new(26);
    let mut quats: Vec<Quat> = (0..200_000).map(|_| rng.quat()).collect();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    quats.extend([
        Quat::IDENTITY,
        -Quat::IDENTITY,
        Quat::from_xyzw(1.0, 0.0, 0.0, 0.0),
        Quat::from_xyzw(0.0, -1.0, 0.0, 0.0),
        Quat::from_xyzw(0.0, 0.0, 1.0, 0.0),
        Quat::from_xyzw(h, 0.0, 0.0, h),
        Quat::from_xyzw(0.5, -0.5, 0.5, -0.5),
        Quat::from_rotation_y(1e-4),
    ]);
    let mut worst = 0.0f32;
    for &q in &quats {
        let back = decode_rotation(encode_rotation(q));
        assert!((back.length() - 1.0).abs() < 1e-6);
        worst = worst.max(angle_between(q, back));
    }
    println!("rotation round trip: worst {worst:.3e} rad over {} rotations", quats.len());
    assert!(worst < ROTATION_ERROR_BOUND_RAD, "worst {worst} rad");
    // Not finite or zero length: the identity, never a panic.
    assert_eq!(decode_rotation(encode_rotation(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0))), Quat::IDENTITY);
    assert_eq!(decode_rotation(encode_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0))), Quat::IDENTITY);
}

/// One recorded frame of the long run.
struct Recorded {
    time_secs: f64,
    /// Event fired at this frame, if any.
    event: Option<EventId>,
}

/// 40 s of W64's LINEAR clip, looped, at a frame rate varying between 30 and 144 Hz; one
/// event (id = the second) fired at the first frame of every whole second.
fn record_forty_seconds(model: &Model, rewind: &mut RewindBuffer) -> Vec<Recorded> {
    let clip = &model.clips()[0];
    let mut cursor = ClipCursor::new(clip);
    let mut pose = model.rest_pose();
    let settings = SampleSettings::default();
    let mut rng = Rng::new(7);
    let mut time_secs = 0.0f64;
    let mut log = Vec::new();
    let mut next_second = 0u32;
    while time_secs < 40.0 {
        let clip_secs = (time_secs % f64::from(W64_DURATION_SECS)) as f32;
        clip.sample(clip_secs, &mut cursor, &settings, &mut pose);
        let event = (time_secs >= f64::from(next_second)).then(|| {
            next_second += 1;
            EventId::new(next_second - 1)
        });
        let fired: Vec<FiredEvent> =
            event.map(|event| FiredEvent { event, state: StateId::new(1) }).into_iter().collect();
        let second = time_secs as u32;
        let facts = FrameFacts {
            clip: Some(ClipId::from_index(0)),
            state: Some(StateId::new(second % 3)),
            clip_secs,
            state_secs: clip_secs,
            transition: (second % 2 == 1).then_some(RewindTransition {
                transition: Some(TransitionId::new(second)),
                from: StateId::new(0),
                to: StateId::new(second % 3),
                weight: (time_secs.fract()) as f32,
                kind: anim::TransitionKind::CrossFade,
                elapsed_secs: time_secs.fract() as f32,
                duration_secs: 1.0,
            }),
            layer_weights: &[clip_secs / W64_DURATION_SECS],
            params: &[ParamValue::Float(time_secs as f32), ParamValue::Bool(second.is_multiple_of(2))],
            events: &fired,
        };
        rewind.record(time_secs, &pose, &facts).unwrap();
        log.push(Recorded { time_secs, event });
        time_secs += f64::from(rng.range(1.0 / 144.0, 1.0 / 30.0));
    }
    log
}

#[test]
fn forty_seconds_at_a_varying_rate_hold_thirty_in_fixed_memory() {
    let model = w64_model();
    let layout = RewindLayout::new(W64_JOINTS, 30.0, 1, 2);
    let mut rewind = RewindBuffer::with_layout(layout).unwrap();
    let before = rewind.memory_bytes();
    let log = record_forty_seconds(&model, &mut rewind);
    let live = log.last().unwrap().time_secs;

    // Held: 30 s and at most one stored frame's spacing more (frames stored ≥ 1/60 s apart, the
    // input never slower than 30 Hz, so the spacing is under 2/60 s).
    let held = rewind.held_secs();
    println!("held {held:.4} s in {} frames of {} slots", rewind.len(), layout.slots());
    assert!((30.0..30.0 + 2.0 / 60.0).contains(&held), "held {held} s");
    assert!(rewind.len() <= layout.slots() && rewind.len() > 1200, "{} frames", rewind.len());
    assert_eq!(rewind.live_secs(), Some(live));

    // Memory: exactly the ceiling, unchanged by recording, below the stated number.
    let kib = rewind.memory_kib();
    println!("W64 at 30 s: {kib:.1} KiB ({} B per frame, {} slots)", layout.frame_bytes(), layout.slots());
    assert_eq!(rewind.memory_bytes(), layout.ceiling_bytes());
    assert_eq!(rewind.memory_bytes(), before);
    assert!(kib < W64_CEILING_KIB, "{kib} KiB");
    let big = RewindLayout::new(200, 30.0, 1, 2);
    println!("200 joints at 30 s: {:.1} KiB", big.ceiling_bytes() as f64 / 1024.0);
    // 30 bytes per joint and frame: 6 for the rotation, 12 each for translation and scale.
    assert_eq!(big.ceiling_bytes() - layout.ceiling_bytes(), layout.slots() * (200 - W64_JOINTS) * 30);

    // Events fired once each, found once each, at their frame (a frame merged into its 1/60 s
    // bucket's later one moves at most one bucket later).
    let found: Vec<(f64, FiredEvent)> = rewind.events().collect();
    let in_window: Vec<&Recorded> =
        log.iter().filter(|r| r.event.is_some() && r.time_secs >= live - held - 1e-9).collect();
    assert_eq!(found.len(), in_window.len(), "{found:?}");
    assert!(found.len() >= 30);
    for (recorded, (before_live, fired)) in in_window.iter().zip(&found) {
        assert_eq!(Some(fired.event), recorded.event);
        assert_eq!(fired.state, StateId::new(1));
        let stored_secs = live - before_live;
        assert!(
            stored_secs >= recorded.time_secs - 1e-9 && stored_secs < recorded.time_secs + 1.0 / 60.0,
            "event {} fired at {} s, stored at {stored_secs} s",
            fired.event,
            recorded.time_secs
        );
        // Scrubbing to that frame shows the event in its facts.
        let mut pose = model.rest_pose();
        let mut facts = FrameFactsOut::for_layout(&layout);
        rewind.frame_at(*before_live, &mut pose, &mut facts).unwrap();
        assert_eq!(facts.events, [*fired]);
        assert_eq!(facts.events_dropped, 0);
    }
    assert_eq!(rewind.events_dropped(), 0);
}

#[test]
fn scrubbing_reproduces_the_clip_within_stated_bounds() {
    let model = w64_model();
    let clip = &model.clips()[0];
    let layout = RewindLayout::new(W64_JOINTS, 30.0, 1, 2);
    let mut rewind = RewindBuffer::with_layout(layout).unwrap();
    let log = record_forty_seconds(&model, &mut rewind);
    let live = log.last().unwrap().time_secs;
    let settings = SampleSettings::default();
    let mut cursor = ClipCursor::new(clip);
    let mut expected = model.rest_pose();
    let mut pose = model.rest_pose();
    let mut facts = FrameFactsOut::for_layout(&layout);

    // 10 s back, at the stored frame nearest: the pose recorded then, within quantization.
    rewind.frame_at(10.0, &mut pose, &mut facts).unwrap();
    assert!((facts.secs_before_live - 10.0).abs() < 1.0 / 30.0);
    rewind.frame_at(facts.secs_before_live, &mut pose, &mut facts).unwrap();
    clip.sample(facts.clip_secs, &mut cursor, &settings, &mut expected);
    let ((worst_rad, worst_m), _) = compare(&expected, &pose);
    println!("10 s back at a stored frame: {worst_rad:.3e} rad, {worst_m:.3e} m");
    assert!(worst_rad < ROTATION_ERROR_BOUND_RAD && worst_m < 1e-6, "{worst_rad} rad, {worst_m} m");
    assert_eq!(facts.clip, Some(ClipId::from_index(0)));
    assert_eq!(facts.layer_weights, [facts.clip_secs / W64_DURATION_SECS]);
    let second = facts.time_secs as u32;
    assert_eq!(facts.state, Some(StateId::new(second % 3)));
    assert_eq!(facts.params, [ParamValue::Float(facts.time_secs as f32), ParamValue::Bool(second.is_multiple_of(2))]);
    assert_eq!(facts.transition.is_some(), second % 2 == 1);

    // Between frames: against the clip sampled at that time (loop seams, where the clip jumps,
    // left out). W64 is a stress case: its LINEAR keys every 1/30 s turn sharply (rotations at
    // up to ~50 rad/s²), and stored frames up to 1/20 s apart cut the corners at the keys; its
    // chains reach 0.8 m. Measured 0.019 rad and 1.7 mm: what lerp and slerp over one gap
    // leave, not the storage (exact at stored frames, above).
    let mut rng = Rng::new(99);
    let (mut worst_rad, mut worst_m) = (0.0f32, 0.0f32);
    let mut checked = 0;
    while checked < 500 {
        let before_live = f64::from(rng.unit()) * rewind.held_secs();
        let target = live - before_live;
        let clip_secs = target % f64::from(W64_DURATION_SECS);
        if !(0.05..f64::from(W64_DURATION_SECS) - 0.05).contains(&clip_secs) {
            continue;
        }
        rewind.frame_at(before_live, &mut pose, &mut facts).unwrap();
        clip.sample(clip_secs as f32, &mut cursor, &settings, &mut expected);
        let ((rad, m), _) = compare(&expected, &pose);
        worst_rad = worst_rad.max(rad);
        worst_m = worst_m.max(m);
        checked += 1;
    }
    println!("interpolated against the clip: {worst_rad:.3e} rad, {worst_m:.3e} m");
    assert!(worst_rad < 0.03 && worst_m < 3e-3, "{worst_rad} rad, {worst_m} m");
}

#[test]
fn between_frames_the_pose_is_slerp_and_lerp_of_the_two_stored_frames() {
    // Against the clip sampled at the two stored frames' times and interpolated here in f32:
    // what is left is the storage's quantization only.
    let model = w64_model();
    let clip = &model.clips()[0];
    let layout = RewindLayout::new(W64_JOINTS, 30.0, 1, 2);
    let mut rewind = RewindBuffer::with_layout(layout).unwrap();
    let log = record_forty_seconds(&model, &mut rewind);
    let live = log.last().unwrap().time_secs;
    let ticks: Vec<f64> = rewind.frame_secs_before_live().collect();
    assert_eq!(ticks.len(), rewind.len());
    assert!(ticks.windows(2).all(|w| w[0] > w[1]) && ticks[ticks.len() - 1] == 0.0);
    // One frame per 1/60 s bucket: any two frames two apart are more than 1/60 s apart.
    assert!(ticks.windows(3).all(|w| w[0] - w[2] > 1.0 / 60.0), "stored at most one per 1/60 s bucket");
    let settings = SampleSettings::default();
    let mut cursor = ClipCursor::new(clip);
    let (mut a, mut b, mut pose) = (model.rest_pose(), model.rest_pose(), model.rest_pose());
    let mut facts = FrameFactsOut::for_layout(&layout);
    let mut rng = Rng::new(5);
    let mut worst = (0.0f32, 0.0f32);
    for _ in 0..300 {
        let k = 1 + rng.below(ticks.len() - 1);
        let (older, newer) = (ticks[k - 1], ticks[k]);
        let u = rng.unit();
        let before_live = older + (newer - older) * f64::from(u);
        rewind.frame_at(before_live, &mut pose, &mut facts).unwrap();
        let clip_at = |before: f64| ((live - before) % f64::from(W64_DURATION_SECS)) as f32;
        clip.sample(clip_at(older), &mut cursor, &settings, &mut a);
        clip.sample(clip_at(newer), &mut cursor, &settings, &mut b);
        let u = ((older - before_live) / (older - newer)) as f32;
        let mut expected = a.clone();
        for ((node, x), (_, y)) in a.nodes().zip(b.nodes()) {
            expected.set(
                node,
                anim::Transform {
                    translation: x.translation.lerp(y.translation, u),
                    rotation: anim::interp::slerp(x.rotation, y.rotation, u),
                    scale: x.scale.lerp(y.scale, u),
                },
            );
        }
        let ((rad, m), _) = compare(&expected, &pose);
        worst = (worst.0.max(rad), worst.1.max(m));
        // The facts are the nearer frame's.
        let nearer = if u < 0.5 { older } else { newer };
        assert!((facts.secs_before_live - nearer).abs() < 1e-9, "{u}: {} vs {nearer}", facts.secs_before_live);
    }
    println!("interpolated against the stored frames' clip poses: {:.3e} rad, {:.3e} m", worst.0, worst.1);
    assert!(worst.0 < ROTATION_ERROR_BOUND_RAD && worst.1 < 1e-5, "{worst:?}");
}

#[test]
fn the_built_in_walk_scrubs_back_within_stated_bounds() {
    // The built-in character (22 nodes, one morph weight) walking for 40 s at 30–144 Hz.
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/mannequin.glb"));
    let model = anim::import::load_path(path).unwrap();
    let walk = model.clips().iter().position(|c| c.name() == Some("Walk")).unwrap();
    let clip = &model.clips()[walk];
    let length = f64::from(clip.end_secs());
    let rest = model.rest_pose();
    let layout = RewindLayout { morph_weight_count: rest.weights().len(), ..RewindLayout::new(rest.len(), 30.0, 0, 0) };
    let mut rewind = RewindBuffer::with_layout(layout).unwrap();
    let settings = SampleSettings::default();
    let mut cursor = ClipCursor::new(clip);
    let mut pose = rest.clone();
    let mut rng = Rng::new(11);
    let mut time_secs = 0.0f64;
    let mut live = 0.0;
    while time_secs < 40.0 {
        clip.sample((time_secs % length) as f32, &mut cursor, &settings, &mut pose);
        pose.weights_mut()[0] = (time_secs.sin() * 0.5 + 0.5) as f32;
        rewind.record(time_secs, &pose, &FrameFacts::EMPTY).unwrap();
        live = time_secs;
        time_secs += f64::from(rng.range(1.0 / 144.0, 1.0 / 30.0));
    }
    assert!((30.0..30.0 + 2.0 / 60.0).contains(&rewind.held_secs()), "{}", rewind.held_secs());
    println!("mannequin at 30 s: {:.1} KiB", rewind.memory_kib());

    // The rig's size: the rest pose's height in model space.
    let mut locals = anim::LocalMatrices::new(model.nodes().len());
    let mut world = vec![glam::Affine3A::IDENTITY; model.nodes().len()];
    model.hierarchy.local_to_model(&rest, &mut locals, &mut world);
    let ys = world.iter().map(|m| m.translation.y);
    let height_m = ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min);
    assert!(height_m > 1.0, "{height_m} m");

    let mut expected = rest.clone();
    let mut scrubbed = rest.clone();
    let mut facts = FrameFactsOut::for_layout(&layout);
    let (mut worst_rad, mut worst_m, mut worst_weight) = (0.0f32, 0.0f32, 0.0f32);
    for _ in 0..500 {
        let before_live = f64::from(rng.unit()) * rewind.held_secs();
        let target = live - before_live;
        if !(0.03..length - 0.03).contains(&(target % length)) {
            continue; // the loop seam: the frames around it are a second apart in the clip
        }
        rewind.frame_at(before_live, &mut scrubbed, &mut facts).unwrap();
        clip.sample((target % length) as f32, &mut cursor, &settings, &mut expected);
        let ((rad, m), _) = compare(&expected, &scrubbed);
        worst_rad = worst_rad.max(rad);
        worst_m = worst_m.max(m);
        worst_weight = worst_weight.max((scrubbed.weights()[0] - (target.sin() * 0.5 + 0.5) as f32).abs());
    }
    println!(
        "mannequin Walk scrubbed against the clip: {worst_rad:.3e} rad, {worst_m:.3e} m ({:.2e} of its {height_m:.2} m), weight {worst_weight:.1e}",
        worst_m / height_m
    );
    // Measured 0.025 rad (the legs turn at up to ~80 rad/s², and stored frames are up to
    // 1/60 s + one input frame, 1/20 s, apart), 0.9 mm (6e-4 of the height), weight 1.2e-4:
    // the lerp and slerp over one gap; the storage itself adds at most 1.5e-4 rad and nothing
    // to translations, scales and weights.
    assert!(worst_rad < 0.04 && worst_m / height_m < 2e-3 && worst_weight < 1e-3, "{worst_rad} rad, {worst_m} m");
}

/// Largest rotation angle and translation/scale difference between two poses, and the node.
fn compare(a: &SoaPose, b: &SoaPose) -> ((f32, f32), usize) {
    let (mut rad, mut m, mut at) = (0.0f32, 0.0f32, 0);
    for ((node, x), (_, y)) in a.nodes().zip(b.nodes()) {
        let r = angle_between(x.rotation, y.rotation);
        let d = (x.translation - y.translation).abs().max_element().max((x.scale - y.scale).abs().max_element());
        if r > rad || d > m {
            at = node.index();
        }
        rad = rad.max(r);
        m = m.max(d);
    }
    ((rad, m), at)
}

#[test]
fn the_ring_wraps_and_keeps_the_newest_window() {
    // 1 s at 10 frames per second: 13 slots; 5 s of frames every 0.1 s wraps it four times.
    let layout = RewindLayout { max_frames_per_sec: 10.0, ..RewindLayout::new(3, 1.0, 0, 1) };
    assert_eq!(layout.slots(), 13);
    let mut rewind = RewindBuffer::with_layout(layout).unwrap();
    let mut pose = SoaPose::from_transforms(&[anim::Transform::IDENTITY; 3], Vec::new());
    for k in 0..=50 {
        let time_secs = f64::from(k) * 0.1 + 0.05;
        pose.set_translation(anim::NodeId::from_index(2), glam::Vec3::new(k as f32, 0.0, 0.0));
        let facts = FrameFacts { params: &[ParamValue::Float(k as f32)], ..FrameFacts::EMPTY };
        rewind.record(time_secs, &pose, &facts).unwrap();
    }
    // Frames 40..=50 (1.0 s): the one at the window's start kept.
    assert_eq!(rewind.len(), 11);
    assert!((rewind.held_secs() - 1.0).abs() < 1e-9);
    let mut out = pose.clone();
    let mut facts = FrameFactsOut::for_layout(&layout);
    for (i, k) in (40..=50).enumerate() {
        let before_live = f64::from(50 - k) * 0.1;
        rewind.frame_at(before_live.min(rewind.held_secs()), &mut out, &mut facts).unwrap();
        assert_eq!(facts.params, [ParamValue::Float(k as f32)], "frame {i}");
        assert!((out.translation(anim::NodeId::from_index(2)).x - k as f32).abs() < 1e-4);
    }
    // Halfway between frames 45 and 46: the translation halfway, the facts of the nearer.
    rewind.frame_at(0.46, &mut out, &mut facts).unwrap();
    assert!((out.translation(anim::NodeId::from_index(2)).x - 45.4).abs() < 1e-3);
    assert_eq!(facts.params, [ParamValue::Float(45.0)]);

    // A faster frame in the newest frame's bucket replaces it.
    rewind.record(5.09, &pose, &FrameFacts { params: &[ParamValue::Float(99.0)], ..FrameFacts::EMPTY }).unwrap();
    assert_eq!(rewind.len(), 11);
    rewind.frame_at(0.0, &mut out, &mut facts).unwrap();
    assert_eq!((facts.time_secs, facts.params.as_slice()), (5.09, [ParamValue::Float(99.0)].as_slice()));

    rewind.clear();
    assert!(rewind.is_empty());
    assert_eq!(rewind.held_secs(), 0.0);
    assert_eq!(rewind.frame_at(0.0, &mut out, &mut facts), Err(RewindError::Empty));
    // Recording starts over, earlier times allowed after a clear.
    rewind.record(0.0, &pose, &FrameFacts { params: &[ParamValue::Float(1.0)], ..FrameFacts::EMPTY }).unwrap();
    assert_eq!(rewind.len(), 1);
}

#[test]
fn events_past_the_room_of_a_frame_are_counted_as_dropped() {
    let layout = RewindLayout::new(1, 1.0, 0, 0);
    let mut rewind = RewindBuffer::with_layout(layout).unwrap();
    let pose = SoaPose::from_transforms(&[anim::Transform::IDENTITY], Vec::new());
    let fired: Vec<FiredEvent> =
        (0..12).map(|i| FiredEvent { event: EventId::new(i), state: StateId::new(0) }).collect();
    rewind.record(0.0, &pose, &FrameFacts { events: &fired, ..FrameFacts::EMPTY }).unwrap();
    // A second frame of the same 1/60 s bucket: merged, its events added after the first's;
    // the third starts the next bucket.
    rewind.record(0.01, &pose, &FrameFacts { events: &fired[..3], ..FrameFacts::EMPTY }).unwrap();
    rewind.record(0.02, &pose, &FrameFacts { events: &fired[..5], ..FrameFacts::EMPTY }).unwrap();
    assert_eq!(rewind.len(), 2);
    assert_eq!(rewind.events_dropped(), 4 + 3);
    let mut out = pose.clone();
    let mut facts = FrameFactsOut::for_layout(&layout);
    rewind.frame_at(0.01, &mut out, &mut facts).unwrap();
    assert_eq!(facts.time_secs, 0.01);
    assert_eq!(facts.events, fired[..8]);
    assert_eq!(facts.events_dropped, 7);
    rewind.frame_at(0.0, &mut out, &mut facts).unwrap();
    assert_eq!(facts.events, fired[..5]);
    assert_eq!(facts.events_dropped, 0);
}

#[test]
fn bad_layouts_frames_and_times_are_errors() {
    for capacity_secs in [0.0, -1.0, f32::NAN, f32::INFINITY, 601.0] {
        assert!(matches!(RewindBuffer::new(4, capacity_secs, 0, 0), Err(RewindError::BadCapacity { .. })));
    }
    let layout = RewindLayout { max_frames_per_sec: 0.0, ..RewindLayout::new(4, 1.0, 0, 0) };
    assert!(matches!(RewindBuffer::with_layout(layout), Err(RewindError::BadFrameRate { .. })));
    let layout = RewindLayout { max_events_per_frame: 5000, ..RewindLayout::new(4, 1.0, 0, 0) };
    assert_eq!(RewindBuffer::with_layout(layout).err(), Some(RewindError::TooManyEvents { events: 5000 }));
    // Sizes that would overflow or ask for more than a GiB: an error, not an abort.
    for node_count in [usize::MAX / 2, 1_000_000] {
        assert_eq!(
            RewindBuffer::new(node_count, 30.0, 0, 0).err(),
            Some(RewindError::TooLarge { node_count, capacity_secs: 30.0 })
        );
    }
    assert!(RewindLayout::new(10_000, 30.0, 0, 0).ceiling_bytes() < anim::rewind::MAX_BYTES);

    let mut rewind = RewindBuffer::new(4, 1.0, 2, 1).unwrap();
    let pose = SoaPose::from_transforms(&[anim::Transform::IDENTITY; 4], Vec::new());
    let other = SoaPose::from_transforms(&[anim::Transform::IDENTITY; 5], Vec::new());
    let params = [ParamValue::Trigger(true)];
    let facts = FrameFacts { layer_weights: &[0.5, 1.0], params: &params, ..FrameFacts::EMPTY };
    let mut out_facts = FrameFactsOut::default();
    let mut out = pose.clone();

    assert_eq!(rewind.frame_at(0.0, &mut out, &mut out_facts), Err(RewindError::Empty));
    assert_eq!(
        rewind.record(0.0, &other, &facts),
        Err(RewindError::PoseShape { nodes: 5, weights: 0, expected_nodes: 4, expected_weights: 0 })
    );
    assert_eq!(
        rewind.record(0.0, &pose, &FrameFacts { layer_weights: &[0.5], ..facts }),
        Err(RewindError::FactsShape { what: "layer weights", len: 1, expected: 2 })
    );
    assert_eq!(
        rewind.record(0.0, &pose, &FrameFacts { params: &[], ..facts }),
        Err(RewindError::FactsShape { what: "parameters", len: 0, expected: 1 })
    );
    assert!(matches!(rewind.record(f64::NAN, &pose, &facts), Err(RewindError::TimeNotFinite { .. })));
    assert!(rewind.is_empty(), "nothing recorded by a rejected frame");
    rewind.record(2.0, &pose, &facts).unwrap();
    rewind.record(2.5, &pose, &facts).unwrap();
    assert_eq!(
        rewind.record(2.25, &pose, &facts),
        Err(RewindError::TimeWentBack { time_secs: 2.25, newest_secs: 2.5 })
    );
    assert!(matches!(rewind.frame_at(f64::NAN, &mut out, &mut out_facts), Err(RewindError::ScrubNotFinite { .. })));
    assert_eq!(
        rewind.frame_at(-0.1, &mut out, &mut out_facts),
        Err(RewindError::OutsideWindow { secs_before_live: -0.1, held_secs: 0.5 })
    );
    assert_eq!(
        rewind.frame_at(0.6, &mut out, &mut out_facts),
        Err(RewindError::OutsideWindow { secs_before_live: 0.6, held_secs: 0.5 })
    );
    let mut wrong = other.clone();
    assert!(matches!(rewind.frame_at(0.1, &mut wrong, &mut out_facts), Err(RewindError::PoseShape { .. })));
    assert_eq!(wrong, other, "left as it was");
    rewind.frame_at(0.5, &mut out, &mut out_facts).unwrap();
    assert_eq!(out_facts.layer_weights, [0.5, 1.0]);
    assert_eq!(out_facts.params, params);
    assert!(RewindError::OutsideWindow { secs_before_live: 31.0, held_secs: 30.0 }.to_string().contains("0 to 30 s"));
}
