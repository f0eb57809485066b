//! Random-array bindings: the private entry points behind `gpupy.random`. The generators
//! (NumPy's PCG64 state, the Philox bit generator, the legacy `RandomState`) and NumPy's
//! signatures, argument checks and messages live in Python (`python/gpupy/random/`);
//! these take a resolved shape, dtype, state or key and parameters, and launch.

use gpupy_host::ops::random::{self, Arg, Continuous, Discrete, Pcg64Out};
use gpupy_host::{Array, device};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::convert::to_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// `n` outputs of NumPy's PCG64 from the state `(state_hi, state_lo, inc_hi, inc_lo)`:
/// `out` is "raw" (uint64), "f64" or "f32" (with `first`: element 0, the half NumPy kept).
#[pyfunction]
#[pyo3(signature = (shape, out, state, first=None))]
fn _pcg64(
    py: Python<'_>,
    shape: Vec<usize>,
    out: &str,
    state: (u64, u64, u64, u64),
    first: Option<f32>,
) -> PyResult<Py<NdArray>> {
    let out = match out {
        "raw" => Pcg64Out::Raw,
        "f64" => Pcg64Out::F64,
        "f32" => Pcg64Out::F32,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown PCG64 output {out:?}"
            )));
        }
    };
    let s = (state.0 as u128) << 64 | state.1 as u128;
    let inc = (state.2 as u128) << 64 | state.3 as u128;
    let dev = device::current().or_raise()?;
    let r = py
        .detach(|| random::pcg64(dev, &shape, out, s, inc, first))
        .or_raise()?;
    NdArray::wrap(py, r)
}

/// Parameters as the host takes them: floats, or gpupy arrays (float64, C-contiguous,
/// of the output's size; `gpupy/random/_params.py` prepares them).
fn arrays_of(params: &[Bound<'_, PyAny>]) -> Vec<Option<Array>> {
    params
        .iter()
        .map(|p| p.cast::<NdArray>().ok().map(|a| a.get().inner.clone()))
        .collect()
}

fn f64_args<'a>(
    params: &[Bound<'_, PyAny>],
    arrays: &'a [Option<Array>],
) -> PyResult<Vec<Arg<'a, f64>>> {
    params
        .iter()
        .zip(arrays)
        .map(|(p, a)| match a {
            Some(a) => Ok(Arg::Array(a)),
            None => Ok(Arg::Value(p.extract::<f64>()?)),
        })
        .collect()
}

/// A real distribution ("uniform", "normal", "lognormal", "exponential", "gamma",
/// "beta", "laplace", "logistic", "gumbel") of float32/float64 `dtype` under `key`.
#[pyfunction]
fn _continuous(
    py: Python<'_>,
    shape: Vec<usize>,
    dtype: &Bound<'_, PyAny>,
    kind: &str,
    key: u64,
    params: Vec<Bound<'_, PyAny>>,
) -> PyResult<Py<NdArray>> {
    let kind = match kind {
        "uniform" => Continuous::Uniform,
        "normal" => Continuous::Normal,
        "lognormal" => Continuous::LogNormal,
        "exponential" => Continuous::Exponential,
        "gamma" => Continuous::Gamma,
        "beta" => Continuous::Beta,
        "laplace" => Continuous::Laplace,
        "logistic" => Continuous::Logistic,
        "gumbel" => Continuous::Gumbel,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown distribution {kind:?}"
            )));
        }
    };
    let d = to_dtype(py, dtype)?;
    let arrays = arrays_of(&params);
    let args = f64_args(&params, &arrays)?;
    let dev = device::current().or_raise()?;
    let r = py
        .detach(|| random::continuous(dev, &shape, d, kind, key, &args))
        .or_raise()?;
    NdArray::wrap(py, r)
}

/// An integer distribution ("poisson", "binomial", "geometric"), int64, under `key`.
#[pyfunction]
fn _discrete(
    py: Python<'_>,
    shape: Vec<usize>,
    kind: &str,
    key: u64,
    params: Vec<Bound<'_, PyAny>>,
) -> PyResult<Py<NdArray>> {
    let kind = match kind {
        "poisson" => Discrete::Poisson,
        "binomial" => Discrete::Binomial,
        "geometric" => Discrete::Geometric,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown distribution {kind:?}"
            )));
        }
    };
    let arrays = arrays_of(&params);
    let args = f64_args(&params, &arrays)?;
    let dev = device::current().or_raise()?;
    let r = py
        .detach(|| random::discrete(dev, &shape, kind, key, &args))
        .or_raise()?;
    NdArray::wrap(py, r)
}

fn u64_arg<'a>(p: &Bound<'_, PyAny>, array: &'a Option<Array>) -> PyResult<Arg<'a, u64>> {
    match array {
        Some(a) => Ok(Arg::Array(a)),
        None => p.extract::<u64>().map(Arg::Value).map_err(|_| {
            PyTypeError::new_err("an integer bound must be an int in [0, 2**64) or a gpupy array")
        }),
    }
}

/// Integers `low + [0, range]` of an integer or bool `dtype` under `key`; `low` and
/// `range` are ints (two's complement as uint64) or uint64/int64 arrays of the size.
#[pyfunction]
fn _integers(
    py: Python<'_>,
    shape: Vec<usize>,
    dtype: &Bound<'_, PyAny>,
    key: u64,
    low: Bound<'_, PyAny>,
    range: Bound<'_, PyAny>,
) -> PyResult<Py<NdArray>> {
    let d = to_dtype(py, dtype)?;
    let arrays = arrays_of(&[low.clone(), range.clone()]);
    let (lo, r) = (u64_arg(&low, &arrays[0])?, u64_arg(&range, &arrays[1])?);
    let dev = device::current().or_raise()?;
    let out = py
        .detach(|| random::integers(dev, &shape, d, key, lo, r))
        .or_raise()?;
    NdArray::wrap(py, out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_pcg64, m)?)?;
    m.add_function(wrap_pyfunction!(_continuous, m)?)?;
    m.add_function(wrap_pyfunction!(_discrete, m)?)?;
    m.add_function(wrap_pyfunction!(_integers, m)?)?;
    Ok(())
}
