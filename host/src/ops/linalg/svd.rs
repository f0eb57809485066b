//! One-sided Jacobi orthogonalization, the core of `linalg.svdvals` and the matrix norms
//! 'nuc', 2 and -2 (`kernels/src/linalg/` has the method). Python prepares the working
//! copy (transposed so columns are contiguous, scaled, in float64 or complex128) and
//! reads the singular values off as column norms afterwards.
//!
//! Launch shapes, one kernel: a small problem, or a batch large enough to fill the GPU
//! one matrix per block, runs every sweep in one launch (one block per matrix, steps
//! separated by block barriers, the matrix staged in shared memory when it fits); a
//! large matrix spreads each round-robin step over many blocks, one launch per step
//! (a block per pair for long columns, a warp per pair otherwise), and the host checks
//! for convergence after each sweep.

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::ops::elementwise::fill;
use gpupy_kernels as kernels;
use gpupy_kernels::linalg::jacobi::{BLOCK_PER_PAIR, STAGED};

/// Sweeps before giving up, as LAPACK's Jacobi SVD (`dgesvj`). Convergence is quadratic
/// once the columns are nearly orthogonal; random matrices take 6 to 12.
pub const MAX_SWEEPS: u32 = 30;
/// Matrices up to this many columns run every sweep in one launch even alone: their
/// steps are too small to spread over blocks profitably.
const ONE_LAUNCH_COLUMNS: usize = 64;
/// Warps per block when each warp rotates its own pairs.
const STEP_WARPS: u32 = 8;
/// Rows per warp that make a whole block per pair worth its barriers, and the most warps
/// a pair gets.
const ROWS_PER_WARP: usize = 128;
const MAX_PAIR_WARPS: usize = 8;
/// Shared memory a kernel may take without opting in: matrices up to this size run
/// their sweeps staged in it.
const STAGE_BYTES: usize = 48 * 1024;
/// CUDA's limit on `gridDim.y`, where the kernel finds its matrix.
const MAX_GRID_Y: usize = 65_535;

/// One launch shape of the Jacobi kernel.
#[derive(Clone, Copy)]
struct Shape {
    first_step: u32,
    steps: u32,
    sweeps: u32,
    x_blocks: u32,
    warps: u32,
    mode: u32,
    shared_bytes: u32,
}

/// Orthogonalizes the columns of each matrix of `w` in place: `w` is C-contiguous
/// float64 or complex128 of shape `(..., n, m)`, each row of the last two axes one
/// column of length `m`, `n <= m`. Pairs are rotated while their inner product exceeds
/// `tol` times the product of their norms and both norms exceed `tol`, which assumes
/// each matrix is scaled so that its largest entry is about 1 (Python scales by a power
/// of two). Only the first `dot_rows` elements of each column decide the rotations (all
/// `m` are rotated): with `A`'s `k` rows followed by the identity's, the last rows
/// accumulate `V`. Returns whether every matrix converged within [`MAX_SWEEPS`] sweeps.
pub fn jacobi_orthogonalize(w: &Array, dot_rows: usize, tol: f64) -> Result<bool> {
    let shape = w.shape();
    if shape.len() < 2 || !w.layout().is_c_contiguous() {
        return Err(Error::Value(
            "jacobi_orthogonalize needs a C-contiguous array of at least two dimensions".into(),
        ));
    }
    match w.dtype() {
        DType::Float64 | DType::Complex128 => {}
        d => {
            return Err(Error::Type(format!(
                "jacobi_orthogonalize computes in float64 or complex128, got {}",
                d.name()
            )));
        }
    }
    let (n, m) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    if n > m {
        return Err(Error::Value(format!(
            "jacobi_orthogonalize needs columns (axis -2) no more than rows (axis -1), got {n} > {m}"
        )));
    }
    if dot_rows > m {
        return Err(Error::Value(format!(
            "jacobi_orthogonalize: {dot_rows} rows for the angles, but columns of {m}"
        )));
    }
    let batch: usize = shape[..shape.len() - 2].iter().product();
    if n < 2 || batch == 0 {
        return Ok(true);
    }
    let n32 = u32::try_from(n)
        .map_err(|_| Error::Value(format!("jacobi_orthogonalize: {n} columns is too many")))?;
    let device = w.device();
    let f = kernels::linalg::jacobi(w.dtype() == DType::Complex128);
    let flags = Array::empty(device, &[batch], DType::UInt32)?;
    fill::fill(&flags, &[0; 4])?;
    let itemsize = w.dtype().itemsize();
    let matrix_bytes = n * m * itemsize;
    let steps = (n32 + (n32 & 1)) - 1;
    let pairs = n32.div_ceil(2);
    let sms = device.props.multi_processor_count.max(1) as usize;

    // Launches `s` on every matrix, in chunks of at most MAX_GRID_Y matrices.
    let run = |s: Shape| -> Result<()> {
        for start in (0..batch).step_by(MAX_GRID_Y) {
            let count = (batch - start).min(MAX_GRID_Y);
            let wp = w.data_ptr() + (start * matrix_bytes) as u64;
            let fp = flags.data_ptr() + 4 * start as u64;
            let (mm, dot, nn, tol) = (m as u64, dot_rows as u64, n32, tol);
            let (first, steps, sweeps, mode) = (s.first_step, s.steps, s.sweeps, s.mode);
            // (w, m, dot, n, first_step, steps, sweeps, tol, flags, mode) is the
            // kernel's parameter list. From wp lie `count` matrices of n * m elements
            // (start + count <= batch, the array's extent), from fp `count` flags; the
            // block is whole warps; sweeps > 1 and STAGED only with one block per matrix,
            // and shared_bytes is what the mode needs (see `jacobi`'s contract).
            Launch::new(device, f)?
                .grid3((s.x_blocks, count as u32, 1))
                .block(32 * s.warps)
                .shared(s.shared_bytes)
                .arg(wp)
                .arg(mm)
                .arg(dot)
                .arg(nn)
                .arg(first)
                .arg(steps)
                .arg(sweeps)
                .arg(tol)
                .arg(fp)
                .arg(mode)
                .run()?;
        }
        Ok(())
    };
    let any_rotated = || -> Result<bool> {
        let mut bytes = vec![0u8; 4 * batch];
        flags.to_host(&mut bytes)?;
        Ok(bytes.iter().any(|&b| b != 0))
    };

    device.bind()?;
    if n <= ONE_LAUNCH_COLUMNS || batch >= sms {
        let staged = matrix_bytes <= STAGE_BYTES;
        run(Shape {
            first_step: 0,
            steps,
            sweeps: MAX_SWEEPS,
            x_blocks: 1,
            warps: pairs.min(16),
            mode: if staged { STAGED } else { 0 },
            shared_bytes: if staged { matrix_bytes as u32 } else { 0 },
        })?;
        return Ok(!any_rotated()?);
    }
    let pair_warps = (m / ROWS_PER_WARP).clamp(1, MAX_PAIR_WARPS) as u32;
    let step = if pair_warps > 1 {
        Shape {
            first_step: 0,
            steps: 1,
            sweeps: 1,
            x_blocks: pairs,
            warps: pair_warps,
            mode: BLOCK_PER_PAIR,
            // One reduction slot (alpha, beta: f64, and the inner product) per warp.
            shared_bytes: pair_warps * (16 + itemsize as u32),
        }
    } else {
        Shape {
            first_step: 0,
            steps: 1,
            sweeps: 1,
            x_blocks: pairs.div_ceil(STEP_WARPS),
            warps: STEP_WARPS,
            mode: 0,
            shared_bytes: 0,
        }
    };
    for _ in 0..MAX_SWEEPS {
        for first_step in 0..steps {
            run(Shape { first_step, ..step })?;
        }
        if !any_rotated()? {
            return Ok(true);
        }
        fill::fill(&flags, &[0; 4])?;
    }
    Ok(false)
}
