//! `animtune transition`: measure one pair's transition at several trigger times
//! ([`crate::transitions::measure`]), every tuned pair of the model's profile (`--table`), and
//! write the profile's table as plain JSON for an engine (`--export`).

use std::path::{Path, PathBuf};

use anim::crossfade::DEFAULT_HALF_LIFE_SECS;
use anim::{ClipId, Easing, Model, OffsetDecay, RootMotion, Transition, TransitionKind};
use anyhow::Context as _;
use serde::Serialize;

use super::{Format, LimitArgs};
use crate::profile::{ClipMarkers, ContactMarker, ModelIdentity, TuningProfile};
use crate::transitions::{Contact, End, PairSettings, Rig, Sync, TransitionReport, measure, measure_ends};

/// Trigger times used when none are given: this many, spread over the source clip.
const DEFAULT_TRIGGERS: usize = 5;

/// `animtune transition` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct TransitionArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// Source clip (name or index).
    #[arg(long, required_unless_present_any = ["table", "from_blend_space"], conflicts_with = "from_blend_space")]
    pub from: Option<String>,
    /// Target clip (name or index).
    #[arg(long, required_unless_present_any = ["table", "to_blend_space"], conflicts_with = "to_blend_space")]
    pub to: Option<String>,
    /// A blend space as the source instead of --from: its clips at parameter values,
    /// `NAME=X,...` (one axis) or `NAME=X,Y,...` (two), as `animtune blend-space --clip` takes
    /// them; played in phase from phase 0 at --at-param, --at counting seconds of its playback.
    #[arg(long, value_name = "NAME=X[,Y],...", value_parser = super::render::parse_blend_points, allow_hyphen_values = true, conflicts_with = "to_blend_space")]
    pub from_blend_space: Option<super::render::BlendPoints>,
    /// A blend space as the target instead of --to (the same syntax), from phase 0 at
    /// --at-param.
    #[arg(long, value_name = "NAME=X[,Y],...", value_parser = super::render::parse_blend_points, allow_hyphen_values = true)]
    pub to_blend_space: Option<super::render::BlendPoints>,
    /// The blend space's parameter, `X` or `X,Y` (default: its first clip's position).
    #[arg(long, value_name = "X[,Y]", value_parser = crate::stage::layers::parse_point, allow_hyphen_values = true)]
    pub at_param: Option<(f32, Option<f32>)>,
    /// Source clip time(s) of the trigger, comma-separated (from a blend space: seconds of its
    /// playback) [default: 5 times spread over the source clip or the blend space's cycle].
    #[arg(long, value_parser = super::sample::parse_times)]
    pub at: Option<std::vec::Vec<f64>>,
    /// Length of the fade or of the offset's decay, seconds.
    #[arg(long, default_value_t = 0.3)]
    pub duration: f32,
    /// crossfade, inertialize or dead-blend.
    #[arg(long, default_value = "crossfade")]
    pub kind: TransitionKind,
    /// Easing of the fade weight (crossfade, dead-blend).
    #[arg(long, default_value = "smoothstep")]
    pub easing: Easing,
    /// Decay of the inertialization offset: quintic or critically-damped.
    #[arg(long, default_value = "quintic")]
    pub decay: OffsetDecay,
    /// Velocity half-life of dead blending's extrapolation, seconds.
    #[arg(long, default_value_t = DEFAULT_HALF_LIFE_SECS)]
    pub half_life: f32,
    /// Where the target starts: none (its start) or phase (the source's phase).
    #[arg(long, value_enum, default_value_t)]
    pub sync: Sync,
    /// Start the target at the source's cycle rate, reaching its own over the duration.
    #[arg(long)]
    pub match_speed: bool,
    /// Start the target at this clip time instead (overrides --sync).
    #[arg(long, value_name = "SECS")]
    pub target_start: Option<f32>,
    /// authored or in-place (horizontal root motion into a character offset).
    #[arg(long, default_value = "authored")]
    pub root_motion: RootMotion,
    /// Loops of the target played after the transition.
    #[arg(long, default_value_t = 1)]
    pub loops: u32,
    /// Measure every tuned pair of the model's profile instead of one pair.
    #[arg(long)]
    pub table: bool,
    /// The profile for --table and --export [default: the model's profile in the profiles
    /// folder].
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Write the profile's transition table as engine-ready JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `animtune transition --table`'s report.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TableReport {
    /// The model.
    pub model: String,
    /// The profile read.
    pub profile: String,
    /// Every tuned pair, in the profile's order.
    pub pairs: Vec<TransitionReport>,
}

/// Run `animtune transition`.
///
/// # Errors
/// When the model or profile cannot be loaded, a clip is unknown, or the export cannot be
/// written.
pub fn run(args: &TransitionArgs) -> anyhow::Result<String> {
    let (model, label) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    anyhow::ensure!(!model.clips().is_empty(), "{label} has no animations to transition between");
    let rig = Rig::new(&model);
    let settings = PairSettings {
        transition: Transition {
            easing: args.easing,
            decay: args.decay,
            half_life_secs: args.half_life,
            ..Transition::new(args.kind, args.duration)
        },
        sync: args.sync,
        match_speed: args.match_speed,
        root_motion: args.root_motion,
        loops: args.loops,
        start_secs: args.target_start.filter(|t| t.is_finite()),
    };
    anyhow::ensure!(
        args.duration.is_finite() && (0.0..=10.0).contains(&args.duration),
        "--duration takes 0 to 10 seconds"
    );
    anyhow::ensure!(args.half_life.is_finite() && args.half_life >= 0.0, "--half-life takes seconds ≥ 0");
    anyhow::ensure!(args.loops <= 100, "--loops takes 0 to 100");
    let times = |from: ClipId| -> Vec<f32> {
        match &args.at {
            Some(at) => at.iter().map(|&t| t as f32).collect(),
            None => {
                let secs = model[from].end_secs();
                (0..DEFAULT_TRIGGERS).map(|i| secs * (i as f32 + 0.5) / DEFAULT_TRIGGERS as f32).collect()
            }
        }
    };
    if args.table || args.export.is_some() {
        let (profile, path) = load_profile(&model, args.model.as_deref(), args.profile.as_deref())?;
        if let Some(out) = &args.export {
            let export = TransitionExport::new(&model, &rig, &profile)?;
            crate::profile::write_json_atomic(&export, out)
                .with_context(|| format!("cannot write the export {}", out.display()))?;
        }
        if !args.table {
            return Ok(format!("wrote {} transitions to {}\n", profile.transitions.len(), export_label(args)));
        }
        let mut pairs = Vec::new();
        for row in &profile.transitions {
            let from = super::find_clip(&model, &row.from).with_context(|| format!("profile {}", path.display()))?;
            let to = super::find_clip(&model, &row.to).with_context(|| format!("profile {}", path.display()))?;
            let pair = pair_settings_of(row, &profile, &model, from, settings)?;
            let contacts =
                [profile_contacts(&rig, &model, from, &profile), profile_contacts(&rig, &model, to, &profile)];
            pairs.push(measure(&model, &rig, from, to, &times(from), &pair, Some(contacts)));
        }
        let report = TableReport { model: label, profile: path.display().to_string(), pairs };
        return Ok(match args.format {
            Format::Text => report.pairs.iter().map(TransitionReport::to_text).collect::<Vec<_>>().join("\n"),
            Format::Json => serde_json::to_string(&report)? + "\n",
        });
    }
    let space = |points: &Option<super::render::BlendPoints>, flag: &str| {
        points
            .as_ref()
            .map(|p| super::render::blend_space_player(&model, &p.0, args.at_param, (flag, "--at-param")))
            .transpose()
    };
    let (from_space, to_space) =
        (space(&args.from_blend_space, "--from-blend-space")?, space(&args.to_blend_space, "--to-blend-space")?);
    anyhow::ensure!(
        args.at_param.is_none() || from_space.is_some() || to_space.is_some(),
        "--at-param sets a blend space's parameter: give --from-blend-space or --to-blend-space"
    );
    let from = end(&model, args.from.as_deref(), from_space.as_ref(), "--from or --from-blend-space names the source")?;
    let to = end(&model, args.to.as_deref(), to_space.as_ref(), "--to or --to-blend-space names the target")?;
    let at = match (from, &args.at) {
        (End::BlendSpace(player), None) => {
            let cycle = player.cycle_secs();
            (0..DEFAULT_TRIGGERS).map(|i| cycle * (i as f32 + 0.5) / DEFAULT_TRIGGERS as f32).collect()
        }
        (_, _) => times(from.clip()),
    };
    let report = measure_ends(&model, &rig, from, to, &at, &settings, None);
    Ok(match args.format {
        Format::Text => report.to_text(),
        Format::Json => serde_json::to_string(&report)? + "\n",
    })
}

/// One end of the pair: the blend space when one is given, else the clip named (`missing`: the
/// error without either).
fn end<'a>(
    model: &Model,
    clip: Option<&str>,
    player: Option<&'a anim::BlendSpacePlayer>,
    missing: &str,
) -> anyhow::Result<End<'a>> {
    Ok(match (clip, player) {
        (_, Some(player)) => End::BlendSpace(player),
        (Some(clip), None) => End::Clip(super::find_clip(model, clip)?),
        (None, None) => anyhow::bail!("{missing} (or --table measures the profile's pairs)"),
    })
}

fn export_label(args: &TransitionArgs) -> String {
    args.export.as_deref().map_or_else(String::new, |p| p.display().to_string())
}

/// Where the model's profile is: `explicit`, else the one the viewer keeps for it in the
/// profiles folder.
pub(super) fn profile_path(
    model: &Model,
    model_path: Option<&Path>,
    explicit: Option<&Path>,
) -> anyhow::Result<PathBuf> {
    Ok(match explicit {
        Some(path) => path.to_path_buf(),
        None => {
            let dir = crate::profile::default_profile_dir()
                .context("no profiles folder (set HOME or XDG_CONFIG_HOME, or pass --profile FILE)")?;
            let stem = model_path.and_then(|p| p.file_stem()).and_then(|s| s.to_str());
            ModelIdentity::of(model, stem).profile_path(&dir)
        }
    })
}

/// The model's profile: `explicit`, else the one the viewer keeps for it in the profiles folder.
pub(super) fn load_profile(
    model: &Model,
    model_path: Option<&Path>,
    explicit: Option<&Path>,
) -> anyhow::Result<(TuningProfile, PathBuf)> {
    let path = profile_path(model, model_path, explicit)?;
    anyhow::ensure!(
        path.exists(),
        "no tuning profile at {} (tune transitions in the viewer and save the profile, or pass --profile FILE)",
        path.display()
    );
    Ok((TuningProfile::load(&path)?, path))
}

/// A profile row's settings over the command line's defaults.
fn pair_settings_of(
    row: &crate::profile::Transition,
    profile: &TuningProfile,
    model: &Model,
    from: ClipId,
    defaults: PairSettings,
) -> anyhow::Result<PairSettings> {
    let pair = format!("{} -> {}", row.from, row.to);
    let parse = |what: &str, text: &str| format!("{pair}: {what} \"{text}\"");
    let from_name = model[from].display_name(from.index());
    let root_motion = match profile.root_motion.iter().find(|r| r.clip == from_name) {
        Some(r) => r.mode.parse().map_err(|e: String| anyhow::anyhow!("{}: {e}", parse("root motion", &r.mode)))?,
        None => defaults.root_motion,
    };
    let mut problems = Vec::new();
    let fade = row.fade.to_fade(&mut problems);
    let fade = match (fade, problems.first()) {
        (Some(fade), None) => fade,
        (_, Some(problem)) => anyhow::bail!("{pair}: {problem}"),
        (None, None) => anyhow::bail!("{pair}: unreadable fade"),
    };
    Ok(PairSettings {
        transition: Transition {
            kind: fade.kind,
            duration_secs: fade.duration_secs,
            easing: fade.easing,
            decay: fade.decay,
            half_life_secs: fade.half_life_secs,
            ..defaults.transition
        },
        sync: if fade.phase_sync { Sync::Phase } else { Sync::None },
        match_speed: row.match_speed,
        root_motion,
        loops: defaults.loops,
        start_secs: None,
    })
}

/// Version of the export format.
pub const EXPORT_VERSION: u32 = 1;

/// The profile's transition table for an engine: plain JSON (documented in docs/transitions.md).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TransitionExport {
    /// Always `animtune-transitions`.
    pub format: &'static str,
    /// [`EXPORT_VERSION`].
    pub version: u32,
    /// The model the table was tuned on.
    pub model: String,
    /// The feet the markers name (node names).
    pub feet: Vec<String>,
    /// Every clip the table names: its length, root motion and foot-contact markers.
    pub clips: Vec<ExportClip>,
    /// One row per tuned pair.
    pub transitions: Vec<ExportTransition>,
}

/// A clip in the export.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExportClip {
    /// Clip name.
    pub name: String,
    /// Loop length, seconds.
    pub duration_secs: f32,
    /// `authored` or `in-place`.
    pub root_motion: String,
    /// Foot touch-downs (the profile's, else found automatically), by time.
    pub markers: Vec<Contact>,
}

/// A pair in the export.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExportTransition {
    /// Source clip name.
    pub from: String,
    /// Target clip name.
    pub to: String,
    /// `crossfade`, `inertialize` or `dead-blend`.
    pub kind: String,
    /// Fade or decay length, seconds.
    pub duration_secs: f32,
    /// Easing of the fade weight (crossfade, dead-blend).
    pub easing: String,
    /// Offset decay (inertialize): `quintic` or `critically-damped`.
    pub decay: String,
    /// Velocity half-life of the extrapolation (dead-blend), seconds.
    pub half_life_secs: f32,
    /// `none` or `phase`.
    pub sync: String,
    /// Start the target at the source's cycle rate.
    pub match_speed: bool,
}

impl TransitionExport {
    /// The export of `profile` on `model`.
    ///
    /// # Errors
    /// When a row names a clip the model does not have.
    pub fn new(model: &Model, rig: &Rig, profile: &TuningProfile) -> anyhow::Result<Self> {
        let mut clips: Vec<ClipId> = Vec::new();
        for row in &profile.transitions {
            for name in [&row.from, &row.to] {
                let clip = clip_named(model, name)?;
                if !clips.contains(&clip) {
                    clips.push(clip);
                }
            }
        }
        let clips = clips
            .into_iter()
            .map(|clip| {
                let name = model[clip].display_name(clip.index());
                let root_motion = profile
                    .root_motion
                    .iter()
                    .find(|r| r.clip == name)
                    .map_or_else(|| RootMotion::Authored.name().to_owned(), |r| r.mode.clone());
                ExportClip {
                    duration_secs: model[clip].end_secs(),
                    root_motion,
                    markers: rig.named(&profile_contacts(rig, model, clip, profile)),
                    name,
                }
            })
            .collect();
        Ok(Self {
            format: "animtune-transitions",
            version: EXPORT_VERSION,
            model: profile.model.clone(),
            feet: rig.foot_names().map(str::to_owned).collect(),
            clips,
            transitions: profile
                .transitions
                .iter()
                .map(|t| ExportTransition {
                    from: t.from.clone(),
                    to: t.to.clone(),
                    kind: t.fade.kind.clone(),
                    duration_secs: t.fade.duration_secs,
                    easing: t.fade.easing.clone(),
                    decay: t.fade.decay.clone(),
                    half_life_secs: t.fade.half_life_secs,
                    sync: t.fade.sync.clone(),
                    match_speed: t.match_speed,
                })
                .collect(),
        })
    }
}

/// The clip of `model` shown as `name` (its display name, or a name or index `find_clip` knows).
///
/// # Errors
/// When the model has no such clip.
fn clip_named(model: &Model, name: &str) -> anyhow::Result<ClipId> {
    model
        .clips()
        .iter()
        .enumerate()
        .position(|(i, c)| c.display_name(i) == name)
        .map(ClipId::from_index)
        .or_else(|| model.find_clip(name))
        .ok_or_else(|| anyhow::anyhow!("the transition table names clip \"{name}\", which the model does not have"))
}

/// The automatically found markers of every clip of `model`, as a profile stores them.
pub fn found_markers(model: &Model) -> Vec<ClipMarkers> {
    let rig = Rig::new(model);
    (0..model.clips().len())
        .map(ClipId::from_index)
        .map(|clip| ClipMarkers {
            clip: model[clip].display_name(clip.index()),
            contacts: rig
                .contacts(model, clip)
                .iter()
                .map(|c| ContactMarker { foot: rig.named(&[*c])[0].foot.clone(), time_secs: c.time_secs })
                .collect(),
        })
        .collect()
}

/// Markers of `clip`: the profile's when it has them, else found automatically.
fn profile_contacts(rig: &Rig, model: &Model, clip: ClipId, profile: &TuningProfile) -> Vec<anim::FootContact> {
    let name = model[clip].display_name(clip.index());
    match profile.markers.iter().find(|m| m.clip == name) {
        Some(m) => rig.stored_contacts(m.contacts.iter().map(|c| (c.foot.as_str(), c.time_secs))),
        None => rig.contacts(model, clip),
    }
}
