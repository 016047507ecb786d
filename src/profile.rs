//! Tuning profiles: every tunable of a model (interpolation override and teaching spaces,
//! cross-fade durations and easings per clip pair, the ragdoll ramp) in a readable JSON file per
//! model, loaded automatically and written atomically (a temporary file, then a rename), so a
//! crash never leaves a half-written profile.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

/// Version written in every profile.
pub const PROFILE_FORMAT: u32 = 1;

/// The tunables of one model. Modes and easings are stored by their names (`cubic`,
/// `smoothstep`, ...) and clips by name, so the file reads well and survives re-exports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuningProfile {
    /// [`PROFILE_FORMAT`].
    pub format: u32,
    /// The model the profile belongs to (its label when saved).
    pub model: String,
    /// Interpolation override and teaching spaces.
    pub interpolation: InterpolationTuning,
    /// Cross-fade settings per clip pair.
    pub transitions: Vec<Transition>,
    /// Ragdoll handoff tuning (absent in profiles of models without a ragdoll).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ragdoll: Option<RagdollProfile>,
}

/// The ragdoll handoff's tunables, by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RagdollProfile {
    /// Ramp rate of `ragdoll_weight`, per second (5 = full ragdoll after 0.2 s).
    pub ramp_rate_per_sec: f32,
    /// Easing name of the ramp (and of the get-up blend).
    pub easing: String,
    /// Clip to get up into (display name).
    pub get_up_clip: String,
    /// Length of the get-up blend, seconds.
    pub get_up_secs: f32,
    /// Push on the selected bone at the trigger, newton-seconds.
    pub push_newton_secs: f32,
}

/// Interpolation settings, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterpolationTuning {
    /// `authored`, `step`, `linear` or `cubic`.
    pub mode: String,
    /// Per-channel overrides, on top of `mode`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub channel_modes: Vec<ChannelMode>,
    /// `slerp`, `nlerp`, `squad`, `matrix-lerp` or `euler-lerp`.
    pub rotation_space: String,
    /// `linear` or `log`.
    pub scale_space: String,
    /// An easing name.
    pub easing: String,
}

/// The interpolation override of one animated channel of one clip.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelMode {
    /// Clip (display name).
    pub clip: String,
    /// Node (display name).
    pub node: String,
    /// `translation`, `rotation`, `scale` or `weights`.
    pub channel: String,
    /// `authored`, `step`, `linear` or `cubic`.
    pub mode: String,
}

/// One row of the transition table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    /// Clip faded from (display name).
    pub from: String,
    /// Clip faded to (display name).
    pub to: String,
    /// Fade length.
    pub duration_secs: f32,
    /// Easing name.
    pub easing: String,
}

impl TuningProfile {
    /// Read a profile.
    ///
    /// # Errors
    /// When the file cannot be read or is not a profile.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let profile: Self =
            serde_json::from_str(&text).with_context(|| format!("{} is not a tuning profile", path.display()))?;
        anyhow::ensure!(
            profile.format == PROFILE_FORMAT,
            "{}: profile format {} (this animtune reads {PROFILE_FORMAT})",
            path.display(),
            profile.format
        );
        Ok(profile)
    }

    /// Write the profile atomically: to `NAME.tmp` beside it, flushed, then renamed over `path`.
    ///
    /// # Errors
    /// When the folder cannot be created or the file cannot be written.
    pub fn save_atomic(&self, path: &Path) -> anyhow::Result<()> {
        write_json_atomic(self, path)
    }
}

/// Write `value` as pretty JSON atomically: to `NAME.tmp` beside `path`, flushed, then renamed.
///
/// # Errors
/// When the folder cannot be created or the file cannot be written.
pub fn write_json_atomic<T: Serialize>(value: &T, path: &Path) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let text = serde_json::to_string_pretty(value)? + "\n";
    {
        use std::io::Write as _;
        let mut file = std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Most files File ▸ Recent remembers.
pub const MAX_RECENT_FILES: usize = 10;

/// The models opened last, newest first, kept in `recent.json` beside the profiles folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentFiles {
    /// Absolute paths, newest first, without repeats.
    pub paths: Vec<PathBuf>,
}

impl RecentFiles {
    /// Read the list (empty when the file is missing or unreadable: it is only a convenience).
    pub fn load(path: &Path) -> Self {
        std::fs::read_to_string(path).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
    }

    /// Put `file` first (made absolute), dropping an older entry for it and the oldest beyond
    /// [`MAX_RECENT_FILES`].
    pub fn add(&mut self, file: &Path) {
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        self.paths.retain(|p| p != &file);
        self.paths.insert(0, file);
        self.paths.truncate(MAX_RECENT_FILES);
    }

    /// Write the list atomically.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        write_json_atomic(self, path)
    }
}

/// The recent-files list for a profiles folder: `recent.json` in its parent
/// (`~/.config/animtune/recent.json`).
pub fn recent_files_path(profile_dir: &Path) -> PathBuf {
    profile_dir.parent().unwrap_or(profile_dir).join("recent.json")
}

/// Where profiles live: `$XDG_CONFIG_HOME/animtune/profiles`, else `~/.config/animtune/profiles`.
pub fn default_profile_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("animtune").join("profiles"))
}

/// The profile file for a model label inside `dir`: the label's file name made safe, plus a
/// short hash of the whole label so that two `scene.glb` in different folders do not collide.
pub fn profile_path(dir: &Path, model_label: &str) -> PathBuf {
    let stem = Path::new(model_label).file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let safe: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .take(60)
        .collect();
    // FNV-1a: stable across runs and platforms (std's hasher is not).
    let hash =
        model_label.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    dir.join(format!("{safe}-{:08x}.json", hash as u32))
}
