"""Generate a question set from the user's documents with the configured LLM.

As in Chroma's chunking evaluation: the model reads one passage window at a time and answers a
question with the exact excerpt(s) that answer it, quoted back. Each excerpt is located in
``Document.text`` (:func:`core.evaluation.excerpts.locate`); a question is dropped, with its
reason, when it names nothing to look for (no content word), when an excerpt cannot be found,
is shorter than 20 characters or only a heading, when the excerpt does not answer it (the
question's content words are not in or around it), or when it repeats an earlier question or
excerpt. A kept question whose excerpt occurs many times in the document is flagged: another
occurrence would answer as well. Table questions are asked on table chunks and marked
``kind=table``. Answers are cached like every phase's, so asking again is free.

Windows are the text and table chunks of a recursive chunking (about
:data:`PASSAGE_TOKENS` tokens), chosen evenly through the document; when a question is dropped
a passage not asked yet is drawn next, then the first ones again (the questions already asked
listed, so the model asks another), up to :data:`ASKS_PER_QUESTION` requests per question.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from core.chunking.chunk import Chunk
from core.documents.model import Document
from core.evaluation.budget import longest_prefix
from core.evaluation.excerpts import (
    AMBIGUOUS_COUNT,
    Candidate,
    duplicate_of,
    empty_question,
    locate,
    rejection,
    times_found,
    unanswered,
)
from core.evaluation.questions import Question, QuestionSet, Reference
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.errors import TSVError
from core.llm.phase import PhaseContext
from core.llm.phases.question_generation import QUESTION_GENERATION, QuestionRequest
from core.llm.settings import LLMSettings, load_settings
from core.operations.strategies import chunk
from core.progress import ProgressFn, Tracker
from core.prompts.library import PromptLibrary

PASSAGE_TOKENS = 600
DEFAULT_PER_DOC = 5
TABLE_SHARE = 4  # one question in four is a table question, when the document has tables
HEADINGS = ("title", "heading")  # block kinds that only name what follows
ASKS_PER_QUESTION = 3  # requests per question wanted, at most, when questions get dropped


@dataclass(frozen=True)
class Dropped:
    """A question dropped, or kept but flagged, and why."""

    corpus_id: str
    question: str
    reason: str

    def __str__(self) -> str:
        return f"{self.corpus_id}: {self.question or '(no question)'} — {self.reason}"


@dataclass
class GeneratedSet:
    questions: QuestionSet
    dropped: list[Dropped] = field(default_factory=list)
    requests: int = 0
    cache_hits: int = 0
    asked: int = 0  # questions asked of the model (answers from the cache included)
    flagged: list[Dropped] = field(default_factory=list)  # kept, with a doubt to check

    def summary(self) -> str:
        """How many questions were asked, kept and dropped, in one sentence."""
        kept = len(self.questions.questions)
        flagged = (f"; {len(self.flagged)} kept with an excerpt that occurs several times "
                   "in its document (check them)" if self.flagged else "")
        return (f"{self.asked} question{'s' * (self.asked != 1)} asked, {kept} kept, "
                f"{len(self.dropped)} dropped{flagged}.")


def _only_headings(window: Chunk, document: Document) -> bool:
    """The window holds nothing but headings: no passage to ask about."""
    blocks = [b for b in document.blocks if b.start < window.end and b.end > window.start]
    return bool(blocks) and all(b.kind in HEADINGS for b in blocks)


def passage_windows(document: Document) -> tuple[list[Chunk], list[Chunk]]:
    """The text windows (not those of headings alone) and the table windows of ``document``."""
    chunks = chunk(document, "recursive",
                   {"size": PASSAGE_TOKENS, "overlap": 0, "unit": "tokens", "tables": True})
    return ([c for c in chunks if c.chunk_type == "text" and c.text.strip()
             and not _only_headings(c, document)],
            [c for c in chunks if c.chunk_type == "table"])


def plan(document: Document, per_doc: int) -> list[tuple[Chunk, str]]:
    """The windows to ask, in order, with their kind: ``per_doc`` spread evenly through the
    document, then the passages not asked yet, then the first ones again — for
    questions that get dropped — :data:`ASKS_PER_QUESTION` per question at most."""
    texts, tables = passage_windows(document)
    n_tables = min(len(tables), max(1, per_doc // TABLE_SHARE)) if tables and per_doc > 1 else 0
    if not texts:
        n_tables = per_doc if tables else 0
    wanted = [(texts, "text", per_doc - n_tables), (tables, "table", n_tables)]
    spread = [(windows[j * len(windows) // count], kind)
              for windows, kind, count in wanted if windows for j in range(count)]
    chosen = {window.start for window, _ in spread}
    fresh = [(window, kind) for windows, kind, _ in wanted for window in windows
             if window.start not in chosen]
    return [*spread, *fresh, *spread][: ASKS_PER_QUESTION * per_doc]


def _generate_for(document: Document, per_doc: int, context: PhaseContext, tracker: Tracker,
                  done: int, kept: list[Question], result: GeneratedSet) -> None:
    corpus_id = document.source_name
    budget = context.budget(QUESTION_GENERATION)
    accepted: list[Candidate] = []
    asked: list[str] = []
    for window, kind in plan(document, per_doc):
        if len(accepted) >= per_doc:
            break
        tracker.step(done + len(accepted), f"{corpus_id}: {len(accepted)}/{per_doc} questions")
        passage = window.text[: longest_prefix(window.text, budget)]
        request = QuestionRequest(corpus_id, tuple(window.heading_path), passage, window.start,
                                  kind, tuple(asked))
        result.asked += 1
        try:
            answer = context.ask(QUESTION_GENERATION, request)
        except TSVError as err:
            result.dropped.append(Dropped(corpus_id, "",
                                          f"the model's answer was unusable: {err}"))
            continue
        asked.append(answer.question)
        reason, candidate = _candidate(document, answer.question, answer.excerpts, window, kind)
        reason = (reason or duplicate_of(candidate, accepted)
                  or unanswered(candidate.question, candidate.spans, document))
        if reason:
            result.dropped.append(Dropped(corpus_id, answer.question, reason))
            continue
        accepted.append(candidate)
        found = max(times_found(span, document) for span in candidate.spans)
        if found >= AMBIGUOUS_COUNT:
            result.flagged.append(Dropped(
                corpus_id, candidate.question, f"the excerpt occurs {found} times in the "
                "document: retrieving any of them answers the question as well"))
        kept.append(Question(
            row=len(kept) + 2, question=candidate.question, corpus_id=corpus_id, kind=kind,
            references=tuple(Reference(document.text[s:e], s, e) for s, e in candidate.spans)))


def _candidate(document: Document, question: str, excerpts: tuple[str, ...], window: Chunk,
               kind: str) -> tuple[str | None, Candidate]:
    spans: list[tuple[int, int]] = []
    reason = empty_question(question)
    for excerpt in excerpts if reason is None else ():
        span = locate(excerpt, document.text, near=window.start)
        if span is None:
            shown = excerpt if len(excerpt) <= 60 else excerpt[:59] + "…"
            reason = f"the excerpt {shown!r} is not in the document"
            break
        reason = rejection(span, document)
        if reason:
            break
        spans.append(span)
    return reason, Candidate(question, document.source_name, tuple(sorted(set(spans))), kind)


def generate_question_set(
    documents: list[Document],
    *,
    name: str = "generated",
    per_doc: int = DEFAULT_PER_DOC,
    settings: LLMSettings | None = None,
    library: PromptLibrary | None = None,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
) -> GeneratedSet:
    """Up to ``per_doc`` questions per document; what was dropped and why."""
    template = (library or PromptLibrary()).template(QUESTION_GENERATION.template)
    tracker = Tracker(progress, per_doc * len(documents), cancel, what="Question generation")
    kept: list[Question] = []
    result = GeneratedSet(QuestionSet(name, ()))
    cache = LLMCache(enabled=use_cache)
    try:
        with LLMClient(settings or load_settings()) as client:
            context = PhaseContext(client, {QUESTION_GENERATION.name: template}, cache)
            for n, document in enumerate(documents):
                _generate_for(document, per_doc, context, tracker, n * per_doc, kept, result)
    finally:
        cache.close()
    tracker.step(tracker.total, f"{len(kept)} questions")
    result.questions = QuestionSet(name, tuple(kept))
    result.requests, result.cache_hits = context.usage.requests, context.usage.cache_hits
    return result
