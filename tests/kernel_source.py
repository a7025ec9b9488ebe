"""A kernel's own Python source run by CPython, for tests that call a kernel the compiled
extensions do not export.

Why: the pythran extensions export a module's entry points (the kernels with an ``aot``
signature) only. A test that calls an inner kernel directly (the compiled step's
``_evaluate``, ``factor``) is served by numba, whose JIT compile of such a kernel with
everything it calls inlined costs far more than the test itself (``_evaluate``: about a
minute of CPU). The property such a test checks is the kernel's arithmetic (two layouts of
one matrix, a factorisation against LAPACK), which the source states: run by CPython, with
every kernel it calls run the same way, the source does the same floating-point operations
in the same order. That the compiled forms compute what the source does is checked apart
(tests/test_kernel_typing.py, and the whole runs compared with the Python path).
"""
from __future__ import annotations

import types
from typing import Callable

from fembody.elements.kernels import Kernel

_TWINS: dict[int, Callable] = {}


def _names(code: types.CodeType) -> set[str]:
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


def python_kernel(k: Kernel) -> Callable:
    """``k``'s Python function, with the kernels it calls (any module's) replaced by their
    own Python twins, recursively: no extension, no numba."""
    twin = _TWINS.get(id(k))
    if twin is not None:
        return twin
    f = k.py_func
    env = dict(f.__globals__)
    twin = types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)
    _TWINS[id(k)] = twin                    # before the callees: recursion ends here
    for name in _names(f.__code__):
        v = env.get(name)
        if isinstance(v, Kernel):
            env[name] = python_kernel(v)
    return twin
