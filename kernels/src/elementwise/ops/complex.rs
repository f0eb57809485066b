//! Complex arithmetic and functions for `c64`/`c128`, written once over the real part's
//! type. Formulas follow NumPy's npymath (Smith's division, hypot for abs, the principal
//! branches of log and sqrt), computed with the libdevice real functions.
// `x - x == 0` (finite) and `x != x` (NaN) are the tests the `Complex` trait's real
// type allows (it has no is_finite/is_nan): equal operands on purpose.
#![allow(clippy::eq_op)]

use super::float::{Float, Float2};
use crate::dtype::{c64, c128};

/// The real type under a complex type, and the two conversions.
pub trait Complex: Copy {
    type R: Copy
        + Float
        + Float2
        + PartialOrd
        + core::ops::Add<Output = Self::R>
        + core::ops::Sub<Output = Self::R>
        + core::ops::Mul<Output = Self::R>
        + core::ops::Div<Output = Self::R>
        + core::ops::Neg<Output = Self::R>;
    const ZERO: Self::R;
    const ONE: Self::R;
    const NAN: Self::R;
    fn new(re: Self::R, im: Self::R) -> Self;
    /// A real constant.
    fn real(v: f64) -> Self::R;
    fn re(self) -> Self::R;
    fn im(self) -> Self::R;
}

macro_rules! complex_impl {
    ($c:ident, $r:ty) => {
        impl Complex for $c {
            type R = $r;
            const ZERO: $r = 0.0;
            const ONE: $r = 1.0;
            const NAN: $r = <$r>::NAN;
            #[inline(always)]
            fn new(re: $r, im: $r) -> Self {
                $c { re, im }
            }
            #[inline(always)]
            fn real(v: f64) -> $r {
                v as $r
            }
            #[inline(always)]
            fn re(self) -> $r {
                self.re
            }
            #[inline(always)]
            fn im(self) -> $r {
                self.im
            }
        }
    };
}
complex_impl!(c64, f32);
complex_impl!(c128, f64);

#[inline(always)]
pub fn add<C: Complex>(a: C, b: C) -> C {
    C::new(a.re() + b.re(), a.im() + b.im())
}
#[inline(always)]
pub fn sub<C: Complex>(a: C, b: C) -> C {
    C::new(a.re() - b.re(), a.im() - b.im())
}
#[inline(always)]
pub fn mul<C: Complex>(a: C, b: C) -> C {
    C::new(
        a.re() * b.re() - a.im() * b.im(),
        a.re() * b.im() + a.im() * b.re(),
    )
}
#[inline(always)]
pub fn neg<C: Complex>(a: C) -> C {
    C::new(-a.re(), -a.im())
}

/// Smith's algorithm, as NumPy's complex division (avoids overflow in |b|^2).
#[inline(always)]
pub fn div<C: Complex>(a: C, b: C) -> C {
    let (ar, ai, br, bi) = (a.re(), a.im(), b.re(), b.im());
    let abs_br = br.abs();
    let abs_bi = bi.abs();
    if abs_br >= abs_bi {
        if abs_br == C::ZERO && abs_bi == C::ZERO {
            // NumPy: divide by complex zero gives inf/nan componentwise.
            return C::new(ar / abs_br, ai / abs_bi);
        }
        let rat = bi / br;
        let scl = C::ONE / (br + bi * rat);
        C::new((ar + ai * rat) * scl, (ai - ar * rat) * scl)
    } else {
        let rat = br / bi;
        let scl = C::ONE / (bi + br * rat);
        C::new((ar * rat + ai) * scl, (ai * rat - ar) * scl)
    }
}

#[inline(always)]
pub fn abs<C: Complex>(a: C) -> C::R {
    a.re().hypot(a.im())
}

#[inline(always)]
pub fn exp<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if y == C::ZERO {
        // Keeps exp(x + 0j) exact and free of inf * 0 = nan.
        return C::new(x.exp(), y);
    }
    if is_inf::<C>(x) && !is_finite::<C>(y) {
        // C99 G.6.3.1: exp(+inf + i inf/NaN) = ±inf + NaN i; exp(-inf + i inf/NaN) = ±0 ± 0i.
        return if x > C::ZERO {
            C::new(x, y - y)
        } else {
            C::new(C::ZERO, C::ZERO)
        };
    }
    let e = x.exp();
    C::new(e * y.cos(), e * y.sin())
}

#[inline(always)]
pub fn log<C: Complex>(a: C) -> C {
    C::new(abs(a).ln(), a.im().atan2(a.re()))
}

/// Principal square root (Kahan's formulation, as npymath's fallback).
#[inline(always)]
pub fn sqrt<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if x == C::ZERO && y == C::ZERO {
        return C::new(C::ZERO, y);
    }
    let two = C::real(2.0);
    let t = ((x.abs() + abs(a)) / two).sqrt();
    if x >= C::ZERO {
        C::new(t, y / (two * t))
    } else {
        C::new(y.abs() / (two * t), C::ONE.copysign(y) * t)
    }
}

#[inline(always)]
fn is_nan<C: Complex>(x: C::R) -> bool {
    x != x
}
#[inline(always)]
fn is_inf<C: Complex>(x: C::R) -> bool {
    x.abs() == C::real(f64::INFINITY)
}
/// Neither infinite nor NaN.
#[inline(always)]
fn is_finite<C: Complex>(x: C::R) -> bool {
    x - x == C::ZERO
}

/// `sin(x) * f(y)` for a hyperbolic `f`: exactly the signed zero when `x` is zero
/// (C99 Annex G, as NumPy's npymath), where the product would be `0 * inf = NaN` once
/// `f(y)` overflows (`sin(0 + 90j)` in complex64 is `0 + inf j`).
#[inline(always)]
fn zero_times<C: Complex>(z: C::R, sign: C::R, other: C::R) -> C::R {
    if z == C::ZERO {
        z * C::ONE.copysign(sign)
    } else {
        other
    }
}
#[inline(always)]
pub fn sin<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    C::new(
        zero_times::<C>(x, C::ONE, x.sin() * y.cosh()),
        x.cos() * y.sinh(),
    )
}
#[inline(always)]
pub fn cos<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    C::new(
        x.cos() * y.cosh(),
        -zero_times::<C>(x, y, x.sin() * y.sinh()),
    )
}
#[inline(always)]
pub fn sinh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if (x == C::ZERO || is_inf::<C>(x)) && !is_finite::<C>(y) {
        // C99 G.6.2.5: sinh(±0 + i inf/NaN) = ±0 + NaN i, sinh(±inf + i inf/NaN) = ±inf + NaN i.
        return C::new(x, y - y);
    }
    C::new(
        x.sinh() * y.cos(),
        zero_times::<C>(y, C::ONE, x.cosh() * y.sin()),
    )
}
#[inline(always)]
pub fn cosh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if !is_finite::<C>(y) {
        // C99 G.6.2.4: cosh(±0 + i inf/NaN) = NaN + 0i; cosh(±inf + i inf/NaN) = +inf + NaN i.
        if x == C::ZERO {
            return C::new(y - y, C::ZERO);
        }
        if is_inf::<C>(x) {
            return C::new(x.abs(), y - y);
        }
    }
    C::new(
        x.cosh() * y.cos(),
        zero_times::<C>(y, x, x.sinh() * y.sin()),
    )
}
/// tanh(x+iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), with C99's special values and,
/// for |x| > 32, glibc's limit form (NumPy's): 1 + 4 sin y cos y e^(-2|x|) i.
#[inline(always)]
pub fn tanh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    let two = C::real(2.0);
    if y == C::ZERO {
        // Real input: tanh(NaN + 0i) = NaN + 0i (the quotient below would be NaN/NaN).
        return C::new(x.tanh(), y);
    }
    if is_inf::<C>(x) {
        // tanh(±inf + iy) = ±1 ± 0i, the zero's sign that of sin y cos y for |y| > 1 (and
        // of y otherwise), as glibc's ctanh, which NumPy calls.
        let s = if is_finite::<C>(y) && y.abs() > C::ONE {
            y.sin() * y.cos()
        } else {
            y
        };
        return C::new(C::ONE.copysign(x), C::ZERO.copysign(s));
    }
    if !is_finite::<C>(y) {
        // C11 G.6.2.6: tanh(±0 + i inf/NaN) = ±0 + NaN i; other x: NaN + NaN i.
        return if x == C::ZERO {
            C::new(x, y - y)
        } else {
            C::new(y - y, y - y)
        };
    }
    if x.abs() > C::real(32.0) {
        // |tanh| saturates (avoids inf/inf); the imaginary part is what is left of it.
        let im = C::real(4.0) * y.sin() * y.cos() * (-two * x.abs()).exp();
        return C::new(C::ONE.copysign(x), im);
    }
    let d = (two * x).cosh() + (two * y).cos();
    C::new((two * x).sinh() / d, (two * y).sin() / d)
}
/// tan(z) = -i tanh(iz).
#[inline(always)]
pub fn tan<C: Complex>(a: C) -> C {
    let t = tanh(C::new(-a.im(), a.re()));
    C::new(t.im(), -t.re())
}

/// a^b = exp(b log a), with NumPy's exact cases: b = 0 gives 1, a = 0 gives 0 for
/// positive real b, and small integer b uses repeated multiplication.
#[inline(always)]
pub fn pow<C: Complex>(a: C, b: C) -> C {
    let one = C::new(C::ONE, C::ZERO);
    if b.re() == C::ZERO && b.im() == C::ZERO {
        return one;
    }
    if a.re() == C::ZERO && a.im() == C::ZERO {
        // As the C library's cpow, which NumPy calls: 0 for a positive real part.
        return if b.re() > C::ZERO {
            C::new(C::ZERO, C::ZERO)
        } else {
            C::new(C::NAN, C::NAN)
        };
    }
    if b.im() == C::ZERO && b.re() == b.re().trunc() && b.re().abs() <= C::real(256.0) {
        // |b| <= 256: binary powering, as npymath does for |n| < 100.
        let neg = b.re() < C::ZERO;
        let mut n = b.re().abs();
        let mut base = a;
        let mut acc = one;
        let two = C::real(2.0);
        while n > C::ZERO {
            let half = (n / two).trunc();
            if n - half * two > C::ZERO {
                acc = mul(acc, base);
            }
            base = mul(base, base);
            n = half;
        }
        return if neg { div(one, acc) } else { acc };
    }
    exp(mul(b, log(a)))
}

/// asinh(z) = log(z + sqrt(z^2 + 1)), computed for Re z >= +0 and mirrored (asinh is
/// odd), which keeps the sum free of cancellation. On the branch cut (Re z = ±0,
/// |Im z| > 1) the sign of that zero picks the side, as C99's casinh: so -0.0 is
/// mirrored too, and adding 1 leaves the imaginary part's zero sign alone.
#[inline(always)]
pub fn asinh<C: Complex>(a: C) -> C {
    let flip = C::ONE.copysign(a.re()) < C::ZERO;
    let z = if flip { neg(a) } else { a };
    let (x, y) = (z.re(), z.im());
    let r = if !is_finite::<C>(x) || !is_finite::<C>(y) {
        asinh_special::<C>(x, y)
    } else if x > C::real(1e8) || y.abs() > C::real(1e8) {
        // asinh z = log 2 + log z within 1/(4|z|^2) < eps64/4 here; z^2 + 1 would
        // overflow for complex64 near |z| = 1.8e19.
        let l = log(z);
        C::new(l.re() + C::real(core::f64::consts::LN_2), l.im())
    } else {
        let z2 = mul(z, z);
        log(add(z, sqrt(C::new(z2.re() + C::ONE, z2.im()))))
    };
    if flip { neg(r) } else { r }
}

/// C99 G.6.2.2's special values of asinh for Re z >= +0 or NaN (the caller mirrors the
/// rest: asinh is odd).
#[inline(always)]
fn asinh_special<C: Complex>(x: C::R, y: C::R) -> C {
    let inf = C::real(f64::INFINITY);
    if is_inf::<C>(y) {
        if is_nan::<C>(x) {
            return C::new(inf, C::NAN); // ±inf + NaN i
        }
        let q = if is_inf::<C>(x) {
            core::f64::consts::FRAC_PI_4
        } else {
            core::f64::consts::FRAC_PI_2
        };
        return C::new(inf, C::real(q).copysign(y));
    }
    if is_nan::<C>(y) {
        return C::new(if is_inf::<C>(x) { inf } else { C::NAN }, C::NAN);
    }
    // y finite: x is +inf or NaN.
    if is_inf::<C>(x) {
        return C::new(inf, C::ZERO.copysign(y));
    }
    C::new(C::NAN, if y == C::ZERO { y } else { C::NAN })
}

/// asin(z) = -i asinh(iz).
#[inline(always)]
pub fn asin<C: Complex>(a: C) -> C {
    let r = asinh(C::new(-a.im(), a.re()));
    C::new(r.im(), -r.re())
}

/// Kahan's acos for finite z: Re = 2 atan2(Re sqrt(1 - z), Re sqrt(1 + z)),
/// |Im| = asinh(|Im(conj(sqrt(1 + z)) sqrt(1 - z))|) with the sign of -Im z (C99:
/// acos(conj z) = conj acos z). pi/2 - asin(z) loses the real part to cancellation
/// near z = 1 (tens of ulp); this stays within ~3 ulp. Infinities and NaN keep that
/// older form, whose special values follow C99.
#[inline(always)]
pub fn acos<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if x - x == C::ZERO && y - y == C::ZERO {
        let s1 = sqrt(C::new(C::ONE - x, -y));
        let s2 = sqrt(C::new(C::ONE + x, y));
        let p = s2.re() * s1.im() - s2.im() * s1.re();
        let re = C::real(2.0) * s1.re().atan2(s2.re());
        return C::new(re, p.abs().asinh().copysign(-y));
    }
    let s = asin(a);
    C::new(C::real(core::f64::consts::FRAC_PI_2) - s.re(), -s.im())
}

/// acosh(z) = log(z + sqrt(z + 1) sqrt(z - 1)) (the principal branch of C99). z ± 1
/// keep Im z as it is (with its zero's sign, which picks the side of the branch cut).
#[inline(always)]
pub fn acosh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if !is_finite::<C>(x) || !is_finite::<C>(y) {
        // C99 G.6.2.1 from G.6.1.1: acosh z = i acos z where Im acos z has its sign bit
        // set, else -i acos z (Re acosh >= 0).
        let w = acos(a);
        return if C::ONE.copysign(w.im()) < C::ZERO {
            C::new(-w.im(), w.re())
        } else {
            C::new(w.im(), -w.re())
        };
    }
    log(add(
        a,
        mul(sqrt(C::new(x + C::ONE, y)), sqrt(C::new(x - C::ONE, y))),
    ))
}

/// atanh(z) = (log(1 + z) - log(1 - z)) / 2, with 1 - z = (1 - x) - iy exactly, so that
/// on the cut (real |z| > 1) the sign of Im z's zero picks the side, as C99's catanh.
#[inline(always)]
pub fn atanh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    if !is_finite::<C>(x) || !is_finite::<C>(y) {
        // C99 G.6.2.3 (odd and conjugate-symmetric).
        let h = C::real(core::f64::consts::FRAC_PI_2);
        if is_inf::<C>(y) {
            let re = if is_nan::<C>(x) {
                C::ZERO
            } else {
                C::ZERO.copysign(x)
            };
            return C::new(re, h.copysign(y));
        }
        if is_inf::<C>(x) {
            let im = if is_nan::<C>(y) {
                C::NAN
            } else {
                h.copysign(y)
            };
            return C::new(C::ZERO.copysign(x), im);
        }
        // A NaN part and no infinity: atanh(±0 + NaN i) = ±0 + NaN i, else NaN + NaN i.
        return C::new(if x == C::ZERO { x } else { C::NAN }, C::NAN);
    }
    let d = sub(log(C::new(C::ONE + x, y)), log(C::new(C::ONE - x, -y)));
    // Re atanh z has the sign of x and Im atanh z that of y (atanh is odd and
    // conjugate-symmetric): the copysigns give zeros their C99 signs (atanh(-0 + 2i) is
    // -0 + 1.107i; the difference of the logarithms gives +0 there).
    let half = C::real(0.5);
    C::new(
        (d.re() * half).abs().copysign(x),
        (d.im() * half).abs().copysign(y),
    )
}

/// atan(z) = -i atanh(iz).
#[inline(always)]
pub fn atan<C: Complex>(a: C) -> C {
    let r = atanh(C::new(-a.im(), a.re()));
    C::new(r.im(), -r.re())
}

#[cfg(test)]
#[allow(
    clippy::type_complexity,
    clippy::excessive_precision,
    clippy::approx_constant
)]
mod tests {
    use super::*;

    fn close(a: c128, b: c128) -> bool {
        (a.re - b.re).abs() <= 1e-12 * (1.0 + b.re.abs())
            && (a.im - b.im).abs() <= 1e-12 * (1.0 + b.im.abs())
    }

    #[test]
    fn special_values_as_c99() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let same = |a: f64, b: f64| {
            (a.is_nan() && b.is_nan())
                || (a == b && a.is_sign_negative() == b.is_sign_negative())
                || (a - b).abs() < 1e-15
        };
        let q = core::f64::consts::FRAC_PI_4;
        let h = core::f64::consts::FRAC_PI_2;
        let cases: [(fn(c128) -> c128, (f64, f64), (f64, f64)); 14] = [
            (exp, (-inf, inf), (0.0, 0.0)),
            (exp, (inf, nan), (inf, nan)),
            (sinh, (0.0, inf), (0.0, nan)),
            (cosh, (0.0, nan), (nan, 0.0)),
            (cosh, (-inf, inf), (inf, nan)),
            (tanh, (0.0, inf), (0.0, nan)),
            (tanh, (nan, 0.0), (nan, 0.0)),
            (asinh, (inf, inf), (inf, q)),
            (asinh, (1.0, -inf), (inf, -h)),
            (acos, (-inf, inf), (3.0 * q, -inf)),
            (acos, (0.0, nan), (h, nan)),
            (acosh, (inf, 1.0), (inf, 0.0)),
            (atanh, (inf, 2.0), (0.0, h)),
            (atanh, (-0.0, nan), (-0.0, nan)),
        ];
        for (f, (x, y), (re, im)) in cases {
            let r = f(c128::new(x, y));
            assert!(
                same(r.re, re) && same(r.im, im),
                "({x}, {y}) -> {r:?}, want ({re}, {im})"
            );
        }
        // Large |z| in complex64: no overflow inside (asin(1 + 1.3e19j) ~ 7.7e-20 + 44.708j).
        let r = asin(c64::new(1.0, 1.3043818701608976e19));
        assert!(
            (r.im - 44.70799).abs() < 1e-4 && r.re > 0.0 && r.re < 1e-19,
            "{r:?}"
        );
    }

    #[test]
    fn branch_cuts_follow_the_sign_of_zero() {
        // C99 (NumPy): the side of a branch cut is the sign of the zero part.
        let h = core::f64::consts::FRAC_PI_2;
        let a2 = 1.3169578969248166; // acosh(2)
        let at = 0.5493061443340549; // atanh(1/2) = Re atanh(2)
        let cases: [(fn(c128) -> c128, (f64, f64), (f64, f64)); 13] = [
            (asin, (2.0, 0.0), (h, a2)),
            (asin, (2.0, -0.0), (h, -a2)),
            (asin, (-2.0, 0.0), (-h, a2)),
            (acos, (2.0, 0.0), (0.0, -a2)),
            (acos, (2.0, -0.0), (0.0, a2)),
            (atanh, (2.0, 0.0), (at, h)),
            (atanh, (2.0, -0.0), (at, -h)),
            (atanh, (-2.0, 0.0), (-at, h)),
            (asinh, (0.0, 2.0), (a2, h)),
            (asinh, (-0.0, 2.0), (-a2, h)),
            (asinh, (0.0, -2.0), (a2, -h)),
            (atanh, (-0.0, 2.0), (-0.0, 1.1071487177940904)),
            (acosh, (-2.0, -0.0), (a2, -core::f64::consts::PI)),
        ];
        for (f, (x, y), (re, im)) in cases {
            let r = f(c128::new(x, y));
            assert!(
                (r.re - re).abs() <= 1e-15 * (1.0 + re.abs())
                    && (r.im - im).abs() <= 1e-15 * (1.0 + im.abs()),
                "({x}, {y}) -> {r:?}, want ({re}, {im})"
            );
            let signs = (r.re.is_sign_negative(), r.im.is_sign_negative());
            assert_eq!(
                signs,
                (re.is_sign_negative(), im.is_sign_negative()),
                "signs of ({x}, {y}) -> {r:?}"
            );
        }
    }

    #[test]
    fn acos_keeps_its_real_part_near_one() {
        // References from NumPy's arccos in 80-bit long double.
        let cases = [
            (
                (0.99758, 0.0006853),
                (0.07026431943226505, -0.009761047079571296),
            ),
            (
                (1.0 - 1e-9, -1e-12),
                (4.472136451148779e-05, 2.2360677301705735e-08),
            ),
            ((-3.0, -2e-9), (3.1415926528826863, 1.762747174039086)),
            ((0.5, 0.0), (1.0471975511965979, -0.0)),
        ];
        for ((x, y), (re, im)) in cases {
            let r = acos(c128::new(x, y));
            let scale = re.abs().hypot(im) * 4.0 * f64::EPSILON;
            assert!(
                (r.re - re).abs() <= scale && (r.im - im).abs() <= scale,
                "acos({x}, {y}) = {r:?}"
            );
            assert_eq!(
                r.im.is_sign_negative(),
                im.is_sign_negative(),
                "sign of Im acos({x}, {y})"
            );
        }
    }

    #[test]
    fn zero_parts_stay_zero_where_the_other_factor_overflows() {
        // NumPy (C99 Annex G): sin(0 + 90j) = 0 + inf j in complex64, not NaN + inf j.
        let s = sin(c64::new(0.0, 90.0));
        assert_eq!((s.re, s.im), (0.0, f32::INFINITY));
        let s = sin(c64::new(-0.0, 90.0));
        assert!(s.re == 0.0 && s.re.is_sign_negative());
        let c = cos(c64::new(-0.0, 90.0));
        assert!(c.im == 0.0 && c.im.is_sign_positive() && c.re == f32::INFINITY);
        let h = sinh(c64::new(90.0, -0.0));
        assert!(h.im == 0.0 && h.im.is_sign_negative() && h.re == f32::INFINITY);
        let h = cosh(c64::new(-90.0, 0.0));
        assert!(h.im == 0.0 && h.im.is_sign_negative() && h.re == f32::INFINITY);
    }

    #[test]
    fn identities_hold() {
        let z = c128::new(0.7, -1.3);
        let w = c128::new(-2.1, 0.4);
        assert!(close(mul(div(z, w), w), z));
        assert!(close(mul(sqrt(z), sqrt(z)), z));
        assert!(close(exp(log(z)), z));
        assert!(close(pow(z, c128::new(3.0, 0.0)), mul(z, mul(z, z))));
        // sin^2 + cos^2 = 1
        let (s, c) = (sin(z), cos(z));
        assert!(close(add(mul(s, s), mul(c, c)), c128::new(1.0, 0.0)));
        assert!(close(tan(z), div(s, c)));
        assert!((abs(c128::new(3.0, 4.0)) - 5.0).abs() < 1e-15);
        assert_eq!(sqrt(c128::new(-4.0, 0.0)), c128::new(0.0, 2.0));
        assert!(close(sin(asin(z)), z));
        assert!(close(cos(acos(z)), z));
        assert!(close(tan(atan(z)), z));
        assert!(close(tanh(atanh(z)), z));
        assert!(close(sinh(asinh(w)), w));
        assert!(close(cosh(acosh(z)), z));
    }
}
