"""Recursive chunking speed: ours against LangChain, Chonkie, semchunk and raw tiktoken.

Same texts, same tokens (cl100k), same target (500 tokens, overlap 50 where the peer has
overlap), one run, best of ``--repeat`` interleaved rounds; prints MB/s and ratios to raw
tiktoken encode and to Chonkie (given tiktoken, as a user passing an encoding does) by wall
clock and by CPU time (the process's, every thread: steadier when other processes share the
cores), and the load average. From the repository root:

    .venv/bin/python -m bench.bench_chunkers [--mb 5] [--repeat 5] [--cli]
    .venv/bin/python -m bench.bench_chunkers --grouped [--docs FOLDER] [--repeat 2]

Our token counts are tiktoken's exactly, computed by :mod:`core.tokens` (tokie wherever it
agrees with tiktoken); two reference rows show what that costs: "exact encode (core.tokens)",
the encoding our chunker starts from, and Chonkie given the same tokie tokenizer (its own
default backend; its counts then follow tokie where tokie and tiktoken differ).

``--grouped`` measures instead the strategies that chunk by meaning, on realistic text (every
sample document, or the documents of ``--docs FOLDER``, converted): semantic (400 tokens,
sentences by MiniLM) beside cluster (200 tokens, pieces of 50 by the set's embedder, here
MiniLM), each cold (no vector cached: every unit embedded) and warm (a re-chunk at another size,
every vector cached), best of ``--repeat``; with the chunks and median tokens of each and of
recursive 500/50 and of semantic without its floor (``min_share=0``, as before it had one).

``--cli`` measures instead what a user meets: ``python -m core chunk BIG.txt --strategy
recursive`` (a new process: imports, encoder load, conversion, chunking, JSON lines out) against
a new process that loads tiktoken and encodes the same text, both net of the same run on a tiny
file, so start-up costs cancel out: ratio = (cold encode big - tiny) / (CLI big - tiny), by wall
clock (what the user waits) and by CPU time (user + system of the process). BIG is
``--mb`` MB of realistic text: the converted sample documents, repeated, for two thirds, and the
generated prose for the rest.

The peers come from ``.venv/bin/pip install -r requirements-bench.txt``; a peer that is not
installed is skipped with a note.

Corpora: every sample document (converted text, one call per document) and a generated prose
text of ``--mb`` MB. "ours" is ``RecursiveChunker.chunk`` end to end (``Chunk`` objects with
offsets, exact token counts and heading paths); the peers return plain strings. Also printed:
the largest chunk each splitter makes, by exact count.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.quick import add_quick
from core.chunking.recursive import DEFAULT_SEPARATORS
from core.chunking.registry import build_chunker
from core.documents import convert
from core.documents.model import Document
from core.embeddings import BUILTIN, embed
from core.embeddings.cache import cache_for, embedded_texts
from core.tokens import count_tokens, encode_array, get_encoding
from core.tokens.fast import fast_encoder

ROOT = Path(__file__).resolve().parent.parent
SIZE, OVERLAP = 500, 50
WORDS = (
    "the policy covers sudden and accidental damage to the dwelling other structures personal "
    "property caused by fire lightning windstorm hail explosion smoke vandalism theft falling "
    "objects weight of ice snow or sleet water discharge from plumbing subject to deductible "
    "limits exclusions conditions endorsements schedule insured premium claim adjuster inspection "
    "replacement cost actual cash value depreciation within days notice written proof loss"
).split()


def generated_text(megabytes: float, seed: int = 7) -> str:
    """Prose with headings, lists, numbers and paragraphs of uneven length."""
    rng = random.Random(seed)
    out: list[str] = []
    size = 0
    while size < megabytes * 1_000_000:
        kind = rng.random()
        if kind < 0.08:
            block = f"## Section {rng.randint(1, 99)}.{rng.randint(1, 9)} " + " ".join(
                rng.choice(WORDS) for _ in range(rng.randint(2, 6))).title()
        elif kind < 0.2:
            block = "\n".join(
                f"- {' '.join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))}; "
                f"limit ${rng.randint(1, 900)},{rng.randint(100, 999)}"
                for _ in range(rng.randint(2, 7)))
        else:
            block = " ".join(
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 28))).capitalize() + "."
                for _ in range(rng.randint(1, 12)))
        out.append(block)
        size += len(block) + 2
    return "\n\n".join(out)


def splitters() -> dict[str, Callable[[str], list]]:
    enc = get_encoding("cl100k_base")
    ours = build_chunker("recursive", size=SIZE, overlap=OVERLAP, unit="tokens", tables=False)

    def run_ours(text: str) -> list[str]:
        doc = Document(doc_id="0" * 16, source_name="bench.txt", format="txt", route="text",
                       text=text)
        return [c.text for c in ours.chunk(doc)]

    def raw_encode(text: str) -> list:
        return enc.encode_ordinary(text)

    def fixed_tokens(text: str) -> list[str]:
        tokens = enc.encode_ordinary(text)
        step = SIZE - OVERLAP
        return [enc.decode(tokens[i : i + SIZE]) for i in range(0, len(tokens), step)]

    out: dict[str, Callable[[str], list]] = {
        "raw tiktoken encode": raw_encode,
        "exact encode (core.tokens)": lambda text: encode_array(text),
        "fixed-token slicing": fixed_tokens,
        "ours recursive 500/50": run_ours,
    }
    try:
        from chonkie import RecursiveChunker, RecursiveLevel, RecursiveRules

        rules = RecursiveRules(levels=[
            *(RecursiveLevel(delimiters=[s]) for s in DEFAULT_SEPARATORS if s != " "),
            RecursiveLevel(whitespace=True),
            RecursiveLevel(),
        ])
        chonkie = RecursiveChunker(tokenizer=enc, chunk_size=SIZE, rules=rules)
        out["chonkie RecursiveChunker (no overlap)"] = lambda t: [c.text for c in chonkie(t)]
        fast = fast_encoder("cl100k_base")
        if fast is not None:  # Chonkie's own default backend, given our tokie tokenizer
            chonkie_tokie = RecursiveChunker(tokenizer=fast.tokenizer, chunk_size=SIZE,
                                             rules=rules)
            out["chonkie, tokie tokenizer (no overlap)"] = (
                lambda t: [c.text for c in chonkie_tokie(t)])
    except ImportError:
        print("chonkie not installed: pip install -r requirements-bench.txt")
    try:
        import semchunk

        sem = semchunk.chunkerify(enc, SIZE)
        out["semchunk 500/50"] = lambda t: sem(t, overlap=OVERLAP)
    except ImportError:
        print("semchunk not installed: pip install -r requirements-bench.txt")
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        lc = RecursiveCharacterTextSplitter(
            chunk_size=SIZE, chunk_overlap=OVERLAP, separators=list(DEFAULT_SEPARATORS),
            length_function=lambda s: len(enc.encode_ordinary(s)),
        )
        out["langchain RecursiveCharacterTextSplitter"] = lc.split_text
    except ImportError:
        print("langchain-text-splitters not installed: pip install -r requirements-test.txt")
    return out


def report(name: str, texts: list[str], repeat: int) -> None:
    """Every splitter once per round, rounds repeated: the best of each is compared, so a
    neighbour's load burst on a shared machine hits all splitters alike."""
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"\n== {name}: {len(texts)} text(s), {megabytes:.2f} MB, best of {repeat} rounds ==")
    best: dict[str, float] = {}
    best_cpu: dict[str, float] = {}
    results: dict[str, list] = {}
    for _ in range(repeat):
        for label, fn in splitters().items():  # fresh instances: Chonkie memoises counts
            fn(texts[0][:1000])  # warm-up: lazy tables, imports
            cpu, start = time.process_time(), time.perf_counter()
            results[label] = [fn(t) for t in texts]
            best[label] = min(best.get(label, float("inf")), time.perf_counter() - start)
            best_cpu[label] = min(best_cpu.get(label, float("inf")), time.process_time() - cpu)
    rows = []
    for label, seconds in best.items():
        chunks = [] if "encode" in label else [c for r in results[label] for c in r]
        largest = max((count_tokens(c) for c in chunks), default=0)
        rows.append((label, megabytes / seconds, megabytes / best_cpu[label], len(chunks),
                     largest))
    encode, encode_cpu = next(r[1:3] for r in rows if r[0] == "raw tiktoken encode")
    chonkie, chonkie_cpu = next((r[1:3] for r in rows if r[0].startswith("chonkie Recursive")),
                                (None, None))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          "by wall clock | by CPU time")
    head = (f"{'MB/s':>7} {'÷encode':>8} {'÷chonkie':>9} | {'MB/s':>7} {'÷encode':>8} "
            f"{'÷chonkie':>9} {'chunks':>7} {'max tok':>8}")
    print(f"{'splitter':42} {head}")
    for label, speed, speed_cpu, count, largest in rows:
        vs_chonkie = f"{speed / chonkie:.2f}" if chonkie else "-"
        vs_chonkie_cpu = f"{speed_cpu / chonkie_cpu:.2f}" if chonkie_cpu else "-"
        print(f"{label:42} {speed:7.2f} {speed / encode:8.2f} {vs_chonkie:>9} | "
              f"{speed_cpu:7.2f} {speed_cpu / encode_cpu:8.2f} {vs_chonkie_cpu:>9} "
              f"{count:7d} {largest or '-':>8}")


# The reference: a new process that loads tiktoken (from the same offline cache) and encodes.
COLD_ENCODE = (
    "import sys\n"
    "from core.tokens import get_encoding\n"
    "text = open(sys.argv[1], encoding='utf-8').read()\n"
    "get_encoding('cl100k_base').encode_ordinary(text)\n"
)


def long_text(texts: list[str], megabytes: float) -> str:
    """Two thirds real documents (repeated), one third generated prose."""
    real = "\n\n".join(texts)
    size = int(megabytes * 1_000_000)
    repeated = "\n\n".join([real] * (2 * size // (3 * len(real)) + 1))[: 2 * size // 3]
    return repeated + "\n\n" + generated_text(megabytes / 3)


def cli_report(texts: list[str], megabytes: float, repeat: int) -> None:
    """``python -m core chunk`` on a big and a tiny file against a cold encode of the same."""
    with tempfile.TemporaryDirectory(prefix="chunklab-cli-bench-") as folder:
        big, tiny = Path(folder) / "big.txt", Path(folder) / "tiny.txt"
        big.write_text(long_text(texts, megabytes), encoding="utf-8")
        tiny.write_text("A tiny file.\n", encoding="utf-8")
        wall, cpu = _time_runs(big, tiny, repeat)
        megabytes = big.stat().st_size / 1e6
    print(f"\n== CLI, {megabytes:.2f} MB text file, best of {repeat} rounds ==")
    for name, best in (("wall clock", wall), ("CPU time", cpu)):
        print(f"{name + ' of':42} {'big s':>7} {'tiny s':>7} {'net s':>7} {'MB/s':>7}")
        net = {}
        for label in CLI_RUNS:
            big_s, tiny_s = best[(label, "big.txt")], best[(label, "tiny.txt")]
            net[label] = big_s - tiny_s
            print(f"{label:42} {big_s:7.2f} {tiny_s:7.2f} {net[label]:7.2f} "
                  f"{megabytes / net[label]:7.2f}")
        cli, cold = net.values()
        print(f"ratio by {name} (cold encode net / CLI net): {cold / cli:.2f}  "
              "(goal: at least 0.75)\n")


CLI_RUNS = {
    "python -m core chunk --strategy recursive": [
        sys.executable, "-m", "core", "chunk", "{}", "--strategy", "recursive"],
    "cold process: load tiktoken, encode": [sys.executable, "-c", COLD_ENCODE, "{}"],
}


def _time_runs(big: Path, tiny: Path, repeat: int
               ) -> tuple[dict[tuple[str, str], float], dict[tuple[str, str], float]]:
    """Best wall-clock and CPU seconds of each process on each file."""
    get_encoding("cl100k_base")  # the BPE file is in the data folder the children share
    wall: dict[tuple[str, str], float] = {}
    cpu: dict[tuple[str, str], float] = {}
    for _ in range(repeat):  # interleaved: a neighbour's burst hits both alike
        for label, command in CLI_RUNS.items():
            for path in (big, tiny):
                argv = [str(path) if a == "{}" else a for a in command]
                used = _children_cpu()
                start = time.perf_counter()
                subprocess.run(argv, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
                key = (label, path.name)
                wall[key] = min(wall.get(key, float("inf")), time.perf_counter() - start)
                cpu[key] = min(cpu.get(key, float("inf")), _children_cpu() - used)
    return wall, cpu


# (column, strategy, settings): the first two for their chunk sizes only
GROUPED = [("recursive", "recursive", {"size": 500, "overlap": 50}),
           ("no floor", "semantic", {"size": 400, "min_share": 0.0}),
           ("semantic", "semantic", {"size": 400}), ("cluster", "cluster", {"size": 200})]
RE_CHUNK = {"semantic": 300, "cluster": 300}  # the warm run's size


def _cold(folder: Path) -> None:
    """No vector cached: a new data folder, and MiniLM's memory part emptied."""
    os.environ["CHUNKLAB_DATA_DIR"] = tempfile.mkdtemp(dir=folder)
    cache_for(BUILTIN.namespace, BUILTIN.cache_stem).memory.clear()


def _timed(run: Callable[[], object]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (the process's, every thread) of ``run()``."""
    cpu, start = time.process_time(), time.perf_counter()
    run()
    return time.perf_counter() - start, time.process_time() - cpu


def grouped_report(documents: list[Document], repeat: int) -> None:
    """Semantic against cluster chunking on the same documents, cold and warm."""
    print(f"\n== chunking by meaning, {len(documents)} documents, "
          f"{sum(len(d.text) for d in documents):,} characters, best of {repeat} ==")
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; chunks/median "
          "tokens; seconds (wall clock/CPU) cold (every unit embedded) and warm (a re-chunk at "
          "300 tokens, every vector cached); units: texts embedded")
    head = f"{'document':30} {'recursive':>9} {'no floor':>9}"
    for name in RE_CHUNK:
        head += f" | {name:>9} {'cold s':>11} {'warm s':>11} {'units':>5}"
    print(head)
    totals = {name: [0.0] * 5 for name in RE_CHUNK}
    ratios: list[tuple[float, str]] = []  # recursive's median ÷ semantic's, per document
    embed(["the model loads before the clock starts"], use_cache=False)
    with tempfile.TemporaryDirectory(prefix="chunklab-grouped-") as folder:
        for document in documents:
            row = f"{document.source_name[:30]:30}"
            medians: dict[str, float] = {}
            for name, strategy, settings in GROUPED:
                chunker = build_chunker(strategy, **settings)
                chunks = chunker.chunk(document)
                medians[name] = statistics.median(
                    [c.tokens for c in chunks if c.chunk_type == "text"] or [0])
                sizes = f"{len(chunks)}/{medians[name]:g}"
                if name not in RE_CHUNK:
                    row += f" {sizes:>9}"
                    continue
                again = build_chunker(strategy, **{**settings, "size": RE_CHUNK[name]})
                best = [float("inf")] * 4
                units = 0
                for _ in range(repeat):
                    _cold(Path(folder))
                    before = embedded_texts()
                    cold = _timed(lambda: chunker.chunk(document))  # noqa: B023
                    units = embedded_texts() - before
                    warm = _timed(lambda: again.chunk(document))  # noqa: B023
                    best = [min(b, t) for b, t in zip(best, (*cold, *warm), strict=True)]
                row += (f" | {sizes:>9} {best[0]:5.2f}/{best[1]:5.2f} {best[2]:5.2f}/"
                        f"{best[3]:5.2f} {units:5d}")
                totals[name] = [t + x for t, x in zip(totals[name], (*best, units),
                                                       strict=True)]
            if medians["semantic"]:
                ratios.append((medians["recursive"] / medians["semantic"], document.source_name))
            print(row, flush=True)
    row = f"{'total':30} {'':>9} {'':>9}"
    for t in totals.values():
        row += f" | {'':>9} {t[0]:5.1f}/{t[1]:5.1f} {t[2]:5.2f}/{t[3]:5.2f} {int(t[4]):5d}"
    print(row)
    semantic, cluster = totals["semantic"], totals["cluster"]
    print(f"cluster ÷ semantic, by wall clock / CPU time: cold {cluster[0] / semantic[0]:.2f}/"
          f"{cluster[1] / semantic[1]:.2f}, warm {cluster[2] / semantic[2]:.2f}/"
          f"{cluster[3] / semantic[3]:.2f}; texts embedded {cluster[4] / semantic[4]:.2f}")
    worst, name = max(ratios, default=(0.0, "-"))
    print(f"recursive's median chunk ÷ semantic's: at most {worst:.2f} ({name})")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=5.0, help="size of the generated text")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cli", action="store_true",
                        help="the CLI against a cold encode, net of a tiny file (--mb: its size)")
    parser.add_argument("--grouped", action="store_true",
                        help="semantic against cluster chunking, cold and warm")
    parser.add_argument("--docs", type=Path, default=ROOT / "sample_docs",
                        help="with --grouped: the folder of documents (default the samples)")
    add_quick(parser)
    args = parser.parse_args()
    if args.quick:
        args.mb, args.repeat = 0.02, 1
    os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-bench-"))
    folder = args.docs if args.grouped else ROOT / "sample_docs"
    samples = sorted(p for p in folder.iterdir() if p.is_file()
                     and p.suffix not in {".py", ".csv"} and p.name != "README.md")
    documents = [convert(p.read_bytes(), p.name) for p in samples]
    texts = [d.text for d in documents]
    print(f"cores: {os.cpu_count()}; samples: {', '.join(p.name for p in samples)}")
    if args.grouped or args.quick:  # a quick run checks it on the shortest document
        grouped_report([min(documents, key=lambda d: len(d.text))] if args.quick
                       else documents, args.repeat)
    if args.grouped:
        return
    if args.cli:
        cli_report(texts, args.mb, args.repeat)
        return
    if texts:
        report("sample documents", texts, args.repeat)
    report(f"generated prose {args.mb:g} MB", [generated_text(args.mb)], args.repeat)


if __name__ == "__main__":
    main()
