//! Memory order of layouts: NumPy's "K" order, which lays a ufunc's output out like its
//! input (so `a.T + b.T` is F-ordered and runs as one flat pass over memory), and the test
//! for "these elements fill one dense block in some axis order".

use super::strides::Layout;

impl Layout {
    /// Axes from the slowest-varying to the fastest in memory (by |stride|, ties keep
    /// their C order), ignoring nothing: length-1 axes sort where their stride puts them.
    pub fn axis_order(&self) -> Vec<usize> {
        let mut axes: Vec<usize> = (0..self.ndim()).collect();
        axes.sort_by_key(|&a| std::cmp::Reverse(self.strides[a].unsigned_abs()));
        axes
    }

    /// A new dense layout of this shape whose axes are stored in `like`'s memory order
    /// (NumPy's `order='K'` for positive strides).
    pub fn dense_like(like: &Layout) -> Layout {
        let mut strides = vec![0isize; like.ndim()];
        let mut step = 1isize;
        for &a in like.axis_order().iter().rev() {
            strides[a] = step;
            step *= like.shape[a].max(1) as isize;
        }
        Layout {
            shape: like.shape.clone(),
            strides,
            offset: 0,
        }
    }

    /// Whether the elements fill a dense block with positive strides, in any axis order:
    /// then two layouts with equal strides can be walked as flat arrays.
    pub fn is_dense(&self) -> bool {
        if self.size() == 0 {
            return true; // addresses nothing
        }
        let mut expect = 1isize;
        for &a in self.axis_order().iter().rev() {
            if self.shape[a] == 1 {
                continue;
            }
            if self.strides[a] != expect {
                return false;
            }
            expect *= self.shape[a] as isize;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transposes_keep_their_order() {
        let t = Layout::contiguous(&[3, 4, 5]).transpose(None).unwrap();
        let d = Layout::dense_like(&t);
        assert_eq!(d.shape, vec![5, 4, 3]);
        assert_eq!(d.strides, t.strides);
        assert!(t.is_dense() && d.is_dense());
        let c = Layout::contiguous(&[2, 3]);
        assert_eq!(Layout::dense_like(&c), c);
    }

    #[test]
    fn gaps_and_reversal_are_not_dense() {
        let l = Layout::contiguous(&[4, 6]);
        assert!(
            !l.index(&[
                super::super::Index::Ellipsis,
                super::super::Index::Slice {
                    start: None,
                    stop: None,
                    step: Some(2)
                }
            ])
            .unwrap()
            .is_dense()
        );
        let rev = Layout {
            shape: vec![5],
            strides: vec![-1],
            offset: 4,
        };
        assert!(!rev.is_dense());
        let empty_t = Layout::contiguous(&[3, 0]).transpose(None).unwrap();
        assert!(Layout::dense_like(&empty_t).is_dense());
    }
}
