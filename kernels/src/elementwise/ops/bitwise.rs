//! Bitwise ops and shifts. NumPy's shifts: a left shift by the bit width or more gives 0;
//! a right shift that far gives 0, or -1 for negative signed values; negative shift
//! counts behave like over-wide ones.

use super::op::{binary, ops, unary};

ops!(
    BitwiseAnd, BitwiseOr, BitwiseXor, Invert, LeftShift, RightShift
);

binary!(
    BitwiseAnd,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| a & b
);
binary!(
    BitwiseOr,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| a | b
);
binary!(
    BitwiseXor,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a, b| a ^ b
);
unary!(
    Invert,
    Self,
    [bool, i8, i16, i32, i64, u8, u16, u32, u64],
    |a| !a
);

macro_rules! shifts {
    ($($t:ty),*) => { $(
        impl super::op::BinaryOp<$t> for LeftShift {
            type Out = $t;
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t {
                #[allow(unused_comparisons)]
                let wide = b < 0 || b as u64 >= <$t>::BITS as u64;
                if wide { 0 } else { a << b }
            }
        }
        impl super::op::BinaryOp<$t> for RightShift {
            type Out = $t;
            #[inline(always)]
            fn apply(a: $t, b: $t) -> $t {
                #[allow(unused_comparisons)]
                let wide = b < 0 || b as u64 >= <$t>::BITS as u64;
                #[allow(unused_comparisons)]
                if wide { if a < 0 { !0 } else { 0 } } else { a >> b }
            }
        }
    )* };
}
shifts!(i8, i16, i32, i64, u8, u16, u32, u64);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elementwise::ops::op::{bin, un};

    #[test]
    fn shifts_saturate_like_numpy() {
        assert_eq!(bin::<LeftShift, i8>(1, 7), -128);
        assert_eq!(bin::<LeftShift, u16>(1, 16), 0);
        assert_eq!(bin::<RightShift, i32>(-8, 40), -1);
        assert_eq!(bin::<RightShift, i32>(-8, 1), -4);
        assert_eq!(bin::<LeftShift, i64>(3, -1), 0);
        assert!(!un::<Invert, bool>(true));
        assert_eq!(un::<Invert, u8>(0), 255);
    }
}
