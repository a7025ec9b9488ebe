"""Compile fembody's hot kernels with pythran into extension modules under ``fembody/_ext/``.

One extension per kernel module listed in ``MODULES`` (and in the Makefile's KERNEL_SRC). The
kernels stay ordinary Python functions in their modules (the one source, also what numba
JIT-compiles in a developer's tree without the extensions); this tool writes, for each module,
the pythran input from those functions: every kernel of the module that carries an ``aot``
signature (``@njit(aot="...")``, the one place where a kernel's exported types are written),
with the kernels it calls (from any module, renamed apart), the module-level constants they
read and ``numpy``/``math`` imports; the ``@njit`` decorators dropped and a ``#pythran
export`` line per signature (numba's ``f8[:, :]`` becomes pythran's ``float64[:, :]``, a
C-contiguous array). An export is named after the kernel's digest (``Kernel.export_name``), so
a kernel edited after the build is not served by a stale extension. What a kernel may use is
the subset described in ``fembody/elements/kernels.py``.

    python tools/build_kernels.py [--jobs N] [--out DIR] [--keep DIR] [--cache DIR | --no-cache]
                                  [--require] [MODULE ...]

Needs pythran and a C++ compiler (at build time only: the wheel carries the extensions).
"""
from __future__ import annotations

import argparse
import ast
import functools
import importlib
import importlib.machinery
import inspect
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the modules whose kernels carry an ``aot`` signature (also in the Makefile's KERNEL_SRC)
MODULES = ("fembody.elements.beam.compiled", "fembody.sparse_kernels",
           "fembody.dynamics._kernels", "fembody.linalg.envelope", "fembody.linalg.cholmod_spd",
           "fembody.elements.beam.beam3d_numba", "fembody.space.quat_numba",
           "fembody.space.planar_numba",
           "fembody.elements.mass.rigid3d", "fembody.elements.mass.mass", "fembody.dynamics.lie",
           "fembody.joints.kernels.spatial", "fembody.joints.kernels.planar",
           "fembody.elements.spring.spring", "fembody.joints.assembly",
           "fembody.statics._kernels", "fembody.run._kernels",
           "fembody.linalg._kernels", "fembody.elements.modal.modal3d_numba",
           "fembody.dynamics._step_kernels", "fembody.contact._kernels",
           "fembody.contact._meet_kernels")
# modules left to numba's JIT, with the reason (none: the compiled step builds with
# NO_RANGE_PASSES and CXX20 below)
PENDING: tuple[str, ...] = ()
# modules typed with ``typing.max_combiner=1``: pythran gives a variable the type of its
# first binding instead of combining the types of all its bindings in C++ templates. Their
# combination (``__combined<...>`` over nested expression types) is what made g++ take
# 3-13 GB and 400-1400 s on these modules, and 0.3-0.4 GB, 6-11 s with one type per name
# (benchmarks/README.md, "Kernel toolchain"). The cost: a name first bound to an int and later
# to a float is silently an int, so ``lint_first_binding`` refuses that pattern in them
LEAN_TYPING = ("fembody.elements.beam.beam3d_numba", "fembody.elements.mass.rigid3d",
               "fembody.space.quat_numba", "fembody.joints.kernels.spatial",
               "fembody.elements.spring.spring", "fembody.elements.modal.modal3d_numba",
               "fembody.dynamics._step_kernels", "fembody.contact._kernels",
               "fembody.contact._meet_kernels")

# modules compiled without pythran's value-range optimisations (RANGE_PASSES): each of them
# reruns the interval analysis of every function, and pythran repeats its optimisation chain
# until nothing changes; on the compiled step's module (its kernels inlined into a few large
# functions of nested loops) that analysis did not finish (py-spy: RangeValues under
# ``refine``; benchmarks/README.md). Their gain is index arithmetic (``a % n``) and
# comparisons folded from value ranges
NO_RANGE_PASSES = ("fembody.dynamics._step_kernels",)
# modules compiled as C++20: under one type per name pythran declares a name bound to ``a and
# b`` (or a call taking it) as ``decltype`` of its ``and_`` of two lambdas, a lambda in an
# unevaluated context, which C++17 refuses and C++20 accepts (g++ 12 checked the compiled
# step's generated C++ with -fsyntax-only)
CXX20 = ("fembody.dynamics._step_kernels", "fembody.contact._kernels")
RANGE_PASSES = ("pythran.optimizations.ModIndex", "pythran.optimizations.RangeBasedSimplify")

# numba's type names -> pythran's (arrays keep their ``[:, :]``: C-contiguous in pythran)
_TYPES = {"f8": "float64", "i8": "int64", "i4": "int32", "b1": "bool"}


def pythran_signature(name: str, sig: str) -> str:
    """The ``#pythran export`` line of kernel ``name`` from its numba signature ``sig``
    (the return type is pythran's to infer). Arrays of two or more dimensions are declared
    ``order(C)``: the calls the export serves are C-contiguous (the guard in
    ``fembody/elements/kernels.py`` sends any other to numba), and without it pythran
    generates an overload per combination of C and Fortran layouts, 2^k for k such arguments
    (the compiled step's ``steps`` has 20: pythran refuses "too many overloads")."""
    from fembody.elements import kernels
    args = []
    for a in kernels._split_args(sig):
        m = re.fullmatch(r"(f8|i8|i4|b1)(\[[:, ]*\])?", a)
        if m is None:
            raise ValueError(f"{name}: argument type {a!r} has no pythran translation")
        dims = (m.group(2) or "").count(":")
        args.append(_TYPES[m.group(1)] + (m.group(2) or "") + (" order(C)" if dims >= 2 else ""))
    return f"#pythran export {name}({', '.join(args)})"


class _Rename(ast.NodeTransformer):
    """Global names of kernels -> their names in the generated module."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names:
            node.id = self.names[node.id]
        return node


#: ``math`` names pythran lacks -> numpy's (the same value on a float, in numba too)
_MATH_TO_NUMPY = {"isfinite": "isfinite", "nan": "nan", "inf": "inf"}


class _MathToNumpy(ast.NodeTransformer):
    """``math.isfinite(x)`` -> ``numpy.isfinite(x)``: pythran's ``math`` has no ``isfinite``
    (its ``numpy`` has), numba and CPython have both; ``aliases``: the names ``math`` goes by
    in the kernels' modules. Sets ``used`` when it rewrote one."""

    def __init__(self, aliases: set[str]) -> None:
        self.aliases = aliases
        self.used = False

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.value, ast.Name) and node.value.id in self.aliases and \
                node.attr in _MATH_TO_NUMPY:
            self.used = True
            return ast.copy_location(ast.Attribute(ast.Name("numpy", ast.Load()),
                                                   _MATH_TO_NUMPY[node.attr], ast.Load()), node)
        return node


class _RealOnly(ast.NodeTransformer):
    """``x.real`` -> ``x`` in a module without complex values: its exports take float and
    int arguments only (pythran_signature refuses complex types), so then every value is real;
    numba reads ``.real`` of a float as the float, pythran has no ``.real`` for a float.
    Kernels written for a complex step too (the spatial beam's) keep their ``.real`` for
    numba's complex calls. A module with a complex literal or ``.imag`` (the modal body's
    complex-step tangent) is left as it is: there ``.real`` reads complex values."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        self.generic_visit(node)
        return node.value if node.attr == "real" else node


def _complex_free(fns: list[ast.FunctionDef]) -> bool:
    """No complex literal and no ``.imag`` in ``fns``."""
    return not any((isinstance(n, ast.Constant) and isinstance(n.value, complex))
                   or (isinstance(n, ast.Attribute) and n.attr == "imag")
                   for fn in fns for n in ast.walk(fn))


def _gen_name(k) -> str:
    if k.aot:
        return k.export_name
    return "_" + k.__module__.replace(".", "_") + "__" + k.__name__


def _int_literal(v: ast.AST | None) -> bool:
    if isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.USub):
        v = v.operand
    return isinstance(v, ast.Constant) and type(v.value) is int


def _int_expr(v: ast.AST | None) -> bool:
    """``v`` is an integer expression by its shape: int literals, names, ``len(...)``,
    ``int(...)`` and ``x.shape[...]`` joined by ``+ - * // %`` (``o += 9 * P``). A name may hold a float, so
    this lint catches the common narrowing (a float literal, an array element, a call, a true
    division bound to an int-first name), not every one: tests/test_kernel_typing.py compares
    every export of a LEAN_TYPING module with the same source run by CPython."""
    if v is None:
        return False
    # what an int(...) call converts is not read: the call's value is an int
    inside = {id(a) for c in ast.walk(v) if isinstance(c, ast.Call) and
              isinstance(c.func, ast.Name) and c.func.id == "int"
              for arg in c.args for a in ast.walk(arg)}
    for n in ast.walk(v):
        if id(n) in inside:
            continue
        if isinstance(n, ast.Constant):
            if type(n.value) is not int:
                return False
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
                return False
        elif isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in ("len", "int")):
                return False
        elif isinstance(n, ast.Subscript):
            if not (isinstance(n.value, ast.Attribute) and n.value.attr == "shape"):
                return False
        elif not isinstance(n, (ast.Name, ast.UnaryOp, ast.USub, ast.Attribute, ast.Load,
                                ast.operator, ast.expr_context)):
            return False
    return True


def lint_first_binding(fn: ast.FunctionDef) -> list[str]:
    """The local names of ``fn`` whose first binding is an int literal and a later one is
    not an integer expression (:func:`_int_expr`; ``s = 0`` then ``s += x[i]``): under ``typing.max_combiner=1`` pythran types such
    a name as an int and truncates the floats (measured: a sum of 0.5, 0.25 and 1.5 came out
    as 1). Write the float literal (``s = 0.0``) instead."""
    binds: dict[str, list[tuple[int, ast.AST | None]]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        binds.setdefault(n.id, []).append(
                            (node.lineno, node.value if isinstance(t, ast.Name) else None))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and \
                isinstance(node.target, ast.Name):
            binds.setdefault(node.target.id, []).append((node.lineno, node.value))
    bad = []
    for name, bs in binds.items():
        bs.sort(key=lambda b: b[0])
        if _int_literal(bs[0][1]) and not all(_int_expr(v) for _, v in bs[1:]):
            bad.append(f"{fn.name}: {name!r} is first bound to an int (line {bs[0][0]}) and "
                       f"later to another value (line {[ln for ln, v in bs[1:] if not _int_expr(v)][0]})")
        elif _literal_shape(bs[0][1]) and any(v is None or ast.dump(v) != ast.dump(bs[0][1])
                                              for _, v in bs[1:]):
            bad.append(f"{fn.name}: {name!r} is first bound to an array of literal shape "
                       f"(line {bs[0][0]}) and later to another array (or unpacked)")
    rets = sorted((n for n in ast.walk(fn) if isinstance(n, ast.Return) and n.value),
                  key=lambda n: n.lineno)
    if len(rets) > 1 and _literal_shape(rets[0].value) and \
            any(ast.dump(r.value) != ast.dump(rets[0].value) for r in rets[1:]):
        bad.append(f"{fn.name}: its first return (line {rets[0].lineno}) holds an array of "
                   "literal shape and a later return another array")
    return bad


def _literal_shape(v: ast.AST | None) -> bool:
    """``v`` holds an ``np.zeros/empty/ones/full`` call with an int literal in its shape: pythran
    gives that array a compile-time shape, which one type per name would impose on every other
    binding (measured: the modal body's early ``return f, np.zeros((0, 0)), ...`` made its
    tangents come back 0 x 0)."""
    for n in ast.walk(v) if v is not None else ():
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("zeros", "empty", "ones", "full") and n.args and \
                any(_int_literal(e) for e in (n.args[0].elts if isinstance(n.args[0], ast.Tuple)
                                              else [n.args[0]])):
            return True
    return False


def generate(module: str) -> tuple[str, int]:
    """The pythran source for ``module``'s exported kernels, and how many it exports."""
    from fembody.elements.kernels import Kernel
    mod = importlib.import_module(module)
    roots = [v for v in vars(mod).values()
             if isinstance(v, Kernel) and v.__module__ == module and v.aot]
    roots = list({id(k): k for k in roots}.values())      # aliases: once
    roots.sort(key=lambda k: k.py_func.__code__.co_firstlineno)
    order: list = []            # kernels, callees before callers
    consts: dict[str, object] = {}
    imports: dict[str, str] = {}
    seen: set[int] = set()

    def names_of(code: types.CodeType) -> set[str]:
        out = set(code.co_names)
        for c in code.co_consts:
            if isinstance(c, types.CodeType):
                out |= names_of(c)
        return out

    def visit(k) -> None:
        if id(k) in seen:
            return
        seen.add(id(k))
        env = k.py_func.__globals__
        for name in sorted(names_of(k.py_func.__code__)):
            if name not in env:
                continue            # an attribute name (x.shape) or a builtin
            v = env[name]
            if isinstance(v, Kernel):
                visit(v)
            elif isinstance(v, types.ModuleType):
                if v.__name__ not in ("numpy", "math"):
                    raise ValueError(f"{k.__qualname__}: module {v.__name__} is outside the "
                                     "kernel subset (numpy, math)")
                imports[name] = v.__name__
            elif isinstance(v, np.ndarray) and v.dtype in (np.float64, np.int64):
                # numba freezes a global array into the code; pythran reads the constant
                text = f"np.array({v.tolist()!r}, dtype=np.{v.dtype})"
                if consts.get(name, text) != text:
                    raise ValueError(f"constant {name} differs between kernel modules")
                consts[name] = text
                imports.setdefault("np", "numpy")
            elif isinstance(v, (bool, int, float, tuple)):
                if name in consts and consts[name] != repr(v):
                    raise ValueError(f"constant {name} differs between kernel modules")
                consts[name] = repr(v)
            elif name not in ("range", "len", "min", "max", "abs"):
                raise ValueError(f"{k.__qualname__} reads global {name!r} ({type(v).__name__}):"
                                 " outside the kernel subset")
        order.append(k)

    for k in roots:
        visit(k)
    to_numpy = _MathToNumpy({a for a, m in imports.items() if m == "math"})
    fns: list[ast.FunctionDef] = []
    for k in order:
        tree = ast.parse(textwrap.dedent(inspect.getsource(k.py_func)))
        fn = tree.body[0]
        fn.decorator_list = []
        fn.name = _gen_name(k)
        env = k.py_func.__globals__
        renames = {n: _gen_name(env[n]) for n in names_of(k.py_func.__code__)
                   if isinstance(env.get(n), Kernel)}
        _Rename(renames).visit(fn)
        to_numpy.visit(fn)
        if module in LEAN_TYPING and (bad := lint_first_binding(fn)):
            raise ValueError(f"{module}: typed with one type per name (LEAN_TYPING), but "
                             + "; ".join(bad) + ": write a float literal (0.0) there")
        fns.append(fn)
    if _complex_free(fns):
        fns = [_RealOnly().visit(fn) for fn in fns]
    if to_numpy.used:
        imports["numpy"] = "numpy"
    lines = [f"# generated by tools/build_kernels.py from {module}: do not edit"]
    lines += [pythran_signature(k.export_name, k.aot) for k in roots]
    lines += [f"import {m} as {a}" if a != m else f"import {m}"
              for a, m in sorted(imports.items())]
    lines += [f"{n} = {v}" for n, v in sorted(consts.items())]
    for fn in fns:
        lines += ["", "", ast.unparse(fn)]
    return "\n".join(lines) + "\n", len(roots)


def ext_name(module: str) -> str:
    """The extension's module name (in ``fembody._ext``) for kernel module ``module``."""
    from fembody.elements import kernels
    return kernels.ext_name(module)


def compile_one(module: str, out: pathlib.Path, keep: pathlib.Path | None,
                cxxflags: list[str], cache: pathlib.Path | None = None
                ) -> tuple[str, int, str]:
    """Compile ``module``'s extension into ``out``; returns the module, its number of kernels
    and what was done ("up to date", "from the cache", or the seconds compiling). An
    extension is up to date when its ``.sha1`` file holds the digest of the generated source,
    pythran's version and the flags: in ``out`` it is kept, in the source tree's
    ``fembody/_ext`` (a wheel built after ``make setup``) it is copied. ``cache``: a directory
    shared by the checkouts of this machine (like ccache's), keyed by that digest, the Python
    ABI, numpy's version and the compiler's: a fresh clone of an unchanged module copies its
    extension from there instead of compiling it again (None: no cache)."""
    import hashlib

    import pythran
    src, n = generate(module)
    if module in LEAN_TYPING:
        cxxflags = [*cxxflags, "--config", "typing.max_combiner=1"]
    if module in CXX20:
        cxxflags = [*cxxflags, "-std=c++20"]       # after pythran's own -std: the later wins
    if module in NO_RANGE_PASSES:
        from pythran.config import cfg
        passes = [p for p in cfg.get("pythran", "optimizations").split()
                  if p not in RANGE_PASSES]
        cxxflags = [*cxxflags, "--config", "pythran.optimizations=" + " ".join(passes)]
    name = ext_name(module)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    digest = hashlib.sha1(repr((src, pythran.__version__, cxxflags)).encode()).hexdigest()
    # the shared cache's key adds what an extension's machine code also depends on
    cached = None if cache is None else cache / hashlib.sha1(repr(
        (digest, suffix, np.__version__, _compiler())).encode()).hexdigest()
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        (keep / f"{name}.py").write_text(src)
    for have in (out, ROOT / "fembody" / "_ext"):
        so, sha = have / f"{name}{suffix}", have / f"{name}.sha1"
        if so.exists() and sha.exists() and sha.read_text().strip() == digest:
            if have != out:
                shutil.copy2(so, out / so.name)
                shutil.copy2(sha, out / sha.name)
            if cached is not None and not (cached / "ext.so").exists():
                _store(so, cached)
            return module, n, "up to date"
    if cached is not None and (cached / "ext.so").exists():
        _install(cached / "ext.so", out, name, suffix, digest)
        return module, n, "from the cache"
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / f"{name}.py"
        path.write_text(src)
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-m", "pythran.run", *cxxflags, "-o",
                            str(pathlib.Path(tmp) / f"{name}.so"), str(path)],
                           capture_output=True, text=True, cwd=tmp)
        dt = time.perf_counter() - t0
        if p.returncode:
            raise RuntimeError(f"pythran failed on {module} (generated source kept with "
                               f"--keep DIR):\n{p.stdout}\n{p.stderr[-6000:]}")
        built = pathlib.Path(tmp) / f"{name}.so"
        _install(built, out, name, suffix, digest)
        if cached is not None:
            _store(built, cached)
    return module, n, f"{dt:.1f} s"


def _store(so: pathlib.Path, cached: pathlib.Path) -> None:
    """Extension ``so`` into the cache entry ``cached``, written whole and then renamed (a
    concurrent reader never sees half of it); a cache that cannot be written is skipped."""
    try:
        cached.mkdir(parents=True, exist_ok=True)
        part = cached / f"ext.so.{os.getpid()}.{threading.get_ident()}"
        shutil.copy2(so, part)
        os.replace(part, cached / "ext.so")
    except OSError as e:
        print(f"build_kernels: {so.name} not cached ({e})")


def _install(so: pathlib.Path, out: pathlib.Path, name: str, suffix: str, digest: str) -> None:
    """Extension ``so`` into ``out`` as ``name``, with its digest."""
    for old in out.glob(f"{name}.*"):
        old.unlink()
    shutil.copy2(so, out / f"{name}{suffix}")
    (out / f"{name}.sha1").write_text(digest + "\n")


@functools.cache
def _compiler() -> str:
    """The C++ compiler's version line (part of the cache key; asked once per build, not
    once per module)."""
    try:
        return subprocess.run(["g++", "--version"], capture_output=True,
                              text=True).stdout.split("\n")[0]
    except OSError:
        return "none"


def default_cache() -> pathlib.Path:
    """``$FEMBODY_KERNEL_CACHE``, else ``$XDG_CACHE_HOME/fembody/kernels`` (``~/.cache``)."""
    env = os.environ.get("FEMBODY_KERNEL_CACHE")
    if env:
        return pathlib.Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "fembody" / "kernels"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="kernel modules (default: MODULES)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="modules compiled at once (default: the number of CPUs)")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "fembody" / "_ext",
                    help="where the extensions go (default: fembody/_ext)")
    ap.add_argument("--keep", type=pathlib.Path, default=None,
                    help="also write the generated pythran sources into this directory")
    ap.add_argument("--cache", type=pathlib.Path, default=default_cache(),
                    help="extensions built before on this machine, by content (default: "
                         "$FEMBODY_KERNEL_CACHE or ~/.cache/fembody/kernels)")
    ap.add_argument("--no-cache", dest="cache", action="store_const", const=None,
                    help="compile every module that is not up to date in the tree")
    ap.add_argument("--require", action="store_true",
                    help="fail without pythran (a wheel build) instead of leaving it to numba")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    try:
        import pythran  # noqa: F401
    except ImportError:
        print("build_kernels: pythran is not installed (tools/setup.sh installs it); the "
              "kernels are not compiled: numba JIT-compiles them at first use",
              file=sys.stderr if args.require else sys.stdout)
        return 1 if args.require else 0
    modules = args.modules or [m for m in MODULES if m not in PENDING]
    args.out.mkdir(parents=True, exist_ok=True)
    # no -march=native: the extensions go into a wheel for other machines of the architecture
    cxxflags = ["-O2"]
    t0 = time.perf_counter()
    for m in modules:           # imported here: threads importing at once race on fembody's
        importlib.import_module(m)                  # partly initialised packages
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        done = list(pool.map(lambda m: compile_one(m, args.out, args.keep, cxxflags,
                                                         args.cache), modules))
    for m, n, how in done:
        print(f"build_kernels: {m}: {n} kernels ({how})")
    print(f"build_kernels: {sum(n for _, n, _ in done)} kernels in {len(done)} extensions "
          f"under {args.out} ({time.perf_counter() - t0:.1f} s with {args.jobs} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
