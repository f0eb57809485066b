#!/usr/bin/env python3
"""Checks the import structure of the gpupy Python package, without importing it.

Parses every ``.py`` file of the package with ``ast`` and collects every import, at
module level and nested (in functions, methods, class bodies, lambdas), including
``importlib.import_module("gpupy...")`` and ``__import__("gpupy...")`` calls with a
constant name. It fails (exit status 1) when

- a gpupy module is imported anywhere but at module level (in a function, a method or
  a class body), or
- the gpupy modules import each other in a cycle (every import counted, nested ones
  included).

Module level means the statement runs when the module is imported: it may sit inside
``try``/``except``, ``if`` or ``with`` at module level. An import of a gpupy module is
an edge to that module (``from gpupy import _math`` is an edge to ``gpupy._math``,
``from gpupy import ndarray`` one to the package ``gpupy``), and to each parent package
that Python initializes on the way (``from gpupy.cuda.memory import X`` is an edge to
``gpupy.cuda`` too) unless that package contains the importing module (it is being
initialized already, as the package ``gpupy`` always is). ``gpupy._gpupy``, the
compiled extension, is a leaf.

Nested imports of other modules (``numpy``, the standard library) are listed, not
failed.

Usage: python scripts/check_imports.py [PACKAGE_DIR] [--graph]
    PACKAGE_DIR: the package's folder (default: py/python/gpupy of this repository)
    --graph:     print each module's imports (the graph) as well
"""

import ast
import os
import sys

PACKAGE = "gpupy"
EXTENSION = "gpupy._gpupy"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def discover(pkg_dir):
    """{module name: file path} for every .py file under ``pkg_dir``."""
    modules = {}
    for root, dirs, files in os.walk(pkg_dir):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(root, f), pkg_dir)
            parts = rel[:-3].split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([PACKAGE] + parts)] = os.path.join(root, f)
    return modules


def _is_package(name, modules):
    return modules.get(name, "").endswith("__init__.py")


def _resolve_relative(module, level, name, modules):
    """The absolute name of ``from <level dots><name> import ...`` in ``module``."""
    base = module.split(".")
    if not _is_package(module, modules):
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _target(name, modules):
    """The gpupy module that importing ``name`` loads (the longest known prefix)."""
    parts = name.split(".")
    while parts:
        cand = ".".join(parts)
        if cand in modules or cand == EXTENSION:
            return cand
        parts.pop()
    return None


def _imports(tree):
    """(node, nested scope or None) for each import statement or dynamic import call."""
    out = []

    def visit(node, scope):
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, _SCOPES):
                name = getattr(child, "name", "<lambda>")
                inner = f"{scope}.{name}" if scope else name
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append((child, scope))
            elif isinstance(child, ast.Call) and _dynamic_name(child) is not None:
                out.append((child, scope))
            visit(child, inner)

    visit(tree, None)
    return out


def _dynamic_name(call):
    """The constant module name of ``importlib.import_module(...)``/``__import__(...)``."""
    f = call.func
    is_dynamic = (isinstance(f, ast.Name) and f.id in ("__import__", "import_module")) or (
        isinstance(f, ast.Attribute) and f.attr == "import_module"
    )
    if is_dynamic and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def collect(modules):
    """{module: [(imported gpupy module, line, nested scope or None)]} and the list of
    nested imports of other modules."""
    graph = {m: [] for m in modules}
    other_nested = []
    for mod, path in modules.items():
        with open(path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), path)
        for node, scope in _imports(tree):
            names = []  # absolute module names this statement loads
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve_relative(mod, node.level, node.module, modules) if node.level else node.module
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    if a.name != "*" and (sub in modules or sub == EXTENSION):
                        names.append(sub)  # a submodule
                    else:
                        names.append(base)  # an attribute of (or * from) base
            else:
                names = [_dynamic_name(node)]
            for name in names:
                target = _target(name, modules) if name.split(".")[0] == PACKAGE else None
                if target is None:
                    if scope:
                        other_nested.append((mod, node.lineno, scope, name))
                    continue
                for t in _parents(target, mod, modules) + [target]:
                    if (t, node.lineno, scope) not in graph[mod]:
                        graph[mod].append((t, node.lineno, scope))
    return graph, other_nested


def _parents(target, importer, modules):
    """The packages Python initializes before ``target`` when ``importer`` imports it:
    its parent packages, less those that contain ``importer`` (already initializing,
    as the root package always is)."""
    parts = target.split(".")
    out = []
    for i in range(1, len(parts)):
        pkg = ".".join(parts[:i])
        if pkg in modules and importer != pkg and not importer.startswith(pkg + "."):
            out.append(pkg)
    return out


def cycles(graph):
    """The strongly connected components with a cycle (Tarjan), each sorted."""
    index, low, stack, on_stack, comps = {}, {}, [], set(), []
    counter = [0]
    edges = {m: sorted({t for t, _, _ in deps if t in graph}) for m, deps in graph.items()}

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges[v]:
                comps.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            strong(v)
    return comps, edges


def _example_cycle(comp, edges):
    """One cycle through the component's first module, as a list of modules."""
    start = comp[0]
    members = set(comp)
    path, seen = [start], {start}

    def walk(v):
        for w in edges[v]:
            if w == start:
                return True
            if w in members and w not in seen:
                seen.add(w)
                path.append(w)
                if walk(w):
                    return True
                path.pop()
        return False

    walk(start)
    return path + [start]


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    here = os.path.dirname(os.path.abspath(__file__))
    pkg_dir = args[0] if args else os.path.join(here, "..", "py", "python", PACKAGE)
    modules = discover(pkg_dir)
    if PACKAGE not in modules:
        print(f"no package {PACKAGE!r} at {pkg_dir}", file=sys.stderr)
        return 2
    graph, other_nested = collect(modules)
    failed = False

    if "--graph" in argv:
        for mod in sorted(graph):
            top = sorted({t for t, _, s in graph[mod] if s is None})
            nested = sorted({t for t, _, s in graph[mod] if s is not None} - set(top))
            line = f"{mod}: {', '.join(top) or '-'}"
            if nested:
                line += f"  | nested only: {', '.join(nested)}"
            print(line)
        print()

    local = [(m, line, scope, t) for m, deps in graph.items() for t, line, scope in deps if scope]
    for m, line, scope, t in sorted(local):
        print(f"{modules[m]}:{line}: {t} imported in {scope} (not at module level)")
    if local:
        failed = True
        print(f"{len({(m, line) for m, line, _, _ in local})} nested import statement(s) of gpupy modules")

    comps, edges = cycles(graph)
    for comp in comps:
        print(f"import cycle among {', '.join(comp)}: e.g. {' -> '.join(_example_cycle(comp, edges))}")
    if comps:
        failed = True

    for m, line, scope, name in sorted(other_nested):
        print(f"note: {modules[m]}:{line}: {name} imported in {scope}")

    if not failed:
        print(f"ok: {len(modules)} modules, every gpupy import at module level, no import cycle")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
