//! The PTX instructions that Rust has no words for: thread indices, barriers, warp
//! shuffles and shared memory. Everything else in the kernels is ordinary Rust.
//!
//! Shared memory is one dynamic `.extern .shared` array, sized by the host at launch.
//! It is reached through `ld.shared`/`st.shared` with 32-bit shared-window addresses,
//! since a generic pointer made by `cvta` hides the address space from LLVM and every
//! access would go through the slower generic path.

use core::arch::asm;
use core::arch::nvptx;

core::arch::global_asm!(".extern .shared .align 16 .b8 gpupy_smem[];");

#[inline(always)]
pub fn thread_idx() -> u32 {
    // SAFETY: reads a special register; always defined inside a kernel.
    unsafe { nvptx::_thread_idx_x() as u32 }
}
#[inline(always)]
pub fn block_idx() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_x() as u32 }
}
#[inline(always)]
pub fn block_idx_y() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_y() as u32 }
}
#[inline(always)]
pub fn block_idx_z() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_idx_z() as u32 }
}
#[inline(always)]
pub fn block_dim() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_block_dim_x() as u32 }
}
#[inline(always)]
pub fn grid_dim() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_grid_dim_x() as u32 }
}

/// This thread's index in a 1-D grid and the grid's thread count, for grid-stride loops.
#[inline(always)]
pub fn grid_stride() -> (u64, u64) {
    let start = block_idx() as u64 * block_dim() as u64 + thread_idx() as u64;
    (start, grid_dim() as u64 * block_dim() as u64)
}

/// Block-wide barrier (`bar.sync 0`). Every thread of the block must reach it.
#[inline(always)]
pub fn sync_threads() {
    // SAFETY: callers reach it from uniform control flow.
    unsafe { nvptx::_syncthreads() }
}

/// Address of the dynamic shared array in the shared window, plus `byte_offset`.
#[inline(always)]
pub fn smem_addr(byte_offset: u32) -> u32 {
    let base: u32;
    // SAFETY: takes the address of the module's shared symbol; no memory is touched.
    unsafe { asm!("mov.u32 {b}, gpupy_smem;", b = out(reg32) base, options(pure, nomem, nostack)) };
    base + byte_offset
}

/// Values that move through shared memory and warp shuffles.
pub trait Shared: Copy {
    /// # Safety
    /// `addr` is a shared-window address inside the launch's dynamic shared size,
    /// aligned for `Self`.
    unsafe fn st_shared(addr: u32, v: Self);
    /// # Safety
    /// As for `st_shared`.
    unsafe fn ld_shared(addr: u32) -> Self;
    /// `shfl.sync.down` over the full warp; every lane must call it.
    fn shfl_down(self, delta: u32) -> Self;
}

impl Shared for f32 {
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: f32) {
        // SAFETY: per the trait contract.
        unsafe { asm!("st.shared.f32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack)) }
    }
    #[inline(always)]
    unsafe fn ld_shared(addr: u32) -> f32 {
        let v: f32;
        // SAFETY: per the trait contract.
        unsafe { asm!("ld.shared.f32 {v}, [{a}];", a = in(reg32) addr, v = out(reg32) v, options(nostack, readonly)) };
        v
    }
    #[inline(always)]
    fn shfl_down(self, delta: u32) -> f32 {
        let r: f32;
        // SAFETY: register-only; all 32 lanes take part (mask 0xffffffff).
        unsafe {
            asm!("shfl.sync.down.b32 {r}, {v}, {d}, 0x1f, 0xffffffff;",
                 r = out(reg32) r, v = in(reg32) self, d = in(reg32) delta, options(nostack, nomem))
        };
        r
    }
}

impl Shared for f64 {
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: f64) {
        // SAFETY: per the trait contract.
        unsafe { asm!("st.shared.f64 [{a}], {v};", a = in(reg32) addr, v = in(reg64) v, options(nostack)) }
    }
    #[inline(always)]
    unsafe fn ld_shared(addr: u32) -> f64 {
        let v: f64;
        // SAFETY: per the trait contract.
        unsafe { asm!("ld.shared.f64 {v}, [{a}];", a = in(reg32) addr, v = out(reg64) v, options(nostack, readonly)) };
        v
    }
    #[inline(always)]
    fn shfl_down(self, delta: u32) -> f64 {
        // A shuffle moves 32 bits: move the two halves.
        let bits = self.to_bits();
        let lo = (bits as u32).shfl_bits(delta);
        let hi = ((bits >> 32) as u32).shfl_bits(delta);
        f64::from_bits(((hi as u64) << 32) | lo as u64)
    }
}

trait ShflBits {
    fn shfl_bits(self, delta: u32) -> Self;
}
impl ShflBits for u32 {
    #[inline(always)]
    fn shfl_bits(self, delta: u32) -> u32 {
        let r: u32;
        // SAFETY: register-only; all 32 lanes take part.
        unsafe {
            asm!("shfl.sync.down.b32 {r}, {v}, {d}, 0x1f, 0xffffffff;",
                 r = out(reg32) r, v = in(reg32) self, d = in(reg32) delta, options(nostack, nomem))
        };
        r
    }
}

/// Sum of `v` over the block, valid in thread 0. Uses `block_dim()/32` slots of `T` in
/// shared memory at offset 0; the block size must be a multiple of 32 and at most 1024.
#[inline(always)]
pub fn block_sum<T: Shared + core::ops::Add<Output = T>>(mut v: T, zero: T) -> T {
    let mut d = 16;
    while d > 0 {
        v = v + v.shfl_down(d);
        d /= 2;
    }
    let lane = thread_idx() % 32;
    let warp = thread_idx() / 32;
    let size = core::mem::size_of::<T>() as u32;
    if lane == 0 {
        // SAFETY: warp < 32 slots, inside the shared size the host gives every reduction.
        unsafe { T::st_shared(smem_addr(warp * size), v) };
    }
    sync_threads();
    if warp == 0 {
        let nwarps = block_dim() / 32;
        // SAFETY: lane < nwarps slots were written above, before the barrier.
        v = if lane < nwarps { unsafe { T::ld_shared(smem_addr(lane * size)) } } else { zero };
        let mut d = 16;
        while d > 0 {
            v = v + v.shfl_down(d);
            d /= 2;
        }
    }
    v
}
