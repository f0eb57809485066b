//! FFT bindings: the private entry points behind `gpupy.fft` and `gpupyx.scipy.fft`.
//! NumPy's and SciPy's signatures, checks, padding, norms and several axes live in
//! Python (`python/gpupy/fft/`); these transform one axis of an array into a fresh one.

use gpupy_host::device;
use gpupy_host::ops::fft::{self, tables};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// The complex transform of `a` (complex64/complex128) along `axis`, unnormalized
/// (`inverse` flips the exponent's sign), times `scale`.
#[pyfunction]
fn _fft_c2c(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    axis: usize,
    inverse: bool,
    scale: f64,
) -> PyResult<Py<NdArray>> {
    let a = a.inner.clone();
    let out = py
        .detach(|| fft::c2c(&a, axis, inverse, scale))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// The first `n // 2 + 1` outputs of the forward transform of the real `a` along `axis`.
#[pyfunction]
fn _fft_r2c(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    axis: usize,
    scale: f64,
) -> PyResult<Py<NdArray>> {
    let a = a.inner.clone();
    let out = py.detach(|| fft::r2c(&a, axis, scale)).or_raise()?;
    NdArray::wrap(py, out)
}

/// The real inverse transform of length `n` along `axis` of `a` (`n // 2 + 1` inputs).
#[pyfunction]
fn _fft_c2r(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    axis: usize,
    n: usize,
    scale: f64,
) -> PyResult<Py<NdArray>> {
    let a = a.inner.clone();
    let out = py.detach(|| fft::c2r(&a, axis, n, scale)).or_raise()?;
    NdArray::wrap(py, out)
}

/// The table cache of the current device: entries, bytes, limits and each entry.
#[pyfunction]
fn _fft_cache_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let info = tables::info(device::current_id());
    let d = PyDict::new(py);
    d.set_item("size", info.size)?;
    d.set_item("memsize", info.memsize)?;
    d.set_item("size_limit", info.size_limit)?;
    d.set_item("memsize_limit", info.memsize_limit)?;
    let entries: Vec<(u64, &str, &str, usize)> = info
        .entries
        .iter()
        .map(|&(kind, n, double, bytes)| {
            (
                n,
                if double { "complex128" } else { "complex64" },
                kind,
                bytes,
            )
        })
        .collect();
    d.set_item("entries", entries)?;
    Ok(d)
}

/// Sets the cache's entry and byte limits (-1: unlimited, 0: keep nothing).
#[pyfunction]
fn _fft_cache_set_limits(size_limit: i64, memsize_limit: i64) {
    tables::set_limits(device::current_id(), size_limit, memsize_limit);
}

/// Empties the current device's cache.
#[pyfunction]
fn _fft_cache_clear() {
    tables::clear(device::current_id());
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_fft_c2c, m)?)?;
    m.add_function(wrap_pyfunction!(_fft_r2c, m)?)?;
    m.add_function(wrap_pyfunction!(_fft_c2r, m)?)?;
    m.add_function(wrap_pyfunction!(_fft_cache_info, m)?)?;
    m.add_function(wrap_pyfunction!(_fft_cache_set_limits, m)?)?;
    m.add_function(wrap_pyfunction!(_fft_cache_clear, m)?)?;
    Ok(())
}
