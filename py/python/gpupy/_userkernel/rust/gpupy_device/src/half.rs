//! Half-precision types: `f16`, NumPy's float16, and `bf16`, ml_dtypes' bfloat16.
//!
//! `f16` is Rust's own primitive (nightly `feature(f16)`, which gpupy's prelude turns
//! on): IEEE binary16, NumPy's float16 layout, with native arithmetic on the GPU
//! (correctly rounded, as NumPy's float32-then-round). It converts with `as`
//! (`x as f32`, `y as f16`); its math functions are in [`crate::math`] (through f32).
//!
//! `bf16` is a storage type, as in gpupy's own kernels: it converts to and from f32
//! (round to nearest even, as ml_dtypes), and arithmetic happens in f32.

/// Rust's primitive `f16` under a path (`gpupy_device::half::f16`, and in the prelude).
/// `core::primitive` does not list `f16`, so this is an alias; it is the same type, and
/// `f16::from_bits`, `f16::INFINITY` and `1.5f16` work through it as on the primitive.
pub type f16 = primitive::F16;

mod primitive {
    /// Named inside a module with no `f16` item, so `f16` here is the primitive.
    pub type F16 = f16;
}

/// ml_dtypes' bfloat16: the upper 16 bits of an f32.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct bf16(pub u16);

impl bf16 {
    /// Exact: the bits become the upper half of an f32.
    #[inline(always)]
    pub fn to_f32(self) -> f32 {
        f32::from_bits((self.0 as u32) << 16)
    }
    /// Rounds to nearest even, as ml_dtypes; NaN becomes a quiet NaN of the same sign.
    #[inline(always)]
    pub fn from_f32(x: f32) -> bf16 {
        let b = x.to_bits();
        if x.is_nan() {
            return bf16(((b >> 16) as u16 & 0x8000) | 0x7fc0);
        }
        bf16((b.wrapping_add(0x7fff + ((b >> 16) & 1)) >> 16) as u16)
    }
}

impl From<bf16> for f32 {
    #[inline(always)]
    fn from(x: bf16) -> f32 {
        x.to_f32()
    }
}

impl From<f32> for bf16 {
    #[inline(always)]
    fn from(x: f32) -> bf16 {
        bf16::from_f32(x)
    }
}
