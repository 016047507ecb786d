//! `animtune soak`: run the per-frame jobs headless for a wall-clock time on a deterministic
//! random schedule (cross-fades, interpolation overrides and teaching modes, ragdoll handoffs
//! and get-ups), check that every output number is finite and that resident memory stays flat.
//!
//! Frames are simulated at 60 Hz as fast as the machine allows; the schedule depends only on
//! the seed and the frame number, so the same seed replays the same events (a longer run just
//! goes further along it).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anim::ragdoll::RagdollRamp;
use anim::rng::Rng;
use anim::{
    ClipId, CrossFader, Easing, InterpolationOverride, LocalMatrices, Model, NodeId, PreparedSkin, RotationSpace,
    SampleSettings, ScaleSpace, SoaPose, Transform, morph_and_skin,
};
use glam::{Affine3A, Mat4, Vec3};
use serde::Serialize;

use super::{Format, LimitArgs};
use crate::physics::{BodyId, RagdollController, RagdollSettings};

/// Simulated frame rate.
pub const FRAME_HZ: f64 = 60.0;

/// Vertices skinned on the CPU every frame at most; larger models are skinned every
/// [`SPARSE_SKINNING_FRAMES`] frames.
const CHEAP_SKINNING_VERTICES: usize = 10_000;

/// Frame interval of CPU skinning for models above [`CHEAP_SKINNING_VERTICES`].
const SPARSE_SKINNING_FRAMES: u64 = 8;

/// Wall-clock interval between resident-memory samples.
const RSS_SAMPLE_INTERVAL: Duration = Duration::from_millis(250);

/// Arguments of `animtune soak`.
#[derive(Debug, Clone, clap::Args)]
pub struct SoakArgs {
    /// A .glb or .gltf file (default: the built-in character).
    pub model: Option<PathBuf>,
    /// Wall-clock seconds to run.
    #[arg(long)]
    pub seconds: f64,
    /// Seed of the event schedule.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Largest resident-memory growth from the end of the warm-up to the end of the run, in MiB,
    /// before the run fails.
    #[arg(long, default_value_t = 8.0)]
    pub max_growth_mib: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// What a soak run did and found.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SoakReport {
    /// The model (path or the built-in character's label).
    pub model: String,
    /// Seed of the schedule.
    pub seed: u64,
    /// Wall-clock seconds asked for.
    pub seconds_requested: f64,
    /// Wall-clock seconds run.
    pub seconds_run: f64,
    /// Frames simulated (each 1/60 s of animation).
    pub frames: u64,
    /// Frames per wall-clock second.
    pub frames_per_sec: f64,
    /// Clips in the model.
    pub clips: usize,
    /// Distinct clips played (faded to or started).
    pub clips_played: usize,
    /// Cross-fades triggered.
    pub fades: u64,
    /// Sample-settings switches (interpolation override, per-track overrides, rotation space,
    /// scale space, easing).
    pub overrides_switched: u64,
    /// Why the ragdoll part was skipped (no ragdoll fits the model), if it was.
    pub ragdoll_skipped: Option<String>,
    /// Animation → ragdoll handoffs.
    pub ragdoll_handoffs: u64,
    /// Ragdoll → animation get-ups.
    pub get_ups: u64,
    /// Ragdoll explosions the controller recovered from (`RagdollFault`).
    pub ragdoll_faults: u64,
    /// The first of them.
    pub first_ragdoll_fault: Option<String>,
    /// Frames whose vertices were morphed and skinned on the CPU.
    pub cpu_skinned_frames: u64,
    /// Vertices morphed and skinned on the CPU, over the run.
    pub cpu_skinned_vertices: u64,
    /// Output values checked (a translation, rotation, scale, weight, matrix or vertex each).
    pub values_checked: u64,
    /// Of those, NaN or infinite.
    pub non_finite_values: u64,
    /// Where the first non-finite value appeared.
    pub first_non_finite: Option<String>,
    /// Wall-clock seconds of warm-up before the memory baseline.
    pub warm_up_secs: f64,
    /// Resident memory at the end of the warm-up, KiB (`null` where it cannot be read).
    pub rss_start_kib: Option<u64>,
    /// Resident memory at the end, KiB.
    pub rss_end_kib: Option<u64>,
    /// Largest resident memory sampled over the run, KiB.
    pub rss_peak_kib: Option<u64>,
    /// `rss_end_kib - rss_start_kib`.
    pub rss_growth_kib: Option<i64>,
    /// Growth allowed, KiB.
    pub max_growth_kib: i64,
    /// `pass` or `fail`.
    pub verdict: String,
    /// Why it failed (empty on a pass).
    pub failures: Vec<String>,
}

/// The failures of a run: any non-finite value, or resident-memory growth above
/// `max_growth_kib` (unknown growth passes).
pub fn judge(non_finite_values: u64, rss_growth_kib: Option<i64>, max_growth_kib: i64) -> Vec<String> {
    let mut failures = Vec::new();
    if non_finite_values > 0 {
        failures.push(format!("{non_finite_values} non-finite output values"));
    }
    if let Some(growth) = rss_growth_kib.filter(|&g| g > max_growth_kib) {
        failures.push(format!("resident memory grew by {growth} KiB after the warm-up (limit {max_growth_kib} KiB)"));
    }
    failures
}

/// Run `animtune soak`: the report as text or JSON, and whether the run passed.
///
/// # Errors
/// When the model cannot be loaded or the arguments are out of range.
pub fn run(args: &SoakArgs) -> anyhow::Result<(String, bool)> {
    anyhow::ensure!(args.seconds.is_finite() && args.seconds >= 0.0, "--seconds must be ≥ 0");
    anyhow::ensure!(args.max_growth_mib.is_finite() && args.max_growth_mib >= 0.0, "--max-growth-mib must be ≥ 0");
    let (model, label) = super::load_model_or_default_with_limits(args.model.as_deref(), &args.limits.limits())?;
    let report = soak(&model, &label, args);
    let passed = report.failures.is_empty();
    let text = match args.format {
        Format::Text => report.to_text(),
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
    };
    Ok((text, passed))
}

/// Counts non-finite values and remembers where the first one was.
#[derive(Default)]
struct FiniteCheck {
    checked: u64,
    non_finite: u64,
    first: Option<String>,
}

impl FiniteCheck {
    /// Check `values`; `describe(i)` names value `i` when it is the first bad one.
    fn check<T>(&mut self, values: &[T], finite: impl Fn(&T) -> bool, describe: impl Fn(usize) -> String) {
        self.check_each(values.iter(), |v| finite(v), describe);
    }

    /// [`Self::check`] over an iterator.
    fn check_each<T>(
        &mut self,
        values: impl Iterator<Item = T>,
        finite: impl Fn(&T) -> bool,
        describe: impl Fn(usize) -> String,
    ) {
        for (i, value) in values.enumerate() {
            self.checked += 1;
            if !finite(&value) {
                self.non_finite += 1;
                if self.first.is_none() {
                    self.first = Some(describe(i));
                }
            }
        }
    }

    /// Check every translation, rotation, scale and morph weight of `pose` (four values per
    /// node); `describe(component, node)` names the first bad one.
    fn check_pose(&mut self, pose: &SoaPose, describe: impl Fn(&str, NodeId) -> String) {
        type Finite = fn(&Transform) -> bool;
        let components: [(&str, Finite); 3] = [
            ("translation", |t| t.translation.is_finite()),
            ("rotation", |t| t.rotation.is_finite()),
            ("scale", |t| t.scale.is_finite()),
        ];
        for (what, finite) in components {
            self.check_each(pose.nodes().map(|(_, t)| t), finite, |n| describe(what, NodeId::from_index(n)));
        }
    }
}

/// What the ragdoll part of the schedule is doing.
enum RagdollPlan {
    /// No ragdoll fits the model.
    Unavailable,
    /// Animated until `frame`, then trigger.
    TriggerAt(u64),
    /// Ragdolling until `frame`, then get up.
    GetUpAt(u64),
}

/// Per-node label for messages: `node 5 "Head"`.
fn node_label(model: &Model, node: NodeId) -> String {
    match model.node(node).and_then(|n| n.name.as_deref()) {
        Some(name) => format!("node {node} \"{name}\""),
        None => format!("node {node}"),
    }
}

/// Run the soak on a loaded model.
pub fn soak(model: &Model, label: &str, args: &SoakArgs) -> SoakReport {
    let mut rng = Rng::new(args.seed);
    let dt = (1.0 / FRAME_HZ) as f32;
    let clip_count = model.clips().len();
    let mut fader = CrossFader::new(model, ClipId::from_index(0));
    let mut settings = SampleSettings::default();
    let mut played = vec![false; clip_count];
    if let Some(first) = played.first_mut() {
        *first = true;
    }
    let mut next_clip = 1 % clip_count.max(1);

    let ragdoll = RagdollController::new(model, RagdollSettings::default(), RagdollRamp::default());
    let (mut controller, ragdoll_skipped) = match ragdoll {
        Ok(c) => (Some(c), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let mut plan = match &controller {
        Some(_) => RagdollPlan::TriggerAt(20 + rng.below(40) as u64),
        None => RagdollPlan::Unavailable,
    };
    // Each body's mass (capsule volume in simulated metres × density), so that pushes (SI
    // newton-seconds) change its velocity by a plausible amount whatever the model's units.
    let masses: Vec<f32> = controller.as_ref().map_or_else(Vec::new, |c| {
        let cubic_metres = c.spec().metres_per_unit.powi(3);
        c.spec().bodies.iter().map(|b| c.settings.density * b.volume() * cubic_metres).collect()
    });

    // Caller-owned per-frame buffers.
    let mut animated = model.rest_pose();
    let mut previous = animated.clone();
    let mut model_from_node = vec![Affine3A::IDENTITY; model.nodes().len()];
    let mut locals = LocalMatrices::new(model.nodes().len());
    let skins: Vec<PreparedSkin> = model.skins().iter().map(PreparedSkin::new).collect();
    let mut palettes: Vec<Vec<Mat4>> = skins.iter().map(|s| vec![Mat4::IDENTITY; s.len()]).collect();
    let mesh_nodes: Vec<usize> = (0..model.nodes().len()).filter(|&n| model.nodes()[n].mesh.is_some()).collect();
    let largest_primitive = model.meshes().iter().flat_map(|m| &m.primitives).map(|p| p.positions.len()).max();
    let mut positions = vec![Vec3::ZERO; largest_primitive.unwrap_or(0)];
    let mut normals = positions.clone();
    let total_vertices: usize = mesh_nodes
        .iter()
        .filter_map(|&n| model.nodes()[n].mesh.and_then(|m| model.meshes().get(m)))
        .flat_map(|m| &m.primitives)
        .map(|p| p.positions.len())
        .sum();
    let skinning_every = if total_vertices <= CHEAP_SKINNING_VERTICES { 1 } else { SPARSE_SKINNING_FRAMES };

    let mut next_fade = 10 + rng.below(30) as u64;
    let mut next_switch = 15 + rng.below(60) as u64;
    let mut fades = 0u64;
    let mut switches = 0u64;
    let mut handoffs = 0u64;
    let mut get_ups = 0u64;
    let mut faults = 0u64;
    let mut first_fault = None;
    let mut skinned_frames = 0u64;
    let mut skinned_vertices = 0u64;
    let mut check = FiniteCheck::default();

    let total = Duration::from_secs_f64(args.seconds);
    let warm_up = Duration::from_secs_f64((0.1 * args.seconds).max((0.5 * args.seconds).min(2.0)));
    let start = Instant::now();
    let mut next_sample = start;
    let mut rss_start = None;
    let mut rss_peak: Option<u64> = None;
    let mut frame = 0u64;
    loop {
        let now = Instant::now();
        let elapsed = now - start;
        if now >= next_sample {
            let rss = crate::process::resident_kib();
            rss_peak = rss_peak.max(rss);
            if rss_start.is_none() && elapsed >= warm_up {
                rss_start = Some(rss);
            }
            next_sample = now + RSS_SAMPLE_INTERVAL;
        }
        if elapsed >= total {
            break;
        }
        frame += 1;

        // Cross-fades: the next clip in turn (so every clip plays) or a random one, sometimes
        // from a random clip and time (a random pair), sometimes interrupting a fade.
        if frame >= next_fade && clip_count > 0 {
            let to = if rng.chance(2) {
                let c = next_clip;
                next_clip = (next_clip + 1) % clip_count;
                c
            } else {
                rng.below(clip_count)
            };
            if rng.chance(4) {
                let from = rng.below(clip_count);
                fader.play(ClipId::from_index(from), rng.range(0.0, model.clips()[from].end_secs().max(0.0)));
                played[from] = true;
            }
            let any = rng.range(0.0, 2.0);
            let duration = rng.pick(&[0.0, 0.1, 0.25, 0.5, 1.0, any]);
            fader.trigger(ClipId::from_index(to), duration, rng.pick(&Easing::ALL));
            played[to] = true;
            fades += 1;
            next_fade = frame + if rng.chance(5) { 1 + rng.below(5) } else { 10 + rng.below(90) } as u64;
        }
        // Sample settings: overrides, per-track overrides and the teaching modes.
        if frame >= next_switch {
            match rng.below(6) {
                0 => settings = SampleSettings::default(),
                1 => settings.mode = rng.pick(&InterpolationOverride::ALL),
                2 => settings.rotation_space = rng.pick(&RotationSpace::ALL),
                3 => settings.scale_space = rng.pick(&ScaleSpace::ALL),
                4 => settings.easing = rng.pick(&Easing::ALL),
                _ => {
                    let tracks = model.clips().iter().map(|c| c.tracks().len()).max().unwrap_or(0);
                    settings.track_modes.clear();
                    settings
                        .track_modes
                        .extend((0..tracks).map(|_| (!rng.chance(2)).then(|| rng.pick(&InterpolationOverride::ALL))));
                }
            }
            switches += 1;
            next_switch = frame + 20 + rng.below(100) as u64;
        }

        fader.advance(dt);
        animated.copy_from(fader.evaluate(model, &settings));
        let clip = fader.current_clip().index();
        let clip_name = || model.clips().get(clip).map_or_else(|| "none".to_owned(), |c| c.display_name(clip));
        check.check_pose(&animated, |what, n| {
            format!("frame {frame}, clip {clip} \"{}\": animated {what} of {}", clip_name(), node_label(model, n))
        });
        check.check(
            animated.weights(),
            |w| w.is_finite(),
            |i| format!("frame {frame}, clip {clip} \"{}\": animated morph weight {i}", clip_name()),
        );

        // The ragdoll: trigger (sometimes with a push), fall, get up, trigger again.
        let output = if let Some(controller) = &mut controller {
            match plan {
                RagdollPlan::TriggerAt(at) if frame >= at => {
                    controller.ramp = RagdollRamp::new(rng.pick(&[2.0, 5.0, 10.0, 1000.0]), rng.pick(&Easing::ALL));
                    // Half the handoffs push one body by up to 10 m/s.
                    let push = (!masses.is_empty() && rng.chance(2)).then(|| {
                        let body = rng.below(masses.len());
                        let direction = Vec3::new(rng.range(-1.0, 1.0), rng.range(0.0, 1.0), rng.range(-1.0, 1.0));
                        let speed = rng.range(0.0, 10.0);
                        (BodyId::from_index(body), direction.normalize_or_zero() * speed * masses[body])
                    });
                    controller.trigger(model, &animated, &previous, dt, push);
                    handoffs += 1;
                    plan = RagdollPlan::GetUpAt(frame + 30 + rng.below(150) as u64);
                }
                RagdollPlan::GetUpAt(at) if frame >= at => {
                    if rng.chance(6) {
                        // Re-trigger mid-fall.
                        plan = RagdollPlan::TriggerAt(frame);
                    } else {
                        // Half the get-ups go through the key poses toward the pose playing.
                        let target = rng.chance(2).then_some(&animated);
                        if controller.get_up(model, target, rng.range(0.0, 1.0), rng.pick(&Easing::ALL)) {
                            get_ups += 1;
                        }
                        plan = RagdollPlan::TriggerAt(frame + 1 + rng.below(120) as u64);
                    }
                }
                _ => {}
            }
            controller.update(model, dt, &animated);
            if let Some(fault) = controller.take_fault() {
                faults += 1;
                first_fault.get_or_insert_with(|| format!("frame {frame}: {fault}"));
                // The controller dropped the ragdoll: schedule the next handoff.
                plan = RagdollPlan::TriggerAt(frame + 1 + rng.below(60) as u64);
            }
            if let Some(physics) = controller.ragdoll() {
                check.checked += 1;
                if !physics.is_finite() {
                    check.non_finite += 1;
                    check.first.get_or_insert_with(|| format!("frame {frame}: a ragdoll body is not finite"));
                }
            }
            let output = controller.output();
            let phase = controller.phase();
            check.check_pose(output, |what, n| {
                format!("frame {frame} ({phase:?}): output {what} of {}", node_label(model, n))
            });
            output
        } else {
            &animated
        };

        // Local → model, skinning palettes, CPU morphing and skinning.
        model.hierarchy.local_to_model(output, &mut locals, &mut model_from_node);
        check.check(&model_from_node, Affine3A::is_finite, |n| {
            format!("frame {frame}, clip {clip}: model-space transform of {}", node_label(model, NodeId::from_index(n)))
        });
        for (s, (skin, palette)) in skins.iter().zip(&mut palettes).enumerate() {
            skin.skinning_matrices(&model_from_node, palette);
            check.check(palette, Mat4::is_finite, |j| {
                let node = skin.joints().get(j).map_or_else(|| "no node".to_owned(), |&n| node_label(model, n));
                format!("frame {frame}, clip {clip}: skinning matrix of skin {s} joint {j} ({node})")
            });
        }
        if frame.is_multiple_of(skinning_every) && total_vertices > 0 {
            skinned_frames += 1;
            for &n in &mesh_nodes {
                let node = &model.nodes()[n];
                let Some(mesh) = node.mesh.and_then(|m| model.meshes().get(m)) else { continue };
                let palette = node.skin.and_then(|s| palettes.get(s)).map(Vec::as_slice);
                let weights = model.node_weights(NodeId::from_index(n), output);
                for (p, primitive) in mesh.primitives.iter().enumerate() {
                    let count = primitive.positions.len();
                    let with_normals = primitive.normals.len() == count;
                    let (positions, normals) =
                        (&mut positions[..count], &mut normals[..if with_normals { count } else { 0 }]);
                    if morph_and_skin(primitive, weights, palette, positions, normals).is_err() {
                        continue;
                    }
                    skinned_vertices += count as u64;
                    let describe = |v: usize| {
                        format!(
                            "frame {frame}, clip {clip}: CPU-skinned vertex {v} of {}, primitive {p}",
                            node_label(model, NodeId::from_index(n))
                        )
                    };
                    check.check(positions, |v| v.is_finite(), describe);
                    check.check(normals, |v| v.is_finite(), describe);
                }
            }
        }
        previous.copy_from(&animated);
    }

    let seconds_run = start.elapsed().as_secs_f64();
    let rss_end = crate::process::resident_kib();
    let rss_peak = rss_peak.max(rss_end);
    let rss_start = rss_start.flatten().or(rss_end);
    let rss_growth = rss_start.zip(rss_end).map(|(a, b)| b as i64 - a as i64);
    let max_growth_kib = (args.max_growth_mib * 1024.0).round() as i64;
    let failures = judge(check.non_finite, rss_growth, max_growth_kib);
    SoakReport {
        model: label.to_owned(),
        seed: args.seed,
        seconds_requested: args.seconds,
        seconds_run,
        frames: frame,
        frames_per_sec: if seconds_run > 0.0 { frame as f64 / seconds_run } else { 0.0 },
        clips: clip_count,
        clips_played: played.iter().filter(|&&p| p).count(),
        fades,
        overrides_switched: switches,
        ragdoll_skipped,
        ragdoll_handoffs: handoffs,
        get_ups,
        ragdoll_faults: faults,
        first_ragdoll_fault: first_fault,
        cpu_skinned_frames: skinned_frames,
        cpu_skinned_vertices: skinned_vertices,
        values_checked: check.checked,
        non_finite_values: check.non_finite,
        first_non_finite: check.first,
        warm_up_secs: warm_up.as_secs_f64(),
        rss_start_kib: rss_start,
        rss_end_kib: rss_end,
        rss_peak_kib: rss_peak,
        rss_growth_kib: rss_growth,
        max_growth_kib,
        verdict: if failures.is_empty() { "pass" } else { "fail" }.to_owned(),
        failures,
    }
}

impl SoakReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let kib = |v: Option<u64>| v.map_or_else(|| "unknown".to_owned(), |v| v.to_string());
        let mut s = String::new();
        let _ = writeln!(s, "soak: {}, seed {}", self.model, self.seed);
        let _ = writeln!(
            s,
            "{} frames in {:.1} s ({:.0} frames/s; {:.1} s of animation at 60 Hz)",
            self.frames,
            self.seconds_run,
            self.frames_per_sec,
            self.frames as f64 / FRAME_HZ
        );
        let _ = writeln!(
            s,
            "clips played {} of {}, cross-fades {}, settings switched {}",
            self.clips_played, self.clips, self.fades, self.overrides_switched
        );
        match &self.ragdoll_skipped {
            Some(why) => {
                let _ = writeln!(s, "ragdoll skipped: {why}");
            }
            None => {
                let _ = writeln!(
                    s,
                    "ragdoll handoffs {}, get-ups {}, faults recovered {}",
                    self.ragdoll_handoffs, self.get_ups, self.ragdoll_faults
                );
            }
        }
        if let Some(fault) = &self.first_ragdoll_fault {
            let _ = writeln!(s, "first ragdoll fault: {fault}");
        }
        let _ = writeln!(s, "CPU skinning: {} frames, {} vertices", self.cpu_skinned_frames, self.cpu_skinned_vertices);
        let _ = writeln!(s, "values checked {}, non-finite {}", self.values_checked, self.non_finite_values);
        if let Some(first) = &self.first_non_finite {
            let _ = writeln!(s, "first non-finite: {first}");
        }
        let growth = self.rss_growth_kib.map_or_else(|| "unknown".to_owned(), |g| format!("{g:+}"));
        let _ = writeln!(
            s,
            "resident memory (KiB): {} after the {:.1} s warm-up, {} at the end, peak {}, growth {} (limit {})",
            kib(self.rss_start_kib),
            self.warm_up_secs,
            kib(self.rss_end_kib),
            kib(self.rss_peak_kib),
            growth,
            self.max_growth_kib
        );
        let _ = writeln!(s, "verdict: {}", self.verdict);
        for failure in &self.failures {
            let _ = writeln!(s, "  {failure}");
        }
        s
    }
}
