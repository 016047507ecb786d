//! `animtune ragdoll`: play a clip, hand off to a ragdoll (whole body or a region, limp or
//! powered, pinned or free), simulate headless and measure the handoff (position and velocity
//! error after the first step, pop on the blended output), the fall (ground clearance, joint
//! limits, the mesh following its bodies, settling, float and slide during the blend), powered
//! tracking, an optional get-up, and the physics' cost per frame; optionally a filmstrip PNG.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use anim::ragdoll::{Placement, RagdollRamp};
use anim::{ClipCursor, ClipId, Easing, LocalMatrices, Model, SampleSettings, SoaPose};
use anyhow::Context as _;
use glam::{Affine3A, Vec3};
use serde::Serialize;

use super::Format;
use crate::motion::{Pop, largest_distance};
use crate::physics::getup::lowest_capsule_point;
use crate::physics::{BodyId, Handoff, MotorGains, Phase, RagdollController, RagdollSettings, RagdollSpec, Region};
use crate::render::framing::{CpuPoser, drawn_nodes};

/// Frame rate of the output the user sees (where `pop` is measured).
pub const FRAME_HZ: f32 = 60.0;

/// Bodies whose capsule ends move slower than this fraction of the character's size per second
/// are at rest.
const REST_SPEED_FRACTION: f32 = 0.05;

/// The mesh's bounds are compared with the colliders' every this many frames (and at the end).
const MESH_CHECK_FRAMES: usize = 6;

/// A value per motor region: `--stiffness 900` (every region) or
/// `--stiffness legs=1500,arms=400` (the rest keep their default).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RegionValues {
    /// For every region not listed.
    pub all: Option<f32>,
    /// Per region ([`Region::index`]).
    pub per_region: [Option<f32>; 5],
}

impl RegionValues {
    /// `defaults` with these values applied.
    pub fn apply(&self, defaults: [f32; 5]) -> [f32; 5] {
        let mut out = defaults;
        for (i, v) in out.iter_mut().enumerate() {
            if let Some(x) = self.per_region[i].or(self.all) {
                *v = x;
            }
        }
        out
    }
}

/// Parse `X` or `REGION=X,REGION=X` (regions: torso, head, arms, legs, tail).
///
/// # Errors
/// A message for unknown regions or values that are not finite and ≥ 0.
pub fn parse_region_values(text: &str) -> Result<RegionValues, String> {
    let number = |s: &str| {
        s.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| format!("\"{s}\" is not a number ≥ 0"))
    };
    let mut values = RegionValues::default();
    for part in text.split(',') {
        match part.split_once('=') {
            Some((region, value)) => {
                let region = Region::from_name(region).ok_or_else(|| {
                    let names: Vec<&str> = Region::ALL.iter().map(|r| r.name()).collect();
                    format!("unknown region \"{region}\" (regions: {})", names.join(", "))
                })?;
                values.per_region[region.index()] = Some(number(value)?);
            }
            None => values.all = Some(number(part)?),
        }
    }
    Ok(values)
}

/// Arguments of `animtune ragdoll`.
#[derive(Debug, Clone, clap::Args)]
pub struct RagdollArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// Clip name or index (default: the first clip; a model without clips stands in its rest pose).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time of the handoff, in seconds (rounded up to a 60 Hz frame).
    #[arg(long, default_value_t = 0.5, allow_hyphen_values = true)]
    pub handoff_at: f32,
    /// Ragdoll weight ramp, per second (5.0: full ragdoll after 0.2 s).
    #[arg(long, default_value_t = RagdollRamp::DEFAULT_RATE_PER_SEC, allow_hyphen_values = true)]
    pub ramp_rate: f32,
    /// Easing of the ramp (linear, smoothstep, ease-in-quad, ...).
    #[arg(long, default_value = "linear")]
    pub easing: Easing,
    /// Seconds simulated after the handoff.
    #[arg(long, default_value_t = 3.0, allow_hyphen_values = true)]
    pub seconds: f32,
    /// Start the bodies at rest instead of with the animation's velocity.
    #[arg(long)]
    pub no_initial_velocity: bool,
    /// Impulse at the handoff on a bone's body, `BONE:X,Y,Z` (newton-seconds, world axes; the
    /// bone by name or node index, its body by the same rule as the viewer's).
    #[arg(long, value_parser = parse_push, allow_hyphen_values = true)]
    pub push: Option<(String, Vec3)>,
    /// Powered ragdoll: joint-motor strength toward the animated pose, 0 (limp) to 1 (full).
    #[arg(long, value_name = "STRENGTH", allow_hyphen_values = true)]
    pub powered: Option<f32>,
    /// "Active → limp": the motor strength falls to 0 at this rate per second (2: limp after
    /// 0.5 s); without it a powered ragdoll stays powered.
    #[arg(long, value_name = "RATE", allow_hyphen_values = true)]
    pub limp_rate: Option<f32>,
    /// Motor stiffness, 1/s² (acceleration-based): one value, or `REGION=VALUE,...` over
    /// torso, head, arms, legs, tail.
    #[arg(long, value_parser = parse_region_values)]
    pub stiffness: Option<RegionValues>,
    /// Motor damping, 1/s: one value or `REGION=VALUE,...`.
    #[arg(long, value_parser = parse_region_values)]
    pub damping: Option<RegionValues>,
    /// The pelvis (root body) follows the animation.
    #[arg(long)]
    pub pin_pelvis: bool,
    /// Partial ragdoll: simulate only this joint's body and everything below it (by name or
    /// node index); the rest keeps animating.
    #[arg(long, value_name = "JOINT")]
    pub region: Option<String>,
    /// Ground height in model units (default: where `render` and the viewer draw it: y = 0, or
    /// the lowest point the model reaches when that is below).
    #[arg(long, allow_hyphen_values = true)]
    pub ground_y: Option<f32>,
    /// Metres per model unit (default: from the character's size, simulated at 1.7 m).
    #[arg(long, allow_hyphen_values = true)]
    pub metres_per_unit: Option<f32>,
    /// Do not hold the ragdoll toward the animation while the blend weight ramps up.
    #[arg(long)]
    pub no_hold: bool,
    /// Get up after the simulated seconds, into this clip (`CLIP` for both, or
    /// `FACE_UP_CLIP,FACE_DOWN_CLIP`); the clip is placed where and how the body lies.
    #[arg(long, value_name = "CLIP")]
    pub get_up: Option<String>,
    /// Length of the get-up blend, seconds.
    #[arg(long, default_value_t = 1.5, allow_hyphen_values = true)]
    pub get_up_secs: f32,
    /// Write a filmstrip of the output (colliders drawn) to this PNG (needs a GPU or Mesa's
    /// software Vulkan).
    #[arg(long, value_name = "FILE.png")]
    pub screenshot: Option<PathBuf>,
    /// Times of the filmstrip's frames, seconds after the handoff (default: spread over the run).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub screenshot_at: Vec<f32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
}

impl RagdollArgs {
    /// The defaults of `animtune ragdoll` with the handoff at `handoff_at` (for tests and
    /// tools).
    pub fn at(handoff_at: f32) -> Self {
        Self {
            model: None,
            clip: None,
            handoff_at,
            ramp_rate: RagdollRamp::DEFAULT_RATE_PER_SEC,
            easing: Easing::Linear,
            seconds: 3.0,
            no_initial_velocity: false,
            push: None,
            powered: None,
            limp_rate: None,
            stiffness: None,
            damping: None,
            pin_pelvis: false,
            region: None,
            ground_y: None,
            metres_per_unit: None,
            no_hold: false,
            get_up: None,
            get_up_secs: 1.5,
            screenshot: None,
            screenshot_at: Vec::new(),
            format: Format::Text,
            limits: super::LimitArgs::default(),
        }
    }
}

/// Parse `BONE:X,Y,Z` (the bone name may itself contain `:`).
///
/// # Errors
/// A message when the text is not a name, a colon and three finite numbers.
pub fn parse_push(text: &str) -> Result<(String, Vec3), String> {
    let (bone, vector) = text.rsplit_once(':').ok_or_else(|| format!("push \"{text}\" is not BONE:X,Y,Z"))?;
    let values: Vec<f32> = vector.split(',').filter_map(|s| s.trim().parse().ok()).collect();
    match *values.as_slice() {
        [x, y, z] if bone.is_empty() => Err(format!("push \"{text}\" names no bone ({x},{y},{z})")),
        [x, y, z] if x.is_finite() && y.is_finite() && z.is_finite() => Ok((bone.to_owned(), Vec3::new(x, y, z))),
        _ => Err(format!("push \"{text}\" is not BONE:X,Y,Z with three finite numbers")),
    }
}

/// One body as the report lists it.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BodyReport {
    /// Bone name.
    pub name: String,
    /// Anatomical kind (`thigh`, `forearm`, ...).
    pub kind: String,
    /// `left`, `right` or `centre`.
    pub side: String,
    /// How the kind was found: `name`, `chain` (a limb name and the place in its chain) or
    /// `geometry`.
    pub from: String,
    /// The joint to its parent: `hinge`, `swing-twist` or `root`.
    pub joint: String,
}

/// The measured get-up.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GetUpMetrics {
    /// Clip got up into.
    pub clip: String,
    /// `face-up` or `face-down`, from how the body lay.
    pub facing: String,
    /// Horizontal distance between the lying pelvis and the placed clip's first-frame pelvis.
    pub getup_alignment_error_m: f32,
    /// Angle between the placed clip's facing and the planned heading.
    pub heading_error_deg: f32,
    /// Key poses passed through (sit or all fours, crouch).
    pub key_poses: usize,
    /// Length of the get-up blend.
    pub secs: f32,
    /// Lowest capsule point minus the ground, lowest over the get-up (metres; ≥ −2% of size
    /// means nothing went through the ground).
    pub min_clearance_m: f32,
    /// Largest per-frame joint displacement during the get-up (metres).
    pub max_joint_step_m: f32,
}

/// The measured handoff and fall. Lengths and speeds are in simulated metres (the model's units
/// × `metres_per_unit`); `*_per_size` figures are divided by the character's size (per second
/// for speeds), so rigs at any scale compare.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RagdollReport {
    /// Clip played (`none` without clips).
    pub clip: String,
    /// Clip time of the handoff frame.
    pub handoff_at_secs: f32,
    /// Ramp rate per second.
    pub ramp_rate: f32,
    /// Ramp easing.
    pub easing: String,
    /// Bodies started with the animation's velocity.
    pub initial_velocity: bool,
    /// Joint-motor strength at the handoff (0: limp).
    pub powered: f32,
    /// Rate per second at which the motor strength fell to 0 (`null`: it did not).
    pub limp_rate: Option<f32>,
    /// The pelvis followed the animation.
    pub pin_pelvis: bool,
    /// The joint whose subtree was simulated (`null`: the whole body).
    pub region: Option<String>,
    /// Bodies simulated (the region's, or all).
    pub simulated_bodies: usize,
    /// Rigid bodies.
    pub body_count: usize,
    /// Joints.
    pub joint_count: usize,
    /// Hinge joints (knees, elbows).
    pub hinge_count: usize,
    /// Bodies with no joint to another body besides the root (the pelvis): each one would fall
    /// on its own. 0 for a humanoid whatever its node tree (feet and hands hung under IK
    /// control bones are jointed to their shins and forearms).
    pub unjointed_bodies: usize,
    /// Largest distance between a joint's two anchors (where the parent holds the child, where
    /// the child is) after any physics step of the run, metres.
    pub max_joint_separation_m: f32,
    /// `max_joint_separation_m / size_m` (joints that hold: under 0.02).
    pub max_joint_separation_per_size: f32,
    /// Body names, parents first.
    pub bodies: Vec<String>,
    /// Each body's anatomy.
    pub anatomy: Vec<BodyReport>,
    /// Metres per model unit as simulated.
    pub metres_per_unit: f32,
    /// Character size (largest extent of the rest mesh), simulated metres.
    pub size_m: f32,
    /// Fixed physics step.
    pub step_secs: f32,
    /// Ground plane height (where the ground is drawn, lowered under a body that started below
    /// it).
    pub ground_height_m: f32,
    /// Largest distance between a body's joint and the animated joint after the first step.
    pub handoff_position_error_m: f32,
    /// `handoff_position_error_m / size_m`.
    pub position_error_per_size: f32,
    /// Largest difference between a body's joint velocity and the animated joint velocity after
    /// the first step.
    pub handoff_velocity_error_mps: f32,
    /// `handoff_velocity_error_mps / size_m` (per second).
    pub velocity_error_per_size: f32,
    /// The clip's own non-rigid velocity at the handoff, per size per second: the largest speed
    /// at which a joint moves away from where its parent body's rigid motion carries it (limbs
    /// stretched by translation or scale keys), summed down each chain of bodies from the
    /// pelvis. A rigid ragdoll cannot follow it: where it is large, so is the velocity error.
    pub stretch_velocity_per_size: f32,
    /// Largest per-frame joint displacement of the output in the 3 frames after the handoff over
    /// the larger of the largest in the 3 frames before and the motions' own: the clip's largest
    /// up to the handoff, a free fall's from rest by the third frame (`motion::Pop`; `null` when
    /// nothing moved).
    pub pop: Option<f32>,
    /// Largest per-frame joint displacement in the 3 output frames before the handoff.
    pub displacement_before_m: f32,
    /// Largest per-frame joint displacement in the 3 output frames after the handoff.
    pub displacement_after_m: f32,
    /// Time after the handoff at which the ragdoll weight reached 1 (`null`: never).
    pub weight_full_at_secs: Option<f32>,
    /// Time after the handoff at which the simulated bodies came to rest for good (`null`:
    /// still moving).
    pub settle_secs: Option<f32>,
    /// No NaN or infinity in the bodies or the output pose, at any frame.
    pub finite: bool,
    /// Largest excursion of any joint beyond its limits, over every physics step.
    pub max_limit_violation_deg: f32,
    /// Lowest collider point minus the ground, lowest after any physics step (negative: through
    /// the ground).
    pub min_clearance_m: f32,
    /// `min_clearance_m / size_m`.
    pub min_clearance_per_size: f32,
    /// How far the skinned mesh's bounds reach beyond the colliders' bounds, largest over the
    /// run (0: inside), over the size.
    pub mesh_outside_colliders_per_size: f32,
    /// How far the shown pelvis rose above the simulated pelvis while the blend ramped (a
    /// standing pose averaged with a lying one "sits in the air").
    pub blend_float_m: f32,
    /// How far the output's pelvis moved horizontally after the bodies came to rest.
    pub slide_after_rest_m: f32,
    /// RMS over the simulated bodies' joints and the frames after the handoff of the distance
    /// between the output and the animation (how well a powered ragdoll tracks).
    pub tracking_error_m: f32,
    /// `tracking_error_m / size_m`.
    pub tracking_error_per_size: f32,
    /// Root body's joint height above the ground at the end of the ragdoll.
    pub final_root_height_m: f32,
    /// Change of that height over the last second.
    pub root_height_change_last_second_m: f32,
    /// Lowest capsule point at the end of the ragdoll.
    pub lowest_point_m: f32,
    /// Physics steps taken.
    pub steps: u64,
    /// Median wall time of one 60 Hz frame of the controller (two physics steps and the blend)
    /// while the ragdoll is awake, ms.
    pub physics_ms_per_frame_median: f32,
    /// 95th percentile of the same (the slowest frames measure the machine's other load more
    /// than the physics), ms.
    pub physics_ms_per_frame_p95: f32,
    /// The get-up, when one was asked for.
    pub get_up: Option<GetUpMetrics>,
}

/// Run `animtune ragdoll`.
///
/// # Errors
/// When the model cannot be loaded, the clip or bone is unknown, or no ragdoll fits the model.
pub fn run(args: &RagdollArgs) -> anyhow::Result<String> {
    let (model, label) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    let clip = match &args.clip {
        Some(name) => Some(super::find_clip(&model, name)?),
        None => (!model.clips().is_empty()).then(|| ClipId::from_index(0)),
    };
    let run = simulate_run(&model, clip, args).with_context(|| format!("ragdoll of {label}"))?;
    if let Some(path) = &args.screenshot {
        write_filmstrip(&model, &run, &caption(&run.report), path)?;
    }
    Ok(match args.format {
        Format::Text => run.report.to_text(),
        Format::Json => serde_json::to_string(&run.report)? + "\n",
    })
}

/// Plays `clip` (looping), samples a pose at a time, placed.
struct Player<'a> {
    model: &'a Model,
    clip: Option<ClipId>,
    cursor: Option<ClipCursor>,
    settings: SampleSettings,
    rest: SoaPose,
    placement: Placement,
    /// Run time at which the clip's time 0 plays.
    time_offset_secs: f32,
}

impl<'a> Player<'a> {
    fn new(model: &'a Model, clip: Option<ClipId>) -> Self {
        Self {
            model,
            clip,
            cursor: clip.map(|c| ClipCursor::new(&model[c])),
            settings: SampleSettings::default(),
            rest: model.rest_pose(),
            placement: Placement::IDENTITY,
            time_offset_secs: 0.0,
        }
    }

    fn sample(&mut self, time_secs: f32, pose: &mut SoaPose) {
        pose.copy_from(&self.rest);
        if let (Some(c), Some(cursor)) = (self.clip, &mut self.cursor) {
            let clip = &self.model[c];
            clip.sample(clip.wrap_time(time_secs - self.time_offset_secs), cursor, &self.settings, pose);
        }
        self.placement.apply(&self.model.hierarchy, pose);
    }

    fn switch(&mut self, clip: Option<ClipId>) {
        self.clip = clip;
        self.cursor = clip.map(|c| ClipCursor::new(&self.model[c]));
    }
}

/// One frame kept for the filmstrip.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Seconds after the handoff.
    pub secs: f32,
    /// What drove the pose.
    pub phase: Phase,
    /// The output pose.
    pub pose: SoaPose,
    /// Collider capsules `(a, b, radius)` in world space.
    pub capsules: Vec<(Vec3, Vec3, f32)>,
}

/// A simulated run: the report and the frames kept for the filmstrip.
#[derive(Debug, Clone)]
pub struct RagdollRun {
    /// The measurements.
    pub report: RagdollReport,
    /// Frames at the filmstrip's times.
    pub snapshots: Vec<Snapshot>,
}

/// Find a node by name, or else by decimal index.
fn find_bone(model: &Model, name_or_index: &str) -> anyhow::Result<anim::NodeId> {
    super::render::find_node(model, name_or_index)
}

/// The body of a bone named on the command line (same rule as the viewer's picking).
fn bone_body(model: &Model, spec: &RagdollSpec, bone: &str) -> anyhow::Result<BodyId> {
    let node = find_bone(model, bone).with_context(|| format!("bone \"{bone}\" not found in the ragdoll"))?;
    spec.body_for_node(node).with_context(|| format!("bone \"{bone}\" (node {node}) is not part of the ragdoll"))
}

/// Simulate the handoff of `args` on `model` and measure it.
///
/// # Errors
/// When the pushed bone is unknown, no ragdoll fits the model or the ragdoll blows up (a
/// [`crate::physics::RagdollFault`], e.g. from an absurd push).
pub fn simulate(model: &Model, clip: Option<ClipId>, args: &RagdollArgs) -> anyhow::Result<RagdollReport> {
    simulate_run(model, clip, args).map(|run| run.report)
}

/// The settings and handoff `args` ask for.
fn settings_of(args: &RagdollArgs) -> RagdollSettings {
    let defaults = RagdollSettings::default();
    let mut gains = MotorGains::default();
    if let Some(s) = &args.stiffness {
        gains.stiffness = s.apply(gains.stiffness);
    }
    if let Some(d) = &args.damping {
        gains.damping = d.apply(gains.damping);
    }
    RagdollSettings {
        initial_velocity: !args.no_initial_velocity,
        metres_per_unit: args.metres_per_unit,
        gains,
        hold_during_blend: !args.no_hold,
        ..defaults
    }
}

/// [`simulate`], keeping the filmstrip's frames.
///
/// # Errors
/// As [`simulate`].
pub fn simulate_run(model: &Model, clip: Option<ClipId>, args: &RagdollArgs) -> anyhow::Result<RagdollRun> {
    anyhow::ensure!(args.handoff_at.is_finite() && args.handoff_at >= 0.0, "--handoff-at must be ≥ 0");
    anyhow::ensure!(args.seconds.is_finite() && args.seconds >= 0.0, "--seconds must be ≥ 0");
    anyhow::ensure!(args.get_up_secs.is_finite() && args.get_up_secs >= 0.0, "--get-up-secs must be ≥ 0");
    if let Some(p) = args.powered {
        anyhow::ensure!((0.0..=1.0).contains(&p), "--powered must be between 0 and 1, not {p}");
    }
    if let Some(rate) = args.limp_rate {
        anyhow::ensure!(rate.is_finite() && rate >= 0.0, "--limp-rate must be ≥ 0, not {rate}");
    }
    if let Some(m) = args.metres_per_unit {
        anyhow::ensure!(m.is_finite() && m > 0.0, "--metres-per-unit must be > 0");
    }
    let settings = settings_of(args);
    let mut controller = RagdollController::new(model, settings, RagdollRamp::new(args.ramp_rate, args.easing))
        .context("cannot build a ragdoll")?;
    let spec = controller.spec().clone();
    let push = match &args.push {
        Some((bone, impulse)) => Some((bone_body(model, &spec, bone)?, *impulse)),
        None => None,
    };
    let region = match &args.region {
        Some(joint) => Some(bone_body(model, &spec, joint)?),
        None => None,
    };
    let get_up_clips = match &args.get_up {
        Some(text) => {
            let (up, down) = text.split_once(',').unwrap_or((text, text));
            Some((super::find_clip(model, up.trim())?, super::find_clip(model, down.trim())?))
        }
        None => None,
    };
    let handoff = Handoff {
        push,
        region,
        pin_root: args.pin_pelvis,
        motor_strength: args.powered.unwrap_or(0.0),
        limp: args.limp_rate.map(|r| RagdollRamp::new(r, Easing::Linear)),
        ground_y: Some(
            args.ground_y
                .filter(|g| g.is_finite())
                .unwrap_or_else(|| crate::render::framing::ragdoll_ground_height(model, clip)),
        ),
    };
    let step_secs = 1.0 / settings.step_hz;
    let frame_dt = 1.0 / FRAME_HZ;
    let handoff_frame = (args.handoff_at * FRAME_HZ - 1e-4).ceil().max(0.0) as usize;
    let ragdoll_frames = (args.seconds * FRAME_HZ).round() as usize;
    let get_up_frame = handoff_frame + ragdoll_frames;
    let get_up_frames = if get_up_clips.is_some() { (args.get_up_secs * FRAME_HZ).round() as usize + 30 } else { 0 };
    let last_frame = get_up_frame + get_up_frames;
    let frame_time = |k: usize| (k as f64 / f64::from(FRAME_HZ)) as f32;
    let handoff_secs = frame_time(handoff_frame);
    let m = spec.metres_per_unit;
    let m = settings.metres_per_unit.unwrap_or(m);

    let mut player = Player::new(model, clip);
    let n = model.nodes().len();
    let joints: Vec<usize> = model.skins()[spec.skin].joints.iter().map(|j| j.index()).filter(|&j| j < n).collect();
    let mut locals = LocalMatrices::new(n);
    let mut animated = player.rest.clone();
    let mut scratch = player.rest.clone();
    let mut world = vec![Affine3A::IDENTITY; n];
    let mut previous_world = vec![Affine3A::IDENTITY; n];
    let mut animated_world = vec![Affine3A::IDENTITY; n];
    let mut displacement: Vec<f32> = Vec::with_capacity(last_frame + 1);
    let mut finite = true;
    let mut weight_full_at = None;
    let mut last_moving_secs: Option<f32> = None;
    let mut root_height_history = Vec::with_capacity(ragdoll_frames + 1);
    let mut root_positions: Vec<Vec3> = Vec::with_capacity(ragdoll_frames + 1);
    let rest_speed = REST_SPEED_FRACTION * spec.size;
    let mut min_clearance = f32::MAX;
    let mut mesh_excess = 0.0f32;
    let mut blend_float = 0.0f32;
    let mut tracking_sum = 0.0f64;
    let mut tracking_count = 0usize;
    let mut frame_ms: Vec<f32> = Vec::with_capacity(ragdoll_frames);
    let mut poser = CpuPoser::default();
    let mesh_nodes = drawn_nodes(model);
    let mut final_ragdoll: Option<(f32, f32, u64, f32, f32)> = None;
    let mut separation_m = 0.0f32;
    let mut get_up_metrics: Option<GetUpMetrics> = None;
    let mut get_up_clearance = f32::MAX;
    let mut get_up_step = 0.0f32;
    let mut ground = 0.0f32;
    let mut first_step: Option<(f32, f32, f32)> = None;
    let mut simulated_bodies = spec.bodies.len();

    let snapshot_times: Vec<f32> = if args.screenshot.is_some() && args.screenshot_at.is_empty() {
        let end = frame_time(last_frame - handoff_frame);
        let mut times = vec![0.0, 0.25 * args.seconds.min(2.0), 0.5 * args.seconds.min(2.0), args.seconds];
        if get_up_clips.is_some() {
            times.extend([args.seconds + 0.4 * args.get_up_secs, args.seconds + 0.7 * args.get_up_secs, end]);
        }
        times
    } else {
        args.screenshot_at.clone()
    };
    let snapshot_frames: Vec<usize> = snapshot_times
        .iter()
        .map(|&t| ((handoff_secs + t) * FRAME_HZ).round().clamp(0.0, last_frame as f32) as usize)
        .collect();
    let mut snapshots = Vec::new();

    for k in 0..=last_frame {
        player.sample(frame_time(k), &mut animated);
        let started = Instant::now();
        controller.update(model, if k == 0 { 0.0 } else { frame_dt }, &animated);
        let elapsed_ms = started.elapsed().as_secs_f32() * 1e3;
        if let Some(fault) = controller.take_fault() {
            anyhow::bail!("the ragdoll blew up at frame {k}: {fault}");
        }
        let phase = controller.phase();
        // The cost of simulating frames (a ragdoll at rest sleeps and costs nothing).
        if phase == Phase::Ragdoll && k > handoff_frame + 1 && controller.ragdoll().is_some_and(|r| !r.is_asleep()) {
            frame_ms.push(elapsed_ms);
        }
        let output = controller.output();
        model.hierarchy.local_to_model(output, &mut locals, &mut world);
        model.hierarchy.local_to_model(&animated, &mut locals, &mut animated_world);
        finite &= output.is_finite();
        let step = if k > 0 { largest_distance(&joints, &world, &previous_world) } else { 0.0 };
        displacement.push(step);
        if phase == Phase::Ragdoll && k > handoff_frame {
            let since = frame_time(k - handoff_frame);
            if weight_full_at.is_none() && controller.ragdoll_weight() >= 1.0 {
                weight_full_at = Some(since);
            }
            if let Some(ragdoll) = controller.ragdoll() {
                finite &= ragdoll.is_finite();
                ground = ragdoll.ground_y();
                simulated_bodies = spec.body_ids().filter(|&b| !ragdoll.is_kinematic(b)).count();
                if ragdoll.max_speed() > rest_speed {
                    last_moving_secs = Some(since);
                }
                let root = ragdoll.body_pose(spec.root).1;
                root_height_history.push(root.y - ragdoll.ground_y());
                min_clearance = min_clearance.min(ragdoll.lowest_point_seen() - ragdoll.ground_y());
                if controller.ragdoll_weight() < 1.0 && region.is_none() {
                    let shown = spec.body(spec.root).map_or(root.y, |b| world[b.node.index()].translation.y);
                    blend_float = blend_float.max(shown - root.y);
                }
                if first_step.is_none()
                    && let Some(first) = ragdoll.first_step()
                {
                    first_step = Some(handoff_errors(&mut player, model, &spec, first, handoff_secs, step_secs));
                }
                separation_m = separation_m.max(ragdoll.max_joint_separation_m());
                final_ragdoll = Some((
                    root.y - ragdoll.ground_y(),
                    ragdoll.lowest_point(),
                    ragdoll.steps(),
                    ragdoll.max_limit_violation(),
                    ragdoll.step_secs(),
                ));
                for b in spec.body_ids().filter(|&b| !ragdoll.is_kinematic(b)) {
                    let node = spec.bodies[b.index()].node.index();
                    let d = Vec3::from(world[node].translation).distance(animated_world[node].translation.into());
                    tracking_sum += f64::from(d * d);
                    tracking_count += 1;
                }
            }
            root_positions.push(spec.body(spec.root).map_or(Vec3::ZERO, |b| world[b.node.index()].translation.into()));
            if (k - handoff_frame).is_multiple_of(MESH_CHECK_FRAMES) || k + 1 == get_up_frame {
                mesh_excess =
                    mesh_excess.max(mesh_outside_colliders(&mut poser, model, &spec, output, &world, &mesh_nodes));
            }
        }
        if phase == Phase::GettingUp {
            get_up_clearance = get_up_clearance.min(lowest_capsule_point(&spec, &world) - ground);
            get_up_step = get_up_step.max(step);
        }
        if let Some(i) = snapshot_frames.iter().position(|&f| f == k) {
            let capsules = spec.bodies.iter().map(|b| b.capsule_in(&world[b.node.index()])).collect();
            snapshots.push(Snapshot { secs: snapshot_times[i], phase, pose: controller.output().clone(), capsules });
        }
        std::mem::swap(&mut world, &mut previous_world);
        if k == handoff_frame {
            // The bodies start with the velocity the clip moves on with (a forward difference:
            // at a key of a linear clip the motion before the key is another motion).
            player.sample(handoff_secs + step_secs, &mut scratch);
            controller.trigger_with(model, &animated, &scratch, -step_secs, &handoff);
        }
        if k == get_up_frame
            && let Some((up_clip, down_clip)) = get_up_clips
            && let Some(plan) = controller.get_up_plan(model)
        {
            let clip = if plan.facing == crate::physics::Facing::Up { up_clip } else { down_clip };
            // The clip starts at its time 0 on the next frame, placed where the body lies.
            let start = frame_time(k + 1);
            player.switch(Some(clip));
            player.time_offset_secs = start;
            player.placement = Placement::IDENTITY;
            player.sample(start, &mut scratch);
            player.placement = plan.placement(&spec, model, &scratch);
            player.sample(start, &mut scratch);
            controller.get_up(model, Some(&scratch), args.get_up_secs, Easing::Linear);
            let report = controller.get_up_report().copied();
            get_up_metrics = report.map(|r| GetUpMetrics {
                clip: model[clip].display_name(clip.index()),
                facing: r.facing.name().to_owned(),
                getup_alignment_error_m: r.alignment_error * m,
                heading_error_deg: r.heading_error_rad.to_degrees(),
                key_poses: r.key_poses,
                secs: args.get_up_secs,
                min_clearance_m: 0.0,
                max_joint_step_m: 0.0,
            });
        }
    }
    if let Some(g) = &mut get_up_metrics {
        g.min_clearance_m = get_up_clearance * m;
        g.max_joint_step_m = get_up_step * m;
    }

    let (position_error, velocity_error, stretch) = first_step.unwrap_or((0.0, 0.0, 0.0));
    // The motions alone (motion::Pop): the clip's largest step up to the handoff, and a body's
    // step falling freely from rest by the end of pop's window (what a ragdoll does of itself).
    let played = displacement.get(1..=handoff_frame).map_or(0.0, |d| d.iter().copied().fold(0.0, f32::max));
    let falling = settings.gravity * crate::motion::POP_FRAMES as f32 * frame_dt * frame_dt / m;
    let reference = if falling.is_finite() { played.max(falling) } else { played };
    let Pop { pop, before, after } = Pop::measure(&displacement, handoff_frame, reference, 1e-6 * spec.size);
    let final_height = root_height_history.last().copied().unwrap_or(0.0);
    let second_ago = root_height_history
        .len()
        .checked_sub(1 + FRAME_HZ as usize)
        .and_then(|i| root_height_history.get(i))
        .copied()
        .unwrap_or(final_height);
    let settle_secs = match last_moving_secs {
        None => Some(0.0),
        Some(t) if t + frame_dt * 0.5 < frame_time(ragdoll_frames) => Some(t + frame_dt),
        Some(_) => None,
    };
    let slide = settle_secs
        .and_then(|s| {
            let from = (s * FRAME_HZ).round() as usize;
            let at = *root_positions.get(from.saturating_sub(1))?;
            Some(
                root_positions
                    .iter()
                    .skip(from)
                    .map(|p| Vec3::new(p.x - at.x, 0.0, p.z - at.z).length())
                    .fold(0.0, f32::max),
            )
        })
        .unwrap_or(0.0);
    let tracking = if tracking_count > 0 { (tracking_sum / tracking_count as f64).sqrt() as f32 } else { 0.0 };
    frame_ms.sort_by(f32::total_cmp);
    let median_ms = frame_ms.get(frame_ms.len() / 2).copied().unwrap_or(0.0);
    let p95_ms = frame_ms.get(frame_ms.len() * 95 / 100).copied().unwrap_or(0.0);
    let (final_root, lowest, steps, violation, step_len) = final_ragdoll.unwrap_or((0.0, 0.0, 0, 0.0, step_secs));
    let size_m = spec.size * m;
    let report = RagdollReport {
        clip: clip.map_or_else(|| "none".to_owned(), |c| model[c].display_name(c.index())),
        handoff_at_secs: handoff_secs,
        ramp_rate: args.ramp_rate,
        easing: args.easing.name().to_owned(),
        initial_velocity: settings.initial_velocity,
        powered: handoff.motor_strength,
        limp_rate: args.limp_rate,
        pin_pelvis: args.pin_pelvis,
        region: args.region.clone(),
        simulated_bodies,
        body_count: spec.bodies.len(),
        joint_count: spec.joint_count(),
        hinge_count: spec.bodies.iter().filter(|b| b.parent.is_some() && b.hinge).count(),
        unjointed_bodies: spec.unjointed_bodies(),
        max_joint_separation_m: separation_m,
        max_joint_separation_per_size: if size_m > 0.0 { separation_m / size_m } else { 0.0 },
        bodies: spec.bodies.iter().map(|b| b.name.clone()).collect(),
        anatomy: spec
            .bodies
            .iter()
            .map(|b| BodyReport {
                name: b.name.clone(),
                kind: b.kind.name().to_owned(),
                side: format!("{:?}", b.side).to_lowercase(),
                from: format!("{:?}", b.kind_source).to_lowercase(),
                joint: match (b.parent, b.hinge) {
                    (None, _) => "root",
                    (Some(_), true) => "hinge",
                    (Some(_), false) => "swing-twist",
                }
                .to_owned(),
            })
            .collect(),
        metres_per_unit: m,
        size_m,
        step_secs: step_len,
        ground_height_m: ground * m,
        handoff_position_error_m: position_error * m,
        position_error_per_size: position_error / spec.size,
        handoff_velocity_error_mps: velocity_error * m,
        velocity_error_per_size: velocity_error / spec.size,
        stretch_velocity_per_size: stretch / spec.size,
        pop,
        displacement_before_m: before * m,
        displacement_after_m: after * m,
        weight_full_at_secs: weight_full_at,
        settle_secs,
        finite,
        max_limit_violation_deg: violation.to_degrees(),
        min_clearance_m: if min_clearance == f32::MAX { 0.0 } else { min_clearance * m },
        min_clearance_per_size: if min_clearance == f32::MAX { 0.0 } else { min_clearance / spec.size },
        mesh_outside_colliders_per_size: mesh_excess / spec.size,
        blend_float_m: blend_float * m,
        slide_after_rest_m: slide * m,
        tracking_error_m: tracking * m,
        tracking_error_per_size: tracking / spec.size,
        final_root_height_m: final_root * m,
        root_height_change_last_second_m: (final_height - second_ago) * m,
        lowest_point_m: lowest * m,
        steps,
        physics_ms_per_frame_median: median_ms,
        physics_ms_per_frame_p95: p95_ms,
        get_up: get_up_metrics,
    };
    Ok(RagdollRun { report, snapshots })
}

/// Handoff errors (world units): the bodies after the first physics step against the animation
/// one step on, and the animation's own non-rigid velocity there (how fast a joint moves away
/// from where its parent body's rigid motion carries it — bones stretched by translation or
/// scale keys, a bone between two bodies bending — summed down each chain from the pelvis, as
/// a foot below a stretching shin is off by both; no rigid ragdoll can follow it).
fn handoff_errors(
    player: &mut Player<'_>,
    model: &Model,
    spec: &RagdollSpec,
    first: &crate::physics::FirstStep,
    handoff_secs: f32,
    step_secs: f32,
) -> (f32, f32, f32) {
    let n = model.nodes().len();
    let mut pose = player.rest.clone();
    let mut world_at = vec![Affine3A::IDENTITY; n];
    let mut world_next = vec![Affine3A::IDENTITY; n];
    let mut locals = LocalMatrices::new(n);
    player.sample(handoff_secs, &mut pose);
    model.hierarchy.local_to_model(&pose, &mut locals, &mut world_at);
    player.sample(handoff_secs + step_secs, &mut pose);
    model.hierarchy.local_to_model(&pose, &mut locals, &mut world_next);
    let mut position = 0.0f32;
    let mut velocity = 0.0f32;
    let mut own_stretch = vec![0.0f32; spec.bodies.len()];
    let rigid = |w: &Affine3A| {
        let (_, r, t) = w.to_scale_rotation_translation();
        (r.normalize(), t)
    };
    for (b, body) in spec.bodies.iter().enumerate() {
        let next: Vec3 = world_next[body.node.index()].translation.into();
        let at: Vec3 = world_at[body.node.index()].translation.into();
        let animated = (next - at) / step_secs;
        position = position.max(first.origins[b].distance(next));
        velocity = velocity.max(first.velocities[b].distance(animated));
        if let Some(parent) = body.parent.and_then(|p| spec.body(p)) {
            let ((r0, t0), (r1, t1)) = (rigid(&world_at[parent.node.index()]), rigid(&world_next[parent.node.index()]));
            let turn = (r1 * r0.inverse()).normalize();
            let turn = if turn.w < 0.0 { -turn } else { turn };
            // Where the parent's rigid motion over the step takes the joint: exactly, as a
            // shin turning a tenth of a radian in a step is common, and the first-order form
            // (angular velocity × lever) is then a metre per second off at the ankle.
            let carried = (t1 - t0 + turn * (at - t0) - (at - t0)) / step_secs;
            own_stretch[b] = carried.distance(animated);
        }
    }
    let chain_stretch = |mut b: crate::physics::BodyId| {
        let mut sum = 0.0;
        for _ in 0..spec.bodies.len() {
            sum += own_stretch.get(b.index()).copied().unwrap_or(0.0);
            match spec.body(b).and_then(|body| body.parent) {
                Some(parent) => b = parent,
                None => break,
            }
        }
        sum
    };
    let stretch = spec.body_ids().map(chain_stretch).fold(0.0f32, f32::max);
    (position, velocity, stretch)
}

/// How far the posed mesh's bounds reach beyond the bounds of the colliders (world units; 0
/// when inside).
fn mesh_outside_colliders(
    poser: &mut CpuPoser,
    model: &Model,
    spec: &RagdollSpec,
    pose: &SoaPose,
    world: &[Affine3A],
    mesh_nodes: &[anim::NodeId],
) -> f32 {
    let mesh = poser.pose_bounds(model, pose, mesh_nodes);
    if mesh.is_empty() {
        return 0.0;
    }
    let mut lo = Vec3::splat(f32::MAX);
    let mut hi = Vec3::splat(f32::MIN);
    for body in &spec.bodies {
        let Some(w) = world.get(body.node.index()) else { continue };
        let (a, b, radius) = body.capsule_in(w);
        for p in [a, b] {
            lo = lo.min(p - Vec3::splat(radius));
            hi = hi.max(p + Vec3::splat(radius));
        }
    }
    (lo - mesh.min).max(mesh.max - hi).max_element().max(0.0)
}

/// What a run was, in the filmstrip font (capitals, digits, a little punctuation).
fn caption(report: &RagdollReport) -> String {
    let mut parts = vec![format!("{} FROM {:.2}S", report.clip, report.handoff_at_secs)];
    parts.push(if report.ramp_rate >= 100.0 { "INSTANT".to_owned() } else { format!("RAMP {}/S", report.ramp_rate) });
    if report.powered > 0.0 {
        parts.push(match report.limp_rate {
            Some(rate) => format!("POWERED {} LIMP {rate}/S", report.powered),
            None => format!("POWERED {}", report.powered),
        });
    }
    if report.pin_pelvis {
        parts.push("PELVIS PINNED".to_owned());
    }
    if let Some(region) = &report.region {
        parts.push(format!("REGION {region}"));
    }
    if let Some(get_up) = &report.get_up {
        parts.push(format!("GET UP {} INTO {}", get_up.facing, get_up.clip));
    }
    parts
        .join(", ")
        .to_uppercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || " .,:=-_/()".contains(c) { c } else { ' ' })
        .collect()
}

/// Render the kept frames side by side, colliders drawn (orange while ragdolling), each
/// labelled with its time after the handoff, the run's caption along the bottom.
fn write_filmstrip(model: &Model, run: &RagdollRun, caption: &str, path: &std::path::Path) -> anyhow::Result<()> {
    use crate::render::overlay::push_capsule_wireframe;
    use crate::render::text::draw_label;
    use crate::render::{Aabb, GpuContext, InstanceDesc, OrbitCamera, Renderer, ViewDesc, Viewport};

    anyhow::ensure!(!run.snapshots.is_empty(), "no frames to draw");
    let ctx = GpuContext::new_headless()?;
    let panel = 320u32;
    let count = run.snapshots.len() as u32;
    let (width, height) = (panel * count, 420u32);
    let viewports = Viewport::split_horizontally(width, height, count);
    let mut poser = CpuPoser::default();
    let nodes = drawn_nodes(model);
    let mut bounds = Aabb::EMPTY;
    for s in &run.snapshots {
        bounds.union(&poser.pose_bounds(model, &s.pose, &nodes));
    }
    let mut camera = OrbitCamera { yaw_rad: 0.9, pitch_rad: 0.35, ..OrbitCamera::default() };
    camera.frame(&bounds, viewports[0].aspect(), 1.05);
    let lines: Vec<Vec<crate::render::overlay::OverlayLine>> = run
        .snapshots
        .iter()
        .map(|s| {
            let mut lines = Vec::new();
            let color = if s.phase == Phase::Ragdoll { [1.0, 0.55, 0.1, 1.0] } else { [0.2, 0.9, 0.9, 1.0] };
            for &(a, b, r) in &s.capsules {
                push_capsule_wireframe(a, b, r, color, &mut lines);
            }
            lines
        })
        .collect();
    let mut renderer = Renderer::new(&ctx.device);
    let gpu = renderer.upload(&ctx, model)?;
    let views: Vec<ViewDesc<'_>> = viewports
        .iter()
        .zip(&run.snapshots)
        .zip(&lines)
        .map(|((&viewport, s), lines)| ViewDesc {
            viewport,
            camera,
            instances: vec![InstanceDesc::solid(&s.pose)],
            ground: true,
            skeleton: false,
            selected_joint: None,
            lines,
        })
        .collect();
    let mut image = renderer.render_to_image(&ctx, model, &gpu, &views, width, height)?;
    for (viewport, s) in viewports.iter().zip(&run.snapshots) {
        let phase = match s.phase {
            Phase::Animated => "ANIMATED",
            Phase::Ragdoll => "RAGDOLL",
            Phase::GettingUp => "GETTING UP",
        };
        draw_label(&mut image, viewport.x + 8, 8, &format!("T={:.2}S {phase}", s.secs), 2, [235, 235, 235, 255]);
        for y in 0..height {
            image.put_pixel(viewport.x.min(width - 1), y, image::Rgba([20, 20, 24, 255]));
        }
    }
    draw_label(&mut image, 8, height.saturating_sub(22), caption, 2, [235, 235, 235, 255]);
    image.save_with_format(path, image::ImageFormat::Png).with_context(|| format!("cannot write {}", path.display()))
}

impl RagdollReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let opt = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"));
        let mut s = String::new();
        let _ = writeln!(s, "clip \"{}\", handoff at {:.4} s", self.clip, self.handoff_at_secs);
        let _ = writeln!(s, "ramp {} /s ({}), initial velocity {}", self.ramp_rate, self.easing, self.initial_velocity);
        let _ = writeln!(
            s,
            "powered {} (limp rate {}), pelvis {}, region {}: {} of {} bodies simulated",
            self.powered,
            self.limp_rate.map_or_else(|| "none".to_owned(), |r| format!("{r} /s")),
            if self.pin_pelvis { "pinned" } else { "free" },
            self.region.as_deref().unwrap_or("whole body"),
            self.simulated_bodies,
            self.body_count
        );
        let _ = writeln!(
            s,
            "{} bodies, {} joints ({} hinges), {} unjointed bodies besides the root:",
            self.body_count, self.joint_count, self.hinge_count, self.unjointed_bodies
        );
        for b in &self.anatomy {
            let _ = writeln!(s, "  {} — {} {} (from {}), {}", b.name, b.side, b.kind, b.from, b.joint);
        }
        let _ = writeln!(
            s,
            "size {:.3} m ({} m per unit), ground at {:.4} m, step {:.5} s",
            self.size_m, self.metres_per_unit, self.ground_height_m, self.step_secs
        );
        let _ = writeln!(
            s,
            "handoff position error {:.6} m ({:.5} of size)",
            self.handoff_position_error_m, self.position_error_per_size
        );
        let _ = writeln!(
            s,
            "handoff velocity error {:.6} m/s ({:.5} sizes/s; the clip stretches joints at {:.5} sizes/s)",
            self.handoff_velocity_error_mps, self.velocity_error_per_size, self.stretch_velocity_per_size
        );
        let _ = writeln!(
            s,
            "pop {} (per-frame displacement {:.5} m before, {:.5} m after)",
            opt(self.pop),
            self.displacement_before_m,
            self.displacement_after_m
        );
        let _ = writeln!(s, "full ragdoll weight after {} s", opt(self.weight_full_at_secs));
        let _ = writeln!(s, "settled after {} s", opt(self.settle_secs));
        let _ = writeln!(
            s,
            "max joint-limit violation {:.2}°, min ground clearance {:.4} m ({:.4} of size), mesh outside colliders {:.4} of size",
            self.max_limit_violation_deg,
            self.min_clearance_m,
            self.min_clearance_per_size,
            self.mesh_outside_colliders_per_size
        );
        let _ = writeln!(
            s,
            "max joint separation {:.4} m ({:.4} of size)",
            self.max_joint_separation_m, self.max_joint_separation_per_size
        );
        let _ = writeln!(
            s,
            "blend float {:.4} m, slide after rest {:.4} m, tracking error {:.4} m ({:.4} of size)",
            self.blend_float_m, self.slide_after_rest_m, self.tracking_error_m, self.tracking_error_per_size
        );
        let _ = writeln!(
            s,
            "final root height {:.4} m (changed {:.5} m in the last second), lowest point {:.4} m",
            self.final_root_height_m, self.root_height_change_last_second_m, self.lowest_point_m
        );
        let _ = writeln!(
            s,
            "physics {:.3} ms per frame while awake (median; 95th percentile {:.3} ms)",
            self.physics_ms_per_frame_median, self.physics_ms_per_frame_p95
        );
        if let Some(g) = &self.get_up {
            let _ = writeln!(
                s,
                "got up {} into \"{}\" over {} s through {} key poses: alignment error {:.4} m, heading error {:.2}°, min clearance {:.4} m, largest joint step {:.4} m",
                g.facing,
                g.clip,
                g.secs,
                g.key_poses,
                g.getup_alignment_error_m,
                g.heading_error_deg,
                g.min_clearance_m,
                g.max_joint_step_m
            );
        }
        let _ = writeln!(s, "finite {}, {} steps", self.finite, self.steps);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_region_values() {
        let all = parse_region_values("900").expect("one value");
        assert_eq!(all.apply([1.0; 5]), [900.0; 5]);
        let some = parse_region_values("legs=1500,arms=400").expect("per region");
        let applied = some.apply([1.0; 5]);
        assert_eq!(applied[Region::Legs.index()], 1500.0);
        assert_eq!(applied[Region::Arms.index()], 400.0);
        assert_eq!(applied[Region::Torso.index()], 1.0);
        assert!(parse_region_values("wings=3").is_err_and(|e| e.contains("wings") && e.contains("legs")));
        assert!(parse_region_values("-1").is_err());
    }

    #[test]
    fn parses_push() {
        assert_eq!(parse_push("mixamorig:Head:1,2,3"), Ok(("mixamorig:Head".to_owned(), Vec3::new(1.0, 2.0, 3.0))));
        assert!(parse_push(":1,2,3").is_err());
        assert!(parse_push("Head:1,2").is_err());
    }
}
