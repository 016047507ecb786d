//! The authored fast path's data layout: tracks grouped per (timeline, property, interpolation),
//! their keys stored as structure-of-arrays planes in the pose's own blocks of eight nodes.
//!
//! A group keeps, for every key (and for CUBICSPLINE every part: value and tangents), one
//! [`F8`] per component (`x`, `y`, `z`, and `w` for rotations) of every pose block it animates:
//! lane `l` of block `b` is node `8·b + l`, exactly as in [`SoaPose`]. Sampling a segment is then
//! a run of aligned loads, vertical SIMD arithmetic and aligned stores straight into a
//! [`SoaPose`] — no transposes. Lanes a group does not animate hold the identity (so every lane
//! stays finite) and are masked out when written.
//!
//! * LINEAR translation and scale: `a + (b − a)·u`.
//! * LINEAR rotation: slerp on arcs precomputed per segment (Ω, `k = Ω/sin Ω`, and `k` times the
//!   shortest-path sign): `a·(1−u)k·sinc((1−u)Ω) + b·u·k·sinc(uΩ)`, with no division and no
//!   special case for nearly equal keys.
//! * CUBICSPLINE: Hermite with the timeline's weights, rotations normalized. When every in-tangent
//!   equals its key's out-tangent (C¹ curves, as most exporters write) one tangent is stored per
//!   key: a third less memory to stream.
//! * STEP, and LINEAR exactly at a key: the key copied bit for bit.

use glam::Vec4;

use crate::pose::SoaPose;
use crate::simd8::{F8, Isa, V, sinc_quarter_turn};
use crate::timeline::{Segment, Timeline};
use crate::track::{Interpolation, Property, Track, TrackValues};

/// Tracks of one property and interpolation on one timeline, as SIMD planes in pose blocks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SoaGroup {
    pub timeline: usize,
    pub interpolation: Interpolation,
    pub property: Property,
    /// The pose blocks written (block index, lanes animated as bits), ascending.
    blocks: Vec<(u32, u8)>,
    /// `blocks` is `0, 1, 2, …` with every lane animated: block `i` is pose block `i`, unmasked.
    dense: bool,
    /// Parts per key: 1 (STEP, LINEAR), 2 (CUBICSPLINE `[value, tangent]` when in- and
    /// out-tangents are equal everywhere) or 3 (CUBICSPLINE `[in-tangent, value, out-tangent]`).
    parts: usize,
    /// `values[((key × parts + part) × blocks + block) × comps + comp]`, `comps` = 4 for
    /// rotations and 3 otherwise.
    values: Vec<F8>,
    /// LINEAR rotations only, per segment `k → k + 1` and block: `[Ω, k, k·sign]`.
    arcs: Vec<[F8; 3]>,
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
                // One track per node and property (a later channel on the same target wins, as
                // in the per-track path, which writes in channel order).
                let mut members: Vec<&Track> = Vec::new();
                for track in tracks
                    .iter()
                    .filter(|t| t.timeline == timeline && t.property() == property && t.interpolation == interpolation)
                {
                    members.retain(|m| m.node != track.node);
                    members.push(track);
                }
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
        let keys = timeline_keys.times_secs.len();
        let comps = if property == Property::Rotation { 4 } else { 3 };
        let value = |track: &Track, element: usize| -> Vec4 {
            match &track.values {
                TrackValues::Translation(v) | TrackValues::Scale(v) => v[element].extend(0.0),
                TrackValues::Rotation(q) => Vec4::from(q[element]),
                TrackValues::Weights { .. } => Vec4::ZERO,
            }
        };
        let cubic = interpolation == Interpolation::CubicSpline;
        let shared_tangents = cubic
            && members.iter().all(|t| (0..keys).all(|k| value(t, 3 * k).to_array() == value(t, 3 * k + 2).to_array()));
        let parts = match (cubic, shared_tangents) {
            (false, _) => 1,
            (true, true) => 2,
            (true, false) => 3,
        };
        // The element of the glTF output accessor holding `part` of `key`.
        let element = |key: usize, part: usize| match parts {
            1 => key,
            2 => 3 * key + 1 - part, // part 0: value (3k + 1), part 1: tangent (3k)
            _ => 3 * key + part,
        };
        let mut block_list: Vec<(u32, u8)> = Vec::new();
        for track in members {
            let (block, lane) = ((track.node.index() / 8) as u32, track.node.index() % 8);
            match block_list.iter_mut().find(|(b, _)| *b == block) {
                Some((_, mask)) => *mask |= 1 << lane,
                None => block_list.push((block, 1 << lane)),
            }
        }
        block_list.sort_unstable();
        let nb = block_list.len();
        let identity = |comp: usize, part: usize| {
            let is_value_part = parts == 1 || (parts == 2 && part == 0) || (parts == 3 && part == 1);
            let one = (property == Property::Rotation && comp == 3) || property == Property::Scale;
            if one && is_value_part { 1.0 } else { 0.0 }
        };
        // The member animating each lane of each block.
        let lane_tracks: Vec<[Option<&Track>; 8]> = block_list
            .iter()
            .map(|&(block, _)| {
                std::array::from_fn(|lane| {
                    members.iter().copied().find(|t| t.node.index() == block as usize * 8 + lane)
                })
            })
            .collect();
        let mut values = vec![F8::ZERO; keys * parts * nb * comps];
        for key in 0..keys {
            for part in 0..parts {
                for (b, tracks) in lane_tracks.iter().enumerate() {
                    for comp in 0..comps {
                        let plane = &mut values[((key * parts + part) * nb + b) * comps + comp];
                        for (slot, track) in plane.0.iter_mut().zip(tracks) {
                            *slot = match track {
                                Some(track) => value(track, element(key, part))[comp],
                                None => identity(comp, part),
                            };
                        }
                    }
                }
            }
        }
        let mut arcs = Vec::new();
        if property == Property::Rotation && interpolation == Interpolation::Linear {
            arcs = vec![[F8::ZERO, F8::ONE, F8::ONE]; keys * nb];
            for key in 0..keys.saturating_sub(1) {
                for (b, tracks) in lane_tracks.iter().enumerate() {
                    for (lane, track) in tracks.iter().enumerate() {
                        let Some(track) = track else { continue };
                        let (omega, k, sign) = arc(value(track, key), value(track, key + 1));
                        let slot = &mut arcs[key * nb + b];
                        slot[0].0[lane] = omega;
                        slot[1].0[lane] = k;
                        slot[2].0[lane] = k * sign;
                    }
                }
            }
        }
        let dense = block_list.iter().enumerate().all(|(i, &(block, mask))| block as usize == i && mask == 0xff);
        Self { timeline, interpolation, property, blocks: block_list, dense, parts, values, arcs }
    }

    /// Sample every track of the group at `segment` (cubic weights `w`) into `pose`.
    #[inline(always)]
    pub fn sample_into<I: Isa>(&self, isa: I, segment: &Segment, w: Vec4, pose: &mut SoaPose) {
        match (self.property == Property::Rotation, self.dense) {
            (true, true) => self.sample_comps::<I, 4, true>(isa, segment, w, pose),
            (true, false) => self.sample_comps::<I, 4, false>(isa, segment, w, pose),
            (false, true) => self.sample_comps::<I, 3, true>(isa, segment, w, pose),
            (false, false) => self.sample_comps::<I, 3, false>(isa, segment, w, pose),
        }
    }

    /// The blocks of one key part: `blocks × C` planes.
    #[inline(always)]
    fn part<const C: usize>(&self, key: usize, part: usize) -> &[[F8; C]] {
        let nb = self.blocks.len();
        let start = (key * self.parts + part) * nb * C;
        self.values.get(start..start + nb * C).map_or(&[], |s| s.as_chunks::<C>().0)
    }

    /// Pose block and lane mask of the group's `i`-th block (`DENSE`: block `i`, all lanes;
    /// `None` past the group's blocks).
    #[inline(always)]
    fn block<const DENSE: bool>(&self, i: usize) -> Option<(usize, u8)> {
        if DENSE { Some((i, 0xff)) } else { self.blocks.get(i).map(|&(block, mask)| (block as usize, mask)) }
    }

    #[inline(always)]
    fn sample_comps<I: Isa, const C: usize, const DENSE: bool>(
        &self,
        isa: I,
        segment: &Segment,
        w: Vec4,
        pose: &mut SoaPose,
    ) {
        let (k, next, held, u) = (segment.key as usize, segment.next as usize, segment.held as usize, segment.u);
        let plane = match self.property {
            Property::Translation | Property::Weights => 0,
            Property::Rotation => 3,
            Property::Scale => 7,
        };
        let hold = match self.interpolation {
            Interpolation::Step => Some(held),
            // At a key (and before the first or after the last) the key itself, bit for bit.
            Interpolation::Linear if u == 0.0 => Some(k),
            _ => None,
        };
        if let Some(key) = hold {
            for (i, v) in self.part::<C>(key, 0).iter().enumerate() {
                let Some((block, mask)) = self.block::<DENSE>(i) else { continue };
                pose.write_planes(plane, block, mask, v);
            }
            return;
        }
        let load = |x: &F8| V::load(isa, x);
        match self.interpolation {
            Interpolation::Linear if C == 4 => {
                let (keep, take) = (V::splat(isa, 1.0 - u), V::splat(isa, u));
                let arcs = self.arcs.get(k * self.blocks.len()..).unwrap_or(&[]);
                let pairs = self.part::<C>(k, 0).iter().zip(self.part::<C>(next, 0));
                for (i, ((a, b), arc)) in pairs.zip(arcs).enumerate() {
                    let Some((block, mask)) = self.block::<DENSE>(i) else { continue };
                    let (omega, k, k_signed) = (load(&arc[0]), load(&arc[1]), load(&arc[2]));
                    let wa = keep * k * sinc_quarter_turn(keep * omega);
                    let wb = take * k_signed * sinc_quarter_turn(take * omega);
                    let mut out = [F8::ZERO; C];
                    for c in 0..C {
                        out[c] = load(&b[c]).madd(wb, load(&a[c]) * wa).store();
                    }
                    pose.write_planes(plane, block, mask, &out);
                }
            }
            Interpolation::Linear => {
                let u = V::splat(isa, u);
                let pairs = self.part::<C>(k, 0).iter().zip(self.part::<C>(next, 0));
                for (i, (a, b)) in pairs.enumerate() {
                    let Some((block, mask)) = self.block::<DENSE>(i) else { continue };
                    let mut out = [F8::ZERO; C];
                    for c in 0..C {
                        let a = load(&a[c]);
                        out[c] = (load(&b[c]) - a).madd(u, a).store();
                    }
                    pose.write_planes(plane, block, mask, &out);
                }
            }
            _ => {
                // Hermite: v₀·h₀₀ + m₀·h₁₀Δt + v₁·h₀₁ + m₁·h₁₁Δt.
                let (value, tangent_in, tangent_out) = match self.parts {
                    2 => (0, 1, 1),
                    _ => (1, 0, 2),
                };
                let splat = |x: f32| V::splat(isa, x);
                let (wv0, wm0, wv1, wm1) = (splat(w.x), splat(w.y), splat(w.z), splat(w.w));
                let starts = self.part::<C>(k, value).iter().zip(self.part::<C>(k, tangent_out));
                let ends = self.part::<C>(next, value).iter().zip(self.part::<C>(next, tangent_in));
                for (i, ((v0, m0), (v1, m1))) in starts.zip(ends).enumerate() {
                    let Some((block, mask)) = self.block::<DENSE>(i) else { continue };
                    let mut out = [splat(0.0); C];
                    for c in 0..C {
                        let p = load(&v0[c]) * wv0;
                        let p = load(&m0[c]).madd(wm0, p);
                        let p = load(&v1[c]).madd(wv1, p);
                        out[c] = load(&m1[c]).madd(wm1, p);
                    }
                    if C == 4 {
                        normalize_block(isa, &mut out);
                    }
                    let mut stored = [F8::ZERO; C];
                    for c in 0..C {
                        stored[c] = out[c].store();
                    }
                    pose.write_planes(plane, block, mask, &stored);
                }
            }
        }
    }
}

/// The slerp arc from `a` to `b`: `(Ω, Ω / sin Ω, ±1)` with the sign that puts `b` on `a`'s
/// hemisphere (computed in f64).
fn arc(a: Vec4, b: Vec4) -> (f32, f32, f32) {
    let dot: f64 = a.to_array().iter().zip(b.to_array()).map(|(&x, y)| f64::from(x) * f64::from(y)).sum();
    let sign = if dot < 0.0 { -1.0 } else { 1.0 };
    let omega = dot.abs().min(1.0).acos();
    let k = if omega < 1e-4 { 1.0 + omega * omega / 6.0 } else { omega / omega.sin() };
    (omega as f32, k as f32, sign)
}

/// Normalize eight quaternions given as component planes; a zero or non-finite length gives the
/// identity.
#[inline(always)]
fn normalize_block<I: Isa, const C: usize>(isa: I, q: &mut [V<I>; C]) {
    let mut length2 = q[0] * q[0];
    for c in &q[1..] {
        length2 = c.madd(*c, length2);
    }
    let (tiny, huge) = (V::splat(isa, 1e-30), V::splat(isa, f32::MAX));
    let inverse = length2.max(tiny).min(huge).rsqrt();
    let infinity = V::splat(isa, f32::INFINITY);
    for (comp, c) in q.iter_mut().enumerate() {
        let identity = V::splat(isa, if comp == 3 { 1.0 } else { 0.0 });
        *c = (*c * inverse).where_inside(length2, tiny, infinity, identity);
    }
}
