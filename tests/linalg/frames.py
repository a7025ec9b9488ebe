"""The structures the linear-algebra tests factorise, one shared builder each, so the tests'
models differ only in what they say: the space frame (2 x 2 columns of 1 m bays, storeys of
1 m, clamped at the base, beams along every edge) and benchmarks/linear_solvers.py's square
grid of spatial beams."""
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


def clamped_grid(k: int, side: float = 0.02, gravity=(0.0, 0.0, 0.0)
                 ) -> tuple[fb.Model, list]:
    """benchmarks/linear_solvers.py's spatial grid: k x k cells of 0.1 m in the x-y plane,
    one steel beam of square section ``side`` [m] per member, the edge nodes clamped; and
    its nodes by ``[i][j]``."""
    sec = fb.Section.rectangle(side, side)
    m = fb.Model(dim=3, gravity=gravity)
    nodes = [[m.add_node((i * 0.1, j * 0.1, 0.0)) for j in range(k + 1)] for i in range(k + 1)]
    for i in range(k + 1):
        for j in range(k + 1):
            if i < k:
                m.add_beam(nodes[i][j], nodes[i + 1][j], 1, material=STEEL, section=sec)
            if j < k:
                m.add_beam(nodes[i][j], nodes[i][j + 1], 1, material=STEEL, section=sec)
            if i in (0, k) or j in (0, k):
                m.fix(nodes[i][j])
    return m, nodes
