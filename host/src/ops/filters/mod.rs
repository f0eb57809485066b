//! Correlation filters (`kernels/src/filters/`): SciPy's `ndimage.correlate1d` and
//! `ndimage.correlate`, on which the Python layer builds convolutions and the named
//! filters.
//!
//! The Python layer resolves SciPy's rules (output dtype, origins, the weights' dtype);
//! these functions take the input in any dtype, convert it to the compute type
//! (float32 or float64), check what the kernels rely on and launch. The result is a
//! new C-contiguous array of the compute type and the input's shape. The order filters
//! (`order.rs`: minimum, maximum, rank) do the same in an order type.

use gpupy_kernels as kernels;
use gpupy_kernels::args::fast_divisor;
use gpupy_kernels::filters::stencil::{STENCIL_BLOCK, Stencil2d, TILE_H, TILE_W, Tiles};
use gpupy_kernels::filters::stream::{STREAM_BLOCK, STREAM_SIZES, STREAM_WARPS, Stream2d};
use gpupy_kernels::filters::vstream::{
    VECTOR_BYTES, VSTREAM_BLOCK, VSTREAM_SIZES, VSTREAM_WARPS, VStream2d,
};
use gpupy_kernels::filters::{FILTER_BLOCK, Filter1d};
use gpupy_kernels::registry::Kernel;

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::copy::same_device;
use crate::ops::elementwise_grid;

mod input;
mod order;
mod window;

use input::{as_contiguous, compute_input};
pub use order::{extreme, rank};
use window::Window;

/// The boundary modes (SciPy's, by launch code).
pub use gpupy_kernels::filters::Mode;

/// The weights of an n-d correlation: host values, or a device array (any real dtype,
/// any layout; its elements in C order are the taps' weights), which the filter reads
/// without a transfer.
pub enum Weights<'a> {
    Host(&'a [f64]),
    Device(&'a Array),
}

/// `weights` as a device array of `compute`.
fn upload_weights(x: &Array, weights: &[f64], compute: DType) -> Result<Array> {
    let bytes: Vec<u8> = if compute == DType::Float32 {
        weights
            .iter()
            .flat_map(|&w| (w as f32).to_le_bytes())
            .collect()
    } else {
        weights.iter().flat_map(|&w| w.to_le_bytes()).collect()
    };
    Array::from_host(x.device(), &bytes, &[weights.len()], compute)
}

/// SciPy's `correlate1d`: along `axis`, tap `t` of output coordinate `j` reads input
/// coordinate `j + t - center` (`center = weights.len() / 2 + origin`), extended past
/// the edges by `mode` (`cval` for `Constant`). Every weight counts, zeros too (NaN
/// times 0 is NaN, as in SciPy).
pub fn correlate1d(
    x: &Array,
    weights: &[f64],
    axis: usize,
    center: i64,
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<Array> {
    if axis >= x.ndim() {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for an array of dimension {}",
            x.ndim()
        )));
    }
    if weights.is_empty() || !(0..weights.len() as i64).contains(&center) {
        return Err(Error::Value(format!(
            "a filter of {} weights cannot be centred on weight {center}",
            weights.len()
        )));
    }
    let src = compute_input(x, compute)?;
    let out = Array::empty(x.device(), x.shape(), compute)?;
    if x.size() == 0 {
        return Ok(out);
    }
    let shape = x.shape();
    let (len, inner) = (
        shape[axis] as u64,
        shape[axis + 1..].iter().product::<usize>() as u64,
    );
    let ntaps =
        u32::try_from(weights.len()).map_err(|_| Error::Value("too many filter weights".into()))?;
    let w = upload_weights(x, weights, compute)?;
    let n = x.size() as u64;
    let ((inner_magic, inner_shift), (len_magic, len_shift)) =
        (fast_divisor(inner), fast_divisor(len));
    let args = Filter1d {
        n,
        len,
        inner,
        ntaps,
        center: center as i32,
        mode: mode as u32,
        inner_magic,
        inner_shift,
        len_magic,
        len_shift,
        _pad: 0,
        cval,
    };
    let f = kernels::filters::correlate1d(compute as usize)
        .ok_or_else(|| Error::Type(format!("no 1-d filter for {}", compute.name())))?;
    let device = x.device();
    // (args, x, w, out) is the kernel's parameter list: src and out are C-contiguous
    // arrays of n elements of the compute type, w holds ntaps of them, len * inner
    // divides n (they are the array's extents), center is a tap.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, n))
        .block(FILTER_BLOCK)
        .arg(args)
        .arg(src.data_ptr())
        .arg(w.data_ptr())
        .arg(out.data_ptr())
        .run()?;
    Ok(out)
}

/// Shared memory the tiled 2-d correlation may stage (the module's default limit).
const STENCIL_SHARED: usize = 48 * 1024;

/// The tiled engine's launch for taps that are every element of a rectangle, in C order
/// (a dense 2-d kernel), over a 2-d array whose tile fits in shared memory; `None` for
/// any other filter (the general n-d engine takes those). `tiles_x`/`tiles_y` and
/// `batch` are filled in; `mode` and `cval` by the caller.
fn dense_2d(shape: &[usize], offsets: &[Vec<i64>], compute: DType) -> Option<Stencil2d> {
    let [h, w] = *shape else { return None };
    let (first, last) = (offsets.first()?, offsets.last()?);
    let (kh, kw) = (last[0] - first[0] + 1, last[1] - first[1] + 1);
    if kh < 1 || kw < 1 || (kh * kw) as usize != offsets.len() {
        return None;
    }
    // Every tap where the rectangle's C order puts it.
    let dense = offsets
        .iter()
        .enumerate()
        .all(|(t, o)| o[0] == first[0] + t as i64 / kw && o[1] == first[1] + t as i64 % kw);
    let (kh, kw) = (u32::try_from(kh).ok()?, u32::try_from(kw).ok()?);
    let (cy, cx) = (
        i32::try_from(-first[0]).ok()?,
        i32::try_from(-first[1]).ok()?,
    );
    let (h, w) = (u32::try_from(h).ok()?, u32::try_from(w).ok()?);
    let bytes = Tiles::of(kh.min(1 << 12), kw.min(1 << 12)).elements as usize * compute.itemsize();
    // The tiles map coordinates in 32-bit arithmetic (`stencil::Tiles::source`).
    let small = |v: i64| v.abs() < 1 << 29;
    if !dense
        || kh > 1 << 12
        || kw > 1 << 12
        || bytes > STENCIL_SHARED
        || !small(h as i64)
        || !small(w as i64)
        || !small(cy as i64)
        || !small(cx as i64)
    {
        return None;
    }
    Some(Stencil2d {
        batch: 1,
        h,
        w,
        kh,
        kw,
        cy,
        cx,
        mode: 0,
        tiles_x: w.div_ceil(TILE_W),
        tiles_y: h.div_ceil(TILE_H),
        ws0: kw as i32,
        ws1: 1,
        cval: 0.0,
    })
}

/// The tiled dense 2-d correlation (`kernels/src/filters/stencil.rs`) of the
/// C-contiguous `src` into `out` (both of `plan`'s image shape and `compute`), with the
/// `kh x kw` weights of `compute` at `w`'s element (0, 0) and `plan`'s strides.
fn stencil2d(
    src: &Array,
    w: &Array,
    out: &Array,
    plan: Stencil2d,
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<()> {
    let device = src.device();
    let plan = Stencil2d {
        mode: mode as u32,
        cval,
        ..plan
    };
    let blocks = u64::from(plan.tiles_x) * u64::from(plan.tiles_y) * u64::from(plan.batch);
    let blocks = u32::try_from(blocks)
        .ok()
        .filter(|&b| b < i32::MAX as u32)
        .ok_or_else(|| Error::Value("image too large for the tiled filter".into()))?;
    let f = kernels::filters::stencil2d(compute as usize)
        .ok_or_else(|| Error::Type(format!("no 2-d filter for {}", compute.name())))?;
    let shared = Tiles::of(plan.kh, plan.kw).elements * compute.itemsize() as u32;
    // (plan, x, w, out) is the kernel's parameter list: src and out hold batch * h * w
    // elements of the compute type, w's view holds kh x kw of them at the strides in
    // plan (the caller's: w's own strides, or a C-contiguous copy's), the grid has one
    // block per tile and the shared memory the tile's elements (at most
    // STENCIL_SHARED bytes).
    Launch::new(device, f)?
        .grid(blocks)
        .block(STENCIL_BLOCK)
        .shared(shared)
        .arg(plan)
        .arg(src.data_ptr())
        .arg(w.data_ptr())
        .arg(out.data_ptr())
        .run()
}

/// The streaming dense 2-d correlation (`kernels/src/filters/stream.rs`) of a square
/// kernel of `STREAM_SIZES`: as [`stencil2d`], a warp per strip of 32 columns and run
/// of rows instead of a block per tile.
fn stream2d(
    src: &Array,
    w: &Array,
    out: &Array,
    plan: Stencil2d,
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<()> {
    let device = src.device();
    let sms = device.props.multi_processor_count.max(1) as u32;
    let stream = Stream2d::plan(plan.batch, plan.h, plan.w, sms)
        .ok_or_else(|| Error::Value("image too large for the streaming filter".into()))?;
    let stream = Stream2d {
        cy: plan.cy,
        cx: plan.cx,
        mode: mode as u32,
        ws0: plan.ws0,
        ws1: plan.ws1,
        cval,
        ..stream
    };
    let f = kernels::filters::stream2d(compute as usize, plan.kh)
        .ok_or_else(|| Error::Type(format!("no 2-d filter for {}", compute.name())))?;
    let blocks = u32::try_from(stream.tasks().div_ceil(u64::from(STREAM_WARPS)))
        .map_err(|_| Error::Value("image too large for the streaming filter".into()))?;
    // (plan, x, w, out): src and out hold batch * h * w elements of the compute type, w's
    // view holds kh x kw of them at the plan's strides; a warp per task (Stream2d::plan
    // keeps the blocks below 2^31).
    Launch::new(device, f)?
        .grid(blocks)
        .block(STREAM_BLOCK)
        .arg(stream)
        .arg(src.data_ptr())
        .arg(w.data_ptr())
        .arg(out.data_ptr())
        .run()
}

/// The vector-streaming launch of `plan` (`kernels/src/filters/vstream.rs`) and its
/// kernel, where its kernels take it: a square kernel of `VSTREAM_SIZES` centred along
/// the rows, a width that is a multiple of the lane's vector, 16-byte aligned input and
/// output.
fn vstream_plan(
    src: &Array,
    out: &Array,
    plan: &Stencil2d,
    (mode, cval): (Mode, f64),
    compute: DType,
) -> Result<Option<(VStream2d, Kernel)>> {
    let k = plan.kh;
    let v = VECTOR_BYTES / compute.itemsize() as u32;
    let aligned = |a: &Array| a.data_ptr().is_multiple_of(u64::from(VECTOR_BYTES));
    if plan.kw != k || !VSTREAM_SIZES.contains(&k) || plan.cx != (k / 2) as i32 {
        return Ok(None);
    }
    if !aligned(src) || !aligned(out) {
        return Ok(None);
    }
    let Some(f) = kernels::filters::vstream2d(compute as usize, k) else {
        return Ok(None);
    };
    // The plan's run length depends on how many of the kernel's warps fit at once.
    let blocks = Launch::new(src.device(), f)?.resident_blocks(VSTREAM_BLOCK, 0)?;
    let resident = blocks * u64::from(VSTREAM_WARPS);
    let Some(p) = VStream2d::plan(plan.batch, plan.h, plan.w, k, v, resident) else {
        return Ok(None);
    };
    let p = VStream2d {
        cy: plan.cy,
        mode: mode as u32,
        ws0: plan.ws0,
        ws1: plan.ws1,
        cval,
        ..p
    };
    Ok(Some((p, f)))
}

/// The vector-streaming dense 2-d correlation of `plan` by its kernel `f`
/// (`vstream_plan`).
fn vstream2d(src: &Array, w: &Array, out: &Array, (plan, f): (VStream2d, Kernel)) -> Result<()> {
    let blocks = u32::try_from(plan.tasks().div_ceil(u64::from(VSTREAM_WARPS)))
        .map_err(|_| Error::Value("image too large for the streaming filter".into()))?;
    // (plan, x, w, out): src and out hold batch * h * w elements of the compute type and
    // are 16-byte aligned, w a multiple of the vector (vstream_plan); w's view holds
    // k x k weights at the plan's strides; a warp per task (VStream2d::plan keeps the
    // blocks below 2^31).
    Launch::new(src.device(), f)?
        .grid(blocks)
        .block(VSTREAM_BLOCK)
        .arg(plan)
        .arg(src.data_ptr())
        .arg(w.data_ptr())
        .arg(out.data_ptr())
        .run()
}

/// A dense 2-d correlation: every element of the 2-d `weights` (a device array, any
/// view) is a tap, weight `(a, b)` of output `(i, j)` reading input
/// `(i + a - cy, j + b - cx)` of the 2-d `x`, extended past the edges by `mode`
/// (`signal.convolve2d`/`correlate2d`'s direct sums).
pub fn correlate_dense2d(
    x: &Array,
    weights: &Array,
    (cy, cx): (i64, i64),
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<Array> {
    let [kh, kw] = *weights.shape() else {
        return Err(Error::Value(
            "a dense 2-d correlation takes 2-d weights".into(),
        ));
    };
    if x.ndim() != 2 {
        return Err(Error::Value(
            "a dense 2-d correlation takes a 2-d input".into(),
        ));
    }
    let offsets: Vec<Vec<i64>> = (0..kh as i64)
        .flat_map(|a| (0..kw as i64).map(move |b| vec![a - cy, b - cx]))
        .collect();
    correlate(x, Weights::Device(weights), &offsets, mode, cval, compute)
}

/// SciPy's `correlate` with its footprint already taken: tap `t` has weight
/// `weights[t]` and reads input coordinate `c + offsets[t]` of output coordinate `c`
/// (one offset per axis, C order), extended past the edges by `mode`.
pub fn correlate(
    x: &Array,
    weights: Weights<'_>,
    offsets: &[Vec<i64>],
    mode: Mode,
    cval: f64,
    compute: DType,
) -> Result<Array> {
    let count = match weights {
        Weights::Host(w) => w.len(),
        Weights::Device(w) => w.size(),
    };
    if offsets.len() != count {
        return Err(Error::Value(format!(
            "{count} filter weights need as many offsets"
        )));
    }
    let src = compute_input(x, compute)?;
    let out = Array::empty(x.device(), x.shape(), compute)?;
    if x.size() == 0 {
        return Ok(out);
    }
    if count == 0 {
        // No tap: every output is an empty sum.
        crate::ops::elementwise::fill::fill(&out, &vec![0u8; compute.itemsize()])?;
        return Ok(out);
    }
    if let Weights::Device(w) = weights {
        same_device(x, w)?;
    }
    let device = x.device();
    if let Some(plan) = dense_2d(x.shape(), offsets, compute) {
        // A 2-d device view of the compute type is read in place through its strides
        // (a reversed kernel too); anything else becomes a C-contiguous copy.
        let (w, (ws0, ws1)) = match weights {
            Weights::Device(w)
                if w.dtype() == compute && w.shape() == [plan.kh as usize, plan.kw as usize] =>
            {
                let s = &w.layout().strides;
                let (s0, s1) = (i32::try_from(s[0]), i32::try_from(s[1]));
                match (s0, s1) {
                    (Ok(s0), Ok(s1)) => (w.clone(), (s0, s1)),
                    _ => (as_contiguous(w, compute)?, (plan.kw as i32, 1)),
                }
            }
            Weights::Device(w) => (as_contiguous(w, compute)?, (plan.kw as i32, 1)),
            Weights::Host(w) => (upload_weights(x, w, compute)?, (plan.kw as i32, 1)),
        };
        let plan = Stencil2d { ws0, ws1, ..plan };
        // Three engines, measured on an H200. The vector-streaming warps wherever their
        // kernels apply (a centred square kernel up to 7x7, widths a multiple of the
        // 16-byte vector): over 4096^2 they ran 3x3 at 81-83% of the copy bandwidth
        // (float32, float64; the tiles 34% and 54%), 5x5 at 72-73% (24%, 34%), 7x7 at
        // 51-52% (in 30-43% of the tiles' time); over 1024^2 (3x3) as fast as the
        // column-per-lane warps. Those take the other 3x3 cases where the tiles would
        // leave the GPU short of blocks (a 1024^2 image: 512 tiles; there they took 1.83-1.99x CuPy's
        // time against 1.64-1.80x tiled). The tiles take the rest.
        if let Some(pf) = vstream_plan(&src, &out, &plan, (mode, cval), compute)? {
            return vstream2d(&src, &w, &out, pf).map(|()| out);
        }
        let sms = device.props.multi_processor_count.max(1) as u64;
        let tiles = u64::from(plan.tiles_x) * u64::from(plan.tiles_y) * u64::from(plan.batch);
        if plan.kh == plan.kw && STREAM_SIZES.contains(&plan.kh) && tiles < 4 * sms {
            return stream2d(&src, &w, &out, plan, mode, cval, compute).map(|()| out);
        }
        return stencil2d(&src, &w, &out, plan, mode, cval, compute).map(|()| out);
    }
    let w = match weights {
        Weights::Host(w) => upload_weights(x, w, compute)?,
        Weights::Device(w) => as_contiguous(w, compute)?,
    };
    let win = Window::plan(device, x.shape(), offsets, mode, cval, 0)?;
    let (f, f_box) = kernels::filters::correlate(compute as usize)
        .ok_or_else(|| Error::Type(format!("no n-d filter for {}", compute.name())))?;
    let b = win.interior;
    if b.n > 0 {
        // (b, x, w, lin, out) is the box kernel's parameter list: the box holds the
        // outputs whose window lies inside the C-contiguous arrays src/out of x's shape
        // (Window::plan), w and lin hold ntaps entries.
        Launch::new(device, f_box)?
            .grid(elementwise_grid(device, b.n))
            .block(FILTER_BLOCK)
            .arg(b)
            .arg(src.data_ptr())
            .arg(w.data_ptr())
            .arg(win.lin.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    for args in &win.edges {
        // (args, x, w, off, out) is the kernel's parameter list: src and out are
        // C-contiguous arrays of the shape in args (nd <= FILTER_DIMS, extents >= 1, as
        // the array is not empty), the region lies inside it, w holds ntaps weights and
        // off ntaps * FILTER_DIMS offsets.
        Launch::new(device, f)?
            .grid(elementwise_grid(device, args.n))
            .block(FILTER_BLOCK)
            .arg(*args)
            .arg(src.data_ptr())
            .arg(w.data_ptr())
            .arg(win.off.data_ptr())
            .arg(out.data_ptr())
            .run()?;
    }
    Ok(out)
}
