//! [`HotReload`]: the open model's file (and the `.bin` and textures it reads) watched while the
//! viewer runs ([`crate::watch::ModelWatch`]); when they change and have settled, the file is
//! loaded again in the background, and a complete model replaces the one on screen keeping the
//! viewer's state ([`super::Viewer::replace_model_keeping_state`]). A partial write or a broken
//! export fails to load: the model on screen stays, the error is shown, and the next complete
//! write loads. Counts for the status line and `--stats-out`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anim::Model;

use crate::stage::loading::LoadJob;
use crate::watch::ModelWatch;

/// Watching, reloading and their counts.
#[derive(Debug)]
pub struct HotReload {
    /// Watch the open file (on by default; the toggle in the top bar).
    pub enabled: bool,
    /// Models swapped in by a reload (this session, every file watched).
    pub reloads: u64,
    /// Reloads that did not load (the model on screen was kept; this session, every file).
    pub failed_reloads: u64,
    /// When the last reload of the watched file succeeded.
    pub last_reload: Option<Instant>,
    /// Why the last reload failed, until a later one succeeds.
    pub last_failure: Option<String>,
    watch: Option<ModelWatch>,
    watched: Option<PathBuf>,
    /// Why the file cannot be watched (no such folder, watcher limits), shown in the status.
    watch_error: Option<String>,
    job: Option<LoadJob>,
    /// The file the status line counts for, and the session's counts (`reloads`,
    /// `failed_reloads`) when it was first watched: the status shows that file's own.
    counted: Option<(PathBuf, u64, u64)>,
    debounce: Duration,
    /// Wakes the window's event loop when a watched file changes (given by the window shell).
    waker: Option<Waker>,
}

/// A callback that wakes the window (called on the watcher's thread).
#[derive(Clone)]
struct Waker(Arc<dyn Fn() + Send + Sync>);

impl std::fmt::Debug for Waker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Waker")
    }
}

impl Default for HotReload {
    fn default() -> Self {
        Self {
            enabled: true,
            reloads: 0,
            failed_reloads: 0,
            last_reload: None,
            last_failure: None,
            watch: None,
            watched: None,
            watch_error: None,
            job: None,
            counted: None,
            debounce: crate::watch::DEBOUNCE,
            waker: None,
        }
    }
}

impl HotReload {
    /// Watch `path` (the file on screen; `None`: the built-in character, nothing to watch) when
    /// enabled, else nothing. Cheap when nothing changed.
    pub fn sync(&mut self, path: Option<&Path>) {
        let wanted = path.filter(|_| self.enabled);
        if wanted == self.watched.as_deref() {
            return;
        }
        self.watch = None;
        self.watch_error = None;
        self.watched = wanted.map(Path::to_path_buf);
        // A reload of what was watched must never land on what is on screen now (another file
        // opened, or hot reload turned off while it loaded).
        if let Some(job) = self.job.take() {
            job.cancel();
        }
        if let Some(path) = wanted
            && self.counted.as_ref().is_none_or(|(counted, ..)| counted != path)
        {
            self.counted = Some((path.to_path_buf(), self.reloads, self.failed_reloads));
            self.last_reload = None;
            self.last_failure = None;
        }
        if let Some(path) = wanted {
            let waker = self.waker.clone();
            let wake = move || {
                if let Some(Waker(wake)) = &waker {
                    wake();
                }
            };
            match ModelWatch::with_debounce(path, self.debounce, wake) {
                Ok(watch) => self.watch = Some(watch),
                Err(error) => self.watch_error = Some(format!("cannot watch {}: {error}", path.display())),
            }
        }
    }

    /// Wait this long after the last write before reloading ([`crate::watch::DEBOUNCE`] by
    /// default); takes effect on the next watch.
    pub fn set_debounce(&mut self, debounce: Duration) {
        self.debounce = debounce;
        self.watched = None;
        self.watch = None;
    }

    /// Call `wake` (on the watcher's thread) whenever a watched file changes, so that a window
    /// idle in its event loop wakes up and polls: the reload then shows within the debounce
    /// time instead of at the next idle repaint. Takes effect on the next watch.
    pub fn set_waker(&mut self, wake: impl Fn() + Send + Sync + 'static) {
        self.waker = Some(Waker(Arc::new(wake)));
        self.watched = None;
        self.watch = None;
    }

    /// Re-read which files the model reads (after a reload: its `.bin` or textures may differ).
    pub fn rewatch(&mut self) {
        if let (Some(watch), Some(path)) = (self.watch.as_mut(), self.watched.as_deref())
            && let Err(error) = watch.set_model(path)
        {
            self.watch_error = Some(format!("cannot watch {}: {error}", path.display()));
        }
    }

    /// Start a reload when the watched files changed and settled; hand back a finished
    /// reload's outcome (counted). `keep_polling` is set while something is pending (the UI
    /// should repaint soon).
    pub fn poll(&mut self, now: Instant, keep_polling: &mut bool) -> Option<Result<Model, String>> {
        if let (Some(watch), Some(path)) = (&self.watch, &self.watched) {
            if watch.poll(now) {
                if let Some(job) = self.job.take() {
                    job.cancel();
                }
                self.job = Some(LoadJob::start(path, anim::import::Limits::default()));
            }
            *keep_polling |= watch.is_settling();
        }
        let outcome = self.job.as_ref()?.poll();
        *keep_polling |= outcome.is_none();
        let outcome = outcome?;
        self.job = None;
        match &outcome {
            Ok(_) => {
                self.reloads += 1;
                self.last_reload = Some(now);
                self.last_failure = None;
            }
            Err(error) => {
                self.failed_reloads += 1;
                self.last_failure = Some(error.clone());
            }
        }
        Some(outcome)
    }

    /// The status line: watching or not, the last reload and the counts.
    pub fn status(&self) -> String {
        if !self.enabled {
            return "hot reload off".to_owned();
        }
        let Some(path) = &self.watched else { return "hot reload: the built-in character has no file".to_owned() };
        if let Some(error) = &self.watch_error {
            return format!("hot reload: {error}");
        }
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let last = match self.last_reload {
            Some(at) => format!("reloaded {}", ago(at.elapsed())),
            None => "not reloaded yet".to_owned(),
        };
        let (reloads, failed_reloads) = match &self.counted {
            Some((_, reloads, failed)) => (self.reloads - reloads, self.failed_reloads - failed),
            None => (self.reloads, self.failed_reloads),
        };
        let failed = if failed_reloads > 0 { format!(", {failed_reloads} failed") } else { String::new() };
        let pending = if self.job.is_some() { " — reloading…" } else { "" };
        format!("watching {name}: {last} ({reloads} reloads{failed}){pending}")
    }

    /// The toggle and the status line.
    pub fn hot_reload_ui(&mut self, ui: &mut egui::Ui) {
        ui.checkbox(&mut self.enabled, "hot reload").on_hover_text(
            "Watch the open file (and its .bin and textures): when it is saved again, load it and keep the clip, \
             time, camera, joint, compare, ragdoll and tuning. A broken or partial save keeps the model on screen.",
        );
        super::status_line(ui, self.status());
    }
}

/// "just now", "12 s ago", "3 min ago", "2 h ago".
fn ago(elapsed: Duration) -> String {
    match elapsed.as_secs() {
        0..=1 => "just now".to_owned(),
        s @ 2..=119 => format!("{s} s ago"),
        s @ 120..=7199 => format!("{} min ago", s / 60),
        s => format!("{} h ago", s / 3600),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn a_save_wakes_the_window_without_a_repaint() {
        let dir = std::env::temp_dir().join(format!("animtune-hot-reload-wake-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("character.glb");
        std::fs::write(&path, crate::mannequin::DEFAULT_MODEL_GLB).expect("written");
        let woken = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&woken);
        let mut hot_reload = HotReload::default();
        hot_reload.set_debounce(Duration::from_secs(1));
        hot_reload.set_waker(move || _ = count.fetch_add(1, Ordering::SeqCst));
        hot_reload.sync(Some(&path));
        assert_eq!(woken.load(Ordering::SeqCst), 0);
        std::fs::write(&path, crate::mannequin::DEFAULT_MODEL_GLB).expect("saved again");
        // Nothing polls the viewer here: only the watcher can say the file changed.
        let start = Instant::now();
        while woken.load(Ordering::SeqCst) == 0 {
            assert!(start.elapsed() < Duration::from_secs(30), "the save did not wake the window");
            std::thread::sleep(Duration::from_millis(10));
        }
        // Woken, the window polls: the reload starts once the files settled.
        let mut pending = false;
        assert!(hot_reload.poll(Instant::now(), &mut pending).is_none());
        assert!(pending, "a settling change keeps the window polling");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn opening_another_file_drops_the_old_files_reload_and_counts_afresh() {
        let dir = std::env::temp_dir().join(format!("animtune-hot-reload-switch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (old, new) = (dir.join("old.glb"), dir.join("new.glb"));
        for path in [&old, &new] {
            std::fs::write(path, crate::mannequin::DEFAULT_MODEL_GLB).expect("written");
        }
        let mut hot_reload = HotReload::default();
        hot_reload.sync(Some(&old));
        // One reload of the old file done and one failed, a second one still loading.
        hot_reload.reloads = 1;
        hot_reload.failed_reloads = 1;
        hot_reload.last_reload = Some(Instant::now());
        hot_reload.job = Some(LoadJob::start(&old, anim::import::Limits::default()));
        assert!(hot_reload.status().starts_with("watching old.glb: reloaded"), "{}", hot_reload.status());
        assert!(hot_reload.status().contains("(1 reloads, 1 failed) — reloading…"), "{}", hot_reload.status());

        // Another file is opened while the old one's reload runs.
        hot_reload.sync(Some(&new));
        assert_eq!(hot_reload.status(), "watching new.glb: not reloaded yet (0 reloads)");
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(500) {
            let mut pending = false;
            assert!(
                hot_reload.poll(Instant::now(), &mut pending).is_none(),
                "the old file's reload landed on the new one"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The session's totals (written by `--stats-out`) keep every file's reloads.
        assert_eq!((hot_reload.reloads, hot_reload.failed_reloads), (1, 1));

        // Back to the first file: counted afresh too.
        hot_reload.sync(Some(&old));
        assert_eq!(hot_reload.status(), "watching old.glb: not reloaded yet (0 reloads)");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
