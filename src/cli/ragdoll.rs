//! `animtune ragdoll`: play a clip, hand off to a ragdoll, simulate headless and measure the
//! handoff (position and velocity error after the first step, pop on the blended output) and the
//! fall (settling time, final root height).

use std::fmt::Write as _;
use std::path::PathBuf;

use anim::ragdoll::RagdollRamp;
use anim::{ClipCursor, ClipId, Easing, LocalMatrices, Model, SampleSettings, SoaPose};
use anyhow::Context as _;
use glam::{Affine3A, Vec3};
use serde::Serialize;

use super::Format;
use crate::physics::{Phase, RagdollController, RagdollSettings};

/// Frame rate of the output the user sees (where `pop` is measured).
pub const FRAME_HZ: f32 = 60.0;

/// Frames either side of the handoff compared by `pop`.
const POP_FRAMES: usize = 3;

/// Bodies whose capsule ends move slower than this fraction of the character's size per second
/// are at rest.
const REST_SPEED_FRACTION: f32 = 0.05;

/// Arguments of `animtune ragdoll`.
#[derive(Debug, Clone, clap::Args)]
pub struct RagdollArgs {
    /// A .glb or .gltf file.
    pub model: PathBuf,
    /// Clip name or index (default: the first clip; a model without clips stands in its rest pose).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time of the handoff, in seconds (rounded up to a 60 Hz frame).
    #[arg(long)]
    pub handoff_at: f32,
    /// Ragdoll weight ramp, per second (5.0: full ragdoll after 0.2 s).
    #[arg(long, default_value_t = RagdollRamp::DEFAULT_RATE_PER_SEC)]
    pub ramp_rate: f32,
    /// Easing of the ramp (linear, smoothstep, ease-in-quad, ...).
    #[arg(long, default_value = "linear")]
    pub easing: Easing,
    /// Seconds simulated after the handoff.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f32,
    /// Start the bodies at rest instead of with the animation's velocity.
    #[arg(long)]
    pub no_initial_velocity: bool,
    /// Impulse at the handoff on a bone's body, `BONE:X,Y,Z` (world units, kg·m/s).
    #[arg(long, value_parser = parse_push, allow_hyphen_values = true)]
    pub push: Option<(String, Vec3)>,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Import limits.
    #[command(flatten)]
    pub limits: super::LimitArgs,
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

/// The measured handoff and fall.
#[derive(Debug, Clone, Serialize)]
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
    /// Rigid bodies.
    pub body_count: usize,
    /// Spherical joints.
    pub joint_count: usize,
    /// Body names, parents first.
    pub bodies: Vec<String>,
    /// World units per metre (100 for a model authored in centimetres); every length and speed
    /// here is in metres.
    pub units_per_metre: f32,
    /// Character size (largest extent of the rest mesh).
    pub size_m: f32,
    /// Fixed physics step.
    pub step_secs: f32,
    /// Ground plane height (0 unless a body started below it).
    pub ground_height_m: f32,
    /// Largest distance between a body's joint and the animated joint after the first step.
    pub handoff_position_error_m: f32,
    /// Largest difference between a body's joint velocity and the animated joint velocity after
    /// the first step.
    pub handoff_velocity_error_mps: f32,
    /// Largest per-frame joint displacement of the output in the 3 frames after the handoff over
    /// the largest in the 3 frames before (`null` when nothing moved before).
    pub pop: Option<f32>,
    /// Largest per-frame joint displacement in the 3 output frames before the handoff.
    pub displacement_before_m: f32,
    /// Largest per-frame joint displacement in the 3 output frames after the handoff.
    pub displacement_after_m: f32,
    /// Time after the handoff at which the ragdoll weight reached 1 (`null`: never).
    pub weight_full_at_secs: Option<f32>,
    /// Time after the handoff at which the bodies came to rest for good (`null`: still moving).
    pub settle_secs: Option<f32>,
    /// No NaN or infinity in the bodies or the output pose, at any frame.
    pub finite: bool,
    /// Root body's joint height above the ground at the end.
    pub final_root_height_m: f32,
    /// Change of that height over the last second.
    pub root_height_change_last_second_m: f32,
    /// Lowest capsule point at the end (world y).
    pub lowest_point_m: f32,
    /// Physics steps taken.
    pub steps: u64,
}

/// Run `animtune ragdoll`.
///
/// # Errors
/// When the model cannot be loaded, the clip or bone is unknown, or no ragdoll fits the model.
pub fn run(args: &RagdollArgs) -> anyhow::Result<String> {
    let model = super::load_model_with_limits(&args.model, &args.limits.limits())?;
    let clip = match &args.clip {
        Some(name) => Some(super::find_clip(&model, name)?),
        None => (!model.clips.is_empty()).then(|| ClipId::from_index(0)),
    };
    let report = simulate(&model, clip, args)?;
    Ok(match args.format {
        Format::Text => report.to_text(),
        Format::Json => serde_json::to_string(&report)? + "\n",
    })
}

/// Plays `clip` (looping), samples a pose at a time.
struct Player<'a> {
    model: &'a Model,
    clip: Option<ClipId>,
    cursor: Option<ClipCursor>,
    settings: SampleSettings,
    rest: SoaPose,
}

impl Player<'_> {
    fn sample(&mut self, time_secs: f32, pose: &mut SoaPose) {
        pose.copy_from(&self.rest);
        if let (Some(c), Some(cursor)) = (self.clip, &mut self.cursor) {
            let clip = &self.model.clips[c.index()];
            clip.sample(clip.wrap_time(time_secs), cursor, &self.settings, pose);
        }
    }
}

/// Largest distance between matching joints of two sets of world transforms.
fn largest_distance(joints: &[usize], a: &[Affine3A], b: &[Affine3A]) -> f32 {
    joints.iter().map(|&j| Vec3::from(a[j].translation).distance(b[j].translation.into())).fold(0.0, f32::max)
}

/// Simulate the handoff of `args` on `model` and measure it.
///
/// # Errors
/// When the pushed bone is unknown, no ragdoll fits the model or the ragdoll blows up (a
/// [`crate::physics::RagdollFault`], e.g. from an absurd push).
pub fn simulate(model: &Model, clip: Option<ClipId>, args: &RagdollArgs) -> anyhow::Result<RagdollReport> {
    anyhow::ensure!(args.handoff_at.is_finite() && args.handoff_at >= 0.0, "--handoff-at must be ≥ 0");
    anyhow::ensure!(args.seconds.is_finite() && args.seconds >= 0.0, "--seconds must be ≥ 0");
    let settings = RagdollSettings { initial_velocity: !args.no_initial_velocity, ..RagdollSettings::default() };
    let mut controller = RagdollController::new(model, settings, RagdollRamp::new(args.ramp_rate, args.easing))
        .with_context(|| format!("cannot build a ragdoll for {}", args.model.display()))?;
    let spec = controller.spec().clone();
    let push = match &args.push {
        Some((bone, impulse)) => {
            let body = spec
                .body_of_node_named(model, bone)
                .with_context(|| format!("bone \"{bone}\" not found in the ragdoll"))?;
            Some((body, *impulse))
        }
        None => None,
    };
    let step_secs = 1.0 / settings.step_hz;
    let frame_dt = 1.0 / FRAME_HZ;
    let handoff_frame = (args.handoff_at * FRAME_HZ - 1e-4).ceil().max(0.0) as usize;
    let last_frame = handoff_frame + (args.seconds * FRAME_HZ).round() as usize;
    let frame_time = |k: usize| (k as f64 / f64::from(FRAME_HZ)) as f32;
    let handoff_secs = frame_time(handoff_frame);

    let mut player = Player {
        model,
        clip,
        cursor: clip.map(|c| ClipCursor::new(&model.clips[c.index()])),
        settings: SampleSettings::default(),
        rest: model.rest_pose(),
    };
    let n = model.nodes.len();
    let joints: Vec<usize> = model.skins[spec.skin].joints.iter().map(|j| j.index()).filter(|&j| j < n).collect();
    let mut locals = LocalMatrices::new(n);
    let mut animated = player.rest.clone();
    let mut scratch = player.rest.clone();
    let mut world = vec![Affine3A::IDENTITY; n];
    let mut previous_world = vec![Affine3A::IDENTITY; n];
    let mut displacement: Vec<f32> = Vec::with_capacity(last_frame + 1);
    let mut finite = true;
    let mut weight_full_at = None;
    let mut last_moving_secs: Option<f32> = None;
    let mut root_height_history = Vec::with_capacity(last_frame + 1 - handoff_frame);
    let rest_speed = REST_SPEED_FRACTION * spec.size;

    for k in 0..=last_frame {
        player.sample(frame_time(k), &mut animated);
        controller.update(model, if k == 0 { 0.0 } else { frame_dt }, &animated);
        if let Some(fault) = controller.take_fault() {
            anyhow::bail!("the ragdoll blew up at frame {k}: {fault}");
        }
        let output = controller.output();
        model.hierarchy.local_to_model(output, &mut locals, &mut world);
        finite &= output.nodes().all(|(_, local)| local.translation.is_finite() && local.rotation.is_finite());
        displacement.push(if k > 0 { largest_distance(&joints, &world, &previous_world) } else { 0.0 });
        std::mem::swap(&mut world, &mut previous_world);
        if k == handoff_frame {
            player.sample(handoff_secs - step_secs, &mut scratch);
            controller.trigger(model, &animated, &scratch, step_secs, push);
        }
        if k > handoff_frame && controller.phase() == Phase::Ragdoll {
            let since = frame_time(k - handoff_frame);
            if weight_full_at.is_none() && controller.ragdoll_weight() >= 1.0 {
                weight_full_at = Some(since);
            }
            if let Some(ragdoll) = controller.ragdoll() {
                finite &= ragdoll.is_finite();
                if ragdoll.max_speed(&spec) > rest_speed {
                    last_moving_secs = Some(since);
                }
                root_height_history.push(ragdoll.body_pose(spec.root).1.y - ragdoll.ground_y());
            }
        }
    }

    // Handoff errors: the state after the first physics step against the animation one step on.
    let ragdoll = controller.ragdoll().context("the ragdoll was not triggered")?;
    let (position_error, velocity_error) = match ragdoll.first_step() {
        Some(first) => {
            let mut world_at = vec![Affine3A::IDENTITY; n];
            let mut world_next = vec![Affine3A::IDENTITY; n];
            player.sample(handoff_secs, &mut scratch);
            model.hierarchy.local_to_model(&scratch, &mut locals, &mut world_at);
            player.sample(handoff_secs + step_secs, &mut scratch);
            model.hierarchy.local_to_model(&scratch, &mut locals, &mut world_next);
            let mut position = 0.0f32;
            let mut velocity = 0.0f32;
            for (b, body) in spec.bodies.iter().enumerate() {
                let next: Vec3 = world_next[body.node].translation.into();
                let at: Vec3 = world_at[body.node].translation.into();
                position = position.max(first.origins[b].distance(next));
                velocity = velocity.max(first.velocities[b].distance((next - at) / step_secs));
            }
            (position, velocity)
        }
        None => (0.0, 0.0),
    };
    let window = |range: std::ops::RangeInclusive<usize>| {
        range.filter_map(|k| displacement.get(k).copied()).fold(0.0f32, f32::max)
    };
    let before = window(handoff_frame.saturating_sub(POP_FRAMES - 1)..=handoff_frame);
    let after = window(handoff_frame + 1..=handoff_frame + POP_FRAMES);
    let pop = (before > 1e-6 * spec.size).then(|| after / before);
    let final_height = root_height_history.last().copied().unwrap_or(0.0);
    let second_ago = root_height_history
        .len()
        .checked_sub(1 + FRAME_HZ as usize)
        .and_then(|i| root_height_history.get(i))
        .copied()
        .unwrap_or(final_height);
    let settle_secs = match last_moving_secs {
        None => Some(0.0),
        Some(t) if t + frame_dt * 0.5 < frame_time(last_frame - handoff_frame) => Some(t + frame_dt),
        Some(_) => None,
    };
    let m = 1.0 / spec.units_per_metre;
    Ok(RagdollReport {
        clip: clip.map_or_else(|| "none".to_owned(), |c| model.clips[c.index()].display_name(c.index())),
        handoff_at_secs: handoff_secs,
        ramp_rate: args.ramp_rate,
        easing: args.easing.name().to_owned(),
        initial_velocity: settings.initial_velocity,
        body_count: spec.bodies.len(),
        joint_count: spec.joint_count(),
        bodies: spec.bodies.iter().map(|b| b.name.clone()).collect(),
        units_per_metre: spec.units_per_metre,
        size_m: spec.size * m,
        step_secs,
        ground_height_m: ragdoll.ground_y() * m,
        handoff_position_error_m: position_error * m,
        handoff_velocity_error_mps: velocity_error * m,
        pop,
        displacement_before_m: before * m,
        displacement_after_m: after * m,
        weight_full_at_secs: weight_full_at,
        settle_secs,
        finite,
        final_root_height_m: final_height * m,
        root_height_change_last_second_m: (final_height - second_ago) * m,
        lowest_point_m: ragdoll.lowest_point(&spec) * m,
        steps: ragdoll.steps(),
    })
}

impl RagdollReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let opt = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"));
        let mut s = String::new();
        let _ = writeln!(s, "clip \"{}\", handoff at {:.4} s", self.clip, self.handoff_at_secs);
        let _ = writeln!(s, "ramp {} /s ({}), initial velocity {}", self.ramp_rate, self.easing, self.initial_velocity);
        let _ = writeln!(s, "{} bodies, {} joints: {}", self.body_count, self.joint_count, self.bodies.join(", "));
        let _ = writeln!(
            s,
            "size {:.3} m, ground at {:.4} m, step {:.5} s",
            self.size_m, self.ground_height_m, self.step_secs
        );
        let _ = writeln!(s, "handoff position error {:.6} m", self.handoff_position_error_m);
        let _ = writeln!(s, "handoff velocity error {:.6} m/s", self.handoff_velocity_error_mps);
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
            "final root height {:.4} m (changed {:.5} m in the last second), lowest point {:.4} m",
            self.final_root_height_m, self.root_height_change_last_second_m, self.lowest_point_m
        );
        let _ = writeln!(s, "finite {}, {} steps", self.finite, self.steps);
        s
    }
}
