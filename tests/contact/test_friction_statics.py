"""Coulomb friction in statics (issue 33): a slipping contact's tangent is unsymmetric, and the
stability check judges the path by the real eigenvalues of the tangent where the symmetric
part (Hill's sufficient condition) fails (fembody.statics.statics.frictional_stability)."""
from __future__ import annotations

import numpy as np
import pytest

import fembody as fb
from fembody.errors import StabilityError

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.circle(0.01)
KN, KT, MU = 1e6, 1e5, 0.3          # normal and tangential penalty [N/m], Coulomb coefficient


def _cantilever_on_plane(force, friction=True, n=10, weld=False):
    """A cantilever along y (0.5 m, ``n`` elements, clamped at y = 0.5: fixed, or welded to
    the ground by a joint) whose tip node touches the plane z = 0, loaded at the tip by
    ``force`` [N]."""
    m = fb.Model(dim=3)
    A = m.add_beam((0.0, 0.5, 0.0), (0.0, 0.0, 0.0), n=n, material=STEEL, section=SEC,
                   orientation=(0, 0, 1))
    if weld:
        m.add_joint(fb.Weld(m.ground, A.first))
    else:
        m.fix(A.first, "x", "y", "z", "rx", "ry", "rz")
    m.add_force(A.last, force)
    if friction is not None:
        m.add_surface_contact(A.last, fb.Plane((0, 0, 0), (0, 0, 1)), stiffness=KN,
                              friction=MU if friction else 0.0,
                              tangential_stiffness=KT if friction else None)
    return m, A


@pytest.fixture(scope="module")
def tip_compliance():
    """The free cantilever's tip compliance [m/N] in x and z (1 mN: linear to ~1e-6)."""
    out = []
    for f in ((1e-3, 0.0, 0.0), (0.0, 0.0, -1e-3)):
        m, A = _cantilever_on_plane(f, friction=None)
        u = fb.static(m, steps=1).displacement(A.last)[-1]
        out.append(abs(u[0 if f[0] else 2]) / 1e-3)
    return tuple(out)


@pytest.mark.parametrize("stability", ["auto", "check"])
@pytest.mark.parametrize("Ft, slips", [(1.0, False), (4.0, True), (5.0, True)])
def test_a_tip_slipping_on_a_plane_is_a_stable_static_state(tip_compliance, stability, Ft,
                                                             slips):
    """The cantilever's tip pressed on the plane by 10 N and pulled along x by Ft: with the
    default ``unstable`` the static run finishes, sticking (Ft = 1 N) or slipping (4 and 5 N,
    beyond mu N = 3 N), and every state is stable. Closed form (the normal stays z):
    u_z = -F_n / (k_n + 1/c_z), N = k_n |u_z|, and u_x = F_t / (k_t + 1/c_x) in stick, else
    c_x (F_t - mu N); to 1e-5 (the cantilever linear to ~1e-6 at these deflections).

    Before, the slipping states were refused (StabilityError): the check judged the
    symmetric part of the tangent, which the slip's ``-mu k_n e n^T`` makes indefinite
    (lowest eigenvalue about -mu^2 k_n / 4 against the cantilever's 1/c_x)."""
    Fn = 10.0
    m, A = _cantilever_on_plane((Ft, 0.0, -Fn))
    res = fb.static(m, steps=4, stability=stability)
    assert "unstable" not in res.stats
    assert all(res.stable)
    cx, cz = tip_compliance
    uz = Fn / (KN + 1.0 / cz)
    N = KN * uz
    ux = cx * (Ft - MU * N) if slips else Ft / (KT + 1.0 / cx)
    assert (KT * Ft / (KT + 1.0 / cx) > MU * N) == slips
    u = res.displacement(A.last)[-1]
    assert abs(-u[2] / uz - 1.0) < 1e-5 and abs(u[0] / ux - 1.0) < 1e-5, (u, ux, uz)


@pytest.mark.parametrize("stability", ["auto", "check"])
def test_a_welded_slipping_cantilever_is_judged_on_the_joints_motions(tip_compliance,
                                                                      stability):
    """The slipping case (F_t = 5 N) with the cantilever's root held by a Weld joint instead
    of fixed DOFs (a saddle point: the check works on the null space of B): the run
    finishes with the default ``unstable`` and gives the fixed root's displacement to
    1e-9. Before, StabilityError."""
    m, A = _cantilever_on_plane((5.0, 0.0, -10.0), weld=True)
    res = fb.static(m, steps=4, stability=stability)
    assert res.system.n_con > 0 and "unstable" not in res.stats
    m0, A0 = _cantilever_on_plane((5.0, 0.0, -10.0))
    u0 = fb.static(m0, steps=4).displacement(A0.last)[-1]
    u = res.displacement(A.last)[-1]
    assert np.abs(u - u0).max() < 1e-9 * np.abs(u0).max(), (u, u0)


@pytest.mark.parametrize("weld", [False, True])
@pytest.mark.parametrize("stability", ["eigenvalue", "check"])
def test_a_large_slipping_model_is_judged_by_the_sparse_real_eigenvalues(stability, weld):
    """The slipping tip (F_t = 5 N) on a 60-element cantilever (366 free DOFs, above the
    dense limit; its root fixed or welded by a joint): Hill's condition fails (sparse
    symmetric eigenvalue or Cholesky), and the real eigenvalues of the tangent nearest zero
    (shift-invert ARPACK, on the joints' motions) decide: stable, and the same lowest real
    eigenvalue as the dense eigenvalues of the whole tangent (on a null-space basis of B)
    to 1e-6. Before, StabilityError."""
    import scipy.linalg as sla
    from fembody.linalg.linalg import DENSE_MAX
    from fembody.statics.statics import frictional_stability
    m, A = _cantilever_on_plane((5.0, 0.0, -10.0), n=60, weld=weld)
    res = fb.static(m, steps=4, stability=stability)
    s = res.system
    assert s.n_free > DENSE_MAX and "unstable" not in res.stats
    from fembody.contact import run_state
    sw = s.with_contact_state(run_state(s))
    q = res.q[-1]
    _, K, _ = sw.internal_forces(q, None, True)
    Bdata = None
    Kc = s.csc(K)
    Kd = Kc.toarray()
    if weld:
        ce = s.constraints(q, 0.0, np.asarray(res.lam[-1]), hessian=True)
        Bdata = ce.Bdata
        if ce.G is not None:
            Kc = s.csc(K + ce.G)
            Kd = Kc.toarray()
        Z = sla.null_space(s.B_matrix(Bdata).toarray())
        Kd = Z.T @ Kd @ Z
    scale = float(np.abs(Kc.diagonal()).max())
    # Hill fails at the stability tolerance (fembody.linalg.inertia.UNSTABLE)
    assert np.linalg.eigvalsh(0.5 * (Kd + Kd.T))[0] < -1e-12 * scale
    ev = np.linalg.eigvals(Kd)
    lowest = ev.real[np.abs(ev.imag) < 1e-9 * scale].min()
    got = frictional_stability(s, Kc, Bdata, "eigenvalue", scale)
    assert got == pytest.approx(lowest, rel=1e-6) and lowest > 0.0
