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

use gpupy_kernels as kernels;
use gpupy_kernels::args::{MAX_DIMS, Strided};
use gpupy_kernels::index::{FIRST, NONZERO_BLOCK, NONZERO_COORDS, NONZERO_OFFSETS, Part, RAW};

use crate::array::Array;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::layout::advanced::{
    FULL, IndexArray, KeyItem, Role, arrange, broadcast_indices, check_mask, layout_plan,
    out_of_bounds,
};
use crate::layout::{Index, Layout, broadcast_shapes, normalize_axis, shape_str};
use crate::ops::elementwise::copy::{astype, contiguous, copy_into, same_device};
use crate::ops::{BLOCK, grid_for, strided_args};
use crate::table::size_index;

pub use crate::layout::advanced::is_advanced;

/// A key entry with its arrays on the device.
pub type Item = KeyItem<Array>;

pub fn getitem(a: &Array, items: &[Item]) -> Result<Array> {
    let Some(plan) = plan(a, items)? else {
        return a.index(&basic_only(items));
    };
    let out = Array::empty(a.device(), &plan.shape, a.dtype())?;
    if out.size() == 0 {
        return Ok(out);
    }
    let (src, off) = (&plan.view, &plan.off);
    let args = strided_args(
        &plan.shape,
        [&out.layout().strides, &plan.src_strides, &plan.off_strides],
    )?;
    let device = a.device();
    let f = Part::Gather.at(size_index(a.dtype().itemsize()));
    let (s, o, d) = (src.data_ptr(), off.data_ptr(), out.data_ptr());
    // (Strided<3>, src, off, out) is the gather kernel's parameter list. `out` is
    // C-contiguous of the result shape; the src strides are V's at coordinates inside V's
    // shape, and every `off` value is a sum of in-range indices times V's strides (checked
    // before `plan` returned), so every element read is an element of V, which fits its
    // buffer.
    Launch::new(device, f)?
        .grid(grid_for(device, args.len))
        .block(BLOCK)
        .arg(args)
        .arg(s)
        .arg(o)
        .arg(d)
        .run()?;
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
    let args = strided_args(
        &plan.shape,
        [
            &value.layout().strides,
            &plan.src_strides,
            &plan.off_strides,
        ],
    )?;
    let device = a.device();
    let f = Part::Scatter.at(size_index(a.dtype().itemsize()));
    let (v, o, d) = (value.data_ptr(), plan.off.data_ptr(), plan.view.data_ptr());
    // (Strided<3>, val, off, dst) is the scatter kernel's parameter list; `value`
    // is broadcast to the result shape (it fits its buffer) and no longer shares `a`'s
    // buffer; every destination is an element of V, as in `getitem`.
    Launch::new(device, f)?
        .grid(grid_for(device, args.len))
        .block(BLOCK)
        .arg(args)
        .arg(v)
        .arg(o)
        .arg(d)
        .run()
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
    check_mask(mask.shape(), a.shape(), 0)?;
    if a.size() == 0 {
        return Ok(Some(()));
    }
    // A mask inside `a` (`b[b] = False`, `b[b[::-1]] = True`) is read in full first: the
    // select's threads would otherwise read elements that others write.
    let mask = &if mask.shares_buffer(a) {
        astype(mask, DType::Bool)?
    } else {
        mask.clone()
    };
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
    let args = strided_args(
        out.shape(),
        [
            &out.layout().strides,
            &cond.layout().strides,
            &x.layout().strides,
            &y.layout().strides,
        ],
    )?;
    let device = out.device();
    let f = Part::Select.at(size_index(out.dtype().itemsize()));
    let (c, xp, yp, o) = (cond.data_ptr(), x.data_ptr(), y.data_ptr(), out.data_ptr());
    // (Strided<4>, cond, x, y, out) is the select kernel's parameter list; every
    // layout fits its buffer and has out's shape; callers pass a `y` that overlaps `out`
    // only as the same elements (each thread reads its element before writing it).
    Launch::new(device, f)?
        .grid(grid_for(device, args.len))
        .block(BLOCK)
        .arg(args)
        .arg(c)
        .arg(xp)
        .arg(yp)
        .arg(o)
        .run()
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
    let inner_first: Vec<u64> = a.shape().iter().rev().map(|&n| n as u64).collect();
    let zeros = vec![0i64; a.ndim()];
    let s = Strided::<1>::new(&inner_first, [&zeros]).ok_or_else(|| {
        Error::Value(format!(
            "gpupy's nonzero takes at most {MAX_DIMS} dimensions, got {}",
            a.ndim()
        ))
    })?;
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
    let counts =
        crate::ops::elementwise::fill::full(device, &[blocks as usize], DType::UInt64, &[0; 8])?;
    let (count, write) = (Part::Nonzero.at(0), Part::Nonzero.at(1));
    let (m, nn, ch, c) = (mask.data_ptr(), n, chunk, counts.data_ptr());
    // (mask, n, chunk, counts) is the count kernel's parameter list: mask is
    // C-contiguous with n bytes, counts has one zeroed u64 per block, and every block's
    // chunk starts below n; NONZERO_BLOCK is a multiple of 32.
    Launch::new(device, count)?
        .grid(blocks as u32)
        .block(NONZERO_BLOCK)
        .arg(m)
        .arg(nn)
        .arg(ch)
        .arg(c)
        .run()?;
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
        let (st, s, total, o, mode) = (starts.data_ptr(), s, nnz, out.data_ptr(), mode);
        // (mask, n, chunk, starts, Strided<1>, nnz, out, mode) is the write
        // kernel's parameter list: starts is the exclusive scan of this mask's counts, so
        // every rank is below nnz; out holds rows * nnz int64; the shared size covers one
        // u32 per warp.
        Launch::new(device, write)?
            .grid(blocks as u32)
            .block(NONZERO_BLOCK)
            .shared(NONZERO_BLOCK / 32 * 4)
            .arg(m)
            .arg(nn)
            .arg(ch)
            .arg(st)
            .arg(s)
            .arg(total)
            .arg(o)
            .arg(mode)
            .run()?;
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
    crate::ops::elementwise::copy::to_host(a, &mut bytes)?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

/// NumPy's `take(a, indices, axis)`: `a[..., indices, ...]` along `axis` (of the flattened
/// array when `None`), always a new array. Boolean indices count as 0 and 1 (NumPy casts
/// them to integers safely).
pub fn take(a: &Array, indices: &Array, axis: Option<isize>) -> Result<Array> {
    let indices = integer_indices(indices)?;
    let (src, axis) = match axis {
        None => (flat(a)?, 0),
        Some(ax) => (a.clone(), normalize_axis(ax, a.ndim())?),
    };
    let mut items = vec![Item::Basic(FULL); axis];
    items.push(Item::Array(indices));
    getitem(&src, &items)
}

/// Indices of `take`/`put`: integers as they are, booleans as int64 0 and 1.
fn integer_indices(indices: &Array) -> Result<Array> {
    check_index_dtype(indices)?;
    if indices.dtype() == DType::Bool {
        astype(indices, DType::Int64)
    } else {
        Ok(indices.clone())
    }
}

/// NumPy's `put(a, indices, values)`: `a.flat[indices] = values`, the values repeated
/// when there are fewer of them than indices. `values` has `a`'s dtype.
pub fn put(a: &Array, indices: &Array, values: &Array) -> Result<()> {
    let indices = &integer_indices(indices)?;
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

/// One index array on the device, resolved against an axis of V.
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
    for item in items {
        if let Item::Array(x) = item {
            same_device(a, x)?;
        }
    }
    let lp = layout_plan(a.layout(), items)?;
    let view = a.view(lp.view.clone(), a.dtype())?;
    let device = a.device();
    let scalar_bool = |b: bool| -> Result<AxisIndex> {
        Ok(AxisIndex {
            array: crate::ops::elementwise::fill::full(
                device,
                &[b as usize],
                DType::Int64,
                &[0; 8],
            )?,
            extent: 1,
            stride: 0,
            raw: false,
            src_axis: 0,
        })
    };
    let mut indices = Vec::with_capacity(lp.roles.len());
    for role in &lp.roles {
        indices.push(match role {
            Role::Ints {
                array,
                extent,
                stride,
                src_axis,
            } => AxisIndex {
                array: (*array).clone(),
                extent: *extent,
                stride: *stride,
                raw: false,
                src_axis: *src_axis,
            },
            Role::Mask { array, strides } => AxisIndex {
                array: mask_offsets(array, strides)?,
                extent: 0,
                stride: 1,
                raw: true,
                src_axis: 0,
            },
            Role::Bool(b) => scalar_bool(*b)?,
            Role::BoolArray(x) => {
                let mut byte = [0u8; 1];
                crate::ops::elementwise::copy::to_host(x, &mut byte)?;
                scalar_bool(byte[0] != 0)?
            }
        });
    }
    let shapes: Vec<&[usize]> = indices.iter().map(|i| i.array.shape()).collect();
    let bshape = broadcast_indices(&shapes)?;
    let off = offsets(a, &indices, &bshape)?;
    let (shape, src_strides, off_strides) = arrange(&lp, &bshape);
    Ok(Some(Plan {
        view,
        shape,
        src_strides,
        off,
        off_strides,
    }))
}

/// What planning needs to know of an index array (its data stays where it is).
impl IndexArray for Array {
    fn index_shape(&self) -> &[usize] {
        self.shape()
    }
    fn index_dtype(&self) -> DType {
        self.dtype()
    }
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
    let err =
        crate::ops::elementwise::fill::full(device, &[indices.len()], DType::UInt64, &[0xff; 8])?;
    for (k, ix) in indices.iter().enumerate() {
        let idx = ix.array.broadcast_to(bshape)?;
        let args = strided_args(bshape, [&off.layout().strides, &idx.layout().strides])?;
        let f = kernels::index::offsets(idx.dtype() as usize).ok_or_else(|| {
            Error::Index(format!(
                "arrays used as indices must be of integer type, not {}",
                idx.dtype().name()
            ))
        })?;
        let (i, o, e) = (
            idx.data_ptr(),
            off.data_ptr(),
            err.data_ptr() + 8 * k as u64,
        );
        let (extent, stride) = (ix.extent as u64, ix.stride as i64);
        let flags = if k == 0 { FIRST } else { 0 } | if ix.raw { RAW } else { 0 };
        // (Strided<2>, idx, off, extent, stride, flags, err) is the offsets
        // kernel's parameter list for idx's dtype (an integer dtype, checked in `plan`):
        // off is C-contiguous of bshape and idx is broadcast to bshape, both fit their
        // buffers; err points to slot k of `indices.len()` u64s.
        Launch::new(device, f)?
            .grid(grid_for(device, args.len))
            .block(BLOCK)
            .arg(args)
            .arg(i)
            .arg(o)
            .arg(extent)
            .arg(stride)
            .arg(flags)
            .arg(e)
            .run()?;
    }
    if indices.iter().all(|ix| ix.raw) {
        return Ok(off);
    }
    let errors = read_u64s(&err)?;
    if let Some((ix, pos)) = indices.iter().zip(errors).find(|(_, p)| *p != u64::MAX) {
        let value = index_value_at(&ix.array.broadcast_to(bshape)?, pos)?;
        return Err(out_of_bounds(value, ix.src_axis, ix.extent));
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
    crate::ops::elementwise::copy::to_host(&item, &mut bytes)?;
    let mut wide = [0u8; 16];
    let signed = x.dtype().kind() == Kind::Int && bytes.last().is_some_and(|b| b & 0x80 != 0);
    wide.fill(if signed { 0xff } else { 0 });
    wide[..bytes.len()].copy_from_slice(&bytes);
    Ok(i128::from_le_bytes(wide))
}
