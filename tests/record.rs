//! `animtune record` end to end on the GPU (lavapipe in CI): a 2 s clip at 30 fps gives 60
//! frames, each different from the one before, as an animated GIF whose delays add up to 2 s, as
//! PNG frames, and as an MP4 through ffmpeg (its frame count and duration read back by ffprobe);
//! the compare heatmap paints the joints that differ. Small frames (160x120; one 320x240 frame for
//! the heatmap) keep it cheap.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use devtools::TempDir;
use devtools::ci::{have_tools, skip};
use devtools::gltf::Doc;
use image::AnimationDecoder as _;
use serde_json::{Value, json};

const ANIMTUNE: &str = env!("CARGO_BIN_EXE_animtune");

/// The built-in character with a clip "Slide" of 2 s that moves it 2 m sideways at a constant
/// speed, so every frame differs from the one before.
fn sliding_character(dir: &Path) -> std::path::PathBuf {
    let bytes = std::fs::read(devtools::ci::repo_root().join("assets/mannequin.glb")).unwrap();
    let mut doc = Doc::from_glb(&bytes).unwrap();
    let root = doc.json["scenes"][0]["nodes"][0].as_u64().unwrap() as usize;
    doc.add_animation(Some("Slide"), &[(root, "translation", &[0.0, 2.0], &[-1.0, 0.0, 0.0, 1.0, 0.0, 0.0], "LINEAR")]);
    doc.json["buffers"][0]["byteLength"] = json!(doc.bin.len());
    let path = dir.join("sliding.glb");
    std::fs::write(&path, doc.to_glb()).unwrap();
    path
}

/// Run `animtune record` with `args`: the JSON report, or None after skipping when there is no
/// GPU adapter (a failure under CI).
fn record(args: &[&str]) -> Option<Value> {
    let output = Command::new(ANIMTUNE).arg("record").args(args).args(["--format", "json"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() && stderr.contains("no GPU adapter") {
        skip(&stderr);
        return None;
    }
    assert!(output.status.success(), "record {args:?}: {stderr}");
    Some(serde_json::from_slice(&output.stdout).unwrap())
}

/// Pixels that differ between two frames.
fn changed_pixels(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count()
}

fn assert_all_frames_move(frames: &[image::RgbaImage]) {
    let changes: Vec<usize> = frames.windows(2).map(|w| changed_pixels(&w[0], &w[1])).collect();
    let least = changes.iter().copied().min().unwrap();
    println!("changed pixels between consecutive frames: least {least}, most {}", changes.iter().max().unwrap());
    assert!(least > 20, "{changes:?}");
}

#[test]
fn a_two_second_clip_at_30_fps_is_60_distinct_frames_playing_2_s() {
    let dir = TempDir::new("record");
    let model = sliding_character(dir.path());
    let model = model.to_str().unwrap();
    let gif = dir.path().join("slide.gif");
    let common = ["--clip", "Slide", "--fps", "30", "--size", "160x120"];
    let Some(report) = record(&[&[model][..], &common, &["--out", gif.to_str().unwrap()]].concat()) else { return };
    assert_eq!(report["frames"], 60);
    assert_eq!(report["duration_secs"], 2.0);

    let decoder =
        image::codecs::gif::GifDecoder::new(std::io::BufReader::new(std::fs::File::open(&gif).unwrap())).unwrap();
    let frames: Vec<image::Frame> = decoder.into_frames().collect::<Result<_, _>>().unwrap();
    assert_eq!(frames.len(), 60);
    let total_ms: f64 = frames
        .iter()
        .map(|f| {
            let (n, d) = f.delay().numer_denom_ms();
            f64::from(n) / f64::from(d)
        })
        .sum();
    assert!((total_ms - 2000.0).abs() < 1e-6, "the GIF plays {total_ms} ms");
    let images: Vec<image::RgbaImage> = frames.into_iter().map(image::Frame::into_buffer).collect();
    assert!(images.iter().all(|i| i.dimensions() == (160, 120)));
    assert_all_frames_move(&images);

    // The same frames as PNGs.
    let png_dir = dir.path().join("frames/");
    let report = record(&[&[model][..], &common, &["--out", png_dir.to_str().unwrap()]].concat()).unwrap();
    assert_eq!(report["frames"], 60);
    let mut names: Vec<String> =
        std::fs::read_dir(&png_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names.len(), 60);
    assert_eq!((names[0].as_str(), names[59].as_str()), ("frame_00000.png", "frame_00059.png"));
    let pngs: Vec<image::RgbaImage> = names.iter().map(|n| image::open(png_dir.join(n)).unwrap().to_rgba8()).collect();
    assert_all_frames_move(&pngs);
    // The GIF holds those frames in at most 256 colours: close to them, not equal.
    let mean_error: f64 = images[30]
        .pixels()
        .zip(pngs[30].pixels())
        .map(|(a, b)| (0..3).map(|c| f64::from(a.0[c].abs_diff(b.0[c]))).sum::<f64>() / 3.0)
        .sum::<f64>()
        / f64::from(160 * 120);
    assert!(mean_error < 6.0, "GIF frame 30 is {mean_error} levels from the PNG on average");
}

#[test]
fn mp4_goes_through_ffmpeg_or_says_what_is_missing() {
    let dir = TempDir::new("record-mp4");
    let mp4 = dir.path().join("walk.mp4");
    let args = ["--clip", "Walk", "--fps", "30", "--size", "160x120", "--out", mp4.to_str().unwrap()];
    // Without ffmpeg on the PATH: a clear error, and no file.
    let output = Command::new(ANIMTUNE).arg("record").args(args).env("PATH", "/nonexistent").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("needs ffmpeg on the PATH") && stderr.contains(".gif"), "{stderr}");
    assert!(!mp4.exists());

    if !have_tools(&["ffmpeg", "ffprobe"], "the MP4 recording test") {
        return;
    }
    let Some(report) = record(&args) else { return };
    assert_eq!(report["frames"], 33); // Walk: 1.1 s.
    let probe = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames,duration,width,height"])
        .args(["-of", "json"])
        .arg(&mp4)
        .output()
        .unwrap();
    let probe: Value = serde_json::from_slice(&probe.stdout).unwrap();
    let stream = &probe["streams"][0];
    assert_eq!(stream["nb_read_frames"], "33", "{probe}");
    assert_eq!((stream["width"].as_u64(), stream["height"].as_u64()), (Some(160), Some(120)));
    let duration: f64 = stream["duration"].as_str().unwrap().parse().unwrap();
    assert!((duration - 1.1).abs() < 1e-3, "{duration}");
}

#[test]
fn the_compare_heatmap_paints_where_the_modes_differ() {
    let dir = TempDir::new("record-heat");
    // Wave's raised arm is where STEP and CUBIC part most.
    let common = ["--clip", "Wave", "--from", "0.9", "--to", "1.0", "--fps", "10", "--size", "320x240"];
    let red = |dir: &Path| -> usize {
        let frame = image::open(dir.join("frame_00000.png")).unwrap().to_rgba8();
        frame.pixels().filter(|p| p.0[0] > 150 && u16::from(p.0[1]) + 60 < u16::from(p.0[0]) && p.0[2] < 90).count()
    };
    let plain = dir.path().join("plain/");
    let Some(report) = record(&[&common[..], &["--compare", "step,cubic", "--out", plain.to_str().unwrap()]].concat())
    else {
        return;
    };
    assert_eq!(report["frames"], 1);
    let heat = dir.path().join("heat/");
    record(
        &[&common[..], &["--compare", "step,cubic", "--ghost", "--heatmap", "--out", heat.to_str().unwrap()]].concat(),
    )
    .unwrap();
    let (red_plain, red_heat) = (red(&plain), red(&heat));
    println!("red pixels: plain {red_plain}, heatmap {red_heat}");
    assert!(red_heat > 40 && red_heat > 10 * red_plain.max(1), "plain {red_plain}, heatmap {red_heat}");
}

#[test]
fn a_recording_job_reports_progress_and_can_be_cancelled() {
    use animtune::record::{OutputKind, RecordJob, RecordSpec};
    use animtune::render::shot::ShotSpec;
    if animtune::render::GpuContext::new_headless().is_err() {
        skip("no GPU adapter");
        return;
    }
    let dir = TempDir::new("record-job");
    let model = anim::import::load_slice(animtune::mannequin::DEFAULT_MODEL_GLB, None).unwrap();
    let walk = model.find_clip("Walk").unwrap();
    let spec = |out: std::path::PathBuf, kind| RecordSpec {
        shot: ShotSpec::new(Some(walk), 96, 64),
        from_secs: 0.0,
        to_secs: 0.5,
        fps: 10,
        out,
        kind,
    };
    let job = RecordJob::start(model.clone(), spec(dir.path().join("frames"), OutputKind::PngSequence));
    assert_eq!(job.progress().1, 5);
    let report = job.wait().unwrap();
    assert_eq!((report.frames, job.progress()), (5, (5, 5)));
    assert_eq!(std::fs::read_dir(dir.path().join("frames")).unwrap().count(), 5);

    // Cancelled at once: an error, and no GIF left behind (nor its partial file).
    let gif = dir.path().join("walk.gif");
    let job = RecordJob::start(model, spec(gif.clone(), OutputKind::Gif));
    job.cancel();
    let error = job.wait().unwrap_err();
    assert!(error.contains("cancelled"), "{error}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().contains("walk.gif"))
    );
}
