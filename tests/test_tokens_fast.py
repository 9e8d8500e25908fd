"""The fast encoder gives tiktoken's tokens exactly: tokie alone differs in known places, which
tiktoken encodes; everywhere else tokie agrees with it, on every character of Unicode."""

from __future__ import annotations

import itertools
import random
import sys
import unicodedata
from collections import defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.tokens import count_tokens, encode, get_encoding
from core.tokens import fast as fast_module
from core.tokens.fast import (
    FAST_ENCODINGS,
    FastEncoder,
    fast_encoder,
    tiktoken_stretches,
    unlike_places,
)

# Where tokie's pre-tokenizer cuts otherwise than tiktoken's regular expression, an example of
# each kind found (by encoding) and the place the encoder must give to tiktoken.
DISAGREEMENTS = [
    ("cl100k_base", "x\n \nnext", "\n \n"),  # line break, spaces, line break
    ("cl100k_base", "a\r\n\t\r\nb", "\n\t\r"),
    ("cl100k_base", "see\t.note", "\t"),  # a tab before a sign
    ("cl100k_base", "it\t'd be", "\t"),
    ("cl100k_base", "two  \x0bthree", "\x0b"),  # vertical tab, form feed
    ("cl100k_base", "page  \x0c1", "\x0c"),
    ("cl100k_base", "Chapter Ⅻ123", "Ⅻ"),  # a letter number
    ("cl100k_base", "ⓐ's turn", "ⓐ"),  # a circled letter
    ("cl100k_base", "a\u3000\u3000\x0ct", "\x0c"),
]
ALPHABET = ["a", "Z", "é", "ß", "ж", "中", "😀", "👍🏽", "\u0301", "a\u0308", "1", "23", "4567",
            "'s", "'LL", "'ve", "’s", "'t", " ", "  ", "\t", "\n", "\r\n", "\r", "\n\n", "\xa0",
            "\u2028", "\u3000", "\u200b", "\xad", ".", ",", "!", "?", "-", "...", "$", "(", "/",
            "\\", "#", "_", "\"", "'", "word", " the", "HELLO", "x1", "१२३", "٣", "Ⅻ", "²", "½",
            "ⓐ", "🅰", "ﬁ", "\x00", "\x7f", "\x85", "\x0b", "\x0c", "\x1c", "\ufeff",
            "<|endoftext|>", "\U000e0001", "\U0010fffd", "\u0378", "\u0915\u093e", "   \n",
            " \n ", "\t\n\t", "https://x.y/z?q=1"]


def _tiktoken(text: str, name: str) -> list[int]:
    return get_encoding(name).encode_ordinary(text)


def _encoder(name: str) -> FastEncoder:
    encoder = fast_encoder(name)
    assert encoder is not None, "tokie is a runtime requirement: the fast encoder must load"
    return encoder


@pytest.mark.parametrize(("name", "text", "place"), DISAGREEMENTS)
def test_tokie_alone_differs_where_tiktoken_takes_over(name, text, place) -> None:
    encoder = _encoder(name)
    alone = encoder.tokenizer.encode(text, add_special_tokens=False).ids
    assert alone != _tiktoken(text, name)  # the kind of place the encoder must give away
    start = text.index(place)
    assert any(a <= start and start + len(place) <= b for a, b in tiktoken_stretches(text))
    assert encoder.encode(text).tolist() == _tiktoken(text, name)
    assert encoder.count(text) == len(_tiktoken(text, name))


@pytest.mark.parametrize("name", FAST_ENCODINGS)
def test_tokie_agrees_with_tiktoken_on_every_other_character(name) -> None:
    """Every non-ASCII code point the encoder leaves to tokie, in the contexts where classes of
    characters decide the pieces (beside letters, digits, signs, spaces, line breaks and
    apostrophes; a tab before it is the tab rule's), one text, as tokie encodes it alone."""
    contexts = ("a{}", "{}a", "1{}2", " {}.", "{}'s", "'{}", "{}{}", "x{}\n", "{}  \n")
    points = [p for p in range(0x80, sys.maxunicode + 1)
              if not 0xD800 <= p < 0xE000 and not fast_module._unlike(p)]
    text = "\nx ".join(c.replace("{}", chr(p)) for p in points for c in contexts)
    assert not unlike_places(text)
    tokie_alone = _encoder(name).tokenizer.encode(text, add_special_tokens=False).ids
    assert tokie_alone == _tiktoken(text, name)


@pytest.mark.parametrize("name", FAST_ENCODINGS)
def test_any_three_characters_of_any_classes_are_encoded_alike(name) -> None:
    """Every sequence of three characters (ASCII, and a few of each Unicode class tokie is
    given), after a letter and before a letter, a capital, a space, a digit or a contraction."""
    by_class = defaultdict(list)
    for point in range(0x80, sys.maxunicode + 1):
        if not 0xD800 <= point < 0xE000 and not fast_module._unlike(point):
            by_class[unicodedata.category(chr(point))].append(chr(point))
    rng = random.Random(0)
    chars = [chr(c) for c in range(0x20, 0x7F)] + ["\n", "\r", "\t"] + [
        c for members in by_class.values() for c in rng.sample(members, min(5, len(members)))]
    texts = [t for a in chars for b in chars for end in ("a", "É", " ", "1", "'s")
             if not unlike_places(t := f"x{a}{b}{end}")]
    tokenizer = _encoder(name).tokenizer
    for start in range(0, len(texts), 3_000):  # a text under 64 KiB at a time
        text = "b\n".join(texts[start : start + 3_000])
        assert not unlike_places(text)
        assert tokenizer.encode(text, add_special_tokens=False).ids == _tiktoken(text, name)


@pytest.mark.parametrize("name", FAST_ENCODINGS)
def test_every_short_string_of_spaces_breaks_tabs_and_signs_is_exact(name) -> None:
    encoder = _encoder(name)
    wrong = [text for n in range(1, 6)
             for text in map("".join, itertools.product(" \n\r\ta.'1\x0b\u3000", repeat=n))
             if encoder.encode(text).tolist() != _tiktoken(text, name)]
    assert wrong == []


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=60), st.sampled_from(FAST_ENCODINGS))
def test_any_text_gets_tiktokens_tokens(parts, name) -> None:
    text = "".join(parts)
    encoder = _encoder(name)
    assert encoder.encode(text).tolist() == _tiktoken(text, name)
    assert encoder.count(text) == len(_tiktoken(text, name))


@pytest.mark.parametrize("line", [
    "| 7 Nov  | OM21 XWR     | Annual service     | £621   | 8             |\n",  # space runs
    "Coverage A — Dwelling: $350,000.\n\nWe'll pay.\t(see 4.2)\n \nⅫ. naïve 中文 😀 ﬁnal\x0c\n",
    "中文文本没有空格" * 3_000 + "\n",  # no safe boundary for longer than a part
])
def test_long_documents_get_tiktokens_tokens(line) -> None:
    """Past 64 KiB, where tokie alone cuts the text into blocks of its own (and a run of spaces
    with it), and past the length where the public functions switch to the fast encoder."""
    text = line * (200_000 // len(line) + 1)
    tokens = _tiktoken(text, "cl100k_base")
    assert encode(text) == tokens
    assert count_tokens(text) == len(tokens)


def test_o200k_is_left_to_tiktoken() -> None:
    """tokie cuts o200k's case-aware pieces otherwise in places no rule covers."""
    assert fast_encoder("o200k_base") is None
    text = "L’État est là. 亚洲AV Ⅻ\n \n" * 400
    assert encode(text, "o200k_base") == _tiktoken(text, "o200k_base")
    assert count_tokens(text, "o200k_base") == len(_tiktoken(text, "o200k_base"))


def test_a_part_tokie_panics_on_is_encoded_by_tiktoken() -> None:
    class PanicException(BaseException):  # what a Rust panic becomes in Python
        pass

    class Panicking:
        def encode(self, text: str, add_special_tokens: bool = True):
            raise PanicException("index out of bounds")

        def count_tokens(self, text: str) -> int:
            raise PanicException("index out of bounds")

    encoding = get_encoding("cl100k_base")
    encoder = FastEncoder(encoding, Panicking())
    text = "Every part of this goes to tiktoken instead. " * 1_000
    assert encoder.encode(text).tolist() == encoding.encode_ordinary(text)
    assert encoder.count(text) == len(encoding.encode_ordinary(text))


def test_a_tokenizer_that_disagrees_with_tiktoken_is_not_used(monkeypatch) -> None:
    class Wrong:
        def encode(self, text: str, add_special_tokens: bool = True):
            return type("Encoding", (), {"ids": [1] * len(text)})()

    monkeypatch.setattr(fast_module, "_tokenizer", lambda encoding: Wrong())
    fast_encoder.cache_clear()
    try:
        assert fast_encoder("cl100k_base") is None
        text = "Exact all the same. " * 200
        assert count_tokens(text) == len(_tiktoken(text, "cl100k_base"))  # by tiktoken
    finally:
        fast_encoder.cache_clear()


def test_without_tokie_tiktoken_encodes_everything(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "tokie", None)  # import fails
    fast_encoder.cache_clear()
    try:
        assert fast_encoder("cl100k_base") is None
        text = "Still exact. " * 300
        assert encode(text) == _tiktoken(text, "cl100k_base")
    finally:
        fast_encoder.cache_clear()


def test_the_derived_tokenizer_is_kept_in_the_user_cache(tmp_path, monkeypatch) -> None:
    """Derived from tiktoken's ranks once, then read back: the second load derives nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    derived = []
    real = fast_module.tokenizer_json
    monkeypatch.setattr(fast_module, "tokenizer_json", lambda e: derived.append(1) or real(e))
    encoding = get_encoding("cl100k_base")
    first = fast_module._tokenizer(encoding)
    second = fast_module._tokenizer(encoding)
    assert derived == [1]
    assert [p.suffix for p in (tmp_path / "chunklab" / "tokenizers").iterdir()] == [".tkz"]
    text = "A check of the two. We'll see 1234.\n\n"
    ids = _tiktoken(text, "cl100k_base")
    assert first.encode(text, add_special_tokens=False).ids == ids
    assert second.encode(text, add_special_tokens=False).ids == ids
