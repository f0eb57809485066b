//! A window of taps over an n-d array, planned for the two walks of the n-d filter
//! kernels: the interior box (outputs whose whole window lies inside the array, read
//! with linear offsets and no boundary tests) and the slabs around it (each tap's
//! coordinates mapped by the boundary mode).

use gpupy_kernels::args::fast_divisor;
use gpupy_kernels::filters::{FILTER_DIMS, FilterBox, FilterNd, Mode};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};

/// The taps of a filter over an array of one shape, uploaded, with its walks.
pub struct Window {
    /// `FILTER_DIMS` offsets per tap, innermost first (the edge kernels' `off`).
    pub off: Array,
    /// Each tap's linear offset in the C-contiguous array (the box kernels' `lin`).
    pub lin: Array,
    /// The interior box; `n == 0` when no output's window lies inside.
    pub interior: FilterBox,
    /// The regions with boundary tests, covering every output outside the box.
    pub edges: Vec<FilterNd>,
}

impl Window {
    /// Plans the taps `offsets` (one offset per axis, C order, from the output
    /// coordinate) over a non-empty array of `shape`, for `mode` and `cval`; `select`
    /// goes into every launch struct (the order filters' rank or extreme).
    pub fn plan(
        device: &'static Device,
        shape: &[usize],
        offsets: &[Vec<i64>],
        mode: Mode,
        cval: f64,
        select: u32,
    ) -> Result<Window> {
        let nd = shape.len();
        if nd > FILTER_DIMS {
            return Err(Error::Value(format!(
                "gpupy's n-d filters take at most {FILTER_DIMS} dimensions, not {nd}"
            )));
        }
        if offsets.is_empty() || offsets.iter().any(|o| o.len() != nd) {
            return Err(Error::Value(format!(
                "a filter needs at least one tap of {nd} coordinates"
            )));
        }
        let ntaps = u32::try_from(offsets.len())
            .map_err(|_| Error::Value("too many filter taps".into()))?;
        let mut packed = vec![0i32; offsets.len() * FILTER_DIMS];
        let mut lin = vec![0i64; offsets.len()];
        let (mut lo, mut hi) = ([0i32; FILTER_DIMS], [0i32; FILTER_DIMS]);
        for (t, o) in offsets.iter().enumerate() {
            // Innermost first, as the kernels walk coordinates; C-order element strides.
            let mut step = 1i64;
            for (d, &v) in o.iter().rev().enumerate() {
                let v32 = i32::try_from(v)
                    .map_err(|_| Error::Value(format!("filter offset {v} is too large")))?;
                packed[t * FILTER_DIMS + d] = v32;
                lin[t] += v * step;
                step *= shape[nd - 1 - d] as i64;
                (lo[d], hi[d]) = if t == 0 {
                    (v32, v32)
                } else {
                    (lo[d].min(v32), hi[d].max(v32))
                };
            }
        }
        let off_bytes: Vec<u8> = packed.iter().flat_map(|v| v.to_le_bytes()).collect();
        let off = Array::from_host(device, &off_bytes, &[packed.len()], DType::Int32)?;
        let lin_bytes: Vec<u8> = lin.iter().flat_map(|v| v.to_le_bytes()).collect();
        let lin = Array::from_host(device, &lin_bytes, &[lin.len()], DType::Int64)?;

        // The interior box: along axis d (innermost first), the outputs c with
        // 0 <= c + lo[d] and c + hi[d] < n, whose windows need no boundary test.
        let shape: Vec<u64> = shape.iter().rev().map(|&n| n as u64).collect();
        let mut b = FilterBox {
            n: 1,
            ndim: nd as u32,
            ntaps,
            select,
            _pad: 0,
            shape: [1; FILTER_DIMS],
            magic: [0; FILTER_DIMS],
            shift: [0; FILTER_DIMS],
            start: [0; FILTER_DIMS],
            stride: [0; FILTER_DIMS],
        };
        let mut step = 1u64;
        for (d, &n) in shape.iter().enumerate() {
            let first = (-(lo[d] as i64)).max(0) as u64;
            let end = (n as i64 - hi[d].max(0) as i64).max(0) as u64;
            b.shape[d] = end.saturating_sub(first);
            (b.magic[d], b.shift[d]) = fast_divisor(b.shape[d]);
            b.start[d] = first;
            b.stride[d] = step;
            b.n *= b.shape[d];
            step *= n;
        }
        // The regions with boundary tests: the whole array when the box is empty, else
        // the shell around it, cut in slabs: slab (d, side) takes axes below d inside
        // the box, axis d before or after it, axes above d whole.
        let mut regions: Vec<(Vec<u64>, Vec<u64>)> = Vec::new();
        if b.n == 0 {
            regions.push((vec![0; nd], shape.clone()));
        } else {
            for d in 0..nd {
                let (first, end) = (b.start[d], b.start[d] + b.shape[d]);
                for (lo_d, hi_d) in [(0, first), (end, shape[d])] {
                    if hi_d <= lo_d {
                        continue;
                    }
                    let mut start = vec![0u64; nd];
                    let mut extent = shape.clone();
                    for j in 0..d {
                        (start[j], extent[j]) = (b.start[j], b.shape[j]);
                    }
                    (start[d], extent[d]) = (lo_d, hi_d - lo_d);
                    regions.push((start, extent));
                }
            }
        }
        let edges = regions
            .into_iter()
            .map(|(start, extent)| {
                let mut args = FilterNd {
                    n: extent.iter().product(),
                    ndim: nd as u32,
                    ntaps,
                    mode: mode as u32,
                    select,
                    cval,
                    shape: [1; FILTER_DIMS],
                    start: [0; FILTER_DIMS],
                    rshape: [1; FILTER_DIMS],
                    rmagic: [0; FILTER_DIMS],
                    rshift: [0; FILTER_DIMS],
                };
                for d in 0..nd {
                    args.shape[d] = shape[d];
                    args.start[d] = start[d];
                    args.rshape[d] = extent[d];
                    (args.rmagic[d], args.rshift[d]) = fast_divisor(extent[d]);
                }
                args
            })
            .collect();
        Ok(Window {
            off,
            lin,
            interior: b,
            edges,
        })
    }
}
