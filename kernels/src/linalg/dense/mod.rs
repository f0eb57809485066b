//! Dense factorizations of one matrix by one [`Team`]: LU with partial pivoting,
//! Cholesky, Householder QR (LAPACK's `geqrf` storage, with the block reflector's `T`
//! when asked, and the elements of its UT form, `ut_v` and `ut_m`), forming `Q`, and
//! triangular solves with several right-hand sides. These
//! are LAPACK's unblocked algorithms (`getf2`, `potf2`, `geqr2`, `org2r`, `larft`,
//! `trsm`) with each step's independent work spread over the team. The host runs them
//! on whole small matrices (a block per matrix, staged in shared memory) and on the
//! panels and diagonal blocks of the blocked algorithms for large ones
//! (`py/python/gpupy/linalg/_decomp.py`).
//!
//! Matrices are row-major with a leading dimension ([`Mat`]); rows are pivoted as
//! LAPACK pivots rows of `A` itself, so `lu` and `piv` mean what SciPy's `lu_factor`
//! returns for the same matrix.

pub mod args;
pub mod eig;

use super::scalar::Scalar;
use super::team::{Team, each, each_by_group, each2};

/// A row-major matrix view: element `(i, j)` at `ptr + i * ld + j`.
#[derive(Clone, Copy)]
pub struct Mat<T> {
    pub ptr: *mut T,
    pub ld: usize,
}

impl<T: Copy> Mat<T> {
    /// # Safety
    /// `(i, j)` lies inside the matrix the view was made for.
    #[inline(always)]
    pub unsafe fn get(self, i: usize, j: usize) -> T {
        // SAFETY: per the contract.
        unsafe { *self.ptr.add(i * self.ld + j) }
    }
    /// # Safety
    /// As for `get`; no other member touches `(i, j)` before the next barrier.
    #[inline(always)]
    pub unsafe fn set(self, i: usize, j: usize, v: T) {
        // SAFETY: per the contract.
        unsafe { *self.ptr.add(i * self.ld + j) = v }
    }
}

/// LU with partial pivoting of the `m x n` matrix `a` in place (LAPACK `getf2`):
/// `piv[j]` is `piv_base +` the row swapped with row `j` at step `j`. Row interchanges
/// also move the `swap.0` elements left of each row and the `swap.1` right of it: a
/// panel of a larger matrix swaps whole rows, so the blocked algorithm needs no
/// separate `laswp`. Returns LAPACK's `info`: 0, or `j + 1` for the first exactly zero
/// pivot (the factorization goes on past it).
///
/// # Safety
/// `a` holds `m x n`, and `swap.0` elements before and `swap.1` after each row; `piv`
/// `min(m, n)` entries; every member calls with the same arguments.
pub unsafe fn getrf<T: Scalar>(
    t: &impl Team,
    a: Mat<T>,
    m: usize,
    n: usize,
    piv: *mut i32,
    piv_base: usize,
    swap: (usize, usize),
) -> u32 {
    let mut info = 0;
    for j in 0..m.min(n) {
        // SAFETY (every access below): indices are inside m x n; phases between
        // barriers write disjoint elements.
        let p = t.argmax(j, m, |i| unsafe { a.get(i, j) }.abs1());
        if t.rank() == 0 {
            unsafe { *piv.add(j) = (p + piv_base) as i32 };
        }
        if p != j {
            // Column c of the whole row is at c - swap.0 from the panel's first.
            let (row_j, row_p) = unsafe { (a.ptr.add(j * a.ld), a.ptr.add(p * a.ld)) };
            each(t, 0, swap.0 + n + swap.1, |c| unsafe {
                let (x, y) = (row_j.add(c).sub(swap.0), row_p.add(c).sub(swap.0));
                let (vx, vy) = (*x, *y);
                *x = vy;
                *y = vx;
            });
            t.sync();
        }
        let d = unsafe { a.get(j, j) };
        if d == T::ZERO {
            // The whole column below is zero too (d has the largest magnitude):
            // nothing to scale or update.
            if info == 0 {
                info = j as u32 + 1;
            }
            continue;
        }
        each(t, j + 1, m, |i| unsafe { a.set(i, j, a.get(i, j).div(d)) });
        t.sync();
        each2(t, (j + 1, m), (j + 1, n), |i, c| unsafe {
            a.set(i, c, a.get(i, c).sub(a.get(i, j).mul(a.get(j, c))));
        });
        t.sync();
    }
    info
}

/// Applies the row interchanges `piv[0..n]` to the `k` columns of `b`: in order
/// (`forward`, LAPACK `laswp` with increment 1) or in reverse.
///
/// # Safety
/// `b` has at least `max(piv) + 1` rows and `k` columns; `piv` holds `n` rows of it.
pub unsafe fn swap_rows<T: Scalar>(
    t: &impl Team,
    b: Mat<T>,
    k: usize,
    piv: *const i32,
    n: usize,
    forward: bool,
) {
    // Each member owns whole columns, so it runs the swaps in order with no barrier.
    each(t, 0, k, |c| {
        for s in 0..n {
            let j = if forward { s } else { n - 1 - s };
            // SAFETY: j < n; piv[j] names a row of b.
            unsafe {
                let p = *piv.add(j) as usize;
                if p != j {
                    let (x, y) = (b.get(j, c), b.get(p, c));
                    b.set(j, c, y);
                    b.set(p, c, x);
                }
            }
        }
    });
    t.sync();
}

/// Which triangle of a matrix a solve uses, and how.
#[derive(Clone, Copy)]
pub struct Tri {
    /// The lower triangle (else the upper).
    pub lower: bool,
    /// 0: `T`, 1: `T^T`, 2: `T^H`.
    pub trans: u32,
    /// The diagonal is taken as ones and not read.
    pub unit: bool,
}

/// Solves `op(T) X = B` in place of the `n x k` matrix `b` (LAPACK `trsm` from the
/// left), one row of `X` per step: the step's row is divided by its diagonal, then
/// subtracted from the rows still to come.
///
/// # Safety
/// `tm` holds `n x n`, `b` `n x k`; every member calls with the same arguments.
pub unsafe fn trsm<T: Scalar>(t: &impl Team, tm: Mat<T>, n: usize, b: Mat<T>, k: usize, how: Tri) {
    // op(T) is lower triangular when exactly one of "lower" and "transposed" holds.
    let forward = how.lower == (how.trans == 0);
    // SAFETY (every access below): i, j < n, c < k.
    let el = |i: usize, j: usize| -> T {
        let v = unsafe {
            if how.trans == 0 {
                tm.get(i, j)
            } else {
                tm.get(j, i)
            }
        };
        if how.trans == 2 { v.conj() } else { v }
    };
    for s in 0..n {
        let j = if forward { s } else { n - 1 - s };
        if !how.unit {
            let d = el(j, j);
            each(t, 0, k, |c| unsafe { b.set(j, c, b.get(j, c).div(d)) });
            t.sync();
        }
        let rows = if forward { (j + 1, n) } else { (0, j) };
        each2(t, rows, (0, k), |i, c| unsafe {
            b.set(i, c, b.get(i, c).sub(el(i, j).mul(b.get(j, c))));
        });
        t.sync();
    }
}

/// Cholesky `A = L L^H` of the lower triangle of the `n x n` matrix `a` in place (LAPACK
/// `potf2`, right-looking); the upper triangle is set to zero on success. Returns 0, or
/// `j + 1` when the leading minor of order `j + 1` is not positive definite, where it
/// stops. A NaN is not caught: it propagates through the factor, as in the LAPACK
/// NumPy ships (OpenBLAS), whose `cholesky` then returns NaNs instead of raising.
///
/// # Safety
/// `a` holds `n x n`; every member calls with the same arguments.
pub unsafe fn potrf<T: Scalar>(t: &impl Team, a: Mat<T>, n: usize) -> u32 {
    for j in 0..n {
        // SAFETY (every access below): indices inside n x n.
        // LAPACK reads only the real part of the diagonal.
        let d = unsafe { a.get(j, j) }.re();
        if T::rnonpositive(d) {
            return j as u32 + 1;
        }
        let s = T::rsqrt(d);
        // Every member has read a[j, j] before anyone writes it.
        t.sync();
        if t.rank() == 0 {
            unsafe { a.set(j, j, T::from_real(s)) };
        }
        each(t, j + 1, n, |i| unsafe {
            a.set(i, j, a.get(i, j).div(T::from_real(s)));
        });
        t.sync();
        each2(t, (j + 1, n), (j + 1, n), |i, c| {
            if c <= i {
                unsafe { a.set(i, c, a.get(i, c).sub(a.get(i, j).mul(a.get(c, j).conj()))) };
            }
        });
        t.sync();
    }
    each2(t, (0, n), (0, n), |i, c| {
        if c > i {
            unsafe { a.set(i, c, T::ZERO) };
        }
    });
    t.sync();
    0
}

/// `H C` for the Householder reflector `H = I - tau v v^H` (pass `conj(tau)` for
/// `H^H`) on the rows `r0..m` of columns `cols` of `c`, where `v` is column `vcol` of
/// `h` below row `r0` with `v[r0] = 1` implicit. A group per column: its lanes split
/// the rows of `w = v^H c` and of the update, so no barrier is needed inside (the
/// caller syncs after).
///
/// # Safety
/// `h` and `c` hold `m` rows and the named columns; `c` does not overlap column `vcol`
/// of `h` below row `r0`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn reflect<T: Scalar>(
    t: &impl Team,
    h: Mat<T>,
    vcol: usize,
    r0: usize,
    m: usize,
    tau: T,
    c: Mat<T>,
    cols: (usize, usize),
) {
    let (lane, lanes) = (t.lane(), t.lanes());
    each_by_group(t, cols.0, cols.1, |col| {
        // SAFETY (every access): rows r0..m, columns inside the ranges named above.
        let mut w = T::ZERO;
        let mut i = r0 + lane;
        while i < m {
            let v = if i == r0 {
                T::ONE
            } else {
                unsafe { h.get(i, vcol) }
            };
            w = w.add(v.conj().mul(unsafe { c.get(i, col) }));
            i += lanes;
        }
        let tw = tau.mul(t.group_sum(w));
        let mut i = r0 + lane;
        while i < m {
            let v = if i == r0 {
                T::ONE
            } else {
                unsafe { h.get(i, vcol) }
            };
            unsafe { c.set(i, col, c.get(i, col).sub(v.mul(tw))) };
            i += lanes;
        }
    });
}

/// The reflector (LAPACK `larfg`) that maps column `col` of `a`, rows `r0..m`, to
/// `(beta, 0, ..., 0)`: `a[r0][col] = beta`, the vector's tail scaled in place below
/// it; returns `tau` (zero when the column is already in that form). Ends with a
/// barrier.
///
/// # Safety
/// `a` holds `m` rows and column `col`, `r0 < m`; every member calls.
pub(crate) unsafe fn householder<T: Scalar>(
    t: &impl Team,
    a: Mat<T>,
    r0: usize,
    col: usize,
    m: usize,
) -> T {
    // SAFETY (every access below): rows r0..m of column col.
    let xnorm2 = t.sum(r0 + 1, m, |i| T::re64(unsafe { a.get(i, col) }.abs2()));
    let alpha = unsafe { a.get(r0, col) };
    let Some(Reflector { tau, beta, scal }) = reflector(alpha, xnorm2) else {
        return T::ZERO;
    };
    // Every member has read a[r0][col] before it changes.
    t.sync();
    each(t, r0 + 1, m, |i| unsafe {
        a.set(i, col, a.get(i, col).mul(scal))
    });
    if t.rank() == 0 {
        unsafe { a.set(r0, col, beta) };
    }
    t.sync();
    tau
}

/// A Householder reflector's numbers (LAPACK `larfg`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reflector<T> {
    /// `H = I - tau v v^H`.
    pub tau: T,
    /// The one element left of the column, `-sign(Re alpha) ||(alpha, x)||` (real).
    pub beta: T,
    /// `v`'s tail is `x * scal`.
    pub scal: T,
}

/// The reflector mapping the column `(alpha, x)` to `(beta, 0, ..., 0)`, from `alpha`
/// and `xnorm2 = ||x||^2` (in float64); None when the column is already in that form
/// (`H = I`, `tau = 0`). `householder` and the panel kernel spread over the GPU
/// (`gpu_qr_panel`) both take their numbers from here.
#[inline(always)]
pub fn reflector<T: Scalar>(alpha: T, xnorm2: f64) -> Option<Reflector<T>> {
    let (ar, ai) = (T::re64(alpha.re()), T::re64(alpha.im()));
    if xnorm2 == 0.0 && ai == 0.0 {
        return None;
    }
    // beta = -sign(alpha_r) ||(alpha, x)||, tau = (beta - alpha) / beta,
    // v = x / (alpha - beta); the norm in float64 (squares of float64 overflow only
    // past 1e154).
    let norm = <f64 as Scalar>::rsqrt(ar * ar + ai * ai + xnorm2);
    let beta = if ar >= 0.0 { -norm } else { norm };
    Some(Reflector {
        tau: T::from64((beta - ar) / beta, -ai / beta),
        beta: T::from64(beta, 0.0),
        scal: T::ONE.div(alpha.sub(T::from64(beta, 0.0))),
    })
}

/// Householder QR of the `m x n` matrix `a` in place (LAPACK `geqr2` with `larfg`'s
/// reflector): R on and above the diagonal, the vectors below, `tau[0..min(m, n)]`.
///
/// # Safety
/// `a` holds `m x n`, `tau` `min(m, n)`; every member calls with the same arguments.
pub unsafe fn geqrf<T: Scalar>(t: &impl Team, a: Mat<T>, m: usize, n: usize, tau: *mut T) {
    for j in 0..m.min(n) {
        // SAFETY: j < min(m, n); H^H applies with conj(tau).
        let tj = unsafe { householder(t, a, j, j, m) };
        if tj != T::ZERO {
            unsafe { reflect(t, a, j, j, m, tj.conj(), a, (j + 1, n)) };
        }
        if t.rank() == 0 {
            unsafe { *tau.add(j) = tj };
        }
        t.sync();
    }
}

/// The first `ncols` columns of `Q = H_0 H_1 ... H_{k-1}` into `q` (`m x ncols`) from
/// `geqrf`'s `h` and `tau` (LAPACK `org2r`, applied backwards to the identity).
///
/// # Safety
/// `h` holds `m x k` (or more columns), `tau` `k`, `q` `m x ncols`, `k <= ncols <= m`;
/// `q` does not overlap `h`; every member calls with the same arguments.
pub unsafe fn orgqr<T: Scalar>(
    t: &impl Team,
    h: Mat<T>,
    m: usize,
    k: usize,
    tau: *const T,
    q: Mat<T>,
    ncols: usize,
) {
    each2(t, (0, m), (0, ncols), |i, c| unsafe {
        q.set(i, c, if i == c { T::ONE } else { T::ZERO })
    });
    t.sync();
    for j in (0..k).rev() {
        // SAFETY: j < k; H_j touches rows j.. and (backwards) only columns j.. of q.
        unsafe { reflect(t, h, j, j, m, *tau.add(j), q, (j, ncols)) };
        t.sync();
    }
}

/// The upper triangular `T` (`k x k`, into `tm`) of the block reflector
/// `H_0 ... H_{k-1} = I - V T V^H` from `geqrf`'s `h` (`m x k`) and `tau` (LAPACK
/// `larft`, forward, columnwise): `T[j][j] = tau_j`,
/// `T[0..j][j] = -tau_j T[0..j][0..j] V[:, 0..j]^H v_j`. The GPU path has no kernel for
/// it: the blocked QR applies `T^-1` (the "UT" form, [`ut_m`], a triangular solve),
/// and this is the CPU reference its identity is tested against.
///
/// # Safety
/// `h` holds `m x k`, `tau` `k`, `tm` `k x k`, not overlapping; every member calls.
pub unsafe fn larft<T: Scalar>(
    t: &impl Team,
    h: Mat<T>,
    m: usize,
    k: usize,
    tau: *const T,
    tm: Mat<T>,
) {
    // S = V^H V above the diagonal, into T's upper part: a group per pair (l, j).
    let (lane, lanes) = (t.lane(), t.lanes());
    let mut p = t.group();
    while p < k * k {
        let (l, j) = (p / k, p % k);
        if l < j {
            // v_l^H v_j over rows j.. (v_j is zero above j and one at j).
            let mut s = T::ZERO;
            let mut i = j + lane;
            while i < m {
                // SAFETY: i < m, l < j < k.
                let vj = if i == j {
                    T::ONE
                } else {
                    unsafe { h.get(i, j) }
                };
                s = s.add(unsafe { h.get(i, l) }.conj().mul(vj));
                i += lanes;
            }
            let s = t.group_sum(s);
            if lane == 0 {
                // SAFETY: l, j < k.
                unsafe { tm.set(l, j, s) };
            }
        }
        p += t.groups();
    }
    each2(t, (0, k), (0, k), |i, c| {
        if i >= c {
            // SAFETY: inside k x k; the diagonal and below are written here only.
            unsafe { tm.set(i, c, if i == c { *tau.add(i) } else { T::ZERO }) };
        }
    });
    t.sync();
    // Column j from the columns before it. A member's new T[l][j] reads S[p][j] for
    // p >= l, which other members overwrite: the new values go to the free lower
    // triangle first (T[j][l]) and move up after a barrier.
    for j in 1..k {
        // SAFETY (every access): l < j < k, l <= p < j.
        let tj = unsafe { *tau.add(j) };
        each(t, 0, j, |l| {
            let mut s = T::ZERO;
            for p in l..j {
                s = s.add(unsafe { tm.get(l, p).mul(tm.get(p, j)) });
            }
            unsafe { tm.set(j, l, T::ZERO.sub(tj.mul(s))) };
        });
        t.sync();
        each(t, 0, j, |l| unsafe {
            tm.set(l, j, tm.get(j, l));
            tm.set(j, l, T::ZERO);
        });
        t.sync();
    }
}

/// Element `(r, c)` of the explicit `V` of the "UT" block reflector
/// `H_0 ... H_{k-1} = I - V M^-1 V^H` (Joffrain et al., "Accumulating Householder
/// transformations, revisited", 2006) from `geqrf`'s element `h = h[r][c]` (read only
/// below the diagonal) and `tau_c`: the unit lower trapezoid of the reflectors, with
/// the column of a reflector that is the identity (`tau_c = 0`) zero, so that it adds
/// nothing. `gpu_qr_ut` builds `V` from here.
#[inline(always)]
pub fn ut_v<T: Scalar>(r: usize, c: usize, h: T, tau_c: T) -> T {
    if tau_c == T::ZERO || r < c {
        T::ZERO
    } else if r == c {
        T::ONE
    } else {
        h
    }
}

/// Element `(i, j)` of the UT factor `M = striu(V^H V) + diag(1 / tau)` (with
/// [`ut_v`]'s `V`; `gram = (V^H V)[i][j]`), the inverse of [`larft`]'s `T`: the
/// blocked QR applies `M^-1` by a triangular solve. An identity reflector's diagonal is
/// 1 (its column of `V` is zero, so its row and column of `M` are the identity's).
#[inline(always)]
pub fn ut_m<T: Scalar>(i: usize, j: usize, gram: T, tau_i: T) -> T {
    if i < j {
        gram
    } else if i > j {
        T::ZERO
    } else if tau_i == T::ZERO {
        T::ONE
    } else {
        T::ONE.div(tau_i)
    }
}

#[cfg(test)]
mod tests;
