"""The cache of compiled user kernels: in memory, and on disk across processes.

A module compiled from source (CUDA C through NVRTC, Rust through rustc) is stored under
a key made of everything its bytes depend on: the source, the options, the compiler's
identity and the target architecture. A second call in the same process finds it in a
dict; a second process finds it on disk and compiles nothing. The folder is
``$GPUPY_CACHE_DIR``, by default ``~/.gpupy/kernel_cache``. Writes go to a temporary file
in the same folder that is then renamed over the final name (an atomic replace on POSIX),
so processes building the same kernel at once never see a half-written file.
"""

import hashlib
import os
import tempfile

_memory = {}


def cache_dir():
    """The folder of the on-disk cache (created on first write)."""
    d = os.environ.get("GPUPY_CACHE_DIR")
    if d:
        return d
    return os.path.join(os.path.expanduser("~"), ".gpupy", "kernel_cache")


def cache_key(kind, key_parts):
    """The hex digest naming a compiled module of `kind` ('nvrtc', 'rust', ...)."""
    h = hashlib.sha256(kind.encode())
    for part in key_parts:
        b = part.encode() if isinstance(part, str) else bytes(part)
        # Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def _path(kind, key):
    return os.path.join(cache_dir(), f"{kind}-{key}.bin")


def lookup(kind, key_parts):
    """The cached bytes, or None: memory first, then disk."""
    key = cache_key(kind, key_parts)
    hit = _memory.get(key)
    if hit is not None:
        return hit
    try:
        with open(_path(kind, key), "rb") as f:
            data = f.read()
    except OSError:
        return None
    _memory[key] = data
    return data


def store(kind, key_parts, data):
    """Keeps `data` in memory and on disk; a folder that cannot be written only loses
    the disk copy (a read-only home still compiles, each process on its own)."""
    key = cache_key(kind, key_parts)
    _memory[key] = data
    folder = cache_dir()
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, _path(kind, key))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError:
        pass


def cached_compile(kind, key_parts, build):
    """The compiled bytes for `key_parts`, calling `build()` only on a miss."""
    data = lookup(kind, key_parts)
    if data is None:
        data = build()
        store(kind, key_parts, data)
    return data


def clear_memory():
    """Forgets the in-memory copies (``gpupy.clear_memo``); the disk cache stays."""
    _memory.clear()


__all__ = ["cache_dir", "cache_key", "lookup", "store", "cached_compile", "clear_memory"]
