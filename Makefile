# `make run` starts the app, `make test` runs every test; both set up .venv on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(PY)
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.test: requirements-test.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

run: $(VENV)/.runtime
	$(PY) -m streamlit run app.py --server.address $(HOST) --server.port $(PORT) \
		--server.headless true --browser.gatherUsageStats false

test: $(VENV)/.test
	bash scripts/ensure_chromium.sh
	$(PY) -m pytest

lint: $(VENV)/.test
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV)
