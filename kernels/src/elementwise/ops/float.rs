//! Real math functions for f32 and f64: CUDA's libdevice on the GPU (`__nv_sinf` and
//! friends, linked in by `host/build.rs`; what CuPy's kernels use, accurate to a few
//! ulp), Rust's std on the host so `cargo test` checks the same op bodies on the CPU.
//! float16 computes through f32 and rounds once, as NumPy does.

macro_rules! float_fns {
    ($t:ty, $($name:ident => $nv:ident),* $(,)?) => {
        #[cfg(target_arch = "nvptx64")]
        unsafe extern "C" { $( fn $nv(x: $t) -> $t; )* }
        impl Float for $t { $(
            #[inline(always)]
            fn $name(self) -> $t {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: libdevice functions are pure and defined for every input.
                { unsafe { $nv(self) } }
                #[cfg(not(target_arch = "nvptx64"))]
                { <$t>::$name(self) }
            }
        )* }
    };
}

macro_rules! float_fns2 {
    ($t:ty, $($name:ident => $nv:ident),* $(,)?) => {
        #[cfg(target_arch = "nvptx64")]
        unsafe extern "C" { $( fn $nv(x: $t, y: $t) -> $t; )* }
        impl Float2 for $t { $(
            #[inline(always)]
            fn $name(self, y: $t) -> $t {
                #[cfg(target_arch = "nvptx64")]
                // SAFETY: as above.
                { unsafe { $nv(self, y) } }
                #[cfg(not(target_arch = "nvptx64"))]
                { host2::$name(self, y) }
            }
        )* }
    };
}

/// One-argument functions, named as in Rust's std.
pub trait Float: Copy {
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn exp(self) -> Self;
    fn exp2(self) -> Self;
    fn exp_m1(self) -> Self;
    fn ln(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn abs(self) -> Self;
    /// Round half to even (C's rint in the default rounding mode; NumPy's `rint`).
    fn round_ties_even(self) -> Self;
}

/// Two-argument functions.
pub trait Float2: Copy {
    fn atan2(self, y: Self) -> Self;
    fn hypot(self, y: Self) -> Self;
    fn copysign(self, y: Self) -> Self;
    fn nextafter(self, y: Self) -> Self;
    fn fmod(self, y: Self) -> Self;
    fn powf(self, y: Self) -> Self;
}

float_fns!(f32,
    sqrt => __nv_sqrtf, cbrt => __nv_cbrtf, exp => __nv_expf, exp2 => __nv_exp2f,
    exp_m1 => __nv_expm1f, ln => __nv_logf, log2 => __nv_log2f, log10 => __nv_log10f,
    ln_1p => __nv_log1pf, sin => __nv_sinf, cos => __nv_cosf, tan => __nv_tanf,
    asin => __nv_asinf, acos => __nv_acosf, atan => __nv_atanf, sinh => __nv_sinhf,
    cosh => __nv_coshf, tanh => __nv_tanhf, asinh => __nv_asinhf, acosh => __nv_acoshf,
    atanh => __nv_atanhf, floor => __nv_floorf, ceil => __nv_ceilf, trunc => __nv_truncf,
    abs => __nv_fabsf, round_ties_even => __nv_rintf,
);
float_fns!(f64,
    sqrt => __nv_sqrt, cbrt => __nv_cbrt, exp => __nv_exp, exp2 => __nv_exp2,
    exp_m1 => __nv_expm1, ln => __nv_log, log2 => __nv_log2, log10 => __nv_log10,
    ln_1p => __nv_log1p, sin => __nv_sin, cos => __nv_cos, tan => __nv_tan,
    asin => __nv_asin, acos => __nv_acos, atan => __nv_atan, sinh => __nv_sinh,
    cosh => __nv_cosh, tanh => __nv_tanh, asinh => __nv_asinh, acosh => __nv_acosh,
    atanh => __nv_atanh, floor => __nv_floor, ceil => __nv_ceil, trunc => __nv_trunc,
    abs => __nv_fabs, round_ties_even => __nv_rint,
);
float_fns2!(f32, atan2 => __nv_atan2f, hypot => __nv_hypotf, copysign => __nv_copysignf,
    nextafter => __nv_nextafterf, fmod => __nv_fmodf, powf => __nv_powf);
float_fns2!(f64, atan2 => __nv_atan2, hypot => __nv_hypot, copysign => __nv_copysign,
    nextafter => __nv_nextafter, fmod => __nv_fmod, powf => __nv_pow);

/// float16: through f32, one rounding at the end.
macro_rules! half_via_f32 {
    ($($name:ident),*) => { impl Float for f16 { $(
        #[inline(always)] fn $name(self) -> f16 { Float::$name(self as f32) as f16 }
    )* } };
}
half_via_f32!(
    sqrt,
    cbrt,
    exp,
    exp2,
    exp_m1,
    ln,
    log2,
    log10,
    ln_1p,
    sin,
    cos,
    tan,
    asin,
    acos,
    atan,
    sinh,
    cosh,
    tanh,
    asinh,
    acosh,
    atanh,
    floor,
    ceil,
    trunc,
    abs,
    round_ties_even
);

impl Float2 for f16 {
    #[inline(always)]
    fn atan2(self, y: f16) -> f16 {
        Float2::atan2(self as f32, y as f32) as f16
    }
    #[inline(always)]
    fn hypot(self, y: f16) -> f16 {
        Float2::hypot(self as f32, y as f32) as f16
    }
    #[inline(always)]
    fn copysign(self, y: f16) -> f16 {
        f16::from_bits((self.to_bits() & 0x7fff) | (y.to_bits() & 0x8000))
    }
    /// On the half grid itself, not through f32 (whose neighbours are far closer).
    #[inline(always)]
    fn nextafter(self, y: f16) -> f16 {
        if self.is_nan() || y.is_nan() {
            return f16::NAN;
        }
        if self == y {
            return y;
        }
        if self == 0.0 {
            return f16::from_bits(1 | (y.to_bits() & 0x8000));
        }
        let up = (y > self) == (self > 0.0);
        f16::from_bits(if up {
            self.to_bits() + 1
        } else {
            self.to_bits() - 1
        })
    }
    #[inline(always)]
    fn fmod(self, y: f16) -> f16 {
        Float2::fmod(self as f32, y as f32) as f16
    }
    #[inline(always)]
    fn powf(self, y: f16) -> f16 {
        Float2::powf(self as f32, y as f32) as f16
    }
}

/// Host versions of the two-argument functions std names differently or lacks.
#[cfg(not(target_arch = "nvptx64"))]
mod host2 {
    pub trait Host2: Copy {
        fn atan2_(self, y: Self) -> Self;
        fn hypot_(self, y: Self) -> Self;
        fn copysign_(self, y: Self) -> Self;
        fn nextafter_(self, y: Self) -> Self;
        fn fmod_(self, y: Self) -> Self;
        fn powf_(self, y: Self) -> Self;
    }
    macro_rules! host2 {
        ($t:ty, $bits:ty) => {
            impl Host2 for $t {
                fn atan2_(self, y: $t) -> $t {
                    self.atan2(y)
                }
                fn hypot_(self, y: $t) -> $t {
                    self.hypot(y)
                }
                fn copysign_(self, y: $t) -> $t {
                    self.copysign(y)
                }
                fn nextafter_(self, y: $t) -> $t {
                    if self.is_nan() || y.is_nan() {
                        return <$t>::NAN;
                    }
                    if self == y {
                        return y;
                    }
                    if self == 0.0 {
                        return <$t>::from_bits(1).copysign(y);
                    }
                    let up = (y > self) == (self > 0.0);
                    let b = self.to_bits();
                    <$t>::from_bits(if up { b + 1 } else { b - 1 })
                }
                fn fmod_(self, y: $t) -> $t {
                    self % y
                }
                fn powf_(self, y: $t) -> $t {
                    self.powf(y)
                }
            }
        };
    }
    host2!(f32, u32);
    host2!(f64, u64);
    pub fn atan2<T: Host2>(a: T, b: T) -> T {
        a.atan2_(b)
    }
    pub fn hypot<T: Host2>(a: T, b: T) -> T {
        a.hypot_(b)
    }
    pub fn copysign<T: Host2>(a: T, b: T) -> T {
        a.copysign_(b)
    }
    pub fn nextafter<T: Host2>(a: T, b: T) -> T {
        a.nextafter_(b)
    }
    pub fn fmod<T: Host2>(a: T, b: T) -> T {
        a.fmod_(b)
    }
    pub fn powf<T: Host2>(a: T, b: T) -> T {
        a.powf_(b)
    }
}
