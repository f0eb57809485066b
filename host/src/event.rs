//! CUDA events (CuPy's `cupy.cuda.Event`): mark a point in the stream, wait for it, or
//! time the work between two of them.

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::stream::Stream;

pub struct Event {
    raw: sys::CUevent,
    device: &'static Device,
    recorded: bool,
}

// SAFETY: an event handle may be used from any thread with its context bound, which
// every method does first.
unsafe impl Send for Event {}
unsafe impl Sync for Event {}

impl Event {
    /// `timing=false` makes a cheaper event for synchronization only.
    pub fn new(device: &'static Device, timing: bool) -> Result<Event> {
        device.bind()?;
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING
        };
        let raw = check("cuEventCreate", result::event::create(flags))?;
        Ok(Event {
            raw,
            device,
            recorded: false,
        })
    }

    /// Marks the current end of `stream`'s work (the calling thread's current stream
    /// when `None`).
    pub fn record(&mut self, stream: Option<&Stream>) -> Result<()> {
        let raw = match stream {
            Some(s) if !std::ptr::eq(s.device(), self.device) => {
                return Err(Error::Value(format!(
                    "the event is on device {} and the stream on device {}",
                    self.device.id,
                    s.device().id
                )));
            }
            Some(s) => s.raw(),
            None => crate::stream::current(self.device).0,
        };
        self.device.bind()?;
        // SAFETY: valid event; the stream handle is valid while its owner lives (the
        // caller's `Stream`, or this thread's current stream).
        check("cuEventRecord", unsafe {
            result::event::record(self.raw, raw)
        })?;
        self.recorded = true;
        Ok(())
    }

    pub fn raw(&self) -> sys::CUevent {
        self.raw
    }
    pub fn device(&self) -> &'static Device {
        self.device
    }

    /// Waits until the work before the record has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.device.bind()?;
        // SAFETY: valid event.
        check("cuEventSynchronize", unsafe {
            result::event::synchronize(self.raw)
        })
    }

    /// Whether the work before the record has finished.
    pub fn done(&self) -> Result<bool> {
        self.device.bind()?;
        // SAFETY: valid event.
        match unsafe { result::event::query(self.raw) } {
            Ok(()) => Ok(true),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            Err(e) => Err(Error::cuda("cuEventQuery", e)),
        }
    }
}

/// Milliseconds between two recorded events (CuPy's `get_elapsed_time`).
pub fn elapsed_ms(start: &Event, end: &Event) -> Result<f32> {
    if !start.recorded || !end.recorded {
        return Err(Error::Value(
            "both events must be recorded before get_elapsed_time".into(),
        ));
    }
    start.device.bind()?;
    // SAFETY: both events are valid and recorded.
    check("cuEventElapsedTime", unsafe {
        result::event::elapsed(start.raw, end.raw)
    })
}

impl Drop for Event {
    fn drop(&mut self) {
        if self.device.bind().is_ok() {
            // SAFETY: valid event, destroyed once. The driver defers the release if the
            // event is still pending.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}
