"""Offline sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, no torch.

The same pipeline as sentence-transformers' ``all-MiniLM-L6-v2``: WordPiece tokens truncated to
256 (``[CLS]`` and ``[SEP]`` included), mean pooling over the attention mask, L2 normalisation.

Speed comes from these, measured in ``bench/bench_embeddings.py``:
- identical texts are embedded once: vectors are cached by text hash in memory and in a SQLite
  file under ``data_dir()/embeddings`` (:mod:`core.embeddings.cache`; re-processing a chunk set
  only embeds what changed);
- texts are sorted by length and cut into batches under a word-piece budget, so padding is small
  and short texts (sentences, queries) share one model run;
- batches run on one ONNX session per core, in threads (onnxruntime releases the GIL), and a
  call with little work is cut into one batch per session so no core waits;
- the graph runs with its attention and GELU fused and without the export's NaN guards, which
  never fire here (:mod:`core.embeddings.graph`); onnxruntime's SkipLayerNormalization fusion is
  off, as its CPU kernel is slower here than the plain add and layer norm it replaces.

onnxruntime and the tokenizer load on first use, so importing this module is cheap.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from core.embeddings.cache import cache_for, cached_embed
from core.embeddings.model_files import MODEL_ID, model_path, tokenizer_path

if TYPE_CHECKING:
    from tokenizers import Tokenizer

DIMENSION = 384
MAX_WORD_PIECES = 256
# Word pieces per model run (batch size x padded length). Larger batches of long texts run
# slower per text on this CPU (the attention tensors leave the cache), so the budget is modest;
# it still lets ~60 short sentences share one run.
BATCH_WORD_PIECES = 1024
MAX_BATCH = 64
# onnxruntime fusions that make this graph slower on the CPUs measured (bench_embeddings.py).
SLOWER_FUSIONS = ("SkipLayerNormFusion",)


@cache
def _tokenizer() -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path()))
    tokenizer.enable_truncation(max_length=MAX_WORD_PIECES)
    tokenizer.no_padding()  # we pad each batch to its own longest text
    return tokenizer


@cache
def _counting_tokenizer() -> Tokenizer:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path()))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def word_pieces(text: str) -> int:
    """Word pieces MiniLM would read for ``text`` untruncated, ``[CLS]`` and ``[SEP]`` included.

    Above :data:`MAX_WORD_PIECES` the text is embedded truncated: its tail does not count.
    """
    return len(_counting_tokenizer().encode(text).ids)


def piece_spans(text: str) -> list[tuple[int, int]]:
    """Character span of each word piece of ``text`` (``[CLS]`` and ``[SEP]`` left out)."""
    encoding = _counting_tokenizer().encode(text)
    return [span for span, special in zip(encoding.offsets, encoding.special_tokens_mask,
                                          strict=True) if not special]


class _Runner:
    """One ONNX session per core; batches are spread over them from a small thread pool.

    ``model`` and ``disabled_fusions`` are for ``bench/bench_embeddings.py``, which times other
    graphs the same way.
    """

    def __init__(self, model: Path | None = None,
                 disabled_fusions: Sequence[str] = SLOWER_FUSIONS) -> None:
        import onnxruntime as ort

        workers = max(1, min(os.cpu_count() or 1, 4))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        graph = str(model or model_path())
        self.sessions = [
            ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"],
                                 disabled_optimizers=list(disabled_fusions))
            for _ in range(workers)
        ]
        self.inputs = {i.name for i in self.sessions[0].get_inputs()}
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="embed")
        self._free = list(range(workers))
        self._lock = threading.Lock()

    def _run_batch(self, ids: list[list[int]]) -> np.ndarray:
        length = max(len(row) for row in ids)
        input_ids = np.zeros((len(ids), length), dtype=np.int64)
        mask = np.zeros_like(input_ids)
        for i, row in enumerate(ids):
            input_ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        with self._lock:
            slot = self._free.pop()
        try:
            hidden = self.sessions[slot].run(None, feeds)[0]
        finally:
            with self._lock:
                self._free.append(slot)
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        encodings = _tokenizer().encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        # Little work (a few sentences): one batch per session rather than one for all.
        share = -(-sum(len(e.ids) for e in encodings) // len(self.sessions))
        budget = min(BATCH_WORD_PIECES, share)
        batches: list[list[int]] = []
        current: list[int] = []
        for index in order:  # ascending length: the last text of a batch is its padded length
            width = len(encodings[index].ids)
            full = width * (len(current) + 1) > budget or len(current) >= MAX_BATCH
            if current and full:
                batches.append(current)
                current = []
            current.append(index)
        if current:
            batches.append(current)
        results = self.pool.map(
            lambda batch: self._run_batch([encodings[i].ids for i in batch]), batches
        )
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for batch, vectors in zip(batches, results, strict=True):
            out[batch] = vectors
        return out


@cache
def _runner() -> _Runner:
    return _Runner()


_CACHE = cache_for(MODEL_ID, MODEL_ID)


def embed(texts: Sequence[str], *, use_cache: bool = True, persist: bool = True) -> np.ndarray:
    """Embed ``texts`` → array of shape ``(len(texts), 384)``, float32, each row of norm 1.

    Texts longer than :data:`MAX_WORD_PIECES` word pieces are embedded truncated. New vectors
    are cached in memory, and on disk unless ``persist`` is false (a one-off question: the disk
    write would cost as much as the model run).
    """
    texts = list(texts)
    if not texts:
        return np.zeros((0, DIMENSION), dtype=np.float32)
    return cached_embed(_CACHE, lambda todo: _runner().embed(todo), texts, use_cache=use_cache,
                        persist=persist)
