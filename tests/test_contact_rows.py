"""Resting impulse contacts as constraint rows (fembody.system.contact_rows): the contacts of a
group are one block evaluated in one vectorised call per Newton iteration. Checked against
the same rows built one block per contact (the layout before), and B and the geometric
stiffness against finite differences of phi and of B^T lam."""
from __future__ import annotations

import numpy as np

import fembody as fb
from fembody.system.contact_rows import ContactRows, with_contact_rows
from fembody.system.system import Scatter


def _model():
    m = fb.Model(gravity=(0.0, -9.81))
    b = m.add_beam((0.0, 0.01), (1.0, 0.03), n=4, material=fb.Material(E=1e8, rho=1000.0),
                   section=fb.Section.rectangle(0.02, 0.02))
    for nd in b.nodes:
        m.add_contact(nd, plane=((0.0, 0.0), (0.1, 1.0)), restitution=0.0)
    p = m.add_node((0.42, 0.06))
    m.add_mass(p, 0.05)
    r = m.add_node((0.7, 0.2))
    m.add_mass(r, 0.05)
    m.add_contact(p, segment=(b.nodes[1], b.nodes[2]), restitution=0.0)
    m.add_contact(r, segment=(b.nodes[2], b.nodes[3]), restitution=0.0)
    m.add_contact(p, other=r, radius=0.05, restitution=0.0)
    return m


def _one_block_per_contact(base, items):
    """The rows as the System built them before: a block of one contact per row."""
    blocks = [ContactRows(grp, [i], [base.n_con + k]) for k, (grp, i) in enumerate(items)]
    scatter = dict(base.scatter)
    for blk in blocks:
        pos = base.scatter[id(blk.group)].pos[blk.idx]
        sel = np.flatnonzero(pos.ravel() >= 0)
        scatter[id(blk)] = Scatter(blk.dofs, sel, pos.ravel()[sel].astype(np.int64), pos)
    return base.with_joint_blocks(base.joint_blocks + blocks,
                                  np.r_[base.row_joint, np.full(len(items), -1, np.int64)],
                                  scatter)


def test_grouped_contact_rows_equal_one_block_per_contact_and_finite_differences():
    s = _model().compile()
    # every contact, the groups interleaved (rows follow the order of the items)
    items = [(grp, i) for grp in s.contact_groups for i in range(len(grp))]
    items = items[1::2] + items[0::2]
    grouped = with_contact_rows(s, items)
    single = _one_block_per_contact(s, items)
    assert len(grouped.joint_blocks) == len(s.contact_groups) < len(single.joint_blocks)
    rng = np.random.default_rng(3)
    u = np.zeros(s.n_dof)
    u[s.free] = 1e-3 * rng.standard_normal(s.free.size)
    q = s.space.update(s.q0, u)
    lam = rng.standard_normal(len(items))
    a = grouped.constraints(q, 0.0, lam)
    b = single.constraints(q, 0.0, lam)
    assert np.array_equal(a.phi, b.phi) and np.array_equal(a.Bdata, b.Bdata)
    # B^T lam and its derivative sum the rows in another order where contacts share a DOF
    assert np.allclose(a.force, b.force, rtol=1e-14, atol=1e-14 * np.abs(b.force).max())
    assert np.allclose(a.G, b.G, rtol=1e-14, atol=1e-14 * np.abs(b.G).max())
    # B = dphi/dq (free DOFs) and G = d(B^T lam)/dq against central differences
    B = np.zeros((len(items), s.n_free))
    B[grouped.B_rows, grouped.B_indices] = a.Bdata
    G = s.csc(a.G).toarray()                    # (free x free: the K pattern)
    h = 1e-7
    for j, d in enumerate(s.free):
        du = np.zeros(s.n_dof)
        du[d] = h
        p = grouped.constraints(s.space.update(q, du), 0.0, lam)
        m = grouped.constraints(s.space.update(q, -du), 0.0, lam)
        assert np.allclose((p.phi - m.phi) / (2 * h), B[:, j], atol=1e-6)
        assert np.allclose(((p.force - m.force) / (2 * h))[s.free], G[:, j], atol=1e-5)
