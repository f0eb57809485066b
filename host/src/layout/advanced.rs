//! Advanced-index planning (integer and boolean array keys), without a GPU: which axes
//! the index arrays consume, the basic view they index, where their broadcast axes go in
//! the result, and NumPy's errors. `ops::index` turns a plan into offsets and launches;
//! the tests here run the same plan with the kernels' index arithmetic on the CPU.

use super::strides::{Layout, shape_str};
use super::{Index, broadcast_shapes};
use crate::dtype::{DType, Kind};
use crate::error::{Error, Result};

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
pub(crate) const FULL: Index = Index::Slice {
    start: None,
    stop: None,
    step: None,
};

/// A boolean index must match the axes it covers exactly (`first_axis` names the first
/// in NumPy's message).
pub(crate) fn check_mask(mask: &[usize], axes: &[usize], first_axis: usize) -> Result<()> {
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

/// What planning needs of an index array: its shape and dtype.
pub(crate) trait IndexArray {
    fn index_shape(&self) -> &[usize];
    fn index_dtype(&self) -> DType;
}

/// How one advanced entry of a key acts on the basic view V.
pub(crate) enum Role<'a, A> {
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
pub(crate) struct LayoutPlan<'a, A> {
    pub(crate) view: Layout,
    pub(crate) roles: Vec<Role<'a, A>>,
    /// The axes of V that index arrays consume.
    pub(crate) is_index_axis: Vec<bool>,
    /// How many of V's remaining axes come before the broadcast index axes.
    pub(crate) at: usize,
}

pub(crate) fn layout_plan<'a, A: IndexArray>(
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
pub(crate) fn arrange<A>(
    lp: &LayoutPlan<'_, A>,
    bshape: &[usize],
) -> (Vec<usize>, Vec<isize>, Vec<isize>) {
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
pub(crate) fn broadcast_indices(shapes: &[&[usize]]) -> Result<Vec<usize>> {
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
pub(crate) fn out_of_bounds(value: i128, axis: usize, extent: usize) -> Error {
    Error::Index(format!(
        "index {value} is out of bounds for axis {axis} with size {extent}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpupy_kernels::index::{FIRST, RAW, offset_term};

    use crate::ops::strided_args;

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
