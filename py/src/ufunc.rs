//! `gpupy.ufunc`: NumPy's ufuncs on gpupy arrays, one object per op in the kernel tables.
//!
//! Type resolution is NumPy's own: the first call with a new combination of operand
//! dtypes asks `numpy.<ufunc>.resolve_dtypes` (Python scalars passed as `int`, `float`,
//! `complex`, so they stay weak as in NEP 50) and caches the answer. The host then runs
//! the loop NumPy chose, so result dtypes, promotion errors and casting rules match
//! NumPy's by construction.

use std::collections::HashMap;
use std::sync::Mutex;

use gpupy_host::ops::elementwise::numpy_rules as rules;
use gpupy_host::ops::elementwise::{Operand, Scalar, binary, fill, unary};
use gpupy_host::table::{BinaryOp, UnaryOp};
use gpupy_host::{Array, DType, device};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyDict, PyFloat, PyInt, PyTuple};

use crate::convert::{numpy_dtype, prepare_host, to_dtype};
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// The kernel family of a ufunc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Binary(BinaryOp),
    Unary(UnaryOp),
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Binary(o) => o.name(),
            Op::Unary(o) => o.name(),
        }
    }
    fn nin(self) -> usize {
        match self {
            Op::Binary(_) => 2,
            Op::Unary(_) => 1,
        }
    }
}

/// What type resolution needs to know of an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    /// A gpupy array or a NumPy scalar: its dtype takes part in promotion.
    Strong(DType),
    /// A Python int, float or complex: weak, it adapts to the arrays (NEP 50).
    WeakInt,
    WeakFloat,
    WeakComplex,
}

/// An operand as the ufunc takes it.
enum Arg<'a> {
    Array(&'a Array),
    Owned(Array),
    /// A Python or NumPy scalar, converted once the loop is known.
    Scalar(Bound<'a, PyAny>, Kind),
}

impl Arg<'_> {
    fn kind(&self) -> Kind {
        match self {
            Arg::Array(a) => Kind::Strong(a.dtype()),
            Arg::Owned(a) => Kind::Strong(a.dtype()),
            Arg::Scalar(_, k) => *k,
        }
    }
    fn array(&self) -> Option<&Array> {
        match self {
            Arg::Array(a) => Some(a),
            Arg::Owned(a) => Some(a),
            Arg::Scalar(..) => None,
        }
    }
}

/// Classifies `x`; `None` for types gpupy does not take as operands.
fn classify<'a>(py: Python<'a>, x: &'a Bound<'a, PyAny>) -> PyResult<Option<Arg<'a>>> {
    if let Ok(a) = x.cast::<NdArray>() {
        return Ok(Some(Arg::Array(&a.get().inner)));
    }
    if x.is_instance_of::<PyBool>() {
        return Ok(Some(Arg::Scalar(x.clone(), Kind::Strong(DType::Bool))));
    }
    if x.is_instance(numpy_generic(py)?)? {
        let d = to_dtype(py, &x.getattr("dtype")?)?;
        return Ok(Some(Arg::Scalar(x.clone(), Kind::Strong(d))));
    }
    if x.is_instance_of::<PyInt>() {
        return Ok(Some(Arg::Scalar(x.clone(), Kind::WeakInt)));
    }
    if x.is_instance_of::<PyFloat>() {
        return Ok(Some(Arg::Scalar(x.clone(), Kind::WeakFloat)));
    }
    if x.is_instance_of::<PyComplex>() {
        return Ok(Some(Arg::Scalar(x.clone(), Kind::WeakComplex)));
    }
    // NumPy arrays and nested sequences: copied to the device, as NumPy would convert.
    if x.is_instance(numpy_ndarray(py)?)?
        || x.is_instance_of::<pyo3::types::PyList>()
        || x.is_instance_of::<PyTuple>()
    {
        let host = prepare_host(py, x, None)?;
        if host
            .getattr("dtype")?
            .getattr("kind")?
            .extract::<String>()?
            == "O"
        {
            return Ok(None);
        }
        return Ok(Some(Arg::Owned(crate::convert::from_numpy(py, &host)?)));
    }
    Ok(None)
}

static NP_GENERIC: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NP_NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn numpy_generic(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    Ok(NP_GENERIC
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("numpy")?.getattr("generic")?.unbind())
        })?
        .bind(py))
}
fn numpy_ndarray(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    Ok(NP_NDARRAY
        .get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("numpy")?.getattr("ndarray")?.unbind())
        })?
        .bind(py))
}

/// Resolved loops: (op, operand kinds, requested dtype) -> (loop input dtype, output dtype).
type Key = (Op, [Option<Kind>; 2], Option<DType>);
/// A resolved loop: input and output dtypes, or NumPy's int64/uint64 comparison loops
/// (`qQ->?`), which gpupy composes from other kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loop {
    Same(DType, DType),
    MixedSign,
}
static RESOLVED: Mutex<Option<HashMap<Key, Loop>>> = Mutex::new(None);

/// NumPy's loop for these operands.
fn resolve(py: Python<'_>, op: Op, kinds: &[Kind], dtype: Option<DType>) -> PyResult<Loop> {
    let key: Key = (op, [kinds.first().copied(), kinds.get(1).copied()], dtype);
    if let Some(r) = RESOLVED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .and_then(|m| m.get(&key))
    {
        return Ok(*r);
    }
    let builtins = py.import("builtins")?;
    let mut dts = Vec::new();
    for k in kinds {
        dts.push(match k {
            Kind::Strong(d) => numpy_dtype(py, *d)?,
            Kind::WeakInt => builtins.getattr("int")?,
            Kind::WeakFloat => builtins.getattr("float")?,
            Kind::WeakComplex => builtins.getattr("complex")?,
        });
    }
    dts.push(py.None().into_bound(py));
    let ufunc = py.import("numpy")?.getattr(op.name())?;
    let kwargs = pyo3::types::PyDict::new(py);
    if let Some(d) = dtype {
        let mut sig: Vec<Bound<'_, PyAny>> =
            kinds.iter().map(|_| py.None().into_bound(py)).collect();
        sig.push(numpy_dtype(py, d)?);
        kwargs.set_item("signature", PyTuple::new(py, sig)?)?;
    }
    let loop_: Vec<Bound<'_, PyAny>> = ufunc
        .call_method("resolve_dtypes", (PyTuple::new(py, dts)?,), Some(&kwargs))?
        .extract()?;
    let ins: Vec<DType> = loop_[..kinds.len()]
        .iter()
        .map(|d| to_dtype(py, d))
        .collect::<PyResult<_>>()?;
    let out = to_dtype(py, &loop_[kinds.len()])?;
    if let (Op::Binary(b), [DType::Int64, DType::UInt64] | [DType::UInt64, DType::Int64]) =
        (op, ins.as_slice())
        && rules::is_comparison(b)
    {
        // NumPy's exact int64/uint64 comparison loops (`qQ->?`): see `mixed_sign_comparison`.
        let r = Loop::MixedSign;
        RESOLVED
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_or_insert_with(HashMap::new)
            .insert(key, r);
        return Ok(r);
    }
    if ins.iter().any(|d| *d != ins[0]) {
        return Err(PyTypeError::new_err(format!(
            "gpupy has no mixed-dtype kernel for {}({}); cast the operands to one dtype first",
            op.name(),
            ins.iter().map(|d| d.name()).collect::<Vec<_>>().join(", ")
        )));
    }
    let ours = match op {
        Op::Binary(o) => o.output(ins[0]),
        Op::Unary(o) => o.output(ins[0]),
    };
    if ours != Some(out) {
        return Err(PyTypeError::new_err(format!(
            "gpupy has no {} kernel for {} -> {}",
            op.name(),
            ins[0].name(),
            out.name()
        )));
    }
    let r = Loop::Same(ins[0], out);
    RESOLVED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(key, r);
    Ok(r)
}

/// A Python or NumPy scalar as one item of `dtype`, with NumPy's overflow errors.
fn scalar_of(py: Python<'_>, x: &Bound<'_, PyAny>, dtype: DType) -> PyResult<Scalar> {
    let plain = x.is_instance_of::<PyFloat>()
        || (x.is_instance_of::<PyInt>() && !x.is_instance_of::<PyBool>());
    if plain && matches!(dtype, DType::Float32 | DType::Float64) {
        return Scalar::float(dtype, x.extract::<f64>()?).or_raise();
    }
    let arr = py
        .import("numpy")?
        .getattr("asarray")?
        .call1((x, numpy_dtype(py, dtype)?))?;
    let bytes: Vec<u8> = arr.call_method0("tobytes")?.extract()?;
    Scalar::from_bytes(dtype, &bytes).or_raise()
}

/// Runs `op` on classified operands. `Ok(None)`: an operand gpupy does not take.
fn apply(
    py: Python<'_>,
    op: Op,
    args: &[Arg],
    out: Option<&Array>,
    dtype: Option<DType>,
) -> PyResult<Array> {
    let kinds: Vec<Kind> = args.iter().map(Arg::kind).collect();
    let (loop_dtype, out_dtype) = match resolve(py, op, &kinds, dtype)? {
        Loop::Same(i, o) => (i, o),
        Loop::MixedSign => {
            if let Some(o) = out {
                check_cast(py, op, DType::Bool, o.dtype())?;
            }
            return mixed_sign_comparison(py, op, args, out);
        }
    };
    if let Some(o) = out {
        check_cast(py, op, out_dtype, o.dtype())?;
    }
    // Operands as the host takes them; with no array at all, the first becomes 0-d.
    let mut holders: Vec<Array> = Vec::new();
    if args.iter().all(|a| a.array().is_none())
        && let Arg::Scalar(x, _) = &args[0]
    {
        let s = scalar_of(py, x, loop_dtype)?;
        let dev = device::current().or_raise()?;
        holders.push(fill::full(dev, &[], loop_dtype, s.bytes()).or_raise()?);
    }
    if let Some(r) = out_of_range_comparison(py, op, args, loop_dtype, out)? {
        return Ok(r);
    }
    let mut operands: Vec<Operand> = Vec::new();
    for (i, a) in args.iter().enumerate() {
        operands.push(match a {
            Arg::Array(arr) => Operand::Array(arr),
            Arg::Owned(arr) => Operand::Array(arr),
            Arg::Scalar(..) if i == 0 && !holders.is_empty() => Operand::Array(&holders[0]),
            Arg::Scalar(x, _) => Operand::Scalar(scalar_of(py, x, loop_dtype)?),
        });
    }
    match op {
        Op::Binary(o) => binary(o, loop_dtype, operands[0], operands[1], out).or_raise(),
        Op::Unary(o) => match operands[0] {
            Operand::Array(a) => unary(o, loop_dtype, a, out).or_raise(),
            Operand::Scalar(_) => Err(PyTypeError::new_err("internal: unary operand not an array")),
        },
    }
}

/// `x op y` for an int64 and a uint64 operand, exactly (the host's
/// `numpy_rules::mixed_sign_comparison`); a strong NumPy scalar becomes a 0-d array.
fn mixed_sign_comparison(
    py: Python<'_>,
    op: Op,
    args: &[Arg],
    out: Option<&Array>,
) -> PyResult<Array> {
    let Op::Binary(b) = op else {
        return Err(PyTypeError::new_err(
            "internal: a unary op resolved to a mixed-sign loop",
        ));
    };
    let arrays: Vec<Array> = args
        .iter()
        .map(|a| match a {
            Arg::Array(x) => Ok((*x).clone()),
            Arg::Owned(x) => Ok(x.clone()),
            Arg::Scalar(x, Kind::Strong(d)) => {
                let s = scalar_of(py, x, *d)?;
                fill::full(device::current().or_raise()?, &[], *d, s.bytes()).or_raise()
            }
            Arg::Scalar(..) => Err(PyTypeError::new_err(
                "internal: weak scalar in a mixed-sign comparison",
            )),
        })
        .collect::<PyResult<_>>()?;
    rules::mixed_sign_comparison(b, &arrays[0], &arrays[1], out).or_raise()
}

/// NumPy 2 defines comparisons of integer arrays with Python ints outside the dtype's
/// range (`uint8_array < -1` is all False) rather than raising OverflowError: whether
/// the int fits is Python's to tell; the fill is the host's
/// (`numpy_rules::out_of_range_comparison`).
fn out_of_range_comparison(
    py: Python<'_>,
    op: Op,
    args: &[Arg],
    dtype: DType,
    out: Option<&Array>,
) -> PyResult<Option<Array>> {
    let Op::Binary(b) = op else {
        return Ok(None);
    };
    let (array, scalar, scalar_first) = match args {
        [Arg::Scalar(x, Kind::WeakInt), other] => (other, x, true),
        [other, Arg::Scalar(x, Kind::WeakInt)] => (other, x, false),
        _ => return Ok(None),
    };
    let Some(array) = array.array() else {
        return Ok(None);
    };
    if !rules::is_comparison(b) || scalar_of(py, scalar, dtype).is_ok() {
        return Ok(None);
    }
    rules::out_of_range_comparison(b, array, scalar.gt(0)?, scalar_first, out).or_raise()
}

/// NumPy's same_kind rule for writing a loop's output into `out=`.
fn check_cast(py: Python<'_>, op: Op, from: DType, to: DType) -> PyResult<()> {
    if from == to {
        return Ok(());
    }
    let ok: bool = py
        .import("numpy")?
        .getattr("can_cast")?
        .call1((numpy_dtype(py, from)?, numpy_dtype(py, to)?, "same_kind"))?
        .extract()?;
    if !ok {
        let e = py
            .import("numpy")?
            .getattr("_core")?
            .getattr("_exceptions")?
            .getattr("_UFuncOutputCastingError");
        let msg = format!(
            "Cannot cast ufunc '{}' output from dtype('{}') to dtype('{}') with casting rule 'same_kind'",
            op.name(),
            from.name(),
            to.name()
        );
        // NumPy raises UFuncTypeError (a TypeError); keep the type when it can be built.
        let _ = e;
        return Err(PyTypeError::new_err(msg));
    }
    Ok(())
}

fn unsupported(x: &Bound<'_, PyAny>) -> PyErr {
    let ty = x
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("Unsupported type {ty}"))
}

/// An operator (`a + b`, `-a`): `Ok(None)` means NotImplemented.
pub fn operator(
    py: Python<'_>,
    op: Op,
    operands: &[&Bound<'_, PyAny>],
) -> PyResult<Option<Py<NdArray>>> {
    let mut args = Vec::new();
    for x in operands {
        match classify(py, x)? {
            Some(a) => args.push(a),
            None => return Ok(None),
        }
    }
    Ok(Some(NdArray::wrap(py, apply(py, op, &args, None, None)?)?))
}

/// `a op= b`: the result goes into `a` (same_kind casting, as NumPy).
pub fn inplace(
    py: Python<'_>,
    op: Op,
    target: &Bound<'_, NdArray>,
    other: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let a = target.as_any();
    let args = [
        classify(py, a)?.ok_or_else(|| unsupported(a))?,
        classify(py, other)?.ok_or_else(|| unsupported(other))?,
    ];
    apply(py, op, &args, Some(&target.get().inner), None)?;
    Ok(())
}

/// NumPy's ufunc object for a gpupy op.
#[pyclass(name = "ufunc", module = "gpupy", frozen)]
pub struct Ufunc {
    op: Op,
}

#[pymethods]
impl Ufunc {
    /// `where=`, `casting=`, `order=`, `subok=` and `signature=` (any other keyword)
    /// go to `gpupy._ufunc_methods.call`, which applies them around a plain call.
    #[pyo3(signature = (*args, out = None, dtype = None, **kwargs))]
    fn __call__(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        out: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if let Some(kw) = kwargs.filter(|k| !k.is_empty()) {
            let kw = kw.copy()?;
            if let Some(o) = out {
                kw.set_item("out", o)?;
            }
            if let Some(d) = dtype {
                kw.set_item("dtype", d)?;
            }
            return Ok(ufunc_method(slf, "call", (slf, args, kw), None)?.unbind());
        }
        let this = slf.get();
        let nin = this.op.nin();
        let name = this.op.name();
        let mut out = out.filter(|o| !o.is_none()).cloned();
        if args.len() == nin + 1 && out.is_none() {
            out = Some(args.get_item(nin)?);
        } else if args.len() != nin {
            return Err(PyTypeError::new_err(format!(
                "{name}() takes from {nin} to {} positional arguments but {} were given",
                nin + 1,
                args.len()
            )));
        }
        let out = match out {
            Some(o) if o.is_instance_of::<PyTuple>() => {
                let t = o.cast::<PyTuple>()?;
                if t.len() != 1 {
                    return Err(PyValueError::new_err(format!(
                        "The 'out' tuple must have exactly one entry per ufunc output ({name} has 1)"
                    )));
                }
                Some(t.get_item(0)?)
            }
            o => o,
        };
        let out_arr = match &out {
            None => None,
            Some(o) => Some(o.cast::<NdArray>().map_err(|_| {
                PyTypeError::new_err("return arrays must be of ArrayType (a gpupy.ndarray)")
            })?),
        };
        let items: Vec<Bound<'_, PyAny>> = args.iter().take(nin).collect();
        let mut classified = Vec::new();
        for x in &items {
            classified.push(classify(py, x)?.ok_or_else(|| unsupported(x))?);
        }
        let dtype = match dtype {
            Some(d) if !d.is_none() => Some(to_dtype(py, d)?),
            _ => None,
        };
        let r = apply(
            py,
            this.op,
            &classified,
            out_arr.map(|o| &o.get().inner),
            dtype,
        )?;
        match out_arr {
            Some(o) => Ok(o.clone().into_any().unbind()),
            None => Ok(NdArray::wrap(py, r)?.into_any()),
        }
    }

    #[getter]
    fn __name__(&self) -> &'static str {
        self.op.name()
    }
    #[getter]
    fn nin(&self) -> usize {
        self.op.nin()
    }
    #[getter]
    fn nout(&self) -> usize {
        1
    }
    #[getter]
    fn nargs(&self) -> usize {
        self.op.nin() + 1
    }
    /// The loops gpupy has, in NumPy's type-character notation (`'ff->f'`).
    #[getter]
    fn types(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        let loops: Vec<(DType, DType)> = match self.op {
            Op::Binary(o) => o.inputs().map(|d| (d, o.output(d).unwrap_or(d))).collect(),
            Op::Unary(o) => o.inputs().map(|d| (d, o.output(d).unwrap_or(d))).collect(),
        };
        loops
            .into_iter()
            .map(|(i, o)| {
                let c = |d: DType| -> PyResult<String> {
                    numpy_dtype(py, d)?.getattr("char")?.extract()
                };
                Ok(format!("{}->{}", c(i)?.repeat(self.op.nin()), c(o)?))
            })
            .collect()
    }
    fn __repr__(&self) -> String {
        format!("<ufunc '{}'>", self.op.name())
    }

    /// NumPy's ufunc methods, written over gpupy's reductions, scans and scatters in
    /// `gpupy._ufunc_methods`.
    #[pyo3(signature = (*args, **kwargs))]
    fn reduce<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ufunc_method(slf, "reduce", prepend(slf, args)?, kwargs)
    }
    #[pyo3(signature = (*args, **kwargs))]
    fn accumulate<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ufunc_method(slf, "accumulate", prepend(slf, args)?, kwargs)
    }
    #[pyo3(signature = (*args, **kwargs))]
    fn outer<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ufunc_method(slf, "outer", prepend(slf, args)?, kwargs)
    }
    #[pyo3(signature = (*args, **kwargs))]
    fn at<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ufunc_method(slf, "at", prepend(slf, args)?, kwargs)
    }
    #[pyo3(signature = (*args, **kwargs))]
    fn reduceat<'py>(
        slf: &Bound<'py, Self>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ufunc_method(slf, "reduceat", prepend(slf, args)?, kwargs)
    }
}

/// `(ufunc, *args)`: the positional arguments of a `gpupy._ufunc_methods` function.
fn prepend<'py>(
    slf: &Bound<'py, Ufunc>,
    args: &Bound<'py, PyTuple>,
) -> PyResult<Bound<'py, PyTuple>> {
    let items: Vec<Bound<'py, PyAny>> = std::iter::once(slf.clone().into_any())
        .chain(args.iter())
        .collect();
    PyTuple::new(slf.py(), items)
}

/// Calls `gpupy._ufunc_methods.<name>(*args, **kwargs)`.
fn ufunc_method<'py>(
    slf: &Bound<'py, Ufunc>,
    name: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let module = slf.py().import("gpupy._ufunc_methods")?;
    module.getattr(name)?.call(args, kwargs)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Ufunc>()?;
    for &op in BinaryOp::ALL {
        m.add(op.name(), Ufunc { op: Op::Binary(op) })?;
    }
    for &op in UnaryOp::ALL {
        m.add(op.name(), Ufunc { op: Op::Unary(op) })?;
    }
    // The names in the op table's order, for the Python package's namespace (so no
    // Python-side copy of the table can drift from it).
    let names: Vec<&str> = (BinaryOp::ALL.iter().map(|op| op.name()))
        .chain(UnaryOp::ALL.iter().map(|op| op.name()))
        .collect();
    m.add("UFUNC_NAMES", pyo3::types::PyTuple::new(m.py(), names)?)?;
    Ok(())
}
