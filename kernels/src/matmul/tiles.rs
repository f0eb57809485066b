//! Matrix-product launch parameters and tile shapes, shared by the host (which picks a
//! tile and sizes the grid) and the kernels (`gpu/simt.rs`).
//!
//! A launch of `gpupy_matmul_<dtype>_<tile.name>` computes, for every batch `z`,
//! `C[z] = A[z] @ B[z]` with
//! - grid `(ceil(n / bn), ceil(m / bm), batch)`, block `(threads, 1, 1)`,
//! - `smem_bytes` of dynamic shared memory (always at most 48 KiB: no opt-in needed),
//! - parameters `(g: Gemm, a: *const T, b: *const T, c: *mut T)`.
//!
//! The SIMT kernels exist for the element types of [`SIMT_KINDS`]: `f32`, `f64`, `u32`
//! and `u64` (wrapping integer products: the same bits serve signed and unsigned
//! integers, and narrower integers are widened on the host, which wraps the same way),
//! `c64` and `c128` (complex products computed directly).
//!
//! Every block computes one `bm x bn` tile of `C` (which one is [`block_tile`]'s business),
//! walking `k` in steps of `bk`. Each of its `threads` threads keeps a `tm x tn` piece of
//! the tile in registers.

/// One matrix product (or a batch of them), in elements: `A[z, i, p]` is at
/// `a + z*a_batch + i*a_row + p*a_col`, `B[z, p, j]` at `b + z*b_batch + p*b_row + j*b_col`
/// and `C[z, i, j]` at `c + z*c_batch + i*c_row + j*c_col`.
///
/// Strides may be anything, negative and zero included (a transposed operand has
/// `a_row = 1`; a broadcast batch has stride 0). `k = 0` writes zeros. `C` must not
/// overlap `A` or `B`, and distinct `(z, i, j)` must be distinct elements of `C`.
///
/// Split-K: when `k_total != 0`, block `z` of the grid computes the partial product over
/// `p` in `z*k .. min((z+1)*k, k_total)` (the host sets `a_batch = k*a_col` and
/// `b_batch = k*b_row`), so a thin product with a long `k` fills the GPU; the partial
/// results are summed by `gpupy_matmul_<ty>_splitk_sum`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemm {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub batch: u32,
    /// Split-K: the full inner dimension (`k` is then the length of one slice); 0 when
    /// every batch entry is a whole product.
    pub k_total: u32,
    /// 1: `C[z] -= A[z] @ B[z]` (the blocked factorizations' trailing updates: no
    /// second pass over `C`), the product subtracted from `C`'s element in the store;
    /// 0: `C[z] = A[z] @ B[z]`. Read by the SIMT kernels and the float32/float64 `mma`
    /// ones; the host never sends a subtraction to the 16-bit `mma` kernels or the
    /// `wgmma` ones, which do not read it.
    pub sub: u32,
    pub a_row: i64,
    pub a_col: i64,
    pub b_row: i64,
    pub b_col: i64,
    pub c_row: i64,
    pub c_col: i64,
    pub a_batch: i64,
    pub b_batch: i64,
    pub c_batch: i64,
}

/// Matrix-vector product `y[z, i] = sum_p A[z, i, p] * x[z, p]` (also `x @ B`, as
/// `B^T x`), for `gpupy_gemv_<ty>_{rows,cols}` (float32 and float64):
/// - `rows` (for `a_col == 1`, rows contiguous): one warp a row, lanes walk `p` and the
///   warp sums with shuffles; blocks of [`GEMV_THREADS`] threads take 8 rows each.
/// - `cols` (any other layout; coalesced when `a_row == 1`): a lane a row, 32 rows a
///   block of [`GEMV_COLS_THREADS`], its warps splitting `p`; `GEMV_COLS_SMEM` bytes of shared memory
///   per element byte.
///
/// Grid `(blocks, batch)`; `batch <= 65535` a launch.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemv {
    pub m: u32,
    pub k: u32,
    pub a_row: i64,
    pub a_col: i64,
    pub x_inc: i64,
    pub y_inc: i64,
    pub a_batch: i64,
    pub x_batch: i64,
    pub y_batch: i64,
}

/// Threads of a GEMV block.
pub const GEMV_THREADS: u32 = 256;

/// Threads of a `cols` GEMV block: its warps split `p`, and a 32-row block grid is small
/// (256 blocks for 8192 rows), so each block brings many warps to keep enough loads in
/// flight to stream the matrix at memory speed.
pub const GEMV_COLS_THREADS: u32 = 512;

/// Shared memory of the `cols` GEMV variant, per byte of element: a partial sum per thread.
pub const GEMV_COLS_SMEM: u32 = GEMV_COLS_THREADS;

/// Blocks of a GEMV launch for `m` rows, per batch entry: 8 rows a block for `rows` (a
/// warp each), 32 for `cols` (a lane each).
pub const fn gemv_blocks(m: u32, rows_variant: bool) -> u32 {
    m.div_ceil(if rows_variant { GEMV_THREADS / 32 } else { 32 })
}

/// The split-K epilogue `C[i, j] = sum_s W[s, i, j]` (with `sub`, `C[i, j] -= ...`, as
/// [`Gemm::sub`]) for `gpupy_matmul_<ty>_splitk_sum` (`W` contiguous `(splits, m, n)`,
/// `C` at `c + i*c_row + j*c_col`), a grid-stride loop over `m*n` with blocks of
/// [`GEMV_THREADS`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitSum {
    pub m: u32,
    pub n: u32,
    pub splits: u32,
    pub sub: u32,
    pub c_row: i64,
    pub c_col: i64,
}

/// How many slices to cut `k` into for one product whose tile grid has `blocks` blocks
/// (batch 1), and the slice length (a multiple of 32): enough blocks to fill the GPU
/// about twice when the tile grid alone would leave SMs idle, and slices of at least 256
/// so that every block still runs a long main loop. 1 means no split.
pub fn split_k(blocks: u128, k: u32, sms: u32) -> (u32, u32) {
    let blocks = blocks.max(1);
    let want = (2 * sms.max(1)) as u128;
    if blocks >= want / 2 || k < 512 {
        return (1, k);
    }
    let splits = (want / blocks).clamp(1, 64) as u32;
    let splits = splits.min(k / 256).max(1);
    let chunk = k.div_ceil(splits).div_ceil(32) * 32;
    (k.div_ceil(chunk), chunk)
}

/// One stamped tile shape. `bk`, `tm` and `tn` are the kernel's own business; the host
/// needs `name`, `bm`, `bn`, `threads` and `smem_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile {
    /// Entry suffix: the kernel is `gpupy_matmul_<dtype>_<name>`.
    pub name: &'static str,
    /// Rows and columns of `C` per block.
    pub bm: u32,
    pub bn: u32,
    /// Depth of one shared-memory step along `k`.
    pub bk: u32,
    /// Rows and columns of `C` per thread, held in registers.
    pub tm: u32,
    pub tn: u32,
    /// Threads per block: `(bm / tm) * (bn / tn)`.
    pub threads: u32,
    /// For [`choose_tile`]: throughput on a full GPU, in percent of the table's fastest
    /// tile, and the blocks an SM needs to reach it, in tenths (an SM with fewer takes as
    /// long as with that many). Measured.
    pub speed: u32,
    pub fill: u32,
    /// Dynamic shared memory per block: [`smem_bytes`].
    pub smem_bytes: u32,
    /// Global loads as 16-byte vectors: only for operands that pass [`vector_loads`].
    pub vector: bool,
}

impl Tile {
    /// A tile of `elem`-byte values: `bm x bn` a block, `tm x tn` a thread, `bk` deep.
    const fn new(
        elem: u32,
        name: &'static str,
        [bm, bn, bk]: [u32; 3],
        [tm, tn]: [u32; 2],
    ) -> Tile {
        let (threads, smem_bytes) = ((bm / tm) * (bn / tn), smem_bytes(bm, bn, bk, elem));
        Tile {
            name,
            bm,
            bn,
            bk,
            tm,
            tn,
            threads,
            smem_bytes,
            speed: 100,
            fill: 10,
            vector: false,
        }
    }

    /// The same tile with 16-byte global loads (see [`vector_loads`]).
    const fn vectorized(self) -> Tile {
        Tile {
            vector: true,
            ..self
        }
    }

    /// With [`choose_tile`]'s measured `speed` and `fill`.
    const fn measured(self, speed: u32, fill: u32) -> Tile {
        Tile {
            speed,
            fill,
            ..self
        }
    }

    /// Blocks of one launch for an `m x n` product repeated `batch` times.
    pub const fn blocks(&self, m: u32, n: u32, batch: u32) -> u128 {
        m.div_ceil(self.bm) as u128 * n.div_ceil(self.bn) as u128 * batch as u128
    }
}

/// Row length, in elements, of a shared-memory tile `bk x b` (stored `[p][i]`): `b` plus
/// 16 bytes of padding. The padding keeps rows 16-byte aligned for vector loads and shifts
/// consecutive rows by 4 (f32) banks, so the transposing stores of a row-major `A` (a warp
/// writes 8 values of `p` for each of 4 values of `i` when `bk = 8`) hit 32 different
/// banks; with `bk = 16`, two ways.
pub const fn smem_ld(b: u32, elem: u32) -> u32 {
    b + 16 / elem
}

/// Shared memory of one block: two stages (double buffering) of the `bk x bm` tile of `A`
/// and the `bk x bn` tile of `B`, each row padded per [`smem_ld`].
pub const fn smem_bytes(bm: u32, bn: u32, bk: u32, elem: u32) -> u32 {
    2 * bk * (smem_ld(bm, elem) + smem_ld(bn, elem)) * elem
}

// Measured on an H200 in 2026-11 (an H100, also 132 SMs, gave the same within 3%) with
// the earlier float32 128x128 tile (8x8 a thread, 256 threads; the speeds of the smaller
// tiles above are these, rescaled to the new 128x128 at 48.8 TFLOP/s),
// GFLOP/s of each tile at a few shapes
// (`batch x m x n x k`), to choose from:
//
// | f32              | 128x128 | 128x64 | 64x64 | 64x32 | CuPy  |
// | ---------------- | ------- | ------ | ----- | ----- | ----- |
// | 512^3            |   4 003 |  6 226 | 9 794 | 12 930| 13 942|
// | 1024^3           |  16 404 | 25 758 | 26 105| 24 428| 38 057|
// | 2048^3           |  37 709 | 28 035 | 28 908| 25 865| 50 363|
// | 3000^3           |  27 458 | 34 931 | 29 511| 26 709| 43 637|
// | 4096^3           |  37 880 | 35 148 | 29 955| 27 389| 51 333|
// | 8192^3           |  38 746 | 37 939 | 30 734| 27 946| 51 260|
// | 128 x 4096 x 4096|   6 323 |  9 045 | 14 818| 15 247| 45 037|
// | 512 x 64^3       |   8 187 | 13 625 | 19 415| 16 949| 17 068|
//
// | f64              | 64x64  | 64x32  | 32x32  | CuPy (tensor cores) |
// | ---------------- | ------ | ------ | ------ | ------------------- |
// | 512^3            |  3 947 |  9 457 |  9 225 | 17 130 |
// | 768^3            |  8 897 | 10 583 | 10 878 | 35 967 |
// | 1024^3           | 15 844 | 14 395 | 13 724 | 52 315 |
// | 4096^3           | 19 836 | 15 477 | 14 606 | 60 279 |
// | 128 x 4096 x 4096|  6 110 | 10 908 | 12 333 | 50 213 |
//
// All four operand layouts (A and/or B transposed) ran within 3% of each other.

/// float32 tiles, largest first, then their twins with 16-byte global loads (the host
/// swaps a twin in where both operands allow it: `vector_loads`).
pub const F32_TILES: &[Tile] = &[
    // Large products (2048^2 and up): 16x8 outputs a thread in blocks of 128 threads (4
    // warps, 237 registers, 2 blocks an SM): 24 shared-memory values read per 128 FMAs.
    // With vector loads 48.8 TFLOP/s at 4096 on an H200 (CuPy 50.8), against 37.6 for
    // the 8x8-a-thread tile of 256 threads it replaced and 45.2 for a 256x128 tile.
    Tile::new(4, "128x128", [128, 128, 8], [16, 8]).measured(100, 20),
    // Medium products (1024^2 to 3000^2): 8x8 a thread in blocks of 128 threads.
    Tile::new(4, "128x64", [128, 64, 8], [8, 8]).measured(73, 14),
    // Small products and many small batches: 4x4 a thread (more shared-memory traffic
    // per FMA) and 256 threads, four times the blocks of 128x64.
    Tile::new(4, "64x64", [64, 64, 16], [4, 4]).measured(61, 20),
    // Small or thin products (up to 768^2, one side of 128): 4x4 a thread in blocks of
    // 128 threads, twice the blocks of 64x64.
    Tile::new(4, "64x32", [64, 32, 16], [4, 4]).measured(56, 35),
    Tile::new(4, "128x128v", [128, 128, 8], [16, 8])
        .measured(100, 20)
        .vectorized(),
    Tile::new(4, "128x64v", [128, 64, 8], [8, 8])
        .measured(73, 14)
        .vectorized(),
    Tile::new(4, "64x64v", [64, 64, 16], [4, 4])
        .measured(61, 20)
        .vectorized(),
];

/// Whether one operand can be read as 16-byte vectors (`vec` elements): its element
/// `(o, p)` is at `ptr + (o*s_o + p*s_p)*elem` (plus `batch` strides), `o_len` and `k`
/// its extents. The kernel reads along `p` when `s_p == 1`, else along `o`, which must
/// then have stride 1; the other stride, the batch stride and the base must be 16-byte
/// multiples, and the extent along the vectors a multiple of `vec`, so that each vector
/// lies wholly inside the matrix or wholly outside.
pub fn vector_loads(
    ptr: u64,
    s_o: i64,
    s_p: i64,
    batch: i64,
    o_len: u32,
    k: u32,
    vec: u32,
) -> bool {
    let v = vec as i64;
    let aligned = ptr.is_multiple_of(16) && batch % v == 0;
    if s_p == 1 {
        aligned && s_o % v == 0 && k.is_multiple_of(vec)
    } else {
        aligned && s_o == 1 && s_p % v == 0 && o_len.is_multiple_of(vec)
    }
}

/// float64 tiles, largest first. FP64 units are half as many as FP32 ones, so shared
/// memory has slack and registers (two a value) are the limit; 128x128 (1 block an SM)
/// and 128x64 ran no faster than 64x64.
pub const F64_TILES: &[Tile] = &[
    // Large products (1024^2 and up): 8x8 a thread (236 registers) in blocks of 64.
    Tile::new(8, "64x64", [64, 64, 8], [8, 8]).measured(100, 25),
    // Small products: 4x4 a thread in blocks of 128 threads, with 16-deep k steps.
    Tile::new(8, "64x32", [64, 32, 16], [4, 4]).measured(78, 29),
    // Small or thin products: 4x4 a thread in blocks of 64 threads.
    Tile::new(8, "32x32", [32, 32, 16], [4, 4]).measured(74, 48),
];

/// Integer tiles for 32-bit values (`i32`/`u32`, and the narrower integers widened).
/// Integer products are not a performance target; two tiles keep the module small.
pub const U32_TILES: &[Tile] = &[
    Tile::new(4, "64x64", [64, 64, 16], [4, 4]).measured(79, 20),
    Tile::new(4, "64x32", [64, 32, 16], [4, 4]).measured(72, 35),
];

/// Integer tiles for 64-bit values (`i64`/`u64`): as float64 (two registers a value).
pub const U64_TILES: &[Tile] = &[
    Tile::new(8, "64x32", [64, 32, 16], [4, 4]).measured(78, 29),
    Tile::new(8, "32x32", [32, 32, 16], [4, 4]).measured(74, 48),
];

/// complex64 tiles: 8-byte values like float64, four real FMAs a complex one.
pub const C64_TILES: &[Tile] = &[
    Tile::new(8, "64x32", [64, 32, 16], [4, 4]).measured(78, 29),
    Tile::new(8, "32x32", [32, 32, 16], [4, 4]).measured(74, 48),
];

/// complex128 tiles: 16-byte values (four registers each), so a thread's 4x4 piece
/// already holds 64 registers of accumulators.
pub const C128_TILES: &[Tile] = &[
    Tile::new(16, "32x32", [32, 32, 8], [4, 4]).measured(100, 25),
    Tile::new(16, "16x16", [16, 16, 16], [2, 2]).measured(60, 40),
];

/// Every SIMT kernel family: the kernel-name dtype word and its tile table. The host's
/// lookup table follows this order.
pub const SIMT_KINDS: &[(&str, &[Tile])] = &[
    ("f32", F32_TILES),
    ("f64", F64_TILES),
    ("u32", U32_TILES),
    ("u64", U64_TILES),
    ("c64", C64_TILES),
    ("c128", C128_TILES),
];

/// The tile to launch for `batch` products `m x n`: the one whose busiest SM finishes
/// first, by the model `max(ceil(blocks / sms), fill) * bm * bn / speed`; ties go to the
/// larger tile. It weighs a larger tile's faster inner loop against the idle or
/// under-filled SMs of a grid with few blocks, and against a ragged last wave (3000^2 runs
/// 128x64 at 35 TFLOP/s, 128x128 at 27). `tiles` is one of the tables above, `sms` the
/// device's multiprocessor count.
pub fn choose_tile(tiles: &'static [Tile], m: u32, n: u32, batch: u32, sms: u32) -> &'static Tile {
    let cost = |t: &Tile| {
        let per_sm = t.blocks(m, n, batch).div_ceil(sms.max(1) as u128);
        (per_sm * 10).max(t.fill as u128) * (t.bm * t.bn) as u128 * 1000 / t.speed as u128
    };
    let mut best = &tiles[0];
    for t in &tiles[1..] {
        if cost(t) < cost(best) {
            best = t;
        }
    }
    best
}

/// Row `group * (b / tm) * vec + t * vec + q` of a block tile `b` rows high, for thread row
/// `t` (of `b / tm`), which holds `tm` rows as `tm / vec` groups of `vec` consecutive rows
/// (`vec` values are one 16-byte vector). Columns likewise with `bn`, `tn`.
///
/// Spreading a thread's rows over the tile, rather than giving it `tm` consecutive ones,
/// makes the threads that read a vector of `B` at once read consecutive 16-byte pieces:
/// 16 threads read 256 contiguous bytes, the fewest shared-memory wavefronts.
pub const fn thread_row(group: u32, q: u32, t: u32, b: u32, tm: u32, vec: u32) -> u32 {
    group * (b / tm) * vec + t * vec + q
}

/// Block rows walked together by [`block_tile`].
pub const GROUP_ROWS: u32 = 8;

/// The `(tile_row, tile_col)` of `C` that block `(bx, by)` of a `gx x gy` grid computes.
///
/// Blocks start roughly in linear order (`x` fastest). Going along whole block rows,
/// the blocks running at once would read every column tile of `B` for few row tiles of
/// `A`; instead the grid is walked in groups of [`GROUP_ROWS`] block rows, column by
/// column inside a group, so blocks running together share both their `A` and `B`
/// tiles in L2. A bijection of the grid onto itself.
pub const fn block_tile(bx: u32, by: u32, gx: u32, gy: u32) -> (u32, u32) {
    let width = GROUP_ROWS as u64 * gx as u64;
    if gx as u64 * gy as u64 + width > u32::MAX as u64 {
        return (by, bx);
    }
    let width = width as u32;
    let pid = by * gx + bx;
    let group = pid / width;
    let first = group * GROUP_ROWS;
    let rows = if gy - first < GROUP_ROWS {
        gy - first
    } else {
        GROUP_ROWS
    };
    let rem = pid - group * width;
    (first + rem % rows, rem / rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_consistent() {
        for (tiles, elem) in [
            (F32_TILES, 4),
            (F64_TILES, 8),
            (U32_TILES, 4),
            (U64_TILES, 8),
            (C64_TILES, 8),
            (C128_TILES, 16),
        ] {
            let mut names = std::collections::HashSet::new();
            for t in tiles {
                assert!(names.insert(t.name), "duplicate {}", t.name);
                assert!(t.name.starts_with(&format!("{}x{}", t.bm, t.bn)), "{t:?}");
                assert_eq!(t.threads, (t.bm / t.tm) * (t.bn / t.tn), "{t:?}");
                assert_eq!(t.smem_bytes, smem_bytes(t.bm, t.bn, t.bk, elem), "{t:?}");
                assert!(t.smem_bytes <= 48 * 1024, "{t:?}");
                let divides = |d: u32, x: u32| x.is_multiple_of(d);
                assert!(divides(32, t.threads) && t.threads <= 1024, "{t:?}");
                // What matmul.rs asserts at compile time, checked here too.
                let vec = (16 / elem).max(1);
                assert!(divides(t.tm, t.bm) && divides(t.tn, t.bn));
                assert!(divides(vec, t.tm) && divides(vec, t.tn));
                assert!(divides(t.bm, t.threads) && divides(t.bn, t.threads));
                assert!(divides(t.bk, t.threads));
                assert!(divides(t.threads, t.bm * t.bk) && divides(t.threads, t.bn * t.bk));
                assert!(divides(16, smem_ld(t.bm, elem) * elem));
                assert!(divides(16, smem_ld(t.bn, elem) * elem));
            }
        }
    }

    #[test]
    fn vector_tiles_have_scalar_twins() {
        for (_, tiles) in SIMT_KINDS {
            for t in tiles.iter().filter(|t| t.vector) {
                assert!(tiles.iter().any(|s| !s.vector
                    && (s.bm, s.bn, s.bk, s.tm, s.tn) == (t.bm, t.bn, t.bk, t.tm, t.tn)));
            }
        }
    }

    #[test]
    fn vector_loads_need_alignment_and_whole_vectors() {
        // Row-major A (along k): k, the row stride and the base.
        assert!(vector_loads(256, 64, 1, 0, 100, 64, 4));
        assert!(!vector_loads(256, 64, 1, 0, 100, 62, 4));
        assert!(!vector_loads(256, 66, 1, 0, 100, 64, 4));
        assert!(!vector_loads(260, 64, 1, 0, 100, 64, 4));
        // Row-major B (along n): n, the row stride, and a unit stride along n.
        assert!(vector_loads(0, 1, 128, 0, 128, 7, 4));
        assert!(!vector_loads(0, 1, 128, 0, 126, 7, 4));
        assert!(!vector_loads(0, 2, 128, 0, 128, 7, 4));
        // A batch stride off the vector grid.
        assert!(!vector_loads(0, 1, 128, 6, 128, 8, 4));
    }

    #[test]
    fn split_k_covers_k() {
        let t = &F32_TILES[3];
        for (m, n, k) in [
            (64, 64, 65536),
            (4096, 64, 4096),
            (65536, 64, 64),
            (5, 7, 513),
        ] {
            let (s, chunk) = split_k(t.blocks(m, n, 1), k, 132);
            assert!(s >= 1 && chunk >= 1);
            assert!(
                (s - 1) * chunk < k && s * chunk >= k,
                "{m} {n} {k}: {s} x {chunk}"
            );
        }
        // A product that fills the GPU is not split.
        assert_eq!(split_k(F32_TILES[0].blocks(4096, 4096, 1), 4096, 132).0, 1);
        // A thin one with a long k is.
        assert!(split_k(F32_TILES[3].blocks(64, 64, 1), 65536, 132).0 > 8);
    }

    #[test]
    fn thread_rows_partition_the_tile() {
        for (b, tm, vec) in [
            (128, 8, 4),
            (64, 8, 4),
            (64, 4, 4),
            (128, 8, 2),
            (64, 4, 2),
            (32, 4, 2),
        ] {
            let mut seen = vec![false; b as usize];
            for t in 0..b / tm {
                for group in 0..tm / vec {
                    for q in 0..vec {
                        let r = thread_row(group, q, t, b, tm, vec) as usize;
                        assert!(r < b as usize && !seen[r], "{b} {tm} {vec}: row {r}");
                        seen[r] = true;
                    }
                }
            }
        }
    }

    #[test]
    fn block_tile_is_a_bijection() {
        for gx in 1..=20 {
            for gy in 1..=27 {
                let mut seen = vec![false; (gx * gy) as usize];
                for by in 0..gy {
                    for bx in 0..gx {
                        let (r, c) = block_tile(bx, by, gx, gy);
                        assert!(r < gy && c < gx, "{gx}x{gy}: ({bx},{by}) -> ({r},{c})");
                        let i = (r * gx + c) as usize;
                        assert!(!seen[i], "{gx}x{gy}: ({r},{c}) twice");
                        seen[i] = true;
                    }
                }
            }
        }
        // Too large to group: identity.
        assert_eq!(block_tile(5, 7, u32::MAX / 4, 1000), (7, 5));
    }

    #[test]
    fn block_tile_groups_rows() {
        // 4 x 16 grid: the first 16 blocks cover 8 rows x 2 columns.
        let first: Vec<_> = (0..16)
            .map(|pid| block_tile(pid % 4, pid / 4, 4, 16))
            .collect();
        assert!(first.iter().all(|&(r, c)| r < 8 && c < 2));
    }

    #[test]
    fn choose_tile_picks_the_measured_best() {
        // (m, n, batch, f32 tile, f64 tile): the fastest or within 7% of it on an H200.
        let cases = [
            (128, 128, 1, "64x32", "32x32"),
            (512, 512, 1, "64x32", "32x32"),
            (768, 768, 1, "64x32", "32x32"),
            (1024, 1024, 1, "64x64", "64x64"),
            (2048, 2048, 1, "128x128", "64x64"),
            (3000, 3000, 1, "128x128", "64x64"),
            (4096, 4096, 1, "128x128", "64x64"),
            (8192, 8192, 1, "128x128", "64x64"),
            (128, 4096, 1, "64x32", "32x32"),
            (4096, 128, 1, "64x32", "32x32"),
            (64, 64, 512, "64x64", "64x64"),
            (256, 256, 64, "128x128", "64x64"),
        ];
        for (m, n, batch, f32_tile, f64_tile) in cases {
            assert_eq!(
                choose_tile(F32_TILES, m, n, batch, 132).name,
                f32_tile,
                "f32 {m}x{n}x{batch}"
            );
            assert_eq!(
                choose_tile(F64_TILES, m, n, batch, 132).name,
                f64_tile,
                "f64 {m}x{n}x{batch}"
            );
        }
        // Degenerate shapes and a zero SM count still give a tile.
        for t in [F32_TILES, F64_TILES] {
            choose_tile(t, 0, 0, 0, 0);
            choose_tile(t, u32::MAX, u32::MAX, u32::MAX, 1);
        }
    }
}
