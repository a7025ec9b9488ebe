"""Friction in the Result (issue 33): ``Result.contacts`` carries the tangential force, slip and
stick of frictional contacts at every saved state (recorded with the state from the run's
anchors), and so do the VTU/XDMF exports and a saved Result."""
import math

import meshio
import numpy as np
import pytest

import fembody as fb
from fembody.io import io as fio

from .test_friction_models import _sliding_block

# (omega-33) the contacts here are pressed and loaded slowly (a tip held on a plane, a rope on
# a capstan) and the tests meet their analytic references at omega h 28-89 with rho_inf 0.9:
# a pressed penalty is a linear spring, which the scheme integrates stably however far above
# 1/h it lies (the chatter and energy gain of fembody.contact.frequency need points opening
# and closing), so simulate's ContactWarning is expected here
pytestmark = pytest.mark.filterwarnings("ignore::fembody.ContactWarning")

G = 9.81


def sliding_block(dim, mu_s=0.5, mu_k=0.3, v0=1.0):
    """The sliding block of test_friction_models (a point mass pressed on a plane by its
    weight, launched along it at v0 [m/s]) with a stiffer normal penalty (1e7 N/m)."""
    m, nd, _ = _sliding_block(dim, mu_s, mu_k, v0, k=1e7)
    return m, nd


@pytest.mark.parametrize("dim", [2, 3])
def test_sliding_block_slip_history_is_its_travel_and_it_sticks_at_rest(dim):
    """At every saved state the recorded slip equals the distance travelled along the plane
    (the point slides one way until it stops; 1e-3 of the stopping distance v0^2 / (2 mu_k g):
    the small slips back and forth as it comes to rest and the elastic slip mu N / k_t);
    it sticks once at rest (after v0 / (mu_k g)) and slips before; the tangential force is
    mu_k N while sliding (1e-6 of mu_k m g), with N ringing on the undamped penalty about m g
    (its mean within 2e-2)."""
    mu_k, v0 = 0.3, 1.0
    m, nd = sliding_block(dim, mu_k=mu_k, v0=v0)
    r = fb.simulate(m, t_end=0.4, dt=1e-3)
    c = r.contacts
    assert {"tangential_force", "slip", "stick"} <= set(c.fields)
    along = np.linalg.norm(r.displacement(nd)[:, :dim - 1], axis=1)
    ref = v0 ** 2 / (2.0 * mu_k * G)
    assert np.abs(c["slip"][:, 0] - along).max() < 1e-3 * ref
    t_stop = v0 / (mu_k * G)
    assert c["stick"][r.time > t_stop + 0.02, 0].all()
    sliding = (r.time > 0.01) & (r.time < t_stop - 0.01)
    assert not c["stick"][sliding, 0].any()
    T, N = c["tangential_force"][sliding, 0], c["normal_force"][sliding, 0]
    assert np.abs(T - mu_k * N).max() < 1e-6 * mu_k * 2.0 * G
    assert np.abs(N.mean() - 2.0 * G) < 2e-2 * 2.0 * G     # N rings about m g


def pulled_cantilever(mu_s=0.4, mu_k=0.3, t_ramp=0.3, kt=1e6):
    """A spatial cantilever (L = 0.5 m, 10 mm diameter, E = 20 GPa) whose tip is pressed by 10
    N onto a rigid plane (k = 1e6 N/m) and pulled along y by a force rising to twice the
    break-away force (as tests/contact/test_friction_models.py's, shorter)."""
    E, d, L, P, k = 2e10, 0.01, 0.5, 10.0, 1e6
    mat, sec = fb.Material(E=E, rho=1000.0, nu=0.3), fb.Section.circle(d)
    I = math.pi * d ** 4 / 64.0
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (L, 0, 0), n=4, material=mat, section=sec, orientation=(0, 0, 1))
    m.fix(b.first, "x", "y", "z", "rx", "ry", "rz")
    kb = 3.0 * E * I / L ** 3
    N = P * k / (k + kb)
    Fmax = 2.0 * mu_s * N * (kt + kb) / kt
    press, pull = np.array([0.0, 0.0, -P]), np.array([0.0, 1.0, 0.0])
    m.add_force(b.last, lambda t: press * min(t / 0.1, 1.0)
                + pull * Fmax * min(max(t - 0.15, 0.0) / t_ramp, 1.0))
    m.add_surface_contact([b.last], fb.Plane((0, 0, 0), (0, 0, 1)), stiffness=k,
                          friction=mu_s, kinetic_friction=mu_k, tangential_stiffness=kt,
                          max_penetration=math.inf)
    return m, b, N


def test_pulled_cantilever_tangential_force_is_mu_k_n_while_slipping():
    """Result.contacts of the pulled cantilever: while the tip goes on slipping (not stuck in
    this output step nor the one before) the tangential force is mu_k N of the analytic N =
    P k / (k + 3EI/L^3) (2e-3: N's settling) and of the recorded N (1e-7); it never exceeds
    mu_s N; the tip sticks before the pull starts and slips by the end, its accumulated slip
    growing from 0."""
    mu_s, mu_k = 0.4, 0.3
    m, b, N = pulled_cantilever(mu_s, mu_k)
    r = fb.simulate(m, t_end=0.45, dt=2e-3)
    c = r.contacts
    T, Nn, stick = (c[k][:, 0] for k in ("tangential_force", "normal_force", "stick"))
    pressed = (r.time > 0.12) & (r.time < 0.15)
    assert stick[pressed].all() and not stick[-1]
    going = np.flatnonzero((stick == 0.0) & (np.roll(stick, 1) == 0.0))
    going = going[going > 0]
    assert going.size > 10
    assert np.abs(T[going] - mu_k * Nn[going]).max() < 1e-7 * mu_k * N
    assert np.abs(T[going] - mu_k * N).max() < 2e-3 * mu_k * N
    assert (T <= mu_s * Nn * (1.0 + 1e-9) + 1e-12).all()
    # the accumulated slip never falls, is zero while stuck under the press, grows by the end
    s = c["slip"][:, 0]
    assert np.all(np.diff(s) >= 0.0) and s[pressed].max() == 0.0 and s[-1] > 1e-3


def test_friction_keys_survive_the_exports_and_a_saved_result(tmp_path):
    """The VTU and XDMF exports carry tangential_force, slip and stick on the contact points
    (VTU writes 11 significant digits; XDMF/HDF5 binary doubles: exact), and a Result saved
    and loaded with its model gives the same Result.contacts friction values (exactly)."""
    m, nd = sliding_block(3)
    r = fb.simulate(m, t_end=0.05, dt=1e-3)
    c = r.contacts
    keys = ("tangential_force", "slip", "stick")
    mesh = fio.result_mesh(r, -1)
    path = tmp_path / "r.vtu"
    mesh.write(path)
    back = meshio.read(path)
    fam = np.concatenate(back.cell_data["family"])
    row = np.flatnonzero(fam == fio.EXPORT_CODES["contact_point"])
    assert row.size == 1
    for k in keys:
        got = np.concatenate(back.cell_data[k])[row[0]]
        assert got == pytest.approx(c[k][-1, 0], rel=1e-10, abs=1e-14), k
    assert c["slip"][-1, 0] > 0.01                # it has slid: a value worth comparing
    fio.write_result(r, tmp_path / "r.xdmf")
    steps = fio.read_xdmf(tmp_path / "r.xdmf")
    cd = steps[-1][1].cell_data
    fam = np.concatenate(cd["family"])
    row = np.flatnonzero(fam == fio.EXPORT_CODES["contact_point"])[0]
    for k in keys:
        assert np.concatenate(cd[k])[row] == c[k][-1, 0], k
    r.save(tmp_path / "r.npz")
    again = fb.Result.load(tmp_path / "r.npz", model=m).contacts
    for k in keys:
        assert np.array_equal(again[k], c[k]), k
