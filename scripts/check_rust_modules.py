#!/usr/bin/env python3
"""Checks that the Rust modules of each crate (kernels, host, py) use each other in no
cycle, file by file.

Every `crate::a::b...` and `super::...` path in a file (in `use` items and inline) is an
edge from that file's module to the deepest module the path names that has a file. A
module's own submodules (declared with `mod`) are not edges: a parent that only declares
its children depends on nothing of theirs (and unit tests are left out); a parent that uses a child's items
(`child::f`, `pub use child::*`) does, and a child that uses its parent's items
(`super::f`) does too, so both together are a cycle. Exit status 1 on any cycle.

Usage: python3 scripts/check_rust_modules.py
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CRATES = ["kernels/src", "host/src", "py/src"]


def modules(src):
    """{module path tuple: file}."""
    out = {}
    for root, _, files in os.walk(src):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib"):
                rel = rel[:-1]
            out[tuple(rel)] = os.path.join(root, f)
    return out


def strip(text):
    # A file's unit tests (`#[cfg(test)] mod tests { .. }`, at its end) are not its
    # module's dependencies: `super` there is the file's own module.
    text = text.split("#[cfg(test)]\nmod tests {")[0]
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


def deepest(mods, path):
    for k in range(len(path), -1, -1):
        if tuple(path[:k]) in mods:
            return tuple(path[:k])
    return ()


def edges(mods, mod, text):
    out = set()
    # `use a::{b, c::d}` groups expand to paths; inline paths are matched directly.
    for m in re.finditer(r"\b(crate|super|self)((?:::\w+)+)", text):
        head, rest = m.group(1), m.group(2).split("::")[1:]
        if head == "crate":
            base = []
        elif head == "super":
            base = list(mod[:-1])
            while rest and rest[0] == "super":
                base, rest = base[:-1], rest[1:]
        else:
            base = list(mod)
        out.add(deepest(mods, base + rest))
    for m in re.finditer(r"\b(crate|super|self)::\{([^;]*?)\};", text, re.S):
        head = m.group(1)
        base = [] if head == "crate" else list(mod[:-1]) if head == "super" else list(mod)
        for item in re.split(r"[,\s]+", re.sub(r"\{|\}", " ", m.group(2))):
            if item and item not in ("self", "as", "*") and re.match(r"\w+(::\w+)*$", item):
                out.add(deepest(mods, base + item.split("::")))
    # Items of the module's own children used by name (`child::f`).
    for child in [k for k in mods if len(k) == len(mod) + 1 and k[: len(mod)] == mod]:
        for m in re.finditer(r"(?<![:\w])" + child[-1] + r"((?:::\w+)*)::(?:\w|\*|\{)", text):
            out.add(deepest(mods, list(child) + m.group(1).split("::")[1:]))
    out.discard(mod)
    return out


def cycles(graph):
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def main():
    failed = False
    for crate in CRATES:
        src = os.path.join(ROOT, crate)
        mods = modules(src)
        graph = {m: edges(mods, m, strip(open(f).read())) for m, f in mods.items()}
        for comp in cycles(graph):
            failed = True
            names = ["::".join(c) or "crate" for c in comp]
            print(f"{crate}: modules in a use cycle: {', '.join(names)}")
    if not failed:
        print(f"ok: no use cycles among the modules of {', '.join(CRATES)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
