//! Tensor-core GEMM: tile shapes (shared with the host) and the index maps of the
//! `mma.sync` fragments and `ldmatrix` addresses that `gpu/mma.rs` uses, kept here, outside
//! the GPU-only module, so that `cargo test` checks them on the CPU against the PTX ISA's
//! fragment layouts (a simulated warp multiplies through them, below).
//!
//! Three instruction shapes (PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k8 /
//! m8n8k4"; `g = lane / 4` is the group, `t = lane % 4` the thread in the group):
//! - float16 `m16n8k16`: A (16x16) in 4 registers of two halves each: `a0a1` at row `g`,
//!   columns `2t, 2t+1`; `a2a3` row `g+8`; `a4a5` columns `+8`; `a6a7` both. B (16x8) in 2
//!   registers: `b0b1` at rows `2t, 2t+1`, column `g`; `b2b3` rows `+8`. C (16x8, f32):
//!   `c0c1` at row `g`, columns `2t, 2t+1`; `c2c3` row `g+8`.
//! - TF32 `m16n8k8`: A `a0 (g, t)`, `a1 (g+8, t)`, `a2 (g, t+4)`, `a3 (g+8, t+4)`; B
//!   `b0 (t, g)`, `b1 (t+4, g)`; C as float16's.
//! - float64 `m8n8k4`: A `a0 (g, t)`; B `b0 (t, g)`; C `c0c1` at row `g`, columns `2t, 2t+1`.
//! - float64 `m16n8k8` (sm_90): the fragments of TF32's `m16n8k8`, holding float64 values.
//!
//! Operands sit in shared memory in their global orientation, so that global rows copy as
//! whole 16-byte chunks (`cp.async`): "k-major" (`A` as `[m][k]`, `B` as `[n][k]`: `k`
//! contiguous, a row-major `A` or a transposed `B`) or "outer-major" (`[k][m]`, `[k][n]`).
//! Each stored row is padded ([`TcTile::pad`]) so that the eight 16-byte rows an
//! `ldmatrix` reads, or the 32 scalars of a fragment load, fall in distinct banks.

/// Which fragments a kernel multiplies: the instruction and its element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaKind {
    /// `m16n8k16` on float16 inputs, float32 accumulation, `ldmatrix` fragment loads.
    F16,
    /// `m16n8k8` on TF32 (float32 inputs read as TF32: 10 mantissa bits), float32
    /// accumulation.
    Tf32,
    /// `m8n8k4` on float64 (exact IEEE FMAs, sm_80+).
    F64,
    /// `m16n8k8` on float64 (sm_90 only). Hopper runs the Ampere shape `m8n8k4` at a
    /// fraction of its FP64 tensor-core rate; the sm_90 shapes reach the full rate.
    F64K8,
    /// `m16n8k16` on bfloat16 inputs, float32 accumulation: float16's tiles and
    /// fragments with another input type ([`MmaKind::family`]).
    Bf16,
}

impl MmaKind {
    /// The kind whose tiles and fragment layouts this one uses.
    pub const fn family(self) -> MmaKind {
        match self {
            MmaKind::Bf16 => MmaKind::F16,
            k => k,
        }
    }
    /// (m, n, k) of one instruction.
    pub const fn shape(self) -> (u32, u32, u32) {
        match self {
            MmaKind::F16 | MmaKind::Bf16 => (16, 8, 16),
            MmaKind::Tf32 | MmaKind::F64K8 => (16, 8, 8),
            MmaKind::F64 => (8, 8, 4),
        }
    }
    /// Bytes of an input element.
    pub const fn elem(self) -> u32 {
        match self {
            MmaKind::F16 | MmaKind::Bf16 => 2,
            MmaKind::Tf32 => 4,
            MmaKind::F64 | MmaKind::F64K8 => 8,
        }
    }
    /// The kernel-name word.
    pub const fn word(self) -> &'static str {
        match self {
            MmaKind::F16 => "f16",
            MmaKind::Bf16 => "bf16",
            MmaKind::Tf32 => "tf32",
            MmaKind::F64 | MmaKind::F64K8 => "f64",
        }
    }
    /// Entry-name prefix: `host/build.rs` cuts `gpupy_mma_*` into the sm_80 module and
    /// `gpupy_mma90_*` into the sm_90 one.
    pub const fn prefix(self) -> &'static str {
        match self {
            MmaKind::F64K8 => "gpupy_mma90",
            _ => "gpupy_mma",
        }
    }
}

/// One tensor-core tile configuration. A launch of
/// `gpupy_mma_<kind>_<name>_<a><b>` (`a`, `b`: `k` for k-major, `m` for outer-major) has
/// grid `(ceil(n/bn), ceil(m/bm), batch)`, `warps_m * warps_n * 32` threads, `smem_bytes`
/// of dynamic shared memory (above 48 KiB: the host raises the function's limit) and the
/// parameters of the SIMT kernels `(g: Gemm, a, b, c)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcTile {
    pub kind: MmaKind,
    pub name: &'static str,
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub warps_m: u32,
    pub warps_n: u32,
    /// `cp.async` pipeline depth: tiles in flight while one is multiplied.
    pub stages: u32,
    pub threads: u32,
    pub smem_bytes: u32,
    /// For [`tc_tile`]: the blocks an SM needs to reach the tile's speed, in tenths, and
    /// that speed in percent of the kind's largest tile (as `gemm::Tile`; estimated from
    /// occupancy, not yet measured).
    pub fill: u32,
    pub speed: u32,
}

impl TcTile {
    const fn new(
        kind: MmaKind,
        name: &'static str,
        [bm, bn, bk]: [u32; 3],
        [wm, wn]: [u32; 2],
        stages: u32,
    ) -> TcTile {
        let mut t = TcTile {
            kind,
            name,
            bm,
            bn,
            bk,
            warps_m: wm,
            warps_n: wn,
            stages,
            threads: wm * wn * 32,
            smem_bytes: 0,
            fill: 10,
            speed: 100,
        };
        t.smem_bytes = stages * (t.operand_bytes(bm) + t.operand_bytes(bn));
        t
    }

    /// Padding, in elements, of a stored row: 16 bytes for k-major rows and for every
    /// `ldmatrix` row (a row of 16-byte chunks shifted by one chunk per row), and for the
    /// scalar fragment loads of outer-major TF32/float64 tiles the shift that puts the
    /// four `k` rows a fragment reads in distinct bank groups (8 banks for TF32; for
    /// float64's 8-byte values, 8 banks within each half-warp, which the hardware serves
    /// in one pass). Checked by `fragment_loads_have_no_bank_conflicts`.
    pub const fn pad(&self, k_major: bool) -> u32 {
        match (self.kind, k_major) {
            (MmaKind::F16 | MmaKind::Bf16, _) | (MmaKind::Tf32, true) => 16 / self.kind.elem(),
            (MmaKind::Tf32, false) => 8,
            (MmaKind::F64 | MmaKind::F64K8, _) => 4,
        }
    }

    /// Row length in elements of a stored operand tile (`outer` = `bm` or `bn`).
    pub const fn ld(&self, outer: u32, k_major: bool) -> u32 {
        (if k_major { self.bk } else { outer }) + self.pad(k_major)
    }

    /// Bytes one stage gives an operand: the larger of its two orientations, so that
    /// offsets do not depend on the layout.
    pub const fn operand_bytes(&self, outer: u32) -> u32 {
        let k = outer * self.ld(outer, true);
        let o = self.bk * self.ld(outer, false);
        (if k > o { k } else { o }) * self.kind.elem()
    }

    /// Instruction tiles a warp holds along m and n.
    pub const fn frags(&self) -> (u32, u32) {
        let (mi, ni, _) = self.kind.shape();
        (self.bm / self.warps_m / mi, self.bn / self.warps_n / ni)
    }

    const fn with(self, fill: u32, speed: u32) -> TcTile {
        TcTile {
            fill,
            speed,
            ..self
        }
    }

    pub const fn blocks(&self, m: u32, n: u32, batch: u32) -> u128 {
        m.div_ceil(self.bm) as u128 * n.div_ceil(self.bn) as u128 * batch as u128
    }
}

/// The tensor-core tiles, per kind the largest first; [`tc_tile`] picks one.
pub const TC_TILES: &[TcTile] = &[
    // float16, large products: 8 warps of 64x64 (4x8 instructions, 128 f32 accumulators
    // a thread), 64-deep k steps in 3 stages (162 KiB of shared memory). Per k16 step a
    // warp loads 4 A and 8 B fragments for 32 mma: the tile reads 96 bytes of L2 per 1024
    // FLOP. 64-deep steps (four k16 steps a barrier) ran 8% faster than 32-deep ones in 4
    // stages on an H200: 3.58 against 3.89 ms at 8192.
    TcTile::new(MmaKind::F16, "128x256", [128, 256, 64], [2, 4], 3).with(10, 100),
    // float16: 8 warps of 64x32 (4x4 instructions, 64 f32 accumulators a thread).
    TcTile::new(MmaKind::F16, "128x128", [128, 128, 32], [2, 4], 3).with(15, 85),
    // TF32: the 128x128 warp grid, 16-deep k steps (two instructions).
    TcTile::new(MmaKind::Tf32, "128x128", [128, 128, 16], [2, 4], 3).with(10, 100),
    // float64, large products: 8 warps of 64x32 (8x4 instructions, 64 f64 accumulators
    // a thread); half the L2 traffic per FLOP of 64x64, which would need about 8 TB/s of
    // L2 to keep the FP64 tensor cores busy.
    TcTile::new(MmaKind::F64, "128x128", [128, 128, 16], [2, 4], 3).with(10, 100),
    // float64: 4 warps of 32x32 (4x4 instructions, 32 f64 accumulators a thread).
    TcTile::new(MmaKind::F64, "64x64", [64, 64, 16], [2, 2], 3).with(20, 85),
    // float64 on sm_90 (m16n8k8): the same two warp grids; 8 warps of 64x32 (4x4
    // instructions, 64 f64 accumulators a thread, 232-254 registers), and 4 warps of
    // 32x32. The large tile reads 16 FLOP per byte of L2, so at 60 TFLOP/s it streams
    // nearly 4 TB/s from L2. 4 stages, or 32-deep k steps, spill a few registers.
    TcTile::new(MmaKind::F64K8, "128x128", [128, 128, 16], [2, 4], 3).with(10, 100),
    TcTile::new(MmaKind::F64K8, "64x64", [64, 64, 16], [2, 2], 3).with(20, 85),
    // float64 on sm_90 with 4 stages (160 KiB): 4% faster than 3 stages. Its k-major x
    // k-major variant spills, so only the other three layouts exist: `tc_tile` never
    // picks it (speed 1); the host swaps it in for those layouts (`deeper_pipeline`).
    TcTile::new(MmaKind::F64K8, "128x128s4", [128, 128, 16], [2, 4], 4).with(10, 1),
];

/// The tile of `kind` for `batch` products `m x n` on `sms` multiprocessors: the one
/// whose busiest SM finishes first, by `gemm::choose_tile`'s model
/// `max(ceil(blocks / sms), fill) * bm * bn / speed`, which weighs a large tile's speed
/// against the idle SMs and wasted edges of a small or batched product (512 products of
/// 64x64 take the smaller tile; ties go to the larger).
pub fn tc_tile(kind: MmaKind, m: u32, n: u32, batch: u32, sms: u32) -> &'static TcTile {
    let cost = |t: &TcTile| {
        let per_sm = t.blocks(m, n, batch).div_ceil(sms.max(1) as u128);
        (per_sm * 10).max(t.fill as u128) * (t.bm * t.bn) as u128 * 1000 / t.speed as u128
    };
    let mut best: Option<&TcTile> = None;
    for t in TC_TILES.iter().filter(|t| t.kind == kind.family()) {
        if best.is_none_or(|b| cost(t) < cost(b)) {
            best = Some(t);
        }
    }
    best.expect("every kind has a tile")
}

/// Element offset, from the origin of a stored operand tile, of `(outer, k)`.
pub const fn stored(outer: u32, k: u32, ld: u32, k_major: bool) -> u32 {
    if k_major {
        outer * ld + k
    } else {
        k * ld + outer
    }
}

/// float16 A fragment, `ldmatrix.x4` (`.trans` when outer-major): the element
/// `(row, k)` of the 16x16 instruction tile whose 8-element row lane `lane` points at.
/// Matrix `j = lane / 8` is (rows `8*(j%2)..`, k `8*(j/2)..`), delivered as registers
/// `a0a1, a2a3, a4a5, a6a7`.
pub const fn ldmatrix_a(lane: u32, k_major: bool) -> (u32, u32) {
    let (j, r) = (lane / 8, lane % 8);
    let (mb, kb) = (j % 2, j / 2);
    if k_major {
        // A row of 8 k values: row mb*8 + r, starting at k kb*8.
        (mb * 8 + r, kb * 8)
    } else {
        // A row of 8 m values at k = kb*8 + r, starting at m mb*8 (`(m, k)` returned).
        (mb * 8, kb * 8 + r)
    }
}

/// float16 B fragment for one n8 tile, `ldmatrix.x2` (`.trans` when outer-major): the
/// `(n, k)` the lane points at (lanes 16..31 repeat 0..15; only 0..15 are read). Matrix
/// `j` holds k `8*j..`, delivered as `b0b1, b2b3`.
pub const fn ldmatrix_b(lane: u32, k_major: bool) -> (u32, u32) {
    let l = lane % 16;
    let (j, r) = (l / 8, l % 8);
    if k_major { (r, j * 8) } else { (0, j * 8 + r) }
}

/// The `(row, k)` of A element `e` of a lane's fragment (float16: `e` = half index 0..8;
/// TF32: register 0..4; float64: 0).
pub const fn frag_a(kind: MmaKind, lane: u32, e: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    match kind {
        MmaKind::F16 | MmaKind::Bf16 => (g + 8 * ((e / 2) % 2), 2 * t + e % 2 + 8 * (e / 4)),
        MmaKind::Tf32 | MmaKind::F64K8 => (g + 8 * (e % 2), t + 4 * (e / 2)),
        MmaKind::F64 => (g, t),
    }
}

/// The `(k, col)` of B element `e` of a lane's fragment (float16: 0..4; TF32: 0..2;
/// float64: 0).
pub const fn frag_b(kind: MmaKind, lane: u32, e: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    match kind {
        MmaKind::F16 | MmaKind::Bf16 => (2 * t + e % 2 + 8 * (e / 2), g),
        MmaKind::Tf32 | MmaKind::F64K8 => (t + 4 * e, g),
        MmaKind::F64 => (t, g),
    }
}

/// The `(row, col)` of accumulator `e` of a lane (float16/TF32: 0..4; float64: 0..2).
pub const fn frag_c(kind: MmaKind, lane: u32, e: u32) -> (u32, u32) {
    let (g, t) = (lane / 4, lane % 4);
    match kind {
        MmaKind::F16 | MmaKind::Bf16 | MmaKind::Tf32 | MmaKind::F64K8 => {
            (g + 8 * (e / 2), 2 * t + e % 2)
        }
        MmaKind::F64 => (g, 2 * t + e),
    }
}

/// The global-to-shared copy of one operand tile in 16-byte chunks: chunk `c` of a
/// stored tile with `rows` rows of `row_elems` elements (`vec` a chunk) is row
/// `c / (row_elems / vec)`, first element `(c % (row_elems / vec)) * vec`.
pub const fn chunk(c: u32, row_elems: u32, vec: u32) -> (u32, u32) {
    let per_row = row_elems / vec;
    (c / per_row, (c % per_row) * vec)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `ldmatrix` does (PTX ISA): for each 8x8 matrix `j`, lane `8j + r` gives the
    /// address of its row `r` (8 consecutive 16-bit elements); lane `l` receives elements
    /// `(l/4, 2(l%4))` and `(l/4, 2(l%4)+1)` of matrix `j` in register `j`, or of its
    /// transpose with `.trans`. Returns `[lane][reg][half]` as stored-tile offsets.
    fn ldmatrix(addrs: &[u32; 32], count: u32, trans: bool) -> Vec<Vec<[u32; 2]>> {
        let mut out = vec![vec![[0; 2]; count as usize]; 32];
        for (l, regs) in out.iter_mut().enumerate() {
            let (row, col) = ((l / 4) as u32, 2 * (l % 4) as u32);
            for (j, reg) in regs.iter_mut().enumerate() {
                for (h, v) in reg.iter_mut().enumerate() {
                    let (r, c) = if trans {
                        (col + h as u32, row)
                    } else {
                        (row, col + h as u32)
                    };
                    *v = addrs[j * 8 + r as usize] + c;
                }
            }
        }
        out
    }

    fn lcg(seed: &mut u64) -> i64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) % 7) as i64 - 3
    }

    /// A warp multiplies one instruction tile through the fragment maps, with A and B
    /// read from stored tiles in both orientations (float16 through the `ldmatrix`
    /// model): the result must be the matrix product.
    #[test]
    fn simulated_warp_multiplies() {
        for t in TC_TILES {
            let kind = t.kind;
            let (mi, ni, ki) = kind.shape();
            let mut seed = 7;
            let a: Vec<Vec<i64>> = (0..mi)
                .map(|_| (0..ki).map(|_| lcg(&mut seed)).collect())
                .collect();
            let b: Vec<Vec<i64>> = (0..ki)
                .map(|_| (0..ni).map(|_| lcg(&mut seed)).collect())
                .collect();
            for a_km in [true, false] {
                for b_km in [true, false] {
                    let (lda, ldb) = (t.ld(t.bm, a_km), t.ld(t.bn, b_km));
                    // Stored tiles as maps from offset to value.
                    let mut sa = std::collections::HashMap::new();
                    for (r, row) in a.iter().enumerate() {
                        for (k, &v) in row.iter().enumerate() {
                            sa.insert(stored(r as u32, k as u32, lda, a_km), v);
                        }
                    }
                    let mut sb = std::collections::HashMap::new();
                    for (k, row) in b.iter().enumerate() {
                        for (n, &v) in row.iter().enumerate() {
                            sb.insert(stored(n as u32, k as u32, ldb, b_km), v);
                        }
                    }
                    // Each lane's A and B fragments, as values.
                    let mut fa = vec![vec![]; 32];
                    let mut fb = vec![vec![]; 32];
                    if kind == MmaKind::F16 {
                        let addr_a: [u32; 32] = core::array::from_fn(|l| {
                            let (r, k) = ldmatrix_a(l as u32, a_km);
                            stored(r, k, lda, a_km)
                        });
                        let addr_b: [u32; 32] = core::array::from_fn(|l| {
                            let (n, k) = ldmatrix_b(l as u32, b_km);
                            stored(n, k, ldb, b_km)
                        });
                        let ra = ldmatrix(&addr_a, 4, !a_km);
                        let rb = ldmatrix(&addr_b, 2, !b_km);
                        for l in 0..32 {
                            fa[l] = ra[l].iter().flatten().map(|o| sa[o]).collect();
                            fb[l] = rb[l].iter().flatten().map(|o| sb[o]).collect();
                        }
                    } else {
                        let (na, nb) = if matches!(kind, MmaKind::Tf32 | MmaKind::F64K8) {
                            (4, 2)
                        } else {
                            (1, 1)
                        };
                        for l in 0..32u32 {
                            fa[l as usize] = (0..na)
                                .map(|e| {
                                    let (r, k) = frag_a(kind, l, e);
                                    sa[&stored(r, k, lda, a_km)]
                                })
                                .collect();
                            fb[l as usize] = (0..nb)
                                .map(|e| {
                                    let (k, n) = frag_b(kind, l, e);
                                    sb[&stored(n, k, ldb, b_km)]
                                })
                                .collect();
                        }
                    }
                    // The fragments hold what the ISA says they hold.
                    for l in 0..32u32 {
                        for (e, &v) in fa[l as usize].iter().enumerate() {
                            let (r, k) = frag_a(kind, l, e as u32);
                            assert_eq!(
                                v, a[r as usize][k as usize],
                                "{kind:?} A lane {l} e {e} km {a_km}"
                            );
                        }
                        for (e, &v) in fb[l as usize].iter().enumerate() {
                            let (k, n) = frag_b(kind, l, e as u32);
                            assert_eq!(
                                v, b[k as usize][n as usize],
                                "{kind:?} B lane {l} e {e} km {b_km}"
                            );
                        }
                    }
                    // The mma: C[r][c] = sum_k A[r][k] B[k][c], gathered from the lanes'
                    // fragments by coordinates, and written back per frag_c.
                    let mut av = std::collections::HashMap::new();
                    let mut bv = std::collections::HashMap::new();
                    for l in 0..32u32 {
                        for (e, &v) in fa[l as usize].iter().enumerate() {
                            av.insert(frag_a(kind, l, e as u32), v);
                        }
                        for (e, &v) in fb[l as usize].iter().enumerate() {
                            bv.insert(frag_b(kind, l, e as u32), v);
                        }
                    }
                    assert_eq!(
                        av.len() as u32,
                        mi * ki,
                        "{kind:?}: A fragments cover the tile"
                    );
                    assert_eq!(
                        bv.len() as u32,
                        ki * ni,
                        "{kind:?}: B fragments cover the tile"
                    );
                    let nc = if kind == MmaKind::F64 { 2 } else { 4 };
                    let mut seen = std::collections::HashSet::new();
                    for l in 0..32u32 {
                        for e in 0..nc {
                            let (r, c) = frag_c(kind, l, e);
                            assert!(seen.insert((r, c)));
                            let got: i64 = (0..ki).map(|k| av[&(r, k)] * bv[&(k, c)]).sum();
                            let want: i64 = (0..ki as usize)
                                .map(|k| a[r as usize][k] * b[k][c as usize])
                                .sum();
                            assert_eq!(got, want);
                        }
                    }
                    assert_eq!(seen.len() as u32, mi * ni);
                }
            }
        }
    }

    /// Shared-memory wavefronts of one warp-wide access: each distinct 128-byte-aligned
    /// bank row a bank is asked for costs one pass over that bank.
    fn wavefronts(byte_addrs: &[(u32, u32)]) -> u32 {
        // (address, bytes) per access; count, per bank, the distinct 4-byte words.
        let mut per_bank = vec![std::collections::HashSet::new(); 32];
        for &(a, bytes) in byte_addrs {
            for w in (a..a + bytes).step_by(4) {
                per_bank[((w / 4) % 32) as usize].insert(w / 4);
            }
        }
        per_bank.iter().map(|s| s.len() as u32).max().unwrap_or(0)
    }

    #[test]
    fn fragment_loads_have_no_bank_conflicts() {
        for t in TC_TILES {
            let e = t.kind.elem();
            for (km, outer) in [(true, t.bm), (false, t.bm), (true, t.bn), (false, t.bn)] {
                let ld = t.ld(outer, km);
                if t.kind == MmaKind::F16 {
                    // Each 8x8 matrix of an ldmatrix: 8 rows of 16 bytes, one wavefront.
                    for j in 0..4 {
                        let rows: Vec<(u32, u32)> = (0..8)
                            .map(|r| {
                                let (m, k) = ldmatrix_a(j * 8 + r, km);
                                (stored(m, k, ld, km) * e, 16)
                            })
                            .collect();
                        assert_eq!(wavefronts(&rows), 1, "{t:?} km {km} matrix {j}");
                    }
                } else {
                    // Scalar loads of one A or B register: one pass per 128 bytes, per
                    // half-warp for 8-byte values (which that model also checks whole).
                    let regs = if t.kind == MmaKind::F64 { 1 } else { 4 };
                    for reg in 0..regs {
                        for lanes in [0..32, 0..16, 16..32] {
                            let n = lanes.len() as u32;
                            let a: Vec<(u32, u32)> = lanes
                                .clone()
                                .map(|l| {
                                    let (m, k) = frag_a(t.kind, l, reg);
                                    (stored(m, k, ld, km) * e, e)
                                })
                                .collect();
                            assert_eq!(
                                wavefronts(&a),
                                (n * e).div_ceil(128),
                                "{t:?} km {km} A {reg}"
                            );
                            if reg < regs / 2 || t.kind == MmaKind::F64 {
                                let b: Vec<(u32, u32)> = lanes
                                    .map(|l| {
                                        let (k, o) = frag_b(t.kind, l, reg);
                                        (stored(o, k, ld, km) * e, e)
                                    })
                                    .collect();
                                assert_eq!(
                                    wavefronts(&b),
                                    (n * e).div_ceil(128),
                                    "{t:?} km {km} B {reg}"
                                );
                            }
                        }
                    }
                }
                // Rows stay 16-byte aligned for cp.async and ldmatrix.
                assert_eq!(ld * e % 16, 0, "{t:?}");
            }
        }
    }

    #[test]
    fn tiles_are_consistent() {
        for t in TC_TILES {
            let (mi, ni, ki) = t.kind.shape();
            let (fm, fn_) = t.frags();
            assert_eq!(fm * mi * t.warps_m, t.bm, "{t:?}");
            assert_eq!(fn_ * ni * t.warps_n, t.bn, "{t:?}");
            assert_eq!(t.bk % ki, 0);
            // Both operands copy in whole chunks, evenly over the threads.
            let vec = 16 / t.kind.elem();
            for outer in [t.bm, t.bn] {
                let chunks = outer * t.bk / vec;
                assert_eq!(chunks % t.threads, 0, "{t:?}");
                assert_eq!(t.bk % vec, 0);
                assert_eq!(outer % vec, 0);
            }
            assert!(t.smem_bytes <= 227 * 1024, "{t:?}");
            assert!(t.stages >= 2);
        }
    }

    #[test]
    fn tile_choice_fills_the_gpu() {
        assert_eq!(tc_tile(MmaKind::F16, 8192, 8192, 1, 132).name, "128x256");
        assert_eq!(tc_tile(MmaKind::F16, 4096, 4096, 1, 132).name, "128x256");
        assert_eq!(tc_tile(MmaKind::F16, 1024, 1024, 1, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F16, 8, 8, 1, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F16, 64, 64, 512, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F16, 2056, 8200, 1, 132).name, "128x256");
        assert_eq!(tc_tile(MmaKind::F64, 2056, 8200, 1, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F64, 4096, 4096, 1, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F64, 1024, 1024, 1, 132).name, "64x64");
        assert_eq!(tc_tile(MmaKind::Tf32, 1, 1, 1, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F64K8, 4096, 4096, 1, 132).name, "128x128");
        assert_eq!(tc_tile(MmaKind::F64K8, 1024, 1024, 1, 132).name, "64x64");
    }

    #[test]
    fn chunks_cover_rows() {
        let mut seen = std::collections::HashSet::new();
        for c in 0..64 {
            let (r, e) = chunk(c, 32, 8);
            assert!(r < 16 && e < 32 && e % 8 == 0);
            assert!(seen.insert((r, e)));
        }
    }
}
