//! Advanced indexing (NumPy's integer and boolean array indices) and the functions built
//! on it: `take`, `put`, `where`'s select and `nonzero`.
//!
//! `a[key]` with arrays in the key runs in three steps:
//! 1. the key's basic part (ints, slices, `None`, `...`) makes a view `V` of `a`, in which
//!    every array index keeps its axes (as a full slice; a 0-d boolean as a new axis);
//! 2. the array indices become one int64 array `off` of element offsets into `V`, shaped
//!    like the broadcast index arrays (`B`): each integer array adds `index * stride`
//!    (`gpupy_index_offsets_*`, which also checks every index), each boolean mask first
//!    becomes the offsets of its true elements (`nonzero`'s compaction, in `V`'s strides);
//! 3. one gather (or scatter, for `a[key] = v`) over the result shape moves the items.
//!
//! The result shape follows NumPy: the `B` dimensions replace the indexed axes where the
//! advanced indices (integer scalars included) stand next to each other in the key, and
//! come first otherwise. Out-of-range indices raise NumPy's IndexError before anything is
//! written: the offsets kernels record the first bad position, and the host reads those
//! few bytes back (one synchronization per integer-array index operation; boolean masks
//! need one anyway, to learn how many elements they select).
//!
//! Scatters with repeated indices write one of the values, which one is unspecified (as
//! in CuPy; NumPy's last-wins order is a property of its serial loop).

use gpupy_kernels::args::{MAX_DIMS, Strided};
use gpupy_kernels::index::{FIRST, NONZERO_BLOCK, NONZERO_COORDS, NONZERO_OFFSETS, RAW};

use super::copy::{astype, contiguous, copy_into, same_device};
use super::{BLOCK, arg, grid_for, strided_args};
use crate::array::Array;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::layout::{Index, Layout, broadcast_shapes, normalize_axis, shape_str};
use crate::module::launch;

/// One entry of an index key.
#[derive(Clone)]
pub enum Item {
    /// An integer, slice, `None` or `...`.
    Basic(Index),
    /// An integer or boolean array (any shape).
    Array(Array),
    /// A scalar boolean (`a[True]`): a new axis of length 1 or 0.
    Bool(bool),
}

impl Item {
    fn is_advanced(&self) -> bool {
        !matches!(self, Item::Basic(_))
    }
}

/// Whether `items` needs advanced indexing (an array or a scalar boolean in the key).
pub fn is_advanced(items: &[Item]) -> bool {
    items.iter().any(Item::is_advanced)
}

/// `a[items]`: a view for basic keys, a new array otherwise.
pub fn getitem(a: &Array, items: &[Item]) -> Result<Array> {
    let Some(plan) = plan(a, items)? else {
        return a.index(&basic_only(items));
    };
    let out = Array::empty(a.device(), &plan.shape, a.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let (src, off) = (&plan.view, &plan.off);
    let mut args = strided_args(
        &plan.shape,
        [&out.layout().strides, &plan.src_strides, &plan.off_strides],
    )?;
    let device = a.device();
    let f = device
        .kernels()?
        .function(&format!("gpupy_gather_{}", a.dtype().itemsize()))?;
    device.bind()?;
    let (mut s, mut o, mut d) = (src.data_ptr(), off.data_ptr(), out.data_ptr());
    // SAFETY: (Strided<3>, src, off, out) is the gather kernel's parameter list. `out` is
    // C-contiguous of the result shape; the src strides are V's at coordinates inside V's
    // shape, and every `off` value is a sum of in-range indices times V's strides (checked
    // before `plan` returned), so every element read is an element of V, which fits its
    // buffer.
    unsafe {
        launch(
            f,
            (grid_for(device, args.len), 1, 1),
            BLOCK,
            0,
            &mut [arg(&mut args), arg(&mut s), arg(&mut o), arg(&mut d)],
        )?
    };
    Ok(out)
}

/// `a[items] = value`; `value` has `a`'s dtype (the caller converts it) and broadcasts to
/// the indexing result's shape.
pub fn setitem(a: &Array, items: &[Item], value: &Array) -> Result<()> {
    same_device(a, value)?;
    if value.dtype() != a.dtype() {
        return Err(Error::Type(format!(
            "setitem needs the value in the array's dtype {}, got {}",
            a.dtype().name(),
            value.dtype().name()
        )));
    }
    if let Some(done) = masked_fill(a, items, value)? {
        return Ok(done);
    }
    let Some(plan) = plan(a, items)? else {
        let dst = a.index(&basic_only(items))?;
        return copy_into(&fit_value(value, dst.shape())?, &dst);
    };
    let value = fit_value(value, &plan.shape)?;
    let size: usize = plan.shape.iter().product();
    if size == 0 {
        return Ok(());
    }
    // The value is read in full before anything is written, as NumPy does.
    let value = if value.shares_buffer(a) {
        astype(&value, value.dtype())?
    } else {
        value
    };
    let mut args = strided_args(
        &plan.shape,
        [
            &value.layout().strides,
            &plan.src_strides,
            &plan.off_strides,
        ],
    )?;
    let device = a.device();
    let f = device
        .kernels()?
        .function(&format!("gpupy_scatter_{}", a.dtype().itemsize()))?;
    device.bind()?;
    let (mut v, mut o, mut d) = (value.data_ptr(), plan.off.data_ptr(), plan.view.data_ptr());
    // SAFETY: (Strided<3>, val, off, dst) is the scatter kernel's parameter list; `value`
    // is broadcast to the result shape (it fits its buffer) and no longer shares `a`'s
    // buffer; every destination is an element of V, as in `getitem`.
    unsafe {
        launch(
            f,
            (grid_for(device, args.len), 1, 1),
            BLOCK,
            0,
            &mut [arg(&mut args), arg(&mut v), arg(&mut o), arg(&mut d)],
        )
    }
}

/// `a[mask] = scalar` (a boolean key over `a`'s leading axes, a one-element value) as a
/// select in place: no compaction and no synchronization. `None` when the key is another.
fn masked_fill(a: &Array, items: &[Item], value: &Array) -> Result<Option<()>> {
    let mask = match items {
        [Item::Array(m)] | [Item::Array(m), Item::Basic(Index::Ellipsis)] => m,
        _ => return Ok(None),
    };
    if mask.dtype() != DType::Bool
        || mask.ndim() == 0
        || mask.ndim() > a.ndim()
        || value.size() != 1
    {
        return Ok(None);
    }
    same_device(a, mask)?;
    check_mask(mask, a.shape(), 0)?;
    if a.size() == 0 {
        return Ok(Some(()));
    }
    let mut strides = mask.layout().strides.clone();
    strides.resize(a.ndim(), 0);
    let cond = mask.view(
        Layout {
            shape: a.shape().to_vec(),
            strides,
            offset: mask.layout().offset,
        },
        DType::Bool,
    )?;
    // The value's one element as a 0-d view, copied when it lives inside `a`.
    let scalar = value.view(
        Layout {
            shape: vec![],
            strides: vec![],
            offset: value.layout().offset,
        },
        value.dtype(),
    )?;
    let scalar = if scalar.shares_buffer(a) {
        astype(&scalar, scalar.dtype())?
    } else {
        scalar
    };
    launch_select(a, &cond, &scalar.broadcast_to(a.shape())?, a)?;
    Ok(Some(()))
}

/// `where(cond, x, y)` for `x` and `y` of one dtype; `cond` of any dtype is tested `!= 0`.
/// The result has the broadcast shape of all three.
pub fn select(cond: &Array, x: &Array, y: &Array) -> Result<Array> {
    if x.dtype() != y.dtype() {
        return Err(Error::Type(format!(
            "select needs x and y of one dtype, got {} and {}",
            x.dtype().name(),
            y.dtype().name()
        )));
    }
    same_device(cond, x)?;
    same_device(cond, y)?;
    let shape = broadcast_shapes(&[cond.shape(), x.shape(), y.shape()])?;
    let out = Array::empty(x.device(), &shape, x.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let cond = if cond.dtype() == DType::Bool {
        cond.clone()
    } else {
        astype(cond, DType::Bool)?
    };
    launch_select(
        &out,
        &cond.broadcast_to(&shape)?,
        &x.broadcast_to(&shape)?,
        &y.broadcast_to(&shape)?,
    )?;
    Ok(out)
}

/// `out = cond ? x : y` elementwise; every operand already has `out`'s shape. `y` may be
/// `out` itself (same layout); nothing else may overlap `out`.
fn launch_select(out: &Array, cond: &Array, x: &Array, y: &Array) -> Result<()> {
    let mut args = strided_args(
        out.shape(),
        [
            &out.layout().strides,
            &cond.layout().strides,
            &x.layout().strides,
            &y.layout().strides,
        ],
    )?;
    let device = out.device();
    let f = device
        .kernels()?
        .function(&format!("gpupy_select_{}", out.dtype().itemsize()))?;
    device.bind()?;
    let (mut c, mut xp, mut yp, mut o) =
        (cond.data_ptr(), x.data_ptr(), y.data_ptr(), out.data_ptr());
    // SAFETY: (Strided<4>, cond, x, y, out) is the select kernel's parameter list; every
    // layout fits its buffer and has out's shape; callers pass a `y` that overlaps `out`
    // only as the same elements (each thread reads its element before writing it).
    unsafe {
        launch(
            f,
            (grid_for(device, args.len), 1, 1),
            BLOCK,
            0,
            &mut [
                arg(&mut args),
                arg(&mut c),
                arg(&mut xp),
                arg(&mut yp),
                arg(&mut o),
            ],
        )
    }
}

/// The indices of the nonzero elements of `a` (any dtype, at least 1-d), as one
/// `(ndim, nnz)` int64 array: row `k` holds the indices along axis `k`, in C order.
pub fn nonzero(a: &Array) -> Result<Array> {
    if a.ndim() == 0 {
        return Err(Error::Value(
            "Calling nonzero on 0d arrays is not allowed. Use np.atleast_1d(scalar).nonzero() instead."
                .into(),
        ));
    }
    if a.ndim() > MAX_DIMS {
        return Err(Error::Value(format!(
            "gpupy's nonzero takes at most {MAX_DIMS} dimensions, got {}",
            a.ndim()
        )));
    }
    let mut s = Strided::<1> {
        len: a.size() as u64,
        ndim: a.ndim() as u32,
        _pad: 0,
        shape: [1; MAX_DIMS],
        strides: [[0; MAX_DIMS]],
    };
    for (d, &n) in a.shape().iter().rev().enumerate() {
        s.shape[d] = n as u64;
    }
    compact(a, s, NONZERO_COORDS, a.ndim())
}

/// Element offsets (with `strides`, one per axis of `mask`) of the true elements of
/// `mask`, in C order: an `(nnz,)` int64 array.
fn mask_offsets(mask: &Array, strides: &[isize]) -> Result<Array> {
    let s = strided_args(mask.shape(), [strides])?;
    compact(mask, s, NONZERO_OFFSETS, 1)
}

/// Runs the two nonzero passes over `a` (tested `!= 0`); the output has `rows` rows of
/// `nnz` int64.
fn compact(a: &Array, s: Strided<1>, mode: u32, rows: usize) -> Result<Array> {
    let device = a.device();
    let n = a.size() as u64;
    let mask = if a.dtype() == DType::Bool {
        contiguous(a)?
    } else {
        astype(a, DType::Bool)?
    };
    if n == 0 {
        return Array::empty(device, &[rows, 0], DType::Int64).and_then(|o| squeeze_rows(o, mode));
    }
    let tile = NONZERO_BLOCK as u64;
    let blocks = (grid_for(device, n) as u64).min(n.div_ceil(tile));
    let chunk = n.div_ceil(blocks).div_ceil(tile) * tile;
    let blocks = n.div_ceil(chunk);
    let counts = super::fill::full(device, &[blocks as usize], DType::UInt64, &[0; 8])?;
    let kernels = device.kernels()?;
    let count = kernels.function("gpupy_nonzero_count")?;
    let write = kernels.function("gpupy_nonzero_write")?;
    device.bind()?;
    let (mut m, mut nn, mut ch, mut c) = (mask.data_ptr(), n, chunk, counts.data_ptr());
    // SAFETY: (mask, n, chunk, counts) is the count kernel's parameter list: mask is
    // C-contiguous with n bytes, counts has one zeroed u64 per block, and every block's
    // chunk starts below n; NONZERO_BLOCK is a multiple of 32.
    unsafe {
        launch(
            count,
            (blocks as u32, 1, 1),
            NONZERO_BLOCK,
            0,
            &mut [arg(&mut m), arg(&mut nn), arg(&mut ch), arg(&mut c)],
        )?
    };
    let counts = read_u64s(&counts)?;
    let mut starts = Vec::with_capacity(counts.len());
    let mut nnz = 0u64;
    for k in counts {
        starts.push(nnz);
        nnz += k;
    }
    let out = Array::empty(device, &[rows, nnz as usize], DType::Int64)?;
    if nnz > 0 {
        let bytes: Vec<u8> = starts.iter().flat_map(|v| v.to_le_bytes()).collect();
        let starts = Array::from_host(device, &bytes, &[starts.len()], DType::UInt64)?;
        let (mut st, mut s, mut total, mut o, mut mode) =
            (starts.data_ptr(), s, nnz, out.data_ptr(), mode);
        // SAFETY: (mask, n, chunk, starts, Strided<1>, nnz, out, mode) is the write
        // kernel's parameter list: starts is the exclusive scan of this mask's counts, so
        // every rank is below nnz; out holds rows * nnz int64; the shared size covers one
        // u32 per warp.
        unsafe {
            launch(
                write,
                (blocks as u32, 1, 1),
                NONZERO_BLOCK,
                NONZERO_BLOCK / 32 * 4,
                &mut [
                    arg(&mut m),
                    arg(&mut nn),
                    arg(&mut ch),
                    arg(&mut st),
                    arg(&mut s),
                    arg(&mut total),
                    arg(&mut o),
                    arg(&mut mode),
                ],
            )?
        };
    }
    squeeze_rows(out, mode)
}

/// The offsets mode returns `(nnz,)`, not `(1, nnz)`.
fn squeeze_rows(out: Array, mode: u32) -> Result<Array> {
    if mode == NONZERO_OFFSETS {
        out.index(&[Index::Int(0)])
    } else {
        Ok(out)
    }
}

/// A device array of u64 (or i64) values, on the host.
fn read_u64s(a: &Array) -> Result<Vec<u64>> {
    let mut bytes = vec![0u8; a.nbytes()];
    a.to_host(&mut bytes)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

/// NumPy's `take(a, indices, axis)`: `a[..., indices, ...]` along `axis` (of the flattened
/// array when `None`), always a new array.
pub fn take(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    check_index_dtype(indices)?;
    if indices.dtype() == DType::Bool {
        return Err(Error::Type(
            "Cannot cast array data from dtype('bool') to dtype('int64') according to the rule 'safe'".into(),
        ));
    }
    let (src, axis) = match axis {
        None => (flat(a)?, 0),
        Some(ax) => (a.clone(), normalize_axis(ax, a.ndim())?),
    };
    let mut items = vec![Item::Basic(FULL); axis];
    items.push(Item::Array(indices.clone()));
    getitem(&src, &items)
}

/// NumPy's `put(a, indices, values)`: `a.flat[indices] = values`, the values repeated
/// when there are fewer of them than indices. `values` has `a`'s dtype.
pub fn put(a: &Array, indices: &Array, values: &Array) -> Result<()> {
    check_index_dtype(indices)?;
    if indices.dtype() == DType::Bool {
        return Err(Error::Type(
            "Cannot cast array data from dtype('bool') to dtype('int64') according to the rule 'safe'".into(),
        ));
    }
    let k = indices.size();
    if k == 0 || values.size() == 0 {
        return Ok(());
    }
    let vals = flat(values)?;
    let vals = if vals.size() == k {
        contiguous(&vals)?
    } else {
        let m = vals.size() as i64;
        let cycle: Vec<u8> = (0..k as i64).flat_map(|i| (i % m).to_le_bytes()).collect();
        let cycle = Array::from_host(a.device(), &cycle, &[k], DType::Int64)?;
        getitem(&vals, &[Item::Array(cycle)])?
    };
    let vals = vals.view(
        Layout {
            offset: vals.layout().offset,
            ..Layout::contiguous(indices.shape())
        },
        vals.dtype(),
    )?;
    if a.layout().is_c_contiguous() {
        return setitem(&flat(a)?, &[Item::Array(indices.clone())], &vals);
    }
    let tmp = astype(a, a.dtype())?;
    setitem(&flat(&tmp)?, &[Item::Array(indices.clone())], &vals)?;
    copy_into(&tmp, a)
}

/// A 1-d view of the C-contiguous `a`, or of a C-contiguous copy.
pub fn flat(a: &Array) -> Result<Array> {
    let a = if a.layout().is_c_contiguous() {
        a.clone()
    } else {
        contiguous(a)?
    };
    a.view(
        Layout {
            shape: vec![a.size()],
            strides: vec![1],
            offset: a.layout().offset,
        },
        a.dtype(),
    )
}

const FULL: Index = Index::Slice {
    start: None,
    stop: None,
    step: None,
};

/// The key as basic indices (the caller checked that it has no arrays).
fn basic_only(items: &[Item]) -> Vec<Index> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Basic(b) => Some(*b),
            _ => None,
        })
        .collect()
}

/// Drops leading length-1 axes of `value` beyond `shape`'s rank, then broadcasts it to
/// `shape`, with NumPy's error text.
fn fit_value(value: &Array, shape: &[usize]) -> Result<Array> {
    let mut v = value.clone();
    while v.ndim() > shape.len() && v.shape()[0] == 1 {
        v = v.index(&[Index::Int(0)])?;
    }
    v.broadcast_to(shape).map_err(|_| {
        Error::Value(format!(
            "shape mismatch: value array of shape {} could not be broadcast to indexing result of shape {}",
            shape_str(value.shape()).replace(", ", ","),
            shape_str(shape).replace(", ", ",")
        ))
    })
}

/// NumPy's IndexError for an index array that is neither integer nor boolean.
fn check_index_dtype(x: &Array) -> Result<()> {
    match x.dtype().kind() {
        Kind::Int | Kind::UInt | Kind::Bool => Ok(()),
        _ => Err(Error::Index(
            "arrays used as indices must be of integer (or boolean) type".into(),
        )),
    }
}

/// A boolean index must match the axes it covers exactly (`first_axis` names the first
/// in NumPy's message).
fn check_mask(mask: &Array, axes: &[usize], first_axis: usize) -> Result<()> {
    for (j, (&m, &n)) in mask.shape().iter().zip(axes).enumerate() {
        if m != n {
            return Err(Error::Index(format!(
                "boolean index did not match indexed array along axis {}; size of axis is {n} but size of corresponding boolean axis is {m}",
                first_axis + j
            )));
        }
    }
    Ok(())
}

/// How an advanced key reads its array: see the module comment.
struct Plan {
    /// The basic view V.
    view: Array,
    /// The result's shape.
    shape: Vec<usize>,
    /// Per result axis: V's stride, or 0 on the index (B) axes.
    src_strides: Vec<isize>,
    /// Element offsets into V, C-contiguous int64 of the broadcast index shape B.
    off: Array,
    /// Per result axis: `off`'s stride on the B axes, 0 elsewhere.
    off_strides: Vec<isize>,
}

/// One index array resolved against an axis of V.
struct AxisIndex {
    array: Array,
    /// V's extent and stride on the indexed axis (unused for raw offsets).
    extent: usize,
    stride: isize,
    /// The values are element offsets already (from a mask).
    raw: bool,
    /// The axis of `a` it indexes, for error messages.
    src_axis: usize,
}

/// `None` for keys without arrays.
fn plan(a: &Array, items: &[Item]) -> Result<Option<Plan>> {
    if !is_advanced(items) {
        return Ok(None);
    }
    let ndim = a.ndim();
    let mut consumed = 0;
    for item in items {
        consumed += match item {
            Item::Basic(Index::Int(_) | Index::Slice { .. }) => 1,
            Item::Basic(_) | Item::Bool(_) => 0,
            Item::Array(x) => {
                same_device(a, x)?;
                check_index_dtype(x)?;
                if x.dtype() == DType::Bool {
                    x.ndim()
                } else {
                    1
                }
            }
        };
    }
    let ellipsis_dims = ndim.saturating_sub(consumed);

    // The basic view, and where each advanced item sits in it.
    enum Adv<'a> {
        Ints(&'a Array, usize, usize),
        Mask(&'a Array, usize, usize),
        Bool(bool, usize),
    }
    let mut basic = Vec::with_capacity(items.len());
    let mut advs = Vec::new();
    let mut adv_positions = Vec::new();
    let mut first_adv_axis = None;
    let (mut v_axis, mut src_axis) = (0, 0);
    for (pos, item) in items.iter().enumerate() {
        if item.is_advanced() || matches!(item, Item::Basic(Index::Int(_))) {
            adv_positions.push(pos);
            first_adv_axis.get_or_insert(v_axis);
        }
        match item {
            Item::Basic(b) => {
                basic.push(*b);
                let (v, s) = match b {
                    Index::Int(_) => (0, 1),
                    Index::Slice { .. } => (1, 1),
                    Index::NewAxis => (1, 0),
                    Index::Ellipsis => (ellipsis_dims, ellipsis_dims),
                };
                v_axis += v;
                src_axis += s;
            }
            Item::Bool(b) => {
                basic.push(Index::NewAxis);
                advs.push(Adv::Bool(*b, v_axis));
                v_axis += 1;
            }
            Item::Array(x) if x.dtype() == DType::Bool && x.ndim() == 0 => {
                let mut byte = [0u8; 1];
                x.to_host(&mut byte)?;
                basic.push(Index::NewAxis);
                advs.push(Adv::Bool(byte[0] != 0, v_axis));
                v_axis += 1;
            }
            Item::Array(x) if x.dtype() == DType::Bool => {
                basic.extend(std::iter::repeat_n(FULL, x.ndim()));
                advs.push(Adv::Mask(x, v_axis, src_axis));
                v_axis += x.ndim();
                src_axis += x.ndim();
            }
            Item::Array(x) => {
                basic.push(FULL);
                advs.push(Adv::Ints(x, v_axis, src_axis));
                v_axis += 1;
                src_axis += 1;
            }
        }
    }
    let view = a.index(&basic)?;
    let vshape = view.shape().to_vec();
    let vstrides = view.layout().strides.clone();

    // Every advanced item as index arrays over V's axes.
    let mut is_index_axis = vec![false; view.ndim()];
    let mut indices = Vec::new();
    for adv in advs {
        match adv {
            Adv::Ints(x, v, s) => {
                is_index_axis[v] = true;
                indices.push(AxisIndex {
                    array: x.clone(),
                    extent: vshape[v],
                    stride: vstrides[v],
                    raw: false,
                    src_axis: s,
                });
            }
            Adv::Bool(b, v) => {
                is_index_axis[v] = true;
                let zero = super::fill::full(a.device(), &[b as usize], DType::Int64, &[0; 8])?;
                indices.push(AxisIndex {
                    array: zero,
                    extent: 1,
                    stride: 0,
                    raw: false,
                    src_axis: 0,
                });
            }
            Adv::Mask(m, v, s) => {
                let k = m.ndim();
                check_mask(m, &vshape[v..v + k], s)?;
                is_index_axis[v..v + k].iter_mut().for_each(|x| *x = true);
                indices.push(AxisIndex {
                    array: mask_offsets(m, &vstrides[v..v + k])?,
                    extent: 0,
                    stride: 1,
                    raw: true,
                    src_axis: s,
                });
            }
        }
    }
    let shapes: Vec<&[usize]> = indices.iter().map(|i| i.array.shape()).collect();
    let bshape = broadcast_shapes(&shapes).map_err(|_| {
        let all: Vec<String> = shapes
            .iter()
            .map(|s| shape_str(s).replace(", ", ","))
            .collect();
        Error::Index(format!(
            "shape mismatch: indexing arrays could not be broadcast together with shapes {} ",
            all.join(" ")
        ))
    })?;
    let off = offsets(a, &indices, &bshape)?;

    // NumPy's placement of the B axes among V's other axes.
    let adjacent = adv_positions
        .last()
        .zip(adv_positions.first())
        .map(|(l, f)| l - f + 1)
        == Some(adv_positions.len());
    let rest: Vec<usize> = (0..view.ndim()).filter(|&v| !is_index_axis[v]).collect();
    let at = if adjacent {
        let first = first_adv_axis.unwrap_or(0);
        rest.iter().filter(|&&v| v < first).count()
    } else {
        0
    };
    let bstrides = Layout::contiguous(&bshape).strides;
    let mut shape = Vec::new();
    let mut src_strides = Vec::new();
    let mut off_strides = Vec::new();
    for &v in &rest[..at] {
        shape.push(vshape[v]);
        src_strides.push(vstrides[v]);
        off_strides.push(0);
    }
    shape.extend_from_slice(&bshape);
    src_strides.extend(std::iter::repeat_n(0, bshape.len()));
    off_strides.extend_from_slice(&bstrides);
    for &v in &rest[at..] {
        shape.push(vshape[v]);
        src_strides.push(vstrides[v]);
        off_strides.push(0);
    }
    Ok(Some(Plan {
        view,
        shape,
        src_strides,
        off,
        off_strides,
    }))
}

/// The element offsets of the broadcast index arrays: `sum_k resolve(index_k) * stride_k`,
/// C-contiguous int64 of `bshape`. Raises NumPy's IndexError for the first index array
/// (in key order) holding an out-of-range value.
fn offsets(a: &Array, indices: &[AxisIndex], bshape: &[usize]) -> Result<Array> {
    let device = a.device();
    // A lone mask's offsets are the answer already.
    if let [only] = indices
        && only.raw
        && only.array.shape() == bshape
        && only.array.layout().is_c_contiguous()
    {
        return Ok(only.array.clone());
    }
    let off = Array::empty(device, bshape, DType::Int64)?;
    if off.size() == 0 {
        return Ok(off);
    }
    let err = super::fill::full(device, &[indices.len()], DType::UInt64, &[0xff; 8])?;
    let kernels = device.kernels()?;
    device.bind()?;
    for (k, ix) in indices.iter().enumerate() {
        let idx = ix.array.broadcast_to(bshape)?;
        let mut args = strided_args(bshape, [&off.layout().strides, &idx.layout().strides])?;
        let f = kernels.function(&format!(
            "gpupy_index_offsets_{}",
            gpupy_kernels::loops::DTYPE_NAMES[idx.dtype() as usize]
        ))?;
        let (mut i, mut o, mut e) = (
            idx.data_ptr(),
            off.data_ptr(),
            err.data_ptr() + 8 * k as u64,
        );
        let (mut extent, mut stride) = (ix.extent as u64, ix.stride as i64);
        let mut flags = if k == 0 { FIRST } else { 0 } | if ix.raw { RAW } else { 0 };
        // SAFETY: (Strided<2>, idx, off, extent, stride, flags, err) is the offsets
        // kernel's parameter list for idx's dtype (an integer dtype, checked in `plan`):
        // off is C-contiguous of bshape and idx is broadcast to bshape, both fit their
        // buffers; err points to slot k of `indices.len()` u64s.
        unsafe {
            launch(
                f,
                (grid_for(device, args.len), 1, 1),
                BLOCK,
                0,
                &mut [
                    arg(&mut args),
                    arg(&mut i),
                    arg(&mut o),
                    arg(&mut extent),
                    arg(&mut stride),
                    arg(&mut flags),
                    arg(&mut e),
                ],
            )?
        };
    }
    if indices.iter().all(|ix| ix.raw) {
        return Ok(off);
    }
    let errors = read_u64s(&err)?;
    if let Some((ix, pos)) = indices.iter().zip(errors).find(|(_, p)| *p != u64::MAX) {
        let value = index_value_at(&ix.array.broadcast_to(bshape)?, pos)?;
        return Err(Error::Index(format!(
            "index {value} is out of bounds for axis {} with size {}",
            ix.src_axis, ix.extent
        )));
    }
    Ok(off)
}

/// The integer at C-order position `pos` of `x`, read from the device.
fn index_value_at(x: &Array, pos: u64) -> Result<i128> {
    let mut rem = pos as usize;
    let mut coords = vec![0; x.ndim()];
    for (c, &n) in coords.iter_mut().zip(x.shape()).rev() {
        *c = (rem % n.max(1)) as isize;
        rem /= n.max(1);
    }
    let coords: Vec<Index> = coords.into_iter().map(Index::Int).collect();
    let item = x.index(&coords)?;
    let mut bytes = vec![0u8; x.dtype().itemsize()];
    item.to_host(&mut bytes)?;
    let mut wide = [0u8; 16];
    let signed = x.dtype().kind() == Kind::Int && bytes.last().is_some_and(|b| b & 0x80 != 0);
    wide.fill(if signed { 0xff } else { 0 });
    wide[..bytes.len()].copy_from_slice(&bytes);
    Ok(i128::from_le_bytes(wide))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_slice_is_the_identity() {
        let l = Layout::contiguous(&[3, 4]);
        assert_eq!(l.index(&[FULL, FULL]).unwrap(), l);
    }
}
