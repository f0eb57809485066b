//! The Python array API standard's hooks on `gpupy.ndarray` (the namespace itself is
//! `gpupy`, as NumPy 2's is `numpy`).
#![allow(unsafe_op_in_unsafe_fn)] // pyo3's generated code under edition 2024

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::ndarray::NdArray;

#[pymethods]
impl NdArray {
    /// The array's namespace: the `gpupy` module.
    #[pyo3(signature = (*, api_version = None))]
    fn __array_namespace__(
        &self,
        py: Python<'_>,
        api_version: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        if let Some(v) = api_version
            && !matches!(v, "2021.12" | "2022.12" | "2023.12" | "2024.12")
        {
            return Err(PyValueError::new_err(format!(
                "gpupy does not implement array API version {v}"
            )));
        }
        Ok(py.import("gpupy")?.into_any().unbind())
    }

    /// The array on `device`: itself when it is already there (gpupy moves data between
    /// GPUs only through the host so far, which this refuses to do implicitly).
    #[pyo3(signature = (device, /, *, stream = None))]
    fn to_device(
        slf: &Bound<'_, Self>,
        device: &Bound<'_, PyAny>,
        stream: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<NdArray>> {
        let _ = stream;
        let id: usize = match device.getattr("id") {
            Ok(i) => i.extract()?,
            Err(_) => device.extract()?,
        };
        if id != slf.get().inner.device().id {
            return Err(PyValueError::new_err(format!(
                "the array is on device {}; copying between GPUs is not supported yet (go through the host: gpupy.asarray(x.get()) under `with gpupy.cuda.Device({id})`)",
                slf.get().inner.device().id
            )));
        }
        Ok(slf.clone().unbind())
    }
}
