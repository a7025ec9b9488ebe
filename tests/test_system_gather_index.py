"""``System.gather_index(block)``: the public, read-only view of the index by which
``System.pose`` reads a block's coordinates from ``q`` (what the deferred after-step update
of idle frictional blocks reads, fembody.contact.nodes.ContactState.advance)."""
import numpy as np
import pytest

import fembody as fb


def _model() -> fb.Model:
    steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
    sec = fb.Section.rectangle(b=0.01, h=0.01)
    m = fb.Model(gravity=(0.0, -9.81))
    a, b, c = m.add_node((0.0, 0.0)), m.add_node((1.0, 0.0)), m.add_node((1.0, 1.0))
    m.add_truss(a, b, steel, sec)
    m.add_truss(b, c, steel, sec)
    beam = m.add_beam((0.0, 1.0), (1.0, 1.0), n=2, material=steel, section=sec)
    m.fix(a, "x", "y")
    m.fix(beam.first, "x", "y", "rz")
    return m


def test_the_index_reads_what_the_space_gathers():
    """For every block with an index, ``q[index]`` equals the configuration space's own
    gather of the block's DOFs (``System.gather``, independent of the index) at a moved
    state; a block with rotation DOFs (the beam) has none, and neither has a block of
    another System; the index cannot be written (the System is immutable)."""
    s = _model().compile()
    q = np.asarray(s.q0, dtype=float) + np.linspace(0.1, 0.9, len(s.q0))
    indexed = 0
    for b in s.blocks:
        idx = s.gather_index(b)
        rotation = bool(np.asarray(s.space.rotation)[b.dofs].any())
        if idx is None:
            assert rotation or getattr(b, "spatial", False)
            continue
        indexed += 1
        assert not rotation
        assert np.array_equal(q[idx], s.gather(q, b.dofs))
        with pytest.raises(ValueError):
            idx[0] = 0
    assert indexed >= 1 and indexed < len(s.blocks)
    other = _model().compile()
    assert all(s.gather_index(b) is None for b in other.blocks)
