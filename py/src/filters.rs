//! Filter bindings: the private entry points behind `gpupyx.scipy.ndimage`'s filters.
//! SciPy's signatures, output dtypes, origins and the filters built from correlations
//! live in Python (`python/gpupyx/scipy/ndimage/`); these correlate into a fresh array
//! of the compute dtype.

use gpupy_host::ops::filters::{self, Mode};
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
/// coordinate), computed in `dtype` (float32 or float64).
#[pyfunction]
fn _correlate(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    weights: Vec<f64>,
    offsets: Vec<Vec<i64>>,
    mode_code: u32,
    cval: f64,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, mode, dtype) = (a.inner.clone(), mode(mode_code)?, to_dtype(py, dtype)?);
    let out = py
        .detach(|| filters::correlate(&a, &weights, &offsets, mode, cval, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_correlate1d, m)?)?;
    m.add_function(wrap_pyfunction!(_correlate, m)?)?;
    Ok(())
}
