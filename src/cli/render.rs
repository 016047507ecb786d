//! `animtune render`: headless render of a model at a clip time to a PNG, optionally with two
//! interpolation modes side by side (`--compare`), a ghost pose or the skeleton overlay.

use std::path::PathBuf;

use anim::{ClipCursor, ClipId, InterpolationOverride, Model, NodeId, SampleSettings, SoaPose};
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
    /// A blend space instead of the clip: its clips at parameter values, `NAME=X,...` (one
    /// axis) or `NAME=X,Y,...` (two), as `animtune blend-space --clip` takes them; played in
    /// phase from phase 0 for `--time` seconds (default: half a blended cycle).
    #[arg(long = "blend-space", value_name = "NAME=X[,Y],...", value_parser = parse_blend_points, allow_hyphen_values = true, conflicts_with = "clip")]
    pub blend_space: Option<BlendPoints>,
    /// The blend space's parameter, `X` or `X,Y` (default: its first clip's position).
    #[arg(long, value_name = "X[,Y]", value_parser = crate::stage::layers::parse_point, allow_hyphen_values = true, requires = "blend_space")]
    pub at: Option<(f32, Option<f32>)>,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

/// A blend space's clips at their positions, as `--blend-space` gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendPoints(pub Vec<crate::stage::layers::BlendPointSpec>);

/// Parse a blend space's points, `NAME=X[,Y],NAME=X[,Y],...`: each `NAME=` starts a point, the
/// numbers after it are its coordinates.
///
/// # Errors
/// Text before the first `NAME=`, or a point [`crate::stage::layers::BlendPointSpec::parse`]
/// refuses.
pub fn parse_blend_points(text: &str) -> Result<BlendPoints, String> {
    let mut points: Vec<String> = Vec::new();
    for part in text.split(',') {
        match points.last_mut() {
            Some(last) if !part.contains('=') => {
                last.push(',');
                last.push_str(part);
            }
            _ if part.contains('=') => points.push(part.to_owned()),
            _ => return Err(format!("\"{text}\" does not start with NAME=X (e.g. Walk=1.4,Run=3.4)")),
        }
    }
    let points: Vec<_> =
        points.iter().map(|p| crate::stage::layers::BlendPointSpec::parse(p)).collect::<Result<_, _>>()?;
    if points.len() < 2 {
        return Err(format!("\"{text}\" places {} clip(s); a blend space needs at least two", points.len()));
    }
    Ok(BlendPoints(points))
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
pub fn find_node(model: &Model, name_or_index: &str) -> anyhow::Result<NodeId> {
    model.find_node(name_or_index).with_context(|| {
        format!("node \"{name_or_index}\" not found (give a node name or an index below {})", model.nodes().len())
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
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The clip (none: the rest pose).
    pub clip: Option<ClipId>,
    /// The layers over it.
    pub layers: Vec<anim::LayerDesc>,
    /// The blend space played instead of the clip (at its parameter, phase 0), if any.
    pub blend_space: Option<anim::BlendSpacePlayer>,
    /// Clip time, seconds.
    pub time_secs: f32,
    /// The highlighted joint.
    pub selected_joint: Option<NodeId>,
}

/// Check what `args` names against `model` (no GPU needed).
///
/// # Errors
/// Unknown clip or joint, naming what is wrong.
pub fn resolve(model: &Model, args: &RenderArgs) -> anyhow::Result<Resolved> {
    let blend_space = args
        .blend_space
        .as_ref()
        .map(|points| blend_space_player(model, &points.0, args.at, ("--blend-space", "--at")))
        .transpose()?;
    let clip = match (&args.clip, &blend_space) {
        // The blend space's heaviest clip: what the camera frames and the footer names.
        (_, Some(player)) => Some(player.heaviest_clip()),
        (Some(name), None) => Some(super::find_clip(model, name)?),
        (None, None) => (!model.clips().is_empty()).then(|| ClipId::from_index(0)),
    };
    let time_secs = match &blend_space {
        Some(player) => args.time.unwrap_or(player.cycle_secs() * 0.5),
        None => args.time.unwrap_or_else(|| clip.and_then(|c| model.clip(c)).map_or(0.0, |c| c.end_secs() * 0.5)),
    };
    let selected_joint = args.joint.as_deref().map(|j| find_node(model, j)).transpose()?;
    let layers = resolve_layers(model, &args.layers)?;
    Ok(Resolved { clip, layers, blend_space, time_secs, selected_joint })
}

/// The blend space of `points` on `model`, phase-synced by the rig's foot contacts, at `at`
/// (default: the first point's position); `flags` name the options the points and the parameter
/// came from, for the errors.
///
/// # Errors
/// Unknown clips, a mix of 1D and 2D points, duplicates, or a parameter with the wrong number of
/// coordinates.
pub(super) fn blend_space_player(
    model: &Model,
    points: &[crate::stage::layers::BlendPointSpec],
    at: Option<(f32, Option<f32>)>,
    (points_flag, at_flag): (&str, &str),
) -> anyhow::Result<anim::BlendSpacePlayer> {
    let spec = crate::stage::layers::BlendSpaceSpec { points: points.to_vec() };
    let rig = crate::transitions::Rig::new(model);
    let mut player = super::blend_space::player(model, &rig, &spec, anim::PhaseSync::Phase)
        .map_err(|e| anyhow::anyhow!("{points_flag}: {e}"))?;
    if let Some((x, y)) = at {
        let two_d = player.space().is_2d();
        anyhow::ensure!(y.is_some() == two_d, "{at_flag} takes {} coordinate(s) here", if two_d { 2 } else { 1 });
        player.set_parameter(glam::Vec2::new(x, y.unwrap_or(0.0)));
    }
    Ok(player)
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
    let Resolved { clip, layers, blend_space, time_secs, selected_joint } = resolve(model, args)?;
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
    let footer = match (clip, &blend_space) {
        (_, Some(player)) => {
            let weights: Vec<String> = player
                .space()
                .points()
                .iter()
                .zip(player.weights())
                .map(|(p, w)| format!("{} {w:.2}", model[p.clip].display_name(p.clip.index())))
                .collect();
            let at = player.parameter();
            let at = if player.space().is_2d() { format!("{:.2},{:.2}", at.x, at.y) } else { format!("{:.2}", at.x) };
            format!("BLEND SPACE AT {at}: {} T={time_secs:.2}S", weights.join(", "))
        }
        (Some(c), None) => format!("{} T={time_secs:.2}S", model[c].display_name(c.index())),
        (None, None) => "REST POSE".to_owned(),
    };
    let mut shot = Shot::new(ctx, model, spec)?;
    shot.set_blend_space(blend_space);
    Ok(shot.render(ctx, model, time_secs, &footer)?)
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

    #[test]
    fn parses_blend_points_in_one_or_two_dimensions() {
        let one = parse_blend_points("Walk=1.4,Run=3.4").unwrap().0;
        assert_eq!(
            one.iter().map(|p| (p.clip.as_str(), p.x, p.y)).collect::<Vec<_>>(),
            [("Walk", 1.4, None), ("Run", 3.4, None)]
        );
        let two = parse_blend_points("Walk=1,0,Run=3,-1,Idle=0,0").unwrap().0;
        assert_eq!(two[1].y, Some(-1.0));
        assert_eq!(two.len(), 3);
        for bad in ["1.4,Run=3", "Walk=1.4", "Walk=x,Run=2", "Walk=1,2,3,Run=2"] {
            assert!(parse_blend_points(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_blend_space_resolves_to_its_heaviest_clip_at_half_a_cycle() {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let args = <crate::args::Args as clap::Parser>::try_parse_from([
            "animtune",
            "render",
            "--blend-space",
            "Walk=1.4,Run=3.4",
            "--at",
            "3.0",
        ])
        .expect("parses");
        let crate::args::Command::Render(args) = args.command.expect("a command") else { panic!("render") };
        let resolved = resolve(&model, &args).expect("resolves");
        let player = resolved.blend_space.expect("a blend space");
        assert!((player.weights()[1] - 0.8).abs() < 1e-5, "Run weighs 0.8 at 3.0: {:?}", player.weights());
        assert_eq!(resolved.clip, model.find_clip("Run"));
        assert!((resolved.time_secs - 0.5 * player.cycle_secs()).abs() < 1e-6);
        let wrong = <crate::args::Args as clap::Parser>::try_parse_from([
            "animtune",
            "render",
            "--blend-space",
            "Walk=1.4,Run=3.4",
            "--at",
            "2,1",
        ])
        .expect("parses");
        let crate::args::Command::Render(wrong) = wrong.command.expect("a command") else { panic!("render") };
        assert!(resolve(&model, &wrong).is_err(), "a 1D space takes one coordinate");
    }
}
