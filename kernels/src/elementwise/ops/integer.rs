//! Integer number theory and bit counts: `gcd`, `lcm`, `bitwise_count`. NumPy's results
//! for signed types are of the absolute values, wrapping where that overflows.

use super::op::{binary, ops, unary};

ops!(Gcd, Lcm, BitwiseCount);

/// Euclid's algorithm; the loop runs at most ~1.44 log2(max) + 2 rounds (the Fibonacci
/// worst case), 92 for 64-bit operands.
macro_rules! gcd_lcm_unsigned {
    ($($t:ty),*) => { $(
        binary!(Gcd, Self, [$t], |a, b| {
            let (mut x, mut y) = (a, b);
            while y != 0 {
                let r = x % y;
                x = y;
                y = r;
            }
            x
        });
        binary!(Lcm, Self, [$t], |a, b| {
            let g = <Gcd as super::op::BinaryOp<$t>>::apply(a, b);
            if g == 0 { 0 } else { (a / g).wrapping_mul(b) }
        });
    )* };
}
gcd_lcm_unsigned!(u8, u16, u32, u64);

/// Signed types as npymath's `npy_gcd`/`npy_lcm`: the unsigned loops on |a| and |b|, the
/// result's bits read back as signed (so an overflowing lcm can come out negative, and
/// gcd(-128, 0) is -128 in int8, as NumPy gives).
macro_rules! gcd_lcm_signed {
    ($($t:ty => $u:ty),*) => { $(
        binary!(Gcd, Self, [$t], |a, b| {
            <Gcd as super::op::BinaryOp<$u>>::apply(a.unsigned_abs(), b.unsigned_abs()) as $t
        });
        binary!(Lcm, Self, [$t], |a, b| {
            <Lcm as super::op::BinaryOp<$u>>::apply(a.unsigned_abs(), b.unsigned_abs()) as $t
        });
    )* };
}
gcd_lcm_signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64);

unary!(BitwiseCount, u8, [u8, u16, u32, u64], |a| a.count_ones()
    as u8);
unary!(
    BitwiseCount,
    u8,
    [i8, i16, i32, i64],
    |a| a.unsigned_abs().count_ones() as u8
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elementwise::ops::op::{bin, un};

    #[test]
    fn as_numpy() {
        assert_eq!(bin::<Gcd, i32>(-12, 18), 6);
        assert_eq!(bin::<Gcd, i8>(-128, 0), -128);
        assert_eq!(bin::<Gcd, u64>(0, 0), 0);
        assert_eq!(bin::<Gcd, u64>(u64::MAX, 3), 3);
        assert_eq!(bin::<Lcm, i64>(-4, 6), 12);
        assert_eq!(bin::<Lcm, i8>(-128, 3), -128);
        assert_eq!(bin::<Lcm, u8>(0, 7), 0);
        // Overflow wraps in the unsigned product: NumPy's int32 lcm of these is negative.
        assert_eq!(
            bin::<Lcm, i32>(-65536, 40000),
            (65536u32.wrapping_mul(625)) as i32
        );
        assert!(bin::<Lcm, i32>(i32::MAX, i32::MAX - 1) < 0);
        assert_eq!(un::<BitwiseCount, i8>(-128), 1);
        assert_eq!(un::<BitwiseCount, i16>(-1), 1);
        assert_eq!(un::<BitwiseCount, u64>(u64::MAX), 64);
    }
}
