//! Shape manipulation as views: reshape (when the strides allow it), squeeze, new axes,
//! swapped and moved axes, flips, diagonals, complex parts and dtype reinterpretation.
//! Each is a `Layout -> Layout` function with NumPy's strides and errors; copies, where
//! NumPy makes them, are the caller's business (`ops::copy`).

use super::strides::{Layout, normalize_axis};
use crate::error::{Error, Result};

/// NumPy's text of a requested shape in reshape errors: unknown (negative) dimensions
/// read `newaxis`, leading ones are dropped, and a single printed dimension gets a comma
/// only when it is the first (`(4,)`, `(4)` for `(-1, 4)`, `(0,newaxis)`).
fn requested_shape_str(dims: &[isize]) -> String {
    let Some(first) = dims.iter().position(|&d| d >= 0) else {
        return "()".into();
    };
    let mut s = format!("({}", dims[first]);
    for &d in &dims[first + 1..] {
        if d < 0 {
            s.push_str(",newaxis");
        } else {
            s.push_str(&format!(",{d}"));
        }
    }
    s.push_str(if dims.len() == 1 { ",)" } else { ")" });
    s
}

/// The shape `dims` asks for an array of `size` elements: one negative entry (any
/// negative value, as NumPy 2 accepts) is inferred. NumPy's errors.
pub fn resolve_shape(size: usize, dims: &[isize]) -> Result<Vec<usize>> {
    let mismatch = || {
        Error::Value(format!(
            "cannot reshape array of size {size} into shape {}",
            requested_shape_str(dims)
        ))
    };
    let mut unknown = None;
    let mut known = 1usize;
    for (i, &d) in dims.iter().enumerate() {
        if d < 0 {
            if unknown.is_some() {
                return Err(Error::Value(
                    "can only specify one unknown dimension".into(),
                ));
            }
            unknown = Some(i);
        } else {
            known = known.checked_mul(d as usize).ok_or_else(mismatch)?;
        }
    }
    let mut shape: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    match unknown {
        Some(i) => {
            if known == 0 || !size.is_multiple_of(known) {
                return Err(mismatch());
            }
            shape[i] = size / known;
        }
        None => {
            if known != size {
                return Err(mismatch());
            }
        }
    }
    Ok(shape)
}

impl Layout {
    /// The layout of `shape` (same size) over the same elements in C order, when strides
    /// can express it (NumPy's `_attempt_nocopy_reshape`, with its strides); `None` when
    /// a copy is needed.
    pub fn reshape(&self, shape: &[usize]) -> Option<Layout> {
        debug_assert_eq!(shape.iter().product::<usize>(), self.size());
        if self.size() == 0 || self.is_c_contiguous() {
            let mut l = Layout::contiguous(shape);
            l.offset = self.offset;
            return Some(l);
        }
        // Axes of length 1 have no effect on addressing; leave them out.
        let (old_dims, old_strides): (Vec<usize>, Vec<isize>) = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(n, _)| **n != 1)
            .map(|(&n, &s)| (n, s))
            .unzip();
        let (old_nd, new_nd) = (old_dims.len(), shape.len());
        let mut strides = vec![0isize; new_nd];
        // Axis ranges oi..oj (old) and ni..nj (new) cover the same elements.
        let (mut oi, mut oj, mut ni, mut nj) = (0, 1, 0, 1);
        while ni < new_nd && oi < old_nd {
            let mut np = shape[ni];
            let mut op = old_dims[oi];
            while np != op {
                if np < op {
                    // Sizes are equal and nonzero, so the new axes run out no earlier.
                    np *= *shape.get(nj)?;
                    nj += 1;
                } else {
                    op *= *old_dims.get(oj)?;
                    oj += 1;
                }
            }
            for ok in oi..oj - 1 {
                if old_strides[ok] != old_dims[ok + 1] as isize * old_strides[ok + 1] {
                    return None;
                }
            }
            strides[nj - 1] = old_strides[oj - 1];
            for nk in (ni + 1..nj).rev() {
                strides[nk - 1] = strides[nk] * shape[nk] as isize;
            }
            ni = nj;
            nj += 1;
            oi = oj;
            oj += 1;
        }
        // Trailing axes of length 1.
        let last = if ni >= 1 { strides[ni - 1] } else { 1 };
        for s in &mut strides[ni..] {
            *s = last;
        }
        Some(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// Without the axes of length 1 (all of them, or those in `axes`).
    pub fn squeeze(&self, axes: Option<&[isize]>) -> Result<Layout> {
        let n = self.ndim();
        let mut drop = vec![false; n];
        match axes {
            None => {
                for (d, &len) in drop.iter_mut().zip(&self.shape) {
                    *d = len == 1;
                }
            }
            Some(axes) => {
                for &a in axes {
                    let a = normalize_axis(a, n)?;
                    if drop[a] {
                        return Err(Error::Value("duplicate value in 'axis'".into()));
                    }
                    drop[a] = true;
                }
                if drop.iter().zip(&self.shape).any(|(&d, &len)| d && len != 1) {
                    return Err(Error::Value(
                        "cannot select an axis to squeeze out which has size not equal to one"
                            .into(),
                    ));
                }
            }
        }
        let keep = |i: &usize| !drop[*i];
        Ok(Layout {
            shape: (0..n).filter(keep).map(|i| self.shape[i]).collect(),
            strides: (0..n).filter(keep).map(|i| self.strides[i]).collect(),
            offset: self.offset,
        })
    }

    /// With new axes of length 1 at positions `axes` of the result (NumPy's
    /// `expand_dims`, which is a reshape, so the new axes get reshape's strides).
    pub fn expand_dims(&self, axes: &[isize]) -> Result<Layout> {
        let out_nd = self.ndim() + axes.len();
        let mut new = vec![false; out_nd];
        for &a in axes {
            let a = normalize_axis(a, out_nd)?;
            if new[a] {
                return Err(Error::Value("repeated axis".into()));
            }
            new[a] = true;
        }
        let mut old = self.shape.iter();
        let shape: Vec<usize> = new
            .iter()
            .map(|&is_new| if is_new { 1 } else { *old.next().unwrap_or(&1) })
            .collect();
        self.reshape(&shape)
            .ok_or_else(|| Error::Value("expand_dims: inserting axes needs no copy".into()))
    }

    /// Axes `a` and `b` exchanged.
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Layout> {
        let n = self.ndim();
        let (a, b) = (normalize_axis(a, n)?, normalize_axis(b, n)?);
        let mut l = self.clone();
        l.shape.swap(a, b);
        l.strides.swap(a, b);
        Ok(l)
    }

    /// Axes `source` moved to positions `destination`, the others kept in order.
    pub fn moveaxis(&self, source: &[isize], destination: &[isize]) -> Result<Layout> {
        let n = self.ndim();
        if source.len() != destination.len() {
            return Err(Error::Value(
                "`source` and `destination` arguments must have the same number of elements".into(),
            ));
        }
        let norm = |axes: &[isize], what: &str| -> Result<Vec<usize>> {
            let mut seen = vec![false; n];
            axes.iter()
                .map(|&a| {
                    let a = normalize_axis(a, n)?;
                    if std::mem::replace(&mut seen[a], true) {
                        return Err(Error::Value(format!("repeated axis in `{what}` argument")));
                    }
                    Ok(a)
                })
                .collect()
        };
        let (src, dst) = (norm(source, "source")?, norm(destination, "destination")?);
        let mut order: Vec<usize> = (0..n).filter(|a| !src.contains(a)).collect();
        let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
        pairs.sort_unstable();
        for (d, s) in pairs {
            order.insert(d, s);
        }
        let perm: Vec<isize> = order.into_iter().map(|a| a as isize).collect();
        self.transpose(Some(&perm))
    }

    /// Axes `axes` reversed (all when `None`), as `a[::-1]` on each.
    pub fn flip(&self, axes: Option<&[isize]>) -> Result<Layout> {
        let n = self.ndim();
        let mut flip = vec![axes.is_none(); n];
        if let Some(axes) = axes {
            for &a in axes {
                let a = normalize_axis(a, n)?;
                if std::mem::replace(&mut flip[a], true) {
                    return Err(Error::Value("repeated axis".into()));
                }
            }
        }
        let mut l = self.clone();
        let mut offset = self.offset as isize;
        for (i, _) in flip.iter().enumerate().filter(|(_, f)| **f) {
            if l.shape[i] > 0 {
                offset += (l.shape[i] as isize - 1) * l.strides[i];
            }
            l.strides[i] = -l.strides[i];
        }
        if self.size() > 0 {
            l.offset = offset as usize;
        }
        Ok(l)
    }

    /// The diagonal `offset` of axes `axis1` and `axis2`, which are removed; the diagonal
    /// becomes the last axis (NumPy's `diagonal`).
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Layout> {
        let n = self.ndim();
        if n < 2 {
            return Err(Error::Value(
                "diag requires an array of at least two dimensions".into(),
            ));
        }
        let (a1, a2) = (normalize_axis(axis1, n)?, normalize_axis(axis2, n)?);
        if a1 == a2 {
            return Err(Error::Value("axis1 and axis2 cannot be the same".into()));
        }
        let (n1, n2) = (self.shape[a1] as isize, self.shape[a2] as isize);
        let (s1, s2) = (self.strides[a1], self.strides[a2]);
        // (length, axis and steps to the first element); the offset is applied only to a
        // non-empty diagonal, whose first element exists.
        let (len, start_axis, steps) = if offset >= 0 {
            (n1.min(n2.saturating_sub(offset)).max(0), s2, offset)
        } else {
            (
                n2.min(n1.saturating_add(offset)).max(0),
                s1,
                offset.saturating_neg(),
            )
        };
        let mut l = Layout {
            shape: vec![],
            strides: vec![],
            offset: self.offset,
        };
        for i in (0..n).filter(|&i| i != a1 && i != a2) {
            l.shape.push(self.shape[i]);
            l.strides.push(self.strides[i]);
        }
        l.shape.push(len as usize);
        l.strides.push(s1 + s2);
        if l.size() > 0 {
            l.offset = (self.offset as isize + steps * start_axis) as usize;
        }
        Ok(l)
    }

    /// The real (`imag == false`) or imaginary part of a complex layout, in units of the
    /// part's dtype (half the item size): doubled strides, the imaginary part one further.
    pub fn complex_part(&self, imag: bool) -> Layout {
        Layout {
            shape: self.shape.clone(),
            strides: self.strides.iter().map(|s| s * 2).collect(),
            offset: self.offset * 2 + imag as usize,
        }
    }

    /// The same bytes seen as items of `new` bytes instead of `old` (NumPy's
    /// `ndarray.view(dtype)`): for another size the last axis must be contiguous and its
    /// length in bytes a multiple of the new size.
    pub fn view_itemsize(&self, old: usize, new: usize) -> Result<Layout> {
        if old == new {
            return Ok(self.clone());
        }
        let n = self.ndim();
        if n == 0 {
            return Err(Error::Value(
                "Changing the dtype of a 0d array is only supported if the itemsize is unchanged"
                    .into(),
            ));
        }
        if self.shape[n - 1] != 1 && self.strides[n - 1] != 1 {
            return Err(Error::Value(
                "To change to a dtype of a different size, the last axis must be contiguous".into(),
            ));
        }
        let last_bytes = self.shape[n - 1] * old;
        if new < old && !old.is_multiple_of(new) {
            return Err(Error::Value(
                "When changing to a smaller dtype, its size must be a divisor of the size of original dtype"
                    .into(),
            ));
        }
        if !last_bytes.is_multiple_of(new) {
            return Err(Error::Value(
                "When changing to a larger dtype, its size must be a divisor of the total size in bytes of the last axis of the array."
                    .into(),
            ));
        }
        let bytes_ok = |e: isize| (e * old as isize) % new as isize == 0;
        if !(self.offset * old).is_multiple_of(new)
            || !self.strides[..n - 1].iter().all(|&s| bytes_ok(s))
        {
            return Err(Error::Value(
                "the array's offset or strides are not a multiple of the new item size".into(),
            ));
        }
        let mut l = self.clone();
        l.shape[n - 1] = last_bytes / new;
        l.strides[n - 1] = 1;
        for s in &mut l.strides[..n - 1] {
            *s = *s * old as isize / new as isize;
        }
        l.offset = self.offset * old / new;
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Index;

    fn sl(start: Option<isize>, stop: Option<isize>, step: Option<isize>) -> Index {
        Index::Slice { start, stop, step }
    }

    /// Every element offset a layout addresses, in C order.
    fn offsets(l: &Layout) -> Vec<isize> {
        let mut out = vec![l.offset as isize];
        for (&n, &s) in l.shape.iter().zip(&l.strides) {
            out = out
                .iter()
                .flat_map(|&o| (0..n as isize).map(move |k| o + k * s))
                .collect();
        }
        if l.size() == 0 { vec![] } else { out }
    }

    #[test]
    fn shapes_resolve_like_numpy() {
        assert_eq!(resolve_shape(6, &[-1, 3]).unwrap(), vec![2, 3]);
        assert_eq!(resolve_shape(6, &[-3, 2]).unwrap(), vec![3, 2]);
        assert_eq!(resolve_shape(1, &[]).unwrap(), Vec::<usize>::new());
        let msg = |size, dims: &[isize]| resolve_shape(size, dims).unwrap_err().to_string();
        assert_eq!(
            msg(6, &[4]),
            "cannot reshape array of size 6 into shape (4,)"
        );
        assert_eq!(
            msg(6, &[-1, 4]),
            "cannot reshape array of size 6 into shape (4)"
        );
        assert_eq!(
            msg(6, &[4, -1]),
            "cannot reshape array of size 6 into shape (4,newaxis)"
        );
        assert_eq!(
            msg(6, &[0, -1]),
            "cannot reshape array of size 6 into shape (0,newaxis)"
        );
        assert_eq!(
            msg(0, &[-1, 0]),
            "cannot reshape array of size 0 into shape (0)"
        );
        assert_eq!(msg(6, &[]), "cannot reshape array of size 6 into shape ()");
        assert_eq!(
            msg(6, &[7]),
            "cannot reshape array of size 6 into shape (7,)"
        );
        assert_eq!(msg(6, &[-1, -1]), "can only specify one unknown dimension");
        assert!(resolve_shape(6, &[isize::MAX, 4]).is_err());
    }

    #[test]
    fn reshape_of_contiguous_is_a_view() {
        let l = Layout::contiguous(&[2, 3, 4]);
        let r = l.reshape(&[6, 1, 4]).unwrap();
        assert_eq!(r.strides, vec![4, 4, 1]);
        let v = l.index(&[Index::Int(1)]).unwrap().reshape(&[12]).unwrap();
        assert_eq!((v.offset, v.strides.clone()), (12, vec![1]));
    }

    #[test]
    fn reshape_matches_numpy_strides() {
        // numpy: np.zeros((4, 6))[:, ::2] (strides (48, 16)) reshaped to (2, 2, 3).
        let l = Layout::contiguous(&[4, 6])
            .index(&[sl(None, None, None), sl(None, None, Some(2))])
            .unwrap();
        let r = l.reshape(&[2, 2, 3]).unwrap();
        assert_eq!(r.strides, vec![12, 6, 2]);
        assert_eq!(offsets(&r), offsets(&l));
        // (2, 3) -> (6,) from the transposed view needs a copy.
        let t = Layout::contiguous(&[3, 2]).transpose(None).unwrap();
        assert!(t.reshape(&[6]).is_none());
        // numpy: np.zeros((3, 2)).T.reshape(2, 1, 3) has strides (8, 48, 16).
        let r = t.reshape(&[2, 1, 3]).unwrap();
        assert_eq!(r.strides, vec![1, 6, 2]);
        // Trailing ones take the last stride: np.zeros((4,6))[::2].reshape(2, 6, 1) has
        // strides (96, 8, 8); np.zeros((4,6))[:, ::2].reshape(12, 1) (16, 16).
        let rows = Layout::contiguous(&[4, 6])
            .index(&[sl(None, None, Some(2))])
            .unwrap();
        assert_eq!(rows.reshape(&[2, 6, 1]).unwrap().strides, vec![12, 1, 1]);
        assert_eq!(l.reshape(&[12, 1]).unwrap().strides, vec![2, 2]);
        // np.zeros((2, 3)).T.reshape(1, 3, 2, 1): strides (24, 8, 24, 24).
        let t = Layout::contiguous(&[2, 3]).transpose(None).unwrap();
        assert_eq!(t.reshape(&[1, 3, 2, 1]).unwrap().strides, vec![3, 1, 3, 3]);
    }

    #[test]
    fn reshape_keeps_element_order() {
        let base = Layout::contiguous(&[4, 3, 6]);
        let views = [
            base.index(&[sl(None, None, Some(-1))]).unwrap(),
            base.index(&[
                sl(None, None, None),
                sl(None, None, None),
                sl(None, None, Some(-2)),
            ])
            .unwrap(),
            base.transpose(Some(&[1, 0, 2])).unwrap(),
            base.index(&[Index::Ellipsis, sl(Some(1), Some(2), None)])
                .unwrap(),
        ];
        for v in &views {
            for shape in [vec![v.size()], vec![2, v.size() / 2], vec![1, v.size(), 1]] {
                if let Some(r) = v.reshape(&shape) {
                    assert_eq!(offsets(&r), offsets(v), "{v:?} -> {shape:?}");
                    assert!(r.fits(72));
                }
            }
        }
    }

    #[test]
    fn squeeze_and_expand_dims() {
        let l = Layout::contiguous(&[1, 3, 1]);
        assert_eq!(l.squeeze(None).unwrap().shape, vec![3]);
        assert_eq!(l.squeeze(Some(&[-1])).unwrap().shape, vec![1, 3]);
        assert!(l.squeeze(Some(&[1])).is_err());
        assert!(l.squeeze(Some(&[0, 0])).is_err());
        let e = Layout::contiguous(&[2, 3]).expand_dims(&[0, -1]).unwrap();
        assert_eq!((e.shape, e.strides), (vec![1, 2, 3, 1], vec![6, 3, 1, 1]));
        assert!(Layout::contiguous(&[2]).expand_dims(&[0, 0]).is_err());
        assert!(Layout::contiguous(&[2]).expand_dims(&[2]).is_err());
    }

    #[test]
    fn axes_move_and_swap() {
        let l = Layout::contiguous(&[2, 3, 4]);
        assert_eq!(l.swapaxes(0, -1).unwrap().shape, vec![4, 3, 2]);
        let m = l.moveaxis(&[0], &[-1]).unwrap();
        assert_eq!((m.shape, m.strides), (vec![3, 4, 2], vec![4, 1, 12]));
        let m = l.moveaxis(&[0, 1], &[-1, -2]).unwrap();
        assert_eq!(m.shape, vec![4, 3, 2]);
        assert!(l.moveaxis(&[0], &[0, 1]).is_err());
        assert!(l.moveaxis(&[0, 0], &[0, 1]).is_err());
    }

    #[test]
    fn flips_stay_in_bounds() {
        let l = Layout::contiguous(&[3, 4]);
        let f = l.flip(None).unwrap();
        assert_eq!((f.offset, f.strides.clone()), (11, vec![-4, -1]));
        assert_eq!(offsets(&f), (0..12).rev().collect::<Vec<_>>());
        let f = l.flip(Some(&[1])).unwrap();
        assert_eq!(offsets(&f)[..4], [3, 2, 1, 0]);
        assert_eq!(Layout::contiguous(&[0, 3]).flip(None).unwrap().offset, 0);
        assert!(l.flip(Some(&[2])).is_err());
    }

    #[test]
    fn diagonals() {
        let l = Layout::contiguous(&[3, 4]);
        assert_eq!(offsets(&l.diagonal(0, 0, 1).unwrap()), vec![0, 5, 10]);
        assert_eq!(offsets(&l.diagonal(1, 0, 1).unwrap()), vec![1, 6, 11]);
        assert_eq!(offsets(&l.diagonal(2, 0, 1).unwrap()), vec![2, 7]);
        assert_eq!(offsets(&l.diagonal(-1, 0, 1).unwrap()), vec![4, 9]);
        assert_eq!(l.diagonal(9, 0, 1).unwrap().shape, vec![0]);
        assert_eq!(l.diagonal(-9, 0, 1).unwrap().shape, vec![0]);
        assert_eq!(l.diagonal(isize::MAX, 0, 1).unwrap().shape, vec![0]);
        assert_eq!(l.diagonal(isize::MIN, 0, 1).unwrap().shape, vec![0]);
        assert_eq!(offsets(&l.diagonal(0, 1, 0).unwrap()), vec![0, 5, 10]);
        let b = Layout::contiguous(&[2, 3, 3]).diagonal(0, 1, 2).unwrap();
        assert_eq!(offsets(&b), vec![0, 4, 8, 9, 13, 17]);
        assert!(l.diagonal(0, 0, 0).is_err());
        assert!(Layout::contiguous(&[3]).diagonal(0, 0, 1).is_err());
    }

    #[test]
    fn complex_parts_and_dtype_views() {
        let l = Layout::contiguous(&[2, 3])
            .index(&[Index::Int(1), sl(None, None, Some(-1))])
            .unwrap();
        let im = l.complex_part(true);
        assert_eq!((im.offset, im.strides.clone()), (11, vec![-2]));
        assert!(im.fits(12));
        let v = Layout::contiguous(&[2, 4]).view_itemsize(1, 2).unwrap();
        assert_eq!((v.shape, v.strides), (vec![2, 2], vec![2, 1]));
        let v = Layout::contiguous(&[3]).view_itemsize(8, 2).unwrap();
        assert_eq!(v.shape, vec![12]);
        assert!(Layout::contiguous(&[2, 3]).view_itemsize(1, 2).is_err());
        assert!(
            Layout::contiguous(&[3, 2])
                .transpose(None)
                .unwrap()
                .view_itemsize(8, 2)
                .is_err()
        );
        assert!(Layout::contiguous(&[]).view_itemsize(8, 4).is_err());
    }
}
