//! Sparse bindings: the private entry points behind `gpupyx.scipy.sparse`
//! (`python/gpupyx/scipy/sparse/_kernels.py` is their one caller). A compressed matrix
//! travels as its three arrays and its extents (`rows` is the major extent: a CSC
//! matrix passes its columns). SciPy's formats, rules and messages live in Python.

use gpupy_host::array::Array;
use gpupy_host::ops::sparse::{self, Compressed, Schedule};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

type Arrays<'py> = (
    PyRef<'py, NdArray>,
    PyRef<'py, NdArray>,
    PyRef<'py, NdArray>,
);

/// The checked matrix of `(data, indices, indptr)` with `rows` major and `cols` minor.
fn compressed(
    (data, indices, indptr): Arrays<'_>,
    rows: usize,
    cols: usize,
) -> PyResult<Compressed> {
    Compressed::new(&indptr.inner, &indices.inner, &data.inner, rows, cols).or_raise()
}

fn wrap(py: Python<'_>, a: Array) -> PyResult<Py<NdArray>> {
    NdArray::wrap(py, a)
}

/// The format checks of `indptr` (`rows + 1`) and `indices` over `cols`: the flags
/// (`gpupy_kernels::sparse::VALID_*`) and `indptr[rows]`.
#[pyfunction]
fn _sparse_validate(
    py: Python<'_>,
    indptr: PyRef<'_, NdArray>,
    indices: PyRef<'_, NdArray>,
    rows: usize,
    cols: usize,
) -> PyResult<(u64, i64)> {
    let (p, i) = (indptr.inner.clone(), indices.inner.clone());
    py.detach(|| sparse::validate(&p, &i, rows, cols))
        .or_raise()
}

/// The SpMV schedule of a matrix: lanes per row (1 to 32), or 0 for the merge path.
#[pyfunction]
fn _sparse_spmv_plan(py: Python<'_>, indptr: PyRef<'_, NdArray>, nnz: usize) -> PyResult<u32> {
    let p = indptr.inner.clone();
    let plan = py.detach(|| sparse::spmv_plan(&p, nnz)).or_raise()?;
    Ok(match plan {
        Schedule::Lanes(l) => l,
        Schedule::Merge => 0,
    })
}

/// `A x` on a schedule (`_sparse_spmv_plan`'s answer).
#[pyfunction]
fn _sparse_spmv(
    py: Python<'_>,
    m: Arrays<'_>,
    rows: usize,
    cols: usize,
    x: PyRef<'_, NdArray>,
    plan: u32,
) -> PyResult<Py<NdArray>> {
    let (m, x) = (compressed(m, rows, cols)?, x.inner.clone());
    let schedule = match plan {
        0 => Schedule::Merge,
        l if l.is_power_of_two() && l <= 32 => Schedule::Lanes(l),
        _ => return Err(PyValueError::new_err(format!("no SpMV schedule {plan}"))),
    };
    let y = py.detach(|| sparse::spmv(&m, &x, schedule)).or_raise()?;
    wrap(py, y)
}

/// `A X` for a 2-d `X`.
#[pyfunction]
fn _sparse_spmm(
    py: Python<'_>,
    m: Arrays<'_>,
    rows: usize,
    cols: usize,
    x: PyRef<'_, NdArray>,
) -> PyResult<Py<NdArray>> {
    let (m, x) = (compressed(m, rows, cols)?, x.inner.clone());
    let y = py.detach(|| sparse::spmm(&m, &x)).or_raise()?;
    wrap(py, y)
}

/// `A^T x` or `A^T X` (atomic adds).
#[pyfunction]
fn _sparse_spmm_t(
    py: Python<'_>,
    m: Arrays<'_>,
    rows: usize,
    cols: usize,
    x: PyRef<'_, NdArray>,
) -> PyResult<Py<NdArray>> {
    let (m, x) = (compressed(m, rows, cols)?, x.inner.clone());
    let y = py.detach(|| sparse::spmm_t(&m, &x)).or_raise()?;
    wrap(py, y)
}

/// The dense matrix, C or Fortran order; `canonical`: rows without duplicates.
#[pyfunction]
fn _sparse_todense(
    py: Python<'_>,
    m: Arrays<'_>,
    rows: usize,
    cols: usize,
    fortran: bool,
    canonical: bool,
) -> PyResult<Py<NdArray>> {
    let m = compressed(m, rows, cols)?;
    let y = py
        .detach(|| sparse::to_dense(&m, fortran, canonical))
        .or_raise()?;
    wrap(py, y)
}

/// Each entry's row (CSR to COO).
#[pyfunction]
fn _sparse_expand_rows(
    py: Python<'_>,
    indptr: PyRef<'_, NdArray>,
    nnz: usize,
) -> PyResult<Py<NdArray>> {
    let p = indptr.inner.clone();
    let y = py.detach(|| sparse::expand_rows(&p, nnz)).or_raise()?;
    wrap(py, y)
}

/// Segment reductions: (values, positions or None); `op` 0 sum, 1 max, 2 min.
#[pyfunction]
fn _sparse_segment(
    py: Python<'_>,
    starts: PyRef<'_, NdArray>,
    values: PyRef<'_, NdArray>,
    op: u32,
) -> PyResult<(Py<NdArray>, Option<Py<NdArray>>)> {
    let (s, v) = (starts.inner.clone(), values.inner.clone());
    let (out, pos) = py.detach(|| sparse::segment(&s, &v, op)).or_raise()?;
    Ok((wrap(py, out)?, pos.map(|p| wrap(py, p)).transpose()?))
}

/// `A B` of two CSR matrices (`m x k`, `k x n`): (indptr, indices, data, sorted).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn _sparse_spgemm(
    py: Python<'_>,
    a: Arrays<'_>,
    b: Arrays<'_>,
    m: usize,
    k: usize,
    n: usize,
) -> PyResult<(Py<NdArray>, Py<NdArray>, Py<NdArray>, bool)> {
    let (a, b) = (compressed(a, m, k)?, compressed(b, k, n)?);
    let (p, i, d, sorted) = py.detach(|| sparse::spgemm(&a, &b)).or_raise()?;
    Ok((wrap(py, p)?, wrap(py, i)?, wrap(py, d)?, sorted))
}

/// `op(A, B)` of two canonical matrices of one shape: (indptr, indices, data).
#[pyfunction]
fn _sparse_binop(
    py: Python<'_>,
    op: u32,
    a: Arrays<'_>,
    b: Arrays<'_>,
    rows: usize,
    cols: usize,
) -> PyResult<(Py<NdArray>, Py<NdArray>, Py<NdArray>)> {
    let (a, b) = (compressed(a, rows, cols)?, compressed(b, rows, cols)?);
    let (p, i, d) = py.detach(|| sparse::binop(op, &a, &b)).or_raise()?;
    Ok((wrap(py, p)?, wrap(py, i)?, wrap(py, d)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_sparse_validate, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_spmv_plan, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_spmv, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_spmm, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_spmm_t, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_todense, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_expand_rows, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_segment, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_spgemm, m)?)?;
    m.add_function(wrap_pyfunction!(_sparse_binop, m)?)?;
    Ok(())
}
