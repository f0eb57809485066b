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
//! Matrices are built on the host ([`zero_input_matrix`], [`mat_pow`] in double-double
//! arithmetic) and rounded once to the compute type ([`table`]); a chunk length is only
//! used when the powers of its matrix stay bounded ([`choose`]). The short last chunk of
//! a line has its own `A^L'`, but no later chunk reads a state through it: its exclusive
//! prefix is right, and `chunk1` walks it from its true state to `zf` sample by sample.

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
        ChunkPlan::with_chunk(len, chunk)
    }

    /// The plan of chunks of `chunk` samples.
    pub fn with_chunk(len: u64, chunk: u64) -> ChunkPlan {
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

/// Host matrix arithmetic in double-double precision (about 106 bits): the powers
/// `M = A^L` of a badly conditioned recursion pass through matrices far larger than
/// `M` itself, and in plain float64 their rounding would leave `M` with errors of
/// `eps * max_j ||A^j||^2`; twice the precision makes that negligible before the
/// one rounding to the compute type.
#[cfg(not(target_arch = "nvptx64"))]
mod dd {
    use crate::dtype::c128;

    /// `hi + lo`, `|lo| <= ulp(hi) / 2`.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Dd {
        pub hi: f64,
        pub lo: f64,
    }

    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd {
            hi: s,
            lo: (a - (s - bb)) + (b - bb),
        }
    }

    fn quick(hi: f64, lo: f64) -> Dd {
        let s = hi + lo;
        Dd {
            hi: s,
            lo: lo - (s - hi),
        }
    }

    impl Dd {
        pub fn of(v: f64) -> Dd {
            Dd { hi: v, lo: 0.0 }
        }
        pub fn add(self, o: Dd) -> Dd {
            let s = two_sum(self.hi, o.hi);
            quick(s.hi, s.lo + self.lo + o.lo)
        }
        pub fn neg(self) -> Dd {
            Dd {
                hi: -self.hi,
                lo: -self.lo,
            }
        }
        pub fn mul(self, o: Dd) -> Dd {
            let p = self.hi * o.hi;
            let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
            quick(p, e)
        }
        pub fn value(self) -> f64 {
            self.hi + self.lo
        }
    }

    /// A complex double-double.
    #[derive(Clone, Copy, Debug, Default)]
    pub struct Cdd {
        pub re: Dd,
        pub im: Dd,
    }

    impl Cdd {
        pub fn of(v: c128) -> Cdd {
            Cdd {
                re: Dd::of(v.re),
                im: Dd::of(v.im),
            }
        }
        pub fn mul_add(self, b: Cdd, c: Cdd) -> Cdd {
            Cdd {
                re: c.re.add(self.re.mul(b.re)).add(self.im.mul(b.im).neg()),
                im: c.im.add(self.re.mul(b.im)).add(self.im.mul(b.re)),
            }
        }
        pub fn value(self) -> c128 {
            c128::new(self.re.value(), self.im.value())
        }
    }

    /// `a b` for `d x d` row-major matrices.
    pub fn mul(a: &[Cdd], b: &[Cdd], d: usize) -> Vec<Cdd> {
        let mut out = vec![Cdd::default(); d * d];
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

    /// `a^n`, by squaring.
    pub fn pow(a: &[Cdd], mut n: u64, d: usize) -> Vec<Cdd> {
        let mut result: Vec<Cdd> = (0..d * d)
            .map(|i| {
                Cdd::of(if i / d == i % d {
                    c128::new(1.0, 0.0)
                } else {
                    c128::new(0.0, 0.0)
                })
            })
            .collect();
        let mut base = a.to_vec();
        while n > 0 {
            if n & 1 == 1 {
                result = mul(&result, &base, d);
            }
            n >>= 1;
            if n > 0 {
                base = mul(&base, &base, d);
            }
        }
        result
    }

    pub fn of(a: &[c128]) -> Vec<Cdd> {
        a.iter().map(|&v| Cdd::of(v)).collect()
    }

    pub fn round(a: &[Cdd]) -> Vec<c128> {
        a.iter().map(|v| v.value()).collect()
    }
}

/// `a b` for `d x d` row-major complex128 matrices (computed in double-double, rounded
/// once).
#[cfg(not(target_arch = "nvptx64"))]
pub fn mat_mul(a: &[c128], b: &[c128], d: usize) -> Vec<c128> {
    dd::round(&dd::mul(&dd::of(a), &dd::of(b), d))
}

/// `a^n` for a `d x d` matrix (by squaring in double-double, rounded once).
#[cfg(not(target_arch = "nvptx64"))]
pub fn mat_pow(a: &[c128], n: u64, d: usize) -> Vec<c128> {
    dd::round(&dd::pow(&dd::of(a), n, d))
}

/// The longest chunk the host tries (see [`choose`]).
pub const MAX_CHUNK: u64 = 1 << 16;
/// The most growth `max_k ||M^k||` (infinity norm) of the chunk matrix the scan accepts:
/// every rounding error of the scan reaches a chunk's state through a power of `M`, so
/// it bounds their amplification.
pub const MAX_GROWTH: f64 = 4.0;
/// Fewest chunks a line is cut into (fewer leave the scan no parallelism to gain).
pub const MIN_CHUNKS: u64 = 8;
/// Powers of `M` examined before a chunk length is given up.
#[cfg(not(target_arch = "nvptx64"))]
const POWER_CHECKS: u64 = 256;

#[cfg(not(target_arch = "nvptx64"))]
fn norm_inf(m: &[c128], d: usize) -> f64 {
    (0..d)
        .map(|i| {
            (0..d)
                // |z| without `hypot`: libm's hypot would tie the wheel to glibc 2.35's
                // symbol; these entries are far from overflow.
                .map(|j| {
                    let z = m[i * d + j];
                    (z.re * z.re + z.im * z.im).sqrt()
                })
                .sum::<f64>()
        })
        .fold(0.0, f64::max)
}

/// `max_{k <= limit} ||m^k||` (the identity's 1 included), when it stays within
/// [`MAX_GROWTH`] and is known: the powers up to `limit` were all examined, or one of
/// them is at most 1/2 (then every later power `m^(jk + r) = (m^k)^j m^r` is at most the
/// growth seen). `None` otherwise, and for non-finite matrices.
#[cfg(not(target_arch = "nvptx64"))]
pub fn power_growth(m: &[c128], d: usize, limit: u64) -> Option<f64> {
    let mut p: Vec<c128> = (0..d * d)
        .map(|i| {
            if i / d == i % d {
                c128::ONE
            } else {
                c128::ZERO
            }
        })
        .collect();
    let mut growth: f64 = 1.0;
    for _ in 0..limit.min(POWER_CHECKS) {
        p = mat_mul(&p, m, d);
        let n = norm_inf(&p, d);
        if !n.is_finite() || n > MAX_GROWTH {
            return None;
        }
        growth = growth.max(n);
        if n <= 0.5 {
            return Some(growth);
        }
    }
    (limit <= POWER_CHECKS).then_some(growth)
}

/// The chunk plan for a line of `len` samples of a recursion with one-step matrix `a`
/// (`d x d`): the base chunk of [`ChunkPlan::new`], or 4, 16, ... times longer (up to
/// [`MAX_CHUNK`]), the first whose `M = a^L` has bounded powers ([`power_growth`]) over
/// the line's chunks, with that growth. `None` when none does, or the line is too short
/// for [`MIN_CHUNKS`]: the line engine runs it then.
///
/// Why: a direct-form recursion's matrix can be far from normal (poles near the unit
/// circle, high order), so `a^L` may have entries orders of magnitude above its
/// eventual decay; rounded to the compute type, such a matrix may even have an
/// eigenvalue outside the unit circle, and the scan would amplify its own rounding
/// without bound. Longer chunks let the powers decay first.
#[cfg(not(target_arch = "nvptx64"))]
pub fn choose(a: &[c128], d: usize, len: u64) -> Option<(ChunkPlan, f64)> {
    let mut chunk = ChunkPlan::new(len, d).chunk;
    while chunk <= MAX_CHUNK {
        let plan = ChunkPlan::with_chunk(len, chunk);
        if plan.chunks < MIN_CHUNKS {
            return None;
        }
        if let Some(growth) = power_growth(&mat_pow(a, chunk, d), d, plan.chunks) {
            return Some((plan, growth));
        }
        chunk *= 4;
    }
    None
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
    // Every power in double-double, each rounded once.
    let mut mats = Vec::with_capacity(TABLE_MATRICES);
    let mut p = dd::pow(&dd::of(a), plan.chunk, d);
    for _ in 0..LEVELS {
        let next = dd::mul(&p, &p, d);
        mats.push(dd::round(&p));
        p = next;
    }
    // p = M^(2^LEVELS) = M^BLOCK, the block matrix.
    let mut q = dd::pow(&p, plan.per_thread, d);
    mats.push(dd::round(&p));
    for _ in 0..LEVELS {
        let next = dd::mul(&q, &q, d);
        mats.push(dd::round(&q));
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

    /// A section of order 2 * pairs with its poles clustered near the unit circle
    /// (radius `r`, angles 0.05 to 0.2): a badly conditioned direct form, like a
    /// high-order lowpass with a low cutoff.
    fn clustered(pairs: usize, r: f64) -> (Vec<c128>, Vec<c128>) {
        let mut a = vec![c128::new(1.0, 0.0)];
        for p in 0..pairs {
            let t = 0.05 + 0.15 * p as f64 / pairs.max(1) as f64;
            let (c1, c2) = (-2.0 * r * t.cos(), r * r);
            let mut next = vec![c128::new(0.0, 0.0); a.len() + 2];
            for (i, v) in a.iter().enumerate() {
                next[i].re += v.re;
                next[i + 1].re += c1 * v.re;
                next[i + 2].re += c2 * v.re;
            }
            a = next;
        }
        let gain: f64 = a.iter().map(|v| v.re).sum();
        let mut b = vec![c128::new(0.0, 0.0); a.len()];
        b[0] = c128::new(gain, 0.0);
        (b, a)
    }

    #[test]
    fn badly_conditioned_recursions_get_longer_chunks_or_none() {
        // Well conditioned: the base chunk.
        let mut rng = Lcg(9);
        let (b, a) = stable_section(&mut rng, 4, false);
        let c = pack::<c128>(&[(&b, &a)], 1, 4).unwrap();
        let one = zero_input_matrix::<1, 4>(&c, 1);
        let (plan, growth) = choose(&one, 4, 1 << 20).unwrap();
        assert_eq!(plan.chunk, ChunkPlan::new(1 << 20, 4).chunk);
        assert!((1.0..=MAX_GROWTH).contains(&growth));
        // Too short for MIN_CHUNKS chunks.
        assert!(choose(&one, 4, 7 * 64).is_none());
        // Clustered poles: the base chunk's matrix is far from normal, a longer one
        // has decayed.
        let (b, a) = clustered(4, 0.98);
        let c = pack::<c128>(&[(&b, &a)], 1, 8).unwrap();
        let one = zero_input_matrix::<1, 8>(&c, 1);
        let base = ChunkPlan::new(1 << 20, 8).chunk;
        assert!(power_growth(&mat_pow(&one, base, 8), 8, 1 << 13).is_none());
        let (plan, _) = choose(&one, 8, 1 << 20).unwrap();
        assert!(plan.chunk > base);
        // An integrator never decays: accepted while every power is checked (growth 2:
        // its tier pads it to two states, and the zero second one feeds the first).
        let c = pack::<c128>(
            &[(&[c128::ONE, c128::ZERO], &[c128::ONE, c128::new(-1.0, 0.0)])],
            1,
            2,
        )
        .unwrap();
        let one = zero_input_matrix::<1, 2>(&c, 1);
        assert_eq!(choose(&one, 2, 32 * 200).map(|p| p.1), Some(2.0));
        assert_eq!(choose(&one, 2, 32 * 200).unwrap().0.chunk, 32);
        let (long, _) = choose(&one, 2, 1 << 20).unwrap();
        assert!(long.chunks <= POWER_CHECKS);
    }

    #[test]
    fn badly_conditioned_recursions_stay_accurate_in_float32() {
        let (b, a) = clustered(4, 0.98);
        let c64 = pack::<c128>(&[(&b, &a)], 1, 8).unwrap();
        let c32 = pack::<f32>(&[(&b, &a)], 1, 8).unwrap();
        let one = zero_input_matrix::<1, 8>(&c64, 1);
        let len = 200_000;
        let (plan, _) = choose(&one, 8, len as u64).unwrap();
        let mut rng = Lcg(13);
        let x: Vec<f32> = (0..len).map(|_| rng.uniform() as f32).collect();
        let x64: Vec<c128> = x.iter().map(|&v| c128::new(v as f64, 0.0)).collect();
        let (want, _) = sequential::<c128, 1, 8>(&c64, &x64, &[c128::ZERO; MAX_STATES]);
        let (seq, _) = sequential::<f32, 1, 8>(&c32, &x, &[0.0; MAX_STATES]);
        let tab = table::<f32>(&one, 8, &plan);
        let (got, _) = chunked::<f32, 1, 8>(&c32, &tab, &plan, &x, &[0.0; MAX_STATES]);
        let err = |y: &[f32]| {
            y.iter()
                .zip(&want)
                .map(|(&g, w)| (g as f64 - w.re).abs())
                .fold(0.0, f64::max)
        };
        let (e_seq, e_chunk) = (err(&seq), err(&got));
        // The chunk scan adds at most a few times the recursion's own float32 error.
        assert!(
            e_chunk <= 4.0 * e_seq,
            "{e_chunk} vs {e_seq} (chunk {})",
            plan.chunk
        );
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
    fn double_double_keeps_what_float64_rounds_away() {
        let a = dd::Dd::of(1.0 + 2f64.powi(-30));
        let sq = a.mul(a);
        assert_eq!((sq.hi, sq.lo), (1.0 + 2f64.powi(-29), 2f64.powi(-60)));
        let back = sq.add(dd::Dd::of(-1.0)).add(dd::Dd::of(-(2f64.powi(-29))));
        assert_eq!(back.value(), 2f64.powi(-60));
        // A Jordan block with a huge off-diagonal: the exact powers are known.
        let j = [
            c128::new(0.5, 0.0),
            c128::new(1e8, 0.0),
            c128::ZERO,
            c128::new(0.5, 0.0),
        ];
        let p = mat_pow(&j, 40, 2);
        let exact = 40.0 * 1e8 * 0.5f64.powi(39);
        assert_eq!(p[0].re, 0.5f64.powi(40));
        assert!((p[1].re - exact).abs() <= exact * 1e-15);
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
