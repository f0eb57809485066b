//! One function per operation, one folder per kernel family (the same families as
//! `kernels/src/`): `elementwise` (ufuncs, casts, copies, fills, `arange`), `reduce`,
//! `measure`, `interpolate`, `iir`, `sparse`. Each function checks its inputs (dtypes,
//! shapes, devices), picks a kernel by its registry handle and a launch size, and
//! launches through `launch::Launch`. Kernels assume what these functions check: every
//! offset a launch can produce lies inside its buffer, which holds because every
//! `Array` layout fits its buffer (see `layout`).

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

use gpupy_kernels::args::{MAX_DIMS, Strided};

use crate::device::Device;
use crate::error::{Error, Result};
use crate::layout::coalesce;

/// Threads per block of the elementwise and reduction kernels.
pub(crate) const BLOCK: u32 = 256;

/// Blocks for a grid-stride kernel over `work` items: enough to fill every SM (2048
/// resident threads each) and no more, since the loop covers the rest.
pub(crate) fn grid_for(device: &Device, work: u64) -> u32 {
    let full = device.props.multi_processor_count.max(1) as u64 * (2048 / BLOCK as u64);
    work.div_ceil(BLOCK as u64).clamp(1, full) as u32
}

/// Blocks for an elementwise kernel over `work` items: one item per thread up to 32
/// waves of a full GPU. A grid of exactly one full wave loses a large tail whenever a
/// kernel's registers allow fewer resident blocks than assumed (6 of 8 per SM leaves a
/// second wave a third full); with many small blocks the tail is a few percent at most.
pub(crate) fn elementwise_grid(device: &Device, work: u64) -> u32 {
    let waves = device.props.multi_processor_count.max(1) as u64 * (2048 / BLOCK as u64) * 32;
    work.div_ceil(BLOCK as u64).clamp(1, waves) as u32
}

/// Launch arguments for a strided kernel over `shape`, one stride list per operand (in
/// elements, C order), walked in C order: for kernels whose output depends on the order
/// (compaction). Axes are merged where every operand allows and handed to the kernel
/// innermost first.
pub(crate) fn strided_args<const N: usize>(
    shape: &[usize],
    strides: [&[isize]; N],
) -> Result<Strided<N>> {
    let (shape, strides) = coalesce(shape, strides);
    let inner_first: Vec<u64> = shape.iter().rev().map(|&n| n as u64).collect();
    let strides: [Vec<i64>; N] =
        std::array::from_fn(|k| strides[k].iter().rev().map(|&s| s as i64).collect());
    Strided::new(&inner_first, std::array::from_fn(|k| strides[k].as_slice())).ok_or_else(|| {
        Error::Value(format!(
            "gpupy's kernels take at most {MAX_DIMS} dimensions after merging contiguous axes, got {}; \
             make the array contiguous first (gpupy.ascontiguousarray)",
            shape.len()
        ))
    })
}

/// `strided_args` for elementwise kernels, where each element is independent: the axes
/// are walked in the first operand's memory order (the destination's), so its accesses
/// coalesce whatever its layout (an F-ordered output is written in F order).
pub(crate) fn elementwise_args<const N: usize>(
    shape: &[usize],
    strides: [&[isize]; N],
) -> Result<Strided<N>> {
    let mut order: Vec<usize> = (0..shape.len()).collect();
    order.sort_by_key(|&a| std::cmp::Reverse(strides[0][a].unsigned_abs()));
    let shape: Vec<usize> = order.iter().map(|&a| shape[a]).collect();
    let permuted: [Vec<isize>; N] =
        std::array::from_fn(|k| order.iter().map(|&a| strides[k][a]).collect());
    strided_args(&shape, std::array::from_fn(|k| permuted[k].as_slice()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_args_are_innermost_first() {
        // A transposed 3x4 view against a contiguous output: no axes merge.
        let a = strided_args(&[4, 3], [&[3, 1], &[1, 4]]).unwrap();
        assert_eq!((a.len, a.ndim), (12, 2));
        assert_eq!(&a.shape[..2], &[3, 4]);
        assert_eq!(&a.strides[0][..2], &[1, 3]);
        assert_eq!(&a.strides[1][..2], &[4, 1]);
        // An F-ordered destination is walked in its own memory order.
        let f = elementwise_args(&[4, 3], [&[1, 4], &[3, 1]]).unwrap();
        assert_eq!(&f.shape[..2], &[4, 3]);
        assert_eq!(&f.strides[0][..2], &[1, 4]);
        assert_eq!(&f.strides[1][..2], &[3, 1]);
        let scalar = strided_args::<1>(&[], [&[]]).unwrap();
        assert_eq!((scalar.len, scalar.ndim), (1, 0));
    }
}
