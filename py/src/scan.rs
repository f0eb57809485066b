//! Scans and counting: the private entry points behind `gpupy._scan` (`cumsum`,
//! `cumprod`, their NaN forms, `cumulative_sum`/`cumulative_prod`, `bincount`,
//! `histogram`). Argument handling, NumPy's dtype resolution and the `cumsum`/`cumprod`
//! array methods live in Python (`python/gpupy/_scan.py`); these take resolved
//! arguments and run the host operations.

use gpupy_host::Array;
use gpupy_host::ops::histogram::{self as hist, Extremes};
use gpupy_host::ops::scan::{self, ScanOp};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::convert::to_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

fn array<'a>(x: &'a Bound<'_, PyAny>, what: &str) -> PyResult<&'a Array> {
    x.cast::<NdArray>()
        .map(|a| &a.get().inner)
        .map_err(|_| PyTypeError::new_err(format!("{what} must be a gpupy.ndarray")))
}

fn scan_op(op: &str) -> PyResult<ScanOp> {
    match op {
        "sum" => Ok(ScanOp::Sum),
        "prod" => Ok(ScanOp::Prod),
        _ => Err(PyValueError::new_err(format!("unknown scan {op:?}"))),
    }
}

/// A new array: the scan of `x` along `axis` (already normalized) in result `dtype`.
#[pyfunction]
fn _scan(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: usize,
    op: &str,
    nan: bool,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, op, d) = (array(x, "x")?.clone(), scan_op(op)?, to_dtype(py, dtype)?);
    let r = py.detach(|| scan::scan(&a, axis, op, nan, d)).or_raise()?;
    NdArray::wrap(py, r)
}

/// The scan of `x` along `axis` written into `out` (same shape; its dtype is the result
/// dtype), for `include_initial`'s view of a larger output.
#[pyfunction]
fn _scan_into(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    axis: usize,
    op: &str,
    nan: bool,
    out: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (a, o, op) = (
        array(x, "x")?.clone(),
        array(out, "out")?.clone(),
        scan_op(op)?,
    );
    py.detach(|| scan::scan_into(&a, axis, op, nan, &o))
        .or_raise()
}

/// `(min, max, has_nan)` of `x` as Python numbers (`None` when empty): ints for integer
/// and bool input, floats for float input.
#[pyfunction]
fn _minmax<'py>(py: Python<'py>, x: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let a = array(x, "x")?.clone();
    let e = py.detach(|| hist::minmax(&a)).or_raise()?;
    Ok(match e {
        Extremes::Empty => py.None().into_bound(py),
        Extremes::Int { min, max } => (min, max, false).into_pyobject(py)?.into_any(),
        Extremes::Float { min, max, nan } => (min, max, nan).into_pyobject(py)?.into_any(),
    })
}

#[pyfunction]
#[pyo3(signature = (x, weights, minlength))]
fn _bincount(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    weights: Option<&Bound<'_, PyAny>>,
    minlength: usize,
) -> PyResult<Py<NdArray>> {
    let a = array(x, "x")?.clone();
    let w = weights.map(|w| array(w, "weights").cloned()).transpose()?;
    let r = py
        .detach(|| hist::bincount(&a, w.as_ref(), minlength))
        .or_raise()?;
    NdArray::wrap(py, r)
}

#[pyfunction]
#[pyo3(signature = (x, weights, edges, lo, hi, denom, scale, div))]
#[allow(clippy::too_many_arguments)]
fn _histogram_uniform(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    weights: Option<&Bound<'_, PyAny>>,
    edges: &Bound<'_, PyAny>,
    lo: f64,
    hi: f64,
    denom: f64,
    scale: f64,
    div: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, e) = (array(x, "x")?.clone(), array(edges, "edges")?.clone());
    let w = weights.map(|w| array(w, "weights").cloned()).transpose()?;
    let div = to_dtype(py, div)?;
    let r = py
        .detach(|| hist::histogram_uniform(&a, w.as_ref(), &e, lo, hi, denom, scale, div))
        .or_raise()?;
    NdArray::wrap(py, r)
}

#[pyfunction]
#[pyo3(signature = (x, weights, edges))]
fn _histogram_edges(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    weights: Option<&Bound<'_, PyAny>>,
    edges: &Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let (a, e) = (array(x, "x")?.clone(), array(edges, "edges")?.clone());
    let w = weights.map(|w| array(w, "weights").cloned()).transpose()?;
    let r = py
        .detach(|| hist::histogram_edges(&a, w.as_ref(), &e))
        .or_raise()?;
    NdArray::wrap(py, r)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_scan, m)?)?;
    m.add_function(wrap_pyfunction!(_scan_into, m)?)?;
    m.add_function(wrap_pyfunction!(_minmax, m)?)?;
    m.add_function(wrap_pyfunction!(_bincount, m)?)?;
    m.add_function(wrap_pyfunction!(_histogram_uniform, m)?)?;
    m.add_function(wrap_pyfunction!(_histogram_edges, m)?)?;
    Ok(())
}
