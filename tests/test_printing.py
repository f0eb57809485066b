"""Array and number formatting (gpupy/_printing.py): NumPy's functions on a host copy,
NumPy's print options shared with gpupy's repr. GPU-marked where arrays are made."""

import numpy as np
import pytest

import gpupy as gp
from helpers import random_array


def test_print_options_are_numpys():
    assert gp.printoptions is np.printoptions
    assert gp.set_printoptions is np.set_printoptions
    assert gp.get_printoptions is np.get_printoptions
    with gp.printoptions(precision=3):
        assert np.get_printoptions()["precision"] == 3


@pytest.mark.parametrize("value", [0.1, 1 / 3, 1e-20, -2.5e10, np.float32(0.1), np.float16(3.14)])
def test_format_float_matches_numpy(value):
    assert gp.format_float_positional(value) == np.format_float_positional(value)
    assert gp.format_float_positional(value, precision=4, unique=False) == np.format_float_positional(
        value, precision=4, unique=False)
    assert gp.format_float_scientific(value, exp_digits=3) == np.format_float_scientific(value, exp_digits=3)


@pytest.mark.parametrize("number", [0, 5, -5, 255, 2**40])
def test_base_and_binary_repr_match_numpy(number):
    for base in (2, 3, 16, 36):
        assert gp.base_repr(number, base) == np.base_repr(number, base)
    assert gp.base_repr(number, 7, padding=3) == np.base_repr(number, 7, padding=3)
    assert gp.binary_repr(number) == np.binary_repr(number)
    assert gp.binary_repr(number, width=48) == np.binary_repr(number, width=48)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5), (2000,)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.complex128, np.bool_])
def test_array_formatting_matches_numpy(rng, shape, dtype):
    x = random_array(rng, shape, dtype)
    g = gp.asarray(x)
    assert gp.array2string(g) == np.array2string(x)
    assert gp.array2string(g, precision=2, separator=", ", threshold=10) == np.array2string(
        x, precision=2, separator=", ", threshold=10)
    assert gp.array_repr(g) == np.array_repr(x) == repr(g)
    assert gp.array_str(g) == np.array_str(x) == str(g)
    assert gp.array_repr(g, precision=1, suppress_small=True) == np.array_repr(x, precision=1, suppress_small=True)
    if x.ndim >= 1 and x.size:
        assert gp.array_str(g[::-1]) == np.array_str(x[::-1])  # a non-contiguous view
    with gp.printoptions(precision=2, threshold=5):  # the options apply to gpupy's repr too
        assert repr(g) == repr(x)


@pytest.mark.gpu
def test_scalar_formatting_of_0d_gpupy_arrays():
    # A 0-d gpupy array formats as NumPy's scalar of its dtype (float32 0.1 is '0.1',
    # not the '0.10000000149011612' of NumPy's 0-d float32 array, formatted as a double).
    for value in (np.float16(3.14), np.float32(0.1), np.float64(1 / 3)):
        g = gp.asarray(value)
        assert gp.format_float_positional(g) == np.format_float_positional(value)
        assert gp.format_float_scientific(g) == np.format_float_scientific(value)
        assert gp.format_float_positional(g, precision=3, unique=False) == np.format_float_positional(
            value, precision=3, unique=False)
    i = gp.asarray(np.int64(-37))
    assert gp.binary_repr(i, width=8) == np.binary_repr(-37, width=8)
    assert gp.base_repr(i, 5) == np.base_repr(-37, 5)
