//! The element types the kernels compute with, one per NumPy dtype:
//! `bool i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 c64 c128 bf16`.
//!
//! `f16` is Rust's own half type (nightly `feature(f16)`); on the GPU its arithmetic is
//! native and correctly rounded, which matches NumPy computing in float32 and rounding.
//! `c64`/`c128` are NumPy's complex layouts: real then imaginary part. `bf16` is
//! ml_dtypes' bfloat16, a storage type here: it converts, and the tensor cores multiply
//! it; arithmetic on it runs in float32 (as ml_dtypes computes it).
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

/// ml_dtypes' bfloat16: the upper half of a float32.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct bf16(pub u16);

impl bf16 {
    #[inline(always)]
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
    /// Rounds to nearest even, as ml_dtypes; NaN becomes ml_dtypes' quiet NaN of the
    /// same sign.
    #[inline(always)]
    pub fn from_f32(x: f32) -> bf16 {
        let b = x.to_bits();
        if x.is_nan() {
            return bf16(((b >> 16) as u16 & 0x8000) | 0x7fc0);
        }
        bf16((b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16) as u16)
    }
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

/// The host's name for each element type, by position in `table::for_each_dtype!`
/// (`Bool` = 0 ... `Complex128` = 13). Lets the host read an op's output dtype off its
/// `Out` type instead of keeping a second list.
pub trait DTypeIndex {
    const INDEX: usize;
}
macro_rules! dtype_index {
    ([] $(($D:ident, $t:ident))*) => { dtype_index!(@count 0usize; $($t)*); };
    (@count $i:expr; $t:ident $($rest:ident)*) => {
        impl DTypeIndex for $t { const INDEX: usize = $i; }
        dtype_index!(@count $i + 1; $($rest)*);
    };
    (@count $i:expr;) => {};
}
crate::for_each_dtype!(dtype_index);

/// How many dtypes have kernels (bfloat16 is the last).
pub const NDTYPES: usize = <bf16 as DTypeIndex>::INDEX + 1;

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
    u128 => 0, bf16 => bf16(0),
}

/// Elements per thread step in the contiguous kernels: as many as fit 16 bytes of the
/// wider of input and output, so each step is one 16-byte access of the wider side.
pub const fn lanes(in_size: usize, out_size: usize) -> usize {
    let wide = if in_size > out_size {
        in_size
    } else {
        out_size
    };
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

/// `[f(x[0], y[0]), ...]` unrolled by hand. `core::array::from_fn` leaves a loop when
/// the op body is large (integer power, float16 floor division), and a rolled loop
/// indexes the packs at run time, which puts them in local memory.
#[inline(always)]
pub fn map_pack<T: Copy, U: Copy, const N: usize>(
    x: [T; N],
    y: [T; N],
    f: impl Fn(T, T) -> U,
) -> [U; N] {
    let mut r = [core::mem::MaybeUninit::<U>::uninit(); N];
    macro_rules! at {
        ($($k:literal)*) => { $( if $k < N { r[$k] = core::mem::MaybeUninit::new(f(x[$k], y[$k])); } )* };
    }
    at!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    // SAFETY: lanes() never exceeds 16, so every element of r was written above.
    unsafe { core::mem::transmute_copy(&r) }
}

/// Conversion with NumPy's `astype` meaning (unsafe casting): float to int truncates,
/// complex to real drops the imaginary part, anything to bool is `!= 0`.
pub trait Cast<O> {
    fn cast(self) -> O;
}

/// Casts between real types with Rust's `as`: integers wrap like C, int to float and
/// float to float round once, float to int truncates (saturating where C is undefined).
macro_rules! cast_real {
    ($($t:ty),*) => { cast_real!(@each [$($t),*] [$($t),*]); };
    (@each [$($s:ty),*] $to:tt) => { $( cast_real!(@one $s, $to); )* };
    (@one $s:ty, [$($t:ty),*]) => { $(
        impl Cast<$t> for $s { #[inline(always)] fn cast(self) -> $t { self as $t } }
    )* };
}
cast_real!(i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64);

/// bool converts as 0/1, and anything to bool is `!= 0` (NumPy: `bool(0.5)` is true).
macro_rules! cast_bool {
    ($($t:ty),*) => { $(
        impl Cast<$t> for bool { #[inline(always)] fn cast(self) -> $t { self as u8 as $t } }
        impl Cast<bool> for $t { #[inline(always)] fn cast(self) -> bool { self != (0 as $t) } }
    )* };
}
cast_bool!(i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64);
impl Cast<bool> for bool {
    #[inline(always)]
    fn cast(self) -> bool {
        self
    }
}

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

/// bfloat16 casts go through float32 both ways, as ml_dtypes' do (so a float64 or int64
/// is rounded twice, as there).
macro_rules! cast_bf16 {
    ($($t:ty),*) => { $(
        impl Cast<$t> for bf16 { #[inline(always)] fn cast(self) -> $t { Cast::<$t>::cast(self.to_f32()) } }
        impl Cast<bf16> for $t { #[inline(always)] fn cast(self) -> bf16 { bf16::from_f32(Cast::<f32>::cast(self)) } }
    )* };
}
cast_bf16!(
    bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64, c64, c128
);
impl Cast<bf16> for bf16 {
    #[inline(always)]
    fn cast(self) -> bf16 {
        self
    }
}

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
    fn bfloat16_rounds_like_ml_dtypes() {
        let bf = |x: f32| bf16::from_f32(x).to_f32();
        assert_eq!(bf(1.0 + 2f32.powi(-8)), 1.0); // a tie rounds to even
        assert_eq!(bf(1.0 + 3.0 * 2f32.powi(-8)), 1.0 + 2f32.powi(-6));
        assert_eq!(bf(-2.5), -2.5);
        assert_eq!(bf(f32::MAX), f32::INFINITY);
        assert!(bf(f32::NAN).is_nan());
        assert_eq!(bf16::from_f32(-f32::NAN).0, 0xffc0);
        assert_eq!(bf16::from_f32(f32::from_bits(0x7fff_ffff)).0, 0x7fc0);
        // float64 goes through float32: 1 + 2^-8 + 2^-30 rounds to 1, as in ml_dtypes.
        let x: bf16 = Cast::cast(1.0f64 + 2f64.powi(-8) + 2f64.powi(-30));
        assert_eq!(x.to_f32(), 1.0);
        assert_eq!(Cast::<i32>::cast(bf16::from_f32(-7.9)), -7);
        assert!(!Cast::<bool>::cast(bf16::from_f32(-0.0)));
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
