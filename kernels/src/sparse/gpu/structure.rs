//! Segment reductions, conversions (to dense, CSR rows to COO), the longest row and
//! the validation of user-given arrays.

use core::sync::atomic::{AtomicU64, Ordering};

use super::device::{group_rows, warp_rows};
use crate::gpu::{grid_stride, shfl_down_words, shfl_xor_words, thread_idx};
use crate::sparse::rows::{NO_POSITION, SEG_SUM, combine};
use crate::sparse::value::{Index, Value, row_range};
use crate::sparse::{
    Sp, VALID_DECREASING, VALID_DUPLICATE, VALID_LAST_OVER, VALID_NEGATIVE, VALID_START,
    VALID_TOO_LARGE, VALID_UNSORTED,
};

/// Over each segment `s` of `values` (`starts[s]..starts[s + 1]`, `a.rows` segments of
/// `a.nnz` values): the sum (`SEG_SUM`) or the extreme and its first position
/// (`SEG_MAX`, `SEG_MIN`) into `out_v[s]` and `out_p[s]` (-1 for an empty segment);
/// either pointer may be null.
///
/// # Safety
/// `starts` holds `rows + 1` indices, `values` `nnz` values, non-null outputs `rows`
/// slots; `a.lanes` a power of two up to 32; the block size a multiple of 32.
#[inline(always)]
pub(super) unsafe fn segment<V: Value, I: Index>(
    a: &Sp,
    starts: *const I,
    values: *const V,
    out_v: *mut V,
    out_p: *mut i64,
) {
    let lanes = a.lanes as u64;
    warp_rows(a.rows, lanes, |row, sub| {
        let mut acc = (V::ZERO, NO_POSITION);
        if let Some(r) = row {
            // SAFETY: r < rows; positions below nnz.
            unsafe {
                let (s, e) = row_range(starts, r, a.nnz);
                let mut p = s + sub;
                while p < e {
                    acc = combine(a.op, acc, (*values.add(p as usize), p));
                    p += lanes;
                }
            }
        }
        let mut off = lanes / 2;
        while off > 0 {
            let other = (
                shfl_xor_words(acc.0, off as u32),
                shfl_xor_words(acc.1, off as u32),
            );
            acc = combine(a.op, acc, other);
            off /= 2;
        }
        if let (Some(r), 0) = (row, sub) {
            // SAFETY: r < rows slots of the non-null outputs.
            unsafe {
                if !out_v.is_null() {
                    *out_v.add(r as usize) = acc.0;
                }
                if !out_p.is_null() && a.op != SEG_SUM {
                    *out_p.add(r as usize) = if acc.1 == NO_POSITION {
                        -1
                    } else {
                        acc.1 as i64
                    };
                }
            }
        }
    });
}

/// `out[r * rs + c * cs] += data[p]` for each entry `p` of row `r` at column `c`
/// (zeroed `out`). With more than one lane per row the host knows the rows hold no
/// duplicates (lanes never add to one element).
///
/// # Safety
/// As `spmv_lanes`; `out` spans every `r * rs + c * cs` for `r < rows`, `c < cols`.
#[inline(always)]
pub(super) unsafe fn to_dense<V: Value, I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    data: *const V,
    out: *mut V,
    rs: i64,
    cs: i64,
) {
    let lanes = a.lanes as u64;
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: r < rows, valid columns below cols: inside out per the contract.
        unsafe {
            let (s, e) = row_range(indptr, r, a.nnz);
            let mut p = s + sub;
            while p < e {
                if let Some(c) = (*indices.add(p as usize)).column(a.cols) {
                    let q = out.offset(r as isize * rs as isize + c as isize * cs as isize);
                    *q = (*q).add(*data.add(p as usize));
                }
                p += lanes;
            }
        }
    });
}

/// `out[p] = r` for each entry `p` of row `r`.
///
/// # Safety
/// `indptr` holds `rows + 1` indices, `out` `nnz` slots.
#[inline(always)]
pub(super) unsafe fn expand_rows<I: Index>(a: &Sp, indptr: *const I, out: *mut I) {
    let lanes = a.lanes as u64;
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: entries below nnz.
        unsafe {
            let (s, e) = row_range(indptr, r, a.nnz);
            let mut p = s + sub;
            while p < e {
                *out.add(p as usize) = I::from_u64(r);
                p += lanes;
            }
        }
    });
}

/// The format checks (`VALID_*` flags, or'ed into `out[0]`; `out[1] = indptr[rows]`):
/// SciPy's `check_format(full_check=True)` on the entries below `indptr[rows]` (SciPy
/// prunes the others), plus whether every row is sorted and free of duplicates.
///
/// # Safety
/// `indptr` holds `rows + 1` indices, `indices` `nnz`; `out` two u64, the first
/// zeroed, only accessed atomically while the kernel runs.
#[inline(always)]
pub(super) unsafe fn validate<I: Index>(
    a: &Sp,
    indptr: *const I,
    indices: *const I,
    out: *mut u64,
) {
    let lanes = a.lanes as u64;
    // SAFETY: indptr[0] and indptr[rows] exist.
    let (first, last) = unsafe { ((*indptr).raw(), (*indptr.add(a.rows as usize)).raw()) };
    let limit = if last < 0 {
        0
    } else if last as u64 > a.nnz {
        a.nnz
    } else {
        last as u64
    };
    let mut flags = 0u64;
    if grid_stride().0 == 0 {
        flags |= if first != 0 { VALID_START } else { 0 };
        flags |= if last > a.nnz as i64 {
            VALID_LAST_OVER
        } else {
            0
        };
        // SAFETY: out holds two words; only this thread writes the second.
        unsafe { *out.add(1) = last as u64 };
    }
    group_rows(a.rows, lanes, |r, sub| {
        // SAFETY: r < rows; positions below limit <= nnz.
        unsafe {
            if sub == 0 && (*indptr.add(r as usize)).raw() > (*indptr.add(r as usize + 1)).raw() {
                flags |= VALID_DECREASING;
            }
            let (s, e) = row_range(indptr, r, limit);
            let mut p = s + sub;
            while p < e {
                let v = (*indices.add(p as usize)).raw();
                flags |= if v < 0 { VALID_NEGATIVE } else { 0 };
                flags |= if v >= a.cols as i64 {
                    VALID_TOO_LARGE
                } else {
                    0
                };
                if p + 1 < e {
                    let w = (*indices.add(p as usize + 1)).raw();
                    flags |= if v > w { VALID_UNSORTED } else { 0 };
                    flags |= if v == w { VALID_DUPLICATE } else { 0 };
                }
                p += lanes;
            }
        }
    });
    if flags != 0 {
        // SAFETY: out[0] is only accessed atomically.
        unsafe { AtomicU64::from_ptr(out).fetch_or(flags, Ordering::Relaxed) };
    }
}

/// `out[0] = max(out[0], longest row)`: a thread per row, a warp maximum, one atomic
/// per warp.
///
/// # Safety
/// `indptr` holds `rows + 1` indices; `out` one u64 only accessed atomically while the
/// kernel runs; the block size is a multiple of 32.
#[inline(always)]
pub(super) unsafe fn row_max<I: Index>(a: &Sp, indptr: *const I, out: *mut u64) {
    let (mut r, stride) = grid_stride();
    let mut m = 0u64;
    while r < a.rows {
        // SAFETY: r < rows.
        let (s, e) = unsafe { row_range(indptr, r, a.nnz) };
        m = m.max(e - s);
        r += stride;
    }
    let mut d = 16;
    while d > 0 {
        m = m.max(shfl_down_words(m, d));
        d /= 2;
    }
    if thread_idx().is_multiple_of(32) && m > 0 {
        // SAFETY: out is only accessed atomically.
        unsafe { AtomicU64::from_ptr(out).fetch_max(m, Ordering::Relaxed) };
    }
}
