"""fembody.contact.sections: the vector a beam element's section carries at a chord
parameter, against a rigid motion (exact), one node frame (exact) and central differences
on the nodes' material rotation increments."""
import numpy as np
import pytest

from fembody.contact.sections import carried, carried_moment_tangent, section_frame, tie
from fembody.rotations import exp

RNG = np.random.default_rng(33)


def _frames(n):
    return exp(RNG.normal(scale=0.6, size=(n, 2, 3)))


def test_a_rigid_rotation_turns_the_carried_vector_exactly():
    R, s, a = _frames(5), RNG.uniform(size=5), RNG.normal(size=(5, 3))
    Q = exp(np.array([0.3, -1.1, 0.7]))
    v, _ = carried(R, s, a)
    vq, _ = carried(Q @ R, s, a)
    assert np.abs(vq - v @ Q.T).max() < 1e-14


def test_equal_node_frames_carry_by_that_rotation_and_tie_inverts():
    R = _frames(4)
    R[:, 1] = R[:, 0]
    s, a = RNG.uniform(size=4), RNG.normal(size=(4, 3))
    v, _ = carried(R, s, a)
    assert np.abs(v - np.einsum("nij,nj->ni", R[:, 0], a)).max() < 1e-14
    R = _frames(4)
    v = RNG.normal(size=(4, 3))
    assert np.abs(carried(R, s, tie(R, s, v))[0] - v).max() < 1e-12


def test_tie_broadcasts_an_elements_rotations_over_its_parameters():
    """Guard: an element's rotations ``(k, 1, 2, 3, 3)`` tie its ``(k, g)`` parameters as
    each gathered per parameter does, bit for bit, and invert :func:`carried` (what a beam
    block's line points read, beams.BeamContactBlock._tied)."""
    R = _frames(3)
    s, v = RNG.uniform(size=(3, 4)), RNG.normal(size=(3, 4, 3))
    a = tie(R[:, None], s, v)
    flat = tie(np.repeat(R, 4, axis=0), s.ravel(), v.reshape(-1, 3))
    np.testing.assert_array_equal(a.reshape(-1, 3), flat)
    assert np.abs(carried(np.repeat(R, 4, axis=0), s.ravel(), flat)[0]
                  - v.reshape(-1, 3)).max() < 1e-12


def test_a_frame_turned_by_pi_within_the_element_is_refused():
    R = np.stack([np.eye(3), exp(np.array([0.0, 0.0, np.pi]))])[None]
    with pytest.raises(ValueError, match="refine the mesh"):
        tie(R, np.array([0.5]), np.ones((1, 3)))


def _turned(R, k, h):
    """R with node k // 3's frame turned by the material increment h e_(k % 3)."""
    e = np.zeros(3)
    e[k % 3] = h
    out = R.copy()
    out[:, k // 3] = R[:, k // 3] @ exp(e)
    return out


def test_derivatives_on_the_material_increments_match_central_differences():
    R, s, a, T = _frames(6), RNG.uniform(size=6), RNG.normal(size=(6, 3)), RNG.normal(
        size=(6, 3))
    _, G = carried(R, s, a)
    K = carried_moment_tangent(R, s, a, T)
    h = 1e-6
    Gfd, Kfd = np.zeros_like(G), np.zeros_like(K)
    for k in range(6):
        vp, Gp = carried(_turned(R, k, h), s, a)
        vm, Gm = carried(_turned(R, k, -h), s, a)
        Gfd[:, :, k] = (vp - vm) / (2 * h)
        Kfd[:, :, k] = (np.einsum("nik,ni->nk", Gp, T) - np.einsum("nik,ni->nk", Gm, T)) / (
            2 * h)
    assert np.abs(G - Gfd).max() < 1e-8 * np.abs(G).max()
    assert np.abs(K - Kfd).max() < 1e-8 * np.abs(K).max()
    # the moments are the nodes' shares of (v x T) in their material axes
    m = np.einsum("nik,ni->nk", G, T)
    for i, c in enumerate((1.0 - s, s)):
        want = c[:, None] * np.einsum("nji,nj->ni", R[:, i],
                                       np.cross(np.einsum("nij,nj->ni", R[:, i], a), T))
        assert np.abs(m[:, 3 * i:3 * i + 3] - want).max() < 1e-13


def test_the_frame_blends_the_node_frames_linearly():
    R = _frames(3)
    M = section_frame(R, np.array([0.0, 1.0, 0.25]))
    assert np.allclose(M[0], R[0, 0]) and np.allclose(M[1], R[1, 1])
    assert np.allclose(M[2], 0.75 * R[2, 0] + 0.25 * R[2, 1])
