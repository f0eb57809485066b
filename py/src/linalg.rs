//! Linear-algebra bindings: the TF32 switch and the path switches of matrix products
//! (`gpupy.config`) and
//! the kernels behind `gpupy.linalg`'s factorizations: the dense LU/Cholesky/QR/solve
//! kernels and the Jacobi rotations behind singular values and Hermitian eigenproblems.
//! The products themselves are `matmul::matmul`/`matmul::dot`; the compositions on top of
//! them (`einsum`, `tensordot`, norms, ...) are in `python/gpupy/_linalg.py`, which also
//! builds singular values on `_svd_jacobi`.

use gpupy_host::ops::linalg::{dense, grid, svd};
use gpupy_host::ops::matmul::mma;
use pyo3::prelude::*;

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// Turns TF32 tensor cores for float32 matrix products on or off (process-wide).
#[pyfunction]
fn _set_tf32(on: bool) {
    mma::set_tf32(on);
}

/// Whether float32 matrix products run on TF32 tensor cores.
#[pyfunction]
fn _tf32() -> bool {
    mma::tf32()
}

/// The kernel family of the last matrix product ("simt", "gemv", "mma", "wgmma"), for
/// tests that must know which path ran.
#[pyfunction]
fn _matmul_path() -> &'static str {
    mma::last_path()
}

/// The matmul path switches in force: `(tile, no_tc, no_sm90, no_wgmma)`.
#[pyfunction]
fn _matmul_switches() -> (Option<String>, bool, bool, bool) {
    let s = mma::switches();
    (s.tile, s.no_tc, s.no_sm90, s.no_wgmma)
}

/// Sets the matmul path switches (process-wide; see `gpupy.config.matmul_switches`).
#[pyfunction]
#[pyo3(signature = (tile, no_tc, no_sm90, no_wgmma))]
fn _set_matmul_switches(tile: Option<String>, no_tc: bool, no_sm90: bool, no_wgmma: bool) {
    mma::set_switches(mma::Switches {
        tile,
        no_tc,
        no_sm90,
        no_wgmma,
    });
}

/// One-sided Jacobi on `w` in place (C-contiguous float64/complex128, shape `(..., n, m)`,
/// each of the `n` rows one column of the matrix, `n <= m`): rotates pairs until their
/// inner products (over the first `dot_rows` elements, default all) fall below `tol`
/// times their norms. Returns whether it converged; `gpupy._linalg.svdvals` raises
/// NumPy's `LinAlgError` when not.
#[pyfunction]
#[pyo3(signature = (w, tol, dot_rows=None))]
fn _svd_jacobi(
    py: Python<'_>,
    w: &Bound<'_, NdArray>,
    tol: f64,
    dot_rows: Option<usize>,
) -> PyResult<bool> {
    let w = &w.get().inner;
    let rows = dot_rows.unwrap_or_else(|| w.shape().last().copied().unwrap_or(0));
    py.detach(|| svd::jacobi_orthogonalize(w, rows, tol))
        .or_raise()
}

/// LU with partial pivoting in place of `a` (`(batch, m, n)`, rows contiguous), pivots
/// into `piv` (int32 `(batch, min(m, n))`), LAPACK's info into `info` (uint32
/// `(batch,)`); with `b`, also solves `A X = B` in place (or writes `A^-1` with
/// `identity`).
#[pyfunction]
#[pyo3(signature = (a, piv, info, b=None, identity=false, left=0, right=0, row=0))]
#[allow(clippy::too_many_arguments)]
fn _linalg_getrf(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    piv: &Bound<'_, NdArray>,
    info: &Bound<'_, NdArray>,
    b: Option<&Bound<'_, NdArray>>,
    identity: bool,
    left: usize,
    right: usize,
    row: usize,
) -> PyResult<()> {
    let (a, piv, info) = (&a.get().inner, &piv.get().inner, &info.get().inner);
    let b = b.map(|b| &b.get().inner);
    let panel = dense::Panel { left, right, row };
    py.detach(|| dense::getrf(a, piv, info, b, identity, panel))
        .or_raise()
}

/// LU of the panels `a` (`(batch, m, n)`, at most 16 columns, inside a larger matrix
/// whose rows hold `left` elements before and `right` after the panel's): as
/// `_linalg_getrf` with those, spread over the GPU in blocks of `threads` threads.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn _linalg_lu_panel(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    piv: &Bound<'_, NdArray>,
    info: &Bound<'_, NdArray>,
    left: usize,
    right: usize,
    row: usize,
    threads: u32,
) -> PyResult<()> {
    let (a, piv, info) = (&a.get().inner, &piv.get().inner, &info.get().inner);
    let panel = dense::Panel { left, right, row };
    py.detach(|| grid::lu_panel(a, piv, info, panel, threads))
        .or_raise()
}

/// LAPACK `laswp`: `piv`'s row interchanges on `b` (`(batch, m, k)`), in order or
/// reversed.
#[pyfunction]
fn _linalg_laswp(
    py: Python<'_>,
    b: &Bound<'_, NdArray>,
    piv: &Bound<'_, NdArray>,
    forward: bool,
) -> PyResult<()> {
    let (b, piv) = (&b.get().inner, &piv.get().inner);
    py.detach(|| dense::laswp(b, piv, forward)).or_raise()
}

/// Solves `op(T) X = B` in place of `b` (`(batch, n, k)`) for the `lower`/upper triangle
/// of `t` (`(batch, n, n)`); `trans` 0/1/2; with `piv`, `b`'s rows are interchanged
/// before (`piv_before`) or after (reversed).
#[pyfunction]
#[pyo3(signature = (t, b, lower, trans=0, unit=false, piv=None, piv_before=true))]
#[allow(clippy::too_many_arguments)]
fn _linalg_trsm(
    py: Python<'_>,
    t: &Bound<'_, NdArray>,
    b: &Bound<'_, NdArray>,
    lower: bool,
    trans: u32,
    unit: bool,
    piv: Option<&Bound<'_, NdArray>>,
    piv_before: bool,
) -> PyResult<()> {
    let (t, b) = (&t.get().inner, &b.get().inner);
    let piv = piv.map(|p| &p.get().inner);
    py.detach(|| dense::trsm(t, b, lower, trans, unit, piv, piv_before))
        .or_raise()
}

/// Cholesky of the lower triangle of `a` (`(batch, n, n)`) in place; info into `info`.
#[pyfunction]
fn _linalg_potrf(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    info: &Bound<'_, NdArray>,
) -> PyResult<()> {
    let (a, info) = (&a.get().inner, &info.get().inner);
    py.detach(|| dense::potrf(a, info)).or_raise()
}

/// Householder QR of `a` (`(batch, m, n)`) in place, `tau` `(batch, min(m, n))`; with
/// `v`, the reflectors as an explicit unit lower trapezoid too.
#[pyfunction]
#[pyo3(signature = (a, tau, v=None))]
fn _linalg_geqrf(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    tau: &Bound<'_, NdArray>,
    v: Option<&Bound<'_, NdArray>>,
) -> PyResult<()> {
    let (a, tau) = (&a.get().inner, &tau.get().inner);
    let v = v.map(|v| &v.get().inner);
    py.detach(|| dense::geqrf(a, tau, v)).or_raise()
}

/// Householder QR of the panels `a` (`(batch, m, n)`, at most 16 columns) as
/// `_linalg_geqrf` (with `v`, the explicit reflectors too), spread over the GPU in
/// blocks of `threads`.
#[pyfunction]
#[pyo3(signature = (a, tau, v, threads))]
fn _linalg_qr_panel(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    tau: &Bound<'_, NdArray>,
    v: Option<&Bound<'_, NdArray>>,
    threads: u32,
) -> PyResult<()> {
    let (a, tau) = (&a.get().inner, &tau.get().inner);
    let v = v.map(|v| &v.get().inner);
    py.detach(|| grid::qr_panel(a, tau, v, threads)).or_raise()
}

/// The block reflector of QR panels in the UT form: from the reflectors below the
/// diagonal of `h` (`(batch, m, k)`, `k <= 16`) and `tau`, the explicit `V` into `v`
/// (`h` itself or apart from it) and `M = striu(V^H V) + diag(1 / tau)` into `mt`.
#[pyfunction]
fn _linalg_qr_ut(
    py: Python<'_>,
    h: &Bound<'_, NdArray>,
    tau: &Bound<'_, NdArray>,
    v: &Bound<'_, NdArray>,
    mt: &Bound<'_, NdArray>,
) -> PyResult<()> {
    let (h, tau) = (&h.get().inner, &tau.get().inner);
    let (v, mt) = (&v.get().inner, &mt.get().inner);
    py.detach(|| grid::qr_ut(h, tau, v, mt)).or_raise()
}

/// The first `q.shape[2]` columns of `Q` from `geqrf`'s `h` and `tau` into `q`.
#[pyfunction]
fn _linalg_orgqr(
    py: Python<'_>,
    h: &Bound<'_, NdArray>,
    tau: &Bound<'_, NdArray>,
    q: &Bound<'_, NdArray>,
) -> PyResult<()> {
    let (h, tau, q) = (&h.get().inner, &tau.get().inner, &q.get().inner);
    py.detach(|| dense::orgqr(h, tau, q)).or_raise()
}

/// General eigenproblems of complex `a` (`(batch, n, n)`) in place: the Schur form in
/// `a`, the Schur vectors in `z`, with `vectors` the triangular factor's eigenvectors
/// in `a`'s strictly lower triangle; LAPACK's info into `info`.
#[pyfunction]
fn _linalg_geev(
    py: Python<'_>,
    a: &Bound<'_, NdArray>,
    z: &Bound<'_, NdArray>,
    info: &Bound<'_, NdArray>,
    vectors: bool,
) -> PyResult<()> {
    let (a, z, info) = (&a.get().inner, &z.get().inner, &info.get().inner);
    py.detach(|| dense::geev(a, z, info, vectors)).or_raise()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_set_tf32, m)?)?;
    m.add_function(wrap_pyfunction!(_tf32, m)?)?;
    m.add_function(wrap_pyfunction!(_matmul_path, m)?)?;
    m.add_function(wrap_pyfunction!(_matmul_switches, m)?)?;
    m.add_function(wrap_pyfunction!(_set_matmul_switches, m)?)?;
    m.add_function(wrap_pyfunction!(_svd_jacobi, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_getrf, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_trsm, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_laswp, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_lu_panel, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_qr_panel, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_qr_ut, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_potrf, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_geqrf, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_orgqr, m)?)?;
    m.add_function(wrap_pyfunction!(_linalg_geev, m)?)?;
    Ok(())
}
