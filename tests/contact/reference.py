"""The numpy references of the compiled beam-to-beam contact kernels
(fembody.contact._kernels): line contact of near-parallel spatial pairs and its blend with
point contact (the formulas of fembody.contact.line's docstring), and the block's penalty
forces evaluated on arrays. Production evaluates the compiled kernels; these serve the tests
that compare them (test_compiled.py) and the exact-derivative tests of the formulas
(test_line.py). What production still calls once per step or in the junction rows stays in
fembody.contact (line.point_part, line.switch, geometry). The crossing pairs' share across a
junction (fembody.contact.share, numpy in production) is checked against central differences
and the end rows' own share in test_ends3d.py and test_share.py."""
import numpy as np

from fembody.contact.geometry import closest_crossing, distance, point_distance
from fembody.contact.line import NG, W, XI, _penalty, point_part, switch

_CK = np.array([[0.0, 0.0, 1.0, -1.0]])  # a Gauss point's t moves its point on B


def line_part(x: np.ndarray, length: np.ndarray, k_line: np.ndarray, radius: np.ndarray,
              tangent: bool = True):
    """Line-contact energy ``(n,)`` [J], force ``(n, 4 d)`` and tangent of the pairs ``x (n, 4,
    d) = (a0, a1, b0, b1)``; ``length (n,)`` A's reference length [m], ``k_line (n,)``
    [N/m^2], ``radius (n,)`` the sum of the radii [m]."""
    n, m, d = x.shape
    xg = np.repeat(x, NG, axis=0)                            # (n NG, 4, d), pair-major
    xi = np.tile(XI, n)
    C0 = np.column_stack([1.0 - xi, xi, -np.ones_like(xi), np.zeros_like(xi)])
    p = (1.0 - xi)[:, None] * xg[:, 0] + xi[:, None] * xg[:, 1]
    d2 = xg[:, 3] - xg[:, 2]
    t = np.einsum("ni,ni->n", p - xg[:, 2], d2) / np.einsum("ni,ni->n", d2, d2)
    rho, G, H = point_distance(xg, C0, _CK, t[:, None], tangent)
    ok = (t >= 0.0) & (t < 1.0) & (rho > 0.0)
    wk = np.tile(W, n) * np.repeat(length * k_line, NG)
    Wg, fg, Kg = _penalty(rho - np.repeat(radius, NG), ok, wk, G, H)
    Wl = Wg.reshape(n, NG).sum(axis=1)
    fl = fg.reshape(n, NG, m * d).sum(axis=1)
    Kl = None if Kg is None else Kg.reshape(n, NG, m * d, m * d).sum(axis=1)
    return Wl, fl, Kl


def line_gaps(x: np.ndarray, radius: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The smallest Gauss-point gap ``(n,)`` [m] of the pairs ``x (n, 4, d)`` along A and
    whether any Gauss point projects inside B ``(n,)``."""
    n = x.shape[0]
    p = (1.0 - XI)[None, :, None] * x[:, None, 0] + XI[None, :, None] * x[:, None, 1]
    d2 = x[:, 3] - x[:, 2]
    t = np.einsum("ngi,ni->ng", p - x[:, None, 2], d2) / np.einsum("ni,ni->n", d2, d2)[:, None]
    r = p - x[:, None, 2] - t[:, :, None] * d2[:, None]
    g = np.sqrt(np.einsum("ngi,ngi->ng", r, r)) - radius[:, None]
    ok = (t >= 0.0) & (t < 1.0)
    gmin = np.where(ok, g, np.inf).min(axis=1)
    return np.where(ok.any(axis=1), gmin, np.inf), ok.any(axis=1)


def blended(x: np.ndarray, k: np.ndarray, k_line: np.ndarray, length: np.ndarray,
            radius: np.ndarray, tangent: bool = True):
    """Energy ``(n,)`` [J], internal force ``(n, 4 d)`` [N] and (``tangent``) stiffness of the
    switched contact ``W = lam W_line + (1 - lam) W_point`` of the pairs ``x (n, 4, d)``:
    ``k (n,)`` [N/m] the point penalty, ``k_line (n,)`` [N/m^2] the line penalty, ``length``
    A's reference length [m], ``radius`` the sum of the radii [m]."""
    lam, gl, hl = switch(x, tangent)
    Wp, fp, Kp = point_part(x, k, radius, tangent)
    Wl, fl, Kl = line_part(x, length, k_line, radius, tangent)
    L = lam[:, None]
    W = lam * Wl + (1.0 - lam) * Wp
    dW = (Wl - Wp)
    f = L * fl + (1.0 - L) * fp + dW[:, None] * gl
    if not tangent:
        return W, f, None
    df = fl - fp
    K = (lam[:, None, None] * Kl + (1.0 - lam)[:, None, None] * Kp
         + gl[:, :, None] * df[:, None, :] + df[:, :, None] * gl[:, None, :]
         + dW[:, None, None] * hl)
    return W, f, K


def touching(self, pos: np.ndarray) -> np.ndarray:
    """The rows of the spatial pairs of the block ``self`` at node positions ``pos`` whose
    point or line gap is below zero (the others carry neither energy, force nor stiffness:
    the gap test the compiled kernel makes)."""
    z, ok = closest_crossing(pos)
    rho = distance("crossing", pos, z, False)[0]
    gl, okl = line_gaps(pos, self.radius)
    # (a margin: these gaps round differently from the force's, and a pair touching at
    # round-off level has the full penalty stiffness)
    eps = 1e-6 * self.radius
    return np.flatnonzero((ok & (rho - self.radius < eps)) | (okl & (gl < eps)))


def normal_forces(self, x: np.ndarray, tangent: bool):
    """The penalty part of ``BeamContactBlock.forces`` of the block ``self`` at the gathered
    displacements ``x``, on arrays: spatial pairs the blend of :func:`blended`, planar ones
    the penalty of the signed node gap (``BeamContactBlock.gaps``)."""
    if self.kind == "crossing":
        _, f, K = blended(self.positions(x), self.k, self.k_line, self.length,
                          self.radius, tangent)
        return f, K, None
    g, ok, G, H = self.gaps(x, hessian=tangent)
    on = ok & (g < 0.0)
    F = np.where(on, -self.k * g, 0.0)                       # normal force [N] >= 0
    f = -F[:, None] * G
    if not tangent:
        return f, None, None
    kon = np.where(on, self.k, 0.0)
    K = kon[:, None, None] * G[:, :, None] * G[:, None, :] - F[:, None, None] * H
    return f, K, None

