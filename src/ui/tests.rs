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
    let track = &clip.tracks[data.track];
    assert_eq!(Some(track.node), viewer.state.selected_joint);
    assert_eq!(track.property(), viewer.state.selected_property);
    let key_count = clip.timelines[track.timeline].times_secs.len();
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
    let data = super::curves::curve_data(&state, node, state.selected_property, InterpolationOverride::Cubic)
        .expect("curve data");
    let largest_jump = |series: &Vec<Vec<[f64; 2]>>| {
        series.iter().flat_map(|v| v.windows(2).map(|w| (w[1][1] - w[0][1]).abs())).fold(0.0f64, f64::max)
    };
    assert!(largest_jump(&data.primary_velocity) > largest_jump(&data.overlay_velocity));
}
