//! The FFT kernels. `pass` is one pass of a transform (see `plan`): a block runs the
//! block-local Stockham stages over its columns, each thread's butterflies in
//! registers; the first stage reads the source (applying the pass's factors on the
//! way), the middle ones exchange through shared memory, the last writes the
//! destination (see `stage`). The `Twist` kernels are the elementwise steps around the
//! transforms.

use super::plan::{
    META_BYTES, column, four_step_entries, pad, per_thread, pitch, stage_dst, stage_src,
    stage_table_len, stage_twiddle,
};
use super::radix::{Cx, Dft, Real};
use super::real::{c2r_pre, r2c_post, r2c_sources};
use super::{Pass, Twist};
use crate::gpu::{
    block_dim, block_idx, block_idx_y, grid_dim_y, smem_addr, sync_threads, thread_idx, unroll,
};
use core::arch::asm;

/// The real types of the kernels, with their complex loads and stores as one vector
/// access (a `Cx<f32>` is only 4-byte aligned as a Rust type).
trait Elem: Real {
    /// Whether a butterfly's four-step twiddles may be float64 products of one another
    /// (complex64: their error stays far below its precision; complex128 reads each
    /// from the table).
    const RECURRENT_TWIDDLES: bool;
    /// # Safety
    /// `p` is a global address of a `Cx<Self>`, not written during the kernel.
    unsafe fn ld(p: *const Cx<Self>) -> Cx<Self>;
    /// # Safety
    /// `p` is a global address of a `Cx<Self>`.
    unsafe fn st(p: *mut Cx<Self>, v: Cx<Self>);
    /// # Safety
    /// `addr` is an aligned shared-window address inside the launch's shared size.
    unsafe fn lds(addr: u32) -> Cx<Self>;
    /// # Safety
    /// As for `lds`.
    unsafe fn sts(addr: u32, v: Cx<Self>);
}

macro_rules! elem_impl {
    ($t:ty, $ty:literal, $reg:ident, $recur:expr) => {
        impl Elem for $t {
            const RECURRENT_TWIDDLES: bool = $recur;
            #[inline(always)]
            unsafe fn ld(p: *const Cx<$t>) -> Cx<$t> {
                let (re, im): ($t, $t);
                // SAFETY: per the contract (the allocations are 16-byte aligned and
                // every element sits at a multiple of its size).
                unsafe {
                    asm!(concat!("ld.global.nc.v2.", $ty, " {{{a}, {b}}}, [{p}];"),
                         p = in(reg64) p, a = out($reg) re, b = out($reg) im,
                         options(nostack, readonly, pure))
                };
                Cx { re, im }
            }
            #[inline(always)]
            unsafe fn st(p: *mut Cx<$t>, v: Cx<$t>) {
                // SAFETY: per the contract.
                unsafe {
                    asm!(concat!("st.global.v2.", $ty, " [{p}], {{{a}, {b}}};"),
                         p = in(reg64) p, a = in($reg) v.re, b = in($reg) v.im,
                         options(nostack))
                }
            }
            #[inline(always)]
            unsafe fn lds(addr: u32) -> Cx<$t> {
                let (re, im): ($t, $t);
                // SAFETY: per the contract.
                unsafe {
                    asm!(concat!("ld.shared.v2.", $ty, " {{{a}, {b}}}, [{p}];"),
                         p = in(reg32) addr, a = out($reg) re, b = out($reg) im,
                         options(nostack, readonly))
                };
                Cx { re, im }
            }
            #[inline(always)]
            unsafe fn sts(addr: u32, v: Cx<$t>) {
                // SAFETY: per the contract.
                unsafe {
                    asm!(concat!("st.shared.v2.", $ty, " [{p}], {{{a}, {b}}};"),
                         p = in(reg32) addr, a = in($reg) v.re, b = in($reg) v.im,
                         options(nostack))
                }
            }
        }
    };
}
elem_impl!(f32, "f32", reg32, true);
elem_impl!(f64, "f64", reg64, false);

#[inline(always)]
unsafe fn ld_u32(addr: u32) -> u32 {
    let v: u32;
    // SAFETY: callers pass a shared address inside the launch's shared size.
    unsafe {
        asm!("ld.shared.u32 {v}, [{a}];", a = in(reg32) addr, v = out(reg32) v, options(nostack, readonly))
    };
    v
}
#[inline(always)]
unsafe fn st_u32(addr: u32, v: u32) {
    // SAFETY: as above.
    unsafe {
        asm!("st.shared.u32 [{a}], {v};", a = in(reg32) addr, v = in(reg32) v, options(nostack))
    };
}
#[inline(always)]
unsafe fn ld_i64(addr: u32) -> i64 {
    let v: i64;
    // SAFETY: as above.
    unsafe {
        asm!("ld.shared.s64 {v}, [{a}];", a = in(reg32) addr, v = out(reg64) v, options(nostack, readonly))
    };
    v
}
#[inline(always)]
unsafe fn st_i64(addr: u32, v: i64) {
    // SAFETY: as above.
    unsafe {
        asm!("st.shared.s64 [{a}], {v};", a = in(reg32) addr, v = in(reg64) v, options(nostack))
    };
}

/// What a pass's first stage reads and its last stage writes: the pass's global
/// operands and the factors applied on the way (a copy of `Pass`'s fields). Calls pass
/// it as scalars (`Io::bits`, `Io::from_parts`): a reference to the kernel's parameters,
/// or an aggregate argument, would be copied to local memory.
#[derive(Clone, Copy)]
struct Io {
    src: u64,
    dst: u64,
    src_e: i64,
    dst_e: i64,
    mul: u64,
    cols: u64,
    four_step: u64,
    step: u64,
    scale: f64,
    fine_log2: u32,
    conj_in: bool,
    conj_out: bool,
    /// Adjacent elements of a column adjacent in memory, in the input (output).
    load_rows: bool,
    store_rows: bool,
    /// The columns' bookkeeping in shared memory.
    meta: u32,
}

impl Io {
    fn of(a: &Pass, meta: u32) -> Io {
        Io {
            src: a.src,
            dst: a.dst,
            src_e: a.src_e,
            dst_e: a.dst_e,
            mul: a.mul,
            cols: a.cols,
            four_step: a.four_step,
            step: a.step,
            scale: a.scale,
            fine_log2: a.fine_log2,
            conj_in: a.conj_in != 0,
            conj_out: a.conj_out != 0,
            load_rows: a.load_rows != 0,
            store_rows: a.store_rows != 0,
            meta,
        }
    }

    /// The flags and `fine_log2` in one word.
    fn bits(&self) -> u32 {
        self.fine_log2
            | (self.conj_in as u32) << 8
            | (self.conj_out as u32) << 9
            | (self.load_rows as u32) << 10
            | (self.store_rows as u32) << 11
    }

    #[allow(clippy::too_many_arguments)]
    fn from_parts(
        src: u64,
        dst: u64,
        src_e: i64,
        dst_e: i64,
        mul: u64,
        cols: u64,
        four_step: u64,
        step: u64,
        scale: f64,
        bits: u32,
        meta: u32,
    ) -> Io {
        Io {
            src,
            dst,
            src_e,
            dst_e,
            mul,
            cols,
            four_step,
            step,
            scale,
            fine_log2: bits & 0xff,
            conj_in: bits & 1 << 8 != 0,
            conj_out: bits & 1 << 9 != 0,
            load_rows: bits & 1 << 10 != 0,
            store_rows: bits & 1 << 11 != 0,
            meta,
        }
    }
}

/// One Stockham stage of radix `R` over the block's `2^tile_log2` columns (rows of
/// `len` in shared memory at `data`, `pitch` elements apart), after stages whose
/// radices multiply to `ns`: each thread computes up to `K` butterflies.
///
/// The first stage (`FIRST`) reads its inputs from the pass's source (with the
/// pass's factors, `prepare`) instead of the rows, and the last (`LAST`) writes its
/// outputs to the destination (`finish`): in the last stage `ns * R == len` and
/// output `r` of butterfly `j` is element `j + r * len / R`, the same element its
/// input `r` was. A pass of two stages so makes one exchange through shared memory
/// instead of three. Where a stage touches global memory along rows, adjacent threads
/// take adjacent butterflies of one column (adjacent elements); otherwise the same
/// butterfly of adjacent columns. Without `FULL` the first stage applies neither
/// four-step twiddles nor `mul` (the kernels of transforms done in one pass, which have
/// none: their code alone holds about 20 registers).
///
/// # Safety
/// Every thread of the block calls it together; the bookkeeping at `io.meta` is
/// written and synchronised; `tw` is this stage's twiddle table
/// (`stage_table_len(R, ns)` entries); `R` divides `len / ns`; the block has `K`
/// butterflies per thread or more; `io`'s pointers cover every valid column.
//
// Not inlined: with every radix's stage inlined into the one stage loop, LLVM and ptxas
// keep the arms' values in registers together (224 for complex64, against at most 85
// for any one radix alone). As calls, each stage gets the registers it needs.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn stage<
    F: Elem,
    const R: usize,
    const K: usize,
    const FIRST: bool,
    const LAST: bool,
    const FULL: bool,
>(
    src: u64,
    dst: u64,
    src_e: i64,
    dst_e: i64,
    mul: u64,
    cols: u64,
    four_step: u64,
    step: u64,
    scale: f64,
    bits: u32,
    meta: u32,
    data: u32,
    pitch: u32,
    tile_log2: u32,
    len: u32,
    ns: u32,
    tw: *const Cx<F>,
) where
    Cx<F>: Dft<R>,
{
    let io = Io::from_parts(
        src, dst, src_e, dst_e, mul, cols, four_step, step, scale, bits, meta,
    );
    let (tid, nt) = (thread_idx(), block_dim());
    let esz = size_of::<Cx<F>>() as u32;
    let quarter = len / R as u32;
    let count = quarter << tile_log2;
    let along = (FIRST && io.load_rows) || (LAST && !FIRST && io.store_rows);
    let mut v = [[Cx::<F>::default(); R]; K];
    let mut row = [0u32; K];
    let mut at = [(0u32, 0u32); K];
    unroll!(k in 0..K => {
        let b = tid + k as u32 * nt;
        if b < count {
            let (t, j) = if along {
                (b / quarter, b % quarter)
            } else {
                (b & ((1 << tile_log2) - 1), b >> tile_log2)
            };
            let jl = j % ns;
            row[k] = data + t * pitch * esz;
            at[k] = (t, j);
            if FIRST {
                // SAFETY: a bookkeeping slot of the block.
                let c = unsafe { Column::load(io.meta + t * META_BYTES) };
                if c.valid() {
                    let src = io.src as *const Cx<F>;
                    let x = &mut v[k];
                    unroll!(r in 0..R => {
                        let e = j + r as u32 * quarter;
                        // SAFETY: the plan keeps every valid column's elements in the input.
                        x[r] = unsafe { F::ld(src.offset((c.src + e as i64 * io.src_e) as isize)) };
                    });
                    if FULL && F::RECURRENT_TWIDDLES && c.jl != 0 {
                        // The butterfly's four-step twiddles W^(jl (j + r Q)) as W^(jl j)
                        // times r powers of W^(jl Q), multiplied up in float64: at most 15
                        // products keep them within ~1e-14, far inside complex64's last
                        // bit, for 4 table reads instead of 2 per element (the reads, not
                        // DRAM, limited a later pass).
                        // SAFETY: per this function's contract.
                        let (mut w, inc) = unsafe {
                            (
                                four_step_twiddle(&io, c.jl as u64 * j as u64),
                                four_step_twiddle(&io, c.jl as u64 * quarter as u64),
                            )
                        };
                        unroll!(r in 0..R => {
                            if r > 0 {
                                w = w * inc;
                            }
                            // SAFETY: per this function's contract.
                            let y = unsafe { factors::<F, FULL>(&io, x[r], c.j, j + r as u32 * quarter) };
                            x[r] = y * w.cast::<F>();
                        });
                    } else {
                        unroll!(r in 0..R => {
                            // SAFETY: per this function's contract.
                            x[r] = unsafe { prepare::<F, FULL>(&io, x[r], c.j, c.jl, j + r as u32 * quarter) };
                        });
                    }
                }
            } else {
                unroll!(r in 0..R => {
                    // SAFETY: a padded position of this row, inside the shared rows.
                    let x = unsafe { F::lds(row[k] + pad(stage_src(j, r as u32, quarter)) * esz) };
                    v[k][r] = if r == 0 || jl == 0 {
                        x
                    } else {
                        // SAFETY: inside the stage's table (plan::stage_twiddle).
                        x * unsafe { F::ld(tw.add(stage_twiddle(jl, r as u32, ns) as usize)) }
                    };
                });
            }
            <Cx<F> as Dft<R>>::dft(&mut v[k]);
        }
    });
    if LAST {
        let dst = io.dst as *mut Cx<F>;
        unroll!(k in 0..K => {
            if tid + k as u32 * nt < count {
                let (t, j) = at[k];
                // SAFETY: a bookkeeping slot of the block.
                let c = unsafe { Column::load(io.meta + t * META_BYTES) };
                if c.valid() {
                    unroll!(r in 0..R => {
                        let e = j + r as u32 * quarter;
                        // SAFETY: the plan keeps every valid column's elements in the output.
                        unsafe { F::st(dst.offset((c.dst + e as i64 * io.dst_e) as isize), finish(&io, v[k][r])) };
                    });
                }
            }
        });
        return;
    }
    if !FIRST {
        // Every thread's reads of the rows are done before any is overwritten.
        sync_threads();
    }
    unroll!(k in 0..K => {
        if tid + k as u32 * nt < count {
            let (_, j) = at[k];
            let out = stage_dst(j, j % ns, 0, ns, R as u32);
            unroll!(r in 0..R => {
                // SAFETY: as above.
                unsafe { F::sts(row[k] + pad(out + r as u32 * ns) * esz, v[k][r]) };
            });
        }
    });
    sync_threads();
}

/// Input element `e` of column `j` (`jl = j % ns`) as the pass computes with it.
///
/// # Safety
/// `mul`, when set, holds the first pass's `cols * len` factors; `four_step`, when
/// `ns > 1`, the transform's four-step table.
#[inline(always)]
unsafe fn prepare<F: Elem, const FULL: bool>(a: &Io, x: Cx<F>, j: u32, jl: u32, e: u32) -> Cx<F> {
    // SAFETY: per the contract.
    let x = unsafe { factors::<F, FULL>(a, x, j, e) };
    if FULL && jl != 0 && e != 0 {
        // SAFETY: per the contract.
        x * unsafe { four_step_twiddle(a, jl as u64 * e as u64) }.cast::<F>()
    } else {
        x
    }
}

/// Input element `e` of column `j` times the pass's `mul` factor, conjugated for an
/// inverse: `prepare` without the four-step twiddle.
///
/// # Safety
/// As for `prepare`.
#[inline(always)]
unsafe fn factors<F: Elem, const FULL: bool>(a: &Io, mut x: Cx<F>, j: u32, e: u32) -> Cx<F> {
    if FULL && a.mul != 0 {
        let n = j as u64 + e as u64 * a.cols;
        // SAFETY: per the contract.
        x = x * unsafe { F::ld((a.mul as *const Cx<F>).add(n as usize)) };
    }
    if a.conj_in { x.conj() } else { x }
}

/// The four-step twiddle `W_(ns len)^m` (`m = jl * e`), in float64.
///
/// # Safety
/// `a.four_step` is the transform's table (a pass with `ns > 1`).
#[inline(always)]
unsafe fn four_step_twiddle(a: &Io, m: u64) -> Cx<f64> {
    let (f, c) = four_step_entries(m * a.step, a.fine_log2);
    let table = a.four_step as *const Cx<f64>;
    // SAFETY: the host's `four_step_table(n)` holds both entries (plan::four_step_entries).
    unsafe { f64::ld(table.add(f)) * f64::ld(table.add(c)) }
}

/// Output element as stored: conjugated for an inverse, scaled.
#[inline(always)]
fn finish<F: Elem>(a: &Io, mut y: Cx<F>) -> Cx<F> {
    if a.conj_out {
        y = y.conj();
    }
    if a.scale != 1.0 {
        y = y.scale(F::of(a.scale));
    }
    y
}

/// Elements a thread moves per round of `each_element`: all its loads of a round are
/// issued before the first is used, so they overlap in flight.
const CHUNK: usize = 8;

/// Moves every element of the block's valid columns: `fetch(t, e, column)` for up to
/// `CHUNK` elements, then `put(t, e, column, value)` for each. Adjacent threads take
/// adjacent elements of a row (`rows`, for rows adjacent in memory) or the same element
/// of adjacent columns, whichever keeps adjacent threads on adjacent addresses.
///
/// # Safety
/// `meta` holds the bookkeeping of the block's `2^tile_log2` columns.
#[inline(always)]
unsafe fn each_element<F: Elem>(
    a: &Pass,
    rows: bool,
    meta: u32,
    mut fetch: impl FnMut(u32, u32, &Column) -> Cx<F>,
    mut put: impl FnMut(u32, u32, &Column, Cx<F>),
) {
    let (tid, nt) = (thread_idx(), block_dim());
    let len = a.len;
    let total = len << a.tile_log2;
    let pow2 = len.is_power_of_two();
    let decode = |i: u32| -> (u32, u32) {
        if !rows {
            (i & ((1 << a.tile_log2) - 1), i >> a.tile_log2)
        } else if pow2 {
            (i >> len.trailing_zeros(), i & (len - 1))
        } else {
            (i / len, i % len)
        }
    };
    // A thread's elements mostly share a column (across columns, when the block's
    // threads are a multiple of its columns, always), so the bookkeeping is read from
    // shared memory only when the column changes: reading it for every element made
    // the shared-memory pipe, not DRAM, the limit.
    let mut cached = u32::MAX;
    let mut c = Column::INVALID;
    let mut column = |t: u32| -> Column {
        if t != cached {
            cached = t;
            // SAFETY: per the contract.
            c = unsafe { Column::load(meta + t * META_BYTES) };
        }
        c
    };
    let mut base = tid;
    while base < total {
        let mut x = [Cx::<F>::default(); CHUNK];
        unroll!(k in 0..CHUNK => {
            let i = base + k as u32 * nt;
            if i < total {
                let (t, e) = decode(i);
                let c = column(t);
                if c.valid() {
                    x[k] = fetch(t, e, &c);
                }
            }
        });
        unroll!(k in 0..CHUNK => {
            let i = base + k as u32 * nt;
            if i < total {
                let (t, e) = decode(i);
                let c = column(t);
                if c.valid() {
                    put(t, e, &c, x[k]);
                }
            }
        });
        base += CHUNK as u32 * nt;
    }
}

/// A column's bookkeeping, kept in shared memory after the rows.
#[derive(Clone, Copy)]
struct Column {
    src: i64,
    dst: i64,
    j: u32,
    jl: u32,
}

impl Column {
    const INVALID: Column = Column {
        src: 0,
        dst: 0,
        j: 0,
        jl: u32::MAX,
    };

    /// # Safety
    /// `m` is a bookkeeping slot inside the launch's shared size.
    #[inline(always)]
    unsafe fn load(m: u32) -> Column {
        // SAFETY: per the contract.
        unsafe {
            Column {
                src: ld_i64(m),
                dst: ld_i64(m + 8),
                j: ld_u32(m + 16),
                jl: ld_u32(m + 20),
            }
        }
    }
    /// # Safety
    /// As for `load`.
    #[inline(always)]
    unsafe fn store(&self, m: u32) {
        // SAFETY: per the contract.
        unsafe {
            st_i64(m, self.src);
            st_i64(m + 8, self.dst);
            st_u32(m + 16, self.j);
            st_u32(m + 20, self.jl);
        }
    }
    /// Past the batch's last column (`jl` is never `u32::MAX` otherwise).
    #[inline(always)]
    fn valid(&self) -> bool {
        self.jl != u32::MAX
    }
}

/// Runs the pass's stages, the first reading the source and, with `$fuse_last`, the
/// last writing the destination (see `stage`).
macro_rules! stages {
    ($F:ty, $double:expr, $full:expr, $a:expr, $io:expr, $fuse_last:expr, $data:expr, $pitch:expr) => {{
        let mut tw = $a.twiddle as *const Cx<$F>;
        let mut ns = 1u32;
        // The radices as two words read with constant indices: a run-time index into
        // the parameter struct would copy it to local memory.
        let r8 = |i: usize| $a.radices[i] as u64;
        let words = [
            (0..8).fold(0u64, |w, i| w | r8(i) << (8 * i)),
            (8..16).fold(0u64, |w, i| w | r8(i) << (8 * (i - 8))),
        ];
        let mut s = 0;
        while s < $a.stages as usize {
            let word = if s < 8 { words[0] } else { words[1] };
            let r = (word >> (8 * (s % 8)) & 0xff) as u32;
            let first = s == 0;
            let last = $fuse_last && s + 1 == $a.stages as usize;
            macro_rules! call {
                ($r:literal, $first:literal, $last:literal) => {
                    // SAFETY: the plan's radices divide len; the host sized the block
                    // for per_thread butterflies; the bookkeeping is written.
                    unsafe {
                        stage::<$F, $r, { per_thread($r, $double) as usize }, $first, $last, $full>(
                            $io.src,
                            $io.dst,
                            $io.src_e,
                            $io.dst_e,
                            $io.mul,
                            $io.cols,
                            $io.four_step,
                            $io.step,
                            $io.scale,
                            $io.bits(),
                            $io.meta,
                            $data,
                            $pitch,
                            $a.tile_log2,
                            $a.len,
                            ns,
                            tw,
                        )
                    }
                };
            }
            macro_rules! go {
                ($r:literal) => {
                    match (first, last) {
                        (true, true) => call!($r, true, true),
                        (true, false) => call!($r, true, false),
                        (false, true) => call!($r, false, true),
                        (false, false) => call!($r, false, false),
                    }
                };
            }
            match r {
                16 => go!(16),
                13 => go!(13),
                11 => go!(11),
                9 => go!(9),
                8 => go!(8),
                7 => go!(7),
                5 => go!(5),
                4 => go!(4),
                3 => go!(3),
                _ => go!(2),
            }
            // SAFETY: the next stage's table follows this one's.
            tw = unsafe { tw.add(stage_table_len(r, ns) as usize) };
            ns *= r;
            s += 1;
        }
    }};
}

/// One pass of a transform (see [`Pass`]).
///
/// # Safety
/// The host's plan: pointers, tables and strides in bounds; the block shaped by
/// `plan::block`, with its shared size.
macro_rules! pass_kernel {
    ($name:literal, $fn:ident, $F:ty, $double:expr, $full:expr) => {
        #[unsafe(export_name = $name)]
        unsafe extern "ptx-kernel" fn $fn(a: Pass) {
            let (tid, nt) = (thread_idx(), block_dim());
            let esz = size_of::<Cx<$F>>() as u32;
            let tile = 1u32 << a.tile_log2;
            let pitch = pitch(a.len, a.tile_log2, $double);
            let data = smem_addr(0);
            let meta = data + ((pitch * esz) << a.tile_log2);
            let total = a.cols * a.batch;
            let col0 = block_idx() as u64 * tile as u64;
            let mut t = tid;
            while t < tile {
                let col = col0 + t as u64;
                let m = meta + t * META_BYTES;
                let c = if col < total {
                    let (src, dst, j, jl) = column(&a, col);
                    Column { src, dst, j, jl }
                } else {
                    Column::INVALID
                };
                // SAFETY: the bookkeeping slots follow the rows in the shared size.
                unsafe { c.store(m) };
                t += nt;
            }
            sync_threads();
            let io = Io::of(&a, meta);
            if a.stages == 0 {
                // A pass of one point: the elements through the rows unchanged.
                let src = a.src as *const Cx<$F>;
                // SAFETY: the plan keeps every element's offset inside the input.
                unsafe {
                    each_element(
                        &a,
                        io.load_rows,
                        meta,
                        |_, e, c| <$F>::ld(src.offset((c.src + e as i64 * a.src_e) as isize)),
                        |t, e, c, x| {
                            let x = prepare::<$F, $full>(&io, x, c.j, c.jl, e);
                            <$F>::sts(data + (t * pitch + pad(e)) * esz, x);
                        },
                    );
                }
                sync_threads();
            }
            // A single stage reads and writes with one thread mapping: fused with the
            // store only where both run along rows or both across columns.
            let fuse_last = a.stages > 1 || (a.stages == 1 && io.load_rows == io.store_rows);
            stages!($F, $double, $full, a, io, fuse_last, data, pitch);
            if fuse_last {
                return;
            }
            let dst = a.dst as *mut Cx<$F>;
            // SAFETY: as for the loads, in the output.
            unsafe {
                each_element(
                    &a,
                    io.store_rows,
                    meta,
                    |t, e, _| finish(&io, <$F>::lds(data + (t * pitch + pad(e)) * esz)),
                    |_, e, c, y| <$F>::st(dst.offset((c.dst + e as i64 * a.dst_e) as isize), y),
                );
            }
        }
    };
}
pass_kernel!("gpupy_fft_pass_c64", pass_c64, f32, false, true);
pass_kernel!("gpupy_fft_pass_c128", pass_c128, f64, true, true);
// A transform done in one pass without `mul` has no four-step twiddles or factors to
// apply, whose code alone holds 20 registers of the complex64 kernel (114 -> 88).
pass_kernel!(
    "gpupy_fft_pass_single_c64",
    pass_single_c64,
    f32,
    false,
    false
);
pass_kernel!(
    "gpupy_fft_pass_single_c128",
    pass_single_c128,
    f64,
    true,
    false
);

/// Calls `f(src, dst, k)` for output `k` of every batch item: `k` from the grid's x,
/// items from its y (striding by the grid's height); `src` and `dst` are the item's
/// base offsets.
#[inline(always)]
fn each_output(a: &Twist, mut f: impl FnMut(i64, i64, u64)) {
    let k = block_idx() as u64 * block_dim() as u64 + thread_idx() as u64;
    if k >= a.n {
        return;
    }
    let mut b = block_idx_y() as u64;
    while b < a.batch {
        let (b1, b0) = ((b / a.batch0) as i64, (b % a.batch0) as i64);
        f(
            b1 * a.src.b1 + b0 * a.src.b0,
            b1 * a.dst.b1 + b0 * a.dst.b0,
            k,
        );
        b += grid_dim_y() as u64;
    }
}

/// `src[at]` of a twist's input.
///
/// # Safety
/// The host's geometry keeps `at` inside the input.
#[inline(always)]
unsafe fn src_at<F: Elem>(a: &Twist, base: i64, k: u64) -> Cx<F> {
    // SAFETY: per the contract.
    unsafe { F::ld((a.src.ptr as *const Cx<F>).offset((base + k as i64 * a.src.e) as isize)) }
}

/// Stores output `k` of an item.
///
/// # Safety
/// As for `src_at`, in the output.
#[inline(always)]
unsafe fn dst_at<F: Elem>(a: &Twist, base: i64, k: u64, v: Cx<F>) {
    // SAFETY: per the contract.
    unsafe {
        F::st(
            (a.dst.ptr as *mut Cx<F>).offset((base + k as i64 * a.dst.e) as isize),
            v,
        )
    }
}

/// Entry `k` of the twist's table.
///
/// # Safety
/// The table covers `k`.
#[inline(always)]
unsafe fn table<F: Elem>(a: &Twist, k: u64) -> Cx<F> {
    // SAFETY: per the contract.
    unsafe { F::ld((a.table as *const Cx<F>).add(k as usize)) }
}

macro_rules! twist_kernels {
    ($F:ty, $sfx:literal, $chirp_in:ident, $chirp_out:ident, $r2c:ident, $c2r:ident, $herm:ident) => {
        /// Bluestein's input: the chirped signal, zero-padded to the convolution's length.
        #[unsafe(export_name = concat!("gpupy_fft_chirp_in_", $sfx))]
        unsafe extern "ptx-kernel" fn $chirp_in(a: Twist) {
            each_output(&a, |s, d, k| {
                let mut y = Cx::<$F>::default();
                if k < a.len {
                    // SAFETY: k < len elements of the item and of the chirp table.
                    unsafe {
                        let mut x = src_at::<$F>(&a, s, k);
                        if a.conj != 0 {
                            x = x.conj();
                        }
                        y = x * table::<$F>(&a, k);
                    }
                }
                // SAFETY: k < n, the padded length.
                unsafe { dst_at(&a, d, k, y) };
            });
        }

        /// Bluestein's output: the convolution's first `len` values, chirped and scaled.
        #[unsafe(export_name = concat!("gpupy_fft_chirp_out_", $sfx))]
        unsafe extern "ptx-kernel" fn $chirp_out(a: Twist) {
            each_output(&a, |s, d, k| {
                // SAFETY: k < len = n.
                unsafe {
                    let mut y = table::<$F>(&a, k) * src_at::<$F>(&a, s, k);
                    if a.conj != 0 {
                        y = y.conj();
                    }
                    dst_at(&a, d, k, y.scale(<$F>::of(a.scale)));
                }
            });
        }

        /// A real transform's spectrum `X_k`, `k <= len/2`, from the transform `Z` of
        /// its even and odd samples as one complex signal of `m = len/2`
        /// (`real::r2c_post`).
        #[unsafe(export_name = concat!("gpupy_fft_r2c_post_", $sfx))]
        unsafe extern "ptx-kernel" fn $r2c(a: Twist) {
            let m = a.len / 2;
            each_output(&a, |s, d, k| {
                let (kz, kc) = r2c_sources(k as u32, m as u32);
                // SAFETY: indices below m in the item; k <= m in the table.
                unsafe {
                    let z = src_at::<$F>(&a, s, kz as u64);
                    let zc = src_at::<$F>(&a, s, kc as u64).conj();
                    let x = r2c_post(z, zc, table::<$F>(&a, k));
                    dst_at(&a, d, k, x.scale(<$F>::of(a.scale)));
                }
            });
        }

        /// The inverse: twice `Z_k`, `k < m`, from the spectrum's `m + 1` entries
        /// (`real::c2r_pre`).
        #[unsafe(export_name = concat!("gpupy_fft_c2r_pre_", $sfx))]
        unsafe extern "ptx-kernel" fn $c2r(a: Twist) {
            let m = a.len / 2;
            each_output(&a, |s, d, k| {
                // SAFETY: indices up to m in the item (m + 1 entries); k < m in the table.
                unsafe {
                    let x = src_at::<$F>(&a, s, k);
                    let xc = src_at::<$F>(&a, s, m - k).conj();
                    dst_at(&a, d, k, c2r_pre(x, xc, table::<$F>(&a, k), k as u32));
                }
            });
        }

        /// A real signal's full spectrum from entries `0..=len/2`: `X_k = conj X_(len-k)`
        /// above, the imaginary parts of `X_0` (and `X_(len/2)`) dropped.
        #[unsafe(export_name = concat!("gpupy_fft_hermitian_", $sfx))]
        unsafe extern "ptx-kernel" fn $herm(a: Twist) {
            each_output(&a, |s, d, k| {
                // SAFETY: the index is at most len/2 in the item.
                unsafe {
                    let mirrored = 2 * k > a.len;
                    let mut x = src_at::<$F>(&a, s, if mirrored { a.len - k } else { k });
                    if mirrored {
                        x = x.conj();
                    } else if k == 0 || 2 * k == a.len {
                        x.im = <$F>::of(0.0);
                    }
                    dst_at(&a, d, k, x);
                }
            });
        }
    };
}
twist_kernels!(
    f32,
    "c64",
    chirp_in_c64,
    chirp_out_c64,
    r2c_c64,
    c2r_c64,
    herm_c64
);
twist_kernels!(
    f64,
    "c128",
    chirp_in_c128,
    chirp_out_c128,
    r2c_c128,
    c2r_c128,
    herm_c128
);
