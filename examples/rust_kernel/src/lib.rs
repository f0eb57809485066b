//! Two example kernels for gpupy, built ahead of time to PTX by `build.sh` and loaded
//! with `gpupy.RawModule(path="saxpy.ptx")`: CuPy's tutorial `saxpy` and `add_arrays`,
//! in Rust.
//!
//! Kernel parameters map to the launch's `args` tuple in order: a gpupy array arrives
//! as a device pointer (`*const T` / `*mut T`), a NumPy scalar as its own type
//! (`np.float32` -> `f32`), a Python `int` as `i64` (8 bytes, so a `usize` parameter
//! reads a non-negative one unchanged), a Python `float` as `f64`.
#![no_std]
// abi_ptx: `extern "ptx-kernel"`; stdarch_nvptx: `trap`. A crate with inline PTX
// (`asm!`, `shared_array!`) adds `asm_experimental_arch`, one with `f16` adds `f16`.
#![feature(abi_ptx, stdarch_nvptx)]

use gpupy_device::prelude::*;

/// `out[i] = a * x[i] + y[i]` for `i < n`, any grid size (a grid-stride loop).
///
/// # Safety
/// `x`, `y` and `out` are device pointers to at least `n` float32 elements.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn saxpy(
    a: f32,
    x: *const f32,
    y: *const f32,
    out: *mut f32,
    n: usize,
) {
    for i in grid_stride_range(n) {
        // SAFETY: i < n, and the pointers cover n elements (the contract).
        unsafe { *out.add(i) = a * *x.add(i) + *y.add(i) };
    }
}

/// `y[i] = x1[i] + x2[i]` for `i < n`, one element per thread: launch at least `n`
/// threads (`blocks = (n + threads - 1) // threads`).
///
/// # Safety
/// `x1`, `x2` and `y` are device pointers to at least `n` float32 elements.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn add_arrays(
    x1: *const f32,
    x2: *const f32,
    y: *mut f32,
    n: usize,
) {
    let i = global_thread_idx();
    if i < n {
        // SAFETY: as above.
        unsafe { *y.add(i) = *x1.add(i) + *x2.add(i) };
    }
}

/// A panic cannot unwind on the GPU: stop the kernel; the host sees the launch fail at
/// its next synchronizing call.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` only ends the kernel.
    unsafe { trap() }
}
