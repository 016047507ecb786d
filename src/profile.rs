//! Tuning profiles: every tunable of a model (interpolation override and teaching spaces,
//! cross-fade durations and easings per clip pair, the ragdoll ramp) in a readable JSON file per
//! model, loaded automatically and written atomically (a temporary file, then a rename), so a
//! crash never leaves a half-written profile.

use std::collections::BTreeMap;
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
    /// Ragdoll ramp rate (weight per second), when tuned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ragdoll_ramp_rate: Option<f32>,
}

/// Interpolation settings, by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterpolationTuning {
    /// `authored`, `step`, `linear` or `cubic`.
    pub mode: String,
    /// Per-track overrides of the current clip: track index → mode name.
    #[serde(default)]
    pub track_modes: BTreeMap<usize, String>,
    /// `slerp`, `nlerp`, `squad`, `matrix-lerp` or `euler-lerp`.
    pub rotation_space: String,
    /// `linear` or `log`.
    pub scale_space: String,
    /// An easing name.
    pub easing: String,
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
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let text = serde_json::to_string_pretty(self)? + "\n";
        {
            use std::io::Write as _;
            let mut file = std::fs::File::create(&tmp).with_context(|| format!("cannot write {}", tmp.display()))?;
            file.write_all(text.as_bytes())?;
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
        Ok(())
    }
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
