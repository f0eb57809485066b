//! SpGEMM (`C = A B`, both CSR) by hashing per row, in two passes as cuSPARSE and
//! nsparse do: a symbolic pass counts each row of `C` (the distinct columns among the
//! products `A[i, p] B[p, :]`), the host scans the counts into `C`'s `indptr`, and a
//! numeric pass sums the products into the same table and writes the row out.
//!
//! Row `i`'s table holds [`table_size`] of its upper bound `ub` (the number of products,
//! `sum_p len(B row p)`) slots: a power of two at least twice `ub`, so linear probing
//! from a multiplicative hash ([`Key::home`]) meets an empty slot within a few probes.
//! A warp builds it, its 32 lanes taking the products in turn ([`chunk_pairs`]): a key
//! is inserted by compare-and-swap ([`insert`]), a value added atomically. Tables of up
//! to the launch's `warp_slots` live in the warp's share of shared memory, larger ones
//! in global scratch the host lays out from the bounds.
//!
//! The numeric pass writes a row sorted when its table is small ([`RANK_TABLE_MAX`]
//! slots at most): an entry's place is the number of keys below it in the table
//! ([`rank`]). Rows of larger tables are written in slot order and sorted afterwards by
//! the host (a key sort over the whole result, run only when such rows exist).
//!
//! Products are summed in an order the atomics decide, so `C`'s values may differ
//! between runs by rounding (within the same error bound); entries that cancel to zero
//! stay in `C` (as cuSPARSE's, where SciPy drops them).

/// Most slots of a table that the numeric pass sorts by rank.
pub const RANK_TABLE_MAX: u64 = 1024;
/// Fewest slots of a table (one per lane).
pub const MIN_TABLE: u64 = 32;

/// The slots of the table of a row with `ub` products: the smallest power of two at
/// least `2 ub` and at least `MIN_TABLE`.
#[inline(always)]
pub fn table_size(ub: u64) -> u64 {
    let want = if ub > (1 << 61) { 1 << 62 } else { 2 * ub };
    let mut s = MIN_TABLE;
    while s < want {
        s *= 2;
    }
    s
}

/// A key of a hash table: a column index, stored unsigned with all bits set for an
/// empty slot.
pub trait Key: Copy + Eq {
    const EMPTY: Self;
    fn of(col: u64) -> Self;
    fn col(self) -> u64;
    /// The slot probing starts from, in a table of `mask + 1` slots (Knuth's
    /// multiplicative hash, whose high bits mix all of the key's).
    fn home(self, mask: u64) -> u64;
}

impl Key for u32 {
    const EMPTY: u32 = u32::MAX;
    #[inline(always)]
    fn of(col: u64) -> u32 {
        col as u32
    }
    #[inline(always)]
    fn col(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn home(self, mask: u64) -> u64 {
        ((self as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) & mask
    }
}

impl Key for u64 {
    const EMPTY: u64 = u64::MAX;
    #[inline(always)]
    fn of(col: u64) -> u64 {
        col
    }
    #[inline(always)]
    fn col(self) -> u64 {
        self
    }
    #[inline(always)]
    fn home(self, mask: u64) -> u64 {
        (self.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32) & mask
    }
}

/// The slots of one table, as the GPU engine reaches them with atomics (and the tests
/// with plain cells).
pub trait Slots<K, V> {
    /// Stores `key` in slot `s` if it is empty; returns what the slot held before.
    fn claim(&self, s: u64, key: K) -> K;
    /// Adds `v` to slot `s`'s value.
    fn add(&self, s: u64, v: V);
    fn key(&self, s: u64) -> K;
    fn value(&self, s: u64) -> V;
}

/// Inserts `key` into a table of `mask + 1` slots by linear probing: returns its slot
/// and whether this call inserted it, or `None` when every slot holds another key
/// (which the table's size rules out; a corrupt matrix loses the product instead of
/// looping).
#[inline(always)]
pub fn insert<K: Key, V>(t: &impl Slots<K, V>, mask: u64, key: K) -> Option<(u64, bool)> {
    let mut s = key.home(mask);
    let mut probes = 0;
    while probes <= mask {
        let old = t.claim(s, key);
        if old == K::EMPTY {
            return Some((s, true));
        }
        if old == key {
            return Some((s, false));
        }
        s = (s + 1) & mask;
        probes += 1;
    }
    None
}

/// The number of keys in the table below `key`: its place in the sorted row.
#[inline(always)]
pub fn rank<K: Key, V>(t: &impl Slots<K, V>, size: u64, key: K) -> u64 {
    let mut r = 0;
    let c = key.col();
    for s in 0..size {
        let k = t.key(s);
        if k != K::EMPTY && k.col() < c {
            r += 1;
        }
    }
    r
}

/// Entries of a row of `A` that a warp takes at once: lane `l` reads entry `l` of the
/// chunk and the bounds of its row of `B` (one round of loads for the whole chunk,
/// instead of a chain of dependent loads entry after entry).
pub const PAIR_CHUNK: u64 = 32;

/// The entry owning product `k` of a chunk whose entries' inclusive product counts are
/// `incl(0)..incl(31)` (non-decreasing; entries past the chunk's end repeat the total):
/// the number of entries whose products end at or before `k`, found in five halvings.
/// On the GPU each probe of `incl` is a shuffle from that lane, which every lane takes.
#[inline(always)]
pub fn owner(k: u64, incl: impl Fn(u64) -> u64) -> u64 {
    let mut j = 0;
    let mut step = PAIR_CHUNK / 2;
    while step > 0 {
        if incl(j + step - 1) <= k {
            j += step;
        }
        step /= 2;
    }
    j
}

#[cfg(not(target_arch = "nvptx64"))]
/// Calls `f(p, q)` for lane `lane`'s share of the products of one row of `A` (entries
/// `a_start..a_end`): entry `p` of `A`'s row times entry `q` of row `b_row(p)` of `B`
/// (`None` for a column outside `B`'s rows), as the GPU's warp walks them: the row in
/// chunks of `PAIR_CHUNK` entries; in a chunk, the products numbered entry by entry and
/// product `k` taken by lane `k % 32` (found through [`owner`]), so every lane has work
/// whether `B`'s rows are short or long.
pub fn chunk_pairs(
    lane: u64,
    (a_start, a_end): (u64, u64),
    b_row: impl Fn(u64) -> Option<(u64, u64)>,
    mut f: impl FnMut(u64, u64),
) {
    let mut chunk = a_start;
    while chunk < a_end {
        let (mut starts, mut incl, mut total) = ([0u64; 32], [0u64; 32], 0u64);
        for l in 0..PAIR_CHUNK as usize {
            let p = chunk + l as u64;
            if p < a_end
                && let Some((bs, be)) = b_row(p)
            {
                starts[l] = bs;
                total += be - bs;
            }
            incl[l] = total;
        }
        let mut k = lane;
        while k < total {
            let j = owner(k, |i| incl[i as usize]) as usize;
            let before = if j == 0 { 0 } else { incl[j - 1] };
            f(chunk + j as u64, starts[j] + (k - before));
            k += 32;
        }
        chunk += PAIR_CHUNK;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sparse::merge_path::tests::Mix;
    use std::cell::Cell;
    use std::collections::BTreeMap;

    struct CpuTable {
        keys: Vec<Cell<u32>>,
        vals: Vec<Cell<f64>>,
    }
    impl Slots<u32, f64> for CpuTable {
        fn claim(&self, s: u64, key: u32) -> u32 {
            let old = self.keys[s as usize].get();
            if old == u32::EMPTY {
                self.keys[s as usize].set(key);
            }
            old
        }
        fn add(&self, s: u64, v: f64) {
            let c = &self.vals[s as usize];
            c.set(c.get() + v);
        }
        fn key(&self, s: u64) -> u32 {
            self.keys[s as usize].get()
        }
        fn value(&self, s: u64) -> f64 {
            self.vals[s as usize].get()
        }
    }

    type Csr = (Vec<u64>, Vec<u64>, Vec<f64>);

    fn random_csr(rng: &mut Mix, rows: usize, cols: u64, max_len: u64) -> Csr {
        let (mut indptr, mut indices, mut data) = (vec![0u64], vec![], vec![]);
        for _ in 0..rows {
            for _ in 0..rng.below(max_len + 1) {
                indices.push(rng.below(cols)); // duplicates and any order
                data.push(rng.below(7) as f64 - 3.0);
            }
            indptr.push(indices.len() as u64);
        }
        (indptr, indices, data)
    }

    /// One row of `A B` as a warp builds it (lanes in turn), written out sorted.
    fn hashed_row(a: &Csr, b: &Csr, i: usize) -> Vec<(u64, f64)> {
        let range = (a.0[i], a.0[i + 1]);
        let b_row = |p: u64| {
            let r = a.1[p as usize] as usize;
            Some((b.0[r], b.0[r + 1]))
        };
        let mut ub = 0;
        for p in range.0..range.1 {
            let (s, e) = b_row(p).unwrap();
            ub += e - s;
        }
        let size = table_size(ub);
        let t = CpuTable {
            keys: (0..size).map(|_| Cell::new(u32::EMPTY)).collect(),
            vals: (0..size).map(|_| Cell::new(0.0)).collect(),
        };
        let (mut count, mut visited) = (0, 0);
        for lane in 0..32 {
            chunk_pairs(lane, range, b_row, |p, q| {
                visited += 1;
                let (s, new) = insert(&t, size - 1, u32::of(b.1[q as usize])).unwrap();
                count += new as u64;
                t.add(s, a.2[p as usize] * b.2[q as usize]);
            });
        }
        assert_eq!(visited, ub, "every product exactly once");
        let mut row = vec![(u64::MAX, 0.0); count as usize];
        for s in 0..size {
            let k = t.key(s);
            if k != u32::EMPTY {
                row[rank(&t, size, k) as usize] = (k.col(), t.value(s));
            }
        }
        row
    }

    #[test]
    fn hashed_rows_are_the_sorted_products() {
        let mut rng = Mix(11);
        for (m, k, n, len) in [
            (1, 1, 1, 1),
            (20, 30, 40, 6),
            (50, 8, 3000, 40),
            (5, 200, 7, 90),
        ] {
            let a = random_csr(&mut rng, m, k, len);
            let b = random_csr(&mut rng, k as usize, n, len);
            for i in 0..m {
                let mut want = BTreeMap::new();
                for p in a.0[i]..a.0[i + 1] {
                    let r = a.1[p as usize] as usize;
                    for q in b.0[r]..b.0[r + 1] {
                        *want.entry(b.1[q as usize]).or_insert(0.0) +=
                            a.2[p as usize] * b.2[q as usize];
                    }
                }
                let want: Vec<(u64, f64)> = want.into_iter().collect();
                // Small integers: sums are exact in any order.
                assert_eq!(hashed_row(&a, &b, i), want, "row {i}");
            }
        }
    }

    #[test]
    fn owners_are_the_entries_whose_products_cover_k() {
        // Entries of 3, 0, 5, 1 products, then the chunk's end (the total repeated).
        let mut incl = [9u64; 32];
        incl[..4].copy_from_slice(&[3, 3, 8, 9]);
        let want = [0, 0, 0, 2, 2, 2, 2, 2, 3];
        for (k, &j) in want.iter().enumerate() {
            assert_eq!(owner(k as u64, |i| incl[i as usize]), j, "product {k}");
        }
        // A full chunk of one product each: product k is entry k.
        let ones: Vec<u64> = (1..=32).collect();
        for k in 0..32 {
            assert_eq!(owner(k, |i| ones[i as usize]), k);
        }
    }

    #[test]
    fn tables_are_powers_of_two_with_room() {
        assert_eq!(table_size(0), 32);
        assert_eq!(table_size(16), 32);
        assert_eq!(table_size(17), 64);
        assert_eq!(table_size(1000), 2048);
        for ub in [1u64, 5, 100, 12345] {
            let s = table_size(ub);
            assert!(s.is_power_of_two() && s >= 2 * ub);
        }
    }

    #[test]
    fn a_full_table_refuses_instead_of_looping() {
        let t = CpuTable {
            keys: (0..4).map(Cell::new).collect(),
            vals: (0..4).map(|_| Cell::new(0.0)).collect(),
        };
        assert_eq!(insert(&t, 3, 9u32), None);
        assert_eq!(insert(&t, 3, 2u32), Some((2, false)));
    }
}
