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

from fembody.contact.geometry import closest_crossing, distance, in_zone, point_distance
from fembody.contact.line import NG, W, XI, _penalty, point_part, weight
from fembody.contact.line import clipped as _clipped

_CK = np.array([[0.0, 0.0, 1.0, -1.0]])  # a Gauss point's t moves its point on B


def clipped(x: np.ndarray, free) -> tuple:
    """The interval ``[lo, lo + L]`` of A's parameter over which line contact integrates
    (fembody.contact.line's "Clipped at free ends"), per pair: ``lo``, ``L``, ``clip`` (a
    free end of B bounds it), ``none`` (clipped to nothing), and the bounds' gradients and
    Hessians ``(n, 4 d)``, ``(n, 4 d, 4 d)`` (zero where a bound is 0 or 1): production's
    numpy :func:`fembody.contact.line.clipped` (the end rows' ramp reads it) less the side."""
    return _clipped(x, free)[:8]


def xi_parts(x: np.ndarray, xi: np.ndarray, t: np.ndarray):
    """``D_xi (n,)``, ``D_xixi (n,)``, ``D_xiX (n, 4 d)`` of the distance ``min_t |x_A(xi) -
    x_B(t)|`` at the minimiser ``t`` (fembody.contact._kernels._xi_parts)."""
    c = np.column_stack([1.0 - xi, xi, t - 1.0, -t])
    r = np.einsum("nm,nmi->ni", c, x)
    rho = np.linalg.norm(r, axis=1)
    nv = r / rho[:, None]
    e = x[:, 1] - x[:, 0]
    rt = x[:, 2] - x[:, 3]
    proj = lambda v: (v - np.einsum("ni,ni->n", nv, v)[:, None] * nv) / rho[:, None]
    Pe, Pt = proj(e), proj(rt)
    fee, fet, ftt = (np.einsum("ni,ni->n", a, b) for a, b in ((e, Pe), (e, Pt), (rt, Pt)))
    cx = np.array([-1.0, 1.0, 0.0, 0.0])
    ct = np.array([0.0, 0.0, 1.0, -1.0])
    fxX = np.einsum("nm,ni->nmi", c, Pe) + cx[None, :, None] * nv[:, None, :]
    ftX = np.einsum("nm,ni->nmi", c, Pt) + ct[None, :, None] * nv[:, None, :]
    ratio = fet / ftt
    gx = (fxX - ratio[:, None, None] * ftX).reshape(len(x), -1)
    return np.einsum("ni,ni->n", nv, e), fee - fet * ratio, gx


def line_part(x: np.ndarray, length: np.ndarray, k_line: np.ndarray, radius: np.ndarray,
              tangent: bool = True, free=None):
    """Line-contact energy ``(n,)`` [J], force ``(n, 4 d)`` and tangent of the pairs ``x (n, 4,
    d) = (a0, a1, b0, b1)``; ``length (n,)`` A's reference length [m], ``k_line (n,)``
    [N/m^2], ``radius (n,)`` the sum of the radii [m]; ``free (n, 2)`` B's free ends (None:
    none), where the Gauss points are clipped to the overlap with the derivatives of the
    moving bounds (fembody.contact.line's "Clipped at free ends")."""
    n, m, d = x.shape
    md = m * d
    lo, L, clip, none, gLo, gHi, hLo, hHi = clipped(x, free)
    xg = np.repeat(x, NG, axis=0)                            # (n NG, 4, d), pair-major
    XIt = np.tile(XI, n)
    xi = np.repeat(lo, NG) + np.repeat(L, NG) * XIt
    C0 = np.column_stack([1.0 - xi, xi, -np.ones_like(xi), np.zeros_like(xi)])
    p = (1.0 - xi)[:, None] * xg[:, 0] + xi[:, None] * xg[:, 1]
    d2 = xg[:, 3] - xg[:, 2]
    t = np.einsum("ni,ni->n", p - xg[:, 2], d2) / np.einsum("ni,ni->n", d2, d2)
    rho, G, H = point_distance(xg, C0, _CK, t[:, None], tangent)
    ok = in_zone(t) & (rho > 0.0) & ~np.repeat(none, NG)
    kp = np.repeat(length * k_line, NG)
    wk = (np.tile(W, n) * np.repeat(L, NG)) * kp
    Wg, fg, Kg = _penalty(rho - np.repeat(radius, NG), ok, wk, G, H)
    Wl = Wg.reshape(n, NG).sum(axis=1)
    fl = fg.reshape(n, NG, md).sum(axis=1)
    Kl = None if Kg is None else Kg.reshape(n, NG, md, md).sum(axis=1)
    r = np.flatnonzero(clip & ~none)
    if not r.size:
        return Wl, fl, Kl
    # the clipped pairs: W = L sum_g w_g h(xi_g(X), X), the points moving with the bounds
    gi = (r[:, None] * NG + np.arange(NG)[None, :]).ravel()
    on = ((rho - np.repeat(radius, NG)) < 0.0) & ok
    g = np.where(on, rho - np.repeat(radius, NG), 0.0)[gi].reshape(r.size, NG)
    onr = on[gi].reshape(r.size, NG)
    kw = np.where(onr, (np.tile(W, n) * kp)[gi].reshape(r.size, NG), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        Dx, Dxx, Gx = xi_parts(xg[gi], xi[gi], t[gi])
    Dx = np.where(onr, Dx.reshape(r.size, NG), 0.0)
    Dxx = np.where(onr, Dxx.reshape(r.size, NG), 0.0)
    Gx = np.where(onr[:, :, None], Gx.reshape(r.size, NG, md), 0.0)
    Gr = G[gi].reshape(r.size, NG, md)
    xX = ((1.0 - XI)[None, :, None] * gLo[r][:, None] + XI[None, :, None] * gHi[r][:, None])
    hsum = (0.5 * kw * g * g).sum(axis=1)
    Fs = np.einsum("ng,nga->na", kw * g, Gr + Dx[:, :, None] * xX)
    LX = gHi[r] - gLo[r]
    fl[r] = LX * hsum[:, None] + L[r][:, None] * Fs
    if not tangent:
        return Wl, fl, Kl
    outer = lambda a, b: a[..., :, None] * b[..., None, :]
    hx = Dx[:, :, None] * Gr + g[:, :, None] * Gx
    xXX = ((1.0 - XI)[None, :, None, None] * hLo[r][:, None]
           + XI[None, :, None, None] * hHi[r][:, None])
    wkr = kw * L[r][:, None]
    moving = (outer(hx, xX) + outer(xX, hx)
              + (Dx * Dx + g * Dxx)[:, :, None, None] * outer(xX, xX)
              + (g * Dx)[:, :, None, None] * xXX)
    Kl[r] += (np.einsum("ng,ngab->nab", wkr, moving)
              + (hHi[r] - hLo[r]) * hsum[:, None, None] + outer(LX, Fs) + outer(Fs, LX))
    return Wl, fl, Kl


def line_gaps(x: np.ndarray, radius: np.ndarray, free=None
              ) -> tuple[np.ndarray, np.ndarray]:
    """The smallest Gauss-point gap ``(n,)`` [m] of the pairs ``x (n, 4, d)`` along A (the
    points clipped at B's ``free`` ends, as :func:`line_part`'s) and whether any Gauss point
    projects inside B ``(n,)``."""
    n = x.shape[0]
    lo, L, _, none = clipped(x, free)[:4]
    xi = lo[:, None] + L[:, None] * XI[None, :]
    p = (1.0 - xi)[:, :, None] * x[:, None, 0] + xi[:, :, None] * x[:, None, 1]
    d2 = x[:, 3] - x[:, 2]
    t = np.einsum("ngi,ni->ng", p - x[:, None, 2], d2) / np.einsum("ni,ni->n", d2, d2)[:, None]
    r = p - x[:, None, 2] - t[:, :, None] * d2[:, None]
    g = np.sqrt(np.einsum("ngi,ngi->ng", r, r)) - radius[:, None]
    ok = in_zone(t) & ~none[:, None]
    gmin = np.where(ok, g, np.inf).min(axis=1)
    return np.where(ok.any(axis=1), gmin, np.inf), ok.any(axis=1)


def blended(x: np.ndarray, k: np.ndarray, k_line: np.ndarray, length: np.ndarray,
            radius: np.ndarray, tangent: bool = True, free=None, ramp=None):
    """Energy ``(n,)`` [J], internal force ``(n, 4 d)`` [N] and (``tangent``) stiffness of the
    switched contact ``W = lam W_line + (1 - lam) W_point`` of the pairs ``x (n, 4, d)``:
    ``k (n,)`` [N/m] the point penalty, ``k_line (n,)`` [N/m^2] the line penalty, ``length``
    A's reference length [m], ``radius`` the sum of the radii [m], ``free`` B's free ends
    (:func:`line_part`), ``ramp`` A's ramps where free ends meet (``lam`` then the ramped
    weight of fembody.contact.line.weight; None: none)."""
    lam, gl, hl = weight(x, free, ramp, tangent)
    Wp, fp, Kp = point_part(x, k, radius, tangent)
    Wl, fl, Kl = line_part(x, length, k_line, radius, tangent, free)
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
    gl, okl = line_gaps(pos, self.radius, getattr(self, "free", None))
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
                          self.radius, tangent, self.free, self.ramp)
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

