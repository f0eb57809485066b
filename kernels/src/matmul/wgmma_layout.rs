//! Hopper warpgroup products (`wgmma.mma_async`, sm_90a, in `gpu/wgmma.rs`): the tile, the
//! shared-memory layout the tensor cores read and its matrix descriptors, kept outside the
//! GPU-only module so that the host sizes launches from the same numbers and `cargo test`
//! checks the maps on the CPU.
//!
//! A block of [`WG_THREADS`] threads (two warpgroups) computes a [`WG_BM`] x [`WG_BN`]
//! tile of `C`; warpgroup `w` owns rows `64w..64w+64` as two `m64n128` accumulator sets.
//! Both operands are read k-major (`A` as `[m][k]`, `B` as `[n][k]`): the host hands a
//! row-major `B` over as a transposed copy. A stage stores each operand row's 128 bytes
//! of `k` (64 float16 or 32 float32 values) in the 128-byte swizzled layout
//! ([`swizzled`]), the one `wgmma` reads without bank conflicts.
//!
//! The accumulators of an `m64nN` instruction are laid out per warp as `mma.sync`'s
//! `m16n8` C fragments, one per 8 columns ([`acc_pos`]; PTX ISA, "Register fragments and
//! shared memory matrix layouts" for `wgmma`).

/// Rows and columns of `C` a block computes.
pub const WG_BM: u32 = 128;
pub const WG_BN: u32 = 256;
/// Two warpgroups of 4 warps.
pub const WG_THREADS: u32 = 256;
/// Bytes of `k` a stored operand row holds per stage: one 128-byte swizzle row.
pub const ROW_BYTES: u32 = 128;
/// Pipeline depth: two tiles in flight while one is multiplied and the one before it
/// drains from the tensor cores (`wgmma.wait_group 1`).
pub const WG_STAGES: u32 = 4;
/// Bytes of one stage: the `A` tile, then the `B` tile.
pub const STAGE_BYTES: u32 = (WG_BM + WG_BN) * ROW_BYTES;
/// Byte offset of the `B` tile within a stage.
pub const B_OFFSET: u32 = WG_BM * ROW_BYTES;
/// Dynamic shared memory of a launch: the stages, plus 1 KiB so that the kernel can
/// start them on a 1024-byte boundary (the swizzle pattern repeats every 8 rows of 128
/// bytes, and the descriptors assume atoms aligned to it).
pub const WG_SMEM_BYTES: u32 = WG_STAGES * STAGE_BYTES + 1024;

/// Bytes of `k` one instruction consumes (16 float16 or 8 TF32 values): a k step moves
/// the descriptors' start by this much inside the swizzled rows.
pub const K_STEP_BYTES: u32 = 32;

/// Byte offset, within a stored operand tile, of 16-byte chunk `c` (0..8) of row `r`: the
/// 128-byte swizzle (CUTLASS's `Swizzle<3,4,3>`) puts it at chunk position `c ^ (r % 8)`,
/// so the eight rows of an 8x16-byte core matrix fall in distinct banks.
pub const fn swizzled(r: u32, c: u32) -> u32 {
    r * ROW_BYTES + ((c ^ (r % 8)) * 16)
}

/// The `wgmma` matrix descriptor of a k-major operand whose instruction tile starts at
/// shared address `addr` (PTX ISA, "Matrix Descriptor Format"): start address (bits
/// 0-13, in 16-byte units), leading-dimension byte offset (16-29; unused by swizzled
/// k-major layouts, set to 1 as CUTLASS does), stride byte offset 1024 between groups of
/// 8 rows (32-45), base offset 0 (atoms 1024-byte aligned) and the 128-byte swizzle mode
/// (bits 62-63 = 1).
pub const fn descriptor(addr: u32) -> u64 {
    (((addr & 0x3FFFF) >> 4) as u64) | (1 << 16) | ((1024u64 >> 4) << 32) | (1 << 62)
}

/// `(row, column)` within the warpgroup's `64 x N` tile of accumulator register `i` of
/// an `m64nN` instruction, held by `lane` of warp `w` (0..4) of the warpgroup: per 8
/// columns, the `m16n8` C fragment of the warp's 16 rows.
pub const fn acc_pos(w: u32, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    (16 * w + g + 8 * ((i / 2) % 2), 8 * (i / 4) + 2 * t + i % 2)
}

/// `(row, chunk)` of the `q`-th 16-byte chunk that thread `t` copies into one operand
/// tile: rows `t / 8 + 32q`, chunk `t % 8`, so eight consecutive threads read one row's
/// 128 contiguous bytes.
pub const fn copy_chunk(t: u32, q: u32) -> (u32, u32) {
    (t / 8 + q * (WG_THREADS / 8), t % 8)
}

/// Chunks a thread copies per stage into a tile of `rows` rows.
pub const fn copies(rows: u32) -> u32 {
    rows * (ROW_BYTES / 16) / WG_THREADS
}

/// Whether the product fits the kernel: the host's last check before a launch. Operands
/// must be k-major with rows on 16-byte boundaries (`k` a multiple of the 16-byte chunk),
/// and the grid's rows of blocks at most 65535.
pub const fn fits(m: u32, n: u32, k: u32, elem: u32) -> bool {
    m > 0 && n > 0 && k > 0 && k.is_multiple_of(16 / elem) && m.div_ceil(WG_BM) <= 65535
}

// One block fits an SM's shared memory (227 KiB on Hopper), and every stage and `B` tile
// starts on the 1024-byte swizzle atom.
const _: () = assert!(WG_SMEM_BYTES <= 227 * 1024);
const _: () = assert!(STAGE_BYTES.is_multiple_of(1024) && B_OFFSET.is_multiple_of(1024));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_permutes_each_row_and_spreads_core_matrices() {
        for r in 0..WG_BN {
            let mut seen = [false; 8];
            for c in 0..8 {
                let off = swizzled(r, c);
                assert_eq!(off / ROW_BYTES, r);
                seen[((off % ROW_BYTES) / 16) as usize] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
        // The 8 rows of a core matrix (one 16-byte chunk column) hit 8 distinct groups of
        // 4 banks.
        for c in 0..8 {
            let mut banks = [false; 8];
            for r in 0..8 {
                banks[((swizzled(r, c) % 128) / 16) as usize] = true;
            }
            assert!(banks.iter().all(|&b| b));
        }
    }

    /// The hardware applies the swizzle to address bits (bits 4-6 XOR bits 7-9); a k step
    /// moves the descriptor start by 32 bytes. Reading chunk `h` of row `r` at
    /// `start + r*128 + 16h` through that XOR must find what `swizzled` stored.
    #[test]
    fn k_steps_address_the_stored_chunks() {
        let hw = |addr: u32| addr ^ (((addr >> 7) & 7) << 4);
        let base = 7 * 1024;
        for j in 0..ROW_BYTES / K_STEP_BYTES {
            let start = base + j * K_STEP_BYTES;
            for r in 0..64 {
                for h in 0..K_STEP_BYTES / 16 {
                    let want = base + swizzled(r, (j * K_STEP_BYTES) / 16 + h);
                    assert_eq!(
                        hw(start + r * ROW_BYTES + 16 * h),
                        want,
                        "j {j} r {r} h {h}"
                    );
                }
            }
        }
    }

    #[test]
    fn descriptor_fields() {
        let d = descriptor(0x1_2340);
        assert_eq!(d & 0x3FFF, 0x1234);
        assert_eq!((d >> 16) & 0x3FFF, 1);
        assert_eq!((d >> 32) & 0x3FFF, 64);
        assert_eq!((d >> 49) & 7, 0);
        assert_eq!(d >> 62, 1);
    }

    #[test]
    fn accumulators_cover_the_warpgroup_tile_once() {
        let n = 128;
        let mut seen = vec![false; (64 * n) as usize];
        for w in 0..4 {
            for lane in 0..32 {
                for i in 0..n / 2 {
                    let (r, c) = acc_pos(w, lane, i);
                    assert!(r < 64 && c < n);
                    let at = (r * n + c) as usize;
                    assert!(!seen[at], "({r}, {c}) twice");
                    seen[at] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn copies_cover_both_tiles_once() {
        for rows in [WG_BM, WG_BN] {
            let mut seen = vec![false; (rows * 8) as usize];
            for t in 0..WG_THREADS {
                for q in 0..copies(rows) {
                    let (r, c) = copy_chunk(t, q);
                    assert!(r < rows && c < 8);
                    assert!(!std::mem::replace(&mut seen[(r * 8 + c) as usize], true));
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn fits_checks_rows_and_grid() {
        assert!(fits(4096, 4096, 4096, 2));
        assert!(!fits(4096, 4096, 4095, 2));
        assert!(fits(4096, 4096, 4092, 4));
        assert!(!fits(0, 1, 8, 2));
        assert!(!fits(128 * 65536, 1, 8, 2));
    }
}
