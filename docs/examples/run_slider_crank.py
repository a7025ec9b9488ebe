"""
Slider-crank with a flexible connecting rod
===========================================

Slider-crank with a flexible connecting rod: a rigid crank (0.15 m) driven at a constant 150
rad/s after a smooth 0.05 s spin-up, a steel connecting rod (0.3 m, 8 mm diameter, 8 beam
elements), a sliding block of 0.1 kg on a frictionless horizontal guide. The rod's midpoint
deflection shows the inertia-driven bending the rigid model misses.

``fembody demo slider-crank`` runs it and writes a results folder; ``fembody demo slider-crank --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("slider-crank").run()
