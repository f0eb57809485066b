//! The basic entries of Python index expressions (`a[1, ::-1, None, ...]`) as host
//! `Index` values; `indexing` splits keys into entries and handles the array ones.

use gpupy_host::layout::Index;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyEllipsis, PySlice};

pub(crate) fn parse_one(k: &Bound<'_, PyAny>) -> PyResult<Index> {
    if k.is_none() {
        return Ok(Index::NewAxis);
    }
    if k.is(PyEllipsis::get(k.py())) {
        return Ok(Index::Ellipsis);
    }
    if let Ok(s) = k.cast::<PySlice>() {
        let field = |name: &str| -> PyResult<Option<isize>> {
            let v = s.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                Ok(Some(index_value(&v)?))
            }
        };
        return Ok(Index::Slice {
            start: field("start")?,
            stop: field("stop")?,
            step: field("step")?,
        });
    }
    // Booleans are masks in NumPy, not integers.
    if !k.is_instance_of::<pyo3::types::PyBool>()
        && let Ok(i) = index_value(k)
    {
        return Ok(Index::Int(i));
    }
    // NumPy's message (arrays and booleans are parsed in `indexing` before this).
    Err(PyIndexError::new_err(
        "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
    ))
}

/// `operator.index(v)`: ints and anything with `__index__` (NumPy integers, say).
fn index_value(v: &Bound<'_, PyAny>) -> PyResult<isize> {
    if v.is_instance_of::<pyo3::types::PyInt>() {
        return v.extract::<isize>();
    }
    v.py()
        .import("operator")?
        .getattr("index")?
        .call1((v,))?
        .extract::<isize>()
}
