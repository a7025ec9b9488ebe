"""The cost of a contact statics users feel (issue 33, stat-33): Code_Aster's ssnv505 /
ssnv505m in fembody (tests/contact/test_ssnv505.py, test_ssnv505m.py: two cantilevers, the
tip of one driven onto the other by 1210.59166 N at C, penalty 1e8 N/m), whole
``fb.static`` runs. Key ``stat_33`` of benchmarks/results/beam_bundle.json (stat-33's
figures); from stat2-33 on, benchmarks/results/contact_statics.json (key ``stat2_33``).

Cases: ``frictionless`` (20 elements per beam, 4 load steps: test_ssnv505.py's contact
phase), ``mu1e-6`` and ``mu0.3`` (20 elements, 8 load steps, ssnv505m's tangential penalty
1e8 N/m; mu 0.3 with ``unstable='accept'``: its slipping states flutter by the check on the
base and the branch alike), ``mu1e-6_40`` (the reference's 40 elements, 8 load steps: the
slow test); stat2-33's VARIANTS (3D, welded, rigid plane / cylinder). Per run: accepted
load steps, Newton iterations, residual evaluations (the line search's among them), CPU
time and C's deflection. Each run is a fresh process per
tree, rounds interleaved between this tree and ``--base`` (another checkout with its
kernels built, e.g. a detached worktree of the base commit).

    python benchmarks/contact_statics.py --base /tmp/bb-stat-33 [--rounds 3] [--stability auto]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _common import machine, save  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MM = 1e-3
E, NU = 6.8948e9, 0.33333
FORCE = 1210.59166                # ssnv505h's force at t = 0.4 [N]
E_T = 1e8                         # ssnv505m's tangential penalty [N/m]
CASES = {"frictionless": (20, 4, None), "mu1e-6": (20, 8, 1e-6), "mu0.3": (20, 8, 0.3),
         "mu1e-6_40": (40, 8, 1e-6)}
# stat2-33: the same contact phase built in 3D (Code_Aster's DZ = DRX = DRY = 0 kept), with
# beam 2 in two bodies welded at C, and beam 2 alone on a rigid plane / cylinder in place
# of beam 1 (tests/contact/test_ssnv505_search.py); 4 load steps each
VARIANTS = {"3d": (20, 4, None), "3d_mu0.3": (20, 4, 0.3), "weld": (20, 4, None),
            "weld_mu0.3": (20, 4, 0.3), "plane_mu0.3": (20, 4, 0.3),
            "cylinder": (20, 4, None), "cylinder_mu0.3": (20, 4, 0.3)}
CASES |= VARIANTS


def _model(name: str):
    """(model, C) of the case ``name``."""
    import fembody as fb
    n, _, mu = CASES[name]
    kind = name.split("_mu")[0] if name in VARIANTS else "planar"
    dim = 3 if kind == "3d" else 2
    mat = fb.Material(E=E, rho=7800.0, nu=NU)
    sec = fb.Section.rectangle(b=10.16 * MM, h=63.5 * MM)
    m = fb.Model(dim=dim)
    P = (lambda x, y: (x, y)) if dim == 2 else (lambda x, y: (x, y, 0.0))
    kw = {} if mu is None else dict(friction=mu, tangential_stiffness=E_T)
    top = 63.5 * MM / 2
    tip, B = P(914.4 * MM, 508 * MM), P(2946.4 * MM, 508 * MM)
    if kind == "weld":
        at = P(1625.6 * MM, 508 * MM)
        b2 = m.add_beam(tip, at, n=7 * n // 20, material=mat, section=sec)
        rest = m.add_beam(at, B, n=n - 7 * n // 20, material=mat, section=sec)
        m.add_joint(fb.Weld(b2.last, rest.first))
        m.fix(rest.last)
        C = b2.last
    else:
        b2 = m.add_beam(tip, B, n=n, material=mat, section=sec)
        m.fix(b2.last)
        C = b2.nodes[14 * n // 40]
    m.add_force(C, P(0.0, -FORCE))
    if kind in ("plane", "cylinder"):
        surface = (fb.Plane((0.0, top), (0.0, 1.0)) if kind == "plane" else
                   fb.Cylinder((1.0, top - 0.1), radius=0.1))
        m.add_surface_contact(b2, surface, radius=top, stiffness=1e8, **kw)
        return m, C
    b1 = m.add_beam(P(0.0, 0.0), P(2032 * MM, 0.0), n=n, material=mat, section=sec)
    m.fix(b1.first)
    if dim == 3:
        for node in b1.nodes[1:] + b2.nodes[:-1]:
            m.fix(node, "z", "rx", "ry")
    m.add_beam_contact(b1, b2, radius=top, stiffness=1e8, margin=0.5, **kw)
    return m, C


def run_case(name: str, stability: str = "check") -> dict:
    """One whole static run of the case ``name`` (CASES) in this process, with the
    stability check ``stability`` ('check': the converged state's factor starts the next
    load step; 'auto', fb.static's default: an extrapolated predictor may); a run that
    fails is reported with its error (the base's 'weld' cases)."""
    import warnings

    import fembody as fb
    _, steps, mu = CASES[name]
    m, C = _model(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.process_time()
        try:
            r = fb.static(m, steps=steps, stability=stability,
                          unstable="accept" if mu == 0.3 else "auto")
        except Exception as err:        # (the row says which and where)
            return dict(case=name, error=str(err)[:160], cpu_s=time.process_time() - t0,
                        accepted=-1, n_newton=-1, n_residual=-1, n_line_search=-1,
                        n_factor=-1, deflection_C=float("nan"))
        cpu = time.process_time() - t0
    st = r.stats
    return dict(case=name, accepted=len(r), n_newton=st["n_newton"],
                n_residual=st["n_residual"], n_line_search=st.get("n_line_search", 0),
                n_factor=st["n_factor"], cpu_s=cpu,
                deflection_C=float(-r.displacement(C)[-1][1]))


def _child(tree: str, name: str, stability: str) -> dict:
    env = dict(os.environ, PYTHONPATH=tree, OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, os.path.join(HERE, "contact_statics.py"), "--one",
                          name, "--stability", stability], env=env, cwd=tree,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="another checkout to compare with (interleaved)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--stability", default="check", choices=("check", "auto"),
                    help="fb.static's stability check (results key stat2_33 for 'check', "
                         "stat2_33_auto for 'auto')")
    ap.add_argument("--no-save", action="store_true")
    a = ap.parse_args()
    if a.one:
        print(json.dumps(run_case(a.one, a.stability)))
        return
    tree = os.path.dirname(HERE)
    trees = {"branch": tree} | ({"base": os.path.abspath(a.base)} if a.base else {})
    rows = []
    for k in range(a.rounds):
        for name in a.cases.split(","):
            for label, path in trees.items():
                row = _child(path, name, a.stability) | {
                    "tree": label, "round": k, "stability": a.stability,
                    "load": os.getloadavg()[0]}
                rows.append(row)
                print(f"{label:>6} {name:>12} round {k}: {row['accepted']:3d} steps "
                      f"{row['n_newton']:5d} Newton {row['n_residual']:5d} residuals "
                      f"cpu {row['cpu_s']:6.2f} s  C {row['deflection_C']:.9f} m  "
                      f"load {row['load']:.1f}", flush=True)
    if not a.no_save:
        key = "stat2_33" if a.stability == "check" else "stat2_33_auto"
        save("contact_statics", {key: dict(machine=machine(), runs=rows)})


if __name__ == "__main__":
    main()
