"""Compile fembody's hot kernels ahead of time into ``fembody/elements/kernels_aot*.so``.

Run by ``tools/setup.sh`` after the package is installed (``python tools/build_kernels.py``),
so that neither the first run after a fresh install nor any later process compiles or imports
numba for them (see ``fembody/elements/kernels.py``). Takes ~30-60 s; needs numba and a C
compiler. Without the extension fembody still runs: the kernels are then compiled by numba on
first use and cached by it.
"""
from __future__ import annotations

import importlib
import pathlib
import shutil
import sys
import tempfile
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
# the modules whose kernels carry an ``aot`` signature
MODULES = ("fembody.elements.beam.compiled", "fembody.sparse_kernels",
           "fembody.dynamics._kernels", "fembody.linalg.envelope", "fembody.linalg.cholmod_spd",
           "fembody.elements.beam.beam3d_numba", "fembody.space.quat_numba",
           "fembody.space.planar_numba",
           "fembody.elements.mass.rigid3d", "fembody.elements.mass.mass", "fembody.dynamics.lie",
           "fembody.joints.kernels.spatial", "fembody.joints.kernels.planar",
           "fembody.elements.spring.spring", "fembody.joints.assembly",
           "fembody.statics._kernels", "fembody.run._kernels",
           "fembody.linalg._kernels", "fembody.elements.modal.modal3d_numba",
           "fembody.dynamics._step_kernels", "fembody.contact._kernels")


def main() -> int:
    sys.path.insert(0, str(ROOT))
    try:
        from numba.core.errors import NumbaPendingDeprecationWarning
        warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
        from numba.pycc import CC
    except ImportError as exc:
        print(f"build_kernels: numba.pycc not available ({exc}); kernels will be JIT-compiled")
        return 0
    for m in MODULES:
        importlib.import_module(m)
    from fembody.elements import kernels
    target = ROOT / "fembody" / "elements"
    name = kernels.AOT_MODULE.rsplit(".", 1)[-1]
    with tempfile.TemporaryDirectory() as tmp:
        cc = CC(name)
        cc.output_dir = tmp
        cc.verbose = False
        n = 0
        for k in kernels.REGISTRY:
            if k.aot:
                # compiled for C-contiguous arrays (the guard in kernels.py checks it)
                cc.export(k.export_name, kernels.export_signature(k.aot))(k.numba_function())
                n += 1
        cc.compile()
        built = list(pathlib.Path(tmp).glob(f"{name}*"))
        for old in target.glob(f"{name}*"):
            old.unlink()
        for f in built:
            shutil.copy2(f, target / f.name)
    print(f"build_kernels: {n} kernels compiled ahead of time into {target / built[0].name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
