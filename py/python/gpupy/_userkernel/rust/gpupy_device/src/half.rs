//! The half-precision type `f16`, NumPy's float16.
//!
//! `f16` is Rust's own primitive (nightly `feature(f16)`, which gpupy's prelude turns
//! on): IEEE binary16, NumPy's float16 layout, with native arithmetic on the GPU
//! (correctly rounded, as NumPy's float32-then-round). It converts with `as`
//! (`x as f32`, `y as f16`); its math functions are in [`crate::math`] (through f32).
//!
//! (ml_dtypes' bfloat16 is not offered: gpupy's own kernels keep it as a storage type in
//! `kernels/src/dtype.rs`; a user kernel reads its bits as `u16` and shifts them into
//! the upper half of an `f32`.)

/// Rust's primitive `f16` under a path (`gpupy_device::half::f16`, and in the prelude).
/// `core::primitive` does not list `f16`, so this is an alias; it is the same type, and
/// `f16::from_bits`, `f16::INFINITY` and `1.5f16` work through it as on the primitive.
pub type f16 = primitive::F16;

mod primitive {
    /// Named inside a module with no `f16` item, so `f16` here is the primitive.
    pub type F16 = f16;
}
