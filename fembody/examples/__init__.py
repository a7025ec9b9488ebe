"""Demo models. Each module has ``build_model()`` and ``run()``; ``EXAMPLES`` maps names to
modules for ``fembody demo NAME``."""
from __future__ import annotations

import importlib

EXAMPLES = {
    "cantilever": "fembody.examples.cantilever",
    "crank": "fembody.examples.crank",
    "flexible-pendulum": "fembody.examples.flexible_pendulum",
    "double-pendulum": "fembody.examples.double_pendulum",
    "dynamic-truss": "fembody.examples.dynamic_truss",
    "slider-crank": "fembody.examples.slider_crank",
    "two-link-manipulator": "fembody.examples.two_link_manipulator",
    "falling-two-link": "fembody.examples.falling_two_link",
    "spatial-slider-crank": "fembody.examples.spatial_slider_crank",
    "spatial-four-bar": "fembody.examples.spatial_four_bar",
    "rotating-shaft": "fembody.examples.rotating_shaft",
    "spatial-manipulator": "fembody.examples.spatial_manipulator",
    "lateral-buckling": "fembody.examples.lateral_buckling",
    "deployable-antenna": "fembody.examples.deployable_antenna",
    "rotor-spinup": "fembody.examples.rotor_spinup",
    "andrews-squeezer": "fembody.examples.andrews_squeezer",
    "spatial-chain": "fembody.examples.spatial_chain",
    "spinning-spacecraft": "fembody.examples.spinning_spacecraft",
    "modal-antenna": "fembody.examples.modal_antenna",
}


def load(name: str):
    """Import the example module ``name``."""
    if name not in EXAMPLES:
        raise KeyError(f"unknown example {name!r}; choose from {', '.join(EXAMPLES)}")
    return importlib.import_module(EXAMPLES[name])
