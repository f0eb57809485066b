//! What each distribution computes from uniform words: plain Rust shared by the GPU
//! engine and `cargo test`.
//!
//! Two ways to consume words. The fast kinds (uniform, normal, exponential) turn one
//! Philox block of four words into a *group* of elements (four float32 or two float64),
//! written with one vector store. Everything else draws from an element's own
//! [`Stream`], as many words as its method needs: rejection loops (gamma, beta, Poisson,
//! binomial, bounded integers) stay exact in distribution for every parameter, and an
//! element's value depends only on the key and its index.
//!
//! The methods are NumPy's where it uses one that is exact and branch-light (gamma:
//! Marsaglia-Tsang and NumPy's shape < 1 rejection; beta: Johnk for a, b <= 1, else a ratio
//! of gammas; Poisson: multiplication below 10, Hormann's PTRS above; geometric and the
//! two-sided ones by inversion); NumPy's ziggurats (normal, exponential) are replaced by
//! Box-Muller and inversion, which need no tables; binomial uses inversion of a sum of
//! geometric waits below a mean of 10 and Hormann's BTRS above (as PyTorch), where NumPy
//! uses BTPE. Lemire's method for bounded integers.

use super::philox::{counter, key as philox_key, philox4x32_10};
use crate::elementwise::ops::float::{Float, Float2};

/// 2^-53, 2^-32, 2^-24.
const P53: f64 = 1.0 / 9_007_199_254_740_992.0;
const P32: f32 = 1.0 / 4_294_967_296.0;
const P24: f32 = 1.0 / 16_777_216.0;

/// A 64-bit word's top 53 bits as a double in [0, 1).
#[inline(always)]
pub fn unit_f64(x: u64) -> f64 {
    (x >> 11) as f64 * P53
}

/// A 64-bit word's top 53 bits as a double in (0, 1): the midpoint of its 2^-53 cell, so
/// logarithms stay finite.
#[inline(always)]
pub fn open_f64(x: u64) -> f64 {
    ((x >> 11) as f64 + 0.5) * P53
}

/// A 32-bit word's top 24 bits as a float in [0, 1).
#[inline(always)]
pub fn unit_f32(w: u32) -> f32 {
    (w >> 8) as f32 * P24
}

/// A 32-bit word as a float in (0, 1], fine near 0 (down to 2^-33), for the logarithms
/// of Box-Muller's radius and the exponential's inversion.
#[inline(always)]
pub fn open_f32(w: u32) -> f32 {
    let u = w as f32 * P32 + 0.5 * P32;
    if u > 1.0 { 1.0 } else { u }
}

/// `(sin 2πu, cos 2πu)`.
pub trait SinCos2Pi: Copy {
    fn sin_cos_2pi(self) -> (Self, Self);
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    fn __nv_sincospif(x: f32, s: *mut f32, c: *mut f32);
    fn __nv_sincospi(x: f64, s: *mut f64, c: *mut f64);
}

macro_rules! sin_cos_2pi {
    ($t:ty, $nv:ident) => {
        impl SinCos2Pi for $t {
            #[inline(always)]
            fn sin_cos_2pi(self) -> ($t, $t) {
                #[cfg(target_arch = "nvptx64")]
                {
                    let (mut s, mut c) = (0.0, 0.0);
                    // SAFETY: libdevice's sincospi writes its two outputs and nothing else.
                    unsafe { $nv(2.0 * self, &mut s, &mut c) };
                    (s, c)
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    (2.0 * core::f64::consts::PI as $t * self).sin_cos()
                }
            }
        }
    };
}
sin_cos_2pi!(f32, __nv_sincospif);
sin_cos_2pi!(f64, __nv_sincospi);

/// Box-Muller: two independent standard normals from a radius uniform `r` in (0, 1] and
/// an angle uniform `a` in [0, 1).
#[inline(always)]
pub fn box_muller<T: Float + SinCos2Pi + core::ops::Mul<Output = T> + From<f32>>(
    r: T,
    a: T,
) -> (T, T) {
    let rho = (T::from(-2.0) * r.ln()).sqrt();
    let (s, c) = a.sin_cos_2pi();
    (rho * c, rho * s)
}

/// float32 Box-Muller and inversion on the GPU's special-function unit: `lg2.approx`
/// (relative error 2^-22), `sin.approx`/`cos.approx` (absolute error 2^-20.9 on
/// [0, 2π)) and `sqrt.approx` (2^-23), each below float32's own rounding of the
/// result's law; libdevice's exact versions cost more than the Philox rounds. Host:
/// std, for `cargo test`.
#[inline(always)]
fn fast_ln_f32(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: f32;
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!("lg2.approx.ftz.f32 {r}, {x};", r = out(reg32) r, x = in(reg32) x,
                options(pure, nomem, nostack))
        };
        r * core::f32::consts::LN_2
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x.ln()
    }
}

#[inline(always)]
fn fast_box_muller_f32(r: f32, a: f32) -> (f32, f32) {
    let rho2 = -2.0 * fast_ln_f32(r);
    let t = a * (2.0 * core::f32::consts::PI);
    #[cfg(target_arch = "nvptx64")]
    {
        let (rho, s, c): (f32, f32, f32);
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!(
                "sqrt.approx.ftz.f32 {rho}, {r2};",
                "sin.approx.ftz.f32 {s}, {t};",
                "cos.approx.ftz.f32 {c}, {t};",
                rho = out(reg32) rho, s = out(reg32) s, c = out(reg32) c,
                r2 = in(reg32) rho2, t = in(reg32) t,
                options(pure, nomem, nostack)
            )
        };
        (rho * c, rho * s)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let rho = rho2.sqrt();
        (rho * t.cos(), rho * t.sin())
    }
}

/// The fast kinds' groups: four float32 or two float64 from one block of four words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fast {
    Uniform,
    Normal,
    Exponential,
}

/// Four float32 of kind `k` (standard parameters) from one block.
#[inline(always)]
pub fn group_f32(k: Fast, w: [u32; 4]) -> [f32; 4] {
    match k {
        Fast::Uniform => [
            unit_f32(w[0]),
            unit_f32(w[1]),
            unit_f32(w[2]),
            unit_f32(w[3]),
        ],
        Fast::Normal => {
            let (a, b) = fast_box_muller_f32(open_f32(w[0]), unit_f32(w[1]));
            let (c, d) = fast_box_muller_f32(open_f32(w[2]), unit_f32(w[3]));
            [a, b, c, d]
        }
        Fast::Exponential => [
            -fast_ln_f32(open_f32(w[0])),
            -fast_ln_f32(open_f32(w[1])),
            -fast_ln_f32(open_f32(w[2])),
            -fast_ln_f32(open_f32(w[3])),
        ],
    }
}

/// Two float64 of kind `k` (standard parameters) from one block.
#[inline(always)]
pub fn group_f64(k: Fast, w: [u32; 4]) -> [f64; 2] {
    let x = (w[0] as u64) << 32 | w[1] as u64;
    let y = (w[2] as u64) << 32 | w[3] as u64;
    match k {
        Fast::Uniform => [unit_f64(x), unit_f64(y)],
        Fast::Normal => {
            let (a, b) = box_muller(open_f64(x), unit_f64(y));
            [a, b]
        }
        // -log(u) for u in (0, 1) has the exponential's law; the midpoint keeps it finite.
        Fast::Exponential => [-open_f64(x).ln(), -open_f64(y).ln()],
    }
}

/// The words of one element's own stream: blocks `(i, 1), (i, 2), ...` under the key
/// (block `(g, 0)` is group `g`'s in the fast kinds, so the two never meet).
pub struct Stream {
    key: [u32; 2],
    index: u64,
    draw: u32,
    buf: [u32; 4],
    left: u32,
    spare: f64,
    has_spare: bool,
}

impl Stream {
    #[inline(always)]
    pub fn new(key: u64, index: u64) -> Stream {
        Stream {
            key: philox_key(key),
            index,
            draw: 0,
            buf: [0; 4],
            left: 0,
            spare: 0.0,
            has_spare: false,
        }
    }

    #[inline(always)]
    pub fn word(&mut self) -> u32 {
        if self.left == 0 {
            self.draw += 1;
            self.buf = philox4x32_10(counter(self.index, self.draw), self.key);
            self.left = 4;
        }
        self.left -= 1;
        // Constant indices: a run-time index would put `buf` in local memory.
        match self.left {
            3 => self.buf[0],
            2 => self.buf[1],
            1 => self.buf[2],
            _ => self.buf[3],
        }
    }

    #[inline(always)]
    pub fn word64(&mut self) -> u64 {
        let hi = self.word() as u64;
        hi << 32 | self.word() as u64
    }

    /// [0, 1).
    #[inline(always)]
    pub fn uniform(&mut self) -> f64 {
        unit_f64(self.word64())
    }

    /// (0, 1).
    #[inline(always)]
    pub fn open(&mut self) -> f64 {
        open_f64(self.word64())
    }

    /// A standard normal (Box-Muller; the pair's second value is kept for the next call).
    #[inline(always)]
    pub fn normal(&mut self) -> f64 {
        if self.has_spare {
            self.has_spare = false;
            return self.spare;
        }
        let r = self.open();
        let a = self.uniform();
        let (z0, z1) = box_muller(r, a);
        self.spare = z1;
        self.has_spare = true;
        z0
    }

    /// A standard exponential.
    #[inline(always)]
    pub fn exponential(&mut self) -> f64 {
        -self.open().ln()
    }
}

/// A standard gamma variate of `shape` (NumPy's `random_standard_gamma`, its methods:
/// exponential at 1, rejection from a Weibull-like proposal below 1, Marsaglia-Tsang
/// above). NaN for a NaN shape; the host rejects negative shapes.
#[inline(always)]
pub fn standard_gamma(s: &mut Stream, shape: f64) -> f64 {
    if shape == 1.0 {
        s.exponential()
    } else if shape == 0.0 {
        0.0
    } else if shape < 1.0 {
        loop {
            let u = s.uniform();
            let v = s.exponential();
            if u <= 1.0 - shape {
                let x = Float2::powf(u, 1.0 / shape);
                if x <= v {
                    return x;
                }
            } else {
                let y = -((1.0 - u) / shape).ln();
                let x = Float2::powf(1.0 - shape + shape * y, 1.0 / shape);
                if x <= v + y {
                    return x;
                }
            }
        }
    } else if shape >= 1.0 {
        let b = shape - 1.0 / 3.0;
        let c = 1.0 / (9.0 * b).sqrt();
        loop {
            let (mut x, mut v);
            loop {
                x = s.normal();
                v = 1.0 + c * x;
                if v > 0.0 {
                    break;
                }
            }
            v = v * v * v;
            let u = s.uniform();
            if u < 1.0 - 0.0331 * (x * x) * (x * x) {
                return b * v;
            }
            if u.ln() < 0.5 * x * x + b * (1.0 - v + v.ln()) {
                return b * v;
            }
        }
    } else {
        f64::NAN
    }
}

/// A beta variate (NumPy's `random_beta`).
#[inline(always)]
pub fn beta(s: &mut Stream, a: f64, b: f64) -> f64 {
    if a <= 1.0 && b <= 1.0 {
        loop {
            let u = s.uniform();
            let v = s.uniform();
            let x = Float2::powf(u, 1.0 / a);
            let y = Float2::powf(v, 1.0 / b);
            let xy = x + y;
            if xy <= 1.0 && u + v > 0.0 {
                if xy > 0.0 {
                    return x / xy;
                }
                // Both powers underflowed: the same ratio in logarithms.
                let (lx, ly) = (u.ln() / a, v.ln() / b);
                let m = if lx > ly { lx } else { ly };
                let (lx, ly) = (lx - m, ly - m);
                return (lx - (lx.exp() + ly.exp()).ln()).exp();
            }
        }
    } else {
        let ga = standard_gamma(s, a);
        let gb = standard_gamma(s, b);
        ga / (ga + gb)
    }
}

/// `log Γ(x)` for x >= 1 (NumPy's `random_loggam`): Stirling's series at x + n >= 7,
/// then down by `log(x + k)`. The coefficients are B_2k / (2k (2k - 1)).
#[inline(always)]
pub fn loggam(x: f64) -> f64 {
    const A: [f64; 10] = [
        1.0 / 12.0,
        -1.0 / 360.0,
        1.0 / 1260.0,
        -1.0 / 1680.0,
        1.0 / 1188.0,
        -691.0 / 360360.0,
        1.0 / 156.0,
        -3617.0 / 122400.0,
        43867.0 / 244188.0,
        -174611.0 / 125400.0,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = (1.0 / x0) * (1.0 / x0);
    let mut gl0 = A[9];
    let mut k = 9;
    while k > 0 {
        k -= 1;
        gl0 = gl0 * x2 + A[k];
    }
    // 0.5 * log(2π)
    let half_log_2pi = 0.918_938_533_204_672_8;
    let mut gl = gl0 / x0 + half_log_2pi + (x0 - 0.5) * x0.ln() - x0;
    let mut k = 0;
    while k < n {
        gl -= (x0 - 1.0).ln();
        x0 -= 1.0;
        k += 1;
    }
    gl
}

/// A Poisson variate of mean `lam` (NumPy's methods: multiplication of uniforms below
/// 10, PTRS above). The host rejects negative and too large means.
#[inline(always)]
pub fn poisson(s: &mut Stream, lam: f64) -> i64 {
    if lam >= 10.0 {
        let slam = lam.sqrt();
        let loglam = lam.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = s.uniform() - 0.5;
            let v = s.uniform();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
            if us >= 0.07 && v <= vr {
                return k as i64;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            if v.ln() + invalpha.ln() - (a / (us * us) + b).ln()
                <= -lam + k * loglam - loggam(k + 1.0)
            {
                return k as i64;
            }
        }
    } else if lam > 0.0 {
        let enlam = (-lam).exp();
        let (mut x, mut prod) = (0i64, 1.0f64);
        loop {
            prod *= s.uniform();
            if prod > enlam {
                x += 1;
            } else {
                return x;
            }
        }
    } else {
        0
    }
}

/// Stirling's correction `log k! - [(k + 1/2) log(k + 1) - (k + 1) + log(2π)/2]`.
#[inline(always)]
fn stirling_tail(k: f64) -> f64 {
    if k <= 9.0 {
        // Exact enough from log k! directly (the terms are below 20; 1e-13 relative).
        let mut logfact = 0.0;
        let mut i = 2.0;
        while i <= k {
            logfact += i.ln();
            i += 1.0;
        }
        logfact - ((k + 0.5) * (k + 1.0).ln() - (k + 1.0) + 0.918_938_533_204_672_8)
    } else {
        let kp1 = k + 1.0;
        let kp1sq = kp1 * kp1;
        (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / 1260.0 / kp1sq) / kp1sq) / kp1
    }
}

/// A binomial variate of `n` trials with probability `p` (the host checks n >= 0 and
/// 0 <= p <= 1). Below a mean of 10 (of the likelier side): the number of geometric
/// waits that fit in n; above: Hormann's BTRS.
#[inline(always)]
pub fn binomial(s: &mut Stream, n: f64, p: f64) -> i64 {
    if n <= 0.0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n as i64;
    }
    let flip = p > 0.5;
    let q = if flip { 1.0 - p } else { p };
    let k = if n * q < 10.0 {
        let logq = (-q).ln_1p();
        let (mut sum, mut count) = (0.0f64, 0.0f64);
        loop {
            sum += (s.open().ln() / logq).ceil();
            if sum > n {
                break count;
            }
            count += 1.0;
        }
    } else {
        let spq = (n * q * (1.0 - q)).sqrt();
        let b = 1.15 + 2.53 * spq;
        let a = -0.0873 + 0.0248 * b + 0.01 * q;
        let c = n * q + 0.5;
        let vr = 0.92 - 4.2 / b;
        let r = q / (1.0 - q);
        let alpha = (2.83 + 5.1 / b) * spq;
        let m = ((n + 1.0) * q).floor();
        loop {
            let u = s.uniform() - 0.5;
            let mut v = s.uniform();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + c).floor();
            if k < 0.0 || k > n {
                continue;
            }
            if us >= 0.07 && v <= vr {
                break k;
            }
            v = (v * alpha / (a / (us * us) + b)).ln();
            let bound = (m + 0.5) * ((m + 1.0) / (r * (n - m + 1.0))).ln()
                + (n + 1.0) * ((n - m + 1.0) / (n - k + 1.0)).ln()
                + (k + 0.5) * (r * (n - k + 1.0) / (k + 1.0)).ln()
                + stirling_tail(m)
                + stirling_tail(n - m)
                - stirling_tail(k)
                - stirling_tail(n - k);
            if v <= bound {
                break k;
            }
        }
    };
    (if flip { n - k } else { k }) as i64
}

/// A geometric variate (trials to the first success) by inversion, NumPy's
/// `random_geometric_inversion`, saturating at int64's max.
#[inline(always)]
pub fn geometric(s: &mut Stream, p: f64) -> i64 {
    if p >= 1.0 {
        return 1;
    }
    let z = (-s.exponential() / (-p).ln_1p()).ceil();
    if z >= 9.223_372_036_854_776e18 {
        i64::MAX
    } else {
        z as i64
    }
}

/// Laplace, logistic and Gumbel by inversion of an open uniform.
#[inline(always)]
pub fn laplace(s: &mut Stream) -> f64 {
    let u = s.open();
    if u >= 0.5 {
        -(2.0 - 2.0 * u).ln()
    } else {
        (2.0 * u).ln()
    }
}
#[inline(always)]
pub fn logistic(s: &mut Stream) -> f64 {
    let u = s.open();
    (u / (1.0 - u)).ln()
}
#[inline(always)]
pub fn gumbel(s: &mut Stream) -> f64 {
    -(-s.open().ln()).ln()
}

/// The high 64 bits of `a * b`.
#[inline(always)]
fn mul_hi(a: u64, b: u64) -> u64 {
    super::pcg64::U128::new(0, a)
        .mul(super::pcg64::U128::new(0, b))
        .hi
}

/// Lemire's unbiased bounded integer in `[0, range]` from words of one width: the high
/// half of `x * (range + 1)`, unless the low half falls below `2^width mod (range + 1)`
/// (`None`: the caller draws the next word). The kernels loop on an element's
/// [`Stream`]; [`bounded32`] and friends loop on any word source.
macro_rules! bounded_narrow {
    ($(#[$doc:meta])* $try_name:ident, $name:ident, $t:ty, $wide:ty) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $try_name(x: $t, range: $t) -> Option<$t> {
            if range == <$t>::MAX {
                return Some(x);
            }
            let m = range + 1;
            let prod = x as $wide * m as $wide;
            if (prod as $t) < m && (prod as $t) < m.wrapping_neg() % m {
                return None;
            }
            Some((prod >> <$t>::BITS) as $t)
        }

        #[inline(always)]
        pub fn $name(first: $t, range: $t, more: &mut impl FnMut() -> $t) -> $t {
            let mut x = first;
            loop {
                if let Some(v) = $try_name(x, range) {
                    return v;
                }
                x = more();
            }
        }
    };
}
bounded_narrow!(
    /// For ranges below 2^32, from 32-bit words.
    try_bounded32, bounded32, u32, u64
);
#[cfg(test)]
bounded_narrow!(
    /// The same text on 16-bit words: small enough to check exhaustively.
    try_bounded16, bounded16, u16, u32
);

/// Lemire's method for 64-bit ranges.
#[inline(always)]
pub fn try_bounded64(x: u64, range: u64) -> Option<u64> {
    if range == u64::MAX {
        return Some(x);
    }
    let m = range + 1;
    let lo = x.wrapping_mul(m);
    if lo < m && lo < m.wrapping_neg() % m {
        return None;
    }
    Some(mul_hi(x, m))
}

#[inline(always)]
pub fn bounded64(first: u64, range: u64, more: &mut impl FnMut() -> u64) -> u64 {
    let mut x = first;
    loop {
        if let Some(v) = try_bounded64(x, range) {
            return v;
        }
        x = more();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loggam_is_log_factorial() {
        let mut logfact = 0.0f64;
        for k in 1..200u32 {
            logfact += (k as f64).ln();
            let got = loggam(k as f64 + 1.0);
            assert!(
                (got - logfact).abs() <= 1e-13 * logfact.max(1.0),
                "{k}: {got} {logfact}"
            );
        }
        // Γ(3/2) = sqrt(π)/2, a non-integer point of the series.
        let want = (core::f64::consts::PI.sqrt() / 2.0).ln();
        assert!((loggam(1.5) - want).abs() < 1e-14);
    }

    #[test]
    fn stirling_tail_agrees_on_both_branches() {
        // The series branch against log k! at k = 10..30.
        for k in 10..30 {
            let kf = k as f64;
            let direct = loggam(kf + 1.0)
                - ((kf + 0.5) * (kf + 1.0).ln() - (kf + 1.0) + 0.918_938_533_204_672_8);
            // The series stops before -1/(1680 (k+1)^7): that much, plus rounding.
            let bound = 1.0 / (1680.0 * (kf + 1.0).powi(7)) + 1e-13;
            assert!((stirling_tail(kf) - direct).abs() < bound, "{k}");
        }
    }

    /// Lemire's method is exactly uniform: over every 16-bit word, the words it accepts
    /// at once map to each value equally often (the 16-bit instance of the same text).
    #[test]
    fn bounded_is_exactly_uniform() {
        for m in [1u32, 3, 7, 100, 255, 1000, 40000, 65535] {
            let mut counts = vec![0u32; m as usize];
            for w in 0..=u16::MAX {
                let mut rejected = false;
                let v = bounded16(w, (m - 1) as u16, &mut || {
                    rejected = true;
                    u16::MAX // accepted for every m here, so the loop ends
                });
                if !rejected {
                    counts[v as usize] += 1;
                }
            }
            let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
            assert_eq!(lo, hi, "m={m}");
            assert_eq!(*lo, 65536 / m, "m={m}");
        }
        assert_eq!(bounded32(123, u32::MAX, &mut || 0), 123);
        assert_eq!(bounded64(u64::MAX, u64::MAX, &mut || 0), u64::MAX);
        assert_eq!(bounded64(u64::MAX, 9, &mut || 0), 9);
        // Word 0 is rejected for m = 10 (2^64 mod 10 = 6 > 0): the next word decides.
        assert_eq!(bounded64(0, 9, &mut || u64::MAX), 9);
    }

    #[test]
    fn streams_are_deterministic_and_keyed() {
        let mut a = Stream::new(42, 7);
        let mut b = Stream::new(42, 7);
        let mut c = Stream::new(43, 7);
        let mut d = Stream::new(42, 8);
        let (xa, xb, xc, xd): (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) = (
            (0..9).map(|_| a.word()).collect(),
            (0..9).map(|_| b.word()).collect(),
            (0..9).map(|_| c.word()).collect(),
            (0..9).map(|_| d.word()).collect(),
        );
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
        assert_ne!(xa, xd);
    }

    /// Means of the rejection methods over many elements, against their exact means, to
    /// about 5 standard errors (the GPU suite runs the full distribution tests).
    #[test]
    fn rejection_methods_have_their_means() {
        let n = 20000u64;
        let mean = |f: &dyn Fn(&mut Stream) -> f64| -> f64 {
            (0..n).map(|i| f(&mut Stream::new(99, i))).sum::<f64>() / n as f64
        };
        let close = |got: f64, want: f64, sd: f64| {
            assert!(
                (got - want).abs() < 5.0 * sd / (n as f64).sqrt(),
                "{got} vs {want}"
            );
        };
        for shape in [0.3, 1.0, 2.5, 30.0] {
            close(mean(&|s| standard_gamma(s, shape)), shape, shape.sqrt());
        }
        close(mean(&|s| beta(s, 0.5, 0.7)), 0.5 / 1.2, 0.5);
        close(mean(&|s| beta(s, 2.0, 3.0)), 0.4, 0.5);
        for lam in [0.5, 7.0, 10.0, 1000.0] {
            close(mean(&|s| poisson(s, lam) as f64), lam, lam.sqrt());
        }
        for (t, p) in [(10.0, 0.3), (100.0, 0.5), (1000.0, 0.9), (5.0, 0.99)] {
            close(
                mean(&|s| binomial(s, t, p) as f64),
                t * p,
                (t * p * (1.0 - p)).sqrt(),
            );
        }
        close(
            mean(&|s| geometric(s, 0.2) as f64),
            5.0,
            (0.8f64).sqrt() / 0.2,
        );
        close(mean(&|s| s.normal()), 0.0, 1.0);
        close(mean(&|s| s.exponential()), 1.0, 1.0);
        close(mean(&|s| laplace(s)), 0.0, 2f64.sqrt());
        close(
            mean(&|s| logistic(s)),
            0.0,
            core::f64::consts::PI / 3f64.sqrt(),
        );
        close(
            mean(&|s| gumbel(s)),
            0.577_215_664_901_532_9,
            core::f64::consts::PI / 6f64.sqrt(),
        );
    }
}
