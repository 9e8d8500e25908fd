"""Behaviour of each strategy: separator order, overlap, oversized cuts, tables, sections."""

from __future__ import annotations

import hashlib

import pytest

from core.chunking import semantic
from core.chunking.grouping import best_split
from core.chunking.registry import LOCAL_STRATEGIES, build_chunker
from core.chunking.stats import chunk_stats
from core.documents import convert
from core.documents.model import Block, Document, Section, Table
from core.errors import ChunkingError
from core.operations.presets import BUILTIN_PRESETS
from core.operations.strategies import describe_settings, validated_config
from core.text.sentences import sentence_spans
from core.tokens import count_tokens
from tests.docfactory import chunk_document
from tests.fakes import fake_embed


def doc(text: str, **parts) -> Document:
    return Document(doc_id="1" * 16, source_name="t.txt", format="txt", route="text", text=text,
                    **parts)


def texts(d: Document, strategy: str = "recursive", **settings) -> list[str]:
    return [c.text for c in chunk_document(d, strategy, **settings)]


def test_short_text_is_one_chunk() -> None:
    assert texts(doc("Short text.")) == ["Short text."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a paragraph break wins over line, sentence and word breaks
        ("aaa bb. cc\ndd\n\nee ff. gg\nhh", ["aaa bb. cc\ndd", "ee ff. gg\nhh"]),
        # no paragraph break: a line break wins over sentence and word breaks
        ("aaa bb. cc\ndd ee. ff", ["aaa bb. cc", "dd ee. ff"]),
        # no line break: a sentence break wins over word breaks (LangChain keeps the
        # separator at the start of the next piece, so ". " opens the second chunk)
        ("aaa bb cc. dd ee ff", ["aaa bb cc", ". dd ee ff"]),
    ],
)
def test_separator_order(text: str, expected: list[str]) -> None:
    assert texts(doc(text), size=16, overlap=0, unit="chars") == expected


def test_words_are_the_last_separator() -> None:
    chunks = texts(doc("alpha beta gamma delta epsilon"), size=12, overlap=0, unit="chars")
    assert chunks == ["alpha beta", "gamma delta", "epsilon"]


def test_overlap_is_carried_between_consecutive_chunks() -> None:
    text = " ".join(f"Sentence number {i} talks about item {i}." for i in range(60))
    chunks = chunk_document(doc(text), "recursive", size=60, overlap=15)
    assert len(chunks) > 3
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start < a.end  # they share text
        assert 0 < count_tokens(text[b.start : a.end]) <= 15 + 2
        assert a.tokens <= 60


def test_oversized_word_is_cut_at_token_boundaries() -> None:
    url = "https://example.com/" + "segment/" * 300
    text = f"See {url} for details.\n\nNext paragraph here."
    chunks = chunk_document(doc(text), "recursive", size=50, overlap=5)
    assert max(c.tokens for c in chunks) <= 50
    assert "".join(c.text for c in chunks).count("segment") >= 300
    # the last chunk starts inside the previous one, at a word start
    assert chunks[-1].text == "for details.\n\nNext paragraph here."
    langchain = chunk_document(doc(text), "recursive", size=50, overlap=5,
                               overlap_mode="trailing_pieces")
    assert langchain[-1].text == "Next paragraph here."


def test_recursive_tokens_never_exceed_target_on_long_prose() -> None:
    text = "\n\n".join(" ".join(["The insured dwelling is covered."] * (5 + i % 40))
                       for i in range(60))
    for c in chunk_document(doc(text), "recursive", size=120, overlap=12):
        assert c.tokens == count_tokens(c.text) <= 120


def _table_doc(rows: int) -> Document:
    intro = "Intro paragraph about coverage.\n\n"
    caption = "Table 1: Coverage limits"
    table = "| Coverage | Limit |\n|---|---|\n" + "".join(
        f"| Item {i} | ${i},000 |\n" for i in range(rows))
    table = table.rstrip("\n")
    outro = "\n\nClosing words after the table."
    text = intro + caption + "\n\n" + table + outro
    c0 = len(intro)
    t0 = c0 + len(caption) + 2
    return doc(
        text,
        tables=[Table(start=t0, end=t0 + len(table), markdown=table, rows=[["Coverage", "Limit"]],
                      caption=caption, caption_start=c0, caption_end=c0 + len(caption))],
    )


@pytest.mark.parametrize("rows", [2, 400])
@pytest.mark.parametrize("strategy", ["recursive", "fixed", "semantic"])
def test_table_is_one_chunk_whatever_its_size_with_its_caption(rows, strategy, monkeypatch):
    monkeypatch.setattr(semantic, "embed", fake_embed)
    d = _table_doc(rows)
    settings = {"size": 60, "tables": True}
    if strategy == "fixed":
        settings["unit"] = "tokens"
    chunks = chunk_document(d, strategy, **settings)
    tables = [c for c in chunks if c.chunk_type == "table"]
    assert len(tables) == 1
    table = d.tables[0]
    assert tables[0].start == table.caption_start and tables[0].end == table.end
    assert tables[0].text.startswith("Table 1: Coverage limits\n\n| Coverage")
    for c in chunks:
        if c.chunk_type == "text":
            assert c.end <= tables[0].start or c.start >= tables[0].end
            assert c.tokens <= 60
    stats = chunk_stats(d, chunks, 60)
    assert (stats.tables_intact, stats.tables) == (1, 1)


def test_without_tables_a_big_table_is_cut() -> None:
    d = _table_doc(400)
    chunks = chunk_document(d, "recursive", size=60, tables=False)
    assert all(c.chunk_type == "text" for c in chunks)
    stats = chunk_stats(d, chunks, 60)
    assert (stats.tables_intact, stats.tables) == (0, 1)


def test_respect_sections_never_crosses_a_section() -> None:
    text = "Part A\n\nalpha beta gamma.\n\nPart B\n\ndelta epsilon."
    b = text.index("Part B")
    sections = [
        Section(start=0, end=b, title="Part A", level=1, heading_start=0, heading_end=6),
        Section(start=b, end=len(text), title="Part B", level=1, heading_start=b,
                heading_end=b + 6),
    ]
    d = doc(text, sections=sections)
    assert len(texts(d, size=500)) == 1
    chunks = chunk_document(d, "recursive", size=500, respect_sections=True)
    assert [c.text for c in chunks] == [text[: b].strip(), text[b:]]
    assert [c.heading_path for c in chunks] == [["Part A"], ["Part B"]]


def test_fixed_chars_baseline_preset() -> None:
    preset = BUILTIN_PRESETS["fixed 1000 chars"]
    text = "x" * 2500
    chunks = chunk_document(doc(text), preset.strategy, **preset.settings)
    assert [(c.start, c.end) for c in chunks] == [(0, 1000), (1000, 2000), (2000, 2500)]


def test_fixed_tokens_with_overlap() -> None:
    text = " ".join(f"w{i}" for i in range(400))
    chunks = chunk_document(doc(text), "fixed", size=50, overlap=10, unit="tokens")
    assert all(c.tokens <= 50 for c in chunks)
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert b.start < a.end


def test_sentence_spans_and_dp_split() -> None:
    text = "One cat. Two dogs! Three birds?\nFour fish"
    assert [text[a:b] for a, b in sentence_spans(text, 0, len(text))] == [
        "One cat.", "Two dogs!", "Three birds?", "Four fish"]
    import numpy as np
    v = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=float)
    assert best_split(v @ v.T, np.array([5, 5, 5, 5]), 100, 0.0) == [0, 2]
    assert best_split(v @ v.T, np.array([5, 5, 5, 5]), 5, 0.0) == [0, 1, 2, 3]


def test_semantic_groups_by_topic(monkeypatch) -> None:
    monkeypatch.setattr(semantic, "embed", fake_embed)
    cats = " ".join(["Cats purr cats nap."] * 4)
    cars = " ".join(["Cars honk cars race."] * 4)
    chunks = texts(doc(f"{cats} {cars}"), "semantic", size=60)
    assert chunks == [cats, cars]


def test_stats_counts_boundaries_and_overlap() -> None:
    text = "Para one is here.\n\nPara two is here.\n\nPara three."
    d = doc(text, blocks=[Block(start=0, end=17, kind="paragraph")])
    chunks = chunk_document(d, "recursive", size=6, overlap=0)
    stats = chunk_stats(d, chunks, 6)
    assert stats.chunks == 3 and stats.within_target == 1.0
    assert stats.boundaries_on_break == 1.0 and stats.overlap_tokens == 0
    assert (stats.tables_intact, stats.tables) == (0, 0)


@pytest.mark.parametrize(
    ("strategy", "settings", "needle"),
    [
        ("recursive", {"size": 0}, "size must be at least 1, not 0"),
        ("recursive", {"overlap": 500}, "overlap must be between"),
        ("fixed", {"colour": "red"}, "no setting 'colour'"),
        ("recursive", {"unit": "words"}, "'unit'"),
        ("semantic", {"overlap": 3}, "do not overlap"),
        ("recursive", {"encoding": "gpt2"}, "encoding must be one of"),
        ("nope", {}, "Unknown chunking strategy 'nope'"),
    ],
)
def test_bad_settings_are_one_clear_sentence(strategy, settings, needle) -> None:
    with pytest.raises(ChunkingError) as err:
        build_chunker(strategy, **settings)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_presets_build_and_config_classes() -> None:
    for preset in BUILTIN_PRESETS.values():
        assert validated_config(preset.strategy, preset.settings)
    assert LOCAL_STRATEGIES["recursive"].config().separators == ["\n\n", "\n", ". ", " "]


def test_a_made_chunk_is_the_chunk_validation_would_make() -> None:
    """Chunks are made without validation (speed): every field must be as validation makes it,
    and an id stays the hash of document, strategy, settings and span (a re-ingest replaces,
    not duplicates)."""
    text = "Intro\n\n" + "A sentence of words here. " * 300
    d = doc(text, sections=[Section(title="Intro", level=1, start=0, end=len(text),
                                    heading_start=0, heading_end=5)])
    chunker = build_chunker("recursive", size=120, overlap=20)
    chunks = chunker.chunk(d)
    assert len(chunks) > 5
    for c in chunks:
        again = type(c).model_validate(c.model_dump())
        assert again == c and again.model_fields_set == c.model_fields_set
        assert c.heading_path == ["Intro"] and c.config["size"] == 120
        key = f"{d.doc_id}|recursive|{chunker.config.key()}|{c.start}|{c.end}"
        assert c.id == hashlib.sha256(key.encode()).hexdigest()[:16]


def test_a_semantic_heading_joins_what_it_heads(monkeypatch) -> None:
    monkeypatch.setattr(semantic, "embed", fake_embed)
    cats = " ".join(["Cats purr cats nap."] * 4)
    cars = " ".join(["Cars honk cars race."] * 4)
    text = f"# Harbourline Homeowner Policy\n\n## Cars\n\n{cars}\n\n## Cats\n\n{cats}\n"
    document = convert(text.encode(), "policy.md")
    assert {b.kind for b in document.blocks[:2]} <= {"title", "heading"}
    chunks = chunk_document(document, "semantic", size=60)
    assert [c.text for c in chunks] == [f"# Harbourline Homeowner Policy\n\n## Cars\n\n{cars}",
                                        f"## Cats\n\n{cats}"]
    # headings and text too long together: the headings stay a unit of their own
    small = [c.text for c in chunk_document(document, "semantic", size=12)]
    assert "# Harbourline Homeowner Policy\n\n## Cars" in small


@pytest.mark.parametrize(("preset", "described"), [
    ("fixed 1000 chars", "1,000 chars, tables split"),
    ("recursive 500/50", "500 tokens, overlap 50, tables whole"),
    ("recursive 500/50 by section", "500 tokens, overlap 50, tables whole, by section"),
    ("semantic", "400 tokens, tables whole"),
])
def test_settings_are_described_in_a_few_words(preset, described) -> None:
    chosen = BUILTIN_PRESETS[preset]
    assert validated_config(chosen.strategy, chosen.settings).describe() == described
    stored = validated_config(chosen.strategy, chosen.settings).model_dump(mode="json")
    assert describe_settings(chosen.strategy, stored) == described


def test_settings_without_a_size_or_no_longer_valid_are_not_described() -> None:
    assert describe_settings("llm", {"size": 800}) == "800 tokens"
    edited = {"base": "recursive", "base_settings": {"size": 300}}
    assert describe_settings("edited", edited) == ""
    assert describe_settings("recursive", {"size": 500, "retired_setting": 1}) == ""
    assert describe_settings("no such strategy", {"size": 500}) == ""
