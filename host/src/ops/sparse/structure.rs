//! The structure of compressed matrices: the format checks of user-given arrays, each
//! entry's row (CSR to COO), the dense matrix, and segment reductions (sums, extremes
//! and their positions) over `indptr`-like boundaries.

use gpupy_kernels::sparse::rows::{SEG_MIN, SEG_SUM, lanes_for};
use gpupy_kernels::sparse::{Part, SPARSE_BLOCK, Sp};

use super::compressed::{
    Compressed, grid, index_dtype, index_kernel, index_max, pair_kernel, read_words, value_dtype,
    vector, words,
};
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::same_device;
use crate::ops::elementwise::fill::full;

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
