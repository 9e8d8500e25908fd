"""Generate a question set from the user's documents with the configured LLM.

As in Chroma's chunking evaluation: the model reads one passage at a time and writes a question
it answers, with the answer; the excerpt is the passage's sentence or table row that holds the
answer (:func:`core.evaluation.answer_excerpt.choose_excerpt`), an exact span of
``Document.text``. A question is dropped, with its reason, when it names nothing to look for
(no content word), when no sentence of the passage holds its answer, when the excerpt is
shorter than 20 characters or only a heading, when the excerpt does not answer it (the
question's content words are not in or around it), or when it repeats an earlier question or
excerpt. A kept question whose excerpt occurs many times in the document is flagged: another
occurrence would answer as well. Table questions are asked on table chunks and marked
``kind=table``. Answers are cached like every phase's, so asking again is free.

Passages are the text and table chunks of a recursive chunking (about
:data:`PASSAGE_TOKENS` tokens, fewer in a short document so it still has passages enough).
Each passage is asked once: the next one is the passage farthest from every passage asked so
far, so questions come from all over the document and a question that came back as a repeat
is followed by one about another part of it — up to :data:`ASKS_PER_QUESTION` requests per
question wanted.

A share of the set's questions can be unanswerable (``kind=unanswerable``, no reference): the
model reads a passage not asked about yet and writes a question on its subject that the
document does not answer (:mod:`core.llm.phases.unanswerable`); one that a passage of any of the
set's documents answers, as far as words tell (:mod:`core.evaluation.unanswerable`), is dropped
with that passage and another is asked, as for the answerable ones.

The run tells each question as it is decided (``heard``: kept, flagged or dropped with its
reason), so a page can show its work and keep every kept question at once. A request that
fails (the server is down, a request timed out) ends the run with one sentence
(:attr:`GeneratedSet.failed`), keeping the questions kept so far.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.errors import ChunkLabError
from core.evaluation.answer_excerpt import choose_excerpt
from core.evaluation.budget import longest_prefix
from core.evaluation.excerpts import (
    AMBIGUOUS_COUNT,
    Candidate,
    duplicate_of,
    empty_question,
    rejection,
    times_found,
    unanswered,
)
from core.evaluation.questions import UNANSWERABLE, Question, QuestionSet, Reference
from core.evaluation.unanswerable import answering_passage
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.errors import LLMCancelled, LLMError, TSVError
from core.llm.gate import gate_for
from core.llm.phase import PhaseContext
from core.llm.phases.question_generation import (
    QUESTION_GENERATION,
    GeneratedQuestion,
    QuestionGenerationPhase,
    QuestionRequest,
)
from core.llm.phases.unanswerable import UNANSWERABLE_QUESTION, UnanswerableQuestionPhase
from core.llm.settings import LLMSettings, load_settings
from core.llm.speed import Estimate, estimate
from core.operations.strategies import chunk
from core.progress import Cancelled, Listener, ProgressFn, Tracker
from core.prompts.library import PromptLibrary
from core.tokens import count_tokens

PASSAGE_TOKENS = 150  # a paragraph or two: a small model asks about what it is shown
MIN_PASSAGE_TOKENS = 20  # a sentence, in a document too short for the passages wanted
PASSAGES_PER_QUESTION = 2  # passages a document is cut into, at least, per question wanted
SENTENCE_SEPARATORS = ("\n\n", "\n", ". ")  # a passage is cut between sentences, not words
DEFAULT_PER_DOC = 5
TABLE_SHARE = 4  # one question in four is a table question, when the document has tables
HEADINGS = ("title", "heading")  # block kinds that only name what follows
ASKS_PER_QUESTION = 3  # requests per question wanted, at most, when questions get dropped
ASKS_EXPECTED = 1.5  # requests per question wanted, as runs go (some questions are dropped)
QUESTION_ANSWER_TOKENS = 60  # a question and its answer, as JSON
MAX_UNANSWERABLE = 0.5  # a set mostly of unanswerable questions measures little retrieval


@dataclass(frozen=True)
class Dropped:
    """A question dropped, or kept but flagged, and why."""

    corpus_id: str
    question: str
    reason: str

    def __str__(self) -> str:
        return f"{self.corpus_id}: {self.question or '(no question)'} — {self.reason}"


@dataclass(frozen=True)
class Heard:
    """One question decided as the run goes: kept (with ``question``), kept but flagged, or
    dropped, with the reason."""

    status: Literal["kept", "flagged", "dropped"]
    corpus_id: str
    text: str
    reason: str = ""
    question: Question | None = None

    def line(self) -> str:
        said = f"“{self.text}”" if self.text else "(no question)"
        reason = f" — {self.reason}" if self.reason else ""
        return f"{self.status}: {self.corpus_id}: {said}{reason}"


@dataclass
class GeneratedSet:
    questions: QuestionSet
    dropped: list[Dropped] = field(default_factory=list)
    requests: int = 0
    cache_hits: int = 0
    asked: int = 0  # questions asked of the model (answers from the cache included)
    flagged: list[Dropped] = field(default_factory=list)  # kept, with a doubt to check
    failed: str = ""  # the sentence of a request that failed and ended the run early

    def summary(self) -> str:
        """How many questions were asked, kept and dropped, in one sentence."""
        kept = len(self.questions.questions)
        unanswerable = sum(not q.answerable for q in self.questions.questions)
        of_them = f" ({unanswerable} of them unanswerable)" if unanswerable else ""
        flagged = (f"; {len(self.flagged)} kept with an excerpt that occurs several times "
                   "in its document (check them)" if self.flagged else "")
        failed = f" The run stopped early: {self.failed}" if self.failed else ""
        return f"{_counts(self.asked, kept, len(self.dropped))}{of_them}{flagged}.{failed}"

    def decisions(self) -> list[str]:
        """Each question dropped, then each kept but flagged, with the reason, a line each."""
        return [*(f"dropped: {d}" for d in self.dropped),
                *(f"flagged: {d}" for d in self.flagged)]

    def by_document(self) -> list[str]:
        """The same counts for each document, one sentence each (every question asked was
        either kept or dropped)."""
        kept = Counter(q.corpus_id for q in self.questions.questions)
        dropped = Counter(d.corpus_id for d in self.dropped)
        return [f"{name}: {_counts(kept[name] + dropped[name], kept[name], dropped[name])}."
                for name in dict.fromkeys([*kept, *dropped])]


def _counts(asked: int, kept: int, dropped: int) -> str:
    return f"{asked} question{'s' * (asked != 1)} asked, {kept} kept, {dropped} dropped"


def _only_headings(window: Chunk, document: Document) -> bool:
    """The window holds nothing but headings: no passage to ask about."""
    blocks = [b for b in document.blocks if b.start < window.end and b.end > window.start]
    return bool(blocks) and all(b.kind in HEADINGS for b in blocks)


def _without_trailing_headings(window: Chunk, document: Document) -> str:
    """The passage's text without the headings it ends with (those of the next section)."""
    ends = [b.end for b in document.blocks if window.start <= b.start < window.end
            and b.kind not in HEADINGS]
    return window.text[: max(ends, default=window.end) - window.start].rstrip()


def passage_windows(document: Document, per_doc: int) -> tuple[list[Chunk], list[Chunk]]:
    """The text passages (not those of headings alone) and the table passages of ``document``,
    small enough that there are :data:`PASSAGES_PER_QUESTION` per question wanted."""
    size = count_tokens(document.text) // (PASSAGES_PER_QUESTION * per_doc)
    chunks = chunk(document, "recursive", {
        "size": max(MIN_PASSAGE_TOKENS, min(PASSAGE_TOKENS, size)), "overlap": 0,
        "unit": "tokens", "tables": True, "separators": list(SENTENCE_SEPARATORS)})
    return ([c for c in chunks if c.chunk_type == "text" and c.text.strip()
             and not _only_headings(c, document)],
            [c for c in chunks if c.chunk_type == "table"])


@dataclass
class Draw:
    """The passages of one document still to ask about, by kind, and how many questions of each
    kind are wanted: one in :data:`TABLE_SHARE` about a table, when the document has tables."""

    pools: dict[str, list[Chunk]]
    wanted: dict[str, int]
    asked: list[Chunk] = field(default_factory=list)
    kept: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, document: Document, per_doc: int, answerable: int | None = None) -> Draw:
        """The passages for ``per_doc`` questions, ``answerable`` of them (all by default)
        answerable questions, the others unanswerable."""
        texts, tables = passage_windows(document, per_doc)
        wanted = per_doc if answerable is None else answerable
        n_tables = (min(len(tables), max(1, wanted // TABLE_SHARE))
                    if tables and wanted > 1 else 0)
        if not texts:
            n_tables = wanted if tables else 0
        return cls({"text": texts, "table": tables},
                   {"text": wanted - n_tables, "table": n_tables})

    def next(self, prefer: str | None = None) -> tuple[Chunk, str] | None:
        """The passage farthest from every passage asked so far (the first one to begin), of
        the kind ``prefer`` if one is left, else of a kind still wanted if there is one left,
        else of any kind; None when all were asked."""
        kinds = [prefer] if prefer is not None and self.pools.get(prefer) else []
        kinds += [k for k in self.pools if self.pools[k] and self.kept[k] < self.wanted[k]]
        kinds += [k for k in self.pools if self.pools[k]]
        if not kinds:
            return None
        pool = self.pools[kinds[0]]
        window = max(pool, key=lambda w: min((abs(w.start - a.start) for a in self.asked),
                                             default=-w.start))
        pool.remove(window)
        self.asked.append(window)
        return window, kinds[0]


@dataclass
class _Run:
    """What every document's questions are asked and kept with."""

    documents: list[Document]  # every document of the set: none may answer an unanswerable
    context: PhaseContext
    tracker: Tracker
    result: GeneratedSet
    heard: Callable[[Heard], None]
    kept: list[Question] = field(default_factory=list)

    def keep(self, question: str, corpus_id: str, kind: str,
             references: tuple[Reference, ...] = (), doubt: str = "") -> None:
        self.kept.append(Question(row=len(self.kept) + 2, question=question,
                                  corpus_id=corpus_id, kind=kind, references=references))
        self.heard(Heard("flagged" if doubt else "kept", corpus_id, question, doubt,
                         self.kept[-1]))

    def drop(self, corpus_id: str, question: str, reason: str) -> None:
        self.result.dropped.append(Dropped(corpus_id, question, reason))
        self.heard(Heard("dropped", corpus_id, question, reason))

    def request(self, phase: QuestionGenerationPhase | UnanswerableQuestionPhase,
                document: Document, window: Chunk, kind: str) -> QuestionRequest:
        """The request about ``window`` (the passage as much of it as ``phase``'s prompt
        holds), counted as one question asked."""
        passage = _without_trailing_headings(window, document)
        self.result.asked += 1
        return QuestionRequest(document.source_name, tuple(window.heading_path),
                               passage[: longest_prefix(passage, self.context.budget(phase))],
                               window.start, kind)


def unanswerable_counts(per_doc: int, documents: int, share: float) -> list[int]:
    """How many of each document's ``per_doc`` questions are unanswerable: ``share`` of the
    whole set (one at least when the share is not 0), spread over the documents."""
    if share <= 0 or not documents:
        return [0] * documents
    total = min(per_doc * documents, max(1, round(per_doc * documents * share)))
    base, extra = divmod(total, documents)
    return [base + (n < extra) for n in range(documents)]


def _generate_for(document: Document, per_doc: int, unanswerable: int, run: _Run,
                  done: int) -> None:
    corpus_id = document.source_name
    accepted: list[Candidate] = []
    draw = Draw.of(document, per_doc, per_doc - unanswerable)
    for _ in range(ASKS_PER_QUESTION * (per_doc - unanswerable)):
        drawn = draw.next() if len(accepted) < per_doc - unanswerable else None
        if drawn is None:
            break
        window, kind = drawn
        run.tracker.step(done + len(accepted),
                         f"{corpus_id}: {len(accepted)}/{per_doc} questions")
        request = run.request(QUESTION_GENERATION, document, window, kind)
        try:
            answer = run.context.ask(QUESTION_GENERATION, request)
        except TSVError as err:
            run.drop(corpus_id, "", f"the model's answer was unusable: {err}")
            continue
        reason, candidate = _candidate(document, answer, request)
        reason = (reason or duplicate_of(candidate, accepted)
                  or unanswered(candidate.question, candidate.spans, document))
        if reason:
            run.drop(corpus_id, answer.question, reason)
            continue
        accepted.append(candidate)
        draw.kept[kind] += 1
        found = max(times_found(span, document) for span in candidate.spans)
        doubt = ""
        if found >= AMBIGUOUS_COUNT:
            doubt = (f"the excerpt occurs {found} times in the document: retrieving any of them "
                     "answers the question as well")
            run.result.flagged.append(Dropped(corpus_id, candidate.question, doubt))
        run.keep(candidate.question, corpus_id, kind, tuple(
            Reference(document.text[s:e], s, e) for s, e in candidate.spans), doubt)
    _unanswerable_for(document, unanswerable, draw, accepted, run, done + len(accepted))


def _unanswerable_for(document: Document, wanted: int, draw: Draw, accepted: list[Candidate],
                      run: _Run, done: int) -> None:
    """Up to ``wanted`` unanswerable questions about the passages not asked about yet (those
    asked about already when none is left); one that a passage of the set's documents answers,
    or that repeats a question, is dropped."""
    corpus_id, kept, again = document.source_name, 0, iter(list(draw.asked))
    for _ in range(ASKS_PER_QUESTION * wanted):
        if kept >= wanted:
            break
        drawn = draw.next(prefer="text")
        window = drawn[0] if drawn is not None else next(again, None)
        if window is None:
            break
        run.tracker.step(done + kept, f"{corpus_id}: {kept}/{wanted} unanswerable questions")
        request = run.request(UNANSWERABLE_QUESTION, document, window, "text")
        try:
            question = run.context.ask(UNANSWERABLE_QUESTION, request)
        except TSVError as err:
            run.drop(corpus_id, "", f"the model's answer was unusable: {err}")
            continue
        candidate = Candidate(question, corpus_id, (), UNANSWERABLE)
        answered = answering_passage(question, run.documents)
        reason = (empty_question(question) or duplicate_of(candidate, accepted)
                  or (f"meant to be unanswerable, but {answered}" if answered else None))
        if reason:
            run.drop(corpus_id, question, reason)
            continue
        accepted.append(candidate)
        kept += 1
        run.keep(question, corpus_id, UNANSWERABLE)


def _candidate(document: Document, answer: GeneratedQuestion,
               request: QuestionRequest) -> tuple[str | None, Candidate]:
    """Why the answer gives no question to keep (or None), and the question with the passage's
    sentence that holds each of its answers as the excerpts."""
    spans: list[tuple[int, int]] = []
    reason = empty_question(answer.question)
    for said in answer.answers if reason is None else ():
        chosen = choose_excerpt(said, answer.question, document, request.start, request.end)
        if isinstance(chosen, str):
            return chosen, Candidate(answer.question, document.source_name, (), request.kind)
        reason = rejection(chosen, document)
        if reason:
            break
        spans.append(chosen)
    return reason, Candidate(answer.question, document.source_name, tuple(sorted(set(spans))),
                             request.kind)


def generation_estimate(documents: int, per_doc: int, settings: LLMSettings,
                        library: PromptLibrary) -> Estimate:
    """How long generating ``per_doc`` questions for each of ``documents`` documents takes at
    the server's measured pace (some questions are dropped and asked again)."""
    template = count_tokens(library.template(QUESTION_GENERATION.template).text)
    return estimate(settings.base_url, settings.model,
                    round(documents * per_doc * ASKS_EXPECTED), template + PASSAGE_TOKENS,
                    QUESTION_ANSWER_TOKENS, gate_for(settings.base_url).busy())


def generate_question_set(
    documents: list[Document],
    *,
    name: str = "generated",
    per_doc: int = DEFAULT_PER_DOC,
    unanswerable: float = 0.0,
    settings: LLMSettings | None = None,
    library: PromptLibrary | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    heard: Callable[[Heard], None] | None = None,
    listener: Listener | None = None,
) -> GeneratedSet:
    """Up to ``per_doc`` questions per document, ``unanswerable`` (a share, 0 to
    :data:`MAX_UNANSWERABLE`) of the set unanswerable; what was dropped and why. ``heard`` hears
    each question as it is decided, ``listener`` each request wait, go and be written."""
    if not 0 <= unanswerable <= MAX_UNANSWERABLE:
        raise ChunkLabError(f"The share of unanswerable questions is between 0 and "
                            f"{MAX_UNANSWERABLE}, not {unanswerable}.")
    templates = library or PromptLibrary()
    tracker = Tracker(progress, per_doc * len(documents), cancel, what="Question generation")
    result = GeneratedSet(QuestionSet(name, ()))
    client = LLMClient(settings or load_settings(), cancel=cancel)
    cache = LLMCache(enabled=use_cache)
    context = PhaseContext(client, {phase.name: templates.template(phase.template)
                                    for phase in (QUESTION_GENERATION, UNANSWERABLE_QUESTION)},
                           cache, listener=listener)
    run = _Run(documents, context, tracker, result, heard or (lambda _: None))
    counts = unanswerable_counts(per_doc, len(documents), unanswerable)
    try:
        with client:
            for n, (document, count) in enumerate(zip(documents, counts, strict=True)):
                _generate_for(document, per_doc, count, run, n * per_doc)
    except LLMCancelled:
        raise Cancelled("Question generation") from None
    except LLMError as err:  # the server failed: what was kept so far stays
        result.failed = str(err)
    finally:
        cache.close()
    tracker.step(tracker.total, f"{len(run.kept)} questions")
    result.questions = QuestionSet(name, tuple(run.kept))
    result.requests, result.cache_hits = context.usage.requests, context.usage.cache_hits
    return result
