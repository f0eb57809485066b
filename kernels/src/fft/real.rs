//! The real transforms' twists around a half-length complex transform. A real signal
//! `x` of `n = 2m` points seen as `m` complex pairs `x[2k] + i x[2k+1]` has the
//! `m`-point transform `Z`; its spectrum's first `m + 1` entries follow from `Z_k` and
//! `Z_(m-k)` (`r2c_post`), and the inverse builds `Z` (times 2) from the spectrum
//! (`c2r_pre`). The twist kernels call these, so the CPU tests below check the GPU's
//! arithmetic. (Fusing a twist into a single-pass transform's load or store measured
//! slower on an H200 than a launch of its own: benchmarks/NOTES.md, session 21.)

use super::radix::{Cx, Real};

/// Where `r2c_post`'s output `k` (`0 <= k <= m`) reads `Z`: entries `k mod m` and
/// `(m - k) mod m`.
#[inline(always)]
pub const fn r2c_sources(k: u32, m: u32) -> (u32, u32) {
    (if k == m { 0 } else { k }, if k == 0 { 0 } else { m - k })
}

/// Spectrum entry `X_k` from `z = Z_(k mod m)`, `zc = conj Z_((m-k) mod m)` and
/// `w = W_n^k`: `X_k = (z + zc)/2 - i w (z - zc)/2`.
#[inline(always)]
pub fn r2c_post<R: Real>(z: Cx<R>, zc: Cx<R>, w: Cx<R>) -> Cx<R> {
    let half = R::of(0.5);
    let even = (z + zc).scale(half);
    let odd = (z - zc).scale(half);
    even + (w * odd).mul_neg_i()
}

/// `2 Z_k` (`k < m`) from `x = X_k`, `xc = conj X_(m-k)` and `w = W_n^k`:
/// `(x + xc) + i conj(w) (x - xc)`; for `k == 0` the imaginary parts of `X_0` and
/// `X_m`, which a real signal's spectrum does not have, are dropped.
#[inline(always)]
pub fn c2r_pre<R: Real>(mut x: Cx<R>, mut xc: Cx<R>, w: Cx<R>, k: u32) -> Cx<R> {
    if k == 0 {
        x.im = R::of(0.0);
        xc.im = R::of(0.0);
    }
    let t = w.conj() * (x - xc);
    // i * t
    (x + xc) + Cx::new(-t.im, t.re)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fft::twiddle::turn;

    fn dft(x: &[Cx<f64>]) -> Vec<Cx<f64>> {
        let n = x.len() as u64;
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Cx::new(0.0, 0.0), |s, (j, &v)| {
                    s + v * turn(j as u64 * k, n)
                })
            })
            .collect()
    }

    /// Deterministic values in (-1, 1), none zero.
    fn signal(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 11) as f64 / (1u64 << 52) as f64 * 2.0 - 1.0 + 1e-9
            })
            .collect()
    }

    fn close(a: Cx<f64>, b: Cx<f64>, n: usize) -> bool {
        let tol = 1e-13 * n as f64;
        (a.re - b.re).abs() < tol && (a.im - b.im).abs() < tol
    }

    #[test]
    fn the_twists_give_the_real_spectrum_and_invert_it() {
        for (m, seed) in [(1usize, 1), (2, 2), (3, 3), (8, 4), (15, 5), (64, 6)] {
            let n = 2 * m;
            let x = signal(n, seed);
            let full: Vec<Cx<f64>> = x.iter().map(|&v| Cx::new(v, 0.0)).collect();
            let want = dft(&full);
            let pairs: Vec<Cx<f64>> = (0..m).map(|k| Cx::new(x[2 * k], x[2 * k + 1])).collect();
            let z = dft(&pairs);
            for k in 0..=m as u32 {
                let (a, b) = r2c_sources(k, m as u32);
                let got = r2c_post(
                    z[a as usize],
                    z[b as usize].conj(),
                    turn(k as u64, n as u64),
                );
                assert!(close(got, want[k as usize], n), "r2c m={m} k={k}");
            }
            // The inverse: c2r_pre of the spectrum is twice Z (with junk imaginary
            // parts in X_0 and X_m, which it must ignore).
            let mut spec = want[..=m].to_vec();
            spec[0].im = 0.25;
            spec[m].im = -0.5;
            for k in 0..m as u32 {
                let (x_k, xc) = (spec[k as usize], spec[m - k as usize].conj());
                let got = c2r_pre(x_k, xc, turn(k as u64, n as u64), k);
                assert!(close(got, z[k as usize].scale(2.0), n), "c2r m={m} k={k}");
            }
        }
    }
}
