"""The bookkeeping shared by the contact blocks of rows (element pairs, junction, free-end,
wedge and share rows, surface contacts): :class:`ContactRows`, and the beam elements at each
node of a model that the row builders read (:func:`beam_neighbours`); :class:`ChordScreen`,
the screen by chord angles that lets the blocks of mostly idle rows skip them between Newton
iterations; and :func:`add_live_rows`, the compiled scatter of the live rows' stiffness."""
from __future__ import annotations

import math

import numpy as np


class ContactRows:
    """Base class of the contact blocks whose rows each act on a few nodes' translations.

    It owns what every such block keeps the same way, as SciPy's ``OdeSolver`` owns ``t``,
    ``y`` and the counters of its steppers: the length (the number of rows), the rows' labels,
    the mass (None: a contact adds none) and the node positions of each row. A subclass sets,
    in its constructor, ``dofs (n, k)`` the rows' DOFs, ``X (n, m, d)`` the reference
    positions of their nodes [m] (``k = m d``) and ``_labels`` (a sequence of ``n`` names),
    and implements the evaluations of the block contract
    (:class:`fembody.elements.base.Block`: ``gaps``, ``forces`` and the rest).

    A block whose rows are mostly idle may also give ``idle_at(q, at) -> bool``: True only
    where its ``live_forces`` at the gathered displacements ``q[at]`` would find no live row
    (``at (n, k)`` the index of each gathered displacement in the configuration ``q``, where
    the System's gather is a plain selection), read from ``q`` without gathering every row
    (the junction and share rows: their chord screen,
    :meth:`ChordScreen.candidates_at`). The System then skips the block in that evaluation:
    its forces and stiffness are exact zeros there, and the matrix pattern (the candidate
    rows' entries, stored zeros included) stays the one compiled
    (:meth:`fembody.system.System._internal`)."""

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
        displacements ``x (n, m d)`` [m] (a block whose DOFs end with the nodes' angles,
        ``x (n, m (d + 1))``: read up to the displacements)."""
        return self.X + x[:, :self.X[0].size].reshape(self.X.shape)

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


def _translations(x: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The displacements' columns ``(n, m d)`` of a block's gathered ``x`` (or their
    indices): a block that reads its nodes' rotations too (friction at the surfaces) holds
    them after the displacements; the chords' indices count the displacements' alone."""
    md = X[0].size
    return x if x.shape[1] == md else x[:, :md]


def add_live_rows(data: np.ndarray, pos: np.ndarray, rows: np.ndarray, Ke: np.ndarray
                  ) -> bool:
    """Add the stiffness ``Ke (m, k, k)`` of a block's live ``rows (m,)`` into the CSC data
    ``data`` of the System's pattern by the block's positions ``pos (n, k k)`` (-1 where a
    DOF is fixed), row by row and entry by entry in order, by one compiled pass
    (:func:`fembody.contact._kernels.scatter_rows`): what
    :meth:`fembody.system.System.add_matrix_rows` adds of a contact block's ``live_forces``.
    False (nothing added) where the arrays are not the kernel's (int64 positions of a
    pattern of 2^31 entries or more, other dtypes or layouts): the caller adds them itself."""
    if not (pos.dtype == np.int32 and Ke.dtype == np.float64 and Ke.flags.c_contiguous
            and data.dtype == np.float64 and data.flags.c_contiguous and Ke.ndim == 3
            and Ke.shape[0] == len(rows) and Ke.shape[1] == Ke.shape[2]
            and Ke.shape[1] * Ke.shape[2] == pos.shape[1]):
        return False
    from ._kernels import scatter_rows
    scatter_rows(data, pos, np.ascontiguousarray(rows, dtype=np.int64), Ke)
    return True


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


class ChordScreen:
    """Which rows of a block may have chords far enough from parallel to carry a point weight,
    kept between evaluations while no chord has turned by more than a skin angle (a Verlet
    list of angles).

    The blocks whose rows act only where two chords are not near-parallel (the point weight
    ``1 - lam`` of :func:`fembody.contact.line.switch` above zero: the junction rows and the
    crossing pairs' take-back) screen every row's squared cosine at every Newton iteration;
    along a bundle of parallel beams none passes, and that screen was much of each
    evaluation. The angle ``theta`` between two lines changes by at most the
    sum of the angles each has turned through. So where every chord has turned by at most
    :data:`SKIN` since a screening configuration, a row whose angle there was at most
    ``theta_S - 2 SKIN`` (``theta_S`` the angle whose squared cosine is the block's
    threshold) is still below ``theta_S`` and idle: only the others (``candidates``) need
    the block's own test, which then gives exactly the rows it gave on all rows (every test
    is row by row). A chord's turn is measured on its own nodes, so a translation or the
    sagging of a bundle as a whole keeps the screen; the screen is made again (one pass over
    the chords) where some chord has turned farther, or has no length.

    ``X (n, m, d)`` the block's reference positions [m] and ``nodes (n, m)`` its node ids;
    ``specs`` one ``(rows, at)`` per chord pair a block tests: ``rows (r,)`` the rows it
    tests it in and ``at`` four slots, the chords ``at[0] -> at[1]`` and ``at[2] -> at[3]``;
    ``cos2`` the block's threshold on the squared cosine (a row may be live where it is
    below). Each chord (a pair of node ids) is measured once, from one row holding it.

    The screen keeps the last screening (chord directions and candidates) as a memo, one
    tuple replaced whole: it changes no result (the block's own test runs on a superset of
    its live rows in any case), so a System shared by runs may keep it. A block taken on a
    subset of its rows (``X`` another array) is not screened (:meth:`candidates` None)."""

    #: [rad] the angle a chord may turn through before the screen is made again
    SKIN = math.radians(1.0)
    # [rad] slack for round-off in the angles (far above atan2's and arccos's errors near 1)
    _SLACK = 1e-6

    def __init__(self, X: np.ndarray, nodes: np.ndarray, specs: list, cos2: float) -> None:
        self._X, self._nodes, self._specs = X, nodes, specs
        theta_s = math.acos(math.sqrt(min(cos2, 1.0)))
        # a row is a candidate where its angle exceeds this at the screening configuration
        self._limit = theta_s - 2.0 * (self.SKIN + self._SLACK) - self._SLACK
        self._cos_skin = math.cos(self.SKIN)
        self._chords = None                 # the chords, made at the first screening
        self._memo = None
        self._at = None                     # (at, its entries at the chords' ends)

    def _made(self) -> tuple:
        """The chords, each once: its DOF indices in the gathered displacements (from one row
        holding it), its reference vector and per spec the chords of its rows (made when
        first screened: a block taken on a few rows for one evaluation never pays it)."""
        if self._chords is not None:
            return self._chords
        X, nodes = self._X, self._nodes
        n, m, d = X.shape
        key: dict = {}
        occ = []                            # (row, slot from, slot to) of each chord
        pairs = []
        for rows, at in self._specs:
            rows = np.asarray(rows, dtype=np.int64)
            ends = []
            for a, b in ((at[0], at[1]), (at[2], at[3])):
                idx = np.empty(len(rows), dtype=np.int64)
                na, nb = nodes[rows, a], nodes[rows, b]
                for i, (r, u, v) in enumerate(zip(rows.tolist(), na.tolist(), nb.tolist())):
                    k = (u, v) if u < v else (v, u)
                    c = key.get(k)
                    if c is None:
                        c = key[k] = len(occ)
                        occ.append((r, a, b))
                    idx[i] = c
                ends.append(idx)
            pairs.append(ends)
        occ = np.array(occ, dtype=np.int64).reshape(-1, 3)
        comp = np.arange(d)
        i0 = (occ[:, 0, None] * (m * d) + occ[:, 1, None] * d + comp).ravel()
        i1 = (occ[:, 0, None] * (m * d) + occ[:, 2, None] * d + comp).ravel()
        D = X[occ[:, 0], occ[:, 2]] - X[occ[:, 0], occ[:, 1]]
        self._chords = (i0, i1, D, pairs)
        return self._chords

    def candidates(self, block, x: np.ndarray) -> list | None:
        """Per spec a boolean mask over its rows: the rows of ``block`` that may be live at
        the gathered displacements ``x (n, m d)`` [m] (a superset of those whose chords'
        squared cosine is below the threshold); None where the screen does not apply (a
        block other than the one it was made for, such as one taken on a subset of its rows,
        or a chord of no length: the caller tests every row)."""
        if block.X is not self._X:
            return None
        i0, i1, D0, pairs = self._made()
        if not len(D0):
            return None
        flat = _translations(x, self._X).reshape(-1)
        return self._masks((flat[i1] - flat[i0]).reshape(D0.shape))

    def candidates_at(self, block, q: np.ndarray, at: np.ndarray) -> list | None:
        """:meth:`candidates` read straight from the configuration ``q`` (n_dof,), ``at (n,
        m d)`` the index of each of the block's gathered displacements in ``q`` (its
        gather, where it is a plain selection: ``x = q[at]``): the same masks from the same
        numbers, without gathering every row's nodes (what the System asks a screened block
        before it gathers anything: :meth:`fembody.system.System._internal`)."""
        if block.X is not self._X:
            return None
        i0, i1, D0, pairs = self._made()
        if not len(D0):
            return None
        memo = self._at
        if memo is None or memo[0] is not at:
            flat = _translations(at, self._X).reshape(-1)
            memo = self._at = (at, flat[i0], flat[i1])
        return self._masks((q[memo[2]] - q[memo[1]]).reshape(D0.shape))

    def _masks(self, dD: np.ndarray) -> list | None:
        """The masks of :meth:`candidates` from the chords' displacements ``dD (c, d)``."""
        i0, i1, D0, pairs = self._chords
        D = D0 + dD
        L = np.sqrt(np.einsum("ci,ci->c", D, D))
        if not np.all(L > 0.0):
            return None
        memo = self._memo
        if memo is not None:
            U, masks = memo
            if np.all(np.einsum("ci,ci->c", D, U) >= self._cos_skin * L):
                return masks
        U = D / L[:, None]
        masks = []
        d = D.shape[1]
        for a, b in pairs:
            ua, ub = U[a], U[b]
            dot = np.abs(np.einsum("ri,ri->r", ua, ub))
            if d == 3:
                cr = np.linalg.norm(np.cross(ua, ub), axis=1)
            else:
                cr = np.abs(ua[:, 0] * ub[:, 1] - ua[:, 1] * ub[:, 0])
            masks.append(np.arctan2(cr, dot) > self._limit)
        self._memo = (U, masks)
        return masks


def node_radii(contact, ids: np.ndarray) -> np.ndarray:
    """The section radius [m] at each node of ``ids`` (node ids, any shape) in ``contact``
    (a beam contact definition): a node of one of its A elements has A's radius, any other
    B's. What a planar friction measured at the surfaces ties its section vectors at
    (:class:`fembody.contact.beams.BeamContactBlock`, "At the surfaces")."""
    on_a = {n.id for e in contact.elements_a for n in e.nodes}
    ra = contact.radius_a
    rb = ra if contact.elements_b is None else contact.radius_b
    ids = np.asarray(ids, dtype=np.int64)
    return np.array([ra if int(v) in on_a else rb for v in ids.ravel()],
                    dtype=float).reshape(ids.shape)


def angle_dofs(node_dofs: np.ndarray, ids: np.ndarray, nd: int, frictional: bool
               ) -> np.ndarray:
    """The DOFs ``(n, m nd)`` of planar rows of nodes ``ids (n, m)``, followed by the
    nodes' angles ``(n, m (nd + 1))`` where the rows are ``frictional`` and every node has
    one (friction measured at the surfaces: :func:`node_radii`)."""
    n = len(ids)
    dofs = node_dofs[ids][:, :, :nd].reshape(n, -1)
    if frictional and node_dofs.shape[1] > nd:
        ang = node_dofs[ids][:, :, nd]
        if (ang >= 0).all():
            dofs = np.concatenate([dofs, ang.reshape(n, -1)], axis=1)
    return dofs
