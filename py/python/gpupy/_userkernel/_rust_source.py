"""Rust sources generated for ``ElementwiseKernel`` and ``ReductionKernel``
(``language='rust'``): the kernels of ``_cuda_source.py`` with the same names, the same
parameter layout (documented there) and the same schedule, written in Rust over the
``gpupy_device`` crate. ``_rustc.compile_rust_module`` compiles them (its prelude sets
the crate attributes and imports ``gpupy_device::prelude::*``).

What user code sees (``language='rust'``):

- ``ElementwiseKernel`` ``operation``: Rust statements. Each non-raw input is a local
  ``let x: T`` holding its element, converted from the array's dtype to the declared
  type; each output is a local ``let mut y: T;`` declared without a value and stored
  after the operation, so **the operation must assign every output on every path**
  (rustc rejects it otherwise: "used binding `y` isn't initialized"), and reading an
  output before assigning it is an error too (to update an array in place, pass it as
  an input as well, or as a ``raw`` parameter). Outputs are stored when the operation
  ends, so a ``continue`` (which moves to the next element) leaves the element's
  outputs unwritten (CUDA C's outputs are references, written at once); a ``break``
  ends the thread's loop in the strided layout, only its current step of ``UNROLL``
  elements in the contiguous one (as in C). ``i`` is the loop index (``i64``),
  ``_ind.size()`` / ``_ind_size`` the loop size, also ``n`` unless a parameter is named
  ``n``. A ``raw`` parameter is a ``CArray``: ``z[i]`` / ``z[i] = v`` by flat C-order
  index (``i64``, ``i32``, ``u32`` or ``usize``), ``z[[i, j]]`` by multi-index,
  ``z.size()``, ``z.shape()``, ``z.strides()`` (bytes), ``z.data()``.
- ``ReductionKernel``: ``map_expr`` is a Rust expression over the inputs,
  ``reduce_expr`` one over ``a`` and ``b`` (accumulator values), ``post_map_expr``
  statements over ``a`` that assign every output (``y = a;``, ``y = a.sqrt();``);
  ``identity`` a Rust expression (``0``, ``0.0``, ``f32::NEG_INFINITY``,
  ``c64::ZERO``; also a Python number, or ``inf``/``-inf``/``nan``). The results of
  ``map_expr``, ``reduce_expr`` and ``identity`` are converted to the accumulator type
  with ``Cast`` (below), so ``0`` works for an ``f32`` accumulator; the output
  assignment is not converted: ``y = a.cast();`` or ``y = a as f32;`` where the
  accumulator type differs from the output's. ``reduce_type``: a dtype name, a bound
  placeholder, a C name (``float``, ``double``, ``int``, ``long long``, ...), a Rust
  primitive (``f32``, ``i64``, ``c64``) or the name of a ``Copy`` type of the preamble
  (at most 64 bytes: the shared memory the host reserves per thread).
- Element types: bool ``bool``, int8..uint64 ``i8``..``u64``, float16 ``f16``,
  float32 ``f32``, float64 ``f64``, complex64 ``c64``, complex128 ``c128``;
  placeholders become ``type T = f32;``.
- Helpers of the generated header: ``Cast`` (``x.cast()`` / ``Cast::<f32>::cast(x)``,
  between any two element types, NumPy's ``astype`` rules: complex to real keeps the
  real part, to bool tests for non-zero), ``max``/``min`` (floats ignore a NaN, as C's
  ``fmax``), and ``real``/``imag``/``conj`` for real and complex values (a preamble
  item of one of these names is a duplicate definition). Math comes
  from ``gpupy_device``: ``sqrt(x)``, ``x.sqrt()``, ``x.exp()``, ``powf``, ... for
  f32/f64/f16, methods for complex (``z.exp()``, ``z.abs()``, ``z.sqrt()``).
- ``preamble``: items (functions, constants, types) placed before the kernels;
  ``loop_prep``/``after_loop``: statements in the kernel body before and after the
  loop (a ``let`` in ``loop_prep`` is visible in the operation and after the loop).
  User code runs inside ``unsafe`` functions, so raw-pointer code needs no ``unsafe``
  block.
"""

import numpy

from gpupy._userkernel._cuda_source import UNROLL
from gpupy._userkernel._rust_header import COMPLEX as _COMPLEX
from gpupy._userkernel._rust_header import FLOATS as _FLOATS
from gpupy._userkernel._rust_header import HEADER
from gpupy._userkernel._rust_header import INTS as _INTS


_RTYPES = {
    "bool": "bool",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "complex128": "c128",
}

# reduce_type spelled in C (as CuPy passes it through to its C source) or in Rust.
_C_NAMES = {
    "bool": "bool",
    "char": "i8",
    "signed char": "i8",
    "unsigned char": "u8",
    "short": "i16",
    "unsigned short": "u16",
    "int": "i32",
    "unsigned": "u32",
    "unsigned int": "u32",
    "long": "i64",
    "unsigned long": "u64",
    "long long": "i64",
    "unsigned long long": "u64",
    "int8_t": "i8",
    "int16_t": "i16",
    "int32_t": "i32",
    "int64_t": "i64",
    "uint8_t": "u8",
    "uint16_t": "u16",
    "uint32_t": "u32",
    "uint64_t": "u64",
    "half": "f16",
    "float": "f32",
    "double": "f64",
    "complex<float>": "c64",
    "complex<double>": "c128",
    "thrust::complex<float>": "c64",
    "thrust::complex<double>": "c128",
}
_RUST_NAMES = set(_INTS + _FLOATS + tuple(_COMPLEX)) | {"bool"}


def rtype(dtype):
    """The Rust type of a NumPy dtype's elements."""
    name = numpy.dtype(dtype).name
    try:
        return _RTYPES[name]
    except KeyError:
        raise TypeError(f"dtype {name} is not supported by user kernels") from None


def typedefs(types):
    """``type`` lines for the bound placeholders (``T`` -> ``f32``)."""
    return "".join(f"type {t} = {rtype(d)};\n" for t, d in sorted(types.items()))


def carray_type(dtype, nd, contiguous):
    return f"CArray<{rtype(dtype)}, {max(nd, 1)}, {'true' if contiguous else 'false'}>"


def reduce_type_name(reduce_type, types):
    """The Rust type of the accumulator: a bound placeholder, a Rust primitive, a C
    name, a dtype name, or else the text itself (a type of the preamble)."""
    if not isinstance(reduce_type, str):
        return rtype(reduce_type)
    if reduce_type in types:
        return rtype(types[reduce_type])
    text = " ".join(reduce_type.split())
    if text in _RUST_NAMES:
        return text
    if text in _C_NAMES:
        return _C_NAMES[text]
    if text in _RTYPES:
        return _RTYPES[text]
    return reduce_type


_FLOAT_WORDS = {
    "inf": "f64::INFINITY",
    "+inf": "f64::INFINITY",
    "infinity": "f64::INFINITY",
    "-inf": "f64::NEG_INFINITY",
    "-infinity": "f64::NEG_INFINITY",
    "nan": "f64::NAN",
}


def identity_expr(identity):
    """The identity as a Rust expression: Rust text as given (``inf``/``-inf``/``nan``
    spelled as the f64 constants), Python numbers as typed literals (an int outside
    i32 gets an ``i64``/``u64`` suffix, where the untyped literal would overflow)."""
    if isinstance(identity, (bool, numpy.bool_)):
        return "true" if identity else "false"
    if isinstance(identity, (int, numpy.integer)):
        v = int(identity)
        if -(2**31) <= v < 2**31:
            return str(v)
        return f"{v}i64" if v < 2**63 else f"{v}u64"
    if isinstance(identity, (float, numpy.floating)):
        v = float(identity)
        if v != v:
            return "f64::NAN"
        if v in (float("inf"), float("-inf")):
            return "f64::INFINITY" if v > 0 else "f64::NEG_INFINITY"
        return f"{v!r}_f64"
    if isinstance(identity, (complex, numpy.complexfloating)):
        v = complex(identity)
        return f"c128::new({v.real!r}_f64, {v.imag!r}_f64)"
    text = str(identity)
    return _FLOAT_WORDS.get(text.strip().lower(), text)


def _statements(code):
    """User statements, terminated (C's generator appends `;` too) on a line of its own,
    so a trailing `//` comment does not swallow it; as given when they end with `;`."""
    code = code.rstrip()
    if not code or code.endswith(";"):
        return code
    return code + "\n;"


def _indent(lines, n):
    """Generated lines joined for a place indented by `n` spaces (the first line goes
    where the placeholder is, already indented)."""
    return ("\n" + " " * n).join(lines)


# Lints user code and the generated glue may trip: names in CUDA's style, unused
# parameters, raw-pointer code in unsafe fns without `unsafe` blocks.
_ALLOW = (
    "#[allow(unused, non_snake_case, non_camel_case_types, unsafe_op_in_unsafe_fn, "
    "redundant_semicolons, unused_unsafe, clippy::all)]"
)


def _offsets(arrays, nd, index, shape, tag):
    """Rust statements computing each array's byte offset ``_o{tag}_<array>`` for flat
    index `index` over `shape` (a `_Dims<nd>` name), from the strides
    ``_st{tag}_<array>`` (the C generator's ``_dims_offsets``)."""
    lines = [f"let mut _o{tag}_{a}: i64 = 0;" for a in arrays]
    lines.append(f"let mut _r{tag}: i64 = {index};")
    for d in range(nd - 1, -1, -1):
        if d > 0:
            lines.append(f"let (_q{tag}{d}, _c{tag}{d}) = _divmod(_r{tag}, {shape}.v[{d}]); "
                         f"_r{tag} = _q{tag}{d};")
        else:
            lines.append(f"let _c{tag}{d} = _r{tag};")
        lines += [f"_o{tag}_{a} += _c{tag}{d} * _st{tag}_{a}.v[{d}];" for a in arrays]
    return lines


def _bound(p, types):
    return rtype(types[p.ctype] if p.placeholder else p.dtype)


def _pick(values, u):
    """The expression choosing ``values[u]`` for the loop counter `u` (a ``match``: an
    unrolled loop folds it to the one value, a rolled one keeps registers, where an
    array indexed by a variable would go to local memory)."""
    if len(values) == 1:
        return values[0]
    arms = [f"{k} => {v}" for k, v in enumerate(values[:-1])] + [f"_ => {values[-1]}"]
    return f"match {u} {{ {', '.join(arms)} }}"


def elementwise(name, slots, operation, preamble, loop_prep, after_loop, types, nd):
    """An elementwise kernel ``{name}``, as ``_cuda_source.elementwise``: `slots` is one
    tuple per parameter ``(param, kind, array_dtype, raw_nd, raw_contiguous)`` with kind
    'array', 'raw' or 'scalar'; `nd` is None for the contiguous layout or the strided
    layout's dimension count.

    The strided layout is a grid-stride loop, an element per thread and step. The
    contiguous layout takes ``UNROLL`` elements per thread and step, ``blockDim.x``
    apart, as the C kernel (the host's grid divides by it): a full step loads every
    input of its elements first, so they are in flight together, then runs the operation
    on each; the last, partial step checks each index. The operation runs inside a loop
    over the step's elements either way, so a ``continue`` in it moves to the next
    element (and a ``break`` ends the step, as in C)."""
    sig, loads, stores, arrays, ins = [], [], [], [], []
    for p, kind, adt, rnd, rc in slots:
        bound = _bound(p, types)
        if kind == "scalar":
            sig.append(f"{p.name}: {bound}")
        elif kind == "raw":
            sig.append(f"mut {p.name}: {carray_type(adt, rnd, rc)}")
        else:
            at = rtype(adt)
            arrays.append(p.name)
            sig.append(f"_p_{p.name}: *mut {at}")
            ptr = (f"_p_{p.name}.offset(i as isize)" if nd is None
                   else f"_byte_add_mut(_p_{p.name}, _o_{p.name})")
            if p.is_const:
                ins.append((p.name, at, bound))
                loads.append(f"let {p.name}: {bound} = Cast::<{bound}>::cast(*{ptr});")
            else:
                # Outputs: assigned by the operation, then stored.
                loads.append(f"let mut {p.name}: {bound};")
                stores.append(f"*{ptr} = Cast::<{at}>::cast({p.name});")
    sig.append("_n: i64")
    if nd is not None:
        sig.append(f"_shape: _Dims<{nd}>")
        sig += [f"_st_{a}: _Dims<{nd}>" for a in arrays]
    names = {p.name for p, *_ in slots}
    n_alias = "" if "n" in names else "let n: i64 = _n;"
    sig_text = ",\n    ".join(sig)
    head = f"""{HEADER}
{typedefs(types)}
{preamble}

{_ALLOW}
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn {name}(
    {sig_text}
) {{
    let _ind = _CIndexer {{ size_: _n }};
    let _ind_size: i64 = _n;
    {n_alias}
    {_statements(loop_prep)}"""
    if nd is not None:
        offsets = _offsets(arrays, nd, "i", "_shape", "") if arrays else []
        return f"""{head}
    for i in _GridStride::new(_n) {{
        {_indent(offsets + loads, 8)}
        {{
{_statements(operation)}
        }}
        {_indent(stores, 8)}
    }}
    {_statements(after_loop)}
}}
"""
    # The full step: each input's UNROLL elements loaded up front (`_v_<x><u>`), then
    # per element the loaded value converted, the outputs declared, the operation, the
    # stores.
    pre = [f"let _v_{a}{u}: {at} = *_p_{a}.offset((_b + {u} * _bd) as isize);"
           for a, at, _ in ins for u in range(UNROLL)]
    loaded = [f"let {a}: {bound} = Cast::<{bound}>::cast("
              f"{_pick([f'_v_{a}{u}' for u in range(UNROLL)], '_u')});" for a, _, bound in ins]
    loaded += [x for x in loads if x.startswith("let mut ")]
    return f"""{head}
    let _bd: i64 = block_dim_x() as i64;
    let _step: i64 = _bd * grid_dim_x() as i64 * {UNROLL};
    let mut _b: i64 = block_idx_x() as i64 * _bd * {UNROLL} + thread_idx_x() as i64;
    while _b < _n {{
        if _b + ({UNROLL} - 1) * _bd < _n {{
            {_indent(pre, 12)}
            for _u in 0..{UNROLL}i64 {{
                let i: i64 = _b + _u * _bd;
                {_indent(loaded, 16)}
                {{
{_statements(operation)}
                }}
                {_indent(stores, 16)}
            }}
        }} else {{
            for _u in 0..{UNROLL}i64 {{
                let i: i64 = _b + _u * _bd;
                if i >= _n {{
                    break;
                }}
                {_indent(loads, 16)}
                {{
{_statements(operation)}
                }}
                {_indent(stores, 16)}
            }}
        }}
        _b += _step;
    }}
    {_statements(after_loop)}
}}
"""


def reduction(name, slots, outs, map_expr, reduce_expr, post_map_expr, identity, reduce_type,
              preamble, types, ndo, ndr, vec=1):
    """The module of ``_cuda_source.reduction`` in Rust: kernels ``{name}`` (a block
    per output, ``gridDim.y`` blocks per output writing to ``_partial`` when there are
    few outputs), ``{name}_final`` (a block per output combining its ``_chunk`` partial
    values) and ``{name}_thread`` (a thread per output), sharing one parameter list.
    The two block kernels fold over the block (``_block_fold``: warp shuffles, then
    the warps' results through the dynamic shared memory the host reserves, at least
    ``32 * (size_of(reduce_type) + 1)`` bytes); ``blockDim.x`` is a power of two, at
    least 32. `vec` > 1 adds the packed path of ``_cuda_source.reduction``."""
    rtype_ = reduce_type_name(reduce_type, types)
    sig, arrays, loads, packs = [], [], [], []
    for p, kind, adt, rnd, rc in slots:
        bound = _bound(p, types)
        if kind == "scalar":
            sig.append((p.name, bound))
        elif kind == "raw":
            sig.append((p.name, carray_type(adt, rnd, rc)))
        else:
            at = rtype(adt)
            arrays.append(p.name)
            sig.append((f"_p_{p.name}", f"*const {at}"))
            loads.append(f"let {p.name}: {bound} = Cast::<{bound}>::cast("
                         f"*_byte_add(_p_{p.name}, _oo_{p.name} + _or_{p.name}));")
            packs.append((p.name, bound, at, vec * adt.itemsize))
    out_names, out_decls, out_stores = [], [], []
    for p, adt in outs:
        at = rtype(adt)
        out_names.append(p.name)
        sig.append((f"_p_{p.name}", f"*mut {at}"))
        out_decls.append(f"let mut {p.name}: {at};")
        out_stores.append(f"*_byte_add_mut(_p_{p.name}, _oy_{p.name}) = {p.name};")
    sig += [("_n_out", "i64"), ("_n_red", "i64"), ("_chunk", "i64"),
            ("_partial", "*mut _type_reduce")]
    sig += [("_oshape", f"_Dims<{ndo}>"), ("_rshape", f"_Dims<{ndr}>")]
    for a in arrays:
        sig += [(f"_sto_{a}", f"_Dims<{ndo}>"), (f"_str_{a}", f"_Dims<{ndr}>")]
    sig += [(f"_sty_{y}", f"_Dims<{ndo}>") for y in out_names]
    raw = {p.name for p, kind, *_ in slots if kind == "raw"}

    def decl(n, t):
        return f"{'mut ' if n in raw else ''}{n}: {t}"

    sig_text = ",\n    ".join(decl(n, t) for n, t in sig)
    # `_post` also takes `a`: a parameter of that name is hidden from post_map_expr there
    # (as it would be in C), so it is left out rather than bound twice.
    post_sig = ", ".join(decl(n, t) for n, t in sig if n != "a")
    post_args = ", ".join(n for n, _ in sig if n != "a")
    has_id = identity is not None
    init = (f"let mut _acc: _type_reduce = Cast::<_type_reduce>::cast({identity_expr(identity)});"
            " let mut _has = true;") if has_id else \
        "let mut _acc: _type_reduce = core::mem::zeroed(); let mut _has = false;"
    out_offsets = _offsets(arrays, ndo, "_j", "_oshape", "o")
    red_offsets = _offsets(arrays, ndr, "_k", "_rshape", "r")
    y_offsets = _offsets(out_names, ndo, "_j", "_oshape", "y")
    map_body = red_offsets + loads

    def map_one(k, n):
        """One mapped element as a block expression, for a place indented by `n`."""
        inner = _indent([f"let _k: i64 = {k};"] + map_body
                        + [f"Cast::<_type_reduce>::cast({map_expr})"], n + 4)
        return f"{{\n{' ' * (n + 4)}{inner}\n{' ' * n}}}"

    pack_types, packed = "", ""
    if vec > 1 and packs:
        pack_types = "".join(
            f"#[repr(C, align({size}))]\n#[derive(Clone, Copy)]\nstruct _pk_{a}([{at}; {vec}]);\n"
            for a, _, at, size in packs)
        packed = _packed_loop(packs, vec, map_expr)

    return f"""{HEADER}
{typedefs(types)}
type _type_reduce = {rtype_};
{preamble}
{pack_types}
{_ALLOW}
#[inline(always)]
unsafe fn _reduce(a: _type_reduce, b: _type_reduce) -> _type_reduce {{
    Cast::<_type_reduce>::cast({reduce_expr})
}}

/// Folds `v` (valid when `vh`) into the accumulator (valid when `has`).
{_ALLOW}
#[inline(always)]
unsafe fn _fold(acc: &mut _type_reduce, has: &mut bool, v: _type_reduce, vh: bool) {{
    if vh {{
        *acc = if *has {{ _reduce(*acc, v) }} else {{ v }};
        *has = true;
    }}
}}

{_ALLOW}
#[inline(always)]
unsafe fn _post(_j: i64, a: _type_reduce, {post_sig}) {{
    {_indent(y_offsets + out_decls, 4)}
    {{
{_statements(post_map_expr)}
    }}
    {_indent(out_stores, 4)}
}}

/// `v` from the lane `d` above, word by word, so any accumulator type (a complex, a
/// struct of the preamble) crosses the warp.
{_ALLOW}
#[inline(always)]
unsafe fn _shfl_down(v: _type_reduce, d: u32) -> _type_reduce {{
    const W: usize = core::mem::size_of::<_type_reduce>().div_ceil(4);
    let mut w = [0u32; W];
    core::ptr::copy_nonoverlapping(
        &v as *const _type_reduce as *const u8, w.as_mut_ptr() as *mut u8,
        core::mem::size_of::<_type_reduce>());
    let mut i = 0;
    while i < W {{
        w[i] = shfl_down(w[i], d);
        i += 1;
    }}
    let mut r = core::mem::MaybeUninit::<_type_reduce>::uninit();
    core::ptr::copy_nonoverlapping(
        w.as_ptr() as *const u8, r.as_mut_ptr() as *mut u8,
        core::mem::size_of::<_type_reduce>());
    r.assume_init()
}}

/// Folds (value, has-value) over the warp; lane 0 ends with the warp's.
{_ALLOW}
#[inline(always)]
unsafe fn _warp_fold(_acc: &mut _type_reduce, _has: &mut bool) {{
    let mut _d = 16;
    while _d > 0 {{
        let _v = _shfl_down(*_acc, _d);
        let _vh = shfl_down(*_has as u32, _d) != 0;
        _fold(_acc, _has, _v, _vh);
        _d >>= 1;
    }}
}}

/// Folds every thread's (value, has-value) over the block: each warp by shuffles, then
/// the warps' results (through the dynamic shared memory: 32 values, then 32 flags) in
/// warp 0. Thread 0 returns with the block's; the closing barrier frees the shared
/// memory for the next output.
{_ALLOW}
#[inline(always)]
unsafe fn _block_fold(_acc: &mut _type_reduce, _has: &mut bool) {{
    let _lane = thread_idx_x() % 32;
    let _warp = thread_idx_x() / 32;
    let _sv: *mut _type_reduce = shared_ptr::<_type_reduce>();
    let _sh: *mut bool = shared_ptr::<u8>()
        .add(32 * core::mem::size_of::<_type_reduce>()) as *mut bool;
    _warp_fold(_acc, _has);
    if _lane == 0 {{
        *_sv.add(_warp as usize) = *_acc;
        *_sh.add(_warp as usize) = *_has;
    }}
    sync_threads();
    if _warp == 0 {{
        *_has = _lane < block_dim_x() / 32 && *_sh.add(_lane as usize);
        if *_has {{
            *_acc = *_sv.add(_lane as usize);
        }}
        _warp_fold(_acc, _has);
    }}
    sync_threads();
}}

{_ALLOW}
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn {name}(
    {sig_text}
) {{
    let _tid = thread_idx_x();
    let _bd = block_dim_x() as i64;
    let _k0 = block_idx_y() as i64 * _chunk;
    let _k1 = core::cmp::min(_n_red, _k0 + _chunk);
    let mut _j = block_idx_x() as i64;
    while _j < _n_out {{
        {_indent(out_offsets, 8)}
        {init}
        let mut _kk = _k0 + _tid as i64;
        {packed}
        // Four elements a step with no bounds check between them, their loads first
        // (in flight together), folded in index order; then the remainder one by one.
        while _kk + 3 * _bd < _k1 {{
            let _v0 = {map_one("_kk", 12)};
            let _v1 = {map_one("_kk + _bd", 12)};
            let _v2 = {map_one("_kk + 2 * _bd", 12)};
            let _v3 = {map_one("_kk + 3 * _bd", 12)};
            _fold(&mut _acc, &mut _has, _v0, true);
            _fold(&mut _acc, &mut _has, _v1, true);
            _fold(&mut _acc, &mut _has, _v2, true);
            _fold(&mut _acc, &mut _has, _v3, true);
            _kk += 4 * _bd;
        }}
        while _kk < _k1 {{
            let _v = {map_one("_kk", 12)};
            _fold(&mut _acc, &mut _has, _v, true);
            _kk += _bd;
        }}
        _block_fold(&mut _acc, &mut _has);
        if _tid == 0 {{
            if grid_dim_y() == 1 {{
                _post(_j, _acc, {post_args});
            }} else {{
                *_partial.offset((_j * grid_dim_y() as i64 + block_idx_y() as i64) as isize) = _acc;
            }}
        }}
        _j += grid_dim_x() as i64;
    }}
}}

{_ALLOW}
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn {name}_final(
    {sig_text}
) {{
    // A block per output over its `_chunk` partial values (`_chunk` is their count here).
    let _tid = thread_idx_x() as i64;
    let _bd = block_dim_x() as i64;
    let mut _j = block_idx_x() as i64;
    while _j < _n_out {{
        let mut _acc: _type_reduce = core::mem::zeroed();
        let mut _has = false;
        let mut _c = _tid;
        while _c < _chunk {{
            _fold(&mut _acc, &mut _has, *_partial.offset((_j * _chunk + _c) as isize), true);
            _c += _bd;
        }}
        _block_fold(&mut _acc, &mut _has);
        if _tid == 0 {{
            _post(_j, _acc, {post_args});
        }}
        _j += grid_dim_x() as i64;
    }}
}}

{_ALLOW}
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn {name}_thread(
    {sig_text}
) {{
    for _j in _GridStride::new(_n_out) {{
        {_indent(out_offsets, 8)}
        {init}
        let mut _kk: i64 = 0;
        while _kk < _n_red {{
            let _v = {map_one("_kk", 12)};
            _fold(&mut _acc, &mut _has, _v, true);
            _kk += 1;
        }}
        _post(_j, _acc, {post_args});
    }}
}}
"""


def _packed_loop(packs, vec, map_expr):
    """The packed path of ``_cuda_source._packed_loop`` in Rust: whole packs of `vec`
    elements per load where every array's slice starts on its pack; leaves ``_kk`` at
    the first element after the last whole pack. `packs` holds (array name, bound Rust
    type, element Rust type, pack bytes)."""
    aligned = " && ".join(f"(_byte_add(_p_{a}, _oo_{a}) as usize) % {size} == 0"
                          for a, _, _, size in packs)

    def load(tag, q):
        return " ".join(f"let _{tag}_{a}: _pk_{a} = *(_byte_add(_p_{a}, _oo_{a}) as *const _pk_{a})"
                        f".offset(({q}) as isize);" for a, _, _, _ in packs)

    def fold(tag, q):
        out = []
        for u in range(vec):
            names = " ".join(f"let {a}: {b} = Cast::<{b}>::cast(_{tag}_{a}.0[{u}]);"
                             for a, b, _, _ in packs)
            out.append(f"{{ let _k: i64 = ({q}) * {vec} + {u}; {names} "
                       f"_fold(&mut _acc, &mut _has, Cast::<_type_reduce>::cast({map_expr}), true); }}")
        return "\n                ".join(out)

    return f"""if _k0 % {vec} == 0 && {aligned} {{
            let _q1 = _k1 / {vec};
            let mut _q = _k0 / {vec} + _tid as i64;
            while _q + _bd < _q1 {{
                {load("a", "_q")} {load("b", "_q + _bd")}
                {fold("a", "_q")}
                {fold("b", "_q + _bd")}
                _q += 2 * _bd;
            }}
            if _q < _q1 {{
                {load("a", "_q")}
                {fold("a", "_q")}
            }}
            _kk = _q1 * {vec} + _tid as i64;
        }}"""


__all__ = [
    "HEADER",
    "rtype",
    "typedefs",
    "carray_type",
    "reduce_type_name",
    "identity_expr",
    "elementwise",
    "reduction",
]
