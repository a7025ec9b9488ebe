"""What a study's case is keyed by: a digest of everything that determines its result.

A case's file name is the digest of its parameters *and* of the study's setup: the model
builder, the run (a name, or a function), the metrics, the run's options, which parameters go
to the run, and fembody's version. A function counts by its module and qualified name and by
a digest of its code: its source text (its bytecode when the source cannot be read), its
default arguments, the values its closure holds, and the module-level names it reads (plain
values by value, functions and classes of the same module by their own code, recursively).
So a re-run into the same folder reuses a case only when nothing it depends on has changed,
and computes it again otherwise.

Values are described, never ``repr``-ed (numpy shortens a long array's repr, so two different
arrays would share one): a numpy array by its dtype, shape and a SHA-256 of its bytes (or its
values, for the case files), a number, string, bool or None as itself, lists, tuples, dicts
and sets item by item, a callable by its identity, and any other object by its type and a
SHA-256 of its pickle (an object that cannot be pickled cannot be keyed, nor sent to a worker:
it is refused, naming the parameter or option).

What the digest cannot see: files the functions read, state they fetch from elsewhere at run
time, and the code of other modules (except fembody, through its version). When those change,
use a new study folder or delete ``cases/``.
"""
from __future__ import annotations

import enum
import functools
import hashlib
import inspect
import json
import marshal
import os
import pickle
import types
from typing import Any, Mapping

from ..errors import ModelError

_MISSING = object()
KEY_CHARS = 20              # hex digits of a case key (80 bits)


def digest(data: bytes | str) -> str:
    """SHA-256 hex digest of ``data`` (text is UTF-8)."""
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()


def describe(x: Any, where: str, *, by_value: bool = False, _seen: set | None = None) -> Any:
    """A JSON-able description of ``x`` that differs whenever ``x`` does.

    x : the value (a parameter, an option, a default argument ...).
    where : its name in the error message, e.g. ``"params[3]['E']"``.
    by_value : write numpy arrays by value (dtype, shape and a nested list: for the case
        files) instead of by a digest of their bytes (for keys).

    Raises ModelError naming ``where`` for an object that can be neither described nor
    pickled.
    """
    import numpy as np

    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, int):                    # enum.IntEnum too: by name below
        return x if not isinstance(x, enum.Enum) else {"enum": _qualname(type(x)),
                                                          "name": x.name}
    if isinstance(x, float):
        # JSON writes NaN/inf as tokens Python reads back; -0.0 stays distinct from 0.0
        return x
    if isinstance(x, complex):
        return {"complex": [x.real, x.imag]}
    if isinstance(x, np.generic):
        return describe(x.item(), where, by_value=by_value, _seen=_seen)
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "O" or x.dtype.fields is not None:
            return {"ndarray": x.dtype.str, "shape": list(x.shape),
                    "items": [describe(v, f"{where}[{i}]", by_value=by_value, _seen=_seen)
                              for i, v in enumerate(x.ravel(order="C").tolist())]}
        if by_value:
            data = x.tolist()
            if x.dtype.kind == "c":
                data = {"real": x.real.tolist(), "imag": x.imag.tolist()}
            return {"ndarray": x.dtype.str, "shape": list(x.shape), "data": data}
        return {"ndarray": x.dtype.str, "shape": list(x.shape),
                "sha256": digest(np.ascontiguousarray(x).tobytes())}
    if isinstance(x, enum.Enum):
        return {"enum": _qualname(type(x)), "name": x.name}
    if isinstance(x, os.PathLike):
        return {"path": os.fspath(x)}
    if isinstance(x, (bytes, bytearray)):
        return {"bytes_sha256": digest(bytes(x))}
    seen = set() if _seen is None else _seen
    if isinstance(x, (list, tuple)):
        if id(x) in seen:
            raise ModelError(f"sweep: {where} contains itself; give plain data")
        seen.add(id(x))
        try:
            return [describe(v, f"{where}[{i}]", by_value=by_value, _seen=seen)
                    for i, v in enumerate(x)]
        finally:
            seen.discard(id(x))
    if isinstance(x, (set, frozenset)):
        items = [describe(v, f"{where} item", by_value=by_value, _seen=seen) for v in x]
        return {"set": sorted(items, key=lambda d: json.dumps(d, sort_keys=True))}
    if isinstance(x, Mapping):
        if id(x) in seen:
            raise ModelError(f"sweep: {where} contains itself; give plain data")
        seen.add(id(x))
        try:
            if all(isinstance(k, str) for k in x):
                return {k: describe(v, f"{where}[{k!r}]", by_value=by_value, _seen=seen)
                        for k, v in x.items()}
            pairs = [[describe(k, f"{where} key", by_value=by_value, _seen=seen),
                      describe(v, f"{where}[{k!r}]", by_value=by_value, _seen=seen)]
                     for k, v in x.items()]
            return {"dict": sorted(pairs, key=lambda d: json.dumps(d, sort_keys=True))}
        finally:
            seen.discard(id(x))
    if callable(x):
        return function_identity(x)
    try:
        blob = pickle.dumps(x, protocol=4)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same thing
        raise ModelError(
            f"sweep: {where} is a {type(x).__name__}, which can be neither described nor "
            f"pickled ({type(exc).__name__}: {exc}); a parameter or option must be a number, "
            "string, bool, None, numpy array, function, or a list/tuple/dict of these, or a "
            "picklable object (build other objects inside build_model from plain values)"
        ) from exc
    out = {"object": _qualname(type(x)), "sha256": digest(blob)}
    if by_value:
        out["repr"] = repr(x)[:200]
    return out


def _qualname(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__name__)}"


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names read by ``code`` and the code objects nested in it
    (comprehensions, inner functions)."""
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _names(c)
    return names


def _source(obj: Any) -> str | None:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return None


def function_identity(f: Any, _seen: set | None = None) -> dict:
    """``{"function": module.qualname, "code": digest}`` of a callable: its source (else its
    bytecode), defaults, closure values and the module-level names it reads (see the module
    docstring). A function reached again through a cycle counts by its name only."""
    seen = set() if _seen is None else _seen
    if isinstance(f, functools.partial):
        return {"partial": function_identity(f.func, seen),
                "args": _safe_describe(list(f.args), "partial args", seen),
                "keywords": _safe_describe(dict(f.keywords), "partial keywords", seen)}
    if inspect.ismethod(f):
        return {"method": function_identity(f.__func__, seen),
                "self": _safe_describe(f.__self__, "bound self", seen)}
    name = _qualname(f)
    if id(f) in seen:
        return {"function": name, "code": "(recursive)"}
    seen.add(id(f))
    if isinstance(f, type):
        src = _source(f)
        return {"class": name, "code": digest(src) if src is not None else None}
    code = getattr(f, "__code__", None)
    if code is None:
        call = getattr(type(f), "__call__", None)
        if getattr(call, "__code__", None) is not None:          # a callable object
            state = getattr(f, "__dict__", None)
            return {"callable": _qualname(type(f)), "call": function_identity(call, seen),
                    "state": _safe_describe(dict(state), "callable state", seen)
                    if state is not None else None}
        return {"function": name}                                  # a builtin: its name
    h = hashlib.sha256()
    src = _source(f)
    h.update(src.encode() if src is not None else marshal.dumps(code))
    parts = {"defaults": f.__defaults__, "kwdefaults": f.__kwdefaults__,
             "closure": [_cell(c) for c in (f.__closure__ or ())]}
    h.update(json.dumps(_safe_describe(parts, f"{name} defaults", seen),
                        sort_keys=True).encode())
    glb = getattr(f, "__globals__", {})
    for n in sorted(_names(code)):
        v = glb.get(n, _MISSING)
        if v is _MISSING or isinstance(v, types.ModuleType):
            continue
        if isinstance(v, (types.FunctionType, type)) and v.__module__ != f.__module__:
            d = {"ref": _qualname(v)}        # another module's code: by name (its version)
        elif callable(v):
            d = function_identity(v, seen)
        else:
            d = _safe_describe(v, f"{name}: global {n}", seen)
        h.update(json.dumps([n, d], sort_keys=True).encode())
    return {"function": name, "code": h.hexdigest()}


def _cell(c: Any) -> Any:
    try:
        return c.cell_contents
    except ValueError:                   # an empty cell (a name bound later)
        return None


def _safe_describe(x: Any, where: str, seen: set) -> Any:
    """:func:`describe` for what a function reads: an object that cannot be described counts
    by its type (that only makes a key change less often noticed for that object, never
    equal for different parameters)."""
    try:
        if callable(x) and not isinstance(x, type):
            return function_identity(x, seen)
        return describe(x, where, _seen=None)
    except (ModelError, RecursionError):
        return {"opaque": _qualname(type(x))}


def setup_identity(build_model: Any, run: Any, metrics: Any, options: Mapping,
                   run_params: tuple, version: str) -> dict:
    """What every case of a sweep shares and its result depends on (JSON-able)."""
    if metrics is None or callable(metrics):
        m = None if metrics is None else function_identity(metrics)
    else:
        m = {str(k): function_identity(f) for k, f in metrics.items()}
    return {"build_model": function_identity(build_model),
            "run": run if isinstance(run, str) else function_identity(run),
            "metrics": m,
            "options": {k: describe(v, f"options[{k!r}]") for k, v in options.items()},
            "run_params": sorted(run_params),
            "fembody": version}


def case_key(params_description: Any, setup: Mapping) -> str:
    """The case's file name: a digest of its described parameters and of the setup."""
    text = json.dumps({"params": params_description, "setup": setup}, sort_keys=True,
                      allow_nan=True)
    return digest(text)[:KEY_CHARS]


def differences(old: Mapping, new: Mapping) -> list[str]:
    """Readable differences between two setups (from ``study.json``): what made the cases be
    computed again."""
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k, _MISSING), new.get(k, _MISSING)
        if a == b:
            continue
        if k == "options" and isinstance(a, Mapping) and isinstance(b, Mapping):
            for o in sorted(set(a) | set(b)):
                x, y = a.get(o, "(unset)"), b.get(o, "(unset)")
                if x != y:
                    out.append(f"options[{o!r}]: {_short(x)} -> {_short(y)}")
        elif isinstance(a, Mapping) and isinstance(b, Mapping) and \
                a.get("function") == b.get("function") and "function" in a:
            out.append(f"{k}: the code of {a['function']} changed")
        else:
            out.append(f"{k}: {_short(a)} -> {_short(b)}")
    return out


def _short(x: Any) -> str:
    if x is _MISSING:
        return "(none)"
    if isinstance(x, Mapping) and "function" in x:
        return str(x["function"])
    text = json.dumps(x, sort_keys=True) if not isinstance(x, str) else repr(x)
    return text if len(text) <= 60 else text[:57] + "..."

