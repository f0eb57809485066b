"""Dask support: gpupy arrays as ``dask.array`` chunks, a ``gpupy`` array backend, and
``distributed`` serialization. Dask is optional: this module imports no Dask at its top
(only inside the functions that run once Dask is imported), so ``import gpupy`` works
without it.

What gets registered is what Dask registers for CuPy (``dask/array/backends.py``,
``dask/array/cupy_entry_point.py``, ``dask/sizeof.py``, ``distributed/protocol/cupy.py``):
the ``dask.array.dispatch`` lookups (``concatenate``, ``tensordot``, ``einsum``, ``take``,
``empty``, ``percentile``, ``numel``, ``nannumel``, ``to_numpy``), ``sizeof`` (device
bytes: it is what a distributed worker's memory accounting and spilling weigh),
``register_chunk_type`` and the ``gpupy`` backend of ``dask.config.set({"array.backend":
"gpupy"})``; ``normalize_token`` (Dask's tokens of gpupy arrays, by value);
distributed's ``dask`` family (a host copy: TCP, spilling to disk) and ``cuda`` family
(device frames through ``__cuda_array_interface__``: UCX). At import, whatever Dask
does: pickling through a host copy (``copyreg``: distributed pickles task graphs, which
can hold gpupy arrays) and ``ndarray.__array_priority__`` (which Dask's tensordot
compares), as CuPy's arrays have both.

When it is registered. CuPy needs no hook because Dask's own code names it
(``@concatenate_lookup.register_lazy("cupy")``); for a third-party library Dask has no
such line, and its entry points do not cover it (the ``dask.array.backends`` group is
read only once ``array.backend`` names a backend; ``dask.sizeof`` during ``import
dask``, before ``dask.array`` exists). So this module, imported by ``gpupy/__init__.py``,
registers at the one moment both sides exist, whatever the import order:

- a watched module (``dask.array``, ``distributed.protocol``) is imported already: it
  registers at once;
- it is not: a finder on ``sys.meta_path`` waits for its import, lets its body run, then
  registers (a post-import hook). The finder finds no module itself (``PathFinder``
  does), it only wraps that one module's loader ``exec_module``, and it leaves
  ``sys.meta_path`` once every watched module has been seen.

The ``dask.array.backends`` entry point (``pyproject.toml``) is ``backend_entrypoint``
below; it also works when gpupy was not imported yet (loading it imports gpupy, whose
import then registers everything).
"""

import copyreg
import importlib.machinery
import math
import pickle
import sys
from collections.abc import Iterator

import numpy

from gpupy import _creation, _indexing, _linalg, _manipulation, _math, _reduction, _sorting, random
from gpupy._gpupy import ndarray

__all__ = ["backend_entrypoint", "register_dask_array", "register_distributed"]


# --- dask.array's per-chunk functions for gpupy chunks ------------------------------


def _numel(x, **kwargs):
    """Dask's ``numel`` reduction chunk (``_numel(x, coerce_np_ndarray=False)`` of
    ``dask/array/backends.py``) with gpupy results: the element count of ``x`` over
    ``axis``, as a NumPy scalar for a full reduction without keepdims (as Dask returns
    for CuPy), else a gpupy array of the reduced shape."""
    shape = x.shape
    keepdims = kwargs.get("keepdims", False)
    axis = kwargs.get("axis")
    dtype = kwargs.get("dtype", numpy.float64)
    if axis is None:
        prod = numpy.prod(shape, dtype=dtype)
        if keepdims is False:
            return prod
        return _creation.full((1,) * len(shape), prod, dtype=dtype)
    if not isinstance(axis, (tuple, list)):
        axis = [axis]
    prod = math.prod(shape[dim] for dim in axis)
    if keepdims is True:
        new_shape = tuple(1 if dim in axis else shape[dim] for dim in range(len(shape)))
    else:
        new_shape = tuple(shape[dim] for dim in range(len(shape)) if dim not in axis)
    return _creation.full(new_shape, prod, dtype=dtype)


def _nannumel(x, **kwargs):
    """Dask's ``nannumel`` chunk: the count of non-NaN elements, on the GPU."""
    return _reduction.sum(_math.logical_not(_math.isnan(x)), **kwargs)


def _percentile(a, q, method="linear"):
    """Dask's per-chunk percentile (``dask.array.percentile._percentile`` for numbers):
    the chunk's percentiles and its length. ``q`` is as Dask passes it: a 1-d gpupy array
    (``da.percentile`` makes it ``like`` the chunks), which gpupy's percentile takes as
    it is (a list of its 0-d elements would not be: NumPy cannot read those)."""
    n = len(a)
    if not n:
        return None, n
    if isinstance(q, Iterator):
        q = list(q)
    if not numpy.issubdtype(a.dtype, numpy.number):
        method = "nearest"
    return _sorting.percentile(a, q, method=method), n


def _einsum(*operands, **kwargs):
    return _linalg.einsum(*operands, **kwargs)


def _to_numpy(data, **kwargs):
    return _creation.asnumpy(data, **kwargs)


def _sizeof(x):
    return int(x.nbytes)


# --- what Dask's code reads from any array type -------------------------------------


def _reduce_ndarray(x):
    """Pickling (``copyreg``): a host copy, made a device array again on unpickling.
    distributed pickles task graphs, and ``da.from_array(g)`` holds ``g`` in its graph
    (CuPy's arrays pickle the same way). Data that distributed moves between workers
    goes through the serializers below instead."""
    return _creation.asarray, (_creation.asnumpy(x),)


copyreg.pickle(ndarray, _reduce_ndarray)

# Dask's blockwise tensordot (``dask/array/routines.py``) picks the chunk library by
# ``max(..., key=lambda x: x.__array_priority__)``: NumPy's is 0.0, CuPy sets one too. NumPy's
# own binary operators do not look at it here: gpupy defines ``__array_ufunc__``.
if not hasattr(ndarray, "__array_priority__"):
    ndarray.__array_priority__ = 100.0


# --- distributed serialization --------------------------------------------------------


def _header(x):
    # The dtype pickled: exact for every dtype, ml_dtypes' bfloat16 included (its
    # ``dtype.str`` would be an anonymous '<V2').
    return {"shape": list(x.shape), "dtype": pickle.dumps(x.dtype)}


def _serialize_host(x):
    """The ``dask`` family (TCP, spilling to disk): one host frame of ``x``'s bytes in C
    order."""
    host = _creation.asnumpy(x)
    return _header(x), [memoryview(host.reshape(-1).view(numpy.uint8))]


def _deserialize_host(header, frames):
    (frame,) = frames
    host = numpy.frombuffer(frame, dtype=numpy.uint8).view(pickle.loads(header["dtype"]))
    if not host.flags.aligned:  # a frame at an odd offset of a received message
        host = host.copy()
    return _creation.asarray(host.reshape(header["shape"]))


def _serialize_device(x):
    """The ``cuda`` family (UCX): one device frame, a C-contiguous uint8 view of ``x``
    (a copy first when ``x`` is not C-contiguous), sent through its
    ``__cuda_array_interface__``."""
    flat = _creation.ascontiguousarray(x).reshape(-1)
    return _header(x), [flat.view(numpy.uint8)]


def _deserialize_device(header, frames):
    (frame,) = frames
    if isinstance(frame, (bytes, bytearray, memoryview)):
        return _deserialize_host(header, frames)
    # A gpupy array or another library's device buffer (RMM's, Numba's): a view of it.
    flat = _creation.asarray(frame).reshape(-1).view(numpy.uint8)
    return flat.view(pickle.loads(header["dtype"])).reshape(header["shape"])


class _DaskPCG64(random.PCG64):
    """gpupy's PCG64 (NumPy's numbers) with the ``_seed_seq`` attribute through which
    ``dask.array.random`` spawns one generator per chunk, as it does from
    ``numpy.random.PCG64``: so a chunk of ``da.random.default_rng(seed)`` under the gpupy
    backend holds the numbers of the same chunk under the NumPy backend wherever gpupy's
    draw matches NumPy's bit for bit (``random``: see ``gpupy/random/_generator.py``).
    Module level, so that pickled task graphs name it."""

    @property
    def _seed_seq(self):
        return self.seed_seq


def _to_gpupy(data, **kwargs):
    """``Array.to_backend("gpupy")`` per chunk: NumPy arrays copied, device arrays of
    other libraries (``__cuda_array_interface__``) viewed, gpupy arrays as they are."""
    return _creation.asarray(data, **kwargs)


# --- registration ---------------------------------------------------------------------

_done = set()
_backend_class = None


def register_dask_array():
    """Registers gpupy with ``dask.array`` (the dispatch lookups, the chunk type, the
    ``gpupy`` backend) and ``dask.sizeof``; once per process."""
    if "dask.array" in _done:
        return
    _done.add("dask.array")  # first: the backend's constructor below calls this again
    from dask.array.backends import array_creation_dispatch
    from dask.array.chunk_types import _HANDLED_CHUNK_TYPES, register_chunk_type
    from dask.array.dispatch import (
        concatenate_lookup,
        einsum_lookup,
        empty_lookup,
        nannumel_lookup,
        numel_lookup,
        percentile_lookup,
        take_lookup,
        tensordot_lookup,
        to_numpy_dispatch,
    )

    concatenate_lookup.register(ndarray, _manipulation.concatenate)
    take_lookup.register(ndarray, _indexing.take)
    tensordot_lookup.register(ndarray, _linalg.tensordot)
    einsum_lookup.register(ndarray, _einsum)
    empty_lookup.register(ndarray, _creation.empty)
    percentile_lookup.register(ndarray, _percentile)
    numel_lookup.register(ndarray, _numel)
    nannumel_lookup.register(ndarray, _nannumel)
    to_numpy_dispatch.register(ndarray, _to_numpy)
    if ndarray not in _HANDLED_CHUNK_TYPES:
        register_chunk_type(ndarray)
    _register_dask_core()
    # The backend directly too: the entry point is absent where gpupy is used from a
    # source tree rather than installed.
    array_creation_dispatch.register_backend("gpupy", backend_entrypoint())


def _register_dask_core():
    """``dask.sizeof`` and ``dask.tokenize``: both ``dask.array`` and ``distributed``
    (``client.scatter``) use them."""
    from dask.sizeof import sizeof
    from dask.base import normalize_token  # (dask.tokenize since 2024.2; dask.base re-exports it)

    sizeof.register(ndarray, _sizeof)

    def token(x):
        # By value, through one host copy, as Dask tokenizes NumPy arrays. Without it
        # Dask pickles the array (a host copy) and unpickles it (a device copy) two or
        # three times, to see that its pickle is deterministic.
        return "gpupy.ndarray", normalize_token(_creation.asnumpy(x))

    normalize_token.register(ndarray, token)


def register_distributed():
    """Registers gpupy's serializers with ``distributed``; once per process."""
    if "distributed" in _done:
        return
    _done.add("distributed")
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    from distributed.protocol.serialize import dask_deserialize, dask_serialize

    dask_serialize.register(ndarray, _serialize_host)
    dask_deserialize.register(ndarray, _deserialize_host)
    cuda_serialize.register(ndarray, _serialize_device)
    cuda_deserialize.register(ndarray, _deserialize_device)
    _register_dask_core()  # a worker weighs its data by sizeof; scatter tokenizes


def backend_entrypoint():
    """The ``gpupy`` backend of ``dask.array`` (what the ``dask.array.backends`` entry
    point loads and Dask calls): a new ``GpupyBackendEntrypoint``. The class is built on
    first use, since its base class is Dask's."""
    global _backend_class
    if _backend_class is None:
        _backend_class = _make_backend_class()
    return _backend_class()


def _make_backend_class():
    import dask.array as da
    from dask import config
    from dask.array.backends import ArrayBackendEntrypoint
    from dask.utils import Dispatch

    to_gpupy_dispatch = Dispatch("to_gpupy_dispatch")
    to_gpupy_dispatch.register(object, _to_gpupy)

    def with_gpupy_meta(name, *args, meta=None, **kwargs):
        # dask.array's own function with a gpupy meta: its chunks come from the meta's
        # library (np.ones_like(meta, ...) and the like, through __array_function__).
        meta = _creation.empty((0,)) if meta is None else meta
        with config.set({"array.backend": "numpy"}):
            return getattr(da, name)(*args, meta=meta, **kwargs)

    class GpupyBackendEntrypoint(ArrayBackendEntrypoint):
        """``dask.config.set({"array.backend": "gpupy"})``: ``da.ones``, ``da.zeros``,
        ``da.empty``, ``da.full``, ``da.arange`` and ``da.random`` make gpupy chunks
        (Dask's ``CupyBackendEntrypoint`` for gpupy)."""

        def __init__(self):
            register_dask_array()

        @classmethod
        def to_backend_dispatch(cls):
            return to_gpupy_dispatch

        @classmethod
        def to_backend(cls, data, **kwargs):
            if isinstance(data._meta, ndarray):
                return data  # gpupy chunks already
            return data.map_blocks(to_gpupy_dispatch, **kwargs)

        @property
        def RandomState(self):
            return random.RandomState

        @property
        def default_bit_generator(self):
            return _DaskPCG64

        @staticmethod
        def ones(*args, **kwargs):
            return with_gpupy_meta("ones", *args, **kwargs)

        @staticmethod
        def zeros(*args, **kwargs):
            return with_gpupy_meta("zeros", *args, **kwargs)

        @staticmethod
        def empty(*args, **kwargs):
            return with_gpupy_meta("empty", *args, **kwargs)

        @staticmethod
        def full(*args, **kwargs):
            return with_gpupy_meta("full", *args, **kwargs)

        @staticmethod
        def arange(*args, like=None, **kwargs):
            like = _creation.empty((0,)) if like is None else like
            with config.set({"array.backend": "numpy"}):
                return da.arange(*args, like=like, **kwargs)

    return GpupyBackendEntrypoint


# --- when to register: now, or right after the watched module's import ---------------

_WATCHED = {"dask.array": register_dask_array, "distributed.protocol": register_distributed}


class _AfterImportFinder:
    """Runs gpupy's registration right after a watched module's body has run."""

    def __init__(self, pending):
        self.pending = set(pending)

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.pending:
            return None
        # The ordinary search (PathFinder, never this finder again: no recursion).
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        exec_module = getattr(getattr(spec, "loader", None), "exec_module", None)
        if exec_module is None:
            return None  # an unusual loader: the import goes on untouched
        self.pending.discard(fullname)
        if not self.pending and self in sys.meta_path:
            sys.meta_path.remove(self)  # the import system stops at our spec: safe
        register = _WATCHED[fullname]

        def exec_then_register(module):
            exec_module(module)
            register()

        # Each module has its own loader object: this changes this one import only.
        spec.loader.exec_module = exec_then_register
        return spec


def _install():
    pending = []
    for name, register in _WATCHED.items():
        if name in sys.modules:
            register()
        else:
            pending.append(name)
    if pending:
        sys.meta_path.insert(0, _AfterImportFinder(pending))


_install()
