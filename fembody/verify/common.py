"""What the verification modules share: gravity and the observed convergence order."""
from __future__ import annotations

import numpy as np

G = 9.81                                                         # [m/s^2]


def _slope(x, y) -> float:
    """Least-squares slope of log y against log x (an observed convergence order)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _order_plot(title, hs, series, xlabel="h", ylabel="relative error [-]"):
    return dict(title=title, x=list(map(float, hs)), loglog=True, xlabel=xlabel, ylabel=ylabel,
                series={k: list(map(float, v)) for k, v in series.items()})
