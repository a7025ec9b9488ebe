"""fembody's version (one place: the package, saved results and checkpoints read it)."""
__version__ = "0.1.0"
