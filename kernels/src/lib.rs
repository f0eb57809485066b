//! gpupy's GPU kernels, written in Rust and compiled to PTX by rustc's NVPTX backend.
//!
//! The crate has two lives. Built for `nvptx64-nvidia-cuda` (by `host/build.rs`, once
//! per module with that module's cargo feature) it is `no_std` and the chosen family's
//! entry points become one PTX module. Built for the host it is an ordinary rlib: the
//! host reads the registry, the op/dtype tables and the launch structs from it, and
//! `cargo test` checks the meaning of every op on the CPU.
//!
//! Layout: one folder per kernel family (`elementwise`, `reduce`, `scan`, `sort`,
//! `index`, `histogram`, `matmul`, `linalg`, `random`, `fft`, `filters`, `measure`,
//! `interpolate`, `iir`, `sparse`), each with its meaning (plain Rust, tested on the CPU),
//! a `gpu` engine (GPU only) and, in its `mod.rs`, its kernel table and
//! handles. Shared by all: `registry` (modules, handles) and `modules` (the list of
//! modules), `table`/`loops` (the op lists), `dtype`, `fused` (multiply-adds rounded once on both engines), `args` (the
//! `#[repr(C)]` launch structs) and `gpu` (device helpers: thread indices, shuffles, shared memory, `unroll!`).
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![feature(f16)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)
)]

pub mod args;
pub mod dtype;
pub mod fused;
pub mod loops;
pub mod modules;
pub mod registry;
pub mod table;

pub mod elementwise;
pub mod fft;
pub mod filters;
pub mod histogram;
pub mod iir;
pub mod index;
pub mod interpolate;
pub mod linalg;
pub mod matmul;
pub mod measure;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod sort;
pub mod sparse;

#[cfg(target_arch = "nvptx64")]
mod gpu;

/// A panic on the GPU cannot unwind: stop the kernel with `trap`, which the host sees as
/// a launch failure on the next synchronizing call.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` only ends the kernel.
    unsafe { core::arch::nvptx::trap() }
}
