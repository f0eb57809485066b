//! Zero-copy exchange with other GPU libraries (PyTorch, CuPy, Numba, JAX, ...):
//! `__cuda_array_interface__` (version 3) and DLPack (1.x versioned and legacy
//! capsules), both ways. The host checks what an import describes (`host/src/interop.rs`);
//! this file reads and writes the protocols' dicts and C structs.
//!
//! An imported array keeps its exporter alive (the object with the interface, or the
//! DLPack deleter, called when the last gpupy view is gone). Read-only exports are
//! copied, so no gpupy write can reach them. Stream order follows the protocols: an
//! import makes the current stream wait for the exporter's stream, an export makes the
//! consumer's stream wait for gpupy's current stream.

use std::ffi::{CStr, c_void};

use gpupy_host::ops::elementwise::copy;
use gpupy_host::{Array, DType, device, interop, stream};
use pyo3::exceptions::{PyAttributeError, PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::convert::numpy_dtype;
use crate::errors::OrRaise;
use crate::ndarray::NdArray;

/// The stream handle a protocol's stream number names: 1 the legacy null stream (0 as a
/// handle), 2 the per-thread stream, others themselves; 0 is refused as both protocols
/// say.
fn stream_handle(n: i64, what: &str) -> PyResult<usize> {
    match n {
        0 => Err(PyValueError::new_err(format!(
            "{what}: stream 0 is ambiguous and not allowed (use 1 for the legacy default stream)"
        ))),
        1 => Ok(0),
        n if n < 0 => Err(PyValueError::new_err(format!("{what}: invalid stream {n}"))),
        n => Ok(n as usize),
    }
}

/// The address multiple an item of `d` needs (NumPy's `dtype.alignment`: a complex
/// number's part's size).
fn alignment(d: DType) -> usize {
    match d {
        DType::Complex64 | DType::Complex128 => d.itemsize() / 2,
        _ => d.itemsize(),
    }
}

/// The checked span of a foreign array of `dtype` items (byte strides; C order when
/// `None`).
fn span_of(
    ptr: u64,
    shape: &[usize],
    strides: Option<&[i64]>,
    dtype: DType,
) -> PyResult<interop::Span> {
    interop::span(ptr, shape, strides, dtype.itemsize(), alignment(dtype)).or_raise()
}

/// A gpupy dtype from a NumPy dtype, refusing what gpupy cannot hold (non-native byte
/// order, structured, datetime, strings) with a TypeError naming `what`.
fn dtype_of(py: Python<'_>, spec: &Bound<'_, PyAny>, what: &str) -> PyResult<DType> {
    let bad = || {
        PyTypeError::new_err(format!(
            "unsupported {what} {spec}: gpupy has no such dtype"
        ))
    };
    let d = py
        .import("numpy")?
        .getattr("dtype")?
        .call1((spec,))
        .map_err(|_| bad())?;
    let native: bool = d.getattr("isnative")?.extract()?;
    let name: String = d.getattr("name")?.extract()?;
    DType::from_name(&name)
        .ok()
        .filter(|_| native)
        .ok_or_else(bad)
}

// --- __cuda_array_interface__ --------------------------------------------------------

/// The interface of `a` (version 3): its stream is gpupy's current one (1 for the
/// legacy null stream), which consumers wait for as the protocol says.
pub fn cuda_array_interface<'py>(py: Python<'py>, a: &Array) -> PyResult<Bound<'py, PyDict>> {
    if a.dtype() == DType::BFloat16 {
        // Consumers read typestrs as NumPy does, which has no bfloat16 ('<V2' would
        // read as raw bytes): no interface rather than a wrong one.
        return Err(PyAttributeError::new_err(
            "bfloat16 arrays have no __cuda_array_interface__ (its typestrs cannot name bfloat16); use DLPack",
        ));
    }
    let d = PyDict::new(py);
    let dt = numpy_dtype(py, a.dtype())?;
    d.set_item("shape", PyTuple::new(py, a.shape())?)?;
    d.set_item("typestr", dt.getattr("str")?)?;
    d.set_item("descr", dt.getattr("descr")?)?;
    let ptr = if a.size() == 0 { 0 } else { a.data_ptr() };
    d.set_item("data", (ptr, false))?;
    if a.layout().is_c_contiguous() {
        d.set_item("strides", py.None())?;
    } else {
        d.set_item("strides", PyTuple::new(py, a.strides_bytes())?)?;
    }
    d.set_item("version", 3)?;
    let (raw, _) = stream::current(a.device());
    d.set_item("stream", if raw.is_null() { 1 } else { raw as usize })?;
    Ok(d)
}

/// The array an object's `__cuda_array_interface__` describes, without a copy (a copy
/// when the interface is read-only).
#[pyfunction]
fn _from_cuda_array_interface(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Py<NdArray>> {
    const WHAT: &str = "__cuda_array_interface__";
    let cai = obj.getattr(WHAT)?;
    let cai = cai
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("{WHAT} must be a dict")))?;
    let item = |k: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
        Ok(cai.get_item(k)?.filter(|v| !v.is_none()))
    };
    let need =
        |k: &str| item(k)?.ok_or_else(|| PyValueError::new_err(format!("{WHAT} has no '{k}'")));
    if item("mask")?.is_some() {
        return Err(PyValueError::new_err(format!(
            "masked arrays (a 'mask' in {WHAT}) are not supported"
        )));
    }
    let shape: Vec<i64> = need("shape")?.extract()?;
    if let Some(n) = shape.iter().find(|&&n| n < 0) {
        return Err(PyValueError::new_err(format!(
            "{WHAT}: negative dimension {n} in the shape"
        )));
    }
    let shape: Vec<usize> = shape.iter().map(|&n| n as usize).collect();
    let dtype = dtype_of(py, &need("typestr")?, "typestr")?;
    let (ptr, readonly): (u64, bool) = need("data")?.extract()?;
    let strides: Option<Vec<i64>> = item("strides")?.map(|s| s.extract()).transpose()?;
    let producer: Option<i64> = item("stream")?.map(|s| s.extract()).transpose()?;
    let span = span_of(ptr, &shape, strides.as_deref(), dtype)?;
    let dev = device::current().or_raise()?;
    if let Some(n) = producer {
        let producer = stream_handle(n, WHAT)?;
        let (current, _) = stream::current(dev);
        // SAFETY: the protocol makes the exporter vouch that its stream handle is valid
        // on this device while its interface is read.
        unsafe { stream::order_after(dev, current as usize, producer) }.or_raise()?;
    }
    let owner: Box<dyn std::any::Any + Send + Sync> = Box::new(obj.clone().unbind());
    // SAFETY: by the protocol, the object that exports the interface keeps the memory it
    // describes allocated while it lives; the array keeps the object.
    let a = unsafe { interop::import(dev, span, dtype, owner) }.or_raise()?;
    let a = if readonly {
        copy::astype(&a, dtype).or_raise()?
    } else {
        a
    };
    NdArray::wrap(py, a)
}

// --- DLPack --------------------------------------------------------------------------

/// DLPack's C structs (dlpack.h, version 1.1).
#[repr(C)]
#[derive(Clone, Copy)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

#[repr(C)]
struct DLManagedTensorVersioned {
    version: [u32; 2],
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DLTensor,
}

const KDL_CPU: i32 = 1;
const KDL_CUDA: i32 = 2;
const KDL_CUDA_MANAGED: i32 = 13;
const FLAG_READ_ONLY: u64 = 1;
const FLAG_IS_COPIED: u64 = 2;
const VERSIONED: &CStr = c"dltensor_versioned";
const LEGACY: &CStr = c"dltensor";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const USED_LEGACY: &CStr = c"used_dltensor";

fn dl_dtype(d: DType) -> DLDataType {
    use DType::*;
    let code = match d {
        Bool => 6,
        Int8 | Int16 | Int32 | Int64 => 0,
        UInt8 | UInt16 | UInt32 | UInt64 => 1,
        Float16 | Float32 | Float64 => 2,
        BFloat16 => 4,
        Complex64 | Complex128 => 5,
    };
    DLDataType {
        code,
        bits: (d.itemsize() * 8) as u8,
        lanes: 1,
    }
}

fn from_dl_dtype(t: DLDataType) -> PyResult<DType> {
    use DType::*;
    let d = match (t.code, t.bits, t.lanes) {
        (6, 8, 1) => Bool,
        (0, 8, 1) => Int8,
        (0, 16, 1) => Int16,
        (0, 32, 1) => Int32,
        (0, 64, 1) => Int64,
        (1, 8, 1) => UInt8,
        (1, 16, 1) => UInt16,
        (1, 32, 1) => UInt32,
        (1, 64, 1) => UInt64,
        (2, 16, 1) => Float16,
        (2, 32, 1) => Float32,
        (2, 64, 1) => Float64,
        (4, 16, 1) => BFloat16,
        (5, 64, 1) => Complex64,
        (5, 128, 1) => Complex128,
        (c, b, l) => {
            return Err(PyBufferError::new_err(format!(
                "unsupported DLPack dtype (code {c}, {b} bits, {l} lanes)"
            )));
        }
    };
    Ok(d)
}

/// What an exported tensor's `manager_ctx` owns: the array (so its memory stays) and
/// the shape and strides the tensor points at.
struct Export {
    _array: Array,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

fn dl_tensor(a: &Array, ex: &mut Export) -> DLTensor {
    DLTensor {
        data: a.data_ptr() as *mut c_void,
        device: DLDevice {
            device_type: KDL_CUDA,
            device_id: a.device().id as i32,
        },
        ndim: a.ndim() as i32,
        dtype: dl_dtype(a.dtype()),
        shape: ex.shape.as_mut_ptr(),
        strides: ex.strides.as_mut_ptr(),
        byte_offset: 0,
    }
}

unsafe extern "C" fn delete_versioned(t: *mut DLManagedTensorVersioned) {
    // SAFETY: `t` and its context are the boxes made by `dlpack_capsule`, freed once.
    unsafe {
        drop(Box::from_raw((*t).manager_ctx.cast::<Export>()));
        drop(Box::from_raw(t));
    }
}

unsafe extern "C" fn delete_legacy(t: *mut DLManagedTensor) {
    // SAFETY: as in `delete_versioned`.
    unsafe {
        drop(Box::from_raw((*t).manager_ctx.cast::<Export>()));
        drop(Box::from_raw(t));
    }
}

/// A capsule nobody consumed (still under its first name) frees its tensor.
unsafe extern "C" fn free_unused_versioned(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: called by Python with the capsule; the pointer under the unconsumed name
    // is the tensor `dlpack_capsule` made, whose deleter frees it.
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let t = pyo3::ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr());
            delete_versioned(t.cast());
        }
    }
}

unsafe extern "C" fn free_unused_legacy(capsule: *mut pyo3::ffi::PyObject) {
    // SAFETY: as in `free_unused_versioned`.
    unsafe {
        if pyo3::ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let t = pyo3::ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr());
            delete_legacy(t.cast());
        }
    }
}

/// A DLPack capsule of `a` (versioned when `versioned`), owning a handle to it.
fn dlpack_capsule(py: Python<'_>, a: Array, versioned: bool, copied: bool) -> PyResult<Py<PyAny>> {
    let item = a.dtype().itemsize() as isize;
    let mut ex = Box::new(Export {
        shape: a.shape().iter().map(|&n| n as i64).collect(),
        strides: a
            .strides_bytes()
            .iter()
            .map(|&s| (s / item) as i64)
            .collect(),
        _array: a.clone(),
    });
    let tensor = dl_tensor(&a, &mut ex);
    let ctx = Box::into_raw(ex).cast::<c_void>();
    // SAFETY: each branch hands a fresh box to a new capsule whose destructor frees it
    // unless a consumer renamed the capsule (taking over the deleter); if the capsule
    // cannot be made, the box is freed here.
    unsafe {
        let (ptr, name, destructor): (
            *mut c_void,
            &CStr,
            unsafe extern "C" fn(*mut pyo3::ffi::PyObject),
        ) = if versioned {
            let t = Box::into_raw(Box::new(DLManagedTensorVersioned {
                version: [1, 1],
                manager_ctx: ctx,
                deleter: Some(delete_versioned),
                flags: if copied { FLAG_IS_COPIED } else { 0 },
                dl_tensor: tensor,
            }));
            (t.cast(), VERSIONED, free_unused_versioned as _)
        } else {
            let t = Box::into_raw(Box::new(DLManagedTensor {
                dl_tensor: tensor,
                manager_ctx: ctx,
                deleter: Some(delete_legacy),
            }));
            (t.cast(), LEGACY, free_unused_legacy as _)
        };
        let cap = pyo3::ffi::PyCapsule_New(ptr, name.as_ptr(), Some(destructor));
        if cap.is_null() {
            if versioned {
                delete_versioned(ptr.cast());
            } else {
                delete_legacy(ptr.cast());
            }
            return Err(PyErr::fetch(py));
        }
        Ok(Bound::from_owned_ptr(py, cap).unbind())
    }
}

/// `a.__dlpack__(...)`: see the array API standard (2024.12). `stream` is the consumer's
/// stream (None: the legacy default stream; -1: no ordering); `max_version` below 1.0
/// or None asks for the legacy capsule; `dl_device` (1, 0) asks for a host copy.
pub fn dlpack(
    py: Python<'_>,
    a: &Array,
    stream: Option<i64>,
    max_version: Option<(u32, u32)>,
    dl_device: Option<(i32, i32)>,
    copy_flag: Option<bool>,
) -> PyResult<Py<PyAny>> {
    let dev = a.device();
    if let Some((kind, id)) = dl_device
        && (kind, id) != (KDL_CUDA, dev.id as i32)
    {
        if kind != KDL_CPU {
            return Err(PyBufferError::new_err(format!(
                "gpupy can export to its own device ({KDL_CUDA}, {}) or to the host ({KDL_CPU}, 0), not ({kind}, {id})",
                dev.id
            )));
        }
        if copy_flag == Some(false) {
            return Err(PyBufferError::new_err(
                "a gpupy array reaches the host only by a copy (copy=False was asked)",
            ));
        }
        // A host copy, exported by NumPy itself.
        let host = crate::convert::to_numpy(py, a)?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("max_version", max_version)?;
        return Ok(host.call_method("__dlpack__", (), Some(&kwargs))?.unbind());
    }
    if stream != Some(-1) {
        let consumer = stream_handle(stream.unwrap_or(1), "__dlpack__")?;
        let (current, _) = stream::current(dev);
        // SAFETY: the consumer passes a stream of its own, valid on this device, as the
        // protocol requires.
        unsafe { stream::order_after(dev, consumer, current as usize) }.or_raise()?;
    }
    let copied = copy_flag == Some(true);
    let a = if copied {
        copy::astype(a, a.dtype()).or_raise()?
    } else {
        a.clone()
    };
    let versioned = max_version.is_some_and(|(major, _)| major >= 1);
    dlpack_capsule(py, a, versioned, copied)
}

/// The tensor a consumed capsule hands over: its deleter runs when the last gpupy view
/// of the memory is gone.
struct Imported {
    tensor: *mut c_void,
    versioned: bool,
}

// SAFETY: DLPack's deleters may be called from any thread (the producer takes what
// locks it needs, e.g. the GIL); the pointer is used by nothing else.
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: the tensor came from a capsule this process consumed (renamed), so
        // calling its deleter once is ours to do.
        unsafe {
            if self.versioned {
                let t = self.tensor.cast::<DLManagedTensorVersioned>();
                if let Some(d) = (*t).deleter {
                    d(t);
                }
            } else {
                let t = self.tensor.cast::<DLManagedTensor>();
                if let Some(d) = (*t).deleter {
                    d(t);
                }
            }
        }
    }
}

/// Consumes a DLPack capsule (versioned or legacy) of CUDA memory on the current device
/// as a gpupy array (copied when it is read-only).
#[pyfunction]
fn _from_dlpack_capsule(py: Python<'_>, capsule: &Bound<'_, PyAny>) -> PyResult<Py<NdArray>> {
    let cap = capsule.as_ptr();
    // SAFETY: `cap` is a live object; the capsule calls only read its name and pointer.
    let (versioned, tensor) = unsafe {
        if pyo3::ffi::PyCapsule_IsValid(cap, VERSIONED.as_ptr()) == 1 {
            (
                true,
                pyo3::ffi::PyCapsule_GetPointer(cap, VERSIONED.as_ptr()),
            )
        } else if pyo3::ffi::PyCapsule_IsValid(cap, LEGACY.as_ptr()) == 1 {
            (false, pyo3::ffi::PyCapsule_GetPointer(cap, LEGACY.as_ptr()))
        } else {
            return Err(PyTypeError::new_err(
                "expected an unconsumed DLPack capsule ('dltensor' or 'dltensor_versioned')",
            ));
        }
    };
    // SAFETY: a valid capsule under these names holds the producer's managed tensor,
    // which stays valid until its deleter is called.
    let (t, flags) = unsafe {
        if versioned {
            let m = &*tensor.cast::<DLManagedTensorVersioned>();
            if m.version[0] != 1 {
                return Err(PyBufferError::new_err(format!(
                    "DLPack version {}.{} is not supported (gpupy reads 1.x)",
                    m.version[0], m.version[1]
                )));
            }
            (&m.dl_tensor, m.flags)
        } else {
            (&(*tensor.cast::<DLManagedTensor>()).dl_tensor, 0)
        }
    };
    let dev = device::current().or_raise()?;
    if !matches!(t.device.device_type, KDL_CUDA | KDL_CUDA_MANAGED) {
        return Err(PyBufferError::new_err(format!(
            "the DLPack tensor is on device type {}, not CUDA memory (ask for a host copy with copy=True)",
            t.device.device_type
        )));
    }
    if t.device.device_id as usize != dev.id {
        return Err(PyValueError::new_err(format!(
            "the DLPack tensor is on device {}, but the current device is {}",
            t.device.device_id, dev.id
        )));
    }
    let dtype = from_dl_dtype(t.dtype)?;
    let ndim = usize::try_from(t.ndim)
        .map_err(|_| PyBufferError::new_err("negative ndim in a DLPack tensor"))?;
    let item = dtype.itemsize() as i64;
    // SAFETY: DLPack's shape (and strides, when set) point at `ndim` int64 each.
    let (shape, strides) = unsafe {
        let shape = if ndim == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(t.shape, ndim)
        };
        let strides = (!t.strides.is_null() && ndim > 0).then(|| {
            std::slice::from_raw_parts(t.strides, ndim)
                .iter()
                .map(|s| s * item)
                .collect::<Vec<_>>()
        });
        (shape.to_vec(), strides)
    };
    if shape.iter().any(|&n| n < 0) {
        return Err(PyBufferError::new_err(
            "negative dimension in a DLPack tensor",
        ));
    }
    let shape: Vec<usize> = shape.iter().map(|&n| n as usize).collect();
    let ptr = (t.data as u64).wrapping_add(t.byte_offset);
    let span = span_of(ptr, &shape, strides.as_deref(), dtype)?;
    // The capsule is consumed from here on: renamed, so its destructor leaves the tensor
    // to `Imported`, whose drop calls the deleter (also if the import below fails).
    let used = if versioned {
        USED_VERSIONED
    } else {
        USED_LEGACY
    };
    // SAFETY: renaming a valid capsule.
    if unsafe { pyo3::ffi::PyCapsule_SetName(cap, used.as_ptr()) } != 0 {
        return Err(PyErr::fetch(py));
    }
    let owner = Box::new(Imported { tensor, versioned });
    // SAFETY: the producer keeps the tensor's memory until its deleter runs, which
    // `Imported` calls when the array's buffer is dropped.
    let a = unsafe { interop::import(dev, span, dtype, owner) }.or_raise()?;
    let a = if flags & FLAG_READ_ONLY != 0 {
        copy::astype(&a, dtype).or_raise()?
    } else {
        a
    };
    NdArray::wrap(py, a)
}

#[pymethods]
impl NdArray {
    /// The array as the CUDA Array Interface (version 3) describes it.
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        cuda_array_interface(py, &self.inner)
    }

    /// A DLPack capsule of the array (the array API standard's `__dlpack__`).
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__(
        &self,
        py: Python<'_>,
        stream: Option<i64>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Py<PyAny>> {
        dlpack(py, &self.inner, stream, max_version, dl_device, copy)
    }

    /// `(kDLCUDA, device id)`.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (KDL_CUDA, self.inner.device().id as i32)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_from_cuda_array_interface, m)?)?;
    m.add_function(wrap_pyfunction!(_from_dlpack_capsule, m)?)?;
    Ok(())
}
