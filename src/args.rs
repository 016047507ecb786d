//! The command line's clap definitions: the `animtune` binary parses them (`src/main.rs`), and the
//! tests generate `docs/reference/cli.md` from them and parse every command the docs show.

use std::path::PathBuf;

use anim::InterpolationOverride;
use clap::{Parser, Subcommand};

use crate::cli::{self, Format};

/// Preview, compare and tune glTF character animation.
#[derive(Debug, Parser)]
#[command(name = "animtune", version, about, args_conflicts_with_subcommands = true)]
pub struct Args {
    /// A headless command; without one, the viewer.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The viewer's model and start-up flags.
    #[command(flatten)]
    pub viewer: crate::app::ViewerLine,
}

#[derive(Debug, Subcommand)]
pub enum Command {
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
        /// A layer over the clip, applied in order:
        /// `CLIP[:mask=JOINT[+JOINT...]][:additive[=REF]][:weight=W]` (see docs/layers.md).
        #[arg(long = "layer", value_name = "SPEC", value_parser = crate::stage::layers::LayerSpec::parse)]
        layers: Vec<crate::stage::layers::LayerSpec>,
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
    /// Play clips of one humanoid on another (joints mapped by anatomy, poses transferred in
    /// model space, feet kept planted) and write them into a copy of the target; report the
    /// mapping, foot slide and end-effector error.
    Retarget(Box<cli::retarget::RetargetArgs>),
    /// Play clips placed at parameter values (a 1D or 2D blend space) in phase at one parameter
    /// or a sweep, and measure weights, playback rate, foot slide and joint acceleration.
    BlendSpace(Box<cli::blend_space::BlendSpaceArgs>),
    /// Run the character's state machine headless (each --play entry requests a state at a time
    /// through the machine's transitions) and measure each transition taken as `transition`
    /// does, with the time in each state and the events fired; or export the machine for Godot 4
    /// (--export-godot) and Bevy (--export-bevy).
    Graph(Box<cli::graph::GraphArgs>),
    /// Run fades, overrides, skinning and ragdoll handoffs for a wall-clock time; fail on any
    /// non-finite value or resident-memory growth.
    Soak(cli::soak::SoakArgs),
}
