# boardlab: simulation and balance analysis for tabletop games.  `make run` and `make test` work on a fresh machine.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: run reproduce-full docs test test-slow test-all smoke-wheel bench lint format clean clean-cache

$(STAMP): pyproject.toml examples/pig/pyproject.toml examples/hearts-lite/pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "make: $(PYTHON) not found (set PYTHON=...)" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,docs]'
	$(PY) -m pip install --quiet -e examples/pig  # the example game, found through its entry point (docs/your-own-game.md)
	$(PY) -m pip install --quiet -e examples/hearts-lite  # the hidden-information example game (docs/games/heartslite.md)
	$(VENV)/bin/boardlab warmup --jobs $(JOBS)  # every game's kernels compiled, a step of its own (cached after)
	@touch $(STAMP)

## run: the main job, the rulebook appendix's reproduction, at its quick size (a few minutes on 2 cores)
GAMES ?= 2000
run: $(STAMP)
	$(VENV)/bin/boardlab warmup --game citywright --jobs $(JOBS)  # compiled at install; again if a kernel changed
	$(VENV)/bin/citywright reproduce --games $(GAMES) --jobs $(JOBS)

## reproduce-full: the committed results/appendix (about 1.6 million games; see results/appendix/REPORT.md)
reproduce-full: $(STAMP)
	$(VENV)/bin/boardlab reproduce --game citywright --games 100000 --jobs $(JOBS) --out results/appendix

## test: the test suite without the long statistical and differential tests (its budget: 6 minutes on 2 cores; docs/guides/project.md)
test: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadgroup -m "not slow"

## test-slow: the long statistical and differential tests (marked slow); CI runs them after make test
test-slow: $(STAMP)
	$(PY) -m pytest -q -n 2 -m slow

## test-all: everything
test-all: $(STAMP)
	$(PY) -m pytest -q -n 2

## smoke-wheel: build the wheel, install it into a fresh venv outside the checkout, and use it from there
## (every game and tier at a few games, rules, score, the public API); CI runs it after the tests
smoke-wheel: $(STAMP)
	rm -rf dist && $(PY) -m pip wheel --quiet --no-deps -w dist .
	@set -e; dir=$$(mktemp -d /tmp/boardlab-wheel-XXXXXX); \
	$(PYTHON) -m venv $$dir/venv; \
	$$dir/venv/bin/python -m pip install --quiet dist/boardlab-*.whl; \
	cd $$dir && $$dir/venv/bin/python $(CURDIR)/.ci/wheel_smoke.py; \
	rm -rf $$dir

## docs: the documentation site into site/ (strict: any warning or broken link fails; no network needed)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet -d site

## bench: engine throughput on this machine
bench: $(STAMP)
	$(VENV)/bin/citywright bench

## lint: ruff (style and errors) and mypy (types of the public API and the core: [tool.mypy] in pyproject.toml)
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean-cache:  ## drop numba caches (numba does not notice changes in other modules a kernel calls)
	find boardlab -name "*.nbi" -delete -o -name "*.nbc" -delete

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
