//! Interpolation bindings: the private entry points behind `gpupyx.scipy.ndimage`'s
//! interpolation functions. SciPy's signatures, checks, output dtypes, padding and
//! complex handling live in Python (`python/gpupyx/scipy/ndimage/_interpolation.py`);
//! these sample into a fresh array of the output dtype, or prefilter into a fresh
//! float64 one.

use gpupy_host::ops::interpolate::{self, Mode, Sampling, Source};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::convert::to_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// A boundary mode by SciPy's code (`_ni_support._extend_mode_to_code`).
fn mode(code: u32) -> PyResult<Mode> {
    match code {
        0..=6 => Ok(Mode::from_code(code)),
        _ => Err(PyValueError::new_err(format!("no boundary mode {code}"))),
    }
}

/// The spline coefficients of order `order` (2 to 5) of `a` along each of `axes` in
/// turn, for boundary mode `mode_code`, as a new float64 array.
#[pyfunction]
fn _spline_filter(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    order: usize,
    axes: Vec<usize>,
    mode_code: u32,
) -> PyResult<Py<NdArray>> {
    let (a, mode) = (a.inner.clone(), mode(mode_code)?);
    let out = py
        .detach(|| interpolate::spline_filter(&a, order, &axes, mode))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// SciPy's spline at each column of `coordinates` (shape `(a.ndim, *out)`), padding
/// `npad` added to each coordinate, stored as `dtype`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _map_coordinates(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    coordinates: PyRef<'_, NdArray>,
    order: usize,
    mode_code: u32,
    cval: f64,
    npad: usize,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, c) = (a.inner.clone(), coordinates.inner.clone());
    let s = Sampling {
        order,
        mode: mode(mode_code)?,
        cval,
        npad,
    };
    let dtype = to_dtype(py, dtype)?;
    let shape = c.shape()[1..].to_vec();
    let out = py
        .detach(|| interpolate::sample(&a, Source::Coordinates(&c), &shape, 0, s, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// SciPy's affine map: the output of shape `out_shape` (its first `batch` axes are
/// `a`'s, planes mapped alike) at plane coordinates `o` reads `a` at
/// `offset + matrix @ o`, `matrix` given row by row.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _affine_transform(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    matrix: Vec<f64>,
    offset: Vec<f64>,
    out_shape: Vec<usize>,
    batch: usize,
    order: usize,
    mode_code: u32,
    cval: f64,
    npad: usize,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let a = a.inner.clone();
    let s = Sampling {
        order,
        mode: mode(mode_code)?,
        cval,
        npad,
    };
    let dtype = to_dtype(py, dtype)?;
    let source = Source::Affine {
        matrix: &matrix,
        offset: &offset,
    };
    let out = py
        .detach(|| interpolate::sample(&a, source, &out_shape, batch, s, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

/// SciPy's zoom-and-shift map (`NI_ZoomShift`): along each axis the output index plus
/// `shift`, times `zoom` (about the grid's edge with `grid_mode`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _zoom_shift(
    py: Python<'_>,
    a: PyRef<'_, NdArray>,
    zoom: Option<Vec<f64>>,
    shift: Option<Vec<f64>>,
    grid_mode: bool,
    out_shape: Vec<usize>,
    order: usize,
    mode_code: u32,
    cval: f64,
    npad: usize,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let a = a.inner.clone();
    let s = Sampling {
        order,
        mode: mode(mode_code)?,
        cval,
        npad,
    };
    let dtype = to_dtype(py, dtype)?;
    let source = Source::ZoomShift {
        zoom: zoom.as_deref(),
        shift: shift.as_deref(),
        grid_mode,
    };
    let out = py
        .detach(|| interpolate::sample(&a, source, &out_shape, 0, s, dtype))
        .or_raise()?;
    NdArray::wrap(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_spline_filter, m)?)?;
    m.add_function(wrap_pyfunction!(_map_coordinates, m)?)?;
    m.add_function(wrap_pyfunction!(_affine_transform, m)?)?;
    m.add_function(wrap_pyfunction!(_zoom_shift, m)?)?;
    Ok(())
}
