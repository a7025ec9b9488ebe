"""numpy references of fembody's compiled kernels, for the tests only.

The library calls the compiled kernels alone (numba is a hard dependency); each function here
states the same arithmetic in plain numpy, and the tests compare the kernels against it.
"""
