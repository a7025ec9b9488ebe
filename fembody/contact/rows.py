"""The bookkeeping shared by the contact blocks of rows (element pairs, junction, free-end,
wedge and share rows, surface contacts): :class:`ContactRows`."""
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
