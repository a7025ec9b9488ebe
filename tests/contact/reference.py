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



# ------------------------------------------------ the bound rule's caps (line.py, measured)
BOUND_BAND = np.sin(np.deg2rad(0.25))   # the caps' lean band, as the end rows' lean rule


def _jmul(a, b):
    """The product of two jets ``(value (n,), gradient (n, N), Hessian (n, N, N))``."""
    v, ga, ha = a
    w, gb, hb = b
    cross = ga[:, :, None] * gb[:, None, :]
    return (v * w, v[:, None] * gb + w[:, None] * ga,
            v[:, None, None] * hb + w[:, None, None] * ha + cross
            + np.transpose(cross, (0, 2, 1)))


def _jfun(a, f, df, d2f):
    """``f`` of the jet ``a`` with its first and second derivatives ``df``, ``d2f`` (values
    at ``a``'s value, ``(n,)``)."""
    v, g, h = a
    return (f, df[:, None] * g,
            df[:, None, None] * h + d2f[:, None, None] * g[:, :, None] * g[:, None, :])


def _jlin(*terms):
    """The sum of ``c a`` over the (constant, jet) pairs ``terms``; a constant ``c`` may be
    ``(n,)``."""
    out = None
    for c, (v, g, h) in terms:
        c = np.asarray(c, float)
        cg, ch = (c[..., None], c[..., None, None]) if c.ndim else (c, c)
        t = (c * v, cg * g, ch * h)
        out = t if out is None else tuple(o + p for o, p in zip(out, t))
    return out


def _jdot(u, v):
    """The dot product of two vectors of jets (lists of coordinate jets)."""
    out = None
    for a, b in zip(u, v):
        p = _jmul(a, b)
        out = p if out is None else tuple(o + q for o, q in zip(out, p))
    return out


def _jsqrt(a):
    s = np.sqrt(a[0])
    return _jfun(a, s, 0.5 / s, -0.25 / s ** 3)


def _jinv(a):
    v = a[0]
    return _jfun(a, 1.0 / v, -1.0 / v ** 2, 2.0 / v ** 3)


def _jnodes(x: np.ndarray) -> list:
    """The nodes ``x (n, m, d)`` as jets: per node its ``d`` coordinates, each the
    identity's jet in the ``m d`` coordinates."""
    n, m, d = x.shape
    N = m * d
    X = []
    for a in range(m):
        node = []
        for i in range(d):
            g = np.zeros((n, N))
            g[:, a * d + i] = 1.0
            node.append((x[:, a, i].copy(), g, np.zeros((n, N, N))))
        X.append(node)
    return X


def bound_caps(x: np.ndarray, free, ramp, k: np.ndarray, radius: np.ndarray):
    """The bound rule's caps (fembody.contact.line, "End caps"; measured, not built) of the
    spatial pairs ``x (n, 4, 3)`` (nodes ``a0, a1, b0, b1``): energy ``(n,)`` [J], its
    gradient ``(n, 12)`` [N] and Hessian ``(n, 12, 12)`` [N/m] with respect to the nodes,
    ``C = Lam sum_b kappa_b k/2 max(-g_b, 0)^2`` over the free bounds ``b`` of the clipped
    interval (a bound from a free end of B, ``free (n, 2)``, or a free node of A, ``ramp
    (n, 2) > 0``, that projects inside B's chord), ``g_b`` the gap of ``x_A(xi_b)`` to its
    projection on B's chord less ``radius (n,)``, ``kappa_hi = S((rho_0 - rho_1) / (beta
    l_A))`` and ``kappa_lo = 1 - kappa_hi`` (``rho_i`` A's nodes' distances to B's line),
    ``Lam`` the pair's line weight (fembody.contact.line.weight). Exact derivatives by
    second-order forward jets of every step (the bounds ``xi_tau = (tau - t_0) / (t_1 -
    t_0)`` of the nodes, the projections, the distances, ``S``): what a compiled build
    would be checked against."""
    from fembody.contact.ends import _smoothstep
    n, m, d = x.shape
    N = m * d
    free = np.zeros((n, 2), bool) if free is None else np.asarray(free) != 0
    ramp = np.zeros((n, 2)) if ramp is None else np.asarray(ramp, float)
    lam = weight(x, free, ramp, True)
    zero = lambda: (np.zeros(n), np.zeros((n, N)), np.zeros((n, N, N)))
    const = lambda v: (np.asarray(v, float) * np.ones(n), np.zeros((n, N)),
                       np.zeros((n, N, N)))
    X = _jnodes(x)
    a0, a1, b0, b1 = X
    sub = lambda u, v: [_jlin((1.0, p), (-1.0, q)) for p, q in zip(u, v)]
    dv = sub(b1, b0)
    inv_dd = _jinv(_jdot(dv, dv))
    t_of = lambda P: _jmul(_jdot(sub(P, b0), dv), inv_dd)
    t0, t1 = t_of(a0), t_of(a1)
    dt = _jlin((1.0, t1), (-1.0, t0))
    # which bounds are free ends (as fembody.contact.line.clipped)
    lo, hi = const(0.0), const(1.0)
    lo_b, hi_b = np.zeros(n, bool), np.zeros(n, bool)
    for tau in (0, 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            xb = (float(tau) - t0[0]) / dt[0]
        low = (dt[0] > 0.0) == (tau == 0)
        use_lo = free[:, tau] & (dt[0] != 0.0) & low & (xb > 0.0)
        use_hi = free[:, tau] & (dt[0] != 0.0) & ~low & (xb < 1.0)
        if (use_lo | use_hi).any():
            safe = (np.where(dt[0] != 0.0, dt[0], 1.0),) + dt[1:]
            xj = _jmul(_jlin((1.0, const(float(tau))), (-1.0, t0)), _jinv(safe))
            for use, cur in ((use_lo, lo), (use_hi, hi)):
                for c, v in zip(cur, xj):
                    c[use] = v[use]
        lo_b |= use_lo
        hi_b |= use_hi
    inside = lambda tt: (tt >= 0.0) & ((tt < 1.0) | ((tt <= 1.0) & free[:, 1]))
    cap_lo = (lo_b | ((ramp[:, 0] > 0.0) & inside(t0[0]))) & (hi[0] - lo[0] > 0.0)
    cap_hi = (hi_b | ((ramp[:, 1] > 0.0) & inside(t1[0]))) & (hi[0] - lo[0] > 0.0)
    # the lean weight
    def rho(P):
        # (the perpendicular itself, not |r|^2 - (r.d)^2 / d.d: near parallel the lean is
        # a difference of two such distances, which that cancellation would make noisy)
        r = sub(P, b0)
        s_ = _jmul(_jdot(r, dv), inv_dd)
        perp = [_jlin((1.0, p), (-1.0, _jmul(s_, q))) for p, q in zip(r, dv)]
        return _jsqrt(_jdot(perp, perp))
    la = _jsqrt(_jdot(sub(a1, a0), sub(a1, a0)))
    arg = _jmul(_jlin((1.0, rho(a0)), (-1.0, rho(a1))), _jinv(_jlin((BOUND_BAND, la))))
    S, dS, d2S = _smoothstep(arg[0])
    k_hi = _jfun(arg, S, dS, d2S)
    E = zero()
    for xi, cap, kappa in ((lo, cap_lo, _jlin((1.0, const(1.0)), (-1.0, k_hi))),
                           (hi, cap_hi, k_hi)):
        if not cap.any():
            continue
        one_xi = _jlin((1.0, const(1.0)), (-1.0, xi))
        P = [_jlin((1.0, _jmul(one_xi, p)), (1.0, _jmul(xi, q))) for p, q in zip(a0, a1)]
        # (inside B's chord at a capped bound: B's end itself at a bound from it, where
        # the projection's jet is that end's constant to round-off)
        t = t_of(P)
        Q = [_jlin((1.0, p), (1.0, _jmul(t, q))) for p, q in zip(b0, dv)]
        r = sub(P, Q)
        g = _jlin((1.0, _jsqrt(_jdot(r, r))), (-1.0, const(radius)))
        pen = cap & (g[0] < 0.0)
        W = _jlin((0.5 * np.where(pen, k, 0.0), _jmul(g, g)))
        E = tuple(e + v for e, v in zip(E, _jmul(kappa, W)))
    return _jmul(lam, E)


def _jconst(v, n, N):
    return (np.asarray(v, float) * np.ones(n), np.zeros((n, N)), np.zeros((n, N, N)))


def _jembed(val, grad, hess, idx, N):
    """A jet of a function of some of the nodes (``idx`` their coordinates' indices among
    ``N``), from its value, gradient and Hessian in those."""
    n = len(val)
    G = np.zeros((n, N))
    H = np.zeros((n, N, N))
    G[:, idx] = grad
    H[:, idx[:, None], idx[None, :]] = hess
    return (val, G, H)


def _jsub(a, b):
    """The difference of two vectors of jets."""
    return [_jlin((1.0, q), (-1.0, r)) for q, r in zip(a, b)]


def _jnorm(v):
    """The length of a vector of jets."""
    return _jsqrt(_jdot(v, v))


def _jto_line(P, b0, b1):
    """The distance of the point ``P`` from the line through ``b0``, ``b1`` (vectors of
    jets), as the perpendicular itself (see :func:`bound_caps`' ``rho``)."""
    dv, r = _jsub(b1, b0), _jsub(P, b0)
    s_ = _jmul(_jdot(r, dv), _jinv(_jdot(dv, dv)))
    return _jnorm([_jlin((1.0, q), (-1.0, _jmul(s_, e))) for q, e in zip(r, dv)])


def kink_caps(x: np.ndarray, k: float, radius: float):
    """The bound rule's caps of a free end over B's node with the signed kink rule
    (fembody.contact.line, "End caps at kinks"; measured, not built), for the states ``x
    (n, 5, 3)`` (nodes ``u, p`` of A's free element, ``p`` the free end, and B's ``n_1, c,
    n_2``): energy ``(n,)`` [J], gradient ``(n, 15)`` [N] and Hessian ``(n, 15, 15)``
    [N/m] by second-order jets: the tip's caps ``s_j w_j k/2 max(-g_j, 0)^2`` against the
    two elements where it projects inside (``w_j = Lam_j kappa_j`` as :func:`bound_caps`,
    ``g_j`` its gap to B_j's line, the share ``s_1 = phi(theta)``, ``s_2 = 1 - s_1`` where
    it projects inside both, 1 elsewhere), the node pair's ``((1 - phi) w_1 + phi w_2)
    k/2 max(-g_pc, 0)^2`` over the wedge (``D_1, D_2 > 0``), and the node's ``psi (w_1 -
    w_2) k/2 max(-g_c, 0)^2`` against A's element (its clamped distance, where ``c``
    projects at ``t_c >= 0``), ``psi`` ``phi(theta)`` over the wedge, ``1 - phi(theta)``
    over the double region, 0 before and 1 after; ``theta = D_1 / (D_1 + D_2)``, ``D_i =
    (p - c) . (c - n_i)``, ``radius`` the sum of the radii [m], ``k`` [N/m]. The branch
    (which region) is taken at the value, as tests/contact/test_ends_meet.py's
    ``_kink_caps`` does."""
    from fembody.contact.ends import _smoothstep
    from fembody.contact.line import _quintic
    n, m, d = x.shape
    N = m * d
    X = _jnodes(x)
    u, p, n1, c, n2 = X
    one = _jconst(1.0, n, N)
    sub, norm, to_line = _jsub, _jnorm, _jto_line

    def cap(g):
        g = _jlin((1.0, g), (-radius, one))
        on = (g[0] < 0.0).astype(float)
        return _jlin((0.5 * k * on, _jmul(g, g)))

    coords = lambda nodes: np.concatenate([np.arange(j * d, (j + 1) * d) for j in nodes])
    la = norm(sub(p, u))
    w, gap = [], []
    for b0, b1, nodes in ((n1, c, (0, 1, 2, 3)), (c, n2, (0, 1, 3, 4))):
        lam = _jembed(*weight(x[:, list(nodes)], None, None, True), coords(nodes), N)
        arg = _jmul(_jlin((1.0, to_line(u, b0, b1)), (-1.0, to_line(p, b0, b1))),
                    _jinv(_jlin((BOUND_BAND, la))))
        w.append(_jmul(lam, _jfun(arg, *_smoothstep(arg[0]))))
        gap.append(to_line(p, b0, b1))
    pc = sub(p, c)
    D1, D2 = _jdot(pc, sub(c, n1)), _jdot(pc, sub(c, n2))
    S = _jlin((1.0, D1), (1.0, D2))
    safe = (np.where(S[0] != 0.0, S[0], 1.0),) + S[1:]
    th = _jmul(D1, _jinv(safe))
    th = tuple(np.where(np.reshape(S[0] != 0.0, (n,) + (1,) * (t.ndim - 1)), t, h)
               for t, h in zip(th, _jconst(0.5, n, N)))
    phi = _jfun(th, *_quintic(th[0]))
    wedge = (D1[0] > 0.0) & (D2[0] > 0.0)
    double = (D1[0] <= 0.0) & (D2[0] <= 0.0)
    f = lambda mask: mask.astype(float)
    s1 = _jlin((f(double), phi), (f(~double), one))
    s2 = _jlin((f(double), one), (-f(double), phi), (f(~double), one))
    E = _jlin((f(D1[0] < 0.0), _jmul(_jmul(s1, w[0]), cap(gap[0]))),
              (f(D2[0] <= 0.0), _jmul(_jmul(s2, w[1]), cap(gap[1]))))
    wp = _jlin((1.0, w[0]), (1.0, _jmul(phi, _jlin((1.0, w[1]), (-1.0, w[0])))))
    E = _jlin((1.0, E), (f(wedge), _jmul(wp, cap(norm(pc)))))
    after = ~wedge & ~double & (D1[0] > 0.0)
    psi = _jlin((f(wedge), phi), (f(double), one), (-f(double), phi), (f(after), one))
    pu, cu = sub(p, u), sub(c, u)
    tc = _jmul(_jdot(cu, pu), _jinv(_jdot(pu, pu)))
    perp = norm([_jlin((1.0, q), (-1.0, _jmul(tc, e))) for q, e in zip(cu, pu)])
    beyond = tc[0] > 1.0
    dist = _jlin((f(~beyond), perp), (f(beyond), norm(pc)))
    node = _jmul(_jmul(psi, _jlin((1.0, w[0]), (-1.0, w[1]))), cap(dist))
    return _jlin((1.0, E), (f(tc[0] >= 0.0), node))


def node_caps(x: np.ndarray, k: float, radius: float):
    """The node cap of B's node ``c`` under an element of A with the weight of
    fembody.contact.line's "Node caps under every element" (measured, not built), for the
    states ``x (n, 5, 3)`` (A's element ``a0 -> a1``, B's ``n_1, c, n_2``): energy
    ``(n,)`` [J], gradient ``(n, 15)`` [N] and Hessian ``(n, 15, 15)`` [N/m] by
    second-order jets of ``m k/2 max(-g_c, 0)^2`` where ``c`` projects inside the element
    (``0 <= t_c < 1``), ``g_c`` its distance to A's line less ``radius`` [m], ``m = Lam_1
    kappa_1 + Lam_2 kappa_2 - Lam_2``: ``Lam_j`` the pairs' line weights with ``B_1 = n_1
    -> c``, ``B_2 = c -> n_2`` (fembody.contact.line.weight), ``kappa_j`` the element's
    lean towards its end on ``c``'s side of ``B_j`` (the end projecting further along
    ``B_1``, less far along ``B_2``; the side taken at the value) against ``B_j``'s line,
    as :func:`bound_caps`' ``kappa``; ``k`` [N/m]."""
    from fembody.contact.ends import _smoothstep
    n, d = x.shape[0], x.shape[2]
    N = x.shape[1] * d
    a0, a1, n1, c, n2 = _jnodes(x)
    sub, norm, to_line = _jsub, _jnorm, _jto_line
    coords = lambda nodes: np.concatenate([np.arange(j * d, (j + 1) * d) for j in nodes])
    e = sub(a1, a0)
    la = norm(e)
    # the end of the element on c's side of each of B's elements (+1: a1, -1: a0)
    ev = x[:, 1] - x[:, 0]
    side = (np.where(np.einsum("ni,ni->n", ev, x[:, 3] - x[:, 2]) > 0.0, 1.0, -1.0),
            np.where(np.einsum("ni,ni->n", ev, x[:, 4] - x[:, 3]) > 0.0, -1.0, 1.0))
    lam, kap = [], []
    for b0, b1, nodes, s in ((n1, c, (0, 1, 2, 3), side[0]),
                             (c, n2, (0, 1, 3, 4), side[1])):
        lam.append(_jembed(*weight(x[:, list(nodes)], None, None, True), coords(nodes), N))
        lean = _jmul(_jlin((1.0, to_line(a0, b0, b1)), (-1.0, to_line(a1, b0, b1))),
                     _jinv(_jlin((BOUND_BAND, la))))
        lean = _jlin((s, lean))
        kap.append(_jfun(lean, *_smoothstep(lean[0])))
    w = _jlin((1.0, _jmul(lam[0], kap[0])), (1.0, _jmul(lam[1], kap[1])), (-1.0, lam[1]))
    ca = sub(c, a0)
    tc = _jmul(_jdot(ca, e), _jinv(_jdot(e, e)))
    g = _jlin((1.0, norm([_jlin((1.0, q), (-1.0, _jmul(tc, v))) for q, v in zip(ca, e)])),
              (-radius, _jconst(1.0, n, N)))
    on = ((tc[0] >= 0.0) & (tc[0] < 1.0) & (g[0] < 0.0)).astype(float)
    return _jmul(w, _jlin((0.5 * k * on, _jmul(g, g))))


def surface_offsets(blk, x: np.ndarray, anchor: np.ndarray) -> np.ndarray:
    """The anchors ``(p, 2 + d)`` of a block measuring friction at the surfaces
    (fembody.contact.beams.BeamContactBlock, ``surface``) as the compiled pass read them
    before it was given the rotations (``crossing_forces``' ``rot``): the parameters and the
    offset ``o - v_A + v_B`` of every point, ``v = ((1 - s) R_1 + s R_2) a`` per section
    (fembody.contact.sections) at the rotations of ``x``, from ``anchor (p, 2 + d + 6)``; its
    ``w = x_A(s_a) - x_B(t_a) - o'`` is the surface points' ``x_A + v_A - x_B - v_B - o``."""
    R = blk._rotations(x)
    eff = np.empty((len(anchor), 2 + blk.dim))
    eff[:, :2] = anchor[:, :2]
    eff[:, 2:] = anchor[:, 2:2 + blk.dim]
    n = len(blk)
    # per part (the pairs' points, their line points): each pair's rotations broadcast
    # over its points
    for sl, g in ((slice(0, n), 1), (slice(n, None), NG)):
        a = anchor[sl].reshape(n, g, -1)
        for i, (c, col) in enumerate(((a[..., 0], 5), (a[..., 1], 8))):
            Ra = a[..., col:col + 3] @ np.swapaxes(R[:, 2 * i], 1, 2)
            Rb = a[..., col:col + 3] @ np.swapaxes(R[:, 2 * i + 1], 1, 2)
            v = (1.0 - c)[..., None] * Ra + c[..., None] * Rb
            eff[sl, 2:] += (v if i else -v).reshape(-1, 3)
    return eff



def rotation_tangent(blk, x: np.ndarray, history, rows: np.ndarray) -> np.ndarray:
    """The stiffness ``(t, 2 m d, 2 m d)`` of the pairs ``rows`` of a block measuring
    friction at the surfaces (fembody.contact.beams.BeamContactBlock, ``surface``) as the
    array form makes it (the block's ``_friction_of`` given ``rows``: the points' closest
    points, distance Hessians and return mapping recomputed in numpy, ``dw/dX`` and
    ``dw/dTheta = [G_A, -G_B]`` stacked, ``(dw)^T dT`` and the moments' own term): the
    reference of the rotations' rows and columns, which the block took from it until the
    compiled pass gave the per-point derivatives (``crossing_forces``' ``dT``; the
    translations' block is the pass's). The array form puts the line points at A's Gauss
    points unclipped: the reference of pairs that no free end of B clips."""
    return blk._friction_of(x, history, True, rows=rows)[1]


def moments(blk, x: np.ndarray, anchor: np.ndarray, f: np.ndarray, lam: np.ndarray,
            rows: np.ndarray) -> np.ndarray:
    """The friction's moments ``(n, 4 * 3)`` [N m] on the nodes' rotations (a0, a1, b0, b1)
    of the pairs ``rows`` of a spatial block measuring friction at the surfaces, from the
    points' friction forces ``f (p, d)`` (the return mapping's, on the tied points'
    difference) and the line weights ``lam (n,)``: ``(dv_A/dTheta)^T f`` and ``-(dv_B
    /dTheta)^T f`` per point (fembody.contact.sections.carried: the node's share of ``a x
    R^T f``), blended as the forces are; the others' zero. The block made them so (numpy,
    after the compiled pass) until the pass wrote them itself (``crossing_forces``' **At the
    surfaces**)."""
    n, md = len(blk), blk.X[0].size
    M = np.zeros((n, md))
    nr = len(rows)
    if not nr:
        return M
    pr = blk._point_rows(rows)
    a, fp = anchor[pr], f[pr]
    R = blk._rotations(x)[rows]
    for sl, g, wt in ((slice(0, nr), 1, 1.0 - lam[rows]), (slice(nr, None), NG, lam[rows])):
        ap, fg = a[sl].reshape(nr, g, -1), fp[sl].reshape(nr, g, -1)
        parts = []
        for i, (c, col, sign) in enumerate(((ap[..., 0], 5, 1.0), (ap[..., 1], 8, -1.0))):
            for j, cj in enumerate((1.0 - c, c)):
                RtF = fg @ R[:, 2 * i + j]                  # R^T f per point
                parts.append(sign * cj[..., None] * np.cross(ap[..., col:col + 3], RtF))
        M[rows] += wt[:, None] * np.concatenate(parts, axis=2).sum(axis=1)
    return M


def rotation_tangent_from_pass(blk, x: np.ndarray, h, out) -> np.ndarray:
    """The stiffness ``(t, 2 m d, 2 m d)`` of the ``t`` pairs that touch of a spatial block
    measuring friction at the surfaces, from the compiled pass's ``out`` (asked with
    ``tangent`` and ``points``): its block on the translations, and the rotations' rows and
    columns from its per-point derivatives of the friction force ``T`` (``dT/dX``,
    ``dT/dw``: ``crossing_forces``' ``dT``) and the sections' ``dw/dTheta = [G_A, -G_B]``
    (the block's ``_carried``): ``G^T dT/dX``, ``c_a (dT/dw G)``, ``G^T dT/dw G`` and the
    moments' own derivative at fixed ``T``, blended as the forces are (numpy batched
    products): what the block made after the pass until the pass wrote these rows and
    columns itself."""
    from fembody.contact.sections import carried_moment_tangent
    K, rows, state, lam, dT, glam = out[1], out[2], out[4], out[5][:, 0], out[7], out[8]
    md = blk.X[0].size
    t, d = len(rows), blk.dim
    Kt = np.zeros((t, 2 * md, 2 * md))
    Kt[:, :md, :md] = K[:, :md, :md]
    if not t:
        return Kt
    rows = np.asarray(rows, dtype=np.int64)
    pr = blk._point_rows(rows)
    anchor = h.anchor[pr]
    local = np.concatenate([np.arange(t), np.repeat(np.arange(t), NG)])
    R = blk._rotations(x)[rows]
    _, GA, _, GB = blk._carried(R, anchor, local)
    G = np.concatenate([GA, -GB], axis=2)                       # dw/dTheta (p, d, 12)
    dTp = np.concatenate([dT[:, 0], dT[:, 1:].reshape(t * NG, d, md + d)])
    TX, TW = dTp[:, :, :md], dTp[:, :, md:]
    ca = blk._anchor_coefficients(anchor[:, :2])
    Tg = TW @ G                                                 # dT/dTheta (p, d, 12)
    fp = state[pr, 5:5 + d]
    lr = lam[rows]
    wt = np.concatenate([1.0 - lr, np.repeat(lr, NG)])
    Gw = np.swapaxes(G, 1, 2) * wt[:, None, None]

    def per_pair(A: np.ndarray) -> np.ndarray:
        return A[:t] + A[t:].reshape((t, NG) + A.shape[1:]).sum(axis=1)

    Kt[:, md:, :md] = per_pair(Gw @ TX)
    Krr = Gw @ Tg
    Krr[:, :6, :6] += wt[:, None, None] * carried_moment_tangent(
        R[local, :2], anchor[:, 0], anchor[:, 5:8], fp)
    Krr[:, 6:, 6:] -= wt[:, None, None] * carried_moment_tangent(
        R[local, 2:], anchor[:, 1], anchor[:, 8:11], fp)
    Kt[:, md:, md:] = per_pair(Krr)
    Kt[:, :md, md:] = per_pair((ca * wt[:, None])[:, :, None, None] * Tg[:, None]).reshape(
        t, md, md)
    # the blend's gradient on the parts' moments: (M_line - M_point) glam^T
    Mp = (fp[:, None, :] @ G)[:, 0]
    dM = Mp[t:].reshape(t, NG, md).sum(axis=1) - Mp[:t]
    Kt[:, md:, :md] += dM[:, :, None] * glam[:, None, :]
    return Kt


def tied(blk, x: np.ndarray, params: np.ndarray) -> np.ndarray:
    """The section vectors ``(p, 6)`` ``(a_A, a_B)`` every contact point of a spatial block
    measuring friction at the surfaces ties at ``x`` with its current parameters ``params
    (n (1 + NG), 2)`` (a pair's point, then its NG line points), the numpy broadcast form
    the block used before ``surface_ties`` (fembody.contact._kernels): each pair's positions
    and rotations broadcast over its points, fembody.contact.sections.tie."""
    from fembody.contact.beams import _unit_or_z
    from fembody.contact.sections import tie
    n = len(blk)
    pos, R = blk.positions(x), blk._rotations(x)
    ca = blk._anchor_coefficients(params)
    out = np.empty((len(params), 6))
    for sl, shape, P, Rp, r in ((slice(0, n), (n,), pos, R, blk.radii),
                                (slice(n, None), (n, NG), pos[:, None], R[:, None],
                                 blk.radii[:, None])):
        c = ca[sl].reshape(shape + (4,))
        dv = (((c[..., 0, None] * P[..., 0, :] + c[..., 1, None] * P[..., 1, :])
               + c[..., 2, None] * P[..., 2, :]) + c[..., 3, None] * P[..., 3, :])
        nrm = _unit_or_z(dv)
        prm = params[sl].reshape(shape + (2,))
        out[sl, :3] = tie(Rp[..., :2, :, :], prm[..., 0],
                          -r[..., 0, None] * nrm).reshape(-1, 3)
        out[sl, 3:] = tie(Rp[..., 2:, :, :], prm[..., 1],
                          r[..., 1, None] * nrm).reshape(-1, 3)
    return out
