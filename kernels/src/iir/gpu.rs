//! The recursive-filter kernels (see the module comment): the line engines, the three
//! passes of the long-line engine, the feedback-free filter and the scratch recursion.
//! The recursion is `cascade::step`, the chunk algebra `chunks`; this file moves data.

use core::arch::asm;
use core::mem::size_of;

use super::cascade::{Coefs, MAX_STATES, States, each, mat_vec, step};
use super::chunks::{BLOCK, BLOCK_MATRIX, CARRY_POWERS, ChunkPlan, LEVELS, power_times};
use super::sample::Sample;
use super::{ChunkArgs, FirArgs, LineArgs, ScratchArgs, tile};
use crate::dtype::{c64, c128};
use crate::gpu::{Shared, block_idx, grid_stride, smem_addr, sync_threads, thread_idx};

/// Samples and states staged in shared memory (`Shared`), and read from the chunk
/// tables.
trait Staged: Sample + Shared {
    /// A load from global memory that the compiler keeps where it is written: the chunk
    /// tables' matrices are read inside loops, and hoisted out of them they would take
    /// `S * K` squared registers.
    ///
    /// # Safety
    /// `p` points to a value of `Self` in global memory, aligned, not written during the
    /// kernel.
    unsafe fn ld_table(p: *const Self) -> Self;
}

/// `Staged` for a real type (`$ptx` its PTX type, `$reg` its register class) or, with
/// `pair`, a complex type of two such parts: one `ld.global.nc` (a `.v2` for a pair),
/// not marked `pure`.
macro_rules! staged {
    ($($t:ident $ptx:literal $reg:ident;)*) => { $(
        impl Staged for $t {
            #[inline(always)]
            unsafe fn ld_table(p: *const $t) -> $t {
                let v: $t;
                // SAFETY: per the trait contract.
                unsafe {
                    asm!(concat!("ld.global.nc.", $ptx, " {v}, [{p}];"), p = in(reg64) p,
                         v = out($reg) v, options(nostack, readonly))
                };
                v
            }
        }
    )* };
    ($($t:ident $ptx:literal $reg:ident $part:ty, pair;)*) => { $(
        impl Staged for $t {
            #[inline(always)]
            unsafe fn ld_table(p: *const $t) -> $t {
                let (re, im): ($part, $part);
                // SAFETY: per the trait contract.
                unsafe {
                    asm!(concat!("ld.global.nc.v2.", $ptx, " {{{x}, {y}}}, [{p}];"), p = in(reg64) p,
                         x = out($reg) re, y = out($reg) im, options(nostack, readonly))
                };
                $t::new(re, im)
            }
        }
    )* };
}
staged! {
    f32 "f32" reg32;
    f64 "f64" reg64;
}
staged! {
    c64 "f32" reg32 f32, pair;
    c128 "f64" reg64 f64, pair;
}

/// Matrix `k` of a chunk table of `d` states (`chunks::table`), read in place.
///
/// # Safety
/// `table` holds the table; the closure is called with `i < d * d`.
#[inline(always)]
unsafe fn table_matrix<T: Staged>(table: *const T, k: usize, d: usize) -> impl Fn(usize) -> T {
    // SAFETY (of the reads): per the contract.
    move |i| unsafe { T::ld_table(table.add(k * d * d + i)) }
}

/// The shared-window address of element `i` of the dynamic shared array seen as `T`s.
#[inline(always)]
fn slot<T>(i: usize) -> u32 {
    smem_addr((i * size_of::<T>()) as u32)
}

/// A block's rows in a staged walk: thread `r`'s row starts at sample `base + r * step`
/// of the input and holds `min(cap, rem - r * step)` samples (none when that is not
/// positive).
#[derive(Clone, Copy)]
struct Rows {
    base: u64,
    step: u64,
    rem: u64,
    cap: u64,
}

impl Rows {
    #[inline(always)]
    fn start(&self, r: usize) -> u64 {
        self.base + r as u64 * self.step
    }
    #[inline(always)]
    fn len(&self, r: usize) -> u64 {
        self.rem.saturating_sub(r as u64 * self.step).min(self.cap)
    }
}

/// Walks each thread's row through the cascade from its states `z`, `tile(T)` samples
/// at a time staged through shared memory: the block reads the tile in rows (a warp
/// per `32` consecutive samples), each thread filters its own row of it in place, and
/// the block writes it back to `y` unless `y` is null. `x` and `y` may be the same.
/// Every thread of the block calls it.
///
/// # Safety
/// Every row lies inside `x` (and `y`); the launch has `line_shared_bytes` of dynamic
/// shared memory and `BLOCK` threads.
#[inline(always)]
unsafe fn walk<T: Staged, const S: usize, const K: usize>(
    c: &Coefs<T>,
    nsec: usize,
    z: &mut States<T>,
    rows: Rows,
    x: *const T,
    y: *mut T,
) {
    let w = tile(size_of::<T>());
    // One padding sample per row: thread r's column walk reads bank (r + col) mod 32.
    let pitch = w + 1;
    let tid = thread_idx() as usize;
    let mine = rows.len(tid);
    let mut t0 = 0u64;
    while t0 < rows.cap {
        let mut e = tid;
        while e < BLOCK * w {
            let (r, col) = (e / w, e % w);
            if t0 + (col as u64) < rows.len(r) {
                // SAFETY: the sample is inside row r (the caller's contract); the slot
                // is inside the tile.
                unsafe {
                    T::st_shared(
                        slot::<T>(r * pitch + col),
                        *x.add((rows.start(r) + t0) as usize + col),
                    )
                };
            }
            e += BLOCK;
        }
        sync_threads();
        let n = mine.saturating_sub(t0).min(w as u64) as usize;
        for col in 0..n {
            let at = slot::<T>(tid * pitch + col);
            // SAFETY: this thread's slots of the tile, loaded above.
            unsafe { T::st_shared(at, step::<T, S, K>(c, nsec, z, T::ld_shared(at))) };
        }
        sync_threads();
        if !y.is_null() {
            let mut e = tid;
            while e < BLOCK * w {
                let (r, col) = (e / w, e % w);
                if t0 + (col as u64) < rows.len(r) {
                    // SAFETY: as for the load.
                    unsafe {
                        *y.add((rows.start(r) + t0) as usize + col) =
                            T::ld_shared(slot::<T>(r * pitch + col))
                    };
                }
                e += BLOCK;
            }
            sync_threads();
        }
        t0 += w as u64;
    }
}

/// The inclusive and exclusive scans of the block's state vectors `v`, in thread order,
/// under `v_t <- v_t + P_d v_{t - 2^d}` with `P_d` matrix `first + d` of `table`
/// (Hillis and Steele). Every thread of the block calls it.
///
/// # Safety
/// `table` holds matrices `first..first + LEVELS` of `S * K` states; the launch has
/// `BLOCK` threads and `BLOCK * S * K` values of dynamic shared memory.
#[inline(always)]
unsafe fn block_scan<T: Staged, const S: usize, const K: usize>(
    v: States<T>,
    table: *const T,
    first: usize,
) -> (States<T>, States<T>) {
    let tid = thread_idx() as usize;
    let zero = [T::ZERO; MAX_STATES];
    // State i of thread t at slot i * BLOCK + t: a warp's accesses are consecutive.
    let put = |v: &States<T>| {
        each!(i in 0..S * K => {
            // SAFETY: i * BLOCK + tid < BLOCK * S * K.
            unsafe { T::st_shared(slot::<T>(i * BLOCK + tid), v[i]) };
        });
    };
    let get = |t: usize| {
        let mut w = zero;
        each!(i in 0..S * K => {
            // SAFETY: as above, t < BLOCK.
            w[i] = unsafe { T::ld_shared(slot::<T>(i * BLOCK + t)) };
        });
        w
    };
    let mut v = v;
    for d in 0..LEVELS {
        let off = 1usize << d;
        put(&v);
        sync_threads();
        let earlier = if tid >= off { get(tid - off) } else { zero };
        sync_threads();
        if tid >= off {
            // SAFETY: per the contract.
            v = mat_vec::<T, S, K>(
                unsafe { table_matrix(table, first + d, S * K) },
                &earlier,
                &v,
            );
        }
    }
    put(&v);
    sync_threads();
    let before = if tid > 0 { get(tid - 1) } else { zero };
    sync_threads();
    (v, before)
}

/// The first `count` states of a line from an (outer, zdim, inner) array, the others
/// zero; all zero when `z` is null.
///
/// # Safety
/// `z` is null or holds the array, `o` and `k` inside it, `first + count <= zdim`, `count <= S * K`.
#[inline(always)]
unsafe fn load_states<T: Sample, const S: usize, const K: usize>(
    z: *const T,
    (o, k, inner): (u64, u64, u64),
    (zdim, first, count): (u64, u32, u32),
) -> States<T> {
    let mut s = [T::ZERO; MAX_STATES];
    if !z.is_null() {
        each!(i in 0..S * K => {
            if i < count as usize {
                // SAFETY: per the contract.
                s[i] = unsafe { *z.add(((o * zdim + first as u64 + i as u64) * inner + k) as usize) };
            }
        });
    }
    s
}

/// Stores the first `count` states of a line into an (outer, zdim, inner) array.
///
/// # Safety
/// As for `load_states`, `z` not null.
#[inline(always)]
unsafe fn store_states<T: Sample, const S: usize, const K: usize>(
    z: *mut T,
    (o, k, inner): (u64, u64, u64),
    (zdim, first, count): (u64, u32, u32),
    s: &States<T>,
) {
    each!(i in 0..S * K => {
        if i < count as usize {
            // SAFETY: per the contract.
            unsafe { *z.add(((o * zdim + first as u64 + i as u64) * inner + k) as usize) = s[i] };
        }
    });
}

/// A state vector of `S * K` values at `p` (a scratch buffer of the long-line engine).
///
/// # Safety
/// `p` holds `S * K` values.
#[inline(always)]
unsafe fn load_vec<T: Sample, const S: usize, const K: usize>(p: *const T) -> States<T> {
    let mut s = [T::ZERO; MAX_STATES];
    each!(i in 0..S * K => {
        // SAFETY: per the contract.
        s[i] = unsafe { *p.add(i) };
    });
    s
}

/// # Safety
/// `p` holds `S * K` values.
#[inline(always)]
unsafe fn store_vec<T: Sample, const S: usize, const K: usize>(p: *mut T, s: &States<T>) {
    each!(i in 0..S * K => {
        // SAFETY: per the contract.
        unsafe { *p.add(i) = s[i] };
    });
}

/// Engine 1, contiguous lines: thread `t` of block `b` walks line `b * BLOCK + t` of
/// `len` samples at `x[line * len..]`, from `zi` (or rest), leaving `zf`.
///
/// # Safety
/// `x` and `y` hold `lines * len` samples; `zi`/`zf` are null or (lines, zdim) arrays
/// with `zfirst + zcount <= zdim`, `zcount <= S * K`; `BLOCK` threads, enough blocks,
/// `line_shared_bytes` of shared memory.
#[inline(always)]
unsafe fn lines<T: Staged, const S: usize, const K: usize>(
    a: &LineArgs<T>,
    x: *const T,
    y: *mut T,
    zi: *const T,
    zf: *mut T,
) {
    let first = block_idx() as u64 * BLOCK as u64;
    let line = first + thread_idx() as u64;
    let rows = Rows {
        base: first * a.len,
        step: a.len,
        rem: a.lines.saturating_sub(first) * a.len,
        cap: a.len,
    };
    let states = (a.zdim, a.zfirst, a.zcount);
    let at = (line, 0, 1);
    // SAFETY: per the contract (a line past the end reads no states).
    let mut z = unsafe {
        load_states::<T, S, K>(
            if line < a.lines {
                zi
            } else {
                core::ptr::null()
            },
            at,
            states,
        )
    };
    // SAFETY: the rows are the block's lines, inside x and y.
    unsafe { walk::<T, S, K>(&a.coef, a.nsec as usize, &mut z, rows, x, y) };
    if line < a.lines && !zf.is_null() {
        // SAFETY: per the contract.
        unsafe { store_states::<T, S, K>(zf, at, states, &z) };
    }
}

/// Engine 1, lines `inner > 1` apart: a thread per line `(o, k)`, read in place.
///
/// # Safety
/// `x` and `y` hold the (outer, len, inner) array, `lines = outer * inner`; `zi`/`zf`
/// as in `lines`, (outer, zdim, inner).
#[inline(always)]
unsafe fn strided<T: Sample, const S: usize, const K: usize>(
    a: &LineArgs<T>,
    x: *const T,
    y: *mut T,
    zi: *const T,
    zf: *mut T,
) {
    let line = block_idx() as u64 * BLOCK as u64 + thread_idx() as u64;
    if line >= a.lines {
        return;
    }
    let (o, k) = (line / a.inner, line % a.inner);
    let (at, states) = ((o, k, a.inner), (a.zdim, a.zfirst, a.zcount));
    // SAFETY: per the contract.
    let mut z = unsafe { load_states::<T, S, K>(zi, at, states) };
    let mut p = (o * a.len * a.inner + k) as usize;
    for _ in 0..a.len {
        // SAFETY: sample j of line (o, k): inside the array.
        unsafe { *y.add(p) = step::<T, S, K>(&a.coef, a.nsec as usize, &mut z, *x.add(p)) };
        p += a.inner as usize;
    }
    if !zf.is_null() {
        // SAFETY: per the contract.
        unsafe { store_states::<T, S, K>(zf, at, states, &z) };
    }
}

/// The rows of chunk block `j` of `line`: chunks `j * BLOCK + t` of `chunk` samples.
#[inline(always)]
fn chunk_rows<T>(a: &ChunkArgs<T>, line: u64, j: u64) -> Rows {
    let c0 = j * BLOCK as u64;
    Rows {
        base: line * a.len + c0 * a.chunk,
        step: a.chunk,
        rem: a.len - c0 * a.chunk,
        cap: a.chunk,
    }
}

/// Long lines, pass 1: block `line * blocks + j` filters chunks `j * BLOCK + t` from
/// zero and scans their final states: each chunk's exclusive prefix goes to `prefix`,
/// the block's total to slot `j + 1` of the line's `agg`.
///
/// # Safety
/// `x` holds `lines * len` samples; `table`, `prefix`, `agg` as `ChunkArgs` says; the
/// grid has `lines * blocks` blocks of `BLOCK` threads, `line_shared_bytes` of shared
/// memory.
#[inline(always)]
unsafe fn chunk0<T: Staged, const S: usize, const K: usize>(
    a: &ChunkArgs<T>,
    x: *const T,
    table: *const T,
    prefix: *mut T,
    agg: *mut T,
) {
    let b = block_idx() as u64;
    let (line, j) = (b / a.blocks, b % a.blocks);
    let tid = thread_idx() as usize;
    let chunk = j * BLOCK as u64 + tid as u64;
    let mut z = [T::ZERO; MAX_STATES];
    // SAFETY: the block's chunks lie inside the line.
    unsafe {
        walk::<T, S, K>(
            &a.coef,
            a.nsec as usize,
            &mut z,
            chunk_rows(a, line, j),
            x,
            core::ptr::null_mut(),
        )
    };
    // SAFETY: per the contract (the tile's shared memory holds BLOCK state vectors).
    let (total, before) = unsafe { block_scan::<T, S, K>(z, table, 0) };
    let d = (S * K) as u64;
    if chunk < a.chunks {
        // SAFETY: chunk < chunks: its slot of prefix.
        unsafe {
            store_vec::<T, S, K>(
                prefix.add(((line * a.chunks + chunk) * d) as usize),
                &before,
            )
        };
    }
    if tid == BLOCK - 1 {
        // SAFETY: slot j + 1 <= blocks of the line's blocks + 1.
        unsafe {
            store_vec::<T, S, K>(
                agg.add(((line * (a.blocks + 1) + j + 1) * d) as usize),
                &total,
            )
        };
    }
}

/// Long lines, pass 2: block `line` turns the line's block totals (`agg` slots `1..`,
/// and `zi` as item 0) into each block's initial state (`agg` slot `j`).
///
/// # Safety
/// As for `chunk0`; the grid has `lines` blocks of `BLOCK` threads and
/// `carry_shared_bytes` of shared memory.
#[inline(always)]
unsafe fn carry<T: Staged, const S: usize, const K: usize>(
    a: &ChunkArgs<T>,
    table: *const T,
    zi: *const T,
    agg: *mut T,
) {
    let line = block_idx() as u64;
    let plan = ChunkPlan {
        len: a.len,
        chunk: a.chunk,
        chunks: a.chunks,
        blocks: a.blocks,
        per_thread: a.per_thread,
    };
    let (lo, hi) = plan.carry_range(thread_idx() as usize);
    let d = (S * K) as u64;
    let slots = agg.wrapping_add((line * (a.blocks + 1) * d) as usize);
    let item = |j: u64| {
        if j == 0 {
            // SAFETY: zi is null or holds the line's states.
            unsafe { load_states::<T, S, K>(zi, (line, 0, 1), (a.zdim, a.zfirst, a.zcount)) }
        } else {
            // SAFETY: j < blocks: a slot of the line.
            unsafe { load_vec::<T, S, K>(slots.add((j * d) as usize)) }
        }
    };
    // SAFETY: per the contract.
    let step_matrix = unsafe { table_matrix(table, BLOCK_MATRIX, S * K) };
    let mut mine = [T::ZERO; MAX_STATES];
    for j in lo..hi {
        mine = mat_vec::<T, S, K>(&step_matrix, &mine, &item(j));
    }
    // SAFETY: per the contract.
    let (_, before) = unsafe { block_scan::<T, S, K>(mine, table, CARRY_POWERS) };
    let mut s = before;
    for j in lo..hi {
        s = mat_vec::<T, S, K>(&step_matrix, &s, &item(j));
        // SAFETY: as above; slot j is this thread's alone.
        unsafe { store_vec::<T, S, K>(slots.add((j * d) as usize), &s) };
    }
}

/// Long lines, pass 3: chunk `t` of block `j` starts from `M^t s_j + prefix` (`s_j` in
/// `agg` slot `j`, or `zi` when `agg` is null: a line of one block) and filters its
/// samples into `y`; the line's last chunk leaves `zf`.
///
/// # Safety
/// As for `chunk0`; `y` holds `lines * len` samples (it may be `x`).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn chunk1<T: Staged, const S: usize, const K: usize>(
    a: &ChunkArgs<T>,
    x: *const T,
    y: *mut T,
    table: *const T,
    prefix: *const T,
    agg: *const T,
    zi: *const T,
    zf: *mut T,
) {
    let b = block_idx() as u64;
    let (line, j) = (b / a.blocks, b % a.blocks);
    let tid = thread_idx() as usize;
    let chunk = j * BLOCK as u64 + tid as u64;
    let d = (S * K) as u64;
    let states = (a.zdim, a.zfirst, a.zcount);
    let block_state = if !agg.is_null() {
        // SAFETY: slot j of the line.
        unsafe { load_vec::<T, S, K>(agg.add(((line * (a.blocks + 1) + j) * d) as usize)) }
    } else {
        // SAFETY: zi is null or holds the line's states.
        unsafe { load_states::<T, S, K>(zi, (line, 0, 1), states) }
    };
    let dd = S * K * S * K;
    // SAFETY: the table's first LEVELS matrices, i < dd.
    let power = |level: usize, i: usize| unsafe { T::ld_table(table.add(level * dd + i)) };
    let mut z = power_times::<T, S, K>(power, tid, block_state);
    if chunk < a.chunks {
        // SAFETY: the chunk's slot of prefix.
        let e =
            unsafe { load_vec::<T, S, K>(prefix.add(((line * a.chunks + chunk) * d) as usize)) };
        each!(i in 0..S * K => {
            z[i] = z[i].add(e[i]);
        });
    }
    // SAFETY: the block's chunks lie inside the line.
    unsafe {
        walk::<T, S, K>(
            &a.coef,
            a.nsec as usize,
            &mut z,
            chunk_rows(a, line, j),
            x,
            y,
        )
    };
    if chunk + 1 == a.chunks && !zf.is_null() {
        // SAFETY: per the contract.
        unsafe { store_states::<T, S, K>(zf, (line, 0, 1), states, &z) };
    }
}

/// (o, j, k) of element `i` of an (outer, mid, inner) array.
#[inline(always)]
fn split(i: u64, mid: u64, inner: u64) -> (u64, u64, u64) {
    let (q, k) = (i / inner, i % inner);
    (q / mid, q % mid, k)
}

/// A filter without feedback, a thread per output: `y[j] = sum_t b[t] x[j - t]` plus
/// `zi[j]` for `j < zdim`, the oldest tap first (as the states accumulate it).
///
/// # Safety
/// `x`, `y` hold the (outer, len, inner) array of `a.n` elements; `b` holds `taps`
/// values; `zi` is null or (outer, zdim, inner).
#[inline(always)]
unsafe fn fir<T: Sample>(a: &FirArgs, x: *const T, b: *const T, zi: *const T, y: *mut T) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < a.n {
        let (o, j, k) = split(i, a.len, a.inner);
        let mut acc = T::ZERO;
        if !zi.is_null() && j < a.zdim {
            // SAFETY: state j < zdim of the line.
            acc = unsafe { *zi.add(((o * a.zdim + j) * a.inner + k) as usize) };
        }
        let line = o * a.len * a.inner + k;
        let mut t = j.min(a.taps - 1) + 1;
        while t > 0 {
            t -= 1;
            // SAFETY: t < taps, j - t >= 0: a sample of the line.
            acc = unsafe {
                (*b.add(t as usize)).mul_add(*x.add((line + (j - t) * a.inner) as usize), acc)
            };
        }
        // SAFETY: i < n.
        unsafe { *y.add(i as usize) = acc };
        i += stride;
    }
}

/// A filter without feedback, a thread per final state `i`:
/// `zf[i] = sum_{t > i} b[t] x[len + i - t]` plus `zi[i + len]` when `i + len < zdim`.
///
/// # Safety
/// As for `fir`; `zf` holds (outer, zdim, inner), `a.n` elements; `taps <= zdim + 1`.
#[inline(always)]
unsafe fn fir_final<T: Sample>(a: &FirArgs, x: *const T, b: *const T, zi: *const T, zf: *mut T) {
    let (start, stride) = grid_stride();
    let mut i = start;
    while i < a.n {
        let (o, s, k) = split(i, a.zdim, a.inner);
        let mut acc = T::ZERO;
        if !zi.is_null() && s + a.len < a.zdim {
            // SAFETY: state s + len < zdim of the line.
            acc = unsafe { *zi.add(((o * a.zdim + s + a.len) * a.inner + k) as usize) };
        }
        let line = o * a.len * a.inner + k;
        // Taps t in (s, taps) with a sample: t <= s + len.
        let mut t = a.taps.min(s + a.len + 1);
        while t > s + 1 {
            t -= 1;
            // SAFETY: t < taps; len + s - t is in 0..len.
            acc = unsafe {
                (*b.add(t as usize))
                    .mul_add(*x.add((line + (a.len + s - t) * a.inner) as usize), acc)
            };
        }
        // SAFETY: i < n.
        unsafe { *zf.add(i as usize) = acc };
        i += stride;
    }
}

/// A recursion of `order` states (any number), a thread per line, the states in `z`
/// (initial states in, final states out): the step of `cascade::step` with the states
/// in global memory.
///
/// # Safety
/// `x`, `y` hold the (outer, len, inner) array, `z` (outer, order, inner); `b` holds
/// `order + 1` values, `na` (the negated `a[1..]`) `order`; `order >= 1`.
#[inline(always)]
unsafe fn scratch<T: Sample>(
    a: &ScratchArgs,
    x: *const T,
    b: *const T,
    na: *const T,
    y: *mut T,
    z: *mut T,
) {
    let (start, stride) = grid_stride();
    let mut line = start;
    let n = a.order as usize;
    while line < a.lines {
        let (o, k) = (line / a.inner, line % a.inner);
        let inner = a.inner as usize;
        let zs = (o * a.order * a.inner + k) as usize;
        let mut p = (o * a.len * a.inner + k) as usize;
        for _ in 0..a.len {
            // SAFETY: per the contract: sample p, states zs + i * inner for i < order,
            // coefficients below their counts.
            unsafe {
                let v = *x.add(p);
                let out = (*b).mul_add(v, *z.add(zs));
                for i in 0..n {
                    let next = if i + 1 < n {
                        *z.add(zs + (i + 1) * inner)
                    } else {
                        T::ZERO
                    };
                    let fed_back = (*na.add(i)).mul_add(out, next);
                    *z.add(zs + i * inner) = (*b.add(i + 1)).mul_add(v, fed_back);
                }
                *y.add(p) = out;
            }
            p += inner;
        }
        line += stride;
    }
}

macro_rules! shape_entries {
    ([$t:ident] $(($shape:literal, $s:literal, $k:literal))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_iir_lines_", $shape, "_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn l(a: LineArgs<$t>, x: *const $t, y: *mut $t, zi: *const $t, zf: *mut $t) {
                // SAFETY: the host launches per lines' contract.
                unsafe { lines::<$t, $s, $k>(&a, x, y, zi, zf) }
            }
            #[unsafe(export_name = concat!("gpupy_iir_strided_", $shape, "_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn s(a: LineArgs<$t>, x: *const $t, y: *mut $t, zi: *const $t, zf: *mut $t) {
                // SAFETY: the host launches per strided's contract.
                unsafe { strided::<$t, $s, $k>(&a, x, y, zi, zf) }
            }
            #[unsafe(export_name = concat!("gpupy_iir_chunk0_", $shape, "_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn c0(
                a: ChunkArgs<$t>, x: *const $t, table: *const $t, prefix: *mut $t, agg: *mut $t,
            ) {
                // SAFETY: the host launches per chunk0's contract.
                unsafe { chunk0::<$t, $s, $k>(&a, x, table, prefix, agg) }
            }
            #[unsafe(export_name = concat!("gpupy_iir_chunk1_", $shape, "_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn c1(
                a: ChunkArgs<$t>, x: *const $t, y: *mut $t, table: *const $t, prefix: *const $t,
                agg: *const $t, zi: *const $t, zf: *mut $t,
            ) {
                // SAFETY: the host launches per chunk1's contract.
                unsafe { chunk1::<$t, $s, $k>(&a, x, y, table, prefix, agg, zi, zf) }
            }
        };
    )* };
}

macro_rules! carry_entries {
    ([$t:ident] $(($name:literal, $s:literal, $k:literal))*) => { $(
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_iir_carry_", $name, "_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn c(a: ChunkArgs<$t>, table: *const $t, zi: *const $t, agg: *mut $t) {
                // SAFETY: the host launches per carry's contract.
                unsafe { carry::<$t, $s, $k>(&a, table, zi, agg) }
            }
        };
    )* };
}

macro_rules! type_entries {
    ([] $($t:ident)*) => { $(
        crate::for_each_iir_shape!(shape_entries, $t);
        crate::for_each_iir_carry!(carry_entries, $t);
        const _: () = {
            #[unsafe(export_name = concat!("gpupy_iir_fir_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn f(a: FirArgs, x: *const $t, b: *const $t, zi: *const $t, y: *mut $t) {
                // SAFETY: the host launches per fir's contract.
                unsafe { fir::<$t>(&a, x, b, zi, y) }
            }
            #[unsafe(export_name = concat!("gpupy_iir_fir_final_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn ff(a: FirArgs, x: *const $t, b: *const $t, zi: *const $t, zf: *mut $t) {
                // SAFETY: the host launches per fir_final's contract.
                unsafe { fir_final::<$t>(&a, x, b, zi, zf) }
            }
            #[unsafe(export_name = concat!("gpupy_iir_scratch_", stringify!($t)))]
            unsafe extern "ptx-kernel" fn sc(
                a: ScratchArgs, x: *const $t, b: *const $t, na: *const $t, y: *mut $t, z: *mut $t,
            ) {
                // SAFETY: the host launches per scratch's contract.
                unsafe { scratch::<$t>(&a, x, b, na, y, z) }
            }
        };
    )* };
}
crate::for_each_iir_type!(type_entries);
