//! A compressed matrix's arrays as the sparse kernels take them ([`Compressed`]), the
//! checks of dtypes and lengths, and the small helpers of the family's launches.

use gpupy_kernels as kernels;
use gpupy_kernels::sparse::rows::lanes_for;
use gpupy_kernels::sparse::{Part, Sp};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::elementwise::copy::{contiguous, same_device};
use crate::ops::elementwise::fill::full;
use crate::ops::elementwise_grid;

/// The value dtypes with kernels (others are converted by the Python layer).
pub(super) fn value_dtype(d: DType) -> Result<DType> {
    match d {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => Ok(d),
        _ => Err(Error::Type(format!(
            "gpupy's sparse kernels compute in float32, float64, complex64 or complex128, not {}",
            d.name()
        ))),
    }
}

/// The index dtypes with kernels.
pub(super) fn index_dtype(d: DType) -> Result<DType> {
    match d {
        DType::Int32 | DType::Int64 => Ok(d),
        _ => Err(Error::Type(format!(
            "sparse index arrays must be int32 or int64, not {}",
            d.name()
        ))),
    }
}

/// The largest value of an index dtype.
pub(super) fn index_max(d: DType) -> u64 {
    if d == DType::Int32 {
        i32::MAX as u64
    } else {
        i64::MAX as u64
    }
}

/// `a` as a contiguous 1-d array of `len` elements (when given), named `what` in errors.
pub(super) fn vector(a: &Array, len: Option<usize>, what: &str) -> Result<Array> {
    if a.ndim() != 1 {
        return Err(Error::Value(format!(
            "{what} must be 1-d, not {}-d",
            a.ndim()
        )));
    }
    if let Some(n) = len
        && a.size() != n
    {
        return Err(Error::Value(format!(
            "{what} has {} elements, not {n}",
            a.size()
        )));
    }
    contiguous(a)
}

/// A compressed matrix's arrays, checked: `indptr` of `rows + 1` and `indices` of one
/// index dtype (int32 or int64), `data` of a value dtype and as long as `indices`, all
/// contiguous and on one device; `cols` is the minor extent. (CSC is the CSR of the
/// transpose: its `rows` are the matrix's columns.)
pub struct Compressed {
    pub indptr: Array,
    pub indices: Array,
    pub data: Array,
    pub rows: usize,
    pub cols: usize,
}

impl Compressed {
    pub fn new(
        indptr: &Array,
        indices: &Array,
        data: &Array,
        rows: usize,
        cols: usize,
    ) -> Result<Compressed> {
        same_device(indptr, indices)?;
        same_device(indptr, data)?;
        let index = index_dtype(indptr.dtype())?;
        if indices.dtype() != index {
            return Err(Error::Type(format!(
                "indptr and indices must have one dtype, not {} and {}",
                index.name(),
                indices.dtype().name()
            )));
        }
        value_dtype(data.dtype())?;
        let indices = vector(indices, None, "indices")?;
        Ok(Compressed {
            indptr: vector(indptr, Some(rows + 1), "indptr")?,
            data: vector(data, Some(indices.size()), "data")?,
            indices,
            rows,
            cols,
        })
    }

    pub fn nnz(&self) -> u64 {
        self.indices.size() as u64
    }
    pub fn index(&self) -> DType {
        self.indptr.dtype()
    }
    pub fn value(&self) -> DType {
        self.data.dtype()
    }
    pub fn device(&self) -> &'static Device {
        self.indptr.device()
    }
    /// The kernels' launch struct.
    pub(super) fn sp(&self, lanes: u32, k: u64, op: u32) -> Sp {
        Sp {
            rows: self.rows as u64,
            cols: self.cols as u64,
            nnz: self.nnz(),
            k,
            lanes,
            op,
        }
    }
    /// Lanes per row for this matrix's mean row length.
    pub(super) fn lanes(&self) -> u32 {
        lanes_for(self.nnz() as f64 / self.rows.max(1) as f64)
    }
}

/// The kernel of a by-pair part for `m`'s dtypes.
pub(super) fn pair_kernel(
    part: Part,
    value: DType,
    index: DType,
) -> Result<kernels::registry::Kernel> {
    kernels::sparse::pair(part, value as usize, index as usize).ok_or_else(|| {
        Error::Type(format!(
            "no sparse kernel for {} values with {} indices",
            value.name(),
            index.name()
        ))
    })
}

/// The kernel of a by-index part.
pub(super) fn index_kernel(part: Part, index: DType) -> Result<kernels::registry::Kernel> {
    kernels::sparse::by_index(part, index as usize)
        .ok_or_else(|| Error::Type(format!("no sparse kernel for {} indices", index.name())))
}

/// Blocks of `SPARSE_BLOCK` threads for `work` threads of a grid-stride kernel.
pub(super) fn grid(device: &Device, work: u64) -> u32 {
    elementwise_grid(device, work)
}

/// A zeroed device array of `n` u64 words (a kernel's statistics).
pub(super) fn words(device: &'static Device, n: usize) -> Result<Array> {
    full(device, &[n], DType::UInt64, &[0; 8])
}

/// The words of a small device array (one read, which waits for the stream).
pub(super) fn read_words(a: &Array) -> Result<Vec<u64>> {
    let mut bytes = vec![0u8; a.nbytes()];
    a.to_host(&mut bytes)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunks")))
        .collect())
}
