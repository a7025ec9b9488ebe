"""Verification cases of beams: large-deflection statics (planar elastica, the spatial
Bathe-Bolourchi bend, the roll-up into a circle), convergence of the static tip deflection and
the cantilever's frequencies, planar and spatial forms side by side. The spatial statics run
the 3D Simo-Reissner kernels of :mod:`fembody.elements.beam.beam3d` through :class:`Chain`, a few
lines of Newton for a chain of beam elements clamped at its first node (the element tests use
the same class)."""
from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import fembody as fb
from ..elements.beam import beam3d as b3
from .. import rotations as rot
from .common import _order_plot, _slope
from .registry import Case, register

EB_CLAMPED = np.array([1.87510407, 4.69409113, 7.85475744])     # beta L of a clamped-free beam


# ------------------------------------------------------------------------- statics
def elastica(ks=(1.0, 2.0, 5.0, 10.0), n: int = 32) -> dict:
    from fembody.examples.cantilever import build_model
    values = {}
    for k in ks:
        model, beam = build_model(n=n, k=k)
        res = fb.static(model, steps=max(2, int(k)))
        ux, uy = res.displacement(beam.last)[-1]
        values[f"u/L k={k:g}"], values[f"w/L k={k:g}"] = -ux, -uy
    return {"values": values}


def _mattiasson_refs() -> dict:
    from fembody.examples.cantilever import MATTIASSON
    out = {}
    for k, (u, w) in MATTIASSON.items():
        out[f"u/L k={k:g}"], out[f"w/L k={k:g}"] = u, w
    return out


register(Case(
    "elastica-mattiasson", elastica, _mattiasson_refs(), 5e-3,
    "Mattiasson, Int. J. Numer. Meth. Eng. 17 (1981) 145-153, Table 1 (elastica tip u/L, w/L)",
    description="Cantilever under a tip load P L^2/EI = k, 32 geometrically exact beam "
                "elements, EA/EI = 1e7."))


def timoshenko_tip() -> dict:
    EI, GA, L = 2.0, 1.0e5, 1.5
    P = 1e-7 * EI / L**2
    w_ref = P * L**3 / (3 * EI) + P * L / GA
    errs, hs, th_err = [], [], 0.0
    for n in (4, 8, 16, 32):
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=fb.Material(E=3.0e5, rho=1.0, G=GA),
                       section=fb.Section(A=1.0, I=EI / 3.0e5, shear_factor=1.0))
        m.fix(b.first)
        m.add_force(b.last, (0.0, -P))
        res = fb.static(m, steps=1)
        errs.append(abs(-res.displacement(b.last)[-1, 1] - w_ref) / w_ref)
        th_err = max(th_err, abs(-res.rotation(b.last)[-1] / (P * L**2 / (2 * EI)) - 1.0))
        hs.append(L / n)
    return {"values": {"order": _slope(hs, errs), "tip rotation error": th_err},
            "plots": [_order_plot("Timoshenko cantilever, tip deflection", hs,
                                  {"relative error": errs}, "element length [m]")]}


register(Case(
    "cantilever-static-order", timoshenko_tip, {"order": 2.0, "tip rotation error": 0.0},
    {"order": 0.1, "tip rotation error": 1e-8},
    "Timoshenko beam theory: w = P L^3/(3EI) + P L/(kGA), rotation P L^2/(2EI) (Timoshenko & "
    "Gere, Mechanics of Materials, 1972, sec. 9.6)", relative=False,
    description="Linear tip load, 4..32 elements: deflection converges at order 2, the nodal "
                "rotation is exact (one-point integration)."))


# -------------------------------------------------------------------------- modes
def cantilever_frequencies() -> dict:
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.02, h=0.002)
    L, ns, errs, f80 = 2.0, (10, 20, 40, 80), [], None
    ref = EB_CLAMPED**2 * math.sqrt(steel.E * sec.I / (steel.rho * sec.A * L**4)) / (2 * math.pi)
    for n in ns:
        m = fb.Model()
        b = m.add_beam((0.0, 0.0), (L, 0.0), n=n, material=steel, section=sec)
        m.fix(b.first)
        f = fb.modes(m, n=3).frequencies
        errs.append(np.abs(f / ref - 1))
        f80 = f
    errs = np.array(errs)
    h = L / np.array(ns)
    values = {f"f{i + 1} [Hz]": float(f80[i]) for i in range(3)}
    values.update({f"order mode {i + 1}": _slope(h, errs[:, i]) for i in range(3)})
    return {"values": values,
            "plots": [_order_plot("Cantilever frequencies vs Euler-Bernoulli", h,
                                  {f"mode {i + 1}": errs[:, i] for i in range(3)},
                                  "element length [m]", "relative error [-]")],
            "reference": ref}


def _eb_refs() -> dict:
    steel_E, rho, b, hh, L = 210e9, 7850.0, 0.02, 0.002, 2.0
    I, A = b * hh**3 / 12, b * hh
    ref = EB_CLAMPED**2 * math.sqrt(steel_E * I / (rho * A * L**4)) / (2 * math.pi)
    out = {f"f{i + 1} [Hz]": float(ref[i]) for i in range(3)}
    out.update({f"order mode {i + 1}": 2.0 for i in range(3)})
    return out


register(Case(
    "cantilever-frequencies", cantilever_frequencies, _eb_refs(),
    {**{f"f{i} [Hz]": 2e-3 for i in (1, 2, 3)}, **{f"order mode {i}": 0.15 for i in (1, 2, 3)}},
    "Euler-Bernoulli clamped-free beam, beta L = 1.87510, 4.69409, 7.85476 (Blevins, Formulas "
    "for Natural Frequency and Mode Shape, 1979, Table 8-1)",
    relative={**{f"f{i} [Hz]": True for i in (1, 2, 3)},
              **{f"order mode {i}": False for i in (1, 2, 3)}},
    description="Steel strip 2 m x 20 mm x 2 mm (L/h = 1000), 10..80 elements: three "
                "frequencies at 80 elements and their observed convergence orders."))


# ------------------------------------------------------------------- spatial statics
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
