//! Shared memory: the block's on-chip scratch space.
//!
//! **Dynamic** (CUDA's `extern __shared__ T buf[];`): one array per module, whose size in
//! bytes is the launch's `shared_mem=` (`kernel(grid, block, args, shared_mem=n)`);
//! [`shared_ptr`] gives a pointer to its start, 16-byte aligned. Reading past `shared_mem`
//! bytes is out of bounds (a launch failure, or another block's data).
//!
//! **Fixed-size** (CUDA's `__shared__ T buf[N];`): [`shared_array!`](crate::shared_array)
//! declares one in the module and gives a pointer to it; its size counts toward the
//! kernel's static shared memory, with no `shared_mem=` needed.
//!
//! Both pointers are generic addresses (what Rust's `*mut T` holds), so ordinary
//! pointer code and the atomics work on them. Each access then goes through the generic
//! path (the hardware checks the address window); the hottest loops can use
//! [`ld_shared`]/[`st_shared`] with 32-bit shared-window addresses ([`shared_addr`]),
//! which compile to `ld.shared`/`st.shared` as gpupy's own reductions do.

use core::arch::asm;

// The dynamic array: `.extern` with no size, so the launch's dynamic size applies. One
// declaration for the whole module (this crate is linked into every user module once).
core::arch::global_asm!(".extern .shared .align 16 .b8 gpupy_dyn_smem[];");

/// A pointer to the start of the dynamic shared array, as `*mut T` (CUDA's
/// `extern __shared__ T buf[];`). Its size is the launch's `shared_mem=` in bytes;
/// alignment is 16 bytes.
#[inline(always)]
pub fn shared_ptr<T>() -> *mut T {
    let p: u64;
    // SAFETY: converts the shared symbol's address to the generic window; no memory is
    // touched.
    unsafe {
        asm!("cvta.shared.u64 {p}, gpupy_dyn_smem;", p = out(reg64) p, options(pure, nomem, nostack))
    };
    p as *mut T
}

/// The shared-window address of the dynamic shared array plus `byte_offset`, for
/// [`ld_shared`]/[`st_shared`].
#[inline(always)]
pub fn shared_addr(byte_offset: u32) -> u32 {
    let base: u32;
    // SAFETY: takes the address of the shared symbol; no memory is touched.
    unsafe {
        asm!("mov.u32 {b}, gpupy_dyn_smem;", b = out(reg32) base, options(pure, nomem, nostack))
    };
    base + byte_offset
}

/// Values [`ld_shared`]/[`st_shared`] move: 32- and 64-bit integers and floats.
pub trait SharedValue: Copy {
    /// # Safety
    /// As [`ld_shared`].
    unsafe fn ld(addr: u32) -> Self;
    /// # Safety
    /// As [`st_shared`].
    unsafe fn st(addr: u32, v: Self);
}

macro_rules! shared_value {
    ($($t:ty: $ptx:literal $reg:ident;)*) => { $(
        impl SharedValue for $t {
            #[inline(always)]
            unsafe fn ld(addr: u32) -> $t {
                let v: $t;
                // SAFETY: the caller's contract.
                unsafe {
                    asm!(concat!("ld.shared.", $ptx, " {v}, [{a}];"), a = in(reg32) addr,
                         v = out($reg) v, options(nostack, readonly))
                };
                v
            }
            #[inline(always)]
            unsafe fn st(addr: u32, v: $t) {
                // SAFETY: the caller's contract.
                unsafe {
                    asm!(concat!("st.shared.", $ptx, " [{a}], {v};"), a = in(reg32) addr,
                         v = in($reg) v, options(nostack))
                }
            }
        }
    )* };
}
shared_value! {
    u32: "b32" reg32;
    i32: "b32" reg32;
    f32: "f32" reg32;
    u64: "b64" reg64;
    i64: "b64" reg64;
    f64: "f64" reg64;
}

/// Loads a `T` from shared-window address `addr` (`ld.shared`).
///
/// # Safety
/// `addr` is aligned for `T` and lies, with `size_of::<T>()` bytes, inside the launch's
/// dynamic shared size (for [`shared_addr`]) or a [`shared_array!`](crate::shared_array).
#[inline(always)]
pub unsafe fn ld_shared<T: SharedValue>(addr: u32) -> T {
    // SAFETY: forwarded contract.
    unsafe { T::ld(addr) }
}

/// Stores `v` at shared-window address `addr` (`st.shared`).
///
/// # Safety
/// As [`ld_shared`].
#[inline(always)]
pub unsafe fn st_shared<T: SharedValue>(addr: u32, v: T) {
    // SAFETY: forwarded contract.
    unsafe { T::st(addr, v) }
}

/// A fixed-size shared array, CUDA's `__shared__ T NAME[N];`: declares it in the module
/// and evaluates to a `*mut T` to its first element. Every block gets its own copy; its
/// size counts toward the kernel's static shared memory (48 KiB at most with the dynamic
/// part). `T` and `N` must be concrete (not generic parameters), and `NAME` unique in the
/// module: each use declares the array once.
///
/// ```ignore
/// let tile: *mut f32 = shared_array!(tile: [f32; 256]);
/// unsafe { *tile.add(thread_idx_x() as usize) = v };
/// sync_threads();
/// ```
#[macro_export]
macro_rules! shared_array {
    ($name:ident : [$t:ty; $n:expr]) => {{
        ::core::arch::global_asm!(
            concat!(".shared .align {align} .b8 ", stringify!($name), "[{bytes}];"),
            align = const if ::core::mem::align_of::<$t>() < 4 { 4 } else { ::core::mem::align_of::<$t>() },
            bytes = const ::core::mem::size_of::<[$t; $n]>(),
        );
        let p: u64;
        // SAFETY: converts the array's shared address to the generic window; no memory
        // is touched.
        unsafe {
            ::core::arch::asm!(
                concat!("cvta.shared.u64 {p}, ", stringify!($name), ";"),
                p = out(reg64) p,
                options(pure, nomem, nostack)
            )
        };
        p as *mut $t
    }};
}
