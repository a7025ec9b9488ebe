#!/usr/bin/env bash
# The wheel as a user gets it: build it (pip's PEP 517 build, as `python -m build
# --no-isolation` does; the kernels compiled by pythran into it), install it with pip into a
# fresh venv (no compiler, no pythran), run the demo there, and check that the first run
# compiled nothing (numba not even imported) and took at most 1.5x the second.   bash tools/check_wheel.sh            (make wheel-check; .ci/run runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
OUT=${OUT:-build/wheel-check}
rm -rf "$OUT" build/lib build/bdist.*
mkdir -p "$OUT"
# no isolation: pythran cannot be a [build-system] requirement (setup.py says why); this
# venv has it (tools/setup.sh)
"$PY" -m pip wheel --no-deps --no-build-isolation -w "$OUT/dist" . >"$OUT/build.log" 2>&1 \
    || { tail -30 "$OUT/build.log"; exit 1; }
WHEEL=$(ls "$OUT"/dist/fembody-*.whl)
echo "wheel-check: built $(basename "$WHEEL") ($(du -h "$WHEEL" | cut -f1)), $(unzip -l "$WHEEL" | grep -c '_ext/.*\.so$') kernel extensions"
BASE=$("$PY" -c "import sys; print(sys._base_executable)")
unset PYTHONPATH
"$BASE" -m venv "$OUT/venv"
"$OUT/venv/bin/python" -m pip install -q "$WHEEL" >"$OUT/pip.log" 2>&1 \
    || { tail -30 "$OUT/pip.log"; exit 1; }
# outside the source tree, so that the installed package is imported
cp tools/wheel_first_run.py "$OUT/"
cd "$OUT"
venv/bin/python wheel_first_run.py
