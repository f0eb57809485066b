//! The vector-streaming 2-d correlation kernels (`vstream.rs`): a warp per strip and run
//! of rows, a 16-byte vector of `V` columns per lane and row, `K x K` weights, `K`
//! partial sums per column and `AHEAD` rows read ahead in registers.

use super::boundary::{Mode, map_coord32};
use super::gpu::Acc;
use super::vstream::{VSTREAM_WARPS, VStream2d, lane_source};
use crate::gpu::{block_idx, shfl_down_words, shfl_up_words, thread_idx, unroll};
use crate::reduce::reduction::Words;

/// A lane's 16 bytes of a row, so a load or store of them is one vector instruction.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Chunk<T: Copy, const V: usize>([T; V]);

/// `out = correlate(x, w)` for `K x K` weights centred along the rows, `V` columns per
/// lane (see `vstream.rs`).
///
/// # Safety
/// `x` and `out` hold `a.batch * a.h * a.w` elements and are 16-byte aligned, `a.w` is a
/// multiple of `V` and `V * size_of::<T>() == 16`; `a.k == K`, `a.v == V`; the `K x K`
/// weights lie at `w` plus `a * ws0 + b * ws1`; the grid has at least
/// `a.tasks() / VSTREAM_WARPS` blocks of `VSTREAM_BLOCK` threads (warps past the last task
/// return at once, whole).
#[inline(always)]
unsafe fn vstream2d<T: Acc + Words, const K: usize, const V: usize, const AHEAD: usize>(
    x: *const T,
    w: *const T,
    out: *mut T,
    a: &VStream2d,
) {
    const { assert!(K <= 7 && K % 2 == 1 && V <= 4 && V + K - 1 <= 16) };
    let lane = thread_idx() % 32;
    let task = block_idx() as u64 * VSTREAM_WARPS as u64 + (thread_idx() / 32) as u64;
    if task >= a.tasks() {
        return;
    }
    let (strip, r0, r1, z) = a.task(task as u32);
    let c0 = a.first_column(strip, lane);
    let mode = Mode::from_code(a.mode);
    let cval = T::from_f64(a.cval);
    let image = x.wrapping_add(z as usize * a.h as usize * a.w as usize);
    // The lane's vector inside the image (one load), or its columns mapped one by one.
    let inside_cols = c0 >= 0 && c0 as i64 + V as i64 <= a.w as i64;
    let cols: [Option<i32>; V] =
        core::array::from_fn(|e| map_coord32(c0 + e as i32, a.w as i32, mode));
    // Weights in registers (constant indices once the loops unroll).
    let mut wv = [[T::ZERO; K]; K];
    unroll!(ka in 0..K => {
        unroll!(kb in 0..K => {
            // SAFETY: weight (ka, kb) lies at that offset of the weights' view.
            wv[ka][kb] = unsafe {
                *w.offset((ka as isize) * a.ws0 as isize + (kb as isize) * a.ws1 as isize)
            };
        }; 0 1 2 3 4 5 6);
    }; 0 1 2 3 4 5 6);
    // The run's input rows: y0, y0 + 1, ... (its outputs' and the window's K - 1 more).
    let y0 = r0 as i32 - a.cy;
    let rows_in = r1 - r0 + K as u32 - 1;
    // Every one inside the image: no mapping (warp-uniform).
    let inside_rows = y0 >= 0 && y0 as i64 + rows_in as i64 <= a.h as i64;
    // The lane's vector of the run's input row q (cval past the run: the reads ahead
    // of its last rows).
    let read = |q: u32| -> [T; V] {
        if q >= rows_in {
            return [cval; V];
        }
        let y = y0 + q as i32;
        let r = if inside_rows { Some(y) } else { a.row(y) };
        match r {
            Some(r) => {
                let line = image.wrapping_add(r as usize * a.w as usize);
                if inside_cols {
                    // SAFETY: columns c0 .. c0 + V of row r lie inside the image, at a
                    // multiple of 16 bytes from its (aligned) start (w and c0 are
                    // multiples of V).
                    unsafe { line.add(c0 as usize).cast::<Chunk<T, V>>().read().0 }
                } else {
                    // SAFETY: mapped columns lie inside the row.
                    core::array::from_fn(|e| {
                        cols[e].map_or(cval, |c| unsafe { *line.add(c as usize) })
                    })
                }
            }
            None => [cval; V],
        }
    };
    // The lane's window of a row: input columns c0 - K / 2 .. c0 + V + K / 2, its own
    // vector's and its neighbours' (`vstream::lane_source`) by shuffles. A halo lane's
    // window reaches past the warp and is garbage there; it writes nothing.
    let window = |own: [T; V]| -> [T; 16] {
        let mut win = [own[0]; 16];
        unroll!(idx in 0..V + K - 1 => {
            let (off, e) = lane_source(idx as i32 - (K / 2) as i32, V as u32);
            win[idx] = if off == 0 {
                own[e]
            } else if off < 0 {
                shfl_up_words(own[e], (-off) as u32)
            } else {
                shfl_down_words(own[e], off as u32)
            };
        });
        win
    };
    let writes = a.writes(lane) && (c0 as i64) < a.w as i64;
    let mut dst = out.wrapping_add(
        (z as usize * a.h as usize + r0 as usize) * a.w as usize + c0.max(0) as usize,
    );
    // acc[i][e]: partial sum i (weight row K - 1 - i) of the lane's column e.
    let mut acc = [[T::ZERO; V]; K];
    // (Macros rather than closures: a closure this long is not always inlined, and its
    // captures then live in local memory.)
    // A row's window added to the partial sums it belongs to.
    macro_rules! add_row {
        ($win:expr) => {{
            let win: [T; 16] = $win;
            unroll!(i in 0..K => {
                unroll!(e in 0..V => {
                    unroll!(b in 0..K => {
                        acc[i][e] = T::fma(wv[K - 1 - i][b], win[e + b], acc[i][e]);
                    }; 0 1 2 3 4 5 6);
                }; 0 1 2 3);
            }; 0 1 2 3 4 5 6);
        }};
    }
    // The oldest partial sum, complete: stored by the writing lanes; the output row moves
    // down one.
    macro_rules! emit {
        () => {{
            if writes {
                // SAFETY: the run's next output row r < r1 <= h; columns c0 .. c0 + V lie
                // inside it (c0 < w, both multiples of V), 16-byte aligned.
                unsafe { dst.cast::<Chunk<T, V>>().write(Chunk(acc[0])) };
            }
            dst = dst.wrapping_add(a.w as usize);
        }};
    }
    // The partial sums moved up one, a zero one last. (Moves by constant indices:
    // `rotate_left` goes through local memory.)
    macro_rules! shift {
        () => {
            acc = core::array::from_fn(|i| if i + 1 < K { acc[i + 1] } else { [T::ZERO; V] })
        };
    }

    // Interior runs (every input row inside the image and every lane's vector inside
    // its row: warp-uniform) long enough for the warm-up and one pass of the main loop,
    // in float64: a pointer walks down the rows, each read is one load, and each row
    // after the first K - 1 stores, with about half the instructions per row of the
    // general steps below (whose reads map coordinates and whose stores test the row).
    // Measured on an H200 over 4096^2 (general steps -> these): float64 3x3 79.4 ->
    // 79.0 us, 5x5 94.7 -> 92.2, 7x7 142.9 -> 129.9; float32 3x3 44.3 -> 43.9, 5x5 46.4
    // -> 47.2, 7x7 64.2 -> 67.6, so float32 keeps the general steps.
    let strip_inside =
        a.first_column(strip, 0) >= 0 && a.first_column(strip, 31) as i64 + V as i64 <= a.w as i64;
    if V == 2 && inside_rows && strip_inside && rows_in >= (K - 1 + 2 * AHEAD) as u32 {
        let stride = a.w as usize;
        // The lane's vector of the row `next` points at.
        let load = |p: *const T| -> [T; V] {
            // (Never null. Without this test the loads went to other registers than
            // their slots', copied back at the loop's end, where the warp then waited for
            // all the pass's loads: 5-12% slower in float64. The branch keeps them in place.)
            if p.is_null() {
                return [cval; V];
            }
            // SAFETY: `next` only walks the run's input rows y0 .. y0 + rows_in, all
            // inside the image (inside_rows), and columns c0 .. c0 + V lie inside each
            // (strip_inside) at a multiple of 16 bytes from the image's aligned start.
            unsafe { p.cast::<Chunk<T, V>>().read().0 }
        };
        let mut next = image.wrapping_add(y0 as usize * stride + c0 as usize);
        // Slot s holds the next row q with q = s (mod AHEAD).
        let mut ahead = [[T::ZERO; V]; AHEAD];
        unroll!(s in 0..AHEAD => {
            ahead[s] = load(next);
            next = next.wrapping_add(stride);
        });
        // The warm-up: rows 0 .. K - 1 complete no output.
        unroll!(s in 0..K - 1 => {
            add_row!(window(ahead[s % AHEAD]));
            ahead[s % AHEAD] = load(next);
            next = next.wrapping_add(stride);
            shift!();
        }; 0 1 2 3 4 5);
        // Every row of a pass reads row q + AHEAD < rows_in.
        let mut q = K as u32 - 1;
        while q + 2 * AHEAD as u32 <= rows_in {
            unroll!(s in 0..AHEAD => {
                let slot = (s + K - 1) % AHEAD;
                add_row!(window(ahead[slot]));
                ahead[slot] = load(next);
                next = next.wrapping_add(stride);
                emit!();
                shift!();
            });
            q += AHEAD as u32;
        }
        // The last rows, reading only those of the run.
        while q < rows_in {
            unroll!(s in 0..AHEAD => {
                if q < rows_in {
                    let slot = (s + K - 1) % AHEAD;
                    add_row!(window(ahead[slot]));
                    if q + (AHEAD as u32) < rows_in {
                        ahead[slot] = load(next);
                        next = next.wrapping_add(stride);
                    }
                    emit!();
                    shift!();
                    q += 1;
                }
            });
        }
        return;
    }

    // The general steps: input row q from its slot, and the slot refilled with row
    // q + AHEAD (mapped, or cval).
    macro_rules! step {
        ($slot:expr, $q:expr) => {{
            let q: u32 = $q;
            let win = window($slot);
            $slot = read(q + AHEAD as u32);
            add_row!(win);
            if q + 1 >= K as u32 {
                emit!();
            }
            shift!();
        }};
    }
    // Slot s holds the next row q with q = s (mod AHEAD); the steps name the slots by
    // constants (LLVM does not unroll a loop this long), so they stay registers.
    let mut ahead: [[T; V]; AHEAD] = core::array::from_fn(|s| read(s as u32));
    let mut q = 0;
    while q < rows_in {
        unroll!(s in 0..AHEAD => {
            if q < rows_in {
                step!(ahead[s], q);
                q += 1;
            }
        });
    }
}

/// Rows each warp has read ahead of the one it sums. Measured on an H200 (4096^2): 8
/// was 10% slower than 4 at 3x3 (more registers, fewer warps), 6 within 4% of 4 at 5x5,
/// 2 was 13-20% slower at 5x5.
const AHEAD: usize = 4;

macro_rules! vstream_entries {
    ([] $($t:ident)*) => { $(
        const _: () = {
            const V: usize = 16 / core::mem::size_of::<$t>();
            #[unsafe(export_name = concat!("gpupy_vstream2d_3_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn v3(a: VStream2d, x: *const $t, w: *const $t, out: *mut $t) {
                // SAFETY: the host launches per vstream2d's contract.
                unsafe { vstream2d::<$t, 3, V, AHEAD>(x, w, out, &a) }
            }
            #[unsafe(export_name = concat!("gpupy_vstream2d_5_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn v5(a: VStream2d, x: *const $t, w: *const $t, out: *mut $t) {
                // SAFETY: the host launches per vstream2d's contract.
                unsafe { vstream2d::<$t, 5, V, AHEAD>(x, w, out, &a) }
            }
            #[unsafe(export_name = concat!("gpupy_vstream2d_7_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn v7(a: VStream2d, x: *const $t, w: *const $t, out: *mut $t) {
                // SAFETY: the host launches per vstream2d's contract.
                unsafe { vstream2d::<$t, 7, V, AHEAD>(x, w, out, &a) }
            }
        };
    )* };
}
crate::for_each_filter_type!(vstream_entries);
