"""
Elastic dynamic truss (paper 004, problem 2)
============================================

Elastic dynamic truss (paper 004, problem 2): a cantilevered Warren truss (8 panels of 0.5 m,
steel tubes) under a suddenly applied tip load. The undamped response oscillates about the
static deflection with a dynamic amplification of 2 (a step load on a linear system).

``fembody demo dynamic-truss`` runs it and writes a results folder; ``fembody demo dynamic-truss --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("dynamic-truss").run()
