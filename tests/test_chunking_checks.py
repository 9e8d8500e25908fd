"""Integrity checks: each kind found where it is, invariants told from warnings."""

from __future__ import annotations

import pytest

from core.chunking.base import ChunkFactory
from core.chunking.checks import LABELS, SizeLimit, check_chunks, size_limit, table_limit
from core.chunking.chunk import Chunk
from core.chunking.recursive import RecursiveConfig
from core.documents import convert
from core.documents.model import Document
from core.operations.strategies import chunk
from tests.docfactory import GUIDE_MARKDOWN

TABLE = (205, 262)  # the ports table of the guide, caption excluded


@pytest.fixture(scope="module")
def guide() -> Document:
    document = convert(GUIDE_MARKDOWN.encode(), "guide.md")
    assert (document.tables[0].start, document.tables[0].end) == TABLE
    return document


def spans(document: Document, pairs: list[tuple[int, int]], table: tuple[int, int] = (-1, -1)
          ) -> list[Chunk]:
    factory = ChunkFactory(document, "recursive", RecursiveConfig(size=20, overlap=0))
    return [factory.make(a, b, chunk_type="table" if (a, b) == table else "text")
            for a, b in pairs]


def test_recursive_chunks_keep_every_invariant(guide: Document) -> None:
    report = check_chunks(guide, chunk(guide, "recursive", {"size": 20, "overlap": 0}))
    assert report.ok and not report.broken
    assert set(report.counts()) == set(LABELS)
    # "## Install" ends the first chunk while its paragraph starts the second one
    lonely = report.check("lonely_heading")
    assert lonely.count == 1 and guide.text[lonely.places[0].start:lonely.places[0].end] == \
        "Install"
    assert lonely.places[0].chunk == 0 and not lonely.invariant


def test_offsets_empty_and_uncovered_are_invariants(guide: Document) -> None:
    good = spans(guide, [(0, 62), (64, 74), (76, len(guide.text))])
    wide = SizeLimit(1000)
    report = check_chunks(guide, good, wide)
    assert report.ok
    bad_text = good[1].model_copy(update={"text": "Installed"})
    blank = ChunkFactory(guide, "recursive", RecursiveConfig()).make(62, 64)
    report = check_chunks(guide, [good[0], bad_text, blank, *spans(guide, [(100, 368)])], wide)
    assert report.check("offsets").count == 1 and report.check("offsets").places[0].chunk == 1
    assert report.check("empty").count == 1 and report.check("empty").places[0].chunk == 2
    uncovered = report.check("uncovered").places
    assert [(p.start, p.end) for p in uncovered] == [(76, 100)]  # in no chunk
    assert {c.kind for c in report.broken} == {"offsets", "empty", "uncovered"}


def test_over_size_counts_text_chunks_only(guide: Document) -> None:
    chunks = spans(guide, [(0, 187), (189, 262), (264, 368)], table=(189, 262))
    report = check_chunks(guide, chunks, SizeLimit(20))
    assert [p.chunk for p in report.check("over_size").places] == [0, 2]
    assert check_chunks(guide, chunks, SizeLimit(400, "chars")).ok
    assert size_limit(chunks[0].config) == SizeLimit(20, "tokens")
    assert not check_chunks(guide, chunks).ok  # the chunks' own configuration names size 20


def test_cut_words_and_sentences(guide: Document) -> None:
    word_end = guide.text.index("package") + 3
    sentence_end = guide.text.index("package") + len("package.")
    chunks = spans(guide, [(0, word_end), (word_end, sentence_end),
                           (sentence_end + 1, len(guide.text))])
    report = check_chunks(guide, chunks)
    assert [p.chunk for p in report.check("cut_word").places] == [0]
    assert report.check("cut_sentence").count == 0  # "package." ends a sentence
    mid = guide.text.index(" Unpack it") + len(" Unpack")
    report = check_chunks(guide, spans(guide, [(0, mid), (mid + 1, len(guide.text))]))
    assert report.check("cut_sentence").count == 1 and report.check("cut_word").count == 0


def test_table_rows_split(guide: Document) -> None:
    inside_row = guide.text.index("| web") + 4
    between_rows = guide.text.index("| web")
    report = check_chunks(guide, spans(guide, [(0, inside_row), (inside_row, 368)]))
    rows = report.check("split_table_row").places
    assert len(rows) == 1 and guide.text[rows[0].start:rows[0].end] == "| web | 8080 |"
    clean = check_chunks(guide, spans(guide, [(0, between_rows - 1), (between_rows, 368)]))
    assert clean.check("split_table_row").count == 0


def test_a_table_over_the_table_max_tokens_is_a_warning(guide: Document) -> None:
    whole = chunk(guide, "recursive", {"size": 200, "overlap": 0, "table_max_tokens": 5})
    (table,) = [c for c in whole if c.chunk_type == "table"]
    assert table.tokens > 5 and table_limit(table.config) == 5
    report = check_chunks(guide, whole)
    over = report.check("over_table_max")
    assert [p.chunk for p in over.places] == [whole.index(table)] and not over.invariant
    assert over.places[0].note == f"{table.tokens} tokens > table max tokens 5"
    assert report.ok  # kept whole by choice: a warning, not a broken promise
    roomy = chunk(guide, "recursive", {"size": 200, "overlap": 0, "table_max_tokens": 500})
    assert check_chunks(guide, roomy).check("over_table_max").count == 0
    edited = {"base_settings": {"table_max_tokens": 7}}
    assert table_limit(edited) == 7 and table_limit({"size": 20}) is None
    assert table_limit({"table_max_tokens": 5, "tables": False}) is None
