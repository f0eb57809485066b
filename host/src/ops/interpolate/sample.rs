//! Sampling: each output of a new C-contiguous array is the input's spline at the
//! coordinate its map gives (a coordinate array, an affine map, a zoom and shift),
//! stored in the output dtype with SciPy's rounding.

use gpupy_kernels as kernels;
use gpupy_kernels::args::fast_divisor;
use gpupy_kernels::interpolate::{
    COORDS_F32, GRID_MODE, HAS_SHIFT, HAS_ZOOM, INTERP_BLOCK, INTERP_DIMS, Interp, ND_HEADER_BYTES,
    Source as Code, Store, nd_slots,
};

use super::input::converted;
use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use gpupy_kernels::interpolate::Mode;

/// Shared memory the n-d kernel may ask for (the default limit, with no opt-in).
const SHARED_LIMIT: u32 = 48 * 1024;

/// Where each output's input coordinate comes from.
pub enum Source<'a> {
    /// `map_coordinates`: an array of shape `(ndim, *out_shape)` (bool, integer or
    /// real), its column at each output the input coordinates.
    Coordinates(&'a Array),
    /// `affine_transform` with a matrix: input coordinate `d` of the output at plane
    /// coordinates `o` is `offset[d] + sum_l matrix[d * odim + l] * o[l]`.
    Affine {
        matrix: &'a [f64],
        offset: &'a [f64],
    },
    /// `zoom`, `shift`, `affine_transform` with a diagonal: along each axis,
    /// `(o + shift) * zoom`, or about the grid's edge with `grid_mode`.
    ZoomShift {
        zoom: Option<&'a [f64]>,
        shift: Option<&'a [f64]>,
        grid_mode: bool,
    },
}

/// How the spline is evaluated.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    /// 0 to 5.
    pub order: usize,
    pub mode: Mode,
    pub cval: f64,
    /// Samples of padding the input has on both sides of each sampled axis (SciPy pads
    /// 12 for the prefilter in `nearest` and `grid-constant` modes); coordinates are
    /// shifted by it.
    pub npad: usize,
}

/// The store of an output dtype, if the kernels have one.
fn store_of(dtype: DType) -> Option<Store> {
    Some(match dtype {
        DType::Float64 => Store::F64,
        DType::Float32 => Store::F32,
        DType::Int8 => Store::I8,
        DType::Int16 => Store::I16,
        DType::Int32 => Store::I32,
        DType::Int64 => Store::I64,
        DType::UInt8 => Store::U8,
        DType::UInt16 => Store::U16,
        DType::UInt32 => Store::U32,
        DType::UInt64 => Store::U64,
        DType::Bool => Store::Bool,
        _ => return None,
    })
}

/// `values` of one per axis, in a launch array.
fn per_axis(values: &[f64]) -> [f64; INTERP_DIMS] {
    let mut a = [0.0; INTERP_DIMS];
    a[..values.len()].copy_from_slice(values);
    a
}

/// Interpolates `x` into a new C-contiguous array of `out_shape` and `out_dtype`.
///
/// `x`'s first `batch` axes are planes sampled alike (`rotate` of more than two
/// dimensions: each plane of the rotated axes, moved last); the rest, `ndim` of them
/// (1 to `INTERP_DIMS`), are sampled. `out_shape` starts with the same `batch` extents,
/// then the output plane's (`odim` of them, 1 to `INTERP_DIMS`; any number for
/// `Coordinates`, whose `batch` is 0). Inputs are bool, integer or real; outputs
/// float32, float64, integer or bool.
pub fn sample(
    x: &Array,
    source: Source<'_>,
    out_shape: &[usize],
    batch: usize,
    s: Sampling,
    out_dtype: DType,
) -> Result<Array> {
    let bad = |m: String| Err(Error::Value(m));
    if s.order > 5 {
        return bad(format!("spline order {} is not 0 to 5", s.order));
    }
    let store = store_of(out_dtype).ok_or_else(|| {
        Error::Type(format!(
            "interpolation cannot store {} outputs",
            out_dtype.name()
        ))
    })?;
    if batch > x.ndim() || batch > out_shape.len() || x.shape()[..batch] != out_shape[..batch] {
        return bad("the batch axes of the input and output differ".into());
    }
    let ndim = x.ndim() - batch;
    if !(1..=INTERP_DIMS).contains(&ndim) {
        return bad(format!(
            "gpupy interpolates 1 to {INTERP_DIMS} dimensions, not {ndim}"
        ));
    }
    let oplane = &out_shape[batch..];
    let odim = oplane.len();
    let mut code = Code::Coordinates;
    let (mut zoom, mut shift, mut flags) = ([0.0; INTERP_DIMS], [0.0; INTERP_DIMS], 0u32);
    let mut aux: Option<Array> = None;
    match source {
        Source::Coordinates(c) => {
            if batch != 0
                || c.ndim() != odim + 1
                || c.shape()[0] != ndim
                || &c.shape()[1..] != oplane
            {
                return bad("the coordinates do not match the input and output".into());
            }
            // float32 coordinates are read as they are (exactly, as doubles).
            let read = if c.dtype() == DType::Float32 {
                flags |= COORDS_F32;
                DType::Float32
            } else {
                DType::Float64
            };
            aux = Some(converted(c, read, "map_coordinates")?);
        }
        Source::Affine { matrix, offset } => {
            if !(1..=INTERP_DIMS).contains(&odim)
                || matrix.len() != ndim * odim
                || offset.len() != ndim
            {
                return bad("the affine map does not match the input and output".into());
            }
            code = Code::Affine;
            // Row d: the matrix row, then the offset.
            let rows: Vec<u8> = (0..ndim)
                .flat_map(|d| matrix[d * odim..(d + 1) * odim].iter().chain([&offset[d]]))
                .flat_map(|v| v.to_le_bytes())
                .collect();
            aux = Some(Array::from_host(
                x.device(),
                &rows,
                &[ndim * (odim + 1)],
                DType::Float64,
            )?);
        }
        Source::ZoomShift {
            zoom: z,
            shift: t,
            grid_mode,
        } => {
            if odim != ndim
                || z.is_some_and(|z| z.len() != ndim)
                || t.is_some_and(|t| t.len() != ndim)
            {
                return bad("the zoom or shift does not match the input".into());
            }
            code = Code::ZoomShift;
            if let Some(z) = z {
                zoom = per_axis(z);
                flags |= HAS_ZOOM;
            }
            if let Some(t) = t {
                shift = per_axis(t);
                flags |= HAS_SHIFT;
            }
            if grid_mode {
                flags |= GRID_MODE;
            }
        }
    }
    let n: usize = out_shape.iter().product();
    let device = x.device();
    if n == 0 {
        return Array::empty(device, out_shape, out_dtype);
    }
    if x.size() == 0 {
        return bad("cannot interpolate an empty array into a non-empty one".into());
    }

    // The output plane's dimensions as the kernels see them (coordinate arrays are
    // walked flat).
    let odim = if code == Code::Coordinates { 0 } else { odim };
    // The kernel: a register one for 1 to 3 dimensions where one exists (reading
    // float32 directly at the orders it has), else the n-d one.
    let registers = |dtype: DType| {
        (odim <= ndim && ndim <= 3)
            .then(|| kernels::interpolate::sample(dtype as usize, ndim, s.order))
            .flatten()
    };
    let read = if x.dtype() == DType::Float32 {
        DType::Float32
    } else {
        DType::Float64
    };
    let (kernel, read, nd) = match (registers(read), registers(DType::Float64)) {
        (Some(k), _) => (k, read, false),
        (None, Some(k)) => (k, DType::Float64, false),
        (None, None) => {
            let k = kernels::interpolate::sample_nd(read as usize)
                .ok_or_else(|| Error::Type("no n-d interpolation kernel".into()))?;
            (k, read, true)
        }
    };
    let src = converted(x, read, "interpolate")?;
    let out = Array::empty(device, out_shape, out_dtype)?;

    let mut args = Interp {
        n: n as u64,
        out_plane: oplane.iter().product::<usize>() as u64,
        in_plane: x.shape()[batch..].iter().product::<usize>() as u64,
        ndim: ndim as u32,
        odim: odim as u32,
        order: s.order as u32,
        mode: s.mode as u32,
        source: code as u32,
        store: store as u32,
        flags,
        plane_magic: 0,
        plane_shift: 0,
        _pad: 0,
        npad: s.npad as f64,
        cval: s.cval,
        lo: store.range().0,
        hi: store.range().1,
        shape: [1; INTERP_DIMS],
        stride: [0; INTERP_DIMS],
        oshape: [1; INTERP_DIMS],
        omagic: [0; INTERP_DIMS],
        oshift: [0; INTERP_DIMS],
        zoom,
        shift,
    };
    (args.plane_magic, args.plane_shift) = fast_divisor(args.out_plane);
    let mut step = 1i64;
    for d in (0..ndim).rev() {
        args.shape[d] = x.shape()[batch + d] as u64;
        args.stride[d] = step;
        step *= x.shape()[batch + d] as i64;
    }
    if code != Code::Coordinates {
        for (d, &e) in oplane.iter().enumerate() {
            args.oshape[d] = e as u64;
            (args.omagic[d], args.oshift[d]) = fast_divisor(e as u64);
        }
    }
    let (threads, shared) = if nd {
        let per_thread = nd_slots(ndim, odim, s.order) as u32 * 8;
        let threads = ((SHARED_LIMIT - ND_HEADER_BYTES) / per_thread / 32 * 32).clamp(32, 256);
        (threads, ND_HEADER_BYTES + threads * per_thread)
    } else {
        (INTERP_BLOCK, 0)
    };
    let blocks = u32::try_from((n as u64).div_ceil(threads as u64))
        .ok()
        .filter(|&b| b < 1 << 31)
        .ok_or_else(|| Error::Value(format!("{n} outputs are too many for one launch")))?;
    // (args, x, aux, out) is the kernel's parameter list: `src` is the C-contiguous input
    // (batch planes of in_plane elements of the sampled shape, each extent >= 1 as it
    // is not empty), `out` holds n elements of the store's dtype, `aux` holds the
    // coordinates (ndim rows of n) or the affine rows (ndim of odim + 1), or is unused;
    // the register kernels get ndim <= 3 and odim <= ndim, the n-d kernel its slots of
    // shared memory per thread; the grid covers every output.
    let aux_ptr = aux.as_ref().map_or(0, |a| a.data_ptr());
    Launch::new(device, kernel)?
        .grid(blocks)
        .block(threads)
        .shared(shared)
        .arg(args)
        .arg(src.data_ptr())
        .arg(aux_ptr)
        .arg(out.data_ptr())
        .run()?;
    Ok(out)
}
