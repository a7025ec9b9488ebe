"""Numpy reference of the spatial modal body's compiled kernels
(fembody/elements/modal/modal3d_numba.py): the same equations written with the batched
``InertiaInvariants`` methods (``body_mass``, ``body_mass_rate``, ``energy_gradient``) instead of
loops; complex-safe, so tangents can be taken from it by complex steps."""
from __future__ import annotations

import numpy as np

from fembody.elements.modal.modal3d import InertiaInvariants


def mv(A, x):
    return np.matmul(A, x[..., None])[..., 0]


def forces(inv: InertiaInvariants, R, eta, v, a):
    """Inertial force (..., 6 + N) on ``(dr, Theta, eta)`` at rotations ``R (..., 3, 3)``,
    amplitudes ``eta``, velocities ``v`` and accelerations ``a`` (module docstring; batched
    over the leading axes, complex-safe)."""
    rd, W, ed = v[..., :3], v[..., 3:6], v[..., 6:]
    Rt = np.swapaxes(R, -1, -2)
    vb = mv(Rt, rd)
    z = np.concatenate([vb, W, ed], axis=-1)
    A = inv.body_mass(eta)
    p = mv(A, z)
    zd = np.concatenate([mv(Rt, a[..., :3]) - np.cross(W, vb), a[..., 3:6], a[..., 6:]],
                        axis=-1)
    pd = mv(A, zd) + mv(inv.body_mass_rate(eta, ed), z)
    P, pW = p[..., :3], p[..., 3:6]
    f = np.empty(pd.shape, dtype=pd.dtype)
    f[..., :3] = mv(R, pd[..., :3] + np.cross(W, P))
    f[..., 3:6] = pd[..., 3:6] + np.cross(W, pW) + np.cross(vb, P)
    f[..., 6:] = pd[..., 6:] - inv.energy_gradient(eta, z)
    return f


def gravity(inv: InertiaInvariants, R, eta, g):
    """Gravity's generalised force (..., 6 + N) = -dV with V = -m g.r - g.R c(eta)."""
    gb = np.einsum("...ji,j->...i", R, g)
    c = inv.first_moment(eta)
    f = np.empty(gb.shape[:-1] + (6 + eta.shape[-1],), dtype=np.result_type(gb, c))
    f[..., :3] = inv.m * g
    f[..., 3:6] = np.cross(c, gb)
    f[..., 6:] = np.einsum("...in,...i->...n", inv.CtP + inv.c2_along(eta), gb)
    return f
