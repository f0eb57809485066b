"""The array object: attributes (``itemsize``, ``T``, ``mT``, ``real``, ``imag``,
``flags``, ``data``, ``device``) and methods (``fill``, ``reshape``, ``ravel``,
``flatten``, ``swapaxes``, ``squeeze``, ``item``, ``tolist``, ``view``, iteration and
scalar conversion), against NumPy on random data, views included."""

import operator
import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import gpupy as gp
from helpers import (
    raises_like,
    random_pair,
    SAMPLE_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    assert_same_attributes,
    dtype_id,
    random_array,
    random_scalar,
)

pytestmark = pytest.mark.gpu

DTYPES = SAMPLE_DTYPES


pair = random_pair


# ---------------------------------------------------------------------------------------
# Attributes


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_basic_attributes_of_views(rng, dtype, view):
    x, g = pair(rng, (6, 8), dtype)
    assert_same_attributes(view(g), view(x))
    assert_same_attributes(view(g).T, view(x).T)
    assert_same_attributes(view(g).mT, view(x).mT)
    assert_equal_to_numpy(view(g).mT, view(x).mT)
    assert view(g).itemsize == np.dtype(dtype).itemsize


def test_mT_batched_and_errors(rng):
    x, g = pair(rng, (2, 3, 4), np.int64)
    assert_equal_to_numpy(g.mT, x.mT)
    assert_same_attributes(g.mT, x.mT)
    for shape in [(), (3,)]:
        x, g = pair(rng, shape)
        raises_like(lambda: g.mT, lambda: x.mT)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128], ids=dtype_id)
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_real_and_imag_of_complex_are_views(rng, dtype, view):
    x, g = pair(rng, (5, 6), dtype)
    for part in ("real", "imag"):
        gv, xv = getattr(view(g), part), getattr(view(x), part)
        assert_equal_to_numpy(gv, xv)
        assert_same_attributes(gv, xv)
    # Writing through the views changes the complex array.
    re = random_array(rng, view(x).shape, np.float64)
    im = random_array(rng, view(x).shape, np.float64)
    view(g).real[...] = gp.asarray(re.astype(view(x).real.dtype))
    view(x).real[...] = re
    view(g).imag[...] = gp.asarray(im.astype(view(x).real.dtype))
    view(x).imag[...] = im
    assert_equal_to_numpy(g, x)
    # And assigning to the attributes does too.
    view(g).real = 0.5
    view(x).real = 0.5
    view(g).imag = gp.asarray(im.astype(view(x).imag.dtype))
    view(x).imag = im
    assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float16, np.float32, np.float64], ids=dtype_id)
def test_real_and_imag_of_real_arrays(rng, dtype):
    x, g = pair(rng, (3, 4), dtype)
    assert_equal_to_numpy(g.real, x.real)
    assert_equal_to_numpy(g.imag, x.imag)
    assert_equal_to_numpy(gp.real(g), np.real(x))
    assert_equal_to_numpy(gp.imag(g), np.imag(x))
    # `real` of a real array is the array's own memory.
    g.real[...] = gp.asarray(x[::-1])
    assert_equal_to_numpy(g, x[::-1])
    with pytest.raises(TypeError, match="array does not have imaginary part to set"):
        g.imag = 1


@pytest.mark.parametrize(
    "view",
    [lambda a: a, lambda a: a.T, lambda a: a[:, ::2], lambda a: a[1:2], lambda a: a[:0], lambda a: a[0, :1]],
    ids=["contiguous", "transposed", "strided", "one_row", "empty", "one_element"],
)
def test_flags(rng, view):
    x, g = pair(rng, (3, 4), np.float32)
    gf, xf = view(g).flags, view(x).flags
    assert gf.c_contiguous == xf.c_contiguous
    assert gf.f_contiguous == xf.f_contiguous
    for key in ["C_CONTIGUOUS", "F_CONTIGUOUS", "C", "F"]:
        assert gf[key] == xf[key], key
    # no match=: NumPy's KeyError says 'Unknown flag', gpupy's names the key ('NOT_A_FLAG')
    with pytest.raises(KeyError):
        gf["NOT_A_FLAG"]
    assert "C_CONTIGUOUS" in repr(gf)


def test_flags_owndata(rng):
    x, g = pair(rng, (3, 4))
    assert g.flags.owndata and g.flags["OWNDATA"]
    assert not g[1:].flags.owndata
    assert gp.ones(3).flags.owndata


def test_data_and_device(rng):
    x, g = pair(rng, (3, 4), np.float64)
    assert isinstance(g.data.ptr, int) and g.data.ptr != 0
    assert g[1:].data.ptr - g.data.ptr == 4 * 8
    assert g[:, 1:].data.ptr - g.data.ptr == 8
    assert isinstance(g.device, gp.cuda.Device)
    assert g.device.id == gp.cuda.Device().id
    assert g.device == gp.cuda.Device()


# ---------------------------------------------------------------------------------------
# fill, item, tolist, view


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_fill(rng, dtype, view):
    x, g = pair(rng, (5, 7), dtype)
    v = random_scalar(rng, dtype)
    view(g).fill(v)
    view(x).fill(v)
    assert_equal_to_numpy(g, x)  # only the view's elements change


def test_fill_converts_like_numpy(rng):
    x, g = pair(rng, (4,), np.int64)
    g.fill(3.9)
    x.fill(3.9)
    assert_equal_to_numpy(g, x)
    g.fill(gp.asarray(np.float32(-2.5)))
    x.fill(np.float32(-2.5))
    assert_equal_to_numpy(g, x)
    u = np.zeros(3, np.uint8)
    raises_like(lambda: gp.asarray(u).fill(-1), lambda: u.fill(-1))
    raises_like(lambda: gp.asarray(u).fill([1, 2]), lambda: u.fill([1, 2]))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_item_and_tolist(rng, dtype):
    x, g = pair(rng, (3, 4), dtype)
    for args in [(0,), (5,), (-1,), (11,), (1, 2), ((2, 3),), (-1, -4)]:
        got, want = g.item(*args), x.item(*args)
        assert type(got) is type(want) and got == want, args
    for args in [(12,), (-13,), (3, 0), (0, 4)]:
        raises_like(lambda: g.item(*args), lambda: x.item(*args))
    raises_like(lambda: g.item(), lambda: x.item())
    raises_like(lambda: g.item(1, 2, 3), lambda: x.item(1, 2, 3))
    assert g.tolist() == x.tolist()
    assert g.T[::-1].tolist() == x.T[::-1].tolist()
    x0, g0 = pair(rng, (), dtype)
    assert type(g0.item()) is type(x0.item()) and g0.item() == x0.item()
    assert g0.item(0) == x0.item(0)
    assert g0.tolist() == x0.tolist()
    x1, g1 = pair(rng, (1, 1), dtype)
    assert g1.item() == x1.item()
    assert gp.zeros((0, 3), dtype).tolist() == np.zeros((0, 3), dtype).tolist()


def test_item_of_views(rng):
    x, g = pair(rng, (5, 6), np.float32)
    for k in [0, 3, 7, -1]:
        assert g.T[::-2].item(k) == x.T[::-2].item(k)
    for view in VIEW_FUNCS_1D:
        x1, g1 = pair(rng, (9,), np.int8)
        assert view(g1).item(-1) == view(x1).item(-1)


@pytest.mark.parametrize(
    "src,dst",
    [
        (np.int32, np.float32),
        (np.float64, np.int64),
        (np.complex64, np.uint64),
        (np.uint8, np.bool_),
        (np.int16, np.float16),
        (np.float64, np.int16),
        (np.int8, np.complex128),
        (np.complex128, np.float64),
    ],
    ids=lambda d: np.dtype(d).name,
)
def test_view_dtype(rng, src, dst):
    x = random_array(rng, (4, 16), src)
    if np.dtype(src) == np.uint8 and np.dtype(dst) == np.bool_:
        x = x % 2  # only 0 and 1 are valid bools
    g = gp.asarray(x)
    v = g.view(dst)
    want = x.view(dst)
    assert_same_attributes(v, want)
    assert_array_equal(v.get().view(np.uint8), want.view(np.uint8))  # bit patterns
    # A view of the same memory: writing through it changes the source.
    v[...] = gp.asarray(want[::-1].copy())
    want[...] = want[::-1].copy()
    assert_array_equal(g.get().view(np.uint8), x.view(np.uint8))
    assert_same_attributes(g.view(), x.view())
    assert_same_attributes(g[1:, ::-1].view(np.dtype(src)), x[1:, ::-1].view(src))


def test_view_dtype_errors(rng):
    x = random_array(rng, (3, 3), np.int8)
    g = gp.asarray(x)
    raises_like(lambda: g.view(np.int16), lambda: x.view(np.int16))
    raises_like(lambda: g.T.view(np.int64), lambda: x.T.view(np.int64))
    y = random_array(rng, (3,), np.float64)
    raises_like(lambda: gp.asarray(y)[0].view(np.int8), lambda: y[0, ...].view(np.int8))


# ---------------------------------------------------------------------------------------
# reshape, ravel, flatten, swapaxes, squeeze

RESHAPES = [
    ((6, 4), (4, 6)),
    ((6, 4), (-1,)),
    ((6, 4), (2, -1, 3)),
    ((6, 4), (1, 24, 1)),
    ((24,), (2, 3, 4)),
    ((2, 3, 4), (6, 4)),
    ((1,), ()),
    ((), (1, 1)),
    ((0, 3), (3, 0, 5)),
    ((0, 3), (-1, 6)),
]


@pytest.mark.parametrize("shape,new", RESHAPES, ids=[f"{s}->{n}" for s, n in RESHAPES])
@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128], ids=dtype_id)
def test_reshape_matches_numpy(rng, shape, new, dtype):
    x, g = pair(rng, shape, dtype)
    for view_g, view_x in [(g, x), (g.T, x.T)]:
        r, want = view_g.reshape(new), view_x.reshape(new)
        assert_equal_to_numpy(r, want)
        if want.size:
            assert_same_attributes(r, want)
        assert_equal_to_numpy(view_g.reshape(*new) if new else view_g.reshape(()), want)
        assert_equal_to_numpy(view_g.reshape(list(new)), want)
        assert_equal_to_numpy(gp.reshape(view_g, new), np.reshape(view_x, new))


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_reshape_view_or_copy_like_numpy(rng, view):
    """Where NumPy's reshape is a view, gpupy's is too (writes go through); else a copy."""
    x, g = pair(rng, (6, 8), np.float64)
    for new in [(-1,), (-1, 1), (1, -1), view(x).shape[::-1], (1,) + view(x).shape]:
        want = view(x).reshape(new)
        r = view(g).reshape(new)
        assert_equal_to_numpy(r, want)
        assert_same_attributes(r, want)
        shares = np.shares_memory(want, x)
        v = rng.uniform()
        r[...] = v
        want[...] = v
        assert_equal_to_numpy(g, x)  # unchanged unless NumPy's result shares memory
        if not shares:
            assert_array_equal(r.get(), np.full(want.shape, v))


def test_reshape_order_and_errors(rng):
    x, g = pair(rng, (4, 6), np.int64)
    for order in "CFA":
        for view in (lambda a: a, lambda a: a.T, lambda a: a[:, ::2]):
            assert_equal_to_numpy(view(g).reshape(3, -1, order=order), view(x).reshape(3, -1, order=order))
    for bad in [(5,), (-1, 5), (7, -1), (-1, -1), (0, -1), ()]:
        with pytest.raises(ValueError) as e_np:  # no match=: NumPy's message is the reference
            x.reshape(bad)
        with pytest.raises(ValueError) as e_gp:  # no match=: compared with NumPy's below
            g.reshape(bad)
        assert str(e_gp.value) == str(e_np.value)
    raises_like(lambda: g.reshape(2.0, 12), lambda: x.reshape(2.0, 12))
    raises_like(lambda: g.reshape("abc"), lambda: x.reshape("abc"))


def test_reshape_function_copy_argument(rng):
    x, g = pair(rng, (4, 6))
    r = gp.reshape(g, (6, 4), copy=True)
    r[...] = 0
    assert_equal_to_numpy(g, x)
    with pytest.raises(ValueError, match="Unable to avoid creating a copy while reshaping"):
        gp.reshape(g.T, (-1,), copy=False)
    v = gp.reshape(g, (24,), copy=False)
    v[0] = 7
    x.reshape(-1)[0] = 7
    assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_ravel_and_flatten(rng, view, order):
    x, g = pair(rng, (5, 6), np.uint16)
    r, want = view(g).ravel(order), view(x).ravel(order)
    assert_equal_to_numpy(r, want)
    assert_equal_to_numpy(gp.ravel(view(g), order), np.ravel(view(x), order))
    if order != "K":
        f = view(g).flatten(order)
        assert_equal_to_numpy(f, view(x).flatten(order))
        f[...] = 0
        assert_equal_to_numpy(g, x)  # flatten always copies
    if np.shares_memory(want, x):
        r[...] = 3
        want[...] = 3
        assert_equal_to_numpy(g, x)


def test_swapaxes_and_squeeze(rng):
    x, g = pair(rng, (2, 1, 3, 1), np.complex64)
    for a, b in [(0, 2), (-1, 0), (1, 1), (3, -4)]:
        assert_equal_to_numpy(g.swapaxes(a, b), x.swapaxes(a, b))
        assert_same_attributes(g.swapaxes(a, b), x.swapaxes(a, b))
        assert_same_attributes(gp.swapaxes(g.T, a, b), np.swapaxes(x.T, a, b))
    raises_like(lambda: g.swapaxes(0, 4), lambda: x.swapaxes(0, 4))
    with pytest.raises(np.exceptions.AxisError, match="axis -5 is out of bounds for array of dimension 4"):
        g.swapaxes(-5, 0)
    for axis in [None, 1, -1, (1, 3), (3,)]:
        assert_equal_to_numpy(g.squeeze(axis), x.squeeze(axis))
        assert_same_attributes(g.squeeze(axis=axis), x.squeeze(axis=axis))
        assert_same_attributes(gp.squeeze(g[:, :, ::-2], axis), np.squeeze(x[:, :, ::-2], axis))
    for axis in [0, (1, 1), 4, (0, 1)]:
        raises_like(lambda: g.squeeze(axis), lambda: x.squeeze(axis))
    with pytest.raises(np.exceptions.AxisError, match="axis 7 is out of bounds for array of dimension 4"):
        g.squeeze(7)
    s = g.squeeze()
    s[...] = 1
    x[...] = 1
    assert_equal_to_numpy(g, x)  # squeeze is a view


# ---------------------------------------------------------------------------------------
# Iteration and scalar conversion


@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_iteration(rng, view):
    x, g = pair(rng, (5, 4), np.int8)
    rows = list(view(g))
    assert len(rows) == len(view(x))
    for r, w in zip(rows, view(x)):
        assert_equal_to_numpy(r, w)
    for item, w in zip(view(g)[0], view(x)[0]):
        assert isinstance(item, gp.ndarray) and item.shape == ()
        assert item.item() == w.item()
    assert list(gp.zeros((0, 3))) == []
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(gp.asarray(np.float64(1.5)))
    # Rows are views.
    first = next(iter(g))
    first[...] = 9
    x[0] = 9
    assert_equal_to_numpy(g, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_scalar_conversions(rng, dtype):
    x0, g0 = pair(rng, (), dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert complex(g0) == complex(x0)
        if np.dtype(dtype).kind != "c":
            assert float(g0) == float(x0)
            assert int(g0) == int(x0)
        assert bool(g0) == bool(x0)
    if np.dtype(dtype).kind in "iu":
        assert operator.index(g0) == operator.index(x0)
        assert type(operator.index(g0)) is int
        assert [10, 20, 30, 40][gp.asarray(np.array(2, dtype))] == 30
    else:
        raises_like(lambda: operator.index(g0), lambda: operator.index(x0))
    for shape in [(1,), (2,), (0,), (1, 1)]:
        x, g = pair(rng, shape, dtype)
        raises_like(lambda: operator.index(g), lambda: operator.index(x))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = complex(x)
            except TypeError:
                # NumPy 2.4: "only 0-dimensional arrays ..."; older: "only length-1 arrays ...".
                with pytest.raises(TypeError, match="can be converted to Python scalars"):
                    complex(g)
            else:
                assert complex(g) == want
