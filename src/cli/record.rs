//! `animtune record`: a clip rendered headless frame by frame into an animated GIF, a folder of
//! PNG frames or an MP4 (ffmpeg) — see [`crate::record`].

use std::path::PathBuf;

use anim::{ClipId, InterpolationOverride, SampleSettings};

use crate::record::{OutputKind, RecordSpec, record};
use crate::render::GpuContext;
use crate::render::shot::{DEFAULT_HEAT_FULL_SCALE, ShotSpec};

/// Arguments of `animtune record`.
#[derive(Debug, Clone, clap::Args)]
pub struct RecordArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// Clip name or index (default: the first clip).
    #[arg(long)]
    pub clip: Option<String>,
    /// First frame's clip time in seconds [default: 0].
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub from: Option<f32>,
    /// End of the recorded range in seconds (past the clip's end the clip loops) [default: the
    /// clip's end].
    #[arg(long, value_name = "SECS")]
    pub to: Option<f32>,
    /// Frames per second (a GIF plays at its speed up to 50).
    #[arg(long, default_value_t = 30)]
    pub fps: u32,
    /// Frame size in pixels, `WIDTHxHEIGHT`.
    #[arg(long, default_value = "640x360", value_parser = super::render::parse_size)]
    pub size: (u32, u32),
    /// Interpolation override: authored, step, linear or cubic.
    #[arg(long, default_value = "authored")]
    pub interpolation: InterpolationOverride,
    /// Two interpolation modes side by side, e.g. `linear,cubic` (replaces --interpolation).
    #[arg(long, value_parser = super::render::parse_compare)]
    pub compare: Option<(InterpolationOverride, InterpolationOverride)>,
    /// With --compare: one view, the second mode a translucent ghost over the first.
    #[arg(long, requires = "compare")]
    pub ghost: bool,
    /// With --compare: paint each joint's distance between the two modes on the mesh.
    #[arg(long, requires = "compare")]
    pub heatmap: bool,
    /// Distance (model units) that reads as full heat.
    #[arg(long, default_value_t = DEFAULT_HEAT_FULL_SCALE, value_name = "DISTANCE")]
    pub heat_scale: f32,
    /// Draw the skeleton overlay.
    #[arg(long)]
    pub skeleton: bool,
    /// A layer over the clip, applied in order:
    /// `CLIP[:mask=JOINT[+JOINT...]][:additive[=REF]][:weight=W]` (see docs/layers.md).
    #[arg(long = "layer", value_name = "SPEC", value_parser = crate::stage::layers::LayerSpec::parse)]
    pub layers: Vec<crate::stage::layers::LayerSpec>,
    /// Paint the layers' masks on the mesh as heat.
    #[arg(long)]
    pub mask_heat: bool,
    /// Output: FILE.gif, FILE.mp4 (needs ffmpeg on the PATH) or a folder DIR/ for PNG frames.
    #[arg(long)]
    pub out: PathBuf,
    /// Output format of the report.
    #[arg(long, value_enum, default_value_t)]
    pub format: super::Format,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// Run `animtune record`: the report, as text or JSON.
///
/// # Errors
/// Loading, an unknown clip, an unusable output, no GPU adapter, rendering or writing failures.
pub fn run(args: &RecordArgs) -> anyhow::Result<String> {
    let kind = OutputKind::from_path(&args.out)?;
    let (model, label) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    let clip = match &args.clip {
        Some(name) => Some(super::find_clip(&model, name)?),
        None => (!model.clips().is_empty()).then(|| ClipId::from_index(0)),
    };
    let layers = super::render::resolve_layers(&model, &args.layers)?;
    let end_secs = clip.and_then(|c| model.clip(c)).map_or(0.0, anim::Clip::end_secs);
    let (width, height) = args.size;
    let spec = RecordSpec {
        shot: ShotSpec {
            settings: SampleSettings::with_mode(args.interpolation),
            compare: args.compare,
            compare_ghost: args.ghost,
            heatmap: args.heatmap,
            heat_full_scale: args.heat_scale,
            skeleton: args.skeleton,
            layers,
            mask_heat: args.mask_heat,
            ..ShotSpec::new(clip, width, height)
        },
        from_secs: args.from.unwrap_or(0.0),
        to_secs: args.to.unwrap_or(end_secs),
        fps: args.fps,
        out: args.out.clone(),
        kind,
    };
    let ctx = GpuContext::new_headless()?;
    let started = std::time::Instant::now();
    let report = record(&ctx, &model, &spec, &mut |_, _| true)?;
    Ok(match args.format {
        super::Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        super::Format::Text => {
            let clip_name = clip
                .map_or_else(|| "the rest pose".to_owned(), |c| format!("\"{}\"", model[c].display_name(c.index())));
            format!(
                "recorded {} frame(s) of {clip_name} of {label} ({:.2} s to {:.2} s at {} fps, {}x{}) -> {} ({}, plays {:.2} s, {} bytes) in {:.1} s on {}\n",
                report.frames,
                report.from_secs,
                report.to_secs,
                report.fps,
                report.width,
                report.height,
                report.out,
                report.kind,
                report.duration_secs,
                report.bytes,
                started.elapsed().as_secs_f32(),
                ctx.adapter_summary()
            )
        }
    })
}
