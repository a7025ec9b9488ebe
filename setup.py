"""The wheel: the package that pyproject.toml describes, with its kernels compiled by pythran.

Everything about the package is in pyproject.toml; this file adds one build step: after the
modules are copied into the build tree, ``tools/build_kernels.py`` compiles the kernel modules
into ``fembody/_ext`` there, so the wheel carries the extensions and a user's first run compiles
nothing (the wheel needs neither pythran nor a compiler to install). Not for an editable
install: there ``make setup`` builds the extensions into the source tree.

pythran is a build requirement that cannot be listed in ``[build-system]``: its metadata pins
setuptools<60 on Python < 3.12 and this pyproject needs setuptools>=61, so pip's isolated build
environment has no solution. Build with ``python -m build --no-isolation`` from an environment
with pythran installed (``tools/setup.sh`` installs it; ``make wheel-check`` builds this way).
"""
from __future__ import annotations

import os
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    """``build_py``, then the kernel extensions compiled into the build tree."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        out = os.path.join(os.path.abspath(self.build_lib), "fembody", "_ext")
        subprocess.run([sys.executable, os.path.join("tools", "build_kernels.py"),
                        "--require", "--out", out], check=True)


class PlatformDistribution(Distribution):
    """A platform wheel: the extensions are machine code (built outside setuptools' Extension
    machinery, by pythran)."""

    def has_ext_modules(self) -> bool:
        return True


setup(cmdclass={"build_py": BuildWithKernels}, distclass=PlatformDistribution)
