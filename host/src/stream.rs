//! CUDA streams (CuPy's `cupy.cuda.Stream`) and each thread's current stream.
//!
//! Every launch, copy and fill of gpupy goes to the calling thread's current stream on
//! the array's device (`current`); a thread starts on the legacy null stream. A stream
//! is made current by `set_current` (Python's `with stream:` and `stream.use()`), which
//! keeps it alive while it is current, so a handle read by `current` is always valid.
//!
//! Each stream has an `id` that is never reused (handles are: the driver hands a
//! destroyed stream's handle to the next one). The pool keys its free lists by it
//! (`pool.rs`): a block freed on a stream is reused only by later work on the same
//! stream, which the stream orders after the block's last use.

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::event::Event;

/// The id of the legacy null stream (handle 0), the same on every thread.
pub const NULL_ID: u64 = crate::pool::NULL_STREAM;
/// The per-thread default stream's handle (`CU_STREAM_PER_THREAD`): it names a
/// different stream on each thread that uses it.
pub const PER_THREAD_HANDLE: usize = 2;

/// Ids for created, external and per-thread streams; 0 is the null stream's.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// A stream on one device; clones share it. The last clone of a stream gpupy created
/// waits for its work, hands its cached blocks to the null stream and destroys it.
#[derive(Clone)]
pub struct Stream(Arc<Inner>);

struct Inner {
    /// The `CUstream` handle as an address (0: the legacy null stream).
    raw: usize,
    id: u64,
    device: &'static Device,
    /// Created by gpupy (destroyed on drop), not null, per-thread or external.
    owned: bool,
}

thread_local! {
    /// This thread's current stream per device id (`None`: the null stream).
    static CURRENT: RefCell<Vec<Option<Stream>>> = const { RefCell::new(Vec::new()) };
    /// This thread's per-thread default stream's id (its handle is the same on every
    /// thread, but each thread's is a different stream).
    static PER_THREAD_ID: Cell<u64> = const { Cell::new(0) };
}

impl Stream {
    /// The legacy null stream of `device`.
    pub fn null(device: &'static Device) -> Stream {
        Stream(Arc::new(Inner {
            raw: 0,
            id: NULL_ID,
            device,
            owned: false,
        }))
    }

    /// The calling thread's per-thread default stream of `device` (CuPy's `Stream.ptds`).
    pub fn per_thread(device: &'static Device) -> Stream {
        let id = PER_THREAD_ID.with(|c| {
            if c.get() == 0 {
                c.set(fresh_id());
            }
            c.get()
        });
        Stream(Arc::new(Inner {
            raw: PER_THREAD_HANDLE,
            id,
            device,
            owned: false,
        }))
    }

    /// A new stream: `non_blocking` ones do not wait for the null stream's work (nor it
    /// for theirs); lower `priority` values run first (the driver clamps the value to
    /// its range).
    pub fn new(device: &'static Device, non_blocking: bool, priority: i32) -> Result<Stream> {
        device.bind()?;
        let kind = if non_blocking {
            result::stream::StreamKind::NonBlocking
        } else {
            result::stream::StreamKind::Default
        };
        let raw = check(
            "cuStreamCreateWithPriority",
            result::stream::create_with_priority(kind, priority),
        )?;
        Ok(Stream(Arc::new(Inner {
            raw: raw as usize,
            id: fresh_id(),
            device,
            owned: true,
        })))
    }

    /// A stream made elsewhere (CuPy's `ExternalStream`): gpupy uses the handle and
    /// never destroys it.
    ///
    /// # Safety
    /// `raw` is a stream of `device`'s primary context (or 0, or the per-thread handle)
    /// that stays valid while this value or any array allocated on it is used.
    pub unsafe fn external(device: &'static Device, raw: usize) -> Stream {
        Stream(Arc::new(Inner {
            raw,
            id: if raw == 0 { NULL_ID } else { fresh_id() },
            device,
            owned: false,
        }))
    }

    pub fn raw(&self) -> sys::CUstream {
        self.0.raw as sys::CUstream
    }
    /// The handle as CuPy's `Stream.ptr` reports it.
    pub fn ptr(&self) -> usize {
        self.0.raw
    }
    pub fn id(&self) -> u64 {
        self.0.id
    }
    pub fn device(&self) -> &'static Device {
        self.0.device
    }

    /// Waits for the work queued on the stream.
    pub fn synchronize(&self) -> Result<()> {
        self.0.device.bind()?;
        // SAFETY: the handle is valid while `self` lives (see `external`).
        check("cuStreamSynchronize", unsafe {
            result::stream::synchronize(self.raw())
        })
    }

    /// Whether the work queued on the stream has finished.
    pub fn done(&self) -> Result<bool> {
        self.0.device.bind()?;
        // SAFETY: as in `synchronize`.
        match unsafe { sys::cuStreamQuery(self.raw()) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(Error::cuda("cuStreamQuery", cudarc::driver::DriverError(e))),
        }
    }

    /// Records `event` at the current end of the stream's work.
    pub fn record(&self, event: &mut Event) -> Result<()> {
        same_device(self.0.device, event.device())?;
        // SAFETY: the handle is valid while `self` lives (see `external`).
        unsafe { event.record_raw(self.raw()) }
    }

    /// Makes the stream's later work wait for `event`'s recorded point.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        same_device(self.0.device, event.device())?;
        self.0.device.bind()?;
        // SAFETY: both handles are valid while their owners live.
        check("cuStreamWaitEvent", unsafe {
            result::stream::wait_event(
                self.raw(),
                event.raw(),
                sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        })
    }

    /// Runs `f` on a driver thread once the work queued before it has finished (later
    /// work waits for `f`). `f` must not call the driver (CUDA's rule for host functions).
    pub fn launch_host_func(&self, f: Box<dyn FnOnce() + Send>) -> Result<()> {
        unsafe extern "C" fn trampoline(arg: *mut std::ffi::c_void) {
            // SAFETY: `arg` is the box leaked below, handed to exactly this one call.
            let f = unsafe { Box::from_raw(arg.cast::<Box<dyn FnOnce() + Send>>()) };
            // A panic must not unwind into the driver's thread.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        }
        self.0.device.bind()?;
        let arg = Box::into_raw(Box::new(f)).cast::<std::ffi::c_void>();
        // SAFETY: the handle is valid (see `synchronize`); the driver calls `trampoline`
        // once with `arg`, which owns the closure from then on.
        let r = unsafe { result::stream::launch_host_function(self.raw(), trampoline, arg) };
        if let Err(e) = r {
            // SAFETY: the driver refused the call, so `arg` is still ours, unconsumed.
            drop(unsafe { Box::from_raw(arg.cast::<Box<dyn FnOnce() + Send>>()) });
            return Err(Error::cuda("cuLaunchHostFunc", e));
        }
        Ok(())
    }
}

impl PartialEq for Stream {
    /// Same stream: same handle on the same device (CuPy compares `ptr`); each thread's
    /// per-thread stream equals the others' as CuPy's does.
    fn eq(&self, other: &Stream) -> bool {
        self.0.raw == other.0.raw && std::ptr::eq(self.0.device, other.0.device)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if !self.owned || self.device.bind().is_err() {
            return;
        }
        let raw = self.raw as sys::CUstream;
        // SAFETY: the handle came from cuStreamCreate and is destroyed only here, once.
        // After the wait, no work of this stream uses its cached blocks, so any stream
        // may take them.
        unsafe {
            if result::stream::synchronize(raw).is_ok() {
                self.device.pool.retire(self.id);
            }
            let _ = result::stream::destroy(raw);
        }
    }
}

fn same_device(a: &Device, b: &Device) -> Result<()> {
    if std::ptr::eq(a, b) {
        Ok(())
    } else {
        Err(Error::Value(format!(
            "the stream is on device {} and the event on device {}",
            a.id, b.id
        )))
    }
}

/// The calling thread's current stream on `device`, as `(handle, id)`: the handle stays
/// valid until the thread makes another stream current.
#[inline]
pub fn current(device: &Device) -> (sys::CUstream, u64) {
    CURRENT.with(|c| match c.borrow().get(device.id) {
        Some(Some(s)) => (s.raw(), s.id()),
        _ => (std::ptr::null_mut(), NULL_ID),
    })
}

/// The calling thread's current stream on `device` as a `Stream`.
pub fn current_stream(device: &'static Device) -> Stream {
    CURRENT.with(|c| match c.borrow().get(device.id) {
        Some(Some(s)) => s.clone(),
        _ => Stream::null(device),
    })
}

/// Makes `stream` the calling thread's current stream on its device; returns the one it
/// replaces (for `with stream:` to restore).
pub fn set_current(stream: Stream) -> Stream {
    let device = stream.0.device;
    let previous = current_stream(device);
    CURRENT.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() <= device.id {
            c.resize(device.id + 1, None);
        }
        c[device.id] = (stream.0.raw != 0 || stream.0.id != NULL_ID).then_some(stream);
    });
    previous
}

/// Makes the stream `waiter` wait for the work queued so far on the stream `signaller`
/// (both handles of `device`'s context; 0 is the legacy null stream): an event recorded
/// on one and waited for by the other, as the array-exchange protocols ask of whoever
/// hands memory between streams. Nothing to do when they are the same stream.
///
/// # Safety
/// Both handles are valid streams of `device`'s context (or 0, or the per-thread handle).
pub unsafe fn order_after(device: &'static Device, waiter: usize, signaller: usize) -> Result<()> {
    if waiter == signaller {
        return Ok(());
    }
    let mut event = Event::new(device, false)?;
    // SAFETY: the signaller's handle is valid (the caller's contract); the external
    // stream value is only used for this call.
    let signal = unsafe { Stream::external(device, signaller) };
    signal.record(&mut event)?;
    // SAFETY: as above, for the waiter.
    let wait = unsafe { Stream::external(device, waiter) };
    wait.wait_event(&event)
}
