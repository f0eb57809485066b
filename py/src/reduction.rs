//! The reduction engine's entry point for Python. NumPy's signatures (`dtype=`, `out=`,
//! `where`-less `initial=`, the NaN-aware variants, `average`, `ptp`) are composed in
//! `gpupy/_reduction.py`; this takes validated axes and runs one reduction.

use gpupy_host::layout::Layout;
use gpupy_host::ops::reduce::{self, Finish};
use gpupy_host::table::ReduceOp;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// `_reduce(a, op, axes, keepdims, ddof, root)`: reduction `op` (a name such as "sum" or
/// "nanargmax") of `a` over `axes` (distinct and in range, or None for all), with
/// `ddof` and `root` for var/std. Returns a new array (0-d for a full reduction).
#[pyfunction]
#[pyo3(signature = (a, op, axes = None, keepdims = false, ddof = 0.0, root = false))]
fn _reduce(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    op: &str,
    axes: Option<Vec<usize>>,
    keepdims: bool,
    ddof: f64,
    root: bool,
) -> PyResult<Py<NdArray>> {
    let a = &a.get().inner;
    let op = ReduceOp::ALL
        .iter()
        .copied()
        .find(|o| o.name() == op)
        .ok_or_else(|| PyValueError::new_err(format!("unknown reduction {op:?}")))?;
    let axes: Vec<usize> = axes.unwrap_or_else(|| (0..a.ndim()).collect());
    if axes.iter().any(|&d| d >= a.ndim()) {
        return Err(PyValueError::new_err(format!(
            "axes {axes:?} out of range for {} dimensions",
            a.ndim()
        )));
    }
    let finish = Finish {
        ddof,
        root: root as u32,
        ..Finish::default()
    };
    let mut r = reduce::reduce(a, op, &axes, finish).or_raise()?;
    if keepdims {
        let shape: Vec<usize> = (0..a.ndim())
            .map(|d| if axes.contains(&d) { 1 } else { a.shape()[d] })
            .collect();
        r = r.view(Layout::contiguous(&shape), r.dtype()).or_raise()?;
    }
    NdArray::wrap(py, r)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_reduce, m)?)
}
