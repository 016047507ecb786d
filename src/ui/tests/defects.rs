//! One test per defect of issue #13 (2–10; 1, the memory growth, is `tests/viewer_memory.rs`).
//! Each failed on the viewer before its fix.

use crate::stage::tuning::RagdollTuning;
use anim::{Easing, InterpolationOverride, Model, RotationSpace, ScaleSpace};
use egui_kittest::kittest::Queryable as _;
use glam::Vec3;

use super::{built_in_model, clip, config_dir, node, shared_model, viewer, whole};
use crate::stage::tuning::{FadeTuning, Interpolation, Tuning};
use crate::ui::file_menu::{Dialogs, PathPurpose};
use crate::ui::playback::TimelineScale;
use crate::ui::{ModelSource, Viewer};

/// Model-space matrices of the built-in character playing `clip` at `time_secs`.
fn pose_of(clip: anim::ClipId, time_secs: f32) -> Vec<glam::Affine3A> {
    let mut viewer = Viewer::new(built_in_model(), ModelSource::built_in());
    viewer.stage.transport.select_clip(clip);
    viewer.stage.transport.seek(time_secs);
    viewer.compute_frame();
    viewer.stage.frame().model_from_node().to_vec()
}

/// Largest model-space distance any node moves between two sets of matrices.
fn largest_move(a: &[glam::Affine3A], b: &[glam::Affine3A]) -> f32 {
    a.iter().zip(b).map(|(a, b)| Vec3::from(a.translation).distance(Vec3::from(b.translation))).fold(0.0, f32::max)
}

// ---- 2. A fade starts from what is on screen ----

/// Issue #13 defect 2: Wave playing with the arm up, "from Idle" set in the panel, T pressed:
/// the next frame dropped the arm to Idle's pose. The fade now starts from the pose on screen.
#[test]
fn a_fade_starts_from_the_clip_on_screen() {
    let mut viewer = viewer();
    let (wave, walk, idle) = (clip(&viewer, "Wave"), clip(&viewer, "Walk"), clip(&viewer, "Idle"));
    viewer.stage.transport.select_clip(wave);
    for _ in 0..75 {
        viewer.step(1.0 / 60.0); // 1.25 s: the arm is up
    }
    viewer.stage.set_fade_target(walk);
    viewer.stage.tuning.set_transition(wave, walk, FadeTuning::cross_fade(2.0, Easing::Smoothstep));
    let before = viewer.stage.frame().model_from_node().to_vec();
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.key_press(egui::Key::T);
    harness.run();
    let viewer = harness.state_mut();
    assert!(viewer.stage.transport.is_fading(), "T starts the fade");
    let time = viewer.stage.transport.fader().layers()[0].time_secs;
    viewer.step(1.0 / 60.0);
    let after = viewer.stage.frame().model_from_node().to_vec();
    // Wave alone one frame later: a 2 s fade has barely started.
    let alone = pose_of(wave, time + 1.0 / 60.0);
    let off = largest_move(&alone, &after);
    // What fading from Idle's first frame would have done (the old snap).
    let snap = largest_move(&before, &pose_of(idle, 0.0));
    assert!(snap > 0.2, "the test scene must be one where a snap shows: {snap} m");
    assert!(off < 0.002, "one frame into a 2 s fade the pose is {off} m off Wave (a snap would be {snap} m)");
    // The weight plot shows the truth: Wave still all there, Walk just starting, and no clip's
    // weight jumps from one frame to the next.
    let rows: Vec<_> = viewer.stage.transport.fade_history().iter().copied().collect();
    let last = rows.last().expect("history");
    assert!(last.weight_of(wave) > 0.99 && last.weight_of(walk) < 0.01, "{last:?}");
    for pair in rows.windows(2) {
        for clip in [wave, walk] {
            assert!((pair[1].weight_of(clip) - pair[0].weight_of(clip)).abs() < 0.05, "{pair:?}");
        }
    }
}

/// A fade triggered during a fade starts from the blend on screen; one triggered while
/// ragdolling starts from the body.
#[test]
fn a_fade_mid_fade_or_from_the_ragdoll_does_not_snap() {
    let mut viewer = viewer();
    let (wave, walk, run) = (clip(&viewer, "Wave"), clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(wave);
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    viewer.stage.tuning.set_transition(wave, walk, FadeTuning::cross_fade(1.0, Easing::Linear));
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(1.0, Easing::Linear));
    viewer.stage.set_fade_target(walk);
    viewer.trigger_fade();
    for _ in 0..30 {
        viewer.step(1.0 / 60.0);
    }
    assert!(viewer.stage.transport.is_fading());
    // The same fade going on without a new trigger, one frame later.
    let mut untouched = Viewer::new(built_in_model(), ModelSource::built_in());
    untouched.stage.transport = viewer.stage.transport.clone();
    untouched.stage.tuning = viewer.stage.tuning.clone();
    untouched.step(1.0 / 60.0);
    viewer.stage.set_fade_target(run);
    viewer.trigger_fade();
    viewer.step(1.0 / 60.0);
    let off = largest_move(untouched.stage.frame().model_from_node(), viewer.stage.frame().model_from_node());
    // A snap to Run would move the pose this far; a 1 s linear fade moves 1/60 of it in a frame.
    let snap = largest_move(untouched.stage.frame().model_from_node(), &pose_of(run, 1.0 / 60.0));
    assert!(snap > 0.1, "the test scene must be one where a snap shows: {snap} m");
    assert!(off <= snap / 60.0 * 1.2 + 1e-3, "mid-fade trigger moved {off} m (a snap: {snap} m)");

    // From the ragdoll: the body blends into the target clip.
    assert!(viewer.go_limp());
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    let before = viewer.stage.frame().model_from_node().to_vec();
    viewer.stage.set_fade_target(walk);
    viewer.trigger_fade();
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::GettingUp, "T from the ragdoll blends out of it");
    viewer.step(1.0 / 60.0);
    assert!(largest_move(&before, viewer.stage.frame().model_from_node()) < 0.05, "fade from the ragdoll snapped");
    assert_eq!(viewer.stage.transport.clip(), Some(walk));
}

// ---- 3. One model identity, one profile, restored at start-up ----

/// Issue #13 defect 3: the built-in character and `assets/mannequin.glb` got two profiles, and
/// the built-in one was not restored at start-up.
#[test]
fn the_built_in_character_and_its_file_share_one_profile() {
    let profiles = config_dir("identity");
    let mut first = viewer().with_config_dir(Some(profiles.clone()));
    first
        .stage
        .tuning
        .set_interpolation(Interpolation { mode: InterpolationOverride::Cubic, ..Interpolation::AUTHORED });
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 2.5, ..first.stage.tuning.ragdoll };
    first.stage.set_ragdoll_tuning(ragdoll);
    first.save_on_exit();
    // Start-up: a new viewer on the built-in character gets it back.
    let again = viewer().with_config_dir(Some(profiles.clone()));
    assert_eq!(again.stage.tuning, first.stage.tuning, "restored at start-up");
    assert!(again.profile.status.starts_with("loaded"), "{}", again.profile.status);
    // The same character opened from its file: the same profile.
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.glb");
    let model = anim::import::load_path(&file).expect("mannequin.glb");
    let from_file = Viewer::new(model, ModelSource::file(&file)).with_config_dir(Some(profiles.clone()));
    assert_eq!(from_file.stage.tuning, first.stage.tuning);
    assert_eq!(from_file.profile.path(), first.profile.path());
    let files: Vec<_> = std::fs::read_dir(&profiles).expect("profiles").filter_map(Result::ok).collect();
    assert_eq!(files.len(), 1, "one profile for one identity: {files:?}");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

// ---- 4. Nothing leaks from one model to the next ----

/// A model of another identity (another rig): the built-in character with its joints renamed.
fn other_rig() -> Model {
    let mut model = built_in_model();
    for id in model.node_ids() {
        let name = model[id].name.as_ref().map(|n| format!("other:{n}"));
        model.set_node_name(id, name);
    }
    model
}

/// Issue #13 defect 4: override linear, squad, log scale and a 0.5/s ramp stayed applied when
/// another model opened.
#[test]
fn settings_do_not_leak_to_the_next_model_and_come_back_with_theirs() {
    let profiles = config_dir("leak");
    let mut viewer = viewer().with_config_dir(Some(profiles.clone()));
    let tuned = Interpolation {
        mode: InterpolationOverride::Linear,
        rotation_space: RotationSpace::Squad,
        scale_space: ScaleSpace::Log,
        easing: Easing::Linear,
    };
    viewer.stage.tuning.set_interpolation(tuned);
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 0.5, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    let tuning = viewer.stage.tuning.clone();
    viewer.open_model(other_rig(), ModelSource::file(std::path::Path::new("other.glb")));
    assert_eq!(
        viewer.stage.tuning,
        Tuning::authored(viewer.stage.model()),
        "a model without a profile opens as authored"
    );
    assert!(viewer.profile.status.contains("no profile yet"), "{}", viewer.profile.status);
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    // The panel names the active profile (the other rig's own file).
    let file = harness.state().profile.path().expect("path").file_name().expect("name").to_string_lossy().into_owned();
    assert!(file.starts_with("other_Hips-") || file.starts_with("Mannequin-"), "{file}");
    harness.get_by_label(&file);
    harness.get_by_label_contains("no profile yet");
    let viewer = harness.state_mut();
    viewer.open_built_in();
    assert_eq!(viewer.stage.tuning, tuning, "the character's own tuning comes back");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

// ---- 5. Plots fit their data; legends carry the colours ----

/// Issue #13 defect 5: the x axis stayed 0–4 s for a shorter clip, the velocity plot at ±0.01
/// while values reached ±200 deg/s, and the legend dots were grey.
#[test]
fn plots_refit_on_every_change_and_legends_have_colours() {
    let mut viewer = viewer();
    let (idle, run) = (clip(&viewer, "Idle"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(idle);
    viewer.stage.transport.pause();
    let mut harness = whole(viewer, [1280.0, 1400.0]);
    harness.run();
    let x_max = |h: &egui_kittest::Harness<'_, Viewer>| h.state().curves.bounds[0].expect("plotted").max()[0];
    assert!((x_max(&harness) - 4.0).abs() < 0.3, "Idle is 4 s: {}", x_max(&harness));
    // The user zooms into the plot (egui_plot then stops fitting it)...
    let plot = harness.state().curves.plot_rect.expect("plot rect");
    let fitted = harness.state().curves.bounds[0];
    harness.hover_at(plot.center());
    // The wheel over a plot scrolls the panel; the plot stays as it is.
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, -120.0),
        modifiers: egui::Modifiers::NONE,
        phase: egui::TouchPhase::Move,
    });
    harness.run();
    assert_eq!(harness.state().curves.bounds[0], fitted, "the wheel does not pan the plot");
    // (It scrolled the side panel instead: find the plot again.)
    let plot = harness.state().curves.plot_rect.expect("plot rect");
    harness.hover_at(plot.center());
    harness.run();
    harness.event(egui::Event::Zoom(2.0));
    harness.run();
    assert_ne!(harness.state().curves.bounds[0], fitted, "zoomed");
    // ...then picks a 0.7 s clip: the plot fits it.
    harness.get_by_label("Run").click();
    harness.run();
    assert_eq!(harness.state().stage.transport.clip(), Some(run));
    let x = x_max(&harness);
    assert!(x > 0.7 && x < 0.8, "Run is 0.7 s, the x axis ends at {x}");
    // Another channel: the velocity plot spans its data.
    harness.state_mut().curves.angles = true;
    harness.run();
    let viewer = harness.state();
    let data = viewer.curves.last.as_ref().expect("data");
    let (lo, hi) = data
        .primary_velocity
        .iter()
        .flatten()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p[1]), hi.max(p[1])));
    let velocity = viewer.curves.bounds[1].expect("velocity plot");
    assert!(velocity.min()[1] <= lo && velocity.max()[1] >= hi, "{velocity:?} vs data {lo}..{hi}");
    assert!(velocity.height() < (hi - lo) * 1.5 + 1.0, "fitted, not stuck: {velocity:?}");
    // The legend: one entry per component, each in its own colour, none grey.
    assert_eq!(viewer.curves.legend.len(), data.component_names.len());
    for (name, color) in &viewer.curves.legend {
        let [r, g, b, _] = color.to_array();
        assert!(r.max(g).max(b) - r.min(g).min(b) > 60, "{name} is grey: {color:?}");
    }
}

/// A channel that barely moves (LowerArm.L's rotation in Wave changes by float noise only) does
/// not blow its noise up to the plot's height: the velocity and acceleration axes keep a floor.
#[test]
fn plots_of_a_still_channel_do_not_magnify_noise() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Wave"));
    viewer.stage.transport.pause();
    viewer.stage.select_joint(Some(node(&viewer, "LowerArm.L")));
    viewer.curves.show_acceleration = true;
    let mut harness = whole(viewer, [1280.0, 1600.0]);
    harness.run();
    harness.run();
    let viewer = harness.state();
    let data = viewer.curves.last.as_ref().expect("data");
    let largest = data.primary_velocity.iter().flatten().fold(0.0f64, |m, p| m.max(p[1].abs()));
    assert!(largest < 1e-3, "the channel is still: {largest} units/s");
    let velocity = viewer.curves.bounds[1].expect("velocity plot");
    assert!(velocity.height() >= 0.02 * 0.99, "velocity axis spans {} units/s", velocity.height());
    let acceleration = viewer.curves.bounds[2].expect("acceleration plot");
    assert!(acceleration.height() >= 0.4 * 0.99, "acceleration axis spans {} units/s²", acceleration.height());
}

// ---- 6. File actions say what happened ----

/// Issue #13 defect 6: File ▸ Open… and Ctrl+O did nothing without a dialog; Export wrote into
/// the working folder silently. Now: a message and the path field; export asks where.
#[test]
fn file_actions_fall_back_to_the_path_field_and_say_so() {
    let mut viewer = viewer();
    viewer.file.dialogs = Dialogs::Unavailable;
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label_contains("Open…").click();
    harness.run();
    let message = harness.state().file.message.clone().expect("a message");
    assert!(message.contains("type the model's path"), "{message}");
    harness.get_by_label_contains("type the model's path");
    assert_eq!(harness.state().file.purpose, PathPurpose::OpenModel);
    // Ctrl+O does the same.
    harness.state_mut().file.message = None;
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    harness.run();
    assert!(harness.state().file.message.is_some(), "Ctrl+O says what happened");

    // Export asks where (here: the path field, filled with a suggestion).
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Export profile…").click();
    harness.run();
    assert_eq!(harness.state().file.purpose, PathPurpose::ExportProfile);
    assert!(harness.state().file.path.ends_with("Mannequin.animtune.json"), "{}", harness.state().file.path);
    let dir = std::env::temp_dir().join(format!("animtune-export-{}", std::process::id()));
    let target = dir.join("tuned.json");
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 3.0, ..harness.state_mut().stage.tuning.ragdoll };
    harness.state_mut().stage.set_ragdoll_tuning(ragdoll);
    harness.state_mut().file.path = target.display().to_string();
    harness.run();
    harness.get_by_label("Export").click();
    harness.run();
    assert!(target.exists(), "exported to the chosen path");
    assert!(harness.state().profile.status.contains("exported to"), "{}", harness.state().profile.status);

    // Import: the other way round, undoable.
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 7.0, ..harness.state_mut().stage.tuning.ragdoll };
    harness.state_mut().stage.set_ragdoll_tuning(ragdoll);
    harness.run();
    harness.get_by_label("File").click();
    harness.run();
    harness.get_by_label("Import profile…").click();
    harness.run();
    harness.state_mut().file.path = target.display().to_string();
    harness.run();
    harness.get_by_label("Import").click();
    harness.run();
    assert_eq!(harness.state().stage.tuning.ragdoll.ramp_rate_per_sec, 3.0, "imported");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(harness.state().stage.tuning.ragdoll.ramp_rate_per_sec, 7.0, "the import is one undo step");

    // Quit.
    assert!(!harness.state().quit_requested());
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    harness.run();
    assert!(harness.state().quit_requested());
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- 7. The layout holds still ----

/// Issue #13 defect 7: the side panel widened with its content (380 → 610 px after choosing
/// "step"), "Reset position" scroll-jumped the panel, the Load button left a 640×400 window.
#[test]
fn the_side_panel_keeps_its_width_and_nothing_moves_under_the_pointer() {
    let mut model = built_in_model();
    let long = "mixamorig:A_very_long_joint_name_as_some_exporters_write_it_LeftUpperArm_end";
    let arm = model
        .nodes()
        .iter()
        .position(|n| n.name.as_deref() == Some("UpperArm.L"))
        .map(anim::NodeId::from_index)
        .expect("arm");
    model.set_node_name(arm, Some(long.to_owned()));
    let mut viewer = Viewer::new(model, ModelSource::built_in());
    viewer.stage.select_joint(Some(arm));
    // Tall enough that the whole side panel, Ragdoll included, is on screen.
    let mut harness = whole(viewer, [1280.0, 3600.0]);
    harness.run();
    let width = harness.state().side_panel_width;
    harness.get_by_label("override").click();
    harness.run();
    harness.get_by_label("step").click();
    harness.run();
    harness.get_by_label("channel override").click();
    harness.run();
    harness.get_by_label("cubic").click();
    harness.run();
    assert_eq!(harness.state().stage.tuning.interpolation().mode, InterpolationOverride::Step);
    assert_eq!(harness.state().side_panel_width, width, "the panel keeps its width");

    // A status line that changes (the profile saved, a long file name) does not move the rows
    // below it.
    let below = harness.get_by_label("override").rect();
    harness.state_mut().profile.status =
        "loaded a_profile_with_a_rather_long_name_0123456789abcdef.json (42 settings applied, 3 skipped)".repeat(2);
    harness.run();
    assert_eq!(harness.get_by_label("override").rect(), below, "a status line moved the panel");

    // Reset position: the rows below stay where they are.
    harness.state_mut().stage.ragdoll.placement =
        anim::ragdoll::Placement { yaw_rad: 0.4, offset: Vec3::new(0.7, 0.0, 0.2) };
    harness.run();
    let colliders = harness.get_by_label("show colliders").rect();
    harness.get_by_label("Reset position").click();
    harness.run();
    assert_eq!(harness.state().stage.ragdoll.placement, anim::ragdoll::Placement::IDENTITY);
    assert_eq!(harness.get_by_label("show colliders").rect(), colliders, "nothing moved under the pointer");

    // A small window: the path field shrinks, its button stays on screen.
    let mut small = whole(super::viewer(), [640.0, 400.0]);
    small.run();
    let load = small.get_by_label("Load").rect();
    assert!(load.right() <= 640.0 && load.left() >= 0.0, "Load at {load:?}");
}

/// The side panel's width, dragged by the user, is remembered between runs.
#[test]
fn the_side_panel_width_is_remembered_between_runs() {
    let profiles = config_dir("panel");
    let viewer = viewer().with_config_dir(Some(profiles.clone()));
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    let width = harness.state().side_panel_width;
    let edge = egui::pos2(1280.0 - width, 450.0);
    harness.hover_at(edge);
    harness.run();
    harness.drag_at(edge);
    harness.run();
    harness.hover_at(edge - egui::vec2(120.0, 0.0));
    harness.run();
    harness.drop_at(edge - egui::vec2(120.0, 0.0));
    harness.run();
    let dragged = harness.state().side_panel_width;
    assert!((dragged - (width + 120.0)).abs() < 12.0, "dragged from {width} to {dragged}");
    drop(harness);
    let again = super::viewer().with_config_dir(Some(profiles.clone()));
    assert_eq!(again.side_panel_width, dragged, "remembered");
    let mut harness = whole(again, [1280.0, 900.0]);
    harness.run();
    assert_eq!(harness.state().side_panel_width, dragged, "and shown at that width");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

// ---- 8. Labels tell the truth ----

/// Issue #13 defect 8: a stale Export line, "authored" under an override, "LINEAR jumps at
/// keys" on cubic clips, "X is not animated" instead of following an animated node, untuned
/// pairs showing the last values, T adding an untuned pair to the table.
#[test]
fn labels_tell_the_truth() {
    let mut viewer = viewer();
    let (idle, walk, run) = (clip(&viewer, "Idle"), clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.transport.select_clip(walk);
    viewer.stage.transport.pause();
    viewer.stage.select_joint(Some(node(&viewer, "UpperArm.L")));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    // Cubic clip: the velocity caption describes CUBICSPLINE, not LINEAR.
    harness.get_by_label_contains("CUBICSPLINE is continuous");
    assert!(harness.query_by_label_contains("LINEAR is constant").is_none());
    harness.get_by_label_contains("solid: CUBICSPLINE (authored)");
    // A channel override: the caption says so.
    let (clip_now, track) = {
        let v = harness.state();
        (walk, v.stage.selection.track(v.stage.model(), Some(walk)).expect("track"))
    };
    harness.state_mut().stage.tuning.set_channel_mode(clip_now, track, Some(InterpolationOverride::Linear));
    harness.run();
    harness.get_by_label_contains("solid: LINEAR (channel override)");
    harness.get_by_label_contains("LINEAR is constant between keys");

    // A node the clip does not animate: the curves follow an animated one and say so.
    let mesh_node = harness
        .state()
        .stage
        .model()
        .nodes()
        .iter()
        .position(|n| n.mesh.is_some())
        .map(anim::NodeId::from_index)
        .expect("mesh node");
    harness.state_mut().stage.select_joint(Some(mesh_node));
    harness.run();
    harness.get_by_label_contains("is not animated by this clip: showing");
    let plotted = harness.state().curves.last.as_ref().expect("still plotting").node;
    assert!(harness.state().stage.model()[walk].animated_nodes().contains(&plotted));

    // Untuned pairs show the defaults, and T adds nothing to the table.
    harness.state_mut().stage.tuning.set_transition(walk, idle, FadeTuning::cross_fade(1.5, Easing::Linear));
    harness.state_mut().stage.set_fade_target(run);
    harness.run();
    harness.get_by_label_contains("untuned: defaults");
    harness.key_press(egui::Key::T);
    harness.run();
    let pairs: Vec<_> = harness.state().stage.tuning.transitions().collect();
    assert_eq!(pairs.len(), 1, "T tunes nothing: {pairs:?}");

    // The profile line belongs to the model on screen.
    let dir = std::env::temp_dir().join(format!("animtune-stale-{}", std::process::id()));
    let export = dir.join("first.json");
    {
        let v = harness.state_mut();
        let (tuning, model) = (v.stage.tuning.clone(), v.stage.model().clone());
        v.profile.export(&tuning, &model, &export);
        assert!(v.profile.status.contains("first.json"));
        v.open_model(other_rig(), ModelSource::file(std::path::Path::new("other.glb")));
        assert!(!v.profile.status.contains("first.json"), "stale: {}", v.profile.status);
    }
    harness.run();
    assert!(harness.query_by_label_contains("first.json").is_none(), "no stale export line");
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- 9. F frames what is drawn now ----

/// Issue #13 defect 9: F framed the clip's bounds, not the fallen body.
#[test]
fn f_frames_the_fallen_ragdoll() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Walk"));
    let ragdoll = RagdollTuning { push_newton_secs: 150.0, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.viewport.size_pixels = [900, 600];
    viewer.compute_frame();
    viewer.frame_camera();
    let standing_target = viewer.viewport.camera.target;
    assert!(viewer.go_limp());
    for _ in 0..180 {
        viewer.step(1.0 / 60.0);
    }
    let root = viewer.stage.ragdoll.root_node().expect("ragdoll");
    let body = viewer.stage.frame().node_position(root).expect("root");
    assert!(body.distance(standing_target) > 0.5, "the push moved the body away: {body} vs {standing_target}");
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.key_press(egui::Key::F);
    harness.run();
    let viewer = harness.state();
    let target = viewer.viewport.camera.target;
    let nodes = crate::render::framing::drawn_nodes(viewer.stage.model());
    let lying = crate::render::framing::CpuPoser::default().pose_bounds(
        viewer.stage.model(),
        viewer.stage.frame().shown(),
        &nodes,
    );
    assert!(target.distance(lying.center()) < 0.01, "F aims at the body lying at {}: {target}", lying.center());
    assert!(target.distance(standing_target) > 0.5, "not at the clip ({standing_target})");
    // The whole body is in view.
    let camera = viewer.viewport.camera;
    let clip_from_world = camera.clip_from_world(viewer.viewport.aspect());
    for corner in [lying.min, lying.max] {
        let clip = clip_from_world * corner.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0, "{corner} is off screen: {ndc}");
    }
    let _ = body;
}

// ---- 10. Transport ----

/// Issue #13 defect 10: with loop off, Play at the end did nothing; Home/End did nothing;
/// stepping did not land on whole frames; the timeline had no time labels and cut its ticks.
#[test]
fn transport_restarts_jumps_steps_whole_frames_and_labels_the_timeline() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(clip(&viewer, "Walk"));
    let mut harness = whole(viewer, [1280.0, 900.0]);
    harness.run();
    harness.get_by_label("loop").click();
    harness.run();
    let viewer = harness.state_mut();
    assert!(!viewer.stage.transport.looping, "the loop box turned looping off");
    let duration = viewer.stage.transport.duration_secs();
    viewer.stage.transport.seek(duration - 0.01);
    viewer.step(0.1);
    assert!(!viewer.stage.transport.playing, "stopped at the end");
    harness.run();
    harness.get_by_label("Play").click();
    harness.run();
    assert!(harness.state().stage.transport.playing);
    assert_eq!(harness.state().stage.transport.time_secs(), 0.0, "Play at the end restarts");
    harness.key_press(egui::Key::End);
    harness.run();
    assert_eq!(harness.state().stage.transport.time_secs(), duration);
    harness.key_press(egui::Key::Home);
    harness.run();
    assert_eq!(harness.state().stage.transport.time_secs(), 0.0);
    harness.state_mut().stage.transport.seek(0.955);
    harness.key_press(egui::Key::ArrowRight);
    harness.run();
    let playback = &harness.state().stage.transport;
    let frames = playback.time_secs() * playback.frame_rate();
    assert!((frames - frames.round()).abs() < 1e-3, "{} s is not on a frame", playback.time_secs());
    assert_eq!(playback.frame_index(), (0.955 * playback.frame_rate()).round() as i64 + 1);
    harness.get_by_label_contains(&format!("frame {} / ", playback.frame_index()));

    // Time labels from 0 to the end, ticks at 0 and at the end inside the slider.
    let slider = egui::Rect::from_min_size(egui::pos2(18.0, 0.0), egui::vec2(1000.0, 18.0));
    let scale = TimelineScale::under(slider, 1.1);
    let labels = scale.labels();
    assert!(labels.len() >= 5, "{labels:?}");
    assert_eq!(labels[0].1, "0.0 s");
    assert!(labels.last().expect("labels").0 <= 1.1);
    assert!(scale.x_of(0.0) > slider.left() && scale.x_of(1.1) < slider.right());
}

/// A shared model opens with its own profile even after the built-in one was tuned.
#[test]
fn fox_opens_with_authored_settings_after_a_tuned_character() {
    let Some(fox) = shared_model("Fox/Fox.glb") else { return };
    let mut viewer = viewer();
    viewer
        .stage
        .tuning
        .set_interpolation(Interpolation { mode: InterpolationOverride::Step, ..Interpolation::AUTHORED });
    viewer.load(&fox);
    assert!(viewer.wait_for_loading());
    assert_eq!(viewer.stage.tuning, Tuning::authored(viewer.stage.model()));
    assert_ne!(viewer.profile.identity().key, crate::profile::ModelIdentity::of(&built_in_model(), None).key);
}
