//! Scans (`cumsum`, `cumprod` and their NaN-skipping forms) along one axis of an N-d
//! array, written once and stamped per (op, element type) by `scan_entries!`.
//!
//! The host sees a scan as `lines` independent lines of `n` elements: `ScanArgs::lines`
//! maps a line index to the (input, output) offsets of its first element, and `step`
//! walks along the line. No transpose copy is needed for any axis. Two strategies:
//!
//! - `rows`: the elements of a line are contiguous (the last axis, or any axis with unit
//!   stride). A block scans tiles of `block * N` elements: each thread scans its `N`
//!   consecutive elements in registers, the block scans the thread totals (warp shuffles,
//!   then one shared slot per warp), and a running carry crosses tiles. A long line is
//!   cut into `parts` that many blocks scan at once, reduce-then-scan: `rows_reduce`
//!   writes each part's total, the host scans those totals (with these same kernels) and
//!   `rows` starts each part from the total of the parts before it.
//! - `cols`: each thread owns one line and walks it serially. With lines adjacent in
//!   memory (scanning across rows: a non-last axis) neighbouring threads read neighbouring
//!   addresses, so every access coalesces. Too few lines to fill the GPU are cut into
//!   parts the same way (`cols_reduce`, host scan of the totals, `cols`).
//!
//! Accuracy: each element type scans in a wider accumulator where one exists (float16 in
//! float32, float32 in float64, complex64 in complex128) and rounds once per output, so a
//! float32 cumsum stays close to the float64 result instead of a serial float32 loop's.
//! Integers scan in int64 with wrapping arithmetic: the host casts every integer (and bool)
//! input to int64 first, and uint64 shares the int64 kernels (wrapping `+`/`*` are the
//! same bits).
//!
//! The element semantics (`ScanElem`, `Combine`) and the launch struct compile for the host
//! too, where `cargo test` checks them; the kernels exist only in the nvptx64 build.

use crate::args::Strided;
use crate::dtype::{c64, c128};
use crate::ops::complex as cx;

/// Launch parameters of every scan kernel, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanArgs {
    /// Line index -> (input, output) element offset of the line's first element;
    /// `lines.len` is the number of lines.
    pub lines: Strided<2>,
    /// Elements per line.
    pub n: u64,
    /// Element strides along a line: (input, output).
    pub step: [i64; 2],
    /// Parts each line is cut into (1: one pass).
    pub parts: u64,
    /// Elements per part (the last part may be shorter). For `rows` a multiple of the
    /// tile (`block * items_per_thread`) unless `parts == 1`.
    pub part_len: u64,
    /// Nonzero: NaN inputs count as the op's identity (`nancumsum`, `nancumprod`).
    pub nan: u32,
    pub _pad: u32,
}

/// Elements each thread of a `rows` block holds in registers, by element size: enough
/// loads in flight per thread while the accumulators (twice as wide for float32) fit.
pub const fn items_per_thread(elem_bytes: usize) -> usize {
    match elem_bytes {
        0..=4 => 8,
        5..=8 => 4,
        _ => 2,
    }
}

/// Bytes of dynamic shared memory a `rows` launch needs: one accumulator slot (at most
/// 16 bytes) per warp of a block of up to 1024 threads.
pub const ROWS_SHARED_BYTES: u32 = 32 * 16;

/// An element type with scan kernels, and the accumulator it scans in.
pub trait ScanElem: Copy {
    type Acc: Copy;
    fn widen(self) -> Self::Acc;
    fn narrow(a: Self::Acc) -> Self;
    /// NaN (for complex: either part), the values `nan` mode replaces by the identity.
    fn is_nan(self) -> bool;
}

/// An associative combine with its identity, per accumulator type.
pub trait Combine<A: Copy> {
    const ID: A;
    fn op(a: A, b: A) -> A;
}

/// `cumsum`: wrapping for integers.
pub struct Sum;
/// `cumprod`: wrapping for integers.
pub struct Prod;

macro_rules! combine_real {
    ($($t:ty => $zero:expr, $one:expr, $add:expr, $mul:expr);* $(;)?) => { $(
        impl Combine<$t> for Sum {
            const ID: $t = $zero;
            #[inline(always)]
            fn op(a: $t, b: $t) -> $t { $add(a, b) }
        }
        impl Combine<$t> for Prod {
            const ID: $t = $one;
            #[inline(always)]
            fn op(a: $t, b: $t) -> $t { $mul(a, b) }
        }
    )* };
}
combine_real! {
    i64 => 0, 1, i64::wrapping_add, i64::wrapping_mul;
    f32 => 0.0, 1.0, |a: f32, b: f32| a + b, |a: f32, b: f32| a * b;
    f64 => 0.0, 1.0, |a: f64, b: f64| a + b, |a: f64, b: f64| a * b;
}

impl Combine<c128> for Sum {
    const ID: c128 = c128::new(0.0, 0.0);
    #[inline(always)]
    fn op(a: c128, b: c128) -> c128 {
        cx::add(a, b)
    }
}
impl Combine<c128> for Prod {
    const ID: c128 = c128::new(1.0, 0.0);
    #[inline(always)]
    fn op(a: c128, b: c128) -> c128 {
        cx::mul(a, b)
    }
}

macro_rules! scan_elem {
    ($($t:ty => $acc:ty, |$x:ident| $nan:expr, |$w:ident| $widen:expr, |$a:ident| $narrow:expr);* $(;)?) => { $(
        impl ScanElem for $t {
            type Acc = $acc;
            #[inline(always)]
            fn widen(self) -> $acc { let $w = self; $widen }
            #[inline(always)]
            fn narrow($a: $acc) -> $t { $narrow }
            #[inline(always)]
            #[allow(clippy::eq_op)]
            fn is_nan(self) -> bool { let $x = self; $nan }
        }
    )* };
}
scan_elem! {
    i64 => i64, |_x| false, |w| w, |a| a;
    f16 => f32, |x| x != x, |w| w as f32, |a| a as f16;
    f32 => f64, |x| x != x, |w| w as f64, |a| a as f32;
    f64 => f64, |x| x != x, |w| w, |a| a;
    c64 => c128, |x| x.re != x.re || x.im != x.im, |w| c128::new(w.re as f64, w.im as f64),
        |a| c64::new(a.re as f32, a.im as f32);
    c128 => c128, |x| x.re != x.re || x.im != x.im, |w| w, |a| a;
}

/// An input element as the accumulator sees it: widened, or the identity for a NaN in
/// `nan` mode.
#[inline(always)]
pub fn load_value<E: ScanElem, O: Combine<E::Acc>>(x: E, nan: bool) -> E::Acc {
    if nan && x.is_nan() { O::ID } else { x.widen() }
}

/// The serial scan one `cols` thread runs, as a plain function: `cargo test` checks the
/// element semantics through it.
pub fn scan_serial<E: ScanElem, O: Combine<E::Acc>>(x: &[E], nan: bool, out: &mut [E]) {
    let mut run = O::ID;
    for (o, &v) in out.iter_mut().zip(x) {
        run = O::op(run, load_value::<E, O>(v, nan));
        *o = E::narrow(run);
    }
}

/// Calls `$body` with `$k` bound to each constant `0..$n` (`$n <= 8`). The indices are
/// literals, so arrays indexed by `$k` stay in registers; a rolled loop would index them
/// at run time and put them in local memory.
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_macros))]
macro_rules! unroll {
    ($n:expr, |$k:ident| $body:block) => {
        unroll!(@ $n, $k, $body, 0 1 2 3 4 5 6 7)
    };
    (@ $n:expr, $k:ident, $body:block, $($i:literal)*) => { $(
        #[allow(clippy::reversed_empty_ranges, unused_comparisons)]
        if $i < $n {
            let $k: usize = $i;
            $body
        }
    )* };
}

#[cfg(target_arch = "nvptx64")]
mod gpu_kernels {

    use super::{Combine, Prod, ScanArgs, ScanElem, Sum, items_per_thread, load_value};
    use crate::dtype::{c64, c128};
    use crate::gpu::{
        Shared, block_dim, block_idx, grid_dim, grid_stride, shfl_up_words, smem_addr,
        sync_threads, thread_idx,
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
        unroll!(@ A::W, i, {
            w[i] = shfl_up_words(v.word(i), d);
        }, 0 1 2 3);
        A::from_words(w)
    }

    /// Bytes per warp slot in shared memory (the widest accumulator, complex128).
    const SLOT: u32 = 16;

    /// # Safety
    /// `slot < 32`; the launch gives `ROWS_SHARED_BYTES` of shared memory.
    #[inline(always)]
    unsafe fn st_slot<A: Words>(slot: u32, v: A) {
        unroll!(@ A::W, i, {
            // SAFETY: inside the slot, per the contract.
            unsafe { u32::st_shared(smem_addr(slot * SLOT + 4 * i as u32), v.word(i)) };
        }, 0 1 2 3);
    }

    /// # Safety
    /// As for `st_slot`, and the slot was written before a barrier.
    #[inline(always)]
    unsafe fn ld_slot<A: Words>(slot: u32) -> A {
        let mut w = [0u32; 4];
        unroll!(@ A::W, i, {
            // SAFETY: as above.
            w[i] = unsafe { u32::ld_shared(smem_addr(slot * SLOT + 4 * i as u32)) };
        }, 0 1 2 3);
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
                unroll!(N, |k| {
                    let i = first + k as u64;
                    if i < end {
                        // SAFETY: i < n, inside the line.
                        let e = unsafe { *x.offset((xo + i as i64 * a.step[0]) as isize) };
                        v[k] = load_value::<E, O>(e, nan);
                    }
                });
                unroll!(N, |k| {
                    if k > 0 {
                        v[k] = O::op(v[k - 1], v[k]);
                    }
                });
                let (excl, total) = block_scan::<E::Acc, O>(v[N - 1]);
                let base = O::op(run, excl);
                unroll!(N, |k| {
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
                unroll!(N, |k| {
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
            unroll!(N, |k| {
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
                unroll!(@ 4, k, {
                    // SAFETY: i + k < end <= n, inside the line.
                    let e = unsafe { *x.offset((xo + (i + k as u64) as i64 * a.step[0]) as isize) };
                    v[k] = load_value::<E, O>(e, nan);
                }, 0 1 2 3);
                unroll!(@ 4, k, {
                    run = O::op(run, v[k]);
                    // SAFETY: as above, for y.
                    unsafe { *y.offset((yo + (i + k as u64) as i64 * a.step[1]) as isize) = E::narrow(run) };
                }, 0 1 2 3);
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
                unroll!(@ 4, k, {
                    // SAFETY: i + k < end <= n.
                    let e = unsafe { *x.offset((xo + (i + k as u64) as i64 * a.step[0]) as isize) };
                    acc[k] = O::op(acc[k], load_value::<E, O>(e, nan));
                }, 0 1 2 3);
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
        ($($op:ident $O:ident: $($t:ident)*;)*) => { $($(
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
    scan_entries! {
        sum Sum: i64 f16 f32 f64 c64 c128;
        prod Prod: i64 f16 f32 f64 c64 c128;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cumsum<E: ScanElem>(x: &[E], nan: bool) -> Vec<E>
    where
        Sum: Combine<E::Acc>,
    {
        let mut out = x.to_vec();
        scan_serial::<E, Sum>(x, nan, &mut out);
        out
    }

    fn cumprod<E: ScanElem>(x: &[E], nan: bool) -> Vec<E>
    where
        Prod: Combine<E::Acc>,
    {
        let mut out = x.to_vec();
        scan_serial::<E, Prod>(x, nan, &mut out);
        out
    }

    #[test]
    fn integers_wrap_like_numpy() {
        assert_eq!(
            cumsum(&[i64::MAX, 1, 1], false),
            vec![i64::MAX, i64::MIN, i64::MIN + 1]
        );
        assert_eq!(cumprod(&[1i64 << 62, 4, 3], false), vec![1 << 62, 0, 0]);
        // uint64 shares the kernel: u64::MAX + 2 wraps to 1.
        let got = cumsum(&[u64::MAX as i64, 2], false);
        assert_eq!(got[1] as u64, 1);
    }

    #[test]
    fn floats_accumulate_wide_and_round_once() {
        // 2^24 + 1 + 1 is exact in f64; a float32 loop would stall at 2^24.
        let x = [16777216.0f32, 1.0, 1.0];
        assert_eq!(cumsum(&x, false), vec![16777216.0, 16777216.0, 16777218.0]);
        let h = [f16::from_bits(0x6800), 1.0, 1.0]; // 2048 + 1 + 1 in float16
        assert_eq!(
            cumsum(&h, false)
                .iter()
                .map(|v| *v as f32)
                .collect::<Vec<_>>(),
            vec![2048.0, 2048.0, 2050.0]
        );
    }

    #[test]
    fn nan_mode_uses_the_identity() {
        let x = [1.0f64, f64::NAN, 2.0];
        assert!(cumsum(&x, false)[2].is_nan());
        assert_eq!(cumsum(&x, true), vec![1.0, 1.0, 3.0]);
        assert_eq!(cumprod(&[2.0f32, f32::NAN, 3.0], true), vec![2.0, 2.0, 6.0]);
        // A complex value with one NaN part counts as NaN, as in numpy.isnan.
        let c = [
            c64::new(1.0, 1.0),
            c64::new(f32::NAN, 0.0),
            c64::new(0.0, 2.0),
        ];
        assert_eq!(
            cumsum(&c, true),
            vec![c64::new(1.0, 1.0), c64::new(1.0, 1.0), c64::new(1.0, 3.0)]
        );
    }

    #[test]
    fn complex_product() {
        let c = [
            c128::new(0.0, 1.0),
            c128::new(0.0, 1.0),
            c128::new(2.0, 0.0),
        ];
        assert_eq!(
            cumprod(&c, false),
            vec![
                c128::new(0.0, 1.0),
                c128::new(-1.0, 0.0),
                c128::new(-2.0, 0.0)
            ]
        );
    }

    #[test]
    fn items_keep_sixteen_to_thirty_two_bytes_per_thread() {
        assert_eq!(items_per_thread(2), 8);
        assert_eq!(items_per_thread(4), 8);
        assert_eq!(items_per_thread(8), 4);
        assert_eq!(items_per_thread(16), 2);
    }
}
