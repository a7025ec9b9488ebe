"""The highest penalty contact frequency of each beam and surface contact, estimated from the
model's data alone, and the warning of a dynamic run whose step does not resolve it.

**Why.** A penalty contact is a spring: in contact a point carrying mass ``m`` against a
penalty ``k`` oscillates at ``omega = sqrt(k / m)``; a line contact (penalty ``k / l`` per
metre along an element of length ``l``, :mod:`fembody.contact.line`, and the element rows of
:mod:`fembody.contact.surfaces`) on a beam of mass ``m'`` per metre at ``sqrt(k / (l m'))``.
These are often far above ``1 / h``. Where ``omega h`` is large the Newmark family does not
follow the contact's motion, and where it also keeps the high frequencies (spectral radius
near 1) the state chatters across the penalty's kink and the run gains energy: the bundle of
10 beams of benchmarks/beam_bundle.py (issue 33, study rattle-33, key ``rattle_33`` of
benchmarks/results/beam_bundle.json) gains 11-14 mJ against 1 mJ of kinetic energy and its
top beam leaves the converged trajectory by 100-320 um at the default ``rho_inf = 0.9`` and
``h`` = 1, 0.5 and 0.25 ms, while ``rho_inf`` 0.5 or 0 at 1 ms, or ``h`` = 0.125 ms at 0.9,
stay on it. :func:`unresolved` finds such contacts before a run starts and ``simulate``
warns once (:class:`fembody.errors.ContactWarning`) naming them.

**The estimate** (:func:`contact_frequencies`, once per run: a loop over the contacts'
nodes and row sums of the mass matrix). Each contact puts on each of its nodes at most the
stiffness ``s k``, with ``s`` the node's share: a node of a contact's beam or surface element
carries half the penalty of each such element touching it (an element's line contact has
the total stiffness ``k`` shared by its two nodes), a node checked as a point (a surface
contact's ``nodes``) all of it. Where the other side moves too (a beam on a beam, a surface
carried by a body) the node is coupled to it by the same stiffness. Gershgorin's theorem on
``M^-1 K`` of the contact springs with a diagonal mass then bounds the squared frequency
by, for each node ``i``,

    omega_i^2 = sum over the contacts at i of (s k) (2 where the other side moves, else 1) / m_i

with ``m_i`` the node's lumped mass: the elements' shares, point masses, a rigid body's
mass, read as the largest over the node's free translations of the mass matrix's row sum
over the free translation columns (the largest: a row next to a fixed DOF loses that
column's share). A consistent mass is lumped so: its diagonal alone would raise the
estimate by sqrt(3/2) on linear beam elements, whose line penalty is integrated as
consistently as their mass, while the row sum gives the line contact's own ``k / (l m')``. A
contact's frequency is the largest ``omega_i`` over its nodes. It is exact for a point mass
on a penalty spring against a fixed surface (``sqrt(k / m)``), gives ``sqrt(k / (l m'))``
for a beam lying on a plane, and for a stack of beams each lying on the next along its length
``2 sqrt(k / (l m'))`` for the beams between two others (a chain's highest mode, which the
bundle's contact modes reach: rattle-33 measured them at omega h 12.7-25 at 1 ms with
``sqrt(k / (l m'))`` = 1.27e4 rad/s). Not counted: the bending and axial stiffness of the
elements (which raise local modes further), the node penalty contacts of
``add_contact(method='penalty')`` (a Hertz law whose stiffness grows with the depth), and
point contacts at a beam's free end node (twice the estimate there: half an element's mass).

**The thresholds** (:data:`OMEGA_H`, :data:`RHO`), measured with this estimate
(benchmarks/contact_omega.py, key ``omega_33`` of benchmarks/results/beam_bundle.json): on
the bundle of 3 beams x 20 elements (40 ms, against a run at ``omega h`` 0.5) generalized-alpha
at ``rho_inf`` 0.9 keeps the energy to the reference's 1e-7 J up to ``omega h`` 3.5 and
gains from 4 on (6.7e-7 J at 4, 2.9e-6 at 5, 9.4e-5 at 11.4); at 0.7 it gains from 5 on
(6.8e-5 J at 11.4); at 0.5 it never gains (it dissipates 1-4e-6 J at every ``omega h``). On
the bundle of 10 x 100 (rattle-33, estimate 2.5e4 rad/s) ``omega h`` 3.2 (h = 0.125 ms)
stayed on the converged run and 6.4 (0.25 ms) and above gained 11-14 mJ at ``rho_inf`` 0.9,
while 0.5 and 0 at ``omega h`` 25 did not.
A run is warned where ``omega h > OMEGA_H`` and the integrator's spectral radius at infinite
``omega h`` exceeds ``RHO`` (the Newmark family's
:attr:`fembody.GeneralizedAlpha.rho_infinity`: generalized-alpha's ``rho_inf``, HHT's
``(1 - alpha) / (1 + alpha)``, Newmark's from ``gamma`` and ``beta``, 1 for the trapezoidal
rule). Not the radius at the contact's own ``omega h``: it approaches ``rho_inf`` slowly
(0.60-0.67 at ``omega h`` 12-25 for ``rho_inf`` 0.5, which kept the bundle on the converged
run; 0.96-0.98 for 0.9, which did not), so ``rho_inf`` is the knob the advice names.

**Impacts are another matter** (benchmarks/contact_omega.py ``--drop``, key
``omega_33_drop``): a point mass hitting a plane at 1 m/s without the step control (no
``max_penetration``) changes its energy in the bounce by 0.16 % at ``omega h`` 0.1, 6 % at
0.5, 1-23 % at 1-3 and up to 390 % at 11.4 with ``rho_inf`` 0.9, and by up to 190 % with
0.5: the force switched on in mid-step, not the undamped frequency, makes that error, and
``rho_inf`` does not cure it. Nor did the step control of :mod:`fembody.contact.watch` here
(``max_penetration`` 1 mm, twice the bounce's depth: 28 steps, -59 % at ``omega h`` 11.4,
against -0.8 % at ``omega h`` 1), whose first step went unchecked. Since onset-33 a run
locates such switches in time and bounds the steps of a bounce by ``0.1 / omega``
(``simulate(contact_onset=...)``, rules 4 and 5 of :mod:`fembody.contact.watch`, which read
the estimate here through :func:`node_masses` and :func:`contact_frequencies`); the warning
stays for contacts that stay pressed or chatter, which those rules leave alone.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import ContactWarning

#: ``omega h`` above which a penalty contact counts as not resolved by the step (the basis:
#: the module docstring; the advice names ``h < OMEGA_H / omega``)
OMEGA_H = 3.5
#: the scheme's ``rho_inf`` (spectral radius at infinite ``omega h``) above which it keeps
#: the contact's chatter (``rho_inf <= RHO`` is the advice)
RHO = 0.5


@dataclass(frozen=True)
class ContactSprings:
    """One penalty contact as springs on its nodes (made when the model is compiled,
    :func:`springs_of`): ``label`` the contact's; ``stiffness`` [N/m] its penalty ``k``;
    ``nodes (n,)`` the node ids it acts on; ``share (n,)`` the most of ``k`` each carries;
    ``coupled (n,)`` whether the other side of the contact moves (a beam on a beam, a surface
    carried by a body)."""

    label: str
    stiffness: float
    nodes: np.ndarray
    share: np.ndarray
    coupled: np.ndarray


def _element_shares(elements) -> dict[int, float]:
    """Node id -> half the number of the given two-node elements touching it."""
    share: dict[int, float] = {}
    for e in elements:
        for n in e.nodes:
            share[n.id] = share.get(n.id, 0.0) + 0.5
    return share


def springs_of(model) -> tuple[ContactSprings, ...]:
    """The model's beam and surface contacts as :class:`ContactSprings` (compile time)."""
    out = []
    for bc in getattr(model, "beam_contacts", ()):
        share = _element_shares(bc.elements_a)
        for i, s in _element_shares(bc.elements_b or ()).items():
            share[i] = share.get(i, 0.0) + s
        out.append(_springs(bc.label, bc.stiffness, share, True))
    for sc in getattr(model, "surface_contacts", ()):
        share = _element_shares(sc.elements)
        for n in sc.nodes:
            share[n.id] = share.get(n.id, 0.0) + 1.0
        out.append(_springs(sc.label, sc.stiffness, share, sc.body is not None))
    return tuple(out)


def _springs(label: str, k: float, share: dict, coupled: bool) -> ContactSprings:
    ids = np.fromiter(share, dtype=np.int64, count=len(share))
    return ContactSprings(label, float(k), ids,
                          np.fromiter(share.values(), dtype=float, count=len(share)),
                          np.full(len(ids), bool(coupled)))


def node_masses(system) -> np.ndarray:
    """Each node's lumped mass [kg] on its free translations ``(n_nodes,)``: the largest over
    the node's free translations of the mass matrix's row sum over the free translation
    columns (a consistent mass's rows lumped; rotations left out; the largest: a row next to
    a fixed DOF loses that column's share, the node's mass not); ``inf`` for a node none of
    whose translations is free or carries mass."""
    nd = getattr(system, "dim", 2)
    free = system.free_index
    dofs = system.node_dofs[:, :nd]
    trans = free[dofs[dofs >= 0]]
    trans = np.unique(trans[trans >= 0])
    M = system.mass_matrix()[trans][:, trans]
    lumped = np.zeros(system.n_free)
    lumped[trans] = np.asarray(M.sum(axis=1)).ravel()
    # (array passes over the nodes, not a loop: the per-node numpy calls were 5 ms of a
    # start of benchmarks/beam_bundle.py; the same numbers to the bit)
    # the largest over the node's free translations: a row sum loses the columns of a fixed
    # neighbour's DOFs (the x, y rows next to a beam end held in x, y), the node's mass not
    fi = np.where(dofs >= 0, free[np.maximum(dofs, 0)], -1)
    m = np.where(fi >= 0, lumped[np.maximum(fi, 0)], 0.0)
    top = np.max(m, axis=1, initial=0.0)
    return np.where(top > 0.0, top, math.inf)


def contact_frequencies(system, masses: np.ndarray | None = None) -> list[tuple[str, float]]:
    """Each beam and surface contact's label and its estimated highest penalty frequency
    ``omega`` [rad/s] (the Gershgorin bound of the module docstring; 0.0 for a contact none
    of whose nodes moves), in the order the model defined them. ``masses``: the nodes'
    lumped masses (:func:`node_masses`, computed when not given)."""
    springs = getattr(system, "contact_springs", ())
    if not springs:
        return []
    mass = node_masses(system) if masses is None else masses
    # np.add.at sums each node's springs in the order of the loop it replaced
    load = np.zeros(len(mass))
    for c in springs:
        np.add.at(load, c.nodes, c.stiffness * c.share * np.where(c.coupled, 2.0, 1.0))
    out = []
    for c in springs:
        w2 = float(np.max(load[c.nodes] / mass[c.nodes], initial=0.0))
        out.append((c.label, math.sqrt(w2)))
    return out


def unresolved(system, rho_inf: float, h: float) -> list[tuple[str, float, float, float]]:
    """The contacts a run with steps ``h`` [s] of a Newmark-family scheme whose spectral
    radius at infinite ``omega h`` is ``rho_inf`` (:attr:`fembody.GeneralizedAlpha.rho_infinity`)
    does not resolve: ``(label, omega [rad/s], omega h, rho_inf)`` where ``omega h >
    OMEGA_H`` and ``rho_inf > RHO``, largest ``omega h`` first."""
    if rho_inf <= RHO + 1e-3:           # (the radius at w h = 1e8 lies 4e-6 above rho_inf)
        return []
    found = [(label, omega, omega * h, rho_inf) for label, omega in contact_frequencies(system)
             if omega * h > OMEGA_H]
    found.sort(key=lambda r: -r[2])
    return found


def named_few(found: list, describe, limit: int = 3) -> str:
    """The first ``limit`` contacts of ``found`` (highest first), each as ``describe(item)``
    says, joined by "; ", and how many more there are: the list a contact warning names."""
    named = "; ".join(describe(item) for item in found[:limit])
    return named + (f" (and {len(found) - limit} more)" if len(found) > limit else "")


def warn_unresolved(system, rho_inf: float, h: float, stacklevel: int = 2) -> list:
    """Warn once (:class:`fembody.errors.ContactWarning`) naming the contacts
    :func:`unresolved` finds, with their ``omega h`` and the cures; returns them."""
    found = unresolved(system, rho_inf, h)
    if not found:
        return found
    named = named_few(found, lambda c: f"{c[0]} (omega = {c[1]:.3g} rad/s, omega h = "
                                       f"{c[2]:.3g})")
    w = found[0][1]
    warnings.warn(
        f"simulate: the step h = {h:.3g} s does not resolve the penalty contact frequency of "
        f"{named}, and the integrator keeps such frequencies undamped (rho_inf = "
        f"{found[0][3]:.2f}): the contact "
        f"chatters and the run can gain energy (a wrong trajectory, no error). Take "
        f"rho_inf <= {RHO} (generalized-alpha: damps the chatter of resting contacts), or dt "
        f"below {OMEGA_H:g}/omega = {OMEGA_H / w:.3g} s, or a lower stiffness (the "
        f"penetration grows as 1/stiffness); a contact hit at speed needs the shorter step, "
        f"which the run takes itself where it locates the contact's switches (simulate's "
        f"contact_onset; rho_inf does not help there); fembody.contact.frequency explains "
        f"the estimate",
        ContactWarning, stacklevel=stacklevel + 1)
    return found
