//! The `animtune` binary: headless commands over the animation core.

use std::process::ExitCode;

use animtune::args::{Args, Command};
use animtune::cli::{self, Format, bench::BenchReport, info::InfoReport, sample::SampleReport};
use clap::Parser;

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
        Command::Sample { model, clip, times, interpolation, layers, format, limits } => {
            let (loaded, _) = cli::load_model_or_default_with_limits(model.as_deref(), &limits.limits())?;
            let clip = cli::find_clip(&loaded, &clip)?;
            let stack = cli::sample::layer_stack(&loaded, &anim::SampleSettings::with_mode(interpolation), &layers)?;
            let report = SampleReport::with_layers(&loaded, clip, &times, interpolation, stack);
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
                    anyhow::ensure!(!loaded.clips().is_empty(), "{} has no animations to benchmark", path.display());
                    let clip = cli::find_clip(&loaded, clip.as_deref().unwrap_or("0"))?;
                    let name = loaded[clip].display_name(clip.index());
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
        Command::Retarget(retarget) => cli::retarget::run(&retarget),
        Command::Record(record) => cli::record::run(&record),
        Command::Ragdoll(ragdoll) => cli::ragdoll::run(&ragdoll),
        Command::Transition(transition) => cli::transition::run(&transition),
        Command::BlendSpace(blend_space) => cli::blend_space::run(&blend_space),
        Command::Graph(graph) => cli::graph::run(&graph),
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
