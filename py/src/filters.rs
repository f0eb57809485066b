//! Filter bindings: the private entry points behind `gpupyx.scipy.ndimage`'s filters.
//! SciPy's signatures, output dtypes, origins and the filters built from correlations
//! live in Python (`python/gpupyx/scipy/ndimage/`); these correlate into a fresh array
//! of the compute dtype, or order-filter into one of the order dtype.

use gpupy_host::ops::filters::{self, Mode, Weights};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::convert::to_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// A boundary mode by its launch code (`gpupyx.scipy.ndimage._util.MODES`).
fn mode(code: u32) -> PyResult<Mode> {
    match code {
        0..=4 => Ok(Mode::from_code(code)),
        _ => Err(PyValueError::new_err(format!("no boundary mode {code}"))),
    }
}

/// SciPy's `correlate1d` of `a` along `axis` with every weight, tap `t` of output
/// coordinate `j` reading `j + t - center`, computed in `dtype` (float32 or float64).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _correlate1d(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    weights: Vec<f64>,
    axis: usize,
    center: i64,
    mode_code: u32,
    cval: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, mode, dtype) = (a.inner.clone(), mode(mode_code)?, to_dtype(py, dtype)?);
    let out = py
        .detach(|| filters::correlate1d(&a, &weights, axis, center, mode, cval, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// SciPy's `correlate` by a list of taps (weights and per-axis offsets from the output
/// coordinate), computed in `dtype` (float32 or float64). `weights` is a list of floats
/// or a gpupy array (read on the device, no transfer: its elements in C order).
#[pyfunction]
fn _correlate(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    weights: &Bound<'_, PyAny>,
    offsets: Vec<Vec<i64>>,
    mode_code: u32,
    cval: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, mode, dtype) = (a.inner.clone(), mode(mode_code)?, to_dtype(py, dtype)?);
    let out = if let Ok(w) = weights.cast::<NdArray>() {
        let w = w.borrow().inner.clone();
        py.detach(|| filters::correlate(&a, Weights::Device(&w), &offsets, mode, cval, dtype))
    } else {
        let w: Vec<f64> = weights.extract()?;
        py.detach(|| filters::correlate(&a, Weights::Host(&w), &offsets, mode, cval, dtype))
    }
    .or_raise()?;
    NdArray::wrap(py, out)
}

/// A dense 2-d correlation with every element of the 2-d gpupy array `w` as a tap
/// (read on the device through its strides), weight `(a, b)` of output `(i, j)`
/// reading input `(i + a - cy, j + b - cx)`, computed in `dtype`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _correlate2d(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    w: PyRef<'_, NdArray>,
    cy: i64,
    cx: i64,
    mode_code: u32,
    cval: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, w) = (a.inner.clone(), w.inner.clone());
    let (mode, dtype) = (mode(mode_code)?, to_dtype(py, dtype)?);
    let out = py
        .detach(|| filters::correlate_dense2d(&a, &w, (cy, cx), mode, cval, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// SciPy's minimum (`maximum=False`) or maximum filter by a list of taps (per-axis
/// offsets from the output coordinate), in the order dtype `dtype` (float32, float64,
/// int64 or uint64).
#[pyfunction]
fn _extreme(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    offsets: Vec<Vec<i64>>,
    maximum: bool,
    mode_code: u32,
    cval: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, mode, dtype) = (a.inner.clone(), mode(mode_code)?, to_dtype(py, dtype)?);
    let out = py
        .detach(|| filters::extreme(&a, &offsets, maximum, mode, cval, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// SciPy's rank filter (rank 0 the smallest) by a list of taps, in the order dtype
/// `dtype` (float32, float64, int64 or uint64).
#[pyfunction]
fn _rank(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    offsets: Vec<Vec<i64>>,
    rank: usize,
    mode_code: u32,
    cval: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, mode, dtype) = (a.inner.clone(), mode(mode_code)?, to_dtype(py, dtype)?);
    let out = py
        .detach(|| filters::rank(&a, &offsets, rank, mode, cval, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_correlate1d, m)?)?;
    m.add_function(wrap_pyfunction!(_correlate, m)?)?;
    m.add_function(wrap_pyfunction!(_correlate2d, m)?)?;
    m.add_function(wrap_pyfunction!(_extreme, m)?)?;
    m.add_function(wrap_pyfunction!(_rank, m)?)?;
    Ok(())
}
