"""
Rigid crank of paper 001
========================

Rigid crank of paper 001: L = 0.75 m, m = 1.4 kg, in a horizontal plane, driven from rest by a
torque of 62 N m; angular acceleration 236.19 rad/s^2 (I = m L^2 / 3 about the pivot).

``fembody demo crank`` runs it and writes a results folder; ``fembody demo crank --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("crank").run()
