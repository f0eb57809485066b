//! Users' own kernels (`gpupy.RawModule`, `RawKernel` and the generated
//! `ElementwiseKernel`/`ReductionKernel`): NVRTC compilation, module loading and the
//! launch. Argument conversion and source generation are in `gpupy/_userkernel/`.

use std::sync::{Arc, Mutex};

use gpupy_host::launch::launch_user;
use gpupy_host::user_module::{UserFunction, UserModule};
use gpupy_host::{Array, DType, device, nvrtc};
use pyo3::exceptions::{PyOverflowError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyComplex, PyFloat, PyInt, PyTuple, PyType};

use crate::convert::to_dtype;
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

/// `numpy.generic`, the type of NumPy's scalars (looked up once).
fn numpy_generic(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static GENERIC: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    GENERIC.import(py, "numpy", "generic")
}

/// NumPy's scalar types whose bytes Rust writes itself (looked up once): a kernel
/// argument such as `numpy.int32(n)` then costs no call into NumPy.
fn numpy_scalar_types(py: Python<'_>) -> PyResult<&Vec<(Py<PyType>, DType)>> {
    static TYPES: PyOnceLock<Vec<(Py<PyType>, DType)>> = PyOnceLock::new();
    TYPES.get_or_try_init(py, || {
        let np = py.import("numpy")?;
        let names = [
            ("bool_", DType::Bool),
            ("int8", DType::Int8),
            ("int16", DType::Int16),
            ("int32", DType::Int32),
            ("int64", DType::Int64),
            ("uint8", DType::UInt8),
            ("uint16", DType::UInt16),
            ("uint32", DType::UInt32),
            ("uint64", DType::UInt64),
            ("float32", DType::Float32),
        ];
        names
            .iter()
            .map(|&(n, d)| Ok((np.getattr(n)?.cast_into::<PyType>()?.unbind(), d)))
            .collect()
    })
}

/// The bytes of a NumPy scalar of one of `numpy_scalar_types`, or None for any other
/// object (float16, complex64 and the rest go through `tobytes`).
fn numpy_scalar_bytes(a: &Bound<'_, PyAny>) -> PyResult<Option<([u8; 16], usize)>> {
    let t = a.get_type();
    let Some(&(_, d)) = numpy_scalar_types(a.py())?
        .iter()
        .find(|(ty, _)| t.is(ty.bind(a.py())))
    else {
        return Ok(None);
    };
    let mut v = [0u8; 16];
    let n = d.itemsize();
    match d {
        DType::Bool => v[0] = a.is_truthy()? as u8,
        DType::Float32 => v[..4].copy_from_slice(&(a.extract::<f64>()? as f32).to_le_bytes()),
        DType::UInt64 => v[..8].copy_from_slice(&a.extract::<u64>()?.to_le_bytes()),
        // Every other integer fits an i64; its low bytes are the value (little-endian).
        _ => v[..8].copy_from_slice(&a.extract::<i64>()?.to_le_bytes()),
    }
    Ok(Some((v, n)))
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
            PyValueError::new_err(format!(
                "{what} {v} has a dimension outside 0 to 4294967295"
            ))
        })
    };
    Ok((get(0)?, get(1)?, get(2)?))
}

#[pymethods]
impl PyUserFunction {
    /// Launches with `args`, each converted to its parameter's bytes as CuPy converts
    /// it: a gpupy array (or any object with `__cuda_array_interface__`) as its device
    /// address, `bool` as one byte, `int` as int64, `float` as float64 (a kernel
    /// declaring `float` reads the first four bytes of the double, as under CuPy),
    /// `complex` as complex128, a NumPy scalar as its own type, and `bytes` as they are
    /// (the generated kernels' converted scalars and structs).
    #[pyo3(signature = (grid, block, args, shared_mem=0, stream=None, cooperative=false))]
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        py: Python<'_>,
        grid: &Bound<'_, PyAny>,
        block: &Bound<'_, PyAny>,
        args: &Bound<'_, PyAny>,
        shared_mem: u32,
        stream: Option<usize>,
        cooperative: bool,
    ) -> PyResult<()> {
        let (g, b) = (dims("grid", grid)?, dims("block", block)?);
        let f = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let args = args
            .cast::<PyTuple>()
            .map_err(|_| PyTypeError::new_err("kernel arguments must be a tuple or a list"))?;
        let dev = f.device();
        let mut inline: Vec<([u8; 16], usize)> = Vec::with_capacity(args.len());
        let mut owned: Vec<Bound<'_, PyBytes>> = Vec::new();
        // Each argument: inline bytes (index into `inline`) or a bytes object.
        let mut order: Vec<(bool, usize)> = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let mut put = |bytes: &[u8]| {
                let mut v = [0u8; 16];
                v[..bytes.len()].copy_from_slice(bytes);
                order.push((true, inline.len()));
                inline.push((v, bytes.len()));
            };
            if let Ok(arr) = a.cast::<NdArray>() {
                let p = array_address(&arr.get().inner, dev, &f.name, i)?;
                put(&p.to_le_bytes());
            } else if let Ok(bytes) = a.cast::<PyBytes>() {
                order.push((false, owned.len()));
                owned.push(bytes.clone());
            } else if let Ok(v) = a.cast::<PyBool>() {
                put(&[v.is_true() as u8]);
            } else if a.is_exact_instance_of::<PyInt>() {
                let v: i64 = a.extract().map_err(|_| {
                    PyOverflowError::new_err(format!(
                        "Python int {a} too large to convert to int64"
                    ))
                })?;
                put(&v.to_le_bytes());
            } else if let Ok(v) = a.cast::<PyFloat>() {
                put(&v.value().to_le_bytes());
            } else if let Ok(v) = a.cast::<PyComplex>() {
                let mut c = [0u8; 16];
                c[..8].copy_from_slice(&v.real().to_le_bytes());
                c[8..].copy_from_slice(&v.imag().to_le_bytes());
                put(&c);
            } else if let Some((v, n)) = numpy_scalar_bytes(&a)? {
                put(&v[..n]);
            } else if a.is_instance(numpy_generic(py)?)? {
                let bytes = a.call_method0("tobytes")?.cast_into::<PyBytes>()?;
                order.push((false, owned.len()));
                owned.push(bytes);
            } else if let Ok(cai) = a.getattr("__cuda_array_interface__") {
                let (p, _): (u64, bool) = cai.get_item("data")?.extract()?;
                put(&p.to_le_bytes());
            } else if a.hasattr("__array_interface__")? {
                return Err(PyTypeError::new_err(format!(
                    "argument {i} of {}(): a NumPy array cannot be a kernel argument: move \
                     it to the GPU with gpupy.asarray first",
                    f.name
                )));
            } else {
                return Err(PyTypeError::new_err(format!(
                    "Unsupported type {}",
                    a.get_type().repr()?
                )));
            }
        }
        let raw: Vec<&[u8]> = order
            .iter()
            .map(|&(inl, k)| {
                if inl {
                    &inline[k].0[..inline[k].1]
                } else {
                    owned[k].as_bytes()
                }
            })
            .collect();
        launch_user(&f, g, b, shared_mem, stream, &raw, cooperative).or_raise()
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

/// How one argument of a cached call becomes its parameter.
enum Action {
    /// A gpupy array: its device address.
    Array,
    /// A `raw` array: its `CArray` descriptor (address, size, shape, byte strides).
    Raw,
    /// A scalar converted to `DType`; values other than Python bool/int/float go
    /// through the Python function (NumPy's cast).
    Scalar(DType, Py<PyAny>),
}

/// One launch of a cached call: the kernel, its shape and dynamic shared memory, the
/// parameters that follow the call's arguments, and whether the address of the call's
/// scratch buffer (`Some(true)`) or a null address (`Some(false)`) follows those.
struct Step {
    func: Py<PyUserFunction>,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared: u32,
    after: Vec<Vec<u8>>,
    scratch: Option<bool>,
}

/// A generated kernel's call replayed without planning (the call caches of
/// `ElementwiseKernel` and `ReductionKernel`, whose first calls launch through it too):
/// how each argument converts, the launches (a reduction split over several blocks per
/// output has two), the fixed trailing parameters (loop sizes, shapes and strides), the
/// outputs to allocate and the scratch bytes (a reduction's partial values). One Rust
/// call does what planning did per argument, so a cached call costs about as much host
/// time as a built-in op.
#[pyclass(name = "_CachedCall", module = "gpupy._gpupy", frozen)]
struct PyCachedCall {
    steps: Vec<Step>,
    actions: Vec<Action>,
    tail: Vec<Vec<u8>>,
    /// (argument index, shape, dtype) of each output made per call.
    made: Vec<(usize, Vec<usize>, DType)>,
    scratch_bytes: usize,
}

/// `v` (a Python bool, int or float) as `dtype`'s bytes with NumPy's unsafe cast, or
/// None for what Rust leaves to NumPy (other types, float16, complex targets, ints out
/// of int64's range).
fn scalar_to(v: &Bound<'_, PyAny>, dtype: DType) -> Option<Vec<u8>> {
    enum Num {
        I(i64),
        F(f64),
    }
    let n = if let Ok(b) = v.cast::<PyBool>() {
        Num::I(b.is_true() as i64)
    } else if v.is_exact_instance_of::<PyInt>() {
        Num::I(v.extract::<i64>().ok()?)
    } else if let Ok(f) = v.cast::<PyFloat>() {
        Num::F(f.value())
    } else {
        return None;
    };
    macro_rules! cast {
        ($t:ty) => {
            match n {
                Num::I(i) => (i as $t).to_le_bytes().to_vec(),
                Num::F(f) => (f as $t).to_le_bytes().to_vec(),
            }
        };
    }
    Some(match dtype {
        DType::Bool => vec![match n {
            Num::I(i) => (i != 0) as u8,
            Num::F(f) => (f != 0.0) as u8,
        }],
        DType::Int8 => cast!(i8),
        DType::Int16 => cast!(i16),
        DType::Int32 => cast!(i32),
        DType::Int64 => cast!(i64),
        DType::UInt8 => cast!(u8),
        DType::UInt16 => cast!(u16),
        DType::UInt32 => cast!(u32),
        DType::UInt64 => cast!(u64),
        DType::Float32 => cast!(f32),
        DType::Float64 => cast!(f64),
        _ => return None,
    })
}

/// The `CArray` descriptor of a raw parameter (`CArray` in `_cuda_source.HEADER`):
/// address, size, then shape and byte strides (one dimension of 1 for a 0-d array).
fn carray_bytes(a: &gpupy_host::Array, ptr: u64) -> Vec<u8> {
    let shape: Vec<usize> = if a.ndim() == 0 {
        vec![1]
    } else {
        a.shape().to_vec()
    };
    let strides: Vec<isize> = if a.ndim() == 0 {
        vec![a.dtype().itemsize() as isize]
    } else {
        a.strides_bytes()
    };
    let mut out = Vec::with_capacity(16 + 16 * shape.len());
    out.extend_from_slice(&ptr.to_le_bytes());
    out.extend_from_slice(&(a.size() as i64).to_le_bytes());
    for n in &shape {
        out.extend_from_slice(&(*n as i64).to_le_bytes());
    }
    for s in &strides {
        out.extend_from_slice(&(*s as i64).to_le_bytes());
    }
    out
}

/// The device address a kernel gets for array argument `index` of `name()` (0 for an
/// empty array), which must be on the kernel's device `dev`.
fn array_address(
    arr: &gpupy_host::Array,
    dev: &device::Device,
    name: &str,
    index: usize,
) -> PyResult<u64> {
    if arr.device().id != dev.id {
        return Err(PyValueError::new_err(format!(
            "argument {index} of {name}() is on device {}, the kernel on device {}",
            arr.device().id,
            dev.id
        )));
    }
    Ok(if arr.size() == 0 { 0 } else { arr.data_ptr() })
}

/// The parameter bytes of argument `index` (`a`) of `name()` as `act` converts it.
fn action_bytes(
    py: Python<'_>,
    name: &str,
    dev: &device::Device,
    (index, a): (usize, &Bound<'_, PyAny>),
    act: &Action,
) -> PyResult<Vec<u8>> {
    match act {
        Action::Array | Action::Raw => {
            let arr = a.cast::<NdArray>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{name}(): an array argument changed type between calls"
                ))
            })?;
            let arr = &arr.get().inner;
            let p = array_address(arr, dev, name, index)?;
            Ok(if matches!(act, Action::Raw) {
                carray_bytes(arr, p)
            } else {
                p.to_le_bytes().to_vec()
            })
        }
        Action::Scalar(d, fallback) => match scalar_to(a, *d) {
            Some(b) => Ok(b),
            None => fallback.call1(py, (a,))?.extract::<Vec<u8>>(py),
        },
    }
}

#[pymethods]
impl PyCachedCall {
    /// `steps`: per launch (function, grid, block, shared bytes, parameters after the
    /// arguments, scratch: None, or whether its address (else null) comes next);
    /// `kinds`: per argument 'array', 'raw' or a scalar's (numpy dtype, fallback packer);
    /// `made`: (argument index, shape, numpy dtype) of the outputs to allocate.
    #[new]
    #[pyo3(signature = (steps, kinds, tail, made, scratch_bytes=0))]
    #[allow(clippy::type_complexity)]
    fn new(
        py: Python<'_>,
        steps: Vec<(
            Py<PyUserFunction>,
            Bound<'_, PyAny>,
            Bound<'_, PyAny>,
            u32,
            Vec<Vec<u8>>,
            Option<bool>,
        )>,
        kinds: Vec<Bound<'_, PyAny>>,
        tail: Vec<Vec<u8>>,
        made: Vec<(usize, Vec<usize>, Bound<'_, PyAny>)>,
        scratch_bytes: usize,
    ) -> PyResult<Self> {
        let mut actions = Vec::with_capacity(kinds.len());
        for k in kinds {
            if let Ok(s) = k.extract::<String>() {
                actions.push(if s == "raw" {
                    Action::Raw
                } else {
                    Action::Array
                });
            } else {
                let (d, f): (Bound<'_, PyAny>, Py<PyAny>) = k.extract()?;
                actions.push(Action::Scalar(to_dtype(py, &d)?, f));
            }
        }
        let made = made
            .into_iter()
            .map(|(i, shape, d)| Ok((i, shape, to_dtype(py, &d)?)))
            .collect::<PyResult<Vec<_>>>()?;
        let steps = steps
            .into_iter()
            .map(|(func, grid, block, shared, after, scratch)| {
                Ok(Step {
                    func,
                    grid: dims("grid", &grid)?,
                    block: dims("block", &block)?,
                    shared,
                    after,
                    scratch,
                })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(PyCachedCall {
            steps,
            actions,
            tail,
            made,
            scratch_bytes,
        })
    }

    /// Launches with `args` (inputs, then outputs or None) and returns every argument
    /// with the outputs made, as a tuple.
    #[pyo3(signature = (args, stream=None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        stream: Option<usize>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let (dev, name) = match self.steps.first() {
            Some(s) => {
                let f = s.func.get().inner.lock().unwrap_or_else(|p| p.into_inner());
                (f.device(), f.name.clone())
            }
            None => (device::current().or_raise()?, String::new()),
        };
        let mut all: Vec<Bound<'py, PyAny>> = Vec::with_capacity(self.actions.len());
        for i in 0..self.actions.len() {
            all.push(if i < args.len() {
                args.get_item(i)?
            } else {
                py.None().into_bound(py)
            });
        }
        for (i, shape, d) in &self.made {
            let a = Array::empty(dev, shape, *d).or_raise()?;
            all[*i] = NdArray::wrap(py, a)?.into_bound(py).into_any();
        }
        if self.steps.is_empty() {
            return PyTuple::new(py, all);
        }
        let mut params: Vec<Vec<u8>> = Vec::with_capacity(all.len());
        for (i, (a, act)) in all.iter().zip(&self.actions).enumerate() {
            params.push(action_bytes(py, &name, dev, (i, a), act)?);
        }
        // The scratch buffer lives until the launches are queued; the pool reuses its
        // memory only for work queued after them on the stream.
        let scratch = if self.scratch_bytes > 0 {
            Some(Array::empty(dev, &[self.scratch_bytes], DType::UInt8).or_raise()?)
        } else {
            None
        };
        let scratch_ptr = scratch.as_ref().map_or(0, |s| s.data_ptr());
        for step in &self.steps {
            let f = step
                .func
                .get()
                .inner
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let address = step
                .scratch
                .map(|s| if s { scratch_ptr } else { 0 }.to_le_bytes());
            let raw: Vec<&[u8]> = params
                .iter()
                .chain(&step.after)
                .map(|p| p.as_slice())
                .chain(address.as_ref().map(|a| a.as_slice()))
                .chain(self.tail.iter().map(|p| p.as_slice()))
                .collect();
            launch_user(&f, step.grid, step.block, step.shared, stream, &raw, false).or_raise()?;
        }
        PyTuple::new(py, all)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyCachedCall>()?;
    m.add_function(wrap_pyfunction!(nvrtc_compile, m)?)?;
    m.add_function(wrap_pyfunction!(nvrtc_version, m)?)?;
    m.add_class::<PyUserModule>()?;
    m.add_class::<PyUserFunction>()?;
    Ok(())
}
