"""The mechanisms of benchmarks/mechanism_models.py in Exudyn (issue 28's side-by-side timing;
Exudyn is not a fembody dependency: put its install on PYTHONPATH).

    python benchmarks/exudyn_mechanisms.py NAME [--newton full|modified] [--tol 1e-10]
                                                [--rho 0.9] [--t-end T] [--dt H]

The fembody Model of NAME is built (fembody is imported only for that) and translated item by
item:

- a spatial rigid body -> ``CreateRigidBody`` (Euler-parameter node at fembody's node, inertia
  about the centre of mass with the same offset, gravity, the node's initial velocity and
  angular velocity; fembody's reference frame is the global one, so the angular velocity is
  the same vector);
- Revolute / Spherical / Prismatic -> ``CreateRevoluteJoint`` / ``CreateSphericalJoint`` /
  ``CreatePrismaticJoint`` at the same point and axis; Universal -> ``CreateGenericJoint``
  with frame axes (axis_a, axis_b, axis_a x axis_b) and the rotation about the third locked
  (Exudyn's generic joint then keeps axis x of a normal to axis y of b: fembody's
  axis_a . axis_b = 0);
- a planar rigid body -> NodeRigidBody2D at its centre of mass (Exudyn's 2D body has its
  node there) + ObjectRigidBody2D; a Pin -> ObjectJointRevolute2D between body points; a
  node-to-point spring -> ObjectConnectorSpringDamper; a torque -> LoadTorqueVector.

Solver: generalized-alpha (``--rho``, index 3), full or modified Newton, relative tolerance
``--tol``, the default linear solver. Prints one JSON line: wall and CPU time of the solve
(time.process_time), per step, and the check quantity of mechanism_models.CHECK. Exits with
status 3 when exudyn is not importable.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

try:
    import exudyn as exu
    from exudyn.itemInterface import (LoadTorqueVector, MarkerBodyPosition, MarkerBodyRigid,
                                      NodeRigidBody2D, ObjectConnectorSpringDamper,
                                      ObjectGround, ObjectJointRevolute2D, ObjectRigidBody2D)
    from exudyn.rigidBodyUtilities import RigidBodyInertia
except ImportError:
    print(json.dumps({"error": "exudyn not installed"}))
    sys.exit(3)
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.join(HERE, ".."))
import mechanism_models as mm  # noqa: E402


def _at(joint, model) -> np.ndarray:
    return np.asarray(joint.at if joint.at is not None else joint.b.position, float)


def build_spatial(mbs, model):
    ground = mbs.AddObject(ObjectGround())
    items, objects = {model.ground.id: ground}, {}
    g = list(np.asarray(model.gravity, float))
    for rb in model.rigid_bodies:
        v = model.initial_velocity.get(rb.node.id, np.zeros(6))
        w = np.nan_to_num(v[3:])
        J = np.asarray(rb.inertia, float)
        J = np.diag(J) if J.ndim == 1 else J
        inertia = RigidBodyInertia(mass=rb.mass, inertiaTensor=J, com=np.asarray(rb.offset),
                                   inertiaTensorAtCOM=True)
        obj = mbs.CreateRigidBody(referencePosition=list(rb.node.position), inertia=inertia,
                                  gravity=g, initialVelocity=list(v[:3]),
                                  initialAngularVelocity=list(w), show=False)
        items[rb.node.id] = obj
        objects[rb.index] = obj
    for j in model.joints:
        pair = [items[j.a.id], items[j.b.id]]
        p = list(_at(j, model))
        if j.kind == "Revolute":
            mbs.CreateRevoluteJoint(itemNumbers=pair, position=p, axis=list(j.axis), show=False)
        elif j.kind == "Spherical":
            mbs.CreateSphericalJoint(itemNumbers=pair, position=p, show=False)
        elif j.kind == "Prismatic":
            mbs.CreatePrismaticJoint(itemNumbers=pair, position=p, axis=list(j.axis),
                                     show=False)
        elif j.kind == "Universal":
            a = np.asarray(j.axis_a, float) / np.linalg.norm(j.axis_a)
            b = np.asarray(j.axis_b, float) / np.linalg.norm(j.axis_b)
            A = np.column_stack([a, b, np.cross(a, b)])
            mbs.CreateGenericJoint(itemNumbers=pair, position=p, rotationMatrixAxes=A,
                                   constrainedAxes=[1, 1, 1, 0, 0, 1], show=False)
        else:
            raise SystemExit(f"exudyn_mechanisms: no translation for {j.kind}")
    return objects


def build_planar(mbs, model):
    ground = mbs.AddObject(ObjectGround())
    nodes, objects, com = {}, {}, {}
    for rb in model.rigid_bodies:
        c = np.asarray(rb.offset, float)
        x = np.asarray(rb.node.position, float) + c
        n = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[x[0], x[1], 0.0]))
        o = mbs.AddObject(ObjectRigidBody2D(nodeNumber=n, physicsMass=rb.mass,
                                            inertia=rb.inertia))
        nodes[rb.node.id], objects[rb.node.id], com[rb.node.id] = n, o, x

    def marker(node, p):
        if node.id == model.ground.id:
            return mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[*p, 0.0]))
        local = np.asarray(p, float) - com[node.id]
        return mbs.AddMarker(MarkerBodyPosition(bodyNumber=objects[node.id],
                                                localPosition=[*local, 0.0]))

    for j in model.joints:
        if j.kind != "Pin":
            raise SystemExit(f"exudyn_mechanisms: no planar translation for {j.kind}")
        p = _at(j, model)
        mbs.AddObject(ObjectJointRevolute2D(markerNumbers=[marker(j.a, p), marker(j.b, p)]))
    for s in model.springs:
        a, b = s["nodes"]
        mbs.AddObject(ObjectConnectorSpringDamper(
            markerNumbers=[marker(model.ground, b.position), marker(a, a.position)],
            stiffness=s["k"], damping=s["c"], referenceLength=s["l0"]))
    for ld in model.loads:
        if ld.kind != "torque":
            raise SystemExit("exudyn_mechanisms: only planar torques are translated")
        mk = mbs.AddMarker(MarkerBodyRigid(bodyNumber=objects[ld.node.id],
                                           localPosition=[0.0, 0.0, 0.0]))
        mbs.AddLoad(LoadTorqueVector(markerNumber=mk,
                                     loadVector=[0.0, 0.0, float(ld.evaluate(0.0)[0])]))
    return {rb.index: nodes[rb.node.id] for rb in model.rigid_bodies}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("name", choices=sorted(mm.MODELS))
    ap.add_argument("--newton", choices=("full", "modified"), default="full")
    ap.add_argument("--tol", type=float, default=1e-10)
    ap.add_argument("--rho", type=float, default=0.9)
    ap.add_argument("--t-end", type=float, default=None)
    ap.add_argument("--dt", type=float, default=None)
    ap.add_argument("--solver", choices=("dense", "sparse"), default="dense",
                    help="Exudyn's linear solver: EXUdense (its default) or EigenSparse")
    a = ap.parse_args()
    t_end, h = mm.RUNS[a.name]
    t_end = a.t_end or t_end
    h = a.dt or h
    model, body = mm.MODELS[a.name]()
    SC = exu.SystemContainer()
    mbs = SC.AddSystem()
    planar = model.dim == 2
    items = build_planar(mbs, model) if planar else build_spatial(mbs, model)
    mbs.Assemble()
    steps = int(round(t_end / h))
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = steps
    ss.timeIntegration.endTime = t_end
    ss.timeIntegration.generalizedAlpha.spectralRadius = a.rho
    ss.timeIntegration.newton.useModifiedNewton = a.newton == "modified"
    ss.timeIntegration.newton.relativeTolerance = a.tol
    if a.solver == "sparse":
        ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    ss.timeIntegration.verboseMode = int(os.environ.get("EXU_VERBOSE", 0))
    ss.solution.file.write = False
    ss.show.statistics = False
    t0, c0 = time.perf_counter(), time.process_time()
    mbs.SolveDynamic(ss)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if planar:
        phi = mbs.GetNodeOutput(items[body.index], exu.OutputVariableType.Coordinates)[2]
        check = [float(phi)]
    else:
        check = [float(v) for v in mbs.GetObjectOutputBody(
            items[body.index], exu.OutputVariableType.Position, localPosition=list(body.offset))]
    print(json.dumps({"name": a.name, "newton": a.newton, "solver": a.solver, "steps": steps, "dt": h,
                      "t_end": t_end, "solve_s": wall, "cpu_s": cpu,
                      "ms_per_step": 1e3 * wall / steps, "cpu_ms_per_step": 1e3 * cpu / steps,
                      "check": check}))


if __name__ == "__main__":
    main()
