"""Coulomb friction at point contacts: a penalty (regularised) tangential law with a return
mapping for stick and slip, on arrays of contacts, and its use in models.

**The law** (Simo and Laursen 1992; Wriggers, Computational Contact Mechanics, ch. 5). A
contact point with unit normal ``n`` and normal force ``N >= 0`` [N] is held tangentially by
a spring of stiffness ``k_t`` [N/m] to an **anchor**, the history of the contact (where it
last stuck). With ``w`` the point's position relative to its anchor, the trial elastic slip
is ``u = P w``, ``P = I - n n^T``, and the trial force ``k_t |u|``:

- **stick**, ``k_t |u| <= mu N``: the force is ``-k_t u`` on the point; the anchor stays;
- **slip**, ``k_t |u| > mu N``: the force is ``-mu N u / |u|``; once the step is accepted
  the anchor moves along ``u`` by the slip ``ds = |u| - mu N / k_t`` [m], so the elastic
  slip is ``mu N / k_t`` again.

**Static and kinetic coefficients** (``mu_s >= mu_k``, :func:`coefficients`): ``mu`` above
is ``mu_s`` for a point that stuck at the last accepted step and ``mu_k`` for one that slid
or was open. So a sticking point holds up to ``mu_s N``; in the step it breaks away it slips
at ``mu_s N``, and from the next step on it slides at ``mu_k N``, until a step ends with its
trial force at or below ``mu_k N``: it sticks again, and holds up to ``mu_s N`` from the next
step on. A contact that closes slides at ``mu_k N`` (or sticks) in its first step. Why the
kinetic coefficient takes over one step late: within a step the force is then continuous in
the point's position (the stick force reaches the slip force at the limit), so each step has
a solution and Newton converges as for one coefficient; switching to ``mu_k N`` inside the
step where the force exceeds ``mu_s N`` leaves a step with a solution in neither branch
when the slip it would take is shorter than ``(mu_s - mu_k) N / k_t`` (a slow pull: Newton
then cycles between stick and slip and the step is cut again and again). The delay is one
step, first order in the step. ``k_t`` bounds the elastic slip before sliding, ``mu N /
k_t``; the law tends to Coulomb's as ``k_t`` grows.

The tangent is the consistent one of the return mapping (unsymmetric in slip). For a point
against a plane (:func:`plane_friction`, the kernel verified alone)::

    K = k_n n n^T                                        (in contact)
      + k_t P                                            (stick)
      + mu N (P - e e^T) / |u| - mu k_n e n^T            (slip, e = u / |u|)

and in general (:func:`coulomb`, curved surfaces and beam pairs whose normal and anchor
points move with the nodes) the chain rule through ``dw``, ``dn`` and ``dN``.

An open contact carries no force and its anchor follows the contact (its projection on a
surface, or the current closest points of two beams), so a contact starts without tangential
force. **Landing inside a step** (issue 33; :func:`landing`): a point open at the step's start
(gap ``g0 > 0``) that touches at the evaluated state (``g1 < 0``) is tied where it touched,
not where it stood at the step's start: its tied points' relative position ``w`` is measured
from the touching state, estimated by the gap's zero crossing ``lambda = g0 / (g0 - g1)`` on
the step, ``w_eff = w1 - lambda (w1 - w0)`` (``w0``, ``w1`` at the step's start and the
evaluated state, the same anchor), with its exact derivative (``lambda`` follows ``g1``). So
the slip and the tangential force of the landing step count the tangential motion after
touching alone (to first order in the step), not the approach's. Where a block applies it
is stated in the block (planar beam pairs, :mod:`fembody.contact.beams`; every block of
:mod:`fembody.contact.surfaces`; the beam-end rows, :mod:`fembody.contact.ends`; the
junction rows' own point and the share rows' take-back of it,
:mod:`fembody.contact.junction`, :mod:`fembody.contact.share`; the spatial pairs' points
and the junction and share rows' take-back of them, the same points on the same gaps, so
that the take-back cancels the pair's to round-off,
:func:`fembody.contact.share.pair_point_friction`).

**In models.** Surface contacts (:mod:`fembody.contact.surfaces`, fixed surfaces and
surfaces carried by a body, whose anchors are the body's material points) and beam
contacts (:mod:`fembody.contact.beams`, point, line and planar pairs) take ``friction``
(``mu_s``), ``kinetic_friction`` (``mu_k``) and ``tangential_stiffness`` (``k_t``). Their
blocks read the anchors (a :class:`History`) from the run's
:class:`fembody.contact.ContactState`, never from the compiled System; the driver moves them
once per accepted step (``advance``), so a rejected or retried step starts again from the
anchors of the last accepted one, and checkpoints carry them; an integrator stepped directly
(outside :func:`fembody.simulate`) keeps a state of its own and moves it the same way
(:meth:`fembody.dynamics.base.Integrator.own_contact_state`), and :func:`fembody.static`
moves them at each converged load or time step (a load history, ``static(times=...)``, can
reverse a slip). A System evaluated without a run (``System.internal_forces`` called
directly) uses the anchors of the reference configuration: one return mapping from the
start, which is the incremental answer for a monotonic load but not for one that reverses.

**Energy.** The energy a step dissipates is the friction forces' work by the trapezoidal
rule, the rule of the load work in the run's energy balance, less the change of the
tangential springs' energy (:class:`History`): ``Result.energy.friction`` sums it, the
springs' energy ``|T|^2 / (2 k_t)`` is part of ``Result.energy.strain``, and the balance
``total - work - constraint_work + dissipated + friction`` stays constant up to the
integrator's error.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rotations import exp as _rot_exp, log as _rot_log


class FrictionState(NamedTuple):
    """Per contact at the evaluated state: normal force ``N`` [N] (>= 0), tangential force
    ``T (n, d)`` [N] on the point, ``slipping`` (bool), the ``anchor (n, d)`` [m] to keep if
    the step is accepted, and the energy ``dissipated`` [J] by the slip since the last
    accepted step."""

    N: np.ndarray
    T: np.ndarray
    slipping: np.ndarray
    anchor: np.ndarray
    dissipated: np.ndarray


def plane_friction(x: np.ndarray, point: np.ndarray, normal: np.ndarray, anchor: np.ndarray,
                   kn: np.ndarray, kt: np.ndarray, mu: np.ndarray, tangent: bool = True
                   ) -> tuple[np.ndarray, np.ndarray | None, FrictionState]:
    """Internal force, tangent and friction state of points against rigid planes.

    Parameters
    ----------
    x : ndarray
        Positions of the points [m], shaped (n, d) (d = 2 or 3).
    point, normal : ndarray
        A point of each plane [m] and its unit normal into the free side, (n, d).
    anchor : ndarray
        The anchors of the last accepted step [m], (n, d) (for a new run: the points'
        projections on the planes).
    kn, kt : ndarray
        Normal and tangential penalty stiffness [N/m], (n,).
    mu : ndarray
        Coulomb coefficients [-], (n,).
    tangent : bool
        Also return ``K = df/dx`` (n, d, d) (default True); else None.

    Returns
    -------
    f : ndarray
        The internal force (n, d) [N] (``-f`` acts on the point).
    K : ndarray or None
        Its derivative with respect to ``x`` (unsymmetric when slipping).
    state : FrictionState
        Forces, stick/slip and the anchors to keep.
    """
    n_, d = x.shape
    g = np.einsum("ni,ni->n", normal, x - point)
    on = g < 0.0
    N = np.where(on, -kn * g, 0.0)
    P = np.eye(d)[None] - normal[:, :, None] * normal[:, None, :]
    xp = x - g[:, None] * normal                                # projection on the plane
    ut = np.einsum("nij,nj->ni", P, x - anchor)
    un = np.sqrt(np.einsum("ni,ni->n", ut, ut))
    trial = kt * un
    slip = on & (trial > mu * N)
    e = ut / np.where(un > 0.0, un, 1.0)[:, None]
    Tmag = np.where(slip, mu * N, np.where(on, trial, 0.0))
    T = -Tmag[:, None] * e
    f = -N[:, None] * normal - T
    new_anchor = np.where(on[:, None], xp + T / kt[:, None], xp)
    moved = np.sqrt(np.einsum("ni,ni->n", new_anchor - anchor, new_anchor - anchor))
    dissipated = np.where(slip, mu * N * moved, 0.0)
    state = FrictionState(N, T, slip, new_anchor, dissipated)
    if not tangent:
        return f, None, state
    nn = normal[:, :, None] * normal[:, None, :]
    K = np.where(on, kn, 0.0)[:, None, None] * nn
    stick = on & ~slip
    K += np.where(stick, kt, 0.0)[:, None, None] * P
    ee = e[:, :, None] * e[:, None, :]
    safe = np.where(un > 0.0, un, 1.0)
    K += np.where(slip, mu * N / safe, 0.0)[:, None, None] * (P - ee)
    K -= np.where(slip, mu * kn, 0.0)[:, None, None] * (e[:, :, None] * normal[:, None, :])
    return f, K, state


# ----------------------------------------------------------------------------- in models
class History(NamedTuple):
    """The tangential history of a block's contact points, what a run keeps from one accepted
    step to the next (in its :class:`fembody.contact.ContactState`): ``anchor (p, d)`` [m]
    where each point's tangential spring is tied (a point in space for a fixed surface; for a
    beam pair the two chords' parameters, see the block), ``sliding (p,)`` whether the point
    slid or was open in the last accepted step (its coefficient is then ``mu_k``, else
    ``mu_s``), ``slip
    (p,)`` [m] the slip distance accumulated since the run started; for the energy
    bookkeeping, at that step's end: ``x (n, k)`` the block's gathered displacements [m],
    ``force (n, k)`` [N] the friction part of its internal forces and ``stored (p,)`` [J]
    the energy of the tangential springs.

    The energy a step dissipates is the work of the friction forces by the trapezoidal rule
    (the rule of the load work in the run's energy balance), ``(F_0 + F_1) . (x_1 - x_0) /
    2``, less the change of the springs' energy: zero in stick on a plane, ``mu N ds``
    with the step's mean ``N`` in slip. (``mu N_1 ds`` with the end value of ``N`` alone
    leaves an error of ``mu v h (N(t) - N(0)) / 2`` in the balance, first order in the step
    ``h``.)"""

    anchor: np.ndarray
    sliding: np.ndarray
    slip: np.ndarray
    x: np.ndarray
    force: np.ndarray
    stored: np.ndarray

    def copy(self) -> "History":
        return History(*(a.copy() for a in self))

    @classmethod
    def open(cls, anchor: np.ndarray, x: np.ndarray) -> "History":
        """The history of points that are all open at the displacements ``x``, tied to
        ``anchor (p, d)``: sliding (so a closing contact starts at ``mu_k``), no slip, no
        force, no stored energy."""
        p = len(anchor)
        return cls(anchor, np.ones(p, dtype=bool), np.zeros(p), x.copy(), np.zeros_like(x),
                   np.zeros(p))

    def frozen(self) -> "History":
        """The same history with read-only arrays (a block's reference history, shared by
        every run)."""
        for a in self:
            a.flags.writeable = False
        return self

    def work(self, force: np.ndarray, x: np.ndarray, rows: np.ndarray | None = None,
             md: int | None = None) -> float:
        """The friction forces' work [J] over the step from this history's state to the
        displacements ``x (n, k)`` [m] with the forces ``force (n, k)`` [N] at its end, by the
        trapezoidal rule (the class docstring), ``sum (F_0 + F_1) . (x_1 - x_0) / 2``.

        ``rows`` (default None: every row) holds every row whose force is nonzero at the
        step's end (the live rows): the terms of the others are taken as the zeros they are
        unless the row carried a force at the step's start, and the sum runs over every term
        in the same order, so it equals the sum over all rows bit for bit (but for the sign
        of a zero). (For blocks whose rows are nearly all idle, as the junction and share
        rows of a bundle of beams.)

        ``md`` (default None: every column is a plain coordinate, as a planar angle is):
        spatial rows at the surfaces hold the rotation vectors of ``(k - md) / 3`` nodes
        after ``md`` displacements, and their columns [N m] are moments on the material
        increments ``log(R_0^T R_1)``: the moments' work is taken over those, not over the
        rotation vectors' difference (2 pi off where a vector crosses pi in the step, as an
        end or a beam rolling on another does), for the rows with a force at either end of
        the step (the others add nothing: an idle block stays cheap)."""
        rot = md is not None and x.shape[1] > md
        if rows is None:
            dx = x - self.x
            if rot:
                r = np.flatnonzero(force.any(axis=1) | self.force.any(axis=1))
                if r.size:
                    dx[r, md:] = self._increments(x, r, md)
            return 0.5 * float(np.sum((force + self.force) * dx))
        if not len(rows) and not self.force.any():
            # no row carries a force at either end of the step: every term is zero (an idle
            # block: the bundle's junction and share rows at nearly every step)
            return 0.0
        rows = np.union1d(rows, np.flatnonzero(self.force) // max(self.force.shape[1], 1))
        dx = x[rows] - self.x[rows]
        if rot and rows.size:
            dx[:, md:] = self._increments(x, rows, md)
        terms = np.zeros(x.shape)
        terms[rows] = (force[rows] + self.force[rows]) * dx
        return 0.5 * float(np.sum(terms))

    def _increments(self, x: np.ndarray, r: np.ndarray, md: int) -> np.ndarray:
        """Rows ``r``'s material rotation increments ``log(R_0^T R_1)`` ``(len(r), k - md)``
        [rad] from this history's rotation vectors (the columns from ``md`` on) to ``x``'s,
        each node's of angle in ``[0, pi]``."""
        shape = (len(r), (x.shape[1] - md) // 3, 3)
        R0 = _rot_exp(self.x[r, md:].reshape(shape))
        R1 = _rot_exp(x[r, md:].reshape(shape))
        return _rot_log(np.swapaxes(R0, -1, -2) @ R1).reshape(len(r), -1)


class Coulomb(NamedTuple):
    """The return mapping of :func:`coulomb` at one state: ``f (p, d)`` [N] the friction part
    of the internal force (``-f`` acts on the point), ``K (p, d, m)`` its derivative with
    respect to the item's coordinates (None without tangent), ``slipping (p,)``, ``ds (p,)``
    [m] the slip since the anchor (0 in stick), ``stored (p,)`` [J] the energy held by the
    tangential springs, ``|f|^2 / (2 k_t)``, ``u (p, d)`` [m] the trial elastic slip and
    ``un (p,)`` its length (the slip is along ``u / un``)."""

    f: np.ndarray
    K: np.ndarray | None
    slipping: np.ndarray
    ds: np.ndarray
    stored: np.ndarray
    u: np.ndarray
    un: np.ndarray


def coulomb(w: np.ndarray, normal: np.ndarray, N: np.ndarray, kt: np.ndarray,
            mu_s: np.ndarray, mu_k: np.ndarray, sliding: np.ndarray,
            dw: np.ndarray | None = None, dn: np.ndarray | None = None,
            dN: np.ndarray | None = None) -> Coulomb:
    """Coulomb friction of contact points by a penalty tangential law and its return mapping
    (stick/slip), with static and kinetic coefficients: the kernel every frictional contact
    block calls.

    ``w (p, d)`` [m] is the point's position relative to its anchor (for a pair of beams: the
    relative position of the two material points that were tied), ``normal (p, d)`` the unit
    contact normal at the current state and ``N (p,)`` [N] the normal force (0: open). The
    trial elastic slip is ``u = P w``, ``P = I - n n^T``, and the trial force ``k_t |u|``:

    - **stick** when ``k_t |u| <= mu N`` with ``mu = mu_s`` for a point that stuck at the
      last accepted step and ``mu = mu_k`` for one that slid or was open (``sliding``): ``f
      = k_t u``;
    - **slip** otherwise: ``f = mu N e``, ``e = u / |u|``, and the point has slipped ``ds =
      |u| - mu N / k_t`` [m] along ``e``.

    So a sticking contact holds up to ``mu_s N``, slips at ``mu_s N`` in the step it breaks
    away and at ``mu_k N`` from the next step on, until a step ends with its trial force at
    or below ``mu_k N`` (the module docstring says why the kinetic coefficient takes over
    one step late).

    Derivatives (optional, for the consistent tangent) with respect to the item's ``m``
    coordinates ``X``: ``dw (p, d, m)``, ``dn (p, d, m)`` (None: a constant normal), ``dN (p,
    m)``; then ``K = df/dX``: stick ``k_t du``, slip ``mu (e dN^T + N (I - e e^T) du /
    |u|)``, with ``du = P dw - (n.w) dn - n (w^T dn)``.
    """
    p, d = w.shape
    on = N > 0.0
    nw = np.einsum("pi,pi->p", normal, w)
    u = w - nw[:, None] * normal
    un = np.sqrt(np.einsum("pi,pi->p", u, u))
    trial = kt * un
    mu = np.where(sliding, mu_k, mu_s)
    limit = mu * N
    slip = on & (trial > limit)
    safe = np.where(un > 0.0, un, 1.0)
    e = u / safe[:, None]
    mag = np.where(slip, limit, np.where(on, trial, 0.0))
    f = mag[:, None] * e
    ds = np.where(slip, un - limit / kt, 0.0)
    stored = 0.5 * mag * mag / kt
    K = None
    if dw is not None:
        P = np.eye(d)[None] - normal[:, :, None] * normal[:, None, :]
        du = np.einsum("pij,pjm->pim", P, dw)
        if dn is not None:
            du -= nw[:, None, None] * dn + normal[:, :, None] * np.einsum("pi,pim->pm", w,
                                                                           dn)[:, None, :]
        stick = on & ~slip
        K = np.where(stick, kt, 0.0)[:, None, None] * du
        Pe = np.eye(d)[None] - e[:, :, None] * e[:, None, :]
        K += np.where(slip, limit / safe, 0.0)[:, None, None] * np.einsum("pij,pjm->pim",
                                                                           Pe, du)
        if dN is not None:
            K += np.where(slip, mu, 0.0)[:, None, None] * e[:, :, None] * dN[:, None, :]
    return Coulomb(f, K, slip, ds, stored, u, un)


def landing(g0: np.ndarray, g1: np.ndarray, w0: np.ndarray, w1: np.ndarray,
            dg1: np.ndarray | None = None, dw1: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray | None]:
    """The shift of the tied points' relative position of contact points that land inside a
    step (module docstring, **Landing inside a step**): ``w_eff = w1 - shift``.

    ``g0 (p,) > 0`` [m] the points' gaps at the step's start, ``g1 (p,) < 0`` at the evaluated
    state; ``w0``, ``w1 (p, d)`` [m] the tied points' relative positions there (the same
    anchor); with the derivatives ``dg1 (p, k)`` and ``dw1 (p, d, k)`` with respect to the
    item's ``k`` coordinates also ``d shift / dX (p, d, k)`` (else None). ``shift = lambda (w1
    - w0)``, ``lambda = g0 / (g0 - g1)`` in (0, 1): the touching state on the step by the
    gap's zero crossing, where the point is tied; ``d lambda = g0 / (g0 - g1)^2 dg1``."""
    lam = g0 / (g0 - g1)
    dw = w1 - w0
    shift = lam[:, None] * dw
    if dg1 is None:
        return shift, None
    dlam = (lam * lam / g0)[:, None] * dg1
    return shift, lam[:, None, None] * dw1 + dw[:, :, None] * dlam[:, None, :]


def coefficients(friction, kinetic_friction, tangential_stiffness, stiffness: float,
                 where: str) -> tuple[float, float, float]:
    """Validate a contact's friction arguments: ``(mu_s, mu_k, k_t)``. ``friction`` the static
    coefficient ``mu_s`` (>= 0; 0: frictionless), ``kinetic_friction`` ``mu_k`` (default
    None: ``mu_s``; at most ``mu_s``), ``tangential_stiffness`` [N/m] (default None: the
    normal ``stiffness``). ModelError naming ``where`` and the argument otherwise."""
    from .. import validate
    from ..errors import ModelError
    mu_s = validate.number(f"{where}: friction", friction)
    if mu_s < 0.0:
        raise ModelError(f"{where}: friction must be >= 0 (the static Coulomb coefficient; 0: "
                         f"frictionless), got {friction!r}")
    mu_k = mu_s
    if kinetic_friction is not None:
        mu_k = validate.number(f"{where}: kinetic_friction", kinetic_friction)
        if mu_k < 0.0:
            raise ModelError(f"{where}: kinetic_friction must be >= 0 (the sliding Coulomb "
                             f"coefficient), got {kinetic_friction!r}")
        if mu_k > mu_s:
            raise ModelError(f"{where}: kinetic_friction ({mu_k:g}) exceeds friction, the "
                             f"static coefficient ({mu_s:g}); give mu_k <= mu_s (or leave "
                             "kinetic_friction out: mu_k = mu_s)")
    kt = stiffness
    if tangential_stiffness is not None:
        kt = validate.number(f"{where}: tangential_stiffness", tangential_stiffness)
        if not kt > 0.0:
            raise ModelError(f"{where}: tangential_stiffness must be positive [N/m], got "
                             f"{tangential_stiffness!r}")
        if mu_s == 0.0:
            raise ModelError(f"{where}: tangential_stiffness is used by friction only; give "
                             "friction > 0 or leave it out")
    return mu_s, mu_k, kt


def anchor_layout(anchor: np.ndarray, d: int, tied: int = 0):
    """A two-point row's anchor ``(n, 2 (2 + d + tied) + 1)`` split into its first point's
    ``(n, 2 + d + tied)``, its second point's ``(n, 2 + d + tied)`` (each ``(s, t, o)``: two
    parameters, the offset, and ``tied`` entries more: the section vectors ``(a_A, a_B)`` a
    row measuring at the surfaces ties, ``tied = 6``, else 0) and whether the second point
    slid or was open at the last accepted step ``(n,)``: the junction rows'
    (:mod:`fembody.contact.junction`: the first the node contact's or the removed pair's,
    the second the faded pair's, ``s = 0``: none) and the share rows'
    (:mod:`fembody.contact.share`: the pair's, the kink node's contact's). An ``(n, 2 + d +
    tied)`` anchor (a history made by hand) has no second point; so has an ``(n, 2 + d)``
    one, whose section vectors are zero (the axes' points)."""
    w = 2 + d + tied
    if anchor.shape[1] == 2 + d and tied:
        anchor = np.concatenate([anchor, np.zeros((len(anchor), tied))], axis=1)
    if anchor.shape[1] == w:
        return anchor, np.zeros((len(anchor), w)), np.ones(len(anchor), dtype=bool)
    return anchor[:, :w], anchor[:, w:2 * w], anchor[:, 2 * w] > 0.5


def anchor_pack(first: np.ndarray, second: np.ndarray, sliding: np.ndarray) -> np.ndarray:
    """The anchor of :func:`anchor_layout` from its three parts."""
    return np.concatenate([first, second, sliding.astype(float)[:, None]], axis=1)
