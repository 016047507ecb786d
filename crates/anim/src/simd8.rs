//! Eight-lane float vectors for the structure-of-arrays jobs, and the instruction sets they run
//! on.
//!
//! [`F8`] is a plain `[f32; 8]` (32-byte aligned) that the block pose and the key planes are made
//! of. The kernels are generic over an `Isa`, a zero-sized token whose methods are the
//! eight-lane operations: `Plain` (two SSE2 registers, part of every x86-64; lane loops
//! elsewhere) and `Avx2Fma` (256-bit registers, fused multiply-add, `rsqrt` + Newton).
//!
//! Soundness by construction: an `Avx2Fma` token can only be made by `Avx2Fma::detect`, which
//! checks the CPU at run time, and every AVX operation takes the token by value; safe code cannot
//! run an AVX2 instruction on a CPU without it. `dispatch` is the one place a job picks its
//! instruction set: it runs a `Kernel` inside a function compiled with AVX2 and FMA when the
//! token exists, else on `Plain`, so the release build needs no `target-cpu` flag.

use std::ops::{Add, Mul, Neg, Sub};

use glam::{Affine3A, Vec3A, Vec4};

/// Eight `f32` lanes, 32-byte aligned.
#[derive(Clone, Copy, Debug, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
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
///
/// Every operation takes the instruction set itself, a zero-sized token, by value: a kernel can
/// only run on [`Avx2Fma`] when it holds one, and [`Avx2Fma::detect`] is the only way to get one.
pub(crate) trait Isa: Copy {
    /// Eight lanes in registers.
    type R: Copy;
    /// Load an [`F8`].
    fn load(self, x: &F8) -> Self::R;
    /// Store into an [`F8`].
    fn store(self, r: Self::R) -> F8;
    /// All lanes `x`.
    fn splat(self, x: f32) -> Self::R;
    /// `a + b`.
    fn add(self, a: Self::R, b: Self::R) -> Self::R;
    /// `a − b`.
    fn sub(self, a: Self::R, b: Self::R) -> Self::R;
    /// `a · b`.
    fn mul(self, a: Self::R, b: Self::R) -> Self::R;
    /// `a · b + c` (fused where the hardware can).
    fn madd(self, a: Self::R, b: Self::R, c: Self::R) -> Self::R;
    /// `a / b` (correctly rounded).
    fn div(self, a: Self::R, b: Self::R) -> Self::R;
    /// `x = m · 2ᵉ` for a positive normal `x`: `(m, e)` with `m` in `[1, 2)` and `e` an
    /// integer as a float (other `x` give meaningless lanes, for the caller to select away).
    fn split_exponent(self, x: Self::R) -> (Self::R, Self::R);
    /// `2ⁿ` for `n` an integer-valued float in `[−126, 127]`.
    fn pow2(self, n: Self::R) -> Self::R;
    /// Lane-wise minimum (`b` where either is NaN).
    fn min(self, a: Self::R, b: Self::R) -> Self::R;
    /// Lane-wise maximum (`b` where either is NaN).
    fn max(self, a: Self::R, b: Self::R) -> Self::R;
    /// `1 / √x` for `x` in `[1e-30, f32::MAX]`, to within a few ulps.
    fn rsqrt(self, x: Self::R) -> Self::R;
    /// `|a|` (sign bit cleared).
    fn abs(self, a: Self::R) -> Self::R;
    /// `a` negated in the lanes where `sign` has its sign bit set.
    fn flip_sign_by(self, a: Self::R, sign: Self::R) -> Self::R;
    /// `a` where `lo < x < hi`, else `b` (NaN `x` gives `b`).
    fn select_inside(self, x: Self::R, lo: Self::R, hi: Self::R, a: Self::R, b: Self::R) -> Self::R;
    /// `a · b + c` on four lanes, fused where the instruction set has it.
    fn madd4(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4;
    /// Bit `i` set where lane `i` of `a` equals lane `i` of `b` (NaN equals nothing; −0 equals 0).
    fn eq_bits(self, a: Self::R, b: Self::R) -> u8;
}

/// A computation generic over the instruction set, run by [`dispatch`] on the best one this CPU
/// has. Implementations mark [`Kernel::run`] `#[inline(always)]`, so that the whole kernel is
/// compiled inside the AVX2+FMA function that `dispatch` calls.
pub(crate) trait Kernel {
    /// What the kernel returns.
    type Output;
    /// Run on `isa`.
    fn run<I: Isa>(self, isa: I) -> Self::Output;
}

/// Run `kernel` with AVX2 and FMA where the CPU has them ([`Avx2Fma::detect`]), else on the
/// baseline ([`Plain`]): the one place the block jobs choose an instruction set. The release
/// build needs no `target-cpu` flag and still runs on any x86-64 (or other) machine.
#[inline]
pub(crate) fn dispatch<K: Kernel>(kernel: K) -> K::Output {
    #[cfg(target_arch = "x86_64")]
    if let Some(isa) = Avx2Fma::detect() {
        return isa.run(kernel);
    }
    kernel.run(Plain)
}

/// Eight lanes in the registers of an [`Isa`], with the arithmetic operators.
#[derive(Clone, Copy)]
pub(crate) struct V<I: Isa> {
    r: I::R,
    isa: I,
}

impl<I: Isa> V<I> {
    #[inline(always)]
    pub fn load(isa: I, x: &F8) -> Self {
        Self { r: isa.load(x), isa }
    }
    #[inline(always)]
    pub fn store(self) -> F8 {
        self.isa.store(self.r)
    }
    #[inline(always)]
    pub fn splat(isa: I, x: f32) -> Self {
        Self { r: isa.splat(x), isa }
    }
    #[inline(always)]
    fn with(self, r: I::R) -> Self {
        Self { r, isa: self.isa }
    }
    /// `self · b + c`.
    #[inline(always)]
    pub fn madd(self, b: Self, c: Self) -> Self {
        self.with(self.isa.madd(self.r, b.r, c.r))
    }
    #[inline(always)]
    pub fn min(self, b: Self) -> Self {
        self.with(self.isa.min(self.r, b.r))
    }
    #[inline(always)]
    pub fn max(self, b: Self) -> Self {
        self.with(self.isa.max(self.r, b.r))
    }
    #[inline(always)]
    pub fn rsqrt(self) -> Self {
        self.with(self.isa.rsqrt(self.r))
    }
    #[inline(always)]
    pub fn abs(self) -> Self {
        self.with(self.isa.abs(self.r))
    }
    #[inline(always)]
    pub fn flip_sign_by(self, sign: Self) -> Self {
        self.with(self.isa.flip_sign_by(self.r, sign.r))
    }
    /// `self / b`.
    #[inline(always)]
    pub fn div(self, b: Self) -> Self {
        self.with(self.isa.div(self.r, b.r))
    }
    /// Bit `i` set where lane `i` equals `b`'s.
    #[inline(always)]
    pub fn eq_bits(self, b: Self) -> u8 {
        self.isa.eq_bits(self.r, b.r)
    }
    /// `self` where `lo < x < hi`, else `otherwise`.
    #[inline(always)]
    pub fn where_inside(self, x: Self, lo: Self, hi: Self, otherwise: Self) -> Self {
        self.with(self.isa.select_inside(x.r, lo.r, hi.r, self.r, otherwise.r))
    }
}

impl<I: Isa> Add for V<I> {
    type Output = Self;
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        self.with(self.isa.add(self.r, b.r))
    }
}

impl<I: Isa> Sub for V<I> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, b: Self) -> Self {
        self.with(self.isa.sub(self.r, b.r))
    }
}

impl<I: Isa> Mul for V<I> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, b: Self) -> Self {
        self.with(self.isa.mul(self.r, b.r))
    }
}

impl<I: Isa> Neg for V<I> {
    type Output = Self;
    #[inline(always)]
    fn neg(self) -> Self {
        self.with(self.isa.flip_sign_by(self.r, self.isa.splat(-0.0)))
    }
}

/// Wraps SSE/SSE2 intrinsics. SAFETY (for every use below): SSE2 is part of every x86-64 target's
/// baseline, and the intrinsics used are register-only.
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
impl Isa for Plain {
    type R = [std::arch::x86_64::__m128; 2];

    #[inline(always)]
    fn load(self, x: &F8) -> Self::R {
        bytemuck::must_cast(*x)
    }
    #[inline(always)]
    fn store(self, r: Self::R) -> F8 {
        bytemuck::must_cast(r)
    }
    #[inline(always)]
    fn splat(self, x: f32) -> Self::R {
        let v = sse!(std::arch::x86_64::_mm_set1_ps(x));
        [v, v]
    }
    #[inline(always)]
    fn add(self, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_add_ps;
        sse!([_mm_add_ps(a[0], b[0]), _mm_add_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn sub(self, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_sub_ps;
        sse!([_mm_sub_ps(a[0], b[0]), _mm_sub_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn mul(self, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_mul_ps;
        sse!([_mm_mul_ps(a[0], b[0]), _mm_mul_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn madd(self, a: Self::R, b: Self::R, c: Self::R) -> Self::R {
        self.add(self.mul(a, b), c)
    }
    #[inline(always)]
    fn div(self, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_div_ps;
        sse!([_mm_div_ps(a[0], b[0]), _mm_div_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn split_exponent(self, x: Self::R) -> (Self::R, Self::R) {
        use std::arch::x86_64::{
            _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps, _mm_cvtepi32_ps, _mm_or_si128, _mm_set1_epi32,
            _mm_srli_epi32, _mm_sub_epi32,
        };
        sse!({
            let split = |h| {
                let bits = _mm_castps_si128(h);
                let m = _mm_or_si128(_mm_and_si128(bits, _mm_set1_epi32(0x007f_ffff)), _mm_set1_epi32(0x3f80_0000));
                let e = _mm_sub_epi32(_mm_srli_epi32::<23>(bits), _mm_set1_epi32(127));
                (_mm_castsi128_ps(m), _mm_cvtepi32_ps(e))
            };
            let ((m0, e0), (m1, e1)) = (split(x[0]), split(x[1]));
            ([m0, m1], [e0, e1])
        })
    }
    #[inline(always)]
    fn pow2(self, n: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_add_epi32, _mm_castsi128_ps, _mm_cvtps_epi32, _mm_set1_epi32, _mm_slli_epi32};
        sse!({
            let pow2 =
                |h| _mm_castsi128_ps(_mm_slli_epi32::<23>(_mm_add_epi32(_mm_cvtps_epi32(h), _mm_set1_epi32(127))));
            [pow2(n[0]), pow2(n[1])]
        })
    }
    #[inline(always)]
    fn min(self, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_min_ps;
        sse!([_mm_min_ps(a[0], b[0]), _mm_min_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn max(self, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::_mm_max_ps;
        sse!([_mm_max_ps(a[0], b[0]), _mm_max_ps(a[1], b[1])])
    }
    #[inline(always)]
    fn rsqrt(self, x: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_div_ps, _mm_set1_ps, _mm_sqrt_ps};
        sse!({
            let one = _mm_set1_ps(1.0);
            [_mm_div_ps(one, _mm_sqrt_ps(x[0])), _mm_div_ps(one, _mm_sqrt_ps(x[1]))]
        })
    }
    #[inline(always)]
    fn abs(self, a: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_andnot_ps, _mm_set1_ps};
        sse!({
            let sign = _mm_set1_ps(-0.0);
            [_mm_andnot_ps(sign, a[0]), _mm_andnot_ps(sign, a[1])]
        })
    }
    #[inline(always)]
    fn flip_sign_by(self, a: Self::R, s: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_and_ps, _mm_set1_ps, _mm_xor_ps};
        sse!({
            let sign = _mm_set1_ps(-0.0);
            [_mm_xor_ps(a[0], _mm_and_ps(s[0], sign)), _mm_xor_ps(a[1], _mm_and_ps(s[1], sign))]
        })
    }
    #[inline(always)]
    fn select_inside(self, x: Self::R, lo: Self::R, hi: Self::R, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm_and_ps, _mm_andnot_ps, _mm_cmpgt_ps, _mm_cmplt_ps, _mm_or_ps};
        sse!({
            let inside = [0, 1].map(|i| _mm_and_ps(_mm_cmpgt_ps(x[i], lo[i]), _mm_cmplt_ps(x[i], hi[i])));
            [0, 1].map(|i| _mm_or_ps(_mm_and_ps(inside[i], a[i]), _mm_andnot_ps(inside[i], b[i])))
        })
    }
    #[inline(always)]
    fn madd4(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        a * b + c
    }
    #[inline(always)]
    fn eq_bits(self, a: Self::R, b: Self::R) -> u8 {
        use std::arch::x86_64::{_mm_cmpeq_ps, _mm_movemask_ps};
        sse!((_mm_movemask_ps(_mm_cmpeq_ps(a[0], b[0])) | (_mm_movemask_ps(_mm_cmpeq_ps(a[1], b[1])) << 4)) as u8)
    }
}

#[cfg(not(target_arch = "x86_64"))]
impl Isa for Plain {
    type R = F8;

    #[inline(always)]
    fn load(self, x: &F8) -> F8 {
        *x
    }
    #[inline(always)]
    fn store(self, r: F8) -> F8 {
        r
    }
    #[inline(always)]
    fn splat(self, x: f32) -> F8 {
        F8::splat(x)
    }
    #[inline(always)]
    fn add(self, a: F8, b: F8) -> F8 {
        a + b
    }
    #[inline(always)]
    fn sub(self, a: F8, b: F8) -> F8 {
        a - b
    }
    #[inline(always)]
    fn mul(self, a: F8, b: F8) -> F8 {
        a * b
    }
    #[inline(always)]
    fn madd(self, a: F8, b: F8, c: F8) -> F8 {
        a * b + c
    }
    #[inline(always)]
    fn div(self, a: F8, b: F8) -> F8 {
        lanes!(|i| a.0[i] / b.0[i])
    }
    #[inline(always)]
    fn split_exponent(self, x: F8) -> (F8, F8) {
        let m = lanes!(|i| f32::from_bits((x.0[i].to_bits() & 0x007f_ffff) | 0x3f80_0000));
        let e = lanes!(|i| ((x.0[i].to_bits() >> 23) as i32 - 127) as f32);
        (m, e)
    }
    #[inline(always)]
    fn pow2(self, n: F8) -> F8 {
        lanes!(|i| f32::from_bits(((n.0[i].round() as i32 + 127) as u32) << 23))
    }
    #[inline(always)]
    fn min(self, a: F8, b: F8) -> F8 {
        a.min(b)
    }
    #[inline(always)]
    fn max(self, a: F8, b: F8) -> F8 {
        a.max(b)
    }
    #[inline(always)]
    fn rsqrt(self, x: F8) -> F8 {
        lanes!(|i| 1.0 / x.0[i].sqrt())
    }
    #[inline(always)]
    fn abs(self, a: F8) -> F8 {
        a.abs()
    }
    #[inline(always)]
    fn flip_sign_by(self, a: F8, s: F8) -> F8 {
        a.flip_sign_by(s)
    }
    #[inline(always)]
    fn select_inside(self, x: F8, lo: F8, hi: F8, a: F8, b: F8) -> F8 {
        lanes!(|i| if lo.0[i] < x.0[i] && x.0[i] < hi.0[i] { a.0[i] } else { b.0[i] })
    }
    #[inline(always)]
    fn madd4(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        a * b + c
    }
    #[inline(always)]
    fn eq_bits(self, a: F8, b: F8) -> u8 {
        let mut bits = 0u8;
        for i in 0..8 {
            bits |= u8::from(a.0[i] == b.0[i]) << i;
        }
        bits
    }
}

/// x86-64 with AVX2 and FMA, as a zero-sized token: [`Avx2Fma::detect`] is the only way to
/// make one (the field is private), so holding one proves the CPU runs these instructions.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Avx2Fma(());

#[cfg(target_arch = "x86_64")]
impl Avx2Fma {
    /// The token, when this CPU has AVX2 and FMA (std caches the answer).
    #[inline]
    pub fn detect() -> Option<Self> {
        (std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")).then_some(Self(()))
    }

    /// Run `kernel` compiled with AVX2 and FMA enabled.
    #[inline]
    pub fn run<K: Kernel>(self, kernel: K) -> K::Output {
        #[target_feature(enable = "avx2,fma")]
        fn with_avx2_fma<K: Kernel>(isa: Avx2Fma, kernel: K) -> K::Output {
            kernel.run(isa)
        }
        // SAFETY: an `Avx2Fma` exists only when `detect` found AVX2 and FMA on this CPU.
        unsafe { with_avx2_fma(self, kernel) }
    }
}

/// Wraps AVX, AVX2 and FMA intrinsics. SAFETY (for every use below): each is called from a method
/// of an `Avx2Fma` token, which exists only when `Avx2Fma::detect` found AVX2 and FMA on this
/// CPU; the intrinsics used are register-only.
#[cfg(target_arch = "x86_64")]
macro_rules! avx {
    ($e:expr) => {
        // SAFETY: see the macro's comment.
        unsafe { $e }
    };
}

#[cfg(target_arch = "x86_64")]
impl Isa for Avx2Fma {
    type R = std::arch::x86_64::__m256;

    #[inline(always)]
    fn load(self, x: &F8) -> Self::R {
        bytemuck::must_cast(*x)
    }
    #[inline(always)]
    fn store(self, r: Self::R) -> F8 {
        bytemuck::must_cast(r)
    }
    #[inline(always)]
    fn splat(self, x: f32) -> Self::R {
        avx!(std::arch::x86_64::_mm256_set1_ps(x))
    }
    #[inline(always)]
    fn add(self, a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_add_ps(a, b))
    }
    #[inline(always)]
    fn sub(self, a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_sub_ps(a, b))
    }
    #[inline(always)]
    fn mul(self, a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_mul_ps(a, b))
    }
    #[inline(always)]
    fn madd(self, a: Self::R, b: Self::R, c: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_fmadd_ps(a, b, c))
    }
    #[inline(always)]
    fn div(self, a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_div_ps(a, b))
    }
    #[inline(always)]
    fn split_exponent(self, x: Self::R) -> (Self::R, Self::R) {
        use std::arch::x86_64::{
            _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cvtepi32_ps, _mm256_or_si256,
            _mm256_set1_epi32, _mm256_srli_epi32, _mm256_sub_epi32,
        };
        avx!({
            let bits = _mm256_castps_si256(x);
            let mantissa = _mm256_castsi256_ps(_mm256_or_si256(
                _mm256_and_si256(bits, _mm256_set1_epi32(0x007f_ffff)),
                _mm256_set1_epi32(0x3f80_0000),
            ));
            let exponent = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_srli_epi32::<23>(bits), _mm256_set1_epi32(127)));
            (mantissa, exponent)
        })
    }
    #[inline(always)]
    fn pow2(self, n: Self::R) -> Self::R {
        use std::arch::x86_64::{
            _mm256_add_epi32, _mm256_castsi256_ps, _mm256_cvtps_epi32, _mm256_set1_epi32, _mm256_slli_epi32,
        };
        avx!(_mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
            _mm256_cvtps_epi32(n),
            _mm256_set1_epi32(127)
        ))))
    }
    #[inline(always)]
    fn min(self, a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_min_ps(a, b))
    }
    #[inline(always)]
    fn max(self, a: Self::R, b: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_max_ps(a, b))
    }
    #[inline(always)]
    fn rsqrt(self, x: Self::R) -> Self::R {
        // The ~12-bit estimate, then one Newton step (~23 bits).
        let y = avx!(std::arch::x86_64::_mm256_rsqrt_ps(x));
        let half_x = self.mul(x, self.splat(-0.5));
        self.mul(y, self.madd(half_x, self.mul(y, y), self.splat(1.5)))
    }
    #[inline(always)]
    fn abs(self, a: Self::R) -> Self::R {
        avx!(std::arch::x86_64::_mm256_andnot_ps(self.splat(-0.0), a))
    }
    #[inline(always)]
    fn flip_sign_by(self, a: Self::R, s: Self::R) -> Self::R {
        use std::arch::x86_64::{_mm256_and_ps, _mm256_xor_ps};
        avx!(_mm256_xor_ps(a, _mm256_and_ps(s, self.splat(-0.0))))
    }
    #[inline(always)]
    fn select_inside(self, x: Self::R, lo: Self::R, hi: Self::R, a: Self::R, b: Self::R) -> Self::R {
        use std::arch::x86_64::{_CMP_GT_OQ, _CMP_LT_OQ, _mm256_and_ps, _mm256_blendv_ps, _mm256_cmp_ps};
        avx!({
            let inside = _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(x, lo), _mm256_cmp_ps::<_CMP_LT_OQ>(x, hi));
            _mm256_blendv_ps(b, a, inside)
        })
    }
    #[inline(always)]
    fn madd4(self, a: Vec4, b: Vec4, c: Vec4) -> Vec4 {
        use std::arch::x86_64::{__m128, _mm_fmadd_ps};
        avx!(_mm_fmadd_ps(__m128::from(a), __m128::from(b), __m128::from(c))).into()
    }
    #[inline(always)]
    fn eq_bits(self, a: Self::R, b: Self::R) -> u8 {
        use std::arch::x86_64::{_CMP_EQ_OQ, _mm256_cmp_ps, _mm256_movemask_ps};
        avx!(_mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)) as u8)
    }
}

/// The eight weights of block `block` of `node_weights` (lanes past its end 0), each clamped to
/// `[0, 1]` with NaN as 0, and the lanes at exactly 0 (`none`) and exactly 1 (`all`) as bits:
/// what the per-node kernels (masked blends, additive layers) read per block, in a few
/// instructions. Returns `(weights, none, all)`.
#[inline(always)]
pub(crate) fn block_weights<I: Isa>(isa: I, node_weights: &[f32], block: usize) -> (F8, u8, u8) {
    let start = 8 * block;
    let raw = match node_weights.get(start..start + 8).and_then(|w| <[f32; 8]>::try_from(w).ok()) {
        Some(full) => F8(full),
        None => F8(std::array::from_fn(|lane| node_weights.get(start + lane).copied().unwrap_or(0.0))),
    };
    let (zero, one) = (V::splat(isa, 0.0), V::splat(isa, 1.0));
    // `max` gives its second operand for NaN (and for −0 against 0): NaN and −0 become 0.
    let w = V::load(isa, &raw).max(zero).min(one);
    (w.store(), w.eq_bits(zero), w.eq_bits(one))
}

/// The instruction set the block jobs use on this CPU: `"avx2+fma"` or `"baseline"`.
pub fn simd_path() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if Avx2Fma::detect().is_some() {
        return "avx2+fma";
    }
    "baseline"
}

/// The four columns of an affine transform as a 4×4 matrix (`w` = 0, 0, 0, 1), straight from
/// its SIMD registers (glam's `Mat4::from(Affine3A)` rebuilds every column from scalars).
#[inline(always)]
pub(crate) fn affine_columns(m: &Affine3A) -> [Vec4; 4] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        use std::arch::x86_64::{__m128, _mm_and_ps, _mm_castsi128_ps, _mm_or_ps, _mm_set_epi32, _mm_set_ps};
        // SAFETY: register-only SSE2 operations; SSE2 is enabled (the cfg above).
        unsafe {
            let xyz = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            let column = |v: Vec3A| -> Vec4 { _mm_and_ps(__m128::from(v), xyz).into() };
            let w_one = _mm_set_ps(1.0, 0.0, 0.0, 0.0);
            [
                column(m.matrix3.x_axis),
                column(m.matrix3.y_axis),
                column(m.matrix3.z_axis),
                _mm_or_ps(__m128::from(column(m.translation)), w_one).into(),
            ]
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        [
            m.matrix3.x_axis.extend(0.0),
            m.matrix3.y_axis.extend(0.0),
            m.matrix3.z_axis.extend(0.0),
            m.translation.extend(1.0),
        ]
    }
}

/// A `Vec3A` column as four lanes, the `w` lane as it is in the register.
#[inline(always)]
pub(crate) fn lanes(v: Vec3A) -> Vec4 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        std::arch::x86_64::__m128::from(v).into()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        v.extend(0.0)
    }
}

/// Four lanes as a `Vec3A` (the `w` lane kept in the register where `Vec3A` is one).
#[inline(always)]
pub(crate) fn vec3a(v: Vec4) -> Vec3A {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        std::arch::x86_64::__m128::from(v).into()
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        Vec3A::from_vec4(v)
    }
}

/// `sin(x)/x` for `x` in `[0, π/2]` (Taylor to `x¹⁰`; error below 4e-8), on eight lanes.
#[inline(always)]
pub(crate) fn sinc_quarter_turn<I: Isa>(x: V<I>) -> V<I> {
    sinc_of_square(x * x)
}

/// `sin(x)/x` from `x2 = x²`, for `x` in `[0, π/2]` (see [`sinc_quarter_turn`]): for callers
/// that have the square without the root.
#[inline(always)]
pub(crate) fn sinc_of_square<I: Isa>(x2: V<I>) -> V<I> {
    let isa = x2.isa;
    let mut p = V::splat(isa, -1.0 / 39_916_800.0);
    p = p.madd(x2, V::splat(isa, 1.0 / 362_880.0));
    p = p.madd(x2, V::splat(isa, -1.0 / 5040.0));
    p = p.madd(x2, V::splat(isa, 1.0 / 120.0));
    p = p.madd(x2, V::splat(isa, -1.0 / 6.0));
    p.madd(x2, V::splat(isa, 1.0))
}

/// Abramowitz & Stegun 4.4.46 (see `interp`): `acos(x) = √(1−x)·P(x)` on `[0, 1]`; this
/// returns `P(x)` (error of the product below 2e-8 in exact arithmetic).
#[inline(always)]
pub(crate) fn acos_factor<I: Isa>(x: V<I>) -> V<I> {
    let c = crate::interp::ACOS_COEFFICIENTS;
    let mut p = V::splat(x.isa, c[0]);
    for &coefficient in &c[1..] {
        p = p.madd(x, V::splat(x.isa, coefficient));
    }
    p
}

/// `ln x` for positive normal `x` (error below 3e-7 of `max(1, |ln x|)`; `ln 1` is exactly 0):
/// `x = m·2ᵉ` with `m` in `[√½, √2)`, `ln m = 2·atanh s`, `s = (m−1)/(m+1)` in `±0.172`, the
/// series to `s⁷` (the next term is below 3e-8). Other lanes
/// are meaningless (the caller selects them away).
#[inline(always)]
pub(crate) fn ln<I: Isa>(x: V<I>) -> V<I> {
    let isa = x.isa;
    let (m, e) = isa.split_exponent(x.r);
    let (m, e) = (x.with(m), x.with(e));
    let (sqrt2, four, one) = (V::splat(isa, std::f32::consts::SQRT_2), V::splat(isa, 4.0), V::splat(isa, 1.0));
    let e = (e + one).where_inside(m, sqrt2, four, e);
    let m = (m * V::splat(isa, 0.5)).where_inside(m, sqrt2, four, m);
    let s = (m - one).div(m + one);
    let s2 = s * s;
    let p = V::splat(isa, 2.0 / 7.0).madd(s2, V::splat(isa, 2.0 / 5.0));
    let p = p.madd(s2, V::splat(isa, 2.0 / 3.0)).madd(s2, V::splat(isa, 2.0));
    e.madd(V::splat(isa, std::f32::consts::LN_2), s * p)
}

/// `eˣ` (relative error below 3e-7; `e⁰` is exactly 1), `x` clamped to `[−87, 88]`: `x = n·ln 2 + r`
/// with `n` rounded and `ln 2` in two parts (Cody–Waite), `eʳ` by its Taylor series to `r⁶`
/// (`|r| ≤ ln 2 / 2`: the next term is below 1.3e-7).
#[inline(always)]
pub(crate) fn exp<I: Isa>(x: V<I>) -> V<I> {
    let isa = x.isa;
    let x = x.max(V::splat(isa, -87.0)).min(V::splat(isa, 88.0));
    // Round to nearest by adding and taking away 1.5·2²³ (no fast-math: both are kept).
    let magic = V::splat(isa, 12_582_912.0);
    let n = x.madd(V::splat(isa, std::f32::consts::LOG2_E), magic) - magic;
    let r = n.madd(V::splat(isa, -0.693_145_75), x);
    let r = n.madd(V::splat(isa, -1.428_606_8e-6), r);
    let p = V::splat(isa, 1.0 / 720.0).madd(r, V::splat(isa, 1.0 / 120.0));
    let p = p.madd(r, V::splat(isa, 1.0 / 24.0)).madd(r, V::splat(isa, 1.0 / 6.0));
    let p = p.madd(r, V::splat(isa, 0.5)).madd(r, V::splat(isa, 1.0)).madd(r, V::splat(isa, 1.0));
    p * x.with(isa.pow2(n.r))
}

/// Run `kernel` on AVX2+FMA, for tests: `None` on a CPU without them.
#[cfg(test)]
pub(crate) fn run_avx2<K: Kernel>(kernel: K) -> Option<K::Output> {
    #[cfg(target_arch = "x86_64")]
    if let Some(isa) = Avx2Fma::detect() {
        return Some(isa.run(kernel));
    }
    drop(kernel);
    None
}

/// Every instruction set this CPU runs, for tests: `Plain`, and `Avx2Fma` where detected.
#[cfg(test)]
pub(crate) fn each_isa<K: Kernel + Clone>(kernel: &K) -> Vec<(&'static str, K::Output)> {
    let mut out = vec![("plain", kernel.clone().run(Plain))];
    if let Some(output) = run_avx2(kernel.clone()) {
        out.push(("avx2+fma", output));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sinc` of one vector and `rsqrt` of another.
    #[derive(Clone, Copy)]
    struct SincAndRsqrt(F8, F8);

    impl Kernel for SincAndRsqrt {
        type Output = (F8, F8);
        #[inline(always)]
        fn run<I: Isa>(self, isa: I) -> (F8, F8) {
            (sinc_quarter_turn(V::load(isa, &self.0)).store(), V::load(isa, &self.1).rsqrt().store())
        }
    }

    #[test]
    fn sinc_and_rsqrt_are_accurate_on_their_ranges() {
        let mut runs = 0;
        let (mut sinc_error, mut rsqrt_error) = (0.0f64, 0.0f64);
        for step in 0..4000 {
            let xs = F8(std::array::from_fn(|lane| (step * 8 + lane) as f32 / 32000.0 * std::f32::consts::FRAC_PI_2));
            let ys = F8(std::array::from_fn(|lane| 1e-6 + (step * 8 + lane) as f32 * 0.37));
            for (name, (s, r)) in each_isa(&SincAndRsqrt(xs, ys)) {
                runs += 1;
                for lane in 0..8 {
                    let x = f64::from(xs.0[lane]);
                    let exact = if x == 0.0 { 1.0 } else { x.sin() / x };
                    sinc_error = sinc_error.max((f64::from(s.0[lane]) - exact).abs());
                    let exact = 1.0 / f64::from(ys.0[lane]).sqrt();
                    rsqrt_error = rsqrt_error.max(((f64::from(r.0[lane]) - exact) / exact).abs());
                }
                assert!(sinc_error < 2e-7, "{name}: sinc error {sinc_error:e}");
                assert!(rsqrt_error < 5e-7, "{name}: rsqrt relative error {rsqrt_error:e}");
            }
        }
        assert!(runs >= 4000);
    }

    #[test]
    fn sign_and_select_work_on_bits() {
        let a = F8([1.0, -2.0, 3.0, -4.0, 0.0, -0.0, 5.0, -6.0]);
        assert_eq!(a.abs(), F8([1.0, 2.0, 3.0, 4.0, 0.0, 0.0, 5.0, 6.0]));
        assert_eq!(F8::ONE.flip_sign_by(a), F8([1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]));
        assert_eq!(a.select_bits(F8::ZERO, 0b1000_0001), F8([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.0]));
    }

    #[test]
    fn affine_columns_match_glams_conversion() {
        for i in 0..200 {
            let f = i as f32;
            let rotation = glam::Quat::from_euler(glam::EulerRot::XYZ, f * 0.37, f * -0.91, f * 1.73).normalize();
            let scale =
                glam::Vec3::new(0.5 + (f * 0.13).sin().abs(), 1.0 + (f * 0.7).cos() * 0.5, 2.0 - (f * 0.3).sin());
            let m = Affine3A::from_scale_rotation_translation(scale, rotation, glam::Vec3::new(f * 0.1, -f, 3.0));
            let [x, y, z, w] = affine_columns(&m);
            assert_eq!(glam::Mat4::from_cols(x, y, z, w), glam::Mat4::from(m));
        }
    }
}
