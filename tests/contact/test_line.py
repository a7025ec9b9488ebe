"""Line contact of near-parallel beams and its switch with point contact
(fembody.contact.line): exact derivatives of the blended energy, and the line part against a
uniform penetration."""
import numpy as np
import pytest

from fembody.contact import line

from .reference import blended, clipped


def _pairs(rng, angle_deg, n=8, depth=0.002):
    """Pairs of unit chords at ``angle_deg`` to each other, B 0.01 - depth above A (radius sum
    0.01: penetration ``depth`` at the crossing) and shifted so that both overlap."""
    a0 = rng.normal(size=(n, 3)) * 0.1
    u = rng.normal(size=(n, 3))
    u /= np.linalg.norm(u, axis=1)[:, None]
    w = np.cross(u, rng.normal(size=(n, 3)))
    w /= np.linalg.norm(w, axis=1)[:, None]
    v = np.cross(w, u)                                     # (u, v, w) orthonormal
    ang = np.deg2rad(angle_deg) * rng.uniform(0.9, 1.1, n)
    db = np.cos(ang)[:, None] * u + np.sin(ang)[:, None] * v
    mid = a0 + 0.5 * u + (0.01 - depth) * w
    b0 = mid - 0.45 * db
    return np.stack([a0, a0 + u, b0, b0 + db], axis=1)


def _fd_check(x, fun):
    n, m, d = x.shape
    W, f, K = fun(x, True)
    h = 1e-7
    ffd, Kfd = np.zeros_like(f), np.zeros_like(K)
    for j in range(m * d):
        e = np.zeros(m * d)
        e[j] = h
        Wp, fp, _ = fun(x + e.reshape(m, d), False)
        Wm, fm, _ = fun(x - e.reshape(m, d), False)
        ffd[:, j] = (Wp - Wm) / (2 * h)
        Kfd[:, :, j] = (fp - fm) / (2 * h)
    return f, ffd, K, Kfd


@pytest.mark.parametrize("angle", [2.0, 7.5, 30.0])       # line, blend, point
def test_blended_force_is_the_energy_gradient_and_tangent_exact(angle):
    rng = np.random.default_rng(11)
    x = _pairs(rng, angle)
    n = len(x)
    one = np.ones(n)

    def fun(y, tangent):
        return blended(y, 1e4 * one, 1e4 * one, one, 0.01 * one, tangent)

    lam = line.switch(x, False)[0]
    if angle == 7.5:
        assert np.all((lam > 0.01) & (lam < 0.99))
    else:
        assert np.all(lam == (1.0 if angle < 5 else 0.0))
    f, ffd, K, Kfd = _fd_check(x, fun)
    assert np.abs(f).max() > 0.0
    assert np.abs(f - ffd).max() / np.abs(f).max() < 1e-6
    assert np.abs(K - Kfd).max() / np.abs(K).max() < 1e-6
    assert np.abs(K - K.transpose(0, 2, 1)).max() < 1e-8 * np.abs(K).max()


@pytest.mark.parametrize("angle", [2.0, 7.5])                  # line, blend
@pytest.mark.parametrize("ends", [(1, 1), (1, 0), (0, 1)])
def test_clipped_line_contact_force_and_tangent_are_exact(angle, ends):
    """Line contact clipped at B's free ends (B's projection covers A's parameter from about
    0.05 to 1.05, so the free end b0's bound is inside A; reversed for ``(0, 1)``): the
    Gauss points move with the bounds, whose first and second derivatives enter force and
    tangent. Force against central differences of the energy, tangent against those of the
    force (relative 1e-6, the step's truncation), and the tangent symmetric. Without the
    bounds' derivatives (the points clipped, the bounds held) it fails: measured 0.6-1.1 %
    in the force and 1.5 % in the tangent."""
    rng = np.random.default_rng(17)
    x = _pairs(rng, angle)
    if ends == (0, 1):
        x = x[:, [0, 1, 3, 2]]              # B's end inside A's span is now b1
    n = len(x)
    one = np.ones(n)
    free = np.tile(np.array(ends), (n, 1))

    def fun(y, tangent):
        return blended(y, 1e4 * one, 1e4 * one, one, 0.01 * one, tangent, free)

    lo, L, clip = clipped(x, free)[:3]
    assert clip.all() and np.all((L > 0.85) & (L < 0.97))
    f, ffd, K, Kfd = _fd_check(x, fun)
    assert np.abs(f).max() > 0.0
    assert np.abs(f - ffd).max() / np.abs(f).max() < 1e-6
    assert np.abs(K - Kfd).max() / np.abs(K).max() < 1e-6
    assert np.abs(K - K.transpose(0, 2, 1)).max() < 1e-8 * np.abs(K).max()


def test_clipped_line_contact_is_the_integral_over_the_overlap():
    """B parallel to A, 1 mm into it (radius sum 0.01), shifted along A by 0.3 of A's
    length, B's end inside A free: the energy is ``l k_line delta^2 / 2`` times the overlap
    0.7 exactly (the Gauss points spread over the overlap), the normal force ``k_line l
    delta 0.7``, and the tangential force along A ``dW / ds`` = ``l k_line delta^2 / 2``
    per unit of A's parameter on the moving bound (``W = (1 - s / l) l k_line delta^2 /
    2``, ``s`` B's shift). Unclipped (before), the Gauss points of A inside B's chord carry
    their full weights: 0.64 of the whole, 0.92 of the overlap's (the test fails)."""
    a = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    b = a + [0.3, 0.0, 0.009]
    x = np.concatenate([a, b])[None]
    kl, l, delta = 3e4, 1.0, 1e-3
    free = np.array([[1, 1]])
    W, f, _ = blended(x, np.array([1e9]), np.array([kl]), np.array([l]), np.array([0.01]),
                      True, free)
    np.testing.assert_allclose(W, 0.7 * 0.5 * l * kl * delta ** 2, rtol=1e-12)
    fz = -f.reshape(4, 3)[:, 2]
    np.testing.assert_allclose(fz[:2].sum(), -0.7 * kl * l * delta, rtol=1e-12)
    # moving B by ds along x shortens the overlap by ds: dW/dx_B = -l k_line delta^2 / 2 / l
    np.testing.assert_allclose(f.reshape(4, 3)[2:, 0].sum(), -0.5 * kl * delta ** 2,
                               rtol=1e-9)


def test_switch_derivatives_match_finite_differences():
    rng = np.random.default_rng(12)
    x = _pairs(rng, 7.5)
    lam, G, H = line.switch(x)
    h = 1e-7
    for j in range(12):
        e = np.zeros(12)
        e[j] = h
        lp, Gp, _ = line.switch(x + e.reshape(4, 3))
        lm, Gm, _ = line.switch(x - e.reshape(4, 3))
        np.testing.assert_allclose(G[:, j], (lp - lm) / (2 * h), atol=1e-6 * np.abs(G).max())
        np.testing.assert_allclose(H[:, :, j], (Gp - Gm) / (2 * h), atol=1e-6 * np.abs(H).max())


def test_parallel_chords_with_uniform_penetration():
    """B exactly parallel to A and 1 mm into it along their common length: every Gauss point
    penetrates 1 mm, so W_line = l k_line delta^2 / 2 and the total normal force k_line l
    delta (point contact alone has no closest point here: zero)."""
    a = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    b = a + [0.0, 0.0, 0.009]                              # radius sum 0.01: delta 1 mm
    x = np.concatenate([a, b])[None]
    kl, l, delta = 3e4, 1.0, 1e-3
    W, f, K = blended(x, np.array([1e9]), np.array([kl]), np.array([l]), np.array([0.01]))
    assert line.switch(x, False)[0][0] == 1.0
    np.testing.assert_allclose(W, 0.5 * l * kl * delta ** 2, rtol=1e-12)
    fz = -f.reshape(4, 3)[:, 2]                            # the forces acting on the nodes
    np.testing.assert_allclose(fz[:2].sum(), -kl * l * delta, rtol=1e-12)   # A pushed down
    np.testing.assert_allclose(fz[2:].sum(), kl * l * delta, rtol=1e-12)    # B pushed up
    np.testing.assert_allclose(fz[:2], -0.5 * kl * l * delta, rtol=1e-12)   # evenly
    assert not line.point_part(x, np.array([1e9]), np.array([0.01]))[1].any()


def test_a_beam_lying_on_another_sinks_by_load_over_line_stiffness():
    """B (10 elements) parallel on a fixed A, only B's z free, a uniform load q [N/m] as
    consistent nodal forces: B sinks uniformly by q / k_line with k_line = k / l_e, the
    contact force equals the load (point contact alone would let B fall through)."""
    import fembody as fb
    r, k, q, n = 0.005, 1e6, 50.0, 10
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    sec = fb.Section.circle(2 * r)
    m = fb.Model(dim=3)
    A = m.add_beam((0, 0, 0), (1.0, 0, 0), n=n, material=steel, section=sec)
    B = m.add_beam((0, 0, 2 * r), (1.0, 0, 2 * r), n=n, material=steel, section=sec)
    for node in A.nodes:
        m.fix(node, "x", "y", "z", "rx", "ry", "rz")
    le = 1.0 / n
    for i, node in enumerate(B.nodes):
        m.fix(node, "x", "y", "rx", "ry", "rz")
        m.add_force(node, (0.0, 0.0, -q * le * (0.5 if i in (0, n) else 1.0)))
    m.add_beam_contact(A, B, radius=r, stiffness=k)
    res = fb.static(m, steps=1)
    uz = np.array([res.displacement(nd)[-1][2] for nd in B.nodes])
    np.testing.assert_allclose(uz, -q * le / k, rtol=1e-8)
    F = res.resultants("beam contact")[-1]
    np.testing.assert_allclose(F[:, 0].sum(), q * 1.0, rtol=1e-8)
    np.testing.assert_allclose(F[F[:, 0] > 0, 1], -q * le / k, rtol=1e-6)
