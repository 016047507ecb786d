//! Panel tests: `egui_kittest` drives the real [`ViewerState`] through the panels (no window, no
//! GPU: the viewport shows its placeholder).

use anim::InterpolationOverride;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use super::state::FadeRequest;
use super::{ViewerState, ViewerUi};

fn state() -> ViewerState {
    let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
    ViewerState::new(model, "built-in character".to_owned())
}

/// The viewer state and the panels, as one harness state.
struct Viewer {
    state: ViewerState,
    ui: ViewerUi,
}

fn viewer() -> Viewer {
    Viewer { state: state(), ui: ViewerUi::default() }
}

#[test]
fn clicking_trigger_starts_a_fade() {
    let mut viewer = viewer();
    viewer.state.fade = FadeRequest { to_clip: 1, ..viewer.state.fade };
    let mut harness = Harness::builder()
        .with_size([420.0, 420.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.crossfade.crossfade_ui(ui, &mut v.state), viewer);
    harness.run();
    assert!(!harness.state().state.fader.is_fading());
    harness.get_by_label("Trigger").click();
    harness.run();
    let state = &harness.state().state;
    assert!(state.fader.is_fading(), "Trigger should start a cross-fade");
    assert_eq!(state.clip, Some(1));
}

#[test]
fn changing_the_override_changes_the_pose() {
    let mut viewer = viewer();
    viewer.state.playing = false;
    let mid_segment = viewer.state.duration_secs() * 0.37;
    viewer.state.seek(mid_segment);
    let before = viewer.state.pose.clone();
    let mut harness = Harness::builder()
        .with_size([420.0, 420.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.interpolation.interpolation_ui(ui, &mut v.state), viewer);
    harness.run();
    harness.get_by_label("override").click();
    harness.run();
    harness.get_by_label(InterpolationOverride::Step.name()).click();
    harness.run();
    let state = &harness.state().state;
    assert_eq!(state.settings.mode, InterpolationOverride::Step);
    assert_ne!(state.pose, before, "STEP between keys must give another pose");
}

/// The shared test models, when this checkout has them (`../shared/models`); under CI a
/// missing folder fails instead of skipping.
fn shared_model(relative: &str) -> Option<std::path::PathBuf> {
    devtools::ci::shared_model_path(relative)
}

#[test]
fn a_failed_load_keeps_the_model_and_shows_the_error() {
    let viewer = viewer();
    let nodes = viewer.state.model.nodes.len();
    let mut harness = Harness::builder()
        .with_size([1200.0, 800.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.viewer_ui(ui, &mut v.state), viewer);
    harness.run();
    harness.state_mut().ui.open_path = "/no/such/model.glb".to_owned();
    harness.run();
    harness.get_by_label("Load").click();
    harness.run();
    harness.state_mut().state.wait_for_loading();
    harness.run();
    let state = &harness.state().state;
    assert_eq!(state.model.nodes.len(), nodes);
    assert_eq!(state.model_generation, 0, "the model must not be replaced");
    let error = state.error.clone().expect("an error is recorded");
    assert!(error.contains("/no/such/model.glb"), "{error}");
    harness.get_by_label_contains("Load failed");
}

#[test]
fn the_curve_panel_plots_key_markers_for_the_selected_channel() {
    let viewer = viewer();
    let mut harness = Harness::builder()
        .with_size([420.0, 600.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.curves.curves_ui(ui, &mut v.state), viewer);
    harness.run();
    let viewer = harness.state();
    let data = viewer.ui.curves.last.as_ref().expect("curve data");
    let clip = &viewer.state.model.clips[viewer.state.clip.expect("clip")];
    let track = &clip.tracks()[data.track];
    assert_eq!(Some(track.node.index()), viewer.state.selected_joint);
    assert_eq!(track.property(), viewer.state.selected_property);
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
    let mut state = state();
    state.settings.mode = InterpolationOverride::Linear;
    let node = state.selected_joint.expect("a joint");
    let data = super::curves::curve_data(&state, node, state.selected_property, InterpolationOverride::Cubic, false)
        .expect("curve data");
    let largest_jump = |series: &Vec<Vec<[f64; 2]>>| {
        series.iter().flat_map(|v| v.windows(2).map(|w| (w[1][1] - w[0][1]).abs())).fold(0.0f64, f64::max)
    };
    assert!(largest_jump(&data.primary_velocity) > largest_jump(&data.overlay_velocity));
}

#[test]
fn go_limp_hands_off_ramps_and_gets_up() {
    let mut viewer = viewer();
    viewer.state.select_clip(1);
    viewer.state.ragdoll.tuning.get_up_clip = 0;
    let mut harness = Harness::builder()
        .with_size([420.0, 700.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.ragdoll.ragdoll_ui(ui, &mut v.state), viewer);
    harness.run();
    assert_eq!(harness.state().state.ragdoll.phase(), crate::physics::Phase::Animated);
    harness.get_by_label("Go limp").click();
    harness.run();
    assert_eq!(harness.state().state.ragdoll.phase(), crate::physics::Phase::Ragdoll);
    // Default ramp 5/s: half weight after 0.1 s, full after 0.2 s (+ one frame).
    let state = &mut harness.state_mut().state;
    for _ in 0..6 {
        state.advance(1.0 / 60.0);
    }
    assert!((state.ragdoll.weight() - 0.5).abs() < 0.02, "weight {}", state.ragdoll.weight());
    for _ in 0..7 {
        state.advance(1.0 / 60.0);
    }
    assert_eq!(state.ragdoll.weight(), 1.0);
    for _ in 0..60 {
        state.advance(1.0 / 60.0);
    }
    assert_ne!(state.pose, *state.animated_pose(), "the ragdoll drives the pose");
    assert!(state.pose.is_finite());
    assert!(state.ragdoll.history.iter().any(|&[_, w, _]| w == 1.0), "the weight plot saw full weight");
    harness.run();
    harness.get_by_label("Get up").click();
    harness.run();
    let state = &mut harness.state_mut().state;
    assert_eq!(state.ragdoll.phase(), crate::physics::Phase::GettingUp);
    assert_eq!(state.clip, Some(0), "gets up into the chosen clip");
    for _ in 0..100 {
        state.advance(1.0 / 60.0);
    }
    assert_eq!(state.ragdoll.phase(), crate::physics::Phase::Animated);
    assert_eq!(state.pose, *state.animated_pose());
    // And it can go limp again at once.
    assert!(state.trigger_ragdoll());
    assert_eq!(state.ragdoll.phase(), crate::physics::Phase::Ragdoll);
}

#[test]
fn ragdoll_tuning_and_channel_overrides_round_trip_through_the_profile() {
    let mut tuned = state();
    tuned.ragdoll.tuning.ramp_rate_per_sec = 12.5;
    tuned.ragdoll.tuning.easing = anim::Easing::Smoothstep;
    tuned.ragdoll.tuning.get_up_clip = 2;
    tuned.ragdoll.tuning.get_up_secs = 1.25;
    tuned.ragdoll.tuning.push_newton_secs = 40.0;
    let track = tuned.selected_track().expect("a selected channel");
    tuned.set_channel_mode(track, Some(InterpolationOverride::Step));
    let profile = tuned.tuning_profile();
    let json = serde_json::to_string_pretty(&profile).expect("json");
    assert!(json.contains("\"ramp_rate_per_sec\": 12.5"), "{json}");
    assert!(json.contains("\"mode\": \"step\""), "{json}");

    let mut fresh = state();
    let parsed: crate::profile::TuningProfile = serde_json::from_str(&json).expect("parse");
    fresh.apply_profile(&parsed);
    assert_eq!(fresh.ragdoll.tuning, tuned.ragdoll.tuning);
    assert_eq!(fresh.channel_modes, tuned.channel_modes);
    assert_eq!(fresh.channel_mode(track), Some(InterpolationOverride::Step));
}

#[test]
fn a_channel_override_changes_only_that_channel() {
    let mut state = state();
    state.playing = false;
    state.seek(state.duration_secs() * 0.37);
    let before = state.pose.clone();
    let node = state.selected_joint.expect("joint");
    let track = state.selected_track().expect("track");
    state.set_channel_mode(track, Some(InterpolationOverride::Step));
    let node = anim::NodeId::from_index(node);
    assert_ne!(state.pose.rotation(node), before.rotation(node), "STEP between keys moves the joint");
    // Other channels keep their value (to rounding: with an override the general sampling path
    // runs instead of the SIMD fast path).
    for other in (0..state.pose.len()).map(anim::NodeId::from_index).filter(|&n| n != node) {
        let (a, b) = (state.pose.rotation(other), before.rotation(other));
        assert!(a.dot(b).abs() > 1.0 - 1e-6, "node {other} must not change: {a} vs {b}");
    }
    state.set_channel_mode(track, None);
    assert_eq!(state.pose, before, "clearing the override is the fast path again, bit for bit");
}

#[test]
fn clicking_near_a_joint_on_screen_selects_it() {
    let mut state = state();
    state.playing = false;
    let view = glam::Vec2::new(800.0, 600.0);
    state.frame_camera(view.x / view.y);
    let mut world = vec![glam::Affine3A::IDENTITY; state.model.nodes.len()];
    state.model.hierarchy.local_to_model(&state.pose, &mut anim::LocalMatrices::default(), &mut world);
    let clip_from_world = state.camera.clip_from_world(view.x / view.y);
    let mut hits = 0;
    let joints: Vec<usize> = state.model.skins[0].joints.iter().map(|j| j.index()).collect();
    for joint in joints {
        let clip = clip_from_world * glam::Vec3::from(world[joint].translation).extend(1.0);
        let ndc = glam::Vec2::new(clip.x, clip.y) / clip.w;
        let pixel = glam::Vec2::new((ndc.x + 1.0) * 0.5 * view.x, (1.0 - ndc.y) * 0.5 * view.y);
        // Joints that overlap on screen (e.g. a chain seen end-on) may pick the nearer one.
        if state.pick_joint(pixel + glam::Vec2::new(3.0, -2.0), view, 14.0) == Some(joint) {
            hits += 1;
        }
    }
    assert!(hits * 10 >= state.model.skins[0].joints.len() * 8, "{hits} joints picked");
    assert_eq!(state.pick_joint(glam::Vec2::new(2.0, 2.0), view, 14.0), None, "a corner is far from every joint");
}

#[test]
fn the_joint_tree_selects_a_node() {
    let mut viewer = viewer();
    // A deep joint selected elsewhere (a click in the 3D view) opens its ancestors in the tree.
    let deep = viewer.state.model.skins[0].joints[3];
    let parent = viewer.state.model.hierarchy.parent(deep).expect("parent").index();
    let deep = deep.index();
    viewer.state.selected_joint = Some(deep);
    let (deep_name, parent_name) = (viewer.state.node_name(deep), viewer.state.node_name(parent));
    let mut harness = Harness::builder()
        .with_size([420.0, 900.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.joints.joints_ui(ui, &mut v.state), viewer);
    harness.run();
    harness.get_by_label_contains(&deep_name);
    harness.get_by_label_contains(&format!("{parent_name} J")).click();
    harness.run();
    assert_eq!(harness.state().state.selected_joint, Some(parent));
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
    let config = std::env::temp_dir().join(format!("animtune-drop-{}", std::process::id()));
    let profiles = config.join("profiles");
    let viewer = Viewer { state: state().with_profile_dir(Some(profiles.clone())), ui: ViewerUi::default() };
    let mut harness = Harness::builder()
        .with_size([1200.0, 800.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.viewer_ui(ui, &mut v.state), viewer);
    harness.run();
    harness.input_mut().dropped_files.push(std::sync::Arc::new(Dropped(fox.clone())));
    harness.step();
    assert!(harness.state().state.loading.is_some(), "the drop starts a background load");
    assert!(harness.state_mut().state.wait_for_loading(), "Fox loads");
    harness.run();
    let state = &harness.state().state;
    assert!(state.model_label.ends_with("Fox.glb"), "{}", state.model_label);
    assert!(state.model.clips.len() >= 3);
    let absolute = std::path::absolute(&fox).expect("absolute");
    assert_eq!(state.recent.paths.first(), Some(&absolute));
    let saved = crate::profile::RecentFiles::load(&crate::profile::recent_files_path(&profiles));
    assert_eq!(saved.paths.first(), Some(&absolute), "File > Recent is persisted");
    let _ = std::fs::remove_dir_all(&config);
}

#[test]
fn background_loading_reports_progress_and_keeps_the_model_until_ready() {
    let Some(robot) = shared_model("RobotExpressive/RobotExpressive.glb") else { return };
    let mut state = state();
    let nodes = state.model.nodes.len();
    state.load(&robot);
    assert_eq!(state.model.nodes.len(), nodes, "the old model stays while loading");
    let stage = state.loading.as_ref().expect("loading").stage();
    assert!(
        matches!(stage, super::loading::LoadStage::Reading(f) if (0.0..=1.0).contains(&f))
            || stage == super::loading::LoadStage::Importing
    );
    assert!(state.loading.as_ref().expect("loading").total_bytes() > 100_000);
    assert!(state.wait_for_loading());
    assert!(state.loading.is_none());
    assert_ne!(state.model.nodes.len(), nodes);
}

#[test]
fn curves_show_tangent_handles_for_cubic_channels_and_angles_in_degrees() {
    let mut state = state();
    let cubic_clip = state
        .model
        .clips
        .iter()
        .position(|c| {
            c.tracks().iter().any(|t| {
                t.interpolation == anim::Interpolation::CubicSpline && t.property() == anim::Property::Rotation
            })
        })
        .expect("the mannequin has a CUBICSPLINE clip");
    state.select_clip(cubic_clip);
    let clip = &state.model.clips[cubic_clip];
    let track = clip
        .tracks()
        .iter()
        .find(|t| t.interpolation == anim::Interpolation::CubicSpline && t.property() == anim::Property::Rotation)
        .expect("track");
    let keys = clip.timelines()[track.timeline].times_secs.len();
    let node = track.node.index();
    let data = super::curves::curve_data(&state, node, anim::Property::Rotation, InterpolationOverride::Linear, false)
        .expect("data");
    // One out-handle per key but the last, one in-handle per key but the first.
    assert_eq!(data.tangent_handles[0].len(), 2 * (keys - 1));
    for handle in &data.tangent_handles[0] {
        assert!(handle.iter().all(|p| p[0].is_finite() && p[1].is_finite()));
        assert_ne!(handle[0][0], handle[1][0], "a handle spans time");
    }
    let angles = super::curves::curve_data(&state, node, anim::Property::Rotation, InterpolationOverride::Linear, true)
        .expect("data");
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
    assert_eq!(data.primary_acceleration.len(), 4);
}

#[test]
fn the_deviation_heatmap_is_hot_where_the_modes_differ() {
    let mut state = state();
    state.playing = false;
    state.compare = Some(super::state::CompareModes {
        left: InterpolationOverride::Step,
        right: InterpolationOverride::Cubic,
        heatmap: true,
        heat_full_scale: 0.02,
        ..Default::default()
    });
    state.seek(state.duration_secs() * 0.41);
    assert_eq!(state.compare_heat.len(), state.model.nodes.len());
    assert!(state.compare_heat.iter().all(|h| (0.0..=1.0).contains(h)));
    let deviation = state.compare_deviation().expect("compare");
    let hottest = state.compare_heat.iter().copied().fold(0.0f32, f32::max);
    let expected = (deviation.max_distance / 0.02).min(1.0);
    assert!((hottest - expected).abs() < 1e-4, "{hottest} vs {expected}");
    assert!(hottest > 0.0);
}

#[test]
fn the_srgb_fade_is_darker_in_the_middle_than_the_linear_one() {
    let [srgb, linear] = super::interpolation::fade_colours([0.95, 0.1, 0.1], [0.1, 0.8, 0.95], 0.5);
    let luma = |c: egui::Color32| {
        let l = |v: u8| super::interpolation::srgb_to_linear(f32::from(v) / 255.0);
        0.2126 * l(c.r()) + 0.7152 * l(c.g()) + 0.0722 * l(c.b())
    };
    assert!(luma(srgb) < luma(linear) * 0.8, "{srgb:?} vs {linear:?}");
    for v in [0.0f32, 0.02, 0.5, 1.0] {
        let round_trip = super::interpolation::linear_to_srgb(super::interpolation::srgb_to_linear(v));
        assert!((round_trip - v).abs() < 1e-5);
    }
}

#[test]
fn the_3d_view_asks_for_physical_pixels_on_high_dpi_screens() {
    let mut sizes = Vec::new();
    for pixels_per_point in [1.0, 2.0] {
        let mut harness = Harness::builder()
            .with_size([1000.0, 700.0])
            .with_pixels_per_point(pixels_per_point)
            .build_ui_state(|ui, v: &mut Viewer| v.ui.viewer_ui(ui, &mut v.state), viewer());
        harness.run();
        sizes.push(harness.state().ui.viewport.size_pixels);
    }
    assert!(sizes[0][0] > 100 && sizes[0][1] > 100, "{sizes:?}");
    assert_eq!([sizes[0][0] * 2, sizes[0][1] * 2], sizes[1]);
}

#[test]
fn a_physics_explosion_falls_back_to_the_animation_and_keeps_model_and_tuning() {
    let mut state = state();
    state.select_clip(1);
    state.ragdoll.tuning.ramp_rate_per_sec = 7.5;
    // Far beyond the slider: billions of metres per second on the pushed bone.
    state.ragdoll.tuning.push_newton_secs = 1e12;
    state.selected_joint =
        state.model.skins[0].joints.iter().map(|j| j.index()).find(|&j| state.node_name(j) == "Head");
    let profile_before = state.tuning_profile();
    let generation = state.model_generation;
    assert!(state.trigger_ragdoll());
    for _ in 0..3 {
        state.advance(1.0 / 60.0);
    }
    assert_eq!(state.ragdoll.phase(), crate::physics::Phase::Animated, "the exploded ragdoll is dropped");
    assert_eq!(state.ragdoll.faults, 1);
    let status = state.ragdoll.status.clone().unwrap_or_default();
    assert!(status.contains("physics fault") && status.contains("Head"), "{status}");
    assert_eq!(state.pose, *state.animated_pose(), "the animation shows");
    assert!(state.pose.is_finite());
    assert_eq!(state.model_generation, generation, "the model is kept");
    assert_eq!(state.tuning_profile(), profile_before, "the tuning is kept");
    // And the next handoff (a sane push) works.
    state.ragdoll.tuning.push_newton_secs = 0.0;
    assert!(state.trigger_ragdoll());
    state.advance(1.0 / 60.0);
    assert_eq!(state.ragdoll.phase(), crate::physics::Phase::Ragdoll);
}

#[test]
fn getting_up_starts_the_clip_where_the_body_lies() {
    let mut state = state();
    state.select_clip(1);
    // A hard push sends the body away from the clip's origin before it settles.
    state.ragdoll.tuning.push_newton_secs = 150.0;
    state.ragdoll.tuning.get_up_clip = 0;
    state.ragdoll.tuning.get_up_secs = 0.5;
    assert!(state.trigger_ragdoll());
    for _ in 0..180 {
        state.advance(1.0 / 60.0);
    }
    let root = state.ragdoll.controller().map(|c| c.spec().bodies[c.spec().root.index()].node).expect("ragdoll");
    let world = |model: &anim::Model, pose: &anim::SoaPose| {
        let mut m = vec![glam::Affine3A::IDENTITY; pose.len()];
        model.hierarchy.local_to_model(pose, &mut anim::LocalMatrices::default(), &mut m);
        glam::Vec3::from(m[root].translation) * glam::Vec3::new(1.0, 0.0, 1.0)
    };
    let lying = world(&state.model, &state.pose);
    assert!(lying.length() > 0.3, "the push moved the body: {lying}");
    assert!(state.ragdoll_get_up());
    let standing = world(&state.model, state.animated_pose());
    assert!(standing.distance(lying) < 0.02, "the clip starts under the body: {standing} vs {lying}");
    assert!(state.placement.offset.length() > 0.3);
    for _ in 0..60 {
        state.advance(1.0 / 60.0);
    }
    assert_eq!(state.ragdoll.phase(), crate::physics::Phase::Animated);
    let profile = state.tuning_profile();
    state.reset_placement();
    assert_eq!(state.placement, anim::ragdoll::Placement::IDENTITY);
    assert_eq!(state.tuning_profile(), profile, "placement is not a tunable");
}

/// `KHR_animation_pointer` property tracks of the playing clip are plotted in the curves panel,
/// sampled like `animtune sample` prints them.
#[test]
fn curves_panel_plots_pointer_property_tracks() {
    let mut viewer = viewer();
    let clip = viewer.state.clip.expect("clip");
    let end = viewer.state.model.clips[clip].end_secs();
    viewer.state.model.pointer_tracks.resize(viewer.state.model.clips.len(), Vec::new());
    viewer.state.model.pointer_tracks[clip].push(anim::PointerTrack {
        pointer: "/materials/0/pbrMetallicRoughness/baseColorFactor".to_owned(),
        target: anim::PointerTarget::BaseColorFactor { material: 0 },
        interpolation: anim::Interpolation::Linear,
        times_secs: vec![0.0, end],
        values: vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
        channel: 99,
    });
    let curves = super::pointer_curves::pointer_curves(&viewer.state, clip);
    assert_eq!(curves.len(), 1);
    assert_eq!(curves[0].samples.len(), 4, "one curve per component");
    let middle = curves[0].samples[0][curves[0].samples[0].len() / 2];
    assert!((middle[1] - 0.5).abs() < 1e-3, "red halfway through the clip: {middle:?}");
    let mut harness = Harness::builder()
        .with_size([420.0, 900.0])
        .build_ui_state(|ui, v: &mut Viewer| v.ui.curves.curves_ui(ui, &mut v.state), viewer);
    harness.run();
    harness.get_by_label("pointer properties (1): KHR_animation_pointer");
    harness.get_by_label("/materials/0/pbrMetallicRoughness/baseColorFactor");
}
