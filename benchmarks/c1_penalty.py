"""Study prototype (issue 33, rattle-33), outside the product: the line part of the spatial
beam-to-beam penalty with the quadratically regularised law of Meier, Popp and Wall (line
contact of beams, CMAME 2016/2017) in place of ``k/2 max(-g, 0)^2``. Per unit length
(``e`` the penalty per length, ``g0 > 0`` the band), the compressive force is

    p(g) = e (g0 / 2 - g)            g <= 0
    p(g) = e / (2 g0) (g0 - g)^2     0 <= g < g0
    p(g) = 0                         g >= g0,

C1 at 0 and g0 (p and dp/dg continuous); its energy density is ``phi(g) = int_g^g0 p``,
``phi' = -p``, ``phi'' = e`` below 0, ``e (g0 - g) / g0`` in the band. (At rest the same
load is carried at a gap ``g0 / 2`` larger than with the plain law; a stack started at zero gap
starts pre-loaded by ``e g0 / 2`` per length: the bundle's ``e = k / l_A`` is 1e8 N/m^2, so a band
of micrometres pushes its beams apart with hundreds of N/m, against a weight of 6 N/m.)

:func:`install` reads the source of :mod:`fembody.contact._kernels`, rewrites the line
Gauss points' law in ``crossing_forces`` (energy, force, the exact tangent, and the moving
point terms of clipped pairs: ``h = phi(g)``, ``h_X = phi' g_X``, ``h_XX = phi'' g_X g_X^T +
phi' g_XX``), widens the pairs' gap test (``GAP_MARGIN``) to cover the band, executes it as
a new module (no compiled extension: numba compiles it on first call) and points
:mod:`fembody.contact.beams` at it. The point part, the node rows and the friction points
keep the plain law (the bundle is in pure line contact: the point part has weight 0).
"""
from __future__ import annotations

import importlib.util
import inspect
import sys

import fembody.contact._kernels as K
import fembody.contact.beams as beams

_SUBS = [
    # the line points' test: touching below g0; no tangent band (the law is C1)
    ("lon[g_] = inz and gg < 0.0\n",
     "lon[g_] = inz and gg < _G0\n"),
    ("lband[g_] = tangent and inz and gg >= 0.0 and gg < bnd\n",
     "lband[g_] = False\n"),
    ("                wk = (_W_T[g_] * L) * (length[q] * k_line[q])\n"
     "                Wl += 0.5 * wk * gg * gg\n"
     "                if not clip:\n"
     "                    for i in range(md):\n"
     "                        fl[i] += wk * gg * GL[g_, i]\n",
     "                wk = (_W_T[g_] * L) * (length[q] * k_line[q])\n"
     "                p0, p1, p2 = _law(gg)\n"
     "                Wl += wk * p0\n"
     "                if not clip:\n"
     "                    for i in range(md):\n"
     "                        fl[i] += wk * p1 * GL[g_, i]\n"),
    ("                hsum += 0.5 * kw * gg * gg\n"
     "                for i in range(md):\n"
     "                    xg = (1.0 - _XI_T[g_]) * gLo[i] + _XI_T[g_] * gHi[i]\n"
     "                    Fs[i] += kw * gg * (GL[g_, i] + Dx * xg)\n",
     "                hsum += kw * p0\n"
     "                for i in range(md):\n"
     "                    xg = (1.0 - _XI_T[g_]) * gLo[i] + _XI_T[g_] * gHi[i]\n"
     "                    Fs[i] += kw * p1 * (GL[g_, i] + Dx * xg)\n"),
    ("                    Hg = HL[g_]\n"
     "                    for i in range(md):\n"
     "                        for j in range(md):\n"
     "                            Kq[i, j] += wk * (Gg[i] * Gg[j] + gg * Hg[i, j])\n",
     "                    Hg = HL[g_]\n"
     "                    p0, p1, p2 = _law(gg)\n"
     "                    for i in range(md):\n"
     "                        for j in range(md):\n"
     "                            Kq[i, j] += wk * (p2 * Gg[i] * Gg[j] + p1 * Hg[i, j])\n"),
    ("                        hx_i = Dx * Gg[i] + gg * GXI[g_, i]\n",
     "                        hx_i = p2 * Dx * Gg[i] + p1 * GXI[g_, i]\n"),
    ("                            hx_j = Dx * Gg[j] + gg * GXI[g_, j]\n",
     "                            hx_j = p2 * Dx * Gg[j] + p1 * GXI[g_, j]\n"),
    ("                                              + (Dx * Dx + gg * DXX[g_]) * gxg[i] * gxg[j]\n"
     "                                              + gg * Dx * ((1.0 - xg_) * hLo[i, j]\n",
     "                                              + (p2 * Dx * Dx + p1 * DXX[g_]) * gxg[i] * gxg[j]\n"
     "                                              + p1 * Dx * ((1.0 - xg_) * hLo[i, j]\n"),
]

_LAW = '''

@njit(cache=False)
def _law(g):  # pragma: no cover - jitted
    """phi(g) / e, phi'(g) / e, phi''(g) / e of the regularised law (band _G0)."""
    if g >= _G0:
        return 0.0, 0.0, 0.0
    if g >= 0.0:
        u = _G0 - g
        return u * u * u / (6.0 * _G0), -u * u / (2.0 * _G0), u / _G0
    return (_G0 * _G0 / 6.0 - 0.5 * _G0 * g + 0.5 * g * g, g - 0.5 * _G0, 1.0)
'''


def source(g0: float, rad: float = 0.01) -> str:
    """The rewritten kernel module's source, band ``g0`` [m] (``rad`` the smallest radii sum
    [m], to widen the gap test); ``g0 = 0``: the plain law, unchanged but for numba compiling
    it (the CPU reference of a JIT law)."""
    src = inspect.getsource(K)
    if g0 == 0.0:
        return src.replace("cache=True", "cache=False")
    for old, new in _SUBS:
        if src.count(old) != 1:
            raise RuntimeError(f"c1_penalty: the kernel source changed, {old[:60]!r} found "
                               f"{src.count(old)} times")
        src = src.replace(old, new)
    src = src.replace("GAP_MARGIN = 1e-6\n",
                      f"GAP_MARGIN = {max(1e-6, 1.5 * g0 / rad)!r}\n_G0 = {g0!r}\n", 1)
    src = src.replace("cache=True", "cache=False")
    head, sep, tail = src.partition("\n@njit(cache=False)\ndef _distance")
    return head + _LAW + sep + tail


def install(g0: float) -> None:
    """Points :mod:`fembody.contact.beams` at the rewritten ``crossing_forces`` (band ``g0``
    [m])."""
    name = "fembody.contact._kernels_c1"
    spec = importlib.util.spec_from_loader(name, loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "fembody.contact"
    sys.modules[name] = mod
    exec(compile(source(g0), f"<{name}>", "exec"), mod.__dict__)
    beams.crossing_forces = mod.crossing_forces
