//! Python's arithmetic operators on `gpupy.ndarray` (`+ - * /`, reflected and in place),
//! stamped per op. Each returns NotImplemented for operands gpupy does not take, so
//! Python can ask the other operand.
// pyo3's generated wrappers trip edition 2024's unsafe-op lint when they come from a
// macro_rules expansion; the lint is about pyo3's code, not ours.
#![allow(unsafe_op_in_unsafe_fn)]

use gpupy_host::module::BinaryOp;
use pyo3::prelude::*;

use crate::math;
use crate::ndarray::NdArray;

/// Operator bodies: NotImplemented when the other operand is not ours.
macro_rules! operators {
    ($($fwd:ident, $refl:ident, $inplace:ident => $Op:ident;)*) => {
        #[pymethods]
        impl NdArray { $(
            fn $fwd(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                Ok(match math::binary_operator(py, BinaryOp::$Op, slf.as_any(), other)? {
                    Some(r) => r.into_any(),
                    None => py.NotImplemented(),
                })
            }
            fn $refl(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let py = slf.py();
                Ok(match math::binary_operator(py, BinaryOp::$Op, other, slf.as_any())? {
                    Some(r) => r.into_any(),
                    None => py.NotImplemented(),
                })
            }
            /// In place: writes into this array's memory.
            fn $inplace(&self, other: &Bound<'_, PyAny>) -> PyResult<()> {
                math::inplace_operator(BinaryOp::$Op, self, other)
            }
        )* }
    };
}

operators! {
    __add__, __radd__, __iadd__ => Add;
    __sub__, __rsub__, __isub__ => Subtract;
    __mul__, __rmul__, __imul__ => Multiply;
    __truediv__, __rtruediv__, __itruediv__ => Divide;
}
