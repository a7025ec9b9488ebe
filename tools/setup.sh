#!/usr/bin/env bash
# Set up fembody's virtual environment: SuiteSparse headers (for CHOLMOD) through apt when
# missing and when root, a venv, and the package with its test dependencies. If scikit-sparse
# cannot be built, fembody is installed without it and runs on SciPy's solvers.
set -euo pipefail
PYTHON=${PYTHON:-python3}
VENV=${VENV:-.venv}


# apt_install WHAT FAILED PACKAGE...: install Debian packages as root ("setup: installing
# WHAT"), saying FAILED if the install fails; returns 1 where it cannot (not root, no apt)
APT_UPDATED=
apt_install() {
    local what=$1 failed=$2
    shift 2
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        return 1
    fi
    echo "setup: installing $what"
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "$APT_UPDATED" ]; then
        apt-get update -qq >/dev/null || echo "setup: apt-get update failed; trying the install anyway"
        APT_UPDATED=1
    fi
    apt-get install -y -qq "$@" >/dev/null || echo "setup: could not install $*; $failed"
}

if ! [ -f /usr/include/suitesparse/cholmod.h ]; then
    if ! apt_install "libsuitesparse-dev (CHOLMOD headers)" "continuing without CHOLMOD" \
            libsuitesparse-dev; then
        echo "setup: SuiteSparse headers missing and not root; CHOLMOD will not be built"
    fi
fi

# VTK (pyvista) renders off-screen through EGL with Mesa's software rasteriser when there is no
# display; a minimal Debian lacks those libraries (VTK loads them at run time, pip cannot)
# (the library list is read once: `ldconfig -p | grep -q` can fail on SIGPIPE under pipefail)
SHLIBS=$("$(command -v ldconfig || echo /sbin/ldconfig)" -p 2>/dev/null || true)
if ! grep -q libEGL_mesa.so.0 <<<"$SHLIBS" || ! grep -q libGL.so.1 <<<"$SHLIBS"; then
    if ! apt_install "Mesa EGL/GL libraries (off-screen rendering for fembody.viz)" \
            "pictures (fembody.viz) may fail" \
            libegl1 libegl-mesa0 libgl1 libgl1-mesa-dri libxrender1; then
        echo "setup: Mesa EGL/GL libraries missing and not root; pictures (fembody.viz) may fail"
    fi
fi

# an optimised BLAS for CHOLMOD: scikit-sparse links the system's CHOLMOD, which calls the system's
# libblas.so.3, Debian's reference BLAS unless another is registered for it; OpenBLAS (pthread
# build, which registers itself through update-alternatives) makes CHOLMOD's supernodal
# factorisation of large frame grids several times faster (benchmarks/results/blas.json).
# NumPy and SciPy bring their own OpenBLAS and are not affected. fembody sets its thread
# count as it does theirs (fembody.linalg.blas_threads); `fembody info` says which is used.
BLAS3=$(grep -m1 -o '/[^ ]*/libblas\.so\.3$' <<<"$SHLIBS" || true)
if [ -n "$BLAS3" ] && ! readlink -f "$BLAS3" | grep -qi openblas; then
    if ! apt_install "libopenblas0-pthread (an optimised BLAS for CHOLMOD)" \
            "CHOLMOD stays on $BLAS3" libopenblas0-pthread; then
        echo "setup: CHOLMOD uses the BLAS at $BLAS3 and not root: for large models run" \
             "apt-get install libopenblas0-pthread"
    fi
fi

# Xvfb: a virtual X display, for the test of fb.viz.show's interactive window (skipped without it)
if ! command -v Xvfb >/dev/null; then
    if ! apt_install "xvfb (a virtual display for the interactive-window test)" \
            "the interactive-window test will be skipped" xvfb; then
        echo "setup: Xvfb missing and not root; the interactive-window test will be skipped"
    fi
fi

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip setuptools wheel
if ! "$VENV/bin/python" -m pip install -q -e ".[dev,study,cholmod]"; then
    echo "setup: scikit-sparse did not install; fembody will use SciPy's SuperLU (slower)"
    "$VENV/bin/python" -m pip install -q -e ".[dev,study]"
fi
# pythran, for the build only: its metadata pins setuptools<60 on Python < 3.12, which cannot
# build this pyproject (PEP 621 needs setuptools 61), so it is installed without that pin
"$VENV/bin/python" -m pip install -q --no-deps "pythran==0.19.0" \
    && "$VENV/bin/python" -m pip install -q "ply>=3.4" "gast~=0.7.0" "beniget~=0.5.0" \
    || echo "setup: pythran did not install; numba compiles the kernels at first use"
# the hot kernels compiled by pythran (a C++ compiler; several minutes): no numba import or JIT
# compilation in a run
"$VENV/bin/python" tools/build_kernels.py \
    || echo "setup: kernels not built; numba compiles them at first use (slower start)"
"$VENV/bin/python" -c "import fembody.linalg.linalg as l; print('setup: fembody installed, sparse backend:', l.backend_name())"
