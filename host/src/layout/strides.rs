//! `Layout`: an N-d view's shape, strides (in elements) and offset, and the checks
//! every view goes through.

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Vec<usize>,
    /// Element strides; negative for reversed views, 0 for broadcast axes.
    pub strides: Vec<isize>,
    /// Element offset of index (0, ..., 0) from the buffer's start.
    pub offset: usize,
}

impl Layout {
    /// C-order contiguous layout of `shape`, at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        let mut strides = vec![0isize; shape.len()];
        let mut step = 1isize;
        for (s, &n) in strides.iter_mut().zip(shape).rev() {
            *s = step;
            step *= n.max(1) as isize;
        }
        Layout {
            shape: shape.to_vec(),
            strides,
            offset: 0,
        }
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// NumPy's C_CONTIGUOUS flag: axes of length 1 may have any stride.
    pub fn is_c_contiguous(&self) -> bool {
        self.is_contiguous_in(self.shape.len(), |i| self.shape.len() - 1 - i)
    }

    /// NumPy's F_CONTIGUOUS flag.
    pub fn is_f_contiguous(&self) -> bool {
        self.is_contiguous_in(self.shape.len(), |i| i)
    }

    fn is_contiguous_in(&self, n: usize, axis: impl Fn(usize) -> usize) -> bool {
        if self.size() == 0 {
            return true;
        }
        let mut expect = 1isize;
        for i in 0..n {
            let a = axis(i);
            if self.shape[a] != 1 {
                if self.strides[a] != expect {
                    return false;
                }
                expect *= self.shape[a] as isize;
            }
        }
        true
    }

    /// Lowest and highest element offsets the layout addresses; `None` when empty.
    pub fn span(&self) -> Option<(isize, isize)> {
        if self.size() == 0 {
            return None;
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            let reach = (n as isize - 1) * s;
            if reach < 0 { lo += reach } else { hi += reach }
        }
        Some((lo, hi))
    }

    /// Whether this layout and `other` (of one buffer, one element size) surely address
    /// no common element: their spans do not meet, or both are blocks of one matrix's
    /// rows (the same row stride `ld`, unit column stride, every other stride a multiple
    /// of `ld`) whose column windows (`offset mod ld` on) do not meet. `false` means
    /// "may overlap": views of a blocked factorization (`A22` and `L21` side by side)
    /// are told apart, anything more tangled is not.
    pub fn disjoint(&self, other: &Layout) -> bool {
        let (Some((lo, hi)), Some((olo, ohi))) = (self.span(), other.span()) else {
            return true;
        };
        if hi < olo || ohi < lo {
            return true;
        }
        let window = |l: &Layout| -> Option<(isize, usize, usize)> {
            let nd = l.ndim();
            if nd < 2 {
                return None;
            }
            let (ld, cols) = (l.strides[nd - 2], l.shape[nd - 1]);
            let unit = cols <= 1 || l.strides[nd - 1] == 1;
            let rows_only = (0..nd - 2).all(|a| l.shape[a] <= 1 || l.strides[a] % ld.max(1) == 0);
            let start = l.offset % ld.max(1) as usize;
            (ld > 0 && unit && rows_only && start + cols <= ld as usize)
                .then_some((ld, start, cols))
        };
        match (window(self), window(other)) {
            (Some((ld, s, n)), Some((old, os, on))) if ld == old => s + n <= os || os + on <= s,
            _ => false,
        }
    }

    /// Whether every addressed element lies in a buffer of `len` elements.
    pub fn fits(&self, len: usize) -> bool {
        match self.span() {
            None => true,
            Some((lo, hi)) => lo >= 0 && (hi as usize) < len,
        }
    }

    /// Axes permuted as `np.transpose(a, axes)`; reversed when `axes` is `None`.
    pub fn transpose(&self, axes: Option<&[isize]>) -> Result<Layout> {
        let n = self.ndim();
        let perm: Vec<usize> = match axes {
            None => (0..n).rev().collect(),
            Some(axes) => {
                if axes.len() != n {
                    return Err(Error::Value("axes don't match array".into()));
                }
                let mut seen = vec![false; n];
                let mut perm = Vec::with_capacity(n);
                for &a in axes {
                    let a = normalize_axis(a, n)?;
                    if seen[a] {
                        return Err(Error::Value("repeated axis in transpose".into()));
                    }
                    seen[a] = true;
                    perm.push(a);
                }
                perm
            }
        };
        Ok(Layout {
            shape: perm.iter().map(|&a| self.shape[a]).collect(),
            strides: perm.iter().map(|&a| self.strides[a]).collect(),
            offset: self.offset,
        })
    }
}

/// An axis in `-ndim..ndim` as an index, with NumPy's `AxisError` text (a ValueError and
/// an IndexError in NumPy; reported here as IndexError's sibling ValueError).
pub fn normalize_axis(axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::Value(format!(
            "axis {axis} is out of bounds for array of dimension {ndim}"
        )));
    }
    Ok(if axis < 0 {
        (axis + n) as usize
    } else {
        axis as usize
    })
}

/// NumPy's shape text: `(2, 3)`, `(4,)`, `()`.
pub fn shape_str(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_strides_and_flags() {
        let l = Layout::contiguous(&[2, 3, 4]);
        assert_eq!(l.strides, vec![12, 4, 1]);
        assert!(l.is_c_contiguous() && !l.is_f_contiguous());
        let t = l.transpose(None).unwrap();
        assert_eq!(t.shape, vec![4, 3, 2]);
        assert!(t.is_f_contiguous() && !t.is_c_contiguous());
        assert!(Layout::contiguous(&[0, 3]).is_c_contiguous());
        assert!(Layout::contiguous(&[]).is_c_contiguous());
    }

    #[test]
    fn span_covers_negative_strides() {
        let l = Layout {
            shape: vec![3, 2],
            strides: vec![-2, 1],
            offset: 4,
        };
        assert_eq!(l.span(), Some((0, 5)));
        assert!(l.fits(6) && !l.fits(5));
        let empty = Layout {
            shape: vec![0],
            strides: vec![1],
            offset: 99,
        };
        assert!(empty.fits(0));
    }

    #[test]
    fn disjoint_tells_apart_blocks_of_one_matrix() {
        // A 6 x 8 matrix (row stride 8) and a batch of two (batch stride 48).
        let block = |shape: &[usize], strides: &[isize], offset: usize| Layout {
            shape: shape.to_vec(),
            strides: strides.to_vec(),
            offset,
        };
        let left = block(&[2, 4, 3], &[48, 8, 1], 2 * 8); // rows 2..6, columns 0..3
        let right = block(&[2, 4, 5], &[48, 8, 1], 2 * 8 + 3); // rows 2..6, columns 3..8
        let top = block(&[2, 2, 5], &[48, 8, 1], 3); // rows 0..2, columns 3..8
        assert!(left.disjoint(&right) && right.disjoint(&left));
        assert!(top.disjoint(&left));
        assert!(!right.disjoint(&right));
        let wide = block(&[2, 4, 4], &[48, 8, 1], 2 * 8); // columns 0..4 meet 3..8
        assert!(!wide.disjoint(&right));
        // A transposed view is not a block of rows: "may overlap".
        let t = block(&[2, 3, 4], &[48, 1, 8], 2 * 8);
        assert!(!t.disjoint(&right));
        // Far apart in the buffer.
        assert!(block(&[3], &[1], 0).disjoint(&block(&[3], &[1], 3)));
        assert!(!block(&[3], &[1], 0).disjoint(&block(&[3], &[1], 2)));
        // Empty views overlap nothing.
        assert!(block(&[0, 4], &[8, 1], 0).disjoint(&right));
    }

    #[test]
    fn transpose_checks_axes() {
        let l = Layout::contiguous(&[2, 3]);
        assert_eq!(l.transpose(Some(&[-1, 0])).unwrap().shape, vec![3, 2]);
        assert!(l.transpose(Some(&[0, 0])).is_err());
        assert!(l.transpose(Some(&[0])).is_err());
        assert!(l.transpose(Some(&[0, 2])).is_err());
    }

    #[test]
    fn shape_text_matches_numpy() {
        assert_eq!(shape_str(&[4]), "(4,)");
        assert_eq!(shape_str(&[2, 3]), "(2, 3)");
        assert_eq!(shape_str(&[]), "()");
    }
}
