"""A few lines of Newton for chains of 3D beam elements, used by the element tests (the real
solvers plug the kernels into the configuration space later). The class lives in
fembody.verify.beams, whose verification cases (``fembody verify``) use it too."""
from fembody.verify.beams import Chain  # noqa: F401
