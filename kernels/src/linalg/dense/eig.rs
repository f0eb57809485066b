//! Eigenvalues and eigenvectors of general complex matrices (LAPACK `zgeev`'s path,
//! unblocked): Householder reduction to upper Hessenberg form (`gehd2`) with the
//! reflectors accumulated in `Z`, complex single-shift QR iteration with Wilkinson
//! shifts on the whole Hessenberg matrix (`lahqr` with the Schur form kept, so `Z`
//! holds the Schur vectors), and back-substitution for the eigenvectors of the
//! triangular factor (`trevc`). A real matrix comes here as a complex one.
//!
//! Every step is one team's work on one matrix; the QR sweeps are a chain of plane
//! rotations, two barriers each, so this is quick for small matrices and slow (one
//! SM's worth of work) for large ones.

use super::{Mat, householder, reflect};
use crate::linalg::scalar::Scalar;
use crate::linalg::team::{Team, each, each_by_group};

/// `C (I - tau v v^H)` on the columns `r0..m` of rows `rows` of `c`, with `v` as in
/// [`reflect`] (column `vcol` of `h`, implicit one at row `r0`): a group per row.
///
/// # Safety
/// As for `reflect`, with rows and columns exchanged for `c`.
#[allow(clippy::too_many_arguments)]
unsafe fn reflect_right<T: Scalar>(
    t: &impl Team,
    h: Mat<T>,
    vcol: usize,
    r0: usize,
    m: usize,
    tau: T,
    c: Mat<T>,
    rows: (usize, usize),
) {
    let (lane, lanes) = (t.lane(), t.lanes());
    each_by_group(t, rows.0, rows.1, |row| {
        // SAFETY (every access): columns r0..m of the named rows; v's rows r0..m.
        let mut w = T::ZERO;
        let mut i = r0 + lane;
        while i < m {
            let v = if i == r0 {
                T::ONE
            } else {
                unsafe { h.get(i, vcol) }
            };
            w = w.add(unsafe { c.get(row, i) }.mul(v));
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
            unsafe { c.set(row, i, c.get(row, i).sub(tw.mul(v.conj()))) };
            i += lanes;
        }
    });
}

/// Reduces the `n x n` matrix `a` to upper Hessenberg form `Z^H A Z` in place (zeros
/// below the subdiagonal) and sets `z` to the accumulated `Z`.
///
/// # Safety
/// `a`, `z` hold `n x n`, not overlapping; every member calls.
pub unsafe fn gehrd<T: Scalar>(t: &impl Team, a: Mat<T>, n: usize, z: Mat<T>) {
    // SAFETY (every access): inside n x n.
    let mut i = t.rank();
    while i < n * n {
        unsafe { z.set(i / n, i % n, if i / n == i % n { T::ONE } else { T::ZERO }) };
        i += t.size();
    }
    t.sync();
    for j in 0..n.saturating_sub(2) {
        let tau = unsafe { householder(t, a, j + 1, j, n) };
        if tau != T::ZERO {
            // A <- H^H A H with H = I - tau v v^H on rows/columns j+1..n: the left
            // product on columns j+1.. (column j is the reflector itself), then the
            // right product on every row; Z <- Z H.
            unsafe { reflect(t, a, j, j + 1, n, tau.conj(), a, (j + 1, n)) };
            t.sync();
            unsafe { reflect_right(t, a, j, j + 1, n, tau, a, (0, n)) };
            unsafe { reflect_right(t, a, j, j + 1, n, tau, z, (0, n)) };
            t.sync();
        }
        // The reflector's tail below the subdiagonal is no longer needed.
        each(t, j + 2, n, |i| unsafe { a.set(i, j, T::ZERO) });
        t.sync();
    }
}

/// The plane rotation (LAPACK `lartg`): `c` real, `s` complex with
/// `[c s; -conj(s) c] [f; g] = [r; 0]`.
#[inline(always)]
fn rotation<T: Scalar>(f: T, g: T) -> (f64, T, T) {
    let (fr, fi, gr, gi) = (
        T::re64(f.re()),
        T::re64(f.im()),
        T::re64(g.re()),
        T::re64(g.im()),
    );
    let fa = <f64 as Scalar>::rhypot(fr, fi);
    let ga = <f64 as Scalar>::rhypot(gr, gi);
    if ga == 0.0 {
        return (1.0, T::ZERO, f);
    }
    if fa == 0.0 {
        return (0.0, T::from64(gr / ga, -gi / ga), T::from64(ga, 0.0));
    }
    let d = <f64 as Scalar>::rhypot(fa, ga);
    let (pr, pi) = (fr / fa, fi / fa);
    // s = (f / |f|) conj(g) / d, r = (f / |f|) d.
    let s = T::from64((pr * gr + pi * gi) / d, (pi * gr - pr * gi) / d);
    (fa / d, s, T::from64(pr * d, pi * d))
}

/// `sqrt(z)` of a complex value given as parts, principal branch.
#[inline(always)]
fn csqrt(x: f64, y: f64) -> (f64, f64) {
    let r = <f64 as Scalar>::rhypot(x, y);
    if r == 0.0 {
        return (0.0, 0.0);
    }
    let s = <f64 as Scalar>::rsqrt((r + x.abs()) / 2.0);
    if x >= 0.0 {
        (s, y / (2.0 * s))
    } else {
        (y.abs() / (2.0 * s), if y < 0.0 { -s } else { s })
    }
}

/// The eigenvalue of the 2 x 2 matrix `[a b; c d]` nearer `d` (Wilkinson's shift).
#[inline(always)]
fn wilkinson<T: Scalar>(a: T, b: T, c: T, d: T) -> T {
    let half = T::from64(0.5, 0.0);
    let tt = a.sub(d).mul(half);
    let bc = b.mul(c);
    let q = tt.mul(tt).add(bc);
    let (sr, si) = csqrt(T::re64(q.re()), T::re64(q.im()));
    let disc = T::from64(sr, si);
    let (p, m) = (tt.add(disc), tt.sub(disc));
    let den = if p.abs1() >= m.abs1() { p } else { m };
    if den == T::ZERO {
        d
    } else {
        d.sub(bc.div(den))
    }
}

/// Complex QR iteration on the upper Hessenberg `h` (`n x n`) in place, to upper
/// triangular (the Schur form), the rotations accumulated into `z`. Returns 0, or
/// `i + 1` when the eigenvalue at `i` did not converge within `30 * n` iterations
/// (LAPACK's limit; then `h` and `z` are partly reduced).
///
/// # Safety
/// `h`, `z` hold `n x n`, not overlapping; every member calls.
pub unsafe fn hqr<T: Scalar>(t: &impl Team, h: Mat<T>, n: usize, z: Mat<T>, eps: f64) -> u32 {
    if n < 2 {
        return 0;
    }
    let mut hi = n - 1;
    let mut its = 0;
    let limit = 30 * n.max(10);
    // SAFETY (every access below): indices inside n x n.
    while hi > 0 {
        // The unreduced block ending at hi starts after the last negligible
        // subdiagonal entry (the same reads on every member, so the same l).
        let mut l = hi;
        while l > 0 {
            let sub = unsafe { h.get(l, l - 1) }.abs1();
            let diag = unsafe { h.get(l - 1, l - 1).abs1() + h.get(l, l).abs1() };
            if sub <= eps * diag || sub == 0.0 {
                break;
            }
            l -= 1;
        }
        // Every member has read the subdiagonal before it changes.
        t.sync();
        if l > 0 && t.rank() == 0 {
            unsafe { h.set(l, l - 1, T::ZERO) };
        }
        t.sync();
        if l == hi {
            hi -= 1;
            its = 0;
            continue;
        }
        its += 1;
        if its > limit {
            return hi as u32 + 1;
        }
        let mu = if its % 10 == 0 {
            // An exceptional shift breaks cycles (LAPACK's 3/4 of the subdiagonal).
            let sub = T::re64(unsafe { h.get(hi, hi - 1) }.re()).abs();
            unsafe { h.get(hi, hi) }.add(T::from64(0.75 * sub, 0.0))
        } else {
            unsafe {
                wilkinson(
                    h.get(hi - 1, hi - 1),
                    h.get(hi - 1, hi),
                    h.get(hi, hi - 1),
                    h.get(hi, hi),
                )
            }
        };
        for k in l..hi {
            let (f, g) = if k == l {
                unsafe { (h.get(l, l).sub(mu), h.get(l + 1, l)) }
            } else {
                unsafe { (h.get(k, k - 1), h.get(k + 1, k - 1)) }
            };
            let (c, s, _) = rotation(f, g);
            let cc = T::from64(c, 0.0);
            t.sync();
            // Rows k, k+1 from column k-1 (k > l: that zeroes the bulge) to n.
            let first = if k > l { k - 1 } else { k };
            each(t, first, n, |col| unsafe {
                let (x, y) = (h.get(k, col), h.get(k + 1, col));
                h.set(k, col, cc.mul(x).add(s.mul(y)));
                h.set(k + 1, col, cc.mul(y).sub(s.conj().mul(x)));
            });
            t.sync();
            // Columns k, k+1 of rows 0..=min(k+2, hi) of h, and of every row of z.
            let last = (k + 2).min(hi);
            each(t, 0, last + 1 + n, |r| unsafe {
                let m = if r <= last { h } else { z };
                let row = if r <= last { r } else { r - last - 1 };
                let (x, y) = (m.get(row, k), m.get(row, k + 1));
                m.set(row, k, cc.mul(x).add(s.conj().mul(y)));
                m.set(row, k + 1, cc.mul(y).sub(s.mul(x)));
            });
            t.sync();
        }
    }
    0
}

/// Eigenvectors of the upper triangular `tm` (`n x n`): for each `k`, the `x` with
/// `(T - T[k][k] I) x = 0`, `x[k] = 1`, `x[i] = 0` below `k`, by back-substitution
/// (LAPACK `trevc`; a too small divisor is replaced by `eps |T[k][k]|`, as LAPACK's
/// `smin`). `x[i]` for `i < k` goes to `tm[k][i]`, the unused lower triangle.
///
/// # Safety
/// `tm` holds `n x n`; every member calls.
pub unsafe fn trevc<T: Scalar>(t: &impl Team, tm: Mat<T>, n: usize, eps: f64, tiny: f64) {
    each(t, 0, n, |k| {
        // SAFETY (every access): inside n x n; member k writes row k's lower part only.
        let wk = unsafe { tm.get(k, k) };
        let smin = (eps * wk.abs1()).max(tiny);
        for i in (0..k).rev() {
            let mut s = unsafe { tm.get(i, k) };
            for j in i + 1..k {
                s = s.add(unsafe { tm.get(i, j).mul(tm.get(k, j)) });
            }
            let mut d = unsafe { tm.get(i, i) }.sub(wk);
            if d.abs1() < smin {
                d = T::from64(smin, 0.0);
            }
            unsafe { tm.set(k, i, T::ZERO.sub(s.div(d))) };
        }
    });
    t.sync();
}
