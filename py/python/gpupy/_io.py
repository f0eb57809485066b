"""Input and output (NumPy's "Input and output"): ``load``, ``save``, ``savez``,
``savez_compressed``, ``loadtxt``, ``genfromtxt`` and ``savetxt``.

Files are read and written by NumPy on the host: a load parses into a NumPy array
and copies it to the device once; a save copies each gpupy array to the host once and
hands it to NumPy, so the files are NumPy's own formats. ``load`` of an ``.npz``
archive returns an ``NpzFile`` whose members come to the device as they are read.
"""

import pickle

import numpy

from gpupy import _methods
from gpupy._creation import asarray, asnumpy
from gpupy._gpupy import ndarray

__all__ = ["load", "save", "savez", "savez_compressed", "loadtxt", "genfromtxt", "savetxt"]


def _host(a):
    return asnumpy(a) if isinstance(a, ndarray) else a


class NpzFile:
    """A NumPy ``.npz`` archive whose arrays are returned as gpupy arrays (each read
    and copied to the device when indexed)."""

    def __init__(self, npz_file):
        self.npz_file = npz_file

    def __enter__(self):
        return self

    def __exit__(self, typ, val, traceback):
        self.npz_file.__exit__(typ, val, traceback)

    def __getitem__(self, key):
        return asarray(self.npz_file[key])

    def __contains__(self, key):
        return key in self.npz_file

    def __iter__(self):
        return iter(self.npz_file)

    def __len__(self):
        return len(self.npz_file)

    @property
    def files(self):
        return self.npz_file.files

    def keys(self):
        return self.npz_file.keys()

    def close(self):
        self.npz_file.close()


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *, max_header_size=10000):
    """The array in a ``.npy`` file as a gpupy array, or an ``NpzFile`` of an ``.npz``
    archive (read by NumPy on the host; pickled objects that are not arrays are
    returned as NumPy unpickles them).

    .. seealso:: numpy.load"""
    obj = numpy.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle, fix_imports=fix_imports,
                     encoding=encoding, max_header_size=max_header_size)
    if isinstance(obj, numpy.lib.npyio.NpzFile):
        return NpzFile(obj)
    if isinstance(obj, numpy.ndarray):
        return asarray(numpy.asarray(obj))  # a memmap is read into host memory first
    return obj


def save(file, arr, allow_pickle=True):
    """``arr`` to a ``.npy`` file (NumPy's format, through a host copy).

    .. seealso:: numpy.save"""
    numpy.save(file, _host(arr), allow_pickle=allow_pickle)


def savez(file, *args, allow_pickle=True, **kwds):
    """Several arrays to an uncompressed ``.npz`` archive.

    .. seealso:: numpy.savez"""
    numpy.savez(file, *[_host(a) for a in args], allow_pickle=allow_pickle,
                **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    """Several arrays to a compressed ``.npz`` archive.

    .. seealso:: numpy.savez_compressed"""
    numpy.savez_compressed(file, *[_host(a) for a in args], allow_pickle=allow_pickle,
                           **{k: _host(v) for k, v in kwds.items()})


def _to_device(r, unpack):
    if unpack and isinstance(r, (tuple, list)):  # structured data unpacked: one array per field
        return type(r)(asarray(x) for x in r)
    return asarray(r)


def loadtxt(fname, dtype=float, comments="#", delimiter=None, converters=None, skiprows=0, usecols=None,
            unpack=False, ndmin=0, encoding=None, max_rows=None, *, quotechar=None, like=None):
    """The array NumPy parses from a text file, copied to the device.

    .. seealso:: numpy.loadtxt"""
    r = numpy.loadtxt(fname, dtype=dtype, comments=comments, delimiter=delimiter, converters=converters,
                      skiprows=skiprows, usecols=usecols, unpack=unpack, ndmin=ndmin, encoding=encoding,
                      max_rows=max_rows, quotechar=quotechar)
    return _to_device(r, unpack)


def genfromtxt(fname, dtype=float, comments="#", delimiter=None, skip_header=0, skip_footer=0, converters=None,
               missing_values=None, filling_values=None, usecols=None, names=None, excludelist=None,
               deletechars=" !#$%&'()*+,-./:;<=>?@[\\]^{|}~", replace_space="_", autostrip=False,
               case_sensitive=True, defaultfmt="f%i", unpack=None, usemask=False, loose=True,
               invalid_raise=True, max_rows=None, encoding=None, *, ndmin=0, like=None):
    """The array NumPy's ``genfromtxt`` parses from a text file (missing values filled),
    copied to the device. gpupy has no masked arrays: ``usemask=True`` is refused.

    .. seealso:: numpy.genfromtxt"""
    if usemask:
        raise NotImplementedError("gpupy has no masked arrays: genfromtxt(usemask=True) is not supported")
    r = numpy.genfromtxt(fname, dtype=dtype, comments=comments, delimiter=delimiter, skip_header=skip_header,
                         skip_footer=skip_footer, converters=converters, missing_values=missing_values,
                         filling_values=filling_values, usecols=usecols, names=names, excludelist=excludelist,
                         deletechars=deletechars, replace_space=replace_space, autostrip=autostrip,
                         case_sensitive=case_sensitive, defaultfmt=defaultfmt, unpack=unpack, usemask=False,
                         loose=loose, invalid_raise=invalid_raise, max_rows=max_rows, encoding=encoding,
                         ndmin=ndmin)
    return _to_device(r, unpack)


def savetxt(fname, X, fmt="%.18e", delimiter=" ", newline="\n", header="", footer="", comments="# ",
            encoding=None):
    """``X`` (1-d or 2-d) to a text file, as NumPy writes it (through a host copy).

    .. seealso:: numpy.savetxt"""
    numpy.savetxt(fname, _host(X), fmt=fmt, delimiter=delimiter, newline=newline, header=header, footer=footer,
                  comments=comments, encoding=encoding)


# ndarray's serialization methods, through a host copy (NumPy writes the bytes).
def _tobytes(a, order="C"):
    """``ndarray.tobytes``: the elements' bytes in `order`, read to the host."""
    return asnumpy(a).tobytes(order)


def _tofile(a, fid, sep="", format="%s"):  # noqa: A002 (NumPy's name)
    """``ndarray.tofile``: the elements written by NumPy after a host copy."""
    asnumpy(a).tofile(fid, sep, format)


def _dumps(a):
    """``ndarray.dumps``: a pickle of the array (a gpupy array again when loaded)."""
    return pickle.dumps(a, protocol=2)


def _dump(a, file):
    """``ndarray.dump``: a pickle of the array into `file` (a path or an open file)."""
    if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
        with open(file, "wb") as f:
            pickle.dump(a, f, protocol=2)
    else:
        pickle.dump(a, file, protocol=2)


_methods.attach({"tobytes": _tobytes, "tofile": _tofile, "dumps": _dumps, "dump": _dump})
