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
