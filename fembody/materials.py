"""Materials and cross-sections (SI units, validated at construction)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import ModelError


def check_number(value: float, what: str, strict: bool = True) -> float:
    """``value`` as a float that is finite and positive (``strict``) or non-negative; raise
    ModelError naming ``what`` otherwise."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(v) or (v <= 0.0 if strict else v < 0.0):
        rule = "positive and finite" if strict else ">= 0 and finite"
        raise ModelError(f"{what} must be {rule}, got {value!r}")
    return v


def _positive(name: str, value: float, owner: str) -> float:
    return check_number(value, f"{owner}: {name}")


@dataclass(frozen=True)
class Material:
    """Linear elastic isotropic material.

    Parameters
    ----------
    E : Young's modulus [Pa].
    rho : density [kg/m^3].
    nu : Poisson's ratio [-]; used to derive ``G`` when ``G`` is not given (default 0.3).
    G : shear modulus [Pa]; overrides ``nu``.
    name : label used in error messages.
    """

    E: float
    rho: float
    nu: float | None = None
    G: float | None = None
    name: str = "material"

    def __post_init__(self) -> None:
        owner = f"Material '{self.name}'"
        object.__setattr__(self, "E", _positive("E", self.E, owner))
        object.__setattr__(self, "rho", _positive("rho", self.rho, owner))
        if self.G is not None:
            object.__setattr__(self, "G", _positive("G", self.G, owner))
            if self.nu is None:
                object.__setattr__(self, "nu", self.E / (2.0 * self.G) - 1.0)
        else:
            nu = 0.3 if self.nu is None else float(self.nu)
            if not (-1.0 < nu < 0.5):
                raise ModelError(f"{owner}: nu must lie in (-1, 0.5), got {self.nu!r}")
            object.__setattr__(self, "nu", nu)
            object.__setattr__(self, "G", self.E / (2.0 * (1.0 + nu)))


@dataclass(frozen=True)
class Section:
    """Beam / bar cross-section.

    Parameters
    ----------
    A : area [m^2].
    I : second moment of area about the bending axis [m^4] (beams only; trusses ignore it).
    shear_factor : Timoshenko shear correction factor k [-], shear area = k A.
    """

    A: float
    I: float = 0.0
    shear_factor: float = 5.0 / 6.0
    name: str = "section"

    def __post_init__(self) -> None:
        owner = f"Section '{self.name}'"
        object.__setattr__(self, "A", _positive("A", self.A, owner))
        I = float(self.I)
        if not math.isfinite(I) or I < 0.0:
            raise ModelError(f"{owner}: I must be >= 0 and finite, got {self.I!r}")
        object.__setattr__(self, "I", I)
        object.__setattr__(self, "shear_factor", _positive("shear_factor", self.shear_factor, owner))

    @classmethod
    def rectangle(cls, b: float, h: float) -> "Section":
        """Solid rectangle of width ``b`` and height ``h`` [m] (bending in the h direction)."""
        b = _positive("b", b, "Section.rectangle")
        h = _positive("h", h, "Section.rectangle")
        return cls(A=b * h, I=b * h**3 / 12.0, shear_factor=5.0 / 6.0, name=f"rectangle {b}x{h}")

    @classmethod
    def circle(cls, d: float) -> "Section":
        """Solid circle of diameter ``d`` [m]; shear factor 0.9 (Cowper, nu ~ 0.3)."""
        d = _positive("d", d, "Section.circle")
        return cls(A=math.pi * d**2 / 4.0, I=math.pi * d**4 / 64.0, shear_factor=0.9,
                   name=f"circle d={d}")

    @classmethod
    def tube(cls, d: float, t: float) -> "Section":
        """Circular tube of outer diameter ``d`` and wall thickness ``t`` [m]; shear factor 0.53
        (thin-walled Cowper value, nu ~ 0.3)."""
        d = _positive("d", d, "Section.tube")
        t = _positive("t", t, "Section.tube")
        if 2.0 * t > d:
            raise ModelError(f"Section.tube: wall thickness t={t} exceeds the radius d/2={d / 2}")
        di = d - 2.0 * t
        return cls(A=math.pi * (d**2 - di**2) / 4.0, I=math.pi * (d**4 - di**4) / 64.0,
                   shear_factor=0.53, name=f"tube d={d} t={t}")
