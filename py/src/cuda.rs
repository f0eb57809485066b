//! Devices and the memory pool, for the Python layer's `gpupy.cuda` (which gives them
//! CuPy's names and classes); streams and events are in `stream.rs`.

use std::any::Any;

use gpupy_host::{device, pinned};
use pyo3::exceptions::PyMemoryError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::OrRaise;

/// The driver's state: `("ready", count)`, `("absent", why)` (no driver, or no GPU)
/// or `("broken", why)` (a driver that fails); `gpupy.cuda.is_available` raises on the
/// last.
#[pyfunction]
fn availability(py: Python<'_>) -> PyResult<(&'static str, Py<PyAny>)> {
    Ok(match device::availability() {
        device::Availability::Ready(n) => ("ready", n.into_pyobject(py)?.into_any().unbind()),
        device::Availability::Absent(m) => ("absent", m.into_pyobject(py)?.into_any().unbind()),
        device::Availability::Broken(m) => ("broken", m.into_pyobject(py)?.into_any().unbind()),
    })
}

#[pyfunction]
fn get_device_count() -> PyResult<usize> {
    device::count().or_raise()
}

#[pyfunction]
fn get_device_id() -> usize {
    device::current_id()
}

#[pyfunction]
fn set_device_id(id: usize) -> PyResult<()> {
    device::set_current(id).or_raise()
}

#[pyfunction]
fn device_synchronize(py: Python<'_>, id: usize) -> PyResult<()> {
    let d = device::get(id).or_raise()?;
    py.detach(|| d.synchronize()).or_raise()
}

#[pyfunction]
fn device_compute_capability(id: usize) -> PyResult<String> {
    Ok(device::get(id).or_raise()?.compute_capability())
}

/// The subset of `cudaDeviceProp` gpupy reads, under CUDA's field names.
#[pyfunction]
fn device_properties(py: Python<'_>, id: usize) -> PyResult<Bound<'_, PyDict>> {
    let p = &device::get(id).or_raise()?.props;
    let d = PyDict::new(py);
    d.set_item("name", p.name.as_bytes())?;
    d.set_item("major", p.major)?;
    d.set_item("minor", p.minor)?;
    d.set_item("multiProcessorCount", p.multi_processor_count)?;
    d.set_item("totalGlobalMem", p.total_global_mem)?;
    d.set_item("maxThreadsPerBlock", p.max_threads_per_block)?;
    d.set_item("sharedMemPerBlock", p.shared_mem_per_block)?;
    d.set_item("warpSize", p.warp_size)?;
    d.set_item("l2CacheSize", p.l2_cache_size)?;
    d.set_item("clockRate", p.clock_rate_khz)?;
    d.set_item("memoryClockRate", p.memory_clock_rate_khz)?;
    d.set_item("memoryBusWidth", p.memory_bus_width)?;
    Ok(d)
}

/// (free, total) bytes on the device, as the driver reports them.
#[pyfunction]
fn device_mem_info(id: usize) -> PyResult<(usize, usize)> {
    device::get(id).or_raise()?.mem_info().or_raise()
}

#[pyfunction]
fn pool_used_bytes(id: usize) -> PyResult<usize> {
    Ok(device::get(id).or_raise()?.pool.used_bytes())
}

#[pyfunction]
fn pool_total_bytes(id: usize) -> PyResult<usize> {
    Ok(device::get(id).or_raise()?.pool.total_bytes())
}

#[pyfunction]
fn pool_free_bytes(id: usize) -> PyResult<usize> {
    Ok(device::get(id).or_raise()?.pool.free_bytes())
}

#[pyfunction]
fn pool_free_all_blocks(py: Python<'_>, id: usize) -> PyResult<()> {
    let d = device::get(id).or_raise()?;
    py.detach(|| gpupy_host::buffer::free_all_blocks(d))
        .or_raise()
}

#[pyfunction]
fn pool_n_free_blocks(id: usize) -> PyResult<usize> {
    Ok(device::get(id).or_raise()?.pool.n_free_blocks())
}

/// The most bytes the pool may hold from the driver (0: no limit).
#[pyfunction]
fn pool_set_limit(id: usize, bytes: usize) -> PyResult<()> {
    device::get(id).or_raise()?.pool.set_limit(bytes);
    Ok(())
}

#[pyfunction]
fn pool_get_limit(id: usize) -> PyResult<usize> {
    Ok(device::get(id).or_raise()?.pool.limit())
}

/// The pool's out-of-memory hook: Python's garbage collector, which frees arrays that
/// only reference cycles keep (CuPy does the same before its retry).
fn collect_garbage() {
    Python::attach(|py| {
        if let Ok(gc) = py.import("gc") {
            let _ = gc.call_method0("collect");
        }
    });
}

/// A block of pinned host memory (`gpupy.cuda.PinnedMemoryPointer` holds one).
#[pyclass(name = "_Pinned", module = "gpupy._gpupy", frozen)]
struct PyPinned {
    inner: pinned::Pinned,
}

#[pymethods]
impl PyPinned {
    #[getter]
    fn ptr(&self) -> usize {
        self.inner.ptr()
    }
    #[getter]
    fn size(&self) -> usize {
        self.inner.bytes()
    }
}

/// At least `size` bytes of pinned host memory, from the pinned pool.
#[pyfunction]
fn pinned_alloc(py: Python<'_>, size: usize) -> PyResult<PyPinned> {
    let d = device::current().or_raise()?;
    let inner = py.detach(|| pinned::Pinned::alloc(d, size)).or_raise()?;
    Ok(PyPinned { inner })
}

#[pyfunction]
fn pinned_free_all_blocks(py: Python<'_>) -> PyResult<()> {
    let d = device::current().or_raise()?;
    py.detach(|| pinned::free_all_blocks(d)).or_raise()
}

#[pyfunction]
fn pinned_stats() -> (usize, usize, usize) {
    (
        pinned::used_bytes(),
        pinned::total_bytes(),
        pinned::n_free_blocks(),
    )
}

/// The memory a user's allocator returns for `size` bytes: its object's `ptr`, and the
/// object itself, which keeps the memory. A MemoryError from it reads as gpupy's
/// out-of-memory error; any other failure as a ValueError naming it.
fn call_allocator(
    f: &Py<PyAny>,
    size: usize,
) -> gpupy_host::Result<(u64, Box<dyn Any + Send + Sync>)> {
    Python::attach(|py| {
        let failed = |e: PyErr| {
            if e.is_instance_of::<PyMemoryError>(py) {
                gpupy_host::Error::OutOfMemory {
                    requested: size,
                    held: 0,
                    limit: 0,
                }
            } else {
                gpupy_host::Error::Value(format!("the allocator set by set_allocator failed: {e}"))
            }
        };
        let mem = f.call1(py, (size,)).map_err(failed)?;
        let ptr = mem
            .getattr(py, "ptr")
            .and_then(|p| p.extract::<u64>(py))
            .map_err(failed)?;
        Ok((ptr, Box::new(mem) as Box<dyn Any + Send + Sync>))
    })
}

/// Routes device allocations through `allocator(size) -> object with .ptr` (None: back
/// to gpupy's pool), as CuPy's `set_allocator`.
#[pyfunction]
#[pyo3(signature = (allocator = None))]
fn set_allocator(allocator: Option<Py<PyAny>>) {
    gpupy_host::buffer::set_allocator(allocator.map(|f| -> gpupy_host::buffer::Allocator {
        Box::new(move |size| call_allocator(&f, size))
    }));
}

/// Routes pinned host allocations through `allocator(size) -> object with .ptr` (None:
/// back to gpupy's pinned pool), as CuPy's `set_pinned_memory_allocator`.
#[pyfunction]
#[pyo3(signature = (allocator = None))]
fn set_pinned_memory_allocator(allocator: Option<Py<PyAny>>) {
    pinned::set_allocator(allocator.map(|f| -> pinned::Allocator {
        Box::new(move |size| call_allocator(&f, size).map(|(p, owner)| (p as usize, owner)))
    }));
}

/// `ptxas -v` output of every kernel for sm_90 (registers, stack frames, spills).
#[pyfunction]
fn ptxas_report() -> &'static str {
    gpupy_host::module::PTXAS_REPORT_SM90
}

/// Name fragments of kernels allowed a stack frame (libdevice trigonometry).
#[pyfunction]
fn ptxas_stack_allowed() -> Vec<&'static str> {
    gpupy_host::module::PTXAS_STACK_ALLOWED.lines().collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(availability, m)?)?;
    m.add_function(wrap_pyfunction!(get_device_count, m)?)?;
    m.add_function(wrap_pyfunction!(get_device_id, m)?)?;
    m.add_function(wrap_pyfunction!(set_device_id, m)?)?;
    m.add_function(wrap_pyfunction!(device_synchronize, m)?)?;
    m.add_function(wrap_pyfunction!(device_compute_capability, m)?)?;
    m.add_function(wrap_pyfunction!(device_properties, m)?)?;
    m.add_function(wrap_pyfunction!(device_mem_info, m)?)?;
    m.add_function(wrap_pyfunction!(pool_used_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(pool_total_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(pool_free_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(pool_free_all_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(ptxas_report, m)?)?;
    m.add_function(wrap_pyfunction!(ptxas_stack_allowed, m)?)?;
    m.add_function(wrap_pyfunction!(pool_n_free_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(pool_set_limit, m)?)?;
    m.add_function(wrap_pyfunction!(pool_get_limit, m)?)?;
    m.add_class::<PyPinned>()?;
    m.add_function(wrap_pyfunction!(set_allocator, m)?)?;
    m.add_function(wrap_pyfunction!(set_pinned_memory_allocator, m)?)?;
    m.add_function(wrap_pyfunction!(pinned_alloc, m)?)?;
    m.add_function(wrap_pyfunction!(pinned_free_all_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(pinned_stats, m)?)?;
    gpupy_host::buffer::set_oom_hook(collect_garbage);
    Ok(())
}
