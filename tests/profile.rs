//! Tuning profiles: one per model identity, saved atomically, loaded automatically, migrated
//! from the per-path files of older versions, surviving bad files.

#![allow(clippy::unwrap_used)]

use anim::{Easing, InterpolationOverride, Model, RotationSpace, ScaleSpace};
use animtune::profile::{ModelIdentity, TuningProfile, legacy_profile_path};
use animtune::stage::tuning::{FadeTuning, Interpolation, RagdollTuning};
use animtune::ui::{ModelSource, Viewer};

fn mannequin() -> Model {
    anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap()
}

fn default_viewer(dir: &std::path::Path) -> Viewer {
    Viewer::new(mannequin(), ModelSource::file(std::path::Path::new("assets/mannequin.glb")))
        .with_config_dir(Some(dir.to_path_buf()))
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("animtune-profile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("profiles")
}

fn clip(viewer: &Viewer, name: &str) -> anim::ClipId {
    viewer.stage.model().find_clip(name).unwrap()
}

#[test]
fn tunables_are_saved_per_identity_and_loaded_automatically() {
    let dir = temp_dir("roundtrip");
    let mut viewer = default_viewer(&dir);
    viewer.stage.tuning.set_interpolation(Interpolation {
        mode: InterpolationOverride::Cubic,
        rotation_space: RotationSpace::MatrixLerp,
        scale_space: ScaleSpace::Log,
        easing: Easing::Linear,
    });
    let (walk, run) = (clip(&viewer, "Walk"), clip(&viewer, "Run"));
    viewer.stage.tuning.set_transition(walk, run, FadeTuning::cross_fade(0.45, Easing::EaseInOutSine));
    viewer.save_on_exit();

    let path = viewer.profile.path().unwrap();
    assert!(path.file_name().unwrap().to_string_lossy().starts_with("Mannequin-"), "{}", path.display());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"mode\": \"cubic\"") && text.contains("\"from\": \"Walk\""), "{text}");
    assert!(text.contains("\"identity\""), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(Result::ok).collect();
    assert_eq!(leftovers.len(), 1, "the temporary file was renamed away");

    // A fresh viewer on the same model gets everything back, including the pair's fade.
    let again = default_viewer(&dir);
    assert_eq!(again.stage.tuning, viewer.stage.tuning);
    let fade = again.stage.tuning.fade_for(walk, run);
    assert!((fade.duration_secs - 0.45).abs() < 1e-6);
    assert_eq!(fade.easing, Easing::EaseInOutSine);
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn the_identity_is_the_rig_and_survives_re_exports() {
    let original = mannequin();
    let key = ModelIdentity::of(&original, Some("mannequin")).key;
    // Same rig, re-exported: new animation, a renamed and a dropped clip, moved vertices, another
    // file name — the same identity.
    let mut reexport = original.clone();
    let kept = reexport.clips().len() - 1;
    reexport.replace_clips(original.clips()[..kept].to_vec());
    let first = anim::ClipId::from_index(0);
    let mut renamed = reexport[first].clone().into_raw();
    renamed.name = Some("Idle_v2".to_owned());
    reexport.replace_clip(first, renamed.build().expect("the renamed clip builds")).expect("clip 0");
    for primitive in reexport.primitives_mut() {
        for p in &mut primitive.positions {
            *p *= 1.01;
        }
    }
    assert_eq!(ModelIdentity::of(&reexport, Some("character_final_v3")).key, key);
    assert_eq!(ModelIdentity::of(&original, None).name, "Mannequin");
    // Another rig: a joint renamed.
    let mut other = original.clone();
    let hand = other.node_ids().find(|&n| other[n].name.as_deref() == Some("Hand.L")).unwrap();
    other.set_node_name(hand, Some("LeftHand".to_owned()));
    assert_ne!(ModelIdentity::of(&other, Some("mannequin")).key, key);
    // Unnamed rigs are told apart by their file.
    let mut unnamed = original.clone();
    for id in unnamed.node_ids() {
        unnamed.set_node_name(id, None);
    }
    for skin in 0..unnamed.skins().len() {
        unnamed.set_skin_name(skin, None);
    }
    assert_ne!(ModelIdentity::of(&unnamed, Some("a")).key, ModelIdentity::of(&unnamed, Some("b")).key);
}

#[test]
fn a_profile_of_an_older_version_is_migrated() {
    let dir = temp_dir("legacy");
    std::fs::create_dir_all(&dir).unwrap();
    let mut tuned = default_viewer(&dir);
    let ragdoll = RagdollTuning { ramp_rate_per_sec: 4.0, ..tuned.stage.tuning.ragdoll };
    tuned.stage.set_ragdoll_tuning(ragdoll);
    let mut legacy = tuned.profile.profile_of(&tuned.stage.tuning, tuned.stage.model());
    legacy.format = 1;
    legacy.identity = None;
    legacy.save_atomic(&legacy_profile_path(&dir, "assets/mannequin.glb")).unwrap();
    let mut viewer = default_viewer(&dir);
    assert_eq!(viewer.stage.tuning.ragdoll.ramp_rate_per_sec, 4.0);
    assert!(viewer.profile.status.starts_with("migrated from"), "{}", viewer.profile.status);
    viewer.save_on_exit();
    assert!(viewer.profile.path().unwrap().exists(), "written under the identity's name");
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn a_broken_profile_is_reported_kept_and_the_viewer_uses_authored_settings() {
    let dir = temp_dir("broken");
    std::fs::create_dir_all(&dir).unwrap();
    let path = ModelIdentity::of(&mannequin(), None).profile_path(&dir);
    std::fs::write(&path, "{ not json").unwrap();
    let mut viewer = default_viewer(&dir);
    assert_eq!(viewer.stage.tuning.interpolation().mode, InterpolationOverride::Authored);
    assert!(viewer.profile.status.contains("not loaded"), "{}", viewer.profile.status);
    // The first save keeps the broken file aside instead of losing it.
    let ragdoll = RagdollTuning { push_newton_secs: 5.0, ..viewer.stage.tuning.ragdoll };
    viewer.stage.set_ragdoll_tuning(ragdoll);
    viewer.save_on_exit();
    let mut aside = path.clone().into_os_string();
    aside.push(".unreadable");
    assert_eq!(std::fs::read_to_string(aside).unwrap(), "{ not json");
    // Unknown names and clips are skipped and listed, not fatal.
    let mut profile = viewer.profile.profile_of(&viewer.stage.tuning, viewer.stage.model());
    profile.interpolation.mode = "bogus".to_owned();
    profile.transitions.push(animtune::profile::Transition::fade("NoSuchClip", "Walk", f32::NAN, "smoothstep"));
    let (tuning, fit) = profile.to_tuning(viewer.stage.model());
    assert_eq!(tuning.interpolation().mode, InterpolationOverride::Authored);
    assert_eq!(tuning.transitions().count(), 0);
    assert_eq!(fit.skipped.len(), 2, "{fit:?}");
    assert!(fit.summary().contains("NoSuchClip"), "{}", fit.summary());
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn export_writes_a_loadable_profile() {
    let dir = temp_dir("export");
    let mut viewer = Viewer::new(mannequin(), ModelSource::built_in());
    viewer.stage.tuning.set_interpolation(Interpolation { easing: Easing::Smoothstep, ..Interpolation::AUTHORED });
    let path = dir.join("exported.animtune.json");
    let (tuning, model) = (viewer.stage.tuning.clone(), viewer.stage.model().clone());
    viewer.profile.export(&tuning, &model, &path);
    let profile = TuningProfile::load(&path).unwrap();
    assert_eq!(profile.interpolation.easing, "smoothstep");
    assert_eq!(profile.model, "built-in character");
    assert_eq!(profile.identity.as_deref(), Some(ModelIdentity::of(&model, None).key_hex().as_str()));
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}
