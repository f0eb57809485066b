//! The recursion itself: SciPy's direct form II transposed, for one section of order
//! `K` (`lfilter`) or a cascade of `S` second-order sections (`sosfilt`), as one step
//! per sample over a state held in registers.
//!
//! A section of order `K` with `a[0] = 1` (the host normalizes) has `K` states `z` and
//! maps a sample `x` to
//!
//! ```text
//! y      = b[0] x + z[0]
//! z[i]  <- b[i+1] x - a[i+1] y + z[i+1]      (i < K - 1)
//! z[K-1] <- b[K] x - a[K] y
//! ```
//!
//! which is `scipy.signal.lfilter`'s `filt`, and `_sosfilt` for `K = 2`, section after
//! section (each section's output is the next one's input). A launch's coefficients
//! travel by value in its launch struct ([`Coefs`]), read from the kernel's parameter
//! space with constant offsets, so they cost no registers and no loads.

use super::sample::Sample;
use crate::dtype::c128;

/// Coefficient slots of a launch: `S` sections of order `K` take `S * (2K + 1)`, at most
/// 40 for the shapes the kernels are stamped for (8 sections of order 2).
pub const COEF_SLOTS: usize = 40;
/// The most states a register kernel holds (`S * K`).
pub const MAX_STATES: usize = 16;

/// A launch's coefficients: section `s` starts at slot `s * (2K + 1)` with `b[0..=K]`,
/// then `-a[1..=K]` (negated, so each state update is two FMAs).
pub type Coefs<T> = [T; COEF_SLOTS];

/// A state vector (`S * K` of the slots used, section-major: state `i` of section `s`
/// is slot `s * K + i`).
pub type States<T> = [T; MAX_STATES];

/// `for $i in 0..$n { $body }` written out with constant indices (`$n` at most 16), so
/// every index into a register array is a constant after the dead branches fold away:
/// a loop the compiler left rolled would move the array to local memory.
macro_rules! each {
    ($i:ident in 0..$n:expr => $body:block) => {
        each!(@ $i, $n, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (@ $i:ident, $n:expr, $body:block; $($k:literal)*) => {{
        $(
            if $k < $n {
                let $i: usize = $k;
                $body
            }
        )*
    }};
}
#[allow(unused_imports)] // used by the GPU engine only
pub(crate) use each;

/// One sample `x` through the first `nsec` sections (at most `S`) of a cascade of
/// sections of order `K`, updating the states `z`; returns the last section's output.
#[inline(always)]
pub fn step<T: Sample, const S: usize, const K: usize>(
    c: &Coefs<T>,
    nsec: usize,
    z: &mut States<T>,
    x: T,
) -> T {
    let mut v = x;
    each!(s in 0..S => {
        if s < nsec {
            let (base, at) = (s * (2 * K + 1), s * K);
            let y = c[base].mul_add(v, z[at]);
            each!(i in 0..K => {
                let next = if i + 1 < K { z[at + i + 1] } else { T::ZERO };
                let fed_back = c[base + K + 1 + i].mul_add(y, next);
                z[at + i] = c[base + 1 + i].mul_add(v, fed_back);
            });
            v = y;
        }
    });
    v
}

/// `add + m v` for a `D x D` matrix (`D = S * K`, row-major, element `i * D + j` given by
/// `m`) and state vectors: the chunk algebra's one operation.
#[inline(always)]
pub fn mat_vec<T: Sample, const S: usize, const K: usize>(
    m: impl Fn(usize) -> T,
    v: &States<T>,
    add: &States<T>,
) -> States<T> {
    let d = S * K;
    let mut out = *add;
    each!(i in 0..S * K => {
        each!(j in 0..S * K => {
            out[i] = m(i * d + j).mul_add(v[j], out[i]);
        });
    });
    out
}

/// The coefficient slots of `sections` (each `(b, a)` with `a[0] = 1`, both of length
/// `order + 1` at most `K + 1`; shorter ones are padded with zeros, which leave the extra
/// states at zero) for a launch of `S` sections of order `K`, rounded to `T`. `None`
/// when they do not fit.
pub fn pack<T: Sample>(
    sections: &[(&[c128], &[c128])],
    s_cap: usize,
    k: usize,
) -> Option<Coefs<T>> {
    if sections.len() > s_cap || s_cap * (2 * k + 1) > COEF_SLOTS {
        return None;
    }
    let mut c = [T::ZERO; COEF_SLOTS];
    for (s, (b, a)) in sections.iter().enumerate() {
        if b.len() > k + 1 || a.len() > k + 1 {
            return None;
        }
        let base = s * (2 * k + 1);
        for (i, &bi) in b.iter().enumerate() {
            c[base + i] = T::from_c128(bi);
        }
        for (i, &ai) in a.iter().enumerate().skip(1) {
            c[base + k + i] = T::from_c128(c128::new(-ai.re, -ai.im));
        }
    }
    Some(c)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dtype::c64;

    /// A small deterministic generator (the tests need no crate for random numbers).
    pub struct Lcg(pub u64);
    impl Lcg {
        pub fn uniform(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
        pub fn complex(&mut self) -> c128 {
            c128::new(self.uniform(), self.uniform())
        }
    }

    fn cmul(a: c128, b: c128) -> c128 {
        c128::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
    }
    fn csub(a: c128, b: c128) -> c128 {
        c128::new(a.re - b.re, a.im - b.im)
    }
    fn cadd(a: c128, b: c128) -> c128 {
        c128::new(a.re + b.re, a.im + b.im)
    }

    /// The difference equation `y[n] = sum b[k] x[n-k] - sum_{k>=1} a[k] y[n-k]` from rest,
    /// evaluated directly in double precision: the reference of the state recursion.
    pub fn direct(b: &[c128], a: &[c128], x: &[c128]) -> Vec<c128> {
        let mut y: Vec<c128> = Vec::with_capacity(x.len());
        for n in 0..x.len() {
            let mut acc = c128::new(0.0, 0.0);
            for (k, &bk) in b.iter().enumerate().take(n + 1) {
                acc = cadd(acc, cmul(bk, x[n - k]));
            }
            for (k, &ak) in a.iter().enumerate().take(n + 1).skip(1) {
                acc = csub(acc, cmul(ak, y[n - k]));
            }
            y.push(acc);
        }
        y
    }

    /// A stable random section of order `k`: poles inside radius 0.9 (the polynomial of
    /// random roots), random numerator.
    pub fn stable_section(rng: &mut Lcg, k: usize, complex: bool) -> (Vec<c128>, Vec<c128>) {
        let mut a = vec![c128::new(1.0, 0.0)];
        let mut i = 0;
        while i < k {
            let r = 0.9 * rng.uniform().abs();
            let t = std::f64::consts::PI * rng.uniform();
            if complex || i + 1 == k {
                // One root (real, unless the filter is complex).
                let p = if complex {
                    c128::new(r * t.cos(), r * t.sin())
                } else {
                    c128::new(r * t.signum(), 0.0)
                };
                a.push(c128::new(0.0, 0.0));
                for j in (1..a.len()).rev() {
                    a[j] = csub(a[j], cmul(p, a[j - 1]));
                }
                i += 1;
            } else {
                // A conjugate pair: z^2 - 2 r cos t z + r^2.
                let (c1, c2) = (-2.0 * r * t.cos(), r * r);
                a.extend([c128::new(0.0, 0.0); 2]);
                for j in (1..a.len()).rev() {
                    let mut v = cadd(a[j], cmul(c128::new(c1, 0.0), a[j - 1]));
                    if j >= 2 {
                        v = cadd(v, cmul(c128::new(c2, 0.0), a[j - 2]));
                    }
                    a[j] = v;
                }
                i += 2;
            }
        }
        let b = (0..=k)
            .map(|_| {
                if complex {
                    rng.complex()
                } else {
                    c128::new(rng.uniform(), 0.0)
                }
            })
            .collect();
        (b, a)
    }

    /// Runs a cascade of `S` sections of order `K` over `x` from rest, in `T`.
    fn run<T: Sample, const S: usize, const K: usize>(
        sections: &[(Vec<c128>, Vec<c128>)],
        x: &[c128],
    ) -> Vec<c128> {
        let refs: Vec<(&[c128], &[c128])> =
            sections.iter().map(|(b, a)| (&b[..], &a[..])).collect();
        let c = pack::<T>(&refs, S, K).unwrap();
        let mut z = [T::ZERO; MAX_STATES];
        x.iter()
            .map(|&v| step::<T, S, K>(&c, sections.len(), &mut z, T::from_c128(v)).to_c128())
            .collect()
    }

    fn worst(got: &[c128], want: &[c128]) -> f64 {
        got.iter()
            .zip(want)
            .map(|(g, w)| (g.re - w.re).hypot(g.im - w.im))
            .fold(0.0, f64::max)
    }

    #[test]
    fn one_section_of_every_order_is_the_difference_equation() {
        let mut rng = Lcg(7);
        for complex in [false, true] {
            for k in 1..=16 {
                let (b, a) = stable_section(&mut rng, k, complex);
                let x: Vec<c128> = (0..300)
                    .map(|_| {
                        if complex {
                            rng.complex()
                        } else {
                            c128::new(rng.uniform(), 0.0)
                        }
                    })
                    .collect();
                let want = direct(&b, &a, &x);
                let sec = vec![(b, a)];
                // Every order runs in the smallest tier that holds it, padded with zeros.
                let got = match k {
                    1..=2 => run::<c128, 1, 2>(&sec, &x),
                    3..=4 => run::<c128, 1, 4>(&sec, &x),
                    5..=8 => run::<c128, 1, 8>(&sec, &x),
                    _ => run::<c128, 1, 16>(&sec, &x),
                };
                let scale = want.iter().map(|w| w.re.hypot(w.im)).fold(1.0, f64::max);
                assert!(
                    worst(&got, &want) <= 1e-11 * scale,
                    "order {k} complex={complex}"
                );
                if !complex {
                    let got = match k {
                        1..=2 => run::<f64, 1, 2>(&sec, &x),
                        3..=4 => run::<f64, 1, 4>(&sec, &x),
                        5..=8 => run::<f64, 1, 8>(&sec, &x),
                        _ => run::<f64, 1, 16>(&sec, &x),
                    };
                    assert!(worst(&got, &want) <= 1e-11 * scale, "order {k} f64");
                    if k <= 8 {
                        let got = run::<f32, 1, 8>(&sec, &x);
                        assert!(worst(&got, &want) <= 1e-3 * scale, "order {k} f32");
                    }
                }
            }
        }
    }

    #[test]
    fn a_cascade_is_its_sections_in_turn() {
        let mut rng = Lcg(11);
        for complex in [false, true] {
            let sections: Vec<_> = (0..8)
                .map(|_| stable_section(&mut rng, 2, complex))
                .collect();
            let x: Vec<c128> = (0..200).map(|_| rng.complex()).collect();
            let x: Vec<c128> = if complex {
                x
            } else {
                x.iter().map(|v| c128::new(v.re, 0.0)).collect()
            };
            for n in 1..=8 {
                let mut want = x.clone();
                for (b, a) in &sections[..n] {
                    want = direct(b, a, &want);
                }
                let got = match n {
                    1 => run::<c128, 1, 2>(&sections[..1], &x),
                    2 => run::<c128, 2, 2>(&sections[..2], &x),
                    3..=4 => run::<c128, 4, 2>(&sections[..n], &x),
                    _ => run::<c128, 8, 2>(&sections[..n], &x),
                };
                let scale = want.iter().map(|w| w.re.hypot(w.im)).fold(1.0, f64::max);
                assert!(worst(&got, &want) <= 1e-11 * scale, "{n} sections");
                if n <= 4 {
                    let got = run::<c64, 4, 2>(&sections[..n], &x);
                    assert!(
                        worst(&got, &want) <= 1e-4 * scale,
                        "{n} sections, complex64"
                    );
                }
            }
        }
    }

    #[test]
    fn packing_refuses_what_does_not_fit() {
        let one: &[c128] = &[c128::new(1.0, 0.0)];
        let three: &[c128] = &[c128::new(1.0, 0.0); 3];
        assert!(pack::<f64>(&[(three, three)], 1, 2).is_some());
        assert!(pack::<f64>(&[(three, three)], 1, 1).is_none());
        assert!(pack::<f64>(&[(one, one); 9], 8, 2).is_none());
        assert!(pack::<f64>(&[(one, one)], 1, 32).is_none());
        let c = pack::<f64>(
            &[(
                &[c128::new(2.0, 0.0)],
                &[c128::new(1.0, 0.0), c128::new(0.5, 0.0)],
            )],
            1,
            2,
        )
        .unwrap();
        assert_eq!(&c[..5], &[2.0, 0.0, 0.0, -0.5, 0.0]);
    }
}
