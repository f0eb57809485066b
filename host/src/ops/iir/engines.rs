//! The launches of the recursive-filter engines (see `kernels/src/iir/`), each with the
//! checks its kernels rely on: every array is a C-contiguous array of the compute type
//! of the sizes the launch struct says, so every sample and state a kernel reaches lies
//! inside its buffer.

use gpupy_kernels as kernels;
use gpupy_kernels::dtype::{c64, c128};
use gpupy_kernels::iir::sample::Sample;
use gpupy_kernels::iir::{
    BLOCK, ChunkArgs, Coefs, FirArgs, LineArgs, ScratchArgs, carry_shared_bytes, chunks,
    line_shared_bytes,
};

use super::geometry::{Chunked, Geometry, Group};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::fill::full;
use crate::ops::{BLOCK as GRID_BLOCK, elementwise_grid};

/// A compute type: its dtype and its little-endian bytes.
trait Compute: Sample {
    const DTYPE: DType;
    fn put(self, out: &mut Vec<u8>);
}

impl Compute for f32 {
    const DTYPE: DType = DType::Float32;
    fn put(self, out: &mut Vec<u8>) {
        out.extend(self.to_le_bytes());
    }
}
impl Compute for f64 {
    const DTYPE: DType = DType::Float64;
    fn put(self, out: &mut Vec<u8>) {
        out.extend(self.to_le_bytes());
    }
}
impl Compute for c64 {
    const DTYPE: DType = DType::Complex64;
    fn put(self, out: &mut Vec<u8>) {
        out.extend(self.re.to_le_bytes());
        out.extend(self.im.to_le_bytes());
    }
}
impl Compute for c128 {
    const DTYPE: DType = DType::Complex128;
    fn put(self, out: &mut Vec<u8>) {
        out.extend(self.re.to_le_bytes());
        out.extend(self.im.to_le_bytes());
    }
}

/// Calls `$f::<T>(args)` for the compute type `T` of `$dtype`.
macro_rules! by_compute {
    ($dtype:expr, $f:ident($($arg:expr),* $(,)?)) => {
        match $dtype {
            DType::Float32 => $f::<f32>($($arg),*),
            DType::Float64 => $f::<f64>($($arg),*),
            DType::Complex64 => $f::<c64>($($arg),*),
            DType::Complex128 => $f::<c128>($($arg),*),
            d => Err(Error::Type(format!("no recursive filter computes in {}", d.name()))),
        }
    };
}

/// `values` (complex128) rounded to `T`, as a new device array.
fn upload<T: Compute>(device: &'static Device, values: &[T]) -> Result<Array> {
    let mut bytes = Vec::with_capacity(values.len() * T::DTYPE.itemsize());
    for &v in values {
        v.put(&mut bytes);
    }
    Array::from_host(device, &bytes, &[values.len()], T::DTYPE)
}

fn rounded<T: Compute>(values: &[c128]) -> Vec<T> {
    values.iter().map(|&v| T::from_c128(v)).collect()
}

/// A launch-contract violation: a bug in this module, never the user's input.
fn bug(what: &str) -> Error {
    Error::Value(format!("recursive filter: {what} (a gpupy bug)"))
}

/// Checks that `a` is a C-contiguous array of `T` with `n` elements.
fn check_array<T: Compute>(a: &Array, n: usize, what: &str) -> Result<()> {
    if a.dtype() != T::DTYPE || !a.layout().is_c_contiguous() || a.size() != n {
        return Err(bug(&format!(
            "{what} is not a C-contiguous {} array of {n} elements",
            T::DTYPE.name()
        )));
    }
    Ok(())
}

/// The device address of an optional array (null when absent), checked to hold the
/// (outer, zdim, inner) states of `geom`.
fn states_ptr<T: Compute>(z: Option<&Array>, geom: Geometry, zdim: usize) -> Result<u64> {
    match z {
        None => Ok(0),
        Some(z) => {
            check_array::<T>(z, geom.outer * zdim * geom.inner, "a state array")?;
            Ok(z.data_ptr())
        }
    }
}

/// Checks a group's state range and converts its coefficients.
fn group_coefs<T: Compute>(g: &Group, zdim: usize) -> Result<Coefs<T>> {
    if g.zfirst + g.zcount > zdim || g.zcount > g.shape.states() || g.nsec > g.shape.dims().0 {
        return Err(bug("a group's states or sections exceed its shape"));
    }
    Ok(core::array::from_fn(|i| T::from_c128(g.coef[i])))
}

fn to_u32(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::Value(format!("recursive filter: too many {what} ({v})")))
}

/// Engine 1: a thread per line, `input` to `y` (which may be the same array).
pub(super) fn lines(
    input: &Array,
    y: &Array,
    geom: Geometry,
    g: &Group,
    zi: Option<&Array>,
    zf: Option<&Array>,
    zdim: usize,
) -> Result<()> {
    by_compute!(y.dtype(), lines_t(input, y, geom, g, zi, zf, zdim))
}

fn lines_t<T: Compute>(
    input: &Array,
    y: &Array,
    geom: Geometry,
    g: &Group,
    zi: Option<&Array>,
    zf: Option<&Array>,
    zdim: usize,
) -> Result<()> {
    let device = y.device();
    let n = geom.lines() * geom.len;
    check_array::<T>(input, n, "the input")?;
    check_array::<T>(y, n, "the output")?;
    let (zi_ptr, zf_ptr) = (
        states_ptr::<T>(zi, geom, zdim)?,
        states_ptr::<T>(zf, geom, zdim)?,
    );
    let k =
        kernels::iir::shape_kernels(g.shape, T::DTYPE as usize).ok_or_else(|| bug("no kernels"))?;
    let args = LineArgs::<T> {
        lines: geom.lines() as u64,
        len: geom.len as u64,
        inner: geom.inner as u64,
        zdim: zdim as u64,
        zfirst: to_u32(g.zfirst, "states")?,
        zcount: to_u32(g.zcount, "states")?,
        nsec: g.nsec as u32,
        _pad: 0,
        coef: group_coefs::<T>(g, zdim)?,
    };
    let blocks = to_u32(geom.lines().div_ceil(BLOCK), "lines")?;
    // Contiguous lines are staged through the tile; others are read in place.
    let (f, shared) = if geom.inner == 1 {
        (k.lines, line_shared_bytes(size_of::<T>()))
    } else {
        (k.strided, 0)
    };
    // (args, x, y, zi, zf) is the kernel's parameter list: x and y hold the (outer, len,
    // inner) samples, zi and zf are null or hold (outer, zdim, inner) states with the
    // group's range inside zdim (checked above); one thread per line, BLOCK per block.
    Launch::new(device, f)?
        .grid(blocks)
        .block(BLOCK as u32)
        .shared(shared)
        .arg(args)
        .arg(input.data_ptr())
        .arg(y.data_ptr())
        .arg(zi_ptr)
        .arg(zf_ptr)
        .run()
}

/// Engine 2: the chunk scan over contiguous lines (`geom.inner == 1`), `input` to `y`
/// (which may be the same array).
#[allow(clippy::too_many_arguments)]
pub(super) fn chunks(
    input: &Array,
    y: &Array,
    geom: Geometry,
    g: &Group,
    c: &Chunked,
    zi: Option<&Array>,
    zf: Option<&Array>,
    zdim: usize,
) -> Result<()> {
    by_compute!(y.dtype(), chunks_t(input, y, geom, g, c, zi, zf, zdim))
}

#[allow(clippy::too_many_arguments)]
fn chunks_t<T: Compute>(
    input: &Array,
    y: &Array,
    geom: Geometry,
    g: &Group,
    c: &Chunked,
    zi: Option<&Array>,
    zf: Option<&Array>,
    zdim: usize,
) -> Result<()> {
    let device = y.device();
    if geom.inner != 1 {
        return Err(bug("the chunk scan needs contiguous lines"));
    }
    let n = geom.lines() * geom.len;
    check_array::<T>(input, n, "the input")?;
    check_array::<T>(y, n, "the output")?;
    let (zi_ptr, zf_ptr) = (
        states_ptr::<T>(zi, geom, zdim)?,
        states_ptr::<T>(zf, geom, zdim)?,
    );
    let k =
        kernels::iir::shape_kernels(g.shape, T::DTYPE as usize).ok_or_else(|| bug("no kernels"))?;
    let d = g.shape.states();
    let plan = c.plan;
    if plan.len != geom.len as u64 || c.one_step.len() != d * d {
        return Err(bug("a chunk plan for another line or shape"));
    }
    let lines = geom.lines() as u64;
    let table = upload::<T>(device, &chunks::table::<T>(&c.one_step, d, &plan))?;
    let prefix = Array::empty(device, &[(lines * plan.chunks) as usize * d], T::DTYPE)?;
    let agg = Array::empty(
        device,
        &[(lines * (plan.blocks + 1)) as usize * d],
        T::DTYPE,
    )?;
    let args = ChunkArgs::<T> {
        lines,
        len: plan.len,
        chunk: plan.chunk,
        chunks: plan.chunks,
        blocks: plan.blocks,
        per_thread: plan.per_thread,
        zdim: zdim as u64,
        zfirst: to_u32(g.zfirst, "states")?,
        zcount: to_u32(g.zcount, "states")?,
        nsec: g.nsec as u32,
        _pad: 0,
        coef: group_coefs::<T>(g, zdim)?,
    };
    let grid = to_u32((lines * plan.blocks) as usize, "chunk blocks")?;
    let tile = line_shared_bytes(size_of::<T>());
    // (args, x, table, prefix, agg): x holds lines * len samples cut by the plan; table
    // holds TABLE_MATRICES d x d matrices; prefix a state vector per chunk, agg
    // blocks + 1 per line (sized above); a block per (line, chunk block).
    Launch::new(device, k.chunk0)?
        .grid(grid)
        .block(BLOCK as u32)
        .shared(tile)
        .arg(args)
        .arg(input.data_ptr())
        .arg(table.data_ptr())
        .arg(prefix.data_ptr())
        .arg(agg.data_ptr())
        .run()?;
    if plan.blocks > 1 {
        // (args, table, zi, agg): as above, zi null or the (lines, zdim) states; a block
        // per line with a state vector per thread in shared memory.
        Launch::new(device, k.carry)?
            .grid(to_u32(lines as usize, "lines")?)
            .block(BLOCK as u32)
            .shared(carry_shared_bytes(size_of::<T>(), d))
            .arg(args)
            .arg(table.data_ptr())
            .arg(zi_ptr)
            .arg(agg.data_ptr())
            .run()?;
    }
    // (args, x, y, table, prefix, agg, zi, zf): as above; agg is null for lines of one
    // block, whose chunks start from zi.
    let agg_ptr = if plan.blocks > 1 { agg.data_ptr() } else { 0 };
    Launch::new(device, k.chunk1)?
        .grid(grid)
        .block(BLOCK as u32)
        .shared(tile)
        .arg(args)
        .arg(input.data_ptr())
        .arg(y.data_ptr())
        .arg(table.data_ptr())
        .arg(prefix.data_ptr())
        .arg(agg_ptr)
        .arg(zi_ptr)
        .arg(zf_ptr)
        .run()
}

/// SciPy's convolution path (`a = [1]`, `b` of `order + 1` taps): `y`, and `zf` when
/// `zi` is given.
pub(super) fn fir(
    src: &Array,
    geom: Geometry,
    b: &[c128],
    zi: Option<&Array>,
    zf_shape: &[usize],
) -> Result<(Array, Option<Array>)> {
    by_compute!(src.dtype(), fir_t(src, geom, b, zi, zf_shape))
}

fn fir_t<T: Compute>(
    src: &Array,
    geom: Geometry,
    b: &[c128],
    zi: Option<&Array>,
    zf_shape: &[usize],
) -> Result<(Array, Option<Array>)> {
    let device = src.device();
    let order = b.len() - 1;
    let n = geom.lines() * geom.len;
    check_array::<T>(src, n, "the input")?;
    let zi_ptr = states_ptr::<T>(zi, geom, order)?;
    let (f, f_final) = kernels::iir::fir(T::DTYPE as usize).ok_or_else(|| bug("no kernels"))?;
    let taps = upload::<T>(device, &rounded::<T>(b))?;
    let y = Array::empty(device, src.shape(), T::DTYPE)?;
    let mut args = FirArgs {
        n: n as u64,
        len: geom.len as u64,
        inner: geom.inner as u64,
        taps: b.len() as u64,
        zdim: order as u64,
    };
    // (args, x, b, zi, y): x and y hold the n = outer * len * inner samples, b the taps,
    // zi is null or (outer, order, inner); a thread per output, grid-strided.
    Launch::new(device, f)?
        .grid(elementwise_grid(device, n as u64))
        .block(GRID_BLOCK)
        .arg(args)
        .arg(src.data_ptr())
        .arg(taps.data_ptr())
        .arg(zi_ptr)
        .arg(y.data_ptr())
        .run()?;
    let zf = match zi {
        None => None,
        Some(_) => {
            let zf = Array::empty(device, zf_shape, T::DTYPE)?;
            args.n = (geom.lines() * order) as u64;
            if args.n > 0 {
                // (args, x, b, zi, zf): as above, zf holds the n = outer * order * inner
                // final states; taps = order + 1.
                Launch::new(device, f_final)?
                    .grid(elementwise_grid(device, args.n))
                    .block(GRID_BLOCK)
                    .arg(args)
                    .arg(src.data_ptr())
                    .arg(taps.data_ptr())
                    .arg(zi_ptr)
                    .arg(zf.data_ptr())
                    .run()?;
            }
            Some(zf)
        }
    };
    Ok((y, zf))
}

/// A recursion above the register shapes' orders, its states in global memory.
pub(super) fn scratch(
    src: &Array,
    geom: Geometry,
    b: &[c128],
    a: &[c128],
    zi: Option<&Array>,
    zf_shape: &[usize],
) -> Result<(Array, Option<Array>)> {
    by_compute!(src.dtype(), scratch_t(src, geom, b, a, zi, zf_shape))
}

fn scratch_t<T: Compute>(
    src: &Array,
    geom: Geometry,
    b: &[c128],
    a: &[c128],
    zi: Option<&Array>,
    zf_shape: &[usize],
) -> Result<(Array, Option<Array>)> {
    let device = src.device();
    let order = b.len() - 1;
    let n = geom.lines() * geom.len;
    check_array::<T>(src, n, "the input")?;
    let taps = upload::<T>(device, &rounded::<T>(b))?;
    let negated: Vec<c128> = a[1..].iter().map(|v| c128::new(-v.re, -v.im)).collect();
    let feedback = upload::<T>(device, &rounded::<T>(&negated))?;
    // The kernel's states: a copy of zi, or zeros; they become zf.
    let z = match zi {
        Some(zi) => {
            check_array::<T>(zi, geom.lines() * order, "the initial states")?;
            let z = Array::empty(device, zf_shape, T::DTYPE)?;
            crate::ops::elementwise::copy::copy_into(zi, &z)?;
            z
        }
        None => full(device, zf_shape, T::DTYPE, &vec![0u8; T::DTYPE.itemsize()])?,
    };
    let y = Array::empty(device, src.shape(), T::DTYPE)?;
    let args = ScratchArgs {
        lines: geom.lines() as u64,
        len: geom.len as u64,
        inner: geom.inner as u64,
        order: order as u64,
    };
    let blocks = to_u32(geom.lines().div_ceil(BLOCK), "lines")?;
    // (args, x, b, na, y, z): x and y hold the (outer, len, inner) samples, z the
    // (outer, order, inner) states, b order + 1 taps and na order negated feedback
    // coefficients; a thread per line.
    Launch::new(
        device,
        kernels::iir::scratch(T::DTYPE as usize).ok_or_else(|| bug("no kernels"))?,
    )?
    .grid(blocks)
    .block(BLOCK as u32)
    .arg(args)
    .arg(src.data_ptr())
    .arg(taps.data_ptr())
    .arg(feedback.data_ptr())
    .arg(y.data_ptr())
    .arg(z.data_ptr())
    .run()?;
    Ok((y, zi.map(|_| z)))
}
