"""Users' own kernels in Rust (issue #18, ``language='rust'``): the tutorial programs of
``test_userkernel.py`` written in Rust (``saxpy``, ``my_add``, ``add_arrays`` as
``RawKernel``/``RawModule``), NumPy and Python scalars as kernel parameters, dynamic
shared memory, and ``ElementwiseKernel``/``ReductionKernel`` with ``language='rust'``
(``axpb``, ``squared_diff``, ``l2norm``, ``sum_squares``, raw parameters, ``size=``,
several outputs, every reduction schedule), compared with NumPy under the bounds of
``userkernel_checks.py``.

Where the modules come from. The GPU machines have no Rust toolchain: there, every
Rust module must already be in the kernel cache folder (``GPUPY_CACHE_DIR``), filled on
a machine with the toolchain by ``scripts/prebuild_rust_kernels.py`` from
``userkernel_cases.py``, which declares every Rust kernel and call made here. A test
whose module is neither buildable nor cached skips and says so (run pytest with ``-rs``
to see the reasons); ``test_cases_are_prebuildable`` (no GPU) checks that the cases
generate. After each generated-kernel call, the kernel object must hold the module the
case's ``plan`` named: the prebuilt cache and the calls cannot drift apart unnoticed.
"""

import uuid

import numpy as np
import pytest

import gpupy as gp
from gpupy._userkernel import _cache, _rustc
from gpupy._userkernel._elementwise import ArraySpec
from helpers import assert_equal_to_numpy, random_array
from userkernel_cases import (
    CASES,
    RUST_REVERSE_SHARED,
    RUST_SCALARS,
    RUST_SOURCES,
    RUST_TUTORIAL,
    Arr,
    case_calls,
)
from userkernel_checks import (
    Interface,
    assert_axpb_close,
    assert_l2norm_close,
    assert_squared_diff,
    assert_sum_close,
)

HAVE_RUST, RUST_REASON = _rustc.rust_toolchain_available()
CompileException = gp.cuda.compiler.CompileException
gpu = pytest.mark.gpu


def require_module(source, options=()):
    """Skips the test unless the Rust module of ``source`` can be had: built here (a
    toolchain), or found in the kernel cache."""
    if HAVE_RUST:
        return
    if _cache.lookup("rust", _rustc.rust_key_parts(source, options)) is not None:
        return
    pytest.skip(
        f"Rust module not in the kernel cache at {_cache.cache_dir()} and no Rust toolchain "
        f"here ({RUST_REASON.splitlines()[0]}): run `python scripts/prebuild_rust_kernels.py` "
        "with the same GPUPY_CACHE_DIR on a machine with Rust, and carry the folder"
    )


# ---------------------------------------------------------------------------------------
# No GPU: the declared cases generate, so the prebuild script can compile them.


def test_cases_are_prebuildable():
    """Every case's every call plans without a GPU (the prebuild script's first step),
    and the Rust sources the tests build are the ones the script compiles."""
    for case in CASES:
        k = case.make(gp)
        assert k.language == "rust"
        for call in case.calls:
            args, kwargs = call.layouts()
            p = k.plan(*args, **kwargs)
            assert p is not None, (case.name, call)
            assert f'extern "ptx-kernel" fn {case.name}(' in p.source
    assert RUST_SOURCES["tutorial"][0] is RUST_TUTORIAL
    for name, (source, options) in RUST_SOURCES.items():
        assert isinstance(source, str) and options == (), name


def test_layouts_have_numpys_strides():
    """A plan's default layout for an allocated output is C order with NumPy's strides
    (what ``gpupy.empty`` gives), and a NumPy view stands for the gpupy view."""
    for shape in [(), (5,), (3, 4), (2, 1, 6), (7, 1)]:
        for dt in (np.float32, np.complex128, np.int8, np.bool_):
            a = np.empty(shape, dt)
            spec = ArraySpec(shape, dt)
            assert (spec.shape, spec.dtype, spec.strides, spec.ndim, spec.size) == \
                (a.shape, a.dtype, a.strides, a.ndim, a.size)
            if a.ndim:
                assert ArraySpec.like(a.T[::-1]).strides == a.T[::-1].strides
    k = gp.ElementwiseKernel("T x, T y", "T z", "z = x + y", "plan_add")
    x = np.empty((5, 1), np.float32)
    y = np.empty((1, 7), np.float32)
    assert k.plan(x, y) == k.plan(ArraySpec.like(x), ArraySpec.like(y))
    assert k.plan(x, y).key[0] == 2  # broadcasting: a strided 2-D walk
    assert k.plan(np.empty(10, np.float32), 1.5).key[0] is None  # contiguous
    assert k.plan(np.empty(0, np.float32), 1.5) is None  # nothing to launch
    with pytest.raises(TypeError, match="Type is mismatched"):
        k.plan(x, np.empty(3, np.float64))


def test_missing_toolchain_and_cache_says_what_to_install():
    """Without a toolchain, a Rust module missing from the cache raises a RuntimeError
    with the install command, at construction (no GPU needed)."""
    if HAVE_RUST:
        pytest.skip("a Rust toolchain is installed here: the error path cannot be reached")
    src = RUST_TUTORIAL + f"\n// {uuid.uuid4().hex}\n"
    with pytest.raises(RuntimeError, match="rustup toolchain install"):
        gp.RawKernel(src, "saxpy", language="rust")


# ---------------------------------------------------------------------------------------
# RawKernel / RawModule in Rust


@pytest.fixture(scope="module")
def tutorial():
    require_module(RUST_TUTORIAL)
    return gp.RawModule(code=RUST_TUTORIAL, language="rust")


@gpu
def test_rust_saxpy_tutorial(rng, tutorial):
    """As the CUDA C tutorial: a Python float 2.0 arrives as a double and ``a: f32``
    reads its first four bytes (zeros): ``out = 0 * x + y = y``, as under CuPy;
    ``numpy.float32(2.0)`` gives ``2 x + y`` (``2 x`` exact: NumPy's bits)."""
    require_module(RUST_TUTORIAL)
    saxpy = gp.RawKernel(RUST_TUTORIAL, "saxpy", language="rust")
    n = 100003
    threads = 128
    blocks = (n + threads - 1) // threads
    x = random_array(rng, n, np.float32)
    y = random_array(rng, n, np.float32)
    gx, gy = gp.asarray(x), gp.asarray(y)
    out = gp.empty(n, np.float32)
    saxpy((blocks,), (threads,), (2.0, gx, gy, out, n))
    assert_equal_to_numpy(out, y)
    saxpy((blocks,), (threads,), (np.float32(2.0), gx, gy, out, n))
    assert_equal_to_numpy(out, np.float32(2.0) * x + y)
    a = np.float32(rng.uniform(-3, 3))
    tutorial.get_function("saxpy")(blocks, threads, (a, Interface(gx), gy, out, np.uint64(n)))
    assert_axpb_close(out.get(), a, x, y, "rust saxpy")
    assert saxpy.num_regs > 0 and saxpy.max_threads_per_block > 0
    assert set(saxpy.attributes) >= {"num_regs", "max_dynamic_shared_size_bytes"}


@gpu
def test_rust_my_add_and_add_arrays(rng, tutorial):
    x1 = random_array(rng, (5, 5), np.float32)
    x2 = random_array(rng, (5, 5), np.float32)
    y = gp.zeros((5, 5), dtype=np.float32)
    my_add = gp.RawKernel(RUST_TUTORIAL, "my_add", language="rust")
    my_add((5,), (5,), (gp.asarray(x1), gp.asarray(x2), y))
    assert_equal_to_numpy(y, x1 + x2)
    n = 100003
    a = random_array(rng, n, np.float32)
    b = random_array(rng, n, np.float32)
    out = gp.empty(n, np.float32)
    tutorial.get_function("add_arrays")((64,), (256,), (gp.asarray(a), gp.asarray(b), out, n))
    assert_equal_to_numpy(out, a + b)


SCALAR_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float16,
                np.float32, np.float64, np.bool_, np.complex64, np.complex128]


@gpu
def test_rust_scalar_parameters(rng):
    """NumPy scalars reach ``i8 ... u64, f16, f32, f64, bool, c64, c128`` parameters as
    their bytes; Python int, float, complex, bool reach ``i64, f64, c128, bool``."""
    require_module(RUST_SCALARS)
    mod = gp.RawModule(code=RUST_SCALARS, language="rust")
    values = [random_array(rng, (), t)[()] for t in SCALAR_TYPES]
    want = b"".join(v.tobytes() for v in values)
    out = gp.zeros(len(want), np.uint8)
    mod.get_function("scalars")(1, 1, (*values, out))
    assert out.get().tobytes() == want
    i = int(rng.integers(-(2**62), 2**62))
    f = float(rng.uniform(-1e300, 1e300))
    z = complex(rng.uniform(-5, 5), rng.uniform(-5, 5))
    b = bool(rng.integers(0, 2))
    want = np.int64(i).tobytes() + np.float64(f).tobytes() + np.complex128(z).tobytes() + np.bool_(b).tobytes()
    out = gp.zeros(len(want), np.uint8)
    mod.get_function("python_scalars")((1,), (1,), (i, f, z, b, out))
    assert out.get().tobytes() == want


@gpu
def test_rust_dynamic_shared_memory(rng, pool_baseline):
    require_module(RUST_REVERSE_SHARED)
    k = gp.RawKernel(RUST_REVERSE_SHARED, "reverse_shared", language="rust")
    n = 16384  # 64 KiB of floats, above the default 48 KiB
    x = random_array(rng, n, np.float32)
    gx = gp.asarray(x)
    y = gp.zeros(n, np.float32)
    with pytest.raises(ValueError, match="max_dynamic_shared_size_bytes"):
        k((1,), (1024,), (gx, y, np.int32(n)), shared_mem=4 * n)
    k.max_dynamic_shared_size_bytes = 4 * n
    k((1,), (1024,), (gx, y, np.int32(n)), shared_mem=4 * n)
    assert_equal_to_numpy(y, x[::-1])
    del gx, y


def test_rust_compile_error():
    """rustc's diagnostics in a CompileException (needs the toolchain: a failure is
    never cached). No GPU: compiling loads nothing."""
    if not HAVE_RUST:
        pytest.skip(f"no Rust toolchain: {RUST_REASON.splitlines()[0]}")
    src = '#[unsafe(no_mangle)]\npub unsafe extern "ptx-kernel" fn broken(x: *mut f32) {\n    *x = undefined_name;\n}\n'
    with pytest.raises(CompileException) as info:
        gp.RawKernel(src, "broken", language="rust")
    assert info.value.backend == "rustc"
    assert "undefined_name" in info.value.get_message()


# ---------------------------------------------------------------------------------------
# ElementwiseKernel / ReductionKernel in Rust: every declared call.

CASE_CALLS, CASE_IDS = case_calls(CASES)


def _arguments(call, rng):
    """(host args, device args, host kwargs, device kwargs) of a call: each ``Arr``
    filled with fresh random data, its view taken of the NumPy data and of its copy on
    the GPU."""
    def one(v):
        if not isinstance(v, Arr):
            return v, v
        base, view = v.host(rng)
        return view, v.apply(gp.asarray(base))

    pairs = [one(a) for a in call.args]
    kw = {k: one(v) for k, v in call.kwargs.items()}
    return ([h for h, _ in pairs], [d for _, d in pairs], {k: h for k, (h, _) in kw.items()},
            {k: d for k, (_, d) in kw.items()})


def _scalar(v, dtype):
    return v if isinstance(v, np.ndarray) else np.asarray(v).astype(dtype)[()]


def check_result(name, got, h, kw, dev_args):
    """``got`` against NumPy for the case ``name`` on host arguments ``h``."""
    if name == "axpb":
        x, a, b = h[:3]
        if len(h) == 4:
            assert got is dev_args[3]
        assert_axpb_close(got.get(), np.float32(a), x, np.float32(b), "rust axpb")
    elif name == "squared_diff":
        x, y = h
        y = _scalar(y, x.dtype)
        assert_squared_diff(got, x, y, float16_exact=True)
    elif name == "copy_generic":
        assert_equal_to_numpy(got, np.ascontiguousarray(h[0]))
    elif name == "add_reverse":
        x, y = h
        assert_equal_to_numpy(got, x + y[::-1])
    elif name == "reverse_raw":
        assert_equal_to_numpy(got, np.ascontiguousarray(h[0]).ravel()[: kw["size"]][::-1])
    elif name == "iota":
        assert_equal_to_numpy(got, h[0] + np.arange(kw["size"], dtype=np.int64))
    elif name == "sum_diff":
        x, y = h
        s, d = got
        assert_equal_to_numpy(s, x + y)
        assert_equal_to_numpy(d, x - y)
    elif name == "l2norm":
        assert_l2norm_close(got, h[0], kw.get("axis"), kw.get("keepdims", False))
    elif name in ("sum_squares", "sum_squares64"):
        x = h[0]
        assert got.shape == () and got.dtype == (np.float32 if name == "sum_squares" else np.float64)
        if np.all(x == np.round(x)):  # small integers: exact in any order
            assert_equal_to_numpy(got, np.sum((x * x).astype(got.dtype)))
        elif name == "sum_squares":
            assert_sum_close(got, x.astype(np.float64) ** 2, x.size, np.float32)
        else:
            assert_sum_close(got, (x * x).astype(np.float64), x.size, np.float64)
    elif name == "my_max":
        assert_equal_to_numpy(got, np.max(h[0], axis=kw.get("axis")))
    elif name == "my_sum":
        x = h[0]
        assert_equal_to_numpy(got, np.sum(x, axis=kw.get("axis"), dtype=x.dtype))
    else:
        raise AssertionError(f"no reference for case {name}")


@gpu
@pytest.mark.parametrize("case,call", CASE_CALLS, ids=CASE_IDS)
def test_rust_generated_kernel(rng, case, call):
    k = case.make(gp)
    args, kwargs = call.layouts()
    plan = k.plan(*args, **kwargs)
    require_module(plan.source, k.options)
    h, d, kw_h, kw_d = _arguments(call, rng)
    got = k(*d, **kw_d)
    check_result(case.name, got, h, kw_h, d)
    # The module the call loaded is the one the plan (and so the prebuild) named.
    assert (gp.cuda.Device().id, plan.key) in k._kernels, "the call's kernel signature differs from its plan's"
    assert len(k._kernels) == 1
