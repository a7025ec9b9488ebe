#!/bin/sh
# Build and install scikit-umfpack 0.4.2 (fembody's optional 'umfpack' backend) into the
# Python environment of $1 against Debian 12's SuiteSparse 5.12 (libsuitesparse-dev, swig).
#
# Why not `pip install scikit-umfpack`: 0.4.2 (the newest release) finds UMFPACK through
# pkg-config, which SuiteSparse 5 does not ship, and then assumes the single umfpack.h of
# SuiteSparse 7 (its SWIG module would lack every umfpack_* function: "'Struct' object has
# no attribute 'defaults'" at run time); 0.4.1 and older do not compile against NumPy 2.
# This script gives the build a pkg-config file for the system's UMFPACK and makes its
# meson.build test for the header layout on that path too (one line, as its other path
# does). See docs/linear_solvers.rst, "Optional backends".
#
#     sh tools/build_umfpack.sh .venv-optional/bin/python
set -eu
PY=${1:?usage: build_umfpack.sh PYTHON}
VERSION=0.4.2
INC=/usr/include/suitesparse
if ! [ -f "$INC/umfpack.h" ]; then
    echo "build_umfpack: $INC/umfpack.h not found: apt-get install libsuitesparse-dev" >&2
    exit 1
fi
command -v swig >/dev/null || { echo "build_umfpack: needs swig: apt-get install swig" >&2; exit 1; }
LIB=$(dirname "$(find /usr/lib /usr/lib64 -name 'libumfpack.so' 2>/dev/null | head -n 1)")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/pc"
cat > "$WORK/pc/UMFPACK.pc" <<EOF
libdir=$LIB
includedir=$INC
Name: UMFPACK
Description: the system's UMFPACK (SuiteSparse 5)
Version: 5
Libs: -L\${libdir} -lumfpack -lamd -lcholmod -lsuitesparseconfig
Cflags: -I\${includedir}
EOF
# (pip prepares the source's metadata on download: its meson setup needs the .pc file too)
PKG_CONFIG_PATH="$WORK/pc" "$PY" -m pip download -q --no-deps --no-binary scikit-umfpack \
    "scikit-umfpack==$VERSION" -d "$WORK"
tar xzf "$WORK"/scikit_umfpack-$VERSION.tar.gz -C "$WORK" 2>/dev/null \
    || tar xzf "$WORK"/scikit-umfpack-$VERSION.tar.gz -C "$WORK"
SRC=$(find "$WORK" -maxdepth 1 -type d -name 'scikit*umfpack*' | head -n 1)
# the pkg-config branch of meson.build: the header layout tested, not assumed
sed -i "s/^  single_header = true$/  single_header = not cc.has_header('umfpack_solve.h', dependencies: umfpack_dep)/" \
    "$SRC/meson.build"
grep -q "single_header = not cc.has_header('umfpack_solve.h', dependencies" "$SRC/meson.build" \
    || { echo "build_umfpack: meson.build of scikit-umfpack $VERSION not as expected" >&2; exit 1; }
PKG_CONFIG_PATH="$WORK/pc" "$PY" -m pip install -q --no-deps "$SRC"
"$PY" -c "import scikits.umfpack as u; u.UmfpackContext('di'); print('scikit-umfpack', '$VERSION', 'installed')"
