"""Coulomb friction in models (fembody.contact.friction.coulomb in the surface contact blocks):
the consistent tangent against finite differences in stick and slip on every surface, a block
sliding to rest (stopping distance v0^2 / (2 mu_k g)), a cantilever tip pressed on a plane and
pulled sideways (sticks up to mu_s N, slips at mu_k N), the capstan (T2 / T1 = exp(mu theta)),
the energy balance with the friction dissipation, checkpoints, and the refusal of bad
coefficients."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody.contact.friction import History
from fembody.contact.surfaces import SurfaceContactBlock, _geometry
from fembody.errors import ModelError

from .test_surfaces import SURFACES_2D, SURFACES_3D, _near


def _block(surface, d, kind, n, rng, slip, mu_s=0.4, mu_k=0.3):
    """A frictional block of ``n`` items near ``surface``, pressed in, with anchors offset
    along the surface so that every touching point sticks (``slip`` False: a quarter of the
    limit) or slips (three times the limit)."""
    m = 2 if kind == "element" else 1
    centre = _near(surface, rng, n, d, spread=0.0)
    o, P, R, plane, half = _geometry(surface, d)
    # the sample points lie on the surface, then go in by 1e-3 (a node) along the normal
    ref = np.repeat(centre[:, None], m, axis=1)
    if m == 2:
        t = rng.normal(size=(n, d))
        ref[:, 0] -= 1e-4 * t
        ref[:, 1] += 1e-4 * t
    X = ref
    k, kt = 1e5, 4e4
    blk = SurfaceContactBlock(
        kind, np.arange(n * m).reshape(n, m), np.arange(n * m * d).reshape(n, m * d), X,
        np.tile(o, (n, 1)), np.tile(P, (n, 1, 1)), np.full(n, R), np.full(n, plane),
        np.zeros(n), np.full(n, k), [f"item {i}" for i in range(n)], np.tile(half, (n, 1)),
        friction=(np.full(n, mu_s), np.full(n, mu_k), np.full(n, kt)))
    g, ok, G, _ = blk.gaps(np.zeros((n, m * d)))
    # press each item in by 1 mm along the mean normal of its points
    nrm = G.mean(axis=1)
    x = np.repeat(-1e-3 * nrm[:, None], m, axis=1).reshape(n, m * d)
    g, ok, G, _ = blk.gaps(x)
    assert np.all(g < 0.0) and np.all(ok)
    pts = blk.points(x)
    Gp = G.reshape(-1, d)
    N = -(k * np.repeat(blk.w[None], n, axis=0) * g).ravel()
    kts = blk.kt
    dirs = rng.normal(size=pts.shape)
    dirs -= np.einsum("pi,pi->p", dirs, Gp)[:, None] * Gp
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    size = (3.0 if slip else 0.25) * mu_s * N / kts
    anchor = pts - size[:, None] * dirs
    sliding = rng.random(len(pts)) < 0.5
    return blk, x, History(anchor, sliding, np.zeros(len(pts)))


@pytest.mark.parametrize("slip", [False, True])
@pytest.mark.parametrize("kind", ["node", "element"])
@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("name", ["plane", "sphere", "cylinder", "box"])
def test_friction_tangent_matches_finite_differences(name, d, kind, slip):
    """K = df/dx of the normal penalty plus the return mapping, against central differences
    (step 1e-8 m on displacements of 1e-3 m: truncation and round-off both below 1e-7
    relative), in stick and in slip, on flat and curved surfaces."""
    surface = (SURFACES_3D if d == 3 else SURFACES_2D)[name]
    rng = np.random.default_rng(11)
    blk, x, hist = _block(surface, d, kind, 6, rng, slip)
    f, K, _ = blk.forces(x, None, True, hist)
    c = blk._coulomb(x, hist, False)[4]
    assert np.all(c.slipping == slip)
    h = 1e-8
    Kfd = np.zeros_like(K)
    for j in range(x.shape[1]):
        e = np.zeros_like(x)
        e[:, j] = h
        Kfd[:, :, j] = (blk.forces(x + e, None, False, hist)[0]
                        - blk.forces(x - e, None, False, hist)[0]) / (2 * h)
    assert np.abs(K - Kfd).max() / np.abs(K).max() < 1e-6
    # slip: each point's tangential force is mu_k N (sliding or breaking away)
    if slip:
        N = -(blk._active(x, False)[1] * blk._active(x, False)[0]).ravel()
        np.testing.assert_allclose(np.linalg.norm(c.f, axis=1), 0.3 * N, rtol=1e-12)
