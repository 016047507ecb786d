//! Transition kinds in the cross-fade panel: chosen per pair, measured live, used by the
//! viewer's trigger (from the pose on screen), and kept in the profile.

use anim::{Easing, OffsetDecay, RootMotion, TransitionKind};
use egui_kittest::kittest::Queryable as _;

use super::{clip, viewer, whole};
use crate::stage::tuning::FadeTuning;

#[test]
fn the_panel_picks_a_kind_per_pair_and_shows_its_measured_quality() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    // The kind combo tunes the pair.
    harness.get_by_label("kind").click();
    harness.run();
    harness.get_by_label("inertialize").click();
    harness.run();
    let fade = harness.state().stage.tuning.transition(walk, run).expect("tuned");
    assert_eq!(fade.kind, TransitionKind::Inertialize);
    // Its option: the decay; and the measured figures beside a cross-fade of the same duration.
    harness.get_by_label("decay");
    harness.get_by_label("velocity jump");
    harness.get_by_label("foot slide");
    let (this, cross) = harness.state_mut().crossfade_measured(walk, run).expect("measured");
    assert!(
        this.worst.velocity_jump_mps <= cross.worst.velocity_jump_mps,
        "inertialization {} vs cross-fade {}",
        this.worst.velocity_jump_mps,
        cross.worst.velocity_jump_mps
    );
    // The table row names the kind.
    harness.get_by_label("Walk -> Run");
    harness.get_by_label("inertialize (quintic)");
}

#[test]
fn every_kind_triggers_from_the_pose_on_screen_without_a_jump() {
    for kind in TransitionKind::ALL {
        let mut viewer = viewer();
        let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
        viewer.stage.transport.select_clip(walk);
        viewer.stage.set_fade_target(run);
        let fade = FadeTuning { kind, phase_sync: true, ..FadeTuning::cross_fade(0.3, Easing::Smoothstep) };
        viewer.stage.tuning.set_transition(walk, run, fade);
        for _ in 0..20 {
            viewer.step(1.0 / 60.0);
        }
        let before = viewer.stage.frame().model_from_node().to_vec();
        viewer.trigger_fade();
        viewer.compute_frame();
        let at_trigger = viewer.stage.frame().model_from_node().to_vec();
        let moved = before
            .iter()
            .zip(&at_trigger)
            .map(|(a, b)| glam::Vec3::from(a.translation).distance(b.translation.into()))
            .fold(0.0, f32::max);
        assert!(moved < 1e-3, "{kind:?}: the trigger moved a joint {moved} at its instant");
        assert!(viewer.stage.transport.is_fading(), "{kind:?}");
        assert_eq!(viewer.stage.transport.clip(), Some(run));
        // Phase sync: Run did not start from 0.
        assert!(viewer.stage.transport.time_secs() > 0.0, "{kind:?}: not phase-synced");
        for _ in 0..40 {
            viewer.step(1.0 / 60.0);
        }
        assert!(!viewer.stage.transport.is_fading(), "{kind:?}: still transitioning after 0.67 s");
    }
}

#[test]
fn kinds_and_markers_survive_a_profile_round_trip() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    let fade = FadeTuning {
        kind: TransitionKind::DeadBlend,
        decay: OffsetDecay::CriticallyDamped,
        half_life_secs: 0.2,
        phase_sync: true,
        match_speed: true,
        ..FadeTuning::cross_fade(0.4, Easing::Linear)
    };
    viewer.stage.tuning.set_transition(walk, run, fade);
    viewer.stage.tuning.clip_extras.markers.push(crate::profile::ClipMarkers {
        clip: "Run".to_owned(),
        contacts: vec![crate::profile::ContactMarker { foot: "Foot.L".to_owned(), time_secs: 0.1 }],
    });
    let profile = viewer.profile.profile_of(&viewer.stage.tuning, viewer.stage.model());
    let json = serde_json::to_string(&profile).expect("json");
    let back: crate::profile::TuningProfile = serde_json::from_str(&json).expect("parse");
    let (tuning, fit) = back.to_tuning(viewer.stage.model());
    assert!(fit.skipped.is_empty(), "{fit:?}");
    assert_eq!(tuning.transition(walk, run), Some(fade));
    assert_eq!(tuning.clip_extras, viewer.stage.tuning.clip_extras);
}

#[test]
fn the_trajectory_is_drawn_on_the_ground_for_the_clip_and_through_a_transition() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    viewer.step(1.0 / 60.0);
    assert!(viewer.stage.frame().collider_lines().is_empty(), "off by default");
    viewer.overlays.trajectory = true;
    for _ in 0..30 {
        viewer.step(1.0 / 60.0);
    }
    viewer.trigger_fade();
    for _ in 0..30 {
        viewer.step(1.0 / 60.0);
    }
    let lines = viewer.stage.frame().collider_lines();
    let cyan = lines.iter().filter(|l| l.color[2] > 0.9).count();
    let trail = lines.iter().filter(|l| l.color[0] > 0.9).count();
    assert_eq!(cyan, 64, "the clip's path, 64 segments");
    assert_eq!(trail, 59, "the trail of the 60 frames since it was turned on, through the fade");
    let ground = crate::render::framing::ground_height(viewer.stage.model());
    assert!(lines.iter().all(|l| (l.from.y - ground).abs() < 0.01 && (l.to.y - ground).abs() < 0.01), "on the ground");
    // The walk sways the hips from side to side: the path is not a point.
    let extent = lines.iter().map(|l| l.from.x).fold(f32::MIN, f32::max)
        - lines.iter().map(|l| l.from.x).fold(f32::MAX, f32::min);
    assert!(extent > 0.005, "{extent}");
}

#[test]
fn contact_markers_sit_on_the_timeline_and_dragging_one_edits_the_profile() {
    let mut viewer = viewer();
    let walk = clip(&viewer, "Walk");
    viewer.stage.transport.select_clip(walk);
    viewer.stage.transport.pause();
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    // Found automatically: a left and a right touch-down.
    let left = harness.get_by_label("contact Foot.L");
    harness.get_by_label("contact Foot.R");
    let from = left.rect().center();
    harness.drag_at(from);
    harness.run();
    harness.hover_at(from + egui::vec2(120.0, 0.0));
    harness.run();
    harness.drop_at(from + egui::vec2(120.0, 0.0));
    harness.run();
    let extras = harness.state().stage.tuning.clip_extras.clone();
    let walk_markers = extras.markers.iter().find(|m| m.clip == "Walk").expect("edited markers stored");
    let moved = walk_markers.contacts.iter().find(|c| c.foot == "Foot.L").expect("left contact").clone();
    assert!(moved.time_secs > 0.2, "dragged later: {}", moved.time_secs);
    // The edit reaches the profile (and the panel's phase sync and measurements read it).
    let profile = harness.state().profile.profile_of(&harness.state().stage.tuning, harness.state().stage.model());
    assert_eq!(profile.markers.len(), 1);
    let contacts = harness.state_mut().crossfade_contacts(walk);
    assert!(contacts.iter().any(|c| (c.time_secs - moved.time_secs).abs() < 1e-6));
}

#[test]
fn two_kinds_replay_side_by_side_with_their_joint_speeds() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    // The user ticks the box in the section; the kinds it shows: crossfade left, inertialize
    // right.
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("Compare transition kinds").click();
    harness.run();
    harness.get_by_label("compare two transition kinds").click();
    harness.run();
    let viewer = harness.state_mut();
    assert!(viewer.stage.compare.kinds.enabled);
    assert_eq!(
        (viewer.stage.compare.kinds.left, viewer.stage.compare.kinds.right),
        (TransitionKind::CrossFade, TransitionKind::Inertialize)
    );
    // 0.15 s after the trigger (the source plays 0.5 s first): mid-transition.
    for _ in 0..39 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.compare.layout(), Some(crate::stage::compare::CompareLayout::Split));
    assert_eq!(viewer.stage.compare.kinds.labels(), Some(["crossfade", "inertialize"]));
    let (left, right) =
        (viewer.stage.frame().shown().clone(), viewer.stage.frame().compare_pose().expect("right view").clone());
    assert_ne!(left, right, "the two kinds differ during the transition");
    for _ in 0..51 {
        viewer.step(1.0 / 60.0);
    }
    let speeds = viewer.stage.compare.kinds.speeds();
    assert!(speeds.len() >= 80, "{} frames recorded", speeds.len());
    // Before the trigger both views play the same source.
    let before: Vec<_> = speeds.iter().filter(|s| s[0] < -0.05 && s[0] > -0.45).collect();
    assert!(!before.is_empty());
    assert!(before.iter().all(|s| (s[1] - s[2]).abs() < 1e-3), "identical before the trigger");
    // After it they part.
    assert!(speeds.iter().filter(|s| s[0] > 0.02).any(|s| (s[1] - s[2]).abs() > 1e-3));
    // The panel shows the plot and the kinds.
    harness.run();
    harness.get_by_label("compare two transition kinds");
    harness.get_by_label("left kind");
}

/// The root's horizontal model-space distance from the fader's anchor now (the built-in
/// character's root, Hips, has no parent: its parent frame is model space).
fn root_off_anchor(viewer: &crate::ui::Viewer, root: anim::NodeId) -> f32 {
    let p = viewer.stage.frame().node_position(root).expect("root");
    let anchor = viewer.stage.transport.fader().root_anchor();
    glam::Vec2::new(p.x - anchor.x, p.z - anchor.z).length()
}

#[test]
fn an_in_place_clip_holds_its_root_through_loops_and_fades_and_as_authored_moves_as_before() {
    let mut viewer = viewer();
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    let root = anim::crossfade::root_motion_node(viewer.stage.model()).expect("a root");
    assert!(viewer.stage.model().hierarchy.parent(root).is_none());
    viewer.stage.transport.select_clip(walk);
    viewer.stage.set_fade_target(run);
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.3, Easing::Smoothstep));
    // As authored: the hips sway from side to side as the file moves them, root motion off.
    let mut authored = (f32::MAX, f32::MIN);
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
        let x = viewer.stage.frame().node_position(root).expect("root").x;
        authored = (authored.0.min(x), authored.1.max(x));
    }
    assert!(viewer.stage.transport.fader().root_motion().is_none());
    assert!(authored.1 - authored.0 > 0.01, "as authored the root sways {authored:?}");
    // In place: Walk over 2 loops, then Walk → Run (Run in place too) and on after the fade.
    viewer.stage.tuning.set_root_motion("Walk", RootMotion::InPlace);
    viewer.stage.tuning.set_root_motion("Run", RootMotion::InPlace);
    let loops = (2.0 * viewer.stage.transport.duration_secs() * 60.0).ceil() as usize;
    let mut worst = 0.0f32;
    for _ in 0..loops {
        viewer.step(1.0 / 60.0);
        worst = worst.max(root_off_anchor(&viewer, root));
    }
    assert_eq!(viewer.stage.transport.fader().root_motion().map(|(m, _)| m), Some(RootMotion::InPlace));
    viewer.trigger_fade();
    let mut faded = false;
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
        faded |= viewer.stage.transport.is_fading();
        worst = worst.max(root_off_anchor(&viewer, root));
    }
    assert!(faded && !viewer.stage.transport.is_fading(), "the fade ran and ended");
    assert_eq!(viewer.stage.transport.clip(), Some(run));
    assert!(worst < 1e-3, "the root left its anchor by {worst} m");
    // Back to as authored once the fade is over: the clip as the file moves it.
    viewer.stage.tuning.set_root_motion("Run", RootMotion::Authored);
    viewer.step(1.0 / 60.0);
    assert!(viewer.stage.transport.fader().root_motion().is_none());
}

#[test]
fn root_motion_is_set_in_the_crossfade_panel_undone_and_kept_in_the_profile() {
    let mut viewer = viewer();
    let walk = clip(&viewer, "Walk");
    viewer.stage.transport.select_clip(walk);
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("root motion of Walk").click();
    harness.run();
    harness.get_by_label("in place").click();
    harness.run();
    assert_eq!(harness.state().stage.tuning.root_motion("Walk"), RootMotion::InPlace);
    assert_eq!(harness.state().stage.tuning.root_motion("Run"), RootMotion::Authored);
    // Saved by clip name and read back.
    let viewer = harness.state_mut();
    let profile = viewer.profile.profile_of(&viewer.stage.tuning, viewer.stage.model());
    assert_eq!(profile.root_motion.len(), 1);
    let json = serde_json::to_string(&profile).expect("json");
    assert!(json.contains("in-place"), "{json}");
    let back: crate::profile::TuningProfile = serde_json::from_str(&json).expect("parse");
    let (tuning, fit) = back.to_tuning(viewer.stage.model());
    assert!(fit.skipped.is_empty(), "{fit:?}");
    assert_eq!(tuning.root_motion("Walk"), RootMotion::InPlace);
    assert_eq!(tuning.clip_extras, viewer.stage.tuning.clip_extras);
    // Undoable like any tuning.
    assert!(viewer.undo());
    assert_eq!(viewer.stage.tuning.root_motion("Walk"), RootMotion::Authored);
}
