//! The `animtune` binary: headless commands over the animation core.

use std::path::PathBuf;
use std::process::ExitCode;

use anim::InterpolationOverride;
use animtune::cli::{self, Format, info::InfoReport, sample::SampleReport};
use clap::{Parser, Subcommand};

/// Preview, compare and tune glTF character animation.
#[derive(Debug, Parser)]
#[command(name = "animtune", version, about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print scenes, nodes, skins, meshes and animations of a model.
    Info {
        /// A .glb or .gltf file.
        model: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Print the local transforms of every animated node of a clip at the given times.
    Sample {
        /// A .glb or .gltf file.
        model: PathBuf,
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
    },
    /// Render a model at a clip time to a PNG (headless GPU; lavapipe works).
    Render(cli::render::RenderArgs),
}

fn run(args: Args) -> anyhow::Result<String> {
    match args.command {
        Command::Info { model, format } => {
            let loaded = cli::load_model(&model)?;
            let report = InfoReport::new(&loaded, &model.display().to_string());
            Ok(match format {
                Format::Text => report.to_text(),
                Format::Json => serde_json::to_string_pretty(&report)? + "\n",
            })
        }
        Command::Sample { model, clip, times, interpolation, format } => {
            let loaded = cli::load_model(&model)?;
            let clip = cli::find_clip(&loaded, &clip)?;
            let report = SampleReport::new(&loaded, clip, &times, interpolation);
            Ok(match format {
                Format::Text => report.to_text(&loaded),
                Format::Json => serde_json::to_string(&report)? + "\n",
            })
        }
        Command::Render(render) => cli::render::run(&render),
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
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
