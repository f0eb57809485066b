//! `a * b + c` rounded once, the same bits on both engines: `fma.rn` on the GPU and
//! std's `mul_add` on the CPU (the same IEEE operation). Families whose CPU meaning must
//! match their kernels bit for bit (`iir`, `sparse`, `fft`) multiply-add through these.

macro_rules! fma_fn {
    ($name:ident, $t:ident, $reg:ident, $ty:literal) => {
        /// `a * b + c`, rounded once.
        #[inline(always)]
        pub fn $name(a: $t, b: $t, c: $t) -> $t {
            #[cfg(target_arch = "nvptx64")]
            {
                let d: $t;
                // SAFETY: register-only arithmetic.
                unsafe {
                    core::arch::asm!(concat!("fma.rn.", $ty, " {d}, {a}, {b}, {c};"),
                        d = out($reg) d, a = in($reg) a, b = in($reg) b, c = in($reg) c,
                        options(pure, nomem, nostack))
                };
                d
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                a.mul_add(b, c)
            }
        }
    };
}
fma_fn!(fma32, f32, reg32, "f32");
fma_fn!(fma64, f64, reg64, "f64");
