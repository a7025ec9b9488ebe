"""Spatial dynamics through joints, against the planar solver and analytic motions."""
import math

import numpy as np
import pytest

import fembody as fb

G = 9.81


def test_compound_pendulum_on_a_revolute_equals_the_planar_pendulum():
    # a rigid body (offset centre of mass) swinging about z under gravity -y: the Lie-group
    # step on quaternions gives the planar step's motion (the same scheme on a commutative
    # subgroup) to Newton's tolerance
    def run(dim):
        m = fb.Model(gravity=(0.0, -G) if dim == 2 else (0.0, -G, 0.0), dim=dim)
        p = (0.0, 0.0) if dim == 2 else (0.0, 0.0, 0.0)
        c = (0.6, 0.2) if dim == 2 else (0.6, 0.2, 0.0)
        J = 0.05 if dim == 2 else (0.04, 0.03, 0.05)
        rb = m.add_rigid_body(p, 2.0, J, offset=c)
        if dim == 2:
            m.add_joint(fb.Pin(m.ground, rb.node))
        else:
            m.add_joint(fb.Revolute(m.ground, rb.node, axis=(0.0, 0.0, 1.0)))
        r = fb.simulate(m, t_end=1.0, dt=2e-3, rho_inf=0.8, tol=1e-12)
        ang = r.rotation(rb.node) if dim == 2 else r.rotation(rb.node, as_="vector")[:, 2]
        return np.unwrap(ang)

    a2, a3 = run(2), run(3)
    assert np.ptp(a2) > 1.0                      # a real swing
    np.testing.assert_allclose(a3, a2, atol=1e-8)


def spin_up(dim, t_end=3.0, mass="lumped"):
    # Simo & Vu-Quoc's spin-up beam: L = 10 m, EA = 2.8e7 N, EI = 1.4e4 N m^2, rho A = 1.2 kg/m,
    # driven about the hub: psi = (w/T)(t^2/2 + (T/2 pi)^2 (cos(2 pi t/T) - 1)), w = 6, T = 15
    w, T = 6.0, 15.0
    psi = lambda t: (w / T) * (t * t / 2 + (T / (2 * math.pi)) ** 2  # noqa: E731
                               * (math.cos(2 * math.pi * t / T) - 1.0))
    dpsi = lambda t: (w / T) * (t - (T / (2 * math.pi)) * math.sin(2 * math.pi * t / T))  # noqa
    ddpsi = lambda t: (w / T) * (1.0 - math.cos(2 * math.pi * t / T))  # noqa: E731
    A = 1.2e-3                   # any area: E and rho follow from EA and rho A
    mat = fb.Material(E=2.8e7 / A, rho=1.2 / A, nu=0.3)
    sec = fb.Section(A=A, I=1.4e4 * A / 2.8e7, Iy=1.4e4 * A / 2.8e7, J=2.8e-4 * A)
    m = fb.Model(dim=dim)
    p0, p1 = ((0.0, 0.0), (10.0, 0.0)) if dim == 2 else ((0.0, 0.0, 0.0), (10.0, 0.0, 0.0))
    b = m.add_beam(p0, p1, n=10, material=mat, section=sec, mass=mass)
    if dim == 2:
        m.add_joint(fb.Pin(m.ground, b.first))
        m.add_joint(fb.Driver(b.first, "rz", psi, velocity=dpsi, acceleration=ddpsi))
    else:
        m.add_joint(fb.Revolute(m.ground, b.first, axis=(0.0, 0.0, 1.0)))
        m.add_joint(fb.RotationDriver(m.ground, b.first, axis=(0.0, 0.0, 1.0), angle=psi,
                                      velocity=dpsi, acceleration=ddpsi))
    r = fb.simulate(m, t_end=t_end, dt=5e-3, rho_inf=0.8, tol=1e-11)
    return r.position(b.last)


@pytest.mark.parametrize("mass", ["lumped", "consistent"])
def test_spin_up_beam_built_in_3d_matches_the_planar_run(mass):
    x2, x3 = spin_up(2, mass=mass), spin_up(3, mass=mass)
    assert np.abs(x3[:, 2]).max() < 1e-12
    assert x2[-1, 1] > 1.0                       # the tip has swung round (psi = 0.22 rad)
    # measured 6e-13 m (lumped and consistent rotary inertia alike)
    np.testing.assert_allclose(x3[:, :2], x2, atol=1e-9)


def test_heavy_symmetric_top_precesses_at_the_steady_rate():
    # tip node held (x, y, z fixed); symmetric body (A, A, C about its centre of mass) whose
    # axis, at distance l from the tip, is tilted by theta from the vertical; started on the
    # slow steady precession: m g l = Omega (C w3 - A_o Omega cos(theta)), A_o = A + m l^2 the
    # transverse inertia about the tip, w3 the angular velocity component along the axis
    m_, l, A, C, th, w3 = 1.5, 0.2, 0.02, 0.01, math.radians(30.0), 150.0
    Ao = A + m_ * l * l
    Om = (C * w3 - math.sqrt((C * w3) ** 2 - 4 * Ao * math.cos(th) * m_ * G * l)) / (
        2 * Ao * math.cos(th))
    e3 = np.array([0.0, math.sin(th), math.cos(th)])
    e1 = np.array([1.0, 0.0, 0.0])
    e2 = np.cross(e3, e1)
    R0 = np.column_stack([e1, e2, e3])
    J = R0 @ np.diag([A, A, C]) @ R0.T
    spin = w3 - Om * math.cos(th)

    def run(h):
        m = fb.Model(dim=3, gravity=(0.0, 0.0, -G))
        n = m.add_node((0.0, 0.0, 0.0))
        m.add_rigid_body(n, m_, J, offset=l * e3)
        m.fix(n, "x", "y", "z")
        m.set_velocity(n, omega=Om * np.array([0.0, 0.0, 1.0]) + spin * e3)
        r = fb.simulate(m, t_end=0.3, dt=h, rho_inf=1.0, tol=1e-12)
        axis = np.einsum("nij,j->ni", r.rotation(n), e3)
        tilt = np.arccos(np.clip(axis[:, 2], -1, 1))
        az = np.unwrap(np.arctan2(axis[:, 1], axis[:, 0]))
        return np.ptp(tilt), np.polyfit(r.time, az, 1)[0]

    (t1, w1), (t2, w2) = run(1e-3), run(5e-4)
    # the tilt's wobble and the rate's error fall at the integrator's order 2 (measured:
    # 2.6e-3, 6.7e-4, 1.7e-4 rad and -2.4 %, -0.60 %, -0.15 % at h = 1, 0.5, 0.25 ms over 0.5 s)
    assert t1 / t2 == pytest.approx(4.0, rel=0.15)
    assert (w1 - Om) / (w2 - Om) == pytest.approx(4.0, rel=0.15)
    assert w2 + (w2 - w1) / 3 == pytest.approx(Om, rel=3e-4)      # Richardson


def test_revolute_reactions_balance_a_static_cantilever_load():
    # a rigid arm on a hinge about y, held level by a rotational driver (angle 0), carries
    # its weight W at the offset centre of mass: force (0, 0, W) and moment W c about the
    # joint point, in the global frame and in the hinge's frames (no rotation at rest)
    m_, c = 3.0, 0.4
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -G))
    rb = m.add_rigid_body((0.0, 0.0, 0.0), m_, (0.1, 0.1, 0.1), offset=(c, 0.0, 0.0))
    hinge = m.add_joint(fb.Revolute(m.ground, rb.node, axis=(0.0, 1.0, 0.0)))
    m.add_joint(fb.RotationDriver(m.ground, rb.node, axis=(0.0, 1.0, 0.0), angle=0.0))
    r = fb.static(m, steps=1)
    W = m_ * G
    for frame in ("global", "a", "b"):
        FM = r.joint_reaction(hinge, frame=frame)[-1]
        # the hinge takes the force and the moment about x and z; the driver the moment
        # about y (m g c)
        np.testing.assert_allclose(FM[:3], [0.0, 0.0, W], atol=1e-9 * W)
        np.testing.assert_allclose(FM[[3, 5]], [0.0, 0.0], atol=1e-9 * W)
    drive = [j for j in m.joints if j.kind == "RotationDriver"][0]
    assert abs(abs(r.joint_reaction(drive)[-1, 0]) - W * c) <= 1e-9 * W * c
    with pytest.raises(fb.ModelError, match="frame"):
        r.joint_reaction(drive, frame="c")


def test_spatial_results_export_to_vtu_and_xdmf(tmp_path):
    import meshio
    steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -G))
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=4, material=steel,
                   section=fb.Section.rectangle(b=0.01, h=0.02))
    m.add_joint(fb.Spherical(m.ground, b.first))
    m.add_rigid_body(b.last, 1.0, (0.01, 0.02, 0.03))
    t = m.add_node((1.0, 0.5, 0.0))
    m.add_truss(b.last, t, steel, fb.Section(A=1e-5))
    m.add_mass(t, 0.1)
    m.set_velocity(t, (0.0, 0.0, 1.0))
    r = fb.simulate(m, t_end=0.02, dt=1e-3)
    steps = fb.io.read_pvd(fb.io.write_result(r, tmp_path / "r.pvd"))
    assert len(steps) == len(r)
    mesh = meshio.read(steps[-1][1])
    k = list(mesh.point_data["node_id"]).index(b.last.id)
    # VTK keeps 11 significant digits or more
    np.testing.assert_allclose(mesh.point_data["displacement"][k], r.displacement(b.last)[-1],
                               rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(mesh.point_data["quaternion"][k],
                               r.rotation(b.last, as_="quaternion")[-1], atol=1e-12)
    R = r.rotation(b.last)[-1]
    for i in range(3):
        np.testing.assert_allclose(mesh.point_data[f"d{i + 1}"][k], R[:, i], atol=1e-12)
    lines = mesh.cell_data["My"][0]
    np.testing.assert_allclose(lines[:4], r.resultants("beam")[-1][:, 4], rtol=1e-9, atol=1e-9)
    assert fb.io.write_result(r, tmp_path / "r.xdmf").exists()


@pytest.mark.parametrize("name", ["spatial-slider-crank", "spatial-four-bar", "rotating-shaft",
                                  "lateral-buckling", "spatial-manipulator"])
def test_spatial_demos_run_and_write_their_results(name, tmp_path, capsys):
    from fembody.cli import main
    out = tmp_path / name
    assert main(["demo", name, "--t-end", "0.01", "--no-gif", "--out", str(out)]) == 0
    assert len(fb.io.read_pvd(out / "result.pvd")) >= 2
    # the node the summary follows (the loaded one, else the one that moves most: cli)
    assert "final displacement" in (out / "summary.txt").read_text()
