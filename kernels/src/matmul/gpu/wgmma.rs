//! Hopper warpgroup tensor-core products (`wgmma.mma_async`, sm_90a): float16 and TF32,
//! float32 accumulation. Layout, tile and descriptors: `wgmma_layout.rs`.
//!
//! A block's two warpgroups each multiply 64 rows of the `128 x 256` tile by all of
//! `B`'s 256 columns, two `m64n128` instructions per k step, reading both operands from
//! shared memory through descriptors. Every thread also copies: operand tiles stream in
//! with `cp.async` (16-byte chunks, zero-filled past the matrix) into a ring of
//! `WG_STAGES` stages, two tiles ahead of the one being multiplied, and the warpgroups
//! keep one batch of `wgmma` in flight while they issue the next (`wait_group 1`).
//!
//! The entries are named `gpupy_wgmma_*`: `host/build.rs` moves them into a module of
//! their own, assembled for `sm_90a` (the only target with `wgmma`), which the host loads
//! on compute capability 9.0 exactly.

use core::arch::asm;

use super::mma::{Operand, block_operands, cp_async_commit, cp_async_wait, cp_async16};
use crate::gpu::unroll;
use crate::gpu::{smem_addr, sync_threads, thread_idx};
use crate::matmul::mma_layout::MmaKind;
use crate::matmul::tiles::Gemm;
use crate::matmul::wgmma_layout::{
    B_OFFSET, K_STEP_BYTES, ROW_BYTES, STAGE_BYTES, WG_BM, WG_BN, WG_STAGES, acc_pos, copies,
    copy_chunk, descriptor, swizzled,
};

/// One `asm!` statement that names all 64 accumulators of an `m64n128` set as in-out
/// registers `{0}`..`{63}`, followed by `$extra` operands from `{64}` on. The fences and
/// waits name them too (in a PTX comment), so that LLVM moves no use of an accumulator
/// across the point where the tensor cores may still be writing it.
macro_rules! with_acc {
    ($acc:expr, $template:expr $(; $($extra:tt)*)?) => {
        asm!($template,
            inout(reg32) $acc[0], inout(reg32) $acc[1], inout(reg32) $acc[2], inout(reg32) $acc[3], inout(reg32) $acc[4], inout(reg32) $acc[5], inout(reg32) $acc[6], inout(reg32) $acc[7],
            inout(reg32) $acc[8], inout(reg32) $acc[9], inout(reg32) $acc[10], inout(reg32) $acc[11], inout(reg32) $acc[12], inout(reg32) $acc[13], inout(reg32) $acc[14], inout(reg32) $acc[15],
            inout(reg32) $acc[16], inout(reg32) $acc[17], inout(reg32) $acc[18], inout(reg32) $acc[19], inout(reg32) $acc[20], inout(reg32) $acc[21], inout(reg32) $acc[22], inout(reg32) $acc[23],
            inout(reg32) $acc[24], inout(reg32) $acc[25], inout(reg32) $acc[26], inout(reg32) $acc[27], inout(reg32) $acc[28], inout(reg32) $acc[29], inout(reg32) $acc[30], inout(reg32) $acc[31],
            inout(reg32) $acc[32], inout(reg32) $acc[33], inout(reg32) $acc[34], inout(reg32) $acc[35], inout(reg32) $acc[36], inout(reg32) $acc[37], inout(reg32) $acc[38], inout(reg32) $acc[39],
            inout(reg32) $acc[40], inout(reg32) $acc[41], inout(reg32) $acc[42], inout(reg32) $acc[43], inout(reg32) $acc[44], inout(reg32) $acc[45], inout(reg32) $acc[46], inout(reg32) $acc[47],
            inout(reg32) $acc[48], inout(reg32) $acc[49], inout(reg32) $acc[50], inout(reg32) $acc[51], inout(reg32) $acc[52], inout(reg32) $acc[53], inout(reg32) $acc[54], inout(reg32) $acc[55],
            inout(reg32) $acc[56], inout(reg32) $acc[57], inout(reg32) $acc[58], inout(reg32) $acc[59], inout(reg32) $acc[60], inout(reg32) $acc[61], inout(reg32) $acc[62], inout(reg32) $acc[63],
            $($($extra)*)?
            options(nostack))
    };
}

/// The 64 accumulator placeholders, for templates.
macro_rules! acc_regs {
    () => {
        "{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}"
    };
}

/// What differs between the float16, bfloat16 and TF32 kernels.
trait Wg {
    const KIND: MmaKind;
    /// C's element type as stored (float16 as its bits).
    type Out: Copy;
    /// `acc += A @ B` for one `m64n128` instruction with descriptors `da`, `db`.
    ///
    /// # Safety
    /// Every thread of the warpgroup executes it; the descriptors address a stage whose
    /// copies are complete and fenced for the tensor cores.
    unsafe fn mma(acc: &mut [f32; 64], da: u64, db: u64);
    fn out(v: f32) -> Self::Out;
}

/// The 16-bit input types (`k16` instructions, k-major operands): float16, rounded back to
/// float16 on the way out, and bfloat16 with a float32 result (NumPy's, with ml_dtypes).
macro_rules! wg_k16 {
    ($name:ident, $kind:ident, $out_ty:ty, $instr:literal, |$v:ident| $out:expr) => {
        struct $name;
        impl Wg for $name {
            const KIND: MmaKind = MmaKind::$kind;
            type Out = $out_ty;
            #[inline(always)]
            unsafe fn mma(acc: &mut [f32; 64], da: u64, db: u64) {
                // SAFETY: per the contract. Scale-d 1 accumulates; no negation, no
                // transposes (both operands k-major).
                unsafe {
                    with_acc!(acc, concat!(
                        "{{ .reg .pred p; setp.ne.b32 p, {66}, 0;\n\t",
                        $instr, " {{", acc_regs!(),
                        "}}, {64}, {65}, p, 1, 1, 0, 0; }}");
                        in(reg64) da, in(reg64) db, in(reg32) 1u32,)
                }
            }
            #[inline(always)]
            fn out($v: f32) -> $out_ty {
                $out
            }
        }
    };
}

wg_k16!(
    F16,
    F16,
    u16,
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
    |v| {
        let h: u16;
        // SAFETY: register-only conversion, rounding to nearest even (NumPy's).
        unsafe {
            asm!("cvt.rn.f16.f32 {h}, {f};", h = out(reg16) h, f = in(reg32) v, options(pure, nomem, nostack))
        };
        h
    }
);
wg_k16!(
    Bf16,
    Bf16,
    f32,
    "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
    |v| v
);

/// TF32: float32 bits read as TF32 (the low 13 mantissa bits ignored), as the `mma.sync`
/// TF32 kernels.
struct Tf32;
impl Wg for Tf32 {
    const KIND: MmaKind = MmaKind::Tf32;
    type Out = f32;
    #[inline(always)]
    unsafe fn mma(acc: &mut [f32; 64], da: u64, db: u64) {
        // SAFETY: as for the 16-bit types (TF32 takes no transpose flags: k-major only).
        unsafe {
            with_acc!(acc, concat!(
                "{{ .reg .pred p; setp.ne.b32 p, {66}, 0;\n\t",
                "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {{", acc_regs!(),
                "}}, {64}, {65}, p, 1, 1; }}");
                in(reg64) da, in(reg64) db, in(reg32) 1u32,)
        }
    }
    #[inline(always)]
    fn out(v: f32) -> f32 {
        v
    }
}

/// `wgmma.fence`: orders this warpgroup's accumulator accesses before the next `wgmma`.
#[inline(always)]
fn fence(acc: &mut [[f32; 64]; 2]) {
    // SAFETY: a fence; the accumulators are only named.
    unsafe {
        for half in acc.iter_mut() {
            with_acc!(half, concat!("// fence: ", acc_regs!()));
        }
        asm!("wgmma.fence.sync.aligned;", options(nostack));
    }
}

/// `wgmma.wait_group N` (N = 0 or 1): at most `N` committed batches still in flight.
#[inline(always)]
fn wait(n: u32, acc: &mut [[f32; 64]; 2]) {
    // SAFETY: only waits; the accumulators are named so that no use moves above it.
    unsafe {
        if n == 0 {
            asm!("wgmma.wait_group.sync.aligned 0;", options(nostack));
        } else {
            asm!("wgmma.wait_group.sync.aligned 1;", options(nostack));
        }
        for half in acc.iter_mut() {
            with_acc!(half, concat!("// wait: ", acc_regs!()));
        }
    }
}

/// Issues this thread's `cp.async` chunks of one `ROWS`-row operand tile for the k tile
/// `kt` into shared address `dst` (1024-byte aligned), swizzled.
///
/// # Safety
/// The host's checks: rows k-major, 16-byte aligned, `k` a multiple of a chunk; every
/// element inside the matrix is readable.
#[inline(always)]
unsafe fn copy_tile<const ROWS: u32>(dst: u32, op: &Operand, kt: u32, k: u32, elem: u32, t: u32) {
    let vec = 16 / elem;
    let (_, chunk) = copy_chunk(t, 0);
    let k0 = kt * (ROW_BYTES / elem) + chunk * vec;
    let in_k = k0 < k;
    unroll!(q in 0..copies(ROWS) as usize => {
        let (r, _) = copy_chunk(t, q as u32);
        let inside = in_k && r < op.outer_left;
        let src = if inside {
            op.base.wrapping_offset((r as i64 * op.s_outer + (k0 * elem) as i64) as isize)
        } else {
            op.base
        };
        // SAFETY: per the contract; 0 bytes are read outside the matrix.
        unsafe { cp_async16(dst + swizzled(r, chunk), src, if inside { 16 } else { 0 }) };
    });
}

/// `fence.proxy.async.shared::cta`: this thread's shared-memory writes (the `cp.async`
/// copies it waited for) become visible to the tensor cores' reads.
#[inline(always)]
fn fence_proxy_async() {
    // SAFETY: a fence.
    unsafe { asm!("fence.proxy.async.shared::cta;", options(nostack)) }
}

/// `C[z] = A[z] @ B[z]` for the block's tile, `A` and `B` both k-major (`g.a_col ==
/// g.b_row == 1`).
///
/// # Safety
/// Launched with grid `(ceil(n/WG_BN), ceil(m/WG_BM), batch)`, `WG_THREADS` threads and
/// `WG_SMEM_BYTES` of dynamic shared memory on a compute capability 9.0 GPU, with
/// operands that pass `wgmma_layout::fits` and the host's alignment checks, and a `c`
/// whose `(z, i, j)` are distinct elements not overlapping `a` or `b`.
#[inline(always)]
unsafe fn wgmma_gemm<W: Wg>(g: Gemm, a: *const u8, b: *const u8, c: *mut W::Out) {
    const D: u32 = WG_STAGES - 2;
    let elem = W::KIND.elem();
    let t = thread_idx();
    let (warp, lane) = (t / 32, t % 32);
    let wg = warp / 4;
    // Both operands k-major: rows `s_outer` bytes apart, `k` contiguous.
    let (z, row0, col0, opa, opb) = block_operands(&g, [WG_BM, WG_BN], a, b, elem);
    let smem = (smem_addr(0) + 1023) & !1023;
    let k = g.k;
    let ktiles = k.div_ceil(ROW_BYTES / elem);

    // Prologue: the first D tiles in flight, one commit group each.
    let mut s = 0;
    while s < D {
        if s < ktiles {
            let dst = smem + s * STAGE_BYTES;
            // SAFETY: per the function's contract; the stage is inside shared memory.
            unsafe {
                copy_tile::<WG_BM>(dst, &opa, s, k, elem, t);
                copy_tile::<WG_BN>(dst + B_OFFSET, &opb, s, k, elem, t);
            }
        }
        cp_async_commit();
        s += 1;
    }

    let mut acc = [[0.0f32; 64]; 2];
    let mut kt = 0;
    while kt < ktiles {
        // Tile kt has landed (this thread's chunks); the fence hands them to the tensor
        // cores; after the barrier every thread's chunks are in, and every warpgroup has
        // finished the batch of tile kt - 2 (its `wait(1)` of the last step), whose stage
        // the prefetch below refills.
        cp_async_wait(D - 1);
        fence_proxy_async();
        sync_threads();
        let pf = kt + D;
        if pf < ktiles {
            let dst = smem + (pf % WG_STAGES) * STAGE_BYTES;
            // SAFETY: as in the prologue.
            unsafe {
                copy_tile::<WG_BM>(dst, &opa, pf, k, elem, t);
                copy_tile::<WG_BN>(dst + B_OFFSET, &opb, pf, k, elem, t);
            }
        }
        cp_async_commit();
        let st = smem + (kt % WG_STAGES) * STAGE_BYTES;
        fence(&mut acc);
        unroll!(j in 0..(ROW_BYTES / K_STEP_BYTES) as usize => {
            let da = descriptor(st + wg * 64 * ROW_BYTES + j as u32 * K_STEP_BYTES);
            unroll!(h in 0..2 => {
                let db = descriptor(st + B_OFFSET + h as u32 * 128 * ROW_BYTES + j as u32 * K_STEP_BYTES);
                // SAFETY: the stage's copies are complete and fenced (above); the whole
                // warpgroup runs this uniform loop.
                unsafe { W::mma(&mut acc[h], da, db) };
            });
        });
        // SAFETY: groups the batch just issued.
        unsafe { asm!("wgmma.commit_group.sync.aligned;", options(nostack)) };
        wait(1, &mut acc);
        kt += 1;
    }
    wait(0, &mut acc);
    // No copies may be left in flight when the block exits.
    cp_async_wait(0);

    let c = c.wrapping_offset((z * g.c_batch) as isize);
    let w = warp % 4;
    unroll!(h in 0..2 => {
        unroll!(i8 in 0..16 => {
            unroll!(q in 0..4 => {
                let i = i8 * 4 + q;
                let (r, cc) = acc_pos(w, lane, i as u32);
                let row = row0 + wg * 64 + r;
                let col = col0 + h as u32 * 128 + cc;
                if row < g.m && col < g.n {
                    let v = W::out(acc[h][i]);
                    // SAFETY: (row, col) is inside C.
                    unsafe {
                        *c.wrapping_offset((row as i64 * g.c_row + col as i64 * g.c_col) as isize) = v
                    };
                }
            });
        });
    });
}

/// Stamps `gpupy_wgmma_<word>_128x256_kk`.
macro_rules! wgmma_entry {
    ([] $(($W2:ident, $out2:ty, $word2:literal))*) => { $( wgmma_entry!($W2, $out2, $word2); )* };
    ($W:ident, $out:ty, $word:literal) => {
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_wgmma_", $word, "_128x256_kk"))]
            unsafe extern "ptx-kernel" fn kernel(
                g: Gemm,
                a: *const u8,
                b: *const u8,
                c: *mut $out,
            ) {
                // SAFETY: the host launches per `wgmma_layout` and checks the layouts.
                unsafe { wgmma_gemm::<$W>(g, a, b, c) }
            }
        };
    };
}

crate::for_each_wgmma_kernel!(wgmma_entry);
