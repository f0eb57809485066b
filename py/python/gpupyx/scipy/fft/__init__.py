"""``scipy.fft`` on gpupy arrays, under CuPy's ``cupyx.scipy.fft`` names.

    import gpupy as gp
    import gpupyx.scipy.fft as fft_gpu

    y = fft_gpu.fftn(gp.asarray(image))          # as scipy.fft.fftn(image)
    c = fft_gpu.dct(gp.asarray(signal), norm="ortho")

Signatures, dtypes (float32 stays single precision), errors and messages are SciPy's;
``plan=`` and ``get_fft_plan`` are CuPy's. The FFTs are ``gpupy.fft``'s kernels; the
DCTs and DSTs are built from them and elementwise kernels (``_realtransforms``).
``workers`` and ``overwrite_x`` are accepted (``workers`` checked as SciPy checks it)
and have no effect. SciPy's ``__ua_*__`` backend protocol is not provided.
"""

from gpupy.fft import fftfreq, fftshift, ifftshift, rfftfreq
from gpupyx.scipy.fft._fft import (
    fft,
    fft2,
    fftn,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftn,
)
from gpupyx.scipy.fft._helper import next_fast_len
from gpupyx.scipy.fft._plan import get_fft_plan
from gpupyx.scipy.fft._realtransforms import dct, dctn, dst, dstn, idct, idctn, idst, idstn

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn",
    "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
    "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
    "dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn",
    "next_fast_len", "get_fft_plan",
]
