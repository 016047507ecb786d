//! Helpers shared by the root integration tests (each test file is its own crate and uses only
//! some of them).
#![allow(dead_code)]

pub mod variants;

use std::path::{Path, PathBuf};

use anim::Model;

/// The public sample models, beside the checkout.
pub const SHARED_MODELS: &str = "../shared/models";

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Import a model or fail the test naming the file.
pub fn load(path: &Path) -> Model {
    anim::import::load_path(path).unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()))
}

/// The shared models folder, or `None` (with a note naming `what` is skipped) when it is
/// missing; under `CI=true` a missing folder fails the test instead.
pub fn shared_models(what: &str) -> Option<PathBuf> {
    let dir = repo_root().join(SHARED_MODELS);
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{SHARED_MODELS} not found ({}); it is required under CI=true",
        dir.display()
    );
    println!("note: {SHARED_MODELS} not found; skipping {what}");
    None
}

/// True when every command in `tools` is on the PATH; otherwise `false` with a note naming
/// `what` is skipped (install them with `scripts/install-test-deps.sh`). Under `CI=true` a
/// missing tool fails the test instead.
pub fn have_tools(tools: &[&str], what: &str) -> bool {
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|tool| {
            !std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("command -v {tool}"))
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!("{what} skipped: missing {} (scripts/install-test-deps.sh)", missing.join(", "));
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}; required under CI=true");
    println!("note: {message}");
    false
}

/// The `.glb` at `path` with its scenes put under one new root node scaled by `scale` (how
/// centimetre FBX and Mixamo exports arrive); the original node indices stay valid.
pub fn scaled_glb(path: &Path, scale: f32) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let chunk = |offset: usize| {
        let len = u32::from_le_bytes(bytes[offset..offset + 4].try_into().expect("4 bytes")) as usize;
        &bytes[offset + 8..offset + 8 + len]
    };
    assert_eq!(&bytes[..4], b"glTF", "{} is not a GLB", path.display());
    let json_chunk = chunk(12);
    let bin_offset = 12 + 8 + json_chunk.len();
    let bin = if bin_offset < bytes.len() { chunk(bin_offset).to_vec() } else { Vec::new() };
    let mut json: serde_json::Value = serde_json::from_slice(json_chunk).expect("GLB JSON");
    let root = json["nodes"].as_array().map_or(0, Vec::len);
    let mut roots: Vec<serde_json::Value> = Vec::new();
    if let Some(scenes) = json["scenes"].as_array_mut() {
        for scene in scenes {
            roots.extend(scene["nodes"].as_array().cloned().unwrap_or_default());
            scene["nodes"] = serde_json::json!([root]);
        }
    }
    let node = serde_json::json!({ "name": "scale", "scale": [scale, scale, scale], "children": roots });
    json["nodes"].as_array_mut().expect("nodes").push(node);
    animtune::mannequin::glb::pack_glb(&serde_json::to_vec(&json).expect("JSON"), &bin)
}

/// [`scaled_glb`], loaded.
pub fn load_scaled(path: &Path, scale: f32) -> Model {
    if scale == 1.0 {
        return load(path);
    }
    anim::import::load_slice(&scaled_glb(path, scale), path.parent())
        .unwrap_or_else(|e| panic!("cannot load {} scaled ×{scale}: {e}", path.display()))
}
