//! Interpolation maths: lerp, shortest-path slerp, cubic Hermite, and the "wrong space" teaching
//! modes (nlerp, squad, matrix-lerp, euler-lerp, linear vs log scale), plus easing curves.

use glam::{EulerRot, Mat3, Quat, Vec3, Vec4};

/// Linear interpolation, exact at both ends (`u = 0` gives `a`, `u = 1` gives `b`).
#[inline]
pub fn lerp_vec3(a: Vec3, b: Vec3, u: f32) -> Vec3 {
    a * (1.0 - u) + b * u
}

/// Scalar lerp, exact at both ends.
#[inline]
pub fn lerp_f32(a: f32, b: f32, u: f32) -> f32 {
    a * (1.0 - u) + b * u
}

/// Spherical linear interpolation along the shortest arc: when `a · b < 0`, `b` is negated.
/// Exact at both ends; falls back to normalized lerp when the keys are nearly equal. The angle
/// and sines come from polynomials accurate to a few f32 ulps (see `tests/maths.rs`).
#[inline]
pub fn slerp(a: Quat, b: Quat, u: f32) -> Quat {
    let a4 = Vec4::from(a);
    let mut b4 = Vec4::from(b);
    let mut dot = a4.dot(b4);
    if dot < 0.0 {
        b4 = -b4;
        dot = -dot;
    }
    if dot > 0.9995 {
        // sin(Ω) ≈ Ω: the sine ratios are 1−u and u to within f32 rounding.
        return Quat::from_vec4(a4 * (1.0 - u) + b4 * u).normalize();
    }
    let omega = acos_unit(dot);
    // sin((1−u)Ω), sin(uΩ) and sin Ω in one 4-lane polynomial; dividing (rather than
    // multiplying by 1/sin Ω) makes u = 0 and u = 1 give the keys exactly.
    let sines = sin4_quarter_turn(Vec4::new((1.0 - u) * omega, u * omega, omega, omega));
    let wa = sines.x / sines.z;
    let wb = sines.y / sines.z;
    Quat::from_vec4(a4 * wa + b4 * wb)
}

/// [`sin_quarter_turn`] on four lanes at once.
#[inline]
pub fn sin4_quarter_turn(x: Vec4) -> Vec4 {
    let x2 = x * x;
    let p = Vec4::ONE - x2 * (1.0 / 110.0);
    let p = Vec4::ONE - x2 * (1.0 / 72.0) * p;
    let p = Vec4::ONE - x2 * (1.0 / 42.0) * p;
    let p = Vec4::ONE - x2 * (1.0 / 20.0) * p;
    let p = Vec4::ONE - x2 * (1.0 / 6.0) * p;
    x * p
}

/// Abramowitz & Stegun 4.4.46: `acos(x) ≈ √(1−x)·Σ aᵢxⁱ` on `[0, 1]`, highest power first.
#[allow(clippy::excessive_precision)] // The coefficients as published.
pub(crate) const ACOS_COEFFICIENTS: [f32; 8] = [
    -0.001_262_491_1,
    0.006_670_090_1,
    -0.017_088_125_6,
    0.030_891_881_0,
    -0.050_174_304_6,
    0.088_978_987_4,
    -0.214_598_801_6,
    1.570_796_305_0,
];

/// `acos(x)` for `x ∈ [0, 1]`: Abramowitz & Stegun 4.4.46, absolute error ≤ 2·10⁻⁸ before
/// rounding.
#[inline]
pub fn acos_unit(x: f32) -> f32 {
    // Plain multiply-adds: `mul_add` is a slow library call without target-cpu FMA.
    let x = x.clamp(0.0, 1.0);
    let mut p = ACOS_COEFFICIENTS[0];
    for c in &ACOS_COEFFICIENTS[1..] {
        p = p * x + c;
    }
    (1.0 - x).sqrt() * p
}

/// `sin(x)` for `x ∈ [0, π/2]`: Taylor series to x¹¹ in Horner form (truncation < 6·10⁻⁸).
#[inline]
pub fn sin_quarter_turn(x: f32) -> f32 {
    let x2 = x * x;
    let p = 1.0 - x2 * (1.0 / 110.0);
    let p = 1.0 - x2 * (1.0 / 72.0) * p;
    let p = 1.0 - x2 * (1.0 / 42.0) * p;
    let p = 1.0 - x2 * (1.0 / 20.0) * p;
    let p = 1.0 - x2 * (1.0 / 6.0) * p;
    x * p
}

/// Normalized lerp along the shortest arc: right path, non-uniform angular speed.
#[inline]
pub fn nlerp(a: Quat, b: Quat, u: f32) -> Quat {
    let a4 = Vec4::from(a);
    let b4 = Vec4::from(b);
    let b4 = if a4.dot(b4) < 0.0 { -b4 } else { b4 };
    normalize_or_identity(a4 * (1.0 - u) + b4 * u)
}

/// Normalize a 4-vector as a quaternion; the identity when it is (near) zero or not finite.
#[inline]
pub fn normalize_or_identity(v: Vec4) -> Quat {
    let len_sq = v.length_squared();
    if len_sq > 1e-20 && len_sq.is_finite() { Quat::from_vec4(v / len_sq.sqrt()) } else { Quat::IDENTITY }
}

/// The four cubic Hermite basis weights at `s`: `(h00, h10, h01, h11)`.
#[inline]
pub fn hermite_basis(s: f32) -> [f32; 4] {
    let s2 = s * s;
    let s3 = s2 * s;
    [2.0 * s3 - 3.0 * s2 + 1.0, s3 - 2.0 * s2 + s, -2.0 * s3 + 3.0 * s2, s3 - s2]
}

/// Derivative of the Hermite basis with respect to `s`.
#[inline]
pub fn hermite_basis_derivative(s: f32) -> [f32; 4] {
    let s2 = s * s;
    [6.0 * s2 - 6.0 * s, 3.0 * s2 - 4.0 * s + 1.0, -6.0 * s2 + 6.0 * s, 3.0 * s2 - 2.0 * s]
}

/// glTF cubic spline between keys `p0` (out-tangent `m0`) and `p1` (in-tangent `m1`), with the
/// tangents (units per second) scaled by the key interval `dt_secs`.
#[inline]
pub fn hermite<T>(p0: T, m0: T, p1: T, m1: T, dt_secs: f32, s: f32) -> T
where
    T: std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
{
    let [h00, h10, h01, h11] = hermite_basis(s);
    p0 * h00 + m0 * (h10 * dt_secs) + p1 * h01 + m1 * (h11 * dt_secs)
}

/// Squad: a smooth quaternion curve through a chain of keys. `before` and `after` are the keys
/// around the segment `a → b`; the curve passes through `a` and `b` with continuous angular
/// velocity.
pub fn squad(before: Quat, a: Quat, b: Quat, after: Quat, u: f32) -> Quat {
    // Put the four keys in one hemisphere, following the chain.
    let a = align(before, a);
    let b = align(a, b);
    let after = align(b, after);
    let before = align(a, before);
    let sa = squad_control(before, a, b);
    let sb = squad_control(a, b, after);
    slerp_no_flip(slerp_no_flip(a, b, u), slerp_no_flip(sa, sb, u), 2.0 * u * (1.0 - u))
}

/// `q` or `−q`, whichever is on the same hemisphere as `reference`.
#[inline]
pub fn align(reference: Quat, q: Quat) -> Quat {
    if reference.dot(q) < 0.0 { -q } else { q }
}

fn squad_control(prev: Quat, q: Quat, next: Quat) -> Quat {
    let inv = q.conjugate();
    let l1 = quat_log(inv * next);
    let l2 = quat_log(inv * prev);
    let sum = (l1 + l2) * -0.25;
    (q * quat_exp(sum)).normalize()
}

fn quat_log(q: Quat) -> Vec3 {
    let v = Vec3::new(q.x, q.y, q.z);
    let len = v.length();
    if len < 1e-7 {
        return Vec3::ZERO;
    }
    v * (len.atan2(q.w) / len)
}

fn quat_exp(v: Vec3) -> Quat {
    let angle = v.length();
    if angle < 1e-7 {
        return Quat::IDENTITY;
    }
    let s = angle.sin() / angle;
    Quat::from_xyzw(v.x * s, v.y * s, v.z * s, angle.cos())
}

fn slerp_no_flip(a: Quat, b: Quat, u: f32) -> Quat {
    let a4 = Vec4::from(a);
    let b4 = Vec4::from(b);
    let dot = a4.dot(b4).clamp(-1.0, 1.0);
    if dot.abs() > 0.9995 {
        return normalize_or_identity(a4 * (1.0 - u) + b4 * u);
    }
    let omega = dot.acos();
    let inv_sin = 1.0 / omega.sin();
    Quat::from_vec4(a4 * (((1.0 - u) * omega).sin() * inv_sin) + b4 * ((u * omega).sin() * inv_sin))
}

/// The wrong-space demo: lerp the two rotation matrices entry by entry.
///
/// Returns the closest rotation to the blended matrix and the lengths of its three columns (the
/// "shrink" the blend applies: 1 for a true rotation, ≈ 0.707 half way through a 90° turn).
pub fn matrix_lerp(a: Quat, b: Quat, u: f32) -> (Quat, Vec3) {
    let ma = Mat3::from_quat(a);
    let mb = Mat3::from_quat(b);
    let m = Mat3::from_cols(
        lerp_vec3(ma.x_axis, mb.x_axis, u),
        lerp_vec3(ma.y_axis, mb.y_axis, u),
        lerp_vec3(ma.z_axis, mb.z_axis, u),
    );
    let lengths = Vec3::new(m.x_axis.length(), m.y_axis.length(), m.z_axis.length());
    if lengths.min_element() < 1e-6 {
        // The blend collapsed a column (a 180° turn): no rotation is recoverable.
        return (Quat::IDENTITY, lengths);
    }
    let rotation = Quat::from_mat3(&Mat3::from_cols(m.x_axis / lengths.x, m.y_axis / lengths.y, m.z_axis / lengths.z));
    (normalize_or_identity(Vec4::from(rotation)), lengths)
}

/// The wrong-space demo: lerp XYZ Euler angles independently (may take a long path and pass
/// near gimbal lock).
pub fn euler_lerp(a: Quat, b: Quat, u: f32) -> Quat {
    let (ax, ay, az) = a.to_euler(EulerRot::XYZ);
    let (bx, by, bz) = b.to_euler(EulerRot::XYZ);
    Quat::from_euler(EulerRot::XYZ, lerp_f32(ax, bx, u), lerp_f32(ay, by, u), lerp_f32(az, bz, u))
}

/// Scale interpolated in log space: `exp(lerp(ln a, ln b))`, per component. Components that are
/// not positive (where the logarithm is undefined) fall back to plain lerp.
#[inline]
pub fn log_lerp_vec3(a: Vec3, b: Vec3, u: f32) -> Vec3 {
    let one = |a: f32, b: f32| {
        if a > 0.0 && b > 0.0 { (lerp_f32(a.ln(), b.ln(), u)).exp() } else { lerp_f32(a, b, u) }
    };
    Vec3::new(one(a.x, b.x), one(a.y, b.y), one(a.z, b.z))
}

/// How scales are interpolated and blended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum ScaleSpace {
    /// Component-wise lerp (what the glTF spec asks for).
    #[default]
    Linear,
    /// Lerp the logarithm, then exponentiate: 1 → 4 passes 2 half way.
    Log,
}

impl ScaleSpace {
    /// Every variant, for menus.
    pub const ALL: [Self; 2] = [Self::Linear, Self::Log];

    /// Interpolate two scales in this space.
    #[inline]
    pub fn lerp(self, a: Vec3, b: Vec3, u: f32) -> Vec3 {
        match self {
            Self::Linear => lerp_vec3(a, b, u),
            Self::Log => log_lerp_vec3(a, b, u),
        }
    }

    /// Stable name (`linear`, `log`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Log => "log",
        }
    }
}

/// How rotation keys are interpolated under LINEAR interpolation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum RotationSpace {
    /// Shortest-path slerp (what the glTF spec asks for).
    #[default]
    Slerp,
    /// Normalized lerp: right path, uneven speed.
    Nlerp,
    /// Squad through the chain of keys: smooth angular velocity at keys.
    Squad,
    /// Entry-wise lerp of rotation matrices: the limb shrinks mid-swing.
    MatrixLerp,
    /// Lerp of XYZ Euler angles: long paths, gimbal trouble.
    EulerLerp,
}

impl RotationSpace {
    /// Every variant, for menus.
    pub const ALL: [Self; 5] = [Self::Slerp, Self::Nlerp, Self::Squad, Self::MatrixLerp, Self::EulerLerp];

    /// Stable name (`slerp`, `nlerp`, `squad`, `matrix-lerp`, `euler-lerp`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Slerp => "slerp",
            Self::Nlerp => "nlerp",
            Self::Squad => "squad",
            Self::MatrixLerp => "matrix-lerp",
            Self::EulerLerp => "euler-lerp",
        }
    }
}

/// Easing curves on the segment parameter `u ∈ [0, 1]`, each with `e(0) = 0` and `e(1) = 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Easing {
    /// `u`.
    #[default]
    Linear,
    /// `3u² − 2u³` (slow in, slow out).
    Smoothstep,
    /// `6u⁵ − 15u⁴ + 10u³` (zero velocity and acceleration at both ends).
    Smootherstep,
    /// `u²`.
    EaseInQuad,
    /// `1 − (1 − u)²`.
    EaseOutQuad,
    /// Quadratic in, then out.
    EaseInOutQuad,
    /// `u³`.
    EaseInCubic,
    /// `1 − (1 − u)³`.
    EaseOutCubic,
    /// Cubic in, then out.
    EaseInOutCubic,
    /// `1 − cos(πu/2)`.
    EaseInSine,
    /// `sin(πu/2)`.
    EaseOutSine,
    /// `(1 − cos πu) / 2`.
    EaseInOutSine,
}

impl Easing {
    /// Every variant, for menus.
    pub const ALL: [Self; 12] = [
        Self::Linear,
        Self::Smoothstep,
        Self::Smootherstep,
        Self::EaseInQuad,
        Self::EaseOutQuad,
        Self::EaseInOutQuad,
        Self::EaseInCubic,
        Self::EaseOutCubic,
        Self::EaseInOutCubic,
        Self::EaseInSine,
        Self::EaseOutSine,
        Self::EaseInOutSine,
    ];

    /// Apply the curve; the input is clamped to `[0, 1]` (NaN maps to 0).
    #[inline]
    pub fn apply(self, u: f32) -> f32 {
        let u = if u > 0.0 { u.min(1.0) } else { 0.0 };
        match self {
            Self::Linear => u,
            Self::Smoothstep => u * u * (3.0 - 2.0 * u),
            Self::Smootherstep => u * u * u * (u * (u * 6.0 - 15.0) + 10.0),
            Self::EaseInQuad => u * u,
            Self::EaseOutQuad => 1.0 - (1.0 - u) * (1.0 - u),
            Self::EaseInOutQuad => {
                if u < 0.5 {
                    2.0 * u * u
                } else {
                    1.0 - 2.0 * (1.0 - u) * (1.0 - u)
                }
            }
            Self::EaseInCubic => u * u * u,
            Self::EaseOutCubic => 1.0 - (1.0 - u).powi(3),
            Self::EaseInOutCubic => {
                if u < 0.5 {
                    4.0 * u * u * u
                } else {
                    1.0 - 4.0 * (1.0 - u).powi(3)
                }
            }
            Self::EaseInSine => 1.0 - (u * std::f32::consts::FRAC_PI_2).cos(),
            Self::EaseOutSine => (u * std::f32::consts::FRAC_PI_2).sin(),
            Self::EaseInOutSine => 0.5 * (1.0 - (u * std::f32::consts::PI).cos()),
        }
    }

    /// Stable name (`linear`, `smoothstep`, `ease-in-quad`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Linear => "linear",
            Self::Smoothstep => "smoothstep",
            Self::Smootherstep => "smootherstep",
            Self::EaseInQuad => "ease-in-quad",
            Self::EaseOutQuad => "ease-out-quad",
            Self::EaseInOutQuad => "ease-in-out-quad",
            Self::EaseInCubic => "ease-in-cubic",
            Self::EaseOutCubic => "ease-out-cubic",
            Self::EaseInOutCubic => "ease-in-out-cubic",
            Self::EaseInSine => "ease-in-sine",
            Self::EaseOutSine => "ease-out-sine",
            Self::EaseInOutSine => "ease-in-out-sine",
        }
    }
}

/// How an inertialization offset decays to zero over a transition's duration. Both curves
/// start at the offset's value with its velocity, and are linear in the offset's start value,
/// velocity and acceleration, so `offset(t) = x₀ · p(t) + v₀ · q(t) + a₀ · r(t)` with the basis of
/// [`OffsetDecay::basis`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OffsetDecay {
    /// The quintic of Bollo's inertialization (GDC 2018): value, velocity and acceleration
    /// matched at the start; value, velocity and acceleration zero at the end.
    #[default]
    Quintic,
    /// A critically damped spring, `(x₀ + (v₀ + ωx₀)t)·e^(−ωt)` with `ω = 9.23 / duration`
    /// (0.1 % left at the end, removed linearly over the duration so it ends exactly at zero);
    /// value and velocity matched at the start (a spring's start acceleration is its own).
    CriticallyDamped,
}

/// `ω · duration` of [`OffsetDecay::CriticallyDamped`].
const SPRING_OMEGA_DURATIONS: f32 = 9.23;

impl OffsetDecay {
    /// Every variant, for menus.
    pub const ALL: [Self; 2] = [Self::Quintic, Self::CriticallyDamped];

    /// Stable name (`quintic`, `critically-damped`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Quintic => "quintic",
            Self::CriticallyDamped => "critically-damped",
        }
    }

    /// The basis `(p, q, r)` at `t_secs` into a decay of `duration_secs`: `p(0) = 1`,
    /// `q'(0) = 1`, `r''(0) = 1` (quintic; `r = 0` for the spring), the others' value and
    /// derivative 0 at the start; all 0 from the end on. A non-positive or non-finite duration
    /// decays at once.
    pub fn basis(self, t_secs: f32, duration_secs: f32) -> (f32, f32, f32) {
        let [p, q, r] = self.basis_derivatives(t_secs, duration_secs)[0];
        (p, q, r)
    }

    /// The basis and its first and second time derivatives: row `k` is `[p, q, r]` differentiated
    /// `k` times (per second), so an offset's velocity and acceleration are exact at any time.
    pub fn basis_derivatives(self, t_secs: f32, duration_secs: f32) -> [[f32; 3]; 3] {
        if !(duration_secs > 0.0 && duration_secs.is_finite()) || t_secs >= duration_secs {
            return [[0.0; 3]; 3];
        }
        let big_t = duration_secs;
        let t = t_secs.max(0.0);
        match self {
            Self::Quintic => {
                let u = t / big_t;
                let (u2, u3, u4, u5) = (u * u, u * u * u, u * u * u * u, u * u * u * u * u);
                [
                    [
                        1.0 - 10.0 * u3 + 15.0 * u4 - 6.0 * u5,
                        big_t * (u - 6.0 * u3 + 8.0 * u4 - 3.0 * u5),
                        0.5 * big_t * big_t * (u2 - 3.0 * u3 + 3.0 * u4 - u5),
                    ],
                    [
                        (-30.0 * u2 + 60.0 * u3 - 30.0 * u4) / big_t,
                        1.0 - 18.0 * u2 + 32.0 * u3 - 15.0 * u4,
                        0.5 * big_t * (2.0 * u - 9.0 * u2 + 12.0 * u3 - 5.0 * u4),
                    ],
                    [
                        (-60.0 * u + 180.0 * u2 - 120.0 * u3) / (big_t * big_t),
                        (-36.0 * u + 96.0 * u2 - 60.0 * u3) / big_t,
                        0.5 * (2.0 - 18.0 * u + 36.0 * u2 - 20.0 * u3),
                    ],
                ]
            }
            Self::CriticallyDamped => {
                let w = SPRING_OMEGA_DURATIONS / big_t;
                let e = (-w * t).exp();
                let e_end = (-w * big_t).exp();
                let p_end = (1.0 + w * big_t) * e_end;
                let q_end = big_t * e_end;
                let norm = 1.0 / (1.0 - p_end);
                [
                    [((1.0 + w * t) * e - p_end) * norm, t * e - t / big_t * q_end, 0.0],
                    [-w * w * t * e * norm, (1.0 - w * t) * e - q_end / big_t, 0.0],
                    [w * w * (w * t - 1.0) * e * norm, w * (w * t - 2.0) * e, 0.0],
                ]
            }
        }
    }
}

/// How far a dead-blending extrapolation has moved after `t_secs` per unit of start velocity:
/// `∫₀ᵗ e^(−λs) ds = (1 − e^(−λt)) / λ` with `λ = ln 2 / half_life_secs` (the velocity halves
/// every half-life). A non-positive half-life holds the pose.
pub fn decayed_travel(t_secs: f32, half_life_secs: f32) -> f32 {
    let valid = half_life_secs > 0.0 && half_life_secs.is_finite() && t_secs > 0.0;
    if !valid {
        return 0.0;
    }
    let lambda = std::f32::consts::LN_2 / half_life_secs;
    (1.0 - (-lambda * t_secs.min(1e6)).exp()) / lambda
}

/// Parses the stable names of [`Easing`], [`RotationSpace`] and [`ScaleSpace`].
macro_rules! impl_from_name {
    ($ty:ty) => {
        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL.iter().copied().find(|v| v.name() == s).ok_or_else(|| {
                    let names: Vec<&str> = Self::ALL.iter().map(|v| v.name()).collect();
                    format!("unknown value \"{s}\" (expected one of: {})", names.join(", "))
                })
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use impl_from_name;

impl_from_name!(Easing);
impl_from_name!(RotationSpace);
impl_from_name!(ScaleSpace);
impl_from_name!(OffsetDecay);
