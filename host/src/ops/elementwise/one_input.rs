//! The launches of one-input kernels (unary loops, casts, copies), shared by the ufuncs,
//! the casts and the copies: packed contiguous, and strided.

use gpupy_kernels::registry::Kernel;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::launch::Launch;
use crate::ops::{BLOCK, elementwise_args, elementwise_grid};

/// `kernel(a, out, n)` over `n` contiguous elements of `a` (dtype `from`) into `out`
/// (dtype `to`): the kernel moves 16-byte packs of the wider item, so the grid covers
/// `n / lanes` packs.
pub(crate) fn launch_contig(
    device: &Device,
    kernel: Kernel,
    a: u64,
    out: u64,
    n: u64,
    from: DType,
    to: DType,
) -> Result<()> {
    let lanes = (16 / from.itemsize().max(to.itemsize())).max(1) as u64;
    // (a, out, n): both arrays hold n elements.
    Launch::new(device, kernel)?
        .grid(elementwise_grid(device, n.div_ceil(lanes)))
        .block(BLOCK)
        .arg(a)
        .arg(out)
        .arg(n)
        .run()
}

/// `kernel(Strided<2>, src, dst)` over `dst`'s shape, `src` broadcast to it: the strided
/// variant of a unary loop, a cast or a copy.
pub(crate) fn launch_strided(
    device: &Device,
    kernel: Kernel,
    src: &Array,
    dst: &Array,
) -> Result<()> {
    let args = elementwise_args(dst.shape(), [&dst.layout().strides, &src.layout().strides])?;
    // (Strided<2>, src, dst): both layouts fit their buffers, so every offset from
    // `args` is in bounds.
    Launch::new(device, kernel)?
        .grid(elementwise_grid(device, args.len))
        .block(BLOCK)
        .arg(args)
        .arg(src.data_ptr())
        .arg(dst.data_ptr())
        .run()
}
