"""Linear algebra built on the matrix products: dot (N-d), vdot, inner, outer,
tensordot, kron, trace, einsum, vecdot, gpupy.linalg (matmul, norm, vector_norm,
matrix_norm, matrix_transpose), against NumPy.

Inexact results are compared elementwise with the exact result of the operands as the
computation sees them (cast to the result dtype, then evaluated in long double), within
the multilinear error bound of ``check`` (derived there); norms within the relative bound
of ``close_norm``; integer results must be equal. Norms that need reductions with ``axis``
(``ord=inf``, matrix 1/inf norms) call ``gp.max``/``gp.min`` with ``axis``, which the reductions
issue provides."""

import numpy as np
import pytest

import gpupy as gp
from helpers import (
    LONGDOUBLE_IS_WIDER,
    assert_close,
    assert_equal_to_numpy,
    assert_nonfinite_match,
    dtype_id,
    random_array,
    half_subnormal,
    unit_roundoff,
)

pytestmark = pytest.mark.gpu

DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.int8, np.float16]

# Accumulation precision of gpupy's products (kernels/src/mma.rs, gemm.rs): float16 in
# float32, every other float in its own precision.
ACCUM = {"e": np.float32, "f": np.float32, "d": np.float64, "F": np.float32, "D": np.float64}
WIDE = np.longdouble if LONGDOUBLE_IS_WIDER else np.float64


def check(got, f, *xs, **kw):
    """gpupy's ``got`` matches ``f(*xs, **kw)`` (NumPy), for ``f`` multilinear in its
    operands (dot, vdot, inner, tensordot, kron, trace, einsum, vecdot, matmul): equal for
    integer and bool results; otherwise elementwise

        |got - exact| <= c gamma_m (u_acc + u_ref) f(|x|...) + n_inter u_out f(|x|...) + u_out |exact|

    where every output element is a sum of T = f(1, 1, ...) products of one entry per
    operand (T terms, n_ops - 1 multiplications each: m = T + n_ops roundings; complex:
    twice the real terms per component, and sqrt(2) for the modulus), accumulated with
    unit roundoff u_acc (``ACCUM``) in any order (Higham's gamma_m; c = 2 allows the tensor
    cores' round-toward-zero accumulation); einsum's chains round each of their
    n_inter = n_ops - 2 intermediates to the dtype once more; and the result is rounded
    once to the output dtype (u_out). ``exact`` and the reference's own error u_ref come
    from long double."""
    assert isinstance(got, gp.ndarray), type(got)
    want = np.asarray(f(*xs, **kw))
    g = got.get()
    assert g.shape == want.shape, f"shape: gpupy {g.shape}, numpy {want.shape}"
    assert g.dtype == want.dtype, f"dtype: gpupy {g.dtype}, numpy {want.dtype}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(g, want, strict=True)
        return
    dt = want.dtype
    cplx = dt.kind == "c"
    rounded = [np.asarray(x).astype(dt) for x in xs]  # NumPy casts the operands to the result dtype
    wide_c = (np.clongdouble if LONGDOUBLE_IS_WIDER else np.complex128) if cplx else WIDE
    exact = np.asarray(f(*[x.astype(wide_c) for x in rounded], **kw))
    absf = np.asarray(f(*[np.abs(x).astype(WIDE) for x in rounded], **kw)).astype(np.float64)
    terms = np.asarray(f(*[np.ones(x.shape, WIDE) for x in rounded], **kw)).astype(np.float64)
    n_ops = len(xs)
    m = (2 * terms + 2 * n_ops) if cplx else (terms + n_ops)
    uu = unit_roundoff(ACCUM[dt.char]) + float(np.finfo(WIDE).eps) / 2
    gamma = m * uu / (1 - m * uu)
    u_out = unit_roundoff(dt)
    k2 = np.sqrt(2) if cplx else 1.0
    bound = k2 * 2 * gamma * absf + max(n_ops - 2, 0) * u_out * absf + k2 * u_out * np.abs(exact).astype(np.float64)
    bound = bound + half_subnormal(dt)
    assert_nonfinite_match(g, want, "product")
    err = np.abs(g.astype(exact.dtype) - exact).astype(np.float64)
    bad = ~(err <= bound)
    assert not bad.any(), (
        f"{bad.sum()} of {bad.size} elements over the bound: got {g[bad][:3]}, exact {exact[bad][:3]}, "
        f"bound {bound[bad][:3]}"
    )


def close_norm(got, x, n, **kw):
    """gpupy's norm of ``x`` against NumPy's norm of ``x`` in long double.

    Derivation: a norm is a root of a sum of non-negative terms (|x|^p, |x|^2, |x|) or a
    max of such sums, so no rounding cancels: with n elements per output, summation and
    the |x|^2 / hypot of complex entries cost gamma_{n+4} relative; a p-th power and the
    final root cost libdevice's powf/pow (4 ulp, i.e. 4 * 2u relative, each) and the
    rounding to the dtype 1 u. In ulps of the result (1 ulp >= u relative): n + 4 + 2 * 8 + 1."""
    assert isinstance(got, gp.ndarray), type(got)
    want = np.asarray(np.linalg.norm(x, **kw))
    xw = x.astype(np.clongdouble if x.dtype.kind == "c" else WIDE) if LONGDOUBLE_IS_WIDER else x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    exact = np.asarray(np.linalg.norm(xw, **kw))
    assert_close(got.get(), exact, n + 4 + 2 * 8 + 1, dtype=want.dtype, err_msg=f"norm {kw}")


def products_match(got, f, x, y):
    """``f`` forms one product per element: real results are bit-equal to NumPy's, complex
    ones within a few ulp (``re = ar*br - ai*bi`` rounds differently where NumPy's SIMD loop
    fuses the multiply-add), checked against the complex128 computation."""
    if x.dtype.kind == "c":
        check(got, f, x, y)
    else:
        assert_equal_to_numpy(got, f(x, y))


def pairs(rng, dtype, sa, sb):
    x, y = random_array(rng, sa, dtype), random_array(rng, sb, dtype)
    return x, y, gp.asarray(x), gp.asarray(y)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    "shapes",
    [((2, 3, 4), (4, 5)), ((2, 3, 4), (6, 4, 5)), ((4,), (3, 4, 2)), ((3, 2, 4), (4,)), ((5, 4), (2, 3, 4, 6)), ((1, 2, 3, 4), (2, 4, 1))],
    ids=str,
)
def test_dot_nd(rng, dtype, shapes):
    x, y, a, b = pairs(rng, dtype, *shapes)
    check(gp.dot(a, b), np.dot, x, y)
    check(a.dot(b), np.dot, x, y)


def test_dot_nd_out_and_errors(rng):
    x, y, a, b = pairs(rng, np.float64, (2, 3, 4), (5, 4, 6))
    out = gp.empty((2, 3, 5, 6))
    assert gp.dot(a, b, out=out) is out
    check(out, np.dot, x, y)
    with pytest.raises(ValueError, match=r"output array is not acceptable \(must have the right datatype"):
        gp.dot(a, b, out=gp.empty((2, 3, 5, 6), dtype=np.float32))
    x2 = random_array(rng, (5, 3, 6), np.float64)
    with pytest.raises(ValueError) as want:  # no match=: NumPy's message is the reference
        np.dot(x, x2)
    with pytest.raises(ValueError) as got:  # no match=: compared with NumPy's below
        gp.dot(a, gp.asarray(x2))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((7,), (7,)), ((3, 4), (12,)), ((2, 5), (5, 2)), ((1,), (1,))], ids=str)
def test_vdot(rng, dtype, shapes):
    x, y, a, b = pairs(rng, dtype, *shapes)
    check(gp.vdot(a, b), np.vdot, x, y)
    check(gp.vdot(a.T, b), np.vdot, x.T, y)
    with pytest.raises(ValueError, match="cannot reshape array of size"):
        np.vdot(x, np.ones(x.size + 1, dtype=dtype))
    with pytest.raises(ValueError, match="cannot reshape array of size"):
        gp.vdot(a, gp.ones(x.size + 1, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((5,), (5,)), ((3, 5), (5,)), ((2, 3, 5), (4, 5)), ((), (3, 2)), ((4, 6), (2, 3, 6))], ids=str)
def test_inner(rng, dtype, shapes):
    x, y, a, b = pairs(rng, dtype, *shapes)
    check(gp.inner(a, b), np.inner, x, y)


def test_inner_mismatch_raises(rng):
    x, y, a, b = pairs(rng, np.float32, (2, 3), (2, 4))
    with pytest.raises(ValueError, match="not aligned"):
        np.inner(x, y)
    with pytest.raises(ValueError, match="not aligned"):
        gp.inner(a, b)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((5,), (7,)), ((2, 3), (4,)), ((1,), (1,)), ((0,), (3,))], ids=str)
def test_outer(rng, dtype, shapes):
    x, y, a, b = pairs(rng, dtype, *shapes)
    products_match(gp.outer(a, b), np.outer, x, y)
    products_match(gp.linalg.outer(a.ravel(), b.ravel()), np.outer, x.ravel(), y.ravel())


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize(
    "case",
    [
        ((3, 4, 5), (4, 5, 6), 2),
        ((3, 4, 5), (5, 6), 1),
        ((3, 4), (5, 6), 0),
        ((3, 4, 5), (4, 3, 2), ([0, 1], [1, 0])),
        ((2, 3, 4), (4, 2, 3), ([-1, 0], [0, 1])),
        ((4, 5), (5, 4), ((0, 1), (1, 0))),
        ((6,), (6,), 1),
    ],
    ids=str,
)
def test_tensordot(rng, dtype, case):
    sa, sb, axes = case
    x, y, a, b = pairs(rng, dtype, sa, sb)
    check(gp.tensordot(a, b, axes=axes), np.tensordot, x, y, axes=axes)
    check(gp.linalg.tensordot(a, b, axes=axes), np.tensordot, x, y, axes=axes)


def test_tensordot_shape_mismatch(rng):
    x, y, a, b = pairs(rng, np.float32, (3, 4), (5, 6))
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        np.tensordot(x, y, axes=1)
    with pytest.raises(ValueError, match="shape-mismatch for sum"):
        gp.tensordot(a, b, axes=1)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes", [((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (3, 2)), ((4,), (5,)), ((), (2, 3))], ids=str)
def test_kron(rng, dtype, shapes):
    x, y, a, b = pairs(rng, dtype, *shapes)
    products_match(gp.kron(a, b), np.kron, x, y)


@pytest.mark.parametrize("dtype", DTYPES + [np.bool_, np.uint16], ids=dtype_id)
@pytest.mark.parametrize(
    "case",
    [((5, 5), {}), ((4, 7), {"offset": 2}), ((7, 4), {"offset": -3}), ((3, 4, 5), {"axis1": 1, "axis2": 2}), ((3, 4, 5), {"offset": 1, "axis1": 2, "axis2": 0}), ((3, 3), {"offset": 5})],
    ids=str,
)
def test_trace(rng, dtype, case):
    shape, kw = case
    x = random_array(rng, shape, dtype)
    a = gp.asarray(x)
    check(gp.trace(a, **kw), np.trace, x, **kw)


def test_trace_dtype_and_out(rng):
    x = random_array(rng, (6, 6), np.int8)
    a = gp.asarray(x)
    check(gp.trace(a, dtype=np.int8), np.trace, x, dtype=np.int8)
    check(gp.trace(a, dtype=np.float32), np.trace, x, dtype=np.float32)
    out = gp.zeros((), dtype=np.int64)
    assert gp.trace(a, out=out) is out
    assert out.get() == np.trace(x)
    with pytest.raises(ValueError, match="diag requires an array of at least two dimensions"):
        np.trace(np.ones(3))
    with pytest.raises(ValueError, match="diag requires an array of at least two dimensions"):
        gp.trace(gp.ones(3))


EINSUM = [
    ("ij,jk->ik", [(5, 6), (6, 7)]),
    ("ij,jk", [(5, 6), (6, 7)]),
    ("ij,kj->ik", [(5, 6), (7, 6)]),
    ("bij,bjk->bik", [(3, 4, 5), (3, 5, 2)]),
    ("bij,jk->bik", [(3, 4, 5), (5, 2)]),
    ("...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 6)]),
    ("i,i->", [(9,), (9,)]),
    ("i,j->ij", [(4,), (5,)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij->i", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ijk,ikl->jl", [(3, 4, 5), (3, 5, 6)]),
    ("abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 6)]),
    ("ij,ij->i", [(5, 7), (5, 7)]),
    ("ij,ij->ij", [(5, 7), (5, 7)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("i,jk->ijk", [(2,), (3, 4)]),
    ("ab,b->a", [(6, 8), (8,)]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int64], ids=dtype_id)
@pytest.mark.parametrize("case", EINSUM, ids=lambda c: c[0])
def test_einsum(rng, dtype, case):
    subscripts, shapes = case
    xs = [random_array(rng, s, dtype) for s in shapes]
    got = gp.einsum(subscripts, *[gp.asarray(x) for x in xs])
    check(got, lambda *ys: np.einsum(subscripts, *ys), *xs)


def test_einsum_errors(rng):
    a = gp.asarray(random_array(rng, (3, 4), np.float32))
    x = random_array(rng, (3, 4), np.float32)
    for bad, words in [
        # Too few operands: NumPy's message says "more operands" (its wording names the
        # other side); gpupy matches it word for word.
        ("ij,jk->ik", "more operands provided to einstein sum function than specified"),
        ("ijk->i", "too many subscripts for operand 0"),
        ("ij->k", "output subscript 'k' which never appeared in an input"),
        ("i->i", r"more dimensions than subscripts given in einstein sum, but no '\.\.\.' ellipsis"),
    ]:
        with pytest.raises(ValueError, match=words):
            np.einsum(bad, x)
        with pytest.raises(ValueError, match=words):
            gp.einsum(bad, a)
    # Sublist labels: out of range is NumPy's ValueError, a non-integer its TypeError.
    for bad, err, words in [
        ([0, 52], ValueError, r"subscript is not within the valid range \[0, 52\)"),
        ([0, "x"], TypeError, "each subscript must be either an integer or an ellipsis"),
    ]:
        with pytest.raises(err, match=words):
            np.einsum(x, bad)
        with pytest.raises(err, match=words):
            gp.einsum(a, bad)


SUBLISTS = [
    (((3, 4), [0, 1], (4, 5), [1, 2]), None),  # matmul, implicit output
    (((3, 4), [0, 1], (4, 5), [1, 2]), [0, 2]),
    (((2, 3, 4), [Ellipsis, 1], (4, 6), [1, 2]), [Ellipsis, 2]),
    (((5, 5), [7, 7]), []),  # trace
    (((3, 4), [0, 1], (4,), [1], (3,), [0]), []),  # three operands to a scalar
    (((4, 3), [30, 51]), [51, 30]),  # letters from both halves of the range
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=dtype_id)
@pytest.mark.parametrize("case", SUBLISTS, ids=str)
def test_einsum_sublist_form(rng, dtype, case):
    args, out = case
    xs = [random_array(rng, s, dtype) for s in args[0::2]]
    subs = args[1::2]

    def call(mod, arrays):
        flat = [v for pair in zip(arrays, subs) for v in pair]
        return mod.einsum(*flat) if out is None else mod.einsum(*flat, out)

    got = call(gp, [gp.asarray(x) for x in xs])
    check(got, lambda *ys: call(np, ys), *xs)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("case", [((5,), (5,), -1), ((3, 5), (5,), -1), ((4, 3), (4, 1), 0), ((2, 3, 4), (1, 3, 4), 1)], ids=str)
def test_vecdot(rng, dtype, case):
    sa, sb, axis = case
    x, y, a, b = pairs(rng, dtype, sa, sb)
    check(gp.vecdot(a, b, axis=axis), np.vecdot, x, y, axis=axis)
    check(gp.linalg.vecdot(a, b, axis=axis), np.vecdot, x, y, axis=axis)


def test_linalg_matmul_and_matrix_transpose(rng):
    x, y, a, b = pairs(rng, np.float32, (2, 3, 4), (4, 5))
    check(gp.linalg.matmul(a, b), np.matmul, x, y)
    assert_equal_to_numpy(gp.linalg.matrix_transpose(a), np.swapaxes(x, -1, -2))


NORMS = [
    ((7,), {}),
    ((3, 4), {}),
    ((2, 3, 4), {}),
    ((9,), {"ord": 1}),
    ((9,), {"ord": 2}),
    ((9,), {"ord": 3.5}),
    ((9,), {"ord": 0}),
    ((3, 4), {"ord": "fro"}),
    ((3, 4), {"axis": 0}),
    ((3, 4), {"axis": 1, "keepdims": True}),
    ((2, 3, 4), {"axis": (1, 2)}),
    ((2, 3, 4), {"axis": (2, 0), "ord": "fro", "keepdims": True}),
    ((3, 4), {"keepdims": True}),
    ((9,), {"ord": np.inf}),
    ((9,), {"ord": -np.inf}),
    ((3, 4), {"ord": 1}),
    ((3, 4), {"ord": -1}),
    ((3, 4), {"ord": np.inf}),
    ((3, 4), {"ord": -np.inf}),
    ((2, 3, 4), {"axis": (0, 2), "ord": 1}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128, np.int32, np.float16], ids=dtype_id)
@pytest.mark.parametrize("case", NORMS, ids=str)
def test_norm(rng, dtype, case):
    shape, kw = case
    x = random_array(rng, shape, dtype)
    if np.dtype(dtype).kind in "iu":
        x = (x % 100).astype(dtype)  # keep squares far from overflow in the reference
    got = gp.linalg.norm(gp.asarray(x), **kw)
    want = np.asarray(np.linalg.norm(x, **kw))
    close_norm(got, x, x.size // max(want.size, 1), **kw)


def test_norm_errors(rng):
    x = random_array(rng, (3, 4), np.float64)
    a = gp.asarray(x)
    for kw, words in [
        ({"ord": "fro", "axis": 0}, "Invalid norm order 'fro' for vectors"),
        ({"axis": (0, 0)}, "Duplicate axes given"),
        ({"ord": 3, "axis": (0, 1)}, "Invalid norm order for matrices"),
    ]:
        with pytest.raises(ValueError, match=words):
            np.linalg.norm(x, **kw)
        with pytest.raises(ValueError, match=words):
            gp.linalg.norm(a, **kw)


def test_vector_and_matrix_norm(rng):
    x = random_array(rng, (2, 3, 4), np.float64)
    a = gp.asarray(x)
    # vector_norm and matrix_norm are norm's cases: the same bound (close_norm), against
    # norm's long-double result with the equivalent arguments.
    assert_close(gp.linalg.vector_norm(a).get(), np.linalg.norm(x.astype(WIDE).ravel()), 24 + 21, dtype=np.float64)
    assert_close(gp.linalg.vector_norm(a, axis=(0, 2)).get(), np.sqrt(np.sum(x.astype(WIDE) ** 2, axis=(0, 2))), 8 + 21, dtype=np.float64)
    assert_close(gp.linalg.vector_norm(a, ord=1, axis=1, keepdims=True).get(), np.sum(np.abs(x.astype(WIDE)), axis=1, keepdims=True), 3 + 21, dtype=np.float64)
    assert_close(gp.linalg.matrix_norm(a).get(), np.sqrt(np.sum(x.astype(WIDE) ** 2, axis=(-2, -1))), 12 + 21, dtype=np.float64)


# Views of a (6, 8) base: transposed, negative steps, column steps, an offset.
BASE_VIEWS = [
    ("transposed", lambda a: a.T),
    ("negstep", lambda a: a[::-1, ::-1]),
    ("cols_step2", lambda a: a[:, ::2]),
    ("rows_negstep2", lambda a: a[::-2]),
    ("offset", lambda a: a[1:, 1:]),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int16], ids=dtype_id)
@pytest.mark.parametrize("view", [f for _, f in BASE_VIEWS], ids=[n for n, _ in BASE_VIEWS])
def test_compositions_on_views(rng, dtype, view):
    """dot (2-d and N-d), inner, tensordot, kron, einsum, trace and norm read
    non-contiguous and negative-stride operands like contiguous ones."""
    xb = random_array(rng, (6, 8), dtype)
    gx = gp.asarray(xb)
    x, a = view(xb), view(gx)
    check(gp.dot(a, a.T), np.dot, x, x.T)
    # N-d dot: a negative-stride 3-d operand whose last axis meets a's first.
    x3b = random_array(rng, (2, 3, 2 * x.shape[0]), dtype)
    x3, g3 = x3b[:, ::-1, ::-2], gp.asarray(x3b)[:, ::-1, ::-2]
    check(gp.dot(g3, a), np.dot, x3, x)
    check(gp.inner(a, a), np.inner, x, x)
    check(gp.tensordot(a, a, axes=([0, 1], [0, 1])), np.tensordot, x, x, axes=([0, 1], [0, 1]))
    check(gp.kron(a[:3, :3], a[::-1][:2]), np.kron, x[:3, :3], x[::-1][:2])
    check(gp.einsum("ij,kj->ik", a, a), lambda p, q: np.einsum("ij,kj->ik", p, q), x, x)
    check(gp.trace(a), np.trace, x)
    check(gp.trace(a, offset=1), lambda p: np.trace(p, offset=1), x)
    if np.dtype(dtype).kind != "i":
        close_norm(gp.linalg.norm(a), x, x.size)
        close_norm(gp.linalg.norm(a, axis=0), x, x.shape[0], axis=0)
