"""Argument checks of the Model's builders (points, vectors, properties, element lengths), kept
apart from the Model so that its class stays one job: recording what the user builds."""
from __future__ import annotations

import math

import numpy as np

from ..errors import ModelError
from .materials import Material, Section, check_number
from ..space.dimension import dimension


def point(p: object, where: str, dim: int = 2) -> tuple[float, ...]:
    """A finite point of the model's dimension ``dim`` (2: (x, y); 3: (x, y, z)) [m]; planar
    models also take (x, y, 0)."""
    D = dimension(dim)
    names = D.point_hint
    _numbers_only(p, where, f"position {p!r} must be numbers {names} [m]")
    try:
        arr = np.asarray(p, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: position {p!r} is not a point {names} of numbers") from None
    if not D.spatial and arr.size == 3 and arr[2] != 0.0:
        raise ModelError(f"{where}: position {p!r} lies out of the x-y plane; this model is "
                         "planar (z must be 0): build a spatial model with fb.Model(dim=3)")
    if arr.size not in D.point_sizes:
        raise ModelError(f"{where}: position {p!r} must be {names}")
    if not np.all(np.isfinite(arr)):
        raise ModelError(f"{where}: position {p!r} has NaN or infinite coordinates")
    return tuple(float(v) for v in arr[:dim])


def _numbers_only(p: object, where: str, what: str) -> None:
    """Refuse strings and booleans where numbers are meant (float('1') would pass them)."""
    if isinstance(p, (str, bytes)) or any(isinstance(x, (str, bytes, bool, np.bool_))
                                          for x in np.ravel(np.asarray(p, dtype=object))):
        raise ModelError(f"{where}: {what}, not strings or booleans")


def vector(v: object, where: str, dim: int, nonzero: bool = False) -> np.ndarray:
    """A finite ``dim``-vector (a direction when ``nonzero``)."""
    _numbers_only(v, where, f"{v!r} must be {dim} numbers")
    try:
        arr = np.asarray(v, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: {v!r} is not a vector of {dim} numbers") from None
    if arr.size != dim or not np.all(np.isfinite(arr)):
        raise ModelError(f"{where}: expected a finite vector of {dim} numbers, got {v!r}")
    if nonzero and not np.any(arr):
        raise ModelError(f"{where}: the direction {v!r} is zero")
    return arr


def inertia_tensor(J: object, where: str) -> np.ndarray:
    """A 3x3 inertia tensor [kg m^2] from three principal values or a full symmetric matrix:
    symmetric, positive definite and obeying the triangle inequalities of the principal values
    (a physical body)."""
    try:
        arr = np.asarray(J, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: inertia {J!r} is not numeric") from None
    if arr.shape == (3,):
        arr = np.diag(arr)
    if arr.shape != (3, 3) or not np.all(np.isfinite(arr)):
        raise ModelError(f"{where}: inertia must be 3 principal values or a 3x3 matrix [kg m^2] "
                         f"about the centre of mass, got {J!r}")
    if not np.allclose(arr, arr.T, rtol=1e-12, atol=1e-14 * np.abs(arr).max()):
        raise ModelError(f"{where}: the inertia tensor is not symmetric")
    p = np.linalg.eigvalsh(arr)
    tol = 1e-9 * p.max()
    if p[0] <= 0.0 or p[0] + p[1] < p[2] - tol:
        raise ModelError(f"{where}: the principal inertias {np.round(p, 12).tolist()} are not "
                         "those of a body (all positive, each at most the sum of the others)")
    return arr


def mass_kind(mass: str, where: str) -> bool:
    """True for 'lumped', False for 'consistent'."""
    if mass not in ("consistent", "lumped"):
        raise ModelError(f"{where}: mass must be 'consistent' or 'lumped', got {mass!r}")
    return mass == "lumped"


def check_props(material: Material, section: Section, where: str, beam: bool,
                dim: int = 2) -> None:
    if not isinstance(material, Material):
        raise ModelError(f"{where}: material must be a fembody.Material, got {material!r}")
    if not isinstance(section, Section):
        raise ModelError(f"{where}: section must be a fembody.Section, got {section!r}")
    if beam and dimension(dim).spatial:
        section.beam3d(material)            # names Iy/Iz/J when missing
    elif beam and section.I <= 0.0:
        raise ModelError(f"{where}: a beam needs a positive second moment of area I; "
                         f"section '{section.name}' has I = {section.I}")


def check_length(a, b, what: str) -> None:
    d = math.sqrt((b.x - a.x) ** 2 + (b.y - a.y) ** 2 + (b.z - a.z) ** 2)
    if d <= 1e-12 * max(1.0, abs(a.x), abs(a.y), abs(a.z)):
        raise ModelError(f"{what}: zero length, {a} and {b} coincide; move one node or "
                         "remove the element")


def orientation(a, b, given: object, where: str, end: np.ndarray | None = None) -> np.ndarray:
    """The vector fixing a 3D beam's section axes (local y lies in the plane of the beam axis
    and this vector). Default: local z along the global Z made normal to the beam, so a beam in
    the x-y plane bends in that plane about local z as a planar beam does; for a beam along Z,
    the global Y. Refused when parallel to the beam axis. ``end``: the end point when ``b`` is
    not built yet."""
    pb = np.array([b.x, b.y, b.z]) if end is None else np.asarray(end, float)
    e1 = pb - np.array([a.x, a.y, a.z])
    e1 /= np.linalg.norm(e1)
    if given is None:
        z = np.array([0.0, 0.0, 1.0])
        if np.linalg.norm(np.cross(e1, z)) < 1e-8:
            return np.array([0.0, 1.0, 0.0])
        return np.cross(z, e1)
    v = vector(given, f"{where}: orientation", 3, nonzero=True)
    s = v / np.abs(v).max()             # (a tiny vector's products would underflow)
    if np.linalg.norm(np.cross(e1, s / np.linalg.norm(s))) < 1e-6:
        raise ModelError(f"{where}: orientation {tuple(v)} is parallel to the beam axis "
                         f"{tuple(np.round(e1, 6))}; give a vector in the plane of the local "
                         "x-y axes (e.g. the direction of the section's local y)")
    return s        # scaled: the section frames normalise cross products with it


def positive(value: float, what: str) -> float:
    return check_number(value, what, strict=True)


def nonnegative(value: float, what: str) -> float:
    return check_number(value, what, strict=False)
