"""The header every generated Rust kernel module starts with (``HEADER``): the
descriptor types of the parameter layout (``CArray``, ``_Dims``, ``_CIndexer``), the
element types NumPy's dtypes map to, ``Cast`` between every two of them (NumPy's
``astype``, generated here) and the helpers user code gets (``max``, ``conj``, ...).
``_rust_source.py`` puts it in front of each kernel it generates."""

# The generated header: the descriptor types of the parameter layout and the helpers
# user code gets. Each item is prefixed with `_` where CuPy's C header is (`_Dims`,
# `_CIndexer`) and named for users otherwise (`CArray`, `Cast`, `max`, ...).
HEADER = r"""
// ---- gpupy generated header (gpupy/_userkernel/_rust_source.py) ----
use core::ops::{Index, IndexMut};

/// A `raw` parameter: the whole array (CuPy's `CArray<T, ND, C_CONTIGUOUS>`), laid out as
/// the host packs it: data pointer, size, shape and byte strides.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CArray<T, const ND: usize, const C: bool> {
    pub data_: *mut T,
    pub size_: i64,
    pub shape_: [i64; ND],
    pub strides_: [i64; ND],
}

impl<T, const ND: usize, const C: bool> CArray<T, ND, C> {
    #[inline(always)]
    pub fn size(&self) -> i64 { self.size_ }
    #[inline(always)]
    pub fn ndim(&self) -> i64 { ND as i64 }
    #[inline(always)]
    pub fn shape(&self) -> &[i64; ND] { &self.shape_ }
    /// Byte strides.
    #[inline(always)]
    pub fn strides(&self) -> &[i64; ND] { &self.strides_ }
    #[inline(always)]
    pub fn data(&self) -> *mut T { self.data_ }
    /// The element at flat C-order index `idx` (dimension 0 is not wrapped: an index
    /// past the size is out of bounds, as in CuPy).
    ///
    /// # Safety
    /// `0 <= idx < size()`.
    #[inline(always)]
    pub unsafe fn ptr(&self, idx: i64) -> *mut T {
        if C {
            return unsafe { self.data_.offset(idx as isize) };
        }
        let mut r = idx;
        let mut off = 0i64;
        let mut d = ND - 1;
        while d > 0 {
            let (q, c) = _divmod(r, self.shape_[d]);
            off += c * self.strides_[d];
            r = q;
            d -= 1;
        }
        off += r * self.strides_[0];
        unsafe { (self.data_ as *mut u8).offset(off as isize) as *mut T }
    }
    /// The element at multi-index `idx`.
    ///
    /// # Safety
    /// `0 <= idx[d] < shape()[d]` for each dimension `d`.
    #[inline(always)]
    pub unsafe fn ptr_at(&self, idx: [i64; ND]) -> *mut T {
        let mut off = 0i64;
        let mut d = 0;
        while d < ND {
            off += idx[d] * self.strides_[d];
            d += 1;
        }
        unsafe { (self.data_ as *mut u8).offset(off as isize) as *mut T }
    }
}

macro_rules! _carray_index {
    ($($i:ty),*) => { $(
        impl<T, const ND: usize, const C: bool> Index<$i> for CArray<T, ND, C> {
            type Output = T;
            #[inline(always)]
            fn index(&self, i: $i) -> &T { unsafe { &*self.ptr(i as i64) } }
        }
        impl<T, const ND: usize, const C: bool> IndexMut<$i> for CArray<T, ND, C> {
            #[inline(always)]
            fn index_mut(&mut self, i: $i) -> &mut T { unsafe { &mut *self.ptr(i as i64) } }
        }
    )* };
}
_carray_index!(i64, i32, u32, usize);

impl<T, const ND: usize, const C: bool> Index<[i64; ND]> for CArray<T, ND, C> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: [i64; ND]) -> &T { unsafe { &*self.ptr_at(i) } }
}
impl<T, const ND: usize, const C: bool> IndexMut<[i64; ND]> for CArray<T, ND, C> {
    #[inline(always)]
    fn index_mut(&mut self, i: [i64; ND]) -> &mut T { unsafe { &mut *self.ptr_at(i) } }
}

/// ND extents or byte strides, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct _Dims<const ND: usize> {
    pub v: [i64; ND],
}

/// `_ind.size()`: the loop size, as in CuPy.
#[derive(Clone, Copy)]
pub struct _CIndexer {
    pub size_: i64,
}

impl _CIndexer {
    #[inline(always)]
    pub fn size(&self) -> i64 { self.size_ }
}

/// `(r / s, r % s)` for the extent `s` of a dimension being indexed, which is then
/// positive: no zero-divisor or overflow checks.
#[inline(always)]
pub fn _divmod(r: i64, s: i64) -> (i64, i64) {
    unsafe { core::hint::assert_unchecked(s > 0) };
    (r / s, r % s)
}

/// `p` advanced by `bytes`.
#[inline(always)]
pub unsafe fn _byte_add<T>(p: *const T, bytes: i64) -> *const T {
    unsafe { (p as *const u8).offset(bytes as isize) as *const T }
}

#[inline(always)]
pub unsafe fn _byte_add_mut<T>(p: *mut T, bytes: i64) -> *mut T {
    unsafe { (p as *mut u8).offset(bytes as isize) as *mut T }
}

/// The grid-stride loop `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
/// i += blockDim.x * gridDim.x)` over `i64` (an iterator, so `continue` in user code
/// still advances).
pub struct _GridStride {
    i: i64,
    n: i64,
    s: i64,
}

impl _GridStride {
    #[inline(always)]
    pub fn new(n: i64) -> _GridStride {
        _GridStride {
            i: block_idx_x() as i64 * block_dim_x() as i64 + thread_idx_x() as i64,
            n,
            s: block_dim_x() as i64 * grid_dim_x() as i64,
        }
    }
}

impl Iterator for _GridStride {
    type Item = i64;
    #[inline(always)]
    fn next(&mut self) -> Option<i64> {
        if self.i < self.n {
            let i = self.i;
            self.i = i + self.s;
            Some(i)
        } else {
            None
        }
    }
}

/// A value converted to another element type, as NumPy's `astype`: `x.cast()` where
/// the target type is known, `Cast::<f32>::cast(x)` otherwise.
pub trait Cast<U> {
    fn cast(self) -> U;
}

impl<T> Cast<T> for T {
    #[inline(always)]
    fn cast(self) -> T { self }
}
@CASTS@
/// `max(a, b)` / `min(a, b)`: `Ord` for integers and bool; floats ignore a NaN operand
/// (C's `fmax`/`fmin`, what CUDA's `max` does on floats).
pub trait _MinMax: Copy {
    fn _max(self, o: Self) -> Self;
    fn _min(self, o: Self) -> Self;
}

macro_rules! _minmax_ord {
    ($($t:ty),*) => { $(
        impl _MinMax for $t {
            #[inline(always)]
            fn _max(self, o: $t) -> $t { if o > self { o } else { self } }
            #[inline(always)]
            fn _min(self, o: $t) -> $t { if o < self { o } else { self } }
        }
    )* };
}
_minmax_ord!(bool, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! _minmax_float {
    ($($t:ty),*) => { $(
        impl _MinMax for $t {
            #[inline(always)]
            fn _max(self, o: $t) -> $t { if o > self || self != self { o } else { self } }
            #[inline(always)]
            fn _min(self, o: $t) -> $t { if o < self || self != self { o } else { self } }
        }
    )* };
}
_minmax_float!(f16, f32, f64);

#[inline(always)]
pub fn max<T: _MinMax>(a: T, b: T) -> T { a._max(b) }
#[inline(always)]
pub fn min<T: _MinMax>(a: T, b: T) -> T { a._min(b) }

/// `real(z)`, `imag(z)`, `conj(z)` for complex values and (as NumPy) real ones.
pub trait _Parts: Copy {
    type Real;
    fn _real(self) -> Self::Real;
    fn _imag(self) -> Self::Real;
    fn _conj(self) -> Self;
}

impl _Parts for c64 {
    type Real = f32;
    #[inline(always)] fn _real(self) -> f32 { self.re }
    #[inline(always)] fn _imag(self) -> f32 { self.im }
    #[inline(always)] fn _conj(self) -> c64 { self.conj() }
}

impl _Parts for c128 {
    type Real = f64;
    #[inline(always)] fn _real(self) -> f64 { self.re }
    #[inline(always)] fn _imag(self) -> f64 { self.im }
    #[inline(always)] fn _conj(self) -> c128 { self.conj() }
}

macro_rules! _parts_real {
    ($($t:ty: $zero:expr),*) => { $(
        impl _Parts for $t {
            type Real = $t;
            #[inline(always)] fn _real(self) -> $t { self }
            #[inline(always)] fn _imag(self) -> $t { $zero }
            #[inline(always)] fn _conj(self) -> $t { self }
        }
    )* };
}
_parts_real!(f16: 0.0, f32: 0.0, f64: 0.0, i8: 0, i16: 0, i32: 0, i64: 0, u8: 0, u16: 0, u32: 0, u64: 0);

#[inline(always)]
pub fn real<T: _Parts>(z: T) -> T::Real { z._real() }
#[inline(always)]
pub fn imag<T: _Parts>(z: T) -> T::Real { z._imag() }
#[inline(always)]
pub fn conj<T: _Parts>(z: T) -> T { z._conj() }
// ---- end of the generated header ----
"""

INTS = ("i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize")
FLOATS = ("f16", "f32", "f64")
COMPLEX = {"c64": "f32", "c128": "f64"}


def _cast_expr(src, dst):
    """The Rust expression converting `self` of type `src` to `dst` (NumPy's astype)."""
    if dst == "bool":
        if src in COMPLEX:
            return "self.re != 0.0 || self.im != 0.0"
        return "self != 0.0" if src in FLOATS else "self != 0"
    if src == "bool":
        return _cast_expr("u8", dst).replace("self", "(self as u8)")
    if dst in COMPLEX:
        part = COMPLEX[dst]
        if src in COMPLEX:
            return f"{dst}::new(self.re as {part}, self.im as {part})"
        return f"{dst}::new(self as {part}, 0.0)"
    if src in COMPLEX:
        return f"self.re as {dst}"
    return f"self as {dst}"


def _casts():
    """``impl Cast<D> for S`` between every two distinct element types (the blanket
    impl covers ``S == D``)."""
    types = ("bool",) + INTS + FLOATS + tuple(COMPLEX)
    lines = []
    for s in types:
        for d in types:
            if s != d:
                lines.append(
                    f"impl Cast<{d}> for {s} {{ #[inline(always)] fn cast(self) -> {d} "
                    f"{{ {_cast_expr(s, d)} }} }}"
                )
    return "\n".join(lines) + "\n"


HEADER = HEADER.replace("@CASTS@", _casts())


__all__ = ["HEADER", "INTS", "FLOATS", "COMPLEX"]
