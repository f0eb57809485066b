//! The exact Euclidean feature transform (SciPy's `distance_transform_edt`): for every
//! element, the coordinates of the nearest background (zero) element, and its distance.
//!
//! SciPy's algorithm (Maurer, Qi and Raghavan 2003, `_VoronoiFT` in SciPy's
//! `ni_morphology.c`), pass by pass and in the same floating-point operations, so the
//! features are SciPy's bit for bit, ties included: pass `d` (axes in C order, 0 first)
//! walks every line along axis `d`, whose elements hold the nearest feature found by
//! the passes before (a site) or none. [`voronoi_line`] keeps a stack of the sites
//! whose parabolas `dist^2(., site)` form the lower envelope along the line, then
//! sweeps the line assigning each position the envelope's site there, the earlier one
//! on a tie. Pass 0 reads the input itself: a background element is its own feature.
//!
//! A GPU thread runs one line; its stack lives in global scratch (a slot per position
//! of the line). Features are `i32` coordinates, `R` per element (`R` the rank, a
//! constant of each kernel, so every per-axis array stays in registers).

/// A line's stack of sites (positions along the line).
pub trait Stack {
    fn get(&self, l: usize) -> u32;
    fn set(&mut self, l: usize, site: u32);
}

/// `((f - c) * s)^2` as SciPy computes it: the difference in integers, then doubles.
#[inline(always)]
fn term(f: i32, c: i64, s: f64) -> f64 {
    let t = (f as i64 - c) as f64 * s;
    t * t
}

/// `a[d]` without indexing by a run-time value (which would send the array to local
/// memory on the GPU): a select per entry, all in registers.
#[inline(always)]
fn pick<T: Copy, const R: usize>(a: &[T; R], d: usize) -> T {
    let mut v = a[0];
    for (jj, &x) in a.iter().enumerate() {
        if jj == d {
            v = x;
        }
    }
    v
}

/// A site's squared distance to the line over the other axes: `sum_{jj != d}
/// ((f[jj] - coor[jj]) s[jj])^2`, in axis order (SciPy's `wR`, `uR`, `vR`).
#[inline(always)]
fn off_line<const R: usize>(f: &[i32; R], d: usize, coor: &[i64; R], s: &[f64; R]) -> f64 {
    let mut r = 0.0;
    for jj in 0..R {
        if jj != d {
            r += term(f[jj], coor[jj], s[jj]);
        }
    }
    r
}

/// A site's squared distance to position `ii` of the line, in axis order (SciPy's
/// `delta`).
#[inline(always)]
fn to_position<const R: usize>(
    f: &[i32; R],
    d: usize,
    ii: usize,
    coor: &[i64; R],
    s: &[f64; R],
) -> f64 {
    let mut r = 0.0;
    for jj in 0..R {
        let c = if jj == d { ii as i64 } else { coor[jj] };
        r += term(f[jj], c, s[jj]);
    }
    r
}

/// One line of pass `d`: `len` positions; `coor` the line's coordinates along the other
/// axes (entry `d` unused); `s` the sampling per axis (1.0 where SciPy has none: a
/// product by 1.0 is exact). `site(ii)` is position `ii`'s feature, or None;
/// `write(ii, f)` stores position `ii`'s new feature. Returns false (and writes nothing)
/// when the line has no site, where SciPy leaves the line as it was.
#[inline(always)]
pub fn voronoi_line<const R: usize, S: Stack>(
    len: usize,
    d: usize,
    coor: &[i64; R],
    s: &[f64; R],
    site: impl Fn(usize) -> Option<[i32; R]>,
    stack: &mut S,
    mut write: impl FnMut(usize, &[i32; R]),
) -> bool {
    // The envelope: `l + 1` sites on the stack. The top two are kept in registers as
    // (position along d, off-line distance): `top` is g[l], `below` g[l - 1].
    let mut l: isize = -1;
    let (mut top, mut below) = ((0.0f64, 0.0f64), (0.0f64, 0.0f64));
    let sd = pick(s, d);
    // Each position's site is read one step ahead, so its loads overlap the work on the
    // one before (a GPU thread walks its line alone; nothing else hides the latency).
    let mut ahead = if len > 0 { site(0) } else { None };
    for ii in 0..len {
        let here = ahead;
        if ii + 1 < len {
            ahead = site(ii + 1);
        }
        let Some(f) = here else { continue };
        let fd = pick(&f, d) as f64;
        let w = off_line(&f, d, coor, s);
        while l >= 1 {
            let (f1, v) = top;
            let (f2, u) = below;
            let a = (f1 - f2) * sd;
            let b = (fd - f1) * sd;
            let c = a + b;
            // SciPy's test, operation for operation: drop the top when the new site and
            // the one below it hide its parabola everywhere.
            if c * v - b * u - a * w - a * b * c <= 0.0 {
                break;
            }
            l -= 1;
            top = below;
            if l >= 1 {
                let g = stack.get(l as usize - 1) as usize;
                // The stack only holds sites.
                let fb = site(g).unwrap_or([0; R]);
                below = (pick(&fb, d) as f64, off_line(&fb, d, coor, s));
            }
        }
        l += 1;
        stack.set(l as usize, ii as u32);
        below = top;
        top = (fd, w);
    }
    if l < 0 {
        return false;
    }
    let last = l as usize;
    let feature = |l: usize| site(stack.get(l) as usize).unwrap_or([0; R]);
    let mut k = 0usize;
    let mut cur = feature(0);
    let mut next = if last > 0 { feature(1) } else { cur };
    for ii in 0..len {
        let mut delta1 = to_position(&cur, d, ii, coor, s);
        while k < last {
            let delta2 = to_position(&next, d, ii, coor, s);
            if delta1 <= delta2 {
                break;
            }
            delta1 = delta2;
            k += 1;
            cur = next;
            if k < last {
                next = feature(k + 1);
            }
        }
        write(ii, &cur);
    }
    true
}

/// Line `line` along axis `d` of a C-contiguous grid of `shape` (C order; its first `R`
/// entries are the grid's), the lines numbered in C order of the other axes: its
/// coordinates along those axes (entry `d` is 0), the element index of its first
/// position, and the element step along it. Neighbouring lines are neighbouring elements
/// unless `d` is the last axis, so a warp's loads coalesce.
#[inline(always)]
pub fn line_of<const R: usize>(shape: &[u64], d: usize, line: u64) -> ([i64; R], u64, u64) {
    let mut coor = [0i64; R];
    let (mut rem, mut base, mut step, mut along) = (line, 0u64, 1u64, 1u64);
    for k in (0..R).rev() {
        if k == d {
            along = step;
        } else {
            coor[k] = (rem % shape[k]) as i64;
            rem /= shape[k];
            base += coor[k] as u64 * step;
        }
        step *= shape[k];
    }
    (coor, base, along)
}

/// The squared distance SciPy computes from a feature `f` of the element at `c`:
/// `sum_jj ((f[jj] - c[jj]) s[jj])^2`, the difference in int32 (it wraps as NumPy's
/// does), the sum in axis order starting from the first term (`np.add.reduce`).
#[inline(always)]
pub fn squared_distance<const R: usize>(f: &[i32; R], c: &[i64; R], s: &[f64; R]) -> f64 {
    let mut r = 0.0;
    for jj in 0..R {
        let t = f[jj].wrapping_sub(c[jj] as i32) as f64 * s[jj];
        r = if jj == 0 { t * t } else { r + t * t };
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Slots(Vec<u32>);
    impl Stack for Slots {
        fn get(&self, l: usize) -> u32 {
            self.0[l]
        }
        fn set(&mut self, l: usize, v: u32) {
            self.0[l] = v;
        }
    }

    /// SciPy's `_ComputeFT` over a C-contiguous `shape`: pass `d` along each axis in
    /// turn, features stored as `ft[jj * n + p]`, a line without sites left as it was.
    fn feature_transform<const R: usize>(
        mask: &[bool],
        shape: &[usize; R],
        s: &[f64; R],
    ) -> Vec<i32> {
        let n = mask.len();
        let extents: Vec<u64> = shape.iter().map(|&e| e as u64).collect();
        let mut ft = vec![0i32; R * n];
        let mut lines_seen = vec![false; n];
        for (d, &len) in shape.iter().enumerate() {
            let src = ft.clone();
            for line in 0..n / len {
                let (coor, base, along) = line_of::<R>(&extents, d, line as u64);
                let at = |ii: usize| base as usize + ii * along as usize;
                // Every element lies on exactly one line of each pass.
                for ii in 0..len {
                    assert!(!std::mem::replace(&mut lines_seen[at(ii)], true));
                }
                let site = |ii: usize| -> Option<[i32; R]> {
                    let p = at(ii);
                    if d == 0 {
                        (!mask[p]).then(|| {
                            let mut f = [0i32; R];
                            for k in 0..R {
                                f[k] = if k == 0 { ii as i32 } else { coor[k] as i32 };
                            }
                            f
                        })
                    } else {
                        (src[p] >= 0).then(|| std::array::from_fn(|k| src[k * n + p]))
                    }
                };
                let mut stack = Slots(vec![0; len]);
                let any = voronoi_line(len, d, &coor, s, site, &mut stack, |ii, f| {
                    for k in 0..R {
                        ft[k * n + at(ii)] = f[k];
                    }
                });
                if !any && d == 0 {
                    for ii in 0..len {
                        ft[at(ii)] = -1;
                    }
                }
            }
            assert!(lines_seen.iter().all(|&s| s));
            lines_seen.fill(false);
        }
        ft
    }

    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// Every element's feature is a background element at the least distance (checked
    /// against all of them), and the distance SciPy computes from it is that one.
    fn check<const R: usize>(shape: [usize; R], density: u64, s: [f64; R], seed: u64) {
        let mut r = Lcg(seed);
        let n: usize = shape.iter().product();
        let mask: Vec<bool> = (0..n).map(|_| r.below(1000) >= density).collect();
        let coords = |p: usize| -> [i64; R] {
            let mut c = [0i64; R];
            let mut rem = p;
            for k in (0..R).rev() {
                c[k] = (rem % shape[k]) as i64;
                rem /= shape[k];
            }
            c
        };
        let background: Vec<[i64; R]> = (0..n).filter(|&p| !mask[p]).map(coords).collect();
        let ft = feature_transform(&mask, &shape, &s);
        for p in 0..n {
            let f: [i32; R] = std::array::from_fn(|k| ft[k * n + p]);
            if background.is_empty() {
                assert_eq!(f[0], -1);
                continue;
            }
            let c = coords(p);
            let exact = |b: &[i64; R]| -> f64 {
                (0..R)
                    .map(|k| ((b[k] - c[k]) as f64 * s[k]).powi(2))
                    .sum::<f64>()
            };
            let best = background.iter().map(exact).fold(f64::INFINITY, f64::min);
            let fc: [i64; R] = std::array::from_fn(|k| f[k] as i64);
            assert!(
                !mask[fc
                    .iter()
                    .zip(shape.iter())
                    .fold(0usize, |acc, (&x, &e)| acc * e + x as usize)]
            );
            let got = squared_distance(&f, &c, &s);
            assert!(
                (got - best).abs() <= 1e-12 * best.max(1.0),
                "{shape:?} at {c:?}: {got} vs {best}"
            );
        }
    }

    #[test]
    fn features_are_nearest_background_elements() {
        for (density, seed) in [(0, 1), (300, 2), (900, 3), (990, 4), (1000, 5)] {
            check([29], density, [1.0], seed);
            check([17, 23], density, [1.0, 1.0], seed);
            check([7, 9, 8], density, [1.0, 1.0, 1.0], seed);
            check([3, 4, 5, 3], density, [1.0; 4], seed);
            check([19, 21], density, [0.5, 2.0], seed);
            check([6, 7, 5], density, [1.25, 0.75, 3.0], seed);
        }
    }

    #[test]
    fn ties_go_to_the_earlier_site_as_in_scipy() {
        // Background at both ends of a line: the middle is equidistant and SciPy keeps
        // the first site; a plus sign of four background elements around a centre: all
        // four are at distance 1, and SciPy's passes keep (1, 0).
        let ft = feature_transform(&[false, true, true, true, false], &[5], &[1.0]);
        assert_eq!(ft, [0, 0, 0, 4, 4]);
        let mut mask = vec![true; 9];
        for p in [1, 3, 5, 7] {
            mask[p] = false;
        }
        let ft = feature_transform(&mask, &[3, 3], &[1.0, 1.0]);
        // scipy.ndimage.distance_transform_edt(m, return_indices=True)[1][:, 1, 1]
        assert_eq!((ft[4], ft[9 + 4]), (1, 0));
    }
}
