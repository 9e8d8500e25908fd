"""Embedding throughput: a plain onnxruntime loop (one text per run) against core.embeddings.

Same model, same tokenizer settings (truncation at MAX_WORD_PIECES word pieces), same texts,
one run. From the repository root:

    .venv/bin/python -m bench.bench_embeddings [--chunks 400] [--sentences 400] [--int8]

Workloads: chunks of ~250 tiktoken tokens cut from generated prose (the ingest case), short
sentences (the semantic chunker's case), the chunks again with the cache on (the re-processing
case: identical chunk texts are not embedded again), and the shipped samples cut by recursive
500/50 (real text: prose, tables, a transcript, slides).

Three graphs of the same model are raced on the chunks and on the samples, each run the way core
runs its own (a session per core, batches by length): ours (NaN guards dropped, attention and
GELU fused by :mod:`core.embeddings.graph`); the shipped graph with only the NaN guards dropped,
onnxruntime's session fusions all on ("unfused"); and the same graph through onnxruntime's own
transformer optimizer (``onnxruntime.transformers.optimizer``, BERT fusions; it needs sympy,
which requirements-bench.txt installs, and is left out without it).

Then the ceiling: the floating-point work of one chunk (from MiniLM-L6's shape) against this
machine's fp32 matrix-multiply rate on the model's largest product, with numpy (all cores) and
with onnxruntime's own kernels (one single-threaded session per core, as core runs them),
i.e. how far any fp32 run of this model could get ahead of the plain loop here. ``--int8``
adds the one way past that ceiling we tried: int8 activations, which change the vectors.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from bench.corpora.prose import prose, token_chunks
from bench.quick import add_quick
from bench.scoring.ceilings import (
    flops_per_text,
    matmul_peak_gflops,
    onnxruntime_matmul_peak_gflops,
)
from core import embeddings
from core.documents import convert
from core.embeddings import model_files
from core.embeddings.encoder import DIMENSION, _Runner
from core.embeddings.graph import NUM_HEADS, guards_only
from core.operations.presets import preset
from core.operations.strategies import chunk

SAMPLES = Path(__file__).resolve().parents[1] / "sample_docs"


class PlainLoop:
    """The reference: default session, one text per run, no batching, no cache."""

    def __init__(self, model: Path | None = None) -> None:
        self.session = ort.InferenceSession(
            str(model or model_files.shipped_model_path()), providers=["CPUExecutionProvider"]
        )
        self.tokenizer = Tokenizer.from_file(str(model_files.tokenizer_path()))
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


def int8_compute_model(folder: Path) -> Path:
    """The shipped model with int8 activations too (onnxruntime's dynamic quantization).

    The shipped weights are int8 but are cast to fp32 before each MatMul, so the compute is
    fp32. Dequantized to fp32 initializers and quantized again per channel, the MatMuls run on
    int8: faster, but the vectors move (the "min cos" column says how far).
    """
    import onnx
    from onnx import numpy_helper
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load_from_string(guards_only(model_files.shipped_model_path().read_bytes()))
    graph = model.graph
    initial = {tensor.name: tensor for tensor in graph.initializer}
    producer = {output: node for node in graph.node for output in node.output}
    dequantized, dropped = [], set()
    for node in graph.node:
        cast = producer.get(node.input[0]) if node.op_type == "Mul" else None
        if cast is not None and cast.op_type == "Cast" and cast.input[0] in initial:
            weight = numpy_helper.to_array(initial[cast.input[0]]).astype(np.float32)
            weight = weight * numpy_helper.to_array(initial[node.input[1]])
            dequantized.append(numpy_helper.from_array(weight, node.output[0]))
            dropped.update((id(node), id(cast)))
    kept = [node for node in graph.node if id(node) not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(dequantized)
    onnx.save(model, str(folder / "fp32.onnx"))
    quantize_dynamic(folder / "fp32.onnx", folder / "int8.onnx", per_channel=True,
                     weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"])
    return folder / "int8.onnx"


def transformer_optimized(folder: Path) -> Path | None:
    """The guards-only graph through onnxruntime's transformer optimizer (None without sympy).

    Its level 0 (the Python fusions only): the levels above first run onnxruntime's session
    optimizer, which imports torch; the session that runs the graph does that pass anyway."""
    try:
        import sympy  # noqa: F401  (the optimizer's shape inference needs it)
    except ImportError:
        return None
    import onnx
    from onnxruntime.transformers.optimizer import optimize_model

    graph = onnx.load_from_string(guards_only(model_files.shipped_model_path().read_bytes()))
    optimized = optimize_model(graph, model_type="bert", num_heads=NUM_HEADS,
                               hidden_size=DIMENSION, opt_level=0)
    print("onnxruntime's transformer optimizer fused: " + ", ".join(
        f"{count} {name}" for name, count in optimized.get_fused_operator_statistics().items()
        if count))
    optimized.save_model_to_file(str(folder / "transformer-optimized.onnx"))
    return folder / "transformer-optimized.onnx"


def sample_chunks(documents: int | None) -> list[str]:
    """The shipped samples cut by recursive 500/50: the texts an ingest of them embeds."""
    settings = preset("recursive 500/50")
    paths = sorted(p for p in SAMPLES.iterdir() if p.is_file() and p.suffix != ".py")
    return [c.text for path in paths[:documents]
            for c in chunk(convert(path.read_bytes(), path.name), settings.strategy,
                           settings.settings)]


# all-MiniLM-L6-v2: 6 layers, hidden 384, feed-forward 1536.


def timed(function, texts: list[str]) -> tuple[float, np.ndarray]:
    start = time.perf_counter()
    vectors = function(texts)
    return len(texts) / (time.perf_counter() - start), vectors


def raced(functions: list, texts: list[str], slices: int = 10) -> list[tuple[float, np.ndarray]]:
    """Texts per second and vectors of each function, timed slice by slice in turn, so that a
    change in the machine's load (other programs) weighs on every function alike."""
    seconds = [0.0] * len(functions)
    parts: list[list[np.ndarray]] = [[] for _ in functions]
    step = -(-len(texts) // slices)
    for start in range(0, len(texts), step):
        for n, function in enumerate(functions):
            began = time.perf_counter()
            parts[n].append(function(texts[start : start + step]))
            seconds[n] += time.perf_counter() - began
    return [(len(texts) / s, np.concatenate(p)) for s, p in zip(seconds, parts, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=400)
    parser.add_argument("--sentences", type=int, default=400)
    parser.add_argument("--int8", action="store_true",
                        help="also time a plain loop over an int8-activation copy of the model")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.chunks = args.sentences = 8
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-bench-"))
    rng = random.Random(7)
    chunks = token_chunks(args.chunks, 250, rng)
    sentences = [prose(1, rng).strip() for _ in range(args.sentences)]
    samples = sample_chunks(1 if args.quick else None)
    pieces = [min(embeddings.word_pieces(c), embeddings.MAX_WORD_PIECES) for c in chunks]

    plain = PlainLoop()
    plain.embed(chunks[:2])
    embeddings.embed(chunks[:2], use_cache=False)  # load both sessions before timing

    unfused = Path(tempfile.mkdtemp(prefix="chunklab-unfused-")) / "guards-only.onnx"
    unfused.write_bytes(guards_only(model_files.shipped_model_path().read_bytes()))
    before = _Runner(unfused, disabled_fusions=())
    before.embed(chunks[:2])

    def ours(texts: list[str]) -> np.ndarray:
        return embeddings.embed(texts, use_cache=False)

    graphs = {"ours": ours, "unfused graph": before.embed}
    optimized_graph = transformer_optimized(unfused.parent)
    if optimized_graph is not None:
        optimized = _Runner(optimized_graph, disabled_fusions=())
        optimized.embed(chunks[:2])
        graphs["onnxruntime optimizer"] = optimized.embed
    extra = {}
    if args.int8:
        int8 = PlainLoop(int8_compute_model(Path(tempfile.mkdtemp(prefix="chunklab-int8-"))))
        int8.embed(chunks[:2])
        extra["int8 activations"] = int8.embed

    def row(label: str, texts: list[str], reference: tuple[float, np.ndarray],
            measured: tuple[float, np.ndarray]) -> tuple:
        agreement = float(np.min(np.sum(reference[1] * measured[1], axis=1)))
        return label, len(texts), reference[0], measured[0], agreement

    reference, *runs = raced([plain.embed, *graphs.values(), *extra.values()], chunks)
    by_graph = dict(zip([*graphs, *extra], runs, strict=True))
    fast = by_graph["ours"]
    short = raced([plain.embed, ours], sentences)
    sample_reference, *sample_runs = raced([plain.embed, *graphs.values()], samples)
    embeddings.embed(chunks)  # fill the cache
    cached = timed(embeddings.embed, chunks)
    rows = [row("chunks ~250 tokens", chunks, reference, fast),
            *(row(f"chunks, {name}", chunks, reference, run)
              for name, run in by_graph.items() if name != "ours"),
            row("short sentences", sentences, *short),
            row("chunks again (cached)", chunks, reference, (cached[0], fast[1])),
            *(row("samples" if name == "ours" else f"samples, {name}", samples,
                  sample_reference, run)
              for name, run in zip(graphs, sample_runs, strict=True))]

    print(f"texts: chunks mean {np.mean(pieces):.0f} word pieces "
          f"(truncated at {embeddings.MAX_WORD_PIECES}); "
          f"cores: {os.cpu_count()}")
    header = ("workload", "n", "plain loop/s", "ours/s", "ratio", "min cos")
    print("{:32} {:>5} {:>13} {:>9} {:>7} {:>8}".format(*header))
    for label, n, base, rate, agreement in rows:
        print(f"{label:32} {n:5d} {base:13.1f} {rate:9.1f} {rate / base:6.2f}x "
              f"{agreement:8.5f}")

    length = round(float(np.mean(pieces)))
    gflop = flops_per_text(length) / 1e9
    work, ours_rate = reference[0] * gflop, fast[0] * gflop
    peaks = {"numpy": matmul_peak_gflops(length),
             "onnxruntime": onnxruntime_matmul_peak_gflops(length)}
    peak = max(peaks.values())
    print(f"\nceiling: a {length}-piece chunk is {gflop:.2f} GFLOP; the plain loop runs "
          f"{work:.0f} GFLOP/s, ours {ours_rate:.0f} GFLOP/s; the fp32 matmul peak here is "
          + ", ".join(f"{rate:.0f} GFLOP/s with {name}" for name, rate in peaks.items())
          + f":\nno fp32 run of this model can beat the plain loop by more than "
          f"{peak / work:.2f}x on this machine; ours is at {ours_rate / work:.2f}x "
          f"({ours_rate / peak:.0%} of the peak)")


if __name__ == "__main__":
    main()
