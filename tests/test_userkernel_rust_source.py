"""The Rust generators of ElementwiseKernel / ReductionKernel (no GPU):
gpupy._userkernel._rust_source.

The generated modules must define the kernels of the CUDA C generators
(``_cuda_source``) with the same names and the same parameter layout, since the
front-ends (``_elementwise._launch``, ``_reduction._launch``) pack one argument list
for both languages. Checked here:

- without any toolchain: the dtype / C-name / identity mappings, and the generated
  text (entry names, parameter declarations in order, the C generator's schedule:
  UNROLL elements per thread and step loaded first in the contiguous elementwise
  layout, block-per-output ``_final`` through ``_block_fold``);
- where the pinned Rust toolchain is installed (skipped otherwise, with the reason):
  each generated source compiles through ``_rustc.compile_rust_module``; its PTX has
  the entries, and each entry's parameter sizes equal the layout's (pointer 8,
  ``CArray`` 16 + 16 ND, scalar its dtype's size, loop sizes 8, ``_Dims`` 8 ND);
- where NVRTC is also found: the CUDA C generator's kernels for the same signature have
  the same parameter sizes (NVRTC's PTX, through ctypes: no GPU, no extension needed);
- where ptxas is found: the Rust PTX assembles for sm_90 with no spills and no stack;
- user-code rules: an output not assigned on every path is a compile error naming it.

Slots are built as the front-ends build them: ``(param, kind, array dtype, raw ndim,
raw contiguous)`` for each parameter (``_elementwise._launch``), ``(param, dtype)`` for
each reduction output (``_reduction._launch``).
"""

import ctypes
import os
import re
import shutil
import subprocess

import numpy
import pytest

from gpupy._userkernel import _cache, _cuda_source, _nvrtc, _rust_source, _rustc
from gpupy._userkernel._params import Param
from gpupy.cuda.compiler import CompileException

HAVE_RUST, RUST_REASON = _rustc.rust_toolchain_available()
needs_rust = pytest.mark.skipif(not HAVE_RUST, reason=f"no Rust toolchain for kernels: {RUST_REASON}")


# ---------------------------------------------------------------------------------------
# Slots as the front-ends build them.


def inp(text):
    return Param(text, True)


def out(text):
    return Param(text, False)


def arr(p, dtype):
    return (p, "array", numpy.dtype(dtype), 0, False)


def raw(p, dtype, nd, contiguous):
    return (p, "raw", numpy.dtype(dtype), nd, contiguous)


def scalar(p, dtype):
    return (p, "scalar", numpy.dtype(dtype), 0, False)


def dt(name):
    return numpy.dtype(name)


# name -> (slots, types, operation in Rust); each is generated for every layout in
# EW_LAYOUTS (None: contiguous; N: N strided dimensions).
EW_CASES = {
    "axpb": (
        [arr(inp("float32 x"), "float32"), scalar(inp("float32 a"), "float32"),
         scalar(inp("float32 b"), "float32"), arr(out("float32 y"), "float32")],
        {},
        "y = a * x + b;",
    ),
    # A float32 parameter given an int64 array: converted on load.
    "convert_input": (
        [arr(inp("float32 x"), "int64"), arr(inp("T w"), "float64"), arr(out("T y"), "float64")],
        {"T": dt("float64")},
        "y = (x as f64) * w",
    ),
    "placeholders": (
        [arr(inp("T x"), "int32"), arr(inp("U u"), "uint16"), scalar(inp("T s"), "int32"),
         arr(out("U y"), "uint16"), arr(out("T z"), "int32")],
        {"T": dt("int32"), "U": dt("uint16")},
        "y = max(u, (x as U).wrapping_add(1)); z = min(x, s) + (i as T) + (n as T) + (_ind.size() as T) - (_ind_size as T);",
    ),
    "scalars": (
        [arr(inp("float64 x"), "float64"), scalar(inp("bool f"), "bool"),
         scalar(inp("int8 c"), "int8"), scalar(inp("uint8 u"), "uint8"),
         scalar(inp("int16 h"), "int16"), scalar(inp("float16 g"), "float16"),
         scalar(inp("complex128 z"), "complex128"), scalar(inp("uint64 big"), "uint64"),
         arr(out("float64 y"), "float64")],
        {},
        "y = if f { x } else { -x } + (c as f64) + (u as f64) + (h as f64) + (g as f64) "
        "+ z.re + real(z) + imag(z) + (big as f64);",
    ),
    "half": (
        [arr(inp("float16 x"), "float16"), arr(inp("T w"), "float16"), arr(out("T y"), "float16"),
         arr(out("float32 m"), "float32")],
        {"T": dt("float16")},
        "y = x * w + sqrt(x) + x.exp(); m = (x as f32).sqrt() + sqrtf(w as f32);",
    ),
    "complex": (
        [arr(inp("complex64 x"), "complex64"), arr(inp("T w"), "complex128"),
         arr(inp("float32 r"), "float32"), arr(out("T y"), "complex128"),
         arr(out("float64 m"), "float64")],
        {"T": dt("complex128")},
        "let xc: c128 = x.cast(); y = xc * w + conj(w) * 2.0 + w.exp() + w.sqrt() + (r as f64); "
        "m = y.abs() + Cast::<f64>::cast(x);",
    ),
    "bool": (
        [arr(inp("bool m"), "bool"), arr(inp("T x"), "float32"), arr(out("T y"), "float32"),
         arr(out("bool k"), "bool")],
        {"T": dt("float32")},
        "y = if m { x } else { -x }; k = m && x > 0.0;",
    ),
    "raw": (
        [raw(inp("raw T x"), "float32", 1, True), raw(inp("raw T v"), "float32", 2, False),
         scalar(inp("int32 k"), "int32"), arr(inp("T w"), "float32"),
         raw(out("raw T z"), "float32", 3, False), arr(out("T y"), "float32")],
        {"T": dt("float32")},
        "y = x[x.size() - i - 1] + v[i] + v[[0, i % v.shape()[1]]] + w + x[k] + x[0usize] + x[0];\n"
        "z[i] = y * 2.0; z[[0, 0, 0]] = 1.0;  // a trailing comment",
    ),
    "prep": (
        [arr(inp("float32 x"), "float32"), arr(out("float32 y"), "float32")],
        {},
        "acc += 1; y = sq(x) + OFFSET; if x > 0.0 { count += 1; continue; }",
    ),
}
EW_EXTRA = {
    "prep": dict(
        preamble="const OFFSET: f32 = 0.5;\n#[inline(always)]\nfn sq(v: f32) -> f32 { v * v }",
        loop_prep="let mut acc: i64 = 0; let mut count = 0i32;",
        after_loop="if acc < 0 { trap(); } let _ = count;",
    ),
}
EW_LAYOUTS = (None, 1, 2, 3)
# A C operation valid for every EW case (the CUDA generator's parameters are the same
# whatever the operation; the comparison is about the signature).
C_OPERATION = ";"


def ew_source(language, case, nd):
    slots, types, op = EW_CASES[case]
    kw = dict(preamble="", loop_prep="", after_loop="")
    kw.update(EW_EXTRA.get(case, {}))
    if language == "cuda":
        kw = dict(preamble="", loop_prep="", after_loop="")
        op = C_OPERATION
    gen = _rust_source.elementwise if language == "rust" else _cuda_source.elementwise
    return gen(name=f"ew_{case}", slots=slots, operation=op, types=types, nd=nd, **kw)


def ew_param_sizes(case, nd):
    """The layout's parameter sizes, from _cuda_source's docstring."""
    slots, _, _ = EW_CASES[case]
    sizes, arrays = [], 0
    for p, kind, adt, rnd, _ in slots:
        if kind == "array":
            sizes.append(8)
            arrays += 1
        elif kind == "raw":
            sizes.append(16 + 16 * max(rnd, 1))
        else:
            sizes.append(adt.itemsize)
    sizes.append(8)
    if nd is not None:
        sizes += [8 * nd] * (1 + arrays)
    return sizes


# name -> (slots, outs, map, reduce, post_map, identity, reduce_type, types, preamble)
RED_CASES = {
    "sum_squares": (
        [arr(inp("T x"), "float32")], [(out("T y"), dt("float32"))],
        "x * x", "a + b", "y = a;", "0", "T", {"T": dt("float32")}, "",
    ),
    "l2norm": (
        [arr(inp("T x"), "float64")], [(out("T y"), dt("float64"))],
        "x * x", "a + b", "y = a.sqrt(); y = sqrt(a)", 0, "T", {"T": dt("float64")}, "",
    ),
    "max_no_identity": (
        [arr(inp("T x"), "int16")], [(out("T y"), dt("int16"))],
        "x", "max(a, b)", "y = a;", None, "T", {"T": dt("int16")}, "",
    ),
    "fmin_no_identity": (
        [arr(inp("T x"), "float32")], [(out("T y"), dt("float32"))],
        "x", "min(a, b)", "y = a;", None, "T", {"T": dt("float32")}, "",
    ),
    "reduce_type_f64": (
        [arr(inp("float32 x"), "float32")], [(out("float32 y"), dt("float32"))],
        "x", "a + b", "y = a as f32;", "0", "float64", {}, "",
    ),
    "reduce_type_c_double": (
        [arr(inp("T x"), "float32")], [(out("T y"), dt("float32"))],
        "x * x", "a + b", "y = a.cast();", "0.0", "double", {"T": dt("float32")}, "",
    ),
    "count_long_long": (
        [arr(inp("T x"), "float32")], [(out("int64 y"), dt("int64"))],
        "x > 0.0", "a + b", "y = a;", "0", "long long", {"T": dt("float32")}, "",
    ),
    "complex_sum": (
        [arr(inp("T x"), "complex64")], [(out("T y"), dt("complex64")), (out("float32 m"), dt("float32"))],
        "x * conj(x) + x", "a + b", "y = a; m = a.abs();", "c64::ZERO", "T",
        {"T": dt("complex64")}, "",
    ),
    "half_in_f32": (
        [arr(inp("T x"), "float16")], [(out("T y"), dt("float16"))],
        "x", "a + b", "y = a as f16;", "0", "float32", {"T": dt("float16")}, "",
    ),
    "bool_any": (
        [arr(inp("bool x"), "bool")], [(out("bool y"), dt("bool"))],
        "x", "a || b", "y = a;", "false", "bool", {}, "",
    ),
    "max_neg_inf": (
        [arr(inp("T x"), "float64")], [(out("T y"), dt("float64"))],
        "x", "max(a, b)", "y = a;", float("-inf"), "T", {"T": dt("float64")}, "",
    ),
    "min_inf_text": (
        [arr(inp("T x"), "float32")], [(out("T y"), dt("float32"))],
        "x", "fminf(a, b)", "y = a;", "inf", "T", {"T": dt("float32")}, "",
    ),
    "big_int_identity": (
        [arr(inp("T x"), "int64")], [(out("T y"), dt("int64"))],
        "x", "min(a, b)", "y = a;", 2**63 - 1, "T", {"T": dt("int64")}, "",
    ),
    # Several inputs (a broadcast one among them), a raw parameter and scalars, two
    # outputs: every part of the parameter list at once.
    "mixed": (
        [arr(inp("T x"), "float32"), arr(inp("float64 w"), "float64"),
         raw(inp("raw T t"), "float32", 2, False), scalar(inp("T s"), "float32"),
         scalar(inp("int32 k"), "int32")],
        [(out("T y"), dt("float32")), (out("float64 z"), dt("float64"))],
        "(x * s) as f64 * w + t[k] as f64 + t[[0, 0]] as f64", "a + b",
        "y = a as f32 + t[0] + s; z = a * 2.0;", "0", "float64", {"T": dt("float32")}, "",
    ),
    # A reduce_type of the preamble: a Copy struct; Cast from the mapped value is the
    # user's (Cast is the generated header's trait, so the crate may implement it).
    "struct_range": (
        [arr(inp("T x"), "float32")], [(out("T y"), dt("float32"))],
        "Range { lo: x, hi: x }", "Range { lo: min(a.lo, b.lo), hi: max(a.hi, b.hi) }",
        "y = a.hi - a.lo;", None, "Range", {"T": dt("float32")},
        "#[derive(Clone, Copy)]\npub struct Range { lo: f32, hi: f32 }",
    ),
}
RED_LAYOUTS = ((1, 1), (1, 3), (2, 1), (3, 2))


def red_source(language, case, ndo, ndr):
    slots, outs, m, r, post, ident, rt, types, preamble = RED_CASES[case]
    if language == "cuda":
        # The same signature in C (the parameter list does not depend on the code).
        m, r, post, preamble = "0", "a", ";", ""
        if ident is not None:
            ident = "0"
        if rt == "Range":
            rt = "float"
    gen = _rust_source.reduction if language == "rust" else _cuda_source.reduction
    return gen(name=f"red_{case}", slots=slots, outs=outs, map_expr=m, reduce_expr=r,
               post_map_expr=post, identity=ident, reduce_type=rt, preamble=preamble,
               types=types, ndo=ndo, ndr=ndr)


def red_param_sizes(case, ndo, ndr):
    slots, outs = RED_CASES[case][:2]
    sizes, arrays = [], 0
    for p, kind, adt, rnd, _ in slots:
        if kind == "array":
            sizes.append(8)
            arrays += 1
        elif kind == "raw":
            sizes.append(16 + 16 * max(rnd, 1))
        else:
            sizes.append(adt.itemsize)
    sizes += [8] * len(outs)
    sizes += [8, 8, 8, 8]  # _n_out, _n_red, _chunk, _partial
    sizes += [8 * ndo, 8 * ndr] + [8 * ndo, 8 * ndr] * arrays + [8 * ndo] * len(outs)
    return sizes


# ---------------------------------------------------------------------------------------
# PTX parameter lists.

_PARAM_SIZE = {"8": 1, "16": 2, "32": 4, "64": 8}


def ptx_params(ptx):
    """{entry: [parameter size in bytes]} of a PTX module."""
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    out = {}
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*\(([^)]*)\)", text):
        sizes = []
        for decl in m.group(2).split(","):
            decl = decl.strip()
            if not decl:
                continue
            arr_ = re.search(r"\.b8\s+[\w$]+\[(\d+)\]", decl)
            if arr_:
                sizes.append(int(arr_.group(1)))
                continue
            bits = re.search(r"\.[usbf](8|16|32|64)\b", decl)
            assert bits, f"unparsed parameter: {decl}"
            sizes.append(_PARAM_SIZE[bits.group(1)])
        out[m.group(1)] = sizes
    return out


# ---------------------------------------------------------------------------------------
# NVRTC through ctypes (CUDA C to PTX: no GPU and no extension function needed).


def _load_nvrtc():
    for path in _nvrtc.library_candidates():
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


_NVRTC = _load_nvrtc()
needs_nvrtc = pytest.mark.skipif(_NVRTC is None, reason="NVRTC not found (pip install nvidia-cuda-nvrtc-cu12)")


def nvrtc_ptx(source, name):
    lib = _NVRTC
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None) == 0
    try:
        opts = [b"-arch=compute_90"]
        rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        n = ctypes.c_size_t()
        if rc != 0:
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
            log = ctypes.create_string_buffer(n.value)
            lib.nvrtcGetProgramLog(prog, log)
            raise AssertionError(f"NVRTC failed on the C generator's source:\n{log.value.decode()}")
        lib.nvrtcGetPTXSize(prog, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        lib.nvrtcGetPTX(prog, buf)
        return buf.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


# ---------------------------------------------------------------------------------------
# Fixtures.


@pytest.fixture(scope="module")
def rust_env(tmp_path_factory):
    """A private kernel cache and Rust build folder for the module (``core`` is built
    once for all of its tests)."""
    root = tmp_path_factory.mktemp("rust_source")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPUPY_CACHE_DIR", str(root / "cache"))
        mp.setenv("GPUPY_RUST_BUILD_DIR", str(root / "build"))
        mp.delenv("GPUPY_RUSTC", raising=False)
        _cache.clear_memory()
        yield root
    _cache.clear_memory()


def compile_rust(source, name):
    try:
        return _rustc.compile_rust_module(source, (), name)
    except CompileException as e:
        pytest.fail(f"generated Rust does not compile:\n{e.log}")


# ---------------------------------------------------------------------------------------
# Without a toolchain.


@pytest.mark.parametrize(
    "dtype, want",
    [("bool", "bool"), ("int8", "i8"), ("int16", "i16"), ("int32", "i32"), ("int64", "i64"),
     ("uint8", "u8"), ("uint16", "u16"), ("uint32", "u32"), ("uint64", "u64"),
     ("float16", "f16"), ("float32", "f32"), ("float64", "f64"), ("complex64", "c64"),
     ("complex128", "c128")],
)
def test_rtype(dtype, want):
    assert _rust_source.rtype(numpy.dtype(dtype)) == want


def test_rtype_unsupported():
    with pytest.raises(TypeError, match="not supported"):
        _rust_source.rtype(numpy.dtype("U4"))


@pytest.mark.parametrize(
    "reduce_type, want",
    [("T", "f16"), ("float32", "f32"), ("float64", "f64"), ("complex64", "c64"),
     ("float", "f32"), ("double", "f64"), ("int", "i32"), ("long long", "i64"),
     ("unsigned  long long", "u64"), ("unsigned int", "u32"), ("f32", "f32"), ("i64", "i64"),
     ("c128", "c128"), ("bool", "bool"), ("MyAcc", "MyAcc"), (numpy.float32, "f32")],
)
def test_reduce_type_name(reduce_type, want):
    assert _rust_source.reduce_type_name(reduce_type, {"T": numpy.dtype("float16")}) == want


@pytest.mark.parametrize(
    "identity, want",
    [("0", "0"), (0, "0"), (True, "true"), (-(2**31), "-2147483648"), (2**31, "2147483648i64"),
     (2**64 - 1, "18446744073709551615u64"), (1.5, "1.5_f64"), (float("-inf"), "f64::NEG_INFINITY"),
     (float("nan"), "f64::NAN"), ("-inf", "f64::NEG_INFINITY"), (" INF ", "f64::INFINITY"),
     (1 + 2j, "c128::new(1.0_f64, 2.0_f64)"), ("f32::MAX", "f32::MAX")],
)
def test_identity_expr(identity, want):
    assert _rust_source.identity_expr(identity) == want


def test_typedefs():
    assert _rust_source.typedefs({"U": numpy.dtype("int8"), "T": numpy.dtype("complex64")}) == (
        "type T = c64;\ntype U = i8;\n"
    )


@pytest.mark.parametrize("nd", EW_LAYOUTS)
def test_elementwise_text_signature(nd):
    src = ew_source("rust", "raw", nd)
    m = re.search(r'pub unsafe extern "ptx-kernel" fn ew_raw\((.*?)\)\s*\{', src, re.S)
    assert m is not None
    # One parameter a line (commas also separate generic arguments).
    params = [p.strip().rstrip(",") for p in m.group(1).splitlines() if p.strip()]
    want = ["mut x: CArray<f32, 1, true>", "mut v: CArray<f32, 2, false>", "k: i32",
            "_p_w: *mut f32", "mut z: CArray<f32, 3, false>", "_p_y: *mut f32", "_n: i64"]
    if nd is not None:
        want += [f"_shape: _Dims<{nd}>", f"_st_w: _Dims<{nd}>", f"_st_y: _Dims<{nd}>"]
    assert params == want
    assert "type T = f32;" in src


def test_reduction_text_signature():
    src = red_source("rust", "mixed", 2, 3)
    assert re.findall(r'extern "ptx-kernel" fn (\w+)\(', src) == ["red_mixed", "red_mixed_final", "red_mixed_thread"]
    m = re.search(r'fn red_mixed\((.*?)\)\s*\{', src, re.S)
    params = [p.strip().split(":")[0].replace("mut ", "") for p in m.group(1).splitlines() if p.strip()]
    assert params == ["_p_x", "_p_w", "t", "s", "k", "_p_y", "_p_z", "_n_out", "_n_red", "_chunk",
                      "_partial", "_oshape", "_rshape", "_sto_x", "_str_x", "_sto_w", "_str_w",
                      "_sty_y", "_sty_z"]
    assert "type _type_reduce = f64;" in src


def _fn_body(src, name):
    """The text of generated function `name`, up to the next item."""
    start = src.index(f"fn {name}(")
    end = src.find("\n#[allow(", start)
    return src[start:] if end < 0 else src[start:end]


def test_elementwise_schedule_text():
    """The C generator's schedule (the host's grid depends on it): the contiguous layout
    takes UNROLL elements per thread and step, each input's loaded before the operation
    runs; the strided layout one element per thread (a grid-stride loop)."""
    u = _cuda_source.UNROLL
    src = ew_source("rust", "axpb", None)
    body = _fn_body(src, "ew_axpb")
    assert f"let _step: i64 = _bd * grid_dim_x() as i64 * {u};" in body
    assert f"let mut _b: i64 = block_idx_x() as i64 * _bd * {u} + thread_idx_x() as i64;" in body
    assert f"if _b + ({u} - 1) * _bd < _n {{" in body
    loads = [body.index(f"let _v_x{k}: f32 = *_p_x.offset((_b + {k} * _bd) as isize);") for k in range(u)]
    assert loads == sorted(loads) and loads[-1] < body.index("y = a * x + b;")
    assert body.count("y = a * x + b;") == 2  # the full step and the checked one
    assert "_GridStride" not in body
    strided = _fn_body(ew_source("rust", "axpb", 2), "ew_axpb")
    assert "for i in _GridStride::new(_n) {" in strided and "_v_x" not in strided


def test_reduction_schedule_text():
    """Both block kernels fold through `_block_fold`; `_final` is a block per output,
    its threads striding over the output's partial values."""
    src = red_source("rust", "sum_squares", 1, 1)
    assert "unsafe fn _block_fold(_acc: &mut _type_reduce, _has: &mut bool)" in src
    main, final = _fn_body(src, "red_sum_squares"), _fn_body(src, "red_sum_squares_final")
    for body in (main, final):
        assert "_block_fold(&mut _acc, &mut _has);" in body
        assert "let mut _j = block_idx_x() as i64;" in body and "_j += grid_dim_x() as i64;" in body
        assert "sync_threads" not in body  # the barriers are _block_fold's
    assert "while _kk + 3 * _bd < _k1 {" in main
    assert "let mut _c = _tid;" in final and "_c += _bd;" in final
    assert "_partial.offset((_j * _chunk + _c) as isize)" in final


# ---------------------------------------------------------------------------------------
# Compiled (the pinned toolchain).


@needs_rust
@pytest.mark.parametrize("nd", EW_LAYOUTS, ids=lambda nd: f"nd{nd}")
@pytest.mark.parametrize("case", sorted(EW_CASES))
def test_elementwise_compiles(rust_env, case, nd):
    ptx = compile_rust(ew_source("rust", case, nd), f"ew_{case}")
    assert _rustc.ptx_entries(ptx) == [f"ew_{case}"]
    assert ptx_params(ptx) == {f"ew_{case}": ew_param_sizes(case, nd)}


@needs_rust
@pytest.mark.parametrize("ndo, ndr", RED_LAYOUTS, ids=lambda v: str(v))
@pytest.mark.parametrize("case", sorted(RED_CASES))
def test_reduction_compiles(rust_env, case, ndo, ndr):
    ptx = compile_rust(red_source("rust", case, ndo, ndr), f"red_{case}")
    names = [f"red_{case}", f"red_{case}_final", f"red_{case}_thread"]
    assert sorted(_rustc.ptx_entries(ptx)) == sorted(names)
    want = red_param_sizes(case, ndo, ndr)
    assert ptx_params(ptx) == {n: want for n in names}


@needs_nvrtc
@pytest.mark.parametrize("nd", EW_LAYOUTS, ids=lambda nd: f"nd{nd}")
@pytest.mark.parametrize("case", sorted(EW_CASES))
def test_elementwise_cuda_same_layout(case, nd):
    """The C generator's kernel has the parameter sizes the Rust one is checked
    against above."""
    ptx = nvrtc_ptx(ew_source("cuda", case, nd), f"ew_{case}")
    assert ptx_params(ptx) == {f"ew_{case}": ew_param_sizes(case, nd)}


@needs_nvrtc
@pytest.mark.parametrize("ndo, ndr", RED_LAYOUTS, ids=lambda v: str(v))
@pytest.mark.parametrize("case", sorted(RED_CASES))
def test_reduction_cuda_same_layout(case, ndo, ndr):
    ptx = nvrtc_ptx(red_source("cuda", case, ndo, ndr), f"red_{case}")
    want = red_param_sizes(case, ndo, ndr)
    names = [f"red_{case}", f"red_{case}_final", f"red_{case}_thread"]
    assert ptx_params(ptx) == {n: want for n in names}


def _ptxas():
    """ptxas of the nvidia-cuda-nvcc wheel (beside the libdevice gpupy links), or on PATH."""
    try:
        libdevice = _rustc._find_libdevice()
    except RuntimeError:
        libdevice = None
    if libdevice:
        cand = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(libdevice))), "bin", "ptxas")
        if os.path.isfile(cand):
            return cand
    return shutil.which("ptxas")


@needs_rust
@pytest.mark.parametrize(
    "source",
    [("ew", "axpb", 3), ("ew", "complex", 2), ("ew", "raw", None), ("red", "sum_squares", (1, 1)),
     ("red", "mixed", (3, 2)), ("red", "struct_range", (1, 1)), ("red", "complex_sum", (2, 1))],
    ids=lambda s: f"{s[0]}_{s[1]}",
)
def test_ptxas_no_spills(rust_env, tmp_path, source):
    ptxas = _ptxas()
    if ptxas is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc-cu12)")
    kind, case, layout = source
    src = ew_source("rust", case, layout) if kind == "ew" else red_source("rust", case, *layout)
    ptx = compile_rust(src, case)
    path = tmp_path / "m.ptx"
    path.write_bytes(ptx)
    r = subprocess.run([ptxas, "-arch=sm_90", "-v", str(path), "-o", str(tmp_path / "m.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    report = r.stderr + r.stdout
    assert "bytes stack frame" in report
    # libdevice's double sin/cos argument reduction (Payne-Hanek, for huge arguments)
    # keeps a 40-byte local array, in nvcc's code as here; nothing else may use the stack.
    trig = b"__internal_trig_reduction_slowpath" in ptx
    for line in report.splitlines():
        if "stack frame" in line:
            assert re.search(r"\b0 bytes spill stores, 0 bytes spill loads", line), line
            assert trig or re.search(r"\b0 bytes stack frame", line), line


ALL_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128")


@needs_rust
def test_every_cast_compiles(rust_env):
    """Cast between every two element types, in one kernel (each one is generated code
    that LLVM must lower for the GPU: f16 from 64-bit integers, complex to bool, ...)."""
    ins = [arr(inp(f"{d} x{k}"), d) for k, d in enumerate(ALL_DTYPES)]
    outs = [arr(out(f"{d} y{k}"), d) for k, d in enumerate(ALL_DTYPES)]
    arms = ", ".join(f"{k} => x{k}.cast()" for k in range(len(ALL_DTYPES)))
    op = "\n".join(f"y{k} = match sel {{ {arms}, _ => x{k} }};" for k in range(len(ALL_DTYPES)))
    slots = ins + [scalar(inp("int32 sel"), "int32")] + outs
    src = _rust_source.elementwise(name="casts", slots=slots, operation=op, preamble="",
                                   loop_prep="", after_loop="", types={}, nd=None)
    ptx = compile_rust(src, "casts")
    assert _rustc.ptx_entries(ptx) == ["casts"]
    assert len(ptx_params(ptx)["casts"]) == 2 * len(ALL_DTYPES) + 2


@needs_rust
@pytest.mark.parametrize(
    "identity, dtype",
    [(1e300, "float64"), (-1.5, "float32"), (-(2**31), "int32"), (2**64 - 1, "uint64"),
     (-(2**63), "int64"), (1 + 2j, "complex128"), (True, "bool"), (numpy.float32(2), "float16"),
     ("nan", "float32")],
    ids=str,
)
def test_identity_compiles(rust_env, identity, dtype):
    """Python identities become Rust literals the accumulator type accepts."""
    slots = [arr(inp("T x"), dtype)]
    src = _rust_source.reduction(name="ident", slots=slots, outs=[(out("T y"), dt(dtype))],
                                 map_expr="x", reduce_expr="a", post_map_expr="y = a;",
                                 identity=identity, reduce_type="T", preamble="",
                                 types={"T": dt(dtype)}, ndo=1, ndr=1)
    assert sorted(_rustc.ptx_entries(compile_rust(src, "ident"))) == ["ident", "ident_final", "ident_thread"]


@needs_rust
def test_reduction_scalar_named_a(rust_env):
    """A scalar parameter named `a` is the mapped value's factor in map_expr; in
    post_map_expr `a` is the accumulator (the parameter is hidden there, not bound twice)."""
    slots = [arr(inp("T x"), "float32"), scalar(inp("T a"), "float32"), scalar(inp("T b"), "float32")]
    src = _rust_source.reduction(name="scaled", slots=slots, outs=[(out("T y"), dt("float32"))],
                                 map_expr="x * a + b", reduce_expr="a + b", post_map_expr="y = a * b;",
                                 identity="0", reduce_type="T", preamble="", types={"T": dt("float32")},
                                 ndo=1, ndr=1)
    ptx = compile_rust(src, "scaled")
    assert ptx_params(ptx)["scaled"] == [8, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]


@needs_rust
def test_output_must_be_assigned(rust_env):
    """An output assigned on some paths only: rustc rejects it, naming the output."""
    slots = [arr(inp("float32 x"), "float32"), arr(out("float32 y"), "float32")]
    src = _rust_source.elementwise(name="partial_store", slots=slots, operation="if x > 0.0 { y = x; }",
                                   preamble="", loop_prep="", after_loop="", types={}, nd=None)
    with pytest.raises(CompileException) as e:
        _rustc.compile_rust_module(src, (), "partial_store")
    assert "`y`" in e.value.log and "initialized" in e.value.log


@needs_rust
def test_reduction_post_map_must_assign(rust_env):
    slots = [arr(inp("T x"), "float32")]
    src = _rust_source.reduction(name="nopost", slots=slots, outs=[(out("T y"), dt("float32"))],
                                 map_expr="x", reduce_expr="a + b", post_map_expr="", identity="0",
                                 reduce_type="T", preamble="", types={"T": dt("float32")}, ndo=1, ndr=1)
    with pytest.raises(CompileException) as e:
        _rustc.compile_rust_module(src, (), "nopost")
    assert "`y`" in e.value.log
