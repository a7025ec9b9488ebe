"""fembody: finite-element flexible multibody dynamics in Python (planar).

Quick start::

    import fembody as fb
    alu = fb.Material(E=70e9, rho=2700.0, nu=0.33)
    sec = fb.Section.rectangle(b=0.02, h=0.005)
    m = fb.Model()
    beam = m.add_beam((0, 0), (1, 0), n=20, material=alu, section=sec)
    m.fix(beam.first)
    m.add_force(beam.last, (0.0, -10.0))
    print(fb.static(m, steps=10).displacement(beam.last)[-1])
"""
from .errors import (ConvergenceError, FembodyError, InstabilityError, ModelError, RunError,
                     SingularSystemError, StabilityError, StabilityWarning,
                     ContactWarning)
from .model.loads import ramp
from .model.materials import Material, Section
from .model.model import Body, ElementRef, Model, Node, RigidBody
from .results import Result
from .joints import (AngleDriver, Distance, Driver, Pin, RigidLink, Slider, SpeedDriver, Support,
                     Weld)
from .joints import (Cylindrical, Prismatic, Revolute, RotationDriver, SlideDriver,  # 3D
                     Spherical, Universal)
from .model.loads import Motor
from .model import functions
from .dynamics import HHT, GeneralizedAlpha, Newmark
from .statics import Modes, modes, static
from .run import resume, simulate
from .system import System
from .dynamics.structure import Trajectory, integrate_hamiltonian

from .version import __version__  # noqa: E402

__all__ = ["ConvergenceError", "FembodyError", "InstabilityError", "ModelError", "RunError", "SingularSystemError",
           "StabilityError", "StabilityWarning", "ContactWarning", "ramp",
           "Buckling", "buckling",
           "Material", "Section", "Body", "ElementRef", "Model", "Node", "RigidBody", "Result",
           "Modes", "modes", "static", "System", "__version__", "Distance", "Driver", "Pin",
           "RigidLink", "Slider", "Support", "Weld", "HHT", "GeneralizedAlpha", "Newmark",
           "simulate", "resume", "sweep", "integrate_hamiltonian", "Trajectory", "io", "viz",
           "AngleDriver", "SpeedDriver", "Motor", "functions",
           "Cylindrical", "Prismatic", "Revolute", "RotationDriver", "SlideDriver", "Spherical",
           "Universal", "Plane", "Sphere", "Cylinder", "Box", "TriangleMesh"]


_LAZY = {"Buckling": ".statics.buckling", "buckling": ".statics.buckling", "sweep": ".study",
         "Plane": ".contact.surfaces", "Sphere": ".contact.surfaces",
         "Cylinder": ".contact.surfaces", "Box": ".contact.surfaces",
         "TriangleMesh": ".contact.trimesh"}


def __getattr__(name: str):
    """``fembody.io``, ``fembody.viz``, ``buckling`` and ``sweep`` are imported when first used
    (PEP 562): they are not needed to build and solve a model, and ``import fembody`` stays
    fast."""
    import importlib
    if name in ("io", "viz"):
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY:       # rarely used at start-up: their modules load on first use
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
