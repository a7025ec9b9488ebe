"""The iteration matrix assembled straight into the envelope's rows (issue 17, item 3).

Why: on the CSC path a Newton iteration writes the tangent into the K pattern's data (both
triangles, 7.2 MB for a 1e5-DOF beam chain), and the envelope factorisation then scatters
those values into its own rows (reading 7.2 MB of values and a 3.6 MB map). When one compiled
element pass fills the whole matrix, its scatter map can point into the envelope's layout
instead: the pass writes the lower triangle there (4 MB) and the factorisation copies each row
as it reaches it, leaving the assembled values intact (for checkpoints and diagnoses, read
back on the K pattern by :meth:`EnvelopeLDL.values_to_csc`). The sums are the same, in the
same order, so the factor is bit for bit the CSC path's.

It applies when the System's tangent is that one pass: a single stiffness block with a
compiled pass that also adds the element masses (``fused_mass``), no other mass, no Rayleigh
damping, no load or constraint stiffness (no joints, no turning loads, no offset masses), the
additive planar space. Otherwise :func:`assembly_target` returns None and the CSC path runs.
"""
from __future__ import annotations

import numpy as np

from ..patterns import AssemblyTarget
from .envelope import EnvelopeLDL, pattern_plan, same_pattern


def assembly_target(system, env: EnvelopeLDL, inertia: bool = True) -> AssemblyTarget | None:
    """An :class:`~fembody.patterns.AssemblyTarget` in ``env``'s layout for ``system``'s
    tangent (``inertia``: with the element masses of an implicit integrator's iteration
    matrix), or None when the tangent is not one compiled pass (module docstring)."""
    s = system
    blocks = s.stiffness_blocks
    lead = blocks[0] if len(blocks) == 1 else None
    if (lead is None or s.n_con
            or not getattr(lead, "fuses_mass", False) or not s.space.additive
            or s.turning_loads or s.varying_mass or s.rayleigh[0] > 0.0
            or (inertia and (id(lead) not in s.fused_mass or s.M_rest_pos.size
                             or s.nonlinear_inertia))
            or env.env.shape[0] >= 2**31 - 1        # (the compiled pass's maps are int32)
            or not same_pattern(env.pattern, (s.indptr, s.indices))):
        return None
    raw = s.scatter[id(lead)].pos
    # the maps are the pattern's (kept with its envelope plan while the System lives: 20-30
    # ms at 1e5 DOFs, once, not at every run)
    plan = pattern_plan(*env.pattern, env.n)
    cached = plan.get("target")
    if cached is None or cached[0] is not raw or cached[1] is not env.dst:
        csc = raw.reshape(-1).astype(np.int64)
        size = env.env.shape[0]
        # the lower triangle's slots; the upper triangle's entries (their mirrors' values, as
        # the element matrices are symmetric) and the fixed DOFs' are skipped
        slot = np.where(csc >= 0, env.dst[np.maximum(csc, 0)], -1)
        pos = np.where(slot == size - 1, -1, slot).astype(np.int32)
        cached = plan["target"] = (raw, env.dst, pos.reshape(raw.shape))
    return AssemblyTarget(np.empty(env.env.shape[0]), id(lead), cached[2], env)
