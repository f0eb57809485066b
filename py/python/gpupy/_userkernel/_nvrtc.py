"""CUDA C to a cubin through NVRTC, NVIDIA's run-time compiler, loaded only when a user
compiles CUDA C (``RawKernel``, ``RawModule``, ``ElementwiseKernel``, ...).

NVRTC is found, in order, at ``$GPUPY_NVRTC_PATH``, in the ``nvidia-cuda-nvrtc`` wheels
of this Python (``pip install nvidia-cuda-nvrtc-cu12``, the ``gpupy[nvrtc]`` extra), in a
CUDA toolkit (``$CUDA_PATH``, ``/usr/local/cuda``), then by the system's library search.
The Rust extension opens the first that loads (``host/src/nvrtc.rs``).

CUDA's headers (``cooperative_groups.h``, ``cuda_fp16.h``, ...) are on the include path
when a folder of them is found (``cuda_include_dirs``), as CuPy puts them there.

``jitify=True`` (CuPy's flag, which there runs the Jitify preprocessor so that standard
C++ headers compile under NVRTC) adds ``std_headers/``: ``<cstdint>``,
``<type_traits>``, ``<limits>``, ``<utility>``, ``<algorithm>`` (min, max, clamp),
``<complex>``, ``<cmath>``, ... each including CUDA's libcu++ version (``cuda/std/...``,
from the CCCL headers found beside the runtime's) and bringing ``cuda::std`` into
``namespace std``; ``<stdint.h>``, ``<limits.h>``, ``<float.h>``, ``<stddef.h>`` too.
That covers what Jitify's built-in headers give a kernel; Jitify's other work (finding
a source's own headers) NVRTC does itself through ``-I`` options.

Source is compiled for the current GPU's real architecture (``-arch=sm_90`` on an H100),
so the driver loads the cubin without a second compilation; the cubin is cached on disk
(``_cache.py``) under the source, the options, NVRTC's version and the architecture.
"""

import glob
import os
import sys

from gpupy import _gpupy, cuda
from gpupy._userkernel import _cache
from gpupy.cuda.compiler import CompileException

_libraries = None
_version = None
_include_dirs = None


def library_candidates():
    """The NVRTC libraries to try, most specific first."""
    global _libraries
    if _libraries is not None:
        return _libraries
    found = []
    env = os.environ.get("GPUPY_NVRTC_PATH")
    if env:
        found.append(env)
    patterns = []
    for entry in sys.path:
        for sub in ("cuda_nvrtc/lib", "cu13/lib", "cu12/lib"):
            patterns.append(os.path.join(entry, "nvidia", sub, "libnvrtc.so*"))
    for root in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if root:
            patterns.append(os.path.join(root, "lib64", "libnvrtc.so*"))
    for pattern in patterns:
        for path in sorted(glob.glob(pattern), reverse=True):
            name = os.path.basename(path)
            # libnvrtc-builtins and the static-runtime ".alt" variant are not the API.
            if name.startswith("libnvrtc.so") and path not in found:
                found.append(path)
    found += ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
    _libraries = found
    return found


def cuda_include_dirs():
    """Folders of CUDA's runtime headers and of the CCCL headers they include
    (``nv/target``, ``cuda/std/...``), or () when none is found: next to the NVRTC that loads (a
    toolkit's ``include`` and, from CUDA 13, ``include/cccl``; or the
    ``nvidia-cuda-runtime`` and ``nvidia-cuda-cccl`` wheels beside the NVRTC wheel),
    else under ``$CUDA_PATH``, ``$CUDA_HOME`` or ``/usr/local/cuda``."""
    global _include_dirs
    if _include_dirs is not None:
        return _include_dirs
    _major, _minor, lib = _gpupy.nvrtc_version(library_candidates())
    roots = []
    if os.path.isabs(lib):
        roots.append(os.path.dirname(os.path.dirname(os.path.realpath(lib))))
    roots += [r for r in (os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"),
                          "/usr/local/cuda") if r]
    # The first root with both kinds of headers, else the first with the runtime's.
    chosen = None
    for root in roots:
        # <toolkit>/lib64/libnvrtc.so, or site-packages/nvidia/<package>/lib/libnvrtc.so
        wheels = os.path.dirname(root)
        headers = [os.path.join(root, "include"), os.path.join(wheels, "cuda_runtime", "include")]
        found = next((d for d in headers if _has(d, "cooperative_groups.h")), None)
        if found is None:
            continue
        cccl = [os.path.join(found, "cccl"), found, os.path.join(wheels, "cuda_cccl", "include")]
        extra = next((d for d in cccl if _has(d, "nv", "target")
                      and _has(d, "cuda", "std", "type_traits")), None)
        if extra is not None:
            chosen = (found,) if extra == found else (found, extra)
            break
        chosen = chosen or (found,)
    _include_dirs = chosen or ()
    return _include_dirs


STD_HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "std_headers")


def jitify_options():
    """The options ``jitify=True`` adds (``-I`` the standard-header shims); RuntimeError
    when no CCCL headers (libcu++) were found for them to include."""
    if not any(_has(d, "cuda", "std", "type_traits") for d in cuda_include_dirs()):
        raise RuntimeError(
            "jitify=True needs CUDA's C++ standard library headers (libcu++, part of "
            "CCCL) and none were found: install a CUDA toolkit (set CUDA_PATH) or "
            "`pip install nvidia-cuda-runtime-cu12 nvidia-cuda-cccl-cu12`"
        )
    return (f"-I{STD_HEADERS}",)


def _has(folder, *path):
    return os.path.isfile(os.path.join(folder, *path))


def version():
    """NVRTC's (major, minor); RuntimeError saying what to install when it is absent."""
    global _version
    if _version is None:
        major, minor, _path = _gpupy.nvrtc_version(library_candidates())
        _version = (major, minor)
    return _version


def current_arch():
    """The current GPU's architecture as NVRTC names it: 'sm_90' on an H100."""
    return "sm_" + cuda.Device().compute_capability


def compile_cuda(source, name, options=(), name_expressions=(), arch=None):
    """(cubin bytes, {name expression: lowered name}) for CUDA C `source`.

    Raises ``CompileException`` with NVRTC's log when the source does not compile.
    """
    arch = arch or current_arch()
    options = tuple(options)
    name_expressions = tuple(name_expressions)
    full = (f"-arch={arch}",) + options + tuple(f"-I{d}" for d in cuda_include_dirs())
    key = (source, "\0".join(full), "\0".join(name_expressions), "%d.%d" % version())

    def build():
        image, log, lowered = _gpupy.nvrtc_compile(
            library_candidates(), source, name, list(full), list(name_expressions), True
        )
        if image is None:
            raise CompileException(log, source, name, full, "nvrtc")
        # The lowered names travel with the image: a header line per expression.
        header = "".join(f"{e}\0{m}\n" for e, m in lowered).encode()
        return len(header).to_bytes(8, "little") + header + bytes(image)

    blob = _cache.cached_compile("nvrtc", key, build)
    n = int.from_bytes(blob[:8], "little")
    lowered = {}
    for line in blob[8 : 8 + n].decode().splitlines():
        expr, _, mangled = line.partition("\0")
        lowered[expr] = mangled
    return blob[8 + n :], lowered


__all__ = ["library_candidates", "cuda_include_dirs", "jitify_options", "version", "current_arch",
           "compile_cuda"]
