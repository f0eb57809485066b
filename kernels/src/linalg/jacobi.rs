//! Singular values by one-sided Jacobi (Hestenes): the columns of a working copy `W` of
//! each matrix are rotated in pairs until every pair is orthogonal; the singular values
//! are then the column norms. Unlike bidiagonalization it needs no Householder panels,
//! only dot products and plane rotations of whole columns, which a warp does with
//! coalesced loads, and a sweep's pairs are independent (the round-robin order below),
//! so many warps and blocks rotate at once. It is also the accurate method: small
//! singular values come out with small relative error.
//!
//! Layout: `W` is `batch` matrices of `n` columns, each column `m` contiguous elements
//! (`n <= m`; the host transposes wide matrices, whose singular values are the same).
//! Kernels exist for float64 and complex128; the host computes float32 and complex64 in
//! them too, which also keeps squared norms of any float32 value inside float64's range.
//!
//! The pure parts (pairing, rotation angle) are plain functions tested on the CPU.

use crate::dtype::c128;
use crate::elementwise::ops::complex;
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]
use crate::elementwise::ops::float::{Float, Float2};
use crate::reduce::reduction::Ring;

/// The pair of columns that warp-slot `p` (of `n_even / 2`) rotates in round-robin step
/// `step` (of `n_even - 1`): column `n_even - 1` stays put and the others turn around it,
/// so every pair meets exactly once per sweep and the pairs of one step are disjoint.
/// `n_even` is the column count rounded up to even; a pair naming the phantom column
/// `n_even - 1` of an odd count is skipped by the caller.
#[inline(always)]
pub fn round_robin_pair(n_even: u32, step: u32, p: u32) -> (u32, u32) {
    let ring = n_even - 1;
    if p == 0 {
        (ring, step)
    } else {
        ((step + p) % ring, (step + ring - p) % ring)
    }
}

/// The rotation `(c, s)` that makes two columns orthogonal, from their squared norms
/// `alpha`, `beta` and the magnitude `g` of their inner product, or `None` when they are
/// orthogonal to within `tol` (relative to the norms) already, or when either column is
/// shorter than `tol`. The host scales each matrix so that its largest entry lies in
/// [1, 2), so such a column moves the singular values by less than `tol` times the
/// largest; rotating it anyway would only shuffle rounding noise (a column that two equal
/// columns left behind), which never turns orthogonal and so would never let the sweeps
/// stop. NaNs compare false, so a column with a NaN is never rotated either.
///
/// With `t = tan(theta)` the smaller root of `t^2 + 2 zeta t - 1 = 0`,
/// `zeta = (beta - alpha) / (2 g)`, the columns become `c a - s b` and `s a + c b`
/// (Rutishauser's formulas; the smaller root keeps the rotation under 45 degrees).
#[inline(always)]
pub fn rotation(alpha: f64, beta: f64, g: f64, tol: f64) -> Option<(f64, f64)> {
    // sqrt of each norm, not of their product, which could overflow.
    let (na, nb) = (alpha.sqrt(), beta.sqrt());
    let rotate = g > tol * na * nb && na > tol && nb > tol;
    if !rotate {
        return None;
    }
    let zeta = (beta - alpha) / (2.0 * g);
    let t = 1.0f64.copysign(zeta) / (zeta.abs() + 1.0f64.hypot(zeta));
    let c = 1.0 / 1.0f64.hypot(t);
    Some((c, c * t))
}

/// An element the rotation kernels work on: float64 or complex128. Sums and products
/// are the reductions' `Ring`; these are what a rotation needs besides.
pub trait Elem: Ring {
    fn abs2(self) -> f64;
    /// `acc + conj(a) * b`.
    fn conj_mul_add(acc: Self, a: Self, b: Self) -> Self;
    fn abs(self) -> f64;
    fn scale(self, k: f64) -> Self;
    /// The unit phase `conj(self) / |self|` that turns `self` real and positive.
    fn phase_to_real(self, abs: f64) -> Self;
}

impl Elem for f64 {
    #[inline(always)]
    fn abs2(self) -> f64 {
        self * self
    }
    #[inline(always)]
    fn conj_mul_add(acc: f64, a: f64, b: f64) -> f64 {
        acc + a * b
    }
    #[inline(always)]
    fn abs(self) -> f64 {
        Float::abs(self)
    }
    #[inline(always)]
    fn scale(self, k: f64) -> f64 {
        self * k
    }
    #[inline(always)]
    fn phase_to_real(self, abs: f64) -> f64 {
        self / abs
    }
}

impl Elem for c128 {
    #[inline(always)]
    fn abs2(self) -> f64 {
        self.re * self.re + self.im * self.im
    }
    #[inline(always)]
    fn conj_mul_add(acc: c128, a: c128, b: c128) -> c128 {
        c128::new(
            acc.re + a.re * b.re + a.im * b.im,
            acc.im + a.re * b.im - a.im * b.re,
        )
    }
    #[inline(always)]
    fn abs(self) -> f64 {
        complex::abs(self)
    }
    #[inline(always)]
    fn scale(self, k: f64) -> c128 {
        c128::new(self.re * k, self.im * k)
    }
    #[inline(always)]
    fn phase_to_real(self, abs: f64) -> c128 {
        c128::new(self.re / abs, -self.im / abs)
    }
}

/// Rotates columns `a` and `b` (given as element accessors over `0..m`) in place when
/// they are not yet orthogonal; returns whether it rotated. The sequential form of what
/// each GPU warp does, used by the CPU tests.
pub fn rotate_pair_seq<T: Elem>(a: &mut [T], b: &mut [T], tol: f64) -> bool {
    let (mut alpha, mut beta, mut g) = (0.0, 0.0, T::ZERO);
    for (&x, &y) in a.iter().zip(b.iter()) {
        alpha += x.abs2();
        beta += y.abs2();
        g = T::conj_mul_add(g, x, y);
    }
    let gabs = g.abs();
    let Some((c, s)) = rotation(alpha, beta, gabs, tol) else {
        return false;
    };
    let ph = g.phase_to_real(gabs);
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        let yb = ph.mul(*y);
        (*x, *y) = (x.scale(c).add(yb.scale(-s)), x.scale(s).add(yb.scale(c)));
    }
    true
}

/// `mode` bit of `gpupy_svd_jacobi_*`: all warps of a block rotate one pair together
/// (rows split over the block, sums reduced through shared memory), for long columns.
/// Without it each warp rotates a pair of its own.
pub const BLOCK_PER_PAIR: u32 = 1;
/// `mode` bit: the block copies its matrix into shared memory, runs its sweeps there and
/// copies it back (one block per matrix, `n * m` elements that fit the launch's shared
/// size), so each step's loads and stores stay on the SM.
pub const STAGED: u32 = 2;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_meets_every_pair_once_per_sweep() {
        for n_even in [2u32, 4, 6, 10, 32] {
            let mut seen = std::collections::HashSet::new();
            for step in 0..n_even - 1 {
                let mut cols = std::collections::HashSet::new();
                for p in 0..n_even / 2 {
                    let (i, j) = round_robin_pair(n_even, step, p);
                    assert!(
                        i != j && cols.insert(i) && cols.insert(j),
                        "step {step} reuses a column"
                    );
                    assert!(seen.insert((i.min(j), i.max(j))));
                }
            }
            assert_eq!(seen.len() as u32, n_even * (n_even - 1) / 2);
        }
    }

    #[test]
    fn rotation_orthogonalizes_and_skips_orthogonal_pairs() {
        let (mut a, mut b) = (vec![3.0f64, 1.0, -2.0], vec![1.0f64, 2.0, 0.5]);
        assert!(rotate_pair_seq(&mut a, &mut b, 1e-15));
        let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!(dot.abs() < 1e-14);
        assert!(!rotate_pair_seq(&mut a, &mut b, 1e-12));
        assert_eq!(rotation(f64::NAN, 1.0, 1.0, 1e-15), None);
        assert_eq!(rotation(1.0, 1.0, 0.0, 1e-15), None);
        // A noise column (what two equal columns leave behind) is not rotated.
        assert_eq!(rotation(1e-34, 1.0, 1e-17, 1e-15), None);
    }

    /// Sweeps until no pair rotates, then compares the column norms with singular values
    /// known in closed form: those of `[[x, y], [0, z]]` are the square roots of the
    /// eigenvalues of its Gram matrix.
    #[test]
    fn sweeps_converge_to_singular_values() {
        let (x, y, z) = (2.0f64, -3.0f64, 0.5f64);
        let cols = [
            [c128::new(x, 0.0), c128::new(0.0, 0.0)],
            [c128::new(0.0, y), c128::new(z, 0.0)],
        ];
        let (mut a, mut b) = (cols[0].to_vec(), cols[1].to_vec());
        for _ in 0..10 {
            if !rotate_pair_seq(&mut a, &mut b, 1e-15) {
                break;
            }
        }
        let norm = |v: &[c128]| v.iter().map(|e| e.abs2()).sum::<f64>().sqrt();
        let mut got = [norm(&a), norm(&b)];
        got.sort_by(f64::total_cmp);
        // |y| enters only by magnitude: a phase on one column keeps the singular values.
        let (t, d) = (x * x + y * y + z * z, (x * z).abs());
        let disc = (t * t - 4.0 * d * d).sqrt();
        let want = [((t - disc) / 2.0).sqrt(), ((t + disc) / 2.0).sqrt()];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-14 * want[1], "{got:?} vs {want:?}");
        }
    }
}
