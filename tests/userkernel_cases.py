"""The Rust user kernels of the test suite and of ``benchmarks/bench_userkernel.py``,
with the exact calls they make: one list, shared by the tests that run them and by
``scripts/prebuild_rust_kernels.py``, which compiles them ahead of time.

Why: Rust kernels compile only where the Rust toolchain is (the pinned nightly with
rustc's NVPTX target); the GPU machines have none, so they load Rust kernels from a
kernel cache folder (``GPUPY_CACHE_DIR``) filled on a machine that has one. A module's
cache key is its source (and options, toolchain id, target, device crate digest); for
``ElementwiseKernel``/``ReductionKernel`` the source is generated per call signature
(argument dtypes, raw dimensions, contiguous or strided layout, reduced and kept
dimensions). So every call a Rust test makes is declared here, with its arguments'
dtypes, shapes and views: the tests make exactly these calls (on random data), and the
prebuild script asks each kernel's ``plan``/``prebuild`` for the same calls on array
layouts alone, through the code the call itself runs up to the generated source.

Nothing here needs a GPU or gpupy: an array argument is an ``Arr`` (shape, dtype, view,
kind of data) that the test fills with random data (``Arr.host``) and the prebuild turns
into a layout (``Arr.layout``, a NumPy view with the strides the gpupy view has).
"""

import numpy as np

# Views as functions that work on NumPy and gpupy arrays alike (as helpers.VIEWS_*).
VIEWS = {
    "contiguous": lambda a: a,
    "step2": lambda a: a[::2],
    "negstep": lambda a: a[::-1],
    "transposed": lambda a: a.T,
    "negstep2d": lambda a: a[::-1, ::-2],
    "transposed_sliced": lambda a: a.T[1::3, ::-1],
    # Contiguous rows that start one element in: off the 16-byte packs reductions load.
    "offset1": lambda a: a[..., 1:],
}


def _uniform(rng, shape, dtype):
    """helpers.random_array's draw: floats in [-1, 1), integers over their whole range,
    random booleans, complex parts in [-1, 1)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dt)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    if dt.kind == "c":
        return (rng.uniform(-1, 1, size=shape) + 1j * rng.uniform(-1, 1, size=shape)).astype(dt)
    return np.asarray(rng.uniform(-1, 1, size=shape)).astype(dt)


# Kinds of data: reductions that must be exact in any order take small integers.
DATA = {
    "uniform": _uniform,
    "ternary": lambda rng, shape, dtype: rng.integers(-1, 2, size=shape).astype(dtype),
    "small": lambda rng, shape, dtype: rng.integers(-400, 400, size=shape, endpoint=True).astype(dtype),
}


class Arr:
    """An array argument: random data of ``shape``/``dtype`` drawn as ``data``, passed
    through ``VIEWS[view]``."""

    def __init__(self, shape, dtype, view="contiguous", data="uniform"):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.view = view
        self.data = data

    def host(self, rng):
        """(base, view): fresh random NumPy data and the view the call passes."""
        base = DATA[self.data](rng, self.shape, self.dtype)
        return base, VIEWS[self.view](base)

    def apply(self, a):
        return VIEWS[self.view](a)

    def layout(self):
        """A NumPy array whose shape, dtype and strides are those the gpupy view has."""
        return VIEWS[self.view](np.empty(self.shape, self.dtype))

    def __repr__(self):
        view = "" if self.view == "contiguous" else f"|{self.view}"
        return f"{self.dtype.name}{list(self.shape)}{view}"


class Call:
    """One call: positional arguments (``Arr`` or scalars; outputs given positionally
    are ``Arr`` too) and keywords (``axis=``, ``keepdims=``, ``size=``, ``out=Arr``)."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def layouts(self):
        """(args, kwargs) with each ``Arr`` replaced by its layout (for ``plan``)."""
        conv = lambda v: v.layout() if isinstance(v, Arr) else v  # noqa: E731
        return tuple(conv(a) for a in self.args), {k: conv(v) for k, v in self.kwargs.items()}

    def __repr__(self):
        parts = [repr(a) if isinstance(a, Arr) else type(a).__name__ for a in self.args]
        parts += [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return ",".join(parts)


class Case:
    """A Rust ``ElementwiseKernel`` (``kind='elementwise'``) or ``ReductionKernel``
    (``'reduction'``): the constructor's arguments and the calls made with it."""

    def __init__(self, kind, params, calls, **kwargs):
        self.kind = kind
        self.params = params
        self.kwargs = kwargs
        self.calls = calls

    @property
    def name(self):
        return self.params[3] if self.kind == "elementwise" else self.params[6]

    def make(self, gp):
        """The kernel object (``gp`` is the gpupy module)."""
        cls = gp.ElementwiseKernel if self.kind == "elementwise" else gp.ReductionKernel
        return cls(*self.params, language="rust", **self.kwargs)


# ---------------------------------------------------------------------------------------
# RawKernel / RawModule sources.

# The tutorial kernels: CUDA Python's saxpy (``const float a`` is ``a: f32``: a Python
# float 2.0 arrives as a double whose first four bytes are zeros, as in CUDA C), CuPy's
# ``my_add`` (no bounds check: exactly one thread per element) and ``add_arrays``.
RUST_TUTORIAL = """
/// CUDA Python's saxpy: `out[i] = a * x[i] + y[i]` for `i < n`, one element a thread.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn saxpy(a: f32, x: *const f32, y: *const f32, out: *mut f32, n: usize) {
    let tid = global_thread_idx();
    if tid < n {
        *out.add(tid) = a * *x.add(tid) + *y.add(tid);
    }
}

/// CuPy's `my_add`: as many threads as elements.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn my_add(x1: *const f32, x2: *const f32, y: *mut f32) {
    let tid = (block_dim_x() * block_idx_x() + thread_idx_x()) as usize;
    *y.add(tid) = *x1.add(tid) + *x2.add(tid);
}

/// `y = x1 + x2` over `n` elements, any grid (a grid-stride loop).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn add_arrays(x1: *const f32, x2: *const f32, y: *mut f32, n: usize) {
    for i in grid_stride_range(n) {
        *y.add(i) = *x1.add(i) + *x2.add(i);
    }
}
"""

# Each parameter's bytes, one after the other (one thread): what the launch passed for
# each NumPy scalar type, and for Python's int, float, complex and bool.
RUST_SCALARS = """
#[inline(always)]
unsafe fn put<T>(out: *mut u8, at: &mut usize, v: &T) {
    let n = core::mem::size_of::<T>();
    core::ptr::copy_nonoverlapping(v as *const T as *const u8, out.add(*at), n);
    *at += n;
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scalars(a: i8, b: i16, c: i32, d: i64, e: u8, f: u16, g: u32, h: u64,
                                          hf: f16, fl: f32, db: f64, bo: bool, z64: c64, z128: c128,
                                          out: *mut u8) {
    let mut at = 0usize;
    put(out, &mut at, &a); put(out, &mut at, &b); put(out, &mut at, &c); put(out, &mut at, &d);
    put(out, &mut at, &e); put(out, &mut at, &f); put(out, &mut at, &g); put(out, &mut at, &h);
    put(out, &mut at, &hf); put(out, &mut at, &fl); put(out, &mut at, &db); put(out, &mut at, &bo);
    put(out, &mut at, &z64); put(out, &mut at, &z128);
}

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn python_scalars(i: i64, f: f64, z: c128, b: bool, out: *mut u8) {
    let mut at = 0usize;
    put(out, &mut at, &i); put(out, &mut at, &f); put(out, &mut at, &z); put(out, &mut at, &b);
}
"""

# A block reverses `n` floats through the dynamic shared memory (`shared_mem=` bytes).
RUST_REVERSE_SHARED = """
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn reverse_shared(x: *const f32, y: *mut f32, n: i32) {
    let buf = shared_ptr::<f32>();
    let n = n as usize;
    let mut i = thread_idx_x() as usize;
    while i < n {
        *buf.add(i) = *x.add(i);
        i += block_dim_x() as usize;
    }
    sync_threads();
    let mut i = thread_idx_x() as usize;
    while i < n {
        *y.add(i) = *buf.add(n - 1 - i);
        i += block_dim_x() as usize;
    }
}
"""

# (source, options) of every Rust RawModule/RawKernel the tests and the benchmark build.
RUST_SOURCES = {
    "tutorial": (RUST_TUTORIAL, ()),
    "scalars": (RUST_SCALARS, ()),
    "reverse_shared": (RUST_REVERSE_SHARED, ()),
}

# ---------------------------------------------------------------------------------------
# ElementwiseKernel and ReductionKernel in Rust, with their calls. The operations are
# CuPy's own text where it is valid Rust too (a statement, `sqrt(a)`, `max(a, b)`, `0`
# as the identity, `x[i]` on a raw parameter): the CUDA C programs run unchanged.

f32, f64 = np.float32, np.float64

AXPB = Case("elementwise", ("float32 x, float32 a, float32 b", "float32 y", "y = a * x + b;", "axpb"), [
    Call(Arr((1,), f32), 2.0, 1.0),
    Call(Arr((257,), f32), 0.75, -1.5),
    Call(Arr((100003,), f32), -1.25, 0.5),  # the contiguous layout: also the benchmark's
    Call(Arr((257,), f32), np.float32(2.5), np.float64(-1.0), Arr((257,), f32)),  # output given
    Call(Arr((64, 33), f32, "transposed"), 1.5, 2.0),
    Call(Arr((1001,), f32, "step2"), 1.5, 2.0),
])

SQUARED_DIFF_DTYPES = [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16, np.float32, np.float64,
                       np.complex64, np.complex128]
SQUARED_DIFF = Case(
    "elementwise", ("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff"),
    [Call(Arr((257,), t), Arr((257,), t)) for t in SQUARED_DIFF_DTYPES]
    + [Call(Arr((5, 1), t), Arr((1, 7), t)) for t in (np.float32, np.complex64)]  # broadcast
    + [Call(Arr((2, 5), f32), 5)],  # CuPy's user guide: a Python scalar takes T
)

COPY_DTYPES = [np.bool_, np.int16, np.uint32, np.float16, np.complex128]
COPY = Case("elementwise", ("T x", "T y", "y = x", "copy_generic"),
            [Call(Arr((9, 12), t, "transposed_sliced")) for t in COPY_DTYPES])

ADD_REVERSE = Case("elementwise", ("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]", "add_reverse"), [
    Call(Arr((1000,), f32), Arr((2000,), f32, "step2")),
])

REVERSE_RAW = Case("elementwise", ("raw T x", "T y", "y = x[_ind.size() - i - 1]", "reverse_raw"), [
    Call(Arr((9, 12), f64, "transposed"), size=108),
])

IOTA = Case("elementwise", ("int64 start", "int64 y", "y = start + i", "iota"), [
    Call(123456789, size=1000),
])

SUM_DIFF = Case("elementwise", ("T x, T y", "T s, T d", "s = x + y; d = x - y", "sum_diff"), [
    Call(Arr((33, 7), f64), Arr((7,), f64)),
])

L2NORM = Case(
    "reduction", ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm"),
    [Call(Arr((6, 35, 9), t), axis=axis, keepdims=keep)
     for t in (f32, f64) for axis in (None, 1, (0, 2)) for keep in (False, True)]
    + [Call(Arr((2, 5), f32), axis=1)],  # CuPy's user guide
)

SUM_SQUARES = Case("reduction", ("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_squares"), [
    Call(Arr((2**22,), f32, data="ternary")),  # several blocks per output: also the benchmark's
    Call(Arr((100003,), f32)),
])

SUM_SQUARES64 = Case("reduction", ("T x", "float64 y", "x * x", "a + b", "y = a", "0", "sum_squares64"), [
    Call(Arr((100003,), f32)),
], reduce_type="float64")

MY_MAX = Case("reduction", ("T x", "T y", "x", "max(a, b)", "y = a", None, "my_max"), [
    Call(Arr((50, 7), t), axis=0) for t in (np.int32, f64)
])

# The schedules (see _reduction.py) on exact data.
SCHEDULES = [((2**22,), None), ((8, 2**20), 1), ((4096, 300), 0), ((300, 4096), 0), ((20, 5000), 0),
             ((64, 50, 130), (0, 2))]
# Packed loads (see _cuda_source._packed_loop): slices on and off the pack boundary.
PACKS = [((4099,), None, "contiguous"), ((4100,), None, "offset1"), ((7, 1001), 1, "contiguous"),
         ((7, 1002), 1, "offset1"), ((3, 2**20 + 5), 1, "offset1")]
MY_SUM = Case("reduction", ("T x", "T y", "x", "a + b", "y = a", "0", "my_sum"), [
    Call(Arr(shape, t, data="small" if t == np.int32 else "ternary"), axis=axis)
    for t in (np.int32, f32) for shape, axis in SCHEDULES
] + [
    Call(Arr(shape, t, view, data="ternary"), axis=axis)
    for t in (f32, f64, np.complex64) for shape, axis, view in PACKS
])

ELEMENTWISE_CASES = [AXPB, SQUARED_DIFF, COPY, ADD_REVERSE, REVERSE_RAW, IOTA, SUM_DIFF]
REDUCTION_CASES = [L2NORM, SUM_SQUARES, SUM_SQUARES64, MY_MAX, MY_SUM]
CASES = ELEMENTWISE_CASES + REDUCTION_CASES


def case_calls(cases):
    """(case, call) pairs with readable ids, for pytest.mark.parametrize."""
    pairs = [(c, call) for c in cases for call in c.calls]
    return pairs, [f"{c.name}({call!r})" for c, call in pairs]


__all__ = ["VIEWS", "DATA", "Arr", "Call", "Case", "RUST_SOURCES", "RUST_TUTORIAL", "RUST_SCALARS",
           "RUST_REVERSE_SHARED", "CASES", "ELEMENTWISE_CASES", "REDUCTION_CASES", "case_calls"]
