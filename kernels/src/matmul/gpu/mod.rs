//! The matrix-product engines (compiled for the GPU only), each built into the module of
//! its architecture: `simt` and `gemv` (sm_70), `mma` (sm_80 and, for Hopper's float64 shape,
//! sm_90) and `wgmma` (sm_90a, which builds on `mma`'s copy pipeline).

#[cfg(feature = "matmul")]
mod gemv;
#[cfg(any(
    feature = "matmul-mma",
    feature = "matmul-mma90",
    feature = "matmul-wgmma"
))]
mod mma;
#[cfg(feature = "matmul")]
mod simt;
#[cfg(feature = "matmul-wgmma")]
mod wgmma;
