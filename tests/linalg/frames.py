"""The space frame the linear-algebra tests factorise: 2 x 2 columns of 1 m bays, storeys of
1 m, clamped at the base, beams along every edge (one shared builder, so the tests' models
differ only in what they say)."""
from __future__ import annotations

import fembody as fb

STEEL = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
SEC = fb.Section.rectangle(b=0.05, h=0.08)


def space_frame(storeys: int, n: int, material=STEEL, section=SEC,
                gravity=(0.0, 0.0, 0.0)) -> tuple[fb.Model, dict]:
    """The frame and its nodes by grid index ``(i, j, k)`` (k = 0: the clamped base); ``n``
    elements per member."""
    m = fb.Model(dim=3, gravity=gravity)
    node = {}
    for k in range(storeys + 1):
        for j in range(2):
            for i in range(2):
                node[i, j, k] = m.add_node((1.0 * i, 1.0 * j, 1.0 * k))
                if k == 0:
                    m.fix(node[i, j, k])
    for (i, j, k), a in list(node.items()):
        for d in ((1, 0, 0), (0, 1, 0), (0, 0, 1)):
            b = node.get((i + d[0], j + d[1], k + d[2]))
            if b is not None:
                m.add_beam(a, b, n=n, material=material, section=section,
                           orientation=(0, 1, 0) if d[2] else (0, 0, 1))
    return m, node
