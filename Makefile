# Citywright balance toolkit.  `make run` and `make test` work on a fresh machine.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench lint format clean clean-cache

$(STAMP): pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found (set PYTHON=...)" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

## run: the main job at its default size (prints a summary)
run: $(STAMP)
	$(VENV)/bin/citywright demo

## test: the whole test suite
test: $(STAMP)
	$(PY) -m pytest -q

## bench: engine throughput on this machine
bench: $(STAMP)
	$(VENV)/bin/citywright bench

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean-cache:  ## drop numba caches (numba does not notice changes in other modules a kernel calls)
	find sim agents -name "*.nbi" -delete -o -name "*.nbc" -delete

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
