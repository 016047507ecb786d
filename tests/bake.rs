//! `animtune bake`: the written file is valid glTF (Khronos validator, 0 errors), its clip
//! sampled as authored gives what the viewer shows with the override (`Clip::sample` with the
//! override's settings, the viewer's path) within 1e-4 at many times, the rest of the document
//! is kept, and compressed inputs (meshopt, Draco) keep their compressed data.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use anim::export::replace_clip;
use anim::{ClipCursor, InterpolationOverride, Model, SampleSettings};
use devtools::TempDir;
use devtools::ci::validate_gltf;
use devtools::variants::{self, Variant};
use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");
const MODES: [InterpolationOverride; 3] =
    [InterpolationOverride::Step, InterpolationOverride::Linear, InterpolationOverride::Cubic];

/// Run `animtune bake` with `args`; the JSON report, or the error text.
fn bake(args: &[&str]) -> Result<Value, String> {
    let output = Command::new(ANIMTUNE).arg("bake").args(args).args(["--format", "json"]).output().unwrap();
    if output.status.success() {
        Ok(serde_json::from_slice(&output.stdout).unwrap())
    } else {
        assert!(output.stdout.is_empty());
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Largest difference between `original`'s clip with `settings` (the viewer's sampling) and
/// `baked`'s clip as authored, over every node and weight, at 1001 times over the clip plus every
/// key time and the midpoints between keys. Rotations compare up to sign.
fn deviation(original: &Model, baked: &Model, clip: usize, settings: &SampleSettings) -> f32 {
    let (a, b) = (&original.clips()[clip], &baked.clips()[clip]);
    let end = a.end_secs();
    let mut times: Vec<f32> = (0..=1000).map(|i| end * i as f32 / 1000.0).collect();
    for keys in a.timelines().iter().map(|t| &t.times_secs) {
        times.extend(keys);
        times.extend(keys.windows(2).map(|w| 0.5 * (w[0] + w[1])));
    }
    let rest = original.rest_pose();
    let (mut pa, mut pb) = (rest.clone(), rest.clone());
    let (mut ca, mut cb) = (ClipCursor::new(a), ClipCursor::new(b));
    let mut worst = 0.0_f32;
    for t in times {
        pa.copy_from(&rest);
        pb.copy_from(&rest);
        a.sample(t, &mut ca, settings, &mut pa);
        b.sample(t, &mut cb, &SampleSettings::AUTHORED, &mut pb);
        for ((_, x), (_, y)) in pa.nodes().zip(pb.nodes()) {
            let (qa, qb) = (glam::Vec4::from(x.rotation), glam::Vec4::from(y.rotation));
            let d = [
                (x.translation - y.translation).abs().max_element(),
                (x.scale - y.scale).abs().max_element(),
                (qa - qb).abs().max_element().min((qa + qb).abs().max_element()),
            ];
            worst = d.into_iter().fold(worst, |w, v| if v.is_nan() { f32::INFINITY } else { w.max(v) });
        }
        for (x, y) in pa.weights().iter().zip(pb.weights()) {
            worst = worst.max((x - y).abs());
        }
    }
    worst
}

/// The validator's error count, after printing any errors; `None` when it is not installed
/// (skipped, or a failure under CI).
fn validator_errors(path: &Path) -> Option<u64> {
    let report = validate_gltf(path)?;
    for m in report["messages"].as_array().into_iter().flatten().filter(|m| m["severity"] == "error") {
        println!("{}: {m}", path.display());
    }
    Some(report["errors"].as_u64().unwrap())
}

/// How many accessors animation `animation`'s samplers read (none shared with other objects
/// in the built-in character).
fn keys_of_animation(json: &Value, animation: usize) -> usize {
    let mut keys: Vec<u64> = json["animations"][animation]["samplers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| [s["input"].as_u64().unwrap(), s["output"].as_u64().unwrap()])
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

/// The validator's messages about objects nothing uses (`UNUSED_OBJECT`).
fn unused_objects(path: &Path) -> Option<Vec<Value>> {
    let report = validate_gltf(path)?;
    Some(report["messages"].as_array().unwrap().iter().filter(|m| m["code"] == "UNUSED_OBJECT").cloned().collect())
}

fn gltf_json(glb: &[u8]) -> Value {
    devtools::gltf::unpack_glb(glb).unwrap().0
}

#[test]
fn every_clip_of_the_built_in_character_bakes_to_what_the_override_shows() {
    let source = devtools::ci::repo_root().join("assets/mannequin.glb");
    let bytes = std::fs::read(&source).unwrap();
    let model = anim::import::load_slice(&bytes, None).unwrap();
    assert!(model.clips().len() >= 8);
    let original_json = gltf_json(&bytes);
    for (c, clip) in model.clips().iter().enumerate() {
        for mode in MODES {
            let settings = SampleSettings::with_mode(mode);
            let raw = anim::bake::bake_clip(clip, &settings).unwrap();
            let glb = replace_clip(&bytes, None, c, &raw, &anim::import::Limits::default()).unwrap();
            let baked = anim::import::load_slice(&glb, None).unwrap();
            let d = deviation(&model, &baked, c, &settings);
            assert!(d < 1e-4, "{} {mode:?}: {d}", clip.display_name(c));
            // The baked clip's samplers are all in the mode; the rest is kept.
            assert!(baked.clips()[c].tracks().iter().all(|t| t.interpolation == mode.resolve(t.interpolation)));
            assert_eq!(baked.meshes(), model.meshes());
            assert_eq!(baked.skins(), model.skins());
            assert_eq!(baked.nodes(), model.nodes());
            for other in (0..model.clips().len()).filter(|&o| o != c) {
                assert_eq!(baked.clips()[other], model.clips()[other]);
            }
            let json = gltf_json(&glb);
            for key in ["nodes", "meshes", "skins", "materials", "scenes", "scene", "asset"] {
                assert_eq!(json[key], original_json[key], "{key}");
            }
            // The clip's old keys are gone, with their views and bytes: one accessor per
            // timeline and per channel, and nothing else added.
            let count = |j: &Value, key: &str| j[key].as_array().map_or(0, Vec::len);
            let old_keys = keys_of_animation(&original_json, c);
            let new_keys = raw.timelines.len() + raw.tracks.len();
            assert_eq!(count(&json, "accessors"), count(&original_json, "accessors") - old_keys + new_keys);
            assert_eq!(count(&json, "bufferViews"), count(&original_json, "bufferViews") - old_keys + new_keys);
        }
    }
}

#[test]
fn the_command_writes_a_valid_file_and_reports_its_difference() {
    let dir = TempDir::new("bake-cli");
    let source = devtools::ci::repo_root().join("assets/mannequin.glb");
    let model = anim::import::load_path(&source).unwrap();
    let walk = model.find_clip("Walk").unwrap().index();
    for mode in MODES {
        let out = dir.path().join(format!("walk-{}.glb", mode.name()));
        let report = bake(&[
            source.to_str().unwrap(),
            "--clip",
            "Walk",
            "--interpolation",
            mode.name(),
            "--out",
            out.to_str().unwrap(),
        ])
        .unwrap();
        assert!(report["max_deviation"]["rotation"].as_f64().unwrap() < 1e-4, "{report}");
        assert!(report["checked_times"].as_u64().unwrap() > 2000);
        let baked = anim::import::load_path(&out).unwrap();
        assert!(deviation(&model, &baked, walk, &SampleSettings::with_mode(mode)) < 1e-4);
        if let Some(errors) = validator_errors(&out) {
            assert_eq!(errors, 0, "{}", out.display());
        }
        // The replaced keys went with their views and bytes.
        if let Some(unused) = unused_objects(&out) {
            assert!(unused.is_empty(), "{}: {unused:?}", out.display());
        }
    }

    // A baked file baked again (as an artist iterates) does not grow.
    let once = dir.path().join("walk-cubic.glb");
    let twice = dir.path().join("walk-cubic-again.glb");
    let args = ["--clip", "Walk", "--interpolation", "cubic", "--out"];
    bake(&[&[once.to_str().unwrap()][..], &args, &[twice.to_str().unwrap()]].concat()).unwrap();
    let (size_once, size_twice) = (std::fs::metadata(&once).unwrap().len(), std::fs::metadata(&twice).unwrap().len());
    assert!(size_once.abs_diff(size_twice) <= 16, "{size_once} then {size_twice} bytes");
    let source_size = std::fs::metadata(&source).unwrap().len();
    println!("built-in character {source_size} bytes, baked Walk cubic {size_once}, baked again {size_twice}");

    // A teaching mode is not a glTF curve: refused without --resample, resampled with it.
    let out = dir.path().join("walk-nlerp.glb");
    let args = [source.to_str().unwrap(), "--clip", "Walk", "--interpolation", "linear", "--rotation-space", "nlerp"];
    let error = bake(&[&args[..], &["--out", out.to_str().unwrap()]].concat()).unwrap_err();
    assert!(error.contains("rotation space \"nlerp\"") && error.contains("--resample"), "{error}");
    assert!(!out.exists());
    let report = bake(&[&args[..], &["--resample", "60", "--out", out.to_str().unwrap()]].concat()).unwrap();
    let rotation = report["max_deviation"]["rotation"].as_f64().unwrap();
    // nlerp's speed differs from slerp's by O(angle³) per segment; at 60 fps LINEAR keys follow it
    // to well under a thousandth, and exactly at the keys.
    assert!(rotation < 1e-3, "{report}");
    let settings = SampleSettings {
        rotation_space: anim::RotationSpace::Nlerp,
        ..SampleSettings::with_mode(InterpolationOverride::Linear)
    };
    let baked = anim::import::load_path(&out).unwrap();
    let keys = &baked.clips()[walk].timelines()[0].times_secs;
    assert!(keys.len() > 60, "{} keys", keys.len());
    assert!((deviation(&model, &baked, walk, &settings) - rotation as f32).abs() < 1e-3);
    if let Some(errors) = validator_errors(&out) {
        assert_eq!(errors, 0);
    }

    let error =
        bake(&[source.to_str().unwrap(), "--clip", "Nope", "--interpolation", "step", "--out", "x.glb"]).unwrap_err();
    assert!(error.contains("clip \"Nope\" not found") && error.contains("Walk"), "{error}");
}

#[test]
fn external_files_are_embedded_and_compressed_data_is_kept() {
    let dir = TempDir::new("bake-files");
    let mut inputs = Vec::new();
    // A .gltf with external .bin files, and one with external PNG textures.
    for relative in ["SimpleSkin/SimpleSkin.gltf", "AnimatedCube/AnimatedCube.gltf"] {
        let Some(path) = devtools::ci::shared_model_path(relative) else { return };
        inputs.push((path, None));
    }
    if let Some(tool) = variants::gltf_transform() {
        let source = variants::source("CesiumMan/CesiumMan.glb").unwrap();
        for variant in [Variant::Meshopt, Variant::Draco] {
            inputs.push((variants::variant(&tool, &source, variant), Some(variant)));
        }
    }
    for (input, variant) in inputs {
        let model = decode::load_path(&input, &anim::import::Limits::default()).unwrap();
        let out = dir.path().join(format!("{}.glb", input.file_stem().unwrap().to_string_lossy()));
        bake(&[input.to_str().unwrap(), "--clip", "0", "--interpolation", "cubic", "--out", out.to_str().unwrap()])
            .unwrap();
        // Self-contained: it loads from memory, without its folder.
        let glb = std::fs::read(&out).unwrap();
        let baked = decode::load_slice(&glb, None, &anim::import::Limits::default()).unwrap();
        let d = deviation(&model, &baked, 0, &SampleSettings::with_mode(InterpolationOverride::Cubic));
        assert!(d < 1e-4, "{}: {d}", input.display());
        assert_eq!(baked.meshes(), model.meshes(), "{}", input.display());
        assert_eq!(baked.images.len(), model.images.len());
        let json = gltf_json(&glb);
        assert_eq!(json["buffers"][0].get("uri"), None);
        assert!(json["images"].as_array().into_iter().flatten().all(|i| i.get("uri").is_none()));
        if let Some(variant) = variant {
            let used = json["extensionsUsed"].as_array().unwrap();
            assert!(used.iter().any(|e| e == variant.extension()), "{variant:?}: {used:?}");
            assert_eq!(json["extensionsRequired"], gltf_json(&std::fs::read(&input).unwrap())["extensionsRequired"]);
        }
        if let Some(errors) = validator_errors(&out) {
            assert_eq!(errors, 0, "{}", out.display());
        }
        // Nothing unused but the Draco views (the validator does not read KHR_draco_mesh_compression,
        // so it cannot see them used; the source reports the same).
        if let Some(unused) = unused_objects(&out) {
            let draco_views: Vec<String> = json["meshes"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|m| m["primitives"].as_array().unwrap())
                .filter_map(|p| p.pointer("/extensions/KHR_draco_mesh_compression/bufferView")?.as_u64())
                .map(|v| format!("/bufferViews/{v}"))
                .collect();
            assert!(
                unused.iter().all(|m| draco_views.iter().any(|v| m["pointer"] == *v)),
                "{}: {unused:?}",
                out.display()
            );
        }
    }
}
