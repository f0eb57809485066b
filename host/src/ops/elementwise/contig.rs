//! The launch of a packed contiguous kernel of one input (unary loops and casts), shared
//! by the ufuncs and the casts.

use gpupy_kernels::registry::Kernel;

use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::launch::Launch;
use crate::ops::{BLOCK, elementwise_grid};

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
