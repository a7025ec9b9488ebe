"""numpy reference of the compiled planar rigid-body kernels of :mod:`fembody.elements.mass.mass`
(mass matrix, inertial force and tangents, gravity): the same formulas vectorised over the
bodies, used by the tests only to check the kernels. ``m, J (n,)``, ``c (n, 2)``."""
from __future__ import annotations

import numpy as np


def offset(x, c):
    ct, st = np.cos(x[:, 2]), np.sin(x[:, 2])
    return np.column_stack([ct * c[:, 0] - st * c[:, 1], st * c[:, 0] + ct * c[:, 1]])


def mass_at(x, m, J, c):
    r = offset(x, c)
    M = np.zeros((len(m), 3, 3))
    M[:, 0, 0] = M[:, 1, 1] = m
    M[:, 0, 2] = M[:, 2, 0] = -m * r[:, 1]
    M[:, 1, 2] = M[:, 2, 1] = m * r[:, 0]
    M[:, 2, 2] = J + m * np.einsum("ni,ni->n", c, c)
    return M


def inertial(x, v, a, m, J, c):
    r = offset(x, c)
    w = v[:, 2]
    f = np.einsum("nij,nj->ni", mass_at(x, m, J, c), a)
    f[:, 0] -= m * r[:, 0] * w * w
    f[:, 1] -= m * r[:, 1] * w * w
    n = len(m)
    K = np.zeros((n, 3, 3))
    C = np.zeros((n, 3, 3))
    K[:, 0, 2] = -m * r[:, 0] * a[:, 2] + m * r[:, 1] * w * w
    K[:, 1, 2] = -m * r[:, 1] * a[:, 2] - m * r[:, 0] * w * w
    K[:, 2, 2] = -m * (r[:, 0] * a[:, 0] + r[:, 1] * a[:, 1])
    C[:, 0, 2] = -2.0 * m * r[:, 0] * w
    C[:, 1, 2] = -2.0 * m * r[:, 1] * w
    return f, K, C


def gravity(x, g, m, c):
    r = offset(x, c)
    f = np.zeros((len(m), 3))
    f[:, 0] = m * g[0]
    f[:, 1] = m * g[1]
    f[:, 2] = m * (r[:, 0] * g[1] - r[:, 1] * g[0])
    dK = np.zeros((len(m), 3, 3))
    dK[:, 2, 2] = -m * (r[:, 0] * g[0] + r[:, 1] * g[1])
    return f, dK
