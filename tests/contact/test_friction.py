"""Coulomb friction at a point against a rigid plane (fembody.contact.friction): the return
mapping's stick and slip against the analytic pull test, the dissipation in the energy balance,
and the consistent tangent against finite differences."""
import numpy as np
import pytest

from fembody.contact.friction import plane_friction

MU, KN, KT, KS, PN = 0.3, 1e6, 2e4, 5e3, 10.0


def _pull(phi, steps):
    """A point pressed by PN [N] on the plane z = 0, pulled along t = (cos phi, sin phi, 0)
    by a spring ks [N/m] whose far end moves from 0 to U; quasi-static, Newton per step."""
    n = np.array([[0.0, 0.0, 1.0]])
    t = np.array([np.cos(phi), np.sin(phi), 0.0])
    P = np.eye(3) - n.T @ n
    x = -PN / KN * n                                     # pressed in: N = PN
    anchor = np.zeros((1, 3))
    args = (np.zeros((1, 3)), n, None, np.array([KN]), np.array([KT]), np.array([MU]))
    U = 3.0 * MU * PN * (KS + KT) / (KS * KT)            # three times the slip start
    out = []
    D = 0.0
    for up in np.linspace(0.0, U, steps + 1)[1:]:
        for it in range(30):
            f, K, st = plane_friction(x, args[0], n, anchor, *args[3:])
            fext = -PN * n[0] + KS * (up * t - P @ x[0])
            r = fext - f[0]
            if np.linalg.norm(r) < 1e-10 * PN:
                break
            x = x + np.linalg.solve(K[0] + KS * P, r)[None]
        else:
            raise AssertionError("Newton did not converge")
        anchor = st.anchor
        D += st.dissipated[0]
        F = KS * (up - t @ x[0])                          # the pulling force
        stored = (0.5 * KS * np.sum((up * t - P @ x[0]) ** 2)       # pulling spring
                  + 0.5 * np.sum(st.T[0] ** 2) / KT                 # tangential penalty
                  + 0.5 * KN * (x[0] @ n[0]) ** 2)                  # normal penalty
        out.append((up, F, t @ x[0], st.N[0], bool(st.slipping[0]), D, stored, x[0].copy()))
    return out


@pytest.mark.parametrize("phi", [0.0, 0.7])
@pytest.mark.parametrize("steps", [7, 40])
def test_pull_sticks_until_mu_n_then_slips_with_the_dissipation_in_the_balance(phi, steps):
    c = KS * KT / (KS + KT)                               # spring and tangential penalty in series
    u_star = MU * PN / c                                  # where the pull reaches mu N
    for up, F, xt, N, slipping, D, stored, x in _pull(phi, steps):
        assert abs(N - PN) < 1e-9 * PN
        assert slipping == (up > u_star * (1 + 1e-12))
        F_ref = min(c * up, MU * PN)
        assert abs(F - F_ref) < 1e-9 * PN, (up, F, F_ref)
        xt_ref = KS * up / (KS + KT) if up <= u_star else up - MU * PN / KS
        assert abs(xt - xt_ref) < 1e-9 * u_star
        # the point moves along the pull only (no drift across it)
        assert abs(np.cos(phi) * x[1] - np.sin(phi) * x[0]) < 1e-12
        # work of the puller = stored (spring, tangential and normal penalties) + dissipated
        W = 0.5 * c * min(up, u_star) ** 2 + MU * PN * max(up - u_star, 0.0)
        D_ref = MU * PN * max(up - u_star, 0.0)
        assert abs(D - D_ref) < 1e-9 * MU * PN * u_star
        W_normal = 0.5 * PN ** 2 / KN           # the press's work into the normal penalty
        assert abs(W + W_normal - stored - D) < 1e-9 * MU * PN * u_star


def _states(rng, n, slip):
    x = rng.normal(size=(n, 3)) * 0.01
    normal = rng.normal(size=(n, 3))
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    point = x + 1e-3 * normal                              # 1 mm penetration: N = 1000 N
    P = np.eye(3)[None] - normal[:, :, None] * normal[:, None, :]
    dirs = np.einsum("nij,nj->ni", P, rng.normal(size=(n, 3)))
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    # elastic slip of 0.5x (stick) or 3x (slip) the sliding limit mu N / kt
    size = (3.0 if slip else 0.5) * MU * KN * 1e-3 / KT
    xp = x - np.einsum("ni,ni->n", normal, x - point)[:, None] * normal
    anchor = xp - size * dirs
    ones = np.ones(n)
    return x, point, normal, anchor, KN * ones, KT * ones, MU * ones


@pytest.mark.parametrize("slip", [False, True])
def test_tangent_matches_finite_differences(slip):
    rng = np.random.default_rng(4)
    x, point, normal, anchor, kn, kt, mu = _states(rng, 12, slip)
    f, K, st = plane_friction(x, point, normal, anchor, kn, kt, mu)
    assert np.all(st.slipping == slip) and np.all(st.N > 0)
    h = 1e-8
    Kfd = np.zeros_like(K)
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        fp = plane_friction(x + e, point, normal, anchor, kn, kt, mu, False)[0]
        fm = plane_friction(x - e, point, normal, anchor, kn, kt, mu, False)[0]
        Kfd[:, :, j] = (fp - fm) / (2 * h)
    assert np.abs(K - Kfd).max() / np.abs(K).max() < 1e-6
    # slip: the tangential force is mu N, opposed to the elastic slip
    T = np.linalg.norm(st.T, axis=1)
    if slip:
        np.testing.assert_allclose(T, MU * st.N, rtol=1e-12)
    else:
        assert np.all(T < MU * st.N)


def test_open_contact_has_no_force_and_its_anchor_follows():
    rng = np.random.default_rng(6)
    x, point, normal, anchor, kn, kt, mu = _states(rng, 5, True)
    lifted = x + 2e-3 * normal                             # 1 mm above the plane
    f, K, st = plane_friction(lifted, point, normal, anchor, kn, kt, mu)
    assert not f.any() and not K.any() and not st.dissipated.any()
    proj = lifted - np.einsum("ni,ni->n", normal, lifted - point)[:, None] * normal
    np.testing.assert_allclose(st.anchor, proj, atol=1e-15)


def test_history_work_over_the_live_rows_is_the_sum_over_every_row():
    """:meth:`History.work` computes the trapezoidal work of the friction forces on the rows
    that carry a force at the step's start or end alone: random forces on rows that carried
    at the start only, at the end only, at both and neither, among 2000 rows of 15
    displacements moving by 1e-6 m; the sum over every row, ``(F_0 + F_1) . (x_1 - x_0) /
    2``, bit for bit; not when only half the end's live rows are given (the rule needs
    them all)."""
    from fembody.contact.friction import History
    rng = np.random.default_rng(3)
    n, k = 2000, 15
    x0, x1 = rng.normal(size=(n, k)), rng.normal(size=(n, k))
    x1 = x0 + 1e-6 * x1
    F0, F1 = np.zeros((n, k)), np.zeros((n, k))
    start, end = rng.choice(n, 40, replace=False), rng.choice(n, 40, replace=False)
    F0[start] = rng.normal(size=(40, k))
    F1[end] = rng.normal(size=(40, k))
    h = History(np.zeros((n, 3)), np.ones(n, bool), np.zeros(n), x0, F0, np.zeros(n))
    full = 0.5 * float(np.sum((F1 + F0) * (x1 - x0)))
    assert len(set(start) & set(end)) < 40 and full != 0.0
    assert h.work(F1, x1, np.sort(end)) == full
    assert h.work(F1, x1, np.sort(end)[:20]) != full
    # no live row at the end: the start's forces still count (not the idle shortcut), and
    # with none at the start either the work is the zero sum
    none = np.zeros(0, dtype=np.int64)
    assert h.work(np.zeros((n, k)), x1, none) == 0.5 * float(np.sum(F0 * (x1 - x0))) != 0.0
    idle = History(np.zeros((n, 3)), np.ones(n, bool), np.zeros(n), x0, np.zeros((n, k)),
                   np.zeros(n))
    assert idle.work(np.zeros((n, k)), x1, none) == 0.0
