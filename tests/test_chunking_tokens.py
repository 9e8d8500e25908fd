"""Exact counts from one encoding: additivity over safe boundaries, encoding in parts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.chunking import token_index
from core.chunking.token_index import TokenIndex
from core.tokens import ENCODINGS, count_tokens, encode, get_encoding

ALPHABET = ["a", "Z", "1", "234567", ".", " ", "  ", "\n", "\r", "\n\n", "\t", "'s", "/", "é",
            "中", "\xa0", "-", "word", "'ll", "!!", "\u2028", "😀"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=80), st.data(), st.sampled_from(ENCODINGS))
def test_count_of_any_span_is_exact(parts, data, encoding) -> None:
    text = "".join(parts)
    index = TokenIndex(text, encoding)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert index.count(start, end) == count_tokens(text[start:end], encoding)


def test_token_starts_point_into_the_text() -> None:
    text = "Prix: 12 €.\n\nÜber 中文 text 😀 end"
    index = TokenIndex(text, "cl100k_base")
    assert index.n_tokens == len(encode(text))
    assert index.starts[-1] == len(text)
    assert index.position(index.index(text.index(" text"))) == text.index(" text")  # " text"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=80), st.integers(1, 12), st.data())
def test_encoding_in_background_parts_gives_the_same_index(parts, part_chars, data) -> None:
    """Parts cut at safe boundaries, taken in any order of lookups, give the one-call index."""
    text = "".join(parts)
    whole = TokenIndex(text, "cl100k_base")
    token_index.PART_CHARS, saved = part_chars, token_index.PART_CHARS
    try:
        in_parts = TokenIndex(text, "cl100k_base")
    finally:
        token_index.PART_CHARS = saved
    for _ in range(3):  # lookups before all parts are in: each waits for what it needs
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert in_parts.count(start, end) == whole.count(start, end)
        assert in_parts.index(start) == whole.index(start)
        token = data.draw(st.integers(-1, whole.n_tokens + 2))
        assert in_parts.position(token) == whole.position(token)
    assert in_parts.starts.tolist() == whole.starts.tolist()


def test_a_long_text_is_encoded_in_parts_as_one(monkeypatch) -> None:
    monkeypatch.setattr(token_index, "PART_CHARS", 10_000)
    text = "Numbers 1234567 and words.\n\nNext paragraph, naïve café 中文 😀.\n" * 2_000
    index = TokenIndex(text, "cl100k_base")
    assert index._parts > 10
    assert index.count(3, len(text) - 5) == count_tokens(text[3:-5])
    tokens = encode(text)
    _, offsets = get_encoding("cl100k_base").decode_with_offsets(tokens)  # tiktoken's own
    assert index.starts.tolist() == [*offsets, len(text)]
