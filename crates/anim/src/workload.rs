//! Synthetic benchmark workloads, built in memory (no file needed).
//!
//! **W64**: a 64-joint skeleton (joint 0 the root; joint i's parent is 0 when (i−1) is a multiple
//! of 8, else i−1: 8 chains of 8), rest translation (0, 0.1, 0); one 10 s clip keyed every
//! 1/30 s (301 keys) on translation, rotation and scale of every joint, all channels on one
//! shared timeline, with smooth values (sums of sines; rotations normalized).

use glam::{Mat4, Quat, Vec3, Vec4};

use crate::clip::{Clip, RawClip};
use crate::hierarchy::Hierarchy;
use crate::ids::NodeId;
use crate::model::{Model, Node};
use crate::pose::Transform;
use crate::rng::Rng;
use crate::skin::Skin;
use crate::timeline::Timeline;
use crate::track::{Interpolation, Track, TrackValues};

/// Joints in W64.
pub const W64_JOINTS: usize = 64;
/// Keys per channel in W64.
pub const W64_KEYS: usize = 301;
/// Clip length of W64.
pub const W64_DURATION_SECS: f32 = 10.0;

/// `count` pseudo-random times in `[0, duration_secs)` from a fixed seed: the scrubbing
/// workload of the benchmarks.
pub fn random_times(duration_secs: f32, count: usize) -> Vec<f32> {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    (0..count).map(|_| rng.unit() * duration_secs).collect()
}

/// Parent of joint `i` in W64.
pub fn w64_parent(i: usize) -> Option<usize> {
    match i {
        0 => None,
        i if (i - 1).is_multiple_of(8) => Some(0),
        i => Some(i - 1),
    }
}

/// Smooth curves of time for joint `j` (value and derivative), shifted by `phase_secs`.
fn curves(j: usize, t: f32, phase_secs: f32) -> ([f32; 10], [f32; 10]) {
    let mut value = [0.0; 10];
    let mut derivative = [0.0; 10];
    for (c, (v, d)) in value.iter_mut().zip(derivative.iter_mut()).enumerate() {
        let f1 = 0.3 + 0.07 * ((j * 3 + c) % 11) as f32;
        let f2 = 1.1 + 0.13 * ((j * 5 + c * 7) % 13) as f32;
        let p = (j * 10 + c) as f32 * 0.37;
        let x = t + phase_secs;
        let tau = std::f32::consts::TAU;
        *v = (tau * f1 * x + p).sin() + 0.3 * (tau * f2 * x + 2.0 * p).sin();
        *d = tau * f1 * (tau * f1 * x + p).cos() + 0.3 * tau * f2 * (tau * f2 * x + 2.0 * p).cos();
    }
    (value, derivative)
}

/// Translation, rotation (4-vector before normalization) and scale from the curves.
fn trs(c: &[f32; 10]) -> (Vec3, Vec4, Vec3) {
    (
        Vec3::new(0.02 * c[0], 0.1 + 0.02 * c[1], 0.02 * c[2]),
        Vec4::new(0.25 * c[3], 0.25 * c[4], 0.25 * c[5], 1.0 + 0.1 * c[6]),
        Vec3::new(1.0 + 0.05 * c[7], 1.0 + 0.05 * c[8], 1.0 + 0.05 * c[9]),
    )
}

/// The W64 clip, LINEAR or CUBICSPLINE, shifted by `phase_secs` (0 for the main clip; the
/// second clip of blend benchmarks uses another phase).
pub fn w64_clip(interpolation: Interpolation, phase_secs: f32) -> Clip {
    let times_secs: Vec<f32> = (0..W64_KEYS).map(|k| k as f32 / 30.0).collect();
    let cubic = interpolation == Interpolation::CubicSpline;
    let mut tracks = Vec::with_capacity(3 * W64_JOINTS);
    for j in 0..W64_JOINTS {
        let mut t_values = Vec::new();
        let mut r_values = Vec::new();
        let mut s_values = Vec::new();
        let mut previous = Quat::IDENTITY;
        for &t in &times_secs {
            let (value, derivative) = curves(j, t, phase_secs);
            let (tv, rv, sv) = trs(&value);
            let r = Quat::from_vec4(rv.normalize());
            // Keep consecutive keys on one hemisphere.
            let r = if r.dot(previous) < 0.0 { -r } else { r };
            previous = r;
            if cubic {
                // Tangents: derivatives of the curves (the rotation's of the normalized curve).
                let (dt, drv, ds) = {
                    let d = &derivative;
                    (
                        Vec3::new(0.02 * d[0], 0.02 * d[1], 0.02 * d[2]),
                        Vec4::new(0.25 * d[3], 0.25 * d[4], 0.25 * d[5], 0.1 * d[6]),
                        Vec3::new(0.05 * d[7], 0.05 * d[8], 0.05 * d[9]),
                    )
                };
                let n = rv.length();
                let unit = rv / n;
                let mut dr = (drv - unit * unit.dot(drv)) / n;
                if Vec4::from(r).dot(unit) < 0.0 {
                    dr = -dr;
                }
                let drq = Quat::from_vec4(dr);
                t_values.extend([dt, tv, dt]);
                r_values.extend([drq, r, drq]);
                s_values.extend([ds, sv, ds]);
            } else {
                t_values.push(tv);
                r_values.push(r);
                s_values.push(sv);
            }
        }
        let track =
            |values| Track { node: NodeId::from_index(j), timeline: 0, interpolation, values, channel: 0, sampler: 0 };
        tracks.push(track(TrackValues::Translation(t_values)));
        tracks.push(track(TrackValues::Rotation(r_values)));
        tracks.push(track(TrackValues::Scale(s_values)));
    }
    for (i, t) in tracks.iter_mut().enumerate() {
        t.channel = i;
        t.sampler = i;
    }
    let name = if phase_secs == 0.0 {
        format!("W64 {}", interpolation.gltf_name())
    } else {
        format!("W64 {} shifted {phase_secs} s", interpolation.gltf_name())
    };
    RawClip { name: Some(name), timelines: vec![Timeline { times_secs }], tracks, min_end_secs: 0.0 }
        .build()
        .unwrap_or_else(|e| unreachable!("W64 is built consistent: {e}"))
}

/// The W64 model: skeleton, one skin over every joint (bind pose = rest pose), and clips
/// `[LINEAR, CUBICSPLINE, LINEAR shifted by 2.5 s, CUBICSPLINE shifted by 2.5 s]`.
pub fn w64_model() -> Model {
    let parents: Vec<Option<NodeId>> = (0..W64_JOINTS).map(|i| w64_parent(i).map(NodeId::from_index)).collect();
    let hierarchy = Hierarchy::from_parents(&parents).unwrap_or_else(|e| unreachable!("W64 is a tree: {e}"));
    let rest = Transform { translation: Vec3::new(0.0, 0.1, 0.0), ..Transform::IDENTITY };
    let nodes: Vec<Node> = (0..W64_JOINTS)
        .map(|i| Node {
            name: Some(format!("joint{i}")),
            rest,
            mesh: None,
            skin: None,
            rest_weights: Vec::new(),
            weights_offset: 0,
        })
        .collect();
    let mut world = vec![Mat4::IDENTITY; W64_JOINTS];
    for &n in hierarchy.order() {
        let local = nodes[n.index()].rest.to_mat4();
        world[n.index()] = hierarchy.parent(n).map_or(local, |p| world[p.index()] * local);
    }
    let skin = Skin {
        name: Some("W64".to_owned()),
        joints: (0..W64_JOINTS).map(NodeId::from_index).collect(),
        inverse_bind_matrices: world.iter().map(|m| m.inverse()).collect(),
        skeleton: Some(NodeId::from_index(0)),
    };
    Model {
        nodes,
        hierarchy,
        scenes: Vec::new(),
        default_scene: None,
        meshes: Vec::new(),
        skins: vec![skin],
        materials: Vec::new(),
        images: Vec::new(),
        clips: vec![
            w64_clip(Interpolation::Linear, 0.0),
            w64_clip(Interpolation::CubicSpline, 0.0),
            w64_clip(Interpolation::Linear, 2.5),
            w64_clip(Interpolation::CubicSpline, 2.5),
        ],
        weight_count: 0,
        extensions: Vec::new(),
        pointer_tracks: Vec::new(),
        node_visible: Vec::new(),
    }
}
