"""numpy references of :mod:`fembody.dynamics.lie`'s compiled kernels (the Lie-group step's
increment map), with the kernels' call signatures."""
from __future__ import annotations

import math

import numpy as np

from fembody import rotations as rot

_HALF_TURN2 = math.pi ** 2          # |D_r|^2 from which the map is the identity (see lie.py)


def inverse_tangents(D, groups, Tinv):
    """``lie._inverse_tangents_nb``: T^-1 of each rotation triple's increment (the identity
    from half a turn on)."""
    Dr = D[groups]
    with np.errstate(invalid="ignore"):
        ok = np.einsum("gi,gi->g", Dr, Dr) < _HALF_TURN2
    Tinv[...] = np.eye(3)
    Tinv[ok] = rot.tangent_inv(Dr[ok])


def increment(y, groups, Tinv, out):
    """``lie._increment_nb``: ``out = y`` with ``Tinv[g] y[groups[g]]`` on every triple."""
    out[:] = y
    out[groups] = np.einsum("gij,gj->gi", Tinv, y[groups])


def correct(S, M, C, with_c, gp, bp, pos, owner, Tinv):
    """``lie._correct_nb``: ``S += (gp C + bp M) (Tinv - I)`` on the entries ``pos``."""
    X = bp * M[pos]
    if with_c:
        X += gp * C[pos]
    S[pos] += np.einsum("ek,ekj->ej", X, (Tinv - np.eye(3))[owner])
