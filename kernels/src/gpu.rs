//! The PTX instructions that Rust has no words for: thread indices, barriers, warp
//! shuffles and shared memory. Everything else in the kernels is ordinary Rust.
//!
//! Shared memory is one dynamic `.extern .shared` array, sized by the host at launch.
//! It is reached through `ld.shared`/`st.shared` with 32-bit shared-window addresses,
//! since a generic pointer made by `cvta` hides the address space from LLVM and every
//! access would go through the slower generic path.

use core::arch::asm;
use core::arch::nvptx;

use crate::dtype::{c64, c128};
use crate::reduce::reduction::Words;

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

#[inline(always)]
pub fn grid_dim_y() -> u32 {
    // SAFETY: as above.
    unsafe { nvptx::_grid_dim_y() as u32 }
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

/// Block-wide barrier that also returns whether `p` held on any thread of the block
/// (`bar.red.or.pred`, CUDA's `__syncthreads_or`). Every thread must reach it.
#[inline(always)]
pub fn sync_threads_or(p: bool) -> bool {
    let r: u32;
    // SAFETY: a barrier with a reduction; callers reach it from uniform control flow.
    unsafe {
        asm!("{{ .reg .pred p, q; setp.ne.u32 p, {x}, 0; bar.red.or.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
             x = in(reg32) p as u32, r = out(reg32) r, options(nostack))
    };
    r != 0
}

/// Address of the dynamic shared array in the shared window, plus `byte_offset`.
#[inline(always)]
pub fn smem_addr(byte_offset: u32) -> u32 {
    let base: u32;
    // SAFETY: takes the address of the module's shared symbol; no memory is touched.
    unsafe { asm!("mov.u32 {b}, gpupy_smem;", b = out(reg32) base, options(pure, nomem, nostack)) };
    base + byte_offset
}

/// A generic pointer to the dynamic shared array plus `byte_offset`, for code that takes
/// ordinary pointers (slower per access than `ld.shared`, still on the SM).
#[inline(always)]
pub fn smem_generic(byte_offset: u32) -> *mut u8 {
    let base: u64;
    // SAFETY: converts the shared symbol's address to the generic window; no memory is
    // touched.
    unsafe {
        asm!("cvta.shared.u64 {b}, gpupy_smem;", b = out(reg64) base, options(pure, nomem, nostack))
    };
    (base + byte_offset as u64) as *mut u8
}

/// Values that move through shared memory.
pub trait Shared: Copy {
    /// # Safety
    /// `addr` is a shared-window address inside the launch's dynamic shared size,
    /// aligned for `Self`.
    unsafe fn st_shared(addr: u32, v: Self);
    /// # Safety
    /// As for `st_shared`.
    unsafe fn ld_shared(addr: u32) -> Self;
}

impl Shared for f32 {
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: f32) {
        // SAFETY: per the trait contract.
        unsafe {
            asm!("st.shared.f32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared(addr: u32) -> f32 {
        let v: f32;
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.f32 {v}, [{a}];", a = in(reg32) addr, v = out(reg32) v, options(nostack, readonly))
        };
        v
    }
}

impl Shared for f64 {
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: f64) {
        // SAFETY: per the trait contract.
        unsafe {
            asm!("st.shared.f64 [{a}], {v};", a = in(reg32) addr, v = in(reg64) v, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared(addr: u32) -> f64 {
        let v: f64;
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.f64 {v}, [{a}];", a = in(reg32) addr, v = out(reg64) v, options(nostack, readonly))
        };
        v
    }
}

/// Complex values as one vector access of their two parts (`$part` the PTX type of a
/// part, `$reg` its register class); aligned to the whole value.
macro_rules! shared_complex {
    ($($t:ident $part:literal $reg:ident $p:ty;)*) => { $(
        impl Shared for $t {
            #[inline(always)]
            unsafe fn st_shared(addr: u32, v: $t) {
                // SAFETY: per the trait contract.
                unsafe {
                    asm!(concat!("st.shared.v2.", $part, " [{a}], {{{x}, {y}}};"), a = in(reg32) addr,
                         x = in($reg) v.re, y = in($reg) v.im, options(nostack))
                }
            }
            #[inline(always)]
            unsafe fn ld_shared(addr: u32) -> $t {
                let (re, im): ($p, $p);
                // SAFETY: per the trait contract.
                unsafe {
                    asm!(concat!("ld.shared.v2.", $part, " {{{x}, {y}}}, [{a}];"), a = in(reg32) addr,
                         x = out($reg) re, y = out($reg) im, options(nostack, readonly))
                };
                $t::new(re, im)
            }
        }
    )* };
}
shared_complex! {
    c64 "f32" reg32 f32;
    c128 "f64" reg64 f64;
}

impl Shared for u64 {
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: u64) {
        // SAFETY: per the trait contract.
        unsafe {
            asm!("st.shared.u64 [{a}], {v};", a = in(reg32) addr, v = in(reg64) v, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared(addr: u32) -> u64 {
        let v: u64;
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.u64 {v}, [{a}];", a = in(reg32) addr, v = out(reg64) v, options(nostack, readonly))
        };
        v
    }
}

impl Shared for u32 {
    #[inline(always)]
    unsafe fn st_shared(addr: u32, v: u32) {
        // SAFETY: per the trait contract.
        unsafe {
            asm!("st.shared.b32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack))
        }
    }
    #[inline(always)]
    unsafe fn ld_shared(addr: u32) -> u32 {
        let v: u32;
        // SAFETY: per the trait contract.
        unsafe {
            asm!("ld.shared.b32 {v}, [{a}];", a = in(reg32) addr, v = out(reg32) v, options(nostack, readonly))
        };
        v
    }
}

/// Warp shuffles of any `Words` value, one 32-bit word at a time (`$instr` is the
/// instruction with its operands); every lane must call them.
macro_rules! shfl_words {
    ($($(#[$doc:meta])* $name:ident => $instr:literal;)*) => { $(
        $(#[$doc])*
        #[inline(always)]
        pub fn $name<T: Words>(v: T, lane_arg: u32) -> T {
            let mut v = v;
            let p = (&mut v as *mut T).cast::<u32>();
            for w in 0..core::mem::size_of::<T>() / 4 {
                let r: u32;
                // SAFETY: T is whole 32-bit words (`Words`), so word w is inside v and
                // aligned; the shuffle is register-only with all 32 lanes taking part.
                unsafe {
                    asm!($instr, r = out(reg32) r, v = in(reg32) *p.add(w), d = in(reg32) lane_arg,
                         options(nostack, nomem));
                    *p.add(w) = r;
                }
            }
            v
        }
    )* };
}

shfl_words! {
    /// `shfl.sync.down`: lane `l` gets lane `l + delta`'s (the top lanes keep theirs).
    shfl_down_words => "shfl.sync.down.b32 {r}, {v}, {d}, 0x1f, 0xffffffff;";
    /// `shfl.sync.up`: lane `l` gets lane `l - delta`'s (lanes below `delta` keep theirs).
    shfl_up_words => "shfl.sync.up.b32 {r}, {v}, {d}, 0, 0xffffffff;";
    /// `shfl.sync.bfly`: lane `l` gets lane `l ^ mask`'s, so a loop over masks 16..1
    /// leaves every lane with the warp's total.
    shfl_xor_words => "shfl.sync.bfly.b32 {r}, {v}, {d}, 0x1f, 0xffffffff;";
    /// `shfl.sync.idx`: every lane gets lane `src`'s.
    shfl_idx_words => "shfl.sync.idx.b32 {r}, {v}, {d}, 0x1f, 0xffffffff;";
}

/// Stores a `Words` value to shared memory, word by word.
///
/// # Safety
/// `addr` is a 4-byte aligned shared-window address with `size_of::<T>()` bytes inside
/// the launch's dynamic shared size.
#[inline(always)]
pub unsafe fn st_shared_words<T: Words>(addr: u32, v: T) {
    let p = (&v as *const T).cast::<u32>();
    for w in 0..core::mem::size_of::<T>() / 4 {
        // SAFETY: word w is inside v (`Words`); the address is in bounds per the contract.
        unsafe { u32::st_shared(addr + 4 * w as u32, *p.add(w)) };
    }
}

/// Loads a `Words` value that `st_shared_words` stored.
///
/// # Safety
/// As for `st_shared_words`, and the words hold a value of `T`.
#[inline(always)]
pub unsafe fn ld_shared_words<T: Words>(addr: u32) -> T {
    let mut v = core::mem::MaybeUninit::<T>::uninit();
    let p = v.as_mut_ptr().cast::<u32>();
    for w in 0..core::mem::size_of::<T>() / 4 {
        // SAFETY: as above; every word of v is written before assume_init.
        unsafe { *p.add(w) = u32::ld_shared(addr + 4 * w as u32) };
    }
    // SAFETY: all words written; the caller stored a T there.
    unsafe { v.assume_init() }
}

/// `for $i in 0..$n { $body }` with the loop written out (`$n` a constant, at most 16), so
/// that every index into a register array is a constant: LLVM's unroller gives up on the
/// larger nests here, and a run-time index sends the array to local memory. Nests
/// multiply the code the compiler sees: keep them shallow. `unroll!(i in 0..n => {..};
/// 0 1 2 3)` writes out only the listed indices, for a generic `n` known to be at most
/// their count (rustc checks constant array indices in the dead branches too).
macro_rules! unroll {
    ($i:ident in 0..$n:expr => $body:block) => {{
        const { assert!($n <= 16) };
        unroll!(@ $i, $n, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    }};
    ($i:ident in 0..$n:expr => $body:block; $($k:literal)*) => {{
        unroll!(@ $i, $n, $body; $($k)*)
    }};
    (@ $i:ident, $n:expr, $body:block; $($k:literal)*) => {{
        $(
            if $k < $n {
                let $i: usize = $k;
                $body
            }
        )*
    }};
}
pub(crate) use unroll;
