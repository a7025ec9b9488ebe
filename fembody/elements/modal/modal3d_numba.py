"""Compiled kernels of the spatial modal body (:mod:`fembody.elements.modal.modal3d`).

``inertial``: the inertial force on ``(dr, Theta, eta)`` and, on request, its tangents
``K = df/dq`` (rotation increments material) and ``C = df/dq'``, both in closed form
(``_tangents``: O(N^2) like the force, no Python call per step; the tests check them against
finite differences and complex steps of the numpy reference). The equations are those of the
module docstring of ``modal3d``; ``_evaluate`` is their loop form.

``gravity``: gravity's generalised force from ``V = -m g.r - g.R c(eta)`` and its load
stiffness in closed form (``gb = R^T g`` moves by ``hat(gb) dTheta``).

The invariants are handed flat: ``Ct (N, 3, 3)``, ``J1s = J1 + J1^T`` (N, 3, 3), ``J2 (N, N,
3, 3)``, ``J2s[k, l] = J2[k, l] + J2[l, k]``, ``Cr (N, 3, N)``, ``c2 (3, N, N)`` (the first
moment's second-order part, zero for a body without stiffening).

``step_into``: the block's whole contribution to one evaluation of the compiled step
(:mod:`fembody.dynamics._step_kernels`), the same kernels as the block's Python methods;
``pins_into``: the ModalPins' rows there (``pin_rows``: phi, B and the Hessian in closed
form).
"""
from __future__ import annotations

import numpy as np

from ..kernels import njit



@njit(cache=True)
def _cross(a, b, out, o):  # pragma: no cover - jitted
    """``out[o:o+3] += a x b`` (3-vectors)."""
    out[o] += a[1] * b[2] - a[2] * b[1]
    out[o + 1] += a[2] * b[0] - a[0] * b[2]
    out[o + 2] += a[0] * b[1] - a[1] * b[0]


@njit(cache=True)
def _hat(w0, w1, w2):  # pragma: no cover - jitted
    """The skew matrix of (w0, w1, w2): ``hat(w) x = w x x``."""
    return np.array([[0.0, -w2, w1], [w2, 0.0, -w0], [-w1, w0, 0.0]])


@njit(cache=True)
def _body_mass(eta, m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2):  # pragma: no cover
    """``A(eta) (n, n)``, ``G (N, 3, 3)``, ``G_k = J1s_k + sum_l eta_l J2s[k, l]`` (the
    derivative of A's rotation block along eta_k; it also gives dT/deta and A's rate) and
    ``Cte (N, 3, 3)``, the derivative of A's translation-rotation block along eta_k, ``Ct_k -
    hat(sum_l c2[:, k, l] eta_l)``."""
    N = eta.shape[0]
    n = 6 + N
    A = np.zeros((n, n))
    G = J1s.copy()
    Cte = Ct.copy()
    # the first moment's second-order part: A_tW gets -hat(c2 eta eta / 2), A_teta c2 eta
    q = np.zeros(3)
    for k in range(N):
        for i in range(3):
            s = 0.0
            for l in range(N):
                s += c2[i, k, l] * eta[l]
            A[i, 6 + k] += s
            q[i] += 0.5 * s * eta[k]
        H = _hat(A[0, 6 + k], A[1, 6 + k], A[2, 6 + k])
        for i in range(3):
            for j in range(3):
                Cte[k, i, j] -= H[i, j]
    Hq = _hat(q[0], q[1], q[2])
    for i in range(3):
        for j in range(3):
            A[i, 3 + j] -= Hq[i, j]
    for i in range(3):
        A[i, i] = m
        for j in range(3):
            A[i, 3 + j] += Ct0[i, j]
            A[3 + i, 3 + j] = J0[i, j]
        for k in range(N):
            A[i, 6 + k] += CtP[i, k]
            A[3 + i, 6 + k] = Cr0[i, k]
    for k in range(N):
        ek = eta[k]
        for i in range(3):
            for j in range(3):
                A[i, 3 + j] += ek * Ct[k, i, j]
                A[3 + i, 3 + j] += ek * J1s[k, i, j]
            for j in range(N):
                A[3 + i, 6 + j] += ek * Cr[k, i, j]
        for l in range(N):
            el = eta[l]
            for i in range(3):
                for j in range(3):
                    A[3 + i, 3 + j] += ek * el * J2[k, l, i, j]
                    G[k, i, j] += el * J2s[k, l, i, j]
    for k in range(N):
        for j in range(N):
            A[6 + k, 6 + j] = Mee[k, j]
    _mirror(A)
    return A, G, Cte


@njit(cache=True)
def _mirror(A):  # pragma: no cover - jitted
    """Fill A's lower off-diagonal blocks (t-W, t-eta, W-eta) from the upper ones."""
    n = A.shape[0]
    for i in range(6):
        for j in range(i + 1, n):
            if j >= 6 or i < 3 <= j:
                A[j, i] = A[i, j]


@njit(cache=True)
def _evaluate(R, v, a, A, G, Ct, Cr, c2, f):  # pragma: no cover - jitted
    """The inertial force ``f (6 + N)`` at rotation ``R``, velocities ``v = (r', W, eta')``
    and accelerations ``a``, with ``A``, ``G`` and ``Ct`` (its ``Cte``) of :func:`_body_mass`
    at the amplitudes (any one dtype). A's rate along eta' enters only
    through its product with z, formed block by block (D z) without D."""
    N = G.shape[0]
    n = 6 + N
    z = np.zeros(n, dtype=f.dtype)
    zd = np.zeros(n, dtype=f.dtype)
    for i in range(3):
        for j in range(3):
            z[i] += R[j, i] * v[j]
            zd[i] += R[j, i] * a[j]
        z[3 + i] = v[3 + i]
        zd[3 + i] = a[3 + i]
    for k in range(N):
        z[6 + k] = v[6 + k]
        zd[6 + k] = a[6 + k]
    W0, W1, W2 = z[3], z[4], z[5]
    b0, b1, b2 = z[0], z[1], z[2]
    zd[0] -= W1 * b2 - W2 * b1                         # z' = R^T r'' - W x v_b
    zd[1] -= W2 * b0 - W0 * b2
    zd[2] -= W0 * b1 - W1 * b0
    # pd = A z' + D z, and f_eta = pd_eta - dT/deta, with per-mode products of W
    pd = np.zeros(n, dtype=f.dtype)
    p = np.zeros(6, dtype=f.dtype)
    for r in range(n):
        s = 0.0 * zd[0]
        for c in range(n):
            s += A[r, c] * zd[c]
        pd[r] = s
    for r in range(6):
        s = 0.0 * z[0]
        for c in range(n):
            s += A[r, c] * z[c]
        p[r] = s
    for k in range(N):
        dk = z[6 + k]
        eg = 0.0 * dk
        for i in range(3):
            ctw = Ct[k, i, 0] * W0 + Ct[k, i, 1] * W1 + Ct[k, i, 2] * W2
            ctv = Ct[k, 0, i] * b0 + Ct[k, 1, i] * b1 + Ct[k, 2, i] * b2
            gw = G[k, i, 0] * W0 + G[k, i, 1] * W1 + G[k, i, 2] * W2
            cre = 0.0 * dk
            for j in range(N):
                cre += Cr[k, i, j] * z[6 + j]
            pd[i] += dk * ctw                              # (D z)_t
            pd[3 + i] += dk * (ctv + gw + cre)             # (D z)_W
            eg += z[i] * ctw + 0.5 * z[3 + i] * gw + z[3 + i] * cre
        for j in range(N):
            pd[6 + j] += dk * (Cr[k, 0, j] * W0 + Cr[k, 1, j] * W1 + Cr[k, 2, j] * W2)
        f[6 + k] = -eg
    # the translation-modal block's rate along eta' is sum_k eta'_k c2[:, k, :] (constant):
    # its share of D z and of dT/deta_k = v.(c2_k eta') (the rest of it is in Ct)
    for i in range(3):
        for k in range(N):
            for j in range(N):
                t = c2[i, k, j]
                if t != 0.0:
                    pd[i] += z[6 + k] * t * z[6 + j]
                    pd[6 + j] += z[6 + k] * t * z[i]
                    f[6 + k] -= z[i] * t * z[6 + j]
    for k in range(N):
        f[6 + k] += pd[6 + k]
    # translations: R (P' + W x P); rotations: p_W' + W x p_W + v_b x P
    g0 = pd[0] + W1 * p[2] - W2 * p[1]
    g1 = pd[1] + W2 * p[0] - W0 * p[2]
    g2 = pd[2] + W0 * p[1] - W1 * p[0]
    for i in range(3):
        f[i] = R[i, 0] * g0 + R[i, 1] * g1 + R[i, 2] * g2
    f[3] = pd[3] + W1 * p[5] - W2 * p[4] + b1 * p[2] - b2 * p[1]
    f[4] = pd[4] + W2 * p[3] - W0 * p[5] + b2 * p[0] - b0 * p[2]
    f[5] = pd[5] + W0 * p[4] - W1 * p[3] + b0 * p[1] - b1 * p[0]


@njit(cache=True, aot="Tuple((f8[:], f8[:, :], f8[:, :]))(f8[:, :], f8[:], f8[:], f8[:], f8, "
      "f8[:, :], f8[:, :, :], f8[:, :], f8[:, :], f8[:, :, :], f8[:, :, :, :], "
      "f8[:, :, :, :], f8[:, :], f8[:, :, :], f8[:, :], f8[:, :, :], b1)")
def inertial(R, eta, v, a, m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2,
             tangent):  # pragma: no cover - jitted
    """Inertial force ``f (n)``, ``K = df/d(dr, Theta, eta) (n, n)`` and ``C = df/dv (n,
    n)`` (zero-sized when ``tangent`` is False), ``n = 6 + N``: A, G and Cte built once
    (:func:`_body_mass`), the tangents in closed form (:func:`_tangents`)."""
    N = eta.shape[0]
    n = 6 + N
    A0, G0, Cte = _body_mass(eta, m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2)
    f = np.zeros(n)
    _evaluate(R, v, a, A0, G0, Cte, Cr, c2, f)
    # one return, its arrays' shapes from a variable: pythran's one type per name
    # (tools/build_kernels.py, LEAN_TYPING) would give a literal (0, 0) first return's shape
    # to the tangents too
    nk = n if tangent else 0
    K = np.zeros((nk, nk))
    C = np.zeros((nk, nk))
    if tangent:
        _tangents(R, v, a, A0, G0, Cte, Cr, c2, J2s, K, C)
    return f, K, C


@njit(cache=True)
def _dA_times(Ct, G, Cr, c2, x, E):  # pragma: no cover - jitted
    """``E[:, k] = (dA/deta_k) x`` for every k (A's derivative blocks: ``Ct`` (its Cte) on
    t-W, ``G`` on W-W, ``Cr`` on W-eta, ``c2[:, k, :]`` on t-eta, and their mirrors)."""
    N = G.shape[0]
    for k in range(N):
        for i in range(3):
            s_t = 0.0
            s_w = 0.0
            for j in range(3):
                s_t += Ct[k, i, j] * x[3 + j]
                s_w += Ct[k, j, i] * x[j] + G[k, i, j] * x[3 + j]
            for j in range(N):
                s_t += c2[i, k, j] * x[6 + j]
                s_w += Cr[k, i, j] * x[6 + j]
            E[i, k] = s_t
            E[3 + i, k] = s_w
        for j in range(N):
            s = 0.0
            for i in range(3):
                s += Cr[k, i, j] * x[3 + i] + c2[i, k, j] * x[i]
            E[6 + j, k] = s


@njit(cache=True)
def _tangents(R, v, a, A, G, Ct, Cr, c2, J2s, K, C):  # pragma: no cover - jitted
    """``K = df/d(dr, Theta, eta)`` and ``C = df/dv (n, n)`` of :func:`_evaluate`'s force in
    closed form. With ``z = S v``, ``S = diag(R^T, I, I)``, ``E[:, k] = (dA/deta_k) z``, ``D =
    sum_k eta'_k dA/deta_k``: ``dpd/dz = A J + D + [0 | E]`` (``J = dz'/dz``, from ``-W x
    v_b``), the rows of f (module docstring of modal3d) give ``F = df/dz`` and ``C = F S``.
    A material rotation turns ``z_t`` and ``R^T r''`` (``d(R^T x) = hat(R^T x) dTheta``) and
    the translation rows; an amplitude moves A (first and second derivatives: ``J2s``,
    ``c2``) in ``A z'``, ``D z``, the momenta and ``dT/deta``."""
    N = G.shape[0]
    n = 6 + N
    z = np.zeros(n)
    zd = np.zeros(n)
    ab = np.zeros(3)
    for i in range(3):
        for j in range(3):
            z[i] += R[j, i] * v[j]
            ab[i] += R[j, i] * a[j]
        z[3 + i] = v[3 + i]
        zd[3 + i] = a[3 + i]
    for k in range(N):
        z[6 + k] = v[6 + k]
        zd[6 + k] = a[6 + k]
    zd[0] = ab[0] - (z[4] * z[2] - z[5] * z[1])
    zd[1] = ab[1] - (z[5] * z[0] - z[3] * z[2])
    zd[2] = ab[2] - (z[3] * z[1] - z[4] * z[0])
    p = np.zeros(6)
    for r in range(6):
        s = 0.0
        for c in range(n):
            s += A[r, c] * z[c]
        p[r] = s
    # E[:, k] = (dA/deta_k) z and D = sum_k eta'_k dA/deta_k, block by block
    E = np.zeros((n, N))
    _dA_times(Ct, G, Cr, c2, z, E)
    D = np.zeros((n, n))
    for k in range(N):
        ek = z[6 + k]
        for i in range(3):
            for j in range(3):
                D[i, 3 + j] += ek * Ct[k, i, j]
                D[3 + i, 3 + j] += ek * G[k, i, j]
            for j in range(N):
                D[i, 6 + j] += ek * c2[i, k, j]
                D[3 + i, 6 + j] += ek * Cr[k, i, j]
    _mirror(D)
    # dpd/dz: A J (J: -hat(W) on the v_b columns, hat(v_b) on the W columns of the t rows)
    dp = D.copy()
    HW = _hat(z[3], z[4], z[5])
    Hb = _hat(z[0], z[1], z[2])
    for r in range(n):
        for j in range(3):
            s1 = 0.0
            s2 = 0.0
            for i in range(3):
                s1 -= A[r, i] * HW[i, j]
                s2 += A[r, i] * Hb[i, j]
            dp[r, j] += s1
            dp[r, 3 + j] += s2
        for k in range(N):
            dp[r, 6 + k] += E[r, k]
    HP = _hat(p[0], p[1], p[2])
    HpW = _hat(p[3], p[4], p[5])
    F = np.zeros((n, n))                      # df/dz
    for i in range(3):
        for c in range(n):
            st = dp[i, c]
            sw = dp[3 + i, c]
            for j in range(3):
                st += HW[i, j] * A[j, c]                 # W x P, P = A_t z
                sw += HW[i, j] * A[3 + j, c] + Hb[i, j] * A[j, c]
            F[i, c] = st
            F[3 + i, c] = sw
        for j in range(3):
            F[i, 3 + j] -= HP[i, j]                      # d(W x P)/dW
            F[3 + i, 3 + j] -= HpW[i, j]                 # d(W x p_W)/dW
            F[3 + i, j] -= HP[i, j]                      # d(v_b x P)/dv_b
    for k in range(N):
        for c in range(n):
            F[6 + k, c] = dp[6 + k, c] - E[c, k]
    Fb = F.copy()                             # body-frame rows, for K below
    # f's translation rows are R times the body-frame ones; z_t = R^T r': C's first
    # columns are F's times R^T
    for c in range(n):
        t0, t1, t2 = F[0, c], F[1, c], F[2, c]
        for i in range(3):
            F[i, c] = R[i, 0] * t0 + R[i, 1] * t1 + R[i, 2] * t2
    for r in range(n):
        t0, t1, t2 = F[r, 0], F[r, 1], F[r, 2]
        for j in range(3):
            C[r, j] = t0 * R[j, 0] + t1 * R[j, 1] + t2 * R[j, 2]
        for c in range(3, n):
            C[r, c] = F[r, c]
    # K, body-frame rows Kb first. The body-frame translation force g_t = pd_t + W x P
    pd = np.zeros(n)
    for r in range(n):
        s = 0.0
        for c in range(n):
            s += A[r, c] * zd[c] + D[r, c] * z[c]
        pd[r] = s
    gt0 = pd[0] + z[4] * p[2] - z[5] * p[1]
    gt1 = pd[1] + z[5] * p[0] - z[3] * p[2]
    gt2 = pd[2] + z[3] * p[1] - z[4] * p[0]
    Kb = np.zeros((n, n))
    # rotation: df/dz_t hat(v_b) + df/d(R^T r'') hat(R^T r''), the latter through A z'
    Ha = _hat(ab[0], ab[1], ab[2])
    for r in range(n):
        for j in range(3):
            s = 0.0
            for i in range(3):
                s += Fb[r, i] * Hb[i, j] + A[r, i] * Ha[i, j]
            Kb[r, 3 + j] = s
    # amplitudes: (dA_k) z' + sum_l eta'_l (d2A_kl) z, then the momenta's and dT/deta's
    Ezd = np.zeros((n, N))
    _dA_times(Ct, G, Cr, c2, zd, Ezd)
    W0, W1, W2 = z[3], z[4], z[5]
    b0, b1, b2 = z[0], z[1], z[2]
    for k in range(N):
        col = Ezd[:, k].copy()
        for l in range(N):
            el = z[6 + l]
            c0, c1, c2l = c2[0, k, l], c2[1, k, l], c2[2, k, l]
            # t rows: W x c2_kl; W rows: J2s_kl W + c2_kl x v_b (A_tW'' = -hat(c2_kl))
            col[0] += el * (W1 * c2l - W2 * c1)
            col[1] += el * (W2 * c0 - W0 * c2l)
            col[2] += el * (W0 * c1 - W1 * c0)
            col[3] += el * (J2s[k, l, 0, 0] * W0 + J2s[k, l, 0, 1] * W1 + J2s[k, l, 0, 2] * W2
                            + c1 * b2 - c2l * b1)
            col[4] += el * (J2s[k, l, 1, 0] * W0 + J2s[k, l, 1, 1] * W1 + J2s[k, l, 1, 2] * W2
                            + c2l * b0 - c0 * b2)
            col[5] += el * (J2s[k, l, 2, 0] * W0 + J2s[k, l, 2, 1] * W1 + J2s[k, l, 2, 2] * W2
                            + c0 * b1 - c1 * b0)
        Et0, Et1, Et2 = E[0, k], E[1, k], E[2, k]
        Ew0, Ew1, Ew2 = E[3, k], E[4, k], E[5, k]
        Kb[0, 6 + k] = col[0] + W1 * Et2 - W2 * Et1
        Kb[1, 6 + k] = col[1] + W2 * Et0 - W0 * Et2
        Kb[2, 6 + k] = col[2] + W0 * Et1 - W1 * Et0
        Kb[3, 6 + k] = col[3] + W1 * Ew2 - W2 * Ew1 + b1 * Et2 - b2 * Et1
        Kb[4, 6 + k] = col[4] + W2 * Ew0 - W0 * Ew2 + b2 * Et0 - b0 * Et2
        Kb[5, 6 + k] = col[5] + W0 * Ew1 - W1 * Ew0 + b0 * Et1 - b1 * Et0
        for m in range(N):
            # d(dT/deta_m)/deta_k = 1/2 W.J2s_mk W - v_b.(c2_mk x W)
            q = 0.0
            for i in range(3):
                for j in range(3):
                    q += 0.5 * z[3 + i] * J2s[m, k, i, j] * z[3 + j]
            d0, d1, d2 = c2[0, m, k], c2[1, m, k], c2[2, m, k]
            q -= b0 * (d1 * W2 - d2 * W1) + b1 * (d2 * W0 - d0 * W2) + b2 * (d0 * W1 - d1 * W0)
            Kb[6 + m, 6 + k] = col[6 + m] - q
    # translation rows: f_t = R g_t, so K_t = R Kb_t, and -R hat(g_t) on the rotations
    Hg = _hat(gt0, gt1, gt2)
    for c in range(n):
        t0, t1, t2 = Kb[0, c], Kb[1, c], Kb[2, c]
        for i in range(3):
            Kb[i, c] = R[i, 0] * t0 + R[i, 1] * t1 + R[i, 2] * t2
    for i in range(3):
        for j in range(3):
            s = 0.0
            for l in range(3):
                s -= R[i, l] * Hg[l, j]
            Kb[i, 3 + j] += s
    for r in range(n):
        for c in range(n):
            K[r, c] = Kb[r, c]


@njit(cache=True, aot="Tuple((f8[:], f8[:, :]))(f8[:, :], f8[:], f8[:], f8, f8[:], f8[:, :], "
      "f8[:, :, :], b1)")
def gravity(R, eta, g, m, c0, CtP, c2, tangent):  # pragma: no cover - jitted
    """Gravity's generalised force ``f (6 + N)`` from ``V = -m g.r - g.R c(eta)``, ``c(eta) =
    c0 + CtP eta + 1/2 c2 eta eta``, and its derivative ``dK = df/d(dr, Theta, eta)``
    (zero-sized when ``tangent`` is False)."""
    N = eta.shape[0]
    n = 6 + N
    gb = np.zeros(3)
    c = c0.copy()
    P = CtP.copy()                          # dc/deta
    for i in range(3):
        for j in range(3):
            gb[i] += R[j, i] * g[j]
        for k in range(N):
            s = 0.0
            for l in range(N):
                s += c2[i, k, l] * eta[l]
            P[i, k] += s
            c[i] += (CtP[i, k] + 0.5 * s) * eta[k]
    f = np.zeros(n)
    for i in range(3):
        f[i] = m * g[i]
    _cross(c, gb, f, 3)
    for k in range(N):
        f[6 + k] = P[0, k] * gb[0] + P[1, k] * gb[1] + P[2, k] * gb[2]
    nk = n if tangent else 0                # one return (see :func:`inertial`)
    dK = np.zeros((nk, nk))
    if not tangent:
        return f, dK
    hg = np.array([[0.0, -gb[2], gb[1]], [gb[2], 0.0, -gb[0]], [-gb[1], gb[0], 0.0]])
    hc = np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])
    # d gb / d Theta = hat(gb): f_W = c x gb, f_eta = CtP^T gb
    hchg = hc @ hg
    for i in range(3):
        for j in range(3):
            dK[3 + i, 3 + j] = hchg[i, j]
        for k in range(N):
            s = 0.0
            for j in range(3):
                s -= hg[i, j] * P[j, k]
            dK[3 + i, 6 + k] = s
    for k in range(N):
        for j in range(3):
            dK[6 + k, 3 + j] = P[0, k] * hg[0, j] + P[1, k] * hg[1, j] + P[2, k] * hg[2, j]
        for l in range(N):
            dK[6 + k, 6 + l] = c2[0, k, l] * gb[0] + c2[1, k, l] * gb[1] + c2[2, k, l] * gb[2]
    return f, dK


@njit(cache=True, aot="f8[:, :](f8[:, :], f8[:], f8, f8[:, :], f8[:, :, :], f8[:, :], f8[:, :], "
      "f8[:, :, :], f8[:, :, :, :], f8[:, :, :, :], f8[:, :], f8[:, :, :], f8[:, :], "
      "f8[:, :, :])")
def mass_matrix(R, eta, m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee,
                c2):  # pragma: no cover - jitted
    """The mass matrix ``S^T A(eta) S (n, n)`` on ``(r'', W', eta'')``, ``S = diag(R^T, I,
    I)`` (the body-frame translation velocity is ``R^T r'``)."""
    A, _, _ = _body_mass(eta, m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2)
    return _frame_mass(R, A)


@njit(cache=True)
def _frame_mass(R, A):  # pragma: no cover - jitted
    """``S^T A S`` (:func:`mass_matrix`) from A."""
    n = A.shape[0]
    M = A.copy()
    for i in range(3):
        for j in range(3, n):               # rows of r'': R A_t*; columns: A_*t R^T
            s = 0.0
            for k in range(3):
                s += R[i, k] * A[k, j]
            M[i, j] = s
            M[j, i] = s
        for j in range(3):
            s = 0.0
            for k in range(3):
                for l in range(3):
                    s += R[i, k] * A[k, l] * R[j, l]
            M[i, j] = s
    return M


@njit(cache=True)
def _take2(row, o, n0, n1):  # pragma: no cover - jitted
    """``row[o:o + n0 n1]`` as a new (n0, n1) array (C order; no reshape: the kernel subset)."""
    x = np.empty((n0, n1))
    for i in range(n0):
        for j in range(n1):
            x[i, j] = row[o + i * n1 + j]
    return x


@njit(cache=True)
def _take3(row, o, n0, n1, n2):  # pragma: no cover - jitted
    """``row[o:o + n0 n1 n2]`` as a new (n0, n1, n2) array (C order)."""
    x = np.empty((n0, n1, n2))
    for i in range(n0):
        for j in range(n1):
            for k in range(n2):
                x[i, j, k] = row[o + (i * n1 + j) * n2 + k]
    return x


@njit(cache=True)
def _take4(row, o, n0, n1, n2, n3):  # pragma: no cover - jitted
    """``row[o:o + n0 n1 n2 n3]`` as a new (n0, n1, n2, n3) array (C order)."""
    x = np.empty((n0, n1, n2, n3))
    for i in range(n0):
        for j in range(n1):
            for k in range(n2):
                for l in range(n3):
                    x[i, j, k, l] = row[o + ((i * n1 + j) * n2 + k) * n3 + l]
    return x


@njit(cache=True)
def _unflat(row, P):  # pragma: no cover - jitted
    """The invariants of one body from its row of ``md_f`` (:func:`step_into`), as arrays:
    ``m, c0, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2, K``."""
    m = row[0]
    c0 = row[1:4].copy()
    Ct0 = _take2(row, 4, 3, 3)
    J0 = _take2(row, 13, 3, 3)
    o = 22
    Ct = _take3(row, o, P, 3, 3)
    o += 9 * P
    CtP = _take2(row, o, 3, P)
    o += 3 * P
    J1s = _take3(row, o, P, 3, 3)
    o += 9 * P
    Cr0 = _take2(row, o, 3, P)
    o += 3 * P
    J2 = _take4(row, o, P, P, 3, 3)
    o += 9 * P * P
    J2s = _take4(row, o, P, P, 3, 3)
    o += 9 * P * P
    Cr = _take3(row, o, P, 3, P)
    o += 3 * P * P
    Mee = _take2(row, o, P, P)
    o += P * P
    c2 = _take3(row, o, 3, P, P)
    o += 3 * P * P
    K = _take2(row, o, P, P)
    return m, c0, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2, K


@njit(cache=True)
def step_into(R, q1, v1, qdd1, g, weighed, tangent, md_i, md_f, fidx, fin, fext, fint, Mt,
              Kt, Ct_out):  # pragma: no cover - jitted
    """Add the spatial modal bodies' inertial forces to ``fin``, their weights to ``fext``
    (with ``weighed``), their elastic forces ``K eta`` to ``fint`` (all ``(n_dof,)``) and,
    with ``tangent``, their mass matrices, inertial tangents, load stiffness (subtracted)
    and ``K`` to the free-DOF matrices ``Mt``, ``Kt``, ``Ct_out`` (``fidx``: the free index
    of a DOF, -1 fixed): what the System's Python path adds from the block's
    :meth:`~fembody.elements.modal.modal3d.SpatialModalBlock.mass_at`, ``inertial``,
    ``gravity`` and ``forces``, with the same kernels, at the configuration ``q1``, the
    velocities ``v1`` and accelerations ``qdd1``; ``R (nb, 3, 3)`` the reference nodes'
    rotations there, ``g (3,)`` gravity [m/s^2].

    Every body is padded to ``P`` modes (the most of any): ``md_i (nb, 3, 6 + P)`` holds per
    body its DOFs (-1 past its own ``6 + N``), the q indices of its amplitudes (``[b, 1,
    :P]``, -1 past ``N``) and ``[b, 2, 0]`` its reference node; ``md_f (nb, L)`` its
    invariants flat (:func:`_unflat`): ``m, c0 (3), Ct0 (9), J0 (9), Ct (9P), CtP (3P), J1s
    (9P), Cr0 (3P), J2 (9P^2), J2s (9P^2), Cr (3P^2), Mee (P^2), c2 (3P^2), K (P^2)``,
    zero in the padded modes (whose amplitudes, rates and accelerations are zero), so they
    add nothing to the body's own rows."""
    nb = md_i.shape[0]
    W = md_i.shape[2]
    P = W - 6
    for b in range(nb):
        if md_i[b, 2, 1] == 1:                  # a ModalPin's entry (pins_into)
            continue
        eta = np.zeros(P)
        v = np.zeros(W)
        a = np.zeros(W)
        for k in range(P):
            qk = md_i[b, 1, k]
            if qk >= 0:
                eta[k] = q1[qk]
        for j in range(W):
            d = md_i[b, 0, j]
            if d >= 0:
                v[j] = v1[d]
                a[j] = qdd1[d]
        m, c0, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2, K = _unflat(md_f[b], P)
        Rb = R[b]
        A0, G0, Cte = _body_mass(eta, m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2)
        f = np.zeros(W)
        _evaluate(Rb, v, a, A0, G0, Cte, Cr, c2, f)
        Kb = np.zeros((W, W))
        Cb = np.zeros((W, W))
        Mb = np.zeros((W, W))
        if tangent:
            _tangents(Rb, v, a, A0, G0, Cte, Cr, c2, J2s, Kb, Cb)
            Mb = _frame_mass(Rb, A0)
        fg = np.zeros(W)
        dK = np.zeros((W, W))               # a shape of variables: the build's typing
        if weighed:
            fg, dK = gravity(Rb, eta, g, m, c0, CtP, c2, tangent)
        for i in range(W):
            di = md_i[b, 0, i]
            if di < 0:
                continue
            fin[di] += f[i]
            if weighed:
                fext[di] += fg[i]
            if i >= 6:
                s = 0.0
                for l in range(P):
                    s += K[i - 6, l] * eta[l]
                fint[di] += s
            fi = fidx[di]
            if not tangent or fi < 0:
                continue
            for j in range(W):
                dj = md_i[b, 0, j]
                if dj < 0:
                    continue
                fj = fidx[dj]
                if fj < 0:
                    continue
                Mt[fi, fj] += Mb[i, j]
                Kt[fi, fj] += Kb[i, j]
                Ct_out[fi, fj] += Cb[i, j]
                if weighed:
                    Kt[fi, fj] -= dK[i, j]
                if i >= 6 and j >= 6:
                    Kt[fi, fj] += K[i - 6, j - 6]


@njit(cache=True)
def _cr(a, b):  # pragma: no cover - jitted
    """``a x b`` (3-vectors), a new array."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def pin_rows(R, Ro, xr, xo, eta, s, phi_t, psi, C, D, m, tangent):  # pragma: no cover
    """Rows of one ModalPin (:mod:`fembody.joints.modal.pin3d`) on the DOFs ``(x_o, Theta_o,
    r, Theta, eta)`` (``W = 12 + N``; material rotation increments): ``phi (m,)``, ``B (m,
    W)`` and, with ``tangent``, ``H (m, W, W)``, ``H[i, j, k] = dB_ij / d delta_k``.

    Position rows ``x_o - r - R u``, ``u = s + Phi_a eta``: ``B = [I, 0, -I, R hat(u), -R
    Phi_a]``. Rotation rows ``k = 0 .. m - 4``: ``(R_o c_k) . (R (d_k + psi x d_k))``, ``psi =
    Psi_a eta``: ``B = [0, -b^T R_o hat(c), 0, -a^T R hat(dd), -a^T R hat(d) Psi_a]`` with ``a =
    R_o c``, ``dd = d + psi x d``, ``b = R dd``. ``H`` by differentiating those columns along
    ``R_o <- R_o (I + hat(delta))``, ``R <- R (I + hat(delta))`` and eta (closed form; the
    Python block takes it by the complex step). ``xo``, ``Ro``: the node's pose (the fixed
    point and the identity for the ground; its columns are then absent)."""
    N = eta.shape[0]
    W = 12 + N
    phi = np.zeros(m)
    B = np.zeros((m, W))
    H = np.zeros((m if tangent else 0, W, W))
    E = np.eye(3)
    PT = np.ascontiguousarray(phi_t.T)      # mode columns as contiguous rows
    PS = np.ascontiguousarray(psi.T)
    u = s.copy()
    for i in range(3):
        for ll in range(N):
            u[i] += phi_t[i, ll] * eta[ll]
    Ru = R @ u
    for i in range(3):
        phi[i] = xo[i] - xr[i] - Ru[i]
        B[i, i] = 1.0
        B[i, 6 + i] = -1.0
    for j in range(3):
        col = R @ _cr(u, E[j])                                    # R hat(u) e_j
        for i in range(3):
            B[i, 9 + j] = col[i]
    for ll in range(N):
        col = R @ PT[ll]
        for i in range(3):
            B[i, 12 + ll] = -col[i]
    if tangent:
        for j in range(3):
            for k in range(3):
                col = R @ _cr(E[k], _cr(u, E[j]))
                for i in range(3):
                    H[i, 9 + j, 9 + k] = col[i]
            for ll in range(N):
                col = R @ _cr(PT[ll], E[j])
                for i in range(3):
                    H[i, 9 + j, 12 + ll] = col[i]
        for ll in range(N):
            for k in range(3):
                col = R @ _cr(E[k], PT[ll])
                for i in range(3):
                    H[i, 12 + ll, 9 + k] = -col[i]
    ps = np.zeros(3)
    for i in range(3):
        for ll in range(N):
            ps[i] += psi[i, ll] * eta[ll]
    for k in range(m - 3):
        row = 3 + k
        c = C[k].copy()
        d = D[k].copy()
        a = Ro @ c
        dd = d + _cr(ps, d)
        b = R @ dd
        phi[row] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
        g = np.zeros((3, 3))            # g[j] = R_o (c x e_j)
        h = np.zeros((3, 3))            # h[j] = R (dd x e_j)
        for j in range(3):
            g[j] = Ro @ _cr(c, E[j])
            h[j] = R @ _cr(dd, E[j])
            B[row, 3 + j] = -(b[0] * g[j, 0] + b[1] * g[j, 1] + b[2] * g[j, 2])
            B[row, 9 + j] = -(a[0] * h[j, 0] + a[1] * h[j, 1] + a[2] * h[j, 2])
        dps = np.zeros((N, 3))          # R (d x Psi_l)
        pd = np.zeros((N, 3))           # Psi_l x d
        for ll in range(N):
            dps[ll] = R @ _cr(d, PS[ll])
            pd[ll] = _cr(PS[ll], d)
            B[row, 12 + ll] = -(a[0] * dps[ll, 0] + a[1] * dps[ll, 1] + a[2] * dps[ll, 2])
        if not tangent:
            continue
        for k2 in range(3):
            da = Ro @ _cr(E[k2], c)                                   # a along Theta_o k2
            db = R @ _cr(E[k2], dd)                                   # b along Theta k2
            for j in range(3):
                x = Ro @ _cr(E[k2], _cr(c, E[j]))
                H[row, 3 + j, 3 + k2] = -(b[0] * x[0] + b[1] * x[1] + b[2] * x[2])
                H[row, 3 + j, 9 + k2] = -(db[0] * g[j, 0] + db[1] * g[j, 1] + db[2] * g[j, 2])
                H[row, 9 + j, 3 + k2] = -(da[0] * h[j, 0] + da[1] * h[j, 1] + da[2] * h[j, 2])
                y = R @ _cr(E[k2], _cr(dd, E[j]))
                H[row, 9 + j, 9 + k2] = -(a[0] * y[0] + a[1] * y[1] + a[2] * y[2])
            for ll in range(N):
                H[row, 12 + ll, 3 + k2] = -(da[0] * dps[ll, 0] + da[1] * dps[ll, 1]
                                            + da[2] * dps[ll, 2])
                z = R @ _cr(E[k2], _cr(d, PS[ll]))
                H[row, 12 + ll, 9 + k2] = -(a[0] * z[0] + a[1] * z[1] + a[2] * z[2])
        for ll in range(N):
            bl = R @ pd[ll]                                           # b along eta_l
            for j in range(3):
                H[row, 3 + j, 12 + ll] = -(bl[0] * g[j, 0] + bl[1] * g[j, 1] + bl[2] * g[j, 2])
                w = R @ _cr(pd[ll], E[j])
                H[row, 9 + j, 12 + ll] = -(a[0] * w[0] + a[1] * w[1] + a[2] * w[2])
    return phi, B, H


@njit(cache=True)
def pins_into(xr, Rr, xo, Ro, q1, md_i, md_f, lam1, tangent, fidx, nf, phi, fc, A,
              Kt):  # pragma: no cover - jitted
    """The ModalPins packed among the modal bodies' arrays (entries with ``md_i[b, 2, 1] ==
    1``; :func:`fembody.dynamics.compiled_step._modal_arrays`) into one evaluation of the
    compiled step: their rows ``phi``, ``B^T lam`` into ``fc`` and, with ``tangent``, B into
    the bordered ``A`` (rows ``nf + row``) and ``sum_i lam_i H_i`` into ``Kt``, as the joint
    blocks' loop of :func:`fembody.dynamics._step_kernels._evaluate` adds them. ``xr, Rr``,
    ``xo, Ro``: the reference nodes' and the pinned nodes' poses per entry.

    Layout of a pin entry: ``md_i[b, 0, :6]`` the node's DOFs (-1 absent), ``[b, 0, 6:6 +
    N]`` the amplitudes' DOFs; ``[b, 1, :6]`` the reference node's DOFs, ``[b, 1, 6:6 + N]``
    the amplitudes' q indices; ``[b, 2, 0]`` the reference node, ``[b, 2, 1] = 1``, ``[b, 2,
    2:2 + m]`` the rows; ``[b, 3, :3]`` the node (-1: the ground), ``m``, ``N``. ``md_f[b]``:
    ``X_o (3)`` (the ground point), ``s_a (3)``, ``Phi_a (3 P)``, ``Psi_a (3 P)`` (row-major
    (3, P)), ``C (9)``, ``D (9)``."""
    W0 = md_i.shape[2]
    P = W0 - 6
    for b in range(md_i.shape[0]):
        if md_i[b, 2, 1] != 1:
            continue
        m = md_i[b, 3, 1]
        N = md_i[b, 3, 2]
        ground = md_i[b, 3, 0] < 0
        f = md_f[b]
        eta = np.zeros(N)
        for k in range(N):
            eta[k] = q1[md_i[b, 1, 6 + k]]
        s = f[3:6].copy()
        phi_t = np.zeros((3, N))
        psi = np.zeros((3, N))
        for i in range(3):
            for k in range(N):
                phi_t[i, k] = f[6 + i * P + k]
                psi[i, k] = f[6 + 3 * P + i * P + k]
        o = 6 + 6 * P
        C = f[o:o + 9].copy().reshape(3, 3)
        D = f[o + 9:o + 18].copy().reshape(3, 3)
        if ground:
            x0 = f[0:3].copy()
            R0 = np.eye(3)
        else:
            x0 = xo[b].copy()
            R0 = Ro[b].copy()
        ph, Bm, Hm = pin_rows(Rr[b].copy(), R0, xr[b].copy(), x0, eta, s, phi_t, psi, C, D,
                              m, tangent)
        W = 12 + N
        dofs = np.empty(W, dtype=np.int64)
        for j in range(6):
            dofs[j] = md_i[b, 0, j]
            dofs[6 + j] = md_i[b, 1, j]
        for k in range(N):
            dofs[12 + k] = md_i[b, 0, 6 + k]
        for i in range(m):
            row = md_i[b, 2, 2 + i]
            phi[row] = ph[i]
            li = lam1[row]
            for j in range(W):
                dj = dofs[j]
                if dj < 0:
                    continue
                fc[dj] += Bm[i, j] * li
                fj = fidx[dj]
                if not tangent or fj < 0:
                    continue
                A[nf + row, fj] += Bm[i, j]
                A[fj, nf + row] += Bm[i, j]
                for l2 in range(W):
                    dl = dofs[l2]
                    if dl < 0:
                        continue
                    fl = fidx[dl]
                    if fl >= 0:
                        Kt[fj, fl] += li * Hm[i, j, l2]
