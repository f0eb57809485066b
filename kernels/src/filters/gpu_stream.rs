//! The streaming 2-d correlation kernels (`stream.rs`): a warp per strip of 32 columns
//! and run of rows, `K x K` weights and the last `K` rows' tap values in registers.

use super::gpu::Acc;
use super::stream::{STREAM_WARPS, Stream2d};
use crate::gpu::{block_idx, shfl_down_words, shfl_up_words, thread_idx};
use crate::reduce::reduction::Words;

/// `out = correlate(x, w)` for `K x K` weights by streaming warps (see `stream.rs`).
///
/// # Safety
/// `x` and `out` hold `a.batch * a.h * a.w` elements; the `K x K` weights lie at `w`
/// plus `a * ws0 + b * ws1`; the grid has at least `a.tasks() / STREAM_WARPS` blocks of
/// `STREAM_BLOCK` threads (warps past the last task return at once, whole).
#[inline(always)]
// The window loops index `win` by the row they also compute from (`ka` is a row offset).
#[allow(clippy::needless_range_loop)]
unsafe fn stream2d<T: Acc + Words, const K: usize>(
    x: *const T,
    w: *const T,
    out: *mut T,
    a: &Stream2d,
) {
    let lane = thread_idx() % 32;
    let task = block_idx() as u64 * STREAM_WARPS as u64 + (thread_idx() / 32) as u64;
    if task >= a.tasks() {
        return;
    }
    let (strip, r0, r1, z) = a.task(task as u32);
    let k = K as u32;
    let (own, halo) = a.lane_columns(strip, lane, k);
    let cval = T::from_f64(a.cval);
    let image = x.wrapping_add(z as usize * a.h as usize * a.w as usize);
    // Weights in registers (constant indices once the loops unroll).
    let mut wv = [[T::ZERO; K]; K];
    for (ka, row) in wv.iter_mut().enumerate() {
        for (kb, v) in row.iter_mut().enumerate() {
            // SAFETY: weight (ka, kb) lies at that offset of the weights' view.
            *v = unsafe {
                *w.offset((ka as isize) * a.ws0 as isize + (kb as isize) * a.ws1 as isize)
            };
        }
    }
    // Every row the run reads (its rows, the window's K - 1 more and the reads ahead)
    // inside the image: no mapping (warp-uniform).
    let last = r1 as i64 - a.cy as i64 + K as i64 + AHEAD as i64;
    let inside_rows = r0 as i64 - (a.cy as i64) >= 0 && last <= a.h as i64;
    // This lane's (own, halo) values of input row y.
    let read = |y: i32| -> (T, T) {
        let r = if inside_rows { Some(y) } else { a.row(y) };
        match r {
            Some(r) => {
                let line = image.wrapping_add(r as usize * a.w as usize);
                // SAFETY: mapped rows and columns lie inside the image.
                let at = |c: Option<i32>| c.map_or(cval, |c| unsafe { *line.add(c as usize) });
                (at(own), at(halo))
            }
            None => (cval, cval),
        }
    };
    // The K tap values of a row for this lane's output column: lane `lane + b`'s own
    // value, or past the strip's edge lane `lane + b - 32`'s halo value
    // (`stream::tap_source`), by a shuffle down and a shuffle up.
    let taps = |(o, e): (T, T)| -> [T; K] {
        let mut t = [o; K];
        for (b, v) in t.iter_mut().enumerate().skip(1) {
            let b = b as u32;
            let (from_own, from_halo) = (shfl_down_words(o, b), shfl_up_words(e, 32 - b));
            *v = if lane + b < 32 { from_own } else { from_halo };
        }
        t
    };
    let y0 = r0 as i32 - a.cy;
    // win[ka] holds the taps of input row i - cy + ka for output row i; rows
    // y0 .. y0 + K - 2 first, shifted in as the walk starts.
    let mut win = [[cval; K]; K];
    for ka in 1..K {
        win[ka] = taps(read(y0 + ka as i32 - 1));
    }
    // AHEAD rows read ahead, so that a warp keeps loads in flight while it sums.
    let first = y0 + K as i32 - 1;
    let mut ahead = [
        read(first),
        read(first + 1),
        read(first + 2),
        read(first + 3),
    ];
    let column = strip * 32 + lane;
    let mut dst = out
        .wrapping_add((z as usize * a.h as usize + r0 as usize) * a.w as usize + column as usize);
    let mut i = r0;
    while i < r1 {
        let row = ahead[0];
        ahead = [
            ahead[1],
            ahead[2],
            ahead[3],
            read(first + (i - r0) as i32 + AHEAD as i32),
        ];
        for ka in 0..K - 1 {
            win[ka] = win[ka + 1];
        }
        win[K - 1] = taps(row);
        let mut acc = T::ZERO;
        for ka in 0..K {
            for kb in 0..K {
                acc = T::fma(wv[ka][kb], win[ka][kb], acc);
            }
        }
        if column < a.w {
            // SAFETY: i < h and column < w: inside the output image.
            unsafe { *dst = acc };
        }
        dst = dst.wrapping_add(a.w as usize);
        i += 1;
    }
}

/// Rows each warp reads ahead of the one it sums.
const AHEAD: usize = 4;

macro_rules! stream_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_stream2d_3_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn s3(a: Stream2d, x: *const $t, w: *const $t, out: *mut $t) {
                // SAFETY: the host launches per stream2d's contract.
                unsafe { stream2d::<$t, 3>(x, w, out, &a) }
            }
        };
    )* };
}
crate::for_each_filter_type!(stream_entries);
