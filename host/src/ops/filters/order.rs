//! The order filters: SciPy's `minimum_filter`/`maximum_filter` (any footprint; the
//! Python layer runs separable ones as 1-d passes) and `rank_filter` (with
//! `median_filter` and `percentile_filter`), by the meaning in
//! `kernels/src/filters/select.rs`.
//!
//! They run in an order type (`f32`, `f64`, `i64`, `u64`, named by the caller), into
//! which the input converts exactly; the result is a new array of that type whose
//! elements are input values (or `cval` converted to the type).
//!
//! Rank selection of at most 25 taps runs in registers on the interior box; larger
//! windows, and every window near the edges, select in a scratch column per thread:
//! shared memory where a block of at least a warp fits in the module's 48 KiB, else
//! global memory for a bounded grid.

use gpupy_kernels as kernels;
use gpupy_kernels::filters::FILTER_BLOCK;

use super::window::Window;
use super::{Mode, as_contiguous};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise_grid;

/// Shared memory the filters module's launches may ask for.
const SHARED_LIMIT: usize = 48 * 1024;
/// The most global scratch one rank launch takes.
const SCRATCH_LIMIT: usize = 256 << 20;

/// `x` as a C-contiguous array of the order type `order`.
fn order_input(x: &Array, order: DType) -> Result<Array> {
    if !matches!(
        order,
        DType::Float32 | DType::Float64 | DType::Int64 | DType::UInt64
    ) {
        return Err(Error::Type(format!(
            "order filters run in float32, float64, int64 or uint64, not {}",
            order.name()
        )));
    }
    as_contiguous(x, order)
}

/// SciPy's minimum (`max == false`) or maximum filter over the taps `offsets` (one
/// offset per axis, C order, from the output coordinate), extended past the edges by
/// `mode` (`cval` for `Constant`), in the order type `order`.
pub fn extreme(
    x: &Array,
    offsets: &[Vec<i64>],
    max: bool,
    mode: Mode,
    cval: f64,
    order: DType,
) -> Result<Array> {
    let src = order_input(x, order)?;
    let out = Array::empty(x.device(), x.shape(), order)?;
    if x.size() == 0 {
        return Ok(out);
    }
    let device = x.device();
    let win = Window::plan(device, x.shape(), offsets, mode, cval, max as u32)?;
    let (f, f_box) = kernels::filters::extreme(order as usize)
        .ok_or_else(|| Error::Type(format!("no extreme filter for {}", order.name())))?;
    let b = win.interior;
    if b.n > 0 {
        // (b, x, lin, out): the box holds the outputs whose window lies inside the
        // C-contiguous src/out of x's shape; lin holds ntaps >= 1 offsets.
        Launch::new(device, f_box)?
            .grid(elementwise_grid(device, b.n))
            .block(FILTER_BLOCK)
            .arg(b)
            .arg(src.data_ptr())
            .arg(win.lin.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    for args in &win.edges {
        // (args, x, off, out): the region lies inside the arrays of the shape in args;
        // off holds ntaps * FILTER_DIMS offsets.
        Launch::new(device, f)?
            .grid(elementwise_grid(device, args.n))
            .block(FILTER_BLOCK)
            .arg(*args)
            .arg(src.data_ptr())
            .arg(win.off.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    Ok(out)
}

/// Where a scratch kernel's threads keep their columns of `ntaps` values.
struct Scratch {
    threads: u32,
    /// None: shared memory of `shared` bytes per block.
    global: Option<Array>,
    shared: u32,
    /// The grid's limit (global scratch is sized for it).
    max_blocks: u32,
}

impl Scratch {
    fn plan(device: &'static Device, ntaps: usize, order: DType) -> Result<Scratch> {
        let column = ntaps * order.itemsize();
        let fit = (SHARED_LIMIT / column.max(1)) / 32 * 32;
        if fit >= 32 {
            let threads = fit.min(FILTER_BLOCK as usize) as u32;
            return Ok(Scratch {
                threads,
                global: None,
                shared: (threads as usize * column) as u32,
                max_blocks: u32::MAX,
            });
        }
        // Global columns for a grid of at most SCRATCH_LIMIT bytes (at least one block).
        let threads = FILTER_BLOCK;
        let blocks = (SCRATCH_LIMIT / (column * threads as usize)).max(1) as u32;
        let slots = blocks as usize * threads as usize * ntaps;
        let global = Array::empty(device, &[slots], order)?;
        Ok(Scratch {
            threads,
            global: Some(global),
            shared: 0,
            max_blocks: blocks,
        })
    }

    /// Blocks for `work` outputs.
    fn grid(&self, work: u64) -> u32 {
        work.div_ceil(self.threads as u64)
            .clamp(1, self.max_blocks.min(1 << 20) as u64) as u32
    }

    fn ptr(&self) -> u64 {
        self.global.as_ref().map_or(0, |a| a.data_ptr())
    }
}

/// SciPy's rank filter: the rank-`rank` value (0 the smallest) of each output's taps
/// `offsets`, extended past the edges by `mode`, in the order type `order`.
pub fn rank(
    x: &Array,
    offsets: &[Vec<i64>],
    rank: usize,
    mode: Mode,
    cval: f64,
    order: DType,
) -> Result<Array> {
    if rank >= offsets.len() {
        return Err(Error::Value(format!(
            "rank {rank} is not within a footprint of {} taps",
            offsets.len()
        )));
    }
    let src = order_input(x, order)?;
    let out = Array::empty(x.device(), x.shape(), order)?;
    if x.size() == 0 {
        return Ok(out);
    }
    let device = x.device();
    let win = Window::plan(device, x.shape(), offsets, mode, cval, rank as u32)?;
    let ntaps = offsets.len();
    let (f, f_box, box_scratch) = kernels::filters::rank(order as usize, ntaps)
        .ok_or_else(|| Error::Type(format!("no rank filter for {}", order.name())))?;
    let scratch = Scratch::plan(device, ntaps, order)?;
    let b = win.interior;
    if b.n > 0 && !box_scratch {
        // (b, x, lin, out): the box holds the outputs whose window lies inside the
        // arrays; ntaps is within the register kernel's tier (kernels::filters::rank).
        Launch::new(device, f_box)?
            .grid(elementwise_grid(device, b.n))
            .block(FILTER_BLOCK)
            .arg(b)
            .arg(src.data_ptr())
            .arg(win.lin.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    } else if b.n > 0 {
        // (b, x, lin, scratch, out): as above, with each thread's column of ntaps slots
        // in shared memory (null scratch, threads * ntaps slots per block) or in the
        // global scratch sized for this grid and block.
        Launch::new(device, f_box)?
            .grid(scratch.grid(b.n))
            .block(scratch.threads)
            .shared(scratch.shared)
            .arg(b)
            .arg(src.data_ptr())
            .arg(win.lin.data_ptr())
            .arg(scratch.ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    for args in &win.edges {
        // (args, x, off, scratch, out): the region lies inside the arrays of the shape
        // in args; off holds ntaps * FILTER_DIMS offsets; scratch as for the box.
        Launch::new(device, f)?
            .grid(scratch.grid(args.n))
            .block(scratch.threads)
            .shared(scratch.shared)
            .arg(*args)
            .arg(src.data_ptr())
            .arg(win.off.data_ptr())
            .arg(scratch.ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    Ok(out)
}
