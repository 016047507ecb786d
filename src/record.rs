//! Recordings to share: a [`Shot`] rendered headless at every frame of a clip's time range and
//! written as an animated GIF (the `image` crate's encoder; frame delays that add up to the
//! clip's time, so it plays at the clip's speed), a folder of PNG frames, or an MP4 through
//! `ffmpeg` when it is on the `PATH`. `animtune record` and the viewer's "Record clip" both run
//! [`record`].

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use anim::Model;
use anyhow::Context as _;

use crate::render::GpuContext;
use crate::render::shot::{Shot, ShotSpec};

/// GIF frame delays are whole hundredths of a second, and viewers slow delays under 2/100 s
/// down: the fastest frame rate a GIF plays at its speed.
pub const MAX_GIF_FPS: u32 = 50;

/// What a recording is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// An animated GIF, looping.
    Gif,
    /// A folder of `frame_00000.png`, `frame_00001.png`, …
    PngSequence,
    /// An H.264 MP4 made by `ffmpeg`.
    Mp4,
}

impl OutputKind {
    /// The kind `path` asks for: `.gif`, `.mp4`, or a folder (a path ending in `/`, an existing
    /// folder, or a name without extension).
    ///
    /// # Errors
    /// Any other extension.
    pub fn from_path(path: &Path) -> anyhow::Result<Self> {
        let text = path.to_string_lossy();
        if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) || path.is_dir() {
            return Ok(Self::PngSequence);
        }
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("gif") => Ok(Self::Gif),
            Some("mp4") => Ok(Self::Mp4),
            None => Ok(Self::PngSequence),
            Some(other) => {
                anyhow::bail!(
                    "cannot record to \".{other}\": give FILE.gif, FILE.mp4 or a folder (DIR/) for PNG frames"
                )
            }
        }
    }

    /// Name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Self::Gif => "GIF",
            Self::PngSequence => "PNG frames",
            Self::Mp4 => "MP4 (ffmpeg, H.264)",
        }
    }
}

/// What to record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordSpec {
    /// The shot (clip, modes, compare, heatmap, size).
    pub shot: ShotSpec,
    /// First frame's clip time.
    pub from_secs: f32,
    /// End of the range (not itself a frame: a looping clip's end is its start).
    pub to_secs: f32,
    /// Frames per second.
    pub fps: u32,
    /// The output file or folder.
    pub out: PathBuf,
    /// What to write.
    pub kind: OutputKind,
}

/// What [`record`] wrote.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecordReport {
    /// Frames written.
    pub frames: usize,
    /// Frames per second.
    pub fps: u32,
    /// Playing time of the recording, seconds (for a GIF, the sum of its frame delays).
    pub duration_secs: f32,
    /// First frame's clip time.
    pub from_secs: f32,
    /// End of the recorded range.
    pub to_secs: f32,
    /// Frame size.
    pub width: u32,
    /// Frame height.
    pub height: u32,
    /// The output.
    pub out: String,
    /// What it is.
    pub kind: String,
    /// Bytes written (all frames, for a folder).
    pub bytes: u64,
}

/// The clip times of a recording: `from + i / fps` for `round((to − from) · fps)` frames (at
/// least one); times past the clip's end wrap around, as the viewer's looping playback does.
pub fn frame_times(model: &Model, spec: &RecordSpec) -> Vec<f32> {
    let fps = spec.fps.max(1) as f32;
    let count = (((spec.to_secs - spec.from_secs) * fps).round().max(1.0) as usize).min(1 << 20);
    let clip = spec.shot.clip.and_then(|c| model.clip(c));
    (0..count)
        .map(|i| {
            let t = spec.from_secs + i as f32 / fps;
            match clip {
                Some(clip) if t > clip.end_secs() => clip.wrap_time(t),
                _ => t,
            }
        })
        .collect()
}

/// GIF delays in hundredths of a second for `frames` frames at `fps`: each frame's share of
/// the running total rounded, so the delays add up to the recording's time exactly (to 1/100 s)
/// even where 100 / fps is not whole (30 fps: 3, 3, 4, 3, 3, 4, …).
pub fn gif_delays_cs(frames: usize, fps: u32) -> Vec<u16> {
    let fps = u64::from(fps.max(1));
    let at = |i: u64| (i * 100 + fps / 2) / fps;
    (0..frames as u64).map(|i| u16::try_from(at(i + 1) - at(i)).unwrap_or(u16::MAX)).collect()
}

/// True when `ffmpeg` runs from the `PATH` (MP4 recordings need it).
pub fn ffmpeg_available() -> bool {
    find_ffmpeg().is_ok()
}

/// `ffmpeg` on the `PATH`, or an error saying what to do instead.
fn find_ffmpeg() -> anyhow::Result<()> {
    match Command::new("ffmpeg").arg("-version").stdout(Stdio::null()).stderr(Stdio::null()).status() {
        Ok(status) if status.success() => Ok(()),
        _ => anyhow::bail!(
            "recording an MP4 needs ffmpeg on the PATH, and it was not found: install it (Debian/Ubuntu: \
             apt-get install ffmpeg) or record a .gif or a folder of PNG frames (DIR/) instead"
        ),
    }
}

/// Where frames go.
enum Sink {
    Gif(Box<image::codecs::gif::GifEncoder<std::io::BufWriter<std::fs::File>>>, Vec<u16>),
    Png(PathBuf),
    Mp4(Child),
}

impl Sink {
    fn open(spec: &RecordSpec, partial: &Path, frames: usize) -> anyhow::Result<Self> {
        Ok(match spec.kind {
            OutputKind::Gif => {
                let file =
                    std::fs::File::create(partial).with_context(|| format!("cannot write {}", partial.display()))?;
                let mut encoder = image::codecs::gif::GifEncoder::new_with_speed(std::io::BufWriter::new(file), 10);
                encoder.set_repeat(image::codecs::gif::Repeat::Infinite)?;
                Self::Gif(Box::new(encoder), gif_delays_cs(frames, spec.fps))
            }
            OutputKind::PngSequence => {
                std::fs::create_dir_all(&spec.out)
                    .with_context(|| format!("cannot create the folder {}", spec.out.display()))?;
                // Frames of an earlier, longer recording would play on after this one.
                for entry in std::fs::read_dir(&spec.out)?.filter_map(Result::ok) {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if is_frame_name(&name) {
                        std::fs::remove_file(entry.path())?;
                    }
                }
                Self::Png(spec.out.clone())
            }
            OutputKind::Mp4 => {
                find_ffmpeg()?;
                let (w, h) = (spec.shot.width, spec.shot.height);
                let child = Command::new("ffmpeg")
                    .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgba"])
                    .args(["-s", &format!("{w}x{h}"), "-r", &spec.fps.to_string(), "-i", "-"])
                    // H.264 in 4:2:0 needs even sizes.
                    .args(["-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
                    .args(["-movflags", "+faststart", "-f", "mp4"])
                    .arg(partial)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .context("cannot start ffmpeg")?;
                Self::Mp4(child)
            }
        })
    }

    fn push(&mut self, index: usize, frame: image::RgbaImage) -> anyhow::Result<()> {
        match self {
            Self::Gif(encoder, delays) => {
                let cs = u32::from(delays.get(index).copied().unwrap_or(1));
                let delay = image::Delay::from_numer_denom_ms(cs * 10, 1);
                encoder.encode_frame(image::Frame::from_parts(frame, 0, 0, delay))?;
            }
            Self::Png(dir) => {
                let path = dir.join(frame_name(index));
                frame
                    .save_with_format(&path, image::ImageFormat::Png)
                    .with_context(|| format!("cannot write {}", path.display()))?;
            }
            Self::Mp4(child) => {
                let stdin = child.stdin.as_mut().context("ffmpeg's input is closed")?;
                stdin.write_all(frame.as_raw()).context("ffmpeg stopped reading frames")?;
            }
        }
        Ok(())
    }

    fn finish(self) -> anyhow::Result<()> {
        match self {
            Self::Gif(encoder, _) => {
                drop(encoder);
            }
            Self::Png(_) => {}
            Self::Mp4(mut child) => {
                drop(child.stdin.take());
                let output = child.wait_with_output().context("ffmpeg did not finish")?;
                anyhow::ensure!(
                    output.status.success(),
                    "ffmpeg failed ({}): {}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                );
            }
        }
        Ok(())
    }
}

/// `frame_00042.png`.
pub fn frame_name(index: usize) -> String {
    format!("frame_{index:05}.png")
}

fn is_frame_name(name: &str) -> bool {
    name.strip_prefix("frame_")
        .and_then(|r| r.strip_suffix(".png"))
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// Render every frame of `spec` and write it. `progress(done, total)` is called after each
/// frame; returning false cancels (nothing is left at `spec.out` for a file; a folder keeps the
/// frames written). A GIF or MP4 is written beside the output and moved into place when
/// complete, so a failed recording never leaves half a file under the name asked for.
///
/// # Errors
/// A GIF above [`MAX_GIF_FPS`], no ffmpeg for an MP4, rendering or writing failures, or a
/// cancelled recording.
pub fn record(
    ctx: &GpuContext,
    model: &Model,
    spec: &RecordSpec,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> anyhow::Result<RecordReport> {
    anyhow::ensure!(spec.fps > 0, "--fps must be at least 1");
    anyhow::ensure!(
        spec.kind != OutputKind::Gif || spec.fps <= MAX_GIF_FPS,
        "a GIF plays at most {MAX_GIF_FPS} frames per second at its speed (delays are whole hundredths of a \
         second): record the GIF at --fps {MAX_GIF_FPS} or less, or record PNG frames or an MP4"
    );
    anyhow::ensure!(
        spec.from_secs.is_finite() && spec.to_secs.is_finite() && spec.to_secs > spec.from_secs,
        "nothing to record: the range {} s to {} s is empty",
        spec.from_secs,
        spec.to_secs
    );
    let times = frame_times(model, spec);
    let partial = match spec.kind {
        OutputKind::PngSequence => spec.out.clone(),
        _ => {
            let mut name = spec.out.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
            name.push(".partial");
            spec.out.with_file_name(name)
        }
    };
    let mut sink = Sink::open(spec, &partial, times.len())?;
    let result = (|| -> anyhow::Result<()> {
        let mut shot = Shot::new(ctx, model, spec.shot.clone())?;
        let clip_name = spec.shot.clip.map(|c| model[c].display_name(c.index()));
        for (i, &t) in times.iter().enumerate() {
            let footer = clip_name.as_ref().map_or_else(|| "REST POSE".to_owned(), |n| format!("{n} T={t:.2}S"));
            let frame = shot.render(ctx, model, t, &footer)?;
            sink.push(i, frame)?;
            anyhow::ensure!(progress(i + 1, times.len()), "recording cancelled");
        }
        Ok(())
    })();
    let result = result.and_then(|()| sink.finish());
    if let Err(error) = result {
        if spec.kind != OutputKind::PngSequence {
            let _ = std::fs::remove_file(&partial);
        }
        return Err(error);
    }
    let bytes = match spec.kind {
        OutputKind::PngSequence => {
            (0..times.len()).filter_map(|i| std::fs::metadata(spec.out.join(frame_name(i))).ok()).map(|m| m.len()).sum()
        }
        _ => {
            std::fs::rename(&partial, &spec.out)
                .with_context(|| format!("cannot move {} to {}", partial.display(), spec.out.display()))?;
            std::fs::metadata(&spec.out).map(|m| m.len()).unwrap_or(0)
        }
    };
    let duration_secs = match spec.kind {
        OutputKind::Gif => {
            gif_delays_cs(times.len(), spec.fps).iter().map(|&d| u32::from(d)).sum::<u32>() as f32 / 100.0
        }
        _ => times.len() as f32 / spec.fps as f32,
    };
    Ok(RecordReport {
        frames: times.len(),
        fps: spec.fps,
        duration_secs,
        from_secs: spec.from_secs,
        to_secs: spec.to_secs,
        width: spec.shot.width,
        height: spec.shot.height,
        out: spec.out.display().to_string(),
        kind: spec.kind.name().to_owned(),
        bytes,
    })
}

/// A recording running on its own thread (with its own headless GPU device), for the viewer:
/// progress, cancel, and the result when done.
#[derive(Debug)]
pub struct RecordJob {
    /// What is being recorded.
    pub spec: RecordSpec,
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
    cancelled: Arc<AtomicBool>,
    result: mpsc::Receiver<Result<RecordReport, String>>,
}

impl RecordJob {
    /// Record `spec` of `model` on a new thread.
    pub fn start(model: Model, spec: RecordSpec) -> Self {
        let done = Arc::new(AtomicUsize::new(0));
        let total = Arc::new(AtomicUsize::new(frame_times(&model, &spec).len()));
        let cancelled = Arc::new(AtomicBool::new(false));
        let (sender, result) = mpsc::channel();
        let job = Self {
            spec: spec.clone(),
            done: Arc::clone(&done),
            total: Arc::clone(&total),
            cancelled: Arc::clone(&cancelled),
            result,
        };
        let spawned = std::thread::Builder::new().name("recorder".to_owned()).spawn(move || {
            let outcome = GpuContext::new_headless().map_err(anyhow::Error::from).and_then(|ctx| {
                record(&ctx, &model, &spec, &mut |frames, of| {
                    done.store(frames, Ordering::Relaxed);
                    total.store(of, Ordering::Relaxed);
                    !cancelled.load(Ordering::Relaxed)
                })
            });
            let _ = sender.send(outcome.map_err(|e| format!("{e:#}")));
        });
        if let Err(error) = spawned {
            let (sender, result) = mpsc::channel();
            let _ = sender.send(Err(format!("cannot start a recording thread: {error}")));
            return Self { result, ..job };
        }
        job
    }

    /// Frames written so far and the frame count.
    pub fn progress(&self) -> (usize, usize) {
        (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed))
    }

    /// Stop after the frame being rendered (a GIF or MP4 is not left behind).
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// The outcome once the recording finished (`None` while it runs).
    pub fn poll(&self) -> Option<Result<RecordReport, String>> {
        match self.result.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err("the recording thread stopped unexpectedly".to_owned())),
        }
    }

    /// Block until the recording finishes.
    pub fn wait(&self) -> Result<RecordReport, String> {
        self.result.recv().unwrap_or_else(|_| Err("the recording thread stopped unexpectedly".to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gif_delays_add_up_to_the_recorded_time() {
        assert_eq!(gif_delays_cs(6, 30), vec![3, 4, 3, 3, 4, 3]);
        for fps in [1, 10, 24, 25, 29, 30, 50] {
            for frames in [1, 7, 60, 61] {
                let total: u64 = gif_delays_cs(frames, fps).iter().map(|&d| u64::from(d)).sum();
                let exact = frames as f64 * 100.0 / f64::from(fps);
                assert!((total as f64 - exact).abs() <= 0.5, "{frames} frames at {fps}: {total} cs");
            }
        }
    }

    #[test]
    fn output_kind_follows_the_path() {
        assert_eq!(OutputKind::from_path(Path::new("a.GIF")).unwrap_or(OutputKind::Mp4), OutputKind::Gif);
        assert_eq!(OutputKind::from_path(Path::new("a.mp4")).unwrap_or(OutputKind::Gif), OutputKind::Mp4);
        assert_eq!(OutputKind::from_path(Path::new("frames/")).unwrap_or(OutputKind::Gif), OutputKind::PngSequence);
        assert_eq!(OutputKind::from_path(Path::new("frames")).unwrap_or(OutputKind::Gif), OutputKind::PngSequence);
        let error = OutputKind::from_path(Path::new("a.avi")).map(|_| ()).unwrap_err().to_string();
        assert!(error.contains(".avi") && error.contains("FILE.gif"), "{error}");
        assert!(is_frame_name("frame_00012.png") && !is_frame_name("frame_.png") && !is_frame_name("notes.png"));
    }
}
