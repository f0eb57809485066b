//! Merging axes before a launch (CuPy's `_reduce_dims`): axes of length 1 go, and two
//! neighbouring axes become one wherever every operand steps through them as one. A
//! transposed or sliced operation usually ends up 1-D or 2-D, which keeps the kernels'
//! index arithmetic short.

/// Shape and per-operand strides after merging; C order (outermost first). An empty
/// iteration or a 0-d one comes back as shape `[]` with size given by the caller.
pub fn coalesce<const N: usize>(
    shape: &[usize],
    strides: [&[isize]; N],
) -> (Vec<usize>, [Vec<isize>; N]) {
    let mut out_shape: Vec<usize> = Vec::with_capacity(shape.len());
    let mut out_strides: [Vec<isize>; N] = std::array::from_fn(|_| Vec::with_capacity(shape.len()));
    for (axis, &n) in shape.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let mergeable = match out_shape.last() {
            None => false,
            Some(_) => (0..N).all(|k| {
                let prev = *out_strides[k].last().unwrap();
                prev == strides[k][axis] * n as isize
            }),
        };
        if mergeable {
            *out_shape.last_mut().unwrap() *= n;
            for k in 0..N {
                *out_strides[k].last_mut().unwrap() = strides[k][axis];
            }
        } else {
            out_shape.push(n);
            for k in 0..N {
                out_strides[k].push(strides[k][axis]);
            }
        }
    }
    (out_shape, out_strides)
}

/// The one (length, step) that walks every reduced axis, if they merge: in the given
/// order (`keep_order`), else in any order (largest stride outermost). Axes of length 1
/// drop out; no reduced axes at all is one slice of one element.
pub fn merge_axes(shape: &[usize], strides: &[isize], keep_order: bool) -> Option<(usize, isize)> {
    let mut axes: Vec<(usize, isize)> = shape
        .iter()
        .zip(strides)
        .filter(|(n, _)| **n != 1)
        .map(|(&n, &s)| (n, s))
        .collect();
    if axes.iter().any(|&(n, _)| n == 0) {
        return Some((0, 1));
    }
    if !keep_order {
        axes.sort_by_key(|&(_, s)| std::cmp::Reverse(s.unsigned_abs()));
    }
    let Some(&(_, step)) = axes.last() else {
        return Some((1, 1));
    };
    let mut len = 1usize;
    let mut expect = step;
    for &(n, s) in axes.iter().rev() {
        if s != expect {
            return None;
        }
        len *= n;
        expect = s * n as isize;
    }
    Some((len, step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_operands_become_one_axis() {
        let (shape, [a, b]) = coalesce(&[2, 3, 4], [&[12, 4, 1], &[12, 4, 1]]);
        assert_eq!((shape, a, b), (vec![24], vec![1], vec![1]));
    }

    #[test]
    fn broadcast_row_stays_two_axes() {
        // (8, 5) + (5,): the second operand repeats every row.
        let (shape, [a, b]) = coalesce(&[8, 5], [&[5, 1], &[0, 1]]);
        assert_eq!((shape, a, b), (vec![8, 5], vec![5, 1], vec![0, 1]));
    }

    #[test]
    fn unit_axes_are_dropped() {
        let (shape, [a]) = coalesce(&[1, 3, 1, 2], [&[99, 2, 7, 1]]);
        assert_eq!((shape, a), (vec![6], vec![1]));
        let (shape, [a]) = coalesce(&[1, 1], [&[5, 5]]);
        assert!(shape.is_empty() && a.is_empty());
    }

    #[test]
    fn reduced_axes_merge_when_they_tile() {
        // C array (4, 5, 6): axes (1, 2) merge to 30 contiguous elements.
        assert_eq!(merge_axes(&[5, 6], &[6, 1], true), Some((30, 1)));
        // axes (0, 2) do not.
        assert_eq!(merge_axes(&[4, 6], &[30, 1], false), None);
        // axis 0 alone: 4 elements 30 apart.
        assert_eq!(merge_axes(&[4], &[30], true), Some((4, 30)));
        // F order merges only when the order may change.
        assert_eq!(merge_axes(&[4, 5], &[1, 4], false), Some((20, 1)));
        assert_eq!(merge_axes(&[4, 5], &[1, 4], true), None);
        // length-1 axes drop out, zero-length axes empty the slice.
        assert_eq!(merge_axes(&[1, 7], &[99, 2], true), Some((7, 2)));
        assert_eq!(merge_axes(&[3, 0], &[5, 1], true), Some((0, 1)));
        assert_eq!(merge_axes(&[], &[], true), Some((1, 1)));
    }
}
