//! Blend spaces: clips placed at parameter values on one axis (speed) or two (speed ×
//! direction), their weights at any parameter from linear interpolation between neighbours (1D)
//! or barycentric coordinates on a Delaunay triangulation of the points (2D) — [`BlendSpace`] —
//! and [`BlendSpacePlayer`], which plays the clips in phase: cyclic clips advance through their
//! foot-contact markers together ([`crate::phase`]), at a rate interpolated from the clips'
//! own, so the feet stay in step at every parameter value. Built once (allocates); the
//! per-frame calls allocate nothing.

use glam::Vec2;
use thiserror::Error;

use crate::ids::ClipId;
use crate::interp::ScaleSpace;
use crate::model::Model;
use crate::phase::FootContact;
use crate::pose::{SoaPose, blend_into};
use crate::sample::{ClipCursor, SampleSettings};

/// A clip at a parameter value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlendPoint {
    /// The clip.
    pub clip: ClipId,
    /// Its parameter value (`y` is 0 in a 1D space).
    pub position: Vec2,
}

/// A blend space that cannot be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum BlendSpaceError {
    /// No points.
    #[error("a blend space needs at least one clip")]
    Empty,
    /// A position that is not finite.
    #[error("clip {0}'s position is not a finite number")]
    NotFinite(ClipId),
    /// Two points at one position.
    #[error("clips {0} and {1} are at the same position")]
    Duplicate(ClipId, ClipId),
    /// A 2D space whose points are all on one line (no triangle).
    #[error("a 2D blend space needs three points not on one line")]
    Collinear,
}

/// Clips at parameter values and how weights are found between them.
#[derive(Debug, Clone, PartialEq)]
pub struct BlendSpace {
    points: Vec<BlendPoint>,
    /// 2D: the Delaunay triangles (point indices, counter-clockwise); empty in 1D.
    triangles: Vec<[usize; 3]>,
    two_d: bool,
    /// 1D: point indices by position.
    order: Vec<usize>,
}

impl BlendSpace {
    /// A 1D space: `(clip, x)` pairs.
    ///
    /// # Errors
    /// No points, a non-finite position, two clips at one position.
    pub fn new_1d(points: &[(ClipId, f32)]) -> Result<Self, BlendSpaceError> {
        let points: Vec<BlendPoint> =
            points.iter().map(|&(clip, x)| BlendPoint { clip, position: Vec2::new(x, 0.0) }).collect();
        check(&points)?;
        let mut order: Vec<usize> = (0..points.len()).collect();
        order.sort_by(|&a, &b| points[a].position.x.total_cmp(&points[b].position.x));
        Ok(Self { points, triangles: Vec::new(), two_d: false, order })
    }

    /// A 2D space: `(clip, position)` pairs, triangulated (Delaunay).
    ///
    /// # Errors
    /// No points, a non-finite position, two clips at one position, all points on one line.
    pub fn new_2d(points: &[(ClipId, Vec2)]) -> Result<Self, BlendSpaceError> {
        let points: Vec<BlendPoint> = points.iter().map(|&(clip, position)| BlendPoint { clip, position }).collect();
        check(&points)?;
        let positions: Vec<Vec2> = points.iter().map(|p| p.position).collect();
        let triangles = delaunay(&positions);
        if triangles.is_empty() {
            return Err(BlendSpaceError::Collinear);
        }
        Ok(Self { points, triangles, two_d: true, order: Vec::new() })
    }

    /// The points, in the order given.
    pub fn points(&self) -> &[BlendPoint] {
        &self.points
    }

    /// The Delaunay triangles (2D; empty in 1D), as point indices.
    pub fn triangles(&self) -> &[[usize; 3]] {
        &self.triangles
    }

    /// True for a 2D space.
    pub fn is_2d(&self) -> bool {
        self.two_d
    }

    /// Smallest and largest position over the points.
    pub fn extent(&self) -> (Vec2, Vec2) {
        self.points.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), p| (lo.min(p.position), hi.max(p.position)))
    }

    /// Each point's weight at `at` into `out` (one per point, in order; they sum to 1). 1D:
    /// linear between the two neighbours of `at.x`, clamped to the ends. 2D: barycentric in the
    /// triangle holding `at`, or outside every triangle at the nearest point of the hull. A
    /// point's own position gives it weight 1 exactly. A non-finite `at` counts as the first
    /// point's. Allocates nothing.
    ///
    /// # Panics
    /// When `out` is shorter than the points.
    pub fn weights(&self, at: Vec2, out: &mut [f32]) {
        let out = &mut out[..self.points.len()];
        out.fill(0.0);
        let at = if at.is_finite() { at } else { self.points[0].position };
        if !self.two_d {
            self.weights_1d(at.x, out);
        } else {
            self.weights_2d(at, out);
        }
        // A weight within rounding of 1 is that clip exactly.
        if let Some(k) = out.iter().position(|&w| w >= 1.0 - 1e-6) {
            out.fill(0.0);
            out[k] = 1.0;
        }
    }

    fn weights_1d(&self, x: f32, out: &mut [f32]) {
        let xs = |k: usize| self.points[self.order[k]].position.x;
        let last = self.order.len() - 1;
        if x <= xs(0) {
            out[self.order[0]] = 1.0;
            return;
        }
        if x >= xs(last) {
            out[self.order[last]] = 1.0;
            return;
        }
        let k = (0..last).find(|&k| x < xs(k + 1)).unwrap_or(last - 1);
        let u = (x - xs(k)) / (xs(k + 1) - xs(k));
        out[self.order[k]] = 1.0 - u;
        out[self.order[k + 1]] = u;
    }

    fn weights_2d(&self, at: Vec2, out: &mut [f32]) {
        let p = |i: usize| self.points[i].position;
        // The triangle holding `at`, else the nearest point on any triangle (the hull).
        let mut best: Option<(f32, [usize; 3], [f32; 3])> = None;
        for &[a, b, c] in &self.triangles {
            let l = barycentric(at, p(a), p(b), p(c));
            if l.iter().all(|&x| x >= -1e-6) {
                best = Some((0.0, [a, b, c], l));
                break;
            }
            let q = closest_on_triangle(at, p(a), p(b), p(c));
            let d = q.distance_squared(at);
            if best.is_none_or(|(e, _, _)| d < e) {
                best = Some((d, [a, b, c], barycentric(q, p(a), p(b), p(c))));
            }
        }
        let Some((_, corners, l)) = best else { return };
        let l = l.map(|x| x.max(0.0));
        let sum: f32 = l.iter().sum();
        for (&i, &w) in corners.iter().zip(&l) {
            out[i] = if sum > 0.0 { w / sum } else { 1.0 / 3.0 };
        }
    }
}

/// Reject empty, non-finite and duplicate points.
fn check(points: &[BlendPoint]) -> Result<(), BlendSpaceError> {
    if points.is_empty() {
        return Err(BlendSpaceError::Empty);
    }
    for (i, p) in points.iter().enumerate() {
        if !p.position.is_finite() {
            return Err(BlendSpaceError::NotFinite(p.clip));
        }
        if let Some(q) = points[..i].iter().find(|q| q.position == p.position) {
            return Err(BlendSpaceError::Duplicate(q.clip, p.clip));
        }
    }
    Ok(())
}

/// Barycentric coordinates of `p` in triangle `a b c` (the corners give exactly 1, 0, 0).
fn barycentric(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> [f32; 3] {
    let det = (b.y - c.y) * (a.x - c.x) + (c.x - b.x) * (a.y - c.y);
    let l1 = ((b.y - c.y) * (p.x - c.x) + (c.x - b.x) * (p.y - c.y)) / det;
    let l2 = ((c.y - a.y) * (p.x - c.x) + (a.x - c.x) * (p.y - c.y)) / det;
    [l1, l2, 1.0 - l1 - l2]
}

/// The point of triangle `a b c` nearest `p`.
fn closest_on_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> Vec2 {
    if barycentric(p, a, b, c).iter().all(|&x| x >= 0.0) {
        return p;
    }
    let on_segment = |s: Vec2, e: Vec2| {
        let d = e - s;
        let u = if d.length_squared() > 0.0 { ((p - s).dot(d) / d.length_squared()).clamp(0.0, 1.0) } else { 0.0 };
        s + d * u
    };
    [on_segment(a, b), on_segment(b, c), on_segment(c, a)]
        .into_iter()
        .min_by(|x, y| x.distance_squared(p).total_cmp(&y.distance_squared(p)))
        .unwrap_or(a)
}

/// Twice the signed area of `a b c` (positive counter-clockwise).
fn orient(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (b - a).perp_dot(c - a)
}

/// Delaunay triangulation (Bowyer–Watson, in f64 about the points' centre): counter-clockwise
/// triangles of point indices; empty when all points are on one line.
fn delaunay(points: &[Vec2]) -> Vec<[usize; 3]> {
    let n = points.len();
    if n < 3 {
        return Vec::new();
    }
    let (lo, hi) = points.iter().fold((Vec2::MAX, Vec2::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    let centre = (lo + hi) * 0.5;
    let span = f64::from((hi - lo).max_element().max(1e-6));
    let mut v: Vec<[f64; 2]> =
        points.iter().map(|p| [f64::from(p.x - centre.x) / span, f64::from(p.y - centre.y) / span]).collect();
    // A super-triangle around everything.
    v.extend([[-100.0, -100.0], [100.0, -100.0], [0.0, 100.0]]);
    let mut tris: Vec<[usize; 3]> = vec![[n, n + 1, n + 2]];
    let in_circle = |t: &[usize; 3], p: [f64; 2]| {
        let [a, b, c] = t.map(|i| v[i]);
        let (ax, ay, bx, by, cx, cy) = (a[0] - p[0], a[1] - p[1], b[0] - p[0], b[1] - p[1], c[0] - p[0], c[1] - p[1]);
        let det = (ax * ax + ay * ay) * (bx * cy - cx * by) - (bx * bx + by * by) * (ax * cy - cx * ay)
            + (cx * cx + cy * cy) * (ax * by - bx * ay);
        det > 1e-12
    };
    for (i, &p) in v.iter().enumerate().take(n) {
        let (bad, keep): (Vec<[usize; 3]>, Vec<[usize; 3]>) = tris.iter().partition(|t| in_circle(t, p));
        let mut edges: Vec<[usize; 2]> = Vec::new();
        for t in &bad {
            for e in [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]] {
                let shared = bad.iter().filter(|u| {
                    let has = |x| u.contains(&x);
                    has(e[0]) && has(e[1])
                });
                if shared.count() == 1 {
                    edges.push(e);
                }
            }
        }
        tris = keep;
        tris.extend(edges.into_iter().map(|[a, b]| [a, b, i]));
    }
    let area = |t: &[usize; 3]| {
        let [a, b, c] = t.map(|k| v[k]);
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    };
    tris.into_iter()
        .filter(|t| t.iter().all(|&k| k < n) && area(t).abs() > 1e-9)
        .map(|t| if orient(points[t[0]], points[t[1]], points[t[2]]) < 0.0 { [t[0], t[2], t[1]] } else { t })
        .collect()
}

/// How the clips of a blend space keep time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PhaseSync {
    /// One shared phase: by foot-contact markers where every clip has the same sequence of
    /// feet, else by normalized time; the rate interpolated from the clips'.
    #[default]
    Phase,
    /// Every clip at the same clock time, looped to its length (feet drift out of step).
    None,
}

/// Most markers per cycle a player syncs by (clips with more play in normalized time).
const MAX_SEGMENTS: usize = 16;

/// One clip's timing in a [`BlendSpacePlayer`].
#[derive(Debug, Clone)]
struct ClipTiming {
    duration_secs: f32,
    /// Segment start times from the first (synced) marker, unwrapped, plus the end (`start + T`).
    starts: Vec<f32>,
}

/// A blend space played over time: the parameter, the weights at it, one shared phase, and a
/// pose per clip. Built once (allocates); [`Self::set_parameter`], [`Self::advance`] and
/// [`Self::evaluate`] allocate nothing.
#[derive(Debug, Clone)]
pub struct BlendSpacePlayer {
    space: BlendSpace,
    sync: PhaseSync,
    timings: Vec<ClipTiming>,
    /// Markers used: every clip has the same foot sequence.
    by_markers: bool,
    segments: usize,
    parameter: Vec2,
    weights: Vec<f32>,
    /// Phase in `[0, 1)` (synced), or clock seconds (`PhaseSync::None`).
    phase: f64,
    clock_secs: f64,
    cursors: Vec<ClipCursor>,
    poses: Vec<SoaPose>,
}

impl BlendSpacePlayer {
    /// A player of `space` over `model`, with each point's phase markers (`contacts[i]` for
    /// point `i`; missing or empty: none), at the space's first point, phase 0. A marker's
    /// `foot` names the event: touch-downs of each foot, and optionally their lift-offs under
    /// other ids; the clips are synced by markers when every clip has the same sequence of
    /// events.
    ///
    /// # Errors
    /// A point whose clip the model does not have.
    pub fn new(
        model: &Model,
        space: BlendSpace,
        sync: PhaseSync,
        contacts: &[Vec<FootContact>],
    ) -> Result<Self, UnknownClip> {
        let rest = model.rest_pose();
        let mut cursors = Vec::with_capacity(space.points.len());
        let mut durations = Vec::with_capacity(space.points.len());
        for p in &space.points {
            let clip = model.clip(p.clip).ok_or(UnknownClip(p.clip))?;
            cursors.push(ClipCursor::new(clip));
            durations.push(clip.end_secs());
        }
        // Markers: the same foot sequence in every clip, starting at the first clip's first foot.
        let marker_lists: Vec<&[FootContact]> =
            (0..space.points.len()).map(|i| contacts.get(i).map_or(&[][..], Vec::as_slice)).collect();
        let first_foot = marker_lists.first().and_then(|m| m.first()).map(|c| c.foot);
        let rotated: Option<Vec<Vec<FootContact>>> = first_foot.and_then(|foot| {
            marker_lists
                .iter()
                .map(|m| {
                    let s = m.iter().position(|c| c.foot == foot)?;
                    Some((0..m.len()).map(|k| m[(s + k) % m.len()]).collect::<Vec<_>>())
                })
                .collect()
        });
        let by_markers = rotated.as_ref().is_some_and(|lists| {
            let feet = |l: &Vec<FootContact>| l.iter().map(|c| c.foot).collect::<Vec<_>>();
            lists.iter().all(|l| feet(l) == feet(&lists[0]) && l.len() <= MAX_SEGMENTS)
        }) && durations.iter().all(|&d| d > 0.0);
        let timings: Vec<ClipTiming> = durations
            .iter()
            .enumerate()
            .map(|(i, &duration_secs)| {
                let starts = match (&rotated, by_markers) {
                    (Some(lists), true) => {
                        let mut starts = Vec::with_capacity(lists[i].len() + 1);
                        let mut previous = f32::MIN;
                        for c in &lists[i] {
                            let mut t = c.time_secs;
                            while t < previous {
                                t += duration_secs;
                            }
                            starts.push(t);
                            previous = t;
                        }
                        starts.push(starts[0] + duration_secs);
                        starts
                    }
                    _ => vec![0.0, duration_secs],
                };
                ClipTiming { duration_secs, starts }
            })
            .collect();
        let segments = timings.first().map_or(1, |t| t.starts.len() - 1);
        let n = space.points.len();
        let mut player = Self {
            parameter: space.points[0].position,
            space,
            sync,
            timings,
            by_markers,
            segments,
            weights: vec![0.0; n],
            phase: 0.0,
            clock_secs: 0.0,
            cursors,
            poses: vec![rest; n],
        };
        player.set_parameter(player.parameter);
        Ok(player)
    }

    /// The space played.
    pub fn space(&self) -> &BlendSpace {
        &self.space
    }

    /// True when the clips are synced by their foot-contact markers (else normalized time).
    pub fn syncs_by_markers(&self) -> bool {
        self.by_markers && self.sync == PhaseSync::Phase
    }

    /// Move the parameter to `at` and recompute the weights.
    pub fn set_parameter(&mut self, at: Vec2) {
        self.parameter = at;
        self.space.weights(at, &mut self.weights);
    }

    /// The parameter.
    pub fn parameter(&self) -> Vec2 {
        self.parameter
    }

    /// Each point's weight at the parameter (sums to 1).
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The clip of the heaviest point at the parameter (the first point's on a tie or without
    /// points: what a transition names for the blend space).
    pub fn heaviest_clip(&self) -> ClipId {
        let weights = &self.weights;
        let heaviest = (0..weights.len()).max_by(|&a, &b| weights[a].total_cmp(&weights[b])).unwrap_or(0);
        let points = &self.space.points;
        points.get(heaviest).or(points.first()).map_or(ClipId::from_index(0), |p| p.clip)
    }

    /// Length of one blended cycle, seconds: the clips' lengths weighted (with markers, each
    /// step between markers weighted the same way).
    pub fn cycle_secs(&self) -> f32 {
        self.weights.iter().zip(&self.timings).map(|(w, t)| w * t.duration_secs).sum()
    }

    /// How fast the heaviest clip plays against its own speed (1 at a clip's own position; at
    /// the middle between a walk and a run, below 1 for the run and above for the walk).
    pub fn playback_rate(&self) -> f32 {
        if self.sync == PhaseSync::None {
            return 1.0;
        }
        let heaviest = (0..self.weights.len()).max_by(|&a, &b| self.weights[a].total_cmp(&self.weights[b]));
        let cycle = self.cycle_secs();
        heaviest.map_or(1.0, |k| if cycle > 0.0 { self.timings[k].duration_secs / cycle } else { 1.0 })
    }

    /// How fast point `i`'s clip plays against its own speed now: its step between markers over
    /// the blended step with phase sync (its length over the blended cycle's without markers),
    /// 1 without sync (0 for an unknown point).
    pub fn clip_rate(&self, i: usize) -> f32 {
        let Some(t) = self.timings.get(i) else { return 0.0 };
        if self.sync == PhaseSync::None {
            return 1.0;
        }
        // Now: the clip's step between markers over the blended step.
        let segments = t.starts.len() - 1;
        let k = ((self.phase * segments as f64).floor() as usize).min(segments - 1);
        let blended = self.segment_secs(k);
        if blended > 0.0 { ((t.starts[k + 1] - t.starts[k]) as f64 / blended) as f32 } else { 1.0 }
    }

    /// The shared phase in `[0, 1)` (synced), or the clock's fraction of the first clip.
    pub fn phase(&self) -> f32 {
        match self.sync {
            PhaseSync::Phase => self.phase as f32,
            PhaseSync::None => {
                let d = self.timings.first().map_or(0.0, |t| t.duration_secs);
                if d > 0.0 { (self.clock_secs as f32 / d).fract() } else { 0.0 }
            }
        }
    }

    /// Set the shared phase (`[0, 1)`, wrapped; non-finite as 0) and the clock to 0.
    pub fn set_phase(&mut self, phase: f32) {
        self.phase = if phase.is_finite() { f64::from(phase).rem_euclid(1.0) } else { 0.0 };
        self.clock_secs = 0.0;
    }

    /// Blended length of segment `k` (between markers `k` and `k + 1`), seconds.
    fn segment_secs(&self, k: usize) -> f64 {
        self.weights
            .iter()
            .zip(&self.timings)
            .map(|(&w, t)| {
                let k = k.min(t.starts.len() - 2);
                f64::from(w) * f64::from(t.starts[k + 1] - t.starts[k])
            })
            .sum()
    }

    /// Advance by `dt_secs` at the weights' interpolated rate (non-finite or negative steps
    /// are ignored).
    pub fn advance(&mut self, dt_secs: f32) {
        if !(dt_secs.is_finite() && dt_secs > 0.0) {
            return;
        }
        self.clock_secs += f64::from(dt_secs);
        let segments = self.segments.max(1);
        let mut left = f64::from(dt_secs);
        // At most a few cycles' worth of segments per call (a huge step wraps around).
        for _ in 0..(4 * segments + 4) {
            let scaled = self.phase * segments as f64;
            let k = (scaled.floor() as usize).min(segments - 1);
            let secs = self.segment_secs(k);
            if secs <= 0.0 {
                return;
            }
            let to_end = (k as f64 + 1.0 - scaled) * secs;
            if left < to_end {
                self.phase = (scaled + left / secs) / segments as f64;
                break;
            }
            left -= to_end;
            self.phase = ((k + 1) as f64 / segments as f64).rem_euclid(1.0);
        }
        if self.phase >= 1.0 {
            self.phase = 0.0;
        }
    }

    /// Clip time of point `i` now.
    pub fn clip_time_secs(&self, i: usize) -> f32 {
        let Some(t) = self.timings.get(i) else { return 0.0 };
        if t.duration_secs <= 0.0 {
            return 0.0;
        }
        if self.sync == PhaseSync::None {
            return (self.clock_secs.rem_euclid(f64::from(t.duration_secs))) as f32;
        }
        let segments = t.starts.len() - 1;
        let scaled = self.phase * segments as f64;
        let k = (scaled.floor() as usize).min(segments - 1);
        let u = (scaled - k as f64) as f32;
        (t.starts[k] + u * (t.starts[k + 1] - t.starts[k])).rem_euclid(t.duration_secs)
    }

    /// The blended pose `ahead_secs` from now into `out` (what [`Self::evaluate`] would give
    /// after [`Self::advance`]`(ahead_secs)`), the player's time left where it is: how a fader
    /// measures the blend space's motion ahead of a trigger. A step that is not positive
    /// evaluates now. Allocates nothing.
    pub fn evaluate_ahead(&mut self, model: &Model, settings: &SampleSettings, ahead_secs: f32, out: &mut SoaPose) {
        let (phase, clock) = (self.phase, self.clock_secs);
        self.advance(ahead_secs);
        self.evaluate(model, settings, out);
        (self.phase, self.clock_secs) = (phase, clock);
    }

    /// Take `other`'s time (shared phase and clock): two players of the same space handing
    /// the playback over at a transition's end continue in step. Allocates nothing.
    pub fn copy_time_from(&mut self, other: &Self) {
        (self.phase, self.clock_secs) = (other.phase, other.clock_secs);
    }

    /// The blended pose now into `out`: each clip with weight sampled at its time, blended by
    /// the weights (a point at weight 1 gives its clip exactly). Allocates nothing.
    pub fn evaluate(&mut self, model: &Model, settings: &SampleSettings, out: &mut SoaPose) {
        let mut total = 0.0f32;
        for i in 0..self.weights.len() {
            let w = self.weights[i];
            if w <= 0.0 {
                continue;
            }
            let time = self.clip_time_secs(i);
            let Some(clip) = model.clip(self.space.points[i].clip) else { continue };
            clip.sample(time, &mut self.cursors[i], settings, &mut self.poses[i]);
            total += w;
            if total == w {
                out.copy_from(&self.poses[i]);
            } else {
                blend_into(out, &self.poses[i], w / total, ScaleSpace::Linear);
            }
        }
    }
}

/// A blend-space point whose clip the model does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the model has no clip {0}")]
pub struct UnknownClip(pub ClipId);

#[cfg(test)]
mod tests {
    use super::*;

    fn c(i: usize) -> ClipId {
        ClipId::from_index(i)
    }

    #[test]
    fn one_axis_interpolates_between_neighbours() {
        let space = BlendSpace::new_1d(&[(c(0), 0.0), (c(1), 2.0), (c(2), 1.0)]).unwrap();
        let mut w = [0.0; 3];
        space.weights(Vec2::new(0.25, 0.0), &mut w);
        assert_eq!(w, [0.75, 0.0, 0.25]);
        space.weights(Vec2::new(1.5, 0.0), &mut w);
        assert_eq!(w, [0.0, 0.5, 0.5]);
        space.weights(Vec2::new(-3.0, 0.0), &mut w);
        assert_eq!(w, [1.0, 0.0, 0.0]);
        space.weights(Vec2::new(9.0, 0.0), &mut w);
        assert_eq!(w, [0.0, 1.0, 0.0]);
        assert_eq!(BlendSpace::new_1d(&[]), Err(BlendSpaceError::Empty));
        assert_eq!(BlendSpace::new_1d(&[(c(0), 1.0), (c(1), 1.0)]), Err(BlendSpaceError::Duplicate(c(0), c(1))));
        assert_eq!(BlendSpace::new_1d(&[(c(0), f32::NAN)]), Err(BlendSpaceError::NotFinite(c(0))));
    }

    #[test]
    fn two_axes_triangulate_and_weights_are_barycentric() {
        // A square with a centre point: Delaunay gives four triangles around the centre.
        let pts = [
            (c(0), Vec2::new(0.0, 0.0)),
            (c(1), Vec2::new(2.0, 0.0)),
            (c(2), Vec2::new(2.0, 2.0)),
            (c(3), Vec2::new(0.0, 2.0)),
            (c(4), Vec2::new(1.0, 1.0)),
        ];
        let space = BlendSpace::new_2d(&pts).unwrap();
        assert_eq!(space.triangles().len(), 4);
        for t in space.triangles() {
            assert!(t.contains(&4), "{t:?}");
        }
        let mut w = [0.0; 5];
        for (i, &(_, p)) in pts.iter().enumerate() {
            space.weights(p, &mut w);
            let mut corner = [0.0; 5];
            corner[i] = 1.0;
            assert_eq!(w, corner, "point {i}");
        }
        // Inside: sums to 1 and reproduces the position (linear precision).
        for &at in &[Vec2::new(0.3, 0.2), Vec2::new(1.7, 0.9), Vec2::new(1.0, 1.9)] {
            space.weights(at, &mut w);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            let back: Vec2 = w.iter().zip(&pts).map(|(w, (_, p))| *p * *w).sum();
            assert!(back.abs_diff_eq(at, 1e-5), "{at} -> {back}");
            assert!(w.iter().all(|&x| x >= 0.0));
        }
        // Outside: the nearest hull point.
        space.weights(Vec2::new(1.0, -5.0), &mut w);
        assert!((w[0] - 0.5).abs() < 1e-6 && (w[1] - 0.5).abs() < 1e-6, "{w:?}");
        assert_eq!(
            BlendSpace::new_2d(&[(c(0), Vec2::ZERO), (c(1), Vec2::X), (c(2), Vec2::X * 2.0)]),
            Err(BlendSpaceError::Collinear)
        );
    }

    #[test]
    fn delaunay_keeps_the_empty_circle() {
        let pts: Vec<Vec2> =
            (0..12).map(|i| Vec2::new((i as f32 * 1.7).sin() * 3.0, (i as f32 * 2.3).cos() * 2.0)).collect();
        let tris = delaunay(&pts);
        assert!(tris.len() >= 10);
        for t in &tris {
            let [a, b, c] = t.map(|k| pts[k]);
            assert!(orient(a, b, c) > 0.0);
            for (k, &p) in pts.iter().enumerate() {
                if t.contains(&k) {
                    continue;
                }
                let m = |q: Vec2| {
                    let d = q - p;
                    (d.x, d.y, d.length_squared())
                };
                let ((ax, ay, aa), (bx, by, bb), (cx, cy, cc)) = (m(a), m(b), m(c));
                let det = aa * (bx * cy - cx * by) - bb * (ax * cy - cx * ay) + cc * (ax * by - bx * ay);
                assert!(det <= 1e-3, "point {k} inside the circle of {t:?}");
            }
        }
    }
}
