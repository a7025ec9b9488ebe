"""The flexible pendulum of benchmarks/dynamics.py in Exudyn (for issue 17's side-by-side
timing; Exudyn is not a fembody dependency). A planar geometrically exact beam L = 1 m,
0.02 x 0.02 m, E = 1e9 Pa, nu = 0.3, rho = 1000 kg/m^3, pinned at x = 0, released horizontally
under gravity; generalized-alpha rho_inf = 0.9, h = 1e-3, 1 s, sparse solver.

    python benchmarks/exudyn_pendulum.py [n_elements] [t_end]

Prints one JSON line: wall times of import, build and solve, the tip position and peak memory.
Exits with status 3 if exudyn is not installed.
"""
from __future__ import annotations

import json
import resource
import sys
import time

t0 = time.perf_counter()
try:
    import exudyn as exu
    from exudyn.itemInterface import (MarkerBodyMass, MarkerNodePosition, NodePointGround,
                                      NodeRigidBody2D, ObjectBeamGeometricallyExact2D,
                                      ObjectGround, ObjectJointRevolute2D, LoadMassProportional,
                                      MarkerBodyRigid)  # noqa: F401
except ImportError:
    print(json.dumps({"error": "exudyn not installed"}))
    sys.exit(3)
t_import = time.perf_counter() - t0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    t_end = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    t1 = time.perf_counter()
    E, rho, nu, b, L = 1e9, 1000.0, 0.3, 0.02, 1.0
    A, I = b * b, b ** 4 / 12.0
    G = E / (2.0 * (1.0 + nu))
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    le = L / n
    nodes = [mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[i * le, 0.0, 0.0]))
             for i in range(n + 1)]
    for i in range(n):
        obj = mbs.AddObject(ObjectBeamGeometricallyExact2D(
            nodeNumbers=[nodes[i], nodes[i + 1]], length=le,
            massPerLength=rho * A, crossSectionInertia=rho * I,
            bendingStiffness=E * I, axialStiffness=E * A,
            shearStiffness=G * A * 5.0 / 6.0))
        mk = mbs.AddMarker(MarkerBodyMass(bodyNumber=obj))
        mbs.AddLoad(LoadMassProportional(markerNumber=mk, loadVector=[0.0, -9.81, 0.0]))
    ground = mbs.AddObject(ObjectGround())
    from exudyn.itemInterface import MarkerBodyPosition
    mg = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    m0 = mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes[0]))
    mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[mg, m0]))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(round(t_end / 1e-3))
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = 0.9
    ss.timeIntegration.newton.useModifiedNewton = True     # Jacobian only when needed
    # default 1e-8 is not reached in round-off at this stiffness (endless step reductions);
    # fembody stops at |r| <= 1e-8 of the force scale or |dq| small: about the same accuracy
    ss.timeIntegration.newton.relativeTolerance = 1e-6
    # relativeTolerance is relative to each step's initial residual, which falls to ~1.5 (as
    # Exudyn prints it) while the round-off floor of the residual grows with the number of
    # elements (stiff short elements): at 1024 elements the floor is 1.5e-6 from t = 0.86 s
    # on, so 1e-6 of 1.5 is out of reach, Newton stalls, the step is halved down to 4e-6 s and
    # the run never ends (the default absoluteTolerance 1e-10 is far below the floor too).
    # An absolute tolerance of 1e-5 (8e-3 of that initial residual, 1.5e-8 of the first
    # step's 670) accepts the floor, as fembody's increment test does (Integrator.converged)
    ss.timeIntegration.newton.absoluteTolerance = float(
        __import__('os').environ.get('EXU_ABSTOL', 1e-5))
    ss.timeIntegration.verboseMode = int(__import__('os').environ.get('EXU_VERBOSE', 0))
    ss.solution.file.write = False
    ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    ss.show.statistics = False
    t2, c2 = time.perf_counter(), time.process_time()
    mbs.SolveDynamic(ss)
    t3, c3 = time.perf_counter(), time.process_time()
    tip = mbs.GetNodeOutput(nodes[-1], exu.OutputVariableType.Position)
    print(json.dumps({"import_s": t_import, "build_s": t2 - t1, "solve_s": t3 - t2, "solve_cpu_s": c3 - c2,
                      "tip": [float(tip[0]), float(tip[1])],
                      "maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main()
