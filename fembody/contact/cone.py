"""The Coulomb points of a frictional contact block as its return mapping sees them
(:class:`ConePoints`): what the static stability check reads to name the points that stick
at the edge of their friction cone (:func:`fembody.statics.statics._cone_edge_points`).

Why a list of its own: a block's ``report`` rows are what a user reads per contact, and
several blocks gather there several Coulomb points (a crossing pair's point and its line
points, blended) or report a weighted resultant (a free end's rows, a junction's or share's
weighted parts); the ratio ``|f_t| / (mu_s N)`` of such a row is not any point's. Every
frictional block gives ``cone_points(x, history[, side]) -> ConePoints`` instead: per
Coulomb point of :func:`fembody.contact.friction.coulomb`, the normal force its cone uses,
the tangential force it holds, whether it sticks and its static coefficient, read from the
friction evaluation the block already makes (no force or tangent changes)."""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np


class ConePoints(NamedTuple):
    """The Coulomb points of a block at one accepted state: ``point (p,)`` their indices
    among the block's points, ``name`` the name of a point from its index (the block's
    report label of its row, then which point of it; called only for the points a check
    names, so a bundle's thousands of points are not named at every state),
    ``normal_force (p,)`` [N] the normal force the point's cone uses (its ``N`` in
    :func:`fembody.contact.friction.coulomb`), ``tangential_force (p,)`` [N] the magnitude
    of the tangential force it holds (stick: the trial force), ``stick (p,)`` whether it
    touches and sticks with its static coefficient (it did not slide at the last accepted
    step, and does not slip now) and ``mu_s (p,)`` [-] that coefficient. Points that carry
    no weight in the block's force (a crossing pair's part the line switch turns off) are
    left out."""

    point: np.ndarray
    name: Callable[[int], str]
    normal_force: np.ndarray
    tangential_force: np.ndarray
    stick: np.ndarray
    mu_s: np.ndarray


def cone_points(name: Callable[[int], str], f: np.ndarray, slipping: np.ndarray,
                N: np.ndarray, sliding: np.ndarray, mu_s: np.ndarray,
                keep: np.ndarray | None = None) -> ConePoints:
    """The :class:`ConePoints` of a return mapping (:func:`fembody.contact.friction.coulomb`:
    its forces ``f (p, d)`` [N] and ``slipping (p,)`` flags) run with the normal forces ``N
    (p,)`` [N], the history's ``sliding (p,)`` flags (a point that slid at the last
    accepted step holds ``mu_k N``, not ``mu_s N``: not sticking in the cone's sense), the
    static coefficients ``mu_s`` (scalar or ``(p,)``) and the points to list ``keep`` (a
    boolean ``(p,)``; default None: all); ``name`` as in :class:`ConePoints`."""
    N = np.asarray(N, dtype=float)
    p = len(N)
    f = np.asarray(f, dtype=float).reshape(p, -1)
    stick = (N > 0.0) & ~np.asarray(sliding, dtype=bool) & ~np.asarray(slipping, bool)
    mu = np.broadcast_to(np.asarray(mu_s, dtype=float), (p,))
    sel = np.arange(p) if keep is None else np.flatnonzero(keep)
    return ConePoints(sel, name, N[sel].copy(),
                      np.linalg.norm(f[sel], axis=1), stick[sel], mu[sel].copy())


def no_points(name: Callable[[int], str]) -> ConePoints:
    """No Coulomb point: what a block that only takes back a weighted part of other rows'
    friction gives (a crossing's share rows, the planar take-back blocks). Such a part
    scales the taken rows' normal and friction forces alike, so each taken point's ratio
    ``|f_t| / (mu_s N)`` is the one its own block lists."""
    empty = np.zeros(0)
    return ConePoints(np.zeros(0, dtype=np.int64), name, empty, empty.copy(),
                      np.zeros(0, dtype=bool), empty.copy())
