//! Reductions. A full `sum` runs in two launches of the same kernel: many blocks each
//! reduce a grid-stride share of the input to one partial, then one block reduces the
//! partials. Loads are 16 bytes wide; blocks combine with warp shuffles and shared memory.

use crate::gpu::{block_idx, block_sum, grid_stride, thread_idx, Shared};

#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Pack<T: Copy, const N: usize>([T; N]);

/// `partials[blockIdx] = sum of this block's share of x[..n]`.
///
/// # Safety
/// `x` has `n` elements and is 16-byte aligned; `partials` has `gridDim.x` elements;
/// the launch gives `blockDim/32 * size_of::<T>()` bytes of shared memory.
#[inline(always)]
unsafe fn sum_contig<T, const N: usize>(x: *const T, n: u64, partials: *mut T, zero: T)
where
    T: Shared + core::ops::Add<Output = T>,
{
    let (start, stride) = grid_stride();
    // Independent accumulators per lane of the pack keep several loads in flight.
    let mut acc = [zero; N];
    let packs = n / N as u64;
    let mut j = start;
    while j < packs {
        // SAFETY: j < packs, and x is aligned per the contract.
        let p = unsafe { *(x as *const Pack<T, N>).add(j as usize) };
        for k in 0..N {
            acc[k] = acc[k] + p.0[k];
        }
        j += stride;
    }
    let mut i = packs * N as u64 + start;
    while i < n {
        // SAFETY: i < n.
        acc[0] = acc[0] + unsafe { *x.add(i as usize) };
        i += stride;
    }
    let mut v = zero;
    for a in acc {
        v = v + a;
    }
    let total = block_sum(v, zero);
    if thread_idx() == 0 {
        // SAFETY: one slot per block.
        unsafe { *partials.add(block_idx() as usize) = total };
    }
}

macro_rules! sum_entries {
    ([] $(($D:ident, $ty:ident))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_sum_", stringify!($ty), "_contig"))]
            unsafe extern "ptx-kernel" fn sum(x: *const $ty, n: u64, partials: *mut $ty) {
                // SAFETY: the host launches per sum_contig's contract.
                unsafe { sum_contig::<$ty, { 16 / core::mem::size_of::<$ty>() }>(x, n, partials, 0.0) }
            }
        };
    )* };
}

crate::for_each_float_dtype!(sum_entries);
