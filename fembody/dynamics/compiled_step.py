"""The compiled step of small systems: when it applies, and its arrays.

A generalized-alpha step of a small rigid mechanism costs far more in Python calls (about a
hundred per step: evaluate, assemble, factorise, solve, update, convergence tests) than in
arithmetic. :func:`plan` decides, from what the System's parts declare, whether
:func:`fembody.dynamics._step_kernels.step` can run the whole step in one compiled call, and
packs what it reads; :class:`CompiledStep` calls it and hands the result to the integrator.

The rule, for any model (never a test of one model's shape):

- every block has a compiled form: each element block that carries inertia beyond a
  constant mass matrix, and each joint block, declares it with ``compiled_step() -> dict |
  None`` (its family and arrays; None: not this instance): spatial rigid bodies, spatial
  modal bodies, spatial joints and drivers, spatial springs, and in the plane rigid bodies,
  the joints and drivers of :mod:`fembody.joints.kernels.planar` (points, sliders,
  distances, linear rows) and springs; beams, trusses, rotational springs, planar modal
  bodies and contacts have none yet; constant masses enter as the System's constant mass
  matrix and constant loads as its constant force; a driven joint's prescribed values and
  the time-dependent nodal loads are read once per step in Python (a step evaluates the
  rows and loads at one time, ``t_n + h``);
- the configuration space gives the maps compiled code reads (``kernel_maps``: every
  space of :mod:`fembody.space`; the kernel composes quaternions and unit complex numbers
  and adds the additive coordinates, whichever the space holds), no Rayleigh damping; the
  turning loads (follower forces, spatial moments) are read per step like the
  time-dependent loads and turned in the kernel;
- the saddle matrix is small enough: ``n_free + n_con <= MAX_DENSE`` (a dense LU), or a
  dense or banded LU whose cost is at most ``MAX_LU_OPS`` (:func:`factor_arrays`,
  :func:`size_reason`) with its arrays within ``MAX_STEP_BYTES``: a banded LU of a model
  whose every family writes into band storage (:func:`band_assembled`) is assembled in the
  band, never as a dense matrix; otherwise the iteration matrix is assembled densely, up
  to ``MAX_DENSE_ASSEMBLY`` unknowns;
- per step: the integrator's predictor is the acceleration one, no constraint row is
  dropped or made compliant (redundancy handling is Python's), no velocity projection.

A driver that needs nothing between steps that it cannot do afterwards from their states
(``fembody.run.simulate``: no contacts or damping dissipation; a batch ends at a
checkpoint's output point) runs several steps per call (:meth:`CompiledStep.steps`,
:func:`fembody.dynamics._step_kernels.steps`), with the same numbers as one call per step:
the call keeps every state, its driven values and loads are read per step before it, and
the driver then records saved states, reads sensors, follows the drivers' work and runs its
monitor's checks at each step's state (:meth:`Batch.goto`), with the energies and forces
the checks read evaluated in the call at the steps they check (:meth:`Batch.values`).

Anything else, and any step the kernel does not converge, runs the Python path
(:meth:`fembody.dynamics.newmark.GeneralizedAlpha._newton_step`) with its semantics: the
kernel never changes the integrator's state unless its step converged.
"""
from __future__ import annotations

import math
import weakref

import numpy as np

from ..system.constraints import ConstraintEval
from ..system.round_off import reference_coordinates

#: saddle matrices (free DOFs plus constraint rows) up to this size are factorised densely,
#: without an ordering: the dense LU costs less than a banded one there
MAX_DENSE = 64
#: beyond MAX_DENSE the compiled step factorises the cheaper of the dense LU and the banded
#: LU of the ordered matrix (:func:`factor_arrays`), when that costs at most MAX_LU_OPS
#: multiply-adds (:func:`lu_operations`, the banded ones times BAND_COST): a hub with 14
#: hinged bars (163 unknowns, its dense LU 1.4e6) pays, one with 24 (273 unknowns, 6.8e6)
#: is even with the Python path.
MAX_LU_OPS = 2.0e6
#: a model one of whose families writes only dense arrays (the planar families, the modal
#: bodies: :func:`band_assembled`) has its iteration matrix assembled densely (a cost
#: growing as the square of the unknowns): up to this many unknowns (on spatial chains
#: assembled densely the compiled step cost less than the Python path's sparse one at 220
#: and 275 unknowns, as much or more at 330 and 550: its arrays then outgrow the caches)
MAX_DENSE_ASSEMBLY = 256
#: the most bytes of the compiled step's matrices (the iteration matrix, the three tangents
#: it is made of and the factors: :func:`step_bytes`); with band assembly the memory, and
#: not the number of unknowns, bounds the size
MAX_STEP_BYTES = 64 * 2 ** 20
#: above this many unknowns a System is not ordered (:func:`band_ordering` runs in Python,
#: its time linear in the entries) and the compiled step is not tried: a mechanism of a few
#: thousand bodies
MAX_UNKNOWNS = 20000
#: the banded LU's cost per multiply-add relative to the dense LU's (short rows, index
#: arithmetic), measured on the saddle matrices of spatial chains of 33 to 550 unknowns
BAND_COST = 2.0
_NV = 5                       # the widest joint kind's vectors (revolute, cylindrical)
_MROWS = 6                    # the most rows of one joint instance (weld)


def has_contacts(system) -> bool:
    """Whether ``system`` holds contacts (a run's contact state, contact groups, surface or
    watched beam contacts): what this step does not run, and what the Python path's Newton
    closes with a reused factorisation (:mod:`fembody.dynamics.newton`, **Closing
    increments**; the compiled loop mirrors full Newton without them)."""
    s = system
    return (s.contact_state is not None or bool(getattr(s, "contact_groups", None))
            or bool(getattr(s, "surface_contact_blocks", None))
            or getattr(s, "beam_contact_watch", None) is not None)


def why_not(system) -> str:
    """'' when the compiled step can run ``system``, else the reason it cannot (for logs and
    tests)."""
    s = system
    if not hasattr(s.space, "kernel_maps"):
        return f"the {getattr(s.space, 'name', '?')} configuration space"
    if s.n_free + s.n_con > MAX_UNKNOWNS:
        return f"{s.n_free + s.n_con} unknowns (more than {MAX_UNKNOWNS})"
    for b in s.stiffness_blocks:
        form = b.compiled_step() if hasattr(b, "compiled_step") else None
        if form is None or form.get("family") not in ("spring3d", "modal3d", "spring2d"):
            return f"a {getattr(b, 'family', type(b).__name__)} block without a compiled form"
    if s.rayleigh[0] > 0 or s.rayleigh[1] > 0:
        return "Rayleigh damping"
    if has_contacts(s):
        return "contacts"
    for b in s.nonlinear_inertia:
        form = b.compiled_step() if hasattr(b, "compiled_step") else None
        if form is None or form.get("family") not in ("rigid3d", "modal3d", "rigid2d"):
            return f"a {getattr(b, 'family', type(b).__name__)} block without a compiled form"
    for b in s.joint_blocks:
        form = b.compiled_step() if hasattr(b, "compiled_step") else None
        if form is None or form.get("family") not in ("spatial joint", "planar joint",
                                                       "modal pin"):
            return f"a joint block ({getattr(b, 'kind', type(b).__name__)}) without a compiled form"
    return size_reason(s)


def _saddle_edges(s) -> tuple[np.ndarray, np.ndarray]:
    """Row and column (both triangles) of every entry the compiled step's assembly can write
    into the bordered matrix ``[[S, B^T], [B, 0]]`` of System ``s``: the tangent's fixed
    pattern on the free DOFs (every block, the nonlinear joints' Hessian terms and the
    turning loads: :meth:`fembody.system.System._build_pattern`), B's pattern and its
    transpose, and the Lie map's mixing of each node's three rotation columns (a row that
    meets one of them meets all three: ``S`` is ``K + (gp C + bp M) T^-1``)."""
    nf, nc = s.n_free, s.n_con
    cols = np.repeat(np.arange(nf, dtype=np.int64), np.diff(s.indptr))
    r = [np.asarray(s.indices, np.int64), np.arange(nf + nc, dtype=np.int64)]
    c = [cols, np.arange(nf + nc, dtype=np.int64)]
    if nc:
        br = nf + np.asarray(s.B_rows, np.int64)
        bc = np.asarray(s.B_indices, np.int64)
        r += [br, bc]
        c += [bc, br]
    rows, cols = np.concatenate(r), np.concatenate(c)
    # the rotation triplets of the free DOFs (the Lie map's groups)
    rot = np.asarray(s.space.kernel_maps()["rot_v"], dtype=np.int64).reshape(-1, 3)
    fidx = np.full(s.n_dof, -1, dtype=np.int64)
    fidx[np.asarray(s.free, dtype=np.int64)] = np.arange(nf)
    trip = fidx[rot] if rot.size else rot
    trip = trip[(trip >= 0).all(axis=1)]
    if trip.size:
        group = np.full(nf + nc, -1, dtype=np.int64)
        group[trip.ravel()] = np.repeat(np.arange(len(trip)), 3)
        g = group[cols]
        hit = g >= 0
        rr = np.repeat(rows[hit], 3)
        cc = trip[g[hit]].ravel()
        rows, cols = np.concatenate([rows, rr, cc]), np.concatenate([cols, cc, rr])
    return rows, cols


#: each System's :func:`band_ordering` (why_not and the plan ask for it; a System is
#: immutable, so its ordering is kept while it lives)
_ORDERINGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _distinct(x: np.ndarray) -> np.ndarray:
    """The distinct values of the integer array ``x``, sorted."""
    x = np.sort(x)
    return x[np.concatenate(([True], x[1:] != x[:-1]))] if x.size else x


def _supervariables(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    """The group of each of the ``n`` unknowns of a symmetric CSR pattern: unknowns with the
    same neighbours, counting themselves (a node's DOFs) or not (a joint's rows, which meet
    the same DOFs and not each other), share one."""
    group = list(range(n))

    def find(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i
    # (the pattern holds the diagonal: a row's entries are its closed neighbourhood)
    rows = np.split(np.asarray(indices), np.asarray(indptr[1:-1]))
    for closed in (True, False):
        seen: dict = {}
        for i, nb in enumerate(rows):
            key = nb.tobytes() if closed else nb[nb != i].tobytes()
            j = seen.setdefault(key, i)
            if j != i:
                group[find(i)] = find(j)
    return np.array([find(i) for i in range(n)], dtype=np.int64)


def band_ordering(s) -> tuple[np.ndarray, int, int]:
    """``(perm, kl, ku)``: an ordering of the compiled step's saddle matrix of System ``s``
    (:func:`_saddle_edges`, a symmetric pattern) and the sub- and super-diagonals of the
    ordered matrix (equal: the pattern is symmetric). Two reverse Cuthill-McKee orders, the
    narrower band kept: of the unknowns, and of their groups (:func:`_supervariables`: a
    node's DOFs, a joint's rows), each group's unknowns kept together; for a chain of bodies
    the second is the chain's own order, each joint's rows between the bodies it connects,
    a band of about one body and one joint whatever the number of bodies."""
    try:
        return _ORDERINGS[s]
    except (KeyError, TypeError):
        pass
    from ..linalg.envelope import rcm
    n = s.n_free + s.n_con
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0, 0
    rows, cols = _saddle_edges(s)
    key = _distinct(rows * n + cols)
    rows, cols = key // n, key % n
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    best = None
    grp = _supervariables(indptr, cols, n)
    roots = _distinct(grp)
    gi = np.searchsorted(roots, grp)
    ng = roots.size
    gkey = _distinct(gi[rows] * ng + gi[cols])
    gr, gc = gkey // ng, gkey % ng
    gptr = np.zeros(ng + 1, dtype=np.int64)
    np.cumsum(np.bincount(gr, minlength=ng), out=gptr[1:])
    gorder = np.empty(ng, dtype=np.int64)
    gorder[rcm(gptr, gc, ng)] = np.arange(ng)
    for perm in (rcm(indptr, cols, n), np.lexsort((np.arange(n), gorder[gi]))):
        iperm = np.empty(n, dtype=np.int64)
        iperm[perm] = np.arange(n)
        w = int(np.abs(iperm[rows] - iperm[cols]).max())
        if best is None or w < best[1]:
            best = (np.ascontiguousarray(perm, dtype=np.int64), w)
    out = (best[0], best[1], best[1])
    try:
        _ORDERINGS[s] = out
    except TypeError:                       # (not weak-referenceable: not kept)
        pass
    return out


def lu_operations(n: int, kl: int | None = None, ku: int | None = None) -> float:
    """Multiply-adds of the LU of an ``n x n`` matrix: dense (``kl`` None), or banded with
    ``kl`` sub- and ``ku`` super-diagonals and row pivoting (U's bandwidth grows to ``kl +
    ku``): step ``k`` updates ``min(kl, n-1-k)`` rows over ``min(kl+ku, n-1-k)`` columns."""
    k = np.arange(n, dtype=float)
    rest = n - 1 - k
    if kl is None:
        return float((rest * rest).sum())
    return float((np.minimum(kl, rest) * np.minimum(kl + ku, rest)).sum())


def _choice(s) -> tuple[str, float, int]:
    """``(lu, multiply-adds, kl + ku)`` of the cheaper LU of System ``s``'s saddle matrix
    beyond MAX_DENSE (see :func:`factor_arrays`)."""
    n = s.n_free + s.n_con
    _, kl, ku = band_ordering(s)
    band = BAND_COST * lu_operations(n, kl, ku)
    dense = lu_operations(n)
    return ("banded", band, kl + ku) if band < dense else ("dense", dense, kl + ku)


#: the families whose compiled form writes its tangents through the band addressing of
#: :func:`fembody.dynamics._step_kernels._add` (the others write dense arrays)
_BANDED_FAMILIES = ("rigid3d", "spring3d", "spatial joint")


def band_assembled(s) -> bool:
    """Whether every block of System ``s`` that the compiled step evaluates writes into band
    storage (:data:`_BANDED_FAMILIES`; constant masses and turning loads do too), so that
    its banded LU is assembled in the band (:func:`factor_arrays`)."""
    for blocks in (s.stiffness_blocks, s.nonlinear_inertia, s.joint_blocks):
        for b in blocks:
            form = b.compiled_step() if hasattr(b, "compiled_step") else None
            if form is None or form.get("family") not in _BANDED_FAMILIES:
                return False
    return True


def step_bytes(n: int, lu: str, kl: int = 0, ku: int = 0, in_band: bool = False) -> int:
    """Bytes of the compiled step's matrices for ``n`` unknowns: the iteration matrix and
    the three tangents it is made of (``n x n``, or band storage ``n x (kl + ku + 1)`` when
    assembled in the band), and the factors (``n x n`` dense, ``n x (2 kl + ku + 1)``
    banded)."""
    wa = kl + ku + 1 if in_band else n
    wf = 2 * kl + ku + 1 if lu == "banded" else n
    return 8 * n * (4 * wa + wf)


def factor_arrays(s) -> tuple[np.ndarray, np.ndarray, str]:
    """The compiled step's factor arrays ``(LU, piv)`` for System ``s``
    (:func:`fembody.dynamics._step_kernels.factor` reads their layout) and the LU's name,
    ``"dense"`` or ``"banded"``: dense up to ``MAX_DENSE`` unknowns, beyond it the one with
    fewer multiply-adds (:func:`lu_operations`; the banded LU of the ordered matrix,
    :func:`band_ordering`, counted ``BAND_COST`` times). A banded LU of a System whose
    families all write into band storage (:func:`band_assembled`) is assembled in the band:
    its ``piv`` then also holds each unknown's position in the ordered matrix (the layout
    ``"banded"`` of :func:`fembody.dynamics._step_kernels.factor` with ``3 n + 2`` entries).
    Raises ValueError when the compiled step cannot take the matrix (:func:`size_reason`
    says why)."""
    n = s.n_free + s.n_con
    why = size_reason(s)
    if why:
        raise ValueError("compiled step: " + why)
    if n > MAX_DENSE and _choice(s)[0] == "banded":
        perm, kl, ku = band_ordering(s)
        in_band = band_assembled(s)
        piv = np.zeros(3 * n + 2 if in_band else 2 * n + 2, dtype=np.int64)
        piv[n:2 * n] = perm
        piv[2 * n], piv[2 * n + 1] = kl, ku
        if in_band:
            piv[2 * n + 2 + perm] = np.arange(n)
        return np.zeros((n, 2 * kl + ku + 1)), piv, "banded"
    return np.zeros((n, n)), np.zeros(n, dtype=np.int64), "dense"


def size_reason(s) -> str:
    """'' when the compiled step can assemble and factorise the saddle matrix of System
    ``s``: at most ``MAX_UNKNOWNS`` unknowns; beyond ``MAX_DENSE`` an LU of at most
    ``MAX_LU_OPS`` multiply-adds, its matrices within ``MAX_STEP_BYTES``
    (:func:`step_bytes`) and, unless assembled in the band (:func:`band_assembled`), at
    most ``MAX_DENSE_ASSEMBLY`` unknowns; else why not."""
    n = s.n_free + s.n_con
    if n <= MAX_DENSE:
        return ""
    if n > MAX_UNKNOWNS:
        return f"{n} unknowns (more than {MAX_UNKNOWNS})"
    lu, ops, band = _choice(s)
    if ops > MAX_LU_OPS:
        return (f"{n} unknowns whose cheaper LU ({lu}; a band of {band} diagonals after "
                f"ordering) costs {ops:.3g} multiply-adds (more than {MAX_LU_OPS:.3g})")
    in_band = lu == "banded" and band_assembled(s)
    if not in_band and n > MAX_DENSE_ASSEMBLY:
        return (f"{n} unknowns assembled densely (more than {MAX_DENSE_ASSEMBLY}): "
                + ("a family of the model writes dense tangents only (planar families and "
                   "modal bodies have no band assembly)" if lu == "banded" else
                   f"its {lu} LU is the cheaper (a band of {band} diagonals after ordering)"))
    _, kl, ku = band_ordering(s)
    size = step_bytes(n, lu, kl, ku, in_band)
    if size > MAX_STEP_BYTES:
        return (f"{n} unknowns whose matrices ({lu} LU, a band of {band} diagonals after "
                f"ordering) take {size / 2 ** 20:.3g} MiB (more than "
                f"{MAX_STEP_BYTES / 2 ** 20:.3g})")
    return ""


def plan(integ, why: str | None = None) -> "CompiledStep | None":
    """The compiled step of the generalized-alpha integrator ``integ`` or None (see the
    module docstring); ``why``: :func:`why_not` of its System when the caller has it."""
    s = integ.sys
    if integ.projection or (why_not(s) if why is None else why):
        return None
    if integ.rows.mode != "error":
        # redundant='drop' / 'regularize': the run passes states where B loses rank, whose
        # way through (the redo from the grid interval's start, fembody.run.redundancy) the
        # Python path's Newton decides; the compiled LU converged at such a state where the
        # Python path's solver did not, and took the other branch (a parallelogram's flat
        # state: 1.1e-3 rad off, tests/spatial/test_redundancy_change.py)
        return None
    return CompiledStep(integ)


_STEP = None


def _kernel():
    """The compiled step kernel's trusted entry point (its module loaded at the first step;
    not an attribute of :class:`CompiledStep`, which a checkpoint pickles with the
    integrator). Trusted: every array handed to it is a C-contiguous float64 or int64 array
    built here, or one of the integrator's state vectors, checked per call
    (:func:`_plain`)."""
    global _STEP
    if _STEP is None:
        from ._step_kernels import FP_FLOOR, step
        assert FP_FLOOR == _FP_FLOOR
        _STEP = step
    # (after its first call ``trusted`` is the entry point itself, an instance attribute)
    return _STEP.trusted


_BATCH = None
_PENDING = 1                       # _step_kernels.PENDING (the module loads at first use)
_FP_FLOOR = 12                     # _step_kernels.FP_FLOOR: the floor's part of ``fp``


def _batch_kernel():
    """The several-steps kernel's trusted entry point (as :func:`_kernel`)."""
    global _BATCH
    if _BATCH is None:
        from ._step_kernels import FP_FLOOR, PENDING, steps
        assert PENDING == _PENDING and FP_FLOOR == _FP_FLOOR
        _BATCH = steps
    return _BATCH.trusted


_F8 = np.dtype(np.float64)


def _plain(*arrays) -> bool:
    """Whether every array is a C-contiguous float64 vector (what the kernel reads)."""
    for x in arrays:
        if not (type(x) is np.ndarray and x.dtype == _F8 and x.ndim == 1
                and x.flags.c_contiguous):
            return False
    return True


def _modal_arrays(forms: list, lin_v: np.ndarray,
                  pins: list = ()) -> tuple[np.ndarray, np.ndarray]:
    """``md_i``, ``md_f`` of the spatial modal bodies' compiled forms (``family
    "modal3d"``), each padded to the most modes ``P`` of any, in the layout of
    :func:`fembody.elements.modal.modal3d_numba.step_into`, then the ModalPins' (``family
    "modal pin"``, one entry per instance, layout of
    :func:`~fembody.elements.modal.modal3d_numba.pins_into`; with pins ``P >= 2`` and
    ``md_i`` has a fourth layer); ``lin_v``: the space's translational velocity DOFs (an
    amplitude's q index is its position there)."""
    if not forms:
        return np.zeros((0, 3, 6), dtype=np.int64), np.zeros((0, 22))
    P = max(len(f["coordinates"]) for f in forms)
    if pins:
        P = max(P, 2)                   # a pin's 2 + m (<= 6) row entries fit in 6 + P
    W = 6 + P
    n_pin = sum(len(f["nodes"]) for f in pins)
    md_i = np.full((len(forms) + n_pin, 4 if pins else 3, W), -1, dtype=np.int64)
    rows = []
    for b, f in enumerate(forms):
        N = len(f["coordinates"])
        md_i[b, 0, :6 + N] = f["dofs"]
        qi = np.searchsorted(lin_v, f["coordinates"])
        if not np.array_equal(lin_v[qi], f["coordinates"]):
            raise ValueError("compiled step: a modal body's amplitudes are not translational "
                             "coordinates of the spatial space")
        md_i[b, 1, :N] = qi
        md_i[b, 2, 0] = f["node"]
        m, Ct0, Ct, CtP, J0, J1s, J2, J2s, Cr0, Cr, Mee, c2 = f["kin"]

        def pad(x: np.ndarray, axes: tuple) -> np.ndarray:
            """``x`` zero-padded to ``P`` along ``axes`` (its mode axes), flat."""
            width = [(0, P - N if i in axes else 0) for i in range(x.ndim)]
            return np.pad(np.asarray(x, dtype=float), width).ravel()
        rows.append(np.concatenate([
            [m], f["c0"], np.ravel(Ct0), np.ravel(J0), pad(Ct, (0,)), pad(CtP, (1,)),
            pad(J1s, (0,)), pad(Cr0, (1,)), pad(J2, (0, 1)), pad(J2s, (0, 1)),
            pad(Cr, (0, 2)), pad(Mee, (0, 1)), pad(c2, (1, 2)), pad(f["K"], (0, 1))]))
    b = len(forms)
    for f in pins:
        for e in range(len(f["nodes"])):
            N = f["phi_t"].shape[2]
            md_i[b, 0, :6], md_i[b, 0, 6:6 + N] = f["dofs"][e, :6], f["dofs"][e, 12:]
            md_i[b, 1, :6] = f["dofs"][e, 6:12]
            md_i[b, 1, 6:6 + N] = np.searchsorted(lin_v, f["dofs"][e, 12:])
            md_i[b, 2, :2] = f["nodes"][e, 0], 1
            md_i[b, 2, 2:2 + f["m"]] = f["rows"][e]
            md_i[b, 3, :3] = f["nodes"][e, 1], f["m"], N
            row = np.zeros(len(rows[0]))
            modes = [np.pad(f[k][e], ((0, 0), (0, P - N))).ravel() for k in ("phi_t", "psi")]
            flat = np.concatenate([f["Xo"][e], f["s"][e], *modes, f["C"][e].ravel(),
                                   f["D"][e].ravel()])
            row[:flat.size] = flat
            rows.append(row)
            b += 1
    return md_i, np.ascontiguousarray(np.array(rows), dtype=float)


def _space_array(maps: dict) -> np.ndarray:
    """The space's :meth:`~fembody.space.PlanarSpace.kernel_maps` padded into the kernel's
    one int array ``space_i`` (layout: :func:`fembody.dynamics._step_kernels.step`):
    whichever the space, its node poses, quaternions, unit complex numbers and additive
    coordinates."""
    nn, m = maps["node_q"].shape[0], maps["quat"].shape[0]
    uc, nv = maps["unit_complex"], len(maps["rotation"])
    width = max(nn, m, len(uc), nv, 1)
    space_i = np.full((6, width + 1, 4), -1, dtype=np.int64)
    space_i[0, :nn, :3] = maps["node_q"]
    space_i[1, :nn, 0] = maps["node_rot"]
    space_i[2, :m, :] = maps["quat"]
    space_i[3, :m, :3] = maps["rot_v"]
    space_i[4, :len(uc), :3] = uc
    space_i[5, :len(maps["lin_q"]), 0] = maps["lin_q"]
    space_i[5, :nv, 1] = maps["rotation"]
    space_i[5, 0, 2] = int(maps["continuous"])
    return space_i


def _stack(forms: list, key: str, empty: tuple, dtype) -> np.ndarray:
    """The compiled forms' ``key`` arrays stacked into one C-contiguous array (``empty``:
    the shape without any)."""
    return np.ascontiguousarray(np.concatenate([np.asarray(f[key]) for f in forms])
                                if forms else np.zeros(empty), dtype=dtype)


def _float_params(integ, s) -> np.ndarray:
    """The float parameters of :func:`fembody.dynamics._step_kernels.step` (its ``fp``):
    the scheme's and the tests' constants, the factors' scaling, the round-off floor of the
    residual (its norm, -1 until a residual stalls near ``tol``; then the reference
    coordinate of every velocity DOF, from which the kernel measures it, and its value on
    every free row: :func:`fembody.system.round_off.round_off_floor`)."""
    return np.concatenate([[0.0, 0.0, integ.alpha_m, integ.alpha_f, integ.gamma, integ.beta,
                            integ.tol, integ.ptol, integ.xtol, integ.length, integ.reuse_rate,
                            1.0, -1.0], reference_coordinates(s.space), np.zeros(s.n_free)])


class CompiledStep:
    """The arrays of :func:`fembody.dynamics._step_kernels.step` for one integrator, built
    once; :meth:`__call__` runs a step."""

    def __init__(self, integ) -> None:
        s = integ.sys
        self.system = s                   # the System the arrays describe
        sp = s.space
        free = np.ascontiguousarray(s.free, dtype=np.int64)
        nf, nc, nd = free.size, s.n_con, s.n_dof
        self.fidx = np.full(nd, -1, dtype=np.int64)
        self.fidx[free] = np.arange(nf)
        self.free = free
        maps = sp.kernel_maps()
        self.space_i = _space_array(maps)
        self.node_X = np.ascontiguousarray(maps["node_X"], dtype=float)
        self.lin_v = np.ascontiguousarray(maps["lin_v"], dtype=np.int64)
        # constant loads and constant masses (point masses) on the free DOFs
        self.fconst = np.ascontiguousarray(s.nodal_loads(0.0) + s.f_gravity, dtype=float)
        self.g = np.ascontiguousarray(s.gravity, dtype=float)
        # time-dependent nodal loads: fconst is read again at t1 at every step
        self.varying = bool(s.variable_loads)
        # rigid bodies
        forms = [f for f in (b.compiled_step() for b in s.nonlinear_inertia)
                 if f["family"] == "rigid3d"]
        cat = (lambda key, shape, dt=float: np.ascontiguousarray(
            np.concatenate([f[key] for f in forms]) if forms else np.zeros(shape), dtype=dt))
        self.rb_node = cat("nodes", (0,), np.int64)
        self.rb_dofs = cat("dofs", (0, 6), np.int64)
        self.rb_m, self.rb_Jc, self.rb_c = cat("m", (0,)), cat("Jc", (0, 3, 3)), cat("c", (0, 3))
        # springs
        sforms = [f for f in (b.compiled_step() for b in s.stiffness_blocks)
                  if f["family"] == "spring3d"]
        self.sp_nodes = np.ascontiguousarray(np.concatenate(
            [np.asarray(f["nodes"]).reshape(-1) for f in sforms]) if sforms
            else np.zeros(0), dtype=np.int64)
        self.sp_dofs = np.ascontiguousarray(np.concatenate([f["dofs"] for f in sforms])
                                            if sforms else np.zeros((0, 6)), dtype=np.int64)
        self.sp_p = np.ascontiguousarray(np.concatenate([f["p"] for f in sforms])
                                         if sforms else np.zeros((0, 6)), dtype=float)
        # planar springs and rigid bodies
        pforms = [f for f in (b.compiled_step() for b in s.stiffness_blocks)
                  if f["family"] == "spring2d"]
        self.ps_dofs, self.ps_p = _stack(pforms, "dofs", (0, 4), np.int64), _stack(
            pforms, "p", (0, 6), float)
        damped = any(f["damped"] for f in sforms + pforms)
        rforms = [f for f in (b.compiled_step() for b in s.nonlinear_inertia)
                  if f["family"] == "rigid2d"]
        self.pr_dofs, self.pr_p = _stack(rforms, "dofs", (0, 3), np.int64), _stack(
            rforms, "p", (0, 4), float)
        # turning loads: node, force or moment, DOFs; their values at t1 per step
        tl = s.turning_loads
        self.turning = bool(tl)
        self.tl_i = np.zeros((len(tl), 8), dtype=np.int64)
        self.tl_val = np.zeros((len(tl), 3))
        if tl and getattr(tl, "planar", None) is not None:
            # planar follower forces: no node pose, their x, y, rz DOFs
            self.tl_i[:, 0] = -1
            self.tl_i[:, 1] = 2
            self.tl_i[:, 2:5] = tl.dofs
        elif tl:
            self.tl_i[:, 0] = tl.nodes[:, 0]
            self.tl_i[:, 1] = tl.force
            self.tl_i[:, 2:] = tl.dofs
        jall = [(b.compiled_step(), b) for b in s.joint_blocks]
        # (modal-31: ModalPins ride with the modal bodies' arrays, modal3d_numba.pins_into)
        self.md_i, self.md_f = _modal_arrays(
            [f for f in (b.compiled_step() for b in s.nonlinear_inertia)
             if f["family"] == "modal3d"], maps["lin_v"],
            [f for f, _ in jall if f["family"] == "modal pin"])
        # joints: one table of instances, one row per block
        jforms = [f for f, _ in jall if f["family"] == "spatial joint"]
        jblocks = [b for f, b in jall if f["family"] == "spatial joint"]
        n_inst = sum(len(f["nodes"]) for f in jforms)
        self.j_nodes = np.zeros(2 * n_inst, dtype=np.int64)
        self.j_dofs = np.full((n_inst, 12), -1, dtype=np.int64)
        self.j_rows = np.zeros((n_inst, _MROWS), dtype=np.int64)
        self.j_V = np.zeros((n_inst, _NV, 3))
        self.j_C0 = np.zeros((n_inst, 3, 3))
        self.j_s = np.zeros(n_inst)
        self.j_f = np.zeros(n_inst)
        self.jblk = np.zeros((len(jforms), 5), dtype=np.int64)
        # (values, start, stop, block) of the driven joint blocks: ``values[start:stop]``
        # receives the block's prescribed values at each step's time
        self.driven = []
        a = 0
        for k, (f, blk) in enumerate(zip(jforms, jblocks)):
            n = len(f["nodes"])
            b = a + n
            self.j_nodes[2 * a:2 * b] = np.asarray(f["nodes"]).reshape(-1)
            self.j_dofs[a:b] = f["dofs"]
            self.j_rows[a:b, :f["m"]] = f["rows"]
            self.j_V[a:b, :f["V"].shape[1]] = f["V"]
            self.j_C0[a:b], self.j_s[a:b], self.j_f[a:b] = f["C0"], f["s"], f["f"]
            self.jblk[k] = (f["code"], f["m"], a, b, int(f["varies"]))
            if f.get("driven"):
                self.driven.append((self.j_f, a, b, blk))
            a = b
        # planar joint blocks (fembody.joints.kernels.planar.step_into's layout)
        pl = [(f, b) for f, b in jall if f["family"] == "planar joint"]
        self.pblk = np.zeros((len(pl), 7), dtype=np.int64)
        self.pj_i = _stack([f for f, _ in pl], "i", (0, 16), np.int64)
        self.pj_f = _stack([f for f, _ in pl], "f", (0, 21), float)
        self.pj_t = np.zeros(self.pj_i.shape[0])
        a = 0
        for k, (f, blk) in enumerate(pl):
            b = a + f["i"].shape[0]
            self.pblk[k] = (f["kind"], f["m"], a, b, int(f["flag"]), int(f["varies"]), f["k"])
            if f["driven"]:
                self.driven.append((self.pj_t, a, b, blk))
            a = b
        lie_map = integ._lie
        self.groups = (np.ascontiguousarray(lie_map.groups, dtype=np.int64) if lie_map
                       is not None else np.zeros((0, 3), dtype=np.int64))
        self.weighed = bool(s.weighed_mass)
        # the run monitor's values in the kernel: every family here has its mass matrix,
        # weights and forces there; strain energy none yet (springs, modal bodies: the
        # monitor evaluates those states in Python)
        self.monitor_values = not (s.stiffness_blocks or self.md_i.shape[0])
        self.q0 = np.ascontiguousarray(s.q0, dtype=float)
        self.f_grav = np.ascontiguousarray(s.f_gravity, dtype=float)
        # the factors' arrays; their layout says which LU (dense or banded) the kernel runs
        self.LU, self.piv, self.lu = factor_arrays(s)
        # (the K pattern, and so M_const, is on the free DOFs); assembled in the band, its
        # entries as rows (i, j, value): never a dense matrix
        mc = s.csc(np.asarray(s.M_const, float))
        if self.piv.shape[0] == 3 * (nf + nc) + 2:
            mc = mc.tocoo()
            self.Mc = np.ascontiguousarray(np.column_stack(
                [mc.row.astype(float), mc.col.astype(float), mc.data]).reshape(-1, 3))
        else:
            self.Mc = np.ascontiguousarray(mc.toarray())
        self.fac_h: float | None = None            # the step of the factors in LU
        # the integrator's last step was made here (its Python solver's factors are older)
        self.owns_factors = False
        self.counts = np.zeros(5, dtype=np.int64)
        self.n_factor = self.n_solve = 0
        self.n_steps = 0                            # steps made by the compiled call
        # ends of q1, v1, a1, qdd1, lam1, r, phi, fc in a step's one output buffer
        nq = integ.q.shape[0]
        self._offsets = tuple(int(x) for x in np.cumsum([nq, nd, nd, nd, nc, nf, nc, nd]))
        self._out: tuple | None = None              # the state the last compiled step left
        # a step :meth:`steps` ran but did not apply: (t, h, then _finish's arguments)
        self._pending: tuple | None = None
        self.n_fallbacks = 0                        # steps handed back to the Python path
        self._fp = _float_params(integ, s)
        self._ip = np.array([integ.max_iter, int(integ.newton == "modified"), 3, 0,
                             int(self.weighed), int(s.B_nnz), int(damped)], dtype=np.int64)

    def _planar_args(self) -> tuple:
        """The planar families' arrays, the kernels' last arguments."""
        return (self.pr_dofs, self.pr_p, self.ps_dofs, self.ps_p, self.pblk, self.pj_i,
                self.pj_f, self.pj_t)

    def __setstate__(self, state: dict) -> None:
        """Unpickle (a checkpoint); one written before the output buffer and held steps
        existed gets them."""
        self.__dict__.update(state)
        if "pblk" not in state:
            # written before the planar families (a spatial System's step): none of them,
            # the space's maps in the present layout, the driven rows' target named
            self.space_i = _space_array(self.system.space.kernel_maps())
            self.pr_dofs, self.pr_p = np.zeros((0, 3), dtype=np.int64), np.zeros((0, 4))
            self.ps_dofs, self.ps_p = np.zeros((0, 4), dtype=np.int64), np.zeros((0, 6))
            self.pblk = np.zeros((0, 7), dtype=np.int64)
            self.pj_i, self.pj_f = np.zeros((0, 16), dtype=np.int64), np.zeros((0, 21))
            self.pj_t = np.zeros(0)
            self.driven = [(self.j_f, *d) for d in self.driven]
        if self._fp.shape[0] == _FP_FLOOR:      # (written before the round-off floor)
            self._fp = np.concatenate([self._fp, [-1.0],
                                       reference_coordinates(self.system.space),
                                       np.zeros(self.system.n_free)])
        if "monitor_values" not in state:       # (written before the monitor's values)
            self.monitor_values = False
            self.q0 = np.ascontiguousarray(self.system.q0, dtype=float)
            self.f_grav = np.ascontiguousarray(self.system.f_gravity, dtype=float)
        if "_offsets" not in state:
            s = self.system
            self._offsets = tuple(int(x) for x in np.cumsum(
                [s.q0.shape[0], s.n_dof, s.n_dof, s.n_dof, s.n_con, self.free.size, s.n_con,
                 s.n_dof]))
            self._out = self._pending = None

    def _floor_from(self, integ) -> None:
        """Before a compiled call: the kernel measures the residual's round-off floor from
        its next tangent on where the integrator's Python path already does (a residual
        stalled near ``tol`` there: :meth:`fembody.dynamics.base.Integrator.converged`), so
        that a run switching between the two paths closes its steps by one test."""
        if integ._floor_wanted and self._fp[_FP_FLOOR] < 0.0:
            self._fp[_FP_FLOOR] = 0.0

    def _floor_to(self, integ) -> None:
        """After a compiled call: the Python path measures the floor from its next tangent
        on where the kernel wanted it (:meth:`_floor_from`'s converse)."""
        if self._fp[_FP_FLOOR] >= 0.0:
            integ._floor_wanted = True

    def __call__(self, integ, h: float) -> bool:
        """One step of ``h`` [s]: True and the integrator moved on (state, counters, ``last``)
        when it converged; False and nothing changed otherwise (the caller runs the Python
        path for the step)."""
        s = integ.sys
        q, v, a, qdd, lam = integ.q, integ.v, integ.a, integ.qdd, integ.lam
        # the state this call's last step left (the common case: checked by identity) or
        # arrays checked here
        if s is not self.system or (self._out is None or q is not self._out[0]
                                    or v is not self._out[1] or a is not self._out[2]
                                    or qdd is not self._out[3] or lam is not self._out[4]
                                    ) and not _plain(q, v, a, qdd, lam):
            self.n_fallbacks += 1
            return False
        pend, self._pending = self._pending, None
        if pend is not None and pend[0] == integ.t and pend[1] == h:
            # this step was run by the last :meth:`steps` call, which held its outcome
            return self._finish(integ, h, *pend[2:])
        fp, ip = self._fp, self._ip
        fp[0], fp[1] = h, integ.t + h
        self._floor_from(integ)
        for values, i0, i1, blk in self.driven:   # f(t1): one value per driven row and step
            values[i0:i1] = blk.prescribed(float(fp[1]))
        if self.varying:                       # the nodal loads at t1, as the Python path
            np.add(s.nodal_loads(float(fp[1])), s.f_gravity, out=self.fconst)
        if self.turning:
            val = s.turning_loads.values(float(fp[1]))
            self.tl_val[:, :val.shape[1]] = val
        ip[3] = int(integ.newton == "modified" and integ._fac_h == h and self.fac_h == h)
        # the new state and the last evaluation's arrays: views of one fresh buffer (one
        # allocation; fresh, since saved states and the Result keep the older ones)
        nq, nd, nf, nc = q.shape[0], s.n_dof, self.free.size, s.n_con
        o = self._offsets
        buf = np.empty(o[-1])
        q1, v1, a1, qdd1 = buf[:o[0]], buf[o[0]:o[1]], buf[o[1]:o[2]], buf[o[2]:o[3]]
        lam1, r, phi, fc = buf[o[3]:o[4]], buf[o[4]:o[5]], buf[o[5]:o[6]], buf[o[6]:o[7]]
        phi.fill(0.0)
        fc.fill(0.0)
        status, it, _, _, _, _ = _kernel()(
            fp, q, v, a, qdd, lam, ip, q1, v1, a1, qdd1, lam1,
            r, phi, fc, self.LU, self.piv, self.space_i, self.node_X, self.fconst, self.Mc,
            self.g, self.rb_node, self.rb_dofs, self.rb_m, self.rb_Jc, self.rb_c, self.jblk,
            self.j_nodes, self.j_dofs, self.j_rows, self.j_V, self.j_C0, self.j_s, self.j_f,
            self.sp_nodes, self.sp_dofs, self.sp_p, self.md_i, self.md_f, self.tl_i,
            self.tl_val, self.free, self.fidx,
            self.groups, self.lin_v, self.counts, *self._planar_args())
        return self._finish(integ, h, float(fp[1]), status, it, self.counts, q1, v1, a1,
                            qdd1, lam1, r, phi, fc)

    def _finish(self, integ, h: float, t1: float, status: int, it: int, c: np.ndarray, q1,
                v1, a1, qdd1, lam1, r, phi, fc) -> bool:
        """Hand the outcome of a step of ``h`` to ``t1`` [s] (the kernel's status,
        increments, counters ``c`` and arrays) to the integrator; see :meth:`__call__`."""
        if c[2]:
            self.fac_h = h if status == 0 else None
        self._floor_to(integ)
        if status != 0:
            self.n_fallbacks += 1
            return False
        integ.n_residual += int(c[0])
        integ.n_tangent += int(c[1])
        self.n_factor += int(c[2])
        self.n_solve += int(c[3])
        integ.n_newton += int(c[4])
        integ._fac_h = h
        self.owns_factors = True
        integ.last_iterations = int(it)
        integ.last = (r, ConstraintEval(phi, None, fc, None))
        integ.t, integ.q, integ.v, integ.qdd, integ.lam = t1, q1, v1, qdd1, lam1
        integ.a = a1
        self._out = (q1, v1, a1, qdd1, lam1)
        self.n_steps += 1
        return True

    def steps(self, integ, i0: int, n: int, dt: float, f_load: np.ndarray,
              fc_prev: np.ndarray | None, lam_size: float, jump: float,
              sums: tuple[float, float], checks: np.ndarray | None = None) -> "Batch | None":
        """Up to ``n`` steps of ``dt`` [s], the k-th landing on the output grid point
        ``(i0 + k) dt``, in one compiled call (:func:`fembody.dynamics._step_kernels.steps`),
        keeping the driver's energy sums (the work of the constant nodal loads ``f_load`` and
        of the constraint forces, from the last step's ``fc_prev``; ``sums``: the sums so
        far) and the redundancy watch's multiplier size (``lam_size``; ``jump``: its factor,
        0 for no watch). The prescribed values of driven joints are read here for every step
        (at the step's end, as :meth:`__call__` reads them). The integrator moves on by the
        steps applied, as if :meth:`__call__` had made them one by one, and every state on
        the way is in the returned :class:`Batch` (:meth:`goto` sets the integrator to one
        of them, for what the driver does after a step); a step that failed or whose
        multipliers jumped is held and handed to the integrator's next step of the same size
        from the same time (so the driver's own loop sees it, with its diagnostics). Loads
        that change with time and turning loads are read here for every step too, and
        their work summed with the turning loads at each state reached (``f_load`` is then
        the loads at the start, with the turning ones). ``checks``: the indices ``k`` (from
        0) of the steps whose states the driver's run monitor checks; where the kernel can
        (:attr:`monitor_values`), it evaluates there what the monitor reads
        (:func:`fembody.dynamics._step_kernels._monitor_values`: energies and force sizes,
        ``Batch.values``), so that the check does no evaluation of its own. None: not for
        this integrator now (another state, a held step)."""
        s = integ.sys
        if self._pending is not None or s is not self.system or n < 1:
            return None
        # the states, one per row (fresh: saved states keep the older ones)
        nd, nc, nq = s.n_dof, s.n_con, integ.q.shape[0]
        m = n + 1
        Q, V, A, QDD = np.empty((m, nq)), np.empty((m, nd)), np.empty((m, nd)), np.empty((m, nd))
        LAM, R, PHI, FC = (np.empty((m, nc)), np.empty((m, self.free.size)),
                           np.empty((m, nc)), np.empty((m, nd)))
        Q[0], V[0], A[0], QDD[0], LAM[0] = integ.q, integ.v, integ.a, integ.qdd, integ.lam
        FC[0] = 0.0 if fc_prev is None else fc_prev
        JF = FL = FW = _NO_ROWS
        TV = TW = _NO_VALUES
        if self.driven or self.varying or self.turning:
            # what changes with time, at each step's end: t1 as the kernel and the driver's
            # loop compute it (the grid point reached, up to round-off), the values as
            # __call__ and the driver's energy sums (fembody.run.simulate._Power) read them
            if self.driven:
                # the spatial joints' values j_f, then the planar joints' targets pj_t
                ni = self.j_f.size
                JF = np.empty((n, ni + self.pj_t.size))
                JF[:, :ni] = self.j_f
                JF[:, ni:] = self.pj_t
            if self.varying:
                FL = np.empty((n, nd))
            if self.varying or self.turning:
                FW = np.empty((m, nd))
                FW[0] = f_load
            if self.turning:
                # (zeros: planar follower forces fill the first two of the three columns)
                TV, TW = np.zeros((n,) + self.tl_val.shape), np.zeros((n,) + self.tl_val.shape)
            values = s.turning_loads.values if self.turning else None
            t = integ.t
            for k in range(n):
                target = (i0 + k) * dt
                t1 = float(t + (target - t))
                try:
                    for target_values, a0, a1, blk in self.driven:
                        o = 0 if target_values is self.j_f else ni
                        JF[k, o + a0:o + a1] = blk.prescribed(t1)
                    if self.varying:
                        np.add(s.nodal_loads(t1), s.f_gravity, out=FL[k])
                    if values is not None:
                        val = values(t1)
                        TV[k, :, :val.shape[1]] = val
                        TW[k, :, :val.shape[1]] = values(target)
                    if FW is not _NO_ROWS:
                        FW[k + 1] = s.nodal_loads(target)
                except Exception:
                    # a load or motion refused at this step's time (a non-finite value, the
                    # user's function raising): the batch ends before the step, which the
                    # driver's own step then meets and reports with its time and results
                    if k == 0:
                        return None
                    n = k
                    break
                t = target
        SF, SI = np.empty((n, 5)), np.empty((n, 6), dtype=np.int64)
        CK = np.zeros(n, dtype=np.int64)
        if checks is not None and self.monitor_values:
            CK[checks[checks < n]] = 1
        EN = np.zeros((n, 8))
        nan = math.nan
        bf = np.array([dt, lam_size, jump, sums[0], sums[1],
                       nan if integ._fac_h is None else integ._fac_h,
                       nan if self.fac_h is None else self.fac_h, integ.t])
        bi = np.zeros(9, dtype=np.int64)
        bi[0], bi[1] = i0, n
        tot = np.zeros(5, dtype=np.int64)
        f_load = np.ascontiguousarray(f_load, dtype=float)
        t_start = integ.t
        self._floor_from(integ)
        why = _batch_kernel()(
            self._fp, self._ip, Q, V, A, QDD, LAM, R, PHI, FC, bf, bi, f_load, self.counts,
            tot, self.LU, self.piv, self.space_i, self.node_X, self.fconst, self.Mc, self.g,
            self.rb_node, self.rb_dofs, self.rb_m, self.rb_Jc, self.rb_c, self.jblk,
            self.j_nodes, self.j_dofs, self.j_rows, self.j_V, self.j_C0, self.j_s, self.j_f,
            self.sp_nodes, self.sp_dofs, self.sp_p, self.md_i, self.md_f, self.tl_i,
            self.tl_val, self.free, self.fidx, self.groups, self.lin_v, *self._planar_args(),
            JF, SF, SI, FL, TV, FW, TW, CK, EN, self.q0, self.f_grav)
        self._floor_to(integ)
        k = int(bi[2])
        batch = Batch(self, k, (Q, V, A, QDD, LAM, R, PHI, FC), SF[:k], SI[:k],
                      float(bf[1]), float(bf[3]), float(bf[4]),
                      f_load if FW is _NO_ROWS else FW[k], EN[:k], CK[:k])
        if k:
            integ.n_residual += int(tot[0])
            integ.n_tangent += int(tot[1])
            self.n_factor += int(tot[2])
            self.n_solve += int(tot[3])
            integ.n_newton += int(tot[4])
            integ.n_steps += k
            self.n_steps += k
            integ._fac_h = float(bf[5])
            self.fac_h = None if math.isnan(bf[6]) else float(bf[6])
            self.owns_factors = True
            self.goto(integ, batch, k, counters=False)
        if why == _PENDING:
            row = int(bi[4])
            h = (i0 + k) * dt - integ.t
            self._pending = (integ.t, h, integ.t + h, int(bi[5]), int(bi[6]),
                             self.counts.copy(), *(x[row] for x in batch.rows))
        assert k == 0 or integ.t > t_start
        return batch

    def goto(self, integ, batch: "Batch", p: int, counters: bool = True) -> None:
        """Set the integrator to the state after the ``p``-th step of ``batch`` (``1 <= p <=
        batch.k``; the batch already applied: :meth:`steps`), with its counters there
        (``counters``): what the driver reads after a step (saved states, sensors, the
        monitor's checks, an error's time and counters) is then that step's."""
        if counters and p != batch.p:
            # the counters after step p: those after step batch.p and the steps between
            now, was = batch.cum[p - 1], batch.cum[batch.p - 1]
            integ.n_residual += now[0] - was[0]
            integ.n_tangent += now[1] - was[1]
            self.n_factor += now[2] - was[2]
            self.n_solve += now[3] - was[3]
            integ.n_newton += now[4] - was[4]
            integ.n_steps += p - batch.p
            self.n_steps += p - batch.p
        batch.p = p
        if p == batch.k:        # (the same arrays each time: the driver checks by identity)
            if batch.final is None:
                batch.final = tuple(x[p] for x in batch.rows)
            q1, v1, a1, qdd1, lam1, r, phi, fc = batch.final
        else:
            Q, V, A, QDD, LAM, R, PHI, FC = batch.rows
            q1, v1, a1, qdd1, lam1, r, phi, fc = (Q[p], V[p], A[p], QDD[p], LAM[p], R[p],
                                                  PHI[p], FC[p])
        integ.last_iterations = batch.iterations[p - 1]
        integ.last = (r, ConstraintEval(phi, None, fc, None))
        integ.t, integ.q, integ.v, integ.qdd, integ.lam = batch.times[p - 1], q1, v1, qdd1, \
            lam1
        integ.a = a1
        self._out = (q1, v1, a1, qdd1, lam1)


_NO_ROWS = np.zeros((0, 0))
_NO_VALUES = np.zeros((0, 0, 3))


class Batch:
    """What :meth:`CompiledStep.steps` did: ``k`` steps applied; ``rows`` the states ``(Q, V,
    A, QDD, LAM, R, PHI, FC)``, one row per state (row 0 the start, row ``p`` after the
    ``p``-th step); per step ``SF`` (its size [s], the time reached [s], the energy sums
    ``work`` and ``constraint_work`` [J] after it, the multipliers' size) and ``SI`` (its
    Newton increments and counters); after the last applied step the multipliers' size
    ``lam_size``, the sums ``work``, ``constraint_work`` and the loads ``f_end`` (n_dof,)
    [N, N m] they were summed with there. ``p``: the step whose state
    the integrator holds (:meth:`goto`)."""

    __slots__ = ("owner", "k", "rows", "SF", "SI", "lam_size", "work", "constraint_work",
                 "p", "cum", "final", "f_end", "times", "iterations", "EN", "CK")

    def __init__(self, owner: CompiledStep, k: int, rows: tuple, SF: np.ndarray,
                 SI: np.ndarray, lam_size: float, work: float, constraint_work: float,
                 f_end: np.ndarray, EN: np.ndarray | None = None,
                 CK: np.ndarray | None = None) -> None:  # noqa: D107
        self.owner, self.k, self.rows, self.SF, self.SI = owner, k, rows, SF, SI
        # the run monitor's values at the steps CK marks (:meth:`values`)
        self.EN, self.CK = EN, CK
        self.lam_size, self.work, self.constraint_work = lam_size, work, constraint_work
        self.f_end = f_end          # the loads whose work the sums keep, at the last state
        self.p = k
        self.final: tuple | None = None                 # the last state's rows (goto)
        self.times = SF[:, 1].tolist()
        # the counters' sums after each step, its increments and the times reached (as
        # Python numbers: goto runs for every saved state)
        self.cum = np.cumsum(SI[:, 1:], axis=0).tolist()
        self.iterations = SI[:, 0].tolist()

    def values(self, p: int) -> np.ndarray | None:
        """What the run monitor reads at the state after the ``p``-th step, evaluated by the
        kernel (:func:`fembody.dynamics._step_kernels._monitor_values`: kinetic, strain and
        gravity energy [J], the 1-norms of the external, internal, inertial and constraint
        forces on the free DOFs [N, N m]), or None where it was not."""
        if self.CK is None or not self.CK[p - 1] or not self.EN[p - 1, 7] == 1.0:
            return None
        return self.EN[p - 1]

    @property
    def v_start(self) -> np.ndarray:
        """The velocities the integrator's current step (the ``p``-th) started from."""
        return self.rows[1][self.p - 1]

    def goto(self, integ, p: int) -> None:
        """Set the integrator ``integ`` to the state after the ``p``-th step, with its
        counters there (:meth:`CompiledStep.goto`)."""
        self.owner.goto(integ, self, p)
