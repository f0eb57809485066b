//! The small DFTs the kernels compute in registers: radix 2, 4, 8 and 16 as split-radix
//! butterflies, and the odd primes 3, 5, 7, 11 and 13 by the symmetric direct form
//! (the inputs paired as `x[m] +- x[R-m]`, which halves the multiplications), and 9 as
//! 3 x 3. All are
//! forward transforms (`exp(-2 pi i jk / R)`); the kernels get the inverse by
//! conjugating on the way in and out. Written once over the real type, for the CPU
//! tests and the GPU alike.

use core::ops::{Add, Mul, Neg, Sub};

/// `for $i in 1..=$n { $body }` written out for `$n <= 6` (the largest odd radix, 13,
/// pairs 6 inputs), so that every register-array index is a constant: a loop the
/// compiler leaves rolled would put the arrays in local memory.
macro_rules! each {
    ($i:ident in 1..=$n:expr => $body:block) => {{
        each!(@ $i, $n, $body; 1 2 3 4 5 6)
    }};
    ($i:ident in 0..$n:expr => $body:block) => {{
        each!(@@ $i, $n, $body; 0 1 2 3 4 5 6 7)
    }};
    (@ $i:ident, $n:expr, $body:block; $($k:literal)*) => {{
        $(if $k <= $n {
            let $i: usize = $k;
            $body
        })*
    }};
    (@@ $i:ident, $n:expr, $body:block; $($k:literal)*) => {{
        $(if $k < $n {
            let $i: usize = $k;
            $body
        })*
    }};
}

/// The real types the transforms compute in.
pub trait Real:
    Copy + Default + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    /// A constant, rounded to this type.
    fn of(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// `self * a + b` rounded once (`crate::fused`): on the GPU one instruction
    /// instead of two, and the CPU engine computes the same bits.
    fn mul_add(self, a: Self, b: Self) -> Self;
}

impl Real for f32 {
    #[inline(always)]
    fn of(v: f64) -> f32 {
        v as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn mul_add(self, a: f32, b: f32) -> f32 {
        crate::fused::fma32(self, a, b)
    }
}
impl Real for f64 {
    #[inline(always)]
    fn of(v: f64) -> f64 {
        v
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn mul_add(self, a: f64, b: f64) -> f64 {
        crate::fused::fma64(self, a, b)
    }
}

/// A complex number laid out as NumPy's complex64/complex128 (`re`, then `im`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cx<R> {
    pub re: R,
    pub im: R,
}

impl<R: Real> Cx<R> {
    #[inline(always)]
    pub fn new(re: R, im: R) -> Self {
        Cx { re, im }
    }
    #[inline(always)]
    pub fn conj(self) -> Self {
        Cx::new(self.re, -self.im)
    }
    /// `-i * self`.
    #[inline(always)]
    pub fn mul_neg_i(self) -> Self {
        Cx::new(self.im, -self.re)
    }
    #[inline(always)]
    pub fn scale(self, s: R) -> Self {
        Cx::new(self.re * s, self.im * s)
    }
    /// This value in another precision.
    #[inline(always)]
    pub fn cast<S: Real>(self) -> Cx<S> {
        Cx::new(S::of(self.re.to_f64()), S::of(self.im.to_f64()))
    }
}
impl<R: Real> Add for Cx<R> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        Cx::new(self.re + o.re, self.im + o.im)
    }
}
impl<R: Real> Sub for Cx<R> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        Cx::new(self.re - o.re, self.im - o.im)
    }
}
impl<R: Real> Mul for Cx<R> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        Cx::new(
            self.re.mul_add(o.re, -(self.im * o.im)),
            self.re.mul_add(o.im, self.im * o.re),
        )
    }
}

/// A forward DFT of `N` points in place.
pub trait Dft<const N: usize>: Sized {
    fn dft(v: &mut [Self; N]);
}

impl<R: Real> Dft<1> for Cx<R> {
    #[inline(always)]
    fn dft(_: &mut [Self; 1]) {}
}

impl<R: Real> Dft<2> for Cx<R> {
    #[inline(always)]
    fn dft(v: &mut [Self; 2]) {
        let (a, b) = (v[0], v[1]);
        v[0] = a + b;
        v[1] = a - b;
    }
}

#[inline(always)]
fn dft4<R: Real>(a: Cx<R>, b: Cx<R>, c: Cx<R>, d: Cx<R>) -> [Cx<R>; 4] {
    let (t0, t1) = (a + c, a - c);
    let (t2, t3) = (b + d, (b - d).mul_neg_i());
    [t0 + t2, t1 + t3, t0 - t2, t1 - t3]
}

impl<R: Real> Dft<4> for Cx<R> {
    #[inline(always)]
    fn dft(v: &mut [Self; 4]) {
        *v = dft4(v[0], v[1], v[2], v[3]);
    }
}

const SQRT1_2: f64 = core::f64::consts::FRAC_1_SQRT_2;

/// `x * exp(-2 pi i k / 8)` for k = 1, 2, 3: exact rotations and one scaling.
#[inline(always)]
fn w8<R: Real>(x: Cx<R>, k: usize) -> Cx<R> {
    let h = R::of(SQRT1_2);
    match k {
        1 => Cx::new((x.re + x.im) * h, (x.im - x.re) * h),
        2 => x.mul_neg_i(),
        _ => Cx::new((x.im - x.re) * h, -(x.re + x.im) * h),
    }
}

#[inline(always)]
fn dft8<R: Real>(x: [Cx<R>; 8]) -> [Cx<R>; 8] {
    let e = dft4(x[0], x[2], x[4], x[6]);
    let o = dft4(x[1], x[3], x[5], x[7]);
    let o = [o[0], w8(o[1], 1), w8(o[2], 2), w8(o[3], 3)];
    [
        e[0] + o[0],
        e[1] + o[1],
        e[2] + o[2],
        e[3] + o[3],
        e[0] - o[0],
        e[1] - o[1],
        e[2] - o[2],
        e[3] - o[3],
    ]
}

impl<R: Real> Dft<8> for Cx<R> {
    #[inline(always)]
    fn dft(v: &mut [Self; 8]) {
        *v = dft8(*v);
    }
}

/// cos of `pi k / 8`, k = 0..4 (sin is cos of `pi (4 - k) / 8`).
const C16: [f64; 4] = [1.0, 0.9238795325112867, SQRT1_2, 0.3826834323650898];

impl<R: Real> Dft<16> for Cx<R> {
    #[inline(always)]
    fn dft(v: &mut [Self; 16]) {
        let e = dft8([v[0], v[2], v[4], v[6], v[8], v[10], v[12], v[14]]);
        let o = dft8([v[1], v[3], v[5], v[7], v[9], v[11], v[13], v[15]]);
        each!(k in 0..8 => {
            // W16^k = cos(pi k/8) - i sin(pi k/8), from the first quadrant's values.
            let (c, s) = if k <= 4 {
                (C16_AT(k), C16_AT(4 - k))
            } else {
                (-C16_AT(8 - k), C16_AT(k - 4))
            };
            let w = Cx::new(R::of(c), R::of(-s));
            let t = if k == 0 {
                o[0]
            } else if k == 4 {
                o[4].mul_neg_i()
            } else {
                o[k] * w
            };
            v[k] = e[k] + t;
            v[k + 8] = e[k] - t;
        });
    }
}

/// `cos(pi k / 8)` for k in 0..=4.
#[allow(non_snake_case)]
#[inline(always)]
const fn C16_AT(k: usize) -> f64 {
    if k < 4 { C16[k] } else { 0.0 }
}

// cos and sin of 2 pi j / R for j = 1..=(R-1)/2, correctly rounded (computed to 60
// digits).
const C3: [f64; 1] = [-0.5];
const S3: [f64; 1] = [0.8660254037844386];
const C5: [f64; 2] = [0.30901699437494745, -0.8090169943749475];
const S5: [f64; 2] = [0.9510565162951535, 0.5877852522924731];
const C7: [f64; 3] = [0.6234898018587335, -0.2225209339563144, -0.9009688679024191];
const S7: [f64; 3] = [0.7818314824680298, 0.9749279121818236, 0.4338837391175581];
const C11: [f64; 5] = [
    0.8412535328311812,
    0.41541501300188644,
    -0.14231483827328514,
    -0.6548607339452851,
    -0.9594929736144974,
];
const S11: [f64; 5] = [
    0.5406408174555976,
    0.9096319953545183,
    0.9898214418809327,
    0.7557495743542583,
    0.28173255684142967,
];
const C13: [f64; 6] = [
    0.8854560256532099,
    0.5680647467311558,
    0.12053668025532305,
    -0.3546048870425356,
    -0.7485107481711011,
    -0.970941817426052,
];
const S13: [f64; 6] = [
    0.46472317204376856,
    0.8229838658936564,
    0.992708874098054,
    0.9350162426854148,
    0.6631226582407952,
    0.23931566428755777,
];

/// cos and sin of `2 pi q / n` for an odd prime `n` from its half tables.
#[inline(always)]
const fn cos_sin(cos: &[f64], sin: &[f64], n: usize, q: usize) -> (f64, f64) {
    let q = q % n;
    if q == 0 {
        (1.0, 0.0)
    } else if 2 * q < n {
        (cos[q - 1], sin[q - 1])
    } else {
        (cos[n - q - 1], -sin[n - q - 1])
    }
}

/// The direct DFT of an odd prime `N` with its inputs paired:
/// `y[k] = x0 + sum_m cos(2 pi mk/N) (x[m] + x[N-m]) - i sin(2 pi mk/N) (x[m] - x[N-m])`,
/// and `y[N-k]` the same with `+i`.
#[inline(always)]
fn odd<R: Real, const N: usize>(v: &mut [Cx<R>; N], cos: &[f64], sin: &[f64]) {
    let h = (N - 1) / 2;
    let x0 = v[0];
    let mut a = [Cx::<R>::default(); N];
    let mut d = [Cx::<R>::default(); N];
    let mut y0 = x0;
    each!(m in 1..=h => {
        a[m] = v[m] + v[N - m];
        d[m] = v[m] - v[N - m];
        y0 = y0 + a[m];
    });
    each!(k in 1..=h => {
        let mut re = x0;
        let mut im = Cx::<R>::default();
        each!(m in 1..=h => {
            let (c, s) = cos_sin(cos, sin, N, m * k);
            re = re + a[m].scale(R::of(c));
            im = im + d[m].scale(R::of(s));
        });
        // -i * im and +i * im.
        let t = im.mul_neg_i();
        v[k] = re + t;
        v[N - k] = re - t;
    });
    v[0] = y0;
}

macro_rules! odd_dft {
    ($($n:literal $c:ident $s:ident)*) => {$(
        impl<R: Real> Dft<$n> for Cx<R> {
            #[inline(always)]
            fn dft(v: &mut [Self; $n]) {
                odd::<R, $n>(v, &$c, &$s);
            }
        }
    )*};
}
odd_dft!(3 C3 S3 5 C5 S5 7 C7 S7 11 C11 S11 13 C13 S13);

/// cos and sin of `2 pi k / 9` for k = 1, 2, 4 (correctly rounded; computed to 50
/// digits).
const W9: [(f64, f64); 3] = [
    (0.766044443118978, 0.6427876096865394),
    (0.17364817766693036, 0.984807753012208),
    (-0.9396926207859084, 0.3420201433256687),
];

/// `x * exp(-2 pi i k / 9)` for k = 1, 2, 4.
#[inline(always)]
fn w9<R: Real>(x: Cx<R>, k: usize) -> Cx<R> {
    let (c, s) = W9[if k == 4 { 2 } else { k - 1 }];
    x * Cx::new(R::of(c), R::of(-s))
}

/// Radix 9 as 3 x 3 (half the stages of two radix-3 ones for powers of 3): three
/// DFTs of 3 over the inputs `b, b + 3, b + 6`, twiddles `W9^(b k1)`, then three DFTs
/// of 3 across them give output `k1 + 3 k2`.
impl<R: Real> Dft<9> for Cx<R> {
    #[inline(always)]
    fn dft(v: &mut [Self; 9]) {
        let mut y = [[Cx::<R>::default(); 3]; 3];
        each!(b in 0..3 => {
            let mut t = [v[b], v[b + 3], v[b + 6]];
            <Cx<R> as Dft<3>>::dft(&mut t);
            y[b] = t;
        });
        y[1][1] = w9(y[1][1], 1);
        y[1][2] = w9(y[1][2], 2);
        y[2][1] = w9(y[2][1], 2);
        y[2][2] = w9(y[2][2], 4);
        each!(k1 in 0..3 => {
            let mut t = [y[0][k1], y[1][k1], y[2][k1]];
            <Cx<R> as Dft<3>>::dft(&mut t);
            v[k1] = t[0];
            v[k1 + 3] = t[1];
            v[k1 + 6] = t[2];
        });
    }
}

/// The radices the kernels have a butterfly for, largest first (the planner's order
/// of preference).
pub const RADICES: [u32; 10] = [16, 13, 11, 9, 8, 7, 5, 4, 3, 2];

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[Cx<f64>]) -> Vec<Cx<f64>> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(Cx::default(), |acc, (j, &v)| {
                    let a = -2.0 * core::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                    acc + v * Cx::new(a.cos(), a.sin())
                })
            })
            .collect()
    }

    fn input<const N: usize>() -> [Cx<f64>; N] {
        core::array::from_fn(|i| Cx::new((i as f64 * 0.37).sin() + 0.1, (i as f64 * 1.3).cos()))
    }

    fn check<const N: usize>()
    where
        Cx<f64>: Dft<N>,
    {
        let x = input::<N>();
        let want = naive(&x);
        let mut got = x;
        <Cx<f64> as Dft<N>>::dft(&mut got);
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g.re - w.re).abs() < 1e-13 && (g.im - w.im).abs() < 1e-13,
                "N={N}: {g:?} vs {w:?}"
            );
        }
    }

    #[test]
    fn every_butterfly_is_the_dft() {
        check::<1>();
        check::<2>();
        check::<3>();
        check::<4>();
        check::<5>();
        check::<7>();
        check::<8>();
        check::<9>();
        check::<11>();
        check::<13>();
        check::<16>();
    }
}
