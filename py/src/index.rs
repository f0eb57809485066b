//! Python index expressions (`a[1, ::-1, None, ...]`) as host `Index` lists.

use gpupy_host::layout::Index;
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyEllipsis, PySlice, PyTuple};

pub fn parse(key: &Bound<'_, PyAny>) -> PyResult<Vec<Index>> {
    match key.cast::<PyTuple>() {
        Ok(items) => items.iter().map(|k| parse_one(&k)).collect(),
        Err(_) => Ok(vec![parse_one(key)?]),
    }
}

fn parse_one(k: &Bound<'_, PyAny>) -> PyResult<Index> {
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
    Err(PyIndexError::new_err(
        "only integers, slices (`:`), ellipsis (`...`) and numpy.newaxis (`None`) are valid gpupy indices so far \
         (integer and boolean array indexing is not implemented yet)",
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
