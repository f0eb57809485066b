"""gpupy provides NumPy 2's public namespace: every public name of ``numpy`` (and of the
submodules gpupy mirrors: ``linalg``, ``fft``, ``random``, and ``testing``'s assertions)
exists in gpupy, except the deliberate omissions below, each with its reason. Runs
without a GPU: it only looks names up.

The reference is the installed NumPy's ``dir()``, so a NumPy release that adds a name
makes this test name it: gpupy then adds it or lists it here with a reason."""

import numpy as np
import pytest

import gpupy as gp

# Deliberate omissions from the top-level namespace: names gpupy does not provide, by
# design. Not a to-do list: a name gpupy merely lacks so far is not here (the test names it).
OMITTED = {
    # datetime64 / timedelta64 and business days: gpupy arrays hold no datetime dtypes
    # (the type names themselves are provided; creating such an array raises TypeError).
    "busday_count": "datetime dtypes are not supported on the GPU",
    "busday_offset": "datetime dtypes are not supported on the GPU",
    "busdaycalendar": "datetime dtypes are not supported on the GPU",
    "is_busday": "datetime dtypes are not supported on the GPU",
    "datetime_as_string": "datetime dtypes are not supported on the GPU",
    "datetime_data": "datetime dtypes are not supported on the GPU",
    "isnat": "defined for datetime dtypes only, which gpupy arrays cannot hold",
    # String, structured and record arrays: no str_/bytes_/void dtypes on the GPU.
    "char": "string arrays (numpy.char): no string dtypes on the GPU",
    "strings": "string ufuncs (numpy.strings): no string dtypes on the GPU",
    "rec": "record arrays: no structured dtypes on the GPU",
    "recarray": "record arrays: no structured dtypes on the GPU",
    "record": "record scalars: no structured dtypes on the GPU",
    "fromregex": "always returns a structured array (NumPy requires a structured dtype): no structured dtypes on the GPU",
    # Array subclasses and host-memory objects.
    "ma": "masked arrays are a NumPy ndarray subclass (CuPy omits them too)",
    "matrix": "the matrix subclass, discouraged by NumPy itself (CuPy omits it too)",
    "asmatrix": "returns the matrix subclass (see matrix)",
    "bmat": "returns the matrix subclass (see matrix)",
    "memmap": "a file-backed host-memory array; GPU memory cannot be memory-mapped",
    "ctypeslib": "ctypes views of host memory (numpy.ctypeslib)",
    # Element-by-element iteration on the host: each element would be a device read.
    "nditer": "an element iterator over host memory (CuPy omits it too)",
    "nested_iters": "an element iterator over host memory (see nditer)",
    "ndenumerate": "iterates over the values one by one on the host (see nditer)",
    "flatiter": "the type of NumPy's ndarray.flat, a host element iterator",
    # Python functions per element: gpupy has no compiler from Python to GPU kernels.
    "vectorize": "calls a Python function per element; gpupy cannot run Python on the GPU",
    "frompyfunc": "makes a ufunc from a Python function (see vectorize)",
    # NumPy's build, packaging and tooling.
    "show_config": "NumPy's build configuration (BLAS, compilers): not gpupy's",
    "show_runtime": "NumPy's runtime (SIMD, threadpool) information: not gpupy's",
    "get_include": "the path of NumPy's C headers, for C extensions against NumPy",
    "f2py": "NumPy's Fortran wrapper generator",
    "test": "runs NumPy's own test suite",
    "info": "NumPy's documentation printer (numpy.info works on gpupy's objects)",
    "typing": "static type aliases (ArrayLike, NDArray) that describe NumPy arrays",
    "core": "NumPy 2's deprecated alias of its private numpy._core",
    # The numpy.polynomial package: six series families (power, Chebyshev, Legendre,
    # Laguerre, Hermite, HermiteE), about 200 functions and their classes; beyond issue
    # 21's list, which asks for the legacy poly1d/polyval/polyfit/roots family (provided).
    "polynomial": "the numpy.polynomial package (series classes and their ~200 functions); the legacy poly1d family is provided",
}

# Submodules gpupy mirrors, and their deliberate omissions.
SUBMODULE_OMITTED = {
    "linalg": {"test": "runs NumPy's own test suite"},
    "fft": {"test": "runs NumPy's own test suite"},
    "emath": {},
    "random": {
        "test": "runs NumPy's own test suite",
        "mtrand": "the module of NumPy's Cython legacy generator (its names are random's own)",
        "bit_generator": "the module of NumPy's Cython BitGenerator base (random.BitGenerator is here)",
        "MT19937": "NumPy's sequential legacy generator: gpupy's RandomState runs on PCG64 (random/_legacy.py)",
        "PCG64DXSM": "needs a GPU kernel of its own: the PCG64 kernel computes XSL-RR outputs, not DXSM's (Rust)",
        "SFC64": "a sequential generator without jump-ahead: its stream cannot be split over GPU threads, and no kernel exists",
    },
}


def public_names(module):
    return sorted(n for n in dir(module) if not n.startswith("_"))


def test_every_numpy_name_is_in_gpupy():
    missing = [n for n in public_names(np) if n not in OMITTED and not hasattr(gp, n)]
    assert not missing, f"NumPy {np.__version__} names gpupy lacks ({len(missing)}): {' '.join(missing)}"


@pytest.mark.parametrize("sub", sorted(SUBMODULE_OMITTED))
def test_every_numpy_submodule_name_is_in_gpupy(sub):
    omitted = SUBMODULE_OMITTED[sub]
    ours = getattr(gp, sub)
    missing = [n for n in public_names(getattr(np, sub)) if n not in omitted and not hasattr(ours, n)]
    assert not missing, f"numpy.{sub} names gpupy.{sub} lacks ({len(missing)}): {' '.join(missing)}"


def test_every_numpy_testing_assertion_is_in_gpupy_testing():
    # numpy.testing's other names are its own test machinery (IS_PYPY, suppress_warnings,
    # rundocs, ...): gpupy.testing provides the assertions.
    import numpy.testing

    missing = [n for n in public_names(numpy.testing) if n.startswith("assert") and not hasattr(gp.testing, n)]
    # assert_array_compare is NumPy's internal engine of the others, with a comparison callback.
    missing = [n for n in missing if n != "assert_array_compare"]
    assert not missing, missing


def test_omissions_are_current():
    """An omitted name is one gpupy does not provide (a provided one must leave the list);
    a name NumPy no longer has may stay until the oldest supported NumPy drops it."""
    provided = [n for n in OMITTED if hasattr(gp, n)]
    assert not provided, f"omitted but provided: {provided}"
    for sub, omitted in SUBMODULE_OMITTED.items():
        provided = [n for n in omitted if hasattr(getattr(gp, sub), n)]
        assert not provided, f"gpupy.{sub}: omitted but provided: {provided}"
    assert all(reason.strip() for reason in OMITTED.values())


# Public names of gpupy beyond the installed NumPy's: CuPy's GPU-specific ones, and NumPy
# names that newer NumPy releases removed (gpupy keeps them for code written for NumPy 2.x).
NOT_NUMPY = {
    "asnumpy": "CuPy's device-to-host copy",
    "cuda": "CuPy's device, stream, event and memory API",
    "config": "process-wide switches (TF32), as CuPy's environment variables",
    "get_default_memory_pool": "CuPy's memory pool",
    "get_default_pinned_memory_pool": "CuPy's pinned memory pool",
    "MemoryPool": "CuPy's memory pool class",
    "bfloat16": "ml_dtypes' bfloat16, where ml_dtypes is installed",
    "in1d": "deprecated by NumPy 2.0 and removed in 2.4 (isin); issue 21 asks for it",
    "RawModule": "CuPy's user kernel modules (issue 18)",
    "RawKernel": "CuPy's user kernels from source",
    "ElementwiseKernel": "CuPy's user elementwise kernels",
    "ReductionKernel": "CuPy's user reductions",
    "memoize": "CuPy's memoizing decorator for kernel factories",
    "clear_memo": "CuPy's switch emptying memoize's caches",
}


def test_no_names_beyond_numpy_and_cupy():
    """gpupy's public names are NumPy's, plus CuPy's GPU-specific ones: nothing private
    leaks (a module imported without an underscore, a helper function)."""
    extra = [n for n in public_names(gp) if not hasattr(np, n) and n not in NOT_NUMPY]
    assert not extra, f"public names of gpupy that are neither NumPy's nor CuPy's: {extra}"
    assert "numpy" not in dir(gp) and "zeros_like_float" not in dir(gp)


def test_all_lists_the_public_names():
    """``gpupy.__all__`` is exactly the public namespace (so ``from gpupy import *`` is
    NumPy's namespace), without duplicates."""
    public = set(public_names(gp))
    listed = set(gp.__all__)
    assert len(gp.__all__) == len(listed)
    assert listed - public <= {"__array_api_version__", "__array_namespace_info__"}
    assert public - listed == set(), public - listed
