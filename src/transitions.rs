//! Transition quality, measured: a clip played, a transition to another triggered on the
//! core's `CrossFader` (any kind, phase-synced, speed-matched, root motion as authored or in
//! place), and the handover's figures — the velocity jump at the trigger, joint acceleration,
//! foot slide, `pop` (as the ragdoll report defines it) and root drift; the rig facts they need
//! (feet from names or the lowest chains, metres per unit, foot-contact markers); and the
//! engine export of a profile's transition table. `animtune transition` prints these; the
//! viewer shows them live.

use std::fmt::Write as _;

use anim::{
    BlendSpacePlayer, ClipId, CrossFader, FootContact, LocalMatrices, Model, NodeId, RootMotion, SampleSettings,
    Transition,
};
use glam::{Affine3A, Vec3};
use serde::Serialize;

use crate::motion::Pop;
use crate::physics::RagdollSpec;
use crate::physics::anatomy::BoneKind;
/// Frame rate of the simulated playback (the rate the viewer shows).
pub const FRAME_HZ: f32 = 60.0;

/// Frames the source plays before the trigger.
const LEAD_IN_FRAMES: usize = 30;

/// A foot is planted when it is within this fraction of its clips' height range above its
/// lowest point ...
pub(crate) const PLANTED_FRACTION: f32 = 0.2;

/// ... and moves up or down slower than this fraction of its clips' fastest vertical speed.
pub(crate) const PLANTED_VERTICAL_FRACTION: f32 = 0.1;

/// A clip is cyclic when its last pose is within this fraction of the character's size of its
/// first (joints relative to their centroid, so a clip that travels still loops).
const CYCLIC_FRACTION: f32 = 0.05;

/// A foot that rises less than this (metres) over a clip never leaves the ground in it.
pub(crate) const MIN_LIFT_M: f32 = 0.03;

/// Where the target starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Sync {
    /// From its start.
    #[default]
    None,
    /// At the source's phase by foot-contact markers (`anim::synced_start_secs`), only between
    /// cyclic clips and only where it slides the feet no more than starting the target from
    /// its start (both are measured; the better start is kept).
    Phase,
}

impl Sync {
    /// Stable name (`none`, `phase`).
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Phase => "phase",
        }
    }
}

/// How one pair transitions: everything but the clips and the trigger time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairSettings {
    /// The transition (its `start_secs` and `match_cycle_secs` are filled in per trigger).
    pub transition: Transition,
    /// Where the target starts.
    pub sync: Sync,
    /// Speed matching on.
    pub match_speed: bool,
    /// Root motion.
    pub root_motion: RootMotion,
    /// Target loops after the transition.
    pub loops: u32,
    /// An explicit target start time (overrides `sync`).
    pub start_secs: Option<f32>,
}

/// The measured figures of one trigger.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TriggerMetrics {
    /// Source clip time of the trigger.
    pub at_secs: f32,
    /// Target clip time it started at (0 without sync, and with `--sync phase` where the clips
    /// do not both loop or the synced start slid the feet more than 0 did).
    pub target_start_secs: f32,
    /// Largest change of any joint's world velocity that the trigger causes: its velocity over
    /// the frame after the trigger against the velocity it had playing the source on over the
    /// same frame, m/s (0 for a transition that changes nothing at its instant).
    pub velocity_jump_mps: f32,
    /// Largest change of any joint's world velocity between the frame before the trigger and
    /// the frame after it, the clips' own acceleration included, m/s.
    pub velocity_change_mps: f32,
    /// Largest joint acceleration during the transition, m/s².
    pub max_joint_accel_mps2: f32,
    /// Horizontal motion of planted feet during the transition, relative to the ground under
    /// them (which moves with the clips' own stance speed for in-place clips), metres.
    pub foot_slide_m: f32,
    /// Largest per-frame joint displacement in the 3 frames after the trigger over the larger of
    /// the largest in the 3 frames before and `playback_max_step_m` (plain playback of either
    /// clip), so a still source cannot blow it up (`motion::Pop`, the ragdoll report's
    /// definition; `null` when nothing moves).
    pub pop: Option<f32>,
    /// Largest per-frame joint displacement in the 3 frames up to the trigger, metres.
    pub displacement_before_m: f32,
    /// Largest per-frame joint displacement in the 3 frames after it, metres.
    pub displacement_after_m: f32,
    /// Largest per-frame joint displacement during the transition, metres.
    pub max_step_m: f32,
    /// With root motion in place: largest horizontal distance of the root from its anchor over
    /// the run, in model space (the root's parents applied), metres (`null` as authored).
    pub root_drift_m: Option<f32>,
    /// Horizontal length of the character offset at the end of the run, in model space (the
    /// root's parents applied: the same for a rig under an `Armature` scaled 0.01 and at any
    /// scale), metres.
    pub character_offset_m: f32,
    /// No NaN or infinity in any frame.
    pub finite: bool,
}

/// The worst of each figure over the triggers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorstMetrics {
    /// Largest `velocity_jump_mps`.
    pub velocity_jump_mps: f32,
    /// Largest `max_joint_accel_mps2`.
    pub max_joint_accel_mps2: f32,
    /// Largest `foot_slide_m`.
    pub foot_slide_m: f32,
    /// Largest `pop`.
    pub pop: Option<f32>,
    /// Largest `root_drift_m`.
    pub root_drift_m: Option<f32>,
}

/// `animtune transition`'s report for one pair.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TransitionReport {
    /// Source clip.
    pub from: String,
    /// Target clip.
    pub to: String,
    /// `crossfade`, `inertialize` or `dead-blend`.
    pub kind: String,
    /// Fade or decay length, seconds.
    pub duration_secs: f32,
    /// Easing of the fade weight.
    pub easing: String,
    /// Inertialization decay curve.
    pub decay: String,
    /// Dead blending's velocity half-life, seconds.
    pub half_life_secs: f32,
    /// `none` or `phase`.
    pub sync: String,
    /// Speed matching on.
    pub match_speed: bool,
    /// `authored` or `in-place`.
    pub root_motion: String,
    /// Target loops played after the transition.
    pub loops: u32,
    /// Frames per second of the simulated playback.
    pub frame_hz: f32,
    /// Metres per model unit (the character scaled to 1.7 m, as the ragdoll simulates it).
    pub metres_per_unit: f32,
    /// The feet measured for `foot_slide_m` (from names, else the lowest chains).
    pub feet: Vec<String>,
    /// Foot contacts of the source and target clips (seconds, per foot) used by phase sync.
    pub source_contacts: Vec<Contact>,
    /// See `source_contacts`.
    pub target_contacts: Vec<Contact>,
    /// Stance speed of each clip: how fast a planted foot moves over the ground it stands on
    /// (an in-place walk's treadmill), m/s, horizontal.
    pub source_stance_speed_mps: f32,
    /// See `source_stance_speed_mps`.
    pub target_stance_speed_mps: f32,
    /// Largest per-frame joint displacement of plain playback of the source and the target
    /// (the yardstick of interruption safety: 1.5× this is a jump), metres.
    pub playback_max_step_m: f32,
    /// Largest joint acceleration (second difference) of plain playback of the source and the
    /// target, loop seams included, m/s² (the yardstick of `max_joint_accel_mps2`).
    pub playback_max_accel_mps2: f32,
    /// One entry per trigger time.
    pub runs: Vec<TriggerMetrics>,
    /// Worst over the runs.
    pub worst: WorstMetrics,
}

/// A foot contact in a report or export.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Contact {
    /// The foot's node name.
    pub foot: String,
    /// Clip time, seconds.
    pub time_secs: f32,
}

/// What the measurements need to know about the model, found once.
pub struct Rig {
    /// Joints measured (the first skin's, else every node).
    joints: Vec<usize>,
    /// Feet: node and name.
    feet: Vec<(NodeId, String)>,
    /// Metres per model unit.
    metres_per_unit: f32,
    /// Character size, model units.
    size: f32,
    /// Per foot, the ground it stands on (model units, +Y; `anim::foot_ground_heights`).
    ground: Vec<f32>,
}

impl Rig {
    /// Feet from the ragdoll anatomy (bone names, else the skeleton's geometry), else nodes named
    /// "foot", else the two lowest leaf chains' ends; sizes from the ragdoll layout; the ground
    /// under each foot from every clip (allocates and samples every clip: once per model).
    pub fn new(model: &Model) -> Self {
        let n = model.nodes().len();
        let name = |node: usize| {
            model.nodes().get(node).and_then(|n| n.name.clone()).unwrap_or_else(|| format!("node_{node}"))
        };
        let spec = RagdollSpec::from_model(model).ok();
        let joints: Vec<usize> = match model.skins().first() {
            Some(skin) => skin.joints.iter().map(|j| j.index()).filter(|&j| j < n).collect(),
            None => (0..n).collect(),
        };
        let mut world = vec![Affine3A::IDENTITY; n];
        model.hierarchy.local_to_model(&model.rest_pose(), &mut LocalMatrices::new(n), &mut world);
        let height = |node: usize| world.get(node).map_or(f32::MAX, |w| w.translation.y);
        let mut feet: Vec<usize> = spec
            .iter()
            .flat_map(|s| s.bodies.iter().filter(|b| b.kind == BoneKind::Foot).map(|b| b.node.index()))
            .collect();
        if feet.is_empty() {
            feet = joints.iter().copied().filter(|&j| name(j).to_lowercase().contains("foot")).collect();
        }
        if feet.is_empty() {
            // The lowest chains: leaf joints, lowest first; their parents are the feet.
            let mut leaves: Vec<usize> = joints
                .iter()
                .copied()
                .filter(|&j| {
                    !joints.iter().any(|&c| model.hierarchy.parent(NodeId::from_index(c)).map(NodeId::index) == Some(j))
                })
                .collect();
            leaves.sort_by(|&a, &b| height(a).total_cmp(&height(b)));
            feet = leaves.into_iter().take(2).collect();
        }
        feet.sort_unstable();
        feet.dedup();
        let (size, metres_per_unit) = spec.as_ref().map_or_else(
            || {
                let (lo, hi) = joints.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), &j| {
                    let p = Vec3::from(world[j].translation);
                    (lo.min(p), hi.max(p))
                });
                let size = (hi - lo).max_element();
                if size.is_finite() && size > 0.0 { (size, 1.0) } else { (1.0, 1.0) }
            },
            |s| (s.size, s.metres_per_unit),
        );
        let feet: Vec<(NodeId, String)> = feet.into_iter().map(|f| (NodeId::from_index(f), name(f))).collect();
        let ground = anim::foot_ground_heights(model, &feet.iter().map(|(n, _)| *n).collect::<Vec<_>>());
        Self { joints, feet, metres_per_unit, size, ground }
    }

    /// The feet's nodes.
    fn foot_nodes(&self) -> Vec<NodeId> {
        self.feet.iter().map(|(n, _)| *n).collect()
    }

    /// Foot-contact markers of `clip` (automatic): once per stance of each foot that lifts at
    /// least 3 cm and reaches the ground its clips stand on (none in a clip in the air).
    pub fn contacts(&self, model: &Model, clip: ClipId) -> Vec<FootContact> {
        anim::find_foot_contacts(model, clip, &self.foot_nodes(), MIN_LIFT_M / self.metres_per_unit, Some(&self.ground))
    }

    /// Phase markers of `clip` for a blend space: each foot's touch-downs (as [`Self::contacts`],
    /// foot `f`) and lift-offs (foot `f + feet`), by time — stance and swing aligned clip by
    /// clip.
    pub fn phase_markers(&self, model: &Model, clip: ClipId) -> Vec<FootContact> {
        let (feet, min_lift) = (self.foot_nodes(), MIN_LIFT_M / self.metres_per_unit);
        let mut markers = anim::find_foot_contacts(model, clip, &feet, min_lift, Some(&self.ground));
        let lifts = anim::find_foot_lift_offs(model, clip, &feet, min_lift, Some(&self.ground));
        markers.extend(lifts.into_iter().map(|c| FootContact { foot: c.foot + feet.len(), ..c }));
        markers.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
        markers
    }

    /// `clip` loops: its last pose is within 5 % of the character's size of its first, joints
    /// taken relative to their centroid (travel does not count).
    pub fn is_cyclic(&self, model: &Model, clip: ClipId) -> bool {
        let Some(c) = model.clip(clip) else { return false };
        let n = model.nodes().len();
        let mut locals = LocalMatrices::new(n);
        let mut pose = model.rest_pose();
        let mut at = |time_secs: f32| -> Vec<Vec3> {
            pose.copy_from(&model.rest_pose());
            c.sample(time_secs, &mut anim::ClipCursor::new(c), &SampleSettings::default(), &mut pose);
            let mut world = vec![Affine3A::IDENTITY; n];
            model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
            let points: Vec<Vec3> = self.joints.iter().map(|&j| Vec3::from(world[j].translation)).collect();
            let centre = points.iter().copied().sum::<Vec3>() / points.len().max(1) as f32;
            points.into_iter().map(|p| p - centre).collect()
        };
        let (first, last) = (at(c.start_secs()), at(c.end_secs()));
        c.end_secs() > 0.0 && max_distance(&first, &last) <= CYCLIC_FRACTION * self.size
    }

    /// Stored markers (foot name, time) as contacts of this rig's feet (unknown feet and
    /// non-finite times dropped), by time.
    pub fn stored_contacts<'a>(&self, stored: impl Iterator<Item = (&'a str, f32)>) -> Vec<FootContact> {
        let mut contacts: Vec<FootContact> = stored
            .filter_map(|(foot, time_secs)| {
                let foot = self.feet.iter().position(|(_, n)| n == foot)?;
                time_secs.is_finite().then_some(FootContact { foot, time_secs })
            })
            .collect();
        contacts.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
        contacts
    }

    /// The feet's names.
    pub fn foot_names(&self) -> impl Iterator<Item = &str> {
        self.feet.iter().map(|(_, n)| n.as_str())
    }

    /// Contacts with their feet named.
    pub fn named(&self, contacts: &[FootContact]) -> Vec<Contact> {
        contacts
            .iter()
            .map(|c| Contact {
                foot: self.feet.get(c.foot).map_or_else(String::new, |(_, n)| n.clone()),
                time_secs: c.time_secs,
            })
            .collect()
    }
}

/// One frame of a run: joint world positions (character offset included), foot positions, and
/// what else the figures need.
struct Frame {
    joints: Vec<Vec3>,
    feet: Vec<Vec3>,
    target_weight: f32,
    root_drift: f32,
    finite: bool,
}

/// A fader's playback recorded frame by frame.
struct Recorder<'a> {
    model: &'a Model,
    rig: &'a Rig,
    locals: LocalMatrices,
    world: Vec<Affine3A>,
    settings: SampleSettings,
}

impl<'a> Recorder<'a> {
    fn new(model: &'a Model, rig: &'a Rig) -> Self {
        let n = model.nodes().len();
        Self {
            model,
            rig,
            locals: LocalMatrices::new(n),
            world: vec![Affine3A::IDENTITY; n],
            settings: SampleSettings::default(),
        }
    }

    /// A fader on `clip` at `time_secs` with `root_motion`.
    fn fader(&self, clip: ClipId, time_secs: f32, root_motion: RootMotion) -> CrossFader {
        let mut fader = CrossFader::new(self.model, clip);
        fader.play(clip, time_secs);
        fader.set_root_motion(self.model, Some(root_motion));
        fader
    }

    /// Evaluate `fader` now and record the frame.
    fn frame(&mut self, fader: &mut CrossFader, in_place: bool) -> Frame {
        fader.evaluate(self.model, &self.settings);
        let pose = fader.output();
        let finite = pose.is_finite();
        let drift = fader.root_motion().and_then(|(_, root)| pose.get(root)).map_or(0.0, |local| {
            fader.root_frame_to_model(fader.horizontal(local.translation - fader.root_anchor())).length()
        });
        self.model.hierarchy.local_to_model(pose, &mut self.locals, &mut self.world);
        // In place, the character offset moves the character; as authored it is in the pose.
        let offset = if in_place { self.offset_in_model(fader) } else { Vec3::ZERO };
        let at = |node: usize| Vec3::from(self.world[node].translation) + offset;
        Frame {
            joints: self.rig.joints.iter().map(|&j| at(j)).collect(),
            feet: self.rig.feet.iter().map(|(f, _)| at(f.index())).collect(),
            target_weight: fader.target_weight(),
            root_drift: drift,
            finite,
        }
    }

    /// The character offset (in the root's parent frame) in model space.
    fn offset_in_model(&self, fader: &CrossFader) -> Vec3 {
        let Some((_, root)) = fader.root_motion() else { return Vec3::ZERO };
        let parent = self.model.hierarchy.parent(root).and_then(|p| self.world.get(p.index()));
        parent.map_or(fader.character_offset(), |p| p.transform_vector3(fader.character_offset()))
    }
}

/// Feet over one clip played alone: lowest and highest point, and the stance velocity.
#[derive(Debug, Clone, Copy)]
struct FootStats {
    low: f32,
    high: f32,
    /// Fastest vertical speed (model units per second).
    fastest_vertical: f32,
    /// Mean horizontal velocity of planted feet (model units per second).
    stance_velocity: Vec3,
    /// Largest per-frame joint displacement (model units).
    max_step: f32,
    /// Largest joint second difference per frame² (model units per second²).
    max_accel: f32,
}

fn clip_stats(recorder: &mut Recorder, clip: ClipId, root_motion: RootMotion) -> Vec<FootStats> {
    let dt = 1.0 / FRAME_HZ;
    let model = recorder.model;
    let secs = model[clip].end_secs();
    let frames = ((secs * FRAME_HZ).ceil() as usize).max(2);
    let mut fader = recorder.fader(clip, 0.0, root_motion);
    let in_place = root_motion == RootMotion::InPlace;
    let mut run = Vec::with_capacity(frames + 1);
    for k in 0..=frames {
        if k > 0 {
            fader.advance(dt);
        }
        run.push(recorder.frame(&mut fader, in_place));
    }
    let max_step = run.windows(2).map(|w| max_distance(&w[1].joints, &w[0].joints)).fold(0.0, f32::max);
    let max_accel = run
        .windows(3)
        .map(|w| {
            let (a, b, c) = (&w[0].joints, &w[1].joints, &w[2].joints);
            a.iter().zip(b).zip(c).map(|((a, b), c)| (*c - 2.0 * *b + *a).length()).fold(0.0, f32::max)
        })
        .fold(0.0, f32::max)
        / (dt * dt);
    let feet = recorder.rig.feet.len();
    let mut stats: Vec<FootStats> = (0..feet)
        .map(|f| {
            let (low, high) =
                run.iter().fold((f32::MAX, f32::MIN), |(lo, hi), fr| (lo.min(fr.feet[f].y), hi.max(fr.feet[f].y)));
            let fastest_vertical =
                run.windows(2).map(|w| (w[1].feet[f].y - w[0].feet[f].y).abs() / dt).fold(0.0, f32::max);
            FootStats { low, high, fastest_vertical, stance_velocity: Vec3::ZERO, max_step, max_accel }
        })
        .collect();
    // Stance velocity: planted feet of either side, averaged.
    let mut sum = Vec3::ZERO;
    let mut count = 0usize;
    for w in run.windows(2) {
        for (f, s) in stats.iter().enumerate() {
            if s.planted(w[0].feet[f], w[1].feet[f], s, dt) {
                let v = (w[1].feet[f] - w[0].feet[f]) / dt;
                sum += Vec3::new(v.x, 0.0, v.z);
                count += 1;
            }
        }
    }
    let stance = if count > 0 { sum / count as f32 } else { Vec3::ZERO };
    for s in &mut stats {
        s.stance_velocity = stance;
    }
    stats
}

impl FootStats {
    /// A foot that moved from `p0` to `p1` in `dt` is planted: low and hardly moving up or down,
    /// by the heights and speeds of the clips of `self` and `other`.
    fn planted(&self, p0: Vec3, p1: Vec3, other: &Self, dt: f32) -> bool {
        let low = self.low.min(other.low);
        let range = (self.high - self.low).max(other.high - other.low);
        let fastest = self.fastest_vertical.max(other.fastest_vertical);
        let threshold = low + PLANTED_FRACTION * range;
        p0.y <= threshold && p1.y <= threshold && (p1.y - p0.y).abs() <= PLANTED_VERTICAL_FRACTION * fastest * dt
    }
}

/// How [`planted_slide`] tells a planted foot when several clips are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PlantedBy {
    /// The lowest point, largest height range and fastest vertical speed of any of the clips
    /// (a transition: the pose goes from one clip to the other).
    Extremes,
    /// Those of the clips weighted (a blend space: the pose is the weighted clips, at a
    /// clip's own position exactly that clip's).
    Weighted,
}

/// Horizontal motion (model units) of the planted feet from `p0` to `p1` over `dt`, against
/// the ground under them: `clips` are the clips shown with their weights (their feet's
/// [`FootStats`]); a foot is planted by `by`, and the ground moves at the clips' stance
/// velocities weighted. What `measure` sums over a transition and `measure_blend_space` over a
/// blend space.
fn planted_slide(clips: &[(&[FootStats], f32)], by: PlantedBy, p0: &[Vec3], p1: &[Vec3], dt: f32) -> f32 {
    let mut slide = 0.0;
    for (f, (&a, &b)) in p0.iter().zip(p1).enumerate() {
        let mut mixed: Option<FootStats> = None;
        let mut ground = Vec3::ZERO;
        let total: f32 = clips.iter().map(|&(_, w)| w).sum();
        for &(stats, w) in clips {
            let Some(s) = stats.get(f) else { continue };
            ground += w * s.stance_velocity;
            mixed = Some(match (mixed, by) {
                (None, PlantedBy::Extremes) => *s,
                (Some(m), PlantedBy::Extremes) => {
                    let low = m.low.min(s.low);
                    let high = low + (m.high - m.low).max(s.high - s.low);
                    FootStats { low, high, fastest_vertical: m.fastest_vertical.max(s.fastest_vertical), ..m }
                }
                (m, PlantedBy::Weighted) => {
                    let u = if total > 0.0 { w / total } else { 0.0 };
                    let m = m.unwrap_or(FootStats { low: 0.0, high: 0.0, fastest_vertical: 0.0, ..*s });
                    FootStats {
                        low: m.low + u * s.low,
                        high: m.high + u * s.high,
                        fastest_vertical: m.fastest_vertical + u * s.fastest_vertical,
                        ..m
                    }
                }
            });
        }
        if let Some(m) = mixed
            && m.planted(a, b, &m, dt)
        {
            let moved = b - a - ground * dt;
            slide += Vec3::new(moved.x, 0.0, moved.z).length();
        }
    }
    slide
}

/// Length of `v` (model space) along the ground: its +Y part left out.
fn horizontal_length(v: Vec3) -> f32 {
    Vec3::new(v.x, 0.0, v.z).length()
}

/// Largest distance between matching points.
fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    a.iter().zip(b).map(|(p, q)| p.distance(*q)).fold(0.0, f32::max)
}

/// Foot slide of `clip` played alone (root motion as authored), as the transition report
/// measures it: the horizontal motion of planted feet (low and hardly moving up or down, by the
/// clip's own heights and speeds) relative to the ground under them (which moves with the
/// clip's stance velocity for an in-place clip), summed over each stance of each foot; the
/// largest stance's sum, metres. 0 for a clip whose feet never plant.
pub fn clip_foot_slide(model: &Model, rig: &Rig, clip: ClipId) -> f32 {
    if model.clip(clip).is_none() || rig.feet.is_empty() {
        return 0.0;
    }
    let mut recorder = Recorder::new(model, rig);
    let stats = clip_stats(&mut recorder, clip, RootMotion::Authored);
    let dt = 1.0 / FRAME_HZ;
    let secs = model[clip].end_secs();
    let frames = ((secs * FRAME_HZ).ceil() as usize).max(2);
    let mut fader = recorder.fader(clip, 0.0, RootMotion::Authored);
    let mut previous = recorder.frame(&mut fader, false).feet;
    let mut stance = vec![0.0f32; stats.len()];
    let mut worst = 0.0f32;
    for _ in 0..frames {
        fader.advance(dt);
        let feet = recorder.frame(&mut fader, false).feet;
        for (f, s) in stats.iter().enumerate() {
            let (p0, p1) = (previous[f], feet[f]);
            if s.planted(p0, p1, s, dt) {
                let moved = p1 - p0 - s.stance_velocity * dt;
                stance[f] += horizontal_length(moved);
                worst = worst.max(stance[f]);
            } else {
                stance[f] = 0.0;
            }
        }
        previous = feet;
    }
    worst * rig.metres_per_unit
}

/// Measure `from → to` at each trigger time, with the clips' foot contacts given (edited
/// markers) or found automatically (`None`).
pub fn measure(
    model: &Model,
    rig: &Rig,
    from: ClipId,
    to: ClipId,
    at_secs: &[f32],
    settings: &PairSettings,
    contacts: Option<[Vec<FootContact>; 2]>,
) -> TransitionReport {
    measure_ends(model, rig, End::Clip(from), End::Clip(to), at_secs, settings, contacts)
}

/// One end of a measured transition: a clip, or a blend space at its parameter (its heaviest
/// clip standing in for the clip facts a report gives: contacts, stance speed, plain playback).
#[derive(Debug, Clone, Copy)]
pub enum End<'a> {
    /// A clip.
    Clip(ClipId),
    /// A blend space at its parameter. As a source it plays from phase 0, so a trigger at `at`
    /// seconds comes after `at` seconds of its playback; as a target it starts at phase 0.
    BlendSpace(&'a BlendSpacePlayer),
}

impl End<'_> {
    /// The clip (a blend space's heaviest point's).
    pub fn clip(&self) -> ClipId {
        match self {
            Self::Clip(clip) => *clip,
            Self::BlendSpace(player) => player.heaviest_clip(),
        }
    }

    /// Length of one cycle, seconds: the clip's, or the blend space's blended cycle.
    pub fn cycle_secs(&self, model: &Model) -> f32 {
        match self {
            Self::Clip(clip) => model.clips().get(clip.index()).map_or(0.0, anim::Clip::end_secs),
            Self::BlendSpace(player) => player.cycle_secs(),
        }
    }

    /// The name a report gives: the clip's, or `blend space NAME=X[,Y] ... at X[,Y]`.
    pub fn name(&self, model: &Model) -> String {
        let clip_name = |clip: ClipId| {
            model.clips().get(clip.index()).map_or_else(|| clip.index().to_string(), |c| c.display_name(clip.index()))
        };
        match self {
            Self::Clip(clip) => clip_name(*clip),
            Self::BlendSpace(player) => {
                let two_d = player.space().is_2d();
                let at = |p: glam::Vec2| if two_d { format!("{},{}", p.x, p.y) } else { format!("{}", p.x) };
                let points: Vec<String> = player
                    .space()
                    .points()
                    .iter()
                    .map(|p| format!("{}={}", clip_name(p.clip), at(p.position)))
                    .collect();
                format!("blend space {} at {}", points.join(" "), at(player.parameter()))
            }
        }
    }
}

/// Measure a transition between two ends — clips or blend spaces — at each trigger time (source
/// clip time, or seconds of a source blend space's playback from phase 0), as [`measure`]
/// measures one between clips: the same figures, a blend space's heaviest clip standing in for
/// its contacts, stance speed and plain playback. Phase sync and speed matching apply between
/// clips only (a blend-space target starts at phase 0; `start_secs` still sets a clip target's
/// start).
pub fn measure_ends(
    model: &Model,
    rig: &Rig,
    from: End,
    to: End,
    at_secs: &[f32],
    settings: &PairSettings,
    contacts: Option<[Vec<FootContact>; 2]>,
) -> TransitionReport {
    let mut recorder = Recorder::new(model, rig);
    let m = rig.metres_per_unit;
    let (from_clip, to_clip) = (from.clip(), to.clip());
    let source_stats = clip_stats(&mut recorder, from_clip, settings.root_motion);
    let target_stats = clip_stats(&mut recorder, to_clip, settings.root_motion);
    let [source_contacts, target_contacts] =
        contacts.unwrap_or_else(|| [rig.contacts(model, from_clip), rig.contacts(model, to_clip)]);
    let clips = matches!((from, to), (End::Clip(_), End::Clip(_)));
    // Phase sync only between cyclic clips, and only where it slides no more than no sync.
    let unsynced = PairSettings {
        start_secs: Some(settings.start_secs.unwrap_or(0.0)),
        match_speed: settings.match_speed && clips,
        ..*settings
    };
    let phase = settings.sync == Sync::Phase && settings.start_secs.is_none() && clips;
    let cyclic = phase && rig.is_cyclic(model, from_clip) && rig.is_cyclic(model, to_clip);
    let settings = if clips { settings } else { &unsynced };
    let runs: Vec<TriggerMetrics> = at_secs
        .iter()
        .map(|&at| {
            let stats = (&source_stats[..], &target_stats[..]);
            let contacts = (&source_contacts[..], &target_contacts[..]);
            if phase && !cyclic {
                return measure_trigger(&mut recorder, (from, to), at, &unsynced, stats, contacts);
            }
            let run = measure_trigger(&mut recorder, (from, to), at, settings, stats, contacts);
            if !phase || run.target_start_secs == 0.0 {
                return run;
            }
            let plain = measure_trigger(&mut recorder, (from, to), at, &unsynced, stats, contacts);
            if run.foot_slide_m <= plain.foot_slide_m { run } else { plain }
        })
        .collect();
    let worst_of = |f: fn(&TriggerMetrics) -> f32| runs.iter().map(f).fold(0.0f32, f32::max);
    let worst_opt = |f: fn(&TriggerMetrics) -> Option<f32>| runs.iter().filter_map(f).reduce(f32::max);
    let stance = |s: &[FootStats]| s.first().map_or(0.0, |s| s.stance_velocity.length() * m);
    let step = |s: &[FootStats]| s.first().map_or(0.0, |s| s.max_step);
    let accel = |s: &[FootStats]| s.first().map_or(0.0, |s| s.max_accel);
    let t = &settings.transition;
    TransitionReport {
        from: from.name(model),
        to: to.name(model),
        kind: t.kind.name().to_owned(),
        duration_secs: t.duration_secs,
        easing: t.easing.name().to_owned(),
        decay: t.decay.name().to_owned(),
        half_life_secs: t.half_life_secs,
        sync: settings.sync.name().to_owned(),
        match_speed: settings.match_speed,
        root_motion: settings.root_motion.name().to_owned(),
        loops: settings.loops,
        frame_hz: FRAME_HZ,
        metres_per_unit: m,
        feet: rig.feet.iter().map(|(_, n)| n.clone()).collect(),
        source_contacts: rig.named(&source_contacts),
        target_contacts: rig.named(&target_contacts),
        source_stance_speed_mps: stance(&source_stats),
        target_stance_speed_mps: stance(&target_stats),
        playback_max_step_m: step(&source_stats).max(step(&target_stats)) * m,
        playback_max_accel_mps2: accel(&source_stats).max(accel(&target_stats)) * m,
        worst: WorstMetrics {
            velocity_jump_mps: worst_of(|r| r.velocity_jump_mps),
            max_joint_accel_mps2: worst_of(|r| r.max_joint_accel_mps2),
            foot_slide_m: worst_of(|r| r.foot_slide_m),
            pop: worst_opt(|r| r.pop),
            root_drift_m: worst_opt(|r| r.root_drift_m),
        },
        runs,
    }
}

/// One run: the source from `at − lead-in`, the trigger at `at`, the transition and the loops.
fn measure_trigger(
    recorder: &mut Recorder,
    (from, to): (End, End),
    at: f32,
    settings: &PairSettings,
    (source_stats, target_stats): (&[FootStats], &[FootStats]),
    (source_contacts, target_contacts): (&[FootContact], &[FootContact]),
) -> TriggerMetrics {
    let model = recorder.model;
    let rig = recorder.rig;
    let dt = 1.0 / FRAME_HZ;
    let m = rig.metres_per_unit;
    let in_place = settings.root_motion == RootMotion::InPlace;
    let source_secs = from.cycle_secs(model);
    let target_secs = to.cycle_secs(model);
    let t = &settings.transition;
    let duration = if t.duration_secs.is_finite() { t.duration_secs.max(0.0) } else { 0.0 };
    let transition_frames = ((duration * FRAME_HZ).ceil() as usize).max(1);
    let after = (((duration + settings.loops as f32 * target_secs) * FRAME_HZ).ceil() as usize)
        .max(transition_frames + crate::motion::POP_FRAMES + 1);
    let trigger = LEAD_IN_FRAMES;
    let lead_in_secs = LEAD_IN_FRAMES as f32 * dt;
    let mut fader = recorder.fader(from.clip(), at - lead_in_secs, settings.root_motion);
    match (from, to) {
        (End::BlendSpace(player), _) => {
            // From phase 0, `at − lead-in` seconds on (a cycle later where that is before 0).
            let mut player = player.clone();
            player.set_phase(0.0);
            let cycle = player.cycle_secs();
            let start = if cycle > 0.0 { (at - lead_in_secs).rem_euclid(cycle) } else { 0.0 };
            player.advance(start);
            fader.set_blend_space(Some(player));
            fader.play_blend_space();
        }
        (End::Clip(_), End::BlendSpace(player)) => {
            let mut player = player.clone();
            player.set_phase(0.0);
            fader.set_blend_space(Some(player));
        }
        (End::Clip(_), End::Clip(_)) => {}
    }
    let mut frames: Vec<Frame> = Vec::with_capacity(trigger + after + 1);
    let mut target_start = 0.0;
    let mut plain_next = Vec::new();
    for k in 0..=trigger + after {
        if k > 0 {
            fader.advance(dt);
        }
        frames.push(recorder.frame(&mut fader, in_place));
        if k == trigger {
            // The source played on without the transition, for the frame after the trigger.
            let mut plain = fader.clone();
            plain.advance(dt);
            plain_next = recorder.frame(&mut plain, in_place).joints;
            let source_time = fader.current_time_secs();
            target_start = match settings.sync {
                _ if settings.start_secs.is_some() => settings.start_secs.unwrap_or(0.0),
                Sync::None => 0.0,
                Sync::Phase => anim::synced_start_secs(
                    source_secs,
                    source_time,
                    source_contacts,
                    target_secs,
                    target_contacts,
                    duration,
                ),
            };
            let transition = Transition {
                start_secs: target_start,
                match_cycle_secs: if settings.match_speed { source_secs } else { 0.0 },
                ..*t
            };
            match to {
                End::Clip(to) => fader.transition(model, &recorder.settings, to, &transition),
                End::BlendSpace(_) => fader.transition_to_blend_space(model, &recorder.settings, &transition),
            }
        }
    }

    // Velocity jump: the second difference across the trigger (frames k−1, k, k+1).
    let second_difference = |k: usize| -> f32 {
        let (a, b, c) = (&frames[k - 1].joints, &frames[k].joints, &frames[k + 1].joints);
        a.iter().zip(b).zip(c).map(|((a, b), c)| (*c - 2.0 * *b + *a).length()).fold(0.0, f32::max)
    };
    let velocity_change = second_difference(trigger) / dt * m;
    let velocity_jump =
        frames[trigger + 1].joints.iter().zip(&plain_next).map(|(p, s)| p.distance(*s)).fold(0.0, f32::max) / dt * m;
    let last = frames.len() - 2;
    let max_accel =
        (trigger..=(trigger + transition_frames).min(last)).map(second_difference).fold(0.0, f32::max) / (dt * dt) * m;
    let displacement: Vec<f32> = (0..frames.len())
        .map(|k| if k == 0 { 0.0 } else { max_distance(&frames[k].joints, &frames[k - 1].joints) })
        .collect();
    let playback_step = |s: &[FootStats]| s.first().map_or(0.0, |s| s.max_step);
    let reference = playback_step(source_stats).max(playback_step(target_stats));
    let pop = Pop::measure(&displacement, trigger, reference, 1e-6 * rig.size);
    let max_step = displacement[trigger + 1..=(trigger + transition_frames).min(frames.len() - 1)]
        .iter()
        .copied()
        .fold(0.0, f32::max);

    // Foot slide relative to the ground under the feet: a planted foot of an in-place clip
    // moves with the clip's stance velocity, blended as the transition blends the clips.
    let mut slide = 0.0f32;
    for k in trigger + 1..=(trigger + transition_frames).min(frames.len() - 1) {
        let w = frames[k].target_weight;
        let clips = [(source_stats, 1.0 - w), (target_stats, w)];
        slide += planted_slide(&clips, PlantedBy::Extremes, &frames[k - 1].feet, &frames[k].feet, dt);
    }
    let root_drift = in_place.then(|| frames.iter().map(|f| f.root_drift).fold(0.0, f32::max) * m);
    TriggerMetrics {
        at_secs: at,
        target_start_secs: target_start,
        velocity_jump_mps: velocity_jump,
        velocity_change_mps: velocity_change,
        max_joint_accel_mps2: max_accel,
        foot_slide_m: slide * m,
        pop: pop.pop,
        displacement_before_m: pop.before * m,
        displacement_after_m: pop.after * m,
        max_step_m: max_step * m,
        root_drift_m: root_drift,
        character_offset_m: horizontal_length(fader.character_offset_in_model()) * m,
        finite: frames.iter().all(|f| f.finite),
    }
}

impl TransitionReport {
    /// Human-readable rendering.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} -> {}: {} {:.3} s ({}, decay {}, half-life {:.3} s), sync {}{}, root motion {}, {} loop(s)",
            self.from,
            self.to,
            self.kind,
            self.duration_secs,
            self.easing,
            self.decay,
            self.half_life_secs,
            self.sync,
            if self.match_speed { ", speed matched" } else { "" },
            self.root_motion,
            self.loops
        );
        let _ = writeln!(
            s,
            "  feet {}; stance speed {:.3} -> {:.3} m/s; plain playback moves up to {:.4} m per frame",
            self.feet.join(", "),
            self.source_stance_speed_mps,
            self.target_stance_speed_mps,
            self.playback_max_step_m
        );
        let opt = |v: Option<f32>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
        let _ =
            writeln!(s, "  at (s)  start (s)  vel jump (m/s)  max accel (m/s²)  foot slide (m)  pop    root drift (m)");
        for r in &self.runs {
            let _ = writeln!(
                s,
                "  {:6.3}  {:9.3}  {:14.3}  {:16.2}  {:14.4}  {:5}  {}",
                r.at_secs,
                r.target_start_secs,
                r.velocity_jump_mps,
                r.max_joint_accel_mps2,
                r.foot_slide_m,
                opt(r.pop),
                r.root_drift_m.map_or_else(|| "-".to_owned(), |d| format!("{d:.5}"))
            );
        }
        let w = &self.worst;
        let _ = writeln!(
            s,
            "  worst: velocity jump {:.3} m/s, accel {:.2} m/s², foot slide {:.4} m, pop {}, root drift {}",
            w.velocity_jump_mps,
            w.max_joint_accel_mps2,
            w.foot_slide_m,
            opt(w.pop),
            w.root_drift_m.map_or_else(|| "-".to_owned(), |d| format!("{d:.5} m"))
        );
        s
    }
}

/// A blend space played for a while, measured as a transition is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlendSpaceRun {
    /// Horizontal motion of planted feet against the ground under them (the clips' stance
    /// velocities weighted), summed over the run, metres — as `measure` sums it over a
    /// transition.
    pub foot_slide_m: f32,
    /// Largest joint acceleration (second difference), m/s².
    pub max_joint_accel_mps2: f32,
    /// No NaN or infinity in any frame.
    pub finite: bool,
}

/// Play `player` at its parameter for `seconds` (at [`FRAME_HZ`], from phase 0) and measure it:
/// foot slide against the stance velocities of its clips weighted, a foot planted by its clips'
/// heights and vertical speeds weighted (each clip's feet measured played alone, as authored),
/// joint acceleration, finiteness. Allocates (an offline job).
pub fn measure_blend_space(
    model: &Model,
    rig: &Rig,
    player: &mut anim::BlendSpacePlayer,
    seconds: f32,
) -> BlendSpaceRun {
    let dt = 1.0 / FRAME_HZ;
    let frames = ((seconds.max(0.0) * FRAME_HZ).ceil() as usize).max(3);
    let mut recorder = Recorder::new(model, rig);
    let points: Vec<ClipId> = player.space().points().iter().map(|p| p.clip).collect();
    let stats: Vec<Option<Vec<FootStats>>> = points
        .iter()
        .zip(player.weights())
        .map(|(&clip, &w)| (w > 0.0).then(|| clip_stats(&mut recorder, clip, RootMotion::Authored)))
        .collect();
    // Each clip's feet at the rate it plays at each frame: a clip played faster moves its
    // planted feet (an in-place clip's treadmill) faster.
    let rated = |player: &anim::BlendSpacePlayer| -> Vec<(Vec<FootStats>, f32)> {
        stats
            .iter()
            .enumerate()
            .zip(player.weights())
            .filter_map(|((i, s), &w)| {
                let rate = player.clip_rate(i);
                let s = s.as_ref()?;
                Some((s.iter().map(|f| FootStats { stance_velocity: f.stance_velocity * rate, ..*f }).collect(), w))
            })
            .collect()
    };
    player.set_phase(0.0);
    let settings = SampleSettings::default();
    let mut pose = model.rest_pose();
    let n = model.nodes().len();
    let mut locals = LocalMatrices::new(n);
    let mut world = vec![Affine3A::IDENTITY; n];
    let mut joints: Vec<Vec<Vec3>> = Vec::with_capacity(frames + 1);
    let mut feet: Vec<Vec<Vec3>> = Vec::with_capacity(frames + 1);
    let mut finite = true;
    let mut slide = 0.0f32;
    for k in 0..=frames {
        // The ground over this step moves at the rates the clips play at through it.
        let clips = rated(player);
        if k > 0 {
            player.advance(dt);
        }
        player.evaluate(model, &settings, &mut pose);
        finite &= pose.is_finite();
        model.hierarchy.local_to_model(&pose, &mut locals, &mut world);
        joints.push(rig.joints.iter().map(|&j| Vec3::from(world[j].translation)).collect());
        feet.push(rig.feet.iter().map(|(f, _)| Vec3::from(world[f.index()].translation)).collect());
        if let [.., p0, p1] = feet.as_slice() {
            let weighted: Vec<(&[FootStats], f32)> = clips.iter().map(|(s, w)| (s.as_slice(), *w)).collect();
            slide += planted_slide(&weighted, PlantedBy::Weighted, p0, p1, dt);
        }
    }
    let accel = joints
        .windows(3)
        .map(|w| w[0].iter().zip(&w[1]).zip(&w[2]).map(|((a, b), c)| (*c - 2.0 * *b + *a).length()).fold(0.0, f32::max))
        .fold(0.0, f32::max)
        / (dt * dt);
    let m = rig.metres_per_unit;
    BlendSpaceRun { foot_slide_m: slide * m, max_joint_accel_mps2: accel * m, finite }
}

#[cfg(test)]
mod tests {
    use anim::{BlendSpace, PhaseSync, TransitionKind};

    use super::*;

    fn settings(kind: TransitionKind) -> PairSettings {
        PairSettings {
            transition: Transition::new(kind, 0.4),
            sync: Sync::None,
            match_speed: false,
            root_motion: RootMotion::InPlace,
            loops: 0,
            start_secs: Some(0.0),
        }
    }

    /// The Walk/Run space at `at`, from phase 0.
    fn walk_run(model: &Model, rig: &Rig, at: f32) -> BlendSpacePlayer {
        let (walk, run) = (model.find_clip("Walk").expect("Walk"), model.find_clip("Run").expect("Run"));
        let space = BlendSpace::new_1d(&[(walk, 1.4), (run, 3.4)]).expect("space");
        let contacts = [rig.phase_markers(model, walk), rig.phase_markers(model, run)];
        let mut player = BlendSpacePlayer::new(model, space, PhaseSync::Phase, &contacts).expect("player");
        player.set_parameter(glam::Vec2::new(at, 0.0));
        player
    }

    #[test]
    fn a_transition_from_the_blend_space_is_measured_as_one_from_a_clip() {
        let model = anim::import::load_slice(crate::mannequin::DEFAULT_MODEL_GLB, None).expect("built-in model");
        let rig = Rig::new(&model);
        let (walk, idle) = (model.find_clip("Walk").expect("Walk"), model.find_clip("Idle").expect("Idle"));
        // At Walk's own position the space is the Walk at its own rate: the figures of a
        // transition from it are those of Walk → Idle triggered at the same Walk time.
        // From phase 0, triggered after the lead-in.
        let mut at_walk = walk_run(&model, &rig, 1.4);
        at_walk.set_phase(0.0);
        let lead_in_secs = LEAD_IN_FRAMES as f32 / FRAME_HZ;
        let walk_time = at_walk.clip_time_secs(0) + lead_in_secs;
        for kind in TransitionKind::ALL {
            let from_space = measure_ends(
                &model,
                &rig,
                End::BlendSpace(&at_walk),
                End::Clip(idle),
                &[lead_in_secs],
                &settings(kind),
                None,
            )
            .runs[0]
                .clone();
            let from_clip = measure(&model, &rig, walk, idle, &[walk_time], &settings(kind), None);
            let clip_jump = from_clip.runs[0].velocity_jump_mps;
            assert!(
                (from_space.velocity_jump_mps - clip_jump).abs() <= 1e-3 * clip_jump.max(1.0),
                "{kind:?}: {} vs {clip_jump}",
                from_space.velocity_jump_mps
            );
        }
        // Half way between Walk and Run: inertialization keeps the blended motion's velocity, a
        // cross-fade does not.
        let mid = walk_run(&model, &rig, 2.4);
        let jump = |kind| {
            let at = [LEAD_IN_FRAMES as f32 / FRAME_HZ];
            measure_ends(&model, &rig, End::BlendSpace(&mid), End::Clip(idle), &at, &settings(kind), None).runs[0]
                .clone()
        };
        let (fade, inertial, dead) =
            (jump(TransitionKind::CrossFade), jump(TransitionKind::Inertialize), jump(TransitionKind::DeadBlend));
        eprintln!(
            "blend space 2.4 -> Idle velocity jump m/s: crossfade {:.4}, inertialize {:.4}, dead-blend {:.4}",
            fade.velocity_jump_mps, inertial.velocity_jump_mps, dead.velocity_jump_mps
        );
        assert!(fade.finite && inertial.finite && dead.finite);
        assert!(fade.velocity_jump_mps > 0.05, "a cross-fade changes the velocity: {}", fade.velocity_jump_mps);
        assert!(
            inertial.velocity_jump_mps < 0.5 * fade.velocity_jump_mps,
            "inertialization {} vs cross-fade {}",
            inertial.velocity_jump_mps,
            fade.velocity_jump_mps
        );
    }
}
