//! Linear-algebra bindings: the TF32 switch and the path switches of matrix products
//! (`gpupy.config`) and
//! the Jacobi rotations behind singular values.
//! The products themselves are `matmul::matmul`/`matmul::dot`; the compositions on top of
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

/// The matmul path switches in force: `(tile, no_tc, no_sm90, no_wgmma)`.
#[pyfunction]
fn _matmul_switches() -> (Option<String>, bool, bool, bool) {
    let s = mma::switches();
    (s.tile, s.no_tc, s.no_sm90, s.no_wgmma)
}

/// Sets the matmul path switches (process-wide; see `gpupy.config.matmul_switches`).
#[pyfunction]
#[pyo3(signature = (tile, no_tc, no_sm90, no_wgmma))]
fn _set_matmul_switches(tile: Option<String>, no_tc: bool, no_sm90: bool, no_wgmma: bool) {
    mma::set_switches(mma::Switches {
        tile,
        no_tc,
        no_sm90,
        no_wgmma,
    });
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
    m.add_function(wrap_pyfunction!(_matmul_switches, m)?)?;
    m.add_function(wrap_pyfunction!(_set_matmul_switches, m)?)?;
    m.add_function(wrap_pyfunction!(_svd_jacobi, m)?)?;
    Ok(())
}
