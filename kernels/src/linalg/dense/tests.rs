//! The dense algorithms on the CPU team, checked by reconstruction: `P L U = A`,
//! `op(T) X = B`, `L L^H = A`, `Q R = A` with `Q^H Q = I`, and `I - V T V^H = Q`.

use super::*;
use crate::dtype::c128;
use crate::linalg::team::Serial;

/// Deterministic values in [-1, 1).
fn values(seed: u64, len: usize) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

trait TestScalar: Scalar {
    fn make(re: f64, im: f64) -> Self;
    fn mag(self) -> f64;
}
impl TestScalar for f64 {
    fn make(re: f64, _im: f64) -> f64 {
        re
    }
    fn mag(self) -> f64 {
        self.abs()
    }
}
impl TestScalar for c128 {
    fn make(re: f64, im: f64) -> c128 {
        c128::new(re, im)
    }
    fn mag(self) -> f64 {
        self.re.hypot(self.im)
    }
}

fn random<T: TestScalar>(seed: u64, m: usize, n: usize) -> Vec<T> {
    let v = values(seed, 2 * m * n);
    (0..m * n)
        .map(|i| T::make(v[2 * i], v[2 * i + 1]))
        .collect()
}

fn mat<T>(v: &mut [T], ld: usize) -> Mat<T> {
    Mat {
        ptr: v.as_mut_ptr(),
        ld,
    }
}

/// `a (m x k) @ b (k x n)`.
fn mul<T: TestScalar>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
    let mut c = vec![T::ZERO; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] = c[i * n + j].add(a[i * k + p].mul(b[p * n + j]));
            }
        }
    }
    c
}

fn conj_t<T: TestScalar>(a: &[T], m: usize, n: usize) -> Vec<T> {
    let mut t = vec![T::ZERO; m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j].conj();
        }
    }
    t
}

fn max_diff<T: TestScalar>(a: &[T], b: &[T]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.sub(*y).mag())
        .fold(0.0, f64::max)
}

fn lu_case<T: TestScalar>(m: usize, n: usize, seed: u64) {
    let a0 = random::<T>(seed, m, n);
    let mut a = a0.clone();
    let k = m.min(n);
    let mut piv = vec![0i32; k];
    let info = unsafe { getrf(&Serial, mat(&mut a, n), m, n, piv.as_mut_ptr(), 0, (0, 0)) };
    assert_eq!(info, 0);
    let (mut l, mut u) = (vec![T::ZERO; m * k], vec![T::ZERO; k * n]);
    for i in 0..m {
        for j in 0..n {
            if j < i && j < k {
                l[i * k + j] = a[i * n + j];
                // Partial pivoting keeps every multiplier at most 1 in |re| + |im|
                // (the pivot's size), so at most sqrt(2) in modulus.
                assert!(a[i * n + j].mag() <= 2f64.sqrt() + 1e-15);
            } else if i < k && j >= i {
                u[i * n + j] = a[i * n + j];
            }
            if i == j && i < k {
                l[i * k + j] = T::ONE;
            }
        }
    }
    // P A: the swaps in order.
    let mut pa = a0.clone();
    for (j, &p) in piv.iter().enumerate() {
        for c in 0..n {
            pa.swap(j * n + c, p as usize * n + c);
        }
    }
    let lu = mul(&l, &u, m, k, n);
    assert!(max_diff(&lu, &pa) < 1e-13 * (k as f64), "{m}x{n}");
}

#[test]
fn lu_reconstructs() {
    for (m, n) in [(1, 1), (2, 2), (5, 5), (17, 17), (9, 4), (4, 9), (32, 31)] {
        lu_case::<f64>(m, n, (m * 31 + n) as u64);
        lu_case::<c128>(m, n, (m * 37 + n) as u64);
    }
}

#[test]
fn lu_reports_the_first_zero_pivot() {
    // Column 1 is twice column 0: the second pivot is exactly zero.
    let mut a = vec![1.0, 2.0, 3.0, 2.0, 4.0, 1.0, 4.0, 8.0, 5.0];
    let mut piv = [0i32; 3];
    let info = unsafe { getrf(&Serial, mat(&mut a, 3), 3, 3, piv.as_mut_ptr(), 0, (0, 0)) };
    assert_eq!(info, 2);
    assert_eq!(piv, [2, 1, 2]);
}

fn trsm_case<T: TestScalar>(n: usize, k: usize, how: Tri, seed: u64) {
    // A well-conditioned triangle: a dominant diagonal.
    let mut tm = random::<T>(seed, n, n);
    for i in 0..n {
        tm[i * n + i] = tm[i * n + i].add(T::make(n as f64 + 2.0, 0.0));
    }
    let x = random::<T>(seed + 1, n, k);
    // op(T) with the other triangle zeroed (and a unit diagonal when asked).
    let mut op = vec![T::ZERO; n * n];
    for i in 0..n {
        for j in 0..n {
            let inside = if how.lower { j <= i } else { j >= i };
            let mut v = if inside { tm[i * n + j] } else { T::ZERO };
            if i == j && how.unit {
                v = T::ONE;
            }
            let (r, c, v) = match how.trans {
                0 => (i, j, v),
                1 => (j, i, v),
                _ => (j, i, v.conj()),
            };
            op[r * n + c] = v;
        }
    }
    let mut b = mul(&op, &x, n, n, k);
    unsafe { trsm(&Serial, mat(&mut tm, n), n, mat(&mut b, k), k, how) };
    assert!(max_diff(&b, &x) < 1e-13, "n {n} k {k}");
}

#[test]
fn trsm_solves_every_variant() {
    for lower in [true, false] {
        for trans in 0..3 {
            for unit in [true, false] {
                let how = Tri { lower, trans, unit };
                for (n, k) in [(1, 1), (7, 3), (16, 1), (13, 20)] {
                    trsm_case::<f64>(n, k, how, n as u64 + 3);
                    trsm_case::<c128>(n, k, how, n as u64 + 5);
                }
            }
        }
    }
}

#[test]
fn row_swaps_undo() {
    let b0 = random::<f64>(9, 6, 3);
    let mut b = b0.clone();
    let piv = [3, 1, 5, 4, 4, 5];
    unsafe { swap_rows(&Serial, mat(&mut b, 3), 3, piv.as_ptr(), 6, true) };
    assert_ne!(b, b0);
    unsafe { swap_rows(&Serial, mat(&mut b, 3), 3, piv.as_ptr(), 6, false) };
    assert_eq!(b, b0);
}

fn cholesky_case<T: TestScalar>(n: usize, seed: u64) {
    let g = random::<T>(seed, n, n);
    // A = G G^H + n I: Hermitian positive definite.
    let mut a = mul(&g, &conj_t(&g, n, n), n, n, n);
    for i in 0..n {
        a[i * n + i] = a[i * n + i].add(T::make(n as f64, 0.0));
    }
    let a0 = a.clone();
    // The upper triangle must not be read: poison it.
    for i in 0..n {
        for j in i + 1..n {
            a[i * n + j] = T::make(f64::NAN, 0.0);
        }
    }
    assert_eq!(unsafe { potrf(&Serial, mat(&mut a, n), n) }, 0);
    let llh = mul(&a, &conj_t(&a, n, n), n, n, n);
    assert!(max_diff(&llh, &a0) < 1e-12 * n as f64, "n {n}");
}

#[test]
fn cholesky_reconstructs_and_reports() {
    for n in [1, 2, 7, 24] {
        cholesky_case::<f64>(n, n as u64);
        cholesky_case::<c128>(n, n as u64 + 1);
    }
    // Indefinite: the second leading minor is 1 * 1 - 2 * 2 < 0.
    let mut a = vec![1.0, 0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    assert_eq!(unsafe { potrf(&Serial, mat(&mut a, 3), 3) }, 2);
    // NaN propagates (as NumPy's OpenBLAS potrf): no error, a NaN factor.
    let mut a = vec![f64::NAN];
    assert_eq!(unsafe { potrf(&Serial, mat(&mut a, 1), 1) }, 0);
    assert!(a[0].is_nan());
}

fn qr_case<T: TestScalar>(m: usize, n: usize, seed: u64) {
    let a0 = random::<T>(seed, m, n);
    let mut h = a0.clone();
    let k = m.min(n);
    let mut tau = vec![T::ZERO; k];
    unsafe { geqrf(&Serial, mat(&mut h, n), m, n, tau.as_mut_ptr()) };
    for ncols in [k, m] {
        let mut q = vec![T::ZERO; m * ncols];
        unsafe {
            orgqr(
                &Serial,
                mat(&mut h, n),
                m,
                k,
                tau.as_ptr(),
                mat(&mut q, ncols),
                ncols,
            )
        };
        let qhq = mul(&conj_t(&q, m, ncols), &q, ncols, m, ncols);
        let eye: Vec<T> = (0..ncols * ncols)
            .map(|x| {
                if x / ncols == x % ncols {
                    T::ONE
                } else {
                    T::ZERO
                }
            })
            .collect();
        assert!(
            max_diff(&qhq, &eye) < 1e-14 * m as f64,
            "{m}x{n} orthogonality"
        );
        // R: ncols x n, the upper triangle of h's first ncols rows.
        let mut r = vec![T::ZERO; ncols * n];
        for i in 0..k {
            for j in i..n {
                r[i * n + j] = h[i * n + j];
            }
        }
        let qr = mul(&q, &r, m, ncols, n);
        assert!(
            max_diff(&qr, &a0) < 1e-14 * m as f64,
            "{m}x{n} reconstruction"
        );
    }
    // The block reflector: I - V T V^H is the full Q.
    let v: Vec<T> = (0..m * k)
        .map(|x| ut_v(x / k, x % k, h[(x / k) * n + x % k], tau[x % k]))
        .collect();
    let mut vk = v.clone();
    let mut tm = vec![T::make(f64::NAN, 0.0); k * k];
    unsafe {
        larft(
            &Serial,
            mat(&mut vk, k),
            m,
            k,
            tau.as_ptr(),
            mat(&mut tm, k),
        )
    };
    let vtvh = mul(&mul(&v, &tm, m, k, k), &conj_t(&v, m, k), m, k, m);
    let mut q = vec![T::ZERO; m * m];
    unsafe {
        orgqr(
            &Serial,
            mat(&mut h, n),
            m,
            k,
            tau.as_ptr(),
            mat(&mut q, m),
            m,
        )
    };
    let block: Vec<T> = (0..m * m)
        .map(|x| if x / m == x % m { T::ONE } else { T::ZERO }.sub(vtvh[x]))
        .collect();
    assert!(
        max_diff(&block, &q) < 1e-14 * m as f64,
        "{m}x{n} block reflector"
    );
    ut_case(&v, &tau, &q, m, k);
}

/// The UT form the blocked GPU QR applies (`gpu_qr_ut`): with `ut_v`'s `V` and
/// `ut_m`'s `M = striu(V^H V) + diag(1 / tau)`, `Q = I - V M^-1 V^H`; checked as
/// `I - Q = V Z` where `M Z = V^H` (back substitution, `M` upper triangular).
fn ut_case<T: TestScalar>(v: &[T], tau: &[T], q: &[T], m: usize, k: usize) {
    let g = mul(&conj_t(v, m, k), v, k, m, k);
    let ut: Vec<T> = (0..k * k)
        .map(|x| ut_m(x / k, x % k, g[x], tau[x / k]))
        .collect();
    let mut z = conj_t(v, m, k);
    for col in 0..m {
        for i in (0..k).rev() {
            let mut s = z[i * m + col];
            for p in i + 1..k {
                s = s.sub(ut[i * k + p].mul(z[p * m + col]));
            }
            z[i * m + col] = s.div(ut[i * k + i]);
        }
    }
    let vz = mul(v, &z, m, k, m);
    let i_q: Vec<T> = (0..m * m)
        .map(|x| if x / m == x % m { T::ONE } else { T::ZERO }.sub(q[x]))
        .collect();
    assert!(max_diff(&vz, &i_q) < 1e-13 * m as f64, "{m}x{k} UT form");
}

#[test]
fn qr_reconstructs() {
    for (m, n) in [(1, 1), (3, 3), (8, 5), (5, 8), (17, 17), (40, 12)] {
        qr_case::<f64>(m, n, (m * 7 + n) as u64);
        qr_case::<c128>(m, n, (m * 11 + n) as u64);
    }
    // A column that is already zero below the diagonal gets tau = 0 (H = I).
    let mut a = vec![2.0, 1.0, 0.0, 3.0];
    let mut tau = [1.0f64; 2];
    unsafe { geqrf(&Serial, mat(&mut a, 2), 2, 2, tau.as_mut_ptr()) };
    assert_eq!(tau, [0.0, 0.0]);
    assert_eq!(a, [2.0, 1.0, 0.0, 3.0]);
    // Such a reflector's column of the UT form's V is zero and its M the identity's.
    let mut a = vec![2.0, 1.0, 0.0, 3.0, 0.0, 4.0];
    let mut tau = [1.0f64; 2];
    unsafe { geqrf(&Serial, mat(&mut a, 2), 3, 2, tau.as_mut_ptr()) };
    assert_eq!(tau[0], 0.0);
    assert!(tau[1] != 0.0);
    let v: Vec<f64> = (0..6)
        .map(|x| ut_v(x / 2, x % 2, a[x], tau[x % 2]))
        .collect();
    assert_eq!(v[0], 0.0);
    let mut q = vec![0.0; 9];
    unsafe {
        orgqr(
            &Serial,
            mat(&mut a, 2),
            3,
            2,
            tau.as_ptr(),
            mat(&mut q, 3),
            3,
        )
    };
    ut_case(&v, &tau, &q, 3, 2);
}

fn reflector_case<T: TestScalar>(len: usize, seed: u64) {
    let col: Vec<T> = random(seed, len, 1);
    let xnorm2: f64 = col[1..].iter().map(|x| x.mag() * x.mag()).sum();
    let r = reflector(col[0], xnorm2).expect("a random column needs a reflector");
    // H^H col = col - conj(tau) v (v^H col), with v = (1, x scal), is (beta, 0, ...).
    let v: Vec<T> = (0..len)
        .map(|i| if i == 0 { T::ONE } else { col[i].mul(r.scal) })
        .collect();
    let vh_col = (0..len).fold(T::ZERO, |s, i| s.add(v[i].conj().mul(col[i])));
    let k = r.tau.conj().mul(vh_col);
    let out: Vec<T> = (0..len).map(|i| col[i].sub(v[i].mul(k))).collect();
    let norm = xnorm2.sqrt().max(col[0].mag());
    assert!(T::re64(r.beta.im()) == 0.0 && r.beta.mag() >= norm * (1.0 - 1e-15));
    assert!(out[0].sub(r.beta).mag() <= 1e-14 * norm, "{len}: beta");
    for x in &out[1..] {
        assert!(x.mag() <= 1e-14 * norm, "{len}: not annihilated");
    }
}

#[test]
fn reflector_annihilates_the_tail() {
    for (len, seed) in [(1, 9), (2, 1), (7, 2), (40, 3)] {
        if len > 1 {
            reflector_case::<f64>(len, seed);
        }
        reflector_case::<c128>(len, seed + 100);
    }
    // Already in the form (real alpha, zero tail): no reflector.
    assert!(reflector(2.5f64, 0.0).is_none());
    assert!(reflector(c128::new(0.5, 1.0), 0.0).is_some());
}

#[test]
fn lu_panel_swaps_whole_rows() {
    // LU of columns 2..5 of a 9 x 8 matrix, swapping whole rows: the same as LU of
    // the panel alone with the swaps then applied to the whole matrix.
    let (m, n, c0, w) = (9, 8, 2, 3);
    let full0 = random::<f64>(77, m, n);
    let mut full = full0.clone();
    let mut piv = vec![0i32; w];
    let panel = Mat {
        ptr: unsafe { full.as_mut_ptr().add(c0) },
        ld: n,
    };
    let info = unsafe { getrf(&Serial, panel, m, w, piv.as_mut_ptr(), 5, (c0, n - c0 - w)) };
    assert_eq!(info, 0);
    let mut alone: Vec<f64> = (0..m * w)
        .map(|x| full0[(x / w) * n + c0 + x % w])
        .collect();
    let mut piv_alone = vec![0i32; w];
    unsafe {
        getrf(
            &Serial,
            mat(&mut alone, w),
            m,
            w,
            piv_alone.as_mut_ptr(),
            0,
            (0, 0),
        )
    };
    assert_eq!(piv.iter().map(|p| p - 5).collect::<Vec<_>>(), piv_alone);
    let mut swapped = full0.clone();
    for (j, &p) in piv_alone.iter().enumerate() {
        for c in 0..n {
            swapped.swap(j * n + c, p as usize * n + c);
        }
    }
    for i in 0..m {
        for c in 0..n {
            let want = if (c0..c0 + w).contains(&c) {
                alone[i * w + c - c0]
            } else {
                swapped[i * n + c]
            };
            assert_eq!(full[i * n + c], want, "({i}, {c})");
        }
    }
}

fn eig_case(n: usize, seed: u64, real: bool) {
    let mut a0 = random::<c128>(seed, n, n);
    if real {
        for x in a0.iter_mut() {
            x.im = 0.0;
        }
    }
    let mut h = a0.clone();
    let mut z = vec![c128::ZERO; n * n];
    let eps = f64::EPSILON;
    unsafe {
        eig::gehrd(&Serial, mat(&mut h, n), n, mat(&mut z, n));
        // Z^H A Z is the Hessenberg matrix.
        let zh = conj_t(&z, n, n);
        let back = mul(&mul(&zh, &a0, n, n, n), &z, n, n, n);
        assert!(max_diff(&back, &h) < 1e-13 * n as f64, "n {n}: Hessenberg");
        for i in 0..n {
            for j in 0..i.saturating_sub(1) {
                assert_eq!(h[i * n + j], c128::ZERO);
            }
        }
        assert_eq!(eig::hqr(&Serial, mat(&mut h, n), n, mat(&mut z, n), eps), 0);
        for i in 0..n {
            for j in 0..i {
                assert!(
                    h[i * n + j].mag() <= 1e-14 * n as f64,
                    "n {n}: not triangular"
                );
                h[i * n + j] = c128::ZERO;
            }
        }
        // A Z = Z T (the Schur form).
        let az = mul(&a0, &z, n, n, n);
        let zt = mul(&z, &h, n, n, n);
        assert!(max_diff(&az, &zt) < 1e-12 * n as f64, "n {n}: Schur");
        eig::trevc(&Serial, mat(&mut h, n), n, eps, 1e-300);
    }
    // x_k: column k from row k of the lower triangle, one on the diagonal.
    let mut x = vec![c128::ZERO; n * n];
    for k in 0..n {
        x[k * n + k] = c128::ONE;
        for i in 0..k {
            x[i * n + k] = h[k * n + i];
        }
    }
    let v = mul(&z, &x, n, n, n);
    let av = mul(&a0, &v, n, n, n);
    for k in 0..n {
        let w = h[k * n + k];
        let norm: f64 = (0..n)
            .map(|i| v[i * n + k].mag().powi(2))
            .sum::<f64>()
            .sqrt();
        let res: f64 = (0..n)
            .map(|i| av[i * n + k].sub(w.mul(v[i * n + k])).mag())
            .fold(0.0, f64::max);
        assert!(
            res <= 1e-12 * n as f64 * norm,
            "n {n}: eigenvector {k}: {res}"
        );
    }
}

#[test]
fn eig_reconstructs() {
    for n in [1, 2, 3, 7, 16, 25] {
        eig_case(n, n as u64 + 40, false);
        eig_case(n, n as u64 + 50, true);
    }
}
