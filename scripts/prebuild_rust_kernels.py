#!/usr/bin/env python3
"""Compiles every Rust user kernel of the test suite and of the custom-kernel benchmark
into a kernel cache folder, on a machine with the Rust toolchain (no GPU needed), for a
GPU machine without Rust to load.

The GPU machines have no Rust toolchain: gpupy loads a Rust module there only from the
kernel cache (``GPUPY_CACHE_DIR``), under a key computed without any toolchain (source,
options, toolchain id, target architecture, device crate digest; see
``gpupy/_userkernel/_rustc.py``). The kernels and their exact calls are declared in
``tests/userkernel_cases.py``; this script builds each of them through the code path a
call takes:

- ``RawModule``/``RawKernel`` sources: ``gp.RawModule(code=..., language='rust')``,
  which compiles when it is made (``_rustc.compile_rust_module``) and loads nothing;
- ``ElementwiseKernel``/``ReductionKernel``: the kernel's ``prebuild(*args, **kw)`` with
  each argument's layout, which runs the call's own steps (placeholder binding,
  broadcasting, dimension merging, signature) up to the generated source and compiles
  it as the call would.

Usage (from the repository root, gpupy importable):

    GPUPY_CACHE_DIR=shared/kernel_cache python scripts/prebuild_rust_kernels.py
    python scripts/prebuild_rust_kernels.py --cache-dir shared/kernel_cache
    python scripts/prebuild_rust_kernels.py --check   # which are missing; no toolchain needed

then, on the GPU machine, the same folder as ``GPUPY_CACHE_DIR`` when running
``tests/test_userkernel_rust.py`` or ``benchmarks/bench_userkernel.py``.

Notes:
- Only the compiled modules (``rust-*.bin``) go to the cache folder: Rust's build folder
  (``GPUPY_RUST_BUILD_DIR``, where ``core`` is built once) defaults here to
  ``~/.gpupy/rust-build``, outside it, so the folder stays small enough to carry.
- The key includes the toolchain id: leave ``GPUPY_RUSTC`` unset (the pinned nightly)
  on both machines, or set it to the same text on both.
- The key includes a digest of gpupy's device crate: rebuild after changing
  ``gpupy/_userkernel/rust/gpupy_device`` (and the GPU machine must run the same gpupy).
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))


def modules(gp, cases):
    """(label, source, options, build) for every Rust module, each source once."""
    import userkernel_cases as uc

    seen = set()
    out = []
    for name, (source, options) in uc.RUST_SOURCES.items():
        seen.add((source, options))
        out.append((f"RawModule {name}", source, options,
                    lambda s=source, o=options: gp.RawModule(code=s, options=o, language="rust")))
    for case in cases:
        k = case.make(gp)
        for call in case.calls:
            args, kwargs = call.layouts()
            plan = k.plan(*args, **kwargs)
            if plan is None or (plan.source, k.options) in seen:
                continue
            seen.add((plan.source, k.options))
            out.append((f"{case.kind} {case.name}({call!r})", plan.source, k.options,
                        lambda k=k, a=args, kw=kwargs: k.prebuild(*a, **kw)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", help="the kernel cache folder (default: $GPUPY_CACHE_DIR, else gpupy's default)")
    parser.add_argument("--check", action="store_true", help="only report which modules are missing (exit 1 if any)")
    parser.add_argument("--list", action="store_true", help="list the modules and their cache files")
    args = parser.parse_args()
    if args.cache_dir:
        os.environ["GPUPY_CACHE_DIR"] = os.path.abspath(args.cache_dir)
    os.environ.setdefault("GPUPY_RUST_BUILD_DIR", os.path.join(os.path.expanduser("~"), ".gpupy", "rust-build"))

    import gpupy as gp
    import userkernel_cases as uc
    from gpupy._userkernel import _cache, _rustc

    folder = _cache.cache_dir()
    print(f"kernel cache: {folder}")
    print(f"Rust build folder: {os.environ['GPUPY_RUST_BUILD_DIR']}")
    if os.environ.get("GPUPY_RUSTC"):
        print(f"GPUPY_RUSTC={os.environ['GPUPY_RUSTC']} is part of every key: the GPU machine must set the same")
    todo = modules(gp, uc.CASES)
    missing = []
    for label, source, options, _ in todo:
        key = _cache.cache_key("rust", _rustc.rust_key_parts(source, options))
        if not os.path.isfile(os.path.join(folder, f"rust-{key}.bin")):
            missing.append(label)
        if args.list:
            print(f"  rust-{key}.bin  {label}")
    print(f"{len(todo)} Rust modules, {len(missing)} not in the cache")
    if args.check or args.list:
        for label in missing:
            print(f"  missing: {label}")
        return 1 if missing else 0

    ok, detail = _rustc.rust_toolchain_available()
    if not ok and missing:
        print(detail, file=sys.stderr)
        return 1
    if ok:
        print(f"toolchain: {detail}")
    failed = []
    t_all = time.perf_counter()
    for i, (label, source, options, build) in enumerate(todo, 1):
        t = time.perf_counter()
        try:
            build()
        except Exception as e:  # noqa: BLE001 - report every module, then fail
            failed.append(label)
            print(f"[{i}/{len(todo)}] FAILED {label}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        print(f"[{i}/{len(todo)}] {time.perf_counter() - t:6.1f} s  {label}", flush=True)
    # Every module must now be on disk (a read-only folder keeps them in memory only).
    _cache.clear_memory()
    absent = [label for label, source, options, _ in todo
              if _cache.lookup("rust", _rustc.rust_key_parts(source, options)) is None]
    print(f"done in {time.perf_counter() - t_all:.0f} s: {len(todo) - len(failed)} built or cached, "
          f"{len(failed)} failed, {len(absent)} absent from {folder}")
    return 1 if failed or absent else 0


if __name__ == "__main__":
    sys.exit(main())
