//! The `animtune` binary: headless commands over the animation core.

use std::path::PathBuf;
use std::process::ExitCode;

use anim::InterpolationOverride;
use animtune::cli::{self, Format, bench::BenchReport, info::InfoReport, sample::SampleReport};
use clap::{Parser, Subcommand};

/// Preview, compare and tune glTF character animation.
#[derive(Debug, Parser)]
#[command(name = "animtune", version, about, args_conflicts_with_subcommands = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    viewer: animtune::app::ViewerLine,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print scenes, nodes, skins, meshes and animations of a model.
    Info {
        /// A .glb or .gltf file (default: the built-in character).
        model: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// Also time the import (the whole file read and decoded, 11 times; median and
        /// fastest), e.g. to compare a compressed file with its original.
        #[arg(long)]
        timings: bool,
        #[command(flatten)]
        limits: cli::LimitArgs,
    },
    /// Print the local transforms of every animated node of a clip at the given times.
    Sample {
        /// A .glb or .gltf file (default: the built-in character).
        model: Option<PathBuf>,
        /// Clip name or index.
        #[arg(long)]
        clip: String,
        /// Comma-separated times in seconds (any order; clamped to the clip).
        #[arg(long, value_parser = cli::sample::parse_times, allow_hyphen_values = true)]
        times: std::vec::Vec<f64>,
        /// Interpolation override: authored, step, linear or cubic.
        #[arg(long, default_value = "authored")]
        interpolation: InterpolationOverride,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        #[command(flatten)]
        limits: cli::LimitArgs,
    },
    /// Measure the per-frame jobs (median ns per joint) on W64 or on a model's clip.
    Bench {
        /// A .glb or .gltf file (default: the W64 workload, built in memory).
        model: Option<PathBuf>,
        /// Clip name or index (default: the first clip).
        #[arg(long)]
        clip: Option<String>,
        /// Instead: CPU milliseconds per frame of a crowd of N instances (W64 and the built-in
        /// character, or MODEL), updated in parallel.
        #[arg(long, value_name = "N")]
        crowd: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        #[command(flatten)]
        limits: cli::LimitArgs,
    },
    /// Render a model at a clip time to a PNG (headless GPU; lavapipe works).
    Render(cli::render::RenderArgs),
    /// Hand off from a clip to a ragdoll, simulate headless and measure the transition.
    Ragdoll(Box<cli::ragdoll::RagdollArgs>),
    /// Transition between two clips (cross-fade, inertialization, dead blending) and measure it:
    /// velocity jump, joint acceleration, foot slide, pop, root drift; or every tuned pair of
    /// the model's profile (--table), or export the table for an engine (--export).
    Transition(Box<cli::transition::TransitionArgs>),
    /// Record a clip headless as an animated GIF, a folder of PNG frames or an MP4 (ffmpeg).
    Record(Box<cli::record::RecordArgs>),
    /// Write a copy of a model whose clip, as authored, samples what an interpolation override
    /// shows (the rest of the file kept); read it back and report the largest difference.
    Bake(Box<cli::bake::BakeArgs>),
    /// Run fades, overrides, skinning and ragdoll handoffs for a wall-clock time; fail on any
    /// non-finite value or resident-memory growth.
    Soak(cli::soak::SoakArgs),
}

fn run(command: Command) -> anyhow::Result<String> {
    match command {
        Command::Info { model, format, timings, limits } => {
            let (loaded, label) = cli::load_model_or_default_with_limits(model.as_deref(), &limits.limits())?;
            let mut report = InfoReport::new(&loaded, &label);
            if timings {
                report.load_timings = Some(cli::info::LoadTimings::measure(model.as_deref(), &limits.limits(), 11)?);
            }
            Ok(match format {
                Format::Text => report.to_text(),
                Format::Json => serde_json::to_string_pretty(&report)? + "\n",
            })
        }
        Command::Sample { model, clip, times, interpolation, format, limits } => {
            let (loaded, _) = cli::load_model_or_default_with_limits(model.as_deref(), &limits.limits())?;
            let clip = cli::find_clip(&loaded, &clip)?;
            let report = SampleReport::new(&loaded, clip, &times, interpolation);
            Ok(match format {
                Format::Text => report.to_text(&loaded),
                Format::Json => serde_json::to_string(&report)? + "\n",
            })
        }
        Command::Bench { model, crowd: Some(count), format, limits, .. } => {
            anyhow::ensure!(
                (1..=animtune::crowd::MAX_CROWD).contains(&count),
                "--crowd takes 1 to {} instances",
                animtune::crowd::MAX_CROWD
            );
            animtune::crowd::init_thread_pool();
            let mut owned = Vec::new();
            match model {
                None => {
                    owned.push(("W64".to_owned(), anim::workload::w64_model()));
                    let (character, label) = cli::load_model_or_default(None)?;
                    owned.push((label, character));
                }
                Some(path) => {
                    owned.push((path.display().to_string(), cli::load_model_with_limits(&path, &limits.limits())?));
                }
            }
            let workloads: Vec<(String, &anim::Model)> = owned.iter().map(|(l, m)| (l.clone(), m)).collect();
            let report = cli::bench::CrowdBenchReport::run(count, &workloads);
            Ok(match format {
                Format::Text => report.to_text(),
                Format::Json => serde_json::to_string(&report)? + "\n",
            })
        }
        Command::Bench { model, clip, format, limits, .. } => {
            let (report, workload) = match model {
                None => (BenchReport::run(None), "W64".to_owned()),
                Some(path) => {
                    let loaded = cli::load_model_with_limits(&path, &limits.limits())?;
                    anyhow::ensure!(!loaded.clips.is_empty(), "{} has no animations to benchmark", path.display());
                    let clip = cli::find_clip(&loaded, clip.as_deref().unwrap_or("0"))?;
                    let name = loaded.clips[clip.index()].display_name(clip.index());
                    (BenchReport::run(Some((&loaded, clip))), format!("{} clip \"{name}\"", path.display()))
                }
            };
            Ok(match format {
                Format::Text => report.to_text(&workload),
                Format::Json => serde_json::to_string(&report)? + "\n",
            })
        }
        Command::Render(render) => cli::render::run(&render),
        Command::Bake(bake) => cli::bake::run(&bake),
        Command::Record(record) => cli::record::run(&record),
        Command::Ragdoll(ragdoll) => cli::ragdoll::run(&ragdoll),
        Command::Transition(transition) => cli::transition::run(&transition),
        Command::Soak(soak) => {
            let (report, passed) = cli::soak::run(&soak)?;
            if passed {
                Ok(report)
            } else {
                // The report still goes to stdout; the exit code and stderr say it failed.
                print!("{report}");
                anyhow::bail!("soak failed (see the report's failures)")
            }
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    let Some(command) = args.command else {
        return match animtune::app::run(args.viewer.model.as_deref(), &args.viewer.view) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: {error:#}");
                ExitCode::FAILURE
            }
        };
    };
    match run(command) {
        Ok(output) => {
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
