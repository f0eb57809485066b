//! Arrays computed from a few numbers: `arange`'s arithmetic sequence (one kernel,
//! `kernels/src/elementwise/arange.rs`). Shapes and dtypes are decided by the caller, as NumPy does
//! it in Python objects; this launches the fill.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::{BLOCK, grid_for};

/// A new 1-D array of `n` elements: `first`, `second`, then NumPy's `fill` continuation
/// `first + i * (second - first)` in `dtype`'s arithmetic. `first` and `second` are
/// the dtype's little-endian bytes. NumPy has no fill for bool: more than two elements
/// of bool is its TypeError.
pub fn arange(
    device: &'static Device,
    n: usize,
    dtype: DType,
    first: &[u8],
    second: &[u8],
) -> Result<Array> {
    for bytes in [first, second] {
        if bytes.len() != dtype.itemsize() {
            return Err(Error::Value(format!(
                "a {} value has {} bytes, got {}",
                dtype.name(),
                dtype.itemsize(),
                bytes.len()
            )));
        }
    }
    if dtype == DType::Bool && n > 2 {
        return Err(Error::Type(
            "arange() is only supported for booleans when the result has at most length 2.".into(),
        ));
    }
    let out = Array::empty(device, &[n], dtype)?;
    if n == 0 {
        return Ok(out);
    }
    if dtype == DType::Bool {
        // Two elements at most: both given.
        let bytes = [first[0], second[0]];
        return Array::from_host(device, &bytes[..n], &[n], dtype);
    }
    let kernel = gpupy_kernels::elementwise::arange(dtype as usize)
        .ok_or_else(|| Error::Type(format!("arange has no kernel for {}", dtype.name())))?;
    let len = n as u64;
    // (out, n, first, second): the items are one element of the kernel's type each;
    // out holds n elements.
    Launch::new(device, kernel)?
        .grid(grid_for(device, len))
        .block(BLOCK)
        .arg(out.data_ptr())
        .arg(len)
        .arg_bytes(first)
        .arg_bytes(second)
        .run()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use gpupy_kernels::elementwise::{KERNELS, arange};

    use crate::dtype::DType;

    #[test]
    fn every_dtype_but_bool_has_an_arange_kernel() {
        for d in DType::ALL {
            let k = arange(d as usize);
            assert_eq!(
                k.is_none(),
                matches!(d, DType::Bool | DType::BFloat16),
                "{d:?}"
            );
        }
        let k = arange(DType::Complex128 as usize).unwrap();
        assert_eq!(KERNELS[k.index as usize], "gpupy_arange_c128");
    }
}
