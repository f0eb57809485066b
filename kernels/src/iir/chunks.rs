//! The chunk algebra of the long-line engine: a line cut into chunks that all filter at
//! once, their true initial states found by a scan.
//!
//! The recursion is linear in its state: over `L` samples a state `z` becomes
//! `M z + f`, where `M = A^L` (`A` the one-step zero-input matrix) and `f` is what the
//! chunk's samples leave in a state that starts at zero. So:
//!
//! 1. `chunk0`: every chunk of `L` samples filters from a zero state (a thread per
//!    chunk), keeping only its final state `f_t`. The `BLOCK` chunks of a thread block
//!    then scan those: `v_t = f_t + M v_{t-1}` is an inclusive scan of affine maps with
//!    one matrix, which Hillis and Steele's scan does in `LEVELS` steps with the powers
//!    `M^(2^d)`. Each chunk keeps its exclusive prefix `e_t` (its initial state when the
//!    block starts from zero) and the block its total (`v` of its last chunk).
//! 2. `carry`: along each line, the blocks' totals are the same recursion one level up,
//!    with the matrix `B = M^BLOCK`: a block of threads walks them (each thread `q` in
//!    turn, a scan of the threads' totals with the powers `(B^q)^(2^d)`, then each
//!    thread again), giving each block's true initial state `s_j` (the first block's is
//!    `zi`).
//! 3. `chunk1`: each chunk's true initial state is `M^t s_j + e_t` (`M^t` as the powers
//!    `M^(2^d)` of the bits of `t`), from which it filters its samples again, this time
//!    writing the output; the line's last chunk leaves the final state `zf`.
//!
//! Matrices are built on the host in complex128 ([`zero_input_matrix`], [`mat_mul`]) and
//! rounded once to the compute type ([`table`]). The short last chunk of a line has its
//! own `A^L'`, but no later chunk reads a state through it: its exclusive prefix is right,
//! and `chunk1` walks it from its true state to `zf` sample by sample.

#[cfg(not(target_arch = "nvptx64"))]
use super::cascade::{Coefs, step};
use super::cascade::{MAX_STATES, States, mat_vec};
use super::sample::Sample;
#[cfg(not(target_arch = "nvptx64"))]
use crate::dtype::c128;

/// Threads per block of every engine's kernels: chunks per block, lines per block of the
/// line kernels, threads of a carry block.
pub const BLOCK: usize = 128;
/// `log2(BLOCK)`: the steps of a block scan.
pub const LEVELS: usize = 7;
/// Matrices in a chunk launch's table: `M^(2^d)` for `d < LEVELS`, then `B = M^BLOCK`,
/// then `(B^q)^(2^d)` for `d < LEVELS`.
pub const TABLE_MATRICES: usize = 2 * LEVELS + 1;
/// Index in the table of the block matrix `B`, and of the carry scan's first power.
pub const BLOCK_MATRIX: usize = LEVELS;
pub const CARRY_POWERS: usize = LEVELS + 1;

/// How a line of `len` samples is cut for a filter of `states` states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkPlan {
    /// Samples per line.
    pub len: u64,
    /// Samples per chunk `L` (the last chunk of a line may be shorter).
    pub chunk: u64,
    /// Chunks per line.
    pub chunks: u64,
    /// Thread blocks per line (`BLOCK` chunks each).
    pub blocks: u64,
    /// Blocks each carry thread walks in turn (`q`).
    pub per_thread: u64,
}

impl ChunkPlan {
    /// The chunk length for `states` states: a thread's scan costs about `2 LEVELS
    /// states^2` multiply-adds against `2 L (2 states + 1)` for its samples, so `L` of
    /// about `14 states` keeps the scans near a quarter of the work; at least 32 samples
    /// (a whole tile of the staging buffer) and a power of two.
    pub fn new(len: u64, states: usize) -> ChunkPlan {
        let chunk = ((14 * states.max(1)) as u64).next_power_of_two().max(32);
        let chunks = len.div_ceil(chunk).max(1);
        let blocks = chunks.div_ceil(BLOCK as u64);
        ChunkPlan {
            len,
            chunk,
            chunks,
            blocks,
            per_thread: blocks.div_ceil(BLOCK as u64),
        }
    }

    /// The items `[lo, hi)` that carry thread `t` walks: `per_thread` each, aligned to the
    /// end, so only the first non-empty thread has fewer (and no thread before it has any,
    /// which keeps the scan's matrix the same for every thread).
    pub fn carry_range(&self, t: usize) -> (u64, u64) {
        let end = self.blocks as i64 - (BLOCK - 1 - t) as i64 * self.per_thread as i64;
        let hi = end.max(0) as u64;
        (hi.saturating_sub(self.per_thread), hi)
    }
}

#[cfg(not(target_arch = "nvptx64"))]
/// `a b` for `d x d` row-major complex128 matrices.
pub fn mat_mul(a: &[c128], b: &[c128], d: usize) -> Vec<c128> {
    let mut out = vec![c128::new(0.0, 0.0); d * d];
    for i in 0..d {
        for k in 0..d {
            let aik = a[i * d + k];
            for j in 0..d {
                out[i * d + j] = aik.mul_add(b[k * d + j], out[i * d + j]);
            }
        }
    }
    out
}

#[cfg(not(target_arch = "nvptx64"))]
/// `a^n` for a `d x d` matrix, by squaring.
pub fn mat_pow(a: &[c128], mut n: u64, d: usize) -> Vec<c128> {
    let mut result: Vec<c128> = (0..d * d)
        .map(|i| {
            if i / d == i % d {
                c128::new(1.0, 0.0)
            } else {
                c128::new(0.0, 0.0)
            }
        })
        .collect();
    let mut base = a.to_vec();
    while n > 0 {
        if n & 1 == 1 {
            result = mat_mul(&result, &base, d);
        }
        n >>= 1;
        if n > 0 {
            base = mat_mul(&base, &base, d);
        }
    }
    result
}

#[cfg(not(target_arch = "nvptx64"))]
/// The one-step zero-input matrix `A` of a cascade of `S` sections of order `K` (the
/// first `nsec` used): column `e` is the state after one zero sample from unit state
/// `e`, computed by the kernels' own [`step`].
pub fn zero_input_matrix<const S: usize, const K: usize>(
    c: &Coefs<c128>,
    nsec: usize,
) -> Vec<c128> {
    let d = S * K;
    let mut a = vec![c128::new(0.0, 0.0); d * d];
    for e in 0..d {
        let mut z = [c128::ZERO; MAX_STATES];
        z[e] = c128::ONE;
        step::<c128, S, K>(c, nsec, &mut z, c128::ZERO);
        for i in 0..d {
            a[i * d + e] = z[i];
        }
    }
    a
}

#[cfg(not(target_arch = "nvptx64"))]
/// The matrices of a chunk launch (see [`TABLE_MATRICES`]) for one-step matrix `a`
/// (`d x d`) and `plan`, rounded to `T`, one after the other, row-major.
pub fn table<T: Sample>(a: &[c128], d: usize, plan: &ChunkPlan) -> Vec<T> {
    let m = mat_pow(a, plan.chunk, d);
    let mut mats = Vec::with_capacity(TABLE_MATRICES);
    let mut p = m;
    for _ in 0..LEVELS {
        let next = mat_mul(&p, &p, d);
        mats.push(p);
        p = next;
    }
    // p = M^(2^LEVELS) = M^BLOCK, the block matrix.
    let mut q = mat_pow(&p, plan.per_thread, d);
    mats.push(p);
    for _ in 0..LEVELS {
        let next = mat_mul(&q, &q, d);
        mats.push(q);
        q = next;
    }
    mats.iter().flatten().map(|&v| T::from_c128(v)).collect()
}

/// `M^t v` for `t < BLOCK`, as the product of the powers `M^(2^d)` of the bits of `t`
/// (`power(d, i)` is element `i` of `M^(2^d)`, the first `LEVELS` matrices of a table).
#[inline(always)]
pub fn power_times<T: Sample, const S: usize, const K: usize>(
    power: impl Fn(usize, usize) -> T,
    t: usize,
    v: States<T>,
) -> States<T> {
    let mut v = v;
    let zero = [T::ZERO; MAX_STATES];
    for d in 0..LEVELS {
        if (t >> d) & 1 == 1 {
            v = mat_vec::<T, S, K>(|i| power(d, i), &v, &zero);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::super::cascade::pack;
    use super::super::cascade::tests::{Lcg, direct, stable_section};
    use super::*;

    /// The long-line engine on the CPU, phase by phase as the kernels run it (every
    /// thread of a phase, then the next phase), for one section of order K.
    fn chunked<T: Sample, const S: usize, const K: usize>(
        c: &Coefs<T>,
        tab: &[T],
        plan: &ChunkPlan,
        x: &[T],
        zi: &States<T>,
    ) -> (Vec<T>, States<T>) {
        let (len, l, p) = (plan.len as usize, plan.chunk as usize, plan.chunks as usize);
        let zero = [T::ZERO; MAX_STATES];
        let nblocks = plan.blocks as usize;
        let mut prefix = vec![zero; p];
        let mut agg = vec![zero; nblocks + 1];
        // chunk0: each block's chunks from zero, then the block scan.
        for j in 0..nblocks {
            let mut v: Vec<States<T>> = (0..BLOCK)
                .map(|t| {
                    let ch = j * BLOCK + t;
                    let mut z = zero;
                    for &s in x.iter().take(len.min((ch + 1) * l)).skip(ch * l) {
                        step::<T, S, K>(c, S, &mut z, s);
                    }
                    z
                })
                .collect();
            for d in 0..LEVELS {
                let before = v.clone();
                for t in (1 << d)..BLOCK {
                    v[t] = mat_vec::<T, S, K>(
                        |i| tab[d * S * K * S * K + i],
                        &before[t - (1 << d)],
                        &before[t],
                    );
                }
            }
            for t in 0..BLOCK {
                if j * BLOCK + t < p {
                    prefix[j * BLOCK + t] = if t > 0 { v[t - 1] } else { zero };
                }
            }
            agg[j + 1] = v[BLOCK - 1];
        }
        // carry: the blocks' initial states.
        let dd = S * K * S * K;
        let bmat = |i: usize| tab[BLOCK_MATRIX * dd + i];
        let item = |agg: &Vec<States<T>>, j: u64| if j == 0 { *zi } else { agg[j as usize] };
        let mut tv: Vec<States<T>> = (0..BLOCK)
            .map(|t| {
                let (lo, hi) = plan.carry_range(t);
                (lo..hi).fold(zero, |u, j| mat_vec::<T, S, K>(bmat, &u, &item(&agg, j)))
            })
            .collect();
        for d in 0..LEVELS {
            let before = tv.clone();
            for t in (1 << d)..BLOCK {
                let k = CARRY_POWERS + d;
                tv[t] = mat_vec::<T, S, K>(|i| tab[k * dd + i], &before[t - (1 << d)], &before[t]);
            }
        }
        let mut block_state = agg.clone();
        for t in 0..BLOCK {
            let (lo, hi) = plan.carry_range(t);
            let mut s = if t > 0 { tv[t - 1] } else { zero };
            for j in lo..hi {
                s = mat_vec::<T, S, K>(bmat, &s, &item(&agg, j));
                block_state[j as usize] = s;
            }
        }
        // chunk1: each chunk from its true state.
        let mut y = vec![T::ZERO; len];
        let mut zf = zero;
        for (ch, e) in prefix.iter().enumerate() {
            let (j, t) = (ch / BLOCK, ch % BLOCK);
            let mut z = power_times::<T, S, K>(|d, i| tab[d * dd + i], t, block_state[j]);
            for (s, e) in z.iter_mut().zip(e) {
                *s = s.add(*e);
            }
            for n in ch * l..len.min((ch + 1) * l) {
                y[n] = step::<T, S, K>(c, S, &mut z, x[n]);
            }
            if ch == p - 1 {
                zf = z;
            }
        }
        (y, zf)
    }

    fn sequential<T: Sample, const S: usize, const K: usize>(
        c: &Coefs<T>,
        x: &[T],
        zi: &States<T>,
    ) -> (Vec<T>, States<T>) {
        let mut z = *zi;
        let y = x
            .iter()
            .map(|&v| step::<T, S, K>(c, S, &mut z, v))
            .collect();
        (y, z)
    }

    /// The chunked engine against the sequential recursion, and both against the
    /// difference equation (from rest), in complex128, for lengths around the chunk and
    /// block boundaries and far beyond one carry thread's share.
    fn check_order<const K: usize>(order: usize, complex: bool, seed: u64) {
        let mut rng = Lcg(seed);
        let (b, a) = stable_section(&mut rng, order, complex);
        let c = pack::<c128>(&[(&b, &a)], 1, K).unwrap();
        let one_step = zero_input_matrix::<1, K>(&c, 1);
        for len in [1usize, 31, 32, 33, 4095, 4096, 4097, 70_000, 600_000] {
            let plan = ChunkPlan::new(len as u64, K);
            let tab = table::<c128>(&one_step, K, &plan);
            let x: Vec<c128> = (0..len)
                .map(|_| {
                    if complex {
                        rng.complex()
                    } else {
                        c128::new(rng.uniform(), 0.0)
                    }
                })
                .collect();
            let mut zi = [c128::ZERO; MAX_STATES];
            for z in zi.iter_mut().take(order) {
                *z = rng.complex();
            }
            let (got, gzf) = chunked::<c128, 1, K>(&c, &tab, &plan, &x, &zi);
            let (want, wzf) = sequential::<c128, 1, K>(&c, &x, &zi);
            let scale = want.iter().map(|w| w.re.hypot(w.im)).fold(1.0, f64::max);
            let err = got
                .iter()
                .zip(&want)
                .map(|(g, w)| (g.re - w.re).hypot(g.im - w.im))
                .fold(0.0, f64::max);
            assert!(err <= 1e-10 * scale, "order {order} len {len}: {err}");
            let zerr = gzf
                .iter()
                .zip(&wzf)
                .map(|(g, w)| (g.re - w.re).hypot(g.im - w.im))
                .fold(0.0, f64::max);
            assert!(zerr <= 1e-10 * scale, "order {order} len {len}: zf {zerr}");
            if len <= 4097 {
                let (from_rest, _) =
                    chunked::<c128, 1, K>(&c, &tab, &plan, &x, &[c128::ZERO; MAX_STATES]);
                let want = direct(&b, &a, &x);
                let err = from_rest
                    .iter()
                    .zip(&want)
                    .map(|(g, w)| (g.re - w.re).hypot(g.im - w.im))
                    .fold(0.0, f64::max);
                assert!(
                    err <= 1e-10 * scale,
                    "order {order} len {len}: from rest {err}"
                );
            }
        }
    }

    #[test]
    fn chunked_lines_match_the_recursion() {
        check_order::<2>(1, false, 3);
        check_order::<2>(2, true, 4);
        check_order::<4>(4, false, 5);
        check_order::<8>(7, true, 6);
        check_order::<16>(16, false, 8);
    }

    #[test]
    fn chunked_cascades_match_the_recursion() {
        let mut rng = Lcg(21);
        let sections: Vec<_> = (0..4).map(|_| stable_section(&mut rng, 2, false)).collect();
        let refs: Vec<(&[c128], &[c128])> =
            sections.iter().map(|(b, a)| (&b[..], &a[..])).collect();
        let c = pack::<c128>(&refs, 4, 2).unwrap();
        let one_step = zero_input_matrix::<4, 2>(&c, 4);
        let len = 50_000;
        let plan = ChunkPlan::new(len as u64, 8);
        let tab = table::<c128>(&one_step, 8, &plan);
        let x: Vec<c128> = (0..len).map(|_| c128::new(rng.uniform(), 0.0)).collect();
        let mut zi = [c128::ZERO; MAX_STATES];
        zi[..8].fill(c128::new(0.25, 0.0));
        let (got, gzf) = chunked::<c128, 4, 2>(&c, &tab, &plan, &x, &zi);
        let (want, wzf) = sequential::<c128, 4, 2>(&c, &x, &zi);
        let err = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (g.re - w.re).abs())
            .fold(0.0, f64::max);
        assert!(err <= 1e-10, "{err}");
        assert!(
            gzf.iter()
                .zip(&wzf)
                .all(|(g, w)| (g.re - w.re).abs() <= 1e-10)
        );
        // In float32 (the table rounded once), within a few float32 ulps of the output's
        // scale times the filter's gain.
        let c32 = pack::<f32>(&refs, 4, 2).unwrap();
        let tab32 = table::<f32>(&one_step, 8, &plan);
        let x32: Vec<f32> = x.iter().map(|v| v.re as f32).collect();
        let zi32: States<f32> = core::array::from_fn(|i| zi[i].re as f32);
        let (got32, _) = chunked::<f32, 4, 2>(&c32, &tab32, &plan, &x32, &zi32);
        let scale = want.iter().map(|w| w.re.abs()).fold(1.0, f64::max);
        let err = got32
            .iter()
            .zip(&want)
            .map(|(&g, w)| (g as f64 - w.re).abs())
            .fold(0.0, f64::max);
        assert!(err <= 1e-4 * scale, "{err}");
    }

    #[test]
    fn plans_cover_every_sample_and_block() {
        for len in [1u64, 32, 33, 1 << 20, 10_000_000] {
            for states in [2, 4, 8, 16] {
                let p = ChunkPlan::new(len, states);
                assert!(p.chunk * p.chunks >= len && p.chunk * (p.chunks - 1) < len);
                assert!(p.blocks * BLOCK as u64 >= p.chunks);
                // The carry threads' ranges tile 0..blocks, the short one first.
                let mut next = 0;
                for t in 0..BLOCK {
                    let (lo, hi) = p.carry_range(t);
                    assert!(lo == hi || lo == next, "{len} {states} {t}");
                    assert!(hi - lo == p.per_thread || (lo == 0 && hi - lo <= p.per_thread));
                    next = hi.max(next);
                }
                assert_eq!(next, p.blocks);
            }
        }
    }

    #[test]
    fn powers_are_products() {
        let mut rng = Lcg(5);
        let a: Vec<c128> = (0..9).map(|_| rng.complex()).collect();
        let a3 = mat_mul(&mat_mul(&a, &a, 3), &a, 3);
        let p = mat_pow(&a, 3, 3);
        assert!(
            p.iter()
                .zip(&a3)
                .all(|(x, y)| (x.re - y.re).abs() < 1e-12 && (x.im - y.im).abs() < 1e-12)
        );
        assert_eq!(mat_pow(&a, 0, 3)[4], c128::ONE);
    }
}
