"""Exact counts of any span from one encoding of the text (additivity over safe boundaries)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.chunking.token_index import TokenIndex
from core.tokens import ENCODINGS, FAST_CHARS, encode, get_encoding

ALPHABET = ["a", "Z", "1", "234567", ".", " ", "  ", "\n", "\r", "\n\n", "\t", "'s", "/", "é",
            "中", "\xa0", "-", "word", "'ll", "!!", "\u2028", "😀"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=80), st.data(), st.sampled_from(ENCODINGS))
def test_count_of_any_span_is_exact(parts, data, encoding) -> None:
    text = "".join(parts)
    index = TokenIndex(text, encoding)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert index.count(start, end) == len(get_encoding(encoding).encode_ordinary(text[start:end]))


def test_token_starts_point_into_the_text() -> None:
    text = "Prix: 12 €.\n\nÜber 中文 text 😀 end"
    index = TokenIndex(text, "cl100k_base")
    assert index.n_tokens == len(encode(text))
    assert index.starts[-1] == len(text)
    assert index.position(index.index(text.index(" text"))) == text.index(" text")  # " text"


def test_a_long_text_has_tiktokens_own_offsets() -> None:
    text = "Numbers 1234567 and words.\n \nNext paragraph,\tnaïve café 中文 😀 Ⅻ.\n" * 2_000
    assert len(text) > FAST_CHARS  # the fast encoder's
    index = TokenIndex(text, "cl100k_base")
    tokens = get_encoding("cl100k_base").encode_ordinary(text)
    assert index.count(3, len(text) - 5) == len(encode(text[3:-5]))
    _, offsets = get_encoding("cl100k_base").decode_with_offsets(tokens)  # tiktoken's own
    assert index.starts.tolist() == [*offsets, len(text)]
