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
