//! The real viewer window does not leak: three windows run at the same time under Xvfb
//! (software Vulkan) for more than 60 s after a warm-up — the built-in character playing Walk,
//! the shared Fox model, and a crowd of 25 — each writing its frame statistics
//! (`--exit-after`, `--stats-out`); resident memory may grow by at most 16 MiB in each.
//!
//! Before the fix the window grew by about 0.5 MB per frame (lavapipe recompiled and leaked the
//! mesh shader on every draw); this test failed with +54, +68 and +124 MiB.
//!
//! The windows rasterize on one thread (`LP_NUM_THREADS=0`): llvmpipe's threaded rasterizer
//! keeps the memory of up to four scenes in flight (about 36 MB each for the crowd's million
//! triangles) and reaches that bounded high-water mark at random moments, minutes in; one thread
//! uses one scene at a time, so what grows here is ours. (The viewer itself runs llvmpipe with
//! its default threads; docs/performance.md gives both figures.)
//! Skipped with a note when Xvfb or the shared models are missing; fails under `CI=true`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Most resident-memory growth allowed after the warm-up.
const MAX_GROWTH_KIB: u64 = 16 * 1024;
/// Warm-up before memory counts (shader compilation, font atlas, first allocations).
const WARMUP_SECS: u64 = 15;
/// Seconds run after the warm-up: the statistics end at the last frame before the exit, so on a
/// loaded machine (the crowd's software-rendered frames up to 4 s apart) the measured time is
/// up to a frame short of this; 66 leaves a full minute measured.
const MEASURED_SECS: u64 = 66;
/// Fewer frames than this after the warm-up cannot show a per-frame leak.
const MIN_FRAMES: u64 = 20;

/// One window run.
struct Run {
    name: &'static str,
    args: Vec<String>,
    stats: PathBuf,
    log: PathBuf,
    child: Child,
}

fn start(name: &'static str, index: usize, args: Vec<String>, out_dir: &Path) -> Run {
    let stats = out_dir.join(format!("{name}.json"));
    let log = out_dir.join(format!("{name}.log"));
    let _ = std::fs::remove_file(&stats);
    let log_file = std::fs::File::create(&log).expect("log file");
    // Distinct starting display numbers, so that concurrent `xvfb-run -a` do not race for one.
    let display = 140 + 20 * index + (std::process::id() as usize % 7);
    let mut command = Command::new("xvfb-run");
    command
        .args(["-a", "-n", &display.to_string(), "-s", "-screen 0 1280x720x24"])
        .arg(env!("CARGO_BIN_EXE_animtune"))
        .args(&args)
        .args(["--exit-after", &(WARMUP_SECS + MEASURED_SECS).to_string()])
        .args(["--stats-warmup", &WARMUP_SECS.to_string()])
        .arg("--stats-out")
        .arg(&stats)
        // Tuning profiles go to a scratch folder, not the user's configuration.
        .env("XDG_CONFIG_HOME", out_dir.join(format!("config-{name}")))
        // One rasterizer thread: no bounded-but-random scene-pool steps (see the top).
        .env("LP_NUM_THREADS", "0")
        .stdout(Stdio::from(log_file.try_clone().expect("log")))
        .stderr(Stdio::from(log_file));
    let child = command.spawn().expect("start xvfb-run");
    Run { name, args, stats, log, child }
}

#[test]
fn the_window_does_not_grow_over_a_minute() {
    if !devtools::ci::have_tools(&["xvfb-run", "xauth", "Xvfb"], "viewer memory test") {
        return;
    }
    let Some(models) = devtools::ci::shared_models("viewer memory test on Fox") else { return };
    let fox = models.join("Fox/Fox.glb");
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("viewer_memory");
    std::fs::create_dir_all(&out_dir).expect("temp dir");

    let runs = vec![
        start("built-in", 0, vec!["--clip".into(), "Walk".into()], &out_dir),
        start("fox", 1, vec![fox.display().to_string()], &out_dir),
        start("crowd-25", 2, vec!["--crowd".into(), "25".into()], &out_dir),
    ];
    let mut failures = Vec::new();
    for mut run in runs {
        let status = wait_with_timeout(&mut run.child, Duration::from_secs(WARMUP_SECS + MEASURED_SECS + 90));
        let log = std::fs::read_to_string(&run.log).unwrap_or_default();
        let Some(status) = status else {
            failures.push(format!("{}: did not exit in time\n{log}", run.name));
            continue;
        };
        if !status.success() {
            failures.push(format!("{}: exited with {status}\n{log}", run.name));
            continue;
        }
        let text = std::fs::read_to_string(&run.stats).unwrap_or_default();
        let Ok(stats) = serde_json::from_str::<serde_json::Value>(&text) else {
            failures.push(format!("{}: no statistics in {} ({text:?})\n{log}", run.name, run.stats.display()));
            continue;
        };
        let kib = |key: &str| stats["rss_kib"][key].as_u64();
        let (Some(after_warmup), Some(end), Some(peak)) = (kib("after_warmup"), kib("end"), kib("peak")) else {
            failures.push(format!("{}: resident memory not reported: {stats}", run.name));
            continue;
        };
        let frames = stats["frames"].as_u64().unwrap_or(0);
        println!(
            "{} {:?}: {frames} frames in {:.0} s after the warm-up, CPU {:.1} ms/frame median, {:.1} p95; \
             RSS {after_warmup} KiB after the warm-up, {end} KiB at the end, peak {peak} KiB ({:+} KiB)",
            run.name,
            run.args,
            stats["measured_secs"].as_f64().unwrap_or(0.0),
            stats["cpu_ms_per_frame"]["median"].as_f64().unwrap_or(0.0),
            stats["cpu_ms_per_frame"]["p95"].as_f64().unwrap_or(0.0),
            peak as i64 - after_warmup as i64,
        );
        if stats["measured_secs"].as_f64().unwrap_or(0.0) < 60.0 {
            failures.push(format!("{}: measured less than 60 s after the warm-up: {stats}", run.name));
        }
        if frames < MIN_FRAMES {
            failures.push(format!("{}: only {frames} frames after the warm-up (need {MIN_FRAMES}): {stats}", run.name));
        }
        if peak.saturating_sub(after_warmup) > MAX_GROWTH_KIB || end.saturating_sub(after_warmup) > MAX_GROWTH_KIB {
            failures.push(format!(
                "{}: resident memory grew from {after_warmup} KiB to {end} KiB (peak {peak} KiB) in {frames} frames, \
                 more than {MAX_GROWTH_KIB} KiB",
                run.name
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Wait for `child`, killing it after `timeout`.
fn wait_with_timeout(child: &mut Child, timeout: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
