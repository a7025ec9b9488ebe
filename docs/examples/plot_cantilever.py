"""
Planar: a cantilever bent far beyond the linear range
=====================================================

A slender steel cantilever under a tip load ``P`` with ``P L^2 / EI = 3``: the tip swings down
and in. Load stepping with Newton gives one state per step; the end state is compared with
the elastica's tip deflection (Mattiasson, Int. J. Numer. Meth. Eng. 17 (1981) 145, Table 1:
``w / L = 0.60325``, ``u / L = -0.25442`` at ``P L^2 / EI = 3``).
"""
import matplotlib.pyplot as plt
import numpy as np

import fembody as fb

steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
sec = fb.Section.rectangle(b=0.02, h=0.005)
L = 1.0
EI = steel.E * sec.I

model = fb.Model(name="cantilever")
beam = model.add_beam((0.0, 0.0), (L, 0.0), n=20, material=steel, section=sec)
model.fix(beam.first)                                   # a clamp: x, y and rz held
model.add_force(beam.last, (0.0, -3.0 * EI / L**2))     # N

result = fb.static(model, steps=10)
u = result.displacement(beam.last)[-1]
print(f"tip: u/L = {u[0] / L:.4f} (elastica -0.2544), w/L = {-u[1] / L:.4f} (elastica 0.6033)")

# %%
# The deformed shapes, one per load step (the load factor is ``result.time``):
fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
for k in range(len(result)):
    xy = np.array([result.position(n)[k] for n in beam.nodes])
    ax.plot(xy[:, 0], xy[:, 1], color=plt.cm.viridis(k / (len(result) - 1)))
ax.set(xlabel="x [m]", ylabel="y [m]", aspect="equal",
       title="cantilever under a tip load, load factor 0.1 to 1")
ax.grid(alpha=0.3)
