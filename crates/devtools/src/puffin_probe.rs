//! A headless client of the viewer's profiler server (`--features puffin`): connects to it,
//! keeps the frames it receives for a while and prints each scope's time per frame (median,
//! p95, maximum over the frames seen), so the scopes can be checked without `puffin_viewer`.
//! Built only with this crate's `puffin-probe` feature (`cargo xtask` stays free of it).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use puffin::{FrameView, Reader, ScopeId, Stream};

/// One scope's time per frame over the frames the probe kept.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeFigures {
    /// The scope's name.
    pub name: String,
    /// Frames in which it ran at least once.
    pub frames: usize,
    /// Median over those frames of its summed time in the frame, milliseconds.
    pub median_ms: f64,
    /// 95th percentile of the same, milliseconds.
    pub p95_ms: f64,
    /// Largest, milliseconds.
    pub max_ms: f64,
}

/// Connect to `addr`, wait up to `connect_secs` for the server, keep what arrives for
/// `listen_secs`, and return the frames seen and each scope's figures, by name.
pub fn probe(addr: &str, connect_secs: f64, listen_secs: f64) -> anyhow::Result<(usize, Vec<ScopeFigures>)> {
    let client = puffin_http::Client::new(addr.to_owned());
    let started = Instant::now();
    while !client.connected() {
        if started.elapsed().as_secs_f64() > connect_secs {
            bail!("no profiler server answered on {addr} within {connect_secs} s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    client.frame_view().set_max_recent(100_000);
    std::thread::sleep(Duration::from_secs_f64(listen_secs));
    let view = client.frame_view();
    figures(&view)
}

/// The frames in `view` and each scope's time per frame.
pub fn figures(view: &FrameView) -> anyhow::Result<(usize, Vec<ScopeFigures>)> {
    let names = view.scope_collection();
    let mut per_scope: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut frames = 0;
    for frame in view.recent_frames() {
        let unpacked = frame.unpacked().context("a profiler frame could not be unpacked")?;
        frames += 1;
        let mut in_frame: BTreeMap<ScopeId, i64> = BTreeMap::new();
        for stream in unpacked.thread_streams.values() {
            add_scopes(&stream.stream, 0, &mut in_frame)?;
        }
        for (id, nanos) in in_frame {
            let name =
                names.fetch_by_id(&id).map(|d| d.name().to_string()).unwrap_or_else(|| format!("scope {}", id.0));
            per_scope.entry(name).or_default().push(nanos as f64 * 1e-6);
        }
    }
    let mut out = Vec::with_capacity(per_scope.len());
    for (name, mut ms) in per_scope {
        ms.sort_by(f64::total_cmp);
        let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
        out.push(ScopeFigures { name, frames: ms.len(), median_ms: at(0.5), p95_ms: at(0.95), max_ms: at(1.0) });
    }
    Ok((frames, out))
}

/// Every scope from `offset` on (siblings and, recursively, their children) added to `totals`.
fn add_scopes(stream: &Stream, offset: u64, totals: &mut BTreeMap<ScopeId, i64>) -> anyhow::Result<()> {
    let reader = Reader::with_offset(stream, offset).map_err(|e| anyhow::anyhow!("a profiler stream: {e:?}"))?;
    for scope in reader {
        let scope = scope.map_err(|e| anyhow::anyhow!("a profiler scope: {e:?}"))?;
        *totals.entry(scope.id).or_default() += scope.record.duration_ns;
        if scope.child_end_position > scope.child_begin_position {
            add_scopes(stream, scope.child_begin_position, totals)?;
        }
    }
    Ok(())
}

/// The figures as a table: scope, frames, median, p95 and maximum milliseconds.
pub fn table(frames: usize, figures: &[ScopeFigures]) -> String {
    let mut s = format!(
        "{frames} frames\n{:<24} {:>7} {:>10} {:>10} {:>10}\n",
        "scope", "frames", "median_ms", "p95_ms", "max_ms"
    );
    for f in figures {
        s.push_str(&format!(
            "{:<24} {:>7} {:>10.3} {:>10.3} {:>10.3}\n",
            f.name, f.frames, f.median_ms, f.p95_ms, f.max_ms
        ));
    }
    s
}
