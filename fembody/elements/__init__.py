"""Element families, each evaluated as a vectorised block: one package per family, with its
planar and spatial forms and kernels side by side (:mod:`.beam`, :mod:`.truss`, :mod:`.mass`,
:mod:`.spring`, :mod:`.modal`); the block contracts are in :mod:`.base`.

This package's ``__init__`` imports no family: the compiled-kernel toolchain
(:mod:`.kernels`) is imported by modules below the families (the configuration space's sparse
kernels), and a family loads its kernels only when a model uses it.
"""
