//! Memory made by other libraries as gpupy arrays: the checks and the layout arithmetic
//! of `__cuda_array_interface__` and DLPack imports (the bindings parse the protocols'
//! dicts and capsules; what they describe is checked here, before any kernel can see
//! it).
//!
//! A foreign array is a pointer to element (0, ..., 0), a shape and strides, any of them
//! negative. Its memory is the span from the lowest to the highest element it reaches;
//! that span must be one allocation of the current device (the driver's own record of
//! the pointer), aligned for the dtype, with strides in whole items. The owner object
//! stays alive as long as any gpupy view of the memory.

use std::any::Any;

use cudarc::driver::sys;

use crate::array::Array;
use crate::buffer::Buffer;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;

/// The memory span and element layout of a foreign array.
#[derive(Debug, PartialEq)]
pub struct Span {
    /// The address of the lowest byte the array reaches.
    pub base: u64,
    /// Bytes from `base` to the end of the highest element (0 for zero-size arrays).
    pub bytes: usize,
    /// Element strides and the offset of element (0, ..., 0) from `base`.
    pub layout: Layout,
}

/// The span of an array at `ptr` of `shape` with byte strides `strides` (C-contiguous
/// when `None`) and items of `itemsize` bytes that must sit at multiples of `align`.
pub fn span(
    ptr: u64,
    shape: &[usize],
    strides: Option<&[i64]>,
    itemsize: usize,
    align: usize,
) -> Result<Span> {
    let item = itemsize as i64;
    let count = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .filter(|&n| {
            n.checked_mul(itemsize)
                .is_some_and(|b| b <= isize::MAX as usize)
        })
        .ok_or_else(|| Error::Value(format!("the shape {shape:?} is too large")))?;
    let strides: Vec<i64> = match strides {
        None => Layout::contiguous(shape)
            .strides
            .iter()
            .map(|&s| s as i64 * item)
            .collect(),
        Some(s) if s.len() != shape.len() => {
            return Err(Error::Value(format!(
                "{} strides for a shape of {} dimensions",
                s.len(),
                shape.len()
            )));
        }
        Some(s) => s.to_vec(),
    };
    if count == 0 {
        return Ok(Span {
            base: ptr,
            bytes: 0,
            layout: Layout::contiguous(shape),
        });
    }
    if !ptr.is_multiple_of(align.max(1) as u64) {
        return Err(Error::Value(format!(
            "the data pointer {ptr:#x} is not aligned to {align} bytes, as its dtype needs"
        )));
    }
    if let Some(s) = strides.iter().find(|&&s| s % item != 0) {
        return Err(Error::Value(format!(
            "the stride {s} is not a multiple of the item size {itemsize}"
        )));
    }
    // Byte reach below and above element (0, ..., 0); in i128, so no product overflows.
    let (mut low, mut high) = (0i128, 0i128);
    for (&n, &s) in shape.iter().zip(&strides) {
        let reach = (n as i128 - 1) * s as i128;
        if reach < 0 {
            low += reach;
        } else {
            high += reach;
        }
    }
    let base = ptr as i128 + low;
    let bytes = high - low + item as i128;
    if base < 0 || base + bytes > u64::MAX as i128 || bytes > isize::MAX as i128 {
        return Err(Error::Value(
            "the array's strides reach outside the address space".into(),
        ));
    }
    Ok(Span {
        base: base as u64,
        bytes: bytes as usize,
        layout: Layout {
            shape: shape.to_vec(),
            strides: strides.iter().map(|&s| (s / item) as isize).collect(),
            offset: (-low / item as i128) as usize,
        },
    })
}

/// One attribute of the allocation holding `ptr`, as the driver records it.
fn pointer_attribute<T: Default>(attribute: sys::CUpointer_attribute, ptr: u64) -> Option<T> {
    let mut value = T::default();
    // SAFETY: the driver writes one value of the attribute's type (`T`, chosen by the
    // callers to match: int for the ordinal, CUdeviceptr and size_t for the range).
    let r = unsafe { sys::cuPointerGetAttribute((&raw mut value).cast(), attribute, ptr) };
    (r == sys::CUresult::CUDA_SUCCESS).then_some(value)
}

/// Checks that `span` lies inside one allocation of `device` that the driver knows.
pub fn check_memory(device: &Device, span: &Span) -> Result<()> {
    if span.bytes == 0 {
        return Ok(());
    }
    device.bind()?;
    use sys::CUpointer_attribute::*;
    let ordinal = pointer_attribute::<i32>(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, span.base)
        .ok_or_else(|| {
            Error::Value(format!(
                "the pointer {:#x} is not CUDA memory the driver knows",
                span.base
            ))
        })?;
    if ordinal as usize != device.id {
        return Err(Error::Value(format!(
            "the array is on device {ordinal}, but the current device is {}",
            device.id
        )));
    }
    let start = pointer_attribute::<u64>(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, span.base);
    let size = pointer_attribute::<usize>(CU_POINTER_ATTRIBUTE_RANGE_SIZE, span.base);
    if let (Some(start), Some(size)) = (start, size)
        && span.base + span.bytes as u64 > start + size as u64
    {
        return Err(Error::Value(format!(
            "the array reaches {} bytes from {:#x}, past the end of its allocation ({size} bytes from {start:#x})",
            span.bytes, span.base
        )));
    }
    Ok(())
}

/// A gpupy array over a foreign `span` of `dtype` items, keeping `owner` alive; the span
/// is checked against the driver's record first.
///
/// # Safety
/// `owner` keeps the memory of `span` allocated (and unchanged in place) while it lives;
/// the memory may be written through the array unless the caller forbids writes.
pub unsafe fn import(
    device: &'static Device,
    span: Span,
    dtype: DType,
    owner: Box<dyn Any + Send + Sync>,
) -> Result<Array> {
    if span.bytes == 0 {
        return Array::empty(device, &span.layout.shape, dtype);
    }
    check_memory(device, &span)?;
    // SAFETY: the range is one allocation of this device (checked above) that `owner`
    // keeps (the caller's contract).
    let buffer = unsafe { Buffer::foreign(device, span.base, span.bytes, owner) };
    Array::from_buffer(buffer, span.layout, dtype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_and_strided_spans() {
        let s = span(4096, &[2, 3], None, 4, 4).unwrap();
        assert_eq!((s.base, s.bytes), (4096, 24));
        assert_eq!((s.layout.strides.clone(), s.layout.offset), (vec![3, 1], 0));
        // A transposed view: strides (4, 12).
        let s = span(4096, &[3, 2], Some(&[4, 12]), 4, 4).unwrap();
        assert_eq!((s.base, s.bytes), (4096, 24));
        assert_eq!(s.layout.strides, vec![1, 3]);
    }

    #[test]
    fn negative_and_zero_strides_reach_below_the_pointer() {
        // x[::-1] of 5 float64 starting at the last element.
        let s = span(8000 + 32, &[5], Some(&[-8]), 8, 8).unwrap();
        assert_eq!((s.base, s.bytes, s.layout.offset), (8000, 40, 4));
        assert_eq!(s.layout.strides, vec![-1]);
        let s = span(8000, &[4, 3], Some(&[0, 8]), 8, 8).unwrap();
        assert_eq!(
            (s.base, s.bytes, s.layout.strides.clone()),
            (8000, 24, vec![0, 1])
        );
    }

    #[test]
    fn zero_size_needs_no_memory() {
        let s = span(0, &[3, 0], None, 8, 8).unwrap();
        assert_eq!(s.bytes, 0);
    }

    #[test]
    fn bad_descriptions_are_value_errors() {
        let msg = |r: Result<Span>| match r {
            Err(Error::Value(m)) => m,
            other => panic!("expected a ValueError, got {other:?}"),
        };
        assert!(msg(span(4097, &[2], None, 8, 8)).contains("aligned"));
        assert!(msg(span(4096, &[2], Some(&[6]), 8, 8)).contains("multiple"));
        assert!(msg(span(4096, &[2, 2], Some(&[8]), 8, 8)).contains("strides"));
        assert!(msg(span(8, &[3], Some(&[-8]), 8, 8)).contains("address space"));
        assert!(msg(span(0, &[usize::MAX, 2], None, 8, 8)).contains("too large"));
    }
}
