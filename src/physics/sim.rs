//! [`Ragdoll`]: the Rapier world of one handoff, stepped at a fixed rate.

use glam::{Affine3A, Quat, Vec3};
use rapier3d::glamx::Pose3;
use rapier3d::prelude::{
    ActiveHooks, ColliderBuilder, JointAxis, PairFilterContext, PhysicsHooks, PhysicsWorld, RigidBodyBuilder,
    RigidBodyHandle, SolverFlags, SphericalJointBuilder,
};

use super::controller::FaultKind;
use super::spec::{RagdollSpec, segment_segment_distance};

/// Tunable physics settings of a ragdoll.
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
    /// Friction of bodies and ground.
    pub friction: f32,
    /// Constraint solver iterations per step.
    pub solver_iterations: usize,
    /// Start the bodies with the animation's velocity (false: at rest).
    pub initial_velocity: bool,
}

impl Default for RagdollSettings {
    fn default() -> Self {
        Self {
            step_hz: 120.0,
            gravity: 9.81,
            density: 1000.0,
            linear_damping: 0.1,
            angular_damping: 1.0,
            friction: 0.8,
            solver_iterations: 8,
            initial_velocity: true,
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

/// The physics world of one handoff: one rigid body per [`RagdollSpec`] body, spherical joints,
/// a ground plane, stepped at a fixed rate with an accumulator. Deterministic: the same inputs
/// give bit-identical results.
pub struct Ragdoll {
    world: PhysicsWorld,
    hooks: PairFilter,
    handles: Vec<RigidBodyHandle>,
    step_secs: f32,
    accumulator_secs: f64,
    steps: u64,
    ground_y: f32,
    first_step: Option<FirstStep>,
    /// Each body's joint origin at the handoff.
    start_origins: Vec<Vec3>,
    /// Each body's capsule segment ends, body frame (for the calm test).
    capsule_ends: Vec<[Vec3; 2]>,
    /// Below this capsule-end speed (world units per second) the ragdoll counts as calm.
    calm_speed: f32,
    /// Seconds the ragdoll has been calm without a break.
    calm_secs: f32,
    /// The bodies were put to sleep (they stay where they lie until pushed).
    asleep: bool,
}

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

impl Ragdoll {
    /// Build the world at the handoff: every body at its node's transform in `world_now`, moving
    /// with the velocity of the motion from `world_before` (`dt_before_secs` earlier) unless
    /// `settings.initial_velocity` is off. Joint anchors are taken from `world_now` so every
    /// joint starts satisfied; limits are centred on the bind pose. The ground plane is at
    /// y = 0, lowered under any body that starts below it.
    pub fn new(
        spec: &RagdollSpec,
        settings: &RagdollSettings,
        world_now: &[Affine3A],
        world_before: &[Affine3A],
        dt_before_secs: f32,
    ) -> Self {
        let mut world = PhysicsWorld::new();
        let units_per_metre = spec.units_per_metre;
        world.gravity = Vec3::new(0.0, -settings.gravity * units_per_metre, 0.0);
        let density = settings.density / units_per_metre.powi(3);
        let params = &mut world.integration_parameters;
        let step_secs = if settings.step_hz > 0.0 { 1.0 / settings.step_hz } else { 1.0 / 120.0 };
        params.dt = step_secs;
        params.length_unit = (spec.size / 1.7).max(1e-3);
        params.num_solver_iterations = settings.solver_iterations.max(1);

        let count = spec.bodies.len();
        let node_world = |w: &[Affine3A], node: usize| w.get(node).copied().unwrap_or_default();
        let poses: Vec<(Quat, Vec3)> = spec.bodies.iter().map(|b| rigid(&node_world(world_now, b.node))).collect();
        let capsules: Vec<(Vec3, Vec3)> =
            spec.bodies.iter().zip(&poses).map(|(b, &(r, t))| (t + r * b.capsule_a, t + r * b.capsule_b)).collect();

        // Pairs that never collide: jointed neighbours, near relatives, and bodies that overlap
        // at the handoff (pushing them apart would pop).
        let mut excluded = vec![false; count * count];
        for a in 0..count {
            for b in 0..count {
                let near = spec.hops(a, b) <= 2;
                let gap = segment_segment_distance(capsules[a].0, capsules[a].1, capsules[b].0, capsules[b].1)
                    - spec.bodies[a].radius
                    - spec.bodies[b].radius;
                excluded[a * count + b] = a == b || near || gap < 0.02 * spec.size;
            }
        }
        let lowest =
            spec.bodies.iter().zip(&capsules).map(|(b, &(p, q))| p.y.min(q.y) - b.radius).fold(0.0f32, f32::min);
        let ground_y = lowest;
        let ground_half = 0.5 * spec.size.max(1.0);
        let ground = world
            .bodies
            .insert(RigidBodyBuilder::fixed().translation(Vec3::new(0.0, ground_y - ground_half, 0.0)).build());
        let extent = 1000.0 * spec.size.max(1.0);
        world.colliders.insert_with_parent(
            ColliderBuilder::cuboid(extent, ground_half, extent).friction(settings.friction).user_data(GROUND),
            ground,
            &mut world.bodies,
        );

        let mut handles = Vec::with_capacity(count);
        for (i, body) in spec.bodies.iter().enumerate() {
            let (rotation, translation) = poses[i];
            let pose = Pose3::from_parts(translation, rotation);
            let mut builder = RigidBodyBuilder::dynamic()
                .pose(pose)
                .linear_damping(settings.linear_damping)
                .angular_damping(settings.angular_damping);
            if settings.initial_velocity && dt_before_secs > 0.0 {
                let (rotation_before, translation_before) = rigid(&node_world(world_before, body.node));
                let local_com = 0.5 * (body.capsule_a + body.capsule_b);
                let com_now = translation + rotation * local_com;
                let com_before = translation_before + rotation_before * local_com;
                let linvel = (com_now - com_before) / dt_before_secs;
                let delta = (rotation * rotation_before.inverse()).normalize();
                let delta = if delta.w < 0.0 { -delta } else { delta };
                let angvel = delta.to_scaled_axis() / dt_before_secs;
                if linvel.is_finite() && angvel.is_finite() {
                    builder = builder.linvel(linvel).angvel(angvel);
                }
            }
            let handle = world.bodies.insert(builder.build());
            world.colliders.insert_with_parent(
                ColliderBuilder::capsule_from_endpoints(body.capsule_a, body.capsule_b, body.radius)
                    .density(density)
                    .friction(settings.friction)
                    .user_data(i as u128)
                    .active_hooks(ActiveHooks::FILTER_CONTACT_PAIRS),
                handle,
                &mut world.bodies,
            );
            handles.push(handle);
        }

        for (i, body) in spec.bodies.iter().enumerate() {
            let Some(p) = body.parent else { continue };
            let (parent_rotation, parent_translation) = poses[p];
            let anchor = parent_rotation.inverse() * (poses[i].1 - parent_translation);
            let limits = body.limits;
            let joint = SphericalJointBuilder::new()
                .local_frame1(Pose3::from_parts(anchor, body.joint_frame_parent))
                .local_frame2(Pose3::from_parts(Vec3::ZERO, body.joint_frame_child))
                .contacts_enabled(false)
                .limits(JointAxis::AngX, limits.twist)
                .limits(JointAxis::AngY, limits.swing_y)
                .limits(JointAxis::AngZ, limits.swing_z);
            world.impulse_joints.insert(handles[p], handles[i], joint, true);
        }

        Self {
            world,
            hooks: PairFilter { count, excluded },
            handles,
            step_secs,
            accumulator_secs: 0.0,
            steps: 0,
            ground_y,
            first_step: None,
            start_origins: poses.iter().map(|&(_, t)| t).collect(),
            capsule_ends: spec.bodies.iter().map(|b| [b.capsule_a, b.capsule_b]).collect(),
            calm_speed: CALM_SPEED_FRACTION * spec.size,
            calm_secs: 0.0,
            asleep: false,
        }
    }

    /// Apply an impulse (world units · kg / s) at a body's centre of mass (waking the ragdoll).
    pub fn apply_impulse(&mut self, body: usize, impulse: Vec3) {
        if let Some(rb) = self.handles.get(body).and_then(|&h| self.world.bodies.get_mut(h)) {
            rb.apply_impulse(impulse, true);
        }
        self.wake();
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
    pub fn set_body_velocity(&mut self, body: usize, linvel: Vec3, angvel: Vec3) {
        if let Some(rb) = self.handles.get(body).and_then(|&h| self.world.bodies.get_mut(h)) {
            rb.set_linvel(linvel, true);
            rb.set_angvel(angvel, true);
        }
        self.wake();
    }

    /// Advance by `dt_secs` of real time: as many fixed steps as the accumulator holds, stopping
    /// early (the rest stays in the accumulator) after a step that leaves a body non-finite, so
    /// the solver never runs on NaN. Returns the number of steps taken.
    pub fn advance(&mut self, dt_secs: f32) -> u32 {
        if dt_secs.is_finite() && dt_secs > 0.0 {
            self.accumulator_secs += f64::from(dt_secs);
        }
        let step = f64::from(self.step_secs);
        let mut taken = 0;
        while self.accumulator_secs >= step - 1e-9 {
            self.accumulator_secs -= step;
            self.step();
            taken += 1;
            if !self.is_finite() {
                break;
            }
        }
        taken
    }

    /// One fixed step; a ragdoll calm for [`SLEEP_AFTER_SECS`] is then put to sleep.
    pub fn step(&mut self) {
        if self.asleep {
            self.steps += 1;
            return;
        }
        self.world.step_with_events(&self.hooks, &());
        self.steps += 1;
        if self.rms_capsule_end_speed() < self.calm_speed {
            self.calm_secs += self.step_secs;
            if self.calm_secs >= SLEEP_AFTER_SECS {
                self.put_to_sleep();
            }
        } else {
            self.calm_secs = 0.0;
        }
        if self.first_step.is_none() {
            let origins: Vec<Vec3> = (0..self.handles.len()).map(|b| self.body_pose(b).1).collect();
            let velocities = origins
                .iter()
                .zip(&self.handles)
                .map(|(&o, &h)| self.world.bodies.get(h).map_or(Vec3::ZERO, |rb| rb.velocity_at_point(o)))
                .collect();
            self.first_step = Some(FirstStep { origins, velocities });
        }
    }

    /// Root-mean-square over the bodies of each one's fastest capsule end (world units per
    /// second).
    fn rms_capsule_end_speed(&self) -> f32 {
        let mut sum = 0.0f32;
        for (&h, ends) in self.handles.iter().zip(&self.capsule_ends) {
            let Some(rb) = self.world.bodies.get(h) else { continue };
            let pose = rb.position();
            let fastest =
                ends.iter().map(|&end| rb.velocity_at_point(pose.transform_point(end)).length()).fold(0.0, f32::max);
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

    /// Height of the ground plane (0, or lower when a body started below 0).
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

    /// A body's world rotation and joint-origin position.
    pub fn body_pose(&self, body: usize) -> (Quat, Vec3) {
        self.handles.get(body).and_then(|&h| self.world.bodies.get(h)).map_or((Quat::IDENTITY, Vec3::ZERO), |rb| {
            let pose = rb.position();
            (pose.rotation, pose.translation)
        })
    }

    /// The largest speed of any capsule end (world units per second).
    pub fn max_speed(&self, spec: &RagdollSpec) -> f32 {
        let mut max = 0.0f32;
        for (body, &h) in spec.bodies.iter().zip(&self.handles) {
            let Some(rb) = self.world.bodies.get(h) else { continue };
            let pose = rb.position();
            for end in [body.capsule_a, body.capsule_b] {
                max = max.max(rb.velocity_at_point(pose.transform_point(end)).length());
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
    /// started. Limits are in metres; the spec's `units_per_metre` converts.
    pub fn find_fault(
        &self,
        spec: &RagdollSpec,
        max_distance_m: f32,
        max_speed_mps: f32,
    ) -> Option<(usize, FaultKind)> {
        let metres = 1.0 / spec.units_per_metre.max(f32::MIN_POSITIVE);
        let mut fastest = (0, 0.0f32);
        let mut farthest = (0, 0.0f32);
        for (b, &h) in self.handles.iter().enumerate() {
            let Some(rb) = self.world.bodies.get(h) else { continue };
            let pose = rb.position();
            let (linvel, angvel) = (rb.linvel(), rb.angvel());
            if !(pose.translation.is_finite() && pose.rotation.is_finite() && linvel.is_finite() && angvel.is_finite())
            {
                return Some((b, FaultKind::NonFinite));
            }
            let speed = linvel.length() * metres;
            if speed > fastest.1 {
                fastest = (b, speed);
            }
            let start = self.start_origins.get(b).copied().unwrap_or(pose.translation);
            let distance = pose.translation.distance(start) * metres;
            if distance > farthest.1 {
                farthest = (b, distance);
            }
        }
        if fastest.1 > max_speed_mps {
            Some((fastest.0, FaultKind::TooFast { speed_mps: fastest.1, limit_mps: max_speed_mps }))
        } else if farthest.1 > max_distance_m {
            Some((farthest.0, FaultKind::TooFar { distance_m: farthest.1, limit_m: max_distance_m }))
        } else {
            None
        }
    }

    /// The lowest point of any body's capsule (world y).
    pub fn lowest_point(&self, spec: &RagdollSpec) -> f32 {
        let mut lowest = f32::MAX;
        for (b, body) in spec.bodies.iter().enumerate() {
            let (r, t) = self.body_pose(b);
            lowest = lowest.min((t + r * body.capsule_a).y.min((t + r * body.capsule_b).y) - body.radius);
        }
        lowest
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

    /// World transforms of every node driven by the physics: bodies from the simulation (with
    /// their rest world scale), nodes merged into a body following it rigidly with their local
    /// transform from `frozen_local` (the handoff pose), nodes outside the ragdoll from
    /// `animated_world`. `out` needs one entry per node.
    pub fn write_world(
        &self,
        spec: &RagdollSpec,
        hierarchy: &anim::Hierarchy,
        frozen_local: &anim::SoaPose,
        animated_world: &[Affine3A],
        out: &mut [Affine3A],
    ) {
        for &id in hierarchy.order() {
            let node = id.index();
            if node >= out.len() {
                continue;
            }
            let value = match spec.node_body.get(node).copied().flatten() {
                Some(b) if spec.bodies.get(b).is_some_and(|body| body.node == node) => {
                    let (rotation, translation) = self.body_pose(b);
                    Affine3A::from_scale_rotation_translation(spec.bodies[b].world_scale, rotation, translation)
                }
                Some(_) => {
                    let parent = hierarchy.parent(id).and_then(|p| out.get(p.index()).copied()).unwrap_or_default();
                    let local = frozen_local.get(id).unwrap_or_default();
                    parent * Affine3A::from_scale_rotation_translation(local.scale, local.rotation, local.translation)
                }
                None => animated_world.get(node).copied().unwrap_or_default(),
            };
            out[node] = value;
        }
    }
}
