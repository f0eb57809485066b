"""Dask arrays of gpupy chunks (gpupy/_dask.py), each computation compared with the same
Dask computation on NumPy chunks (same shapes, chunks and data), and gpupy arrays
through distributed's serialization and a LocalCluster.

Skipped with the reason when dask (or distributed) is not installed. The registration
test runs without a GPU; the rest need one.

Tolerances: elementwise +, -, *, /, sqrt are IEEE correctly rounded, so gpupy and NumPy
agree bit for bit. A reduction of n float64 terms summed in two different orders differs
by at most 2 * (n - 1) * u * sum|x| (each order's error is at most (n - 1) u sum|x|,
Higham 4.2); std's cancellation-free formula over standard normal data keeps its relative
error under the same 2 n u times a small constant (the mean's error enters squared
deviations with weight |x - m| / std = O(1)): we use 8 n u. Matrix products: the
suite's product bound (compare.product_bound, k = the full inner dimension: Dask sums
the per-chunk partial products in float64, one more ordering of the same k terms).
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="dask[array] is not installed (pip install gpupy[dask])")
dask = pytest.importorskip("dask")

import gpupy as gp  # noqa: E402
from compare import assert_product_close  # noqa: E402
from helpers import assert_equal_to_numpy  # noqa: E402

EPS64 = np.finfo(np.float64).eps / 2  # unit roundoff u

gpu = pytest.mark.gpu


def _pair(rng, shape, chunks, dtype=np.float64):
    """The same data as a Dask array of gpupy chunks and one of NumPy chunks."""
    x = rng.standard_normal(shape).astype(dtype)
    return da.from_array(gp.asarray(x), chunks=chunks, asarray=False), da.from_array(x, chunks=chunks), x


def _sum_bound(x, axis):
    n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
    return 2 * max(n - 1, 1) * EPS64 * np.sum(np.abs(x), axis=axis)


# --- registration (no GPU needed) ------------------------------------------------------

_REGISTRATION_CHECK = """
import sys
{first}
{second}
from dask.array.chunk_types import is_valid_chunk_type
from dask.array.dispatch import concatenate_lookup, numel_lookup, to_numpy_dispatch
from dask.array.backends import array_creation_dispatch
from dask.sizeof import sizeof
import gpupy, distributed
from distributed.protocol.serialize import dask_serialize
from distributed.protocol.cuda import cuda_serialize
assert is_valid_chunk_type(gpupy.ndarray)
assert concatenate_lookup.dispatch(gpupy.ndarray).__module__ == "gpupy._manipulation"
assert numel_lookup.dispatch(gpupy.ndarray).__module__ == "gpupy._dask"
assert to_numpy_dispatch.dispatch(gpupy.ndarray).__module__ == "gpupy._dask"
assert sizeof.dispatch(gpupy.ndarray).__module__ == "gpupy._dask"
from dask.base import normalize_token
assert normalize_token.dispatch(gpupy.ndarray).__module__ == "gpupy._dask"
assert dask_serialize.dispatch(gpupy.ndarray).__module__ == "gpupy._dask"
assert cuda_serialize.dispatch(gpupy.ndarray).__module__ == "gpupy._dask"
import dask
with dask.config.set({{"array.backend": "gpupy"}}):
    assert array_creation_dispatch.RandomState is gpupy.random.RandomState
# the post-import finder leaves sys.meta_path once both modules were seen
assert not any(type(f).__name__ == "_AfterImportFinder" for f in sys.meta_path)
print("ok")
"""


@pytest.mark.parametrize(
    "first, second",
    [
        ("import gpupy", "import dask.array, distributed"),
        ("import dask.array, distributed", "import gpupy"),
        ("import dask", "import gpupy; import dask.array"),
    ],
    ids=["gpupy_first", "dask_first", "interleaved"],
)
def test_registration_any_import_order(first, second):
    """gpupy registers with dask.array, dask.sizeof and distributed whatever the import
    order (gpupy/_dask.py's post-import hook); the ``gpupy`` backend is known."""
    pytest.importorskip("distributed")
    code = textwrap.dedent(_REGISTRATION_CHECK.format(first=first, second=second))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("ok")


def test_import_without_dask_imports_no_dask():
    out = subprocess.run(
        [sys.executable, "-c", "import sys, gpupy; print('dask' in sys.modules, 'distributed' in sys.modules)"],
        capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False", "False"]


# --- dask.array with gpupy chunks --------------------------------------------------------


@gpu
def test_from_array_compute_gives_gpupy(rng):
    dg, dn, x = _pair(rng, (13, 11), (5, 4))
    assert isinstance(dg._meta, gp.ndarray)
    got = dg.compute()
    assert isinstance(got, gp.ndarray)
    assert_equal_to_numpy(got, x)
    host = dg.map_blocks(gp.asnumpy).compute()
    assert type(host) is np.ndarray
    np.testing.assert_array_equal(host, x, strict=True)


@gpu
def test_tokenize_by_value(rng):
    """Dask's token of a gpupy array (``da.from_array``, ``client.scatter``) is of its
    values, dtype and shape (gpupy/_dask.py registers it; not pickling)."""
    from dask.base import tokenize

    x = rng.standard_normal((5, 4))
    g = gp.asarray(x)
    assert tokenize(g) == tokenize(gp.asarray(x))  # deterministic: same values, same token
    assert tokenize(g) != tokenize(g + 1.0)
    assert tokenize(g) != tokenize(g.astype(np.float32))
    assert tokenize(g) != tokenize(g.reshape(4, 5))
    assert tokenize(g) != tokenize(x)  # not the NumPy array's
    assert tokenize(g[1, 2]) == tokenize(gp.asarray(x[1, 2]))


@gpu
def test_elementwise_and_broadcasting(rng):
    dg, dn, _ = _pair(rng, (13, 11), (5, 4))
    row = rng.standard_normal(11)
    col = rng.standard_normal((13, 1))
    rg, rn = da.from_array(gp.asarray(row), chunks=4, asarray=False), da.from_array(row, chunks=4)
    cg, cn = da.from_array(gp.asarray(col), chunks=(5, 1), asarray=False), da.from_array(col, chunks=(5, 1))

    def f(a, r, c):
        return (a * 3.0 + 1.5) / 2.0 - a + da.sqrt(abs(a)) * r - c + np.multiply(a, a)

    got = f(dg, rg, cg).compute()
    assert isinstance(got, gp.ndarray)
    assert_equal_to_numpy(got, f(dn, rn, cn).compute())  # IEEE operations: bit-exact


@gpu
@pytest.mark.parametrize("axis", [None, 0, 1, 2, (0, 2)], ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "std"])
def test_reductions(rng, op, axis):
    dg, dn, x = _pair(rng, (13, 11, 9), (5, 4, 3))
    got = getattr(dg, op)(axis=axis).compute()
    want = getattr(dn, op)(axis=axis).compute()
    assert isinstance(got, gp.ndarray)
    got = gp.asnumpy(got)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    if op == "sum":
        bound = _sum_bound(x, axis)
    elif op == "mean":
        n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
        bound = _sum_bound(x, axis) / n + EPS64 * np.abs(want)  # + the division's rounding
    else:
        n = x.size if axis is None else int(np.prod([x.shape[a] for a in np.atleast_1d(axis)]))
        bound = 8 * n * EPS64 * np.abs(want)
    assert np.all(np.abs(got - want) <= bound), f"max err {np.max(np.abs(got - want))}"


@gpu
@pytest.mark.parametrize("axis", [None, 0, 1, 2], ids=str)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_arg_reductions(rng, op, axis):
    dg, dn, _ = _pair(rng, (13, 11, 9), (5, 4, 3))
    got = getattr(dg, op)(axis=axis).compute()
    assert isinstance(got, gp.ndarray)
    assert_equal_to_numpy(got, getattr(dn, op)(axis=axis).compute())


@gpu
def test_matmul_and_tensordot(rng):
    ag, an, a = _pair(rng, (17, 23), (6, 7))
    bg, bn, b = _pair(rng, (23, 9), (7, 4))
    got = (ag @ bg).compute()
    assert isinstance(got, gp.ndarray)
    assert_product_close(gp.asnumpy(got), a, b, err_msg="matmul")
    got = da.tensordot(ag, bg, axes=([1], [0])).compute()
    assert_product_close(gp.asnumpy(got), a, b, err_msg="tensordot")
    got = da.einsum("ij,jk->ik", ag, bg).compute()
    assert_product_close(gp.asnumpy(got), a, b, err_msg="einsum")


@gpu
def test_concatenate_slicing_map_blocks_rechunk(rng):
    dg, dn, x = _pair(rng, (13, 11), (5, 4))
    cases = {
        "concatenate0": lambda d: da.concatenate([d, d[::-1]], axis=0),
        "concatenate1": lambda d: da.concatenate([d, d[:, :3]], axis=1),
        "slices": lambda d: d[2:11:3, ::-2],
        "int_index": lambda d: d[[0, 12, 5], 1:],
        "map_blocks": lambda d: d.map_blocks(lambda b: b * 2.0 + 1.0, dtype=d.dtype),
        "rechunk": lambda d: d.rechunk((7, 11)),
        "transpose": lambda d: d.T.rechunk(3),
        "stack": lambda d: da.stack([d, d], axis=1),
    }
    for name, f in cases.items():
        got = f(dg)
        assert isinstance(got._meta, gp.ndarray), name
        got = got.compute()
        assert isinstance(got, gp.ndarray), name
        assert_equal_to_numpy(got, f(dn).compute())


@gpu
def test_numel_nannumel_percentile(rng):
    x = rng.standard_normal((13, 11))
    x[rng.random(x.shape) < 0.2] = np.nan
    dg, dn = da.from_array(gp.asarray(x), chunks=(5, 4), asarray=False), da.from_array(x, chunks=(5, 4))
    for axis in (None, 0, 1):
        got = da.nanmean(dg, axis=axis).compute()
        want = da.nanmean(dn, axis=axis).compute()
        n = x.size if axis is None else x.shape[axis]
        bound = 2 * n * EPS64 * np.nansum(np.abs(x), axis=axis)
        assert np.all(np.abs(gp.asnumpy(got) - want) <= bound + EPS64 * np.abs(want))
    # da.percentile: each chunk's percentiles at 0, q..., 100, then Dask's merge
    # (merge_percentiles: argsort of all chunks' values, cumsum of counts, interp) on
    # gpupy arrays. q without 0 and 100 and no tiny chunk: duplicate values (Dask adds
    # 0 and 100 itself; a 1-element chunk repeats its value) make the merge depend on
    # the tie order of its argsort, which NumPy's unstable sort and gpupy's need not
    # share (up to ~0.3 max|v| apart); distinct values make it depend on the values only.
    v = rng.standard_normal(101)
    chunks = ((25, 25, 25, 26),)
    vg, vn = da.from_array(gp.asarray(v), chunks=chunks, asarray=False), da.from_array(v, chunks=chunks)
    q = [5, 10, 50, 90, 95]
    got = da.percentile(vg, q).compute()
    assert isinstance(got, gp.ndarray)
    # Both sides compute NumPy's formulas (the lerp b - (b - a)(1 - t) or a + (b - a) t,
    # then interp's slope (x - x0) + y0); worst case per side, M = max|v|: 3 roundings
    # of size <= 2M in a chunk's percentile (6 u M), carried through interp with weight
    # <= 1, and 4 more of size <= 2M in interp (8 u M): 2 (6 + 8) u M between the sides.
    np.testing.assert_allclose(gp.asnumpy(got), da.percentile(vn, q).compute(), rtol=0,
                               atol=28 * EPS64 * np.max(np.abs(v)))


# --- the gpupy backend -------------------------------------------------------------------


@gpu
def test_backend_creation():
    with dask.config.set({"array.backend": "gpupy"}):
        cases = {
            "ones": (da.ones((7, 5), chunks=3, dtype=np.float32), np.ones((7, 5), np.float32)),
            "zeros": (da.zeros((4, 6), chunks=(3, 2), dtype=np.int32), np.zeros((4, 6), np.int32)),
            "full": (da.full((5,), 2.5, chunks=2), np.full((5,), 2.5)),
            "arange": (da.arange(3, 40, 4, chunks=4), np.arange(3, 40, 4)),
        }
        empty = da.empty((3, 4), chunks=2)
        assert isinstance(empty._meta, gp.ndarray)
        assert isinstance(empty.compute(), gp.ndarray)
    for name, (d, want) in cases.items():
        assert isinstance(d._meta, gp.ndarray), name
        assert_equal_to_numpy(d.compute(), want)


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_backend_random_matches_numpy_backend(dtype):
    """``da.random.default_rng(seed).random`` under the gpupy backend: gpupy chunks, and
    (PCG64 ``random`` is NumPy's bit for bit, and Dask spawns the same per-chunk seeds)
    the numbers of the NumPy backend."""
    with dask.config.set({"array.backend": "gpupy"}):
        dg = da.random.default_rng(1234).random((31, 20), chunks=(7, 6), dtype=dtype)
        legacy = da.random.random((9, 4), chunks=3)
    with dask.config.set({"array.backend": "numpy"}):
        dn = da.random.default_rng(1234).random((31, 20), chunks=(7, 6), dtype=dtype)
    assert isinstance(dg._meta, gp.ndarray)
    assert_equal_to_numpy(dg.compute(), dn.compute())
    got = legacy.compute()
    assert isinstance(got, gp.ndarray)
    host = gp.asnumpy(got)
    assert host.dtype == np.float64 and np.all((host >= 0) & (host < 1))
    assert len(np.unique(host)) == host.size  # 36 distinct draws: the chunks are not copies


@gpu
def test_to_backend(rng):
    x = rng.standard_normal((9, 8))
    d = da.from_array(x, chunks=4).to_backend("gpupy")
    assert isinstance(d._meta, gp.ndarray)
    assert_equal_to_numpy(d.compute(), x)
    back = d.to_backend("numpy").compute()
    assert type(back) is np.ndarray
    np.testing.assert_array_equal(back, x, strict=True)


# --- pickling, and what Dask reads from any array type ----------------------------------


def test_pickle_and_array_priority_registered():
    """No GPU needed: gpupy arrays pickle through copyreg (distributed pickles task
    graphs, which hold the arrays of ``da.from_array``), and carry the
    ``__array_priority__`` that Dask's tensordot compares."""
    import copyreg

    from gpupy import _dask

    assert copyreg.dispatch_table[gp.ndarray] is _dask._reduce_ndarray
    assert gp.ndarray.__array_priority__ > np.empty(0).__array_priority__  # NumPy: 0.0


@gpu
@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint32, np.float16, np.float32, np.complex128],
                         ids=lambda d: np.dtype(d).name)
def test_pickle_round_trip(rng, dtype):
    import copy
    import pickle

    x = (rng.standard_normal((7, 6)) * 10).astype(dtype)
    g = gp.asarray(x)
    cases = {
        "contiguous": (g, x),
        "negative_strides": (g[::-2, 1::2], x[::-2, 1::2]),
        "transposed": (g.T, x.T),
        "0d": (g[3, 2], x[3, 2]),
        "empty": (g[:0], x[:0]),
    }
    for name, (g, host) in cases.items():
        for protocol in (2, pickle.HIGHEST_PROTOCOL):
            back = pickle.loads(pickle.dumps(g, protocol=protocol))
            assert isinstance(back, gp.ndarray), name
            assert_equal_to_numpy(back, np.asarray(host))
        back = copy.deepcopy(g)
        assert isinstance(back, gp.ndarray), name
        assert_equal_to_numpy(back, np.asarray(host))


# --- distributed -------------------------------------------------------------------------


@gpu
@pytest.mark.parametrize("family", ["dask", "cuda"])
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_serialize_round_trip(rng, family, dtype):
    pytest.importorskip("distributed")
    from distributed.protocol import deserialize, serialize

    x = (rng.standard_normal((7, 6)) * 10).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal((7, 6))
    g = gp.asarray(x)
    cases = {
        "contiguous": (g, x),
        "view": (g[::-2, 1::2], x[::-2, 1::2]),
        "0d": (g[3, 2], x[3, 2]),
        "empty": (g[:0], x[:0]),
    }
    for name, (g, host) in cases.items():
        header, frames = serialize(g, serializers=(family,), on_error="raise")
        assert header["serializer"] == family, name
        back = deserialize(header, frames)
        assert_equal_to_numpy(back, np.asarray(host))


@gpu
def test_local_cluster_round_trip(rng):
    """A one-worker LocalCluster over TCP (processes=False, protocol tcp: every message
    is serialized): a scattered gpupy array, a task on it, a Dask array computed on the
    cluster, and sizeof counting device bytes."""
    distributed = pytest.importorskip("distributed")
    from dask.sizeof import sizeof

    x = rng.standard_normal((64, 33))
    g = gp.asarray(x)
    assert sizeof(g) == x.nbytes
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp://", dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        fut = client.scatter(g)
        got = client.submit(lambda a: a * 2.0 + 1.0, fut).result()
        assert isinstance(got, gp.ndarray)
        assert_equal_to_numpy(got, x * 2.0 + 1.0)
        dg = da.from_array(g, chunks=(16, 11), asarray=False)
        got = (dg - dg.mean(axis=0)).sum(axis=1).compute()
        want = (da.from_array(x, chunks=(16, 11)) - da.from_array(x, chunks=(16, 11)).mean(axis=0)).sum(axis=1).compute()
        assert isinstance(got, gp.ndarray)
        # per row: 33 terms, each with the column mean's error (64 terms)
        bound = 2 * (33 + 64) * EPS64 * (np.abs(x).sum(axis=1) + np.abs(x).mean(axis=0).sum())
        assert np.all(np.abs(gp.asnumpy(got) - want) <= bound)
