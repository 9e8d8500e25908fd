# `make run` starts the app, `make test` checks and tests everything; both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test check lint typecheck bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

# The repository as an installed (editable) project: `core` and `ui` import from anywhere.
$(VENV)/.project: pyproject.toml $(VENV)/.runtime
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.test: requirements-test.txt $(VENV)/.project
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

run: $(VENV)/.project
	$(PY) -m streamlit run app.py --server.address $(HOST) --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false \
		--server.fileWatcherType none

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .

typecheck: $(VENV)/.test
	$(VENV)/bin/mypy

check: lint typecheck

test: check
	bash scripts/ensure_chromium.sh
	$(PY) -m pytest

clean:
	rm -rf $(VENV) chunklab.egg-info
