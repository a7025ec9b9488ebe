"""The spatial flexible pendulum of benchmarks/pendulum3d.py in Exudyn (issue 13's side-by-side
timing; Exudyn is not a fembody dependency): Exudyn's geometrically exact 3D beam
(ObjectBeamGeometricallyExact, two rigid-body nodes per element), steel L = 1 m, 10 x 10 mm
(the section constants are fembody's Section.rectangle: the same EA, GA k, GJ, EI, rho A,
rho J), held by a spherical joint at x = 0, released horizontally under gravity -z;
generalized-alpha rho_inf = 0.9, h = 1e-3, sparse solver (EigenSparse), modified Newton.

    python benchmarks/exudyn_pendulum3d.py [n_elements] [t_end]

Nodes: NodeRigidBodyEP (Euler parameters; Exudyn's implicit solver with its Lie-group nodes,
NodeRigidBodyRotVecLG, took 260 x longer on this run). Prints one JSON line: wall and CPU
time of the solve, ms per step, the tip position. Exits with status 3 when exudyn is not installed (add its install to PYTHONPATH).
"""
from __future__ import annotations

import json
import os
import sys
import time

try:
    import exudyn as exu
    from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerNodePosition,
                                      MarkerBodyPosition, NodeRigidBodyEP,
                                      ObjectBeamGeometricallyExact, ObjectGround,
                                      ObjectJointSpherical)
except ImportError:
    print(json.dumps({"error": "exudyn not installed"}))
    sys.exit(3)
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import fembody as fb  # noqa: E402  (only for the section constants)


def build(n: int):
    s = fb.Section.rectangle(b=0.01, h=0.01).beam3d(fb.Material(E=2.1e11, rho=7850.0, nu=0.3))
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    sec = exu.BeamSection()
    sec.stiffnessMatrix = np.diag([s.EA, s.GA_y, s.GA_z, s.GJ, s.EI_y, s.EI_z])
    sec.inertia = np.diag([s.rhoJ, s.rhoI_y, s.rhoI_z])
    sec.massPerLength = s.rhoA
    le = 1.0 / n
    nodes = [mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[i * le, 0.0, 0.0, 1.0, 0.0, 0.0,
                                                               0.0])) for i in range(n + 1)]
    for i in range(n):
        obj = mbs.AddObject(ObjectBeamGeometricallyExact(nodeNumbers=[nodes[i], nodes[i + 1]],
                                                         physicsLength=le, sectionData=sec))
        mk = mbs.AddMarker(MarkerBodyMass(bodyNumber=obj))
        mbs.AddLoad(LoadMassProportional(markerNumber=mk, loadVector=[0.0, 0.0, -9.81]))
    ground = mbs.AddObject(ObjectGround())
    mg = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    m0 = mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[0]))
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[mg, m0]))
    mbs.Assemble()
    return SC, mbs, nodes


def solve(mbs, t_end: float) -> None:
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(round(t_end / 1e-3))
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = 0.9
    ss.timeIntegration.newton.useModifiedNewton = True     # Jacobian only when needed
    # as in Exudyn's own geometrically exact beam tests; 1e-8 is not reached in round-off at
    # this stiffness
    ss.timeIntegration.newton.relativeTolerance = 1e-6
    ss.timeIntegration.verboseMode = int(os.environ.get("EXU_VERBOSE", 0))
    ss.solution.file.write = False
    ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    ss.show.statistics = False
    mbs.SolveDynamic(ss)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    SC, mbs, nodes = build(n)
    t0, c0 = time.perf_counter(), time.process_time()
    solve(mbs, t_end)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    steps = int(round(t_end / 1e-3))
    tip = mbs.GetNodeOutput(nodes[-1], exu.OutputVariableType.Position)
    print(json.dumps({"elements": n, "solve_s": wall, "cpu_s": cpu,
                      "ms_per_step": 1e3 * wall / steps, "cpu_ms_per_step": 1e3 * cpu / steps,
                      "tip": [float(v) for v in tip]}))


if __name__ == "__main__":
    main()
