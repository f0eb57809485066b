//! Matrix products. Operators return `NotImplemented` for operands they don't know, so
//! Python can try the other side; functions raise TypeError instead.

use gpupy_host::Array;
use gpupy_host::ops::{copy, matmul as mm};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

fn array_arg<'a>(x: &'a Bound<'_, PyAny>) -> PyResult<&'a Array> {
    x.cast::<NdArray>().map(|a| &a.get().inner).map_err(|_| {
        PyTypeError::new_err(format!(
            "Unsupported type {} (expected a gpupy.ndarray)",
            x.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })
}

/// Writes `r` into `out` when given (NumPy's `out=`), else wraps it.
fn into_out(py: Python<'_>, r: Array, out: Option<&Bound<'_, NdArray>>) -> PyResult<Py<NdArray>> {
    match out {
        None => NdArray::wrap(py, r),
        Some(o) => {
            let dst = &o.get().inner;
            let r = if r.dtype() == dst.dtype() {
                r
            } else {
                copy::astype(&r, dst.dtype()).or_raise()?
            };
            if r.shape() != dst.shape() {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "output array has shape {:?}, the result has shape {:?}",
                    dst.shape(),
                    r.shape()
                )));
            }
            copy::copy_into(&r, dst).or_raise()?;
            Ok(o.clone().unbind())
        }
    }
}

/// NumPy's `matmul` (the `@` operator).
#[pyfunction]
#[pyo3(signature = (x1, x2, /, out = None))]
pub fn matmul(
    py: Python<'_>,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let r = mm::matmul(array_arg(x1)?, array_arg(x2)?).or_raise()?;
    into_out(py, r, out)
}

/// NumPy's `dot` for arrays of up to two dimensions.
#[pyfunction]
#[pyo3(signature = (a, b, out = None))]
pub fn dot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let r = mm::dot(array_arg(a)?, array_arg(b)?).or_raise()?;
    into_out(py, r, out)
}

/// `a @ b` as an operator: `Ok(None)` means NotImplemented.
pub fn matmul_operator(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<NdArray>>> {
    let scalar = |v: &Bound<'_, PyAny>| {
        v.is_instance_of::<pyo3::types::PyInt>()
            || v.is_instance_of::<pyo3::types::PyFloat>()
            || v.is_instance_of::<pyo3::types::PyComplex>()
    };
    if scalar(a) || scalar(b) {
        // NumPy: matmul takes no scalars.
        let i = if scalar(a) { 0 } else { 1 };
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "matmul: Input operand {i} does not have enough dimensions (has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)"
        )));
    }

    let (Ok(x), Ok(y)) = (a.cast::<NdArray>(), b.cast::<NdArray>()) else {
        return Ok(None);
    };
    Ok(Some(NdArray::wrap(
        py,
        mm::matmul(&x.get().inner, &y.get().inner).or_raise()?,
    )?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(dot, m)?)?;
    Ok(())
}
