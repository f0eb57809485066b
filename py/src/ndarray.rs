//! `gpupy.ndarray`: the array class and its basic attributes. It wraps a host `Array`
//! (immutable handle; the device memory it points to is what changes), so the class is
//! `frozen` and needs no borrow flag on the hot path of `a + b`. Its other methods live
//! with what they do: operators in `operators.rs`, indexing in `indexing.rs`, matrix
//! products in `matmul.rs`, the rest in `ndarray_methods.rs`.

use gpupy_host::Array;
use gpupy_host::ops::elementwise::copy;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::{from_numpy, numpy_dtype, prepare_host, to_dtype, to_numpy};
use crate::errors::OrRaise;

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

    /// A NumPy copy of the array (CuPy's `get`), or the copy written into the NumPy
    /// array `out` (C-contiguous, of the array's shape and dtype; pinned memory copies
    /// fastest). It runs on `stream` (the current stream when None) after the work
    /// queued there, and returns when the values are on the host, except with
    /// `blocking=False` into a pinned `out`: then the copy is only queued (synchronize
    /// the stream before reading `out`), as in CuPy.
    #[pyo3(signature = (stream = None, order = "C", out = None, blocking = true))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'_, PyAny>>,
        order: &str,
        out: Option<&Bound<'py, PyAny>>,
        blocking: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        if order != "C" {
            return Err(PyValueError::new_err(
                "gpupy's get supports order='C' so far",
            ));
        }
        crate::stream::on_stream(stream, || match out {
            None => to_numpy(py, &self.inner),
            Some(out) => {
                crate::convert::to_numpy_into(py, &self.inner, out, blocking)?;
                Ok(out.clone())
            }
        })
    }

    /// Copies a NumPy array of the same shape into this array (CuPy's `set`), on
    /// `stream` (the current stream when None). With a `stream`, a pinned C-contiguous
    /// array of the same dtype is only queued (as in CuPy); otherwise the copy is
    /// complete on return.
    #[pyo3(signature = (arr, stream = None))]
    fn set(
        &self,
        py: Python<'_>,
        arr: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let queued = stream.is_some_and(|s| !s.is_none());
        crate::stream::on_stream(stream, || {
            if queued && crate::convert::queue_from_pinned(&self.inner, arr)? {
                return Ok(());
            }
            self.set_now(py, arr)
        })
    }
}

impl NdArray {
    fn set_now(&self, py: Python<'_>, arr: &Bound<'_, PyAny>) -> PyResult<()> {
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
}

#[pymethods]
impl NdArray {
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
    /// NEP 13: NumPy's ufuncs (`np.sin(g)`, `np_array + g`) run on the GPU and give
    /// gpupy arrays; the mapping to gpupy's ufuncs is `gpupy._protocols.array_ufunc`.
    #[pyo3(signature = (ufunc, method, *inputs, **kwargs))]
    fn __array_ufunc__(
        slf: &Bound<'_, Self>,
        ufunc: &Bound<'_, PyAny>,
        method: &Bound<'_, PyAny>,
        inputs: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let kwargs = kwargs.cloned().unwrap_or_else(|| PyDict::new(py));
        let protocols = py.import("gpupy._protocols")?;
        let r = protocols.call_method1("array_ufunc", (slf, ufunc, method, inputs, kwargs))?;
        Ok(r.unbind())
    }
    /// NEP 18: NumPy's functions (`np.concatenate([g, g])`, `np.asarray(x, like=g)`) call
    /// gpupy's of the same name (`gpupy._protocols.array_function`).
    fn __array_function__(
        slf: &Bound<'_, Self>,
        func: &Bound<'_, PyAny>,
        types: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        kwargs: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let protocols = slf.py().import("gpupy._protocols")?;
        let r = protocols.call_method1("array_function", (slf, func, types, args, kwargs))?;
        Ok(r.unbind())
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NdArray>()
}
