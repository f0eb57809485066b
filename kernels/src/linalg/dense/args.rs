//! The launch parameters of the dense kernels (one struct for all of them, read by the
//! host as it is written here).

/// One launch of a dense kernel on `count` matrices: matrix `first + blockIdx.y`. All
/// strides are in elements. Which fields a kernel reads is listed with [`Op`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct DenseArgs {
    /// The matrix factored or read (`T` of a solve, `h` of `orgqr`).
    pub a: u64,
    pub lda: u64,
    pub a_batch: u64,
    /// The right-hand sides (`getrf` with a solve, `trsm`), `Q` (`orgqr`), the
    /// explicit `V` (`geqrf`); 0 when absent.
    pub b: u64,
    pub ldb: u64,
    pub b_batch: u64,
    /// Pivots (int32, `getrf`, `trsm` with `PIV_*`).
    pub piv: u64,
    pub piv_batch: u64,
    /// `tau` (`geqrf`, `orgqr`), in the matrix's type.
    pub tau: u64,
    pub tau_batch: u64,
    /// LAPACK's `info` per matrix (uint32), indexed by matrix (`getrf`, `potrf`).
    pub info: u64,
    /// Rows and columns of `a`; `k`: right-hand sides (`getrf`, `trsm`), reflectors
    /// (`orgqr`).
    pub m: u32,
    pub n: u32,
    pub k: u32,
    /// Columns of `b` per block (`trsm`: `gridDim.x` blocks share the right-hand sides;
    /// `orgqr`: the columns of `Q`).
    pub kc: u32,
    /// `Op` flags.
    pub flags: u32,
    pub first: u32,
    /// `getrf`: elements left and right of each row of `a` that row interchanges move
    /// too (a panel of a larger matrix), and the offset added to the pivots written.
    pub swap_left: u32,
    pub swap_right: u32,
    pub piv_base: u32,
    /// Matrices in the launch (segment launches, whose last block may be partly idle)
    /// and the shared bytes each matrix's staged operands take there.
    pub count: u32,
    pub seg_bytes: u32,
    pub _pad: u32,
}

/// Flag bits of [`DenseArgs::flags`].
pub mod flag {
    /// Copy `a` (and `b`) into shared memory for the kernel's work.
    pub const STAGE_A: u32 = 1;
    pub const STAGE_B: u32 = 2;
    /// `getrf`: solve with `b`, set to the identity first (an inverse).
    pub const SOLVE: u32 = 4;
    /// `geev`: the eigenvectors too (same bit as `SOLVE`, another kernel).
    pub const VECTORS: u32 = 4;
    pub const IDENTITY: u32 = 8;
    /// `trsm`: the triangle, the transpose (two bits: 0, 1 `T^T`, 2 `T^H`), the unit
    /// diagonal, and pivots applied to `b` before (in order) or after (reversed).
    pub const LOWER: u32 = 16;
    pub const TRANS_SHIFT: u32 = 5;
    pub const UNIT: u32 = 128;
    pub const PIV_BEFORE: u32 = 256;
    pub const PIV_AFTER: u32 = 512;
    /// `trsm`: only the row interchanges of `piv` (`n` of them) on `b`'s `m` rows.
    pub const SWAP_ONLY: u32 = 1024;
    /// Segment mode: `1 + log2(lanes)` in these bits (0: a block per matrix). A team
    /// is a segment of `lanes` (1 to 32) lanes of a warp, one matrix per segment, its
    /// barriers `bar.warp.sync` and its reductions shuffles: for batches of small
    /// matrices, where a whole block's barriers would cost more than the work.
    pub const SEGMENT_SHIFT: u32 = 11;
    pub const SEGMENT_MASK: u32 = 7 << SEGMENT_SHIFT;
}

/// Bytes of shared memory the block team's reductions use, before any staged matrix.
pub const SCRATCH_BYTES: u32 = 32 * 16;

/// The warp-per-columns triangular solve (`gpu_trsm`): triangles of order up to
/// `32 * TRSM_WARP_SLOTS`, `TRSM_WARP_COLS` columns of `b` per warp.
pub const TRSM_WARP_SLOTS: usize = 4;
pub const TRSM_WARP_COLS: usize = 4;

/// The LU panel spread over the GPU (`gpu_lu_panel`): at most this many columns, one row
/// of them in each thread's registers.
pub const LU_PANEL_COLS: usize = 16;

/// Bytes of one record of the panel kernels spread over the GPU (`gpu_lu_panel`,
/// `gpu_qr_panel`): a 16-byte head (a key or sum, an index) and a row of
/// `LU_PANEL_COLS` elements of `item` bytes.
pub const fn panel_record_bytes(item: usize) -> usize {
    16 + LU_PANEL_COLS * item
}

/// Shared bytes of the LU panel kernel with `blocks` blocks and elements of `item`
/// bytes: the block reduction's slots, a copy of a step's `blocks + 1` records
/// (a 16-byte key slot and a row of `LU_PANEL_COLS` elements each), the pivots, and the
/// interchanges' plan (two words for each of `2 LU_PANEL_COLS` slots).
pub const fn lu_panel_shared(blocks: usize, item: usize) -> usize {
    SCRATCH_BYTES as usize
        + (blocks + 1) * panel_record_bytes(item)
        + 4 * LU_PANEL_COLS
        + 2 * 2 * LU_PANEL_COLS * 4
}

/// One cooperative launch of the LU panel kernel on `gridDim.y` matrices (`dense::getrf`
/// with whole rows swapped; strides in elements).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PanelArgs {
    /// The `m x n` panels: first element, row stride, stride between matrices.
    pub a: u64,
    pub lda: u64,
    pub a_batch: u64,
    /// Pivots (int32, `min(m, n)` per matrix, plus `piv_base`) and `info` (uint32).
    pub piv: u64,
    pub piv_batch: u64,
    pub info: u64,
    /// Zeroed scratch: a u32 barrier counter per matrix at its start, the blocks'
    /// records from byte `records` on.
    pub scratch: u64,
    pub records: u64,
    pub m: u32,
    pub n: u32,
    /// Elements left and right of each panel row that interchanges move too.
    pub left: u32,
    pub right: u32,
    pub piv_base: u32,
    pub _pad: u32,
}

/// One cooperative launch of the QR panel kernel on `gridDim.y` matrices
/// (`gpu_qr_panel`: `dense::geqrf` of an `m x n` panel, `n <= LU_PANEL_COLS`, a row per
/// thread; strides in elements).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct QrPanelArgs {
    pub a: u64,
    pub lda: u64,
    pub a_batch: u64,
    /// `tau` (`min(m, n)` per matrix, in the matrix's type).
    pub tau: u64,
    pub tau_batch: u64,
    /// The reflectors as an explicit unit lower trapezoid (`m x min(m, n)`), or 0.
    pub v: u64,
    pub ldv: u64,
    pub v_batch: u64,
    /// Zeroed scratch: a u32 barrier counter per matrix, records from byte `records`.
    pub scratch: u64,
    pub records: u64,
    pub m: u32,
    pub n: u32,
}

/// Shared bytes of the QR panel kernel with `blocks` blocks of `threads` threads and
/// elements of `item` bytes: the block reduction's slots, a copy of a step's
/// `blocks + 1` records (16 bytes and a row of `LU_PANEL_COLS` elements each), the
/// threads' products for a column sum (`LU_PANEL_COLS` per thread), and the scaled
/// sums.
pub const fn qr_panel_shared(blocks: usize, threads: usize, item: usize) -> usize {
    SCRATCH_BYTES as usize
        + (blocks + 1) * panel_record_bytes(item)
        + (threads + 1) * LU_PANEL_COLS * item
}

/// Threads per block of the UT-factor kernel (`gpu_qr_ut`), one row of a chunk each.
pub const UT_THREADS: u32 = 128;

/// Shared bytes of the UT-factor kernel for elements of `item` bytes: a chunk's rows of
/// `V` (`UT_THREADS x LU_PANEL_COLS`), reused for the threads' partial Gram tiles
/// (8 groups of 16 tiles of 4 x 4), and a flag word.
pub const fn qr_ut_shared(item: usize) -> usize {
    UT_THREADS as usize * LU_PANEL_COLS * item + 16
}

/// One launch of the UT-factor kernel (`gpu_qr_ut`) on `gridDim.y` matrices: from the
/// `m x k` reflectors `h` of a QR panel (`k <= LU_PANEL_COLS`) and `tau`, the explicit
/// `V` (`dense::ut_v`) and `M = striu(V^H V) + diag(1 / tau)` (`dense::ut_m`, `k x k`).
/// Strides in elements.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct UtArgs {
    /// The reflectors (below the diagonal of an `m x k` panel); may be `v` itself.
    pub h: u64,
    pub ldh: u64,
    pub h_batch: u64,
    pub tau: u64,
    pub tau_batch: u64,
    /// The explicit `V` (`m x k`), written.
    pub v: u64,
    pub ldv: u64,
    pub v_batch: u64,
    /// `M` (`k x k`), written.
    pub mt: u64,
    pub ldm: u64,
    pub m_batch: u64,
    /// Zeroed scratch: a u32 counter per matrix, then from byte `partials` on,
    /// `gridDim.x` partial Gram matrices (`LU_PANEL_COLS^2` elements) per matrix.
    pub scratch: u64,
    pub partials: u64,
    pub m: u32,
    pub k: u32,
}
