//! Ufunc-style functions and operators, reductions and matrix products. Operators return
//! `NotImplemented` for operands they don't know, so Python can try the other side;
//! functions raise TypeError instead.

use gpupy_host::Array;
use gpupy_host::module::BinaryOp;
use gpupy_host::ops::elementwise::{Operand, binary};
use gpupy_host::ops::{copy, matmul as mm, reduce};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// An operand as the host takes it, borrowed from its Python object.
enum Arg<'a> {
    Array(&'a Array),
    Scalar(f64),
}

impl<'a> Arg<'a> {
    /// `None` for types gpupy does not take as operands.
    fn from_py(x: &'a Bound<'_, PyAny>) -> PyResult<Option<Arg<'a>>> {
        if let Ok(a) = x.cast::<NdArray>() {
            return Ok(Some(Arg::Array(&a.get().inner)));
        }
        // Python bool, int and float (NumPy's float64 scalar is a float subclass).
        if x.is_instance_of::<PyFloat>() || x.is_instance_of::<PyInt>() {
            return Ok(Some(Arg::Scalar(x.extract::<f64>()?)));
        }
        Ok(None)
    }

    fn operand(&self) -> Operand<'_> {
        match self {
            Arg::Array(a) => Operand::Array(a),
            Arg::Scalar(v) => Operand::Scalar(*v),
        }
    }
}

pub fn unsupported(x: &Bound<'_, PyAny>) -> PyErr {
    let ty = x
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into());
    let hint = if ty == "ndarray" {
        " (a NumPy array: move it to the GPU with gpupy.asarray first)"
    } else {
        ""
    };
    PyTypeError::new_err(format!("Unsupported type {ty}{hint}"))
}

/// `op(a, b)` for an operator: `Ok(None)` means NotImplemented.
pub fn binary_operator(
    py: Python<'_>,
    op: BinaryOp,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<NdArray>>> {
    let (Some(x), Some(y)) = (Arg::from_py(a)?, Arg::from_py(b)?) else {
        return Ok(None);
    };
    let r = binary(op, x.operand(), y.operand(), None).or_raise()?;
    Ok(Some(NdArray::wrap(py, r)?))
}

/// `a op= b`: writes into `a`'s memory.
pub fn inplace_operator(op: BinaryOp, a: &NdArray, b: &Bound<'_, PyAny>) -> PyResult<()> {
    let y = Arg::from_py(b)?.ok_or_else(|| unsupported(b))?;
    binary(op, Operand::Array(&a.inner), y.operand(), Some(&a.inner)).or_raise()?;
    Ok(())
}

fn ufunc(
    py: Python<'_>,
    op: BinaryOp,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let x = Arg::from_py(x1)?.ok_or_else(|| unsupported(x1))?;
    let y = Arg::from_py(x2)?.ok_or_else(|| unsupported(x2))?;
    match out {
        Some(o) => {
            binary(op, x.operand(), y.operand(), Some(&o.get().inner)).or_raise()?;
            Ok(o.clone().unbind())
        }
        None => NdArray::wrap(py, binary(op, x.operand(), y.operand(), None).or_raise()?),
    }
}

macro_rules! ufunc_functions {
    ($($name:ident => $Op:ident),* $(,)?) => { $(
        /// NumPy's ufunc of the same name, for gpupy arrays and Python scalars.
        #[pyfunction]
        #[pyo3(signature = (x1, x2, /, out = None))]
        pub fn $name(py: Python<'_>, x1: &Bound<'_, PyAny>, x2: &Bound<'_, PyAny>, out: Option<&Bound<'_, NdArray>>) -> PyResult<Py<NdArray>> {
            ufunc(py, BinaryOp::$Op, x1, x2, out)
        }
    )* };
}

ufunc_functions! { add => Add, subtract => Subtract, multiply => Multiply, divide => Divide }

fn array_arg<'a>(x: &'a Bound<'_, PyAny>) -> PyResult<&'a Array> {
    match Arg::from_py(x)? {
        Some(Arg::Array(a)) => Ok(a),
        _ => Err(unsupported(x)),
    }
}

/// Writes `r` into `out` when given (NumPy's `out=`), else wraps it.
fn into_out(py: Python<'_>, r: Array, out: Option<&Bound<'_, NdArray>>) -> PyResult<Py<NdArray>> {
    match out {
        None => NdArray::wrap(py, r),
        Some(o) => {
            let dst = &o.get().inner;
            let r = if r.dtype() == dst.dtype() {
                r
            } else {
                copy::astype(&r, dst.dtype()).or_raise()?
            };
            if r.shape() != dst.shape() {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "output array has shape {:?}, the result has shape {:?}",
                    dst.shape(),
                    r.shape()
                )));
            }
            copy::copy_into(&r, dst).or_raise()?;
            Ok(o.clone().unbind())
        }
    }
}

/// NumPy's `sum` over the whole array (`axis=None`); axes come with the reductions work.
#[pyfunction]
#[pyo3(signature = (a, axis = None, dtype = None, out = None, keepdims = false))]
pub fn sum(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, NdArray>>,
    keepdims: bool,
) -> PyResult<Py<NdArray>> {
    let a = array_arg(a)?;
    if axis.is_some_and(|x| !x.is_none()) {
        return Err(PyNotImplementedError::new_err(
            "gpupy.sum supports axis=None (the whole array) so far",
        ));
    }
    let src = match dtype {
        Some(d) if !d.is_none() => copy::astype(a, crate::convert::to_dtype(py, d)?).or_raise()?,
        _ => a.clone(),
    };
    let mut r = reduce::sum(&src).or_raise()?;
    if keepdims {
        let shape = vec![1; a.ndim()];
        r = r
            .view(gpupy_host::layout::Layout::contiguous(&shape), r.dtype())
            .or_raise()?;
    }
    into_out(py, r, out)
}

/// NumPy's `matmul` (the `@` operator).
#[pyfunction]
#[pyo3(signature = (x1, x2, /, out = None))]
pub fn matmul(
    py: Python<'_>,
    x1: &Bound<'_, PyAny>,
    x2: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let r = mm::matmul(array_arg(x1)?, array_arg(x2)?).or_raise()?;
    into_out(py, r, out)
}

/// NumPy's `dot` for arrays of up to two dimensions.
#[pyfunction]
#[pyo3(signature = (a, b, out = None))]
pub fn dot(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    out: Option<&Bound<'_, NdArray>>,
) -> PyResult<Py<NdArray>> {
    let r = mm::dot(array_arg(a)?, array_arg(b)?).or_raise()?;
    into_out(py, r, out)
}

/// `a @ b` as an operator: `Ok(None)` means NotImplemented.
pub fn matmul_operator(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
) -> PyResult<Option<Py<NdArray>>> {
    match (Arg::from_py(a)?, Arg::from_py(b)?) {
        (Some(Arg::Array(x)), Some(Arg::Array(y))) => {
            Ok(Some(NdArray::wrap(py, mm::matmul(x, y).or_raise()?)?))
        }
        // NumPy: matmul takes no scalars.
        (Some(_), Some(_)) => Err(pyo3::exceptions::PyValueError::new_err(
            "matmul: Input operand does not have enough dimensions (a scalar has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)",
        )),
        _ => Ok(None),
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(add, m)?)?;
    m.add_function(wrap_pyfunction!(subtract, m)?)?;
    m.add_function(wrap_pyfunction!(multiply, m)?)?;
    m.add_function(wrap_pyfunction!(divide, m)?)?;
    m.add_function(wrap_pyfunction!(sum, m)?)?;
    m.add_function(wrap_pyfunction!(matmul, m)?)?;
    m.add_function(wrap_pyfunction!(dot, m)?)?;
    Ok(())
}
