//! Eight-lane float vectors for the structure-of-arrays fast paths, and the instruction sets
//! they run on.
//!
//! [`F8`] is a plain `[f32; 8]` whose operations are lane-by-lane loops marked
//! `#[inline(always)]`: compiled inside an AVX2 function each loop becomes one 256-bit
//! instruction, compiled for the x86-64 baseline it becomes two SSE instructions. The kernels that
//! use it are generic over an [`Isa`], which supplies the operations whose best form differs
//! between the two (fused multiply-add, reciprocal square root). A public entry point checks the
//! CPU once per call ([`fma_available`]) and runs the AVX2+FMA instantiation when it can: the
//! release build needs no `target-cpu` flag and still runs on any x86-64 (or other) machine.

use std::ops::{Add, Mul, Neg, Sub};

/// Eight `f32` lanes, 32-byte aligned.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C, align(32))]
pub struct F8(pub [f32; 8]);

macro_rules! lanes {
    (|$i:ident| $e:expr) => {{
        let mut out = [0.0f32; 8];
        for $i in 0..8 {
            out[$i] = $e;
        }
        F8(out)
    }};
}

impl F8 {
    /// All lanes 0.
    pub const ZERO: Self = Self([0.0; 8]);
    /// All lanes 1.
    pub const ONE: Self = Self([1.0; 8]);

    /// All lanes `x`.
    #[inline(always)]
    pub const fn splat(x: f32) -> Self {
        Self([x; 8])
    }

    /// Lane-wise minimum (a NaN lane gives `other`'s lane).
    #[inline(always)]
    #[must_use]
    pub fn min(self, other: Self) -> Self {
        lanes!(|i| if self.0[i] < other.0[i] { self.0[i] } else { other.0[i] })
    }

    /// Lane-wise maximum (a NaN lane gives `other`'s lane).
    #[inline(always)]
    #[must_use]
    pub fn max(self, other: Self) -> Self {
        lanes!(|i| if self.0[i] > other.0[i] { self.0[i] } else { other.0[i] })
    }

    /// Lane-wise absolute value (clears the sign bit).
    #[inline(always)]
    #[must_use]
    pub fn abs(self) -> Self {
        lanes!(|i| f32::from_bits(self.0[i].to_bits() & 0x7fff_ffff))
    }

    /// `self` with its sign flipped in the lanes where `sign` is negative (sign bit set).
    #[inline(always)]
    #[must_use]
    pub fn flip_sign_by(self, sign: Self) -> Self {
        lanes!(|i| f32::from_bits(self.0[i].to_bits() ^ (sign.0[i].to_bits() & 0x8000_0000)))
    }

    /// Lanes of `self` where `mask` has bit `i` set, else lanes of `other`.
    #[inline(always)]
    #[must_use]
    pub fn select_bits(self, other: Self, mask: u8) -> Self {
        lanes!(|i| if mask & (1 << i) != 0 { self.0[i] } else { other.0[i] })
    }

    /// Lanes of `self` where `keep` holds, else `replacement`'s lanes.
    #[inline(always)]
    #[must_use]
    pub fn keep_where(self, keep: [bool; 8], replacement: Self) -> Self {
        lanes!(|i| if keep[i] { self.0[i] } else { replacement.0[i] })
    }
}

impl Add for F8 {
    type Output = Self;
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        lanes!(|i| self.0[i] + other.0[i])
    }
}

impl Sub for F8 {
    type Output = Self;
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        lanes!(|i| self.0[i] - other.0[i])
    }
}

impl Mul for F8 {
    type Output = Self;
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        lanes!(|i| self.0[i] * other.0[i])
    }
}

impl Neg for F8 {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        lanes!(|i| -self.0[i])
    }
}

/// The operations whose fastest correct form depends on the instruction set.
pub(crate) trait Isa {
    /// `a · b + c` (fused where the hardware can).
    fn madd(a: F8, b: F8, c: F8) -> F8;
    /// `1 / √x` for `x` in `[1e-30, f32::MAX]`, to within a few ulps.
    fn rsqrt(x: F8) -> F8;
}

/// Any target: separate multiply and add, exact square root and division.
pub(crate) struct Plain;

impl Isa for Plain {
    #[inline(always)]
    fn madd(a: F8, b: F8, c: F8) -> F8 {
        a * b + c
    }

    #[inline(always)]
    fn rsqrt(x: F8) -> F8 {
        lanes!(|i| 1.0 / x.0[i].sqrt())
    }
}

/// x86-64 with AVX2 and FMA: only instantiated inside functions compiled with
/// `#[target_feature(enable = "avx2,fma")]`, which are only called after [`fma_available`].
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx2Fma;

#[cfg(target_arch = "x86_64")]
impl Isa for Avx2Fma {
    #[inline(always)]
    fn madd(a: F8, b: F8, c: F8) -> F8 {
        // `mul_add` is one `vfmadd` per 8 lanes where FMA is enabled.
        lanes!(|i| a.0[i].mul_add(b.0[i], c.0[i]))
    }

    #[inline(always)]
    fn rsqrt(x: F8) -> F8 {
        use std::arch::x86_64::{__m256, _mm256_rsqrt_ps};
        const _: () = assert!(size_of::<F8>() == size_of::<__m256>());
        // SAFETY: `F8` and `__m256` are both 32 bytes of 8 `f32` (checked above); this
        // implementation is only instantiated in functions compiled with AVX enabled, and those
        // run only after `fma_available()` confirmed the CPU has AVX2 and FMA.
        let estimate: F8 = unsafe { std::mem::transmute(_mm256_rsqrt_ps(std::mem::transmute::<F8, __m256>(x))) };
        // One Newton step: the ~12-bit estimate becomes ~23 bits.
        let half_x = x * F8::splat(0.5);
        let y2 = estimate * estimate;
        estimate * Self::madd(-half_x, y2, F8::splat(1.5))
    }
}

/// True when the CPU runs AVX2 and FMA (checked once per call; the answer is cached by std).
#[inline]
pub fn fma_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The instruction set the fast paths use on this CPU: `"avx2+fma"` or `"baseline"`.
pub fn simd_path() -> &'static str {
    if fma_available() { "avx2+fma" } else { "baseline" }
}

/// `sin(x)/x` for `x` in `[0, π/2]` (Taylor to `x¹⁰`; error below 4e-8), on eight lanes.
#[inline(always)]
pub(crate) fn sinc_quarter_turn<I: Isa>(x: F8) -> F8 {
    let x2 = x * x;
    let mut p = F8::splat(-1.0 / 39_916_800.0);
    p = I::madd(p, x2, F8::splat(1.0 / 362_880.0));
    p = I::madd(p, x2, F8::splat(-1.0 / 5040.0));
    p = I::madd(p, x2, F8::splat(1.0 / 120.0));
    p = I::madd(p, x2, F8::splat(-1.0 / 6.0));
    I::madd(p, x2, F8::ONE)
}

/// Abramowitz & Stegun 4.4.46 (see `interp`): `acos(x) = √(1−x)·P(x)` on `[0, 1]`; this
/// returns `P(x)` (error of the product below 2e-8 in exact arithmetic).
#[inline(always)]
pub(crate) fn acos_factor<I: Isa>(x: F8) -> F8 {
    let c = crate::interp::ACOS_COEFFICIENTS;
    let mut p = F8::splat(c[0]);
    for &coefficient in &c[1..] {
        p = I::madd(p, x, F8::splat(coefficient));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn each_isa(check: impl Fn(&str, &dyn Fn(F8) -> F8, &dyn Fn(F8) -> F8)) {
        check("plain", &sinc_quarter_turn::<Plain>, &Plain::rsqrt);
        #[cfg(target_arch = "x86_64")]
        if fma_available() {
            check("avx2+fma", &sinc_quarter_turn::<Avx2Fma>, &Avx2Fma::rsqrt);
        }
    }

    #[test]
    fn sinc_and_rsqrt_are_accurate_on_their_ranges() {
        each_isa(|name, sinc, rsqrt| {
            let (mut sinc_error, mut rsqrt_error) = (0.0f64, 0.0f64);
            for step in 0..4000 {
                let xs =
                    F8(std::array::from_fn(|lane| (step * 8 + lane) as f32 / 32000.0 * std::f32::consts::FRAC_PI_2));
                let s = sinc(xs);
                for lane in 0..8 {
                    let x = f64::from(xs.0[lane]);
                    let exact = if x == 0.0 { 1.0 } else { x.sin() / x };
                    sinc_error = sinc_error.max((f64::from(s.0[lane]) - exact).abs());
                }
                let ys = F8(std::array::from_fn(|lane| 1e-6 + (step * 8 + lane) as f32 * 0.37));
                let r = rsqrt(ys);
                for lane in 0..8 {
                    let exact = 1.0 / f64::from(ys.0[lane]).sqrt();
                    rsqrt_error = rsqrt_error.max(((f64::from(r.0[lane]) - exact) / exact).abs());
                }
            }
            assert!(sinc_error < 2e-7, "{name}: sinc error {sinc_error:e}");
            assert!(rsqrt_error < 5e-7, "{name}: rsqrt relative error {rsqrt_error:e}");
        });
    }

    #[test]
    fn sign_and_select_work_on_bits() {
        let a = F8([1.0, -2.0, 3.0, -4.0, 0.0, -0.0, 5.0, -6.0]);
        assert_eq!(a.abs(), F8([1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 5.0, 6.0]));
        assert_eq!(F8::ONE.flip_sign_by(a), F8([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]));
        assert_eq!(a.select_bits(F8::ZERO, 0b1000_0001), F8([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.0]));
    }
}
