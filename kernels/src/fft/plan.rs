//! How a transform is computed: lengths split into passes, passes into block-local
//! stages, the block shapes, and the index arithmetic the GPU engine and the CPU
//! engine here share (so `cargo test` checks the GPU's schedule against a direct DFT).

#[cfg(not(target_arch = "nvptx64"))]
extern crate alloc;
#[cfg(not(target_arch = "nvptx64"))]
use alloc::vec::Vec;

#[cfg(not(target_arch = "nvptx64"))]
use super::radix::Cx;
use super::radix::RADICES;
#[cfg(not(target_arch = "nvptx64"))]
use super::twiddle::turn;
use super::{MAX_STAGES, Pass};

// ---------------------------------------------------------------------------------------
// Block-local Stockham stages.

/// Shared-memory position of element `e` of a row: one spare slot every 16 elements,
/// so that the 16 consecutive outputs a radix-16 butterfly writes, and the elements 16
/// apart the next stage reads, fall in different banks for adjacent butterflies.
#[inline(always)]
pub const fn pad(e: u32) -> u32 {
    e + (e >> 4)
}

/// Elements between rows in shared memory, for a block of `2^tile_log2` rows of `len`.
/// One shared-memory wavefront serves `lanes` threads (16 complex64, 8 complex128:
/// 128 bytes); adjacent threads take adjacent rows, so the rows a wavefront's threads
/// touch together must start in different banks: with `T < lanes` rows of a block
/// side by side and `lanes / T` butterflies of each, a pitch of `lanes / T` modulo
/// `lanes` puts row `t`'s butterfly `j` at bank offset `t * lanes / T + j` (all
/// different); with `T >= lanes`, an odd pitch.
#[inline(always)]
pub const fn pitch(len: u32, tile_log2: u32, double: bool) -> u32 {
    let base = pad(len - 1) + 1;
    let lanes = if double { 8 } else { 16 };
    if tile_log2 == 0 {
        return base;
    }
    if (1u32 << tile_log2) >= lanes {
        return base | 1;
    }
    let want = lanes >> tile_log2;
    base + (want + lanes - base % lanes) % lanes
}

/// Butterflies a thread computes per stage of radix `radix`: its registers hold 16
/// complex values (of either precision).
#[inline(always)]
pub const fn per_thread(radix: u32, double: bool) -> u32 {
    let _ = double;
    if 16 / radix > 1 { 16 / radix } else { 1 }
}

/// Stockham stage of radix `R` after stages whose radices multiply to `ns`, over a row
/// of `len`: butterfly `j` (`< len / R`) reads elements `j + r * len / R` ...
#[inline(always)]
pub const fn stage_src(j: u32, r: u32, quarter: u32) -> u32 {
    j + r * quarter
}

/// ... multiplies input `r > 0` by `W_(ns R)^(jl r)` (with `jl = j % ns`), entry
/// `stage_twiddle` of the stage's table (`block_table`): the tables hold, per
/// stage, `r` outer and `jl` inner, so adjacent butterflies read adjacent entries ...
#[inline(always)]
pub const fn stage_twiddle(jl: u32, r: u32, ns: u32) -> u32 {
    (r - 1) * ns + jl
}

/// Entries of a stage's twiddle table (`R - 1` rows of `ns`).
#[inline(always)]
pub const fn stage_table_len(radix: u32, ns: u32) -> u32 {
    (radix - 1) * ns
}

/// ... and writes output `r` at `(j / ns) * ns * R + jl + r * ns`.
#[inline(always)]
pub const fn stage_dst(j: u32, jl: u32, r: u32, ns: u32, radix: u32) -> u32 {
    (j - jl) * radix + jl + r * ns
}

/// The radices of a block-local FFT of `len` (each a butterfly of `radix::RADICES`,
/// largest first) and their count; `None` when `len` has a prime factor above 13 or
/// needs more than `MAX_STAGES` stages.
pub const fn radices(len: u32) -> Option<([u8; MAX_STAGES], u32)> {
    let mut out = [0u8; MAX_STAGES];
    let mut count = 0;
    let mut rest = len;
    let mut i = 0;
    while i < RADICES.len() {
        let r = RADICES[i];
        while rest.is_multiple_of(r) && rest > 1 {
            if count == MAX_STAGES as u32 {
                return None;
            }
            out[count as usize] = r as u8;
            count += 1;
            rest /= r;
        }
        i += 1;
    }
    if rest == 1 { Some((out, count)) } else { None }
}

/// Whether every prime factor of `n` is at most 13.
pub const fn smooth(mut n: u64) -> bool {
    if n == 0 {
        return false;
    }
    let primes = [2, 3, 5, 7, 11, 13];
    let mut i = 0;
    while i < primes.len() {
        while n.is_multiple_of(primes[i]) {
            n /= primes[i];
        }
        i += 1;
    }
    n == 1
}

/// Bytes of per-column bookkeeping a block keeps after its rows: the column's source
/// and destination offsets (i64 each), its index `j` and `j % ns` (u32 each).
pub const META_BYTES: u32 = 24;

/// A block's shape for a pass of length `len` over `2^tile_log2` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub threads: u32,
    pub smem: u32,
}

#[cfg(not(target_arch = "nvptx64"))]
/// The stage twiddles of a block-local FFT of `len` (`plan::radices`), stage after
/// stage: `W_(ns R)^(jl r)` at `plan::stage_twiddle(jl, r, ns)` of the stage's part.
pub fn block_table(len: u32) -> Vec<Cx<f64>> {
    let (radix, stages) = radices(len).expect("a smooth length");
    let mut out = Vec::new();
    let mut ns = 1u32;
    for &r in &radix[..stages as usize] {
        let r = r as u32;
        let at = out.len();
        out.resize(at + stage_table_len(r, ns) as usize, Cx::default());
        for k in 1..r {
            for jl in 0..ns {
                out[at + stage_twiddle(jl, k, ns) as usize] =
                    turn((jl * k) as u64, (ns * r) as u64);
            }
        }
        ns *= r;
    }
    out
}

#[cfg(not(target_arch = "nvptx64"))]
/// The block for `len` and a tile: enough threads that each does at most
/// `per_thread` butterflies in every stage, at least one per column, a multiple of
/// a warp.
pub fn block(len: u32, tile_log2: u32, double: bool) -> Option<Block> {
    let (radices, stages) = radices(len)?;
    let elems = len << tile_log2;
    let mut threads = 1u32 << tile_log2;
    for &r in &radices[..stages as usize] {
        let r = r as u32;
        threads = threads.max((elems / r).div_ceil(per_thread(r, double)));
    }
    let threads = threads.div_ceil(32) * 32;
    let elem = if double { 16 } else { 8 };
    let smem = (pitch(len, tile_log2, double) * elem) << tile_log2;
    Some(Block {
        threads,
        smem: smem + (META_BYTES << tile_log2),
    })
}

// ---------------------------------------------------------------------------------------
// The four-step twiddles between passes.

/// log2 of the fine part of `four_step_table(n)`: half of `ceil(log2 n)`, rounded up,
/// so both parts hold about `sqrt(n)` entries.
pub const fn four_step_fine_log2(n: u64) -> u32 {
    let bits = if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    };
    bits.div_ceil(2)
}

/// The two entries of `four_step_table(n)` whose product is `W_n^m` (`m < n`): the
/// fine `W_n^(m mod F)` and the coarse `W_n^(F floor(m / F))`, `F = 2^fine_log2`.
#[inline(always)]
pub const fn four_step_entries(m: u64, fine_log2: u32) -> (usize, usize) {
    let fine = 1u64 << fine_log2;
    (
        (m & (fine - 1)) as usize,
        (fine + (m >> fine_log2)) as usize,
    )
}

#[cfg(not(target_arch = "nvptx64"))]
/// The four-step twiddles of a transform of `n` points, in float64: `W_n^f` for
/// `f < F`, then `W_n^(F c)` for `c < ceil(n / F)` (`F = 2^four_step_fine_log2(n)`),
/// each to the last bit (`twiddle::turn`); a product of two is within an ulp or two
/// of float64, far below complex64's and at complex128's own rounding.
pub fn four_step_table(n: u64) -> Vec<Cx<f64>> {
    let f = four_step_fine_log2(n);
    let fine = 1u64 << f;
    (0..fine)
        .map(|m| turn(m, n))
        .chain((0..n.div_ceil(fine)).map(|c| turn(c * fine, n)))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Splitting a length into passes.

/// The planner's limits for one precision.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// complex128 (else complex64): the blocks' shared-memory layout depends on it.
    pub double: bool,
    /// The longest transform done in one pass (one block per row).
    pub single_max: u32,
    /// The longest pass of a multi-pass transform, whose blocks take `2^min_tile_log2`
    /// columns at least, so that each reads whole 32-byte sectors.
    pub pass_max: u32,
    pub min_tile_log2: u32,
    /// Elements a block aims at when rows are short (columns are added up to it).
    pub target: u32,
    /// The most threads a block may have (the kernel's limit on the device).
    pub max_threads: u32,
    /// Blocks a pass of a multi-pass transform should have at least (a few per SM):
    /// its tiles narrow towards single 32-byte sectors until it does (0: no rule).
    pub min_blocks: u64,
}

impl Limits {
    pub const fn of(double: bool, max_threads: u32) -> Limits {
        if double {
            Limits {
                double,
                single_max: 4096,
                pass_max: 1024,
                min_tile_log2: 2,
                target: 1024,
                max_threads,
                min_blocks: 0,
            }
        } else {
            Limits {
                double,
                single_max: 8192,
                pass_max: 1024,
                min_tile_log2: 3,
                target: 2048,
                max_threads,
                min_blocks: 0,
            }
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
/// The prime factors of `n` (with repeats), largest first.
fn prime_factors(mut n: u64) -> Vec<u32> {
    let mut out = Vec::new();
    for p in [2u64, 3, 5, 7, 11, 13] {
        while n.is_multiple_of(p) {
            out.push(p as u32);
            n /= p;
        }
    }
    out.reverse();
    out
}

#[cfg(not(target_arch = "nvptx64"))]
/// The pass lengths of a smooth `n`: one pass when it fits, else the fewest passes of
/// at most `pass_max`, their lengths as even as the factors allow, longest first.
pub fn passes(n: u64, lim: &Limits, single_tile_log2: u32) -> Vec<u32> {
    if n <= lim.single_max as u64 && fits(n as u32, single_tile_log2, lim) {
        return alloc::vec![n as u32];
    }
    let factors = prime_factors(n);
    let mut count = 2;
    loop {
        let mut bins = alloc::vec![1u64; count];
        let mut ok = true;
        for &p in &factors {
            let (i, _) = bins.iter().enumerate().min_by_key(|(_, b)| **b).unwrap();
            if bins[i] * p as u64 > lim.pass_max as u64 {
                ok = false;
                break;
            }
            bins[i] *= p as u64;
        }
        if ok && bins.iter().all(|&b| fits(b as u32, lim.min_tile_log2, lim)) {
            let mut out: Vec<u32> = bins.into_iter().map(|b| b as u32).collect();
            out.sort_unstable_by(|a, b| b.cmp(a));
            return out;
        }
        count += 1;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
/// Whether a block of `len` over `2^tile_log2` columns stays within the thread limit.
fn fits(len: u32, tile_log2: u32, lim: &Limits) -> bool {
    block(len, tile_log2, lim.double).is_some_and(|b| b.threads <= lim.max_threads)
}

/// Bluestein's convolution length for `n`: the smallest `2^a`, `3 * 2^a` or `5 * 2^a`
/// at least `2n - 1` (lengths with more factors of 3, 5 or 7 take more stages, and the
/// radix-16 stages of a power of two are the fastest per point).
pub fn bluestein_length(n: u64) -> u64 {
    let want = 2 * n - 1;
    [1u64, 3, 5]
        .iter()
        .map(|&f| f * want.div_ceil(f).next_power_of_two())
        .min()
        .unwrap()
}

// ---------------------------------------------------------------------------------------
// A transform's schedule.

/// Where a pass reads or writes: the transform's input or output, or one of two
/// scratch buffers of `batch * n` elements laid out `[b][element]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buf {
    Input,
    Output,
    Scratch(u8),
}

/// One launch of a transform: the pass (pointers and tables left for the host), its
/// buffers and its grid.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub pass: Pass,
    pub src: Buf,
    pub dst: Buf,
    pub block: Block,
    pub blocks: u64,
}

/// A batch of transforms: `batch1 x batch0` items, input element `e` of item
/// `(b1, b0)` at `b1*src[0] + b0*src[1] + e*src[2]`, output likewise with `dst`.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub batch1: u64,
    pub batch0: u64,
    pub src: [i64; 3],
    pub dst: [i64; 3],
}

#[cfg(not(target_arch = "nvptx64"))]
/// The launches of a smooth transform of length `n` (forward; `conj` sets `conj_in`
/// on the first and `conj_out` on the last pass, for the inverse), with `scale`
/// applied by the last. Pointers, tables and `mul` are the host's to fill.
pub fn schedule(n: u64, geo: &Geometry, lim: &Limits, conj: bool, scale: f64) -> Vec<Step> {
    let double = lim.double;
    // Along a strided axis with adjacent batch items, a block takes adjacent items
    // (whole sectors) and the scratch buffers keep them adjacent: `[b1][element][b0]`.
    let batch_inner =
        geo.src[2].unsigned_abs() != 1 && geo.src[1].unsigned_abs() == 1 && geo.batch0 > 1;
    let sector_log2 = lim.min_tile_log2 - 1;
    let lens = passes(n, lim, if batch_inner { sector_log2 } else { 0 });
    let batch = geo.batch1 * geo.batch0;
    let es = if batch_inner { geo.batch0 as i64 } else { 1 };
    let scratch = [
        geo.batch0 as i64 * n as i64,
        if batch_inner { 1 } else { n as i64 },
    ];
    let mut ns = 1u64;
    let mut steps = Vec::new();
    for (p, &len) in lens.iter().enumerate() {
        let first = p == 0;
        let last = p + 1 == lens.len();
        let cols = n / len as u64;
        let (src, [src_b1, src_b0, src_j, src_e]) = if first {
            let [b1, b0, e] = geo.src;
            (Buf::Input, [b1, b0, e, e * cols as i64])
        } else {
            let s = Buf::Scratch(((p - 1) % 2) as u8);
            (s, [scratch[0], scratch[1], es, cols as i64 * es])
        };
        let (dst, [dst_b1, dst_b0, dst_e]) = if last {
            (Buf::Output, geo.dst)
        } else {
            (Buf::Scratch((p % 2) as u8), [scratch[0], scratch[1], es])
        };
        let total = cols * batch;
        let mut tile_log2 = (lim.target / len).max(1).ilog2().min(8);
        if lens.len() > 1 {
            tile_log2 = tile_log2.max(lim.min_tile_log2);
            // One wide tile per SM leaves each SM a single block to hide its latency
            // (2^20 complex64 points: 128 blocks of 8 columns). Narrower tiles still
            // read whole 32-byte sectors.
            while tile_log2 > sector_log2 && total >> tile_log2 < lim.min_blocks {
                tile_log2 -= 1;
            }
        } else {
            if batch_inner {
                tile_log2 = tile_log2.max(sector_log2);
            }
            tile_log2 = tile_log2.min(total.max(1).next_power_of_two().ilog2());
        }
        let block = block(len, tile_log2, double).expect("a planned pass has a block");
        let (radices, stages) = radices(len).unwrap();
        let pass = Pass {
            cols,
            batch,
            batch0: geo.batch0,
            src_b1,
            src_b0,
            src_j,
            src_e,
            dst_b1,
            dst_b0,
            dst_jh: ns as i64 * len as i64 * dst_e,
            dst_jl: dst_e,
            dst_e: ns as i64 * dst_e,
            ns: ns as u32,
            len,
            tile_log2,
            load_rows: (src_e.unsigned_abs() == 1) as u32,
            store_rows: ((ns as i64 * dst_e).unsigned_abs() == 1) as u32,
            batch_inner: batch_inner as u32,
            step: n / (ns * len as u64),
            fine_log2: four_step_fine_log2(n),
            conj_in: (conj && first) as u32,
            conj_out: (conj && last) as u32,
            scale: if last { scale } else { 1.0 },
            stages,
            radices,
            ..Pass::default()
        };
        steps.push(Step {
            pass,
            src,
            dst,
            block,
            blocks: total.div_ceil(1 << tile_log2),
        });
        ns *= len as u64;
    }
    steps
}

/// The column bookkeeping of a pass: column `col` (of `cols * batch`) is `j` of batch
/// item `b` (`Pass::batch_inner` says in which order); its source and destination offsets, `j` and `j % ns`.
#[inline(always)]
pub fn column(p: &Pass, col: u64) -> (i64, i64, u32, u32) {
    let (b1, b0, j) = if p.batch_inner != 0 {
        let rest = col / p.batch0;
        (rest / p.cols, col % p.batch0, rest % p.cols)
    } else {
        let b = col / p.cols;
        (b / p.batch0, b % p.batch0, col % p.cols)
    };
    let ns = p.ns as u64;
    let (jh, jl) = (j / ns, j % ns);
    let src = b1 as i64 * p.src_b1 + b0 as i64 * p.src_b0 + j as i64 * p.src_j;
    let dst =
        b1 as i64 * p.dst_b1 + b0 as i64 * p.dst_b0 + jh as i64 * p.dst_jh + jl as i64 * p.dst_jl;
    (src, dst, j as u32, jl as u32)
}

// ---------------------------------------------------------------------------------------
// The CPU engine: the GPU's schedule, block by block, in float64.

#[cfg(test)]
pub mod cpu {
    use super::*;
    use crate::fft::radix::{Cx, Dft};

    fn dft_row(v: &mut [Cx<f64>]) {
        macro_rules! go {
            ($($n:literal)*) => {
                match v.len() {
                    $($n => {
                        let mut a: [Cx<f64>; $n] = core::array::from_fn(|i| v[i]);
                        <Cx<f64> as Dft<$n>>::dft(&mut a);
                        v.copy_from_slice(&a);
                    })*
                    _ => unreachable!(),
                }
            };
        }
        go!(2 3 4 5 7 8 9 11 13 16)
    }

    /// One block-local FFT over a row held at `pad` positions, stage by stage as the
    /// GPU does (in place: every butterfly's inputs are read before any is written).
    fn block_fft(row: &mut [Cx<f64>], len: u32, radices: &[u8]) {
        let table = block_table(len);
        let mut at = 0usize;
        let mut ns = 1u32;
        for &r in radices {
            let r = r as u32;
            let quarter = len / r;
            let mut outs = Vec::new();
            for j in 0..quarter {
                let jl = j % ns;
                let mut v: Vec<Cx<f64>> = (0..r)
                    .map(|k| {
                        let x = row[pad(stage_src(j, k, quarter)) as usize];
                        if k == 0 {
                            x
                        } else {
                            x * table[at + stage_twiddle(jl, k, ns) as usize]
                        }
                    })
                    .collect();
                dft_row(&mut v);
                for (k, y) in v.into_iter().enumerate() {
                    outs.push((pad(stage_dst(j, jl, k as u32, ns, r)) as usize, y));
                }
            }
            for (i, y) in outs {
                row[i] = y;
            }
            at += stage_table_len(r, ns) as usize;
            ns *= r;
        }
    }

    /// Runs a schedule on `input` (offsets relative to its start, which must keep every
    /// read in bounds; `origin` is added), writing `output` likewise.
    pub fn run(
        steps: &[Step],
        n: u64,
        input: &[Cx<f64>],
        origin: i64,
        output: &mut [Cx<f64>],
        out_origin: i64,
    ) {
        let batch = steps[0].pass.batch as usize;
        let mut scratch = [
            alloc::vec![Cx::<f64>::default(); batch * n as usize],
            alloc::vec![Cx::<f64>::default(); batch * n as usize],
        ];
        let four_step = four_step_table(n);
        let twiddle = |p: &Pass, m: u64| {
            let (f, c) = four_step_entries(m * p.step, p.fine_log2);
            four_step[f] * four_step[c]
        };
        for s in steps {
            let p = &s.pass;
            let tile = 1u64 << p.tile_log2;
            // (Any pitch of at least a padded row gives the same values.)
            let pitch = pitch(p.len, p.tile_log2, false) as usize;
            for blk in 0..s.blocks {
                let mut rows = alloc::vec![Cx::<f64>::default(); pitch * tile as usize];
                let cols: Vec<_> = (0..tile)
                    .map(|t| blk * tile + t)
                    .filter(|&c| c < p.cols * p.batch)
                    .map(|c| column(p, c))
                    .collect();
                for (t, &(src, _, j, jl)) in cols.iter().enumerate() {
                    for e in 0..p.len {
                        let at = src + e as i64 * p.src_e;
                        let mut x = match s.src {
                            Buf::Input => input[(origin + at) as usize],
                            Buf::Scratch(i) => scratch[i as usize][at as usize],
                            Buf::Output => unreachable!(),
                        };
                        if p.conj_in != 0 {
                            x = x.conj();
                        }
                        if p.ns > 1 {
                            x = x * twiddle(p, jl as u64 * e as u64);
                        }
                        let _ = j;
                        rows[t * pitch + pad(e) as usize] = x;
                    }
                }
                for (t, _) in cols.iter().enumerate() {
                    let row = &mut rows[t * pitch..(t + 1) * pitch];
                    block_fft(row, p.len, &p.radices[..p.stages as usize]);
                }
                for (t, &(_, dst, _, _)) in cols.iter().enumerate() {
                    for e in 0..p.len {
                        let mut y = rows[t * pitch + pad(e) as usize];
                        if p.conj_out != 0 {
                            y = y.conj();
                        }
                        let y = y.scale(p.scale);
                        let at = dst + e as i64 * p.dst_e;
                        match s.dst {
                            Buf::Output => output[(out_origin + at) as usize] = y,
                            Buf::Scratch(i) => scratch[i as usize][at as usize] = y,
                            Buf::Input => unreachable!(),
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::cpu::run;
    use super::*;
    use crate::fft::radix::Cx;

    fn naive(x: &[Cx<f64>], inverse: bool) -> Vec<Cx<f64>> {
        let n = x.len();
        let sign = if inverse { 1.0 } else { -1.0 };
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Cx::default(), |acc, (j, &v)| {
                    let a = sign * 2.0 * core::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    acc + v * Cx::new(a.cos(), a.sin())
                })
            })
            .collect()
    }

    fn data(len: usize, seed: u64) -> Vec<Cx<f64>> {
        let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        (0..len).map(|_| Cx::new(next(), next())).collect()
    }

    /// Row-major batches: `batch` rows of `n`, transformed along the rows.
    fn check(n: u64, batch: u64, lim: &Limits, inverse: bool) {
        let geo = Geometry {
            batch1: 1,
            batch0: batch,
            src: [0, n as i64, 1],
            dst: [0, n as i64, 1],
        };
        let steps = schedule(n, &geo, lim, inverse, 0.5);
        let x = data((n * batch) as usize, n + batch);
        let mut y = alloc::vec![Cx::default(); x.len()];
        run(&steps, n, &x, 0, &mut y, 0);
        for b in 0..batch as usize {
            let row = &x[b * n as usize..(b + 1) * n as usize];
            let want = naive(row, inverse);
            for (k, w) in want.iter().enumerate() {
                let g = y[b * n as usize + k];
                let tol = 1e-12 * (n as f64).sqrt() * 4.0;
                assert!(
                    (g.re - 0.5 * w.re).abs() < tol && (g.im - 0.5 * w.im).abs() < tol,
                    "n={n} batch={batch} passes={:?} k={k}: {g:?} vs {w:?}",
                    passes(n, lim, 0)
                );
            }
        }
    }

    fn small_limits(double: bool) -> Limits {
        // Small limits force several passes on small sizes, so the multi-pass path
        // runs here in reasonable time.
        Limits {
            single_max: if double { 4096 } else { 8192 },
            ..Limits::of(double, 1024)
        }
    }

    #[test]
    fn one_pass_sizes_match_the_dft() {
        let lim = Limits::of(false, 1024);
        for n in [
            2u64, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 30, 32, 48, 60, 64, 77, 99, 128, 143,
            169, 210, 243, 256, 343, 1000, 1024,
        ] {
            for batch in [1, 3] {
                check(n, batch, &lim, false);
                check(n, batch, &lim, true);
            }
        }
    }

    #[test]
    fn multi_pass_schedules_match_the_dft() {
        for double in [false, true] {
            let mut lim = small_limits(double);
            lim.single_max = 16;
            lim.pass_max = 16;
            for n in [32u64, 64, 96, 128, 360, 512, 1024, 2048, 3 * 5 * 7 * 4] {
                check(n, 2, &lim, false);
                check(n, 1, &lim, true);
            }
        }
    }

    #[test]
    fn strided_batches_read_and_write_where_the_geometry_says() {
        // An (n, 6) matrix transformed along axis 0 into a (6, n) output, and a
        // negative element stride.
        let n = 48u64;
        let mut lim = Limits::of(false, 1024);
        for single in [8192, 8] {
            lim.single_max = single;
            lim.pass_max = 8;
            let geo = Geometry {
                batch1: 2,
                batch0: 3,
                src: [3, 1, -6],
                dst: [3 * n as i64, n as i64, 1],
            };
            let steps = schedule(n, &geo, &lim, false, 1.0);
            let x = data((n * 6) as usize, 5);
            let mut y = alloc::vec![Cx::default(); x.len()];
            let origin = (6 * (n - 1)) as i64;
            run(&steps, n, &x, origin, &mut y, 0);
            for b1 in 0..2i64 {
                for b0 in 0..3i64 {
                    let row: Vec<_> = (0..n as i64)
                        .map(|e| x[(origin + b1 * 3 + b0 - 6 * e) as usize])
                        .collect();
                    let want = naive(&row, false);
                    for (k, w) in want.iter().enumerate() {
                        let g = y[((b1 * 3 + b0) * n as i64) as usize + k];
                        assert!((g.re - w.re).abs() < 1e-11 && (g.im - w.im).abs() < 1e-11);
                    }
                }
            }
        }
    }

    #[test]
    fn radix_16_exchanges_are_free_of_bank_conflicts() {
        // A pass of 256 = 16 x 16 over T columns: the first stage writes butterfly j's
        // outputs at 16 j + r, the last reads butterfly j's inputs at j + 16 r; adjacent
        // threads take adjacent columns. Each wavefront (128 bytes of threads) must
        // touch every 4-byte bank once.
        for double in [false, true] {
            let words = if double { 4 } else { 2 };
            let lanes = 32 / words;
            for tile_log2 in 1..=4u32 {
                let p = pitch(256, tile_log2, double);
                assert!(p > pad(255));
                for r in 0..16 {
                    for pos in [|j: u32, r: u32| 16 * j + r, |j: u32, r: u32| j + 16 * r] {
                        let mut banks = alloc::vec![0u32; 32];
                        for b in 0..lanes {
                            let t = b & ((1 << tile_log2) - 1);
                            let j = b >> tile_log2;
                            let word = (t * p + pad(pos(j, r))) * words;
                            for w in 0..words {
                                banks[((word + w) % 32) as usize] += 1;
                            }
                        }
                        assert!(
                            banks.iter().all(|&n| n == 1),
                            "double={double} tile_log2={tile_log2} r={r}: {banks:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn columns_of_a_matrix_take_adjacent_batch_items() {
        // An (n, 8) C-contiguous matrix along axis 0, out to the same layout (the
        // first axis of fft2): blocks take adjacent items, passes keep them adjacent.
        let n = 96u64;
        let mut lim = Limits::of(false, 1024);
        for single in [8192, 8] {
            lim.single_max = single;
            lim.pass_max = 16;
            let geo = Geometry {
                batch1: 1,
                batch0: 8,
                src: [0, 1, 8],
                dst: [0, 1, 8],
            };
            let steps = schedule(n, &geo, &lim, true, 1.0);
            assert!(steps.iter().all(|s| s.pass.batch_inner == 1));
            assert!(steps.iter().all(|s| s.pass.tile_log2 >= 2), "{steps:?}");
            assert_eq!(steps.len() > 1, single == 8);
            let x = data((n * 8) as usize, 7);
            let mut y = alloc::vec![Cx::default(); x.len()];
            run(&steps, n, &x, 0, &mut y, 0);
            for b0 in 0..8usize {
                let row: Vec<_> = (0..n as usize).map(|e| x[e * 8 + b0]).collect();
                let want = naive(&row, true);
                for (k, w) in want.iter().enumerate() {
                    let g = y[k * 8 + b0];
                    assert!((g.re - w.re).abs() < 1e-11 && (g.im - w.im).abs() < 1e-11);
                }
            }
        }
    }

    #[test]
    fn small_grids_take_narrower_tiles() {
        let geo = Geometry {
            batch1: 1,
            batch0: 1,
            src: [0, 0, 1],
            dst: [0, 0, 1],
        };
        let mut lim = Limits::of(false, 1024);
        let wide: Vec<u32> = schedule(1 << 20, &geo, &lim, false, 1.0)
            .iter()
            .map(|s| s.pass.tile_log2)
            .collect();
        assert_eq!(wide, [3, 3]);
        lim.min_blocks = 528;
        let steps = schedule(1 << 20, &geo, &lim, false, 1.0);
        for s in &steps {
            assert_eq!(s.pass.tile_log2, 2);
            assert_eq!(s.blocks, 256);
        }
        // Large transforms keep their tiles.
        let steps = schedule(1 << 24, &geo, &lim, false, 1.0);
        assert!(steps.iter().all(|s| s.pass.tile_log2 == 3));
    }

    #[test]
    fn four_step_products_are_the_twiddles() {
        for n in [2u64, 3, 5, 48, 1000, 4096, 65521 * 4, 1 << 24, 3u64.pow(17)] {
            let table = four_step_table(n);
            let f = four_step_fine_log2(n);
            assert!((1u64 << (2 * f)) >= n, "{n}");
            let ms: Vec<u64> = if n <= 4096 {
                (0..n).collect()
            } else {
                (0..5000u64)
                    .map(|i| (i * 2654435761) % n)
                    .chain([n - 1])
                    .collect()
            };
            for m in ms {
                let (a, b) = four_step_entries(m, f);
                let w = table[a] * table[b];
                let want = turn(m, n);
                let err = ((w.re - want.re).powi(2) + (w.im - want.im).powi(2)).sqrt();
                assert!(err <= 4.0 * f64::EPSILON, "n={n} m={m}: {err:e}");
            }
        }
    }

    #[test]
    fn passes_are_few_and_fit() {
        let lim = Limits::of(false, 1024);
        assert_eq!(passes(4096, &lim, 0), alloc::vec![4096]);
        assert_eq!(passes(8192, &lim, 0), alloc::vec![8192]);
        assert_eq!(passes(1 << 20, &lim, 0), alloc::vec![1024, 1024]);
        assert_eq!(passes(1 << 24, &lim, 0).len(), 3);
        assert_eq!(passes(1 << 27, &lim, 0), alloc::vec![512, 512, 512]);
        assert_eq!(bluestein_length(1009), 2048);
        assert_eq!(bluestein_length(1500), 3072);
        assert!(bluestein_length(17) >= 33);
        assert!(!smooth(17) && smooth(2 * 3 * 5 * 7 * 11 * 13));
        for len in [2u32, 3, 16, 1000, 4096, 8192] {
            let b = block(len, 0, false).unwrap();
            assert!(
                b.threads <= 1024 && b.threads.is_multiple_of(32),
                "{len}: {b:?}"
            );
        }
    }
}
