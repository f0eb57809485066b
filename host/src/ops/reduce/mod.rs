//! Reductions over any set of axes, through the engine in `kernels/src/reduce/gpu.rs`.
//!
//! Every reduction becomes `outputs` slices of `n` elements: the reduced axes merge into
//! one (length `n`, element step `step`), the kept axes give each output's first element
//! (a `Strided<1>` over them, in C order, which is also the order of the outputs). When
//! the reduced axes do not merge (say, axes 0 and 2 of a C array), a contiguous copy with
//! the reduced axes last comes first. Then:
//! - `step == 1` (the reduced axes are the innermost, as in `sum()` or `sum(axis=-1)`):
//!   the `block` kernel, a block (or a warp, for short slices) per slice, splitting long
//!   slices into chunks so that a few outputs still fill the GPU;
//! - otherwise (`sum(axis=0)`): the `serial` kernel, a thread per output, its
//!   neighbours reading neighbouring columns, with `grid.y` splitting the slices.
//!   Split launches leave accumulators that the `merge` kernel combines and finishes.

use gpupy_kernels as kernels;
use gpupy_kernels::args::{REDUCE_BLOCK, REDUCE_SMEM, Reduce, Strided};
pub use gpupy_kernels::reduce::reduction::Finish;

use crate::array::Array;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::layout::merge_axes;
use crate::ops::elementwise::copy::contiguous;
use crate::ops::strided_args;
use crate::table::ReduceOp;

const WARPS: u64 = (REDUCE_BLOCK / 32) as u64;

/// The reduction `op` of `a` over `axes` (distinct, in range), as a C-contiguous array of
/// the kept axes' shape and the op's output dtype. An empty `axes` reduces nothing: each
/// element is its own slice of one. `finish` carries `ddof` and `root` for var/std; its
/// count is filled in here.
pub fn reduce(a: &Array, op: ReduceOp, axes: &[usize], finish: Finish) -> Result<Array> {
    if crate::ops::elementwise::copy::computes_elsewhere(a.dtype()) {
        return crate::ops::elementwise::copy::in_compute_dtype(a, |x| reduce(x, op, axes, finish));
    }
    let out_dtype = op.output(a.dtype()).ok_or_else(|| {
        Error::Type(format!(
            "gpupy has no {} reduction for {} arrays",
            op.name(),
            a.dtype().name()
        ))
    })?;
    let device = a.device();
    let kept: Vec<usize> = (0..a.ndim()).filter(|d| !axes.contains(d)).collect();
    let kept_shape: Vec<usize> = kept.iter().map(|&d| a.shape()[d]).collect();
    let out = Array::empty(device, &kept_shape, out_dtype)?;
    if out.size() == 0 {
        return Ok(out);
    }
    let n: usize = axes.iter().map(|&d| a.shape()[d]).product();
    let finish = Finish {
        n: n as f64,
        ..finish
    };
    // Argmin/argmax report positions in C order over the reduced axes: those may not be
    // reordered to find a mergeable layout.
    let keep_order = matches!(
        op,
        ReduceOp::ArgMin | ReduceOp::ArgMax | ReduceOp::NanArgMin | ReduceOp::NanArgMax
    );
    let strides = &a.layout().strides;
    let merged = merge_axes(
        &axes.iter().map(|&d| a.shape()[d]).collect::<Vec<_>>(),
        &axes.iter().map(|&d| strides[d]).collect::<Vec<_>>(),
        keep_order,
    );
    let (src, step, kept_strides) = match merged {
        Some((_, step)) => (a.clone(), step, kept.iter().map(|&d| strides[d]).collect()),
        None => {
            // Kept axes first, reduced axes last, C order: the reduced part is contiguous.
            let perm: Vec<isize> = kept.iter().chain(axes).map(|&d| d as isize).collect();
            let c = contiguous(&a.transpose(Some(&perm))?)?;
            let ks = c.layout().strides[..kept.len()].to_vec();
            (c, 1, ks)
        }
    };
    let kept_args = strided_args::<1>(&kept_shape, [&kept_strides])?;
    let plan = plan(
        device,
        n as u64,
        out.size() as u64,
        step,
        &kept_args,
        src.data_ptr(),
        src.dtype().itemsize(),
    );
    run(op, &src, &out, &plan, kept_args, finish)?;
    Ok(out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    Block,
    Serial,
}

/// How one reduction launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    kernel: Kernel,
    n: u64,
    outputs: u64,
    step: i64,
    splits: u64,
    chunk: u64,
    packed: bool,
    warp_per_output: bool,
}

/// Chooses the kernel and the splits: enough blocks (or threads) in flight to fill every
/// SM, and no more splits than keep each thread busy with a few loads.
fn plan(
    device: &Device,
    n: u64,
    outputs: u64,
    step: isize,
    kept: &Strided<1>,
    ptr: u64,
    itemsize: usize,
) -> Plan {
    let sms = device.props.multi_processor_count.max(1) as u64;
    let lanes = if itemsize >= 16 {
        1
    } else {
        16 / itemsize as u64
    };
    // Packs need every slice start 16-byte aligned: the base, and every kept stride.
    let kept_aligned = kept.strides[0][..kept.ndim as usize]
        .iter()
        .all(|&s| (s * itemsize as i64) % 16 == 0);
    let packed = step == 1 && ptr.is_multiple_of(16) && (outputs == 1 || kept_aligned);
    plan_for(sms, n, outputs, step as i64, packed, lanes)
}

fn plan_for(sms: u64, n: u64, outputs: u64, step: i64, packed: bool, lanes: u64) -> Plan {
    // Resident 256-thread blocks on the whole GPU, at full occupancy.
    let resident_blocks = sms * (2048 / REDUCE_BLOCK as u64);
    let base = Plan {
        kernel: Kernel::Block,
        n,
        outputs,
        step,
        splits: 1,
        chunk: n,
        packed,
        warp_per_output: false,
    };
    if step == 1 && n >= 32 {
        // A warp per slice when slices are short (at most 8 packs per lane) and there are
        // enough of them to fill the GPU with warps.
        if n <= 32 * 8 * lanes && outputs >= resident_blocks * WARPS {
            return Plan {
                warp_per_output: true,
                ..base
            };
        }
        // Blocks in flight: two waves; each block gets at least 8 packs per thread.
        let want = (2 * resident_blocks).div_ceil(outputs);
        let most = n.div_ceil(REDUCE_BLOCK as u64 * lanes * 8).max(1);
        let splits = want.clamp(1, most);
        let unit = if packed { lanes } else { 1 };
        let chunk = n.div_ceil(splits).div_ceil(unit) * unit;
        return Plan {
            splits: n.div_ceil(chunk),
            chunk,
            ..base
        };
    }
    // Threads in flight: two full GPUs' worth; each thread folds at least 16 elements.
    let want = (2 * resident_blocks * REDUCE_BLOCK as u64).div_ceil(outputs);
    let most = (n / 16).clamp(1, 65535);
    let splits = want.clamp(1, most);
    let chunk = n.div_ceil(splits).max(1);
    Plan {
        kernel: Kernel::Serial,
        splits: n.div_ceil(chunk).max(1),
        chunk,
        packed: false,
        ..base
    }
}

fn run(
    op: ReduceOp,
    src: &Array,
    out: &Array,
    p: &Plan,
    kept: Strided<1>,
    finish: Finish,
) -> Result<()> {
    let device = src.device();
    let [block, serial, merge] = kernels::reduce::kernels(op as usize, src.dtype() as usize)
        .ok_or_else(|| {
            Error::Type(format!(
                "gpupy has no {} reduction for {} arrays",
                op.name(),
                src.dtype().name()
            ))
        })?;
    let args = Reduce {
        n: p.n,
        outputs: p.outputs,
        step: p.step,
        chunk: p.chunk,
        splits: p.splits as u32,
        packed: p.packed as u32,
        warp_per_output: p.warp_per_output as u32,
        _pad: 0,
        finish,
        kept,
    };
    let partial = if p.splits > 1 {
        let bytes = op.acc_bytes(src.dtype()) * (p.outputs * p.splits) as usize;
        Some(Array::empty(device, &[bytes], crate::DType::UInt8)?)
    } else {
        None
    };
    let partial_ptr = partial.as_ref().map_or(0, Array::data_ptr);
    let grid = match p.kernel {
        Kernel::Block if p.warp_per_output => (grid_x(p.outputs.div_ceil(WARPS))?, 1),
        Kernel::Block => (grid_x(p.outputs * p.splits)?, 1),
        Kernel::Serial => (
            grid_x(p.outputs.div_ceil(REDUCE_BLOCK as u64))?,
            p.splits as u32,
        ),
    };
    let f = match p.kernel {
        Kernel::Block => block,
        Kernel::Serial => serial,
    };
    // (x, out, partial, args): every slice that `args` describes lies inside `x`'s
    // buffer, since it walks the array's own layout (or a contiguous copy); `out` holds
    // `outputs` results, and `partial` (when splits > 1) `outputs * splits` accumulators.
    Launch::new(device, f)?
        .grid3((grid.0, grid.1, 1))
        .block(REDUCE_BLOCK)
        .shared(REDUCE_SMEM)
        .arg(src.data_ptr())
        .arg(out.data_ptr())
        .arg(partial_ptr)
        .arg(args)
        .run()?;
    if let Some(partial) = &partial {
        // The merge is a block reduction over each output's `splits` accumulators.
        let merge_args = Reduce {
            n: p.splits,
            step: 1,
            chunk: p.splits,
            splits: 1,
            packed: 0,
            warp_per_output: (p.splits <= 256 && p.outputs >= 64) as u32,
            kept: strided_args::<1>(&[p.outputs as usize], [&[p.splits as isize]])?,
            ..args
        };
        let grid = if merge_args.warp_per_output != 0 {
            grid_x(p.outputs.div_ceil(WARPS))?
        } else {
            grid_x(p.outputs)?
        };
        // (partial, out, args): `partial` holds outputs * splits accumulators of this
        // op and dtype, `out` `outputs` results.
        Launch::new(device, merge)?
            .grid(grid)
            .block(REDUCE_BLOCK)
            .shared(REDUCE_SMEM)
            .arg(partial.data_ptr())
            .arg(out.data_ptr())
            .arg(merge_args)
            .run()?;
    }
    Ok(())
}

fn grid_x(blocks: u64) -> Result<u32> {
    u32::try_from(blocks.max(1))
        .ok()
        .filter(|&b| b < 1 << 31)
        .ok_or_else(|| {
            Error::Value(format!(
                "reduction too large for one launch ({blocks} blocks); reduce in pieces"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fill_the_gpu() {
        // Whole 64 Mi float32 array: one output, split into many chunks of whole packs.
        let p = plan_for(132, 1 << 26, 1, 1, true, 4);
        assert_eq!(p.kernel, Kernel::Block);
        assert!(
            p.splits >= 2 * 132 * 8 && p.chunk.is_multiple_of(4),
            "{p:?}"
        );
        assert!(p.splits * p.chunk >= 1 << 26 && (p.splits - 1) * p.chunk < 1 << 26);
        // sum(axis=1) of 8192 x 8192: a block per row, no split.
        let p = plan_for(132, 8192, 8192, 1, true, 4);
        assert_eq!(
            (p.kernel, p.splits, p.warp_per_output),
            (Kernel::Block, 1, false)
        );
        // Many short rows: a warp each.
        let p = plan_for(132, 100, 1 << 20, 1, false, 4);
        assert!(p.warp_per_output);
        // sum(axis=0) of 8192 x 8192: a thread per column, rows split over grid.y.
        let p = plan_for(132, 8192, 8192, 8192, false, 4);
        assert_eq!(p.kernel, Kernel::Serial);
        assert!(p.splits > 1 && p.splits * p.chunk >= 8192 && p.chunk >= 16);
        // Tiny slices: serial, never split below one element per thread.
        let p = plan_for(132, 3, 10, 1, true, 4);
        assert_eq!((p.kernel, p.splits, p.chunk), (Kernel::Serial, 1, 3));
        let p = plan_for(132, 0, 10, 1, true, 4);
        assert_eq!((p.kernel, p.splits), (Kernel::Serial, 1));
    }
}
