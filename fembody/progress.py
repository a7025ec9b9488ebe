"""A one-line progress bar for long simulations (simulated time, steps/s, Newton iterations).

Written to stderr with a carriage return, redrawn at most a few times per second, and shown only
once a run has lasted ``delay`` seconds, so short runs print nothing. ``enabled=None`` means on
only when stderr is a terminal: logs, pipes and CI stay clean unless ``progress=True`` is asked.
"""
from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Progress of a run from 0 to ``t_end`` [s].

    ``enabled``: True (always), False (never) or None (when ``stream`` is a TTY). ``delay`` [s]
    of wall time before the bar first appears (default ``DELAY``); ``interval`` [s] between
    redraws.
    """

    DELAY = 2.0

    def __init__(self, t_end: float, enabled: bool | None = None, *, stream: TextIO | None = None,
                 delay: float | None = None, interval: float = 0.2, width: int = 24) -> None:
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = bool(enabled)
        self.t_end = float(t_end)
        self.delay = self.DELAY if delay is None else delay
        self.interval = interval
        self.width = width
        self.start = time.perf_counter()
        self._last_draw = -1.0
        self.shown = False
        self.line = ""

    def update(self, t: float, n_steps: int, n_newton: int, force: bool = False) -> None:
        """Report the simulated time ``t`` [s] and the step and Newton counters so far."""
        if not self.enabled:
            return
        now = time.perf_counter()
        elapsed = now - self.start
        if not force and (elapsed < self.delay or now - self._last_draw < self.interval):
            return
        self._last_draw = now
        frac = min(max(t / self.t_end, 0.0), 1.0) if self.t_end > 0 else 1.0
        full = int(round(frac * self.width))
        rate = n_steps / elapsed if elapsed > 0 else 0.0
        per_step = n_newton / n_steps if n_steps else 0.0
        eta = elapsed * (1.0 - frac) / frac if frac > 0 else float("nan")
        self.line = (f"[{'#' * full}{'.' * (self.width - full)}] {100 * frac:5.1f}%  "
                     f"t = {t:.4g}/{self.t_end:.4g} s  {rate:.0f} steps/s  "
                     f"{per_step:.2f} Newton it/step  {elapsed:.0f} s, ~{eta:.0f} s left")
        self.stream.write("\r" + self.line)
        self.stream.flush()
        self.shown = True

    def close(self, t: float, n_steps: int, n_newton: int) -> None:
        """Draw the final state (if the bar was shown) and end the line."""
        if self.shown:
            self.update(t, n_steps, n_newton, force=True)
            self.stream.write("\n")
            self.stream.flush()
