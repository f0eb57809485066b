//! `c64` and `c128`: NumPy's complex64 and complex128, laid out as NumPy stores them
//! (`#[repr(C)]`, real part then imaginary part), so a `*const c64` kernel argument reads
//! a complex64 array directly and a `c128` kernel parameter receives a Python `complex`.
//!
//! Arithmetic follows NumPy's npymath, as gpupy's own complex kernels do: Smith's
//! division (no overflow in `|b|^2`), `abs` through `hypot`, principal branches.
//! `norm` is the squared magnitude, as C++'s `std::norm` and CuPy's `thrust::norm`.

use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use crate::math::Float;

macro_rules! complex_type {
    ($(#[$doc:meta])* $c:ident, $r:ty) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $c {
            pub re: $r,
            pub im: $r,
        }

        impl $c {
            pub const ZERO: $c = $c::new(0.0, 0.0);
            pub const ONE: $c = $c::new(1.0, 0.0);
            /// The imaginary unit.
            pub const I: $c = $c::new(0.0, 1.0);

            #[inline(always)]
            pub const fn new(re: $r, im: $r) -> $c {
                $c { re, im }
            }
            /// `r * (cos theta + i sin theta)`.
            #[inline(always)]
            pub fn from_polar(r: $r, theta: $r) -> $c {
                $c::new(r * theta.cos(), r * theta.sin())
            }
            /// The complex conjugate `re - i im`.
            #[inline(always)]
            pub fn conj(self) -> $c {
                $c::new(self.re, -self.im)
            }
            /// The magnitude `|z|` (`hypot`, so no overflow for large parts).
            #[inline(always)]
            pub fn abs(self) -> $r {
                Float::hypot(self.re, self.im)
            }
            /// The squared magnitude `re^2 + im^2` (C++'s `std::norm`).
            #[inline(always)]
            pub fn norm(self) -> $r {
                self.re * self.re + self.im * self.im
            }
            /// The argument (phase angle) in `(-pi, pi]`.
            #[inline(always)]
            pub fn arg(self) -> $r {
                Float::atan2(self.im, self.re)
            }
            /// `e^z`.
            #[inline(always)]
            pub fn exp(self) -> $c {
                if self.im == 0.0 {
                    // exact for real arguments, and no inf * 0 = NaN for large re
                    return $c::new(Float::exp(self.re), self.im);
                }
                let e = Float::exp(self.re);
                $c::new(e * Float::cos(self.im), e * Float::sin(self.im))
            }
            /// Natural logarithm, principal branch.
            #[inline(always)]
            pub fn ln(self) -> $c {
                $c::new(Float::ln(self.abs()), self.arg())
            }
            /// Principal square root (Kahan's formulation, as NumPy's npymath).
            #[inline(always)]
            pub fn sqrt(self) -> $c {
                let (x, y) = (self.re, self.im);
                if x == 0.0 && y == 0.0 {
                    return $c::new(0.0, y);
                }
                let t = Float::sqrt((Float::abs(x) + self.abs()) * 0.5);
                if x >= 0.0 {
                    $c::new(t, y / (2.0 * t))
                } else {
                    $c::new(Float::abs(y) / (2.0 * t), Float::copysign(t, y))
                }
            }
        }

        impl From<$r> for $c {
            #[inline(always)]
            fn from(re: $r) -> $c {
                $c::new(re, 0.0)
            }
        }

        impl Neg for $c {
            type Output = $c;
            #[inline(always)]
            fn neg(self) -> $c {
                $c::new(-self.re, -self.im)
            }
        }
        impl Add for $c {
            type Output = $c;
            #[inline(always)]
            fn add(self, o: $c) -> $c {
                $c::new(self.re + o.re, self.im + o.im)
            }
        }
        impl Sub for $c {
            type Output = $c;
            #[inline(always)]
            fn sub(self, o: $c) -> $c {
                $c::new(self.re - o.re, self.im - o.im)
            }
        }
        impl Mul for $c {
            type Output = $c;
            #[inline(always)]
            fn mul(self, o: $c) -> $c {
                $c::new(
                    self.re * o.re - self.im * o.im,
                    self.re * o.im + self.im * o.re,
                )
            }
        }
        impl Div for $c {
            type Output = $c;
            /// Smith's algorithm, as NumPy's: scale by the larger part of the divisor.
            #[inline(always)]
            fn div(self, o: $c) -> $c {
                let (ar, ai, br, bi) = (self.re, self.im, o.re, o.im);
                let (abs_br, abs_bi) = (Float::abs(br), Float::abs(bi));
                if abs_br >= abs_bi {
                    if abs_br == 0.0 && abs_bi == 0.0 {
                        // NumPy: division by complex zero gives inf/nan per component.
                        return $c::new(ar / abs_br, ai / abs_bi);
                    }
                    let rat = bi / br;
                    let scl = 1.0 / (br + bi * rat);
                    $c::new((ar + ai * rat) * scl, (ai - ar * rat) * scl)
                } else {
                    let rat = br / bi;
                    let scl = 1.0 / (bi + br * rat);
                    $c::new((ar * rat + ai) * scl, (ai * rat - ar) * scl)
                }
            }
        }

        // Mixed with the real type, both ways: `z * 2.0`, `2.0 * z`, `z + x`, `x / z`.
        impl Add<$r> for $c {
            type Output = $c;
            #[inline(always)]
            fn add(self, o: $r) -> $c {
                $c::new(self.re + o, self.im)
            }
        }
        impl Sub<$r> for $c {
            type Output = $c;
            #[inline(always)]
            fn sub(self, o: $r) -> $c {
                $c::new(self.re - o, self.im)
            }
        }
        impl Mul<$r> for $c {
            type Output = $c;
            #[inline(always)]
            fn mul(self, o: $r) -> $c {
                $c::new(self.re * o, self.im * o)
            }
        }
        impl Div<$r> for $c {
            type Output = $c;
            #[inline(always)]
            fn div(self, o: $r) -> $c {
                $c::new(self.re / o, self.im / o)
            }
        }
        impl Add<$c> for $r {
            type Output = $c;
            #[inline(always)]
            fn add(self, o: $c) -> $c {
                $c::new(self + o.re, o.im)
            }
        }
        impl Sub<$c> for $r {
            type Output = $c;
            #[inline(always)]
            fn sub(self, o: $c) -> $c {
                $c::new(self - o.re, -o.im)
            }
        }
        impl Mul<$c> for $r {
            type Output = $c;
            #[inline(always)]
            fn mul(self, o: $c) -> $c {
                $c::new(self * o.re, self * o.im)
            }
        }
        impl Div<$c> for $r {
            type Output = $c;
            #[inline(always)]
            fn div(self, o: $c) -> $c {
                $c::from(self) / o
            }
        }

        complex_type!(@assign $c, $c; AddAssign add_assign +, SubAssign sub_assign -,
                      MulAssign mul_assign *, DivAssign div_assign /);
        complex_type!(@assign $c, $r; AddAssign add_assign +, SubAssign sub_assign -,
                      MulAssign mul_assign *, DivAssign div_assign /);
    };
    (@assign $c:ident, $rhs:ty; $($tr:ident $m:ident $op:tt),*) => { $(
        impl $tr<$rhs> for $c {
            #[inline(always)]
            fn $m(&mut self, o: $rhs) {
                *self = *self $op o;
            }
        }
    )* };
}

complex_type!(
    /// NumPy's complex64: two f32.
    c64, f32
);
complex_type!(
    /// NumPy's complex128: two f64 (a Python `complex` kernel argument).
    c128, f64
);

impl From<c64> for c128 {
    #[inline(always)]
    fn from(z: c64) -> c128 {
        c128::new(z.re as f64, z.im as f64)
    }
}
