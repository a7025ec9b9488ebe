"""Compiled kernels that cost nothing until they are called, and little then.

Why: a user running short scripts pays the start-up on every process, and numba's import
(LLVM) with its registries weighs more than a whole small run. So :func:`njit` does not
compile: it returns a :class:`Kernel` that, on its first call, takes the function from the
pythran extension built from its module (``fembody._ext.<module>``, written by
``tools/build_kernels.py`` at set-up and carried by the wheel; loading it costs an extension
import, no compiler and no numba). In a source tree without the extensions (a developer editing
a kernel) the same Python function is compiled by numba's JIT when numba is installed; without
either, the first call raises :class:`KernelsNotBuilt` saying how to build them.

Safety: a compiled export checks its argument types itself, but only the signature it was
built for is compiled (``aot``, numba's notation: the one place where a kernel's types are
written, read by the build tool). A call goes to it only when every array argument has the
exact dtype and dimension of that signature and is C-contiguous; any other call goes to numba
(or, without numba, to the Python function itself: correct, slow). An export is named with a
digest of the function's byte code and signature, of the kernels it calls and of the global
constants it reads, so a kernel, a kernel it calls or such a constant edited after the build is
never served by the stale extension (it goes to numba, or raises KernelsNotBuilt).

Hot paths whose arrays are fembody's own (float64/int64, C-contiguous, checked once where they
are built) call :attr:`Kernel.trusted`, the compiled entry point itself without the per-call
guard.

What a kernel may use
---------------------
A kernel is one Python function that both numba (``njit``) and pythran compile to the same
numbers, so it is written in their common subset:

- arguments: float64, int64 or int32 arrays of any dimension (C-contiguous in the hot path),
  float, int and bool scalars, as the ``aot`` signature lists them (``f8[:, :]``, ``i8[:]``,
  ``i4[:]``, ``f8``, ``i8``, ``b1``); it returns nothing, a scalar, an array or a tuple of
  them;
- inside: scalars, numpy arrays (``np.empty``, ``np.zeros``, ``np.ones``, ``np.empty_like``,
  ``np.arange``, indexing and slices, ``.shape``, ``.copy()``, elementwise arithmetic, ``np``'s
  elementwise and reduction functions), ``math``'s functions, tuples, ``for``/``while`` loops,
  ``if``, ``break``/``continue``, calls of other kernels (any module's: the build copies
  them into the extension);
- globals: other kernels, ``numpy``/``math``, and module-level constants, frozen at the
  build: bool, int, float and tuples of them (editing one renames the export), float64/int64
  arrays (editing one needs a rebuild, which the Makefile does when the module changes);
- not: ``numba.typed`` containers, ``objmode``, ``generated_jit``, ``prange``, functions as
  arguments, closures, keyword arguments with defaults that change types, exceptions with
  formatted messages, classes, dictionaries, lists whose element type changes, strings.

A new kernel module is listed in ``tools/build_kernels.py`` ``MODULES`` and the Makefile's
``KERNEL_SRC``; its exported kernels carry ``aot=``; nothing else names it. Options such as
``cache`` or ``inline`` are numba's and do not reach pythran.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import types
from typing import Any, Callable

import numpy as np

#: the package of the pythran extensions (one per kernel module)
EXT_PACKAGE = "fembody._ext"
#: numba is installed (not imported: that happens at the first call that needs it)
NUMBA = importlib.util.find_spec("numba") is not None
_DTYPES = {"f8": np.dtype(np.float64), "i8": np.dtype(np.int64), "i4": np.dtype(np.int32)}
REGISTRY: list["Kernel"] = []      # every kernel, for tools/build_kernels.py
#: False switches the extensions off for this process (numba serves every kernel)
_aot: Any = None
_exts: dict[str, Any] = {}         # kernel module -> its extension, False when absent


class KernelsNotBuilt(RuntimeError):
    """A kernel has neither a compiled extension (or only a stale one) nor numba to JIT it."""


def ext_name(module: str) -> str:
    """The name, in ``fembody._ext``, of the pythran extension built from kernel module
    ``module`` (``fembody.linalg.envelope`` -> ``linalg_envelope``)."""
    return module.removeprefix("fembody.").replace(".", "_")


def _load_ext(module: str) -> Any:
    """The extension built from kernel module ``module``, False when absent or switched off."""
    if _aot is False:
        return False
    ext = _exts.get(module)
    if ext is None:
        try:
            ext = importlib.import_module(f"{EXT_PACKAGE}.{ext_name(module)}")
        except ImportError:
            ext = False
        _exts[module] = ext
    return ext


def built() -> bool:
    """Whether the compiled extensions are there (tested on the sparse kernels' module, which
    every build holds)."""
    return _load_ext("fembody.sparse_kernels") is not False


def _split_args(sig: str) -> list[str]:
    """The argument types of a numba signature string ``"ret(a, b[:, :], ...)"``."""
    start = _arglist_start(sig)
    out, depth, cur = [], 0, ""
    for ch in sig[start + 1:-1]:
        depth += {"[": 1, "(": 1, "]": -1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return out + ([cur.strip()] if cur.strip() else [])


def _guards(sig: str) -> list[tuple[int, np.dtype, int]]:
    """(position, dtype, ndim) of every array argument of ``sig``."""
    out = []
    for i, a in enumerate(_split_args(sig)):
        m = re.fullmatch(r"(f8|i8|i4)\[([:, ]*)\]", a)
        if m:
            out.append((i, _DTYPES[m.group(1)], m.group(2).count(":")))
        elif a not in ("f8", "i8", "b1"):
            raise ValueError(f"kernel signature {sig!r}: argument type {a!r} not supported")
    return out


def _arglist_start(sig: str) -> int:
    """Index of the parenthesis that opens the argument list of ``sig``."""
    depth = 0
    for i in range(len(sig) - 1, -1, -1):          # the parenthesis matching the last one
        depth += {")": 1, "(": -1}.get(sig[i], 0)
        if depth == 0:
            return i
    raise ValueError(f"kernel signature {sig!r}: no argument list")


def export_signature(sig: str) -> str:
    """``sig`` with every array argument C-contiguous (``f8[:, :]`` -> ``f8[:, ::1]``): the
    signature the export is compiled for (numba's notation; it enters the export's name)."""
    c_args = [a[:-2] + "::1]" if re.fullmatch(r"(f8|i8|i4)\[[:, ]*\]", a) else a
              for a in _split_args(sig)]
    return f"{sig[:_arglist_start(sig)]}({', '.join(c_args)})"


def _sha1(data: bytes = b"") -> Any:
    """SHA-1 from CPython's built-in module (the same digest as hashlib's, without loading
    OpenSSL: ~2 ms of the first simulate)."""
    try:
        from _sha1 import sha1
    except ImportError:                             # pragma: no cover - other Pythons
        from hashlib import sha1
    return sha1(data)


def _digest(code: types.CodeType, h: Any, env: dict, seen: set) -> None:
    """Feed ``h`` with what the compiled code of ``code`` depends on: its byte code and
    constants, and, since numba freezes them into the machine code, the kernels it calls
    (their own digests, recursively) and the plain global values it reads (``env``: the
    function's globals)."""
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_varnames)).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _digest(c, h, env, seen)
        else:
            h.update(repr(c).encode())
    for name in code.co_names:
        v = env.get(name)
        if isinstance(v, Kernel):
            if id(v) not in seen:
                seen.add(id(v))
                _digest(v.py_func.__code__, h, v.py_func.__globals__, seen)
        elif isinstance(v, (bool, int, float, complex, str, tuple)):
            h.update(repr((name, v)).encode())


class Kernel:
    """A function compiled on first call: served by the pythran extension for calls matching
    its signature ``aot``, by numba otherwise (``options``: numba.njit's keywords)."""

    def __init__(self, fn: Callable, options: dict, aot: str | None) -> None:
        self.py_func = fn
        self.options = options
        self.aot = aot
        self.__name__, self.__doc__ = fn.__name__, fn.__doc__
        self.__module__, self.__qualname__ = fn.__module__, fn.__qualname__
        self._impl: Callable | None = None
        self._fast: Callable | None = None       # the compiled export, once resolved
        self._jit: Any = None
        REGISTRY.append(self)

    def __call__(self, *args: Any) -> Any:
        impl = self._impl
        if impl is None:
            impl = self._impl = self._resolve()
        return impl(*args)

    def trusted(self, *args: Any) -> Any:
        """Call the compiled entry point without the argument guard: the pythran export when
        the extension has it, else the numba dispatcher. Only for arguments of exactly the
        signature's types, C-contiguous (a wrong dtype or stride is read as raw memory).
        The first call binds the entry point as this instance's ``trusted`` attribute, so
        later calls cost one attribute lookup."""
        if self._impl is None:
            self._impl = self._resolve()
        if self.aot:        # the once-per-site check: the first call's arrays (built once)
            for i, dt, nd in _guards(self.aot):
                a = args[i]
                if not (type(a) is np.ndarray and a.dtype == dt and a.ndim == nd
                        and a.flags.c_contiguous):
                    raise TypeError(f"{self.__qualname__}: argument {i} must be a C-contiguous "
                                    f"{dt} array of {nd} dimension(s) for a trusted call")
        fast = self._fast if self._fast is not None else self._slow()
        self.trusted = fast                     # type: ignore[method-assign]
        return fast(*args)

    def reset(self) -> None:
        """Forget the resolved entry points (the next call resolves again, e.g. after the
        extension was switched off)."""
        self._impl = self._fast = None
        self.__dict__.pop("trusted", None)

    def __repr__(self) -> str:
        return f"<fembody kernel {self.__module__}.{self.__qualname__}>"

    @property
    def export_name(self) -> str:
        """The export's name in the extension: module, function and a digest of code and
        signature."""
        h = _sha1(export_signature(self.aot).encode() if self.aot else b"")
        _digest(self.py_func.__code__, h, self.py_func.__globals__, {id(self)})
        mod = self.__module__.rsplit(".", 1)[-1].strip("_")
        return f"{mod}__{self.__name__.strip('_')}_{h.hexdigest()[:10]}"

    def numba_function(self) -> Callable:
        """A copy of the Python function whose global kernels are numba dispatchers (numba
        compiles a call to another kernel only through its dispatcher)."""
        g = dict(self.py_func.__globals__)
        for k in self.py_func.__code__.co_names:    # the globals it reads
            v = g.get(k)
            if isinstance(v, Kernel) and v is not self:
                g[k] = v.dispatcher()
        f = self.py_func
        return types.FunctionType(f.__code__, g, f.__name__, f.__defaults__, f.__closure__)

    def dispatcher(self) -> Any:
        """The numba dispatcher (imports numba; compiles, or loads from numba's cache, on
        the first call of each argument types)."""
        if self._jit is None:
            if not NUMBA:
                raise RuntimeError(f"{self.__qualname__} needs numba (not installed)")
            import numba
            self._jit = numba.njit(**self.options)(self.numba_function())
        return self._jit

    def _slow(self) -> Callable:
        """What serves a call the extension does not: numba's dispatcher, or without numba
        the Python function (its kernel calls resolve on their own)."""
        return self.dispatcher() if NUMBA else self.py_func

    def _resolve(self) -> Callable:
        ext = _load_ext(self.__module__)
        fast = getattr(ext, self.export_name, None) if (ext and self.aot) else None
        if fast is None:
            if NUMBA or not self.aot:
                return self._slow()
            state = "is stale (the kernel changed since it was built)" if ext else \
                "is not built" if _aot is not False else "is switched off"
            raise KernelsNotBuilt(
                f"{self.__module__}.{self.__qualname__}: the compiled extension "
                f"{EXT_PACKAGE}.{ext_name(self.__module__)} {state} and numba is not "
                "installed to compile the kernel instead. Build the kernels with `python "
                "tools/build_kernels.py` (needs pythran and a C++ compiler; `make setup` "
                "does it), install fembody from its wheel, or `pip install numba`.")
        self._fast = fast
        guards = _guards(self.aot)
        n = len(_split_args(self.aot))
        names = [f"a{i}" for i in range(n)]
        cond = " or ".join(f"type({names[i]}) is not ndarray or {names[i]}.dtype != d{i}"
                           f" or {names[i]}.ndim != {nd} or not {names[i]}.flags.c_contiguous"
                           for i, _, nd in guards) or "False"
        src = (f"def call({', '.join(names)}):\n"
               f"    if {cond}:\n"
               f"        return slow({', '.join(names)})\n"
               f"    return fast({', '.join(names)})\n")
        env = {"ndarray": np.ndarray, "fast": fast, "slow": lambda *a: self._slow()(*a)}
        env.update({f"d{i}": dt for i, dt, _ in guards})
        exec(src, env)                              # a flat guard: ~0.1 us per array argument
        return env["call"]


def njit(*args: Any, aot: str | None = None, **options: Any) -> Any:
    """``numba.njit`` deferred to the first call (see the module docstring); ``aot``: the
    signature (numba's notation) under which ``tools/build_kernels.py`` exports the function
    from its module's pythran extension (None: called only by other kernels, or numba only). Array arguments ``f8/i8/i4[:]`` (any dimension), scalars
    ``f8/i8/b1``."""
    if aot is not None:
        _guards(aot)                                # refuse unsupported types at definition
    if args and callable(args[0]):
        return Kernel(args[0], options, aot)
    return lambda fn: Kernel(fn, options, aot)
