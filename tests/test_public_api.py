"""Public names that no other test exercised, and a guard that every public name is
mentioned by some test: ``asfortranarray``, ``MemoryPool``, ``config.set_tf32``,
``ndarray.set``/``diagonal``/``flags``/``data``, ``array(ndmin=, copy=False)``,
``asnumpy(order=, out=)``, the NumPy aliases and ``gpupy.linalg``'s re-exports."""

import glob
import os
import re

import numpy as np
import pytest

import compare
import gpupy as gp
from helpers import VIEW_FUNCS_2D, VIEW_IDS_2D, assert_equal_to_numpy, assert_ufunc_result, dtype_id, known_defect, random_array

# ---------------------------------------------------------------------------------------
# Every public name is mentioned by a test (runs without a GPU).

# Public names that are not API and need no test, each with its reason.
NOT_API = {}  # none since the leaks (gpupy.numpy, gpupy.zeros_like_float, gpupy.config.os) were closed
# The tests' source text: the other test modules, and this one below the marker (the
# checker itself names no API). The marker is built so that only the comment matches.
MARKER = "# --- tests " + "of the names"
TEST_SOURCES = "\n".join(
    open(f, encoding="utf-8").read() for f in sorted(glob.glob(os.path.join(os.path.dirname(__file__), "test_*.py")))
    if not f.endswith("test_public_api.py")
) + "\n" + open(__file__, encoding="utf-8").read().split(MARKER, 1)[1]


def mentioned(name, owner):
    """``owner.name`` is written in a test (``gp.name``, ``gpupy.name``, ``linalg.name``,
    ...), or ``name`` is quoted (tests that loop over names), or, for ndarray, ``.name``.
    A test that only names NumPy's function (``np.name``) does not count."""
    pats = [rf"\b{owner}\.{re.escape(name)}\b", rf"[\"']{re.escape(name)}[\"']"]
    if owner == "gp":
        pats.append(rf"\bgpupy\.{re.escape(name)}\b")
        # test_manipulation's cases ``lambda m, a: m.name(...)`` run for m = gp and np.
        pats.append(rf"\bm\.{re.escape(name)}\b")
    if owner == "ndarray":
        pats = [rf"\.{re.escape(name)}\b", rf"[\"']{re.escape(name)}[\"']"]
    return any(re.search(p, TEST_SOURCES) for p in pats)


def test_every_public_name_is_mentioned_by_a_test():
    # Every ufunc in gp._math._UFUNC_NAMES runs through test_ufuncs' enumeration.
    ufuncs = set(gp._math._UFUNC_NAMES)
    spaces = [
        ("gp", [n for n in dir(gp) if not n.startswith("_") and n not in ufuncs]),
        ("linalg", [n for n in dir(gp.linalg) if not n.startswith("_")]),
        ("cuda", list(gp.cuda.__all__)),
        ("config", [n for n in dir(gp.config) if not n.startswith("_")]),
        ("random", list(gp.random.__all__)),
        ("ndarray", [n for n in dir(gp.ndarray) if not n.startswith("_")]),
    ]
    missing = [f"{owner}.{n}" for owner, names in spaces for n in names if n not in NOT_API and not mentioned(n, owner)]
    assert not missing, f"public names no test mentions: {missing}"


def test_not_api_allow_list_is_current():
    """Every allow-listed name still exists (a stale entry would hide nothing, but says
    something wrong)."""
    names = set(dir(gp)) | set(dir(gp.config))
    assert set(NOT_API) <= names, set(NOT_API) - names


# --- tests of the names (the source below this line counts for the check above) -------


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(), (1,), (7,), (5, 6), (2, 3, 4), (0, 3)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128], ids=dtype_id)
def test_asfortranarray(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    for view_g, view_x in [(g, x)] + ([(g.T, x.T), (g[::-1], x[::-1])] if x.ndim >= 1 else []):
        got = gp.asfortranarray(view_g)
        want = np.asfortranarray(view_x)
        assert got.flags.f_contiguous
        assert got.shape == want.shape
        assert_equal_to_numpy(got, want)
    wider = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    got = gp.asfortranarray(g, dtype=wider)
    assert_equal_to_numpy(got, np.asfortranarray(x, dtype=wider))
    assert got.flags.f_contiguous
    # An F-contiguous array comes back as it is.
    if x.ndim >= 2:
        f = gp.asfortranarray(g)
        assert gp.asfortranarray(f) is f


@pytest.mark.gpu
def test_memory_pool_counts_blocks(rng):
    assert gp.MemoryPool is gp.cuda.MemoryPool
    pool = gp.get_default_memory_pool()
    assert isinstance(pool, gp.cuda.MemoryPool)
    explicit = gp.cuda.MemoryPool(0)  # a view of device 0's pool: the same numbers
    x = random_array(rng, (1 << 20,), np.float64)  # 8 MiB
    before = pool.used_bytes()
    g = gp.asarray(x)
    assert pool.used_bytes() >= before + x.nbytes
    assert explicit.used_bytes() == pool.used_bytes()
    assert pool.total_bytes() >= pool.used_bytes()
    assert pool.free_bytes() == pool.total_bytes() - pool.used_bytes()
    del g
    assert pool.used_bytes() == before  # the block went back to the pool...
    assert pool.free_bytes() >= x.nbytes  # ...which caches it
    pool.free_all_blocks()
    assert pool.free_bytes() == 0
    assert pool.total_bytes() == pool.used_bytes()


@pytest.mark.gpu
def test_config_set_tf32(rng):
    x, y = random_array(rng, (128, 256), np.float32), random_array(rng, (256, 64), np.float32)
    a, b = gp.asarray(x), gp.asarray(y)
    previous = gp.config.tf32()
    try:
        gp.config.set_tf32(True)
        assert gp.config.tf32() is True
        compare.assert_product_close((a @ b).get(), x, y, accum=np.float32, tf32=True)
        gp.config.set_tf32(False)
        assert gp.config.tf32() is False
        # Exact float32 again: within the float32 bound without the TF32 allowance.
        compare.assert_product_close((a @ b).get(), x, y, accum=np.float32)
        gp.config.set_tf32(1)  # any truthy value, as bool()
        assert gp.config.tf32() is True
    finally:
        gp.config.set_tf32(previous)
    assert gp.config.tf32() is previous


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float64, np.int8, np.complex64], ids=dtype_id)
def test_ndarray_set(rng, dtype):
    x = random_array(rng, (6, 7), dtype)
    g = gp.asarray(x)
    y = random_array(rng, (6, 7), dtype)
    assert g.set(y) is None
    assert_equal_to_numpy(g, y)
    # Another host dtype is cast to the array's dtype, as NumPy's assignment casts.
    z = random_array(rng, (6, 7), np.float64) if np.dtype(dtype).kind in "fc" else random_array(rng, (6, 7), np.int64)
    g.set(z)
    want = np.empty((6, 7), dtype)
    with np.errstate(all="ignore"):
        want[...] = z
    assert_equal_to_numpy(g, want)
    # Into a non-contiguous view: only the view's elements change.
    base = gp.asarray(x)
    v = random_array(rng, (3, 7), dtype)
    base[::2].set(v)
    xx = x.copy()
    xx[::2] = v
    assert_equal_to_numpy(base, xx)
    with pytest.raises(ValueError, match="Shape mismatch"):
        g.set(random_array(rng, (7, 6), dtype))


@pytest.mark.gpu
@pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
def test_ndarray_diagonal(rng, view):
    x = random_array(rng, (9, 12), np.float32)
    g = gp.asarray(x)
    vx, vg = view(x), view(g)
    for offset in (0, 1, -2, 5, -20, 30):
        assert_equal_to_numpy(vg.diagonal(offset), vx.diagonal(offset))
    x3 = random_array(rng, (3, 4, 5), np.complex128)
    g3 = gp.asarray(x3)
    for offset, a1, a2 in [(0, 0, 1), (1, 1, 2), (-1, 2, 0), (0, -1, -2)]:
        assert_equal_to_numpy(g3.diagonal(offset, a1, a2), x3.diagonal(offset, a1, a2))
    with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same"):
        x3.diagonal(0, 1, 1)
    with pytest.raises(ValueError, match="axis1 and axis2 cannot be the same"):
        g3.diagonal(0, 1, 1)


@pytest.mark.gpu
def test_flags_fields_match_numpy(rng):
    x = random_array(rng, (6, 8), np.float64)
    g = gp.asarray(x)
    cases = [(g, x), (g.T, x.T), (g[::2], x[::2]), (g[:, 1:], x[:, 1:]), (g[1:], x[1:]), (g[0], x[0]),
             (g[:, 0], x[:, 0]), (g[:1], x[:1]), (g[2, 3, ...], x[2, 3, ...]), (g[::-1], x[::-1])]
    for a, n in cases:
        f, nf = a.flags, n.flags
        # flags.fortran: see test_flags_fortran_matches_numpy (a known defect).
        for field in ("c_contiguous", "f_contiguous", "contiguous", "forc", "writeable", "aligned"):
            assert getattr(f, field) == getattr(nf, field), (field, a.shape, a.strides)
        for key in ("C_CONTIGUOUS", "C", "CONTIGUOUS", "F_CONTIGUOUS", "F", "FORTRAN", "W", "WRITEABLE", "A", "ALIGNED", "FORC"):
            assert f[key] == nf[key], (key, a.shape, a.strides)
    # owndata: a fresh array owns its memory, a view does not (gpupy also reports False
    # for an array while views of it are alive; flagsobj docs in py/src).
    fresh = gp.asarray(x)
    assert fresh.flags.owndata and fresh.flags["OWNDATA"] and fresh.flags["O"]
    assert not fresh[1:].flags.owndata
    # no match=: NumPy's KeyError says 'Unknown flag', gpupy's names the key ('NOT_A_FLAG')
    with pytest.raises(KeyError):
        fresh.flags["NOT_A_FLAG"]
    assert "C_CONTIGUOUS : True" in repr(fresh.flags)


@pytest.mark.gpu
@pytest.mark.parametrize("view", ["2d", "T", "row", "col", "1x8", "0d"])
def test_flags_fortran_matches_numpy(request, view):
    """NumPy's flags.fortran is F_CONTIGUOUS (its fnc is F and not C)."""
    if view in ("row", "1x8", "0d"):
        known_defect(request, "flags.fortran is F_CONTIGUOUS and not C_CONTIGUOUS (NumPy's fnc); NumPy's fortran is "
                     "F_CONTIGUOUS, so arrays both C and F contiguous (1-d, 0-d, 1xN) report False (py/src/ndarray_methods.rs Flags::fortran)")
    x = np.arange(48, dtype=np.float64).reshape(6, 8)
    g = gp.asarray(x)
    pick = {"2d": lambda a: a, "T": lambda a: a.T, "row": lambda a: a[0], "col": lambda a: a[:, 0],
            "1x8": lambda a: a[:1], "0d": lambda a: a[2, 3, ...]}[view]
    a, n = pick(g), pick(x)
    assert a.flags.fortran == n.flags.fortran, (a.shape, a.strides)


@pytest.mark.gpu
def test_data_pointer_and_device_id(rng):
    x = random_array(rng, (10, 3), np.complex64)
    g = gp.asarray(x)
    d = g.data
    assert d.device_id == gp.cuda.Device().id == 0
    assert d.device == gp.cuda.Device(0)
    assert int(d) == d.ptr and d.ptr != 0
    assert g[1:].data.ptr == d.ptr + g.strides[0]
    assert g[:, 2].data.ptr == d.ptr + 2 * g.itemsize
    assert g[::-1].data.ptr == d.ptr + 9 * g.strides[0]  # the first element of the view
    assert "MemoryPointer" in repr(d)


@pytest.mark.gpu
@pytest.mark.parametrize("ndmin", [0, 1, 2, 4])
def test_array_ndmin_and_copy(rng, ndmin):
    for shape in [(), (3,), (2, 5)]:
        x = random_array(rng, shape, np.float32)
        for src in (x, gp.asarray(x), x.tolist()):
            got = gp.array(src, ndmin=ndmin)
            # NumPy's dtype for each source: float32 for the arrays, float64 for the
            # Python floats of x.tolist() (the same values, exactly).
            assert_equal_to_numpy(got, np.array(src.get() if isinstance(src, gp.ndarray) else src, ndmin=ndmin))
    g = gp.asarray(random_array(rng, (4, 3), np.int32))
    same = gp.array(g, copy=False)
    assert same is g  # no copy was needed
    original = g.get()
    copied = gp.array(g, copy=True)
    assert copied is not g
    assert_equal_to_numpy(copied, original)
    copied[0, 0] = original[0, 0] + 1
    assert_equal_to_numpy(g, original)  # the copy owns its memory


@pytest.mark.gpu
def test_asnumpy_order_and_out(rng):
    x = random_array(rng, (4, 5), np.float64)
    g = gp.asarray(x)
    got = gp.asnumpy(g)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, x, strict=True)
    np.testing.assert_array_equal(gp.asnumpy(g.T), x.T, strict=True)
    # gpupy's device-to-host copy writes C order (py/src ndarray.get), into a new array
    # or into out= of the same shape and dtype.
    with pytest.raises(ValueError, match="order='C'"):
        gp.asnumpy(g, order="F")
    out = np.full((4, 5), np.nan)
    assert gp.asnumpy(g, out=out) is out
    np.testing.assert_array_equal(out, x, strict=True)
    with pytest.raises(ValueError, match="Shape mismatch"):
        gp.asnumpy(g, out=np.empty((5, 4)))
    with pytest.raises(TypeError, match="dtype mismatch"):
        gp.asnumpy(g, out=np.empty((4, 5), np.float32))
    with pytest.raises(ValueError, match="C-contiguous, writeable"):
        gp.asnumpy(g, out=np.empty((5, 4)).T)
    # Host input: NumPy's asarray with the order.
    f = gp.asnumpy(x, order="F")
    assert f.flags.f_contiguous
    np.testing.assert_array_equal(f, x)


# ---------------------------------------------------------------------------------------
# NumPy's aliases and gpupy.linalg's re-exports


def test_aliases_are_the_same_objects():
    assert gp.amin is gp.min and gp.amax is gp.max
    assert gp.round is gp.around
    assert gp.conj is gp.conjugate
    assert gp.radians is gp.deg2rad and gp.degrees is gp.rad2deg
    assert gp.bitwise_not is gp.invert
    for name in ("dot", "einsum", "inner", "kron", "vdot"):
        assert getattr(gp.linalg, name) is getattr(gp, name), name
    # numpy.linalg's trace and outer are the array API's (last two axes; 1-D vectors),
    # not the top-level functions.
    assert gp.linalg.trace is not gp.trace and gp.linalg.outer is not gp.outer


@pytest.mark.gpu
def test_aliases_compute_numpys_results(rng):
    x = random_array(rng, (7, 9), np.float64)
    z = random_array(rng, (7, 9), np.complex64)
    i = random_array(rng, (7, 9), np.int16)
    g, gz, gi = gp.asarray(x), gp.asarray(z), gp.asarray(i)
    for axis in (None, 0, 1):
        assert_equal_to_numpy(gp.amin(g, axis=axis), np.amin(x, axis=axis))
        assert_equal_to_numpy(gp.amax(gi, axis=axis), np.amax(i, axis=axis))
    for decimals in (0, 2, -1):
        # around: a scale, a rounding and an unscale, as NumPy's (bit-exact).
        assert_equal_to_numpy(gp.round(g * 100, decimals), np.round(x * 100, decimals))
    assert_equal_to_numpy(gp.conj(gz), np.conj(z))
    assert_ufunc_result(gp.radians(g), np.radians(x), "radians", inputs=(x,))
    assert_ufunc_result(gp.degrees(g), np.degrees(x), "degrees", inputs=(x,))
    assert_equal_to_numpy(gp.bitwise_not(gi), np.bitwise_not(i))


@pytest.mark.gpu
def test_linalg_reexports_compute_numpys_results(rng):
    from test_linalg import check

    x = random_array(rng, (5, 6), np.float32)
    y = random_array(rng, (6, 4), np.float32)
    v = random_array(rng, (6,), np.float32)
    a, b, w = gp.asarray(x), gp.asarray(y), gp.asarray(v)
    check(gp.linalg.dot(a, b), np.dot, x, y)
    check(gp.linalg.einsum("ij,jk->ik", a, b), lambda p, q: np.einsum("ij,jk->ik", p, q), x, y)
    check(gp.linalg.inner(a, w), np.inner, x, v)
    check(gp.linalg.kron(w, w), np.kron, v, v)
    check(gp.linalg.trace(a), np.trace, x)
    t = random_array(rng, (3, 5, 6), np.float32)
    check(gp.linalg.trace(gp.asarray(t)), np.linalg.trace, t)
    check(gp.linalg.vdot(w, w), np.vdot, v, v)
