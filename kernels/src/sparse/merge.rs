//! Elementwise operations of two sparse matrices of one shape (`A + B`, `A - B`,
//! `A.multiply(B)`, `A / B`, `maximum`, `minimum` and the comparisons `!=`, `<`, `>`) by
//! a merge of each row's two sorted column lists, as SciPy's `csr_binop_csr` for
//! canonical operands: a column in one row only meets an implicit zero, and a result
//! that is zero is not stored. The GPU runs it in two passes, a thread per row: count
//! each result row, then (after the host scans the counts into `indptr`) write it.

use super::value::Value;

/// The ops, by launch code (`Merge2::op`).
pub const OP_ADD: u32 = 0;
pub const OP_SUB: u32 = 1;
pub const OP_MUL: u32 = 2;
pub const OP_DIV: u32 = 3;
pub const OP_MAX: u32 = 4;
pub const OP_MIN: u32 = 5;
/// Comparisons store 1 where they hold (the host makes the result boolean).
pub const OP_NE: u32 = 6;
pub const OP_LT: u32 = 7;
pub const OP_GT: u32 = 8;

/// Division, as NumPy divides (Smith's algorithm for complex numbers).
pub trait Divide: Value {
    fn div(self, o: Self) -> Self;
}
impl Divide for f32 {
    #[inline(always)]
    fn div(self, o: f32) -> f32 {
        self / o
    }
}
impl Divide for f64 {
    #[inline(always)]
    fn div(self, o: f64) -> f64 {
        self / o
    }
}
macro_rules! complex_div {
    ($($c:ident $r:ident)*) => { $(
        impl Divide for crate::dtype::$c {
            /// Smith's algorithm (NumPy's): scale by the larger part of the divisor.
            #[inline(always)]
            fn div(self, o: Self) -> Self {
                let (a, b, c, d) = (self.re, self.im, o.re, o.im);
                let (abs_c, abs_d) = (if c < 0.0 { -c } else { c }, if d < 0.0 { -d } else { d });
                if abs_c >= abs_d {
                    if abs_c == 0.0 && abs_d == 0.0 {
                        // NumPy: a zero divisor gives the real division of each part.
                        return Self::new(a / abs_c, b / abs_d);
                    }
                    let rat = d / c;
                    let scl = 1.0 / (c + d * rat);
                    Self::new((a + b * rat) * scl, (b - a * rat) * scl)
                } else {
                    let rat = c / d;
                    let scl = 1.0 / (d + c * rat);
                    Self::new((a * rat + b) * scl, (b * rat - a) * scl)
                }
            }
        }
    )* };
}
complex_div!(c64 f32 c128 f64);

/// `op(a, b)`, NumPy's meaning (`maximum`/`minimum` propagate NaN).
#[inline(always)]
pub fn apply<V: Divide>(op: u32, a: V, b: V) -> V {
    let truth = |t: bool| if t { V::ONE } else { V::ZERO };
    match op {
        OP_ADD => a.add(b),
        OP_SUB => a.sub(b),
        OP_MUL => a.mul(b),
        OP_DIV => a.div(b),
        OP_MAX => {
            if a.nan() || (!b.nan() && !b.gt(a)) {
                a
            } else {
                b
            }
        }
        OP_MIN => {
            if a.nan() || (!b.nan() && !b.lt(a)) {
                a
            } else {
                b
            }
        }
        OP_NE => truth(a != b),
        OP_LT => truth(a.lt(b)),
        _ => truth(a.gt(b)),
    }
}

/// Merges row `a` (sorted, unique columns `ac` with values `av`) with row `b` under
/// `op`: `emit(col, value)` for every column of either row whose result is not zero, in
/// column order. Columns come through the accessors so the GPU reads them in place.
#[inline(always)]
pub fn merge_rows<V: Divide>(
    op: u32,
    (a_len, ac, av): (u64, impl Fn(u64) -> u64, impl Fn(u64) -> V),
    (b_len, bc, bv): (u64, impl Fn(u64) -> u64, impl Fn(u64) -> V),
    mut emit: impl FnMut(u64, V),
) {
    let (mut p, mut q) = (0, 0);
    while p < a_len || q < b_len {
        let ca = if p < a_len { ac(p) } else { u64::MAX };
        let cb = if q < b_len { bc(q) } else { u64::MAX };
        let (col, x, y) = if ca == cb {
            p += 1;
            q += 1;
            (ca, av(p - 1), bv(q - 1))
        } else if ca < cb {
            p += 1;
            (ca, av(p - 1), V::ZERO)
        } else {
            q += 1;
            (cb, V::ZERO, bv(q - 1))
        };
        let r = apply(op, x, y);
        if !r.is_zero() {
            emit(col, r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::c128;

    fn merged(op: u32, a: &[(u64, f64)], b: &[(u64, f64)]) -> Vec<(u64, f64)> {
        let mut out = Vec::new();
        merge_rows(
            op,
            (a.len() as u64, |p| a[p as usize].0, |p| a[p as usize].1),
            (b.len() as u64, |q| b[q as usize].0, |q| b[q as usize].1),
            |c, v| out.push((c, v)),
        );
        out
    }

    #[test]
    fn rows_merge_as_dense_rows_combine() {
        let a = [(0, 1.0), (2, -2.0), (5, 3.0), (7, 4.0)];
        let b = [(2, 2.0), (3, 5.0), (7, -1.0), (9, 1.0)];
        let dense = |r: &[(u64, f64)]| {
            let mut d = [0.0; 10];
            for &(c, v) in r {
                d[c as usize] = v;
            }
            d
        };
        let (da, db) = (dense(&a), dense(&b));
        for op in [OP_ADD, OP_SUB, OP_MUL, OP_MAX, OP_MIN, OP_NE, OP_LT, OP_GT] {
            let want: Vec<(u64, f64)> = (0..10u64)
                .filter_map(|c| {
                    let r = apply(op, da[c as usize], db[c as usize]);
                    // Only columns stored in either row are visited.
                    let stored = a.iter().chain(&b).any(|e| e.0 == c);
                    (stored && r != 0.0).then_some((c, r))
                })
                .collect();
            assert_eq!(merged(op, &a, &b), want, "op {op}");
        }
        assert_eq!(merged(OP_ADD, &a, &[]), a.to_vec());
        assert_eq!(merged(OP_SUB, &[], &b)[0], (2, -2.0));
    }

    #[test]
    fn ops_follow_numpy() {
        assert!(apply(OP_MAX, f64::NAN, 1.0).is_nan());
        assert!(apply(OP_MIN, 1.0, f64::NAN).is_nan());
        assert_eq!(apply(OP_NE, f64::NAN, f64::NAN), 1.0);
        assert_eq!(apply(OP_DIV, 1.0f64, 0.0), f64::INFINITY);
        let q = apply(OP_DIV, c128::new(1.0, 2.0), c128::new(3.0, -4.0));
        assert!((q.re - -0.2).abs() < 1e-15 && (q.im - 0.4).abs() < 1e-15);
        assert_eq!(
            apply(OP_SUB, c128::new(1.0, 2.0), c128::new(0.5, 3.0)),
            c128::new(0.5, -1.0)
        );
    }
}
