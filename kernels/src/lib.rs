//! gpupy's GPU kernels, written in Rust and compiled to PTX by rustc's NVPTX backend.
//!
//! The crate has two lives. Built for `nvptx64-nvidia-cuda` (by `host/build.rs`) it is
//! `no_std` and its `entry` points become the PTX module. Built for the host it is an
//! ordinary rlib: the host crate reads the op/dtype tables and the launch structs from
//! it, and `cargo test` checks the scalar semantics of every op on the CPU.
//!
//! Layout: `table` lists every op and dtype once; `ops` gives each op its meaning per
//! dtype; `args` holds the `#[repr(C)]` structs passed by value at launch; `gpu` wraps
//! the few PTX instructions Rust has no words for; `elementwise`, `reduce`, `scan`,
//! `histogram` and `matmul` are the generic kernel bodies; the entry points are stamped out at their ends.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![feature(f16)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)
)]

pub mod args;
pub mod creation;
pub mod dtype;
pub mod gemm;
pub mod histogram;
pub mod index;
pub mod loops;
pub mod mma_layout;
pub mod ops;
pub mod reduction;
pub mod scan;
pub mod search;
pub mod sort;
pub mod svd;
pub mod table;
pub mod wgmma_layout;

#[cfg(target_arch = "nvptx64")]
mod elementwise;
#[cfg(target_arch = "nvptx64")]
mod gpu;
#[cfg(target_arch = "nvptx64")]
mod matmul;
#[cfg(target_arch = "nvptx64")]
mod mma;
#[cfg(target_arch = "nvptx64")]
mod reduce;
#[cfg(target_arch = "nvptx64")]
mod wgmma;

/// A panic on the GPU cannot unwind: stop the kernel with `trap`, which the host sees as
/// a launch failure on the next synchronizing call.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` only ends the kernel.
    unsafe { core::arch::nvptx::trap() }
}
