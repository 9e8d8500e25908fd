"""Multi-view embeddings: a table is embedded by its digest and by each of its rows, and
a chunk scores the best of its views (in memory; the store's side is in test_store.py)."""

from __future__ import annotations

import numpy as np
import pytest

from core.embeddings import MAX_WORD_PIECES, embed, word_pieces
from core.retrieval.ranking import ChunkVectors, chunk_vectors, rank_chunks
from core.store.views import (
    chunk_views,
    embedding_text,
    embedding_views,
    read_figures,
    text_windows,
)
from tests.retrieval_helpers import annotated, make_chunk

LATE_ROW = "| Hot air balloons and paragliders | 750 USD | only while stored on the ground |"
ROWS = [f"| Household item group {n} | {n * 100} USD | standard terms apply |"
        for n in range(1, 56)]
ROWS.insert(52, LATE_ROW)
TABLE = "\n".join(["Table 7: Special limits of liability", "| Item | Limit | Condition |",
                   "|---|---|---|", *ROWS])
PROSE = [
    "Claims must be reported to the insurer within thirty days of the loss.",
    "The annual premium is payable in advance on the first day of the policy period.",
    "Damage caused by war, riots or nuclear radiation is never covered.",
    "The insurer may cancel the policy with sixty days notice in writing.",
]
TEXT = "\n\n".join([*PROSE, TABLE])


def _chunks():
    chunks, start = [], 0
    for part in TEXT.split("\n\n"):
        at = TEXT.index(part, start)
        start = at + len(part)
        kind = "table" if part.startswith("Table") else "text"
        chunks.append(make_chunk("policy", TEXT, at, start, chunk_type=kind,
                                 heading_path=["Section II", "Special limits"]))
    return chunks


CHUNKS = _chunks()
TABLE_CHUNK = CHUNKS[-1]


def test_text_chunks_and_summarised_tables_have_one_view():
    assert embedding_views(CHUNKS[0]) == [embedding_text(CHUNKS[0])] == [PROSE[0]]
    summarised = annotated(TABLE_CHUNK, summary="Special limits per item.")
    assert embedding_views(summarised) == ["Special limits per item."]


def test_every_row_of_a_table_has_a_view_of_its_own_under_its_header():
    digest, *rows = embedding_views(TABLE_CHUNK)
    assert digest == embedding_text(TABLE_CHUNK)
    assert word_pieces(digest) > MAX_WORD_PIECES  # the single vector cannot read every label
    # the nearest heading only: the whole path is the same for every row and drowns it out
    head = "Special limits\nTable 7: Special limits of liability\n| Item | Limit | Condition |\n"
    assert rows == [head + row for row in ROWS]  # each row once, in order
    assert all(word_pieces(row) <= MAX_WORD_PIECES for row in rows)
    assert TABLE_CHUNK.text == TEXT[TABLE_CHUNK.start:TABLE_CHUNK.end] == TABLE


def test_a_header_only_table_keeps_its_digest_alone():
    text = "Table 1: Empty\n| Item | Limit |\n|---|---|"
    chunk = make_chunk("empty", text, 0, len(text), chunk_type="table")
    assert embedding_views(chunk) == [embedding_text(chunk)]


def test_a_chunk_scores_its_best_view():
    vectors = ChunkVectors(np.eye(3, dtype=np.float32), np.array([0, 0, 1]))
    assert len(vectors) == 2
    assert vectors.scores(np.array([0, 1, 0], dtype=np.float32)).tolist() == [1.0, 0.0]
    assert vectors.scores(np.array([0, 0, 1], dtype=np.float32)).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="owners"):
        ChunkVectors(np.eye(3), np.array([0, 2, 2]))


def test_a_question_about_a_late_row_finds_the_table_through_its_views():
    question = "What is the limit for hot air balloons and paragliders?"
    table = len(CHUNKS) - 1
    single = ChunkVectors.single(embed([embedding_text(c) for c in CHUNKS]))
    by_digest = dict(rank_chunks(question, CHUNKS, "vector", embeddings=single, limit=None))
    assert max(by_digest, key=by_digest.get) != table  # prose beats the digest
    by_views = rank_chunks(question, CHUNKS, "vector", embeddings=chunk_vectors(CHUNKS), limit=None)
    assert by_views[0][0] == table and by_views[0][1] > by_digest[table] + 0.2
    assert dict(by_views[1:]) == pytest.approx({i: s for i, s in by_digest.items() if i != table})
    # the default embeds the views
    (best, score), = rank_chunks(question, CHUNKS, "vector", limit=1)
    assert best == table and score == pytest.approx(by_views[0][1])


def test_the_read_share_says_how_much_of_a_chunk_the_embedder_reads():
    assert chunk_views(CHUNKS[0]).read_share == 1.0
    assert chunk_views(TABLE_CHUNK).read_share == 1.0  # every row is in a view that fits
    assert chunk_views(annotated(TABLE_CHUNK, summary="Limits.")).read_share == 0.0
    assert read_figures([CHUNKS[0], annotated(TABLE_CHUNK, summary="Limits.")]) == (
        pytest.approx(len(PROSE[0]) / (len(PROSE[0]) + len(TABLE))), 2)


LONG = " ".join(f"Clause {n} says the insurer{'’s' * (n % 3 == 0)} duty-{n % 7} applies."
                for n in range(120))
TAIL = " Hot air balloons and paragliders are insured up to 750 USD while on the ground."


def test_a_long_chunk_is_read_whole_in_overlapping_windows():
    text = LONG + TAIL
    chunk = make_chunk("long", text, 0, len(text))
    assert word_pieces(text) > 3 * MAX_WORD_PIECES
    views = embedding_views(chunk)
    spans = text_windows(text, MAX_WORD_PIECES - 2)
    assert views == [text[start:end] for start, end in spans] and len(views) >= 4
    assert all(word_pieces(view) <= MAX_WORD_PIECES for view in views)  # each read to its end
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    for (_, end), (start, _) in zip(spans, spans[1:], strict=False):
        assert start < end  # neighbours overlap ...
        for cut in (start, end):  # ... and are cut between words, never inside one
            assert not (text[cut - 1].isalnum() and text[cut].isalnum())
    read = chunk_views(chunk)
    assert read.read_share == 1.0 and not read.truncated and read.texts == views
    prefixed = annotated(chunk, context_prefix="From the policy wording.")
    windows = embedding_views(prefixed)
    assert all(v.startswith("From the policy wording.\n\n") for v in windows)
    assert all(word_pieces(v) <= MAX_WORD_PIECES for v in windows)
    assert len(windows) >= len(views) and chunk_views(prefixed).read_share == 1.0


def test_a_question_about_the_end_of_a_long_chunk_meets_its_words():
    text = "\n\n".join([*PROSE, LONG + TAIL])
    at = text.index(LONG)
    chunks = [make_chunk("doc", text, text.index(p), text.index(p) + len(p)) for p in PROSE]
    chunks.append(make_chunk("doc", text, at, len(text)))
    question = "Up to what amount are hot air balloons and paragliders insured?"
    first = ChunkVectors.single(embed([embedding_text(c) for c in chunks]))  # truncated
    truncated = dict(rank_chunks(question, chunks, "vector", embeddings=first, limit=None))
    (best, score), = rank_chunks(question, chunks, "vector", limit=1)
    assert best == len(chunks) - 1 and score > truncated[best] + 0.2


def test_stacked_vectors_score_each_chunk_as_its_own_list_does():
    first = ChunkVectors(np.eye(3)[[0, 1, 1]], [0, 1, 1])  # chunk 1 has two views
    second = ChunkVectors(np.eye(3)[[2, 0]], [0, 1])
    both = ChunkVectors.stacked([first, second])
    assert len(both) == 4 and list(both.owners) == [0, 1, 1, 2, 3]
    query = np.array([1.0, 0.5, 0.25])
    assert np.allclose(both.scores(query),
                       np.r_[first.scores(query), second.scores(query)])
    assert ChunkVectors.stacked([first]) is first
