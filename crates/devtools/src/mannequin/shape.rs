//! The mannequin's body as a signed distance field.
//!
//! The body is a set of simple parts (tapered capsules with round or elliptical cross-sections,
//! ellipsoids, and a lofted torso whose elliptical cross-sections vary with height) blended with
//! smooth unions, so arms, legs, neck and head grow out of the torso as one smooth surface.
//! The mesh module polygonises the zero level set. Each part also says how the skin around it
//! is weighted (a joint chain or a single joint) and how it is painted.

use glam::DVec3;

use super::math::{catmull_rom, smax, smin};
use super::skeleton::{self as sk, Side};

/// Distance returned for parts whose bounding box (plus this margin) does not contain the point.
/// Large enough that a culled part can never change a smooth union near the surface.
pub const CULL_MARGIN: f64 = 0.09;

/// Which bone chain a part's skin is weighted along.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ChainId {
    Torso,
    Neck,
    Arm(Side),
    Leg(Side),
}

/// How the skin near a part is bound to the skeleton.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SkinRule {
    /// Weights blend along the chain's bones, with smooth ramps around each joint.
    Chain(ChainId),
    /// Bound to one joint only.
    Rigid(usize),
}

/// Colour scheme of the surface around a part.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Paint {
    /// Shirt above the belt, belt, trousers below.
    Torso,
    Skin,
    /// Hair on the back and top, eyes on the face, skin elsewhere.
    Head,
    /// Shirt sleeve near the shoulder, skin further down the arm.
    Arm(Side),
    /// Trousers, shoes near the ground.
    Leg,
}

/// Which group a part belongs to; groups are blended with each other as a whole.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Group {
    Torso,
    Head,
    Arm(Side),
    Leg(Side),
}

#[derive(Clone, Debug)]
pub enum Prim {
    /// Convex hull of two spheres; optionally squashed along `flat_axis` (perpendicular to the
    /// segment) by `aspect` to get an elliptical cross-section.
    Cone {
        a: DVec3,
        b: DVec3,
        ra: f64,
        rb: f64,
        flat: Option<(DVec3, f64)>,
    },
    Ellipsoid {
        c: DVec3,
        r: DVec3,
    },
    /// Stack of horizontal ellipses (y, half-width x, half-depth z, centre z), rounded caps.
    Loft {
        rows: Vec<[f64; 4]>,
        cap_round: f64,
    },
}

#[derive(Clone, Debug)]
pub struct Part {
    pub name: &'static str,
    pub prim: Prim,
    pub group: Group,
    /// Smooth-union radius with the parts before it in the same group.
    pub blend: f64,
    pub skin: SkinRule,
    /// How far (in metres of distance difference) this part's skinning reaches into
    /// neighbouring parts' surface.
    pub skin_reach: f64,
    pub paint: Paint,
    lo: DVec3,
    hi: DVec3,
}

impl Part {
    fn new(name: &'static str, prim: Prim, group: Group, blend: f64, skin: SkinRule, paint: Paint) -> Self {
        let (lo, hi) = prim_bounds(&prim);
        Self { name, prim, group, blend, skin, skin_reach: 0.035, paint, lo, hi }
    }

    fn reach(mut self, r: f64) -> Self {
        self.skin_reach = r;
        self
    }

    /// Signed distance (approximate, never overestimating by much) to this part alone,
    /// or `CULL_MARGIN` when the point is clearly far away.
    pub fn distance(&self, p: DVec3) -> f64 {
        let m = CULL_MARGIN;
        if p.x < self.lo.x - m
            || p.y < self.lo.y - m
            || p.z < self.lo.z - m
            || p.x > self.hi.x + m
            || p.y > self.hi.y + m
            || p.z > self.hi.z + m
        {
            return m;
        }
        prim_distance(&self.prim, p).min(m)
    }
}

fn prim_bounds(prim: &Prim) -> (DVec3, DVec3) {
    match prim {
        Prim::Cone { a, b, ra, rb, .. } => {
            let lo = (*a - DVec3::splat(*ra)).min(*b - DVec3::splat(*rb));
            let hi = (*a + DVec3::splat(*ra)).max(*b + DVec3::splat(*rb));
            (lo, hi)
        }
        Prim::Ellipsoid { c, r } => (*c - *r, *c + *r),
        Prim::Loft { rows, .. } => {
            let mut lo = DVec3::new(0.0, rows[0][0], 0.0);
            let mut hi = DVec3::new(0.0, rows[rows.len() - 1][0], 0.0);
            for row in rows {
                lo.x = lo.x.min(-row[1]);
                hi.x = hi.x.max(row[1]);
                lo.z = lo.z.min(row[3] - row[2]);
                hi.z = hi.z.max(row[3] + row[2]);
            }
            (lo, hi)
        }
    }
}

fn prim_distance(prim: &Prim, p: DVec3) -> f64 {
    match prim {
        Prim::Cone { a, b, ra, rb, flat } => cone_distance(*a, *b, *ra, *rb, *flat, p),
        Prim::Ellipsoid { c, r } => {
            let q = (p - *c) / *r;
            (q.length() - 1.0) * r.min_element()
        }
        Prim::Loft { rows, cap_round } => loft_distance(rows, *cap_round, p),
    }
}

/// Distance to the convex hull of the spheres (a, ra) and (b, rb), measured in the plane through
/// the axis. With `flat`, the radial offset along the flat axis is stretched by 1/aspect (and the
/// result scaled by aspect so it stays a lower bound of the true distance).
fn cone_distance(a: DVec3, b: DVec3, ra: f64, rb: f64, flat: Option<(DVec3, f64)>, p: DVec3) -> f64 {
    let axis = b - a;
    let len = axis.length();
    let u = axis / len;
    let q = p - a;
    let along = q.dot(u);
    let radial_vec = q - u * along;
    let (radial, scale) = match flat {
        Some((flat_axis, aspect)) => {
            let f = flat_axis.dot(radial_vec);
            let rest = radial_vec - flat_axis * f;
            let f = f / aspect;
            ((rest.length_squared() + f * f).sqrt(), aspect)
        }
        None => (radial_vec.length(), 1.0),
    };
    // 2D problem: point (along, radial), circles at (0, 0) radius ra and (len, 0) radius rb.
    // The common outer tangent touches circle A at angle phi from the radial axis, where
    // sin(phi) = (ra - rb) / len.
    let sin_phi = (ra - rb) / len;
    let cos_phi = (1.0 - sin_phi * sin_phi).sqrt();
    // Tangent direction from A's touching point to B's: (cos_phi, -sin_phi).
    let tangent_coord = (along - ra * sin_phi) * cos_phi - (radial - ra * cos_phi) * sin_phi;
    let d = if tangent_coord < 0.0 {
        (along * along + radial * radial).sqrt() - ra
    } else if tangent_coord > len * cos_phi {
        let da = along - len;
        (da * da + radial * radial).sqrt() - rb
    } else {
        along * sin_phi + radial * cos_phi - ra
    };
    d * scale
}

fn loft_distance(rows: &[[f64; 4]], cap_round: f64, p: DVec3) -> f64 {
    let n = rows.len();
    let y0 = rows[0][0];
    let y1 = rows[n - 1][0];
    let y = p.y.clamp(y0, y1);
    let mut i = 0;
    while i + 2 < n && y > rows[i + 1][0] {
        i += 1;
    }
    let t = (y - rows[i][0]) / (rows[i + 1][0] - rows[i][0]);
    let r0 = rows[i.saturating_sub(1)];
    let r1 = rows[i];
    let r2 = rows[i + 1];
    let r3 = rows[(i + 2).min(n - 1)];
    let interp = |k: usize| catmull_rom(r0[k], r1[k], r2[k], r3[k], t);
    let (a, b, zc) = (interp(1), interp(2), interp(3));
    let dz = p.z - zc;
    let rho = ((p.x / a) * (p.x / a) + (dz / b) * (dz / b)).sqrt();
    let side = (rho - 1.0) * a.min(b);
    let bottom = smax(side, y0 + cap_round * 0.5 - p.y, cap_round);
    smax(bottom, p.y - y1 + cap_round * 0.5, cap_round)
}

/// Geometry of the whole body.
pub struct Body {
    pub parts: Vec<Part>,
    /// Corners of a box that contains the surface with some margin.
    pub bounds: (DVec3, DVec3),
}

const ARM_JOIN: f64 = 0.035;
const LEG_JOIN: f64 = 0.05;
const HEAD_JOIN: f64 = 0.03;
/// Rounding of the soles' flat bottom.
const SOLE_ROUND: f64 = 0.006;

impl Body {
    pub fn new() -> Self {
        let j = sk::bind_world_positions();
        let mut parts = Vec::new();
        let torso_rows = vec![
            [0.80, 0.100, 0.075, 0.000],
            [0.86, 0.150, 0.100, -0.005],
            [0.92, 0.168, 0.106, -0.008],
            [0.99, 0.158, 0.098, 0.000],
            [1.06, 0.138, 0.090, 0.010],
            [1.14, 0.142, 0.095, 0.014],
            [1.24, 0.158, 0.105, 0.016],
            [1.32, 0.166, 0.104, 0.010],
            [1.39, 0.160, 0.090, -0.004],
            [1.44, 0.120, 0.070, -0.012],
            [1.48, 0.060, 0.050, -0.016],
        ];
        parts.push(
            Part::new(
                "torso",
                Prim::Loft { rows: torso_rows, cap_round: 0.04 },
                Group::Torso,
                0.0,
                SkinRule::Chain(ChainId::Torso),
                Paint::Torso,
            )
            .reach(0.05),
        );
        parts.push(Part::new(
            "neck",
            Prim::Cone {
                a: DVec3::new(0.0, 1.40, -0.018),
                b: DVec3::new(0.0, 1.60, -0.006),
                ra: 0.056,
                rb: 0.048,
                flat: None,
            },
            Group::Torso,
            0.05,
            SkinRule::Chain(ChainId::Neck),
            Paint::Skin,
        ));
        let head = SkinRule::Rigid(sk::HEAD);
        parts.push(Part::new(
            "cranium",
            Prim::Ellipsoid { c: DVec3::new(0.0, 1.66, -0.01), r: DVec3::new(0.077, 0.10, 0.097) },
            Group::Head,
            0.0,
            head,
            Paint::Head,
        ));
        parts.push(Part::new(
            "jaw",
            Prim::Ellipsoid { c: DVec3::new(0.0, 1.587, 0.02), r: DVec3::new(0.058, 0.058, 0.07) },
            Group::Head,
            0.04,
            head,
            Paint::Head,
        ));
        parts.push(Part::new(
            "nose",
            Prim::Cone {
                a: DVec3::new(0.0, 1.648, 0.082),
                b: DVec3::new(0.0, 1.614, 0.099),
                ra: 0.008,
                rb: 0.011,
                flat: None,
            },
            Group::Head,
            0.012,
            head,
            Paint::Head,
        ));
        for side in [Side::Left, Side::Right] {
            let sx = side.sign();
            parts.push(Part::new(
                "ear",
                Prim::Ellipsoid { c: DVec3::new(0.075 * sx, 1.645, -0.012), r: DVec3::new(0.013, 0.028, 0.018) },
                Group::Head,
                0.012,
                head,
                Paint::Head,
            ));
        }
        for side in [Side::Left, Side::Right] {
            add_arm(&mut parts, &j, side);
        }
        for side in [Side::Left, Side::Right] {
            add_leg(&mut parts, &j, side);
        }
        let mut lo = DVec3::splat(f64::MAX);
        let mut hi = DVec3::splat(f64::MIN);
        for part in &parts {
            lo = lo.min(part.lo);
            hi = hi.max(part.hi);
        }
        lo.y = lo.y.max(0.0);
        let margin = DVec3::splat(0.03);
        Self { parts, bounds: (lo - margin, hi + margin) }
    }

    /// Raw distance of `p` to every part (same order as `parts`).
    pub fn part_distances(&self, p: DVec3) -> Vec<f64> {
        self.parts.iter().map(|part| part.distance(p)).collect()
    }

    /// Signed distance of `p` to the body surface (negative inside).
    pub fn distance(&self, p: DVec3) -> f64 {
        let mut torso = CULL_MARGIN;
        let mut head = CULL_MARGIN;
        let mut arms = [CULL_MARGIN; 2];
        let mut legs = [CULL_MARGIN; 2];
        for part in &self.parts {
            let slot = match part.group {
                Group::Torso => &mut torso,
                Group::Head => &mut head,
                Group::Arm(Side::Left) => &mut arms[0],
                Group::Arm(Side::Right) => &mut arms[1],
                Group::Leg(Side::Left) => &mut legs[0],
                Group::Leg(Side::Right) => &mut legs[1],
            };
            let d = part.distance(p);
            *slot = smin(*slot, d, part.blend);
        }
        let core = smin(torso, head, HEAD_JOIN);
        let mut body = CULL_MARGIN;
        for arm in arms {
            body = body.min(smin(core, arm, ARM_JOIN));
        }
        for leg in legs {
            // Flat soles: cut the leg at the ground plane.
            let leg = smax(leg, -p.y, SOLE_ROUND);
            body = body.min(smin(core, leg, LEG_JOIN));
        }
        body
    }

    /// Gradient of `distance` by central differences.
    pub fn gradient(&self, p: DVec3) -> DVec3 {
        let h = 1e-4;
        let dx = DVec3::new(h, 0.0, 0.0);
        let dy = DVec3::new(0.0, h, 0.0);
        let dz = DVec3::new(0.0, 0.0, h);
        DVec3::new(
            self.distance(p + dx) - self.distance(p - dx),
            self.distance(p + dy) - self.distance(p - dy),
            self.distance(p + dz) - self.distance(p - dz),
        ) / (2.0 * h)
    }

    /// Moves `p` onto the zero level set by a few Newton steps along the gradient.
    pub fn project(&self, mut p: DVec3) -> DVec3 {
        for _ in 0..4 {
            let d = self.distance(p);
            if d.abs() < 1e-7 {
                break;
            }
            let g = self.gradient(p);
            let g2 = g.length_squared();
            if g2 < 1e-12 {
                break;
            }
            let step = g * (d / g2);
            // Never jump more than 1 cm at once.
            let len = step.length();
            p -= if len > 0.01 { step * (0.01 / len) } else { step };
        }
        p
    }
}

/// Perpendicular part of `v` with respect to unit `u`, normalised.
fn perpendicular(v: DVec3, u: DVec3) -> DVec3 {
    (v - u * v.dot(u)).normalize()
}

fn cone(a: DVec3, ra: f64, b: DVec3, rb: f64) -> Prim {
    Prim::Cone { a, b, ra, rb, flat: None }
}

fn flat_cone(a: DVec3, ra: f64, b: DVec3, rb: f64, flat_axis: DVec3, aspect: f64) -> Prim {
    let u = (b - a).normalize();
    Prim::Cone { a, b, ra, rb, flat: Some((perpendicular(flat_axis, u), aspect)) }
}

fn add_arm(parts: &mut Vec<Part>, j: &[DVec3; sk::JOINT_COUNT], side: Side) {
    let sx = side.sign();
    let arm = sk::arm(side);
    let d = sk::arm_dir(side);
    let g = Group::Arm(side);
    let skin = SkinRule::Chain(ChainId::Arm(side));
    let paint = Paint::Arm(side);
    let shoulder = j[arm.upper];
    let elbow = j[arm.lower];
    let wrist = j[arm.hand];
    // Palm normal: in the frontal plane, perpendicular to the arm (palms face the thighs).
    let palm_normal = DVec3::new(-d.y * sx, d.x * sx, 0.0);
    let fwd = DVec3::Z;
    parts.push(
        Part::new(
            "trapezius",
            cone(DVec3::new(0.03 * sx, 1.44, -0.026), 0.045, DVec3::new(0.15 * sx, 1.425, -0.02), 0.046),
            g,
            0.0,
            skin,
            paint,
        )
        .reach(0.05),
    );
    parts.push(
        Part::new("deltoid", cone(shoulder - d * 0.005, 0.052, shoulder + d * 0.10, 0.043), g, 0.03, skin, paint)
            .reach(0.05),
    );
    parts.push(Part::new("upper_arm", cone(shoulder + d * 0.05, 0.045, elbow, 0.036), g, 0.03, skin, paint));
    let belly = elbow + d * 0.08;
    parts.push(Part::new("forearm", cone(elbow, 0.036, belly, 0.039), g, 0.03, skin, paint));
    parts.push(Part::new("forearm_low", cone(belly, 0.039, wrist, 0.026), g, 0.03, skin, paint));
    let knuckles = wrist + d * 0.095;
    parts.push(Part::new(
        "palm",
        flat_cone(wrist + d * 0.015, 0.031, knuckles, 0.042, palm_normal, 0.46),
        g,
        0.02,
        skin,
        paint,
    ));
    parts.push(Part::new(
        "fingers",
        flat_cone(knuckles, 0.042, wrist + d * (sk::HAND_LEN - 0.03), 0.03, palm_normal, 0.48),
        g,
        0.02,
        skin,
        paint,
    ));
    parts.push(Part::new(
        "thumb",
        cone(wrist + d * 0.03 + fwd * 0.022, 0.014, wrist + d * 0.075 + fwd * 0.048, 0.011),
        g,
        0.012,
        skin,
        paint,
    ));
}

fn add_leg(parts: &mut Vec<Part>, j: &[DVec3; sk::JOINT_COUNT], side: Side) {
    let sx = side.sign();
    let leg = sk::leg(side);
    let g = Group::Leg(side);
    let skin = SkinRule::Chain(ChainId::Leg(side));
    let paint = Paint::Leg;
    let x = 0.09 * sx;
    let knee = j[leg.lower];
    let ankle = j[leg.foot];
    let mid_thigh = DVec3::new(x, 0.70, 0.008);
    parts.push(
        Part::new("thigh", cone(DVec3::new(x, 0.93, 0.0), 0.088, mid_thigh, 0.072), g, 0.0, skin, paint).reach(0.07),
    );
    parts.push(Part::new("thigh_low", cone(mid_thigh, 0.072, knee, 0.054), g, 0.04, skin, paint));
    let calf = DVec3::new(x, 0.37, -0.008);
    parts.push(Part::new("calf", cone(knee, 0.054, calf, 0.055), g, 0.04, skin, paint));
    parts.push(Part::new("shin", cone(calf, 0.055, ankle + DVec3::new(0.0, 0.01, 0.0), 0.034), g, 0.04, skin, paint));
    parts.push(Part::new(
        "heel",
        Prim::Ellipsoid { c: DVec3::new(x, 0.045, -0.035), r: DVec3::new(0.034, 0.045, 0.038) },
        g,
        0.03,
        SkinRule::Rigid(leg.foot),
        paint,
    ));
    parts.push(Part::new(
        "foot",
        flat_cone(DVec3::new(x, 0.06, -0.01), 0.042, DVec3::new(x, 0.035, 0.12), 0.045, DVec3::Y, 0.8),
        g,
        0.03,
        skin,
        paint,
    ));
    parts.push(Part::new(
        "toes",
        flat_cone(DVec3::new(x, 0.03, 0.125), 0.043, DVec3::new(x, 0.026, 0.17), 0.03, DVec3::Y, 0.6),
        g,
        0.02,
        skin,
        paint,
    ));
}

impl Default for Body {
    fn default() -> Self {
        Self::new()
    }
}
