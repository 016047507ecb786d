//! Tuning profiles: every tunable of a model (interpolation override and teaching spaces,
//! per-channel overrides, cross-fade durations and easings per clip pair, the ragdoll ramp) in a
//! readable JSON file per model identity, loaded automatically and written atomically (a
//! temporary file, then a rename), so a crash never leaves a half-written profile.
//!
//! A model's identity ([`ModelIdentity`]) is its rig: the names of its skeleton's joints and of
//! their parents (every node's, for a model without skins). It does not depend on the path, the
//! file's bytes, its meshes, key frames or clips, so the same character opened from anywhere
//! (the built-in one or `assets/mannequin.glb`), or re-exported with new animation, finds the
//! same profile. [`TuningProfile::from_tuning`] and [`TuningProfile::to_tuning`] convert between
//! the viewer's [`Tuning`] (indices) and the file (names).

mod machine;

use std::path::{Path, PathBuf};

use anim::{ClipId, Easing, InterpolationOverride, Model, NodeId};
use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use crate::stage::machine_edit::{DriveSlot, MachineKeys};
pub use crate::stage::tuning::{ClipMarkers, ClipRootMotion, ContactMarker, RetargetEdit};
use crate::stage::tuning::{FadeTuning, Interpolation, RagdollTuning, Tuning};
pub use machine::{
    ConditionProfile, EventProfile, MachineProfile, MotionProfile, ParamProfile, StateProfile, TransitionProfile,
};

/// Version written in every profile (2 added `identity`; version 1 files still load).
pub const PROFILE_FORMAT: u32 = 2;

/// The tunables of one model. Modes and easings are stored by their names (`cubic`,
/// `smoothstep`, ...) and clips by name, so the file reads well and survives re-exports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuningProfile {
    /// [`PROFILE_FORMAT`].
    pub format: u32,
    /// The model the profile belongs to (its label when saved).
    pub model: String,
    /// The model's identity ([`ModelIdentity::key_hex`]) when saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
    /// Interpolation override and teaching spaces.
    pub interpolation: InterpolationTuning,
    /// Cross-fade settings per clip pair.
    pub transitions: Vec<Transition>,
    /// Ragdoll handoff tuning (absent in profiles of models without a ragdoll).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ragdoll: Option<RagdollProfile>,
    /// Foot-contact markers per clip (phase sync), when found or edited; absent clips have
    /// theirs found automatically.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markers: Vec<ClipMarkers>,
    /// Root motion per clip (`authored` or `in-place`); absent clips play as authored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub root_motion: Vec<ClipRootMotion>,
    /// Edits to the retarget joint table onto this model, by joint name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retarget: Vec<RetargetEdit>,
    /// Layers over what plays, in order (clips and joints by name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub layers: Vec<crate::stage::layers::LayerSpec>,
    /// The blend space (clips by name at their parameter values, the parameter, sync).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blend_space: Option<crate::stage::layers::BlendSpaceTuning>,
    /// The state machine once the user edited it (absent: built from the transition table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineProfile>,
    /// The keys that drive the machine: the states W, Shift+W and release request when picked,
    /// and the parameters bound to keys (states and parameters by name).
    #[serde(default, skip_serializing_if = "MachineKeys::is_empty")]
    pub machine_keys: MachineKeys,
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
    /// Clip to get up into from the front (display name; absent: the same as from the back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub get_up_clip_face_down: Option<String>,
    /// Joint-motor strength at the trigger (0 limp, 1 full).
    #[serde(default)]
    pub motor_strength: f32,
    /// "Active → limp" rate per second (0 keeps the strength).
    #[serde(default)]
    pub limp_rate_per_sec: f32,
    /// The pelvis follows the animation.
    #[serde(default)]
    pub pin_pelvis: bool,
    /// Partial ragdoll: the node (display name) whose body and everything below simulate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// Joint-motor stiffness per body region (torso, head, arms, legs, tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motor_stiffness: Option<[f32; 5]>,
    /// Joint-motor damping per body region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motor_damping: Option<[f32; 5]>,
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
    /// How it fades.
    #[serde(flatten)]
    pub fade: FadeProfile,
    /// The target's playback speed starts matched to the source's cycle.
    #[serde(default)]
    pub match_speed: bool,
}

impl Transition {
    /// A cross-fade row of `duration_secs` with `easing` (the other settings at their defaults).
    pub fn fade(from: &str, to: &str, duration_secs: f32, easing: &str) -> Self {
        Self {
            from: from.to_owned(),
            to: to.to_owned(),
            fade: FadeProfile {
                duration_secs,
                easing: easing.to_owned(),
                kind: default_kind(),
                decay: default_decay(),
                half_life_secs: default_half_life(),
                sync: default_sync(),
            },
            match_speed: false,
        }
    }
}

/// How a transition fades, by name: the part a row of the transition table and a transition of
/// the state machine share (flattened into both, so the fields sit beside `from` and `to`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FadeProfile {
    /// Fade length.
    pub duration_secs: f32,
    /// Easing name.
    pub easing: String,
    /// `crossfade`, `inertialize` or `dead-blend` (profiles before transition kinds: cross-fade).
    #[serde(default = "default_kind")]
    pub kind: String,
    /// Inertialization's decay curve: `quintic` or `critically-damped`.
    #[serde(default = "default_decay")]
    pub decay: String,
    /// Dead blending's velocity half-life, seconds.
    #[serde(default = "default_half_life")]
    pub half_life_secs: f32,
    /// `none` (the target from its start) or `phase` (at the source's phase); read also as
    /// `false` / `true` (how machine profiles before this wrote it).
    #[serde(default = "default_sync", deserialize_with = "sync_name")]
    pub sync: String,
}

impl FadeProfile {
    /// The profile form of `fade` (its `match_speed` is the table row's, not a fade's).
    pub fn of(fade: &FadeTuning) -> Self {
        Self {
            duration_secs: fade.duration_secs,
            easing: fade.easing.name().to_owned(),
            kind: fade.kind.name().to_owned(),
            decay: fade.decay.name().to_owned(),
            half_life_secs: fade.half_life_secs,
            sync: if fade.phase_sync { "phase" } else { "none" }.to_owned(),
        }
    }

    /// The fade these names describe (`match_speed` off): `None` when the easing is unknown;
    /// an unknown kind (a cross-fade), decay or sync (the default kept) is pushed onto
    /// `problems` (`kind "x" unknown`) and the rest still read.
    pub fn to_fade(&self, problems: &mut Vec<String>) -> Option<FadeTuning> {
        let Ok(easing) = self.easing.parse::<Easing>() else {
            problems.push(format!("easing \"{}\" unknown", self.easing));
            return None;
        };
        let mut fade = FadeTuning::cross_fade(self.duration_secs, easing);
        match self.kind.parse() {
            Ok(kind) => fade.kind = kind,
            Err(_) => problems.push(format!("kind \"{}\" unknown (a cross-fade)", self.kind)),
        }
        match self.decay.parse() {
            Ok(decay) => fade.decay = decay,
            Err(_) => problems.push(format!("decay \"{}\" unknown", self.decay)),
        }
        match self.sync.as_str() {
            "none" => {}
            "phase" => fade.phase_sync = true,
            other => problems.push(format!("sync \"{other}\" unknown")),
        }
        fade.half_life_secs = self.half_life_secs;
        Some(fade)
    }
}

/// Reads `sync` as a name or as the bool machine profiles wrote before [`FadeProfile`].
fn sync_name<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Sync {
        Flag(bool),
        Name(String),
    }
    Ok(match Sync::deserialize(deserializer)? {
        Sync::Flag(phase) => if phase { "phase" } else { "none" }.to_owned(),
        Sync::Name(name) => name,
    })
}

fn default_kind() -> String {
    anim::TransitionKind::CrossFade.name().to_owned()
}

fn default_decay() -> String {
    anim::OffsetDecay::Quintic.name().to_owned()
}

fn default_half_life() -> f32 {
    anim::crossfade::DEFAULT_HALF_LIFE_SECS
}

fn default_sync() -> String {
    "none".to_owned()
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
            (1..=PROFILE_FORMAT).contains(&profile.format),
            "{}: profile format {} (this animtune reads 1 to {PROFILE_FORMAT})",
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

/// Where animtune before model identities kept the profile of a model label (the label's file
/// name made safe plus a short hash of the label); read once to migrate such a profile.
pub fn legacy_profile_path(dir: &Path, model_label: &str) -> PathBuf {
    let stem = Path::new(model_label).file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    dir.join(format!("{}-{:08x}.json", safe_file_stem(stem), fnv1a64(model_label.as_bytes()) as u32))
}

pub use crate::stage::selection::node_display_name;

/// How much of a profile fitted the model it was applied to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProfileFit {
    /// Settings applied.
    pub applied: usize,
    /// What was skipped and why (a clip or node the model lacks, a name that does not parse).
    pub skipped: Vec<String>,
}

impl ProfileFit {
    /// "12 settings applied" or "10 settings applied, 2 skipped (clip Swim: not in this model; ...)".
    pub fn summary(&self) -> String {
        if self.skipped.is_empty() {
            format!("{} settings applied", self.applied)
        } else {
            let shown: Vec<&str> = self.skipped.iter().take(3).map(String::as_str).collect();
            let more =
                if self.skipped.len() > 3 { format!("; {} more", self.skipped.len() - 3) } else { String::new() };
            format!("{} settings applied, {} skipped ({}{more})", self.applied, self.skipped.len(), shown.join("; "))
        }
    }
}

impl TuningProfile {
    /// The profile of `tuning` on `model` (clips and nodes by name).
    pub fn from_tuning(tuning: &Tuning, model: &Model, identity: &ModelIdentity, label: &str) -> Self {
        let clip_name = |clip: ClipId| model.clip(clip).map(|c| c.display_name(clip.index())).unwrap_or_default();
        let interpolation = tuning.interpolation();
        TuningProfile {
            format: PROFILE_FORMAT,
            model: label.to_owned(),
            identity: Some(identity.key_hex()),
            interpolation: InterpolationTuning {
                mode: interpolation.mode.name().to_owned(),
                channel_modes: tuning
                    .channel_modes()
                    .filter_map(|(clip, track, mode)| {
                        let track = model.clip(clip)?.track(track)?;
                        Some(ChannelMode {
                            clip: clip_name(clip),
                            node: node_display_name(model, track.node),
                            channel: track.property().gltf_name().to_owned(),
                            mode: mode.name().to_owned(),
                        })
                    })
                    .collect(),
                rotation_space: interpolation.rotation_space.name().to_owned(),
                scale_space: interpolation.scale_space.name().to_owned(),
                easing: interpolation.easing.name().to_owned(),
            },
            transitions: tuning
                .transitions()
                .map(|((from, to), fade)| Transition {
                    from: clip_name(from),
                    to: clip_name(to),
                    fade: FadeProfile::of(&fade),
                    match_speed: fade.match_speed,
                })
                .collect(),
            ragdoll: Some({
                let r = &tuning.ragdoll;
                let defaults = crate::physics::MotorGains::default();
                RagdollProfile {
                    ramp_rate_per_sec: r.ramp_rate_per_sec,
                    easing: r.easing.name().to_owned(),
                    get_up_clip: clip_name(r.get_up_clip),
                    get_up_secs: r.get_up_secs,
                    push_newton_secs: r.push_newton_secs,
                    get_up_clip_face_down: r.get_up_clip_face_down.map(clip_name),
                    motor_strength: r.motor_strength,
                    limp_rate_per_sec: r.limp_rate_per_sec,
                    pin_pelvis: r.pin_pelvis,
                    region: r.region.map(|n| node_display_name(model, n)),
                    motor_stiffness: (r.gains.stiffness != defaults.stiffness).then_some(r.gains.stiffness),
                    motor_damping: (r.gains.damping != defaults.damping).then_some(r.gains.damping),
                }
            }),
            markers: tuning.clip_extras.markers.clone(),
            root_motion: tuning.clip_extras.root_motion.clone(),
            retarget: tuning.retarget_edits.clone(),
            layers: tuning.clip_extras.layers.clone(),
            blend_space: tuning.clip_extras.blend_space.clone(),
            machine: tuning.machine.as_ref().map(|m| MachineProfile::of(m, model)),
            machine_keys: tuning.machine_keys.clone(),
        }
    }

    /// The tuning this profile describes for `model`, starting from authored settings: names
    /// that do not parse and clips or nodes the model lacks are skipped (and listed), numbers
    /// out of range are clamped, non-finite ones keep the default.
    pub fn to_tuning(&self, model: &Model) -> (Tuning, ProfileFit) {
        let mut tuning = Tuning::authored(model);
        let mut fit = ProfileFit::default();
        let clip_id = |name: &str| model.clip_ids().find(|&(i, c)| c.display_name(i.index()) == name).map(|(i, _)| i);
        let i = &self.interpolation;
        let unknown =
            |what: &str, text: &str, fit: &mut ProfileFit| fit.skipped.push(format!("{what} \"{text}\": unknown"));
        let mut interpolation = Interpolation::AUTHORED;
        match i.mode.parse::<InterpolationOverride>() {
            Ok(mode) => interpolation.mode = mode,
            Err(_) => unknown("mode", &i.mode, &mut fit),
        }
        match i.rotation_space.parse() {
            Ok(space) => interpolation.rotation_space = space,
            Err(_) => unknown("rotation space", &i.rotation_space, &mut fit),
        }
        match i.scale_space.parse() {
            Ok(space) => interpolation.scale_space = space,
            Err(_) => unknown("scale space", &i.scale_space, &mut fit),
        }
        match i.easing.parse() {
            Ok(easing) => interpolation.easing = easing,
            Err(_) => unknown("easing", &i.easing, &mut fit),
        }
        fit.applied += 4 - fit.skipped.len();
        tuning.set_interpolation(interpolation);
        for channel in &i.channel_modes {
            let Some(clip) = clip_id(&channel.clip) else {
                fit.skipped.push(format!("override on clip {}: not in this model", channel.clip));
                continue;
            };
            let Ok(mode) = channel.mode.parse::<InterpolationOverride>() else {
                fit.skipped.push(format!("override mode \"{}\": unknown", channel.mode));
                continue;
            };
            let track = model.clip(clip).and_then(|c| {
                c.track_ids().find_map(|(id, t)| {
                    (t.property().gltf_name() == channel.channel && node_display_name(model, t.node) == channel.node)
                        .then_some(id)
                })
            });
            match track {
                Some(track) => {
                    tuning.set_channel_mode(clip, track, Some(mode));
                    fit.applied += 1;
                }
                None => fit.skipped.push(format!(
                    "override on {} {} in {}: no such channel",
                    channel.node, channel.channel, channel.clip
                )),
            }
        }
        for t in &self.transitions {
            let pair = format!("fade {} -> {}", t.from, t.to);
            let (Some(from), Some(to)) = (clip_id(&t.from), clip_id(&t.to)) else {
                let missing = if clip_id(&t.from).is_none() { &t.from } else { &t.to };
                fit.skipped.push(format!("{pair}: clip {missing} not in this model"));
                continue;
            };
            let mut problems = Vec::new();
            let fade = t.fade.to_fade(&mut problems);
            fit.skipped.extend(problems.into_iter().map(|p| format!("{pair}: {p}")));
            if let Some(fade) = fade {
                tuning.set_transition(from, to, FadeTuning { match_speed: t.match_speed, ..fade });
                fit.applied += 1;
            }
        }
        if let Some(r) = &self.ragdoll {
            let d = RagdollTuning::default();
            let finite_in =
                |v: f32, lo: f32, hi: f32, fallback: f32| if v.is_finite() { v.clamp(lo, hi) } else { fallback };
            let node_id = |name: &str| model.node_ids().find(|&n| node_display_name(model, n) == name);
            let gains = |values: Option<[f32; 5]>, fallback: [f32; 5], hi: f32| {
                values.map_or(fallback, |v| {
                    std::array::from_fn(|i| if v[i].is_finite() { v[i].clamp(0.0, hi) } else { fallback[i] })
                })
            };
            tuning.ragdoll = RagdollTuning {
                ramp_rate_per_sec: finite_in(r.ramp_rate_per_sec, 0.01, 10_000.0, d.ramp_rate_per_sec),
                easing: r.easing.parse().unwrap_or(d.easing),
                get_up_clip: clip_id(&r.get_up_clip).unwrap_or(d.get_up_clip),
                get_up_secs: finite_in(r.get_up_secs, 0.0, 10.0, d.get_up_secs),
                push_newton_secs: finite_in(r.push_newton_secs, 0.0, 10_000.0, d.push_newton_secs),
                get_up_clip_face_down: r.get_up_clip_face_down.as_deref().and_then(clip_id),
                motor_strength: finite_in(r.motor_strength, 0.0, 1.0, d.motor_strength),
                limp_rate_per_sec: finite_in(r.limp_rate_per_sec, 0.0, 1_000.0, d.limp_rate_per_sec),
                pin_pelvis: r.pin_pelvis,
                region: r.region.as_deref().and_then(node_id),
                gains: crate::physics::MotorGains {
                    stiffness: gains(r.motor_stiffness, d.gains.stiffness, 20_000.0),
                    damping: gains(r.motor_damping, d.gains.damping, 2_000.0),
                },
            };
            fit.applied += 5;
            if let Some(region) = r.region.as_deref().filter(|n| node_id(n).is_none()) {
                fit.skipped.push(format!("ragdoll region {region}: no such node"));
            }
            if clip_id(&r.get_up_clip).is_none() && !model.clips().is_empty() {
                fit.skipped.push(format!("get-up clip {}: not in this model", r.get_up_clip));
            }
        }
        for layer in &self.layers {
            if let Err(e) = layer.resolve(model) {
                fit.skipped.push(format!("layer {}: {e}", layer.to_arg()));
            }
        }
        if let Some(Err(e)) = self.blend_space.as_ref().map(|b| b.space.resolve(model)) {
            fit.skipped.push(format!("blend space: {e}"));
        }
        tuning.clip_extras = crate::stage::tuning::ClipExtras {
            markers: self.markers.clone(),
            root_motion: self.root_motion.clone(),
            layers: self.layers.clone(),
            blend_space: self.blend_space.clone(),
        };
        tuning.retarget_edits = self.retarget.clone();
        if let Some(machine) = &self.machine {
            match machine.to_machine(model) {
                Ok(machine) => {
                    tuning.machine = Some(machine);
                    fit.applied += 1;
                }
                Err(e) => fit.skipped.push(format!("state machine (built from the table instead): {e}")),
            }
        }
        tuning.machine_keys = self.machine_keys_on(&tuning, model, &mut fit);
        (tuning, fit)
    }

    /// The profile's drive picks and key bindings whose states and parameters exist in the
    /// machine `tuning` runs on `model` (its edited machine, else the table's: one state per
    /// clip, no parameters); the others are skipped and listed in `fit`.
    fn machine_keys_on(&self, tuning: &Tuning, model: &Model, fit: &mut ProfileFit) -> MachineKeys {
        let table_states = crate::stage::machine::state_names(model);
        let state_exists = |name: &str| match &tuning.machine {
            Some(machine) => machine.find_state(name).is_some(),
            None => table_states.iter().any(|s| s == name),
        };
        let param_exists = |name: &str| tuning.machine.as_ref().is_some_and(|m| m.find_param(name).is_some());
        let mut keys = self.machine_keys.clone();
        for slot in DriveSlot::ALL {
            let Some(name) = keys.drive.get(slot).map(str::to_owned) else { continue };
            if state_exists(&name) {
                fit.applied += 1;
            } else {
                fit.skipped.push(format!("{} key's state {name}: no such state (found by name instead)", slot.name()));
                keys.drive.set(slot, None);
            }
        }
        keys.bindings.retain(|b| {
            let exists = param_exists(&b.param);
            if exists {
                fit.applied += 1;
            } else {
                fit.skipped.push(format!("key {} of parameter {}: no such parameter", b.key, b.param));
            }
            exists
        });
        keys
    }
}

/// Who a model is, for its tuning profile: a hash of its rig (joint names and their parents'
/// names; every node's for a model without skins) and a readable name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ModelIdentity {
    /// Readable part of the profile's file name (the skin's or root joint's name, made safe).
    pub name: String,
    /// 64-bit FNV-1a hash of the rig signature.
    pub key: u64,
}

impl ModelIdentity {
    /// The identity of `model`. `source_stem` (the file name without extension) is used only
    /// when no node of the rig has a name, so that unnamed models do not all share one profile.
    pub fn of(model: &Model, source_stem: Option<&str>) -> Self {
        let mut rig: Vec<NodeId> = model.skins().iter().flat_map(|s| s.joints.iter().copied()).collect();
        rig.sort_unstable();
        rig.dedup();
        if rig.is_empty() {
            rig = model.node_ids().collect();
        }
        let name_of = |node: NodeId| model.node(node).and_then(|n| n.name.clone());
        let parent = |node: NodeId| model.hierarchy.parent(node);
        let mut lines: Vec<String> = rig
            .iter()
            .map(|&node| {
                let parent = parent(node).map_or_else(|| "^".to_owned(), |p| name_of(p).unwrap_or_default());
                format!("{}<{parent}", name_of(node).unwrap_or_default())
            })
            .collect();
        lines.sort_unstable();
        let any_named = rig.iter().any(|&n| name_of(n).is_some_and(|s| !s.is_empty()));
        let mut signature = lines.join("\n");
        if !any_named {
            signature.push_str("\nfile:");
            signature.push_str(source_stem.unwrap_or(""));
        }
        let rig_root = rig.iter().copied().find(|&n| parent(n).is_none_or(|p| !rig.contains(&p)));
        let readable = model
            .skins()
            .iter()
            .find_map(|s| s.name.clone().filter(|n| !n.is_empty()))
            .or_else(|| rig_root.and_then(name_of).filter(|n| !n.is_empty()))
            .or_else(|| source_stem.map(str::to_owned))
            .unwrap_or_else(|| "model".to_owned());
        Self { name: safe_file_stem(&readable), key: fnv1a64(signature.as_bytes()) }
    }

    /// The key as 16 hex digits.
    pub fn key_hex(&self) -> String {
        format!("{:016x}", self.key)
    }

    /// The profile file name: `NAME-KEY.json`.
    pub fn file_name(&self) -> String {
        format!("{}-{}.json", self.name, self.key_hex())
    }

    /// The profile file for this identity inside `dir`.
    pub fn profile_path(&self, dir: &Path) -> PathBuf {
        dir.join(self.file_name())
    }
}

/// A file-name-safe version of `text` (ASCII letters, digits, `-` and `_`; at most 60).
fn safe_file_stem(text: &str) -> String {
    let safe: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .take(60)
        .collect();
    if safe.is_empty() { "model".to_owned() } else { safe }
}

/// FNV-1a, 64 bits: stable across runs and platforms (std's hasher is not).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Viewer settings remembered between runs (not per model): `viewer.json` beside `recent.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ViewerSettings {
    /// Width of the side panel, in points.
    pub side_panel_width: f32,
}

impl Default for ViewerSettings {
    fn default() -> Self {
        Self { side_panel_width: 400.0 }
    }
}

impl ViewerSettings {
    /// Read the settings (the defaults when the file is missing or unreadable).
    pub fn load(path: &Path) -> Self {
        std::fs::read_to_string(path).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
    }

    /// Write the settings atomically.
    ///
    /// # Errors
    /// When the file cannot be written.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        write_json_atomic(self, path)
    }
}

/// The viewer settings file for a profiles folder: `viewer.json` in its parent.
pub fn viewer_settings_path(profile_dir: &Path) -> PathBuf {
    profile_dir.parent().unwrap_or(profile_dir).join("viewer.json")
}
