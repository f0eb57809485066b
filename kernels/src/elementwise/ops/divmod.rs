//! Division-like ops with NumPy's exact rules: floor division and Python-style remainder
//! (sign of the divisor), C-style `fmod`, powers, reciprocals and `sign`. Integer
//! division by zero gives 0 where NumPy gives 0 (with a warning NumPy prints and gpupy
//! does not); a GPU kernel cannot trap on data.

use super::complex as cx;
use super::float::{Float, Float2};
use super::op::{binary, ops, unary};
use crate::dtype::{c64, c128};

ops!(
    FloorDivide,
    Remainder,
    Fmod,
    Power,
    FloatPower,
    Reciprocal,
    Sign
);

macro_rules! signed_divmod {
    ($($t:ty),*) => { $(
        impl super::op::BinaryOp<$t> for FloorDivide {
            type Out = $t;
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t {
                if b == 0 {
                    return 0;
                }
                if b == -1 {
                    return a.wrapping_neg(); // MIN // -1 wraps to MIN, as NumPy
                }
                let q = a / b;
                if (a % b != 0) && ((a < 0) != (b < 0)) { q - 1 } else { q }
            }
        }
        impl super::op::BinaryOp<$t> for Remainder {
            type Out = $t;
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t {
                if b == 0 || b == -1 {
                    return 0;
                }
                let r = a % b;
                if r != 0 && ((r < 0) != (b < 0)) { r + b } else { r }
            }
        }
        impl super::op::BinaryOp<$t> for Fmod {
            type Out = $t;
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t {
                if b == 0 || b == -1 { 0 } else { a % b }
            }
        }
    )* };
}
signed_divmod!(i8, i16, i32, i64);

binary!(FloorDivide, Self, [u8, u16, u32, u64], |a, b| a
    .checked_div(b)
    .unwrap_or(0));
binary!(Remainder, Self, [u8, u16, u32, u64], |a, b| if b == 0 {
    0
} else {
    a % b
});
binary!(Fmod, Self, [u8, u16, u32, u64], |a, b| if b == 0 {
    0
} else {
    a % b
});

/// NumPy's `npy_divmod`: (floor quotient, remainder with the divisor's sign).
#[inline(always)]
fn float_divmod<T>(a: T, b: T) -> (T, T)
where
    T: Float + Float2 + Copy + PartialOrd + FloatConsts,
    T: core::ops::Add<Output = T> + core::ops::Sub<Output = T> + core::ops::Div<Output = T>,
{
    let mut m = a.fmod(b);
    if b == T::ZERO {
        return (a / b, m);
    }
    let mut div = (a - m) / b;
    if m != T::ZERO {
        if (b < T::ZERO) != (m < T::ZERO) {
            m = m + b;
            div = div - T::ONE;
        }
    } else {
        m = T::ZERO.copysign(b);
    }
    let q = if div != T::ZERO {
        let f = div.floor();
        if div - f > T::HALF { f + T::ONE } else { f }
    } else {
        T::ZERO.copysign(a / b)
    };
    (q, m)
}

pub trait FloatConsts {
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
}
macro_rules! consts {
    ($($t:ty),*) => { $( impl FloatConsts for $t { const ZERO: $t = 0.0; const ONE: $t = 1.0; const HALF: $t = 0.5; } )* };
}
consts!(f32, f64);

binary!(FloorDivide, Self, [f32, f64], |a, b| float_divmod(a, b).0);
binary!(Remainder, Self, [f32, f64], |a, b| if b == 0.0 {
    a.fmod(b)
} else {
    float_divmod(a, b).1
});
binary!(Fmod, Self, [f32, f64], |a, b| a.fmod(b));
// float16 through float32: every half value and quotient is exact there.
binary!(
    FloorDivide,
    Self,
    [f16],
    |a, b| float_divmod(a as f32, b as f32).0 as f16
);
binary!(
    Remainder,
    Self,
    [f16],
    |a, b| <Remainder as super::op::BinaryOp<f32>>::apply(a as f32, b as f32) as f16
);
binary!(Fmod, Self, [f16], |a, b| (a as f32).fmod(b as f32) as f16);

macro_rules! int_power {
    ($($t:ty),*) => { $(
        impl super::op::BinaryOp<$t> for Power {
            type Out = $t;
            /// Binary powering with wrapping products. NumPy refuses negative exponents
            /// for integers (the host checks scalar exponents); here they give 0,
            /// except for bases 1 and -1 whose powers stay exact.
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t {
                #[allow(unused_comparisons)]
                if b < 0 {
                    #[allow(unused_comparisons)]
                    return if a == 1 { 1 } else if a < 0 && a == (0 as $t).wrapping_sub(1) { if b & 1 == 1 { a } else { 1 } } else { 0 };
                }
                let (mut base, mut e, mut acc) = (a, b, 1 as $t);
                while e != 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
        }
    )* };
}
int_power!(i8, i16, i32, i64, u8, u16, u32, u64);
// A square is one product, rounded once: the correctly rounded power, which libdevice's
// `pow` (up to 2 ulp) is not always (19.0 ** 2 came out 361.00000000000006).
binary!(Power, Self, [f32, f64], |a, b| if b == 2.0 {
    a * a
} else {
    a.powf(b)
});
binary!(Power, Self, [f16], |a, b| a.powf(b));
binary!(Power, Self, [c64, c128], |a, b| cx::pow(a, b));
binary!(FloatPower, Self, [f64], |a, b| if b == 2.0 {
    a * a
} else {
    a.powf(b)
});
binary!(FloatPower, Self, [c128], |a, b| cx::pow(a, b));

unary!(
    Reciprocal,
    Self,
    [i8, i16, i32, i64, u8, u16, u32, u64],
    |a| match a {
        0 => 0,
        _ => 1 / a,
    }
);
unary!(Reciprocal, Self, [f16, f32, f64], |a| 1.0 / a);
unary!(Reciprocal, c64, [c64], |a| cx::div(c64::new(1.0, 0.0), a));
unary!(Reciprocal, c128, [c128], |a| cx::div(
    c128::new(1.0, 0.0),
    a
));

unary!(Sign, Self, [i8, i16, i32, i64], |a| a.signum());
unary!(Sign, Self, [u8, u16, u32, u64], |a| (a > 0) as _);
unary!(Sign, Self, [f16, f32, f64], |a| if a > 0.0 {
    1.0
} else if a < 0.0 {
    -1.0
} else if a == 0.0 {
    0.0
} else {
    a
});
// NumPy 2 (npy_csign): z / |z|; 0 (+0.0 in both parts, whatever the zero's signs)
// for 0; with an infinite part, the unit along it (NaN when both are infinite).
unary!(Sign, Self, [c64, c128], |a| {
    let r = cx::abs(a);
    let mut z = a;
    if r == 0.0 {
        z.re = 0.0;
        z.im = 0.0;
    } else if r.is_infinite() {
        let (re_inf, im_inf) = (a.re.is_infinite(), a.im.is_infinite());
        if re_inf && im_inf {
            z.re = r * 0.0; // inf * 0: NaN
            z.im = r * 0.0;
        } else if re_inf {
            z.re = if a.re > 0.0 { 1.0 } else { -1.0 };
            z.im = 0.0;
        } else {
            z.re = 0.0;
            z.im = if a.im > 0.0 { 1.0 } else { -1.0 };
        }
    } else {
        z.re = a.re / r;
        z.im = a.im / r;
    }
    z
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elementwise::ops::op::{bin, un};

    /// Python's own `//` and `%` on the same values.
    #[test]
    fn integer_floor_division_matches_python() {
        for a in -7i32..=7 {
            for b in [-3i32, -2, -1, 1, 2, 3] {
                let q = bin::<FloorDivide, i32>(a, b);
                let r = bin::<Remainder, i32>(a, b);
                assert_eq!(q * b + r, a, "{a} {b}");
                assert!(r == 0 || (r < 0) == (b < 0), "{a} % {b} = {r}");
            }
        }
        assert_eq!(bin::<FloorDivide, i8>(-128, -1), -128);
        assert_eq!(bin::<FloorDivide, i16>(5, 0), 0);
        assert_eq!(bin::<Fmod, i32>(-7, 3), -1);
    }

    #[test]
    fn float_divmod_matches_python() {
        // (a, b, a // b, a % b) as Python computes them.
        let cases = [
            (7.5, 2.0, 3.0, 1.5),
            (-7.5, 2.0, -4.0, 0.5),
            (7.5, -2.0, -4.0, -0.5),
            (1.0, 0.1, 9.0, 0.09999999999999995),
        ];
        for (a, b, q, r) in cases {
            assert_eq!(bin::<FloorDivide, f64>(a, b), q);
            assert_eq!(bin::<Remainder, f64>(a, b), r);
        }
        assert_eq!(bin::<FloorDivide, f64>(1.0, 0.0), f64::INFINITY);
        assert!(bin::<Remainder, f64>(1.0, 0.0).is_nan());
        assert_eq!(bin::<Remainder, f64>(-0.0, 2.0).to_bits(), 0.0f64.to_bits());
    }

    #[test]
    fn powers_and_signs() {
        assert_eq!(bin::<Power, i32>(3, 5), 243);
        assert_eq!(bin::<Power, u8>(2, 9), 0);
        assert_eq!(bin::<Power, i64>(-1, -3), -1);
        // Squares are products: exact where the product is, and -0, inf, NaN as pow.
        for x in [19.0f64, -3.5, 1e200, -0.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                bin::<Power, f64>(x, 2.0).to_bits(),
                x.powf(2.0).to_bits(),
                "{x}"
            );
            assert_eq!(
                bin::<FloatPower, f64>(x, 2.0).to_bits(),
                x.powf(2.0).to_bits()
            );
        }
        assert!(bin::<Power, f32>(f32::NAN, 2.0).is_nan());
        assert_eq!(bin::<Power, f32>(19.0, 2.0), 361.0);
        let z = un::<Sign, c64>(c64::new(-0.0, -0.0));
        assert!(
            z.re.to_bits() == 0 && z.im.to_bits() == 0,
            "sign(-0-0j) is +0+0j"
        );
        // NumPy's values for infinite parts (checked against numpy.sign).
        let inf = f64::INFINITY;
        let cases = [
            ((-0.0, inf), (0.0f64, 1.0f64)),
            ((-inf, 2.0), (-1.0, 0.0)),
            ((3.0, -inf), (0.0, -1.0)),
            ((inf, f64::NAN), (1.0, 0.0)),
            ((f64::NAN, inf), (0.0, 1.0)),
        ];
        for ((re, im), (wre, wim)) in cases {
            let z = un::<Sign, c128>(c128::new(re, im));
            let got = (z.re.to_bits(), z.im.to_bits());
            assert_eq!(got, (wre.to_bits(), wim.to_bits()), "sign({re}, {im})");
        }
        let z = un::<Sign, c128>(c128::new(inf, -inf));
        assert!(z.re.is_nan() && z.im.is_nan());
        assert_eq!(un::<Sign, i8>(-5), -1);
        assert_eq!(un::<Sign, u16>(9), 1);
        assert!(un::<Sign, f32>(f32::NAN).is_nan());
        assert_eq!(un::<Reciprocal, i32>(2), 0);
        assert_eq!(un::<Reciprocal, i32>(-1), -1);
    }
}
