"""A digest of everything in a Model that determines its results.

:func:`model_digest` walks the Model's own data (every attribute, so a field added to the
model later is covered without a change here): nodes and their coordinates, supports, every
element's family, connectivity, material, section, orientation and mass kind, point masses,
rigid bodies, springs, loads, gravity, damping, joints (kind, nodes, axes, offsets, motion),
contacts, modal bodies and initial velocities. Labels (``name`` attributes) are left out: they
name things and change no number. The compiled System's fingerprint (``dofs.fingerprint``)
adds this digest to its DOF layout, so a Result or a checkpoint is refused for a model that
differs anywhere that matters, not only in its DOF numbering.

Functions of time (loads, drives) cannot be compared by their bytecode (it differs between
Python versions and would refuse a result saved on another one), so a function is known by
what it is and what it does: its qualified name, the names it calls, its literal constants,
its default, closure and plain global values, and its values at :data:`SAMPLE_TIMES`. Two
functions equal in all of these but different elsewhere are taken as equal: a limit stated
in ``Result.load`` and ``resume``.
"""
from __future__ import annotations

import functools
import numbers
import types
from typing import Any

import numpy as np

from .model.bodies import Node

# times [s] at which a function of time is evaluated for the digest: irregular, so that
# the usual kinks (0, 1, 0.5 ...) and periods do not hide a difference
SAMPLE_TIMES = (0.0, 1.3e-3, 0.0137, 0.1009, 0.3131, 0.7717, 1.0, 1.618, 2.5, 7.39, 10.0, 100.0)
# attributes that label an object without changing any number of a result
LABELS = frozenset({"name", "_uid"})      # (_uid: the identity token, see system.outline)
# model attributes that are not inputs: the outputs declared (checkpoints check those on
# their own) and the handles grouping nodes and elements under a name (every element is in
# its family's list already)
OUTPUTS = frozenset({"sensors", "bodies"})


def model_digest(model: Any) -> str:
    """SHA-256 (hex) of everything in ``model`` that determines its results (see the module
    docstring); equal for two models built alike, different when a single number differs."""
    import hashlib                      # when used: its OpenSSL load is a start-up cost
    enc = _Encoder(model)
    h = hashlib.sha256()
    for key in sorted(vars(model)):
        if key in LABELS or key in OUTPUTS:
            continue
        h.update(key.encode())
        h.update(enc.top(key, getattr(model, key)))
    return h.hexdigest()


def digest_of(obj: Any, model: Any = None) -> str:
    """SHA-256 (hex) of one object as :func:`model_digest` encodes it (e.g. the sensors)."""
    import hashlib
    return hashlib.sha256(_Encoder(model).encode(obj)).hexdigest()


class _Encoder:
    """Canonical bytes of the values a model holds. Objects shared by many items (a Material,
    a Section) are encoded once per digest; cycles (a Node's model) are cut."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.memo: dict[int, bytes] = {}
        self.keep: list = []            # memoised objects stay alive: their ids stay theirs
        self.active: set[int] = set()

    def top(self, key: str, value: Any) -> bytes:
        if key == "nodes" and isinstance(value, list):
            return self.node_table(value)
        if isinstance(value, list) and value and all(type(v) is dict for v in value):
            return self.columns(value)
        return self.encode(value)

    # ------------------------------------------------------------ fast paths
    def node_table(self, nodes: list) -> bytes:
        """Coordinates and flags of every node as arrays (a million nodes in a fraction of
        a second, not one Python encoding each)."""
        xyz = np.array([(n.x, n.y, n.z) for n in nodes], dtype=float).reshape(-1, 3)
        flags = np.array([(n.id, n.internal) for n in nodes], dtype=np.int64).reshape(-1, 2)
        return b"nodes" + _array(xyz) + _array(flags)

    def columns(self, items: list) -> bytes:
        """A list of element dicts (beams, trusses, springs ...) column by column: node
        tuples as id arrays, numbers as arrays, one shared object once."""
        k0 = items[0].keys()
        keys = k0 if all(d.keys() == k0 for d in items) else {k for d in items for k in d}
        out = [b"cols", str(len(items)).encode()]
        for k in sorted(set(keys) - LABELS - {"body"}):
            vals = [d.get(k) for d in items]
            out.append(k.encode())
            first = vals[0]
            if all(v is first for v in vals):
                out += [b"same", self.encode(first)]
                continue
            if all(type(v) is tuple for v in vals):
                flat = [n for v in vals for n in v]
                if all(type(n) is Node for n in flat) and len(flat) == len(vals) * len(first):
                    ids = np.fromiter((n.id for n in flat), np.int64, len(flat))
                    out.append(_array(ids.reshape(len(vals), -1)))
                    continue
            if all(type(v) in (bool, int, float) for v in vals):
                out.append(_array(np.array(vals, dtype=float)))
            elif _same_arrays(vals):
                out.append(_arrays(vals))
            else:
                out += [self.encode(v) for v in vals]
        return b"|".join(out)

    # --------------------------------------------------------------- general
    def encode(self, x: Any) -> bytes:
        if x is None:
            return b"N"
        if isinstance(x, (bool, np.bool_)):
            return b"T" if x else b"F"
        if isinstance(x, numbers.Integral):
            return b"i" + str(int(x)).encode()
        if isinstance(x, numbers.Real):
            return b"f" + float(x).hex().encode()
        if isinstance(x, numbers.Complex):
            return b"c" + complex(x).real.hex().encode() + complex(x).imag.hex().encode()
        if isinstance(x, str):
            return b"s" + str(len(x)).encode() + b":" + x.encode("utf-8", "replace")
        if isinstance(x, bytes):
            return b"b" + str(len(x)).encode() + b":" + x
        if isinstance(x, np.ndarray):
            if x.dtype == object:
                return b"O" + str(x.shape).encode() + self.encode(list(x.ravel()))
            return _array(x)
        if isinstance(x, (list, tuple)):
            return b"(" + b",".join(self.encode(v) for v in x) + b")"
        if isinstance(x, (set, frozenset)):
            return b"{" + b",".join(sorted(self.encode(v) for v in x)) + b"}"
        if isinstance(x, dict):
            items = sorted((self.encode(k), self.encode(v)) for k, v in x.items())
            return b"<" + b",".join(k + b"=" + v for k, v in items) + b">"
        if _is_node(x):
            return b"node" + _array(np.array([x.id, x.x, x.y, x.z, x.internal], dtype=float))
        if x is self.model or (hasattr(x, "nodes") and callable(getattr(x, "compile", None))):
            return b"model"             # a reference back to a model: not walked again
        if isinstance(x, (type, types.ModuleType)):
            return b"t" + _qualname(x).encode()
        key = id(x)
        if key in self.memo:
            return self.memo[key]
        if key in self.active:
            return b"cycle"
        self.active.add(key)
        try:
            out = self._object(x)
        finally:
            self.active.discard(key)
        self.memo[key] = out
        self.keep.append(x)
        return out

    def _object(self, x: Any) -> bytes:
        if isinstance(x, types.FunctionType):
            return self._function(x)
        if isinstance(x, types.MethodType):
            return b"method" + self.encode(x.__self__) + self._function(x.__func__)
        if isinstance(x, functools.partial):
            return b"partial" + self.encode((x.func, x.args, x.keywords))
        fields = _fields(x)
        if fields is None:      # a builtin, a ufunc, an object without attributes
            return b"o" + _qualname(type(x)).encode() + getattr(x, "__name__", "").encode() + (
                self._samples(x) if callable(x) else b"")
        return b"o" + _qualname(type(x)).encode() + self.encode(fields)

    def _function(self, f: types.FunctionType) -> bytes:
        code = f.__code__
        cells = tuple(c.cell_contents if _cell_full(c) else None
                      for c in (f.__closure__ or ()))
        g = f.__globals__
        glob = {n: g[n] for n in _names(code) if n in g and _plain_global(g[n])}
        return b"fn" + self.encode((f.__qualname__, _names(code), _constants(code),
                                    f.__defaults__, f.__kwdefaults__, cells, glob)) \
            + self._samples(f)

    def _samples(self, f) -> bytes:
        out = []
        for t in SAMPLE_TIMES:
            try:
                out.append(self.encode(f(t)))
            except Exception as exc:    # a function defined on a part of the time axis
                out.append(b"E" + type(exc).__name__.encode())
        return b"@" + b",".join(out)


def _array(a: np.ndarray) -> bytes:
    a = np.ascontiguousarray(a)
    return b"a" + a.dtype.str.encode() + str(a.shape).encode() + a.tobytes()


def _same_arrays(vals: list) -> bool:
    """True for numeric arrays of one dtype and shape (e.g. every beam's orientation)."""
    a0 = vals[0]
    return (type(a0) is np.ndarray and a0.dtype != object and
            all(type(v) is np.ndarray and v.dtype == a0.dtype and v.shape == a0.shape
                for v in vals))


def _arrays(vals: list) -> bytes:
    """``b"|".join(_array(v) for v in vals)`` in one pass (the same bytes: one encoding per
    element of a column costs more than compiling its elements)."""
    head = np.frombuffer(b"a" + vals[0].dtype.str.encode() + str(vals[0].shape).encode(),
                         np.uint8)
    body = np.ascontiguousarray(np.stack(vals)).reshape(len(vals), -1).view(np.uint8)
    rows = np.empty((len(vals), len(head) + body.shape[1] + 1), np.uint8)
    rows[:, :len(head)] = head
    rows[:, len(head):-1] = body
    rows[:, -1] = ord("|")
    return rows.tobytes()[:-1]


def _is_node(x: Any) -> bool:
    return type(x) is Node


def _qualname(x: Any) -> str:
    return f"{getattr(x, '__module__', '')}.{getattr(x, '__qualname__', repr(x))}"


def _fields(x: Any) -> dict | None:
    """An object's attributes (instance dict and slots), labels left out; None: it has none."""
    out: dict = {}
    d = getattr(x, "__dict__", None)
    if isinstance(d, dict):
        out.update(d)
    for cls in type(x).__mro__:
        for s in getattr(cls, "__slots__", ()):
            if isinstance(s, str) and s not in ("__dict__", "__weakref__") and hasattr(x, s):
                out[s] = getattr(x, s)
    if d is None and not out:
        return None
    return {k: v for k, v in out.items() if k not in LABELS and not k.startswith("__")}


def _names(code: types.CodeType) -> tuple:
    """The global and attribute names a code object (and the code nested in it) uses."""
    names = list(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names += _names(c)
    return tuple(names)


def _constants(code: types.CodeType) -> tuple:
    """The literal numbers and strings of a code object and the code nested in it (not its
    docstring's position or bytecode: both vary with the Python version)."""
    out: list = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out.append(_constants(c))
        elif isinstance(c, (int, float, complex, str, bytes, tuple, frozenset)) and \
                c is not None:
            out.append(c)
    return tuple(sorted(out, key=repr))


def _cell_full(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _plain_global(v: Any) -> bool:
    """A module-level value a function reads that its digest includes: numbers, strings,
    arrays and tuples of them, other functions and fembody time functions (not modules,
    classes or large objects that only the samples can speak for)."""
    if isinstance(v, (numbers.Number, str, bytes, np.ndarray, types.FunctionType)):
        return True
    if isinstance(v, (tuple, list)):
        return len(v) < 1000 and all(isinstance(e, (numbers.Number, str)) for e in v)
    return type(v).__module__.startswith("fembody.model.functions")
