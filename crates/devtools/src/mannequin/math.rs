//! Small, platform-independent maths helpers.
//!
//! The generator must produce the same bytes on every machine, so everything that ends up in the
//! file is computed in `f64` with plain IEEE arithmetic and `sqrt` only (both correctly rounded
//! everywhere). Trigonometry comes from the polynomial below instead of the platform's libm,
//! whose last bits differ between operating systems.

use glam::{DQuat, DVec3};

/// Sine and cosine of `x` radians (accurate to ~1e-16 for |x| < 100).
pub fn sin_cos(x: f64) -> (f64, f64) {
    let quarter = (x / std::f64::consts::FRAC_PI_2).round();
    let r = x - quarter * std::f64::consts::FRAC_PI_2;
    let r2 = r * r;
    // Taylor series in Horner form; |r| <= pi/4 so the truncation error is below 1e-18.
    let s = r
        * (1.0
            - r2 / 6.0
                * (1.0
                    - r2 / 20.0
                        * (1.0
                            - r2 / 42.0
                                * (1.0 - r2 / 72.0 * (1.0 - r2 / 110.0 * (1.0 - r2 / 156.0 * (1.0 - r2 / 210.0)))))));
    let c = 1.0
        - r2 / 2.0
            * (1.0
                - r2 / 12.0
                    * (1.0
                        - r2 / 30.0 * (1.0 - r2 / 56.0 * (1.0 - r2 / 90.0 * (1.0 - r2 / 132.0 * (1.0 - r2 / 182.0))))));
    // `quarter` is a small whole number; the cast cannot truncate anything meaningful.
    #[allow(clippy::cast_possible_truncation)]
    match (quarter as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

/// Rotation of `degrees` about the unit vector `axis` (right-handed).
pub fn quat_axis_deg(axis: DVec3, degrees: f64) -> DQuat {
    let (s, c) = sin_cos(degrees.to_radians() * 0.5);
    let a = axis * s;
    DQuat::from_xyzw(a.x, a.y, a.z, c)
}

/// Unit quaternion with a non-negative `w` (the canonical one of `q` and `-q`).
pub fn canonical(q: DQuat) -> DQuat {
    let len = q.length();
    let q = q / len;
    if q.w < 0.0 { -q } else { q }
}

/// Hermite smoothstep of `x` over `[edge0, edge1]`.
pub fn smoothstep(edge0: f64, edge1: f64, x: f64) -> f64 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Polynomial smooth minimum with blend radius `k` (exactly `min` when the inputs differ by >= k).
pub fn smin(a: f64, b: f64, k: f64) -> f64 {
    if k <= 0.0 {
        return a.min(b);
    }
    let h = (k - (a - b).abs()).max(0.0) / k;
    a.min(b) - h * h * k * 0.25
}

/// Polynomial smooth maximum (rounded intersection) with blend radius `k`.
pub fn smax(a: f64, b: f64, k: f64) -> f64 {
    -smin(-a, -b, k)
}

/// Catmull-Rom interpolation between `p1` and `p2` at `t` in `[0, 1]`.
pub fn catmull_rom(p0: f64, p1: f64, p2: f64, p3: f64, t: f64) -> f64 {
    let t2 = t * t;
    let t3 = t2 * t;
    0.5 * (2.0 * p1 + (p2 - p0) * t + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * t2 + (3.0 * p1 - p0 - 3.0 * p2 + p3) * t3)
}

/// Linear RGB from an sRGB byte triple (a few constants only; uses a rational approximation of
/// the sRGB curve so it stays platform-independent).
pub fn srgb8(r: u8, g: u8, b: u8) -> [f64; 3] {
    [srgb_channel(r), srgb_channel(g), srgb_channel(b)]
}

fn srgb_channel(v: u8) -> f64 {
    let c = f64::from(v) / 255.0;
    if c <= 0.040_45 {
        c / 12.92
    } else {
        // ((c + 0.055) / 1.055)^2.4 = x^2 * x^0.4; x^0.4 = sqrt(sqrt(x^1.6))... keep it simple:
        // x^2.4 = x^2 * (x^(1/5))^2 with x^(1/5) by Newton iteration (plain arithmetic).
        let x = (c + 0.055) / 1.055;
        let mut y = 1.0_f64;
        for _ in 0..40 {
            // Newton step for y^5 = x.
            let y4 = y * y * y * y;
            y -= (y4 * y - x) / (5.0 * y4);
        }
        x * x * y * y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_cos_matches_std() {
        let mut x = -7.0;
        while x < 7.0 {
            let (s, c) = sin_cos(x);
            assert!((s - x.sin()).abs() < 1e-14, "sin {x}");
            assert!((c - x.cos()).abs() < 1e-14, "cos {x}");
            x += 0.0137;
        }
    }

    #[test]
    fn srgb_matches_formula() {
        for v in [0_u8, 10, 60, 128, 200, 255] {
            let c = f64::from(v) / 255.0;
            let want = if c <= 0.040_45 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
            assert!((srgb_channel(v) - want).abs() < 1e-12, "{v}");
        }
    }
}
