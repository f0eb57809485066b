//! CUDA events (CuPy's `cupy.cuda.Event`): mark a point in the stream, wait for it, or
//! time the work between two of them.

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};

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
        Event::with_flags(device, timing, false, false)
    }

    /// An event with CUDA's flags: `timing`; `blocking` (a wait for it sleeps instead
    /// of spinning); `interprocess` (shareable with other processes; needs no timing).
    pub fn with_flags(
        device: &'static Device,
        timing: bool,
        blocking: bool,
        interprocess: bool,
    ) -> Result<Event> {
        use sys::CUevent_flags::*;
        if interprocess && timing {
            return Err(Error::Value(
                "Timing must be disabled for interprocess events".into(),
            ));
        }
        let flags = (!timing as u32 * CU_EVENT_DISABLE_TIMING as u32)
            | (blocking as u32 * CU_EVENT_BLOCKING_SYNC as u32)
            | (interprocess as u32 * CU_EVENT_INTERPROCESS as u32);
        device.bind()?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: the driver writes one event handle; the flags are CUDA's.
        check("cuEventCreate", unsafe {
            sys::cuEventCreate(&mut raw, flags).result()
        })?;
        Ok(Event {
            raw,
            device,
            recorded: false,
        })
    }

    /// Marks the current end of the work on the stream `raw` (`Stream::record` is the
    /// way in: it checks the devices).
    ///
    /// # Safety
    /// `raw` is a valid stream of this event's device (or 0, or the per-thread handle).
    pub(crate) unsafe fn record_raw(&mut self, raw: sys::CUstream) -> Result<()> {
        self.device.bind()?;
        // SAFETY: valid event; the stream handle per the contract.
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
