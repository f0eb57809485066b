//! Matrix products (`matmul`, `dot`, `@`). Operators return `NotImplemented` for operands they don't know, so
//! Python can try the other side; functions raise TypeError instead.

use gpupy_host::Array;
use gpupy_host::ops::{elementwise::copy, matmul as mm};
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

/// NumPy's `matmul` (the `@` operator): `out=` is written directly when its layout
/// allows; `dtype=` converts the operands first.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, out = None, *, dtype = None))]
pub fn matmul(
    py: Python<'_>,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<NdArray>> {
    let (mut a, mut b) = (array_arg(x1)?.clone(), array_arg(x2)?.clone());
    if let Some(d) = dtype.filter(|d| !d.is_none()) {
        let d = crate::convert::to_dtype(py, d)?;
        a = copy::astype(&a, d).or_raise()?;
        b = copy::astype(&b, d).or_raise()?;
    }
    match out {
        None => NdArray::wrap(py, mm::matmul(&a, &b).or_raise()?),
        Some(o) => {
            mm::matmul_out(&a, &b, Some(&o.get().inner)).or_raise()?;
            Ok(o.clone().unbind())
        }
    }
}

/// NumPy's `dot`: operands of up to two dimensions here; the N-d rules are composed in
/// Python (`gpupy._linalg._dot_nd`).
#[pyfunction]
#[pyo3(signature = (a, b, out = None))]
pub fn dot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let (x, y) = (array_arg(a)?, array_arg(b)?);
    if x.ndim() > 2 || y.ndim() > 2 {
        let f = py.import("gpupy._linalg")?.getattr("_dot_nd")?;
        return Ok(f.call1((a, b, out))?.extract::<Py<NdArray>>()?);
    }
    match out {
        None => NdArray::wrap(py, mm::dot(x, y).or_raise()?),
        Some(o) => {
            mm::dot_out(x, y, Some(&o.get().inner)).or_raise()?;
            Ok(o.clone().unbind())
        }
    }
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

/// `c -= a @ b` in place (the blocked factorizations' trailing updates): the product
/// subtracted in the kernels' store where `c`'s layout allows (see
/// `gpupy_host::ops::matmul::matmul_sub_into`).
#[pyfunction]
fn _matmul_sub(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    b: &Bound<'_, NdArray>,
    c: &Bound<'_, NdArray>,
) -> PyResult<()> {
    let (a, b, c) = (&a.get().inner, &b.get().inner, &c.get().inner);
    py.detach(|| mm::matmul_sub_into(a, b, c)).or_raise()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(dot, m)?)?;
    m.add_function(wrap_pyfunction!(_matmul_sub, m)?)?;
    Ok(())
}

/// `@`, `@=` and `a.dot(b)`.
#[pymethods]
impl NdArray {
    fn __matmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        Ok(matmul_operator(py, slf.as_any(), other)?
            .map_or_else(|| py.NotImplemented(), Py::into_any))
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        Ok(matmul_operator(py, other, slf.as_any())?
            .map_or_else(|| py.NotImplemented(), Py::into_any))
    }
    /// `a @= b`: NumPy's `matmul(a, b, out=a)` (the product must have `a`'s shape and
    /// cast to its dtype under `same_kind`).
    fn __imatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let Ok(b) = other.cast::<NdArray>() else {
            return Err(PyTypeError::new_err(
                "matmul needs gpupy arrays on both sides",
            ));
        };
        let dst = &slf.get().inner;
        gpupy_host::ops::matmul::matmul_out(dst, &b.get().inner, Some(dst)).or_raise()?;
        Ok(())
    }
    #[pyo3(signature = (b, out = None))]
    fn dot(
        slf: &Bound<'_, Self>,
        b: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, NdArray>>,
    ) -> PyResult<Py<NdArray>> {
        dot(slf.py(), slf.as_any(), b, out)
    }
}
