//! The elementwise family on the host: ufuncs (`ufunc`), casts and copies (`copy`),
//! fills (`fill`), `arange`, and NumPy's ufunc rules that no single kernel computes
//! (`numpy_rules`); `one_input` launches the one-input kernels (packed and strided)
//! that ufuncs, casts and copies share. The kernels are `gpupy_kernels::elementwise`'s.

pub mod arange;
pub mod copy;
pub mod fill;
pub mod numpy_rules;
mod one_input;
pub mod ufunc;

pub use ufunc::*;
