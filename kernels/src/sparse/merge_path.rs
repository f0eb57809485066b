//! Merge-path SpMV (Merrill & Garland, "Merge-based Parallel Sparse Matrix-Vector
//! Multiplication", SC'16; CUB's `DeviceSpmv`): the work of `y = A x` is the merge of two
//! sorted lists, the row ends `indptr[1..=rows]` and the entry positions `0..nnz`. Each
//! step of the merge either consumes an entry (adds `data[j] * x[indices[j]]` to the
//! running sum) or ends a row (emits the sum). Cutting the merge into equal pieces of
//! `rows + nnz` steps gives every thread the same work however the row lengths are
//! distributed, so one row of a million entries costs what a million rows of one do.
//!
//! A piece starts at the diagonal `d` of the merge grid, found by a binary search
//! ([`search`]); a thread consumes its piece ([`consume`]) and emits the rows that end
//! inside it; a row cut by a piece boundary leaves a carry, which the GPU engine adds in
//! two levels (threads of a block through shared memory, blocks through a fix-up pass).
//! [`spmv`] runs the whole schedule on the CPU for the tests.

use super::value::Value;

/// Threads per block of the merge-path kernel.
pub const MERGE_THREADS: u32 = 128;
/// Merge steps per thread.
pub const MERGE_ITEMS: u64 = 7;
/// Merge steps per block (a tile).
pub const MERGE_TILE: u64 = MERGE_THREADS as u64 * MERGE_ITEMS;

/// The split of diagonal `d` of the merge of the row ends `end(0..rows)` (non-decreasing)
/// with the entry positions `first..first + entries`: `(i, j)` with `i + (j - first) ==
/// d`: before it, `i` rows ended and the entries below `j` were consumed. Ties go to the
/// entries: an entry at position `j` is consumed before a row that ends at `j` (the row
/// ends after its last entry). Every probe of `end` is below `rows`.
#[inline(always)]
pub fn search(d: u64, rows: u64, first: u64, entries: u64, end: impl Fn(u64) -> u64) -> (u64, u64) {
    let mut lo = d.saturating_sub(entries);
    let mut hi = if d < rows { d } else { rows };
    while lo < hi {
        let pivot = lo + (hi - lo) / 2;
        // Row `pivot` ends before the merge reaches this diagonal when its end is at
        // most the entry met there.
        if ends_before(end(pivot), pivot, d, first) {
            lo = pivot + 1;
        } else {
            hi = pivot;
        }
    }
    (lo, first + (d - lo))
}

/// Probes of one round of [`search_wide`]: a warp's lanes.
pub const SEARCH_LANES: u64 = 32;

/// The row lane `lane` probes in a round of [`search_wide`] over the candidate rows
/// `lo..=hi` (the answer lies among them): `lo + lane` when at most `SEARCH_LANES` rows
/// remain, else the `lane + 1`-th of `SEARCH_LANES` points that cut `lo..hi` evenly.
/// `None` for a lane without a row (reads as "not before the diagonal").
#[inline(always)]
pub fn wide_probe(lo: u64, hi: u64, lane: u64) -> Option<u64> {
    let span = hi - lo;
    if span <= SEARCH_LANES {
        (lane < span).then_some(lo + lane)
    } else {
        Some(lo + span * (lane + 1) / (SEARCH_LANES + 1))
    }
}

/// The candidates left after a round of [`search_wide`] in which the first `before`
/// probes found their rows ending before the diagonal (the predicate is true for the
/// rows below the answer and false from it on).
#[inline(always)]
pub fn wide_narrow(lo: u64, hi: u64, before: u64) -> (u64, u64) {
    if hi - lo <= SEARCH_LANES {
        return (lo + before, lo + before);
    }
    let lo2 = if before == 0 {
        lo
    } else {
        wide_probe(lo, hi, before - 1).unwrap_or(lo) + 1
    };
    let hi2 = if before == SEARCH_LANES {
        hi
    } else {
        wide_probe(lo, hi, before).unwrap_or(hi)
    };
    (lo2, hi2)
}

/// Whether row `p`, ending at `end_p`, ends before the merge reaches diagonal `d` of
/// entries from `first` ([`search`]'s test).
#[inline(always)]
pub fn ends_before(end_p: u64, p: u64, d: u64, first: u64) -> bool {
    end_p <= first + (d - p - 1)
}

/// [`search`] in rounds of `SEARCH_LANES` probes instead of halvings: about log33 of the
/// rows rounds (4 for a million rows) instead of log2 (20), so that a warp that runs
/// the probes of a round side by side waits for 4 rounds of loads instead of 20.
/// `before(lo, hi)` counts the probes of a round ([`wide_probe`]) whose rows end before
/// the diagonal ([`ends_before`]; the GPU: a ballot over the lanes, the CPU:
/// [`probes_before`]).
#[inline(always)]
pub fn search_wide(
    d: u64,
    rows: u64,
    first: u64,
    entries: u64,
    mut before: impl FnMut(u64, u64) -> u64,
) -> (u64, u64) {
    let mut lo = d.saturating_sub(entries);
    let mut hi = if d < rows { d } else { rows };
    while lo < hi {
        let n = before(lo, hi);
        (lo, hi) = wide_narrow(lo, hi, n);
    }
    (lo, first + (d - lo))
}

#[cfg(not(target_arch = "nvptx64"))]
/// A round of [`search_wide`] on the CPU: the probes for which `pred` holds, counted
/// lane by lane.
pub fn probes_before(lo: u64, hi: u64, pred: impl Fn(u64) -> bool) -> u64 {
    (0..SEARCH_LANES)
        .filter(|&l| wide_probe(lo, hi, l).is_some_and(&pred))
        .count() as u64
}

/// Consumes `steps` merge steps from `(i, j)`: while row `i < rows` has entries left
/// (`j < end(i)` and `j < limit`), adds `term(j)` and moves to `j + 1`; else emits row
/// `i` with its sum (`emit(i, sum)`) and moves to row `i + 1`. Returns where it stopped
/// and the partial sum of the row it stopped in (the carry; row `rows` when every row
/// ended). A step past the last row and the last entry ends the walk early.
#[inline(always)]
pub fn consume<V: Value>(
    (mut i, mut j): (u64, u64),
    steps: u64,
    rows: u64,
    limit: u64,
    end: impl Fn(u64) -> u64,
    term: impl Fn(u64) -> V,
    mut emit: impl FnMut(u64, V),
) -> (u64, u64, V) {
    let mut sum = V::ZERO;
    let mut k = 0;
    while k < steps {
        let row_end = if i < rows { end(i) } else { limit };
        if j < row_end && j < limit {
            sum = sum.add(term(j));
            j += 1;
        } else if i < rows {
            emit(i, sum);
            sum = V::ZERO;
            i += 1;
        } else {
            break;
        }
        k += 1;
    }
    (i, j, sum)
}

#[cfg(not(target_arch = "nvptx64"))]
/// Merge-path SpMV on the CPU, piece by piece as the GPU cuts it (pieces of `items`
/// steps, carries added afterwards): `y = A x` for the CSR matrix `(indptr, indices,
/// data)` with valid indices.
pub fn spmv<V: Value>(indptr: &[u64], indices: &[u64], data: &[V], x: &[V], items: u64) -> Vec<V> {
    let rows = indptr.len() as u64 - 1;
    let nnz = indptr[rows as usize];
    let end = |r: u64| indptr[r as usize + 1];
    let term = |j: u64| data[j as usize].mul(x[indices[j as usize] as usize]);
    let mut y = vec![V::ZERO; rows as usize];
    let total = rows + nnz;
    let mut carries = Vec::new();
    let mut d = 0;
    while d < total {
        let start = search(d, rows, 0, nnz, end);
        let (ci, _, carry) = consume(start, items.min(total - d), rows, nnz, end, term, |r, s| {
            y[r as usize] = y[r as usize].add(s);
        });
        carries.push((ci, carry));
        d += items;
    }
    for (r, c) in carries {
        if r < rows {
            y[r as usize] = y[r as usize].add(c);
        }
    }
    y
}

/// Byte offsets of the merge-path kernel's shared memory: its row ends (`MERGE_TILE +
/// 1` u64), its products (`MERGE_TILE` values), the threads' carry rows (u64) and carry
/// sums (values). (The tile's splits come from the search pass, in global memory.)
pub const fn merge_layout(value_bytes: u32) -> [u32; 4] {
    let ends = 0;
    let prods = ends + 8 * (MERGE_TILE as u32 + 1);
    let prods = prods.next_multiple_of(16);
    let carry_rows = prods + value_bytes * MERGE_TILE as u32;
    let carry_vals = carry_rows + 8 * MERGE_THREADS;
    [ends, prods, carry_rows, carry_vals]
}

/// Shared bytes of the merge-path kernel for values of `value_bytes` bytes.
pub const fn merge_shared_bytes(value_bytes: u32) -> u32 {
    merge_layout(value_bytes)[3] + value_bytes * MERGE_THREADS
}

/// Splits the search pass writes for `rows + nnz` merge steps: one per tile boundary,
/// the last at the end of the merge.
pub const fn merge_splits(rows: u64, nnz: u64) -> u64 {
    (rows + nnz).div_ceil(MERGE_TILE) + 1
}

/// The total of the row `row` that a thread emits first, whose earlier part the
/// threads before it in the block carried: its own part `own` plus the carries of
/// threads `t - 1`, `t - 2`, ... while they stopped inside `row` (`carry(k)` is thread
/// `k`'s (row, partial sum)). Parts of the row from earlier blocks come in the fix-up.
#[inline(always)]
pub fn lookback<V: Value>(t: u64, row: u64, own: V, carry: impl Fn(u64) -> (u64, V)) -> V {
    let mut sum = own;
    let mut k = t;
    while k > 0 {
        let (r, v) = carry(k - 1);
        if r != row {
            break;
        }
        sum = sum.add(v);
        k -= 1;
    }
    sum
}

/// A block's carry: the row the last of its `threads` threads stopped in and the sum
/// of the carries of the threads that stopped in that row.
#[inline(always)]
pub fn block_carry<V: Value>(threads: u64, carry: impl Fn(u64) -> (u64, V)) -> (u64, V) {
    let (row, last) = carry(threads - 1);
    (row, lookback(threads - 1, row, last, carry))
}

/// Lanes of the fix-up: a warp walks each run of blocks that carried one row.
pub const FIXUP_LANES: u64 = 32;

/// The row whose run of carries block `b` opens: `b` carried a row (below `rows`) that
/// the block before it did not. The GPU adds the run's sum to `y[row]`, which the block
/// where the row ends wrote.
#[inline(always)]
pub fn opens_run<V: Value>(b: u64, rows: u64, carry: impl Fn(u64) -> (u64, V)) -> Option<u64> {
    let row = carry(b).0;
    (row < rows && (b == 0 || carry(b - 1).0 != row)).then_some(row)
}

/// Lane `lane`'s share of the run that block `b` opens on `row`: the carries of blocks
/// `b + lane`, `b + lane + lanes`, ... while they carry `row`. Blocks' carry rows never
/// decrease, so the run is contiguous and each lane may stop at its first other row: a
/// row of a million entries spans a thousand blocks, which one thread would read one
/// after another and lanes read side by side.
#[inline(always)]
pub fn run_share<V: Value>(
    b: u64,
    lane: u64,
    lanes: u64,
    blocks: u64,
    row: u64,
    carry: impl Fn(u64) -> (u64, V),
) -> V {
    // Four carries are read before the first is checked (a long run then waits for a
    // quarter of the rounds of loads), and added in order while they carry `row`.
    let mut sum = V::ZERO;
    let mut k = b + lane;
    let read = |k: u64| {
        if k < blocks {
            carry(k)
        } else {
            (u64::MAX, V::ZERO)
        }
    };
    loop {
        let (c0, c1) = (read(k), read(k + lanes));
        let (c2, c3) = (read(k + 2 * lanes), read(k + 3 * lanes));
        // Written out (an array would live on the GPU's stack).
        if c0.0 != row {
            return sum;
        }
        sum = sum.add(c0.1);
        if c1.0 != row {
            return sum;
        }
        sum = sum.add(c1.1);
        if c2.0 != row {
            return sum;
        }
        sum = sum.add(c2.1);
        if c3.0 != row {
            return sum;
        }
        sum = sum.add(c3.1);
        k += 4 * lanes;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
/// The fix-up of block `b` as the GPU computes it: when `b` opens a run, that row and
/// the sum of the lanes' shares, combined in the order of a warp's butterfly (lane `l`
/// adds lane `l + width` for widths 16, 8, ..., 1).
pub fn fixup<V: Value>(
    b: u64,
    blocks: u64,
    rows: u64,
    carry: impl Fn(u64) -> (u64, V),
) -> Option<(u64, V)> {
    let row = opens_run(b, rows, &carry)?;
    let part = (0..FIXUP_LANES)
        .map(|l| run_share(b, l, FIXUP_LANES, blocks, row, &carry))
        .collect();
    Some((row, super::rows::butterfly(part, V::add)))
}

#[cfg(not(target_arch = "nvptx64"))]
/// Merge-path SpMV on the CPU exactly as the GPU engine runs it: tiles of `threads *
/// items` merge steps per block, each tile's row ends and products staged, each
/// thread's start searched inside the tile, the first row a thread emits completed by
/// [`lookback`], the others stored directly, block carries added by [`fixup`].
pub fn spmv_blocks<V: Value>(
    indptr: &[u64],
    indices: &[u64],
    data: &[V],
    x: &[V],
    threads: u64,
    items: u64,
) -> Vec<V> {
    let rows = indptr.len() as u64 - 1;
    let nnz = indptr[rows as usize];
    let end = |r: u64| indptr[r as usize + 1].min(nnz);
    let total = rows + nnz;
    let tile = threads * items;
    let blocks = total.div_ceil(tile);
    let mut y = vec![V::ZERO; rows as usize];
    let mut block_carries = Vec::new();
    for b in 0..blocks {
        let (d0, d1) = (b * tile, ((b + 1) * tile).min(total));
        let (i0, j0) = search(d0, rows, 0, nnz, end);
        let (i1, j1) = search(d1, rows, 0, nnz, end);
        // The staged tile: row ends of rows i0..=i1 (those below `rows`), products j0..j1.
        let ends: Vec<u64> = (i0..(i1 + 1).min(rows)).map(end).collect();
        let prods: Vec<V> = (j0..j1)
            .map(|j| data[j as usize].mul(x[indices[j as usize] as usize]))
            .collect();
        let local_end = |r: u64| ends.get((r - i0) as usize).copied().unwrap_or(j1);
        let mut carries = Vec::new();
        let mut firsts = Vec::new();
        for t in 0..threads {
            let dl = (t * items).min(d1 - d0);
            let (ri, j) = search(dl, i1 - i0, j0, j1 - j0, |r| local_end(i0 + r));
            let mut first = None;
            let (ci, _, cv) = consume(
                (i0 + ri, j),
                items.min(d1 - d0 - dl),
                rows,
                j1,
                local_end,
                |j| prods[(j - j0) as usize],
                |r, s| {
                    if first.is_none() {
                        first = Some((r, s));
                    } else {
                        y[r as usize] = s;
                    }
                },
            );
            carries.push((ci, cv));
            firsts.push(first);
        }
        for (t, first) in firsts.into_iter().enumerate() {
            if let Some((r, s)) = first {
                y[r as usize] = lookback(t as u64, r, s, |k| carries[k as usize]);
            }
        }
        block_carries.push(block_carry(threads, |k| carries[k as usize]));
    }
    for b in 0..blocks {
        if let Some((r, s)) = fixup(b, blocks, rows, |k| block_carries[k as usize]) {
            y[r as usize] = y[r as usize].add(s);
        }
    }
    y
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dtype::c128;
    use crate::sparse::value::Value;

    /// A deterministic generator (SplitMix64) for test matrices.
    pub(crate) struct Mix(pub u64);
    impl Mix {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        pub(crate) fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }

    /// Row lengths drawn from a heavy tail (some rows empty, a few very long).
    fn power_law_rows(rng: &mut Mix, rows: usize, cols: u64) -> (Vec<u64>, Vec<u64>) {
        let mut indptr = vec![0u64];
        let mut indices = Vec::new();
        for _ in 0..rows {
            let len = match rng.below(100) {
                0 => rng.below(400),
                1..=9 => rng.below(30),
                10..=29 => 0,
                _ => rng.below(4),
            };
            for _ in 0..len {
                indices.push(rng.below(cols));
            }
            indptr.push(indices.len() as u64);
        }
        (indptr, indices)
    }

    fn direct(indptr: &[u64], indices: &[u64], data: &[f64], x: &[f64]) -> Vec<f64> {
        (0..indptr.len() - 1)
            .map(|r| {
                (indptr[r]..indptr[r + 1])
                    .map(|j| data[j as usize] * x[indices[j as usize] as usize])
                    .sum()
            })
            .collect()
    }

    #[test]
    fn search_splits_every_diagonal_on_the_path() {
        let indptr = [0u64, 2, 2, 5, 9, 9];
        let end = |r: u64| indptr[r as usize + 1];
        let (rows, nnz) = (5, 9);
        // Walk the merge one step at a time and compare each diagonal's split.
        let (mut i, mut j) = (0, 0);
        for d in 0..=rows + nnz {
            assert_eq!(search(d, rows, 0, nnz, end), (i, j), "diagonal {d}");
            if i < rows && j < end(i) {
                j += 1;
            } else {
                i += 1;
            }
        }
    }

    #[test]
    fn wide_search_finds_the_binary_search_split() {
        let mut rng = Mix(3);
        for (rows, cols) in [(1usize, 1u64), (5, 9), (40, 3), (1000, 1000), (5000, 20)] {
            let (indptr, _) = power_law_rows(&mut rng, rows, cols);
            let rows = rows as u64;
            let nnz = indptr[rows as usize];
            let end = |r: u64| indptr[r as usize + 1];
            for d in (0..=rows + nnz).step_by(1 + (rows + nnz) as usize / 3000) {
                assert_eq!(
                    search_wide(d, rows, 0, nnz, |lo, hi| probes_before(lo, hi, |p| {
                        ends_before(end(p), p, d, 0)
                    })),
                    search(d, rows, 0, nnz, end),
                    "{rows} rows, diagonal {d}"
                );
            }
        }
    }

    #[test]
    fn pieces_of_any_size_give_the_direct_product() {
        let mut rng = Mix(7);
        for (rows, cols) in [(0usize, 3u64), (1, 1), (7, 5), (300, 50), (1000, 1000)] {
            let (indptr, indices) = power_law_rows(&mut rng, rows, cols);
            let data: Vec<f64> = (0..indices.len())
                .map(|_| (rng.below(17) as f64) - 8.0)
                .collect();
            let x: Vec<f64> = (0..cols).map(|_| (rng.below(9) as f64) - 4.0).collect();
            let want = direct(&indptr, &indices, &data, &x);
            for items in [1, 2, 7, MERGE_TILE, 10_000] {
                // Small integers: every sum is exact whatever the order.
                assert_eq!(
                    spmv(&indptr, &indices, &data, &x, items),
                    want,
                    "{rows} rows, {items} items"
                );
            }
            for (threads, items) in [(1, 1), (4, 3), (8, 7), (MERGE_THREADS as u64, MERGE_ITEMS)] {
                assert_eq!(
                    spmv_blocks(&indptr, &indices, &data, &x, threads, items),
                    want,
                    "{rows} rows, blocks of {threads} x {items}"
                );
            }
        }
    }

    #[test]
    fn a_row_over_many_blocks_is_summed_by_the_fixup_lanes() {
        // One row over 5000 / 12 = 417 blocks (13 rounds of the fix-up's 32 lanes),
        // between short rows.
        for (lead, n) in [(0u64, 5000u64), (3, 5000), (2, 31 * 12), (1, 33 * 12 + 5)] {
            let mut indptr: Vec<u64> = (0..=lead).collect();
            indptr.push(lead + n);
            indptr.push(lead + n + 1);
            let nnz = lead + n + 1;
            let indices: Vec<u64> = (0..nnz).map(|k| k % 97).collect();
            let data: Vec<f64> = (0..nnz).map(|k| (k % 7) as f64 - 3.0).collect();
            let x: Vec<f64> = (0..97).map(|k| (k % 5) as f64 - 2.0).collect();
            let want = direct(&indptr, &indices, &data, &x);
            assert_eq!(
                spmv_blocks(&indptr, &indices, &data, &x, 4, 3),
                want,
                "{lead} + {n}"
            );
        }
    }

    #[test]
    fn a_single_long_row_is_cut_into_carries() {
        let n = 5000u64;
        let indptr = vec![0, n];
        let indices: Vec<u64> = (0..n).collect();
        let data: Vec<c128> = (0..n).map(|k| c128::new(1.0, k as f64)).collect();
        let x = vec![c128::new(0.0, 1.0); n as usize];
        let y = spmv(&indptr, &indices, &data, &x, 7);
        // sum of i * (1 + i k) = sum (i - k) = -sum k + n i
        let sk = (n * (n - 1) / 2) as f64;
        assert_eq!(y, vec![c128::new(-sk, n as f64)]);
        // Across many blocks, with empty rows around it.
        let indptr = vec![0, 0, n, n, n];
        let y = spmv_blocks(&indptr, &indices, &data, &x, 16, 7);
        assert_eq!(
            y,
            vec![
                c128::new(0.0, 0.0),
                c128::new(-sk, n as f64),
                c128::ZERO,
                c128::ZERO
            ]
        );
    }

    #[test]
    fn consume_never_reads_past_the_limit_of_a_corrupt_indptr() {
        // Row ends past nnz and decreasing: the walk stays inside 0..limit.
        let ends = [9u64, 3, 20];
        let mut seen = Vec::new();
        let (i, j, _) = consume(
            (0, 0),
            100,
            3,
            6,
            |r| ends[r as usize],
            |j| {
                assert!(j < 6);
                1.0f64
            },
            |r, s| seen.push((r, s)),
        );
        assert_eq!((i, j), (3, 6));
        assert_eq!(seen, [(0, 6.0), (1, 0.0), (2, 0.0)]);
    }
}
