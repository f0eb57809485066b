//! Device helpers of the sparse kernels: atomic adds of any value type, warp votes
//! and barriers, and the walks that give each row a group of lanes.

use core::arch::asm;

use crate::dtype::{c64, c128};
use crate::gpu::{grid_stride, shfl_xor_words};
use crate::sparse::value::Value;

/// Values that global (and shared, through generic addresses) memory can add to
/// atomically: a complex value is two atomic adds, one per part.
pub(super) trait AtomicAdd: Value {
    /// # Safety
    /// `p` is an aligned address of a `Self` only accessed atomically while the kernel
    /// runs (global memory, or shared memory through a generic address).
    unsafe fn atomic_add(p: *mut Self, v: Self);
}

/// `red.add` on a generic address.
macro_rules! red_add {
    ($name:ident, $t:ident, $reg:ident, $ty:literal) => {
        /// # Safety
        /// As `AtomicAdd::atomic_add`.
        #[inline(always)]
        unsafe fn $name(p: *mut $t, v: $t) {
            // SAFETY: per the contract.
            unsafe {
                asm!(concat!("red.add.", $ty, " [{a}], {v};"), a = in(reg64) p, v = in($reg) v,
                     options(nostack))
            }
        }
    };
}
red_add!(red_f32, f32, reg32, "f32");
red_add!(red_f64, f64, reg64, "f64");

impl AtomicAdd for f32 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut f32, v: f32) {
        // SAFETY: per the contract.
        unsafe { red_f32(p, v) }
    }
}
impl AtomicAdd for f64 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut f64, v: f64) {
        // SAFETY: per the contract.
        unsafe { red_f64(p, v) }
    }
}
impl AtomicAdd for c64 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut c64, v: c64) {
        let q = p.cast::<f32>();
        // SAFETY: per the contract; the parts are the struct's two f32 fields.
        unsafe {
            red_f32(q, v.re);
            red_f32(q.add(1), v.im);
        }
    }
}
impl AtomicAdd for c128 {
    #[inline(always)]
    unsafe fn atomic_add(p: *mut c128, v: c128) {
        let q = p.cast::<f64>();
        // SAFETY: per the contract; the parts are the struct's two f64 fields.
        unsafe {
            red_f64(q, v.re);
            red_f64(q.add(1), v.im);
        }
    }
}

/// `bar.warp.sync`: the warp's lanes meet, and their memory accesses before it are
/// visible to each other after it. Every lane must reach it.
#[inline(always)]
pub(super) fn sync_warp() {
    // SAFETY: a warp barrier; callers reach it from warp-uniform control flow.
    unsafe { asm!("bar.warp.sync 0xffffffff;", options(nostack)) }
}

/// The lanes of the warp for which `p` holds (`vote.sync.ballot`). Every lane must call.
#[inline(always)]
pub(super) fn ballot(p: bool) -> u32 {
    let r: u32;
    // SAFETY: register-only warp vote with all lanes taking part.
    unsafe {
        asm!("{{ .reg .pred p; setp.ne.u32 p, {f}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
             f = in(reg32) p as u32, r = out(reg32) r, options(nostack, nomem))
    };
    r
}

/// The lanes below this one (`%lanemask_lt`).
#[inline(always)]
pub(super) fn lanes_below() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {r}, %lanemask_lt;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// Walks rows by groups of `lanes` threads, warps in step: calls `each(row, sub)` with
/// this thread's row (`None` past the last row, so that the caller still takes part in
/// its group's shuffles) and its lane in the group. The block size is a multiple of 32.
#[inline(always)]
pub(super) fn warp_rows(rows: u64, lanes: u64, mut each: impl FnMut(Option<u64>, u64)) {
    let (gid, threads) = grid_stride();
    let lane = gid % 32;
    let (sub, group) = (lane % lanes, lane / lanes);
    let per_warp = 32 / lanes;
    let step = threads / 32 * per_warp;
    // Every lane of a warp has the same `base`: the loop is warp-uniform.
    let mut base = gid / 32 * per_warp;
    while base < rows {
        let r = base + group;
        each((r < rows).then_some(r), sub);
        base += step;
    }
}

/// Walks rows by groups of `lanes` threads with no shuffles: `each(row, sub)`.
#[inline(always)]
pub(super) fn group_rows(rows: u64, lanes: u64, mut each: impl FnMut(u64, u64)) {
    let (gid, threads) = grid_stride();
    let sub = gid % lanes;
    let step = threads / lanes;
    let mut r = gid / lanes;
    while r < rows {
        each(r, sub);
        r += step;
    }
}

/// Sums `v` over each group of `lanes` lanes (a butterfly: every lane gets the sum).
#[inline(always)]
pub(super) fn group_sum<V: Value>(mut v: V, lanes: u64) -> V {
    let mut off = lanes / 2;
    while off > 0 {
        v = v.add(shfl_xor_words(v, off as u32));
        off /= 2;
    }
    v
}
