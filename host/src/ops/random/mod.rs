//! Random arrays: NumPy's PCG64 outputs (raw, float64, float32) from a given state, and
//! the Philox distributions under a given key.
//!
//! The Python layer owns the generators' state (NumPy's own bit generator objects hold
//! PCG64's, and advance it by what a call consumed) and draws each call's Philox key
//! from it; these functions check what the kernels rely on (a fresh C-contiguous
//! output, parameter arrays of the output's size, dtypes) and launch. Values depend
//! only on the state or key and each element's index, never on the launch shape.

use gpupy_kernels as kernels;
use gpupy_kernels::random::{Bounded, Draw, Param, Pcg64Args, RANDOM_BLOCK, U128};
/// What the kernels draw, named as the kernel crate names them.
pub use gpupy_kernels::random::{Continuous, Discrete, Pcg64Out};
use gpupy_kernels::registry::Kernel;

use crate::array::{Array, checked_size};
use crate::device::Device;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::launch::Launch;

/// A distribution parameter: one value for every element, or an array of one value per
/// element (C-contiguous, of the output's size, float64 for the distributions and
/// uint64/int64 for integer bounds).
#[derive(Clone, Copy)]
pub enum Arg<'a, V> {
    Value(V),
    Array(&'a Array),
}

fn u128_halves(x: u128) -> U128 {
    U128::new((x >> 64) as u64, x as u64)
}

/// A checked parameter array's pointer: on `device`, C-contiguous, `n` elements of
/// one of `dtypes`.
fn param_ptr(a: &Array, device: &Device, n: usize, dtypes: &[DType]) -> Result<u64> {
    if !std::ptr::eq(a.device(), device) {
        return Err(Error::Value(
            "a parameter array is on another device".into(),
        ));
    }
    if !dtypes.contains(&a.dtype()) || a.size() != n || !a.layout().is_c_contiguous() {
        return Err(Error::Value(format!(
            "gpupy.random: a parameter array must be C-contiguous {} of {n} elements (got {} of {})",
            dtypes[0].name(),
            a.dtype().name(),
            a.size()
        )));
    }
    Ok(a.data_ptr())
}

/// Runs a random kernel, whose parameters are `(args, out)`, on a resident grid over
/// `work` items (outputs, groups or elements). The caller has checked what `args`
/// promises (parameter arrays of `n` elements) and made `out` fresh and C-contiguous
/// with the `n` elements `args` names.
fn launch<A: Copy>(device: &Device, kernel: Kernel, work: u64, args: A, out: &Array) -> Result<()> {
    Launch::new(device, kernel)?
        .resident_grid(RANDOM_BLOCK, work.div_ceil(RANDOM_BLOCK as u64))?
        .arg(args)
        .arg(out.data_ptr())
        .run()
}

/// `n` outputs of NumPy's PCG64 from `state`/`inc` (after NumPy's own `state` dict):
/// raw uint64, float64 (`next_double`) or float32 (`next_float`; `first` is the float
/// of the high half NumPy kept from its previous call, element 0 when present).
pub fn pcg64(
    device: &'static Device,
    shape: &[usize],
    out: Pcg64Out,
    state: u128,
    inc: u128,
    first: Option<f32>,
) -> Result<Array> {
    let dtype = match out {
        Pcg64Out::Raw => DType::UInt64,
        Pcg64Out::F64 => DType::Float64,
        Pcg64Out::F32 => DType::Float32,
    };
    checked_size(shape, dtype)?;
    let a = Array::empty(device, shape, dtype)?;
    let n = a.size() as u64;
    if n == 0 {
        return Ok(a);
    }
    let args = Pcg64Args {
        state: u128_halves(state),
        inc: u128_halves(inc),
        n,
        first: first.unwrap_or(0.0),
        has_first: first.is_some() as u32,
    };
    // Outputs the kernel loops over (float32 packs two elements in one output).
    let outputs = match out {
        Pcg64Out::F32 => (n - first.is_some() as u64).div_ceil(2),
        _ => n,
    };
    launch(device, kernels::random::pcg64(out), outputs, args, &a)?;
    Ok(a)
}

fn draw_args(device: &Device, n: usize, key: u64, params: &[Arg<'_, f64>]) -> Result<Draw> {
    let mut p = [Param::default(); 3];
    if params.len() > 3 {
        return Err(Error::Value("at most three distribution parameters".into()));
    }
    for (slot, arg) in p.iter_mut().zip(params) {
        *slot = match *arg {
            Arg::Value(value) => Param { ptr: 0, value },
            Arg::Array(a) => Param {
                ptr: param_ptr(a, device, n, &[DType::Float64])?,
                value: 0.0,
            },
        };
    }
    Ok(Draw {
        key,
        n: n as u64,
        p,
    })
}

/// A real distribution of `kind` (float32 or float64 out) under Philox `key`.
pub fn continuous(
    device: &'static Device,
    shape: &[usize],
    dtype: DType,
    kind: Continuous,
    key: u64,
    params: &[Arg<'_, f64>],
) -> Result<Array> {
    if !matches!(dtype, DType::Float32 | DType::Float64) {
        return Err(Error::Type(format!(
            "Unsupported dtype {} for the random distributions (float32 or float64)",
            dtype.name()
        )));
    }
    checked_size(shape, dtype)?;
    let a = Array::empty(device, shape, dtype)?;
    let n = a.size();
    let d = draw_args(device, n, key, params)?;
    if n > 0 {
        // Groups of four float32 or two float64 (one Philox block each).
        let per = if dtype == DType::Float32 { 4 } else { 2 };
        let kernel = kernels::random::continuous(kind, dtype == DType::Float64);
        launch(device, kernel, (n as u64).div_ceil(per), d, &a)?;
    }
    Ok(a)
}

/// An integer distribution of `kind` (int64 out) under Philox `key`.
pub fn discrete(
    device: &'static Device,
    shape: &[usize],
    kind: Discrete,
    key: u64,
    params: &[Arg<'_, f64>],
) -> Result<Array> {
    checked_size(shape, DType::Int64)?;
    let a = Array::empty(device, shape, DType::Int64)?;
    let n = a.size();
    let d = draw_args(device, n, key, params)?;
    if n > 0 {
        launch(device, kernels::random::discrete(kind), n as u64, d, &a)?;
    }
    Ok(a)
}

/// Integers `low + [0, range]` of an integer or bool `dtype` (wrapping in its width; the
/// caller keeps them inside the dtype's range) under Philox `key`. `wide`: some range
/// may reach 2^32 (array ranges must say so).
pub fn integers(
    device: &'static Device,
    shape: &[usize],
    dtype: DType,
    key: u64,
    low: Arg<'_, u64>,
    range: Arg<'_, u64>,
) -> Result<Array> {
    checked_size(shape, dtype)?;
    let a = Array::empty(device, shape, dtype)?;
    let n = a.size();
    let int = [DType::UInt64, DType::Int64];
    let (low_ptr, low) = match low {
        Arg::Value(v) => (0, v),
        Arg::Array(x) => (param_ptr(x, device, n, &int)?, 0),
    };
    let (range_ptr, range, wide) = match range {
        Arg::Value(v) => (0, v, v > u32::MAX as u64),
        Arg::Array(x) => (param_ptr(x, device, n, &int)?, 0, true),
    };
    let f = kernels::random::integers(dtype.itemsize(), wide)
        .filter(|_| matches!(dtype.kind(), Kind::Int | Kind::UInt | Kind::Bool))
        .ok_or_else(|| Error::Type(format!("Unsupported dtype {} for integers", dtype.name())))?;
    if n > 0 {
        let b = Bounded {
            key,
            n: n as u64,
            low_ptr,
            low,
            range_ptr,
            range,
        };
        // Groups of four 32-bit or two 64-bit draws (one Philox block each).
        let per = if wide { 2 } else { 4 };
        launch(device, f, (n as u64).div_ceil(per), b, &a)?;
    }
    Ok(a)
}
