//! `cargo xtask`: the project's development commands (generated assets), kept out of the shipped
//! `animtune` binary.
//!
//! ```text
//! cargo xtask generate mannequin   [--out assets/mannequin.glb]
//! cargo xtask generate w64         [--out w64.glb]
//! cargo xtask generate bad-corpus  [--out tests/bad]
//! cargo xtask generate ik-rig IN.glb --out OUT.glb [--scale 0.01]
//! cargo run -p animtune-devtools --features puffin-probe -- profile [--addr 127.0.0.1:8585] [--seconds 20] [--scopes redraw,stage_step]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// animtune's development commands.
#[derive(Debug, Parser)]
#[command(name = "xtask", about)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Generate a project asset.
    Generate {
        #[command(subcommand)]
        asset: Asset,
    },
    /// Listen to a viewer built with `--features puffin` and print each profiler scope's time
    /// per frame (median, p95, maximum), as `puffin_viewer` would show them.
    #[cfg(feature = "puffin-probe")]
    Profile {
        /// The viewer's profiler address.
        #[arg(long, default_value = "127.0.0.1:8585")]
        addr: String,
        /// Seconds to wait for the server to answer.
        #[arg(long, default_value_t = 60.0)]
        connect_secs: f64,
        /// Seconds of frames to keep.
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
        /// Only these scopes (comma-separated names; all when absent), in this order.
        #[arg(long, value_delimiter = ',')]
        scopes: Vec<String>,
    },
}

/// What `generate` writes. Relative default paths are resolved against the repository root.
#[derive(Debug, Subcommand)]
enum Asset {
    /// The built-in character (`assets/mannequin.glb`, embedded in the binary; a test checks the
    /// checked-in file is what the generator produces).
    Mannequin {
        /// Where to write the .glb.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// W64, the benchmark skeleton and clips of `animtune bench`, as a .glb (measure it with
    /// `animtune bench FILE --clip "W64 LINEAR"`).
    W64 {
        /// Where to write the .glb.
        #[arg(long, default_value = "w64.glb")]
        out: PathBuf,
    },
    /// An IK-control-style variant of a humanoid `.glb` (feet and hands under control bones at
    /// the armature root, see `devtools::ikrig`), optionally under a scaled top node.
    IkRig {
        /// The humanoid .glb.
        input: PathBuf,
        /// Where to write the variant.
        #[arg(long)]
        out: PathBuf,
        /// Scale of a new top node (1: none).
        #[arg(long, default_value_t = 1.0)]
        scale: f32,
    },
    /// Every variant of the rig corpus of `devtools::rigs` (×0.01, ×100, Mixamo-style, IK
    /// controls, a hovering clip) as `.glb` files, for `animtune transition` and the viewer.
    Rigs {
        /// The folder to write (created if needed).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The corpus of malformed files and its manifest (`tests/bad`, `EXPECTED.txt`).
    BadCorpus {
        /// The folder to write (created if needed; stale corpus files are removed).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn run(args: Args) -> anyhow::Result<String> {
    let root = devtools::ci::repo_root();
    match args.command {
        Command::Generate { asset: Asset::Mannequin { out } } => {
            let out = out.unwrap_or_else(|| root.join("assets/mannequin.glb"));
            devtools::mannequin::write_mannequin(&out)?;
            Ok(format!("wrote {}\n", out.display()))
        }
        Command::Generate { asset: Asset::W64 { out } } => {
            devtools::w64::write_w64(&out)?;
            Ok(format!("wrote {}\n", out.display()))
        }
        Command::Generate { asset: Asset::IkRig { input, out, scale } } => {
            let bytes = std::fs::read(&input)?;
            let variant = devtools::ikrig::detach_extremities(&bytes).map_err(anyhow::Error::msg)?;
            let variant = if (scale - 1.0).abs() > f32::EPSILON {
                let mut doc = devtools::gltf::Doc::from_glb(&variant).map_err(anyhow::Error::msg)?;
                doc.wrap_in_scaled_root(scale);
                doc.to_glb()
            } else {
                variant
            };
            std::fs::write(&out, variant)?;
            Ok(format!("wrote {}\n", out.display()))
        }
        Command::Generate { asset: Asset::Rigs { out } } => {
            let out = out.unwrap_or_else(|| root.join("target/rigs"));
            std::fs::create_dir_all(&out)?;
            let mut written = 0usize;
            for rig in devtools::rigs::RIGS {
                for variant in devtools::rigs::RigVariant::ALL {
                    // A rig whose source model is missing (no `../shared`) is left out, said below.
                    let Ok(glb) = devtools::rigs::make(rig, variant) else { continue };
                    std::fs::write(out.join(format!("{}-{}.glb", rig.name, variant.name())), glb)?;
                    written += 1;
                }
            }
            Ok(format!("wrote {written} rig variants to {}\n", out.display()))
        }
        Command::Generate { asset: Asset::BadCorpus { out } } => {
            let out = out.unwrap_or_else(|| root.join("tests/bad"));
            let count = devtools::badfiles::write_corpus(&out)?;
            Ok(format!("wrote {count} files and EXPECTED.txt to {}\n", out.display()))
        }
        #[cfg(feature = "puffin-probe")]
        Command::Profile { addr, connect_secs, seconds, scopes } => {
            let (frames, mut figures) = devtools::puffin_probe::probe(&addr, connect_secs, seconds)?;
            if !scopes.is_empty() {
                figures = scopes.iter().filter_map(|name| figures.iter().find(|f| &f.name == name).cloned()).collect();
            }
            Ok(devtools::puffin_probe::table(frames, &figures))
        }
    }
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
