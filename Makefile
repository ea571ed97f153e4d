# familiars: `make run` installs and starts the bot; `make test` installs and runs the tests.
#
# CONSTRAINTS pins the CPU build of PyTorch for development and CI. If you installed a CUDA
# build of torch yourself, run `make run CONSTRAINTS=` to keep it.

PYTHON ?= python3
VENV ?= .venv
CONSTRAINTS ?= constraints-cpu.txt
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
CFLAGS_PIP := $(if $(CONSTRAINTS),-c $(CONSTRAINTS),)

.PHONY: install install-dev run test test-fast lint format bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml $(CONSTRAINTS) | $(PY)
	$(PIP) install --quiet $(CFLAGS_PIP) -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(CONSTRAINTS) | $(PY)
	$(PIP) install --quiet $(CFLAGS_PIP) -e '.[dev]'
	touch $(VENV)/.installed $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

run: install
	$(VENV)/bin/familiars run

test: install-dev
	$(PY) -m pytest $(PYTEST_ARGS)

# The inner loop: everything but the tests marked slow (real processes, faults, load runs).
test-fast: install-dev
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

lint: install-dev
	$(VENV)/bin/ruff check familiars tests
	$(VENV)/bin/ruff format --check familiars tests
	$(VENV)/bin/mypy familiars
	$(VENV)/bin/lint-imports

format: install-dev
	$(VENV)/bin/ruff format familiars tests
	$(VENV)/bin/ruff check --fix familiars tests

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
