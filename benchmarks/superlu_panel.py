"""SuperLU's own parameters on the iteration matrices of the bundle of beams with Coulomb
friction (issue 33, speed; fembody/linalg/sparse_lu.py "Panel size"): the matrices of a
run are captured (``friction_solvers.capture``) and each matrix's nonzeros are permuted
symmetrically by one column ordering, then factorised in SuperLU's symmetric mode with the
NATURAL order (what ``OrderedSuperLU`` does with a kept ordering), at several panel widths
and supernode relaxations, in interleaved rounds (CPU time, median): time per factorisation
and per solve, the entries of L + U, and on three matrices the solution's difference from
dense LU's and its residual. Orderings: SuperLU's minimum degree on A^T + A (today's),
CHOLMOD's AMD and METIS of the same pattern handed in as the fixed permutation; and SciPy's
default (COLAMD, partial pivoting) on each matrix for reference.

With ``--sizes`` also the tangents of benchmarks/large.py's 3D beam grid and frame tower at
those sizes (benchmarks/large_superlu_ordering.py's ``tangent``), factorised with their kept
ordering at the default width and at 1, 2 and 4 columns.

Writes the key ``fric_33_superlu`` of benchmarks/results/beam_bundle.json.

    python benchmarks/superlu_panel.py [--steps 10] [--rounds 3] [--sizes 1e4,3e4]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402
from friction_solvers import capture  # noqa: E402

from fembody.linalg import sparse_lu  # noqa: E402

PANELS = (None, 1, 2, 4, 8)
RELAX = (1, 4, 16, 32)


def _splu(C, panel=None, relax=None, permc="NATURAL"):
    spla = importlib.import_module("scipy.sparse.linalg")
    return spla.splu(C, permc_spec=permc, diag_pivot_thresh=sparse_lu.DIAG_PIVOT,
                     panel_size=panel, relax=relax, options={"SymmetricMode": True})


def orderings(groups: list) -> dict:
    """Per ordering the permutation of each matrix's nonzeros (inverse of SuperLU's
    ``perm_c`` for its own minimum degree; CHOLMOD's ``P()`` for AMD and METIS)."""
    chol = importlib.import_module("sksparse.cholmod")
    sp = importlib.import_module("scipy.sparse")
    out: dict = {"mmd_at_plus_a": [], "amd": [], "metis": []}
    for A, _ in groups:
        B = sparse_lu.nonzeros(A)
        out["mmd_at_plus_a"].append(np.argsort(_splu(B, permc="MMD_AT_PLUS_A").perm_c))
        P = sp.csc_matrix((np.ones(B.nnz), B.indices, B.indptr), shape=B.shape)
        P = (P + P.T).tocsc()
        for m in ("amd", "metis"):
            out[m].append(chol.analyze(P, mode="simplicial", ordering_method=m).P())
    return out


def bundle(steps: int, rounds: int) -> dict:
    sla = importlib.import_module("scipy.linalg")
    spla = importlib.import_module("scipy.sparse.linalg")
    groups, _ = capture(steps)
    perms = orderings(groups)
    mats = {m: [sparse_lu.nonzeros(A)[p][:, p].tocsc() for (A, _), p in zip(groups, ps)]
            for m, ps in perms.items()}
    cases = [(m, pw, None) for m in mats for pw in PANELS]
    cases += [("mmd_at_plus_a", pw, r) for pw in (None, 1) for r in RELAX]
    times: dict = {c: [] for c in cases}
    colamd: list = []
    for _ in range(rounds):
        for c in cases:
            m, pw, r = c
            tf = ts = 0.0
            fill = 0
            for C, (A, sol) in zip(mats[m], groups):
                t0 = time.process_time()
                lu = _splu(C, pw, r)
                tf += time.process_time() - t0
                for b, _ in sol[:1]:
                    t0 = time.process_time()
                    lu.solve(b)
                    ts += time.process_time() - t0
                fill += lu.nnz
            times[c].append((tf, ts, fill))
        tf = 0.0
        for A, _ in groups:
            t0 = time.process_time()
            spla.splu(sparse_lu.nonzeros(A))
            tf += time.process_time() - t0
        colamd.append(tf)
    n = len(groups)
    rows = []
    for (m, pw, r), v in times.items():
        rows.append(dict(ordering=m, panel_size=pw, relax=r,
                         ms_per_factorisation=1e3 * float(np.median([a for a, _, _ in v])) / n,
                         ms_per_solve=1e3 * float(np.median([b for _, b, _ in v])) / n,
                         lu_entries_mean=v[0][2] / n))
    # accuracy: three matrices, today's ordering, default width and one column, dense LU
    acc = []
    for k in (0, n // 2, n - 1):
        A, sol = groups[k]
        B = sparse_lu.nonzeros(A)
        b = sol[0][0]
        xd = sla.lu_solve(sla.lu_factor(B.toarray()), b)
        p = perms["mmd_at_plus_a"][k]
        C = mats["mmd_at_plus_a"][k]
        row = {"matrix": k, "dense_residual": float(
            np.abs(B @ xd - b).max() / (abs(B).max() * np.abs(xd).max()))}
        lus = {}
        for pw in (None, 1):
            lus[pw] = lu = _splu(C, pw)
            x = np.empty_like(b)
            x[p] = lu.solve(b[p])
            row[f"panel_{pw}"] = {
                "rel_diff_dense": float(np.abs(x - xd).max() / np.abs(xd).max()),
                "residual": float(np.abs(B @ x - b).max() / (abs(B).max() * np.abs(x).max()))}
        row["same_permutations"] = bool(
            np.array_equal(lus[None].perm_r, lus[1].perm_r)
            and np.array_equal(lus[None].perm_c, lus[1].perm_c))
        acc.append(row)
    return {"matrices": n, "unknowns": int(groups[0][0].shape[0]),
            "nonzeros_mean": float(np.mean([sparse_lu.nonzeros(A).nnz for A, _ in groups])),
            "colamd_partial_pivoting_ms_per_factorisation":
                1e3 * float(np.median(colamd)) / n,
            "rows": rows, "accuracy": acc}


def large_tangents(sizes: list[float], rounds: int) -> list:
    import large_superlu_ordering as lso
    out = []
    for kind in ("sgrid", "frame3d"):
        for nd in sizes:
            A, _ = lso.tangent(kind, nd)
            o = sparse_lu.OrderedSuperLU()
            o.factorize(A)
            B = o._order.permuted(A)
            t: dict = {pw: [] for pw in (None, 1, 2, 4)}
            for _ in range(rounds):
                for pw in t:
                    t0 = time.process_time()
                    lu = _splu(B, pw)
                    t[pw].append(time.process_time() - t0)
                    fill = lu.nnz
                    del lu
            out.append(dict(model=kind, unknowns=int(A.shape[0]), lu_entries=int(fill),
                            ms_per_factorisation={str(k): 1e3 * float(np.median(v))
                                                  for k, v in t.items()}))
            print(out[-1], flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="")
    args = ap.parse_args()
    res = bundle(args.steps, args.rounds)
    print(f"friction bundle: {res['matrices']} matrices of {res['unknowns']} unknowns; CPU ms "
          f"per factorisation | per solve, median of {args.rounds} rounds (load "
          f"{os.getloadavg()[0]:.1f}); COLAMD with partial pivoting "
          f"{res['colamd_partial_pivoting_ms_per_factorisation']:.2f}")
    for r in res["rows"]:
        print(f"  {r['ordering']:14s} panel {str(r['panel_size']):5s} relax "
              f"{str(r['relax']):5s} {r['ms_per_factorisation']:6.2f} | "
              f"{r['ms_per_solve']:6.3f}  L+U {r['lu_entries_mean']:.0f}")
    for a in res["accuracy"]:
        print("  accuracy", a)
    sizes = [float(s) for s in args.sizes.split(",") if s]
    large = large_tangents(sizes, args.rounds) if sizes else []
    save("beam_bundle", {"fric_33_superlu": {
        "what": "benchmarks/superlu_panel.py: SuperLU's ordering, panel width and relaxation "
                "on the friction bundle's replayed iteration matrices (each on its nonzeros, "
                "permuted by the ordering, NATURAL in symmetric mode) and on the kept "
                "orderings of large.py's tangents; CPU ms, median of the rounds",
        "machine": machine(), "load": os.getloadavg()[0], "rounds": args.rounds,
        "steps": args.steps, "bundle": res, "large": large}})


if __name__ == "__main__":
    main()
