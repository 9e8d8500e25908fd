"""Embedding throughput: a plain onnxruntime loop (one text per run) against core.embeddings.

Same model, same tokenizer settings (truncation at 256 word pieces), same texts, one run:

    .venv/bin/python bench/bench_embeddings.py [--chunks 400] [--sentences 400]

Three workloads: chunks of ~250 tiktoken tokens cut from generated prose (the ingest case),
short sentences (the semantic chunker's case), and the chunks again with the cache on (the
re-processing case: identical chunk texts are not embedded again).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import os  # noqa: E402

os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-bench-"))

import onnxruntime as ort  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

from core import embeddings  # noqa: E402
from core.tokens import encode, get_encoding  # noqa: E402

SUBJECTS = ["The insurer", "Each policyholder", "The claims adjuster", "A tenant", "The operator",
            "The maintenance team", "Our auditor", "The contractor", "The homeowner", "The board"]
VERBS = ["reviews", "documents", "excludes", "covers", "inspects", "reports", "approves",
         "calculates", "replaces", "schedules"]
OBJECTS = ["water damage from burst pipes", "the annual deductible", "storm and hail losses",
           "the coverage limit for contents", "every pump and valve", "the quarterly premium",
           "theft of personal property", "the liability claim", "fire damage to the dwelling",
           "the renewal endorsement"]
TAILS = ["within thirty days of the loss", "before the policy renews", "as the schedule requires",
         "unless the exclusion applies", "after the site visit", "according to the handbook",
         "when the limit is exceeded", "with a signed statement", "during the grace period",
         "in the written report"]


def prose(sentences: int, rng: random.Random) -> str:
    return " ".join(
        f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."
        + ("\n\n" if rng.random() < 0.15 else "")
        for _ in range(sentences)
    )


def token_chunks(count: int, size: int, rng: random.Random) -> list[str]:
    tokens = encode(prose(count * size // 9 + 50, rng))
    decoder = get_encoding()
    return [decoder.decode(tokens[i * size : (i + 1) * size]) for i in range(count)]


class PlainLoop:
    """The reference: default session, one text per run, no batching, no cache."""

    def __init__(self) -> None:
        self.session = ort.InferenceSession(
            str(embeddings._model_path()), providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(embeddings._tokenizer_path()))
        self.tokenizer.enable_truncation(max_length=embeddings.MAX_WORD_PIECES)
        self.tokenizer.no_padding()

    def embed(self, texts: list[str]) -> np.ndarray:
        out = []
        for text in texts:
            ids = np.array([self.tokenizer.encode(text).ids], dtype=np.int64)
            mask = np.ones_like(ids)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self.session.run(None, feeds)[0]
            pooled = hidden.mean(axis=1)
            out.append(pooled[0] / np.linalg.norm(pooled[0]))
        return np.stack(out)


def timed(function, texts: list[str]) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    vectors = function(texts)
    return len(texts) / (time.perf_counter() - start), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--sentences", type=int, default=400)
    args = parser.parse_args()
    rng = random.Random(7)
    chunks = token_chunks(args.chunks, 250, rng)
    sentences = [prose(1, rng).strip() for _ in range(args.sentences)]
    pieces = [min(embeddings.word_pieces(c), embeddings.MAX_WORD_PIECES) for c in chunks]

    plain = PlainLoop()
    plain.embed(chunks[:2])
    embeddings.embed(chunks[:2], use_cache=False)  # load both sessions before timing

    rows = []
    for label, texts in [("chunks ~250 tokens", chunks), ("short sentences", sentences)]:
        reference, ref_vectors = timed(plain.embed, texts)
        ours, our_vectors = timed(lambda t: embeddings.embed(t, use_cache=False), texts)
        agreement = float(np.min(np.sum(ref_vectors * our_vectors, axis=1)))
        rows.append((label, len(texts), reference, ours, agreement))
    embeddings.embed(chunks)  # fill the cache
    cached, _ = timed(embeddings.embed, chunks)
    rows.append(("chunks again (cached)", len(chunks), rows[0][2], cached, 1.0))

    print(f"texts: chunks mean {np.mean(pieces):.0f} word pieces (truncated at 256); "
          f"cores: {os.cpu_count()}")
    header = ("workload", "n", "plain loop/s", "ours/s", "ratio", "min cos")
    print("{:24} {:>5} {:>13} {:>9} {:>7} {:>8}".format(*header))
    for label, n, reference, ours, agreement in rows:
        print(f"{label:24} {n:5d} {reference:13.1f} {ours:9.1f} {ours / reference:6.2f}x "
              f"{agreement:8.5f}")


if __name__ == "__main__":
    main()
