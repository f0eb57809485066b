//! The elementwise family on the host: ufuncs (`ufunc`), casts and copies (`copy`),
//! fills (`fill`), `arange`, and NumPy's ufunc rules that no single kernel computes
//! (`numpy_rules`); `contig` launches the packed one-input kernels that ufuncs and
//! casts share. The kernels are `gpupy_kernels::elementwise`'s.

pub mod arange;
mod contig;
pub mod copy;
pub mod fill;
pub mod numpy_rules;
pub mod ufunc;

pub use ufunc::*;
