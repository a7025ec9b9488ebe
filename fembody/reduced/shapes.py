"""Assumed-mode shape functions of a beam on [0, l] and the integrals a modal model needs.

The clamped-free cantilever modes are written in an overflow- and cancellation-free form: the
textbook ``cosh - cos - sigma (sinh - sin)`` loses ~``exp(beta l) * eps`` (1e-3 relative at the
tenth mode) because ``cosh`` and ``sigma sinh`` nearly cancel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from ..errors import ModelError

MAX_CLAMPED_MODES = 30


def clamped_roots(n: int) -> np.ndarray:
    """The first ``n`` roots beta_i l of 1 + cos(x) cosh(x) = 0 (1.8751, 4.6941, 7.8548, ...)."""
    if not (isinstance(n, (int, np.integer)) and 1 <= n <= MAX_CLAMPED_MODES):
        raise ModelError(f"clamped modes: n must be an integer in 1..{MAX_CLAMPED_MODES}, got {n!r}")
    # written as cos(x) + 1/cosh(x) = 0 so the function stays O(1) for large x
    f = lambda x: math.cos(x) + 1.0 / math.cosh(x)  # noqa: E731
    out = []
    for i in range(1, n + 1):
        guess = (2 * i - 1) * math.pi / 2
        out.append(brentq(f, guess - 1.0 if i > 1 else 1.0, guess + 1.0 if i > 1 else 2.5,
                          xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return np.array(out)


@dataclass(frozen=True)
class ModeShapes:
    """``n`` shape functions phi_i(x) on [0, l] [m] with derivatives.

    ``kind``: "clamped" (cantilever modes, int phi_i^2 dx = l, abs(phi_i(l)) = 2) or "sine"
    (the single shape sin(pi x / 2 l) of paper 000, phi(l) = 1).
    """

    l: float
    n: int
    kind: str = "clamped"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.l) and self.l > 0.0):
            raise ModelError(f"ModeShapes: beam length l must be positive, got {self.l!r}")
        if self.kind == "sine":
            if self.n != 1:
                raise ModelError("ModeShapes: the 'sine' shape of paper 000 is a single mode; "
                                 f"use kind='clamped' for {self.n} modes")
        elif self.kind == "clamped":
            object.__setattr__(self, "_beta", clamped_roots(self.n) / self.l)
        else:
            raise ModelError(f"ModeShapes: kind must be 'clamped' or 'sine', got {self.kind!r}")

    @property
    def beta(self) -> np.ndarray:
        """Wave numbers beta_i [1/m] (clamped) or pi / 2 l (sine)."""
        if self.kind == "sine":
            return np.array([math.pi / (2 * self.l)])
        return self._beta

    def __call__(self, x: np.ndarray, d: int = 0) -> np.ndarray:
        """phi_i^(d)(x) for d = 0, 1, 2: array (len(x), n)."""
        x = np.atleast_1d(np.asarray(x, float))[:, None]
        b = self.beta[None, :]
        if self.kind == "sine":
            z = b * x
            return [np.sin(z), b * np.cos(z), -b * b * np.sin(z)][d]
        bl = b * self.l
        z = b * x
        e = np.exp(-bl)
        den = 1.0 - e * e + 2.0 * np.sin(bl) * e           # 2 (sinh bl + sin bl) e^{-bl}
        sigma = (1.0 + e * e + 2.0 * np.cos(bl) * e) / den  # (cosh bl + cos bl)/(sinh bl + sin bl)
        one_minus = 2.0 * (np.sin(bl) - np.cos(bl) - e) * e / den   # (1 - sigma), tiny
        ep = one_minus * np.exp(z - bl) / e                 # (1 - sigma) e^{z} without overflow
        em = (1.0 + sigma) * np.exp(-z)
        h0, h1 = 0.5 * (ep + em), 0.5 * (ep - em)           # cosh - s sinh, sinh - s cosh
        t0, t1 = -np.cos(z) + sigma * np.sin(z), np.sin(z) + sigma * np.cos(z)
        return [h0 + t0, b * (h1 + t1), b * b * (h0 - t0)][d]

    def integrals(self, R: float = 0.0, n_quad: int = 0) -> dict[str, np.ndarray]:
        """Integrals over [0, l] with Gauss-Legendre quadrature (exact to round-off):

        ``mass`` int phi_i phi_j; ``first`` int (R + x) phi_i; ``bend`` int phi_i'' phi_j'';
        ``geo`` int (R (l - x) + (l^2 - x^2)/2) phi_i' phi_j' (centrifugal stiffening weight);
        ``tip`` phi_i(l).
        """
        nq = n_quad or max(64, 16 * self.n)
        xg, wg = np.polynomial.legendre.leggauss(nq)
        x = 0.5 * self.l * (xg + 1.0)
        w = 0.5 * self.l * wg
        p0, p1, p2 = self(x, 0), self(x, 1), self(x, 2)
        axial = R * (self.l - x) + 0.5 * (self.l**2 - x**2)
        return dict(mass=p0.T @ (w[:, None] * p0), first=(w * (R + x)) @ p0,
                    bend=p2.T @ (w[:, None] * p2), geo=p1.T @ ((w * axial)[:, None] * p1),
                    tip=self(np.array([self.l]))[0])
