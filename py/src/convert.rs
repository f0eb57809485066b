//! Crossing the boundary: NumPy dtypes to `DType` and back, NumPy arrays to device
//! arrays and back. NumPy dtype objects are made once and cached.

use gpupy_host::{Array, DType, device, stream, transfer};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use crate::errors::OrRaise;

static NUMPY_DTYPES: PyOnceLock<Vec<Py<PyAny>>> = PyOnceLock::new();
static BFLOAT16: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// NumPy's dtype object for `d` (what `.dtype` returns). bfloat16 is ml_dtypes' dtype,
/// imported when first needed: NumPy alone has no bfloat16.
pub fn numpy_dtype(py: Python<'_>, d: DType) -> PyResult<Bound<'_, PyAny>> {
    if d == DType::BFloat16 {
        let bf = BFLOAT16.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            let ml = py.import("ml_dtypes").map_err(|_| {
                PyTypeError::new_err(
                    "bfloat16 arrays need the ml_dtypes package (pip install ml_dtypes)",
                )
            })?;
            let np_dtype = py.import("numpy")?.getattr("dtype")?;
            Ok(np_dtype.call1((ml.getattr("bfloat16")?,))?.unbind())
        })?;
        return Ok(bf.bind(py).clone());
    }
    let all = NUMPY_DTYPES.get_or_try_init(py, || -> PyResult<Vec<Py<PyAny>>> {
        let np_dtype = py.import("numpy")?.getattr("dtype")?;
        DType::ALL
            .iter()
            .map(|d| match d {
                // A placeholder: bfloat16 is answered above.
                DType::BFloat16 => Ok(py.None()),
                _ => Ok(np_dtype.call1((d.name(),))?.unbind()),
            })
            .collect()
    })?;
    let i = DType::ALL
        .iter()
        .position(|x| *x == d)
        .expect("ALL lists every dtype");
    Ok(all[i].bind(py).clone())
}

/// The `DType` of anything `numpy.dtype()` accepts (`np.float32`, `'f4'`, `float`, ...).
pub fn to_dtype(py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<DType> {
    let descr = py.import("numpy")?.getattr("dtype")?.call1((spec,))?;
    let name: String = descr.getattr("name")?.extract()?;
    DType::from_name(&name).or_raise()
}

/// A device copy of a C-contiguous, native-byte-order NumPy array (the Python layer
/// guarantees both).
pub fn from_numpy(py: Python<'_>, arr: &Bound<'_, PyAny>) -> PyResult<Array> {
    let arr = arr
        .cast::<PyUntypedArray>()
        .map_err(|_| PyTypeError::new_err("expected a numpy.ndarray"))?;
    if !arr.is_c_contiguous() {
        return Err(PyTypeError::new_err(
            "internal: from_numpy needs a C-contiguous array",
        ));
    }
    let dtype = to_dtype(py, arr.dtype().as_any())?;
    let shape = arr.shape().to_vec();
    let nbytes = shape.iter().product::<usize>() * dtype.itemsize();
    // SAFETY: a C-contiguous NumPy array owns `nbytes` bytes at `data`; `arr` stays alive
    // (and is not resized: NumPy refuses while a reference exists) for the copy, which
    // only reads them.
    let bytes = unsafe { bytes(arr, nbytes) };
    let dev = device::current().or_raise()?;
    py.detach(|| Array::from_host(dev, bytes, &shape, dtype))
        .or_raise()
}

/// The `nbytes` bytes of a NumPy array's data, to read.
///
/// # Safety
/// `arr` is C-contiguous with exactly `nbytes` bytes of data, nothing writes them while
/// the slice lives, and the array outlives it.
unsafe fn bytes<'a>(arr: &Bound<'_, PyUntypedArray>, nbytes: usize) -> &'a [u8] {
    if nbytes == 0 {
        return &[];
    }
    // SAFETY: per the contract.
    unsafe { std::slice::from_raw_parts((*arr.as_array_ptr()).fields.data as *const u8, nbytes) }
}

/// The `nbytes` bytes of a NumPy array's data, to write.
///
/// # Safety
/// `arr` is C-contiguous with exactly `nbytes` bytes of data, nothing else reads or
/// writes them while the slice lives, and the array outlives it.
unsafe fn bytes_mut<'a>(arr: &Bound<'_, PyUntypedArray>, nbytes: usize) -> &'a mut [u8] {
    if nbytes == 0 {
        return &mut [];
    }
    // SAFETY: per the contract.
    unsafe {
        let data = (*arr.as_array_ptr()).fields.data as *mut u8;
        std::slice::from_raw_parts_mut(data, nbytes)
    }
}

/// A new NumPy array with `a`'s values.
pub fn to_numpy<'py>(py: Python<'py>, a: &Array) -> PyResult<Bound<'py, PyAny>> {
    let shape = PyTuple::new(py, a.shape())?;
    let out = py
        .import("numpy")?
        .getattr("empty")?
        .call1((shape, numpy_dtype(py, a.dtype())?))?;
    let arr = out.cast::<PyUntypedArray>()?;
    // SAFETY: numpy.empty returned a fresh C-contiguous array of exactly `a.nbytes()`
    // bytes, referenced only here until we return it.
    let dst = unsafe { bytes_mut(arr, a.nbytes()) };
    py.detach(|| gpupy_host::ops::elementwise::copy::to_host(a, dst))
        .or_raise()?;
    Ok(out)
}

/// Copies `a`'s values into the NumPy array `out`, which must be C-contiguous,
/// writeable and of `a`'s shape and dtype (CuPy's `get(out=)` rules). Without
/// `blocking`, a C-contiguous `a` copied into pinned memory is only queued on the
/// current stream (CuPy's non-blocking `get`: synchronize the stream before reading).
pub fn to_numpy_into(
    py: Python<'_>,
    a: &Array,
    out: &Bound<'_, PyAny>,
    blocking: bool,
) -> PyResult<()> {
    let arr = out
        .cast::<PyUntypedArray>()
        .map_err(|_| PyTypeError::new_err("out must be a numpy.ndarray"))?;
    if arr.shape() != a.shape() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "Shape mismatch. Old shape: {:?}, new shape: {:?}",
            a.shape(),
            arr.shape()
        )));
    }
    if to_dtype(py, arr.dtype().as_any())? != a.dtype() {
        return Err(PyTypeError::new_err(format!(
            "dtype mismatch: out is {}, the array is {}",
            arr.dtype(),
            a.dtype().name()
        )));
    }
    let writeable: bool = out.getattr("flags")?.getattr("writeable")?.extract()?;
    if !arr.is_c_contiguous() || !writeable {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "out must be a C-contiguous, writeable numpy.ndarray",
        ));
    }
    let nbytes = a.nbytes();
    // SAFETY: reads the data pointer of a live NumPy array.
    let data = unsafe { (*arr.as_array_ptr()).fields.data as *mut u8 };
    let dev = a.device();
    if !blocking
        && nbytes > 0
        && a.layout().is_c_contiguous()
        && transfer::is_pinned(dev, data).or_raise()?
    {
        // SAFETY: `out` is pinned memory of `nbytes` bytes (checked above) that the host
        // function queued after the copy keeps alive, with `a`, until the stream passes it.
        unsafe { transfer::to_host_async(dev, data, a.data_ptr(), nbytes) }.or_raise()?;
        let keep = (out.clone().unbind(), a.clone());
        return stream::current_stream(dev)
            .launch_host_func(Box::new(move || drop(keep)))
            .or_raise();
    }
    // SAFETY: `out` is a C-contiguous array of exactly `nbytes` bytes (its shape and
    // dtype are the array's, checked above), kept alive by the caller's reference.
    let dst = unsafe { bytes_mut(arr, nbytes) };
    py.detach(|| gpupy_host::ops::elementwise::copy::to_host(a, dst))
        .or_raise()
}

/// Copies the NumPy array `host` (C-contiguous, of `a`'s shape and dtype) into `a`;
/// when `host` is pinned and `a` C-contiguous, only queued on the current stream (CuPy's
/// `set(arr, stream=)`), else complete on return. False when `host` does not qualify for
/// the queued copy (the caller copies it the ordinary way).
pub fn queue_from_pinned(a: &Array, host: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Ok(arr) = host.cast::<PyUntypedArray>() else {
        return Ok(false);
    };
    let nbytes = a.nbytes();
    // SAFETY: reads the data pointer of a live NumPy array.
    let data = unsafe { (*arr.as_array_ptr()).fields.data as *const u8 };
    let dev = a.device();
    let fits = arr.is_c_contiguous()
        && arr.shape() == a.shape()
        && to_dtype(host.py(), arr.dtype().as_any())? == a.dtype()
        && a.layout().is_c_contiguous()
        && nbytes > 0;
    if !fits || !transfer::is_pinned(dev, data).or_raise()? {
        return Ok(false);
    }
    // SAFETY: `host` is pinned memory of `nbytes` bytes (checked above), kept alive with
    // `a` by the host function queued after the copy until the stream passes it.
    unsafe { transfer::to_device_async(dev, a.data_ptr(), data, nbytes) }.or_raise()?;
    let keep = (host.clone().unbind(), a.clone());
    stream::current_stream(dev)
        .launch_host_func(Box::new(move || drop(keep)))
        .or_raise()?;
    Ok(true)
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
