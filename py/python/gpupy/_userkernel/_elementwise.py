"""``ElementwiseKernel``: a user's statement applied to every element of broadcast
arguments (CuPy's ``cupy.ElementwiseKernel``), in CUDA C or in Rust.

A call binds the type placeholders from its arguments, broadcasts the non-raw arrays,
allocates the outputs it was not given, and merges dimensions the arrays step through
alike; the resulting signature (dtypes, raw dimensions, contiguous or N strided
dimensions) picks a kernel generated, compiled and cached once per signature.

``plan`` runs the same steps on array layouts alone (``ArraySpec``, or NumPy arrays
standing for gpupy arrays of their layout) and gives the signature and the generated
source without touching a GPU; ``prebuild`` also compiles it into the kernel cache. A
machine with a Rust toolchain and no GPU fills a cache folder that way for one with a
GPU and no toolchain (``scripts/prebuild_rust_kernels.py``): calls and plans share every
step up to the source, so the two cannot disagree on which kernel a call needs.
"""

import collections
import math

import numpy

from gpupy import _gpupy, cuda
from gpupy._gpupy import ndarray
from gpupy._userkernel import _args, _cuda_source, _layout, _params, _raw, _rust_source

_MAX_GRID = 2**31 - 1
_SCALAR_TYPES = (bool, int, float, complex)
# Call layouts remembered per kernel (a program cycling through more just re-plans).
_MAX_CALL_KEYS = 1024


class ArraySpec:
    """An array's layout without its data: shape, dtype and byte strides (C order's
    when not given, as ``gpupy.empty`` makes them). ``plan``/``prebuild`` take it in
    place of a gpupy array of that layout."""

    __slots__ = ("shape", "dtype", "strides", "ndim", "itemsize", "size")

    def __init__(self, shape, dtype, strides=None):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = numpy.dtype(dtype)
        self.ndim = len(self.shape)
        self.itemsize = self.dtype.itemsize
        self.size = math.prod(self.shape)
        if strides is None:
            strides, step = [], self.itemsize
            for n in reversed(self.shape):
                strides.append(step)
                step *= max(n, 1)
            strides.reverse()
        if len(strides) != self.ndim:
            raise ValueError(f"{len(strides)} strides for {self.ndim} dimensions")
        self.strides = tuple(int(s) for s in strides)

    @classmethod
    def like(cls, a):
        """The layout of `a`: a NumPy or gpupy array (or anything with shape, dtype and
        strides). A NumPy view has the strides the same view of a gpupy array has."""
        return cls(a.shape, a.dtype, a.strides)

    def __repr__(self):
        return f"ArraySpec({self.shape}, {self.dtype.name}, strides={self.strides})"


# What counts as an array argument: a gpupy array in a call, also a layout in a plan.
ARRAY_TYPES = (ndarray, ArraySpec)

#: The kernel a call runs: ``key`` (its signature, the kernel object's cache key) and
#: ``source`` (the generated module).
Plan = collections.namedtuple("Plan", ["key", "source"])


def plan_arguments(args):
    """A plan's arguments: NumPy arrays stand for gpupy arrays of their layout."""
    return tuple(ArraySpec.like(a) if isinstance(a, numpy.ndarray) else a for a in args)


def binding_arguments(args):
    """`args` as ``_params.bind`` reads them: a layout binds its placeholder as an
    array (or a NumPy scalar) of its dtype does."""
    return tuple(a.dtype.type(0) if isinstance(a, ArraySpec) else a for a in args)


def as_argument(v):
    """A call's argument: gpupy arrays and scalars as they are, objects exporting
    ``__cuda_array_interface__`` as gpupy arrays (no copy); NumPy arrays are refused, as
    CuPy does, since moving them would hide a host-to-device copy in the call."""
    if isinstance(v, ndarray) or v is None:
        return v
    if isinstance(v, numpy.ndarray):
        raise TypeError("Unsupported type <class 'numpy.ndarray'>: move it with gpupy.asarray")
    if _params.scalar_dtype(v) is not None:
        return v
    if hasattr(v, "__cuda_array_interface__"):
        return _gpupy._from_cuda_array_interface(v)
    raise TypeError(f"Unsupported type {type(v)}")


def call_key(args, *extra):
    """What decides a call's kernel and launch besides the data: the device, `extra`
    (the call's options), each argument's type, and for gpupy arrays their dtype, shape
    and strides. None when an argument needs the full path every time (another
    library's array), so that call is planned afresh."""
    key = [_gpupy.get_device_id(), len(args), *extra]
    for a in args:
        t = type(a)
        if t is ndarray:
            key.append((a.dtype, a.shape, a.strides))
        elif t in _SCALAR_TYPES or isinstance(a, numpy.generic):
            key.append(t)
        elif a is None:
            key.append(None)
        else:
            return None
    return tuple(key)


def generate(language, **kw):
    if language == "cuda":
        return _cuda_source.elementwise(**kw)
    return _rust_source.elementwise(**kw)


def compile_module(language, source, options):
    """A RawModule of the generated `source` (compiled, not yet loaded on a device)."""
    return _raw.RawModule(code=source, options=options, language=language)


class ElementwiseKernel:
    """A user-defined elementwise kernel::

        axpb = gp.ElementwiseKernel('float32 x, float32 a, float32 b', 'float32 y',
                                    'y = a * x + b;', 'axpb')
        y = axpb(x, 2.0, 1.0)

    ``language='rust'`` takes the operation as Rust statements over the same names.
    """

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, loop_prep="",
                 after_loop="", *, options=(), language="cuda"):
        if language not in ("cuda", "rust"):
            raise ValueError(f"language must be 'cuda' or 'rust', not {language!r}")
        self.in_params = _params.parse(in_params, True)
        self.out_params = _params.parse(out_params, False)
        _params.check_names(self.in_params, self.out_params)
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.operation = operation
        self.name = name
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.no_return = no_return
        self.return_tuple = return_tuple
        self.loop_prep = loop_prep
        self.after_loop = after_loop
        self.options = tuple(options)
        self.language = language
        self._kernels = {}
        # Call key -> (launch or None, outputs to make); see `_call_key`.
        self._calls = {}

    def _source(self, slots, types, nd):
        return generate(
            self.language, name=self.name, slots=slots, operation=self.operation,
            preamble=self.preamble, loop_prep=self.loop_prep, after_loop=self.after_loop,
            types=types, nd=nd,
        )

    def _kernel(self, key, slots, types, nd):
        dev = cuda.Device().id
        k = self._kernels.get((dev, key))
        if k is None:
            source = self._source(slots, types, nd)
            k = compile_module(self.language, source, self.options).get_function(self.name)
            self._kernels[(dev, key)] = k
        return k

    def _full_arguments(self, args):
        """`args` with a None for each output not given."""
        if len(args) == self.nin:
            return args + (None,) * self.nout
        if len(args) != self.nargs:
            raise TypeError(f"Wrong number of arguments for {self.name!r}")
        return args

    def _loop(self, args, types, size, make_output):
        """(dtypes, loop shape, arguments with each missing output made by
        `make_output(shape, dtype)`), checking the outputs given."""
        dtypes = [_params.dtype_of(p, types) for p in self.params]
        # The loop's shape: the inputs' broadcast (outputs must have it exactly), or
        # the outputs' when no input is an array.
        arrays = [a for p, a in zip(self.in_params, args)
                  if isinstance(a, ARRAY_TYPES) and not p.raw]
        arrays = arrays or [a for p, a in zip(self.out_params, args[self.nin:])
                            if isinstance(a, ARRAY_TYPES) and not p.raw]
        if arrays:
            if size is not None:
                raise ValueError("Specified 'size' is not allowed with non-raw array arguments")
            shape = _layout.broadcast_shape([a.shape for a in arrays])
        elif size is None:
            raise ValueError("Loop size is undecided")
        else:
            shape = (int(size),)

        outs = list(args[self.nin:])
        for k, (p, o) in enumerate(zip(self.out_params, outs)):
            d = dtypes[self.nin + k]
            if o is None:
                if p.raw:
                    raise ValueError(f"Output array of raw parameter {p.name} must be given")
                outs[k] = make_output(shape, d)
                continue
            if not isinstance(o, ARRAY_TYPES):
                raise TypeError(f"Output argument {p.name} must be a gpupy array")
            if o.dtype != d:
                raise TypeError(f"Type is mismatched. {p.name} {o.dtype.type} {d.type}")
            if not p.raw and o.shape != tuple(shape):
                raise ValueError(f"Out shape is mismatched: {o.shape} for {tuple(shape)}")
        return dtypes, shape, args[: self.nin] + tuple(outs)

    def __call__(self, *args, size=None, block_size=None, stream=None):
        key = call_key(args, size, block_size)
        cached = self._calls.get(key) if key is not None else None
        if cached is not None:
            # The same layout as an earlier call: one Rust call makes the outputs,
            # converts the scalars and launches (`_CachedCall`, py/src/user_kernel.rs).
            every = cached(args, None if stream is None else _args.stream_ptr(stream))
            return self._result(every[self.nin:])
        args = tuple(as_argument(a) for a in self._full_arguments(args))
        types = {}
        _params.bind(self.params, args, types)
        made = [self.nin + k for k, a in enumerate(args[self.nin:]) if a is None]
        # Outputs to make stand as their layouts while the call is planned; the
        # `_CachedCall` makes them, now and on every later call with this key.
        dtypes, shape, planned = self._loop(args, types, size, ArraySpec)
        n = math.prod(shape)
        steps, tail = self._launch(planned, dtypes, types, shape, n, block_size) if n else ([], [])
        outs = [(i, tuple(shape), dtypes[i]) for i in made]
        call = _gpupy._CachedCall(steps, kinds(self.params, planned, dtypes), tail, outs)
        if key is not None:
            if len(self._calls) >= _MAX_CALL_KEYS:
                self._calls.clear()
            self._calls[key] = call
        every = call(args, None if stream is None else _args.stream_ptr(stream))
        return self._result(every[self.nin:])

    def _result(self, outs):
        if self.no_return:
            return None
        if self.nout == 1 and not self.return_tuple:
            return outs[0]
        return tuple(outs)

    def plan(self, *args, size=None):
        """The kernel a call with these arguments runs, without running or compiling
        it: a `Plan` (signature key and generated source), or None when such a call
        launches nothing (an empty loop). Arrays may be gpupy arrays, `ArraySpec`s or
        NumPy arrays (standing for gpupy arrays of their layout); scalars as in a call.
        Needs no GPU."""
        args = plan_arguments(self._full_arguments(args))
        types = {}
        _params.bind(self.params, binding_arguments(args), types)
        dtypes, shape, args = self._loop(args, types, size, ArraySpec)
        if not math.prod(shape):
            return None
        nd, _, _, slots, key = self._signature(args, dtypes, types, shape)
        return Plan(key, self._source(slots, types, nd))

    def prebuild(self, *args, size=None):
        """Compiles the kernel a call with these arguments runs into the kernel cache
        (memory and disk) without launching it; returns its `Plan` (None when such a
        call launches nothing). For ``language='rust'`` no GPU is needed; CUDA C
        compiles for the current GPU's architecture."""
        p = self.plan(*args, size=size)
        if p is not None:
            compile_module(self.language, p.source, self.options)
        return p

    def _signature(self, args, dtypes, types, shape):
        """(nd, coalesced shape, coalesced strides, slots, key) of a call: `nd` is None
        for the contiguous layout."""
        strided = [a for p, a in zip(self.params, args)
                   if isinstance(a, ARRAY_TYPES) and not p.raw]
        strides = [_layout.broadcast_strides(a, shape) for a in strided]
        cshape, cstrides = _layout.coalesce(shape, strides, self.reduce_dims)
        contiguous = len(cshape) <= 1 and all(
            (s[0] if s else a.itemsize) == a.itemsize for s, a in zip(cstrides, strided)
        )
        nd = None if contiguous else max(len(cshape), 1)
        slots, key = [], [nd]
        for p, a, d in zip(self.params, args, dtypes):
            if p.raw:
                c = _layout.is_c_contiguous(a)
                slots.append((p, "raw", a.dtype, a.ndim, c))
                key.append(("raw", a.dtype.char, a.ndim, c))
            elif isinstance(a, ARRAY_TYPES):
                slots.append((p, "array", a.dtype, 0, False))
                key.append(("array", a.dtype.char))
            else:
                slots.append((p, "scalar", d, 0, False))
                key.append(("scalar", d.char))
        key.append(tuple(sorted((t, d.char) for t, d in types.items())))
        return nd, cshape, cstrides, slots, tuple(key)

    def _launch(self, args, dtypes, types, shape, n, block_size):
        """The call's launch as a `_CachedCall` step, and the parameters after the
        arguments (loop size; for a strided layout, shape and strides)."""
        nd, cshape, cstrides, slots, key = self._signature(args, dtypes, types, shape)
        tail = [_layout.dims_bytes([n])]
        if nd is not None:
            tail.append(_layout.dims_bytes(cshape or [1]))
            tail += [_layout.dims_bytes(s or [0]) for s in cstrides]
        f = self._kernel(key, slots, types, nd)
        block = block_size or 256
        # The contiguous layout takes UNROLL elements per thread and step.
        per_thread = _cuda_source.UNROLL if nd is None else 1
        grid = min(-(-n // (block * per_thread)), _MAX_GRID)
        return [(f._f, grid, block, 0, [], None)], tail


def kinds(params, args, dtypes):
    """How a `_CachedCall` turns each argument into its parameter: 'raw' (a CArray
    descriptor), 'array' (the address), or a scalar's (dtype, packer for the values
    Rust does not convert itself)."""
    out = []
    for p, a, d in zip(params, args, dtypes):
        if p.raw:
            out.append("raw")
        elif isinstance(a, ARRAY_TYPES):
            out.append("array")
        else:
            out.append((d, _args.scalar_packer(d)))
    return out


__all__ = ["ElementwiseKernel", "ArraySpec", "Plan"]
