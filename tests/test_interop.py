"""Zero-copy interop (issue #15): the CUDA Array Interface (version 3) exported and
imported, DLPack (``__dlpack__``, ``__dlpack_device__``, ``gp.from_dlpack``), and
round trips with PyTorch, CuPy and Numba when they are installed with CUDA.

Most tests need no third-party library: hand-written interface dicts (``CAIObject``)
pointing into gpupy allocations, and ``DLPackOnly``, which exposes nothing of a gpupy
array but its DLPack methods, so that ``gp.asarray`` / ``gp.from_dlpack`` cannot take a
shortcut for their own arrays and must go through the protocol.

Zero copy is checked three ways: the imported array's ``data.ptr`` is the source's
address, writes through either side are visible through the other, and the source's
owner is kept alive (deleting every other reference and reallocating the same size
does not change the imported values). Values are compared bit for bit with NumPy.
"""

import ctypes
import gc
import warnings

import numpy as np
import pytest

import gpupy as gp
from helpers import (
    ALL_DTYPES,
    SAMPLE_DTYPES,
    VIEW_FUNCS_1D,
    VIEW_FUNCS_2D,
    VIEW_IDS_1D,
    VIEW_IDS_2D,
    assert_equal_to_numpy,
    dtype_id,
    random_array,
)
from test_streams import STILL_BUSY, PermutationChain

KDLCUDA = 2  # DLPack's device type of CUDA device memory
LEGACY_STREAM = 1  # the CUDA Array Interface's and DLPack's handle of the legacy null stream



def broadcast_rows(a):
    """Row 2 repeated 5 times: a zero first stride."""
    return np.broadcast_to(a[2], (5,) + a.shape[1:])


# ---------------------------------------------------------------------------------------
# Helpers

_PyCapsule_GetName = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))


def capsule_name(capsule):
    """The name of a PyCapsule (``"dltensor"``, ``"dltensor_versioned"``, ``"used_..."``)."""
    return _PyCapsule_GetName(capsule).decode()


class CAIObject:
    """An object whose only array protocol is a hand-written ``__cuda_array_interface__``
    dict; ``owner`` keeps the memory it points to alive for as long as this object."""

    def __init__(self, interface, owner=None):
        self.__cuda_array_interface__ = interface
        self.owner = owner


def interface(ptr, shape, typestr, strides=None, readonly=False, version=3, **extra):
    """A CUDA Array Interface dict. Version 3 has a ``stream`` key (None unless given);
    versions 1 and 2 have no ``stream`` and, when ``strides`` is None, no ``strides``."""
    d = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, readonly), "version": version}
    if strides is not None or version >= 2:
        d["strides"] = None if strides is None else tuple(strides)
    if version >= 3:
        d["stream"] = None
    d.update(extra)
    return d


def layout(view_h, base_h):
    """(byte offset of element 0 from the base's, strides or None when C-contiguous)
    of NumPy view ``view_h`` of ``base_h``."""
    offset = view_h.__array_interface__["data"][0] - base_h.__array_interface__["data"][0]
    return offset, (None if view_h.flags.c_contiguous else view_h.strides)


def interface_of_view(base_g, base_h, view, **kw):
    """The interface dict of ``view(base)`` written from NumPy's layout of the same view
    of the host copy, pointing into ``base_g``'s device memory."""
    view_h = view(base_h)
    offset, strides = layout(view_h, base_h)
    return interface(base_g.data.ptr + offset, view_h.shape, view_h.dtype.str, strides, **kw), view_h


class DLPackOnly:
    """Exposes only ``arr``'s DLPack methods; ``force`` overrides keyword arguments
    (e.g. ``copy=True``); ``calls`` records what the consumer passed."""

    def __init__(self, arr, **force):
        self.arr = arr
        self.force = force
        self.calls = []

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()

    def __dlpack__(self, **kwargs):
        self.calls.append(dict(kwargs))
        kwargs.update(self.force)
        return self.arr.__dlpack__(**kwargs)


class PrebuiltCapsule:
    """Hands the consumer a capsule made beforehand, whatever it asks for."""

    def __init__(self, capsule, device):
        self.capsule = capsule
        self.device = device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        return self.capsule


def check_two_way(imported, base_g, base_h, view, rng):
    """``imported`` aliases ``view(base_g)``: a write through ``imported`` shows in the
    source's base, a write through the source's view shows in ``imported``."""
    dt = base_h.dtype
    new = random_array(rng, imported.shape, dt)
    imported[...] = gp.asarray(new)
    view(base_h)[...] = new
    assert_equal_to_numpy(base_g, base_h)
    new2 = random_array(rng, imported.shape, dt)
    view(base_g)[...] = gp.asarray(new2)
    view(base_h)[...] = new2
    assert_equal_to_numpy(imported, view(base_h))


def reuse_memory(shape, dtype, value, count=4):
    """Allocates and fills ``count`` gpupy arrays like a freed source: if the source's
    memory had been released, one of them would take it and overwrite it."""
    out = [gp.full(shape, value, dtype=dtype) for _ in range(count)]
    gp.cuda.Device().synchronize()
    return out


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch has no CUDA device (torch.cuda.is_available() is False)")
    return torch


@pytest.fixture
def cupy():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    if not cupy.cuda.is_available():
        pytest.skip("CuPy finds no CUDA device (cupy.cuda.is_available() is False)")
    return cupy


@pytest.fixture
def numba_cuda(monkeypatch):
    # numba-cuda's typing registry still names numpy.row_stack, which NumPy 2.5 removed
    # (an alias of vstack): restore the alias for the test so that its kernels compile
    # at all, and remove it after (a later test in this process compares gpupy's
    # namespace with NumPy's).
    if not hasattr(np, "row_stack"):
        monkeypatch.setattr(np, "row_stack", np.vstack, raising=False)
    pytest.importorskip("numba", reason="Numba is not installed")
    try:
        from numba import cuda
    except ImportError as e:
        pytest.skip(f"numba.cuda (numba-cuda) is not importable: {e}")
    if not cuda.is_available():
        pytest.skip("numba.cuda finds no CUDA device (numba.cuda.is_available() is False)")
    return cuda


# Dtypes PyTorch has in every supported version (uint16/32/64 only recently, with few ops).
TORCH_DTYPES = [d for d in ALL_DTYPES if np.dtype(d).name not in ("uint16", "uint32", "uint64")]

# Views that mean the same on NumPy, PyTorch and gpupy arrays (PyTorch has no negative steps).
POSITIVE_VIEWS_2D = [
    ("contiguous", lambda a: a),
    ("transposed", lambda a: a.T),
    ("rows_step2", lambda a: a[::2]),
    ("cols_step3", lambda a: a[:, 1::3]),
    ("offset", lambda a: a[1:, 2:]),
]


# ---------------------------------------------------------------------------------------
# No GPU needed: the capsule helper


def test_capsule_name_helper_reads_numpy_capsules():
    """``capsule_name`` reads the names DLPack specifies, on NumPy's own capsules: the
    legacy ``dltensor``, the versioned ``dltensor_versioned``, and their ``used_``
    forms after a consumer (``np.from_dlpack``) took them."""
    x = random_array(np.random.default_rng(0), (5,), np.float64)
    for max_version, name in [(None, "dltensor"), ((1, 0), "dltensor_versioned")]:
        cap = x.__dlpack__(max_version=max_version)
        assert capsule_name(cap) == name
        y = np.from_dlpack(PrebuiltCapsule(cap, x.__dlpack_device__()))
        np.testing.assert_array_equal(y, x, strict=True)
        assert capsule_name(cap) == "used_" + name


# ---------------------------------------------------------------------------------------
# __cuda_array_interface__: export


@pytest.mark.gpu
class TestCudaArrayInterfaceExport:
    @pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
    def test_keys_and_values(self, rng, dtype):
        """Version 3: ``shape`` (tuple), ``typestr`` / ``descr`` as NumPy's (``'|b1'``,
        ``'<f2'``, ``'<c8'``, ...), ``data`` = (element 0's address as an int, False),
        ``strides`` None for a C-contiguous array, ``stream`` the legacy null stream's
        handle 1 (or None); one element further is ``itemsize`` bytes further."""
        x = random_array(rng, (5, 7), dtype)
        g = gp.asarray(x)
        cai = g.__cuda_array_interface__
        assert {"shape", "typestr", "descr", "data", "strides", "version", "stream"} <= set(cai)
        assert cai["version"] == 3
        assert cai["shape"] == (5, 7) and isinstance(cai["shape"], tuple)
        assert cai["typestr"] == np.dtype(dtype).str
        assert [tuple(d) for d in cai["descr"]] == np.dtype(dtype).descr
        ptr, readonly = cai["data"]
        assert type(ptr) is int and ptr == g.data.ptr and ptr != 0
        assert readonly is False
        assert cai["strides"] is None
        assert cai["stream"] in (LEGACY_STREAM, None)
        row = g[0]
        assert row[1:].__cuda_array_interface__["data"][0] - row.__cuda_array_interface__["data"][0] == g.itemsize
        assert g[1].__cuda_array_interface__["data"][0] - ptr == 7 * g.itemsize

    @pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
    @pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
    def test_views(self, rng, dtype, view):
        """Transposed, sliced and negative-step views: ``shape`` and byte ``strides``
        are NumPy's for the same view (None exactly when it is C-contiguous) and
        ``data[0]`` is the view's element 0 (NumPy's byte offset into the base)."""
        x = random_array(rng, (6, 10), dtype)
        g = gp.asarray(x)
        v, vh = view(g), view(x)
        cai = v.__cuda_array_interface__
        offset, strides = layout(vh, x)
        assert cai["shape"] == vh.shape
        assert cai["strides"] == strides
        assert cai["data"][0] == g.data.ptr + offset == v.data.ptr
        assert cai["typestr"] == np.dtype(dtype).str

    @pytest.mark.parametrize("view", VIEW_FUNCS_1D, ids=VIEW_IDS_1D)
    def test_1d_views(self, rng, view):
        """1-D offsets and steps (including ``[::-1]`` and ``[-2::-3]``): the address
        and byte strides are NumPy's."""
        x = random_array(rng, (37,), np.float64)
        g = gp.asarray(x)
        cai = view(g).__cuda_array_interface__
        offset, strides = layout(view(x), x)
        assert cai["data"][0] == g.data.ptr + offset
        assert cai["strides"] == strides
        assert cai["shape"] == view(x).shape

    def test_0d_and_zero_size(self, rng):
        """A 0-d array: shape (), strides None, its address. A zero-size array: the
        protocol's data pointer 0, its shape, strides None."""
        x = random_array(rng, (), np.complex64)
        g = gp.asarray(x)
        cai = g.__cuda_array_interface__
        assert cai["shape"] == () and cai["strides"] is None
        assert cai["data"] == (g.data.ptr, False) and cai["typestr"] == "<c8"
        for shape in [(0,), (0, 3), (4, 0, 2)]:
            cai = gp.empty(shape, dtype=np.float32).__cuda_array_interface__
            assert cai["shape"] == shape
            assert cai["data"] == (0, False)
            assert cai["strides"] is None

    def test_stream_key_is_the_current_stream(self, rng):
        """Exported inside ``with s:``, ``stream`` is ``s.ptr`` (the consumer must wait
        on the stream the data is being written on)."""
        g = gp.asarray(random_array(rng, (100,), np.float32))
        s = gp.cuda.Stream(non_blocking=True)
        with s:
            assert g.__cuda_array_interface__["stream"] == s.ptr
        assert g.__cuda_array_interface__["stream"] in (LEGACY_STREAM, None)


# ---------------------------------------------------------------------------------------
# __cuda_array_interface__: import (hand-written interfaces into gpupy memory)


@pytest.mark.gpu
class TestCudaArrayInterfaceImport:
    @pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
    def test_asarray_and_array_copy_false_do_not_copy(self, rng, dtype):
        """``gp.asarray(obj)`` and ``gp.array(obj, copy=False)`` of an interface view the
        memory: same address, NumPy's values, writes visible both ways."""
        x = random_array(rng, (9, 13), dtype)
        base = gp.asarray(x)
        d = interface(base.data.ptr, x.shape, x.dtype.str)
        for imported in (gp.asarray(CAIObject(d, base)), gp.array(CAIObject(d, base), copy=False)):
            assert isinstance(imported, gp.ndarray)
            assert imported.data.ptr == base.data.ptr
            assert_equal_to_numpy(imported, x)
            check_two_way(imported, base, x, lambda a: a, rng)

    @pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
    @pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
    def test_strides_honoured(self, rng, dtype, view):
        """Interfaces with transposed, stepped, offset and negative byte strides give
        arrays with those strides and NumPy's values for the same view, without a
        copy (writes visible both ways)."""
        x = random_array(rng, (6, 10), dtype)
        base = gp.asarray(x)
        d, vh = interface_of_view(base, x, view)
        imported = gp.asarray(CAIObject(d, base))
        assert imported.shape == vh.shape
        assert imported.strides == vh.strides
        assert imported.data.ptr == d["data"][0]
        assert_equal_to_numpy(imported, vh)
        check_two_way(imported, base, x, view, rng)

    def test_zero_stride(self, rng):
        """A zero byte stride (a broadcast row) is honoured: every row reads the same
        memory."""
        x = random_array(rng, (6, 10), np.float32)
        base = gp.asarray(x)
        d, vh = interface_of_view(base, x, broadcast_rows)
        assert d["strides"] == (0, 4)
        imported = gp.asarray(CAIObject(d, base))
        assert imported.strides == (0, 4)
        assert_equal_to_numpy(imported, vh)

    def test_0d_and_zero_size(self, rng):
        """A 0-d interface (shape ()) and zero-size ones (data pointer 0, as the
        protocol says for zero-size arrays) import with their shapes."""
        x = random_array(rng, (), np.float64)
        base = gp.asarray(x)
        imported = gp.asarray(CAIObject(interface(base.data.ptr, (), "<f8"), base))
        assert imported.data.ptr == base.data.ptr
        assert_equal_to_numpy(imported, x)
        for shape in [(0,), (3, 0)]:
            z = gp.asarray(CAIObject(interface(0, shape, "<i4")))
            assert_equal_to_numpy(z, np.empty(shape, np.int32))

    def test_owner_kept_alive(self, rng):
        """The imported array keeps the interface object (and so its owner) alive:
        after every other reference is dropped and the same size is reallocated and
        filled, the imported values are unchanged."""
        x = random_array(rng, (1 << 16,), np.float32)
        base = gp.asarray(x)
        imported = gp.asarray(CAIObject(interface(base.data.ptr, x.shape, "<f4"), base))
        ptr = base.data.ptr
        del base
        gc.collect()
        others = reuse_memory(x.shape, np.float32, -3.0)
        assert all(o.data.ptr != ptr for o in others), "the source's memory was reallocated"
        assert_equal_to_numpy(imported, x)

    def test_array_copies_by_default(self, rng):
        """``gp.array(obj)`` (copy=True) copies: a new address, NumPy's values, and
        writes to either side stay on that side."""
        x = random_array(rng, (8, 5), np.int16)
        base = gp.asarray(x)
        d = interface(base.data.ptr, x.shape, "<i2")
        copied = gp.array(CAIObject(d, base))
        assert copied.data.ptr != base.data.ptr
        assert_equal_to_numpy(copied, x)
        y = random_array(rng, x.shape, np.int16)
        base[...] = gp.asarray(y)
        assert_equal_to_numpy(copied, x)
        copied[...] = gp.asarray(random_array(rng, x.shape, np.int16))
        assert_equal_to_numpy(base, y)

    @pytest.mark.parametrize("version", [1, 2])
    def test_older_versions_accepted(self, rng, version):
        """Version 1 and 2 interfaces (no ``stream`` key; version 1 without
        ``strides``) import without a copy; version 2 strides are honoured."""
        x = random_array(rng, (7, 4), np.float64)
        base = gp.asarray(x)
        d = interface(base.data.ptr, x.shape, "<f8", version=version)
        assert "stream" not in d
        imported = gp.asarray(CAIObject(d, base))
        assert imported.data.ptr == base.data.ptr
        assert_equal_to_numpy(imported, x)
        d2 = interface(base.data.ptr, (4, 7), "<f8", strides=(8, 32), version=version)
        assert_equal_to_numpy(gp.asarray(CAIObject(d2, base)), x.T)

    def test_readonly_interface_is_copied(self, rng):
        """``data = (ptr, True)``: gpupy has no read-only arrays, so it imports a copy;
        the values are NumPy's and no gpupy write reaches the exporter's memory."""
        x = random_array(rng, (50,), np.float64)
        base = gp.asarray(x)
        ro = gp.asarray(CAIObject(interface(base.data.ptr, x.shape, "<f8", readonly=True), base))
        assert_equal_to_numpy(ro, x)
        assert ro.data.ptr != base.data.ptr
        ro[...] = 1.5
        ro += 1.0
        assert_equal_to_numpy(ro, np.full(x.shape, 2.5))
        assert_equal_to_numpy(base, x)

    def test_stream_key_makes_gpupy_wait(self, rng):
        """An interface whose ``stream`` is a busy stream's handle: gpupy, importing on
        the null stream, waits for that stream before using the data (the protocol's
        consumer duty). The chain is still running when the import happens; a read on
        the null stream sees its finished result."""
        chain = PermutationChain(rng)
        s = gp.cuda.Stream(non_blocking=True)
        with s:
            c = chain.queue()
        d = interface(c.data.ptr, c.shape, "<f4", stream=s.ptr)
        busy = not s.done
        imported = gp.asarray(CAIObject(d, c))
        np.testing.assert_array_equal(imported.get(), chain.expected(), strict=True)
        assert busy, STILL_BUSY

    def test_stream_key_from_an_export(self, rng):
        """A gpupy array exported inside ``with s:`` (stream = ``s.ptr``) and imported
        outside it: the import waits for ``s``."""
        chain = PermutationChain(rng)
        s = gp.cuda.Stream(non_blocking=True)
        with s:
            c = chain.queue()
            d = dict(c.__cuda_array_interface__)
        assert d["stream"] == s.ptr
        busy = not s.done
        imported = gp.asarray(CAIObject(d, c))
        np.testing.assert_array_equal(imported.get(), chain.expected(), strict=True)
        assert busy, STILL_BUSY


# ---------------------------------------------------------------------------------------
# Bad interfaces


@pytest.mark.gpu
class TestBadInterfaces:
    @pytest.fixture
    def base(self, rng):
        return gp.asarray(random_array(rng, (64,), np.float64))

    @pytest.mark.parametrize("typestr", ["<V8", "<M8[ns]", "|O8", "<U2"])
    def test_unsupported_typestr(self, base, typestr):
        """A typestr gpupy has no dtype for is a TypeError naming the typestr."""
        with pytest.raises(TypeError, match="typestr"):
            gp.asarray(CAIObject(interface(base.data.ptr, (4,), typestr), base))

    def test_mask_not_supported(self, base):
        """A ``mask`` that is not None (masked arrays) is refused, naming the mask."""
        mask = CAIObject(interface(base.data.ptr, (8,), "|b1"), base)
        d = interface(base.data.ptr, (8,), "<f8", mask=mask)
        with pytest.raises((ValueError, TypeError), match="mask"):
            gp.asarray(CAIObject(d, base))

    def test_stream_zero_is_disallowed(self, base):
        """The protocol disallows ``stream`` 0 (ambiguous between the legacy and the
        per-thread default stream)."""
        d = interface(base.data.ptr, (8,), "<f8", stream=0)
        with pytest.raises(ValueError, match="stream"):
            gp.asarray(CAIObject(d, base))

    def test_misaligned_pointer(self, base):
        """A float64 interface one byte into an allocation is misaligned for its dtype:
        ValueError naming the alignment."""
        d = interface(base.data.ptr + 1, (8,), "<f8")
        with pytest.raises(ValueError, match="aligned"):
            gp.asarray(CAIObject(d, base))

    @pytest.mark.parametrize("shape", [(-1,), (4, -2)], ids=str)
    def test_negative_shape(self, base, shape):
        """A negative extent is a ValueError."""
        with pytest.raises(ValueError, match="(?i)negative|shape|dimension"):
            gp.asarray(CAIObject(interface(base.data.ptr, shape, "<f8"), base))

    def test_absurd_shape(self, base):
        """A shape whose byte size overflows 64 bits is a ValueError."""
        d = interface(base.data.ptr, (2**40, 2**40), "<f8")
        with pytest.raises(ValueError, match="(?i)shape|size|overflow|too large|maximum"):
            gp.asarray(CAIObject(d, base))

    def test_strides_of_the_wrong_length(self, base):
        """``strides`` must have one entry per dimension: a ValueError naming them."""
        d = interface(base.data.ptr, (4, 2), "<f8", strides=(8,))
        with pytest.raises(ValueError, match="strides"):
            gp.asarray(CAIObject(d, base))

    def test_interface_on_another_device(self, rng):
        """An interface pointing into device 1's memory, imported while device 0 is
        current, is refused with a ValueError naming the device."""
        if gp.cuda.runtime.getDeviceCount() < 2:
            pytest.skip("needs 2 GPUs: gpupy.cuda.runtime.getDeviceCount() < 2")
        with gp.cuda.Device(1):
            other = gp.asarray(random_array(rng, (16,), np.float32))
        with gp.cuda.Device(0):
            with pytest.raises(ValueError, match="device"):
                gp.asarray(CAIObject(interface(other.data.ptr, (16,), "<f4"), other))


# ---------------------------------------------------------------------------------------
# DLPack, gpupy on both sides


@pytest.mark.gpu
class TestDLPack:
    def test_dlpack_device(self, rng):
        """``__dlpack_device__()`` is (kDLCUDA = 2, the device id) for arrays, views, 0-d
        and zero-size arrays."""
        g = gp.asarray(random_array(rng, (4, 6), np.float32))
        for a in (g, g.T[::2], g[1, 2], gp.empty((0, 3), dtype=np.int8)):
            dev = a.__dlpack_device__()
            assert tuple(int(v) for v in dev) == (KDLCUDA, gp.cuda.Device().id)

    def test_capsule_names(self, rng):
        """``max_version=None`` (a pre-1.0 consumer) gives the legacy ``dltensor``
        capsule; ``max_version=(1, 0)`` (or a later 1.x) the versioned
        ``dltensor_versioned`` one; ``copy=False`` and ``dl_device=(2, id)`` are
        accepted."""
        g = gp.asarray(random_array(rng, (3, 3), np.float64))
        dev = (KDLCUDA, gp.cuda.Device().id)
        assert capsule_name(g.__dlpack__()) == "dltensor"
        assert capsule_name(g.__dlpack__(stream=None, max_version=None)) == "dltensor"
        assert capsule_name(g.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
        assert capsule_name(g.__dlpack__(max_version=(1, 5))) == "dltensor_versioned"
        assert capsule_name(g.__dlpack__(max_version=(1, 0), copy=False, dl_device=dev)) == "dltensor_versioned"

    @pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
    def test_round_trip_without_copy(self, rng, dtype):
        """``gp.from_dlpack`` of a gpupy array's capsule (through ``DLPackOnly``) views the
        same memory for every dtype (bool as kDLBool, complex as kDLComplex): same
        address and strides, NumPy's values, writes visible both ways."""
        x = random_array(rng, (7, 9), dtype)
        g = gp.asarray(x)
        y = gp.from_dlpack(DLPackOnly(g))
        assert isinstance(y, gp.ndarray) and y.dtype == x.dtype
        assert y.data.ptr == g.data.ptr
        assert_equal_to_numpy(y, x)
        check_two_way(y, g, x, lambda a: a, rng)

    @pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
    @pytest.mark.parametrize("dtype", SAMPLE_DTYPES, ids=dtype_id)
    def test_views_round_trip(self, rng, dtype, view):
        """Strided, transposed and negative-step views go through DLPack (element
        strides) with their layout: NumPy's strides and values, no copy."""
        x = random_array(rng, (6, 10), dtype)
        g = gp.asarray(x)
        v, vh = view(g), view(x)
        y = gp.from_dlpack(DLPackOnly(v))
        assert y.shape == vh.shape and y.strides == vh.strides
        assert y.data.ptr == v.data.ptr
        assert_equal_to_numpy(y, vh)
        check_two_way(y, g, x, view, rng)

    def test_0d_and_zero_size(self, rng):
        """0-d and zero-size arrays round-trip with their shapes and values."""
        x = random_array(rng, (), np.int64)
        g = gp.asarray(x)
        y = gp.from_dlpack(DLPackOnly(g))
        assert y.data.ptr == g.data.ptr
        assert_equal_to_numpy(y, x)
        for shape in [(0,), (2, 0, 3)]:
            z = gp.from_dlpack(DLPackOnly(gp.empty(shape, dtype=np.complex128)))
            assert_equal_to_numpy(z, np.empty(shape, np.complex128))

    @pytest.mark.parametrize("max_version,name", [(None, "dltensor"), ((1, 0), "dltensor_versioned")])
    def test_consumes_legacy_and_versioned_capsules(self, rng, max_version, name):
        """``gp.from_dlpack`` takes either capsule kind from a producer and marks it
        consumed (renamed ``used_...``, as DLPack requires), without a copy."""
        x = random_array(rng, (11,), np.float32)
        g = gp.asarray(x)
        cap = g.__dlpack__(max_version=max_version)
        assert capsule_name(cap) == name
        y = gp.from_dlpack(PrebuiltCapsule(cap, g.__dlpack_device__()))
        assert capsule_name(cap) == "used_" + name
        assert y.data.ptr == g.data.ptr
        assert_equal_to_numpy(y, x)

    def test_consumer_passes_the_current_stream(self, rng):
        """As a consumer, gpupy passes its current stream to the producer's
        ``__dlpack__``: ``s.ptr`` inside ``with s:``, the legacy stream (1, or None
        which means the same) on the null stream."""
        g = gp.asarray(random_array(rng, (5,), np.float32))
        w = DLPackOnly(g)
        gp.from_dlpack(w)
        assert w.calls[-1].get("stream") in (LEGACY_STREAM, None)
        s = gp.cuda.Stream(non_blocking=True)
        with s:
            gp.from_dlpack(w)
        assert w.calls[-1]["stream"] == s.ptr

    def test_stream_handoff(self, rng):
        """Producer and consumer on different streams: the array is exported while the
        producer's current stream ``s`` is still running the chain and imported inside
        ``with s2:``. The producer must make ``s2`` wait for ``s``; a read on ``s2``
        sees the finished chain."""
        chain = PermutationChain(rng)
        s, s2 = gp.cuda.Stream(non_blocking=True), gp.cuda.Stream(non_blocking=True)
        with s:
            c = chain.queue()

        class Handoff:
            def __dlpack_device__(self):
                return c.__dlpack_device__()

            def __dlpack__(self, **kwargs):
                with s:
                    return c.__dlpack__(**kwargs)

        busy = not s.done
        with s2:
            y = gp.from_dlpack(Handoff())
            got = y.get()
        np.testing.assert_array_equal(got, chain.expected(), strict=True)
        assert busy, STILL_BUSY

    def test_copy_argument(self, rng):
        """``__dlpack__(copy=True)`` exports a copy (writes to the source do not reach
        the consumer); ``copy=False`` and the default share memory;
        ``gp.from_dlpack(obj, copy=True)`` copies, ``copy=False`` does not."""
        x = random_array(rng, (33,), np.float64)
        g = gp.asarray(x)
        copied = gp.from_dlpack(DLPackOnly(g, copy=True))
        shared = gp.from_dlpack(DLPackOnly(g, copy=False))
        consumer_copy = gp.from_dlpack(DLPackOnly(g), copy=True)
        consumer_view = gp.from_dlpack(DLPackOnly(g), copy=False)
        assert copied.data.ptr != g.data.ptr and consumer_copy.data.ptr != g.data.ptr
        assert shared.data.ptr == g.data.ptr and consumer_view.data.ptr == g.data.ptr
        y = random_array(rng, x.shape, np.float64)
        g[...] = gp.asarray(y)
        assert_equal_to_numpy(copied, x)
        assert_equal_to_numpy(consumer_copy, x)
        assert_equal_to_numpy(shared, y)
        assert_equal_to_numpy(consumer_view, y)

    def test_owner_kept_alive(self, rng):
        """The imported array keeps the exported memory alive after the source and the
        producer object are gone and the same size is reallocated."""
        x = random_array(rng, (1 << 16,), np.complex64)
        g = gp.asarray(x)
        ptr = g.data.ptr
        y = gp.from_dlpack(DLPackOnly(g))
        del g
        gc.collect()
        others = reuse_memory(x.shape, np.complex64, 2.0 - 1.0j)
        assert all(o.data.ptr != ptr for o in others), "the source's memory was reallocated"
        assert_equal_to_numpy(y, x)

    def test_host_arrays(self, rng):
        """NumPy arrays are host memory: ``gp.from_dlpack(numpy_array)`` (and
        ``copy=False``) cannot view them and raises; ``copy=True`` uploads a copy with
        NumPy's values. ``np.from_dlpack(gpupy_array)`` raises BufferError (NumPy
        cannot read device memory), naming the device."""
        x = random_array(rng, (4, 5), np.float32)
        with pytest.raises((BufferError, ValueError), match="(?i)cpu|host|device|copy"):
            gp.from_dlpack(x)
        with pytest.raises((BufferError, ValueError), match="(?i)cpu|host|device|copy"):
            gp.from_dlpack(x, copy=False)
        y = gp.from_dlpack(x, copy=True)
        assert isinstance(y, gp.ndarray)
        assert_equal_to_numpy(y, x)
        with pytest.raises(BufferError, match="(?i)device|cuda|cpu"):
            np.from_dlpack(gp.asarray(x))
        # Asked for the host (dl_device=(kDLCPU, 0)), gpupy exports a host copy.
        g = gp.asarray(x)
        h = np.from_dlpack(g, device="cpu")
        np.testing.assert_array_equal(h, x, strict=True)
        h2 = np.from_dlpack(g, device="cpu", copy=True)
        np.testing.assert_array_equal(h2, x, strict=True)
        with pytest.raises(BufferError, match="only by a copy"):
            g.__dlpack__(dl_device=(1, 0), copy=False)
        with pytest.raises(BufferError, match="not \\(5, 0\\)"):
            g.__dlpack__(dl_device=(5, 0))


# ---------------------------------------------------------------------------------------
# PyTorch


def _torch_dtype(torch, dtype):
    return getattr(torch, np.dtype(dtype).name)


@pytest.mark.gpu
class TestTorch:
    @pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=dtype_id)
    def test_cuda_tensor_imports_without_copy(self, rng, torch, dtype):
        """``gp.asarray(tensor)`` and ``gp.array(tensor, copy=False)`` of a CUDA tensor
        (through its ``__cuda_array_interface__``) view its memory: same address,
        NumPy's values, a gpupy write visible in the tensor and a torch write visible
        in the gpupy array."""
        x = random_array(rng, (6, 7), dtype)
        t = torch.from_numpy(x).cuda()
        torch.cuda.synchronize()
        current = x
        for g in (gp.asarray(t), gp.array(t, copy=False)):
            assert g.data.ptr == t.data_ptr()
            assert_equal_to_numpy(g, current)
            new = random_array(rng, x.shape, dtype)
            g[...] = gp.asarray(new)
            gp.cuda.Device().synchronize()
            np.testing.assert_array_equal(t.cpu().numpy(), new, strict=True)
            current = random_array(rng, x.shape, dtype)
            t.copy_(torch.from_numpy(current).cuda())
            torch.cuda.synchronize()
            assert_equal_to_numpy(g, current)

    @pytest.mark.parametrize("view", [f for _, f in POSITIVE_VIEWS_2D], ids=[n for n, _ in POSITIVE_VIEWS_2D])
    def test_strided_tensors(self, rng, torch, view):
        """Transposed and sliced tensors (``t.T``, ``t[::2]``, ...) import with their
        strides and no copy."""
        x = random_array(rng, (8, 9), np.float32)
        t = torch.from_numpy(x).cuda()
        tv, vh = view(t), view(x)
        torch.cuda.synchronize()
        g = gp.asarray(tv)
        assert g.data.ptr == tv.data_ptr()
        assert g.strides == vh.strides
        assert_equal_to_numpy(g, vh)

    def test_expanded_tensor_has_zero_stride(self, rng, torch):
        """``t.expand`` (stride 0) imports as a zero-stride gpupy array with NumPy's
        broadcast values."""
        x = random_array(rng, (5, 1), np.float64)
        t = torch.from_numpy(x).cuda().expand(5, 4)
        torch.cuda.synchronize()
        g = gp.asarray(t)
        assert g.strides == (8, 0)
        assert_equal_to_numpy(g, np.broadcast_to(x, (5, 4)))

    def test_zero_size_and_0d(self, rng, torch):
        """Zero-size CUDA tensors import with their shapes; a 0-d tensor with its value."""
        x = random_array(rng, (), np.float32)
        t0 = torch.from_numpy(x).cuda()
        for shape in [(0,), (3, 0)]:
            assert_equal_to_numpy(gp.asarray(torch.empty(shape, device="cuda")), np.empty(shape, np.float32))
        torch.cuda.synchronize()
        assert_equal_to_numpy(gp.asarray(t0), x)

    def test_owner_kept_alive(self, rng, torch):
        """The gpupy array keeps the tensor's storage alive: after ``del t`` and new
        tensors of the same size filled with -3 (PyTorch's caching allocator would hand
        them the freed block), the gpupy values are unchanged."""
        x = random_array(rng, (1 << 16,), np.float32)
        t = torch.from_numpy(x).cuda()
        torch.cuda.synchronize()
        ptr = t.data_ptr()
        g = gp.asarray(t)
        del t
        gc.collect()
        others = [torch.full(x.shape, -3.0, device="cuda") for _ in range(4)]
        torch.cuda.synchronize()
        assert all(o.data_ptr() != ptr for o in others), "the tensor's memory was reallocated"
        assert_equal_to_numpy(g, x)

    def test_array_copies(self, rng, torch):
        """``gp.array(tensor)`` copies: writes to the tensor do not reach it."""
        x = random_array(rng, (10,), np.int32)
        t = torch.from_numpy(x).cuda()
        torch.cuda.synchronize()
        g = gp.array(t)
        assert g.data.ptr != t.data_ptr()
        t.add_(1)
        torch.cuda.synchronize()
        assert_equal_to_numpy(g, x)

    def test_torch_reads_gpupy_interface(self, rng, torch):
        """``torch.as_tensor(gpupy_array)`` consumes gpupy's ``__cuda_array_interface__``
        without a copy."""
        x = random_array(rng, (4, 6), np.float64)
        g = gp.asarray(x)
        gp.cuda.Device().synchronize()
        for v, vh in [(g, x), (g.T, x.T), (g[:, 1::2], x[:, 1::2])]:
            t = torch.as_tensor(v, device="cuda")
            assert t.data_ptr() == v.data.ptr
            np.testing.assert_array_equal(t.cpu().numpy(), vh, strict=True)

    @pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=dtype_id)
    def test_dlpack_round_trip(self, rng, torch, dtype):
        """gpupy -> ``torch.from_dlpack`` -> ``gp.from_dlpack``: one memory throughout,
        NumPy's values in torch, writes by torch visible in gpupy."""
        x = random_array(rng, (5, 8), dtype)
        g = gp.asarray(x)
        t = torch.from_dlpack(g)
        assert t.dtype == _torch_dtype(torch, dtype)
        assert t.data_ptr() == g.data.ptr
        np.testing.assert_array_equal(t.cpu().numpy(), x, strict=True)
        back = gp.from_dlpack(t)
        assert back.data.ptr == g.data.ptr
        new = random_array(rng, x.shape, dtype)
        t.copy_(torch.from_numpy(new).cuda())
        torch.cuda.synchronize()
        assert_equal_to_numpy(back, new)
        assert_equal_to_numpy(g, new)

    @pytest.mark.parametrize("view", [f for _, f in POSITIVE_VIEWS_2D], ids=[n for n, _ in POSITIVE_VIEWS_2D])
    def test_dlpack_views(self, rng, torch, view):
        """Strided gpupy views reach torch with their strides (in elements) and come
        back unchanged; 0-d and zero-size arrays too."""
        x = random_array(rng, (6, 10), np.complex64)
        g = gp.asarray(x)
        v, vh = view(g), view(x)
        t = torch.from_dlpack(v)
        assert t.data_ptr() == v.data.ptr
        assert tuple(t.stride()) == tuple(s // x.itemsize for s in vh.strides)
        np.testing.assert_array_equal(t.cpu().numpy(), vh, strict=True)
        back = gp.from_dlpack(t)
        assert back.strides == vh.strides
        assert_equal_to_numpy(back, vh)
        for a, ah in [(g[2, 3], x[2, 3]), (g[:0], x[:0])]:
            ta = torch.from_dlpack(a)
            assert tuple(ta.shape) == ah.shape
            assert_equal_to_numpy(gp.from_dlpack(ta), ah)


# ---------------------------------------------------------------------------------------
# CuPy


@pytest.mark.gpu
class TestCuPy:
    @pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
    def test_cupy_arrays_import_without_copy(self, rng, cupy, view):
        """CuPy arrays and views (negative steps included, ``c[::-1]``) import through
        ``__cuda_array_interface__`` with their strides, without a copy: writes by
        gpupy are visible in CuPy."""
        x = random_array(rng, (6, 10), np.float64)
        c = cupy.asarray(x)
        cv, vh = view(c), view(x)
        cupy.cuda.Device().synchronize()
        g = gp.asarray(cv)
        assert g.data.ptr == cv.data.ptr
        assert g.strides == vh.strides
        assert_equal_to_numpy(g, vh)
        new = random_array(rng, vh.shape, np.float64)
        g[...] = gp.asarray(new)
        gp.cuda.Device().synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(cv), new, strict=True)

    def test_negative_stride_1d(self, rng, cupy):
        """``c[::-1]``: the interface's data pointer is the last element and the byte
        stride -8; gpupy honours both."""
        x = random_array(rng, (17,), np.int64)
        c = cupy.asarray(x)[::-1]
        cupy.cuda.Device().synchronize()
        g = gp.asarray(c)
        assert g.strides == (-8,)
        assert_equal_to_numpy(g, x[::-1])

    def test_owner_kept_alive(self, rng, cupy):
        """The gpupy array keeps the CuPy array's memory alive after ``del`` and
        reallocation of the same size in CuPy's pool."""
        x = random_array(rng, (1 << 16,), np.float32)
        c = cupy.asarray(x)
        cupy.cuda.Device().synchronize()
        ptr = c.data.ptr
        g = gp.asarray(c)
        del c
        gc.collect()
        others = [cupy.full(x.shape, -3.0, dtype=cupy.float32) for _ in range(4)]
        cupy.cuda.Device().synchronize()
        assert all(o.data.ptr != ptr for o in others), "the CuPy array's memory was reallocated"
        assert_equal_to_numpy(g, x)

    def test_cupy_reads_gpupy_interface(self, rng, cupy):
        """``cupy.asarray(gpupy_array)`` consumes gpupy's interface without a copy,
        negative strides included; a CuPy write is visible in gpupy."""
        x = random_array(rng, (5, 6), np.float32)
        g = gp.asarray(x)
        gp.cuda.Device().synchronize()
        for v, vh in [(g, x), (g.T, x.T), (g[::-1, ::2], x[::-1, ::2])]:
            c = cupy.asarray(v)
            assert c.data.ptr == v.data.ptr
            assert c.strides == vh.strides
            np.testing.assert_array_equal(cupy.asnumpy(c), vh, strict=True)
        c = cupy.asarray(g)
        c *= 2
        cupy.cuda.Device().synchronize()
        assert_equal_to_numpy(g, x * np.float32(2))

    @pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
    def test_dlpack_round_trip(self, rng, cupy, dtype):
        """gpupy -> ``cupy.from_dlpack`` -> ``gp.from_dlpack`` for every dtype (unsigned
        included): one memory, NumPy's values."""
        x = random_array(rng, (4, 9), dtype)
        g = gp.asarray(x)
        c = cupy.from_dlpack(g)
        assert c.dtype == x.dtype and c.data.ptr == g.data.ptr
        np.testing.assert_array_equal(cupy.asnumpy(c), x, strict=True)
        back = gp.from_dlpack(c)
        assert back.data.ptr == g.data.ptr
        assert_equal_to_numpy(back, x)

    @pytest.mark.parametrize("view", VIEW_FUNCS_2D, ids=VIEW_IDS_2D)
    def test_dlpack_views(self, rng, cupy, view):
        """Views, negative steps included, go to CuPy and back by DLPack with their
        strides; 0-d and zero-size arrays too."""
        x = random_array(rng, (6, 10), np.int16)
        g = gp.asarray(x)
        v, vh = view(g), view(x)
        c = cupy.from_dlpack(v)
        assert c.data.ptr == v.data.ptr and c.strides == vh.strides
        np.testing.assert_array_equal(cupy.asnumpy(c), vh, strict=True)
        back = gp.from_dlpack(c)
        assert back.strides == vh.strides
        assert_equal_to_numpy(back, vh)
        for a, ah in [(g[1, 1], x[1, 1]), (g[:, :0], x[:, :0])]:
            assert_equal_to_numpy(gp.from_dlpack(cupy.from_dlpack(a)), ah)


# ---------------------------------------------------------------------------------------
# Numba


@pytest.mark.gpu
class TestNumba:
    def test_kernel_modifies_gpupy_array_in_place(self, rng, numba_cuda):
        """A ``@numba.cuda.jit`` kernel writes into gpupy arrays passed directly, as
        ``numba.cuda.as_cuda_array(g)`` (same address), and as a strided view
        (``g[::2]``: only every other element changes); ``gp.asnumpy`` shows the
        changes. ``2 * a + i`` is exact (2a is exact, one rounding as in NumPy)."""
        cuda = numba_cuda

        @cuda.jit
        def double_plus_index(a):
            i = cuda.grid(1)
            if i < a.shape[0]:
                a[i] = 2.0 * a[i] + i

        n = 1000
        x = random_array(rng, (n,), np.float64)
        idx = np.arange(n, dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numba's launch-size and stream notes
            g = gp.asarray(x)
            gp.cuda.Device().synchronize()
            double_plus_index[(n + 127) // 128, 128](g)
            cuda.synchronize()
            want = 2.0 * x + idx
            np.testing.assert_array_equal(gp.asnumpy(g), want, strict=True)

            d = cuda.as_cuda_array(g)
            assert d.device_ctypes_pointer.value == g.data.ptr
            double_plus_index[(n + 127) // 128, 128](d)
            cuda.synchronize()
            want = 2.0 * want + idx
            np.testing.assert_array_equal(gp.asnumpy(g), want, strict=True)

            double_plus_index[(n + 127) // 128, 128](g[::2])
            cuda.synchronize()
            want[::2] = 2.0 * want[::2] + np.arange(want[::2].size, dtype=np.float64)
            np.testing.assert_array_equal(gp.asnumpy(g), want, strict=True)

    def test_numba_device_array_imports_without_copy(self, rng, numba_cuda):
        """``gp.asarray(numba_device_array)`` views its memory; a gpupy write is visible
        in ``copy_to_host``."""
        cuda = numba_cuda
        x = random_array(rng, (3, 50), np.int32)
        d = cuda.to_device(x)
        cuda.synchronize()
        g = gp.asarray(d)
        assert g.data.ptr == d.device_ctypes_pointer.value
        assert_equal_to_numpy(g, x)
        new = random_array(rng, x.shape, np.int32)
        g[...] = gp.asarray(new)
        gp.cuda.Device().synchronize()
        np.testing.assert_array_equal(d.copy_to_host(), new, strict=True)
