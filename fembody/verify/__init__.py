"""The verification cases of fembody: one registry behind ``fembody verify`` and the test suite.

Each :class:`Case` has a name, a function computing its values (and, for convergence studies,
the data of a plot), the reference values with their tolerance and the source of each
reference (paper or book, with page, table or equation), and whether it belongs to the quick
set. ``tests/test_verify.py`` runs every quick case through :func:`check`, so what the command
certifies is what the suite checks, from the same code.

::

    from fembody import verify
    outcomes = verify.run(quick=True)          # list of Outcome
    print(verify.table(outcomes))
"""
from __future__ import annotations

import math
import time
from typing import Callable

from ..errors import ModelError
from .registry import REGISTRY, Case, Outcome, Row, register

__all__ = ["REGISTRY", "Case", "Outcome", "Row", "register", "cases", "check", "run", "table"]


def cases(quick: bool = False) -> list[Case]:
    """The registered cases (only the quick ones with ``quick``)."""
    from . import beams, integrators, mechanisms, rotating  # noqa: F401  (registers the cases)
    return [c for c in REGISTRY.values() if c.quick or not quick]


def check(case: Case, perturb: bool = False) -> Outcome:
    """Run one case and compare its values with the references; ``perturb`` moves every
    reference of the case by 10 % of its magnitude plus 1 (to see that a miss is caught)."""
    out = Outcome(case)
    t0 = time.perf_counter()
    try:
        got = case.compute()
    except Exception as exc:  # noqa: BLE001 - a case that raises is a failed case
        out.error = f"{type(exc).__name__}: {exc}"
        out.wall = time.perf_counter() - t0
        return out
    out.wall = time.perf_counter() - t0
    out.plots = got.get("plots", [])
    values = got["values"]
    for key, ref in case.reference.items():
        if perturb:
            ref = ref + 0.1 * abs(ref) + 1.0
        v = float(values.get(key, math.nan))
        rel = case.is_relative(key)
        err = abs(v - ref) / abs(ref) if rel else abs(v - ref)
        out.rows.append(Row(key, v, float(ref), err if math.isfinite(err) else math.inf,
                            case.tolerance(key), rel))
    return out


def run(quick: bool = False, names: list[str] | None = None, perturb: tuple = (),
        progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Run the registered cases (``quick``: the quick ones; ``names``: only these), with the
    references of the cases named in ``perturb`` perturbed."""
    todo = cases(quick)
    known = {c.name for c in cases(False)}
    for n in list(names or []) + list(perturb):
        if n not in known:
            raise ModelError(f"verify: no case named {n!r}; the cases are {sorted(known)}")
    if names:
        todo = [c for c in cases(False) if c.name in names]
    outcomes = []
    for c in todo:
        o = check(c, perturb=c.name in perturb)
        outcomes.append(o)
        if progress is not None:
            progress(o)
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    """The pass/fail table: case, quantity, value, reference, error, tolerance, source."""
    lines = [f"{'case':<34}{'quantity':<22}{'value':>14}{'reference':>14}{'error':>11}"
             f"{'tol':>10}  result  source"]
    for o in outcomes:
        if o.error:
            lines.append(f"{o.case.name:<34}{'-':<22}{'':>14}{'':>14}{'':>11}{'':>10}  FAIL    "
                         f"raised {o.error}")
            continue
        for r in o.rows:
            kind = "" if r.relative else " abs"
            lines.append(f"{o.case.name:<34}{r.quantity:<22}{r.value:>14.7g}{r.reference:>14.7g}"
                         f"{r.error:>11.2e}{r.tol:>10.1e}{kind:<4}  {'ok  ' if r.passed else 'FAIL'}"
                         f"  {o.case.source}")
    n_bad = sum(not o.passed for o in outcomes)
    lines.append(f"{len(outcomes) - n_bad} of {len(outcomes)} cases passed"
                 + (f"; FAILED: {', '.join(o.case.name for o in outcomes if not o.passed)}"
                    if n_bad else ""))
    return "\n".join(lines)
