//! The threads that factor one matrix together, as the algorithms in `dense` see them.
//!
//! The factorizations are written once against [`Team`]: loops over "my share" of an
//! index range, barriers, and reductions whose result every member gets. On the GPU a
//! team is a thread block (`gpu_dense.rs`); on the CPU it is [`Serial`], one member that
//! runs every share in order, which is how `cargo test` checks the algorithms. Code
//! between two barriers touches disjoint data on different members, so the serial order
//! computes exactly what the block computes.

use super::scalar::Scalar;

pub trait Team {
    /// This member's index and the member count.
    fn rank(&self) -> usize;
    fn size(&self) -> usize;
    /// A barrier: every member's writes before it are seen by every member after it.
    fn sync(&self);
    /// The first index in `lo..hi` with the largest `key` (a NaN key counts as -1), the
    /// same on every member; `lo` when the range is empty. Ends with a barrier.
    fn argmax(&self, lo: usize, hi: usize, key: impl Fn(usize) -> f64) -> usize;
    /// `sum of f(i)` over `lo..hi`, the same on every member. Ends with a barrier.
    fn sum(&self, lo: usize, hi: usize, f: impl Fn(usize) -> f64) -> f64;
    /// Members work in groups (warps) that reduce among themselves without barriers:
    /// this member's group and lane, and the counts.
    fn group(&self) -> usize;
    fn groups(&self) -> usize;
    fn lane(&self) -> usize;
    fn lanes(&self) -> usize;
    /// The sum of `v` over this member's group, on every lane of it. Every lane calls.
    fn group_sum<T: Scalar>(&self, v: T) -> T;
}

/// Runs `f(i)` for this member's share of `lo..hi`.
#[inline(always)]
pub fn each(t: &impl Team, lo: usize, hi: usize, mut f: impl FnMut(usize)) {
    let mut i = lo + t.rank();
    while i < hi {
        f(i);
        i += t.size();
    }
}

/// Runs `f(i, k)` for this member's share of `rows x cols`.
#[inline(always)]
pub fn each2(
    t: &impl Team,
    rows: (usize, usize),
    cols: (usize, usize),
    mut f: impl FnMut(usize, usize),
) {
    let w = cols.1.saturating_sub(cols.0);
    let h = rows.1.saturating_sub(rows.0);
    if w == 0 || h == 0 {
        return;
    }
    // The flat index x = rank + s * size walks the rows x cols grid; its row and column
    // advance by fixed steps (one division up front instead of one per element: a
    // 64-bit division costs about 70 instructions on the GPU).
    let (step_i, step_c) = (t.size() / w, t.size() % w);
    let (mut i, mut c) = (t.rank() / w, t.rank() % w);
    while i < h {
        f(rows.0 + i, cols.0 + c);
        i += step_i;
        c += step_c;
        if c >= w {
            c -= w;
            i += 1;
        }
    }
}

/// Runs `f(c)` for each of this member's group's share of `lo..hi` (every lane of the
/// group gets the same `c`, so the group can reduce over rows of column `c`).
#[inline(always)]
pub fn each_by_group(t: &impl Team, lo: usize, hi: usize, mut f: impl FnMut(usize)) {
    let mut c = lo + t.group();
    while c < hi {
        f(c);
        c += t.groups();
    }
}

/// The CPU team: one member.
pub struct Serial;

impl Team for Serial {
    fn rank(&self) -> usize {
        0
    }
    fn size(&self) -> usize {
        1
    }
    fn sync(&self) {}
    fn argmax(&self, lo: usize, hi: usize, key: impl Fn(usize) -> f64) -> usize {
        let mut best = (f64::NEG_INFINITY, lo);
        for i in lo..hi {
            let k = key(i);
            let k = if k.is_nan() { -1.0 } else { k };
            if k > best.0 {
                best = (k, i);
            }
        }
        best.1
    }
    fn sum(&self, lo: usize, hi: usize, f: impl Fn(usize) -> f64) -> f64 {
        (lo..hi).map(f).sum()
    }
    fn group(&self) -> usize {
        0
    }
    fn groups(&self) -> usize {
        1
    }
    fn lane(&self) -> usize {
        0
    }
    fn lanes(&self) -> usize {
        1
    }
    fn group_sum<T: Scalar>(&self, v: T) -> T {
        v
    }
}
