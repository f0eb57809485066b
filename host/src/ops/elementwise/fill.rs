//! Filling arrays with one value.

use cudarc::driver::result;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result, check};
use crate::launch::Launch;
use crate::ops::{BLOCK, elementwise_grid};
use crate::table::size_index;
use gpupy_kernels as kernels;

/// A new array of `shape` with every element equal to `value`, given as the dtype's
/// little-endian bytes (so this needs no per-dtype code).
pub fn full(device: &'static Device, shape: &[usize], dtype: DType, value: &[u8]) -> Result<Array> {
    let out = Array::empty(device, shape, dtype)?;
    fill(&out, value)?;
    Ok(out)
}

/// Sets every element of the C-contiguous array `out` to `value` (the dtype's bytes).
pub fn fill(out: &Array, value: &[u8]) -> Result<()> {
    let itemsize = out.dtype().itemsize();
    if value.len() != itemsize {
        return Err(Error::Value(format!(
            "fill value has {} bytes, {} needs {itemsize}",
            value.len(),
            out.dtype().name()
        )));
    }
    if !out.layout().is_c_contiguous() {
        let tmp = full(out.device(), out.shape(), out.dtype(), value)?;
        return super::copy::copy_into(&tmp, out);
    }
    if out.size() == 0 {
        return Ok(());
    }
    let device = out.device();
    device.bind()?;
    if value.iter().all(|&b| b == value[0]) {
        // SAFETY: the range is nbytes long inside the array's block.
        return check("cuMemsetD8Async", unsafe {
            let stream = crate::stream::current(device).0;
            result::memset_d8_async(out.data_ptr(), value[0], out.nbytes(), stream)
        });
    }
    let n = out.size() as u64;
    let kernel = kernels::elementwise::mover(size_index(itemsize), true);
    // (out, n, value): out holds n elements; the value is one item.
    Launch::new(device, kernel)?
        .grid(elementwise_grid(device, n.div_ceil(16 / itemsize as u64)))
        .block(BLOCK)
        .arg(out.data_ptr())
        .arg(n)
        .arg_bytes(value)
        .run()
}
