//! The linear-algebra family on the host: today singular values (`svd`, one-sided
//! Jacobi). The kernels are `gpupy_kernels::linalg`'s.

pub mod svd;
