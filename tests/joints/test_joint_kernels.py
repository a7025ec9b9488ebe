"""Every joint block: B = dphi/dx and the Hessians H = d^2 phi/dx^2 (constraint geometric
stiffness) against central finite differences on random configurations (hypothesis)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fembody.joints.distance import DistanceBlock
from fembody.joints.drivers import LinearBlock
from fembody.joints.point import PointBlock
from fembody.joints.slide import SliderBlock

from ..conftest import fd_jacobian, rel_err

finite = dict(allow_nan=False, allow_infinity=False)
coord = st.floats(-2.0, 2.0, **finite)
angle = st.floats(-np.pi, np.pi, **finite)
SETTINGS = settings(max_examples=40, deadline=None)
DOFS = np.arange(6)[None]


def vec(draw, n):
    return np.array([draw(coord) for _ in range(n)])


def check(block, x):
    phi, B, H = block.evaluate(x[None], 0.0, True)
    m = phi.shape[1]
    Bfd = fd_jacobian(lambda y: block.evaluate(y[None], 0.0, False)[0][0], x)
    assert rel_err(B[0], Bfd, 1.0) < 1e-7
    for i in range(m):
        Hfd = fd_jacobian(lambda y: block.evaluate(y[None], 0.0, False)[1][0, i], x)
        Hi = np.zeros((6, 6)) if H is None else H[0, i]
        assert rel_err(Hi, Hfd, 1.0) < 1e-6
        assert np.allclose(Hi, Hi.T)


@SETTINGS
@given(st.data(), st.booleans())
def test_point_block(data, rotation):
    draw = data.draw
    blk = PointBlock(DOFS, [0], vec(draw, 2)[None], vec(draw, 2)[None], rotation)
    check(blk, vec(draw, 6))


@SETTINGS
@given(st.data(), st.booleans())
def test_slider_block(data, lock):
    draw = data.draw
    a = draw(angle)
    blk = SliderBlock(DOFS, [0], vec(draw, 2)[None], vec(draw, 2)[None],
                      np.array([[np.cos(a), np.sin(a)]]), lock)
    check(blk, vec(draw, 6))


@SETTINGS
@given(st.data())
def test_distance_block(data):
    draw = data.draw
    x = vec(draw, 6)
    x[3] += 5.0                         # keep the points apart (the direction is defined)
    blk = DistanceBlock(DOFS, [0], vec(draw, 2)[None] * 0.3, vec(draw, 2)[None] * 0.3, [1.7])
    check(blk, x)


def test_linear_block_driver_rates():
    """A driver f(t) = sin(3t): phi = q - X - f, phi_t = -f', phi_tt = -f'' (numerical
    derivatives of fourth order)."""
    import fembody as fb
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0), n=1, material=fb.Material(E=1.0, rho=1.0),
                   section=fb.Section(A=1.0, I=1.0))
    d = fb.Driver(b.last, "rz", np.sin)
    m.add_joint(d)
    blk = LinearBlock(np.array([[5, -1]]), [0], [[1.0, 0.0]], [0.2], [d])
    x = np.array([[0.7, 0.0]])
    t = 0.4
    phi, B, H = blk.evaluate(x, t, True)
    assert np.isclose(phi[0, 0], 0.7 - 0.2 - np.sin(t))
    assert H is None and np.array_equal(B[0, 0], [1.0, 0.0])
    pt, ptt = blk.rates(t)
    assert np.isclose(pt[0, 0], -np.cos(t), atol=1e-10)
    assert np.isclose(ptt[0, 0], np.sin(t), atol=1e-7)
