//! `gpupy.ndarray`: the array class. It wraps a host `Array` (immutable handle; the
//! device memory it points to is what changes), so the class is `frozen` and needs no
//! borrow flag on the hot path of `a + b`.

use gpupy_host::Array;
use gpupy_host::ops::elementwise::{copy, fill};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::convert::{from_numpy, numpy_dtype, to_dtype, to_numpy};
use crate::errors::OrRaise;
use crate::{indexing, math};

#[pyclass(name = "ndarray", module = "gpupy", frozen, weakref)]
pub struct NdArray {
    pub(crate) inner: Array,
}

impl NdArray {
    pub fn wrap(py: Python<'_>, inner: Array) -> PyResult<Py<NdArray>> {
        Py::new(py, NdArray { inner })
    }
}

#[pymethods]
impl NdArray {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }
    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy_dtype(py, self.inner.dtype())
    }
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.ndim()
    }
    #[getter]
    fn size(&self) -> usize {
        self.inner.size()
    }
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.nbytes()
    }
    #[getter]
    fn itemsize(&self) -> usize {
        self.inner.dtype().itemsize()
    }
    /// Byte strides, as NumPy's.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.strides_bytes())
    }
    #[getter(T)]
    fn transposed(&self, py: Python<'_>) -> PyResult<Py<NdArray>> {
        NdArray::wrap(py, self.inner.transpose(None).or_raise()?)
    }
    /// `a.transpose()`, `a.transpose(1, 0)` or `a.transpose((1, 0))`.
    #[pyo3(signature = (*axes))]
    fn transpose(&self, py: Python<'_>, axes: &Bound<'_, PyTuple>) -> PyResult<Py<NdArray>> {
        let axes: Option<Vec<isize>> = match axes.len() {
            0 => None,
            1 if !axes.get_item(0)?.is_instance_of::<pyo3::types::PyInt>() => {
                let a = axes.get_item(0)?;
                if a.is_none() {
                    None
                } else {
                    Some(a.extract()?)
                }
            }
            _ => Some(axes.extract()?),
        };
        NdArray::wrap(py, self.inner.transpose(axes.as_deref()).or_raise()?)
    }

    /// A NumPy copy of the array (CuPy's `get`); waits for the work that produces it.
    #[pyo3(signature = (stream = None, order = "C", out = None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'_, PyAny>>,
        order: &str,
        out: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = stream;
        if order != "C" || out.is_some() {
            return Err(PyValueError::new_err(
                "gpupy's get supports order='C' and out=None so far",
            ));
        }
        to_numpy(py, &self.inner)
    }

    /// Copies a NumPy array of the same shape into this array (CuPy's `set`).
    fn set(&self, py: Python<'_>, arr: &Bound<'_, PyAny>) -> PyResult<()> {
        let host = prepare_host(py, arr, Some(self.inner.dtype()))?;
        let src = from_numpy(py, &host)?;
        if src.shape() != self.inner.shape() {
            return Err(PyValueError::new_err(format!(
                "Shape mismatch. Old shape: {:?}, new shape: {:?}",
                self.inner.shape(),
                src.shape()
            )));
        }
        copy::copy_into(&src, &self.inner).or_raise()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(to_numpy(py, &self.inner)?.repr()?.to_string())
    }
    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(to_numpy(py, &self.inner)?.str()?.to_string())
    }
    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of unsized object"))
    }
    /// Implicit conversion would hide a device-to-host copy: refuse it, as CuPy does.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__(
        &self,
        dtype: Option<&Bound<'_, PyAny>>,
        copy: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = (dtype, copy);
        Err(PyTypeError::new_err(
            "Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a NumPy array explicitly.",
        ))
    }
    /// NumPy defers its operators to gpupy arrays (`np_array + gp_array` asks gpupy).
    #[classattr]
    fn __array_ufunc__(py: Python<'_>) -> Py<PyAny> {
        py.None()
    }

    fn __float__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(to_numpy(py, &self.inner)?
            .call_method0("__float__")?
            .unbind())
    }
    fn __int__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(to_numpy(py, &self.inner)?.call_method0("__int__")?.unbind())
    }
    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        to_numpy(py, &self.inner)?.is_truthy()
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<NdArray>> {
        match indexing::parse_key(py, key)? {
            indexing::Key::Basic(idx) => NdArray::wrap(py, self.inner.index(&idx).or_raise()?),
            indexing::Key::Advanced(items) => indexing::getitem(py, &self.inner, &items),
        }
    }

    /// `a[key] = value` for a gpupy array, a NumPy array or a scalar value.
    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let idx = match indexing::parse_key(py, key)? {
            indexing::Key::Basic(idx) => idx,
            indexing::Key::Advanced(items) => {
                return indexing::setitem(py, &self.inner, &items, value);
            }
        };
        let dst = self.inner.index(&idx).or_raise()?;
        let src = match value.cast::<NdArray>() {
            Ok(v) => v.get().inner.clone(),
            Err(_) => {
                let host = prepare_host(py, value, Some(dst.dtype()))?;
                if host.getattr("ndim")?.extract::<usize>()? == 0 {
                    let bytes: Vec<u8> = host.call_method0("tobytes")?.extract()?;
                    let tmp = fill::full(dst.device(), &[], dst.dtype(), &bytes).or_raise()?;
                    return copy::copy_into(&tmp, &dst).or_raise();
                }
                from_numpy(py, &host)?
            }
        };
        let src = if src.dtype() == dst.dtype() {
            src
        } else {
            copy::astype(&src, dst.dtype()).or_raise()?
        };
        copy::copy_into(&src, &dst).or_raise()
    }

    fn __matmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        Ok(math::matmul_operator(py, slf.as_any(), other)?
            .map_or_else(|| py.NotImplemented(), Py::into_any))
    }
    fn __rmatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        Ok(math::matmul_operator(py, other, slf.as_any())?
            .map_or_else(|| py.NotImplemented(), Py::into_any))
    }
    /// `a @= b`: NumPy's `matmul(a, b, out=a)` (the product must have `a`'s shape and
    /// cast to its dtype under `same_kind`).
    fn __imatmul__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<()> {
        let Ok(b) = other.cast::<NdArray>() else {
            return Err(PyTypeError::new_err(
                "matmul needs gpupy arrays on both sides",
            ));
        };
        let dst = &slf.get().inner;
        gpupy_host::ops::matmul::matmul_out(dst, &b.get().inner, Some(dst)).or_raise()?;
        Ok(())
    }

    /// `a.add(b)`: the same as `a + b`.
    fn add(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let r = crate::ufunc::operator(
            py,
            crate::ufunc::Op::Binary(gpupy_host::table::BinaryOp::Add),
            &[slf.as_any(), other],
        )?;
        r.map(Py::into_any)
            .ok_or_else(|| PyTypeError::new_err("Unsupported operand for add"))
    }
    /// `a.mul(b)`: the same as `a * b`.
    fn mul(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let r = crate::ufunc::operator(
            py,
            crate::ufunc::Op::Binary(gpupy_host::table::BinaryOp::Multiply),
            &[slf.as_any(), other],
        )?;
        r.map(Py::into_any)
            .ok_or_else(|| PyTypeError::new_err("Unsupported operand for mul"))
    }
    #[pyo3(signature = (b, out = None))]
    fn dot(
        slf: &Bound<'_, Self>,
        b: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, NdArray>>,
    ) -> PyResult<Py<NdArray>> {
        math::dot(slf.py(), slf.as_any(), b, out)
    }
    #[pyo3(signature = (dtype, copy = true))]
    fn astype(
        slf: &Bound<'_, Self>,
        dtype: &Bound<'_, PyAny>,
        copy: bool,
    ) -> PyResult<Py<NdArray>> {
        let py = slf.py();
        let d = to_dtype(py, dtype)?;
        let a = &slf.get().inner;
        if !copy && d == a.dtype() {
            return Ok(slf.clone().unbind());
        }
        NdArray::wrap(py, copy::astype(a, d).or_raise()?)
    }
    fn copy(&self, py: Python<'_>) -> PyResult<Py<NdArray>> {
        NdArray::wrap(
            py,
            copy::astype(&self.inner, self.inner.dtype()).or_raise()?,
        )
    }
}

/// A C-contiguous, native-byte-order NumPy array of `value` (of `dtype` when given).
pub fn prepare_host<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    dtype: Option<gpupy_host::DType>,
) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let dt = match dtype {
        Some(d) => numpy_dtype(py, d)?,
        None => py.None().into_bound(py),
    };
    // order="C" copies non-contiguous input and, unlike ascontiguousarray, keeps 0-d
    // arrays 0-d.
    let kwargs = pyo3::types::PyDict::new(py);
    kwargs.set_item("order", "C")?;
    let arr = np.getattr("asarray")?.call((value, dt), Some(&kwargs))?;
    if arr.getattr("dtype")?.getattr("isnative")?.is_truthy()? {
        Ok(arr)
    } else {
        let native = arr.getattr("dtype")?.call_method1("newbyteorder", ("=",))?;
        arr.call_method1("astype", (native,))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NdArray>()
}
