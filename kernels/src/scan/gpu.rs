use super::{Combine, Prod, ScanArgs, ScanElem, Sum, items_per_thread, load_value};
use crate::dtype::{c64, c128};
use crate::gpu::{
    Shared, block_dim, block_idx, grid_dim, grid_stride, shfl_up_words, smem_addr, sync_threads,
    thread_idx, unroll,
};

/// An accumulator as 32-bit words, the unit shuffles and the shared slots move.
trait Words: Copy {
    const W: usize;
    fn word(self, i: usize) -> u32;
    fn from_words(w: [u32; 4]) -> Self;
}
impl Words for f32 {
    const W: usize = 1;
    #[inline(always)]
    fn word(self, _: usize) -> u32 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_words(w: [u32; 4]) -> f32 {
        f32::from_bits(w[0])
    }
}
impl Words for f64 {
    const W: usize = 2;
    #[inline(always)]
    fn word(self, i: usize) -> u32 {
        (self.to_bits() >> (32 * i)) as u32
    }
    #[inline(always)]
    fn from_words(w: [u32; 4]) -> f64 {
        f64::from_bits(w[0] as u64 | (w[1] as u64) << 32)
    }
}
impl Words for i64 {
    const W: usize = 2;
    #[inline(always)]
    fn word(self, i: usize) -> u32 {
        (self as u64 >> (32 * i)) as u32
    }
    #[inline(always)]
    fn from_words(w: [u32; 4]) -> i64 {
        (w[0] as u64 | (w[1] as u64) << 32) as i64
    }
}
impl Words for c128 {
    const W: usize = 4;
    #[inline(always)]
    fn word(self, i: usize) -> u32 {
        if i < 2 {
            self.re.word(i)
        } else {
            self.im.word(i - 2)
        }
    }
    #[inline(always)]
    fn from_words(w: [u32; 4]) -> c128 {
        c128::new(
            f64::from_words([w[0], w[1], 0, 0]),
            f64::from_words([w[2], w[3], 0, 0]),
        )
    }
}

#[inline(always)]
fn shfl_up<A: Words>(v: A, d: u32) -> A {
    let mut w = [0u32; 4];
    unroll!(i in 0..A::W => {
        w[i] = shfl_up_words(v.word(i), d);
    }; 0 1 2 3);
    A::from_words(w)
}

/// Bytes per warp slot in shared memory (the widest accumulator, complex128).
const SLOT: u32 = 16;

/// # Safety
/// `slot < 32`; the launch gives `ROWS_SHARED_BYTES` of shared memory.
#[inline(always)]
unsafe fn st_slot<A: Words>(slot: u32, v: A) {
    unroll!(i in 0..A::W => {
        // SAFETY: inside the slot, per the contract.
        unsafe { u32::st_shared(smem_addr(slot * SLOT + 4 * i as u32), v.word(i)) };
    }; 0 1 2 3);
}

/// # Safety
/// As for `st_slot`, and the slot was written before a barrier.
#[inline(always)]
unsafe fn ld_slot<A: Words>(slot: u32) -> A {
    let mut w = [0u32; 4];
    unroll!(i in 0..A::W => {
        // SAFETY: as above.
        w[i] = unsafe { u32::ld_shared(smem_addr(slot * SLOT + 4 * i as u32)) };
    }; 0 1 2 3);
    A::from_words(w)
}

/// Exclusive scan of `v` over the block, in thread order, and the block's total.
/// Every thread of the block must call it (it has barriers); the block size is a
/// multiple of 32, at most 1024.
#[inline(always)]
fn block_scan<A: Words, O: Combine<A>>(v: A) -> (A, A) {
    let lane = thread_idx() % 32;
    let warp = thread_idx() / 32;
    let mut inc = v;
    let mut d = 1;
    while d < 32 {
        let up = shfl_up(inc, d);
        if lane >= d {
            inc = O::op(up, inc);
        }
        d *= 2;
    }
    let prev = shfl_up(inc, 1);
    let excl_in_warp = if lane == 0 { O::ID } else { prev };
    if lane == 31 {
        // SAFETY: warp < 32.
        unsafe { st_slot(warp, inc) };
    }
    sync_threads();
    let (mut before, mut total) = (O::ID, O::ID);
    let mut w = 0;
    while w < block_dim() / 32 {
        // SAFETY: every warp wrote its slot before the barrier.
        let s: A = unsafe { ld_slot(w) };
        if w < warp {
            before = O::op(before, s);
        }
        total = O::op(total, s);
        w += 1;
    }
    // The slots are read by every thread before the next call overwrites them.
    sync_threads();
    (O::op(before, excl_in_warp), total)
}

/// This part's element range `[begin, end)` of a line.
#[inline(always)]
fn part_range(a: &ScanArgs, part: u64) -> (u64, u64) {
    let begin = part * a.part_len;
    let end = begin + a.part_len;
    (begin, if end < a.n { end } else { a.n })
}

/// Scans whole lines (or parts of them, starting from the totals in `carry`), one
/// block per (line, part) work item, tile by tile.
///
/// # Safety
/// Every offset `a` produces lies inside `x` and `y`; `carry` holds `lines * parts`
/// accumulators, line-major (the inclusive scan of `rows_reduce`'s output) when
/// `parts > 1`; the launch gives `ROWS_SHARED_BYTES`; `y` overlaps `x` only exactly.
#[inline(always)]
unsafe fn rows<E, O, const N: usize>(a: &ScanArgs, x: *const E, y: *mut E, carry: *const E::Acc)
where
    E: ScanElem,
    E::Acc: Words,
    O: Combine<E::Acc>,
{
    let t = thread_idx() as u64;
    let tile = block_dim() as u64 * N as u64;
    let nan = a.nan != 0;
    let work = a.lines.len * a.parts;
    let mut w = block_idx() as u64;
    while w < work {
        let (line, part) = (w / a.parts, w % a.parts);
        let [xo, yo] = a.lines.offsets(line);
        let (begin, end) = part_range(a, part);
        // SAFETY: index w - 1 < lines * parts, per the contract.
        let mut run = if part > 0 {
            unsafe { *carry.add(w as usize - 1) }
        } else {
            O::ID
        };
        let mut t0 = begin;
        while t0 < end {
            let first = t0 + t * N as u64;
            let mut v = [O::ID; N];
            unroll!(k in 0..N => {
                let i = first + k as u64;
                if i < end {
                    // SAFETY: i < n, inside the line.
                    let e = unsafe { *x.offset((xo + i as i64 * a.step[0]) as isize) };
                    v[k] = load_value::<E, O>(e, nan);
                }
            });
            unroll!(k in 0..N => {
                if k > 0 {
                    v[k] = O::op(v[k - 1], v[k]);
                }
            });
            let (excl, total) = block_scan::<E::Acc, O>(v[N - 1]);
            let base = O::op(run, excl);
            unroll!(k in 0..N => {
                let i = first + k as u64;
                if i < end {
                    // SAFETY: as above, for y.
                    unsafe {
                        *y.offset((yo + i as i64 * a.step[1]) as isize) =
                            E::narrow(O::op(base, v[k]))
                    };
                }
            });
            run = O::op(run, total);
            t0 += tile;
        }
        w += grid_dim() as u64;
    }
}

/// `partials[line * parts + part]` = the combine of one part of a line (one block per
/// work item, reading the part striped across the block, which coalesces).
///
/// # Safety
/// Every offset `a` produces lies inside `x`; `partials` holds `lines * parts`
/// accumulators; the launch gives `ROWS_SHARED_BYTES`.
#[inline(always)]
unsafe fn rows_reduce<E, O, const N: usize>(a: &ScanArgs, x: *const E, partials: *mut E::Acc)
where
    E: ScanElem,
    E::Acc: Words,
    O: Combine<E::Acc>,
{
    let b = block_dim() as u64;
    let t = thread_idx() as u64;
    let nan = a.nan != 0;
    let work = a.lines.len * a.parts;
    let mut w = block_idx() as u64;
    while w < work {
        let (line, part) = (w / a.parts, w % a.parts);
        let [xo, _] = a.lines.offsets(line);
        let (begin, end) = part_range(a, part);
        let mut acc = [O::ID; N];
        let mut t0 = begin;
        while t0 < end {
            unroll!(k in 0..N => {
                let i = t0 + t + k as u64 * b;
                if i < end {
                    // SAFETY: i < n, inside the line.
                    let e = unsafe { *x.offset((xo + i as i64 * a.step[0]) as isize) };
                    acc[k] = O::op(acc[k], load_value::<E, O>(e, nan));
                }
            });
            t0 += b * N as u64;
        }
        let mut v = O::ID;
        unroll!(k in 0..N => {
            v = O::op(v, acc[k]);
        });
        let (_, total) = block_scan::<E::Acc, O>(v);
        if t == 0 {
            // SAFETY: w < lines * parts.
            unsafe { *partials.add(w as usize) = total };
        }
        w += grid_dim() as u64;
    }
}

/// One thread per (part, line) work item, walking its part of the line serially.
///
/// # Safety
/// Every offset `a` produces lies inside `x` and `y`; `carry` holds `parts * lines`
/// accumulators, part-major (the inclusive scan of `cols_reduce`'s output along the
/// parts) when `parts > 1`; `y` overlaps `x` only exactly.
#[inline(always)]
unsafe fn cols<E, O>(a: &ScanArgs, x: *const E, y: *mut E, carry: *const E::Acc)
where
    E: ScanElem,
    O: Combine<E::Acc>,
{
    let nan = a.nan != 0;
    let lines = a.lines.len;
    let work = lines * a.parts;
    let (start, stride) = grid_stride();
    let mut w = start;
    while w < work {
        let (part, line) = (w / lines, w % lines);
        let [xo, yo] = a.lines.offsets(line);
        let (begin, end) = part_range(a, part);
        // SAFETY: w - lines < parts * lines, per the contract.
        let mut run = if part > 0 {
            unsafe { *carry.add((w - lines) as usize) }
        } else {
            O::ID
        };
        let mut i = begin;
        // Four loads issued before the dependent combines keep memory busy.
        while i + 4 <= end {
            let mut v = [O::ID; 4];
            unroll!(k in 0..4 => {
                // SAFETY: i + k < end <= n, inside the line.
                let e = unsafe { *x.offset((xo + (i + k as u64) as i64 * a.step[0]) as isize) };
                v[k] = load_value::<E, O>(e, nan);
            });
            unroll!(k in 0..4 => {
                run = O::op(run, v[k]);
                // SAFETY: as above, for y.
                unsafe { *y.offset((yo + (i + k as u64) as i64 * a.step[1]) as isize) = E::narrow(run) };
            });
            i += 4;
        }
        while i < end {
            // SAFETY: i < end <= n.
            let e = unsafe { *x.offset((xo + i as i64 * a.step[0]) as isize) };
            run = O::op(run, load_value::<E, O>(e, nan));
            // SAFETY: as above.
            unsafe { *y.offset((yo + i as i64 * a.step[1]) as isize) = E::narrow(run) };
            i += 1;
        }
        w += stride;
    }
}

/// `partials[part * lines + line]` = the combine of one part of one line.
///
/// # Safety
/// Every offset `a` produces lies inside `x`; `partials` holds `parts * lines`
/// accumulators.
#[inline(always)]
unsafe fn cols_reduce<E, O>(a: &ScanArgs, x: *const E, partials: *mut E::Acc)
where
    E: ScanElem,
    O: Combine<E::Acc>,
{
    let nan = a.nan != 0;
    let lines = a.lines.len;
    let work = lines * a.parts;
    let (start, stride) = grid_stride();
    let mut w = start;
    while w < work {
        let (part, line) = (w / lines, w % lines);
        let [xo, _] = a.lines.offsets(line);
        let (begin, end) = part_range(a, part);
        let mut acc = [O::ID; 4];
        let mut i = begin;
        while i + 4 <= end {
            unroll!(k in 0..4 => {
                // SAFETY: i + k < end <= n.
                let e = unsafe { *x.offset((xo + (i + k as u64) as i64 * a.step[0]) as isize) };
                acc[k] = O::op(acc[k], load_value::<E, O>(e, nan));
            });
            i += 4;
        }
        while i < end {
            // SAFETY: i < end <= n.
            let e = unsafe { *x.offset((xo + i as i64 * a.step[0]) as isize) };
            acc[0] = O::op(acc[0], load_value::<E, O>(e, nan));
            i += 1;
        }
        let total = O::op(O::op(acc[0], acc[1]), O::op(acc[2], acc[3]));
        // SAFETY: w < parts * lines.
        unsafe { *partials.add(w as usize) = total };
        w += stride;
    }
}

macro_rules! scan_entries {
    ([] $(($op:ident, $O:ident, [$($t:ident)*]))*) => { $($(
        const _: () = {
            type Acc = <$t as ScanElem>::Acc;
            const N: usize = items_per_thread(core::mem::size_of::<$t>());
            #[unsafe(export_name = concat!("gpupy_scan_", stringify!($op), "_", stringify!($t), "_rows"))]
            unsafe extern "ptx-kernel" fn r(a: ScanArgs, x: *const $t, y: *mut $t, carry: *const Acc) {
                // SAFETY: the host launches per rows' contract.
                unsafe { rows::<$t, $O, N>(&a, x, y, carry) }
            }
            #[unsafe(export_name = concat!("gpupy_scan_", stringify!($op), "_", stringify!($t), "_rows_reduce"))]
            unsafe extern "ptx-kernel" fn rr(a: ScanArgs, x: *const $t, partials: *mut Acc) {
                // SAFETY: the host launches per rows_reduce's contract.
                unsafe { rows_reduce::<$t, $O, N>(&a, x, partials) }
            }
            #[unsafe(export_name = concat!("gpupy_scan_", stringify!($op), "_", stringify!($t), "_cols"))]
            unsafe extern "ptx-kernel" fn c(a: ScanArgs, x: *const $t, y: *mut $t, carry: *const Acc) {
                // SAFETY: the host launches per cols' contract.
                unsafe { cols::<$t, $O>(&a, x, y, carry) }
            }
            #[unsafe(export_name = concat!("gpupy_scan_", stringify!($op), "_", stringify!($t), "_cols_reduce"))]
            unsafe extern "ptx-kernel" fn cr(a: ScanArgs, x: *const $t, partials: *mut Acc) {
                // SAFETY: the host launches per cols_reduce's contract.
                unsafe { cols_reduce::<$t, $O>(&a, x, partials) }
            }
        };
    )*)* };
}
crate::for_each_scan!(scan_entries);
