"""Checkpoint files of a running simulation (``simulate(..., checkpoint=...)``, ``resume``).

A checkpoint holds the complete state of the ``simulate`` driver: the integrator (state,
step-size history, Newton counters, the modified-Newton reuse decision), the impact handler
(resting contacts, impacts so far), the energy bookkeeping and the Result recorded so far. It
does NOT hold the model: a model carries the user's load and motion functions (lambdas,
closures), which pickle cannot store reliably. The model is given again on resume; it is
compiled afresh and every object the state refers to inside it (the System, its element,
joint and contact blocks, the model's nodes and contacts) is re-attached by its place, so
the state points into the new model as it pointed into the old one. A fingerprint of the
compiled model (DOF layout, blocks, joints, reference configuration) and fembody's version
are checked before anything is read.

Linear-solver factorisations (CHOLMOD, SuperLU objects) cannot be pickled: the solvers keep
the inputs of their current factorisation (``factorized``), and loading factorises them
again. Factorisation is deterministic, so a resumed modified Newton iteration reuses the same
matrix and the run continues bit for bit.

File layout: ``MAGIC``, an 8-byte header length, a JSON header (format, version,
fingerprint, payload length and SHA-256), the pickled payload. It is written to a temporary
file in the same directory and renamed over the old one (``os.replace``), so a crash while
writing leaves the previous checkpoint intact.
"""
from __future__ import annotations

import io
import os
import pickle
import struct
import weakref

import numpy as np

from ..errors import ModelError
from ..lazy import lazy_module
from ..results import Result
from ..system import System
from .. import version as fembody_version
from ..linalg.linalg import LinearSolver, SaddlePointSolver

# imported when a checkpoint is written or read (their OpenSSL and file-system modules are a
# few ms of every start-up otherwise)
hashlib = lazy_module("hashlib")
json = lazy_module("json")
tempfile = lazy_module("tempfile")

MAGIC = b"FEMBODY-CKPT\n"
# 2: the run state is a RunState with its redundant rows (simulate); 3: the integrators, the
# statics and the driver moved from fembody.solvers to fembody.dynamics, .statics and .run, and
# the linear solvers' classes to fembody.linalg, so a format-2 file's pickled class paths name
# modules that are gone: it is refused by its header (naming the version that wrote it), not
# by an unpickling error; 4: the penalty contacts' approach speeds moved from the compiled
# blocks to the run's ContactState (a format-3 impact handler has no place for them); 5: the
# ContactState keeps the frictional contacts' anchors too, saved as a dict (a format-4 list of
# speeds has no place for them); 6: it keeps the planar beam pairs' sides too (a format-5
# file of a planar beam contact has none, and a resumed run would start from the reference
# sides)
FORMAT = 6
VERSION = fembody_version.__version__


def model_fingerprint(system: System) -> str:
    """The System's fingerprint (everything that determines a result, see
    :func:`fembody.system.dofs.fingerprint`) plus the model's sensors (a resumed run records the
    same outputs) and a digest of its reference configuration, constant mass and tangent
    stiffness there."""
    from ..digest import digest_of
    h = hashlib.sha256(system.fingerprint().encode())
    sensors = [(s.name, s.kind, s.target, s.quantity, s.components)    # names key histories
               for s in system.outline.sensors]
    h.update(digest_of(sensors).encode())
    _, K, _ = system.internal_forces(system.q0, None, True)
    for x in (system.q0, system.M_const, K):
        h.update(np.ascontiguousarray(x, dtype=float).tobytes())
    return h.hexdigest()[:32]


def _owned(root: object, prefix: str, table: dict) -> None:
    """Map id -> place for ``root`` and the objects it holds one level down (attributes, and
    the items of list, tuple and dict attributes); arrays and plain values are data."""
    def plain(x) -> bool:
        return isinstance(x, (np.ndarray, str, bytes, int, float, bool, complex, type(None),
                              np.generic, type))

    table.setdefault(id(root), (prefix,))
    for name, val in vars(root).items():
        if plain(val):
            continue
        if isinstance(val, (list, tuple)):
            for k, item in enumerate(val):
                if not plain(item):
                    table.setdefault(id(item), (prefix, name, k))
        elif isinstance(val, dict):
            continue                  # caches keyed by id(): rebuilt with the System
        else:
            table.setdefault(id(val), (prefix, name))


def _places(system: System) -> dict:
    table: dict = {}
    _owned(system, "system", table)
    # the Model's contacts a run's impact handler refers to, held by the System's contact
    # groups (the System keeps no Model to give them a place in)
    for name in ("contact_groups", "penalty_blocks"):
        for g, grp in enumerate(getattr(system, name, None) or ()):
            for i, c in enumerate(getattr(grp, "contacts", None) or ()):
                table.setdefault(id(c), ("system", name, g, "contacts", i))
    return table


# System attributes built on first use, by the method that builds them: a run's state may
# refer to one (a saddle-point solver holds the System's saddle pattern) while a System
# compiled afresh for a resume has not built it yet
LAZY = {"_saddle": "saddle_pattern"}


def _resolve(system: System, place: tuple):
    if place[0] != "system":
        # (a place in the Model: the System keeps none since it holds an outline)
        raise AttributeError(place[0])
    root = system
    if len(place) == 1:
        return root
    val = getattr(root, place[1], None)
    if val is None and place[1] in LAZY:
        val = getattr(system, LAZY[place[1]])()
    if val is None:
        # None is never given a place: the saved run referred to an object this model lacks
        raise AttributeError(place[1])
    for step in place[2:]:          # list indices and attribute names, in turn
        val = val[step] if isinstance(step, int) else getattr(val, step)
    return val


def _rebuild_solver(cls: type, state: dict):
    """A linear solver from its saved attributes, its factorisation redone."""
    return cls.from_checkpoint_state(state)


def _rebuild_result(state: dict) -> Result:
    """A Result from its saved state (the name older checkpoint files refer to)."""
    return Result.from_checkpoint_state(state)


class _Pickler(pickle.Pickler):
    def __init__(self, f, system: System) -> None:
        super().__init__(f, protocol=pickle.HIGHEST_PROTOCOL)
        self.system = system
        self.places = _places(system)
        self.derived: dict[int, tuple] = {}

    def persistent_id(self, obj):
        if id(obj) in self.places:
            return ("place", self.places[id(obj)])
        if isinstance(obj, System):
            # a System with resting-contact rows (fembody.run.impact): rebuilt from the
            # base System and the places of its contact groups
            base = self.system
            if getattr(obj, "outline", None) is not base.outline:
                raise ModelError("checkpoint: the run refers to a System of another model")
            blocks = obj.joint_blocks[len(base.joint_blocks):]
            # (group place, contact) of every row, in the rows' order (a block per group)
            found = sorted((int(row), self.places[id(b.group)], int(i)) for b in blocks
                           for i, row in zip(b.idx, b.rows[:, 0]))
            return ("contact-rows", tuple((place, i) for _, place, i in found))
        return None

    def reducer_override(self, obj):
        if isinstance(obj, (SaddlePointSolver, LinearSolver)):
            return _rebuild_solver, (type(obj), obj.checkpoint_state())
        if type(obj) is Result:
            return _rebuild_result, (obj.checkpoint_state(),)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, system: System) -> None:
        super().__init__(f)
        self.system = system
        self.derived: dict[tuple, System] = {}

    def persistent_load(self, pid):
        kind, arg = pid
        if kind == "place":
            try:
                return _resolve(self.system, arg)
            except (AttributeError, IndexError) as exc:
                raise ModelError(f"checkpoint: the model has no {'.'.join(map(str, arg))}; "
                                 "give resume the model the run was started with") from exc
        if kind == "contact-rows":
            if arg not in self.derived:
                from ..system.contact_rows import with_contact_rows
                items = [(_resolve(self.system, place), i) for place, i in arg]
                self.derived[arg] = with_contact_rows(self.system, items)
            return self.derived[arg]
        raise pickle.UnpicklingError(f"unknown reference {kind!r}")


_MODELS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # System -> pickled System


def _model_blob(system: System) -> bytes:
    """The compiled System pickled once per System (it holds no Model, see
    :mod:`fembody.system.outline`), or b"" when it cannot be (its load or motion functions
    are lambdas or closures): a checkpoint then needs the model again on resume."""
    blob = _MODELS.get(system)
    if blob is None:
        try:
            blob = pickle.dumps(system, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, AttributeError, TypeError):
            blob = b""
        _MODELS[system] = blob
    return blob


def check_path(path, where: str) -> str:
    """``path`` as a string if a checkpoint can be written there; ModelError naming it when it
    is not a path, is a folder, or its folder does not exist or cannot be written (found
    before the run starts, not as a logged failure at its first write)."""
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise ModelError(f"{where}: checkpoint must be a file path (str or pathlib.Path), got "
                         f"{path!r}")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not path or os.path.isdir(path):
        raise ModelError(f"{where}: checkpoint {path!r} is a folder; give a file name in it, "
                         "e.g. 'run.ckpt'")
    if not os.path.isdir(folder):
        raise ModelError(f"{where}: the folder {folder!r} of the checkpoint {path!r} does not "
                         "exist; create it first (os.makedirs) or give a path in an existing "
                         "folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ModelError(f"{where}: the folder {folder!r} of the checkpoint {path!r} cannot be "
                         "written to; choose a folder you can write to")
    return path


def write(path: str | os.PathLike, state: dict, system: System,
          fingerprint: str | None = None) -> None:
    """Write the driver ``state`` of a run on ``system`` to ``path`` atomically
    (``fingerprint``: :func:`model_fingerprint` of ``system`` when already known), with the
    model itself when it can be pickled."""
    buf = io.BytesIO()
    _Pickler(buf, system).dump(state)
    model = _model_blob(system)
    payload = buf.getvalue() + model
    header = json.dumps(dict(format=FORMAT, version=VERSION,
                             fingerprint=fingerprint or model_fingerprint(system),
                             length=len(payload), model_length=len(model),
                             sha256=hashlib.sha256(payload).hexdigest(),
                             t=float(state["integ"].t))).encode()
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ckpt-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + struct.pack("<Q", len(header)) + header + payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_header(path: str | os.PathLike) -> tuple[dict, bytes]:
    """The header and payload of a checkpoint file; ModelError for a file that is not one,
    is truncated or corrupt."""
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ModelError(f"checkpoint {path!r} cannot be read: {exc}") from exc
    n = len(MAGIC)
    if data[:n] != MAGIC:
        raise ModelError(f"{path!r} is not a fembody checkpoint (written by simulate(..., "
                         "checkpoint=...))")
    try:
        (hlen,) = struct.unpack("<Q", data[n:n + 8])
        header = json.loads(data[n + 8:n + 8 + hlen].decode())
        payload = data[n + 8 + hlen:]
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        raise ModelError(f"checkpoint {path!r} is truncated or corrupt (its header cannot be "
                         "read); use an earlier checkpoint or start the run again") from exc
    if len(payload) != header.get("length") or \
            hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise ModelError(f"checkpoint {path!r} is truncated or corrupt ({len(payload)} of "
                         f"{header.get('length')} bytes, checksum mismatch); use an earlier "
                         "checkpoint or start the run again")
    return header, payload


def read(path: str | os.PathLike, system: System) -> dict:
    """The driver state stored in ``path``, attached to ``system`` (the model compiled
    afresh); ModelError when the file is of another model, another fembody version, or is
    truncated."""
    header, payload = read_header(path)
    if header.get("version") != VERSION or header.get("format") != FORMAT:
        raise ModelError(f"checkpoint {os.fspath(path)!r} was written by fembody "
                         f"{header.get('version')} (format {header.get('format')}), this is "
                         f"fembody {VERSION}: a run resumes only with the version that "
                         "started it; finish it with that version or start it again")
    if header.get("fingerprint") != model_fingerprint(system):
        raise ModelError(f"checkpoint {os.fspath(path)!r} is of another model (its nodes, "
                         "elements, materials, sections, masses, loads, gravity, damping, "
                         "joints, contacts, initial velocities or sensors differ from the model "
                         "given); give resume the model the run was started with")
    state = payload[:len(payload) - header.get("model_length", 0)]
    return _Unpickler(io.BytesIO(state), system).load()


def read_model(path: str | os.PathLike):
    """The compiled System stored in the checkpoint ``path`` (what ``resume`` runs when no
    model is given); ModelError when it holds none (a model
    whose load or motion functions are lambdas or closures cannot be stored)."""
    header, payload = read_header(path)
    n = header.get("model_length", 0)
    if not n:
        raise ModelError(f"checkpoint {os.fspath(path)!r} does not hold its model (its load or "
                         "motion functions are lambdas or closures, which cannot be stored): "
                         "pass it, fb.resume(path, model) (a Model, System or build_model)")
    try:
        return pickle.loads(payload[len(payload) - n:])
    except Exception as exc:            # a module of the model's functions is gone, ...
        raise ModelError(f"checkpoint {os.fspath(path)!r}: its model cannot be read back "
                         f"({type(exc).__name__}: {exc}); pass it, fb.resume(path, model)"
                         ) from exc
