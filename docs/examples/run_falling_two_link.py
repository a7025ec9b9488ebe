"""
Falling two-link flexible system hitting a rigid plane (paper 003, Figures 2-5)
===============================================================================

Falling two-link flexible system hitting a rigid plane (paper 003, Figures 2-5).

``fembody demo falling-two-link`` runs it and writes a results folder; ``fembody demo falling-two-link --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("falling-two-link").run()
