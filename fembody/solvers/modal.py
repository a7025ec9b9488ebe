"""Natural frequencies and mode shapes about the reference or a given configuration."""
from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import numpy as np

from .. import validate
from ..errors import ModelError, SingularSystemError
from ..lazy import lazy_module
from ..system import System
from .impact import with_contact_rows
from .linalg import DENSE_MAX
from .redundancy import check_redundant
from .statics import as_system, constrained_resolvent

sla = lazy_module("scipy.linalg")          # imported at first use: fast start-up
spla = lazy_module("scipy.sparse.linalg")

if TYPE_CHECKING:
    from ..model import Model


@dataclass
class Modes:
    """Result of a modal analysis.

    ``frequencies`` [Hz] and ``omega`` [rad/s] in ascending order (rigid-body modes give 0);
    ``shapes (n_dof, n)``: mass-normalised mode shapes (phi^T M phi = 1) as full-length vectors
    (zero at fixed DOFs).
    """

    system: System
    omega: np.ndarray
    shapes: np.ndarray

    def __repr__(self) -> str:
        f = ", ".join(f"{x:.6g}" for x in self.frequencies[:6])
        more = ", ..." if len(self.omega) > 6 else ""
        return f"Modes({len(self.omega)} modes: {f}{more} Hz)"

    @property
    def frequencies(self) -> np.ndarray:
        """Natural frequencies [Hz], ``omega / (2 pi)``, lowest first."""
        return self.omega / (2.0 * np.pi)

    def shape(self, i: int, node) -> np.ndarray:
        """Mode ``i`` at ``node``: (ux, uy, rz) in the plane, (ux, uy, uz, rx, ry, rz) in
        space, with zero for a DOF the node does not have."""
        n = self.shapes.shape[1]
        i = validate.integer("i", i, minimum=-n, where="Modes.shape")
        if i >= n:
            raise ModelError(f"Modes.shape: mode {i} does not exist; {n} modes were computed "
                             f"(0..{n - 1})")
        d = self.system.node_dofs[self.system.model.node(node, "Modes.shape").id]
        out = np.zeros(d.shape[0])      # 3 entries in the plane, 6 in space
        ok = d >= 0
        out[ok] = self.shapes[d[ok], i]
        return out


# why an unstable base state is refused, and what to pass instead
_UNSTABLE_HINT = (" (e.g. a static state past a limit point or buckling, flagged False in "
                  "result.stable): small motions about it grow instead of vibrating, so it has "
                  "no natural frequencies. Use a stable state (result.q[k] with result.stable[k] "
                  "True), or fb.buckling for the critical loads")


def manifold_basis(sys: System, Bdata: np.ndarray) -> np.ndarray:
    """An orthonormal basis ``Z (n_free, n_free - rank B)`` of the motions the joints allow
    (the null space of B, dense SVD: for small models)."""
    return sla.null_space(sys.B_matrix(Bdata).toarray())


def modes(model: "Model | System", n: int = 6, q: np.ndarray | None = None,
          load_factor: float = 0.0, t: float = 0.0, lam: np.ndarray | None = None,
          contacts: bool = True) -> Modes:
    """The ``n`` lowest natural modes of the model linearised about configuration ``q``
    (default: the reference configuration; pass e.g. ``static_result.q[-1]`` with its
    ``load_factor`` and joint multipliers ``lam`` (``static_result.lam[-1]``) for modes about a
    loaded equilibrium, including the geometric stiffness of elements and joints).

    Joints (supports, pins, sliders, drivers frozen at ``t``, ...) hold: the eigenproblem is
    solved on the constraint manifold, K x + B^T mu = w^2 M x with B x = 0, so rigid-body
    modes (0 Hz) remain only where the joints allow motion. Small systems are solved densely
    on a null-space basis of B; larger ones with ARPACK in shift-invert mode on the bordered
    (saddle-point) system.

    ``contacts`` (default True): an impulse contact at rest in ``q`` (its gap zero within
    1e-7 of the model size) holds its node on the obstacle as a bilateral constraint row:
    small vibrations about a resting state are assumed to keep the contact closed (true while
    the contact force, e.g. the weight it carries, exceeds the vibration's dynamic force).
    Penalty contacts enter through their stiffness. False: contacts are ignored.

    Parameters
    ----------
    model : Model or System
        The structure or mechanism.
    n : int, default 6
        How many modes (the lowest).
    q : numpy.ndarray, optional
        The configuration to linearise about (default: the reference).
    load_factor : float, default 0.0
        The load factor ``q`` is in equilibrium at (for the geometric stiffness of the loads).
    t : float, default 0.0
        Time [s] at which loads and drivers are evaluated.
    lam : numpy.ndarray, optional
        The joint multipliers at ``q`` (e.g. ``static_result.lam[-1]``).
    contacts : bool, default True
        Resting impulse contacts hold (see above).

    Returns
    -------
    Modes
        ``frequencies`` [Hz], ``omega`` [rad/s], ``shapes`` and ``shape(i, node)``.

    Raises
    ------
    ModelError
        More modes than degrees of freedom, or bad input.
    SingularSystemError
        An unstable base state (e.g. a static state past buckling).

    Examples
    --------
    A cantilever's first frequency, 1.87510^2 sqrt(EI / (rho A L^4)) / (2 pi):

    >>> import fembody as fb
    >>> import numpy as np
    >>> steel = fb.Material(E=210e9, rho=7850.0)
    >>> sec = fb.Section.rectangle(b=0.02, h=0.02)
    >>> m = fb.Model()
    >>> beam = m.add_beam((0, 0), (1, 0), n=16, material=steel, section=sec)
    >>> m.fix(beam.first)
    >>> f1 = 1.87510 ** 2 * np.sqrt(steel.E * sec.I / (steel.rho * sec.A)) / (2 * np.pi)
    >>> print(f"{fb.modes(m, n=1).frequencies[0] / f1:.3f}")
    1.000
    """
    sys = as_system(model)
    n = validate.integer("n", n, where="modes")
    load_factor = validate.number("load_factor", load_factor, where="modes")
    t = validate.number("t", t, where="modes")
    validate.choice("contacts", contacts, (True, False), where="modes")
    q = sys.q0 if q is None else validate.configuration(
        "q", q, sys, where="modes", hint="a configuration of this model (e.g. "
                                         "static_result.q[-1]),")
    if lam is not None:
        lam = validate.array("lam", lam, (sys.n_con,), where="modes",
                             hint="the model's joint multipliers (e.g. "
                                  "static_result.lam[-1]),")
    if contacts:
        sys, lam = _with_resting_contacts(sys, q, lam)
    nf = sys.n_free
    ce = None
    n_dof_free = nf
    if sys.n_con:
        ce = sys.constraints(q, t, lam, hessian=lam is not None)
        check_redundant(sys, ce.Bdata)
        n_dof_free = nf - sys.n_con
    if n > n_dof_free:
        raise ModelError(f"modes: asked for {n} modes but the model has only {n_dof_free} "
                         "degrees of freedom (free DOFs less joint constraints)")
    K = sys.stiffness_matrix(q, t, load_factor)
    if ce is not None and ce.G is not None:
        K = K + sys.csc(ce.G)
    M = sys.mass_matrix(q)
    Md = M.diagonal()
    if np.any(Md <= 0.0):
        bad = [sys.dof_label(int(sys.free[i])) for i in np.flatnonzero(Md <= 0.0)[:5]]
        raise SingularSystemError(f"modes: DOFs without mass ({', '.join(bad)}); give them mass "
                                  "(add_mass, add_rigid_body) or a beam/truss with density", bad)
    # Shift-invert about sigma <= 0 in both paths: the low modes are computed as the largest
    # eigenvalues of (K - sigma M)^-1 M, which keeps them accurate when K mixes very stiff
    # (axial) and soft (bending) terms; a direct dense eigh loses ~1e-5 there.
    scale = float(np.median(np.abs(K.diagonal()) / Md))
    Z = None
    if ce is not None and nf <= DENSE_MAX:
        Z = manifold_basis(sys, ce.Bdata)
        nf = Z.shape[1]
    if Z is not None or nf <= DENSE_MAX:
        Kd, Mdn = K.toarray(), M.toarray()
        if Z is not None:
            Kd, Mdn = Z.T @ Kd @ Z, Z.T @ Mdn @ Z
            Kd, Mdn = 0.5 * (Kd + Kd.T), 0.5 * (Mdn + Mdn.T)
        for sigma in (0.0, -1e-6 * scale):
            try:
                C = sla.cholesky(Kd - sigma * Mdn, lower=True)
                break
            except np.linalg.LinAlgError:
                continue
        else:
            raise SingularSystemError("modes: the tangent stiffness is indefinite; the "
                                      "configuration is unstable" + _UNSTABLE_HINT)
        X = sla.solve_triangular(C, Mdn, lower=True)
        A = sla.solve_triangular(C, X.T, lower=True)      # C^-1 M C^-T (symmetric)
        mu, Y = sla.eigh(0.5 * (A + A.T), subset_by_index=[nf - n, nf - 1])
        mu, Y = mu[::-1], Y[:, ::-1]
        w2 = sigma + 1.0 / mu
        V = sla.solve_triangular(C.T, Y, lower=False)
        if Z is not None:
            V = Z @ V
    else:
        # shift below zero so that K - sigma M is positive definite even with rigid-body modes
        sigma = -1e-6 * scale
        OPinv = None if ce is None else constrained_resolvent(sys, K - sigma * M, ce.Bdata)
        w2, V = spla.eigsh(K, k=n, M=M, sigma=sigma, which="LM", OPinv=OPinv)
        order = np.argsort(w2)
        w2, V = w2[order], V[:, order]
    V = V / np.sqrt(np.einsum("ij,ij->j", V, M @ V))
    # round-off in omega^2 of shift-invert is ~ eps * (K/M scale): only clearly negative
    # eigenvalues mean an unstable configuration
    if np.any(w2 < -1e-10 * scale):
        raise SingularSystemError(f"modes: the tangent stiffness is not positive semi-definite "
                                  f"(eigenvalue {w2.min():.3g} rad^2/s^2); the configuration "
                                  "is unstable" + _UNSTABLE_HINT)
    omega = np.sqrt(np.clip(w2, 0.0, None))
    shapes = np.zeros((sys.n_dof, n))
    shapes[sys.free] = V
    return Modes(sys, omega, shapes)


def _with_resting_contacts(sys: System, q: np.ndarray, lam: np.ndarray | None):
    """``sys`` with a constraint row per impulse contact at rest in ``q`` (and ``lam``
    extended by zeros for them: a resting plane contact is linear, so its multiplier adds no
    geometric stiffness)."""
    if not sys.contact_groups:
        return sys, lam
    touch = 1e-7 * sys.length
    items = []
    for grp in sys.contact_groups:
        g, _, _, ok = grp.gaps(sys.gather(q, grp.dofs))
        items += [(grp, i) for i in np.flatnonzero(ok & (np.abs(g) <= touch))]
    if not items:
        return sys, lam
    base_con = sys.n_con
    sys = with_contact_rows(sys, items)
    if lam is not None:
        lam = np.r_[lam, np.zeros(sys.n_con - base_con)]
    return sys, lam
