//! Crowd mode: many copies of one model on a grid, each with its own clip, phase, speed and
//! cross-fades, updated in parallel (rayon) into one instance-major buffer of skinning palettes
//! that the renderer draws with GPU instancing ([`crate::render::CrowdView`]).
//!
//! Each instance runs the animation core's one pipeline: its cross-fade sampled and blended in
//! blocks of eight nodes ([`CrossFader::evaluate`], with the crowd's sample settings), the
//! local→model pass with the instance's placement as the roots' parent
//! ([`anim::Hierarchy::local_to_model_placed`]) and prepared skinning palettes.
//!
//! Per frame nothing is allocated: every instance owns its fader, pose and node transforms, and
//! the palettes, node transforms and morph weights of all instances live in three buffers sized
//! once. Call [`init_thread_pool`] on the thread that updates crowds: it makes that thread one of
//! rayon's workers, so a frame's work is pushed onto its own (reused) deque; from any other
//! thread rayon injects the job through a queue that allocates a block every 63 frames.

use anim::rng::Rng;
use anim::{ClipId, CrossFader, Easing, LocalMatrices, Model, PreparedSkin, SampleSettings, SoaPose};
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

/// Most instances a crowd may have (memory: about 100 KB per instance of a 64-joint model).
pub const MAX_CROWD: usize = 20_000;

/// One character of the crowd.
#[derive(Debug, Clone)]
struct Member {
    fader: CrossFader,
    /// Scratch of the local→model pass.
    locals: LocalMatrices,
    /// Where it stands: turned about +Y by `yaw`, then moved by `offset`.
    yaw: Quat,
    offset: Vec3,
    /// Playback speed factor.
    speed: f32,
    /// Seconds until the next cross-fade.
    next_fade_secs: f32,
    rng: Rng,
}

/// Many animated copies of one model.
#[derive(Debug, Clone)]
pub struct Crowd {
    members: Vec<Member>,
    /// Palettes of every instance (`palette_stride` each), placement included.
    palettes: Vec<Mat4>,
    /// Placed model-space transforms of every node of every instance.
    node_worlds: Vec<Affine3A>,
    /// Morph weights of every instance.
    weights: Vec<f32>,
    palette_stride: usize,
    skin_offsets: Vec<usize>,
    /// The model's skins prepared for fast palettes.
    skins: Vec<PreparedSkin>,
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
        let clips = model.clips.len();
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
        let members = (0..count)
            .map(|i| {
                let mut rng = Rng::new(seed ^ (i as u64).wrapping_mul(0xA076_1D64_78BD_642F));
                let clip = ClipId::from_index(if clips > 0 { i % clips } else { 0 });
                let mut fader = CrossFader::new(model, clip);
                if let Some(c) = model.clip(clip) {
                    fader.play(clip, rng.range(0.0, c.end_secs().max(1e-3)));
                }
                let (row, column) = (i / side, i % side);
                let jitter = Vec3::new(rng.range(-0.15, 0.15), 0.0, rng.range(-0.15, 0.15));
                Member {
                    fader,
                    locals: LocalMatrices::new(model.nodes.len()),
                    yaw: Quat::from_rotation_y(rng.range(-0.6, 0.6)),
                    offset: Vec3::new(column as f32 * spacing - centre, 0.0, row as f32 * spacing - centre)
                        + jitter * spacing,
                    speed: rng.range(0.85, 1.15),
                    next_fade_secs: rng.range(0.5, 4.0),
                    rng,
                }
            })
            .collect();
        let mut skin_offsets = Vec::with_capacity(model.skins.len());
        let mut palette_stride = 0;
        for skin in &model.skins {
            skin_offsets.push(palette_stride);
            palette_stride += skin.joints.len();
        }
        let half = centre + spacing;
        let mut bounds = footprint;
        if bounds.is_empty() {
            bounds = Aabb { min: Vec3::splat(-0.5), max: Vec3::splat(0.5) };
        }
        let bounds = Aabb { min: Vec3::new(-half, bounds.min.y, -half), max: Vec3::new(half, bounds.max.y, half) };
        Self {
            members,
            // At least one entry per instance, so that the per-instance chunks line up even for a
            // model without skins, nodes or morph weights.
            palettes: vec![Mat4::IDENTITY; count * palette_stride.max(1)],
            node_worlds: vec![Affine3A::IDENTITY; count * model.nodes.len().max(1)],
            weights: vec![0.0; count * model.weight_count.max(1)],
            palette_stride,
            skin_offsets,
            skins: model.skins.iter().map(PreparedSkin::new).collect(),
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

    /// Placed node transforms of every instance, instance-major.
    pub fn node_worlds(&self) -> &[Affine3A] {
        &self.node_worlds
    }

    /// Morph weights of every instance, instance-major.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The placed pose of instance `index` from the last update (its roots turned and moved to
    /// its grid cell): what [`Self::palettes`] was computed from. Allocates (a copy).
    pub fn pose(&self, index: usize) -> Option<SoaPose> {
        let member = self.members.get(index)?;
        let mut pose = member.fader.output().clone();
        self.hierarchy.place_roots(&mut pose, member.yaw, member.offset);
        Some(pose)
    }

    /// The clip instance `index` is playing (or fading to).
    pub fn current_clip(&self, index: usize) -> Option<ClipId> {
        self.members.get(index).map(|m| m.fader.current_clip())
    }

    /// Total cross-fades in progress.
    pub fn fading(&self) -> usize {
        self.members.iter().filter(|m| m.fader.is_fading()).count()
    }

    /// Advance every instance by `dt_secs` (each at its own speed, cross-fading to another clip
    /// every few seconds) and recompute all palettes, in parallel. Allocates nothing.
    pub fn update(&mut self, model: &Model, dt_secs: f32) {
        let dt = if dt_secs.is_finite() { dt_secs.clamp(0.0, 0.25) } else { 0.0 };
        let nodes = model.nodes.len();
        let (stride, weight_count) = (self.palette_stride, model.weight_count);
        let settings = &self.settings;
        let skin_offsets = &self.skin_offsets;
        let skins = &self.skins;
        let clips = model.clips.len();
        // Chunks of one instance each; zip keeps the buffers split per instance without copies.
        let palettes = self.palettes.par_chunks_mut(stride.max(1));
        let worlds = self.node_worlds.par_chunks_mut(nodes.max(1));
        let weights = self.weights.par_chunks_mut(weight_count.max(1));
        self.members.par_iter_mut().zip(palettes).zip(worlds).zip(weights).for_each(
            |(((member, palette), world), weights)| {
                member.fader.advance(dt * member.speed);
                member.next_fade_secs -= dt;
                if member.next_fade_secs <= 0.0 && clips > 1 {
                    let current = member.fader.current_clip().index();
                    let step = 1 + member.rng.below(clips - 1);
                    let duration = member.rng.range(0.2, 0.8);
                    member.fader.trigger(ClipId::from_index((current + step) % clips), duration, Easing::Smoothstep);
                    member.next_fade_secs = member.rng.range(2.0, 6.0);
                }
                // The pose stays as sampled; each root's parent is the instance's placement.
                let pose = member.fader.evaluate(model, settings);
                let placement = Affine3A::from_rotation_translation(member.yaw, member.offset);
                if world.len() == nodes && pose.len() == nodes {
                    model.hierarchy.local_to_model_placed(pose, &mut member.locals, &placement, world);
                }
                for (skin, &offset) in skins.iter().zip(skin_offsets) {
                    if let Some(out) = palette.get_mut(offset..offset + skin.len()) {
                        skin.skinning_matrices(world, out);
                    }
                }
                if weights.len() == pose.weights().len() {
                    weights.copy_from_slice(pose.weights());
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
        assert_eq!(clips.len(), model.clips.len().min(25), "every clip is played by someone");
        // The hips of each instance stand in its own grid cell.
        let nodes = model.nodes.len();
        let hips = model.skins[0].joints[0].index();
        let positions: Vec<Vec3> = (0..25).map(|i| crowd.node_worlds()[i * nodes + hips].translation.into()).collect();
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
        let skin = PreparedSkin::new(&model.skins[0]);
        for mode in anim::InterpolationOverride::ALL {
            let mut crowd = Crowd::new(&model, 12, 5);
            crowd.settings.mode = mode;
            for _ in 0..200 {
                crowd.update(&model, 1.0 / 60.0);
            }
            assert!(crowd.fading() > 0 || mode != anim::InterpolationOverride::Authored || crowd.len() == 12);
            // Instance 3's palette and node transforms, recomputed from its placed pose.
            let pose = crowd.pose(3).expect("pose");
            let mut world = vec![Affine3A::IDENTITY; model.nodes.len()];
            model.hierarchy.local_to_model(&pose, &mut LocalMatrices::default(), &mut world);
            let mut palette = vec![Mat4::IDENTITY; skin.len()];
            skin.skinning_matrices(&world, &mut palette);
            let stride = crowd.palette_stride();
            let mut worst = 0.0f32;
            for (a, b) in crowd.palettes()[3 * stride..3 * stride + skin.len()].iter().zip(&palette) {
                worst = worst.max((*a - *b).abs().to_cols_array().into_iter().fold(0.0, f32::max));
            }
            assert!(worst < 1e-4, "{mode}: palettes differ from the placed pose by {worst:e}");
            let hips = skin.joints()[0].index();
            let stored: Vec3 = crowd.node_worlds()[3 * model.nodes.len() + hips].translation.into();
            assert!(stored.distance(world[hips].translation.into()) < 1e-4, "{mode}: the roots are placed");
        }
    }
}
