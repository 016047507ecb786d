//! `animtune render`: headless render of a model at a clip time to a PNG, optionally with two
//! interpolation modes side by side (`--compare`), a ghost pose or the skeleton overlay.

use std::path::PathBuf;

use anim::{ClipCursor, ClipId, InterpolationOverride, Model, SampleSettings, SoaPose};
use anyhow::Context as _;

use crate::render::shot::{Shot, ShotSpec};
use crate::render::{GpuContext, OrbitCamera};

/// Arguments of `animtune render`.
#[derive(Debug, Clone, clap::Args)]
pub struct RenderArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// Clip name or index (default: the first clip; none: the rest pose).
    #[arg(long)]
    pub clip: Option<String>,
    /// Time in seconds (default: the middle of the clip); negative times clamp to the start.
    #[arg(long, allow_negative_numbers = true)]
    pub time: Option<f32>,
    /// Interpolation override: authored, step, linear or cubic.
    #[arg(long, default_value = "authored")]
    pub interpolation: InterpolationOverride,
    /// Image size in pixels, `WIDTHxHEIGHT`.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Output PNG file.
    #[arg(long, default_value = "render.png")]
    pub out: PathBuf,
    /// Draw the skeleton overlay (bones and joints).
    #[arg(long)]
    pub skeleton: bool,
    /// Highlight this joint (node name or index) in the skeleton overlay (implies --skeleton).
    #[arg(long)]
    pub joint: Option<String>,
    /// Two interpolation modes side by side, e.g. `linear,cubic` (replaces --interpolation).
    #[arg(long, value_parser = parse_compare)]
    pub compare: Option<(InterpolationOverride, InterpolationOverride)>,
    /// Also draw a translucent ghost of the pose at this time (seconds).
    #[arg(long, allow_negative_numbers = true)]
    pub ghost: Option<f32>,
    /// Leave out the ground grid and contact shadow.
    #[arg(long)]
    pub no_ground: bool,
    /// A layer over the clip, applied in order:
    /// `CLIP[:mask=JOINT[+JOINT...]][:additive[=REF]][:weight=W]` (see docs/layers.md).
    #[arg(long = "layer", value_name = "SPEC", value_parser = crate::stage::layers::LayerSpec::parse)]
    pub layers: Vec<crate::stage::layers::LayerSpec>,
    /// Paint the layers' masks on the mesh as heat.
    #[arg(long)]
    pub mask_heat: bool,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// Parse `WIDTHxHEIGHT`.
///
/// # Errors
/// A message when the text is not two positive integers separated by `x`.
pub fn parse_size(text: &str) -> Result<(u32, u32), String> {
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(|| format!("size \"{text}\" is not WIDTHxHEIGHT"))?;
    let parse = |s: &str| s.trim().parse::<u32>().ok().filter(|&v| v > 0);
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("size \"{text}\" is not WIDTHxHEIGHT with positive integers")),
    }
}

/// Parse `MODE_A,MODE_B`.
///
/// # Errors
/// A message when there are not exactly two known modes.
pub fn parse_compare(text: &str) -> Result<(InterpolationOverride, InterpolationOverride), String> {
    let (a, b) = text.split_once(',').ok_or_else(|| format!("compare \"{text}\" is not MODE_A,MODE_B"))?;
    Ok((a.trim().parse()?, b.trim().parse()?))
}

/// Find a node by name, or else by decimal index, with a helpful error.
///
/// # Errors
/// When no node has that name or index.
pub fn find_node(model: &Model, name_or_index: &str) -> anyhow::Result<usize> {
    model
        .nodes
        .iter()
        .position(|n| n.name.as_deref() == Some(name_or_index))
        .or_else(|| name_or_index.parse::<usize>().ok().filter(|&i| i < model.nodes.len()))
        .with_context(|| {
            format!("node \"{name_or_index}\" not found (give a node name or an index below {})", model.nodes.len())
        })
}

/// A model posed at one time with one interpolation mode.
pub fn sample_pose(model: &Model, clip: Option<ClipId>, time_secs: f32, mode: InterpolationOverride) -> SoaPose {
    let mut pose = model.rest_pose();
    if let Some(clip) = clip.and_then(|c| model.clip(c)) {
        let mut cursor = ClipCursor::new(clip);
        clip.sample(time_secs, &mut cursor, &SampleSettings::with_mode(mode), &mut pose);
    }
    pose
}

/// A camera framing the model's animated bounds over the clip (sampled at 16 times with every
/// given mode) for a viewport of `aspect`.
pub fn framed_camera(model: &Model, clip: Option<ClipId>, modes: &[InterpolationOverride], aspect: f32) -> OrbitCamera {
    let settings: Vec<SampleSettings> = modes.iter().map(|&m| SampleSettings::with_mode(m)).collect();
    crate::render::shot::framed_camera(model, clip, &settings, aspect)
}

/// What `args` names in `model`, checked before any GPU work: the clip, the time and the
/// highlighted joint.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The clip (none: the rest pose).
    pub clip: Option<ClipId>,
    /// The layers over it.
    pub layers: Vec<anim::LayerDesc>,
    /// Clip time, seconds.
    pub time_secs: f32,
    /// The highlighted joint's node index.
    pub selected_joint: Option<usize>,
}

/// Check what `args` names against `model` (no GPU needed).
///
/// # Errors
/// Unknown clip or joint, naming what is wrong.
pub fn resolve(model: &Model, args: &RenderArgs) -> anyhow::Result<Resolved> {
    let clip = match &args.clip {
        Some(name) => Some(super::find_clip(model, name)?),
        None => (!model.clips.is_empty()).then(|| ClipId::from_index(0)),
    };
    let time_secs = args.time.unwrap_or_else(|| clip.and_then(|c| model.clip(c)).map_or(0.0, |c| c.end_secs() * 0.5));
    let selected_joint = args.joint.as_deref().map(|j| find_node(model, j)).transpose()?;
    let layers = resolve_layers(model, &args.layers)?;
    Ok(Resolved { clip, layers, time_secs, selected_joint })
}

/// The core's layers of `specs` on `model`, checked by building their stack.
///
/// # Errors
/// An unknown clip, joint or region, named with the layer it is in.
pub fn resolve_layers(
    model: &Model,
    specs: &[crate::stage::layers::LayerSpec],
) -> anyhow::Result<Vec<anim::LayerDesc>> {
    let mut layers = Vec::with_capacity(specs.len());
    for spec in specs {
        layers.push(spec.resolve(model).map_err(|e| anyhow::anyhow!("--layer {}: {e}", spec.to_arg()))?);
    }
    Ok(layers)
}

/// Render what `args` asks for into an image (labels included).
///
/// # Errors
/// Unknown clip, no GPU adapter, texture decoding or readback failures.
pub fn render_image(ctx: &GpuContext, model: &Model, args: &RenderArgs) -> anyhow::Result<image::RgbaImage> {
    let Resolved { clip, layers, time_secs, selected_joint } = resolve(model, args)?;
    let (width, height) = args.size;
    let spec = ShotSpec {
        settings: SampleSettings::with_mode(args.interpolation),
        compare: args.compare,
        ghost_at_secs: args.ghost,
        skeleton: args.skeleton,
        selected_joint,
        ground: !args.no_ground,
        layers,
        mask_heat: args.mask_heat,
        ..ShotSpec::new(clip, width, height)
    };
    let footer = match clip {
        Some(c) => format!("{} T={time_secs:.2}S", model.clips[c.index()].display_name(c.index())),
        None => "REST POSE".to_owned(),
    };
    Ok(Shot::new(ctx, model, spec)?.render(ctx, model, time_secs, &footer)?)
}

/// Run `animtune render`: write the PNG and return a one-line summary.
///
/// # Errors
/// Loading, rendering or writing failures, with context.
pub fn run(args: &RenderArgs) -> anyhow::Result<String> {
    let (model, _) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    // Arguments first: a wrong clip or joint is reported without initialising the GPU.
    resolve(&model, args)?;
    let ctx = GpuContext::new_headless()?;
    let image = render_image(&ctx, &model, args)?;
    image
        .save_with_format(&args.out, image::ImageFormat::Png)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    Ok(format!("wrote {} ({}x{}) on {}\n", args.out.display(), image.width(), image.height(), ctx.adapter_summary()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_size_and_compare() {
        assert_eq!(parse_size("256x128"), Ok((256, 128)));
        assert!(parse_size("0x5").is_err());
        assert!(parse_size("12").is_err());
        assert_eq!(parse_compare("linear,cubic"), Ok((InterpolationOverride::Linear, InterpolationOverride::Cubic)));
        assert!(parse_compare("linear").is_err());
        assert!(parse_compare("linear,wobbly").is_err());
    }
}
