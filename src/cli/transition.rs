//! `animtune transition`: play a clip, hand over to another (cross-fade, inertialization or dead
//! blending; optionally phase-synced and speed-matched; root motion as authored or in place) on
//! the core's `CrossFader`, and measure the handover: the velocity jump at the trigger, joint
//! acceleration, foot slide, `pop` (as the ragdoll report defines it) and root drift. `--table`
//! measures every tuned pair of the model's profile; `--export` writes that table as plain JSON
//! for an engine (pair, kind, duration, easing, sync, markers).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anim::crossfade::DEFAULT_HALF_LIFE_SECS;
use anim::{
    ClipId, CrossFader, Easing, FootContact, LocalMatrices, Model, NodeId, OffsetDecay, RootMotion, SampleSettings,
    Transition, TransitionKind,
};
use anyhow::Context as _;
use glam::{Affine3A, Vec3};
use serde::Serialize;

use super::motion::Pop;
use super::{Format, LimitArgs};
use crate::physics::RagdollSpec;
use crate::physics::anatomy::BoneKind;
use crate::profile::{ClipMarkers, ContactMarker, ModelIdentity, TuningProfile};

/// Frame rate of the simulated playback (the rate the viewer shows).
pub const FRAME_HZ: f32 = 60.0;

/// Frames the source plays before the trigger.
const LEAD_IN_FRAMES: usize = 30;

/// A foot is planted when it is within this fraction of its clips' height range above its
/// lowest point ...
const PLANTED_FRACTION: f32 = 0.2;

/// ... and moves up or down slower than this fraction of its clips' fastest vertical speed.
const PLANTED_VERTICAL_FRACTION: f32 = 0.1;

/// A foot that rises less than this (metres) over a clip never leaves the ground in it.
const MIN_LIFT_M: f32 = 0.03;

/// Trigger times used when none are given: this many, spread over the source clip.
const DEFAULT_TRIGGERS: usize = 5;

/// Where the target starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sync {
    /// From its start.
    #[default]
    None,
    /// At the source's phase: by foot-contact markers when both clips have them, else by
    /// normalized time.
    Phase,
}

impl Sync {
    /// Stable name (`none`, `phase`).
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Phase => "phase",
        }
    }
}

/// `animtune transition` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct TransitionArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// Source clip (name or index).
    #[arg(long, required_unless_present = "table")]
    pub from: Option<String>,
    /// Target clip (name or index).
    #[arg(long, required_unless_present = "table")]
    pub to: Option<String>,
    /// Source clip time(s) of the trigger, comma-separated [default: 5 times spread over the
    /// source clip].
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

/// How one pair transitions: everything but the clips and the trigger time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairSettings {
    /// The transition (its `start_secs` and `match_cycle_secs` are filled in per trigger).
    pub transition: Transition,
    /// Where the target starts.
    pub sync: Sync,
    /// Speed matching on.
    pub match_speed: bool,
    /// Root motion.
    pub root_motion: RootMotion,
    /// Target loops after the transition.
    pub loops: u32,
    /// An explicit target start time (overrides `sync`).
    pub start_secs: Option<f32>,
}

/// The measured figures of one trigger.
#[derive(Debug, Clone, Serialize)]
pub struct TriggerMetrics {
    /// Source clip time of the trigger.
    pub at_secs: f32,
    /// Target clip time it started at (0 without sync).
    pub target_start_secs: f32,
    /// Largest change of any joint's world velocity that the trigger causes: its velocity over
    /// the frame after the trigger against the velocity it had playing the source on over the
    /// same frame, m/s (0 for a transition that changes nothing at its instant).
    pub velocity_jump_mps: f32,
    /// Largest change of any joint's world velocity between the frame before the trigger and
    /// the frame after it, the clips' own acceleration included, m/s.
    pub velocity_change_mps: f32,
    /// Largest joint acceleration during the transition, m/s².
    pub max_joint_accel_mps2: f32,
    /// Horizontal motion of planted feet during the transition, relative to the ground under
    /// them (which moves with the clips' own stance speed for in-place clips), metres.
    pub foot_slide_m: f32,
    /// Largest per-frame joint displacement in the 3 frames after the trigger over the largest
    /// in the 3 frames before (the ragdoll report's `pop`; `null` when nothing moved before).
    pub pop: Option<f32>,
    /// Largest per-frame joint displacement in the 3 frames up to the trigger, metres.
    pub displacement_before_m: f32,
    /// Largest per-frame joint displacement in the 3 frames after it, metres.
    pub displacement_after_m: f32,
    /// Largest per-frame joint displacement during the transition, metres.
    pub max_step_m: f32,
    /// With root motion in place: largest horizontal distance of the root from its anchor over
    /// the run, metres (`null` as authored).
    pub root_drift_m: Option<f32>,
    /// Horizontal length of the character offset at the end of the run, metres.
    pub character_offset_m: f32,
    /// No NaN or infinity in any frame.
    pub finite: bool,
}

/// The worst of each figure over the triggers.
#[derive(Debug, Clone, Serialize)]
pub struct WorstMetrics {
    /// Largest `velocity_jump_mps`.
    pub velocity_jump_mps: f32,
    /// Largest `max_joint_accel_mps2`.
    pub max_joint_accel_mps2: f32,
    /// Largest `foot_slide_m`.
    pub foot_slide_m: f32,
    /// Largest `pop`.
    pub pop: Option<f32>,
    /// Largest `root_drift_m`.
    pub root_drift_m: Option<f32>,
}

/// `animtune transition`'s report for one pair.
#[derive(Debug, Clone, Serialize)]
pub struct TransitionReport {
    /// Source clip.
    pub from: String,
    /// Target clip.
    pub to: String,
    /// `crossfade`, `inertialize` or `dead-blend`.
    pub kind: String,
    /// Fade or decay length, seconds.
    pub duration_secs: f32,
    /// Easing of the fade weight.
    pub easing: String,
    /// Inertialization decay curve.
    pub decay: String,
    /// Dead blending's velocity half-life, seconds.
    pub half_life_secs: f32,
    /// `none` or `phase`.
    pub sync: String,
    /// Speed matching on.
    pub match_speed: bool,
    /// `authored` or `in-place`.
    pub root_motion: String,
    /// Target loops played after the transition.
    pub loops: u32,
    /// Frames per second of the simulated playback.
    pub frame_hz: f32,
    /// Metres per model unit (the character scaled to 1.7 m, as the ragdoll simulates it).
    pub metres_per_unit: f32,
    /// The feet measured for `foot_slide_m` (from names, else the lowest chains).
    pub feet: Vec<String>,
    /// Foot contacts of the source and target clips (seconds, per foot) used by phase sync.
    pub source_contacts: Vec<Contact>,
    /// See `source_contacts`.
    pub target_contacts: Vec<Contact>,
    /// Stance speed of each clip: how fast a planted foot moves over the ground it stands on
    /// (an in-place walk's treadmill), m/s, horizontal.
    pub source_stance_speed_mps: f32,
    /// See `source_stance_speed_mps`.
    pub target_stance_speed_mps: f32,
    /// Largest per-frame joint displacement of plain playback of the source and the target
    /// (the yardstick of interruption safety: 1.5× this is a jump), metres.
    pub playback_max_step_m: f32,
    /// One entry per trigger time.
    pub runs: Vec<TriggerMetrics>,
    /// Worst over the runs.
    pub worst: WorstMetrics,
}

/// A foot contact in a report or export.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contact {
    /// The foot's node name.
    pub foot: String,
    /// Clip time, seconds.
    pub time_secs: f32,
}

/// `animtune transition --table`'s report.
#[derive(Debug, Clone, Serialize)]
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
    anyhow::ensure!(!model.clips.is_empty(), "{label} has no animations to transition between");
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
                let secs = model.clips[from.index()].end_secs();
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
            pairs.push(measure(&model, &rig, from, to, &times(from), &pair, Some(&profile)));
        }
        let report = TableReport { model: label, profile: path.display().to_string(), pairs };
        return Ok(match args.format {
            Format::Text => report.pairs.iter().map(TransitionReport::to_text).collect::<Vec<_>>().join("\n"),
            Format::Json => serde_json::to_string(&report)? + "\n",
        });
    }
    let (Some(from), Some(to)) = (&args.from, &args.to) else {
        anyhow::bail!("--from and --to name the pair (or --table measures the profile's pairs)")
    };
    let from = super::find_clip(&model, from)?;
    let to = super::find_clip(&model, to)?;
    let report = measure(&model, &rig, from, to, &times(from), &settings, None);
    Ok(match args.format {
        Format::Text => report.to_text(),
        Format::Json => serde_json::to_string(&report)? + "\n",
    })
}

fn export_label(args: &TransitionArgs) -> String {
    args.export.as_deref().map_or_else(String::new, |p| p.display().to_string())
}

/// The model's profile: `explicit`, else the one the viewer keeps for it in the profiles folder.
fn load_profile(
    model: &Model,
    model_path: Option<&Path>,
    explicit: Option<&Path>,
) -> anyhow::Result<(TuningProfile, PathBuf)> {
    let path = match explicit {
        Some(path) => path.to_path_buf(),
        None => {
            let dir = crate::profile::default_profile_dir()
                .context("no profiles folder (set HOME or XDG_CONFIG_HOME, or pass --profile FILE)")?;
            let stem = model_path.and_then(|p| p.file_stem()).and_then(|s| s.to_str());
            ModelIdentity::of(model, stem).profile_path(&dir)
        }
    };
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
    let from_name = model.clips[from.index()].display_name(from.index());
    let root_motion = match profile.root_motion.iter().find(|r| r.clip == from_name) {
        Some(r) => r.mode.parse().map_err(|e: String| anyhow::anyhow!("{}: {e}", parse("root motion", &r.mode)))?,
        None => defaults.root_motion,
    };
    Ok(PairSettings {
        transition: Transition {
            kind: row.kind.parse().map_err(|e: String| anyhow::anyhow!("{}: {e}", parse("kind", &row.kind)))?,
            duration_secs: row.duration_secs,
            easing: row.easing.parse().map_err(|e: String| anyhow::anyhow!("{}: {e}", parse("easing", &row.easing)))?,
            decay: row.decay.parse().map_err(|e: String| anyhow::anyhow!("{}: {e}", parse("decay", &row.decay)))?,
            half_life_secs: row.half_life_secs,
            ..defaults.transition
        },
        sync: match row.sync.as_str() {
            "none" => Sync::None,
            "phase" => Sync::Phase,
            other => anyhow::bail!("{}: expected none or phase", parse("sync", other)),
        },
        match_speed: row.match_speed,
        root_motion,
        loops: defaults.loops,
        start_secs: None,
    })
}

/// What the measurements need to know about the model, found once.
pub struct Rig {
    /// Joints measured (the first skin's, else every node).
    joints: Vec<usize>,
    /// Feet: node and name.
    feet: Vec<(NodeId, String)>,
    /// Metres per model unit.
    metres_per_unit: f32,
    /// Character size, model units.
    size: f32,
}

impl Rig {
    /// Feet from the ragdoll anatomy (bone names, else the skeleton's geometry), else nodes named
    /// "foot", else the two lowest leaf chains' ends; sizes from the ragdoll layout.
    pub fn new(model: &Model) -> Self {
        let n = model.nodes.len();
        let name = |node: usize| crate::profile::node_display_name(model, node);
        let spec = RagdollSpec::from_model(model).ok();
        let joints: Vec<usize> = match model.skins.first() {
            Some(skin) => skin.joints.iter().map(|j| j.index()).filter(|&j| j < n).collect(),
            None => (0..n).collect(),
        };
        let mut world = vec![Affine3A::IDENTITY; n];
        model.hierarchy.local_to_model(&model.rest_pose(), &mut LocalMatrices::new(n), &mut world);
        let height = |node: usize| world.get(node).map_or(f32::MAX, |w| w.translation.y);
        let mut feet: Vec<usize> =
            spec.iter().flat_map(|s| s.bodies.iter().filter(|b| b.kind == BoneKind::Foot).map(|b| b.node)).collect();
        if feet.is_empty() {
            feet = joints.iter().copied().filter(|&j| name(j).to_lowercase().contains("foot")).collect();
        }
        if feet.is_empty() {
            // The lowest chains: leaf joints, lowest first; their parents are the feet.
            let mut leaves: Vec<usize> = joints
                .iter()
                .copied()
                .filter(|&j| {
                    !joints.iter().any(|&c| model.hierarchy.parent(NodeId::from_index(c)).map(NodeId::index) == Some(j))
                })
                .collect();
            leaves.sort_by(|&a, &b| height(a).total_cmp(&height(b)));
            feet = leaves.into_iter().take(2).collect();
        }
        feet.sort_unstable();
        feet.dedup();
        let (size, metres_per_unit) = spec.as_ref().map_or_else(
            || {
                let (lo, hi) = joints.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &j| {
                    let p = Vec3::from(world[j].translation);
                    (lo.min(p), hi.max(p))
                });
                let size = (hi - lo).max_element();
                if size.is_finite() && size > 0.0 { (size, 1.0) } else { (1.0, 1.0) }
            },
            |s| (s.size, s.metres_per_unit),
        );
        Self {
            joints,
            feet: feet.into_iter().map(|f| (NodeId::from_index(f), name(f))).collect(),
            metres_per_unit,
            size,
        }
    }

    /// The feet's nodes.
    fn foot_nodes(&self) -> Vec<NodeId> {
        self.feet.iter().map(|(n, _)| *n).collect()
    }

    /// Foot-contact markers of `clip` (automatic).
    fn contacts(&self, model: &Model, clip: ClipId) -> Vec<FootContact> {
        anim::find_foot_contacts(model, clip, &self.foot_nodes(), MIN_LIFT_M / self.metres_per_unit)
    }

    /// Markers of `clip`: the profile's when it has them, else found automatically.
    fn markers(&self, model: &Model, clip: ClipId, profile: Option<&TuningProfile>) -> Vec<FootContact> {
        let name = model.clips[clip.index()].display_name(clip.index());
        let stored = profile.and_then(|p| p.markers.iter().find(|m| m.clip == name));
        match stored {
            Some(m) => {
                let mut contacts: Vec<FootContact> = m
                    .contacts
                    .iter()
                    .filter_map(|c| {
                        let foot = self.feet.iter().position(|(_, n)| *n == c.foot)?;
                        c.time_secs.is_finite().then_some(FootContact { foot, time_secs: c.time_secs })
                    })
                    .collect();
                contacts.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
                contacts
            }
            None => self.contacts(model, clip),
        }
    }

    fn named(&self, contacts: &[FootContact]) -> Vec<Contact> {
        contacts
            .iter()
            .map(|c| Contact {
                foot: self.feet.get(c.foot).map_or_else(String::new, |(_, n)| n.clone()),
                time_secs: c.time_secs,
            })
            .collect()
    }
}

/// One frame of a run: joint world positions (character offset included), foot positions, and
/// what else the figures need.
struct Frame {
    joints: Vec<Vec3>,
    feet: Vec<Vec3>,
    target_weight: f32,
    root_drift: f32,
    finite: bool,
}

/// A fader's playback recorded frame by frame.
struct Recorder<'a> {
    model: &'a Model,
    rig: &'a Rig,
    locals: LocalMatrices,
    world: Vec<Affine3A>,
    settings: SampleSettings,
}

impl<'a> Recorder<'a> {
    fn new(model: &'a Model, rig: &'a Rig) -> Self {
        let n = model.nodes.len();
        Self {
            model,
            rig,
            locals: LocalMatrices::new(n),
            world: vec![Affine3A::IDENTITY; n],
            settings: SampleSettings::default(),
        }
    }

    /// A fader on `clip` at `time_secs` with `root_motion`.
    fn fader(&self, clip: ClipId, time_secs: f32, root_motion: RootMotion) -> CrossFader {
        let mut fader = CrossFader::new(self.model, clip);
        fader.play(clip, time_secs);
        fader.set_root_motion(self.model, Some(root_motion));
        fader
    }

    /// Evaluate `fader` now and record the frame.
    fn frame(&mut self, fader: &mut CrossFader, in_place: bool) -> Frame {
        fader.evaluate(self.model, &self.settings);
        let pose = fader.output();
        let finite = pose.is_finite();
        let drift = fader
            .root_motion()
            .and_then(|(_, root)| pose.get(root))
            .map_or(0.0, |local| fader.horizontal(local.translation - fader.root_anchor()).length());
        self.model.hierarchy.local_to_model(pose, &mut self.locals, &mut self.world);
        // In place, the character offset moves the character; as authored it is in the pose.
        let offset = if in_place { self.offset_in_model(fader) } else { Vec3::ZERO };
        let at = |node: usize| Vec3::from(self.world[node].translation) + offset;
        Frame {
            joints: self.rig.joints.iter().map(|&j| at(j)).collect(),
            feet: self.rig.feet.iter().map(|(f, _)| at(f.index())).collect(),
            target_weight: fader.target_weight(),
            root_drift: drift,
            finite,
        }
    }

    /// The character offset (in the root's parent frame) in model space.
    fn offset_in_model(&self, fader: &CrossFader) -> Vec3 {
        let Some((_, root)) = fader.root_motion() else { return Vec3::ZERO };
        let parent = self.model.hierarchy.parent(root).and_then(|p| self.world.get(p.index()));
        parent.map_or(fader.character_offset(), |p| p.transform_vector3(fader.character_offset()))
    }
}

/// Feet over one clip played alone: lowest and highest point, and the stance velocity.
#[derive(Debug, Clone, Copy)]
struct FootStats {
    low: f32,
    high: f32,
    /// Fastest vertical speed (model units per second).
    fastest_vertical: f32,
    /// Mean horizontal velocity of planted feet (model units per second).
    stance_velocity: Vec3,
    /// Largest per-frame joint displacement (model units).
    max_step: f32,
}

fn clip_stats(recorder: &mut Recorder, clip: ClipId, root_motion: RootMotion) -> Vec<FootStats> {
    let dt = 1.0 / FRAME_HZ;
    let model = recorder.model;
    let secs = model.clips[clip.index()].end_secs();
    let frames = ((secs * FRAME_HZ).ceil() as usize).max(2);
    let mut fader = recorder.fader(clip, 0.0, root_motion);
    let in_place = root_motion == RootMotion::InPlace;
    let mut run = Vec::with_capacity(frames + 1);
    for k in 0..=frames {
        if k > 0 {
            fader.advance(dt);
        }
        run.push(recorder.frame(&mut fader, in_place));
    }
    let max_step = run.windows(2).map(|w| max_distance(&w[1].joints, &w[0].joints)).fold(0.0, f32::max);
    let feet = recorder.rig.feet.len();
    let mut stats: Vec<FootStats> = (0..feet)
        .map(|f| {
            let (low, high) =
                run.iter().fold((f32::MAX, f32::MIN), |(lo, hi), fr| (lo.min(fr.feet[f].y), hi.max(fr.feet[f].y)));
            let fastest_vertical =
                run.windows(2).map(|w| (w[1].feet[f].y - w[0].feet[f].y).abs() / dt).fold(0.0, f32::max);
            FootStats { low, high, fastest_vertical, stance_velocity: Vec3::ZERO, max_step }
        })
        .collect();
    // Stance velocity: planted feet of either side, averaged.
    let mut sum = Vec3::ZERO;
    let mut count = 0usize;
    for w in run.windows(2) {
        for (f, s) in stats.iter().enumerate() {
            if s.planted(w[0].feet[f], w[1].feet[f], s, dt) {
                let v = (w[1].feet[f] - w[0].feet[f]) / dt;
                sum += Vec3::new(v.x, 0.0, v.z);
                count += 1;
            }
        }
    }
    let stance = if count > 0 { sum / count as f32 } else { Vec3::ZERO };
    for s in &mut stats {
        s.stance_velocity = stance;
    }
    stats
}

impl FootStats {
    /// A foot that moved from `p0` to `p1` in `dt` is planted: low and hardly moving up or down,
    /// by the heights and speeds of the clips of `self` and `other`.
    fn planted(&self, p0: Vec3, p1: Vec3, other: &Self, dt: f32) -> bool {
        let low = self.low.min(other.low);
        let range = (self.high - self.low).max(other.high - other.low);
        let fastest = self.fastest_vertical.max(other.fastest_vertical);
        let threshold = low + PLANTED_FRACTION * range;
        p0.y <= threshold && p1.y <= threshold && (p1.y - p0.y).abs() <= PLANTED_VERTICAL_FRACTION * fastest * dt
    }
}

/// Largest distance between matching points.
fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter().zip(b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max)
}

/// Measure `from → to` at each trigger time.
pub fn measure(
    model: &Model,
    rig: &Rig,
    from: ClipId,
    to: ClipId,
    at_secs: &[f32],
    settings: &PairSettings,
    profile: Option<&TuningProfile>,
) -> TransitionReport {
    let mut recorder = Recorder::new(model, rig);
    let m = rig.metres_per_unit;
    let source_stats = clip_stats(&mut recorder, from, settings.root_motion);
    let target_stats = clip_stats(&mut recorder, to, settings.root_motion);
    let source_contacts = rig.markers(model, from, profile);
    let target_contacts = rig.markers(model, to, profile);
    let runs: Vec<TriggerMetrics> = at_secs
        .iter()
        .map(|&at| {
            measure_trigger(
                &mut recorder,
                from,
                to,
                at,
                settings,
                (&source_stats, &target_stats),
                (&source_contacts, &target_contacts),
            )
        })
        .collect();
    let worst_of = |f: fn(&TriggerMetrics) -> f32| runs.iter().map(f).fold(0.0f32, f32::max);
    let worst_opt = |f: fn(&TriggerMetrics) -> Option<f32>| runs.iter().filter_map(f).reduce(f32::max);
    let stance = |s: &[FootStats]| s.first().map_or(0.0, |s| s.stance_velocity.length() * m);
    let step = |s: &[FootStats]| s.first().map_or(0.0, |s| s.max_step);
    let t = &settings.transition;
    TransitionReport {
        from: model.clips[from.index()].display_name(from.index()),
        to: model.clips[to.index()].display_name(to.index()),
        kind: t.kind.name().to_owned(),
        duration_secs: t.duration_secs,
        easing: t.easing.name().to_owned(),
        decay: t.decay.name().to_owned(),
        half_life_secs: t.half_life_secs,
        sync: settings.sync.name().to_owned(),
        match_speed: settings.match_speed,
        root_motion: settings.root_motion.name().to_owned(),
        loops: settings.loops,
        frame_hz: FRAME_HZ,
        metres_per_unit: m,
        feet: rig.feet.iter().map(|(_, n)| n.clone()).collect(),
        source_contacts: rig.named(&source_contacts),
        target_contacts: rig.named(&target_contacts),
        source_stance_speed_mps: stance(&source_stats),
        target_stance_speed_mps: stance(&target_stats),
        playback_max_step_m: step(&source_stats).max(step(&target_stats)) * m,
        worst: WorstMetrics {
            velocity_jump_mps: worst_of(|r| r.velocity_jump_mps),
            max_joint_accel_mps2: worst_of(|r| r.max_joint_accel_mps2),
            foot_slide_m: worst_of(|r| r.foot_slide_m),
            pop: worst_opt(|r| r.pop),
            root_drift_m: worst_opt(|r| r.root_drift_m),
        },
        runs,
    }
}

/// One run: the source from `at − lead-in`, the trigger at `at`, the transition and the loops.
fn measure_trigger(
    recorder: &mut Recorder,
    from: ClipId,
    to: ClipId,
    at: f32,
    settings: &PairSettings,
    (source_stats, target_stats): (&[FootStats], &[FootStats]),
    (source_contacts, target_contacts): (&[FootContact], &[FootContact]),
) -> TriggerMetrics {
    let model = recorder.model;
    let rig = recorder.rig;
    let dt = 1.0 / FRAME_HZ;
    let m = rig.metres_per_unit;
    let in_place = settings.root_motion == RootMotion::InPlace;
    let source_secs = model.clips[from.index()].end_secs();
    let target_secs = model.clips[to.index()].end_secs();
    let t = &settings.transition;
    let duration = if t.duration_secs.is_finite() { t.duration_secs.max(0.0) } else { 0.0 };
    let transition_frames = ((duration * FRAME_HZ).ceil() as usize).max(1);
    let after = (((duration + settings.loops as f32 * target_secs) * FRAME_HZ).ceil() as usize)
        .max(transition_frames + super::motion::POP_FRAMES + 1);
    let trigger = LEAD_IN_FRAMES;
    let mut fader = recorder.fader(from, at - LEAD_IN_FRAMES as f32 * dt, settings.root_motion);
    let mut frames: Vec<Frame> = Vec::with_capacity(trigger + after + 1);
    let mut target_start = 0.0;
    let mut plain_next = Vec::new();
    for k in 0..=trigger + after {
        if k > 0 {
            fader.advance(dt);
        }
        frames.push(recorder.frame(&mut fader, in_place));
        if k == trigger {
            // The source played on without the transition, for the frame after the trigger.
            let mut plain = fader.clone();
            plain.advance(dt);
            plain_next = recorder.frame(&mut plain, in_place).joints;
            let source_time = fader.current_time_secs();
            target_start = match settings.sync {
                _ if settings.start_secs.is_some() => settings.start_secs.unwrap_or(0.0),
                Sync::None => 0.0,
                Sync::Phase => anim::synced_start_secs(
                    source_secs,
                    source_time,
                    source_contacts,
                    target_secs,
                    target_contacts,
                    duration,
                ),
            };
            let transition = Transition {
                start_secs: target_start,
                match_cycle_secs: if settings.match_speed { source_secs } else { 0.0 },
                ..*t
            };
            fader.transition(model, &recorder.settings, to, &transition);
        }
    }

    // Velocity jump: the second difference across the trigger (frames k−1, k, k+1).
    let second_difference = |k: usize| -> f32 {
        let (a, b, c) = (&frames[k - 1].joints, &frames[k].joints, &frames[k + 1].joints);
        a.iter().zip(b).zip(c).map(|((a, b), c)| (*c - 2.0 * *b + *a).length()).fold(0.0, f32::max)
    };
    let velocity_change = second_difference(trigger) / dt * m;
    let velocity_jump =
        frames[trigger + 1].joints.iter().zip(&plain_next).map(|(p, s)| p.distance(*s)).fold(0.0, f32::max) / dt * m;
    let last = frames.len() - 2;
    let max_accel =
        (trigger..=(trigger + transition_frames).min(last)).map(second_difference).fold(0.0, f32::max) / (dt * dt) * m;
    let displacement: Vec<f32> = (0..frames.len())
        .map(|k| if k == 0 { 0.0 } else { max_distance(&frames[k].joints, &frames[k - 1].joints) })
        .collect();
    let pop = Pop::measure(&displacement, trigger, 1e-6 * rig.size);
    let max_step = displacement[trigger + 1..=(trigger + transition_frames).min(frames.len() - 1)]
        .iter()
        .copied()
        .fold(0.0, f32::max);

    // Foot slide relative to the ground under the feet: a planted foot of an in-place clip
    // moves with the clip's stance velocity, blended as the transition blends the clips.
    let mut slide = 0.0f32;
    for k in trigger + 1..=(trigger + transition_frames).min(frames.len() - 1) {
        let w = frames[k].target_weight;
        for (f, (s, g)) in source_stats.iter().zip(target_stats).enumerate() {
            let (p0, p1) = (frames[k - 1].feet[f], frames[k].feet[f]);
            if s.planted(p0, p1, g, dt) {
                let ground = (1.0 - w) * s.stance_velocity + w * g.stance_velocity;
                let moved = p1 - p0 - ground * dt;
                slide += Vec3::new(moved.x, 0.0, moved.z).length();
            }
        }
    }
    let root_drift = in_place.then(|| frames.iter().map(|f| f.root_drift).fold(0.0, f32::max) * m);
    TriggerMetrics {
        at_secs: at,
        target_start_secs: target_start,
        velocity_jump_mps: velocity_jump,
        velocity_change_mps: velocity_change,
        max_joint_accel_mps2: max_accel,
        foot_slide_m: slide * m,
        pop: pop.pop,
        displacement_before_m: pop.before * m,
        displacement_after_m: pop.after * m,
        max_step_m: max_step * m,
        root_drift_m: root_drift,
        character_offset_m: fader.horizontal(fader.character_offset()).length() * m,
        finite: frames.iter().all(|f| f.finite),
    }
}

impl TransitionReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} -> {}: {} {:.3} s ({}, decay {}, half-life {:.3} s), sync {}{}, root motion {}, {} loop(s)",
            self.from,
            self.to,
            self.kind,
            self.duration_secs,
            self.easing,
            self.decay,
            self.half_life_secs,
            self.sync,
            if self.match_speed { ", speed matched" } else { "" },
            self.root_motion,
            self.loops
        );
        let _ = writeln!(
            s,
            "  feet {}; stance speed {:.3} -> {:.3} m/s; plain playback moves up to {:.4} m per frame",
            self.feet.join(", "),
            self.source_stance_speed_mps,
            self.target_stance_speed_mps,
            self.playback_max_step_m
        );
        let opt = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
        let _ =
            writeln!(s, "  at (s)  start (s)  vel jump (m/s)  max accel (m/s²)  foot slide (m)  pop    root drift (m)");
        for r in &self.runs {
            let _ = writeln!(
                s,
                "  {:6.3}  {:9.3}  {:14.3}  {:16.2}  {:14.4}  {:5}  {}",
                r.at_secs,
                r.target_start_secs,
                r.velocity_jump_mps,
                r.max_joint_accel_mps2,
                r.foot_slide_m,
                opt(r.pop),
                r.root_drift_m.map_or_else(|| "-".to_owned(), |d| format!("{d:.5}"))
            );
        }
        let w = &self.worst;
        let _ = writeln!(
            s,
            "  worst: velocity jump {:.3} m/s, accel {:.2} m/s², foot slide {:.4} m, pop {}, root drift {}",
            w.velocity_jump_mps,
            w.max_joint_accel_mps2,
            w.foot_slide_m,
            opt(w.pop),
            w.root_drift_m.map_or_else(|| "-".to_owned(), |d| format!("{d:.5} m"))
        );
        s
    }
}

/// Version of the export format.
pub const EXPORT_VERSION: u32 = 1;

/// The profile's transition table for an engine: plain JSON (documented in the README).
#[derive(Debug, Clone, Serialize)]
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
                let clip = super::find_clip(model, name)?;
                if !clips.contains(&clip) {
                    clips.push(clip);
                }
            }
        }
        let clips = clips
            .into_iter()
            .map(|clip| {
                let name = model.clips[clip.index()].display_name(clip.index());
                let root_motion = profile
                    .root_motion
                    .iter()
                    .find(|r| r.clip == name)
                    .map_or_else(|| RootMotion::Authored.name().to_owned(), |r| r.mode.clone());
                ExportClip {
                    duration_secs: model.clips[clip.index()].end_secs(),
                    root_motion,
                    markers: rig.named(&rig.markers(model, clip, Some(profile))),
                    name,
                }
            })
            .collect();
        Ok(Self {
            format: "animtune-transitions",
            version: EXPORT_VERSION,
            model: profile.model.clone(),
            feet: rig.feet.iter().map(|(_, n)| n.clone()).collect(),
            clips,
            transitions: profile
                .transitions
                .iter()
                .map(|t| ExportTransition {
                    from: t.from.clone(),
                    to: t.to.clone(),
                    kind: t.kind.clone(),
                    duration_secs: t.duration_secs,
                    easing: t.easing.clone(),
                    decay: t.decay.clone(),
                    half_life_secs: t.half_life_secs,
                    sync: t.sync.clone(),
                    match_speed: t.match_speed,
                })
                .collect(),
        })
    }
}

/// The automatically found markers of every clip of `model`, as a profile stores them.
pub fn found_markers(model: &Model) -> Vec<ClipMarkers> {
    let rig = Rig::new(model);
    (0..model.clips.len())
        .map(ClipId::from_index)
        .map(|clip| ClipMarkers {
            clip: model.clips[clip.index()].display_name(clip.index()),
            contacts: rig
                .contacts(model, clip)
                .iter()
                .map(|c| ContactMarker {
                    foot: rig.feet.get(c.foot).map_or_else(String::new, |(_, n)| n.clone()),
                    time_secs: c.time_secs,
                })
                .collect(),
        })
        .collect()
}
