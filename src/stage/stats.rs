//! Frame statistics of the real window: CPU milliseconds per frame (median and 95th percentile)
//! and resident memory after a warm-up, at the end and at its peak. The Stats overlay shows them
//! live; `animtune --exit-after SECS --stats-out FILE.json` writes them on exit (the Xvfb window
//! tests read that file).
//!
//! Nothing here grows with the length of a run: frame times go into a fixed histogram and a
//! fixed ring of recent frames.

use std::time::{Duration, Instant};

#[cfg(target_os = "linux")]
use rustix::time::{ClockId, clock_gettime};
use serde::Serialize;

/// Histogram buckets of 0.01 ms below 100 ms.
const FINE_BUCKETS: usize = 10_000;
/// Then buckets of 1 ms up to 10 s (longer frames land in the last one).
const COARSE_BUCKETS: usize = 9_900;
/// Frames kept for the live overlay.
const RECENT_FRAMES: usize = 120;
/// How often resident memory is read.
const RSS_SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// CPU time the calling thread has run so far (Linux: the thread's CPU clock, to the
/// nanosecond; `None` elsewhere). Allocates nothing.
pub fn thread_cpu_time() -> Option<Duration> {
    #[cfg(target_os = "linux")]
    {
        let t = clock_gettime(ClockId::ThreadCPUTime);
        Some(Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Times one phase of a frame: the window thread's CPU time where the OS says it, else wall
/// time.
#[derive(Debug, Clone, Copy)]
pub struct PhaseClock {
    wall: Instant,
    cpu: Option<Duration>,
}

impl PhaseClock {
    /// Start timing now.
    pub fn start() -> Self {
        Self { wall: Instant::now(), cpu: thread_cpu_time() }
    }

    /// CPU time of this thread since [`Self::start`] (wall time where the OS does not say).
    pub fn elapsed(&self) -> Duration {
        match (self.cpu, thread_cpu_time()) {
            (Some(start), Some(now)) => now.saturating_sub(start),
            _ => self.wall.elapsed(),
        }
    }
}

/// Median and 95th percentile of CPU milliseconds per frame.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FrameTimes {
    /// Median, milliseconds.
    pub median: f64,
    /// 95th percentile, milliseconds.
    pub p95: f64,
}

/// Resident memory in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ResidentMemory {
    /// When the warm-up ended (`None`: the run ended first, or the OS does not say).
    pub after_warmup: Option<u64>,
    /// At the end of the run (or now).
    pub end: Option<u64>,
    /// Largest value seen after the warm-up (`None` before it ends).
    pub peak: Option<u64>,
}

/// The parts of a frame the window thread times: CPU time of the thread (see [`PhaseClock`]),
/// except the present wait, which is wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The stage step: playback, transitions, crowd and physics advanced, then the frame's
    /// poses computed (sampling, blending, local→model, overlays' data).
    StageStep,
    /// Building the UI (egui's pass over the panels, less the stage step inside it) and
    /// tessellating it.
    UiBuild,
    /// Rendering the 3D view and the UI into command buffers, uploads, and submitting them.
    GpuEncodeSubmit,
    /// Waiting for the last frame's GPU work, to acquire the window's next image and to present
    /// it (the display or the driver).
    PresentWait,
}

impl Phase {
    /// Every phase, in frame order.
    pub const ALL: [Self; 4] = [Self::StageStep, Self::UiBuild, Self::GpuEncodeSubmit, Self::PresentWait];

    /// Short name for the overlay.
    pub fn label(self) -> &'static str {
        match self {
            Self::StageStep => "stage step",
            Self::UiBuild => "UI build",
            Self::GpuEncodeSubmit => "GPU encode+submit",
            Self::PresentWait => "present wait",
        }
    }
}

/// Median and 95th percentile of each phase of a frame in milliseconds after the warm-up: the
/// window thread's CPU time (wall time where the OS does not say it), the present wait in wall
/// time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FramePhases {
    /// Stage step: playback, transitions, crowd and physics advanced, and the frame's poses.
    pub stage_step: FrameTimes,
    /// UI build: egui's pass (less the stage step in it) and tessellation.
    pub ui_build: FrameTimes,
    /// 3D view and UI rendered into command buffers, uploaded and submitted.
    pub gpu_encode_submit: FrameTimes,
    /// Waiting for the last frame's GPU work, to acquire and to present the window's image.
    pub present_wait: FrameTimes,
    /// Stage step + UI build + GPU encode and submit (per frame, then median and p95).
    pub without_present: FrameTimes,
}

/// What `--stats-out` writes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StatsReport {
    /// Frames drawn after the warm-up.
    pub frames: u64,
    /// CPU time the window thread ran per frame after the warm-up (playback, UI, frame output,
    /// encoding; not the GPU's work, which on a software driver runs on its own threads).
    pub cpu_ms_per_frame: FrameTimes,
    /// Wall-clock milliseconds from one frame to the next after the warm-up.
    pub frame_interval_ms: FrameTimes,
    /// Where each frame's time went, per phase (the window thread's CPU time; the present wait
    /// in wall time).
    pub phases_ms: FramePhases,
    /// Resident memory.
    pub rss_kib: ResidentMemory,
    /// The model on screen at the end.
    pub model: String,
    /// Its tuning profile file, if it has one.
    pub profile: Option<String>,
    /// Seconds of warm-up before counting.
    pub warmup_secs: f64,
    /// Seconds counted after the warm-up.
    pub measured_secs: f64,
    /// Frames (all, warm-up included) per second of the whole run.
    pub frames_per_sec: f64,
    /// Models swapped in by hot reload.
    pub reloads: u64,
    /// Hot reloads that did not load (the model on screen was kept).
    pub failed_reloads: u64,
    /// The clips of the model on screen at the end.
    pub clips: Vec<String>,
    /// Seconds of frames the rewind ring held at the end (how far back one could scrub).
    pub rewind_secs_held: f64,
    /// Memory the rewind ring owned at the end, KiB (its measured, fixed ceiling).
    pub rewind_kib: f64,
}

/// Frame times in a fixed histogram (0.01 ms buckets below 100 ms, then 1 ms up to 10 s).
#[derive(Debug, Clone)]
struct Histogram {
    counts: Vec<u32>,
    total: u64,
}

impl Histogram {
    fn new() -> Self {
        Self { counts: vec![0; FINE_BUCKETS + COARSE_BUCKETS], total: 0 }
    }

    fn add(&mut self, ms: f64) {
        let last = self.counts.len() - 1;
        if let Some(count) = self.counts.get_mut(bucket_of(ms).min(last)) {
            *count += 1;
            self.total += 1;
        }
    }

    /// Median and 95th percentile (`None` when empty).
    fn times(&self) -> Option<FrameTimes> {
        (self.total > 0).then(|| FrameTimes { median: self.percentile(0.5), p95: self.percentile(0.95) })
    }

    /// The value at quantile `q` (bucket middles).
    fn percentile(&self, q: f64) -> f64 {
        let rank = ((self.total.saturating_sub(1)) as f64 * q).round() as u64;
        let mut seen = 0u64;
        for (bucket, &count) in self.counts.iter().enumerate() {
            seen += u64::from(count);
            if seen > rank {
                return middle_of(bucket);
            }
        }
        middle_of(self.counts.len() - 1)
    }
}

/// Collects frame times and resident memory.
#[derive(Debug, Clone)]
pub struct FrameStats {
    started: Instant,
    warmup: Duration,
    warm_since: Option<Instant>,
    cpu: Histogram,
    interval: Histogram,
    /// Per phase (in [`Phase::ALL`] order), then the frame without the present wait.
    phases: [Histogram; 5],
    /// This frame's time per phase so far, seconds (a nested phase's time is taken out of the
    /// phase around it, which may be added later).
    phase_now: [f64; 4],
    recent_phase_ms: [[f32; RECENT_FRAMES]; 5],
    last_frame: Option<Instant>,
    all_frames: u64,
    recent_ms: [f32; RECENT_FRAMES],
    recent_interval_ms: [f32; RECENT_FRAMES],
    recent_next: usize,
    rss_now: Option<u64>,
    rss_after_warmup: Option<u64>,
    rss_peak: Option<u64>,
    last_rss_sample: Option<Instant>,
}

impl FrameStats {
    /// Start counting now; frames and memory count once `warmup` has passed.
    pub fn new(warmup: Duration) -> Self {
        Self::starting_at(Instant::now(), warmup)
    }

    /// [`Self::new`] with an explicit start (tests).
    pub fn starting_at(started: Instant, warmup: Duration) -> Self {
        Self {
            started,
            warmup,
            warm_since: None,
            cpu: Histogram::new(),
            interval: Histogram::new(),
            phases: std::array::from_fn(|_| Histogram::new()),
            phase_now: [0.0; 4],
            recent_phase_ms: [[0.0; RECENT_FRAMES]; 5],
            last_frame: None,
            all_frames: 0,
            recent_ms: [0.0; RECENT_FRAMES],
            recent_interval_ms: [0.0; RECENT_FRAMES],
            recent_next: 0,
            rss_now: None,
            rss_after_warmup: None,
            rss_peak: None,
            last_rss_sample: None,
        }
    }

    /// Add `time` to `phase` of the frame being drawn (a phase may be timed in several parts;
    /// [`Self::record_frame`] closes the frame).
    pub fn add_phase(&mut self, phase: Phase, time: Duration) {
        if let Some(slot) = self.phase_now.get_mut(phase as usize) {
            *slot += time.as_secs_f64();
        }
    }

    /// Add `time` to `phase`, spent inside a span that is timed as a whole as `outer` (the
    /// stage step's pose computation inside egui's pass): it counts once, as `phase`.
    pub fn add_nested_phase(&mut self, phase: Phase, outer: Phase, time: Duration) {
        self.add_phase(phase, time);
        if let Some(slot) = self.phase_now.get_mut(outer as usize) {
            *slot -= time.as_secs_f64();
        }
    }

    /// Time `work` as part of `phase` of this frame.
    pub fn time_phase<T>(&mut self, phase: Phase, work: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let value = work();
        self.add_phase(phase, started.elapsed());
        value
    }

    /// Record one frame that took `cpu` of the window thread's time, ending at `now`, with
    /// resident memory read from `rss` (called at most every 250 ms). The phases added since
    /// the last frame are this frame's.
    pub fn record_frame(&mut self, cpu: Duration, now: Instant, rss: impl FnOnce() -> Option<u64>) {
        let ms = cpu.as_secs_f64() * 1e3;
        let mut phase_ms = [0.0f64; 5];
        for (slot, time) in phase_ms.iter_mut().zip(&mut self.phase_now) {
            *slot = time.max(0.0) * 1e3;
            *time = 0.0;
        }
        phase_ms[4] = phase_ms[..4].iter().sum::<f64>() - phase_ms[Phase::PresentWait as usize];
        for (ring, &value) in self.recent_phase_ms.iter_mut().zip(&phase_ms) {
            ring[self.recent_next] = value as f32;
        }
        let interval = self.last_frame.map(|t| now.duration_since(t).as_secs_f64() * 1e3);
        self.last_frame = Some(now);
        self.all_frames += 1;
        self.recent_ms[self.recent_next] = ms as f32;
        self.recent_interval_ms[self.recent_next] = interval.unwrap_or(f64::NAN) as f32;
        self.recent_next = (self.recent_next + 1) % RECENT_FRAMES;
        let sample_due = self.last_rss_sample.is_none_or(|t| now.duration_since(t) >= RSS_SAMPLE_EVERY);
        let warm = now.duration_since(self.started) >= self.warmup;
        if sample_due || (warm && self.warm_since.is_none()) {
            self.last_rss_sample = Some(now);
            self.rss_now = rss();
        }
        if !warm {
            return;
        }
        if self.warm_since.is_none() {
            self.warm_since = Some(now);
            self.rss_after_warmup = self.rss_now;
        } else if let Some(interval) = interval {
            self.interval.add(interval);
        }
        self.rss_peak = self.rss_peak.max(self.rss_now);
        self.cpu.add(ms);
        for (histogram, &value) in self.phases.iter_mut().zip(&phase_ms) {
            histogram.add(value);
        }
    }

    /// Median and 95th percentile of each phase after the warm-up (zeros before any frame).
    pub fn phase_times(&self) -> FramePhases {
        let zero = FrameTimes { median: 0.0, p95: 0.0 };
        let [step, ui, gpu, present, without] = std::array::from_fn(|i| self.phases[i].times().unwrap_or(zero));
        FramePhases {
            stage_step: step,
            ui_build: ui,
            gpu_encode_submit: gpu,
            present_wait: present,
            without_present: without,
        }
    }

    /// Median and 95th percentile of `phase` over the last 120 frames (`None`: the frame
    /// without its present wait), for the overlay.
    pub fn recent_phase_times(&self, phase: Option<Phase>) -> Option<FrameTimes> {
        let index = phase.map_or(4, |p| p as usize);
        recent_times(&self.recent_phase_ms[index], self.all_frames)
    }

    /// Frames counted after the warm-up.
    pub fn frames(&self) -> u64 {
        self.cpu.total
    }

    /// True once the warm-up is over.
    pub fn warmed_up(&self) -> bool {
        self.warm_since.is_some()
    }

    /// CPU milliseconds per frame after the warm-up: median and 95th percentile (`None` before
    /// any frame).
    pub fn frame_times(&self) -> Option<FrameTimes> {
        self.cpu.times()
    }

    /// Milliseconds from one frame to the next after the warm-up (`None` before two frames).
    pub fn frame_intervals(&self) -> Option<FrameTimes> {
        self.interval.times()
    }

    /// Median and 95th percentile of the CPU time of the last 120 frames (warm-up included),
    /// for the overlay.
    pub fn recent_frame_times(&self) -> Option<FrameTimes> {
        recent_times(&self.recent_ms, self.all_frames)
    }

    /// Median and 95th percentile of the time between the last 120 frames, for the overlay.
    pub fn recent_frame_intervals(&self) -> Option<FrameTimes> {
        recent_times(&self.recent_interval_ms, self.all_frames)
    }

    /// Resident memory so far.
    pub fn resident(&self) -> ResidentMemory {
        ResidentMemory { after_warmup: self.rss_after_warmup, end: self.rss_now, peak: self.rss_peak }
    }

    /// The report for `--stats-out`, at `now`.
    pub fn report(&self, now: Instant, model: String, profile: Option<String>) -> StatsReport {
        let elapsed = now.duration_since(self.started).as_secs_f64();
        let zero = FrameTimes { median: 0.0, p95: 0.0 };
        StatsReport {
            frames: self.frames(),
            cpu_ms_per_frame: self.frame_times().unwrap_or(zero),
            frame_interval_ms: self.frame_intervals().unwrap_or(zero),
            phases_ms: self.phase_times(),
            rss_kib: self.resident(),
            model,
            profile,
            warmup_secs: self.warmup.as_secs_f64(),
            measured_secs: self.warm_since.map_or(0.0, |t| now.duration_since(t).as_secs_f64()),
            frames_per_sec: if elapsed > 0.0 { self.all_frames as f64 / elapsed } else { 0.0 },
            reloads: 0,
            failed_reloads: 0,
            clips: Vec::new(),
            rewind_secs_held: 0.0,
            rewind_kib: 0.0,
        }
    }
}

/// Median and 95th percentile of the finite values among the first `count` (at most all) of a
/// ring of recent frames.
fn recent_times(ring: &[f32; RECENT_FRAMES], count: u64) -> Option<FrameTimes> {
    let mut values: [f32; RECENT_FRAMES] = *ring;
    let n = (count as usize).min(RECENT_FRAMES);
    let values = &mut values[..n];
    values.sort_by(f32::total_cmp);
    let finite = values.iter().take_while(|v| v.is_finite()).count();
    if finite == 0 {
        return None;
    }
    let at = |q: f64| f64::from(values[((finite - 1) as f64 * q).round() as usize]);
    Some(FrameTimes { median: at(0.5), p95: at(0.95) })
}

/// Histogram bucket of a frame of `ms` milliseconds.
fn bucket_of(ms: f64) -> usize {
    let ms = if ms.is_finite() { ms.max(0.0) } else { 0.0 };
    if ms < 100.0 { (ms * 100.0) as usize } else { FINE_BUCKETS + ((ms - 100.0) as usize).min(COARSE_BUCKETS - 1) }
}

/// Milliseconds in the middle of `bucket`.
fn middle_of(bucket: usize) -> f64 {
    if bucket < FINE_BUCKETS { (bucket as f64 + 0.5) / 100.0 } else { 100.0 + (bucket - FINE_BUCKETS) as f64 + 0.5 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_memory_after_the_warm_up() {
        let start = Instant::now();
        let mut stats = FrameStats::starting_at(start, Duration::from_secs(1));
        let mut rss = 1000u64;
        // 10 warm-up frames of 50 ms, not counted.
        for i in 0..10 {
            stats.record_frame(Duration::from_millis(50), start + Duration::from_millis(i * 90), || Some(rss));
        }
        assert_eq!(stats.frames(), 0);
        assert!(stats.frame_times().is_none());
        // 100 frames of 1..=100 ms after it, memory growing by 10 KiB per sample.
        for i in 1..=100u64 {
            rss += 10;
            let now = start + Duration::from_secs(1) + Duration::from_millis(i * 300);
            stats.record_frame(Duration::from_millis(i), now, || Some(rss));
        }
        assert_eq!(stats.frames(), 100);
        let intervals = stats.frame_intervals().expect("intervals");
        assert!((intervals.median - 300.0).abs() < 1.0, "{intervals:?}");
        let times = stats.frame_times().expect("frames");
        assert!((times.median - 50.5).abs() < 1.0, "{times:?}");
        assert!((times.p95 - 95.5).abs() < 1.0, "{times:?}");
        let memory = stats.resident();
        assert_eq!(memory.after_warmup, Some(1010));
        assert_eq!(memory.end, Some(2000));
        assert_eq!(memory.peak, Some(2000));
        let report = stats.report(start + Duration::from_secs(31), "m".to_owned(), None);
        assert_eq!(report.frames, 100);
        assert!((report.measured_secs - 30.0).abs() < 0.5, "{}", report.measured_secs);
        let json = serde_json::to_value(&report).expect("json");
        for key in ["frames", "cpu_ms_per_frame", "rss_kib", "model", "profile"] {
            assert!(json.get(key).is_some(), "{key} missing: {json}");
        }
        assert!(json["cpu_ms_per_frame"]["median"].is_number() && json["rss_kib"]["peak"].is_number());
        // The live view looks at the last 120 frames.
        let recent = stats.recent_frame_times().expect("recent");
        assert!(recent.median > 30.0 && recent.p95 <= 100.0, "{recent:?}");
        let intervals = stats.recent_frame_intervals().expect("recent intervals");
        assert!((intervals.median - 300.0).abs() < 1.0, "{intervals:?}");
    }

    #[test]
    fn each_frame_is_split_into_its_phases() {
        let start = Instant::now();
        let mut stats = FrameStats::starting_at(start, Duration::ZERO);
        for i in 0..100u64 {
            // The stage step in two parts (advance, then the frame's poses inside the UI pass,
            // which is timed as a whole after it): 0.1 + 0.05 ms.
            stats.add_phase(Phase::StageStep, Duration::from_micros(100));
            stats.add_nested_phase(Phase::StageStep, Phase::UiBuild, Duration::from_micros(50));
            stats.add_phase(Phase::UiBuild, Duration::from_micros(if i < 90 { 750 } else { 5_050 }));
            stats.add_phase(Phase::GpuEncodeSubmit, Duration::from_micros(400));
            stats.add_phase(Phase::PresentWait, Duration::from_millis(16));
            stats.record_frame(Duration::from_millis(2), start + Duration::from_millis(17 * (i + 1)), || None);
        }
        let phases = stats.phase_times();
        assert!((phases.stage_step.median - 0.155).abs() < 0.011, "{phases:?}");
        assert!((phases.ui_build.median - 0.705).abs() < 0.011 && phases.ui_build.p95 > 4.9, "{phases:?}");
        assert!((phases.gpu_encode_submit.median - 0.405).abs() < 0.011, "{phases:?}");
        assert!((phases.present_wait.median - 16.005).abs() < 0.011, "{phases:?}");
        assert!((phases.without_present.median - 1.255).abs() < 0.011, "{phases:?}");
        // A frame's phases do not leak into the next.
        stats.record_frame(Duration::from_millis(2), start + Duration::from_secs(3), || None);
        assert_eq!(stats.recent_phase_times(Some(Phase::StageStep)).map(|t| t.median > 0.1), Some(true));
        let json =
            serde_json::to_value(stats.report(start + Duration::from_secs(3), "m".to_owned(), None)).expect("json");
        assert!(json["phases_ms"]["stage_step"]["p95"].is_number(), "{json}");
        assert!(json["phases_ms"]["without_present"]["median"].is_number(), "{json}");
    }

    #[test]
    fn buckets_cover_short_and_long_frames() {
        assert_eq!(bucket_of(0.004), 0);
        assert!((middle_of(bucket_of(12.34)) - 12.345).abs() < 1e-9);
        assert!((middle_of(bucket_of(250.2)) - 250.5).abs() < 1e-9);
        assert_eq!(bucket_of(1e9), FINE_BUCKETS + COARSE_BUCKETS - 1);
        assert_eq!(bucket_of(f64::NAN), 0);
    }
}
