//! Polygonises the body's distance field into one closed, smoothly skinned triangle mesh.
//!
//! Steps: sample the field on a regular grid (coarse pass first, fine samples only near the
//! surface), extract a quad mesh with surface nets (one vertex per cell that the surface crosses,
//! one quad per grid edge that it crosses), relax it with Laplacian smoothing while keeping the
//! vertices on the surface, split quads along their shorter diagonal, refine the head (and the
//! eyes, brows and mouth once more) with crack-free red-green subdivision, then compute smooth
//! normals, skin weights, vertex colours and the blink morph target.
//!
//! Skin weights come from the parts nearest to each vertex (blended softly where parts meet);
//! along a limb or the spine they ramp smoothly between the chain's bones over a window around
//! each joint (±10.5 cm at elbows and knees), so every joint bends with at least two influences.

use glam::DVec3;

use super::math::{smoothstep, srgb8};
use super::shape::{Body, ChainId, Group, Paint, Part, SkinRule};
use super::skeleton::{self as sk, JOINT_COUNT, Side};

/// Grid spacing of the polygonisation, in metres.
pub const CELL: f64 = 0.012;
/// Coarse pass stride (in fine cells).
const COARSE: usize = 4;

/// Final mesh data, ready to be written to glTF.
pub struct MeshData {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: Vec<[f32; 3]>,
    pub joints: Vec<[u8; 4]>,
    pub weights: Vec<[f32; 4]>,
    pub indices: Vec<u32>,
    /// Blink morph target: position and normal offsets.
    pub blink_positions: Vec<[f32; 3]>,
    pub blink_normals: Vec<[f32; 3]>,
}

struct Grid {
    origin: DVec3,
    n: [usize; 3],
    values: Vec<f64>,
}

impl Grid {
    fn index(&self, i: usize, j: usize, k: usize) -> usize {
        (k * self.n[1] + j) * self.n[0] + i
    }

    fn point(&self, i: usize, j: usize, k: usize) -> DVec3 {
        // Grid indices are small; the conversions are exact.
        #[allow(clippy::cast_precision_loss)]
        let v = DVec3::new(i as f64, j as f64, k as f64);
        self.origin + v * CELL
    }
}

fn sample_grid(body: &Body) -> Grid {
    let (lo, hi) = body.bounds;
    let extent = (hi - lo) / CELL;
    let mut n = [0_usize; 3];
    for (axis, len) in [extent.x, extent.y, extent.z].into_iter().enumerate() {
        // Round the cell count up to a whole number of coarse cells.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let cells = len.ceil() as usize;
        n[axis] = cells.div_ceil(COARSE) * COARSE + 1;
    }
    let mut grid = Grid { origin: lo, n, values: vec![f64::NAN; n[0] * n[1] * n[2]] };
    let cn = [n[0] / COARSE + 1, n[1] / COARSE + 1, n[2] / COARSE + 1];
    let mut coarse = vec![0.0; cn[0] * cn[1] * cn[2]];
    let cidx = |i: usize, j: usize, k: usize| (k * cn[1] + j) * cn[0] + i;
    for k in 0..cn[2] {
        for j in 0..cn[1] {
            for i in 0..cn[0] {
                let d = body.distance(grid.point(i * COARSE, j * COARSE, k * COARSE));
                coarse[cidx(i, j, k)] = d;
                let gi = grid.index(i * COARSE, j * COARSE, k * COARSE);
                grid.values[gi] = d;
            }
        }
    }
    // A coarse cell can only contain surface if one of its corners is within (Lipschitz bound x
    // cell diagonal) of it; the field's Lipschitz constant stays below 1.35.
    #[allow(clippy::cast_precision_loss)]
    let threshold = 1.35 * CELL * COARSE as f64 * 3.0_f64.sqrt();
    for k in 0..cn[2] - 1 {
        for j in 0..cn[1] - 1 {
            for i in 0..cn[0] - 1 {
                let mut near = false;
                for c in 0..8 {
                    let v = coarse[cidx(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1))];
                    near |= v.abs() < threshold;
                }
                if !near {
                    continue;
                }
                for fk in 0..=COARSE {
                    for fj in 0..=COARSE {
                        for fi in 0..=COARSE {
                            let (gi, gj, gk) = (i * COARSE + fi, j * COARSE + fj, k * COARSE + fk);
                            let idx = grid.index(gi, gj, gk);
                            if grid.values[idx].is_nan() {
                                grid.values[idx] = body.distance(grid.point(gi, gj, gk));
                            }
                        }
                    }
                }
            }
        }
    }
    // Points far from the surface: take the sign (and rough size) of the nearest coarse sample.
    for k in 0..n[2] {
        for j in 0..n[1] {
            for i in 0..n[0] {
                let idx = grid.index(i, j, k);
                if grid.values[idx].is_nan() {
                    let near = |v: usize| (v + COARSE / 2) / COARSE;
                    grid.values[idx] = coarse[cidx(near(i), near(j), near(k))];
                }
            }
        }
    }
    resolve_ambiguous_faces(&mut grid);
    grid
}

/// A grid face whose corners alternate inside/outside (a saddle) would make surface nets join
/// two sheets along one edge (four quads on it). Such saddles sit right at the surface, so the
/// corner closest to it is nudged across to the other side; repeated until no face is ambiguous.
fn resolve_ambiguous_faces(grid: &mut Grid) {
    let n = grid.n;
    for _ in 0..16 {
        let mut changed = false;
        for k in 0..n[2] {
            for j in 0..n[1] {
                for i in 0..n[0] {
                    // Faces spanned from this corner: (x, y), (y, z), (z, x).
                    for (a, b) in [([1, 0, 0], [0, 1, 0]), ([0, 1, 0], [0, 0, 1]), ([0, 0, 1], [1, 0, 0])] {
                        let c1 = [i + a[0], j + a[1], k + a[2]];
                        let c3 = [i + b[0], j + b[1], k + b[2]];
                        let c2 = [c1[0] + b[0], c1[1] + b[1], c1[2] + b[2]];
                        if c2[0] >= n[0] || c2[1] >= n[1] || c2[2] >= n[2] {
                            continue;
                        }
                        let corners = [
                            grid.index(i, j, k),
                            grid.index(c1[0], c1[1], c1[2]),
                            grid.index(c2[0], c2[1], c2[2]),
                            grid.index(c3[0], c3[1], c3[2]),
                        ];
                        let inside = corners.map(|c| grid.values[c] < 0.0);
                        if inside[0] == inside[2] && inside[1] == inside[3] && inside[0] != inside[1] {
                            let nearest = corners
                                .into_iter()
                                .min_by(|&x, &y| grid.values[x].abs().total_cmp(&grid.values[y].abs()))
                                .expect("four corners");
                            let v = grid.values[nearest];
                            grid.values[nearest] = if v < 0.0 { 1e-9 } else { -1e-9 };
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return;
        }
    }
}

/// Surface nets: returns vertex positions and quads (counter-clockwise seen from outside).
fn surface_nets(grid: &Grid) -> (Vec<DVec3>, Vec<[u32; 4]>) {
    let n = grid.n;
    let cells = [n[0] - 1, n[1] - 1, n[2] - 1];
    let cell_index = |i: usize, j: usize, k: usize| (k * cells[1] + j) * cells[0] + i;
    let mut cell_vertex = vec![u32::MAX; cells[0] * cells[1] * cells[2]];
    let mut positions = Vec::new();
    const EDGES: [(usize, usize); 12] =
        [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];
    for k in 0..cells[2] {
        for j in 0..cells[1] {
            for i in 0..cells[0] {
                let mut v = [0.0; 8];
                let mut inside = 0;
                for (c, value) in v.iter_mut().enumerate() {
                    *value = grid.values[grid.index(i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1))];
                    if *value < 0.0 {
                        inside += 1;
                    }
                }
                if inside == 0 || inside == 8 {
                    continue;
                }
                let mut sum = DVec3::ZERO;
                let mut count = 0.0;
                for (a, b) in EDGES {
                    if (v[a] < 0.0) != (v[b] < 0.0) {
                        let t = v[a] / (v[a] - v[b]);
                        let corner = |c: usize| {
                            DVec3::new(
                                f64::from(u8::from(c & 1 != 0)),
                                f64::from(u8::from(c & 2 != 0)),
                                f64::from(u8::from(c & 4 != 0)),
                            )
                        };
                        sum += corner(a) + (corner(b) - corner(a)) * t;
                        count += 1.0;
                    }
                }
                let local = sum / count;
                let p = grid.point(i, j, k) + local * CELL;
                let index = u32::try_from(positions.len()).expect("vertex count fits u32");
                cell_vertex[cell_index(i, j, k)] = index;
                positions.push(p);
            }
        }
    }
    let mut quads = Vec::new();
    for k in 1..n[2] - 1 {
        for j in 1..n[1] - 1 {
            for i in 1..n[0] - 1 {
                let here = grid.values[grid.index(i, j, k)] < 0.0;
                // Edge along x: cells around it vary in (y, z).
                for axis in 0..3 {
                    let (ni, nj, nk) = match axis {
                        0 => (i + 1, j, k),
                        1 => (i, j + 1, k),
                        _ => (i, j, k + 1),
                    };
                    if ni >= n[0] || nj >= n[1] || nk >= n[2] {
                        continue;
                    }
                    let there = grid.values[grid.index(ni, nj, nk)] < 0.0;
                    if here == there {
                        continue;
                    }
                    // The four cells sharing the edge, counter-clockwise around +axis.
                    let ring: [(usize, usize, usize); 4] = match axis {
                        // (b, c) = (y, z)
                        0 => [(i, j - 1, k - 1), (i, j, k - 1), (i, j, k), (i, j - 1, k)],
                        // (b, c) = (z, x)
                        1 => [(i - 1, j, k - 1), (i - 1, j, k), (i, j, k), (i, j, k - 1)],
                        // (b, c) = (x, y)
                        _ => [(i - 1, j - 1, k), (i, j - 1, k), (i, j, k), (i - 1, j, k)],
                    };
                    let mut quad = [0_u32; 4];
                    for (slot, (ci, cj, ck)) in quad.iter_mut().zip(ring) {
                        *slot = cell_vertex[cell_index(ci, cj, ck)];
                        debug_assert_ne!(*slot, u32::MAX);
                    }
                    if !here {
                        // Inside is on the far side: the surface faces -axis.
                        quad.reverse();
                    }
                    quads.push(quad);
                }
            }
        }
    }
    (positions, quads)
}

/// Uniform Laplacian smoothing, re-projecting onto the surface after each pass.
fn relax(body: &Body, positions: &mut [DVec3], quads: &[[u32; 4]], passes: usize) {
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); positions.len()];
    for q in quads {
        for e in 0..4 {
            let a = q[e];
            let b = q[(e + 1) % 4];
            if !neighbours[a as usize].contains(&b) {
                neighbours[a as usize].push(b);
            }
            if !neighbours[b as usize].contains(&a) {
                neighbours[b as usize].push(a);
            }
        }
    }
    for _ in 0..passes {
        let previous = positions.to_vec();
        for (v, p) in positions.iter_mut().enumerate() {
            let ns = &neighbours[v];
            if ns.is_empty() {
                continue;
            }
            let mut avg = DVec3::ZERO;
            for &nb in ns {
                avg += previous[nb as usize];
            }
            #[allow(clippy::cast_precision_loss)]
            let count = ns.len() as f64;
            avg /= count;
            *p = body.project(previous[v] + (avg - previous[v]) * 0.5);
        }
    }
}

fn triangulate(positions: &[DVec3], quads: &[[u32; 4]]) -> Vec<u32> {
    let mut indices = Vec::with_capacity(quads.len() * 6);
    for q in quads {
        let p = |i: usize| positions[q[i] as usize];
        if p(0).distance_squared(p(2)) <= p(1).distance_squared(p(3)) {
            indices.extend_from_slice(&[q[0], q[1], q[2], q[0], q[2], q[3]]);
        } else {
            indices.extend_from_slice(&[q[0], q[1], q[3], q[1], q[2], q[3]]);
        }
    }
    indices
}

/// Area-weighted vertex normals.
fn vertex_normals(positions: &[DVec3], indices: &[u32]) -> Vec<DVec3> {
    let mut normals = vec![DVec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let (a, b, c) = (tri[0] as usize, tri[1] as usize, tri[2] as usize);
        let n = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        normals[a] += n;
        normals[b] += n;
        normals[c] += n;
    }
    normals.iter().map(|n| n.normalize_or(DVec3::Y)).collect()
}

/// A polyline through a bone chain; skin along it is shared by the chain's bones with smooth
/// ramps of the given half-width around each interior point (joint).
struct Chain {
    points: Vec<DVec3>,
    bones: Vec<usize>,
    half_widths: Vec<f64>,
}

impl Chain {
    fn new(id: ChainId) -> Self {
        let j = sk::bind_world_positions();
        match id {
            ChainId::Torso => Self {
                points: vec![DVec3::new(0.0, 0.70, 0.0), j[sk::SPINE], j[sk::CHEST], DVec3::new(0.0, 1.60, 0.0)],
                bones: vec![sk::HIPS, sk::SPINE, sk::CHEST],
                half_widths: vec![0.05, 0.08],
            },
            ChainId::Neck => Self {
                points: vec![DVec3::new(0.0, 1.36, -0.02), j[sk::NECK], j[sk::HEAD], DVec3::new(0.0, 1.75, 0.0)],
                bones: vec![sk::CHEST, sk::NECK, sk::HEAD],
                half_widths: vec![0.035, 0.035],
            },
            ChainId::Arm(side) => {
                let a = sk::arm(side);
                let tip = j[a.hand] + sk::arm_dir(side) * sk::HAND_LEN;
                Self {
                    points: vec![j[a.shoulder], j[a.upper], j[a.lower], j[a.hand], tip],
                    bones: vec![a.shoulder, a.upper, a.lower, a.hand],
                    half_widths: vec![0.05, 0.105, 0.05],
                }
            }
            ChainId::Leg(side) => {
                let l = sk::leg(side);
                let top = j[l.upper] + DVec3::new(0.0, 0.1, 0.0);
                let tip = DVec3::new(j[l.toes].x, 0.02, 0.20);
                Self {
                    points: vec![top, j[l.lower], j[l.foot], j[l.toes], tip],
                    bones: vec![l.upper, l.lower, l.foot, l.toes],
                    half_widths: vec![0.105, 0.045, 0.025],
                }
            }
        }
    }

    /// Arc length along the chain of the point nearest to `p`.
    fn arc_length(&self, p: DVec3) -> f64 {
        let mut best = f64::MAX;
        let mut best_s = 0.0;
        let mut start = 0.0;
        for w in self.points.windows(2) {
            let seg = w[1] - w[0];
            let len = seg.length();
            let t = ((p - w[0]).dot(seg) / (len * len)).clamp(0.0, 1.0);
            let d = p.distance_squared(w[0] + seg * t);
            if d < best {
                best = d;
                best_s = start + t * len;
            }
            start += len;
        }
        best_s
    }

    /// Arc length of point `i`.
    fn joint_arc(&self, i: usize) -> f64 {
        self.points.windows(2).take(i).map(|w| w[0].distance(w[1])).sum()
    }

    fn weights(&self, p: DVec3, out: &mut [f64; JOINT_COUNT], scale: f64) {
        let s = self.arc_length(p);
        let n = self.bones.len();
        // ramp(i) = share of the skin beyond interior joint i.
        let ramp = |i: usize| -> f64 {
            if i == 0 {
                1.0
            } else if i >= n {
                0.0
            } else {
                let c = self.joint_arc(i);
                let h = self.half_widths[i - 1];
                smoothstep(c - h, c + h, s)
            }
        };
        for (i, &bone) in self.bones.iter().enumerate() {
            out[bone] += scale * (ramp(i) - ramp(i + 1));
        }
    }
}

/// Joint weights of a surface point, from the parts nearest to it.
fn skin_weights(body: &Body, chains: &Chains, d: &[f64], p: DVec3) -> ([u8; 4], [f32; 4]) {
    let d_min = d.iter().copied().fold(f64::MAX, f64::min);
    let mut acc = [0.0_f64; JOINT_COUNT];
    for (part, &dp) in body.parts.iter().zip(d) {
        let x = (dp - d_min) / part.skin_reach;
        if x >= 1.0 {
            continue;
        }
        let m = (1.0 - x) * (1.0 - x);
        match part.skin {
            SkinRule::Rigid(joint) => acc[joint] += m,
            SkinRule::Chain(id) => chains.get(id).weights(p, &mut acc, m),
        }
    }
    // Keep the four largest influences (ties broken by joint order) and quantise them to
    // multiples of 1/65536 that sum to exactly one.
    let mut order: Vec<usize> = (0..JOINT_COUNT).collect();
    order.sort_by(|&a, &b| acc[b].total_cmp(&acc[a]).then(a.cmp(&b)));
    let top: Vec<usize> = order.into_iter().take(4).filter(|&j| acc[j] > 0.0).collect();
    let total: f64 = top.iter().map(|&j| acc[j]).sum();
    let mut q = [0_u32; 4];
    let mut joints = [0_u8; 4];
    for (slot, &j) in top.iter().enumerate() {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let v = (acc[j] / total * 65536.0).round() as u32;
        q[slot] = v;
        joints[slot] = u8::try_from(j).expect("joint index fits u8");
    }
    // Drop influences that rounded to nothing, then fix the sum on the largest.
    let sum: u32 = q.iter().sum();
    q[0] = q[0] + 65536 - sum;
    let mut weights = [0.0_f32; 4];
    for slot in 0..4 {
        if q[slot] == 0 {
            joints[slot] = 0;
        }
        #[allow(clippy::cast_precision_loss)]
        let w = q[slot] as f32 / 65536.0;
        weights[slot] = w;
    }
    (joints, weights)
}

/// Colours (linear RGB).
struct Palette {
    skin: DVec3,
    lips: DVec3,
    shirt: DVec3,
    belt: DVec3,
    trousers: DVec3,
    shoe: DVec3,
    sole: DVec3,
    hair: DVec3,
    eye: DVec3,
}

impl Palette {
    fn new() -> Self {
        let c = |r, g, b| DVec3::from_array(srgb8(r, g, b));
        Self {
            skin: c(226, 178, 146),
            lips: c(184, 112, 100),
            shirt: c(52, 112, 168),
            belt: c(70, 46, 32),
            trousers: c(62, 66, 82),
            shoe: c(232, 230, 224),
            sole: c(48, 46, 44),
            hair: c(74, 50, 34),
            eye: c(24, 22, 26),
        }
    }
}

/// Blend from `below` to `above` across the level `edge` of `value` (soft over +-`half`).
fn band(below: DVec3, above: DVec3, value: f64, edge: f64, half: f64) -> DVec3 {
    below.lerp(above, smoothstep(edge - half, edge + half, value))
}

/// Half-width of painted borders, in metres.
const PAINT_SOFT: f64 = 0.004;

/// Facial features: centre on the face surface and half-sizes (x, y).
pub struct Feature {
    pub centre: DVec3,
    pub radii: [f64; 2],
}

impl Feature {
    /// Elliptical distance (1 on the border), or a large number behind the face.
    fn norm(&self, p: DVec3) -> f64 {
        if p.z < self.centre.z - 0.03 {
            return f64::MAX;
        }
        let dx = (p.x - self.centre.x) / self.radii[0];
        let dy = (p.y - self.centre.y) / self.radii[1];
        (dx * dx + dy * dy).sqrt()
    }
}

/// Point on the face found by marching along -Z from in front of the head at (x, y).
fn on_face(body: &Body, x: f64, y: f64) -> DVec3 {
    let mut p = DVec3::new(x, y, 0.25);
    for _ in 0..200 {
        let d = body.distance(p);
        if d < 1e-6 {
            break;
        }
        p.z -= d.max(1e-5);
    }
    body.project(p)
}

struct Face {
    eyes: [Feature; 2],
    brows: [Feature; 2],
    mouth: Feature,
}

impl Face {
    fn new(body: &Body) -> Self {
        let eye = |side: Side| Feature { centre: on_face(body, 0.033 * side.sign(), 1.652), radii: [0.0125, 0.0095] };
        let brow = |side: Side| Feature { centre: on_face(body, 0.035 * side.sign(), 1.6755), radii: [0.0165, 0.0032] };
        Self {
            eyes: [eye(Side::Left), eye(Side::Right)],
            brows: [brow(Side::Left), brow(Side::Right)],
            mouth: Feature { centre: on_face(body, 0.0, 1.584), radii: [0.021, 0.0042] },
        }
    }

    /// Whether `p` is close enough to a feature to need the finest mesh.
    fn detail(&self, p: DVec3) -> bool {
        let near = |f: &Feature| {
            let d = p - f.centre;
            d.x.abs() < f.radii[0] + 0.012 && d.y.abs() < f.radii[1] + 0.012 && d.z.abs() < 0.03
        };
        self.eyes.iter().any(near) || self.brows.iter().any(near) || near(&self.mouth)
    }
}

/// Feature mask: 1 inside, 0 outside, soft across the border.
fn mask(f: &Feature, p: DVec3) -> f64 {
    let n = f.norm(p);
    if n == f64::MAX {
        return 0.0;
    }
    // Border softness of about PAINT_SOFT / 2 in metres.
    let soft = 0.5 * PAINT_SOFT / f.radii[1].min(f.radii[0]);
    1.0 - smoothstep(1.0 - soft, 1.0 + soft, n)
}

/// Colour of a part's surface at `p`.
fn paint(part: &Part, p: DVec3, face: &Face, chains: &Chains, pal: &Palette) -> DVec3 {
    match part.paint {
        Paint::Skin => pal.skin,
        Paint::Torso => {
            let lower = band(pal.trousers, pal.belt, p.y, 0.975, PAINT_SOFT);
            band(lower, pal.shirt, p.y, 1.005, PAINT_SOFT)
        }
        Paint::Head => {
            if part.name == "ear" {
                return pal.skin;
            }
            // Hairline: low at the back (nape), high on the forehead, above the ears.
            let q = p - DVec3::new(0.0, 1.66, -0.01);
            let front = smoothstep(-0.06, 0.05, q.z);
            let base = -0.07 + front * 0.132;
            // Above the ears (but not behind them) the hair stops higher.
            let ear_zone = smoothstep(0.045, 0.065, q.x.abs()) * smoothstep(-0.06, -0.035, q.z);
            let hairline = base.max(base + (0.022 - base) * ear_zone);
            let mut c = band(pal.skin, pal.hair, q.y, hairline, PAINT_SOFT);
            for brow in &face.brows {
                c = c.lerp(pal.hair, mask(brow, p));
            }
            c = c.lerp(pal.lips, mask(&face.mouth, p));
            for eye in &face.eyes {
                c = c.lerp(pal.eye, mask(eye, p));
            }
            c
        }
        Paint::Arm(side) => {
            let chain = chains.get(ChainId::Arm(side));
            band(pal.shirt, pal.skin, chain.arc_length(p), chain.joint_arc(1) + 0.13, PAINT_SOFT)
        }
        Paint::Leg => {
            let shoe = band(pal.sole, pal.shoe, p.y, 0.012, PAINT_SOFT * 0.5);
            band(shoe, pal.trousers, p.y, 0.115, PAINT_SOFT)
        }
    }
}

/// Closing the eyes: points in and around each eye are squashed onto a line slightly below the
/// eye's centre (so the upper lid travels further than the lower), then put back on the surface.
fn blink_offset(body: &Body, face: &Face, p: DVec3) -> DVec3 {
    for eye in &face.eyes {
        let n = eye.norm(p);
        if n >= 1.9 {
            continue;
        }
        let w = 1.0 - smoothstep(1.0, 1.9, n);
        let line = eye.centre.y - 0.3 * eye.radii[1];
        let target_y = line + (p.y - line) * (1.0 - 0.95 * w);
        let moved = body.project(DVec3::new(p.x, target_y, p.z));
        return moved - p;
    }
    DVec3::ZERO
}

/// Red-green refinement: triangles for which `red` holds are split in four (new vertices on the
/// surface at edge midpoints); neighbours with one split edge are split in two, so the mesh stays
/// crack-free. A triangle with two split edges gets its third split too.
fn refine(body: &Body, positions: &mut Vec<DVec3>, indices: &[u32], red: impl Fn(DVec3) -> bool) -> Vec<u32> {
    use std::collections::BTreeMap;
    let key = |a: u32, b: u32| if a < b { (a, b) } else { (b, a) };
    let mut split: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let tris: Vec<[u32; 3]> = indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    let mut marked: Vec<bool> = tris
        .iter()
        .map(|t| red((positions[t[0] as usize] + positions[t[1] as usize] + positions[t[2] as usize]) / 3.0))
        .collect();
    loop {
        for (t, &m) in tris.iter().zip(&marked) {
            if m {
                for e in 0..3 {
                    split.entry(key(t[e], t[(e + 1) % 3])).or_insert(u32::MAX);
                }
            }
        }
        let mut changed = false;
        for (t, m) in tris.iter().zip(marked.iter_mut()) {
            if !*m && (0..3).filter(|&e| split.contains_key(&key(t[e], t[(e + 1) % 3]))).count() >= 2 {
                *m = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (&(a, b), v) in &mut split {
        let mid = (positions[a as usize] + positions[b as usize]) * 0.5;
        *v = u32::try_from(positions.len()).expect("vertex count fits u32");
        positions.push(body.project(mid));
    }
    let mut out = Vec::with_capacity(indices.len() * 2);
    for t in &tris {
        let mids: [Option<u32>; 3] = [0, 1, 2].map(|e| split.get(&key(t[e], t[(e + 1) % 3])).copied());
        match mids {
            [Some(ab), Some(bc), Some(ca)] => {
                out.extend_from_slice(&[t[0], ab, ca, ab, t[1], bc, ca, bc, t[2], ab, bc, ca]);
            }
            [None, None, None] => out.extend_from_slice(t),
            _ => {
                // Exactly one split edge (the closure above rules out two).
                let e = mids.iter().position(Option::is_some).expect("one split edge");
                let m = mids[e].expect("split edge");
                let (a, b, c) = (t[e], t[(e + 1) % 3], t[(e + 2) % 3]);
                out.extend_from_slice(&[a, m, c, m, b, c]);
            }
        }
    }
    out
}

/// The skinning chains, built once.
struct Chains {
    chains: Vec<(ChainId, Chain)>,
}

impl Chains {
    fn new() -> Self {
        let mut ids = vec![ChainId::Torso, ChainId::Neck];
        for side in [Side::Left, Side::Right] {
            ids.push(ChainId::Arm(side));
            ids.push(ChainId::Leg(side));
        }
        Self { chains: ids.into_iter().map(|id| (id, Chain::new(id))).collect() }
    }

    fn get(&self, id: ChainId) -> &Chain {
        &self.chains.iter().find(|(i, _)| *i == id).expect("every chain is built").1
    }
}

fn to_f32(v: DVec3) -> [f32; 3] {
    // Narrowing to the file's float type is the point of this function.
    #[allow(clippy::cast_possible_truncation)]
    [v.x as f32, v.y as f32, v.z as f32]
}

/// How far (difference of part distances) colours of neighbouring parts blend.
const PAINT_BLEND: f64 = 0.006;

pub fn build() -> MeshData {
    let body = Body::new();
    let grid = sample_grid(&body);
    let (mut positions, quads) = surface_nets(&grid);
    for p in &mut positions {
        *p = body.project(*p);
    }
    relax(&body, &mut positions, &quads, 2);
    let indices = triangulate(&positions, &quads);
    // Finer mesh on the head, finest around the eyes, brows and mouth.
    let face = Face::new(&body);
    let indices = refine(&body, &mut positions, &indices, |p| p.y > 1.535 && p.z > -0.03 || p.y > 1.6);
    let indices = refine(&body, &mut positions, &indices, |p| face.detail(p));
    let normals = vertex_normals(&positions, &indices);

    let chains = Chains::new();
    let pal = Palette::new();
    let mut colors = Vec::with_capacity(positions.len());
    let mut joints = Vec::with_capacity(positions.len());
    let mut weights = Vec::with_capacity(positions.len());
    let mut blinked = positions.clone();
    for (v, &p) in positions.iter().enumerate() {
        let d = body.part_distances(p);
        let d_min = d.iter().copied().fold(f64::MAX, f64::min);
        let mut color = DVec3::ZERO;
        let mut total = 0.0;
        let mut head = false;
        for (part, &dp) in body.parts.iter().zip(&d) {
            let x = (dp - d_min) / PAINT_BLEND;
            if x < 1.0 {
                let w = (1.0 - x) * (1.0 - x);
                color += paint(part, p, &face, &chains, &pal) * w;
                total += w;
            }
            head |= dp == d_min && part.group == Group::Head;
        }
        colors.push(to_f32(color / total));
        let (j, w) = skin_weights(&body, &chains, &d, p);
        joints.push(j);
        weights.push(w);
        if head {
            blinked[v] = p + blink_offset(&body, &face, p);
        }
    }
    let blink_normals_full = vertex_normals(&blinked, &indices);

    let positions_f: Vec<[f32; 3]> = positions.iter().map(|&p| to_f32(p)).collect();
    let normals_f: Vec<[f32; 3]> = normals.iter().map(|&n| to_f32(n)).collect();
    let blink_positions =
        positions.iter().zip(&blinked).map(|(&a, &b)| if a == b { [0.0; 3] } else { to_f32(b - a) }).collect();
    let blink_normals = normals_f
        .iter()
        .zip(&blink_normals_full)
        .map(|(a, &b)| {
            let b = to_f32(b);
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]]
        })
        .collect();
    MeshData {
        positions: positions_f,
        normals: normals_f,
        colors,
        joints,
        weights,
        indices,
        blink_positions,
        blink_normals,
    }
}
