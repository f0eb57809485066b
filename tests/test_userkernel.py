"""Users' own kernels in CUDA C (issue #18): ``gpupy.ElementwiseKernel``,
``gpupy.ReductionKernel``, ``gpupy.RawKernel``, ``gpupy.RawModule``, ``gpupy.memoize`` /
``gpupy.clear_memo``, ``gpupy.cuda.compiler.CompileException`` and the compile cache,
with CuPy's documented examples (its user guide's ``squared_diff``, ``add_reverse``,
``l2norm``, ``my_add``, ``test_sum``/``test_multiply``, ``fx3``), the issue's tutorial
programs (``axpb``, ``sum_squares``, the CUDA Python ``saxpy``) and NumPy as reference.
The same programs in Rust are in ``test_userkernel_rust.py``.

Tolerances (``u`` the unit roundoff of the dtype):

- one IEEE operation per element (``x + y``, ``(x - y) * (x - y)`` in float32/float64,
  copies, max): bit-exact against NumPy;
- ``a * x + b``: NVRTC contracts it into a fused multiply-add by default
  (``--fmad=true``), so the result is either ``fma`` (within ``u |exact|``) or NumPy's
  two roundings (within ``u |a x| + u |exact|``): ``|got - exact| <= u (|a x| +
  |exact|)``, exact from float64;
- float16 arithmetic runs in float32 and rounds once to float16 (as the generated
  ``float16`` type does): within 0.5 ulp + 2**-13 ulp of float16 of the exact value;
- complex ``(x - y) * (x - y)``: each component is ``p q -+ r s`` with or without a
  fused multiply-add, within ``2 u |x - y|**2`` of the exact square of the rounded
  difference;
- ``sqrt(sum(x * x))`` over ``n`` elements: the ``n`` rounded squares summed in any order
  are within ``n u`` (relative, all terms positive), halved by the square root, plus the
  root's own rounding: ``(n/2 + 1) u``, asserted at twice that, ``(n + 2) u``;
- the reductions that take the multi-block and thread-per-output schedules run on
  small integers (exact in float32 up to 2**24), so their results are exact.

The comparisons are in ``userkernel_checks.py`` (shared with the Rust tests). After the
error tests, the memory pool's used bytes are back where they were (the
``pool_baseline`` fixture).
"""

import io
import os
import subprocess
import sys
import uuid

import numpy as np
import pytest

import gpupy as gp
from gpupy._userkernel import _cache, _nvrtc
from helpers import (
    ALL_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    dtype_id,
    random_array,
)
from userkernel_checks import (
    Interface,
    assert_axpb_close,
    assert_l2norm_close,
    assert_squared_diff,
    assert_sum_close,
    operands,
)

pytestmark = pytest.mark.gpu

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE_PTX = os.path.join(ROOT, "examples", "rust_kernel", "saxpy.ptx")
CompileException = gp.cuda.compiler.CompileException


# ---------------------------------------------------------------------------------------
# ElementwiseKernel

AXPB = ("float32 x, float32 a, float32 b", "float32 y", "y = a * x + b;", "axpb")
SQUARED_DIFF = ("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff")
SQUARED_DIFF_GENERIC = ("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff_generic")
COPY = ("T x", "T y", "y = x", "copy_generic")

axpb = gp.ElementwiseKernel(*AXPB)
squared_diff = gp.ElementwiseKernel(*SQUARED_DIFF)
squared_diff_generic = gp.ElementwiseKernel(*SQUARED_DIFF_GENERIC)
copy_kernel = gp.ElementwiseKernel(*COPY)


@pytest.mark.parametrize("n", [1, 257, 100003])
def test_axpb_tutorial(rng, n):
    """The issue's ``axpb`` as written for CuPy: Python floats for the float32 ``a``
    and ``b`` (converted to the declared type)."""
    x = random_array(rng, n, np.float32)
    a, b = float(rng.uniform(-2, 2)), float(rng.uniform(-2, 2))
    y = axpb(gp.asarray(x), a, b)
    assert isinstance(y, gp.ndarray) and y.shape == (n,)
    assert_axpb_close(y.get(), np.float32(a), x, np.float32(b))


def test_axpb_scalar_types_and_output(rng):
    """NumPy scalars of other types convert to the declared float32 too; a given
    output is written and returned."""
    x = random_array(rng, (37, 11), np.float32)
    a, b = np.float64(rng.uniform(-2, 2)), np.int32(rng.integers(-5, 5))
    out = gp.empty((37, 11), np.float32)
    y = axpb(gp.asarray(x), a, b, out)
    assert y is out
    assert_axpb_close(y.get(), np.float32(a), x, np.float32(b))


def test_squared_diff_user_guide(rng):
    """CuPy's user guide: ``squared_diff`` on broadcast arrays, on an array and a Python
    scalar, and into a given output."""
    x = random_array(rng, (2, 5), np.float32)
    y = random_array(rng, (5,), np.float32)
    gx, gy = gp.asarray(x), gp.asarray(y)
    assert_equal_to_numpy(squared_diff(gx, gy), (x - y) * (x - y))
    assert_equal_to_numpy(squared_diff(gx, 5), (x - np.float32(5)) * (x - np.float32(5)))
    z = gp.empty((2, 5), dtype=np.float32)
    assert squared_diff(gx, gy, z) is z
    assert_equal_to_numpy(z, (x - y) * (x - y))
    # The generic version binds T from the arrays; the scalar takes T.
    assert_equal_to_numpy(squared_diff_generic(gx, gy), (x - y) * (x - y))
    got = squared_diff_generic(gx, 5)
    assert_equal_to_numpy(got, (x - np.float32(5)) * (x - np.float32(5)))


SQUARED_DIFF_DTYPES = [d for d in ALL_DTYPES if d is not np.bool_]  # NumPy has no bool subtract
SHAPE_PAIRS = [((257,), (257,)), ((5, 1), (1, 7)), ((3, 1, 4), (2, 4)), ((100003,), ())]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("dtype", SQUARED_DIFF_DTYPES, ids=dtype_id)
def test_squared_diff_generic_dtypes(rng, dtype, shapes):
    x = operands(rng, shapes[0], dtype)
    y = operands(rng, shapes[1], dtype)
    got = squared_diff_generic(gp.asarray(x), gp.asarray(y))
    assert got.dtype == np.dtype(dtype)
    assert_squared_diff(got, x, y)


def test_squared_diff_several_placeholders(rng):
    """CuPy's ``squared_diff_super_generic``: ``Z`` is bound only by a given output;
    the arithmetic is C++'s (int and float make float)."""
    k = gp.ElementwiseKernel("X x, Y y", "Z z", "z = (x - y) * (x - y)", "squared_diff_super_generic")
    x = rng.integers(-1000, 1000, size=(6, 9)).astype(np.int32)
    y = random_array(rng, (9,), np.float32)
    z = gp.empty((6, 9), np.float64)
    assert k(gp.asarray(x), gp.asarray(y), z) is z
    d = x.astype(np.float32) - y  # int32 -> float exact below 2**24
    assert_equal_to_numpy(z, (d * d).astype(np.float64))
    with pytest.raises(TypeError):
        k(gp.asarray(x), gp.asarray(y))  # Z cannot be determined


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_copy_every_dtype_and_view(rng, dtype, view):
    """``y = x`` moves every dtype's bits unchanged through strided, transposed and
    negative-stride views."""
    x = random_array(rng, (9, 12), dtype)
    got = copy_kernel(view(gp.asarray(x)))
    assert_equal_to_numpy(got, np.ascontiguousarray(view(x)))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_output_view_is_written_in_place(rng, view):
    """A non-contiguous output view: its elements are written, the rest of its base
    stays as it was."""
    x = random_array(rng, (9, 12), np.float64)
    base = random_array(rng, (9, 12), np.float64)
    gbase = gp.asarray(base)
    out = view(gbase)
    assert copy_kernel(view(gp.asarray(x)), out) is out
    want = base.copy()
    view(want)[...] = view(x)
    assert_equal_to_numpy(gbase, want)


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
def test_squared_diff_1d_views(rng, view):
    x = random_array(rng, (1001,), np.float32)
    y = random_array(rng, (1001,), np.float32)
    got = squared_diff(view(gp.asarray(x)), view(gp.asarray(y)))
    assert_equal_to_numpy(got, (view(x) - view(y)) * (view(x) - view(y)))


def test_zero_d_and_empty(rng, pool_baseline):
    x0 = random_array(rng, (), np.float64)
    y0 = random_array(rng, (), np.float64)
    got = squared_diff_generic(gp.asarray(x0), gp.asarray(y0))
    assert got.shape == ()
    assert_equal_to_numpy(got, (x0 - y0) * (x0 - y0))
    got = squared_diff_generic(gp.asarray(x0), 0.5)
    assert_equal_to_numpy(got, (x0 - 0.5) * (x0 - 0.5))
    for sx, sy in [((0,), (0,)), ((3, 0), (0,)), ((0, 1), (1, 5)), ((0,), ())]:
        x = random_array(rng, sx, np.float32)
        y = random_array(rng, sy, np.float32)
        got = squared_diff_generic(gp.asarray(x), gp.asarray(y))
        assert_equal_to_numpy(got, (x - y) * (x - y))
        del got


def test_reduce_dims_false_and_preamble(rng):
    """``reduce_dims=False`` walks every dimension as given; the preamble's device
    function is callable from the operation; ``loop_prep``/``after_loop`` compile."""
    k = gp.ElementwiseKernel(
        "T x", "T y", "y = twice(x)", "twice_kernel", reduce_dims=False,
        preamble="template <typename V> __device__ V twice(V v) { return v + v; }",
        loop_prep="int _unused_prep = 0; (void)_unused_prep;", after_loop="(void)0;",
    )
    x = random_array(rng, (4, 5, 6), np.float32)
    for view in (lambda a: a, lambda a: a.transpose(2, 0, 1), lambda a: a[::-1, 1:, ::2]):
        assert_equal_to_numpy(k(view(gp.asarray(x))), view(x) + view(x))


def test_raw_argument_add_reverse(rng):
    """CuPy's user guide ``add_reverse``: ``y`` indexed by hand through ``i`` and
    ``_ind.size()``, here a strided view (the raw view walks its own strides)."""
    add_reverse = gp.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]", "add_reverse")
    x = random_array(rng, (1000,), np.float32)
    ybase = random_array(rng, (2000,), np.float32)
    got = add_reverse(gp.asarray(x), gp.asarray(ybase)[::2])
    assert_equal_to_numpy(got, x + ybase[::2][::-1])
    # Two dimensions: the raw index is the flat C-order index of the view.
    x2 = random_array(rng, (4, 6), np.float64)
    y2 = random_array(rng, (6, 4), np.float64)
    got = add_reverse(gp.asarray(x2), gp.asarray(y2).T)
    assert_equal_to_numpy(got, x2 + y2.T.ravel()[::-1].reshape(4, 6))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.int16, np.bool_, np.float16], ids=dtype_id)
def test_raw_input_with_size(rng, dtype, view):
    """Every argument raw (or an allocated output): ``size=`` sets the loop and
    ``_ind.size()``."""
    k = gp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - i - 1]", "reverse_raw")
    x = random_array(rng, (9, 12), dtype)
    xv = view(x)
    got = k(view(gp.asarray(x)), size=xv.size)
    assert_equal_to_numpy(got, np.ascontiguousarray(xv).ravel()[::-1])


def test_size_without_array_arguments(rng, pool_baseline):
    iota = gp.ElementwiseKernel("int64 start", "int64 y", "y = start + i", "iota")
    start = int(rng.integers(-(2**40), 2**40))
    assert_equal_to_numpy(iota(start, size=1000), start + np.arange(1000, dtype=np.int64))
    # A raw output written by index, and no result (no_return).
    ramp = gp.ElementwiseKernel("float64 a", "raw float64 y", "y[i] = a * i", "ramp", no_return=True)
    a = float(rng.uniform(-3, 3))
    y = gp.asarray(random_array(rng, (513,), np.float64))
    assert ramp(a, y, size=513) is None
    assert_equal_to_numpy(y, a * np.arange(513, dtype=np.float64))
    with pytest.raises(ValueError, match="Loop size is undecided"):
        iota(start)
    x = gp.asarray(random_array(rng, (5,), np.float32))
    with pytest.raises(ValueError, match="size"):
        squared_diff(x, x, size=5)
    del x, y


def test_outputs_tuple_no_return(rng):
    x = random_array(rng, (33, 7), np.float64)
    y = random_array(rng, (7,), np.float64)
    gx, gy = gp.asarray(x), gp.asarray(y)
    sum_diff = gp.ElementwiseKernel("T x, T y", "T s, T d", "s = x + y; d = x - y", "sum_diff")
    s, d = sum_diff(gx, gy)
    assert_equal_to_numpy(s, x + y)
    assert_equal_to_numpy(d, x - y)
    s_out, d_out = gp.empty((33, 7), np.float64), gp.empty((33, 7), np.float64)
    r = sum_diff(gx, gy, s_out, d_out)
    assert isinstance(r, tuple) and r[0] is s_out and r[1] is d_out
    assert_equal_to_numpy(d_out, x - y)
    tup = gp.ElementwiseKernel(*SQUARED_DIFF_GENERIC[:3], "tup", return_tuple=True)
    r = tup(gx, gy)
    assert isinstance(r, tuple) and len(r) == 1
    assert_equal_to_numpy(r[0], (x - y) * (x - y))
    quiet = gp.ElementwiseKernel(*SQUARED_DIFF_GENERIC[:3], "quiet", no_return=True)
    z = gp.empty((33, 7), np.float64)
    assert quiet(gx, gy, z) is None
    assert_equal_to_numpy(z, (x - y) * (x - y))


def test_bool_and_mixed_declared_types(rng):
    k = gp.ElementwiseKernel("bool p, bool q", "bool r", "r = p && !q", "and_not")
    p = random_array(rng, (301,), np.bool_)
    q = random_array(rng, (301,), np.bool_)
    assert_equal_to_numpy(k(gp.asarray(p), gp.asarray(q)), p & ~q)
    widen = gp.ElementwiseKernel("float32 x", "float64 y", "y = x", "widen")
    x = random_array(rng, (301,), np.float32)
    assert_equal_to_numpy(widen(gp.asarray(x)), x.astype(np.float64))


def test_cuda_array_interface_arguments(rng):
    x = random_array(rng, (40, 3), np.float32)
    y = random_array(rng, (3,), np.float32)
    got = squared_diff_generic(Interface(gp.asarray(x)), Interface(gp.asarray(y)))
    assert_equal_to_numpy(got, (x - y) * (x - y))


def test_elementwise_on_a_stream(rng):
    x = random_array(rng, (100003,), np.float32)
    y = random_array(rng, (100003,), np.float32)
    gx, gy = gp.asarray(x), gp.asarray(y)
    got = gp.empty(100003, np.float32)
    gp.cuda.Device().synchronize()  # the uploads and the allocation are done
    s = gp.cuda.Stream(non_blocking=True)
    assert squared_diff(gx, gy, got, stream=s) is got
    s.synchronize()
    assert_equal_to_numpy(got, (x - y) * (x - y))


def test_elementwise_bad_input(rng, pool_baseline):
    x32 = gp.asarray(random_array(rng, (10,), np.float32))
    x64 = gp.asarray(random_array(rng, (10,), np.float64))
    with pytest.raises(TypeError, match="Type is mismatched"):
        squared_diff_generic(x32, x64)
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        squared_diff_generic(x32)
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        squared_diff_generic(x32, x32, x32, x32)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        squared_diff_generic(x32, x32, gp.empty((11,), np.float32))
    with pytest.raises(TypeError, match="Type is mismatched"):
        squared_diff_generic(x32, x32, gp.empty((10,), np.float64))
    with pytest.raises(ValueError):
        squared_diff_generic(x32, gp.asarray(random_array(rng, (3,), np.float32)))  # no broadcast
    with pytest.raises(TypeError):
        squared_diff_generic(x32, random_array(rng, (10,), np.float32))  # a NumPy array
    with pytest.raises(TypeError):
        squared_diff_generic(x32, "text")
    unknown = gp.ElementwiseKernel("T x", "U y", "y = x", "unknown_placeholder")
    with pytest.raises(TypeError):
        unknown(x32)  # U is bound by nothing
    out = gp.empty((10,), np.float64)
    assert unknown(x32, out) is out  # ... unless the output binds it
    assert_equal_to_numpy(out, x32.get().astype(np.float64))
    with pytest.raises(ValueError, match="language"):
        gp.ElementwiseKernel("T x", "T y", "y = x", "k", language="fortran")
    # Still usable after the errors.
    assert_equal_to_numpy(squared_diff_generic(x32, x32), np.zeros(10, np.float32))
    del x32, x64, out


def test_elementwise_compile_error(rng, pool_baseline):
    bad = gp.ElementwiseKernel("T x", "T y", "y = x +* ;", "bad_operation")
    x = gp.asarray(random_array(rng, (10,), np.float32))
    with pytest.raises(CompileException) as info:
        bad(x)
    assert "bad_operation" in info.value.source
    assert "error" in info.value.get_message()
    del info
    assert_equal_to_numpy(copy_kernel(x), x.get())
    del x


# ---------------------------------------------------------------------------------------
# ReductionKernel

L2NORM = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
SUM_SQUARES = ("T x", "T y", "x * x", "a + b", "y = a", "0", "sum_squares")
IMAX = ("T x", "T y", "x", "max(a, b)", "y = a", None, "my_max")
ISUM = ("T x", "T y", "x", "a + b", "y = a", "0", "my_sum")

l2norm = gp.ReductionKernel(*L2NORM)
sum_squares = gp.ReductionKernel(*SUM_SQUARES)
my_max = gp.ReductionKernel(*IMAX)
my_sum = gp.ReductionKernel(*ISUM)


def test_l2norm_user_guide(rng):
    x = random_array(rng, (2, 5), np.float32)
    assert_l2norm_close(l2norm(gp.asarray(x), axis=1), x, axis=1)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2), -1, (-1, 0), (0, 1, 2)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
def test_l2norm_axes(rng, dtype, axis, keepdims):
    x = random_array(rng, (6, 35, 9), dtype)
    assert_l2norm_close(l2norm(gp.asarray(x), axis=axis, keepdims=keepdims), x, axis, keepdims)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_l2norm_views(rng, view, axis):
    x = random_array(rng, (40, 33), np.float32)
    got = l2norm(view(gp.asarray(x)), axis=axis)
    assert_l2norm_close(got, np.ascontiguousarray(view(x)), axis)


def test_l2norm_out(rng, pool_baseline):
    x = random_array(rng, (12, 50), np.float64)
    gx = gp.asarray(x)
    out = gp.empty((12,), np.float64)
    assert l2norm(gx, axis=1, out=out) is out
    assert_l2norm_close(out, x, axis=1)
    base = gp.empty((24,), np.float64)
    out = base[::2]  # a strided output
    assert l2norm(gx, axis=1, out=out) is out
    assert_l2norm_close(out, x, axis=1)
    out = gp.empty((12, 1), np.float64)
    assert l2norm(gx, axis=1, keepdims=True, out=out) is out
    assert_l2norm_close(out, x, axis=1, keepdims=True)
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        l2norm(gx, axis=1, out=gp.empty((13,), np.float64))
    with pytest.raises(ValueError, match="Out shape is mismatched"):
        l2norm(gx, axis=1, keepdims=True, out=gp.empty((12,), np.float64))
    with pytest.raises(TypeError, match="Type is mismatched"):
        l2norm(gx, axis=1, out=gp.empty((12,), np.float32))
    del gx, out, base


def test_sum_squares(rng):
    """The issue's ``sum_squares``, in the input's type and accumulated in float64
    (``reduce_type``): the float32 squares, rounded, summed within ``n u64``."""
    x = random_array(rng, (100003,), np.float32)
    gx = gp.asarray(x)
    got = sum_squares(gx)
    assert got.shape == () and got.dtype == np.float32
    # The exact squares (a fused multiply-add may skip their rounding), in float32.
    assert_sum_close(got, x.astype(np.float64) ** 2, x.size, np.float32)
    wide = gp.ReductionKernel("T x", "float64 y", "x * x", "a + b", "y = a", "0", "sum_squares64",
                              reduce_type="float64")
    got = wide(gx)
    assert got.shape == () and got.dtype == np.float64
    # The float32-rounded squares (the map's type), summed in float64.
    assert_sum_close(got, (x * x).astype(np.float64), x.size, np.float64)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.float32, np.float64],
                         ids=dtype_id)
@pytest.mark.parametrize("shape_axis", [((50, 7), 0), ((50, 7), 1), ((3, 40, 5), (0, 2)), ((1000,), None),
                                        ((7, 8), -1)], ids=str)
def test_max_without_identity(rng, dtype, shape_axis):
    shape, axis = shape_axis
    x = random_array(rng, shape, dtype)
    got = my_max(gp.asarray(x), axis=axis)
    assert_equal_to_numpy(got, np.max(x, axis=axis))
    got = my_max(gp.asarray(x)[::-1], axis=axis, keepdims=True)
    assert_equal_to_numpy(got, np.max(x[::-1], axis=axis, keepdims=True))


def test_empty_reductions(rng, pool_baseline):
    """Without an identity an empty reduction with outputs raises ValueError (as
    NumPy's max); with one it gives the post-map of the identity; no outputs, no
    launch."""
    for shape, axis in [((0, 5), 0), ((5, 0), 1), ((0,), None), ((0, 3), None)]:
        x = random_array(rng, shape, np.float32)
        with pytest.raises(ValueError):
            np.max(x, axis=axis)
        with pytest.raises(ValueError, match="zero-size array"):
            my_max(gp.asarray(x), axis=axis)
    x = random_array(rng, (5, 0), np.float32)
    assert_equal_to_numpy(my_max(gp.asarray(x), axis=0), np.max(x, axis=0))
    assert_equal_to_numpy(l2norm(gp.asarray(x), axis=1), np.zeros(5, np.float32))
    assert_equal_to_numpy(l2norm(gp.asarray(x)), np.float32(0))
    del x


# The schedules (see _reduction.py): (shape, axis, view) -> which kernel runs.
SCHEDULES = [
    ((2**22,), None, "several blocks per output + combining pass"),
    ((8, 2**20), 1, "8 outputs, each split over many blocks"),
    ((4096, 300), 0, "a block per output, strided reads"),
    ((300, 4096), 1, "a block per output, contiguous reads"),
    ((300, 4096), 0, "a thread per output (outer axis)"),
    ((20, 5000), 0, "a thread per output (short reductions)"),
    ((64, 50, 130), (0, 2), "outer and inner axes"),
]


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.uint32], ids=dtype_id)
@pytest.mark.parametrize("shape,axis,schedule", SCHEDULES, ids=[s[2] for s in SCHEDULES])
def test_reduction_schedules_exact(rng, shape, axis, schedule, dtype):
    """Sums on data whose every partial sum is exact (so any order gives NumPy's
    value): float32 from {-1, 0, 1}; int32 below 400 in magnitude (no overflow, which
    is undefined in C++); int64 below 2**40; uint32 over its whole range (unsigned
    arithmetic wraps mod 2**32 as NumPy's uint32 sum does)."""
    if dtype == np.float32:
        x = rng.integers(-1, 2, size=shape).astype(np.float32)
    elif dtype == np.int32:
        x = rng.integers(-400, 400, size=shape, endpoint=True).astype(np.int32)
    elif dtype == np.int64:
        x = rng.integers(-(2**40), 2**40, size=shape, endpoint=True)
    else:
        x = random_array(rng, shape, np.uint32)
    gx = gp.asarray(x)
    assert_equal_to_numpy(my_sum(gx, axis=axis), np.sum(x, axis=axis, dtype=dtype))
    if dtype == np.float32:
        # sqrt of an exact integer sum: correctly rounded on both sides.
        assert_equal_to_numpy(l2norm(gx, axis=axis), np.sqrt(np.sum(x * x, axis=axis)))
    # The same data through a transposed view: the other schedule for the same sums.
    if x.ndim == 2:
        t_axis = None if axis is None else 1 - axis
        xt = np.ascontiguousarray(x.T)
        assert_equal_to_numpy(my_sum(gp.asarray(xt).T, axis=axis), np.sum(xt.T, axis=axis, dtype=dtype))
        assert_equal_to_numpy(my_sum(gp.asarray(xt), axis=t_axis), np.sum(xt, axis=t_axis, dtype=dtype))


# Sums in float64 (complex128) of small integers: exact in any order, so the packed
# path (16-byte loads where every slice starts on a pack) and the element-wise path
# must both give NumPy's value exactly.
sum_as_double = gp.ReductionKernel("T x", "float64 y", "(double)x", "a + b", "y = a", "0",
                                   "sum_as_double", reduce_type="float64")
sum_as_complex = gp.ReductionKernel("T x", "complex128 y", "x", "a + b", "y = a", "0",
                                    "sum_as_complex", reduce_type="complex128")
dot_mixed = gp.ReductionKernel("float32 x, float64 w", "float64 y", "(double)x * w", "a + b",
                               "y = a", "0", "dot_mixed")

# (shape, axis, view): contiguous slices that start on a pack, slices that do not (an
# offset view, odd row lengths), and a slice split over many blocks.
PACK_LAYOUTS = [
    ((4099,), None, lambda a: a),
    ((4100,), None, lambda a: a[1:]),
    ((7, 1001), 1, lambda a: a),
    ((8, 4096), 1, lambda a: a),
    ((3, 2**20 + 5), 1, lambda a: a),
    ((2**21 + 3,), None, lambda a: a[3:]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint16, np.float16,
                                   np.bool_, np.complex64], ids=dtype_id)
@pytest.mark.parametrize("layout", PACK_LAYOUTS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_reduction_packed_loads_exact(rng, layout, dtype):
    shape, axis, view = layout
    if dtype == np.bool_:
        x = rng.integers(0, 2, size=shape).astype(np.bool_)
    elif dtype == np.complex64:
        x = (rng.integers(-3, 4, size=shape) + 1j * rng.integers(-3, 4, size=shape)).astype(dtype)
    else:
        x = rng.integers(0 if dtype == np.uint16 else -3, 4, size=shape).astype(dtype)
    gx = view(gp.asarray(x))
    xv = view(x)
    if dtype == np.complex64:
        assert_equal_to_numpy(sum_as_complex(gx, axis=axis), np.sum(xv, axis=axis, dtype=np.complex128))
    else:
        assert_equal_to_numpy(sum_as_double(gx, axis=axis), np.sum(xv, axis=axis, dtype=np.float64))


@pytest.mark.parametrize("offset", [(0, 0), (1, 0), (0, 1), (2, 2)], ids=str)
def test_reduction_packed_loads_two_dtypes(rng, offset):
    """float32 and float64 inputs share a pack of 2 elements (8 and 16 bytes); either
    one's misalignment sends the slice down the element-wise path."""
    n = 300007
    x = rng.integers(-3, 4, size=n + 2).astype(np.float32)
    w = rng.integers(-3, 4, size=n + 2).astype(np.float64)
    gx, gw = gp.asarray(x)[offset[0]:offset[0] + n], gp.asarray(w)[offset[1]:offset[1] + n]
    want = np.dot(x[offset[0]:offset[0] + n].astype(np.float64), w[offset[1]:offset[1] + n])
    assert_equal_to_numpy(dot_mixed(gx, gw), np.float64(want))


def test_reduction_scalar_parameter_and_two_outputs(rng):
    weighted = gp.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "weighted_sum")
    x = rng.integers(-50, 50, size=(30, 40)).astype(np.float64)
    assert_equal_to_numpy(weighted(gp.asarray(x), 4.0, axis=1), np.sum(x * 4.0, axis=1))
    two = gp.ReductionKernel("T x", "T y, T z", "x", "max(a, b)", "y = a; z = a + a", None, "max_and_twice")
    y, z = two(gp.asarray(x), axis=0)
    assert_equal_to_numpy(y, np.max(x, axis=0))
    assert_equal_to_numpy(z, 2 * np.max(x, axis=0))


def test_reduction_bad_input(rng, pool_baseline):
    gx = gp.asarray(random_array(rng, (4, 5), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        l2norm(gx, axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        l2norm(gx, axis=(0, 0))
    with pytest.raises(TypeError, match="Wrong number of arguments"):
        l2norm(gx, gx, gx)
    with pytest.raises(TypeError):
        l2norm(random_array(rng, (4, 5), np.float32))  # a NumPy array
    with pytest.raises(ValueError, match="raw"):
        gp.ReductionKernel("T x", "raw T y", "x", "a + b", "y = a", "0", "raw_out")
    bad = gp.ReductionKernel("T x", "T y", "x", "a +* b", "y = a", "0", "bad_reduce")
    with pytest.raises(CompileException) as info:
        bad(gx)
    assert "error" in info.value.get_message()
    del info
    assert_l2norm_close(l2norm(gx), gx.get())  # still usable
    del gx


# ---------------------------------------------------------------------------------------
# RawKernel

# CUDA Python's saxpy tutorial, as the issue quotes it (`const float a`).
SAXPY_SRC = r"""
extern "C" __global__
void saxpy(const float a, const float *x, const float *y, float *out, size_t n)
{
  size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) {
    out[tid] = a * x[tid] + y[tid];
  }
}
"""

# CuPy's user guide.
MY_ADD_SRC = r"""
extern "C" __global__
void my_add(const float* x1, const float* x2, float* y) {
    int tid = blockDim.x * blockIdx.x + threadIdx.x;
    y[tid] = x1[tid] + x2[tid];
}
"""

# The bytes each parameter received, one after the other (one thread).
SCALARS_SRC = r"""
struct __align__(8) c64 { float re, im; };
struct __align__(16) c128 { double re, im; };
template <typename T> __device__ void put(unsigned char* out, int& at, const T& v) {
    const unsigned char* p = (const unsigned char*)&v;
    for (int k = 0; k < (int)sizeof(T); ++k) out[at + k] = p[k];
    at += sizeof(T);
}
extern "C" __global__ void scalars(signed char a, short b, int c, long long d, unsigned char e,
                                   unsigned short f, unsigned int g, unsigned long long h,
                                   unsigned short half_bits, float fl, double db, bool bo,
                                   c64 z64, c128 z128, unsigned char* out) {
    int at = 0;
    put(out, at, a); put(out, at, b); put(out, at, c); put(out, at, d);
    put(out, at, e); put(out, at, f); put(out, at, g); put(out, at, h);
    put(out, at, half_bits); put(out, at, fl); put(out, at, db); put(out, at, bo);
    put(out, at, z64); put(out, at, z128);
}
extern "C" __global__ void python_scalars(long long i, double f, c128 z, bool b, unsigned char* out) {
    int at = 0;
    put(out, at, i); put(out, at, f); put(out, at, z); put(out, at, b);
}
"""

SCALAR_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
                np.float32, np.float64, np.bool_, np.complex64, np.complex128]

# Dynamic shared memory: a block reverses `n` floats through it.
REVERSE_SHARED_SRC = r"""
extern "C" __global__ void reverse_shared(const float* x, float* y, int n) {
    extern __shared__ float buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = x[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) y[i] = buf[n - 1 - i];
}
"""

STATIC_SHARED_SRC = r"""
extern "C" __global__ void tile_copy(const float* x, float* y) {
    __shared__ float tile[256];
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    y[threadIdx.x] = tile[255 - threadIdx.x];
}
"""


@pytest.fixture(scope="module")
def saxpy():
    return gp.RawKernel(SAXPY_SRC, "saxpy")


def test_saxpy_tutorial(rng, saxpy):
    """Launched as the tutorial does, ``(2.0, x, y, out, n)``: the Python float travels
    as a double (CuPy's rule) and ``const float a`` reads its first four bytes, which
    for 2.0 (0x4000000000000000) are zeros: ``a`` is 0.0f and ``out = 0 * x + y = y``,
    what CuPy gives. With ``numpy.float32(2.0)`` the kernel gets 2.0f (and ``2 x`` is
    exact, so fused or not the result is NumPy's)."""
    n = 100003
    threads = 128
    blocks = (n + threads - 1) // threads
    x = random_array(rng, n, np.float32)
    y = random_array(rng, n, np.float32)
    gx, gy = gp.asarray(x), gp.asarray(y)
    out = gp.empty(n, np.float32)
    saxpy((blocks,), (threads,), (2.0, gx, gy, out, n))
    assert_equal_to_numpy(out, y)
    saxpy((blocks,), (threads,), (np.float32(2.0), gx, gy, out, np.uint64(n)))
    assert_equal_to_numpy(out, np.float32(2.0) * x + y)
    a = np.float32(rng.uniform(-3, 3))
    saxpy(blocks, threads, (a, gx, gy, out, n))
    assert_axpb_close(out.get(), a, x, y, "saxpy")


def test_my_add_user_guide(rng):
    """CuPy's ``my_add``: grid and block as tuples (and as ints), no bounds check, so
    exactly as many threads as elements."""
    add_kernel = gp.RawKernel(MY_ADD_SRC, "my_add")
    x1 = random_array(rng, (5, 5), np.float32)
    x2 = random_array(rng, (5, 5), np.float32)
    y = gp.zeros((5, 5), dtype=np.float32)
    assert add_kernel((5,), (5,), (gp.asarray(x1), gp.asarray(x2), y)) is None
    assert_equal_to_numpy(y, x1 + x2)
    x3 = random_array(rng, (64, 32), np.float32)
    x4 = random_array(rng, (64, 32), np.float32)
    y = gp.empty((64, 32), np.float32)
    add_kernel(64, 32, [gp.asarray(x3), gp.asarray(x4), y])  # ints, and a list of arguments
    assert_equal_to_numpy(y, x3 + x4)
    add_kernel((64, 1, 1), (32, 1, 1), (gp.asarray(x4), gp.asarray(x4), y))  # 3-tuples
    assert_equal_to_numpy(y, x4 + x4)


def test_numpy_scalar_arguments(rng):
    """Each NumPy scalar arrives as its own type's bytes (CuPy's rule); ``float16`` as
    its 16 bits, ``complex64``/``complex128`` as two floats/doubles."""
    k = gp.RawKernel(SCALARS_SRC, "scalars")
    values = [random_array(rng, (), t)[()] for t in SCALAR_TYPES]
    assert all(type(v) is t for v, t in zip(values, SCALAR_TYPES))
    want = b"".join(v.tobytes() for v in values)
    out = gp.zeros(len(want), np.uint8)
    k(1, 1, (*values, out))
    assert out.get().tobytes() == want


def test_python_scalar_arguments(rng):
    """Python int, float, complex and bool as int64, float64, complex128 and bool."""
    k = gp.RawKernel(SCALARS_SRC, "python_scalars")
    i = int(rng.integers(-(2**62), 2**62))
    f = float(rng.uniform(-1e300, 1e300))
    z = complex(rng.uniform(-5, 5), rng.uniform(-5, 5))
    b = bool(rng.integers(0, 2))
    want = np.int64(i).tobytes() + np.float64(f).tobytes() + np.complex128(z).tobytes() + np.bool_(b).tobytes()
    out = gp.zeros(len(want), np.uint8)
    k((1,), (1,), (i, f, z, b, out))
    assert out.get().tobytes() == want
    with pytest.raises(OverflowError):
        k((1,), (1,), (2**63, f, z, b, out))


def test_cuda_array_interface_kernel_arguments(rng, saxpy):
    n = 1000
    x = random_array(rng, n, np.float32)
    y = random_array(rng, n, np.float32)
    out = gp.empty(n, np.float32)
    saxpy((8,), (128,), (np.float32(2.0), Interface(gp.asarray(x)), Interface(gp.asarray(y)), Interface(out), n))
    assert_equal_to_numpy(out, np.float32(2.0) * x + y)


COOPERATIVE_SRC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// Every thread doubles its elements into `tmp`; after the grid-wide barrier each reads
// a neighbour's, which another block wrote.
extern "C" __global__ void neighbours(const float* x, float* tmp, float* y, int n) {
    cg::grid_group g = cg::this_grid();
    for (long long i = g.thread_rank(); i < n; i += g.size()) tmp[i] = 2.0f * x[i];
    g.sync();
    for (long long i = g.thread_rank(); i < n; i += g.size()) y[i] = tmp[(i + 1) % n] + tmp[i];
}
"""


def test_cooperative_groups_grid_sync(rng, pool_baseline):
    """CuPy's ``enable_cooperative_groups``: ``grid.sync()`` across blocks, through
    RawKernel's flag and through a module function's per-call flag; a grid that cannot
    be resident at once is refused before launch, and the process stays usable."""
    n = 100003
    x = random_array(rng, n, np.float32)
    want = (2 * np.roll(x, -1)) + (2 * x)
    gx, tmp = gp.asarray(x), gp.empty(n, np.float32)
    k = gp.RawKernel(COOPERATIVE_SRC, "neighbours", enable_cooperative_groups=True)
    sms = gp.cuda.runtime.getDeviceProperties(gp.cuda.Device().id)["multiProcessorCount"]
    for grid in [(1,), (sms,), (2, 3)]:
        y = gp.empty(n, np.float32)
        k(grid, (256,), (gx, tmp, y, np.int32(n)))
        assert_equal_to_numpy(y, want)
    f = gp.RawModule(code=COOPERATIVE_SRC).get_function("neighbours")
    y = gp.empty(n, np.float32)
    f((sms,), (128,), (gx, tmp, y, np.int32(n)), enable_cooperative_groups=True)
    assert_equal_to_numpy(y, want)
    with pytest.raises(ValueError, match="cooperative"):
        k((1000 * sms,), (1024,), (gx, tmp, y, np.int32(n)))
    y = gp.empty(n, np.float32)
    k((sms,), (256,), (gx, tmp, y, np.int32(n)))
    assert_equal_to_numpy(y, want)


def test_cuda_headers_on_the_include_path(rng):
    """CUDA's own headers resolve as under CuPy (which puts them on NVRTC's path)."""
    src = r"""
#include <cuda_fp16.h>
#include <cuComplex.h>
extern "C" __global__ void halves(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cuFloatComplex z = make_cuFloatComplex(x[i], 1.0f);
    if (i < n) y[i] = __half2float(__float2half(cuCrealf(cuCmulf(z, z))));
}
"""
    x = random_array(rng, 1000, np.float32)
    y = gp.empty(1000, np.float32)
    gp.RawKernel(src, "halves")((4,), (256,), (gp.asarray(x), y, np.int32(1000)))
    real = x.astype(np.float64) ** 2 - 1  # (x + i)^2's real part, then rounded to half
    np.testing.assert_allclose(y.get(), real.astype(np.float16).astype(np.float32),
                               rtol=2**-10, atol=2**-14)


JITIFY_SRC = r"""
#include <cstdint>
#include <stdint.h>
#include <type_traits>
#include <limits>
#include <algorithm>
#include <cmath>
#include <utility>
template <typename T> __device__ T clamp_to(T v, T hi) { return std::min(v, hi); }
extern "C" __global__ void clip_abs(const float* x, float* y, std::int64_t n, float hi) {
    static_assert(std::is_same<std::int64_t, int64_t>::value, "one int64_t");
    std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x;
    std::pair<float, float> lim(hi, std::numeric_limits<float>::max());
    if (i < n) y[i] = clamp_to(std::abs(x[i]), std::min(lim.first, lim.second));
}
"""


def test_jitify_standard_headers(rng):
    """``jitify=True`` (CuPy's flag): standard C++ headers compile under NVRTC (through
    CUDA's libcu++); without it they do not, as under CuPy."""
    n = 1001
    x = random_array(rng, n, np.float32) * 4
    hi = np.float32(1.5)
    for make in (lambda: gp.RawKernel(JITIFY_SRC, "clip_abs", jitify=True),
                 lambda: gp.RawModule(code=JITIFY_SRC, jitify=True).get_function("clip_abs")):
        y = gp.empty(n, np.float32)
        make()((4,), (256,), (gp.asarray(x), y, n, hi))
        assert_equal_to_numpy(y, np.minimum(np.abs(x), hi))
    with pytest.raises(CompileException, match="cstdint"):
        gp.RawKernel(JITIFY_SRC, "clip_abs")
    with pytest.raises(ValueError, match="jitify"):
        gp.RawModule(code="", jitify=True, language="rust")


def test_launch_errors_before_launch(rng, saxpy, pool_baseline):
    """Wrong argument counts, blocks and shared memory beyond the limits and unusable
    arguments raise before anything runs: the output keeps its contents."""
    n = 256
    x = gp.asarray(random_array(rng, n, np.float32))
    before = random_array(rng, n, np.float32)
    out = gp.asarray(before)
    good = (np.float32(2.0), x, x, out, n)
    with pytest.raises(TypeError):
        saxpy((1,), (256,), good[1:])  # a missing
    with pytest.raises(TypeError):
        saxpy((1,), (256,), good + (n,))
    with pytest.raises(ValueError, match="block"):
        saxpy((1,), (2048,), good)
    with pytest.raises(ValueError, match="block"):
        saxpy((1,), (32, 32, 2), good)  # 2048 threads in all
    with pytest.raises(ValueError, match="shared memory"):
        saxpy((1,), (256,), good, shared_mem=saxpy.max_dynamic_shared_size_bytes + 1)
    with pytest.raises(ValueError, match="grid"):
        saxpy((0,), (256,), good)
    with pytest.raises(TypeError):
        saxpy((1,), (256,), (np.float32(2.0), x.get(), x, out, n))  # a NumPy array
    with pytest.raises(TypeError):
        saxpy((1,), (256,), (np.float32(2.0), "x", x, out, n))
    with pytest.raises(TypeError):
        saxpy((1,), (256,), x)  # not a tuple
    gp.cuda.Device().synchronize()
    assert_equal_to_numpy(out, before)
    saxpy((1,), (256,), good)  # and the kernel still runs
    assert_equal_to_numpy(out, np.float32(2.0) * x.get() + x.get())
    del x, out, good


def test_attributes(saxpy):
    names = {"max_threads_per_block", "shared_size_bytes", "const_size_bytes", "local_size_bytes", "num_regs",
             "ptx_version", "binary_version", "cache_mode_ca", "max_dynamic_shared_size_bytes",
             "preferred_shared_memory_carveout"}
    attrs = saxpy.attributes
    assert set(attrs) == names
    for name in names:
        assert getattr(saxpy, name) == attrs[name], name
    assert 0 < saxpy.max_threads_per_block <= 1024
    assert 0 < saxpy.num_regs <= 255
    assert saxpy.shared_size_bytes == 0 and saxpy.local_size_bytes == 0
    # A cubin for this GPU: its version is the compute capability ("90" on an H100).
    assert saxpy.binary_version == int(gp.cuda.Device().compute_capability)
    assert saxpy.ptx_version > 0
    # CUDA's default: 48 KiB of dynamic shared memory less the static.
    assert saxpy.max_dynamic_shared_size_bytes == 49152 - saxpy.shared_size_bytes
    with pytest.raises(AttributeError):
        saxpy.num_regs = 3
    tile = gp.RawKernel(STATIC_SHARED_SRC, "tile_copy")
    assert tile.shared_size_bytes == 256 * 4
    assert tile.kernel.attributes["shared_size_bytes"] == 256 * 4


def test_dynamic_shared_memory_above_the_default(rng, pool_baseline):
    k = gp.RawKernel(REVERSE_SHARED_SRC, "reverse_shared")
    n = 16384  # 64 KiB of floats, above the default 48 KiB
    x = random_array(rng, n, np.float32)
    gx = gp.asarray(x)
    y = gp.zeros(n, np.float32)
    with pytest.raises(ValueError, match="max_dynamic_shared_size_bytes"):
        k((1,), (1024,), (gx, y, n), shared_mem=4 * n)
    k.max_dynamic_shared_size_bytes = 4 * n
    assert k.max_dynamic_shared_size_bytes == 4 * n
    assert k.attributes["max_dynamic_shared_size_bytes"] == 4 * n
    k((1,), (1024,), (gx, y, n), shared_mem=4 * n)
    assert_equal_to_numpy(y, x[::-1])
    # Within the default, no attribute needed (a second kernel object of the source).
    k2 = gp.RawKernel(REVERSE_SHARED_SRC, "reverse_shared")
    y2 = gp.zeros(1000, np.float32)
    k2((1,), (256,), (gx, y2, 1000), shared_mem=4000)
    assert_equal_to_numpy(y2, x[:1000][::-1])
    del gx, y, y2


def test_launch_on_a_stream(rng, saxpy):
    n = 100003
    x = random_array(rng, n, np.float32)
    y = random_array(rng, n, np.float32)
    gx, gy = gp.asarray(x), gp.asarray(y)
    out = gp.empty(n, np.float32)
    gp.cuda.Device().synchronize()
    s = gp.cuda.Stream(non_blocking=True)
    saxpy((-(-n // 256),), (256,), (np.float32(2.0), gx, gy, out, n), stream=s)
    s.synchronize()
    assert_equal_to_numpy(out, np.float32(2.0) * x + y)
    with s:  # the current stream, when stream= is not given
        saxpy((-(-n // 256),), (256,), (np.float32(2.0), gy, gx, out, n))
    s.synchronize()
    assert_equal_to_numpy(out, np.float32(2.0) * y + x)


# ---------------------------------------------------------------------------------------
# RawModule

# CuPy's user guide.
MODULE_SRC = r"""
extern "C"{

__global__ void test_sum(const float* x1, const float* x2, float* y, \
                         unsigned int N)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < N)
    {
        y[tid] = x1[tid] + x2[tid];
    }
}

__global__ void test_multiply(const float* x1, const float* x2, float* y, \
                              unsigned int N)
{
    unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
    if (tid < N)
    {
        y[tid] = x1[tid] * x2[tid];
    }
}

}"""

TEMPLATE_SRC = r"""
template<typename T>
__global__ void fill(T* x, T v, int n) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < n) x[tid] = v;
}

template<typename T>
__global__ void fx3(T* arr, int N) {
    unsigned int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid < N) {
        arr[tid] = arr[tid] * 3;
    }
}
"""

GLOBAL_SRC = r"""
__device__ float table[16];
extern "C" __global__ void write_table(const float* x) {
    int i = threadIdx.x;
    if (i < 16) table[i] = 2.0f * x[i];
}
extern "C" __global__ void read_table(float* y) {
    int i = threadIdx.x;
    if (i < 16) y[i] = table[i];
}
"""


def test_module_several_kernels(rng):
    module = gp.RawModule(code=MODULE_SRC)
    ker_sum = module.get_function("test_sum")
    ker_times = module.get_function("test_multiply")
    N = 10
    x1 = random_array(rng, (N, N), np.float32)
    x2 = random_array(rng, (N, N), np.float32)
    g1, g2 = gp.asarray(x1), gp.asarray(x2)
    y = gp.zeros((N, N), dtype=np.float32)
    ker_sum((N,), (N,), (g1, g2, y, N**2))
    assert_equal_to_numpy(y, x1 + x2)
    ker_times((N,), (N,), (g1, g2, y, N**2))
    assert_equal_to_numpy(y, x1 * x2)
    assert ker_sum.attributes["num_regs"] > 0
    with pytest.raises(gp.cuda.CUDARuntimeError):
        module.get_function("test_divide")


def test_name_expressions_templates(rng):
    mod = gp.RawModule(code=TEMPLATE_SRC, options=("-std=c++17",),
                       name_expressions=["fill<float>", "fill<int>", "fx3<float>", "fx3<double>"])
    n = 1000
    xf = gp.empty(n, np.float32)
    v = np.float32(rng.uniform(-5, 5))
    mod.get_function("fill<float>")((-(-n // 256),), (256,), (xf, v, n))
    assert_equal_to_numpy(xf, np.full(n, v, np.float32))
    xi = gp.empty(n, np.int32)
    vi = np.int32(rng.integers(-(2**31), 2**31 - 1))
    mod.get_function("fill<int>")((-(-n // 256),), (256,), (xi, vi, n))
    assert_equal_to_numpy(xi, np.full(n, vi, np.int32))
    N = 10
    a = random_array(rng, N, np.float32)
    ga = gp.asarray(a)
    mod.get_function("fx3<float>")((1,), (N,), (ga, N))
    assert_equal_to_numpy(ga, a * np.float32(3))
    d = random_array(rng, N, np.float64)
    gd = gp.asarray(d)
    mod.get_function("fx3<double>")((1,), (N,), (gd, N))
    assert_equal_to_numpy(gd, d * 3.0)


def test_get_global(rng):
    mod = gp.RawModule(code=GLOBAL_SRC)
    x = random_array(rng, 16, np.float32)
    mod.get_function("write_table")((1,), (16,), (gp.asarray(x),))
    table = mod.get_global("table")
    assert table.dtype == np.uint8 and table.shape == (64,)
    assert_equal_to_numpy(table.view(np.float32), np.float32(2.0) * x)
    # Written from the host side, read by a kernel.
    v = random_array(rng, 16, np.float32)
    table.view(np.float32)[...] = gp.asarray(v)
    y = gp.empty(16, np.float32)
    mod.get_function("read_table")((1,), (16,), (y,))
    assert_equal_to_numpy(y, v)
    with pytest.raises(gp.cuda.CUDARuntimeError):
        mod.get_global("no_such_table")


def test_ptx_file_from_the_rust_example(rng):
    """The example crate's prebuilt PTX (examples/rust_kernel): ``saxpy(a: f32, x, y,
    out, n: usize)`` and ``add_arrays(x1, x2, y, n: usize)``. Its PTX rounds the product
    and the sum separately (``mul.rn``/``add.rn``, which ptxas does not fuse), so the
    result is NumPy's bit for bit."""
    mod = gp.RawModule(path=EXAMPLE_PTX)
    n = 100003
    x = random_array(rng, n, np.float32)
    y = random_array(rng, n, np.float32)
    gx, gy = gp.asarray(x), gp.asarray(y)
    out = gp.empty(n, np.float32)
    a = np.float32(rng.uniform(-3, 3))
    mod.get_function("saxpy")((128,), (256,), (a, gx, gy, out, n))  # a grid-stride loop
    assert_equal_to_numpy(out, a * x + y)
    mod.get_function("add_arrays")((-(-n // 256),), (256,), (gx, gy, out, n))
    assert_equal_to_numpy(out, x + y)
    # The same PTX as code= text.
    with open(EXAMPLE_PTX) as f:
        text_mod = gp.RawModule(code=f.read())
    text_mod.get_function("add_arrays")((-(-n // 256),), (256,), (gx, gx, out, n))
    assert_equal_to_numpy(out, x + x)


def test_cubin_file(rng, tmp_path):
    image, _ = _nvrtc.compile_cuda(MODULE_SRC, "cubin_module")
    assert bytes(image[:4]) == b"\x7fELF"
    path = tmp_path / "module.cubin"
    path.write_bytes(bytes(image))
    mod = gp.RawModule(path=str(path))
    N = 300
    x1 = random_array(rng, N, np.float32)
    x2 = random_array(rng, N, np.float32)
    y = gp.empty(N, np.float32)
    mod.get_function("test_multiply")((2,), (256,), (gp.asarray(x1), gp.asarray(x2), y, N))
    assert_equal_to_numpy(y, x1 * x2)


def test_module_arguments_checked():
    with pytest.raises(TypeError):
        gp.RawModule()
    with pytest.raises(TypeError):
        gp.RawModule(code=MODULE_SRC, path=EXAMPLE_PTX)
    with pytest.raises(ValueError, match="backend"):
        gp.RawModule(code=MODULE_SRC, backend="nvcc")
    with pytest.raises(ValueError, match="language"):
        gp.RawKernel(MY_ADD_SRC, "my_add", language="fortran")


# ---------------------------------------------------------------------------------------
# Compile errors

BROKEN_SRC = 'extern "C" __global__ void broken(float* x) {\n    x[0] = undefined_name;\n}\n'


def test_compile_error_carries_the_log(rng, pool_baseline):
    with pytest.raises(CompileException) as info:
        gp.RawKernel(BROKEN_SRC, "broken")
    e = info.value
    del info
    msg = e.get_message()
    assert "undefined_name" in msg and "undefined" in msg
    assert "(2): error" in msg  # NVRTC's line number: the second line of the source
    assert e.log == msg and str(e) == msg
    assert e.source == BROKEN_SRC
    buf = io.StringIO()
    e.dump(buf)
    dumped = buf.getvalue()
    assert "2     x[0] = undefined_name;" in dumped  # the source, numbered
    assert msg in dumped
    with pytest.raises(CompileException):
        gp.RawModule(code=BROKEN_SRC)  # a failure is not cached
    # The process goes on compiling and running kernels.
    ok = gp.RawKernel(MY_ADD_SRC, "my_add")
    x = random_array(rng, 32, np.float32)
    y = gp.empty(32, np.float32)
    ok((1,), (32,), (gp.asarray(x), gp.asarray(x), y))
    assert_equal_to_numpy(y, x + x)
    del y


# ---------------------------------------------------------------------------------------
# The compile cache and memoize

CACHED_SRC = r"""
// {tag}
extern "C" __global__ void scale(const double* x, double* y, double s, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s * x[i];
}}
"""


def _refuse(*args, **kwargs):
    raise AssertionError("NVRTC was called: the kernel cache missed")


def _scale_check(k, rng):
    x = random_array(rng, 300, np.float64)
    y = gp.empty(300, np.float64)
    k((2,), (256,), (gp.asarray(x), y, 0.5, 300))
    assert_equal_to_numpy(y, 0.5 * x)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty kernel cache folder for the test (memory cleared before and after)."""
    folder = tmp_path / "kernel_cache"
    monkeypatch.setenv("GPUPY_CACHE_DIR", str(folder))
    _cache.clear_memory()
    yield folder
    _cache.clear_memory()


def test_cache_in_this_process(rng, fresh_cache, monkeypatch):
    src = CACHED_SRC.format(tag=uuid.uuid4().hex)
    k = gp.RawKernel(src, "scale")
    files = [f for f in os.listdir(fresh_cache) if f.startswith("nvrtc-")]
    assert len(files) == 1, files
    _scale_check(k, rng)
    # From here NVRTC must not be called: memory, then disk.
    monkeypatch.setattr(gp._gpupy, "nvrtc_compile", _refuse)
    _scale_check(gp.RawKernel(src, "scale"), rng)
    gp.clear_memo()
    _scale_check(gp.RawKernel(src, "scale"), rng)
    # The refusal is real: with neither copy, compiling fails.
    os.remove(fresh_cache / files[0])
    gp.clear_memo()
    with pytest.raises(AssertionError, match="cache missed"):
        gp.RawKernel(src, "scale")


CHILD = r"""
import sys
import numpy as np
import gpupy as gp
from gpupy import _gpupy
from gpupy._userkernel import _cache

def refuse(*args, **kwargs):
    raise AssertionError("NVRTC was called in the second process")

_gpupy.nvrtc_compile = refuse
lookups = []
real_lookup = _cache.lookup

def lookup(kind, parts):
    data = real_lookup(kind, parts)
    lookups.append((kind, data is not None))
    return data

_cache.lookup = lookup
x = np.linspace(-1.0, 1.0, 300)
k = gp.RawKernel(sys.argv[1], "scale")
y = gp.empty(300, np.float64)
k((2,), (256,), (gp.asarray(x), y, 0.5, 300))
assert np.array_equal(y.get(), 0.5 * x)
ew = gp.ElementwiseKernel("T x", "T y", "y = x * 0.5 /* " + sys.argv[2] + " */", "half_ew")
assert np.array_equal(ew(gp.asarray(x)).get(), 0.5 * x)
print("lookups", lookups)
"""


def test_cache_across_processes(rng, fresh_cache):
    """A second process with the same cache folder compiles nothing: NVRTC is replaced
    there by a function that fails, and the kernels still build and run."""
    tag = uuid.uuid4().hex
    src = CACHED_SRC.format(tag=tag)
    _scale_check(gp.RawKernel(src, "scale"), rng)
    ew = gp.ElementwiseKernel("T x", "T y", "y = x * 0.5 /* " + tag + " */", "half_ew")
    x = random_array(rng, 300, np.float64)
    assert_equal_to_numpy(ew(gp.asarray(x)), 0.5 * x)
    assert len([f for f in os.listdir(fresh_cache) if f.startswith("nvrtc-")]) == 2
    env = dict(os.environ, GPUPY_CACHE_DIR=str(fresh_cache), PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", CHILD, src, tag], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "lookups [('nvrtc', True), ('nvrtc', True)]" in r.stdout, r.stdout
    # And the child saw a miss when there is nothing to find (the check can fail).
    env["GPUPY_CACHE_DIR"] = str(fresh_cache) + "-empty"
    r = subprocess.run([sys.executable, "-c", CHILD, src, tag], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode != 0 and "NVRTC was called in the second process" in r.stderr


def test_memoize_and_clear_memo():
    calls = []

    @gp.memoize()
    def square(v, *, plus=0):
        calls.append(v)
        return v * v + plus

    assert square(3) == 9 and square(3) == 9 and square(3, plus=1) == 10
    assert calls == [3, 3]
    per_device = []

    @gp.memoize(for_each_device=True)
    def cube(v):
        per_device.append(v)
        return v**3

    assert cube(2) == 8 and cube(2) == 8
    assert per_device == [2]
    gp.clear_memo()
    assert square(3) == 9 and cube(2) == 8
    assert calls == [3, 3, 3] and per_device == [2, 2]
    assert square.__name__ == "square"


OUT_OF_BOUNDS_CHILD = r"""
import gpupy as gp
k = gp.RawKernel(r'''extern "C" __global__ void wild(float* p) { p[1LL << 40] = 1.0f; }''', "wild")
y = gp.empty(4, gp.float32)
try:
    k((1,), (1,), (y,))
    y.get()
except gp.cuda.CUDARuntimeError as e:
    print("caught:", e)
"""


def test_out_of_bounds_access_is_a_cuda_error():
    """A user kernel writing outside any allocation surfaces as CUDARuntimeError with
    the driver's message (in a child process: the context is unusable afterwards)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", OUT_OF_BOUNDS_CHILD], capture_output=True,
                       text=True, env=env, timeout=300)
    assert "caught:" in r.stdout, (r.stdout, r.stderr)
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in r.stdout or "illegal" in r.stdout.lower(), r.stdout
