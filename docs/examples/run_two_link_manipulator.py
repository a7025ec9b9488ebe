"""
Two-link flexible manipulator (paper 001)
=========================================

Two-link flexible manipulator (paper 001): two flexible links driven by hub motors, both
horizontal and undeformed at t = 0, in a horizontal plane, 1.2 s.

``fembody demo two-link-manipulator`` runs it and writes a results folder; ``fembody demo two-link-manipulator --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("two-link-manipulator").run()
