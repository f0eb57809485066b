//! Linear-algebra bindings: the TF32 switch for float32 products (`gpupy.config`) and
//! the Jacobi rotations behind singular values.
//! The products themselves are `math::matmul`/`math::dot`; the compositions on top of
//! them (`einsum`, `tensordot`, norms, ...) are in `python/gpupy/_linalg.py`, which also
//! builds singular values on `_svd_jacobi`.

use gpupy_host::ops::{linalg::svd, matmul::mma};
use pyo3::prelude::*;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// Turns TF32 tensor cores for float32 matrix products on or off (process-wide).
#[pyfunction]
fn _set_tf32(on: bool) {
    mma::set_tf32(on);
}

/// Whether float32 matrix products run on TF32 tensor cores.
#[pyfunction]
fn _tf32() -> bool {
    mma::tf32()
}

/// The kernel family of the last matrix product ("simt", "gemv", "mma", "wgmma"), for
/// tests that must know which path ran.
#[pyfunction]
fn _matmul_path() -> &'static str {
    mma::last_path()
}

/// One-sided Jacobi on `w` in place (C-contiguous float64/complex128, shape `(..., n, m)`,
/// each of the `n` rows one column of the matrix, `n <= m`): rotates pairs until their
/// inner products fall below `tol` times their norms. Returns whether it converged;
/// `gpupy._linalg.svdvals` raises NumPy's `LinAlgError` when not.
#[pyfunction]
fn _svd_jacobi(py: Python<'_>, w: &Bound<'_, NdArray>, tol: f64) -> PyResult<bool> {
    let w = &w.get().inner;
    py.detach(|| svd::jacobi_orthogonalize(w, tol)).or_raise()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_set_tf32, m)?)?;
    m.add_function(wrap_pyfunction!(_tf32, m)?)?;
    m.add_function(wrap_pyfunction!(_matmul_path, m)?)?;
    m.add_function(wrap_pyfunction!(_svd_jacobi, m)?)?;
    Ok(())
}
