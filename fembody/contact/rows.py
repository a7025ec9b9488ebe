"""The bookkeeping shared by the contact blocks of rows (element pairs, junction, free-end,
wedge and share rows, surface contacts): :class:`ContactRows`, and the beam elements at each
node of a model that the row builders read (:func:`beam_neighbours`)."""
from __future__ import annotations

import numpy as np


class ContactRows:
    """Base class of the contact blocks whose rows each act on a few nodes' translations.

    It owns what every such block keeps the same way, as SciPy's ``OdeSolver`` owns ``t``,
    ``y`` and the counters of its steppers: the length (the number of rows), the rows' labels,
    the mass (None: a contact adds none) and the node positions of each row. A subclass sets,
    in its constructor, ``dofs (n, k)`` the rows' DOFs, ``X (n, m, d)`` the reference
    positions of their nodes [m] (``k = m d``) and ``_labels`` (a sequence of ``n`` names),
    and implements the evaluations of the block contract
    (:class:`fembody.elements.base.Block`: ``gaps``, ``forces`` and the rest)."""

    dofs: np.ndarray
    X: np.ndarray
    _labels: list

    def __len__(self) -> int:
        return self.dofs.shape[0]

    def label(self, i: int) -> str:
        """The name of row ``i`` (for messages and results)."""
        return self._labels[i]

    def mass(self) -> None:
        """None: a contact block adds no mass."""
        return None

    def positions(self, x: np.ndarray) -> np.ndarray:
        """Current node positions ``(n, m, d)`` [m] of the rows from their gathered
        displacements ``x (n, m d)`` [m]."""
        return self.X + x.reshape(self.X.shape)

    def strain_energy(self, x: np.ndarray) -> np.ndarray:
        """The energy per row [J] at the gathered displacements ``x (n, k)`` [m]: zero off the
        live rows, there the rows' own. The default for the blocks that evaluate their live
        rows alone: they implement ``live(x)`` (the rows that may carry), ``_take(rows)``
        (the block of those rows) and ``_energy(x, tangent)`` (the energy per row first);
        the other blocks override it."""
        E = np.zeros(len(self))
        live = self.live(x)
        if live.size:
            E[live] = self._take(live)._energy(x[live], False)[0]
        return E

    def _live_pass(self, live: np.ndarray, tangent: bool, evaluate):
        """The ``live_forces`` triple ``(f, live, Kl)`` of the rows ``live``: the forces ``(n,
        k)`` [N], zero off the live rows, and (``tangent``) the live rows' stiffness ``(m, k,
        k)`` (else None); ``evaluate(live)`` gives the live rows' forces and stiffness, called
        only where some row is live."""
        n, m = self.dofs.shape
        f = np.zeros((n, m))
        if not live.size:
            return f, live, (np.zeros((0, m, m)) if tangent else None)
        f[live], Kl = evaluate(live)
        return f, live, Kl

    @staticmethod
    def _whole(f: np.ndarray, live: np.ndarray, Kl: np.ndarray | None):
        """The ``forces`` triple of a block from its ``live_forces`` ``(f, live, Kl)``: the
        forces, the stiffness ``(n, k, k)`` with the live rows' ``Kl`` and zeros elsewhere
        (None without ``Kl``), no damping."""
        K = None
        if Kl is not None:
            K = np.zeros((f.shape[0], f.shape[1], f.shape[1]))
            K[live] = Kl
        return f, K, None


def beam_neighbours(model) -> dict[int, list[tuple[int, bool]]]:
    """Every beam element of ``model`` at each node: ``{node id: [(the element's other node,
    whether the element ends at the node), ...]}``. A free end has one entry, a junction of
    two elements (of one beam or two joined there) two, a branch more; nodes of no beam
    element are absent."""
    around: dict[int, list[tuple[int, bool]]] = {}
    for body in model.bodies:
        for e in body.elements:
            if e.family != "beam":
                continue
            i, j = (nd_.id for nd_ in e.nodes)
            around.setdefault(i, []).append((j, False))
            around.setdefault(j, []).append((i, True))
    return around


def pair_report(pa: np.ndarray, pb: np.ndarray, F: np.ndarray, g: np.ndarray
                ) -> dict[str, np.ndarray]:
    """The report of rows that hold a point ``pa (n, d)`` against a point ``pb (n, d)`` [m]:
    per row ``gap`` ``g`` [m], ``normal_force`` ``F`` [N], ``point`` midway between them [m]
    and ``normal`` (unit, from ``pb`` to ``pa``; 0 where they coincide)."""
    r = pa - pb
    rho = np.linalg.norm(r, axis=1)
    return {"gap": g, "normal_force": F, "point": 0.5 * (pa + pb),
            "normal": r / np.where(rho > 0.0, rho, 1.0)[:, None]}
