"""The iteration matrix assembled straight into the envelope's rows (issue 17 item 3,
:mod:`fembody.linalg.envelope_target`): the CSC path's numbers bit for bit, taken only where
the tangent is one compiled pass, read back on the K pattern exactly, and through the K
pattern when the envelope refuses a pivot or a checkpoint is written."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import fembody as fb
from fembody.patterns import AssemblyTarget
from fembody.run import checkpoint as ckpt
from fembody.linalg import envelope, linalg
from fembody.linalg.envelope_target import assembly_target


MAT = fb.Material(E=70e9, rho=2700.0, nu=0.33)
SEC = fb.Section.rectangle(0.02, 0.02)


def cantilever(n: int = 40, point_mass: bool = False, pin: bool = False) -> fb.Model:
    """A horizontal cantilever released under gravity with a tip load (large motion)."""
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.0), (1.0, 0.0), n=n, material=MAT, section=SEC)
    if pin:
        m.add_joint(fb.Pin(m.ground, b.first))
    else:
        m.fix(b.first)
    m.add_force(b.last, (0.0, -5.0))
    if point_mass:
        m.add_mass(b.last, 0.05)
    return m


class Counting:
    """Counts the factorisations of matrices assembled in the envelope's rows."""

    def __init__(self, monkeypatch):
        self.n = 0
        orig = envelope.EnvelopeLDL.factorize_values

        def counted(env, values, *a):
            self.n += 1
            return orig(env, values, *a)
        monkeypatch.setattr(envelope.EnvelopeLDL, "factorize_values", counted)


def needs_rows(configuration_space):
    if configuration_space != "planar":
        pytest.skip("angles as unit complex numbers: the beams' masses are not in their pass "
                    "(fused_mass), so neither is the iteration matrix (the CSC path)")


def no_target(monkeypatch):
    monkeypatch.setattr(linalg.SaddlePointSolver, "assembly_target",
                        lambda self, system, inertia=True: None)


@pytest.mark.parametrize("newton", ["full", "modified"])
def test_the_envelopes_rows_give_the_csc_paths_run_bit_for_bit(newton, monkeypatch,
                                                              configuration_space):
    kw = dict(t_end=0.02, dt=1e-3, rho_inf=0.9, newton=newton)
    count = Counting(monkeypatch)
    direct = fb.simulate(cantilever(), **kw)
    # every factorisation but two used the rows: the mass matrix's (initial accelerations)
    # and the first iteration's (which picks the envelope); none in the complex space
    if configuration_space == "planar":
        assert count.n == direct.stats["n_factor"] - 2 > 5
    else:
        assert count.n == 0
    with monkeypatch.context() as mp:
        no_target(mp)
        before = count.n
        csc = fb.simulate(cantilever(), **kw)
        assert count.n == before
    for key in ("q", "v", "a"):
        assert np.array_equal(getattr(direct, key), getattr(csc, key)), key
    assert direct.stats["n_newton"] == csc.stats["n_newton"]
    assert np.abs(direct.q[-1] - direct.q[0]).max() > 1e-3         # it moved


@pytest.mark.parametrize("model", ["point mass", "pin"])
def test_other_tangents_take_the_csc_path(model, monkeypatch):
    # a point mass is not in the beams' pass; a joint adds constraint rows
    count = Counting(monkeypatch)
    m = cantilever(n=20, point_mass=model == "point mass", pin=model == "pin")
    res = fb.simulate(m, t_end=0.005, dt=1e-3, newton="full")
    assert res.stats["status"] == "finished" and count.n == 0
    s = m.compile()
    env = envelope.EnvelopeLDL(s.indptr, s.indices, s.n_free)
    assert assembly_target(s, env) is None
    # without the masses (a static tangent) a point mass does not stand in the way
    assert (assembly_target(s, env, inertia=False) is None) == (
        model == "pin" or not s.space.additive)
    if model == "pin":
        return
    # a System of another pattern with as many unknowns
    two = fb.Model()
    for y in (0.0, 1.0):
        b = two.add_beam((0.0, y), (1.0, y), n=10, material=MAT, section=SEC)
        two.fix(b.first)
    other = two.compile()
    assert other.n_free == s.n_free and assembly_target(other, env, inertia=False) is None


def test_values_read_back_on_the_k_pattern_are_the_csc_assembly(configuration_space):
    needs_rows(configuration_space)
    s = cantilever(n=30).compile()
    rng = np.random.default_rng(3)
    q = s.q0 + 0.05 * rng.standard_normal(s.n_dof)        # a deformed, rotated state
    a = rng.standard_normal(s.n_dof)
    env = envelope.EnvelopeLDL(s.indptr, s.indices, s.n_free)
    target = assembly_target(s, env)
    assert target is not None and target.values.shape == env.env.shape
    target.values[:] = np.nan                                 # every slot is written or zeroed
    f1, fin1, K1, _ = s.internal_inertial_forces(q, None, a, 2.5e5, True)
    f2, fin2, T, _ = s.internal_inertial_forces(q, None, a, 2.5e5, True, out=target)
    assert T is target and not np.isnan(target.values[:-1]).any()
    assert np.array_equal(f1, f2) and np.array_equal(fin1, fin2)
    assert np.array_equal(target.csc_data(), K1)
    assert np.array_equal(target.csc().toarray(), s.csc(K1).toarray())
    # and its factorisation is the CSC values' one
    assert env.factorize_values(target.values)
    L1, d1 = env.env.copy(), env.dinv.copy()
    assert env.factorize_indefinite(K1)
    # (the last slot is the scatter's spare one, for the upper triangle)
    assert np.array_equal(L1[:-1], env.env[:-1]) and np.array_equal(d1, env.dinv)


def test_a_refused_pivot_goes_through_the_k_pattern(configuration_space, monkeypatch):
    needs_rows(configuration_space)
    s = cantilever(n=30).compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    solver = linalg.saddle_solver(s)
    solver.factorize(K, np.zeros(0))                 # picks auto's envelope LDL^T
    target = solver.assembly_target(s, inertia=False)
    assert target is not None and solver.active == "envelope"
    # a zero first pivot: the unpivoted LDL^T refuses it, the banded LU (pivoting) does not
    env = target.owner
    data = K.copy()
    data[s.diag_pos[int(env.perm[0])]] = 0.0
    A = s.csc(data).toarray()
    target.values[:] = 0.0
    target.values[env.dst] = data                    # the upper triangle to the spare slot
    tried = []                                   # the refused matrix is not tried again
    monkeypatch.setattr(envelope.EnvelopeLDL, "factorize_indefinite",
                        lambda *a, **k: tried.append(1))
    solver.factorize(target, np.zeros(0), owned=True)
    assert solver.active == "banded" and not tried
    b = np.linspace(1.0, 2.0, s.n_free)
    x, _ = solver.solve(b, np.zeros(0))
    ref = spla.spsolve(sp.csc_matrix(A), b)
    assert np.abs(x - ref).max() <= 1e-9 * np.abs(ref).max()
    assert solver.assembly_target(s, inertia=False) is None    # the CSC path from now on


def test_a_checkpoint_saves_the_matrix_on_the_k_pattern_and_the_resumed_run_is_the_same(
        tmp_path, monkeypatch, configuration_space):
    needs_rows(configuration_space)
    kw = dict(t_end=0.03, dt=1e-3, newton="modified")
    count = Counting(monkeypatch)
    full = fb.simulate(cantilever(), **kw)
    assert count.n > 0
    path = tmp_path / "run.ckpt"

    def cb(res):
        if res.time[-1] >= 0.015:
            raise KeyboardInterrupt
    part = fb.simulate(cantilever(), checkpoint=path, checkpoint_every=5, callback=cb, **kw)
    assert part.stats["status"] == "interrupted"
    assert ckpt.read_header(path)[0]["t"] < part.time[-1]
    res = fb.resume(path, cantilever)
    for key in ("time", "q", "v", "a"):
        assert np.array_equal(getattr(full, key), getattr(res, key)), key
    for key in ("n_newton", "n_factor"):
        assert full.stats[key] == res.stats[key], key


def test_the_solver_saves_a_target_as_csc_data(configuration_space):
    needs_rows(configuration_space)
    s = cantilever(n=20).compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    solver = linalg.saddle_solver(s)
    solver.factorize(K, np.zeros(0))
    target = solver.assembly_target(s, inertia=False).fresh()
    target.values[:] = 0.0
    target.values[target.owner.dst] = K
    solver.factorize(target, np.zeros(0), owned=True)
    assert solver.factorized[0] is target
    state = solver.checkpoint_state()
    assert isinstance(state["factorized"][0], np.ndarray)
    assert np.array_equal(state["factorized"][0], K)
    assert "_target" not in state and not isinstance(state.get("_target"), AssemblyTarget)


def column(n: int = 30, P: float = 0.0) -> fb.Model:
    """A clamped column of 1 m (E I = 933 N m^2: Euler load pi^2 E I / 4 L^2 = 2.3 kN) under
    an axial load ``P`` [N] with a small side load."""
    m = fb.Model()
    b = m.add_beam((0.0, 0.0), (0.0, 1.0), n=n, material=MAT, section=SEC)
    m.fix(b.first)
    m.add_force(b.last, (2.0, -P))
    return m


@pytest.mark.filterwarnings("ignore::fembody.errors.StabilityWarning")
@pytest.mark.parametrize("case", ["newton", "arc-length", "past the Euler load"])
def test_statics_in_the_envelopes_rows_is_the_csc_paths_bit_for_bit(case, monkeypatch,
                                                                    configuration_space):
    kw = dict(steps=6, method="arc-length" if case == "arc-length" else "newton",
              unstable="accept")          # past the Euler load on purpose
    build = (lambda: column(P=2e4)) if case == "past the Euler load" else (lambda: column(P=500))
    count = Counting(monkeypatch)
    direct = fb.static(build(), **kw)
    assert (count.n > 5) == (configuration_space == "planar")
    with monkeypatch.context() as mp:
        no_target(mp)
        before = count.n
        csc = fb.static(build(), **kw)
        assert count.n == before
    assert np.array_equal(direct.q, csc.q) and direct.q.shape == csc.q.shape
    assert np.array_equal(direct.stability, csc.stability, equal_nan=True)
    assert direct.stats["n_newton"] == csc.stats["n_newton"]
    if case == "past the Euler load":
        # the straight column under 8.7 Euler loads: the stability check read the tangent
        # back from the envelope's rows and found it unstable
        assert np.nanmin(direct.stability) < 0.0


def test_another_systems_target_is_refused(configuration_space):
    needs_rows(configuration_space)
    a, b = cantilever(n=10).compile(), cantilever(n=10).compile()
    target = assembly_target(a, envelope.EnvelopeLDL(a.indptr, a.indices, a.n_free))
    assert target is not None
    with pytest.raises(ValueError, match="another System"):
        b.internal_forces(b.q0, None, True, out=target)


def test_impacts_on_the_envelopes_rows_are_the_csc_paths(monkeypatch, configuration_space):
    # a beam dropped on its two ends (impulse contact, e = 0.5): restarts after every impact
    needs_rows(configuration_space)

    def falling():
        m = fb.Model(gravity=(0.0, -9.81))
        b = m.add_beam((0.0, 0.02), (1.0, 0.06), n=20, material=MAT, section=SEC)
        for node in (b.first, b.last):
            m.add_contact(node, plane=((0.0, 0.0), (0.0, 1.0)), restitution=0.5)
        return m
    count = Counting(monkeypatch)
    direct = fb.simulate(falling(), t_end=0.15, dt=1e-3)
    assert count.n > 50 and len(direct.impacts) >= 4
    no_target(monkeypatch)
    csc = fb.simulate(falling(), t_end=0.15, dt=1e-3)
    assert np.array_equal(direct.q, csc.q) and np.array_equal(direct.v, csc.v)
    assert direct.impacts == csc.impacts


def test_a_linear_solver_keeps_a_copy_of_a_target_for_checkpoints(configuration_space):
    needs_rows(configuration_space)
    s = cantilever(n=20).compile()
    _, K, _ = s.internal_forces(s.q0, None, True)
    solver = linalg.LinearSolver()
    solver.factorize(s.csc(K))                           # picks the envelope LDL^T
    env = solver.envelope_ldl
    target = assembly_target(s, env, inertia=False)
    s.internal_forces(s.q0, None, True, out=target)
    solver.factorize(target)
    assert solver.active == "envelope" and solver.n_factor == 2
    kept = solver.factorized
    target.values[:] = np.nan                            # the next tangent's assembly
    assert np.array_equal(kept.data, K) and np.array_equal(kept.indices, s.indices)
    b = np.linspace(1.0, 2.0, s.n_free)
    ref = spla.spsolve(s.csc(K), b)
    assert np.abs(solver.solve(b) - ref).max() <= 1e-9 * np.abs(ref).max()


@pytest.mark.filterwarnings("ignore::fembody.errors.StabilityWarning")
@pytest.mark.parametrize("method", ["newton", "arc-length"])
def test_statics_reuses_a_few_target_buffers(method, monkeypatch, configuration_space):
    """fb.static's tangents go into a pool of targets reused once no factorisation or
    stability check reads them (statics._Equilibrium.k_buffer), not a new array per
    iteration; the numbers are those of the CSC path (the test above, bit for bit)."""
    needs_rows(configuration_space)
    seen = []
    orig = envelope.EnvelopeLDL.factorize_values

    def recorded(env, values, *a):
        seen.append(id(values))
        return orig(env, values, *a)
    monkeypatch.setattr(envelope.EnvelopeLDL, "factorize_values", recorded)
    with monkeypatch.context() as mp:
        no_target(mp)
        csc = fb.static(column(P=500), steps=6, method=method)
    res = fb.static(column(P=500), steps=6, method=method)
    assert len(seen) > 10                # a factorisation per iteration, in the rows
    assert len(set(seen)) <= 3           # (before: as many buffers as factorisations)
    assert np.array_equal(res.q, csc.q)
