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
    fn complex_functions() {
        let z = c128::new(0.3, -0.8);
        let l = un::<Log, c128>(un::<Exp, c128>(z));
        assert!((l.re - z.re).abs() < 1e-15 && (l.im - z.im).abs() < 1e-15);
        let e = un::<Exp2, c128>(c128::new(3.0, 0.0));
        assert!((e.re - 8.0).abs() < 1e-13 && e.im == 0.0);
    }
}
