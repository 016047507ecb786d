//! Defects found by using the window for a working day (issue #22, item 6): one test each,
//! each failed on the viewer before its fix.

use crate::stage::tuning::RagdollTuning;
use anim::Easing;
use egui_kittest::kittest::{NodeT as _, Queryable as _, by};

use super::{clip, node, viewer, whole};
use crate::stage::tuning::FadeTuning;

// ---- 6.8 T while paused ----

/// T while paused started the fade and resumed playback; frame steps then ended the fade. Paused
/// stays paused, and each step forward advances the transition by one frame of the clip.
#[test]
fn a_transition_triggered_while_paused_stays_paused_and_steps_frame_by_frame() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.step(0.3);
    viewer.stage.set_fade_target(run);
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.5, Easing::Linear));
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.key_press(egui::Key::Space);
    harness.run();
    assert!(!harness.state().stage.transport.playing, "Space pauses");
    harness.key_press(egui::Key::T);
    harness.run();
    let viewer = harness.state();
    assert!(viewer.stage.transport.is_fading(), "T starts the transition");
    assert!(!viewer.stage.transport.playing, "T while paused keeps the viewer paused");
    let weight_of_run = |viewer: &crate::ui::Viewer| {
        viewer.stage.transport.fade_history().back().expect("a weight sample").weight_of(run)
    };
    let at_trigger = weight_of_run(viewer);
    // A few idle frames change nothing while paused.
    for _ in 0..5 {
        harness.run();
    }
    assert_eq!(weight_of_run(harness.state()), at_trigger, "paused: the transition waits");
    let frame_secs = 1.0 / harness.state().stage.transport.frame_rate();
    let mut previous = at_trigger;
    for step in 1..=3 {
        harness.key_press(egui::Key::ArrowRight);
        harness.run();
        let viewer = harness.state();
        assert!(viewer.stage.transport.is_fading(), "step {step}: still in the transition");
        assert!(!viewer.stage.transport.playing, "step {step}: still paused");
        let weight = weight_of_run(viewer);
        // A linear 0.5 s fade gains frame/0.5 of weight per frame step.
        let expected = frame_secs / 0.5;
        assert!(
            (weight - previous - expected).abs() < 0.02,
            "step {step}: Run's weight went {previous} -> {weight}, expected +{expected}"
        );
        previous = weight;
    }
}

// ---- 6.16 figures with units and meanings ----

/// The transition figures showed "pop 144.24" with no unit or meaning. Every figure now has its
/// unit (pop is a ratio, shown with ×) and its name explains what it measures.
#[test]
fn every_transition_figure_has_its_unit_and_says_what_it_measures() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.4, Easing::Smoothstep));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    for _ in 0..4 {
        harness.run();
    }
    for (figure, unit, meaning) in [
        ("velocity jump", " m/s", "had the source played on"),
        ("foot slide", " m", "planted feet"),
        ("max accel", " m/s²", "joint acceleration"),
        ("pop", "×", "ratio (no unit)"),
    ] {
        let row = harness.get_by_label(figure).rect();
        // The row's values sit to the right of its name, on the same line.
        // Texts on the row's line to the right of its name (egui puts a label's text in its
        // accessibility value).
        let mut values: Vec<(i64, String)> = harness
            .query_all(by().predicate(|node| node.value().is_some()).include_labels())
            .filter_map(|node| {
                let node = node.accesskit_node();
                let b = node.bounding_box()?;
                let on_row = ((b.y0 + b.y1) as f32 / 2.0 - row.center().y).abs() < 3.0 && b.x0 as f32 > row.max.x;
                Some((b.x0.round() as i64, node.value()?)).filter(|_| on_row)
            })
            .collect();
        values.dedup();
        let values: Vec<String> = values.into_iter().map(|(_, value)| value).collect();
        assert_eq!(values.len(), 2, "{figure}: {values:?}");
        for value in &values {
            assert!(value.ends_with(unit) || value == "-", "{figure} shows {value:?} without its unit {unit:?}");
        }
        harness.get_by_label(figure).hover();
        harness.run();
        harness.get_by_label_contains(meaning);
        harness.hover_at(egui::pos2(5.0, 2590.0));
        harness.run();
    }
}

// ---- 6.3 typing a number is one edit ----

/// Typing a duration (select all, `0.6`, Enter) took three Ctrl+Z to undo, passed through
/// 0.00 s and applied every keystroke live. The text is applied once, on Enter: the partial
/// text never reaches the tuning, and one Ctrl+Z undoes the edit.
#[test]
fn a_typed_duration_is_applied_on_enter_as_one_undo_step() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.4, Easing::Smoothstep));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    for _ in 0..3 {
        harness.run();
    }
    let steps_before = harness.state().stage.history.undo_steps();
    // The duration slider's number box: the spin button on the slider's row.
    let slider = harness.get_all_by_label("duration").next().expect("the duration slider").rect();
    harness
        .query_all(by().role(egui::accesskit::Role::SpinButton))
        .find(|node| (node.rect().center().y - slider.center().y).abs() < 4.0)
        .expect("the duration's number box")
        .click();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run();
    let duration = |h: &egui_kittest::Harness<'_, crate::ui::Viewer>| {
        h.state().stage.tuning.transition(walk, run).expect("tuned").duration_secs
    };
    for (typed, partial) in [("0", "0"), (".", "0."), ("6", "0.6")] {
        harness.query(by().role(egui::accesskit::Role::TextInput)).expect("editing the number").type_text(typed);
        harness.run();
        assert_eq!(duration(&harness), 0.4, "typing {partial:?} changes nothing yet");
    }
    harness.key_press(egui::Key::Enter);
    harness.run();
    harness.run();
    assert!((duration(&harness) - 0.6).abs() < 1e-6, "Enter applies 0.6: {}", duration(&harness));
    assert_eq!(harness.state().stage.history.undo_steps(), steps_before + 1, "one edit, one undo step");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(duration(&harness), 0.4, "one Ctrl+Z undoes the typed duration");
}

// ---- 6.10 the transport explains itself ----

/// The transport bar had controls without tooltips. Every control of it says what it does.
#[test]
fn every_transport_control_has_a_tooltip() {
    let mut harness = whole(viewer(), [1280.0, 900.0]);
    harness.run();
    let controls: Vec<(String, &str)> = vec![
        ("Pause".to_owned(), "Play or pause (Space)"),
        ("|<".to_owned(), "First frame (Home)"),
        ("< Frame".to_owned(), "One frame back"),
        ("Frame >".to_owned(), "advances the transition"),
        (">|".to_owned(), "Last frame (End)"),
        ("speed".to_owned(), "Playback speed"),
        ("loop".to_owned(), "Wrap at the end"),
        ("timeline".to_owned(), "Drag or click to scrub"),
    ];
    for (control, tooltip) in &controls {
        harness.get_all_by_label(control).next().unwrap_or_else(|| panic!("no control {control}")).hover();
        harness.run();
        assert!(
            harness.query_all_by_label_contains(tooltip).next().is_some(),
            "hovering {control} shows no tooltip with {tooltip:?}"
        );
        harness.hover_at(egui::pos2(5.0, 5.0));
        harness.run();
    }
    // The time readout too.
    let readout = harness.query_all_by_label_contains(" fps").next().expect("the time readout").rect();
    harness.hover_at(readout.center());
    harness.run();
    assert!(
        harness.query_all_by_label_contains("clip's own frame rate").next().is_some(),
        "the readout explains itself"
    );
}

// ---- 6.1 / 6.2 a hot reload that brings another rig ----

/// The open file overwritten by another character: the reload kept the previous rig's profile
/// (its overrides applied to the new rig, the Profile section naming the old file, the old
/// profile rewritten with the new rig's clips) and the old camera (the new model off-screen).
/// A reload now goes through the same profile switch as an open, writes nothing to a profile
/// that is not the one on screen, and frames a model whose bounds differ.
#[test]
fn a_hot_reload_that_brings_another_rig_switches_profile_and_frames_it() {
    use std::time::Duration;
    let Some(fox) = super::shared_model("Fox/Fox.glb") else { return };
    let profiles = super::config_dir("reload-rig");
    let dir = profiles.parent().expect("config").join("models");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("character.glb");
    std::fs::write(&path, crate::mannequin::DEFAULT_MODEL_GLB).expect("write");
    let model = decode::load_path(&path, &anim::import::Limits::default()).expect("loads");
    let mut viewer =
        crate::ui::Viewer::new(model, crate::ui::ModelSource::file(&path)).with_config_dir(Some(profiles.clone()));
    viewer.hot_reload.set_debounce(Duration::from_millis(100));
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 0.75, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.save_on_exit();
    let old_profile = viewer.profile.path().expect("the character's profile");
    let old_profile_text = std::fs::read_to_string(&old_profile).expect("saved");
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    let camera_before = harness.state().viewport.camera;

    std::fs::write(&path, std::fs::read(&fox).expect("Fox")).expect("write");
    super::artist::run_until(&mut harness, "the reload", |v| v.hot_reload.reloads == 1);
    for _ in 0..3 {
        harness.run();
    }
    let v = harness.state_mut();
    assert_eq!(v.stage.model().nodes().len(), 26, "Fox is on screen");
    let new_profile = v.profile.path().expect("Fox's profile");
    assert_ne!(new_profile, old_profile, "the Profile section names Fox's profile, not the character's");
    let authored = crate::stage::tuning::Tuning::authored(v.stage.model());
    assert_eq!(v.stage.tuning, authored, "nothing of the character's tuning is applied to Fox");
    assert_eq!(
        std::fs::read_to_string(&old_profile).expect("still there"),
        old_profile_text,
        "the character's profile on disk is untouched"
    );
    // Fox stands about 100 units tall where the character was under 2: the camera re-frames.
    assert_ne!(v.viewport.camera, camera_before, "the new model is framed");
    let framed = v.viewport.camera;
    v.frame_camera();
    assert!(
        (v.viewport.camera.distance - framed.distance).abs() < 1e-3 * framed.distance
            && v.viewport.camera.target.distance(framed.target) < 1e-3 * framed.distance,
        "the camera frames Fox: {framed:?} vs {:?}",
        v.viewport.camera
    );
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

// ---- 6.13 the camera stays above the ground ----

/// The camera orbited below the ground, and after a get-up stayed at floor level with the
/// character cut at the chest. The eye stays above the floor however the user drags, and a
/// get-up frames the standing character when the camera would cut it off.
#[test]
fn the_camera_stays_above_the_ground_and_a_get_up_is_framed_standing() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Idle"));
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    let view = harness.state().viewport.camera.target;
    assert!(view.is_finite());
    // Drag up across the view: the orbit would take the eye under the floor.
    let centre = egui::pos2(300.0, 450.0);
    harness.hover_at(centre);
    harness.run();
    harness.drag_at(centre);
    harness.run();
    for step in 1..=8 {
        harness.hover_at(centre - egui::vec2(0.0, 45.0 * step as f32));
        harness.run();
    }
    harness.drop_at(centre - egui::vec2(0.0, 360.0));
    harness.run();
    let viewer = harness.state_mut();
    let floor = viewer.stage.ground_height();
    let camera = viewer.viewport.camera;
    assert!(camera.pitch_rad < 0.0, "the drag orbited down: pitch {}", camera.pitch_rad);
    assert!(camera.eye().y >= floor, "the eye at {} is under the floor at {floor}", camera.eye().y);

    // Fall, frame the body on the floor, get up.
    let ragdoll = RagdollTuning { get_up_clip: clip(viewer, "Idle"), ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    assert!(viewer.go_limp());
    for _ in 0..150 {
        viewer.step(1.0 / 60.0);
    }
    viewer.frame_camera();
    let lying = viewer.viewport.camera;
    assert!(viewer.get_up());
    for _ in 0..100 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::Animated);
    let standing = viewer.stage.frame().drawn_bounds(
        viewer.stage.model(),
        &viewer.stage.transport,
        &viewer.stage.tuning,
        Some(&viewer.stage.ragdoll.placement),
    );
    let aspect = viewer.viewport.view_aspect(viewer.split_view());
    assert!(!lying.sees(&standing, aspect), "the test needs a camera that would cut the standing character off");
    assert!(viewer.viewport.camera.sees(&standing, aspect), "the standing character is in view after the get-up");
}

// ---- 6.11 the Stats overlay and the view labels ----

/// In compare mode the Stats overlay covered the right view's label. It now sits below any
/// label it would cover.
#[test]
fn the_stats_overlay_never_covers_a_view_label() {
    let mut viewer = viewer();
    viewer.stage.compare.show(crate::stage::compare::CompareModes {
        layout: crate::stage::compare::CompareLayout::Split,
        ..crate::stage::compare::CompareModes::default()
    });
    viewer.overlays.stats_visible = true;
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.run();
    let viewer = harness.state();
    let labels = viewer.viewport.label_rects;
    assert!(labels.iter().all(egui::Rect::is_positive), "two labels were painted: {labels:?}");
    // The profile line as a real one reads.
    let profile = "/home/artist/.config/animtune/profiles/Mannequin-90c4aa7a3763431b.json";
    let lines = viewer.overlays.stats_lines(&viewer.stage.source().short_name(), profile);
    let panel = crate::ui::overlays::Overlays::stats_panel_rect(viewer.viewport.rect, &lines, &labels);
    // Where the overlay used to be: the top right corner, over the right label.
    let corner = crate::ui::overlays::Overlays::stats_panel_rect(viewer.viewport.rect, &lines, &[]);
    assert!(corner.intersects(labels[1]), "the scene must be one where the overlay would cover a label");
    for label in labels {
        assert!(!panel.intersects(label), "the overlay {panel:?} covers the label at {label:?}");
    }
    assert!(viewer.viewport.rect.contains_rect(panel), "and stays in the view");
}

// ---- 6.5 the path field shows the model on screen ----

/// The path field showed a stale path (the last one typed, the last recording, or
/// `path/to/model.glb`) while another model was on screen. It shows the model on screen's file,
/// a command's suggested output only while that command waits for it, and the model again
/// after.
#[test]
fn the_path_field_shows_the_model_on_screen() {
    let Some(fox) = super::shared_model("Fox/Fox.glb") else { return };
    let profiles = super::config_dir("path-field");
    let mut viewer = viewer().with_config_dir(Some(profiles.clone()));
    viewer.file.dialogs = crate::ui::file_menu::Dialogs::Unavailable;
    assert_eq!(viewer.file.path, "", "the built-in character has no file: the field is empty (its hint says so)");
    // Open Fox by typing its path.
    viewer.file.path = fox.display().to_string();
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.query(by().role(egui::accesskit::Role::TextInput)).expect("the path field").focus();
    harness.run();
    harness.key_press(egui::Key::Enter);
    // One frame: the load starts in the background (its spinner repaints until it is done).
    harness.step();
    harness.state_mut().wait_for_loading();
    harness.run();
    assert_eq!(harness.state().stage.model().nodes().len(), 26, "Fox opened");
    assert_eq!(harness.state().file.path, fox.display().to_string(), "the field shows Fox's file");
    // Export the profile through the field: the suggested file while it waits, Fox's after.
    harness.state_mut().file.request(crate::ui::file_menu::PathPurpose::ExportProfile);
    let export = profiles.parent().expect("config").join("fox.animtune.json");
    harness.state_mut().file.path = export.display().to_string();
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    assert!(export.is_file(), "exported");
    assert_eq!(harness.state().file.path, fox.display().to_string(), "back to the model on screen");
    // The built-in character again: no file, an empty field.
    harness.state_mut().open_built_in();
    harness.run();
    assert_eq!(harness.state().file.path, "");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

// ---- 6.4 the layout stays under the pointer ----

/// The layout jumped under the pointer: a message pushed everything down ~23 px (after "Bake
/// to file…" the pointer landed on "Reset to authored"), the timeline grew 16 px when a clip had
/// foot-contact markers, and the easing plot vanished for inertialization. Messages go into a
/// status bar that is always there; heights are fixed, with placeholders.
#[test]
fn nothing_moves_when_a_message_appears_a_clip_has_markers_or_the_kind_changes() {
    let mut viewer = viewer();
    let (walk, wave, run) = (clip(&viewer, "Walk"), clip(&viewer, "Wave"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.4, Easing::Smoothstep));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    for _ in 0..3 {
        harness.run();
    }
    let where_is = |harness: &egui_kittest::Harness<'_, crate::ui::Viewer>, label: &str| {
        harness.get_all_by_label(label).next().unwrap_or_else(|| panic!("no {label}")).rect()
    };
    let reset = where_is(&harness, "Reset to authored");
    let pause = where_is(&harness, "Pause");
    let sync = where_is(&harness, "sync by phase");
    // A message (what Bake to file… leaves) and an error.
    harness.state_mut().file.message = Some("baked clip \"Walk\" to /tmp/walk.glb (1618324 bytes)".to_owned());
    harness.run();
    harness.run();
    assert!(harness.query_all_by_label_contains("baked clip").next().is_some(), "the message is shown");
    assert_eq!(where_is(&harness, "Reset to authored"), reset, "a message moves nothing");
    harness.state_mut().error = Some("Load failed: a long error ".repeat(8));
    harness.run();
    harness.run();
    assert_eq!(where_is(&harness, "Reset to authored"), reset, "an error moves nothing");
    assert_eq!(where_is(&harness, "Pause"), pause);
    // A clip without foot contacts: the transport keeps its height.
    let markers = |h: &egui_kittest::Harness<'_, crate::ui::Viewer>, clip: anim::ClipId| {
        let v = h.state();
        let mut crossfade = crate::ui::crossfade::CrossFadePanel::default();
        crossfade.named_contacts(v.stage.model(), &v.stage.tuning.clip_extras, clip).len()
    };
    assert!(markers(&harness, walk) > 0 && markers(&harness, wave) == 0, "Walk has contacts, Wave none");
    harness.state_mut().stage.transport.select_clip(wave);
    harness.run();
    harness.run();
    assert_eq!(where_is(&harness, "Pause"), pause, "the transport keeps its height");
    harness.state_mut().stage.transport.select_clip(walk);
    harness.run();
    // Each transition kind: the controls below the kind's own stay where they are.
    for kind in anim::TransitionKind::ALL {
        let mut fade = harness.state().stage.tuning.fade_for(walk, run);
        fade.kind = kind;
        harness.state_mut().stage.tuning.set_transition(walk, run, fade);
        harness.run();
        harness.run();
        assert_eq!(where_is(&harness, "sync by phase"), sync, "{kind:?} moves the controls below it");
    }
}

// ---- 6.9 nothing cut off at the panel's edge ----

/// Text was clipped at the side panel's edge ("(restarts it with a blend", "Reset posit"). At
/// the narrowest panel every such control lies wholly inside the panel.
#[test]
fn at_the_narrowest_panel_no_control_is_cut_off() {
    let mut viewer = viewer();
    let walk = clip(&viewer, "Walk");
    viewer.stage.transport.select_clip(walk);
    // A fade from Walk to Walk restarts it with a blend: the longest line of the section.
    viewer.stage.set_fade_target(walk);
    viewer.side_panel_width = 300.0;
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    for _ in 0..3 {
        harness.run();
    }
    let panel_right = 1280.0;
    for label in ["(restarts it with a blend)", "Reset position"] {
        let rect = harness.get_all_by_label(label).next().unwrap_or_else(|| panic!("no {label}")).rect();
        assert!(rect.max.x <= panel_right - 1.0, "{label:?} runs past the panel's edge: {rect:?}");
    }
}

// ---- 6.7 the ragdoll in both views of compare ----

/// In compare mode the ragdoll fell only in the left view; the right one kept playing the clip.
/// Both views show the body falling (the right one blended from its own mode's pose with the
/// same weights), and getting up.
#[test]
fn in_compare_mode_the_ragdoll_falls_in_both_views() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Walk"));
    viewer.stage.compare.show(crate::stage::compare::CompareModes {
        layout: crate::stage::compare::CompareLayout::Split,
        ..crate::stage::compare::CompareModes::default()
    });
    viewer.step(1.0 / 60.0);
    let standing_gap = viewer.stage.frame().deviation().expect("compare is on").max_distance;
    assert!(viewer.go_limp());
    for _ in 0..120 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.ragdoll.weight(), 1.0);
    // Both views: the same fallen body (the hips low, far from where the walk carries them).
    let hips = node(&viewer, "Hips");
    let left = viewer.stage.frame().model_from_node()[hips.index()].translation;
    let right = viewer.stage.frame().compare_model_from_node()[hips.index()].translation;
    assert!(left.y < 0.5, "the body fell: hips at {} m", left.y);
    assert!((left - right).length() < 1e-4, "the right view shows the same body: {left:?} vs {right:?}");
    assert!(standing_gap < 0.5, "{standing_gap}");
}

// ---- 6.6 the Record panel's range ----

/// The Record panel showed a stale range for "whole clip" (0.00–1.00 s on a 0.70 s clip). With
/// "whole clip" on, the range shown is the playing clip's.
#[test]
fn the_record_panel_shows_the_playing_clips_range_for_whole_clip() {
    let mut viewer = viewer();
    let (walk, wave) = (clip(&viewer, "Walk"), clip(&viewer, "Wave"));
    viewer.stage.transport.select_clip(walk);
    viewer.focus_panel = Some(crate::ui::Panel::Record);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    for _ in 0..3 {
        harness.run();
    }
    for clip in [walk, wave] {
        harness.state_mut().stage.transport.select_clip(clip);
        harness.run();
        harness.run();
        let v = harness.state();
        let end = v.stage.model()[clip].end_secs();
        assert_eq!((v.recorder.from_secs, v.recorder.to_secs), (0.0, end), "clip {clip}");
        let shown = format!("{end:.2} s");
        assert!(harness.query_all(by().value(&shown)).next().is_some(), "the panel shows the clip's end {shown}");
    }
}

/// The recording ignored the view: it framed the clip from its own default angle and dropped
/// the compare split and heatmap. A recording is made from what the viewport draws: its camera,
/// the compare modes with their layout and heat, the skeleton and its selected joint.
#[test]
fn a_recording_is_made_from_the_view_on_screen() {
    let mut viewer = viewer();
    viewer.stage.compare.show(crate::stage::compare::CompareModes {
        layout: crate::stage::compare::CompareLayout::Split,
        heatmap: true,
        ..crate::stage::compare::CompareModes::default()
    });
    viewer.overlays.skeleton = true;
    viewer.stage.select_joint(Some(node(&viewer, "UpperArm.L")));
    viewer.viewport.camera.yaw_rad = 2.5;
    viewer.viewport.camera.pitch_rad = 0.4;
    let dir = std::env::temp_dir().join(format!("animtune-record-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    viewer.record_to(&dir.join("view.gif"));
    let spec = viewer.recorder.recording().expect("a recording runs").shot.clone();
    viewer.recorder.cancel();
    let _ = std::fs::remove_dir_all(&dir);
    let camera = spec.camera.expect("the view's camera");
    assert_eq!((camera.yaw_rad, camera.pitch_rad), (2.5, 0.4), "drawn from where the user looks");
    let modes = crate::stage::compare::CompareModes::default();
    assert_eq!(spec.compare, Some((modes.left, modes.right)));
    assert!(!spec.compare_ghost && spec.heatmap, "split with heat, as on screen");
    assert!(spec.skeleton && spec.selected_joint == viewer.stage.selection.joint);
}

// ---- 6.15 front, side and top views ----

/// Models that face −Z were always seen from behind. The viewer finds which way the character
/// faces (from its left and right bones), frames it from a three-quarter front view, and
/// numpad 1 / 3 / 7 (Ctrl: the opposite side) look from its front, right and top, as in Blender.
#[test]
fn views_follow_the_way_the_character_faces() {
    use crate::physics::anatomy::facing_direction;
    let model = super::built_in_model();
    let facing = facing_direction(&model).expect("the built-in character has left and right bones");
    assert!(facing.dot(glam::Vec3::Z) > 0.99, "the built-in character faces +Z as glTF asks: {facing:?}");
    // The same character turned to face −Z (as many exports are).
    let mut turned = model.clone();
    let roots: Vec<_> = turned.hierarchy.roots().collect();
    for root in roots {
        let mut rest = turned[root].rest;
        rest.rotation = glam::Quat::from_rotation_y(std::f32::consts::PI) * rest.rotation;
        rest.translation = glam::Quat::from_rotation_y(std::f32::consts::PI) * rest.translation;
        turned.set_node_rest(root, rest);
    }
    let turned_facing = facing_direction(&turned).expect("sides");
    assert!(turned_facing.dot(-glam::Vec3::Z) > 0.99, "{turned_facing:?}");

    for (model, facing) in [(model, facing), (turned, turned_facing)] {
        let viewer = crate::ui::Viewer::new(model, crate::ui::ModelSource::built_in());
        let horizontal = |v: glam::Vec3| glam::Vec3::new(v.x, 0.0, v.z).normalize();
        let framed = horizontal(viewer.viewport.camera.eye_direction());
        assert!(framed.dot(facing) > 0.7, "opened from the front three-quarter: {framed:?} vs facing {facing:?}");
        let mut harness = whole(viewer, [1280.0, 900.0]);
        harness.run();
        let right = facing.cross(glam::Vec3::Y);
        for (modifiers, key, expected) in [
            (egui::Modifiers::NONE, egui::Key::Num1, facing),
            (egui::Modifiers::COMMAND, egui::Key::Num1, -facing),
            (egui::Modifiers::NONE, egui::Key::Num3, right),
            (egui::Modifiers::COMMAND, egui::Key::Num3, -right),
        ] {
            harness.key_press_modifiers(modifiers, key);
            harness.run();
            let eye = harness.state().viewport.camera.eye_direction();
            assert!(eye.dot(expected) > 0.99, "{modifiers:?}+{key:?}: eye direction {eye:?}, expected {expected:?}");
        }
        harness.key_press(egui::Key::Num7);
        harness.run();
        assert!(harness.state().viewport.camera.eye_direction().y > 0.99, "numpad 7 looks down from the top");
    }
}
