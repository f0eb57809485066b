"""Comparisons shared by the custom-kernel tests (``test_userkernel.py`` for CUDA C,
``test_userkernel_rust.py`` for Rust): the results of the tutorial programs against
NumPy, with the bounds derived in ``test_userkernel.py``'s docstring, and the pieces of
test data they need.
"""

import numpy as np

from helpers import assert_close, assert_equal_to_numpy, random_array, unit_roundoff


class Interface:
    """A foreign device array: nothing but ``__cuda_array_interface__`` (as PyTorch,
    Numba and CuPy arrays offer it), over a gpupy array it keeps alive."""

    def __init__(self, a):
        self._keep = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


def assert_axpb_close(got, a, x, b, err_msg="a*x+b"):
    """float32 ``got`` (host) is ``a * x + b`` for float32 ``a``, ``x``, ``b`` with or
    without a fused multiply-add: ``|got - exact| <= u (|a x| + |exact|)``, u = 2**-24
    (fused: ``u |exact|``; unfused: ``u |a x|`` for the product's rounding and ``u
    |exact|`` for the sum's). ``a * x`` is exact in float64 and the float64 sum within
    2**-53 relative, covered by the 2**-20 margin."""
    got = np.asarray(got)
    assert got.dtype == np.float32, f"{err_msg}: dtype {got.dtype}"
    ax = np.float64(a) * np.asarray(x, np.float64)
    exact = ax + np.asarray(b, np.float64)
    assert got.shape == exact.shape, f"{err_msg}: shape {got.shape}, want {exact.shape}"
    bound = unit_roundoff(np.float32) * (np.abs(ax) + np.abs(exact)) * (1 + 2.0**-20)
    err = np.abs(got.astype(np.float64) - exact)
    bad = ~(err <= bound)
    assert not bad.any(), f"{err_msg}: {bad.sum()} elements off, worst {np.max(err - bound):.3e} beyond the bound"


def int_operands(rng, shape, dtype):
    """Integers whose ``(x - y) * (x - y)`` has no signed overflow in C++ (undefined
    behaviour there, where NumPy wraps): C++ computes in ``int`` for types narrower than
    ``int`` and in the type itself otherwise, so signed types and uint16 take values
    below 2**(bits/2 - 2) in magnitude; uint8 (promoted to int, at most 255**2) and
    uint32/uint64 (unsigned arithmetic wraps as NumPy's does) take their whole range."""
    dt = np.dtype(dtype)
    if dt.kind == "u" and dt.itemsize != 2:
        return random_array(rng, shape, dt)
    bits = 8 * dt.itemsize
    lim = 2 ** (bits // 2 - 2)
    lo = 0 if dt.kind == "u" else -lim
    return np.asarray(rng.integers(lo, lim, size=shape, endpoint=True)).astype(dt)


def operands(rng, shape, dtype):
    """Operands of ``(x - y) * (x - y)`` for a C++ kernel: ``int_operands`` for integers,
    ``random_array``'s otherwise."""
    if np.dtype(dtype).kind in "iu":
        return int_operands(rng, shape, dtype)
    return random_array(rng, shape, dtype)


def assert_squared_diff(got, x, y, float16_exact=False):
    """``got`` (gpupy) is ``(x - y) * (x - y)`` of NumPy ``x``, ``y`` broadcast:

    - integers (wrapping as NumPy's), float32, float64: bit-exact;
    - float16: exact against NumPy when ``float16_exact`` (Rust's native f16 rounds each
      operation, as NumPy does); otherwise computed in float32 and rounded once (CUDA C's
      generated ``float16``): within 0.5 + 2**-13 float16 ulp of the exact value (the
      difference of two float16 values in [-1, 1) is exact in float32);
    - complex: each component ``p q -+ r s`` with or without a fused multiply-add, within
      ``2 u |x - y|**2`` of the exact square of the rounded difference."""
    dt = np.result_type(x, y)
    if dt.kind in "iu" or dt in (np.float32, np.float64) or (dt == np.float16 and float16_exact):
        assert_equal_to_numpy(got, (x - y) * (x - y))
        return
    g = got.get()
    if dt == np.float16:
        d = np.asarray(x, np.float64) - np.asarray(y, np.float64)
        assert_close(g, d * d, 0.5 + 2.0**-13, dtype=np.float16, err_msg="float16 squared_diff")
        return
    d = np.asarray(x - y).astype(np.complex128)  # the rounded difference, as both compute it
    want = d * d  # exact in complex128 up to 2**-53, far inside the bound
    assert g.dtype == dt and g.shape == want.shape, (g.dtype, g.shape, want.shape)
    bound = 2 * unit_roundoff(dt) * np.abs(d) ** 2 * (1 + 2.0**-20)
    for part in (np.real, np.imag):
        err = np.abs(part(g).astype(np.float64) - part(want))
        assert np.all(err <= bound), f"complex squared_diff: worst {np.max(err - bound):.3e} beyond the bound"


def assert_l2norm_close(got, x, axis=None, keepdims=False):
    """``got`` (gpupy) is ``sqrt(sum(x * x))``: the ``n`` rounded squares summed in any
    order are within ``n u`` relative (all terms positive), halved by the root, plus the
    root's own rounding: ``(n/2 + 1) u``, asserted at twice that, ``(n + 2) u``; NumPy's
    dtype and shape."""
    x64 = x.astype(np.float64)
    want = np.sqrt(np.sum(x64 * x64, axis=axis, keepdims=keepdims))
    g = got.get()
    assert g.dtype == x.dtype, f"dtype {g.dtype}, want {x.dtype}"
    assert g.shape == want.shape, f"shape {g.shape}, want {want.shape}"
    n = x.size // want.size if want.size else 0
    tol = (n + 2) * unit_roundoff(x.dtype)
    err = np.abs(g.astype(np.float64) - want)
    assert np.all(err <= tol * want), f"relative error {np.max(err / np.maximum(want, 1e-300)):.3e} > {tol:.3e}"


def assert_sum_close(got, terms, n_terms, accum):
    """A 0-d ``got`` is the sum of the float64 ``terms`` (all non-negative), accumulated
    in ``accum``: within ``(n + 1) u`` relative (``n`` terms in any order, plus the
    rounding of each term when the map rounds it in ``accum``'s precision), asserted at
    twice that."""
    import math

    exact = math.fsum(np.asarray(terms, np.float64).ravel().tolist())
    got = float(got.get())
    assert abs(got - exact) <= 2 * (n_terms + 1) * unit_roundoff(accum) * exact, (got, exact)


__all__ = ["Interface", "assert_axpb_close", "int_operands", "operands", "assert_squared_diff",
           "assert_l2norm_close", "assert_sum_close"]
