//! Sorting and searching from Python: `_sort` (sort/argsort along an axis) and
//! `_searchsorted`, the kernels `gpupy._sorting` builds NumPy's sorting, searching,
//! `unique` and quantile functions from. Argument checks with NumPy's messages (kinds,
//! `kth`, axes) happen in Python; these take normalized arguments.

use gpupy_host::ops::sort;
use pyo3::prelude::*;

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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sort, m)?)?;
    m.add_function(wrap_pyfunction!(_searchsorted, m)?)?;
    Ok(())
}
