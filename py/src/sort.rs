//! Sorting and searching from Python: `_sort` (sort/argsort along an axis) and
//! `_searchsorted`, the kernels `gpupy._sorting` builds NumPy's sorting, searching,
//! `unique` and quantile functions from. Argument checks with NumPy's messages (kinds,
//! `kth`, axes) happen in Python; these take normalized arguments.

use gpupy_host::ops::sort;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// A new array: `a` sorted along `axis` (flattened when `None`), or with `argsort` the
/// int64 indices that sort it. Always stable.
#[pyfunction]
#[pyo3(signature = (a, axis, argsort))]
fn _sort(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    axis: Option<isize>,
    argsort: bool,
) -> PyResult<Py<NdArray>> {
    let a = &a.get().inner;
    let r = py.detach(|| sort::sort(a, axis, argsort)).or_raise()?;
    NdArray::wrap(py, r)
}

/// Int64 insertion points of `values` into the 1-d `sorted` (same dtype): before equal
/// values, or after them with `right`.
#[pyfunction]
fn _searchsorted(
    py: Python<'_>,
    sorted: &Bound<'_, NdArray>,
    values: &Bound<'_, NdArray>,
    right: bool,
) -> PyResult<Py<NdArray>> {
    let (s, v) = (&sorted.get().inner, &values.get().inner);
    let r = py.detach(|| sort::searchsorted(s, v, right)).or_raise()?;
    NdArray::wrap(py, r)
}

fn call_sorting<'py>(
    slf: &Bound<'py, NdArray>,
    name: &str,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    let mut all = vec![slf.clone().into_any()];
    all.extend(args.iter());
    Ok(py
        .import("gpupy._sorting")?
        .getattr(name)?
        .call(PyTuple::new(py, all)?, kwargs)?
        .unbind())
}

/// NumPy's sorting and searching methods, implemented in `gpupy._sorting` (with NumPy's
/// signatures and argument checks there).
#[pymethods]
impl NdArray {
    /// `a.sort(axis=-1, kind=None, order=None, *, stable=None)`: sorts in place.
    #[pyo3(signature = (*args, **kwargs))]
    fn sort(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        call_sorting(slf, "_method_sort", args, kwargs)
    }
    /// `a.argsort(axis=-1, kind=None, order=None, *, stable=None)`.
    #[pyo3(signature = (*args, **kwargs))]
    fn argsort(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        call_sorting(slf, "_method_argsort", args, kwargs)
    }
    /// `a.partition(kth, axis=-1, kind='introselect', order=None)`: in place.
    #[pyo3(signature = (*args, **kwargs))]
    fn partition(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        call_sorting(slf, "_method_partition", args, kwargs)
    }
    /// `a.argpartition(kth, axis=-1, kind='introselect', order=None)`.
    #[pyo3(signature = (*args, **kwargs))]
    fn argpartition(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        call_sorting(slf, "_method_argpartition", args, kwargs)
    }
    /// `a.searchsorted(v, side='left', sorter=None)`.
    #[pyo3(signature = (*args, **kwargs))]
    fn searchsorted(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        call_sorting(slf, "_method_searchsorted", args, kwargs)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sort, m)?)?;
    m.add_function(wrap_pyfunction!(_searchsorted, m)?)?;
    Ok(())
}
