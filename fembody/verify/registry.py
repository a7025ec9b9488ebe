"""The registry of verification cases: what a case is, what its outcome is."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..errors import ModelError


@dataclass
class Case:
    """One verification case.

    compute : a function without arguments returning ``{"values": {name: number}, "plots":
        [plot dicts]}`` (plots optional: ``x``, ``series`` {label: y}, ``xlabel``, ``ylabel``,
        ``title``, ``loglog``).
    reference : {name: reference value}; each computed value is compared with its reference.
    tol : {name: tolerance} (or one number for all); ``relative`` says whether the error is
        ``|v - ref| / |ref|`` (True) or ``|v - ref|`` (False; for orders and drifts).
    source : where the reference comes from.
    quick : in ``fembody verify --quick`` and the test suite (else only in the full run).
    """

    name: str
    compute: Callable[[], dict]
    reference: dict
    tol: dict | float
    source: str
    relative: bool | dict = True
    quick: bool = True
    description: str = ""

    def tolerance(self, key: str) -> float:
        return self.tol[key] if isinstance(self.tol, dict) else float(self.tol)

    def is_relative(self, key: str) -> bool:
        return self.relative[key] if isinstance(self.relative, dict) else bool(self.relative)


@dataclass
class Row:
    """One compared value."""

    quantity: str
    value: float
    reference: float
    error: float
    tol: float
    relative: bool

    @property
    def passed(self) -> bool:
        return math.isfinite(self.error) and self.error <= self.tol


@dataclass
class Outcome:
    """The result of one case: its rows, plots, wall time [s] and the error raised, if any."""

    case: Case
    rows: list = field(default_factory=list)
    plots: list = field(default_factory=list)
    wall: float = 0.0
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and bool(self.rows) and all(r.passed for r in self.rows)

    def explain(self) -> str:
        """What failed, in words (for assertion messages)."""
        if self.error:
            return f"{self.case.name}: raised {self.error}"
        bad = [f"{r.quantity} = {r.value:.8g}, reference {r.reference:.8g}, error "
               f"{r.error:.3g} > tol {r.tol:.3g}" for r in self.rows if not r.passed]
        return f"{self.case.name}: " + ("; ".join(bad) or "passed")


REGISTRY: dict[str, Case] = {}


def register(case: Case) -> Case:
    if case.name in REGISTRY:
        raise ModelError(f"verification case {case.name!r} registered twice")
    REGISTRY[case.name] = case
    return case
