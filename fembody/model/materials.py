"""Materials and cross-sections (SI units, validated at construction)."""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from .. import validate
from ..errors import ModelError


def check_number(value: float, what: str, strict: bool = True) -> float:
    """``value`` as a float that is finite and positive (``strict``) or non-negative; raise
    ModelError naming ``what`` otherwise."""
    rule = "positive and finite" if strict else ">= 0 and finite"
    if isinstance(value, numbers.Real) and not isinstance(value, bool) \
            and not math.isfinite(float(value)):
        raise ModelError(f"{what} must be {rule}, got {value!r}")
    v = validate.number(what, value)         # the shared layer: strings, bools, non-numbers
    if v <= 0.0 if strict else v < 0.0:
        raise ModelError(f"{what} must be {rule}, got {value!r}")
    return v


def _positive(name: str, value: float, owner: str) -> float:
    return check_number(value, f"{owner}: {name}")


@dataclass(frozen=True)
class Material:
    """Linear elastic isotropic material.

    Parameters
    ----------
    E : float
        Young's modulus [Pa].
    rho : float
        Density [kg/m^3].
    nu : float, optional
        Poisson's ratio [-]; used to derive ``G`` when ``G`` is not given (default 0.3).
    G : float, optional
        Shear modulus [Pa]; overrides ``nu``.
    name : str, default 'material'
        Label used in error messages.
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
            nu = 0.3 if self.nu is None else validate.number("nu", self.nu, where=owner)
            if not (-1.0 < nu < 0.5):
                raise ModelError(f"{owner}: nu must lie in (-1, 0.5), got {self.nu!r}")
            object.__setattr__(self, "nu", nu)
            object.__setattr__(self, "G", self.E / (2.0 * (1.0 + nu)))


def _fourth_powers(where: str, *sizes: float) -> None:
    """ModelError when a section's second moments (fourth powers of its sizes [m]) overflow
    or vanish in floating point: not a cross-section a beam can be computed with."""
    for v in sizes:
        if not (1e-75 < v < 1e75):
            raise ModelError(f"{where}: the size {v!r} m gives second moments of area that "
                             "overflow or vanish in floating point; give the sizes in metres")


def _optional(value, what: str) -> float | None:
    """None (not given) or a positive finite number: a second moment or torsion constant of
    zero would make a spatial beam's bending or torsion stiffness vanish."""
    return None if value is None else check_number(value, what)


def rectangle_torsion(b: float, h: float, terms: int = 50) -> float:
    """Saint-Venant torsion constant ``J`` [m^4] of a solid ``b x h`` rectangle by the exact series
    (Timoshenko & Goodier, Theory of Elasticity, sec. 109), with ``a = max(b, h)``,
    ``t = min(b, h)``:
    ``J = a t^3 / 3 (1 - 192 t / (pi^5 a) sum_{n odd} tanh(n pi a / (2 t)) / n^5)``.
    ``terms`` odd terms leave a truncation error below ``(2 terms)^-4 ~ 1e-8`` relative."""
    a, t = max(b, h), min(b, h)
    s = sum(math.tanh(n * math.pi * a / (2.0 * t)) / n**5 for n in range(1, 2 * terms, 2))
    return a * t**3 / 3.0 * (1.0 - 192.0 * t / (math.pi**5 * a) * s)


@dataclass(frozen=True)
class SectionStiffness:
    """Cross-section data given directly as stiffnesses and inertias per unit length, as
    benchmark and industry data (e.g. blade properties) come; see :meth:`Section.from_stiffness`.

    ``EA, GA_y, GA_z`` [N] (shear stiffnesses include the shear factors), ``GJ, EI_y, EI_z``
    [N m^2], ``rhoA`` [kg/m], ``rhoJ, rhoI_y, rhoI_z`` [kg m] (rotary inertia per length about the
    beam axis and the local y and z axes).
    """

    EA: float
    GA_y: float
    GA_z: float
    GJ: float
    EI_y: float
    EI_z: float
    rhoA: float
    rhoJ: float
    rhoI_y: float
    rhoI_z: float


def rectangle_torsion_shear(b: float, h: float, terms: int = 50) -> float:
    """The largest torsional shear stress of a solid ``b x h`` rectangle per unit twist
    stiffness, ``tau_max / (G theta')`` [m] (at the middle of the long sides), by the exact
    series (Timoshenko & Goodier, sec. 109): ``t (1 - 8 / pi^2 sum_{n odd} 1 / (n^2 cosh(n
    pi a / (2 t))))`` with ``a = max(b, h)``, ``t = min(b, h)``; so ``tau_max = T t_eff / J``
    (a square: ``T / (0.208 t^3)``)."""
    a, t = max(b, h), min(b, h)
    # (a term whose cosh would overflow is below 1e-300: left out)
    s = sum(1.0 / (n * n * math.cosh(x)) for n in range(1, 2 * terms, 2)
            if (x := n * math.pi * a / (2.0 * t)) < 700.0)
    return t * (1.0 - 8.0 / math.pi**2 * s)


@dataclass(frozen=True)
class Section:
    """Beam / bar cross-section (local axes: x along the member, y and z in the section).

    Parameters
    ----------
    A : float
        Area [m^2].
    I : float, default 0.0
        Second moment of area about the in-plane bending axis [m^4] (planar beams; trusses
        ignore it). In 3D this is ``Iz`` (bending in the local x-y plane) unless ``Iz`` is given.
    shear_factor : float, default 5/6
        Timoshenko shear correction factor k [-], shear area = k A (planar beams).
    name : str, default 'section'
        Label used in error messages.
    Iy, Iz : float, optional
        Second moments about the local y and z axes [m^4] (3D beams). ``Iz`` defaults to
        ``I``; if only ``Iz`` is given, ``I`` takes its value. ``Iy`` has no default.
    J : float, optional
        Saint-Venant torsion constant [m^4] (3D beams; not the polar moment unless circular).
    ky, kz : float, optional
        Shear factors for shear along local y and z [-]; default ``shear_factor``.
    stiffness : SectionStiffness, optional
        From :meth:`from_stiffness`; when set, the 3D beam takes its stiffnesses and inertias
        from here and ignores the material.
    cy, cz : float, optional
        Distances [m] of the extreme fibres from the centroid along local y and z, for
        stresses recovered from the section forces (set by :meth:`rectangle`, :meth:`circle`,
        :meth:`tube`).
    Wt : float, optional
        Torsional section modulus [m^3]: the largest torsional shear stress is ``T / Wt``
        (set by the same constructors).
    """

    A: float
    I: float = 0.0
    shear_factor: float = 5.0 / 6.0
    name: str = "section"
    Iy: float | None = None
    Iz: float | None = None
    J: float | None = None
    ky: float | None = None
    kz: float | None = None
    stiffness: SectionStiffness | None = None
    cy: float | None = None
    cz: float | None = None
    Wt: float | None = None

    def __post_init__(self) -> None:
        owner = f"Section '{self.name}'"
        object.__setattr__(self, "A", _positive("A", self.A, owner))
        I = check_number(self.I, f"{owner}: I", strict=False)
        if not math.isfinite(I) or I < 0.0:
            raise ModelError(f"{owner}: I must be >= 0 and finite, got {self.I!r}")
        object.__setattr__(self, "shear_factor", _positive("shear_factor", self.shear_factor, owner))
        for key in ("Iy", "Iz", "J", "cy", "cz", "Wt"):
            object.__setattr__(self, key, _optional(getattr(self, key), f"{owner}: {key}"))
        for key in ("ky", "kz"):
            v = getattr(self, key)
            object.__setattr__(self, key, self.shear_factor if v is None
                               else _positive(key, v, owner))
        if self.Iz is None:
            object.__setattr__(self, "Iz", I)
        elif I == 0.0:
            I = self.Iz
        object.__setattr__(self, "I", I)

    def beam3d(self, material: "Material | None" = None) -> SectionStiffness:
        """Stiffnesses and inertias per length for a 3D beam: :attr:`stiffness` if set, else from
        ``material`` (``EA, k_y G A, k_z G A, G J, E I_y, E I_z, rho A, rho (I_y + I_z), rho I_y,
        rho I_z``). Raises ModelError naming what is missing."""
        if self.stiffness is not None:
            return self.stiffness
        owner = f"Section '{self.name}'"
        if material is None:
            raise ModelError(f"{owner}: a 3D beam needs a Material (or use "
                             "Section.from_stiffness(...))")
        missing = [k for k in ("Iy", "J") if getattr(self, k) is None]
        if missing or self.Iz == 0.0:
            missing += ["Iz"] if self.Iz == 0.0 else []
            raise ModelError(f"{owner}: a 3D beam needs {', '.join(missing)} > 0; give them "
                             "(Section(A=..., Iy=..., Iz=..., J=...)) or use rectangle/circle/tube")
        E, G, rho = material.E, material.G, material.rho
        return SectionStiffness(EA=E * self.A, GA_y=self.ky * G * self.A,
                                GA_z=self.kz * G * self.A, GJ=G * self.J, EI_y=E * self.Iy,
                                EI_z=E * self.Iz, rhoA=rho * self.A,
                                rhoJ=rho * (self.Iy + self.Iz), rhoI_y=rho * self.Iy,
                                rhoI_z=rho * self.Iz)

    @classmethod
    def from_stiffness(cls, EA: float, GA_y: float, GA_z: float, GJ: float, EI_y: float,
                       EI_z: float, rhoA: float, rhoJ: float, rhoI_y: float | None = None,
                       rhoI_z: float | None = None, name: str = "stiffness section"
                       ) -> "Section":
        """A section given by its stiffnesses [N, N m^2] and inertias per length [kg/m, kg m].

        The beam then ignores the material's E, G and rho (pass any Material). ``rhoI_y`` and
        ``rhoI_z`` default to ``rhoJ / 2`` each (a section with equal principal inertias); give them
        for other sections. Geometric fields are placeholders with the same ratios: ``A = 1``,
        ``I = Iz = EI_z / EA``, ``Iy = EI_y / EA``, ``J = GJ / EA`` (so that planar use,
        plotting and ``I``-based checks still see a consistent section)."""
        owner = f"Section.from_stiffness ({name})"
        vals = {k: check_number(v, f"{owner}: {k}") for k, v in
                dict(EA=EA, GA_y=GA_y, GA_z=GA_z, GJ=GJ, EI_y=EI_y, EI_z=EI_z).items()}
        for k, v in dict(rhoA=rhoA, rhoJ=rhoJ).items():
            vals[k] = check_number(v, f"{owner}: {k}", strict=False)
        for k, v in dict(rhoI_y=rhoI_y, rhoI_z=rhoI_z).items():
            vals[k] = 0.5 * vals["rhoJ"] if v is None else check_number(v, f"{owner}: {k}",
                                                                        strict=False)
        st = SectionStiffness(**vals)
        ea = vals["EA"]
        return cls(A=1.0, I=vals["EI_z"] / ea, Iy=vals["EI_y"] / ea, J=vals["GJ"] / ea,
                   name=name, stiffness=st)

    @classmethod
    def rectangle(cls, b: float, h: float) -> "Section":
        """Solid rectangle of width ``b`` (local z) and height ``h`` (local y) [m]; planar bending
        in the h direction. ``Iz = b h^3/12``, ``Iy = h b^3/12``, ``J`` by the exact series
        (:func:`rectangle_torsion`), shear factors 5/6."""
        b = _positive("b", b, "Section.rectangle")
        h = _positive("h", h, "Section.rectangle")
        _fourth_powers("Section.rectangle", b, h)
        J = rectangle_torsion(b, h)
        return cls(A=b * h, I=b * h**3 / 12.0, shear_factor=5.0 / 6.0, name=f"rectangle {b}x{h}",
                   Iy=h * b**3 / 12.0, J=J, cy=h / 2.0, cz=b / 2.0,
                   Wt=J / rectangle_torsion_shear(b, h))

    @classmethod
    def circle(cls, d: float) -> "Section":
        """Solid circle of diameter ``d`` [m]; shear factor 0.9 (Cowper, nu ~ 0.3);
        ``J = pi d^4 / 32``."""
        d = _positive("d", d, "Section.circle")
        _fourth_powers("Section.circle", d)
        I = math.pi * d**4 / 64.0
        return cls(A=math.pi * d**2 / 4.0, I=I, shear_factor=0.9, name=f"circle d={d}", Iy=I,
                   J=2.0 * I, cy=d / 2.0, cz=d / 2.0, Wt=4.0 * I / d)

    @classmethod
    def tube(cls, d: float, t: float) -> "Section":
        """Circular tube of outer diameter ``d`` and wall thickness ``t`` [m]; shear factor 0.53
        (thin-walled Cowper value, nu ~ 0.3); ``J = pi (d^4 - d_i^4) / 32``."""
        d = _positive("d", d, "Section.tube")
        t = _positive("t", t, "Section.tube")
        _fourth_powers("Section.tube", d, t)
        if 2.0 * t > d:
            raise ModelError(f"Section.tube: wall thickness t={t} exceeds the radius d/2={d / 2}")
        di = d - 2.0 * t
        I = math.pi * (d**4 - di**4) / 64.0
        return cls(A=math.pi * (d**2 - di**2) / 4.0, I=I, shear_factor=0.53,
                   name=f"tube d={d} t={t}", Iy=I, J=2.0 * I, cy=d / 2.0, cz=d / 2.0,
                   Wt=4.0 * I / d)
