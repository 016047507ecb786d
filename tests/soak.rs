//! `animtune soak` end to end: the real binary runs for a few seconds on the built-in character
//! and on shared models (skipped with a note when `../shared/models` is missing, except under
//! `CI=true`, where it fails) and its JSON report is checked field by field.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

fn shared_models() -> Option<PathBuf> {
    devtools::ci::shared_models("the shared-model soak")
}

fn animtune(args: &[&str]) -> Output {
    Command::new(ANIMTUNE).args(args).output().unwrap()
}

/// Run `soak` with `args` plus `--format json`; the parsed report, after checking the run passed.
fn soak_json(args: &[&str]) -> Value {
    let out = animtune(&[&["soak"], args, &["--format", "json"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "soak {args:?} failed: {stderr}\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(stderr.is_empty(), "{stderr}");
    serde_json::from_slice(&out.stdout).unwrap()
}

fn u64_field(report: &Value, key: &str) -> u64 {
    report[key].as_u64().unwrap_or_else(|| panic!("`{key}` is not an unsigned integer in {report:#}"))
}

fn f64_field(report: &Value, key: &str) -> f64 {
    report[key].as_f64().unwrap_or_else(|| panic!("`{key}` is not a number in {report:#}"))
}

/// Every field of a passing report, with its type and its relations to the others.
fn check_passing_report(report: &Value, seconds: f64) {
    let keys: Vec<&str> = report.as_object().unwrap().keys().map(String::as_str).collect();
    for key in [
        "model",
        "seed",
        "seconds_requested",
        "seconds_run",
        "frames",
        "frames_per_sec",
        "clips",
        "clips_played",
        "fades",
        "overrides_switched",
        "ragdoll_skipped",
        "ragdoll_handoffs",
        "get_ups",
        "ragdoll_faults",
        "first_ragdoll_fault",
        "cpu_skinned_frames",
        "cpu_skinned_vertices",
        "values_checked",
        "non_finite_values",
        "first_non_finite",
        "warm_up_secs",
        "rss_start_kib",
        "rss_end_kib",
        "rss_peak_kib",
        "rss_growth_kib",
        "max_growth_kib",
        "verdict",
        "failures",
    ] {
        assert!(keys.contains(&key), "no `{key}` in {keys:?}");
    }
    assert_eq!(report["verdict"], "pass");
    assert_eq!(report["failures"], Value::Array(vec![]));
    assert_eq!(u64_field(report, "non_finite_values"), 0);
    assert!(report["first_non_finite"].is_null());
    // Ragdoll faults are recovered from (the output stays the animation's): counted, not failed.
    // A handoff at a clip's loop seam or a zero-length fade starts bodies at the jump's speed.
    match u64_field(report, "ragdoll_faults") {
        0 => assert!(report["first_ragdoll_fault"].is_null()),
        _ => assert!(report["first_ragdoll_fault"].as_str().unwrap().contains("ragdoll body")),
    }

    let run = f64_field(report, "seconds_run");
    assert!((seconds..seconds + 2.0).contains(&run), "ran {run} s of {seconds}");
    let frames = u64_field(report, "frames");
    // At least 2 s of animation in the 3 s (debug build, tests running beside it).
    assert!(frames >= 120, "{frames} frames");
    assert!((f64_field(report, "frames_per_sec") - frames as f64 / run).abs() < 1e-6 * frames as f64);
    assert!(u64_field(report, "fades") >= 1);
    assert!(u64_field(report, "overrides_switched") >= 1);
    assert!(u64_field(report, "clips_played") >= 1 && u64_field(report, "clips_played") <= u64_field(report, "clips"));
    assert!(u64_field(report, "values_checked") > frames * 10);
    assert!(u64_field(report, "cpu_skinned_frames") >= frames / 8);
    assert!(u64_field(report, "cpu_skinned_vertices") >= u64_field(report, "cpu_skinned_frames"));
    assert_eq!(u64_field(report, "max_growth_kib"), 8192);

    if cfg!(target_os = "linux") {
        let (start, end, peak) =
            (u64_field(report, "rss_start_kib"), u64_field(report, "rss_end_kib"), u64_field(report, "rss_peak_kib"));
        assert!(start > 1024 && peak >= start && peak >= end, "RSS {start} / {end} / peak {peak} KiB");
        assert_eq!(report["rss_growth_kib"].as_i64(), Some(end as i64 - start as i64));
    } else {
        assert!(report["rss_start_kib"].is_null() && report["rss_growth_kib"].is_null());
    }
}

#[test]
fn three_seconds_on_the_built_in_character() {
    let report = soak_json(&["--seconds", "3", "--seed", "7"]);
    check_passing_report(&report, 3.0);
    assert_eq!(u64_field(&report, "seed"), 7);
    assert!(report["model"].as_str().unwrap().contains("built-in"));
    assert_eq!(u64_field(&report, "clips"), 8);
    assert!(report["ragdoll_skipped"].is_null());
    assert!(u64_field(&report, "ragdoll_handoffs") >= 1);
}

#[test]
fn three_seconds_on_the_fox_and_a_model_without_a_skin() {
    let Some(dir) = shared_models() else { return };
    let fox = dir.join("Fox/Fox.glb");
    let report = soak_json(&[fox.to_str().unwrap(), "--seconds", "3"]);
    check_passing_report(&report, 3.0);
    assert_eq!(u64_field(&report, "clips"), 3);
    assert!(report["ragdoll_skipped"].is_null());
    assert!(u64_field(&report, "ragdoll_handoffs") >= 1);
    assert!(u64_field(&report, "get_ups") >= 1);

    // No skin, no ragdoll: that part is skipped with the reason, the rest still runs.
    let cube = dir.join("AnimatedCube/AnimatedCube.gltf");
    let report = soak_json(&[cube.to_str().unwrap(), "--seconds", "1"]);
    assert_eq!(report["verdict"], "pass");
    assert_eq!(u64_field(&report, "non_finite_values"), 0);
    assert_eq!(u64_field(&report, "ragdoll_handoffs"), 0);
    assert!(report["ragdoll_skipped"].as_str().unwrap().contains("no skin"), "{}", report["ragdoll_skipped"]);
    assert!(u64_field(&report, "fades") >= 1);
}

#[test]
fn text_report_and_argument_errors() {
    let out = animtune(&["soak", "--seconds", "1", "--max-growth-mib", "16"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for part in ["frames in", "cross-fades", "ragdoll handoffs", "non-finite 0", "limit 16384)", "verdict: pass"] {
        assert!(text.contains(part), "no {part:?} in:\n{text}");
    }
    for (args, message) in [
        (&["soak", "--seconds=-1"][..], "--seconds must be ≥ 0"),
        (&["soak", "--seconds", "1", "--max-growth-mib", "nan"], "--max-growth-mib must be ≥ 0"),
        (&["soak", "no/such/model.glb", "--seconds", "1"], "cannot load no/such/model.glb"),
        (&["soak"], "--seconds"),
    ] {
        let out = animtune(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(out.stdout.is_empty(), "{args:?} printed {}", String::from_utf8_lossy(&out.stdout));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(message),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_verdict_fails_on_non_finite_values_and_on_memory_growth() {
    use animtune::cli::soak::judge;
    assert!(judge(0, Some(8192), 8192).is_empty(), "growth at the limit passes");
    assert!(judge(0, Some(-300), 8192).is_empty());
    assert!(judge(0, None, 8192).is_empty(), "unknown memory passes");
    assert_eq!(judge(0, Some(8193), 8192), ["resident memory grew by 8193 KiB after the warm-up (limit 8192 KiB)"]);
    assert_eq!(judge(3, None, 8192), ["3 non-finite output values"]);
    assert_eq!(judge(1, Some(9000), 8192).len(), 2);
}
