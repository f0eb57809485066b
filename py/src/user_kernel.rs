//! Users' own kernels (`gpupy.RawModule`, `RawKernel` and the generated
//! `ElementwiseKernel`/`ReductionKernel`): NVRTC compilation, module loading and the
//! launch. Argument conversion and source generation are in `gpupy/_userkernel/`.

use std::sync::{Arc, Mutex};

use gpupy_host::launch::launch_user;
use gpupy_host::user_module::{UserFunction, UserModule};
use gpupy_host::{device, nvrtc};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// Compiles CUDA C through NVRTC, loaded from the first of `libraries` that opens.
/// Returns (image or None when the source did not compile, NVRTC's log, the lowered
/// name of each name expression).
#[pyfunction]
#[pyo3(signature = (libraries, source, name, options, name_expressions, want_cubin))]
#[allow(clippy::type_complexity)]
fn nvrtc_compile<'py>(
    py: Python<'py>,
    libraries: Vec<String>,
    source: &str,
    name: &str,
    options: Vec<String>,
    name_expressions: Vec<String>,
    want_cubin: bool,
) -> PyResult<(Option<Bound<'py, PyBytes>>, String, Vec<(String, String)>)> {
    let c = py
        .detach(|| {
            nvrtc::compile(
                &libraries,
                source,
                name,
                &options,
                &name_expressions,
                want_cubin,
            )
        })
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let image = c.image.map(|i| PyBytes::new(py, &i));
    Ok((image, c.log, c.lowered))
}

/// NVRTC's (major, minor) version and the library's path.
#[pyfunction]
fn nvrtc_version(libraries: Vec<String>) -> PyResult<(i32, i32, String)> {
    nvrtc::version(&libraries).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A loaded user module.
#[pyclass(name = "_UserModule", module = "gpupy._gpupy", frozen)]
struct PyUserModule {
    inner: Arc<UserModule>,
}

#[pymethods]
impl PyUserModule {
    /// Loads a PTX, cubin or fatbin image into the current device.
    #[new]
    fn new(py: Python<'_>, image: &[u8]) -> PyResult<Self> {
        let dev = device::current().or_raise()?;
        let inner = py.detach(|| UserModule::load(dev, image)).or_raise()?;
        Ok(PyUserModule { inner })
    }

    fn get_function(&self, name: &str) -> PyResult<PyUserFunction> {
        let f = self.inner.function(name).or_raise()?;
        Ok(PyUserFunction {
            inner: Mutex::new(f),
        })
    }

    /// (device address, bytes) of a `__device__` variable.
    fn get_global(&self, name: &str) -> PyResult<(u64, usize)> {
        self.inner.global(name).or_raise()
    }

    #[getter]
    fn device_id(&self) -> usize {
        self.inner.device().id
    }
}

/// A kernel of a user module, ready to launch.
#[pyclass(name = "_UserFunction", module = "gpupy._gpupy", frozen)]
struct PyUserFunction {
    /// Locked only to change an attribute; a launch reads it.
    inner: Mutex<UserFunction>,
}

/// A grid or block: an int or a tuple of one to three ints.
fn dims(what: &str, v: &Bound<'_, PyAny>) -> PyResult<(u32, u32, u32)> {
    let t: Vec<i64> = match v.extract::<i64>() {
        Ok(n) => vec![n],
        Err(_) => v.extract().map_err(|_| {
            PyTypeError::new_err(format!("{what} must be an int or a tuple of up to 3 ints"))
        })?,
    };
    if t.is_empty() || t.len() > 3 {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int or a tuple of 1 to 3 ints, not {} of them",
            t.len()
        )));
    }
    let get = |i: usize| -> PyResult<u32> {
        let n = t.get(i).copied().unwrap_or(1);
        u32::try_from(n).map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "{what} {v} has a dimension outside 0 to 4294967295"
            ))
        })
    };
    Ok((get(0)?, get(1)?, get(2)?))
}

#[pymethods]
impl PyUserFunction {
    /// Launches with `args`: gpupy arrays (their device address) or `bytes` (a
    /// parameter's value, already converted by `gpupy/_userkernel/_args.py`).
    #[pyo3(signature = (grid, block, args, shared_mem=0, stream=None))]
    fn launch(
        &self,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyTuple>,
        shared_mem: u32,
        stream: Option<usize>,
    ) -> PyResult<()> {
        let (g, b) = (dims("grid", grid)?, dims("block", block)?);
        let f = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let dev = f.device();
        let mut pointers: Vec<[u8; 8]> = Vec::with_capacity(args.len());
        let mut owned: Vec<Bound<'_, PyBytes>> = Vec::new();
        // Whether each argument is a pointer (index into `pointers`) or bytes.
        let mut order: Vec<(bool, usize)> = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            if let Ok(arr) = a.cast::<NdArray>() {
                let arr = arr.get();
                if arr.inner.device().id != dev.id {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "argument {i} of {}() is on device {}, the kernel on device {}",
                        f.name,
                        arr.inner.device().id,
                        dev.id
                    )));
                }
                let p = if arr.inner.size() == 0 {
                    0
                } else {
                    arr.inner.data_ptr()
                };
                order.push((true, pointers.len()));
                pointers.push(p.to_le_bytes());
            } else if let Ok(bytes) = a.cast::<PyBytes>() {
                order.push((false, owned.len()));
                owned.push(bytes.clone());
            } else {
                return Err(PyTypeError::new_err(format!(
                    "argument {i} of {}(): unsupported type {}",
                    f.name,
                    a.get_type().name()?
                )));
            }
        }
        let raw: Vec<&[u8]> = order
            .iter()
            .map(|&(ptr, k)| {
                if ptr {
                    &pointers[k][..]
                } else {
                    owned[k].as_bytes()
                }
            })
            .collect();
        launch_user(&f, g, b, shared_mem, stream, &raw).or_raise()
    }

    /// Each parameter's size in bytes, as compiled.
    #[getter]
    fn param_sizes(&self) -> Vec<usize> {
        self.inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .param_sizes
            .clone()
    }

    fn get_attribute(&self, attr: i32) -> PyResult<i32> {
        let f = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f.attribute(attr).or_raise()
    }

    fn set_attribute(&self, attr: i32, value: i32) -> PyResult<()> {
        let mut f = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f.set_attribute(attr, value).or_raise()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nvrtc_compile, m)?)?;
    m.add_function(wrap_pyfunction!(nvrtc_version, m)?)?;
    m.add_class::<PyUserModule>()?;
    m.add_class::<PyUserFunction>()?;
    Ok(())
}
