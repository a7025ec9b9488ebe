"""Time histories of a Result with matplotlib (``fembody.viz.history``)."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ModelError
from ..model.model import Node
from .scene import check_parent

if TYPE_CHECKING:
    from ..results import Result


def has_display() -> bool:
    """True when a window can be opened (always off Linux; on Linux, an X or Wayland display)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _resolve(result: "Result", item: Any):
    """(kind, object, label) of one history request: a node as its id, a joint as its
    index (read from the System's outline of its model: the Model may be gone)."""
    from ..joints.base import Joint
    outline = result.system.outline
    if isinstance(item, Joint):
        return "joint", outline.joint_index(item, "history"), item.label
    if (isinstance(item, (Node, int, np.integer)) or hasattr(item, "node")) and \
            not isinstance(item, bool):
        nid = outline.node(item, "history")
        return "node", nid, outline.node_label(nid)
    if isinstance(item, str):
        key = item.lower()
        if key in ("energy", "energies"):
            return "energy", None, "energies"
        if key in ("violation", "constraint", "constraints"):
            return "violation", None, "constraint violation"
        if key in ("iterations", "newton"):
            return "iterations", None, "Newton iterations"
        joints = outline.joints_named(item)
        if joints:
            return "joint", joints[0], outline.joint_labels[joints[0]]
        try:        # node names follow Model.node's one rule (names, body names, 'tip')
            nid = outline.node(item, "history")
        except ModelError:
            nid = None
        if nid is not None:
            label = outline.node_label(nid)
            return "node", nid, (label if outline.node_name(nid) == item else
                                 f"{item} ({label})")
        raise ModelError(f"history: {item!r} is not 'energy', 'violation', 'iterations', 'tip' "
                         "or the name of a node, joint or body of the model")
    raise ModelError(f"history: cannot plot {item!r}; give a Node, a joint, 'energy', "
                     "'violation', 'iterations' or a name")


def history(result: "Result", *what: Any, filename: str | None = None,
            show: bool | None = None, figsize: tuple[float, float] | None = None):
    """Time histories of a Result with matplotlib, one panel per item of ``what``:

    - a Node, node index or node name (as :meth:`fembody.model.Model.node` reads it: a
      node's name, a body's name for its last node, 'tip' for the first body's last node; or
      a rigid body for its node): displacement
      components u_x, u_y [m] (and the rotation [rad] on a second axis when the node has one);
    - a joint (object or name): its reaction components;
    - 'energy': kinetic, strain, gravity, total and the balance [J];
    - 'violation': the largest constraint violation |phi| (log scale);
    - 'iterations': Newton iterations per saved step.

    Default ``what``: ('tip', 'energy'). Saves to ``filename`` if given, shows a window when
    ``show`` (default: when there is a display and no filename). ``figsize`` (width, height)
    in inches (default: 7 wide, 2.6 per panel). Returns the Figure.
    """
    import matplotlib
    if not has_display():
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if result.system is None:
        raise ModelError("history: the result has no model; use Result.load(path, model=...)")
    items = [_resolve(result, w) for w in (what or ("tip", "energy"))]
    t = result.time
    xlabel = "t [s]" if result.kind == "dynamic" else "load factor [-]"
    # constrained layout makes room for the legends, which sit outside the axes (on the
    # right), never over a curve
    fig, axes = plt.subplots(len(items), 1, sharex=True, squeeze=False, layout="constrained",
                             figsize=figsize or (8.0, 2.6 * len(items) + 0.6))
    for ax, (kind, obj, label) in zip(axes[:, 0], items):
        twin = False
        if kind == "node":
            u = result.displacement(obj)
            for i, c in enumerate("xyz"[:u.shape[1]]):
                ax.plot(t, u[:, i], label=f"$u_{c}$")
            ax.set_ylabel("displacement [m]")
            spatial = u.shape[1] == 3
            if result.node_dofs[obj, 3 if spatial else 2] >= 0:
                ax2, twin = ax.twinx(), True
                if spatial:     # the rotation vector from the reference (angle <= pi)
                    psi = result.rotation(obj, as_="vector")
                    for i, (c, style) in enumerate(zip("xyz", ("k--", "k:", "k-."))):
                        ax2.plot(t, psi[:, i], style, lw=1, label=rf"$\psi_{c}$")
                else:
                    ax2.plot(t, result.rotation(obj), "k--", lw=1, label=r"$\theta$")
                ax2.set_ylabel("rotation [rad]")
                ax2.legend(loc="lower left", bbox_to_anchor=(1.12, 0.0), fontsize=8,
                           borderaxespad=0.0)
        elif kind == "joint":
            kind = result.system.outline.joint_kinds[obj]
            # (Result.joint_reaction's multipliers, by the joint's index)
            R = (-1.0 if kind != "Distance" else 1.0) * result.lam[:, result.system.joint_rows[obj]]
            names = (["$F_x$", "$F_y$", "$M$"] if kind in ("Pin", "Weld", "RigidLink")
                     else [f"component {i}" for i in range(R.shape[1])])
            for i in range(R.shape[1]):
                ax.plot(t, R[:, i], label=names[i])
            ax.set_ylabel("reaction [N, N m]")
        elif kind == "energy":
            E = result.energy
            for name in ("kinetic", "strain", "gravity", "total", "balance"):
                ax.plot(t, getattr(E, name), lw=2 if name == "balance" else 1.2,
                        ls="--" if name == "balance" else "-", label=name)
            ax.set_ylabel("energy [J]")
        elif kind == "violation":
            v = result.violation
            if v is None:
                v = np.zeros(len(t))
            ax.semilogy(t, np.maximum(v, 1e-18))
            ax.set_ylabel("max |phi| [m, rad]")
        else:
            ax.plot(t, result.iterations, drawstyle="steps-mid")
            ax.set_ylabel("Newton iterations [-]")
        ax.set_title(label, fontsize=10)
        if ax.get_legend_handles_labels()[0]:
            # right of the twin axis's tick labels when there is one
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.12 if twin else 1.01, 1.0),
                      borderaxespad=0.0)
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel(xlabel)
    if filename is not None:
        check_parent(filename, "history")
        fig.savefig(filename, dpi=100)
    if show is None:
        show = filename is None and has_display()
    if show:
        plt.show()
    else:
        plt.close(fig)
    return fig
