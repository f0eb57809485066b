//! Fast Fourier transforms along one axis: complex-to-complex, real-to-complex and
//! complex-to-real, each into a fresh C-contiguous array. NumPy's and SciPy's argument
//! rules (lengths, padding, norms, several axes) live in Python (`gpupy/fft/`); these
//! take an array, an axis and a scale.
//!
//! A length whose prime factors are all at most 13 runs the Stockham schedule of
//! `kernels::fft::plan` (one launch up to 8192 complex64 or 4096 complex128 points,
//! else two or three passes); any other length goes through Bluestein (`bluestein`).
//! Real transforms of even length `n` compute a complex transform of `n / 2` points
//! over the real data seen as complex (even samples real, odd imaginary) and twist its
//! result; odd lengths go through a full complex transform.

mod bluestein;
mod run;
pub mod tables;

use gpupy_kernels::fft::plan::{Geometry, smooth};
use gpupy_kernels::fft::{Part, Twist};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{Index, coalesce};
use crate::ops::elementwise::copy::{astype, contiguous};
use run::{Job, complex, strided, twist};

/// The batch geometry of a transform along `axis` of `shape`, reading with `src` and
/// writing with `dst` strides (elements): the other axes merged to at most two where
/// both operands allow; `None` when more remain.
fn geometry(shape: &[usize], axis: usize, src: &[isize], dst: &[isize]) -> Option<Geometry> {
    let others = |v: &[isize]| -> Vec<isize> {
        v.iter()
            .enumerate()
            .filter(|&(i, _)| i != axis)
            .map(|(_, &s)| s)
            .collect()
    };
    let dims: Vec<usize> = shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != axis)
        .map(|(_, &n)| n)
        .collect();
    let (s_in, s_out) = (others(src), others(dst));
    let (dims, [bs, bd]) = coalesce(&dims, [&s_in, &s_out]);
    let (e_in, e_out) = (src[axis] as i64, dst[axis] as i64);
    let (b1, b0, s, d) = match dims.len() {
        0 => (1, 1, [0, 0], [0, 0]),
        1 => (1, dims[0], [0, bs[0] as i64], [0, bd[0] as i64]),
        2 => (
            dims[0],
            dims[1],
            [bs[0] as i64, bs[1] as i64],
            [bd[0] as i64, bd[1] as i64],
        ),
        _ => return None,
    };
    Some(Geometry {
        batch1: b1 as u64,
        batch0: b0 as u64,
        src: [s[0], s[1], e_in],
        dst: [d[0], d[1], e_out],
    })
}

fn check_axis(a: &Array, axis: usize) -> Result<u64> {
    if axis >= a.ndim() {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for an array of dimension {}",
            a.ndim()
        )));
    }
    Ok(a.shape()[axis] as u64)
}

/// `a` itself when its elements are aligned for the kernels' vector accesses, else a
/// contiguous copy (a view made by reinterpreting bytes may not be).
fn aligned(a: &Array) -> Result<Array> {
    let size = a.dtype().itemsize() as u64;
    if a.data_ptr().is_multiple_of(size.min(16)) {
        Ok(a.clone())
    } else {
        contiguous(a)
    }
}

/// The geometry of `a` along `axis` into `out`, making `a` contiguous first when its
/// batch axes do not merge to two.
fn plan_io(a: &Array, axis: usize, out: &Array) -> Result<(Array, Geometry)> {
    let a = aligned(a)?;
    if let Some(g) = geometry(a.shape(), axis, &a.layout().strides, &out.layout().strides) {
        return Ok((a, g));
    }
    let a = contiguous(&a)?;
    let g = geometry(a.shape(), axis, &a.layout().strides, &out.layout().strides)
        .expect("C-contiguous operands merge to two batch axes");
    Ok((a, g))
}

/// The complex transform of `a` (complex64/complex128) along `axis`, unnormalized
/// (`exp(-2 pi i jk/n)`, or `+` with `inverse`), times `scale`.
pub fn c2c(a: &Array, axis: usize, inverse: bool, scale: f64) -> Result<Array> {
    let n = check_axis(a, axis)?;
    let double = match a.dtype() {
        DType::Complex64 => false,
        DType::Complex128 => true,
        d => {
            return Err(Error::Type(format!(
                "c2c takes complex64 or complex128, not {}",
                d.name()
            )));
        }
    };
    let out = Array::empty(a.device(), a.shape(), a.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let (a, geo) = plan_io(a, axis, &out)?;
    let job = Job {
        device: a.device(),
        double,
        n,
        geo: &geo,
        src: a.data_ptr(),
        dst: out.data_ptr(),
        conj: inverse,
        scale,
    };
    if smooth(n) {
        run::transform(job, None)?;
    } else {
        bluestein::transform_any(job)?;
    }
    Ok(out)
}

fn real_precision(a: &Array) -> Result<bool> {
    match a.dtype() {
        DType::Float32 => Ok(false),
        DType::Float64 => Ok(true),
        d => Err(Error::Type(format!(
            "r2c takes float32 or float64, not {}",
            d.name()
        ))),
    }
}

/// `a` with `axis` moved last, C-contiguous.
fn axis_last(a: &Array, axis: usize) -> Result<Array> {
    let moved = a.view(a.layout().moveaxis(&[axis as isize], &[-1])?, a.dtype())?;
    contiguous(&moved)
}

/// Slices `[..., :len, ...]` of `a` along `axis`, copied to a fresh C-contiguous array.
fn take_prefix(a: &Array, axis: usize, len: usize) -> Result<Array> {
    let idx: Vec<Index> = (0..a.ndim())
        .map(|i| {
            let stop = (i == axis).then_some(len as isize);
            Index::Slice {
                start: None,
                stop,
                step: None,
            }
        })
        .collect();
    contiguous(&a.index(&idx)?)
}

/// The first `n/2 + 1` outputs of the forward transform of the real `a` along `axis`,
/// times `scale` (complex64 for float32, complex128 for float64).
pub fn r2c(a: &Array, axis: usize, scale: f64) -> Result<Array> {
    let n = check_axis(a, axis)?;
    let double = real_precision(a)?;
    let half = (n / 2 + 1) as usize;
    let mut shape = a.shape().to_vec();
    shape[axis] = half;
    if a.size() == 0 {
        return Array::empty(a.device(), &shape, complex(double));
    }
    if n % 2 == 1 {
        let full = c2c(&astype(a, complex(double))?, axis, false, scale)?;
        return take_prefix(&full, axis, half);
    }
    let device = a.device();
    let out = Array::empty(device, &shape, complex(double))?;
    // The real samples as complex pairs (NumPy's `view(complex)`): the axis last and
    // contiguous, so each pair is one aligned complex element; else a copy makes it so.
    let last = a.ndim() - 1;
    let size = a.dtype().itemsize();
    let as_pairs = |a: &Array| -> Option<Array> {
        let l = a.layout().view_itemsize(size, 2 * size).ok()?;
        let p = a.view(l, complex(double)).ok()?;
        p.data_ptr().is_multiple_of(2 * size as u64).then_some(p)
    };
    let pairs = match (axis == last).then(|| as_pairs(a)).flatten() {
        Some(p) => p,
        None => {
            let moved = axis_last(a, axis)?;
            match as_pairs(&moved) {
                Some(p) => p,
                // `contiguous` keeps a C-contiguous array whose size-1 axes have strides
                // that are not a whole number of pairs (rfft of shape (2, 1) along axis 0),
                // which cannot be viewed as pairs; a fresh copy has whole-pair strides.
                None => as_pairs(&astype(&moved, moved.dtype())?)
                    .ok_or_else(|| Error::Value("internal: r2c pairs".into()))?,
            }
        }
    };
    // z = the complex transform of the pairs, [batch, m]; then the twist into `out`.
    let z = c2c(&pairs, last, false, 1.0)?;
    let z_last = if axis == last {
        z
    } else {
        z.view(
            z.layout().moveaxis(&[last as isize], &[axis as isize])?,
            z.dtype(),
        )?
    };
    let geo = geometry(
        &shape,
        axis,
        &z_last.layout().strides,
        &out.layout().strides,
    )
    .ok_or_else(|| Error::Value("internal: r2c geometry".into()))?;
    let w = tables::table(device, tables::Key::Real { n, double })?;
    twist(
        device,
        Part::R2cPost,
        double,
        Twist {
            src: strided(z_last.data_ptr(), geo.src),
            dst: strided(out.data_ptr(), geo.dst),
            batch: geo.batch1 * geo.batch0,
            batch0: geo.batch0,
            n: half as u64,
            len: n,
            table: w.data_ptr(),
            scale,
            ..Twist::default()
        },
    )?;
    Ok(out)
}

/// The real inverse transform of length `n` along `axis` of `a`, whose axis holds the
/// spectrum's first `n/2 + 1` entries (the others are their conjugates; the imaginary
/// parts of entry 0 and, for even `n`, entry `n/2` are ignored), unnormalized, times
/// `scale`.
pub fn c2r(a: &Array, axis: usize, n: usize, scale: f64) -> Result<Array> {
    let have = check_axis(a, axis)? as usize;
    let double = match a.dtype() {
        DType::Complex64 => false,
        DType::Complex128 => true,
        d => {
            return Err(Error::Type(format!(
                "c2r takes complex64 or complex128, not {}",
                d.name()
            )));
        }
    };
    if n == 0 || have != n / 2 + 1 {
        return Err(Error::Value(format!(
            "c2r of {n} points needs {} inputs along the axis, got {have}",
            n / 2 + 1
        )));
    }
    let real = if double {
        DType::Float64
    } else {
        DType::Float32
    };
    let mut shape = a.shape().to_vec();
    shape[axis] = n;
    if a.size() == 0 {
        return Array::empty(a.device(), &shape, real);
    }
    let device = a.device();
    // Work with the axis last: [batch..., len], C-contiguous.
    let mut moved_shape: Vec<usize> = shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != axis)
        .map(|(_, &s)| s)
        .collect();
    let last = moved_shape.len();
    let work_len = if n.is_multiple_of(2) { n / 2 } else { n };
    moved_shape.push(work_len);
    let z = Array::empty(device, &moved_shape, complex(double))?;
    // z's strides seen in a's axis order.
    let z_as_a = z.view(
        z.layout().moveaxis(&[last as isize], &[axis as isize])?,
        z.dtype(),
    )?;
    let (src, g) = plan_io(a, axis, &z_as_a)?;
    let batch = g.batch1 * g.batch0;
    let w = tables::table(
        device,
        tables::Key::Real {
            n: n as u64,
            double,
        },
    )?;
    let part = if n.is_multiple_of(2) {
        Part::C2rPre
    } else {
        Part::Hermitian
    };
    twist(
        device,
        part,
        double,
        Twist {
            src: strided(src.data_ptr(), g.src),
            dst: strided(z.data_ptr(), g.dst),
            batch,
            batch0: g.batch0,
            n: work_len as u64,
            len: n as u64,
            table: w.data_ptr(),
            ..Twist::default()
        },
    )?;
    let y = c2c(&z, last, true, scale)?;
    let size = y.dtype().itemsize();
    let flat = if n.is_multiple_of(2) {
        // Each complex output is a pair of real samples.
        y.view(y.layout().view_itemsize(size, size / 2)?, real)?
    } else {
        contiguous(&y.view(y.layout().complex_part(false), real)?)?
    };
    if axis == last {
        return Ok(flat);
    }
    let back = flat.view(
        flat.layout().moveaxis(&[last as isize], &[axis as isize])?,
        real,
    )?;
    contiguous(&back)
}
