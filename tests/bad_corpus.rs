//! The malformed-file corpus in `tests/bad`: in sync with its generator, every file failing with
//! its expected error quickly (imported as the command line and the viewer import it, with every
//! decoder: the corpus holds hostile Draco streams too), and `animtune info` reporting it in one
//! line on stderr.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anim::ImportError;
use devtools::badfiles::{self, Expected, MANIFEST};

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");
const REGENERATE: &str = "regenerate with `cargo xtask generate bad-corpus` and commit the result";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad")
}

/// `(file name, expectation)` from the checked-in manifest.
fn manifest() -> Vec<(String, Expected)> {
    let text = std::fs::read_to_string(corpus_dir().join(MANIFEST)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (name, expected) = line.split_once('\t').unwrap_or_else(|| panic!("bad manifest line {line:?}"));
            let expected = Expected::parse(expected).unwrap_or_else(|| panic!("bad expectation in {line:?}"));
            (name.to_owned(), expected)
        })
        .collect()
}

/// The variant name of a `Debug`-printed enum value (`Limit { .. }` → `Limit`).
fn variant_name(debug: &str) -> String {
    debug.chars().take_while(char::is_ascii_alphanumeric).collect()
}

fn check(name: &str, error: &ImportError, expected: &Expected) {
    match (error, expected) {
        (ImportError::Invalid { object, problem }, Expected::Invalid { problem: p, kind, index }) => {
            let found = (variant_name(&format!("{problem:?}")), format!("{:?}", object.kind), object.index);
            assert_eq!(found, (p.clone(), kind.clone(), *index), "{name}: got \"{error}\"");
        }
        (ImportError::Glb(message), Expected::Glb(part))
        | (ImportError::Json(message), Expected::Json(part))
        | (ImportError::NotGltf(message), Expected::NotGltf(part)) => {
            assert!(message.contains(part.as_str()), "{name}: \"{message}\" lacks \"{part}\"");
        }
        _ => panic!("{name}: expected {expected:?}, got {error:?} (\"{error}\")"),
    }
}

#[test]
fn checked_in_corpus_matches_the_generator() {
    let dir = corpus_dir();
    let files = badfiles::corpus();
    for file in &files {
        let on_disk = std::fs::read(dir.join(&file.name))
            .unwrap_or_else(|e| panic!("tests/bad/{} cannot be read ({e}): {REGENERATE}", file.name));
        assert!(on_disk == file.bytes, "tests/bad/{} differs from the generator's: {REGENERATE}", file.name);
    }
    let manifest = std::fs::read_to_string(dir.join(MANIFEST)).unwrap_or_default();
    assert_eq!(manifest, badfiles::manifest(&files), "tests/bad/{MANIFEST} is stale: {REGENERATE}");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            name == MANIFEST || files.iter().any(|f| f.name == name),
            "tests/bad/{name} is not part of the corpus: {REGENERATE}"
        );
    }
    let total: usize = files.iter().map(|f| f.bytes.len()).sum();
    assert!(total < 200_000, "the corpus has grown to {total} bytes");
}

#[test]
fn the_valid_model_behind_the_corpus_loads() {
    for bytes in [badfiles::valid_glb(), badfiles::valid_gltf()] {
        let model = anim::import::load_slice(&bytes, None).unwrap();
        assert_eq!((model.nodes().len(), model.skins().len(), model.clips().len()), (4, 1, 1));
        assert_eq!(model.clips()[0].interpolations().len(), 3, "LINEAR, STEP and CUBICSPLINE");
        assert_eq!(model.weight_count, 1);
    }
}

#[test]
fn every_corpus_file_fails_with_its_expected_error_within_a_second() {
    let entries = manifest();
    assert!(entries.len() >= 40, "{} entries", entries.len());
    for (name, expected) in &entries {
        let path = corpus_dir().join(name);
        let start = Instant::now();
        let result = decode::load_path(&path, &anim::import::Limits::default());
        let elapsed = start.elapsed();
        assert!(elapsed < Duration::from_secs(1), "{name} took {elapsed:?} to import");
        match result {
            Ok(_) => panic!("{name} imported, but {expected:?} was expected"),
            Err(error) => check(name, &error, expected),
        }
    }
}

#[test]
fn info_reports_every_corpus_file_on_stderr() {
    for (name, _) in manifest() {
        let path = corpus_dir().join(&name);
        let error = decode::load_path(&path, &anim::import::Limits::default()).err().unwrap();
        let out = Command::new(ANIMTUNE).arg("info").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        // An error exit (1), not an abort or a signal (a failed allocation aborts with 134).
        assert_eq!(out.status.code(), Some(1), "{name}: info exited with {:?}: {stderr}", out.status);
        assert!(stderr.starts_with("error: ") && stderr.lines().count() == 1, "{name}: not one line: {stderr:?}");
        assert!(out.stdout.is_empty(), "{name}: info printed {:?}", String::from_utf8_lossy(&out.stdout));
        assert!(stderr.contains(&error.to_string()), "{name}: stderr {stderr:?} lacks \"{error}\"");
    }
}

/// The hostile Draco files are refused by the decoder's own checks, each error naming what the
/// stream claimed, and quickly: no table or face array of the declared size is ever reserved.
#[test]
fn hostile_draco_files_name_what_the_stream_claimed() {
    for (name, claim) in [
        ("draco_huge_rans_table_indices.glb", "rANS"),
        ("draco_huge_rans_table_values.glb", "rANS"),
        ("draco_face_count_bomb.glb", "declares 1000000000 triangles but the indices accessor holds 3"),
    ] {
        let error = decode::load_path(&corpus_dir().join(name), &anim::import::Limits::default()).err().unwrap();
        let text = error.to_string();
        assert!(text.contains("mesh 0 \"hostile\"") && text.contains(claim), "{name}: {text}");
        // Without the decoders the same files are refused for the extension alone.
        let core = anim::import::load_path(&corpus_dir().join(name)).err().unwrap().to_string();
        assert!(core.contains("KHR_draco_mesh_compression"), "{name}: {core}");
    }
}

#[test]
fn limit_flags_reach_the_importer() {
    let no_flags = animtune::cli::LimitArgs::default();
    assert_eq!(no_flags.limits(), anim::import::Limits::default());
    let mib = animtune::cli::LimitArgs { max_file_mib: Some(3), max_image_mib: Some(2), ..no_flags };
    assert_eq!((mib.limits().max_file_bytes, mib.limits().max_image_bytes), (3 << 20, 2 << 20));
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.glb");
    let info = |flags: &[&str]| Command::new(ANIMTUNE).arg("info").arg(&model).args(flags).output().unwrap();
    for (flags, message) in [
        (&["--max-nodes", "3"][..], "node count = "),
        (&["--max-file-mib", "0"], "file size in bytes = "),
        (&["--max-accessor-elements", "10"], "accessor components = "),
        (&["--max-keys", "1"], "total key count = "),
        (&["--max-vertices", "1"], "total vertex count = "),
        (&["--max-indices", "1"], "total index count = "),
        (&["--max-node-depth", "2"], "node depth = "),
        (&["--max-skin-joints", "1"], "joint count = "),
    ] {
        let out = info(flags);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(message), "{flags:?}: {stderr}");
        assert!(stderr.contains("exceeds the limit of"), "{flags:?}: {stderr}");
    }
    let generous = ["--max-nodes", "100000", "--max-file-mib", "64", "--max-node-depth", "64", "--max-image-mib", "1"];
    let out = info(&generous);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Magnitudes: the mannequin's numbers are all far below 1e9, but not below 0.01.
    let out = info(&["--max-abs-value", "0.01"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("beyond the largest magnitude accepted, 1e-2"), "{stderr}");
    assert!(stderr.contains("--max-abs-value"), "{stderr}");
    let huge = corpus_dir().join("huge_translation_key.glb");
    let out = Command::new(ANIMTUNE).arg("info").arg(&huge).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("holds 1e30"));
    let out = Command::new(ANIMTUNE).arg("info").arg(&huge).args(["--max-abs-value", "inf"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for bad in ["--max-abs-value=0", "--max-abs-value=-5", "--max-abs-value=nan", "--max-abs-value=big"] {
        let out = info(&[bad]);
        assert!(!out.status.success(), "{bad} accepted");
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a number greater than 0"), "{bad}");
    }
    let flag = animtune::cli::LimitArgs { max_abs_value: Some(2.5), ..animtune::cli::LimitArgs::default() };
    assert_eq!(flag.limits().max_abs_value, 2.5);
    // `render` loads the model before it looks for a GPU.
    for command in [&["sample", "--clip", "0", "--times", "0"][..], &["bench", "--clip", "0"], &["render"]] {
        let out = Command::new(ANIMTUNE).args(command).arg(&model).args(["--max-nodes", "3"]).output().unwrap();
        assert!(!out.status.success(), "{command:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("node count = "), "{command:?}");
    }
}
