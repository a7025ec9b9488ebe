"""The configuration space: its maps, and the same numbers from every solver under both planar
spaces (angles stored as such, and as unit complex numbers updated multiplicatively)."""
import math

import numpy as np
import pytest

import fembody as fb
from fembody import space as spaces
from fembody.errors import ModelError
from fembody.examples import falling_two_link, slider_crank


def frame(n: int = 4, offset: tuple = (0.05, 0.02)) -> fb.Model:
    """A beam with a truss brace, a rigid body with an offset centre and a point mass: every
    kind of node (with and without a rotation)."""
    mat = fb.Material(E=70e9, rho=2700.0, nu=0.3)
    m = fb.Model(gravity=(0.0, -9.81))
    beam = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=mat,
                      section=fb.Section.rectangle(0.02, 0.02))
    p = m.add_node((0.5, -0.4))
    m.add_truss(beam.first, p, material=mat, section=fb.Section(A=1e-4, I=0.0))
    m.add_truss(p, beam.last, material=mat, section=fb.Section(A=1e-4, I=0.0))
    m.add_mass(p, 0.3)
    m.add_rigid_body(beam.last, mass=0.5, inertia=1e-3, offset=offset)
    m.add_joint(fb.Pin(m.ground, beam.first))
    return m


def rigid_chain() -> fb.Model:
    """Two rigid links pinned in a chain with offset centres of mass: no stiff modes, for the
    explicit methods."""
    m = fb.Model(gravity=(0.0, -9.81))
    a = m.add_rigid_body((0.0, 0.0), mass=1.0, inertia=0.02, offset=(0.25, 0.0))
    b = m.add_rigid_body((0.5, 0.0), mass=0.5, inertia=0.01, offset=(0.2, 0.05))
    m.add_joint(fb.Pin(m.ground, a.node))
    m.add_joint(fb.Pin(a.node, b.node))
    return m


@pytest.fixture(params=spaces.SPACES)
def system(request):
    return frame().compile(space=request.param)


def test_update_and_difference_are_inverse(system):
    rng = np.random.default_rng(0)
    sp = system.space
    q = sp.update(sp.q0, rng.uniform(-3.0, 3.0, sp.nv))
    dv = rng.uniform(-3.0, 3.0, sp.nv)          # below pi: the logarithm's principal branch
    q1 = sp.update(q, dv)
    assert q1.shape == (sp.nq,) and np.allclose(sp.difference(q1, q), dv, rtol=0, atol=1e-14)
    assert np.allclose(sp.update(q, sp.difference(q1, q)), q1, rtol=0, atol=1e-15)
    free = system.free
    assert np.array_equal(sp.update_free(q, dv[free], free), sp.update(q, system.expand(dv[free])))


def test_complex_space_stores_rotations_on_the_unit_circle(system):
    sp = system.space
    rot = sp.rotation
    assert rot.sum() == (system.node_dofs[:, 2] >= 0).sum()
    if sp.name == "planar":
        assert sp.nq == sp.nv
        return
    assert sp.nq == sp.nv + rot.sum()
    # a rotation through 50 full turns in 10^4 steps stays unit length and lands on the angle
    q, dv = sp.q0, np.zeros(sp.nv)
    dv[rot] = 2 * math.pi * 50 / 1e4 + 1e-5
    for _ in range(10_000):
        q = sp.update(q, dv)
    c, s = q[sp.qindex[rot]], q[sp.qindex[rot] + 1]
    assert np.abs(np.hypot(c, s) - 1.0).max() <= 2e-16
    assert np.abs(np.arctan2(s, c) - 0.1).max() < 1e-9       # 1e4 * 1e-5 rad beyond the turns


def test_gather_gives_the_poses_of_the_angle_layout():
    """Every block's gathered poses (displacements and rotations per velocity DOF) are the same
    in both spaces for the same motion, with each element's rotations continuous across the
    +-pi cut."""
    a, b = (frame().compile(space=n) for n in spaces.SPACES)
    rng = np.random.default_rng(4)
    du = 0.01 * rng.standard_normal(a.n_dof)
    du[a.space.rotation] = 3.1 + 0.05 * rng.standard_normal(a.space.rotation.sum())
    qa, qb = a.space.update(a.q0, du), b.space.update(b.q0, du)
    for blk_a, blk_b in zip(a.blocks, b.blocks):
        xa, xb = a.gather(qa, blk_a.dofs), b.gather(qb, blk_b.dofs)
        wrapped = xa - xb
        assert np.allclose(np.mod(wrapped + math.pi, 2 * math.pi) - math.pi, 0.0, atol=1e-12)
        if blk_a.family == "beam":                  # relative rotations exact across the cut
            assert np.allclose(xb[:, 5] - xb[:, 2], xa[:, 5] - xa[:, 2], atol=1e-12)
    assert np.allclose(a.space.positions(qa), b.space.positions(qb), atol=1e-15)
    fa, fb_ = a.internal_forces(qa, None, False)[0], b.internal_forces(qb, None, False)[0]
    assert np.allclose(fa, fb_, rtol=0, atol=1e-9 * np.abs(fa).max())


# ------------------------------------------------ every solver gives the same numbers
def _both(run):
    out = []
    for name in spaces.SPACES:
        old = spaces.set_default(name)
        try:
            out.append(run())
        finally:
            spaces.set_default(old)
    return out


def _same(ra: fb.Result, rb: fb.Result, tol: float, vtol: float | None = None) -> None:
    assert ra.q.shape[0] == rb.q.shape[0] and ra.q.shape[1] < rb.q.shape[1]
    ua, ub = ra.coordinates(), rb.coordinates()
    scale = max(np.abs(ua).max(), 1e-3)
    assert np.abs(ua - ub).max() <= tol * scale
    if ra.v is not None:
        vtol = tol if vtol is None else vtol
        assert np.abs(ra.v - rb.v).max() <= vtol * max(np.abs(ra.v).max(), 1e-3)


@pytest.mark.parametrize("method, tol", [("generalized-alpha", 1e-9), ("hht", 1e-9),
                                         ("trapezoidal", 1e-9), ("discrete-gradient", 1e-9),
                                         ("rk4", 1e-11), ("bdf2", 1e-9), ("scipy:RK45", 1e-7)])
def test_dynamics_agree_in_both_spaces(method, tol):
    """A spinning, swinging frame (rotations through more than a turn) integrated in both
    spaces: the same motion to round-off (to the tolerance for SciPy's adaptive steps)."""
    def run():
        if method in ("rk4", "scipy:RK45"):
            m = rigid_chain()
        else:
            m = frame(3, offset=(0.0, 0.0) if method == "discrete-gradient" else (0.05, 0.02))
        m.set_rigid_velocity(20.0)           # 8 rad in 0.4 s: more than a full turn
        return fb.simulate(m, t_end=0.4, dt=1e-3, save_every=10, method=method,
                           **({"rho_inf": 0.8} if method == "generalized-alpha" else {}))
    ra, rb = _both(run)
    _same(ra, rb, tol)
    assert ra.energy.total == pytest.approx(rb.energy.total, rel=1e-8, abs=1e-9)


def test_statics_arc_length_and_modes_agree_in_both_spaces():
    def run():
        m = fb.Model()
        c = m.add_beam((0, 0), (1, 0), n=10, material=fb.Material(E=1e7, rho=1000.0),
                       section=fb.Section.rectangle(0.02, 0.02))
        m.fix(c.first)
        m.add_torque(c.last, 2 * math.pi * 1e7 * 0.02 ** 4 / 12)     # rolls up into a circle
        st = fb.static(m, steps=8)
        arc = fb.static(m, steps=8, method="arc-length", load_max=0.3)
        return st, arc, fb.modes(m, n=3, state=st).frequencies, c
    (sa, aa, fa, c), (sb, ab, fb_, cb) = _both(run)
    _same(sa, sb, 1e-9)
    _same(aa, ab, 1e-9)
    assert np.allclose(sa.position(c.last)[-1], 0.0, atol=5e-3)       # the tip back at the root
    assert sb.rotation(cb.last)[-1] == pytest.approx(2 * math.pi, rel=1e-9)   # a full turn
    assert fa == pytest.approx(fb_, rel=1e-8)


def test_driven_mechanism_and_impact_agree_in_both_spaces():
    def run():
        m, *_ = slider_crank.build_model()
        crank = fb.simulate(m, t_end=0.2, dt=1e-3, save_every=20)
        m2, *_ = falling_two_link.build_model()
        # Newton held to 1e-12: the 42 impacts amplify its stopping error, and at the default
        # 1e-8 the two spaces' velocities differed by 1.06e-5 of their scale after the beams
        # were numbered in order (3.7e-7 with the old order: round-off paths only); 2.7e-6 here
        fall = fb.simulate(m2, t_end=0.5, dt=1e-3, save_every=50, tol=1e-12, xtol=1e-12)
        return crank, fall
    (ca, fa), (cb, fb_) = _both(run)
    _same(ca, cb, 1e-8)
    # Newton stops at its tolerance in each space, so the two trajectories agree to that
    # level, and so do the located impact times; the train of 42 micro-impacts (0.3415 to
    # 0.359 s) amplifies what differs: measured 6e-9 s on the impact times, positions 9e-7 and
    # 2.3e-6 of the motion, velocities 2.7e-6 of their scale with numba's kernels and 1.15e-5
    # with the same kernels compiled ahead of time (round-off alone differs between the two
    # builds): positions to 1e-5, velocities to 5e-5
    assert len(fa.impacts) == len(fb_.impacts) >= 1
    assert [i["time"] for i in fa.impacts] == pytest.approx([i["time"] for i in fb_.impacts],
                                                            abs=1e-7)
    _same(fa, fb_, 1e-5, vtol=5e-5)


def test_result_files_keep_their_space(tmp_path):
    m = frame(2)
    res = fb.simulate(m.compile(space="planar-complex"), t_end=0.02, dt=1e-3)
    res.save(tmp_path / "r.npz")
    back = fb.Result.load(tmp_path / "r.npz", m)
    assert back.space.name == "planar-complex" and back.system.space.name == "planar-complex"
    node = m.bodies[0].last
    assert np.array_equal(back.position(node), res.position(node))
    assert back.energy.total == pytest.approx(res.energy.total, rel=1e-12)


def test_unknown_space_is_refused():
    with pytest.raises(ValueError, match="planar-complex"):
        frame(2).compile(space="quaternion")
    with pytest.raises(ValueError, match="unknown configuration space"):
        spaces.set_default("euler-angles")


def test_dimension_object_decides_names_and_spaces():
    """The model's dimension is one object: DOF names, counts and spaces come from it."""
    from fembody.space import PLANAR, SPATIAL, dimension
    m2, m3 = fb.Model(), fb.Model(dim=3)
    assert m2.dimension is PLANAR and m3.dimension is SPATIAL
    assert m2.dof_names == ("x", "y", "rz")
    assert m3.dof_names == ("x", "y", "z", "rx", "ry", "rz")
    assert (SPATIAL.n_translations, SPATIAL.n_rotations) == (3, 3)
    assert (PLANAR.n_translations, PLANAR.n_rotations) == (2, 1)
    assert PLANAR.pick("p", "s") == "p" and SPATIAL.pick("p", "s") == "s"
    assert dimension(3) is SPATIAL
    for bad in (1, 4, True, 2.0, "3", np.array([2, 3]), np.array(3.0)):
        with pytest.raises(ModelError, match="dim must be 2"):
            fb.Model(dim=bad)


def test_a_planar_space_asked_of_a_spatial_model_is_refused():
    """Was silently replaced by the spatial space; now a clear error naming both."""
    m = fb.Model(dim=3)
    n = m.add_node((0.0, 0.0, 0.0))
    m.add_mass(n, 1.0)
    assert m.compile().space.name == "spatial"
    with pytest.raises(ModelError, match="'planar' space is for planar models"):
        m.compile(space="planar")
    p = fb.Model()
    k = p.add_node((0.0, 0.0))
    p.add_mass(k, 1.0)
    p.fix(k, "rz")
    with pytest.raises(ModelError, match="'spatial' space is for spatial models"):
        p.compile(space="spatial")


@pytest.mark.one_space                # (a 3D model: the planar space is not read)
def test_spatial_gather_of_many_dofs_equals_the_screened_forms():
    """Guard (a speed path, no new numbers): a spatial gather of many DOFs of one state reads
    the space's coordinates kept for that state; the values are bit for bit those of the
    screened forms (q itself for translations, the rotations' logarithms), also after the
    state is changed in place, for rotation-free index arrays and for other shapes."""
    m = fb.Model(dim=3)
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(0.01)
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=200, material=steel, section=sec)
    m.fix(b.first, "all")
    s = m.compile()
    sp = s.space
    rng = np.random.default_rng(7)
    q = sp.update(s.q0, 0.3 * rng.standard_normal(s.n_dof))
    every = np.arange(s.n_dof, dtype=np.int64)
    ref = sp.coordinates(q)
    rows = rng.integers(0, s.n_dof, size=(80, 12))
    lin = np.flatnonzero(~sp.rotation)[:600].reshape(100, 6)
    assert rows.size >= spaces.spaces.GATHER_KEPT and lin.size >= spaces.spaces.GATHER_KEPT
    for _ in range(2):
        assert np.array_equal(sp.gather(q, rows), ref[rows])
        assert np.array_equal(sp.gather(q, lin), q[sp._qi[lin]])
        assert np.array_equal(sp.gather(q, every), ref)
        assert np.array_equal(sp.gather(q, rows[:2, :3]), ref[rows[:2, :3]])   # screened
        q[:] = sp.update(q, 0.1 * rng.standard_normal(s.n_dof))   # in place, as solvers do
        ref = sp.coordinates(q)
    out = sp.gather(q, rows)
    out[...] = 0.0                                     # a gather is the caller's own array
    assert np.array_equal(sp.gather(q, rows), ref[rows])
