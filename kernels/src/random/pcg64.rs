//! NumPy's PCG64 (O'Neill's PCG XSL RR 128/64): a 128-bit LCG whose state is mixed into
//! each 64-bit output. NumPy steps first and outputs from the new state, so output `j`
//! (from 0) is `output(state after j + 1 steps)`.
//!
//! An LCG jumps: `delta` steps are one affine map `s -> s * a + c`, found in O(log delta)
//! squarings ([`jump`]), so every GPU thread starts at its own output and then strides
//! over the grid with another affine map; the bits come out exactly as NumPy's, in any
//! launch shape. u128 arithmetic is spelled out on two u64 halves ([`U128`]) since the
//! NVPTX backend has no 128-bit multiply.

/// A 128-bit unsigned integer as two halves, wrapping arithmetic.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct U128 {
    pub lo: u64,
    pub hi: u64,
}

/// The high 64 bits of the 128-bit product.
#[inline(always)]
fn mul_hi(a: u64, b: u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: u64;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!("mul.hi.u64 {r}, {a}, {b};", r = out(reg64) r, a = in(reg64) a, b = in(reg64) b,
                options(pure, nomem, nostack))
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        ((a as u128 * b as u128) >> 64) as u64
    }
}

impl U128 {
    pub const ONE: U128 = U128 { lo: 1, hi: 0 };
    pub const ZERO: U128 = U128 { lo: 0, hi: 0 };

    pub const fn new(hi: u64, lo: u64) -> U128 {
        U128 { lo, hi }
    }

    /// `self * o` modulo 2^128. (Not `std::ops::Mul`: this wraps by design, where the
    /// integer operators check overflow in debug builds.)
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn mul(self, o: U128) -> U128 {
        let lo = self.lo.wrapping_mul(o.lo);
        let hi = mul_hi(self.lo, o.lo)
            .wrapping_add(self.lo.wrapping_mul(o.hi))
            .wrapping_add(self.hi.wrapping_mul(o.lo));
        U128 { lo, hi }
    }

    /// `self + o` modulo 2^128 (wrapping, as `mul`).
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn add(self, o: U128) -> U128 {
        let lo = self.lo.wrapping_add(o.lo);
        let carry = (lo < self.lo) as u64;
        U128 {
            lo,
            hi: self.hi.wrapping_add(o.hi).wrapping_add(carry),
        }
    }
}

/// PCG's default 128-bit multiplier (NumPy's `PCG_DEFAULT_MULTIPLIER_128`).
pub const MULTIPLIER: U128 = U128::new(0x2360_ED05_1FC6_5DA4, 0x4385_DF64_9FCC_F645);

/// One step of the LCG.
#[inline(always)]
pub fn step(state: U128, inc: U128) -> U128 {
    state.mul(MULTIPLIER).add(inc)
}

/// The XSL RR output of a state: the halves xored, rotated right by the top 6 bits.
#[inline(always)]
pub fn output(state: U128) -> u64 {
    (state.hi ^ state.lo).rotate_right((state.hi >> 58) as u32)
}

/// The affine map `(a, c)` of `delta` steps: after `delta` steps `state * a + c`
/// (Brown's algorithm, as PCG's `pcg_advance_lcg_128`).
#[inline(always)]
pub fn jump(inc: U128, mut delta: u64) -> (U128, U128) {
    let (mut acc_mult, mut acc_plus) = (U128::ONE, U128::ZERO);
    let (mut cur_mult, mut cur_plus) = (MULTIPLIER, inc);
    while delta > 0 {
        if delta & 1 != 0 {
            acc_mult = acc_mult.mul(cur_mult);
            acc_plus = acc_plus.mul(cur_mult).add(cur_plus);
        }
        cur_plus = cur_mult.add(U128::ONE).mul(cur_plus);
        cur_mult = cur_mult.mul(cur_mult);
        delta >>= 1;
    }
    (acc_mult, acc_plus)
}

/// NumPy's `next_double`: the top 53 bits of an output, times 2^-53: [0, 1).
#[inline(always)]
pub fn to_f64(x: u64) -> f64 {
    (x >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// NumPy's `next_float`: the top 24 bits of a 32-bit word, times 2^-24: [0, 1).
/// NumPy's PCG64 hands out the low half of an output first, then its high half.
#[inline(always)]
pub fn to_f32(x: u32) -> f32 {
    (x >> 8) as f32 * (1.0 / 16_777_216.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(x: U128) -> u128 {
        (x.hi as u128) << 64 | x.lo as u128
    }
    fn split(x: u128) -> U128 {
        U128::new((x >> 64) as u64, x as u64)
    }

    #[test]
    fn halves_multiply_and_add_as_u128() {
        let vals = [
            0u128,
            1,
            u64::MAX as u128,
            u128::MAX,
            0x1234_5678_9abc_def0_0fed_cba9_8765_4321,
            wide(MULTIPLIER),
        ];
        for &a in &vals {
            for &b in &vals {
                assert_eq!(wide(split(a).mul(split(b))), a.wrapping_mul(b));
                assert_eq!(wide(split(a).add(split(b))), a.wrapping_add(b));
            }
        }
    }

    #[test]
    fn jump_equals_stepping() {
        let inc = split(0xdead_beef_0123_4567_89ab_cdef_5555_aaab);
        let s0 = split(0x0bad_cafe_1111_2222_3333_4444_5555_6666);
        let mut s = s0;
        for delta in 0..300u64 {
            let (a, c) = jump(inc, delta);
            assert_eq!(s0.mul(a).add(c), s, "delta {delta}");
            s = step(s, inc);
        }
        // Composition: jump(x + y) == jump(y) after jump(x), for large x.
        let (a1, c1) = jump(inc, 1 << 40);
        let (a2, c2) = jump(inc, 12345);
        let (a3, c3) = jump(inc, (1 << 40) + 12345);
        assert_eq!(s0.mul(a1).add(c1).mul(a2).add(c2), s0.mul(a3).add(c3));
    }
}
