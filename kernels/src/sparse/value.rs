//! The element types of the sparse kernels: values (`f32`, `f64`, `c64`, `c128`) and
//! indices (`i32`, `i64`), with the arithmetic and the index reads the kernels share with
//! their CPU tests.
//!
//! Index reads never trust the arrays' contents: a row bound is clamped into
//! `0..=nnz`, and a column index outside `0..cols` is reported as such, so a corrupt
//! matrix (indices changed after construction) gives wrong numbers, never an access
//! outside an allocation.

use crate::dtype::{c64, c128};
use crate::fused::{fma32, fma64};
use crate::reduce::reduction::{Ordered, Words};

/// A value type of the sparse kernels: a field with a fused multiply-add.
pub trait Value: Words + Ordered + PartialEq {
    const ZERO: Self;
    const ONE: Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// `acc + a * b`, each real product-sum rounded once (an FMA).
    fn mul_add(a: Self, b: Self, acc: Self) -> Self;
    fn is_zero(self) -> bool;
}

macro_rules! real_value {
    ($($t:ident $fma:ident)*) => { $(
        impl Value for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            #[inline(always)]
            fn add(self, o: $t) -> $t { self + o }
            #[inline(always)]
            fn sub(self, o: $t) -> $t { self - o }
            #[inline(always)]
            fn mul(self, o: $t) -> $t { self * o }
            #[inline(always)]
            fn mul_add(a: $t, b: $t, acc: $t) -> $t { $fma(a, b, acc) }
            #[inline(always)]
            fn is_zero(self) -> bool { self == 0.0 }
        }
    )* };
}
real_value!(f32 fma32 f64 fma64);

macro_rules! complex_value {
    ($($c:ident $r:ident $fma:ident)*) => { $(
        impl Value for $c {
            const ZERO: $c = $c::new(0.0, 0.0);
            const ONE: $c = $c::new(1.0, 0.0);
            #[inline(always)]
            fn add(self, o: $c) -> $c { $c::new(self.re + o.re, self.im + o.im) }
            #[inline(always)]
            fn sub(self, o: $c) -> $c { $c::new(self.re - o.re, self.im - o.im) }
            #[inline(always)]
            fn mul(self, o: $c) -> $c {
                $c::new(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)
            }
            /// Each part as two FMAs: `re = acc.re + a.re b.re - a.im b.im`, `im = acc.im +
            /// a.re b.im + a.im b.re`.
            #[inline(always)]
            fn mul_add(a: $c, b: $c, acc: $c) -> $c {
                let re = $fma(-a.im, b.im, $fma(a.re, b.re, acc.re));
                let im = $fma(a.im, b.re, $fma(a.re, b.im, acc.im));
                $c::new(re, im)
            }
            #[inline(always)]
            fn is_zero(self) -> bool { self.re == 0.0 && self.im == 0.0 }
        }
    )* };
}
complex_value!(c64 f32 fma32 c128 f64 fma64);

/// An index type of the sparse kernels (`indptr` and `indices` share it).
pub trait Index: Words + PartialOrd {
    /// A row bound read from `indptr`: negative values read as 0.
    fn bound(self) -> u64;
    /// A column index: `None` when outside `0..cols`.
    fn column(self, cols: u64) -> Option<u64>;
    /// The index of position `v` (`v` fits: the host checks the extents fit the type).
    fn from_u64(v: u64) -> Self;
    /// The value as it is.
    fn raw(self) -> i64;
}

macro_rules! index_type {
    ($($t:ident)*) => { $(
        impl Index for $t {
            #[inline(always)]
            fn bound(self) -> u64 { if self < 0 { 0 } else { self as u64 } }
            #[inline(always)]
            fn column(self, cols: u64) -> Option<u64> {
                if self >= 0 && (self as u64) < cols { Some(self as u64) } else { None }
            }
            #[inline(always)]
            fn from_u64(v: u64) -> $t { v as $t }
            #[inline(always)]
            fn raw(self) -> i64 { self as i64 }
        }
    )* };
}
index_type!(i32 i64);

/// The entries `start..end` of row `r` of a compressed matrix with `nnz` entries, clamped
/// so that `start <= end <= nnz` whatever `indptr` holds.
///
/// # Safety
/// `indptr` holds at least `r + 2` values.
#[inline(always)]
pub unsafe fn row_range<I: Index>(indptr: *const I, r: u64, nnz: u64) -> (u64, u64) {
    // SAFETY: per the contract.
    let (s, e) = unsafe {
        (
            (*indptr.add(r as usize)).bound(),
            (*indptr.add(r as usize + 1)).bound(),
        )
    };
    let e = if e < nnz { e } else { nnz };
    (if s < e { s } else { e }, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_mul_add_is_the_complex_product() {
        let (a, b, c) = (
            c128::new(1.5, -2.0),
            c128::new(0.25, 3.0),
            c128::new(-1.0, 0.5),
        );
        let want = c.add(a.mul(b));
        let got = c128::mul_add(a, b, c);
        assert_eq!(got, want); // exact: every product here is exact in float64
        assert_eq!(
            c64::mul_add(c64::new(2.0, 1.0), c64::ONE, c64::ZERO),
            c64::new(2.0, 1.0)
        );
    }

    #[test]
    fn index_reads_are_clamped() {
        assert_eq!((-3i32).bound(), 0);
        assert_eq!(7i64.bound(), 7);
        assert_eq!((-1i32).column(5), None);
        assert_eq!(5i64.column(5), None);
        assert_eq!(4i32.column(5), Some(4));
        let indptr = [0i32, 3, 2, 9, -1];
        // SAFETY: each r + 2 <= len.
        unsafe {
            assert_eq!(row_range(indptr.as_ptr(), 0, 8), (0, 3));
            assert_eq!(row_range(indptr.as_ptr(), 1, 8), (2, 2)); // decreasing: empty
            assert_eq!(row_range(indptr.as_ptr(), 2, 8), (2, 8)); // past nnz: clamped
            assert_eq!(row_range(indptr.as_ptr(), 3, 8), (0, 0));
        }
    }
}
