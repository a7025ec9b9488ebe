"""Coulomb friction at point contacts: a penalty (regularised) tangential law with a return
mapping for stick and slip, on arrays of contacts.

A point ``x`` [m] touches a rigid plane through ``point`` with unit ``normal``: gap ``g = n.(x -
p)``, normal force ``N = k_n max(-g, 0)`` [N] (penalty ``k_n`` [N/m]). Tangentially the point is
held by a spring of stiffness ``k_t`` [N/m] to an **anchor** on the plane, the history of the
contact (where it last stuck): the trial elastic slip ``u_t = P (x - a)``, ``P = I - n n^T``,
gives the trial force ``T* = -k_t u_t``. The return mapping (Simo and Laursen 1992; Wriggers,
Computational Contact Mechanics, ch. 5):

- **stick**, ``|T*| <= mu N``: ``T = T*``; the anchor stays;
- **slip**, ``|T*| > mu N``: ``T = -mu N u_t / |u_t|``; after the step the anchor moves to
  ``a' = x_plane + T / k_t`` (``x_plane`` the projection of ``x`` on the plane), so the elastic
  slip is ``mu N / k_t`` and the slip ``|a' - a|`` dissipates ``mu N |a' - a|`` [J].

An open contact (``g >= 0``) carries no force and its anchor follows the projection of the point,
so a contact starts without tangential force. The internal force is ``f = N`` along ``-n`` plus
``-T``; the tangent is the consistent one of the return mapping (unsymmetric in slip)::

    K = k_n n n^T                                        (in contact)
      + k_t P                                            (stick)
      + mu N (P - e e^T) / |u_t| - mu k_n e n^T          (slip, e = u_t / |u_t|)

The history (anchors) is what a run carries from step to step: :func:`plane_friction` reads
the anchors of the last accepted step and returns the ones of the state it was asked at, which
the run keeps once the step is accepted. ``k_t`` bounds the elastic slip before sliding,
``mu N / k_t``; the law tends to Coulomb's as ``k_t`` grows.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


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
