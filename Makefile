# fembody: `make test` and `make demo` each set everything up on a fresh Debian 12 machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.fembody-installed
# the compiled kernels (pythran extensions in fembody/_ext) are rebuilt when a module holding
# kernels changes (a stale export is not used: numba would compile that kernel at its first call)
KSTAMP := $(VENV)/.fembody-kernels
KERNEL_SRC := fembody/elements/kernels.py fembody/elements/beam/compiled.py \
	fembody/sparse_kernels.py \
	fembody/dynamics/_kernels.py fembody/linalg/envelope.py fembody/linalg/cholmod_spd.py \
	fembody/elements/beam/beam3d_numba.py fembody/space/quat_numba.py \
	fembody/space/planar_numba.py \
	fembody/elements/mass/rigid3d.py fembody/elements/mass/mass.py fembody/dynamics/lie.py \
	fembody/joints/kernels/spatial.py fembody/joints/kernels/planar.py \
	fembody/elements/spring/spring.py \
	fembody/joints/assembly.py fembody/statics/_kernels.py fembody/run/_kernels.py \
	fembody/linalg/_kernels.py fembody/elements/modal/modal3d_numba.py \
	fembody/dynamics/_step_kernels.py fembody/contact/_kernels.py \
	fembody/contact/_meet_kernels.py \
	tools/build_kernels.py

.PHONY: setup kernels test test-all test-optional demo wheel-check bench bench-quick docs clean

setup: $(STAMP) $(KSTAMP)

$(STAMP): pyproject.toml tools/setup.sh
	PYTHON=$(PYTHON) VENV=$(VENV) bash tools/setup.sh
	touch $(STAMP)
	touch $(KSTAMP)

$(KSTAMP): $(KERNEL_SRC) | $(STAMP)
	$(PY) tools/build_kernels.py
	touch $(KSTAMP)

kernels: $(KSTAMP)

# the suite on two pytest-xdist worker processes: a single pytest process keeps one core of
# the 2-core machines it runs on (a developer's, CI's) busy and leaves the other idle.
# --dist loadscope keeps each test module (and class) on one worker, so a module's fixtures
# start once (the Dask cluster of tests/test_study.py, the fresh interpreters of
# tests/test_startup.py), as in one process. `make test TEST_WORKERS=0` runs it in one
# process; `python -m pytest` alone (one file, say) stays serial.
TEST_WORKERS ?= 2
XDIST := -n $(TEST_WORKERS) --dist loadscope

test: $(STAMP) $(KSTAMP)
	$(PY) -m pytest -q $(XDIST)

test-all: $(STAMP) $(KSTAMP)
	$(PY) -m pytest -q -m "" $(XDIST)

# the optional LU backends, MKL Pardiso (pypardiso, with the mkl wheel) and MUMPS
# (python-mumps on the system's libmumps-dev, with mpi4py), in a venv of their own, and
# tests/linalg's backend tests run against them (a backend that did not install fails the
# run, not skipped). Not in `make test`: the MKL wheel alone is hundreds of MB and MUMPS
# needs a system library. UMFPACK is left out: scikit-umfpack does not build against
# Debian 12's SuiteSparse 5.12 with NumPy 2. Versions: the ones measured in
# benchmarks/results/linear_solvers.json. The kernels are not built for this venv (they are
# one in-tree file, .venv's): numba compiles them at first use.
OPT_VENV ?= .venv-optional
OPT_STAMP := $(OPT_VENV)/.fembody-optional-installed
OPTIONAL_BACKENDS ?= pardiso,mumps

$(OPT_STAMP): pyproject.toml
	@if ! [ -f /usr/include/dmumps_c.h ]; then \
	    if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	        echo "test-optional: installing libmumps-dev (MUMPS)"; \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libmumps-dev >/dev/null; \
	    else echo "test-optional: MUMPS needs libmumps-dev: apt-get install libmumps-dev"; fi; fi
	[ -x $(OPT_VENV)/bin/python ] || $(PYTHON) -m venv $(OPT_VENV)
	$(OPT_VENV)/bin/python -m pip install -q --upgrade pip setuptools wheel
	$(OPT_VENV)/bin/python -m pip install -q -e ".[dev,cholmod]" \
	    || $(OPT_VENV)/bin/python -m pip install -q -e ".[dev]"
	$(OPT_VENV)/bin/python -m pip install -q "pypardiso==0.4.7" "mpi4py==4.1.2" \
	    "python-mumps==0.0.4"
	touch $@

test-optional: $(OPT_STAMP)
	FEMBODY_REQUIRE_BACKENDS=$(OPTIONAL_BACKENDS) $(OPT_VENV)/bin/python -m pytest -q \
	    tests/linalg/test_backends.py tests/linalg/test_sparse_lu.py

demo: $(STAMP) $(KSTAMP)
	$(VENV)/bin/fembody demo

# the wheel (a PEP 517 build; it copies the up-to-date extensions of `kernels`) installed into a
# fresh venv without pythran or a compiler, where the demo must run with nothing compiled and
# numba not imported (tools/check_wheel.sh)
wheel-check: $(STAMP) $(KSTAMP)
	PY=$(PY) bash tools/check_wheel.sh

# the benchmark suite (benchmarks/README.md); bench-quick: every case once, small (CI)
bench: $(STAMP) $(KSTAMP)
	$(PY) -m benchmarks

bench-quick: $(STAMP) $(KSTAMP)
	$(PY) -m benchmarks --quick

# the API reference and the example gallery (docs/_build/html/index.html); warnings are errors
DOCS_STAMP := $(VENV)/.fembody-docs-installed
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install -q -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

clean:
	rm -f fembody/_ext/*.so fembody/_ext/*.sha1
	rm -rf $(VENV) $(OPT_VENV) build dist *.egg-info .pytest_cache .hypothesis docs/_build docs/auto_examples
