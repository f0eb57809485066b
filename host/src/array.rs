//! The N-d strided array: a dtype and a layout over a shared device buffer. Views share
//! the buffer (`Arc`); the last one dropped returns the block to the pool.

use std::sync::Arc;

use crate::buffer::Buffer;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{Index, Layout};

#[derive(Clone)]
pub struct Array {
    buffer: Arc<Buffer>,
    layout: Layout,
    dtype: DType,
}

impl Array {
    /// An uninitialized C-contiguous array.
    pub fn empty(device: &'static Device, shape: &[usize], dtype: DType) -> Result<Array> {
        let size = checked_size(shape, dtype)?;
        let buffer = Buffer::alloc(device, size * dtype.itemsize())?;
        Ok(Array {
            buffer: Arc::new(buffer),
            layout: Layout::contiguous(shape),
            dtype,
        })
    }

    /// An uninitialized array with a dense layout at offset 0 (any axis order).
    pub fn empty_with(device: &'static Device, layout: Layout, dtype: DType) -> Result<Array> {
        if layout.offset != 0 || !layout.is_dense() {
            return Err(Error::Value(
                "empty_with needs a dense layout at offset 0".into(),
            ));
        }
        let size = checked_size(&layout.shape, dtype)?;
        let buffer = Buffer::alloc(device, size * dtype.itemsize())?;
        Ok(Array {
            buffer: Arc::new(buffer),
            layout,
            dtype,
        })
    }

    /// An array over memory that belongs to someone else (see `interop.rs`); fails if
    /// the layout reaches outside `buffer`.
    pub fn from_buffer(buffer: Buffer, layout: Layout, dtype: DType) -> Result<Array> {
        if !layout.fits(buffer.bytes() / dtype.itemsize()) {
            return Err(Error::Value(
                "the array reaches outside the memory it was given".into(),
            ));
        }
        Ok(Array {
            buffer: Arc::new(buffer),
            layout,
            dtype,
        })
    }

    /// A view of the same buffer with another layout (and possibly another dtype of the
    /// same item size). Fails if the layout reaches outside the buffer.
    pub fn view(&self, layout: Layout, dtype: DType) -> Result<Array> {
        if !layout.fits(self.buffer.bytes() / dtype.itemsize()) {
            return Err(Error::Value(
                "view reaches outside the array's memory".into(),
            ));
        }
        Ok(Array {
            buffer: self.buffer.clone(),
            layout,
            dtype,
        })
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn dtype(&self) -> DType {
        self.dtype
    }
    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.itemsize()
    }
    pub fn device(&self) -> &'static Device {
        self.buffer.device()
    }
    /// Byte strides, as NumPy reports them.
    pub fn strides_bytes(&self) -> Vec<isize> {
        self.layout
            .strides
            .iter()
            .map(|s| s * self.dtype.itemsize() as isize)
            .collect()
    }
    /// Device address of element (0, ..., 0).
    pub fn data_ptr(&self) -> u64 {
        self.buffer.ptr() + (self.layout.offset * self.dtype.itemsize()) as u64
    }
    /// Whether both arrays view the same buffer.
    pub fn shares_buffer(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.buffer, &other.buffer)
    }
    /// Whether this array and `other` surely address no common element: other buffers,
    /// or views of one buffer (of one element size) that `Layout::disjoint` tells apart.
    pub fn apart(&self, other: &Array) -> bool {
        !self.shares_buffer(other)
            || (self.dtype.itemsize() == other.dtype.itemsize()
                && self.layout.disjoint(&other.layout))
    }
    /// Whether this array is the only owner of its buffer (NumPy's OWNDATA, roughly).
    pub fn owns_buffer(&self) -> bool {
        Arc::strong_count(&self.buffer) == 1
    }

    pub fn index(&self, indices: &[Index]) -> Result<Array> {
        self.view(self.layout.index(indices)?, self.dtype)
    }
    pub fn transpose(&self, axes: Option<&[isize]>) -> Result<Array> {
        self.view(self.layout.transpose(axes)?, self.dtype)
    }
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Array> {
        self.view(self.layout.broadcast_to(shape)?, self.dtype)
    }

    /// Copies C-ordered host bytes into a new array of `shape`.
    pub fn from_host(
        device: &'static Device,
        bytes: &[u8],
        shape: &[usize],
        dtype: DType,
    ) -> Result<Array> {
        let out = Array::empty(device, shape, dtype)?;
        if bytes.len() != out.nbytes() {
            return Err(Error::Value(format!(
                "expected {} bytes of host data, got {}",
                out.nbytes(),
                bytes.len()
            )));
        }
        // The destination block holds nbytes, the length of `bytes` (checked above).
        crate::transfer::to_device(device, out.data_ptr(), bytes)?;
        Ok(out)
    }

    /// Copies the C-contiguous array into `dst` (exactly `nbytes` long). Waits for the
    /// calling thread's current stream only: the copy is ordered after the work queued
    /// on it, as a read of a result in CuPy. Any other
    /// layout goes through `ops::elementwise::copy::to_host`, which makes it contiguous
    /// on the device first.
    pub fn to_host(&self, dst: &mut [u8]) -> Result<()> {
        if dst.len() != self.nbytes() {
            return Err(Error::Value(format!(
                "expected a {}-byte host buffer, got {}",
                self.nbytes(),
                dst.len()
            )));
        }
        if dst.is_empty() {
            return Ok(());
        }
        if !self.layout.is_c_contiguous() {
            return Err(Error::Value(
                "Array::to_host needs a C-contiguous array (use ops::elementwise::copy::to_host)"
                    .into(),
            ));
        }
        // The array is C-contiguous: nbytes (the length of `dst`) from data_ptr lie inside
        // its block.
        crate::transfer::to_host(self.device(), dst, self.data_ptr())
    }
}

/// The element count of `shape`, refusing sizes whose byte count overflows.
pub fn checked_size(shape: &[usize], dtype: DType) -> Result<usize> {
    let too_big = || {
        Error::Value("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.".into())
    };
    let size = shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .ok_or_else(too_big)?;
    size.checked_mul(dtype.itemsize())
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(too_big)?;
    Ok(size)
}
