//! Complex arithmetic and functions for `c64`/`c128`, written once over the real part's
//! type. Formulas follow NumPy's npymath (Smith's division, hypot for abs, the principal
//! branches of log and sqrt), computed with the libdevice real functions.

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
    C::new(
        x.sinh() * y.cos(),
        zero_times::<C>(y, C::ONE, x.cosh() * y.sin()),
    )
}
#[inline(always)]
pub fn cosh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    C::new(
        x.cosh() * y.cos(),
        zero_times::<C>(y, x, x.sinh() * y.sin()),
    )
}
/// tanh(x+iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), with the large-|x| limit.
#[inline(always)]
pub fn tanh<C: Complex>(a: C) -> C {
    let (x, y) = (a.re(), a.im());
    let two = C::real(2.0);
    if x.abs() > C::real(32.0) {
        // |tanh| saturates; avoids inf/inf.
        return C::new(C::ONE.copysign(x), C::ZERO.copysign((two * y).sin()));
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

/// asinh(z) = log(z + sqrt(z^2 + 1)), computed for Re z >= 0 and mirrored (asinh is
/// odd), which keeps the sum free of cancellation.
#[inline(always)]
pub fn asinh<C: Complex>(a: C) -> C {
    let flip = a.re() < C::ZERO;
    let z = if flip { neg(a) } else { a };
    let r = log(add(z, sqrt(add(mul(z, z), C::new(C::ONE, C::ZERO)))));
    if flip { neg(r) } else { r }
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

/// acosh(z) = log(z + sqrt(z + 1) sqrt(z - 1)) (the principal branch of C99).
#[inline(always)]
pub fn acosh<C: Complex>(a: C) -> C {
    let one = C::new(C::ONE, C::ZERO);
    log(add(a, mul(sqrt(add(a, one)), sqrt(sub(a, one)))))
}

/// atanh(z) = (log(1 + z) - log(1 - z)) / 2.
#[inline(always)]
pub fn atanh<C: Complex>(a: C) -> C {
    let one = C::new(C::ONE, C::ZERO);
    let d = sub(log(add(one, a)), log(sub(one, a)));
    C::new(d.re() * C::real(0.5), d.im() * C::real(0.5))
}

/// atan(z) = -i atanh(iz).
#[inline(always)]
pub fn atan<C: Complex>(a: C) -> C {
    let r = atanh(C::new(-a.im(), a.re()));
    C::new(r.im(), -r.re())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: c128, b: c128) -> bool {
        (a.re - b.re).abs() <= 1e-12 * (1.0 + b.re.abs())
            && (a.im - b.im).abs() <= 1e-12 * (1.0 + b.im.abs())
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
