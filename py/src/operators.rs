//! Python's operators on `gpupy.ndarray`, each the ufunc NumPy maps it to: arithmetic,
//! bitwise and comparison operators, reflected and in place, and the unary ones. Each
//! returns NotImplemented for operands gpupy does not take, so Python can ask the other
//! operand.
// pyo3's generated wrappers trip edition 2024's unsafe-op lint when they come from a
// macro_rules expansion; the lint is about pyo3's code, not ours.
#![allow(unsafe_op_in_unsafe_fn)]

use gpupy_host::table::{BinaryOp, UnaryOp};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::ndarray::NdArray;
use crate::ufunc::{Op, inplace, operator};

fn or_not_implemented(py: Python<'_>, r: Option<Py<NdArray>>) -> Py<PyAny> {
    r.map_or_else(|| py.NotImplemented(), Py::into_any)
}

macro_rules! binary_operators {
    ($($fwd:ident, $refl:ident, $inplace:ident => $Op:ident;)*) => {
        #[pymethods]
        impl NdArray { $(
            fn $fwd(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                Ok(or_not_implemented(py, operator(py, Op::Binary(BinaryOp::$Op), &[slf.as_any(), other])?))
            }
            fn $refl(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                Ok(or_not_implemented(py, operator(py, Op::Binary(BinaryOp::$Op), &[other, slf.as_any()])?))
            }
            /// In place: writes into this array's memory (NumPy's same_kind casting).
            fn $inplace(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
                inplace(slf.py(), Op::Binary(BinaryOp::$Op), slf, other)
            }
        )* }
    };
}

binary_operators! {
    __add__, __radd__, __iadd__ => Add;
    __sub__, __rsub__, __isub__ => Subtract;
    __mul__, __rmul__, __imul__ => Multiply;
    __truediv__, __rtruediv__, __itruediv__ => Divide;
    __floordiv__, __rfloordiv__, __ifloordiv__ => FloorDivide;
    __mod__, __rmod__, __imod__ => Remainder;
    __and__, __rand__, __iand__ => BitwiseAnd;
    __or__, __ror__, __ior__ => BitwiseOr;
    __xor__, __rxor__, __ixor__ => BitwiseXor;
    __lshift__, __rlshift__, __ilshift__ => LeftShift;
    __rshift__, __rrshift__, __irshift__ => RightShift;
}

macro_rules! comparisons {
    ($($name:ident => $Op:ident;)*) => {
        #[pymethods]
        impl NdArray { $(
            fn $name(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                Ok(or_not_implemented(py, operator(py, Op::Binary(BinaryOp::$Op), &[slf.as_any(), other])?))
            }
        )* }
    };
}

comparisons! {
    __eq__ => Equal;
    __ne__ => NotEqual;
    __lt__ => Less;
    __le__ => LessEqual;
    __gt__ => Greater;
    __ge__ => GreaterEqual;
}

macro_rules! unary_operators {
    ($($name:ident => $Op:ident;)*) => {
        #[pymethods]
        impl NdArray { $(
            fn $name(slf: &Bound<'_, Self>) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                Ok(or_not_implemented(py, operator(py, Op::Unary(UnaryOp::$Op), &[slf.as_any()])?))
            }
        )* }
    };
}

unary_operators! {
    __neg__ => Negative;
    __pos__ => Positive;
    __abs__ => Absolute;
    __invert__ => Invert;
}

/// `a ** b` and `divmod(a, b)` with the operands in the given order.
fn power(
    slf: &Bound<'_, NdArray>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    modulo: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let py = slf.py();
    if modulo.is_some_and(|m| !m.is_none()) {
        return Ok(py.NotImplemented());
    }
    Ok(or_not_implemented(
        py,
        operator(py, Op::Binary(BinaryOp::Power), &[a, b])?,
    ))
}

fn divmod(py: Python<'_>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let q = operator(py, Op::Binary(BinaryOp::FloorDivide), &[a, b])?;
    let r = operator(py, Op::Binary(BinaryOp::Remainder), &[a, b])?;
    Ok(match (q, r) {
        (Some(q), Some(r)) => (q, r).into_pyobject(py)?.into_any().unbind(),
        _ => py.NotImplemented(),
    })
}

#[pymethods]
impl NdArray {
    fn __pow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        power(slf, slf.as_any(), other, modulo)
    }
    fn __rpow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        power(slf, other, slf.as_any(), modulo)
    }
    fn __ipow__(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        inplace(slf.py(), Op::Binary(BinaryOp::Power), slf, other)
    }
    fn __divmod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        divmod(slf.py(), slf.as_any(), other)
    }
    fn __rdivmod__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        divmod(slf.py(), other, slf.as_any())
    }
}

/// `a.add(b)`, `a.mul(b)`.
#[pymethods]
impl NdArray {
    /// `a.add(b)`: the same as `a + b`.
    fn add(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let r = operator(py, Op::Binary(BinaryOp::Add), &[slf.as_any(), other])?;
        r.map(Py::into_any)
            .ok_or_else(|| PyTypeError::new_err("Unsupported operand for add"))
    }
    /// `a.mul(b)`: the same as `a * b`.
    fn mul(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let r = operator(py, Op::Binary(BinaryOp::Multiply), &[slf.as_any(), other])?;
        r.map(Py::into_any)
            .ok_or_else(|| PyTypeError::new_err("Unsupported operand for mul"))
    }
}
