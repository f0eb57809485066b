//! Devices, events and the memory pool, for the Python layer's `gpupy.cuda` (which gives
//! them CuPy's names and classes).

use gpupy_host::{device, event};
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

/// CuPy's `cupy.cuda.Event`, on the current device.
#[pyclass(name = "Event", module = "gpupy.cuda")]
struct Event {
    inner: event::Event,
}

#[pymethods]
impl Event {
    #[new]
    #[pyo3(signature = (block = false, disable_timing = false, interprocess = false))]
    fn new(block: bool, disable_timing: bool, interprocess: bool) -> PyResult<Event> {
        if block || interprocess {
            return Err(pyo3::exceptions::PyNotImplementedError::new_err(
                "gpupy's Event supports block=False and interprocess=False",
            ));
        }
        let d = device::current().or_raise()?;
        Ok(Event {
            inner: event::Event::new(d, !disable_timing).or_raise()?,
        })
    }

    /// Records the event on the (null) stream; `stream` is accepted for CuPy's signature.
    #[pyo3(signature = (stream = None))]
    fn record(&mut self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let _ = stream;
        self.inner.record().or_raise()
    }

    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let e = &self.inner;
        py.detach(|| e.synchronize()).or_raise()
    }

    #[getter]
    fn done(&self) -> PyResult<bool> {
        self.inner.done().or_raise()
    }
}

/// Milliseconds between two recorded events (CuPy's `cupy.cuda.get_elapsed_time`).
#[pyfunction]
fn get_elapsed_time(start: PyRef<'_, Event>, end: PyRef<'_, Event>) -> PyResult<f32> {
    event::elapsed_ms(&start.inner, &end.inner).or_raise()
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
    m.add_function(wrap_pyfunction!(get_elapsed_time, m)?)?;
    m.add_class::<Event>()?;
    Ok(())
}
