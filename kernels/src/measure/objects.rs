//! Bounding boxes of labels (SciPy's `find_objects`): for label `l` (`1..=max_label`),
//! the lowest and one past the highest coordinate along each axis of its elements.
//!
//! A thread takes a run of consecutive elements (C order) and splits it into segments
//! of one label within one innermost line, which share every coordinate but the
//! innermost: one update of the box per segment instead of one per element, so large
//! objects cost few atomics. [`boxes_of_run`] is that walk; the GPU passes atomics as
//! `lower`/`raise`, `cargo test` plain minima and maxima.
//!
//! The boxes are laid out as SciPy's `regions`: label `l`'s `2 ndim` slots start at
//! `(l - 1) 2 ndim`, the starts first (C order of axes), then the ends.

use super::grid::Axis;

/// The box updates of the elements `first..end` of a C-contiguous grid of `ndim` axes
/// (`axis(d)`, innermost first; `small`: fewer than 2^31 elements). `label(i)` is
/// element `i`'s label; labels `1..=max_label` count, the rest are ignored.
/// `lower(slot, v)` lowers box slot `slot` to `v`, `raise(slot, v)` raises it.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn boxes_of_run(
    first: u64,
    end: u64,
    ndim: usize,
    small: bool,
    axis: impl Fn(usize) -> Axis,
    label: impl Fn(u64) -> i64,
    max_label: u64,
    lower: impl Fn(u64, u64),
    raise: impl Fn(u64, u64),
) {
    if first >= end || ndim == 0 {
        return;
    }
    let inner = axis(0);
    // The innermost coordinate, stepped along the run.
    let (_, mut c) = inner.divmod(first, small);
    let mut i = first;
    while i < end {
        let l = label(i);
        // The segment: elements of label `l` from i up to the end of the line or run.
        let line_end = (i + (inner.extent - c)).min(end);
        let mut j = i + 1;
        while j < line_end && label(j) == l {
            j += 1;
        }
        if l >= 1 && (l as u64) <= max_label {
            let base = (l as u64 - 1) * 2 * ndim as u64;
            let nd = ndim as u64;
            // Innermost axis (C index ndim - 1): the segment's own extent.
            lower(base + nd - 1, c);
            raise(base + 2 * nd - 1, c + (j - i));
            // The other axes: the segment's coordinates, shared by its elements.
            let (mut rem, _) = inner.divmod(i, small);
            for d in 1..ndim {
                let (q, cd) = axis(d).divmod(rem, small);
                let k = nd - 1 - d as u64;
                lower(base + k, cd);
                raise(base + nd + k, cd + 1);
                rem = q;
            }
        }
        c += j - i;
        if c == inner.extent {
            c = 0;
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn runs_give_each_labels_box() {
        for shape in [
            vec![17usize],
            vec![5, 7],
            vec![3, 4, 6],
            vec![2, 3, 2, 5],
            vec![1, 9, 1],
        ] {
            let nd = shape.len();
            let n: usize = shape.iter().product();
            let axes: Vec<Axis> = shape.iter().rev().map(|&e| Axis::new(e as u64)).collect();
            // Labels 0..=4 in blocks (so segments are long), plus -1 and 7 (ignored).
            let labels: Vec<i64> = (0..n)
                .map(|i| [0, 1, 1, 2, 3, 3, 3, -1, 4, 7][(i * 7 / 3) % 10])
                .collect();
            let max_label = 5u64;
            let coords = |i: usize| {
                let mut c = vec![0usize; nd];
                let mut r = i;
                for k in (0..nd).rev() {
                    c[k] = r % shape[k];
                    r /= shape[k];
                }
                c
            };
            // Starts from u64::MAX down, ends from 0 up (as the host initializes them).
            let init: Vec<u64> = (0..2 * nd * max_label as usize)
                .map(|k| if k % (2 * nd) < nd { u64::MAX } else { 0 })
                .collect();
            let mut want = init.clone();
            for (i, &l) in labels.iter().enumerate() {
                if l >= 1 && l as u64 <= max_label {
                    let base = (l as usize - 1) * 2 * nd;
                    for (k, &ck) in coords(i).iter().enumerate() {
                        let lo = &mut want[base + k];
                        *lo = (*lo).min(ck as u64);
                        let hi = &mut want[base + nd + k];
                        *hi = (*hi).max(ck as u64 + 1);
                    }
                }
            }
            for run in [1u64, 3, 4, 16, 1000] {
                for small in [true, false] {
                    let got = RefCell::new(init.clone());
                    let mut s = 0;
                    while s < n as u64 {
                        boxes_of_run(
                            s,
                            (s + run).min(n as u64),
                            nd,
                            small,
                            |d| axes[d],
                            |i| labels[i as usize],
                            max_label,
                            |k, v| {
                                let g = &mut got.borrow_mut()[k as usize];
                                *g = (*g).min(v);
                            },
                            |k, v| {
                                let g = &mut got.borrow_mut()[k as usize];
                                *g = (*g).max(v);
                            },
                        );
                        s += run;
                    }
                    assert_eq!(got.into_inner(), want, "{shape:?} run {run}");
                }
            }
        }
    }
}
