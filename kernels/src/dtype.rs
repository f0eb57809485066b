//! The element types the kernels compute with, one per NumPy dtype:
//! `bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128`.
//!
//! `f16` is Rust's own half type (nightly `feature(f16)`); on the GPU its arithmetic is
//! native and correctly rounded, which matches NumPy computing in float32 and rounding.
//! `c64`/`c128` are NumPy's complex layouts: real then imaginary part.
#![allow(non_camel_case_types)]

/// NumPy's complex64.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct c64 {
    pub re: f32,
    pub im: f32,
}

/// NumPy's complex128.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct c128 {
    pub re: f64,
    pub im: f64,
}

impl c64 {
    #[inline(always)]
    pub const fn new(re: f32, im: f32) -> Self {
        c64 { re, im }
    }
}
impl c128 {
    #[inline(always)]
    pub const fn new(re: f64, im: f64) -> Self {
        c128 { re, im }
    }
}

/// Every element type: what a kernel needs to know without knowing the op.
pub trait Element: Copy + 'static {
    const ZERO: Self;
}

macro_rules! element {
    ($($t:ty => $zero:expr),* $(,)?) => { $( impl Element for $t { const ZERO: Self = $zero; } )* };
}
element! {
    bool => false, i8 => 0, i16 => 0, i32 => 0, i64 => 0, u8 => 0, u16 => 0, u32 => 0, u64 => 0,
    f16 => 0.0, f32 => 0.0, f64 => 0.0, c64 => c64::new(0.0, 0.0), c128 => c128::new(0.0, 0.0),
    u128 => 0,
}

/// Elements per thread step in the contiguous kernels: as many as fit 16 bytes of the
/// wider of input and output, so each step is one 16-byte access of the wider side.
pub const fn lanes(in_size: usize, out_size: usize) -> usize {
    let wide = if in_size > out_size { in_size } else { out_size };
    if wide >= 16 { 1 } else { 16 / wide }
}

/// Reads `N` consecutive elements with one access of `N * size_of::<T>()` bytes.
///
/// # Safety
/// `p` is valid for `N` reads and aligned to `N * size_of::<T>()`.
#[inline(always)]
pub unsafe fn load_pack<T: Copy, const N: usize>(p: *const T) -> [T; N] {
    // SAFETY: per the contract; each arm reads exactly N * size_of::<T>() bytes at an
    // address aligned to that size, and transmute_copy reinterprets the same bytes.
    unsafe {
        match N * core::mem::size_of::<T>() {
            16 => core::mem::transmute_copy(&*(p as *const u128)),
            8 => core::mem::transmute_copy(&*(p as *const u64)),
            4 => core::mem::transmute_copy(&*(p as *const u32)),
            2 => core::mem::transmute_copy(&*(p as *const u16)),
            _ => core::ptr::read(p as *const [T; N]),
        }
    }
}

/// Writes `N` consecutive elements with one access, as `load_pack` reads them.
///
/// # Safety
/// `p` is valid for `N` writes and aligned to `N * size_of::<T>()`.
#[inline(always)]
pub unsafe fn store_pack<T: Copy, const N: usize>(p: *mut T, v: [T; N]) {
    // SAFETY: as for load_pack.
    unsafe {
        match N * core::mem::size_of::<T>() {
            16 => *(p as *mut u128) = core::mem::transmute_copy(&v),
            8 => *(p as *mut u64) = core::mem::transmute_copy(&v),
            4 => *(p as *mut u32) = core::mem::transmute_copy(&v),
            2 => *(p as *mut u16) = core::mem::transmute_copy(&v),
            _ => core::ptr::write(p as *mut [T; N], v),
        }
    }
}

/// Conversion with NumPy's `astype` meaning (unsafe casting): float to int truncates,
/// complex to real drops the imaginary part, anything to bool is `!= 0`.
pub trait Cast<O> {
    fn cast(self) -> O;
}

/// Through the widest real type: every dtype converts to and from f64 or i128 exactly
/// where NumPy's C casts do, except where noted.
pub trait Real: Copy {
    fn to_f64(self) -> f64;
    fn to_i128(self) -> i128;
    fn from_f64(v: f64) -> Self;
    fn from_i128(v: i128) -> Self;
}

macro_rules! real_int {
    ($($t:ty),*) => { $(
        impl Real for $t {
            #[inline(always)] fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn to_i128(self) -> i128 { self as i128 }
            // Out-of-range float to int is undefined in C; Rust saturates (NaN -> 0).
            #[inline(always)] fn from_f64(v: f64) -> Self { v as i128 as $t }
            #[inline(always)] fn from_i128(v: i128) -> Self { v as $t }
        }
    )* };
}
real_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! real_float {
    ($($t:ty),*) => { $(
        impl Real for $t {
            #[inline(always)] fn to_f64(self) -> f64 { self as f64 }
            #[inline(always)] fn to_i128(self) -> i128 { self as i128 }
            #[inline(always)] fn from_f64(v: f64) -> Self { v as $t }
            #[inline(always)] fn from_i128(v: i128) -> Self { v as $t }
        }
    )* };
}
real_float!(f16, f32, f64);

impl Real for bool {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline(always)]
    fn to_i128(self) -> i128 {
        self as i128
    }
    #[inline(always)]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline(always)]
    fn from_i128(v: i128) -> Self {
        v != 0
    }
}

/// Casts between real types: integer targets go through i128 from integer sources (exact,
/// wrapping like C), float sources through f64 (one rounding from f64, which is exact for
/// f16/f32 inputs, and matches C for f64 -> f32/f16).
macro_rules! cast_real {
    (ints: $($i:ty),*; floats: $($f:ty),*) => {
        cast_real!(@from_int [$($i),*] [$($i),* , $($f),*, bool]);
        cast_real!(@from_float [$($f),*] [$($i),* , $($f),*, bool]);
        cast_real!(@from_bool [$($i),* , $($f),*, bool]);
    };
    (@from_int [$($s:ty),*] $to:tt) => { $( cast_real!(@one_int $s, $to); )* };
    (@one_int $s:ty, [$($t:ty),*]) => { $(
        impl Cast<$t> for $s { #[inline(always)] fn cast(self) -> $t { <$t as Real>::from_i128(self as i128) } }
    )* };
    (@from_float [$($s:ty),*] $to:tt) => { $( cast_real!(@one_float $s, $to); )* };
    (@one_float $s:ty, [$($t:ty),*]) => { $(
        impl Cast<$t> for $s { #[inline(always)] fn cast(self) -> $t { cast_from_float::<$s, $t>(self) } }
    )* };
    (@from_bool [$($t:ty),*]) => { $(
        impl Cast<$t> for bool { #[inline(always)] fn cast(self) -> $t { <$t as Real>::from_i128(self as i128) } }
    )* };
}

/// Float to any real type: `as` from f64 truncates toward zero for integer targets and
/// rounds once for float targets (exact for f16/f32 sources, which f64 holds exactly).
#[inline(always)]
fn cast_from_float<S: Real, T: Real>(v: S) -> T {
    T::from_f64(v.to_f64())
}

cast_real!(ints: i8, i16, i32, i64, u8, u16, u32, u64; floats: f16, f32, f64);

/// Complex casts: to complex keeps the value as the real part; from complex keeps the
/// real part (NumPy's ComplexWarning aside), except bool, true when either part is set.
macro_rules! cast_complex {
    ($($c:ident($f:ty)),*) => {
        $(
            cast_complex!(@to $c, $f, [i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64]);
            impl Cast<$c> for bool { #[inline(always)] fn cast(self) -> $c { $c { re: self as u8 as $f, im: 0.0 } } }
            impl Cast<bool> for $c { #[inline(always)] fn cast(self) -> bool { self.re != 0.0 || self.im != 0.0 } }
            impl Cast<c64> for $c { #[inline(always)] fn cast(self) -> c64 { c64::new(self.re as f32, self.im as f32) } }
            impl Cast<c128> for $c { #[inline(always)] fn cast(self) -> c128 { c128::new(self.re as f64, self.im as f64) } }
        )*
    };
    (@to $c:ident, $f:ty, [$($r:ty),*]) => { $(
        impl Cast<$c> for $r { #[inline(always)] fn cast(self) -> $c { $c { re: Cast::<$f>::cast(self), im: 0.0 } } }
        impl Cast<$r> for $c { #[inline(always)] fn cast(self) -> $r { Cast::<$r>::cast(self.re) } }
    )* };
}
cast_complex!(c64(f32), c128(f64));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_follow_numpy() {
        assert_eq!(Cast::<i8>::cast(300i32), 44); // wraps like C
        assert_eq!(Cast::<u8>::cast(-1i64), 255);
        assert_eq!(Cast::<i32>::cast(-2.7f64), -2); // truncates
        assert!(Cast::<bool>::cast(0.5f32));
        assert!(!Cast::<bool>::cast(0.0f64));
        assert_eq!(Cast::<f32>::cast(true), 1.0);
        assert_eq!(Cast::<f16>::cast(65520.0f32), f16::INFINITY);
        assert_eq!(Cast::<c64>::cast(2i32), c64::new(2.0, 0.0));
        assert_eq!(Cast::<f64>::cast(c128::new(1.5, 9.0)), 1.5);
        assert!(Cast::<bool>::cast(c64::new(0.0, 1.0)));
        assert_eq!(Cast::<u64>::cast(u64::MAX), u64::MAX);
        assert_eq!(Cast::<f64>::cast(u64::MAX), 18446744073709551615.0);
    }

    #[test]
    fn lanes_fill_sixteen_bytes() {
        assert_eq!(lanes(4, 4), 4);
        assert_eq!(lanes(4, 1), 4);
        assert_eq!(lanes(1, 8), 2);
        assert_eq!(lanes(16, 16), 1);
        assert_eq!(lanes(1, 1), 16);
    }
}
