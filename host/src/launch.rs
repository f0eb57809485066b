//! The one launch builder: every kernel launch of gpupy goes through [`Launch`].
//!
//! ```ignore
//! Launch::new(device, elementwise::cast(from, to, true))?
//!     .grid(blocks).block(256)
//!     .arg(args).arg(src_ptr).arg(dst_ptr)
//!     .run()
//! ```
//!
//! The builder takes the kernel by its registry handle (so the kernel exists in a loaded
//! module), copies each argument's bytes into a parameter buffer in order, checks the
//! launch shape against the device's limits (grid, block, dynamic shared memory, the
//! parameter space), binds the device's context, and launches on the calling thread's
//! current stream (`stream.rs`). The `unsafe` of a launch lives here alone.
//!
//! What the builder cannot check is each kernel's own contract: that the arguments
//! match its parameter list in number, order and types (they are the `#[repr(C)]`
//! structs of `gpupy_kernels::args` and the families' launch structs, device pointers
//! and scalars, named at each kernel's entry point), and that every element the kernel
//! will touch lies inside its allocation. The ops check layouts against their buffers
//! before they build a launch (see `ops/mod.rs`); every `Array` layout fits its buffer.

use std::ffi::c_void;
use std::mem::{MaybeUninit, align_of, size_of};
use std::sync::{Mutex, MutexGuard};

use cudarc::driver::{result, sys};
use gpupy_kernels::registry::Kernel;

use crate::device::Device;
use crate::error::{Error, Result, check};
use crate::module::Function;
use crate::user_module::UserFunction;

/// Bytes of kernel parameters a launch may pass. CUDA allows 4 KiB; the largest list
/// gpupy passes is `select`'s (a `Strided<4>` and four pointers, about 820 bytes), and the
/// builder is moved by value through each call, so its buffer stays small.
const PARAM_BYTES: usize = 1024;
const _: () =
    assert!(std::mem::size_of::<gpupy_kernels::args::Strided<4>>() + 4 * 8 <= PARAM_BYTES);
/// Parameters a launch may pass.
const MAX_PARAMS: usize = 32;

/// A kernel launch being built; see the module docs.
#[must_use = "a launch does nothing until `run`"]
pub struct Launch<'d> {
    device: &'d Device,
    kernel: Kernel,
    f: Function,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared: u32,
    stream: sys::CUstream,
    /// The arguments' bytes, each at an offset aligned for its type.
    buf: [MaybeUninit<u128>; PARAM_BYTES / 16],
    offsets: [usize; MAX_PARAMS],
    count: usize,
    used: usize,
    /// An argument that did not fit: reported by `run`.
    overflow: bool,
    /// Launched with `cuLaunchCooperativeKernel`.
    cooperative: bool,
}

impl<'d> Launch<'d> {
    /// A launch of `kernel` on `device`: one block of one thread until set otherwise.
    pub fn new(device: &'d Device, kernel: Kernel) -> Result<Launch<'d>> {
        let f = device.kernel(kernel)?;
        Ok(Launch {
            device,
            kernel,
            f,
            grid: (1, 1, 1),
            block: (1, 1, 1),
            shared: 0,
            stream: crate::stream::current(device).0,
            buf: [MaybeUninit::uninit(); PARAM_BYTES / 16],
            offsets: [0; MAX_PARAMS],
            count: 0,
            used: 0,
            overflow: false,
            cooperative: false,
        })
    }

    /// A one-dimensional grid of `blocks` blocks.
    pub fn grid(self, blocks: u32) -> Self {
        self.grid3((blocks, 1, 1))
    }

    pub fn grid3(mut self, grid: (u32, u32, u32)) -> Self {
        self.grid = grid;
        self
    }

    /// A one-dimensional grid of as many blocks of `threads` threads as the GPU holds
    /// resident at once (the kernel's occupancy times the SMs), at most `work` blocks: for
    /// grid-stride kernels whose per-thread setup is costly (a jump-ahead), so every
    /// thread starts once and no block waits for a second wave.
    pub fn resident_grid(self, threads: u32, work: u64) -> Result<Self> {
        let blocks = self.resident_blocks(threads, 0)?.min(work.max(1)) as u32;
        Ok(self.grid(blocks).block(threads))
    }

    /// How many blocks of `threads` threads and `shared` bytes of dynamic shared memory
    /// the GPU holds resident at once (at least one per SM).
    pub fn resident_blocks(&self, threads: u32, shared: u32) -> Result<u64> {
        // The driver's occupancy query costs about as much as a launch, so each answer
        // is kept, by function handle: modules stay loaded for the process, so a handle
        // names one function of one context for good.
        type Known = Vec<(usize, u32, u32, i32)>;
        static PER_SM: Mutex<Known> = Mutex::new(Vec::new());
        let key = (self.f.0 as usize, threads, shared);
        let known = lock(&PER_SM)
            .iter()
            .find(|&&(f, t, s, _)| (f, t, s) == key)
            .map(|e| e.3);
        let per_sm = match known {
            Some(n) => n,
            None => {
                self.device.bind()?;
                // SAFETY: `f` is a function of a module loaded in this device's context,
                // which is bound; the call only reads the function's attributes.
                let n = check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
                    result::occupancy::max_active_block_per_multiprocessor(
                        self.f.0,
                        threads as i32,
                        shared as usize,
                    )
                })?;
                lock(&PER_SM).push((key.0, key.1, key.2, n));
                n
            }
        };
        let sms = self.device.props.multi_processor_count.max(1) as u64;
        Ok(per_sm.max(1) as u64 * sms)
    }

    /// A cooperative launch (`cuLaunchCooperativeKernel`): the driver starts every
    /// block at once, so the kernel may wait for all of them (a grid barrier). The grid
    /// must fit what [`resident_blocks`](Self::resident_blocks) reports (checked).
    pub fn cooperative(mut self) -> Self {
        self.cooperative = true;
        self
    }

    /// The most threads a block of this kernel may have on this device (its registers
    /// decide it), asked of the driver once per function.
    pub fn max_threads(&self) -> Result<u32> {
        static KNOWN: Mutex<Vec<(usize, u32)>> = Mutex::new(Vec::new());
        let key = self.f.0 as usize;
        if let Some(&(_, n)) = lock(&KNOWN).iter().find(|e| e.0 == key) {
            return Ok(n);
        }
        self.device.bind()?;
        // SAFETY: `f` is a function of a module loaded in this device's context, which is
        // bound; the call only reads one of its attributes.
        let n = check("cuFuncGetAttribute", unsafe {
            result::function::get_function_attribute(
                self.f.0,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            )
        })?;
        let n = n.max(32) as u32;
        lock(&KNOWN).push((key, n));
        Ok(n)
    }

    /// Blocks of `threads` threads in x.
    pub fn block(mut self, threads: u32) -> Self {
        self.block = (threads, 1, 1);
        self
    }

    /// Bytes of dynamic shared memory per block.
    pub fn shared(mut self, bytes: u32) -> Self {
        self.shared = bytes;
        self
    }

    /// The next kernel parameter: a scalar, a device pointer (`u64` or a raw pointer) or
    /// one of the `#[repr(C)]` launch structs, copied by value.
    pub fn arg<T: Copy>(mut self, value: T) -> Self {
        let align = align_of::<T>().max(1);
        let at = self.used.next_multiple_of(align);
        if self.count == MAX_PARAMS || at + size_of::<T>() > PARAM_BYTES || align > 16 {
            self.overflow = true;
            return self;
        }
        // SAFETY: `at + size_of::<T>() <= PARAM_BYTES` (checked above), so the write
        // stays inside `buf`; `buf` is 16-byte aligned and `at` a multiple of T's
        // alignment (at most 16), so the destination is aligned for T.
        unsafe {
            let dst = self.buf.as_mut_ptr().cast::<u8>().add(at).cast::<T>();
            dst.write(value);
        }
        self.offsets[self.count] = at;
        self.count += 1;
        self.used = at + size_of::<T>();
        self
    }

    /// The next kernel parameter as raw bytes aligned to their own size (a scalar of a
    /// dtype known only at run time: 1, 2, 4, 8 or 16 bytes).
    pub fn arg_bytes(mut self, bytes: &[u8]) -> Self {
        let align = bytes.len().clamp(1, 16);
        let at = self.used.next_multiple_of(align);
        if self.count == MAX_PARAMS || at + bytes.len() > PARAM_BYTES {
            self.overflow = true;
            return self;
        }
        // SAFETY: `at + bytes.len() <= PARAM_BYTES` (checked above): the copy stays
        // inside `buf`, which does not overlap `bytes`.
        unsafe {
            let dst = self.buf.as_mut_ptr().cast::<u8>().add(at);
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
        self.offsets[self.count] = at;
        self.count += 1;
        self.used = at + bytes.len();
        self
    }

    /// Checks the launch against the device's limits and launches it.
    pub fn run(mut self) -> Result<()> {
        let p = &self.device.props;
        let (g, b) = (self.grid, self.block);
        let threads = b.0 as u64 * b.1 as u64 * b.2 as u64;
        let bad = |what: String| {
            Err(Error::Value(format!(
                "launch of {:?} refused: {what} (a gpupy bug)",
                self.kernel
            )))
        };
        if g.0 == 0 || g.1 == 0 || g.2 == 0 || g.0 > i32::MAX as u32 || g.1 > 65535 || g.2 > 65535 {
            return bad(format!("grid {g:?} outside the device's limits"));
        }
        if threads == 0 || threads > p.max_threads_per_block.max(1) as u64 || b.2 > 64 {
            return bad(format!("block {b:?} outside the device's limits"));
        }
        let limit = self.device.kernels()?.shared_limit(self.kernel.module);
        if self.shared > limit {
            return bad(format!(
                "{} bytes of shared memory, more than the {limit} allowed",
                self.shared
            ));
        }
        if self.overflow {
            return bad(format!(
                "more than {PARAM_BYTES} bytes or {MAX_PARAMS} parameters"
            ));
        }
        let base = self.buf.as_mut_ptr().cast::<u8>();
        let mut params = [std::ptr::null_mut::<c_void>(); MAX_PARAMS];
        for (p, &at) in params.iter_mut().zip(&self.offsets[..self.count]) {
            // SAFETY: `at` is the offset of an argument written inside `buf`.
            *p = unsafe { base.add(at) }.cast();
        }
        if self.cooperative {
            let blocks = g.0 as u64 * g.1 as u64 * g.2 as u64;
            let fits = self.resident_blocks(threads as u32, self.shared)?;
            if blocks > fits {
                return bad(format!(
                    "a cooperative grid of {blocks} blocks, more than the {fits} resident"
                ));
            }
        }
        self.device.bind()?;
        if self.cooperative {
            // SAFETY: as for `cuLaunchKernel` below; the whole grid is resident at once
            // (checked above), which the driver checks again.
            return check("cuLaunchCooperativeKernel", unsafe {
                result::launch_cooperative_kernel(
                    self.f.0,
                    g,
                    b,
                    self.shared,
                    self.stream,
                    &mut params[..self.count],
                )
            });
        }
        // SAFETY: `f` is a function of a module loaded in this device's context (the
        // handle came from the registry through `Device::kernel`), and that context is
        // bound. `params` points at `count` initialized values that live in `buf` until
        // this call returns (the driver copies them). The grid, block and shared-memory
        // sizes are inside the device's limits (checked above). That the values match
        // the kernel's parameter list and that the kernel's accesses stay inside their
        // allocations is each caller's contract, checked in `ops/` before the launch
        // (see the module docs).
        check("cuLaunchKernel", unsafe {
            result::launch_kernel(
                self.f.0,
                g,
                b,
                self.shared,
                self.stream,
                &mut params[..self.count],
            )
        })
    }
}

/// Launches a user's kernel (`gpupy.RawKernel`) on `stream` (a `CUstream` handle's
/// address; the current stream when None) with `args`, each parameter's bytes in order.
///
/// The count of arguments must match the kernel's parameter list (the driver reports
/// it). Sizes need not: as CuPy, a Python float is passed as 8 bytes even to a `float`
/// parameter, which then reads the first 4 of them; a shorter argument is padded with
/// zeros so the driver never reads past it. Grid, block and shared memory are checked
/// against the device's and the kernel's limits before anything is launched.
///
/// A `cooperative` launch (`cuLaunchCooperativeKernel`, what `grid.sync()` of CUDA's
/// cooperative groups needs) must fit its whole grid on the device at once; a larger
/// grid is refused here with the number that fits.
pub fn launch_user(
    f: &UserFunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared: u32,
    stream: Option<usize>,
    args: &[&[u8]],
    cooperative: bool,
) -> Result<()> {
    let device = f.device();
    if args.len() != f.param_sizes.len() {
        return Err(Error::Type(format!(
            "{}() takes {} arguments ({} given)",
            f.name,
            f.param_sizes.len(),
            args.len()
        )));
    }
    let (g, b) = (grid, block);
    if g.0 == 0 || g.1 == 0 || g.2 == 0 || g.0 > i32::MAX as u32 || g.1 > 65535 || g.2 > 65535 {
        return Err(Error::Value(format!(
            "grid {g:?} is outside the device's limits (1 to 2147483647, 65535, 65535)"
        )));
    }
    let threads = b.0 as u64 * b.1 as u64 * b.2 as u64;
    let most = f.max_threads.max(1) as u64;
    if b.0 == 0 || b.1 == 0 || b.2 == 0 || b.0 > 1024 || b.1 > 1024 || b.2 > 64 || threads > most {
        return Err(Error::Value(format!(
            "block {b:?} is outside the limits of {} on this device (at most {most} threads \
             per block, 1024 x 1024 x 64)",
            f.name
        )));
    }
    if shared as i64 > f.max_dynamic_shared as i64 {
        return Err(Error::Value(format!(
            "{shared} bytes of dynamic shared memory is more than {}'s limit of {} bytes \
             (raise it with max_dynamic_shared_size_bytes, up to {})",
            f.name, f.max_dynamic_shared, device.props.shared_mem_per_block_optin
        )));
    }
    // Each argument in its own 16-byte-aligned slot at least as large as the parameter.
    let slots: Vec<usize> = args
        .iter()
        .zip(&f.param_sizes)
        .map(|(a, &s)| a.len().max(s).next_multiple_of(16))
        .collect();
    let mut buf = vec![0u128; slots.iter().sum::<usize>() / 16];
    let base = buf.as_mut_ptr().cast::<u8>();
    let mut params = Vec::with_capacity(args.len());
    let mut at = 0;
    for (a, slot) in args.iter().zip(&slots) {
        // SAFETY: `at + slot <= buf`'s length in bytes (the slots sum to it) and
        // `a.len() <= slot`, so the copy stays inside `buf`, which does not overlap `a`.
        unsafe {
            std::ptr::copy_nonoverlapping(a.as_ptr(), base.add(at), a.len());
            params.push(base.add(at).cast::<c_void>());
        }
        at += slot;
    }
    device.bind()?;
    let stream = match stream {
        Some(s) => s as sys::CUstream,
        None => crate::stream::current(device).0,
    };
    if cooperative {
        // SAFETY: `f` is a function of a module loaded in this device's context, which
        // is bound; the call only reads the function's attributes.
        let per_sm = check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                f.f.0,
                threads as i32,
                shared as usize,
            )
        })?;
        let fits = per_sm.max(0) as u64 * device.props.multi_processor_count.max(0) as u64;
        let blocks = g.0 as u64 * g.1 as u64 * g.2 as u64;
        if blocks > fits {
            return Err(Error::Value(format!(
                "a cooperative launch of {}() needs its whole grid resident at once: \
                 {blocks} blocks of {threads} threads is more than the {fits} that fit \
                 on this device ({per_sm} per multiprocessor)",
                f.name
            )));
        }
        // SAFETY: as for `cuLaunchKernel` below; the grid fits the device (checked).
        return check("cuLaunchCooperativeKernel", unsafe {
            result::launch_cooperative_kernel(f.f.0, g, b, shared, stream, &mut params)
        });
    }
    // SAFETY: `f` is a function of a module loaded in this device's context, which is
    // bound. `params` holds one pointer per kernel parameter (the count was checked),
    // each to at least as many initialized bytes as the parameter's size, alive until
    // the call returns (the driver copies them). The launch shape is inside the limits
    // (checked above). What the kernel does with its arguments is the user's code: an
    // access out of bounds surfaces as the driver's error on a later call.
    check("cuLaunchKernel", unsafe {
        result::launch_kernel(f.f.0, g, b, shared, stream, &mut params)
    })
}

/// The lock of a table that is never left half-updated (a poisoned lock is still sound).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
