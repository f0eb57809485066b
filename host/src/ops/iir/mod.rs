//! Recursive filters (`kernels/src/iir/`): SciPy's `signal.lfilter` and
//! `signal.sosfilt` along one axis.
//!
//! The Python layer resolves SciPy's rules (the result dtype, the normalization by
//! `a[0]`, the checks and messages, `zi`'s broadcasting); these functions take the input
//! in any dtype and layout, convert it to the compute type (float32, float64, complex64
//! or complex128) as a C-contiguous (outer, len, inner) array, choose an engine and
//! launch. Results are new C-contiguous arrays of the compute type: `y` of the input's
//! shape and, when initial states were given, the final states `zf` of `zi`'s shape
//! (the input's with the filtered axis replaced by the state count).
//!
//! Engines (`engines.rs`): SciPy's convolution path (`a = [1]`) runs as a direct sum per
//! output; an order above `MAX_STATES` as a thread per line with its states in global
//! memory; every other filter in registers, a thread per line, or, for a few long lines,
//! as the chunk scan of `kernels/src/iir/chunks.rs` ([`chunked`] decides).

/// The coefficients' type: NumPy's complex128 (real filters leave `im` zero).
pub use gpupy_kernels::dtype::c128;
use gpupy_kernels::iir::{Shape, cascade, chunks};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::elementwise::copy::{astype, contiguous, copy_into, same_device};

mod engines;
mod geometry;

use geometry::{Chunked, Geometry, Group};

const ONE: c128 = c128::new(1.0, 0.0);

/// `x` as a C-contiguous array of `dtype` (itself when it already is one).
fn as_contiguous(x: &Array, dtype: DType) -> Result<Array> {
    if x.dtype() == dtype {
        contiguous(x)
    } else {
        astype(x, dtype)
    }
}

fn check_compute(compute: DType) -> Result<()> {
    if matches!(
        compute,
        DType::Float32 | DType::Float64 | DType::Complex64 | DType::Complex128
    ) {
        Ok(())
    } else {
        Err(Error::Type(format!(
            "recursive filters compute in float32, float64, complex64 or complex128, not {}",
            compute.name()
        )))
    }
}

/// The input's shape with `axis` replaced by `states`: the shape of `zi` and `zf`.
fn state_shape(shape: &[usize], axis: usize, states: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    s[axis] = states;
    s
}

/// Checks the common arguments; returns the input and the initial states as
/// C-contiguous arrays of the compute type.
fn prepare(
    x: &Array,
    axis: usize,
    zi: Option<&Array>,
    states: usize,
    compute: DType,
) -> Result<(Array, Option<Array>)> {
    check_compute(compute)?;
    if axis >= x.ndim() {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for an array of dimension {}",
            x.ndim()
        )));
    }
    let zi = match zi {
        None => None,
        Some(z) => {
            same_device(x, z)?;
            let want = state_shape(x.shape(), axis, states);
            if z.shape() != want.as_slice() {
                return Err(Error::Value(format!(
                    "initial states of shape {:?}, expected {:?}",
                    z.shape(),
                    want
                )));
            }
            Some(as_contiguous(z, compute)?)
        }
    };
    Ok((as_contiguous(x, compute)?, zi))
}

/// SciPy's `lfilter` of `x` along `axis` with `b` and `a` (normalized: `a[0] = 1`), from
/// the initial states `zi` (the input's shape with `axis` replaced by `order`) or from
/// rest, in `compute`. Returns `y` and, when `zi` was given, `zf`.
///
/// `a = [1]` is SciPy's convolution path (`order = len(b) - 1`): a sum of taps per
/// output, which keeps a NaN or infinity of the input local. Otherwise `b` and `a` have
/// one length, `order + 1` (the shorter padded with zeros), and the recursion runs even
/// where `a[1:]` is all zero, as in SciPy, whose `0 * NaN` carries a NaN to every later
/// sample.
pub fn lfilter(
    x: &Array,
    axis: usize,
    b: &[c128],
    a: &[c128],
    zi: Option<&Array>,
    compute: DType,
) -> Result<(Array, Option<Array>)> {
    let convolution = a.len() == 1;
    if b.is_empty() || !(convolution || b.len() == a.len()) {
        return Err(Error::Value(format!(
            "lfilter needs a = [1] or coefficient vectors of one nonzero length, got {} and {}",
            b.len(),
            a.len()
        )));
    }
    if a[0] != ONE {
        return Err(Error::Value(
            "lfilter needs a[0] == 1 (normalize first)".into(),
        ));
    }
    let order = b.len() - 1;
    let (src, zi) = prepare(x, axis, zi, order, compute)?;
    let geom = Geometry::of(x.shape(), axis);
    let zf_shape = state_shape(x.shape(), axis, order);
    if let Some(done) = trivial(&src, geom, zi.as_ref(), &zf_shape)? {
        return Ok(done);
    }
    if convolution {
        return engines::fir(&src, geom, b, zi.as_ref(), &zf_shape);
    }
    match Shape::for_order(order) {
        None => engines::scratch(&src, geom, b, a, zi.as_ref(), &zf_shape),
        Some(shape) => {
            let coef = cascade::pack::<c128>(&[(b, a)], shape.dims().0, shape.dims().1)
                .ok_or_else(|| Error::Value("lfilter: coefficients do not fit".into()))?;
            let group = Group {
                shape,
                coef,
                nsec: 1,
                zfirst: 0,
                zcount: order,
            };
            run_groups(&src, geom, &[group], zi.as_ref(), &zf_shape, order)
        }
    }
}

/// SciPy's `sosfilt` of `x` along `axis` through the second-order sections `sos` (rows
/// `b0 b1 b2 a0 a1 a2`, `a0 = 1`), from the initial states `zi` (the input's shape with
/// `axis` replaced by `2 * sections`: section `s`'s two states at `2s`, `2s + 1`) or
/// from rest, in `compute`. Returns `y` and, when `zi` was given, `zf`.
pub fn sosfilt(
    x: &Array,
    axis: usize,
    sos: &[[c128; 6]],
    zi: Option<&Array>,
    compute: DType,
) -> Result<(Array, Option<Array>)> {
    if sos.iter().any(|s| s[3] != ONE) {
        return Err(Error::Value("sos[:, 3] should be all ones".into()));
    }
    let states = 2 * sos.len();
    let zi_arg = zi;
    let (src, zi) = prepare(x, axis, zi, states, compute)?;
    let geom = Geometry::of(x.shape(), axis);
    let zf_shape = state_shape(x.shape(), axis, states);
    if sos.is_empty() {
        // No section: the output is the input, the final states the initial ones (new
        // arrays, never views of the caller's).
        let fresh = |a: Array, of: &Array| {
            if a.shares_buffer(of) {
                astype(&a, compute)
            } else {
                Ok(a)
            }
        };
        let zf = match (zi, zi_arg) {
            (Some(z), Some(of)) => Some(fresh(z, of)?),
            _ => None,
        };
        return Ok((fresh(src, x)?, zf));
    }
    if let Some(done) = trivial(&src, geom, zi.as_ref(), &zf_shape)? {
        return Ok(done);
    }
    // Groups of up to 8 sections, each a launch of the shape that holds it.
    let mut groups = Vec::new();
    for (g, chunk) in sos.chunks(8).enumerate() {
        let shape = Shape::for_sections(chunk.len()).expect("1 to 8 sections");
        let rows: Vec<(&[c128], &[c128])> = chunk.iter().map(|s| (&s[..3], &s[3..])).collect();
        let coef = cascade::pack::<c128>(&rows, shape.dims().0, shape.dims().1)
            .ok_or_else(|| Error::Value("sosfilt: coefficients do not fit".into()))?;
        groups.push(Group {
            shape,
            coef,
            nsec: chunk.len(),
            zfirst: 16 * g,
            zcount: 2 * chunk.len(),
        });
    }
    run_groups(&src, geom, &groups, zi.as_ref(), &zf_shape, states)
}

/// The result of a filter over no samples or no lines: an empty `y` of the input's
/// shape, and `zf = zi` (nothing moved the states).
fn trivial(
    src: &Array,
    geom: Geometry,
    zi: Option<&Array>,
    zf_shape: &[usize],
) -> Result<Option<(Array, Option<Array>)>> {
    if geom.len > 0 && geom.lines() > 0 {
        return Ok(None);
    }
    let y = Array::empty(src.device(), src.shape(), src.dtype())?;
    let zf = match zi {
        Some(z) => {
            let zf = Array::empty(z.device(), zf_shape, z.dtype())?;
            copy_into(z, &zf)?;
            Some(zf)
        }
        None => None,
    };
    Ok(Some((y, zf)))
}

/// Whether the chunk scan should run `lines` lines of `len` samples on `device`.
///
/// A thread per line walks its samples one after the other, so its time grows with
/// `len` whatever the line count, and a GPU with fewer lines than a few blocks per
/// multiprocessor waits on each tile's memory latency (about 50 cycles a sample). The
/// chunk scan spreads every line over the whole GPU at about one and a half times the
/// memory traffic plus three launches (some 15 us). Lines of 2048 samples and more, no
/// more than 32 per multiprocessor (about a quarter block each), are where the scan
/// wins by that model; `benchmarks/bench_iir.py` measures both sides of it, forcing one
/// engine with `GPUPY_IIR_ENGINE=lines` or `=chunks` (the chunk plan's own conditions,
/// `chunks::choose`, still apply).
fn chunked(device: &Device, lines: usize, len: usize) -> bool {
    match std::env::var("GPUPY_IIR_ENGINE").as_deref() {
        Ok("lines") => return false,
        Ok("chunks") => return true,
        _ => {}
    }
    let sms = device.props.multi_processor_count.max(1) as usize;
    lines <= 32 * sms && len >= 2048
}

/// Runs the register engines: each group in turn (the first from `src`, the rest in
/// place on the output), on lines or, when [`chunked`] says so and every group has a
/// chunk plan, as the chunk scan (over a transposed copy when the lines are not
/// contiguous).
fn run_groups(
    src: &Array,
    geom: Geometry,
    groups: &[Group],
    zi: Option<&Array>,
    zf_shape: &[usize],
    zdim: usize,
) -> Result<(Array, Option<Array>)> {
    let device = src.device();
    let want_zf = zi.is_some();
    // Every group's chunk plan, when the scan suits the lines and every group's
    // recursion is well enough conditioned for it (`chunks::choose`).
    let plans: Option<Vec<Chunked>> = if chunked(device, geom.lines(), geom.len) {
        groups
            .iter()
            .map(|g| {
                let one_step = gpupy_kernels::iir::zero_input_matrix(g.shape, &g.coef, g.nsec);
                chunks::choose(&one_step, g.shape.states(), geom.len as u64)
                    .map(|(plan, _)| Chunked { plan, one_step })
            })
            .collect()
    } else {
        None
    };
    let Some(plans) = plans else {
        let y = Array::empty(device, src.shape(), src.dtype())?;
        let zf = if want_zf {
            Some(Array::empty(device, zf_shape, src.dtype())?)
        } else {
            None
        };
        for (i, g) in groups.iter().enumerate() {
            let input = if i == 0 { src } else { &y };
            engines::lines(input, &y, geom, g, zi, zf.as_ref(), zdim)?;
        }
        return Ok((y, zf));
    };
    if geom.inner == 1 {
        return chunks_contiguous(src, geom, groups, &plans, zi, zf_shape, zdim);
    }
    // Lines `inner` apart: filter a copy whose lines are contiguous, (outer, inner, len).
    let lines = Geometry {
        outer: geom.lines(),
        len: geom.len,
        inner: 1,
    };
    let turned = |a: &Array, mid: usize| -> Result<Array> {
        let cube = cube(a, [geom.outer, mid, geom.inner])?;
        contiguous(&cube.transpose(Some(&[0, 2, 1]))?)
    };
    let src_t = turned(src, geom.len)?;
    let zi_t = zi.map(|z| turned(z, zdim)).transpose()?;
    let (y_t, zf_t) = chunks_contiguous(
        &src_t,
        lines,
        groups,
        &plans,
        zi_t.as_ref(),
        &[geom.lines(), zdim],
        zdim,
    )?;
    let back = |a: &Array, mid: usize, shape: &[usize]| -> Result<Array> {
        let out = Array::empty(device, shape, a.dtype())?;
        let turned = cube(a, [geom.outer, geom.inner, mid])?.transpose(Some(&[0, 2, 1]))?;
        copy_into(&turned, &cube(&out, [geom.outer, mid, geom.inner])?)?;
        Ok(out)
    };
    let y = back(&y_t, geom.len, src.shape())?;
    let zf = zf_t.map(|z| back(&z, zdim, zf_shape)).transpose()?;
    Ok((y, zf))
}

/// The C-contiguous array `a` seen as a 3-d array of `shape` (the same elements).
fn cube(a: &Array, shape: [usize; 3]) -> Result<Array> {
    let layout = Layout {
        offset: a.layout().offset,
        ..Layout::contiguous(&shape)
    };
    a.view(layout, a.dtype())
}

/// The chunk scan of every group over contiguous lines.
fn chunks_contiguous(
    src: &Array,
    geom: Geometry,
    groups: &[Group],
    plans: &[Chunked],
    zi: Option<&Array>,
    zf_shape: &[usize],
    zdim: usize,
) -> Result<(Array, Option<Array>)> {
    let device = src.device();
    let y = Array::empty(device, src.shape(), src.dtype())?;
    let zf = if zi.is_some() {
        Some(Array::empty(device, zf_shape, src.dtype())?)
    } else {
        None
    };
    for (i, (g, c)) in groups.iter().zip(plans).enumerate() {
        let input = if i == 0 { src } else { &y };
        engines::chunks(input, &y, geom, g, c, zi, zf.as_ref(), zdim)?;
    }
    Ok((y, zf))
}
