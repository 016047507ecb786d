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

/// An instruction set the block kernels run on: a register type holding eight lanes and the
/// operations on it, each one (AVX) or two (SSE) instructions — written with intrinsics rather than
/// left to the auto-vectorizer, which interleaves lanes unpredictably across such kernels.
pub(crate) trait Isa: Copy {
    /// Eight lanes in registers.
    type R: Copy;
    /// Load an [`F8`].
    fn load(x: &F8) -> Self::R;
    /// Store into an [`F8`].
    fn store(r: Self::R) -> F8;
    /// All lanes `x`.
    fn splat(x: f32) -> Self::R;
    /// `a + b`.
    fn add(a: Self::R, b: Self::R) -> Self::R;
    /// `a − b`.
    fn sub(a: Self::R, b: Self::R) -> Self::R;
    /// `a · b`.
    fn mul(a: Self::R, b: Self::R) -> Self::R;
    /// `a · b + c` (fused where the hardware can).
    fn madd(a: Self::R, b: Self::R, c: Self::R) -> Self::R;
    /// Lane-wise minimum (`b` where either is NaN).
    fn min(a: Self::R, b: Self::R) -> Self::R;
    /// Lane-wise maximum (`b` where either is NaN).
    fn max(a: Self::R, b: Self::R) -> Self::R;
    /// `1 / √x` for `x` in `[1e-30, f32::MAX]`, to within a few ulps.
    fn rsqrt(x: Self::R) -> Self::R;
    /// `|a|` (sign bit cleared).
    fn abs(a: Self::R) -> Self::R;
    /// `a` negated in the lanes where `sign` has its sign bit set.
    fn flip_sign_by(a: Self::R, sign: Self::R) -> Self::R;
    /// `a` where `lo < x < hi`, else `b` (NaN `x` gives `b`).
    fn select_inside(x: Self::R, lo: Self::R, hi: Self::R, a: Self::R, b: Self::R) -> Self::R;
}

/// Eight lanes in the registers of an [`Isa`], with the arithmetic operators.
#[derive(Clone, Copy)]
pub(crate) struct V<I: Isa>(pub I::R);

impl<I: Isa> V<I> {
    #[inline(always)]
    pub fn load(x: &F8) -> Self {
        Self(I::load(x))
    }
    #[inline(always)]
    pub fn store(self) -> F8 {
        I::store(self.0)
    }
    #[inline(always)]
    pub fn splat(x: f32) -> Self {
        Self(I::splat(x))
    }
    /// `self · b + c`.
    #[inline(always)]
    pub fn madd(self, b: Self, c: Self) -> Self {
        Self(I::madd(self.0, b.0, c.0))
    }
    #[inline(always)]
    pub fn min(self, b: Self) -> Self {
        Self(I::min(self.0, b.0))
    }
    #[inline(always)]
    pub fn max(self, b: Self) -> Self {
        Self(I::max(self.0, b.0))
    }
    #[inline(always)]
    pub fn rsqrt(self) -> Self {
        Self(I::rsqrt(self.0))
    }
    #[inline(always)]
    pub fn abs(self) -> Self {
        Self(I::abs(self.0))
    }
    #[inline(always)]
    pub fn flip_sign_by(self, sign: Self) -> Self {
        Self(I::flip_sign_by(self.0, sign.0))
    }
    /// `self` where `lo < x < hi`, else `otherwise`.
    #[inline(always)]
    pub fn where_inside(self, x: Self, lo: Self, hi: Self, otherwise: Self) -> Self {
        Self(I::select_inside(x.0, lo.0, hi.0, self.0, otherwise.0))
    }
}

impl<I: Isa> Add for V<I> {
    type Output = Self;
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Self(I::add(self.0, b.0))
    }
}

impl<I: Isa> Sub for V<I> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        Self(I::sub(self.0, b.0))
    }
}

impl<I: Isa> Mul for V<I> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        Self(I::mul(self.0, b.0))
    }
}

impl<I: Isa> Neg for V<I> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        Self(I::flip_sign_by(self.0, I::splat(-0.0)))
    }
}

/// Wraps AVX intrinsics. SAFETY (for every use below): these are only reached from functions
/// compiled with `#[target_feature(enable = "avx2,fma")]`, which are only called after
/// `fma_available()` confirmed the CPU has AVX2 and FMA; pointers come from `&F8`/`&mut F8`
/// (32 bytes, 32-byte aligned).
#[cfg(target_arch = "x86_64")]
macro_rules! avx {
    ($e:expr) => {
        // SAFETY: see the macro's comment.
        unsafe { $e }
    };
}

/// Wraps SSE/SSE2 intrinsics. SAFETY (for every use below): SSE2 is part of every x86-64 target's
/// baseline (the intrinsics are register-only, or load/store through valid `F8` pointers).
#[cfg(target_arch = "x86_64")]
macro_rules! sse {
    ($e:expr) => {
        // SAFETY: see the macro's comment.
        unsafe { $e }
    };
}

/// Any CPU: on x86-64 two SSE2 registers (part of every x86-64), elsewhere plain lane loops.
#[derive(Clone, Copy)]
pub(crate) struct Plain;

#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)]
impl Isa for Plain {
    type R = [std::arch::x86_64::__m128; 2];

    #[inline(always)]
    fn load(x: &F8) -> Self::R {
        use std::arch::x86_64::_mm_loadu_ps;
        sse!([_mm_loadu_ps(x.0.as_ptr()), _mm_loadu_ps(x.0.as_ptr().add(4))])
    }
    #[inline(always)]
    fn store(r: Self::R) -> F8 {
        use std::arch::x86_64::_mm_storeu_ps;
        let mut out = F8::ZERO;
        sse!({
            _mm_storeu_ps(out.0.as_mut_ptr(), r[0]);
            _mm_storeu_ps(out.0.as_mut_ptr().add(4), r[1]);
        });
        out
    }
    #[inline(always)]
    fn splat(x: f32) -> Self::R {
        let v = sse!(std::arch::x86_64::_mm_set1_ps(x));
        [v, v]
    }
    #[inline(always)]
    fn add(a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_add_ps;
        sse!([_mm_add_ps(a[0], b[0]), _mm_add_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn sub(a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_sub_ps;
        sse!([_mm_sub_ps(a[0], b[0]), _mm_sub_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn mul(a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_mul_ps;
        sse!([_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn madd(a: Self::R, b: Self::R, c: Self::R) -> Self::R {
        Self::add(Self::mul(a, b), c)
    }
    #[inline(always)]
    fn min(a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_min_ps;
        sse!([_mm_min_ps(a[0], b[0]), _mm_min_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn max(a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_max_ps;
        sse!([_mm_max_ps(a[0], b[0]), _mm_max_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn rsqrt(x: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_div_ps, _mm_set1_ps, _mm_sqrt_ps};
        sse!({
            let one = _mm_set1_ps(1.0);
            [_mm_div_ps(one, _mm_sqrt_ps(x[0])), _mm_div_ps(one, _mm_sqrt_ps(x[1]))]
        })
    }
    #[inline(always)]
    fn abs(a: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_andnot_ps, _mm_set1_ps};
        sse!({
            let sign = _mm_set1_ps(-0.0);
            [_mm_andnot_ps(sign, a[0]), _mm_andnot_ps(sign, a[1])]
        })
    }
    #[inline(always)]
    fn flip_sign_by(a: Self::R, s: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_and_ps, _mm_set1_ps, _mm_xor_ps};
        sse!({
            let sign = _mm_set1_ps(-0.0);
            [_mm_xor_ps(a[0], _mm_and_ps(s[0], sign)), _mm_xor_ps(a[1], _mm_and_ps(s[1], sign))]
        })
    }
    #[inline(always)]
    fn select_inside(x: Self::R, lo: Self::R, hi: Self::R, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_and_ps, _mm_andnot_ps, _mm_cmpgt_ps, _mm_cmplt_ps, _mm_or_ps};
        sse!({
            let inside = [0, 1].map(|i| _mm_and_ps(_mm_cmpgt_ps(x[i], lo[i]), _mm_cmplt_ps(x[i], hi[i])));
            [0, 1].map(|i| _mm_or_ps(_mm_and_ps(inside[i], a[i]), _mm_andnot_ps(inside[i], b[i])))
        })
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Isa for Plain {
    type R = F8;

    #[inline(always)]
    fn load(x: &F8) -> F8 {
        *x
    }
    #[inline(always)]
    fn store(r: F8) -> F8 {
        r
    }
    #[inline(always)]
    fn splat(x: f32) -> F8 {
        F8::splat(x)
    }
    #[inline(always)]
    fn add(a: F8, b: F8) -> F8 {
        a + b
    }
    #[inline(always)]
    fn sub(a: F8, b: F8) -> F8 {
        a - b
    }
    #[inline(always)]
    fn mul(a: F8, b: F8) -> F8 {
        a * b
    }
    #[inline(always)]
    fn madd(a: F8, b: F8, c: F8) -> F8 {
        a * b + c
    }
    #[inline(always)]
    fn min(a: F8, b: F8) -> F8 {
        a.min(b)
    }
    #[inline(always)]
    fn max(a: F8, b: F8) -> F8 {
        a.max(b)
    }
    #[inline(always)]
    fn rsqrt(x: F8) -> F8 {
        lanes!(|i| 1.0 / x.0[i].sqrt())
    }
    #[inline(always)]
    fn abs(a: F8) -> F8 {
        a.abs()
    }
    #[inline(always)]
    fn flip_sign_by(a: F8, s: F8) -> F8 {
        a.flip_sign_by(s)
    }
    #[inline(always)]
    fn select_inside(x: F8, lo: F8, hi: F8, a: F8, b: F8) -> F8 {
        lanes!(|i| if lo.0[i] < x.0[i] && x.0[i] < hi.0[i] { a.0[i] } else { b.0[i] })
    }
}

/// x86-64 with AVX2 and FMA: only instantiated inside functions compiled with
/// `#[target_feature(enable = "avx2,fma")]`, which are only called after [`fma_available`].
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Avx2Fma;

#[cfg(target_arch = "x86_64")]
#[allow(unused_unsafe)]
impl Isa for Avx2Fma {
    type R = std::arch::x86_64::__m256;

    #[inline(always)]
    fn load(x: &F8) -> Self::R {
        avx!(std::arch::x86_64::_mm256_load_ps(x.0.as_ptr()))
    }
    #[inline(always)]
    fn store(r: Self::R) -> F8 {
        let mut out = F8::ZERO;
        avx!(std::arch::x86_64::_mm256_store_ps(out.0.as_mut_ptr(), r));
        out
    }
    #[inline(always)]
    fn splat(x: f32) -> Self::R {
        avx!(std::arch::x86_64::_mm256_set1_ps(x))
    }
    #[inline(always)]
    fn add(a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_add_ps(a, b))
    }
    #[inline(always)]
    fn sub(a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_sub_ps(a, b))
    }
    #[inline(always)]
    fn mul(a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_mul_ps(a, b))
    }
    #[inline(always)]
    fn madd(a: Self::R, b: Self::R, c: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_fmadd_ps(a, b, c))
    }
    #[inline(always)]
    fn min(a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_min_ps(a, b))
    }
    #[inline(always)]
    fn max(a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_max_ps(a, b))
    }
    #[inline(always)]
    fn rsqrt(x: Self::R) -> Self::R {
        // The ~12-bit estimate, then one Newton step (~23 bits).
        let y = avx!(std::arch::x86_64::_mm256_rsqrt_ps(x));
        let half_x = Self::mul(x, Self::splat(-0.5));
        Self::mul(y, Self::madd(half_x, Self::mul(y, y), Self::splat(1.5)))
    }
    #[inline(always)]
    fn abs(a: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_andnot_ps(Self::splat(-0.0), a))
    }
    #[inline(always)]
    fn flip_sign_by(a: Self::R, s: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm256_and_ps, _mm256_xor_ps};
        avx!(_mm256_xor_ps(a, _mm256_and_ps(s, Self::splat(-0.0))))
    }
    #[inline(always)]
    fn select_inside(x: Self::R, lo: Self::R, hi: Self::R, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::{_CMP_GT_OQ, _CMP_LT_OQ, _mm256_and_ps, _mm256_blendv_ps, _mm256_cmp_ps};
        avx!({
            let inside = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(x, lo), _mm256_cmp_ps::<_CMP_LT_OQ>(x, hi));
            _mm256_blendv_ps(b, a, inside)
        })
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
pub(crate) fn sinc_quarter_turn<I: Isa>(x: V<I>) -> V<I> {
    let x2 = x * x;
    let mut p = V::splat(-1.0 / 39_916_800.0);
    p = p.madd(x2, V::splat(1.0 / 362_880.0));
    p = p.madd(x2, V::splat(-1.0 / 5040.0));
    p = p.madd(x2, V::splat(1.0 / 120.0));
    p = p.madd(x2, V::splat(-1.0 / 6.0));
    p.madd(x2, V::splat(1.0))
}

/// Abramowitz & Stegun 4.4.46 (see `interp`): `acos(x) = √(1−x)·P(x)` on `[0, 1]`; this
/// returns `P(x)` (error of the product below 2e-8 in exact arithmetic).
#[inline(always)]
pub(crate) fn acos_factor<I: Isa>(x: V<I>) -> V<I> {
    let c = crate::interp::ACOS_COEFFICIENTS;
    let mut p = V::splat(c[0]);
    for &coefficient in &c[1..] {
        p = p.madd(x, V::splat(coefficient));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sinc_and_rsqrt<I: Isa>(x: F8, y: F8) -> (F8, F8) {
        (sinc_quarter_turn(V::<I>::load(&x)).store(), V::<I>::load(&y).rsqrt().store())
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn sinc_and_rsqrt_avx2(x: F8, y: F8) -> (F8, F8) {
        sinc_and_rsqrt::<Avx2Fma>(x, y)
    }

    fn each_isa(check: impl Fn(&str, &dyn Fn(F8, F8) -> (F8, F8))) {
        check("plain", &sinc_and_rsqrt::<Plain>);
        #[cfg(target_arch = "x86_64")]
        if fma_available() {
            // SAFETY: AVX2 and FMA are present (checked above).
            check("avx2+fma", &|x, y| unsafe { sinc_and_rsqrt_avx2(x, y) });
        }
    }

    #[test]
    fn sinc_and_rsqrt_are_accurate_on_their_ranges() {
        each_isa(|name, run| {
            let (mut sinc_error, mut rsqrt_error) = (0.0f64, 0.0f64);
            for step in 0..4000 {
                let xs =
                    F8(std::array::from_fn(|lane| (step * 8 + lane) as f32 / 32000.0 * std::f32::consts::FRAC_PI_2));
                let ys = F8(std::array::from_fn(|lane| 1e-6 + (step * 8 + lane) as f32 * 0.37));
                let (s, r) = run(xs, ys);
                for lane in 0..8 {
                    let x = f64::from(xs.0[lane]);
                    let exact = if x == 0.0 { 1.0 } else { x.sin() / x };
                    sinc_error = sinc_error.max((f64::from(s.0[lane]) - exact).abs());
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
