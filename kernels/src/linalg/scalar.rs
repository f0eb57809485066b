//! The element types of the dense factorizations: float32, float64, complex64,
//! complex128, with the few operations LU, Cholesky, Householder QR and triangular
//! solves need. Each type computes in its own precision, as LAPACK's `s`, `d`, `c` and
//! `z` routines do.

use crate::dtype::{c64, c128};
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]
use crate::elementwise::ops::float::Float;
use crate::reduce::reduction::Words;

/// A matrix element.
pub trait Scalar: Words + PartialEq {
    /// The real type of its magnitudes (f32 or f64).
    type Real: Copy + PartialOrd;
    const ZERO: Self;
    const ONE: Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// `self / o` (complex division by Smith's method, as NumPy's).
    fn div(self, o: Self) -> Self;
    fn conj(self) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part (0 for real types).
    fn im(self) -> Self::Real;
    fn from_real(r: Self::Real) -> Self;
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// A real value in float64, and an element from float64 parts (rounded).
    fn re64(r: Self::Real) -> f64;
    fn from64(re: f64, im: f64) -> Self;
    /// `|re| + |im|`: LAPACK's pivot size (`i?amax` uses it for complex), as f64.
    fn abs1(self) -> f64;
    /// `|x|^2` in the real type.
    fn abs2(self) -> Self::Real;
    /// Operations on the real type.
    fn rsqrt(r: Self::Real) -> Self::Real;
    fn radd(a: Self::Real, b: Self::Real) -> Self::Real;
    fn rmul(a: Self::Real, b: Self::Real) -> Self::Real;
    fn rdiv(a: Self::Real, b: Self::Real) -> Self::Real;
    fn rneg(a: Self::Real) -> Self::Real;
    fn rzero() -> Self::Real;
    /// `sqrt(a^2 + b^2)` without overflow or underflow.
    fn rhypot(a: Self::Real, b: Self::Real) -> Self::Real;
    fn rabs(a: Self::Real) -> Self::Real;
    /// Whether the real value is zero or negative (false for NaN).
    fn rnonpositive(a: Self::Real) -> bool;
}

macro_rules! real_ops {
    ($r:ty) => {
        type Real = $r;
        #[inline(always)]
        fn rsqrt(r: $r) -> $r {
            Float::sqrt(r)
        }
        #[inline(always)]
        fn radd(a: $r, b: $r) -> $r {
            a + b
        }
        #[inline(always)]
        fn rmul(a: $r, b: $r) -> $r {
            a * b
        }
        #[inline(always)]
        fn rdiv(a: $r, b: $r) -> $r {
            a / b
        }
        #[inline(always)]
        fn rneg(a: $r) -> $r {
            -a
        }
        #[inline(always)]
        fn rzero() -> $r {
            0.0
        }
        #[inline(always)]
        fn rhypot(a: $r, b: $r) -> $r {
            let (a, b) = (Float::abs(a), Float::abs(b));
            let (big, small) = if a >= b { (a, b) } else { (b, a) };
            if big == 0.0 || small == 0.0 {
                // Also passes infinities and NaNs through.
                return big + small;
            }
            let q = small / big;
            big * Float::sqrt(1.0 + q * q)
        }
        #[inline(always)]
        fn rabs(a: $r) -> $r {
            Float::abs(a)
        }
        #[inline(always)]
        fn rnonpositive(a: $r) -> bool {
            a <= 0.0
        }
    };
}

macro_rules! real_scalar {
    ($($t:ty),*) => { $(
        impl Scalar for $t {
            real_ops!($t);
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            #[inline(always)] fn add(self, o: $t) -> $t { self + o }
            #[inline(always)] fn sub(self, o: $t) -> $t { self - o }
            #[inline(always)] fn mul(self, o: $t) -> $t { self * o }
            #[inline(always)] fn div(self, o: $t) -> $t { self / o }
            #[inline(always)] fn conj(self) -> $t { self }
            #[inline(always)] fn re(self) -> $t { self }
            #[inline(always)] fn im(self) -> $t { 0.0 }
            #[inline(always)] fn from_real(r: $t) -> $t { r }
            #[inline(always)] fn from_parts(re: $t, _im: $t) -> $t { re }
            #[inline(always)] fn re64(r: $t) -> f64 { r as f64 }
            #[inline(always)] fn from64(re: f64, _im: f64) -> $t { re as $t }
            #[inline(always)] fn abs1(self) -> f64 { Float::abs(self) as f64 }
            #[inline(always)] fn abs2(self) -> $t { self * self }
        }
    )* };
}
real_scalar!(f32, f64);

macro_rules! complex_scalar {
    ($(($t:ident, $r:ty)),*) => { $(
        impl Scalar for $t {
            real_ops!($r);
            const ZERO: $t = $t::new(0.0, 0.0);
            const ONE: $t = $t::new(1.0, 0.0);
            #[inline(always)] fn add(self, o: $t) -> $t { $t::new(self.re + o.re, self.im + o.im) }
            #[inline(always)] fn sub(self, o: $t) -> $t { $t::new(self.re - o.re, self.im - o.im) }
            #[inline(always)]
            fn mul(self, o: $t) -> $t {
                $t::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
            }
            #[inline(always)]
            fn div(self, o: $t) -> $t {
                // Smith's algorithm: scale by the larger part of the divisor so that
                // neither the ratio nor the denominator overflows.
                if Float::abs(o.re) >= Float::abs(o.im) {
                    let r = o.im / o.re;
                    let d = o.re + o.im * r;
                    $t::new((self.re + self.im * r) / d, (self.im - self.re * r) / d)
                } else {
                    let r = o.re / o.im;
                    let d = o.re * r + o.im;
                    $t::new((self.re * r + self.im) / d, (self.im * r - self.re) / d)
                }
            }
            #[inline(always)] fn conj(self) -> $t { $t::new(self.re, -self.im) }
            #[inline(always)] fn re(self) -> $r { self.re }
            #[inline(always)] fn im(self) -> $r { self.im }
            #[inline(always)] fn from_real(r: $r) -> $t { $t::new(r, 0.0) }
            #[inline(always)] fn from_parts(re: $r, im: $r) -> $t { $t::new(re, im) }
            #[inline(always)] fn re64(r: $r) -> f64 { r as f64 }
            #[inline(always)] fn from64(re: f64, im: f64) -> $t { $t::new(re as $r, im as $r) }
            #[inline(always)]
            fn abs1(self) -> f64 {
                (Float::abs(self.re) + Float::abs(self.im)) as f64
            }
            #[inline(always)] fn abs2(self) -> $r { self.re * self.re + self.im * self.im }
        }
    )* };
}
complex_scalar!((c64, f32), (c128, f64));
