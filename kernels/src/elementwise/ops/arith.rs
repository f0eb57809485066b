//! `+ - * /`, negation, absolute value, squares and conjugates. Integers wrap (NumPy's C
//! arithmetic); bool `+` is `or` and `*` is `and`.

use super::complex as cx;
use super::op::{binary, ops, unary};
use crate::dtype::{c64, c128};

ops!(
    Add, Subtract, Multiply, Divide, Negative, Positive, Absolute, Square, Conjugate
);

binary!(Add, Self, [bool], |a, b| a | b);
binary!(Add, Self, [i8, i16, i32, i64, u8, u16, u32, u64], |a, b| a
    .wrapping_add(b));
binary!(Add, Self, [f16, f32, f64], |a, b| a + b);
binary!(Add, Self, [c64, c128], |a, b| cx::add(a, b));

binary!(
    Subtract,
    Self,
    [i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| a.wrapping_sub(b)
);
binary!(Subtract, Self, [f16, f32, f64], |a, b| a - b);
binary!(Subtract, Self, [c64, c128], |a, b| cx::sub(a, b));

binary!(Multiply, Self, [bool], |a, b| a & b);
binary!(
    Multiply,
    Self,
    [i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| a.wrapping_mul(b)
);
binary!(Multiply, Self, [f16, f32, f64], |a, b| a * b);
binary!(Multiply, Self, [c64, c128], |a, b| cx::mul(a, b));

binary!(Divide, Self, [f16, f32, f64], |a, b| a / b);
binary!(Divide, Self, [c64, c128], |a, b| cx::div(a, b));

unary!(
    Negative,
    Self,
    [i8, i16, i32, i64, u8, u16, u32, u64],
    |a| a.wrapping_neg()
);
unary!(Negative, Self, [f16, f32, f64], |a| -a);
unary!(Negative, Self, [c64, c128], |a| cx::neg(a));

unary!(
    Positive,
    Self,
    [
        i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64, c64, c128
    ],
    |a| a
);

unary!(Absolute, Self, [bool, u8, u16, u32, u64], |a| a);
unary!(Absolute, Self, [i8, i16, i32, i64], |a| a.wrapping_abs());
unary!(Absolute, Self, [f16, f32, f64], |a| a.abs());
unary!(Absolute, f32, [c64], |a| cx::abs(a));
unary!(Absolute, f64, [c128], |a| cx::abs(a));

unary!(Square, Self, [i8, i16, i32, i64, u8, u16, u32, u64], |a| a
    .wrapping_mul(a));
unary!(Square, Self, [f16, f32, f64], |a| a * a);
unary!(Square, Self, [c64, c128], |a| cx::mul(a, a));

unary!(
    Conjugate,
    Self,
    [i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64],
    |a| a
);
unary!(Conjugate, Self, [c64, c128], |a| {
    let mut c = a;
    c.im = -c.im;
    c
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elementwise::ops::op::{bin, un};

    #[test]
    fn numpy_integer_and_bool_rules() {
        assert!(bin::<Add, bool>(true, true));
        assert!(!bin::<Multiply, bool>(true, false));
        assert_eq!(bin::<Add, i8>(127, 1), -128);
        assert_eq!(bin::<Subtract, u8>(0, 1), 255);
        assert_eq!(un::<Absolute, i8>(-128), -128);
        assert_eq!(un::<Negative, u8>(1), 255);
        assert_eq!(un::<Absolute, c64>(c64::new(3.0, 4.0)), 5.0);
        assert_eq!(
            un::<Conjugate, c128>(c128::new(1.0, 2.0)),
            c128::new(1.0, -2.0)
        );
    }
}
