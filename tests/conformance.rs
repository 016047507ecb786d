//! Conformance: `animtune sample` against the independent pure-Python glTF 2.0
//! sampling reference in `tests/reference/` (see `gltf_ref.py` and `compare.py`).
//!
//! * `shared_models_match_reference`: every animated model under `../shared/models`.
//!   When that folder is missing it is skipped, except under `CI=true`, where it fails.
//! * `tricky_files_match_reference`: files written by `make_tricky.py` into a fresh
//!   temporary folder (irregular keys, sign flips, normalized ints, sparse, cubic...).
//!
//! Both need `python3` (standard library only).

use std::path::Path;
use std::process::{Command, Output};

use devtools::TempDir;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");
const REFERENCE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference");

fn python(args: &[&str]) -> Output {
    Command::new("python3")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {args:?}: {e} (is python3 installed?)"))
}

fn script(name: &str) -> String {
    Path::new(REFERENCE_DIR).join(name).to_string_lossy().into_owned()
}

/// Runs compare.py with `extra` arguments and asserts that every comparison passed.
fn run_compare(extra: &[&str]) {
    let compare = script("compare.py");
    let mut args = vec![compare.as_str(), "--animtune", ANIMTUNE];
    args.extend_from_slice(extra);
    let out = python(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("{stdout}");
    if !stderr.is_empty() {
        eprintln!("{stderr}");
    }
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(out.status.success(), "animtune disagrees with the glTF reference ({summary}); see the mismatches above");
    assert!(
        summary.ends_with(" passed, 0 failed") && !summary.starts_with("0 passed"),
        "unexpected compare.py summary: {summary:?}"
    );
}

#[test]
fn shared_models_match_reference() {
    let Some(models) = devtools::ci::shared_models("the conformance run on the shared models") else { return };
    run_compare(&["--models", &models.to_string_lossy(), "--no-tricky"]);
}

#[test]
fn tricky_files_match_reference() {
    let dir = TempDir::new("tricky");
    let dir_str = dir.path().to_string_lossy().into_owned();
    let out = python(&[&script("make_tricky.py"), &dir_str]);
    assert!(out.status.success(), "make_tricky.py failed: {}", String::from_utf8_lossy(&out.stderr));
    run_compare(&["--no-models", "--tricky-dir", &dir_str]);
}
