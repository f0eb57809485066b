//! Scans along one axis (`cumsum`, `cumprod`, `nancumsum`, `nancumprod`): the launch
//! planning and passes around `kernels/src/scan/`.
//!
//! A scan of an N-d array along `axis` is `lines` independent lines of `n` elements; the
//! other axes (merged where the strides allow) map a line index to its first element in
//! the input and the output, so any view scans in place of a transpose copy. `plan` picks
//! the strategy from the strides:
//! - `rows` (block-cooperative) when a line's elements are contiguous: the last axis;
//! - `cols` (one thread per line) when neighbouring lines are closer in memory than
//!   neighbouring elements of a line (a non-last axis: every access coalesces across the
//!   threads of a warp), and for very short lines.
//!
//! Too few lines to fill the GPU are cut into parts: a reduce pass writes each part's
//! total, those totals are scanned (recursively, by the same code, in the accumulator
//! dtype), and the scan pass starts each part from the total before it.

use gpupy_kernels as kernels;
use gpupy_kernels::args::Strided;
use gpupy_kernels::scan::{Part, ROWS_SHARED_BYTES, ScanArgs, items_per_thread};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::layout::{Layout, shape_str};
use crate::ops::elementwise::copy::{astype, cast_into, same_device};
use crate::ops::{BLOCK, elementwise_args, elementwise_grid};

/// The scan's combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOp {
    /// `cumsum` (`nancumsum` with `nan`).
    Sum,
    /// `cumprod` (`nancumprod` with `nan`).
    Prod,
}

impl ScanOp {
    fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "sum",
            ScanOp::Prod => "prod",
        }
    }
}

/// Lines of at most this many elements always scan one thread per line: a block per
/// line would leave most of its threads idle.
const SHORT_LINE: u64 = 8;
/// Fewest elements a `cols` thread scans per part, so the totals pass stays small.
const COLS_MIN_PART: u64 = 256;
/// Most resident threads per SM (every GPU from Volta on).
const THREADS_PER_SM: u64 = 2048;
/// Most resident blocks per SM (Volta to Hopper: 32).
const BLOCKS_PER_SM: u64 = 32;

/// How a scan is launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    /// One thread per (line, part) rather than one block.
    pub cols: bool,
    /// Parts per line; more than one adds the reduce pass and the totals' scan.
    pub parts: u64,
    /// Elements per part (a multiple of the rows tile when there are several parts).
    pub part_len: u64,
    /// Threads per block.
    pub block: u32,
}

/// The plan for `lines` lines of `n > 0` elements whose elements lie `step_in` apart and
/// whose neighbouring lines (innermost line axis) lie `inner` apart in the input; `items`
/// is the rows kernel's elements per thread, `sms` the device's SM count.
pub(crate) fn plan(n: u64, lines: u64, step_in: i64, inner: i64, items: u64, sms: u64) -> Plan {
    let full_wave = sms * THREADS_PER_SM;
    let across =
        step_in.unsigned_abs() != 1 && lines >= 32 && inner.unsigned_abs() < step_in.unsigned_abs();
    if n <= SHORT_LINE || across {
        let parts = if lines >= full_wave || n <= COLS_MIN_PART {
            1
        } else {
            full_wave.div_ceil(lines).min(n.div_ceil(COLS_MIN_PART))
        };
        let part_len = n.div_ceil(parts);
        return Plan {
            cols: true,
            parts: n.div_ceil(part_len),
            part_len,
            block: BLOCK,
        };
    }
    // A block just large enough for the line (a warp for short lines), at most 256.
    let block = n.div_ceil(items).next_power_of_two().clamp(32, 256);
    let tile = block * items;
    let tiles = n.div_ceil(tile);
    let resident = sms * (THREADS_PER_SM / block).min(BLOCKS_PER_SM);
    let parts = if lines >= resident || tiles == 1 {
        1
    } else {
        resident.div_ceil(lines).min(tiles)
    };
    let part_len = if parts == 1 {
        n
    } else {
        tiles.div_ceil(parts) * tile
    };
    Plan {
        cols: false,
        parts: n.div_ceil(part_len),
        part_len,
        block: block as u32,
    }
}

/// The kernel family for result dtype `d`: (name, element dtype the kernel reads and
/// writes, accumulator dtype). Integers and bool scan in int64 (uint64 shares its bits).
fn kernel_kind(d: DType) -> (&'static str, DType, DType) {
    use DType::*;
    match d {
        Float16 => ("f16", Float16, Float32),
        Float32 => ("f32", Float32, Float64),
        Float64 => ("f64", Float64, Float64),
        Complex64 => ("c64", Complex64, Complex128),
        Complex128 => ("c128", Complex128, Complex128),
        _ => ("i64", Int64, Int64),
    }
}

/// NumPy's `ufunc.accumulate` along `axis` with result dtype `dtype` (which the caller
/// resolved as NumPy does: int64 for bool and signed integers, uint64 for unsigned, the
/// input's own for floats and complex): a new array laid out like `a`.
pub fn scan(a: &Array, axis: usize, op: ScanOp, nan: bool, dtype: DType) -> Result<Array> {
    let out = Array::empty_with(a.device(), Layout::dense_like(a.layout()), dtype)?;
    scan_into(a, axis, op, nan, &out)?;
    Ok(out)
}

/// `scan` into `out` (same shape as `a`, any layout; its dtype is the result dtype).
/// Each input element is first converted to the result dtype, as NumPy's loop does.
pub fn scan_into(a: &Array, axis: usize, op: ScanOp, nan: bool, out: &Array) -> Result<()> {
    if axis >= a.ndim().max(1) {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for array of dimension {}",
            a.ndim()
        )));
    }
    if a.shape() != out.shape() {
        return Err(Error::Value(format!(
            "scan output has shape {}, the input {}",
            shape_str(out.shape()),
            shape_str(a.shape())
        )));
    }
    same_device(a, out)?;
    if a.size() == 0 {
        return Ok(());
    }
    if crate::ops::elementwise::copy::computes_elsewhere(out.dtype()) {
        // bfloat16: accumulated in float32, each result rounded once.
        let tmp = Array::empty(out.device(), out.shape(), out.dtype().compute())?;
        scan_into(a, axis, op, nan, &tmp)?;
        return crate::ops::elementwise::copy::from_compute(tmp, out.dtype(), Some(out)).map(drop);
    }
    // A 0-d scan is its single element.
    let (a, out) = if a.ndim() == 0 {
        (
            a.view(one_d(a.layout()), a.dtype())?,
            out.view(one_d(out.layout()), out.dtype())?,
        )
    } else {
        (a.clone(), out.clone())
    };
    let d = out.dtype();
    let (_, elem, acc) = kernel_kind(d);
    let mut src = if a.dtype() != d { astype(&a, d)? } else { a };
    if elem == DType::Int64 && !matches!(d, DType::Int64 | DType::UInt64) {
        src = astype(&src, DType::Int64)?;
    }
    let src = src.view(src.layout().clone(), elem)?;
    // Narrow integer and bool results scan in an int64 buffer: wrapping int64 sums and
    // products truncate to the narrow type's wrapping ones, and a bool sum (product) is
    // nonzero exactly when any (every) element is.
    let narrow = elem == DType::Int64 && d.itemsize() != 8;
    let dst = if narrow {
        Array::empty_with(src.device(), Layout::dense_like(out.layout()), DType::Int64)?
    } else {
        out.view(out.layout().clone(), elem)?
    };
    // Another view of the output's memory is read in full first; the same view scans in
    // place (every element is read by the thread that writes it, before it writes it).
    let src = if src.shares_buffer(&dst) && src.layout() != dst.layout() {
        astype(&src, elem)?
    } else {
        src
    };
    run(&src, &dst, axis, op, nan, acc)?;
    if narrow {
        cast_into(&dst, &out)?;
    }
    Ok(())
}

fn one_d(l: &Layout) -> Layout {
    Layout {
        shape: vec![1],
        strides: vec![1],
        offset: l.offset,
    }
}

/// The line geometry of a scan along `axis`: lines over the other axes (walked in the
/// input's memory order) and the element steps along the line.
fn lines_of(src: &Array, dst: &Array, axis: usize) -> Result<(Strided<2>, [i64; 2])> {
    let other: Vec<usize> = (0..src.ndim()).filter(|&k| k != axis).collect();
    let shape: Vec<usize> = other.iter().map(|&k| src.shape()[k]).collect();
    let s_in: Vec<isize> = other.iter().map(|&k| src.layout().strides[k]).collect();
    let s_out: Vec<isize> = other.iter().map(|&k| dst.layout().strides[k]).collect();
    let lines = elementwise_args(&shape, [&s_in, &s_out])?;
    let step = [
        src.layout().strides[axis] as i64,
        dst.layout().strides[axis] as i64,
    ];
    Ok((lines, step))
}

/// Launches the passes of one scan: `src` and `dst` have the kernel's element dtype and
/// the same shape; `acc` is the accumulator dtype of the partial totals.
fn run(src: &Array, dst: &Array, axis: usize, op: ScanOp, nan: bool, acc: DType) -> Result<()> {
    let device = src.device();
    let n = src.shape()[axis] as u64;
    let (lines, step) = lines_of(src, dst, axis)?;
    if lines.len.checked_mul(n) != Some(src.size() as u64) {
        return Err(Error::Value(
            "scan: line geometry does not cover the array".into(),
        ));
    }
    let inner = if lines.ndim > 0 {
        lines.strides[0][0]
    } else {
        0
    };
    let items = items_per_thread(src.dtype().itemsize()) as u64;
    let sms = device.props.multi_processor_count.max(1) as u64;
    let p = plan(n, lines.len, step[0], inner, items, sms);
    let work = lines
        .len
        .checked_mul(p.parts)
        .ok_or_else(|| Error::Value("scan: too many lines".into()))?;
    let args = ScanArgs {
        lines,
        n,
        step,
        parts: p.parts,
        part_len: p.part_len,
        nan: nan as u32,
        _pad: 0,
    };
    let (scan_part, reduce_part) = if p.cols {
        (Part::Cols, Part::ColsReduce)
    } else {
        (Part::Rows, Part::RowsReduce)
    };
    let kernel = |part| {
        kernels::scan::kernel(part, op as usize, src.dtype() as usize).ok_or_else(|| {
            Error::Type(format!(
                "no {} scan kernel for {}",
                op.name(),
                src.dtype().name()
            ))
        })
    };
    let (grid, shared) = if p.cols {
        (elementwise_grid(device, work), 0)
    } else {
        let cap = sms * (THREADS_PER_SM / p.block as u64).min(BLOCKS_PER_SM) * 8;
        (work.min(cap).min(i32::MAX as u64) as u32, ROWS_SHARED_BYTES)
    };
    let (x, y) = (src.data_ptr(), dst.data_ptr());
    let partials = if p.parts > 1 {
        // Totals laid out so that the scan over them is along contiguous memory for rows
        // (line-major) and across lines for cols (part-major), as the kernels index them.
        let (shape, taxis) = if p.cols {
            ([p.parts as usize, lines.len as usize], 0)
        } else {
            ([lines.len as usize, p.parts as usize], 1)
        };
        let partials = Array::empty(device, &shape, acc)?;
        if partials.size() as u64 != work {
            return Err(Error::Value("scan: partials size".into()));
        }
        // (ScanArgs, x, partials): every line offset and step stays inside src's
        // layout (checked to cover exactly its elements), partials holds lines * parts
        // accumulators; the block size is a multiple of 32 and rows get
        // ROWS_SHARED_BYTES.
        Launch::new(device, kernel(reduce_part)?)?
            .grid(grid)
            .block(p.block)
            .shared(shared)
            .arg(args)
            .arg(x)
            .arg(partials.data_ptr())
            .run()?;
        // Inclusive scan of the totals, in place, without NaN replacement (a NaN total
        // came from infinities and must stay).
        scan_into(&partials, taxis, op, false, &partials)?;
        Some(partials)
    } else {
        None
    };
    let carry = partials.as_ref().map_or(0, |p| p.data_ptr());
    // (ScanArgs, x, y, carry): offsets stay inside src's and dst's layouts (dst overlaps
    // src only as the same view), carry holds the scanned totals of every (line, part)
    // when parts > 1 and is unused otherwise.
    Launch::new(device, kernel(scan_part)?)?
        .grid(grid)
        .block(p.block)
        .shared(shared)
        .arg(args)
        .arg(x)
        .arg(y)
        .arg(carry)
        .run()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMS: u64 = 132;

    #[test]
    fn long_contiguous_line_splits_into_parts_of_whole_tiles() {
        let n = 64 << 20;
        let p = plan(n, 1, 1, 0, 8, SMS);
        assert!(!p.cols);
        assert_eq!(p.block, 256);
        assert!(p.parts > 1 && p.parts <= SMS * 8);
        assert_eq!(p.part_len % (256 * 8), 0);
        assert!(p.parts * p.part_len >= n && (p.parts - 1) * p.part_len < n);
    }

    #[test]
    fn many_rows_scan_one_block_each() {
        let p = plan(1000, 100_000, 1, 1000, 8, SMS);
        assert_eq!((p.cols, p.parts, p.part_len), (false, 1, 1000));
        assert_eq!(p.block, 128); // 1000 / 8 items rounds up to 128 threads
        let p = plan(100, 100_000, 1, 100, 4, SMS);
        assert_eq!(p.block, 32);
    }

    #[test]
    fn non_last_axis_scans_across_lines() {
        // cumsum(axis=0) of a C-contiguous 8192 x 8192: lines are columns, adjacent.
        let p = plan(8192, 8192, 8192, 1, 8, SMS);
        assert!(p.cols);
        // Few columns: parts along the column keep the GPU busy.
        let p = plan(1 << 20, 32, 32, 1, 8, SMS);
        assert!(p.cols && p.parts > 1 && p.part_len >= COLS_MIN_PART);
        assert!(p.parts * p.part_len >= 1 << 20);
    }

    #[test]
    fn short_lines_use_a_thread_each() {
        let p = plan(5, 1 << 20, 1, 5, 8, SMS);
        assert_eq!((p.cols, p.parts, p.part_len), (true, 1, 5));
    }

    #[test]
    fn strided_single_line_stays_cooperative() {
        // a[::2] of a 1-D array: one line, step 2, no neighbouring line.
        let p = plan(1 << 20, 1, 2, 0, 8, SMS);
        assert!(!p.cols);
    }

    #[test]
    fn parts_cover_the_line_exactly_once() {
        for &(n, lines, step, inner) in &[
            (9u64, 1u64, 1i64, 0i64),
            ((1 << 20) + 3, 1, 1, 0),
            ((1 << 20) + 3, 3, 1, (1 << 20) + 3),
            (4097, 7, 7, 1),
            (1 << 16, 33, 33, 1),
        ] {
            for items in [2u64, 4, 8] {
                let p = plan(n, lines, step, inner, items, SMS);
                assert!(p.parts >= 1 && p.part_len >= 1);
                assert!(p.parts * p.part_len >= n, "{n} {lines} {p:?}");
                assert!((p.parts - 1) * p.part_len < n, "{n} {lines} {p:?}");
                if !p.cols && p.parts > 1 {
                    assert_eq!(p.part_len % (p.block as u64 * items), 0);
                }
                assert!(p.block.is_multiple_of(32) && p.block <= 1024);
            }
        }
    }

    #[test]
    fn kinds_scan_wide() {
        assert_eq!(
            kernel_kind(DType::Bool),
            ("i64", DType::Int64, DType::Int64)
        );
        assert_eq!(kernel_kind(DType::UInt64).1, DType::Int64);
        assert_eq!(kernel_kind(DType::Float16).2, DType::Float32);
        assert_eq!(kernel_kind(DType::Float32).2, DType::Float64);
        assert_eq!(kernel_kind(DType::Complex64).2, DType::Complex128);
    }
}
