//! A short, deterministic mutation fuzzer on stable Rust, part of the normal test suite (the
//! long runs are the cargo-fuzz targets in `fuzz/`, see docs/robustness.md).
//!
//! Seeds: every `.glb`/`.gltf` in `../shared/models` (skipped with a note when the folder is
//! absent outside CI) and the valid model behind the `tests/bad` corpus. Each input is a seed
//! with one to three mutations from a fixed-seed xorshift generator. Every input must import as
//! `Ok` or `Err` without panicking; what imports is sampled in every interpolation mode at
//! ordinary and hostile times, blended, cross-faded, taken to model space and skinned (palettes
//! and CPU morphing + skinning of every primitive), and every number that comes out must be
//! finite: the importer refuses values beyond `Limits::max_abs_value` (1e9), so no accepted
//! file may overflow. A failing input is written to a temp file whose path the failure message
//! gives.
#![allow(clippy::unwrap_used)]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anim::import::load_slice;
use anim::rng::Rng;
use anim::{
    ClipCursor, ClipId, CrossFader, Easing, InterpolationOverride, LocalMatrices, Model, PreparedSkin, SampleSettings,
    ScaleSpace, SoaPose,
};
use devtools::badfiles;
use glam::{Affine3A, Mat4, Vec3};

/// Mutated inputs per run: a few seconds in the dev profile.
const ITERATIONS: usize = 800;
const RNG_SEED: u64 = 0x5EED_A417_7E57_F022;

struct Seed {
    name: String,
    bytes: Vec<u8>,
    base_dir: Option<PathBuf>,
}

fn seeds() -> Vec<Seed> {
    let mut seeds = vec![
        Seed { name: "generated valid .glb".to_owned(), bytes: badfiles::valid_glb(), base_dir: None },
        Seed { name: "generated valid .gltf".to_owned(), bytes: badfiles::valid_gltf(), base_dir: None },
    ];
    if let Some(models) = devtools::ci::shared_models("the shared-model cases") {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&models)
            .unwrap()
            .filter_map(|e| std::fs::read_dir(e.ok()?.path()).ok())
            .flatten()
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "glb" || e == "gltf"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "no models in {}", models.display());
        for path in files {
            seeds.push(Seed {
                name: path.strip_prefix(&models).unwrap_or(&path).display().to_string(),
                bytes: std::fs::read(&path).unwrap(),
                base_dir: path.parent().map(Path::to_path_buf),
            });
        }
    }
    seeds
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

/// The JSON chunk's byte range of a well-formed-enough GLB, or all of a .gltf.
fn json_range(bytes: &[u8]) -> std::ops::Range<usize> {
    if bytes.starts_with(b"glTF") {
        let len = read_u32(bytes, 12).unwrap_or(0) as usize;
        20.min(bytes.len())..(20 + len).min(bytes.len())
    } else {
        0..bytes.len()
    }
}

/// Replace `range` of a GLB's JSON chunk (or of a .gltf) with `text`, keeping the container's
/// lengths consistent so that the edit reaches the JSON parser.
fn replace_json(bytes: &[u8], range: std::ops::Range<usize>, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + text.len());
    out.extend_from_slice(&bytes[..range.start]);
    out.extend_from_slice(text);
    out.extend_from_slice(&bytes[range.end..]);
    if bytes.starts_with(b"glTF") && bytes.len() >= 20 {
        let json = json_range(bytes);
        if range.start >= json.start && range.end <= json.end {
            let delta = text.len() as i64 - range.len() as i64;
            let json_len = (json.len() as i64 + delta) as u32;
            out[12..16].copy_from_slice(&json_len.to_le_bytes());
            // Pad the JSON chunk back to 4 bytes so the BIN chunk header stays aligned.
            let json_end = 20 + json_len as usize;
            let pad = (4 - json_len as usize % 4) % 4;
            out.splice(json_end..json_end, std::iter::repeat_n(b' ', pad));
            out[12..16].copy_from_slice(&(json_len + pad as u32).to_le_bytes());
            let total = out.len() as u32;
            out[8..12].copy_from_slice(&total.to_le_bytes());
        }
    }
    out
}

const INTERESTING_BYTES: [u8; 4] = [0, 0xFF, 0x7F, 0x80];
const INTERESTING_U32: [u32; 9] = [0, 1, 3, 4, 0x7F, 0xFFFF, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF];
const NUMBER_TOKENS: [&str; 10] = [
    "-1",
    "0",
    "4294967295",
    "18446744073709551616",
    "99999999999999999999",
    "1e308",
    "-1e39",
    "3.4e38",
    "0.0",
    "65536",
];
const KEYWORDS: [&[&str]; 4] = [
    &["LINEAR", "STEP", "CUBICSPLINE"],
    &["translation", "rotation", "scale", "weights"],
    &["SCALAR", "VEC2", "VEC3", "VEC4", "MAT4"],
    &["children", "joints", "nodes", "mesh", "skin", "input", "output", "sampler", "node"],
];

/// Apply one random mutation to `bytes`.
fn mutate(rng: &mut Rng, bytes: &[u8], seeds: &[Seed]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return b"{}".to_vec();
    }
    match rng.below(10) {
        0 => {
            for _ in 0..=rng.below(4) {
                let at = rng.below(out.len());
                out[at] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let at = rng.below(out.len());
            out[at] = rng.pick(&INTERESTING_BYTES);
        }
        2 => {
            // A container length: total, JSON chunk or BIN chunk (or any aligned word).
            let json_end = json_range(&out).end;
            let anywhere = rng.below(out.len()) & !3;
            let at = rng.pick(&[8, 12, json_end, json_end + 4, anywhere]);
            let value = match rng.below(3) {
                0 => rng.pick(&INTERESTING_U32),
                1 => read_u32(&out, at).unwrap_or(0).wrapping_add(rng.below(17) as u32).wrapping_sub(8),
                _ => out.len() as u32,
            };
            if let Some(word) = out.get_mut(at..at + 4) {
                word.copy_from_slice(&value.to_le_bytes());
            }
        }
        3 => out.truncate(rng.below(out.len())),
        4 => {
            // Splice a run of another seed over this one.
            let other = &seeds[rng.below(seeds.len())].bytes;
            let len = rng.below(64.min(other.len()) + 1);
            let from = rng.below(other.len() - len + 1);
            let to = rng.below(out.len() - len.min(out.len()) + 1);
            let end = (to + len).min(out.len());
            out[to..end].copy_from_slice(&other[from..from + (end - to)]);
        }
        5..=7 => {
            // A number in the JSON becomes a hostile one.
            let json = json_range(&out);
            let digits: Vec<usize> = json.clone().filter(|&i| out[i].is_ascii_digit()).collect();
            if digits.is_empty() {
                return out;
            }
            let mut start = rng.pick(&digits);
            while start > json.start && (out[start - 1].is_ascii_digit() || b".-eE+".contains(&out[start - 1])) {
                start -= 1;
            }
            let mut end = start;
            while end < json.end && (out[end].is_ascii_digit() || b".-eE+".contains(&out[end])) {
                end += 1;
            }
            out = replace_json(&out, start..end, rng.pick(&NUMBER_TOKENS).as_bytes());
        }
        8 => {
            // Remove a bracket or brace.
            let json = json_range(&out);
            let brackets: Vec<usize> = json.filter(|&i| b"[]{}".contains(&out[i])).collect();
            if !brackets.is_empty() {
                let at = rng.pick(&brackets);
                out = replace_json(&out, at..at + 1, b"");
            }
        }
        _ => {
            // Swap a keyword for another of its family.
            let family = rng.pick(&KEYWORDS);
            let from = format!("\"{}\"", rng.pick(family));
            let to = format!("\"{}\"", rng.pick(family));
            let json = json_range(&out);
            let hits: Vec<usize> = (json.start..json.end.saturating_sub(from.len()))
                .filter(|&i| out[i..].starts_with(from.as_bytes()))
                .collect();
            if !hits.is_empty() {
                let at = rng.pick(&hits);
                out = replace_json(&out, at..at + from.len(), to.as_bytes());
            }
        }
    }
    out
}

/// Use an imported model every way the per-frame jobs can; `Err` names the first non-finite
/// output.
fn exercise(model: &Model, rng: &mut Rng) -> Result<(), String> {
    let rest = model.rest_pose();
    if !rest.is_finite() {
        return Err("rest pose".to_owned());
    }
    let mut pose = rest.clone();
    let mut previous = rest.clone();
    let mut blended = rest.clone();
    let mut model_from_node = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut locals = LocalMatrices::new(model.nodes().len());
    let skins: Vec<PreparedSkin> = model.skins().iter().map(PreparedSkin::new).collect();
    let mut palette = Vec::new();
    for (c, clip) in model.clips().iter().enumerate() {
        let mut cursor = ClipCursor::new(clip);
        let end = clip.end_secs();
        let times = [
            0.0,
            end * 0.5,
            end,
            end * rng.unit(),
            -1.0,
            end + 1.0,
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            1e30,
            -1e30,
            f32::MAX,
        ];
        for mode in InterpolationOverride::ALL {
            let settings = SampleSettings::with_mode(mode);
            for &t in &times {
                pose.copy_from(&rest);
                clip.sample(t, &mut cursor, &settings, &mut pose);
                if !pose.is_finite() {
                    return Err(format!("clip {c} sampled at {t} s in {} mode", mode.name()));
                }
                let u = rng.unit();
                let weight = rng.pick(&[0.0, 0.5, 1.0, u, f32::NAN, -3.0, 7.0]);
                let space = rng.pick(&[ScaleSpace::Linear, ScaleSpace::Log]);
                anim::blend_poses(&previous, &pose, weight, space, &mut blended);
                if !blended.is_finite() {
                    return Err(format!("blend of clip {c} at {t} s with weight {weight}"));
                }
                std::mem::swap(&mut previous, &mut pose);
            }
        }
    }
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut skin_all = |pose: &SoaPose, what: &str| -> Result<(), String> {
        model.hierarchy.local_to_model(pose, &mut locals, &mut model_from_node);
        if let Some(n) = model_from_node.iter().position(|m| !m.is_finite()) {
            return Err(format!("model-space transform of node {n} ({what})"));
        }
        for (s, skin) in skins.iter().enumerate() {
            palette.clear();
            palette.resize(skin.len(), Mat4::IDENTITY);
            skin.skinning_matrices(&model_from_node, &mut palette);
            if palette.iter().any(|m| !m.is_finite()) {
                return Err(format!("skinning matrices of skin {s} ({what})"));
            }
        }
        // CPU morphing and skinning of every mesh node's primitives, with its skin's palette.
        for (n, node) in model.nodes().iter().enumerate() {
            let Some(mesh) = node.mesh.and_then(|m| model.meshes().get(m)) else { continue };
            let skin = node.skin.and_then(|s| skins.get(s));
            if let Some(skin) = skin {
                palette.clear();
                palette.resize(skin.len(), Mat4::IDENTITY);
                skin.skinning_matrices(&model_from_node, &mut palette);
            }
            let weights = model.node_weights(anim::NodeId::from_index(n), pose);
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                positions.clear();
                positions.resize(primitive.positions.len(), Vec3::ZERO);
                normals.clear();
                normals.resize(if primitive.normals.is_empty() { 0 } else { primitive.positions.len() }, Vec3::ZERO);
                let palette = skin.map(|_| palette.as_slice());
                anim::morph_and_skin(primitive, weights, palette, &mut positions, &mut normals)
                    .map_err(|e| format!("skinning node {n} primitive {p}: {e}"))?;
                if positions.iter().chain(&normals).any(|v| !v.is_finite()) {
                    return Err(format!("CPU-skinned vertices of node {n}, primitive {p} ({what})"));
                }
            }
        }
        Ok(())
    };
    skin_all(&rest, "rest pose")?;
    skin_all(&blended, "blended pose")?;
    if !model.clips().is_empty() {
        let mut fader = CrossFader::new(model, ClipId::from_index(0));
        let settings = SampleSettings::default();
        for step in 0..8 {
            let u = rng.unit();
            let dt = rng.pick(&[0.0, 0.016, 0.25, u, f32::NAN, -1.0, f32::INFINITY, 1e9]);
            fader.advance(dt);
            if step % 3 == 0 {
                let to = ClipId::from_index(rng.below(model.clips().len()));
                let duration = rng.pick(&[0.0, 0.2, f32::NAN, -1.0, f32::INFINITY]);
                fader.trigger(to, duration, rng.pick(&[Easing::Linear, Easing::Smoothstep, Easing::EaseOutQuad]));
            }
            let pose = fader.evaluate(model, &settings);
            if !pose.is_finite() {
                return Err(format!("cross-fade output at step {step} (dt {dt})"));
            }
            let pose = pose.clone();
            skin_all(&pose, "cross-faded pose")?;
        }
    }
    Ok(())
}

/// Save a failing input and return its path for the failure message.
fn save(index: usize, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("animtune-fuzz-smoke-{index}.bin"));
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn mutated_models_import_or_fail_cleanly_and_sample_finitely() {
    let seeds = seeds();
    let mut rng = Rng::new(RNG_SEED);
    let start = Instant::now();
    let mut loaded = 0;
    for index in 0..ITERATIONS {
        let seed = &seeds[index % seeds.len()];
        let mut input = mutate(&mut rng, &seed.bytes, &seeds);
        for _ in 0..rng.below(3) {
            input = mutate(&mut rng, &input, &seeds);
        }
        let mut use_rng = Rng::new(rng.next_u64());
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            load_slice(&input, seed.base_dir.as_deref()).ok().map(|model| exercise(&model, &mut use_rng))
        }));
        match outcome {
            Err(_) => {
                let path = save(index, &input);
                panic!("input {index} (a mutation of {}) panicked; saved to {}", seed.name, path.display());
            }
            Ok(Some(Err(what))) => {
                let path = save(index, &input);
                panic!(
                    "input {index} (a mutation of {}): {what} is not finite; saved to {}",
                    seed.name,
                    path.display()
                );
            }
            Ok(Some(Ok(()))) => loaded += 1,
            Ok(None) => {}
        }
    }
    eprintln!(
        "fuzz smoke: {ITERATIONS} inputs from {} seeds, {loaded} imported and used (every output finite), in {:.2?}",
        seeds.len(),
        start.elapsed()
    );
    // Both outcomes must be common, or the mutations are too weak or too destructive.
    assert!(loaded > ITERATIONS / 20 && loaded < ITERATIONS * 19 / 20, "{loaded} of {ITERATIONS} imported");
}

#[test]
fn unmutated_seeds_import_and_sample_finitely() {
    let mut rng = Rng::new(RNG_SEED);
    for seed in seeds() {
        let model = load_slice(&seed.bytes, seed.base_dir.as_deref()).unwrap_or_else(|e| panic!("{}: {e}", seed.name));
        exercise(&model, &mut rng).unwrap_or_else(|what| panic!("{}: {what} is not finite", seed.name));
    }
}
