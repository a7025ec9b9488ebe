"""The compiled step of larger mechanisms: its banded LU (fembody.dynamics._step_kernels
``band_factor``/``band_solve`` behind ``factor``/``solve``) and the ordering and size rule
that let a model into it (fembody.dynamics.compiled_step ``band_ordering``,
``factor_arrays``, ``size_reason``).

References: LAPACK's dense LU (numpy.linalg.solve) and banded LU (scipy.linalg.solve_banded,
gbsv) on the same matrices; the Python path of the same integrator (``compiled=False``,
fembody's sparse saddle-point solvers) on whole runs. Tolerances: a backward-stable LU solves
to round-off times the condition number (the random matrices here have conditions below
about 1e4: 1e-11 relative); whole runs as tests/dynamics/test_compiled_step.py argues (q to
1e-12 relative, v and lam to 1e-12 or twice the change the Python path's own switch to its
dense LU makes, counters equal)."""
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.linalg

import fembody as fb
from fembody.dynamics import _step_kernels as sk
from fembody.dynamics import compiled_step
from fembody.examples import spatial_chain
from tests.kernel_source import python_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import mechanism_models as mm  # noqa: E402

COUNTERS = ("n_residual", "n_tangent", "n_factor", "n_solve", "n_newton", "n_steps",
            "n_rejected", "n_predictor_fallbacks", "n_index1")

# the band and saddle-point LU are inner kernels of the compiled step, which its extension
# does not export: their own source under CPython (tests/kernel_source.py), not numba's JIT
py_band_factor, py_band_solve, py_factor, py_solve = (
    python_kernel(k) for k in (sk.band_factor, sk.band_solve, sk.factor, sk.solve))


def banded(rng, n, kl, ku, diag=1.0):
    """A random ``n x n`` matrix with ``kl`` sub- and ``ku`` super-diagonals, its diagonal
    scaled by ``diag`` (small: partial pivoting must swap rows), and its band storage for
    :func:`band_factor` (``2 kl + ku + 1`` columns, the last ``kl`` the fill's room)."""
    A = np.zeros((n, n))
    for i in range(n):
        lo, hi = max(0, i - kl), min(n, i + ku + 1)
        A[i, lo:hi] = rng.normal(size=hi - lo)
    A[np.arange(n), np.arange(n)] *= diag
    AB = np.zeros((n, 2 * kl + ku + 1))
    for i in range(n):
        for j in range(max(0, i - kl), min(n, i + ku + 1)):
            AB[i, j - i + kl] = A[i, j]
    return A, AB


@pytest.mark.one_space
@pytest.mark.parametrize("n,kl,ku,diag", [(1, 0, 0, 1.0), (7, 1, 2, 1.0), (40, 3, 3, 1e-3),
                                          (45, 5, 2, 1e-3), (60, 7, 7, 0.0), (30, 0, 4, 5.0),
                                          (30, 4, 0, 5.0)])
def test_band_lu_solves_like_lapack(n, kl, ku, diag):
    """band_factor / band_solve against LAPACK's gbsv (scipy.linalg.solve_banded) and dense
    LU on random band matrices, some with a small or zero diagonal (rows must be swapped:
    the count of swaps is checked non-zero there), to 1e-11 relative."""
    rng = np.random.default_rng(n + 10 * kl + ku)
    A, AB = banded(rng, n, kl, ku, diag)
    b = rng.normal(size=n)
    piv = np.zeros(n, dtype=np.int64)
    assert py_band_factor(AB, kl, ku, piv)
    x = b.copy()
    py_band_solve(AB, kl, ku, piv, x)
    ab = np.zeros((kl + ku + 1, n))                  # LAPACK's storage: ab[ku + i - j, j]
    for j in range(n):
        for i in range(max(0, j - ku), min(n, j + kl + 1)):
            ab[ku + i - j, j] = A[i, j]
    ref = scipy.linalg.solve_banded((kl, ku), ab, b)
    assert np.linalg.cond(A) < 1e4
    assert np.abs(x - ref).max() <= 1e-11 * np.abs(ref).max()
    assert np.abs(x - np.linalg.solve(A, b)).max() <= 1e-11 * np.abs(ref).max()
    if diag < 1.0 and kl > 0:
        assert (piv != np.arange(n)).sum() > n // 2


@pytest.mark.one_space
def test_band_lu_refuses_singular_matrices():
    """A zero row, a zero column and a NaN are refused (the step goes back to Python), as
    the dense LU does."""
    rng = np.random.default_rng(5)
    piv = np.zeros(30, dtype=np.int64)
    for spoil in ("row", "column", "nan"):
        A, AB = banded(rng, 30, 3, 2)
        if spoil == "row":
            AB[11] = 0.0
        elif spoil == "column":
            for i in range(30):
                j = 17 - i + 3
                if 0 <= j < AB.shape[1]:
                    AB[i, j] = 0.0
        else:
            AB[4, 3] = np.nan
        assert not py_band_factor(AB, 3, 2, piv), spoil


def saddle(system, rng):
    """A random bordered matrix ``[[S, B^T], [B, 0]]`` on the pattern the compiled step
    assembles for ``system`` (S symmetric positive definite on it, B random)."""
    nf, n = system.n_free, system.n_free + system.n_con
    rows, cols = compiled_step._saddle_edges(system)
    A = np.zeros((n, n))
    A[rows, cols] = rng.normal(size=rows.size)
    S = A[:nf, :nf]
    S[:] = (S + S.T) / 2 + nf * np.eye(nf)
    A[nf:, nf:] = 0.0
    A[:nf, nf:] = A[nf:, :nf].T
    return A


def in_band(A, piv):
    """The dense ``A`` as the compiled step assembles it in the band (``piv`` of the layout
    with positions, :func:`fembody.dynamics._step_kernels.factor`): the ordered matrix's
    rows, columns ``i - kl .. i + ku`` (every entry of ``A`` inside: checked)."""
    n = A.shape[0]
    perm, kl, ku = piv[n:2 * n], int(piv[2 * n]), int(piv[2 * n + 1])
    P = A[np.ix_(perm, perm)]
    i, j = np.nonzero(P)
    assert (j - i <= ku).all() and (i - j <= kl).all()
    Ab = np.zeros((n, kl + ku + 1))
    Ab[i, j - i + kl] = P[i, j]
    return Ab


@pytest.mark.one_space
def test_banded_factor_of_a_saddle_matrix_solves_like_numpy():
    """``factor``/``solve`` in the banded layout that ``factor_arrays`` gives the 20-link
    chain (220 unknowns) solve a random saddle matrix on its pattern as numpy's dense LU
    solves the same scaled matrix (the constraint rows and columns times the returned
    scale), to 1e-11 relative; the dense layout gives the same scale. With two constraint
    rows made equal the matrix is singular: both layouts refuse it. The chain's families all
    assemble in the band: the matrix is handed over in band storage (:func:`in_band`)."""
    s = mm.chain()[0].compile()
    LU, piv, kind = compiled_step.factor_arrays(s)
    assert kind == "banded" and LU.shape[1] < LU.shape[0] // 4
    nf, n = s.n_free, s.n_free + s.n_con
    assert piv.shape[0] == 3 * n + 2
    rng = np.random.default_rng(7)
    A = saddle(s, rng)
    ok, sc = py_factor(in_band(A, piv), LU, piv, nf, int(s.B_nnz))
    LUd, pivd = np.zeros((n, n)), np.zeros(n, dtype=np.int64)
    okd, scd = py_factor(A, LUd, pivd, nf, int(s.B_nnz))
    assert ok and okd and sc == pytest.approx(scd, rel=1e-14)
    As = A.copy()
    As[nf:, :] *= sc
    As[:, nf:] *= sc
    b = rng.normal(size=n)
    x = b.copy()
    py_solve(LU, piv, x)
    ref = np.linalg.solve(As, b)
    assert np.linalg.cond(As) < 1e5
    assert np.abs(x - ref).max() <= 1e-11 * np.abs(ref).max()
    # a constraint row repeated: a zero pivot
    bad = A.copy()
    bad[nf + 7] = bad[nf + 3]
    bad[:, nf + 7] = bad[:, nf + 3]
    assert not py_factor(in_band(bad, piv), LU, piv, nf, int(s.B_nnz))[0]
    assert not py_factor(bad, LUd, pivd, nf, int(s.B_nnz))[0]


@pytest.mark.one_space
def test_band_of_a_chain_does_not_grow_with_its_length():
    """The ordering keeps each joint's rows with the two bodies it connects: those 5 + 12
    unknowns meet each other (B, and the bodies' coupling through the joint's Hessian term),
    so no order has a band below 16; the ordering reaches 16 for chains of every length."""
    for n in (4, 20, 50):
        s = mm.chain(n=n)[0].compile()
        perm, kl, ku = compiled_step.band_ordering(s)
        assert (kl, ku) == (16, 16), n
        assert np.array_equal(np.sort(perm), np.arange(s.n_free + s.n_con))


@pytest.mark.one_space
def test_dense_or_banded_by_cost():
    """Up to MAX_DENSE unknowns the dense LU (the heavy top, 11); beyond, the cheaper one:
    banded for the 20-link chain (220 unknowns, a band of 16 + 16), dense for a hub with 14
    bars hinged around it (163 unknowns: the hub's six DOFs meet every joint's rows, so no
    order has a narrow band). A hub with 20 bars (229 unknowns, its dense LU above
    MAX_LU_OPS) keeps the Python path, and ``why_not`` says why; the 50-link chain (550
    unknowns) is assembled in the band (positions in ``piv``)."""
    assert compiled_step.factor_arrays(mm.heavy_top()[0].compile())[2] == "dense"
    s = mm.chain(n=20)[0].compile()
    assert compiled_step.why_not(s) == ""
    assert compiled_step.factor_arrays(s)[2] == "banded"
    s = star(14).compile()
    assert s.n_free + s.n_con > compiled_step.MAX_DENSE and compiled_step.why_not(s) == ""
    assert compiled_step.factor_arrays(s)[2] == "dense"
    why = compiled_step.why_not(star(20).compile())
    assert "229 unknowns whose cheaper LU (dense" in why and "multiply-adds" in why, why
    with pytest.raises(ValueError, match="multiply-adds"):
        compiled_step.factor_arrays(star(20).compile())
    s = mm.chain(n=50)[0].compile()
    assert compiled_step.why_not(s) == ""
    LU, piv, kind = compiled_step.factor_arrays(s)
    assert kind == "banded" and piv.shape[0] == 3 * 550 + 2 and LU.shape == (550, 49)


def planar_chain(n: int):
    """``n`` planar bars (0.1 m, 0.1 kg) pinned end to end along x, the first to the ground:
    5 unknowns a link, a band of a few diagonals after ordering."""
    m = fb.Model(gravity=(0.0, -9.81))
    node = m.ground
    for k in range(n):
        bar = m.add_rigid_body((0.1 * k, 0.0), 0.1, 1e-4, offset=(0.05, 0.0))
        m.add_joint(fb.Pin(node, bar.node, at=(0.1 * k, 0.0)))
        node = bar.node
    return m


def test_too_large_models_say_why(monkeypatch):
    """The size rule's reasons: a planar chain of 60 links (300 unknowns) has a banded LU
    within MAX_LU_OPS, but the planar families write dense tangents: beyond
    MAX_DENSE_ASSEMBLY it keeps the Python path and ``why_not`` names the dense assembly
    (the 50-link planar chain, 250 unknowns, runs); a 100-link spatial chain whose matrices
    would exceed a lowered MAX_STEP_BYTES (its band storage: 1100 x (4 x 33 + 49) x 8 B,
    1.52 MiB, against 1 MiB) names the memory; a model above MAX_UNKNOWNS names the count
    without being ordered."""
    assert compiled_step.why_not(planar_chain(50).compile()) == ""
    s = planar_chain(60).compile()
    assert s.n_free + s.n_con == 300
    why = compiled_step.why_not(s)
    assert "300 unknowns assembled densely (more than 256)" in why and "planar" in why, why
    with pytest.raises(ValueError, match="assembled densely"):
        compiled_step.factor_arrays(s)
    s = mm.chain(n=100)[0].compile()
    assert compiled_step.why_not(s) == ""
    assert compiled_step.step_bytes(1100, "banded", 16, 16, True) == 8 * 1100 * (4 * 33 + 49)
    monkeypatch.setattr(compiled_step, "MAX_STEP_BYTES", 2 ** 20)
    why = compiled_step.why_not(s)
    assert "1100 unknowns whose matrices (banded LU" in why and "1.52 MiB" in why, why
    monkeypatch.setattr(compiled_step, "MAX_UNKNOWNS", 1000)
    monkeypatch.setattr(compiled_step, "band_ordering", None)     # (not called)
    assert compiled_step.why_not(s) == "1100 unknowns (more than 1000)"


@pytest.mark.one_space
@pytest.mark.parametrize("name", ["chain-20", "branched", "loaded"])
def test_band_assembly_equals_the_dense_one(name):
    """The iteration matrix the step assembles in the band equals the one it assembles
    densely, entry for entry (to 1e-13 of the largest entry: the order of summation of a
    rotation column's T^-1 mixing), at random states of a chain, a branched tree and a
    chain with springs and turning loads (every family that assembles in the band), with
    random multipliers (the Hessian terms) and random T^-1; and nothing is
    written outside the ordering's band (:func:`in_band` checks). ``_evaluate`` is not an
    export of the extension: its source runs under CPython (tests/kernel_source.py; numba's
    compile of it took about a minute of CPU), the same arithmetic in the same order."""
    fn = {"chain-20": lambda: mm.chain()[0], "branched": lambda: branched(3, 2, 3),
          "loaded": chain_loaded}[name]
    model = fn()
    s = model.compile()
    assert compiled_step.band_assembled(s) and s.n_free + s.n_con > compiled_step.MAX_DENSE
    step = compiled_step.CompiledStep(_Integ(s))
    assert step.piv.shape[0] == 3 * (s.n_free + s.n_con) + 2
    rng = np.random.default_rng(len(name))
    nf, nc, n = s.n_free, s.n_con, s.n_free + s.n_con
    sp = s.space
    dv = np.zeros(s.n_dof)
    dv[np.asarray(s.free)] = 0.3 * rng.normal(size=nf)
    q1 = sp.update(s.q0, dv)
    v1, qdd1 = rng.normal(size=s.n_dof), rng.normal(size=s.n_dof)
    lam1 = rng.normal(size=nc)
    groups = step.groups
    D = 0.2 * rng.normal(size=nf)
    Tinv = np.empty((groups.shape[0], 3, 3))
    sk.lie_inverse_tangents(D, groups, Tinv)
    py_work, py_space_maps, py_evaluate = (
        python_kernel(k) for k in (sk._work, sk._space_maps, sk._evaluate))
    out = {}
    for mode in ("dense", "band"):
        if mode == "dense":
            A = np.zeros((n, n))
            pos, kl, Mc = np.zeros(0, dtype=np.int64), 0, np.ascontiguousarray(
                s.csc(np.asarray(s.M_const, float)).toarray())
            layout = np.zeros(n, dtype=np.int64)            # a dense factors' piv
        else:
            kl, ku = int(step.piv[2 * n]), int(step.piv[2 * n + 1])
            A = np.zeros((n, kl + ku + 1))
            pos, Mc = step.piv[2 * n + 2:].copy(), step.Mc
            layout = step.piv
        # the step's buffers, laid out as the factors say (the free-DOF K, C, M)
        work = py_work(s.n_dof, nf, nc, groups.shape[0], layout)
        r, phi, fc = np.zeros(nf), np.zeros(nc), np.zeros(s.n_dof)
        maps = step.space_i
        nn = step.node_X.shape[0]
        m_rot = int((maps[2, :, 0] >= 0).sum())
        lin_q, cplx, rotation, continuous = py_space_maps(maps, step.lin_v.shape[0], s.n_dof)
        res = py_evaluate(
            q1, v1, qdd1, lam1, True, True, 1.7e5, 410.0, maps[0, :nn, :3].copy(),
            maps[1, :nn, 0].copy(), maps[2, :m_rot, :].copy(), step.node_X, step.fconst, Mc,
            step.g, step.weighed, step.rb_node, step.rb_dofs, step.rb_m, step.rb_Jc, step.rb_c,
            step.jblk, step.j_nodes, step.j_dofs, step.j_rows, step.j_V, step.j_C0, step.j_s,
            step.j_f, step.sp_nodes, step.sp_dofs, step.sp_p, bool(step._ip[6]), step.md_i,
            step.md_f, step.tl_i, step.tl_val, step.free, step.fidx, groups, Tinv, r, phi,
            fc, A, step._planar_args(), lin_q, step.lin_v, cplx, rotation, continuous, pos,
            kl, work)
        out[mode] = (A, r, phi, fc, res)
    Ad = out["dense"][0]
    Ab = in_band(Ad, step.piv)
    assert np.abs(Ad).max() > 0 and np.count_nonzero(Ab) == np.count_nonzero(Ad)
    assert np.abs(out["band"][0] - Ab).max() <= 1e-13 * np.abs(Ad).max()
    for k in (1, 2, 3):
        np.testing.assert_array_equal(out["band"][k], out["dense"][k])


class _Integ:
    """What CompiledStep reads of an integrator (the Lie map's groups, the options)."""

    def __init__(self, s):
        from fembody.dynamics.newmark import GeneralizedAlpha
        g = GeneralizedAlpha(s, rho_inf=0.9)
        self.__dict__.update({k: getattr(g, k) for k in (
            "sys", "q", "_lie", "alpha_m", "alpha_f", "gamma", "beta", "tol", "ptol",
            "xtol", "length", "reuse_rate", "max_iter", "newton")})


def chain_loaded(n: int = 8):
    """The ``n``-link chain with damped springs between two neighbouring bars and from one to
    a fixed point, a follower force and a global moment (turning loads), and point masses on
    two bars' nodes (constant mass entries: the step's ``M_const`` assembled in the band)."""
    m, bars = spatial_chain.build_model(n)
    a, b, c = (bars[i].node for i in (2, 3, 5))
    m.add_mass(a, 0.02)
    m.add_mass(c, 0.03)
    m.add_spring(a, b, k=50.0, c=0.3)
    m.add_spring(c, (0.5, 0.0, 0.2), k=20.0)
    m.add_force(b, (0.1, 0.2, -0.3), follower=True)
    m.add_torque(c, (0.01, -0.02, 0.03))
    return m


def star(k: int):
    """A hub body hinged to the ground with ``k`` bars hinged around it."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    hub = m.add_rigid_body((0.0, 0.0, 0.0), 1.0, (0.1, 0.1, 0.1))
    m.add_joint(fb.Spherical(m.ground, hub.node, at=(0.0, 0.0, 0.0)))
    for i in range(k):
        c, s = np.cos(2 * np.pi * i / k), np.sin(2 * np.pi * i / k)
        bar = m.add_rigid_body((0.1 * c, 0.1 * s, 0.0), 0.1, (1e-5, 1e-4, 1e-4),
                               offset=(0.05 * c, 0.05 * s, 0.0))
        m.add_joint(fb.Revolute(hub.node, bar.node, axis=(-s, c, 0.0),
                                at=(0.1 * c, 0.1 * s, 0.0)))
    return m


def branched(trunk: int = 4, arms: int = 3, arm: int = 4):
    """A branched mechanism (a tree): a trunk of ``trunk`` bars in a line along x, the first
    hinged to the ground, and ``arms`` arms of ``arm`` bars each hinged to the trunk's far
    end, spread in the horizontal plane; hinge axes alternate between y and z as in the
    chain (fembody/examples/spatial_chain.py: 0.1 m, 0.1 kg, 10 mm square bars)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    L, mass, side = 0.1, 0.1, 0.01
    Jx, Jt = mass * 2 * side**2 / 12, mass * (L**2 + side**2) / 12

    def bar(parent, at, d, k):
        d = np.asarray(d, float) / np.linalg.norm(d)
        # the inertia (Jx along the bar, Jt across) turned onto d
        J = Jt * np.eye(3) + (Jx - Jt) * np.outer(d, d)
        body = m.add_rigid_body(tuple(at), mass, J, offset=tuple(0.5 * L * d))
        axis = (0.0, 1.0, 0.0) if k % 2 == 0 else (0.0, 0.0, 1.0)
        m.add_joint(fb.Revolute(parent, body.node, axis=axis, at=tuple(at)))
        return body.node, np.asarray(at, float) + L * d
    node, end = m.ground, np.zeros(3)
    for k in range(trunk):
        node, end = bar(node, end, (1.0, 0.0, 0.0), k)
    for a in range(arms):
        t = (a - (arms - 1) / 2) * 0.6
        d = (np.cos(t), np.sin(t), 0.0)
        n2, e2 = node, end
        for k in range(arm):
            n2, e2 = bar(n2, e2, d, trunk + k)
    return m


def run_both(model_fn, **options):
    opts = dict(t_end=0.03, dt=1e-3, tol=1e-10)
    opts.update(options)
    return [fb.simulate(model_fn(), compiled=c, **opts) for c in (False, True)]


def rel(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.abs(a - b).max() / max(np.abs(a).max(), 1e-300)


def dense_arrays(system):
    """The dense LU's factor arrays for any size (the compiled step as it was before the
    banded LU: the reference for what the banded one changes)."""
    n = system.n_free + system.n_con
    return np.zeros((n, n)), np.zeros(n, dtype=np.int64), "dense"


@pytest.mark.one_space
@pytest.mark.parametrize("newton", ["full", "modified"])
@pytest.mark.parametrize("name", ["chain-20", "branched", "hub"])
def test_banded_compiled_step_matches_the_python_path(name, newton, monkeypatch):
    """The 20-link chain (220 unknowns, a band of 16 + 16) and a branched mechanism (a trunk
    of 4 bars with two arms of 6, 176 unknowns, 27 + 27), every step compiled with the
    banded LU, and a hub with 14 hinged bars (163 unknowns) with the dense LU beyond
    MAX_DENSE: the counters of the Python path and q to 1e-12 relative. v and lam carry
    the last Newton increment times gamma/(beta h) and the mass scale: the compiled step
    with its dense LU differs from the Python path there by up to 4.8e-12 on the chain
    (measured; the assembly's order of summation), so the banded step is held to what the
    banded LU changes: within 1e-12 (3e-12 for v and lam, measured on two CPUs), or twice the
    Python path's own change under its dense LU, of the compiled step with the dense LU,
    and no further from the Python path than that step plus the same floor."""
    fn = {"chain-20": lambda: mm.chain()[0], "branched": lambda: branched(4, 2, 6),
          "hub": lambda: star(14)}[name]
    s = fn().compile()
    assert compiled_step.why_not(s) == "" and s.n_free + s.n_con > compiled_step.MAX_DENSE
    assert compiled_step.factor_arrays(s)[2] == ("dense" if name == "hub" else "banded")
    opts = dict(t_end=0.03, dt=1e-3, tol=1e-10, newton=newton)
    py, cc = run_both(fn, **opts)
    dense = fb.simulate(fn(), compiled=False, linear_solver="dense", **opts)
    with monkeypatch.context() as mp:
        mp.setattr(compiled_step, "factor_arrays", dense_arrays)
        cd = fb.simulate(fn(), **opts)
    for r in (cc, cd):
        assert r.stats["n_compiled_steps"] == r.stats["n_steps"] == 30
        assert r.stats["n_compiled_fallbacks"] == 0
        for k in COUNTERS:
            assert py.stats[k] == r.stats[k], k
        assert rel(py.q, r.q) <= 1e-12
        np.testing.assert_array_equal(py.iterations, r.iterations)
    for f in ("v", "lam", "a"):
        own = rel(getattr(py, f), getattr(dense, f))
        dense_step = rel(getattr(py, f), getattr(cd, f))
        # (v and lam carry the last Newton increment times gamma/(beta h) and the mass
        # scale, so the LU's rounding shows there first: the banded LU moved them 1.0e-12-
        # 2.6e-12 from the dense one on an AMD EPYC, within 1e-12 on the Intel Xeon this
        # bound was first measured on (OpenBLAS picks its LAPACK kernels by CPU); q, held to
        # 1e-12 above, and the accelerations stay within 1e-12 on both)
        floor = 3e-12 if f in ("v", "lam") else 1e-12
        assert rel(getattr(cd, f), getattr(cc, f)) <= max(floor, 2.0 * own), f
        assert rel(getattr(py, f), getattr(cc, f)) <= dense_step + floor, f


@pytest.mark.one_space
def test_a_singular_banded_step_is_named_by_the_python_path(monkeypatch):
    """A massless node hanging on a spring from the end of a 6-link chain (69 unknowns: the
    banded LU) can move freely: the compiled step meets a zero pivot and hands the step
    back, and the Python path's SingularSystemError names the node's DOFs."""
    m, bars = spatial_chain.build_model(6)
    loose = m.add_node((0.6, 0.0, -0.5), name="loose")
    m.add_spring(bars[-1].node, loose, k=100.0)
    assert compiled_step.why_not(m.compile()) == ""
    assert compiled_step.factor_arrays(m.compile())[2] == "banded"
    seen = []
    call = compiled_step.CompiledStep.__call__

    def spy(self, integ, h):
        out = call(self, integ, h)
        seen.append((out, self.piv.shape[0] > self.LU.shape[0]))
        return out
    monkeypatch.setattr(compiled_step.CompiledStep, "__call__", spy)
    with pytest.raises(fb.SingularSystemError, match="node 7 'loose'") as exc:
        fb.simulate(m, t_end=0.003, dt=1e-3)
    assert seen and seen[0] == (False, True)          # the banded step handed back
    assert any("'loose'" in d and d.endswith(" z") for d in exc.value.dofs)


@pytest.mark.one_space
def test_a_resumed_banded_run_continues_bit_for_bit(tmp_path):
    """A checkpoint pickles the compiled step with its banded factors (the ordering and band
    widths in ``piv``): the 20-link chain resumed under modified Newton, which reuses those
    factors across steps, keeps stepping compiled and ends where the uninterrupted run
    ends, bit for bit, with the same factorisations."""
    path = tmp_path / "chain.fbc"

    def stop(res):
        if res.time[-1] >= 0.01:
            raise KeyboardInterrupt

    opts = dict(t_end=0.02, dt=1e-3, tol=1e-10, newton="modified")
    full = fb.simulate(mm.chain()[0], **opts)
    fb.simulate(mm.chain()[0], checkpoint=path, callback=stop, **opts)
    res = fb.resume(path, mm.chain()[0])
    assert res.stats["n_compiled_steps"] == full.stats["n_compiled_steps"] == 20
    assert res.stats["n_compiled_fallbacks"] == 0
    assert np.array_equal(full.q, res.q) and np.array_equal(full.lam, res.lam)
    assert res.stats["n_factor"] == full.stats["n_factor"]


@pytest.mark.one_space
@pytest.mark.parametrize("name", ["chain-100", "tree-40"])
def test_band_assembled_step_of_large_mechanisms_matches_the_python_path(name):
    """A 100-link chain (1100 unknowns) and a branched tree of 40 bars (a trunk of 10, two
    arms of 15: 440 unknowns), every step compiled and assembled in the band, full Newton,
    against the Python path (fembody's sparse saddle-point solver): every counter equal, q
    to 1e-12 relative, v, a and lam to 1e-12 or twice what the Python path's own switch to
    its dense LU changes (the bound of tests/dynamics/test_compiled_step.py: the two paths
    differ only in the order of summation and the LU)."""
    fn = {"chain-100": lambda: mm.chain(n=100)[0], "tree-40": lambda: branched(10, 2, 15)}[name]
    s = fn().compile()
    n = s.n_free + s.n_con
    assert n == {"chain-100": 1100, "tree-40": 440}[name] and compiled_step.why_not(s) == ""
    assert compiled_step.factor_arrays(s)[1].shape[0] == 3 * n + 2
    opts = dict(t_end=0.01, dt=1e-3, tol=1e-10)
    py, cc = run_both(fn, **opts)
    dense = fb.simulate(fn(), compiled=False, linear_solver="dense", **opts)
    assert cc.stats["n_compiled_steps"] == cc.stats["n_steps"] == 10
    assert cc.stats["n_compiled_fallbacks"] == 0
    for k in COUNTERS:
        assert py.stats[k] == cc.stats[k], k
    np.testing.assert_array_equal(py.iterations, cc.iterations)
    assert rel(py.q, cc.q) <= 1e-12
    for f in ("v", "lam", "a"):
        own = rel(getattr(py, f), getattr(dense, f))
        assert rel(getattr(py, f), getattr(cc, f)) <= max(1e-12, 2.0 * own), f
