"""The slip a beam pair's friction measures, against the slip of the material surface points
at the contact (issue 33, item 3; cone-33's findings 1 and 2).

**The model's measure until slip-33** (fembody.contact.beams.BeamContactBlock, "Friction";
_kernels._friction_point; friction.coulomb): each Coulomb point ties two points of the two
*chords* (the beams' axes), ``w = x_A(s_a) - x_B(t_a) - o``, and the tangential spring
pulls on ``u = (I - n n^T) w``. The block sees the nodes' translations alone: the force
acts at the axes and puts no moment on the sections.

**The reference**: the slip of the material points of the two *surfaces* that touched at
the anchor, ``x_A(s_a) + R_A (-r_A n0)`` and ``x_B(t_a) + R_B (r_B n0)``, each carried by
its section's rotation from the anchor (``R_A``, ``R_B``; ``n0`` the normal there). Its
tangential part ``u*`` and the force's moment ``(-r_A n) x T`` on A's section (``(r_B
n) x (-T)`` on B's) follow from the energy ``k_t |u*|^2 / 2`` by differentiation with
respect to the translations and rotations. Cases, from the anchor (radii ``r_A = r_B =
R``, contact normal ``n0``, ``n`` the current one):

- a beam lying on another, translated across both axes by ``dy`` (no rotation): the two
  axes' difference is ``2R n0 + dy e`` (``e`` across), ``n`` turned by ``theta``, ``tan
  theta = dy / (2R - delta)`` with the penetration ``delta`` along ``n0``; the surface
  points' difference is ``dy e - delta n0``, whose tangential part has length ``dy cos
  theta + delta sin theta`` (= ``2R sin theta`` at ``delta = 0``: about ``2R dtheta``).
  The chords' difference is along ``n``: the model measures 0.
- pure rolling of A around B (equal radii; A's center turned by ``theta`` about B's axis
  and A's section by ``2 theta``, the coin paradox): the tied points are mirror images in
  the tangent plane, ``w* = 2R (1 - cos theta) n``: no tangential slip (for unequal radii
  ``O(s^3 / r^2)`` with the rolled arc ``s``; the incremental form is exact). The model
  also measures 0 (the chords' difference is along ``n``): a guard.
- a rigid twist ``phi`` of A about its own axis under a fixed crossing B: A's tied point
  moves by ``R sin phi`` along the tangent (B's axis) and ``R (1 - cos phi)`` along the
  normal: slip ``R sin phi``, a force ``k_t R sin phi`` along B and the moment ``R k_t R
  sin phi`` about A's axis (stick). The model sees no translation: 0.
- a pull along A's axis, or a crossing A moved along B's axis (no rotation): both measures
  agree (the translation is tangential, ``n`` does not turn): guards.

Finding 2 (a cantilever pressed on a crossing beam and pulled along B fails Newton) is not
a rotation term: the residual that grows is at the tip's axial (x) DOF, not its torsion
(global DOF 63, 9 DOFs before A's second node: ``63 % 6 == 3`` is not ``rx``). The pair
starts at gap 0 (touching, open), so the first Newton step carries no friction stiffness
(the normal penalty's tangent band covers the normal only) and moves the tip sideways by
``Q / k_lat`` (A's bending, 3 EI / L^3 = 309 N/m), 50 times the stick zone ``mu N / k_t``
(the ratio is the same at every load cut: N and Q scale together); from there the slip
tangent has no stiffness along the slip and each step throws the tip across the anchor to
the other side: Newton cycles. Pulled along A, A's axial stiffness keeps the first step
inside the stick zone. Started 1e-9 m apart it converged (the first step, with no contact,
sinks the tip deep: a stick zone wider than its sideways move). Fixed by the friction's
tangent in the penalty's tangent band (fembody.contact._kernels.crossing_forces, "The
tangent band"); findings 1 and the twist were strict xfails until the block read the
sections' rotations and measured the reference itself (slip-33: BeamContactBlock, "At the
surfaces"; its tangent, a rigid motion and line contact are checked at the end).
"""
import numpy as np
import pytest

import fembody as fb

from .test_cone_edge import K, KT, MU, R, _crossing, _lying

DELTA = 1e-5        # [m] penetration: N = K DELTA per unit of line weight
DY = 1e-6           # [m] the sideways move (stick: KT DY << MU K DELTA)


def _block(sys):
    blk = sys.beam_contact_blocks[0]
    assert type(blk).__name__ == "BeamContactBlock" and blk.kind == "crossing"
    return blk


def _lying_forces(move: np.ndarray, turn: np.ndarray | None = None):
    """The crossing block of cone-33's lying beam (A on B along x, line contact) with A's
    nodes moved by ``move`` [m] from the reference (anchored there, the System's history
    without a run) and (``turn``, a rotation vector [rad]; default None: the displacements
    alone are passed, the sections at their reference rotations) their sections turned:
    the total force (the block's internal force) on A's nodes."""
    m, _, _ = _lying(0.0)
    sys = m.compile()
    blk = _block(sys)
    onA = np.isclose(blk.X[:, :, 2], 2 * R)        # A's nodes lie at z = 2R, B's at 0
    x = np.zeros(blk.X.shape)
    x[onA] = move
    x = x.reshape(len(x), -1)
    if turn is not None:                # (the nodes' rotation vectors follow)
        rv = np.zeros(blk.X.shape)
        rv[onA] = turn
        x = np.concatenate([x, rv.reshape(len(x), -1)], axis=1)
    f, _, _ = blk.forces(x, None, False)
    f = f[:, :blk.X[0].size].reshape(blk.X.shape)
    return f[onA].sum(axis=0), f[~onA].sum(axis=0)


def test_a_lying_beam_moved_along_its_axis_is_held_by_friction():
    """Guard (both measures agree): A lying on B pressed by DELTA and moved along the axes
    by DY sticks with a tangential force KT/K times the normal one per unit of slip over
    penetration (every line point alike)."""
    fA, fB = _lying_forces(np.array([DY, 0.0, -DELTA]))
    assert np.allclose(fA, -fB, rtol=0, atol=1e-12 * np.abs(fA).max())
    ratio = -fA[0] / fA[2]          # (internal force: +k_t u on A along x, -N along z)
    assert abs(ratio / (KT * DY / (K * DELTA)) - 1.0) < 1e-9, ratio


def test_a_lying_beam_moved_across_the_axes_is_held_by_friction():
    """A lying on B, pressed by DELTA and moved across both axes (along y) by DY: the
    surface points slip ``DY cos theta + DELTA sin theta`` along ``t = (0, cos theta, -sin
    theta)``, ``tan theta = DY / (2R - DELTA)``; every line point sticks (KT DY << MU K
    DELTA), so the force on A along t over the one along n is KT |u*| / (K pen), pen = 2R -
    sqrt(DY^2 + (2R - DELTA)^2). On b2465cc the tangential force is ~1e-14 of the normal
    (the chords' difference lies along n)."""
    fA, _ = _lying_forces(np.array([0.0, DY, -DELTA]))
    got, want = across_the_axes(fA)
    assert abs(got / want - 1.0) < 1e-6, (got, want)


def across_the_axes(fA: np.ndarray) -> tuple[float, float]:
    """The force ``fA (3,)`` [N] on a beam lying on another along x, pressed by DELTA and
    moved across both axes (along y) by DY (every line point sticking), as the ratio of its
    parts along ``t`` and ``-n``, and that ratio's reference ``KT |u*| / (K pen)``
    (:func:`test_a_lying_beam_moved_across_the_axes_is_held_by_friction`)."""
    th = np.arctan2(DY, 2 * R - DELTA)
    n = np.array([0.0, np.sin(th), np.cos(th)])
    t = np.array([0.0, np.cos(th), -np.sin(th)])
    pen = 2 * R - np.hypot(DY, 2 * R - DELTA)
    slip = DY * np.cos(th) + DELTA * np.sin(th)
    return float((fA @ t) / -(fA @ n)), float(KT * slip / (K * pen))


def test_rolling_measures_no_slip_with_equal_radii():
    """Guard (pure rolling, equal radii): A's chord turned by theta about B's axis and its
    section by 2 theta (about -x, the coin paradox) keeps the tied surface points'
    difference along the normal, w* = 2R (1 - cos theta) n: no tangential force, only the
    normal one, pressed by DELTA. (Until the block read the sections' rotations, the
    chord's turn alone gave the same: the tied chords' difference along the normal.)"""
    th = 1e-3
    c = 2 * R - DELTA
    fA, _ = _lying_forces(np.array([0.0, c * np.sin(th), c * np.cos(th) - 2 * R]),
                          np.array([-2.0 * th, 0.0, 0.0]))
    n = np.array([0.0, np.sin(th), np.cos(th)])
    assert np.linalg.norm(fA - (fA @ n) * n) < 1e-9 * abs(fA @ n)


# ------------------------------------------------- a crossing pair: A twisted about its axis
def _crossing_system():
    """cone-33's crossing (cantilever A along x, clamped at x = 0, across B along y, fixed,
    at x = 0.95), compiled (its loads are not read here), and A."""
    m, _, _ = _crossing(0.0)
    return m.compile(), m.bodies[0]


def _contact_forces_on_a_moved_rigidly(sys, A, move, phi):
    """The contact blocks' internal forces on A's free nodes (summed: force [N], moment about
    A's axis [N m]) with those nodes moved rigidly: translated by ``move`` and turned by
    ``phi`` about A's axis (the System's reference anchors; the clamped node stays, its
    element's force is not summed)."""
    dq = np.zeros(sys.n_free)
    for nd in A.nodes[1:]:
        for c, v in zip(("x", "y", "z", "rx"), (*move, phi)):
            dq[sys.free_index[sys.dof(nd, c)]] = v
    q = sys.update(sys.q0, dq)
    f = np.zeros(sys.n_dof)
    for blk in sys.beam_contact_blocks:
        fe, _, _ = blk.forces(sys.pose(blk, q), None, False)
        sys.add_vector(f, blk, fe)
    F = np.zeros(3)
    M = 0.0
    for nd in A.nodes[1:]:
        F += [f[sys.dof(nd, c)] for c in ("x", "y", "z")]
        M += f[sys.dof(nd, "rx")]
    return F, M


def test_a_crossing_beam_moved_along_b_is_held_by_friction():
    """Guard (both measures agree): A pressed by DELTA and moved along B's axis by DY: the
    force along B over the normal one is KT DY / (K DELTA); no moment on A's section in
    the model (the surface measure puts R times the force about A's axis)."""
    sys, A = _crossing_system()
    F, _ = _contact_forces_on_a_moved_rigidly(sys, A, (0.0, DY, -DELTA), 0.0)
    assert abs((F[1] / -F[2]) / (KT * DY / (K * DELTA)) - 1.0) < 1e-9, F


def test_a_crossing_beam_twisted_about_its_axis_is_held_by_friction():
    """A pressed by DELTA on B and turned rigidly about its own axis (+x) by phi: A's tied
    surface point ``-R e_z`` goes to ``(0, R sin phi, -R cos phi)``, B's stays, the normal
    stays ``e_z``: the spring's elastic slip is ``u* = R sin phi e_y``, its energy ``E =
    KT |u*|^2 / 2``, so the internal force on A's translations is ``dE/dy = KT R sin phi``
    and on its rotation about x ``dE/dphi = KT u* . (e_x x (p - x_A)) = KT R^2 sin phi cos
    phi`` (every node of A moved alike: the sums over its nodes). On b2465cc both are 0
    (the block sees translations alone; the force along y is exactly 0)."""
    sys, A = _crossing_system()
    phi = 1e-4
    F, M = _contact_forces_on_a_moved_rigidly(sys, A, (0.0, 0.0, -DELTA), phi)
    assert_held_twisted(F, M, phi)


def assert_held_twisted(F: np.ndarray, M: float, phi: float) -> None:
    """The force ``F (3,)`` [N] and the moment ``M`` [N m] about its axis (+x) on a beam
    pressed on a crossing one along y and turned about its axis by ``phi`` [rad] are the
    stuck spring's ``KT R sin phi`` along y and ``KT R^2 sin phi cos phi`` (rtol 1e-6;
    :func:`test_a_crossing_beam_twisted_about_its_axis_is_held_by_friction`)."""
    slip = R * np.sin(phi)
    assert abs(F[1] / (KT * slip) - 1.0) < 1e-6, F
    assert abs(M / (KT * slip * R * np.cos(phi)) - 1.0) < 1e-6, M


# ------------------------------------------------- finding 2: pulled along B from gap 0
@pytest.mark.parametrize("pull", [0.01, 0.05, 0.2])
def test_a_cantilever_pressed_on_a_crossing_beam_and_pulled_along_it_sticks(pull):
    """cone-33's crossing pulled along B by ``pull`` (1 N down, mu = 0.3: it sticks):
    fb.static finds the equilibrium; the contact force from A's equilibrium (cone-33's
    reference: loads and the clamp's reaction) is inside the cone, |f_t| / (mu N) within
    2 % of pull / 0.3 (A's bending, 309 N/m at the tip against KT, takes 3e-3 of the
    pull), the record says the pair sticks, and the node next to the contact moved
    sideways by less than the stick zone MU N / KT. On b2465cc: ConvergenceError, no
    equilibrium beyond load factor 0 (cut to 2.4e-4): from gap 0 the first Newton step
    had the tangent band's normal stiffness and no friction stiffness (now the band's
    friction tangent, _kernels._friction_point's kband)."""
    m, ratio, _ = _crossing(pull, along=1)
    A = m.bodies[0]
    res = fb.static(m, steps=1, tol=1e-10)
    assert abs(ratio(res) / (pull / MU) - 1.0) < 0.02, ratio(res)
    c = res.contacts
    on = c["normal_force"][-1] > 0.0
    assert on.any() and (c["stick"][-1][on] == 1.0).all()
    y = float(np.asarray(res.displacement(A.nodes[-2])[-1])[1])     # the node near B
    assert 0.0 < y < MU * 1.0 / KT, y


def test_a_lying_beam_pulled_across_the_axes_below_the_slip_load_sticks():
    """cone-33's lying beam (rotations held) pressed by 1 N and pulled across the axes (along
    y) by 0.1 N, a third of mu N: every line point sticks, so A moves by its elastic slip
    alone, the friction force over the line points' total tangential stiffness, at most mu
    N / (8 KT) = 3.75e-7 m (8 elements of A, each with the stiffness KT of its line
    points; the springs carry a part of 1e-3 of it). On b2465cc A moves 1.43e-4 m, the
    springs' and the turned normal's answer (Q / (800 - N / 2R)), with a friction force of
    ~1e-12 N reported as stick."""
    m, _, opts = _lying(0.1, along=1)
    res = fb.static(m, **opts)
    A = m.bodies[-1]
    dy = [float(np.asarray(res.displacement(nd)[-1])[1]) for nd in A.nodes]
    assert max(abs(v) for v in dy) < MU * 1.0 / (8 * KT), dy


# ------------------------------------------------- the surface measure's own checks (slip-33)
from fembody.rotations import exp as _exp, log as _log        # noqa: E402


def _turned(psi: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """The rotation vectors of the rotations ``exp(psi) exp(hat(theta))`` (a material
    increment ``theta`` [rad], as the configuration space applies one)."""
    return _log(_exp(psi) @ _exp(theta))


def _crossing_state(move, phi, turn_b=0.0):
    """The crossing system's block and its gathered coordinates ``(n, 24)`` (displacements,
    then the nodes' rotation vectors) with A's free nodes moved by ``move`` and turned by
    ``phi`` about A's axis and B's nodes turned by ``turn_b`` about B's axis (y)."""
    sys, A = _crossing_system()
    blk = _block(sys)
    dq = np.zeros(sys.n_free)
    for nd in A.nodes[1:]:
        for c, v in zip(("x", "y", "z", "rx"), (*move, phi)):
            dq[sys.free_index[sys.dof(nd, c)]] = v
    x = np.array(sys.pose(blk, sys.update(sys.q0, dq)))
    onB = np.isclose(blk.X[:, :, 2], -2 * R)
    rv = x[:, 12:].reshape(blk.X.shape)
    rv[onB, 1] += turn_b
    return blk, x


def test_the_block_reads_its_nodes_rotations():
    """The frictional spatial block's DOFs are its four nodes' translations and then their
    rotations (what the surface measure needs); on 63ab941 the translations alone."""
    sys, _ = _crossing_system()
    blk = _block(sys)
    assert blk.dofs.shape[1] == 24 and blk.history0.anchor.shape[1] == 11


def test_a_rigid_motion_of_the_pair_changes_no_slip():
    """Guard (invariance): a pressed, twisted and sideways-moved crossing (friction force
    nonzero, reference anchors) moved rigidly as a whole, translated by c and turned by Q
    (a finite rotation, 0.7 rad): the friction forces on the nodes turn by Q, the moments
    in the sections' material axes stay (the slip u* turns with the pair: its length and
    its direction in the pair's frame do not change). (On 63ab941 the block reads no
    rotations: the state does not fit its DOFs.)"""
    blk, x = _crossing_state((0.0, DY, -DELTA), 2e-4, 1e-4)
    n = len(x)
    Q = _exp(np.array([0.3, -0.5, 0.4]))
    c = np.array([0.01, -0.02, 0.03])
    pos = blk.positions(x)
    y = x.copy()
    y[:, :12] = (np.einsum("ij,nmj->nmi", Q, pos) + c - blk.X).reshape(n, 12)
    rv = x[:, 12:].reshape(n, 4, 3)
    y[:, 12:] = _log(Q @ _exp(rv)).reshape(n, 12)
    f0, _, _ = blk.forces(x, None, False)
    f1, _, _ = blk.forces(y, None, False)
    assert np.abs(f0).max() > 0.0
    F0, F1 = f0[:, :12].reshape(n, 4, 3), f1[:, :12].reshape(n, 4, 3)
    scale = np.abs(f0).max()
    assert np.abs(F1 - np.einsum("ij,nmj->nmi", Q, F0)).max() < 1e-9 * scale
    assert np.abs(f1[:, 12:] - f0[:, 12:]).max() < 1e-9 * scale


@pytest.mark.parametrize("move, phi", [((0.0, DY, -DELTA), 1e-4),          # stick
                                       ((1e-4, 6e-5, -DELTA), -3e-3)])     # slip
def test_the_tangent_on_translations_and_rotations_matches_central_differences(move, phi):
    """The crossing pressed by DELTA, moved and twisted (A) and B's sections turned, in
    stick and in slip (reference anchors): the block's stiffness ``(n, 24, 24)`` against
    central differences of its forces, the rotations perturbed by material increments
    (``R exp(hat(h e))``, the configuration space's update). (On 63ab941 the block has no
    rotation DOFs.)"""
    blk, x = _crossing_state(move, phi, 2e-4)
    _assert_tangent(blk, x)


@pytest.mark.parametrize("dy", [DY, 1e-4])                                 # stick, slip
def test_the_line_contact_tangent_on_rotations_matches_central_differences(dy):
    """The lying beam (line contact: the NG line points weighted by the switch), shifted
    along the axes by 3.7 mm (so that no line point projects on a node of B, where the
    projection changes elements), pressed by DELTA, its sections turned (A about its axis
    by 1e-3 rad, B by -5e-4 rad about its own and 2e-4 about z) and anchored there, then
    moved across by ``dy`` and A turned by 1e-4 more: the stiffness against central
    differences, in stick and in slip."""
    m, _, _ = _lying(0.0)
    blk = _block(m.compile())
    onA = np.isclose(blk.X[:, :, 2], 2 * R)

    def state(y, phi):
        x = np.zeros(blk.X.shape)
        x[onA] = (3.7e-3, y, -DELTA)
        rv = np.zeros(blk.X.shape)
        rv[onA] = (phi, 0.0, 0.0)
        rv[~onA] = (-5e-4, 0.0, 2e-4)
        return np.concatenate([x.reshape(len(x), -1), rv.reshape(len(x), -1)], axis=1)

    h = blk._open_history(state(0.0, 1e-3))
    x = state(dy, 1.1e-3)
    _, _, c, _, N, lam = blk._friction(x, h, False)
    assert (lam > 0.0).any() and (N > 0.0).any()
    assert (c.slipping[N > 0.0]).all() == (dy > DY)
    _assert_tangent(blk, x, h)


def _assert_tangent(blk, x, history=None):
    """The block's stiffness at ``x`` against central differences of its forces (the
    rotations perturbed by material increments), within 1e-6 of the largest entry, and
    its rotations' columns within 1e-6 of theirs."""
    f, K, _ = blk.forces(x, None, True, history)
    assert K.shape[1:] == (24, 24)
    h = 1e-9
    Kfd = np.zeros_like(K)
    for j in range(24):
        xp, xm = x.copy(), x.copy()
        if j < 12:
            xp[:, j] += h
            xm[:, j] -= h
        else:
            k = (j - 12) // 3
            e = np.zeros(3)
            e[(j - 12) % 3] = h
            sl = slice(12 + 3 * k, 15 + 3 * k)
            xp[:, sl], xm[:, sl] = _turned(x[:, sl], e), _turned(x[:, sl], -e)
        Kfd[:, :, j] = (blk.forces(xp, None, False, history)[0]
                        - blk.forces(xm, None, False, history)[0]) / (2 * h)
    on = np.abs(K).reshape(len(K), -1).max(axis=1) > 0.0
    assert on.any()
    rot = np.abs(K[:, :, 12:]).max()
    assert rot > 0.0
    assert np.abs(K - Kfd).max() < 1e-6 * np.abs(K).max()
    assert np.abs(K[:, :, 12:] - Kfd[:, :, 12:]).max() < 1e-6 * rot


def test_a_pair_reads_its_own_gathered_rotations():
    """Guard (the block turns its rotation vectors into matrices once per node where the
    pairs' gathered copies of a shared node agree, as the System gathers them:
    fembody.contact.beams.BeamContactBlock._rotations): the rotations each pair reads are
    those of its own row, bit for bit, there and where one pair's copy differs (what a
    central difference on one pair's row does)."""
    blk = _block(_lying(0.0)[0].compile())
    n = len(blk.nodes)
    turn = np.random.default_rng(3).uniform(-0.05, 0.05, (blk.nodes.max() + 1, 3))
    x = np.concatenate([np.zeros((n, 12)), turn[blk.nodes].reshape(n, 12)], axis=1)
    shared = np.bincount(blk.nodes.ravel())[blk.nodes] > 1
    assert shared.any()
    for dx in (0.0, 0.003):
        y = x.copy()
        i, a = np.argwhere(shared)[0]
        y[i, 12 + 3 * a:15 + 3 * a] += dx       # this pair's copy of a shared node turned
        blk._last_rotations = None
        np.testing.assert_array_equal(blk._rotations(y), _exp(y[:, 12:].reshape(n, 4, 3)))


def _turned_lying(seed: int, scale0: float, dy: float, scale: float):
    """The lying beam's crossing block (line contact), A shifted along the axes by 3.7 mm and
    pressed by DELTA, every node's section turned at random (uniform in +-``scale0`` [rad]
    per component, ``seed``) and anchored there (an open history), then moved across by
    ``dy`` [m] and turned at random again (+-``scale``): the block, the history and the
    gathered coordinates with rotation vectors."""
    m, _, _ = _lying(0.0)
    blk = _block(m.compile())
    onA = np.isclose(blk.X[:, :, 2], 2 * R)
    n = len(blk.X)
    rng = np.random.default_rng(seed)

    def state(y, s):
        x = np.zeros(blk.X.shape)
        x[onA] = (3.7e-3, y, -DELTA)
        turn = rng.uniform(-s, s, (blk.nodes.max() + 1, 3))
        return np.concatenate([x.reshape(n, -1), turn[blk.nodes].reshape(n, 12)], axis=1)

    h = blk._open_history(state(0.0, scale0))
    return blk, h, state(dy, scale)


def test_the_pass_makes_the_surface_offsets_of_the_array_form():
    """The compiled pass given the pairs' rotations (``crossing_forces``' ``rot``: it makes
    the offsets ``o - v_A + v_B`` of the touching pairs' points itself) against the pass
    given those offsets made for every point in numpy (reference.surface_offsets): the
    lying beam with line contact, its sections turned and anchored there, then moved across
    and turned further (slip): forces, stiffness, touching rows and the points' states
    agree to round-off. (On d624e7c the pass takes no rotations.)"""
    from fembody.contact._kernels import crossing_forces
    from fembody.contact.beams import _NO_START, TANGENT_BAND

    from .reference import surface_offsets

    blk, h, x = _turned_lying(7, 2e-3, 1e-4, 4e-3)
    pos = np.ascontiguousarray(blk.positions(x))
    args = (pos, blk.k, blk.k_line, blk.length, blk.radius, blk.free, blk.ramp, True)
    rest = (np.array(h.sliding, dtype=np.int64), blk.mu_s, blk.mu_k, blk.kt, True, True, False,
            TANGENT_BAND)
    rot = np.ascontiguousarray(x[:, 12:])        # (the nodes' rotation vectors)
    new = crossing_forces(*args, np.ascontiguousarray(h.anchor), *rest, rot, *_NO_START)
    ref = crossing_forces(*args, surface_offsets(blk, x, h.anchor), *rest,
                          np.zeros((0, 12)), *_NO_START)
    assert len(ref[2]) > 0 and np.abs(ref[4][:, 5:]).max() > 0.0
    np.testing.assert_array_equal(new[2], ref[2])
    # (given the rotations the pass also writes the rotations' part: its forces, stiffness
    # and per-pair friction forces after the translations' 12 columns; compared on those)
    md = blk.X[0].size
    new = (new[0][:, :md], new[1][:, :md, :md]) + new[2:5] + (new[5][:, :1 + md], new[6])
    for a, b in zip(new, ref[:7]):         # (the rotations' tangent terms: at the surfaces)
        np.testing.assert_allclose(a, b, rtol=0.0, atol=1e-12 * max(np.abs(b).max(), 1e-300))


@pytest.mark.parametrize("dy, scale", [(DY, 2e-4), (1e-4, 4e-3)])          # stick, slip
def test_the_compiled_rotation_tangent_is_the_array_forms(dy, scale):
    """The rotations' rows and columns of the stiffness, made from the compiled pass's
    per-point derivatives of the friction force (``crossing_forces``' ``dT``, ``glam``),
    against the array form's (reference.rotation_tangent: the points recomputed in numpy),
    on the lying beam (line contact, the switch's blend) with its sections turned at random
    per node, anchored, then moved across by ``dy`` and turned further, in stick and in slip:
    equal to 1e-12 of the largest entry on the pairs no free end of B clips (the array form's
    line points are unclipped); and the block's stiffness is that one. (On 69a252d the
    block has no ``_rotation_tangent``: its rotations' block was the array form itself;
    since fspeed-33 the pass writes that block, checked against the numpy form from the
    pass's ``dT`` to 1e-12 too.)"""
    from .reference import rotation_tangent, rotation_tangent_from_pass

    blk, h, x = _turned_lying(11, 0.5 * scale, dy, scale)
    _, rows, K = blk.live_forces(x, True, h)
    ours = rotation_tangent_from_pass(blk, x, h, blk._kernel(x, h, True, True))
    assert np.abs(K - ours).max() <= 1e-12 * np.abs(ours).max()
    _, _, c, _, N, lam = blk._friction(x, h, False)
    assert (c.slipping[N > 0.0]).any() == (dy > DY) and (N > 0.0).any()
    assert ((lam[rows] > 0.0) & (lam[rows] < 1.0)).any() or (lam[rows] > 0.0).all()
    ref = rotation_tangent(blk, x, h, rows)
    keep = ~blk.free[rows].any(axis=1)
    assert keep.any()
    md = blk.X[0].size
    mask = np.ones((2 * md, 2 * md), dtype=bool)
    mask[:md, :md] = False                      # (the pass's block: test_compiled.py)
    got, want = K[keep][:, mask], ref[keep][:, mask]
    assert np.abs(want).max() > 0.0
    assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max(), (
        np.abs(got - want).max(), np.abs(want).max())


@pytest.mark.parametrize("dy, scale", [(DY, 2e-4), (1e-4, 4e-3)])          # stick, slip
def test_the_pass_writes_the_rotations_part_itself(dy, scale):
    """Given the pairs' rotations, the compiled pass (``crossing_forces``) writes the
    friction's moments on the rotations and the rotations' rows and columns of the
    stiffness into each touching pair's 24 x 24 block itself: equal to their numpy forms
    (reference.moments from the points' friction forces, reference.rotation_tangent_from_pass
    from the pass's per-point ``dT``: the block's own evaluation before) to 1e-12 of the
    largest entry, on the lying beam with its sections turned at random, in stick and slip,
    and the translations' part unchanged (bit for bit). (On e9ce03e the pass gives the
    translations' 12 columns alone.)"""
    from fembody.contact._kernels import crossing_forces
    from fembody.contact.beams import _NO_START, TANGENT_BAND

    from .reference import moments, rotation_tangent_from_pass

    blk, h, x = _turned_lying(11, 0.5 * scale, dy, scale)
    pos = np.ascontiguousarray(blk.positions(x))
    args = (pos, blk.k, blk.k_line, blk.length, blk.radius, blk.free, blk.ramp, True,
            np.ascontiguousarray(h.anchor), np.array(h.sliding, dtype=np.int64), blk.mu_s,
            blk.mu_k, blk.kt, True)
    rot = np.ascontiguousarray(x[:, 12:])        # (the nodes' rotation vectors)
    out = crossing_forces(*args, True, False, TANGENT_BAND, rot, *_NO_START)
    md = blk.X[0].size
    assert out[0].shape[1] == 2 * md and out[1].shape[1:] == (2 * md, 2 * md)
    rows = out[2]
    M = moments(blk, x, h.anchor, out[4][:, 5:5 + blk.dim], out[5][:, 0], rows)
    assert np.abs(M).max() > 0.0
    assert np.abs(out[0][:, md:] - M).max() <= 1e-12 * np.abs(M).max()
    assert np.abs(out[5][:, 1 + md:] - M).max() <= 1e-12 * np.abs(M).max()
    want = rotation_tangent_from_pass(blk, x, h, out)
    assert np.abs(want[:, md:]).max() > 0.0
    assert np.abs(out[1] - want).max() <= 1e-12 * np.abs(want).max()
    # without the points' states the same forces and stiffness, exactly
    lean = crossing_forces(*args, False, False, TANGENT_BAND, rot, *_NO_START)
    np.testing.assert_array_equal(lean[0], out[0])
    np.testing.assert_array_equal(lean[1], out[1])
    # residual only: the same forces
    res = crossing_forces(*args[:-1], False, False, False, TANGENT_BAND, rot, *_NO_START)
    np.testing.assert_array_equal(res[0], out[0])


def test_the_compiled_ties_are_the_array_forms_bit_for_bit():
    """The section vectors every point ties after a step (the block's ``_tied``: the
    compiled ``surface_ties``) equal the numpy broadcast form (reference.tied) bit for bit,
    on the lying beam with its sections turned at random and moved across, at the pass's
    current parameters of every point (touching or apart); and a singular section frame is
    refused naming the fix. (On e9ce03e there is no ``surface_ties``.)"""
    from fembody.contact._kernels import surface_ties  # noqa: F401

    from .reference import tied

    blk, h, x = _turned_lying(11, 1e-3, 1e-4, 4e-3)
    params = blk._friction(x, h, False)[3]
    got, want = blk._tied(x, params), tied(blk, x, params)
    assert np.isfinite(want).all() and np.abs(want).max() > 0.0
    np.testing.assert_array_equal(got, want)
    # a chord point between nodes turned by pi against each other: the frame is singular
    bad = x.copy()
    bad[:, 12:15] = 0.0
    bad[:, 15:18] = (0.0, 0.0, np.pi)
    prm = params.copy()
    prm[:, 0] = 0.5
    with pytest.raises(ValueError, match="singular .* refine the mesh"):
        blk._tied(bad, prm)
