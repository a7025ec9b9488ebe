"""
Planar: a shallow arch snapping through (arc length)
====================================================

A clamped shallow arch (span 1 m, rise 0.1 m) meshed with ``add_arc`` and loaded at its
crown. Load control stops at the limit point; the arc-length method follows the path
through it, and the load-deflection curve shows the snap.
"""
import matplotlib.pyplot as plt
import numpy as np

import fembody as fb

steel = fb.Material(E=210e9, rho=7850.0, nu=0.3)
sec = fb.Section.rectangle(b=0.02, h=0.01)
span, rise = 1.0, 0.1
R = (span**2 / 4 + rise**2) / (2 * rise)                 # the circle through the three points
half = np.arcsin(span / (2 * R))

model = fb.Model(name="shallow arch")
arch = model.add_arc((-span / 2, 0.0), (0.0, rise - R), -2 * half, n=16, material=steel,
                     section=sec)
model.fix(arch.first)
model.fix(arch.last)
crown = arch.nodes[8]
P = 4e4
model.add_force(crown, (0.0, -P))

result = fb.static(model, method="arc-length", steps=20, load_max=1.0, max_steps=200)
lf = result.load_factor
limit = int(np.argmax(np.diff(lf) < 0))          # the first state after which the load falls
print(f"crown at y = {crown.position[1]:.4f} m; {len(result)} arc-length steps; limit point "
      f"at {P * lf[limit] / 1e3:.1f} kN, {-1e3 * result.displacement(crown)[limit, 1]:.0f} mm")

# %%
# The crown's deflection against the load: past the limit point the load falls while the
# arch snaps, then rises again on the inverted branch.
fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
ax.plot(-result.displacement(crown)[:, 1] * 1e3, P * result.load_factor / 1e3, "o-", ms=3)
ax.set(xlabel="crown deflection [mm]", ylabel="crown load [kN]",
       title="snap-through of a shallow arch")
ax.grid(alpha=0.3)
