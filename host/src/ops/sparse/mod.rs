//! Sparse matrices (`kernels/src/sparse/`): the compressed-format kernels behind
//! `gpupyx.scipy.sparse`. The Python layer keeps SciPy's formats and rules; these
//! functions take a compressed matrix's arrays ([`Compressed`], checked here), plan and
//! launch.
//!
//! - this file: the checks, the format validation, the SpMV plan's statistic, CSR to COO
//!   rows, to dense, segment reductions;
//! - `products.rs`: SpMV (lanes per row or merge path), SpMM, the transposed products;
//! - `spgemm.rs`: sparse times sparse, and elementwise operations of two matrices.
//!
//! The kernels read `indptr` and `indices` defensively (a corrupt matrix gives wrong
//! numbers, never an access outside an allocation), so the host checks only shapes,
//! dtypes and lengths, and nothing here reads the arrays' contents except where a
//! result's size depends on them (one small read: the validation flags, the longest
//! row, the size of a product).

use gpupy_kernels as kernels;
use gpupy_kernels::sparse::rows::lanes_for;
use gpupy_kernels::sparse::{Part, SPARSE_BLOCK, Sp};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{contiguous, same_device};
use crate::ops::elementwise::fill::full;
use crate::ops::elementwise_grid;

mod products;
mod spgemm;

pub use gpupy_kernels::sparse::rows::{SEG_MAX, SEG_MIN, SEG_SUM, Schedule};
pub use products::{spmm, spmm_t, spmv, spmv_plan};
pub use spgemm::{binop, spgemm};

/// The value dtypes with kernels (others are converted by the Python layer).
fn value_dtype(d: DType) -> Result<DType> {
    match d {
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128 => Ok(d),
        _ => Err(Error::Type(format!(
            "gpupy's sparse kernels compute in float32, float64, complex64 or complex128, not {}",
            d.name()
        ))),
    }
}

/// The index dtypes with kernels.
fn index_dtype(d: DType) -> Result<DType> {
    match d {
        DType::Int32 | DType::Int64 => Ok(d),
        _ => Err(Error::Type(format!(
            "sparse index arrays must be int32 or int64, not {}",
            d.name()
        ))),
    }
}

/// The largest value of an index dtype.
fn index_max(d: DType) -> u64 {
    if d == DType::Int32 {
        i32::MAX as u64
    } else {
        i64::MAX as u64
    }
}

/// `a` as a contiguous 1-d array of `len` elements (when given), named `what` in errors.
fn vector(a: &Array, len: Option<usize>, what: &str) -> Result<Array> {
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
    fn sp(&self, lanes: u32, k: u64, op: u32) -> Sp {
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
    fn lanes(&self) -> u32 {
        lanes_for(self.nnz() as f64 / self.rows.max(1) as f64)
    }
}

/// The kernel of a by-pair part for `m`'s dtypes.
fn pair_kernel(part: Part, value: DType, index: DType) -> Result<kernels::registry::Kernel> {
    kernels::sparse::pair(part, value as usize, index as usize).ok_or_else(|| {
        Error::Type(format!(
            "no sparse kernel for {} values with {} indices",
            value.name(),
            index.name()
        ))
    })
}

/// The kernel of a by-index part.
fn index_kernel(part: Part, index: DType) -> Result<kernels::registry::Kernel> {
    kernels::sparse::by_index(part, index as usize)
        .ok_or_else(|| Error::Type(format!("no sparse kernel for {} indices", index.name())))
}

/// Blocks of `SPARSE_BLOCK` threads for `work` threads of a grid-stride kernel.
fn grid(device: &Device, work: u64) -> u32 {
    elementwise_grid(device, work)
}

/// A zeroed device array of `n` u64 words (a kernel's statistics).
fn words(device: &'static Device, n: usize) -> Result<Array> {
    full(device, &[n], DType::UInt64, &[0; 8])
}

/// The words of a small device array (one read, which waits for the stream).
fn read_words(a: &Array) -> Result<Vec<u64>> {
    let mut bytes = vec![0u8; a.nbytes()];
    a.to_host(&mut bytes)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8-byte chunks")))
        .collect())
}

/// The format checks of user-given `indptr` (`rows + 1`) and `indices` over `cols`
/// minor indices, in one pass and one read: the `VALID_*` flags, and `indptr[rows]`.
pub fn validate(indptr: &Array, indices: &Array, rows: usize, cols: usize) -> Result<(u64, i64)> {
    same_device(indptr, indices)?;
    let index = index_dtype(indptr.dtype())?;
    if indices.dtype() != index {
        return Err(Error::Type("indptr and indices must have one dtype".into()));
    }
    let indptr = vector(indptr, Some(rows + 1), "indptr")?;
    let indices = vector(indices, None, "indices")?;
    let device = indptr.device();
    let out = words(device, 2)?;
    let nnz = indices.size() as u64;
    let lanes = lanes_for(nnz as f64 / rows.max(1) as f64);
    let a = Sp {
        rows: rows as u64,
        cols: cols as u64,
        nnz,
        k: 0,
        lanes,
        op: 0,
    };
    // (a, indptr, indices, out): indptr holds rows + 1 indices, indices nnz, out two
    // zeroed words; the block is a multiple of 32.
    Launch::new(device, index_kernel(Part::Validate, index)?)?
        .grid(grid(device, rows.max(1) as u64 * lanes as u64))
        .block(SPARSE_BLOCK)
        .arg(a)
        .arg(indptr.data_ptr())
        .arg(indices.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    let w = read_words(&out)?;
    Ok((w[0], w[1] as i64))
}

/// Each entry's row (`indptr`'s index dtype): CSR to COO.
pub fn expand_rows(indptr: &Array, nnz: usize) -> Result<Array> {
    let index = index_dtype(indptr.dtype())?;
    let indptr = vector(indptr, None, "indptr")?;
    let rows = indptr.size().saturating_sub(1);
    if rows as u64 > index_max(index) {
        return Err(Error::Value(format!(
            "{rows} rows do not fit {} indices",
            index.name()
        )));
    }
    let device = indptr.device();
    let out = full(device, &[nnz], index, &vec![0; index.itemsize()])?;
    if rows == 0 || nnz == 0 {
        return Ok(out);
    }
    let lanes = lanes_for(nnz as f64 / rows as f64);
    let a = Sp {
        rows: rows as u64,
        cols: 0,
        nnz: nnz as u64,
        k: 0,
        lanes,
        op: 0,
    };
    // (a, indptr, out): indptr holds rows + 1 indices, out nnz slots.
    Launch::new(device, index_kernel(Part::ExpandRows, index)?)?
        .grid(grid(device, rows as u64 * lanes as u64))
        .block(SPARSE_BLOCK)
        .arg(a)
        .arg(indptr.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    Ok(out)
}

/// The dense `rows x cols` matrix of `m` (duplicates summed), C order or Fortran order.
/// `canonical` says the rows hold no duplicates, which lets several lanes share a row.
pub fn to_dense(m: &Compressed, fortran: bool, canonical: bool) -> Result<Array> {
    let device = m.device();
    let v = m.value();
    let zero = vec![0u8; v.itemsize()];
    // Fortran order is the C-order transpose, seen transposed.
    let out = if fortran {
        full(device, &[m.cols, m.rows], v, &zero)?.transpose(None)?
    } else {
        full(device, &[m.rows, m.cols], v, &zero)?
    };
    if m.rows == 0 || m.cols == 0 || m.nnz() == 0 {
        return Ok(out);
    }
    let lanes = if canonical { m.lanes() } else { 1 };
    let (rs, cs) = if fortran {
        (1i64, m.rows as i64)
    } else {
        (m.cols as i64, 1i64)
    };
    // (a, indptr, indices, data, out, rs, cs): m's arrays are checked; out holds the
    // rows x cols elements r * rs + c * cs; lanes share a row only without duplicates.
    Launch::new(device, pair_kernel(Part::ToDense, v, m.index())?)?
        .grid(grid(device, m.rows as u64 * lanes as u64))
        .block(SPARSE_BLOCK)
        .arg(m.sp(lanes, 0, 0))
        .arg(m.indptr.data_ptr())
        .arg(m.indices.data_ptr())
        .arg(m.data.data_ptr())
        .arg(out.data_ptr())
        .arg(rs)
        .arg(cs)
        .run()?;
    Ok(out)
}

/// Over each segment `values[starts[s]..starts[s + 1]]`: the sum (`SEG_SUM`), or the
/// maximum or minimum (`SEG_MAX`, `SEG_MIN`, NaN winning as in NumPy) and the position
/// of its first occurrence (int64, -1 for an empty segment).
pub fn segment(starts: &Array, values: &Array, op: u32) -> Result<(Array, Option<Array>)> {
    same_device(starts, values)?;
    let index = index_dtype(starts.dtype())?;
    let v = value_dtype(values.dtype())?;
    if op > SEG_MIN {
        return Err(Error::Value(format!("no segment op {op}")));
    }
    let starts = vector(starts, None, "segment starts")?;
    let values = vector(values, None, "segment values")?;
    let nseg = starts.size().saturating_sub(1);
    let device = starts.device();
    let out = full(device, &[nseg], v, &vec![0; v.itemsize()])?;
    let pos = if op == SEG_SUM {
        None
    } else {
        Some(full(device, &[nseg], DType::Int64, &(-1i64).to_le_bytes())?)
    };
    if nseg == 0 {
        return Ok((out, pos));
    }
    let n = values.size() as u64;
    let lanes = lanes_for(n as f64 / nseg as f64);
    let a = Sp {
        rows: nseg as u64,
        cols: 0,
        nnz: n,
        k: 0,
        lanes,
        op,
    };
    // (a, starts, values, out_v, out_p): starts holds nseg + 1 indices, values n, the
    // outputs nseg slots (out_p null for sums); the block is a multiple of 32.
    Launch::new(device, pair_kernel(Part::Segment, v, index)?)?
        .grid(grid(device, nseg as u64 * lanes as u64))
        .block(SPARSE_BLOCK)
        .arg(a)
        .arg(starts.data_ptr())
        .arg(values.data_ptr())
        .arg(out.data_ptr())
        .arg(pos.as_ref().map_or(0, |p| p.data_ptr()))
        .run()?;
    Ok((out, pos))
}
