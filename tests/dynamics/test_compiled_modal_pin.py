"""ModalPins (spatial modal bodies held at mesh points: a ball joint, a weld to a node from
``attach_node``, a revolute joint) in the compiled step (fembody.dynamics.compiled_step, their
rows by fembody.elements.modal.modal3d_numba.pins_into) against the Python path of the same
integrator (``compiled=False``), the independent reference: the same scheme assembled from
the sparse blocks (their Hessian by the complex step) and solved by fembody's saddle-point
solvers. Tolerances as in test_compiled_step.py: q to 1e-12 relative, v and lam to 1e-12 or
a few times the change the Python path's own choice of linear solver makes (they carry the
last Newton increment times gamma / (beta h)); the counters equal."""
import numpy as np
import pytest

import fembody as fb
from fembody.dynamics import compiled_step
from fembody.reduced import ModalBody3D, ModalPin, attach_node

# spatial models only (or none): one configuration space (tests/conftest.py)
pytestmark = pytest.mark.one_space

ALU = fb.Material(E=70e9, rho=2700.0, nu=0.3)
COUNTERS = ("n_residual", "n_tangent", "n_factor", "n_solve", "n_newton", "n_steps",
            "n_rejected", "n_predictor_fallbacks", "n_index1")


def beam_body(n_modes: int = 4) -> ModalBody3D:
    """An aluminium beam of 1 m (8 elements), its clamped modes."""
    src = fb.Model(dim=3)
    b = src.add_beam((0, 0, 0), (1.0, 0, 0), n=8, material=ALU,
                     section=fb.Section.rectangle(0.02, 0.01), orientation=(0, 0, 1))
    return ModalBody3D.from_body(src, b, n_modes)


def hinged_with_a_sprung_tip():
    """A modal beam (4 modes) hinged to the ground at its root mesh point about y (a
    ModalPin with axis=), its tip welded to an attached node that a spring pulls, under
    gravity: a flexible pendulum."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    ref = m.add_modal_body(beam_body())
    m.add_joint(ModalPin(ref, 0, m.ground, axis=(0.0, 1.0, 0.0)))
    tip = attach_node(m, ref, 8)
    m.add_spring(tip, (1.0, 0.3, 0.5), k=40.0, c=0.2)
    return m


def hanging_from_its_tip():
    """A modal beam (3 modes, so the kernel pads it) hanging from a ball joint at its tip
    mesh point (its reference node free), released horizontally under gravity, with a
    second modal body (4 modes) welded at its root to a rigid hub on a revolute joint."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    a = m.add_modal_body(beam_body(3))
    m.add_joint(ModalPin(a, 8, m.ground))
    hub = m.add_rigid_body((0.0, 1.0, 0.0), 2.0, (0.01, 0.01, 0.01))
    m.add_joint(fb.Revolute(m.ground, hub.node, axis=(0.0, 1.0, 0.0)))
    b = m.add_modal_body(beam_body(4), at=(0.0, 1.0, 0.0))
    m.add_joint(ModalPin(b, 0, hub.node, rotation=True))
    return m


MODELS = {"hinged": hinged_with_a_sprung_tip, "hanging": hanging_from_its_tip}


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).max() / max(np.abs(a).max(), 1e-300)


@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("name", list(MODELS))
def test_modal_pins_run_in_the_compiled_step_as_in_python(name, newton):
    """Every step compiled (no fallback), the same counters, q to 1e-12, v and lam to 1e-12
    or 5 times the Python path's own change of linear solver."""
    model = MODELS[name]()
    assert compiled_step.why_not(model.compile()) == ""
    opts = dict(t_end=0.03, dt=1e-3, tol=1e-10, newton=newton)
    py = fb.simulate(MODELS[name](), compiled=False, **opts)
    cc = fb.simulate(MODELS[name](), **opts)
    dense = fb.simulate(MODELS[name](), compiled=False, linear_solver="dense", **opts)
    assert cc.stats["n_compiled_steps"] == cc.stats["n_steps"] == 30
    assert cc.stats["n_compiled_fallbacks"] == 0
    for k in COUNTERS:
        assert py.stats[k] == cc.stats[k], k
    assert rel(py.q, cc.q) <= 1e-12
    assert rel(py.q[-1], py.q[0]) > 1e-4                      # it moves
    for f in ("v", "lam"):
        own = rel(getattr(py, f), getattr(dense, f))
        assert rel(getattr(py, f), getattr(cc, f)) <= max(1e-12, 5.0 * own), f
