"""The kernels compiled by pythran (``tools/build_kernels.py``): one extension module per kernel
module, loaded by :mod:`fembody.elements.kernels`. Empty in a source tree until built."""
