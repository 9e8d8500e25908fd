"""Every local strategy on shipped sample documents: its chunks are kept as golden files (one line
per chunk: span, tokens, kind, how it starts and ends), so any change to where a strategy cuts
shows as a diff. Semantic and cluster chunking measure meaning with the offline bag of words of
``tests.fakes`` (the same in every process), so the files hold wherever the tests run.

After a deliberate change, look at the diff, then write the golden files again:

    .venv/bin/python -m tests.test_chunking_golden --regenerate
"""

from __future__ import annotations

import sys
from pathlib import Path
from unittest import mock

import pytest

from core.chunking import semantic
from core.chunking.chunk import Chunk
from core.documents import convert
from core.documents.model import Document
from tests.docfactory import chunk_document
from tests.fakes import fake_embed

ROOT = Path(__file__).resolve().parents[1]
FOLDER = Path(__file__).resolve().parent / "golden" / "chunking"
DOCUMENTS = ("technical_handbook.md", "field_report.pdf", "product_manual.html")
STRATEGIES = ("fixed", "recursive", "semantic", "cluster")  # each with its default settings


def golden_text(chunks: list[Chunk]) -> str:
    def edge(text: str) -> str:
        return repr(text)[1:-1]

    return "".join(f"{c.start}-{c.end} {c.tokens} {c.chunk_type} | {edge(c.text[:40])} … "
                   f"{edge(c.text[-30:])}\n" for c in chunks)


def golden_path(document: str, strategy: str) -> Path:
    return FOLDER / f"{Path(document).stem}.{strategy}.golden.txt"


def _document(name: str) -> Document:
    path = ROOT / "sample_docs" / name
    return convert(path.read_bytes(), path.name)


def _chunks(name: str, strategy: str) -> list[Chunk]:
    with mock.patch.object(semantic, "embed", fake_embed):
        return chunk_document(_document(name), strategy)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("name", DOCUMENTS)
def test_chunks_read_as_their_golden_file(name: str, strategy: str) -> None:
    chunks = _chunks(name, strategy)
    text = _document(name).text
    assert all(c.text == text[c.start:c.end] for c in chunks)
    assert golden_text(chunks) == golden_path(name, strategy).read_text(encoding="utf-8")


def regenerate() -> None:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name in DOCUMENTS:
        for strategy in STRATEGIES:
            golden_path(name, strategy).write_text(golden_text(_chunks(name, strategy)),
                                                   encoding="utf-8")
            print(f"wrote {golden_path(name, strategy).relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--regenerate"]:
        sys.exit(__doc__)
    regenerate()
