//! Transcendental and rounding functions. Real types call libdevice through `Float`
//! (float16 through float32); complex types use the formulas in `complex.rs`.

use super::complex as cx;
use super::float::{Float, Float2};
use super::op::{binary, ops, unary};
use crate::dtype::{c64, c128};

ops!(Sqrt, Cbrt, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p);
ops!(
    Sin, Cos, Tan, Arcsin, Arccos, Arctan, Sinh, Cosh, Tanh, Arcsinh, Arccosh, Arctanh
);
ops!(
    Floor, Ceil, Trunc, Rint, Deg2rad, Rad2deg, Arctan2, Hypot, Copysign, Nextafter
);
ops!(Fabs, Spacing, Logaddexp, Logaddexp2, Heaviside);

macro_rules! real_fn {
    ($($op:ident => $f:ident),* $(,)?) => { $( unary!($op, Self, [f16, f32, f64], |a| Float::$f(a)); )* };
}
real_fn! {
    Sqrt => sqrt, Cbrt => cbrt, Exp => exp, Exp2 => exp2, Expm1 => exp_m1, Log => ln,
    Log2 => log2, Log10 => log10, Log1p => ln_1p, Sin => sin, Cos => cos, Tan => tan,
    Arcsin => asin, Arccos => acos, Arctan => atan, Sinh => sinh, Cosh => cosh, Tanh => tanh,
    Arcsinh => asinh, Arccosh => acosh, Arctanh => atanh, Floor => floor, Ceil => ceil,
    Trunc => trunc, Rint => round_ties_even,
}

// Rounding an integer or bool is the identity (NumPy 2 keeps the dtype).
unary!(
    Floor,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a| a
);
unary!(
    Ceil,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a| a
);
unary!(
    Trunc,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a| a
);

unary!(Rint, Self, [c64, c128], |a| {
    let mut z = a;
    z.re = a.re.round_ties_even();
    z.im = a.im.round_ties_even();
    z
});
unary!(Sqrt, Self, [c64, c128], |a| cx::sqrt(a));
unary!(Exp, Self, [c64, c128], |a| cx::exp(a));
unary!(Log, Self, [c64, c128], |a| cx::log(a));
unary!(Sin, Self, [c64, c128], |a| cx::sin(a));
unary!(Cos, Self, [c64, c128], |a| cx::cos(a));
unary!(Tan, Self, [c64, c128], |a| cx::tan(a));
unary!(Sinh, Self, [c64, c128], |a| cx::sinh(a));
unary!(Cosh, Self, [c64, c128], |a| cx::cosh(a));
unary!(Tanh, Self, [c64, c128], |a| cx::tanh(a));
unary!(Arcsin, Self, [c64, c128], |a| cx::asin(a));
unary!(Arccos, Self, [c64, c128], |a| cx::acos(a));
unary!(Arctan, Self, [c64, c128], |a| cx::atan(a));
unary!(Arcsinh, Self, [c64, c128], |a| cx::asinh(a));
unary!(Arccosh, Self, [c64, c128], |a| cx::acosh(a));
unary!(Arctanh, Self, [c64, c128], |a| cx::atanh(a));
// 2^z = exp(z ln 2); expm1 and log1p through exp/log (NumPy's own complex fallbacks).
unary!(Exp2, Self, [c64], |a| cx::exp(cx::mul(
    a,
    c64::new(core::f32::consts::LN_2, 0.0)
)));
unary!(Exp2, Self, [c128], |a| cx::exp(cx::mul(
    a,
    c128::new(core::f64::consts::LN_2, 0.0)
)));
unary!(Expm1, Self, [c64, c128], |a| {
    let e = cx::exp(a);
    let mut z = e;
    z.re = e.re - 1.0;
    z
});
unary!(Log1p, Self, [c64, c128], |a| {
    let mut z = a;
    z.re = a.re + 1.0;
    cx::log(z)
});
unary!(Log2, Self, [c64], |a| cx::div(
    cx::log(a),
    c64::new(core::f32::consts::LN_2, 0.0)
));
unary!(Log2, Self, [c128], |a| cx::div(
    cx::log(a),
    c128::new(core::f64::consts::LN_2, 0.0)
));
unary!(Log10, Self, [c64], |a| cx::div(
    cx::log(a),
    c64::new(core::f32::consts::LN_10, 0.0)
));
unary!(Log10, Self, [c128], |a| cx::div(
    cx::log(a),
    c128::new(core::f64::consts::LN_10, 0.0)
));

unary!(
    Deg2rad,
    Self,
    [f16],
    |a| ((a as f32) * (core::f32::consts::PI / 180.0)) as f16
);
unary!(Deg2rad, Self, [f32], |a| a
    * (core::f32::consts::PI / 180.0));
unary!(Deg2rad, Self, [f64], |a| a
    * (core::f64::consts::PI / 180.0));
unary!(
    Rad2deg,
    Self,
    [f16],
    |a| ((a as f32) * (180.0 / core::f32::consts::PI)) as f16
);
unary!(Rad2deg, Self, [f32], |a| a
    * (180.0 / core::f32::consts::PI));
unary!(Rad2deg, Self, [f64], |a| a
    * (180.0 / core::f64::consts::PI));

binary!(Arctan2, Self, [f16, f32, f64], |a, b| Float2::atan2(a, b));
binary!(Hypot, Self, [f16, f32, f64], |a, b| Float2::hypot(a, b));
binary!(Copysign, Self, [f16, f32, f64], |a, b| Float2::copysign(
    a, b
));
binary!(Nextafter, Self, [f16, f32, f64], |a, b| Float2::nextafter(
    a, b
));

unary!(Fabs, Self, [f16, f32, f64], |a| a.abs());

/// The gap from `a` to the next float away from zero (toward -inf for negative `a`, so
/// spacing(-0.0) is the smallest positive subnormal, as NumPy's); NaN at infinity.
macro_rules! spacing {
    ($($t:ty),*) => { $(
        unary!(Spacing, Self, [$t], |a| {
            if a.is_infinite() {
                <$t>::NAN
            } else if a < 0.0 {
                Float2::nextafter(a, <$t>::NEG_INFINITY) - a
            } else {
                Float2::nextafter(a, <$t>::INFINITY) - a
            }
        });
    )* };
}
spacing!(f32, f64);
// float16 as NumPy's `npy_half_spacing`, which differs from its float32/float64 loops: the
// result is always positive, a negative power of two gets the gap toward zero, and the
// largest finite half overflows to +inf (only the positive one).
unary!(Spacing, Self, [f16], |h| {
    let b = h.to_bits();
    let (e, sig) = (b & 0x7c00, b & 0x03ff);
    let r: u16 = if e == 0x7c00 {
        0x7e00
    } else if b == 0x7bff {
        0x7c00
    } else if b & 0x8000 != 0 && sig == 0 {
        if e > 0x2c00 {
            e - 0x2c00
        } else if e > 0x0400 {
            1 << ((e >> 10) - 2)
        } else {
            1
        }
    } else if e > 0x2800 {
        e - 0x2800
    } else if e > 0x0400 {
        1 << ((e >> 10) - 1)
    } else {
        1
    };
    f16::from_bits(r)
});

/// log(e^a + e^b) and log2(2^a + 2^b) without overflow, as npymath's `npy_logaddexp`:
/// equal arguments (infinities included) give a + log(2); otherwise the larger plus
/// log1p(exp(-|a - b|)); a NaN difference is the result. float16 computes in float32.
macro_rules! log_add {
    ($t:ty, $ln2:expr, $log2e:expr) => {
        binary!(Logaddexp, Self, [$t], |a, b| {
            let d = a - b;
            if a == b {
                a + $ln2
            } else if d > 0.0 {
                a + (-d).exp().ln_1p()
            } else if d <= 0.0 {
                b + d.exp().ln_1p()
            } else {
                d
            }
        });
        binary!(Logaddexp2, Self, [$t], |a, b| {
            let d = a - b;
            if a == b {
                a + 1.0
            } else if d > 0.0 {
                a + (-d).exp2().ln_1p() * $log2e
            } else if d <= 0.0 {
                b + d.exp2().ln_1p() * $log2e
            } else {
                d
            }
        });
    };
}
log_add!(f32, core::f32::consts::LN_2, core::f32::consts::LOG2_E);
log_add!(f64, core::f64::consts::LN_2, core::f64::consts::LOG2_E);
binary!(Logaddexp, Self, [f16], |a, b| {
    <Logaddexp as super::op::BinaryOp<f32>>::apply(a as f32, b as f32) as f16
});
binary!(Logaddexp2, Self, [f16], |a, b| {
    <Logaddexp2 as super::op::BinaryOp<f32>>::apply(a as f32, b as f32) as f16
});

// Heaviside step: 0 below zero, `h0` at zero, 1 above; NaN stays NaN.
binary!(Heaviside, Self, [f16, f32, f64], |x, h0| {
    if x < 0.0 {
        0.0
    } else if x == 0.0 {
        h0
    } else if x > 0.0 {
        1.0
    } else {
        x
    }
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elementwise::ops::op::{bin, un};

    #[test]
    fn real_and_half_functions() {
        assert_eq!(un::<Rint, f64>(2.5), 2.0);
        assert_eq!(un::<Rint, f32>(-3.5), -4.0);
        assert_eq!(un::<Floor, i32>(-7), -7);
        assert_eq!(un::<Sqrt, f16>(4.0), 2.0);
        assert_eq!(bin::<Nextafter, f16>(1.0, 2.0), f16::from_bits(0x3c01));
        assert_eq!(bin::<Copysign, f16>(3.0, -0.0), -3.0);
        assert!((un::<Deg2rad, f64>(180.0) - core::f64::consts::PI).abs() < 1e-15);
        assert_eq!(bin::<Arctan2, f64>(1.0, 1.0), core::f64::consts::FRAC_PI_4);
    }

    #[test]
    fn numpy_extras() {
        assert_eq!(un::<Spacing, f32>(-0.0), f32::from_bits(1));
        assert_eq!(un::<Spacing, f64>(-1.0), -f64::EPSILON);
        assert_eq!(un::<Spacing, f16>(1.0), f16::from_bits(0x3c01) - 1.0);
        // NumPy's half loop: -1.0 gets the gap toward zero, positive; -65504 gives 32.
        assert_eq!(un::<Spacing, f16>(-1.0), 1.0 - f16::from_bits(0x3bff));
        assert_eq!(un::<Spacing, f16>(-65504.0), 32.0);
        assert_eq!(un::<Spacing, f16>(65504.0), f16::INFINITY);
        assert_eq!(un::<Spacing, f16>(-3.0), 0.001953125);
        assert!(un::<Spacing, f64>(f64::INFINITY).is_nan());
        assert_eq!(
            bin::<Logaddexp, f64>(f64::INFINITY, f64::INFINITY),
            f64::INFINITY
        );
        let neg = f64::NEG_INFINITY;
        assert_eq!(bin::<Logaddexp, f64>(neg, neg), neg);
        assert_eq!(
            bin::<Logaddexp, f64>(1000.0, 1000.0),
            1000.0 + core::f64::consts::LN_2
        );
        assert!((bin::<Logaddexp, f64>(1.0, 2.0) - (1f64.exp() + 2f64.exp()).ln()).abs() < 1e-15);
        assert!((bin::<Logaddexp2, f64>(3.0, 1.0) - 10f64.log2()).abs() < 1e-15);
        assert!(bin::<Logaddexp, f32>(f32::NAN, 1.0).is_nan());
        assert_eq!(bin::<Heaviside, f64>(-0.0, 0.5), 0.5);
        assert_eq!(bin::<Heaviside, f64>(2.0, f64::NAN), 1.0);
        assert!(bin::<Heaviside, f32>(f32::NAN, 0.5).is_nan());
        assert_eq!(un::<Fabs, f16>(-2.0), 2.0);
    }

    #[test]
    fn complex_functions() {
        let z = c128::new(0.3, -0.8);
        let l = un::<Log, c128>(un::<Exp, c128>(z));
        assert!((l.re - z.re).abs() < 1e-15 && (l.im - z.im).abs() < 1e-15);
        let e = un::<Exp2, c128>(c128::new(3.0, 0.0));
        assert!((e.re - 8.0).abs() < 1e-13 && e.im == 0.0);
    }
}
