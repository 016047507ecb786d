//! A clip retargeted: sampled on the source at a fixed rate, transferred onto the target by the
//! core's `Retargeter` (hips scaled by the leg-length ratio), its feet kept planted by a two-bone
//! IK pass on each leg while the source's foot is in stance (from its foot-contact markers until
//! the foot lifts, blended out over the next frames), baked into LINEAR keys; then written into
//! a copy of the target (`anim::export::add_clips`), read back and measured — the report of
//! `animtune retarget` and of the viewer's Compare ▸ Retarget.

use std::path::Path;

use anim::ik::two_bone_ik;
use anim::retarget::{Retargeter, model_rotation};
use anim::track::{Interpolation, Track, TrackValues};
use anim::{ClipCursor, ClipId, LocalMatrices, Model, NodeId, RawClip, SampleSettings, Timeline, Transform};
use anyhow::Context as _;
use glam::{Affine3A, Quat, Vec3};
use serde::Serialize;

use super::{Chain, Mapping, Skeleton};
use crate::physics::anatomy::{BoneKind, Side};
// The transition report's stance rule, used as it is: a foot is in stance until it rises
// `LIFT_FRACTION` of its height range above where it touched down, settled while it moves up or
// down slower than `SETTLED_FRACTION` of its fastest; one rising less than `MIN_LIFT_M` never
// leaves the ground.
use crate::transitions::{
    MIN_LIFT_M, PLANTED_FRACTION as LIFT_FRACTION, PLANTED_VERTICAL_FRACTION as SETTLED_FRACTION,
};

/// Keys per second of a retargeted clip.
pub const KEYS_PER_SEC: f32 = 60.0;

/// Frames over which the IK's hold on a foot is released after it lifts.
const RELEASE_FRAMES: usize = 6;

/// A clip is cyclic when its last frame's hips and feet are within this fraction of the leg
/// length of its first's.
const CYCLIC_FRACTION: f32 = 0.05;

/// Retarget options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Keep the source's planted feet planted on the target (two-bone IK on each leg).
    pub foot_ik: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self { foot_ik: true }
    }
}

/// A clip retargeted in memory.
#[derive(Debug, Clone)]
pub struct Retargeted {
    /// The keys (one timeline at [`KEYS_PER_SEC`], LINEAR; a rotation track per target node
    /// that moves, a translation track for the hips and carried joints).
    pub clip: RawClip,
    /// The hips' translation scale (target leg length / source leg length, model units).
    pub hips_height_ratio: f32,
    /// Mean distance of each end effector from where the scaled source puts it, both taken
    /// relative to the hips, metres (target's).
    pub end_effector_error_m: EffectorError,
    /// Mean error per chain (each chain's last mapped joint, as `end_effector_error_m`), metres.
    pub chain_error_m: Vec<(Chain, f32)>,
    /// Frames where the IK held a foot.
    pub ik_frames: usize,
    /// Every key finite.
    pub finite: bool,
}

/// End-effector errors, metres (`null` where the effector is not mapped).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EffectorError {
    /// Left foot.
    pub left_foot: Option<f32>,
    /// Right foot.
    pub right_foot: Option<f32>,
    /// Left hand.
    pub left_hand: Option<f32>,
    /// Right hand.
    pub right_hand: Option<f32>,
}

/// One leg of the target, with the source foot it follows.
#[derive(Debug, Clone, Copy)]
struct Leg {
    thigh: NodeId,
    shin: NodeId,
    foot: NodeId,
    source_foot: NodeId,
}

/// The legs, left then right, where fully mapped.
fn legs(mapping: &Mapping, target: &Skeleton) -> Vec<Leg> {
    [Side::Left, Side::Right]
        .iter()
        .filter_map(|&side| {
            let thigh = mapping.pair_of(target, BoneKind::UpperLeg, side)?.target;
            let shin = mapping.pair_of(target, BoneKind::LowerLeg, side)?.target;
            let foot = mapping.pair_of(target, BoneKind::Foot, side)?;
            Some(Leg { thigh, shin, foot: foot.target, source_foot: foot.source })
        })
        .collect()
}

/// Source and target sampled together, frame after frame, with buffers owned once.
struct Sampler<'a> {
    source: &'a Model,
    target: &'a Model,
    retargeter: &'a Retargeter,
    source_pose: anim::SoaPose,
    source_rest: anim::SoaPose,
    source_locals: LocalMatrices,
    source_model: Vec<Affine3A>,
    target_pose: anim::SoaPose,
    target_model: Vec<Affine3A>,
    cursor: ClipCursor,
}

impl<'a> Sampler<'a> {
    fn new(source: &'a Model, clip: &anim::Clip, target: &'a Model, retargeter: &'a Retargeter) -> Self {
        Self {
            source,
            target,
            retargeter,
            source_pose: source.rest_pose(),
            source_rest: source.rest_pose(),
            source_locals: LocalMatrices::new(source.nodes().len()),
            source_model: vec![Affine3A::IDENTITY; source.nodes().len()],
            target_pose: target.rest_pose(),
            target_model: vec![Affine3A::IDENTITY; target.nodes().len()],
            cursor: ClipCursor::new(clip),
        }
    }

    /// The source at `time_secs` of `clip`, transferred with `overrides`.
    fn frame(&mut self, clip: &anim::Clip, time_secs: f32, overrides: &[(NodeId, Quat)]) {
        self.source_pose.copy_from(&self.source_rest);
        clip.sample(time_secs, &mut self.cursor, &SampleSettings::default(), &mut self.source_pose);
        self.source.hierarchy.local_to_model(&self.source_pose, &mut self.source_locals, &mut self.source_model);
        self.retarget(overrides);
    }

    /// The current source pose transferred again with `overrides`.
    fn retarget(&mut self, overrides: &[(NodeId, Quat)]) {
        self.retargeter.transfer(
            &self.target.hierarchy,
            &self.source_model,
            overrides,
            &mut self.target_model,
            &mut self.target_pose,
        );
    }

    fn source_at(&self, node: NodeId) -> Vec3 {
        self.source_model.get(node.index()).map_or(Vec3::ZERO, |m| m.translation.into())
    }

    fn target_at(&self, node: NodeId) -> Vec3 {
        self.target_model.get(node.index()).map_or(Vec3::ZERO, |m| m.translation.into())
    }
}

/// The set-up retarget of `source` onto `target` by `mapping`.
///
/// # Errors
/// When the mapping has no hips, the legs have no length, or the core refuses the pairs.
pub fn retargeter(
    (source, source_skeleton): (&Model, &Skeleton),
    (target, target_skeleton): (&Model, &Skeleton),
    mapping: &Mapping,
) -> anyhow::Result<Retargeter> {
    let hips = mapping.hips().context("the mapping has no hips pair")?;
    let (source_legs, target_legs) = (source_skeleton.leg_length(), target_skeleton.leg_length());
    anyhow::ensure!(
        source_legs > 0.0 && target_legs > 0.0,
        "both rigs need legs (thigh, shin, foot) to scale the hips' motion"
    );
    Ok(Retargeter::new(
        source,
        target,
        &mapping.bone_pairs(),
        Some((hips.source, hips.target)),
        target_legs / source_legs,
        (source_skeleton.forward, target_skeleton.forward),
    )?)
}

/// How a foot is held at one frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Hold {
    /// IK weight: 0 free, 1 held.
    weight: f32,
    /// The frame its stance started (where it is held from).
    start: usize,
    /// Seconds since that start (across the loop seam of a cyclic clip).
    elapsed_secs: f32,
}

/// Per foot, per frame: how it is held. A stance is found from a foot-contact marker: from
/// where the foot came down low and settled before it, while the foot stays low (within 20 % of its height range above its lowest point); a marker inside
/// a stance continues it. The hold is released over the next [`RELEASE_FRAMES`]. In a cyclic
/// clip (`cyclic`: the last frame is the first again) stances run on across the seam and the
/// last frame is held as the first; otherwise a foot low at the start is in stance from frame 0.
fn stances(heights: &[Vec<f32>], contacts: &[anim::FootContact], times: &[f32], cyclic: bool) -> Vec<Vec<Hold>> {
    let frames = times.len();
    let cycle = if cyclic && frames > 2 { frames - 1 } else { frames };
    let dt = if frames > 1 { times[1] - times[0] } else { 0.0 };
    let next = |k: usize| if cyclic { Some((k + 1) % cycle) } else { (k + 1 < frames).then_some(k + 1) };
    heights
        .iter()
        .enumerate()
        .map(|(f, h)| {
            let mut hold = vec![Hold::default(); frames];
            let (low, high) = h[..cycle].iter().fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
            let range = high - low;
            if range.is_nan() || range <= 0.0 {
                return hold;
            }
            let threshold = low + LIFT_FRACTION * range;
            let mut starts: Vec<usize> = contacts
                .iter()
                .filter(|c| c.foot == f)
                .filter_map(|c| times.iter().position(|&t| t >= c.time_secs - 1e-5))
                .map(|k| k % cycle)
                .collect();
            starts.sort_unstable();
            starts.dedup();
            if !cyclic && h.first().is_some_and(|&y| y <= threshold) && !starts.contains(&0) {
                starts.insert(0, 0);
            }
            let fastest = (1..cycle).map(|k| (h[k] - h[k - 1]).abs()).fold(0.0f32, f32::max);
            let previous = |k: usize| if cyclic { Some((k + cycle - 1) % cycle) } else { k.checked_sub(1) };
            for &marker in &starts {
                if hold[marker].weight >= 1.0 {
                    continue;
                }
                // The stance began where the foot last came down low and slow before the marker.
                let mut start = marker;
                for _ in 0..cycle {
                    let Some(before) = previous(start).filter(|&b| b != marker) else { break };
                    let settled = (h[start] - h[before]).abs() <= SETTLED_FRACTION * fastest;
                    if h[before] > threshold || !settled || hold[before].weight >= 1.0 {
                        break;
                    }
                    start = before;
                }
                // A stance that begins while the last one is being released continues it.
                let first = start;
                let (start, first_elapsed) = match previous(first).map(|b| hold[b]) {
                    Some(b) if b.weight > 0.0 => (b.start, b.elapsed_secs + dt),
                    _ => (start, 0.0),
                };
                let mut k = Some(first);
                let mut steps = 0usize;
                while let Some(at) = k.filter(|&at| steps < cycle && h[at] <= threshold) {
                    hold[at] = Hold { weight: 1.0, start, elapsed_secs: first_elapsed + steps as f32 * dt };
                    k = next(at);
                    steps += 1;
                }
                for r in 0..RELEASE_FRAMES {
                    let Some(at) = k else { break };
                    let w = 1.0 - (r + 1) as f32 / (RELEASE_FRAMES + 1) as f32;
                    let w = w * w * (3.0 - 2.0 * w);
                    if hold[at].weight < w {
                        hold[at] = Hold { weight: w, start, elapsed_secs: first_elapsed + (steps + r) as f32 * dt };
                    }
                    k = next(at);
                }
            }
            if cycle < frames {
                hold[frames - 1] = hold[0];
            }
            hold
        })
        .collect()
}

/// Also hold the frames where the transferred foot itself stands (low and settled, by its own
/// heights: what the transition report counts as planted) that no stance holds yet: each such
/// run held from its first frame, released over the next [`RELEASE_FRAMES`].
fn hold_standing(hold: &mut [Hold], heights: &[f32], times: &[f32], cyclic: bool) {
    let frames = heights.len().min(hold.len()).min(times.len());
    let cycle = if cyclic && frames > 2 { frames - 1 } else { frames };
    if cycle < 2 {
        return;
    }
    let dt = times[1] - times[0];
    let (low, high) = heights[..cycle].iter().fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    let threshold = low + LIFT_FRACTION * (high - low);
    let fastest = (1..cycle).map(|k| (heights[k] - heights[k - 1]).abs()).fold(0.0f32, f32::max);
    // In a cyclic clip frames wrap (the frame before 0 is the last of the cycle), and the walk
    // starts after a frame that does not stand, so no run is cut at the seam.
    let before = |k: usize| if k == 0 { cycle - 1 } else { k - 1 };
    let standing = |k: usize| {
        let b = before(k);
        (cyclic || k > 0)
            && heights[b] <= threshold
            && heights[k] <= threshold
            && (heights[k] - heights[b]).abs() <= SETTLED_FRACTION * fastest
    };
    let first = if cyclic { (0..cycle).find(|&k| !standing(k)).map_or(0, |k| k + 1) } else { 1 };
    let mut release: Option<(usize, usize, f32)> = None;
    for step in 0..cycle {
        let k = (first + step) % cycle;
        if !cyclic && k == 0 {
            continue;
        }
        if standing(k) {
            if hold[k].weight < 1.0 {
                let b = before(k);
                // A run that begins while another is being released continues it (no jump).
                let (start, elapsed) = if hold[b].weight > 0.0 {
                    hold[b].weight = 1.0;
                    (hold[b].start, hold[b].elapsed_secs + dt)
                } else {
                    hold[b] = Hold { weight: 1.0, start: b, elapsed_secs: 0.0 };
                    (b, dt)
                };
                hold[k] = Hold { weight: 1.0, start, elapsed_secs: elapsed };
                release = Some((0, start, elapsed));
            } else {
                release = None;
            }
        } else if let Some((r, start, elapsed)) = release {
            if r >= RELEASE_FRAMES {
                release = None;
                continue;
            }
            let w = 1.0 - (r + 1) as f32 / (RELEASE_FRAMES + 1) as f32;
            let w = w * w * (3.0 - 2.0 * w);
            let elapsed = elapsed + dt;
            if hold[k].weight < w {
                hold[k] = Hold { weight: w, start, elapsed_secs: elapsed };
            }
            release = Some((r + 1, start, elapsed));
        }
    }
    if cycle < frames {
        hold[frames - 1] = hold[0];
    }
}

/// Two holds that touch (a stance starting while the one before is still being released) become
/// one: the later continues the earlier's pin, so the foot does not jump between them.
fn merge_touching(hold: &mut [Hold], times: &[f32]) {
    let dt = if times.len() > 1 { times[1] - times[0] } else { 0.0 };
    for k in 1..hold.len() {
        let (before, now) = (hold[k - 1], hold[k]);
        if before.weight <= 0.0 || now.weight <= 0.0 || before.start == now.start {
            continue;
        }
        let old = now.start;
        let mut j = k;
        while j < hold.len() && hold[j].weight > 0.0 && hold[j].start == old {
            hold[j].start = hold[j - 1].start;
            hold[j].elapsed_secs = hold[j - 1].elapsed_secs + dt;
            j += 1;
        }
    }
}

/// Retarget clip `clip` of `source` onto `target` by `mapping`, named `name`.
///
/// # Errors
/// When the clip does not exist or the retarget cannot be set up.
pub fn retarget_clip(
    (source, source_skeleton): (&Model, &Skeleton),
    clip: ClipId,
    (target, target_skeleton): (&Model, &Skeleton),
    mapping: &Mapping,
    options: Options,
    name: &str,
) -> anyhow::Result<Retargeted> {
    let c = source.clip(clip).context("the source clip does not exist")?;
    let retargeter = retargeter((source, source_skeleton), (target, target_skeleton), mapping)?;
    let start = c.start_secs();
    let secs = (c.end_secs() - start).max(0.0);
    let frames = ((secs * KEYS_PER_SEC).ceil() as usize).max(1);
    let times: Vec<f32> =
        if secs > 0.0 { (0..=frames).map(|k| start + secs * k as f32 / frames as f32).collect() } else { vec![start] };
    let mut sampler = Sampler::new(source, c, target, &retargeter);
    let legs = if options.foot_ik { legs(mapping, target_skeleton) } else { Vec::new() };
    let frame = retargeter.frame();
    let ratio = retargeter.ratio();

    // Pass 1: the transferred feet where they fall, and the source's feet.
    let mut target_feet = vec![Vec::with_capacity(times.len()); legs.len()];
    let mut source_feet = vec![Vec::with_capacity(times.len()); legs.len()];
    let mut source_hips = Vec::with_capacity(times.len());
    let hips_node = mapping.hips().map(|p| p.source);
    for &t in &times {
        sampler.frame(c, t, &[]);
        source_hips.push(hips_node.map_or(Vec3::ZERO, |h| sampler.source_at(h)));
        for (l, leg) in legs.iter().enumerate() {
            target_feet[l].push(sampler.target_at(leg.foot));
            source_feet[l].push(sampler.source_at(leg.source_foot));
        }
    }
    let hold = if legs.is_empty() {
        Vec::new()
    } else {
        let feet: Vec<NodeId> = legs.iter().map(|l| l.source_foot).collect();
        let ground = anim::foot_ground_heights(source, &feet);
        let min_lift = MIN_LIFT_M / source_skeleton.metres_per_unit;
        let contacts = anim::find_foot_contacts(source, clip, &feet, min_lift, Some(&ground));
        let heights: Vec<Vec<f32>> = source_feet.iter().map(|f| f.iter().map(|p| p.y).collect()).collect();
        // Cyclic: the last frame's hips and feet where the first frame's are.
        let size = source_skeleton.leg_length();
        let seam = |p: &[Vec3]| p.first().zip(p.last()).map_or(f32::MAX, |(a, b)| a.distance(*b));
        let cyclic = times.len() > 2
            && seam(&source_hips) <= CYCLIC_FRACTION * size
            && source_feet.iter().all(|f| seam(f) <= CYCLIC_FRACTION * size);
        let mut hold = stances(&heights, &contacts, &times, cyclic);
        for (hold, feet) in hold.iter_mut().zip(&target_feet) {
            let heights: Vec<f32> = feet.iter().map(|p| p.y).collect();
            hold_standing(hold, &heights, &times, cyclic);
            merge_touching(hold, &times);
        }
        hold
    };
    // The ground under a planted source foot moves with the clip's stance velocity (an
    // in-place walk's treadmill): the held target foot moves with it, scaled.
    let mut sum = Vec3::ZERO;
    let mut count = 0usize;
    for (l, feet) in source_feet.iter().enumerate() {
        for k in 1..times.len() {
            if hold[l][k].weight >= 1.0 && hold[l][k - 1].weight >= 1.0 && hold[l][k].start == hold[l][k - 1].start {
                let v = (feet[k] - feet[k - 1]) / (times[k] - times[k - 1]).max(1e-6);
                sum += Vec3::new(v.x, 0.0, v.z);
                count += 1;
            }
        }
    }
    let stance_velocity = if count > 0 { ratio * (frame * (sum / count as f32)) } else { Vec3::ZERO };

    // Pass 2: the held feet solved, the keys and the figures recorded.
    let n = target.nodes().len();
    let mut keys: Vec<Vec<Transform>> = vec![Vec::with_capacity(times.len()); n];
    let effectors: Vec<(usize, Option<(NodeId, NodeId)>)> = [
        (BoneKind::Foot, Side::Left),
        (BoneKind::Foot, Side::Right),
        (BoneKind::Hand, Side::Left),
        (BoneKind::Hand, Side::Right),
    ]
    .iter()
    .enumerate()
    .map(|(i, &(k, s))| (i, mapping.pair_of(target_skeleton, k, s).map(|p| (p.source, p.target))))
    .collect();
    let chain_ends: Vec<(Chain, NodeId, NodeId)> = Chain::ALL
        .iter()
        .filter_map(|&chain| mapping.pairs.iter().rev().find(|p| p.chain == chain).map(|p| (chain, p.source, p.target)))
        .collect();
    let hips = mapping.hips().map(|p| (p.source, p.target));
    let mut effector_sum = [0.0f32; 4];
    let mut chain_sum = vec![0.0f32; chain_ends.len()];
    let mut ik_frames = 0usize;
    let mut overrides: Vec<(NodeId, Quat)> = Vec::with_capacity(2 * legs.len());
    let pole = target_skeleton.forward;
    for (k, &t) in times.iter().enumerate() {
        sampler.frame(c, t, &[]);
        overrides.clear();
        for (l, leg) in legs.iter().enumerate() {
            let Hold { weight: w, start, elapsed_secs } = hold[l][k];
            if w <= 0.0 {
                continue;
            }
            let planted = target_feet[l][start] + stance_velocity * elapsed_secs;
            let now = sampler.target_at(leg.foot);
            let held = Vec3::new(planted.x, now.y, planted.z);
            let goal = now.lerp(held, w);
            let (root, middle) = (sampler.target_at(leg.thigh), sampler.target_at(leg.shin));
            let solution = two_bone_ik(root, middle, now, goal, pole);
            let thigh = model_rotation(&sampler.target_model[leg.thigh.index()]);
            let shin = model_rotation(&sampler.target_model[leg.shin.index()]);
            overrides.push((leg.thigh, (solution.upper_delta * thigh).normalize()));
            overrides.push((leg.shin, (solution.lower_delta * shin).normalize()));
            ik_frames += 1;
        }
        if !overrides.is_empty() {
            sampler.retarget(&overrides);
        }
        for (node, list) in keys.iter_mut().enumerate() {
            list.push(sampler.target_pose.transform(NodeId::from_index(node)));
        }
        if let Some((hs, ht)) = hips {
            let relative = |s: NodeId, t: NodeId| {
                let source = ratio * (frame * (sampler.source_at(s) - sampler.source_at(hs)));
                let target = sampler.target_at(t) - sampler.target_at(ht);
                target.distance(source)
            };
            for (i, pair) in &effectors {
                if let Some((s, t)) = pair {
                    effector_sum[*i] += relative(*s, *t);
                }
            }
            for (sum, (_, s, t)) in chain_sum.iter_mut().zip(&chain_ends) {
                *sum += relative(*s, *t);
            }
        }
    }
    let m = target_skeleton.metres_per_unit;
    let mean = |sum: f32| sum / times.len() as f32 * m;
    let effector = |i: usize| effectors[i].1.map(|_| mean(effector_sum[i]));
    let end_effector_error_m = EffectorError {
        left_foot: effector(0),
        right_foot: effector(1),
        left_hand: effector(2),
        right_hand: effector(3),
    };
    let chain_error_m = chain_ends.iter().zip(&chain_sum).map(|((chain, _, _), &s)| (*chain, mean(s))).collect();

    // The keys: a rotation track per node that turns, a translation track per node that moves.
    let rest = target.rest_pose();
    let timeline = Timeline { times_secs: times.iter().map(|t| t - start).collect() };
    let mut tracks = Vec::new();
    let mut finite = true;
    for (node, list) in keys.iter().enumerate() {
        let id = NodeId::from_index(node);
        let r = rest.transform(id);
        let turns = list.iter().any(|k| k.rotation.dot(r.rotation).abs() < 1.0 - 1e-7);
        let moves = list.iter().any(|k| k.translation.distance(r.translation) > 1e-6 * (1.0 + r.translation.length()));
        finite &= list.iter().all(|k| k.translation.is_finite() && k.rotation.is_finite());
        if turns {
            let mut values: Vec<Quat> = Vec::with_capacity(list.len());
            for k in list {
                let mut q = k.rotation.normalize();
                if values.last().is_some_and(|p: &Quat| p.dot(q) < 0.0) {
                    q = -q;
                }
                values.push(q);
            }
            tracks.push(track(id, TrackValues::Rotation(values), tracks.len()));
        }
        if moves {
            let values = list.iter().map(|k| k.translation).collect();
            tracks.push(track(id, TrackValues::Translation(values), tracks.len()));
        }
    }
    let clip = RawClip { name: Some(name.to_owned()), timelines: vec![timeline], tracks, min_end_secs: 0.0 };
    Ok(Retargeted { clip, hips_height_ratio: ratio, end_effector_error_m, chain_error_m, ik_frames, finite })
}

/// A LINEAR track on timeline 0.
fn track(node: NodeId, values: TrackValues, index: usize) -> Track {
    Track { node, timeline: 0, interpolation: Interpolation::Linear, values, channel: index, sampler: index }
}

/// One mapped joint in the report.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MappedJoint {
    /// Source joint name.
    pub source: String,
    /// Target joint name.
    pub target: String,
}

/// One retargeted clip in the report.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClipReport {
    /// Its name in the output (` (retargeted)` added when the target already had the name).
    pub name: String,
    /// The hips' translation scale: target leg length / source leg length (model units).
    pub hips_height_ratio: f32,
    /// Stance foot slide of the written clip, read back from the output, as `animtune
    /// transition` measures foot slide (planted feet against the ground under them), the
    /// largest stance, metres.
    pub foot_slide_m: f32,
    /// The same on the source clip.
    pub source_foot_slide_m: f32,
    /// Mean distance of each end effector from the scaled source's, both relative to the hips,
    /// metres.
    pub end_effector_error_m: EffectorError,
    /// The round trip source → target → source (without foot IK): the largest model-space
    /// rotation difference over every key and every joint mapped both ways, degrees.
    pub round_trip_max_deg: f32,
    /// How many joints the round trip compares (mapped both ways).
    pub round_trip_joints: usize,
}

/// `animtune retarget`'s report.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RetargetReport {
    /// The joint table.
    pub mapped: Vec<MappedJoint>,
    /// Source skin joints not mapped.
    pub unmapped_source: Vec<String>,
    /// Target skin joints not mapped (kept at rest relative to their parents).
    pub unmapped_target: Vec<String>,
    /// One entry per clip.
    pub clips: Vec<ClipReport>,
    /// Every written key finite.
    pub finite: bool,
}

impl RetargetReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(s, "mapped {} joints:", self.mapped.len());
        for m in &self.mapped {
            let _ = writeln!(s, "  {} -> {}", m.source, m.target);
        }
        let _ = writeln!(s, "unmapped source: {}", self.unmapped_source.join(", "));
        let _ = writeln!(s, "unmapped target: {}", self.unmapped_target.join(", "));
        let opt = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.4}"));
        let _ = writeln!(
            s,
            "clip                  hips ratio  foot slide (m)  source slide (m)  round trip (°)  effector error L/R foot, L/R hand (m)"
        );
        for c in &self.clips {
            let e = &c.end_effector_error_m;
            let _ = writeln!(
                s,
                "{:<21} {:10.4}  {:14.4}  {:16.4}  {:14.3}  {} {} {} {}",
                c.name,
                c.hips_height_ratio,
                c.foot_slide_m,
                c.source_foot_slide_m,
                c.round_trip_max_deg,
                opt(e.left_foot),
                opt(e.right_foot),
                opt(e.left_hand),
                opt(e.right_hand)
            );
        }
        let _ = writeln!(s, "finite: {}", self.finite);
        s
    }
}

/// A model file's bytes and the folder its external files resolve in.
#[derive(Debug, Clone, Copy)]
pub struct FileBytes<'a> {
    /// `.glb` or `.gltf` bytes.
    pub bytes: &'a [u8],
    /// The folder of its external files.
    pub base_dir: Option<&'a Path>,
}

/// A retarget written to a file: the output's bytes, its model read back and the report.
pub struct Written {
    /// The `.glb` bytes.
    pub glb: Vec<u8>,
    /// The output read back.
    pub model: Model,
    /// The report.
    pub report: RetargetReport,
}

/// The name a retargeted clip gets in `target`: the source's, with ` (retargeted)` added when
/// `target` (or an earlier clip of this retarget) already has it.
pub fn output_name(target: &Model, taken: &[String], name: &str) -> String {
    let clash = |n: &str| target.clips().iter().any(|c| c.name() == Some(n)) || taken.iter().any(|t| t == n);
    let mut out = name.to_owned();
    while clash(&out) {
        out.push_str(" (retargeted)");
    }
    out
}

/// Retarget `clips` of `source` onto `target` by `mapping`, write them into a copy of
/// `target_file` (the target's own clips kept), read it back and measure: the one
/// implementation behind `animtune retarget` and the viewer's "Save retargeted clips…".
///
/// # Errors
/// When a clip cannot be retargeted, the output cannot be written, or it does not read back.
pub fn retarget_to_file(
    source: (&Model, &Skeleton),
    target: (&Model, &Skeleton),
    target_file: FileBytes<'_>,
    mapping: &Mapping,
    clips: &[ClipId],
    options: Options,
    limits: &anim::import::Limits,
) -> anyhow::Result<Written> {
    let mut names: Vec<String> = Vec::new();
    let mut done = Vec::new();
    for &clip in clips {
        let c = source.0.clip(clip).context("the source clip does not exist")?;
        let name = output_name(target.0, &names, &c.display_name(clip.index()));
        let retargeted = retarget_clip(source, clip, target, mapping, options, &name)
            .with_context(|| format!("cannot retarget clip \"{}\"", c.display_name(clip.index())))?;
        names.push(name);
        done.push(retargeted);
    }
    let raws: Vec<RawClip> = done.iter().map(|r| r.clip.clone()).collect();
    let glb = anim::export::add_clips(target_file.bytes, target_file.base_dir, &raws, limits)?;
    let model = decode::load_slice(&glb, None, limits).context("the written file does not read back")?;
    let source_rig = crate::transitions::Rig::new(source.0);
    let target_rig = crate::transitions::Rig::new(&model);
    let first_new = target.0.clips().len();
    let mut reports = Vec::with_capacity(done.len());
    for (i, (r, &clip)) in done.iter().zip(clips).enumerate() {
        let written = ClipId::from_index(first_new + i);
        let trip = round_trip(source, clip, target)
            .with_context(|| format!("cannot retarget clip \"{}\" back for the round trip", names[i]))?;
        anyhow::ensure!(model.clip(written).is_some(), "the written file lost clip {}", names[i]);
        reports.push(ClipReport {
            name: names[i].clone(),
            hips_height_ratio: r.hips_height_ratio,
            foot_slide_m: crate::transitions::clip_foot_slide(&model, &target_rig, written),
            source_foot_slide_m: crate::transitions::clip_foot_slide(source.0, &source_rig, clip),
            end_effector_error_m: r.end_effector_error_m,
            round_trip_max_deg: trip.max_deg,
            round_trip_joints: trip.joints,
        });
    }
    let report = RetargetReport {
        mapped: mapping
            .pairs
            .iter()
            .map(|p| MappedJoint { source: p.source_name.clone(), target: p.target_name.clone() })
            .collect(),
        unmapped_source: mapping.unmapped_source.clone(),
        unmapped_target: mapping.unmapped_target.clone(),
        clips: reports,
        finite: done.iter().all(|r| r.finite),
    };
    Ok(Written { glb, model, report })
}

/// A round trip's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundTrip {
    /// Largest model-space rotation difference, degrees.
    pub max_deg: f32,
    /// Joints compared (mapped both ways).
    pub joints: usize,
}

/// Model-space transforms of every node of `model` at `time_secs` of `clip` (into `world`).
fn world_at(model: &Model, clip: &anim::Clip, time_secs: f32, world: &mut [Affine3A]) {
    let mut pose = model.rest_pose();
    clip.sample(time_secs, &mut ClipCursor::new(clip), &SampleSettings::default(), &mut pose);
    model.hierarchy.local_to_model(&pose, &mut LocalMatrices::new(model.nodes().len()), world);
}

/// Retarget `clip` of `a` onto `b` and back (automatic mappings both ways, without foot IK) and
/// compare every joint mapped both ways with the original at every key: how much a rig pair
/// loses in transfer (0° for rigs whose mapped joints agree, within 1° the goal).
///
/// # Errors
/// When either retarget cannot be set up.
pub fn round_trip(a: (&Model, &Skeleton), clip: ClipId, b: (&Model, &Skeleton)) -> anyhow::Result<RoundTrip> {
    let there = Mapping::automatic(a.1, b.1);
    let back = Mapping::automatic(b.1, a.1);
    let no_ik = Options { foot_ik: false };
    let original = a.0.clip(clip).context("the source clip does not exist")?;
    let on_b = retarget_clip(a, clip, b, &there, no_ik, "there")?;
    let mut b_model = b.0.clone();
    let b_clip = b_model.push_clip(on_b.clip.build().context("the clip on the target does not build")?);
    let on_a = retarget_clip((&b_model, b.1), b_clip, a, &back, no_ik, "back")?;
    let times = on_a.clip.timelines.first().map(|t| t.times_secs.clone()).unwrap_or_default();
    let returned = on_a.clip.build().context("the clip brought back does not build")?;
    let joints: Vec<NodeId> = there
        .pairs
        .iter()
        .filter(|p| back.pairs.iter().any(|q| q.source == p.target && q.target == p.source))
        .map(|p| p.source)
        .collect();
    let start = original.start_secs();
    let n = a.0.nodes().len();
    let (mut before, mut after) = (vec![Affine3A::IDENTITY; n], vec![Affine3A::IDENTITY; n]);
    let mut max_deg = 0.0f32;
    for &t in &times {
        world_at(a.0, original, start + t, &mut before);
        world_at(a.0, &returned, t, &mut after);
        for &j in &joints {
            let (p, q) = (model_rotation(&before[j.index()]), model_rotation(&after[j.index()]));
            max_deg = max_deg.max(p.angle_between(q).to_degrees());
        }
    }
    Ok(RoundTrip { max_deg, joints: joints.len() })
}

/// Import a model file with the decoders and the default limits (the viewer's source file).
///
/// # Errors
/// When it does not load.
pub fn load_model(path: &Path) -> anyhow::Result<Model> {
    decode::load_path(path, &anim::import::Limits::default()).with_context(|| format!("cannot load {}", path.display()))
}
