//! Basic indexing (integers, slices, `...`, `None`): every result is a view.

use super::strides::{Layout, shape_str};
use crate::error::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    Int(isize),
    /// A Python slice; `None` fields take Python's defaults for the step's sign.
    Slice {
        start: Option<isize>,
        stop: Option<isize>,
        step: Option<isize>,
    },
    NewAxis,
    Ellipsis,
}

impl Layout {
    /// The view `a[indices]` selects, with NumPy's errors.
    pub fn index(&self, indices: &[Index]) -> Result<Layout> {
        let ellipses = indices.iter().filter(|i| **i == Index::Ellipsis).count();
        if ellipses > 1 {
            return Err(Error::Index(
                "an index can only have a single ellipsis ('...')".into(),
            ));
        }
        let consumed = indices
            .iter()
            .filter(|i| matches!(i, Index::Int(_) | Index::Slice { .. }))
            .count();
        if consumed > self.ndim() {
            return Err(Error::Index(format!(
                "too many indices for array: array is {}-dimensional, but {} were indexed",
                self.ndim(),
                consumed
            )));
        }
        let mut out = Layout {
            shape: vec![],
            strides: vec![],
            offset: self.offset,
        };
        let mut offset = self.offset as isize;
        let mut axis = 0;
        for idx in indices {
            match *idx {
                Index::Ellipsis => {
                    for _ in 0..self.ndim() - consumed {
                        out.shape.push(self.shape[axis]);
                        out.strides.push(self.strides[axis]);
                        axis += 1;
                    }
                }
                Index::NewAxis => {
                    out.shape.push(1);
                    out.strides.push(0);
                }
                Index::Int(i) => {
                    let n = self.shape[axis] as isize;
                    if i < -n || i >= n {
                        return Err(Error::Index(format!(
                            "index {i} is out of bounds for axis {axis} with size {n}"
                        )));
                    }
                    offset += (if i < 0 { i + n } else { i }) * self.strides[axis];
                    axis += 1;
                }
                Index::Slice { start, stop, step } => {
                    let (first, len, step) = slice_indices(start, stop, step, self.shape[axis])?;
                    if len > 0 {
                        offset += first * self.strides[axis];
                    }
                    out.shape.push(len);
                    out.strides.push(self.strides[axis] * step);
                    axis += 1;
                }
            }
        }
        for a in axis..self.ndim() {
            out.shape.push(self.shape[a]);
            out.strides.push(self.strides[a]);
        }
        out.offset = offset as usize;
        debug_assert!(
            offset >= 0,
            "view offset {offset} of {}",
            shape_str(&self.shape)
        );
        Ok(out)
    }
}

/// Python's `slice(start, stop, step).indices(n)`, as (first, length, step).
fn slice_indices(
    start: Option<isize>,
    stop: Option<isize>,
    step: Option<isize>,
    n: usize,
) -> Result<(isize, usize, isize)> {
    let n = n as isize;
    let step = step.unwrap_or(1);
    if step == 0 {
        return Err(Error::Value("slice step cannot be zero".into()));
    }
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    let resolve = |v: isize, lo: isize, hi: isize| clamp(if v < 0 { v + n } else { v }, lo, hi);
    let (first, last) = if step > 0 {
        (
            start.map_or(0, |s| resolve(s, 0, n)),
            stop.map_or(n, |s| resolve(s, 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |s| resolve(s, -1, n - 1)),
            stop.map_or(-1, |s| resolve(s, -1, n - 1)),
        )
    };
    let len = if step > 0 {
        if last > first {
            (last - first + step - 1) / step
        } else {
            0
        }
    } else if first > last {
        (first - last + (-step) - 1) / (-step)
    } else {
        0
    };
    Ok((first, len as usize, step))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> Index {
        Index::Slice { start, stop, step }
    }

    /// (start, stop, step, length, Python's `list(range(length)[start:stop:step])`).
    type SliceCase = (
        Option<isize>,
        Option<isize>,
        Option<isize>,
        usize,
        &'static [isize],
    );

    #[test]
    fn slices_match_python() {
        let cases: &[SliceCase] = &[
            (None, None, None, 5, &[0, 1, 2, 3, 4]),
            (None, None, Some(-1), 5, &[4, 3, 2, 1, 0]),
            (Some(1), Some(-1), Some(2), 6, &[1, 3]),
            (Some(-2), None, None, 5, &[3, 4]),
            (Some(10), None, None, 5, &[]),
            (Some(3), Some(1), Some(-1), 5, &[3, 2]),
            (None, Some(-10), Some(-2), 5, &[4, 2, 0]),
            (Some(-100), Some(100), Some(3), 7, &[0, 3, 6]),
            (None, None, Some(-3), 0, &[]),
        ];
        for &(start, stop, step, n, want) in cases {
            let (first, len, step) = slice_indices(start, stop, step, n).unwrap();
            let got: Vec<isize> = (0..len as isize).map(|k| first + k * step).collect();
            assert_eq!(got, want, "{start:?}:{stop:?}:{step:?} of {n}");
        }
        assert!(slice_indices(None, None, Some(0), 3).is_err());
    }

    #[test]
    fn mixed_indices_make_views() {
        let l = Layout::contiguous(&[4, 5, 6]);
        let v = l
            .index(&[Index::Int(-1), Index::Ellipsis, s(None, None, Some(-2))])
            .unwrap();
        assert_eq!(v.shape, vec![5, 3]);
        assert_eq!(v.strides, vec![6, -2]);
        assert_eq!(v.offset, 3 * 30 + 5);
        assert!(v.fits(120));
        let v = l.index(&[Index::NewAxis, Index::Int(0)]).unwrap();
        assert_eq!(v.shape, vec![1, 5, 6]);
        assert!(matches!(l.index(&[Index::Int(4)]), Err(Error::Index(_))));
        assert!(matches!(l.index(&[Index::Int(0); 4]), Err(Error::Index(_))));
        assert!(matches!(
            l.index(&[Index::Ellipsis, Index::Ellipsis]),
            Err(Error::Index(_))
        ));
    }
}
