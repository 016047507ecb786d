//! Model loading off the UI thread: [`LoadJob`] reads the file in chunks (reporting progress)
//! and imports it on a worker thread; the viewer polls it each frame and keeps showing the
//! current model until the new one is ready.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use anim::Model;

/// Bytes read per chunk (progress granularity).
const CHUNK_BYTES: usize = 1 << 20;

/// Where a load is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LoadStage {
    /// Reading the file: fraction read so far.
    Reading(f32),
    /// Decoding the glTF (and its external files).
    Importing,
}

/// A model being loaded on a worker thread.
#[derive(Debug)]
pub struct LoadJob {
    /// The file.
    pub path: PathBuf,
    /// When the load started.
    pub started: Instant,
    total_bytes: u64,
    read_bytes: Arc<AtomicU64>,
    importing: Arc<AtomicBool>,
    cancelled: Arc<AtomicBool>,
    result: mpsc::Receiver<Result<Model, String>>,
}

impl LoadJob {
    /// Start loading `path` under `limits` on a new thread.
    pub fn start(path: &Path, limits: anim::import::Limits) -> Self {
        let total_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
        let read_bytes = Arc::new(AtomicU64::new(0));
        let importing = Arc::new(AtomicBool::new(false));
        let cancelled = Arc::new(AtomicBool::new(false));
        let (sender, result) = mpsc::channel();
        let job = Self {
            path: path.to_path_buf(),
            started: Instant::now(),
            total_bytes,
            read_bytes: Arc::clone(&read_bytes),
            importing: Arc::clone(&importing),
            cancelled: Arc::clone(&cancelled),
            result,
        };
        let path = path.to_path_buf();
        let spawned = std::thread::Builder::new().name("model loader".to_owned()).spawn(move || {
            let outcome = load(&path, &limits, &read_bytes, &importing, &cancelled);
            // The receiver is gone when the viewer closed or moved on: nothing to report then.
            let _ = sender.send(outcome);
        });
        if let Err(error) = spawned {
            // No thread: the job reports the failure on its first poll.
            let (sender, result) = mpsc::channel();
            let _ = sender.send(Err(format!("cannot start a loader thread: {error}")));
            return Self { result, ..job };
        }
        job
    }

    /// Progress so far.
    pub fn stage(&self) -> LoadStage {
        if self.importing.load(Ordering::Relaxed) {
            LoadStage::Importing
        } else {
            let read = self.read_bytes.load(Ordering::Relaxed) as f64;
            LoadStage::Reading(if self.total_bytes > 0 { (read / self.total_bytes as f64) as f32 } else { 0.0 })
        }
    }

    /// File size in bytes (0 when unknown).
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Ask the worker to stop; its result is dropped.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// The result, once the worker finished (`None` while it runs).
    pub fn poll(&self) -> Option<Result<Model, String>> {
        match self.result.try_recv() {
            Ok(outcome) => Some(outcome),
            Err(mpsc::TryRecvError::Empty) => None,
            Err(mpsc::TryRecvError::Disconnected) => Some(Err("the loader thread stopped unexpectedly".to_owned())),
        }
    }

    /// Block until the worker finishes.
    pub fn wait(&self) -> Result<Model, String> {
        self.result.recv().unwrap_or_else(|_| Err("the loader thread stopped unexpectedly".to_owned()))
    }
}

fn load(
    path: &Path,
    limits: &anim::import::Limits,
    read_bytes: &AtomicU64,
    importing: &AtomicBool,
    cancelled: &AtomicBool,
) -> Result<Model, String> {
    let fail = |error: &dyn std::fmt::Display| format!("cannot load {}: {error}", path.display());
    let mut file = std::fs::File::open(path).map_err(|e| fail(&e))?;
    let size = file.metadata().map_err(|e| fail(&e))?.len();
    if size > limits.max_file_bytes {
        return Err(fail(&format_args!(
            "the file is {size} bytes, over the limit of {} (--max-file-mib)",
            limits.max_file_bytes
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut chunk = vec![0u8; CHUNK_BYTES];
    loop {
        if cancelled.load(Ordering::Relaxed) {
            return Err(format!("loading {} was cancelled", path.display()));
        }
        let n = file.read(&mut chunk).map_err(|e| fail(&e))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > limits.max_file_bytes {
            return Err(fail(&"the file grew past the size limit while being read"));
        }
        read_bytes.store(bytes.len() as u64, Ordering::Relaxed);
    }
    importing.store(true, Ordering::Relaxed);
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    decode::load_slice(&bytes, Some(base_dir), limits).map_err(|e| fail(&e))
}
