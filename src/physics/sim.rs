//! [`Ragdoll`]: the Rapier world of one handoff, in metres, stepped at a fixed rate.

use glam::{Affine3A, Quat, Vec3};
use rapier3d::glamx::Pose3;
use rapier3d::prelude::{
    ActiveHooks, ColliderBuilder, GenericJointBuilder, ImpulseJointHandle, JointAxesMask, JointAxis, MassProperties,
    MotorModel, PairFilterContext, PhysicsHooks, PhysicsWorld, RigidBodyBuilder, RigidBodyHandle, SolverFlags,
};

use super::BodyId;
use super::anatomy::{JointLimits, Region};
use super::fault::FaultKind;
use super::spec::{RagdollSpec, axis_angles, motor_angles, segment_segment_distance};

/// Joint-motor stiffness and damping per body region, at full strength, as angular
/// accelerations: a joint's motor torque is `(stiffness · angle error + damping · speed error) ·
/// I`, where `I` is the moment of inertia of everything below the joint about it, so that the
/// same gains move a hand and a whole arm alike.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotorGains {
    /// Stiffness per [`Region`] (index [`Region::index`]), 1/s².
    pub stiffness: [f32; 5],
    /// Damping per [`Region`], 1/s.
    pub damping: [f32; 5],
}

impl Default for MotorGains {
    fn default() -> Self {
        // Natural frequencies of about 35 rad/s for the legs and torso (which carry the weight),
        // less for arms, head and tail; damping near critical.
        let stiffness = [1200.0, 600.0, 700.0, 1200.0, 300.0];
        let damping = stiffness.map(|k: f32| 1.6 * k.sqrt());
        Self { stiffness, damping }
    }
}

impl MotorGains {
    /// Every region with the same stiffness (1/s²) and damping (1/s).
    pub fn uniform(stiffness: f32, damping: f32) -> Self {
        Self { stiffness: [stiffness; 5], damping: [damping; 5] }
    }

    /// Stiffness and damping of a region.
    pub fn of(&self, region: Region) -> (f32, f32) {
        (self.stiffness[region.index()], self.damping[region.index()])
    }
}

/// Tunable physics settings of a ragdoll (SI units: the simulation runs in metres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RagdollSettings {
    /// Fixed simulation rate (steps per second).
    pub step_hz: f32,
    /// Gravity (metres per second², pointing down −Y).
    pub gravity: f32,
    /// Body density (kg per cubic metre): mass comes from the capsule volume.
    pub density: f32,
    /// Linear velocity damping per second.
    pub linear_damping: f32,
    /// Angular velocity damping per second.
    pub angular_damping: f32,
    /// Passive joint damping (a limp body's muscles and ligaments), 1/s, acceleration-based.
    pub joint_damping: f32,
    /// Friction of bodies and ground.
    pub friction: f32,
    /// Constraint solver iterations per step.
    pub solver_iterations: usize,
    /// Start the bodies with the animation's velocity (false: at rest).
    pub initial_velocity: bool,
    /// Metres per model unit; `None`: from the character's size ([`RagdollSpec::metres_per_unit`],
    /// every character simulated at [`super::spec::REFERENCE_SIZE_M`]).
    pub metres_per_unit: Option<f32>,
    /// Joint-motor gains at full strength (powered ragdolls, and the hold during a blend).
    pub gains: MotorGains,
    /// Stiffness of the pelvis hold (linear and angular), 1/s², at full strength.
    pub root_hold_stiffness: f32,
    /// Hold the ragdoll toward the animation while the blend weight is below 1 (joint motors and
    /// a pelvis hold that give way as the weight rises; not for a pushed handoff), so that the
    /// physics being blended in agrees with the animation where the weight is low (see
    /// [`super::RagdollController`]).
    pub hold_during_blend: bool,
}

impl Default for RagdollSettings {
    fn default() -> Self {
        Self {
            step_hz: 120.0,
            gravity: 9.81,
            density: 1000.0,
            linear_damping: 0.1,
            angular_damping: 1.0,
            joint_damping: 2.0,
            friction: 0.8,
            solver_iterations: 8,
            initial_velocity: true,
            metres_per_unit: None,
            gains: MotorGains::default(),
            root_hold_stiffness: 1200.0,
            hold_during_blend: true,
        }
    }
}

/// Marks the ground collider in `user_data`.
const GROUND: u128 = u128::MAX;

/// Skips contacts between bodies listed as pairs that must not collide.
#[derive(Debug, Clone)]
struct PairFilter {
    count: usize,
    excluded: Vec<bool>,
}

impl PhysicsHooks for PairFilter {
    fn filter_contact_pair(&self, context: &PairFilterContext) -> Option<SolverFlags> {
        let data = |h| context.colliders.get(h).map_or(GROUND, |c| c.user_data);
        let (a, b) = (data(context.collider1), data(context.collider2));
        if a == GROUND || b == GROUND {
            return Some(SolverFlags::default());
        }
        let (a, b) = (usize::try_from(a).unwrap_or(0), usize::try_from(b).unwrap_or(0));
        if self.excluded.get(a * self.count + b).copied().unwrap_or(true) { None } else { Some(SolverFlags::default()) }
    }
}

/// World state of the bodies right after the first physics step (for the handoff metrics).
#[derive(Debug, Clone, PartialEq)]
pub struct FirstStep {
    /// Each body's joint origin (world).
    pub origins: Vec<Vec3>,
    /// Each body's velocity at its joint origin (world units per second).
    pub velocities: Vec<Vec3>,
}

/// How the world of one handoff starts: the pose and its velocity, which bodies follow the
/// animation instead of simulating, and where the ground is.
#[derive(Debug, Clone, Copy)]
pub struct RagdollStart<'a> {
    /// World transform of every node at the handoff.
    pub world_now: &'a [Affine3A],
    /// The same motion `dt_before_secs` earlier (for the bodies' velocities); with a negative
    /// `dt_before_secs`, that far *later* (a forward difference: the velocity the motion goes
    /// on with, which is what a handoff should continue).
    pub world_before: &'a [Affine3A],
    /// Time between the two.
    pub dt_before_secs: f32,
    /// Bodies moved kinematically on the animation (a partial ragdoll's rest, a pinned pelvis);
    /// empty: none.
    pub kinematic: &'a [bool],
    /// Ground height (world; `None`: y = 0), lowered under any body that starts below it.
    pub ground_y: Option<f32>,
}

impl RagdollStart<'_> {
    /// Whether `world_before` gives a velocity (a finite, non-zero time apart).
    fn has_motion(&self) -> bool {
        self.dt_before_secs != 0.0 && self.dt_before_secs.is_finite()
    }
}

/// Where the animation wants the bodies: the targets of kinematic bodies, joint motors and the
/// pelvis hold, and how strongly they pull.
#[derive(Debug, Clone, Copy)]
pub struct Drive<'a> {
    /// World transform of every node, at the end of the coming [`Ragdoll::advance`].
    pub world: &'a [Affine3A],
    /// Joint-motor strength in `[0, 1]` (scales [`RagdollSettings::gains`]).
    pub motor_strength: f32,
    /// Pelvis-hold strength in `[0, 1]` (scales [`RagdollSettings::root_hold_stiffness`]).
    pub root_hold: f32,
}

/// The physics world of one handoff: one rigid body per [`RagdollSpec`] body, anatomical joints
/// (one-way hinges, swing-twist joints) with passive damping and optional motors, a ground
/// plane, stepped at a fixed rate with an accumulator. Simulated in metres (positions and
/// velocities converted in and out; the public API speaks the model's units). Deterministic:
/// the same inputs give bit-identical results.
pub struct Ragdoll {
    world: PhysicsWorld,
    hooks: PairFilter,
    handles: Vec<RigidBodyHandle>,
    joints: Vec<Option<ImpulseJointHandle>>,
    /// The pelvis-hold anchor (kinematic, on the animated root) and its joint.
    hold: Option<(RigidBodyHandle, ImpulseJointHandle)>,
    kinematic: Vec<bool>,
    /// Joint limits in force (the spec's, widened to contain the handoff pose).
    limits: Vec<JointLimits>,
    step_secs: f32,
    accumulator_secs: f64,
    steps: u64,
    /// World position of the simulation's origin, and metres per model unit.
    origin: Vec3,
    metres_per_unit: f32,
    ground_y: f32,
    /// The ground's height in the simulation's frame.
    ground_sim: f32,
    /// The character's size in metres.
    size_m: f32,
    first_step: Option<FirstStep>,
    /// Each body's joint origin at the handoff (world).
    start_origins: Vec<Vec3>,
    /// Each body's capsule `(a, b, radius)` in its frame (model units), scaled as at the handoff.
    shapes: Vec<(Vec3, Vec3, f32)>,
    /// Moment of inertia (kg·m²) of the bodies below each joint about it, at the handoff.
    joint_inertia: Vec<f32>,
    /// The same for the whole ragdoll about its root, and its mass (for the pelvis hold).
    root_inertia: f32,
    total_mass: f32,
    /// For each node: the body it rides on and its transform in that body's frame (captured at
    /// the handoff), `None` for nodes left to the animation.
    attachments: Vec<Option<(BodyId, Affine3A)>>,
    /// Drive targets per body (rotation, sim position) at the start and end of the current
    /// advance.
    targets_from: Vec<(Quat, Vec3)>,
    targets_to: Vec<(Quat, Vec3)>,
    motor_strength: f32,
    root_hold: f32,
    /// Steps the current advance takes (target velocities spread the drive over them).
    advance_steps: u32,
    /// The joint motors hold passive damping only (nothing to update per step).
    motors_passive: bool,
    gains: MotorGains,
    joint_damping: f32,
    root_hold_stiffness: f32,
    /// Below this RMS capsule-end speed (metres per second) the ragdoll counts as calm.
    calm_speed_mps: f32,
    /// Seconds the ragdoll has been calm without a break.
    calm_secs: f32,
    /// The bodies were put to sleep (they stay where they lie until pushed).
    asleep: bool,
    /// Largest joint-limit violation seen so far (radians).
    max_violation_rad: f32,
    /// Each joint's anchor on its parent body (sim units, the parent's frame; zero for roots):
    /// the child's origin should stay there.
    anchors: Vec<Vec3>,
    /// Largest distance between a joint's two anchors after any step so far (metres).
    max_separation_m: f32,
    /// Lowest collider point after any step so far (world y).
    lowest_seen: f32,
    /// Bodies parents first, and each body's subtree (itself included): for joint projection.
    projection_order: Vec<BodyId>,
    subtrees: Vec<Vec<usize>>,
}

/// Joints further than this past their limits after a step are projected back: the child's side
/// (or the rest of the body, whichever pushes less into the ground) turned about the joint.
pub const PROJECTION_TOLERANCE_RAD: f32 = 1.5 * std::f32::consts::PI / 180.0;

/// Joint projection may push a body this fraction of the character's size further into the
/// ground than it already is (contacts push it back out within a step or two).
const PROJECTION_GROUND_SLACK: f32 = 0.008;

/// A ragdoll calm for this long is put to sleep, so that bodies lying on the ground stop
/// twitching (joint limits and contacts can otherwise keep a limb jittering forever).
pub const SLEEP_AFTER_SECS: f32 = 1.0;
/// Calm: the root-mean-square over the bodies of their fastest capsule end is below this
/// fraction of the character's size per second (one twitching limb does not keep a body that
/// lies still awake; a falling or sliding body, where every part moves, is never calm).
pub const CALM_SPEED_FRACTION: f32 = 0.1;

impl std::fmt::Debug for Ragdoll {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ragdoll").field("bodies", &self.handles.len()).field("steps", &self.steps).finish()
    }
}

/// The rigid part of a world transform.
fn rigid(world: &Affine3A) -> (Quat, Vec3) {
    let (_, rotation, translation) = world.to_scale_rotation_translation();
    (rotation.normalize(), translation)
}

/// The wrapped difference `b − a` of two angles, in `(−π, π]`.
fn angle_difference(a: f32, b: f32) -> f32 {
    let d = (b - a).rem_euclid(std::f32::consts::TAU);
    if d > std::f32::consts::PI { d - std::f32::consts::TAU } else { d }
}

/// A thin capsule spins about its own axis with almost no inertia, so contact friction and
/// joint-limit impulses twist it violently: every principal inertia is raised to at least this
/// fraction of the largest (`PhysX`'s advice for ragdolls, in effect).
const MIN_INERTIA_RATIO: f32 = 0.4;

/// Each body's mass (kg): the ragdoll's total from its capsules' volume (metres) × `density`,
/// shared out by anatomy ([`BoneKind::mass_fraction`], [`BoneKind::group_fraction`] split by
/// volume), so that a capsule that swallowed the vertices of its neighbours (a head capsule
/// reaching into the chest) does not make a 35 kg head on a 1 kg neck — heavy bodies on light
/// joints are what makes joint limits give.
///
/// [`BoneKind::mass_fraction`]: super::anatomy::BoneKind::mass_fraction
/// [`BoneKind::group_fraction`]: super::anatomy::BoneKind::group_fraction
pub fn body_masses(spec: &RagdollSpec, density: f32, metres_per_unit: f32) -> Vec<f32> {
    let m = metres_per_unit;
    let volumes: Vec<f32> = spec
        .bodies
        .iter()
        .map(|b| MassProperties::from_capsule(1.0, b.capsule_a * m, b.capsule_b * m, b.radius * m).mass())
        .collect();
    let total_volume: f32 = volumes.iter().sum::<f32>().max(f32::MIN_POSITIVE);
    let group_volume =
        |kind| spec.bodies.iter().zip(&volumes).filter(|(b, _)| b.kind == kind).map(|(_, v)| v).sum::<f32>();
    let shares: Vec<f32> = spec
        .bodies
        .iter()
        .zip(&volumes)
        .map(|(b, &v)| match (b.kind.mass_fraction(), b.kind.group_fraction()) {
            (Some(f), _) => f,
            (None, Some(g)) => g * v / group_volume(b.kind).max(f32::MIN_POSITIVE),
            (None, None) => v / total_volume,
        })
        .collect();
    let total_share: f32 = shares.iter().sum::<f32>().max(f32::MIN_POSITIVE);
    let total_mass = density * total_volume;
    shares.iter().map(|s| total_mass * s / total_share).collect()
}

/// Mass properties of a capsule of `mass` (its inertia scaled from uniform density), with its
/// axial inertia raised ([`MIN_INERTIA_RATIO`]).
fn capsule_mass_properties(density: f32, a: Vec3, b: Vec3, radius: f32, mass: f32) -> MassProperties {
    let exact = MassProperties::from_capsule(density, a, b, radius);
    let scale = if exact.mass() > 0.0 && mass > 0.0 { mass / exact.mass() } else { 1.0 };
    let inertia = exact.principal_inertia() * scale;
    let floor = MIN_INERTIA_RATIO * inertia.max_element();
    MassProperties::with_principal_inertia_frame(
        exact.local_com,
        exact.mass() * scale,
        inertia.max(Vec3::splat(floor)),
        exact.principal_inertia_local_frame,
    )
}

/// At the handoff, joint limits are widened to contain where the animation's motion carries
/// each joint within this time (so a limb in motion is not stopped dead by a limit it would reach
/// in the first steps).
const HANDOFF_LIMIT_LOOKAHEAD_SECS: f32 = 1.0 / 30.0;

/// Trial steps that correct the bodies' initial velocities at a handoff ([`Ragdoll::new`]):
/// the first takes out the joint rows' turn of each velocity, the second what the first
/// correction changed in the others.
const HANDOFF_SHOOTING_PASSES: usize = 2;

const ANGULAR_AXES: [JointAxis; 3] = [JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ];

impl Ragdoll {
    /// Build the world at the handoff: every body at its node's transform in `start.world_now`,
    /// moving with the velocity of the motion from `start.world_before` unless
    /// `settings.initial_velocity` is off. Joint anchors are taken from `world_now` so every
    /// joint starts satisfied; limits are the spec's, widened where the handoff pose lies
    /// outside them (so nothing snaps). Every node of the skeleton rides on a body from here on
    /// (`write_world`).
    ///
    /// The velocities are those of the motion over `dt_before_secs`, corrected so that the
    /// first physics step ends with them: Rapier integrates by symplectic Euler, whose joint
    /// rows turn a swinging limb's velocity within the step (at the ankle of a running shin,
    /// turning a tenth of a radian a step, by a metre per second), so bodies started with the
    /// clip's velocity would end the step off it. The world is built, stepped once on trial, and
    /// built again with each body's velocity raised by what the trial step took from it
    /// ([`HANDOFF_SHOOTING_PASSES`] times), so the first step moves the bodies as the clip does.
    pub fn new(spec: &RagdollSpec, settings: &RagdollSettings, start: &RagdollStart<'_>) -> Self {
        let mut ragdoll = Self::build(spec, settings, start, &[]);
        if !settings.initial_velocity || !start.has_motion() {
            return ragdoll;
        }
        // The velocities the clip gives each simulated body (centre of mass; angular).
        let wanted: Vec<Option<(Vec3, Vec3)>> = ragdoll
            .handles
            .iter()
            .zip(&ragdoll.kinematic)
            .map(|(&h, &kinematic)| {
                let rb = ragdoll.world.bodies.get(h).filter(|_| !kinematic)?;
                Some((rb.linvel(), rb.angvel()))
            })
            .collect();
        let mut corrections = vec![(Vec3::ZERO, Vec3::ZERO); wanted.len()];
        for _ in 0..HANDOFF_SHOOTING_PASSES {
            ragdoll.world.step_with_events(&ragdoll.hooks, &());
            for ((wanted, correction), &h) in wanted.iter().zip(&mut corrections).zip(&ragdoll.handles) {
                let (Some((linvel, angvel)), Some(rb)) = (wanted, ragdoll.world.bodies.get(h)) else { continue };
                let (lin, ang) = (*linvel - rb.linvel(), *angvel - rb.angvel());
                if lin.is_finite() && ang.is_finite() {
                    correction.0 += lin;
                    correction.1 += ang;
                }
            }
            ragdoll = Self::build(spec, settings, start, &corrections);
        }
        ragdoll
    }

    /// [`Self::new`]'s world, each body's initial velocity raised by `corrections` (linear at
    /// the centre of mass, angular; simulation units; empty: none).
    fn build(
        spec: &RagdollSpec,
        settings: &RagdollSettings,
        start: &RagdollStart<'_>,
        corrections: &[(Vec3, Vec3)],
    ) -> Self {
        let mut world = PhysicsWorld::new();
        world.gravity = Vec3::new(0.0, -settings.gravity, 0.0);
        let metres_per_unit = settings
            .metres_per_unit
            .filter(|m| m.is_finite() && *m > 0.0)
            .unwrap_or(spec.metres_per_unit)
            .max(f32::MIN_POSITIVE);
        let step_secs = if settings.step_hz > 0.0 { 1.0 / settings.step_hz } else { 1.0 / 120.0 };
        let params = &mut world.integration_parameters;
        params.dt = step_secs;
        params.length_unit = 1.0;
        params.num_solver_iterations = settings.solver_iterations.max(1);
        // Joint limits recover at up to this speed (m/s, rad/s): Rapier's 3 lets a fast fall
        // push joints tens of degrees past their limits before they come back.
        params.normalized_max_corrective_velocity = 20.0;
        params.warmstart_joints = true;

        let count = spec.bodies.len();
        let node_world = |w: &[Affine3A], node: usize| w.get(node).copied().unwrap_or_default();
        let poses: Vec<(Quat, Vec3)> =
            spec.bodies.iter().map(|b| rigid(&node_world(start.world_now, b.node.index()))).collect();
        // Capsules scaled as their node is scaled at the handoff (relative to rest).
        let scales: Vec<f32> =
            spec.bodies.iter().map(|b| b.scale_in(&node_world(start.world_now, b.node.index()))).collect();
        let shapes: Vec<(Vec3, Vec3, f32)> =
            spec.bodies.iter().zip(&scales).map(|(b, &s)| (b.capsule_a * s, b.capsule_b * s, b.radius * s)).collect();
        let origin = poses.get(spec.root.index()).map_or(Vec3::ZERO, |p| p.1);
        let to_sim = |p: Vec3| (p - origin) * metres_per_unit;
        let capsules: Vec<(Vec3, Vec3)> =
            shapes.iter().zip(&poses).map(|(&(a, b, _), &(r, t))| (t + r * a, t + r * b)).collect();
        let kinematic: Vec<bool> = (0..count).map(|b| start.kinematic.get(b).copied().unwrap_or(false)).collect();

        // Pairs that never collide: jointed neighbours, near relatives, and bodies that overlap
        // at the handoff (pushing them apart would pop).
        let mut excluded = vec![false; count * count];
        for a in 0..count {
            for b in 0..count {
                let near = spec.hops(BodyId::from_index(a), BodyId::from_index(b)).is_some_and(|hops| hops <= 2);
                let gap = segment_segment_distance(capsules[a].0, capsules[a].1, capsules[b].0, capsules[b].1)
                    - shapes[a].2
                    - shapes[b].2;
                excluded[a * count + b] = a == b || near || gap < 0.02 * spec.size;
            }
        }
        let lowest = shapes.iter().zip(&capsules).map(|(s, &(p, q))| p.y.min(q.y) - s.2).fold(f32::MAX, f32::min);
        // Never start a body under the ground: that would pop it out.
        let ground_y = start.ground_y.filter(|g| g.is_finite()).unwrap_or(0.0).min(lowest);
        let ground_sim = to_sim(Vec3::new(0.0, ground_y, 0.0)).y;
        let ground_half = 1.0;
        let ground = world
            .bodies
            .insert(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, ground_sim - ground_half, 0.0)).build());
        world.colliders.insert_with_parent(
            ColliderBuilder::cuboid(1000.0, ground_half, 1000.0).friction(settings.friction).user_data(GROUND),
            ground,
            &mut world.bodies,
        );

        let has_motion = start.has_motion();
        let masses = body_masses(spec, settings.density, metres_per_unit);
        let masses: Vec<f32> = masses.iter().zip(&scales).map(|(m, s)| m * s.powi(3)).collect();
        let mut handles = Vec::with_capacity(count);
        for (i, body) in spec.bodies.iter().enumerate() {
            let (rotation, translation) = poses[i];
            let pose = Pose3::from_parts(to_sim(translation), rotation);
            let mut builder = if kinematic[i] {
                RigidBodyBuilder::kinematic_position_based().pose(pose)
            } else {
                RigidBodyBuilder::dynamic()
                    .pose(pose)
                    .linear_damping(settings.linear_damping)
                    .angular_damping(settings.angular_damping)
            };
            if settings.initial_velocity && has_motion && !kinematic[i] {
                let (rotation_before, translation_before) = rigid(&node_world(start.world_before, body.node.index()));
                let local_com = 0.5 * (shapes[i].0 + shapes[i].1);
                let com_now = translation + rotation * local_com;
                let com_before = translation_before + rotation_before * local_com;
                let linvel = (com_now - com_before) * metres_per_unit / start.dt_before_secs;
                let delta = (rotation * rotation_before.inverse()).normalize();
                let delta = if delta.w < 0.0 { -delta } else { delta };
                let angvel = delta.to_scaled_axis() / start.dt_before_secs;
                let (linvel, angvel) = match corrections.get(i) {
                    Some(&(lin, ang)) => (linvel + lin, angvel + ang),
                    None => (linvel, angvel),
                };
                if linvel.is_finite() && angvel.is_finite() {
                    builder = builder.linvel(linvel).angvel(angvel);
                }
            }
            let handle = world.bodies.insert(builder.build());
            let m = metres_per_unit;
            let (a, b, r) = shapes[i];
            world.colliders.insert_with_parent(
                ColliderBuilder::capsule_from_endpoints(a * m, b * m, r * m)
                    .mass_properties(capsule_mass_properties(settings.density, a * m, b * m, r * m, masses[i]))
                    .friction(settings.friction)
                    .user_data(i as u128)
                    .active_hooks(ActiveHooks::FILTER_CONTACT_PAIRS),
                handle,
                &mut world.bodies,
            );
            handles.push(handle);
        }

        let mut joints = vec![None; count];
        let mut anchors = vec![Vec3::ZERO; count];
        let mut limits = vec![JointLimits::symmetric(0.0, 0.0); count];
        for (i, body) in spec.bodies.iter().enumerate() {
            let Some(p) = body.parent else { continue };
            let p = p.index();
            let (parent_rotation, parent_translation) = poses[p];
            let anchor = parent_rotation.inverse() * (poses[i].1 - parent_translation) * metres_per_unit;
            anchors[i] = anchor;
            let relative =
                (parent_rotation * body.joint_frame_parent).inverse() * (poses[i].0 * body.joint_frame_child);
            limits[i] = body.limits.widened_to(axis_angles(relative), 1.0_f32.to_radians());
            // The motion the bodies start with must not run into a limit in the first steps
            // (the limit would stop it dead: a velocity error at the handoff), so the limits
            // also contain where the joint is headed over a few steps.
            if settings.initial_velocity && has_motion {
                let (pr, _) = rigid(&node_world(start.world_before, spec.bodies[p].node.index()));
                let (cr, _) = rigid(&node_world(start.world_before, body.node.index()));
                let other = (pr * body.joint_frame_parent).inverse() * (cr * body.joint_frame_child);
                let (now, then) = (axis_angles(relative), axis_angles(other));
                let reach = (HANDOFF_LIMIT_LOOKAHEAD_SECS / start.dt_before_secs.abs()).min(8.0);
                let ahead = std::array::from_fn(|k| {
                    let rate = angle_difference(then[k], now[k]) * start.dt_before_secs.signum();
                    now[k] + rate * reach
                });
                limits[i] = limits[i].widened_to(ahead, 1.0_f32.to_radians());
            }
            let mut builder = GenericJointBuilder::new(JointAxesMask::LOCKED_SPHERICAL_AXES)
                .local_frame1(Pose3::from_parts(anchor, body.joint_frame_parent))
                .local_frame2(Pose3::from_parts(Vec3::ZERO, body.joint_frame_child))
                .contacts_enabled(false);
            for (axis, range) in ANGULAR_AXES.into_iter().zip(limits[i].axes()) {
                builder = builder.limits(axis, range);
            }
            let handle = world.impulse_joints.insert(handles[p], handles[i], builder.build(), true);
            joints[i] = Some(handle);
        }

        // What each joint's motor moves: the moment of inertia of the bodies below it about the
        // joint (point masses at their centres plus their own mean inertia), so that a motor
        // gain means the same angular acceleration for a finger and for a whole arm.
        let subtree_inertia = |root_body: usize, pivot: Vec3| -> f32 {
            spec.region_bodies(BodyId::from_index(root_body))
                .iter()
                .enumerate()
                .filter(|&(_, &inside)| inside)
                .filter_map(|(d, _)| world.bodies.get(handles[d]))
                .map(|rb| {
                    let props = &rb.mass_properties().local_mprops;
                    let own = props.principal_inertia().element_sum() / 3.0;
                    rb.mass() * rb.center_of_mass().distance_squared(pivot) + own
                })
                .sum()
        };
        let joint_inertia: Vec<f32> = (0..count).map(|b| subtree_inertia(b, to_sim(poses[b].1)).max(1e-6)).collect();
        let root_inertia = joint_inertia.get(spec.root.index()).copied().unwrap_or(1.0);
        let total_mass: f32 =
            handles.iter().filter_map(|&h| world.bodies.get(h)).map(rapier3d::dynamics::RigidBody::mass).sum();

        // Every node of the skeleton rides on its body, as it sat at the handoff.
        let attachments = start
            .world_now
            .iter()
            .enumerate()
            .map(|(node, &w)| {
                let body = spec.body_for_node(anim::NodeId::from_index(node))?;
                let (r, t) = *poses.get(body.index())?;
                Some((body, Affine3A::from_rotation_translation(r, t).inverse() * w))
            })
            .collect();
        let targets: Vec<(Quat, Vec3)> = poses.iter().map(|&(r, t)| (r, to_sim(t))).collect();
        let mut ragdoll = Self {
            world,
            hooks: PairFilter { count, excluded },
            handles,
            joints,
            hold: None,
            kinematic,
            limits,
            step_secs,
            accumulator_secs: 0.0,
            steps: 0,
            origin,
            metres_per_unit,
            ground_y,
            ground_sim,
            size_m: spec.size * metres_per_unit,
            first_step: None,
            start_origins: poses.iter().map(|&(_, t)| t).collect(),
            shapes,
            joint_inertia,
            root_inertia,
            total_mass,
            attachments,
            targets_from: targets.clone(),
            targets_to: targets,
            motor_strength: 0.0,
            root_hold: 0.0,
            advance_steps: 1,
            motors_passive: false,
            gains: settings.gains,
            joint_damping: settings.joint_damping.max(0.0),
            root_hold_stiffness: settings.root_hold_stiffness.max(0.0),
            calm_speed_mps: CALM_SPEED_FRACTION * spec.size * metres_per_unit,
            calm_secs: 0.0,
            asleep: false,
            max_violation_rad: 0.0,
            anchors,
            max_separation_m: 0.0,
            lowest_seen: f32::MAX,
            projection_order: super::getup::parents_first(spec),
            subtrees: spec
                .body_ids()
                .map(|b| spec.region_bodies(b).iter().enumerate().filter(|&(_, &i)| i).map(|(d, _)| d).collect())
                .collect(),
        };
        ragdoll.apply_motors(spec, 1.0);
        ragdoll
    }

    /// Metres per model unit in this simulation.
    pub fn metres_per_unit(&self) -> f32 {
        self.metres_per_unit
    }

    fn to_sim_point(&self, p: Vec3) -> Vec3 {
        (p - self.origin) * self.metres_per_unit
    }

    fn to_world_point(&self, p: Vec3) -> Vec3 {
        p / self.metres_per_unit + self.origin
    }

    /// Apply an impulse (newton-seconds, SI whatever the model's units) at a body's centre of
    /// mass (waking the ragdoll).
    pub fn apply_impulse(&mut self, body: BodyId, impulse: Vec3) {
        if let Some(rb) = self.handles.get(body.index()).and_then(|&h| self.world.bodies.get_mut(h)) {
            rb.apply_impulse(impulse, true);
        }
        self.wake();
    }

    /// Mass of a body, kg.
    pub fn mass(&self, body: BodyId) -> f32 {
        self.handles
            .get(body.index())
            .and_then(|&h| self.world.bodies.get(h))
            .map_or(0.0, rapier3d::dynamics::RigidBody::mass)
    }

    /// Wake a sleeping ragdoll (it sleeps again after [`SLEEP_AFTER_SECS`] of calm).
    fn wake(&mut self) {
        if self.asleep {
            for &h in &self.handles {
                if let Some(rb) = self.world.bodies.get_mut(h) {
                    rb.wake_up(true);
                }
            }
        }
        self.asleep = false;
        self.calm_secs = 0.0;
    }

    /// Set a body's linear and angular velocity (world units per second, radians per second),
    /// as given: nothing is checked, so tests can provoke an explosion with it.
    pub fn set_body_velocity(&mut self, body: BodyId, linvel: Vec3, angvel: Vec3) {
        let m = self.metres_per_unit;
        if let Some(rb) = self.handles.get(body.index()).and_then(|&h| self.world.bodies.get_mut(h)) {
            rb.set_linvel(linvel * m, true);
            rb.set_angvel(angvel, true);
        }
        self.wake();
    }

    /// Where the animation wants the bodies at the end of the next [`advance`](Self::advance),
    /// and how strongly motors and the pelvis hold pull toward it. Kinematic bodies follow it
    /// exactly (interpolated per step).
    pub fn set_drive(&mut self, spec: &RagdollSpec, drive: &Drive<'_>) {
        std::mem::swap(&mut self.targets_from, &mut self.targets_to);
        for (b, body) in spec.bodies.iter().enumerate() {
            if let Some(w) = drive.world.get(body.node.index()) {
                let (r, t) = rigid(w);
                if r.is_finite() && t.is_finite() {
                    self.targets_to[b] = (r, self.to_sim_point(t));
                }
            }
        }
        let clamp = |s: f32| if s.is_finite() { s.clamp(0.0, 1.0) } else { 0.0 };
        self.motor_strength = clamp(drive.motor_strength);
        let root_hold = clamp(drive.root_hold);
        if root_hold > 0.0 && self.hold.is_none() && !self.kinematic.get(spec.root.index()).copied().unwrap_or(true) {
            self.create_hold(spec);
        }
        self.root_hold = root_hold;
        if self.motor_strength > 0.0 || self.root_hold > 0.0 || self.kinematic.iter().any(|&k| k) {
            self.wake();
        }
    }

    /// The pelvis hold: a kinematic anchor on the animated root, jointed to the root body by
    /// six motors (linear and angular).
    fn create_hold(&mut self, spec: &RagdollSpec) {
        let root = spec.root.index();
        let Some(&root_handle) = self.handles.get(root) else { return };
        let (r, t) = self.targets_from[root];
        let anchor =
            self.world.bodies.insert(RigidBodyBuilder::kinematic_position_based().pose(Pose3::from_parts(t, r)));
        let joint = GenericJointBuilder::new(JointAxesMask::empty()).contacts_enabled(false).build();
        let handle = self.world.impulse_joints.insert(anchor, root_handle, joint, true);
        self.hold = Some((anchor, handle));
    }

    /// Set every joint motor's target and gains for the drive at fraction `u` of the current
    /// advance.
    fn apply_motors(&mut self, spec: &RagdollSpec, u: f32) {
        let advance_secs = self.step_secs.max(1e-6) * self.advance_steps.max(1) as f32;
        let strength = self.motor_strength;
        // Editing a joint makes Rapier re-assemble its constraints, which costs convergence:
        // limp motors (passive damping) are set once.
        let edit_joints = strength > 0.0 || !self.motors_passive;
        self.motors_passive = strength <= 0.0;
        for (b, body) in spec.bodies.iter().enumerate().filter(|_| edit_joints) {
            let (Some(handle), Some(p)) = (self.joints[b], body.parent) else { continue };
            let p = p.index();
            let relative =
                |t: &[(Quat, Vec3)]| (t[p].0 * body.joint_frame_parent).inverse() * (t[b].0 * body.joint_frame_child);
            let from = motor_angles(relative(&self.targets_from));
            let to = motor_angles(relative(&self.targets_to));
            let (k, c) = self.gains.of(body.kind.region());
            let inertia = self.joint_inertia[b];
            let (stiffness, damping) = (k * strength * inertia, (c * strength + self.joint_damping) * inertia);
            let Some(joint) = self.world.impulse_joints.get_mut(handle, false) else { continue };
            // The target velocity: the animation's relative angular velocity over the advance,
            // along each axis of the parent's joint frame (the axes the motor rows act on).
            // Differences of the motor angles are no velocity once a joint is bent on two axes.
            let spin = |k: usize| {
                let d = (self.targets_to[k].0 * self.targets_from[k].0.inverse()).normalize();
                let d = if d.w < 0.0 { -d } else { d };
                d.to_scaled_axis() / advance_secs
            };
            let relative_spin = spin(b) - spin(p);
            let frame = (self.targets_from[p].0.slerp(self.targets_to[p].0, u) * body.joint_frame_parent).normalize();
            for (i, axis) in ANGULAR_AXES.into_iter().enumerate() {
                let delta = angle_difference(from[i], to[i]);
                let target = from[i] + delta * u;
                let velocity = if strength > 0.0 { relative_spin.dot(frame * Vec3::AXES[i]) } else { 0.0 };
                joint.data.set_motor_model(axis, MotorModel::ForceBased);
                joint.data.set_motor(axis, target, velocity, stiffness, damping);
                let max_force = if stiffness > 0.0 || damping > 0.0 { f32::MAX } else { 0.0 };
                joint.data.set_motor_max_force(axis, max_force);
            }
        }
        if let Some((anchor, handle)) = self.hold {
            let root = spec.root.index();
            let (r0, t0) = self.targets_from[root];
            let (r1, t1) = self.targets_to[root];
            if let Some(rb) = self.world.bodies.get_mut(anchor) {
                rb.set_next_kinematic_position(Pose3::from_parts(t0.lerp(t1, u), r0.slerp(r1, u)));
            }
            let k = self.root_hold_stiffness * self.root_hold;
            let c = 2.0 * k.sqrt();
            let (mass, inertia) = (self.total_mass, self.root_inertia);
            if let Some(joint) = self.world.impulse_joints.get_mut(handle, false) {
                for (axis, scale) in [
                    (JointAxis::LinX, mass),
                    (JointAxis::LinY, mass),
                    (JointAxis::LinZ, mass),
                    (JointAxis::AngX, inertia),
                    (JointAxis::AngY, inertia),
                    (JointAxis::AngZ, inertia),
                ] {
                    joint.data.set_motor_model(axis, MotorModel::ForceBased);
                    joint.data.set_motor(axis, 0.0, 0.0, k * scale, c * scale);
                    joint.data.set_motor_max_force(axis, if k > 0.0 { f32::MAX } else { 0.0 });
                }
            }
        }
        for (b, &kinematic) in self.kinematic.iter().enumerate() {
            if !kinematic {
                continue;
            }
            let (r0, t0) = self.targets_from[b];
            let (r1, t1) = self.targets_to[b];
            if let Some(rb) = self.handles.get(b).and_then(|&h| self.world.bodies.get_mut(h)) {
                rb.set_next_kinematic_position(Pose3::from_parts(t0.lerp(t1, u), r0.slerp(r1, u)));
            }
        }
    }

    /// Advance by `dt_secs` of real time: as many fixed steps as the accumulator holds, stopping
    /// early (the rest stays in the accumulator) after a step that leaves a body non-finite, so
    /// the solver never runs on NaN. Drive targets are interpolated across the steps. Returns
    /// the number of steps taken.
    pub fn advance(&mut self, spec: &RagdollSpec, dt_secs: f32) -> u32 {
        if dt_secs.is_finite() && dt_secs > 0.0 {
            self.accumulator_secs += f64::from(dt_secs);
        }
        let step = f64::from(self.step_secs);
        let planned = ((self.accumulator_secs + 1e-9) / step).floor().max(0.0) as u32;
        self.advance_steps = planned;
        let mut taken = 0;
        while self.accumulator_secs >= step - 1e-9 {
            self.accumulator_secs -= step;
            let u = (taken + 1) as f32 / planned.max(1) as f32;
            self.apply_motors(spec, u.min(1.0));
            self.step(spec);
            taken += 1;
            if !self.is_finite() {
                break;
            }
        }
        taken
    }

    /// One fixed step; a ragdoll calm for [`SLEEP_AFTER_SECS`] is then put to sleep (never
    /// while driven: kinematic bodies, motors or the pelvis hold keep it awake).
    pub fn step(&mut self, spec: &RagdollSpec) {
        profiling::scope!("ragdoll_step");
        if self.asleep {
            self.steps += 1;
            return;
        }
        self.world.step_with_events(&self.hooks, &());
        self.steps += 1;
        self.project_limits(spec);
        let v = self.limit_violation(spec);
        self.max_violation_rad = self.max_violation_rad.max(v);
        self.max_separation_m = self.max_separation_m.max(self.joint_separation_m(spec));
        self.lowest_seen = self.lowest_seen.min(self.lowest_point());
        let driven = self.motor_strength > 0.0 || self.root_hold > 0.0 || self.kinematic.iter().any(|&k| k);
        if !driven && self.rms_capsule_end_speed() < self.calm_speed_mps {
            self.calm_secs += self.step_secs;
            if self.calm_secs >= SLEEP_AFTER_SECS {
                self.put_to_sleep();
            }
        } else {
            self.calm_secs = 0.0;
        }
        if self.first_step.is_none() {
            let m = self.metres_per_unit;
            let origins: Vec<Vec3> = (0..self.handles.len()).map(|b| self.body_pose(BodyId::from_index(b)).1).collect();
            let velocities = origins
                .iter()
                .zip(&self.handles)
                .map(|(&o, &h)| {
                    let at = self.to_sim_point(o);
                    self.world.bodies.get(h).map_or(Vec3::ZERO, |rb| rb.velocity_at_point(at) / m)
                })
                .collect();
            self.first_step = Some(FirstStep { origins, velocities });
        }
    }

    /// Joint projection (as `PhysX` does it): a joint found more than [`PROJECTION_TOLERANCE_RAD`]
    /// past its limits after a step is turned back to the nearest allowed rotation, the child
    /// body and everything below it rotated rigidly about the joint, so that no other joint
    /// opens. Rapier's limit rows push along each joint axis while the angles they measure
    /// couple at large rotations, so a violent fall can otherwise carry a joint tens of degrees
    /// past its limit for a few frames.
    fn project_limits(&mut self, spec: &RagdollSpec) {
        for &b in &self.projection_order {
            let i = b.index();
            let Some(body) = spec.body(b) else { continue };
            let Some(p) = body.parent else { continue };
            if self.kinematic[i] {
                continue;
            }
            let (rp, _) = self.body_pose(p);
            let Some(rb) = self.world.bodies.get(self.handles[i]) else { continue };
            let (rc, pivot) = (rb.position().rotation, rb.position().translation);
            let relative = (rp * body.joint_frame_parent).inverse() * (rc * body.joint_frame_child);
            let angles = axis_angles(relative);
            let limits = self.limits[i];
            if limits.violation(angles) <= PROJECTION_TOLERANCE_RAD {
                continue;
            }
            let clamped: Vec<f32> = limits.axes().iter().zip(angles).map(|(&[lo, hi], a)| a.clamp(lo, hi)).collect();
            let half_tan = |a: f32| (0.5 * a).tan();
            let allowed =
                Quat::from_xyzw(half_tan(clamped[0]), half_tan(clamped[1]), half_tan(clamped[2]), 1.0).normalize();
            let target = (rp * body.joint_frame_parent * allowed * body.joint_frame_child.inverse()).normalize();
            let turn = (target * rc.inverse()).normalize();
            if !turn.is_finite() {
                continue;
            }
            // Turn the child's side, or (the same relative rotation) the rest of the body the
            // other way: whichever pushes less into the ground.
            let child_side: Vec<usize> = self.subtrees[i].clone();
            let mut inside = vec![false; self.handles.len()];
            for &d in &child_side {
                inside[d] = true;
            }
            let other_side: Vec<usize> = (0..self.handles.len()).filter(|&d| !inside[d]).collect();
            let other_movable = other_side.iter().all(|&d| !self.kinematic[d]);
            let lowest_after = |this: &Self, bodies: &[usize], turn: Quat| {
                bodies
                    .iter()
                    .map(|&d| {
                        let (a, e, r) = this.shapes[d];
                        let Some(rb) = this.world.bodies.get(this.handles[d]) else { return f32::MAX };
                        let pose = rb.position();
                        let m = this.metres_per_unit;
                        let moved = |p: Vec3| pivot + turn * (pose.transform_point(p * m) - pivot);
                        moved(a).y.min(moved(e).y) - r * m
                    })
                    .fold(f32::MAX, f32::min)
            };
            // Never push a body more than a little further into the ground than it is (contacts
            // push it back out): turn only as far as that allows (the rest of the correction
            // comes from the limit rows, or later steps).
            let slack = PROJECTION_GROUND_SLACK * self.size_m;
            let floor = |bodies: &[usize]| lowest_after(self, bodies, Quat::IDENTITY).min(self.ground_sim - slack);
            let reach = |bodies: &[usize], turn: Quat| {
                let floor = floor(bodies);
                [1.0f32, 0.75, 0.5, 0.25, 0.1]
                    .into_iter()
                    .find(|&t| lowest_after(self, bodies, Quat::IDENTITY.slerp(turn, t)) >= floor)
            };
            let child = reach(&child_side, turn);
            let other = if other_movable { reach(&other_side, turn.inverse()) } else { None };

            // Take the side that turns furthest. Short of a full turn, when nothing is
            // kinematic, turn fully and lift the whole body by what it then sinks below the
            // slack (a few millimetres, rarely: wedged against the ground both ways).
            let child = child.map(|t| (t, child_side, turn));
            let other = other.map(|u| (u, other_side, turn.inverse()));
            let best = match (child, other) {
                (Some(c), Some(o)) => Some(if o.0 > c.0 { o } else { c }),
                (c, o) => c.or(o),
            };
            let free = !self.kinematic.iter().any(|&k| k);
            let mut lift = 0.0;
            let (bodies, turn) = match best {
                Some((t, bodies, turn)) if t >= 1.0 || !free => (bodies, Quat::IDENTITY.slerp(turn, t)),
                Some((_, bodies, turn)) => {
                    lift = (floor(&bodies) - lowest_after(self, &bodies, turn)).max(0.0);
                    (bodies, turn)
                }
                None if free => {
                    let bodies = self.subtrees[i].clone();
                    lift = (floor(&bodies) - lowest_after(self, &bodies, turn)).max(0.0);
                    (bodies, turn)
                }
                None => continue,
            };
            for d in bodies {
                let Some(rb) = self.world.bodies.get_mut(self.handles[d]) else { continue };
                let pose = *rb.position();
                let moved =
                    Pose3::from_parts(pivot + turn * (pose.translation - pivot), (turn * pose.rotation).normalize());
                rb.set_position(moved, false);
            }
            if lift > 0.0 {
                for &h in &self.handles {
                    let Some(rb) = self.world.bodies.get_mut(h) else { continue };
                    let mut pose = *rb.position();
                    pose.translation.y += lift;
                    rb.set_position(pose, false);
                }
            }
        }
    }

    /// The largest joint-limit violation now (radians): how far any joint of a simulated body
    /// lies outside its limits, as Rapier measures the angles.
    pub fn limit_violation(&self, spec: &RagdollSpec) -> f32 {
        let mut worst = 0.0f32;
        for (b, body) in spec.bodies.iter().enumerate() {
            let Some(p) = body.parent else { continue };
            if self.kinematic[b] && self.kinematic[p.index()] {
                continue;
            }
            let (rp, _) = self.body_pose(p);
            let (rc, _) = self.body_pose(BodyId::from_index(b));
            let relative = (rp * body.joint_frame_parent).inverse() * (rc * body.joint_frame_child);
            worst = worst.max(self.limits[b].violation(axis_angles(relative)));
        }
        worst
    }

    /// The lowest collider point after any step so far (world y; `f32::MAX` before the first).
    pub fn lowest_point_seen(&self) -> f32 {
        self.lowest_seen
    }

    /// The largest distance now between a joint's two anchors (metres): how far a child body's
    /// origin has come away from where its parent holds it.
    pub fn joint_separation_m(&self, spec: &RagdollSpec) -> f32 {
        let mut largest = 0.0f32;
        for (b, body) in spec.bodies.iter().enumerate() {
            let Some(p) = body.parent else { continue };
            let (Some(parent), Some(child), Some(&anchor)) = (
                self.handles.get(p.index()).and_then(|&h| self.world.bodies.get(h)),
                self.handles.get(b).and_then(|&h| self.world.bodies.get(h)),
                self.anchors.get(b),
            ) else {
                continue;
            };
            let held = parent.position().transform_point(anchor);
            largest = largest.max(held.distance(child.position().translation));
        }
        largest
    }

    /// The largest distance between a joint's two anchors after any step so far (metres).
    pub fn max_joint_separation_m(&self) -> f32 {
        self.max_separation_m
    }

    /// The largest joint-limit violation over every step so far (radians).
    pub fn max_limit_violation(&self) -> f32 {
        self.max_violation_rad
    }

    /// The limits in force for a body's joint to its parent.
    pub fn joint_limits(&self, body: BodyId) -> Option<&JointLimits> {
        self.limits.get(body.index())
    }

    /// Root-mean-square over the simulated bodies of each one's fastest capsule end (metres per
    /// second).
    fn rms_capsule_end_speed(&self) -> f32 {
        let m = self.metres_per_unit;
        let mut sum = 0.0f32;
        for (&h, shape) in self.handles.iter().zip(&self.shapes) {
            let Some(rb) = self.world.bodies.get(h) else { continue };
            let pose = rb.position();
            let fastest = [shape.0, shape.1]
                .iter()
                .map(|&end| rb.velocity_at_point(pose.transform_point(end * m)).length())
                .fold(0.0, f32::max);
            sum += fastest * fastest;
        }
        (sum / self.handles.len().max(1) as f32).sqrt()
    }

    /// Stop every body where it lies.
    fn put_to_sleep(&mut self) {
        for &h in &self.handles {
            if let Some(rb) = self.world.bodies.get_mut(h) {
                rb.set_linvel(Vec3::ZERO, false);
                rb.set_angvel(Vec3::ZERO, false);
                rb.sleep();
            }
        }
        self.asleep = true;
    }

    /// True once the ragdoll came to rest and was put to sleep (a push wakes it).
    pub fn is_asleep(&self) -> bool {
        self.asleep
    }

    /// The fixed step length.
    pub fn step_secs(&self) -> f32 {
        self.step_secs
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Height of the ground plane (world).
    pub fn ground_y(&self) -> f32 {
        self.ground_y
    }

    /// The state right after the first step, once it has been taken.
    pub fn first_step(&self) -> Option<&FirstStep> {
        self.first_step.as_ref()
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.handles.len()
    }

    /// True for bodies moved kinematically on the animation.
    pub fn is_kinematic(&self, body: BodyId) -> bool {
        self.kinematic.get(body.index()).copied().unwrap_or(false)
    }

    /// A body's world rotation and joint-origin position.
    pub fn body_pose(&self, body: BodyId) -> (Quat, Vec3) {
        self.handles.get(body.index()).and_then(|&h| self.world.bodies.get(h)).map_or(
            (Quat::IDENTITY, self.origin),
            |rb| {
                let pose = rb.position();
                (pose.rotation, self.to_world_point(pose.translation))
            },
        )
    }

    /// A body's linear velocity at its joint origin (world units per second).
    pub fn body_velocity(&self, body: BodyId) -> Vec3 {
        let Some(rb) = self.handles.get(body.index()).and_then(|&h| self.world.bodies.get(h)) else {
            return Vec3::ZERO;
        };
        rb.velocity_at_point(rb.position().translation) / self.metres_per_unit
    }

    /// The largest speed of any simulated capsule end (world units per second).
    pub fn max_speed(&self) -> f32 {
        let m = self.metres_per_unit;
        let mut max = 0.0f32;
        for ((shape, &h), &kinematic) in self.shapes.iter().zip(&self.handles).zip(&self.kinematic) {
            let Some(rb) = self.world.bodies.get(h).filter(|_| !kinematic) else { continue };
            let pose = rb.position();
            for end in [shape.0, shape.1] {
                max = max.max(rb.velocity_at_point(pose.transform_point(end * m)).length() / m);
            }
        }
        max
    }

    /// Each body's joint origin at the handoff (world).
    pub fn start_origins(&self) -> &[Vec3] {
        &self.start_origins
    }

    /// The first body that has blown up, and how: a non-finite position, rotation or velocity
    /// (checked first, over every body), else the fastest body when its linear speed exceeds
    /// `max_speed_mps`, else the farthest when it is more than `max_distance_m` from where it
    /// started.
    pub fn find_fault(&self, max_distance_m: f32, max_speed_mps: f32) -> Option<(BodyId, FaultKind)> {
        let mut fastest = (0, 0.0f32);
        let mut farthest = (0, 0.0f32);
        for (b, &h) in self.handles.iter().enumerate() {
            let Some(rb) = self.world.bodies.get(h) else { continue };
            let pose = rb.position();
            let (linvel, angvel) = (rb.linvel(), rb.angvel());
            if !(pose.translation.is_finite() && pose.rotation.is_finite() && linvel.is_finite() && angvel.is_finite())
            {
                return Some((BodyId::from_index(b), FaultKind::NonFinite));
            }
            let speed = linvel.length();
            if speed > fastest.1 {
                fastest = (b, speed);
            }
            let start = self.start_origins.get(b).map_or(pose.translation, |&s| self.to_sim_point(s));
            let distance = pose.translation.distance(start);
            if distance > farthest.1 {
                farthest = (b, distance);
            }
        }
        if fastest.1 > max_speed_mps {
            Some((BodyId::from_index(fastest.0), FaultKind::TooFast { speed_mps: fastest.1, limit_mps: max_speed_mps }))
        } else if farthest.1 > max_distance_m {
            Some((
                BodyId::from_index(farthest.0),
                FaultKind::TooFar { distance_m: farthest.1, limit_m: max_distance_m },
            ))
        } else {
            None
        }
    }

    /// The lowest point of any body's capsule (world y).
    pub fn lowest_point(&self) -> f32 {
        let mut lowest = f32::MAX;
        for b in 0..self.shapes.len() {
            let (a, e, radius) = self.capsule(BodyId::from_index(b));
            lowest = lowest.min(a.y.min(e.y) - radius);
        }
        lowest
    }

    /// A body's capsule `(a, b, radius)` in world space now.
    pub fn capsule(&self, body: BodyId) -> (Vec3, Vec3, f32) {
        let (r, t) = self.body_pose(body);
        let (a, b, radius) = self.shapes.get(body.index()).copied().unwrap_or((Vec3::ZERO, Vec3::ZERO, 0.0));
        (t + r * a, t + r * b, radius)
    }

    /// True when every body position, rotation and velocity is finite.
    pub fn is_finite(&self) -> bool {
        self.handles.iter().all(|&h| {
            self.world.bodies.get(h).is_some_and(|rb| {
                let p = rb.position();
                p.translation.is_finite()
                    && p.rotation.is_finite()
                    && rb.linvel().is_finite()
                    && rb.angvel().is_finite()
            })
        })
    }

    /// World transforms of every node: nodes of the skeleton ride rigidly on their body as they
    /// sat at the handoff (a body's own node, bones merged into it, fingers, and skin joints
    /// above the ragdoll on the root body); nodes outside the skeleton come from
    /// `animated_world`. `out` needs one entry per node.
    pub fn write_world(&self, animated_world: &[Affine3A], out: &mut [Affine3A]) {
        for (node, slot) in out.iter_mut().enumerate() {
            *slot = match self.attachments.get(node).copied().flatten() {
                Some((body, body_from_node)) => {
                    let (r, t) = self.body_pose(body);
                    Affine3A::from_rotation_translation(r, t) * body_from_node
                }
                None => animated_world.get(node).copied().unwrap_or_default(),
            };
        }
    }
}
