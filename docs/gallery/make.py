"""Regenerate the README's gallery: the default demo's pictures and the imported antenna panel.

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
for f in sorted(HERE.glob("*.png")) + sorted(HERE.glob("*.gif")):
    print(f"{f.name}: {f.stat().st_size / 1024:.0f} kB")
