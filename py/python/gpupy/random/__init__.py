"""``gpupy.random``: NumPy's random API on the GPU.

- ``default_rng(seed)`` and ``Generator`` (NumPy's methods; CuPy's ``dtype=`` on the
  real-valued ones) over ``PCG64`` (NumPy's bit for bit, the default) or ``Philox``
  (Philox4x32-10); ``SeedSequence`` is NumPy's own.
- The legacy API: ``RandomState`` and ``seed``, ``rand``, ``randn``, ``randint``,
  ``random``, ... on one process-wide state (``get_random_state``,
  ``set_random_state``; NumPy's ``get_bit_generator``/``set_bit_generator``).

See ``_generator.py`` for which draws equal NumPy's bit for bit.
"""

from gpupy.random._bit_generator import BitGenerator, PCG64, Philox, SeedSequence
from gpupy.random._generator import Generator, default_rng
from gpupy.random import _legacy
from gpupy.random._legacy import (
    RandomState,
    get_bit_generator,
    get_random_state,
    seed,
    set_bit_generator,
    set_random_state,
)

globals().update({name: getattr(_legacy, name) for name in _legacy._MODULE_FUNCTIONS})

__all__ = [
    "BitGenerator",
    "Generator",
    "PCG64",
    "Philox",
    "RandomState",
    "SeedSequence",
    "default_rng",
    "get_bit_generator",
    "get_random_state",
    "seed",
    "set_bit_generator",
    "set_random_state",
    *_legacy._MODULE_FUNCTIONS,
]
