//! The arithmetic of the recursive filters, one trait over their four compute types
//! (float32, float64, complex64, complex128), for the CPU tests and the GPU alike.
//!
//! Every product-and-sum is a fused multiply-add (`fma.rn` on the GPU, `mul_add` from
//! std on the CPU, which rounds the same way), so the CPU meaning and the GPU kernels
//! compute the same bits. A complex product-and-sum is two FMAs per part, as the
//! matrix products do (`matmul/gpu/simt.rs`).

use crate::dtype::{c64, c128};
use crate::fused::{fma32, fma64};

/// A sample, coefficient or state of a recursive filter.
pub trait Sample: Copy + PartialEq + core::fmt::Debug + 'static {
    const ZERO: Self;
    const ONE: Self;
    /// `self * b + c`.
    fn mul_add(self, b: Self, c: Self) -> Self;
    fn add(self, o: Self) -> Self;
    /// `self * b`.
    fn mul(self, b: Self) -> Self;
    /// A complex128 value rounded to this type (a real type takes the real part: the host
    /// only gives real types real values).
    fn from_c128(v: c128) -> Self;
    fn to_c128(self) -> c128;
}

macro_rules! real_sample {
    ($t:ident, $fma:path) => {
        impl Sample for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            #[inline(always)]
            fn mul_add(self, b: $t, c: $t) -> $t {
                $fma(self, b, c)
            }
            #[inline(always)]
            fn add(self, o: $t) -> $t {
                self + o
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                self * b
            }
            #[inline(always)]
            fn from_c128(v: c128) -> $t {
                v.re as $t
            }
            #[inline(always)]
            fn to_c128(self) -> c128 {
                c128::new(self as f64, 0.0)
            }
        }
    };
}
real_sample!(f32, fma32);
real_sample!(f64, fma64);

macro_rules! complex_sample {
    ($t:ident, $r:ident, $fma:path) => {
        impl Sample for $t {
            const ZERO: $t = $t::new(0.0, 0.0);
            const ONE: $t = $t::new(1.0, 0.0);
            #[inline(always)]
            fn mul_add(self, b: $t, c: $t) -> $t {
                // (a.re + i a.im)(b.re + i b.im) + c, each part two FMAs.
                let re = $fma(self.re, b.re, $fma(-self.im, b.im, c.re));
                let im = $fma(self.re, b.im, $fma(self.im, b.re, c.im));
                $t::new(re, im)
            }
            #[inline(always)]
            fn add(self, o: $t) -> $t {
                $t::new(self.re + o.re, self.im + o.im)
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                let re = $fma(self.re, b.re, -(self.im * b.im));
                let im = $fma(self.re, b.im, self.im * b.re);
                $t::new(re, im)
            }
            #[inline(always)]
            fn from_c128(v: c128) -> $t {
                $t::new(v.re as $r, v.im as $r)
            }
            #[inline(always)]
            fn to_c128(self) -> c128 {
                c128::new(self.re as f64, self.im as f64)
            }
        }
    };
}
complex_sample!(c64, f32, fma32);
complex_sample!(c128, f64, fma64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_round_once_per_part() {
        // 1 + 2^-30 squared less 1: an FMA keeps the 2^-60 term a product and sum lose.
        let a = 1.0 + 2f64.powi(-30);
        assert_eq!(a.mul_add(a, -1.0), 2f64.powi(-29) + 2f64.powi(-60));
        let z = c128::new(1.0, 2.0).mul_add(c128::new(3.0, -1.0), c128::new(0.5, 0.25));
        assert_eq!(z, c128::new(5.5, 5.25));
        assert_eq!(
            c64::new(1.0, 2.0).mul(c64::new(3.0, -1.0)),
            c64::new(5.0, 5.0)
        );
        assert_eq!(<f32 as Sample>::from_c128(c128::new(0.1, 0.0)), 0.1f32);
        assert_eq!(
            c64::from_c128(c128::new(0.1, -0.2)).to_c128(),
            c128::new(0.1f32 as f64, -0.2f32 as f64)
        );
    }
}
