"""``gpupy.fft``: NumPy 2's ``numpy.fft`` on the GPU, and the array API's ``fft``
extension (the same functions: ``n``, ``axis``, ``s``, ``axes``, ``norm``, and
``fftfreq``/``rfftfreq`` with ``d``, ``dtype`` and ``device``).

- Transforms (``_pocketfft.py``): ``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``,
  ``ihfft`` and the two- and n-dimensional ``fft2``, ``ifft2``, ``fftn``, ``ifftn``,
  ``rfft2``, ``irfft2``, ``rfftn``, ``irfftn``: NumPy's arguments, dtypes, checks and
  messages, plus ``out=``. Inputs must be gpupy arrays, as in CuPy.
- Helpers (``_helper.py``): ``fftfreq``, ``rfftfreq``, ``fftshift``, ``ifftshift``.
- ``config``: the per-device plan cache, with CuPy's ``cupy.fft.config`` names.
- ``_plan``: the hook a plan object's ``with plan:`` builds on (see its docstring).
"""

from gpupy.fft import config
from gpupy.fft._helper import fftfreq, fftshift, ifftshift, rfftfreq
from gpupy.fft._pocketfft import (
    fft,
    fft2,
    fftn,
    hfft,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)

__all__ = [
    "fft",
    "ifft",
    "fft2",
    "ifft2",
    "fftn",
    "ifftn",
    "rfft",
    "irfft",
    "rfft2",
    "irfft2",
    "rfftn",
    "irfftn",
    "hfft",
    "ihfft",
    "fftfreq",
    "rfftfreq",
    "fftshift",
    "ifftshift",
    "config",
]
