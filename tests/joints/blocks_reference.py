"""numpy reference of the compiled planar joint kernel of :mod:`fembody.joints.kernels.planar` (coincident
points, slider, distance): the vectorised formulas the kernel replaced, used by the tests only to
check it. Each function takes ``x (n, 6)`` = (xa, ya, tha, xb, yb, thb) and returns ``phi (n, m)``,
``B (n, m, 6)`` and ``H (n, m, 6, 6)`` or None."""
from __future__ import annotations

import numpy as np


def carried_points(x: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Current points ``p (n, 2)`` and rotated offsets ``r (n, 2)`` for node states
    ``x (n, 3)`` = (x, y, theta) and body-frame offsets ``d (n, 2)``."""
    c, s = np.cos(x[:, 2]), np.sin(x[:, 2])
    r = np.empty((x.shape[0], 2))
    r[:, 0] = c * d[:, 0] - s * d[:, 1]
    r[:, 1] = s * d[:, 0] + c * d[:, 1]
    return x[:, :2] + r, r


def perp(v: np.ndarray) -> np.ndarray:
    """J v = (-v_y, v_x): rotation by +90 degrees."""
    out = np.empty_like(v)
    out[:, 0] = -v[:, 1]
    out[:, 1] = v[:, 0]
    return out


def point(x, da, db, rotation, hessian):
    """Coincident points (and, with ``rotation``, equal rotations): ``p_b - p_a``."""
    n = x.shape[0]
    m = 3 if rotation else 2
    Bconst = np.zeros((n, m, 6))
    Bconst[:, 0, 0] = Bconst[:, 1, 1] = -1.0
    Bconst[:, 0, 3] = Bconst[:, 1, 4] = 1.0
    if rotation:
        Bconst[:, 2, 2], Bconst[:, 2, 5] = -1.0, 1.0
    phi = np.empty((n, m))
    if rotation:
        phi[:, 2] = x[:, 5] - x[:, 2]
    pa, ra = carried_points(x[:, 0:3], da)
    pb, rb = carried_points(x[:, 3:6], db)
    phi[:, :2] = pb - pa
    B = Bconst.copy()
    B[:, :2, 2] = -perp(ra)
    B[:, :2, 5] = perp(rb)
    H = None
    if hessian:
        H = np.zeros((n, m, 6, 6))
        H[:, :2, 2, 2] = ra
        H[:, :2, 5, 5] = -rb
    return phi, B, H


def slider(x, da, db, n0, lock, hessian):
    """b's point on a's line: ``n_a . (p_b - P_a)`` (and ``theta_b - theta_a`` with ``lock``)."""
    n = x.shape[0]
    m = 2 if lock else 1
    Pa, ra = carried_points(x[:, 0:3], da)
    pb, rb = carried_points(x[:, 3:6], db)
    _, na = carried_points(np.column_stack([np.zeros((n, 2)), x[:, 2]]), n0)
    u = pb - Pa
    Jn = perp(na)
    dot = lambda a, b: np.einsum("ni,ni->n", a, b)  # noqa: E731
    phi = np.empty((n, m))
    phi[:, 0] = dot(na, u)
    B = np.zeros((n, m, 6))
    B[:, 0, 0:2] = -na
    B[:, 0, 3:5] = na
    B[:, 0, 2] = dot(Jn, u) - dot(na, perp(ra))
    B[:, 0, 5] = dot(na, perp(rb))
    if lock:
        phi[:, 1] = x[:, 5] - x[:, 2]
        B[:, 1, 2], B[:, 1, 5] = -1.0, 1.0
    H = None
    if hessian:
        H = np.zeros((n, m, 6, 6))
        H[:, 0, 2, 2] = -dot(na, u) - dot(na, ra)
        H[:, 0, 2, 0:2] = H[:, 0, 0:2, 2] = -Jn
        H[:, 0, 2, 3:5] = H[:, 0, 3:5, 2] = Jn
        H[:, 0, 2, 5] = H[:, 0, 5, 2] = dot(na, rb)
        H[:, 0, 5, 5] = -dot(na, rb)
    return phi, B, H


def distance(x, da, db, length, hessian):
    """``|p_b - p_a| - L``."""
    n = x.shape[0]
    pa, ra = carried_points(x[:, 0:3], da)
    pb, rb = carried_points(x[:, 3:6], db)
    u = pb - pa
    l = np.sqrt(u[:, 0] * u[:, 0] + u[:, 1] * u[:, 1])
    e = u / l[:, None]
    G = np.zeros((n, 2, 6))                # du/dx
    G[:, 0, 0] = G[:, 1, 1] = -1.0
    G[:, 0, 3] = G[:, 1, 4] = 1.0
    G[:, :, 2] = -perp(ra)
    G[:, :, 5] = perp(rb)
    phi = (l - length)[:, None]
    B = (e[:, :, None] * G).sum(axis=1)[:, None, :]
    H = None
    if hessian:
        P = -e[:, :, None] * e[:, None, :]
        P[:, 0, 0] += 1.0
        P[:, 1, 1] += 1.0
        P /= l[:, None, None]
        H = G.transpose(0, 2, 1) @ (P @ G)
        H[:, 2, 2] += e[:, 0] * ra[:, 0] + e[:, 1] * ra[:, 1]
        H[:, 5, 5] -= e[:, 0] * rb[:, 0] + e[:, 1] * rb[:, 1]
        H = H[:, None]
    return phi, B, H
