//! Tuning profiles: saved atomically per model, loaded automatically, surviving bad files.

#![allow(clippy::unwrap_used)]

use animtune::profile::{TuningProfile, profile_path};
use animtune::ui::ViewerState;

fn default_state() -> ViewerState {
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    ViewerState::new(model, "assets/mannequin.glb".to_owned())
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("animtune-profile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn tunables_are_saved_per_model_and_loaded_automatically() {
    let dir = temp_dir("roundtrip");
    let mut state = default_state().with_profile_dir(Some(dir.clone()));
    state.settings.mode = anim::InterpolationOverride::Cubic;
    state.settings.rotation_space = anim::RotationSpace::MatrixLerp;
    state.settings.scale_space = anim::ScaleSpace::Log;
    state.fade.from_clip = 1; // Walk
    state.fade.to_clip = 2; // Run
    state.fade.duration_secs = 0.45;
    state.fade.easing = anim::Easing::EaseInOutSine;
    state.trigger_fade();
    state.save_profile_if_changed(true);

    let path = profile_path(&dir, "assets/mannequin.glb");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"mode\": \"cubic\"") && text.contains("\"from\": \"Walk\""), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(Result::ok).collect();
    assert_eq!(leftovers.len(), 1, "the temporary file was renamed away");

    // A fresh viewer on the same model gets everything back, including the pair's fade.
    let mut again = default_state().with_profile_dir(Some(dir.clone()));
    assert_eq!(again.settings.mode, anim::InterpolationOverride::Cubic);
    assert_eq!(again.settings.rotation_space, anim::RotationSpace::MatrixLerp);
    assert_eq!(again.settings.scale_space, anim::ScaleSpace::Log);
    again.fade.from_clip = 1;
    again.fade.to_clip = 2;
    again.recall_transition();
    assert!((again.fade.duration_secs - 0.45).abs() < 1e-6);
    assert_eq!(again.fade.easing, anim::Easing::EaseInOutSine);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_profile_is_reported_and_the_viewer_keeps_its_defaults() {
    let dir = temp_dir("broken");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(profile_path(&dir, "assets/mannequin.glb"), "{ not json").unwrap();
    let state = default_state().with_profile_dir(Some(dir.clone()));
    assert_eq!(state.settings.mode, anim::InterpolationOverride::Authored);
    assert!(state.profile_status.as_deref().unwrap_or("").contains("not loaded"), "{:?}", state.profile_status);
    // Unknown names and clips are skipped, not fatal.
    let mut profile = state.tuning_profile();
    profile.interpolation.mode = "bogus".to_owned();
    profile.transitions.push(animtune::profile::Transition {
        from: "NoSuchClip".to_owned(),
        to: "Walk".to_owned(),
        duration_secs: f32::NAN,
        easing: "smoothstep".to_owned(),
    });
    let mut applied = default_state();
    applied.apply_profile(&profile);
    assert_eq!(applied.settings.mode, anim::InterpolationOverride::Authored);
    assert!(applied.transitions.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_writes_a_loadable_profile() {
    let dir = temp_dir("export");
    let mut state = default_state();
    state.settings.easing = anim::Easing::Smoothstep;
    let path = dir.join("exported.animtune.json");
    state.export_profile(&path).unwrap();
    let profile = TuningProfile::load(&path).unwrap();
    assert_eq!(profile.interpolation.easing, "smoothstep");
    assert_eq!(profile.model, "assets/mannequin.glb");
    let _ = std::fs::remove_dir_all(&dir);
}
