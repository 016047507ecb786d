//! Issue #18 in the viewer: hot reload with the real file watcher (a changed export swapped in
//! with the state kept; a truncated write keeps the model on screen with the error shown; the
//! next complete write loads), the A/B view's changed joints, Bake to file, and the
//! open-into-state start-up flags.

use crate::stage::tuning::RagdollTuning;
use std::path::Path;
use std::time::{Duration, Instant};

use anim::InterpolationOverride;
use devtools::gltf::Doc;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use super::{node, whole};
use crate::stage::compare::{CompareLayout, CompareModes};
use crate::ui::{ModelSource, Viewer};

/// The built-in character with clip `clip`'s rotation channels of `joints` replaced by a
/// still 30° turn about X (a "new export" of that clip).
pub(super) fn character_with_changed_joints(clip: &str, joints: &[&str]) -> Vec<u8> {
    let mut doc = Doc::from_glb(crate::mannequin::DEFAULT_MODEL_GLB).expect("the built-in GLB");
    let q = glam::Quat::from_rotation_x(30f32.to_radians()).to_array();
    for joint in joints {
        doc.replace_channel_keys(clip, joint, "rotation", (&[0.0, 0.5], &[q, q].concat(), "LINEAR"));
    }
    doc.to_glb()
}

/// Run frames (sleeping between them: the watcher, the loader and the recorder run on their own
/// threads) until `done`. The 120 s limit only turns a hang into a failure: under CI's parallel
/// tests on a 2-core machine a first GPU device and its shaders on lavapipe alone took over 10 s.
pub(super) fn run_until(harness: &mut Harness<'static, Viewer>, what: &str, done: impl Fn(&Viewer) -> bool) {
    let start = Instant::now();
    while !done(harness.state()) {
        assert!(start.elapsed() < Duration::from_secs(120), "no {what} after 120 s");
        std::thread::sleep(Duration::from_millis(30));
        harness.step();
    }
    harness.run();
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

#[test]
fn hot_reload_swaps_a_new_export_in_keeping_the_state_and_keeps_the_model_on_a_broken_write() {
    let dir = std::env::temp_dir().join(format!("animtune-hot-reload-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("character.glb");
    write(&path, crate::mannequin::DEFAULT_MODEL_GLB);
    let model = decode::load_path(&path, &anim::import::Limits::default()).expect("loads");
    let mut viewer = Viewer::new(model, ModelSource::file(&path));
    viewer.hot_reload.set_debounce(Duration::from_millis(100));
    // The state a user has built up.
    let wave = super::clip(&viewer, "Wave");
    viewer.stage.transport.select_clip(wave);
    viewer.stage.transport.seek(1.2);
    viewer.stage.transport.pause();
    let hand = node(&viewer, "Hand.L");
    viewer.stage.select_joint(Some(hand));
    viewer.stage.compare.show(CompareModes { layout: CompareLayout::Ghost, heatmap: true, ..CompareModes::default() });
    let mut interpolation = viewer.stage.tuning.interpolation();
    interpolation.mode = InterpolationOverride::Linear;
    viewer.stage.tuning.set_interpolation(interpolation);
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 0.75, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.viewport.camera.yaw_rad = 1.1;
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    let camera = harness.state().viewport.camera;
    let before = harness.state().stage.model().clone();
    let generation = harness.state().stage.generation();
    assert!(harness.state().hot_reload.status().contains("watching character.glb"));

    // A new export with Wave changed at two joints.
    let changed = character_with_changed_joints("Wave", &["LowerArm.L", "Foot.L"]);
    write(&path, &changed);
    run_until(&mut harness, "the reload", |v| v.hot_reload.reloads == 1);
    let v = harness.state();
    assert_eq!(v.stage.generation(), generation + 1, "swapped in");
    assert_ne!(v.stage.model()[wave], before[wave], "the new Wave is on screen");
    assert_eq!(v.stage.model().clips()[0], before.clips()[0], "the other clips as they were");
    assert_eq!(v.stage.transport.clip(), Some(wave), "clip kept");
    assert!((v.stage.transport.time_secs() - 1.2).abs() < 1e-6, "time kept: {}", v.stage.transport.time_secs());
    assert_eq!(v.stage.selection.joint, Some(hand), "joint kept");
    assert_eq!(v.viewport.camera, camera, "camera kept");
    let modes = v.stage.compare.active().expect("compare kept");
    assert_eq!((modes.layout, modes.heatmap), (CompareLayout::Ghost, true));
    assert_eq!(v.stage.tuning.interpolation().mode, InterpolationOverride::Linear, "tuning kept");
    assert!((v.stage.tuning.ragdoll.ramp_rate_per_sec - 0.75).abs() < 1e-6, "ragdoll settings kept");
    assert!(v.error.is_none());
    assert!(v.hot_reload.status().contains("1 reloads") || v.hot_reload.status().contains("reloaded"));
    let swapped = v.stage.model().clone();

    // An export caught half written.
    write(&path, &changed[..changed.len() / 2]);
    run_until(&mut harness, "the failed reload", |v| v.hot_reload.failed_reloads == 1);
    let v = harness.state();
    assert_eq!(v.stage.generation(), generation + 1, "the model on screen stays");
    assert_eq!(*v.stage.model(), swapped);
    let error = v.error.clone().expect("the error is shown");
    assert!(error.contains("character.glb") && error.contains("kept"), "{error}");
    assert!(v.hot_reload.status().contains("1 failed"), "{}", v.hot_reload.status());
    assert_eq!(v.stage.transport.clip(), Some(wave));

    // The export finished: it loads.
    write(&path, crate::mannequin::DEFAULT_MODEL_GLB);
    run_until(&mut harness, "the second reload", |v| v.hot_reload.reloads == 2);
    let v = harness.state();
    assert_eq!(v.stage.model()[wave], before[wave]);
    assert!(v.error.is_none(), "a good reload clears the error");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bake_to_file_writes_the_clip_as_the_viewer_shows_it() {
    let mut viewer = super::viewer();
    viewer.file.dialogs = crate::ui::file_menu::Dialogs::Unavailable;
    let walk = super::clip(&viewer, "Walk");
    viewer.stage.transport.select_clip(walk);
    let mut interpolation = viewer.stage.tuning.interpolation();
    interpolation.mode = InterpolationOverride::Linear;
    viewer.stage.tuning.set_interpolation(interpolation);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("Bake to file…").click();
    harness.run();
    let v = harness.state();
    assert_eq!(v.file.purpose, crate::ui::file_menu::PathPurpose::BakeClip);
    assert!(v.file.path.ends_with("character-Walk-linear.glb"), "{}", v.file.path);
    let dir = std::env::temp_dir().join(format!("animtune-bake-ui-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("walk-linear.glb");
    harness.state_mut().file.path = out.display().to_string();
    harness.run();
    harness.get_by_label("Bake").click();
    harness.run();
    let message = harness.state().file.message.clone().unwrap_or_default();
    assert!(
        message.contains("Baked \"Walk\"") && message.contains("exactly"),
        "{message:?} {:?}",
        harness.state().error
    );
    // Played as authored, the baked Walk is what the viewer showed with LINEAR.
    let baked = anim::import::load_path(&out).expect("the baked file loads");
    let shown = harness.state().stage.model();
    let settings = anim::SampleSettings::with_mode(InterpolationOverride::Linear);
    let times: Vec<f32> = (0..=100).map(|i| i as f32 * 0.011).collect();
    let d = anim::bake::compare_clips(
        (&shown[walk], &settings),
        (&baked[walk], &anim::SampleSettings::AUTHORED),
        &shown.rest_pose(),
        &times,
    );
    assert!(d.max() < 1e-4, "{d:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_clip_writes_the_frames_with_a_progress_bar() {
    if crate::render::GpuContext::new_headless().is_err() {
        devtools::ci::skip("no GPU adapter for the recording (install mesa-vulkan-drivers for lavapipe)");
        return;
    }
    let mut viewer = super::viewer();
    viewer.file.dialogs = crate::ui::file_menu::Dialogs::Unavailable;
    viewer.stage.transport.select_clip(super::clip(&viewer, "Walk"));
    viewer.recorder.kind = crate::record::OutputKind::PngSequence;
    (viewer.recorder.width, viewer.recorder.height, viewer.recorder.fps) = (96, 64, 10);
    viewer.stage.compare.show(CompareModes { layout: CompareLayout::Ghost, heatmap: true, ..CompareModes::default() });
    viewer.focus_panel = Some(crate::ui::Panel::Record);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("Record \"Walk\"…").click();
    harness.run();
    assert!(
        harness.state().file.path.ends_with("character-Walk-frames/"),
        "{:?} {:?} {:?}",
        harness.state().file.path,
        harness.state().file.purpose,
        harness.state().file.message
    );
    let dir = std::env::temp_dir().join(format!("animtune-record-ui-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    harness.state_mut().file.path = format!("{}/", dir.display());
    harness.run();
    harness.get_by_label("Record").click();
    harness.step();
    assert!(harness.state().recorder.job.is_some(), "recording: {:?}", harness.state().error);
    run_until(&mut harness, "the recording", |v| v.recorder.job.is_none());
    let message = harness.state().file.message.clone().unwrap_or_default();
    assert!(message.contains("Recorded 11 frames"), "{message:?} {:?}", harness.state().error);
    let frames = std::fs::read_dir(&dir).expect("the folder").count();
    assert_eq!(frames, 11, "Walk is 1.1 s: 11 frames at 10 fps");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_b_finds_exactly_the_joints_a_new_export_changed() {
    let dir = std::env::temp_dir().join(format!("animtune-ab-ui-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let b_path = dir.join("character-new.glb");
    write(&b_path, &character_with_changed_joints("Run", &["LowerArm.L", "Foot.L"]));
    let mut viewer = super::viewer();
    viewer.file.dialogs = crate::ui::file_menu::Dialogs::Unavailable;
    let run = super::clip(&viewer, "Run");
    viewer.stage.transport.select_clip(run);
    viewer.stage.transport.seek(0.3);
    viewer.stage.transport.pause();
    viewer.focus_panel = Some(crate::ui::Panel::Compare);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("Open B…").click();
    harness.run();
    harness.state_mut().file.path = b_path.display().to_string();
    harness.run();
    harness.get_by_label("Open B").click();
    run_until(&mut harness, "B to load", |v| v.ab.active());
    // The panel names exactly the two changed joints.
    harness.get_by_label_contains("\"Run\": 2 joint(s) differ over the clip");
    harness.get_by_label_contains("LowerArm.L: ");
    harness.get_by_label_contains("Foot.L: ");
    harness.get_by_label_contains("21 joints matched by name");
    // Heat on A: the joints below the changed ones moved (Hand.L, Toes.L); the others did not.
    let v = harness.state();
    let heat = v.ab.heat();
    assert!(heat[node(v, "Hand.L").index()] > 0.5 && heat[node(v, "Toes.L").index()] > 0.5, "{heat:?}");
    assert!(heat[node(v, "Head").index()] < 1e-3 && heat[node(v, "Hand.R").index()] < 1e-3, "{heat:?}");
    assert!(v.split_view());
    assert_eq!(
        v.view_labels(),
        crate::ui::viewport::ViewLabels::Split(["A: built-in character".to_owned(), "B: character-new.glb".to_owned()])
    );
    // Another clip: nothing differs.
    let walk = super::clip(harness.state(), "Walk");
    harness.state_mut().stage.transport.select_clip(walk);
    harness.run();
    harness.get_by_label_contains("\"Walk\": no joint differs between A and B");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_click_in_b_half_picks_the_joint_b_shows_there() {
    let dir = std::env::temp_dir().join(format!("animtune-ab-pick-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    // B: Run with the left upper arm turned 90° (the arm below it elsewhere than in A).
    let mut doc = Doc::from_glb(crate::mannequin::DEFAULT_MODEL_GLB).expect("the built-in GLB");
    let q = glam::Quat::from_rotation_x(90f32.to_radians()).to_array();
    doc.replace_channel_keys("Run", "UpperArm.L", "rotation", (&[0.0, 0.5], &[q, q].concat(), "LINEAR"));
    let b_path = dir.join("character-new.glb");
    write(&b_path, &doc.to_glb());
    let mut viewer = super::viewer();
    viewer.stage.transport.select_clip(super::clip(&viewer, "Run"));
    viewer.stage.transport.seek(0.3);
    viewer.stage.transport.pause();
    let b = decode::load_path(&b_path, &anim::import::Limits::default()).expect("B loads");
    let a_model = viewer.stage.model().clone();
    viewer.ab.set_second(&a_model, &b_path, b);
    viewer.compute_frame();
    viewer.frame_camera();
    assert!(viewer.ab.is_split());

    // Where Hand.L is drawn in each half of a 1280 × 900 view.
    let half = glam::Vec2::new(640.0, 900.0);
    let camera = viewer.viewport.camera;
    let hand = node(&viewer, "Hand.L");
    let (b_model, b_matrices) = viewer.ab.b_model_from_node().expect("B is posed");
    let b_hand = b_model.nodes().iter().position(|n| n.name.as_deref() == Some("Hand.L")).expect("B's Hand.L");
    let at = |m: &glam::Affine3A| {
        crate::stage::frame::screen_position(&camera, half, glam::Vec3::from(m.translation)).expect("in view").0
    };
    let in_b = at(&b_matrices[b_hand]);
    let in_a = at(&viewer.stage.frame().model_from_node()[hand.index()]);
    assert!(in_b.distance(in_a) > 40.0, "B's hand is elsewhere: A {in_a}, B {in_b}");

    let click =
        |position_px, right_view| crate::stage::frame::ViewClick { position_px, view_size_px: half, right_view };
    // Clicking B's hand in B's half selects A's Hand.L; clicking where A's hand is, in B's half,
    // does not (B's arm is not there).
    assert_eq!(viewer.pick_joint_at(click(in_b, true)), Some(hand));
    assert_ne!(viewer.pick_joint_at(click(in_a, true)), Some(hand));
    // A's half picks by A's pose.
    assert_eq!(viewer.pick_joint_at(click(in_a, false)), Some(hand));
    let _ = std::fs::remove_dir_all(&dir);
}
