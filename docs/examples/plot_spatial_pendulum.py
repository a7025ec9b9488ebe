"""
Spatial: a flexible arm on a hinge with an offset mass
======================================================

A steel strip on a revolute hinge, with a rigid body whose centre of mass sits beyond the
strip's end, swings down under gravity. ``result.com(body)`` follows the body's centre of
mass; the hinge reaction is the force the hinge puts on the arm.
"""
import matplotlib.pyplot as plt
import numpy as np

import fembody as fb

steel = fb.Material(E=2.1e11, rho=7850.0, nu=0.3)
sec = fb.Section.rectangle(b=0.01, h=0.02)

model = fb.Model(dim=3, gravity=(0.0, 0.0, -9.81), name="spatial arm")
arm = model.add_beam((0, 0, 0), (1, 0, 0), n=8, material=steel, section=sec,
                     orientation=(0, 1, 0))
hinge = model.add_joint(fb.Revolute(model.ground, arm.first, axis=(0, 1, 0)))
weight = model.add_rigid_body(arm.last, 2.0, (0.01, 0.02, 0.02), offset=(0.1, 0, 0))

result = fb.simulate(model, t_end=0.8, dt=2e-3, save_every=5)
com = result.com(weight)
print(f"the centre of mass fell {com[0, 2] - com[:, 2].min():.3f} m; "
      f"largest hinge force {np.abs(result.joint_reaction(hinge, frame='global')[:, :3]).max():.1f} N")

# %%
# The arm at the end of the swing, and the centre of mass's path:
png = "arm.png"
fb.viz.plot(result, filename=png, window_size=(800, 500))
fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4), layout="constrained")
a.imshow(plt.imread(png))
a.set_axis_off()
b.plot(com[:, 0], com[:, 2])
b.set(xlabel="x [m]", ylabel="z [m]", aspect="equal", title="centre of mass of the weight")
b.grid(alpha=0.3)
