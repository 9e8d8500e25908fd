"""Shared by the report tests: a synthetic evaluation of any size (texts chosen by the test,
hostile ones among them) and the check that a report references nothing outside itself."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from core.documents.model import Document
from core.evaluation.metrics import aggregate, score_question
from core.operations.evaluation import (
    Candidate,
    CandidateResult,
    Evaluation,
    QuestionResult,
    RetrievedChunk,
)
from core.operations.report import ReportInputs
from core.operations.report.markup import LIBRARY_ID

# Attributes that make a browser fetch (or navigate to) what they name.
FETCHING = {"src", "href", "srcset", "action", "formaction", "poster", "data", "background",
            "xlink:href", "manifest", "ping", "cite", "longdesc", "usemap", "codebase"}
OUTSIDE_IN_CODE = re.compile(r"https?://|//[a-z0-9.-]+\.[a-z]{2,}/|url\((?!\s*['\"]?(?:data:|#))"
                             r"|@import", re.IGNORECASE)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._code: str | None = None  # the tag of the script or style being read
        self._library = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, value in attrs:
            if name in FETCHING and value is not None \
                    and not value.startswith(("#", "data:")):
                self.found.append(f"<{tag} {name}={value!r}>")
            if name == "style" and value and OUTSIDE_IN_CODE.search(value):
                self.found.append(f"<{tag} style={value!r}>")
        if tag in ("script", "style"):
            self._code, self._library = tag, named.get("id") == LIBRARY_ID

    def handle_endtag(self, tag: str) -> None:
        if tag == self._code:
            self._code, self._library = None, False

    def handle_data(self, data: str) -> None:
        # The inlined Plotly library names URLs it would fetch only for map traces, which no
        # report draws: the browser test proves with the network off that nothing is fetched.
        if self._code and not self._library:
            self.found += [f"in a {self._code}: …{data[max(0, m.start() - 40):m.end() + 40]}…"
                           for m in OUTSIDE_IN_CODE.finditer(data)]


def outside_references(page: str) -> list[str]:
    """Every place ``page`` would load or link anything but itself: fetching attributes that
    are not ``#anchors`` or ``data:``, and URLs, ``url(…)`` or ``@import`` in its own scripts
    and styles. Text (a document quoting a URL) is not a reference."""
    parser = _Links()
    parser.feed(page)
    parser.close()
    return parser.found


def synthetic_evaluation(questions: int, configurations: int = 2, k: int = 5,
                         chunk: int = 600, question_text: str = "What does part {n} say?",
                         filler: str = "Plain words of the manual. ",
                         label: str = "configuration {c}",
                         ) -> tuple[Evaluation, ReportInputs]:
    """``questions`` questions on one document of ``filler`` repeated, each answered by its
    own stretch; every configuration retrieves ``k`` chunks of ``chunk`` characters per
    question, the first touching the reference on odd questions for the first configuration
    only (so all three filter states occur)."""
    size = questions * chunk * 2 + chunk * k
    text = (filler * (size // len(filler) + 1))[:size]
    document = Document(doc_id="manual", source_name="manual.txt", format="txt", route="text",
                        text=text)
    results = []
    for c in range(configurations):
        rows, scored = [], []
        for n in range(questions):
            reference = (n * 2 * chunk + 10, n * 2 * chunk + 60)
            first = n * 2 * chunk if (c == 0 and n % 2) or n % 3 == 0 else size - chunk
            spans = [(first, first + chunk)] + [(size - chunk * (i + 1), size - chunk * i)
                                                for i in range(1, k)]
            score = score_question(spans, [reference], spans, retrieved_tokens=chunk // 4)
            retrieved = [RetrievedChunk(rank, s, e, 1.0 / rank, "text",
                                        s < reference[1] and reference[0] < e)
                         for rank, (s, e) in enumerate(spans, 1)]
            rows.append(QuestionResult(n + 2, question_text.format(n=n + 1), "manual", "text",
                                       [reference], retrieved, score))
            scored.append(("manual", "text", score))
        results.append(CandidateResult(Candidate(label.format(c=c + 1), "fixed",
                                                 {"size": chunk}),
                                       "vector", k, aggregate(scored), rows,
                                       {"manual": size // chunk}, 0.1))
    inputs = ReportInputs("synthetic.csv", "abc123", {"manual": document},
                          (("Ranking", "vector"),))
    return Evaluation(results, "vector", k), inputs
