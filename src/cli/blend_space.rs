//! `animtune blend-space`: clips placed at parameter values, played in phase at one parameter
//! (or a sweep of them) and measured — the weights, the interpolated playback rate and cycle,
//! foot slide as `transition` measures it, joint acceleration.

use std::fmt::Write as _;
use std::path::PathBuf;

use anim::{BlendSpacePlayer, Model, PhaseSync};
use glam::Vec2;
use serde::Serialize;

use crate::stage::layers::{BlendPointSpec, BlendSpaceSpec, parse_point};
use crate::transitions::{Rig, measure_blend_space};

/// Arguments of `animtune blend-space`.
#[derive(Debug, Clone, clap::Args)]
pub struct BlendSpaceArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// A clip at a parameter value, `NAME=X` (one axis) or `NAME=X,Y` (two); repeat for each
    /// clip.
    #[arg(long = "clip", value_name = "NAME=X[,Y]", required = true, value_parser = BlendPointSpec::parse, allow_hyphen_values = true)]
    pub clips: Vec<BlendPointSpec>,
    /// The parameter played, `X` or `X,Y` (default: the first clip's position).
    #[arg(long, value_name = "X[,Y]", value_parser = parse_point, allow_hyphen_values = true)]
    pub at: Option<(f32, Option<f32>)>,
    /// How the clips keep time: `phase` (in step by their foot-contact markers, the rate
    /// interpolated) or `none` (each on the clock).
    #[arg(long, value_enum, default_value_t = SyncArg::Phase)]
    pub sync: SyncArg,
    /// Seconds played and measured.
    #[arg(long, default_value_t = 4.0, value_name = "S")]
    pub seconds: f32,
    /// Instead of --at: N parameter values evenly from the smallest position to the largest
    /// (along the diagonal in 2D), one row each.
    #[arg(long, value_name = "N", conflicts_with = "at")]
    pub sweep: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: super::Format,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// `--sync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SyncArg {
    /// One shared phase by foot-contact markers (normalized time without them).
    Phase,
    /// Every clip on the clock.
    None,
}

/// One clip's weight.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClipWeight {
    /// Clip name.
    pub clip: String,
    /// Its weight (the weights sum to 1).
    pub weight: f32,
}

/// The blend space at one parameter, measured.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlendSpaceRow {
    /// The parameter, `[x]` or `[x, y]`.
    pub at: Vec<f32>,
    /// Every clip's weight, in the order given.
    pub weights: Vec<ClipWeight>,
    /// How fast the heaviest clip plays against its own speed (1 at a clip's own position).
    pub playback_rate: f32,
    /// Length of one blended cycle, seconds.
    pub cycle_secs: f32,
    /// Horizontal motion of planted feet against the ground under them, summed over the run,
    /// metres (as `animtune transition` measures it).
    pub foot_slide_m: f32,
    /// The worst of the weighted clips' own `foot_slide_m`, each played alone for as long.
    pub clips_foot_slide_m: f32,
    /// Largest joint acceleration, m/s².
    pub max_joint_accel_mps2: f32,
    /// No NaN or infinity in any frame.
    pub finite: bool,
}

/// `animtune blend-space`'s report: one row (`--at`) or a sweep.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BlendSpaceReport {
    /// `phase` or `none`.
    pub sync: String,
    /// True when phase sync follows foot-contact markers (every clip has the same sequence of
    /// feet), false for normalized time.
    pub synced_by_markers: bool,
    /// Seconds played per row.
    pub seconds: f32,
    /// One row per parameter value.
    pub rows: Vec<BlendSpaceRow>,
}

/// Build the player of `args` on `model`.
///
/// # Errors
/// Unknown clips, a mix of 1D and 2D points, duplicates, collinear 2D points.
pub fn player(model: &Model, rig: &Rig, spec: &BlendSpaceSpec, sync: PhaseSync) -> anyhow::Result<BlendSpacePlayer> {
    let space = spec.resolve(model).map_err(anyhow::Error::msg)?;
    let contacts: Vec<Vec<anim::FootContact>> =
        space.points().iter().map(|p| rig.phase_markers(model, p.clip)).collect();
    Ok(BlendSpacePlayer::new(model, space, sync, &contacts)?)
}

/// Run `animtune blend-space`.
///
/// # Errors
/// Loading, unknown clips, bad positions or parameters.
pub fn run(args: &BlendSpaceArgs) -> anyhow::Result<String> {
    anyhow::ensure!(args.seconds.is_finite() && args.seconds > 0.0, "--seconds takes a number greater than 0");
    let (model, _) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    let spec = BlendSpaceSpec { points: args.clips.clone() };
    let rig = Rig::new(&model);
    let sync = match args.sync {
        SyncArg::Phase => PhaseSync::Phase,
        SyncArg::None => PhaseSync::None,
    };
    let mut player = player(&model, &rig, &spec, sync)?;
    let two_d = player.space().is_2d();
    let parameters: Vec<Vec2> = match (args.sweep, args.at) {
        (Some(n), _) => {
            anyhow::ensure!(n >= 2, "--sweep takes at least 2 values");
            let (lo, hi) = player.space().extent();
            (0..n).map(|i| lo.lerp(hi, i as f32 / (n - 1) as f32)).collect()
        }
        (None, Some((x, y))) => {
            anyhow::ensure!(y.is_some() == two_d, "--at takes {} coordinate(s) here", if two_d { 2 } else { 1 });
            vec![Vec2::new(x, y.unwrap_or(0.0))]
        }
        (None, None) => vec![player.space().points()[0].position],
    };
    let report = report(&model, &rig, &mut player, &parameters, args.seconds, sync);
    Ok(match args.format {
        super::Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        super::Format::Text => report.to_text(),
    })
}

/// Measure `player` at each parameter for `seconds`.
pub fn report(
    model: &Model,
    rig: &Rig,
    player: &mut BlendSpacePlayer,
    parameters: &[Vec2],
    seconds: f32,
    sync: PhaseSync,
) -> BlendSpaceReport {
    let n = player.space().points().len();
    let names: Vec<String> =
        player.space().points().iter().map(|p| model[p.clip].display_name(p.clip.index())).collect();
    // Each clip's own slide: the player at the clip's own position.
    let mut own = vec![None; n];
    let two_d = player.space().is_2d();
    let rows = parameters
        .iter()
        .map(|&at| {
            player.set_parameter(at);
            let weights: Vec<f32> = player.weights().to_vec();
            let run = measure_blend_space(model, rig, player, seconds);
            let mut clips_slide = 0.0f32;
            for (i, &w) in weights.iter().enumerate() {
                if w <= 0.0 {
                    continue;
                }
                let slide = *own[i].get_or_insert_with(|| {
                    player.set_parameter(player.space().points()[i].position);
                    measure_blend_space(model, rig, player, seconds).foot_slide_m
                });
                clips_slide = clips_slide.max(slide);
            }
            player.set_parameter(at);
            BlendSpaceRow {
                at: if two_d { vec![at.x, at.y] } else { vec![at.x] },
                weights: names
                    .iter()
                    .zip(&weights)
                    .map(|(c, &weight)| ClipWeight { clip: c.clone(), weight })
                    .collect(),
                playback_rate: player.playback_rate(),
                cycle_secs: player.cycle_secs(),
                foot_slide_m: run.foot_slide_m,
                clips_foot_slide_m: clips_slide,
                max_joint_accel_mps2: run.max_joint_accel_mps2,
                finite: run.finite,
            }
        })
        .collect();
    BlendSpaceReport {
        sync: match sync {
            PhaseSync::Phase => "phase",
            PhaseSync::None => "none",
        }
        .to_owned(),
        synced_by_markers: player.syncs_by_markers(),
        seconds,
        rows,
    }
}

impl BlendSpaceReport {
    /// Human-readable table.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "blend space, sync {}{}, {:.2} s per row",
            self.sync,
            if self.synced_by_markers { " (foot-contact markers)" } else { "" },
            self.seconds
        );
        let _ =
            writeln!(s, "  at            rate   cycle (s)  foot slide (m)  clips' own (m)  max accel (m/s²)  weights");
        for r in &self.rows {
            let at = r.at.iter().map(|v| format!("{v:.3}")).collect::<Vec<_>>().join(",");
            let weights = r
                .weights
                .iter()
                .filter(|w| w.weight > 0.0)
                .map(|w| format!("{} {:.3}", w.clip, w.weight))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                s,
                "  {at:<12} {:6.3}  {:9.3}  {:14.4}  {:14.4}  {:16.2}  {weights}{}",
                r.playback_rate,
                r.cycle_secs,
                r.foot_slide_m,
                r.clips_foot_slide_m,
                r.max_joint_accel_mps2,
                if r.finite { "" } else { "  NOT FINITE" }
            );
        }
        s
    }
}
