//! Sorting and searching: `sort`/`argsort` along any axis with the stable LSD radix sort
//! of `kernels/src/sort/`, and `searchsorted`.
//!
//! A sort along an axis moves that axis last (a contiguous copy when it is not last
//! already) and sorts all rows at once: the key passes sort every value stably, then the
//! row passes sort stably by row number (the index payload divided by the row length),
//! which regroups the rows with each one sorted. The planning (histogram grid, passes,
//! which buffer each pass reads and writes, the workspace layout) is pure Rust, tested
//! without a GPU.

use gpupy_kernels as kernels;
use gpupy_kernels::sort::Part;
use gpupy_kernels::sort::radix::{
    INDEX_OUT_I64, KEY_DIGITS, MAX_PASSES, RADIX, SORT_BLOCK, SORT_WARPS, SortPass, hist_smem,
    onesweep_smem, tile_len,
};
use gpupy_kernels::sort::search::{LEFT, RIGHT};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::layout::{Layout, normalize_axis};
use crate::ops::elementwise::copy::{astype, contiguous, copy_into};
use crate::ops::{BLOCK, elementwise_grid};

/// Histogram blocks per SM. Each block reads a long chunk with its own shared
/// histograms and adds them to the global counts once, so a few blocks per SM saturate
/// the memory bus while keeping the global atomics few.
const HIST_BLOCKS_PER_SM: u64 = 4;

/// The histogram kernel's grid: `blocks` blocks, each owning `chunk` consecutive values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    pub blocks: u32,
    pub chunk: u64,
}

/// The histogram grid for `n` values of `itemsize` bytes on a GPU with `sms` SMs: at most
/// `HIST_BLOCKS_PER_SM` blocks per SM, each chunk a whole number of tiles (so chunks
/// start 16-byte aligned), no empty block.
pub fn grid(n: u64, itemsize: usize, sms: u32) -> Grid {
    let tile = tile_len(itemsize) as u64;
    let tiles = n.div_ceil(tile).max(1);
    let blocks = tiles.min(sms.max(1) as u64 * HIST_BLOCKS_PER_SM);
    let chunk = tiles.div_ceil(blocks) * tile;
    Grid {
        blocks: n.div_ceil(chunk).max(1) as u32,
        chunk,
    }
}

/// Byte offsets of the parts of one sort's workspace, a single zeroed allocation:
/// `counts[pass][RADIX]` u32 (the histogram, then the digit starts), one ticket counter
/// per pass, then the look-back status words, `RADIX` u64 per tile (shared by all passes,
/// which tell theirs apart by the pass number inside).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workspace {
    pub tickets: u64,
    pub status: u64,
    pub bytes: u64,
}

/// The workspace of a sort with `passes` passes over `tiles` tiles.
pub fn workspace(passes: usize, tiles: u64) -> Workspace {
    let tickets = passes as u64 * RADIX as u64 * 4;
    // Room for MAX_PASSES counters, rounded to keep the status words 256-byte aligned.
    let status = tickets + (MAX_PASSES as u64 * 4).next_multiple_of(256);
    Workspace {
        tickets,
        status,
        bytes: status + tiles * RADIX as u64 * 8,
    }
}

/// What one radix pass sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digit {
    /// An 8-bit digit of the key, from the least significant.
    Key(u32),
    /// An 8-bit digit of the row number, from the least significant.
    Row(u32),
}

/// The passes of a sort of `rows` rows of values with `key_digits` key digits: the key
/// digits, then as many row digits as the largest row number needs.
pub fn passes(key_digits: u32, rows: u64) -> Vec<Digit> {
    let row_bits = if rows <= 1 {
        0
    } else {
        64 - (rows - 1).leading_zeros()
    };
    (0..key_digits)
        .map(Digit::Key)
        .chain((0..row_bits.div_ceil(8)).map(Digit::Row))
        .collect()
}

/// A buffer a pass reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Buf {
    /// Nothing (values not needed; indices `0..n` when read).
    None,
    /// The (contiguous) input values.
    Input,
    /// The result: sorted values, or int64 indices.
    Out,
    /// Temporary buffers, used alternately.
    Tmp(u8),
}

/// The buffers of one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassIo {
    pub keys_in: Buf,
    pub keys_out: Buf,
    pub idx_in: Buf,
    pub idx_out: Buf,
}

/// Which buffers each pass reads and writes. A sort carries the values through every
/// pass and ends in `Out` (passes alternate between `Out` and `Tmp(0)`, counted back from
/// the last); it carries indices only when there are row passes. An argsort carries the
/// values only while key passes remain and always carries the indices, which the last
/// pass writes to `Out`. No pass reads the buffer it writes.
pub fn schedule(passes: &[Digit], argsort: bool) -> Vec<PassIo> {
    let p = passes.len();
    let rows = passes.iter().any(|d| matches!(d, Digit::Row(_)));
    let with_idx = argsort || rows;
    let mut io: Vec<PassIo> = Vec::with_capacity(p);
    for (i, d) in passes.iter().enumerate() {
        let last = i + 1 == p;
        let prev = io.last().copied();
        let keys_in = match prev {
            None => Buf::Input,
            Some(q) => q.keys_out,
        };
        let keys_out = if !argsort {
            if (p - 1 - i).is_multiple_of(2) {
                Buf::Out
            } else {
                Buf::Tmp(0)
            }
        } else if matches!(passes.get(i + 1), Some(Digit::Key(_))) {
            Buf::Tmp((i % 2) as u8)
        } else {
            Buf::None
        };
        let keys_in = if !argsort || matches!(d, Digit::Key(_)) {
            keys_in
        } else {
            Buf::None
        };
        let (idx_in, idx_out) = if !with_idx {
            (Buf::None, Buf::None)
        } else {
            let idx_in = prev.map_or(Buf::None, |q| q.idx_out);
            let idx_out = match (last, argsort) {
                (true, true) => Buf::Out,
                (true, false) => Buf::None,
                _ => Buf::Tmp((i % 2) as u8),
            };
            (idx_in, idx_out)
        };
        io.push(PassIo {
            keys_in,
            keys_out,
            idx_in,
            idx_out,
        });
    }
    io
}

/// NumPy's `sort(a, axis)` (`argsort == false`) or `argsort(a, axis)`: a new C-contiguous
/// array, stable (equal values keep their order, as NumPy's `kind='stable'`). `axis`
/// `None` sorts the flattened array.
pub fn sort(a: &Array, axis: Option<isize>, argsort: bool) -> Result<Array> {
    if crate::ops::elementwise::copy::computes_elsewhere(a.dtype()) {
        // bfloat16 widens to float32 exactly, so the order is the same.
        return crate::ops::elementwise::copy::in_compute_dtype(a, |x| sort(x, axis, argsort));
    }
    let (src, axis) = match axis {
        None => (flatten(a)?, 0),
        Some(ax) => (a.clone(), normalize_axis(ax, a.ndim())?),
    };
    let last = src.ndim() - 1;
    if axis == last {
        return sort_last_axis(&src, argsort);
    }
    let moved = src.view(
        src.layout().moveaxis(&[axis as isize], &[last as isize])?,
        src.dtype(),
    )?;
    let sorted = sort_last_axis(&moved, argsort)?;
    let back = sorted.view(
        sorted
            .layout()
            .moveaxis(&[last as isize], &[axis as isize])?,
        sorted.dtype(),
    )?;
    let out = Array::empty(a.device(), back.shape(), back.dtype())?;
    copy_into(&back, &out)?;
    Ok(out)
}

/// `a` flattened in C order (a view when it is C-contiguous).
fn flatten(a: &Array) -> Result<Array> {
    let c = contiguous(a)?;
    c.view(
        Layout {
            offset: c.layout().offset,
            ..Layout::contiguous(&[c.size()])
        },
        c.dtype(),
    )
}

/// Sorts (or argsorts) every row along the last axis of `a` (at least 1-d).
fn sort_last_axis(a: &Array, argsort: bool) -> Result<Array> {
    let device = a.device();
    let shape = a.shape().to_vec();
    let out_dtype = if argsort { DType::Int64 } else { a.dtype() };
    let n = a.size() as u64;
    let row_len = *shape.last().unwrap_or(&1) as u64;
    if n >= 1 << 32 {
        return Err(Error::Value(format!(
            "gpupy sorts at most 2**32 - 1 elements at once, got {n}"
        )));
    }
    if n == 0 || row_len <= 1 {
        // Nothing to reorder: the values themselves, or index 0 everywhere.
        let out = Array::empty(device, &shape, out_dtype)?;
        if argsort {
            crate::ops::elementwise::fill::fill(&out, &[0; 8])?;
        } else {
            copy_into(a, &out)?;
        }
        return Ok(out);
    }
    let src = contiguous(a)?;
    let dtype = src.dtype();
    let itemsize = dtype.itemsize();
    let rows = n / row_len;
    let passes = passes(KEY_DIGITS[dtype as usize], rows);
    let io = schedule(&passes, argsort);
    let g = grid(n, itemsize, device.props.multi_processor_count as u32);
    let tiles = n.div_ceil(tile_len(itemsize) as u64);
    let ws = workspace(passes.len(), tiles);
    let key_passes = KEY_DIGITS[dtype as usize];
    // Launch sizes the kernels rely on: at most MAX_PASSES ticket counters, one onesweep
    // block per tile within the grid limit, and shared sizes within the default 48 KiB.
    if passes.len() > MAX_PASSES as usize
        || tiles > i32::MAX as u64
        || onesweep_smem(itemsize, true) > 48 * 1024
        || hist_smem(key_passes) > 48 * 1024
    {
        return Err(Error::Value(format!(
            "sort: no launch plan for {n} values of {}",
            dtype.name()
        )));
    }

    let out = Array::empty(device, &shape, out_dtype)?;
    let uses = |b: Buf, keys: bool| {
        io.iter().any(|p| {
            if keys {
                p.keys_in == b || p.keys_out == b
            } else {
                p.idx_in == b || p.idx_out == b
            }
        })
    };
    let alloc = |used: bool, dtype: DType| -> Result<Option<Array>> {
        used.then(|| Array::empty(device, &[n as usize], dtype))
            .transpose()
    };
    let key_tmp = [
        alloc(uses(Buf::Tmp(0), true), dtype)?,
        alloc(uses(Buf::Tmp(1), true), dtype)?,
    ];
    let idx_tmp = [
        alloc(uses(Buf::Tmp(0), false), DType::UInt32)?,
        alloc(uses(Buf::Tmp(1), false), DType::UInt32)?,
    ];
    // Zeroed once: the histogram adds into the counts, every pass's ticket starts at 0,
    // and status words of earlier passes read as unpublished.
    let work = Array::empty(device, &[ws.bytes.div_ceil(8) as usize], DType::UInt64)?;
    crate::ops::elementwise::fill::fill(&work, &[0; 8])?;
    let key_ptr = |b: Buf| -> u64 {
        match b {
            Buf::None => 0,
            Buf::Input => src.data_ptr(),
            Buf::Out => out.data_ptr(),
            Buf::Tmp(k) => key_tmp[k as usize].as_ref().map_or(0, |t| t.data_ptr()),
        }
    };
    let idx_ptr = |b: Buf| -> u64 {
        match b {
            Buf::Out => out.data_ptr(),
            Buf::Tmp(k) => idx_tmp[k as usize].as_ref().map_or(0, |t| t.data_ptr()),
            _ => 0,
        }
    };

    let kernel = |part| {
        kernels::sort::kernel(part, dtype as usize)
            .ok_or_else(|| Error::Type(format!("gpupy cannot sort {} arrays", dtype.name())))
    };
    let onesweep = [kernel(Part::Onesweep)?, kernel(Part::OnesweepIdx)?];
    let counts = work.data_ptr();
    // (n, chunk, keys, counts): keys holds n values, contiguous and 16-byte aligned
    // (contiguous() and pool blocks); chunk is a whole number of tiles with every
    // block's chunk starting below n; counts holds key_passes * RADIX zeroed u32; the
    // shared size is hist_smem (checked above).
    Launch::new(device, kernel(Part::Histogram)?)?
        .grid(g.blocks)
        .block(SORT_BLOCK)
        .shared(hist_smem(key_passes))
        .arg(n)
        .arg(g.chunk)
        .arg(src.data_ptr())
        .arg(counts)
        .run()?;
    // (counts, key_passes, passes, rows, row_len): counts holds passes * RADIX u32, the
    // key passes' filled by the histogram launch before it on the stream;
    // rows * row_len = n < 2^32; one block with one shared word per warp.
    Launch::new(device, kernel(Part::Starts)?)?
        .block(SORT_BLOCK)
        .shared(SORT_WARPS * 4)
        .arg(counts)
        .arg(key_passes)
        .arg(passes.len() as u32)
        .arg(rows as u32)
        .arg(row_len as u32)
        .run()?;
    for (i, (d, b)) in passes.iter().zip(&io).enumerate() {
        let p = SortPass {
            n,
            digit: match *d {
                Digit::Key(k) | Digit::Row(k) => k,
            },
            row_len: match d {
                Digit::Key(_) => 0,
                Digit::Row(_) => row_len as u32,
            },
            out_row_len: row_len as u32,
            flags: if b.idx_out == Buf::Out {
                INDEX_OUT_I64
            } else {
                0
            },
            pass: i as u32,
        };
        let (keys_in, keys_out) = (key_ptr(b.keys_in), key_ptr(b.keys_out));
        let (idx_in, idx_out) = (idx_ptr(b.idx_in), idx_ptr(b.idx_out));
        // The kernels' contracts, checked here: key passes read values, indices are
        // read only after a pass wrote them, and nothing is read and written at once.
        let key_pass = matches!(d, Digit::Key(_));
        // The kernel without indices also needs both value arrays.
        let with_idx = idx_in != 0 || idx_out != 0 || !key_pass;
        if (key_pass && keys_in == 0)
            || (keys_in != 0 && keys_in == keys_out)
            || (idx_in != 0 && idx_in == idx_out)
            || (!with_idx && keys_out == 0)
        {
            return Err(Error::Value("sort: inconsistent pass schedule".into()));
        }
        let pass_starts = counts + (i as u64) * RADIX as u64 * 4;
        let ticket = counts + ws.tickets + 4 * i as u64;
        let status = counts + ws.status;
        // (SortPass, keys_in, keys_out, idx_in, idx_out, starts, ticket, status) is
        // the onesweep kernels' parameter list (the kernel without indices runs only key
        // passes with both value arrays, checked above): every non-null array holds n
        // elements of its type (the int64 output when flags say so); starts is this pass's
        // RADIX digit starts, written by the starts launch before it on the stream; ticket
        // is this pass's zeroed counter (i < MAX_PASSES); status holds RADIX words per
        // tile, zero or left by earlier passes of this sort; one block per tile, and the
        // shared size is onesweep_smem for the kernel's with_idx (checked above).
        Launch::new(device, onesweep[with_idx as usize])?
            .grid(tiles as u32)
            .block(SORT_BLOCK)
            .shared(onesweep_smem(itemsize, with_idx))
            .arg(p)
            .arg(keys_in)
            .arg(keys_out)
            .arg(idx_in)
            .arg(idx_out)
            .arg(pass_starts)
            .arg(ticket)
            .arg(status)
            .run()?;
    }
    Ok(out)
}

/// NumPy's `searchsorted(sorted, values, side)` for a 1-d `sorted` of `values`' dtype (the
/// caller casts both to their common dtype): int64 insertion points shaped like `values`.
/// With `right`, after equal values; else before them.
pub fn searchsorted(sorted: &Array, values: &Array, right: bool) -> Result<Array> {
    if sorted.ndim() != 1 {
        return Err(Error::Value("object too deep for desired array".into()));
    }
    if sorted.dtype() != values.dtype() {
        return Err(Error::Type(format!(
            "searchsorted needs one dtype, got {} and {}",
            sorted.dtype().name(),
            values.dtype().name()
        )));
    }
    if crate::ops::elementwise::copy::computes_elsewhere(sorted.dtype()) {
        let c = sorted.dtype().compute();
        return searchsorted(&astype(sorted, c)?, &astype(values, c)?, right);
    }
    let device = sorted.device();
    let out = Array::empty(device, values.shape(), DType::Int64)?;
    let m = values.size() as u64;
    if m == 0 {
        return Ok(out);
    }
    let (a, v) = (contiguous(sorted)?, contiguous(values)?);
    let kernel = kernels::sort::kernel(Part::Search, a.dtype() as usize)
        .ok_or_else(|| Error::Type(format!("gpupy cannot search {} arrays", a.dtype().name())))?;
    let side = if right { RIGHT } else { LEFT };
    // (sorted, n, values, m, out, side): sorted holds n contiguous values, values and
    // out m each.
    Launch::new(device, kernel)?
        .grid(elementwise_grid(device, m))
        .block(BLOCK)
        .arg(a.data_ptr())
        .arg(a.size() as u64)
        .arg(v.data_ptr())
        .arg(m)
        .arg(out.data_ptr())
        .arg(side)
        .run()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpupy_kernels::sort::radix::{SortKey, row_digit_count, status_word};

    #[test]
    fn grids_cover_the_input_in_whole_tiles() {
        for (n, size) in [
            (1u64, 4usize),
            (4096, 4),
            (4097, 4),
            (64 << 20, 4),
            (1_000_003, 16),
            (7, 1),
        ] {
            let g = grid(n, size, 132);
            let tile = tile_len(size) as u64;
            assert_eq!(g.chunk % tile, 0);
            assert!(g.blocks as u64 <= HIST_BLOCKS_PER_SM * 132);
            assert!(g.blocks as u64 * g.chunk >= n, "{n}: covered");
            assert!((g.blocks as u64 - 1) * g.chunk < n, "{n}: no empty block");
            assert_eq!((g.chunk * size as u64) % 16, 0);
        }
    }

    #[test]
    fn row_passes_cover_the_row_numbers() {
        assert_eq!(passes(4, 1), (0..4).map(Digit::Key).collect::<Vec<_>>());
        assert_eq!(passes(1, 256).len(), 2);
        assert_eq!(passes(1, 257).len(), 3);
        assert_eq!(
            passes(2, 65537)[2..],
            [Digit::Row(0), Digit::Row(1), Digit::Row(2)]
        );
    }

    /// Replays a schedule: every read finds what the previous pass wrote, no pass reads
    /// what it writes, and the result lands in `Out`.
    fn check(passes: &[Digit], argsort: bool) {
        let io = schedule(passes, argsort);
        for (i, p) in io.iter().enumerate() {
            if matches!(passes[i], Digit::Key(_)) {
                assert_ne!(p.keys_in, Buf::None, "{passes:?} pass {i} needs values");
            }
            if i == 0 {
                assert!(p.keys_in == Buf::Input && p.idx_in == Buf::None);
            } else {
                let q = io[i - 1];
                if p.keys_in != Buf::None {
                    assert_eq!(p.keys_in, q.keys_out);
                }
                assert_eq!(p.idx_in, q.idx_out);
            }
            assert!(p.keys_in == Buf::None || p.keys_in != p.keys_out);
            assert!(p.idx_in == Buf::None || p.idx_in != p.idx_out);
            assert!(p.keys_out != Buf::Input && p.idx_out != Buf::Input);
        }
        let last = io.last().unwrap();
        if argsort {
            assert_eq!(last.idx_out, Buf::Out);
            assert!(io.iter().all(|p| p.keys_out != Buf::Out));
        } else {
            assert_eq!(last.keys_out, Buf::Out);
            assert!(io.iter().all(|p| p.idx_out != Buf::Out));
        }
    }

    #[test]
    fn schedules_chain_their_buffers() {
        for key_digits in [1, 2, 4, 8, 9, 17] {
            for rows in [1, 2, 300, 70_000] {
                for argsort in [false, true] {
                    check(&passes(key_digits, rows), argsort);
                }
            }
        }
        // A plain 1-d sort moves no indices.
        let io = schedule(&passes(4, 1), false);
        assert!(
            io.iter()
                .all(|p| p.idx_in == Buf::None && p.idx_out == Buf::None)
        );
        // An argsort's row passes move no values.
        let io = schedule(&passes(4, 1000), true);
        assert!(
            io[4..]
                .iter()
                .all(|p| p.keys_in == Buf::None && p.keys_out == Buf::None)
        );
    }

    #[test]
    fn workspaces_hold_counts_tickets_and_status() {
        for passes in [1usize, 4, 21] {
            for tiles in [1u64, 7, 16384] {
                let ws = workspace(passes, tiles);
                assert!(ws.tickets >= passes as u64 * RADIX as u64 * 4, "counts fit");
                assert!(
                    ws.status >= ws.tickets + MAX_PASSES as u64 * 4,
                    "tickets fit"
                );
                assert_eq!(ws.status % 256, 0);
                assert_eq!(ws.bytes, ws.status + tiles * RADIX as u64 * 8);
            }
        }
    }

    /// The three kernels' arithmetic run on the CPU, with the grid, passes and schedule
    /// the host launches: the histogram of every key digit (per block, summed), the digit
    /// starts (the row passes' counts from `row_digit_count`, checked against counting),
    /// and each onesweep pass tile by tile in ticket order: warp segments, per-warp
    /// counters in (item, lane) order, offsets over warps then digits, staging, the
    /// look-back over a status array that keeps the previous passes' words, and the
    /// write-out. Some tiles publish their inclusive prefix late (`lag`), as a slow block
    /// would, so look-backs also sum aggregates across several tiles. Returns the values
    /// (sort) or int64 indices (argsort).
    fn emulate<T: SortKey + PartialEq + std::fmt::Debug>(
        x: &[T],
        row_len: usize,
        argsort: bool,
        sms: u32,
        lag: u32,
    ) -> (Vec<T>, Vec<i64>) {
        let n = x.len();
        assert_eq!(n % row_len, 0, "whole rows");
        let ps = passes(T::DIGITS, (n / row_len) as u64);
        let io = schedule(&ps, argsort);
        let size = std::mem::size_of::<T>();
        let g = grid(n as u64, size, sms);
        let tile = tile_len(size) as usize;
        let tiles = n.div_ceil(tile);
        let items = tile / SORT_BLOCK as usize;
        let radix = RADIX as usize;
        // Histogram kernel: every block adds its chunk's counts of every key digit.
        let mut counts = vec![0u32; ps.len() * radix];
        for blk in 0..g.blocks as usize {
            let mut local = vec![0u32; T::DIGITS as usize * radix];
            let chunk = g.chunk as usize;
            for v in &x[blk * chunk..((blk + 1) * chunk).min(n)] {
                for k in 0..T::DIGITS {
                    local[k as usize * radix + v.digit(k) as usize] += 1;
                }
            }
            for (c, l) in counts.iter_mut().zip(local) {
                *c += l;
            }
        }
        // Starts kernel.
        let rows = (n / row_len) as u64;
        for (i, d) in ps.iter().enumerate() {
            let c = &mut counts[i * radix..(i + 1) * radix];
            if let Digit::Row(k) = *d {
                let mut want = vec![0u32; radix];
                for e in 0..n {
                    want[((e / row_len) >> (8 * k)) & 0xff] += 1;
                }
                for (b, w) in c.iter_mut().enumerate() {
                    *w = (row_digit_count(rows, k, b as u32) * row_len as u64) as u32;
                }
                assert_eq!(c, &want[..], "row digit {k} counts");
            }
            let mut run = 0;
            for w in c.iter_mut() {
                (*w, run) = (run, run + *w);
            }
        }
        let mut status = vec![0u64; tiles * radix];
        let mut late: Vec<(usize, u64)> = Vec::new();
        let mut keys: std::collections::HashMap<Buf, Vec<T>> = Default::default();
        let mut idx: std::collections::HashMap<Buf, Vec<u32>> = Default::default();
        keys.insert(Buf::Input, x.to_vec());
        let mut out_idx = vec![-1i64; n];
        for (pass, (d, b)) in ps.iter().zip(&io).enumerate() {
            let pass = pass as u32;
            let kin = keys.get(&b.keys_in).cloned();
            let iin = idx.get(&b.idx_in).cloned();
            let val = |e: usize| kin.as_ref().map_or(T::ZERO, |k| k[e]);
            let ix = |e: usize| iin.as_ref().map_or(e as u32, |v| v[e]);
            let digit = |v: T, i: u32| match *d {
                Digit::Key(k) => v.digit(k),
                Digit::Row(k) => ((i / row_len as u32) >> (8 * k)) & 0xff,
            };
            let starts = &counts[pass as usize * radix..(pass as usize + 1) * radix];
            let mut kout = vec![T::ZERO; n];
            let mut iout = vec![u32::MAX; n];
            for id in 0..tiles {
                let start = id * tile;
                let end = (start + tile).min(n);
                let warps = SORT_WARPS as usize;
                let mut counters = vec![vec![0u32; radix]; warps];
                let mut ranked = Vec::new(); // (warp, digit, rank, value, index)
                for (w, counter) in counters.iter_mut().enumerate() {
                    let seg = start + w * 32 * items;
                    for j in 0..items {
                        for lane in 0..32 {
                            let e = seg + j * 32 + lane;
                            if e < end {
                                let dg = digit(val(e), ix(e)) as usize;
                                ranked.push((w, dg, counter[dg], val(e), ix(e)));
                                counter[dg] += 1;
                            }
                        }
                    }
                }
                let mut totals = vec![0u32; radix];
                for dg in 0..radix {
                    for c in counters.iter_mut() {
                        (c[dg], totals[dg]) = (totals[dg], totals[dg] + c[dg]);
                    }
                    status[id * radix + dg] = status_word(pass, id == 0, totals[dg]);
                }
                let mut before = 0u32;
                let mut scatter = vec![0u32; radix];
                for dg in 0..radix {
                    for c in counters.iter_mut() {
                        c[dg] += before;
                    }
                    // Look-back: every earlier tile has published at least its aggregate.
                    let mut excl = 0u32;
                    if id > 0 {
                        let mut j = id - 1;
                        loop {
                            let s = status[j * radix + dg];
                            assert!(s >= status_word(pass, false, 0), "tile {j} published");
                            excl = excl.wrapping_add(s as u32);
                            if (s >> 32) & 1 != 0 {
                                break;
                            }
                            j -= 1;
                        }
                        let word = status_word(pass, true, excl.wrapping_add(totals[dg]));
                        if lag > 0 && !(id as u32 * 7 + dg as u32).is_multiple_of(lag) {
                            late.push((id * radix + dg, word));
                        } else {
                            status[id * radix + dg] = word;
                        }
                    }
                    scatter[dg] = starts[dg].wrapping_add(excl).wrapping_sub(before);
                    before += totals[dg];
                }
                // Late prefixes land a few tiles later, or at the end of the pass.
                if id % 3 == 2 {
                    for (at, word) in late.drain(..) {
                        status[at] = word;
                    }
                }
                let len = end - start;
                let mut stage = vec![None; len];
                for (w, dg, r, v, i) in ranked {
                    let pos = (counters[w][dg] + r) as usize;
                    assert!(stage[pos].is_none(), "two values staged at {pos}");
                    stage[pos] = Some((v, i));
                }
                for (i, s) in stage.into_iter().enumerate() {
                    let (v, x) = s.expect("every tile position staged");
                    let pos = scatter[digit(v, x) as usize].wrapping_add(i as u32) as usize;
                    kout[pos] = v;
                    if b.idx_out == Buf::Out {
                        out_idx[pos] = (x % row_len as u32) as i64;
                    } else {
                        iout[pos] = x;
                    }
                }
            }
            for (at, word) in late.drain(..) {
                status[at] = word;
            }
            if b.keys_out != Buf::None {
                keys.insert(b.keys_out, kout);
            }
            if b.idx_out != Buf::None && b.idx_out != Buf::Out {
                idx.insert(b.idx_out, iout);
            }
        }
        (keys.remove(&Buf::Out).unwrap_or_default(), out_idx)
    }

    /// NumPy's stable sort of each row, by key.
    fn want<T: SortKey>(x: &[T], row_len: usize) -> (Vec<T>, Vec<i64>) {
        let (mut vals, mut idx) = (Vec::new(), Vec::new());
        for row in x.chunks(row_len) {
            let mut order: Vec<usize> = (0..row.len()).collect();
            order.sort_by_key(|&i| row[i].key()); // stable
            vals.extend(order.iter().map(|&i| row[i]));
            idx.extend(order.iter().map(|&i| i as i64));
        }
        (vals, idx)
    }

    #[test]
    fn emulated_passes_sort_stably() {
        // A small LCG: deterministic data with many duplicates and NaNs.
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as u32
        };
        let f: Vec<f32> = (0..20_000)
            .map(|_| match next() % 9 {
                0 => f32::NAN,
                1 => -0.0,
                2 => 0.0,
                k => (k as f32 - 5.0) * 1.5,
            })
            .collect();
        for (row_len, sms, lag) in [
            (20_000, 1, 0),
            (20_000, 4, 5),
            (1000, 2, 2),
            (7, 3, 3),
            (2, 1, 0),
        ] {
            // Whole rows, as the host always has.
            let f = &f[..f.len() / row_len * row_len];
            let (wv, wi) = want(f, row_len);
            let (v, _) = emulate(f, row_len, false, sms, lag);
            assert_eq!(
                v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                wv.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "sort rows of {row_len}"
            );
            let (_, i) = emulate(f, row_len, true, sms, lag);
            assert_eq!(i, wi, "argsort rows of {row_len}");
        }
        let b: Vec<u8> = (0..5000).map(|_| (next() % 3) as u8).collect();
        assert_eq!(emulate(&b, 5000, true, 2, 4).1, want(&b, 5000).1);
        let z: Vec<gpupy_kernels::dtype::c64> = (0..3000)
            .map(|_| {
                gpupy_kernels::dtype::c64::new(
                    (next() % 3) as f32,
                    if next() % 5 == 0 {
                        f32::NAN
                    } else {
                        (next() % 2) as f32
                    },
                )
            })
            .collect();
        assert_eq!(emulate(&z, 300, true, 2, 3).1, want(&z, 300).1);
        // Many tiles (2048 values each): long look-backs through late prefixes.
        let w: Vec<i64> = (0..50_000).map(|_| (next() % 5000) as i64 - 2500).collect();
        for (row_len, lag) in [(50_000, 4), (1000, 7)] {
            let (wv, wi) = want(&w, row_len);
            assert_eq!(
                emulate(&w, row_len, false, 3, lag).0,
                wv,
                "rows of {row_len}"
            );
            assert_eq!(
                emulate(&w, row_len, true, 3, lag).1,
                wi,
                "rows of {row_len}"
            );
        }
    }
}
