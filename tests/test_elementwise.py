"""Elementwise + - * / (functions, operators, reflected, in place, methods, out=) against
NumPy computed on the same inputs in the same precision.

One IEEE operation is correctly rounded on the GPU as in NumPy, so real results are expected
bit-exact, signed zeros and non-finite values included (``assert_elementwise_result``);
complex multiplication and division within ``helpers.COMPLEX_ARITH_ULPS`` of |z|.
"""

import operator

import numpy as np
import pytest

import gpupy as gp
from helpers import (
    FLOAT_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_elementwise_result,
    assert_equal_to_numpy,
    assert_ufunc_result,
    dtype_id,
    random_array,
)

pytestmark = pytest.mark.gpu

# name: (gpupy function, Python operator, in-place operator)
OPS = {
    "add": (gp.add, operator.add, operator.iadd),
    "subtract": (gp.subtract, operator.sub, operator.isub),
    "multiply": (gp.multiply, operator.mul, operator.imul),
    "divide": (gp.divide, operator.truediv, operator.itruediv),
}
OP_NAMES = list(OPS)
NUMPY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide}

# Odd sizes: not multiples of the 256-thread block nor of the 4-lane (16-byte) vector.
SHAPES = [(), (0,), (1,), (7,), (1023,), (1025,), (65537,), (1_000_003,), (3, 5), (4, 7, 9), (0, 3)]
SMALL_SHAPES = [(), (1,), (7,), (1025,), (3, 5), (2, 3, 7)]


def shape_id(shape):
    return "x".join(map(str, shape)) if shape else "0d"


def python_scalars(rng):
    """A Python float, a non-zero Python int, and True (Python scalars are "weak": they
    take the array's dtype)."""
    sign = 1 if rng.uniform() < 0.5 else -1
    return [float(rng.uniform(-3, 3)), sign * int(rng.integers(1, 10)), True]


# --- the four operations, every way they can be spelled ----------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_function_and_operator(rng, op, dtype, shape):
    func, pyop, _ = OPS[op]
    x, y = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    want = NUMPY[op](x, y)
    assert_elementwise_result(func(a, b), want)
    assert_elementwise_result(pyop(a, b), want)
    assert_equal_to_numpy(a, x)  # inputs untouched
    assert_equal_to_numpy(b, y)


def test_true_divide_is_divide(rng):
    x, y = random_array(rng, (9,), np.float32), random_array(rng, (9,), np.float32)
    assert_elementwise_result(gp.true_divide(gp.asarray(x), gp.asarray(y)), np.true_divide(x, y))


@pytest.mark.parametrize("shape", SMALL_SHAPES + [(65537,)], ids=shape_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_python_scalar_operands_are_weak(rng, op, dtype, shape):
    func, pyop, _ = OPS[op]
    x = random_array(rng, shape, dtype)
    a = gp.asarray(x)
    for s in python_scalars(rng):
        # array op scalar, scalar op array (reflected), and the function form of both
        for got, want in [
            (pyop(a, s), pyop(x, s)),
            (pyop(s, a), pyop(s, x)),
            (func(a, s), NUMPY[op](x, s)),
            (func(s, a), NUMPY[op](s, x)),
        ]:
            assert got.dtype == dtype  # NumPy 2 (NEP 50): a Python scalar never upcasts
            assert_elementwise_result(got, want)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_reflected_examples(rng, dtype):
    x = random_array(rng, (1025,), dtype)
    a = gp.asarray(x)
    assert_elementwise_result(2.5 - a, 2.5 - x)
    assert_elementwise_result(3 / a, 3 / x)
    assert_elementwise_result(0.1 * a, 0.1 * x)
    assert_elementwise_result(7 + a, 7 + x)


@pytest.mark.parametrize("shape", SMALL_SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_methods(rng, dtype, shape):
    x, y = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    assert_elementwise_result(a.add(b), x + y)
    assert_elementwise_result(a.mul(b), x * y)
    s = float(rng.uniform(-2, 2))
    assert_elementwise_result(a.add(s), x + s)
    assert_elementwise_result(a.mul(s), x * s)


@pytest.mark.parametrize("shape", [(), (1,), (7,), (1025,), (1_000_003,), (3, 5, 7)], ids=shape_id)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_in_place(rng, op, dtype, shape):
    _, _, iop = OPS[op]
    x, y = random_array(rng, shape, dtype), random_array(rng, shape, dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    same = a
    a = iop(a, b)
    x = iop(x, y)
    assert a is same  # in place: the same array object, not a new one
    assert_elementwise_result(a, x)
    for s in python_scalars(rng):
        a = iop(a, s)
        x = iop(x, s)
        assert a is same
        assert_elementwise_result(a, x)
    assert_equal_to_numpy(b, y)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_in_place_on_a_view_changes_only_the_view(rng, op, dtype, view):
    _, _, iop = OPS[op]
    x = random_array(rng, (9, 14), dtype)
    g = gp.asarray(x)
    v = view(g)
    y = random_array(rng, v.shape, dtype)
    iop(v, gp.asarray(y))  # through a view object
    iop(view(x), y)
    assert_elementwise_result(g, x)
    s = float(rng.uniform(-2, 2))
    iop(v, s)
    iop(view(x), s)
    assert_elementwise_result(g, x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_in_place_through_subscript_syntax(rng, dtype):
    x = random_array(rng, (8, 11), dtype)
    y = random_array(rng, (4, 10), dtype)
    g = gp.asarray(x)
    g[::2, 1:] += gp.asarray(y)
    x[::2, 1:] += y
    assert_elementwise_result(g, x)
    g[::-3] *= 1.5
    x[::-3] *= 1.5
    assert_elementwise_result(g, x)
    g[1:, ::-2] /= gp.asarray(y[0, :6])  # (7, 6) view, broadcast along rows
    x[1:, ::-2] /= y[0, :6]
    assert_elementwise_result(g, x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_in_place_with_broadcasting(rng, dtype):
    x = random_array(rng, (5, 6), dtype)
    g = gp.asarray(x)
    row, col, zero_d = random_array(rng, (6,), dtype), random_array(rng, (5, 1), dtype), random_array(rng, (), dtype)
    for v in (row, col, zero_d):
        g -= gp.asarray(v)
        x -= v
        assert_elementwise_result(g, x)
    # The output cannot grow: NumPy's ValueError
    small = gp.asarray(row)
    with pytest.raises(ValueError, match="broadcast"):  # NumPy: "non-broadcastable output operand ..."
        small += g
    assert_equal_to_numpy(small, row)


@pytest.mark.parametrize("n", [33, 1025, 100003])
def test_in_place_with_an_overlapping_input(rng, n):
    # NumPy computes as if the inputs were read before any output is written.
    x = random_array(rng, (n,), np.float32)
    g = gp.asarray(x)
    g[1:] += g[:-1]
    x[1:] += x[:-1]
    assert_elementwise_result(g, x)
    g[:-2] *= g[2:]
    x[:-2] *= x[2:]
    assert_elementwise_result(g, x)
    g[::-1] -= g
    x[::-1] -= x
    assert_elementwise_result(g, x)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
def test_in_place_with_itself(rng, dtype):
    x = random_array(rng, (1027,), dtype)
    g = gp.asarray(x)
    g += g
    x += x
    assert_elementwise_result(g, x)
    g /= g[::-1]
    x /= x[::-1]
    assert_elementwise_result(g, x)


# --- out= ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_out_argument(rng, op, dtype):
    func = OPS[op][0]
    x, y = random_array(rng, (13, 6), dtype), random_array(rng, (13, 6), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    out = gp.asarray(random_array(rng, (13, 6), dtype))
    r = func(a, b, out=out)
    assert r is out
    assert_elementwise_result(out, NUMPY[op](x, y))
    # into a non-contiguous view: only the view's elements change
    base_x = random_array(rng, (26, 7), dtype)
    base = gp.asarray(base_x)
    r = func(a, b, out=base[::-2, 1:])
    NUMPY[op](x, y, out=base_x[::-2, 1:])
    assert_elementwise_result(base, base_x)
    # with broadcasting and a scalar
    row = random_array(rng, (6,), dtype)
    func(a, gp.asarray(row), out=out)
    assert_elementwise_result(out, NUMPY[op](x, row))
    func(2.5, a, out=out)
    assert_elementwise_result(out, NUMPY[op](2.5, x))
    # the output may be an input
    func(a, b, out=a)
    assert_elementwise_result(a, NUMPY[op](x, y))


def test_out_argument_errors(rng):
    x, y = random_array(rng, (4, 5), np.float32), random_array(rng, (4, 5), np.float32)
    a, b = gp.asarray(x), gp.asarray(y)
    # NumPy: "operands could not be broadcast together with shapes (4,5) (4,5) (5,4)".
    with pytest.raises(ValueError, match="broadcast"):
        np.add(x, y, out=np.empty((5, 4), np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        gp.add(a, b, out=gp.empty((5, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="broadcast"):
        gp.add(a, b, out=gp.empty((4, 5, 1), dtype=np.float32))
    cast = r"Cannot cast ufunc 'add' output from dtype\('float32'\) to dtype\('int32'\) with casting rule 'same_kind'"
    with pytest.raises(TypeError, match=cast):
        np.add(x, y, out=np.empty((4, 5), np.int32))
    with pytest.raises(TypeError, match=cast):
        gp.add(a, b, out=gp.empty((4, 5), dtype=np.int32))
    assert_elementwise_result(gp.add(a, b), x + y)  # still usable


def test_out_of_a_lower_precision_casts_like_numpy(rng):
    # NumPy's default casting for out= is 'same_kind': float64 results go into float32.
    x, y = random_array(rng, (6, 7), np.float64), random_array(rng, (6, 7), np.float64)
    want = np.empty((6, 7), np.float32)
    np.multiply(x, y, out=want)
    out = gp.empty((6, 7), dtype=np.float32)
    gp.multiply(gp.asarray(x), gp.asarray(y), out=out)
    assert_elementwise_result(out, want)


def test_in_place_float32_with_float64_casts_like_numpy(rng):
    x, y = random_array(rng, (1025,), np.float32), random_array(rng, (1025,), np.float64)
    g = gp.asarray(x)
    g += gp.asarray(y)
    x += y
    assert_elementwise_result(g, x)


# --- broadcasting ------------------------------------------------------------------------

BROADCAST_PAIRS = [
    ((8, 1, 6), (7, 1)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((), (5, 3)),
    ((5, 3), ()),
    ((1,), (1025,)),
    ((4, 1), (1, 5)),
    ((2, 1, 3), (1, 4, 1)),
    ((0, 3), (1, 3)),
    ((1025, 1), (1, 3)),
    ((2, 3, 1, 5), (3, 7, 1)),
]


@pytest.mark.parametrize("shapes", BROADCAST_PAIRS, ids=lambda p: f"{shape_id(p[0])}-{shape_id(p[1])}")
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_broadcasting(rng, op, dtype, shapes):
    func, pyop, _ = OPS[op]
    x, y = random_array(rng, shapes[0], dtype), random_array(rng, shapes[1], dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    want = NUMPY[op](x, y)
    assert_elementwise_result(func(a, b), want)
    assert_elementwise_result(pyop(a, b), want)
    assert_elementwise_result(pyop(b, a), NUMPY[op](y, x))


@pytest.mark.parametrize("op", OP_NAMES)
def test_broadcasting_of_views(rng, op):
    func = OPS[op][0]
    x = random_array(rng, (10, 12), np.float64)
    y = random_array(rng, (9,), np.float64)
    a, b = gp.asarray(x), gp.asarray(y)
    # a transposed, sliced (6, 5) view against a reversed (6, 1) view made with None
    want = NUMPY[op](x[::2].T[1:7], y[::-1][:6, None])
    assert_elementwise_result(func(a[::2].T[1:7], b[::-1][:6, None]), want)


# --- non-contiguous and misaligned inputs -----------------------------------------------


@pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
@pytest.mark.parametrize("n", [1025, 65537])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_1d_views(rng, op, dtype, n, view):
    func, pyop, _ = OPS[op]
    x, y = random_array(rng, (n,), dtype), random_array(rng, (n,), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    vx, vy = view(x), view(y)
    z = random_array(rng, vx.shape, dtype)
    c = gp.asarray(z)
    assert_elementwise_result(func(view(a), view(b)), NUMPY[op](vx, vy))  # view op view
    assert_elementwise_result(pyop(view(a), c), NUMPY[op](vx, z))  # view op contiguous
    assert_elementwise_result(pyop(c, view(b)), NUMPY[op](z, vy))  # contiguous op view
    s = float(rng.uniform(-2, 2))
    assert_elementwise_result(pyop(view(a), s), NUMPY[op](vx, s))
    assert_elementwise_result(pyop(s, view(a)), NUMPY[op](s, vx))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_2d_views(rng, op, dtype, view):
    func, pyop, _ = OPS[op]
    x, y = random_array(rng, (33, 65), dtype), random_array(rng, (33, 65), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    vx, vy = view(x), view(y)
    z = random_array(rng, vx.shape, dtype)
    assert_elementwise_result(func(view(a), view(b)), NUMPY[op](vx, vy))
    assert_elementwise_result(pyop(view(a), gp.asarray(z)), NUMPY[op](vx, z))
    assert_elementwise_result(pyop(view(a), 1.25), NUMPY[op](vx, 1.25))


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("op", OP_NAMES)
def test_differently_misaligned_offsets(rng, op, dtype):
    # a[1:] and b[:-1] are contiguous but start at different 16-byte phases
    func = OPS[op][0]
    n = 4099
    x, y = random_array(rng, (n,), dtype), random_array(rng, (n,), dtype)
    a, b = gp.asarray(x), gp.asarray(y)
    for sa, sb in [(slice(1, None), slice(None, -1)), (slice(2, None), slice(1, -1)), (slice(3, None), slice(3, None))]:
        assert_elementwise_result(func(a[sa], b[sb]), NUMPY[op](x[sa], y[sb]))
        out_x = random_array(rng, (n + 1,), dtype)
        out = gp.asarray(out_x)
        func(a[sa], b[sb], out=out[2 : 2 + x[sa].size])
        NUMPY[op](x[sa], y[sb], out=out_x[2 : 2 + x[sa].size])
        assert_elementwise_result(out, out_x)


# --- dtype promotion -----------------------------------------------------------------------


@pytest.mark.parametrize("shapes", [((7,), (7,)), ((3, 4), (4,)), ((), (6,)), ((6,), ()), ((1025,), (1025,))], ids=str)
@pytest.mark.parametrize("op", OP_NAMES)
def test_float32_with_float64_promotes_to_float64(rng, op, shapes):
    func, pyop, _ = OPS[op]
    x, y = random_array(rng, shapes[0], np.float32), random_array(rng, shapes[1], np.float64)
    a, b = gp.asarray(x), gp.asarray(y)
    for got, want in [(func(a, b), NUMPY[op](x, y)), (pyop(b, a), NUMPY[op](y, x))]:
        assert want.dtype == np.float64
        assert_elementwise_result(got, want)


@pytest.mark.parametrize("op", OP_NAMES)
def test_numpy_float64_scalar_is_not_weak(rng, op):
    # np.float64 is a Python float subclass, but NumPy 2 treats it as a float64 value.
    func, pyop, _ = OPS[op]
    x = random_array(rng, (9,), np.float32)
    s = np.float64(rng.uniform(-2, 2))
    a = gp.asarray(x)
    assert_elementwise_result(pyop(a, s), np.asarray(NUMPY[op](x, s)))
    assert_elementwise_result(func(s, a), np.asarray(NUMPY[op](s, x)))


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("op", OP_NAMES)
def test_broadcast_mismatch_raises_numpy_value_error(rng, op):
    func, pyop, iop = OPS[op]
    x, y = random_array(rng, (2, 3), np.float32), random_array(rng, (4,), np.float32)
    a, b = gp.asarray(x), gp.asarray(y)
    message = "operands could not be broadcast together with shapes (2,3) (4,) "
    with pytest.raises(ValueError) as numpy_error:  # no match=: compared with `message` below
        NUMPY[op](x, y)
    assert str(numpy_error.value) == message
    for call in (lambda: func(a, b), lambda: pyop(a, b)):
        with pytest.raises(ValueError) as e:  # no match=: compared with `message` below
            call()
        assert str(e.value) == message
    with pytest.raises(ValueError, match="broadcast"):
        iop(a, b)
    assert_equal_to_numpy(a, x)
    assert_elementwise_result(pyop(a, 2.0), NUMPY[op](x, 2.0))  # still usable


@pytest.mark.parametrize(
    "dtype", [np.int32, np.int64, np.uint8, np.bool_, np.float16, np.complex64], ids=dtype_id
)
@pytest.mark.parametrize("op", OP_NAMES)
def test_other_dtypes_follow_numpy(rng, op, dtype):
    """Every dtype runs NumPy's loop for the op (bool - bool raises TypeError in both)."""
    func, pyop, iop = OPS[op]
    x = random_array(rng, (5,), dtype)
    f = random_array(rng, (5,), np.float32)
    a, g = gp.asarray(x), gp.asarray(f)
    with np.errstate(all="ignore"):
        for gcall, ncall in (
            (lambda: func(a, a), lambda: NUMPY[op](x, x)),
            (lambda: pyop(a, 2), lambda: NUMPY[op](x, 2)),
            (lambda: pyop(3.5, a), lambda: NUMPY[op](3.5, x)),
            (lambda: pyop(a, g), lambda: NUMPY[op](x, f)),
        ):
            try:
                want = ncall()
            except TypeError:
                with pytest.raises(TypeError, match="numpy boolean subtract"):
                    gcall()
                continue
            # Real results bit-exact (float16 too: its + - * / round once from float32, as
            # NumPy's loops do); complex * and / within a few ulps of |z| (helpers.ufunc_ulps).
            assert_ufunc_result(gcall(), want, op)


@pytest.mark.parametrize("op", OP_NAMES)
def test_numpy_array_operands_are_converted(rng, op):
    """NumPy arrays and lists are copied to the device, as NumPy converts them; other
    objects raise TypeError and leave the process usable."""
    func, pyop, iop = OPS[op]
    x, y = random_array(rng, (5,), np.float32), random_array(rng, (5,), np.float32)
    a = gp.asarray(x)
    assert_elementwise_result(pyop(a, y), NUMPY[op](x, y))
    assert_elementwise_result(func(y, a), NUMPY[op](y, x))
    for call in (lambda: pyop(a, "text"), lambda: pyop(a, None), lambda: func(a, object())):
        # no match=: NumPy's messages (a ufunc loop's, or object arithmetic's) are not gpupy's
        # (Python's "unsupported operand type(s)" for operators, "Unsupported type object")
        with pytest.raises(TypeError):
            call()
    assert_equal_to_numpy(a, x)
    assert_elementwise_result(pyop(a, gp.asarray(y)), NUMPY[op](x, y))  # still usable
