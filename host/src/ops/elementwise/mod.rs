//! The elementwise family on the host: ufuncs (`ufunc`), casts and copies (`copy`),
//! fills (`fill`), `arange`; `contig` launches the packed one-input kernels that ufuncs
//! and casts share. The kernels are `gpupy_kernels::elementwise`'s.

pub mod arange;
mod contig;
pub mod copy;
pub mod fill;
pub mod ufunc;

pub use ufunc::*;
