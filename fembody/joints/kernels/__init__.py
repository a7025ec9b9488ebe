"""The compiled joint kernels every family calls: one pass over the instances of a block.

:mod:`~fembody.joints.kernels.planar` evaluates the planar families with rows off the nodes
(coincident points, sliders, distances); :mod:`~fembody.joints.kernels.spatial` every spatial
kind, from the carried quantities (points and vectors of a node with their derivatives) the
kinds share, and :mod:`~fembody.joints.kernels.block` is the block that calls it. They are
kept apart from the families because each is one compiled pass whose pieces (the chain rule
of a carried point, dot products, the locked rotation) serve several families: cut by family
they would repeat the chain rule or call across compiled modules.
"""
