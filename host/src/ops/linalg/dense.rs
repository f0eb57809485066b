//! The dense factorizations on the host: LU (with an optional solve or inverse),
//! triangular solves, Cholesky, Householder QR and `Q` (`gpupy_kernels::linalg::dense`
//! has the algorithms). Each call runs one kernel on a batch of matrices, a block per
//! matrix (a block per matrix and column chunk for solves; blocks of warps, a warp per
//! four columns, for the triangles of the blocked algorithms), staged in shared memory
//! when it fits there. Large matrices come here as
//! panels and blocks of the blocked algorithms in `py/python/gpupy/linalg/_decomp.py`.
//!
//! Every operand is a 3-D array `(batch, rows, cols)` whose rows are contiguous
//! (column stride 1), with any row stride of at least `cols` and any non-negative batch
//! stride: views of a larger matrix work in place.

use gpupy_kernels as kernels;
use gpupy_kernels::linalg::Part;
use gpupy_kernels::linalg::dense::args::{
    DenseArgs, SCRATCH_BYTES, TRSM_WARP_COLS, TRSM_WARP_SLOTS, flag,
};

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;

/// CUDA's limit on `gridDim.y`, where the kernels find their matrix.
pub(super) const MAX_GRID_Y: usize = 65_535;

/// One operand: its address, leading dimension and batch stride in elements, and shape.
#[derive(Clone, Copy)]
pub(super) struct Operand {
    pub(super) ptr: u64,
    pub(super) ld: u64,
    pub(super) batch_stride: u64,
    pub(super) batch: usize,
    pub(super) rows: usize,
    pub(super) cols: usize,
}

pub(super) fn operand(what: &str, a: &Array, dtype: DType) -> Result<Operand> {
    if a.dtype() != dtype {
        return Err(Error::Type(format!(
            "linalg {what}: expected {}, got {}",
            dtype.name(),
            a.dtype().name()
        )));
    }
    let (shape, strides) = (a.shape(), &a.layout().strides);
    if shape.len() != 3 {
        return Err(Error::Value(format!("linalg {what}: expected a 3-D array")));
    }
    let (batch, rows, cols) = (shape[0], shape[1], shape[2]);
    let unit_cols = cols <= 1 || strides[2] == 1;
    let rows_ok = rows <= 1 || strides[1] >= cols as isize;
    let batch_ok = batch <= 1 || strides[0] >= 0;
    if !(unit_cols && rows_ok && batch_ok) {
        return Err(Error::Value(format!(
            "linalg {what}: rows must be contiguous and non-overlapping (strides {strides:?})"
        )));
    }
    Ok(Operand {
        ptr: a.data_ptr(),
        ld: if rows <= 1 {
            cols.max(1) as u64
        } else {
            strides[1] as u64
        },
        batch_stride: if batch <= 1 { 0 } else { strides[0] as u64 },
        batch,
        rows,
        cols,
    })
}

pub(super) fn dense_dtype(d: DType) -> Result<kernels::linalg::Dtype> {
    use kernels::linalg::Dtype as K;
    Ok(match d {
        DType::Float32 => K::Float32,
        DType::Float64 => K::Float64,
        DType::Complex64 => K::Complex64,
        DType::Complex128 => K::Complex128,
        d => {
            return Err(Error::Type(format!(
                "linalg: array type {} is unsupported in linalg",
                d.name()
            )));
        }
    })
}

pub(super) fn expect(what: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::Value(format!(
            "linalg {what}: operand shapes do not match"
        )))
    }
}

/// A vector operand (`piv`, `tau`: `(batch, len)`, contiguous rows) or `info`
/// (`(batch,)` uint32, contiguous): address and batch stride in elements.
pub(super) fn vector(
    what: &str,
    v: &Array,
    dtype: DType,
    batch: usize,
    len: usize,
) -> Result<(u64, u64)> {
    if v.dtype() != dtype {
        return Err(Error::Type(format!(
            "linalg {what}: expected {}",
            dtype.name()
        )));
    }
    let (shape, strides) = (v.shape(), &v.layout().strides);
    let ok = shape == [batch, len]
        && (len <= 1 || strides[1] == 1)
        && (batch <= 1 || strides[0] >= len as isize);
    expect(what, ok)?;
    Ok((v.data_ptr(), if batch <= 1 { 0 } else { strides[0] as u64 }))
}

pub(super) fn info_vector(info: &Array, batch: usize) -> Result<u64> {
    let ok =
        info.dtype() == DType::UInt32 && info.shape() == [batch] && info.layout().is_c_contiguous();
    expect("info", ok)?;
    Ok(info.data_ptr())
}

/// Threads for a team whose steps touch about `work` elements, whole warps: up to 1024
/// for a few large matrices; for a batch that fills the GPU once (32 elements each) or
/// many times over (8 each), at most 256, so that more blocks share each SM and hide
/// each other's barriers.
fn threads_for(a: &Array, work: usize, batch: usize) -> u32 {
    let sms = a.device().props.multi_processor_count.max(1) as usize;
    if batch >= 8 * sms {
        (work / 8).next_power_of_two().clamp(32, 256) as u32
    } else if batch >= sms {
        (work / 32).next_power_of_two().clamp(64, 256) as u32
    } else {
        (work / 2).next_power_of_two().clamp(64, 1024) as u32
    }
}

/// Segment mode: each matrix to `lanes` lanes of a warp, its staged operands in
/// `bytes` of shared memory (`flag::SEGMENT_SHIFT`), `per_block` matrices to a block.
#[derive(Clone, Copy)]
struct Segments {
    lanes: u32,
    bytes: usize,
    per_block: u32,
}

/// Most threads per block in segment mode.
const SEGMENT_BLOCK: u32 = 128;

/// Segments for a batch of matrices of at most `dim` rows and columns whose staged
/// operands take `bytes` each, when the batch fills the GPU twice over and the
/// matrices are small enough (order 64 or less) that a block's barriers would cost
/// more than their work: a warp's barrier is nearly free.
fn segments(a: &Array, batch: usize, dim: usize, bytes: usize) -> Result<Option<Segments>> {
    let sms = a.device().props.multi_processor_count.max(1) as usize;
    if batch < 2 * sms || dim > 64 || dim == 0 {
        return Ok(None);
    }
    let lanes = dim.next_power_of_two().clamp(4, 32) as u32;
    let fit = stage_budget(a)? / bytes.max(1);
    let per_block = (SEGMENT_BLOCK / lanes).min(fit as u32);
    Ok((per_block > 0).then_some(Segments {
        lanes,
        bytes,
        per_block,
    }))
}

/// Launches `kernel` over `batch` matrices with `x` blocks per matrix: a block per
/// matrix (`threads`, `shared` bytes) in chunks of `MAX_GRID_Y`, or with `seg`
/// segments of lanes, `SEGMENT_BLOCK` threads to a block. Threads are capped at what
/// the kernel's registers allow.
#[allow(clippy::too_many_arguments)]
fn launch(
    a: &Array,
    kernel: kernels::registry::Kernel,
    mut args: DenseArgs,
    batch: usize,
    x: u32,
    threads: u32,
    shared: u32,
    seg: Option<Segments>,
) -> Result<()> {
    let device = a.device();
    device.bind()?;
    let cap = Launch::new(device, kernel)?.max_threads()? / 32 * 32;
    let (per_block, threads, shared) = match seg {
        Some(s) => {
            args.flags |= (s.lanes.trailing_zeros() + 1) << flag::SEGMENT_SHIFT;
            args.seg_bytes = to_u32(s.bytes)?;
            let per_block = s.per_block.min(cap / s.lanes).max(1);
            let threads = per_block * s.lanes;
            let per_block = per_block as usize;
            (per_block, threads, to_u32(per_block * s.bytes)?)
        }
        None => (1, threads.min(cap), shared),
    };
    let chunk = MAX_GRID_Y * per_block;
    for first in (0..batch).step_by(chunk) {
        let count = (batch - first).min(chunk);
        let args = DenseArgs {
            first: to_u32(first)?,
            count: to_u32(count)?,
            ..args
        };
        // DenseArgs is the kernels' whole parameter list; every pointer in it was made
        // from an operand checked above for this batch and shape, and `shared` is what
        // the staging flags need per block (or more than the device allows: refused).
        Launch::new(device, kernel)?
            .grid3((x, count.div_ceil(per_block) as u32, 1))
            .block(threads)
            .shared(shared)
            .arg(args)
            .run()?;
    }
    Ok(())
}

/// Bytes of shared memory the dense kernels may use for staging on this device.
fn stage_budget(a: &Array) -> Result<usize> {
    let limit = a
        .device()
        .kernels()?
        .shared_limit(kernels::registry::Module::Linalg) as usize;
    Ok(limit.saturating_sub(SCRATCH_BYTES as usize))
}

fn padded(bytes: usize) -> usize {
    bytes.next_multiple_of(16)
}

/// Where an LU panel lies in its whole matrix: `left` and `right` elements of each row
/// around it that row interchanges move too, and the row offset of its first row
/// (added to the pivots).
#[derive(Clone, Copy, Default)]
pub struct Panel {
    pub left: usize,
    pub right: usize,
    pub row: usize,
}

/// Whether the `left` and `right` elements around each row of the panel `a` lie inside
/// its rows of the buffer: a panel's first column is at `offset mod ld` within its row
/// when the buffer is made of rows.
pub(super) fn panel_inside(a: &Array, oa: &Operand, panel: Panel) -> bool {
    let col = a.layout().offset % oa.ld.max(1) as usize;
    oa.batch_stride.is_multiple_of(oa.ld.max(1))
        && panel.left <= col
        && col + oa.cols + panel.right <= oa.ld as usize
}

/// The outputs of a Householder QR of `oa` (`(batch, m, n)`): `tau` (`(batch, k)`,
/// `k = min(m, n)`: its address and batch stride) and the explicit reflectors `v`
/// (`(batch, m, k)`) when given, both of the matrix's dtype `dt`.
pub(super) fn qr_outputs(
    what: &str,
    oa: &Operand,
    dt: DType,
    tau: &Array,
    v: Option<&Array>,
) -> Result<((u64, u64), Option<Operand>)> {
    let k = oa.rows.min(oa.cols);
    let t = vector(&format!("{what} tau"), tau, dt, oa.batch, k)?;
    let ov = match v {
        Some(v) => {
            let ov = operand(&format!("{what} V"), v, dt)?;
            let fits = ov.batch == oa.batch && ov.rows == oa.rows && ov.cols == k;
            expect(&format!("{what} V"), fits)?;
            Some(ov)
        }
        None => None,
    };
    Ok((t, ov))
}

/// LU with partial pivoting of each `a` (`(batch, m, n)`) in place, `piv` int32
/// `(batch, min(m, n))`, `info` uint32 `(batch,)`. With `b` (`(batch, n, k)`, square
/// `a`): also solves `A X = B` in place of `b`, or with `identity` writes `A^-1` there.
/// `panel` places `a` in a larger matrix whose whole rows are swapped.
pub fn getrf(
    a: &Array,
    piv: &Array,
    info: &Array,
    b: Option<&Array>,
    identity: bool,
    panel: Panel,
) -> Result<()> {
    let dt = a.dtype();
    let kd = dense_dtype(dt)?;
    let oa = operand("getrf", a, dt)?;
    let whole_rows = panel.left > 0 || panel.right > 0;
    if whole_rows {
        expect("getrf panel", b.is_none() && panel_inside(a, &oa, panel))?;
    }
    let (batch, m, n) = (oa.batch, oa.rows, oa.cols);
    let (pp, ps) = vector("getrf pivots", piv, DType::Int32, batch, m.min(n))?;
    let ip = info_vector(info, batch)?;
    if batch == 0 {
        return Ok(());
    }
    let item = dt.itemsize();
    let budget = stage_budget(a)?;
    let a_bytes = padded(m * n * item);
    let mut args = DenseArgs {
        a: oa.ptr,
        lda: oa.ld,
        a_batch: oa.batch_stride,
        piv: pp,
        piv_batch: ps,
        info: ip,
        m: to_u32(m)?,
        n: to_u32(n)?,
        swap_left: to_u32(panel.left)?,
        swap_right: to_u32(panel.right)?,
        piv_base: to_u32(panel.row)?,
        ..DenseArgs::default()
    };
    let mut shared = 0;
    // A panel swaps elements outside itself: it works in global memory.
    if a_bytes <= budget && !whole_rows {
        args.flags |= flag::STAGE_A;
        shared += a_bytes;
    }
    let mut work = m * n;
    if let Some(b) = b {
        let ob = operand("getrf right-hand sides", b, dt)?;
        expect("getrf", m == n && ob.batch == batch && ob.rows == n)?;
        let b_bytes = padded(n * ob.cols * item);
        if shared + b_bytes <= budget {
            args.flags |= flag::STAGE_B;
            shared += b_bytes;
        }
        args.flags |= flag::SOLVE | if identity { flag::IDENTITY } else { 0 };
        args.b = ob.ptr;
        args.ldb = ob.ld;
        args.b_batch = ob.batch_stride;
        args.k = to_u32(ob.cols)?;
        work = work.max(n * ob.cols);
    }
    let f = Part::Getrf.dense(kd);
    let seg = segments(a, batch, m.max(n), shared)?;
    let threads = threads_for(a, work, batch);
    launch(
        a,
        f,
        args,
        batch,
        1,
        threads,
        SCRATCH_BYTES + shared as u32,
        seg,
    )
}

/// Solves `op(T) X = B` in place of `b` (`(batch, n, k)`) for the `lower` or upper
/// triangle of each `t` (`(batch, n, n)`), `trans` 0/1/2 for `T`, `T^T`, `T^H`, with a
/// `unit` diagonal when asked. With `piv` (`(batch, n)` int32 from `getrf`), `b`'s rows
/// are interchanged first (`piv_before`) or afterwards in reverse: LAPACK `getrs`'s
/// two halves.
#[allow(clippy::too_many_arguments)]
pub fn trsm(
    t: &Array,
    b: &Array,
    lower: bool,
    trans: u32,
    unit: bool,
    piv: Option<&Array>,
    piv_before: bool,
) -> Result<()> {
    let dt = t.dtype();
    let kd = dense_dtype(dt)?;
    let ot = operand("trsm", t, dt)?;
    let ob = operand("trsm right-hand sides", b, dt)?;
    let (batch, n, k) = (ot.batch, ot.rows, ob.cols);
    expect(
        "trsm",
        ot.cols == n && ob.batch == batch && ob.rows == n && trans <= 2,
    )?;
    let mut args = DenseArgs {
        a: ot.ptr,
        lda: ot.ld,
        a_batch: ot.batch_stride,
        b: ob.ptr,
        ldb: ob.ld,
        b_batch: ob.batch_stride,
        n: to_u32(n)?,
        k: to_u32(k)?,
        flags: (trans << flag::TRANS_SHIFT)
            | if lower { flag::LOWER } else { 0 }
            | if unit { flag::UNIT } else { 0 },
        ..DenseArgs::default()
    };
    if let Some(piv) = piv {
        let (pp, ps) = vector("trsm pivots", piv, DType::Int32, batch, n)?;
        args.piv = pp;
        args.piv_batch = ps;
        args.flags |= if piv_before {
            flag::PIV_BEFORE
        } else {
            flag::PIV_AFTER
        };
    }
    if batch == 0 || n == 0 || k == 0 {
        return Ok(());
    }
    let item = dt.itemsize();
    let budget = stage_budget(t)?;
    let mut shared = 0;
    let t_bytes = padded(n * n * item);
    if piv.is_none() && n <= 32 * TRSM_WARP_SLOTS && t_bytes <= budget {
        // Unless a batch of small solves fills the GPU by itself (segments), a warp
        // per TRSM_WARP_COLS columns with no barriers (`gpu_trsm`) beats the block.
        let seg = segments(t, batch, n, t_bytes + padded(n * k * item))?;
        if seg.is_none() {
            const WARPS: usize = 4;
            let x = to_u32(k.div_ceil(WARPS * TRSM_WARP_COLS))?;
            let f = Part::TrsmWarp.dense(kd);
            return launch(
                t,
                f,
                args,
                batch,
                x,
                32 * WARPS as u32,
                t_bytes as u32,
                None,
            );
        }
    }
    if t_bytes <= budget {
        args.flags |= flag::STAGE_A;
        shared += t_bytes;
    }
    // Column chunks: enough blocks to fill the GPU when the batch is small, each with
    // at least a warp's worth of columns per row step.
    let sms = t.device().props.multi_processor_count.max(1) as usize;
    let chunks_wanted = (2 * sms).div_ceil(batch).max(1);
    let kc = k.div_ceil(chunks_wanted).max(32.min(k));
    let b_bytes = padded(n * kc * item);
    if shared + b_bytes <= budget {
        args.flags |= flag::STAGE_B;
        shared += b_bytes;
    }
    args.kc = to_u32(kc)?;
    let x = to_u32(k.div_ceil(kc))?;
    let f = Part::Trsm.dense(kd);
    let seg = if x == 1 {
        segments(t, batch, n, shared)?
    } else {
        None
    };
    let threads = threads_for(t, n * kc, batch * x as usize);
    launch(
        t,
        f,
        args,
        batch,
        x,
        threads,
        SCRATCH_BYTES + shared as u32,
        seg,
    )
}

/// LAPACK `laswp`: the row interchanges `piv` (`(batch, p)` int32) on the rows of `b`
/// (`(batch, m, k)`), in order (`forward`) or reversed.
pub fn laswp(b: &Array, piv: &Array, forward: bool) -> Result<()> {
    let dt = b.dtype();
    let kd = dense_dtype(dt)?;
    let ob = operand("laswp", b, dt)?;
    let (batch, m, k) = (ob.batch, ob.rows, ob.cols);
    let p = piv.shape().get(1).copied().unwrap_or(0);
    let (pp, ps) = vector("laswp pivots", piv, DType::Int32, batch, p)?;
    if batch == 0 || p == 0 || k == 0 {
        return Ok(());
    }
    // The pivots must name rows of b: checked on the host (p ints per matrix, read
    // once; laswp runs outside the factorizations' hot paths).
    let mut bytes = vec![0u8; 4 * p * batch];
    let dense = piv.layout().is_c_contiguous();
    if dense {
        piv.to_host(&mut bytes)?;
        let bad = bytes
            .chunks_exact(4)
            .any(|w| !(0..m as i32).contains(&i32::from_le_bytes([w[0], w[1], w[2], w[3]])));
        expect("laswp pivots out of range", !bad && p <= m)?;
    } else {
        return Err(Error::Value("laswp: pivots must be C-contiguous".into()));
    }
    let kc = k.min(256);
    let args = DenseArgs {
        b: ob.ptr,
        ldb: ob.ld,
        b_batch: ob.batch_stride,
        piv: pp,
        piv_batch: ps,
        m: to_u32(m)?,
        n: to_u32(p)?,
        k: to_u32(k)?,
        kc: to_u32(kc)?,
        flags: flag::SWAP_ONLY | if forward { flag::PIV_BEFORE } else { 0 },
        ..DenseArgs::default()
    };
    let f = Part::Trsm.dense(kd);
    let x = to_u32(k.div_ceil(kc))?;
    launch(b, f, args, batch, x, 256, SCRATCH_BYTES, None)
}

/// Cholesky `A = L L^H` of the lower triangle of each `a` (`(batch, n, n)`) in place,
/// `info` uint32 `(batch,)`.
pub fn potrf(a: &Array, info: &Array) -> Result<()> {
    let dt = a.dtype();
    let kd = dense_dtype(dt)?;
    let oa = operand("potrf", a, dt)?;
    let (batch, n) = (oa.batch, oa.rows);
    expect("potrf", oa.cols == n)?;
    let ip = info_vector(info, batch)?;
    if batch == 0 {
        return Ok(());
    }
    let mut args = DenseArgs {
        a: oa.ptr,
        lda: oa.ld,
        a_batch: oa.batch_stride,
        info: ip,
        n: to_u32(n)?,
        ..DenseArgs::default()
    };
    let bytes = padded(n * n * dt.itemsize());
    let shared = if bytes <= stage_budget(a)? {
        args.flags |= flag::STAGE_A;
        bytes
    } else {
        0
    };
    let f = Part::Potrf.dense(kd);
    let seg = segments(a, batch, n, shared)?;
    let threads = threads_for(a, n * n / 2, batch);
    launch(
        a,
        f,
        args,
        batch,
        1,
        threads,
        SCRATCH_BYTES + shared as u32,
        seg,
    )
}

/// Householder QR of each `a` (`(batch, m, n)`) in place, `tau` `(batch, min(m, n))`;
/// with `v` (`(batch, m, min(m, n))`), also the reflectors as an explicit unit lower
/// trapezoid.
pub fn geqrf(a: &Array, tau: &Array, v: Option<&Array>) -> Result<()> {
    let dt = a.dtype();
    let kd = dense_dtype(dt)?;
    let oa = operand("geqrf", a, dt)?;
    let (batch, m, n) = (oa.batch, oa.rows, oa.cols);
    let k = m.min(n);
    let ((tp, ts), ov) = qr_outputs("geqrf", &oa, dt, tau, v)?;
    let mut args = DenseArgs {
        a: oa.ptr,
        lda: oa.ld,
        a_batch: oa.batch_stride,
        tau: tp,
        tau_batch: ts,
        m: to_u32(m)?,
        n: to_u32(n)?,
        ..DenseArgs::default()
    };
    if let Some(ov) = ov {
        (args.b, args.ldb, args.b_batch) = (ov.ptr, ov.ld, ov.batch_stride);
    }
    if batch == 0 || k == 0 {
        return Ok(());
    }
    let bytes = padded(m * n * dt.itemsize());
    let shared = if bytes <= stage_budget(a)? {
        args.flags |= flag::STAGE_A;
        bytes
    } else {
        0
    };
    let f = Part::Geqrf.dense(kd);
    let seg = segments(a, batch, m.max(n), shared)?;
    let threads = threads_for(a, m * n, batch);
    launch(
        a,
        f,
        args,
        batch,
        1,
        threads,
        SCRATCH_BYTES + shared as u32,
        seg,
    )
}

/// The first `q.shape[2]` columns of `Q = H_0 ... H_{k-1}` into `q` (`(batch, m,
/// ncols)`) from `geqrf`'s `h` (`(batch, m, >= k)`, only the first `k` columns read)
/// and `tau` (`(batch, k)`), `k <= ncols <= m`.
pub fn orgqr(h: &Array, tau: &Array, q: &Array) -> Result<()> {
    let dt = h.dtype();
    let kd = dense_dtype(dt)?;
    let oh = operand("orgqr", h, dt)?;
    let oq = operand("orgqr Q", q, dt)?;
    let (batch, m, ncols) = (oh.batch, oh.rows, oq.cols);
    let k = tau.shape().get(1).copied().unwrap_or(0);
    let (tp, ts) = vector("orgqr tau", tau, dt, batch, k)?;
    expect(
        "orgqr",
        oq.batch == batch && oq.rows == m && k <= ncols && ncols <= m && k <= oh.cols,
    )?;
    if batch == 0 || m == 0 {
        return Ok(());
    }
    let mut args = DenseArgs {
        a: oh.ptr,
        lda: oh.ld,
        a_batch: oh.batch_stride,
        b: oq.ptr,
        ldb: oq.ld,
        b_batch: oq.batch_stride,
        tau: tp,
        tau_batch: ts,
        m: to_u32(m)?,
        k: to_u32(k)?,
        kc: to_u32(ncols)?,
        ..DenseArgs::default()
    };
    let item = dt.itemsize();
    let budget = stage_budget(h)?;
    let mut shared = 0;
    let q_bytes = padded(m * ncols * item);
    if q_bytes <= budget {
        args.flags |= flag::STAGE_B;
        shared += q_bytes;
        let h_bytes = padded(m * k * item);
        if shared + h_bytes <= budget {
            // The kernel stages h first, then q after it.
            args.flags |= flag::STAGE_A;
            shared += h_bytes;
        }
    }
    let f = Part::Orgqr.dense(kd);
    let seg = segments(h, batch, m.max(ncols), shared)?;
    let threads = threads_for(h, m * ncols, batch);
    launch(
        h,
        f,
        args,
        batch,
        1,
        threads,
        SCRATCH_BYTES + shared as u32,
        seg,
    )
}

/// Eigenvalues of each complex `a` (`(batch, n, n)`), in place: `a` becomes the Schur
/// form `T` (eigenvalues on its diagonal), `z` (`(batch, n, n)`) the Schur vectors;
/// with `vectors`, the eigenvectors of `T` go to `T`'s strictly lower triangle
/// (`x_k[i]` at `T[k][i]`, `i < k`; `x_k[k] = 1`). `info` as LAPACK's: 0, or `i + 1`
/// when the QR iteration did not converge.
pub fn geev(a: &Array, z: &Array, info: &Array, vectors: bool) -> Result<()> {
    let dt = a.dtype();
    let index = match dt {
        DType::Complex64 => 0,
        DType::Complex128 => 1,
        d => {
            return Err(Error::Type(format!(
                "linalg geev: expected complex64 or complex128, got {}",
                d.name()
            )));
        }
    };
    let oa = operand("geev", a, dt)?;
    let oz = operand("geev Z", z, dt)?;
    let (batch, n) = (oa.batch, oa.rows);
    expect(
        "geev",
        oa.cols == n && oz.batch == batch && oz.rows == n && oz.cols == n,
    )?;
    let ip = info_vector(info, batch)?;
    if batch == 0 || n == 0 {
        return Ok(());
    }
    let mut args = DenseArgs {
        a: oa.ptr,
        lda: oa.ld,
        a_batch: oa.batch_stride,
        b: oz.ptr,
        ldb: oz.ld,
        b_batch: oz.batch_stride,
        info: ip,
        n: to_u32(n)?,
        flags: if vectors { flag::VECTORS } else { 0 },
        ..DenseArgs::default()
    };
    let bytes = padded(n * n * dt.itemsize());
    let shared = if 2 * bytes <= stage_budget(a)? {
        args.flags |= flag::STAGE_A | flag::STAGE_B;
        2 * bytes
    } else {
        0
    };
    let f = Part::Geev.at(index);
    let seg = segments(a, batch, n, shared)?;
    let threads = threads_for(a, n * n, batch);
    launch(
        a,
        f,
        args,
        batch,
        1,
        threads,
        SCRATCH_BYTES + shared as u32,
        seg,
    )
}

pub(super) fn to_u32(x: usize) -> Result<u32> {
    u32::try_from(x).map_err(|_| Error::Value(format!("linalg: dimension {x} is too large")))
}
