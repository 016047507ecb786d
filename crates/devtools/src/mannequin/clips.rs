//! The mannequin's animation clips, keyed by hand the way an animator keys: a few full-body key
//! poses per clip, each with a deliberate ease.
//!
//! Conventions (all joints have identity bind rotations, so these hold in every joint's frame):
//! `e(x, y, z)` is yaw(Y) · pitch(X) · roll(Z) in degrees. For bones pointing up (spine, neck,
//! head) +X bends forward; for bones pointing down (legs) +X swings the tip backwards (so +X bends
//! a knee, -X lifts a thigh forward), and +X points the toes down. +Y turns to the character's
//! left. `limb(fwd, out, twist)` is for the arms (whose bind direction is diagonal in the
//! A-pose): `fwd` swings the tip forwards, `out` raises it away from the body (negative lowers the
//! arm towards the side), `twist` rolls about the bone; all mirrored per side, so a pose mirrors
//! by swapping .L and .R.

use glam::{DQuat, DVec3};

use super::math::{canonical, quat_axis_deg};
use super::skeleton::{self as sk, JOINT_COUNT, Pose, Side};

/// How a sampler interpolates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Interp {
    Step,
    Linear,
    CubicSpline,
}

impl Interp {
    pub fn gltf_name(self) -> &'static str {
        match self {
            Interp::Step => "STEP",
            Interp::Linear => "LINEAR",
            Interp::CubicSpline => "CUBICSPLINE",
        }
    }
}

/// Tangent choice at a key (only used by cubic-spline clips).
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Ease {
    /// Zero tangents: the curve eases in and out of the key (holds, extremes, contacts).
    Flat,
    /// Catmull-Rom tangent through the neighbouring keys (passing poses keep moving).
    Auto,
    /// Half of the Catmull-Rom tangent: keeps moving, but softly.
    Soft,
}

/// An authored joint rotation.
#[derive(Clone, Copy, Debug)]
pub enum Rot {
    /// Euler degrees, applied roll (Z) first, then pitch (X), then yaw (Y).
    E(f64, f64, f64),
    /// Arm rotation in degrees: twist about the bone, then forward swing, then raise.
    Limb { fwd: f64, out: f64, twist: f64 },
}

pub fn e(x: f64, y: f64, z: f64) -> Rot {
    Rot::E(x, y, z)
}

pub fn limb(fwd: f64, out: f64, twist: f64) -> Rot {
    Rot::Limb { fwd, out, twist }
}

/// Bind-pose direction of the bone that starts at `joint` (towards its child).
fn bone_dir(joint: usize) -> DVec3 {
    let p = sk::bind_world_positions();
    match sk::side_of(joint) {
        Some(side) => {
            let arm = sk::arm(side);
            if joint == arm.shoulder {
                (p[arm.upper] - p[arm.shoulder]).normalize()
            } else if joint == arm.upper || joint == arm.lower || joint == arm.hand {
                sk::arm_dir(side)
            } else {
                DVec3::NEG_Y
            }
        }
        None => DVec3::Y,
    }
}

impl Rot {
    pub fn quat(self, joint: usize) -> DQuat {
        match self {
            Rot::E(x, y, z) => quat_axis_deg(DVec3::Y, y) * quat_axis_deg(DVec3::X, x) * quat_axis_deg(DVec3::Z, z),
            Rot::Limb { fwd, out, twist } => {
                let s = sk::side_of(joint).map_or(1.0, Side::sign);
                let d = bone_dir(joint);
                let fwd_axis = d.cross(DVec3::Z).normalize();
                quat_axis_deg(DVec3::Z, out * s) * quat_axis_deg(fwd_axis, fwd) * quat_axis_deg(d, twist * s)
            }
        }
    }

    fn mirrored(self) -> Rot {
        match self {
            Rot::E(x, y, z) => Rot::E(x, -y, -z),
            limb @ Rot::Limb { .. } => limb,
        }
    }
}

/// One full-body key pose.
#[derive(Clone, Debug)]
pub struct KeyPose {
    pub time: f64,
    pub ease: Ease,
    pub rots: Vec<(usize, Rot)>,
    /// Hips offset from the bind position (its y is ignored when `ground` is set).
    pub hips: DVec3,
    /// When set, the hips height is solved so that the lowest point of the feet sits this high
    /// above the floor.
    pub ground: Option<f64>,
}

impl KeyPose {
    pub fn new(time: f64, ease: Ease) -> Self {
        Self { time, ease, rots: Vec::new(), hips: DVec3::ZERO, ground: Some(0.0) }
    }

    pub fn r(mut self, joint: usize, rot: Rot) -> Self {
        self.rots.retain(|(j, _)| *j != joint);
        self.rots.push((joint, rot));
        self
    }

    /// Sets both sides of a limb joint pair; `joint` is the left one.
    pub fn both(self, left: usize, rot: Rot) -> Self {
        let mirrored = rot.mirrored();
        self.r(left, rot).r(sk::mirror_joint(left), mirrored)
    }

    pub fn hips(mut self, offset: DVec3) -> Self {
        self.hips = offset;
        self
    }

    pub fn lift(mut self, height: f64) -> Self {
        self.ground = Some(height);
        self
    }

    pub fn at(mut self, time: f64, ease: Ease) -> Self {
        self.time = time;
        self.ease = ease;
        self
    }

    /// The same pose on the other side of the body, at `time`.
    pub fn mirrored(&self, time: f64) -> Self {
        Self {
            time,
            ease: self.ease,
            rots: self.rots.iter().map(|&(j, r)| (sk::mirror_joint(j), r.mirrored())).collect(),
            hips: DVec3::new(-self.hips.x, self.hips.y, self.hips.z),
            ground: self.ground,
        }
    }

    /// The solved skeleton pose.
    pub fn pose(&self) -> Pose {
        let mut pose = Pose::bind();
        for &(joint, rot) in &self.rots {
            pose.rotations[joint] = canonical(rot.quat(joint));
        }
        pose.hips_translation += self.hips;
        if let Some(height) = self.ground {
            let lowest = lowest_foot_point(&pose);
            pose.hips_translation.y += height - lowest;
        }
        pose
    }
}

/// Points on the soles, as offsets from the Foot and Toes joints in their bind frames.
const HEEL_POINTS: [[f64; 3]; 2] = [[0.022, -0.085, -0.023], [-0.022, -0.085, -0.023]];
const TOE_POINTS: [[f64; 3]; 3] = [[0.035, -0.025, 0.0], [-0.035, -0.025, 0.0], [0.0, -0.02, 0.07]];

/// World height of the lowest sole point of either foot.
pub fn lowest_foot_point(pose: &Pose) -> f64 {
    let (rot, pos) = pose.world();
    let mut lowest = f64::MAX;
    for side in [Side::Left, Side::Right] {
        let leg = sk::leg(side);
        for (joint, points) in [(leg.foot, &HEEL_POINTS[..]), (leg.toes, &TOE_POINTS[..])] {
            for pt in points {
                let w = pos[joint] + rot[joint] * DVec3::from_array(*pt);
                lowest = lowest.min(w.y);
            }
        }
    }
    lowest
}

/// A clip as authored.
pub struct ClipSpec {
    pub name: &'static str,
    pub interp: Interp,
    /// Loop period in seconds; the first pose is repeated at this time to close the loop.
    pub period: Option<f64>,
    pub poses: Vec<KeyPose>,
    /// Blink morph weight keys (time, weight, ease).
    pub blink: Vec<(f64, f64, Ease)>,
}

/// One channel's keys, ready to be written.
pub struct Track {
    pub times: Vec<f32>,
    /// Flattened output: values (STEP/LINEAR) or in-tangent, value, out-tangent triplets.
    pub output: Vec<f32>,
}

pub enum Target {
    Rotation(usize),
    Translation(usize),
    Weights,
}

pub struct BuiltClip {
    pub name: &'static str,
    pub interp: Interp,
    pub looping: bool,
    pub channels: Vec<(Target, Track)>,
}

/// Tangents (units per second) for keys `values` at `times` with the given eases.
fn tangents(times: &[f64], values: &[Vec<f64>], eases: &[Ease], looping: bool) -> Vec<Vec<f64>> {
    let n = times.len();
    let dim = values[0].len();
    let slope =
        |a: usize, b: usize, dt: f64| -> Vec<f64> { (0..dim).map(|c| (values[b][c] - values[a][c]) / dt).collect() };
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let auto = if looping && (k == 0 || k == n - 1) {
            // Periodic: the last key is the first one again; both use the same neighbours.
            let dt = (times[1] - times[0]) + (times[n - 1] - times[n - 2]);
            slope(n - 2, 1, dt)
        } else if k == 0 {
            slope(0, 1, times[1] - times[0])
        } else if k == n - 1 {
            slope(n - 2, n - 1, times[n - 1] - times[n - 2])
        } else {
            slope(k - 1, k + 1, times[k + 1] - times[k - 1])
        };
        let scale = match eases[k] {
            Ease::Flat => 0.0,
            Ease::Auto => 1.0,
            Ease::Soft => 0.5,
        };
        out.push(auto.iter().map(|v| v * scale).collect());
    }
    out
}

#[allow(clippy::cast_possible_truncation)]
fn track(interp: Interp, times: &[f64], values: &[Vec<f64>], eases: &[Ease], looping: bool) -> Track {
    let mut output = Vec::new();
    if interp == Interp::CubicSpline {
        let tans = tangents(times, values, eases, looping);
        for (v, t) in values.iter().zip(&tans) {
            output.extend(t.iter().map(|&x| x as f32));
            output.extend(v.iter().map(|&x| x as f32));
            output.extend(t.iter().map(|&x| x as f32));
        }
    } else {
        for v in values {
            output.extend(v.iter().map(|&x| x as f32));
        }
    }
    Track { times: times.iter().map(|&t| t as f32).collect(), output }
}

impl ClipSpec {
    pub fn build(&self) -> BuiltClip {
        let mut poses = self.poses.clone();
        if let Some(period) = self.period {
            let first = poses[0].clone();
            poses.push(KeyPose { time: period, ..first });
        }
        let looping = self.period.is_some();
        let solved: Vec<Pose> = poses.iter().map(KeyPose::pose).collect();
        let times: Vec<f64> = poses.iter().map(|p| p.time).collect();
        let eases: Vec<Ease> = poses.iter().map(|p| p.ease).collect();
        for w in times.windows(2) {
            assert!(w[1] > w[0], "{}: key times must increase", self.name);
        }
        let mut channels = Vec::new();
        let hips: Vec<Vec<f64>> = solved.iter().map(|p| p.hips_translation.to_array().to_vec()).collect();
        channels.push((Target::Translation(sk::HIPS), track(self.interp, &times, &hips, &eases, looping)));
        for joint in 0..JOINT_COUNT {
            let values: Vec<Vec<f64>> = solved
                .iter()
                .map(|p| {
                    let q = p.rotations[joint];
                    vec![q.x, q.y, q.z, q.w]
                })
                .collect();
            for w in values.windows(2) {
                let dot: f64 = w[0].iter().zip(&w[1]).map(|(a, b)| a * b).sum();
                assert!(dot > 0.0, "{}: {} flips hemisphere", self.name, sk::JOINT_NAMES[joint]);
            }
            channels.push((Target::Rotation(joint), track(self.interp, &times, &values, &eases, looping)));
        }
        if !self.blink.is_empty() {
            let times: Vec<f64> = self.blink.iter().map(|k| k.0).collect();
            let values: Vec<Vec<f64>> = self.blink.iter().map(|k| vec![k.1]).collect();
            let eases: Vec<Ease> = self.blink.iter().map(|k| k.2).collect();
            channels.push((Target::Weights, track(self.interp, &times, &values, &eases, looping)));
        }
        BuiltClip { name: self.name, interp: self.interp, looping, channels }
    }
}

// ---------------------------------------------------------------------------------------------
// The clips.

fn l_arm() -> sk::Arm {
    sk::arm(Side::Left)
}
fn r_arm() -> sk::Arm {
    sk::arm(Side::Right)
}
fn l_leg() -> sk::Leg {
    sk::leg(Side::Left)
}
fn r_leg() -> sk::Leg {
    sk::leg(Side::Right)
}

/// Relaxed standing pose: arms down by the sides, soft elbows.
fn rest(time: f64, ease: Ease) -> KeyPose {
    KeyPose::new(time, ease)
        .both(l_arm().upper, limb(3.0, -34.0, 0.0))
        .both(l_arm().lower, limb(12.0, 0.0, 0.0))
        .both(l_arm().hand, limb(4.0, 0.0, 0.0))
}

fn idle() -> ClipSpec {
    let breath = |time: f64, chest: f64, shoulders: f64, sway: f64, head_turn: f64| {
        rest(time, Ease::Auto)
            .hips(DVec3::new(sway, 0.0, 0.0))
            .r(sk::HIPS, e(0.0, 0.0, sway * 90.0))
            .r(sk::SPINE, e(0.5, 0.0, -sway * 60.0))
            .r(sk::CHEST, e(-chest, 0.0, -sway * 30.0))
            .r(sk::NECK, e(chest * 0.5, head_turn * 0.4, 0.0))
            .r(sk::HEAD, e(chest * 0.3, head_turn * 0.6, sway * 60.0))
            .both(l_arm().shoulder, limb(0.0, shoulders, 0.0))
            .both(l_arm().upper, limb(3.0 + chest * 0.5, -34.0 + shoulders, 0.0))
            // Feet stay planted while the hips sway: both legs lean the same way.
            .r(l_leg().upper, e(0.0, 0.0, -sway * 90.0 - sway * 67.0))
            .r(r_leg().upper, e(0.0, 0.0, -sway * 90.0 - sway * 67.0))
            .r(l_leg().foot, e(0.0, 0.0, sway * 67.0))
            .r(r_leg().foot, e(0.0, 0.0, sway * 67.0))
    };
    ClipSpec {
        name: "Idle",
        interp: Interp::CubicSpline,
        period: Some(4.0),
        poses: vec![
            breath(0.0, 0.0, 0.0, -0.01, 0.0),
            breath(1.0, 1.8, 1.6, 0.0, 2.0),
            breath(2.0, 2.4, 2.2, 0.01, 4.0),
            breath(3.0, 0.8, 0.8, 0.0, 1.0),
        ],
        blink: vec![
            (0.0, 0.0, Ease::Flat),
            (2.3, 0.0, Ease::Flat),
            (2.38, 1.0, Ease::Flat),
            (2.52, 0.0, Ease::Flat),
            (4.0, 0.0, Ease::Flat),
        ],
    }
}

/// The first half of the walk cycle (left foot contact to just before right foot contact).
fn walk_half() -> Vec<KeyPose> {
    let (la, ra, ll, rl) = (l_arm(), r_arm(), l_leg(), r_leg());
    let torso = |p: KeyPose, hip_yaw: f64, hip_roll: f64, chest_yaw: f64| {
        p.r(sk::HIPS, e(3.0, hip_yaw, hip_roll))
            .r(sk::SPINE, e(2.0, -hip_yaw * 0.3, -hip_roll * 0.6))
            .r(sk::CHEST, e(0.0, chest_yaw, -hip_roll * 0.4))
            .r(sk::NECK, e(-2.0, -(hip_yaw * 0.7 + chest_yaw) * 0.5, 0.0))
            .r(sk::HEAD, e(-3.0, -(hip_yaw * 0.7 + chest_yaw) * 0.5, 0.0))
    };
    let arms = |p: KeyPose, left_fwd: f64, right_fwd: f64| {
        p.r(la.upper, limb(left_fwd, -33.0, 0.0))
            .r(ra.upper, limb(right_fwd, -33.0, 0.0))
            .r(la.lower, limb(14.0 + left_fwd.max(0.0) * 0.8, 0.0, 0.0))
            .r(ra.lower, limb(14.0 + right_fwd.max(0.0) * 0.8, 0.0, 0.0))
            .both(la.hand, limb(5.0, 0.0, 0.0))
    };
    // Contact: left heel strikes in front, right foot pushing off behind.
    let contact = torso(KeyPose::new(0.0, Ease::Auto), -4.0, 0.0, 6.0)
        .r(ll.upper, e(-23.0, 0.0, 0.0))
        .r(ll.lower, e(3.0, 0.0, 0.0))
        .r(ll.foot, e(0.0, 0.0, 0.0))
        .r(rl.upper, e(14.0, 0.0, 0.0))
        .r(rl.lower, e(18.0, 0.0, 0.0))
        .r(rl.foot, e(-4.0, 0.0, 0.0))
        .r(rl.toes, e(-28.0, 0.0, 0.0));
    let contact = arms(contact, -18.0, 22.0);
    // Down: weight goes onto the left leg, knee absorbs, right toe leaves the ground.
    let down = torso(KeyPose::new(0.13, Ease::Auto), -3.0, 3.0, 5.0)
        .hips(DVec3::new(0.012, 0.0, 0.0))
        .r(ll.upper, e(-24.0, 0.0, 0.0))
        .r(ll.lower, e(30.0, 0.0, 0.0))
        .r(ll.foot, e(-9.0, 0.0, 0.0))
        .r(rl.upper, e(10.0, 0.0, 0.0))
        .r(rl.lower, e(42.0, 0.0, 0.0))
        .r(rl.foot, e(12.0, 0.0, 0.0))
        .r(rl.toes, e(-12.0, 0.0, 0.0));
    let down = arms(down, -22.0, 26.0);
    // Passing: left leg under the body, right leg swings through with the knee bent.
    let passing = torso(KeyPose::new(0.275, Ease::Auto), 0.0, 2.0, 0.0)
        .hips(DVec3::new(0.018, 0.0, 0.0))
        .r(ll.upper, e(-4.0, 0.0, 0.0))
        .r(ll.lower, e(5.0, 0.0, 0.0))
        .r(ll.foot, e(-4.0, 0.0, 0.0))
        .r(rl.upper, e(-18.0, 0.0, 0.0))
        .r(rl.lower, e(55.0, 0.0, 0.0))
        .r(rl.foot, e(-28.0, 0.0, 0.0));
    let passing = arms(passing, -2.0, 4.0);
    // Up: left heel peels off, right leg reaches forward for the next contact.
    let up = torso(KeyPose::new(0.41, Ease::Auto), 3.0, 0.0, -4.0)
        .hips(DVec3::new(0.01, 0.0, 0.0))
        .r(ll.upper, e(10.0, 0.0, 0.0))
        .r(ll.lower, e(8.0, 0.0, 0.0))
        .r(ll.foot, e(-6.0, 0.0, 0.0))
        .r(ll.toes, e(-10.0, 0.0, 0.0))
        .r(rl.upper, e(-30.0, 0.0, 0.0))
        .r(rl.lower, e(20.0, 0.0, 0.0))
        .r(rl.foot, e(-6.0, 0.0, 0.0));
    let up = arms(up, 14.0, -12.0);
    vec![contact, down, passing, up]
}

/// Mirrors the first half of a cycle into the second half.
fn full_cycle(half: Vec<KeyPose>, half_period: f64) -> Vec<KeyPose> {
    let second: Vec<KeyPose> = half.iter().map(|p| p.mirrored(p.time + half_period)).collect();
    half.into_iter().chain(second).collect()
}

const WALK_PERIOD: f64 = 1.1;

fn walk(name: &'static str, interp: Interp) -> ClipSpec {
    ClipSpec {
        name,
        interp,
        period: Some(WALK_PERIOD),
        poses: full_cycle(walk_half(), WALK_PERIOD / 2.0),
        blink: Vec::new(),
    }
}

fn run() -> ClipSpec {
    let (la, ra, ll, rl) = (l_arm(), r_arm(), l_leg(), r_leg());
    let torso = |p: KeyPose, hip_yaw: f64, chest_yaw: f64| {
        p.r(sk::HIPS, e(9.0, hip_yaw, 0.0))
            .r(sk::SPINE, e(3.0, -hip_yaw * 0.3, 0.0))
            .r(sk::CHEST, e(2.0, chest_yaw, 0.0))
            .r(sk::NECK, e(-6.0, -(hip_yaw * 0.7 + chest_yaw) * 0.5, 0.0))
            .r(sk::HEAD, e(-7.0, -(hip_yaw * 0.7 + chest_yaw) * 0.5, 0.0))
    };
    let arms = |p: KeyPose, left_fwd: f64, right_fwd: f64| {
        p.r(la.upper, limb(left_fwd, -30.0, 0.0))
            .r(ra.upper, limb(right_fwd, -30.0, 0.0))
            .r(la.lower, limb(80.0 + left_fwd * 0.2, 0.0, 0.0))
            .r(ra.lower, limb(80.0 + right_fwd * 0.2, 0.0, 0.0))
            .both(la.hand, limb(10.0, 0.0, 0.0))
    };
    let contact = torso(KeyPose::new(0.0, Ease::Auto), -7.0, 10.0)
        .r(ll.upper, e(-32.0, 0.0, 0.0))
        .r(ll.lower, e(20.0, 0.0, 0.0))
        .r(ll.foot, e(4.0, 0.0, 0.0))
        .r(rl.upper, e(8.0, 0.0, 0.0))
        .r(rl.lower, e(80.0, 0.0, 0.0))
        .r(rl.foot, e(15.0, 0.0, 0.0));
    let contact = arms(contact, -38.0, 44.0);
    let absorb = torso(KeyPose::new(0.07, Ease::Auto), -4.0, 7.0)
        .hips(DVec3::new(0.01, 0.0, 0.0))
        .r(ll.upper, e(-18.0, 0.0, 0.0))
        .r(ll.lower, e(42.0, 0.0, 0.0))
        .r(ll.foot, e(-6.0, 0.0, 0.0))
        .r(rl.upper, e(-22.0, 0.0, 0.0))
        .r(rl.lower, e(100.0, 0.0, 0.0))
        .r(rl.foot, e(-5.0, 0.0, 0.0));
    let absorb = arms(absorb, -42.0, 48.0);
    let push = torso(KeyPose::new(0.15, Ease::Auto), 3.0, 2.0)
        .hips(DVec3::new(0.008, 0.0, 0.0))
        .r(ll.upper, e(20.0, 0.0, 0.0))
        .r(ll.lower, e(18.0, 0.0, 0.0))
        .r(ll.foot, e(22.0, 0.0, 0.0))
        .r(ll.toes, e(-25.0, 0.0, 0.0))
        .r(rl.upper, e(-58.0, 0.0, 0.0))
        .r(rl.lower, e(85.0, 0.0, 0.0))
        .r(rl.foot, e(-8.0, 0.0, 0.0));
    let push = arms(push, -20.0, 26.0);
    let flight = torso(KeyPose::new(0.25, Ease::Auto), 6.0, -6.0)
        .lift(0.07)
        .r(ll.upper, e(26.0, 0.0, 0.0))
        .r(ll.lower, e(62.0, 0.0, 0.0))
        .r(ll.foot, e(18.0, 0.0, 0.0))
        .r(rl.upper, e(-48.0, 0.0, 0.0))
        .r(rl.lower, e(38.0, 0.0, 0.0))
        .r(rl.foot, e(-4.0, 0.0, 0.0));
    let flight = arms(flight, 20.0, -14.0);
    ClipSpec {
        name: "Run",
        interp: Interp::CubicSpline,
        period: Some(0.7),
        poses: full_cycle(vec![contact, absorb, push, flight], 0.35),
        blink: Vec::new(),
    }
}

fn wave() -> ClipSpec {
    let ra = r_arm();
    let arm_up = |time: f64, ease: Ease, forearm: f64, hand: f64| {
        rest(time, ease)
            .r(sk::SPINE, e(0.0, -2.0, 2.0))
            .r(sk::CHEST, e(-2.0, -4.0, 3.0))
            .r(sk::NECK, e(0.0, -3.0, 0.0))
            .r(sk::HEAD, e(-3.0, -6.0, -5.0))
            .r(ra.shoulder, limb(0.0, 10.0, 0.0))
            .r(ra.upper, limb(12.0, 52.0, 0.0))
            .r(ra.lower, limb(10.0, 95.0 + forearm, -80.0))
            .r(ra.hand, limb(0.0, 8.0 + hand, 0.0))
    };
    let rising = rest(0.45, Ease::Auto)
        .r(sk::CHEST, e(-1.0, -2.0, 1.5))
        .r(sk::HEAD, e(-1.0, -3.0, -2.0))
        .r(ra.shoulder, limb(0.0, 5.0, 0.0))
        .r(ra.upper, limb(25.0, 15.0, 0.0))
        .r(ra.lower, limb(60.0, 30.0, -40.0))
        .r(ra.hand, limb(10.0, 0.0, 0.0));
    ClipSpec {
        name: "Wave",
        interp: Interp::CubicSpline,
        period: None,
        poses: vec![
            rest(0.0, Ease::Flat),
            rising,
            arm_up(0.75, Ease::Soft, 0.0, 0.0),
            arm_up(0.95, Ease::Auto, 20.0, -6.0),
            arm_up(1.15, Ease::Auto, -20.0, 14.0),
            arm_up(1.35, Ease::Auto, 20.0, -14.0),
            arm_up(1.55, Ease::Auto, -20.0, 14.0),
            arm_up(1.75, Ease::Auto, 18.0, -12.0),
            arm_up(1.95, Ease::Flat, 0.0, 4.0),
            rest(2.65, Ease::Flat),
        ],
        blink: Vec::new(),
    }
}

/// The jump's key poses (shared by the cubic clip and its stepped blocking pass).
fn jump_poses() -> Vec<KeyPose> {
    let (la, ll) = (l_arm(), l_leg());
    let crouch = |time: f64, ease: Ease, depth: f64, arm_fwd: f64| {
        KeyPose::new(time, ease)
            .r(sk::HIPS, e(20.0 + depth * 6.0, 0.0, 0.0))
            .r(sk::SPINE, e(8.0, 0.0, 0.0))
            .r(sk::CHEST, e(4.0, 0.0, 0.0))
            .r(sk::NECK, e(-12.0, 0.0, 0.0))
            .r(sk::HEAD, e(-10.0 - depth * 4.0, 0.0, 0.0))
            .both(ll.upper, e(-62.0 - depth * 16.0, 0.0, 2.0))
            .both(ll.lower, e(90.0 + depth * 14.0, 0.0, 0.0))
            .both(ll.foot, e(-48.0 - depth * 4.0, 0.0, -2.0))
            .both(la.upper, limb(arm_fwd, -28.0, 0.0))
            .both(la.lower, limb(20.0, 0.0, 0.0))
            .both(la.hand, limb(10.0, 0.0, 0.0))
    };
    let launch = KeyPose::new(0.46, Ease::Auto)
        .r(sk::HIPS, e(4.0, 0.0, 0.0))
        .r(sk::SPINE, e(-4.0, 0.0, 0.0))
        .r(sk::CHEST, e(-6.0, 0.0, 0.0))
        .r(sk::HEAD, e(-4.0, 0.0, 0.0))
        .both(ll.upper, e(-6.0, 0.0, 0.0))
        .both(ll.lower, e(6.0, 0.0, 0.0))
        .both(ll.foot, e(42.0, 0.0, 0.0))
        .both(ll.toes, e(-12.0, 0.0, 0.0))
        .both(la.upper, limb(118.0, 6.0, 0.0))
        .both(la.lower, limb(12.0, 0.0, 0.0));
    let apex = KeyPose::new(0.76, Ease::Flat)
        .lift(0.38)
        .r(sk::HIPS, e(8.0, 0.0, 0.0))
        .r(sk::SPINE, e(2.0, 0.0, 0.0))
        .r(sk::HEAD, e(-6.0, 0.0, 0.0))
        .both(ll.upper, e(-48.0, 0.0, 3.0))
        .both(ll.lower, e(76.0, 0.0, 0.0))
        .both(ll.foot, e(4.0, 0.0, 0.0))
        .both(la.upper, limb(120.0, 22.0, 0.0))
        .both(la.lower, limb(22.0, 0.0, 0.0));
    let reach = KeyPose::new(1.02, Ease::Auto)
        .lift(0.1)
        .r(sk::HIPS, e(6.0, 0.0, 0.0))
        .r(sk::HEAD, e(-8.0, 0.0, 0.0))
        .both(ll.upper, e(-24.0, 0.0, 2.0))
        .both(ll.lower, e(26.0, 0.0, 0.0))
        .both(ll.foot, e(18.0, 0.0, 0.0))
        .both(la.upper, limb(70.0, 18.0, 0.0))
        .both(la.lower, limb(20.0, 0.0, 0.0));
    let touch = KeyPose::new(1.12, Ease::Auto)
        .r(sk::HIPS, e(10.0, 0.0, 0.0))
        .r(sk::SPINE, e(3.0, 0.0, 0.0))
        .r(sk::HEAD, e(-8.0, 0.0, 0.0))
        .both(ll.upper, e(-30.0, 0.0, 2.0))
        .both(ll.lower, e(36.0, 0.0, 0.0))
        .both(ll.foot, e(-6.0, 0.0, 0.0))
        .both(la.upper, limb(45.0, 10.0, 0.0))
        .both(la.lower, limb(25.0, 0.0, 0.0));
    vec![
        rest(0.0, Ease::Flat),
        crouch(0.3, Ease::Flat, 0.0, -40.0),
        launch,
        apex,
        reach,
        touch,
        crouch(1.34, Ease::Flat, 1.0, 45.0),
        rest(1.85, Ease::Flat),
    ]
}

fn jump(name: &'static str, interp: Interp) -> ClipSpec {
    ClipSpec { name, interp, period: None, poses: jump_poses(), blink: Vec::new() }
}

fn stumble() -> ClipSpec {
    let (la, ra, ll, rl) = (l_arm(), r_arm(), l_leg(), r_leg());
    // Starts from the walk's passing pose: left foot planted, right leg swinging through.
    let start = walk_half()[2].clone().at(0.0, Ease::Auto);
    let trip = KeyPose::new(0.2, Ease::Auto)
        .hips(DVec3::new(0.0, 0.0, 0.1))
        .r(sk::HIPS, e(12.0, 2.0, 0.0))
        .r(sk::SPINE, e(8.0, 0.0, 0.0))
        .r(sk::CHEST, e(6.0, 0.0, 0.0))
        .r(sk::NECK, e(-8.0, 0.0, 0.0))
        .r(sk::HEAD, e(-6.0, 0.0, 0.0))
        .r(ll.upper, e(-14.0, 0.0, 0.0))
        .r(ll.lower, e(16.0, 0.0, 0.0))
        .r(ll.foot, e(-4.0, 0.0, 0.0))
        .r(rl.upper, e(4.0, 0.0, 0.0))
        .r(rl.lower, e(62.0, 0.0, 0.0))
        .r(rl.foot, e(22.0, 0.0, 0.0))
        .r(la.upper, limb(28.0, -5.0, 0.0))
        .r(ra.upper, limb(20.0, 0.0, 0.0))
        .both(la.lower, limb(25.0, 0.0, 0.0));
    let lurch = KeyPose::new(0.45, Ease::Auto)
        .hips(DVec3::new(0.0, 0.0, 0.32))
        .r(sk::HIPS, e(24.0, 4.0, -3.0))
        .r(sk::SPINE, e(10.0, 0.0, 0.0))
        .r(sk::CHEST, e(8.0, -4.0, 0.0))
        .r(sk::NECK, e(-18.0, 0.0, 0.0))
        .r(sk::HEAD, e(-12.0, 0.0, 0.0))
        .r(ll.upper, e(4.0, 0.0, 0.0))
        .r(ll.lower, e(24.0, 0.0, 0.0))
        .r(ll.foot, e(14.0, 0.0, 0.0))
        .r(ll.toes, e(-20.0, 0.0, 0.0))
        .r(rl.upper, e(-62.0, 0.0, 0.0))
        .r(rl.lower, e(58.0, 0.0, 0.0))
        .r(rl.foot, e(-12.0, 0.0, 0.0))
        .r(la.upper, limb(70.0, 40.0, 0.0))
        .r(ra.upper, limb(48.0, 58.0, 0.0))
        .both(la.lower, limb(18.0, 0.0, 0.0))
        .both(la.hand, limb(-10.0, 0.0, 0.0));
    let stagger = KeyPose::new(0.78, Ease::Auto)
        .hips(DVec3::new(-0.02, 0.0, 0.58))
        .r(sk::HIPS, e(36.0, 6.0, -5.0))
        .r(sk::SPINE, e(14.0, 0.0, 0.0))
        .r(sk::CHEST, e(10.0, -6.0, 0.0))
        .r(sk::NECK, e(-24.0, 0.0, 0.0))
        .r(sk::HEAD, e(-14.0, 0.0, 0.0))
        .r(ll.upper, e(-6.0, 0.0, 0.0))
        .r(ll.lower, e(55.0, 0.0, 0.0))
        .r(ll.foot, e(28.0, 0.0, 0.0))
        .r(ll.toes, e(-30.0, 0.0, 0.0))
        .r(rl.upper, e(-66.0, 0.0, -4.0))
        .r(rl.lower, e(42.0, 0.0, 0.0))
        .r(rl.foot, e(-10.0, 0.0, 0.0))
        .r(la.upper, limb(88.0, 32.0, 0.0))
        .r(ra.upper, limb(80.0, 40.0, 0.0))
        .both(la.lower, limb(10.0, 0.0, 0.0))
        .both(la.hand, limb(-20.0, 0.0, 0.0));
    let buckle = KeyPose::new(1.1, Ease::Auto)
        .hips(DVec3::new(-0.03, 0.0, 0.8))
        .r(sk::HIPS, e(48.0, 8.0, -6.0))
        .r(sk::SPINE, e(14.0, 0.0, 0.0))
        .r(sk::CHEST, e(10.0, -6.0, 0.0))
        .r(sk::NECK, e(-30.0, 0.0, 0.0))
        .r(sk::HEAD, e(-16.0, 0.0, 0.0))
        .r(ll.upper, e(6.0, 0.0, 0.0))
        .r(ll.lower, e(40.0, 0.0, 0.0))
        .r(ll.foot, e(20.0, 0.0, 0.0))
        .r(rl.upper, e(-84.0, 0.0, -4.0))
        .r(rl.lower, e(84.0, 0.0, 0.0))
        .r(rl.foot, e(-24.0, 0.0, 0.0))
        .r(la.upper, limb(100.0, 28.0, 0.0))
        .r(ra.upper, limb(96.0, 34.0, 0.0))
        .both(la.lower, limb(12.0, 0.0, 0.0))
        .both(la.hand, limb(-30.0, 0.0, 0.0));
    let falling = KeyPose::new(1.4, Ease::Auto)
        .hips(DVec3::new(-0.04, 0.0, 0.98))
        .r(sk::HIPS, e(62.0, 10.0, -8.0))
        .r(sk::SPINE, e(14.0, 0.0, 0.0))
        .r(sk::CHEST, e(10.0, -6.0, 0.0))
        .r(sk::NECK, e(-34.0, 0.0, 0.0))
        .r(sk::HEAD, e(-18.0, 0.0, 0.0))
        .r(ll.upper, e(10.0, 0.0, 0.0))
        .r(ll.lower, e(30.0, 0.0, 0.0))
        .r(ll.foot, e(14.0, 0.0, 0.0))
        .r(rl.upper, e(-96.0, 0.0, -4.0))
        .r(rl.lower, e(104.0, 0.0, 0.0))
        .r(rl.foot, e(-34.0, 0.0, 0.0))
        .r(la.upper, limb(112.0, 26.0, 0.0))
        .r(ra.upper, limb(108.0, 30.0, 0.0))
        .both(la.lower, limb(14.0, 0.0, 0.0))
        .both(la.hand, limb(-40.0, 0.0, 0.0));
    ClipSpec {
        name: "Stumble",
        interp: Interp::CubicSpline,
        period: None,
        poses: vec![start, trip, lurch, stagger, buckle, falling],
        blink: Vec::new(),
    }
}

/// All clips, in file order.
pub fn all() -> Vec<ClipSpec> {
    vec![
        idle(),
        walk("Walk", Interp::CubicSpline),
        run(),
        wave(),
        jump("Jump", Interp::CubicSpline),
        stumble(),
        walk("Walk_Linear", Interp::Linear),
        jump("Jump_Blocking", Interp::Step),
    ]
}
