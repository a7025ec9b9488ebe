"""Regenerate the README's gallery: the default demo's pictures, the imported antenna panel,
a spatial manipulator and the deployable antenna in 3D.

Run from the repository root: ``python docs/gallery/make.py`` (about half a minute).
"""
from __future__ import annotations

import pathlib
import shutil
import tempfile

import fembody as fb
from fembody.cli import main
from fembody.examples.meshes import path

HERE = pathlib.Path(__file__).resolve().parent

with tempfile.TemporaryDirectory() as tmp:
    assert main(["demo", "--out", tmp]) == 0
    for src, dst in (("shape.png", "pendulum_shape.png"), ("motion.gif", "pendulum.gif"),
                     ("energy.png", "pendulum_energy.png")):
        shutil.copy(pathlib.Path(tmp) / src, HERE / dst)

steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
m = fb.Model(name="antenna panel, bar forces")
panel = m.add_body(path("antenna_panel.msh"), kind="truss", material=steel,
                   section=fb.Section(A=2e-4, I=0.0),
                   groups={"diagonals": fb.Section(A=5e-5, I=0.0)})
for node in panel.nodes_in("supports"):
    m.fix(node, "x", "y")
m.add_force(panel.node_in("feed"), (0.0, -2000.0))
res = fb.static(m, steps=2)
fb.viz.plot(res, field="N", scale=50.0, filename=HERE / "antenna_panel.png",
            window_size=(900, 420))

# a spatial model: the flexible two-link manipulator in 3D, coloured by the bending moment |M|
from fembody.examples import spatial_manipulator  # noqa: E402

built = spatial_manipulator.build_model(**spatial_manipulator.DEMO.get("build", {}))
model3 = built[0] if isinstance(built, tuple) else built
demo = spatial_manipulator.DEMO
res3 = fb.simulate(model3, t_end=demo["t_end"], dt=demo["dt"], save_every=10)
fb.viz.plot(res3, step=len(res3) // 2, field="M", filename=HERE / "spatial_manipulator.png",
            window_size=(900, 560))
# the deployable antenna (free-floating hub) during the panel's swing, beams drawn as boxes
from fembody.examples import deployable_antenna  # noqa: E402

ant = deployable_antenna.deploy(True, deployable_antenna.T_DEPLOY, hold=0.0)["result"]
k = int(abs(ant.time - 1.45 * deployable_antenna.T_DEPLOY).argmin())
fb.viz.plot(ant, step=k, field="M", beam_style="box", filename=HERE / "deployable_antenna.png",
            window_size=(900, 560))
for f in sorted(HERE.glob("*.png")) + sorted(HERE.glob("*.gif")):
    print(f"{f.name}: {f.stat().st_size / 1024:.0f} kB")
