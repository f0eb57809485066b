//! Extremes by label (SciPy's `minimum`, `maximum`, `minimum_position`,
//! `maximum_position`, `extrema` with an index array): per slot (a label's position in
//! the index, mapped by the Python layer), the smallest and largest value and the first
//! element (C order) holding each.
//!
//! Values compare by order-preserving 64-bit keys ([`Key`]), so the GPU finds extremes
//! with integer atomics: integers exactly, floats by their bits, with NaN above every
//! number (SciPy's order there: it sorts, NaN last, and takes the first value of a label
//! as its minimum and the last as its maximum) and -0.0 equal to 0.0. Two passes: the
//! keys ([`keys_of_run`]), then the first position of each slot's extreme keys
//! ([`firsts_of_run`]). SciPy's own tie order is its sort's (unstable); the first
//! position is what its scalar-index path returns.
//!
//! A thread takes a run of consecutive elements and updates a slot once per stretch of
//! equal slots, so a large label costs few atomics.

/// An order-preserving key: `a < b` exactly when `a.key() < b.key()` (NaN the largest).
pub trait Key: Copy {
    fn key(self) -> u64;
}

impl Key for i64 {
    #[inline(always)]
    fn key(self) -> u64 {
        (self as u64) ^ (1 << 63)
    }
}

impl Key for u64 {
    #[inline(always)]
    fn key(self) -> u64 {
        self
    }
}

/// Floats: NaN is `u64::MAX`; -0.0 is 0.0; else flip every bit of a negative value and
/// only the sign bit of a positive one.
impl Key for f64 {
    #[inline(always)]
    #[allow(clippy::eq_op)]
    fn key(self) -> u64 {
        if self != self {
            return u64::MAX;
        }
        let b = (self + 0.0).to_bits(); // -0.0 + 0.0 is 0.0
        if b >> 63 != 0 { !b } else { b | 1 << 63 }
    }
}

/// A slot of element `i`'s label: `slot(i)` in `0..slots`, else the element is ignored.
#[inline(always)]
fn slot_in(s: i64, slots: u64) -> Option<u64> {
    (s >= 0 && (s as u64) < slots).then_some(s as u64)
}

/// Pass 1 over elements `first..end`: `lower(2 s, k)` and `raise(2 s + 1, k)` with the
/// smallest and largest key of each stretch of elements of slot `s`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn keys_of_run<V: Key>(
    first: u64,
    end: u64,
    value: impl Fn(u64) -> V,
    slot: impl Fn(u64) -> i64,
    slots: u64,
    lower: impl Fn(u64, u64),
    raise: impl Fn(u64, u64),
) {
    let mut i = first;
    while i < end {
        let s = slot(i);
        let k = value(i).key();
        let (mut lo, mut hi) = (k, k);
        let mut j = i + 1;
        while j < end && slot(j) == s {
            let k = value(j).key();
            lo = lo.min(k);
            hi = hi.max(k);
            j += 1;
        }
        if let Some(s) = slot_in(s, slots) {
            lower(2 * s, lo);
            raise(2 * s + 1, hi);
        }
        i = j;
    }
}

/// Pass 2 over elements `first..end`, with `keys` the result of pass 1:
/// `lower(2 s, i)` with the first element of each stretch of slot `s` holding the
/// slot's smallest key, `lower(2 s + 1, i)` with the first holding its largest.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn firsts_of_run<V: Key>(
    first: u64,
    end: u64,
    value: impl Fn(u64) -> V,
    slot: impl Fn(u64) -> i64,
    slots: u64,
    keys: impl Fn(u64) -> u64,
    lower: impl Fn(u64, u64),
) {
    let mut i = first;
    while i < end {
        let s = slot(i);
        let mut j = i;
        match slot_in(s, slots) {
            None => {
                while j < end && slot(j) == s {
                    j += 1;
                }
            }
            Some(s) => {
                let (lo, hi) = (keys(2 * s), keys(2 * s + 1));
                let (mut at_lo, mut at_hi) = (u64::MAX, u64::MAX);
                while j < end && slot(j) == s as i64 {
                    let k = value(j).key();
                    if k == lo && at_lo == u64::MAX {
                        at_lo = j;
                    }
                    if k == hi && at_hi == u64::MAX {
                        at_hi = j;
                    }
                    j += 1;
                }
                if at_lo != u64::MAX {
                    lower(2 * s, at_lo);
                }
                if at_hi != u64::MAX {
                    lower(2 * s + 1, at_hi);
                }
            }
        }
        i = j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn keys_keep_the_order() {
        let fs = [
            f64::NEG_INFINITY,
            -3.5,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in fs {
            for b in fs {
                let want = match (a.is_nan(), b.is_nan()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    _ => a.partial_cmp(&b).unwrap(),
                };
                assert_eq!(a.key().cmp(&b.key()), want, "{a} {b}");
            }
        }
        let is = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for a in is {
            for b in is {
                assert_eq!(a.key().cmp(&b.key()), a.cmp(&b));
            }
        }
        assert!(u64::MAX.key() > 5u64.key());
    }

    #[test]
    fn runs_find_each_slots_extremes_and_first_positions() {
        // Values with ties and NaNs; slots in stretches, with ignored ones (-1, 9).
        let n = 200u64;
        let value = |i: u64| -> f64 {
            match i % 23 {
                5 => f64::NAN,
                7 | 8 => -0.0,
                9 => 0.0,
                k => ((k * 7 + i / 31) % 11) as f64 - 5.0,
            }
        };
        let slot = |i: u64| -> i64 { [0, 0, 1, 2, 2, 2, -1, 3, 9, 1][(i / 3 % 10) as usize] };
        let slots = 4u64;
        let mut want_keys = vec![(u64::MAX, 0u64); slots as usize];
        for i in 0..n {
            if let Some(s) = slot_in(slot(i), slots) {
                let w = &mut want_keys[s as usize];
                w.0 = w.0.min(value(i).key());
                w.1 = w.1.max(value(i).key());
            }
        }
        let mut want_pos = vec![(u64::MAX, u64::MAX); slots as usize];
        for i in (0..n).rev() {
            if let Some(s) = slot_in(slot(i), slots) {
                let k = value(i).key();
                if k == want_keys[s as usize].0 {
                    want_pos[s as usize].0 = i;
                }
                if k == want_keys[s as usize].1 {
                    want_pos[s as usize].1 = i;
                }
            }
        }
        for run in [1u64, 2, 5, 16, 64, 1000] {
            let keys = RefCell::new(
                (0..2 * slots)
                    .map(|k| if k % 2 == 0 { u64::MAX } else { 0 })
                    .collect::<Vec<u64>>(),
            );
            let pos = RefCell::new(vec![u64::MAX; 2 * slots as usize]);
            let lower = |v: &RefCell<Vec<u64>>, k: u64, x: u64| {
                let g = &mut v.borrow_mut()[k as usize];
                *g = (*g).min(x);
            };
            for s in (0..n).step_by(run as usize) {
                keys_of_run(
                    s,
                    (s + run).min(n),
                    value,
                    slot,
                    slots,
                    |k, x| lower(&keys, k, x),
                    |k, x| {
                        let g = &mut keys.borrow_mut()[k as usize];
                        *g = (*g).max(x);
                    },
                );
            }
            let keys = keys.into_inner();
            let got: Vec<(u64, u64)> = (0..slots as usize)
                .map(|s| (keys[2 * s], keys[2 * s + 1]))
                .collect();
            assert_eq!(got, want_keys, "run {run}");
            for s in (0..n).step_by(run as usize) {
                firsts_of_run(
                    s,
                    (s + run).min(n),
                    value,
                    slot,
                    slots,
                    |k| keys[k as usize],
                    |k, x| lower(&pos, k, x),
                );
            }
            let pos = pos.into_inner();
            let got: Vec<(u64, u64)> = (0..slots as usize)
                .map(|s| (pos[2 * s], pos[2 * s + 1]))
                .collect();
            assert_eq!(got, want_pos, "run {run}");
        }
    }
}
