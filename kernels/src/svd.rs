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
use crate::ops::complex;
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]
use crate::ops::float::{Float, Float2};
use crate::reduction::Ring;

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

#[cfg(target_arch = "nvptx64")]
mod gpu_kernels {
    use super::*;
    use crate::gpu::{
        block_dim, block_idx, block_idx_y, grid_dim, ld_shared_words, shfl_xor_words, smem_addr,
        smem_generic, st_shared_words, sync_threads, sync_threads_or, thread_idx,
    };
    use crate::reduction::Words;

    /// The three sums a pair's rotation needs, reduced together.
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Sums<T> {
        alpha: f64,
        beta: f64,
        g: T,
    }
    // SAFETY: two f64 and an f64 or complex128: whole 8-byte words, no padding.
    unsafe impl Words for Sums<f64> {}
    unsafe impl Words for Sums<c128> {}

    impl<T: Elem> Sums<T> {
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Sums {
                alpha: self.alpha + o.alpha,
                beta: self.beta + o.beta,
                g: self.g.add(o.g),
            }
        }
    }

    /// The threads that rotate one pair: a warp, or with `BLOCK_PER_PAIR` the block.
    #[derive(Clone, Copy)]
    struct Group {
        /// This thread's index in the group, and the group's thread count.
        t: u64,
        size: u64,
        /// Warps in the group and this thread's warp among them.
        warps: u32,
        warp: u32,
    }

    /// A group orthogonalizes columns `a` and `b` (`m` elements each): each thread sums
    /// rows `t, t + size, ...`, a butterfly gives every lane its warp's totals, a block
    /// group adds the warps' totals from shared memory (in one order, so every thread
    /// gets the same bits), and every thread then rotates its rows. Returns the same
    /// answer on every thread of the group.
    ///
    /// # Safety
    /// `a` and `b` each point at `m` elements that no other group touches during the
    /// call; every thread of the group calls it together; a block group has
    /// `warps * size_of::<Sums<T>>()` bytes of shared memory at offset 0.
    #[inline(always)]
    unsafe fn rotate_pair<T: Elem>(a: *mut T, b: *mut T, m: u64, g: Group, tol: f64) -> bool
    where
        Sums<T>: Words,
    {
        let mut s = Sums {
            alpha: 0.0,
            beta: 0.0,
            g: T::ZERO,
        };
        let mut r = g.t;
        while r < m {
            // SAFETY: r < m, inside both columns.
            let (x, y) = unsafe { (*a.add(r as usize), *b.add(r as usize)) };
            s.alpha += x.abs2();
            s.beta += y.abs2();
            s.g = T::conj_mul_add(s.g, x, y);
            r += g.size;
        }
        let mut d = 16;
        while d > 0 {
            s = s.add(shfl_xor_words(s, d));
            d /= 2;
        }
        if g.warps > 1 {
            let bytes = core::mem::size_of::<Sums<T>>() as u32;
            if g.t.is_multiple_of(32) {
                // SAFETY: slot `warp` is inside the warps * bytes the launch provides.
                unsafe { st_shared_words(smem_addr(g.warp * bytes), s) };
            }
            sync_threads();
            // SAFETY: every slot was stored before the barrier.
            s = unsafe { ld_shared_words(smem_addr(0)) };
            for w in 1..g.warps {
                // SAFETY: as above.
                s = s.add(unsafe { ld_shared_words(smem_addr(w * bytes)) });
            }
            // The slots are stored again for the next pair.
            sync_threads();
        }
        let gabs = s.g.abs();
        let Some((c, sn)) = rotation(s.alpha, s.beta, gabs, tol) else {
            return false;
        };
        let ph = s.g.phase_to_real(gabs);
        let mut r = g.t;
        while r < m {
            // SAFETY: as above; this thread alone owns row r of both columns.
            unsafe {
                let (x, y) = (*a.add(r as usize), ph.mul(*b.add(r as usize)));
                *a.add(r as usize) = x.scale(c).add(y.scale(-sn));
                *b.add(r as usize) = x.scale(sn).add(y.scale(c));
            }
            r += g.size;
        }
        true
    }

    /// Copies `len` elements from `src` to `dst` with the whole block.
    ///
    /// # Safety
    /// Both hold `len` elements; every thread of the block calls it.
    #[inline(always)]
    unsafe fn block_copy<T: Copy>(dst: *mut T, src: *const T, len: usize) {
        let mut i = thread_idx() as usize;
        while i < len {
            // SAFETY: i < len.
            unsafe { *dst.add(i) = *src.add(i) };
            i += block_dim() as usize;
        }
    }

    /// Round-robin steps `first_step .. first_step + steps` of up to `sweeps` sweeps on
    /// matrix `block_idx_y` of `w`, groups taking the pairs of a step in turn (across the
    /// whole grid's x dimension). With `sweeps > 1` the block runs whole sweeps alone
    /// (the host launches one block in x) and stops after the first sweep without a
    /// rotation. `flags[matrix]` is set to 1 when the last sweep (or step) run rotated
    /// anything, so the host knows whether to go on. `mode` holds `BLOCK_PER_PAIR` and
    /// `STAGED` bits.
    ///
    /// # Safety
    /// `w` holds `gridDim.y` matrices of `n * m` elements, `flags` `gridDim.y` words;
    /// `blockDim.x` is a multiple of 32; with `sweeps > 1` or `STAGED`, `gridDim.x == 1`;
    /// the dynamic shared memory holds `n * m` elements with `STAGED` and one `Sums<T>`
    /// per warp with `BLOCK_PER_PAIR` (never both).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn jacobi<T: Elem>(
        w: *mut T,
        m: u64,
        n: u32,
        first_step: u32,
        steps: u32,
        sweeps: u32,
        tol: f64,
        flags: *mut u32,
        mode: u32,
    ) where
        Sums<T>: Words,
    {
        let matrix = block_idx_y() as usize;
        let len = n as usize * m as usize;
        // SAFETY: matrix < gridDim.y, so its n * m elements are inside w.
        let global = unsafe { w.add(matrix * len) };
        let staged = mode & STAGED != 0;
        let w = if staged {
            let s = smem_generic(0).cast::<T>();
            // SAFETY: shared memory holds n * m elements when STAGED.
            unsafe { block_copy(s, global, len) };
            sync_threads();
            s
        } else {
            global
        };
        let warps = block_dim() / 32;
        let g = if mode & BLOCK_PER_PAIR != 0 {
            Group {
                t: thread_idx() as u64,
                size: block_dim() as u64,
                warps,
                warp: thread_idx() / 32,
            }
        } else {
            Group {
                t: (thread_idx() % 32) as u64,
                size: 32,
                warps: 1,
                warp: 0,
            }
        };
        let (groups, group) = (warps / g.warps, thread_idx() / (32 * g.warps));
        let n_even = n + (n & 1);
        let mut rotated = false;
        for _ in 0..sweeps {
            rotated = false;
            for step in first_step..first_step + steps {
                let mut p = block_idx() * groups + group;
                while p < n_even / 2 {
                    let (i, j) = round_robin_pair(n_even, step, p);
                    if i < n && j < n {
                        // SAFETY: i, j < n name columns inside this matrix; the pairs of
                        // one step are disjoint, so no other group touches them. A block
                        // group's p, i and j are uniform across the block.
                        rotated |= unsafe {
                            rotate_pair(
                                w.add(i as usize * m as usize),
                                w.add(j as usize * m as usize),
                                m,
                                g,
                                tol,
                            )
                        };
                    }
                    p += grid_dim() * groups;
                }
                // The next step pairs columns that other groups just rotated. Uniform:
                // every thread runs the same steps.
                rotated = sync_threads_or(rotated);
            }
            if !rotated {
                break;
            }
        }
        if staged {
            // SAFETY: as the copy in; the last step ended with a barrier.
            unsafe { block_copy(global, w, len) };
        }
        if rotated && thread_idx() == 0 {
            // SAFETY: matrix < gridDim.y. Blocks of one step may all store 1: same value.
            unsafe { *flags.add(matrix) = 1 };
        }
    }

    macro_rules! jacobi_entries {
        ($(($name:literal, $t:ty))*) => { $(
            const _: () = {
                #[unsafe(export_name = concat!("gpupy_svd_jacobi_", $name))]
                unsafe extern "ptx-kernel" fn k(w: *mut $t, m: u64, n: u32, first_step: u32, steps: u32, sweeps: u32, tol: f64, flags: *mut u32, mode: u32) {
                    // SAFETY: the host launches per jacobi's contract (ops/svd.rs).
                    unsafe { jacobi::<$t>(w, m, n, first_step, steps, sweeps, tol, flags, mode) }
                }
            };
        )* };
    }
    jacobi_entries!(("float64", f64)("complex128", c128));
}

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
