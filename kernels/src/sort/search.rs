//! `searchsorted`: one thread per query value binary-searches a sorted array, comparing
//! sort keys (`sort::SortKey`), so NaNs, signed zeros and complex numbers order exactly
//! as NumPy's sort orders them (and as `np.searchsorted` compares).

use crate::sort::radix::SortKey;

/// `side` of `gpupy_searchsorted_<dtype>`: the first position whose value is >= the
/// query (`LEFT`) or > it (`RIGHT`).
pub const LEFT: u32 = 0;
pub const RIGHT: u32 = 1;

/// Where `v` goes in `sorted` (ascending by key), keeping the order: the number of
/// elements `< v` (left) or `<= v` (right). `at(i)` reads element `i`.
#[inline(always)]
pub fn insertion_point<T: SortKey>(n: u64, at: impl Fn(u64) -> T, v: T, side: u32) -> u64 {
    let key = v.key();
    let (mut lo, mut hi) = (0u64, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let k = at(mid).key();
        let go_right = if side == RIGHT { k <= key } else { k < key };
        if go_right {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_numpy_insertion_points() {
        let a = [-1.0f64, 0.0, 0.0, 2.0, f64::INFINITY, f64::NAN, f64::NAN];
        let at = |i: u64| a[i as usize];
        let n = a.len() as u64;
        assert_eq!(insertion_point(n, at, 0.0, LEFT), 1);
        assert_eq!(insertion_point(n, at, -0.0, RIGHT), 3);
        assert_eq!(insertion_point(n, at, f64::NAN, LEFT), 5);
        assert_eq!(insertion_point(n, at, f64::NAN, RIGHT), 7);
        assert_eq!(insertion_point(n, at, -5.0, LEFT), 0);
        assert_eq!(insertion_point(0, at, 1.0, RIGHT), 0);
        let b = [1u8, 3, 3, 3, 9];
        let at = |i: u64| b[i as usize];
        assert_eq!(insertion_point(5, at, 3, LEFT), 1);
        assert_eq!(insertion_point(5, at, 3, RIGHT), 4);
        assert_eq!(insertion_point(5, at, 200, RIGHT), 5);
    }
}
