//! Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11):
//! a counter-based generator. Ten rounds of two 32x32->64 multiplies and xors with a
//! key that advances by the Weyl constants turn a 128-bit counter into four 32-bit
//! words; distinct (counter, key) pairs give independent-looking words. Element `i` of a
//! draw reads counter `(i_lo, i_hi, draw, 0)`, so what each element gets depends only on
//! the key and its index, never on the launch shape.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

/// The high and low words of the 64-bit product.
#[inline(always)]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    // On the GPU, the two 32-bit halves as PTX's own instructions: from the 64-bit product
    // LLVM carries the whole round in 64-bit registers (xor.b64, add.s64), which cost
    // ptxas about 20 extra instructions per block.
    #[cfg(target_arch = "nvptx64")]
    {
        let (hi, lo): (u32, u32);
        // SAFETY: register arithmetic only.
        unsafe {
            core::arch::asm!("mul.hi.u32 {h}, {a}, {b};", "mul.lo.u32 {l}, {a}, {b};",
                h = out(reg32) hi, l = out(reg32) lo, a = in(reg32) a, b = in(reg32) b,
                options(pure, nomem, nostack))
        };
        (hi, lo)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let p = a as u64 * b as u64;
        ((p >> 32) as u32, p as u32)
    }
}

#[inline(always)]
fn round(c: [u32; 4], k: [u32; 2]) -> [u32; 4] {
    let (hi0, lo0) = mul_hi_lo(M0, c[0]);
    let (hi1, lo1) = mul_hi_lo(M1, c[2]);
    [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0]
}

/// The four words of `counter` under `key`.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    c = round(c, k);
    let mut r = 1;
    while r < 10 {
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
        c = round(c, k);
        r += 1;
    }
    c
}

/// The counter of element `i`'s `draw`-th block of four words.
#[inline(always)]
pub fn counter(i: u64, draw: u32) -> [u32; 4] {
    [i as u32, (i >> 32) as u32, draw, 0]
}

/// A 64-bit key as Philox's two words.
#[inline(always)]
pub fn key(k: u64) -> [u32; 2] {
    [k as u32, (k >> 32) as u32]
}
