//! Linear-algebra switches: TF32 tensor cores for float32 products (`gpupy.config`).
//! The products themselves are `math::matmul`/`math::dot`; the compositions on top of
//! them (`einsum`, `tensordot`, norms, ...) are in `python/gpupy/_linalg.py`.

use gpupy_host::ops::mma;
use pyo3::prelude::*;

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_set_tf32, m)?)?;
    m.add_function(wrap_pyfunction!(_tf32, m)?)?;
    m.add_function(wrap_pyfunction!(_matmul_path, m)?)?;
    Ok(())
}
