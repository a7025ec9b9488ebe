"""Guard: the System's sparse pattern and scatter maps built by runs of consecutive indices
(patterns.BlockEntries, Pattern's ``runs``) equal those looked up entry by entry (the build
of b055c5a, written out below): the pattern's ``indices``/``indptr``, the diagonal's positions
and every block's ``pos``, ``msel`` and ``mpos``, for random index blocks (runs of several
lengths, fixed DOFs, repeated rows, both of Pattern's paths) and for compiled models (a small
beam bundle with and without friction, planar beam contact, node contacts, joints)."""
import numpy as np
import pytest

import fembody as fb
from fembody.patterns import BlockEntries, Pattern
from fembody.system.constraints import joint_free_index

from tests.contact.geometries import bundle, through_the_chord


def _entry_by_entry(index: np.ndarray, n: int):
    """(keys, sel, pos with -1) of a block's entries listed one by one."""
    m, k = index.shape
    key = (index[:, None, :] * n + index[:, :, None]).reshape(-1)
    valid = index >= 0
    sel = np.flatnonzero((valid[:, :, None] & valid[:, None, :]).reshape(-1))
    return key[sel], sel


def _random_block(rng, m: int, k: int, L: int, n: int, fixed: float) -> np.ndarray:
    """(m, k) indices below n in aligned runs of L consecutive ones, a share ``fixed`` of
    them -1, some rows repeated."""
    starts = rng.integers(0, n - L + 1, (m, k // L))
    index = (starts[:, :, None] + np.arange(L)).reshape(m, k)
    if m > 2:
        index[1] = index[0]
    index[rng.random((m, k)) < fixed] = -1
    return index


@pytest.mark.parametrize("repeats", [1, 40])      # few keys: sorting path; many: the table
def test_block_entries_equal_entry_by_entry(repeats):
    rng = np.random.default_rng(11)
    n = 30
    blocks = [_random_block(rng, 5 * repeats, k, L, n, fixed)
              for k, L, fixed in ((12, 6, 0.0), (15, 3, 0.02), (8, 2, 0.1), (7, 1, 0.0),
                                  (6, 3, 1.0), (9, 3, 0.0))]
    blocks.append(np.zeros((0, 6), dtype=np.int64))
    blocks.append(np.array([[3, 4, 5, 9, 10, 11]] * 3))          # a run of 3 across groups
    ref_keys = [_entry_by_entry(b, n)[0] for b in blocks]
    ref = Pattern(n, n, ref_keys)
    entries = [BlockEntries(b, n) for b in blocks]
    keys, runs = [], []
    for e in entries:
        keys += e.keys()
        runs += e.runs()
    pat = Pattern(n, n, keys, runs)
    assert (pat._rank is None) == (ref._rank is None)
    assert np.array_equal(pat.keys, ref.keys)
    assert np.array_equal(pat.indices, ref.indices)
    assert np.array_equal(pat.indptr, ref.indptr)
    for b, e, key in zip(blocks, entries, ref_keys):
        _, sel = _entry_by_entry(b, n)
        for dtype in (np.int32, np.int64):
            want = np.full(b.size * b.shape[1], -1, dtype=dtype)
            want[sel] = ref.positions(key, dtype)
            got = e.positions(pat, dtype)
            assert got.dtype == dtype and got.shape == (len(b), b.shape[1] ** 2)
            assert np.array_equal(got.reshape(-1), want)
    assert max(e.L for e in entries) == 6


def _reference_scatter(s):
    """The System's pattern and scatter maps looked up entry by entry (b055c5a's build)."""
    nf = s.n_free
    keys, local = [np.arange(nf, dtype=np.int64) * (nf + 1)], []
    joints = [b for b in s.joint_blocks if not b.linear]
    extra = [s.turning_loads] if s.turning_loads else []
    for b in s.blocks + joints + s.contact_groups + extra:
        fi = joint_free_index(s.free_index, b) if b in joints else s.free_index[b.dofs]
        key, sel = _entry_by_entry(fi, nf)
        local.append((b, sel, key))
        keys.append(key)
    pat = Pattern(nf, nf, keys)
    out = {}
    for b, sel, key in local:
        mpos = pat.positions(key)
        pos = np.full(b.dofs.shape[0] * b.dofs.shape[1] ** 2, -1,
                      dtype=np.int32 if pat.nnz < 2**31 - 2 else np.int64)
        pos[sel] = mpos
        out[id(b)] = (sel, mpos, pos.reshape(b.dofs.shape[0], -1))
    return pat, pat.positions(np.arange(nf, dtype=np.int64) * (nf + 1)), out


def _node_contacts():
    m = fb.Model()
    b = m.add_beam((0.0, 0.01), (1.0, 0.03), n=4, material=fb.Material(E=1e8, rho=1000.0),
                   section=fb.Section.rectangle(0.02, 0.02))
    m.fix(b.first, "x", "y")
    for nd in b.nodes:
        m.add_contact(nd, plane=((0.0, 0.0), (0.1, 1.0)), restitution=0.0)
    p = m.add_node((0.42, 0.06))
    m.add_mass(p, 0.05)
    m.add_contact(p, segment=(b.nodes[1], b.nodes[2]), restitution=0.0)
    m.add_contact(p, segment=(b.nodes[2], b.nodes[3]), method="penalty", stiffness=1e5)
    return m


def _joints():
    """Two planar beams pinned (a nonlinear joint block), one of them on a rigid plane."""
    m = fb.Model(gravity=(0.0, -9.81))
    steel, sec = fb.Material(E=2e11, rho=7850.0, nu=0.3), fb.Section.circle(0.01)
    a = m.add_beam((0.0, 0.0), (0.5, 0.0), n=3, material=steel, section=sec)
    c = m.add_beam((0.5, 0.0), (0.5, 0.4), n=2, material=steel, section=sec)
    m.fix(a.first, "x", "y")
    m.add_joint(fb.Pin(a.last, c.first))
    m.add_surface_contact(c, fb.Plane((0.0, 0.45), (0.0, -1.0)), radius=0.01, stiffness=1e5,
                          friction=0.3)
    return m


@pytest.mark.parametrize("make", [lambda: bundle(3, 6), lambda: bundle(3, 6, friction=0.3),
                                  lambda: through_the_chord(0.01, 1e5, 0.0)[0],
                                  _node_contacts, _joints])
def test_compiled_scatter_equals_entry_by_entry(make):
    s = make().compile()
    pat, diag, ref = _reference_scatter(s)
    assert np.array_equal(s.indices, pat.indices) and np.array_equal(s.indptr, pat.indptr)
    assert s.nnz == pat.nnz and np.array_equal(s.diag_pos, diag)
    assert set(s.scatter) == set(ref)
    for key, (sel, mpos, pos) in ref.items():
        sc = s.scatter[key]
        for got, want in ((sc.msel, sel), (sc.mpos, mpos), (sc.pos, pos)):
            assert got.dtype == want.dtype and np.array_equal(got, want)
