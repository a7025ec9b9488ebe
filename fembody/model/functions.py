"""Time functions with exact derivatives and integrals, for loads and drivers.

Every function ``f`` here is called as ``f(t)`` (``t`` in s) and also gives
``f.derivative(t, 1)``, ``f.derivative(t, 2)`` (exact, so a :class:`fembody.Driver` takes its
velocity and acceleration from them instead of finite differences) and ``f.integral(t)``
(the integral from 0 to ``t``, so a speed drive gives the angle exactly). Functions combine:
``2.0 * f``, ``f + g``, ``f * g`` (product rule), ``-f``; ``f * (0.0, -10.0)`` is a vector
valued function for ``add_force``.

- :class:`Constant`        c
- :class:`Ramp`            linear from ``v0`` at ``t0`` to ``v1`` at ``t1``, then held (or
                           unbounded with ``rate=``: a constant speed)
- :class:`SmoothStep`      from ``v0`` at ``t0`` to ``v1`` at ``t1`` by a cubic (C1) or quintic
                           (C2) polynomial
- :class:`Harmonic`        ``amplitude sin(2 pi frequency t + phase) + offset``
- :class:`PiecewiseLinear` linear interpolation of data (held constant outside)
- :class:`CubicSpline`     a C2 cubic spline through data (scipy), held constant outside
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..errors import ModelError

__all__ = ["TimeFunction", "Constant", "Ramp", "SmoothStep", "Harmonic", "PiecewiseLinear",
           "CubicSpline", "derivatives"]


def _finite(value, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ModelError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ModelError(f"{what} must be finite, got {value!r}")
    return v


class TimeFunction:
    """Base class: subclasses implement ``evaluate(t, order)`` for order -1 (the integral
    from 0 to ``t``), 0 (the value), 1 and 2 (time derivatives)."""

    def evaluate(self, t: float, order: int):  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, t: float):
        return self.evaluate(float(t), 0)

    def derivative(self, t: float, order: int = 1):
        """The ``order``-th time derivative (1 or 2) at ``t`` [unit/s^order]."""
        if order not in (0, 1, 2):
            raise ModelError(f"{self!r}.derivative: order must be 0, 1 or 2, got {order!r}")
        return self.evaluate(float(t), order)

    def integral(self, t: float):
        """The integral from 0 to ``t`` [unit s]."""
        return self.evaluate(float(t), -1)

    # arithmetic -----------------------------------------------------------
    def __mul__(self, other):
        if isinstance(other, TimeFunction):
            return _Product(self, other)
        return _Scaled(self, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return _Scaled(self, 1.0 / _finite(other, "TimeFunction / c: c"))

    def __neg__(self):
        return _Scaled(self, -1.0)

    def __add__(self, other):
        if not isinstance(other, TimeFunction):
            other = Constant(other)
        return _Sum(self, other)

    __radd__ = __add__

    def __sub__(self, other):
        return self + (-other if isinstance(other, TimeFunction) else -_finite(other, "f - c"))

    def __rsub__(self, other):
        return (-self) + other


class Constant(TimeFunction):
    """The constant ``value`` (a number)."""

    def __init__(self, value: float) -> None:
        self.value = _finite(value, "Constant: value")

    def evaluate(self, t, order):
        return {-1: self.value * t, 0: self.value}.get(order, 0.0)

    def __repr__(self):
        return f"Constant({self.value:g})"


class Ramp(TimeFunction):
    """``v0`` until ``t0`` [s], linear to ``v1`` at ``t1`` [s], then held at ``v1`` (the same
    arguments as :class:`SmoothStep`); with ``rate`` instead of ``t1``/``v1``: the unbounded
    ``v0 + rate (t - t0)`` after ``t0`` (a constant speed). The second derivative is 0 (the
    kinks at ``t0``/``t1`` are jumps of the rate)."""

    def __init__(self, t0: float = 0.0, t1: float = 1.0, v0: float = 0.0, v1: float = 1.0, *,
                 rate: float | None = None) -> None:
        self.t0 = _finite(t0, "Ramp: t0")
        self.v0 = _finite(v0, "Ramp: v0")
        if rate is not None:
            self.rate, self.t1 = _finite(rate, "Ramp: rate"), math.inf
        else:
            self.t1 = _finite(t1, "Ramp: t1")
            if self.t1 <= self.t0:
                raise ModelError(f"Ramp: t1 = {t1!r} must be after t0 = {t0!r}")
            self.rate = (_finite(v1, "Ramp: v1") - self.v0) / (self.t1 - self.t0)

    def _prim(self, t):  # integral from t0 of (f - v0), 0 before t0
        if t <= self.t0:
            return 0.0
        s = min(t, self.t1) - self.t0
        return 0.5 * self.rate * s * s + self.rate * s * max(t - self.t1, 0.0)

    def evaluate(self, t, order):
        if order == -1:
            return self.v0 * t + self._prim(t) - self._prim(0.0)
        if order == 0:
            return self.v0 + self.rate * (min(max(t, self.t0), self.t1) - self.t0)
        if order == 1:
            return self.rate if self.t0 <= t < self.t1 else 0.0
        return 0.0

    def __repr__(self):
        return f"Ramp(t0={self.t0:g}, t1={self.t1:g}, v0={self.v0:g}, rate={self.rate:g})"


class SmoothStep(TimeFunction):
    """From ``v0`` (until ``t0`` [s]) to ``v1`` (from ``t1`` on) by the cubic ``3s^2 - 2s^3``
    (``order=3``: zero rate at both ends) or the quintic ``10s^3 - 15s^4 + 6s^5`` (``order=5``,
    default: zero rate and acceleration at both ends), ``s = (t - t0)/(t1 - t0)``."""

    _POLY = {3: np.array([0.0, 0.0, 3.0, -2.0]),
             5: np.array([0.0, 0.0, 0.0, 10.0, -15.0, 6.0])}

    def __init__(self, t0: float = 0.0, t1: float = 1.0, v0: float = 0.0, v1: float = 1.0,
                 order: int = 5) -> None:
        self.t0, self.t1 = _finite(t0, "SmoothStep: t0"), _finite(t1, "SmoothStep: t1")
        if self.t1 <= self.t0:
            raise ModelError(f"SmoothStep: t1 = {t1!r} must be after t0 = {t0!r}")
        if order not in self._POLY:
            raise ModelError(f"SmoothStep: order must be 3 (cubic) or 5 (quintic), got {order!r}")
        self.v0, self.v1 = _finite(v0, "SmoothStep: v0"), _finite(v1, "SmoothStep: v1")
        self.order = order
        p = np.polynomial.Polynomial(self._POLY[order])
        self._p = [p.integ(), p, p.deriv(), p.deriv(2)]

    def _prim(self, t):  # integral from t0 of (f - v0)
        T = self.t1 - self.t0
        d = self.v1 - self.v0
        if t <= self.t0:
            return 0.0
        s = min(t, self.t1) - self.t0
        return d * T * self._p[0](s / T) + d * max(t - self.t1, 0.0)

    def evaluate(self, t, order):
        if order == -1:
            return self.v0 * t + self._prim(t) - self._prim(0.0)
        T = self.t1 - self.t0
        if t <= self.t0 or t >= self.t1:
            if order == 0:
                return self.v0 if t <= self.t0 else self.v1
            return 0.0
        s = (t - self.t0) / T
        val = (self.v1 - self.v0) * self._p[order + 1](s) / T**order
        return self.v0 + val if order == 0 else val

    def __repr__(self):
        return f"SmoothStep({self.t0:g}, {self.t1:g}, {self.v0:g}, {self.v1:g}, order={self.order})"


class Harmonic(TimeFunction):
    """``amplitude sin(2 pi frequency t + phase) + offset``; ``frequency`` [Hz] (or ``omega``
    [rad/s]), ``phase`` [rad]."""

    def __init__(self, amplitude: float = 1.0, frequency: float | None = None, phase: float = 0.0,
                 offset: float = 0.0, *, omega: float | None = None) -> None:
        if (frequency is None) == (omega is None):
            raise ModelError("Harmonic: give exactly one of frequency [Hz] and omega [rad/s]")
        self.omega = (_finite(omega, "Harmonic: omega") if omega is not None else
                      2.0 * math.pi * _finite(frequency, "Harmonic: frequency"))
        if self.omega == 0.0:
            raise ModelError("Harmonic: the frequency must not be zero (use Constant)")
        self.A = _finite(amplitude, "Harmonic: amplitude")
        self.phase = _finite(phase, "Harmonic: phase")
        self.offset = _finite(offset, "Harmonic: offset")

    def evaluate(self, t, order):
        w, A, p = self.omega, self.A, self.phase
        if order == -1:
            return self.offset * t - A / w * (math.cos(w * t + p) - math.cos(p))
        if order == 0:
            return A * math.sin(w * t + p) + self.offset
        if order == 1:
            return A * w * math.cos(w * t + p)
        return -A * w * w * math.sin(w * t + p)

    def __repr__(self):
        return f"Harmonic({self.A:g}, omega={self.omega:g}, phase={self.phase:g})"


def _data(times, values, where: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        t = np.asarray(times, dtype=float).reshape(-1)
        v = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise ModelError(f"{where}: times and values must be numbers") from None
    if t.size != v.size or t.size < 2:
        raise ModelError(f"{where}: need as many times as values, at least 2 (got {t.size} "
                         f"times, {v.size} values)")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
        raise ModelError(f"{where}: times and values must be finite")
    if np.any(np.diff(t) <= 0.0):
        i = int(np.flatnonzero(np.diff(t) <= 0.0)[0])
        raise ModelError(f"{where}: times must increase strictly (times[{i}] = {t[i]:g}, "
                         f"times[{i + 1}] = {t[i + 1]:g})")
    return t, v


class _PolySegments(TimeFunction):
    """Held constant before the first and after the last time; scipy PPoly inside."""

    def _setup(self, pp) -> None:
        self._pp = [pp.antiderivative(), pp, pp.derivative(), pp.derivative(2)]
        t = self._t
        self._held = (float(pp(t[0])), float(pp(t[-1])))

    def _prim(self, t):  # integral from t[0] (held values outside)
        t0, t1 = self._t[0], self._t[-1]
        a = self._pp[0]
        if t <= t0:
            return self._held[0] * (t - t0)
        if t >= t1:
            return float(a(t1) - a(t0)) + self._held[1] * (t - t1)
        return float(a(t) - a(t0))

    def evaluate(self, t, order):
        if order == -1:
            return self._prim(t) - self._prim(0.0)
        t0, t1 = self._t[0], self._t[-1]
        if t < t0 or t > t1:
            return self._held[0 if t < t0 else 1] if order == 0 else 0.0
        return float(self._pp[order + 1](t))


class PiecewiseLinear(_PolySegments):
    """Linear interpolation of ``values`` at ``times`` [s] (strictly increasing), held at the end
    values outside; the rate is piecewise constant, the second derivative 0."""

    def __init__(self, times: Sequence[float], values: Sequence[float]) -> None:
        from scipy.interpolate import PPoly
        self._t, v = _data(times, values, "PiecewiseLinear")
        c = np.vstack([np.diff(v) / np.diff(self._t), v[:-1]])
        self._setup(PPoly(c, self._t))

    def __repr__(self):
        return f"PiecewiseLinear({len(self._t)} points)"


class CubicSpline(_PolySegments):
    """A C2 cubic spline through ``values`` at ``times`` [s] (scipy's ``CubicSpline``;
    ``bc_type`` 'not-a-knot' (default), 'natural' or 'clamped'), held at the end values
    outside (with 'clamped' the held ends join with zero rate)."""

    def __init__(self, times: Sequence[float], values: Sequence[float],
                 bc_type: str = "not-a-knot") -> None:
        from scipy.interpolate import CubicSpline as _Spline
        if bc_type not in ("not-a-knot", "natural", "clamped"):
            raise ModelError(f"CubicSpline: bc_type must be 'not-a-knot', 'natural' or "
                             f"'clamped', got {bc_type!r}")
        self._t, v = _data(times, values, "CubicSpline")
        self._setup(_Spline(self._t, v, bc_type=bc_type))

    def __repr__(self):
        return f"CubicSpline({len(self._t)} points)"


class _Scaled(TimeFunction):
    def __init__(self, f: TimeFunction, c) -> None:
        arr = np.asarray(c, dtype=float)
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"TimeFunction * c: c must be finite numbers, got {c!r}")
        self.f, self.c = f, (float(arr) if arr.ndim == 0 else arr)

    def evaluate(self, t, order):
        return self.c * self.f.evaluate(t, order)

    def __repr__(self):
        return f"{self.c!r} * {self.f!r}"


class _Sum(TimeFunction):
    def __init__(self, f: TimeFunction, g: TimeFunction) -> None:
        self.f, self.g = f, g

    def evaluate(self, t, order):
        return self.f.evaluate(t, order) + self.g.evaluate(t, order)

    def __repr__(self):
        return f"({self.f!r} + {self.g!r})"


class _Product(TimeFunction):
    def __init__(self, f: TimeFunction, g: TimeFunction) -> None:
        self.f, self.g = f, g

    def evaluate(self, t, order):
        f, g = self.f.evaluate, self.g.evaluate
        if order == 0:
            return f(t, 0) * g(t, 0)
        if order == 1:
            return f(t, 1) * g(t, 0) + f(t, 0) * g(t, 1)
        if order == 2:
            return f(t, 2) * g(t, 0) + 2.0 * f(t, 1) * g(t, 1) + f(t, 0) * g(t, 2)
        from scipy.integrate import quad
        val, _ = quad(lambda s: f(s, 0) * g(s, 0), 0.0, t, epsabs=0.0, epsrel=1e-12, limit=200)
        return val

    def __repr__(self):
        return f"({self.f!r} * {self.g!r})"


def derivatives(f, t: float) -> tuple[float, float, float]:
    """(f, f', f'') of a scalar motion at ``t``: exact for a :class:`TimeFunction`, zero rates
    for a constant, fourth-order central differences (step 1e-3 max(1, |t|)) for another
    callable."""
    if isinstance(f, TimeFunction):
        return float(f.evaluate(t, 0)), float(f.evaluate(t, 1)), float(f.evaluate(t, 2))
    if not callable(f):
        return float(f), 0.0, 0.0
    h = 1e-3 * max(1.0, abs(t))
    f0 = float(f(t))
    fm2, fm1, fp1, fp2 = (float(f(t + k * h)) for k in (-2, -1, 1, 2))
    return (f0, (fm2 - 8 * fm1 + 8 * fp1 - fp2) / (12 * h),
            (-fm2 + 16 * fm1 - 30 * f0 + 16 * fp1 - fp2) / (12 * h * h))


def integral(f, t: float) -> float:
    """The integral of a scalar function from 0 to ``t``: exact for a :class:`TimeFunction`,
    ``c t`` for a constant, adaptive quadrature (scipy ``quad``, relative 1e-12) otherwise."""
    if isinstance(f, TimeFunction):
        return float(f.evaluate(t, -1))
    if not callable(f):
        return float(f) * t
    from scipy.integrate import quad
    val, _ = quad(lambda s: float(f(s)), 0.0, t, epsabs=0.0, epsrel=1e-12, limit=200)
    return float(val)
