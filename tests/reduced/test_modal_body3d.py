"""Spatial modal (floating-frame) bodies: the inertia against the FE mass matrix, tangents
against finite differences, momenta and energy in free flight, the motion against fembody's
geometrically exact spatial beams."""
import numpy as np
import pytest

import fembody as fb
from fembody.elements.modal.modal3d import hat
from fembody.reduced import ModalBody3D
from tests.kernel_source import python_kernel

MAT = fb.Material(E=70e9, rho=2700.0, nu=0.3)
SEC = fb.Section.rectangle(0.02, 0.01)


def template(n=6, end=(1.0, 0.0, 0.0), orientation=(0, 0, 1)):
    src = fb.Model(dim=3)
    b = src.add_beam((0, 0, 0), end, n=n, material=MAT, section=SEC, orientation=orientation)
    return src, b


def expm(w):
    """Rotation matrix of the rotation vector ``w`` (Rodrigues)."""
    t = np.linalg.norm(w)
    K = hat(w / t)
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


@pytest.fixture(scope="module")
def body():
    """A beam inclined in space (so no invariant vanishes by symmetry), 4 clamped modes, its
    block and a random state."""
    src, b = template(end=(0.8, 0.4, 0.3), orientation=(0.0, 0.3, 1.0))
    mb = ModalBody3D.from_body(src, b, 4)
    blk = mb.block(0, np.arange(6), np.arange(6, 10), "test body")
    rng = np.random.default_rng(3)
    R = expm(rng.normal(size=3))
    x = (rng.normal(size=(1, 1, 3)), R[None, None], 1e-2 * rng.normal(size=(1, 4)))
    return src, b, mb, blk, x, rng.normal(size=(1, 10)), rng.normal(size=(1, 10))


@pytest.fixture(scope="module")
def body_c2(body):
    """The same body with a random (symmetric) second-order first moment c2, as stiffening
    gives it: the equations and tangents must hold for any c2."""
    from dataclasses import replace
    src, b, mb, _, x, v, a = body
    c2 = np.random.default_rng(5).normal(size=(3, 4, 4)) * mb.invariants.m
    mb2 = replace(mb, invariants=replace(mb.invariants, c2=c2 + np.swapaxes(c2, 1, 2)))
    return src, b, mb2, mb2.block(0, np.arange(6), np.arange(6, 10), "test body"), x, v, a


def fe_mass(src, b):
    """The template's FE mass matrix, node-major (u, theta) per node (as the body uses)."""
    sys = src.compile()
    M = np.zeros((sys.n_dof, sys.n_dof))
    M[np.ix_(sys.free, sys.free)] = sys.mass_matrix().toarray()
    order = sys.node_dofs[[x.id for x in b.nodes]].ravel()
    return M[np.ix_(order, order)]


def test_kinetic_energy_is_the_fe_kinetic_energy_of_the_mesh(body):
    """1/2 v^T M(q) v from the invariants equals the FE kinetic energy of the mesh velocities
    computed node by node (x_a' = r' + R (W x u_a + Phi_a eta'), node rates W + Psi_a eta',
    in the frame's axes) to round-off, and M(q) is symmetric."""
    src, b, mb, blk, x, v, _ = body
    M6 = fe_mass(src, b)
    r, R, eta = x[0][0, 0], x[1][0, 0], x[2][0]
    rd, W, ed = v[0, :3], v[0, 3:6], v[0, 6:]
    Phi = mb.Phi.reshape(len(mb.s), 6, mb.n)
    vfe = []
    for a in range(len(mb.s)):
        u = mb.s[a] + Phi[a, :3] @ eta
        vfe += [R.T @ rd + np.cross(W, u) + Phi[a, :3] @ ed, W + Phi[a, 3:] @ ed]
    vfe = np.concatenate(vfe)
    T_fe = 0.5 * vfe @ M6 @ vfe
    Mq = blk.mass_at(x)[0]
    assert np.allclose(Mq, Mq.T, rtol=0, atol=1e-14 * np.abs(Mq).max())
    assert blk.kinetic_energy(x, v)[0] == pytest.approx(T_fe, rel=1e-12)
    assert mb.invariants.m == pytest.approx(MAT.rho * SEC.A * np.sqrt(0.89), rel=1e-12)


def _fd_q(fun, x, h=1e-6):
    """Central differences of fun(pose) over the increments (dr, Theta material, eta)."""
    r, R, eta = x
    cols = []
    for j in range(6 + eta.shape[1]):
        out = []
        for s in (h, -h):
            rr, RR, ee = r.copy(), R.copy(), eta.copy()
            if j < 3:
                rr[0, 0, j] += s
            elif j < 6:
                RR = (R[0, 0] @ expm(s * np.eye(3)[j - 3]))[None, None]
            else:
                ee[0, j - 6] += s
            out.append(fun((rr, RR, ee)))
        cols.append((out[0] - out[1]) / (2 * h))
    return np.column_stack(cols)


@pytest.mark.parametrize("which", ["body", "body_c2"])
def test_inertial_and_gravity_tangents_match_finite_differences(which, request):
    """K = df/dq (rotation increments material, as the space updates them), C = df/dq' of the
    inertial force and the gravity load stiffness against central differences (h = 1e-6:
    truncation ~1e-12 of the entries, round-off ~1e-10); with and without a second-order
    first moment c2."""
    src, b, mb, blk, x, v, a = request.getfixturevalue(which)
    f, K, C = blk.inertial(x, v, a, True)
    assert np.allclose(f, blk.inertial(x, v, a, False)[0], rtol=1e-14, atol=0)
    Kfd = _fd_q(lambda p: blk.inertial(p, v, a, False)[0][0], x)
    scale = np.abs(Kfd).max()
    assert np.abs(K[0] - Kfd).max() < 1e-7 * scale
    h = 1e-6
    Cfd = np.column_stack([(blk.inertial(x, v + h * e, a, False)[0][0]
                            - blk.inertial(x, v - h * e, a, False)[0][0]) / (2 * h)
                           for e in np.eye(10)])
    assert np.abs(C[0] - Cfd).max() < 1e-7 * np.abs(Cfd).max()
    g = np.array([0.3, -9.81, 1.2])
    fg, dK = blk.gravity(x, g, True)
    dKfd = _fd_q(lambda p: blk.gravity(p, g, False)[0][0], x)
    assert np.abs(dK[0] - dKfd).max() < 1e-7 * np.abs(dKfd).max()
    # the gravity force is minus the gradient of the potential (a conservative load)
    Vfd = _fd_q(lambda p: blk.gravity_potential(p, g, x), x)
    np.testing.assert_allclose(fg[0], -Vfd[0], rtol=0, atol=1e-7 * np.abs(fg).max())


@pytest.mark.parametrize("which", ["body", "body_c2"])
def test_compiled_forces_equal_the_numpy_reference(which, request):
    """The compiled inertial and gravity forces (loops, complex steps inside the kernel)
    against the numpy reference of the same equations (tests/reference_kernels, batched
    invariant products): equal to round-off (1e-12 of the largest entry); the kernel's
    closed-form tangents K and C against complex steps of the reference (1e-10); with and
    without c2."""
    from tests.reference_kernels import modal3d_kernels as ref
    src, b, mb, blk, x, v, a = request.getfixturevalue(which)
    R, eta = x[1][0, 0], x[2][0]
    f, K, C = blk.inertial(x, v, a, True)
    f_ref = ref.forces(mb.invariants, R, eta, v[0], a[0])
    assert np.abs(f[0] - f_ref).max() < 1e-12 * np.abs(f_ref).max()
    h = 1e-30
    Cref = np.column_stack([ref.forces(mb.invariants, R, eta, v[0] + 1j * h * e, a[0]).imag / h
                            for e in np.eye(10)])
    assert np.abs(C[0] - Cref).max() < 1e-10 * np.abs(Cref).max()
    # K (closed form in the kernel) against complex steps of the reference: material
    # rotation steps R (I + i h hat(e_j)) and amplitude steps
    N = eta.shape[0]
    cols = [np.zeros(6 + N)] * 3
    cols += [ref.forces(mb.invariants, R @ (np.eye(3) + 1j * h * hat(e)), eta, v[0], a[0]).imag
             / h for e in np.eye(3)]
    cols += [ref.forces(mb.invariants, R, eta + 1j * h * e, v[0], a[0]).imag / h
             for e in np.eye(N)]
    Kref = np.column_stack(cols)
    assert np.abs(K[0] - Kref).max() < 1e-10 * np.abs(Kref).max()
    g = np.array([0.3, -9.81, 1.2])
    fg, _ = blk.gravity(x, g, False)
    fg_ref = ref.gravity(mb.invariants, R, eta, g)
    assert np.abs(fg[0] - fg_ref).max() < 1e-12 * np.abs(fg_ref).max()


def test_free_flight_conserves_momenta_and_energy_to_the_integrators_order():
    """A free-floating body (4 clamped modes), spinning and vibrating, no gravity: linear and
    angular momentum and energy drift at second order in the step (the integrator's order:
    the equations conserve them exactly) and stay within 5e-4 at dt = 1 ms over 0.3 s."""
    src, b = template()
    m = fb.Model(dim=3)
    ref = m.add_modal_body(ModalBody3D.from_body(src, b, 4))
    sys = m.compile()
    v0 = np.zeros(sys.n_dof)
    v0[sys.node_dofs[ref.node.id]] = (0.1, 0.0, 0.05, 0.5, 1.0, 3.0)
    v0[sys.modal_dofs[0]] = (0.2, -0.1, 0.05, 0.02)
    drift = []
    for dt in (2e-3, 1e-3):
        r = fb.simulate(sys, t_end=0.3, dt=dt, rho_inf=1.0, v0=v0)
        p, L, E = r.linear_momentum(), r.angular_momentum(), r.energy.total
        drift.append([np.abs(p - p[0]).max() / np.abs(p[0]).max(),
                      np.abs(L - L[0]).max() / np.abs(L[0]).max(),
                      np.abs(E - E[0]).max() / E[0]])
    drift = np.array(drift)
    assert np.all(drift[1] < 5e-4)
    order = np.log2(drift[0] / drift[1])
    assert np.all(order > 1.6), order


def spin_up(full: bool, n_modes: int = 4):
    """A hub (1 kg, 0.05 kg m^2) on a revolute joint about z, spun up by 0.3 N m for 1 s, a
    1 m aluminium beam on it sagging out of the plane of rotation under gravity (-z)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    if full:
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=8, material=MAT, section=SEC,
                       orientation=(0, 0, 1))
        hub, tip = b.first, None
    else:
        src, bs = template(n=8)
        ref = m.add_modal_body(ModalBody3D.from_body(src, bs, n_modes))
        hub, tip = ref.node, ref
    m.add_rigid_body(hub, mass=1.0, inertia=np.diag([0.05] * 3))
    m.add_joint(fb.Revolute(m.ground, hub, axis=(0, 0, 1)))
    m.add_torque(hub, (0.0, 0.0, 0.3))
    r = fb.simulate(m, t_end=1.0, dt=2e-3, save_every=10)
    pos = r.position(b.last) if full else tip.positions(r)[:, -1]
    return pos, r.angular_velocity(hub)


def test_spin_up_follows_the_full_beam_model():
    """The spinning beam as a modal body with 4 clamped modes against the full model of 8
    geometrically exact beam elements: tip position within 1 % of the sag (0.67 % measured)
    all along, the hub rate within 1e-3 (the rate stays low, 1.3 rad/s against the first
    bending frequency 52 rad/s, where the geometric stiffening the modal body lacks is
    ~(1.3/52)^2 = 6e-4)."""
    pf, wf = spin_up(True)
    pm, wm = spin_up(False)
    sag = np.abs(pf[:, 2]).max()
    assert sag > 4e-3
    assert np.abs(pm - pf).max() < 1e-2 * sag
    assert wm[-1, 2] == pytest.approx(wf[-1, 2], rel=1e-3)


def test_statics_and_modes_of_a_clamped_body_equal_the_fe_model():
    """Clamped at its reference node with every mode kept: static sag under gravity and the
    natural frequencies (bending about both axes) equal the FE model's to 1e-7."""
    g = (0.0, -0.06, -0.1)
    m1 = fb.Model(dim=3, gravity=g)
    b1 = m1.add_beam((0, 0, 0), (1, 0, 0), n=6, material=MAT, section=SEC,
                     orientation=(0, 0, 1))
    m1.fix(b1.first)
    src, bs = template()
    m2 = fb.Model(dim=3, gravity=g)
    ref = m2.add_modal_body(ModalBody3D.from_body(src, bs, 36))
    m2.fix(ref.node)
    u1 = fb.static(m1, steps=1).displacement(b1.last)[-1]
    u2 = ref.positions(fb.static(m2, steps=1))[-1, -1] - (1.0, 0.0, 0.0)
    np.testing.assert_allclose(u2[1:], u1[1:], rtol=1e-7)
    f1, f2 = fb.modes(m1, n=4).frequencies, fb.modes(m2, n=4).frequencies
    assert f2 == pytest.approx(f1, rel=1e-7)
    assert f1[1] / f1[0] == pytest.approx(2.0, rel=1e-3)      # h/b: the two bending planes


def test_bad_input():
    src, b = template()
    with pytest.raises(fb.ModelError, match="at most 36 elastic modes"):
        ModalBody3D.from_body(src, b, 40)
    planar = fb.Model()
    pb = planar.add_beam((0, 0), (1, 0), n=2, material=MAT, section=SEC)
    with pytest.raises(fb.ModelError, match="the model is planar"):
        ModalBody3D.from_body(planar, pb, 2)
    with pytest.raises(fb.ModelError, match="is a spatial body and the model is planar"):
        fb.Model().add_modal_body(ModalBody3D.from_body(src, b, 2))
    with pytest.raises(fb.ModelError, match="angle turns planar bodies"):
        fb.Model(dim=3).add_modal_body(ModalBody3D.from_body(src, b, 2), angle=0.3)


def test_the_mesh_of_a_spatial_modal_body_is_exported(tmp_path):
    """The recovered mesh goes to the VTU series: its points' displacement equals the mesh
    positions recovered from the modal state less the reference positions (float64: exact);
    its cells carry their elements' section forces and stresses (as ModalBodyRef gives them,
    1e-10)."""
    import meshio
    src, bs = template()
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    ref = m.add_modal_body(ModalBody3D.from_body(src, bs, 3), at=(0.0, 0.5, 0.0))
    m.fix(ref.node)
    st = fb.static(m, steps=1)
    series = fb.io.read_pvd(fb.io.write_result(st, tmp_path / "st.pvd"))
    mesh = meshio.read(series[-1][1])
    modal = mesh.point_data["node_id"] == -1
    X = mesh.points[modal]
    np.testing.assert_allclose(X, np.array([[x / 6, 0.5, 0.0] for x in range(7)]), atol=1e-15)
    np.testing.assert_allclose(mesh.point_data["displacement"][modal],
                               ref.positions(st)[-1] - X, rtol=0, atol=1e-15)
    assert ref.positions(st)[-1, -1, 2] < -1e-4              # it sags
    # the section forces and stresses of its elements on the mesh's cells (one per element)
    forces, sig = ref.section_forces(st)[-1], ref.stresses(st)[-1]
    assert np.abs(sig[:, 1]).max() > 1e4
    cells = mesh.cell_data["family"]
    k = [i for i, c in enumerate(cells) if np.all(c == 7)][0]        # the modal block
    for i, name in enumerate(("N", "Vy", "Vz", "T", "My", "Mz")):
        np.testing.assert_allclose(mesh.cell_data[name][k], forces[:, i], rtol=1e-10,
                                   atol=1e-10 * np.abs(forces).max())
    for i, name in enumerate(("sigma_N", "sigma_b", "sigma_max", "tau_T")):
        np.testing.assert_allclose(mesh.cell_data[name][k], sig[:, i], rtol=1e-10,
                                   atol=1e-10 * np.abs(sig).max())


def test_imported_spatial_matrices_give_the_same_body_as_from_body(tmp_path):
    """The template's M, K written to Matrix Market (node-major, 6 DOFs a node) and read
    back: the body reduced about node 0 equals from_body's (frequencies 1e-9, inertia
    invariants that do not depend on the modes' signs, the spin-up motion to 1e-9 of the
    sag); with the tip as interface and every mode it is the full FE model's static sag."""
    import scipy.io
    import scipy.sparse as sps
    from fembody.reduced import read_matrices
    src, b = template(n=8)
    sys = src.compile()
    order = sys.node_dofs[[x.id for x in b.nodes]].ravel()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[order]
    M = sys.mass_matrix().toarray()[np.ix_(order, order)]
    K = sys.stiffness_matrix().toarray()[np.ix_(order, order)]
    scipy.io.mmwrite(str(tmp_path / "M.mtx"), sps.coo_matrix(M), precision=17)
    scipy.io.mmwrite(str(tmp_path / "K.mtx"), sps.coo_matrix(K), precision=17)
    X = np.array([x.position for x in b.nodes])
    fe = read_matrices(tmp_path / "M.mtx", tmp_path / "K.mtx", nodes=X)
    a = ModalBody3D.from_body(src, b, 4)
    c = ModalBody3D.from_matrices(fe, 4)
    assert c.omega == pytest.approx(a.omega, rel=1e-9)
    ia, ic = a.invariants, c.invariants
    assert ic.m == pytest.approx(ia.m, rel=1e-12)
    np.testing.assert_allclose(ic.J0, ia.J0, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.abs(ic.CtP), np.abs(ia.CtP), rtol=0, atol=1e-8 * np.abs(ia.CtP).max())
    sag = {}
    for key, body in (("a", a), ("c", c), ("cb", ModalBody3D.from_matrices(fe, 0,
                                                                          interface=[8]))):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        ref = m.add_modal_body(body)
        m.fix(ref.node)
        sag[key] = ref.positions(fb.static(m, steps=1))[-1, -1, 2]
    assert sag["c"] == pytest.approx(sag["a"], rel=1e-9)
    full = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    fbm = full.add_beam((0, 0, 0), (1, 0, 0), n=8, material=MAT, section=SEC,
                        orientation=(0, 0, 1))
    full.fix(fbm.first)
    w = fb.static(full, steps=1).displacement(fbm.last)[-1, 2]
    # the tip interface alone (Guyan, 6 static modes) against the full (geometrically exact)
    # model's sag: measured 2.6e-5, the full model's nonlinearity ~(sag / L)^2 = 3e-5; 4
    # clamped modes without static modes: 7.7e-4 (the modes' truncation)
    assert sag["cb"] == pytest.approx(w, rel=1e-4)
    assert sag["a"] == pytest.approx(w, rel=1.5e-3)


# ----------------------------------------------------------- joints at other mesh points
def test_spatial_modal_pin_rows_derivatives_match_finite_differences():
    """phi, B = dphi/d(dx_o, dr, Theta, eta) and the Lie-group Hessian dB/d delta of the
    spatial ModalPin against central differences on a random state (1e-7 relative)."""
    from fembody.joints.modal.pin3d import SpatialModalPinBlock
    src, b = template(end=(0.8, 0.4, 0.3), orientation=(0.0, 0.3, 1.0))
    mb = ModalBody3D.from_body(src, b, 3)
    rng = np.random.default_rng(5)
    blk = SpatialModalPinBlock(np.arange(12)[None], [0], rng.normal(size=(1, 3)),
                               rng.normal(size=(1, 3)), mb.s[4][None], mb.phi_t[4][None])
    xo, r = rng.normal(size=(1, 3)), rng.normal(size=(1, 3))
    R, eta = expm(rng.normal(size=3))[None], 0.1 * rng.normal(size=(1, 3))

    def moved(d):
        return (xo + d[:3], r + d[3:6], R @ expm(d[6:9]) if np.any(d[6:9]) else R,
                eta + d[9:])
    phi, B, H = blk.evaluate((xo, r, R, eta), 0.0, True)
    h = 1e-6
    Bfd = np.column_stack([(blk.evaluate(moved(h * e), 0.0, False)[0][0]
                            - blk.evaluate(moved(-h * e), 0.0, False)[0][0]) / (2 * h)
                           for e in np.eye(12)])
    assert np.abs(B[0] - Bfd).max() < 1e-7 * np.abs(B).max()
    Hfd = np.stack([(blk.evaluate(moved(h * e), 0.0, False)[1][0]
                     - blk.evaluate(moved(-h * e), 0.0, False)[1][0]) / (2 * h)
                    for e in np.eye(12)], axis=-1)
    assert np.abs(H[0] - Hfd).max() < 1e-7 * np.abs(H).max()


def test_a_modal_pin_at_the_tip_makes_a_clamped_pinned_beam():
    """Clamped at the reference node, the tip mesh point held by a spatial ModalPin: with
    every mode the full FE clamped-pinned beam's frequencies (1e-8) and static sag under a
    small gravity (1e-5: the full model's membrane stiffening, ~(sag / h)^2, is 5e-6 there);
    the Craig-Bampton body with the tip as interface and 4 modes is within 2e-3 on the first
    four frequencies; with 4 clamped modes only, the tip cannot move axially and the pin's
    axial row is refused as redundant, naming it."""
    from fembody.reduced import ModalPin
    g = (0.0, -0.3, -0.98)
    full = fb.Model(dim=3, gravity=g)
    b = full.add_beam((0, 0, 0), (1, 0, 0), n=6, material=MAT, section=SEC,
                      orientation=(0, 0, 1))
    full.fix(b.first)
    full.fix(b.last, "x", "y", "z")
    f_full = fb.modes(full, n=4).frequencies
    w_full = fb.static(full, steps=1).displacement(b.nodes[3])[-1]
    src, bs = template()

    def pinned(body):
        m = fb.Model(dim=3, gravity=g)
        ref = m.add_modal_body(body)
        m.fix(ref.node)
        m.add_joint(ModalPin(ref, 6, m.ground))
        return m, ref
    m, ref = pinned(ModalBody3D.from_body(src, bs, 36))
    assert fb.modes(m, n=4).frequencies == pytest.approx(f_full, rel=1e-8)
    w = ref.positions(fb.static(m, steps=1))[-1, 3] - (0.5, 0.0, 0.0)
    np.testing.assert_allclose(w[1:], w_full[1:], rtol=1e-5)
    from fembody.reduced import read_matrices
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in bs.nodes]].ravel()]
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in bs.nodes]))
    cb = fb.modes(pinned(ModalBody3D.from_matrices(fe, 4, interface=[6]))[0], n=4)
    assert np.abs(cb.frequencies / f_full - 1).max() < 2e-3
    # 4 clamped modes cannot move the tip axially: that row of the pin holds nothing
    with pytest.raises(fb.ModelError, match=r"ModalPin.* row 1 of 3"):
        fb.modes(pinned(ModalBody3D.from_body(src, bs, 4))[0], n=4)


# ------------------------------------------------------------------ centrifugal stiffening
def southwell(k: int) -> float:
    """d w_k^2 / d Omega^2 of the k-th flapping mode of a uniform cantilever spun about an
    axis through its root normal to it (the Southwell coefficient, hub radius 0): the
    first-order change int T phi'^2 / int rhoA phi^2 with the tension T = rhoA Omega^2 (L^2 -
    x^2) / 2, from the analytic mode shape by quadrature (1.1933, 6.4782)."""
    import math
    from scipy.integrate import quad
    from fembody.verify.beams import EB_CLAMPED
    bl = EB_CLAMPED[k]
    sig = (math.cosh(bl) + math.cos(bl)) / (math.sinh(bl) + math.sin(bl))

    def phi(x):
        return math.cosh(bl * x) - math.cos(bl * x) - sig * (math.sinh(bl * x) - math.sin(bl * x))

    def dphi(x):
        return bl * (math.sinh(bl * x) + math.sin(bl * x)
                     - sig * (math.cosh(bl * x) - math.cos(bl * x)))
    return (quad(lambda x: 0.5 * (1 - x * x) * dphi(x)**2, 0, 1, epsabs=1e-13)[0]
            / quad(lambda x: phi(x)**2, 0, 1, epsabs=1e-13)[0])


def test_centrifugal_stiffening_gives_the_southwell_coefficients():
    """The modal geometric stiffness of a spin about z (the axis through the reference node,
    normal to the beam) on the first two flapping (z-bending) modes against the Southwell
    coefficients of the analytic modes: 16 elements within 3e-3 (measured 7.6e-4, 2.1e-3),
    converging with the mesh (32 elements: 3e-4, 1e-4)."""
    ref = np.array([southwell(0), southwell(1)])
    assert ref[0] == pytest.approx(1.1933, abs=1e-4)
    err = []
    for n in (16, 32):
        src, b = template(n=n)
        plain = ModalBody3D.from_body(src, b, 4)
        stiff = ModalBody3D.from_body(src, b, 4, stiffening=True)
        G = plain.invariants.J2 - stiff.invariants.J2          # (N, N, 3, 3)
        flap = [k for k in range(4) if np.abs(stiff.phi_t[:, 2, k]).max()
                > np.abs(stiff.phi_t[:, 1, k]).max()]
        assert len(flap) == 2
        err.append(np.abs(np.diag(G[:, :, 2, 2])[flap] / ref - 1))
    assert np.all(err[0] < 3e-3) and np.all(err[1] < err[0])


def southwell_hub(k: int) -> float:
    """The hub-radius Southwell coefficient of the k-th flapping mode: with the root at a
    radius R from the spin axis the tension gains rhoA Omega^2 R (L - x), so d w_k^2 /
    d Omega^2 = southwell(k) + (R / L) * this, int (1 - x) phi'^2 / int phi^2 of the analytic
    mode (1.5709, 8.6471)."""
    import math
    from scipy.integrate import quad
    from fembody.verify.beams import EB_CLAMPED
    bl = EB_CLAMPED[k]
    sig = (math.cosh(bl) + math.cos(bl)) / (math.sinh(bl) + math.sin(bl))

    def phi(x):
        return math.cosh(bl * x) - math.cos(bl * x) - sig * (math.sinh(bl * x) - math.sin(bl * x))

    def dphi(x):
        return bl * (math.sinh(bl * x) + math.sin(bl * x)
                     - sig * (math.cosh(bl * x) - math.cos(bl * x)))
    return (quad(lambda x: (1 - x) * dphi(x)**2, 0, 1, epsabs=1e-13)[0]
            / quad(lambda x: phi(x)**2, 0, 1, epsabs=1e-13)[0])


def test_stiffening_of_a_spin_about_an_axis_off_the_reference_node():
    """A beam rooted at a hub radius R spins at Omega about z: the frame's centripetal
    acceleration Omega^2 R (along the beam, W x v_b in the body) stretches it; its stiffness
    on the modes is -R Omega^2 c2[x] (the first moment's second-order part). Against the
    hub Southwell coefficients of the analytic modes: 16 elements within 3e-3 (measured
    7.1e-4, 7.6e-4), converging with the mesh (32: 2.8e-4, 4.4e-4). Then the linearised
    steady spin of the body (the inertial tangent at W = Omega e_z, v_b = Omega R e_y, the
    root's centripetal acceleration) gives the flapping stiffness Omega^2 (S0 + R S1) of the
    same coefficients within 3e-3 (measured 3.0e-4, 2.3e-4)."""
    ref = np.array([southwell_hub(0), southwell_hub(1)])
    assert ref[0] == pytest.approx(1.5709, abs=1e-4)
    err = []
    for n in (16, 32):
        src, b = template(n=n)
        stiff = ModalBody3D.from_body(src, b, 4, stiffening=True)
        flap = [k for k in range(4) if np.abs(stiff.phi_t[:, 2, k]).max()
                > np.abs(stiff.phi_t[:, 1, k]).max()]
        assert len(flap) == 2
        err.append(np.abs(-np.diag(stiff.invariants.c2[0])[flap] / ref - 1))
    assert np.all(err[0] < 3e-3) and np.all(err[1] < err[0])
    # the same through the block's inertial tangent: a steady spin, the root at R = 0.5 m
    Om, R = 3.0, 0.5
    blk = stiff.block(0, np.arange(6), np.arange(6, 10), "hub beam")
    x = (np.array([[[R, 0.0, 0.0]]]), np.eye(3)[None, None], np.zeros((1, 4)))
    v = np.zeros((1, 10))
    v[0, 1], v[0, 5] = Om * R, Om
    a = np.zeros((1, 10))
    a[0, 0] = -Om**2 * R                       # the root's centripetal acceleration
    _, K, _ = blk.inertial(x, v, a, True)
    k_flap = np.diag(K[0, 6:, 6:])[flap] / Om**2
    S0 = np.array([southwell(0), southwell(1)])
    np.testing.assert_allclose(k_flap, S0 + R * ref, rtol=3e-3)


@pytest.mark.slow
def test_spin_up_on_a_hub_radius_follows_the_full_beam():
    """The driven spin-up of the stiffening test (30 rad/s in 1 s, held) with the beam rooted
    0.5 m from the axis: the modal body (4 modes) follows the full model of 8 geometrically
    exact elements within 1 % of the sag (measured 0.43 %); without the frame acceleration's
    stiffening (c2 = 0) the first flapping frequency at 30 rad/s is 8 % low and the sag
    misses by more than 50 % of its size."""
    from dataclasses import replace
    import math
    Om, T, Rh = 30.0, 1.0, 0.5

    def angle(t):
        return Om * (t * t / (2 * T) + (math.cos(2 * math.pi * t / T) - 1) * T
                     / (4 * math.pi**2)) if t < T else Om * (T / 2 + t - T)

    def rate(t):
        return Om * (t / T - math.sin(2 * math.pi * t / T) / (2 * math.pi)) if t < T else Om

    def accel(t):
        return Om * (1 - math.cos(2 * math.pi * t / T)) / T if t < T else 0.0

    def run(body):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        if body is None:
            b = m.add_beam((Rh, 0, 0), (Rh + 1, 0, 0), n=8, material=MAT, section=SEC,
                           orientation=(0, 0, 1))
            hub = b.first
        else:
            ref = m.add_modal_body(body)
            hub = ref.node
        m.add_joint(fb.Revolute(m.ground, hub, axis=(0, 0, 1), at=(0, 0, 0)))
        m.add_joint(fb.RotationDriver(m.ground, hub, axis=(0, 0, 1), angle=angle,
                                      velocity=rate, acceleration=accel))
        r = fb.simulate(m, t_end=1.5, dt=1e-3, save_every=10)
        return (r.position(b.last) if body is None else ref.positions(r)[:, -1])[:, 2]
    src = fb.Model(dim=3)
    bs = src.add_beam((Rh, 0, 0), (Rh + 1, 0, 0), n=8, material=MAT, section=SEC,
                      orientation=(0, 0, 1))
    stiff = ModalBody3D.from_body(src, bs, 4, stiffening=True)
    z_full = run(None)
    z_stiff = run(stiff)
    sag = np.abs(z_full).max()
    assert np.abs(z_stiff - z_full).max() < 1e-2 * sag
    z_axis = run(replace(stiff, invariants=replace(stiff.invariants, c2=None)))
    assert np.abs(z_axis - z_full).max() > 0.5 * sag


@pytest.mark.slow
def test_spin_up_with_stiffening_follows_the_full_beam_and_without_it_does_not():
    """A 1 m beam sagging under gravity, spun about z by a driver to 30 rad/s in 1 s (0.58 of
    its first frequency) and held: with stiffening (4 modes) its tip sag in the rotating
    frame follows the full model of 8 geometrically exact elements within 1 % of the sag
    all along (measured 0.17 %); without it the sag at 1.5 s is 77 % too large."""
    import math
    Om, T = 30.0, 1.0

    def angle(t):
        return Om * (t * t / (2 * T) + (math.cos(2 * math.pi * t / T) - 1) * T
                     / (4 * math.pi**2)) if t < T else Om * (T / 2 + t - T)

    def rate(t):
        return Om * (t / T - math.sin(2 * math.pi * t / T) / (2 * math.pi)) if t < T else Om

    def accel(t):
        return Om * (1 - math.cos(2 * math.pi * t / T)) / T if t < T else 0.0

    def run(body):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        if body is None:
            b = m.add_beam((0, 0, 0), (1, 0, 0), n=8, material=MAT, section=SEC,
                           orientation=(0, 0, 1))
            hub = b.first
        else:
            ref = m.add_modal_body(body)
            hub = ref.node
        m.add_joint(fb.Revolute(m.ground, hub, axis=(0, 0, 1)))
        m.add_joint(fb.RotationDriver(m.ground, hub, axis=(0, 0, 1), angle=angle,
                                      velocity=rate, acceleration=accel))
        r = fb.simulate(m, t_end=1.5, dt=1e-3, save_every=10)
        return (r.position(b.last) if body is None else ref.positions(r)[:, -1])[:, 2]
    src, bs = template(n=8)
    z_full = run(None)
    z_stiff = run(ModalBody3D.from_body(src, bs, 4, stiffening=True))
    z_soft = run(ModalBody3D.from_body(src, bs, 4))
    sag = np.abs(z_full).max()
    assert np.abs(z_stiff - z_full).max() < 1e-2 * sag
    assert z_soft[-1] / z_full[-1] > 1.5


def test_section_forces_of_the_mesh_are_recovered():
    """A body clamped at its reference node sagging under gravity: the section forces of its
    mesh recovered from the modal field equal the full FE model's with every mode (to 1e-4:
    the full model's geometric nonlinearity at this sag is ~1.4e-5), the template's linear
    FE solution's to 1e-8, the shear the weight beyond each element's middle (1e-6), and the
    root moment is the analytic rho A g (L - x)^2 / 2 at the
    first element's middle within 1 % (the element's constant moment); with 4 modes the root
    moment is within 3 % (modal truncation, 1.3 %)."""
    g = (0.0, 0.0, -9.81)
    full = fb.Model(dim=3, gravity=g)
    b = full.add_beam((0, 0, 0), (1, 0, 0), n=8, material=MAT, section=SEC,
                      orientation=(0, 0, 1))
    full.fix(b.first)
    r_full = fb.static(full, steps=1).resultants("beam", step=-1)
    src, bs = template(n=8)
    got = {}
    for n in (48, 4):
        m = fb.Model(dim=3, gravity=g)
        ref = m.add_modal_body(ModalBody3D.from_body(src, bs, n))
        m.fix(ref.node)
        got[n] = fb.static(m, steps=1).resultants("modal body", step=-1)
    assert got[48].shape == (8, 6)
    # the linear FE solution of the template (K u = f) read by the same beam kernel: the
    # modal body is that linear model, every component to 1e-8
    S = full.compile()
    u = np.linalg.solve(S.stiffness_matrix().toarray(),
                        S.external_forces(S.q0, 0.0, False)[0][S.free])
    blk = S.block("beam")
    # its linear part: the kernel's derivative along u, by a central difference moving the
    # field 1e-6 m (the odd part of the full field keeps its cubic terms: shear 0.5 N off)
    h = 1e-6 / np.abs(u).max()
    lin = (blk.resultants(S.pose(blk, S.update(S.q0, h * u)))
           - blk.resultants(S.pose(blk, S.update(S.q0, -h * u)))) / (2 * h)
    np.testing.assert_allclose(got[48], lin, rtol=0, atol=1e-8 * np.abs(lin).max())
    # the shear at each element's middle: the weight beyond it, rho A g (L - x)
    x = (np.arange(8) + 0.5) / 8
    np.testing.assert_allclose(np.abs(got[48][:, 1]), MAT.rho * SEC.A * 9.81 * (1 - x),
                               rtol=1e-6)
    # against the full (geometrically exact) solution: the moment Mz (its axial force N is
    # the nonlinear stretching the linear field leaves out)
    np.testing.assert_allclose(got[48][:, 5], r_full[:, 5], rtol=1e-4)
    rhoAg = MAT.rho * SEC.A * 9.81
    assert abs(got[48][0, 5]) == pytest.approx(rhoAg * (1 - 1 / 16)**2 / 2, rel=1e-2)
    assert got[4][0, 5] == pytest.approx(r_full[0, 5], rel=3e-2)


def test_a_body_from_matrices_is_drawn_with_its_element_edges():
    """A modal body knows its mesh's edges for pictures and the VTU export: from matrices,
    the node pairs the stiffness couples; from a Body, its elements. The antenna panel (a
    ladder of beams with one diagonal bar per bay, its nodes listed left edge, right edge,
    root, tip) has exactly its elements' node pairs, none of the chain of consecutive nodes
    that crossed the panel (left tip to right root)."""
    from fembody.examples import deployable_antenna as da
    body, _ = da.modal_panel(1)
    tm = fb.Model(dim=3)
    da.add_panel(tm, lambda X, on_panel: np.asarray(X, float))
    index = {x.id: i for i, x in enumerate(n for n in tm.nodes if n is not tm.ground)}
    elements = {tuple(sorted(index[n.id] for n in e["nodes"]))
                for e in list(tm.beams) + list(tm.trusses)}
    assert {tuple(e) for e in body.edges} == elements
    bays = da.BAYS
    assert (bays, bays + 1) not in elements              # left tip - right root: not an edge
    src, b = template(n=5)
    assert ModalBody3D.from_body(src, b, 2).edges.tolist() == [[i, i + 1] for i in range(5)]


# ------------------------------------------------------------------ preload stiffening
@pytest.mark.parametrize("P", [150.0, -150.0])
def test_preload_stiffening_gives_the_frequencies_about_the_static_state(P):
    """A cantilever (16 elements) under an axial tip force P = +-150 N (0.52 of its Euler load
    288 N): a modal body reduced with ``preload=`` the static state has the full model's
    frequencies about that state (fb.modes(..., state=static)) within the truncation error
    of the unloaded modes: from above (a Rayleigh-Ritz bound), 4 modes within 2e-3
    (measured 3.0e-4 in tension, 1.3e-3 in compression), 8 modes closer (2.6e-5, 1.0e-4);
    without the preload the first frequency is off by 17 % (tension) and 42 %."""
    m = fb.Model(dim=3)
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=16, material=MAT, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(b.first)
    m.add_force(b.last, (P, 0.0, 0.0))
    st = fb.static(m, steps=2)
    f_full = fb.modes(m, n=4, state=st).frequencies

    def reduced(n_modes, preload):
        mm = fb.Model(dim=3)
        ref = mm.add_modal_body(ModalBody3D.from_body(m, b, n_modes, preload=preload))
        mm.fix(ref.node)
        return fb.modes(mm, n=4).frequencies / f_full - 1
    e4, e8 = reduced(4, st), reduced(8, st.q[-1])
    assert np.all(e4 > -1e-9) and np.all(e4 < 2e-3)
    assert np.all(e8 > -1e-9) and np.all(e8 <= e4)
    assert abs(reduced(4, None)[0]) > 0.1
    with pytest.raises(fb.ModelError, match="preload must be a Result"):
        ModalBody3D.from_body(m, b, 4, preload=st.q[-1][:-1])


def _template_geometric_stiffness(src, b, euler: bool = False):
    """The nine geometric stiffness matrices of ModalBody3D.from_matrices(geometric=) for the
    template beam (with ``euler`` also the cases rx, ry, rz), computed as an external code
    would: the body clamped at its first node, the linear static response to each unit load
    case, the derivative of the exact tangent along it (central difference); in the
    node-major (u, theta) order of the matrices."""
    def build(clamp):
        m = fb.Model(dim=3)
        nodes = [m.add_node(x.position) for x in b.nodes]
        for a, c in zip(nodes[:-1], nodes[1:]):
            m.add_beam(a, c, n=1, material=MAT, section=SEC, orientation=(0, 0, 1))
        if clamp:
            m.fix(nodes[0])
        return m.compile(), nodes
    sys, nodes = build(True)
    fr = sys.free
    order = sys.node_dofs[[x.id for x in nodes]]
    X = np.array([x.position for x in b.nodes])
    s = X - X[0]
    # the inertia load of the whole body, its root included (a consistent mass couples it)
    sys_free = build(False)[0]
    M = np.zeros((sys.n_dof, sys.n_dof))
    M[np.ix_(sys_free.free, sys_free.free)] = sys_free.mass_matrix().toarray()
    K0 = sys.stiffness_matrix().toarray()
    E = np.eye(3)
    loads = {a: np.tile(E[i], (len(s), 1)) for i, a in enumerate("xyz")}
    for i in range(3):
        for j in range(i, 3):
            loads["xyz"[i] + "xyz"[j]] = ((i == j) * s - 0.5 * (s[:, [j]] * E[i]
                                                              + s[:, [i]] * E[j]))
    if euler:
        for i in range(3):
            loads["r" + "xyz"[i]] = np.cross(E[i], s)
    out = {}
    for c, acc in loads.items():
        r = np.zeros(sys.n_dof)
        r[order[:, :3]] = acc
        u = np.linalg.solve(K0, (M @ r)[fr])
        if not np.any(u):
            out[c] = 0                     # a spin about the beam's own line loads nothing
            continue
        h = 1e-5 / np.abs(u).max()
        KG = np.zeros((sys.n_dof, sys.n_dof))
        KG[np.ix_(fr, fr)] = (sys.stiffness_matrix(sys.update(sys.q0, h * u)).toarray()
                              - sys.stiffness_matrix(sys.update(sys.q0, -h * u)).toarray()
                              ) / (2 * h)
        KG = KG[np.ix_(order.ravel(), order.ravel())]
        out[c] = 0.5 * (KG + KG.T)
    return out


def test_imported_matrices_stiffen_with_their_geometric_stiffness(tmp_path):
    """A body from imported M, K with the external model's geometric stiffness per unit load
    case stiffens as from_body(stiffening=True): the sign-free diagonals of the centrifugal
    (W-W) and acceleration (c2) stiffness on the modes equal to 1e-6 (two central differences
    of the tangent with different steps). stiffening=True without them, a missing case or a
    non-symmetric matrix are refused."""
    import scipy.io
    import scipy.sparse as sps
    from fembody.reduced import read_matrices
    src, b = template(n=8)
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in b.nodes]].ravel()]
    M = sys.mass_matrix().toarray()[np.ix_(order, order)]
    K = sys.stiffness_matrix().toarray()[np.ix_(order, order)]
    scipy.io.mmwrite(str(tmp_path / "M.mtx"), sps.coo_matrix(M), precision=17)
    scipy.io.mmwrite(str(tmp_path / "K.mtx"), sps.coo_matrix(K), precision=17)
    fe = read_matrices(tmp_path / "M.mtx", tmp_path / "K.mtx",
                       nodes=np.array([x.position for x in b.nodes]))
    geo = _template_geometric_stiffness(src, b)
    a = ModalBody3D.from_body(src, b, 4, stiffening=True)
    c = ModalBody3D.from_matrices(fe, 4, geometric=geo)
    plain = ModalBody3D.from_matrices(fe, 4)
    Ga = np.diagonal(ModalBody3D.from_body(src, b, 4).invariants.J2 - a.invariants.J2)
    Gc = np.diagonal(plain.invariants.J2 - c.invariants.J2)
    assert np.abs(Ga).max() > 1.0
    np.testing.assert_allclose(Gc, Ga, rtol=0, atol=1e-6 * np.abs(Ga).max())
    ca = np.diagonal(a.invariants.c2, axis1=1, axis2=2)
    cc = np.diagonal(c.invariants.c2, axis1=1, axis2=2)
    np.testing.assert_allclose(cc, ca, rtol=0, atol=1e-6 * np.abs(ca).max())
    with pytest.raises(fb.ModelError, match="stiffening=True needs the geometric"):
        ModalBody3D.from_matrices(fe, 4, stiffening=True)
    with pytest.raises(fb.ModelError, match=r"missing \['yz'\]"):
        ModalBody3D.from_matrices(fe, 4, geometric={k: v for k, v in geo.items() if k != "yz"})
    bad = dict(geo, xy=geo["xy"] + np.triu(np.ones_like(geo["xy"]), 1))
    with pytest.raises(fb.ModelError, match=r"geometric\['xy'\] is not symmetric"):
        ModalBody3D.from_matrices(fe, 4, geometric=bad)


# ------------------------------------------------------------------ rotation locks
@pytest.mark.parametrize("axis", [None, (0.3, -0.5, 0.8)], ids=["weld", "revolute"])
@pytest.mark.parametrize("ground", [False, True], ids=["node", "ground"])
def test_spatial_modal_weld_rows_derivatives_match_finite_differences(axis, ground):
    """phi, B = dphi/d(dx_o, Theta_o, dr, Theta, eta) and the Lie-group Hessian of the
    spatial ModalPin with a rotation lock (weld, revolute about an inclined axis; to a node
    or the ground) against central differences on a random state (1e-7 relative); the
    rotation rows vanish in the reference configuration."""
    from fembody.joints.modal.compile import _rotation_pairs
    from fembody.joints.modal.pin3d import SpatialModalWeldBlock
    src, b = template(end=(0.8, 0.4, 0.3), orientation=(0.0, 0.3, 1.0))
    mb = ModalBody3D.from_body(src, b, 3)
    rng = np.random.default_rng(7)
    C, D = _rotation_pairs(None if axis is None else np.array(axis) / np.linalg.norm(axis))
    dofs = np.arange(15)
    if ground:
        dofs[:6] = -1
    blk = SpatialModalWeldBlock(dofs[None], [0], rng.normal(size=(1, 3)),
                                rng.normal(size=(1, 3)), mb.s[4][None], mb.phi_t[4][None],
                                mb.phi_r[4][None], C[None], D[None])
    assert blk.gather(np.zeros((1, 15)))[0].shape == (1, 3)
    phi0 = blk.evaluate(blk.gather(np.zeros((1, 15))), 0.0, False)[0]
    assert np.abs(phi0[0, 3:]).max() < 1e-15
    xo, r = rng.normal(size=(1, 3)), rng.normal(size=(1, 3))
    Ro = np.eye(3)[None] if ground else expm(rng.normal(size=3))[None]
    R, eta = expm(rng.normal(size=3))[None], 0.1 * rng.normal(size=(1, 3))
    k = 15
    live = np.arange(6, k) if ground else np.arange(k)

    def moved(d):
        return (xo + d[:3], Ro @ expm(d[3:6]) if np.any(d[3:6]) else Ro, r + d[6:9],
                R @ expm(d[9:12]) if np.any(d[9:12]) else R, eta + d[12:])
    phi, B, H = blk.evaluate((xo, Ro, r, R, eta), 0.0, True)
    h = 1e-6
    Bfd = np.column_stack([(blk.evaluate(moved(h * e), 0.0, False)[0][0]
                            - blk.evaluate(moved(-h * e), 0.0, False)[0][0]) / (2 * h)
                           for e in np.eye(k)])
    assert np.abs(B[0][:, live] - Bfd[:, live]).max() < 1e-7 * np.abs(B).max()
    Hfd = np.stack([(blk.evaluate(moved(h * e), 0.0, False)[1][0]
                     - blk.evaluate(moved(-h * e), 0.0, False)[1][0]) / (2 * h)
                    for e in np.eye(k)], axis=-1)
    assert np.abs(H[0][:, live][:, :, live] - Hfd[:, live][:, :, live]).max() \
        < 1e-7 * np.abs(H).max()
    if ground:
        assert not np.any(B[0][:, :6]) and not np.any(H[0][:, :6]) and not np.any(H[0][..., :6])


def test_a_modal_beam_welded_to_a_rigid_body_matches_the_full_model():
    """A cantilever (8 elements, 1 m) carrying a rigid body (0.2 kg, inertia 2e-3 .. 6e-3 kg
    m^2, centre 0.1 m beyond the tip) welded to its tip: as a Craig-Bampton body (tip
    interface, 8 modes) with a welding ModalPin to the rigid body's node, its first six
    frequencies are the full model's (the body on the tip node) from above within 1e-4
    (measured 1e-7 .. 2.6e-5; 4 modes: 1.7e-3 on the sixth). With a revolute ModalPin about
    y the body swings freely about the hinge (a zero frequency, no gravity) and the next
    five equal the full model's with a Revolute between the tip and the body's node (1e-4,
    measured 1e-7 .. 3.6e-6)."""
    from fembody.reduced import ModalPin, read_matrices
    inertia = np.diag([2e-3, 4e-3, 6e-3])
    src, bs = template(n=8)
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in bs.nodes]].ravel()]
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in bs.nodes]))
    body = ModalBody3D.from_matrices(fe, 8, interface=[8])

    def full(joint):
        m = fb.Model(dim=3)
        b = m.add_beam((0, 0, 0), (1, 0, 0), n=8, material=MAT, section=SEC,
                       orientation=(0, 0, 1))
        m.fix(b.first)
        if joint is None:
            m.add_rigid_body(b.last, mass=0.2, inertia=inertia, offset=(0.1, 0.0, 0.0))
        else:
            n = m.add_node((1.0, 0.0, 0.0))
            m.add_rigid_body(n, mass=0.2, inertia=inertia, offset=(0.1, 0.0, 0.0))
            m.add_joint(joint(b.last, n))
        return fb.modes(m, n=6).frequencies

    def reduced(**lock):
        m = fb.Model(dim=3)
        ref = m.add_modal_body(body)
        m.fix(ref.node)
        n = m.add_node((1.0, 0.0, 0.0))
        m.add_rigid_body(n, mass=0.2, inertia=inertia, offset=(0.1, 0.0, 0.0))
        m.add_joint(ModalPin(ref, 8, n, **lock))
        return fb.modes(m, n=6).frequencies
    f_full = full(None)
    err = reduced(rotation=True) / f_full - 1
    assert np.all(err > -1e-9) and np.all(err < 1e-4), err
    f_rev = full(lambda a, b: fb.Revolute(a, b, axis=(0, 1, 0)))
    f_red = reduced(axis=(0, 1, 0))
    assert f_rev[0] < 1e-5 and f_red[0] < 1e-5          # the free swing about the hinge
    err = f_red[1:] / f_rev[1:] - 1
    assert np.all(err > -1e-9) and np.all(err < 1e-4), err


def test_modal_pin_rotation_lock_bad_input():
    """Both a weld and an axis, or a zero axis, are refused naming the argument."""
    from fembody.reduced import ModalPin
    src, bs = template()
    m = fb.Model(dim=3)
    ref = m.add_modal_body(ModalBody3D.from_body(src, bs, 4))
    with pytest.raises(fb.ModelError, match="not both"):
        ModalPin(ref, 6, m.ground, rotation=True, axis=(0, 1, 0))
    with pytest.raises(fb.ModelError, match="ModalPin: axis"):
        ModalPin(ref, 6, m.ground, axis=(0, 0, 0))


# ------------------------------------------------------------------ loads at mesh points
def test_loads_and_springs_at_a_mesh_point_of_a_modal_cantilever():
    """A tip force (Fy, Fz) and moment My on a modal cantilever (16 elements, Craig-Bampton
    with the tip as interface, 4 modes) through a node attached to the tip mesh point: the
    static tip deflection equals the full FE model's (1e-6, measured 3e-8: the interface
    response is exact with any number of modes; the full model's nonlinearity is ~(w /
    L)^2 = 1e-7) and Euler-Bernoulli's F L^3 / 3EI, M L^2 / 2EI within 2e-3 (the elements'
    discretisation, measured 6.6e-4, 6.9e-4); a spring from the node to the ground (k = 50
    N/m along z) against the full model with the same spring (1e-6). Four clamped modes without the interface are 0.4 % / 0.9 %
    off (truncation), so the attached node carries the load through the interface modes."""
    from fembody.reduced import attach_node, read_matrices
    n_el, L = 16, 1.0
    F, T = np.array([0.0, 0.3, -0.1]), np.array([0.0, 0.02, 0.0])
    src, bs = template(n=n_el)
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in bs.nodes]].ravel()]
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in bs.nodes]))
    body = ModalBody3D.from_matrices(fe, 4, interface=[n_el])

    def full(spring):
        m = fb.Model(dim=3)
        b = m.add_beam((0, 0, 0), (L, 0, 0), n=n_el, material=MAT, section=SEC,
                       orientation=(0, 0, 1))
        m.fix(b.first)
        m.add_force(b.last, F)
        m.add_torque(b.last, T)
        if spring:
            m.add_spring(b.last, (L, 0.0, -0.5), k=50.0)
        return fb.static(m, steps=1).displacement(b.last)[-1]

    def reduced(spring):
        m = fb.Model(dim=3)
        ref = m.add_modal_body(body)
        m.fix(ref.node)
        tip = attach_node(m, ref, n_el, name="tip")
        m.add_force(tip, F)
        m.add_torque(tip, T)
        if spring:
            m.add_spring(tip, (L, 0.0, -0.5), k=50.0)
        r = fb.static(m, steps=2)
        w = ref.positions(r)[-1, -1] - (L, 0.0, 0.0)
        np.testing.assert_allclose(r.position(tip)[-1] - (L, 0, 0), w, rtol=0, atol=1e-12)
        return w
    w_full, w = full(False), reduced(False)
    np.testing.assert_allclose(w[1:], w_full[1:], rtol=1e-6)
    E, Iy, Iz = MAT.E, SEC.Iy, SEC.Iz          # y bends with Iy, z with Iz (orientation z)
    w_eb = np.array([F[1] * L**3 / (3 * E * Iy),
                     F[2] * L**3 / (3 * E * Iz) - T[1] * L**2 / (2 * E * Iz)])
    np.testing.assert_allclose(w[1:], w_eb, rtol=2e-3)
    np.testing.assert_allclose(reduced(True)[1:], full(True)[1:], rtol=1e-6)


# ------------------------------------------------------------------ mode pictures
@pytest.mark.parametrize("dim", [2, 3])
def test_mode_pictures_of_a_modal_body_are_drawn_at_a_tenth_of_its_size(dim):
    """Modes.result of a model holding only a clamped modal body (1 m beam): the model's
    size is its mesh's (1 m, not its reference node's 1e-3 floor) and the drawn shape moves
    the mesh by 10 % of it at its largest point (1e-12; the amplitudes are scaled by the
    mesh's translations phi_t eta, not by the raw modal amplitudes)."""
    from fembody.reduced import ModalBody
    if dim == 3:
        src, bs = template(n=8)
        body = ModalBody3D.from_body(src, bs, 4)
        m = fb.Model(dim=3)
    else:
        src = fb.Model()
        bs = src.add_beam((0, 0), (1, 0), n=8, material=MAT, section=SEC)
        body = ModalBody.from_body(src, bs, 4)
        m = fb.Model()
    ref = m.add_modal_body(body)
    m.fix(ref.node)
    modes = fb.modes(m, n=3)
    assert modes.system.length == pytest.approx(1.0, rel=1e-12)
    for k in range(3):
        res = modes.result(k)
        d = ref.positions(res)[-1] - ref.reference_positions()
        assert np.abs(d).max() == pytest.approx(0.1, rel=1e-12)
    res = modes.result(1, amplitude=0.02)
    d = ref.positions(res)[-1] - ref.reference_positions()
    assert np.abs(d).max() == pytest.approx(0.02, rel=1e-12)


# ------------------------------------------------------------------ stresses
def test_stresses_of_a_modal_cantilever_are_the_beam_theory_ones():
    """A modal cantilever (16 elements, 0.02 x 0.01 m, Craig-Bampton with the tip interface)
    under a tip load (Fx, Fy, Fz), then a twist Tx, through an attached node: at the first
    element's middle x = L / 32, the axial stress Fx / A, the bending stress M c / I of both
    moments at the corner (M = F (L - x), I = b h^3 / 12 from the sizes) to 1e-6, and the
    torsional shear T / (alpha b t^2) with alpha = 0.246 for b / t = 2 (Timoshenko and
    Goodier's table, 3 digits: 1e-3). Stresses of a body from matrices are refused."""
    from fembody.reduced import attach_node, read_matrices
    n_el, L, b, h = 16, 1.0, 0.02, 0.01
    F = np.array([40.0, 0.3, -0.1])
    src, bs = template(n=n_el)
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in bs.nodes]].ravel()]
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in bs.nodes]))
    body = ModalBody3D.from_body(src, bs, 4)
    # the body's modes with the tip's static modes: the same body, its modes from matrices
    cb = ModalBody3D.from_matrices(fe, 4, interface=[n_el])
    body = ModalBody3D(body.name, cb.s, cb.Phi, cb.K, cb.omega, cb.invariants, cb.boundary,
                       cb.origin, body.node_ids, body.source, body.edges, body.sections)

    def stresses(force, torque):
        m = fb.Model(dim=3)
        ref = m.add_modal_body(body)
        m.fix(ref.node)
        tip = attach_node(m, ref, n_el)
        m.add_force(tip, force)
        m.add_torque(tip, torque)
        return ref.stresses(fb.static(m, steps=1))[-1]
    sig = stresses(F, (0.0, 0.0, 0.0))
    assert sig.shape == (n_el, 4)
    x = L / (2 * n_el)
    A, Iy, Iz = b * h, h * b**3 / 12, b * h**3 / 12      # y bends about local z: Iy, b / 2
    bend = abs(F[1]) * (L - x) * (b / 2) / Iy + abs(F[2]) * (L - x) * (h / 2) / Iz
    assert sig[0, 0] == pytest.approx(F[0] / A, rel=1e-6)
    assert sig[0, 1] == pytest.approx(bend, rel=1e-6)
    assert sig[0, 2] == pytest.approx(F[0] / A + bend, rel=1e-6)
    assert np.abs(sig[:, 3]).max() < 1e-9 * bend
    tau = stresses((0.0, 0.0, 0.0), (0.05, 0.0, 0.0))[:, 3]
    np.testing.assert_allclose(tau, 0.05 / (0.246 * b * h**2), rtol=1e-3)
    with pytest.raises(fb.ModelError, match="no element data"):
        m2 = fb.Model(dim=3)
        ref2 = m2.add_modal_body(cb)          # from matrices: no elements
        m2.fix(ref2.node)
        ref2.stresses(fb.static(m2, steps=1))


def test_stresses_of_a_modal_body_round_trip_through_the_xdmf_series(tmp_path):
    """The XDMF series (HDF5, float64) of a model holding a full beam and a modal body under
    gravity carries, on the modal mesh's cell block of every saved state, the section forces
    and stresses that ``ModalBodyRef.section_forces`` / ``stresses`` give (read back with
    meshio-style meshes: 1e-12 of the largest value; float64 storage makes it exact), the
    mesh's displacements likewise, and zero stresses on the full beam's cells (the stress
    columns belong to the modal cells only)."""
    src, bs = template()
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    beam = m.add_beam((0.0, -0.5, 0.0), (1.0, -0.5, 0.0), n=4, material=MAT, section=SEC,
                      orientation=(0, 0, 1))
    m.fix(beam.first)
    ref = m.add_modal_body(ModalBody3D.from_body(src, bs, 3), at=(0.0, 0.5, 0.0))
    m.fix(ref.node)
    st = fb.static(m, steps=2)
    states = fb.io.read_xdmf(fb.io.write_result(st, tmp_path / "st.xdmf"))
    assert [t for t, _ in states] == pytest.approx(list(st.time), rel=1e-15)
    forces, sig, pos = ref.section_forces(st), ref.stresses(st), ref.positions(st)
    assert np.abs(sig[-1][:, 1]).max() > 1e5                      # it is loaded
    for k, (_, mesh) in enumerate(states):
        fam = mesh.cell_data["family"]
        blk = [i for i, c in enumerate(fam) if len(c) and np.all(c == 7)]
        assert len(blk) == 1 and len(fam[blk[0]]) == 6             # the 6 elements' cells
        i = blk[0]
        for j, name in enumerate(("N", "Vy", "Vz", "T", "My", "Mz")):
            np.testing.assert_allclose(mesh.cell_data[name][i], forces[k][:, j], rtol=0,
                                       atol=1e-12 * np.abs(forces[-1]).max())
        for j, name in enumerate(("sigma_N", "sigma_b", "sigma_max", "tau_T")):
            np.testing.assert_allclose(mesh.cell_data[name][i], sig[k][:, j], rtol=0,
                                       atol=1e-12 * np.abs(sig[-1]).max())
            beam_cells = [c for b, c in enumerate(mesh.cell_data[name])
                          if b != i and len(c) and np.all(fam[b] == fam[0][0])]
            assert all(np.all(c == 0.0) for c in beam_cells)
        modal = mesh.point_data["node_id"] == -1
        np.testing.assert_allclose(mesh.point_data["displacement"][modal],
                                   pos[k] - ref.reference_positions(), rtol=0, atol=1e-15)


def test_an_attached_node_changes_nothing_in_a_dynamic_run(caplog):
    """A node attached to the tip of a modal cantilever (welded, no mass of its own, nothing on
    it) released under gravity: no "no mass" warning (the weld's rows fix the node's motion,
    so the index-1 start is solved, not replaced by zero accelerations) and the mesh moves as
    without the node (1e-12 of the motion; measured 2e-19 m; with zero starting
    accelerations it was 1.2e-4 m, 4 % of the 2.8 mm of motion)."""
    import logging

    from fembody.reduced import attach_node
    src, bs = template(n=8)
    body = ModalBody3D.from_body(src, bs, 4)

    def run(attach: bool):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        ref = m.add_modal_body(body)
        m.fix(ref.node)
        if attach:
            attach_node(m, ref, 8, name="tip")
        with caplog.at_level(logging.WARNING):
            r = fb.simulate(m, t_end=0.02, dt=1e-3)
        return ref.positions(r)
    plain = run(False)
    caplog.clear()
    attached = run(True)
    assert not [r for r in caplog.records if "no mass" in r.getMessage()]
    motion = np.abs(plain[-1] - plain[0]).max()
    assert motion > 1e-3
    np.testing.assert_allclose(attached, plain, rtol=0, atol=1e-12 * motion)


# ------------------------------------------------------------------ MBDyn's modal FEM file
def _mbdyn_file(path, n_modes=4):
    """A lumped-mass cantilever along x (its lumped rotary inertias are diagonal in the FE
    axes, as record 11 stores them), reduced by from_body, written as MBDyn's modal FEM file:
    (the file, the body, the template model)."""
    from fembody.reduced import write_mbdyn
    from fembody.reduced.mbdyn import lumped_inertia
    src = fb.Model(dim=3)
    b = src.add_beam((0, 0, 0), (1.0, 0, 0), n=6, material=MAT, section=SEC,
                     orientation=(0, 0, 1), mass="lumped")
    body = ModalBody3D.from_body(src, b, n_modes)
    M6 = fe_mass(src, b)
    assert np.abs(M6 - np.diag(np.diag(M6))).max() == 0.0
    lumped = np.diag(M6).reshape(-1, 6)
    X = np.array([x.position for x in b.nodes])
    p = write_mbdyn(path, X, body.Phi, body.Phi.T @ M6 @ body.Phi, body.K, lumped=lumped,
                    inertia=lumped_inertia(X, lumped))
    return p, body, src, b


def test_a_cantilever_written_as_an_mbdyn_fem_file_reads_back_as_the_same_body(tmp_path):
    """fembody's lumped-mass cantilever written in MBDyn's modal FEM format (records 1-12)
    and read back with ModalBody3D.from_mbdyn: the clamped body's frequencies (fb.modes of a
    model holding it) equal the full FE cantilever's lowest four to 1e-10 (the modes are
    exact eigenvectors; the file keeps 17 digits), and every inertia invariant equals
    from_body's to 1e-12 (the same lumped mass matrix; records 9 and 12 agree with record 11
    here). Keeping 2 of the file's modes gives the first two frequencies."""
    p, body, src, b = _mbdyn_file(tmp_path / "cantilever.fem")
    b2 = ModalBody3D.from_mbdyn(p)
    assert b2.n == 4 and b2.name == "modal cantilever"
    src.fix(b.first)
    f_full = fb.modes(src, n=4).frequencies
    m = fb.Model(dim=3)
    ref = m.add_modal_body(b2)
    m.fix(ref.node)
    np.testing.assert_allclose(fb.modes(m, n=4).frequencies, f_full, rtol=1e-10)
    np.testing.assert_allclose(b2.omega / (2 * np.pi), f_full, rtol=1e-10)
    for f in ("m", "c0", "Ct0", "Ct", "CtP", "J0", "J1", "J2", "Cr0", "Cr", "Mee"):
        a, c = np.asarray(getattr(body.invariants, f)), np.asarray(getattr(b2.invariants, f))
        np.testing.assert_allclose(c, a, rtol=0, atol=1e-12 * np.abs(a).max(), err_msg=f)
    np.testing.assert_allclose(ModalBody3D.from_mbdyn(p, 2).omega / (2 * np.pi), f_full[:2],
                               rtol=1e-10)


def test_bad_mbdyn_fem_files_are_refused_naming_the_file_line_and_record(tmp_path):
    """A truncated mode shape record, a word among numbers, a non-symmetric stiffness, a
    header that is not integers, a missing record 11, modal damping and a bad n_modes: each a
    ModelError naming the file, the line (where one is at fault) and the record."""
    p, *_ = _mbdyn_file(tmp_path / "good.fem")
    lines = p.read_text().splitlines()

    def edited(name, fun):
        q = tmp_path / name
        q.write_text("\n".join(fun(list(lines))) + "\n")
        return q

    def at(text):
        return next(i for i, x in enumerate(lines) if x.startswith(text))
    k8 = at("** RECORD GROUP 9") - 2                # the last line of the mode shapes
    short = edited("short.fem", lambda ls: ls[:k8] + ls[k8 + 1:])
    with pytest.raises(fb.ModelError, match=rf"short\.fem:{k8}: RECORD GROUP 8 .* holds 162 "
                                            r"values, .* asks for 168"):
        ModalBody3D.from_mbdyn(short)
    k9 = at("** RECORD GROUP 9") + 1

    def word(ls):
        ls[k9] = ls[k9].replace(ls[k9].split()[1], "abc", 1)
        return ls
    with pytest.raises(fb.ModelError, match=rf"word\.fem:{k9 + 1}: 'abc' in RECORD GROUP 9"):
        ModalBody3D.from_mbdyn(edited("word.fem", word))
    k10 = at("** RECORD GROUP 10") + 1

    def asym(ls):
        row = ls[k10].split()
        row[1] = "1.0e3"
        ls[k10] = " ".join(row)
        return ls
    with pytest.raises(fb.ModelError, match=r"asym\.fem:\d+: RECORD GROUP 10 .* not symmetric"):
        ModalBody3D.from_mbdyn(edited("asym.fem", asym))
    kh = at("      REV0")

    def header(ls):
        ls[kh] = "      REV0 7 four 0 0 0"
        return ls
    with pytest.raises(fb.ModelError, match=rf"header\.fem:{kh + 1}: 'four' in RECORD GROUP 1"):
        ModalBody3D.from_mbdyn(edited("header.fem", header))
    k11, k12 = at("** RECORD GROUP 11"), at("** RECORD GROUP 12")
    no11 = edited("no11.fem", lambda ls: ls[:k11] + ls[k12:])
    with pytest.raises(fb.ModelError, match=r"no11\.fem.*no RECORD GROUP 11"):
        ModalBody3D.from_mbdyn(no11)
    damped = edited("damped.fem", lambda ls: ls[:-1] + ["** RECORD GROUP 13, DAMPING"]
                    + [" ".join(["1.0" if i == j else "0.0" for j in range(4)])
                       for i in range(4)] + ls[-1:])
    with pytest.raises(fb.ModelError, match=r"damped\.fem.*RECORD GROUP 13 .* ignore"):
        ModalBody3D.from_mbdyn(damped)
    assert ModalBody3D.from_mbdyn(damped, ignore={"damping"}).n == 4
    with pytest.raises(fb.ModelError, match=r"n_modes must be an integer 1\.\.4"):
        ModalBody3D.from_mbdyn(p, 5)
    with pytest.raises(fb.ModelError, match=r"cannot read"):
        ModalBody3D.from_mbdyn(tmp_path / "missing.fem")


# ------------------------------------------------------------------ contacts at mesh points
def _falling_cantilevers(contact: dict, t_end: float):
    """A cantilever (8 elements, 1 m) bending down under gravity onto a plane 3 mm below its
    tip, as the full beam model and as a modal body (Craig-Bampton, the tip as interface, 4
    modes) whose tip is an attached node: (full result, its tip z, modal result, its tip z,
    the body)."""
    from fembody.reduced import attach_node, read_matrices
    n_el, L = 8, 1.0
    plane = ((L, 0.0, -3e-3), (0.0, 0.0, 1.0))
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0, 0, 0), (L, 0, 0), n=n_el, material=MAT, section=SEC,
                   orientation=(0, 0, 1))
    m.fix(b.first)
    m.add_contact(b.last, plane=plane, **contact)
    rf = fb.simulate(m, t_end=t_end, dt=5e-4)
    src, bs = template(n=n_el)
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in bs.nodes]].ravel()]
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in bs.nodes]))
    body = ModalBody3D.from_matrices(fe, 4, interface=[n_el])
    mm = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    ref = mm.add_modal_body(body)
    mm.fix(ref.node)
    tip = attach_node(mm, ref, n_el)
    mm.add_contact(tip, plane=plane, **contact)
    rm = fb.simulate(mm, t_end=t_end, dt=5e-4)
    return rf, rf.position(b.last)[:, 2], rm, rm.position(tip)[:, 2], body


def test_penalty_contact_at_the_tip_of_a_modal_cantilever_follows_the_full_beam():
    """The tip (an attached node) of a modal cantilever hits a plane through a linear penalty
    (2e4 N/m, e = 1) as the full beam's tip node does: contact over the same steps, the peak
    force within 2 % (measured 0.7 %; 2 modes instead of 4 give 2.5 %: the modal truncation)
    and the tip's path within 2 % of its 3.4 mm travel (measured 0.6 %); the energy balance
    (kinetic + strain with the penalty's + gravity) of both holds within 2 % of the peak
    kinetic energy (measured 0.8 %: the generalized-alpha dissipation at dt = 5e-4 s, alike
    in both)."""
    rf, zf, rm, zm, _ = _falling_cantilevers(
        dict(method="penalty", stiffness=2e4, exponent=1.0), 0.05)
    Ff = rf.contacts["normal_force"].sum(axis=1)
    Fm = rm.contacts["normal_force"].sum(axis=1)
    assert Ff.max() > 5.0
    np.testing.assert_array_equal(Fm > 0, Ff > 0)
    assert Fm.max() == pytest.approx(Ff.max(), rel=2e-2)
    np.testing.assert_allclose(zm, zf, rtol=0, atol=2e-2 * np.ptp(zf))
    for r in (rf, rm):
        e = r.energy
        assert np.ptp(e.balance) < 2e-2 * e.kinetic.max()


def test_impulse_contact_at_the_tip_of_a_modal_cantilever():
    """The same fall onto the plane by impulses (e = 0.5). Before the first impact the modal
    and the full model move alike: the impact time to 1e-3 and the tip's speed then to 1 %
    (measured 2e-4, 0.6 %). The impulse acts through the weld on the modal amplitudes: the
    tip rebounds at -e v- (Newton's law, 1e-9), with the impulse (1 + e) |v-| m_eff of the
    reduced body's effective mass at the tip, m_eff = 1 / (phi_z^T M_ee^-1 phi_z) from its
    modal mass and the tip's z mode components (1e-8), and the energy it takes, (1 - e^2) / 2
    m_eff v-^2, is what the balance books as dissipated: the balance (total + dissipated)
    holds to 1 % of the kinetic energy (measured 0.2 %). (The full beam's impulse is 17 %
    smaller: an impulse at a node depends on the mesh's effective mass there, the reduced
    one's being larger by the truncation.)"""
    e = 0.5
    rf, zf, rm, zm, body = _falling_cantilevers(dict(method="impulse", restitution=e), 0.03)
    first_f, first_m = rf.impacts[0], rm.impacts[0]
    assert first_m["time"] == pytest.approx(first_f["time"], rel=1e-3)
    assert first_m["v_before"] == pytest.approx(first_f["v_before"], rel=1e-2)
    v = first_m["v_before"]
    assert v < -0.1
    assert first_m["v_after"] == pytest.approx(-e * v, rel=1e-9)
    phi = body.phi_t[-1, 2]
    m_eff = 1.0 / (phi @ np.linalg.solve(body.invariants.Mee, phi))
    assert first_m["impulse"] == pytest.approx((1 + e) * abs(v) * m_eff, rel=1e-8)
    assert first_m["energy_loss"] == pytest.approx(0.5 * (1 - e**2) * m_eff * v**2, rel=1e-8)
    en = rm.energy
    assert en.dissipated[-1] >= first_m["energy_loss"] * (1 - 1e-9)
    assert np.ptp(en.balance) < 1e-2 * en.kinetic.max()


# ------------------------------------------------------------------ the Euler load's stiffening
def test_euler_load_stiffening_of_a_curved_boom_spun_up_follows_the_full_beam(monkeypatch):
    """A quarter-circle boom (radius 0.6 m, 8 elements) clamped on a hub at its root, sagging
    under gravity, spun about z by a driver to 10 rad/s in 0.5 s (angular acceleration up to
    40 rad/s^2). The Euler load ``-m W' x s`` has a component along the curved members (on a
    straight radial one it has none), whose stress stiffens the sag. With stiffening (4
    modes) the tip sag follows the full model of geometrically exact elements within 1 % of
    the sag all along (measured 0.48 %; 0.43 % with 6 modes, 0.49 % with 8); the same body
    without the Euler term (its coupling H set to zero) is 2.5 % off (measured 2.48 %)."""
    import math

    import fembody.reduced.modal_body3d as mb3
    Om, T = 10.0, 0.5

    def angle(t):
        return Om * (t * t / (2 * T) + (math.cos(2 * math.pi * t / T) - 1) * T
                     / (4 * math.pi**2)) if t < T else Om * (T / 2 + t - T)

    def rate(t):
        return Om * (t / T - math.sin(2 * math.pi * t / T) / (2 * math.pi)) if t < T else Om

    def accel(t):
        return Om * (1 - math.cos(2 * math.pi * t / T)) / T if t < T else 0.0

    def arc(m):
        return m.add_arc((0, 0, 0), (0, 0.6, 0), math.pi / 2, n=8, material=MAT, section=SEC,
                         axis=(0, 0, 1))

    def run(body):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
        if body is None:
            b = arc(m)
            hub = b.first
        else:
            ref = m.add_modal_body(body)
            hub = ref.node
        m.add_joint(fb.Revolute(m.ground, hub, axis=(0, 0, 1)))
        m.add_joint(fb.RotationDriver(m.ground, hub, axis=(0, 0, 1), angle=angle,
                                      velocity=rate, acceleration=accel))
        r = fb.simulate(m, t_end=0.5, dt=1e-3, save_every=10)
        return (r.position(b.last) if body is None else ref.positions(r)[:, -1])[:, 2]
    src = fb.Model(dim=3)
    bs = arc(src)
    z_full = run(None)
    z_euler = run(ModalBody3D.from_body(src, bs, 4, stiffening=True))
    monkeypatch.setattr(mb3, "_euler_stiffness",
                        lambda sys_c, M, s, nd, V: np.zeros((3, V.shape[1], V.shape[1])))
    z_without = run(ModalBody3D.from_body(src, bs, 4, stiffening=True))
    sag = np.abs(z_full).max()
    assert sag > 1e-3
    assert np.abs(z_euler - z_full).max() < 1e-2 * sag
    assert np.abs(z_without - z_full).max() > 2e-2 * sag


# ------------------------------------------------------------------ ModalPin in the compiled step
@pytest.mark.parametrize("kind", ["pin", "weld", "revolute"])
def test_compiled_modal_pin_rows_equal_the_blocks(kind):
    """modal3d_numba.pin_rows (the compiled step's ModalPin rows, Hessian in closed form)
    against the Python blocks' evaluate (Hessian by the complex step, itself checked against
    finite differences above) at a random state: phi, B and H to 1e-13 of their largest
    entries (round-off)."""
    from fembody.elements.modal import modal3d_numba
    from fembody.joints.modal.compile import _rotation_pairs
    from fembody.joints.modal.pin3d import SpatialModalPinBlock, SpatialModalWeldBlock
    src, b = template(end=(0.8, 0.4, 0.3), orientation=(0.0, 0.3, 1.0))
    mb = ModalBody3D.from_body(src, b, 3)
    rng = np.random.default_rng(11)
    Xo, Xr = rng.normal(size=(1, 3)), rng.normal(size=(1, 3))
    xo, r = rng.normal(size=3), rng.normal(size=3)
    Ro, R = expm(rng.normal(size=3)), expm(rng.normal(size=3))
    eta = 0.1 * rng.normal(size=3)
    N = 3
    if kind == "pin":
        blk = SpatialModalPinBlock(np.arange(9 + N)[None], [0], Xo, Xr, mb.s[4][None],
                                   mb.phi_t[4][None])
        phi, B, H = blk.evaluate((xo[None], r[None], R[None], eta[None]), 0.0, True)
        cols = np.r_[0:3, 6:12 + N]                 # (x_o, r, Theta, eta) of the 12 + N
        C = D = np.zeros((3, 3))
        psi = np.zeros((3, N))
    else:
        Cp, Dp = _rotation_pairs(None if kind == "weld" else np.array([0.6, 0.0, 0.8]))
        blk = SpatialModalWeldBlock(np.arange(12 + N)[None], [0], Xo, Xr, mb.s[4][None],
                                    mb.phi_t[4][None], mb.phi_r[4][None], Cp[None], Dp[None])
        phi, B, H = blk.evaluate((xo[None], Ro[None], r[None], R[None], eta[None]), 0.0, True)
        cols = np.arange(12 + N)
        C, D = np.zeros((3, 3)), np.zeros((3, 3))
        C[:len(Cp)], D[:len(Dp)] = Cp, Dp
        psi = mb.phi_r[4]
    m = phi.shape[1]
    # (not an export of the extension: its source under CPython, tests/kernel_source.py)
    pin_rows = python_kernel(modal3d_numba.pin_rows)
    ph, Bk, Hk = pin_rows(R, Ro, r, xo, eta, mb.s[4].copy(), np.ascontiguousarray(mb.phi_t[4]),
                          np.ascontiguousarray(psi), C, D, m, True)
    np.testing.assert_allclose(ph, phi[0], rtol=0, atol=1e-13 * np.abs(phi).max())
    np.testing.assert_allclose(Bk[:, cols], B[0], rtol=0, atol=1e-13 * np.abs(B).max())
    np.testing.assert_allclose(Hk[:, cols][:, :, cols], H[0], rtol=0,
                               atol=1e-13 * np.abs(H).max())


def test_imported_matrices_carry_the_euler_load_stiffening_with_its_three_cases():
    """A curved body (quarter circle, 8 elements) from imported M, K with the geometric
    stiffness of the three Euler load cases rx, ry, rz (the load m e_i x s): its coupling H
    (added to the invariant Cr) equals from_body(stiffening=True)'s on the sign-free
    diagonals to 1e-6 (two central differences of the tangent with different steps), and is
    not negligible there; without the three cases it is absent, and a partial set is
    refused."""
    import math

    from fembody.reduced import read_matrices
    src = fb.Model(dim=3)
    b = src.add_arc((0, 0, 0), (0, 0.6, 0), math.pi / 2, n=8, material=MAT, section=SEC,
                    axis=(0, 0, 1), orientation=(0, 0, 1))
    sys = src.compile()
    where = np.full(sys.n_dof, -1)
    where[sys.free] = np.arange(sys.n_free)
    order = where[sys.node_dofs[[x.id for x in b.nodes]].ravel()]
    fe = read_matrices(sys.mass_matrix().toarray()[np.ix_(order, order)],
                       sys.stiffness_matrix().toarray()[np.ix_(order, order)],
                       nodes=np.array([x.position for x in b.nodes]))
    geo = _template_geometric_stiffness(src, b, euler=True)
    a = ModalBody3D.from_body(src, b, 4, stiffening=True)
    plain_a = ModalBody3D.from_body(src, b, 4)
    c = ModalBody3D.from_matrices(fe, 4, geometric=geo)
    plain_c = ModalBody3D.from_matrices(fe, 4)
    Ha = np.diagonal(a.invariants.Cr - plain_a.invariants.Cr, axis1=0, axis2=2)
    Hc = np.diagonal(c.invariants.Cr - plain_c.invariants.Cr, axis1=0, axis2=2)
    assert np.abs(Ha).max() > 1e-3 * np.abs(plain_a.invariants.Cr).max()
    np.testing.assert_allclose(Hc, Ha, rtol=0, atol=1e-6 * np.abs(Ha).max())
    nine = {k: v for k, v in geo.items() if not k.startswith("r")}
    c9 = ModalBody3D.from_matrices(fe, 4, geometric=nine)
    np.testing.assert_array_equal(c9.invariants.Cr, plain_c.invariants.Cr)
    with pytest.raises(fb.ModelError, match=r"give all of rx, ry, rz"):
        ModalBody3D.from_matrices(fe, 4, geometric={**nine, "rz": geo["rz"]})
