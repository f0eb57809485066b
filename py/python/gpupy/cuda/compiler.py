"""Errors of the run-time compilers of user kernels (CuPy's ``cupy.cuda.compiler``)."""


class CompileException(Exception):
    """A user kernel that did not compile: the compiler's log, and the source with line
    numbers (``dump``), as CuPy's. Raised for CUDA C (NVRTC) and Rust (rustc) alike."""

    def __init__(self, msg, source, name, options, backend="nvrtc"):
        self._msg = msg
        self.source = source
        self.name = name
        self.options = tuple(options)
        self.backend = backend
        super().__init__(msg)

    @property
    def log(self):
        return self._msg

    def get_message(self):
        return self._msg

    def dump(self, f):
        """Writes the failing source with line numbers to the file object `f`."""
        lines = self.source.splitlines()
        width = len(str(len(lines)))
        f.write(f"{self.backend} compilation of {self.name} failed\n")
        f.write(f"options: {' '.join(self.options)}\n")
        for i, line in enumerate(lines, 1):
            f.write(f"{i:>{width}} {line}\n")
        f.write(self._msg)

    def __reduce__(self):
        return (type(self), (self._msg, self.source, self.name, self.options, self.backend))


__all__ = ["CompileException"]
