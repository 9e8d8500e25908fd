"""Answers, measured: ask the model every question of a set under several arms — prompt
variants of the RAG answer template, or configurations (chunkings, chunk sets) — and grade
each answer without an LLM (:mod:`core.operations.answers.grades`).

Each configuration retrieves as an evaluation does (:func:`core.operations.evaluation.evaluate`,
whose results are cached), the retrieved passages become the prompt's numbered sources
(:func:`core.assembly.assemble_prompt`) under the arm's template, and the prompt goes through
the answer phase at a fixed temperature (0 by default) and seed, several at once up to the
server's slots. Answers are cached by template version, model, temperature, seed, question and
retrieved chunks, so a re-run (or a Resume after Cancel) asks nothing twice. A failed answer is
a failed row with its reason; a configuration that cannot retrieve fails its arms' rows, never
the run.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from core.assembly.citations import check_citations
from core.assembly.model import AssembledPrompt
from core.assembly.prompt import assemble_prompt
from core.documents.model import Document
from core.embeddings import EmbeddingSettings
from core.errors import ChunkLabError
from core.evaluation.questions import Question, QuestionSet, Reference
from core.llm.cache import LLMCache
from core.llm.client import LLMClient
from core.llm.gate import gate_for
from core.llm.phase import PhaseContext
from core.llm.phases import ANSWER, JUDGE
from core.llm.phases.judge import Judgement, JudgeRequest
from core.llm.settings import AnswerSettings, LLMSettings
from core.llm.speed import Estimate, estimate
from core.operations.answers.grades import AnswerGrades, grade_answer
from core.operations.assemble.run import template_system_prompt
from core.operations.evaluation import (
    DEFAULT_K,
    Candidate,
    CandidateResult,
    QuestionResult,
    Retrieval,
    evaluate,
)
from core.operations.presets import all_presets, last_tuned, preset
from core.progress import Listener, ProgressFn, Tracker
from core.prompts.library import PromptLibrary
from core.prompts.locales import TEMPLATE_NAME
from core.prompts.template import DEFAULT, PromptTemplate
from core.retrieval.modes import RankMode
from core.retrieval.pack import Pack
from core.store import ChunkStore

CACHE_PHASE = "answer_eval"
PROMPT_TOKENS = 400  # the answer prompt without its passages, about
PASSAGE_TOKENS = 400  # a retrieved passage, about (chunk sizes run 200-800)
RETRIEVED_AS = "text"  # the kind an unanswerable question is retrieved as
KEEP_EVERY_PACK = 1_000_000  # headroom: the retrieval decides how much context goes in


class AnswerRunError(ChunkLabError):
    """A comparison that cannot run: fewer than one arm, no question."""


@dataclass(frozen=True)
class Arm:
    """One side of a comparison: a variant of the RAG answer template over a configuration."""

    label: str
    variant: str  # "default" is the shipped text
    candidate: Candidate


def configurations(presets: Sequence[str] = (), chunk_sets: Sequence[str] = ()) -> list[Candidate]:
    """Chunking presets (with their own way to retrieve) and stored chunk sets, by name."""
    return ([preset(name).candidate() for name in presets]
            + [Candidate(name, chunk_set=name) for name in chunk_sets])


@dataclass(frozen=True)
class ConfigurationName:
    """A configuration an answer run can compare, by kind and name."""

    kind: Literal["preset", "chunk set"]
    name: str


def default_configuration(store: ChunkStore) -> ConfigurationName:
    """What a comparison starts from: the active chunk set (what retrieval uses), else the
    preset a tune saved last, else the first preset."""
    active = store.active_set()
    if active:
        return ConfigurationName("chunk set", active)
    tuned = last_tuned()
    return ConfigurationName("preset", tuned.name if tuned else next(iter(all_presets())))


def answer_variants(library: PromptLibrary) -> list[str]:
    """Every variant of the answer prompt an answer run can send, the shipped text first."""
    return [DEFAULT, *library.variants(TEMPLATE_NAME)]


def arms_for(variants: Sequence[str], candidates: Sequence[Candidate]) -> list[Arm]:
    """Every variant over every configuration, each named by what tells it apart."""
    if not variants or not candidates:
        raise AnswerRunError("Choose at least one prompt variant and one configuration.")
    arms = []
    for candidate in candidates:
        for variant in variants:
            parts = ([variant] if len(variants) > 1 else []) + (
                [candidate.label] if len(candidates) > 1 or len(variants) == 1 else [])
            arms.append(Arm(" · ".join(parts), variant, candidate))
    return arms


ANSWER_SEED = 7  # every comparison samples with the same seed, so a difference is the prompt's


@dataclass(frozen=True)
class AnswerOptions:
    temperature: float = 0.0
    seed: int = ANSWER_SEED  # sent to servers that take one
    k: int = DEFAULT_K
    ranking: RankMode = "vector"
    limit: int | None = None  # the first N questions only
    locale: str | None = None  # of the RAG answer template
    model: str = ""  # empty: the connection's
    use_cache: bool = True
    judge: bool = False  # also have the LLM judge each answer's faithfulness (reported apart)
    held_format: bool = True  # answers held to the cited format where the server can
    include_front_matter: bool = False  # covers, contents, indexes may be passages too


def run_estimate(settings: LLMSettings, answers: int, options: AnswerOptions) -> Estimate:
    """How long ``answers`` answers (and their judgements) take at the server's measured pace:
    prompts of the template and ``k`` passages of about :data:`PASSAGE_TOKENS`, answers of a
    quarter of the answer limit; answers already cached take none."""
    requests = answers * (2 if options.judge else 1)
    return estimate(settings.base_url, options.model or settings.model, requests,
                    PROMPT_TOKENS + options.k * PASSAGE_TOKENS, settings.max_tokens / 4,
                    gate_for(settings.base_url).busy())


@dataclass
class AnswerRow:
    index: int  # the question's position in the run
    row: int
    corpus_id: str
    question: str
    kind: str
    status: Literal["ok", "failed"] = "ok"
    reason: str = ""
    answer: str = ""
    references: list[list[int]] = field(default_factory=list)  # [start, end] of each excerpt
    # each alternative's excerpts, as ``references``, or [start, end, doc_id] in another
    # document (a run kept before they were has none)
    alternatives: list[list[list[int | str]]] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)  # the prompt's sources
    cited: list[str] = field(default_factory=list)  # markers the answer cites, in order
    grades: AnswerGrades | None = None
    cached: bool = False
    judge: dict[str, Any] | None = None  # the LLM judge's faithfulness (1-5) and reason
    doc_id: str = ""  # of the question's document ("": a run kept before rows named it)

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "row": self.row, "corpus_id": self.corpus_id,
                "question": self.question, "kind": self.kind, "status": self.status,
                "reason": self.reason, "answer": self.answer, "references": self.references,
                "alternatives": self.alternatives,
                "citations": self.citations,
                "cited": self.cited, "cached": self.cached, "judge": self.judge,
                "doc_id": self.doc_id,
                "grades": None if self.grades is None else self.grades.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnswerRow:
        grades = data.get("grades")
        return cls(**{**data, "grades": AnswerGrades.from_json(grades) if grades else None})


@dataclass
class ArmResult:
    arm: Arm
    template_version: str
    retrieval: str  # "vector · top-5"
    rows: list[AnswerRow]


@dataclass
class AnswerEvaluation:
    question_set: str
    question_set_version: str
    model: str
    temperature: float
    arms: list[ArmResult]
    asked: int = 0  # answers requested from the model in this run (the others were cached)
    seed: int = ANSWER_SEED
    judge_model: str = ""  # the model that judged the answers ("": no judge)


def _packs(result: QuestionResult, documents: Mapping[str, Document]) -> list[Pack]:
    """The retrieved chunks of one question as the prompt's sources, best first, each from
    its own document (``documents`` by corpus id)."""
    packs = []
    for hit in result.retrieved:
        document = documents[result.corpus_of(hit)]
        pack_id = f"{document.doc_id}:{hit.start}-{hit.end}"
        packs.append(Pack(id=pack_id, score=hit.score, order=hit.rank - 1,
                          doc_id=document.doc_id, spans=[(hit.start, hit.end)],
                          text=document.text[hit.start:hit.end], chunk_ids=[pack_id],
                          hit_ids=[pack_id]))
    return packs


def _excerpt(question: Question, reference: Reference,
             documents: Mapping[str, Document]) -> list[int | str]:
    """An alternative's excerpt as a row keeps it: ``[start, end]`` in the question's own
    document, ``[start, end, doc_id]`` in another."""
    corpus_id = question.corpus_of(reference)
    if corpus_id == question.corpus_id:
        return [reference.start, reference.end]
    return [reference.start, reference.end, documents[corpus_id].doc_id]


@dataclass
class _Job:
    arm_index: int
    row: AnswerRow
    assembled: AssembledPrompt
    question: Question
    doc_ids: dict[str, str]  # the doc_id of each document the question searched, by corpus id
    key: str


def _citation_json(assembled: AssembledPrompt, packs: list[Pack]) -> list[dict[str, Any]]:
    """The prompt's sources: marker, file name, span and passage text."""
    texts = {p.id: p.text for p in packs}
    return [{"marker": c.marker, "source": c.source, "doc_id": c.doc_id,
             "spans": [list(s) for s in c.span_offsets], "text": texts[c.pack_id]}
            for c in assembled.citations]


def _grade(job: _Job, text: str, tokens: int, seconds: float) -> None:
    check = check_citations(text, job.assembled.citations)
    q = job.question
    job.row.answer = text
    job.row.cited = [*check.used, *check.unknown]
    job.row.grades = grade_answer(
        text, check, job.assembled.citations,
        doc_of=lambda r: job.doc_ids.get(q.corpus_of(r), ""),
        accepted=q.options, answerable=q.answerable,
        tokens=tokens, seconds=seconds,
        passages=[c["text"] for c in job.row.citations])


def run_answers(question_set: QuestionSet, documents: dict[str, Document], arms: Sequence[Arm],
                settings: LLMSettings, options: AnswerOptions = AnswerOptions(), *,
                library: PromptLibrary | None = None, store: ChunkStore | None = None,
                embedding: EmbeddingSettings | None = None, progress: ProgressFn | None = None,
                cancel: threading.Event | None = None,
                judge_settings: LLMSettings | None = None,
                listen: Callable[[], Listener] | None = None) -> AnswerEvaluation:
    """Answer and grade every question under every arm (see the module docstring); the judge,
    when switched on, asks ``judge_settings``' endpoint, else the answers' own. ``listen``
    gives each answer request a listener (it hears the answer as it is written)."""
    if not arms:
        raise AnswerRunError("Choose at least one prompt variant and one configuration.")
    library = library or PromptLibrary()
    questions = [q for q in question_set.questions if q.corpus_id in documents]
    questions = questions[: options.limit] if options.limit else questions
    if not questions:
        raise AnswerRunError("The question set has no valid question to answer.")
    # Every question retrieves, an unanswerable one too (its retrieval is not scored here).
    subset = QuestionSet(question_set.name, tuple(replace(q, kind=RETRIEVED_AS)
                                                  if not q.answerable else q for q in questions))
    templates = {a.variant: library.template(TEMPLATE_NAME, a.variant) for a in arms}
    candidates = list({a.candidate.key(): a.candidate for a in arms}.values())
    answers = len(questions) * len(arms) * (2 if options.judge else 1)
    tracker = Tracker(progress, answers + 2, cancel, what="The answer run")
    tracker.step(0, "Retrieving for each configuration")
    retrieved = evaluate(subset, documents, candidates, ranking=options.ranking,
                         retrieval=Retrieval(options.k, include_front_matter=(
                             options.include_front_matter)),
                         store=store, cancel=cancel, embedding=embedding)
    by_key: dict[str, CandidateResult | str] = {
        r.candidate.key(): r for r in retrieved.results}
    by_key.update({f.candidate.key(): f.reason for f in retrieved.failures})
    model = options.model or settings.model
    cache = LLMCache(enabled=options.use_cache)
    results, jobs = [], []
    for arm_index, arm in enumerate(arms):
        outcome = by_key.get(arm.candidate.key(), "The configuration retrieved nothing.")
        template = templates[arm.variant]
        rows = [AnswerRow(i, q.row, q.corpus_id, q.question, q.kind,
                          references=[list(r.span) for r in q.references],
                          alternatives=[[_excerpt(q, r, documents) for r in option]
                                        for option in q.alternatives],
                          doc_id=documents[q.corpus_id].doc_id)
                for i, q in enumerate(questions)]
        if isinstance(outcome, str):
            for row in rows:
                row.status, row.reason = "failed", outcome
            results.append(ArmResult(arm, template.version, "", rows))
            continue
        system = template_system_prompt(template, options.locale)
        for row, q, found in zip(rows, questions, outcome.questions, strict=True):
            searched = {cid: documents[cid] for cid in q.corpus_ids if cid in documents}
            packs = _packs(found, searched)
            assembled = assemble_prompt(q.question, packs, headroom_tokens=KEEP_EVERY_PACK,
                                        system_prompt=system,
                                        doc_names={d.doc_id: d.source_name
                                                   for d in searched.values()})
            row.citations = _citation_json(assembled, packs)
            key = LLMCache.key(CACHE_PHASE, template.version, model, options.temperature,
                               seed=options.seed, question=q.question,
                               locale=options.locale or DEFAULT,
                               chunks=[c.pack_id for c in assembled.citations],
                               **({"held": True} if options.held_format else {}))
            jobs.append(_Job(arm_index, row, assembled, q,
                             {cid: d.doc_id for cid, d in searched.items()}, key))
        results.append(ArmResult(arm, template.version,
                                 f"{outcome.ranking} · {outcome.retrieval}", rows))
    judge = library.template(JUDGE.template) if options.judge else None
    asked = _answer_all(jobs, templates, arms, (settings, judge_settings or settings), options,
                        cache, tracker, judge, listen)
    tracker.step(tracker.total, "Done")
    judged_by = "" if judge is None else (judge_settings or settings).model
    return AnswerEvaluation(question_set.name, question_set.version, model,
                            options.temperature, results, asked, options.seed, judged_by)


def _pooled(client: LLMClient, work: list[_Job], ask: Callable[[_Job], None],
            tracker: Tracker, done: Callable[[_Job], None], workers: int) -> None:
    """``ask`` each job, up to ``workers`` at once; Cancel closes the client (requests in
    flight end) and stops the run."""
    with ThreadPoolExecutor(max(1, workers)) as pool:
        pending: dict[Future[None], _Job] = {pool.submit(ask, j): j for j in work}
        while pending:
            finished_now, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            if tracker.cancel is not None and tracker.cancel.is_set():
                for future in pending:
                    future.cancel()
                client.close()
                tracker.check()
            for future in finished_now:
                job = pending.pop(future)
                future.result()
                done(job)


def _streamed(listener: Listener | None) -> Listener:
    """``listener``, asking for the text: an answer is always asked as a stream, so one that
    loops is ended where the loop began (:mod:`core.llm.repeats`) whether anyone watches it
    or not — the command line and a run in the background too."""
    listener = listener or Listener()
    return listener if listener.text is not None else replace(listener, text=lambda _: None)


def _answer_all(jobs: list[_Job], templates: dict[str, PromptTemplate], arms: Sequence[Arm],
                endpoints: tuple[LLMSettings, LLMSettings], options: AnswerOptions,
                cache: LLMCache, tracker: Tracker, judge: PromptTemplate | None,
                listen: Callable[[], Listener] | None) -> int:
    """Grade the cached answers, ask the model the others (up to its slots at once); then,
    with ``judge``, have the judge's endpoint (the second of ``endpoints``) judge every answer
    (cached too)."""
    settings, judge_settings = endpoints
    done = [0]

    def finished(job: _Job, what: str) -> None:
        done[0] += 1  # step 0 was the retrieval
        tracker.step(1 + done[0], f"{what} {done[0]} of {int(tracker.total) - 2}: "
                                  f"{arms[job.arm_index].label}")

    to_ask = []
    for job in jobs:
        hit = cache.get(job.key)
        if hit is None:
            to_ask.append(job)
            continue
        saved = json.loads(hit)
        job.row.cached = True
        _grade(job, saved["text"], saved["tokens"], saved["seconds"])
        finished(job, "Answer (cached)")
    answer = AnswerSettings(model=options.model, temperature=options.temperature,
                            seed=options.seed, held_format=options.held_format)
    to_judge = [j for j in jobs if judge is not None and j.row.status == "ok"]
    if not to_ask and not to_judge:
        return 0
    tracker.rebase()  # the cached answers took no time: the time left follows the asked ones
    with ExitStack() as clients:
        client = clients.enter_context(LLMClient(settings, cancel=tracker.cancel))

        def ask(job: _Job) -> None:
            tracker.check()
            template = templates[arms[job.arm_index].variant]
            context = PhaseContext(client, {ANSWER.name: template}, answer_settings=answer,
                                   listener=_streamed(listen() if listen is not None else None))
            try:
                result = ANSWER.run(context, job.assembled)
            except ChunkLabError as err:
                job.row.status, job.row.reason = "failed", str(err)
                return
            response = context.responses[-1]
            job.row.reason = result.stopped
            _grade(job, result.text, response.completion_tokens, response.latency_s)
            cache.put(job.key, CACHE_PHASE, json.dumps(
                {"text": result.text, "tokens": response.completion_tokens,
                 "seconds": response.latency_s}))

        _pooled(client, to_ask, ask, tracker, lambda j: finished(j, "Answer"),
                settings.concurrency)
        if judge is not None:
            to_judge = [j for j in jobs if j.row.status == "ok"]
            judging = (client if judge_settings is settings
                       else clients.enter_context(LLMClient(judge_settings,
                                                            cancel=tracker.cancel)))
            context = PhaseContext(judging, {JUDGE.name: judge}, cache=cache,
                                   answer_settings=answer)
            _pooled(judging, to_judge, lambda j: _judge(context, j), tracker,
                    lambda j: finished(j, "Judged"), judge_settings.concurrency)
    return len(to_ask)


def _judge(context: PhaseContext, job: _Job) -> None:
    """The judge's faithfulness score and reason for one answer (a failed request is "not
    judged" with its reason)."""
    sources = "\n\n".join(f"{c['marker']} {c['source']}\n{c['text']}" for c in job.row.citations)
    try:
        verdict = context.ask(JUDGE, JudgeRequest(job.question.question, sources, job.row.answer))
    except ChunkLabError as err:
        verdict = Judgement(None, str(err))
    job.row.judge = {"faithfulness": verdict.faithfulness, "reason": verdict.reason}
