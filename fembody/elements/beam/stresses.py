"""Stresses of beam sections recovered from their section forces (resultants).

Engineering beam theory on each section: the normal stress ``sigma = N / A + My z / Iy - Mz
y / Iz`` and the torsional shear ``tau = T / Wt``. The largest normal stress is taken at the
extreme fibres ``(+-cy, +-cz)`` (:class:`fembody.Section` ``cy``, ``cz``): ``|N| / A + |My| cz
/ Iy + |Mz| cy / Iz``, exact for sections whose extreme fibres in y and z meet (rectangles,
boxes, I-sections' flange tips) and an upper bound for round ones (for which the exact
value is ``|N| / A + sqrt(My^2 + Mz^2) c / I``). Transverse shear stresses are left out (they
vanish at the extreme fibres).
"""
from __future__ import annotations

import numpy as np

from ...errors import ModelError

# the columns of section_stresses
STRESS_NAMES = ("sigma_N", "sigma_b", "sigma_max", "tau_T")


def section_data(sections, where: str) -> dict:
    """Per-element arrays ``A, Iy, Iz, cy, cz, Wt`` of a list of Sections; ModelError naming
    the first section without fibre distances or torsional modulus."""
    out = {k: [] for k in ("A", "Iy", "Iz", "cy", "cz", "Wt")}
    for i, sec in enumerate(sections):
        for k in out:
            v = getattr(sec, k, None)
            if v is None:
                raise ModelError(f"{where}: element {i}'s section '{sec.name}' has no {k}; "
                                 "stresses need the extreme fibre distances cy, cz and the "
                                 "torsional modulus Wt (Section.rectangle, circle and tube set "
                                 "them; give them to Section(...) otherwise)")
            out[k].append(float(v))
    return {k: np.array(v) for k, v in out.items()}


def section_stresses(resultants: np.ndarray, data: dict) -> np.ndarray:
    """``(..., n_el, 4)`` stresses [Pa] (:data:`STRESS_NAMES`: axial ``N / A``, largest
    bending ``|My| cz / Iy + |Mz| cy / Iz``, largest normal ``|N / A| + bending``, torsional
    shear ``|T| / Wt``) from spatial resultants ``(..., n_el, 6)`` (N, Vy, Vz, T, My, Mz) or
    planar ones ``(..., n_el, 3)`` (N, V, M; bending about z with ``Iz``, ``cy``)."""
    r = np.asarray(resultants, dtype=float)
    out = np.zeros(r.shape[:-1] + (4,))
    out[..., 0] = r[..., 0] / data["A"]
    if r.shape[-1] == 3:
        out[..., 1] = np.abs(r[..., 2]) * data["cy"] / data["Iz"]
    else:
        out[..., 1] = (np.abs(r[..., 4]) * data["cz"] / data["Iy"]
                       + np.abs(r[..., 5]) * data["cy"] / data["Iz"])
        out[..., 3] = np.abs(r[..., 3]) / data["Wt"]
    out[..., 2] = np.abs(out[..., 0]) + out[..., 1]
    return out
