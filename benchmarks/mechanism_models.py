"""The rigid mechanisms of benchmarks/mechanisms.py (issue 28), built once with fembody and
handed to both codes: fembody runs the Model; benchmarks/exudyn_mechanisms.py reads the same
Model's bodies, joints, springs, loads and initial velocities and builds Exudyn's items from
them, so both integrate the same mechanism from the same state.

- ``slider-crank``: the IFToMM spatial rigid slider-crank (fembody/examples/spatial_slider_crank.py:
  Revolute, Spherical, Universal, Prismatic), free motion under gravity from 6 rad/s;
- ``heavy-top``: a symmetric top (m = 2 kg, centre of mass 0.3 m up its axis, Jc = diag(0.03,
  0.03, 0.05) kg m^2) on a Spherical joint at its tip, axis tilted 0.5 rad, spinning at 80 rad/s
  about its axis plus the slow steady precession rate about the vertical;
- ``chain``: 20 bars (0.1 m, 0.1 kg, 10 x 10 mm) in a line along x, the first hinged to the
  ground, Revolute joints whose axes alternate between y and z, released under gravity -z: a
  spatial chain (fembody/examples/spatial_chain.py); ``chain-50``, ``chain-100``: the same
  with 50 and 100 bars;
- ``andrews``: Andrews' squeezer (fembody/examples/andrews_squeezer.py), planar.

``CHECK[name]`` says which body's centre of mass (spatial) or which body's angle (planar) each
script reports at the end, to show that both codes integrated the same motion.
"""
from __future__ import annotations

import math

import numpy as np

import fembody as fb

#: (t_end [s], h [s]) of each benchmark run
RUNS = {"slider-crank": (0.5, 1e-3), "heavy-top": (0.5, 1e-3), "chain": (0.5, 1e-3),
        "chain-50": (0.5, 1e-3), "chain-100": (0.5, 1e-3), "andrews": (0.03, 2e-5)}


def slider_crank():
    from fembody.examples import spatial_slider_crank as ex
    model, parts = ex.build_model()
    return model, parts["slider"]


def heavy_top(m: float = 2.0, l: float = 0.3, theta: float = 0.5, w3: float = 80.0):
    Jc = np.diag([0.03, 0.03, 0.05])
    A, C, g0 = Jc[0, 0] + m * l * l, Jc[2, 2], 9.81
    # slow steady precession: m g l = p (C w3 - A p cos(theta))
    p = (C * w3 - math.sqrt((C * w3) ** 2 - 4 * A * math.cos(theta) * m * g0 * l)) / (
        2 * A * math.cos(theta))
    e = np.array([0.0, -math.sin(theta), math.cos(theta)])        # the top's axis
    J = Jc[0, 0] * np.eye(3) + (C - Jc[0, 0]) * np.outer(e, e)   # Jc turned onto e
    model = fb.Model(dim=3, gravity=(0.0, 0.0, -g0), name="heavy top")
    top = model.add_rigid_body((0.0, 0.0, 0.0), m, J, offset=tuple(l * e))
    model.add_joint(fb.Spherical(model.ground, top.node, at=(0.0, 0.0, 0.0)))
    model.set_velocity(top.node, (0.0, 0.0, 0.0), omega=tuple(p * np.array([0, 0, 1.0])
                                                              + w3 * e))
    return model, top


def chain(n: int = 20, L: float = 0.1, mass: float = 0.1, side: float = 0.01):
    from fembody.examples import spatial_chain as ex
    model, bars = ex.build_model(n, L, mass, side)
    return model, bars[-1]


def andrews():
    from fembody.examples import andrews_squeezer as ex
    model, parts = ex.build_model()
    return model, parts["bodies"][0]


MODELS = {"slider-crank": slider_crank, "heavy-top": heavy_top, "chain": chain,
          "chain-50": lambda: chain(n=50), "chain-100": lambda: chain(n=100),
          "andrews": andrews}


def com_of(result, body) -> list[float]:
    """fembody: the last saved position of ``body``'s centre of mass [m] (spatial) or its
    rotation [rad] (planar)."""
    if len(body.offset) == 2:
        return [float(result.rotation(body.node)[-1])]
    x = result.position(body.node)[-1]
    R = result.rotation(body.node)[-1]
    return [float(v) for v in x + R @ np.asarray(body.offset, float)]
