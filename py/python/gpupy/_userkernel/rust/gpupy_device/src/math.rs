//! Math functions for f32, f64 and f16: CUDA's libdevice (`__nv_sinf` and friends), the
//! library nvcc's and CuPy's kernels use, with its documented accuracy (a few ulp, see
//! the CUDA C Programming Guide's "Mathematical Functions" appendix). `core` has no
//! transcendental functions; gpupy links libdevice's bitcode into each module after
//! rustc, so only the functions a kernel calls end up in it.
//!
//! Three spellings of each function, all the same code:
//! - C names, generic over the type (as C++'s `<cmath>` overloads): `sqrt(x)`, `log(x)`,
//!   `pow(x, y)`, `fma(a, b, c)` for `x: f32`, `f64` or `f16`;
//! - C's f32 names, for ported CUDA C: `sqrtf(x)`, `expf(x)`, `powf(x, y)`, `fmaf(...)`;
//! - methods with Rust's std names, through the [`Float`] trait: `x.sqrt()`, `x.ln()`,
//!   `x.powf(y)`, `x.mul_add(a, b)` (std's float methods do not exist in `no_std`).
//!
//! f16 computes in f32 and rounds once, as NumPy computes float16 ufuncs (its `mul_add`
//! is the native correctly rounded `fma.rn.f16`).

use core::arch::asm;
use core::ops::{Add, Div, Mul, Neg, Sub};

macro_rules! libdevice {
    (
        unary { $($(#[$d1:meta])* $m1:ident $c1:ident $f1:ident => $nf1:ident $nd1:ident;)* }
        binary { $($(#[$d2:meta])* $m2:ident $c2:ident $f2:ident => $nf2:ident $nd2:ident;)* }
    ) => {
        // libdevice's functions are pure and defined for every input (NaN in, NaN out;
        // domain errors give NaN), so they are declared safe to call.
        unsafe extern "C" {
            $( safe fn $nf1(x: f32) -> f32; safe fn $nd1(x: f64) -> f64; )*
            $( safe fn $nf2(x: f32, y: f32) -> f32; safe fn $nd2(x: f64, y: f64) -> f64; )*
            safe fn __nv_fmaf(x: f32, y: f32, z: f32) -> f32;
            safe fn __nv_fma(x: f64, y: f64, z: f64) -> f64;
            safe fn __nv_powif(x: f32, n: i32) -> f32;
            safe fn __nv_powi(x: f64, n: i32) -> f64;
            safe fn __nv_ldexpf(x: f32, e: i32) -> f32;
            safe fn __nv_ldexp(x: f64, e: i32) -> f64;
        }

        /// The floating-point types (f32, f64, f16) and their math functions, named as
        /// Rust's std names them (C's names where std has none).
        pub trait Float:
            Copy
            + PartialOrd
            + Add<Output = Self>
            + Sub<Output = Self>
            + Mul<Output = Self>
            + Div<Output = Self>
            + Neg<Output = Self>
        {
            $( $(#[$d1])* fn $m1(self) -> Self; )*
            $( $(#[$d2])* fn $m2(self, y: Self) -> Self; )*
            /// `self * a + b` with one rounding (C's `fma`).
            fn mul_add(self, a: Self, b: Self) -> Self;
            /// `self` to the integer power `n`.
            fn powi(self, n: i32) -> Self;
            /// `self * 2^e` (C's `ldexp`).
            fn ldexp(self, e: i32) -> Self;
        }

        impl Float for f32 {
            $( #[inline(always)] fn $m1(self) -> f32 { $nf1(self) } )*
            $( #[inline(always)] fn $m2(self, y: f32) -> f32 { $nf2(self, y) } )*
            #[inline(always)] fn mul_add(self, a: f32, b: f32) -> f32 { __nv_fmaf(self, a, b) }
            #[inline(always)] fn powi(self, n: i32) -> f32 { __nv_powif(self, n) }
            #[inline(always)] fn ldexp(self, e: i32) -> f32 { __nv_ldexpf(self, e) }
        }

        impl Float for f64 {
            $( #[inline(always)] fn $m1(self) -> f64 { $nd1(self) } )*
            $( #[inline(always)] fn $m2(self, y: f64) -> f64 { $nd2(self, y) } )*
            #[inline(always)] fn mul_add(self, a: f64, b: f64) -> f64 { __nv_fma(self, a, b) }
            #[inline(always)] fn powi(self, n: i32) -> f64 { __nv_powi(self, n) }
            #[inline(always)] fn ldexp(self, e: i32) -> f64 { __nv_ldexp(self, e) }
        }

        impl Float for f16 {
            $( #[inline(always)] fn $m1(self) -> f16 { Float::$m1(self as f32) as f16 } )*
            $( #[inline(always)] fn $m2(self, y: f16) -> f16 { Float::$m2(self as f32, y as f32) as f16 } )*
            #[inline(always)]
            fn mul_add(self, a: f16, b: f16) -> f16 {
                let r: u16;
                // SAFETY: register-only arithmetic (sm_53+); f16 travels as its bits, as
                // inline asm has no f16 register class.
                unsafe {
                    asm!("fma.rn.f16 {r}, {x}, {a}, {b};", r = out(reg16) r,
                         x = in(reg16) self.to_bits(), a = in(reg16) a.to_bits(),
                         b = in(reg16) b.to_bits(), options(pure, nomem, nostack))
                };
                f16::from_bits(r)
            }
            #[inline(always)] fn powi(self, n: i32) -> f16 { Float::powi(self as f32, n) as f16 }
            #[inline(always)] fn ldexp(self, e: i32) -> f16 { Float::ldexp(self as f32, e) as f16 }
        }

        $(
            $(#[$d1])*
            #[inline(always)]
            pub fn $c1<T: Float>(x: T) -> T { x.$m1() }
            #[doc = concat!("`", stringify!($c1), "` for f32 (libdevice's `", stringify!($nf1), "`).")]
            #[inline(always)]
            pub fn $f1(x: f32) -> f32 { $nf1(x) }
        )*
        $(
            $(#[$d2])*
            #[inline(always)]
            pub fn $c2<T: Float>(x: T, y: T) -> T { x.$m2(y) }
            #[doc = concat!("`", stringify!($c2), "` for f32 (libdevice's `", stringify!($nf2), "`).")]
            #[inline(always)]
            pub fn $f2(x: f32, y: f32) -> f32 { $nf2(x, y) }
        )*
    };
}

libdevice! {
    unary {
        /// Square root, correctly rounded.
        sqrt sqrt sqrtf => __nv_sqrtf __nv_sqrt;
        /// `1 / sqrt(x)`.
        rsqrt rsqrt rsqrtf => __nv_rsqrtf __nv_rsqrt;
        /// Cube root.
        cbrt cbrt cbrtf => __nv_cbrtf __nv_cbrt;
        /// `e^x`.
        exp exp expf => __nv_expf __nv_exp;
        /// `2^x`.
        exp2 exp2 exp2f => __nv_exp2f __nv_exp2;
        /// `10^x`.
        exp10 exp10 exp10f => __nv_exp10f __nv_exp10;
        /// `e^x - 1`, accurate near 0.
        exp_m1 expm1 expm1f => __nv_expm1f __nv_expm1;
        /// Natural logarithm.
        ln log logf => __nv_logf __nv_log;
        /// Base-2 logarithm.
        log2 log2 log2f => __nv_log2f __nv_log2;
        /// Base-10 logarithm.
        log10 log10 log10f => __nv_log10f __nv_log10;
        /// `ln(1 + x)`, accurate near 0.
        ln_1p log1p log1pf => __nv_log1pf __nv_log1p;
        /// Sine (radians).
        sin sin sinf => __nv_sinf __nv_sin;
        /// Cosine (radians).
        cos cos cosf => __nv_cosf __nv_cos;
        /// Tangent (radians).
        tan tan tanf => __nv_tanf __nv_tan;
        /// Arcsine.
        asin asin asinf => __nv_asinf __nv_asin;
        /// Arccosine.
        acos acos acosf => __nv_acosf __nv_acos;
        /// Arctangent.
        atan atan atanf => __nv_atanf __nv_atan;
        /// Hyperbolic sine.
        sinh sinh sinhf => __nv_sinhf __nv_sinh;
        /// Hyperbolic cosine.
        cosh cosh coshf => __nv_coshf __nv_cosh;
        /// Hyperbolic tangent.
        tanh tanh tanhf => __nv_tanhf __nv_tanh;
        /// Inverse hyperbolic sine.
        asinh asinh asinhf => __nv_asinhf __nv_asinh;
        /// Inverse hyperbolic cosine.
        acosh acosh acoshf => __nv_acoshf __nv_acosh;
        /// Inverse hyperbolic tangent.
        atanh atanh atanhf => __nv_atanhf __nv_atanh;
        /// Largest integer not above `x`.
        floor floor floorf => __nv_floorf __nv_floor;
        /// Smallest integer not below `x`.
        ceil ceil ceilf => __nv_ceilf __nv_ceil;
        /// `x` rounded toward zero.
        trunc trunc truncf => __nv_truncf __nv_trunc;
        /// Nearest integer, halves away from zero (C's `round`, std's `round`).
        round round roundf => __nv_roundf __nv_round;
        /// Nearest integer, halves to even (C's `rint`, NumPy's `rint`/`round`).
        round_ties_even rint rintf => __nv_rintf __nv_rint;
        /// Absolute value.
        abs fabs fabsf => __nv_fabsf __nv_fabs;
        /// Error function.
        erf erf erff => __nv_erff __nv_erf;
        /// Complementary error function `1 - erf(x)`, accurate for large `x`.
        erfc erfc erfcf => __nv_erfcf __nv_erfc;
        /// Inverse error function.
        erfinv erfinv erfinvf => __nv_erfinvf __nv_erfinv;
        /// Inverse complementary error function.
        erfcinv erfcinv erfcinvf => __nv_erfcinvf __nv_erfcinv;
        /// `ln |Γ(x)|`.
        lgamma lgamma lgammaf => __nv_lgammaf __nv_lgamma;
        /// `Γ(x)`.
        tgamma tgamma tgammaf => __nv_tgammaf __nv_tgamma;
        /// Standard normal cumulative distribution function.
        normcdf normcdf normcdff => __nv_normcdff __nv_normcdf;
        /// Inverse of `normcdf`.
        normcdfinv normcdfinv normcdfinvf => __nv_normcdfinvf __nv_normcdfinv;
        /// Bessel function of the first kind, order 0.
        j0 j0 j0f => __nv_j0f __nv_j0;
        /// Bessel function of the first kind, order 1.
        j1 j1 j1f => __nv_j1f __nv_j1;
        /// Bessel function of the second kind, order 0.
        y0 y0 y0f => __nv_y0f __nv_y0;
        /// Bessel function of the second kind, order 1.
        y1 y1 y1f => __nv_y1f __nv_y1;
    }
    binary {
        /// Four-quadrant arctangent of `self / y` (std's `self.atan2(other)`, C's `atan2(y, x)`).
        atan2 atan2 atan2f => __nv_atan2f __nv_atan2;
        /// `self^y`.
        powf pow powf => __nv_powf __nv_pow;
        /// `sqrt(self^2 + y^2)` without overflow.
        hypot hypot hypotf => __nv_hypotf __nv_hypot;
        /// `|self|` with the sign of `y`.
        copysign copysign copysignf => __nv_copysignf __nv_copysign;
        /// Remainder of `self / y` with the sign of `self` (C's `fmod`, Rust's `%`).
        fmod fmod fmodf => __nv_fmodf __nv_fmod;
        /// `self - n * y` with `n` the nearest integer to `self / y` (C's `remainder`).
        remainder remainder remainderf => __nv_remainderf __nv_remainder;
        /// Smaller of the two, ignoring one NaN (C's `fmin`).
        fmin fmin fminf => __nv_fminf __nv_fmin;
        /// Larger of the two, ignoring one NaN (C's `fmax`).
        fmax fmax fmaxf => __nv_fmaxf __nv_fmax;
        /// `max(self - y, 0)` (C's `fdim`).
        fdim fdim fdimf => __nv_fdimf __nv_fdim;
        /// The next representable value after `self` toward `y`.
        nextafter nextafter nextafterf => __nv_nextafterf __nv_nextafter;
    }
}

/// `a * b + c` with one rounding (C's `fma`).
#[inline(always)]
pub fn fma<T: Float>(a: T, b: T, c: T) -> T {
    a.mul_add(b, c)
}

/// `fma` for f32 (libdevice's `__nv_fmaf`).
#[inline(always)]
pub fn fmaf(a: f32, b: f32, c: f32) -> f32 {
    __nv_fmaf(a, b, c)
}

/// `x` to the integer power `n`.
#[inline(always)]
pub fn powi<T: Float>(x: T, n: i32) -> T {
    x.powi(n)
}

/// `x * 2^e` (C's `ldexp`).
#[inline(always)]
pub fn ldexp<T: Float>(x: T, e: i32) -> T {
    x.ldexp(e)
}

/// `ldexp` for f32 (libdevice's `__nv_ldexpf`).
#[inline(always)]
pub fn ldexpf(x: f32, e: i32) -> f32 {
    __nv_ldexpf(x, e)
}
