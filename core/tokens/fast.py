"""tiktoken's encodings, exactly, several times faster: tokie wherever the two agree.

tiktoken is the reference: every count ChunkLab gives is ``len(encode_ordinary(text))``.
tokie (a Rust BPE tokenizer, loaded lazily) applies the same merges several times faster, but
cuts text into pieces with its own pre-tokenizer, which differs from tiktoken's regular
expression in a few places. Comparing the two on every code point in many contexts and on
millions of random strings (``tests/test_tokens_fast.py``) found them all:

- a line break, then spaces or tabs, then a line break (``"\\n  \\n"``);
- a tab before anything but whitespace, an ASCII letter or a digit (``"\\t.a"``, ``"\\t'd"``);
- vertical tab, form feed and the ASCII separators;
- non-ASCII characters of a few classes: letter numbers (Ⅻ), circled and squared letters,
  marks, controls, format, unassigned and private-use characters, line and paragraph
  separators.

Everywhere else the tokens are the same, in texts under 64 KiB: a longer text tokie cuts into
blocks of its own, where a run of spaces may be cut in two. So a text is encoded by tokie in
parts of at most :data:`PART_CHARS`, except stretches around those places, which tiktoken
encodes; every part is cut at safe boundaries (:mod:`core.tokens.safe_boundaries`), where tiktoken's
tokens split whatever surrounds them, so the parts add up to tiktoken's encoding of the whole.

Only cl100k_base (the default) is encoded this way: in o200k's pieces, which tell upper from
lower case, tokie differs in places no rule here covers (:data:`FAST_ENCODINGS`).

tokie reads a tokenizer file, which is derived once per machine from tiktoken's own BPE ranks
(the pair each token was merged from) and kept in the user cache. An encoder is used only when
it agrees with tiktoken on :data:`CHECK_TEXT`; without tokie, or when it disagrees, tiktoken
encodes everything.
"""

from __future__ import annotations

import json
import logging
import re
import tempfile
import threading
import unicodedata
from collections.abc import Callable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from core.config import user_cache_dir
from core.files import write_atomic_with
from core.tokens.safe_boundaries import safe_after, safe_before
from core.tokens.tiktoken_files import get_encoding

if TYPE_CHECKING:
    import tiktoken
    import tokie

log = logging.getLogger(__name__)
T = TypeVar("T")

FILE_VERSION = 1  # bump when the derived tokenizer file changes
# o200k's pieces tell upper from lower case, and there tokie's differ in ways found in its
# vocabulary that no rule here covers ("’É", "亚洲AV" are one piece to tiktoken, two to tokie):
# tiktoken encodes o200k alone.
FAST_ENCODINGS = ("cl100k_base",)
BLANK_LINE = re.compile(r"\n[ \t]+[\n\r]")  # a literal first: found at memchr speed
BLANK_LINE_CR = re.compile(r"\r[ \t]+[\n\r]")
TAB_BEFORE_SIGN = re.compile(r"\t(?![ \t\n\rA-Za-z0-9])")
CONTROL_CHARS = "\x0b\x0c\x1c\x1d\x1e\x1f"  # vertical tab, form feed, separators
ASCII_CONTROLS = re.compile(f"[{CONTROL_CHARS}]")
UNLIKE_CATEGORIES = frozenset(
    {"Nl", "Mn", "Mc", "Me", "Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"})
# tokie cuts a text of 64 KiB or more into blocks of its own, and may cut a run of spaces in
# two there: it is given parts of at most this many characters (4 bytes each at the most).
PART_CHARS = 16_000
LETTER_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))
# Text on which tokie must give tiktoken's tokens before it is used (every kind of piece the
# pre-tokenizers make that a document is full of).
CHECK_TEXT = (
    "## 2.1 Coverage A — Dwelling\n\nWe'll pay up to $350,000 (USD) for the dwelling; "
    "you're covered 24/7. It's THE policy's core: 1234567 units, 3.14%, e-mail a@b.io, "
    "https://example.com/a?b=1&c=2.\n\n| Item | Limit |\n|---|---|\n| Roof | 12,500 |\n"
    "  indented    spaces   \n\n\n  def f(x):\n      return x**2  # note\n"
    "Zürich, Straße, naïve café, Ελληνικά, Русский текст, 中文文本, 日本語のテキスト, 한국어.\n"
    "“Quotes” ‘single’ «guillemets» … – — •  ¼ ² ° © ™ € £ ¥ 😀👍🏽\n"
    "I'M SURE THEY'VE SEEN IT'S FINE; we'd've known. ...!!! ??? ;;; ---\r\nend\n"
)


@cache
def _unlike(point: int) -> bool:
    """Whether tokie may class this non-ASCII character otherwise than tiktoken."""
    return (unicodedata.category(chr(point)) in UNLIKE_CATEGORIES
            or any(a <= point <= b for a, b in LETTER_SYMBOLS))


def unlike_places(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` where tokie may cut pieces otherwise than tiktoken, in order."""
    spots = [m.span() for m in BLANK_LINE.finditer(text)]
    if "\r" in text:
        spots += [m.span() for m in BLANK_LINE_CR.finditer(text)]
    if "\t" in text:
        spots += [m.span() for m in TAB_BEFORE_SIGN.finditer(text)]
    if any(c in text for c in CONTROL_CHARS):
        spots += [m.span() for m in ASCII_CONTROLS.finditer(text)]
    if not text.isascii():  # speed: the distinct characters, from one array of code points
        points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        wide = np.unique(points[points > 0x7F]).tolist()
        unlike = [p for p in wide if _unlike(p)]
        if unlike:
            spots += [(i, i + 1) for i in np.flatnonzero(np.isin(points, unlike)).tolist()]
    return sorted(spots)


def tiktoken_stretches(text: str) -> list[tuple[int, int]]:
    """Stretches of ``text`` cut at safe boundaries that hold every place of
    :func:`unlike_places`, in order and apart: tiktoken encodes them, tokie the rest."""
    stretches: list[list[int]] = []
    for start, end in unlike_places(text):
        if stretches and start < stretches[-1][1]:
            stretches[-1][1] = max(stretches[-1][1], safe_after(text, end))
            continue
        a = safe_before(text, start, stretches[-1][1] if stretches else 0)
        b = safe_after(text, end)
        if stretches and a <= stretches[-1][1]:
            stretches[-1][1] = b
        else:
            stretches.append([a, b])
    return [(a, b) for a, b in stretches]


def _tokie_parts(text: str, start: int, end: int) -> list[tuple[str, bool]]:
    """``text[start:end]`` (nothing tokie and tiktoken class apart) in parts of at most
    :data:`PART_CHARS`, cut at safe boundaries, for tokie; a stretch with no safe boundary
    within that length goes to tiktoken up to the next one."""
    parts: list[tuple[str, bool]] = []
    while end - start > PART_CHARS:
        cut = safe_before(text, start + PART_CHARS, start)
        if cut > start:
            parts.append((text[start:cut], False))
        else:
            cut = min(end, safe_after(text, start + PART_CHARS))
            parts.append((text[start:cut], True))
        start = cut
    if end > start:
        parts.append((text[start:end], False))
    return parts


class FastEncoder:
    """``encode_ordinary`` of one tiktoken encoding, with tokie wherever the two agree."""

    def __init__(self, encoding: tiktoken.Encoding, tokenizer: tokie.Tokenizer) -> None:
        self.encoding = encoding
        self.tokenizer = tokenizer

    def _parts(self, text: str) -> list[tuple[str, bool]]:
        """``text`` in consecutive parts, each with whether tiktoken must encode it."""
        parts: list[tuple[str, bool]] = []
        position = 0
        for a, b in [*tiktoken_stretches(text), (len(text), len(text))]:
            parts += _tokie_parts(text, position, a)
            if b > a:
                parts.append((text[a:b], True))
            position = b
        return parts

    def encode(self, text: str) -> np.ndarray:
        """The tokens tiktoken's ``encode_ordinary`` gives, as an array of uint32."""
        arrays = []
        for part, by_tiktoken in self._parts(text):
            ids = None if by_tiktoken else _unless_panic(self._ids, part)
            if ids is None:
                arrays.append(self.encoding.encode_to_numpy(part, disallowed_special=()))
            else:
                arrays.append(np.fromiter(ids, dtype=np.uint32, count=len(ids)))
        if len(arrays) == 1:
            return arrays[0]
        return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.uint32)

    def count(self, text: str) -> int:
        """``len(encode(text))`` without making the tokens."""
        total = 0
        for part, by_tiktoken in self._parts(text):
            n = None if by_tiktoken else _unless_panic(self.tokenizer.count_tokens, part)
            total += len(self.encoding.encode_ordinary(part)) if n is None else n
        return total

    def _ids(self, part: str) -> list[int]:
        return self.tokenizer.encode(part, add_special_tokens=False).ids

    def agrees(self) -> bool:
        return self.encode(CHECK_TEXT).tolist() == self.encoding.encode_ordinary(CHECK_TEXT)


def _unless_panic(method: Callable[[str], T], part: str) -> T | None:
    """``method(part)``, or None when tokie panicked (a Rust panic reaches Python as pyo3's
    PanicException, a BaseException: seen on texts over 64 KiB, which it is never given)."""
    try:
        return method(part)
    except BaseException as err:
        if type(err).__name__ != "PanicException":
            raise
        log.warning("tokie failed on a part of %d characters; tiktoken encoded it", len(part))
        return None


_loading = threading.Lock()


@cache
def fast_encoder(name: str) -> FastEncoder | None:
    """The fast encoder of tiktoken's encoding ``name``; None for an encoding not in
    :data:`FAST_ENCODINGS`, when tokie is not installed, its file cannot be made, or it
    disagrees with tiktoken on :data:`CHECK_TEXT`."""
    if name not in FAST_ENCODINGS:
        return None
    with _loading:  # one thread derives the file; the others wait for it
        encoding = get_encoding(name)
        try:
            import tokie
        except ImportError:
            return None
        try:
            encoder = FastEncoder(encoding, _tokenizer(encoding))
        except (OSError, ValueError, tokie.TokieError) as err:
            log.warning("tiktoken encodes everything: tokie's tokenizer for %s could not be "
                        "made (%s)", name, err)
            return None
        if not encoder.agrees():
            log.warning("tiktoken encodes everything: tokie disagrees with it on %s", name)
            return None
        return encoder


def _tokenizer(encoding: tiktoken.Encoding) -> tokie.Tokenizer:
    """tokie's tokenizer for ``encoding`` from the user cache, derived and kept there the
    first time (a cache that cannot be written only costs the derivation next time)."""
    import tokie

    version = metadata.version("tokie")
    path = user_cache_dir() / "tokenizers" / f"{encoding.name}-tokie{version}-{FILE_VERSION}.tkz"
    if path.exists():
        try:
            return tokie.Tokenizer.from_file(str(path))
        except tokie.TokieError:
            log.warning("Deriving %s again: the cached file was unreadable", path)
    with tempfile.TemporaryDirectory(prefix="chunklab-tokenizer-") as folder:
        source = Path(folder) / "tokenizer.json"
        source.write_text(json.dumps(tokenizer_json(encoding)), encoding="utf-8")
        tokenizer = tokie.Tokenizer.from_json(str(source))
    try:
        write_atomic_with(path, lambda tmp: tokenizer.save(str(tmp)))
    except (OSError, tokie.TokieError) as err:
        log.warning("Could not keep %s (%s): it will be derived again", path, err)
    return tokenizer


def _byte_symbols() -> dict[int, str]:
    """GPT-2's printable stand-in for each byte, the alphabet of byte-level BPE files."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return {**{b: chr(b) for b in printable},
            **{b: chr(256 + n) for n, b in enumerate(others)}}


def _last_merge(ranks: dict[bytes, int], token: bytes) -> tuple[bytes, bytes]:
    """The two tokens BPE joined last to make ``token``: merge by rank, as tiktoken does, with
    only the ranks below the token's own, until two parts are left."""
    rank = ranks[token]
    parts = [token[i : i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best, at = rank, -1
        for i in range(len(parts) - 1):
            joined = ranks.get(parts[i] + parts[i + 1])
            if joined is not None and joined < best:
                best, at = joined, i
        if at < 0:
            raise ValueError(f"token {token!r} cannot be made from lower-ranked tokens")
        parts[at : at + 2] = [parts[at] + parts[at + 1]]
    return parts[0], parts[1]


def tokenizer_json(encoding: tiktoken.Encoding) -> dict[str, Any]:
    """A tokenizer.json (the Hugging Face format tokie reads) of ``encoding``'s ranks: its
    regular expression, byte-level BPE with each token's last merge, no special tokens."""
    ranks: dict[bytes, int] = encoding._mergeable_ranks
    symbols = _byte_symbols()

    def spelled(token: bytes) -> str:
        return "".join(symbols[b] for b in token)

    merges = [[spelled(a), spelled(b)] for a, b in (
        _last_merge(ranks, token) for token, _ in sorted(ranks.items(), key=lambda kv: kv[1])
        if len(token) > 1)]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "post_processor": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": encoding._pat_str}, "behavior": "Isolated",
             "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
             "use_regex": False}]},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": False,
                  "byte_fallback": False, "ignore_merges": False,
                  "vocab": {spelled(token): rank for token, rank in ranks.items()},
                  "merges": merges},
    }
