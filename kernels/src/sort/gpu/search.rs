use crate::dtype::{c64, c128};
use crate::gpu::grid_stride;
use crate::sort::radix::SortKey;
use crate::sort::search::*;

/// `out[i] = insertion_point(sorted, values[i])` for `i < m`.
///
/// # Safety
/// `sorted` holds `n` values, `values` and `out` hold `m`.
#[inline(always)]
unsafe fn searchsorted<T: SortKey>(
    sorted: *const T,
    n: u64,
    values: *const T,
    m: u64,
    out: *mut i64,
    side: u32,
) {
    let (start, step) = grid_stride();
    let mut i = start;
    while i < m {
        // SAFETY: i < m; the search only reads positions below n.
        unsafe {
            let v = *values.add(i as usize);
            let at = |j: u64| *sorted.add(j as usize);
            *out.add(i as usize) = insertion_point(n, at, v, side) as i64;
        }
        i += step;
    }
}

macro_rules! search_entries {
    ([] $(($name:ident, $t:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_searchsorted_", stringify!($name)))]
            unsafe extern "ptx-kernel" fn k(sorted: *const $t, n: u64, values: *const $t, m: u64, out: *mut i64, side: u32) {
                // SAFETY: the host launches per searchsorted's contract.
                unsafe { searchsorted::<$t>(sorted, n, values, m, out, side) }
            }
        };
    )* };
}
crate::for_each_sort_dtype!(search_entries);
