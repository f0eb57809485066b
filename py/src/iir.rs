//! Recursive-filter bindings: the private entry points behind `gpupyx.scipy.signal`'s
//! `lfilter` and `sosfilt` (and `filtfilt`/`sosfiltfilt` built on them). SciPy's
//! signatures, result dtypes, checks, messages and the normalization by `a[0]` live in
//! Python (`python/gpupyx/scipy/signal/_iir.py`); these filter into fresh arrays of the
//! compute dtype. Coefficients come as `(real, imaginary)` pairs.

use gpupy_host::Array;
use gpupy_host::ops::iir::{self, c128};
use pyo3::prelude::*;

use crate::convert::to_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

type Filtered = (Py<NdArray>, Option<Py<NdArray>>);

fn complex(v: &[(f64, f64)]) -> Vec<c128> {
    v.iter().map(|&(re, im)| c128::new(re, im)).collect()
}

fn wrap(py: Python<'_>, (y, zf): (Array, Option<Array>)) -> PyResult<Filtered> {
    let zf = zf.map(|z| NdArray::wrap(py, z)).transpose()?;
    Ok((NdArray::wrap(py, y)?, zf))
}

/// `lfilter` of `x` along `axis` with `b` and `a` (normalized, `a[0] = 1`, of one
/// length), from `zi` (the input's shape with `axis` replaced by `len(b) - 1`) or from
/// rest, in `dtype` (float32, float64, complex64 or complex128): `(y, zf or None)`.
#[pyfunction]
#[pyo3(signature = (x, b, a, axis, zi, dtype))]
fn _lfilter(
    py: Python<'_>,
    x: PyRef<'_, NdArray>,
    b: Vec<(f64, f64)>,
    a: Vec<(f64, f64)>,
    axis: usize,
    zi: Option<PyRef<'_, NdArray>>,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Filtered> {
    let (x, zi, dtype) = (
        x.inner.clone(),
        zi.map(|z| z.inner.clone()),
        to_dtype(py, dtype)?,
    );
    let (b, a) = (complex(&b), complex(&a));
    let out = py
        .detach(|| iir::lfilter(&x, axis, &b, &a, zi.as_ref(), dtype))
        .or_raise()?;
    wrap(py, out)
}

/// `sosfilt` of `x` along `axis` through the sections `sos` (rows `b0 b1 b2 1 a1 a2`),
/// from `zi` (the input's shape with `axis` replaced by `2 * len(sos)`) or from rest, in
/// `dtype`: `(y, zf or None)`.
#[pyfunction]
#[pyo3(signature = (x, sos, axis, zi, dtype))]
fn _sosfilt(
    py: Python<'_>,
    x: PyRef<'_, NdArray>,
    sos: Vec<[(f64, f64); 6]>,
    axis: usize,
    zi: Option<PyRef<'_, NdArray>>,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Filtered> {
    let (x, zi, dtype) = (
        x.inner.clone(),
        zi.map(|z| z.inner.clone()),
        to_dtype(py, dtype)?,
    );
    let sos: Vec<[c128; 6]> = sos
        .iter()
        .map(|row| row.map(|(re, im)| c128::new(re, im)))
        .collect();
    let out = py
        .detach(|| iir::sosfilt(&x, axis, &sos, zi.as_ref(), dtype))
        .or_raise()?;
    wrap(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_lfilter, m)?)?;
    m.add_function(wrap_pyfunction!(_sosfilt, m)?)?;
    Ok(())
}
