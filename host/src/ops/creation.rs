//! Arrays computed from a few numbers: `arange`'s arithmetic sequence (one kernel,
//! `kernels/src/creation.rs`). Shapes and dtypes are decided by the caller, as NumPy does
//! it in Python objects; this launches the fill.

use super::{BLOCK, arg, grid_for};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::module::launch;

/// One element of any dtype as a kernel parameter (cuLaunchKernel reads as many bytes
/// as the parameter's type has).
#[repr(C, align(16))]
struct Item([u8; 16]);

impl Item {
    fn new(dtype: DType, bytes: &[u8]) -> Result<Item> {
        if bytes.len() != dtype.itemsize() {
            return Err(Error::Value(format!(
                "a {} value has {} bytes, got {}",
                dtype.name(),
                dtype.itemsize(),
                bytes.len()
            )));
        }
        let mut item = Item([0; 16]);
        item.0[..bytes.len()].copy_from_slice(bytes);
        Ok(item)
    }
}

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
    let mut a = Item::new(dtype, first)?;
    let mut b = Item::new(dtype, second)?;
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
        let bytes = [a.0[0], b.0[0]];
        return Array::from_host(device, &bytes[..n], &[n], dtype);
    }
    let name = format!("gpupy_arange_{}", kernel_type(dtype));
    let f = device.kernels()?.function(&name)?;
    device.bind()?;
    let (mut ptr, mut len) = (out.data_ptr(), n as u64);
    // SAFETY: (out, n, first, second) is the arange kernel's parameter list: the items
    // hold one element of the kernel's type each; out holds n elements.
    unsafe {
        launch(
            f,
            (grid_for(device, len), 1, 1),
            BLOCK,
            0,
            &mut [arg(&mut ptr), arg(&mut len), arg(&mut a.0), arg(&mut b.0)],
        )?;
    }
    Ok(out)
}

/// The kernels' name for a dtype's element type.
fn kernel_type(d: DType) -> &'static str {
    gpupy_kernels::loops::DTYPE_NAMES[d as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names_follow_the_dtype_table() {
        assert_eq!(kernel_type(DType::Float16), "f16");
        assert_eq!(kernel_type(DType::UInt64), "u64");
        assert_eq!(kernel_type(DType::Complex128), "c128");
    }

    #[test]
    fn items_check_their_size() {
        assert!(Item::new(DType::Float32, &[0; 4]).is_ok());
        assert!(Item::new(DType::Float32, &[0; 8]).is_err());
    }
}
