"""Which requests about chunks a real run's pipeline sent, rebuilt for the fixtures
(``python -m bench.llm_real --fixtures``): a raw log does not say which chunk a summary, prefix
or table summary answer is about."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.llm.phases import METADATA
from core.llm.settings import LLMSettings
from core.operations.strategies import RunOptions, run_llm


def asked_about_chunks(folder: Path, names: list[str], model: str,
                        versions: set[tuple[str, str]]) -> list[dict[str, Any]]:
    """The chunk requests the run's pipeline sent about the documents ``names``, each with the
    answer its LLM cache holds for it (``versions``: the phases and template versions the log
    names). A log does not say which chunk a metadata, prefix or table summary answer is about:
    the documents are chunked again against a fake server with a copy of the run's cache (the
    structure and boundary answers come from it while today's templates are the run's, so the
    chunks are the run's), and every request about each chunk is looked up in that cache."""
    import shutil
    import tempfile

    from core.llm.cache import LLMCache
    from fakes.http import running
    from fakes.llm import FakeLLM
    from fakes.replay import CHUNK_PHASES, chunk_request, sample

    asked: list[dict[str, Any]] = []
    temperature = LLMSettings.model_fields["temperature"].default
    with tempfile.TemporaryDirectory() as data, running(FakeLLM()) as fake:
        shutil.copytree(folder / "llm_cache", Path(data) / "llm_cache")
        before = os.environ.get("CHUNKLAB_DATA_DIR")
        os.environ["CHUNKLAB_DATA_DIR"] = data
        fake.serve_llama(slots=1)
        fake.structured = True
        try:
            runs = run_llm([sample(name) for name in names],
                           {"parsing": "tolerant", "summaries": False},
                           RunOptions(llm=fake.settings(model=model, timeout=60)))
        finally:
            if before is None:
                os.environ.pop("CHUNKLAB_DATA_DIR")
            else:
                os.environ["CHUNKLAB_DATA_DIR"] = before
        cache = LLMCache(Path(data) / "llm_cache" / "answers.sqlite3")
        for llm_run in runs:
            document, reading = llm_run.document, llm_run.reading
            stretches = [(a, b) for a, b, _ in reading.spans] if reading else []
            for chunk in llm_run.chunks:
                table = next((t for t in document.tables if chunk.start <= t.start < chunk.end),
                             None)
                caption = table.caption if table and chunk.chunk_type == "table" else None
                for (name, version), shown in ((v, s) for v in sorted(versions)
                                               for s in [*stretches, (0, 0)]
                                               if v[0] != METADATA.name):
                    phase = CHUNK_PHASES[name]
                    request = chunk_request(document, name, (chunk.start, chunk.end),
                                            chunk.heading_path, shown, caption)
                    content = phase.cache_content(request) or {}
                    found = cache.get(LLMCache.key(phase.name, version, model, temperature,
                                                   **content))
                    if found is not None:
                        asked.append({"document": document.source_name, "phase": phase.name,
                                      "chunk": [chunk.start, chunk.end],
                                      "path": chunk.heading_path, "shown": list(shown),
                                      **({"caption": caption} if caption else {}),
                                      "template_version": version, "cached": found,
                                      "request": request})
            asked += _asked_for_summaries(cache, llm_run.chunks, document, stretches, model,
                                          temperature, {v for n, v in versions
                                                        if n == METADATA.name})
    return asked


def _asked_for_summaries(cache: Any, chunks: list[Chunk], document: Document,
                         stretches: list[tuple[int, int]], model: str, temperature: float,
                         versions: set[str]) -> list[dict[str, Any]]:
    """The summary requests the pipeline sent about ``chunks``, each with the answer the cache
    holds for it: per stretch, its groups (or its chunks one by one, when the stretch did not
    fit), and each chunk asked alone again."""
    from core.llm.cache import LLMCache
    from core.llm.phases.metadata import (
        Piece,
        alone,
        group_requests,
        marked_stretch,
        stretch_end,
    )

    asked: list[dict[str, Any]] = []
    for a, b in stretches:
        mine = [c for c in chunks if a <= c.start < b]
        pieces = [Piece(c.start, c.end, c.chunk_type == "text") for c in mine]
        marked = marked_stretch(document.text, (a, b), pieces)
        for shared in (marked, None):
            for group, request in group_requests(document.source_name, document.text, shared,
                                                 pieces):
                spans = [[pieces[i].start, pieces[i].end] for i in group]
                if shared is not None:
                    starts = [p.start for p in pieces]
                    stretch = [a, stretch_end((a, b), pieces)]
                else:
                    starts, stretch = [spans[0][0]], spans[0]
                tried = [(request, spans, list(request.numbers))] + [
                    (alone(request, n), [span], [n])
                    for n, span in zip(request.numbers, spans, strict=True)
                    if len(request.numbers) > 1]
                for one, which, numbers in tried:
                    for version in versions:
                        found = cache.get(LLMCache.key(METADATA.name, version, model,
                                                       temperature, **METADATA.cache_content(one)))
                        if found is not None:
                            asked.append({"document": document.source_name,
                                          "phase": METADATA.name, "chunk": which[0],
                                          "stretch": stretch, "starts": starts,
                                          "numbers": numbers, "asked": which,
                                          "template_version": version, "cached": found,
                                          "request": one})
    return asked
