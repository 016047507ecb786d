//! The authored fast path's data layout: tracks grouped per (timeline, property, interpolation),
//! their keys stored as structure-of-arrays planes, four tracks per SIMD lane group.
//!
//! A group of `n` tracks keeps, for every key (and, for CUBICSPLINE, every part: in-tangent,
//! value, out-tangent), one plane per component (`x`, `y`, `z` and for rotations `w`) of `lanes`
//! floats (`n` rounded up to 4). One segment of every track is then a handful of contiguous
//! `Vec4` loads, and a LINEAR slerp of four tracks is one SIMD evaluation of two sine
//! polynomials over arcs precomputed per segment.

use glam::{Quat, Vec3, Vec4};

use crate::clip::{Interpolation, Property, Timeline, Track, TrackValues};
use crate::interp::sin4_quarter_turn;
use crate::pose::Pose;
use crate::sample::Segment;

/// Tracks of one property and interpolation on one timeline, as SIMD-ready planes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SoaGroup {
    pub timeline: usize,
    pub interpolation: Interpolation,
    pub property: Property,
    /// Target node of each track (lane order).
    pub nodes: Vec<u32>,
    /// Chunks of four lanes: `nodes.len()` / 4, rounded up.
    pub chunks: usize,
    /// Components per value: 4 for rotations, 3 otherwise.
    comps: usize,
    /// Parts per key: 3 (in-tangent, value, out-tangent) for CUBICSPLINE, else 1.
    parts: usize,
    /// The first target node when the targets are consecutive nodes (written as one slice).
    first_node: Option<usize>,
    /// `values[((key × parts + part) × comps + comp) × chunks + chunk]`, each `Vec4` one
    /// component of four tracks; padding lanes hold the identity (0, and 1 in a rotation's `w`).
    pub values: Vec<Vec4>,
    /// LINEAR rotations only, per segment `k → k + 1`: three planes of `chunks` vectors: the arc
    /// angle Ω, `1 / sin Ω` (0 where the keys are so close that normalized lerp is exact to f32)
    /// and the sign that puts the end key on the start key's hemisphere. Zero for the last key.
    pub arcs: Vec<Vec4>,
}

impl SoaGroup {
    /// Build the groups of a clip's tracks (morph weights are not grouped).
    pub fn build_all(timelines: &[Timeline], tracks: &[Track]) -> Vec<Self> {
        let mut keys: Vec<(usize, Property, Interpolation)> = Vec::new();
        for track in tracks {
            let key = (track.timeline, track.property(), track.interpolation);
            if track.property() != Property::Weights && !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys.into_iter()
            .map(|(timeline, property, interpolation)| {
                let members: Vec<&Track> = tracks
                    .iter()
                    .filter(|t| t.timeline == timeline && t.property() == property && t.interpolation == interpolation)
                    .collect();
                Self::build(&timelines[timeline], property, interpolation, &members, timeline)
            })
            .collect()
    }

    fn build(
        timeline_keys: &Timeline,
        property: Property,
        interpolation: Interpolation,
        members: &[&Track],
        timeline: usize,
    ) -> Self {
        let n = members.len();
        let lanes = n.next_multiple_of(4).max(4);
        let keys = timeline_keys.times_secs.len();
        let parts = if interpolation == Interpolation::CubicSpline { 3 } else { 1 };
        let comps = if property == Property::Rotation { 4 } else { 3 };
        let mut values = vec![0.0f32; keys * parts * comps * lanes];
        let value = |track: &Track, element: usize| -> Vec4 {
            match &track.values {
                TrackValues::Translation(v) | TrackValues::Scale(v) => v[element].extend(0.0),
                TrackValues::Rotation(q) => Vec4::from(q[element]),
                TrackValues::Weights { .. } => Vec4::ZERO,
            }
        };
        for key in 0..keys {
            for part in 0..parts {
                for comp in 0..comps {
                    let start = ((key * parts + part) * comps + comp) * lanes;
                    let plane = &mut values[start..start + lanes];
                    for (lane, slot) in plane.iter_mut().enumerate() {
                        *slot = match members.get(lane) {
                            Some(track) => value(track, key * parts + part)[comp],
                            // Identity padding: a unit quaternion keeps normalization finite.
                            None => f32::from(property == Property::Rotation && comp == 3 && (parts == 1 || part == 1)),
                        };
                    }
                }
            }
        }
        let mut arcs = Vec::new();
        if property == Property::Rotation && interpolation == Interpolation::Linear {
            arcs = vec![0.0f32; keys * 3 * lanes];
            for key in 0..keys.saturating_sub(1) {
                for (lane, track) in members.iter().enumerate() {
                    let (a, b) = (value(track, key), value(track, key + 1));
                    let arc = crate::clip::Arc::between(Quat::from_vec4(a), Quat::from_vec4(b));
                    let base = key * 3 * lanes + lane;
                    arcs[base] = arc.omega;
                    arcs[base + lanes] = arc.inv_sin_omega;
                    arcs[base + 2 * lanes] = arc.sign;
                }
            }
        }
        let pack = |floats: Vec<f32>| floats.chunks_exact(4).map(Vec4::from_slice).collect();
        let nodes: Vec<u32> = members.iter().map(|t| t.node as u32).collect();
        let consecutive = nodes.windows(2).all(|w| w[1] == w[0].wrapping_add(1));
        Self {
            timeline,
            interpolation,
            property,
            first_node: nodes.first().filter(|_| consecutive).map(|&n| n as usize),
            nodes,
            chunks: lanes / 4,
            comps,
            parts,
            values: pack(values),
            arcs: pack(arcs),
        }
    }

    /// Sample every track of the group at `segment` (with the timeline's cubic weights `w`)
    /// into `pose`.
    #[inline]
    pub fn sample(&self, segment: &Segment, w: Vec4, pose: &mut Pose) {
        let (k, next, held, u) = (segment.key as usize, segment.next as usize, segment.held as usize, segment.u);
        let hold = match self.interpolation {
            Interpolation::Step => true,
            // At a key (and before the first or after the last) the key itself, bit for bit.
            Interpolation::Linear => u == 0.0,
            Interpolation::CubicSpline => false,
        };
        if hold {
            let part = usize::from(self.parts == 3);
            let key = if self.interpolation == Interpolation::Step { held } else { k };
            let [x, y, z, w] = self.planes(key, part);
            let values = x.iter().zip(y).zip(z.iter().zip(w)).map(|((&x, &y), (&z, &w))| [x, y, z, w]);
            self.write_lanes(pose, values);
            return;
        }
        match (self.property, self.interpolation) {
            (Property::Rotation, Interpolation::Linear) => self.slerp_lanes(k, next, u, pose),
            (_, Interpolation::Linear) => self.lerp_lanes(k, next, u, pose),
            (Property::Rotation, _) => self.cubic_lanes::<true>(k, next, w, pose),
            _ => self.cubic_lanes::<false>(k, next, w, pose),
        }
    }

    /// The component planes of one key part, each exactly `chunks` long (for vectors the `w`
    /// plane repeats `z`; it is never stored).
    #[inline]
    fn planes(&self, key: usize, part: usize) -> [&[Vec4]; 4] {
        let (comps, n) = (self.comps, self.chunks);
        let start = (key * self.parts + part) * comps * n;
        let block = &self.values[start..start + comps * n];
        let (x, rest) = block.split_at(n);
        let (y, rest) = rest.split_at(n);
        let (z, w) = rest.split_at(n);
        [x, y, z, if comps == 4 { w } else { z }]
    }

    /// Write the group's tracks into `pose` from `values`, one item (component planes
    /// `[x, y, z, w]` of four lanes) per chunk.
    #[inline(always)]
    fn write_lanes(&self, pose: &mut Pose, values: impl Iterator<Item = [Vec4; 4]>) {
        // Consecutive targets: one slice, no per-track index.
        if let Some(first) = self.first_node {
            let range = first..first + self.nodes.len();
            if self.property == Property::Rotation {
                if let Some(out) = pose.rotations.get_mut(range) {
                    for (out, [x, y, z, w]) in out.chunks_mut(4).zip(values) {
                        for (out, column) in out.iter_mut().zip(transpose4(x, y, z, w)) {
                            *out = Quat::from_vec4(column);
                        }
                    }
                }
            } else {
                let out =
                    if self.property == Property::Translation { &mut pose.translations } else { &mut pose.scales };
                if let Some(out) = out.get_mut(range) {
                    for (out, [x, y, z, w]) in out.chunks_mut(4).zip(values) {
                        let columns = transpose4(x, y, z, w);
                        if let Ok(four) = <&mut [Vec3; 4]>::try_from(&mut *out) {
                            store_vec3x4(four, columns);
                        } else {
                            for (out, column) in out.iter_mut().zip(columns) {
                                *out = column.truncate();
                            }
                        }
                    }
                }
            }
            return;
        }
        if self.property == Property::Rotation {
            for (nodes, [x, y, z, w]) in self.nodes.chunks(4).zip(values) {
                for (&node, column) in nodes.iter().zip(transpose4(x, y, z, w)) {
                    if let Some(out) = pose.rotations.get_mut(node as usize) {
                        *out = Quat::from_vec4(column);
                    }
                }
            }
        } else {
            let out = if self.property == Property::Translation { &mut pose.translations } else { &mut pose.scales };
            for (nodes, [x, y, z, w]) in self.nodes.chunks(4).zip(values) {
                for (&node, column) in nodes.iter().zip(transpose4(x, y, z, w)) {
                    if let Some(out) = out.get_mut(node as usize) {
                        *out = column.truncate();
                    }
                }
            }
        }
    }

    /// LINEAR translation or scale: `a + (b − a)·u`, four tracks at a time.
    #[inline]
    fn lerp_lanes(&self, k: usize, next: usize, u: f32, pose: &mut Pose) {
        let u = Vec4::splat(u);
        let ([ax, ay, az, _], [bx, by, bz, _]) = (self.planes(k, 0), self.planes(next, 0));
        let lerp = |(&a, &b): (&Vec4, &Vec4)| a + (b - a) * u;
        let values = ax
            .iter()
            .zip(bx)
            .zip(ay.iter().zip(by))
            .zip(az.iter().zip(bz))
            .map(|((x, y), z)| [lerp(x), lerp(y), lerp(z), Vec4::ZERO]);
        self.write_lanes(pose, values);
    }

    /// CUBICSPLINE: `v₀·h₀₀ + m₀·h₁₀Δt + v₁·h₀₁ + m₁·h₁₁Δt` (weights `w`), rotations then
    /// normalized (a zero result gives the identity).
    #[inline]
    fn cubic_lanes<const ROTATION: bool>(&self, k: usize, next: usize, w: Vec4, pose: &mut Pose) {
        let (wv0, wm0, wv1, wm1) = (Vec4::splat(w.x), Vec4::splat(w.y), Vec4::splat(w.z), Vec4::splat(w.w));
        let (v0, m0, m1, v1) = (self.planes(k, 1), self.planes(k, 2), self.planes(next, 0), self.planes(next, 1));
        let component = |i: usize| {
            v0[i]
                .iter()
                .zip(m0[i])
                .zip(v1[i].iter().zip(m1[i]))
                .map(move |((&v0, &m0), (&v1, &m1))| v0 * wv0 + m0 * wm0 + v1 * wv1 + m1 * wm1)
        };
        let values = component(0).zip(component(1)).zip(component(2).zip(component(3))).map(|((x, y), (z, w))| {
            let mut out = [x, y, z, w];
            if ROTATION {
                normalize_lanes(&mut out);
            }
            out
        });
        self.write_lanes(pose, values);
    }

    /// LINEAR rotation: slerp on the precomputed arcs, `a·sin((1−u)Ω)/sin Ω + ±b·sin(uΩ)/sin Ω`,
    /// four tracks at a time; lanes whose keys are nearly equal use normalized lerp.
    #[inline]
    fn slerp_lanes(&self, k: usize, next: usize, u: f32, pose: &mut Pose) {
        let n = self.chunks;
        let arcs = &self.arcs[k * 3 * n..(k + 1) * 3 * n];
        let (omegas, inv_sins, signs) = (&arcs[..n], &arcs[n..2 * n], &arcs[2 * n..3 * n]);
        let ([ax, ay, az, aw], [bx, by, bz, bw]) = (self.planes(k, 0), self.planes(next, 0));
        let (one_minus_u, u_splat) = (Vec4::splat(1.0 - u), Vec4::splat(u));
        let arcs = omegas.iter().zip(inv_sins).zip(signs);
        let a = ax.iter().zip(ay).zip(az.iter().zip(aw));
        let b = bx.iter().zip(by).zip(bz.iter().zip(bw));
        let values = arcs.zip(a.zip(b)).map(|(((&omega, &inv_sin), &sign), (a, b))| {
            let (((&ax, &ay), (&az, &aw)), ((&bx, &by), (&bz, &bw))) = (a, b);
            let s0 = sin4_quarter_turn(one_minus_u * omega) * inv_sin;
            let s1 = sin4_quarter_turn(u_splat * omega) * inv_sin;
            let near = inv_sin.cmpeq(Vec4::ZERO);
            let wa = Vec4::select(near, one_minus_u, s0);
            let wb = Vec4::select(near, u_splat, s1) * sign;
            let mut out = [ax * wa + bx * wb, ay * wa + by * wb, az * wa + bz * wb, aw * wa + bw * wb];
            // Slerp lanes are unit already (to rounding); normalized lerp lanes need it.
            if near.any() {
                normalize_lanes(&mut out);
            }
            out
        });
        self.write_lanes(pose, values);
    }
}

/// Store the `xyz` of four columns into four consecutive `Vec3`s (48 bytes): three overlapping
/// 16-byte stores and one 12-byte store, instead of four 12-byte stores of extracted lanes.
#[inline(always)]
fn store_vec3x4(out: &mut [Vec3; 4], columns: [Vec4; 4]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{__m128, _mm_storeu_ps};
        const _: () = assert!(std::mem::size_of::<[Vec3; 4]>() == 48);
        let base = out.as_mut_ptr().cast::<f32>();
        // SAFETY: `Vec3` is `#[repr(C)]` of three `f32` (12 bytes, checked above), so `out` is 12
        // consecutive floats. The stores cover floats 0..4, 3..7 and 6..10 (each overwriting the
        // next value's first float before that value is stored) and the last value is written
        // as a plain `Vec3`: nothing outside `out` is touched.
        unsafe {
            _mm_storeu_ps(base, __m128::from(columns[0]));
            _mm_storeu_ps(base.add(3), __m128::from(columns[1]));
            _mm_storeu_ps(base.add(6), __m128::from(columns[2]));
        }
        out[3] = columns[3].truncate();
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        for (out, column) in out.iter_mut().zip(columns) {
            *out = column.truncate();
        }
    }
}

/// Transpose four component planes (`x`, `y`, `z`, `w` of four lanes) into four values.
#[inline(always)]
fn transpose4(x: Vec4, y: Vec4, z: Vec4, w: Vec4) -> [Vec4; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{__m128, _mm_movehl_ps, _mm_movelh_ps, _mm_unpackhi_ps, _mm_unpacklo_ps};
        let (x, y, z, w): (__m128, __m128, __m128, __m128) = (x.into(), y.into(), z.into(), w.into());
        // SAFETY: register-only shuffles; SSE is enabled (the cfg above), and part of every
        // x86_64 target's baseline.
        unsafe {
            let (xy_lo, xy_hi) = (_mm_unpacklo_ps(x, y), _mm_unpackhi_ps(x, y));
            let (zw_lo, zw_hi) = (_mm_unpacklo_ps(z, w), _mm_unpackhi_ps(z, w));
            [
                _mm_movelh_ps(xy_lo, zw_lo).into(),
                _mm_movehl_ps(zw_lo, xy_lo).into(),
                _mm_movelh_ps(xy_hi, zw_hi).into(),
                _mm_movehl_ps(zw_hi, xy_hi).into(),
            ]
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        let (x, y, z, w) = (x.to_array(), y.to_array(), z.to_array(), w.to_array());
        [0, 1, 2, 3].map(|i| Vec4::new(x[i], y[i], z[i], w[i]))
    }
}

/// Normalize four quaternions given as component planes (a zero or non-finite length gives the
/// identity).
#[inline]
fn normalize_lanes<const C: usize>(q: &mut [Vec4; C]) {
    let mut length2 = Vec4::ZERO;
    for c in q.iter() {
        length2 += *c * *c;
    }
    let usable = length2.cmpgt(Vec4::splat(1e-30)) & length2.cmplt(Vec4::splat(f32::INFINITY));
    let inverse = Vec4::ONE / crate::interp::sqrt4(length2.max(Vec4::splat(1e-30)));
    for (comp, c) in q.iter_mut().enumerate() {
        let identity = if comp == 3 { Vec4::ONE } else { Vec4::ZERO };
        *c = Vec4::select(usable, *c * inverse, identity);
    }
}
