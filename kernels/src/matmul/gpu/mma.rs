//! Tensor-core matrix products (`mma.sync`, sm_80+): float16 (`m16n8k16`, `ldmatrix`
//! fragment loads), TF32 (`m16n8k8`, opt-in for float32) and float64 (`m8n8k4`, the FP64
//! tensor cores), all accumulating in registers in float32 (float64 for float64).
//!
//! A block computes a `bm x bn` tile of `C` with `warps_m x warps_n` warps, each holding
//! `frags()` instruction tiles of accumulators. Operand tiles stream from global memory
//! with `cp.async` (16-byte chunks, zero-filled past the matrix edges) through a ring of
//! `stages` shared-memory buffers, so the copies of the next tiles overlap the
//! multiplications of the current one. Each operand keeps its global orientation in
//! shared memory (k-major or outer-major, a const parameter of the entry point), which
//! is what lets a transposed operand be read without a copy; the fragment loads choose
//! `ldmatrix` or `ldmatrix.trans` (float16) or the scalar addresses (TF32, float64)
//! accordingly. The index maps are in `mma_layout.rs`, tested on the CPU.
//!
//! These entry points are named `gpupy_mma_*`: `host/build.rs` moves them out of the
//! sm_70 PTX into a module of their own (PTX for sm_80, a cubin for sm_90), which the
//! host loads only on GPUs of compute capability 8.0 and up. The float64 `m16n8k8`
//! entries (`gpupy_mma90_*`) use an sm_90 instruction and go to a third module, loaded
//! on compute capability 9.0 and up.

use core::arch::asm;

use crate::gpu::{
    block_idx, block_idx_y, block_idx_z, smem_addr, sync_threads, thread_idx, unroll,
};
use crate::matmul::mma_layout::{self as ml, MmaKind, TC_TILES, TcTile};
use crate::matmul::tiles::{self, Gemm};

/// One instruction family: fragment types, their shared-memory loads and the `mma`.
trait Mma {
    const KIND: MmaKind;
    /// C's element type as stored (float16 as its bits).
    type Out: Copy;
    type A: Copy;
    type B: Copy;
    type C: Copy;
    const A0: Self::A;
    const B0: Self::B;
    const C0: Self::C;
    /// Accumulators a lane holds per instruction tile.
    const CN: usize;
    /// The lane's A fragment of the instruction tile whose `(row 0, k 0)` element is at
    /// shared byte address `tile`; `ld` is the stored row length in elements.
    ///
    /// # Safety
    /// The whole instruction tile lies inside the launch's shared memory.
    unsafe fn load_a<const KM: bool>(tile: u32, ld: u32, lane: u32) -> Self::A;
    /// # Safety
    /// As for `load_a`.
    unsafe fn load_b<const KM: bool>(tile: u32, ld: u32, lane: u32) -> Self::B;
    fn mma(a: Self::A, b: Self::B, c: Self::C) -> Self::C;
    /// Accumulator `e` (`< CN`), converted to the output type.
    fn out(c: &Self::C, e: usize) -> Self::Out;
    /// Whether the kernels read `Gemm::sub`: not the 16-bit ones (the host never sends
    /// them a subtraction, and the 128x256 tiles have no registers to spare for it).
    const SUB: bool;
    /// `c - p` in the output type (`Gemm::sub`: the product `p`, already converted,
    /// subtracted from C's element `c`, rounded as one NumPy subtraction).
    fn sub_out(c: Self::Out, p: Self::Out) -> Self::Out;
}

#[inline(always)]
fn offset(r: u32, k: u32, ld: u32, km: bool, elem: u32) -> u32 {
    ml::stored(r, k, ld, km) * elem
}

#[inline(always)]
unsafe fn ld_b32(addr: u32) -> u32 {
    let v: u32;
    // SAFETY: the caller's address is inside shared memory and 4-byte aligned.
    unsafe {
        asm!("ld.shared.b32 {v}, [{a}];", a = in(reg32) addr, v = out(reg32) v, options(nostack, readonly, pure))
    };
    v
}

#[inline(always)]
unsafe fn ld_f64(addr: u32) -> f64 {
    let v: f64;
    // SAFETY: the caller's address is inside shared memory and 8-byte aligned.
    unsafe {
        asm!("ld.shared.f64 {v}, [{a}];", a = in(reg32) addr, v = out(reg64) v, options(nostack, readonly, pure))
    };
    v
}

/// The `N` scalars of a lane's A (`is_a`) or B fragment of `kind`, read one by one with
/// `load` from the instruction tile at shared address `tile` (TF32, float64 `m16n8k8`).
///
/// # Safety
/// The instruction tile lies inside the launch's shared memory, aligned for `load`.
#[inline(always)]
unsafe fn scalar_fragment<E: Copy, const N: usize, const KM: bool>(
    kind: MmaKind,
    is_a: bool,
    tile: u32,
    ld: u32,
    lane: u32,
    load: impl Fn(u32) -> E,
) -> [E; N] {
    let elem = kind.elem();
    let at = |e: u32| {
        let (outer, k) = if is_a {
            ml::frag_a(kind, lane, e)
        } else {
            let (k, n) = ml::frag_b(kind, lane, e);
            (n, k)
        };
        tile + offset(outer, k, ld, KM, elem)
    };
    let first = load(at(0));
    let mut f = [first; N];
    unroll!(e in 0..N => {
        if e > 0 {
            f[e.min(N - 1)] = load(at(e as u32));
        }
    });
    f
}

/// The `m16n8k16` families, whose fragments `ldmatrix` loads: float16 (rounded back to
/// float16 on the way out, NumPy's result type) and bfloat16 (a float32 result: NumPy
/// with ml_dtypes multiplies bfloat16 in float32). `$out` turns accumulator `$v` into
/// the stored output.
macro_rules! m16n8k16 {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $out_ty:ty, $instr:literal, |$v:ident| $out:expr,
     |$c:ident, $p:ident| $sub:expr) => {
        $(#[$doc])*
        struct $name;
        impl Mma for $name {
            const KIND: MmaKind = MmaKind::$kind;
            const SUB: bool = false;
            type Out = $out_ty;
            type A = [u32; 4];
            type B = [u32; 2];
            type C = [f32; 4];
            const A0: [u32; 4] = [0; 4];
            const B0: [u32; 2] = [0; 2];
            const C0: [f32; 4] = [0.0; 4];
            const CN: usize = 4;
            #[inline(always)]
            unsafe fn load_a<const KM: bool>(tile: u32, ld: u32, lane: u32) -> [u32; 4] {
                // SAFETY: the caller's contract.
                unsafe { ldmatrix_a::<KM>(tile, ld, lane) }
            }
            #[inline(always)]
            unsafe fn load_b<const KM: bool>(tile: u32, ld: u32, lane: u32) -> [u32; 2] {
                // SAFETY: the caller's contract.
                unsafe { ldmatrix_b::<KM>(tile, ld, lane) }
            }
            #[inline(always)]
            fn mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
                let (d0, d1, d2, d3): (f32, f32, f32, f32);
                // SAFETY: register-only; every lane of the warp executes it (uniform
                // control flow).
                unsafe {
                    asm!(concat!($instr, " {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"),
                         d0 = out(reg32) d0, d1 = out(reg32) d1, d2 = out(reg32) d2, d3 = out(reg32) d3,
                         a0 = in(reg32) a[0], a1 = in(reg32) a[1], a2 = in(reg32) a[2], a3 = in(reg32) a[3],
                         b0 = in(reg32) b[0], b1 = in(reg32) b[1],
                         c0 = in(reg32) c[0], c1 = in(reg32) c[1], c2 = in(reg32) c[2], c3 = in(reg32) c[3],
                         options(pure, nomem, nostack))
                };
                [d0, d1, d2, d3]
            }
            #[inline(always)]
            fn out(c: &[f32; 4], e: usize) -> $out_ty {
                let $v = c[e.min(3)];
                $out
            }
            #[inline(always)]
            fn sub_out($c: $out_ty, $p: $out_ty) -> $out_ty {
                $sub
            }
        }
    };
}

/// The lane's `ldmatrix` A fragment (four 8x8 matrices of 16-bit elements) of the
/// instruction tile at shared byte address `tile`.
///
/// # Safety
/// The whole instruction tile lies inside the launch's shared memory, rows 16-byte
/// aligned.
#[inline(always)]
unsafe fn ldmatrix_a<const KM: bool>(tile: u32, ld: u32, lane: u32) -> [u32; 4] {
    let (r, k) = ml::ldmatrix_a(lane, KM);
    let addr = tile + offset(r, k, ld, KM, 2);
    let (x, y, z, w): (u32, u32, u32, u32);
    // SAFETY: every lane's row of 16 bytes is inside the tile (16-byte aligned rows).
    unsafe {
        if KM {
            asm!("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{x}, {y}, {z}, {w}}}, [{a}];",
                 a = in(reg32) addr, x = out(reg32) x, y = out(reg32) y, z = out(reg32) z,
                 w = out(reg32) w, options(nostack, readonly))
        } else {
            asm!("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {{{x}, {y}, {z}, {w}}}, [{a}];",
                 a = in(reg32) addr, x = out(reg32) x, y = out(reg32) y, z = out(reg32) z,
                 w = out(reg32) w, options(nostack, readonly))
        }
    }
    [x, y, z, w]
}

/// The lane's `ldmatrix` B fragment (two 8x8 matrices), as [`ldmatrix_a`].
///
/// # Safety
/// As for `ldmatrix_a`.
#[inline(always)]
unsafe fn ldmatrix_b<const KM: bool>(tile: u32, ld: u32, lane: u32) -> [u32; 2] {
    let (n, k) = ml::ldmatrix_b(lane, KM);
    let addr = tile + offset(n, k, ld, KM, 2);
    let (x, y): (u32, u32);
    // SAFETY: as for ldmatrix_a.
    unsafe {
        if KM {
            asm!("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {{{x}, {y}}}, [{a}];",
                 a = in(reg32) addr, x = out(reg32) x, y = out(reg32) y, options(nostack, readonly))
        } else {
            asm!("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {{{x}, {y}}}, [{a}];",
                 a = in(reg32) addr, x = out(reg32) x, y = out(reg32) y, options(nostack, readonly))
        }
    }
    [x, y]
}

m16n8k16!(
    F16,
    F16,
    u16,
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    |v| {
        let h: u16;
        // SAFETY: register-only conversion, rounding to nearest even (NumPy's).
        unsafe {
            asm!("cvt.rn.f16.f32 {h}, {f};", h = out(reg16) h, f = in(reg32) v, options(pure, nomem, nostack))
        };
        h
    },
    |c, p| {
        let d: u16;
        // SAFETY: register-only float16 arithmetic, rounding to nearest even.
        unsafe {
            asm!("sub.rn.f16 {d}, {c}, {p};", d = out(reg16) d, c = in(reg16) c, p = in(reg16) p,
                 options(pure, nomem, nostack))
        };
        d
    }
);
m16n8k16!(
    Bf16,
    Bf16,
    f32,
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    |v| v,
    |c, p| c - p
);

/// The `m16n8k8` families, whose fragments share one layout (`ml::frag_a`/`frag_b`):
/// TF32 (float32 bits read as TF32, float32 accumulators) and float64 on sm_90. `$e` is
/// the element as stored, `$acc` the accumulator, `$reg` their register class, `$ld` the
/// shared load of one element.
macro_rules! m16n8k8 {
    ($(#[$doc:meta])* $name:ident, $kind:ident, $e:ty, $acc:ty, $reg:ident, $ld:ident, $instr:literal) => {
        $(#[$doc])*
        struct $name;
        impl Mma for $name {
            const KIND: MmaKind = MmaKind::$kind;
            const SUB: bool = true;
            type Out = $acc;
            type A = [$e; 4];
            type B = [$e; 2];
            type C = [$acc; 4];
            const A0: [$e; 4] = [0 as $e; 4];
            const B0: [$e; 2] = [0 as $e; 2];
            const C0: [$acc; 4] = [0.0; 4];
            const CN: usize = 4;
            #[inline(always)]
            unsafe fn load_a<const KM: bool>(tile: u32, ld: u32, lane: u32) -> [$e; 4] {
                // SAFETY: the caller's contract; every element of the tile is aligned to
                // its size.
                unsafe { scalar_fragment::<_, 4, KM>(Self::KIND, true, tile, ld, lane, |a| $ld(a)) }
            }
            #[inline(always)]
            unsafe fn load_b<const KM: bool>(tile: u32, ld: u32, lane: u32) -> [$e; 2] {
                // SAFETY: as for load_a.
                unsafe { scalar_fragment::<_, 2, KM>(Self::KIND, false, tile, ld, lane, |a| $ld(a)) }
            }
            #[inline(always)]
            fn mma(a: [$e; 4], b: [$e; 2], c: [$acc; 4]) -> [$acc; 4] {
                let (d0, d1, d2, d3): ($acc, $acc, $acc, $acc);
                // SAFETY: register-only; every lane of the warp executes it.
                unsafe {
                    asm!(concat!($instr, " {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, {{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"),
                         d0 = out($reg) d0, d1 = out($reg) d1, d2 = out($reg) d2, d3 = out($reg) d3,
                         a0 = in($reg) a[0], a1 = in($reg) a[1], a2 = in($reg) a[2], a3 = in($reg) a[3],
                         b0 = in($reg) b[0], b1 = in($reg) b[1],
                         c0 = in($reg) c[0], c1 = in($reg) c[1], c2 = in($reg) c[2], c3 = in($reg) c[3],
                         options(pure, nomem, nostack))
                };
                [d0, d1, d2, d3]
            }
            #[inline(always)]
            fn out(c: &[$acc; 4], e: usize) -> $acc {
                c[e.min(3)]
            }
            #[inline(always)]
            fn sub_out(c: $acc, p: $acc) -> $acc {
                c - p
            }
        }
    };
}

m16n8k8!(
    /// TF32: the float32 bits are read as TF32 (the low 13 mantissa bits ignored:
    /// truncation, documented with the switch).
    Tf32, Tf32, u32, f32, reg32, ld_b32, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
);
m16n8k8!(
    /// float64 `m16n8k8`, an sm_90 instruction (these entries live in the sm_90 module):
    /// eight times the FLOPs of one `m8n8k4`.
    F64K8, F64K8, f64, f64, reg64, ld_f64, "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"
);

struct F64;
impl Mma for F64 {
    const KIND: MmaKind = MmaKind::F64;
    const SUB: bool = true;
    type Out = f64;
    type A = f64;
    type B = f64;
    type C = [f64; 2];
    const A0: f64 = 0.0;
    const B0: f64 = 0.0;
    const C0: [f64; 2] = [0.0; 2];
    const CN: usize = 2;
    #[inline(always)]
    unsafe fn load_a<const KM: bool>(tile: u32, ld: u32, lane: u32) -> f64 {
        let (r, k) = ml::frag_a(MmaKind::F64, lane, 0);
        // SAFETY: inside the tile; 8-byte aligned.
        unsafe { ld_f64(tile + offset(r, k, ld, KM, 8)) }
    }
    #[inline(always)]
    unsafe fn load_b<const KM: bool>(tile: u32, ld: u32, lane: u32) -> f64 {
        let (k, n) = ml::frag_b(MmaKind::F64, lane, 0);
        // SAFETY: inside the tile; 8-byte aligned.
        unsafe { ld_f64(tile + offset(n, k, ld, KM, 8)) }
    }
    #[inline(always)]
    fn mma(a: f64, b: f64, c: [f64; 2]) -> [f64; 2] {
        let (d0, d1): (f64, f64);
        // SAFETY: register-only; every lane of the warp executes it.
        unsafe {
            asm!("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {{{d0}, {d1}}}, {{{a}}}, {{{b}}}, {{{c0}, {c1}}};",
                 d0 = out(reg64) d0, d1 = out(reg64) d1, a = in(reg64) a, b = in(reg64) b,
                 c0 = in(reg64) c[0], c1 = in(reg64) c[1], options(pure, nomem, nostack))
        };
        [d0, d1]
    }
    #[inline(always)]
    fn out(c: &[f64; 2], e: usize) -> f64 {
        c[e.min(1)]
    }
    #[inline(always)]
    fn sub_out(c: f64, p: f64) -> f64 {
        c - p
    }
}

/// Copies `bytes` (0..=16) from `src` to the 16-byte chunk at shared address `dst`,
/// zero-filling the rest, asynchronously (`cp.async.cg`: through L2 only).
///
/// # Safety
/// `dst` is a 16-byte aligned chunk of the launch's shared memory; `src` is 16-byte
/// aligned and its first `bytes` bytes are readable.
#[inline(always)]
pub(crate) unsafe fn cp_async16(dst: u32, src: *const u8, bytes: u32) {
    // SAFETY: per the contract.
    unsafe {
        asm!("cp.async.cg.shared.global [{d}], [{s}], 16, {n};", d = in(reg32) dst, s = in(reg64) src,
             n = in(reg32) bytes, options(nostack))
    }
}

#[inline(always)]
pub(crate) fn cp_async_commit() {
    // SAFETY: groups the copies this thread issued since the last commit.
    unsafe { asm!("cp.async.commit_group;", options(nostack)) }
}

/// Waits until at most `n` (a constant after inlining, at most 3) of this thread's
/// committed groups are still in flight.
#[inline(always)]
pub(crate) fn cp_async_wait(n: u32) {
    // SAFETY: only waits. (The count must be an immediate; const generics cannot carry
    // `STAGES - 2`, so the constant is matched here.)
    unsafe {
        match n {
            0 => asm!("cp.async.wait_group 0;", options(nostack)),
            1 => asm!("cp.async.wait_group 1;", options(nostack)),
            2 => asm!("cp.async.wait_group 2;", options(nostack)),
            _ => asm!("cp.async.wait_group 3;", options(nostack)),
        }
    }
}

/// One operand of the block: where its tile comes from in global memory.
#[derive(Clone, Copy)]
pub(crate) struct Operand {
    /// Byte address of the block's element `(outer0, k = 0)`, batch included.
    pub(crate) base: *const u8,
    /// Rows/columns of the operand left from `outer0` (may exceed the tile).
    pub(crate) outer_left: u32,
    /// Byte strides along outer and along k (one of them is the element size).
    pub(crate) s_outer: i64,
    pub(crate) s_k: i64,
}

/// The block's batch index, the first row and column of its `bm x bn` tile of `C`
/// (`tiles::block_tile`), and its two operands (`elem`-byte elements).
#[inline(always)]
pub(crate) fn block_operands(
    g: &Gemm,
    [bm, bn]: [u32; 2],
    a: *const u8,
    b: *const u8,
    elem: u32,
) -> (i64, u32, u32, Operand, Operand) {
    let z = block_idx_z() as i64;
    let (tile_row, tile_col) = tiles::block_tile(
        block_idx(),
        block_idx_y(),
        g.n.div_ceil(bn),
        g.m.div_ceil(bm),
    );
    let (row0, col0) = (tile_row * bm, tile_col * bn);
    let e = elem as i64;
    let opa = Operand {
        base: a.wrapping_offset(((z * g.a_batch + row0 as i64 * g.a_row) * e) as isize),
        outer_left: g.m - row0,
        s_outer: g.a_row * e,
        s_k: g.a_col * e,
    };
    let opb = Operand {
        base: b.wrapping_offset(((z * g.b_batch + col0 as i64 * g.b_col) * e) as isize),
        outer_left: g.n - col0,
        s_outer: g.b_col * e,
        s_k: g.b_row * e,
    };
    (z, row0, col0, opa, opb)
}

/// Issues this thread's `cp.async` chunks of one operand tile (`OUTER x BK`, stored per
/// `KM` with row length `ld`) for the k-step starting at `k0`, into shared address `dst`.
///
/// # Safety
/// The host's layout checks: the unit-stride direction is `KM`'s, the other stride, the
/// base and the batch offsets are 16-byte multiples, and every element inside the
/// matrix is readable.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn copy_tile<
    const OUTER: u32,
    const BK: u32,
    const CHUNKS: usize,
    const THREADS: u32,
    const KM: bool,
>(
    dst: u32,
    op: &Operand,
    k0: u32,
    k: u32,
    ld: u32,
    elem: u32,
    t: u32,
) {
    let vec = 16 / elem;
    let row_elems = if KM { BK } else { OUTER };
    unroll!(c in 0..CHUNKS => {
        let (r, e) = ml::chunk(t + c as u32 * THREADS, row_elems, vec);
        let (o, kk) = if KM { (r, k0 + e) } else { (e, k0 + r) };
        let inside = o < op.outer_left && kk < k;
        // Elements of this chunk inside the matrix along its contiguous direction.
        let left = if KM { k.saturating_sub(kk) } else { op.outer_left.saturating_sub(o) };
        let bytes = if inside { left.min(vec) * elem } else { 0 };
        let src = if inside {
            op.base.wrapping_offset((o as i64 * op.s_outer + kk as i64 * op.s_k) as isize)
        } else {
            op.base
        };
        // SAFETY: per the contract; `bytes` is 0 outside the matrix.
        unsafe { cp_async16(dst + (r * ld + e) * elem, src, bytes) };
    });
}

/// `C[z] = A[z] @ B[z]` on tensor cores for the block's tile. `AK`/`BKM`: operands stored
/// k-major. `CA`/`CB`: chunks a thread copies per stage; `FM`/`FN`: instruction tiles a
/// warp holds (`TcTile::frags`).
///
/// # Safety
/// Launched per `TcTile` (grid, threads, shared bytes) on an sm_80+ GPU, with operands
/// that pass the host's layout checks (see `copy_tile`) and a `c` whose `(z, i, j)` are
/// distinct elements not overlapping `a` or `b`.
#[inline(always)]
unsafe fn mma_gemm<
    M: Mma,
    const BM: u32,
    const BN: u32,
    const BK: u32,
    const WM: u32,
    const WN: u32,
    const STAGES: u32,
    const THREADS: u32,
    const CA: usize,
    const CB: usize,
    const FM: usize,
    const FN: usize,
    const AK: bool,
    const BKM: bool,
>(
    tile: TcTile,
    g: Gemm,
    a: *const u8,
    b: *const u8,
    c: *mut M::Out,
) {
    let (mi, ni, ki) = M::KIND.shape();
    let elem = M::KIND.elem();
    let t = thread_idx();
    let (lane, warp) = (t % 32, t / 32);
    let (wm, wn) = (warp / WN, warp % WN);
    let (z, row0, col0, opa, opb) = block_operands(&g, [BM, BN], a, b, elem);
    let (lda, ldb) = (tile.ld(BM, AK), tile.ld(BN, BKM));
    let a_bytes = tile.operand_bytes(BM);
    let stage_bytes = a_bytes + tile.operand_bytes(BN);
    let smem = smem_addr(0);
    // Split-K (see `tiles::Gemm`): this block's slice of the inner dimension; its start
    // is in the batch offsets the host set.
    let k = if g.k_total == 0 {
        g.k
    } else {
        g.k.min(g.k_total.saturating_sub(z as u32 * g.k))
    };
    let ktiles = k.div_ceil(BK);

    // Prologue: the first STAGES - 1 tiles in flight, one commit group each.
    let mut s = 0;
    while s < STAGES - 1 {
        if s < ktiles {
            let dst = smem + s * stage_bytes;
            // SAFETY: per the function's contract; the stage is inside shared memory.
            unsafe {
                copy_tile::<BM, BK, CA, THREADS, AK>(dst, &opa, s * BK, k, lda, elem, t);
                copy_tile::<BN, BK, CB, THREADS, BKM>(dst + a_bytes, &opb, s * BK, k, ldb, elem, t);
            }
        }
        cp_async_commit();
        s += 1;
    }

    let mut acc = [[M::C0; FN]; FM];
    // Instruction-tile origins of this warp, in elements along outer.
    let (wrow, wcol) = (wm * (BM / WM), wn * (BN / WN));
    let mut kt = 0;
    while kt < ktiles {
        // Tile kt has landed for this thread; the barrier makes every thread's copies
        // visible and ends the reads of the stage the prefetch below overwrites.
        cp_async_wait(STAGES - 2);
        sync_threads();
        let pf = kt + STAGES - 1;
        if pf < ktiles {
            let dst = smem + (pf % STAGES) * stage_bytes;
            // SAFETY: as in the prologue.
            unsafe {
                copy_tile::<BM, BK, CA, THREADS, AK>(dst, &opa, pf * BK, k, lda, elem, t);
                copy_tile::<BN, BK, CB, THREADS, BKM>(
                    dst + a_bytes,
                    &opb,
                    pf * BK,
                    k,
                    ldb,
                    elem,
                    t,
                );
            }
        }
        cp_async_commit();
        let st = smem + (kt % STAGES) * stage_bytes;
        unroll!(kk in 0..(BK / M::KIND.shape().2) as usize => {
            let k_in = kk as u32 * ki;
            let mut af = [M::A0; FM];
            let mut bf = [M::B0; FN];
            unroll!(fm in 0..FM => {
                let origin = st + offset(wrow + fm as u32 * mi, k_in, lda, AK, elem);
                // SAFETY: the instruction tile lies inside this stage's A tile.
                af[fm] = unsafe { M::load_a::<AK>(origin, lda, lane) };
            });
            unroll!(fn_ in 0..FN => {
                let origin = st + a_bytes + offset(wcol + fn_ as u32 * ni, k_in, ldb, BKM, elem);
                // SAFETY: inside this stage's B tile.
                bf[fn_] = unsafe { M::load_b::<BKM>(origin, ldb, lane) };
            });
            unroll!(fm in 0..FM => {
                unroll!(fn_ in 0..FN => {
                    acc[fm][fn_] = M::mma(af[fm], bf[fn_], acc[fm][fn_]);
                });
            });
        });
        kt += 1;
    }
    // No copies may be left in flight when the block exits.
    cp_async_wait(0);

    let c = c.wrapping_offset((z * g.c_batch) as isize);
    let sub = M::SUB && g.sub != 0;
    let at = |fm: usize, fn_: usize, q: usize| {
        let (r, cc) = ml::frag_c(M::KIND, lane, q as u32);
        let row = row0 + wrow + fm as u32 * mi + r;
        let col = col0 + wcol + fn_ as u32 * ni + cc;
        let p = c.wrapping_offset((row as i64 * g.c_row + col as i64 * g.c_col) as isize);
        (row < g.m && col < g.n, p)
    };
    unroll!(fm in 0..FM => {
        // With `g.sub` (`C -= A @ B`), this row of fragments' elements of C first, every
        // load before any store: a store between two loads makes the second wait for
        // the first (the compiler cannot tell that they do not alias).
        let mut old = [[M::out(&acc[fm][0], 0); 4]; FN];
        if sub {
            unroll!(fn_ in 0..FN => {
                unroll!(q in 0..M::CN => {
                    let (inside, p) = at(fm, fn_, q);
                    if inside {
                        // SAFETY: an element of C that this thread alone writes.
                        old[fn_][q.min(3)] = unsafe { *p };
                    }
                });
            });
        }
        unroll!(fn_ in 0..FN => {
            unroll!(q in 0..M::CN => {
                let (inside, p) = at(fm, fn_, q);
                if inside {
                    let v = M::out(&acc[fm][fn_], q);
                    let v = if sub { M::sub_out(old[fn_][q.min(3)], v) } else { v };
                    // SAFETY: (row, col) is inside C.
                    unsafe { *p = v };
                }
            });
        });
    });
}

/// Stamps the four layout variants `gpupy_mma_<kind>_<name>_{kk,km,mk,mm}` of tile `$idx`
/// of `TC_TILES` (name and kind checked at compile time).
macro_rules! mma_entries {
    ([] $(($M2:ident, $out2:ty, $prefix2:literal, $word2:literal, $idx2:literal, $name2:literal, [$($v2:literal $ak2:literal $bk2:literal)*]))*) => {
        $( mma_entries!($M2, $out2, $prefix2, $word2, $idx2, $name2, $($v2 $ak2 $bk2)*); )*
    };
    ($M:ident, $out:ty, $prefix:literal, $word:literal, $idx:literal, $name:literal, $($v:literal $ak:literal $bk:literal)*) => {
        const _: () = {
            const TILE: TcTile = TC_TILES[$idx];
            const _: () = assert!(crate::registry::same(TILE.name, $name));
            const _: () = assert!(crate::registry::same(<$M as Mma>::KIND.word(), $word));
            const _: () = assert!(crate::registry::same(<$M as Mma>::KIND.prefix(), $prefix));
            const _: () = assert!(TILE.kind as u8 == <$M as Mma>::KIND.family() as u8);
            const VEC: u32 = 16 / TILE.kind.elem();
            const FRAGS: (u32, u32) = TILE.frags();
            $(
                const _: () = {
                    #[unsafe(export_name = concat!($prefix, "_", $word, "_", $name, "_", $v))]
                    unsafe extern "ptx-kernel" fn kernel(g: Gemm, a: *const u8, b: *const u8, c: *mut $out) {
                        // SAFETY: the host launches per the tile and checks the layouts.
                        unsafe {
                            mma_gemm::<
                                $M,
                                { TILE.bm },
                                { TILE.bn },
                                { TILE.bk },
                                { TILE.warps_m },
                                { TILE.warps_n },
                                { TILE.stages },
                                { TILE.threads },
                                { (TILE.bm * TILE.bk / VEC / TILE.threads) as usize },
                                { (TILE.bn * TILE.bk / VEC / TILE.threads) as usize },
                                { FRAGS.0 as usize },
                                { FRAGS.1 as usize },
                                $ak,
                                $bk,
                            >(TILE, g, a, b, c)
                        }
                    }
                };
            )*
        };
    };
}

#[cfg(feature = "matmul-mma")]
crate::for_each_mma_kernel!(mma_entries);
#[cfg(feature = "matmul-mma90")]
crate::for_each_mma90_kernel!(mma_entries);
