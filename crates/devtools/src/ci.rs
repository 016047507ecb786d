//! The project's one "skip unless CI" rule: a test that lacks something it needs (the shared
//! models, a GPU adapter, Xvfb, the glTF validator) says it was skipped and passes, except under
//! `CI=true`, where a missing prerequisite is a failure.

use std::path::{Path, PathBuf};

/// True under CI (`CI=true`), where nothing may be skipped.
pub fn under_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Skip a test for `reason`: print a note, or panic under `CI=true` (CI must install what the
/// tests need: `scripts/install-test-deps.sh`). Call it, then return from the test.
///
/// # Panics
/// Under `CI=true`.
pub fn skip(reason: &str) {
    assert!(!under_ci(), "CI=true: {reason}; CI must install what the tests need (scripts/install-test-deps.sh)");
    println!("skipped: {reason}");
}

/// True when every command in `tools` is on the `PATH`; otherwise [`skip`]s `what` naming the
/// missing ones and returns false (`scripts/install-test-deps.sh` installs them).
///
/// # Panics
/// Under `CI=true` when one is missing.
pub fn have_tools(tools: &[&str], what: &str) -> bool {
    let on_path = |tool: &&str| {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {tool}"))
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !on_path(t)).collect();
    if missing.is_empty() {
        return true;
    }
    skip(&format!("{what} needs {}", missing.join(", ")));
    false
}

/// The repository root (the workspace folder).
pub fn repo_root() -> PathBuf {
    let devtools = Path::new(env!("CARGO_MANIFEST_DIR"));
    devtools.ancestors().nth(2).unwrap_or(devtools).to_path_buf()
}

/// The public sample models beside the checkout (`../shared/models`), or `None` after
/// [`skip`]ping `what`.
pub fn shared_models(what: &str) -> Option<PathBuf> {
    let dir = repo_root().with_file_name("shared").join("models");
    if dir.is_dir() {
        return Some(dir);
    }
    skip(&format!("{what}: {} not found", dir.display()));
    None
}

/// `relative` inside the shared models, or `None` after [`skip`]ping when it is missing.
pub fn shared_model_path(relative: &str) -> Option<PathBuf> {
    let path = repo_root().with_file_name("shared").join("models").join(relative);
    if path.exists() {
        return Some(path);
    }
    skip(&format!("{} not found", path.display()));
    None
}

/// Every `.glb` and `.gltf` file under `dir`, sorted.
pub fn gltf_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for path in entries.filter_map(|e| Some(e.ok()?.path())) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "glb" || e == "gltf") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The Khronos glTF validator's JSON report on `path` (`scripts/validate-gltf.mjs`, installed into
/// `.tools/` by `scripts/install-test-deps.sh`), or `None` after [`skip`]ping when the validator
/// or node is not available.
///
/// # Panics
/// When the validator runs but cannot read the file, or prints no report.
pub fn validate_gltf(path: &Path) -> Option<serde_json::Value> {
    let root = repo_root();
    if !root.join(".tools/node_modules/gltf-validator/package.json").exists() {
        skip("the glTF validator is not installed in .tools/ (source scripts/install-test-deps.sh)");
        return None;
    }
    let output =
        match std::process::Command::new("node").arg("scripts/validate-gltf.mjs").arg(path).current_dir(&root).output()
        {
            Ok(output) => output,
            Err(e) => {
                skip(&format!("cannot run node for the glTF validator: {e}"));
                return None;
            }
        };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code() != Some(2), "the validator could not run: {stderr}");
    let report =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("bad validator report ({e}): {stdout}\n{stderr}"));
    Some(report)
}
