//! Twiddle factors and chirps to the last bit (CPU only: the host builds its tables
//! here). `exp(-2 pi i m / M)` is reduced to an angle in `[0, pi/4]` by exact integer
//! symmetries before any rounding, so the only errors are those of `sin`/`cos` of a
//! small argument and one rounding of `2 pi a / A` (under an ulp of float64 in all);
//! a float32 table rounds these once more.

use super::radix::Cx;

/// `exp(-2 pi i m / modulus)`.
pub fn turn(m: u64, modulus: u64) -> Cx<f64> {
    // Angles in units of 1/(8 modulus) turns, so the octant boundaries are integers.
    let big = 8 * modulus as u128;
    let mut a = 8 * (m % modulus) as u128;
    let (mut neg_sin, mut neg_cos, mut swap) = (false, false, false);
    if 2 * a > big {
        // Past half a turn: sin changes sign.
        a = big - a;
        neg_sin = true;
    }
    if 4 * a > big {
        // Past a quarter: cos changes sign.
        a = big / 2 - a;
        neg_cos = true;
    }
    if 8 * a > big {
        // Past an eighth: cos and sin trade places.
        a = big / 4 - a;
        swap = true;
    }
    let (mut s, mut c) = if 8 * a == big {
        // The eighth turn itself, where sin rounds one ulp low.
        (
            core::f64::consts::FRAC_1_SQRT_2,
            core::f64::consts::FRAC_1_SQRT_2,
        )
    } else {
        (core::f64::consts::TAU * (a as f64 / big as f64)).sin_cos()
    };
    if swap {
        core::mem::swap(&mut s, &mut c);
    }
    if neg_cos {
        c = -c;
    }
    if neg_sin {
        s = -s;
    }
    // exp(-i angle) = cos - i sin.
    Cx::new(c, -s)
}

/// Bluestein's chirp `exp(-i pi k^2 / n)`, with `k^2` reduced modulo `2n` exactly.
pub fn chirp(k: u64, n: u64) -> Cx<f64> {
    let m = ((k as u128 * k as u128) % (2 * n as u128)) as u64;
    turn(m, 2 * n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_angles_are_exact_and_others_close() {
        let w = turn(1, 4);
        assert_eq!((w.re, w.im), (0.0, -1.0));
        let w = turn(2, 4);
        assert_eq!((w.re, w.im), (-1.0, 0.0));
        let w = turn(3, 4);
        assert_eq!((w.re, w.im), (0.0, 1.0));
        assert_eq!(turn(5, 5), Cx::new(1.0, -0.0));
        let w = turn(1, 8);
        assert_eq!(w.re, core::f64::consts::FRAC_1_SQRT_2);
        assert_eq!(w.im, -core::f64::consts::FRAC_1_SQRT_2);
        for modulus in [3u64, 7, 12, 1000, 1 << 27, 65521] {
            for m in [0, 1, modulus / 3, modulus / 2, modulus - 1] {
                let a = -core::f64::consts::TAU * m as f64 / modulus as f64;
                let w = turn(m, modulus);
                // The direct formula rounds its angle; ours does not: agreement to a few ulps.
                assert!((w.re - a.cos()).abs() < 2e-15 && (w.im - a.sin()).abs() < 2e-15);
            }
        }
    }

    #[test]
    fn chirps_reduce_large_squares_exactly() {
        let n = 1_000_003u64;
        let k = 999_999u64;
        let m = (k as u128 * k as u128 % (2 * n as u128)) as u64;
        assert_eq!(chirp(k, n), turn(m, 2 * n));
        assert_eq!(chirp(0, n), Cx::new(1.0, -0.0));
    }
}
