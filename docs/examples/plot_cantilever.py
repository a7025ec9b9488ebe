"""
Large-deflection cantilever
===========================

Large-deflection cantilever: a tip load bends a slender beam far beyond the linear range.

``fembody demo cantilever`` runs it and writes a results folder; ``fembody demo cantilever --verify``
also prints this comparison with its reference.
"""
from fembody.examples import load

out = load("cantilever").run(n=16)
