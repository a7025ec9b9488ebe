"""Checks, step by step, that the motions prescribed by drivers are continuous.

A driver's row ``g(q) - f(t) = 0`` makes the integrator move the driven coordinate by
``f(t_{n+1}) - f(t_n)`` in one step, whatever that takes. When ``f`` jumps (a step function,
``0.2 if t > 0.1 else 0``), the jump is applied within one step: the velocities and
accelerations it implies grow as 1/h and 1/h^2, and the reported driving force or torque is
set by the step size, not by the model (a 7.7 N m arm reports 3.6e3 N m). No step size
resolves it; the motion has to be changed.

The test costs one evaluation of the motion per driver and step: the values at both ends of
an accepted step are read from the joint blocks' caches (the last Newton evaluation was at the
step's end), and the value at the step's middle is compared with their mean. A smooth motion
that the step resolves passes the middle within ``h^2 |f''| / 8`` of the mean, a small part of
its change over the step; a jump passes it at one end, half the change away. A step where the
middle is more than a quarter of the change away from the mean is examined by bisection: the
half with the larger change is kept down to a width of ``1e-6`` of the step. A continuous
motion changes by (nearly) nothing over that width; a jump keeps its whole size there. Steep
but continuous changes (a fast smooth ramp, a kink of the velocity) are therefore not
reported. (The rates cannot serve as the test: a plain function's rates come from central
differences, which straddle a jump near it and make it look like a steep slope.)
"""
from __future__ import annotations

import math

from ..errors import ModelError


def _value(motion, t: float) -> float:
    """The driven value f(t) of a planar Driver or a spatial RotationDriver/SlideDriver."""
    if hasattr(motion, "f"):                      # planar Driver (also the ``speed=`` form)
        return float(motion.f(t))
    return float(motion.motion(t))


class MotionWatch:
    """Raises ModelError when a driven motion jumps within an accepted step.

    ``system``: the compiled System whose joint blocks hold the drivers (their ``motions``
    and the per-time cache ``_f(t) -> (n, 3)`` of f, f', f''); ``t0``: the start time [s].
    """

    # a middle value this far (relative to the change) from the mean of the ends is bisected
    TRIGGER = 0.25
    # bisection down to this fraction of the step
    WIDTH = 1e-6

    def __init__(self, system, t0: float) -> None:
        self.items = []                  # (block, instance index, driver)
        for blk in getattr(system, "joint_blocks", ()):
            if not getattr(blk, "rheonomic", False):
                continue
            for i, mo in enumerate(blk.motions or ()):
                if mo is not None and self._moves(mo):
                    self.items.append((blk, i, mo))
        self.t = t0
        self.prev = self._sample(t0) if self.items else None

    @staticmethod
    def _moves(motion) -> bool:
        # a constant driver (a held angle) has nothing to check
        if getattr(motion, "speed", None) is not None:
            return True
        return callable(getattr(motion, "motion", None))

    def __bool__(self) -> bool:
        return bool(self.items)

    def _sample(self, t: float) -> list[float]:
        return [float(blk._f(t)[i][0]) for blk, i, _ in self.items]

    def accepted(self, t1: float) -> None:
        """Check the step from the last accepted time to ``t1`` [s]; raises ModelError naming
        the driver and the time of a jump."""
        t0 = self.t
        if not self.items or not t1 > t0:
            return
        now = self._sample(t1)
        h = t1 - t0
        for (blk, i, mo), f0, f1 in zip(self.items, self.prev, now):
            change = abs(f1 - f0)
            if change <= 1e-12 * (1.0 + abs(f0) + abs(f1)):
                continue
            if abs(_value(mo, t0 + 0.5 * h) - 0.5 * (f0 + f1)) <= self.TRIGGER * change:
                continue
            t_jump, size = self._bisect(mo, t0, t1, f0, f1, h)
            if size > 0.5 * change:
                unit = "rad" if _angular(mo) else "m"
                raise ModelError(
                    f"{mo.label}: the driven motion jumps by {f1 - f0:.4g} {unit} at "
                    f"t = {t_jump:.6g} s (between {t0:.6g} s and {t1:.6g} s): a jump of the "
                    "prescribed motion needs infinite velocity, and the force or torque the "
                    "driver reports would be set by the step size. Give a continuous motion, "
                    "e.g. a smooth ramp over a time that the steps resolve: "
                    "fb.functions.SmoothStep(t0, t1, v0, v1) (or Ramp, CubicSpline)")
        self.t, self.prev = t1, now

    def _bisect(self, motion, a: float, b: float, fa: float, fb: float, h: float
                ) -> tuple[float, float]:
        """Narrow [a, b] to the half with the larger change down to ``WIDTH h``; returns the
        midpoint of the last interval and the change of f across it."""
        for _ in range(int(math.ceil(math.log2(1.0 / self.WIDTH))) + 1):
            if b - a <= self.WIDTH * h:
                break
            m = 0.5 * (a + b)
            fm = _value(motion, m)
            if abs(fm - fa) >= abs(fb - fm):
                b, fb = m, fm
            else:
                a, fa = m, fm
        return 0.5 * (a + b), abs(fb - fa)


def _angular(motion) -> bool:
    kind = getattr(motion, "kind", "")
    if kind == "RotationDriver":
        return True
    return getattr(motion, "dof", "") in ("rz", "rx", "ry")
