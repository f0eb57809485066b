//! Sparse times dense: SpMV (`y = A x`) on the schedule of the matrix's row lengths,
//! SpMM (`Y = A X`), and the products with the transpose (`A^T x`, `A^T X`).
//!
//! The schedule ([`Schedule::choose`]) needs the longest row: [`spmv_plan`] finds it (one
//! reduction, one read) and the Python layer keeps the plan on the matrix. Lanes per
//! row suit rows of similar length; the merge path gives every thread the same share of
//! `rows + nnz` merge steps, however skewed the rows are.
//!
//! The transposed products scatter with atomic adds (the choice for `csc @ x`, where
//! a CSC matrix is the CSR of its transpose): one pass over the matrix, no extra
//! memory and no conversion, at the cost of atomics on `y` and an order of additions
//! that varies between runs (the results stay within the same rounding bound).

use gpupy_kernels::sparse::merge_path::{
    FIXUP_LANES, MERGE_THREADS, MERGE_TILE, merge_shared_bytes, merge_splits,
};
use gpupy_kernels::sparse::rows::lanes_for;
use gpupy_kernels::sparse::{Part, SPARSE_BLOCK};

use super::compressed::{Compressed, grid, index_kernel, pair_kernel, read_words, vector, words};
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::{contiguous, same_device};
use crate::ops::elementwise::fill::full;
use gpupy_kernels::sparse::rows::Schedule;

/// The SpMV schedule of a matrix of `rows` rows and `nnz` entries given its `indptr`:
/// one reduction for the longest row, one read.
pub fn spmv_plan(indptr: &Array, nnz: usize) -> Result<Schedule> {
    let index = super::compressed::index_dtype(indptr.dtype())?;
    let indptr = vector(indptr, None, "indptr")?;
    let rows = indptr.size().saturating_sub(1);
    if rows == 0 || nnz == 0 {
        return Ok(Schedule::choose(rows as u64, nnz as u64, 0));
    }
    let device = indptr.device();
    let out = words(device, 1)?;
    let a = gpupy_kernels::sparse::Sp {
        rows: rows as u64,
        cols: 0,
        nnz: nnz as u64,
        k: 0,
        lanes: 1,
        op: 0,
    };
    // (a, indptr, out): indptr holds rows + 1 indices, out one zeroed word; the block
    // is a multiple of 32.
    Launch::new(device, index_kernel(Part::RowMax, index)?)?
        .grid(grid(device, rows as u64))
        .block(SPARSE_BLOCK)
        .arg(a)
        .arg(indptr.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    let longest = read_words(&out)?[0];
    Ok(Schedule::choose(rows as u64, nnz as u64, longest))
}

/// `x` checked against `m`: `x`'s dtype is `m`'s value dtype, its first axis `len`.
fn operand(m: &Compressed, x: &Array, len: usize) -> Result<Array> {
    same_device(&m.indptr, x)?;
    if x.dtype() != m.value() {
        return Err(Error::Type(format!(
            "the dense operand is {}, the matrix {}: convert one first",
            x.dtype().name(),
            m.value().name()
        )));
    }
    if x.ndim() == 0 || x.ndim() > 2 || x.shape()[0] != len {
        return Err(Error::Value(format!(
            "dimension mismatch: a sparse matrix of {len} {} and an operand of shape {:?}",
            if len == m.cols { "columns" } else { "rows" },
            x.shape()
        )));
    }
    contiguous(x)
}

/// `y = A x` for the matrix `m` (`rows x cols`) and a vector `x` of `cols` values of its
/// dtype, on `schedule`.
pub fn spmv(m: &Compressed, x: &Array, schedule: Schedule) -> Result<Array> {
    let x = operand(m, x, m.cols)?;
    if x.ndim() != 1 {
        return Err(Error::Value("spmv takes a vector".into()));
    }
    let device = m.device();
    let (v, index) = (m.value(), m.index());
    if m.rows == 0 || m.nnz() == 0 {
        return full(device, &[m.rows], v, &vec![0; v.itemsize()]);
    }
    let y = Array::empty(device, &[m.rows], v)?;
    match schedule {
        Schedule::Lanes(lanes) => {
            if !lanes.is_power_of_two() || lanes > 32 {
                return Err(Error::Value(format!("{lanes} lanes per row")));
            }
            // (a, indptr, indices, data, x, y): m's arrays are checked, x holds cols
            // values and y rows; lanes is a power of two up to 32; the block is a
            // multiple of 32.
            Launch::new(device, pair_kernel(Part::SpmvLanes, v, index)?)?
                .grid(grid(device, m.rows as u64 * lanes as u64))
                .block(SPARSE_BLOCK)
                .arg(m.sp(lanes, 0, 0))
                .arg(m.indptr.data_ptr())
                .arg(m.indices.data_ptr())
                .arg(m.data.data_ptr())
                .arg(x.data_ptr())
                .arg(y.data_ptr())
                .run()?;
        }
        Schedule::Merge => {
            let blocks = (m.rows as u64 + m.nnz()).div_ceil(MERGE_TILE);
            let blocks32 = u32::try_from(blocks)
                .map_err(|_| Error::Value("matrix too large for the merge-path SpMV".into()))?;
            let splits = merge_splits(m.rows as u64, m.nnz());
            let coords = Array::empty(device, &[2 * splits as usize], DType::UInt64)?;
            // (a, indptr, coords): m's indptr is checked; coords holds two words per
            // split; a warp per split.
            Launch::new(device, index_kernel(Part::SpmvSearch, index)?)?
                .grid(grid(device, splits * 32))
                .block(SPARSE_BLOCK)
                .arg(m.sp(0, 0, 0))
                .arg(m.indptr.data_ptr())
                .arg(coords.data_ptr())
                .run()?;
            let carry_rows = Array::empty(device, &[blocks as usize], DType::UInt64)?;
            let carry_vals = Array::empty(device, &[blocks as usize], v)?;
            let vbytes = v.itemsize() as u32;
            // (a, indptr, indices, data, x, y, coords, carry_rows, carry_vals): as above,
            // one block of MERGE_THREADS per tile of MERGE_TILE merge steps with the
            // kernel's shared layout; coords the search's splits; the carries hold one
            // slot per block.
            Launch::new(device, pair_kernel(Part::SpmvMerge, v, index)?)?
                .grid(blocks32)
                .block(MERGE_THREADS)
                .shared(merge_shared_bytes(vbytes))
                .arg(m.sp(0, 0, 0))
                .arg(m.indptr.data_ptr())
                .arg(m.indices.data_ptr())
                .arg(m.data.data_ptr())
                .arg(x.data_ptr())
                .arg(y.data_ptr())
                .arg(coords.data_ptr())
                .arg(carry_rows.data_ptr())
                .arg(carry_vals.data_ptr())
                .run()?;
            let fix = gpupy_kernels::sparse::by_value(Part::SpmvFixup, v as usize)
                .ok_or_else(|| Error::Type(format!("no sparse kernel for {}", v.name())))?;
            // (blocks, rows, carry_rows, carry_vals, y): the carries the merge launch
            // wrote, y its rows values; a warp per block.
            Launch::new(device, fix)?
                .grid(grid(device, blocks * FIXUP_LANES))
                .block(SPARSE_BLOCK)
                .arg(blocks)
                .arg(m.rows as u64)
                .arg(carry_rows.data_ptr())
                .arg(carry_vals.data_ptr())
                .arg(y.data_ptr())
                .run()?;
        }
    }
    Ok(y)
}

/// Lanes per tile of dense columns for `k` columns: the smallest power of two at least
/// `k`, at most a warp.
fn column_lanes(k: usize) -> u32 {
    lanes_for(k as f64)
}

/// `Y = A X` for the matrix `m` (`rows x cols`) and a matrix `x` (`cols x k`, any
/// layout: made C-contiguous) of its dtype: a new C-contiguous `rows x k` array.
pub fn spmm(m: &Compressed, x: &Array) -> Result<Array> {
    let x = operand(m, x, m.cols)?;
    if x.ndim() != 2 {
        return Err(Error::Value("spmm takes a matrix".into()));
    }
    let k = x.shape()[1];
    let device = m.device();
    let (v, index) = (m.value(), m.index());
    if m.rows == 0 || k == 0 || m.nnz() == 0 {
        return full(device, &[m.rows, k], v, &vec![0; v.itemsize()]);
    }
    let y = Array::empty(device, &[m.rows, k], v)?;
    let lanes = column_lanes(k);
    let tiles = k.div_ceil(lanes as usize) as u64;
    // (a, indptr, indices, data, x, y): m's arrays are checked, x holds cols * k values
    // and y rows * k, both C-contiguous; lanes is a power of two up to 32.
    Launch::new(device, pair_kernel(Part::Spmm, v, index)?)?
        .grid(grid(device, m.rows as u64 * tiles * lanes as u64))
        .block(SPARSE_BLOCK)
        .arg(m.sp(lanes, k as u64, 0))
        .arg(m.indptr.data_ptr())
        .arg(m.indices.data_ptr())
        .arg(m.data.data_ptr())
        .arg(x.data_ptr())
        .arg(y.data_ptr())
        .run()?;
    Ok(y)
}

/// `A^T x` (a vector of `rows` values: `cols` values out) or `A^T X` (`rows x k`: a
/// C-contiguous `cols x k` out) by atomic adds into a zeroed result.
pub fn spmm_t(m: &Compressed, x: &Array) -> Result<Array> {
    let x = operand(m, x, m.rows)?;
    let k = if x.ndim() == 2 { x.shape()[1] } else { 1 };
    let shape: Vec<usize> = if x.ndim() == 2 {
        vec![m.cols, k]
    } else {
        vec![m.cols]
    };
    let device = m.device();
    let (v, index) = (m.value(), m.index());
    let y = full(device, &shape, v, &vec![0; v.itemsize()])?;
    if m.rows == 0 || k == 0 || m.nnz() == 0 {
        return Ok(y);
    }
    let lanes = m.lanes();
    // (a, indptr, indices, data, x, y): m's arrays are checked, x holds rows * k values
    // and y cols * k zeroed ones, both C-contiguous, y only added to atomically.
    Launch::new(device, pair_kernel(Part::SpmmT, v, index)?)?
        .grid(grid(device, m.rows as u64 * lanes as u64))
        .block(SPARSE_BLOCK)
        .arg(m.sp(lanes, k as u64, 0))
        .arg(m.indptr.data_ptr())
        .arg(m.indices.data_ptr())
        .arg(m.data.data_ptr())
        .arg(x.data_ptr())
        .arg(y.data_ptr())
        .run()?;
    Ok(y)
}
