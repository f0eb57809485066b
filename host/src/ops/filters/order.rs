//! The order filters: SciPy's `minimum_filter`/`maximum_filter` (any footprint; the
//! Python layer runs separable ones as 1-d passes) and `rank_filter` (with
//! `median_filter` and `percentile_filter`), by the meaning in
//! `kernels/src/filters/select.rs`.
//!
//! They run in an order type (`f32`, `f64`, `i64`, `u64`, named by the caller), into
//! which the input converts exactly; the result is a new array of that type whose
//! elements are input values (or `cval` converted to the type).
//!
//! 2-d windows of at most 49 taps run in tiles that select in registers (`order_tile`).
//! Elsewhere, rank selection of at most 25 taps runs in registers on the interior box;
//! larger windows, and every window near the edges, select in a scratch column per
//! thread: shared memory where a block of at least a warp fits in the module's 48 KiB,
//! else global memory for a bounded grid.

use gpupy_kernels as kernels;
use gpupy_kernels::filters::FILTER_BLOCK;
use gpupy_kernels::filters::stencil::{
    ORDER_TAPS, OrderTile, STENCIL_BLOCK, Stencil2d, TILE_H, TILE_W, Tiles,
};

use gpupy_kernels::filters::Mode;

use super::input::as_contiguous;
use super::window::Window;
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

/// The tiled 2-d engine's launch for `offsets` over an array of `shape`: 2-d arrays
/// and footprints of at most `ORDER_TAPS` taps whose bounding box's tile fits in shared
/// memory; `None` for the rest (the general engine takes them).
fn tile_plan(
    shape: &[usize],
    offsets: &[Vec<i64>],
    order: DType,
    mode: Mode,
    cval: f64,
    select: u32,
) -> Option<OrderTile> {
    let [h, w] = *shape else { return None };
    if offsets.is_empty() || offsets.len() > ORDER_TAPS || offsets.iter().any(|o| o.len() != 2) {
        return None;
    }
    let lo = |d: usize| offsets.iter().map(|o| o[d]).min().unwrap_or(0);
    let hi = |d: usize| offsets.iter().map(|o| o[d]).max().unwrap_or(0);
    let (kh, kw) = (hi(0) - lo(0) + 1, hi(1) - lo(1) + 1);
    // The tiles map coordinates in 32-bit arithmetic (`stencil::Tiles::source`).
    let small = |v: i64| v.abs() < 1 << 29;
    if kh > 256 || kw > 256 || ![h as i64, w as i64, lo(0), lo(1)].into_iter().all(small) {
        return None;
    }
    let t = Tiles::of(kh as u32, kw as u32);
    let bytes = t.order_elements() as usize * order.itemsize() + ORDER_TAPS * 4;
    if bytes > SHARED_LIMIT {
        return None;
    }
    let mut offs = [0u32; ORDER_TAPS];
    for (q, o) in offsets.iter().enumerate() {
        offs[q] = ((o[0] - lo(0)) as u32) * t.cols + (o[1] - lo(1)) as u32;
    }
    let (h, w) = (u32::try_from(h).ok()?, u32::try_from(w).ok()?);
    let geo = Stencil2d {
        batch: 1,
        h,
        w,
        kh: kh as u32,
        kw: kw as u32,
        cy: i32::try_from(-lo(0)).ok()?,
        cx: i32::try_from(-lo(1)).ok()?,
        mode: mode as u32,
        tiles_x: w.div_ceil(TILE_W),
        tiles_y: h.div_ceil(TILE_H),
        ws0: 0,
        ws1: 0,
        cval,
    };
    Some(OrderTile {
        geo,
        ntaps: offsets.len() as u32,
        select,
        offs,
        _pad: 0,
    })
}

/// Runs the tiled order filter `plan` (`tile_plan`) of the C-contiguous `src` into
/// `out`: rank selection (`rank`) or minimum/maximum.
fn order_tile(src: &Array, out: &Array, plan: &OrderTile, rank: bool, order: DType) -> Result<()> {
    let g = plan.geo;
    let blocks = u64::from(g.tiles_x) * u64::from(g.tiles_y) * u64::from(g.batch);
    let blocks = u32::try_from(blocks)
        .ok()
        .filter(|&b| b < i32::MAX as u32)
        .ok_or_else(|| Error::Value("image too large for the tiled filter".into()))?;
    // A median of 25 or 49 taps by forgetful selection (132 and 480 compare-exchanges
    // against the rank networks' 234 and 900).
    let median = rank && matches!((plan.ntaps, plan.select), (25, 12) | (49, 24));
    let f = if median {
        kernels::filters::median_tile(order as usize, plan.ntaps as usize)
    } else {
        kernels::filters::order_tile(order as usize, plan.ntaps as usize, rank)
    };
    let f = f.ok_or_else(|| Error::Type(format!("no tiled order filter for {}", order.name())))?;
    let t = Tiles::of(g.kh, g.kw);
    let shared = t.order_elements() * order.itemsize() as u32 + (ORDER_TAPS * 4) as u32;
    // (plan, x, out): src and out hold h * w elements of the order type; plan's taps
    // (1..=ORDER_TAPS) lie in the kh x kw box (tile_plan); one block per tile with the
    // tile and the offsets in shared memory (at most SHARED_LIMIT bytes).
    Launch::new(src.device(), f)?
        .grid(blocks)
        .block(STENCIL_BLOCK)
        .shared(shared)
        .arg(*plan)
        .arg(src.data_ptr())
        .arg(out.data_ptr())
        .run()
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
    if let Some(plan) = tile_plan(x.shape(), offsets, order, mode, cval, max as u32) {
        return order_tile(&src, &out, &plan, false, order).map(|()| out);
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
    if let Some(plan) = tile_plan(x.shape(), offsets, order, mode, cval, rank as u32) {
        return order_tile(&src, &out, &plan, true, order).map(|()| out);
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
