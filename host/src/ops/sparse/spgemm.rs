//! Sparse times sparse (`C = A B`, SpGEMM) and elementwise operations of two sparse
//! matrices (`op(A, B)`), both in two passes: count each row of the result, scan the
//! counts into `C`'s `indptr`, fill. See `kernels/src/sparse/hash.rs` and `merge.rs`.

use gpupy_kernels::sparse::hash::{RANK_TABLE_MAX, table_size};
use gpupy_kernels::sparse::{Merge2, Part, SPARSE_BLOCK, SPGEMM_BLOCK, Spgemm};

use super::compressed::{
    Compressed, grid, index_kernel, index_max, pair_kernel, read_words, words,
};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::layout::Index;
use crate::ops::elementwise::copy::{cast_into, same_device};
use crate::ops::elementwise::fill::{fill, full};
use crate::ops::scan::{ScanOp, scan};

/// Shared memory a block of `SPGEMM_BLOCK` threads gives its warps' tables.
const SPGEMM_SHARED: u64 = 48 * 1024;

/// Slots of a warp's table in shared memory for keys of `kb` and values of `vb` bytes:
/// the largest power of two whose tables of the block's warps fit `SPGEMM_SHARED`.
fn warp_slots(kb: u64, vb: u64) -> u64 {
    let warps = (SPGEMM_BLOCK / 32) as u64;
    let fit = SPGEMM_SHARED / warps / (kb + vb);
    let mut s = 1u64;
    while s * 2 <= fit {
        s *= 2;
    }
    s
}

/// Blocks of `SPGEMM_BLOCK` threads for a warp per row over `rows` rows, at most a few
/// waves (the kernels stride over the rest).
fn warp_grid(device: &Device, rows: u64) -> u32 {
    let warps = (SPGEMM_BLOCK / 32) as u64;
    let full = device.props.multi_processor_count.max(1) as u64 * (2048 / SPGEMM_BLOCK as u64) * 8;
    rows.div_ceil(warps).clamp(1, full) as u32
}

/// `C`'s `indptr` (`rows + 1` of `index`) from the per-row counts (int64): 0, then the
/// inclusive scan of the counts.
fn indptr_from_counts(counts: &Array, index: DType) -> Result<Array> {
    let rows = counts.size();
    let device = counts.device();
    let indptr = Array::empty(device, &[rows + 1], index)?;
    fill(
        &indptr.index(&[Index::Slice {
            start: None,
            stop: Some(1),
            step: None,
        }])?,
        &vec![0; index.itemsize()],
    )?;
    if rows > 0 {
        let sums = scan(counts, 0, ScanOp::Sum, false, DType::Int64)?;
        cast_into(
            &sums,
            &indptr.index(&[Index::Slice {
                start: Some(1),
                stop: None,
                step: None,
            }])?,
        )?;
    }
    Ok(indptr)
}

/// An empty `rows`-row result (`indptr` zeros) of `index` and `value` dtypes.
fn empty_result(
    device: &'static Device,
    rows: usize,
    index: DType,
    value: DType,
) -> Result<(Array, Array, Array)> {
    Ok((
        full(device, &[rows + 1], index, &vec![0; index.itemsize()])?,
        Array::empty(device, &[0], index)?,
        Array::empty(device, &[0], value)?,
    ))
}

/// `C = A B` for `a` (`rows x inner`) and `b` (`inner x cols`) of one value and one
/// index dtype: `(indptr, indices, data, sorted)`, where `sorted` says every row's
/// indices are sorted (else the caller sorts them: rows whose table was too large to
/// sort by rank). Duplicates in `A` or `B` are summed; entries that cancel stay.
pub fn spgemm(a: &Compressed, b: &Compressed) -> Result<(Array, Array, Array, bool)> {
    same_device(&a.indptr, &b.indptr)?;
    if a.value() != b.value() || a.index() != b.index() {
        return Err(Error::Type(format!(
            "sparse product of {}/{} and {}/{} matrices: convert to one dtype first",
            a.value().name(),
            a.index().name(),
            b.value().name(),
            b.index().name()
        )));
    }
    if a.cols != b.rows {
        return Err(Error::Value(format!(
            "dimension mismatch: ({}, {}) @ ({}, {})",
            a.rows, a.cols, b.rows, b.cols
        )));
    }
    let (v, index) = (a.value(), a.index());
    let device = a.device();
    if a.rows == 0 || a.nnz() == 0 || b.nnz() == 0 {
        let (p, i, d) = empty_result(device, a.rows, index, v)?;
        return Ok((p, i, d, true));
    }
    if b.cols as u64 > index_max(index) {
        return Err(Error::Value(format!(
            "{} columns do not fit {} indices",
            b.cols,
            index.name()
        )));
    }
    let kb = index.itemsize() as u64;
    let slots = warp_slots(kb, v.itemsize() as u64);
    let mut g = Spgemm {
        rows: a.rows as u64,
        inner: a.cols as u64,
        cols: b.cols as u64,
        a_nnz: a.nnz(),
        b_nnz: b.nnz(),
        c_nnz: 0,
        warp_slots: slots,
    };
    // Pass 0: products per row, the global tables' sizes.
    let ub = Array::empty(device, &[a.rows], DType::Int64)?;
    let gsize = Array::empty(device, &[a.rows], DType::Int64)?;
    let stats = words(device, 2)?;
    // (g, a_indptr, a_indices, b_indptr, ub, gsize, stats): A's and B's arrays are
    // checked, ub and gsize hold rows slots, stats two zeroed words.
    Launch::new(device, index_kernel(Part::SpgemmBound, index)?)?
        .grid(grid(device, a.rows as u64))
        .block(SPARSE_BLOCK)
        .arg(g)
        .arg(a.indptr.data_ptr())
        .arg(a.indices.data_ptr())
        .arg(b.indptr.data_ptr())
        .arg(ub.data_ptr())
        .arg(gsize.data_ptr())
        .arg(stats.data_ptr())
        .run()?;
    let s = read_words(&stats)?;
    let (global_slots, most) = (s[0], s[1]);
    if most == 0 {
        let (p, i, d) = empty_result(device, a.rows, index, v)?;
        return Ok((p, i, d, true));
    }
    if global_slots == 0 {
        // Every table fits the largest one's size: give each warp only that much shared
        // memory, so that short rows (a stencil's square) keep many blocks resident.
        g.warp_slots = table_size(most).min(slots);
    }
    // The global tables one after the other: row r's at the exclusive scan of gsize
    // (the first `rows` entries of 0 followed by the inclusive scan).
    let goff = if global_slots > 0 {
        indptr_from_counts(&gsize, DType::Int64)?
    } else {
        gsize.clone()
    };
    let gkeys = Array::empty(device, &[global_slots.max(1) as usize], index)?;
    let gvals = Array::empty(device, &[global_slots.max(1) as usize], v)?;
    let blocks = warp_grid(device, a.rows as u64);
    // Pass 1: the counts.
    let counts = Array::empty(device, &[a.rows], DType::Int64)?;
    let stats = words(device, 2)?;
    // (g, a_indptr, a_indices, b_indptr, b_indices, ub, goff, gkeys, counts, stats): the
    // bound pass's ub; each warp's keys-only table in its share of the block's shared
    // memory (warp_slots keys) or at goff in gkeys (laid out from the bound pass's
    // sizes); counts rows slots; stats two zeroed words.
    Launch::new(device, index_kernel(Part::SpgemmCount, index)?)?
        .grid(blocks)
        .block(SPGEMM_BLOCK)
        .shared((SPGEMM_BLOCK as u64 / 32 * g.warp_slots * kb) as u32)
        .arg(g)
        .arg(a.indptr.data_ptr())
        .arg(a.indices.data_ptr())
        .arg(b.indptr.data_ptr())
        .arg(b.indices.data_ptr())
        .arg(ub.data_ptr())
        .arg(goff.data_ptr())
        .arg(gkeys.data_ptr())
        .arg(counts.data_ptr())
        .arg(stats.data_ptr())
        .run()?;
    let c_nnz = read_words(&stats)?[0];
    if c_nnz > index_max(index) {
        return Err(Error::Value(format!(
            "the product has {c_nnz} entries, more than {} indices hold",
            index.name()
        )));
    }
    let c_indptr = indptr_from_counts(&counts, index)?;
    let c_indices = Array::empty(device, &[c_nnz as usize], index)?;
    let c_data = Array::empty(device, &[c_nnz as usize], v)?;
    g.c_nnz = c_nnz;
    // Pass 2: the values, rows written sorted when their table is small.
    // (g, A's arrays, B's arrays, ub, goff, gkeys, gvals, c_indptr, c_indices, c_data):
    // as the count pass, with warp_slots keys then warp_slots values per warp in shared
    // memory, gvals beside gkeys, C's indptr from the counts and c_nnz slots.
    Launch::new(device, pair_kernel(Part::SpgemmFill, v, index)?)?
        .grid(blocks)
        .block(SPGEMM_BLOCK)
        .shared((SPGEMM_BLOCK as u64 / 32 * g.warp_slots * (kb + v.itemsize() as u64)) as u32)
        .arg(g)
        .arg(a.indptr.data_ptr())
        .arg(a.indices.data_ptr())
        .arg(a.data.data_ptr())
        .arg(b.indptr.data_ptr())
        .arg(b.indices.data_ptr())
        .arg(b.data.data_ptr())
        .arg(ub.data_ptr())
        .arg(goff.data_ptr())
        .arg(gkeys.data_ptr())
        .arg(gvals.data_ptr())
        .arg(c_indptr.data_ptr())
        .arg(c_indices.data_ptr())
        .arg(c_data.data_ptr())
        .run()?;
    Ok((
        c_indptr,
        c_indices,
        c_data,
        table_size(most) <= RANK_TABLE_MAX,
    ))
}

/// `C = op(A, B)` (`merge::OP_*`) for `a` and `b` of one shape, value and index dtype,
/// each in canonical form (sorted rows without duplicates): `(indptr, indices, data)`,
/// canonical, with the results that are zero left out.
pub fn binop(op: u32, a: &Compressed, b: &Compressed) -> Result<(Array, Array, Array)> {
    same_device(&a.indptr, &b.indptr)?;
    if a.value() != b.value() || a.index() != b.index() {
        return Err(Error::Type(
            "sparse operands of one value and index dtype expected".into(),
        ));
    }
    if (a.rows, a.cols) != (b.rows, b.cols) {
        return Err(Error::Value(format!(
            "inconsistent shapes ({}, {}) and ({}, {})",
            a.rows, a.cols, b.rows, b.cols
        )));
    }
    if op > gpupy_kernels::sparse::merge::OP_GT {
        return Err(Error::Value(format!("no sparse operation {op}")));
    }
    let (v, index) = (a.value(), a.index());
    let device = a.device();
    if a.rows == 0 {
        return empty_result(device, 0, index, v);
    }
    let mut m = Merge2 {
        rows: a.rows as u64,
        cols: a.cols as u64,
        a_nnz: a.nnz(),
        b_nnz: b.nnz(),
        c_nnz: 0,
        op,
        _pad: 0,
    };
    let counts = Array::empty(device, &[a.rows], DType::Int64)?;
    // (m, A's arrays, B's arrays, counts): both checked, counts rows slots.
    Launch::new(device, pair_kernel(Part::MergeCount, v, index)?)?
        .grid(grid(device, a.rows as u64))
        .block(SPARSE_BLOCK)
        .arg(m)
        .arg(a.indptr.data_ptr())
        .arg(a.indices.data_ptr())
        .arg(a.data.data_ptr())
        .arg(b.indptr.data_ptr())
        .arg(b.indices.data_ptr())
        .arg(b.data.data_ptr())
        .arg(counts.data_ptr())
        .run()?;
    let c_indptr = indptr_from_counts(&counts, index)?;
    let mut last = vec![0u8; index.itemsize()];
    c_indptr
        .index(&[Index::Slice {
            start: Some(a.rows as isize),
            stop: None,
            step: None,
        }])?
        .to_host(&mut last)?;
    let c_nnz = if index == DType::Int32 {
        i32::from_le_bytes(last.try_into().expect("4 bytes")) as i64
    } else {
        i64::from_le_bytes(last.try_into().expect("8 bytes"))
    };
    // The counts of a canonical pair of rows never exceed the sum of their lengths,
    // which fits the index dtype: a negative total means the matrices are corrupt.
    let c_nnz = u64::try_from(c_nnz).map_err(|_| Error::Value("corrupt sparse operands".into()))?;
    let c_indices = Array::empty(device, &[c_nnz as usize], index)?;
    let c_data = Array::empty(device, &[c_nnz as usize], v)?;
    m.c_nnz = c_nnz;
    // (m, A's arrays, B's arrays, c_indptr, c_indices, c_data): as the count pass, C's
    // indptr from the counts and c_nnz slots.
    Launch::new(device, pair_kernel(Part::MergeFill, v, index)?)?
        .grid(grid(device, a.rows as u64))
        .block(SPARSE_BLOCK)
        .arg(m)
        .arg(a.indptr.data_ptr())
        .arg(a.indices.data_ptr())
        .arg(a.data.data_ptr())
        .arg(b.indptr.data_ptr())
        .arg(b.indices.data_ptr())
        .arg(b.data.data_ptr())
        .arg(c_indptr.data_ptr())
        .arg(c_indices.data_ptr())
        .arg(c_data.data_ptr())
        .run()?;
    Ok((c_indptr, c_indices, c_data))
}
