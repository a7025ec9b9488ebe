"""
Spatial: a four-bar mechanism with one tilted hinge
===================================================

Three flexible bars joined by revolute hinges, the crank driven at a constant rate. With
every hinge along y the mechanism is a planar parallelogram; tilting the last hinge by 5
degrees would lock a rigid loop, so the bars bend and twist to let the crank turn (the
benchmark of Bauchau et al. 2016; ``fembody demo spatial-four-bar`` runs the full 12 s).
The bars start with the untilted parallelogram's velocities, which the tilted hinge does not
quite allow: ``project_velocities`` moves them onto the joints (the log line below says by
how much).
"""
import matplotlib.pyplot as plt
import numpy as np

import fembody as fb

steel = fb.Material(E=207e9, rho=7800.0, nu=0.3)
thick, thin = fb.Section.rectangle(0.016, 0.016), fb.Section.rectangle(0.008, 0.008)
y = (0.0, 1.0, 0.0)
tilt = np.radians(5.0)

model = fb.Model(dim=3, name="spatial four-bar")
crank = model.add_beam((0, 0, 0), (0, 0, 0.12), n=2, material=steel, section=thick)
coupler = model.add_beam((0, 0, 0.12), (0.24, 0, 0.12), n=4, material=steel, section=thick)
follower = model.add_beam((0.24, 0, 0.12), (0.24, 0, 0), n=2, material=steel, section=thin)
model.add_joint(fb.Revolute(model.ground, crank.first, axis=y))
model.add_joint(fb.RotationDriver(model.ground, crank.first, axis=y, angle=lambda t: 0.6 * t))
model.add_joint(fb.Revolute(crank.last, coupler.first, axis=y))
model.add_joint(fb.Revolute(coupler.last, follower.first,
                            axis=(np.sin(tilt), -np.cos(tilt), 0.0)))
model.add_joint(fb.Revolute(follower.last, model.ground, axis=y))

# the untilted parallelogram's velocities: crank and follower turn at 0.6 rad/s about their
# ground hinges, the coupler translates with the crank's tip
w = np.array([0.0, 0.6, 0.0])
for bar, pivot in ((crank, (0, 0, 0)), (follower, (0.24, 0, 0))):
    for node in bar.nodes:
        model.set_velocity(node, np.cross(w, node.position - pivot), omega=w)
for node in coupler.nodes:
    model.set_velocity(node, np.cross(w, (0, 0, 0.12)), omega=(0.0, 0.0, 0.0))

result = fb.simulate(model, t_end=2.0, dt=5e-3, save_every=4, project_velocities=True)
print(f"crank turned {0.6 * result.time[-1]:.2f} rad; the coupler's midpoint left the x-z "
      f"plane by {1e3 * np.abs(result.displacement(coupler.nodes[2])[:, 1]).max():.2f} mm")

# %%
# The mechanism seen face on (an isometric view of the x-z plane shows it edge on):
png = "four_bar.png"
fb.viz.plot(result, filename=png, window_size=(800, 500))
fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
ax.imshow(plt.imread(png))
ax.set_axis_off()
