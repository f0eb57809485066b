//! Launching a transform's schedule (`kernels::fft::plan::schedule`) and the
//! elementwise twists around it.

use gpupy_kernels::fft::plan::{Buf, Geometry, Limits, Step, schedule};
use gpupy_kernels::fft::{Part, Strided, TWIST_BLOCK, Twist};

use super::tables::{Key, table};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;

/// The complex dtype of a precision.
pub fn complex(double: bool) -> DType {
    if double {
        DType::Complex128
    } else {
        DType::Complex64
    }
}

/// The planner's limits on `device`: the pass kernel's own thread limit (its registers
/// decide it) and the precision's shared-memory sizes.
pub fn limits(device: &'static Device, double: bool) -> Result<Limits> {
    let max = Launch::new(device, Part::Pass.kernel(double))?.max_threads()?;
    Ok(Limits {
        min_blocks: 4 * device.props.multi_processor_count.max(1) as u64,
        ..Limits::of(double, max)
    })
}

/// One transform: `n` points in complex128 (`double`) or complex64, over the batch of
/// `geo`, from `src` to `dst` (device addresses of element 0 of each); forward, or with
/// `conj` the unnormalized inverse; `scale` multiplies every output.
#[derive(Clone, Copy)]
pub struct Job<'a> {
    pub device: &'static Device,
    pub double: bool,
    pub n: u64,
    pub geo: &'a Geometry,
    pub src: u64,
    pub dst: u64,
    pub conj: bool,
    pub scale: f64,
}

/// Runs a transform of a smooth length; `mul`, if set, multiplies the input
/// elementwise (a table of `n` values, the same for every batch item).
pub fn transform(job: Job<'_>, mul: Option<&Array>) -> Result<()> {
    let Job {
        device,
        double,
        n,
        geo,
        src,
        dst,
        conj,
        scale,
    } = job;
    let batch = geo.batch1 * geo.batch0;
    if batch == 0 || n == 0 {
        return Ok(());
    }
    let lim = limits(device, double)?;
    let steps = schedule(n, geo, &lim, conj, scale);
    let scratch_count = (steps.len() - 1).min(2);
    let scratch: Vec<Array> = (0..scratch_count)
        .map(|_| Array::empty(device, &[(batch * n) as usize], complex(double)))
        .collect::<Result<_>>()?;
    let addr = |b: Buf| match b {
        Buf::Input => src,
        Buf::Output => dst,
        Buf::Scratch(i) => scratch[i as usize].data_ptr(),
    };
    // The tables live until the launches that read them are queued; the pool's
    // stream order keeps their memory until then and after.
    let mut keep = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let Step {
            mut pass,
            src,
            dst,
            block,
            blocks,
        } = *step;
        pass.src = addr(src);
        pass.dst = addr(dst);
        let tw = table(
            device,
            Key::Block {
                len: pass.len,
                double,
            },
        )?;
        pass.twiddle = tw.data_ptr();
        keep.push(tw);
        if pass.ns > 1 {
            let four_step = table(device, Key::FourStep { n })?;
            pass.four_step = four_step.data_ptr();
            keep.push(four_step);
        }
        if i == 0
            && let Some(m) = mul
        {
            pass.mul = m.data_ptr();
        }
        let blocks = u32::try_from(blocks)
            .ok()
            .filter(|&b| b <= i32::MAX as u32)
            .ok_or_else(|| {
                Error::Value(format!(
                    "an FFT of {n} points over {batch} rows needs too many blocks"
                ))
            })?;
        // A transform done in one pass without factors has a kernel without the
        // four-step twiddles' code: fewer registers, more blocks per SM (H200: 10-12%
        // faster over batches of 1024- to 4096-point rows). The passes of a longer
        // transform keep one kernel: its first pass in the other measured 5-28%
        // slower (2^20-2^24 points). The planner's thread limit is the other kernel's.
        let part = if steps.len() == 1 && pass.mul == 0 {
            Part::PassSingle
        } else {
            Part::Pass
        };
        Launch::new(device, part.kernel(double))?
            .grid(blocks)
            .block(block.threads)
            .shared(block.smem)
            .arg(pass)
            .run()?;
    }
    Ok(())
}

/// One of the twist kernels over `batch` items of `n` outputs.
pub fn twist(device: &'static Device, part: Part, double: bool, mut args: Twist) -> Result<()> {
    if args.batch == 0 || args.n == 0 {
        return Ok(());
    }
    args.batch0 = args.batch0.max(1);
    let x = u32::try_from(args.n.div_ceil(TWIST_BLOCK as u64))
        .map_err(|_| Error::Value("an FFT axis too long for one launch".into()))?;
    let y = args.batch.min(65535) as u32;
    Launch::new(device, part.kernel(double))?
        .grid3((x, y, 1))
        .block(TWIST_BLOCK)
        .arg(args)
        .run()
}

/// A strided operand of a twist.
pub fn strided(ptr: u64, s: [i64; 3]) -> Strided {
    Strided {
        ptr,
        b1: s[0],
        b0: s[1],
        e: s[2],
    }
}
