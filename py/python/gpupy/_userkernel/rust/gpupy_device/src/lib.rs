//! gpupy's device helpers for Rust user kernels: the pieces of CUDA C that Rust has no
//! words for on `nvptx64-nvidia-cuda`, with the names a CUDA programmer looks for.
//!
//! A kernel compiled by `gpupy.RawModule(code=..., language='rust')` sees all of it through
//! `use gpupy_device::prelude::*;` (gpupy adds that line); a kernel crate of your own
//! depends on this crate by path and does the same.
//!
//! ```ignore
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn saxpy(a: f32, x: *const f32, y: *const f32, out: *mut f32, n: usize) {
//!     for i in grid_stride_range(n) {
//!         unsafe { *out.add(i) = a * *x.add(i) + *y.add(i) };
//!     }
//! }
//! ```
//!
//! - [`index`]: `threadIdx`/`blockIdx`/`blockDim`/`gridDim` (x, y, z), grid-stride loops.
//! - [`sync`]: `__syncthreads` and its counting forms, `__syncwarp`, memory fences.
//! - [`warp`]: lane id, warp shuffles (`__shfl_*_sync`), votes (`__ballot_sync`, ...).
//! - [`atomic`]: `atomicAdd`, `atomicMax`, `atomicCAS`, ... on global (or shared) memory.
//! - [`shared`]: the dynamic shared memory array (`extern __shared__`), sized at launch
//!   by `shared_mem=`, and fixed-size shared arrays (`__shared__ T a[N]`).
//! - [`math`]: CUDA's libdevice math (`sqrtf`, `expf`, `erf`, `lgamma`, ...), as CuPy's
//!   kernels use, for f32, f64 and f16.
//! - [`complex`]: `c64`/`c128`, NumPy's complex64/complex128 layout.
//! - [`half`]: `f16` (Rust's own half type).
//!
//! Conventions (those of gpupy's own kernels): everything is `#[inline(always)]` so a
//! kernel compiles to straight-line PTX; instructions Rust has no intrinsic for are
//! inline PTX (`asm!`); functions that cannot misbehave are safe, those that touch
//! memory through raw pointers are `unsafe` with their contract in a `# Safety` section.
#![no_std]
#![feature(stdarch_nvptx, asm_experimental_arch, f16)]
#![allow(non_camel_case_types)]

pub mod atomic;
pub mod complex;
pub mod half;
pub mod index;
pub mod math;
pub mod shared;
pub mod sync;
pub mod warp;

/// Everything a kernel usually needs, for `use gpupy_device::prelude::*;`.
pub mod prelude {
    pub use crate::atomic::*;
    pub use crate::complex::{c64, c128};
    pub use crate::half::f16;
    pub use crate::index::*;
    pub use crate::math::*;
    pub use crate::shared::*;
    pub use crate::shared_array;
    pub use crate::sync::*;
    pub use crate::warp::*;
    /// `trap()`: ends the kernel with an error the host sees on its next synchronizing
    /// call (CUDA's `__trap`); the context is unusable afterwards (CUDA's rule).
    pub use core::arch::nvptx::trap;
}

/// Version of this crate's API, also part of gpupy's compile-cache key (through a hash
/// of these sources), so a changed helper never serves a stale cached kernel.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
