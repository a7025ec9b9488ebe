"""Natural frequencies and mode shapes about the reference or a given configuration."""
from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

import numpy as np

from .. import validate
from ..errors import ModelError, SingularSystemError
from ..lazy import lazy_module
from ..results import Result
from ..system import System
from .about import base_state
from ..system.contact_rows import with_contact_rows
from ..linalg.linalg import DENSE_MAX
from ..system.constraint_rank import check_redundant
from .statics import as_system, constrained_resolvent

sla = lazy_module("scipy.linalg")          # imported at first use: fast start-up
spla = lazy_module("scipy.sparse.linalg")

if TYPE_CHECKING:
    from ..model.model import Model


@dataclass
class Modes:
    """Result of a modal analysis.

    ``frequencies`` [Hz] and ``omega`` [rad/s] in ascending order (rigid-body modes give 0);
    ``shapes (n_dof, n)``: mass-normalised mode shapes (phi^T M phi = 1) as full-length vectors
    (zero at fixed DOFs). ``q``: the configuration they are about, ``load_factor`` its load
    factor, ``static``: the static Result computed for it when only a load factor was given.
    """

    system: System
    omega: np.ndarray
    shapes: np.ndarray
    q: np.ndarray | None = None
    load_factor: float = 0.0
    static: Result | None = None

    def __repr__(self) -> str:
        f = ", ".join(f"{x:.6g}" for x in self.frequencies[:6])
        more = ", ..." if len(self.omega) > 6 else ""
        return f"Modes({len(self.omega)} modes: {f}{more} Hz)"

    @property
    def frequencies(self) -> np.ndarray:
        """Natural frequencies [Hz], ``omega / (2 pi)``, lowest first."""
        return self.omega / (2.0 * np.pi)

    def __len__(self) -> int:
        return self.shapes.shape[1]

    def _index(self, i: int, where: str) -> int:
        n = self.shapes.shape[1]
        i = validate.integer("i", i, minimum=-n, where=where)
        if i >= n:
            raise ModelError(f"{where}: mode {i} does not exist; {n} modes were computed "
                             f"(0..{n - 1})")
        return int(i) % n

    def shape(self, i: int, node) -> np.ndarray:
        """Mode ``i`` at ``node``: (ux, uy, rz) in the plane, (ux, uy, uz, rx, ry, rz) in
        space, with zero for a DOF the node does not have."""
        i = self._index(i, "Modes.shape")
        d = self.system.node_dofs[self.system.outline.node(node, "Modes.shape")]
        out = np.zeros(d.shape[0])
        ok = d >= 0
        out[ok] = self.shapes[d[ok], i]
        return out

    def effective_masses(self) -> tuple[np.ndarray, np.ndarray]:
        """Effective modal masses [kg] per translation direction and the moving mass.

        Returns ``(m_eff (n, dim), total (dim,))``: ``m_eff[i, d] = (phi_i^T M r_d)^2`` with
        the mass-normalised shape ``phi_i`` and ``r_d`` the unit rigid translation in direction
        d of every node (a base excitation); ``total[d] = r_d^T M r_d`` over all DOFs, the
        model's mass in direction d. Summed over all modes, ``m_eff`` gives the mass on the
        free DOFs (the mass at fixed DOFs moves with the supports and is in no mode): the
        fraction of ``total`` the computed modes hold tells whether they are enough for a base
        excitation in that direction (a common rule asks for 90 %).
        """
        sys = self.system
        q = sys.q0 if self.q is None else self.q
        M = sys.mass_matrix(q)
        dim = getattr(sys.space, "dim", 2)
        R = np.zeros((sys.n_dof, dim))
        for d in range(dim):
            idx = sys.node_dofs[:, d]
            R[idx[idx >= 0], d] = 1.0
        MR = M @ R[sys.free]
        gamma = self.shapes[sys.free].T @ MR            # participation factors [sqrt(kg)]
        zero = np.zeros(sys.n_dof)
        # the model's mass in each direction, fixed DOFs included (M over all DOFs times r_d)
        total = np.array([R[:, d] @ sys.inertial_forces(q, zero, R[:, d], tangent=False)[0]
                          for d in range(dim)])
        return gamma**2, total

    def to_dataframe(self):
        """A pandas DataFrame, one row per mode: ``frequency [Hz]``, ``omega [rad/s]``,
        ``period [s]`` (inf for a rigid-body mode), and per translation direction d (x, y and
        in space z) the effective mass ``m_eff_d [kg]`` and its fraction of the model's mass
        ``fraction_d`` (see :meth:`effective_masses`)."""
        try:
            import pandas as pd
        except ImportError:
            raise ModelError("Modes.to_dataframe needs pandas: pip install pandas (or "
                             "pip install 'fembody[data]')") from None
        meff, total = self.effective_masses()
        with np.errstate(divide="ignore"):
            period = np.where(self.omega > 0.0, 2.0 * np.pi / np.where(
                self.omega > 0.0, self.omega, 1.0), np.inf)
        cols = {"frequency [Hz]": self.frequencies, "omega [rad/s]": self.omega,
                "period [s]": period}
        for d, name in enumerate("xyz"[:meff.shape[1]]):
            cols[f"m_eff_{name} [kg]"] = meff[:, d]
            cols[f"fraction_{name}"] = meff[:, d] / total[d] if total[d] > 0 else \
                np.zeros(len(self))
        return pd.DataFrame(cols, index=pd.RangeIndex(len(self), name="mode"))

    def result(self, i: int, amplitude: float | None = None, frames: int = 1) -> Result:
        """Mode ``i`` as a Result of kind ``'mode'`` (for :func:`fembody.viz.plot`,
        :func:`fembody.viz.animate` and :func:`fembody.io.write_result`).

        Parameters
        ----------
        amplitude : float, optional
            The largest translation of the shape [m] (default: 10 % of the model's size; when
            the mode moves no translation, the largest rotation [rad], default 0.3).
        frames : int, default 1
            1: the state ``q (+) amplitude * phi_i`` (the shape over the base state ``q``);
            more: one period of ``q (+) amplitude sin(2 pi k / frames) phi_i``, k = 0 ..
            frames - 1, ``time`` the phase as a fraction of the period.
        """
        i = self._index(i, "Modes.result")
        frames = validate.integer("frames", frames, where="Modes.result")
        sys = self.system
        q = sys.q0 if self.q is None else self.q
        phi = self.shapes[sys.free, i]
        rot = getattr(sys.space, "rotation", np.zeros(sys.n_dof, bool))[sys.free]
        trans = _largest_translation(sys, self.shapes[:, i], rot)
        if amplitude is None:
            amplitude = 0.1 * sys.length if trans > 0 else 0.3
        amplitude = validate.number("amplitude", amplitude, where="Modes.result")
        big = trans if trans > 0 else np.abs(phi).max(initial=0.0)
        phi = phi * (amplitude / big if big > 0 else 0.0)
        out = Result(sys, "mode")
        phases = [0.25] if frames == 1 else np.arange(frames) / frames
        for ph in phases:
            out.record(float(ph), sys.update(q, np.sin(2.0 * np.pi * ph) * phi))
        out.stats.update(mode=i, frequency=float(self.frequencies[i]),
                         amplitude=float(amplitude))
        return out


def _largest_translation(sys: System, shape: np.ndarray, rot_free: np.ndarray) -> float:
    """The largest translation [m] the shape (all DOFs) moves a point of the model: the
    nodes' translations and the mesh points' of modal bodies (``phi_t eta``; their modal
    amplitudes are not lengths)."""
    modal = np.zeros(sys.n_dof, bool)
    bodies = sys.outline.modal_phi_t
    for index in range(len(bodies)):
        modal[sys.modal_dofs[index]] = True
    node_t = ~rot_free & ~modal[sys.free]
    big = float(np.abs(shape[sys.free][node_t]).max(initial=0.0))
    for index, phi_t in enumerate(bodies):
        eta = shape[sys.modal_dofs[index]]
        big = max(big, float(np.abs(np.einsum("ajn,n->aj", phi_t, eta)).max(initial=0.0)))
    return big


# why an unstable base state is refused, and what to pass instead
_UNSTABLE_HINT = (" (e.g. a static state past a limit point or buckling, flagged False in "
                  "result.stable): small motions about it grow instead of vibrating, so it has "
                  "no natural frequencies. Use a stable state (result.q[k] with result.stable[k] "
                  "True), or fb.buckling for the critical loads")


def manifold_basis(sys: System, Bdata: np.ndarray) -> np.ndarray:
    """An orthonormal basis ``Z (n_free, n_free - rank B)`` of the motions the joints allow
    (the null space of B, dense SVD: for small models)."""
    return sla.null_space(sys.B_matrix(Bdata).toarray())


def modes(model: "Model | System", n: int = 6, *, state: "Result | np.ndarray | None" = None,
          load_factor: float | None = None, lam: np.ndarray | None = None,
          t: float | None = None, contacts: bool = True,
          q: np.ndarray | None = None) -> Modes:
    """The ``n`` lowest natural modes of the model linearised about a state.

    Parameters
    ----------
    n : int, default 6
        Number of modes.
    state : None, Result or array, default None
        What to linearise about, read as by :func:`fembody.buckling`. None: the reference
        configuration, unloaded; with ``load_factor=s`` the static equilibrium under ``s``
        times the model's loads, which is computed first (:func:`fembody.static`, 10 load
        increments; its Result is ``Modes.static``). A :class:`~fembody.Result`: its last
        state (a static Result with its load factor and joint multipliers, a dynamic one
        under the full loads at its last time). A configuration ``q`` (e.g. ``result.q[k]``):
        give ``load_factor`` (default 0) and the joint multipliers ``lam`` (default: none, so
        no geometric stiffness of the joints) that hold it. The geometric stiffness of the
        elements, of the joints and of load-dependent loads enters through the state.
    load_factor : float, optional
        The state's load factor (see ``state``).
    lam : array, optional
        Joint multipliers (n_con,) with a configuration ``state`` (a Result holds its own).
    t : float, optional
        Time [s] at which drivers are frozen and loads evaluated (default 0, or a dynamic
        Result's last time).
    contacts : bool, default True
        An impulse contact at rest in the state (its gap zero within 1e-7 of the model size)
        holds its node on the obstacle as a bilateral constraint row: small vibrations about
        a resting state are assumed to keep the contact closed (true while the contact force,
        e.g. the weight it carries, exceeds the vibration's dynamic force). Penalty contacts
        enter through their stiffness. False: contacts are ignored.
    q : array, optional
        Former name of a configuration ``state``, still accepted.

    Returns
    -------
    Modes
        Frequencies, mass-normalised shapes and the state they are about.

    Raises
    ------
    ModelError
        More modes than degrees of freedom, a state given twice or contradicting its load
        factor, or other bad input.
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

    Notes
    -----
    Joints (supports, pins, sliders, drivers frozen at ``t``, ...) hold: the eigenproblem is
    solved on the constraint manifold, K x + B^T mu = w^2 M x with B x = 0, so rigid-body
    modes (0 Hz) remain only where the joints allow motion. Small systems are solved densely
    on a null-space basis of B; larger ones with ARPACK in shift-invert mode on the bordered
    (saddle-point) system.
    """
    sys = as_system(model)
    n = validate.integer("n", n, where="modes")
    validate.choice("contacts", contacts, (True, False), where="modes")
    if q is not None:
        if state is not None:
            raise ModelError("modes: give the state once, as state= (q= is its former name)")
        if isinstance(q, Result):
            state = q
        else:
            state = validate.configuration(
                "q", q, sys, where="modes", hint="a configuration of this model (e.g. "
                                                 "static_result.q[-1]),")
    base = base_state(sys, state, load_factor, lam, t, "modes", configuration_needs_load=False)
    q, lam, load_factor, t = base.q, base.lam, base.load_factor, base.t
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
        # shift below zero so that K - sigma M is positive definite even with rigid-body modes;
        # (K - sigma M)^-1 by fembody's own factorisations (CHOLMOD or the envelope for a
        # definite one, not SciPy's default LU), of the symmetric part: the Lanczos iteration
        # of eigsh assumes K symmetric (a spatial tangent away from equilibrium is not quite)
        sigma = -1e-6 * scale
        A = K - sigma * M
        A = (0.5 * (A + A.T)).tocsc() if sys.dimension.spatial else A
        OPinv = constrained_resolvent(sys, A, None if ce is None else ce.Bdata, symmetric=True)
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
    return Modes(sys, omega, shapes, q=q, load_factor=load_factor, static=base.static)


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
