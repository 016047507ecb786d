//! `animtune bake`: write a copy of a model whose clip, sampled as authored, gives what the
//! viewer shows with an interpolation override (or a teaching mode, resampled) — the rest of
//! the file kept as it was ([`crate::bake`], which the viewer's "Bake to file…" runs too). The
//! report gives the largest difference found when the written file was read back.

use std::fmt::Write as _;
use std::path::PathBuf;

use anim::bake::Deviation;
use anim::{Easing, InterpolationOverride, RotationSpace, SampleSettings, ScaleSpace};
use anyhow::Context as _;
use serde::Serialize;

/// Arguments of `animtune bake`.
#[derive(Debug, Clone, clap::Args)]
pub struct BakeArgs {
    /// The .glb or .gltf file to bake from.
    pub model: PathBuf,
    /// Clip name or index.
    #[arg(long)]
    pub clip: String,
    /// The interpolation the viewer showed: step, linear or cubic (authored only with
    /// --resample, to bake a teaching mode).
    #[arg(long)]
    pub interpolation: InterpolationOverride,
    /// Rotation space of LINEAR segments: slerp (glTF), nlerp, squad, matrix-lerp, euler-lerp
    /// (anything but slerp needs --resample).
    #[arg(long, default_value = "slerp")]
    pub rotation_space: RotationSpace,
    /// Scale space of LINEAR segments: linear (glTF) or log (needs --resample).
    #[arg(long, default_value = "linear")]
    pub scale_space: ScaleSpace,
    /// Easing of the segment parameter (anything but linear needs --resample).
    #[arg(long, default_value = "linear")]
    pub easing: Easing,
    /// Sample the viewer's curves at this many frames per second (plus every authored key
    /// time) and write LINEAR keys, instead of converting the keys exactly.
    #[arg(long, value_name = "FPS")]
    pub resample: Option<f32>,
    /// Output file (always a self-contained .glb).
    #[arg(long)]
    pub out: PathBuf,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t)]
    pub format: super::Format,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// What was written and how close it is to the override.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BakeReport {
    /// The source file.
    pub model: String,
    /// The clip's name.
    pub clip: String,
    /// The override baked (`step`, `linear`, `cubic`, `authored`).
    pub interpolation: String,
    /// Rotation space sampled.
    pub rotation_space: String,
    /// Scale space sampled.
    pub scale_space: String,
    /// Easing sampled.
    pub easing: String,
    /// Resampling rate, when resampled.
    pub resample_fps: Option<f32>,
    /// Channels rewritten.
    pub channels: usize,
    /// Keys written over all of the clip's timelines.
    pub keys: usize,
    /// The written file.
    pub out: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// Times at which the written clip was compared with the override.
    pub checked_times: usize,
    /// Largest difference found, per property.
    pub max_deviation: DeviationReport,
}

/// [`Deviation`] as JSON.
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DeviationReport {
    /// Translation, in the model's units.
    pub translation: f32,
    /// Rotation quaternion component.
    pub rotation: f32,
    /// Scale.
    pub scale: f32,
    /// Morph weight.
    pub weights: f32,
}

impl From<Deviation> for DeviationReport {
    fn from(d: Deviation) -> Self {
        Self { translation: d.translation, rotation: d.rotation, scale: d.scale, weights: d.weights }
    }
}

/// Run `animtune bake`: returns the report, printed as text or JSON.
///
/// # Errors
/// When the model does not load, the clip does not exist, the settings need `--resample`, the
/// output cannot be written, or it does not read back.
pub fn run(args: &BakeArgs) -> anyhow::Result<String> {
    let limits = args.limits.limits();
    let model = super::load_model_with_limits(&args.model, &limits)?;
    let clip_id = super::find_clip(&model, &args.clip)?;
    let clip = &model[clip_id];
    anyhow::ensure!(
        args.interpolation != InterpolationOverride::Authored || args.resample.is_some(),
        "--interpolation authored bakes nothing without --resample (the clip already samples as authored)"
    );
    let settings = SampleSettings {
        mode: args.interpolation,
        track_modes: Vec::new(),
        rotation_space: args.rotation_space,
        scale_space: args.scale_space,
        easing: args.easing,
    };
    if args.resample.is_none() {
        // Say how to bake what glTF's modes cannot hold, before reading anything else.
        anim::bake::bake_clip(clip, &settings).context("pass --resample FPS to bake these settings")?;
    }
    let source = std::fs::read(&args.model).with_context(|| format!("cannot read {}", args.model.display()))?;
    let base_dir = args.model.parent().unwrap_or_else(|| std::path::Path::new("."));
    let baked = crate::bake::bake(&model, (&source, Some(base_dir)), clip_id, &settings, args.resample, &limits)
        .with_context(|| format!("cannot bake {}", args.model.display()))?;
    std::fs::write(&args.out, &baked.glb).with_context(|| format!("cannot write {}", args.out.display()))?;
    let report = BakeReport {
        model: args.model.display().to_string(),
        clip: clip.display_name(clip_id.index()),
        interpolation: args.interpolation.name().to_owned(),
        rotation_space: args.rotation_space.name().to_owned(),
        scale_space: args.scale_space.name().to_owned(),
        easing: args.easing.name().to_owned(),
        resample_fps: args.resample,
        channels: baked.channels,
        keys: baked.keys,
        out: args.out.display().to_string(),
        bytes: baked.glb.len(),
        checked_times: baked.checked_times,
        max_deviation: baked.deviation.into(),
    };
    Ok(match args.format {
        super::Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        super::Format::Text => report.to_text(),
    })
}

impl BakeReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let how = match self.resample_fps {
            Some(fps) => format!("resampled at {fps} fps as LINEAR keys"),
            None => "keys converted exactly".to_owned(),
        };
        let _ = writeln!(
            s,
            "baked clip \"{}\" of {} with {} (rotation {}, scale {}, easing {}): {how}",
            self.clip, self.model, self.interpolation, self.rotation_space, self.scale_space, self.easing
        );
        let _ = writeln!(s, "  {} channels, {} keys -> {} ({} bytes)", self.channels, self.keys, self.out, self.bytes);
        let d = &self.max_deviation;
        let _ = writeln!(
            s,
            "  read back and compared at {} times: largest difference translation {:.2e}, rotation {:.2e}, scale {:.2e}, weights {:.2e}",
            self.checked_times, d.translation, d.rotation, d.scale, d.weights
        );
        s
    }
}
