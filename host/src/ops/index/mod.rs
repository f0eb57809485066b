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
use gpupy_kernels as kernels;
use gpupy_kernels::index::{FIRST, NONZERO_BLOCK, NONZERO_COORDS, NONZERO_OFFSETS, Part, RAW};

use crate::launch::Launch;
use crate::ops::elementwise::copy::{astype, contiguous, copy_into, same_device};
use crate::ops::{BLOCK, grid_for, strided_args};
use crate::table::size_index;
use crate::array::Array;
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};
use crate::layout::{Index, Layout, broadcast_shapes, normalize_axis, shape_str};

/// One entry of an index key; `A` is the array type (`Array` for device arrays).
#[derive(Clone)]
pub enum KeyItem<A> {
    /// An integer, slice, `None` or `...`.
    Basic(Index),
    /// An integer or boolean array (any shape).
    Array(A),
    /// A scalar boolean (`a[True]`): a new axis of length 1 or 0.
    Bool(bool),
}

/// A key entry with its arrays on the device.
pub type Item = KeyItem<Array>;

impl<A> KeyItem<A> {
    fn is_advanced(&self) -> bool {
        !matches!(self, KeyItem::Basic(_))
    }
}

/// Whether `items` needs advanced indexing (an array or a scalar boolean in the key).
pub fn is_advanced<A>(items: &[KeyItem<A>]) -> bool {
    items.iter().any(KeyItem::is_advanced)
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
    let (c, xp, yp, o) =
        (cond.data_ptr(), x.data_ptr(), y.data_ptr(), out.data_ptr());
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
    let counts = crate::ops::elementwise::fill::full(device, &[blocks as usize], DType::UInt64, &[0; 8])?;
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
        let (st, s, total, o, mode) =
            (starts.data_ptr(), s, nnz, out.data_ptr(), mode);
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
    a.to_host(&mut bytes)?;
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
    let v = value.clone();
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
fn check_mask(mask: &[usize], axes: &[usize], first_axis: usize) -> Result<()> {
    for (j, (&m, &n)) in mask.iter().zip(axes).enumerate() {
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
            array: crate::ops::elementwise::fill::full(device, &[b as usize], DType::Int64, &[0; 8])?,
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
                x.to_host(&mut byte)?;
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
pub(crate) trait IndexArray {
    fn index_shape(&self) -> &[usize];
    fn index_dtype(&self) -> DType;
}

impl IndexArray for Array {
    fn index_shape(&self) -> &[usize] {
        self.shape()
    }
    fn index_dtype(&self) -> DType {
        self.dtype()
    }
}

/// How one advanced entry of a key acts on the basic view V.
enum Role<'a, A> {
    /// Integer indices into one axis of V.
    Ints {
        array: &'a A,
        extent: usize,
        stride: isize,
        /// The axis of the indexed array, for error messages.
        src_axis: usize,
    },
    /// A boolean mask over some axes of V: its true elements, as offsets in `strides`.
    Mask { array: &'a A, strides: Vec<isize> },
    /// A scalar boolean: a new axis of V (length 1) indexed by `[0]` if true, `[]` if not.
    Bool(bool),
    /// A 0-d boolean array: as `Bool`, with the value still on the device.
    BoolArray(&'a A),
}

/// The layout part of an advanced key: the basic view, the roles of its index arrays in
/// key order, and where their broadcast axes go.
struct LayoutPlan<'a, A> {
    view: Layout,
    roles: Vec<Role<'a, A>>,
    /// The axes of V that index arrays consume.
    is_index_axis: Vec<bool>,
    /// How many of V's remaining axes come before the broadcast index axes.
    at: usize,
}

fn layout_plan<'a, A: IndexArray>(
    layout: &Layout,
    items: &'a [KeyItem<A>],
) -> Result<LayoutPlan<'a, A>> {
    let mut consumed = 0;
    for item in items {
        consumed += match item {
            KeyItem::Basic(Index::Int(_) | Index::Slice { .. }) => 1,
            KeyItem::Basic(_) | KeyItem::Bool(_) => 0,
            KeyItem::Array(x) => match x.index_dtype().kind() {
                Kind::Bool => x.index_shape().len(),
                Kind::Int | Kind::UInt => 1,
                _ => {
                    return Err(Error::Index(
                        "arrays used as indices must be of integer (or boolean) type".into(),
                    ));
                }
            },
        };
    }
    let ellipsis_dims = layout.ndim().saturating_sub(consumed);

    // The basic view keeps every array-indexed axis (a full slice; a new axis for a
    // scalar boolean). Record where each advanced entry sits in it.
    enum At<'a, A> {
        Ints(&'a A, usize),
        Mask(&'a A, usize, usize),
        Bool(bool),
        BoolArray(&'a A),
    }
    let mut basic = Vec::with_capacity(items.len());
    let mut found = Vec::new();
    let mut positions = Vec::new();
    let mut first_axis = 0;
    let (mut v_axis, mut src_axis) = (0, 0);
    for (pos, item) in items.iter().enumerate() {
        // Integers count as advanced indices for the placement rule, as in NumPy.
        if item.is_advanced() || matches!(item, KeyItem::Basic(Index::Int(_))) {
            if positions.is_empty() {
                first_axis = v_axis;
            }
            positions.push(pos);
        }
        match item {
            KeyItem::Basic(b) => {
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
            KeyItem::Bool(b) => {
                basic.push(Index::NewAxis);
                found.push((At::Bool(*b), v_axis));
                v_axis += 1;
            }
            KeyItem::Array(x) if x.index_dtype() == DType::Bool && x.index_shape().is_empty() => {
                basic.push(Index::NewAxis);
                found.push((At::BoolArray(x), v_axis));
                v_axis += 1;
            }
            KeyItem::Array(x) if x.index_dtype() == DType::Bool => {
                let k = x.index_shape().len();
                basic.extend(std::iter::repeat_n(FULL, k));
                found.push((At::Mask(x, k, src_axis), v_axis));
                v_axis += k;
                src_axis += k;
            }
            KeyItem::Array(x) => {
                basic.push(FULL);
                found.push((At::Ints(x, src_axis), v_axis));
                v_axis += 1;
                src_axis += 1;
            }
        }
    }
    // NumPy's order of errors: too many indices, then boolean shapes, then ranges.
    if consumed <= layout.ndim() {
        for (at, _) in &found {
            if let At::Mask(x, k, s) = at
                && let Some(axes) = layout.shape.get(*s..*s + *k)
            {
                check_mask(x.index_shape(), axes, *s)?;
            }
        }
    }
    let view = layout.index(&basic)?;
    let mut is_index_axis = vec![false; view.ndim()];
    let mut roles = Vec::with_capacity(found.len());
    for (at, v) in found {
        roles.push(match at {
            At::Ints(x, s) => {
                is_index_axis[v] = true;
                Role::Ints {
                    array: x,
                    extent: view.shape[v],
                    stride: view.strides[v],
                    src_axis: s,
                }
            }
            At::Mask(x, k, _) => {
                is_index_axis[v..v + k].fill(true);
                Role::Mask {
                    array: x,
                    strides: view.strides[v..v + k].to_vec(),
                }
            }
            At::Bool(b) => {
                is_index_axis[v] = true;
                Role::Bool(b)
            }
            At::BoolArray(x) => {
                is_index_axis[v] = true;
                Role::BoolArray(x)
            }
        });
    }
    // NumPy's rule: the broadcast index axes replace the indexed ones when the advanced
    // entries stand next to each other in the key, and go first otherwise.
    let adjacent = positions.last().map(|l| l + 1 - positions[0]) == Some(positions.len());
    let at = if adjacent {
        (0..first_axis).filter(|&v| !is_index_axis[v]).count()
    } else {
        0
    };
    Ok(LayoutPlan {
        view,
        roles,
        is_index_axis,
        at,
    })
}

/// The result's shape and, per result axis, the stride in V (0 on the index axes) and
/// in the C-contiguous offsets of shape `bshape` (0 elsewhere).
fn arrange<A>(lp: &LayoutPlan<'_, A>, bshape: &[usize]) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
    let rest: Vec<usize> = (0..lp.view.ndim())
        .filter(|&v| !lp.is_index_axis[v])
        .collect();
    let (before, after) = rest.split_at(lp.at.min(rest.len()));
    let mut shape = Vec::with_capacity(rest.len() + bshape.len());
    let mut src = Vec::with_capacity(shape.capacity());
    let mut off = Vec::with_capacity(shape.capacity());
    for &v in before {
        shape.push(lp.view.shape[v]);
        src.push(lp.view.strides[v]);
        off.push(0);
    }
    shape.extend_from_slice(bshape);
    src.extend(std::iter::repeat_n(0, bshape.len()));
    off.extend(Layout::contiguous(bshape).strides);
    for &v in after {
        shape.push(lp.view.shape[v]);
        src.push(lp.view.strides[v]);
        off.push(0);
    }
    (shape, src, off)
}

/// The broadcast shape of the index arrays, with NumPy's IndexError.
fn broadcast_indices(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    broadcast_shapes(shapes).map_err(|_| {
        let all: Vec<String> = shapes
            .iter()
            .map(|s| shape_str(s).replace(", ", ","))
            .collect();
        Error::Index(format!(
            "shape mismatch: indexing arrays could not be broadcast together with shapes {} ",
            all.join(" ")
        ))
    })
}

/// NumPy's IndexError for an out-of-range index.
fn out_of_bounds(value: i128, axis: usize, extent: usize) -> Error {
    Error::Index(format!(
        "index {value} is out of bounds for axis {axis} with size {extent}"
    ))
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
    let err = crate::ops::elementwise::fill::full(device, &[indices.len()], DType::UInt64, &[0xff; 8])?;
    for (k, ix) in indices.iter().enumerate() {
        let idx = ix.array.broadcast_to(bshape)?;
        let args = strided_args(bshape, [&off.layout().strides, &idx.layout().strides])?;
        let f = kernels::index::offsets(idx.dtype() as usize).ok_or_else(|| {
            Error::Index(format!("arrays used as indices must be of integer type, not {}", idx.dtype().name()))
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
    use gpupy_kernels::index::offset_term;

    #[test]
    fn full_slice_is_the_identity() {
        let l = Layout::contiguous(&[3, 4]);
        assert_eq!(l.index(&[FULL, FULL]).unwrap(), l);
    }

    /// An index array on the host: int64 values, or 0/1 for booleans.
    struct Host {
        shape: Vec<usize>,
        dtype: DType,
        data: Vec<i64>,
    }
    impl IndexArray for Host {
        fn index_shape(&self) -> &[usize] {
            &self.shape
        }
        fn index_dtype(&self) -> DType {
            self.dtype
        }
    }

    fn i(v: isize) -> KeyItem<Host> {
        KeyItem::Basic(Index::Int(v))
    }
    fn sl(start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> KeyItem<Host> {
        KeyItem::Basic(Index::Slice { start, stop, step })
    }
    const N: KeyItem<Host> = KeyItem::Basic(Index::NewAxis);
    const E: KeyItem<Host> = KeyItem::Basic(Index::Ellipsis);
    fn ints(shape: &[usize], data: &[i64]) -> KeyItem<Host> {
        KeyItem::Array(Host {
            shape: shape.to_vec(),
            dtype: DType::Int64,
            data: data.to_vec(),
        })
    }
    fn mask(shape: &[usize], data: &[i64]) -> KeyItem<Host> {
        KeyItem::Array(Host {
            shape: shape.to_vec(),
            dtype: DType::Bool,
            data: data.to_vec(),
        })
    }

    /// What `getitem` launches, run on the CPU with the kernels' own index arithmetic:
    /// the result's shape and, per element, its offset in the indexed array's buffer.
    fn cpu_getitem(layout: &Layout, items: &[KeyItem<Host>]) -> Result<(Vec<usize>, Vec<i64>)> {
        let lp = layout_plan(layout, items)?;
        // (shape, values, extent, stride, raw, axis) per index array, as `plan` builds them.
        type HostIndex = (Vec<usize>, Vec<i64>, usize, isize, bool, usize);
        let mut ixs: Vec<HostIndex> = Vec::new();
        for role in &lp.roles {
            ixs.push(match role {
                Role::Ints {
                    array,
                    extent,
                    stride,
                    src_axis,
                } => (
                    array.shape.clone(),
                    array.data.clone(),
                    *extent,
                    *stride,
                    false,
                    *src_axis,
                ),
                Role::Mask { array, strides } => {
                    let s = strided_args(&array.shape, [strides]).unwrap();
                    let offs: Vec<i64> = (0..array.data.len())
                        .filter(|&e| array.data[e] != 0)
                        .map(|e| s.offsets(e as u64)[0])
                        .collect();
                    (vec![offs.len()], offs, 0, 1, true, 0)
                }
                Role::Bool(b) => (vec![*b as usize], vec![0; *b as usize], 1, 0, false, 0),
                Role::BoolArray(x) => {
                    let b = x.data[0] != 0;
                    (vec![b as usize], vec![0; b as usize], 1, 0, false, 0)
                }
            });
        }
        let shapes: Vec<&[usize]> = ixs.iter().map(|x| x.0.as_slice()).collect();
        let bshape = broadcast_indices(&shapes)?;
        let bsize: usize = bshape.iter().product();
        let mut off = vec![0i64; bsize];
        for (k, (shape, data, extent, stride, raw, axis)) in ixs.iter().enumerate() {
            let lay = Layout::contiguous(shape).broadcast_to(&bshape)?;
            let s = strided_args(&bshape, [&lay.strides])?;
            let flags = if k == 0 { FIRST } else { 0 } | if *raw { RAW } else { 0 };
            for (b, o) in off.iter_mut().enumerate() {
                let v = data[s.offsets(b as u64)[0] as usize];
                match offset_term(v, *extent as u64, *stride as i64, flags) {
                    Some(t) => *o = if k == 0 { t } else { *o + t },
                    None => return Err(out_of_bounds(v as i128, *axis, *extent)),
                }
            }
        }
        let (shape, src, offs) = arrange(&lp, &bshape);
        let out_layout = Layout::contiguous(&shape);
        let s = strided_args(&shape, [&out_layout.strides, &src, &offs])?;
        let mut out = vec![0i64; s.len as usize];
        for e in 0..s.len {
            let [o, x, k] = s.offsets(e);
            out[o as usize] = lp.view.offset as i64 + x + off[k as usize];
        }
        Ok((shape, out))
    }

    type Case = (
        &'static [usize],
        Vec<KeyItem<Host>>,
        Vec<KeyItem<Host>>,
        Result<(Vec<usize>, Vec<i64>)>,
    );

    /// Random keys (ints, slices, integer arrays of broadcastable shapes, masks, `None`,
    /// `...`; many invalid) from `random_advanced_key` in tests/test_advanced_indexing.py,
    /// applied by NumPy 2 to `np.arange(size).reshape(shape)`: values, shapes and the exact
    /// IndexError, including which error NumPy reports first.
    #[test]
    fn random_keys_match_numpy() {
        let cases: Vec<Case> = vec![
        (&[5], vec![], vec![ints(&[3], &[0, 0, 1]), N], Ok((vec![3, 1], vec![0, 0, 1]))),
        (&[5], vec![], vec![mask(&[5], &[0, 0, 0, 0, 1])], Ok((vec![1], vec![4]))),
        (&[5], vec![], vec![mask(&[5], &[1, 1, 0, 0, 1]), E], Ok((vec![3], vec![0, 1, 4]))),
        (&[5], vec![], vec![i(0), N, sl(None, None, Some(2))], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![ints(&[2, 1], &[-2, -3]), N, sl(Some(1), Some(-2), Some(1))], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![ints(&[1, 3], &[-1, -1, 3]), N, mask(&[2], &[1, 0]), N], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![mask(&[5], &[1, 1, 0, 1, 0]), i(-4), N, E], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![sl(Some(-3), None, Some(-1))], Ok((vec![3], vec![2, 1, 0]))),
        (&[5], vec![], vec![sl(None, Some(2), Some(-1)), N], Ok((vec![2, 1], vec![4, 3]))),
        (&[5], vec![], vec![sl(None, Some(2), Some(2)), i(2), N, E], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![mask(&[5], &[1, 0, 0, 0, 0]), E], Ok((vec![1], vec![0]))),
        (&[5], vec![], vec![mask(&[5], &[1, 0, 0, 1, 1]), i(-2)], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![sl(Some(3), Some(5), Some(-1)), i(4)], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![i(-3)], Ok((vec![], vec![2]))),
        (&[5], vec![], vec![E, ints(&[1, 3], &[3, -3, 0])], Ok((vec![1, 3], vec![3, 2, 0]))),
        (&[5], vec![], vec![sl(None, Some(-5), Some(2)), E, ints(&[3], &[3, 3, 3])], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![sl(None, Some(-5), Some(1)), i(1), E, N], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![i(2), i(-3)], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![i(-1), sl(None, None, Some(-2))], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![i(2)], Ok((vec![], vec![2]))),
        (&[5], vec![], vec![E, ints(&[1, 3], &[-2, 2, 1])], Ok((vec![1, 3], vec![3, 2, 1]))),
        (&[5], vec![], vec![E, i(-3)], Ok((vec![], vec![2]))),
        (&[5], vec![], vec![E, sl(Some(2), None, Some(-2))], Ok((vec![2], vec![2, 0]))),
        (&[5], vec![], vec![ints(&[2, 3], &[2, 3, -2, 2, -1, 1]), i(3)], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![i(0), i(-5)], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![sl(Some(-3), None, Some(2))], Ok((vec![2], vec![2, 4]))),
        (&[5], vec![], vec![sl(Some(-2), Some(2), Some(-2)), sl(Some(-4), Some(0), Some(-2)), N], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[5], vec![], vec![sl(Some(-2), None, Some(1))], Ok((vec![2], vec![3, 4]))),
        (&[5], vec![], vec![i(-5), N], Ok((vec![1], vec![0]))),
        (&[5], vec![], vec![ints(&[1, 3], &[3, 3, 3]), i(-3)], Err(Error::Index(r#"too many indices for array: array is 1-dimensional, but 2 were indexed"#.into()))),
        (&[4, 6], vec![], vec![i(2)], Ok((vec![6], vec![12, 13, 14, 15, 16, 17]))),
        (&[4, 6], vec![], vec![mask(&[4], &[0, 0, 1, 0]), sl(Some(2), None, Some(2)), sl(None, Some(4), Some(-2))], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![i(1), ints(&[2, 3], &[-1, -1, -4, 3, -2, 3]), sl(None, None, Some(1))], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![i(-5), sl(Some(3), None, Some(2)), N, i(-2)], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![sl(None, Some(-4), Some(-1)), sl(None, Some(-3), Some(2))], Ok((vec![3, 2], vec![18, 20, 12, 14, 6, 8]))),
        (&[4, 6], vec![], vec![ints(&[3], &[1, -2, -2]), E, sl(Some(-3), None, Some(-2))], Ok((vec![3, 2], vec![9, 7, 15, 13, 15, 13]))),
        (&[4, 6], vec![], vec![i(-3), ints(&[1, 3], &[-3, -4, -2])], Ok((vec![1, 3], vec![9, 8, 10]))),
        (&[4, 6], vec![], vec![E, ints(&[1, 3], &[1, 0, 3])], Ok((vec![4, 1, 3], vec![1, 0, 3, 7, 6, 9, 13, 12, 15, 19, 18, 21]))),
        (&[4, 6], vec![], vec![ints(&[1, 3], &[-2, 0, 1]), i(-1)], Ok((vec![1, 3], vec![17, 5, 11]))),
        (&[4, 6], vec![], vec![i(-4)], Ok((vec![6], vec![0, 1, 2, 3, 4, 5]))),
        (&[4, 6], vec![], vec![ints(&[2, 1], &[-2, -2]), E, N, sl(None, None, Some(-2)), ints(&[2, 1], &[-3, -4])], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![sl(None, Some(4), Some(1)), sl(None, Some(-4), Some(2))], Ok((vec![4, 1], vec![0, 6, 12, 18]))),
        (&[4, 6], vec![], vec![mask(&[4], &[0, 1, 1, 1])], Ok((vec![3, 6], vec![6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]))),
        (&[4, 6], vec![], vec![sl(Some(-5), Some(-3), Some(2)), N], Ok((vec![1, 1, 6], vec![0, 1, 2, 3, 4, 5]))),
        (&[4, 6], vec![], vec![E, mask(&[4], &[1, 1, 0, 1])], Err(Error::Index(r#"boolean index did not match indexed array along axis 1; size of axis is 6 but size of corresponding boolean axis is 4"#.into()))),
        (&[4, 6], vec![], vec![sl(None, Some(5), Some(-2))], Ok((vec![0, 6], vec![]))),
        (&[4, 6], vec![], vec![sl(None, None, Some(1)), i(-1), N, i(1)], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![i(-2), E, sl(Some(-2), Some(-4), Some(1))], Ok((vec![0], vec![]))),
        (&[4, 6], vec![], vec![i(-4), ints(&[3], &[2, -4, -4])], Ok((vec![3], vec![2, 2, 2]))),
        (&[4, 6], vec![], vec![sl(Some(1), Some(-2), Some(-2)), E, i(3)], Ok((vec![0], vec![]))),
        (&[4, 6], vec![], vec![i(0), i(2), i(2)], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![mask(&[4], &[1, 1, 1, 0]), ints(&[3], &[3, 1, -2]), sl(None, Some(3), Some(-1))], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![sl(Some(1), Some(2), Some(2)), E, mask(&[6], &[1, 1, 0, 1, 1, 0]), ints(&[2, 3], &[1, -1, -2, -1, 3, 3])], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![mask(&[4], &[1, 1, 1, 0])], Ok((vec![3, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]))),
        (&[4, 6], vec![], vec![i(0), N, ints(&[2, 3], &[1, -2, 2, 2, 2, 0])], Ok((vec![2, 3, 1], vec![1, 4, 2, 2, 2, 0]))),
        (&[4, 6], vec![], vec![sl(Some(-3), Some(-5), Some(-1)), i(0), i(-3), E], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[4, 6], vec![], vec![sl(None, None, Some(-2)), N, sl(None, Some(2), Some(2))], Ok((vec![2, 1, 1], vec![18, 6]))),
        (&[4, 6], vec![], vec![mask(&[4], &[0, 0, 0, 0])], Ok((vec![0, 6], vec![]))),
        (&[4, 6], vec![], vec![mask(&[4], &[0, 0, 0, 1])], Ok((vec![1, 6], vec![18, 19, 20, 21, 22, 23]))),
        (&[4, 6], vec![], vec![i(2), sl(None, Some(3), Some(-1)), sl(None, None, Some(1))], Err(Error::Index(r#"too many indices for array: array is 2-dimensional, but 3 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![E, ints(&[2, 3], &[3, -2, -2, -1, 0, 1])], Ok((vec![3, 4, 2, 3], vec![3, 3, 3, 4, 0, 1, 8, 8, 8, 9, 5, 6, 13, 13, 13, 14, 10, 11, 18, 18, 18, 19, 15, 16, 23, 23, 23, 24, 20, 21, 28, 28, 28, 29, 25, 26, 33, 33, 33, 34, 30, 31, 38, 38, 38, 39, 35, 36, 43, 43, 43, 44, 40, 41, 48, 48, 48, 49, 45, 46, 53, 53, 53, 54, 50, 51, 58, 58, 58, 59, 55, 56]))),
        (&[3, 4, 5], vec![], vec![sl(Some(5), Some(-3), Some(-1))], Ok((vec![2, 4, 5], vec![40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]))),
        (&[3, 4, 5], vec![], vec![sl(Some(4), None, Some(1)), sl(Some(2), Some(2), Some(1)), mask(&[5], &[1, 0, 1, 0, 1]), N], Ok((vec![0, 0, 3, 1], vec![]))),
        (&[3, 4, 5], vec![], vec![E, ints(&[3], &[-3, -1, 1])], Ok((vec![3, 4, 3], vec![2, 4, 1, 7, 9, 6, 12, 14, 11, 17, 19, 16, 22, 24, 21, 27, 29, 26, 32, 34, 31, 37, 39, 36, 42, 44, 41, 47, 49, 46, 52, 54, 51, 57, 59, 56]))),
        (&[3, 4, 5], vec![], vec![sl(Some(5), Some(2), Some(-2)), ints(&[1, 3], &[1, 0, -2]), sl(None, Some(2), Some(-2)), ints(&[2, 3], &[3, 0, -1, 3, -4, -4])], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![ints(&[1, 3], &[2, 2, -3]), mask(&[4], &[0, 1, 1, 1])], Ok((vec![1, 3, 5], vec![45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 15, 16, 17, 18, 19]))),
        (&[3, 4, 5], vec![], vec![E, mask(&[3], &[1, 1, 0]), ints(&[2, 3], &[2, 2, -2, 2, -4, 0]), sl(Some(3), Some(-5), Some(1))], Err(Error::Index(r#"shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (2,3) "#.into()))),
        (&[3, 4, 5], vec![], vec![i(-2), mask(&[4], &[1, 0, 1, 1])], Ok((vec![3, 5], vec![20, 21, 22, 23, 24, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39]))),
        (&[3, 4, 5], vec![], vec![sl(None, None, Some(-2)), mask(&[4], &[0, 0, 0, 0]), i(3), N, i(-3), E], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![ints(&[2, 3], &[0, -1, 0, -1, 0, 1]), sl(Some(-3), None, Some(-2)), ints(&[3], &[-4, -3, -4]), i(1)], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![E, sl(None, Some(-3), Some(-2)), ints(&[1, 3], &[-3, 3, 3])], Ok((vec![3, 1, 1, 3], vec![17, 18, 18, 37, 38, 38, 57, 58, 58]))),
        (&[3, 4, 5], vec![], vec![E, sl(None, Some(4), Some(-1)), N, i(1)], Ok((vec![3, 0, 1], vec![]))),
        (&[3, 4, 5], vec![], vec![sl(Some(-4), None, Some(2)), i(-5), N], Err(Error::Index(r#"index -5 is out of bounds for axis 1 with size 4"#.into()))),
        (&[3, 4, 5], vec![], vec![E, ints(&[1, 3], &[3, -4, -3]), ints(&[2, 3], &[3, -3, 2, 1, 0, -1]), sl(None, Some(2), Some(2)), mask(&[2], &[1, 0])], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![i(0)], Ok((vec![4, 5], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]))),
        (&[3, 4, 5], vec![], vec![sl(None, Some(-2), Some(1)), i(3), sl(None, None, Some(1)), i(-2)], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![mask(&[3], &[1, 0, 1]), sl(Some(0), None, Some(1)), i(0), sl(Some(2), Some(-1), Some(2))], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![i(-2), E, sl(None, Some(2), Some(-1)), ints(&[3], &[-4, 0, -4])], Ok((vec![3, 1], vec![36, 35, 36]))),
        (&[3, 4, 5], vec![], vec![i(-2), N, sl(None, Some(-4), Some(-1)), N], Ok((vec![1, 3, 1, 5], vec![35, 36, 37, 38, 39, 30, 31, 32, 33, 34, 25, 26, 27, 28, 29]))),
        (&[3, 4, 5], vec![], vec![E, sl(None, None, Some(-1)), mask(&[4], &[0, 1, 1, 0])], Err(Error::Index(r#"boolean index did not match indexed array along axis 2; size of axis is 5 but size of corresponding boolean axis is 4"#.into()))),
        (&[3, 4, 5], vec![], vec![ints(&[3], &[0, 2, -1]), sl(Some(2), Some(-1), Some(-2))], Ok((vec![3, 0, 5], vec![]))),
        (&[3, 4, 5], vec![], vec![i(-5), mask(&[4], &[1, 0, 1, 1]), ints(&[2, 3], &[-1, 1, 3, -1, -4, -3]), sl(Some(-3), Some(0), Some(2))], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![sl(Some(-1), Some(-2), Some(2))], Ok((vec![0, 4, 5], vec![]))),
        (&[3, 4, 5], vec![], vec![E, ints(&[2, 3], &[-1, 2, 1, -3, 0, -4])], Ok((vec![3, 4, 2, 3], vec![4, 2, 1, 2, 0, 1, 9, 7, 6, 7, 5, 6, 14, 12, 11, 12, 10, 11, 19, 17, 16, 17, 15, 16, 24, 22, 21, 22, 20, 21, 29, 27, 26, 27, 25, 26, 34, 32, 31, 32, 30, 31, 39, 37, 36, 37, 35, 36, 44, 42, 41, 42, 40, 41, 49, 47, 46, 47, 45, 46, 54, 52, 51, 52, 50, 51, 59, 57, 56, 57, 55, 56]))),
        (&[3, 4, 5], vec![], vec![i(2), mask(&[4], &[1, 1, 0, 1])], Ok((vec![3, 5], vec![40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 55, 56, 57, 58, 59]))),
        (&[3, 4, 5], vec![], vec![i(-3), mask(&[4], &[1, 0, 1, 1]), ints(&[2, 1], &[-2, -3]), sl(Some(-5), Some(-3), Some(-1))], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![i(4), i(-1), ints(&[2, 3], &[-3, -1, 0, 1, -1, 0])], Err(Error::Index(r#"index 4 is out of bounds for axis 0 with size 3"#.into()))),
        (&[3, 4, 5], vec![], vec![sl(Some(2), Some(4), Some(-2)), ints(&[1, 3], &[-3, -2, -1]), ints(&[2, 1], &[-3, -2]), i(-1)], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[3, 4, 5], vec![], vec![ints(&[3], &[-4, 3, 1]), N, sl(None, Some(-1), Some(1)), E, sl(None, None, Some(2))], Err(Error::Index(r#"index -4 is out of bounds for axis 0 with size 3"#.into()))),
        (&[3, 4, 5], vec![], vec![i(2), N, i(-1), i(2)], Ok((vec![1], vec![57]))),
        (&[2, 3, 2, 4], vec![], vec![i(0), ints(&[2, 1], &[-2, -1]), i(-1)], Ok((vec![2, 1, 4], vec![12, 13, 14, 15, 20, 21, 22, 23]))),
        (&[2, 3, 2, 4], vec![], vec![E, i(-2), sl(Some(1), Some(3), Some(2))], Ok((vec![2, 3, 1], vec![1, 9, 17, 25, 33, 41]))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[2, 3], &[1, 0, -2, -2, -1, -1])], Ok((vec![2, 3, 3, 2, 4], vec![24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47]))),
        (&[2, 3, 2, 4], vec![], vec![i(1)], Ok((vec![3, 2, 4], vec![24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47]))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[1, 3], &[0, 0, -1]), sl(Some(4), None, Some(-1)), ints(&[3], &[-3, -2, 2]), ints(&[3], &[-4, -3, -3])], Err(Error::Index(r#"index -3 is out of bounds for axis 2 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[3], &[-2, 0, -1]), N, sl(None, None, Some(-2)), sl(None, Some(-5), Some(2)), ints(&[1, 3], &[3, 1, 3])], Ok((vec![1, 3, 1, 2, 0], vec![]))),
        (&[2, 3, 2, 4], vec![], vec![i(-1), sl(Some(-5), Some(5), Some(-2)), N, i(0)], Ok((vec![0, 1, 4], vec![]))),
        (&[2, 3, 2, 4], vec![], vec![i(1), N, i(1), ints(&[2, 3], &[-3, 0, 2, 0, -3, -1]), sl(Some(1), Some(-1), Some(2)), ints(&[2, 3], &[-1, 3, 2, -4, 1, -4])], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![sl(None, Some(-2), Some(-2)), mask(&[3], &[1, 1, 1]), sl(Some(-4), Some(2), Some(-1)), sl(None, None, Some(-1)), sl(Some(2), Some(-1), Some(2))], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![mask(&[2], &[0, 0]), sl(Some(-5), Some(4), Some(-1)), N, sl(None, Some(1), Some(-1))], Ok((vec![0, 0, 1, 0, 4], vec![]))),
        (&[2, 3, 2, 4], vec![], vec![sl(None, Some(-1), Some(-2)), E, i(2)], Ok((vec![0, 3, 2], vec![]))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[2, 3], &[3, -1, 1, 2, -3, 2]), mask(&[3], &[1, 0, 1]), i(0), i(-3), sl(Some(4), None, Some(-2))], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![i(0), E, i(1)], Ok((vec![3, 2], vec![1, 5, 9, 13, 17, 21]))),
        (&[2, 3, 2, 4], vec![], vec![i(-2), ints(&[2, 1], &[-4, 1]), N, E], Err(Error::Index(r#"index -4 is out of bounds for axis 1 with size 3"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![i(2), sl(Some(1), Some(4), Some(-2))], Err(Error::Index(r#"index 2 is out of bounds for axis 0 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[3], &[-2, 0, -4])], Err(Error::Index(r#"index -4 is out of bounds for axis 0 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[1, 3], &[0, 3, -1]), mask(&[3], &[0, 0, 0]), sl(None, Some(1), Some(2)), i(-1), E, i(-4)], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[3], &[2, -1, 1]), ints(&[2, 3], &[2, 2, 2, -1, -4, -2]), ints(&[1, 3], &[3, 2, -2]), sl(Some(-3), None, Some(1)), mask(&[2], &[1, 1])], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![sl(Some(5), None, Some(2)), sl(None, None, Some(2)), ints(&[2, 3], &[3, 2, -3, 1, 2, -2])], Err(Error::Index(r#"index 3 is out of bounds for axis 2 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[2, 3], &[3, 2, 2, -1, 0, -1]), ints(&[2, 3], &[1, 1, 1, -4, 1, -2])], Err(Error::Index(r#"index 3 is out of bounds for axis 0 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![E, sl(Some(-5), Some(4), Some(2))], Ok((vec![2, 3, 2, 2], vec![0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46]))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[2, 3], &[-2, -4, 1, -4, 1, -3]), i(3), i(-2), N, ints(&[2, 1], &[1, -2]), N], Err(Error::Index(r#"index 3 is out of bounds for axis 1 with size 3"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![mask(&[2], &[1, 0]), N], Ok((vec![1, 1, 3, 2, 4], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[3], &[3, 3, -1]), i(-1), i(-1), E, ints(&[3], &[-2, -4, -4]), sl(Some(-1), Some(1), Some(-1))], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[1, 3], &[-1, -2, -4]), mask(&[3], &[1, 1, 0]), sl(None, None, Some(-2)), ints(&[1, 3], &[3, 0, -2]), mask(&[2], &[1, 1])], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![mask(&[2], &[1, 1]), N, ints(&[2, 1], &[-3, 1]), ints(&[2, 3], &[-1, 3, -2, -4, -4, -4]), sl(Some(-5), None, Some(-1))], Err(Error::Index(r#"shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (2,1) (2,3) "#.into()))),
        (&[2, 3, 2, 4], vec![], vec![ints(&[1, 3], &[-3, -4, -4]), E, sl(None, Some(-3), Some(-1))], Err(Error::Index(r#"index -3 is out of bounds for axis 0 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![sl(None, Some(-3), Some(-1)), ints(&[2, 3], &[3, -3, 2, -3, 3, 2]), ints(&[2, 3], &[2, -1, 3, 2, 3, -1]), sl(Some(2), None, Some(-2)), sl(Some(-4), Some(4), Some(-2))], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![i(2), mask(&[3], &[1, 1, 0]), E, i(-1)], Err(Error::Index(r#"index 2 is out of bounds for axis 0 with size 2"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![sl(Some(2), None, Some(-2)), N, E, mask(&[3], &[0, 0, 0])], Err(Error::Index(r#"boolean index did not match indexed array along axis 3; size of axis is 4 but size of corresponding boolean axis is 3"#.into()))),
        (&[2, 3, 2, 4], vec![], vec![sl(None, None, Some(-1)), N, ints(&[2, 3], &[-4, -3, 0, -4, 2, -4]), i(4), i(3), N, E, ints(&[3], &[2, -4, -3])], Err(Error::Index(r#"too many indices for array: array is 4-dimensional, but 5 were indexed"#.into()))),
        ];
        for (shape, _, key, want) in cases {
            let got = cpu_getitem(&Layout::contiguous(shape), &key);
            assert_eq!(got, want, "shape {shape:?}, key of {} entries", key.len());
        }
    }

    /// `np.arange(size).reshape(shape)[view][key]` from NumPy 2 (generated), against the
    /// planner: the values are buffer offsets, so equal values mean the same elements.
    #[test]
    fn advanced_keys_match_numpy() {
        let cases: Vec<Case> = vec![
        (&[4, 5, 6], vec![], vec![ints(&[3], &[0, 2, -1])], Ok((vec![3, 5, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119]))),
        (&[4, 5, 6], vec![], vec![ints(&[2], &[1, -1]), ints(&[2], &[0, 2])], Ok((vec![2, 6], vec![30, 31, 32, 33, 34, 35, 102, 103, 104, 105, 106, 107]))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), ints(&[2, 2], &[0, 1, 2, 0])], Ok((vec![4, 2, 2, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 0, 1, 2, 3, 4, 5, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 30, 31, 32, 33, 34, 35, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 60, 61, 62, 63, 64, 65, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 90, 91, 92, 93, 94, 95]))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), ints(&[2], &[0, 1]), ints(&[2], &[1, 2])], Ok((vec![4, 2], vec![1, 8, 31, 38, 61, 68, 91, 98]))),
        (&[4, 5, 6], vec![], vec![ints(&[2], &[0, 1]), sl(None, None, None), ints(&[2], &[1, 0])], Ok((vec![2, 5], vec![1, 7, 13, 19, 25, 30, 36, 42, 48, 54]))),
        (&[4, 5, 6], vec![], vec![i(0), sl(None, None, None), ints(&[2], &[1, 2])], Ok((vec![2, 5], vec![1, 7, 13, 19, 25, 2, 8, 14, 20, 26]))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), i(0), ints(&[2], &[1, 2])], Ok((vec![4, 2], vec![1, 2, 31, 32, 61, 62, 91, 92]))),
        (&[4, 5, 6], vec![], vec![ints(&[2, 1], &[1, 2]), sl(Some(1), Some(3), None), ints(&[3], &[0, 2, 1])], Ok((vec![2, 3, 2], vec![36, 42, 38, 44, 37, 43, 66, 72, 68, 74, 67, 73]))),
        (&[4, 5, 6], vec![], vec![N, ints(&[2], &[0, 2]), N, i(1)], Ok((vec![2, 1, 1, 6], vec![6, 7, 8, 9, 10, 11, 66, 67, 68, 69, 70, 71]))),
        (&[4, 5, 6], vec![], vec![E, ints(&[2], &[2, 0])], Ok((vec![4, 5, 2], vec![2, 0, 8, 6, 14, 12, 20, 18, 26, 24, 32, 30, 38, 36, 44, 42, 50, 48, 56, 54, 62, 60, 68, 66, 74, 72, 80, 78, 86, 84, 92, 90, 98, 96, 104, 102, 110, 108, 116, 114]))),
        (&[4, 5, 6], vec![], vec![ints(&[2], &[1, 0]), E, ints(&[2], &[0, 1])], Ok((vec![2, 5], vec![30, 36, 42, 48, 54, 1, 7, 13, 19, 25]))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), ints(&[2], &[0, 1]), E, ints(&[2], &[1, 0])], Ok((vec![2, 4], vec![1, 31, 61, 91, 6, 36, 66, 96]))),
        (&[4, 5, 6], vec![], vec![mask(&[4], &[1, 0, 1, 1])], Ok((vec![3, 5, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119]))),
        (&[4, 5, 6], vec![], vec![mask(&[4, 5], &[1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 1, 1, 1])], Ok((vec![8, 6], vec![0, 1, 2, 3, 4, 5, 42, 43, 44, 45, 46, 47, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 90, 91, 92, 93, 94, 95, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119]))),
        (&[4, 5, 6], vec![], vec![mask(&[3, 4], &[1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0])], Err(Error::Index(r#"boolean index did not match indexed array along axis 0; size of axis is 4 but size of corresponding boolean axis is 3"#.into()))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), mask(&[5], &[1, 0, 1, 1, 0])], Ok((vec![4, 3, 6], vec![0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 30, 31, 32, 33, 34, 35, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 60, 61, 62, 63, 64, 65, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 90, 91, 92, 93, 94, 95, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113]))),
        (&[4, 5, 6], vec![], vec![mask(&[4], &[1, 0, 1, 1]), i(1), sl(None, None, Some(-2))], Ok((vec![3, 3], vec![11, 9, 7, 71, 69, 67, 101, 99, 97]))),
        (&[4, 5, 6], vec![], vec![mask(&[4], &[1, 0, 1, 1]), ints(&[3], &[0, 2, 1])], Ok((vec![3, 6], vec![0, 1, 2, 3, 4, 5, 72, 73, 74, 75, 76, 77, 96, 97, 98, 99, 100, 101]))),
        (&[4, 5, 6], vec![], vec![KeyItem::Bool(true)], Ok((vec![1, 4, 5, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116, 117, 118, 119]))),
        (&[4, 5, 6], vec![], vec![KeyItem::Bool(false)], Ok((vec![0, 4, 5, 6], vec![]))),
        (&[4, 5, 6], vec![], vec![i(0), KeyItem::Bool(true)], Ok((vec![1, 5, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), KeyItem::Bool(true), ints(&[2], &[0, 1])], Ok((vec![4, 2, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101]))),
        (&[4, 5, 6], vec![], vec![ints(&[2], &[0, 1]), KeyItem::Bool(true)], Ok((vec![2, 5, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59]))),
        (&[4, 5, 6], vec![], vec![ints(&[0], &[]), sl(None, None, None)], Ok((vec![0, 5, 6], vec![]))),
        (&[4, 5, 6], vec![], vec![ints(&[1], &[7]), i(0)], Err(Error::Index(r#"index 7 is out of bounds for axis 0 with size 4"#.into()))),
        (&[4, 5, 6], vec![], vec![i(0), ints(&[2], &[0, -6])], Err(Error::Index(r#"index -6 is out of bounds for axis 1 with size 5"#.into()))),
        (&[4, 5, 6], vec![], vec![ints(&[2], &[0, 1]), ints(&[3], &[0, 1, 2])], Err(Error::Index(r#"shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,) "#.into()))),
        (&[4, 5, 6], vec![], vec![mask(&[2], &[1, 0])], Err(Error::Index(r#"boolean index did not match indexed array along axis 0; size of axis is 4 but size of corresponding boolean axis is 2"#.into()))),
        (&[4, 5, 6], vec![], vec![sl(None, None, None), sl(None, None, None), sl(None, None, None), ints(&[1], &[0])], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[4, 5, 6], vec![], vec![ints(&[1, 3], &[0, 1, 2])], Ok((vec![1, 3, 5, 6], vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[3], &[0, 2, -1])], Ok((vec![3, 4, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[2], &[1, -1]), ints(&[2], &[0, 2])], Ok((vec![2, 3], vec![66, 68, 70, 18, 20, 22]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), ints(&[2, 2], &[0, 1, 2, 0])], Ok((vec![4, 2, 2, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 96, 98, 100, 66, 68, 70, 72, 74, 76, 78, 80, 82, 66, 68, 70, 36, 38, 40, 42, 44, 46, 48, 50, 52, 36, 38, 40, 6, 8, 10, 12, 14, 16, 18, 20, 22, 6, 8, 10]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), ints(&[2], &[0, 1]), ints(&[2], &[1, 2])], Ok((vec![4, 2], vec![98, 106, 68, 76, 38, 46, 8, 16]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[2], &[0, 1]), sl(None, None, None), ints(&[2], &[1, 0])], Ok((vec![2, 4], vec![98, 104, 110, 116, 66, 72, 78, 84]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![i(0), sl(None, None, None), ints(&[2], &[1, 2])], Ok((vec![2, 4], vec![98, 104, 110, 116, 100, 106, 112, 118]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), i(0), ints(&[2], &[1, 2])], Ok((vec![4, 2], vec![98, 100, 68, 70, 38, 40, 8, 10]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[2, 1], &[1, 2]), sl(Some(1), Some(3), None), ints(&[3], &[0, 2, 1])], Ok((vec![2, 3, 2], vec![72, 78, 76, 82, 74, 80, 42, 48, 46, 52, 44, 50]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![N, ints(&[2], &[0, 2]), N, i(1)], Ok((vec![2, 1, 1, 3], vec![102, 104, 106, 42, 44, 46]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![E, ints(&[2], &[2, 0])], Ok((vec![4, 4, 2], vec![100, 96, 106, 102, 112, 108, 118, 114, 70, 66, 76, 72, 82, 78, 88, 84, 40, 36, 46, 42, 52, 48, 58, 54, 10, 6, 16, 12, 22, 18, 28, 24]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[2], &[1, 0]), E, ints(&[2], &[0, 1])], Ok((vec![2, 4], vec![66, 72, 78, 84, 98, 104, 110, 116]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), ints(&[2], &[0, 1]), E, ints(&[2], &[1, 0])], Ok((vec![2, 4], vec![98, 68, 38, 8, 102, 72, 42, 12]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![mask(&[4], &[1, 0, 1, 1])], Ok((vec![3, 4, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![mask(&[4, 4], &[0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 1, 0, 0])], Ok((vec![8, 3], vec![108, 110, 112, 66, 68, 70, 72, 74, 76, 78, 80, 82, 36, 38, 40, 42, 44, 46, 48, 50, 52, 12, 14, 16]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![mask(&[3, 4], &[1, 1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0])], Err(Error::Index(r#"boolean index did not match indexed array along axis 0; size of axis is 4 but size of corresponding boolean axis is 3"#.into()))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), mask(&[4], &[1, 0, 1, 0])], Ok((vec![4, 2, 3], vec![96, 98, 100, 108, 110, 112, 66, 68, 70, 78, 80, 82, 36, 38, 40, 48, 50, 52, 6, 8, 10, 18, 20, 22]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![mask(&[4], &[1, 0, 1, 1]), i(1), sl(None, None, Some(-2))], Ok((vec![3, 2], vec![106, 102, 46, 42, 16, 12]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![mask(&[4], &[1, 0, 1, 1]), ints(&[3], &[0, 2, 1])], Ok((vec![3, 3], vec![96, 98, 100, 48, 50, 52, 12, 14, 16]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![KeyItem::Bool(true)], Ok((vec![1, 4, 4, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![KeyItem::Bool(false)], Ok((vec![0, 4, 4, 3], vec![]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![i(0), KeyItem::Bool(true)], Ok((vec![1, 4, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), KeyItem::Bool(true), ints(&[2], &[0, 1])], Ok((vec![4, 2, 3], vec![96, 98, 100, 102, 104, 106, 66, 68, 70, 72, 74, 76, 36, 38, 40, 42, 44, 46, 6, 8, 10, 12, 14, 16]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[2], &[0, 1]), KeyItem::Bool(true)], Ok((vec![2, 4, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[0], &[]), sl(None, None, None)], Ok((vec![0, 4, 3], vec![]))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[1], &[7]), i(0)], Err(Error::Index(r#"index 7 is out of bounds for axis 0 with size 4"#.into()))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![i(0), ints(&[2], &[0, -6])], Err(Error::Index(r#"index -6 is out of bounds for axis 1 with size 4"#.into()))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[2], &[0, 1]), ints(&[3], &[0, 1, 2])], Err(Error::Index(r#"shape mismatch: indexing arrays could not be broadcast together with shapes (2,) (3,) "#.into()))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![mask(&[2], &[1, 0])], Err(Error::Index(r#"boolean index did not match indexed array along axis 0; size of axis is 4 but size of corresponding boolean axis is 2"#.into()))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![sl(None, None, None), sl(None, None, None), sl(None, None, None), ints(&[1], &[0])], Err(Error::Index(r#"too many indices for array: array is 3-dimensional, but 4 were indexed"#.into()))),
        (&[4, 5, 6], vec![sl(None, None, Some(-1)), sl(Some(1), None, None), sl(None, None, Some(2))], vec![ints(&[1, 3], &[0, 1, 2])], Ok((vec![1, 3, 4, 3], vec![96, 98, 100, 102, 104, 106, 108, 110, 112, 114, 116, 118, 66, 68, 70, 72, 74, 76, 78, 80, 82, 84, 86, 88, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58]))),
        (&[5], vec![], vec![ints(&[3], &[4, -5, 0])], Ok((vec![3], vec![4, 0, 0]))),
        (&[5], vec![], vec![ints(&[1], &[5])], Err(Error::Index(r#"index 5 is out of bounds for axis 0 with size 5"#.into()))),
        (&[5], vec![], vec![ints(&[1], &[-6])], Err(Error::Index(r#"index -6 is out of bounds for axis 0 with size 5"#.into()))),
        (&[0, 3], vec![], vec![sl(None, None, None), ints(&[2], &[2, 0])], Ok((vec![0, 2], vec![]))),
        (&[0, 3], vec![], vec![ints(&[1], &[0])], Err(Error::Index(r#"index 0 is out of bounds for axis 0 with size 0"#.into()))),
        (&[2, 3], vec![], vec![mask(&[2, 3], &[0, 0, 0, 0, 0, 0])], Ok((vec![0], vec![]))),
        (&[2, 3], vec![], vec![mask(&[2, 3], &[1, 1, 1, 1, 1, 1])], Ok((vec![6], vec![0, 1, 2, 3, 4, 5]))),
        (&[], vec![], vec![KeyItem::Bool(true)], Ok((vec![1], vec![0]))),
        (&[], vec![], vec![N, KeyItem::Bool(false)], Ok((vec![1, 0], vec![]))),
        (&[3], vec![], vec![mask(&[], &[1])], Ok((vec![1, 3], vec![0, 1, 2]))),

        ];
        for (shape, view, key, want) in cases {
            let basic: Vec<Index> = view
                .iter()
                .map(|k| match k {
                    KeyItem::Basic(b) => *b,
                    _ => unreachable!("views are basic"),
                })
                .collect();
            let layout = Layout::contiguous(shape).index(&basic).unwrap();
            let got = cpu_getitem(&layout, &key);
            assert_eq!(
                got,
                want,
                "shape {shape:?}, view {basic:?}, key #{}",
                key.len()
            );
        }
    }
}
