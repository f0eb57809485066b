//! Row-wise work in groups of lanes: the schedule of SpMV for rows of similar length,
//! and the segment reductions (sums, extremes and their positions) the Python layer
//! builds row and column sums, `max`/`min`/`argmax`/`argmin`, `sum_duplicates` and the
//! diagonal from.
//!
//! A group of `lanes` threads (a power of two up to a warp) takes one row: lane `l`
//! handles entries `start + l`, `start + l + lanes`, ... (neighbouring lanes read
//! neighbouring entries: the loads of a warp coalesce), and the group combines its
//! partial results with a butterfly of warp shuffles. [`lanes_for`] picks `lanes` from
//! the mean row length; [`Schedule::choose`] sends matrices whose longest row would keep
//! one group busy far longer than the mean to the merge path instead.

use crate::reduce::reduction::Ordered;

/// The segment reduction ops (`Sp::op` of the segment kernels).
pub const SEG_SUM: u32 = 0;
/// The largest value (NumPy's `maximum`: a NaN wins) and the first position holding it
/// (NumPy's `argmax`: the first NaN, else the first largest).
pub const SEG_MAX: u32 = 1;
/// The smallest value and the first position holding it (NaN as for `SEG_MAX`).
pub const SEG_MIN: u32 = 2;

/// The position of an empty segment's extreme.
pub const NO_POSITION: u64 = u64::MAX;

/// Whether `(a, ia)` is the extreme of the pair `(a, ia)`, `(b, ib)` in the order of
/// `SEG_MAX` (`max`) or `SEG_MIN`: a NaN beats a number, a strictly larger (smaller)
/// value beats the other, and among equals (or NaNs) the first position wins. An empty
/// partial (`NO_POSITION`) never beats anything.
#[inline(always)]
pub fn beats<V: Ordered>(max: bool, a: V, ia: u64, b: V, ib: u64) -> bool {
    if ia == NO_POSITION {
        return false;
    }
    if ib == NO_POSITION {
        return true;
    }
    let (an, bn) = (a.nan(), b.nan());
    if an || bn {
        return an && (!bn || ia < ib);
    }
    let (better, worse) = if max {
        (a.gt(b), b.gt(a))
    } else {
        (a.lt(b), b.lt(a))
    };
    better || (!worse && ia < ib)
}

/// Lanes per row for rows of `mean` entries on average: a power of two from 1 to 32,
/// the smallest at least the mean (as CUSP's vector kernels choose), so that a typical
/// row is one step of its group.
pub fn lanes_for(mean: f64) -> u32 {
    let mut lanes = 1u32;
    while lanes < 32 && (lanes as f64) < mean {
        lanes *= 2;
    }
    lanes
}

/// Mean entries per lane of an SpMV group: a group of `lanes` lanes takes rows of about
/// `SPMV_ENTRIES_PER_LANE * lanes` entries.
pub const SPMV_ENTRIES_PER_LANE: f64 = 4.0;

/// Lanes per row of SpMV for rows of `mean` entries on average: the smallest power of
/// two at least `mean / SPMV_ENTRIES_PER_LANE`. Fewer lanes than [`lanes_for`] gives:
/// a group that covers a row in one step leaves most lanes idle on short rows, and a
/// lane that walks a few neighbouring entries still reads whole cache lines (its
/// neighbours in the warp read the next ones). Measured on an H200 (16M-row 2-d Poisson,
/// 5 a row: 1 lane 0.25 ms, 2 lanes 0.31, 4 lanes 0.50, 8 lanes 0.75 in float32; 2 lanes
/// best in float64; uniform rows of 4, 16, 64: 1-4, 4-16, 16-32 lanes within 10% of the
/// best).
pub fn spmv_lanes_for(mean: f64) -> u32 {
    lanes_for(mean / SPMV_ENTRIES_PER_LANE)
}

/// The SpMV schedule of a matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// `lanes` threads per row.
    Lanes(u32),
    /// Merge path ([`super::merge_path`]).
    Merge,
}

/// A row longer than this many times the mean (and than `SKEW_MIN_ROW`) sends the
/// matrix to the merge path: with lanes per row, its group would run that many times
/// longer than a typical one, and the SpMV would wait for it.
pub const SKEW_RATIO: f64 = 32.0;
/// Rows up to this long never call for the merge path: one group walks them in at most
/// 32 steps, about what the merge path's search and fix-up cost.
pub const SKEW_MIN_ROW: u64 = 1024;

impl Schedule {
    /// The schedule for `rows` rows holding `nnz` entries, the longest `max_row` long.
    pub fn choose(rows: u64, nnz: u64, max_row: u64) -> Schedule {
        let mean = if rows == 0 {
            0.0
        } else {
            nnz as f64 / rows as f64
        };
        if max_row > SKEW_MIN_ROW && max_row as f64 > SKEW_RATIO * mean.max(1.0) {
            Schedule::Merge
        } else {
            Schedule::Lanes(spmv_lanes_for(mean))
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
/// A segment reduction on the CPU, as a group of `lanes` lanes computes it: each lane
/// reduces its strided share, then the lanes combine pairwise (the butterfly's order).
/// Returns the value and the first position of the extreme (`NO_POSITION` for an empty
/// segment or a sum).
pub fn segment<V: super::value::Value>(
    values: &[V],
    start: u64,
    end: u64,
    op: u32,
    lanes: u32,
) -> (V, u64) {
    let lanes = lanes as u64;
    let part: Vec<(V, u64)> = (0..lanes)
        .map(|l| {
            let mut acc = (V::ZERO, NO_POSITION);
            let mut p = start + l;
            while p < end {
                acc = combine(op, acc, (values[p as usize], p));
                p += lanes;
            }
            acc
        })
        .collect();
    butterfly(part, |a, b| combine(op, a, b))
}

#[cfg(not(target_arch = "nvptx64"))]
/// What lane 0 holds after a warp's butterfly over the lanes' partials `part` (a power
/// of two of them): at each width, lane `l` combines lane `l + width`'s into its own.
pub fn butterfly<T: Copy>(mut part: Vec<T>, f: impl Fn(T, T) -> T) -> T {
    let mut width = part.len();
    while width > 1 {
        width /= 2;
        for l in 0..width {
            part[l] = f(part[l], part[l + width]);
        }
    }
    part[0]
}

/// One step of a segment reduction: the sum, or the extreme of two (value, position)
/// partials.
#[inline(always)]
pub fn combine<V: super::value::Value>(op: u32, a: (V, u64), b: (V, u64)) -> (V, u64) {
    if op == SEG_SUM {
        (a.0.add(b.0), NO_POSITION)
    } else if beats(op == SEG_MAX, b.0, b.1, a.0, a.1) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::c64;

    #[test]
    fn lanes_cover_the_mean_row() {
        assert_eq!(lanes_for(0.0), 1);
        assert_eq!(lanes_for(1.0), 1);
        assert_eq!(lanes_for(1.2), 2);
        assert_eq!(lanes_for(4.99), 8);
        assert_eq!(lanes_for(16.0), 16);
        assert_eq!(lanes_for(1e6), 32);
    }

    #[test]
    fn skewed_matrices_take_the_merge_path() {
        // A 2-d Poisson matrix: 5 entries a row at most.
        assert_eq!(Schedule::choose(1 << 24, 5 << 24, 5), Schedule::Lanes(2));
        // Uniform random rows of 16 (binomial lengths stay near the mean).
        assert_eq!(Schedule::choose(1 << 20, 16 << 20, 40), Schedule::Lanes(4));
        // Zipf row lengths: a few rows of 10^5 entries.
        assert_eq!(
            Schedule::choose(1 << 20, 12 << 20, 100_000),
            Schedule::Merge
        );
        // Long rows that are all long are not skewed.
        assert_eq!(Schedule::choose(1000, 5_000_000, 5000), Schedule::Lanes(32));
        assert_eq!(Schedule::choose(1 << 20, 1 << 20, 3), Schedule::Lanes(1));
        assert_eq!(Schedule::choose(0, 0, 0), Schedule::Lanes(1));
    }

    #[test]
    fn extremes_follow_numpy() {
        let nan = f64::NAN;
        let v = [3.0, -1.0, 7.0, 7.0, nan, 2.0, nan];
        for lanes in [1, 2, 4, 32] {
            assert_eq!(
                segment(&v, 0, 4, SEG_MAX, lanes),
                (7.0, 2),
                "first of equal maxima"
            );
            assert_eq!(segment(&v, 0, 4, SEG_MIN, lanes), (-1.0, 1));
            let (m, at) = segment(&v, 0, 7, SEG_MAX, lanes);
            assert!(m.is_nan() && at == 4, "the first NaN wins");
            let (m, at) = segment(&v, 3, 7, SEG_MIN, lanes);
            assert!(m.is_nan() && at == 4);
            assert_eq!(segment(&v, 2, 2, SEG_MAX, lanes).1, NO_POSITION);
            assert_eq!(segment(&v, 0, 4, SEG_SUM, lanes).0, 16.0);
        }
        // Complex numbers order lexicographically, as NumPy's.
        let c = [c64::new(1.0, 5.0), c64::new(2.0, -1.0), c64::new(2.0, 0.0)];
        assert_eq!(segment(&c, 0, 3, SEG_MAX, 2), (c64::new(2.0, 0.0), 2));
        assert_eq!(segment(&c, 0, 3, SEG_MIN, 2), (c64::new(1.0, 5.0), 0));
    }
}
