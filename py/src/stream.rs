//! Streams and events for `gpupy.cuda` (the Python classes `Stream`, `ExternalStream`
//! and `Event` in `gpupy/cuda/stream.py` give them CuPy's names and semantics).

use gpupy_host::{device, event, stream};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::OrRaise;

/// A stream handle on one device (`gpupy.cuda.Stream` holds one).
#[pyclass(name = "_Stream", module = "gpupy._gpupy", frozen)]
pub struct PyStream {
    inner: stream::Stream,
}

#[pymethods]
impl PyStream {
    /// A new stream on the current device.
    #[new]
    #[pyo3(signature = (non_blocking = false, priority = 0))]
    fn new(non_blocking: bool, priority: i32) -> PyResult<PyStream> {
        let d = device::current().or_raise()?;
        Ok(PyStream {
            inner: stream::Stream::new(d, non_blocking, priority).or_raise()?,
        })
    }

    /// The legacy null stream of the current device.
    #[staticmethod]
    fn null() -> PyResult<PyStream> {
        let d = device::current().or_raise()?;
        Ok(PyStream {
            inner: stream::Stream::null(d),
        })
    }

    /// The calling thread's per-thread default stream of the current device.
    #[staticmethod]
    fn per_thread() -> PyResult<PyStream> {
        let d = device::current().or_raise()?;
        Ok(PyStream {
            inner: stream::Stream::per_thread(d),
        })
    }

    /// A stream handle made by another library, on device `device_id` (the current
    /// device when negative).
    #[staticmethod]
    fn external(ptr: usize, device_id: i64) -> PyResult<PyStream> {
        let d = if device_id < 0 {
            device::current()
        } else {
            device::get(device_id as usize)
        }
        .or_raise()?;
        // SAFETY: the caller vouches for the handle, as with CuPy's ExternalStream: it is
        // a stream of this device that outlives its use here.
        let inner = unsafe { stream::Stream::external(d, ptr) };
        Ok(PyStream { inner })
    }

    #[getter]
    fn ptr(&self) -> usize {
        self.inner.ptr()
    }

    #[getter]
    fn device_id(&self) -> usize {
        self.inner.device().id
    }

    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let s = &self.inner;
        py.detach(|| s.synchronize()).or_raise()
    }

    #[getter]
    fn done(&self) -> PyResult<bool> {
        self.inner.done().or_raise()
    }

    fn wait_event(&self, event: PyRef<'_, Event>) -> PyResult<()> {
        self.inner.wait_event(&event.inner).or_raise()
    }

    /// Calls `f()` (holding the GIL, on a driver thread) once the work queued before it
    /// has finished; later work on the stream waits for it. A failure in `f` is printed,
    /// as Python prints exceptions it cannot raise anywhere.
    fn launch_host_func(&self, f: Py<PyAny>) -> PyResult<()> {
        let call = Box::new(move || {
            Python::attach(|py| {
                if let Err(e) = f.call0(py) {
                    e.print(py);
                }
            })
        });
        self.inner.launch_host_func(call).or_raise()
    }

    /// Makes this stream the calling thread's current one on its device; returns the
    /// one it replaces.
    fn make_current(&self) -> PyStream {
        PyStream {
            inner: stream::set_current(self.inner.clone()),
        }
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyStream>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> usize {
        self.inner.ptr() ^ (self.inner.device().id << 48)
    }
}

/// The stream a Python value names: a `_Stream`, or an object holding one as `_s` (the
/// classes of `gpupy/cuda/stream.py`).
fn stream_of<'py>(s: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyStream>> {
    if let Ok(ps) = s.cast::<PyStream>() {
        return Ok(ps.clone());
    }
    s.getattr("_s")
        .ok()
        .and_then(|h| h.cast_into::<PyStream>().ok())
        .ok_or_else(|| {
            PyTypeError::new_err(format!(
                "expected a gpupy.cuda.Stream, got {}",
                s.get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })
}

/// Runs `f` with `stream` (a gpupy Stream, or None: the current stream) as the calling
/// thread's current stream, restoring the previous one after.
pub fn on_stream<T>(
    stream: Option<&Bound<'_, PyAny>>,
    f: impl FnOnce() -> PyResult<T>,
) -> PyResult<T> {
    match stream.filter(|s| !s.is_none()) {
        None => f(),
        Some(s) => {
            let s = stream_of(s)?;
            let previous = stream::set_current(s.get().inner.clone());
            let r = f();
            stream::set_current(previous);
            r
        }
    }
}

/// CuPy's `cupy.cuda.Event`, on the current device.
#[pyclass(name = "Event", module = "gpupy.cuda")]
pub struct Event {
    inner: event::Event,
}

#[pymethods]
impl Event {
    #[new]
    #[pyo3(signature = (block = false, disable_timing = false, interprocess = false))]
    fn new(block: bool, disable_timing: bool, interprocess: bool) -> PyResult<Event> {
        let d = device::current().or_raise()?;
        Ok(Event {
            inner: event::Event::with_flags(d, !disable_timing, block, interprocess).or_raise()?,
        })
    }

    /// Records the event on `stream` (the current stream when None).
    #[pyo3(signature = (stream = None))]
    fn record(&mut self, stream: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        match stream.filter(|s| !s.is_none()) {
            Some(s) => {
                let s = stream_of(s)?;
                s.get().inner.record(&mut self.inner).or_raise()
            }
            None => {
                let s = stream::current_stream(self.inner.device());
                s.record(&mut self.inner).or_raise()
            }
        }
    }

    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let e = &self.inner;
        py.detach(|| e.synchronize()).or_raise()
    }

    #[getter]
    fn done(&self) -> PyResult<bool> {
        self.inner.done().or_raise()
    }

    /// The `CUevent` handle.
    #[getter]
    fn ptr(&self) -> usize {
        self.inner.raw() as usize
    }
}

/// Milliseconds between two recorded events (CuPy's `cupy.cuda.get_elapsed_time`).
#[pyfunction]
fn get_elapsed_time(start: PyRef<'_, Event>, end: PyRef<'_, Event>) -> PyResult<f32> {
    event::elapsed_ms(&start.inner, &end.inner).or_raise()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStream>()?;
    m.add_class::<Event>()?;
    m.add_function(wrap_pyfunction!(get_elapsed_time, m)?)?;
    Ok(())
}
