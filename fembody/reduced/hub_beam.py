"""The hub-beam of paper 000: a rigid hub (inertia J, radius R) turning a flexible beam
(length l, line density kappa, bending stiffness EI), modal (assumed-mode) model.

Coordinates ``q = [theta, u_1..u_N]`` (hub angle [rad], modal amplitudes [m]), the beam's
transverse deflection in the rotating frame is ``w(x) = sum phi_i(x) u_i``. The Lagrangian
(paper eq. (10) for N = 1 and phi = sin(pi x / 2 l)) is

    L = 1/2 M_tt(u) theta'^2 + theta' c.u' + 1/2 u'.M_uu.u' - 1/2 u.K.u,
    M_tt(u) = J + kappa (l^3/3 + R l^2 + R^2 l) + u.D.u,   D = M_uu [- K_g with stiffening],

with ``c_i = kappa int (R + x) phi_i``, ``M_uu = kappa int phi_i phi_j``,
``K = EI int phi_i'' phi_j''``, and, optionally, the centrifugal (geometric) stiffening of the
beam's axial foreshortening ``K_g = kappa int (R (l - x) + (l^2 - x^2)/2) phi_i' phi_j'``, which
enters the kinetic energy as ``-1/2 theta'^2 u.K_g.u`` (first-order coupling). A constant torque
``tau`` acts on theta.

Paper 000 misprints, checked against the Lagrangian (see tests/reduced/test_hub_beam.py):
- eq. (15) writes ``R l`` in M_11 where eq. (10) (and the kinetic energy integral) has ``R^2 l``;
- eq. (10) writes ``E l`` for ``EI`` in the potential;
- eq. (16) is not the canonical form for the velocity-dependent G of eq. (15); here Hamilton's
  equations are derived from H(q, p) = 1/2 p.M(u)^-1.p + 1/2 u.K.u directly.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import ModelError
from ..model.materials import check_number
from .shapes import ModeShapes


@dataclass
class HubBeam:
    """Modal hub-beam model (SI units).

    l [m] beam length; kappa [kg/m] line density; EI [N m^2] bending stiffness; R [m] hub
    radius (beam root); J [kg m^2] hub inertia; tau [N m] constant hub torque; modes: number of
    clamped cantilever modes (``shape="clamped"``) or 1 with ``shape="sine"`` (the paper's
    sin(pi x / 2 l)); stiffening: include the centrifugal stiffening term (off, as in classical
    assumed-mode models and the paper).
    """

    l: float
    kappa: float
    EI: float
    R: float = 0.0
    J: float = 0.0
    tau: float = 0.0
    modes: int = 1
    shape: str = "clamped"
    stiffening: bool = False
    shapes: ModeShapes = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("l", "kappa", "EI"):
            setattr(self, name, check_number(getattr(self, name), f"HubBeam: {name}"))
        for name in ("R", "J"):
            setattr(self, name, check_number(getattr(self, name), f"HubBeam: {name}", strict=False))
        try:
            self.tau = float(self.tau)
        except (TypeError, ValueError):
            raise ModelError(f"HubBeam: tau must be a number, got {self.tau!r}") from None
        if not math.isfinite(self.tau):
            raise ModelError(f"HubBeam: tau must be finite, got {self.tau!r}")
        self.shapes = ModeShapes(self.l, int(self.modes), self.shape)
        I = self.shapes.integrals(self.R)
        l, R, k = self.l, self.R, self.kappa
        self.I0 = self.J + k * (l**3 / 3.0 + R * l**2 + R**2 * l)   # rigid inertia about the axis
        self.c = k * I["first"]
        self.Muu = k * I["mass"]
        self.K = self.EI * I["bend"]
        self.Kg = k * I["geo"]
        self.D = self.Muu - (self.Kg if self.stiffening else 0.0)
        self.tip_shape = I["tip"]
        self.n = self.shapes.n
        # M(u) = [[a(u), c^T], [c, M_uu]] with constant M_uu: p.M^-1.p through the Schur
        # complement s(u) = a(u) - c.M_uu^-1.c keeps H cheap (it is evaluated ~10^6 times)
        self._Minv_uu = np.linalg.inv(self.Muu)
        self._Minv_c = self._Minv_uu @ self.c
        self._s0 = self.I0 - self.c @ self._Minv_c

    @classmethod
    def paper(cls, **overrides) -> "HubBeam":
        """Table 1 of paper 000: l = 2 m, kappa = 0.216 kg/m, E = 70 GPa, I = 2.67e-11 m^4,
        R = 0.1 m, J = 0.025 kg m^2, tau = 0.1 N m; one mode sin(pi x / 2 l)."""
        p = dict(l=2.0, kappa=0.216, EI=70e9 * 2.67e-11, R=0.1, J=0.025, tau=0.1, modes=1,
                 shape="sine")
        p.update(overrides)
        return cls(**p)

    # ---- coordinates ------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """Size of the canonical state z = [theta, u, p_theta, p_u]."""
        return 2 * (1 + self.n)

    def mass(self, u: np.ndarray) -> np.ndarray:
        """Generalised mass matrix M(u) [(1+N)^2] of q = [theta, u]."""
        m = np.empty((1 + self.n, 1 + self.n))
        m[0, 0] = self.I0 + u @ self.D @ u
        m[0, 1:] = m[1:, 0] = self.c
        m[1:, 1:] = self.Muu
        return m

    def state(self, theta: float = 0.0, u=0.0, theta_dot: float = 0.0, u_dot=0.0) -> np.ndarray:
        """Canonical state z = [theta, u, p_theta, p_u] from coordinates and velocities."""
        u = np.broadcast_to(np.asarray(u, float), (self.n,)).copy()
        ud = np.broadcast_to(np.asarray(u_dot, float), (self.n,))
        v = np.concatenate([[theta_dot], ud])
        p = self.mass(u) @ v
        return np.concatenate([[theta], u, p])

    def velocities(self, z: np.ndarray) -> np.ndarray:
        """[theta', u'] from a canonical state."""
        z = np.asarray(z, float)
        n = self.n
        w, ud = self._velocities(z[1:1 + n], z[1 + n], z[2 + n:])
        return np.concatenate([[w], ud])

    # ---- energies and conserved quantities ------------------------------------------------
    def _velocities(self, u: np.ndarray, pt: float, pu: np.ndarray):
        s = self._s0 + u @ self.D @ u
        w = (pt - self._Minv_c @ pu) / s                 # theta'
        return w, self._Minv_uu @ pu - self._Minv_c * w  # u'

    def hamiltonian(self, z: np.ndarray) -> float:
        """Total mechanical energy H = T + V [J] (without the torque's potential)."""
        z = np.asarray(z, float)
        n = self.n
        u, pt, pu = z[1:1 + n], z[1 + n], z[2 + n:]
        w, ud = self._velocities(u, pt, pu)
        return float(0.5 * (w * pt + ud @ pu) + 0.5 * u @ self.K @ u)

    def noether(self, z: np.ndarray) -> float:
        """Noether conserved quantity of eq. (14): I_N = tau theta - H [J]."""
        return float(self.tau * z[0] - self.hamiltonian(z))

    def angular_momentum(self, z: np.ndarray) -> float:
        """p_theta [kg m^2/s], the momentum of the cyclic coordinate (conserved for tau = 0)."""
        return float(np.asarray(z)[1 + self.n])

    def tip_deflection(self, z: np.ndarray) -> np.ndarray:
        """Beam-tip deflection w(l) [m] in the rotating frame, for one state or an array."""
        z = np.asarray(z, float)
        return z[..., 1:1 + self.n] @ self.tip_shape

    # ---- Hamiltonian flow (what structure-preserving integrators use) --------------------
    def flow_hamiltonian(self, z: np.ndarray) -> float:
        """H - tau theta: the Hamiltonian whose canonical flow is the forced motion (= -I_N)."""
        return self.hamiltonian(z) - self.tau * float(z[0])

    def flow_difference(self, za: np.ndarray, dz: np.ndarray) -> float:
        """flow_hamiltonian(za + dz) - flow_hamiltonian(za) [J] for the exact increment ``dz``,
        in factored form (differences of squares as products with the increments): free of
        the cancellation eps * |H| of the plain difference when H is large (a fast-spinning
        hub), and exact in the increment, so the discrete gradient's quotients stay exact."""
        n = self.n
        za, dz = np.asarray(za, float), np.asarray(dz, float)
        ua, pta, pua = za[1:1 + n], za[1 + n], za[2 + n:]
        du, dpt, dpu = dz[1:1 + n], dz[1 + n], dz[2 + n:]
        su = 2.0 * ua + du                                  # ua + ub
        sa = self._s0 + ua @ self.D @ ua
        ds = du @ self.D @ su
        sb = sa + ds
        aa = pta - self._Minv_c @ pua
        da = dpt - self._Minv_c @ dpu
        # 1/2 (ab^2/sb - aa^2/sa) = 1/2 (da (2 aa + da) / sb - aa^2 ds / (sa sb))
        d_rot = 0.5 * (da * (2.0 * aa + da) / sb - aa * aa * ds / (sa * sb))
        d_mod = 0.5 * dpu @ self._Minv_uu @ (2.0 * pua + dpu)
        d_el = 0.5 * du @ self.K @ su
        return float(d_rot + d_mod + d_el - self.tau * dz[0])

    def flow_gradient(self, z: np.ndarray) -> np.ndarray:
        """Gradient of ``flow_hamiltonian``: [-tau, dH/du, theta', u']."""
        z = np.asarray(z, float)
        n = self.n
        u, pt, pu = z[1:1 + n], z[1 + n], z[2 + n:]
        w, ud = self._velocities(u, pt, pu)
        out = np.empty(2 + 2 * n)
        out[0] = -self.tau
        out[1:1 + n] = -w * w * (self.D @ u) + self.K @ u
        out[1 + n] = w
        out[2 + n:] = ud
        return out

    def canonical_rhs(self, t: float, z: np.ndarray) -> np.ndarray:
        """Hamilton's equations z' = [dH/dp, -dH/dq] (replaces the paper's eq. (16))."""
        g = self.flow_gradient(z)
        m = 1 + self.n
        return np.concatenate([g[m:], -g[:m]])

    # ---- Lagrangian form ---------------------------------------------------------------
    def lagrange_terms(self, q: np.ndarray, v: np.ndarray):
        """(M(u), G(q, v) v, K q, F): M q'' + G v + K q = F, the paper's eq. (15) with the
        kinetic-energy-consistent M_11 (R^2 l) and G v = [2 theta' u.D.u', -theta'^2 D u]."""
        u, ud, w = q[1:], v[1:], v[0]
        Gv = np.concatenate([[2.0 * w * (u @ self.D @ ud)], -w * w * (self.D @ u)])
        Kq = np.concatenate([[0.0], self.K @ u])
        F = np.zeros(1 + self.n)
        F[0] = self.tau
        return self.mass(u), Gv, Kq, F

    def lagrange_rhs(self, t: float, x: np.ndarray) -> np.ndarray:
        """First-order form x = [q, q'] of the Lagrange equations."""
        m = 1 + self.n
        q, v = x[:m], x[m:]
        M, Gv, Kq, F = self.lagrange_terms(q, v)
        return np.concatenate([v, np.linalg.solve(M, F - Gv - Kq)])

    def prescribed_rhs(self, theta: Callable[[float], tuple[float, float, float]]):
        """Right-hand side for the elastic coordinates when the hub angle is prescribed,
        ``theta(t) -> (angle, rate, acceleration)``: M_uu u'' + (K - theta'^2 D) u =
        -c theta''. State x = [u, u']."""
        Minv = np.linalg.inv(self.Muu)
        n = self.n

        def rhs(t: float, x: np.ndarray) -> np.ndarray:
            _, w, a = theta(t)
            u, ud = x[:n], x[n:]
            return np.concatenate([ud, Minv @ (-(self.K - w * w * self.D) @ u - self.c * a)])
        return rhs

    def frequencies(self) -> np.ndarray:
        """Clamped natural frequencies [rad/s] of the beam with the hub held fixed."""
        import scipy.linalg as sla
        return np.sqrt(sla.eigh(self.K, self.Muu, eigvals_only=True))

    def critical_speed(self) -> float:
        """Hub rate [rad/s] at which the effective stiffness K - theta'^2 D of the elastic
        coordinates (D = M_uu, or M_uu - K_g with stiffening) first loses definiteness;
        infinite when it never does. From D x = mu K x (K is positive definite, D need not
        be): theta'^2 = 1 / max mu."""
        import scipy.linalg as sla
        mu = sla.eigh(self.D, self.K, eigvals_only=True).max()
        return float(1.0 / math.sqrt(mu)) if mu > 0.0 else math.inf
