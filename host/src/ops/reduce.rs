//! Reductions. `sum` of a whole array in two launches of one kernel: blocks reduce
//! grid-stride shares to partials, then one block reduces the partials.

use super::copy::contiguous;
use super::{arg, grid_for};
use crate::array::Array;
use crate::error::Result;
use crate::module::{float_index, launch};

/// Threads per reduction block; each block leaves one partial.
const REDUCE_BLOCK: u32 = 512;

/// The sum of all elements, as a 0-d array of `a`'s dtype (CuPy returns a 0-d array too).
pub fn sum(a: &Array) -> Result<Array> {
    float_index(a.dtype(), "sum")?;
    let device = a.device();
    let out = Array::empty(device, &[], a.dtype())?;
    if a.size() == 0 {
        super::fill::fill(&out, &vec![0u8; a.dtype().itemsize()])?;
        return Ok(out);
    }
    // The kernel reads 16-byte packs from a contiguous, aligned start.
    let src = contiguous(a)?;
    let f = device.kernels()?.sum(a.dtype())?;
    device.bind()?;
    let lanes = (16 / a.dtype().itemsize()) as u64;
    let n = src.size() as u64;
    // `grid_for` sizes for BLOCK-thread blocks; these are twice as large, so halve it.
    let blocks = grid_for(device, n.div_ceil(lanes)).div_ceil(REDUCE_BLOCK / super::BLOCK);
    let shared = REDUCE_BLOCK / 32 * a.dtype().itemsize() as u32;
    let run = |x: &Array, n: u64, blocks: u32, dst: &Array| -> Result<()> {
        let (mut x, mut n, mut d) = (x.data_ptr(), n, dst.data_ptr());
        // SAFETY: (x, n, partials) is the sum kernel's parameter list: x holds n aligned
        // elements, partials one slot per block; `shared` covers one value per warp.
        unsafe {
            launch(
                f,
                (blocks, 1, 1),
                REDUCE_BLOCK,
                shared,
                &mut [arg(&mut x), arg(&mut n), arg(&mut d)],
            )
        }
    };
    if blocks == 1 {
        run(&src, n, 1, &out)?;
    } else {
        let partials = Array::empty(device, &[blocks as usize], a.dtype())?;
        run(&src, n, blocks, &partials)?;
        run(&partials, blocks as u64, 1, &out)?;
    }
    Ok(out)
}
