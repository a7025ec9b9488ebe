"""
Flexible pendulum
=================

Flexible pendulum: a beam pinned at one end, released horizontally under gravity. ``fembody
demo`` runs a softer one (E = 1e7 Pa) for 2 s; here 0.3 s of it, and the tip and energy
histories.
"""
import fembody as fb
from fembody.examples import load
from fembody.examples.flexible_pendulum import build_model

out = load("flexible-pendulum").run(t_end=0.3)

model, beam = build_model(E=1e7)
result = fb.simulate(model, t_end=0.3, dt=1e-3, save_every=10)
fig = fb.viz.history(result, "tip", "energy")
