//! Connected components by union-find over element indices: the meaning of `label`.
//!
//! Every foreground element has a parent link; a root links to itself. Links only ever
//! point to a smaller index of the same component, so a root is its tree's smallest
//! index, and once every union is done each component is one tree whose root is the
//! component's first element in C order. Ranking the roots (a flag per root, an
//! inclusive scan) numbers the components 1.. in the order of their first elements,
//! which is SciPy's numbering.
//!
//! The steps, each a pass over the elements (a thread per element on the GPU):
//! 1. [`initial_parent`]: the smallest foreground neighbour before the element, else
//!    itself (`BACKGROUND` for background elements);
//! 2. [`link`]: [`union`] with every earlier foreground neighbour;
//! 3. [`find`]: every element's root, written as its parent;
//! 4. the ranks of the roots, and each element's rank of its root.
//!
//! [`union`] is the lock-free union of Playne and Hawick (2018): find both roots, lower
//! the larger root's link to the smaller with an atomic minimum; if the larger one was
//! no longer a root (another thread linked it meanwhile), go on uniting its new parent.
//! Its correctness under concurrency needs only the atomic minimum: a link is only ever
//! lowered to another member of the same set, and an overwritten link's target is
//! united again by the thread that overwrote it. `cargo test` runs it on several threads
//! at once against breadth-first labelling.

/// The parent links of a forest over element indices, which concurrent unions read,
/// store and lower atomically.
pub trait Forest {
    /// Element `i`'s parent.
    fn parent(&self, i: u64) -> u64;
    /// Sets element `i`'s parent (only ever to another member of its set).
    fn set_parent(&self, i: u64, p: u64);
    /// Atomically lowers element `i`'s parent to `p` if `p` is smaller; returns the
    /// parent it had.
    fn lower_parent(&self, i: u64, p: u64) -> u64;
}

/// The parent of a background element: no index (in the index type's width).
pub const BACKGROUND: u64 = u64::MAX;

/// The root of `i`'s tree: follow the links down to an element that links to itself.
/// (Links only decrease, so this ends even while other threads lower links.)
#[inline(always)]
pub fn find<F: Forest>(f: &F, mut i: u64) -> u64 {
    loop {
        let p = f.parent(i);
        if p == i {
            return i;
        }
        i = p;
    }
}

/// Unites the sets of elements `a` and `b` (lock-free, see the module comment).
#[inline(always)]
pub fn union<F: Forest>(f: &F, mut a: u64, mut b: u64) {
    loop {
        a = find(f, a);
        b = find(f, b);
        if a == b {
            return;
        }
        let (high, low) = if a > b { (a, b) } else { (b, a) };
        let old = f.lower_parent(high, low);
        if old == high {
            return;
        }
        // `high` had been linked to `old` meanwhile (its link is now the smaller of
        // `old` and `low`): `old`'s set still has to join `low`'s.
        a = old;
        b = low;
    }
}

/// Step 1: element `i`'s first parent: itself, or the smallest of its earlier
/// foreground neighbours (`neighbour(k)` for `k < count`, None outside the grid), which
/// shortens the trees the unions then build; `BACKGROUND` for background.
#[inline(always)]
pub fn initial_parent(
    i: u64,
    foreground: impl Fn(u64) -> bool,
    count: usize,
    neighbour: impl Fn(usize) -> Option<u64>,
) -> u64 {
    if !foreground(i) {
        return BACKGROUND;
    }
    let mut p = i;
    for k in 0..count {
        if let Some(j) = neighbour(k)
            && j < p
            && foreground(j)
        {
            p = j;
        }
    }
    p
}

/// Step 2: unites foreground element `i` with each of its earlier foreground neighbours.
#[inline(always)]
pub fn link<F: Forest>(
    f: &F,
    i: u64,
    foreground: impl Fn(u64) -> bool,
    count: usize,
    neighbour: impl Fn(usize) -> Option<u64>,
) {
    if !foreground(i) {
        return;
    }
    for k in 0..count {
        if let Some(j) = neighbour(k)
            && foreground(j)
        {
            union(f, i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::grid::{Axis, Neighbour, edges};
    use std::sync::atomic::{AtomicU64, Ordering};

    struct Links(Vec<AtomicU64>);

    impl Forest for Links {
        fn parent(&self, i: u64) -> u64 {
            self.0[i as usize].load(Ordering::Relaxed)
        }
        fn set_parent(&self, i: u64, p: u64) {
            self.0[i as usize].store(p, Ordering::Relaxed)
        }
        fn lower_parent(&self, i: u64, p: u64) -> u64 {
            self.0[i as usize].fetch_min(p, Ordering::Relaxed)
        }
    }

    /// A tiny deterministic generator (the tests need no crate).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Every step of the 3^nd structure, C order.
    fn steps(nd: usize) -> Vec<Vec<i64>> {
        (0..3usize.pow(nd as u32))
            .map(|k| {
                (0..nd)
                    .map(|d| (k / 3usize.pow((nd - 1 - d) as u32) % 3) as i64 - 1)
                    .collect()
            })
            .collect()
    }

    /// The earlier half of a symmetric structure (the elements before its center).
    fn earlier(structure: &[bool], nd: usize) -> Vec<Vec<i64>> {
        let all = steps(nd);
        (0..all.len() / 2)
            .filter(|&k| structure[k])
            .map(|k| all[k].clone())
            .collect()
    }

    /// Breadth-first labels, numbered by each component's first element in C order.
    fn bfs_labels(mask: &[bool], shape: &[usize], structure: &[bool]) -> Vec<u64> {
        let nd = shape.len();
        let all = steps(nd);
        let axes: Vec<Axis> = shape.iter().rev().map(|&n| Axis::new(n as u64)).collect();
        let nbs: Vec<Neighbour> = all
            .iter()
            .zip(structure)
            .filter(|(s, on)| **on && s.iter().any(|&x| x != 0))
            .map(|(s, _)| Neighbour::from_step(shape, s))
            .collect();
        let mut out = vec![0u64; mask.len()];
        let mut next = 0;
        for start in 0..mask.len() {
            if !mask[start] || out[start] != 0 {
                continue;
            }
            next += 1;
            out[start] = next;
            let mut queue = vec![start as u64];
            while let Some(i) = queue.pop() {
                let e = edges(i, nd, true, |d| axes[d]);
                for nb in &nbs {
                    if let Some(j) = nb.of(i, e)
                        && mask[j as usize]
                        && out[j as usize] == 0
                    {
                        out[j as usize] = next;
                        queue.push(j);
                    }
                }
            }
        }
        out
    }

    /// The union-find labels, each step over the elements in `order` (or on `threads`
    /// threads at once, each taking every `threads`-th element of the order).
    fn uf_labels(
        mask: &[bool],
        shape: &[usize],
        structure: &[bool],
        order: &[u64],
        threads: usize,
    ) -> Vec<u64> {
        let nd = shape.len();
        let axes: Vec<Axis> = shape.iter().rev().map(|&n| Axis::new(n as u64)).collect();
        let nbs: Vec<Neighbour> = earlier(structure, nd)
            .iter()
            .map(|s| Neighbour::from_step(shape, s))
            .collect();
        let fg = |i: u64| mask[i as usize];
        let nb_of = |i: u64| {
            let e = edges(i, nd, true, |d| axes[d]);
            let nbs = &nbs;
            move |k: usize| nbs[k].of(i, e)
        };
        let links = Links(mask.iter().map(|_| AtomicU64::new(0)).collect());
        let each = |step: &(dyn Fn(u64) + Sync)| {
            std::thread::scope(|s| {
                for t in 0..threads {
                    s.spawn(move || {
                        for &i in order.iter().skip(t).step_by(threads) {
                            step(i);
                        }
                    });
                }
            });
        };
        each(&|i| links.set_parent(i, initial_parent(i, fg, nbs.len(), nb_of(i))));
        each(&|i| link(&links, i, fg, nbs.len(), nb_of(i)));
        each(&|i| {
            if fg(i) {
                links.set_parent(i, find(&links, i));
            }
        });
        // Ranks of the roots, then each element's root's rank.
        let mut rank = vec![0u64; mask.len()];
        let mut count = 0;
        for i in 0..mask.len() as u64 {
            if fg(i) && links.parent(i) == i {
                count += 1;
            }
            rank[i as usize] = count;
        }
        (0..mask.len() as u64)
            .map(|i| {
                if fg(i) {
                    rank[links.parent(i) as usize]
                } else {
                    0
                }
            })
            .collect()
    }

    fn check(shape: &[usize], density: u64, structure: &[bool], seed: u64) {
        let mut r = Lcg(seed);
        let n: usize = shape.iter().product();
        let mask: Vec<bool> = (0..n).map(|_| r.below(1000) < density).collect();
        let want = bfs_labels(&mask, shape, structure);
        let forward: Vec<u64> = (0..n as u64).collect();
        let backward: Vec<u64> = forward.iter().rev().copied().collect();
        let mut shuffled = forward.clone();
        for k in (1..n).rev() {
            shuffled.swap(k, r.below(k as u64 + 1) as usize);
        }
        for (order, threads) in [
            (&forward, 1),
            (&backward, 1),
            (&shuffled, 1),
            (&shuffled, 4),
        ] {
            let got = uf_labels(&mask, shape, structure, order, threads);
            assert_eq!(got, want, "{shape:?} density {density} threads {threads}");
        }
    }

    fn full(nd: usize) -> Vec<bool> {
        vec![true; 3usize.pow(nd as u32)]
    }

    fn cross(nd: usize) -> Vec<bool> {
        steps(nd)
            .iter()
            .map(|s| s.iter().map(|x| x.abs()).sum::<i64>() <= 1)
            .collect()
    }

    #[test]
    fn labels_are_breadth_first_labels_in_first_element_order() {
        // Densities around the percolation thresholds (0.59 for the 2-d cross, 0.41 for
        // the 2-d full structure, 0.31 for the 3-d cross): long snaking components.
        for (shape, seed) in [
            (&[1usize][..], 1),
            (&[37][..], 2),
            (&[23, 41][..], 3),
            (&[9, 13, 11][..], 4),
            (&[3, 4, 2, 5][..], 5),
        ] {
            let nd = shape.len();
            for density in [0, 150, 310, 410, 500, 593, 800, 1000] {
                check(shape, density, &cross(nd), seed + density);
                check(shape, density, &full(nd), seed + density);
            }
        }
        // A custom symmetric structure: the 2-d diagonals only, and a 3-d one.
        let diag = [true, false, true, false, true, false, true, false, true];
        check(&[31, 29], 550, &diag, 9);
        let mut s3 = cross(3);
        s3[0] = true; // (-1,-1,-1) and its mirror (1,1,1)
        s3[26] = true;
        check(&[8, 9, 10], 400, &s3, 10);
    }
}
