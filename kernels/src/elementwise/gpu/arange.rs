use crate::dtype::{c64, c128};
use crate::elementwise::arange::Arange;
use crate::gpu::grid_stride;

/// `out[i] = T::at(first, second, i)` for `i < n`.
///
/// # Safety
/// `out` holds `n` elements.
#[inline(always)]
unsafe fn arange<T: Arange>(out: *mut T, n: u64, first: T, second: T) {
    let (start, step) = grid_stride();
    let mut i = start;
    while i < n {
        // SAFETY: i < n and out holds n elements.
        unsafe { *out.add(i as usize) = T::at(first, second, i) };
        i += step;
    }
}

macro_rules! arange_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_arange_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn entry(out: *mut $t, n: u64, first: $t, second: $t) {
                // SAFETY: the host launches with an array of n elements.
                unsafe { arange::<$t>(out, n, first, second) }
            }
        };
    )* };
}
crate::for_each_arange_type!(arange_entries);
