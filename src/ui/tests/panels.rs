//! Each panel driven through its widgets.

use crate::stage::tuning::RagdollTuning;
use anim::InterpolationOverride;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use super::{built_in_model, clip, config_dir, node, shared_model, viewer, whole};
use crate::ui::{ModelSource, Viewer};

#[test]
fn clicking_trigger_starts_a_fade() {
    let mut viewer = viewer();
    viewer.stage.set_fade_target(anim::ClipId::new(1));
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    assert!(!harness.state().stage.transport.is_fading());
    harness.get_by_label("Trigger").click();
    harness.run();
    let viewer = harness.state();
    assert!(viewer.stage.transport.is_fading(), "Trigger should start a cross-fade");
    assert_eq!(viewer.stage.transport.clip(), Some(anim::ClipId::new(1)));
}

#[test]
fn changing_the_override_changes_the_pose() {
    let mut viewer = viewer();
    viewer.stage.transport.pause();
    viewer.stage.transport.seek(viewer.stage.transport.duration_secs() * 0.37);
    viewer.compute_frame();
    let before = viewer.stage.frame().shown().clone();
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("override").click();
    harness.run();
    harness.get_by_label(InterpolationOverride::Step.name()).click();
    harness.run();
    let viewer = harness.state();
    assert_eq!(viewer.stage.tuning.interpolation().mode, InterpolationOverride::Step);
    assert_ne!(*viewer.stage.frame().shown(), before, "STEP between keys must give another pose");
}

#[test]
fn a_failed_load_keeps_the_model_and_shows_the_error() {
    let viewer = viewer();
    let nodes = viewer.stage.model().nodes().len();
    let mut harness = whole(viewer, [1200.0, 800.0]);
    harness.run();
    harness.state_mut().file.path = "/no/such/model.glb".to_owned();
    harness.run();
    harness.get_by_label("Load").click();
    harness.step();
    harness.state_mut().wait_for_loading();
    harness.run();
    let viewer = harness.state();
    assert_eq!(viewer.stage.model().nodes().len(), nodes);
    assert_eq!(viewer.stage.generation(), 0, "the model must not be replaced");
    let error = viewer.error.clone().expect("an error is recorded");
    assert!(error.contains("/no/such/model.glb"), "{error}");
    harness.get_by_label_contains("Load failed");
}

#[test]
fn the_curve_panel_plots_key_markers_for_the_selected_channel() {
    let mut harness = whole(viewer(), [1280.0, 1400.0]);
    harness.run();
    let viewer = harness.state();
    let data = viewer.curves.last.as_ref().expect("curve data");
    let clip = &viewer.stage.model()[viewer.stage.transport.clip().expect("clip")];
    let track = clip.track(data.track).expect("track");
    assert_eq!(Some(track.node), viewer.stage.selection.joint);
    assert_eq!(track.property(), viewer.stage.selection.property);
    let key_count = clip.timelines()[track.timeline].times_secs.len();
    assert_eq!(data.keys.len(), data.component_names.len());
    for keys in &data.keys {
        assert_eq!(keys.len(), key_count);
    }
    // Under the default (authored) settings the curve passes through its keys.
    for (component, keys) in data.keys.iter().enumerate() {
        for &[t, value] in keys {
            let nearest = data.primary[component]
                .iter()
                .min_by(|a, b| (a[0] - t).abs().total_cmp(&(b[0] - t).abs()))
                .expect("samples");
            if (nearest[0] - t).abs() < 1e-6 {
                assert!((nearest[1] - value).abs() < 1e-3, "key at {t}: {value} vs {}", nearest[1]);
            }
        }
    }
}

#[test]
fn linear_velocity_jumps_at_keys_and_cubic_does_less() {
    let viewer = viewer();
    let settings = anim::SampleSettings::with_mode(InterpolationOverride::Linear);
    let joint = viewer.stage.selection.joint.expect("a joint");
    let data = crate::ui::curves::curve_data(
        viewer.stage.model(),
        anim::ClipId::new(0),
        &settings,
        joint,
        viewer.stage.selection.property,
        InterpolationOverride::Cubic,
        false,
    )
    .expect("curve data");
    let largest_jump = |series: &Vec<Vec<[f64; 2]>>| {
        series.iter().flat_map(|v| v.windows(2).map(|w| (w[1][1] - w[0][1]).abs())).fold(0.0f64, f64::max)
    };
    assert!(largest_jump(&data.primary_velocity) > largest_jump(&data.overlay_velocity));
    assert_eq!(data.primary_interpolation, anim::Interpolation::Linear);
    assert_eq!(data.primary_source, "override");
}

#[test]
fn go_limp_hands_off_ramps_and_gets_up() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(anim::ClipId::new(1));
    let ragdoll = RagdollTuning { get_up_clip: anim::ClipId::new(0), ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.compute_frame();
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    assert_eq!(harness.state().stage.ragdoll.phase(), crate::physics::Phase::Animated);
    harness.get_by_label("Go limp").click();
    harness.run();
    assert_eq!(harness.state().stage.ragdoll.phase(), crate::physics::Phase::Ragdoll);
    // Default ramp 5/s: half weight after 0.1 s, full after 0.2 s (+ one frame).
    let viewer = harness.state_mut();
    for _ in 0..6 {
        viewer.step(1.0 / 60.0);
    }
    assert!((viewer.stage.ragdoll.weight() - 0.5).abs() < 0.02, "weight {}", viewer.stage.ragdoll.weight());
    for _ in 0..7 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.ragdoll.weight(), 1.0);
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    assert_ne!(*viewer.stage.frame().shown(), *viewer.stage.frame().animated(), "the ragdoll drives the pose");
    assert!(viewer.stage.frame().shown().is_finite());
    assert!(viewer.stage.ragdoll.history.iter().any(|&[_, w, _]| w == 1.0), "the weight plot saw full weight");
    harness.run();
    harness.get_by_label("Get up").click();
    harness.run();
    let viewer = harness.state_mut();
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::GettingUp);
    assert_eq!(viewer.stage.transport.clip(), Some(anim::ClipId::new(0)), "gets up into the chosen clip");
    for _ in 0..100 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::Animated);
    assert_eq!(*viewer.stage.frame().shown(), *viewer.stage.frame().animated());
    // And it can go limp again at once.
    assert!(viewer.go_limp());
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::Ragdoll);
}

#[test]
fn ragdoll_tuning_and_channel_overrides_round_trip_through_the_profile() {
    let mut tuned = viewer();
    let ragdoll = RagdollTuning {
        ramp_rate_per_sec: 12.5,
        easing: anim::Easing::Smoothstep,
        get_up_clip: anim::ClipId::new(2),
        get_up_secs: 1.25,
        push_newton_secs: 40.0,
        get_up_clip_face_down: Some(anim::ClipId::new(4)),
        motor_strength: 0.75,
        limp_rate_per_sec: 1.5,
        pin_pelvis: true,
        region: Some(node(&tuned, "UpperArm.R")),
        gains: {
            let mut gains = tuned.stage.tuning.ragdoll.gains;
            gains.stiffness[2] = 321.0;
            gains
        },
    };
    tuned.stage.set_ragdoll_tuning(ragdoll);
    let clip = tuned.stage.transport.clip().expect("clip");
    let track = tuned.stage.selection.track(tuned.stage.model(), Some(clip)).expect("a selected channel");
    tuned.stage.tuning.set_channel_mode(clip, track, Some(InterpolationOverride::Step));
    let profile = tuned.profile.profile_of(&tuned.stage.tuning, tuned.stage.model());
    let json = serde_json::to_string_pretty(&profile).expect("json");
    assert!(json.contains("\"ramp_rate_per_sec\": 12.5"), "{json}");
    assert!(json.contains("\"mode\": \"step\""), "{json}");

    let fresh = viewer();
    let parsed: crate::profile::TuningProfile = serde_json::from_str(&json).expect("parse");
    let (tuning, fit) = parsed.to_tuning(fresh.stage.model());
    assert!(fit.skipped.is_empty(), "{fit:?}");
    assert_eq!(tuning, tuned.stage.tuning);
    assert_eq!(tuning.channel_mode(clip, track), Some(InterpolationOverride::Step));
}

#[test]
fn a_channel_override_changes_only_that_channel() {
    let mut viewer = viewer();
    viewer.stage.transport.pause();
    viewer.stage.transport.seek(viewer.stage.transport.duration_secs() * 0.37);
    viewer.compute_frame();
    let before = viewer.stage.frame().shown().clone();
    let joint = viewer.stage.selection.joint.expect("joint");
    let clip = viewer.stage.transport.clip().expect("clip");
    let track = viewer.stage.selection.track(viewer.stage.model(), Some(clip)).expect("track");
    viewer.stage.tuning.set_channel_mode(clip, track, Some(InterpolationOverride::Step));
    viewer.compute_frame();
    let shown = viewer.stage.frame().shown();

    assert_ne!(shown.rotation(joint), before.rotation(joint), "STEP between keys moves the joint");
    // Other channels keep their value (to rounding: with an override the general sampling path
    // runs instead of the SIMD fast path).
    for other in (0..shown.len()).map(anim::NodeId::from_index).filter(|&n| n != joint) {
        let (a, b) = (shown.rotation(other), before.rotation(other));
        assert!(a.dot(b).abs() > 1.0 - 1e-6, "node {other} must not change: {a} vs {b}");
    }
    viewer.stage.tuning.set_channel_mode(clip, track, None);
    viewer.compute_frame();
    assert_eq!(*viewer.stage.frame().shown(), before, "clearing the override is the fast path again, bit for bit");
}

#[test]
fn clicking_near_a_joint_on_screen_selects_it() {
    let mut viewer = viewer();
    viewer.stage.transport.pause();
    let view = glam::Vec2::new(800.0, 600.0);
    viewer.viewport.size_pixels = [800, 600];
    viewer.frame_camera();
    let camera = viewer.viewport.camera;
    let world = viewer.stage.frame().model_from_node().to_vec();
    let clip_from_world = camera.clip_from_world(view.x / view.y);
    let mut hits = 0;
    let joints: Vec<anim::NodeId> = viewer.stage.model().skins()[0].joints.clone();
    for &joint in &joints {
        let clip = clip_from_world * glam::Vec3::from(world[joint.index()].translation).extend(1.0);
        let ndc = glam::Vec2::new(clip.x, clip.y) / clip.w;
        let pixel = glam::Vec2::new((ndc.x + 1.0) * 0.5 * view.x, (1.0 - ndc.y) * 0.5 * view.y);
        // Joints that overlap on screen (e.g. a chain seen end-on) may pick the nearer one.
        let picked = viewer.stage.frame().pick_joint(
            viewer.stage.model(),
            &camera,
            pixel + glam::Vec2::new(3.0, -2.0),
            view,
            14.0,
            false,
        );
        if picked == Some(joint) {
            hits += 1;
        }
    }
    assert!(hits * 10 >= joints.len() * 8, "{hits} joints picked");
    let corner =
        viewer.stage.frame().pick_joint(viewer.stage.model(), &camera, glam::Vec2::new(2.0, 2.0), view, 14.0, false);
    assert_eq!(corner, None, "a corner is far from every joint");
}

#[test]
fn the_joint_tree_selects_a_node() {
    let mut viewer = viewer();
    // A deep joint selected elsewhere (a click in the 3D view) opens its ancestors in the tree.
    let deep = viewer.stage.model().skins()[0].joints[3];
    let parent = viewer.stage.model().hierarchy.parent(deep).expect("parent");

    viewer.stage.select_joint(Some(deep));
    let name = |n: anim::NodeId| crate::profile::node_display_name(viewer.stage.model(), n);
    let (deep_name, parent_name) = (name(deep), name(parent));
    let mut harness = Harness::builder().with_size([420.0, 900.0]).build_ui_state(
        |ui, v: &mut Viewer| {
            let stage = v.stage.parts();
            v.joints.joints_ui(ui, stage.model, stage.transport.clip(), stage.selection, None);
        },
        viewer,
    );
    harness.run();
    harness.get_by_label_contains(&deep_name);
    harness.get_by_label_contains(&format!("{parent_name} J")).click();
    harness.run();
    assert_eq!(harness.state().stage.selection.joint, Some(parent));
}

/// A file dropped on the window, as egui-winit reports it.
#[derive(Debug)]
struct Dropped(std::path::PathBuf);

impl egui::DroppedFile for Dropped {
    fn path(&self) -> &std::path::Path {
        &self.0
    }
    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|e| e.to_string())
    }
}

#[test]
fn dropping_a_file_loads_it_in_the_background_and_remembers_it() {
    let Some(fox) = shared_model("Fox/Fox.glb") else { return };
    let profiles = config_dir("drop");
    let viewer = viewer().with_config_dir(Some(profiles.clone()));
    let mut harness = whole(viewer, [1200.0, 800.0]);
    harness.run();
    harness.input_mut().dropped_files.push(std::sync::Arc::new(Dropped(fox.clone())));
    harness.step();
    assert!(harness.state().loading.is_some(), "the drop starts a background load");
    assert!(harness.state_mut().wait_for_loading(), "Fox loads");
    harness.run();
    let viewer = harness.state();
    assert!(viewer.stage.source().label.ends_with("Fox.glb"), "{}", viewer.stage.source().label);
    assert!(viewer.stage.model().clips().len() >= 3);
    let absolute = std::path::absolute(&fox).expect("absolute");
    assert_eq!(viewer.file.recent.paths.first(), Some(&absolute));
    let saved = crate::profile::RecentFiles::load(&crate::profile::recent_files_path(&profiles));
    assert_eq!(saved.paths.first(), Some(&absolute), "File > Recent is persisted");
    let _ = std::fs::remove_dir_all(profiles.parent().expect("config"));
}

#[test]
fn background_loading_reports_progress_and_keeps_the_model_until_ready() {
    let Some(robot) = shared_model("RobotExpressive/RobotExpressive.glb") else { return };
    let mut viewer = viewer();
    let nodes = viewer.stage.model().nodes().len();
    viewer.load(&robot);
    assert_eq!(viewer.stage.model().nodes().len(), nodes, "the old model stays while loading");
    let stage = viewer.loading.as_ref().expect("loading").stage();
    assert!(
        matches!(stage, crate::stage::loading::LoadStage::Reading(f) if (0.0..=1.0).contains(&f))
            || stage == crate::stage::loading::LoadStage::Importing
    );
    assert!(viewer.loading.as_ref().expect("loading").total_bytes() > 100_000);
    assert!(viewer.wait_for_loading());
    assert!(viewer.loading.is_none());
    assert_ne!(viewer.stage.model().nodes().len(), nodes);
}

#[test]
fn curves_show_tangent_handles_for_cubic_channels_and_angles_in_degrees() {
    let model = built_in_model();
    let is_cubic_rotation = |t: &anim::Track| {
        t.interpolation == anim::Interpolation::CubicSpline && t.property() == anim::Property::Rotation
    };
    let cubic_clip = model
        .clips()
        .iter()
        .position(|c| c.tracks().iter().any(is_cubic_rotation))
        .map(anim::ClipId::from_index)
        .expect("the mannequin has a CUBICSPLINE clip");
    let clip = &model[cubic_clip];
    let track = clip.tracks().iter().find(|t| is_cubic_rotation(t)).expect("track");
    let keys = clip.timelines()[track.timeline].times_secs.len();
    let settings = anim::SampleSettings::default();
    let data = |angles| {
        crate::ui::curves::curve_data(
            &model,
            cubic_clip,
            &settings,
            track.node,
            anim::Property::Rotation,
            InterpolationOverride::Linear,
            angles,
        )
        .expect("data")
    };
    let quaternions = data(false);
    // One out-handle per key but the last, one in-handle per key but the first.
    assert_eq!(quaternions.tangent_handles[0].len(), 2 * (keys - 1));
    for handle in &quaternions.tangent_handles[0] {
        assert!(handle.iter().all(|p| p[0].is_finite() && p[1].is_finite()));
        assert_ne!(handle[0][0], handle[1][0], "a handle spans time");
    }
    let angles = data(true);
    assert!(angles.angles);
    assert_eq!(angles.component_names.len(), 3);
    assert!(angles.tangent_handles.iter().all(Vec::is_empty));
    // The angle view of the key values reproduces each key's rotation.
    for (k, &t) in clip.timelines()[track.timeline].times_secs.iter().enumerate().take(4) {
        let [x, y, z] = [0, 1, 2].map(|c| (angles.keys[c][k][1] as f32).to_radians());
        let from_angles = glam::Quat::from_euler(glam::EulerRot::XYZ, x, y, z);
        let anim::TrackValues::Rotation(q) = &track.values else { panic!("rotation track") };
        let key = q[track.value_index(k)];
        assert!(from_angles.dot(key).abs() > 0.9999, "key {k} at {t}: {from_angles:?} vs {key:?}");
    }
    assert_eq!(quaternions.primary_acceleration.len(), 4);
}

#[test]
fn the_deviation_heatmap_is_hot_where_the_modes_differ() {
    let mut viewer = viewer();
    viewer.stage.transport.pause();
    viewer.stage.compare.show(crate::stage::compare::CompareModes {
        left: InterpolationOverride::Step,
        right: InterpolationOverride::Cubic,
        heatmap: true,
        heat_full_scale: 0.02,
        ..Default::default()
    });
    viewer.stage.transport.seek(viewer.stage.transport.duration_secs() * 0.41);
    viewer.compute_frame();
    let heat = viewer.stage.frame().joint_heat();
    assert_eq!(heat.len(), viewer.stage.model().nodes().len());
    assert!(heat.iter().all(|h| (0.0..=1.0).contains(h)));
    let deviation = viewer.stage.frame().deviation().expect("compare");
    let hottest = heat.iter().copied().fold(0.0f32, f32::max);
    let expected = (deviation.max_distance / 0.02).min(1.0);
    assert!((hottest - expected).abs() < 1e-4, "{hottest} vs {expected}");
    assert!(hottest > 0.0);
}

#[test]
fn the_srgb_fade_is_darker_in_the_middle_than_the_linear_one() {
    use crate::ui::interpolation::{fade_colours, linear_to_srgb, srgb_to_linear};
    let [srgb, linear] = fade_colours([0.95, 0.1, 0.1], [0.1, 0.8, 0.95], 0.5);
    let luma = |c: egui::Color32| {
        let l = |v: u8| srgb_to_linear(f32::from(v) / 255.0);
        0.2126 * l(c.r()) + 0.7152 * l(c.g()) + 0.0722 * l(c.b())
    };
    assert!(luma(srgb) < luma(linear) * 0.8, "{srgb:?} vs {linear:?}");
    for v in [0.0f32, 0.02, 0.5, 1.0] {
        assert!((linear_to_srgb(srgb_to_linear(v)) - v).abs() < 1e-5);
    }
}

#[test]
fn the_3d_view_asks_for_physical_pixels_on_high_dpi_screens() {
    let mut sizes = Vec::new();
    for pixels_per_point in [1.0, 2.0] {
        let mut harness = Harness::builder()
            .with_size([1000.0, 700.0])
            .with_pixels_per_point(pixels_per_point)
            .build_ui_state(|ui, v: &mut Viewer| v.ui(ui), viewer());
        harness.run();
        sizes.push(harness.state().viewport.size_pixels);
    }
    assert!(sizes[0][0] > 100 && sizes[0][1] > 100, "{sizes:?}");
    assert_eq!([sizes[0][0] * 2, sizes[0][1] * 2], sizes[1]);
}

#[test]
fn a_physics_explosion_falls_back_to_the_animation_and_keeps_model_and_tuning() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(anim::ClipId::new(1));
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 7.5, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    // Far beyond the slider: billions of metres per second on the pushed bone.
    let ragdoll = RagdollTuning { push_newton_secs: 1e12, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.stage.select_joint(Some(node(&viewer, "Head")));
    viewer.compute_frame();
    let tuning_before = viewer.stage.tuning.clone();
    let generation = viewer.stage.generation();
    assert!(viewer.go_limp());
    for _ in 0..3 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::Animated, "the exploded ragdoll is dropped");
    assert_eq!(viewer.stage.ragdoll.faults, 1);
    let status = viewer.stage.ragdoll.status.clone().unwrap_or_default();
    assert!(status.contains("physics fault") && status.contains("Head"), "{status}");
    assert_eq!(*viewer.stage.frame().shown(), *viewer.stage.frame().animated(), "the animation shows");
    assert!(viewer.stage.frame().shown().is_finite());
    assert_eq!(viewer.stage.generation(), generation, "the model is kept");
    assert_eq!(viewer.stage.tuning, tuning_before, "the tuning is kept");
    // And the next handoff (a sane push) works.
    let ragdoll = RagdollTuning { push_newton_secs: 0.0, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    assert!(viewer.go_limp());
    viewer.step(1.0 / 60.0);
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::Ragdoll);
}

#[test]
fn getting_up_starts_the_clip_where_the_body_lies() {
    let mut viewer = viewer();
    viewer.stage.transport.select_clip(anim::ClipId::new(1));
    // A hard push sends the body away from the clip's origin before it settles.
    let ragdoll = RagdollTuning {
        push_newton_secs: 150.0,
        get_up_clip: anim::ClipId::new(0),
        get_up_secs: 0.5,
        ..viewer.stage.tuning.ragdoll
    };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.compute_frame();
    assert!(viewer.go_limp());
    for _ in 0..180 {
        viewer.step(1.0 / 60.0);
    }
    let root = viewer.stage.ragdoll.root_node().expect("ragdoll");
    let horizontal = |p: glam::Vec3| p * glam::Vec3::new(1.0, 0.0, 1.0);
    let lying = horizontal(viewer.stage.frame().node_position(root).expect("root"));
    assert!(lying.length() > 0.3, "the push moved the body: {lying}");
    assert!(viewer.get_up());
    viewer.compute_frame();
    let mut m = vec![glam::Affine3A::IDENTITY; viewer.stage.model().nodes().len()];
    viewer.stage.model().hierarchy.local_to_model(
        viewer.stage.frame().animated(),
        &mut anim::LocalMatrices::default(),
        &mut m,
    );
    let standing = horizontal(glam::Vec3::from(m[root.index()].translation));
    assert!(standing.distance(lying) < 0.02, "the clip starts under the body: {standing} vs {lying}");
    assert!(viewer.stage.ragdoll.placement.offset.length() > 0.3);
    for _ in 0..60 {
        viewer.step(1.0 / 60.0);
    }
    assert_eq!(viewer.stage.ragdoll.phase(), crate::physics::Phase::Animated);
    let tuning = viewer.stage.tuning.clone();
    viewer.reset_placement();
    assert_eq!(viewer.stage.ragdoll.placement, anim::ragdoll::Placement::IDENTITY);
    assert_eq!(viewer.stage.tuning, tuning, "placement is not a tunable");
}

/// Opening the same file twice in one viewer keeps it on screen (same identity: nothing resets).
#[test]
fn opening_the_model_on_screen_again_keeps_clip_time_and_tuning() {
    let mut viewer = viewer();
    let wave = clip(&viewer, "Wave");
    viewer.stage.transport.select_clip(wave);
    viewer.stage.transport.seek(1.2);
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 9.0, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.open_model(built_in_model(), ModelSource::file(std::path::Path::new("assets/mannequin.glb")));
    assert_eq!(viewer.stage.generation(), 1, "the new model is uploaded");
    assert_eq!(viewer.stage.transport.clip(), Some(wave));
    assert!((viewer.stage.transport.time_secs() - 1.2).abs() < 1e-6);
    assert_eq!(viewer.stage.tuning.ragdoll.ramp_rate_per_sec, 9.0);
}

/// `KHR_animation_pointer` property tracks of the playing clip are plotted in the curves panel,
/// sampled like `animtune sample` prints them.
#[test]
fn curves_panel_plots_pointer_property_tracks() {
    let mut model = built_in_model();
    let clip = anim::ClipId::new(0);
    let end = model[clip].end_secs();
    model.pointer_tracks.resize(model.clips().len(), Vec::new());
    model.pointer_tracks[clip.index()].push(anim::PointerTrack {
        pointer: "/materials/0/pbrMetallicRoughness/baseColorFactor".to_owned(),
        target: anim::PointerTarget::BaseColorFactor { material: 0 },
        interpolation: anim::Interpolation::Linear,
        times_secs: vec![0.0, end],
        values: vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
        channel: 99,
    });
    let mut viewer = Viewer::new(model, ModelSource::built_in());
    assert_eq!(viewer.stage.transport.clip(), Some(clip));
    let curves = crate::ui::pointer_curves::pointer_curves(viewer.stage.model(), clip);
    assert_eq!(curves.len(), 1);
    assert_eq!(curves[0].samples.len(), 4, "one curve per component");
    let middle = curves[0].samples[0][curves[0].samples[0].len() / 2];
    assert!((middle[1] - 0.5).abs() < 1e-3, "red halfway through the clip: {middle:?}");
    // The frame output samples the animated material for the renderer.
    viewer.compute_frame();
    assert!(viewer.stage.frame().properties().is_some(), "the frame carries the animated material values");
    let mut harness = whole(viewer, [1280.0, 2600.0]);
    harness.run();
    harness.get_by_label("pointer properties (1): KHR_animation_pointer");
    harness.get_by_label("/materials/0/pbrMetallicRoughness/baseColorFactor");
}

/// Model-space matrices of a pose of the viewer's model.
fn world(viewer: &Viewer, pose: &anim::SoaPose) -> Vec<glam::Affine3A> {
    let mut m = vec![glam::Affine3A::IDENTITY; pose.len()];
    viewer.stage.model().hierarchy.local_to_model(pose, &mut anim::LocalMatrices::default(), &mut m);
    m
}

/// A region picked in the joint tree goes limp while the rest keeps walking; a powered
/// handoff plots its strength falling next to `ragdoll_weight`.
#[test]
fn the_region_comes_from_the_joint_tree_and_the_strength_is_plotted() {
    let mut v = viewer();
    v.stage.transport.select_clip(anim::ClipId::new(1));
    let arm = node(&v, "UpperArm.L");
    v.stage.select_joint(Some(arm));
    v.compute_frame();
    let mut harness = whole(v, [1280.0, 2800.0]);
    harness.run();
    harness.get_by_label("Region: selected joint").click();
    harness.run();
    assert_eq!(harness.state().stage.tuning.ragdoll.region, Some(arm));
    harness.get_by_label("Go limp").click();
    harness.run();
    let v = harness.state_mut();
    for _ in 0..60 {
        v.step(1.0 / 60.0);
    }
    let (shown, animated) = (world(v, v.stage.frame().shown()), world(v, v.stage.frame().animated()));
    for name in ["Foot.L", "Head", "Hand.R"] {
        let n = node(v, name);
        let d = glam::Vec3::from(shown[n.index()].translation).distance(animated[n.index()].translation.into());
        assert!(d < 1e-4, "{name} left the walk by {d} m");
    }
    let hand = node(v, "Hand.L");
    assert!(
        glam::Vec3::from(shown[hand.index()].translation).distance(animated[hand.index()].translation.into()) > 0.05
    );

    // Whole body again, powered, going limp at 2/s: the plot's second series falls 1 → 0.
    harness.get_by_label("Whole body").click();
    harness.run();
    let v = harness.state_mut();
    assert_eq!(v.stage.tuning.ragdoll.region, None);
    let ragdoll =
        RagdollTuning { motor_strength: 1.0, limp_rate_per_sec: 2.0, pin_pelvis: true, ..v.stage.tuning.ragdoll };
    v.stage.set_ragdoll_tuning(ragdoll);
    v.stage.ragdoll.history.clear();
    assert!(v.go_limp());
    for _ in 0..45 {
        v.step(1.0 / 60.0);
    }
    let strengths: Vec<f64> = v.stage.ragdoll.history.iter().map(|r| r[2]).collect();
    assert!(strengths.iter().any(|&s| s > 0.9) && strengths.last() == Some(&0.0), "{strengths:?}");
    assert!(strengths.windows(2).all(|w| w[1] <= w[0] + 1e-9), "the strength only falls");
    harness.run();
    // The slider and the plot's legend entry.
    assert!(harness.query_all_by_label("motor strength").count() >= 2);
}

/// Pushed forward the character falls on its face and gets up with the face-down clip,
/// placed where it lies and turned the way it will stand; pushed back, the face-up one.
#[test]
fn get_up_picks_the_clip_for_how_the_body_lies() {
    for (forward, expected_clip, facing) in
        [(true, anim::ClipId::new(2), "face-down"), (false, anim::ClipId::new(0), "face-up")]
    {
        let mut v = viewer();
        v.stage.transport.select_clip(anim::ClipId::new(0));
        v.stage.transport.play();
        let ragdoll = RagdollTuning {
            get_up_clip: anim::ClipId::new(0),
            get_up_clip_face_down: Some(anim::ClipId::new(2)),
            push_newton_secs: 60.0,
            ..v.stage.tuning.ragdoll
        };
        v.stage.set_ragdoll_tuning(ragdoll);
        v.stage.select_joint(Some(node(&v, "Chest")));
        // Push along the character's front (+Z) or its back.
        v.viewport.camera.yaw_rad = if forward { std::f32::consts::PI } else { 0.0 };
        v.compute_frame();
        let mut harness = whole(v, [1280.0, 2800.0]);
        harness.run();
        harness.get_by_label("Go limp").click();
        harness.run();
        let v = harness.state_mut();
        for _ in 0..150 {
            v.step(1.0 / 60.0);
        }
        let lying = world(v, v.stage.frame().shown())[0].translation;
        harness.run();
        harness.get_by_label("Get up").click();
        harness.run();
        let v = harness.state_mut();
        let status = v.stage.ragdoll.status.clone().unwrap_or_default();
        assert!(status.contains(facing), "pushed forward {forward}: {status}");
        assert_eq!(v.stage.transport.clip(), Some(expected_clip), "{status}");
        v.compute_frame();
        let standing = world(v, v.stage.frame().animated())[0].translation;
        let apart = glam::Vec3::new(standing.x - lying.x, 0.0, standing.z - lying.z).length();
        assert!(apart < 0.02, "the clip starts {apart} m from where the pelvis lies");
        for _ in 0..120 {
            v.step(1.0 / 60.0);
        }
        assert_eq!(v.stage.ragdoll.phase(), crate::physics::Phase::Animated);
        assert!(v.stage.frame().shown().is_finite());
    }
}
