# fembody: `make test` and `make demo` each set everything up on a fresh Debian 12 machine.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.fembody-installed

.PHONY: setup test test-all demo bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml tools/setup.sh
	PYTHON=$(PYTHON) VENV=$(VENV) bash tools/setup.sh
	touch $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

test-all: $(STAMP)
	$(PY) -m pytest -q -m ""

demo: $(STAMP)
	$(VENV)/bin/fembody demo

bench: $(STAMP)
	$(PY) benchmarks/assembly.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
