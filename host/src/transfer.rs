//! Copies between host memory and the device at the bus's rate.
//!
//! The copy engines reach full speed only from pinned memory. From pinned memory (a
//! `gpupyx.empty_pinned` array) a copy goes straight to the engine. From pageable memory
//! (an ordinary NumPy array) the driver would stage it through its own small buffer one
//! piece at a time; instead, several threads each take a contiguous share of the data
//! and move it through two pinned staging buffers of their own: while the engine copies
//! one buffer, the thread fills (or empties) the other, and the threads' host copies run
//! on several cores at once. All copies go on the calling thread's current stream, so
//! they are ordered after the work queued there, as the single-call copies were.
//!
//! Small copies (below `PIPELINE_FROM`) go through the driver in one call: the threads'
//! start-up would cost more than it saves.

use std::thread;

use cudarc::driver::{result, sys};

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::event::Event;
use crate::pinned::Pinned;
use crate::stream::{self, Stream};

/// Bytes per staging buffer (each worker has two).
const STAGE: usize = 2 << 20;
/// Copies from this size on use the pipeline.
const PIPELINE_FROM: usize = 4 << 20;
/// The most worker threads of one copy.
const MAX_WORKERS: usize = 16;

/// Whether the driver knows `ptr` as page-locked host memory (pinned by gpupy or
/// registered by another library).
pub fn is_pinned(device: &Device, ptr: *const u8) -> Result<bool> {
    device.bind()?;
    let mut kind: u32 = 0;
    // SAFETY: the driver writes one `CUmemorytype` (a u32) for this attribute; an
    // unknown (pageable) pointer makes it return an error instead.
    let r = unsafe {
        sys::cuPointerGetAttribute(
            (&raw mut kind).cast(),
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            ptr as u64,
        )
    };
    Ok(r == sys::CUresult::CUDA_SUCCESS && kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32)
}

/// How many workers share `bytes`: one per `2 * STAGE` (so each has work for both
/// buffers), at most `MAX_WORKERS` and the machine's cores.
fn workers(bytes: usize) -> usize {
    let cores = thread::available_parallelism().map_or(4, |n| n.get());
    bytes
        .div_ceil(2 * STAGE)
        .clamp(1, MAX_WORKERS.min(cores.max(1)))
}

/// A staging buffer and the event that marks the end of its last device copy.
struct Stage {
    buf: Pinned,
    done: Event,
    pending: bool,
}

impl Stage {
    fn new(device: &'static Device) -> Result<Stage> {
        Ok(Stage {
            buf: Pinned::alloc(device, STAGE)?,
            done: Event::new(device, false)?,
            pending: false,
        })
    }

    /// Waits until the engine is done with the buffer.
    fn wait(&mut self) -> Result<()> {
        if self.pending {
            self.pending = false;
            self.done.synchronize()?;
        }
        Ok(())
    }
}

impl Drop for Stage {
    /// The buffer goes back to the pool only after the engine has finished with it.
    fn drop(&mut self) {
        let _ = self.wait();
    }
}

/// Copies `src` to device address `dst` on the current stream; returns once `src` has
/// been read (the device copy may still be in flight, ordered on the stream).
pub fn to_device(device: &'static Device, dst: u64, src: &[u8]) -> Result<()> {
    if src.is_empty() {
        return Ok(());
    }
    let s = stream::current_stream(device);
    let pinned = is_pinned(device, src.as_ptr())?;
    if src.len() < PIPELINE_FROM || pinned {
        device.bind()?;
        // SAFETY: `dst` holds `src.len()` bytes (the caller's contract); `src` is
        // borrowed until the call returns (pageable) or the wait below (pinned).
        check("cuMemcpyHtoDAsync", unsafe {
            result::memcpy_htod_async(dst, src, s.raw())
        })?;
        // From pageable memory the driver has copied `src` into its own staging memory
        // when the call returns (CUDA's "API synchronization behavior"), so the stream
        // need not be waited for: a small upload (filter taps, a shape table) does not
        // stall the host behind the queued kernels. The engine reads pinned memory
        // later, while the stream runs: that copy is waited for.
        return if pinned { s.synchronize() } else { Ok(()) };
    }
    let share = src.len().div_ceil(workers(src.len()));
    let parts = src.chunks(share).enumerate();
    in_parallel(
        device,
        &s,
        parts.map(|(w, p)| (dst + (w * share) as u64, p)),
        stage_in,
    )
}

/// Runs `work(device, stream, device address, host part)` for each `(address, part)` on
/// a thread of its own, all copying on one stream (`worker_stream`); waits for all.
fn in_parallel<H: Send>(
    device: &'static Device,
    s: &Stream,
    parts: impl Iterator<Item = (u64, H)>,
    work: fn(&'static Device, &Stream, u64, H) -> Result<()>,
) -> Result<()> {
    let s = worker_stream(device, s)?;
    thread::scope(|scope| {
        let jobs: Vec<_> = parts
            .map(|(at, part)| {
                let s = s.clone();
                scope.spawn(move || work(device, &s, at, part))
            })
            .collect();
        join(jobs)
    })
}

/// The stream the workers queue their copies on: the caller's, unless that is the
/// per-thread default stream, whose handle names another stream on each worker thread;
/// then a private stream that first waits for the caller's work. (Every worker waits for
/// its own copies before it returns, so later work needs no wait in the other direction.)
fn worker_stream(device: &'static Device, s: &Stream) -> Result<Stream> {
    if s.ptr() != stream::PER_THREAD_HANDLE {
        return Ok(s.clone());
    }
    let private = Stream::new(device, true, 0)?;
    let mut ready = Event::new(device, false)?;
    s.record(&mut ready)?;
    private.wait_event(&ready)?;
    Ok(private)
}

/// One worker of `to_device`: `part` to device address `dst`, through two stages.
fn stage_in(device: &'static Device, s: &Stream, dst: u64, part: &[u8]) -> Result<()> {
    device.bind()?;
    let mut stages = [Stage::new(device)?, Stage::new(device)?];
    for (j, piece) in part.chunks(STAGE).enumerate() {
        let stage = &mut stages[j % 2];
        stage.wait()?;
        // SAFETY: the stage's buffer holds STAGE >= piece.len() bytes and the engine is
        // done with it (waited above); the regions are distinct allocations.
        unsafe {
            std::ptr::copy_nonoverlapping(piece.as_ptr(), stage.buf.ptr() as *mut u8, piece.len());
        }
        let staged: &[u8] =
            // SAFETY: the bytes just written; the stage outlives the copy (its drop waits).
            unsafe { std::slice::from_raw_parts(stage.buf.ptr() as *const u8, piece.len()) };
        // SAFETY: `dst + j * STAGE` and the piece's length lie inside the destination
        // (the caller's contract); the source is pinned and kept until the event.
        check("cuMemcpyHtoDAsync", unsafe {
            result::memcpy_htod_async(dst + (j * STAGE) as u64, staged, s.raw())
        })?;
        s.record(&mut stage.done)?;
        stage.pending = true;
    }
    Ok(())
}

/// Copies `dst.len()` bytes from device address `src` into `dst` on the
/// current stream, after the work queued there; returns when `dst` holds them.
pub fn to_host(device: &'static Device, dst: &mut [u8], src: u64) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    let s = stream::current_stream(device);
    if dst.len() < PIPELINE_FROM || is_pinned(device, dst.as_ptr())? {
        device.bind()?;
        // SAFETY: `src` holds `dst.len()` bytes (the caller's contract); `dst` is
        // borrowed until the wait below, after which the copy is done.
        check("cuMemcpyDtoHAsync", unsafe {
            result::memcpy_dtoh_async(dst, src, s.raw())
        })?;
        return s.synchronize();
    }
    let share = dst.len().div_ceil(workers(dst.len()));
    let parts = dst.chunks_mut(share).enumerate();
    in_parallel(
        device,
        &s,
        parts.map(|(w, p)| (src + (w * share) as u64, p)),
        stage_out,
    )
}

/// One worker of `to_host`: device address `src` into `part`, through two stages: the
/// engine fills one while the thread empties the other.
fn stage_out(device: &'static Device, s: &Stream, src: u64, part: &mut [u8]) -> Result<()> {
    device.bind()?;
    let mut stages = [Stage::new(device)?, Stage::new(device)?];
    let len = part.len();
    let pieces = len.div_ceil(STAGE);
    let piece_len = |j: usize| STAGE.min(len - j * STAGE);
    let fetch = |stage: &mut Stage, j: usize| -> Result<()> {
        let buf: &mut [u8] =
            // SAFETY: the stage's buffer holds STAGE bytes, unused by the engine (the
            // stage was emptied before this fetch); it outlives the copy (drop waits).
            unsafe { std::slice::from_raw_parts_mut(stage.buf.ptr() as *mut u8, piece_len(j)) };
        // SAFETY: `src + j * STAGE` and the piece's length lie inside the source (the
        // caller's contract).
        check("cuMemcpyDtoHAsync", unsafe {
            result::memcpy_dtoh_async(buf, src + (j * STAGE) as u64, s.raw())
        })?;
        s.record(&mut stage.done)?;
        stage.pending = true;
        Ok(())
    };
    fetch(&mut stages[0], 0)?;
    for j in 0..pieces {
        if j + 1 < pieces {
            fetch(&mut stages[(j + 1) % 2], j + 1)?;
        }
        let stage = &mut stages[j % 2];
        stage.wait()?;
        let n = piece_len(j);
        // SAFETY: the stage holds piece j (waited above); the destination range is
        // inside `part`; the regions are distinct allocations.
        unsafe {
            std::ptr::copy_nonoverlapping(
                stage.buf.ptr() as *const u8,
                part.as_mut_ptr().add(j * STAGE),
                n,
            );
        }
    }
    Ok(())
}

/// Queues a copy of `len` bytes of pinned host memory at `src` to device address `dst`
/// on the current stream, and returns at once (CuPy's non-blocking transfers).
///
/// # Safety
/// `src..src + len` is pinned host memory that stays allocated and unchanged until the
/// stream reaches the copy (the caller keeps its owner, e.g. by a host function queued
/// after it); `dst` holds `len` bytes of `device`.
pub unsafe fn to_device_async(
    device: &'static Device,
    dst: u64,
    src: *const u8,
    len: usize,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let (s, _) = stream::current(device);
    device.bind()?;
    // SAFETY: per the contract.
    check("cuMemcpyHtoDAsync", unsafe {
        sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), len, s).result()
    })
}

/// Queues a copy of `len` bytes from device address `src` into pinned host memory at
/// `dst` on the current stream, and returns at once.
///
/// # Safety
/// `dst..dst + len` is pinned host memory that stays allocated, and is not read, until
/// the stream reaches the copy; `src` holds `len` bytes of `device` until then.
pub unsafe fn to_host_async(
    device: &'static Device,
    dst: *mut u8,
    src: u64,
    len: usize,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let (s, _) = stream::current(device);
    device.bind()?;
    // SAFETY: per the contract.
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, len, s).result()
    })
}

/// Waits for every worker; the first error (or a worker's panic, as an error) wins.
fn join(jobs: Vec<thread::ScopedJoinHandle<'_, Result<()>>>) -> Result<()> {
    let mut first = Ok(());
    for job in jobs {
        let r = job.join().unwrap_or_else(|_| {
            Err(Error::Value(
                "a transfer thread panicked (a gpupy bug)".into(),
            ))
        });
        if first.is_ok() {
            first = r;
        }
    }
    first
}
