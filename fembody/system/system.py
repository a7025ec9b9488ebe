"""System: a Model compiled for solving.

Holds the DOF map, the element blocks and, fixed once, the sparse CSC pattern of every matrix on
the free DOFs together with each block's scatter positions into the CSC ``data`` array. All
matrices (M, K_T, C_T and their combinations) share the one pattern, so an iteration matrix
``S = K + c1 C + c2 M`` is an operation on ``data`` arrays and the symbolic factorisation is done
once.

Sign convention (paper 004): residual ``r = f_ext - f_int - f_inertia``; ``K_T = -dr/dq`` and
``C_T = -dr/dq'``. ``q`` holds node coordinates [m] and rotation increments [rad] for *all* DOFs;
fixed DOFs keep their reference values and the solvers work on ``q[free]``.
"""
from __future__ import annotations

import copy
from dataclasses import FrozenInstanceError, fields

from typing import TYPE_CHECKING

import numpy as np

from .. import space as spaces
from .assembly import build_blocks
from .dofs import DofMap, check_nodes, fingerprint, number_dofs
from ..errors import ModelError
from ..joints.compile import compile_joints
from .constraints import ConstraintSet, RedundantRows, joint_free_index, matvec
from .. import sparse_kernels
from .measures import Measures
from .outline import Outline
from ..joints.base import Joint
from ..model.bodies import detached
from ..elements.base import Labels
from ..patterns import CSC, AssemblyTarget, BlockEntries, Pattern
from ..turning import TurningLoads
from ..lazy import lazy_module
sp = lazy_module("scipy.sparse")     # imported when a SciPy matrix is asked for: fast start-up
_NO_VALUES = np.zeros(0)       # (an array argument a compiled pass does not read)

if TYPE_CHECKING:
    from ..model.model import Model, Node


class Scatter:
    """Where one block's element vectors and matrices land: ``dofs`` (n, k) global DOF
    indices; ``pos`` (n, k*k) the position of every entry in the CSC data array (int32
    below 2^31 entries), -1 where a DOF is fixed; ``msel`` the flat indices into (n, k, k)
    of the entries with both DOFs free and ``mpos`` (int64) their positions.

    ``msel`` and ``mpos`` given as None are read off ``pos`` at each use (the same arrays):
    a block of contact rows assembles by ``pos`` alone (``live_forces``), and a bundle's
    two maps of its entries would be hundreds of megabytes made at each compile."""

    __slots__ = ("dofs", "pos", "_msel", "_mpos")

    def __init__(self, dofs: np.ndarray, msel: np.ndarray | None, mpos: np.ndarray | None,
                 pos: np.ndarray) -> None:
        self.dofs, self.pos, self._msel, self._mpos = dofs, pos, msel, mpos

    @property
    def msel(self) -> np.ndarray:
        if self._msel is not None:
            return self._msel
        return np.flatnonzero(self.pos.reshape(-1) >= 0)

    @property
    def mpos(self) -> np.ndarray:
        if self._mpos is not None:
            return self._mpos
        flat = self.pos.reshape(-1)
        return flat[flat >= 0].astype(np.int64)


class Memo:
    """The caches a compiled System fills on first use: the external force, the nodal loads
    and the turning loads' values of the last time ``t`` asked for, pure functions of the compiled model and of the
    ``t`` they store, so no run can change what another reads (the constraint caches are the
    ConstraintSet's)."""

    __slots__ = ("fext", "loads", "turning")

    def __init__(self) -> None:
        self.fext: tuple[float, np.ndarray] | None = None      # (t, read-only f_ext)
        self.loads: tuple[float, np.ndarray] | None = None     # (t, read-only nodal loads)
        # (t, read-only values (n, width) of the turning loads, in their own frames)
        self.turning: tuple[float, np.ndarray] | None = None


class System:
    """A compiled model. Build it with ``model.compile()``; immutable once built (setting or
    deleting an attribute raises ``dataclasses.FrozenInstanceError``; the arrays it hands out
    that never change are read-only). What a run changes lives in the run (e.g.
    :class:`fembody.run.simulate.RunState`, :class:`fembody.constraints.RedundantRows`),
    so one System serves any number of runs.

    It keeps no reference to its Model: ``outline`` (:class:`fembody.system.outline.Outline`)
    is what it remembers of it (node coordinates and names, joint labels, sensors, the
    model's digest), so deleting the Model frees it and editing it changes nothing here.

    Its parts: ``dof_map`` (:class:`fembody.dofs.DofMap`: ``n_dof``, ``free``/``fixed``,
    ``node_dofs`` ``(n_nodes, 3)`` (global index of x, y, rz or -1), ``q0``, ``space`` ...,
    whose fields are also the System's attributes), ``element_blocks``
    (:class:`fembody.assembly.ElementBlocks`, likewise), the joint blocks and rows, the fixed
    sparse pattern (``nnz``, ``indices``, ``indptr``, ``scatter``) and the constant loads and
    masses.
    """

    _frozen = False

    def __init__(self, model: Model, space: str | None = None) -> None:
        # what is read of the model after compile, taken now: the System keeps no reference
        # to the Model (deleting it frees its nodes; editing it changes nothing here)
        self.outline = Outline.of(model)
        self.gravity = model.gravity.copy()
        self.gravity.flags.writeable = False
        self.dof_map: DofMap = number_dofs(model, space, self.gravity)
        self._adopt(self.dof_map)
        self.gather = self.space.gather
        self.element_blocks = build_blocks(self.dof_map, model)
        self._adopt(self.element_blocks)
        self._build_contacts(model)
        # the joint compilers read the half-built System and return their rows
        joints = compile_joints(self, model)
        self.joint_blocks, self.n_con = joints.joint_blocks, joints.n_con
        self.joint_rows, self.row_joint = joints.joint_rows, joints.row_joint
        self.rheonomic = joints.rheonomic
        _detach_items(self.joint_blocks, Joint)
        self.turning_loads = TurningLoads(self, model)
        held = check_nodes(self, model)
        self._build_pattern()
        # the diagonal of the free DOFs that must carry mass (not those a weld holds)
        self.mass_diag_pos = np.delete(self.diag_pos, held)
        self._build_constraints()
        self._build_constants(model)
        self.measures = Measures(self)
        self._memo = Memo()
        self._n_compiled_joint_blocks = len(self.joint_blocks)
        self._gather_at = self._gather_indices()
        self._screen_at = self._screen_indices()
        self._freeze()

    # ------------------------------------------------------------ immutability
    def _adopt(self, part) -> None:
        """A returned part's fields as attributes (the names callers read)."""
        for f in fields(part):
            setattr(self, f.name, getattr(part, f.name))

    def _build_constraints(self) -> None:
        """The constraint part (``constraint_set``) and B's pattern under the names callers
        read (``B_indices``, ``B_indptr``, ``B_nnz``, ``B_rows``, ``B_scatter``)."""
        self.constraint_set = cs = ConstraintSet(self)
        self.B_indices, self.B_indptr, self.B_nnz = cs.B_indices, cs.B_indptr, cs.B_nnz
        self.B_rows, self.B_scatter = cs.B_rows, cs.B_scatter

    def _freeze(self) -> None:
        for a in (self.row_joint, self.indices, self.indptr, self.diag_pos, self.mass_diag_pos,
                  self.M_const,
                  self.f_gravity, self.f_const, self.M_rest_pos, *self.joint_rows.values()):
            a.flags.writeable = False
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value) -> None:
        if self._frozen:
            raise FrozenInstanceError(
                f"cannot set System.{name}: a compiled System is immutable (one System serves "
                "many runs); keep what a run changes in the run's own state, or compile the "
                "model again")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self._frozen:
            raise FrozenInstanceError(f"cannot delete System.{name}: a compiled System is "
                                      "immutable")
        object.__delattr__(self, name)

    def __copy__(self) -> "System":
        """A shallow copy sharing every part (what :meth:`with_joint_blocks` and
        :meth:`with_contact_state` start from; a pickle, :meth:`__reduce__`, copies all)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __reduce__(self):
        """Pickled as its own parts (its outline, blocks, pattern and scatter maps; not a
        Model: it keeps none), without the caches a run fills. The maps keyed by the
        identities of blocks (``id(block)``) are re-keyed when loaded (:func:`_rekey`). A
        run's System keeps its :class:`fembody.contact.ContactState`. A System with a run's
        resting-contact rows (:meth:`with_joint_blocks`) is refused."""
        import pickle
        if len(self.joint_blocks) != self._n_compiled_joint_blocks:
            raise pickle.PicklingError(
                "a System with the resting-contact rows of a run cannot be pickled; pickle "
                "the compiled System (model.compile()) or its Model")
        base = self.__dict__.get("_base")
        if base is not None:
            # a run's System: the compiled one (whose parts refer to it) and the run's state
            return (_with_contact_state, (base, self.contact_state))
        state = {k: v for k, v in self.__dict__.items()
                 if k not in _DERIVED and k not in ("_memo", "_frozen")}
        # (state, not arguments: its parts refer back to the System, a cycle pickle keeps)
        return (_new_system, (), (state, _identities(state)))

    def __setstate__(self, pickled: tuple) -> None:
        """Load a pickled System (:meth:`__reduce__`): its state with every map keyed by
        ``id(obj)`` re-keyed from the pickled identities ((old id, object) pairs, the objects
        being the loaded ones), and the parts of :data:`_DERIVED` rebuilt as compile builds
        them."""
        state, identities = pickled
        _rekey(state, {old: id(obj) for old, obj in identities})
        self.__dict__.update(state, _memo=Memo())
        self._build_pattern()
        self._build_constraints()
        self._build_masses()
        self.measures = Measures(self)
        self._freeze()

    def _digest(self) -> str:
        """:meth:`fingerprint` and the compiled reference state, masses and loads (what a
        Model changed after it was compiled gives another value of)."""
        import hashlib                  # when used: its OpenSSL load is ~2 ms of start-up
        h = hashlib.sha256(self.fingerprint().encode())
        for a in (self.q0, self.v0, self.M_const, self.f_gravity, self.f_const, self.gravity):
            h.update(np.ascontiguousarray(a, dtype=float).tobytes())
        return h.hexdigest()

    def with_joint_blocks(self, joint_blocks: list, row_joint: np.ndarray,
                          scatter: dict) -> "System":
        """A new System equal to this one but for its constraints: ``joint_blocks`` (rows
        numbered in order), ``row_joint`` (n_con,) (the joint of each row, -1 for none) and
        the element ``scatter`` maps (with the new blocks' entries); e.g. the impact handler's
        resting-contact rows. This System is unchanged; the new one shares its parts."""
        new = copy.copy(self)
        d = new.__dict__
        d.update(joint_blocks=joint_blocks, n_con=len(row_joint), row_joint=row_joint,
                 scatter=scatter, _memo=Memo(), _frozen=False)
        new._build_constraints()
        new.measures = Measures(new)
        new._freeze()
        return new

    def with_contact_state(self, state) -> "System":
        """A new System equal to this one whose penalty contacts take their approach speeds
        from ``state`` (a run's :class:`fembody.contact.ContactState`, which the run changes
        as it goes; this System keeps none, its penalty blocks take the floor speed). The run
        steps the new System; the new one shares this one's parts."""
        new = copy.copy(self)
        # (_base: the compiled System, which a pickle of the new one carries, see __reduce__)
        new.__dict__.update(contact_state=state, _memo=Memo(), _frozen=False,
                            _base=self.__dict__.get("_base", self))
        new.measures = Measures(new)
        new._freeze()
        return new

    # ------------------------------------------------------------ compile
    def _build_contacts(self, model: Model) -> None:
        """Penalty contacts become a force block; impulse contacts are watched by the impact
        handler and only reserve their entries in the matrix pattern (the geometric stiffness of
        a resting contact's constraint row lands there). ``contact_state``: None here (a
        run's System has its own, :meth:`with_contact_state`)."""
        self.contact_state = None
        # (the watch names element pairs that touch but were not candidates at compile time)
        self.beam_contact_blocks, self.beam_contact_watch = [], None
        if getattr(model, "beam_contacts", None):
            from ..contact.beams import build_beam_blocks
            self.beam_contact_blocks, self.beam_contact_watch = build_beam_blocks(
                model, self.node_dofs)
            self.blocks += self.beam_contact_blocks
            self.stiffness_blocks += self.beam_contact_blocks
        self.surface_contact_blocks = []
        if getattr(model, "surface_contacts", None):
            from ..contact.surfaces import build_surface_blocks
            self.surface_contact_blocks = build_surface_blocks(model, self.node_dofs)
            self.blocks += self.surface_contact_blocks
            self.stiffness_blocks += self.surface_contact_blocks
        # each beam and surface contact's penalty on its nodes, whose frequency a dynamic run
        # checks against its step (fembody.contact.frequency)
        self.contact_springs = ()
        if self.beam_contact_blocks or self.surface_contact_blocks:
            from ..contact.frequency import springs_of
            self.contact_springs = springs_of(model)
        # the contact blocks' labels name the Model's contacts and bodies: formatted now
        for b in self.beam_contact_blocks + self.surface_contact_blocks:
            if isinstance(getattr(b, "_labels", None), Labels):
                b._labels = b._labels.stored()
        # blocks with Coulomb friction: their anchors are a run's (ContactState), by slot
        self.friction_blocks = [b for b in self.beam_contact_blocks + self.surface_contact_blocks
                                if getattr(b, "frictional", False)]
        for i, b in enumerate(self.friction_blocks):
            b.friction_slot = i
        # planar beam pairs: the side of its element each node belongs on is a run's too
        self.side_blocks = [b for b in self.beam_contact_blocks if getattr(b, "sided", False)]
        for i, b in enumerate(self.side_blocks):
            b.side_slot = i
        if not model.contacts:                  # (the contact module loads when first used)
            self.contact_groups, self.penalty_blocks = [], []
            return
        from ..contact import build_groups
        penalty, self.contact_groups = build_groups(model, self.node_dofs)
        self.blocks += penalty
        self.stiffness_blocks += penalty
        self.penalty_blocks = penalty
        from ..contact.nodes import Contact
        _detach_items(self.contact_groups + penalty, Contact)

    def _build_pattern(self) -> None:
        nf = self.n_free
        keys = [np.arange(nf, dtype=np.int64) * (nf + 1)]   # the diagonal is always present
        runs, local = [], []
        joints = [b for b in self.joint_blocks if not b.linear]
        extra = [self.turning_loads] if self.turning_loads else []
        for b in self.blocks + joints + self.contact_groups + extra:
            fi = (joint_free_index(self.free_index, b) if b in joints
                  else self.free_index[b.dofs])
            # entry (e, i, j) of each element matrix: column fi[e, j], row fi[e, i]
            entries = BlockEntries(fi, nf)
            keys += entries.keys()
            runs += entries.runs()
            local.append((b, entries))
        pat = Pattern(nf, nf, keys, runs)
        self.indices, self.indptr, self.nnz = pat.indices, pat.indptr, pat.nnz
        self.diag_pos = pat.positions(np.arange(nf, dtype=np.int64) * (nf + 1))
        self.scatter = {}
        small = self.nnz < 2**31 - 2    # int32 maps: half the bytes of a tangent pass
        for b, entries in local:
            pos = entries.positions(pat, np.int32 if small else np.int64)
            if hasattr(b, "live_forces"):
                # contact rows: assembled by pos alone (Scatter: msel and mpos on demand)
                msel = mpos = None
            elif not len(entries.partial):
                # every entry free: the int64 map made from pos as is
                msel, mpos = np.arange(pos.size), pos.reshape(-1).astype(np.int64)
            else:
                flat = pos.reshape(-1)
                msel = np.flatnonzero(flat >= 0)
                mpos = flat[msel].astype(np.int64)
            self.scatter[id(b)] = Scatter(b.dofs, msel, mpos, pos)

    def _build_constants(self, model: Model) -> None:
        self._build_masses()
        self._build_loads(model)

    def _build_masses(self) -> None:
        """The constant mass matrix and weights (from the mass blocks and the pattern: what
        a loaded pickle rebuilds, see :data:`_DERIVED`)."""
        self.M_const = np.zeros(self.nnz)
        self.f_gravity = np.zeros(self.n_dof)
        self._Me = {}
        for b in self.mass_blocks:
            Me = self._Me[id(b)] = b.mass()
            self.add_matrix(self.M_const, b, Me)
            ge = self.gvec[b.dofs]
            self.f_gravity += np.bincount(b.dofs.ravel(), np.einsum("nij,nj->ni", Me, ge).ravel(),
                                          minlength=self.n_dof)
        # the product M a runs on M's own non-zeros (beam masses fill a third of K's pattern)
        # (fembody's own CSC: a small model's simulation never imports scipy.sparse)
        self.M_csc = CSC(self.M_const.copy(), self.indices, self.indptr,
                          (self.n_free, self.n_free))
        self.M_csc.eliminate_zeros()
        # blocks whose compiled pass adds their masses' M a and bp M along with their forces
        # (internal_inertial_forces); the rest of the mass matrix, on its own non-zeros
        stiff = {id(b) for b in self.stiffness_blocks}
        self.fused_mass = {id(b) for b in self.mass_blocks if self.space.additive
                           and id(b) in stiff and getattr(b, "fuses_mass", False)}
        rest = np.zeros(self.nnz)
        for b in self.mass_blocks:
            if id(b) not in self.fused_mass:
                self.add_matrix(rest, b, self._Me[id(b)])
        self.M_rest = CSC(rest, self.indices, self.indptr, (self.n_free, self.n_free))
        self.M_rest.eliminate_zeros()
        self.M_rest_pos = np.flatnonzero(rest)
        # masses whose weight depends on the configuration (offset rigid bodies under
        # gravity): decided once, read at every Newton iteration
        self.weighed_mass = bool(self.varying_mass) and bool(np.any(self.gravity != 0.0))
        # every varying mass adds its masses, inertial and gravity forces in one compiled pass
        # (dynamic_forces): decided once
        self.one_pass_dynamics = bool(self.varying_mass) and all(
            hasattr(b, "dynamics_into") for b in self.varying_mass)

    def _build_loads(self, model: Model) -> None:
        """The constant nodal loads and the time-dependent ones (detached from the Model's
        nodes, :meth:`fembody.model.loads.NodalLoad.detached`)."""
        self.f_const = np.zeros(self.n_dof)
        self.variable_loads = []
        d = self.dim
        for load in model.loads:
            if self.turning_loads.takes(load, d):
                continue
            dofs = self.node_dofs[load.node.id, :d] if load.kind == "force" else \
                self.node_dofs[load.node.id, d:]
            if load.is_constant:
                self.f_const[dofs] += load.evaluate(0.0)
            else:
                self.variable_loads.append((dofs, load.detached()))


    # ------------------------------------------------------------ assembly
    def add_matrix(self, data: np.ndarray, block, Ke: np.ndarray, scale: float = 1.0) -> None:
        """Add ``scale`` times the block's element matrices ``Ke`` into the CSC data ``data``
        of the global pattern (the block's scatter map)."""
        s = self.scatter[id(block)]
        flat = Ke.reshape(-1)
        if flat.dtype == np.float64 and data.dtype == np.float64:
            sparse_kernels.scatter_add(data, s.mpos, flat, s.msel, scale)
            return
        vals = flat[s.msel]
        data += np.bincount(s.mpos, vals if scale == 1.0 else scale * vals, minlength=self.nnz)

    def add_vector_rows(self, f: np.ndarray, block, rows: np.ndarray, fe: np.ndarray) -> None:
        """:meth:`add_vector` of the element vectors ``fe (n, k)`` of the block's ``rows (m,)``
        alone: the contract of a block's ``live_forces`` is that its forces are exact zeros
        off the live rows it returns (tests/contact/test_live_pairs.py checks every such
        block), so the idle rows add nothing but the cost of their scatter."""
        if len(rows):
            f += np.bincount(block.dofs[rows].ravel(), fe[rows].ravel(), minlength=self.n_dof)

    def add_matrix_rows(self, data: np.ndarray, block, rows: np.ndarray,
                        Ke: np.ndarray) -> None:
        """:meth:`add_matrix` of the element matrices ``Ke (m, k, k)`` of the block's
        ``rows (m,)`` alone (the others zero): the same sums in the same order."""
        if not len(rows):
            return
        pos = self.scatter[id(block)].pos
        # the live rows' entries straight into the data by their positions, in the order
        # below (the same sums, bit for bit: tests/contact/test_live_pairs.py)
        from ..contact.rows import add_live_rows
        if add_live_rows(data, pos, rows, Ke):
            return
        p = pos[rows].reshape(-1)
        sel = np.flatnonzero(p >= 0)
        sparse_kernels.scatter_add(data, p[sel].astype(np.int64), np.ascontiguousarray(
            Ke, dtype=np.float64).reshape(-1), sel.astype(np.int64), 1.0)

    def _assemble(self, block, q: np.ndarray, f: np.ndarray, K: np.ndarray | None,
                  inertia: tuple | None = None, pos: np.ndarray | None = None) -> bool:
        """A block's compiled fast path (forces and stiffness straight into the global arrays,
        or by ``pos`` into an AssemblyTarget's); additive spaces hand it ``q`` itself, others
        the gathered poses. ``inertia``: see :meth:`internal_inertial_forces`."""
        pos = self.scatter[id(block)].pos if pos is None else pos
        if inertia is not None:
            return block.assemble(q, f, K, pos, inertia=inertia)
        if getattr(block, "spatial", False):
            # (spatial beams: their kernels read node poses, not gathered coordinates)
            return block.assemble(self.pose(block, q), f, K, pos)
        if self.space.additive:
            return block.assemble(q, f, K, pos)
        x = self.gather(q, block.dofs)
        return block.assemble(x.ravel(), f, K, pos,
                              np.arange(x.size, dtype=np.int64).reshape(x.shape))

    def add_vector(self, f: np.ndarray, block, fe: np.ndarray) -> None:
        """Add the block's element vectors ``fe`` into ``f`` (all DOFs)."""
        f += np.bincount(block.dofs.ravel(), fe.ravel(), minlength=self.n_dof)

    def csc(self, data: np.ndarray) -> sp.csc_matrix:
        """The free-DOF matrix with values ``data`` on the fixed pattern."""
        return sp.csc_matrix((data, self.indices, self.indptr), shape=(self.n_free, self.n_free))

    def filled_entries(self) -> np.ndarray:
        """Which stored entries of the free-DOF pattern a tangent or iteration matrix of a
        deforming model fills (bool, ``nnz``): the diagonal and every entry of an element,
        joint or load block, many of them zeros at the reference state (the rotational
        couplings of a straight spatial beam); False only where contact blocks alone write
        (candidate pairs, zero while apart). A solver that analyses these entries with the
        matrix's other nonzeros once keeps that analysis while the model deforms
        (:mod:`fembody.linalg.near_symmetric`, rule 1). A new array at each call."""
        mask = np.zeros(self.nnz, dtype=bool)
        mask[self.diag_pos] = True
        contact = {id(b) for b in (self.contact_groups + self.penalty_blocks
                                   + getattr(self, "beam_contact_blocks", [])
                                   + getattr(self, "surface_contact_blocks", []))}
        for key, sc in self.scatter.items():
            if key not in contact:
                mask[sc.mpos] = True
        return mask

    def inertia_entries(self) -> np.ndarray:
        """Which stored entries of the free-DOF pattern the mass and damping parts of an
        iteration matrix (``M`` and ``C`` of :meth:`internal_forces`,
        :meth:`inertial_forces_free` and :meth:`dynamic_forces`) can hold (bool, ``nnz``):
        the diagonal and every block's entries but those of the blocks whose rows
        :meth:`internal_forces` adds by their ``live_forces`` (beam contact rows: stiffness
        and forces alone, no damping, no mass). Elsewhere ``M`` and ``C`` are zero, so ``K +
        gp C + bp M`` there is ``K`` (the bundle of beams in contact: about seven in eight
        entries of the stored pattern are contact candidates). A new array at each call."""
        mask = np.zeros(self.nnz, dtype=bool)
        mask[self.diag_pos] = True
        stiffness_only = {id(b) for b in self.blocks + self.contact_groups
                          if hasattr(b, "live_forces")}
        for key, sc in self.scatter.items():
            if key not in stiffness_only:
                mask[sc.mpos] = True
        return mask

    def internal_forces(self, q: np.ndarray, v: np.ndarray | None = None, tangent: bool = True,
                        out: np.ndarray | None = None):
        """Internal (elastic + damping) force ``f_int`` (n_dof,) [N, N m]; with ``tangent`` also
        the CSC data of ``K = df_int/dq`` and ``C = df_int/dq'`` (C is None when undamped).
        Damping: strain-rate damping of elements and springs, plus Rayleigh ``alpha M q'``.
        ``out``: a float64 array of ``nnz`` entries to hold K (overwritten; default: a new
        one). Why: a solver's Newton loop hands back a buffer it no longer holds, since a
        fresh K of 7 MB (1e5 DOFs) is paid in page faults every time; or an AssemblyTarget."""
        return self._internal(q, v, tangent, None, out)

    def internal_inertial_forces(self, q: np.ndarray, v: np.ndarray | None, a: np.ndarray,
                                 bp: float, tangent: bool = True,
                                 out: np.ndarray | None = None):
        """:meth:`internal_forces` and the constant mass matrix's part of an implicit
        integrator's Newton iteration in one pass: ``(f_int, M a, K + bp M, C)``, ``M a``
        (n_dof,) exact on the free DOFs [N, N m], ``bp`` [1/s^2] (e.g. 1 / (beta h^2)). The
        blocks of ``fused_mass`` add their element masses inside their compiled loop; the
        others' masses (``M_rest``) are added on their own non-zeros."""
        fin = np.zeros(self.n_dof)
        f, K, C = self._internal(q, v, tangent, (a, bp, fin), out)
        if self.M_rest_pos.size:
            free = self.free
            fin[free] += matvec(self.n_free, self.M_rest, a[free])
            if tangent:
                K[self.M_rest_pos] += bp * self.M_rest.data
        return f, fin, K, C

    def _internal(self, q, v, tangent, inertia, out=None):
        f = np.zeros(self.n_dof)
        K = Kd = tpos = None        # K, its values, the map to them (an envelope_target's)
        if tangent and isinstance(out, AssemblyTarget):
            if out.block != id(self.stiffness_blocks[0]):
                raise ValueError("out: an AssemblyTarget built for another System")
            K, Kd, tpos = out, out.values, out.pos
            Kd.fill(0.0)
        elif tangent:
            if out is not None and (out.shape != (self.nnz,) or out.dtype != np.float64
                                    or not out.flags.c_contiguous):
                raise ValueError(f"out: a C-contiguous float64 array of {self.nnz} entries, "
                                 f"got {out.dtype} {out.shape}")
            K = Kd = np.zeros(self.nnz) if out is None else out
            if out is not None:
                K.fill(0.0)
        C = None
        fused = self.fused_mass if inertia is not None else ()
        run_contacts = self.contact_state
        for b in self.stiffness_blocks:
            if id(b) in fused:
                if not self._assemble(b, q, f, Kd, inertia, tpos):
                    raise RuntimeError(f"{b.family} block: its compiled pass refused the masses "
                                       "it was chosen to add (fused_mass)")
                continue
            if hasattr(b, "assemble") and self._assemble(b, q, f, Kd, None, tpos):
                continue
            idle = getattr(b, "idle_at", None)
            if idle is not None:
                # a block of rows screened from q itself (chord angles: junction and share
                # rows along a bundle): where its screen proves every row idle it adds
                # exact zeros, so nothing is gathered, evaluated or scattered
                at = self.screen_index(b)
                if at is not None and idle(q, at):
                    continue
            x = self.pose(b, q)
            ve = v[b.dofs] if (v is not None and b.Dd is not None) else None
            if hasattr(b, "live_forces") and (Kd is K or not tangent):
                # a block of mostly idle rows (beam junctions): the forces and stiffness of
                # its live rows alone, not a zero vector and matrix per idle row to scatter
                # (with or without the tangent: a closing Newton increment evaluates the
                # residual alone, fembody.dynamics.newton)
                slot = getattr(b, "friction_slot", None)
                hist = None if run_contacts is None or slot is None else run_contacts.friction[slot]
                if run_contacts is not None and getattr(b, "side_slot", None) is not None:
                    # a planar beam block: the run's sides too
                    fe, rows, Ke = b.live_forces(x, tangent, hist,
                                                 run_contacts.sides[b.side_slot])
                else:
                    fe, rows, Ke = b.live_forces(x, tangent, hist)
                self.add_vector_rows(f, b, rows, fe)
                if tangent:
                    self.add_matrix_rows(K, b, rows, Ke)
                continue
            if run_contacts is not None and b.family == "contact":   # a penalty block
                fe, Ke, Ce = b.forces(x, ve, tangent, run_contacts.v_minus[b.slot])
            elif run_contacts is not None and getattr(b, "side_slot", None) is not None:
                # a planar beam block: the run's sides (and anchors, if frictional)
                slot = b.friction_slot
                fe, Ke, Ce = b.forces(x, ve, tangent, None if slot is None else
                                      run_contacts.friction[slot],
                                      run_contacts.sides[b.side_slot])
            elif getattr(b, "friction_slot", None) is not None:     # a frictional contact
                fe, Ke, Ce = b.forces(x, ve, tangent, None if run_contacts is None else
                                      run_contacts.friction[b.friction_slot])
            else:
                fe, Ke, Ce = b.forces(x, ve, tangent)
            self.add_vector(f, b, fe)
            if tangent:
                self.add_matrix(K, b, Ke)
                if Ce is not None:
                    if C is None:
                        C = np.zeros(self.nnz)
                    self.add_matrix(C, b, Ce)
        alpha = self.rayleigh[0]
        if alpha > 0.0 and v is not None:
            for b in self.mass_blocks:
                self.add_vector(f, b, alpha * np.einsum("nij,nj->ni", self._Me[id(b)], v[b.dofs]))
            if tangent:
                C = alpha * self.M_const if C is None else C + alpha * self.M_const
            for b in self.varying_mass:
                # alpha M(q) v: the inertial kernel with a = v and no angular rate
                x, ve = self.pose(b, q), v[b.dofs]
                fe, Ke, _ = b.inertial(x, np.zeros_like(ve), ve, tangent)
                self.add_vector(f, b, alpha * fe)
                if tangent:
                    self.add_matrix(K, b, Ke, scale=alpha)
                    self.add_matrix(C, b, b.mass_at(x), scale=alpha)
        return f, K, C

    def nodal_loads(self, t: float) -> np.ndarray:
        """Applied nodal forces and torques at time ``t`` (n_dof,) (cached per ``t``)."""
        if not self.variable_loads:
            return self.f_const
        cached = self._memo.loads
        if cached is not None and cached[0] == t:
            return cached[1]
        f = self.f_const.copy()
        for dofs, load in self.variable_loads:
            f[dofs] += load.evaluate(t)
        f.flags.writeable = False       # shared by the calls at this t
        self._memo.loads = (t, f)
        return f

    def turning_values(self, t: float) -> np.ndarray:
        """The values at time ``t`` [s] of the loads that turn with the configuration
        (``turning_loads``: follower forces, spatial global moments), each in its own frame
        (n, width): what each load's function of ``t`` returns, in the order of
        ``turning_loads.loads``.

        Evaluated once per ``t`` (the last ``t`` asked for is cached, as for
        :meth:`nodal_loads`): a step's Newton iterations and its energy bookkeeping share one
        call of each user function. The array is read-only (shared by the calls at this
        ``t``); the cache is the System's own, a pure function of the compiled model and
        ``t``, so runs sharing the System read the same values.
        """
        cached = self._memo.turning
        if cached is not None and cached[0] == t:
            return cached[1]
        val = self.turning_loads.evaluate(t)
        val.flags.writeable = False
        self._memo.turning = (t, val)
        return val

    def external_forces(self, q: np.ndarray, t: float = 0.0, tangent: bool = True):
        """External force ``f_ext`` (nodal loads + gravity) and, with ``tangent``, the CSC data of
        the load stiffness ``-df_ext/dq`` (non-zero only for offset rigid bodies under gravity),
        or None. Without turning loads and offset masses under gravity the force is returned
        read-only and, for constant loads, the same array at every call (a new sum per Newton
        iteration is a measurable cost at 1e5 DOFs)."""
        cached = self._memo.fext
        if cached is not None and (not self.variable_loads or cached[0] == t):
            return cached[1], None
        f = self.nodal_loads(t) + self.f_gravity        # (a fresh array: added to below)
        Kl = None
        weighed = self.weighed_mass
        if not self.turning_loads and not weighed:
            f.flags.writeable = False
            self._memo.fext = (t, f)
            return f, None
        if self.turning_loads:
            Kl = self.turning_loads.add(q, t, f, tangent)        # -df_ext/dq
        if weighed:
            for b in self.varying_mass:
                fe, dK = b.gravity(self.pose(b, q), self.gravity, tangent)
                self.add_vector(f, b, fe)
                if tangent:
                    Kl = np.zeros(self.nnz) if Kl is None else Kl
                    self.add_matrix(Kl, b, dK, scale=-1.0)
        return f, Kl

    def mass_data(self, q: np.ndarray | None = None) -> np.ndarray:
        """CSC data of the mass matrix at ``q`` (constant unless offset rigid bodies exist)."""
        return self._mass_data(self.q0 if q is None else q, None)

    def _mass_data(self, q: np.ndarray, poses: dict | None) -> np.ndarray:
        """:meth:`mass_data`; ``poses``: a dict that receives the pose of each varying block
        (by ``id``), so that the inertial pass that follows reads them instead of gathering
        them again."""
        if not self.varying_mass:
            return self.M_const
        M = self.M_const.copy()
        for b in self.varying_mass:
            x = self.pose(b, q)
            if poses is not None:
                poses[id(b)] = x
            self.add_matrix(M, b, b.mass_at(x))
        return M

    def lacks_mass(self, M: np.ndarray) -> bool:
        """Whether a free DOF that needs mass has none in the mass matrix data ``M`` (CSC
        data, as :meth:`mass_data`): the index-1 and velocity-projection solves are then
        singular. DOFs a weld holds to a body (a node from
        :func:`fembody.reduced.attach_node`) need none: the joint's rows fix their motion."""
        pos = getattr(self, "mass_diag_pos", None)      # (a System pickled before it existed)
        return bool(np.any(M[self.diag_pos if pos is None else pos] <= 0.0))

    def mass_matrix(self, q: np.ndarray | None = None) -> sp.csc_matrix:
        """Mass matrix on the free DOFs [kg, kg m, kg m^2]."""
        return self.csc(self.mass_data(q))

    def stiffness_matrix(self, q: np.ndarray | None = None, t: float = 0.0,
                         load_factor: float = 1.0) -> sp.csc_matrix:
        """Static tangent stiffness ``K_T = dF_int/dq - load_factor * dF_ext/dq`` at ``q``."""
        q = self.q0 if q is None else q
        _, K, _ = self.internal_forces(q)
        _, Kl = self.external_forces(q, t)
        if Kl is not None:
            K = K + load_factor * Kl
        return self.csc(K)

    def inertial_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, tangent: bool = True):
        """Inertial force ``M(q) a + h(q, v)`` (n_dof,, including the rows of fixed DOFs, which
        enter the reactions) and, with ``tangent``, the CSC data of M and of the derivatives
        ``d/dq`` and ``d/dv`` (both None when M is constant)."""
        f = np.zeros(self.n_dof)
        for b in self.mass_blocks:
            self.add_vector(f, b, np.einsum("nij,nj->ni", self._Me[id(b)], a[b.dofs]))
        return self._nonlinear_inertia(f, q, v, a, tangent)

    def mass_product(self, a_free: np.ndarray) -> np.ndarray:
        """``M a`` on the free DOFs for the constant mass matrix."""
        return matvec(self.n_free, self.M_csc, a_free)

    def inertial_forces_free(self, q: np.ndarray, v: np.ndarray, a: np.ndarray,
                             tangent: bool = True):
        """As :meth:`inertial_forces` but exact on the free DOFs only (the hot path: one sparse
        product for the constant mass); the entries of fixed DOFs are not meaningful, and
        the stiffness part ``d/dq`` is None (not zeros) where no block has one (the beams'
        gyroscopic moments in their material form)."""
        f = np.zeros(self.n_dof)
        if self.M_csc.data.size:         # (none: every mass moves with the configuration)
            f[self.free] = matvec(self.n_free, self.M_csc, a[self.free])
        return self._nonlinear_inertia(f, q, v, a, tangent, lazy=True)

    def dynamic_forces(self, q: np.ndarray, v: np.ndarray, a: np.ndarray, t: float,
                       tangent: bool = True) -> tuple:
        """:meth:`external_forces` and :meth:`inertial_forces_free` at one state, ``(f_ext, K_l,
        f_in, M, K_in, C_in)``, the same numbers: the blocks of varying mass (offset rigid
        bodies) add their masses, inertial forces, weights and tangents in one compiled pass
        each (``dynamics_into``, :attr:`one_pass_dynamics`), the implicit integrators' hot
        path; otherwise the two calls."""
        if not self.one_pass_dynamics:
            fext, Kl = self.external_forces(q, t, tangent)
            return (fext, Kl, *self.inertial_forces_free(q, v, a, tangent))
        f = np.zeros(self.n_dof)
        if self.M_csc.data.size:
            f[self.free] = matvec(self.n_free, self.M_csc, a[self.free])
        M = self.M_const.copy()
        Kin = Cin = None
        if tangent:
            Kin, Cin = np.zeros(self.nnz), np.zeros(self.nnz)
        fext = self.nodal_loads(t) + self.f_gravity
        Kl = self.turning_loads.add(q, t, fext, tangent) if self.turning_loads else None
        weighed = self.weighed_mass
        if weighed and tangent and Kl is None:
            Kl = np.zeros(self.nnz)
        tmp = np.empty(self.n_dof)
        none = _NO_VALUES
        for b in self.nonlinear_inertia:
            if hasattr(b, "dynamics_into") and getattr(b, "mass_varies", True):
                b.dynamics_into(self.pose(b, q), v, a, self.gravity, tangent, weighed,
                                self.scatter[id(b)], M, f, none if Kin is None else Kin,
                                none if Cin is None else Cin, fext,
                                none if Kl is None else Kl, tmp)
                continue
            d = b.dofs
            x = self.pose(b, q) if getattr(b, "reads_pose", True) else None
            fe, Ke, Ce = b.inertial(x, v[d], a[d], tangent)
            self.add_vector(f, b, fe)
            if tangent:
                if Ke is not None:
                    self.add_matrix(Kin, b, Ke)
                self.add_matrix(Cin, b, Ce)
        return fext, Kl, f, M, Kin, Cin

    def velocity_forces(self, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`inertial_forces` at zero acceleration, ``(h(q, v) [N, N m], M data)``,
        without the constant masses' product with zeros."""
        return self._nonlinear_inertia(np.zeros(self.n_dof), q, v, np.zeros(self.n_dof),
                                       False)[:2]

    def _nonlinear_inertia(self, f, q, v, a, tangent, lazy: bool = False):
        """``(f + h(q, v) [+ M(q) a of varying masses], M, K_in, C_in)``; ``lazy``: K_in None
        unless a block has a stiffness part (else zeros: the public calls' contract), so
        that a Newton iteration neither makes nor adds a matrix of zeros."""
        M, Kin, Cin = self.M_const, None, None
        if self.nonlinear_inertia:
            poses: dict | None = {} if self.varying_mass else None
            M = self._mass_data(q, poses)
            if tangent:
                Kin, Cin = None if lazy else np.zeros(self.nnz), np.zeros(self.nnz)
            for b in self.nonlinear_inertia:
                # (spatial beams' gyroscopic moments: read v, add into f and C_in in one pass)
                into = getattr(b, "inertial_into", None)
                if into is not None and into(v, tangent, self.scatter[id(b)].pos, f, Cin):
                    continue
                d = b.dofs
                x = None
                if getattr(b, "reads_pose", True):
                    x = poses.get(id(b)) if poses else None
                    x = self.pose(b, q) if x is None else x
                fe, Ke, Ce = b.inertial(x, v[d], a[d], tangent)
                self.add_vector(f, b, fe)
                if tangent:
                    if Ke is not None:
                        if Kin is None:
                            Kin = np.zeros(self.nnz)
                        self.add_matrix(Kin, b, Ke)
                    self.add_matrix(Cin, b, Ce)
        return f, M, Kin, Cin

    # ------------------------------------------------------------ state
    def pose(self, block, q: np.ndarray):
        """What a block's kernels read at ``q``: spatial blocks the positions and rotation
        matrices of their ``nodes`` (``space.poses``; a block with ``coordinates``, DOFs of no
        node such as modal amplitudes, gets their values as a third entry), the others the
        coordinates of their ``dofs`` (``space.gather``)."""
        if getattr(block, "spatial", False):
            extra = getattr(block, "coordinates", None)
            if extra is None:
                return self.space.poses(q, block.nodes)
            return (*self.space.poses(q, block.nodes), self.space.gather(q, extra))
        at = self._gather_at.get(id(block))
        if at is not None and at[0] is block:
            return q[at[1]] if q.ndim == 1 else q[..., at[1]]
        return self.gather(q, block.dofs)

    def gather_index(self, block) -> np.ndarray | None:
        """The index array ``(n, k)`` into ``q`` by which :meth:`pose` reads ``block``'s
        coordinates (``q[index]``: a block without rotation DOFs, on a space whose gather is
        a plain selection of ``q``), or None for a block read otherwise (spatial blocks,
        rotation DOFs) or not of this System. Read-only (the System's own array)."""
        at = self._gather_at.get(id(block))
        return at[1] if at is not None and at[0] is block else None

    def screen_index(self, block) -> np.ndarray | None:
        """The index array ``(n, k)`` into ``q`` of ``block``'s gathered displacements (the
        translations' columns, which its ``idle_at`` screen reads): :meth:`gather_index`
        where the block has one; for a screened block that also reads its nodes' rotations
        after the displacements (friction measured at the surfaces), the displacements'
        columns alone; else None. Read-only (the System's own array)."""
        at = self.gather_index(block)
        if at is not None:
            return at
        at = self._screen_at.get(id(block))
        return at[1] if at is not None and at[0] is block else None

    def _screen_indices(self) -> dict:
        """Per screened block (``idle_at``) without a :meth:`gather_index` whose DOFs are its
        nodes' displacements ``(n, m d)`` followed by rotations, by ``id``: (the block, the
        displacements' index array ``(n, m d)`` into ``q``): a junction or share block at
        the surfaces is screened from q as it was on the axes (its screen reads the
        displacements alone), not gathered whole at every evaluation to be found idle."""
        out = {}
        probe = np.arange(len(self.q0), dtype=float)
        for b in self.blocks:
            dofs, X = getattr(b, "dofs", None), getattr(b, "X", None)
            if (id(b) in self._gather_at or getattr(b, "idle_at", None) is None
                    or getattr(b, "spatial", False) or not isinstance(dofs, np.ndarray)
                    or dofs.ndim != 2 or dofs.dtype.kind not in "iu"
                    or not isinstance(X, np.ndarray) or X.ndim != 3 or len(X) != len(dofs)):
                continue
            md = X[0].size
            if dofs.shape[1] <= md:
                continue
            tr = np.ascontiguousarray(dofs[:, :md])
            if self.space.rotation[tr].any() or not self.space.rotation[dofs[:, md:]].all():
                continue
            idx = self._plain_index(probe, tr)
            if idx is not None:
                out[id(b)] = (b, idx)
        return out

    def _plain_index(self, probe: np.ndarray, dofs: np.ndarray) -> np.ndarray | None:
        """The read-only index array into ``q`` by which the space gathers ``dofs`` (``probe``
        ``arange(len(q0))`` as floats), or None where its gather is not a plain selection of
        ``q`` (a space that keeps its own gather)."""
        at = self.gather(probe, dofs)
        idx = at.astype(np.int64)
        if not (np.array_equal(idx, at) and
                np.array_equal(self.gather(self.q0, dofs), self.q0[idx])):
            return None
        idx.flags.writeable = False
        return idx

    def _gather_indices(self) -> dict:
        """Per block whose gathered coordinates are entries of ``q`` as they stand (no
        rotation DOF: the contact blocks, trusses, springs), by ``id``: (the block, the index
        array ``(n, k)`` into ``q``), so that :meth:`pose` reads them by one fancy index
        instead of the space's gather, which maps the velocity DOFs to ``q`` and screens
        them for rotations on every call (issue 33: a bundle of beams in contact gathers
        some 20,000 rows of contact blocks at each Newton iteration)."""
        out = {}
        probe = np.arange(len(self.q0), dtype=float)
        for b in self.blocks:
            dofs = getattr(b, "dofs", None)
            if (getattr(b, "spatial", False) or not isinstance(dofs, np.ndarray)
                    or dofs.dtype.kind not in "iu" or not dofs.size
                    or self.space.rotation[dofs].any()):
                continue
            idx = self._plain_index(probe, dofs)
            if idx is not None:
                out[id(b)] = (b, idx)
        return out

    def update(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """The configuration ``q`` moved by the free-DOF increment ``dq`` (a new array; the
        configuration space composes: adds translations, rotates rotations)."""
        return self.space.update_free(q, dq, self.free)

    def difference(self, q1: np.ndarray, q0: np.ndarray) -> np.ndarray:
        """The velocity-space increment (n_dof,) that moves ``q0`` to ``q1``."""
        return self.space.difference(q1, q0)

    def fingerprint(self) -> str:
        """Digest of the model's DOF layout, space, element families and joints (files of
        states carry it, so a state is never read into a different model)."""
        return fingerprint(self)

    def expand(self, x_free: np.ndarray, fill: float = 0.0) -> np.ndarray:
        """Free-DOF vector to a full-length vector, ``fill`` at fixed DOFs."""
        out = np.full(self.n_dof, fill, dtype=float)
        out[self.free] = x_free
        return out

    def dof(self, node: "Node | int", name: str) -> int:
        """Global index of DOF ``name`` ('x', 'y', 'rz'; in space also 'z', 'rx', 'ry') of
        ``node``."""
        nid = self.outline.node(node, "dof")
        if name not in self.dof_names:
            raise ModelError(f"unknown DOF {name!r}; use one of {', '.join(self.dof_names)}")
        j = self.node_dofs[nid, self.dof_names.index(name)]
        if j < 0:
            raise ModelError(f"{self.outline.node_label(nid)} has no DOF {name!r}")
        return int(j)

    def dof_label(self, i: int) -> str:
        """Human-readable name of global DOF ``i``, e.g. "node 3 at (1, 0) rz"."""
        if i in self.extra_labels:
            return self.extra_labels[i]
        nid, j = self.dof_owner[i]
        return f"{self.outline.node_label(nid)} {self.dof_names[j]}"

    # ------------------------------------------------ constraints (the ConstraintSet's)
    def joint_poses(self, blk, q: np.ndarray):
        """What a joint block evaluates at ``q`` (:meth:`ConstraintSet.joint_poses`)."""
        return self.constraint_set.joint_poses(blk, q)

    def constraints(self, q: np.ndarray, t: float = 0.0, lam: np.ndarray | None = None,
                    hessian: bool = True, rows: RedundantRows | None = None):
        """Constraint values ``phi (n_con,)``, the CSR data of ``B`` on the free DOFs, the
        constraint forces ``B^T lam`` [N, N m] on all DOFs and the geometric stiffness data
        at ``(q, t)`` [s], as a :class:`fembody.constraints.ConstraintEval`; ``rows``: a run's
        :class:`fembody.constraints.RedundantRows` (default None: all rows in). See
        :meth:`fembody.constraints.ConstraintSet.constraints`."""
        return self.constraint_set.constraints(q, t, lam, hessian, rows)

    def constraint_rates(self, t: float, rows: RedundantRows | None = None
                         ) -> tuple[np.ndarray, np.ndarray]:
        """``phi_t`` and ``phi_tt`` (n_con,) of the drivers at ``t`` [s]
        (:meth:`ConstraintSet.constraint_rates`)."""
        return self.constraint_set.constraint_rates(t, rows)

    def constraint_curvature(self, q: np.ndarray, v: np.ndarray, t: float = 0.0,
                             rows: RedundantRows | None = None) -> np.ndarray:
        """``v^T H_i v`` per constraint row (:meth:`ConstraintSet.constraint_curvature`)."""
        return self.constraint_set.constraint_curvature(q, v, t, rows)

    def frame_reaction(self, index: int, q: np.ndarray, lam: np.ndarray, t: float = 0.0,
                       frame: str = "global") -> np.ndarray | None:
        """Force and moment (6,) [N, N m] of spatial joint ``index`` on its second node
        (:meth:`ConstraintSet.frame_reaction`)."""
        return self.constraint_set.frame_reaction(index, q, lam, t, frame)

    def row_positions(self, rows: np.ndarray) -> np.ndarray:
        """Positions of the constraint ``rows``' entries in B's CSR data."""
        return self.constraint_set.row_positions(rows)

    def B_matrix(self, Bdata: np.ndarray) -> sp.csr_matrix:
        """The constraint Jacobian on the free DOFs as SciPy's CSR matrix (n_con, n_free)."""
        return self.constraint_set.B_matrix(Bdata)

    def B_dense(self, Bdata: np.ndarray) -> np.ndarray:
        """The constraint Jacobian on the free DOFs as a dense array (n_con, n_free)."""
        return self.constraint_set.B_dense(Bdata)

    def B_product(self, Bdata: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``B x`` (n_con,) for a free-DOF vector ``x``."""
        return self.constraint_set.B_product(Bdata, x)

    def B_zero_rows(self, Bdata: np.ndarray) -> np.ndarray:
        """The constraint rows whose every entry on the free DOFs is zero."""
        return self.constraint_set.B_zero_rows(Bdata)

    def saddle_pattern(self):
        """The CSC pattern of ``[[S, B^T], [B, D]]`` (:meth:`ConstraintSet.saddle_pattern`)."""
        return self.constraint_set.saddle_pattern()

    # ------------------------------------------------------ measures (the Measures')
    def reactions(self, q: np.ndarray, v: np.ndarray, qdd: np.ndarray, lam: np.ndarray,
                  t: float) -> np.ndarray:
        """Support reactions on the fixed DOFs of a dynamic state [N, N m]
        (:meth:`fembody.measures.Measures.reactions`)."""
        return self.measures.reactions(q, v, qdd, lam, t)

    def strain_energy(self, q: np.ndarray) -> float:
        """Elastic energy stored in all elements and springs [J]."""
        return self.measures.strain_energy(q)

    def kinetic_energy(self, q: np.ndarray, v: np.ndarray) -> float:
        """Kinetic energy 1/2 v^T M(q) v [J]."""
        return self.measures.kinetic_energy(q, v)

    def momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Generalised momentum M(q) v on every DOF (n_dof,) [kg m/s, kg m^2/s]."""
        return self.measures.momentum(q, v)

    def linear_momentum(self, q: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Total linear momentum (dim,) [kg m/s]."""
        return self.measures.linear_momentum(q, v)

    def angular_momentum(self, q: np.ndarray, v: np.ndarray, about=None):
        """Angular momentum about the point ``about`` [kg m^2/s] (default the origin; a number
        in planar models, a 3-vector in spatial ones)."""
        return self.measures.angular_momentum(q, v, about)

    def gravity_energy(self, q: np.ndarray) -> float:
        """Potential energy of gravity relative to the reference configuration [J]."""
        return self.measures.gravity_energy(q)

    def resultants(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """Stress resultants per element family: ``{family: (n, 3)}`` [N, N, N m]."""
        return self.measures.resultants(q)

    def inverted_elements(self, q: np.ndarray, q_prev: np.ndarray | None = None) -> list[str]:
        """Labels of the beam and truss elements that have passed through zero length."""
        return self.measures.inverted_elements(q, q_prev)

    # ------------------------------------------------------- post-processing
    def blocks_of(self, family: str) -> tuple:
        """All blocks of a family ('beam', 'truss', 'beam contact', ...), in the System's
        order (the order of a Result's contact rows and of :meth:`resultants`' rows).

        A family can have several blocks: the beam contacts of a model are the element pairs
        (:class:`fembody.contact.beams.BeamContactBlock`) and, where they apply, the planar
        node pairs at free ends (:mod:`fembody.contact.ends`), the spatial junction rows at
        kinks (:mod:`fembody.contact.junction`) and their wedge line points
        (:mod:`fembody.contact.wedge`); surface contacts have one block per surface kind.
        KeyError naming the families there are for a family with no block."""
        out = tuple(b for b in self.blocks if b.family == family)
        if not out:
            have = dict.fromkeys(repr(b.family) for b in self.blocks)
            raise KeyError(f"no block of family {family!r}; this System has "
                           f"{', '.join(have)}")
        return out

    def block(self, family: str):
        """The block of an element family ('beam', 'truss', ...) that has one block.

        A family of several blocks (the beam contacts, see :meth:`blocks_of`) is a
        ModelError naming them: returning the first would silently leave the others out; ask
        :meth:`blocks_of` for all of them. KeyError for a family with no block."""
        found = self.blocks_of(family)
        if len(found) > 1:
            names = ", ".join(f"{type(b).__name__} ({len(b)} rows)" for b in found)
            raise ModelError(f"System.block: the family {family!r} has {len(found)} blocks: "
                             f"{names}; use System.blocks_of({family!r}) for all of them (a "
                             "tuple in the System's order) and pick one by its class")
        return found[0]


def _with_contact_state(base: System, state) -> System:
    """A pickled run's System (:meth:`System.with_contact_state`)."""
    return base.with_contact_state(state)


def _detach_items(blocks: list, kind: type) -> None:
    """Replace, in the lists the compiled ``blocks`` hold, the Model's items of type ``kind``
    (joints, contacts: they hold its Nodes, and so the Model) by
    :func:`fembody.model.bodies.detached` copies; one copy per item, shared where blocks
    share it."""
    copies: dict[int, object] = {}

    def copy_of(x):
        if id(x) not in copies:
            copies[id(x)] = detached(x)
        return copies[id(x)]
    for blk in blocks:
        for name, val in list(vars(blk).items()):
            if isinstance(val, list) and val and all(
                    x is None or isinstance(x, kind) for x in val):
                blk.__dict__[name] = [x if x is None else copy_of(x) for x in val]


def _new_system() -> System:
    """An empty System that :meth:`System.__setstate__` fills (a pickled System's load)."""
    return object.__new__(System)


# what a pickled System leaves out and its load rebuilds (the sparse pattern and scatter
# maps, the constraint part, the constant masses, the measures: most of a System's bytes)
_DERIVED = frozenset({
    "indices", "indptr", "nnz", "diag_pos", "scatter", "constraint_set", "B_indices",
    "B_indptr", "B_nnz", "B_rows", "B_scatter", "M_const", "f_gravity", "_Me", "M_csc",
    "fused_mass", "M_rest", "M_rest_pos", "weighed_mass", "one_pass_dynamics", "measures"})


# ids are addresses: far above any count or index a map is also keyed by
_ADDRESS = 1 << 32


def _walk(root: object, visit) -> None:
    """Call ``visit(container)`` on every dict, set and object ``__dict__`` reachable from
    ``root`` through dicts, lists, tuples, sets and object attributes (arrays, strings and
    numbers are leaves; each object once)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, (np.ndarray, str, bytes, int, float, complex, bool, type(None),
                          np.generic, type)) or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, dict):
            visit(x)
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            if isinstance(x, set):
                visit(x)
            stack.extend(x)
        elif hasattr(x, "__dict__") and not callable(x):
            stack.append(vars(x))


def _identities(state: dict) -> list:
    """(id, object) of the objects whose ids key a map reachable from ``state``."""
    keys: set[int] = set()

    def note(c) -> None:
        keys.update(k for k in c if type(k) is int and k >= _ADDRESS)
    _walk(state, note)
    found: dict[int, object] = {}
    seen: set[int] = set()
    stack: list = [state]
    while stack:                 # the objects themselves, reachable the same way
        x = stack.pop()
        if isinstance(x, (np.ndarray, str, bytes, int, float, complex, bool, type(None),
                          np.generic, type)) or id(x) in seen:
            continue
        seen.add(id(x))
        if id(x) in keys:
            found[id(x)] = x
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif hasattr(x, "__dict__") and not callable(x):
            stack.append(vars(x))
    return list(found.items())


def _rekey(state: dict, new: dict) -> None:
    """Replace, in place, every key ``old`` of ``new`` by ``new[old]`` in the dicts and sets
    reachable from ``state``."""
    def fix(c) -> None:
        hit = [k for k in c if type(k) is int and k in new]
        if isinstance(c, dict):
            moved = {new[k]: c.pop(k) for k in hit}
            c.update(moved)
        else:
            c.difference_update(hit)
            c.update(new[k] for k in hit)
    _walk(state, fix)


def as_system(model: "Model | System") -> System:
    """Compile a Model, or pass a System through (ModelError for anything else): the one
    entry of every solver and of the driver, kept with the System so that none of them needs
    another's package for it."""
    if isinstance(model, System):
        return model
    if not callable(getattr(model, "compile", None)):
        raise ModelError(f"expected a fembody Model (fb.Model()) or its compiled System as "
                         f"the model, got {model!r}")
    return model.compile()
