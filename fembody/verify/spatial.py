"""Verification cases of spatial beams (registered with the planar ones). Until spatial models
are wired into ``Model``, they run the 3D Simo-Reissner kernels of
:mod:`fembody.elements.beam.beam3d` through :class:`Chain`, a few lines of Newton for a chain of
beam elements clamped at its first node (the element tests use the same class)."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from ..elements.beam import beam3d as b3
from .. import rotations as rot
from .registry import Case, register


class Chain:
    """Beam elements ``conn (ne, 2)`` between nodes at ``X (nn, 3)`` with node frames ``I`` in
    the reference; element section triads ``L_e,i = R_node C_e`` with ``C_e`` the chord triad
    built from ``orientation``; node 0 clamped."""

    def __init__(self, X, conn, orientation, Cn, Cm):
        self.conn = np.asarray(conn)
        ne = len(self.conn)
        self.X = np.asarray(X, float)
        Xe = self.X[self.conn]
        C, self.L0 = b3.straight_reference(Xe, np.broadcast_to(orientation, (ne, 3)))
        self.C = np.stack([C, C], 1)
        self.G0, self.K0 = b3.reference_strains(Xe, self.C, self.L0)
        self.Cn = np.broadcast_to(np.asarray(Cn, float), (ne, 3)).copy()
        self.Cm = np.broadcast_to(np.asarray(Cm, float), (ne, 3)).copy()
        self.x = self.X.copy()
        self.q = np.tile([1.0, 0, 0, 0], (len(self.X), 1))
        self.dofs = (6 * self.conn[:, :, None] + np.arange(6)).reshape(ne, 12)

    def element_state(self):
        R = rot.quat_to_matrix(self.q)
        return self.x[self.conn], R[self.conn] @ self.C

    def internal(self, tangent=True):
        xe, Le = self.element_state()
        f, K = b3.forces(xe, Le, self.L0, self.G0, self.K0, self.Cn, self.Cm, tangent)
        f, K = b3.to_node_frames(f, K, self.C)
        n = 6 * len(self.X)
        F = np.zeros(n)
        np.add.at(F, self.dofs, f)
        if not tangent:
            return F, None
        rows = np.broadcast_to(self.dofs[:, :, None], K.shape).ravel()
        cols = np.broadcast_to(self.dofs[:, None, :], K.shape).ravel()
        return F, sp.csc_matrix((K.ravel(), (rows, cols)), shape=(n, n))

    def update(self, d):
        d = d.reshape(-1, 6)
        self.x += d[:, :3]
        self.q = rot.compose(self.q, d[:, 3:])

    def solve(self, load, steps, tol=1e-10, maxit=30):
        """Load steps ``load(lam) -> (n_dof,)`` generalised external force (global forces,
        material moments, i.e. no load stiffness); returns Newton iteration counts."""
        its = []
        for k in range(1, steps + 1):
            Fe = load(k / steps)
            for it in range(maxit):
                F, K = self.internal()
                d = np.zeros(6 * len(self.X))
                d[6:] = spla.spsolve(K[6:, 6:], (Fe - F)[6:])      # node 0 clamped
                self.update(d)
                if np.linalg.norm(d) < tol * max(1.0, np.abs(self.x).max()):
                    break
            else:
                raise RuntimeError(f"Newton did not converge in step {k}")
            its.append(it + 1)
        return its


def _moment(ne: int, comp: int, value: float) -> np.ndarray:
    F = np.zeros(6 * (ne + 1))
    F[6 * ne + comp] = value
    return F


def bathe_bolourchi(ne: int = 8, J: float = 1.0 / 6.0) -> np.ndarray:
    """Tip displacement of the 45-degree bend: arc of radius 100 in the x-z plane, root
    tangent along z, 1 x 1 in section, E = 1e7 psi, nu = 0, tip load 600 lb along y, in 10
    load steps; ``J`` the torsion constant (Iy + Iz = 1/6 as in the published solutions)."""
    R = 100.0
    s = np.linspace(0, np.pi / 4, ne + 1)
    X = np.stack([R * (1 - np.cos(s)), 0 * s, R * np.sin(s)], 1)
    E, G, A, I = 1e7, 5e6, 1.0, 1.0 / 12.0
    conn = np.stack([np.arange(ne), np.arange(1, ne + 1)], 1)
    ch = Chain(X, conn, (0.0, 1.0, 0.0), (E * A, 5 / 6 * G * A, 5 / 6 * G * A),
               (G * J, E * I, E * I))
    ch.solve(lambda lam: _moment(ne, 1, 600.0 * lam), 10)
    return ch.x[-1] - X[-1]


def bathe_bolourchi_model(ne: int = 8) -> np.ndarray:
    """The same bend through the public API (``fb.Model(dim=3)``, ``fb.static``): straight
    beam elements between the arc's points, section (1 in)^2 with GJ = G (Iy + Iz) as in the
    published solutions, tip displacement after 10 load steps."""
    import fembody as fb
    R = 100.0
    sec = fb.Section(A=1.0, I=1.0 / 12.0, Iy=1.0 / 12.0, J=1.0 / 6.0, ky=5 / 6, kz=5 / 6)
    mat = fb.Material(E=1e7, rho=1.0, nu=0.0)
    m = fb.Model(dim=3)
    s = np.linspace(0, np.pi / 4, ne + 1)
    pts = [m.add_node((R * (1 - np.cos(a)), 0.0, R * np.sin(a))) for a in s]
    for a, b in zip(pts[:-1], pts[1:]):
        m.add_beam(a, b, n=1, material=mat, section=sec, orientation=(0, 1, 0))
    m.fix(pts[0])
    m.add_force(pts[-1], (0.0, 600.0, 0.0))
    return fb.static(m, steps=10).displacement(pts[-1])[-1]


def _bend() -> dict:
    u = bathe_bolourchi_model(8)
    ref = np.array([-13.4, 53.4, -23.5])
    return {"values": {"tip u_x [in]": float(u[0]), "tip u_y [in]": float(u[1]),
                       "tip u_z [in]": float(u[2]),
                       "|u - ref| / |ref|": float(np.linalg.norm(u - ref) / np.linalg.norm(ref))}}


register(Case(
    "bathe-bolourchi-3d-bend", _bend,
    {"tip u_x [in]": -13.4, "tip u_y [in]": 53.4, "tip u_z [in]": -23.5,
     "|u - ref| / |ref|": 0.0},
    {"tip u_x [in]": 0.015, "tip u_y [in]": 0.002, "tip u_z [in]": 0.003,
     "|u - ref| / |ref|": 0.01},
    "Bathe & Bolourchi, Int. J. Numer. Meth. Eng. 14 (1979) 961-986, 45-degree bend, as "
    "tabulated in Simo & Vu-Quoc, Comput. Methods Appl. Mech. Eng. 58 (1986) 79, Table 1",
    relative={"tip u_x [in]": True, "tip u_y [in]": True, "tip u_z [in]": True,
              "|u - ref| / |ref|": False},
    description="fb.Model(dim=3) and fb.static, 8 Simo-Reissner elements, tip load 600 lb out "
                "of the bend's plane (the published x = -13.4 is itself a coarse-mesh value)."))


def _roll_up() -> dict:
    L, EI, errs, ns = 1.0, 3.0, [], (8, 16, 32)
    closed = 0.0
    for ne in ns:
        X = np.stack([np.linspace(0, L, ne + 1), np.zeros(ne + 1), np.zeros(ne + 1)], 1)
        conn = np.stack([np.arange(ne), np.arange(1, ne + 1)], 1)
        ch = Chain(X, conn, (0.0, 1.0, 0.0), (1e4, 1e4, 1e4), (1.0, 2.0, EI))
        ch.solve(lambda lam, ne=ne: _moment(ne, 5, 2 * math.pi * EI / L * lam), 4)
        closed = max(closed, float(np.abs(ch.x[-1]).max()))
        errs.append(abs(np.linalg.norm(ch.x[ne // 2]) - L / math.pi))
    h = L / np.array(ns)
    order = float(np.polyfit(np.log(h), np.log(errs), 1)[0])
    return {"values": {"order": order, "tip distance from root [m]": closed},
            "plots": [dict(title="3D beam rolled into a circle: mid-node diameter error",
                           loglog=True, xlabel="element length [m]", ylabel="error [m]",
                           x=h.tolist(), series={"|x_mid| - L/pi": errs})]}


register(Case(
    "roll-up-circle-3d", _roll_up, {"order": 2.0, "tip distance from root [m]": 0.0},
    {"order": 0.05, "tip distance from root [m]": 1e-12},
    "Pure bending: an end moment 2 pi EI / L closes a cantilever into a circle of radius "
    "L / (2 pi) (Simo & Vu-Quoc 1986, sec. 7.1; Bernoulli-Euler elastica)", relative=False,
    description="3D kernel, end moment about a principal axis, 8/16/32 elements: tip back at "
                "the root, mid-node at the diameter L/pi with order 2."))


def _iftomm_slider_crank() -> dict:
    from fembody.examples import spatial_slider_crank as ex
    out = ex.run(2.5, 1e-3, verbose=False)
    t, x = out["t"], out["slider_x"]
    keep = ex.REFERENCE_T <= 2.5 + 1e-12
    vals = {f"x({tk:g} s) [m]": float(np.interp(tk, t, x)) for tk in (0.25, 0.5, 1.0, 2.5)}
    vals["max |x - x_ref| [m]"] = out["reference_error"]
    return {"values": vals,
            "plots": [dict(title="IFToMM spatial slider-crank: slider position", xlabel="t [s]",
                           ylabel="x [m]", x=ex.REFERENCE_T[keep].tolist(),
                           series={"fembody": np.interp(ex.REFERENCE_T[keep], t, x).tolist(),
                                   "reference (Gonzalez)": ex.REFERENCE_X[keep].tolist()})]}


register(Case(
    "iftomm-spatial-slider-crank", _iftomm_slider_crank,
    {"x(0.25 s) [m]": 0.284855404, "x(0.5 s) [m]": 0.184952803, "x(1 s) [m]": 0.211754668,
     "x(2.5 s) [m]": 0.256509783, "max |x - x_ref| [m]": 0.0},
    {"x(0.25 s) [m]": 1e-4, "x(0.5 s) [m]": 1e-4, "x(1 s) [m]": 1e-4, "x(2.5 s) [m]": 2e-4,
     "max |x - x_ref| [m]": 2e-4},
    "IFToMM multibody benchmark library, spatial rigid slider-crank mechanism: reference "
    "solution of M. Gonzalez (slider x every 0.01 s; stored in github jgerstmayr/EXUDYN, "
    "docs/verification/Slidercrank3DiftommBenchmark)", relative=False, quick=False,
    description="Rigid crank, rod and slider on revolute, spherical, universal and prismatic "
                "joints, free motion under gravity from 6 rad/s; 2.5 s at dt = 1 ms, "
                "rho_inf = 1 (measured 5.1e-5 m off the reference)."))


def _shaft_jeffcott() -> dict:
    from fembody.examples import rotating_shaft as ex
    vals = {}
    for ratio in (0.5,):
        o = ex.steady_whirl(ratio, n=8, dt=4e-3)
        vals[f"whirl radius / Jeffcott at {ratio} wn"] = o["radius"] / o["jeffcott"]
    return {"values": vals}


register(Case(
    "rotating-shaft-jeffcott", _shaft_jeffcott, {"whirl radius / Jeffcott at 0.5 wn": 1.0},
    {"whirl radius / Jeffcott at 0.5 wn": 0.02},
    "Jeffcott rotor r = e' s / |1 - s|, s = (w / wn)^2, with wn and the modal unbalance e' "
    "from fb.modes of the same model; data of the rotating-shaft benchmark of Bauchau et al., "
    "Multibody Syst Dyn 37 (2016) 29-48 (MBDyn deck tests/benchmarks/rotatingshaft)",
    quick=False,
    description="6 m tube with the 70.573 kg unbalanced disk, 8 elements, spun up slowly to "
                "half the first bending frequency and held (measured 0.6 % off)."))
