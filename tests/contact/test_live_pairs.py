"""The System adds a beam-contact block's stiffness from its touching pairs alone
(``BeamContactBlock.live_forces`` and ``System.add_matrix_rows``, issue 33's bundle speed):
the same forces, and the same CSC data bit for bit, as the scatter of the block's whole
``(n, k, k)`` stiffness, spatial (crossing pairs, with and without friction) and planar
(node-on-element pairs)."""
import numpy as np
import pytest

import fembody as fb

R = 0.005
STEEL = fb.Material(E=2e11, rho=7850.0, nu=0.3)


def _stack(mu: float, dim: int = 3):
    """Three beams of 10 elements stacked 2 R apart (in line contact along their length),
    two contacts with friction ``mu``."""
    m = fb.Model(dim=dim)
    body = []
    for i in range(3):
        y = 2.0 * R * i
        if dim == 3:
            b = m.add_beam((0.0, 0.0, y), (1.0, 0.0, y), n=10, material=STEEL,
                           section=fb.Section.circle(2 * R), orientation=(0, 0, 1))
        else:
            b = m.add_beam((0.0, y), (1.0, y), n=10, material=STEEL,
                           section=fb.Section.circle(2 * R))
        m.fix(b.first, *m_all(dim))
        body.append(b)
    for a, b in zip(body, body[1:]):
        m.add_beam_contact(a, b, radius=R, stiffness=1e6, friction=mu, margin=0.5 * R,
                           max_penetration=float("inf"))
    return m


def m_all(dim):
    return ("x", "y", "z", "rx", "ry", "rz") if dim == 3 else ("x", "y", "rz")


def _pressed(blk, rng, depth):
    """Displacements ``(n, m d)`` of the block's pairs: the upper beam of each pair pushed
    ``depth`` [m] into the lower one where its node's z (y) is above, some round-off noise
    (a block of frictional pairs: then the nodes' rotation vectors or planar angles, 1e-6
    rad noise, issue 33)."""
    d = blk.dim
    m = blk.X.shape[1]
    x = 1e-9 * rng.normal(size=(len(blk), m, d))
    X = blk.X
    upper = X[:, :, -1] > X[:, :, -1].min(axis=1, keepdims=True) + 0.5 * R
    x[..., -1] -= np.where(upper, depth * (1.0 + rng.uniform(size=upper.shape)), 0.0)
    x = x.reshape(len(blk), -1)
    if blk.dofs.shape[1] > x.shape[1]:
        x = np.concatenate([x, 1e-6 * rng.normal(size=(len(x), blk.dofs.shape[1] - x.shape[1]))],
                           axis=1)
    return x


@pytest.mark.parametrize("dim, mu", [(3, 0.0), (3, 0.3), (2, 0.0)])
def test_live_pairs_add_the_whole_block(dim, mu):
    """On pairs pressed 1e-6 m into each other along part of the stack and apart elsewhere,
    ``live_forces`` returns the forces of ``forces`` and the stiffness rows of the touching
    pairs; every other pair's stiffness is exactly zero; ``add_matrix_rows`` of the live rows
    equals ``add_matrix`` of the whole stiffness bit for bit."""
    system = _stack(mu, dim).compile()
    rng = np.random.default_rng(3)
    blk = next(b for b in system.beam_contact_blocks if type(b).__name__ == "BeamContactBlock")
    assert blk.kind == ("crossing" if dim == 3 else "node")
    x = _pressed(blk, rng, 1e-6)
    far = np.arange(len(blk)) % 3 == 0          # a third of the pairs: the upper beam lifted
    z = blk.X[:, :, -1]
    upper = z > z.min(axis=1, keepdims=True) + 0.5 * R
    x[:, :blk.X[0].size].reshape(len(blk), -1, dim)[..., -1] += np.where(
        far[:, None] & upper, 0.01, 0.0)
    history = None
    if blk.frictional:                  # slipping anchors: a friction force and tangent
        history = blk.history0.copy()
        history.anchor[:, 2:] += 2e-6 * rng.normal(size=history.anchor[:, 2:].shape)
    f, K, _ = blk.forces(x, None, True, history)
    fl, rows, Kl = blk.live_forces(x, True, history)
    assert np.array_equal(f, fl)
    assert 0 < len(rows) < len(blk) and not far[rows].any()
    assert np.array_equal(Kl, K[rows]) and not np.delete(K, rows, axis=0).any()
    whole = np.zeros(system.nnz)
    system.add_matrix(whole, blk, K)
    live = np.zeros(system.nnz)
    system.add_matrix_rows(live, blk, rows, Kl)
    assert np.abs(whole).max() > 0.0 and np.array_equal(whole, live)
    f0, rows0, K0 = blk.live_forces(x, False, history)
    assert np.array_equal(f0, f) and K0 is None


@pytest.mark.parametrize("dim, mu", [(3, 0.0), (3, 0.3), (2, 0.0), (2, 0.3)])
def test_every_live_block_has_no_force_off_its_live_rows(dim, mu):
    """The contract the System relies on when it scatters a block's forces from its live rows
    alone (``System._internal``, ``add_vector_rows``): for every beam-contact block with
    ``live_forces`` (element pairs, junction, free-end, wedge and share rows), at a pressed
    state, the forces ``live_forces`` returns equal those of the whole block's ``forces`` on
    every row, bit for bit, and are exactly zero off the live rows; with and without the
    tangent (a residual-only evaluation, a closing Newton increment's, scatters the live
    rows' forces alone too)."""
    system = _stack(mu, dim).compile()
    rng = np.random.default_rng(5)
    kinds = set()
    for blk in system.beam_contact_blocks:
        if not hasattr(blk, "live_forces"):
            continue
        kinds.add(type(blk).__name__)
        for depth in (0.0, 1e-6, 3e-4):
            x = _pressed(blk, rng, depth)
            for tangent in (True, False):
                f, rows, K = blk.live_forces(x, tangent)
                off = np.setdiff1d(np.arange(len(blk)), rows)
                assert not f[off].any(), (type(blk).__name__, depth, tangent)
                np.testing.assert_array_equal(f, blk.forces(x, None, tangent)[0])
                assert K.shape[0] == len(rows) if tangent else K is None
            # and no strain energy off the live rows (what WedgeLineBlock.strain_energy
            # evaluates alone)
            E = blk.strain_energy(x)
            assert not E[off].any(), (type(blk).__name__, depth)
            if type(blk).__name__ == "WedgeLineBlock":
                W, _, _, lam = blk._energy(x, False)[:4]
                np.testing.assert_array_equal(E, lam * W)
    assert "BeamContactBlock" in kinds and (dim == 2 or "JunctionContactBlock" in kinds), kinds
