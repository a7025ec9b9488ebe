"""The envelope solver's own reverse Cuthill-McKee ordering (issue 17: SciPy's costs ~0.07 s of
imports at the first simulate) against SciPy's ``reverse_cuthill_mckee``: a permutation, and
an envelope as small on beam chains, frame grids and random patterns with several parts."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

import fembody as fb
from fembody.linalg import envelope


def _envelope_size(A: sp.csr_matrix, perm: np.ndarray) -> int:
    n = A.shape[0]
    iperm = np.empty(n, np.int64)
    iperm[perm] = np.arange(n)
    C = A.tocoo()
    first = np.arange(n)
    np.minimum.at(first, iperm[C.row], iperm[C.col])
    return int(np.sum(np.arange(n) - first + 1))


def _frame(k: int) -> sp.csr_matrix:
    mat, sec = fb.Material(E=70e9, rho=2700.0, nu=0.33), fb.Section.rectangle(0.02, 0.02)
    m = fb.Model()
    nodes = [[m.add_node((i * 0.1, j * 0.1)) for j in range(k + 1)] for i in range(k + 1)]
    for i in range(k + 1):
        for j in range(k + 1):
            if i < k:
                m.add_beam(nodes[i][j], nodes[i + 1][j], 1, material=mat, section=sec)
            if j < k:
                m.add_beam(nodes[i][j], nodes[i][j + 1], 1, material=mat, section=sec)
    m.fix(nodes[0][0])
    s = m.compile()
    return sp.csr_matrix(s.csc(np.ones(len(s.indices))))


def _chain(n: int) -> sp.csr_matrix:
    m = fb.Model()
    b = m.add_beam((0, 0), (1, 0), n=n, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first)
    s = m.compile()
    return sp.csr_matrix(s.csc(np.ones(len(s.indices))))


def _random(n: int, seed: int) -> sp.csr_matrix:
    A = sp.random(n, n, density=3.0 / n, random_state=seed, format="csr")
    A = A + A.T + sp.identity(n)
    A.data[:] = 1.0
    return A.tocsr()


@pytest.mark.parametrize("A", [_chain(40), _frame(7), _random(300, 1), _random(500, 2)],
                         ids=["chain", "frame", "random-300", "random-500"])
def test_rcm_matches_scipy(A):
    n = A.shape[0]
    perm = envelope._rcm(A.indptr.astype(np.int64), A.indices.astype(np.int64), n)
    assert np.array_equal(np.sort(perm), np.arange(n))
    ref = np.asarray(reverse_cuthill_mckee(A, symmetric_mode=True))
    ours, theirs = _envelope_size(A, perm), _envelope_size(A, ref)
    assert ours <= 1.05 * theirs, (ours, theirs)


def _half_bandwidth(A: sp.csr_matrix, perm: np.ndarray) -> int:
    iperm = np.empty(A.shape[0], np.int64)
    iperm[perm] = np.arange(A.shape[0])
    C = A.tocoo()
    return int(np.abs(iperm[C.row] - iperm[C.col]).max())


def _spatial_saddle(n: int, joints: bool) -> sp.csr_matrix:
    """The saddle-point pattern of a spatial beam chain (what the banded LU orders)."""
    m = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81))
    b = m.add_beam((0, 0, 0), (1, 0, 0), n=n, material=fb.Material(E=1e9, rho=1e3, nu=0.3),
                   section=fb.Section.rectangle(0.02, 0.02), orientation=(0, 0, 1))
    if joints:
        m.add_joint(fb.Spherical(m.ground, b.first))
        m.add_joint(fb.Revolute(m.ground, b.last, axis=(0, 0, 1)))
    else:
        m.fix(b.first)
    s = m.compile()
    if not s.n_con:
        return sp.csr_matrix(s.csc(np.ones(len(s.indices))))
    p = s.saddle_pattern()
    return sp.csr_matrix(sp.csc_matrix((np.ones(len(p.indices)), p.indices, p.indptr),
                                       shape=(p.n, p.n)))


@pytest.mark.parametrize("A", [_spatial_saddle(12, False), _spatial_saddle(20, True),
                               _chain(40), _frame(7), _random(300, 1), _random(500, 2)],
                         ids=["spatial-cantilever", "spatial-joints", "chain", "frame",
                              "random-300", "random-500"])
def test_banded_ordering_no_wider_than_scipy(A):
    """The banded LU orders its pattern by the envelope solver's RCM (no scipy.sparse import):
    a permutation whose half-bandwidth is no larger than SciPy's RCM gives (within 5 % on
    random patterns with several parts), and what half_bandwidth reports is that band."""
    from fembody.linalg.banded import half_bandwidth
    n = A.shape[0]
    bw, perm = half_bandwidth(A.indptr, A.indices, n)
    assert np.array_equal(np.sort(perm), np.arange(n))
    assert bw == _half_bandwidth(A, perm)
    ref = np.asarray(reverse_cuthill_mckee(A, symmetric_mode=True))
    assert bw <= 1.05 * _half_bandwidth(A, ref), (bw, _half_bandwidth(A, ref))
