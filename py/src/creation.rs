//! New arrays: from shapes and fill values (the dtype's bytes, prepared in Python) and
//! from NumPy arrays.

use gpupy_host::ops::elementwise::fill;
use gpupy_host::{Array, device};
use pyo3::prelude::*;

use crate::convert::prepare_host;
use crate::convert::{from_numpy, to_dtype, to_numpy};
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

#[pyfunction]
fn _empty(py: Python<'_>, shape: Vec<usize>, dtype: &Bound<'_, PyAny>) -> PyResult<Py<NdArray>> {
    let d = to_dtype(py, dtype)?;
    NdArray::wrap(
        py,
        Array::empty(device::current().or_raise()?, &shape, d).or_raise()?,
    )
}

/// `value` is one element of `dtype`, as bytes (`numpy.array(v, dtype).tobytes()`).
#[pyfunction]
fn _full(
    py: Python<'_>,
    shape: Vec<usize>,
    dtype: &Bound<'_, PyAny>,
    value: Vec<u8>,
) -> PyResult<Py<NdArray>> {
    let d = to_dtype(py, dtype)?;
    NdArray::wrap(
        py,
        fill::full(device::current().or_raise()?, &shape, d, &value).or_raise()?,
    )
}

/// A device copy of anything `numpy.asarray` takes.
#[pyfunction]
#[pyo3(signature = (obj, dtype = None))]
fn _from_host(
    py: Python<'_>,
    obj: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<NdArray>> {
    let d = match dtype {
        Some(d) if !d.is_none() => Some(to_dtype(py, d)?),
        _ => None,
    };
    let host = prepare_host(py, obj, d)?;
    NdArray::wrap(py, from_numpy(py, &host)?)
}

#[pyfunction]
fn _to_host<'py>(py: Python<'py>, a: &Bound<'py, NdArray>) -> PyResult<Bound<'py, PyAny>> {
    to_numpy(py, &a.get().inner)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_empty, m)?)?;
    m.add_function(wrap_pyfunction!(_full, m)?)?;
    m.add_function(wrap_pyfunction!(_from_host, m)?)?;
    m.add_function(wrap_pyfunction!(_to_host, m)?)?;
    Ok(())
}
