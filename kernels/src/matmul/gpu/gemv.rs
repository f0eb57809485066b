//! Matrix-vector products (`gpupy_gemv_<ty>_{rows,cols}`; see `tiles::Gemv`): a warp a
//! row when rows are contiguous, else a lane a row with the block's warps splitting `k`.

use crate::gpu::unroll;
use crate::gpu::{
    Shared, block_idx, block_idx_y, shfl_down_words, smem_addr, sync_threads, thread_idx,
};
use crate::matmul::tiles::{GEMV_COLS_THREADS, GEMV_THREADS, Gemv};
use crate::reduce::reduction::Words;

use super::simt::Elem;

/// Matrix-vector products (see `tiles::Gemv`).
trait Vector: Elem + Shared + Words + core::ops::Add<Output = Self> {}
impl Vector for f32 {}
impl Vector for f64 {}

/// `rows` variant: warp `w` of the block takes row `blockIdx.x * 8 + w`; lane `l` sums
/// `p = l, l + 32, ...` in four independent partial sums (four loads in flight), then the
/// warp adds its lanes with shuffles.
///
/// # Safety
/// Every `(z, i, p)` with `i < m, p < k` addresses `a`'s allocation, `(z, p)` `x`'s, and
/// `(z, i)` distinct elements of `y`'s, which overlaps neither.
#[inline(always)]
unsafe fn gemv_rows<T: Vector>(g: Gemv, a: *const T, x: *const T, y: *mut T) {
    let z = block_idx_y() as i64;
    let lane = thread_idx() % 32;
    let row = block_idx() * (GEMV_THREADS / 32) + thread_idx() / 32;
    if row >= g.m {
        return; // a whole warp leaves together: the shuffles below stay full-warp
    }
    let a = a.wrapping_offset((z * g.a_batch + row as i64 * g.a_row) as isize);
    let x = x.wrapping_offset((z * g.x_batch) as isize);
    let mut acc = [T::ZERO; 4];
    let mut p = lane;
    while p + 96 < g.k {
        unroll!(u in 0..4 => {
            let q = (p + 32 * u as u32) as i64;
            // SAFETY: q < k.
            let (av, xv) = unsafe {
                (*a.wrapping_offset((q * g.a_col) as isize), *x.wrapping_offset((q * g.x_inc) as isize))
            };
            acc[u.min(3)] = T::fma(av, xv, acc[u.min(3)]);
        });
        p += 128;
    }
    while p < g.k {
        let q = p as i64;
        // SAFETY: q < k.
        let (av, xv) = unsafe {
            (
                *a.wrapping_offset((q * g.a_col) as isize),
                *x.wrapping_offset((q * g.x_inc) as isize),
            )
        };
        acc[0] = T::fma(av, xv, acc[0]);
        p += 32;
    }
    let mut v = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    let mut d = 16;
    while d > 0 {
        v = v + shfl_down_words(v, d);
        d /= 2;
    }
    if lane == 0 {
        // SAFETY: (z, row) is inside y.
        unsafe { *y.wrapping_offset((z * g.y_batch + row as i64 * g.y_inc) as isize) = v };
    }
}

/// `cols` variant (any layout; meant for `a_row == 1`, as in `x @ A` with a row-major
/// `A`): block `b` takes rows `32*b ..` with lane `l` on row `32*b + l`, so a warp reads 32
/// consecutive elements of a column; the block's `WARPS` warps split `p` (warp `w` takes
/// `p = w, w + WARPS, ...`) and add their partial sums through shared memory
/// (`GEMV_COLS_THREADS * size_of::<T>()` bytes).
///
/// # Safety
/// As for `gemv_rows`, with `GEMV_COLS_THREADS` threads and the shared memory above.
#[inline(always)]
unsafe fn gemv_cols<T: Vector>(g: Gemv, a: *const T, x: *const T, y: *mut T) {
    const WARPS: u32 = GEMV_COLS_THREADS / 32;
    let z = block_idx_y() as i64;
    let lane = thread_idx() % 32;
    let warp = thread_idx() / 32;
    let row = block_idx() * 32 + lane;
    // Eight loads in flight per thread (eight partial sums): a grid of 32-row blocks is
    // small, so each warp must keep more bytes in flight.
    let mut acc = [T::ZERO; 8];
    if row < g.m {
        let a = a.wrapping_offset((z * g.a_batch + row as i64 * g.a_row) as isize);
        let x = x.wrapping_offset((z * g.x_batch) as isize);
        let mut p = warp;
        while p + 7 * WARPS < g.k {
            unroll!(u in 0..8 => {
                let q = (p + WARPS * u as u32) as i64;
                // SAFETY: q < k.
                let (av, xv) = unsafe {
                    (*a.wrapping_offset((q * g.a_col) as isize), *x.wrapping_offset((q * g.x_inc) as isize))
                };
                acc[u.min(7)] = T::fma(av, xv, acc[u.min(7)]);
            });
            p += 8 * WARPS;
        }
        while p < g.k {
            let q = p as i64;
            // SAFETY: q < k.
            let (av, xv) = unsafe {
                (
                    *a.wrapping_offset((q * g.a_col) as isize),
                    *x.wrapping_offset((q * g.x_inc) as isize),
                )
            };
            acc[0] = T::fma(av, xv, acc[0]);
            p += WARPS;
        }
    }
    let part = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    let size = size_of::<T>() as u32;
    // SAFETY: slot (warp, lane) of the WARPS x 32 the host provides.
    unsafe { <T as Shared>::st_shared(smem_addr((warp * 32 + lane) * size), part) };
    sync_threads();
    if warp == 0 && row < g.m {
        let mut v = T::ZERO;
        for w in 0..WARPS {
            // SAFETY: written above, before the barrier.
            v = v + unsafe { <T as Shared>::ld_shared(smem_addr((w * 32 + lane) * size)) };
        }
        // SAFETY: (z, row) is inside y.
        unsafe { *y.wrapping_offset((z * g.y_batch + row as i64 * g.y_inc) as isize) = v };
    }
}

/// `gpupy_gemv_<ty>_{rows,cols}`.
macro_rules! gemv_entries {
    ([] $($ty:ident)*) => {$(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_gemv_", stringify!($ty), "_rows"))]
            unsafe extern "ptx-kernel" fn rows(g: Gemv, a: *const $ty, x: *const $ty, y: *mut $ty) {
                // SAFETY: the host launches per `tiles::Gemv` and checks the strides.
                unsafe { gemv_rows::<$ty>(g, a, x, y) }
            }
            #[unsafe(export_name = concat!("gpupy_gemv_", stringify!($ty), "_cols"))]
            unsafe extern "ptx-kernel" fn cols(g: Gemv, a: *const $ty, x: *const $ty, y: *mut $ty) {
                // SAFETY: as above.
                unsafe { gemv_cols::<$ty>(g, a, x, y) }
            }
        };
    )*};
}
crate::for_each_gemv_type!(gemv_entries);
