"""Contact histories of a Result (``Result.contacts``): per contact row (a node contact, a pair
of beam elements, a sample point of a beam or a node against a surface) and per saved state,
the quantities every contact block reports (``report(state)``: ``gap`` [m], ``normal_force``
[N], ``point`` and ``normal`` vectors; friction adds ``tangential_force``, ``slip``, ``stick``
where it applies), with the rows' labels and families.

The friction keys need the anchors of the run at each saved state: the driver records them
with every state (:func:`friction_rows`, kept in ``Result.contact_friction``); a result without
them (a file saved before they were recorded) reports no friction keys.

Planar beam pairs are signed by the side of its element's chord each node belongs on, a run's
state (:class:`fembody.contact.beams.BeamContactBlock`'s **Sides**): the driver and the
static analysis record the sides with every state (``Result.contact_sides``) and the report
signs each pair's gap with them (:func:`recorded_sides`), so it gives the gap and force the
run held even for a node pressed past the chord's line (a ``max_penetration`` above the sum
of the radii). A result without them measures the pairs unsigned.

The rows are those of the System's contact blocks in the System's order (penalty node
contacts, beam contacts and surface contacts as they sit among its force blocks, then the
impulse node contacts); a quantity some block does not report is NaN in its rows.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModelError

if TYPE_CHECKING:
    from .results import Result


def contact_blocks(sys) -> list:
    """The blocks of the compiled System ``sys`` that report contacts (``report`` and
    ``report_labels``), each once, in the System's order."""
    out, seen = [], set()
    for b in list(sys.blocks) + list(getattr(sys, "contact_groups", ())):
        if hasattr(b, "report") and id(b) not in seen:
            seen.add(id(b))
            out.append(b)
    return out


FRICTION_KEYS = ("tangential_force", "slip", "stick")


def friction_rows(sys, q: np.ndarray, state) -> np.ndarray:
    """The friction quantities of the frictional contact blocks of ``sys`` at the
    configuration ``q``, with the anchors of the run's contact ``state`` (its
    :class:`fembody.contact.ContactState` after the accepted step that ended at ``q``): per
    row of the blocks (``sys.friction_blocks`` in order, each block's ``report`` rows) the
    :data:`FRICTION_KEYS` as columns, (rows, 3): tangential force [N], slip [m], stick (1.0 or
    0.0)."""
    out = []
    for b in sys.friction_blocks:
        side = state.side_of(b)
        slip = state.open_slip(b) if hasattr(state, "open_slip") else None
        if slip is not None:
            # a block proved idle at the step (ContactState.advance): every point open
            out.append(np.column_stack([np.zeros(len(b)), slip, np.zeros(len(b))]))
            continue
        x, h = sys.pose(b, q), state.friction[b.friction_slot]
        if _idle(b, x, h):
            out.append(np.column_stack([np.zeros(len(b)), h.slip, np.zeros(len(b))]))
            continue
        # the friction keys alone where the block gives them apart (a saved state's gaps,
        # points and normals are measured again from q when the Result is read)
        rep = getattr(b, "friction_report", None) or b.report
        r = rep(x, h) if side is None else rep(x, h, side)
        out.append(np.column_stack([np.asarray(r[k], dtype=float) for k in FRICTION_KEYS]))
    return np.concatenate(out) if out else np.zeros((0, 3))


def _idle(block, x: np.ndarray, h) -> bool:
    """Whether the block's friction report at ``x`` with the history ``h`` is known without
    evaluating it: no tangential force, no stick, the slip ``h.slip`` (one history point
    per row). That holds when ``h`` was made at ``x`` itself (``h.x == x``: by the step's
    ``advance``, or the block's open history at the reference state) and shows every
    point sliding and no friction force there. A point that touched (normal force N > 0)
    and stuck would not be sliding (``advance`` marks ``slipping | ~touching``); one that
    touched and slipped would carry mu N > 0 (or mu = 0: no force in any history); so every
    point is open or frictionless at ``x``, and the return mapping the report would run
    gives zero force and no stick whatever the anchors. (A bundle of beams in line contact:
    four of its five frictional blocks, the end, junction and share rows, are idle at every
    saved state, and their reports were about half the record's cost.)"""
    # (a spatial block's state is its poses, which its history keeps in its own form)
    return (len(h.slip) == len(block) and bool(h.sliding.all()) and not h.force.any()
            and isinstance(x, np.ndarray) and h.x.shape == x.shape and np.array_equal(h.x, x))


def side_record(sys, state) -> np.ndarray:
    """The sides of the planar beam pairs of ``sys`` held by the run's contact ``state``,
    one array over ``sys.side_blocks`` in order (what a run records with each saved state,
    ``Result.contact_sides``), each block's flattened (a block may hold several sides
    per row: the overlap shares' two)."""
    return (np.concatenate([np.ravel(s) for s in state.sides]) if state.sides
            else np.zeros(0))


def recorded_sides(result: "Result", sys, block, k: int) -> np.ndarray | None:
    """The run's sides of the planar beam-contact ``block`` at the saved state ``k`` of
    ``result`` (``Result.contact_sides``), or None: a block without sides, or a result
    that did not record them (then the block measures its pairs unsigned)."""
    slot = getattr(block, "side_slot", None)
    rec = result._array("contact_sides")
    if slot is None or rec is None:
        return None
    start = sum(np.size(b.side) for b in sys.side_blocks[:slot])
    return rec[k][start:start + np.size(block.side)].reshape(np.shape(block.side))


class ContactHistory:
    """Contact quantities per saved state and contact row (see the module docstring).

    Attributes
    ----------
    time : ndarray
        (n_states,) [s] (the load factor for statics).
    labels : list of str
        The rows' names (the pair, element and sample point, or node), one per row.
    families : list of str
        The family of each row's block ('beam surface contact', 'beam contact', ...).
    fields : dict
        Name -> array (n_states, n_rows) or (n_states, n_rows, d): ``gap`` [m],
        ``normal_force`` [N] (>= 0), ``point`` [m] (where the contact acts), ``normal`` (unit
        direction of the force on the row's first body or item), and any other quantity a block
        reports.
    """

    def __init__(self, time: np.ndarray, labels: list[str], families: list[str],
                 fields: dict[str, np.ndarray]) -> None:
        self.time, self.labels, self.families, self.fields = time, labels, families, fields

    def __repr__(self) -> str:
        return (f"ContactHistory({len(self.time)} states, {len(self.labels)} rows: "
                f"{', '.join(self.fields)})")

    def __len__(self) -> int:
        return len(self.labels)

    def __contains__(self, name: str) -> bool:
        return name in self.fields

    def __getitem__(self, name: str) -> np.ndarray:
        """The history of quantity ``name``: (n_states, n_rows[, d])."""
        if name not in self.fields:
            raise ModelError(f"Result.contacts: no quantity {name!r}; the contacts report "
                             f"{', '.join(self.fields)}")
        return self.fields[name]

    def rows(self, family: str | None = None, label: str | None = None) -> np.ndarray:
        """Indices of the rows of a ``family`` and/or whose label contains ``label``."""
        keep = [(family is None or f == family) and (label is None or label in s)
                for f, s in zip(self.families, self.labels)]
        return np.flatnonzero(keep)

    def to_dataframe(self, step: int | None = None):
        """A long table (pandas DataFrame): one row per saved state and contact row (of state
        ``step`` alone if given), columns ``time``, ``label``, ``family`` and the quantities
        (vectors split into ``name_x``, ``name_y`` (, ``name_z``))."""
        from .tables import _pandas
        pd = _pandas()
        n, m = len(self.time), len(self.labels)
        states = range(n) if step is None else [range(n)[step]]
        k = np.repeat(list(states), m)
        cols = {"time": self.time[k], "label": np.tile(self.labels, len(states)),
                "family": np.tile(self.families, len(states))}
        for name, arr in self.fields.items():
            a = arr[list(states)]
            if a.ndim == 2:
                cols[name] = a.reshape(-1)
            else:
                for j in range(a.shape[2]):
                    cols[f"{name}_{'xyz'[j]}"] = a[:, :, j].reshape(-1)
        return pd.DataFrame(cols)


def history(result: "Result", steps=None) -> ContactHistory:
    """The :class:`ContactHistory` of ``result``: every saved state, or those of the indices
    ``steps`` (e.g. the one state a picture shows)."""
    sys = result._need_system("contacts")
    blocks = contact_blocks(sys)
    idx = np.arange(len(result)) if steps is None else np.asarray(steps, dtype=np.int64)
    qs = [result.q[i] for i in idx]
    fric = result._array("contact_friction")
    labels, families, parts = [], [], []
    for b in blocks:
        rows = b.report_labels()
        labels += rows
        families += [b.family] * len(rows)
        # planar pairs signed by the sides the run held at each state (recorded_sides)
        sides = [recorded_sides(result, sys, b, i) for i in idx]
        parts.append([b.report(sys.pose(b, q)) if side is None else
                      b.report(sys.pose(b, q), None, side) for q, side in zip(qs, sides)])
        slot = getattr(b, "friction_slot", None)
        if fric is not None and slot is not None:
            # the run's friction values at each state (report() alone has no anchors)
            start = sum(len(x.report_labels()) for x in sys.friction_blocks[:slot])
            for rep, i in zip(parts[-1], idx):
                rows_i = fric[i][start:start + len(rows)]
                rep.update({k: rows_i[:, j] if k != "stick" else rows_i[:, j] > 0.5
                            for j, k in enumerate(FRICTION_KEYS)})
    n, m = len(idx), len(labels)
    names = list(dict.fromkeys(k for p in parts if p for k in p[0]))
    fields = {}
    for name in names:
        shape = next(np.shape(p[0][name])[1:] for p in parts if p and name in p[0])
        arr = np.full((n, m, *shape), np.nan)
        start = 0
        for p, b in zip(parts, blocks):
            size = len(b.report_labels())
            if p and name in p[0]:
                arr[:, start:start + size] = np.array([r[name] for r in p])
            start += size
        fields[name] = arr
    return ContactHistory(np.asarray(result.time, dtype=float)[idx], labels, families, fields)
