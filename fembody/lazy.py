"""Modules imported when first used, so that ``import fembody`` stays fast (issue 17).

``sla = lazy_module("scipy.linalg")`` binds a stand-in whose first attribute access imports
the module; from then on its attributes are copied onto the stand-in, so later accesses cost
what an ordinary module attribute costs.
"""
from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, Callable

#: called with the module's name after a stand-in first imports its module (e.g.
#: fembody.linalg.blas_threads, which sets up the BLAS library such an import loads)
AFTER_IMPORT: list[Callable[[str], None]] = []


class LazyModule(ModuleType):
    """Stands for the module ``name`` until an attribute is read."""

    def __init__(self, name: str) -> None:
        super().__init__(name)

    def __getattr__(self, attr: str) -> Any:        # only for names not yet copied
        mod = importlib.import_module(self.__name__)
        first = not self.__dict__.get("_lazy_loaded", False)
        self.__dict__.update({k: v for k, v in vars(mod).items() if not k.startswith("__")})
        if first:
            self.__dict__["_lazy_loaded"] = True
            for hook in AFTER_IMPORT:
                hook(self.__name__)
        return getattr(mod, attr)


def lazy_module(name: str) -> Any:
    """A stand-in for ``import name`` that imports on first attribute access."""
    return LazyModule(name)
