//! Watching the open model for hot reload: the file and the external files it reads (`.bin`
//! buffers, textures; [`anim::import::external_files`]) are watched with `notify` through their
//! folders (so a file replaced by rename, as many exporters save, keeps being seen), and a burst
//! of writes is reported once, after the files have been quiet for the debounce time.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher as _};

/// How long the files must be quiet before a change is reported: exporters write in several
/// steps (and some write the `.bin` after the `.gltf`).
pub const DEBOUNCE: Duration = Duration::from_millis(300);

/// The watched files and the time of the last change to any of them.
#[derive(Debug, Default)]
struct Shared {
    files: Vec<PathBuf>,
    last_change: Option<Instant>,
}

/// Watches a model's files; [`Self::poll`] says when they changed and have settled.
pub struct ModelWatch {
    watcher: RecommendedWatcher,
    shared: Arc<Mutex<Shared>>,
    folders: Vec<PathBuf>,
    debounce: Duration,
}

impl std::fmt::Debug for ModelWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelWatch").field("folders", &self.folders).field("debounce", &self.debounce).finish()
    }
}

/// `path` with its folder made absolute and canonical (the file itself may be missing for a
/// moment while an exporter replaces it).
fn normalized(path: &Path) -> PathBuf {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let folder = folder.canonicalize().unwrap_or(folder);
    match path.file_name() {
        Some(name) => folder.join(name),
        None => folder,
    }
}

impl ModelWatch {
    /// Watch the model at `path` and the files it reads. `wake` is called (on the watcher's
    /// thread) after each change, e.g. to have the UI poll again after [`DEBOUNCE`].
    ///
    /// # Errors
    /// When the platform's watcher cannot be created or a folder cannot be watched.
    pub fn new(path: &Path, wake: impl Fn() + Send + 'static) -> notify::Result<Self> {
        Self::with_debounce(path, DEBOUNCE, wake)
    }

    /// [`Self::new`] with another debounce time.
    ///
    /// # Errors
    /// See [`Self::new`].
    pub fn with_debounce(path: &Path, debounce: Duration, wake: impl Fn() + Send + 'static) -> notify::Result<Self> {
        let shared = Arc::new(Mutex::new(Shared::default()));
        let events = Arc::clone(&shared);
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if matches!(event.kind, EventKind::Access(_)) {
                return;
            }
            let mut shared = events.lock().unwrap_or_else(PoisonError::into_inner);
            if event.paths.iter().any(|p| shared.files.contains(&normalized(p))) {
                shared.last_change = Some(Instant::now());
                drop(shared);
                wake();
            }
        })?;
        let mut watch = Self { watcher, shared, folders: Vec::new(), debounce };
        watch.set_model(path)?;
        Ok(watch)
    }

    /// Watch the files of the model at `path` from now on (after a reload that may read other
    /// files, or when another model is opened). A pending change is forgotten.
    ///
    /// # Errors
    /// When a folder cannot be watched.
    pub fn set_model(&mut self, path: &Path) -> notify::Result<()> {
        let files: Vec<PathBuf> = anim::import::external_files(path).iter().map(|f| normalized(f)).collect();
        let mut folders: Vec<PathBuf> = files.iter().filter_map(|f| f.parent().map(Path::to_path_buf)).collect();
        folders.sort();
        folders.dedup();
        for old in self.folders.iter().filter(|f| !folders.contains(f)) {
            let _ = self.watcher.unwatch(old);
        }
        for folder in folders.iter().filter(|f| !self.folders.contains(f)) {
            self.watcher.watch(folder, RecursiveMode::NonRecursive)?;
        }
        self.folders = folders;
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.files = files;
        shared.last_change = None;
        Ok(())
    }

    /// The watched files (the model first).
    pub fn files(&self) -> Vec<PathBuf> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner).files.clone()
    }

    /// True once after the files changed and then stayed quiet for the debounce time (as of
    /// `now`); a change still settling returns false until it has.
    pub fn poll(&self, now: Instant) -> bool {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        match shared.last_change {
            Some(at) if now.saturating_duration_since(at) >= self.debounce => {
                shared.last_change = None;
                true
            }
            _ => false,
        }
    }

    /// True while a change is waiting for the files to settle.
    pub fn is_settling(&self) -> bool {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner).last_change.is_some()
    }

    /// The debounce time.
    pub fn debounce(&self) -> Duration {
        self.debounce
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Poll until a change is reported or `limit` passes.
    fn wait_for_change(watch: &ModelWatch, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if watch.poll(Instant::now()) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    #[test]
    fn changes_to_the_model_and_its_files_are_reported_once_after_they_settle() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = std::env::temp_dir().join(format!("animtune-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let model = dir.join("m.gltf");
        let gltf = r#"{"asset":{"version":"2.0"},"buffers":[{"uri":"m.bin","byteLength":4}],"images":[{"uri":"t.png"},{"uri":"data:image/png;base64,AA=="}]}"#;
        std::fs::write(&model, gltf)?;
        std::fs::write(dir.join("m.bin"), [0u8; 4])?;
        let woken = Arc::new(Mutex::new(0));
        let count = Arc::clone(&woken);
        let watch = ModelWatch::with_debounce(&model, Duration::from_millis(100), move || {
            *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        })?;
        let names: Vec<String> =
            watch.files().iter().filter_map(|f| f.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["m.gltf", "m.bin", "t.png"]);
        assert!(!watch.poll(Instant::now()));

        // A burst of writes: reported once, only after it settled.
        for i in 0..5u8 {
            std::fs::write(&model, format!("{gltf}{}", " ".repeat(usize::from(i))))?;
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!watch.poll(Instant::now()), "reported before the writes settled");
        assert!(wait_for_change(&watch, Duration::from_secs(30)));
        assert!(!watch.poll(Instant::now() + Duration::from_secs(1)), "reported twice");
        assert!(*woken.lock().unwrap_or_else(PoisonError::into_inner) >= 1);

        // The external buffer, and a file replaced by rename (how many exporters save).
        std::fs::write(dir.join("m.bin"), [1u8; 4])?;
        assert!(wait_for_change(&watch, Duration::from_secs(30)));
        std::fs::write(dir.join("m.tmp"), gltf)?;
        std::thread::sleep(Duration::from_millis(150));
        let _ = watch.poll(Instant::now() + Duration::from_secs(1));
        std::fs::rename(dir.join("m.tmp"), &model)?;
        assert!(wait_for_change(&watch, Duration::from_secs(30)));

        // Other files in the folder do not count.
        std::fs::write(dir.join("notes.txt"), "x")?;
        assert!(!wait_for_change(&watch, Duration::from_millis(400)));
        std::fs::remove_dir_all(&dir)?;
        Ok(())
    }
}
