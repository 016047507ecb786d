//! Crowd mode: many copies of one model on a grid, each with its own clip, phase, speed and
//! cross-fades, updated in parallel (rayon) into one instance-major buffer of skinning palettes
//! that the renderer draws with GPU instancing ([`crate::render::CrowdView`]).
//!
//! Each instance runs the animation core's one pipeline: its clips sampled in blocks of eight
//! nodes ([`anim::Clip::sample`], with the crowd's sample settings) and, while it cross-fades,
//! blended ([`anim::blend_into`], the layered, eased cross-fade of [`anim::CrossFader`]), the
//! local→model pass with the instance's placement as the roots' parent
//! ([`anim::Hierarchy::local_to_model_placed`]) and prepared skinning palettes.
//!
//! Cost (docs/performance.md): an instance keeps only its playback state (clips, times, fade
//! clocks, placement: about 120 bytes). Its pose, local matrices and node transforms live in
//! the scratch of the worker lane that runs it (a few KB, in cache), so the one pass from
//! sampling to palette reads the clips' keys and writes the palette, the transforms of the nodes
//! that carry a mesh and the morph weights once, in the layout the renderer uploads. Every few
//! frames the instances are sorted by (clip, phase), so neighbours in a lane read the same keys.
//!
//! Per frame nothing is allocated: every buffer is sized once. Call [`init_thread_pool`] on the
//! thread that updates crowds: it makes that thread one of rayon's workers, so a frame's work is
//! pushed onto its own (reused) deque; from any other thread rayon injects the job through a
//! queue that allocates a block every 63 frames.

use anim::rng::Rng;
use anim::{
    Clip, ClipCursor, ClipId, Easing, LocalMatrices, Model, NodeId, PreparedSkin, SampleSettings, SoaPose, blend_into,
};
use glam::{Affine3A, Mat4, Quat, Vec3};
use rayon::prelude::*;

use crate::render::Aabb;

/// Build rayon's global pool with the calling thread as one of its workers (see the module
/// docs), with at least two threads. Returns false when the global pool already existed (crowds
/// still work; their frames may then allocate inside rayon).
pub fn init_thread_pool() -> bool {
    let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get).max(2);
    let built = rayon::ThreadPoolBuilder::new().num_threads(threads).use_current_thread().build_global().is_ok();
    if built {
        // Make every thread (this one included) steal work now: each thread's first steal
        // registers it with crossbeam's epoch collector, a one-time allocation that would
        // otherwise land in some later frame. Every thread offers half of a `join` to the others
        // until each has been seen running a job it stole (on a loaded machine one thread may
        // otherwise do all the work of a round).
        let nap = || std::thread::sleep(std::time::Duration::from_millis(2));
        let stole: Vec<std::sync::atomic::AtomicBool> =
            (0..threads).map(|_| std::sync::atomic::AtomicBool::new(false)).collect();
        let mark = |owner: Option<usize>| {
            let thief = rayon::current_thread_index();
            if let Some(slot) = thief.filter(|&t| Some(t) != owner).and_then(|t| stole.get(t)) {
                slot.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        };
        for _ in 0..500 {
            if stole.iter().all(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
                break;
            }
            rayon::broadcast(|_| {
                let owner = rayon::current_thread_index();
                rayon::join(nap, || {
                    mark(owner);
                    nap();
                });
            });
        }
    }
    built
}

/// Most instances a crowd may have (memory: a few hundred bytes of state and output per joint
/// of each instance).
pub const MAX_CROWD: usize = 20_000;

/// Worker lanes a crowd's instances are split into (each with its own scratch, run in parallel).
const LANES: usize = 64;

/// The instances are put back in (clip, phase) order every this many updates (between sorts
/// they drift apart only by their speeds' differences; a sort is serial work).
const SORT_EVERY: u64 = 16;

/// Clips stacked at most in one instance's cross-fade (the crowd's schedule needs two: fades of
/// at most 0.8 s start at least 2 s apart).
const MAX_PLAYS: usize = 3;

/// One clip an instance plays, and its fade-in (a layer of the cross-fade, as in
/// [`anim::CrossFader`]).
#[derive(Debug, Clone, Copy)]
struct Play {
    clip: ClipId,
    /// Playback time, wrapped into the clip.
    time_secs: f32,
    /// Time since its fade-in started.
    elapsed_secs: f32,
    /// Length of its fade-in (0: instant).
    duration_secs: f32,
}

impl Play {
    const NONE: Self = Self { clip: ClipId::new(0), time_secs: 0.0, elapsed_secs: 0.0, duration_secs: 0.0 };

    /// Its weight over the layers beneath (eased, in `[0, 1]`).
    fn progress(&self) -> f32 {
        if self.duration_secs > 0.0 { Easing::Smoothstep.apply(self.elapsed_secs / self.duration_secs) } else { 1.0 }
    }
}

/// One character of the crowd: its playback state only (its pose is made in a lane's scratch).
#[derive(Debug, Clone)]
struct Member {
    /// The cross-fade's layers, bottom first; `play_count` are live.
    plays: [Play; MAX_PLAYS],
    play_count: usize,
    /// Where it stands: turned about +Y by `yaw`, then moved by `offset`.
    yaw: Quat,
    offset: Vec3,
    /// Playback speed factor.
    speed: f32,
    /// Seconds until the next cross-fade.
    next_fade_secs: f32,
    rng: Rng,
    /// (current clip, phase) at the last update: the order instances are sorted in.
    order: u64,
}

impl Member {
    fn plays(&self) -> &[Play] {
        &self.plays[..self.play_count]
    }

    /// The clip played (or faded to).
    fn current_clip(&self) -> ClipId {
        self.plays().last().map_or(ClipId::from_index(0), |p| p.clip)
    }

    /// Sort key: the current clip, then its phase (instances that read the same keys together).
    fn order_key(&self, clip_secs: &[f32]) -> u64 {
        let Some(top) = self.plays().last() else { return 0 };
        let secs = clip_secs.get(top.clip.index()).copied().unwrap_or(0.0);
        let phase = if secs > 0.0 { (top.time_secs / secs).clamp(0.0, 1.0) } else { 0.0 };
        ((top.clip.index() as u64) << 32) | (phase * u32::MAX as f32) as u64
    }

    /// Advance by `dt_secs` at the member's speed; drop the layers a finished fade covers; every
    /// few seconds start a cross-fade to another clip (from its start, as
    /// [`anim::CrossFader::trigger`] does).
    fn advance(&mut self, dt_secs: f32, clip_secs: &[f32]) {
        let step = dt_secs * self.speed;
        for play in &mut self.plays[..self.play_count] {
            let secs = clip_secs.get(play.clip.index()).copied().unwrap_or(0.0);
            play.time_secs = wrap_time(secs, play.time_secs + step);
            play.elapsed_secs += step;
        }
        if let Some(top_full) = self.plays().iter().rposition(|p| p.progress() >= 1.0)
            && top_full > 0
        {
            self.plays.copy_within(top_full..self.play_count, 0);
            self.play_count -= top_full;
        }
        self.next_fade_secs -= dt_secs;
        let clips = clip_secs.len();
        self.order = self.order_key(clip_secs);
        if self.next_fade_secs <= 0.0 && clips > 1 {
            let current = self.current_clip().index();
            let step = 1 + self.rng.below(clips - 1);
            let duration_secs = self.rng.range(0.2, 0.8);
            if self.play_count == MAX_PLAYS {
                // Never reached by the schedule above; the oldest layer goes.
                self.plays.copy_within(1.., 0);
                self.play_count -= 1;
            }
            let clip = ClipId::from_index((current + step) % clips);
            self.plays[self.play_count] = Play { clip, time_secs: 0.0, elapsed_secs: 0.0, duration_secs };
            self.play_count += 1;
            self.next_fade_secs = self.rng.range(2.0, 6.0);
            self.order = self.order_key(clip_secs);
        }
    }

    fn placement(&self) -> Affine3A {
        Affine3A::from_rotation_translation(self.yaw, self.offset)
    }
}

/// `time_secs` wrapped into `[0, clip_secs)` (0 for an empty clip or a time that is not finite).
fn wrap_time(clip_secs: f32, time_secs: f32) -> f32 {
    if !time_secs.is_finite() || clip_secs <= 0.0 { 0.0 } else { time_secs.rem_euclid(clip_secs) }
}

/// What every instance reads: the model's clips and the crowd's settings.
struct Job<'a> {
    model: &'a Model,
    settings: &'a SampleSettings,
    rest: &'a SoaPose,
    /// Per clip: sampling it overwrites the whole rest pose (no copy of the rest pose first).
    covers_pose: &'a [bool],
}

impl Job<'_> {
    /// Instance `member`'s (unplaced) pose into `pose`: the bottom layer sampled, each layer above
    /// sampled into `layer` and blended over it by its fade's progress.
    fn pose(&self, member: &Member, cursors: &mut [ClipCursor], pose: &mut SoaPose, layer: &mut SoaPose) {
        let mut plays = member.plays().iter();
        match plays.next() {
            Some(bottom) => self.sample(bottom, cursors, pose),
            None => pose.copy_from(self.rest),
        }
        for play in plays {
            self.sample(play, cursors, layer);
            blend_into(pose, layer, play.progress(), self.settings.scale_space);
        }
    }

    fn sample(&self, play: &Play, cursors: &mut [ClipCursor], out: &mut SoaPose) {
        let index = play.clip.index();
        let (Some(clip), Some(cursor)) = (self.model.clips().get(index), cursors.get_mut(index)) else {
            out.copy_from(self.rest);
            return;
        };
        if !self.covers_pose.get(index).copied().unwrap_or(false) {
            out.copy_from(self.rest);
        }
        clip.sample(play.time_secs, cursor, self.settings, out);
    }
}

/// A worker lane's scratch: one instance's pose, local matrices and node transforms at a time,
/// reused for every instance of the lane (so they stay in cache), and key cursors per clip.
#[derive(Debug, Clone)]
struct Lane {
    pose: SoaPose,
    layer: SoaPose,
    locals: LocalMatrices,
    world: Vec<Affine3A>,
    cursors: Vec<ClipCursor>,
}

/// Many animated copies of one model.
#[derive(Debug, Clone)]
pub struct Crowd {
    members: Vec<Member>,
    lanes: Vec<Lane>,
    /// Updates so far (the instances are sorted every [`SORT_EVERY`]).
    updates: u64,
    /// Instances per lane.
    lane_len: usize,
    /// Palettes of every instance (`palette_stride` each), placement included.
    palettes: Vec<Mat4>,
    /// Placed model-space transforms of the nodes in `mesh_nodes`, for every instance.
    node_worlds: Vec<Affine3A>,
    /// The nodes that carry a mesh (what the renderer reads of the node transforms).
    mesh_nodes: Vec<NodeId>,
    /// Per node: its slot in an instance's `node_worlds` (`None`: a node without a mesh).
    node_slots: Vec<Option<u32>>,
    /// Morph weights of every instance.
    weights: Vec<f32>,
    palette_stride: usize,
    skin_offsets: Vec<usize>,
    /// The model's skins prepared for fast palettes.
    skins: Vec<PreparedSkin>,
    /// The model's rest pose (under clips that do not animate every node).
    rest: SoaPose,
    /// Per clip: its length, and whether it animates every node's translation, rotation and
    /// scale (and the model has no morph weights).
    clip_secs: Vec<f32>,
    covers_pose: Vec<bool>,
    /// The model's node tree (for [`Self::pose`]).
    hierarchy: anim::Hierarchy,
    /// Sampling settings shared by the crowd.
    pub settings: SampleSettings,
    /// Grid spacing between neighbours, model units.
    pub spacing: f32,
    bounds: Aabb,
}

impl Crowd {
    /// `count` copies of `model` (capped at [`MAX_CROWD`]) on a square grid, each starting on
    /// clip `i mod clips` at a random phase, with a random speed (0.85–1.15×), heading and
    /// first cross-fade time; `seed` makes it reproducible.
    pub fn new(model: &Model, count: usize, seed: u64) -> Self {
        let count = count.min(MAX_CROWD);
        let clips = model.clips().len();
        let footprint = crate::render::framing::animated_bounds(
            model,
            (clips > 0).then(|| ClipId::from_index(0)),
            &SampleSettings::default(),
            8,
        );
        let size = if footprint.is_empty() { 1.0 } else { (footprint.max - footprint.min).max_element().max(1e-3) };
        let spacing = size * 1.2;
        let side = (count as f64).sqrt().ceil().max(1.0) as usize;
        let centre = (side as f32 - 1.0) * 0.5 * spacing;
        let clip_secs: Vec<f32> = model.clips().iter().map(Clip::end_secs).collect();
        let members = (0..count)
            .map(|i| {
                let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0xA076_1D64_78BD_642F));
                let clip = ClipId::from_index(if clips > 0 { i % clips } else { 0 });
                let secs = clip_secs.get(clip.index()).copied().unwrap_or(0.0);
                let time_secs = if secs > 0.0 { wrap_time(secs, rng.range(0.0, secs.max(1e-3))) } else { 0.0 };
                let mut plays = [Play::NONE; MAX_PLAYS];
                plays[0] = Play { clip, time_secs, ..Play::NONE };
                let (row, column) = (i / side, i % side);
                let jitter = Vec3::new(rng.range(-0.15, 0.15), 0.0, rng.range(-0.15, 0.15));
                Member {
                    plays,
                    play_count: 1,
                    yaw: Quat::from_rotation_y(rng.range(-0.6, 0.6)),
                    offset: Vec3::new(column as f32 * spacing - centre, 0.0, row as f32 * spacing - centre)
                        + jitter * spacing,
                    speed: rng.range(0.85, 1.15),
                    next_fade_secs: rng.range(0.5, 4.0),
                    rng,
                    order: 0,
                }
            })
            .collect();
        let mut skin_offsets = Vec::with_capacity(model.skins().len());
        let mut palette_stride = 0;
        for skin in model.skins() {
            skin_offsets.push(palette_stride);
            palette_stride += skin.joints.len();
        }
        let half = centre + spacing;
        let mut bounds = footprint;
        if bounds.is_empty() {
            bounds = Aabb { min: Vec3::splat(-0.5), max: Vec3::splat(0.5) };
        }
        let bounds = Aabb { min: Vec3::new(-half, bounds.min.y, -half), max: Vec3::new(half, bounds.max.y, half) };
        let rest = model.rest_pose();
        let covers_pose = model.clips().iter().map(|clip| anim::crossfade::clip_covers_pose(model, clip)).collect();
        let mesh_nodes: Vec<NodeId> = model.node_ids().filter(|&n| model[n].mesh.is_some()).collect();
        let mut node_slots = vec![None; model.nodes().len()];
        for (slot, node) in mesh_nodes.iter().enumerate() {
            node_slots[node.index()] = u32::try_from(slot).ok();
        }
        let lane_len = count.div_ceil(LANES).max(1);
        let lane = Lane {
            pose: rest.clone(),
            layer: rest.clone(),
            locals: LocalMatrices::new(model.nodes().len()),
            world: vec![Affine3A::IDENTITY; model.nodes().len()],
            cursors: model.clips().iter().map(ClipCursor::new).collect(),
        };
        Self {
            members,
            lanes: vec![lane; count.div_ceil(lane_len).max(1)],
            updates: 0,
            lane_len,
            // At least one entry per instance, so that the per-instance chunks line up even for a
            // model without skins, meshes or morph weights.
            palettes: vec![Mat4::IDENTITY; count * palette_stride.max(1)],
            node_worlds: vec![Affine3A::IDENTITY; count * mesh_nodes.len().max(1)],
            mesh_nodes,
            node_slots,
            weights: vec![0.0; count * model.weight_count.max(1)],
            palette_stride,
            skin_offsets,
            skins: model.skins().iter().map(PreparedSkin::new).collect(),
            rest,
            clip_secs,
            covers_pose,
            hierarchy: model.hierarchy.clone(),
            settings: SampleSettings::default(),
            spacing,
            bounds,
        }
    }

    /// Number of instances.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// True for an empty crowd.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Space the crowd covers (for framing the camera).
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// Palette entries per instance.
    pub fn palette_stride(&self) -> usize {
        self.palette_stride
    }

    /// Skinning palettes of every instance, instance-major ([`Self::palette_stride`] each).
    pub fn palettes(&self) -> &[Mat4] {
        &self.palettes[..self.members.len() * self.palette_stride]
    }

    /// Placed transforms of the nodes that carry a mesh ([`Self::node_slots`]), instance-major:
    /// `max(1, mesh nodes)` per instance.
    pub fn node_worlds(&self) -> &[Affine3A] {
        &self.node_worlds
    }

    /// Per node of the model: its index among an instance's [`Self::node_worlds`] (`None` for a
    /// node without a mesh, whose transform the crowd does not keep).
    pub fn node_slots(&self) -> &[Option<u32>] {
        &self.node_slots
    }

    /// Instance `index`'s placed transform of `node` from the last update, for a node that
    /// carries a mesh.
    pub fn node_world(&self, index: usize, node: NodeId) -> Option<Affine3A> {
        let slot = self.node_slots.get(node.index()).copied().flatten()? as usize;
        self.node_worlds.get(index * self.mesh_nodes.len().max(1) + slot).copied()
    }

    /// Morph weights of every instance, instance-major.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The placed pose of instance `index` at the last update (its roots turned and moved to
    /// its grid cell): what [`Self::palettes`] was computed from, sampled again. Allocates.
    pub fn pose(&self, model: &Model, index: usize) -> Option<SoaPose> {
        let member = self.members.get(index)?;
        let job = Job { model, settings: &self.settings, rest: &self.rest, covers_pose: &self.covers_pose };
        let mut cursors: Vec<ClipCursor> = model.clips().iter().map(ClipCursor::new).collect();
        let (mut pose, mut layer) = (self.rest.clone(), self.rest.clone());
        job.pose(member, &mut cursors, &mut pose, &mut layer);
        self.hierarchy.place_roots(&mut pose, member.yaw, member.offset);
        Some(pose)
    }

    /// The clip instance `index` is playing (or fading to).
    pub fn current_clip(&self, index: usize) -> Option<ClipId> {
        self.members.get(index).map(Member::current_clip)
    }

    /// Total cross-fades in progress.
    pub fn fading(&self) -> usize {
        self.members.iter().filter(|m| m.play_count > 1).count()
    }

    /// Advance every instance by `dt_secs` (each at its own speed, cross-fading to another clip
    /// every few seconds) and recompute all palettes, in parallel. Allocates nothing.
    ///
    /// Every few updates the instances are first put in (clip, phase) order; the order of
    /// [`Self::palettes`] is that order (each instance's placement is in its palette, so the picture does not
    /// depend on it).
    pub fn update(&mut self, model: &Model, dt_secs: f32) {
        let dt = if dt_secs.is_finite() { dt_secs.clamp(0.0, 0.25) } else { 0.0 };
        let clip_secs = &self.clip_secs;
        // In place, no allocation; the keys were computed by the last update, in parallel.
        if self.updates.is_multiple_of(SORT_EVERY) {
            self.members.sort_unstable_by_key(|m| m.order);
        }
        self.updates += 1;
        let nodes = model.nodes().len();
        let (stride, weight_count, lane_len) = (self.palette_stride.max(1), model.weight_count.max(1), self.lane_len);
        let world_stride = self.mesh_nodes.len().max(1);
        let (mesh_nodes, skins, skin_offsets) = (&self.mesh_nodes, &self.skins, &self.skin_offsets);
        let job = Job { model, settings: &self.settings, rest: &self.rest, covers_pose: &self.covers_pose };
        let members = self.members.par_chunks_mut(lane_len);
        let palettes = self.palettes.par_chunks_mut(lane_len * stride);
        let worlds = self.node_worlds.par_chunks_mut(lane_len * world_stride);
        let weights = self.weights.par_chunks_mut(lane_len * weight_count);
        members.zip(self.lanes.par_iter_mut()).zip(palettes).zip(worlds).zip(weights).for_each(
            |((((members, lane), palettes), worlds), weights)| {
                let outputs = palettes
                    .chunks_mut(stride)
                    .zip(worlds.chunks_mut(world_stride))
                    .zip(weights.chunks_mut(weight_count));
                for (member, ((palette, world_out), weights)) in members.iter_mut().zip(outputs) {
                    member.advance(dt, clip_secs);
                    job.pose(member, &mut lane.cursors, &mut lane.pose, &mut lane.layer);
                    // The pose stays as sampled; each root's parent is the instance's placement.
                    if lane.world.len() == nodes && lane.pose.len() == nodes {
                        model.hierarchy.local_to_model_placed(
                            &lane.pose,
                            &mut lane.locals,
                            &member.placement(),
                            &mut lane.world,
                        );
                    }
                    for (skin, &offset) in skins.iter().zip(skin_offsets) {
                        if let Some(out) = palette.get_mut(offset..offset + skin.len()) {
                            skin.skinning_matrices(&lane.world, out);
                        }
                    }
                    for (out, node) in world_out.iter_mut().zip(mesh_nodes) {
                        *out = lane.world.get(node.index()).copied().unwrap_or(Affine3A::IDENTITY);
                    }
                    if weights.len() == lane.pose.weights().len() {
                        weights.copy_from_slice(lane.pose.weights());
                    }
                }
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mannequin() -> Model {
        anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model")
    }

    #[test]
    fn instances_stand_apart_play_different_clips_and_cross_fade() {
        let model = mannequin();
        let mut crowd = Crowd::new(&model, 25, 7);
        assert_eq!(crowd.len(), 25);
        assert_eq!(crowd.palettes().len(), 25 * crowd.palette_stride());
        crowd.update(&model, 1.0 / 60.0);
        let clips: std::collections::HashSet<ClipId> = (0..25).filter_map(|i| crowd.current_clip(i)).collect();
        assert_eq!(clips.len(), model.clips().len().min(25), "every clip is played by someone");
        // The hips of each instance stand in its own grid cell.
        let hips = model.skins()[0].joints[0].index();
        let positions: Vec<Vec3> = (0..25)
            .map(|i| {
                let pose = crowd.pose(&model, i).expect("pose");
                let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
                model.hierarchy.local_to_model(&pose, &mut LocalMatrices::default(), &mut world);
                world[hips].translation.into()
            })
            .collect();
        for (i, a) in positions.iter().enumerate() {
            for b in &positions[i + 1..] {
                assert!(a.distance(*b) > crowd.spacing * 0.4, "{a} and {b} overlap");
            }
        }
        let mut faded = 0;
        for _ in 0..600 {
            crowd.update(&model, 1.0 / 60.0);
            faded = faded.max(crowd.fading());
        }
        assert!(faded > 0, "instances cross-fade between clips");
        assert!(crowd.palettes().iter().all(glam::Mat4::is_finite));
    }

    #[test]
    fn the_same_seed_gives_the_same_crowd() {
        let model = mannequin();
        let (mut a, mut b) = (Crowd::new(&model, 9, 3), Crowd::new(&model, 9, 3));
        for _ in 0..120 {
            a.update(&model, 1.0 / 60.0);
            b.update(&model, 1.0 / 60.0);
        }
        assert_eq!(a.palettes(), b.palettes());
        let mut c = Crowd::new(&model, 9, 4);
        c.update(&model, 1.0 / 60.0);
        assert_ne!(a.palettes(), c.palettes());
    }

    #[test]
    fn palettes_are_the_placed_poses_of_the_one_pipeline_under_any_settings() {
        let model = mannequin();
        let skin = PreparedSkin::new(&model.skins()[0]);
        for mode in anim::InterpolationOverride::ALL {
            let mut crowd = Crowd::new(&model, 12, 5);
            crowd.settings.mode = mode;
            for _ in 0..200 {
                crowd.update(&model, 1.0 / 60.0);
            }
            assert!(crowd.fading() > 0 || mode != anim::InterpolationOverride::Authored || crowd.len() == 12);
            // Instance 3's palette and node transforms, recomputed from its placed pose.
            let pose = crowd.pose(&model, 3).expect("pose");
            let mut world = vec![Affine3A::IDENTITY; model.nodes().len()];
            model.hierarchy.local_to_model(&pose, &mut LocalMatrices::default(), &mut world);
            let mut palette = vec![Mat4::IDENTITY; skin.len()];
            skin.skinning_matrices(&world, &mut palette);
            let stride = crowd.palette_stride();
            let mut worst = 0.0f32;
            for (a, b) in crowd.palettes()[3 * stride..3 * stride + skin.len()].iter().zip(&palette) {
                worst = worst.max((*a - *b).abs().to_cols_array().into_iter().fold(0.0, f32::max));
            }
            assert!(worst < 1e-4, "{mode}: palettes differ from the placed pose by {worst:e}");
            // The transforms kept for the nodes that carry a mesh are the same pass's.
            let meshes: Vec<NodeId> = model.node_ids().filter(|&n| model[n].mesh.is_some()).collect();
            assert!(!meshes.is_empty());
            for &node in &meshes {
                let stored: Vec3 = crowd.node_world(3, node).expect("a mesh node").translation.into();
                assert!(stored.distance(world[node.index()].translation.into()) < 1e-4, "{mode}: placed mesh nodes");
            }
            assert_eq!(crowd.node_world(3, skin.joints()[0]), None, "joints without a mesh are not kept");
        }
    }
}
