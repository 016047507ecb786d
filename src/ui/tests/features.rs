//! Undo/redo, tooltips, the transition table's Delete, the clip-wide deviation, Reset to
//! authored and the Stats overlay.

use crate::stage::tuning::RagdollTuning;
use anim::{Easing, InterpolationOverride, RotationSpace};
use egui_kittest::kittest::Queryable as _;

use super::{clip, viewer, whole};
use crate::stage::compare::CompareModes;
use crate::stage::sampling::clip_deviation;
use crate::stage::tuning::{FadeTuning, Interpolation};

#[test]
fn every_tuning_change_is_undone_and_redone_with_the_keyboard() {
    let mut harness = whole(viewer(), [1280.0, 2600.0]);
    harness.run();
    let authored = harness.state().stage.tuning.clone();
    // An override from its combo box.
    harness.get_by_label("rotation space").click();
    harness.run();
    harness.get_by_label(RotationSpace::Squad.name()).click();
    harness.run();
    // A ramp setting (one step however it was made).
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 0.5, ..harness.state_mut().stage.tuning.ragdoll };
    harness.state_mut().stage.set_ragdoll_tuning(ragdoll);
    harness.run();
    // A transition table edit.
    harness.state_mut().stage.tuning.set_transition(
        anim::ClipId::new(0),
        anim::ClipId::new(1),
        FadeTuning::cross_fade(1.0, Easing::Linear),
    );
    harness.run();
    let last = harness.state().stage.tuning.clone();
    assert_eq!(harness.state().stage.history.undo_steps(), 3);
    let undo = |h: &mut egui_kittest::Harness<'_, crate::ui::Viewer>| {
        h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
        h.run();
    };
    undo(&mut harness);
    assert_eq!(harness.state().stage.tuning.transition(anim::ClipId::new(0), anim::ClipId::new(1)), None);
    undo(&mut harness);
    assert_ne!(harness.state().stage.tuning.ragdoll.ramp_rate_per_sec, 0.5);
    undo(&mut harness);
    assert_eq!(harness.state().stage.tuning, authored);
    for _ in 0..3 {
        harness.key_press_modifiers(egui::Modifiers::COMMAND | egui::Modifiers::SHIFT, egui::Key::Z);
        harness.run();
    }
    assert_eq!(harness.state().stage.tuning, last, "redone");
    // The undo buttons of the Profile section do the same.
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(harness.state().stage.tuning.transition(anim::ClipId::new(0), anim::ClipId::new(1)), None);
}

#[test]
fn controls_that_are_not_obvious_explain_themselves() {
    let mut harness = whole(viewer(), [1280.0, 2600.0]);
    harness.run();
    for (control, explanation) in [
        ("rotation space", "matrix-lerp shrinks limbs"),
        ("override", "instead of the file's"),
        ("deviation heatmap", "distance between the two modes"),
        ("Go limp", "ragdoll now"),
    ] {
        harness.get_by_label(control).hover();
        harness.run();
        harness.get_by_label_contains(explanation);
        harness.hover_at(egui::pos2(5.0, 890.0));
        harness.run();
    }
}

#[test]
fn a_row_of_the_transition_table_can_be_deleted() {
    let mut viewer = viewer();
    let (idle, walk, run) = (clip(&viewer, "Idle"), clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.tuning.set_transition(idle, walk, FadeTuning::cross_fade(1.0, Easing::Linear));
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.5, Easing::Smoothstep));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("Idle -> Walk");
    let deletes = harness.get_all_by_label("Delete").collect::<Vec<_>>();
    assert_eq!(deletes.len(), 2);
    deletes[0].click();
    harness.run();
    let rows: Vec<_> = harness.state().stage.tuning.transitions().map(|(pair, _)| pair).collect();
    assert_eq!(rows, vec![(walk, run)]);
    assert!(harness.query_by_label("Idle -> Walk").is_none());
    // Setting up a row plays its first clip and aims at the second.
    harness.get_by_label("Walk -> Run").click();
    harness.run();
    assert_eq!(harness.state().stage.transport.clip(), Some(walk));
    assert_eq!(harness.state().stage.fade_target, run);
}

#[test]
fn compare_reports_the_largest_deviation_over_the_whole_clip() {
    let mut viewer = viewer();
    let walk = clip(&viewer, "Walk_Linear");
    viewer.stage.transport.select_clip(walk);
    viewer.stage.compare.show(CompareModes {
        left: InterpolationOverride::Step,
        right: InterpolationOverride::Cubic,
        ..Default::default()
    });
    let stage = viewer.stage.parts();
    let whole_clip = stage.compare.clip_deviation(stage.model, 0, walk, stage.tuning).expect("deviation");
    assert!(whole_clip.deviation.max_distance > 0.01, "{whole_clip:?}");
    // No frame of the clip deviates more (to sampling accuracy).
    let mut largest = 0.0f32;
    for i in 0..=110 {
        viewer.stage.transport.seek(i as f32 / 100.0);
        viewer.compute_frame();
        largest = largest.max(viewer.stage.frame().deviation().expect("compare").max_distance);
    }
    assert!(whole_clip.deviation.max_distance >= largest * 0.999, "{} vs {largest}", whole_clip.deviation.max_distance);
    // Identical modes: nothing.
    let same = anim::SampleSettings::with_mode(InterpolationOverride::Cubic);
    let zero = clip_deviation(viewer.stage.model(), walk, &same, &same, 30).expect("deviation");
    assert_eq!(zero.deviation.max_distance, 0.0);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label_contains("whole clip:");
}

#[test]
fn reset_to_authored_clears_overrides_spaces_and_channels() {
    let mut viewer = viewer();
    viewer.stage.tuning.set_interpolation(Interpolation {
        mode: InterpolationOverride::Linear,
        rotation_space: RotationSpace::EulerLerp,
        scale_space: anim::ScaleSpace::Log,
        easing: Easing::Smoothstep,
    });
    viewer.stage.tuning.set_channel_mode(
        anim::ClipId::new(0),
        anim::TrackId::new(3),
        Some(InterpolationOverride::Step),
    );
    viewer.stage.tuning.set_transition(anim::ClipId::new(0), anim::ClipId::new(1), FadeTuning::default());
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("Reset to authored").click();
    harness.run();
    let tuning = &harness.state().stage.tuning;
    assert!(tuning.samples_as_authored());
    assert_eq!(tuning.transitions().count(), 1, "the transition table stays");
    harness.get_by_label_contains("sampling as authored");
}

#[test]
fn the_stats_overlay_shows_frame_times_and_memory() {
    let mut viewer = viewer();
    let start = std::time::Instant::now();
    viewer.overlays.stats = crate::stage::stats::FrameStats::starting_at(start, std::time::Duration::from_millis(100));
    for i in 0..20u64 {
        let at = start + std::time::Duration::from_millis(50 * i);
        let stats = &mut viewer.overlays.stats;
        stats.add_phase(crate::stage::stats::Phase::StageStep, std::time::Duration::from_micros(150));
        stats.add_phase(crate::stage::stats::Phase::PresentWait, std::time::Duration::from_millis(30));
        stats.record_frame(std::time::Duration::from_millis(4), at, || Some(100_000 + i));
    }
    let lines = viewer.overlays.stats_lines("built-in character", "none");
    assert!(lines[0].contains("4.0 ms/frame"), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("stage step") && l.contains("0.15 ms median")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("present wait") && l.contains("30.00 ms median")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("frame less present wait 0.15 ms")), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("RSS 97.7 MiB")), "{lines:?}");
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    assert!(!harness.state().overlays.stats_visible);
    harness.key_press(egui::Key::F3);
    harness.run();
    assert!(harness.state().overlays.stats_visible, "F3 shows the Stats overlay");
}

#[test]
fn dragging_the_rewind_bar_shows_an_earlier_frame_and_live_resumes() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Walk"));
    for _ in 0..180 {
        viewer.step(1.0 / 60.0);
    }
    let live = viewer.stage.frame().shown().clone();
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    let held = harness.state().stage.rewind().held_secs();
    assert!(held > 3.0 - 1e-3 && held < 4.0, "held {held}");
    // Drag the handle (at live, the right end) to the bar's left end: the oldest frame.
    let bar = harness.get_by_label("rewind bar").rect();
    harness.drag_at(egui::pos2(bar.right() - bar.height() / 2.0, bar.center().y));
    harness.run();
    harness.hover_at(egui::pos2(bar.left(), bar.center().y));
    harness.run();
    harness.drop_at(egui::pos2(bar.left(), bar.center().y));
    harness.run();
    let stage = &harness.state().stage;
    let before = stage.rewind().scrub_secs_before_live().expect("rewound");
    assert!(before > 2.5, "dragged back {before} s");
    assert_ne!(anim::NodePose::from(stage.frame().shown()), anim::NodePose::from(&live), "an earlier pose");
    // The live clock holds while the viewer keeps drawing.
    let clock = stage.transport.clock_secs();
    harness.run();
    assert_eq!(harness.state().stage.transport.clock_secs(), clock);
    harness.get_by_label("Live").click();
    harness.run();
    assert!(!harness.state().stage.is_rewound());
    // Esc also resumes.
    harness.state_mut().stage.rewind_to(1.0);
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(!harness.state().stage.is_rewound(), "Esc resumes");
}

#[test]
fn the_retarget_source_loads_in_the_background_with_progress_and_an_error_naming_the_file() {
    let asset = devtools::ci::repo_root().join("assets/mannequin.glb");
    let mut harness = whole(viewer(), [1600.0, 2600.0]);
    harness.step();
    harness.get_by_label("Retarget from file…").click();
    harness.run();
    let nodes = harness.state().stage.model().nodes().len();
    let clips = harness.state().stage.model().clips().len();

    // A file that cannot finish reading yet (a FIFO nobody writes): the window keeps drawing,
    // the status bar shows the load, the model on screen stays.
    let dir = std::env::temp_dir().join(format!("animtune-ui-retarget-fifo-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let fifo = dir.join("slow-source.glb");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    if made {
        harness.state_mut().retarget.source_path = fifo.display().to_string();
        harness.get_by_label("Load source").click();
        harness.step();
        harness.step();
        assert!(
            harness.state().retarget.loading.is_some(),
            "the source loads in the background: {:?} {:?}",
            harness.state().retarget.message,
            harness.state().error
        );
        harness.get_by_label_contains("retarget source slow-source.glb");
        assert_eq!(harness.state().stage.model().nodes().len(), nodes);
        // The writer comes and goes without a byte: the load fails, naming the file.
        drop(std::fs::OpenOptions::new().write(true).open(&fifo).expect("the FIFO opens"));
        assert!(harness.state_mut().wait_for_retarget_source());
        harness.step();
        let error = harness.state().error.clone().unwrap_or_default();
        assert!(error.contains("slow-source.glb"), "{error}");
        // On the status bar (the panel repeats it without the prefix).
        harness.get_by_label_contains("Retarget from file: cannot load");
        assert!(harness.state().retarget.source_file().is_none());
    }

    // A real file: loaded in the background, then mapped.
    harness.state_mut().retarget.source_path = asset.display().to_string();
    harness.get_by_label("Load source").click();
    harness.step();
    assert!(harness.state().retarget.loading.is_some(), "the source loads in the background");
    assert!(harness.state_mut().wait_for_retarget_source());
    harness.step();
    assert_eq!(harness.state().retarget.source_file(), Some(asset.as_path()));
    assert_eq!(harness.state().retarget.mapping.as_ref().map(|m| m.pairs.len()), Some(21));
    harness.get_by_label("Source clip");

    // A missing file: the error names it, and nothing on screen is lost (the model, its clips,
    // the source loaded before and its table).
    harness.state_mut().error = None;
    harness.state_mut().retarget.source_path = dir.join("missing-source.glb").display().to_string();
    harness.get_by_label("Load source").click();
    harness.step();
    assert!(harness.state_mut().wait_for_retarget_source());
    harness.step();
    let error = harness.state().error.clone().unwrap_or_default();
    assert!(error.contains("missing-source.glb"), "{error}");
    harness.get_by_label_contains("Retarget from file: cannot load");
    assert_eq!(harness.state().retarget.source_file(), Some(asset.as_path()));
    assert_eq!(harness.state().retarget.mapping.as_ref().map(|m| m.pairs.len()), Some(21));
    assert_eq!(harness.state().stage.model().nodes().len(), nodes);
    assert_eq!(harness.state().stage.model().clips().len(), clips);
    harness.get_by_label("Source clip");
    let _ = std::fs::remove_dir_all(&dir);
}
