"""``ReductionKernel``: a user's map, reduce and post-map expressions over any axes of
broadcast arguments (CuPy's ``cupy.ReductionKernel``), in CUDA C or in Rust.

The inputs' broadcast shape splits into output dimensions and reduced dimensions; each
group is coalesced (``reduce_dims``) and the kernel walks them by flat index. The
schedule follows the layout (see ``_cuda_source.reduction``): a block per output when
the reduced elements are contiguous, a thread per output when they are strided (an
outer axis, so neighbouring threads read neighbouring outputs' elements), and several
blocks per output plus a combining pass when there are too few outputs to fill the GPU.

``plan``/``prebuild`` run a call's steps up to the generated source on array layouts
alone, as ``ElementwiseKernel``'s do (see ``_elementwise.py``).
"""

import math

import numpy

from gpupy import _gpupy, cuda
from gpupy._userkernel import _args, _cuda_source, _elementwise, _layout, _params, _rust_source
from gpupy._userkernel._elementwise import ARRAY_TYPES, ArraySpec, Plan

_BLOCK = 512
# Blocks a few outputs are split over: enough to fill an H100 (132 SMs) four times over
# with blocks of 512. Measured on an H100 for a sum of squares of 2**26 float32 (packed
# loads, warp-shuffle block fold): 2112 blocks of 512 threads 0.975x gp.sum's time,
# 2112 of 256 1.00x, 1056 of 512 0.966x, 1056 of 1024 0.962x: flat around here.
_TARGET_BLOCKS = 132 * 16
# Each of several blocks sharing one output reduces at least this many elements.
_MIN_CHUNK = 8192


def normalize_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, numpy.integer)):
        axis = (axis,)
    out = []
    for a in axis:
        a = int(a)
        if not -ndim <= a < ndim:
            raise numpy.exceptions.AxisError(a, ndim)
        a %= ndim
        if a in out:
            raise ValueError("duplicate value in 'axis'")
        out.append(a)
    return tuple(sorted(out))


def _pack_elements(dtypes, rshape, rstr):
    """Elements each thread of a block kernel loads at once: a 16-byte pack of the
    widest input (4 float32, 2 float64; at most 8) when the reduced elements of every
    non-raw array are contiguous along one dimension, else 1."""
    if not dtypes or len(rshape) != 1:
        return 1
    if any(s[0] != d.itemsize for s, d in zip(rstr, dtypes)):
        return 1
    return max(1, min(8, 16 // max(d.itemsize for d in dtypes)))


def generate(language, **kw):
    if language == "cuda":
        return _cuda_source.reduction(**kw)
    return _rust_source.reduction(**kw)


class ReductionKernel:
    """A user-defined reduction::

        l2norm = gp.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0',
                                    'l2norm')
        n = l2norm(x, axis=1)
    """

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr,
                 identity, name="reduce_kernel", reduce_type=None, reduce_dims=True,
                 preamble="", options=(), *, language="cuda"):
        if language not in ("cuda", "rust"):
            raise ValueError(f"language must be 'cuda' or 'rust', not {language!r}")
        self.in_params = _params.parse(in_params, True)
        self.out_params = _params.parse(out_params, False)
        _params.check_names(self.in_params, self.out_params)
        if any(p.raw for p in self.out_params):
            raise ValueError("ReductionKernel's outputs cannot be raw")
        self.nin = len(self.in_params)
        self.nout = len(self.out_params)
        self.nargs = self.nin + self.nout
        self.params = self.in_params + self.out_params
        self.map_expr = map_expr
        self.reduce_expr = reduce_expr
        self.post_map_expr = post_map_expr
        self.identity = None if identity is None or identity == "" else identity
        self.name = name
        self.reduce_type = reduce_type if reduce_type is not None else self.out_params[0].ctype
        self.reduce_dims = reduce_dims
        self.preamble = preamble
        self.options = tuple(options)
        self.language = language
        self._kernels = {}
        # Call key -> (launch recipe or None, outputs to make); see `_call_key`.
        self._calls = {}

    def _source(self, slots, out_slots, types, ndo, ndr, vec):
        return generate(
            self.language, name=self.name, slots=slots, outs=out_slots,
            map_expr=self.map_expr, reduce_expr=self.reduce_expr,
            post_map_expr=self.post_map_expr, identity=self.identity,
            reduce_type=self.reduce_type, preamble=self.preamble, types=types, ndo=ndo,
            ndr=ndr, vec=vec,
        )

    def _module(self, key, *gen):
        dev = cuda.Device().id
        m = self._kernels.get((dev, key))
        if m is None:
            source = self._source(*gen)
            mod = _elementwise.compile_module(self.language, source, self.options)
            m = {k: mod.get_function(self.name + k) for k in ("", "_final", "_thread")}
            self._kernels[(dev, key)] = m
        return m

    def _full_arguments(self, args, out):
        """`args` with a None for each output not given, `out` in its place."""
        if len(args) == self.nin:
            args = args + (None,) * self.nout
        elif len(args) != self.nargs:
            raise TypeError(f"Wrong number of arguments for {self.name!r}")
        if out is not None:
            if self.nout != 1 or args[self.nin] is not None:
                raise ValueError("out= is for kernels of one output not also given positionally")
            args = args[: self.nin] + (out,)
        return args

    def _prepare(self, args, types, axis, keepdims, make_output):
        """(inputs, outputs, dtypes, shape, kept axes, reduced axes, outputs' count,
        reduced count), each missing output made by `make_output(shape, dtype)`."""
        dtypes = [_params.dtype_of(p, types) for p in self.params]
        if self.reduce_type in types or len(self.reduce_type) == 1:
            _params.dtype_of(_params.Param(f"{self.reduce_type} _", True), types)

        ins = args[: self.nin]
        arrays = [a for p, a in zip(self.in_params, ins) if isinstance(a, ARRAY_TYPES) and not p.raw]
        shape = _layout.broadcast_shape([a.shape for a in arrays])
        axes = normalize_axes(axis, len(shape))
        kept = [k for k in range(len(shape)) if k not in axes]
        out_shape = tuple(1 if k in axes else n for k, n in enumerate(shape)) if keepdims \
            else tuple(shape[k] for k in kept)
        n_out = math.prod(shape[k] for k in kept)
        n_red = math.prod(shape[k] for k in axes)

        outs = list(args[self.nin:])
        for k, (p, o) in enumerate(zip(self.out_params, outs)):
            d = dtypes[self.nin + k]
            if o is None:
                outs[k] = make_output(out_shape, d)
            elif not isinstance(o, ARRAY_TYPES):
                raise TypeError(f"Output argument {p.name} must be a gpupy array")
            elif o.dtype != d:
                raise TypeError(f"Type is mismatched. {p.name} {o.dtype.type} {d.type}")
            elif o.shape != out_shape:
                raise ValueError(f"Out shape is mismatched: {o.shape} for {out_shape}")
        if n_red == 0 and self.identity is None and n_out:
            raise ValueError(
                f"zero-size array to reduction operation {self.name} which has no identity"
            )
        return ins, outs, dtypes, shape, kept, axes, n_out, n_red

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        key = self._call_key(args, out, axis, keepdims)
        call = self._calls.get(key) if key is not None else None
        if call is not None:
            return self._call_again(call, args, out, stream)
        full = self._full_arguments(args, out)
        made = [self.nin + k for k, a in enumerate(full[self.nin:]) if a is None]
        args = tuple(_elementwise.as_argument(a) for a in full)
        types = {}
        _params.bind(self.params, args, types)
        # Outputs to make stand as their layouts while the call is planned; the
        # `_CachedCall` makes them, now and on every later call with this key.
        ins, outs, dtypes, shape, kept, axes, n_out, n_red = self._prepare(
            args, types, axis, keepdims, ArraySpec)
        steps, tail, scratch = [], [], 0
        if n_out:
            steps, tail, scratch = self._launch(ins, outs, dtypes, types, shape, kept, axes,
                                                n_out, n_red, keepdims)
        planned = ins + tuple(outs)
        call = _gpupy._CachedCall(
            steps, _elementwise.kinds(self.params, planned, dtypes), tail,
            [(i, planned[i].shape, planned[i].dtype) for i in made], scratch)
        if key is not None:
            if len(self._calls) >= _elementwise._MAX_CALL_KEYS:
                self._calls.clear()
            self._calls[key] = call
        return self._run(call, args, stream)

    def _call_key(self, args, out, axis, keepdims):
        """As `ElementwiseKernel._call_key`, with the axes, keepdims and `out`."""
        try:
            hash(axis)
        except TypeError:
            return None
        return _elementwise.call_key(args + (out,), axis, bool(keepdims))

    def _call_again(self, call, args, out, stream):
        return self._run(call, self._full_arguments(args, out), stream)

    def _run(self, call, args, stream):
        """Runs a `_CachedCall` on the full arguments (None for outputs to make)."""
        every = call(args, None if stream is None else _args.stream_ptr(stream))
        return every[self.nin] if self.nout == 1 else every[self.nin:]

    def plan(self, *args, out=None, axis=None, keepdims=False):
        """The module a call with these arguments runs, without running or compiling
        it: a `Plan` (signature key and generated source), or None when such a call
        launches nothing (no outputs). Arrays may be gpupy arrays, `ArraySpec`s or NumPy
        arrays (standing for gpupy arrays of their layout). Needs no GPU."""
        args = _elementwise.plan_arguments(self._full_arguments(args, out))
        types = {}
        _params.bind(self.params, _elementwise.binding_arguments(args), types)
        ins, outs, dtypes, shape, kept, axes, n_out, _ = self._prepare(
            args, types, axis, keepdims, ArraySpec)
        if not n_out:
            return None
        key, gen, _ = self._signature(ins, outs, dtypes, types, shape, kept, axes, keepdims)
        return Plan(key, self._source(*gen))

    def prebuild(self, *args, out=None, axis=None, keepdims=False):
        """Compiles the module a call with these arguments runs into the kernel cache
        without launching it; returns its `Plan` (None when such a call launches
        nothing). For ``language='rust'`` no GPU is needed."""
        p = self.plan(*args, out=out, axis=axis, keepdims=keepdims)
        if p is not None:
            _elementwise.compile_module(self.language, p.source, self.options)
        return p

    def _signature(self, ins, outs, dtypes, types, shape, kept, axes, keepdims):
        """(key, the generator's layout arguments (slots, out_slots, types, ndo, ndr,
        elements per pack),
        the walk (output shape, reduced shape, output strides, reduced strides, number
        of strided inputs))."""
        strided = [a for p, a in zip(self.in_params, ins) if isinstance(a, ARRAY_TYPES) and not p.raw]
        full = [_layout.broadcast_strides(a, shape) for a in strided]
        # Output strides over the kept dimensions (keepdims' 1s dropped).
        ystr = []
        for o in outs:
            s = list(o.strides)
            ystr.append([s[k] for k in kept] if keepdims else s)
        oshape, ostr = _layout.coalesce(
            [shape[k] for k in kept], [[f[k] for k in kept] for f in full] + ystr,
            self.reduce_dims)
        rshape, rstr = _layout.coalesce(
            [shape[k] for k in axes], [[f[k] for k in axes] for f in full], self.reduce_dims)
        ndo, ndr = max(len(oshape), 1), max(len(rshape), 1)
        oshape, rshape = oshape or [1], rshape or [1]
        ostr = [s or [0] for s in ostr]
        rstr = [s or [0] for s in rstr]

        slots, key = [], [ndo, ndr]
        for p, a, d in zip(self.in_params, ins, dtypes):
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
        out_slots = [(p, o.dtype) for p, o in zip(self.out_params, outs)]
        key.append(tuple(sorted((t, d.char) for t, d in types.items())))
        walk = (oshape, rshape, ostr, rstr, len(strided))
        vec = _pack_elements([a.dtype for a in strided], rshape, rstr)
        key.append(vec)
        return tuple(key), (slots, out_slots, types, ndo, ndr, vec), walk

    def _launch(self, ins, outs, dtypes, types, shape, kept, axes, n_out, n_red, keepdims):
        """The call's launches as `_CachedCall` steps, the parameters after the partial
        values (shapes and strides), and the bytes of partial values the steps share."""
        key, gen, walk = self._signature(ins, outs, dtypes, types, shape, kept, axes, keepdims)
        oshape, rshape, ostr, rstr, nstrided = walk
        m = self._module(key, *gen)
        vec = gen[-1]
        # The schedule: a thread per output when the reduced elements are strided and
        # outputs plenty (or the reductions short); else a block per output, split into
        # chunks over several blocks when outputs are few.
        inner_red = min((abs(s[-1]) for s in rstr[:nstrided]), default=0)
        inner_out = min((abs(s[-1]) for s in ostr[:nstrided]), default=0)
        per_thread = n_red < 32 or (n_out >= 4 * _BLOCK and inner_out < inner_red)
        tail = [_layout.dims_bytes(oshape), _layout.dims_bytes(rshape)]
        for k in range(nstrided):
            tail += [_layout.dims_bytes(ostr[k]), _layout.dims_bytes(rstr[k])]
        tail += [_layout.dims_bytes(ostr[nstrided + k]) for k in range(len(outs))]
        rsize = self._reduce_size(types)
        grid_x = min(n_out, 2**31 - 1)
        block = _BLOCK if n_red >= _BLOCK else max(32, 1 << (n_red - 1).bit_length())
        chunks = 1
        if n_out < _TARGET_BLOCKS:
            chunks = max(1, min(_TARGET_BLOCKS // n_out, n_red // _MIN_CHUNK, 65535))
        # Each step: (kernel, grid, block, shared bytes, `_chunk` argument, whether it
        # reads or writes the partial values).
        if per_thread:
            steps = [(m["_thread"], min(-(-n_out // _BLOCK), 2**31 - 1), _BLOCK, 0, 1, False)]
            partial = 0
        elif chunks == 1:
            steps = [(m[""], (grid_x, 1), block, block * (rsize + 1), n_red, False)]
            partial = 0
        else:
            # Whole packs per chunk, so that every chunk starts on a pack boundary.
            chunk = -(-n_red // chunks)
            chunk = -(-chunk // vec) * vec
            chunks = -(-n_red // chunk)
            partial = n_out * chunks * rsize
            # The final pass: a block per output over its partial values.
            fblock = max(32, min(_BLOCK, 1 << (chunks - 1).bit_length()))
            steps = [(m[""], (grid_x, chunks), block, block * (rsize + 1), chunk, True),
                     (m["_final"], grid_x, fblock, fblock * (rsize + 1), chunks, True)]
        # Between the arguments and the partial values' address: n_out, n_red, _chunk.
        after = [_layout.dims_bytes([n_out]), _layout.dims_bytes([n_red])]
        return [(f._f, grid, blk, shared, after + [_layout.dims_bytes([chunk])], uses)
                for f, grid, blk, shared, chunk, uses in steps], tail, partial

    def _reduce_size(self, types):
        """Bytes of one accumulator value: its dtype's size, or 64 for a type named in
        C or Rust (a struct of the preamble), a bound on what such a value may take."""
        if self.reduce_type in types:
            return types[self.reduce_type].itemsize
        if self.reduce_type in _cuda_source.CTYPES_BY_DTYPE:
            return numpy.dtype(self.reduce_type).itemsize
        return 64


__all__ = ["ReductionKernel"]
