"""Check an LLM answer's citation markers against the citation map of its assembled prompt."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from core.assembly.model import Citation, CitationStyle
from core.assembly.prompt import marker
from core.text.sentences import sentences

_PLAIN = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
# What :func:`check_citations` reads as a citation, in words for the people writing prompts.
MARKERS_READ = "[1], [¹] and [^1] alike (lists such as [1, 2] too)"

_MARKER = re.compile(r"\[(\^?[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+(?:\s*,\s*\^?[0-9⁰¹²³⁴⁵⁶⁷⁸⁹]+)*)\](?!\()")
_DEFINITION = re.compile(r"^\[\^[0-9]+\]:", re.MULTILINE)


class MarkerHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: int  # span of the bracketed marker in the answer
    end: int
    number: int
    marker: str  # canonical marker of the citation style
    known: bool


class Repeat(BaseModel):
    model_config = ConfigDict(frozen=True)

    sentence: str  # as it first appears (markers included)
    times: int


class CitationCheck(BaseModel):
    model_config = ConfigDict(frozen=True)

    hits: list[MarkerHit]  # every citation marker in the answer, in order
    used: list[str]  # cited markers that exist, in citation order
    unknown: list[str]  # cited markers with no citation behind them, in order of appearance
    unused: list[str]  # citations the answer never cites
    repeats: list[Repeat] = []  # sentences the answer says more than once (a model looping)

    @property
    def ok(self) -> bool:
        return not self.unknown and not self.unused


def check_citations(answer: str, citations: Sequence[Citation]) -> CitationCheck:
    """Find the citation markers in an LLM answer and check them against the citation map.

    Accepts ``[¹]``, ``[^1]`` and plain ``[1]`` (models often flatten superscripts), also lists
    like ``[1, 2]``; Markdown links ``[1](…)`` and footnote definitions (``[^1]:`` at the start
    of a line) are not citations.
    """
    style: CitationStyle = "footnote" if citations and "^" in citations[0].marker else "numeric"
    known = {c.marker for c in citations}
    definitions = {m.start() for m in _DEFINITION.finditer(answer)}
    hits: list[MarkerHit] = []
    for match in _MARKER.finditer(answer):
        if match.start() in definitions:
            continue
        for part in match.group(1).split(","):
            number = int(part.strip().lstrip("^").translate(_PLAIN))
            canonical = marker(number, style)
            hits.append(MarkerHit(start=match.start(), end=match.end(), number=number,
                                  marker=canonical, known=canonical in known))
    cited = {h.marker for h in hits}
    return CitationCheck(
        hits=hits,
        used=[c.marker for c in citations if c.marker in cited],
        unknown=list(dict.fromkeys(h.marker for h in hits if not h.known)),
        unused=[c.marker for c in citations if c.marker not in cited],
        repeats=repeats(answer),
    )


_WORD = re.compile(r"\w+")
MIN_REPEAT_WORDS = 5  # shorter sentences ("See above.") may well come twice


def repeats(answer: str) -> list[Repeat]:
    """Sentences of at least :data:`MIN_REPEAT_WORDS` words the answer says more than once
    (compared without markers, case or spacing): a small model looping, often when the
    sources do not hold what was asked."""
    seen: dict[str, tuple[str, int]] = {}
    for sentence in sentences(answer):
        words = _WORD.findall(_MARKER.sub(" ", sentence).lower())
        if len(words) >= MIN_REPEAT_WORDS:
            key = " ".join(words)
            first, times = seen.get(key, (sentence, 0))
            seen[key] = (first, times + 1)
    return [Repeat(sentence=first, times=times) for first, times in seen.values() if times > 1]


