//! The kernels that meet through global memory, launched on the host: the LU and QR
//! panels spread over the whole GPU (a row per thread, the blocks of one cooperative
//! launch meeting at grid barriers: `gpu_lu_panel`, `gpu_qr_panel`) and the UT factor
//! of a QR panel's block reflector (`gpu_qr_ut`: the last block to finish adds the
//! others' partial sums). Each takes a zeroed scratch of counters, and the panels fall
//! back to the one-block kernels of `dense` when their grid would not be resident.
//! The operand checks are `dense`'s.

use gpupy_kernels::linalg::Part;
use gpupy_kernels::linalg::dense::args::{
    LU_PANEL_COLS, PanelArgs, QrPanelArgs, UT_THREADS, UtArgs, lu_panel_shared, panel_record_bytes,
    qr_panel_shared, qr_ut_shared,
};

use super::dense::{
    MAX_GRID_Y, Panel, dense_dtype, expect, geqrf, getrf, info_vector, operand, panel_inside,
    qr_outputs, to_u32, vector,
};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::launch::Launch;

/// Zeroed scratch for a kernel on `batch` matrices whose blocks meet through global
/// memory: a u32 counter per matrix, then `per_matrix` bytes per matrix (records,
/// partial sums) from the byte offset returned.
fn counted_scratch(
    device: &'static Device,
    batch: usize,
    per_matrix: usize,
) -> Result<(Array, u64)> {
    let start = (4 * batch).next_multiple_of(256);
    let bytes = start + batch * per_matrix;
    let scratch = crate::ops::elementwise::fill::full(device, &[bytes], DType::UInt8, &[0])?;
    Ok((scratch, start as u64))
}

/// Launches a panel kernel (`probe`, its one parameter `args`) cooperatively on a grid
/// of `blocks` blocks per matrix by `batch` matrices. The caller has checked `args`'
/// operands, put a `counted_scratch` in it, and found that `blocks * batch` blocks of
/// `threads` threads and `shared` bytes are resident at once, as the kernels' grid
/// barriers need (the builder checks that again).
fn cooperative<A: Copy>(
    probe: Launch<'_>,
    (blocks, batch): (usize, usize),
    threads: u32,
    shared: u32,
    args: A,
) -> Result<()> {
    probe
        .grid3((to_u32(blocks)?, to_u32(batch)?, 1))
        .block(threads)
        .shared(shared)
        .arg(args)
        .cooperative()
        .run()
}

/// The bytes of one matrix's records in a panel kernel of `blocks` blocks: two sets
/// (they alternate by step) of `blocks + 1` records.
fn panel_records(blocks: usize, item: usize) -> usize {
    2 * (blocks + 1) * panel_record_bytes(item)
}

/// LU with partial pivoting of the panels `a` (`(batch, m, n)`, `n <= LU_PANEL_COLS`)
/// in place, whole rows swapped as `panel` says, as `getrf` does, but with the rows of
/// each panel spread over the blocks of one cooperative launch, a row per thread
/// (`gpu_lu_panel`). Falls back to `getrf` when the grid would not be resident at once.
pub fn lu_panel(a: &Array, piv: &Array, info: &Array, panel: Panel, threads: u32) -> Result<()> {
    let dt = a.dtype();
    let kd = dense_dtype(dt)?;
    let oa = operand("lu_panel", a, dt)?;
    expect(
        "lu_panel",
        panel_inside(a, &oa, panel) && oa.cols <= LU_PANEL_COLS,
    )?;
    if !(threads.is_multiple_of(32) && (32..=1024).contains(&threads)) {
        return Err(Error::Value(format!(
            "linalg lu_panel: {threads} threads per block, not whole warps up to 1024"
        )));
    }
    let (batch, m, n) = (oa.batch, oa.rows, oa.cols);
    let (pp, ps) = vector("lu_panel pivots", piv, DType::Int32, batch, m.min(n))?;
    let ip = info_vector(info, batch)?;
    if batch == 0 {
        return Ok(());
    }
    // Blocks for the rows, and enough for the interchanges outside the panel (two
    // columns per thread) when that takes more; fewer if the GPU cannot hold them all.
    let item = dt.itemsize();
    let device = a.device();
    let kernel = Part::LuPanel.dense(kd);
    let probe = Launch::new(device, kernel)?;
    // At most what the kernel's registers allow.
    let threads = threads.min(probe.max_threads()? / 32 * 32);
    let rows_blocks = m.div_ceil(threads as usize).max(1);
    let swap_blocks = (panel.left + panel.right).div_ceil(2 * threads as usize);
    let mut chosen = None;
    for blocks in [rows_blocks.max(swap_blocks), rows_blocks] {
        let shared = to_u32(lu_panel_shared(blocks, item))?;
        let fits = probe.resident_blocks(threads, shared)?;
        if chosen.is_none() && (blocks * batch) as u64 <= fits {
            chosen = Some((blocks, shared));
        }
    }
    let Some((blocks, shared)) = chosen.filter(|_| m > 0 && n > 0 && batch <= MAX_GRID_Y) else {
        return getrf(a, piv, info, None, false, panel);
    };
    let (scratch, records) = counted_scratch(device, batch, panel_records(blocks, item))?;
    let args = PanelArgs {
        a: oa.ptr,
        lda: oa.ld,
        a_batch: oa.batch_stride,
        piv: pp,
        piv_batch: ps,
        info: ip,
        scratch: scratch.data_ptr(),
        records,
        m: to_u32(m)?,
        n: to_u32(n)?,
        left: to_u32(panel.left)?,
        right: to_u32(panel.right)?,
        piv_base: to_u32(panel.row)?,
        _pad: 0,
    };
    // PanelArgs is the kernel's whole parameter list: its operands were checked above
    // (the panel's rows and the elements around them inside the buffer).
    cooperative(probe, (blocks, batch), threads, shared, args)
}

/// Householder QR of the panels `a` (`(batch, m, n)`, `n <= LU_PANEL_COLS`) in place,
/// as `geqrf` does (`tau`, and the explicit `v` when given), with the rows spread over
/// the blocks of `threads` threads (128, 256 or 512) of one cooperative launch, a row
/// per thread (`gpu_qr_panel`). Falls back to `geqrf` when the grid would not be
/// resident at once.
pub fn qr_panel(a: &Array, tau: &Array, v: Option<&Array>, threads: u32) -> Result<()> {
    let dt = a.dtype();
    let kd = dense_dtype(dt)?;
    let oa = operand("qr_panel", a, dt)?;
    let (batch, m, n) = (oa.batch, oa.rows, oa.cols);
    let k = m.min(n);
    expect("qr_panel", n <= LU_PANEL_COLS)?;
    if ![128, 256, 512].contains(&threads) {
        return Err(Error::Value(format!(
            "linalg qr_panel: {threads} threads per block, not 128, 256 or 512"
        )));
    }
    let ((tp, ts), ov) = qr_outputs("qr_panel", &oa, dt, tau, v)?;
    let mut args = QrPanelArgs {
        a: oa.ptr,
        lda: oa.ld,
        a_batch: oa.batch_stride,
        tau: tp,
        tau_batch: ts,
        m: to_u32(m)?,
        n: to_u32(n)?,
        ..QrPanelArgs::default()
    };
    if let Some(ov) = ov {
        (args.v, args.ldv, args.v_batch) = (ov.ptr, ov.ld, ov.batch_stride);
    }
    if batch == 0 || k == 0 {
        return Ok(());
    }
    let item = dt.itemsize();
    let device = a.device();
    let kernel = Part::QrPanel.dense(kd);
    let probe = Launch::new(device, kernel)?;
    let cap = probe.max_threads()?;
    let threads = if threads > cap { 128 } else { threads };
    let blocks = m.div_ceil(threads as usize);
    let shared = to_u32(qr_panel_shared(blocks, threads as usize, item))?;
    let fits = probe.resident_blocks(threads, shared)?;
    if threads > cap || batch > MAX_GRID_Y || (blocks * batch) as u64 > fits {
        return geqrf(a, tau, v);
    }
    let (scratch, records) = counted_scratch(device, batch, panel_records(blocks, item))?;
    args.scratch = scratch.data_ptr();
    args.records = records;
    // QrPanelArgs is the kernel's whole parameter list: its operands were checked above.
    cooperative(probe, (blocks, batch), threads, shared, args)
}

/// The block reflector of QR panels in the UT form (`gpu_qr_ut`): from the reflectors
/// `h` (`(batch, m, k)`, `k <= LU_PANEL_COLS`, below the diagonal) and `tau`, the
/// explicit `V` into `v` (`(batch, m, k)`; `h` itself, or no overlap) and
/// `M = striu(V^H V) + diag(1 / tau)` into `mt` (`(batch, k, k)`), in one launch.
pub fn qr_ut(h: &Array, tau: &Array, v: &Array, mt: &Array) -> Result<()> {
    let dt = h.dtype();
    let kd = dense_dtype(dt)?;
    let oh = operand("qr_ut", h, dt)?;
    let (batch, m, k) = (oh.batch, oh.rows, oh.cols);
    expect("qr_ut", k <= LU_PANEL_COLS)?;
    let (tp, ts) = vector("qr_ut tau", tau, dt, batch, k)?;
    let ov = operand("qr_ut V", v, dt)?;
    let om = operand("qr_ut M", mt, dt)?;
    expect("qr_ut V", ov.batch == batch && ov.rows == m && ov.cols == k)?;
    expect("qr_ut M", om.batch == batch && om.rows == k && om.cols == k)?;
    // V is written as h is read, element by element by one thread: in place is safe,
    // any other overlap is not.
    let same = v.data_ptr() == h.data_ptr() && v.layout().strides == h.layout().strides;
    if !(v.apart(h) || same) || !mt.apart(h) || !mt.apart(v) || !mt.apart(tau) {
        return Err(Error::Value(
            "linalg qr_ut: the outputs overlap the inputs or each other".into(),
        ));
    }
    if batch == 0 || k == 0 {
        return Ok(());
    }
    if batch > MAX_GRID_Y {
        return Err(Error::Value(format!(
            "linalg qr_ut: {batch} matrices in one launch (at most {MAX_GRID_Y})"
        )));
    }
    let item = dt.itemsize();
    let device = h.device();
    // Blocks per matrix: one per chunk of rows, up to about two waves over the GPU
    // (the last block adds every block's partial).
    let sms = device.props.multi_processor_count.max(1) as usize;
    let chunks = m.div_ceil(UT_THREADS as usize).max(1);
    let blocks = chunks.min((4 * sms / batch).max(1));
    let gram = LU_PANEL_COLS * LU_PANEL_COLS * item;
    let (scratch, partials) = counted_scratch(device, batch, blocks * gram)?;
    let args = UtArgs {
        h: oh.ptr,
        ldh: oh.ld,
        h_batch: oh.batch_stride,
        tau: tp,
        tau_batch: ts,
        v: ov.ptr,
        ldv: ov.ld,
        v_batch: ov.batch_stride,
        mt: om.ptr,
        ldm: om.ld,
        m_batch: om.batch_stride,
        scratch: scratch.data_ptr(),
        partials,
        m: to_u32(m)?,
        k: to_u32(k)?,
    };
    // UtArgs is the kernel's whole parameter list: the operands were checked above and
    // the scratch holds a counter per matrix and `blocks` partials after `partials`.
    Launch::new(device, Part::QrUt.dense(kd))?
        .grid3((to_u32(blocks)?, batch as u32, 1))
        .block(UT_THREADS)
        .shared(to_u32(qr_ut_shared(item))?)
        .arg(args)
        .run()
}
