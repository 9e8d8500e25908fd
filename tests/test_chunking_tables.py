"""Table options: whole by default; over a limit, parts of whole rows or one row each, with the
header carried by every part outside its span (so ``chunk.text == document.text[start:end]``)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.chunking import semantic
from core.chunking.chunk import Chunk
from core.chunking.stats import chunk_stats
from core.chunking.table_parts import row_spans
from core.documents.model import Document, Table
from core.store.records import chunk_from_record, chunk_metadata
from core.store.views import embedding_text
from core.tokens import count_tokens
from tests.docfactory import chunk_document
from tests.fakes import fake_embed

HEADER = "| Coverage | Limit |\n|---|---|"


@pytest.fixture(autouse=True)
def _offline_embedder(monkeypatch):
    monkeypatch.setattr(semantic, "embed", fake_embed)


def table_doc(rows: list[str], caption_after: bool = False) -> Document:
    """Intro, a captioned Markdown table of ``rows`` (cell texts), closing words."""
    intro, caption = "Intro paragraph about coverage.\n\n", "Table 1: Coverage limits"
    table = HEADER + "".join(f"\n| {r} | ${i},000 |" for i, r in enumerate(rows))
    if caption_after:
        text = intro + table + "\n\n" + caption + "\n\nClosing words."
        t0 = len(intro)
        c0 = t0 + len(table) + 2
    else:
        text = intro + caption + "\n\n" + table + "\n\nClosing words."
        c0 = len(intro)
        t0 = c0 + len(caption) + 2
    return Document(
        doc_id="5" * 16, source_name="t.md", format="md", route="markdown", text=text,
        tables=[Table(start=t0, end=t0 + len(table), markdown=table,
                      rows=[["Coverage", "Limit"], *([r, "x"] for r in rows)],
                      caption=caption, caption_start=c0, caption_end=c0 + len(caption))],
    )


def table_chunks(doc: Document, **settings) -> list[Chunk]:
    chunks = chunk_document(doc, "recursive", size=60, **settings)
    for c in chunks:
        assert c.text == doc.text[c.start : c.end] and c.tokens == count_tokens(c.text)
    return [c for c in chunks if c.chunk_type == "table"]


def check_parts(doc: Document, parts: list[Chunk]) -> None:
    """Every body row in exactly one part, none cut; the header carried by later parts."""
    table = doc.tables[0]
    rows = row_spans(doc.text, table.start, table.end)[2:]
    for a, b in rows:
        assert sum(p.start <= a and b <= p.end for p in parts) == 1
        assert not any(p.start < a < p.end < b or a < p.start < b for p in parts)
    assert parts[0].table_header is None and HEADER in parts[0].text
    for p in parts[1:]:
        assert p.table_header == HEADER and HEADER not in p.text
        assert p.display_text == f"{HEADER}\n{p.text}"


def test_tables_stay_whole_by_default() -> None:
    doc = table_doc([f"Item {i}" for i in range(300)])
    parts = table_chunks(doc)
    assert len(parts) == 1 and parts[0].table_header is None
    assert chunk_stats(doc, chunk_document(doc, "recursive")).tables_split == 0


@pytest.mark.parametrize("caption_after", [False, True])
def test_row_groups_within_the_limit_with_the_header(caption_after: bool) -> None:
    doc = table_doc([f"Item {i} of the schedule" for i in range(120)], caption_after)
    parts = table_chunks(doc, table_split="row_groups", table_max_tokens=150)
    assert len(parts) > 5
    check_parts(doc, parts)
    for p in parts:
        assert count_tokens(p.display_text) <= 150
    caption = doc.tables[0].caption or ""
    holder = parts[-1] if caption_after else parts[0]
    assert caption in holder.text
    assert parts[0].start == min(doc.tables[0].start, doc.tables[0].caption_start or 0)
    stats = chunk_stats(doc, chunk_document(doc, "recursive", table_split="row_groups",
                                            table_max_tokens=150))
    assert (stats.tables_split, stats.tables_intact, stats.table_chunks) == (1, 0, len(parts))


def test_rows_one_chunk_per_row() -> None:
    doc = table_doc([f"Item {i}" for i in range(40)])
    parts = table_chunks(doc, table_split="rows", table_max_tokens=50)
    assert len(parts) == 40
    check_parts(doc, parts)
    assert all(p.text.count("\n") == 0 for p in parts[1:])


def test_a_table_under_the_limit_or_a_row_over_it() -> None:
    small = table_doc(["a", "b", "c"])
    assert len(table_chunks(small, table_split="rows", table_max_tokens=500)) == 1
    huge_row = table_doc(["short", "word " * 400, "short again"])
    parts = table_chunks(huge_row, table_split="row_groups", table_max_tokens=60)
    check_parts(huge_row, parts)
    assert any(p.tokens > 60 and "word word" in p.text for p in parts)  # whole, not cut


def test_a_part_is_embedded_and_stored_with_its_header() -> None:
    doc = table_doc([f"Item {i} of the schedule" for i in range(120)])
    part = table_chunks(doc, table_split="row_groups", table_max_tokens=150)[2]
    assert "Columns: Coverage; Limit" in embedding_text(part)
    again = chunk_from_record(part.id, part.text, chunk_metadata(part))
    assert again == part


CELLS = st.text(st.sampled_from("ab 12.$é"), min_size=0, max_size=30)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(CELLS, min_size=0, max_size=40), st.booleans(),
       st.sampled_from(["row_groups", "rows"]), st.integers(1, 120),
       st.sampled_from(["recursive", "fixed", "semantic", "cluster"]))
def test_split_tables_keep_every_invariant(cells, caption_after, mode, limit, strategy) -> None:
    doc = table_doc([c.strip() or "-" for c in cells], caption_after)
    chunks = chunk_document(doc, strategy, size=40, overlap=0, table_split=mode,
                            table_max_tokens=limit, tables=True)
    covered = [False] * len(doc.text)
    for c in chunks:
        assert c.text == doc.text[c.start : c.end]
        covered[c.start : c.end] = [True] * (c.end - c.start)
    assert all(ok or ch.isspace() for ok, ch in zip(covered, doc.text, strict=True))
    parts = [c for c in chunks if c.chunk_type == "table"]
    if len(parts) > 1:
        check_parts(doc, parts)
    if mode == "rows" and len(parts) > 1:
        assert len(parts) == len(cells)
