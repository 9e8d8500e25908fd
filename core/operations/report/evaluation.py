"""The report of an evaluation: what the Evaluate page shows, in one file to take to a meeting.

Inputs (documents, question set, configurations, embedders, how each retrieved), the verdict
in words, every metric with its 95 % interval beside a chart of them, every configuration
against the first metric by metric, and each question: whether each configuration found its
reference, and, opened, the reference and every retrieved chunk with the reference marked in
it and its pages. Questions can be filtered: found by all, missed by all, or disagreements.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.documents.model import Document
from core.evaluation.metrics import METRIC_LABELS, METRICS
from core.operations.evaluation.confidence import (
    best_configuration,
    compare,
    intervals,
    verdict,
)
from core.operations.evaluation.results import CandidateResult, Evaluation, QuestionResult
from core.operations.report.charts import figure_html, metric_bars, plotly_js, probability_bars
from core.operations.report.markup import (
    Section,
    definitions,
    esc,
    question_list,
    question_row,
    render,
    table,
)
from core.operations.report.passages import excerpt, pages, passage_cap

WORDS = {True: "on", False: "off"}
VERDICT_METRIC = "recall"  # the metric of the verdict in words, as on the page
REFERENCE_SHOWN = 800  # characters of a reference excerpt shown above the chunks
STATES = (("found", "Found by all"), ("missed", "Missed by all"),
          ("split", "Disagreements"))


@dataclass(frozen=True)
class ReportInputs:
    """What a report says its results were computed from, beyond the results themselves."""

    question_set: str
    version: str
    documents: Mapping[str, Document]  # corpus id -> document
    notes: tuple[tuple[str, str], ...] = ()  # more inputs by name, e.g. ("Ranking", "bm25")


def _settings(result: CandidateResult) -> str:
    candidate = result.candidate
    if candidate.chunk_set:
        return f"chunk set {candidate.chunk_set}"
    described = ", ".join(f"{k} {WORDS.get(v, v) if isinstance(v, bool) else v}"
                          for k, v in candidate.settings.items())
    return candidate.strategy + (f" ({described})" if described else "")


def inputs_section(inputs: ReportInputs, evaluation: Evaluation) -> Section:
    results = evaluation.results
    questions = len(results[0].questions) if results else 0
    general = definitions([
        ("Question set", inputs.question_set), ("Version", inputs.version),
        ("Questions", f"{questions:,}"),
        ("Documents", f"{len(inputs.documents):,}"), *inputs.notes])
    documents = table(["Document", "Characters", "Pages"], [
        [esc(cid), f"{len(d.text):,}", "–" if d.pages is None else f"{d.pages:,}"]
        for cid, d in inputs.documents.items()], numeric=(1, 2))
    rows = []
    for outcome in evaluation.outcomes:
        candidate = outcome.candidate
        if isinstance(outcome, CandidateResult):
            rows.append([esc(candidate.label), esc(_settings(outcome)),
                         esc(candidate.embedder.label
                             + (f" ({outcome.dimension}-d)" if outcome.dimension else "")),
                         esc(candidate.ranks_with(outcome.ranking)), esc(outcome.retrieval),
                         f"{sum(outcome.chunk_counts.values()):,}", "ok"])
        else:
            rows.append([esc(candidate.label), esc(candidate.strategy or candidate.chunk_set or ""),
                         esc(candidate.embedder.label), "", esc(evaluation.retrieval_of(outcome)),
                         "", f"failed: {esc(outcome.reason)}"])
    configurations = table(["Configuration", "Chunking", "Embedder", "Ranking", "Retrieval",
                            "Chunks", "Status"], rows, numeric=(5,))
    return Section("inputs", "Inputs", general + "<h3>Documents</h3>" + documents
                   + "<h3>Configurations</h3>" + configurations)


def verdicts(results: Sequence[CandidateResult]) -> list[str]:
    """Every configuration after the first against the first, on the verdict's metric."""
    return [verdict(compare(results[0], other, VERDICT_METRIC)) for other in results[1:]]


def verdict_section(results: Sequence[CandidateResult]) -> Section:
    sentences = verdicts(results) or ["Only one configuration has results: there is nothing "
                                      "to compare it with."]
    body = "".join(f'<p class="verdict">{esc(s)}</p>' for s in sentences)
    body += ('<p class="note">Sign test over the questions that are not ties, each '
             "configuration against the first; the intervals are bootstrap intervals over the "
             "questions, so a small set gives wide ones.</p>")
    if (best := best_configuration(list(results))) is not None:  # three or more configurations
        body += f'<h3>Which is best</h3><p class="verdict">{esc(best.sentence())}</p>'
        body += figure_html(probability_bars(best.probabilities))
    return Section("verdict", "Verdict", body)


def metrics_section(results: Sequence[CandidateResult]) -> Section:
    bounds = {r.candidate.label: intervals(r) for r in results}
    rows = []
    for metric in METRICS:
        values = [r.metrics.overall.value(metric) for r in results]
        top = max(values)
        cells = [esc(METRIC_LABELS[metric])]
        for result, value in zip(results, values, strict=True):
            low, high = bounds[result.candidate.label][metric]
            star = "★ " if value == top and len(set(values)) > 1 else ""
            cells.append(f"{star}{value:.1%} <span class=\"ci\">({low:.0%}–{high:.0%})</span>")
        rows.append(cells)
    rows.append(["Mean tokens per question",
                 *(f"{r.metrics.overall.mean_tokens:,.0f}" for r in results)])
    numeric = tuple(range(1, len(results) + 1))
    body = table(["Metric", *(r.candidate.label for r in results)], rows, numeric=numeric)
    body += ('<p class="note">Percent of the question set; ★ the best; the 95 % interval in '
             "brackets and as error bars.</p>")
    return Section("metrics", "Metrics", body + figure_html(metric_bars(results)))


def comparisons_section(results: Sequence[CandidateResult]) -> Section | None:
    if len(results) < 2:
        return None
    rows = []
    for other in results[1:]:
        for metric in METRICS:
            c = compare(results[0], other, metric)
            low, high = c.diff_ci95
            rows.append([esc(other.candidate.label), esc(METRIC_LABELS[metric]), str(c.wins),
                         str(c.losses), str(c.ties), f"{low:+.1%} to {high:+.1%}",
                         esc(verdict(c))])
    body = (f'<p class="note">B is each configuration against A, '
            f"{esc(results[0].candidate.label)}, question by question.</p>"
            + table(["B", "Metric", "B wins", "A wins", "Ties", "B − A (95 %)", "Verdict"],
                    rows, numeric=(2, 3, 4, 5)))
    return Section("comparisons", "Every metric, against the first", body)


def _state(found: list[bool]) -> str:
    return "found" if all(found) else "missed" if not any(found) else "split"


def _references(q: QuestionResult, documents: Mapping[str, Document]) -> str:
    if not q.references:
        return '<div class="ref">No reference: this question has no answer in its document.</div>'
    parts = []
    for (start, end), corpus_id in zip(q.references, q.reference_documents, strict=True):
        document = documents.get(corpus_id)
        where = " · ".join(p for p in (_elsewhere(q, corpus_id, document),
                                       f"characters {start:,}–{end:,}",
                                       pages(document, start, end)) if p)
        text = "" if document is None else excerpt(document.text, start, end, [], REFERENCE_SHOWN)
        parts.append(f'<div class="ref"><div class="note">Reference · {esc(where)}</div>'
                     f"{text}</div>")
    return "".join(parts)


def _elsewhere(q: QuestionResult, corpus_id: str, document: Document | None) -> str:
    """"in rider.md" for a place in another document than the question's own, else ""."""
    if corpus_id == q.corpus_id:
        return ""
    return f"in {document.source_name if document is not None else corpus_id}"


def _side(result: CandidateResult, q: QuestionResult, documents: Mapping[str, Document],
          cap: int) -> str:
    s = q.scores
    head = (f'<h4>{esc(result.candidate.label)}</h4><div class="grades">recall {s.recall:.0%} · '
            f"precision {s.precision:.0%} · IoU {s.iou:.0%} · first hit at rank "
            f"{s.first_hit_rank or '–'} · {s.retrieved_tokens:,} tokens</div>")
    hits = []
    for hit in q.retrieved:
        corpus_id = q.corpus_of(hit)
        document = documents.get(corpus_id)
        meta = " · ".join(p for p in (
            f"#{hit.rank}", f"score {hit.score:.3f}", _elsewhere(q, corpus_id, document),
            f"characters {hit.start:,}–{hit.end:,}",
            pages(document, hit.start, hit.end), hit.chunk_type,
            "covers the reference" if hit.touches_reference else "",
            "cut to the budget" if hit.cut else "") if p)
        text = ("" if document is None
                else excerpt(document.text, hit.start, hit.end, q.references_in(corpus_id), cap))
        hits.append(f'<div class="hit{" touch" if hit.touches_reference else ""}">'
                    f'<div class="meta">{esc(meta)}</div><p class="text">{text}</p></div>')
    listed = "".join(hits) or '<p class="note">Nothing retrieved.</p>'
    return f'<div class="side">{head}{listed}</div>'


def questions_section(results: Sequence[CandidateResult],
                      documents: Mapping[str, Document]) -> Section:
    passages = sum(len(q.retrieved) for r in results for q in r.questions)
    cap = passage_cap(passages)
    rows = []
    for index, q in enumerate(results[0].questions):
        own = [r.questions[index] for r in results]
        found = [x.scores.hit > 0 for x in own]
        badges = "".join(
            f'<span class="badge {"yes" if hit else "no"}">{esc(r.candidate.label)}: '
            f'{"rank " + str(x.scores.first_hit_rank) if hit else "missed"}</span>'
            for r, x, hit in zip(results, own, found, strict=True))
        sides = "".join(_side(r, x, documents, cap) for r, x in zip(results, own, strict=True))
        rows.append(question_row(
            _state(found), index + 1, q.question, f"{q.corpus_id} · {q.kind}", badges,
            f'{_references(q, documents)}<div class="sides">{sides}</div>'))
    return question_list(
        "Open a question to see each configuration's chunks, best first, the reference marked "
        f"in them. Each chunk shows at most {cap:,} characters (around the reference it "
        "touches) so the report stays small.", STATES, rows)


def evaluation_report(evaluation: Evaluation, inputs: ReportInputs) -> bytes:
    """The whole report of ``evaluation`` (its failures listed with their reasons)."""
    results = evaluation.results
    sections = [verdict_section(results), inputs_section(inputs, evaluation)]
    if results:
        sections.append(metrics_section(results))
        if (compared := comparisons_section(results)) is not None:
            sections.append(compared)
        sections.append(questions_section(results, inputs.documents))
    labels = ", ".join(r.candidate.label for r in evaluation.outcomes)
    return render(f"Evaluation of {inputs.question_set}",
                  f"{labels} · {evaluation.retrieval} · ranking {evaluation.ranking}",
                  sections, charts=bool(results), plotly_js=plotly_js() if results else "")
