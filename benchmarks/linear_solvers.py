"""The basis of ``linear_solver='auto'`` (issue 29): every backend on the iteration matrices of
four model classes at several sizes, statics and dynamics, beside the Newton iteration that
``auto`` runs on the same model.

Model classes (``--classes``):

- ``planar-chain``: a planar continuous beam of n elements of 3 mm each (10 m at 1e4 DOFs, 1 km
  at 1e6), clamped at x = 0 and resting on a support (y held) every metre, under gravity and
  a tip load (3 DOFs per node): the elements and the spans keep their size as the model grows.
  A cantilever of n elements (a fixed 10 m in ever shorter elements, or, tried, a hanging one
  growing with its 3 mm elements) has a stiffness matrix whose condition number grows like
  n^4 whatever the element length (its softest bending mode against one element's bending):
  at 1e6 DOFs the Cholesky backends met a negative pivot made of round-off. With a support
  per metre the condition number is that of one span;
- ``spatial-chain``: a spatial cantilever of 10 m in n elements (6 DOFs per node);
- ``spatial-grid``: issue 29's grid of 3D beams, k x k cells of 0.1 m, one element per member,
  edges clamped, a centre load and gravity (k = 40: 9126 DOFs);
- ``mechanism``: a hanging planar chain of two-element beam links, each joined to the next by
  a Pin (2 constraint rows per link; the top one pinned to the ground), a tip load: a saddle
  point with many constraint rows (dynamics only: fb.static refuses a mechanism).

For each (class, size, statics / dynamics): the wall time of one numeric factorisation + one
solve of the iteration matrix (statics: K_T; dynamics: K_T + M / (beta h^2), beta = 1/4,
h = 1 ms) at a perturbed state (0.1 um: a real iteration matrix, definite where the
model is, whose spatial tangent is not symmetric), through ``saddle_solver(system, backend)`` as a
Newton iteration calls it, the best of ``--repeat`` after one untimed call (the symbolic
analysis); every backend valid for the matrix (the symmetric ones on planar models only; dense
up to 3000 unknowns; the Schur complement paths up to SCHUR_MAX constraint rows; the banded LU
while its band storage stays under 400 MB; the optional UMFPACK, Pardiso, MUMPS when
importable); the backward error of the solve. Beside it, the
Newton iteration of ``auto``: ``fb.static`` and ``fb.simulate``, wall time per Newton
iteration in steady state (:func:`newton`), and its ratio to the best factorise + solve (issue
29's aim: <= 1.5). Peak memory (max RSS) after each class and size.

Writes benchmarks/results/linear_solvers.json (the machine, its load before and after every
row, the rows) and prints a table.

    python benchmarks/linear_solvers.py [--sizes 1e3,1e4] [--classes ...] [--repeat 3] [--append]

(the recorded table: ``--sizes 1e3,1e4``, then ``--sizes 1e5 --classes
planar-chain,spatial-chain,spatial-grid --append``; rows re-measured later with ``--append``
replace their old ones. Rows with ``newton_over_best_cpu`` carry CPU times too: the
ratio to read on a loaded machine)
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np
import scipy.sparse as sp

import fembody as fb
from fembody.linalg import factorization, linalg
from fembody.linalg.banded import half_bandwidth

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.01, h=0.01)
CHAIN_SEC = fb.Section.rectangle(b=0.05, h=0.05)
SYMMETRIC = ("envelope", "cholmod", "ldl", "schur", "banded", "superlu", "dense")
GENERAL = ("banded", "superlu", "dense")
OPTIONAL = tuple(n for n in factorization.OPTIONAL if factorization.available(n))
BETA_H2 = 1.0 / (0.25 * 1e-3 ** 2)


CHAIN_ELEMENT = 10.0 / 3333      # [m] the planar chain's element length
CHAIN_SPAN = 300                 # elements between two supports of the planar chain (1 m)


def planar_chain(ndof: int) -> fb.Model:
    """A continuous beam of ``ndof / 3`` elements of ``CHAIN_ELEMENT`` (a 5 cm square steel
    section), clamped at x = 0, its vertical displacement held every ``CHAIN_SPAN``
    elements; gravity and a tip load bend each span by a few um."""
    n = max(2, ndof // 3)
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (CHAIN_ELEMENT * n, 0.0), n, material=STEEL,
                   section=CHAIN_SEC)
    m.fix(b.first)
    for i in range(CHAIN_SPAN, n + 1, CHAIN_SPAN):
        m.fix(b.nodes[i], "y")
    m.add_force(b.last, (0.0, -10.0))
    return m


def spatial_chain(ndof: int) -> fb.Model:
    n = max(2, ndof // 6)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0.0, 0.0, 0.0), (10.0, 0.0, 0.0), n, material=STEEL, section=CHAIN_SEC)
    m.fix(b.first)
    m.add_force(b.last, (0.0, 0.0, -10.0))
    return m


def spatial_grid(ndof: int) -> fb.Model:
    k = max(2, int(round(np.sqrt(ndof / 6.0))) + 1)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    nodes = [[m.add_node((i * 0.1, j * 0.1, 0.0)) for j in range(k + 1)] for i in range(k + 1)]
    for i in range(k + 1):
        for j in range(k + 1):
            if i < k:
                m.add_beam(nodes[i][j], nodes[i + 1][j], 1, material=STEEL, section=SEC)
            if j < k:
                m.add_beam(nodes[i][j], nodes[i][j + 1], 1, material=STEEL, section=SEC)
            if i in (0, k) or j in (0, k):
                m.fix(nodes[i][j])
    m.add_force(nodes[k // 2][k // 2], (0.0, 0.0, -100.0))
    return m


def mechanism(ndof: int) -> fb.Model:
    links = max(2, ndof // 9)
    m = fb.Model(gravity=(0.0, -9.81))
    prev = None
    for i in range(links):
        b = m.add_beam((0.0, -0.1 * i), (0.0, -0.1 * (i + 1)), 2, material=STEEL, section=SEC)
        m.add_joint(fb.Pin(m.ground if prev is None else prev.last, b.first))
        prev = b
    m.add_force(prev.last, (1e-3, 0.0))
    return m


CLASSES = {"planar-chain": planar_chain, "spatial-chain": spatial_chain,
           "spatial-grid": spatial_grid, "mechanism": mechanism}


def matrices(s, dynamic: bool):
    rng = np.random.default_rng(0)
    q = s.space.update(s.q0, 1e-7 * rng.standard_normal(s.n_dof) * ~s.is_fixed)
    _, K, _ = s.internal_forces(q)
    S = K + BETA_H2 * s.M_const if dynamic else K
    Bdata = s.constraints(q).Bdata if s.n_con else np.zeros(0)
    return S, Bdata, rng.standard_normal(s.n_free), rng.standard_normal(s.n_con)


def backward_error(s, S, Bdata, r, c, dq, lam) -> float:
    A = s.csc(S).tocsc()
    if s.n_con:
        B = s.B_matrix(Bdata)
        A = sp.bmat([[A, B.T], [B, None]], format="csc")
    x, b = np.r_[dq, lam], np.r_[r, c]
    return float(np.abs(A @ x - b).max() / (abs(A).max() * np.abs(x).max() + np.abs(b).max()))


def factor_solve(s, method: str, S, Bdata, r, c, repeat: int) -> dict:
    """The best of ``repeat`` factorise + solve, wall [s] and CPU [s] (process time: what a
    loaded machine does not inflate; a multi-threaded backend's CPU counts all its threads)."""
    solver = linalg.saddle_solver(s, method)
    solver.factorize(S, Bdata)               # the analysis (ordering, symbolic), untimed
    solver.solve(r, c)
    best = best_cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        solver.factorize(S, Bdata)
        dq, lam = solver.solve(r, c)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return {"s": best, "cpu_s": best_cpu, "active": solver.active,
            "backward_error": backward_error(s, S, Bdata, r, c, dq, lam)}


def newton(build, size: int, dynamic: bool) -> dict:
    """Wall and CPU time per Newton iteration of ``auto`` in steady state: two runs of the
    same model, the second longer (3 and 6 time steps of 1 ms; 1 and 3 load steps), the
    difference of their times over the difference of their Newton iterations (so the start-up,
    the support and stability checks of the first step, drop out). The CPU time (process time
    of the whole call) is the reading on a loaded machine: there the wall time of a run counts
    the other sessions' share of the cores, differently in the two runs."""
    runs = []
    for length in ((3, 6) if dynamic else (1, 3)):
        model = build(size)
        c0 = time.process_time()
        res = (fb.simulate(model, t_end=length * 1e-3, dt=1e-3) if dynamic
               else fb.static(model, steps=length))
        runs.append(dict(res.stats, cpu_time=time.process_time() - c0))
    a, b = runs
    dn = max(b["n_newton"] - a["n_newton"], 1)
    return {"s_per_iter": max(b["wall_time"] - a["wall_time"], 0.0) / dn,
            "cpu_s_per_iter": max(b["cpu_time"] - a["cpu_time"], 0.0) / dn,
            "s_per_iter_first_run": a["wall_time"] / max(a["n_newton"], 1),
            "n_newton": [a["n_newton"], b["n_newton"]],
            "n_factor": [a["n_factor"], b["n_factor"]], "active": b.get("linear_solver")}


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e3,1e4")
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default="linear_solvers")
    ap.add_argument("--append", action="store_true",
                    help="add the rows to those already in the output file (a row of the "
                    "same class, job and size within 5 %% replaces the old one)")
    args = ap.parse_args()
    rows = []
    if args.append:
        import json
        from _common import RESULTS
        rows = json.loads((RESULTS / f"{args.out}.json").read_text())["rows"]
    for cls in args.classes.split(","):
        for size in (int(float(x)) for x in args.sizes.split(",")):
            model = CLASSES[cls](size)
            s = model.compile()
            bw = half_bandwidth(s.indptr, s.indices, s.n_free)[0]
            methods = ("auto",) + (SYMMETRIC if s.dim == 2 else GENERAL) + OPTIONAL
            # a mechanism has no static stiffness (fb.static refuses it): dynamics only
            for dynamic in ((True,) if cls == "mechanism" else (False, True)):
                row = {"class": cls, "n_dof": s.n_free, "n_con": s.n_con,
                       "job": "dynamics" if dynamic else "statics",
                       "load_before": os.getloadavg()[0], "factor_solve": {}}
                S, Bdata, r, c = matrices(s, dynamic)
                for method in methods:
                    if method == "dense" and s.n_free + s.n_con > 3000:
                        continue
                    if method == "banded" and (3 * bw + 1) * 8 * (s.n_free + s.n_con) > 4e8:
                        continue
                    if method in ("ldl", "schur") and not s.n_con:
                        continue
                    # the dense Schur complement of many rows (m^2 n): not a choice there
                    if method in ("envelope", "schur") and s.n_con > linalg.SCHUR_MAX:
                        continue
                    try:
                        row["factor_solve"][method] = factor_solve(s, method, S, Bdata, r, c,
                                                                   args.repeat)
                    except Exception as exc:     # noqa: BLE001 - recorded, e.g. not definite
                        row["factor_solve"][method] = {"error": f"{type(exc).__name__}: {exc}"}
                timed = {k: v["s"] for k, v in row["factor_solve"].items() if "s" in v}
                cpu = {k: v["cpu_s"] for k, v in row["factor_solve"].items() if "s" in v}
                best, best_cpu = min(timed, key=timed.get), min(cpu, key=cpu.get)
                row["best"], row["best_cpu"] = best, best_cpu
                row["newton_auto"] = newton(CLASSES[cls], size, dynamic)
                row["newton_over_best"] = row["newton_auto"]["s_per_iter"] / timed[best]
                row["newton_over_best_cpu"] = (row["newton_auto"]["cpu_s_per_iter"]
                                               / cpu[best_cpu])
                row["load_after"] = os.getloadavg()[0]
                row["peak_mib"] = peak_mib()
                # the same class, job and size (within 5 %: a model's supports may change
                # its free DOFs) replace the old row
                rows = [x for x in rows if (x["class"], x["job"]) != (cls, row["job"])
                        or abs(x["n_dof"] - s.n_free) > 0.05 * s.n_free] + [row]
                cells = "  ".join(f"{k} {1e3 * v:.1f}" for k, v in sorted(timed.items(),
                                                                         key=lambda kv: kv[1]))
                print(f"{cls:14s} {s.n_free:7d} {row['job']:9s} auto->"
                      f"{row['factor_solve']['auto'].get('active')}  best {best}  "
                      f"newton {1e3 * row['newton_auto']['s_per_iter']:.1f} ms "
                      f"({row['newton_over_best']:.2f}x wall, "
                      f"{row['newton_over_best_cpu']:.2f}x CPU against {best_cpu})  "
                      f"[{cells}] ms  load "
                      f"{row['load_before']:.1f}", flush=True)
    path = save(args.out, {"machine": machine(), "threads": os.environ.get(
        "OPENBLAS_NUM_THREADS", "default"), "rows": rows})
    print(f"saved {path}")


if __name__ == "__main__":
    main()
