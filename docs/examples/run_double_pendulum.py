"""
Elastic double pendulum (paper 004, problem 1)
==============================================

Elastic double pendulum (paper 004, problem 1): two flexible aluminium links, the first pinned
to the ground, the second pinned to the tip of the first, released horizontally.

``fembody demo double-pendulum`` runs it and writes a results folder; ``fembody demo double-pendulum --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("double-pendulum").run()
