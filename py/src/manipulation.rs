//! The Rust half of NumPy's shape-manipulation and creation functions (the Python half is
//! `gpupy/_manipulation.py` and `gpupy/_creation.py`): views from the host's layout
//! functions, `arange`'s fill, and `copyto` with conversion. Axes are normalized here with
//! NumPy's `AxisError`, so the host's own axis checks never fire.

use gpupy_host::ops::elementwise::{arange as creation, copy};
use gpupy_host::{Array, device};
use pyo3::prelude::*;

use crate::convert::to_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// NumPy's `AxisError` (a ValueError and an IndexError), with NumPy's text.
pub fn axis_error(py: Python<'_>, axis: isize, ndim: usize, prefix: Option<&str>) -> PyErr {
    let made = py
        .import("numpy.exceptions")
        .and_then(|m| m.getattr("AxisError"))
        .and_then(|cls| cls.call1((axis, ndim, prefix)));
    match made {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// `axis` in `-ndim..ndim` as an index, else NumPy's AxisError.
pub fn normalize_axis(py: Python<'_>, axis: isize, ndim: usize) -> PyResult<usize> {
    normalize_axis_prefixed(py, axis, ndim, None)
}

pub fn normalize_axis_prefixed(
    py: Python<'_>,
    axis: isize,
    ndim: usize,
    prefix: Option<&str>,
) -> PyResult<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(axis_error(py, axis, ndim, prefix));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// Every axis of `axes` normalized (no check for repeats: the host does that).
fn normalize_axes(py: Python<'_>, axes: &[isize], ndim: usize) -> PyResult<Vec<isize>> {
    axes.iter()
        .map(|&a| Ok(normalize_axis(py, a, ndim)? as isize))
        .collect()
}

fn array(a: &Bound<'_, NdArray>) -> Array {
    a.get().inner.clone()
}

/// A new 1-D array of `n` elements of `dtype` whose first two elements are `first` and
/// `second` (the dtype's bytes) and the rest NumPy's `arange` continuation.
#[pyfunction]
fn _arange(
    py: Python<'_>,
    n: usize,
    dtype: &Bound<'_, PyAny>,
    first: Vec<u8>,
    second: Vec<u8>,
) -> PyResult<Py<NdArray>> {
    let d = to_dtype(py, dtype)?;
    let dev = device::current().or_raise()?;
    NdArray::wrap(py, creation::arange(dev, n, d, &first, &second).or_raise()?)
}

/// `dst[...] = src`, converting to `dst`'s dtype (the caller checks the casting rule).
#[pyfunction]
fn _copyto(dst: &Bound<'_, NdArray>, src: &Bound<'_, NdArray>) -> PyResult<()> {
    let (d, s) = (array(dst), array(src));
    dst.py().detach(|| copy::cast_into(&s, &d)).or_raise()
}

/// `a` reversed along `axes` (all axes when `None`): a view.
#[pyfunction]
#[pyo3(signature = (a, axes = None))]
fn _flip(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    axes: Option<Vec<isize>>,
) -> PyResult<Py<NdArray>> {
    let a = array(a);
    let axes = axes
        .map(|ax| normalize_axes(py, &ax, a.ndim()))
        .transpose()?;
    let layout = a.layout().flip(axes.as_deref()).or_raise()?;
    NdArray::wrap(py, a.view(layout, a.dtype()).or_raise()?)
}

#[pyfunction]
fn _moveaxis(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    source: Vec<isize>,
    destination: Vec<isize>,
) -> PyResult<Py<NdArray>> {
    let a = array(a);
    let n = a.ndim();
    let source: Vec<isize> = source
        .iter()
        .map(|&s| Ok(normalize_axis_prefixed(py, s, n, Some("source"))? as isize))
        .collect::<PyResult<_>>()?;
    let destination: Vec<isize> = destination
        .iter()
        .map(|&s| Ok(normalize_axis_prefixed(py, s, n, Some("destination"))? as isize))
        .collect::<PyResult<_>>()?;
    let layout = a.layout().moveaxis(&source, &destination).or_raise()?;
    NdArray::wrap(py, a.view(layout, a.dtype()).or_raise()?)
}

#[pyfunction]
fn _expand_dims(py: Python<'_>, a: &Bound<'_, NdArray>, axes: Vec<isize>) -> PyResult<Py<NdArray>> {
    let a = array(a);
    let axes = normalize_axes(py, &axes, a.ndim() + axes.len())?;
    let layout = a.layout().expand_dims(&axes).or_raise()?;
    NdArray::wrap(py, a.view(layout, a.dtype()).or_raise()?)
}

/// The diagonal view (NumPy's `diagonal`; NumPy's is read-only, this one writable).
#[pyfunction]
#[pyo3(signature = (a, offset = 0, axis1 = 0, axis2 = 1))]
pub fn _diagonal(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    offset: isize,
    axis1: isize,
    axis2: isize,
) -> PyResult<Py<NdArray>> {
    let a = array(a);
    let n = a.ndim();
    if n < 2 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "diag requires an array of at least two dimensions",
        ));
    }
    let a1 = normalize_axis_prefixed(py, axis1, n, Some("axis1"))? as isize;
    let a2 = normalize_axis_prefixed(py, axis2, n, Some("axis2"))? as isize;
    let layout = a.layout().diagonal(offset, a1, a2).or_raise()?;
    NdArray::wrap(py, a.view(layout, a.dtype()).or_raise()?)
}

/// A view of `a` with `shape` (NumPy's `broadcast_to`).
#[pyfunction]
fn _broadcast_to(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    shape: Vec<usize>,
) -> PyResult<Py<NdArray>> {
    NdArray::wrap(py, array(a).broadcast_to(&shape).or_raise()?)
}

/// A view of `a`'s memory with `shape` and byte `strides` from `a`'s element (0, ..., 0)
/// (NumPy's `as_strided`): every stride a multiple of the item size, and every element
/// inside `a`'s buffer (a ValueError otherwise: no view may reach past the memory).
#[pyfunction]
fn _as_strided(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    shape: Vec<usize>,
    strides: Vec<isize>,
) -> PyResult<Py<NdArray>> {
    let a = array(a);
    let item = a.dtype().itemsize() as isize;
    if shape.len() != strides.len() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "shape and strides must have the same length",
        ));
    }
    if strides.iter().any(|s| s % item != 0) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "strides must be multiples of the item size ({item} bytes) in gpupy"
        )));
    }
    let layout = gpupy_host::layout::Layout {
        shape,
        strides: strides.iter().map(|s| s / item).collect(),
        offset: a.layout().offset,
    };
    NdArray::wrap(py, a.view(layout, a.dtype()).or_raise()?)
}

/// Whether two arrays view one device buffer (NumPy's `may_share_memory`, by buffer).
#[pyfunction]
fn _shares_buffer(a: &Bound<'_, NdArray>, b: &Bound<'_, NdArray>) -> bool {
    array(a).shares_buffer(&array(b))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_arange, m)?)?;
    m.add_function(wrap_pyfunction!(_as_strided, m)?)?;
    m.add_function(wrap_pyfunction!(_copyto, m)?)?;
    m.add_function(wrap_pyfunction!(_flip, m)?)?;
    m.add_function(wrap_pyfunction!(_moveaxis, m)?)?;
    m.add_function(wrap_pyfunction!(_expand_dims, m)?)?;
    m.add_function(wrap_pyfunction!(_diagonal, m)?)?;
    m.add_function(wrap_pyfunction!(_broadcast_to, m)?)?;
    m.add_function(wrap_pyfunction!(_shares_buffer, m)?)?;
    Ok(())
}
