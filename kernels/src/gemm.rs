//! Matrix-product launch parameters and tile shapes, shared by the host (which picks a
//! tile and sizes the grid) and the kernels (`matmul.rs`).
//!
//! A launch of `gpupy_matmul_<dtype>_<tile.name>` computes, for every batch `z`,
//! `C[z] = A[z] @ B[z]` with
//! - grid `(ceil(n / bn), ceil(m / bm), batch)`, block `(threads, 1, 1)`,
//! - `smem_bytes` of dynamic shared memory (always at most 48 KiB: no opt-in needed),
//! - parameters `(g: Gemm, a: *const T, b: *const T, c: *mut T)`.
//!
//! Every block computes one `bm x bn` tile of `C` (which one is [`block_tile`]'s business),
//! walking `k` in steps of `bk`. Each of its `threads` threads keeps a `tm x tn` piece of
//! the tile in registers.

/// One matrix product (or a batch of them), in elements: `A[z, i, p]` is at
/// `a + z*a_batch + i*a_row + p*a_col`, `B[z, p, j]` at `b + z*b_batch + p*b_row + j*b_col`
/// and `C[z, i, j]` at `c + z*c_batch + i*c_row + j`.
///
/// Strides may be anything, negative and zero included (a transposed operand has
/// `a_row = 1`; a broadcast batch has stride 0); `C`'s column stride is always 1. `k = 0`
/// writes zeros. `C` must not overlap `A` or `B`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gemm {
    pub m: u32,
    pub n: u32,
    pub k: u32,
    pub batch: u32,
    pub a_row: i64,
    pub a_col: i64,
    pub b_row: i64,
    pub b_col: i64,
    pub c_row: i64,
    pub a_batch: i64,
    pub b_batch: i64,
    pub c_batch: i64,
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
    /// Dynamic shared memory per block: [`smem_bytes`].
    pub smem_bytes: u32,
}

impl Tile {
    const fn new(name: &'static str, bm: u32, bn: u32, bk: u32, tm: u32, tn: u32, elem: u32) -> Tile {
        Tile { name, bm, bn, bk, tm, tn, threads: (bm / tm) * (bn / tn), smem_bytes: smem_bytes(bm, bn, bk, elem) }
    }

    /// Blocks of one launch for an `m x n` product repeated `batch` times.
    pub const fn blocks(&self, m: u32, n: u32, batch: u32) -> u64 {
        m.div_ceil(self.bm) as u64 * n.div_ceil(self.bn) as u64 * batch as u64
    }
}

/// Row length, in elements, of a shared-memory tile `bk x b` (stored `[p][i]`): `b` plus
/// 16 bytes of padding. The padding keeps rows 16-byte aligned for vector loads and shifts
/// consecutive rows by 4 banks, so the transposing stores of a row-major operand (a warp
/// writes 8 values of `p` for each of 4 values of `i`) hit 32 different banks.
pub const fn smem_ld(b: u32, elem: u32) -> u32 {
    b + 16 / elem
}

/// Shared memory of one block: two stages (double buffering) of the `bk x bm` tile of `A`
/// and the `bk x bn` tile of `B`, each row padded per [`smem_ld`].
pub const fn smem_bytes(bm: u32, bn: u32, bk: u32, elem: u32) -> u32 {
    2 * bk * (smem_ld(bm, elem) + smem_ld(bn, elem)) * elem
}

/// float32 tiles, largest first.
pub const F32_TILES: &[Tile] = &[
    Tile::new("128x128", 128, 128, 8, 8, 8, 4),
    Tile::new("128x64", 128, 64, 8, 8, 8, 4),
    Tile::new("64x64", 64, 64, 16, 4, 4, 4),
    Tile::new("64x32", 64, 32, 16, 4, 4, 4),
];
pub const F64_TILES: &[Tile] = &[
    Tile::new("128x64", 128, 64, 8, 8, 8, 8),
    Tile::new("64x64", 64, 64, 8, 8, 8, 8),
    Tile::new("64x32", 64, 32, 8, 4, 4, 8),
    Tile::new("64x32k16", 64, 32, 16, 4, 4, 8),
    Tile::new("32x32", 32, 32, 16, 4, 4, 8),
];

/// The tile to launch: the largest whose grid still gives every SM at least `waves`
/// blocks... falling back to the smallest. `tiles` is one of the tables above (largest
/// first), `sms` the device's multiprocessor count.
pub fn choose_tile(tiles: &'static [Tile], m: u32, n: u32, batch: u32, sms: u32) -> &'static Tile {
    let want = sms as u64;
    tiles.iter().find(|t| t.blocks(m, n, batch) >= want).unwrap_or(&tiles[tiles.len() - 1])
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
    let rows = if gy - first < GROUP_ROWS { gy - first } else { GROUP_ROWS };
    let rem = pid - group * width;
    (first + rem % rows, rem / rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_are_consistent() {
        for (tiles, elem) in [(F32_TILES, 4), (F64_TILES, 8)] {
            let mut names = std::collections::HashSet::new();
            for t in tiles {
                assert!(names.insert(t.name), "duplicate {}", t.name);
                assert_eq!(t.name, format!("{}x{}", t.bm, t.bn));
                assert_eq!(t.threads, (t.bm / t.tm) * (t.bn / t.tn), "{t:?}");
                assert_eq!(t.smem_bytes, smem_bytes(t.bm, t.bn, t.bk, elem), "{t:?}");
                assert!(t.smem_bytes <= 48 * 1024, "{t:?}");
                assert!(t.threads % 32 == 0 && t.threads <= 1024, "{t:?}");
                // What matmul.rs asserts at compile time, checked here too.
                let vec = 16 / elem;
                assert!(t.bm % t.tm == 0 && t.bn % t.tn == 0 && t.tm % vec == 0 && t.tn % vec == 0);
                assert!(t.threads % t.bm == 0 && t.threads % t.bn == 0 && t.threads % t.bk == 0);
                assert!((t.bm * t.bk) % t.threads == 0 && (t.bn * t.bk) % t.threads == 0);
                assert!(smem_ld(t.bm, elem) * elem % 16 == 0 && smem_ld(t.bn, elem) * elem % 16 == 0);
            }
        }
    }

    #[test]
    fn thread_rows_partition_the_tile() {
        for (b, tm, vec) in [(128, 8, 4), (64, 8, 4), (64, 4, 4), (128, 8, 2), (64, 4, 2), (32, 4, 2)] {
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
        let first: Vec<_> = (0..16).map(|pid| block_tile(pid % 4, pid / 4, 4, 16)).collect();
        assert!(first.iter().all(|&(r, c)| r < 8 && c < 2));
    }

    #[test]
    fn choose_tile_fills_the_gpu() {
        assert_eq!(choose_tile(F32_TILES, 4096, 4096, 1, 132).name, "128x128");
        assert_eq!(choose_tile(F32_TILES, 1, 1, 1, 132).name, F32_TILES.last().unwrap().name);
    }
}
