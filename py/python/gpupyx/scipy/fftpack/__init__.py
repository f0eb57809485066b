"""``scipy.fftpack``'s FFTs on gpupy arrays, under CuPy's ``cupyx.scipy.fftpack`` names:
``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``, ``ifftn``, ``rfft``, ``irfft`` (in
fftpack's packed real layout) and CuPy's ``get_fft_plan``.

    from gpupyx.scipy import fftpack
    X = fftpack.fft(x)
    x2 = fftpack.ifft(X)
"""

from gpupyx.scipy.fft._plan import get_fft_plan
from gpupyx.scipy.fftpack._fft import fft, fft2, fftn, ifft, ifft2, ifftn, irfft, rfft

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "get_fft_plan"]
