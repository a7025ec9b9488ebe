"""The penalty contact frequency estimate and the warning of a run whose step does not resolve
it (issue 33, omega-33; :mod:`fembody.contact.frequency`)."""
from __future__ import annotations

import math
import os
import sys
import warnings

import numpy as np
import pytest

import fembody as fb
from fembody.contact.frequency import OMEGA_H, contact_frequencies

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
from beam_bundle import R, build  # noqa: E402

K, MASS = 1e6, 0.25          # [N/m], [kg]: omega = 2000 rad/s


def dropped_node(v: float = -0.1, gravity: float = 0.0) -> tuple[fb.Model, object]:
    """A point mass at a fixed plane's surface moving into it at ``v`` [m/s]."""
    m = fb.Model(gravity=(0.0, gravity))
    node = m.add_node((0.0, 0.0))
    m.add_mass(node, MASS)
    m.add_surface_contact(node, fb.Plane((0.0, 0.0), (0.0, 1.0)), stiffness=K,
                          max_penetration=math.inf, name="floor")
    m.set_velocity(node, (0.0, v))
    return m, node


def test_point_mass_on_penalty_spring_estimate_is_sqrt_k_over_m() -> None:
    """The estimate is sqrt(k / m) for a node on a fixed surface, and the contact the run
    integrates lasts half its period, pi / omega (measured at omega h = 0.01)."""
    m, node = dropped_node()
    ((label, omega),) = contact_frequencies(m.compile())
    assert "floor" in label
    assert omega == pytest.approx(math.sqrt(K / MASS), rel=1e-12)
    h = 0.01 / omega
    r = fb.simulate(m, t_end=2.0 * math.pi / omega, dt=h, rho_inf=1.0)
    y = r.position(node)[:, 1]
    inside = r.time[y < 0.0]
    duration = inside[-1] - inside[0] + h      # (first to last step inside, plus a step)
    assert duration == pytest.approx(math.pi / omega, rel=0.01)


def test_stack_estimate_bounds_the_chain_mode() -> None:
    """On 3 stacked beams (the bottom one clamped) the middle beam, pressed from both sides,
    gets the Gershgorin bound 2 sqrt(k / (l m')); the stack's highest line mode (two beams on
    line springs k' = k / l per metre: omega^2 = k' / m' (3 + sqrt 5) / 2) lies below it, by
    less than a quarter."""
    model = build(3, 20, "frictionless")
    w = dict(contact_frequencies(model.compile()))
    m_line = 7850.0 * np.pi * R ** 2
    k_line = 1e6 / (1.0 / 20)
    bound = 2.0 * math.sqrt(k_line / m_line)
    chain = math.sqrt(k_line / m_line * (3.0 + math.sqrt(5.0)) / 2.0)
    assert len(w) == 2
    for omega in w.values():
        assert omega == pytest.approx(bound, rel=1e-9)
        assert chain < omega < 1.25 * chain


def _warnings(model, dt: float, **options) -> list:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fb.simulate(model, t_end=dt, dt=dt, **options)
    return [w for w in caught if issubclass(w.category, fb.ContactWarning)]


def test_unresolved_bundle_warns_once_naming_the_contact() -> None:
    """The default rho_inf = 0.9 at h = 1 ms (omega h about 11) warns, once, naming the
    contacts, omega h and the cures; rho_inf = 0.5 or a step resolving it do not."""
    model = build(3, 20, "frictionless")
    omega = max(w for _, w in contact_frequencies(model.compile()))
    found = _warnings(model, 1e-3)
    assert len(found) == 1
    text = str(found[0].message)
    assert "beam contact 0" in text and "beam contact 1" in text
    assert f"omega h = {omega * 1e-3:.3g}" in text
    assert "rho_inf <= 0.5" in text and "dt below" in text and "stiffness" in text
    assert found[0].filename == __file__        # points at the simulate call
    assert not _warnings(model, 1e-3, rho_inf=0.5)
    assert not _warnings(model, 0.9 * OMEGA_H / omega)
    assert _warnings(model, 1.1 * OMEGA_H / omega)


@pytest.mark.parametrize("method, options, warned", [
    ("trapezoidal", {}, True),                  # no numerical damping
    ("hht", {"alpha": 0.05}, True),             # rho_inf 0.90
    ("hht", {"alpha": 1.0 / 3.0}, False),       # rho_inf 0.5
])
def test_newmark_family_judged_by_its_rho_inf(method, options, warned) -> None:
    model, _ = dropped_node()
    dt = 2.0 * OMEGA_H / math.sqrt(K / MASS)
    assert bool(_warnings(model, dt, method=method, **options)) is warned


def _node_by_node(system) -> list[tuple[str, float]]:
    """contact_frequencies as a loop over the contacts' nodes (its form on 63ab941)."""
    nd = system.dim
    free = system.free_index
    dofs = system.node_dofs[:, :nd]
    trans = free[dofs[dofs >= 0]]
    trans = np.unique(trans[trans >= 0])
    M = system.mass_matrix()[trans][:, trans]
    lumped = np.zeros(system.n_free)
    lumped[trans] = np.asarray(M.sum(axis=1)).ravel()
    load: dict[int, float] = {}
    for c in system.contact_springs:
        w = c.stiffness * c.share * np.where(c.coupled, 2.0, 1.0)
        for i, x in zip(c.nodes.tolist(), w.tolist()):
            load[i] = load.get(i, 0.0) + x
    mass = {}
    for i in load:
        d = dofs[i]
        fi = free[d[d >= 0]]
        m = lumped[fi[fi >= 0]]
        m = m[m > 0.0]
        mass[i] = float(m.max()) if m.size else math.inf
    return [(c.label, math.sqrt(max((load[i] / mass[i] for i in c.nodes.tolist()),
                                    default=0.0))) for c in system.contact_springs]


def _mixed() -> fb.Model:
    """The bundle of 3 x 8 (its bottom beam clamped: nodes with no free translation), a node
    checked as a point against a fixed plane, and another against a plane carried by a
    rigid body (coupled)."""
    m = build(3, 8, "frictionless")
    for y, carried in ((0.3, False), (0.6, True)):
        node = m.add_node((0.5, y, -3 * R))
        m.add_mass(node, MASS)
        body = m.add_rigid_body((0.5, y, -5 * R), 2.0, (1e-3, 1e-3, 1e-3)) if carried \
            else None
        m.add_surface_contact(node, fb.Plane((0.0, 0.0, -4 * R), (0.0, 0.0, 1.0)),
                              stiffness=K, body=body, max_penetration=math.inf)
    return m


def test_the_estimate_equals_the_node_by_node_loop() -> None:
    """Guard (passes on 63ab941, whose estimate was the loop): the estimate by array passes
    over the nodes is the node-by-node loop's to the bit, on the bundle with and without a
    clamped beam's fixed nodes, nodes checked as points against a fixed plane and one
    carried by a rigid body, and the 2D point mass."""
    for model in (build(3, 8, "frictionless"), build(4, 5, "friction"), _mixed(),
                  dropped_node()[0]):
        s = model.compile()
        assert contact_frequencies(s) == _node_by_node(s)
